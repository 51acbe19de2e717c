// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * team.c - ranks as threads: th_boot_run() and th_boot_run_threads() run a
 * rank's program in N threads of one process, each with a th_boot handle
 * whose allgather and barrier meet the other threads, under the same
 * rules as one process per rank (sticky failures, TH_BOOT_TIMEOUT, a rank
 * that left ends the job's rendezvous).
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "thverbs_priv.h"
#include <thverbs/boot.h>
#include "boot_priv.h"
#include "boot_proto.h"

/*
 * Gathers are numbered; gather g uses buffer g % 2, and its result stays
 * there until gather g + 2 begins.  A thread may enter gather g + 1 (and
 * write buffer (g + 1) % 2) while a slow one still copies out of buffer
 * g % 2.  No thread can be reading buffer g % 2 once gather g + 2 begins:
 * that needs gather g + 1 complete, so every thread arrived at g + 1,
 * which each did only after it returned from g, result copied.  (A thread
 * that returned an error copied nothing, but the error is sticky and no
 * later gather begins.)  So the first writer of a buffer reuses it
 * without waiting for readers.
 *
 * Why a futex and not a condition variable: the threads of a gather that
 * completes all leave it at once.  Woken from a condition variable, each
 * would retake the mutex in turn before it could return, and sixteen
 * ranks on two cores then left a barrier one by one (the slowest rank's
 * Allreduce measured from it paid for that queue).  A waiter here reads
 * the outcome (seen.gen, seen.err) without the lock, so it spins for it
 * first under the wait policy (TH_WAIT_POLICY, as th_ct_wait() does) and
 * then sleeps on seen.word; the thread that completes a gather makes a
 * system call only if somebody sleeps.  The lock itself is glibc's
 * adaptive mutex: threads that arrive together wait out each other's few
 * instructions spinning, not asleep in the kernel (that sleep and its
 * wake-up were a third of a two-thread barrier).
 */
struct th_boot_team {
	/*
	 * What waiters watch, on a cache line of its own: their looks must
	 * not pull away the line that the arriving threads lock and write.
	 */
	struct {
		uint64_t gen;	/* the gather being filled */
		uint32_t word;	/* futex: moves when a gather completes or the team fails */
		int sleepers;	/* threads that may be asleep on @word */
		int err;	/* sticky for the whole team */
	} __attribute__((aligned(64))) seen;
	pthread_mutex_t lock __attribute__((aligned(64)));
	int size;
	int arrived;		/* in seen.gen */
	size_t len[2];
	unsigned char *buf[2];
	int left;		/* ranks whose program returned */
	int64_t timeout_ms;
};

struct th_team_rank {
	struct th_boot b;
	pthread_t thread;
	th_boot_rank_fn fn;
	void *arg;
	int ret;
};

/*
 * Wake every thread asleep in a gather: its outcome changed.  No system
 * call when nobody sleeps (the threads watch, or have yet to arrive): a
 * sleeper counts itself before it reads @word and looks, so either it
 * sees this change, or this look at @sleepers sees it.
 */
static void th_team_wake_all(struct th_boot_team *t)
{
	__atomic_add_fetch(&t->seen.word, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&t->seen.sleepers, __ATOMIC_SEQ_CST))
		syscall(SYS_futex, &t->seen.word, FUTEX_WAKE_PRIVATE, INT_MAX,
			NULL, NULL, 0);
}

static void th_team_fail_locked(struct th_boot_team *t, int err)
{
	if (!t->seen.err)
		__atomic_store_n(&t->seen.err, err, __ATOMIC_RELEASE);
	th_team_wake_all(t);
}

/* The ms left until the absolute @deadline_ms (-1: none, INT64_MAX). */
static int64_t th_team_left_ms(int64_t deadline_ms)
{
	return deadline_ms < 0 ? INT64_MAX : deadline_ms - th_boot_now_ms();
}

struct th_team_look {
	struct th_boot_team *t;
	uint64_t gen;
};

/* Gather @gen completed, or the team failed. */
static bool th_team_look(void *arg)
{
	struct th_team_look *l = arg;

	return __atomic_load_n(&l->t->seen.gen, __ATOMIC_ACQUIRE) != l->gen ||
	       __atomic_load_n(&l->t->seen.err, __ATOMIC_ACQUIRE);
}

/*
 * Without the lock: until gather @gen completes or the team fails; spin
 * first if the wait policy lets this thread, then sleep on the futex
 * word, both until the call's deadline (read from the clock here: the
 * thread that completes a gather never reads it).  -ETIMEDOUT then,
 * which the caller confirms under the lock.
 */
static int th_team_await(struct th_boot_team *t, uint64_t gen)
{
	struct th_team_look l = { .t = t, .gen = gen };
	int64_t deadline = t->timeout_ms < 0 ? -1 :
			   th_boot_now_ms() + t->timeout_ms;
	int64_t left = th_team_left_ms(deadline);
	struct timespec rel;
	uint32_t word;
	int ret = 0;

	if (left > 0 &&
	    th_wait_spin_for(th_team_look, &l, left == INT64_MAX ? UINT64_MAX :
			     (uint64_t)left * 1000000ULL))
		return 0;
	__atomic_add_fetch(&t->seen.sleepers, 1, __ATOMIC_SEQ_CST);
	for (;;) {
		word = __atomic_load_n(&t->seen.word, __ATOMIC_SEQ_CST);
		if (th_team_look(&l))
			break;
		left = th_team_left_ms(deadline);
		if (left <= 0) {
			ret = -ETIMEDOUT;
			break;
		}
		/* a second at most a sleep: the deadline is re-read after */
		if (left > 1000)
			left = 1000;
		rel.tv_sec = left / 1000;
		rel.tv_nsec = (left % 1000) * 1000000;
		syscall(SYS_futex, &t->seen.word, FUTEX_WAIT_PRIVATE, word, &rel,
			NULL, 0);
	}
	__atomic_sub_fetch(&t->seen.sleepers, 1, __ATOMIC_RELAXED);
	return ret;
}

int th_boot_team_allgather(struct th_boot *b, const void *mine, void *all,
			   size_t len)
{
	struct th_boot_team *t = b->team;
	bool completed = false;
	uint64_t gen;
	int ret = 0, i;

	pthread_mutex_lock(&t->lock);
	gen = t->seen.gen;
	i = gen % 2;
	if (!t->seen.err && t->left)
		th_team_fail_locked(t, -ECONNRESET);	/* a rank is gone */
	/* the first writer: nobody reads this buffer any more (above) */
	if (!t->seen.err && t->arrived == 0) {
		free(t->buf[i]);
		t->buf[i] = len ? malloc(len * t->size) : NULL;
		t->len[i] = len;
		if (len && !t->buf[i])
			th_team_fail_locked(t, -ENOMEM);
	}
	if (!t->seen.err && t->len[i] != len)
		th_team_fail_locked(t, -EPROTO);
	if (t->seen.err)
		goto out;
	if (len)
		memcpy(t->buf[i] + (size_t)b->rank * len, mine, len);
	if (++t->arrived == t->size) {
		t->arrived = 0;
		__atomic_store_n(&t->seen.gen, gen + 1, __ATOMIC_RELEASE);
		completed = true;
	}
	pthread_mutex_unlock(&t->lock);
	if (completed) {
		th_team_wake_all(t);
	} else if (th_team_await(t, gen)) {
		/*
		 * Timed out, unlocked: the last thread may have completed the
		 * gather since, and returned 0.  Under the lock the gather is
		 * either complete (then so is this call) or it fails for all,
		 * the last thread included.
		 */
		pthread_mutex_lock(&t->lock);
		if (t->seen.gen == gen && !t->seen.err)
			th_team_fail_locked(t, -ETIMEDOUT);
		pthread_mutex_unlock(&t->lock);
	}
	/* buffer i holds gather gen's result until gather gen + 2 begins */
	ret = __atomic_load_n(&t->seen.err, __ATOMIC_ACQUIRE);
	if (!ret && len)
		memcpy(all, t->buf[i], len * t->size);
	return ret;	/* no lock to leave: they would queue for it again */
out:
	ret = t->seen.err;
	pthread_mutex_unlock(&t->lock);
	return ret;
}

/*
 * TH_BIND, where rank threads run (thrun --bind passes it to a --threads
 * job): "cpu" puts rank r on the r-th CPU this process may use, round
 * robin past the last; "auto" does so when there are two ranks or more and
 * each has a CPU of its own, and binds none otherwise; "none", or no
 * TH_BIND, leaves them all to the kernel.  The rule is thrun's for rank
 * processes (th_boot_bind_auto()): unbound, two spinning ranks may share
 * one CPU beside an idle one.  Fills @cpu[r] with rank r's CPU, or -1; -EINVAL for a value
 * it does not know.
 */
static int th_team_bind_plan(unsigned int n, int *cpu)
{
	const char *how = getenv("TH_BIND");
	int mine[CPU_SETSIZE], ncpu = 0, c;
	cpu_set_t set;
	unsigned int i;
	bool bind;

	for (i = 0; i < n; i++)
		cpu[i] = -1;
	if (!how || !strcmp(how, "none"))
		return 0;
	if (strcmp(how, "cpu") && strcmp(how, "auto"))
		return -EINVAL;
	if (sched_getaffinity(0, sizeof(set), &set))
		return -errno;
	for (c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			mine[ncpu++] = c;
	bind = !strcmp(how, "cpu") || th_boot_bind_auto(n, ncpu);
	for (i = 0; bind && ncpu && i < n; i++)
		cpu[i] = mine[i % ncpu];
	return 0;
}

/* A thread attribute that starts a rank on @cpu (-1: anywhere). */
static int th_team_attr(pthread_attr_t *attr, int cpu)
{
	cpu_set_t one;
	int ret;

	ret = -pthread_attr_init(attr);
	if (ret || cpu < 0)
		return ret;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	ret = -pthread_attr_setaffinity_np(attr, sizeof(one), &one);
	if (ret)
		pthread_attr_destroy(attr);
	return ret;
}

static void *th_team_thread(void *arg)
{
	struct th_team_rank *r = arg;
	struct th_boot_team *t = r->b.team;

	r->ret = r->fn(&r->b, r->arg);
	pthread_mutex_lock(&t->lock);
	/* a rendezvous still waiting for this rank will never complete */
	t->left++;
	if (t->arrived)
		th_team_fail_locked(t, -ECONNRESET);
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

int th_boot_run_threads(unsigned int n, th_boot_rank_fn fn,
				  void *arg)
{
	struct th_boot_team t = { .size = n };
	pthread_mutexattr_t ma;
	struct th_team_rank *r;
	unsigned int i, started = 0;
	pthread_attr_t attr;
	int ret, *cpu;

	if (!n || n > TH_BOOT_MAX_RANKS || !fn)
		return -EINVAL;
	ret = th_boot_env_timeout(&t.timeout_ms);
	if (ret)
		return ret;
	r = calloc(n, sizeof(*r));
	cpu = calloc(n, sizeof(*cpu));
	ret = r && cpu ? th_team_bind_plan(n, cpu) : -ENOMEM;
	if (ret) {
		free(cpu);
		free(r);
		return ret;
	}
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_ADAPTIVE_NP);
	pthread_mutex_init(&t.lock, &ma);
	pthread_mutexattr_destroy(&ma);
	for (i = 0; i < n; i++) {
		r[i].b = (struct th_boot){
			.fd = -1, .domain_fd = -1, .rank = i, .size = n,
			.timeout_ms = t.timeout_ms, .team = &t,
		};
		r[i].fn = fn;
		r[i].arg = arg;
	}
	for (i = 0; i < n; i++) {
		ret = th_team_attr(&attr, cpu[i]);
		if (ret)
			break;
		ret = -pthread_create(&r[i].thread, &attr, th_team_thread, &r[i]);
		pthread_attr_destroy(&attr);
		if (ret)
			break;
		started++;
	}
	if (ret) {
		/* the ranks that started cannot meet the missing ones */
		pthread_mutex_lock(&t.lock);
		th_team_fail_locked(&t, ret);
		pthread_mutex_unlock(&t.lock);
	}
	for (i = 0; i < started; i++) {
		pthread_join(r[i].thread, NULL);
		if (!ret)
			ret = r[i].ret;
	}
	free(t.buf[0]);
	free(t.buf[1]);
	pthread_mutex_destroy(&t.lock);
	free(cpu);
	free(r);
	return ret;
}

int th_boot_run(th_boot_rank_fn fn, void *arg)
{
	struct th_boot *b;
	int n, ret;

	if (!fn)
		return -EINVAL;
	if (getenv("TH_THREADS")) {
		ret = th_boot_env_int("TH_THREADS", 1, TH_BOOT_MAX_RANKS, &n);
		return ret ? -EINVAL : th_boot_run_threads(n, fn, arg);
	}
	b = th_boot_init();
	if (!b)
		return -errno;
	ret = fn(b, arg);
	th_boot_fini(b);
	return ret;
}
