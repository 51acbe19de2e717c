// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bell.c - the doorbells of a job's ranks on shm: a word in shared memory
 * per rank, which its progress thread sleeps on (a futex) while its shm
 * queue is idle, and which a peer rings once it has put a message there.
 *
 * Why: libfabric 1.17's shm queue has no wait object a thread can sleep in
 * until a message comes (net.c, th_ofi_cq_idle()), so an idle progress
 * thread naps, each nap twice the last, up to TH_OFI_NAP_MAX_NS, and the
 * first message after a pause waited for the nap to end.  With more ranks
 * than cores every waiter sleeps and that wait was most of a collective
 * (4 ranks on 2 CPUs under libthmpi, MPI_Bcast of 8 bytes: 1.4 ms, the
 * 1 ms nap).  Rung, the nap ends after one wake-up.
 *
 * The handshake: the sleeper says so in @sleeping, then looks at its
 * queue once more before it sleeps; the ringer puts its message in the
 * queue, then looks at @sleeping.  A full fence on each side between the
 * write and the look, so either the sleeper's last look finds the message
 * or the ringer sees it asleep and wakes it (@seq, the futex word, moves,
 * so a ring just before the sleep ends it at once).
 *
 * The word is the rank's own region (a memfd, mode 0600, never named;
 * every rank on shm is the same user, net.c's test for shm), which the
 * rank hands to each peer that proves it holds the job's key (handoff.c);
 * each maps it, and once the job has joined nothing reaches it any more.
 * The region holds the rank's shm rings too (ring.c).  The nap keeps its
 * length as the bound of a sleep, so a peer can only wake a rank early,
 * or not at all: a bell never rung (a peer that died between its send and
 * its ring, a region that did not come) costs what a nap cost before.
 * Only a job on one rail, shm: with two, the nap is spent in poll() on the
 * TCP queue's descriptor, which a futex cannot join.
 *
 * A waiter sleeps on the bell too (th_ofi_bell_wait()): a host thread
 * that sleeps in th_ct_wait() waits on its own wake-up word and on the
 * bell at once (futex_waitv(), Linux 5.16), and reads the queue itself
 * when a peer rings.  The message that raises its counter then costs one
 * wake-up, the waiter's, not two in a row (the progress thread's, then
 * the waiter's from it), on CPUs that busy ranks hold.  A ring wakes the
 * waiters if there are any, else the thread (FUTEX_WAKE_BITSET: the two
 * sleep with different bits); the thread still looks after each nap, so a
 * ring that never comes costs a nap, as above.  On crowded CPUs (more
 * ranks than CPUs) the thread does not arm the bell at all (net.c,
 * th_ofi_cq_idle()): a ring wakes waiters or nobody.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <limits.h>
#include <time.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "ofi.h"

/**
 * struct th_ofi_bell - a rank's doorbell, at the start of its region
 * @seq: the futex word: moves on each ring
 * @sleeping: the rank's progress thread is, or is about to be, asleep
 * @waiting: the rank's waiters asleep on @seq, or about to be
 *	(th_ofi_bell_wait())
 * @rings: TH_OFI_RING_SLOTS when the rank reads the shm rings that
 *	follow, a page in (ring.c), written before the peers map the
 *	region; 0: none, its peers send through libfabric
 */
struct th_ofi_bell {
	u32 seq;
	u32 sleeping;
	u32 waiting;
	u32 rings;
};

/* where a region's rings start: the doorbell's page is its own */
#define TH_OFI_BELL_RINGS_AT	4096

/* A region's bytes: the doorbell, and rings for a job of @size ranks. */
static size_t th_ofi_bell_bytes(u32 size)
{
	size_t rings = th_ofi_ring_region_bytes(size);

	return rings ? TH_OFI_BELL_RINGS_AT + rings :
		       sizeof(struct th_ofi_bell);
}

void *th_ofi_bell_rings(struct th_ofi_bell *b)
{
	return (u8 *)b + TH_OFI_BELL_RINGS_AT;
}

/* @b's sequence: it moves after each message a peer sent (an acquire) */
u32 th_ofi_bell_seq(const struct th_ofi_bell *b)
{
	return __atomic_load_n(&b->seq, __ATOMIC_ACQUIRE);
}

bool th_ofi_bell_has_rings(const struct th_ofi_bell *b)
{
	return __atomic_load_n(&b->rings, __ATOMIC_ACQUIRE) ==
	       TH_OFI_RING_SLOTS;
}

static bool th_ofi_bell_wanted(const struct th_ofi *o)
{
	return o->nrails == 1 && o->rail[0].cq_poll;
}

static struct th_ofi_bell *th_ofi_bell_map(int fd, u32 size)
{
	void *p = mmap(NULL, th_ofi_bell_bytes(size), PROT_READ | PROT_WRITE,
		       MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

/*
 * This rank's bell, and in *@nonce the name of the socket through which
 * it goes to the peers (handoff.c), for the boot round (0 when the job
 * needs none or it could not be made: the naps stay as they were).  Its
 * region holds this rank's shm rings too, when @o->rings asks for them
 * and the job is small enough (th_ofi_ring_region_bytes()); else
 * @o->rings is cleared and the peers send through libfabric.
 */
void th_ofi_bell_open(struct th_ofi *o, u64 *nonce)
{
	int fd;

	*nonce = 0;
	if (!th_ofi_bell_wanted(o)) {
		o->rings = false;
		return;
	}
	fd = memfd_create("thnic-bell", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0) {
		o->rings = false;
		return;
	}
	/*
	 * Sparse: a ring's pages are made when its sender first writes.
	 * Sealed at its size, so that no holder can shrink it under the
	 * others (whose next access would be a SIGBUS).
	 */
	if (fchmod(fd, 0600) || ftruncate(fd, th_ofi_bell_bytes(o->size)) ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) ||
	    !(o->bell = th_ofi_bell_map(fd, o->size)) ||
	    th_ofi_handoff_listen(o, nonce)) {
		if (o->bell)
			munmap(o->bell, th_ofi_bell_bytes(o->size));
		o->bell = NULL;
		close(fd);
		*nonce = 0;
		o->rings = false;
		return;
	}
	o->bell_fd = fd;
	th_ofi_ring_open(o);
	__atomic_store_n(&o->bell->rings, o->rings ? TH_OFI_RING_SLOTS : 0,
			 __ATOMIC_RELEASE);
}

/*
 * Hand this rank's bell to the peers whose sockets @nonces names (0 for
 * none) and map theirs (handoff.c), once @o->mac_key is the job's.  A peer
 * whose region did not come, or not as a bell, just is not rung, and not
 * sent to through its rings.
 */
void th_ofi_bell_join(struct th_ofi *o, const u64 *nonces)
{
	int *fds;
	u32 i;

	if (!o->bell)
		return;
	o->bells = calloc(o->size, sizeof(*o->bells));
	fds = calloc(o->size, sizeof(*fds));
	if (o->bells && fds) {
		th_ofi_handoff_run(o, o->bell_fd, th_ofi_bell_bytes(o->size),
				   nonces, fds, o->timeout_ns);
		for (i = 0; i < o->size; i++) {
			if (fds[i] < 0)
				continue;
			o->bells[i] = th_ofi_bell_map(fds[i], o->size);
			close(fds[i]);
		}
	}
	free(fds);
	th_ofi_bell_unlink(o);
	th_ofi_ring_join(o);
}

/*
 * The job has joined (or failed to): nothing reaches this rank's region
 * any more, neither its socket nor its descriptor.
 */
void th_ofi_bell_unlink(struct th_ofi *o)
{
	th_ofi_handoff_close(o);
	if (o->bell_fd >= 0)
		close(o->bell_fd);
	o->bell_fd = -1;
}

/*
 * Who sleeps on @seq, as FUTEX_WAIT_BITSET's bits.  A waiter sleeps in
 * futex_waitv(), whose sleepers match every bit: a wake for the thread
 * wakes waiters too (there are none, or they just came), and one for the
 * waiters leaves the thread asleep.
 */
#define TH_OFI_BELL_THREAD	1U
#define TH_OFI_BELL_WAITER	2U

static void th_ofi_bell_futex_wake(struct th_ofi_bell *b, u32 who)
{
	syscall(SYS_futex, &b->seq, FUTEX_WAKE_BITSET, INT_MAX, NULL, NULL,
		who);
}

/*
 * Ring @b: @seq moves on every ring (a sequentially consistent change: a
 * full fence after the message it rings for, before the looks at who
 * sleeps), then its waiters are woken if it has any, else its progress
 * thread if it sleeps: true when somebody was.  A waiter reads the queue
 * for everybody, so the thread sleeps on while one does.
 */
static bool th_ofi_bell_wake(struct th_ofi_bell *b)
{
	__atomic_add_fetch(&b->seq, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&b->waiting, __ATOMIC_RELAXED)) {
		th_ofi_bell_futex_wake(b, TH_OFI_BELL_WAITER);
		return true;
	}
	if (!__atomic_load_n(&b->sleeping, __ATOMIC_RELAXED))
		return false;
	th_ofi_bell_futex_wake(b, TH_OFI_BELL_THREAD);
	return true;
}

/* A message is in @peer's shm queue: wake its waiters or progress thread. */
void th_ofi_bell_ring(struct th_ofi *o, u32 peer)
{
	if (o->bells && o->bells[peer] && th_ofi_bell_wake(o->bells[peer]))
		__atomic_add_fetch(&o->bell_rings, 1, __ATOMIC_RELAXED);
}

/* Wake this rank's own progress thread (an operation ended, a stop). */
void th_ofi_bell_ring_self(struct th_ofi *o)
{
	if (!o->bell)
		return;
	__atomic_add_fetch(&o->bell->seq, 1, __ATOMIC_SEQ_CST);
	th_ofi_bell_futex_wake(o->bell, TH_OFI_BELL_THREAD);
}

/*
 * The progress thread is about to nap: say so, once per idle spell.  True
 * when it did so now: the caller looks at its queue once more, and naps
 * only if that finds nothing (th_ofi_bell_sleep()).
 */
bool th_ofi_bell_arm(struct th_ofi *o)
{
	if (!o->bell || o->bell_armed)
		return false;
	o->bell_seq = __atomic_load_n(&o->bell->seq, __ATOMIC_ACQUIRE);
	/* a sequentially consistent store: a full fence before the next look */
	__atomic_store_n(&o->bell->sleeping, 1, __ATOMIC_SEQ_CST);
	o->bell_armed = true;
	return true;
}

/* The queue gave something: the thread is awake. */
void th_ofi_bell_disarm(struct th_ofi *o)
{
	if (!o->bell_armed)
		return;
	__atomic_store_n(&o->bell->sleeping, 0, __ATOMIC_RELAXED);
	o->bell_armed = false;
}

/*
 * Nap for at most @nap on the armed bell; false when there is none (the
 * caller naps its own way).  The thread stays armed: it looks at its
 * queue next, and sleeps again without another look first if it is empty.
 */
bool th_ofi_bell_sleep(struct th_ofi *o, const struct timespec *nap)
{
	struct timespec until;
	long ret;
	u32 seq;

	if (!o->bell_armed)
		return false;
	/* FUTEX_WAIT_BITSET's timeout is a CLOCK_MONOTONIC time */
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += nap->tv_sec;
	until.tv_nsec += nap->tv_nsec;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	ret = syscall(SYS_futex, &o->bell->seq, FUTEX_WAIT_BITSET, o->bell_seq,
		      &until, NULL, TH_OFI_BELL_THREAD);
	/*
	 * rung for it (before the sleep, or during it), not timed out: a
	 * ring that woke waiters moves @seq too, but ends no sleep of its
	 */
	if (!ret || errno == EAGAIN)
		o->bell_woken++;
	seq = __atomic_load_n(&o->bell->seq, __ATOMIC_ACQUIRE);
	/* slept to the end while the bell rang for waiters: they read */
	o->bell_for_waiters = ret && errno == ETIMEDOUT && seq != o->bell_seq &&
			      __atomic_load_n(&o->bell->waiting, __ATOMIC_RELAXED);
	o->bell_seq = seq;
	return true;
}

/*
 * The thread's last sleep ended at its bound while the bell rang for
 * waiters, who are reading: the thread naps again instead of reading
 * too (and racing the waiter it would then have to wake).  A nap with no
 * ring at all still ends in a read, so a message whose ring never came
 * waits for two naps at most.
 */
bool th_ofi_bell_rang_for_waiters(struct th_ofi *o)
{
	bool rang = o->bell_for_waiters;

	o->bell_for_waiters = false;
	return rang;
}

/* Whether waiters sleep on the bell (th_ofi_bell_wait()). */
bool th_ofi_bell_waits(const struct th_ofi *o)
{
	return o->bell && !__atomic_load_n(&o->bell_no_waitv, __ATOMIC_RELAXED);
}

/*
 * Sleep while *@woken (the waiter's word, private to this process) is 0
 * and @bell_seq is @seq, until @deadline (CLOCK_REALTIME): 0, or
 * -ETIMEDOUT, or -ENOSYS without futex_waitv().
 */
static int th_ofi_bell_sleep2(u32 *bell_seq, u32 seq, u32 *woken,
			      const struct timespec *deadline)
{
	struct futex_waitv fw[2] = {
		{ .val = 0, .uaddr = (uintptr_t)woken,
		  .flags = FUTEX_32 | FUTEX_PRIVATE_FLAG },
		{ .val = seq, .uaddr = (uintptr_t)bell_seq, .flags = FUTEX_32 },
	};

	if (syscall(SYS_futex_waitv, fw, 2, 0, deadline, CLOCK_REALTIME) >= 0)
		return 0;
	/* EAGAIN: a word had moved already; EINTR: a signal */
	return errno == ETIMEDOUT || errno == ENOSYS ? -errno : 0;
}

/*
 * A waiter's sleep on the bell (struct th_ipf_net's sleep): until *@woken
 * is not 0 or @deadline passes.  It is counted on the bell (@waiting),
 * then reads @seq and the queue (th_ofi_net_look_all(): what it handles
 * may raise its counter and set *@woken), then sleeps while @seq has not
 * moved; a ring ends the sleep and it reads again.  The handshake with a
 * ringer (th_ofi_bell_wake()) is a pair of sequentially consistent
 * changes: the waiter's count, then its look at @seq; the ringer's move
 * of @seq, then its look at the count.  So a ringer that saw no waiter
 * wakes the thread, and a waiter that leaves after a ring it was counted
 * for (its count gone, @seq moved since its last look) reads once more.
 * A ring meant for it that never comes (a peer that died) costs two naps
 * of the progress thread's at most, which still reads after them.  A
 * ring for another counter only ends one sleep of the loop below: 0 comes
 * once *@woken is set, -ETIMEDOUT at @deadline, and 0 early only the
 * first time futex_waitv() is missing (the caller looks at *@woken and
 * calls again).  -EOPNOTSUPP when waiters cannot sleep on the bell (none,
 * or a kernel without futex_waitv()): the caller sleeps on *@woken alone.
 */
int th_ofi_bell_wait(struct th_ofi *o, u32 *woken,
		     const struct timespec *deadline)
{
	bool looked = false;
	int ret = 0;
	u32 seq;

	if (!th_ofi_bell_waits(o))
		return -EOPNOTSUPP;
	__atomic_add_fetch(&o->bell_waits, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&o->bell->waiting, 1, __ATOMIC_SEQ_CST);
	for (;;) {
		seq = __atomic_load_n(&o->bell->seq, __ATOMIC_SEQ_CST);
		th_ofi_net_look_all(o, looked ? &o->bell_reads
					      : &o->sleeper_reads);
		looked = true;
		if (__atomic_load_n(woken, __ATOMIC_ACQUIRE))
			break;
		ret = th_ofi_bell_sleep2(&o->bell->seq, seq, woken, deadline);
		if (ret == -ENOSYS) {
			/* an old kernel: the caller sleeps on *@woken alone */
			__atomic_store_n(&o->bell_no_waitv, true,
					 __ATOMIC_RELAXED);
			ret = 0;
			break;
		}
		if (ret)
			break;
	}
	__atomic_sub_fetch(&o->bell->waiting, 1, __ATOMIC_SEQ_CST);
	/* rung since the last look, maybe for the thread that was not woken */
	if (__atomic_load_n(&o->bell->seq, __ATOMIC_SEQ_CST) != seq)
		th_ofi_net_look_all(o, &o->bell_reads);
	return ret;
}

void th_ofi_bell_close(struct th_ofi *o)
{
	u32 i;

	th_ofi_bell_unlink(o);
	th_ofi_ring_close(o);
	for (i = 0; o->bells && i < o->size; i++)
		if (o->bells[i])
			munmap(o->bells[i], th_ofi_bell_bytes(o->size));
	free(o->bells);
	o->bells = NULL;
	if (o->bell)
		munmap(o->bell, th_ofi_bell_bytes(o->size));
	o->bell = NULL;
	o->bell_armed = false;
}
