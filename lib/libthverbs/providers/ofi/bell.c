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
 * The word is the rank's own region (shm_open, mode 0600; every rank on
 * shm is the same user, net.c's test for shm): its name goes to the peers
 * in the boot round, each maps it, and the name is removed once the job
 * has joined, as the shm rail's is.  The nap keeps its length as the
 * bound of a sleep, so a peer can only wake a rank early, or not at all:
 * a bell never rung (a peer that died between its send and its ring, a
 * region that could not be mapped) costs what a nap cost before.  Only a
 * job on one rail, shm: with two, the nap is spent in poll() on the TCP
 * queue's descriptor, which a futex cannot join.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "ofi.h"

/**
 * struct th_ofi_bell - a rank's doorbell, alone in its region
 * @seq: the futex word: moves on each ring of a sleeper
 * @sleeping: the rank's progress thread is, or is about to be, asleep
 */
struct th_ofi_bell {
	u32 seq;
	u32 sleeping;
};

static bool th_ofi_bell_wanted(const struct th_ofi *o)
{
	return o->nrails == 1 && o->rail[0].cq_poll;
}

static struct th_ofi_bell *th_ofi_bell_map(int fd)
{
	void *p = mmap(NULL, sizeof(struct th_ofi_bell), PROT_READ | PROT_WRITE,
		       MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

/*
 * This rank's bell, and its name for the boot round in @name (empty when
 * the job needs none or it could not be made: the naps stay as they were).
 */
void th_ofi_bell_open(struct th_ofi *o, char name[TH_OFI_BELL_NAME])
{
	u64 rnd;
	int fd;

	name[0] = '\0';
	if (!th_ofi_bell_wanted(o) ||
	    getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
		return;
	snprintf(o->bell_name, sizeof(o->bell_name), "/thnic-bell-%016llx",
		 (unsigned long long)rnd);
	fd = shm_open(o->bell_name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		o->bell_name[0] = '\0';
		return;
	}
	if (!ftruncate(fd, sizeof(struct th_ofi_bell)))
		o->bell = th_ofi_bell_map(fd);
	close(fd);
	if (!o->bell) {
		shm_unlink(o->bell_name);
		o->bell_name[0] = '\0';
		return;
	}
	memcpy(name, o->bell_name, TH_OFI_BELL_NAME);
}

/*
 * Map the bells the peers named in the boot round (@names[rank], empty for
 * none).  Only a region of this user and of a bell's size is taken; any
 * other peer just is not rung.
 */
void th_ofi_bell_join(struct th_ofi *o, const char *const *names)
{
	struct stat st;
	u32 i;
	int fd;

	if (!o->bell)
		return;
	o->bells = calloc(o->size, sizeof(*o->bells));
	for (i = 0; o->bells && i < o->size; i++) {
		if (i == o->rank || !names[i] || names[i][0] != '/' ||
		    !memchr(names[i], '\0', TH_OFI_BELL_NAME))
			continue;
		fd = shm_open(names[i], O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0);
		if (fd < 0)
			continue;
		if (!fstat(fd, &st) && S_ISREG(st.st_mode) &&
		    st.st_uid == geteuid() &&
		    st.st_size == sizeof(struct th_ofi_bell))
			o->bells[i] = th_ofi_bell_map(fd);
		close(fd);
	}
}

/* Every peer has mapped the bell (the boot's last round): drop its name. */
void th_ofi_bell_unlink(struct th_ofi *o)
{
	if (o->bell_name[0])
		shm_unlink(o->bell_name);
	o->bell_name[0] = '\0';
}

/* True when @b's thread was asleep, or about to be, and is woken. */
static bool th_ofi_bell_wake(struct th_ofi_bell *b)
{
	/* the write before this (a message, a flag) is ordered before the look */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&b->sleeping, __ATOMIC_RELAXED))
		return false;
	__atomic_add_fetch(&b->seq, 1, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, &b->seq, FUTEX_WAKE, 1, NULL, NULL, 0);
	return true;
}

/* A message is in @peer's shm queue: wake its progress thread if it sleeps. */
void th_ofi_bell_ring(struct th_ofi *o, u32 peer)
{
	if (o->bells && o->bells[peer] && th_ofi_bell_wake(o->bells[peer]))
		__atomic_add_fetch(&o->bell_rings, 1, __ATOMIC_RELAXED);
}

/* Wake this rank's own progress thread (an operation ended, a stop). */
void th_ofi_bell_ring_self(struct th_ofi *o)
{
	if (o->bell)
		th_ofi_bell_wake(o->bell);
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
	u32 seq;

	if (!o->bell_armed)
		return false;
	syscall(SYS_futex, &o->bell->seq, FUTEX_WAIT, o->bell_seq, nap, NULL,
		0);
	seq = __atomic_load_n(&o->bell->seq, __ATOMIC_ACQUIRE);
	/* rung (before the sleep, or during it), not timed out */
	if (seq != o->bell_seq)
		o->bell_woken++;
	o->bell_seq = seq;
	return true;
}

void th_ofi_bell_close(struct th_ofi *o)
{
	u32 i;

	th_ofi_bell_unlink(o);
	for (i = 0; o->bells && i < o->size; i++)
		if (o->bells[i])
			munmap(o->bells[i], sizeof(struct th_ofi_bell));
	free(o->bells);
	o->bells = NULL;
	if (o->bell)
		munmap(o->bell, sizeof(struct th_ofi_bell));
	o->bell = NULL;
	o->bell_armed = false;
}
