// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fabric.c - the in-process fabric: its vport table, domains, the waits
 * and wake-ups the engine asks of a provider, and the NIC's progress
 * thread, which serves the vports with deferred work in turn.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "inproc.h"
#include "th_abi_check.h"

/* The ABI this library was built against: sizes and offsets pinned. */
#define TH_ABI_CHECK(cond) _Static_assert(cond, #cond)
static inline void th_ipf_abi_check(void)
{
	TH_NIC_ABI_CHECKS();
}
#undef TH_ABI_CHECK

void th_ipf_waitq_init(struct th_ipf_waitq *wq)
{
	wq->seq = 0;
	wq->waiters = 0;
	pthread_mutex_init(&wq->lock, NULL);
	pthread_cond_init(&wq->cond, NULL);
}

void th_ipf_waitq_destroy(struct th_ipf_waitq *wq)
{
	pthread_cond_destroy(&wq->cond);
	pthread_mutex_destroy(&wq->lock);
}

/*
 * Wake @wq's sleepers.  The caller holds the lock under which it changed
 * what they test, and their done() reads it under that same lock: that
 * lock is the handshake.  A sleeper counts itself (@waiters) before its
 * done() takes the lock; so either its done() runs after this critical
 * section and sees the change, or it ran before, and then its count
 * happened before this look at @waiters.  No fence on this side: with
 * nobody asleep (the common case, a thread that drives the NIC itself) a
 * wake-up is one plain load, no locked instruction per counter change.
 * Not inlined: th_ipf_wake()'s common call then needs no stack frame.
 */
__attribute__((noinline)) void th_ipf_waitq_wake_locked(struct th_ipf_waitq *wq)
{
	if (!__atomic_load_n(&wq->waiters, __ATOMIC_RELAXED))
		return;
	__atomic_add_fetch(&wq->seq, 1, __ATOMIC_SEQ_CST);
	pthread_mutex_lock(&wq->lock);
	pthread_cond_broadcast(&wq->cond);
	pthread_mutex_unlock(&wq->lock);
}

/*
 * Sleep until @done(@arg) holds or the absolute CLOCK_REALTIME @deadline
 * passes (NULL: no deadline); returns false on timeout.  @done must read
 * what it tests under the lock its wakers hold (th_ipf_waitq_wake_locked());
 * no other lock is held while it runs.
 */
bool th_ipf_waitq_wait(struct th_ipf_waitq *wq, bool (*done)(void *arg),
		       void *arg, const struct timespec *deadline)
{
	bool reached;
	u64 seq;
	int ret = 0;

	__atomic_add_fetch(&wq->waiters, 1, __ATOMIC_SEQ_CST);
	for (;;) {
		seq = __atomic_load_n(&wq->seq, __ATOMIC_SEQ_CST);
		reached = done(arg);
		if (reached || ret == ETIMEDOUT)
			break;
		pthread_mutex_lock(&wq->lock);
		while (!ret && __atomic_load_n(&wq->seq, __ATOMIC_SEQ_CST) == seq) {
			if (deadline)
				ret = pthread_cond_timedwait(&wq->cond, &wq->lock,
							     deadline);
			else
				pthread_cond_wait(&wq->cond, &wq->lock);
		}
		pthread_mutex_unlock(&wq->lock);
	}
	__atomic_sub_fetch(&wq->waiters, 1, __ATOMIC_SEQ_CST);
	return reached;
}

/*
 * Wake-ups owed by engine work this thread did while it held a vport
 * lock, done once it holds none (th_ipf_wake_end()): a thread that wakes
 * sixteen ranks at the end of a broadcast finishes its work before the
 * first of them can take its CPU or contend for the locks it still holds.
 * Outside th_ipf_wake_begin() .. _end() a wake-up is done at once.
 *
 * Each entry is a futex word: a sleeper's own (th_ipf_wake_word(): @bits
 * 0, one sleeper), or a fabric's bell (th_ipf_wake_bell(): @bits the
 * vports whose sleepers to wake).  A bell is one entry per batch, its
 * bits or'ed together, and one system call wakes them all: the thread
 * that ends a broadcast wakes its fifteen ranks before the first it woke
 * can preempt it (the scheduler favours a task just woken), not one per
 * call with the rest waiting behind the first.  A word's owner may have
 * left (a timeout) before its deferred wake-up: a spurious FUTEX_WAKE of
 * a stack address, which every futex sleeper tolerates.
 */
#define TH_IPF_WAKE_BATCH	64

static __thread struct {
	u32 depth;
	u32 n;
	struct {
		u32 *word;
		u32 bits;
	} wake[TH_IPF_WAKE_BATCH];
} th_ipf_wakes;

static void th_ipf_futex_wake(u32 *word, u32 bits)
{
	if (!bits) {
		syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		return;
	}
	/* the bell moves first: a sleeper that read it before sleeps not */
	__atomic_add_fetch(word, 1, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, word, FUTEX_WAKE_BITSET_PRIVATE, INT_MAX, NULL, NULL,
		bits);
}

static void th_ipf_wake_later(u32 *word, u32 bits)
{
	u32 i;

	if (!th_ipf_wakes.depth) {
		th_ipf_futex_wake(word, bits);
		return;
	}
	for (i = 0; bits && i < th_ipf_wakes.n; i++) {
		if (th_ipf_wakes.wake[i].word == word) {
			th_ipf_wakes.wake[i].bits |= bits;
			return;
		}
	}
	if (th_ipf_wakes.n == TH_IPF_WAKE_BATCH) {
		th_ipf_futex_wake(word, bits);
		return;
	}
	th_ipf_wakes.wake[th_ipf_wakes.n].word = word;
	th_ipf_wakes.wake[th_ipf_wakes.n].bits = bits;
	th_ipf_wakes.n++;
}

void th_ipf_wake_word(u32 *word)
{
	th_ipf_wake_later(word, 0);
}

/* Wake the sleepers on @f's bell with any of @bits (th_ipf_bell_wait()). */
void th_ipf_wake_bell(struct th_ipf *f, u32 bits)
{
	th_ipf_wake_later(&f->bell, bits);
}

void th_ipf_wake_begin(void)
{
	th_ipf_wakes.depth++;
}

void th_ipf_wake_end(void)
{
	u32 i;

	if (--th_ipf_wakes.depth)
		return;
	for (i = 0; i < th_ipf_wakes.n; i++)
		th_ipf_futex_wake(th_ipf_wakes.wake[i].word,
				  th_ipf_wakes.wake[i].bits);
	th_ipf_wakes.n = 0;
}

/*
 * Sleep while *@word is @val, until the absolute CLOCK_REALTIME @deadline
 * (NULL: none): 0 when woken or the word moved, -ETIMEDOUT, or -EINTR.
 */
int th_ipf_word_wait(u32 *word, u32 val, const struct timespec *deadline)
{
	long ret;

	ret = syscall(SYS_futex, word,
		      FUTEX_WAIT_BITSET_PRIVATE | FUTEX_CLOCK_REALTIME, val,
		      deadline, NULL, FUTEX_BITSET_MATCH_ANY);
	if (ret && (errno == ETIMEDOUT || errno == EINTR))
		return -errno;
	return 0;
}

/*
 * Sleep on @f's bell while it reads @seq, until a wake-up for any of @bits
 * or the absolute CLOCK_REALTIME @deadline (NULL: none): 0 when woken or
 * the bell moved, -ETIMEDOUT, or -EINTR.  The caller read @seq before it
 * looked at what it waits for (a sequentially consistent load), and its
 * waker changes that before it rings (th_ipf_wake_bell()): so either the
 * look saw the change, or the ring comes after the read and ends this
 * sleep (or prevents it: the bell no longer reads @seq).  Any ring of the
 * bell moves it, so a sleep may end early: the caller looks again.
 */
int th_ipf_bell_wait(struct th_ipf *f, u32 seq, u32 bits,
		     const struct timespec *deadline)
{
	long ret;

	ret = syscall(SYS_futex, &f->bell,
		      FUTEX_WAIT_BITSET_PRIVATE | FUTEX_CLOCK_REALTIME, seq,
		      deadline, NULL, bits);
	if (ret && (errno == ETIMEDOUT || errno == EINTR))
		return -errno;
	return 0;
}

u32 th_ipf_bell_seq(struct th_ipf *f)
{
	return __atomic_load_n(&f->bell, __ATOMIC_SEQ_CST);
}

bool th_ipf_wait(struct th_ipf *f, bool (*done)(void *arg), void *arg,
		 const struct timespec *deadline)
{
	return th_ipf_waitq_wait(&f->changed, done, arg, deadline);
}

struct th_ipf_vport *th_ipf_from_ev(struct th_eng_vport *ev)
{
	return th_container_of(ev, struct th_ipf_vport, ev);
}

/* Drop a reference to slot @slot's vport (th_ipf_vport_put()). */
static void th_ipf_slot_put(struct th_ipf *f, size_t slot)
{
	if (__atomic_sub_fetch(&f->refs[slot], 1, __ATOMIC_RELEASE))
		return;
	pthread_mutex_lock(&f->lock);
	th_ipf_waitq_wake_locked(&f->changed);
	pthread_mutex_unlock(&f->lock);
}

/*
 * Find (@node, @vport) and count a reference to it, without a lock: every
 * transfer to a peer does this, and one lock for the whole fabric
 * serialised the ranks' threads (two rank threads, one Allreduce: 1.48
 * against 1.35 us a round with it gone).  The reference is taken on the
 * slot's count and never from 0, then the slot is read again: if it holds
 * the vport first read, that vport's teardown (which empties the slot
 * before it drops the table's reference, then waits for the count to
 * reach 0) had not ended when the count was taken, so the vport lives
 * until the reference is dropped.  If it holds anything else, the vport
 * went away meanwhile, the reference is given back, and the lookup found
 * nothing, as a lookup at that moment would have.  A slot is not reused
 * before its vport's teardown ends (TH_IPF_SLOT_LEAVING), so the count
 * taken is that vport's or, after it, a later vport's of that slot.
 */
static struct th_eng_vport *th_ipf_vport_get(void *fabric, u32 node, u32 vport)
{
	struct th_ipf *f = fabric;
	struct th_ipf_vport *vp;
	size_t slot;
	u32 refs;

	if (node >= f->eng.lim.nodes || vport >= f->eng.lim.max_vports)
		return NULL;
	slot = (size_t)node * f->eng.lim.max_vports + vport;
	vp = __atomic_load_n(&f->vports[slot], __ATOMIC_ACQUIRE);
	if (!vp || vp == TH_IPF_SLOT_LEAVING)
		return NULL;
	refs = __atomic_load_n(&f->refs[slot], __ATOMIC_RELAXED);
	do {
		if (!refs)
			return NULL;	/* torn down, its slot not yet reused */
	} while (!__atomic_compare_exchange_n(&f->refs[slot], &refs, refs + 1,
					      true, __ATOMIC_ACQUIRE,
					      __ATOMIC_RELAXED));
	if (__atomic_load_n(&f->vports[slot], __ATOMIC_ACQUIRE) != vp) {
		th_ipf_slot_put(f, slot);
		return NULL;
	}
	return &vp->ev;
}

/*
 * Drop a reference without the fabric's lock.  Only the last reference
 * wakes anyone: the table's is dropped first at teardown, so the count
 * reaches 0 only then, and th_ipf_vport_quiet() waits for exactly that.
 * The wake-up takes the lock its done() reads the count under, after the
 * count fell: the handshake th_ipf_waitq_wake_locked() describes.
 */
static void th_ipf_vport_put(void *fabric, struct th_eng_vport *ev)
{
	struct th_ipf *f = fabric;

	th_ipf_slot_put(f, (size_t)ev->node * f->eng.lim.max_vports +
			   ev->index);
}

/*
 * Under @ev's lock (engine rule): take no lock a waiter holds around it.
 * The vport's own waiters, then whoever waits for any change.  The engine
 * calls this for every change (an Allreduce of 16 ranks in one process:
 * 175 a round), and nearly always nobody sleeps: two loads here, and the
 * wake-ups out of line, so the common call needs no stack frame.
 */
static void th_ipf_wake(struct th_eng_vport *ev)
{
	struct th_ipf_vport *vp = th_ipf_from_ev(ev);

	if (__atomic_load_n(&vp->nct_waiters, __ATOMIC_RELAXED))
		th_ipf_ct_wake_locked(vp);
	/* the engine's wait callbacks read @ev under its lock */
	if (__atomic_load_n(&vp->fabric->changed.waiters, __ATOMIC_RELAXED))
		th_ipf_waitq_wake_locked(&vp->fabric->changed);
}

struct th_ipf_ev_wait {
	struct th_eng_vport *ev;
	bool (*done)(struct th_eng_vport *ev, void *arg);
	void *arg;
};

static bool th_ipf_ev_done(void *arg)
{
	struct th_ipf_ev_wait *w = arg;

	return w->done(w->ev, w->arg);
}

/* A process has no fatal signal to wait for: never interrupted. */
static int th_ipf_ev_wait(struct th_eng_vport *ev,
			  bool (*done)(struct th_eng_vport *ev, void *arg),
			  void *arg)
{
	struct th_ipf_ev_wait w = { ev, done, arg };

	th_ipf_wait(th_ipf_from_ev(ev)->fabric, th_ipf_ev_done, &w, NULL);
	return 0;
}

static bool th_ipf_vport_quiet(void *arg)
{
	struct th_ipf_vport *vp = arg;
	u32 refs;

	pthread_mutex_lock(&vp->fabric->lock);
	refs = __atomic_load_n(th_ipf_vport_refs(vp), __ATOMIC_ACQUIRE);
	pthread_mutex_unlock(&vp->fabric->lock);
	return !refs && th_eng_vport_idle(&vp->ev);
}

/* Drop the table's reference, wait for peers and running chains. */
static void th_ipf_quiesce(struct th_eng_vport *ev)
{
	struct th_ipf_vport *vp = th_ipf_from_ev(ev);

	th_ipf_unpark_vport(vp);
	th_ipf_vport_put(vp->fabric, ev);
	th_ipf_wait(vp->fabric, th_ipf_vport_quiet, vp, NULL);
}

static u64 th_ipf_random_u64(void *fabric)
{
	u64 v;

	(void)fabric;
	if (getrandom(&v, sizeof(v), 0) != sizeof(v))
		abort();	/* no key is better than a guessable one */
	return v;
}

/* ---- parked chains (fault injection) ------------------------------------ */

static void *th_ipf_progress(void *arg);
static void th_ipf_defer(void *fabric, struct th_eng_chain *chain);

static u64 th_ipf_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Under progress_lock: @chain joins its vport's turn on the run queue. */
static void th_ipf_runq_add_locked(struct th_ipf *f, struct th_eng_chain *chain)
{
	struct th_ipf_vport *vp = th_ipf_from_ev(th_eng_chain_vport(chain));

	if (th_list_empty(&vp->deferred))
		th_list_add_tail(&f->runq, &vp->runq_link);
	th_list_add_tail(&vp->deferred, th_eng_chain_node(chain));
}

/*
 * Under progress_lock: parked chains whose time came go to the run queue;
 * returns when the next one is due (0: none parked).
 */
static u64 th_ipf_unpark_due_locked(struct th_ipf *f)
{
	struct th_list *pos, *next;
	struct th_eng_chain *chain;
	u64 now = th_ipf_mono_ns(), soonest = 0, due;

	for (pos = f->parked.next; pos != &f->parked; pos = next) {
		next = pos->next;
		chain = th_eng_chain_from_node(pos);
		due = th_eng_chain_due(chain);
		if (due <= now) {
			th_list_del(pos);
			th_ipf_runq_add_locked(f, chain);
		} else if (!soonest || due < soonest) {
			soonest = due;
		}
	}
	return soonest;
}

/* Start the progress thread if it is not running; false if it cannot. */
static bool th_ipf_progress_start_locked(struct th_ipf *f)
{
	if (!f->progress_started &&
	    !pthread_create(&f->progress, NULL, th_ipf_progress, f))
		f->progress_started = true;
	return f->progress_started;
}

/*
 * ops->park: the progress thread runs @chain again @ns from now, or at
 * once if its vport is being destroyed.  Without a progress thread (none
 * could be created), the chain runs now: a delay is then served short,
 * never lost.
 */
static void th_ipf_park(void *fabric, struct th_eng_chain *chain, u64 ns)
{
	struct th_ipf *f = fabric;
	struct th_ipf_vport *vp = th_ipf_from_ev(th_eng_chain_vport(chain));

	pthread_mutex_lock(&f->progress_lock);
	if (!vp->unparking && th_ipf_progress_start_locked(f)) {
		th_eng_chain_set_due(chain, th_ipf_mono_ns() + ns);
		th_list_add_tail(&f->parked, th_eng_chain_node(chain));
		pthread_cond_signal(&f->progress_cond);
		pthread_mutex_unlock(&f->progress_lock);
		return;
	}
	pthread_mutex_unlock(&f->progress_lock);
	th_ipf_defer(f, chain);		/* now, as any deferred chain */
}

/* @vp is being destroyed: its parked chains run now (and see it dead). */
void th_ipf_unpark_vport(struct th_ipf_vport *vp)
{
	struct th_ipf *f = vp->fabric;
	struct th_list *pos, *next;
	struct th_eng_chain *chain;

	pthread_mutex_lock(&f->progress_lock);
	vp->unparking = true;
	for (pos = f->parked.next; pos != &f->parked; pos = next) {
		next = pos->next;
		chain = th_eng_chain_from_node(pos);
		if (th_eng_chain_vport(chain) != &vp->ev)
			continue;
		th_list_del(pos);
		th_ipf_runq_add_locked(f, chain);
	}
	pthread_cond_signal(&f->progress_cond);
	pthread_mutex_unlock(&f->progress_lock);
}

/* Sleep on progress_cond until woken or until @due (monotonic ns). */
static void th_ipf_progress_sleep_locked(struct th_ipf *f, u64 due)
{
	struct timespec ts;
	u64 now, left;

	if (!due) {
		pthread_cond_wait(&f->progress_cond, &f->progress_lock);
		return;
	}
	now = th_ipf_mono_ns();
	left = due > now ? due - now : 0;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += left / 1000000000ULL;
	ts.tv_nsec += left % 1000000000ULL;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(&f->progress_cond, &f->progress_lock, &ts);
}

/*
 * The progress thread takes the vport at the head of the run queue, runs
 * its deferred chains for one context's budget, and puts it back at the
 * tail if work is left: no vport's backlog delays another's for more than
 * one budget per turn.
 */
static void *th_ipf_progress(void *arg)
{
	struct th_ipf *f = arg;
	struct th_ipf_vport *vp;
	struct th_eng_ctx ctx;

	u64 due;

	pthread_mutex_lock(&f->progress_lock);
	for (;;) {
		due = th_ipf_unpark_due_locked(f);
		if (th_list_empty(&f->runq) && !f->stopping) {
			th_ipf_progress_sleep_locked(f, due);
			continue;
		}
		if (th_list_empty(&f->runq))
			break;		/* stopping, and nothing left to run */
		vp = th_container_of(f->runq.next, struct th_ipf_vport,
				     runq_link);
		th_list_del(&vp->runq_link);
		th_eng_ctx_init(&ctx, &f->eng);
		th_list_splice_tail(&ctx.ready, &vp->deferred);
		pthread_mutex_unlock(&f->progress_lock);
		th_ipf_wake_begin();
		th_eng_ctx_run(&ctx);	/* past the budget, defers to us again */
		th_ipf_wake_end();
		pthread_mutex_lock(&f->progress_lock);
	}
	pthread_mutex_unlock(&f->progress_lock);
	return NULL;
}

static void th_ipf_defer(void *fabric, struct th_eng_chain *chain)
{
	struct th_ipf *f = fabric;
	struct th_ipf_vport *vp = th_ipf_from_ev(th_eng_chain_vport(chain));
	struct th_eng_ctx ctx;

	pthread_mutex_lock(&f->progress_lock);
	th_ipf_runq_add_locked(f, chain);
	if (th_ipf_progress_start_locked(f)) {
		pthread_cond_signal(&f->progress_cond);
		pthread_mutex_unlock(&f->progress_lock);
		return;
	}
	/* no thread to be had: run it here rather than lose it */
	th_list_del(&vp->runq_link);
	th_eng_ctx_init(&ctx, &f->eng);
	th_list_splice_tail(&ctx.ready, &vp->deferred);
	pthread_mutex_unlock(&f->progress_lock);
	th_eng_ctx_run_all(&ctx);
}

/* ---- the network to other processes' nodes (struct th_ipf_net) ------- */

static bool th_ipf_node_remote(void *fabric, u32 node)
{
	const struct th_ipf_net *net = ((struct th_ipf *)fabric)->net;

	return net->node_remote(net->arg, node);
}

static void th_ipf_remote_post(void *fabric, struct th_eng_chain *chain,
			       const struct th_eng_remote_op *op)
{
	const struct th_ipf_net *net = ((struct th_ipf *)fabric)->net;

	net->remote_post(net->arg, chain, op);
}

static void th_ipf_remote_fail_ct(void *fabric, const void *domain, u32 node,
				  u32 vport, u16 ct, u64 rkey, u64 off, u64 len)
{
	const struct th_ipf_net *net = ((struct th_ipf *)fabric)->net;

	net->remote_fail_ct(net->arg, domain, node, vport, ct, rkey, off, len);
}

static void th_ipf_mr_free(void *fabric, void *priv)
{
	const struct th_ipf_net *net = ((struct th_ipf *)fabric)->net;

	if (priv)
		net->mr_free(net->arg, priv);
}

static void th_ipf_chain_posted(void *fabric, struct th_eng_vport *ev,
				const struct th_nic_desc *descs, u32 n)
{
	const struct th_ipf_net *net = ((struct th_ipf *)fabric)->net;

	net->chain_posted(net->arg, ev, descs, n);
}

static bool th_ipf_offload_arm(void *fabric, struct th_eng_chain *chain,
			       struct th_eng_vport *ev, u32 ct, u64 threshold,
			       u64 success, const struct th_eng_remote_op *op)
{
	const struct th_ipf_net *net = ((struct th_ipf *)fabric)->net;

	return net->offload_arm &&
	       net->offload_arm(net->arg, chain, ev, ct, threshold, success, op);
}

static void th_ipf_offload_counter(void *fabric, struct th_eng_vport *ev,
				   u32 ct, u64 success, u64 failure)
{
	const struct th_ipf_net *net = ((struct th_ipf *)fabric)->net;

	net->offload_counter(net->arg, ev, ct, success, failure);
}

static void th_ipf_offload_disarm(void *fabric, struct th_eng_chain *chain,
				  int status, struct th_eng_mr_ref *hold)
{
	const struct th_ipf_net *net = ((struct th_ipf *)fabric)->net;

	net->offload_disarm(net->arg, chain, status, hold);
}

static const struct th_eng_ops th_ipf_net_ops = {
	.vport_get	= th_ipf_vport_get,
	.vport_put	= th_ipf_vport_put,
	.wake		= th_ipf_wake,
	.wait		= th_ipf_ev_wait,
	.quiesce	= th_ipf_quiesce,
	.defer		= th_ipf_defer,
	.mr_free	= th_ipf_mr_free,
	.random_u64	= th_ipf_random_u64,
	.park		= th_ipf_park,
	.node_remote	= th_ipf_node_remote,
	.remote_post	= th_ipf_remote_post,
	.remote_fail_ct	= th_ipf_remote_fail_ct,
	.chain_posted	= th_ipf_chain_posted,
	.offload_arm	= th_ipf_offload_arm,
	.offload_counter = th_ipf_offload_counter,
	.offload_disarm	= th_ipf_offload_disarm,
};

static const struct th_eng_ops th_ipf_ops = {
	.vport_get	= th_ipf_vport_get,
	.vport_put	= th_ipf_vport_put,
	.wake		= th_ipf_wake,
	.wait		= th_ipf_ev_wait,
	.quiesce	= th_ipf_quiesce,
	.defer		= th_ipf_defer,
	.random_u64	= th_ipf_random_u64,
	.park		= th_ipf_park,
};

/* The fabric's locks and tables, once nothing uses them. */
static void th_ipf_free(struct th_ipf *f)
{
	pthread_cond_destroy(&f->progress_cond);
	pthread_mutex_destroy(&f->progress_lock);
	th_ipf_waitq_destroy(&f->changed);
	pthread_mutex_destroy(&f->lock);
	th_eng_fini(&f->eng);
	free(f->refs);
	free(f->vports);
	free(f);
}

/*
 * A fabric of @lim->nodes nodes; with @net, those @net->node_remote() names
 * are other processes' and are reached through it.
 */
struct th_ipf *th_ipf_create(const struct th_eng_limits *lim,
			     const struct th_ipf_net *net, int *err)
{
	struct th_ipf *f = calloc(1, sizeof(*f));
	int ret;

	if (!f) {
		*err = -ENOMEM;
		return NULL;
	}
	f->net = net;
	ret = th_eng_init(&f->eng, net ? &th_ipf_net_ops : &th_ipf_ops, f, lim);
	if (ret)
		goto err_free;
	ret = -ENOMEM;
	f->vports = calloc((size_t)lim->nodes * lim->max_vports,
			   sizeof(*f->vports));
	f->refs = calloc((size_t)lim->nodes * lim->max_vports,
			 sizeof(*f->refs));
	if (!f->vports || !f->refs)
		goto err_free;
	pthread_mutex_init(&f->lock, NULL);
	th_ipf_waitq_init(&f->changed);
	pthread_mutex_init(&f->progress_lock, NULL);
	pthread_cond_init(&f->progress_cond, NULL);
	th_list_init(&f->runq);
	th_list_init(&f->parked);
	th_eng_user_init(&f->user);
	f->default_domain = th_ipf_domain_create(f, &ret);
	if (!f->default_domain)
		goto err_free_locks;
	return f;

err_free_locks:
	th_ipf_free(f);
	*err = ret;
	return NULL;
err_free:
	th_eng_fini(&f->eng);
	free(f->refs);
	free(f->vports);
	free(f);
	*err = ret;
	return NULL;
}

/*
 * Destroys whatever vports are left, then the fabric.  Domains the caller
 * still holds must be put first.
 */
void th_ipf_destroy(struct th_ipf *f)
{
	size_t i, n = (size_t)f->eng.lim.nodes * f->eng.lim.max_vports;

	/* no other thread uses the fabric now: no slot is LEAVING */
	for (i = 0; i < n; i++)
		if (f->vports[i])
			th_ipf_vport_destroy(f->vports[i]);
	pthread_mutex_lock(&f->progress_lock);
	f->stopping = true;
	pthread_cond_signal(&f->progress_cond);
	pthread_mutex_unlock(&f->progress_lock);
	if (f->progress_started)
		pthread_join(f->progress, NULL);
	th_ipf_domain_put(f->default_domain);
	th_ipf_free(f);
}

struct th_eng *th_ipf_engine(struct th_ipf *f)
{
	return &f->eng;
}

/* A new domain, held once by the caller. */
struct th_ipf_domain *th_ipf_domain_create(struct th_ipf *f, int *err)
{
	struct th_ipf_domain *d = calloc(1, sizeof(*d));

	if (!d) {
		*err = -ENOMEM;
		return NULL;
	}
	d->fabric = f;
	d->refs = 1;
	if (getrandom(d->token, sizeof(d->token), 0) != sizeof(d->token)) {
		free(d);
		*err = -EAGAIN;
		return NULL;
	}
	return d;
}

/*
 * The domain of vports created without one.  An in-process fabric has one
 * user, this process, so all its default vports share it.
 */
struct th_ipf_domain *th_ipf_default_domain(struct th_ipf *f)
{
	return f->default_domain;
}

void th_ipf_domain_get(struct th_ipf_domain *d)
{
	pthread_mutex_lock(&d->fabric->lock);
	d->refs++;
	pthread_mutex_unlock(&d->fabric->lock);
}

void th_ipf_domain_put(struct th_ipf_domain *d)
{
	struct th_ipf *f = d->fabric;
	bool last;

	pthread_mutex_lock(&f->lock);
	last = !--d->refs;
	pthread_mutex_unlock(&f->lock);
	if (last)
		free(d);
}
