// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * wait.c - how a thread that waits for the NIC spends its time: the wait
 * policy (TH_WAIT_POLICY, TH_SPIN_US), the bounded spin on the mapped
 * counter page that drives the provider while it looks, and the hand-over
 * to the provider's sleeping wait.  Ranks as threads meet in th_boot's
 * rendezvous under the same policy (th_wait_spin_for()).
 *
 * Why spin at all: a thread asleep in the provider is woken by a futex or
 * an interrupt when its counter moves, and that wake-up (25-50 us on a
 * virtual machine, a few us on bare metal) is then the whole latency of a
 * small collective.  A thread that watches the counter page sees the
 * change in well under a microsecond.  Why not always: a spinner holds a
 * CPU that the thread which must raise the counter may need.  So, as
 * OpenMP runtimes do with OMP_WAIT_POLICY, the user chooses:
 *
 *   spin     watch until the counter is reached or the wait's timeout;
 *   passive  sleep in the provider at once (the behaviour before 1.1);
 *   auto     (default) spin for at most TH_SPIN_US (default 50 us, about
 *            one wake-up's cost, so the spin at most doubles a wait that
 *            had to sleep anyway) while no more threads spin than the
 *            process may use CPUs, yielding the CPU after the first
 *            looks; then sleep.  Not at all when the waiting threads
 *            outnumber the CPUs: sleep at once.  Threads count in this
 *            process and, once a provider has said (th_wait_host_share()),
 *            in every process of the job that shares its CPUs.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "thverbs_priv.h"

#define TH_SPIN_US_DEFAULT	50
#define TH_SPIN_US_MAX		(10 * 1000 * 1000)	/* 10 s */
/*
 * AUTO's first looks pause the CPU between them; later ones yield it: a
 * wait that outlasts a few microseconds is likely one whose counter needs
 * a thread this spinner would otherwise keep off its core (ranks as
 * threads on fewer cores), and sched_yield() costs little when no other
 * thread wants the CPU.
 */
#define TH_WAIT_PAUSE_LOOKS	256

struct th_wait_conf {
	enum th_wait_policy policy;
	uint64_t spin_ns;
	unsigned int cpus;	/* CPUs this process may run on */
};

static struct th_wait_conf th_wait_conf;
static pthread_once_t th_wait_once = PTHREAD_ONCE_INIT;
/* threads spinning in th_ct_wait() now, in this process */
static unsigned int th_wait_spinners;

static const char *const th_wait_policy_names[] = {
	[TH_WAIT_AUTO]		= "auto",
	[TH_WAIT_SPIN]		= "spin",
	[TH_WAIT_PASSIVE]	= "passive",
};

int th_wait_policy_parse(const char *s, enum th_wait_policy *out)
{
	unsigned int i;

	for (i = 0; s && i < TH_ARRAY_SIZE(th_wait_policy_names); i++) {
		if (!strcmp(s, th_wait_policy_names[i])) {
			*out = i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *th_wait_policy_name(enum th_wait_policy p)
{
	return (unsigned int)p < TH_ARRAY_SIZE(th_wait_policy_names) ?
	       th_wait_policy_names[p] : NULL;
}

static unsigned int th_wait_count_cpus(void)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	n = CPU_COUNT(&set);
	return n > 0 ? (unsigned int)n : 1;
}

/*
 * The environment, read once.  A value that does not parse keeps the
 * default: a wait policy changes speed, never results, so a typo must not
 * stop a job (th_wait_policy_set() refuses the same value loudly).
 */
static void th_wait_conf_init(void)
{
	const char *p = getenv("TH_WAIT_POLICY");
	const char *us = getenv("TH_SPIN_US");
	enum th_wait_policy policy = TH_WAIT_AUTO;
	unsigned long long v = TH_SPIN_US_DEFAULT;
	char *end;

	if (p && *p)
		th_wait_policy_parse(p, &policy);
	if (us && *us) {
		errno = 0;
		v = strtoull(us, &end, 10);
		if (errno || *end || v > TH_SPIN_US_MAX)
			v = TH_SPIN_US_DEFAULT;
	}
	th_wait_conf.cpus = th_wait_count_cpus();
	__atomic_store_n(&th_wait_conf.spin_ns, v * 1000ULL, __ATOMIC_RELAXED);
	__atomic_store_n(&th_wait_conf.policy, policy, __ATOMIC_RELAXED);
}

int th_wait_policy_set(enum th_wait_policy policy, uint64_t spin_us)
{
	if (!th_wait_policy_name(policy) || spin_us > TH_SPIN_US_MAX)
		return -EINVAL;
	pthread_once(&th_wait_once, th_wait_conf_init);
	__atomic_store_n(&th_wait_conf.spin_ns, spin_us * 1000ULL,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&th_wait_conf.policy, policy, __ATOMIC_RELAXED);
	return 0;
}

enum th_wait_policy th_wait_policy_get(uint64_t *spin_us)
{
	pthread_once(&th_wait_once, th_wait_conf_init);
	if (spin_us)
		*spin_us = __atomic_load_n(&th_wait_conf.spin_ns,
					   __ATOMIC_RELAXED) / 1000ULL;
	return __atomic_load_n(&th_wait_conf.policy, __ATOMIC_RELAXED);
}

static uint64_t th_wait_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * The threads of this process that wait now: those that entered a wait
 * within the last TH_WAIT_ACTIVE_NS.  Auto watches at length only while
 * they are no more than its CPUs.  With more (ranks as threads
 * oversubscribing the cores), a watcher would hold the core that a
 * thread which must raise its counter is waiting for, and a yield does
 * not help enough: CFS gives the core back to the yielder as often as
 * not.  libgomp throttles its spin the same way when a team has more
 * threads than CPUs.
 *
 * Why recently and not ever: a thread that waited once and then went on
 * to something else (the main thread that set up and now joins the rank
 * threads; a rank whose job ended) holds no CPU, and counting it for the
 * rest of its life made two rank threads on two cores sleep at once:
 * 9.6 us an Allreduce instead of 2.6.  A rank that computes for longer
 * than TH_WAIT_ACTIVE_NS between waits drops out and is counted again at
 * its next wait; meanwhile the others may watch for at most TH_SPIN_US
 * a wait, little beside that much compute.
 */
#define TH_WAIT_ACTIVE_NS	(1000000ULL)	/* 1 ms */
#define TH_WAIT_SWEEP_NS	(TH_WAIT_ACTIVE_NS / 4)

/* a line of its own: each thread writes its entry at every wait */
struct th_wait_thread {
	struct th_wait_thread *prev, *next;	/* th_wait_reg.list, under its lock */
	uint64_t last_ns;	/* when it last entered a wait */
	bool counted;		/* in th_wait_threads */
} __attribute__((aligned(64)));

static struct {
	pthread_mutex_t lock;
	struct th_wait_thread list;	/* head; threads that have waited */
	uint64_t next_sweep_ns;
	pthread_key_t key;
	bool key_made;
} th_wait_reg = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.list = { &th_wait_reg.list, &th_wait_reg.list, 0, false },
};
static unsigned int th_wait_threads;
/* the calling thread's entry; TH_WAIT_UNKNOWN: it could not be made */
static __thread struct th_wait_thread *th_wait_me;
#define TH_WAIT_UNKNOWN	((struct th_wait_thread *)&th_wait_reg.list)

/* @t stops counting, if it did; true if this call stopped it. */
static bool th_wait_uncount(struct th_wait_thread *t)
{
	bool was = true;

	if (!__atomic_compare_exchange_n(&t->counted, &was, false, false,
					 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return false;
	__atomic_sub_fetch(&th_wait_threads, 1, __ATOMIC_RELAXED);
	return true;
}

/*
 * A thread that waited exits (run in that thread): out of the list and the
 * count.  A wait from a later destructor of the same thread finds no entry
 * and counts as one more.
 */
static void th_wait_thread_gone(void *arg)
{
	struct th_wait_thread *t = arg;

	th_wait_me = TH_WAIT_UNKNOWN;
	pthread_mutex_lock(&th_wait_reg.lock);
	t->prev->next = t->next;
	t->next->prev = t->prev;
	th_wait_uncount(t);
	pthread_mutex_unlock(&th_wait_reg.lock);
	free(t);
}

static void th_wait_key_init(void)
{
	th_wait_reg.key_made = !pthread_key_create(&th_wait_reg.key,
						    th_wait_thread_gone);
}

/*
 * The library unloaded (dlclose()) while threads that waited live on:
 * their exits must not call th_wait_thread_gone(), which is gone too.
 */
__attribute__((destructor)) static void th_wait_key_fini(void)
{
	if (__atomic_load_n(&th_wait_reg.key_made, __ATOMIC_ACQUIRE))
		pthread_key_delete(th_wait_reg.key);
}

/* The calling thread's entry, made at its first wait (NULL: no memory). */
static struct th_wait_thread *th_wait_thread_self(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct th_wait_thread *t = th_wait_me;

	if (t)
		return t != TH_WAIT_UNKNOWN ? t : NULL;
	th_wait_me = TH_WAIT_UNKNOWN;
	pthread_once(&once, th_wait_key_init);
	t = aligned_alloc(64, sizeof(*t));
	/* without the key the entry could never leave the list */
	if (!t || !__atomic_load_n(&th_wait_reg.key_made, __ATOMIC_ACQUIRE) ||
	    pthread_setspecific(th_wait_reg.key, t)) {
		free(t);
		return NULL;
	}
	memset(t, 0, sizeof(*t));
	pthread_mutex_lock(&th_wait_reg.lock);
	t->next = &th_wait_reg.list;
	t->prev = th_wait_reg.list.prev;
	t->prev->next = t;
	th_wait_reg.list.prev = t;
	pthread_mutex_unlock(&th_wait_reg.lock);
	th_wait_me = t;
	return t;
}

/*
 * Every TH_WAIT_SWEEP_NS at most, by whichever thread waits then: the
 * threads whose last wait began over TH_WAIT_ACTIVE_NS ago stop
 * counting.  A thread that enters a wait as it is swept loses its count
 * until its next wait: auto then errs, once, towards watching.
 */
static void th_wait_sweep(uint64_t now)
{
	struct th_wait_thread *t;
	uint64_t last;

	if (now < __atomic_load_n(&th_wait_reg.next_sweep_ns, __ATOMIC_RELAXED) ||
	    pthread_mutex_trylock(&th_wait_reg.lock))
		return;
	__atomic_store_n(&th_wait_reg.next_sweep_ns, now + TH_WAIT_SWEEP_NS,
			 __ATOMIC_RELAXED);
	for (t = th_wait_reg.list.next; t != &th_wait_reg.list; t = t->next) {
		/* a thread may have entered a wait since @now was read */
		last = __atomic_load_n(&t->last_ns, __ATOMIC_RELAXED);
		if (last < now && now - last > TH_WAIT_ACTIVE_NS)
			th_wait_uncount(t);
	}
	pthread_mutex_unlock(&th_wait_reg.lock);
}

/*
 * The calling thread enters a wait at @now: it counts (again), the idle
 * ones stop counting; the threads that wait now, this one included.  A
 * thread that could not be registered (no memory) counts as one more.
 */
static unsigned int th_wait_threads_now(uint64_t now)
{
	struct th_wait_thread *me = th_wait_thread_self();
	bool was = false;

	if (!me)
		return __atomic_load_n(&th_wait_threads, __ATOMIC_RELAXED) + 1;
	__atomic_store_n(&me->last_ns, now, __ATOMIC_RELAXED);
	if (!__atomic_load_n(&me->counted, __ATOMIC_RELAXED) &&
	    __atomic_compare_exchange_n(&me->counted, &was, true, false,
					__ATOMIC_RELAXED, __ATOMIC_RELAXED))
		__atomic_add_fetch(&th_wait_threads, 1, __ATOMIC_RELAXED);
	th_wait_sweep(now);
	return __atomic_load_n(&th_wait_threads, __ATOMIC_RELAXED);
}

/*
 * The machine beyond this process, as a provider learnt at its join
 * (th_wait_host_share()): the job's ranks on this machine whose CPUs
 * overlap this process's, this one included, and how many CPUs they may
 * run on together.  0 and 0 until then, or for a job of one process:
 * this process alone.  Ranks as processes oversubscribe the cores as
 * ranks as threads do, and a spinner in one process holds the core that
 * another process's thread needs to raise its counter: 4 ranks on 2
 * CPUs took a 98 us Allreduce under auto when each process counted only
 * its own threads, 46 us asleep at once.
 */
static unsigned int th_wait_host_ranks;
static unsigned int th_wait_host_cpus;

/*
 * More threads would watch than there are CPUs to watch on: @threads of
 * this process, as many in each process that shares its CPUs.
 */
static bool th_wait_crowded(unsigned int threads)
{
	unsigned int ranks = __atomic_load_n(&th_wait_host_ranks,
					     __ATOMIC_RELAXED);
	unsigned int cpus = __atomic_load_n(&th_wait_host_cpus,
					    __ATOMIC_RELAXED);

	if (!ranks || !cpus) {
		ranks = 1;
		cpus = th_wait_conf.cpus;
	}
	if (!threads)
		threads = 1;
	return (uint64_t)threads * ranks > cpus;
}

bool th_wait_host_share(unsigned int ranks, unsigned int cpus)
{
	pthread_once(&th_wait_once, th_wait_conf_init);
	__atomic_store_n(&th_wait_host_cpus, ranks ? cpus : 0, __ATOMIC_RELAXED);
	__atomic_store_n(&th_wait_host_ranks, ranks, __ATOMIC_RELAXED);
	return th_wait_crowded(1);
}

bool th_wait_may_watch(void)
{
	enum th_wait_policy policy = th_wait_policy_get(NULL);

	if (policy == TH_WAIT_PASSIVE)
		return false;
	return policy == TH_WAIT_SPIN ||
	       !th_wait_crowded(__atomic_load_n(&th_wait_threads,
						__ATOMIC_RELAXED));
}

/* How a wait spins: for how long, and whether it yields its CPU. */
struct th_wait_plan {
	uint64_t budget_ns;	/* 0: sleep at once */
	uint64_t start_ns;	/* when the spin's budget began */
	bool yield;
};

/*
 * May this thread spin, and how?  SPIN: until the timeout, never
 * yielding.  AUTO: while no more threads spin than there are CPUs, for
 * TH_SPIN_US, yielding after the first looks; not at all when the
 * process's waiting threads outnumber its CPUs (a 2 us spin there still
 * made 16 ranks on 2 cores 1.5x slower than sleeping at once), counted in
 * every process of the job that shares its CPUs (th_wait_crowded()).  A
 * plan with a budget counts in th_wait_spinners.
 */
static struct th_wait_plan th_wait_spin_admit(uint64_t timeout_ns)
{
	struct th_wait_plan plan = { 0, 0, false };
	enum th_wait_policy policy;
	uint64_t spin_ns, n;

	policy = th_wait_policy_get(NULL);
	/* no time to spin: nothing counted, so nothing to give back */
	if (policy == TH_WAIT_PASSIVE || !timeout_ns)
		return plan;
	plan.start_ns = th_wait_now_ns();
	if (policy == TH_WAIT_SPIN) {
		__atomic_add_fetch(&th_wait_spinners, 1, __ATOMIC_RELAXED);
		plan.budget_ns = timeout_ns;
		return plan;
	}
	spin_ns = __atomic_load_n(&th_wait_conf.spin_ns, __ATOMIC_RELAXED);
	if (!spin_ns)
		return plan;
	/* counted whether it may spin or not: it waits */
	if (th_wait_crowded(th_wait_threads_now(plan.start_ns)))
		return plan;
	n = __atomic_add_fetch(&th_wait_spinners, 1, __ATOMIC_RELAXED);
	if (n > th_wait_conf.cpus) {
		__atomic_sub_fetch(&th_wait_spinners, 1, __ATOMIC_RELAXED);
		return plan;
	}
	plan.yield = true;
	plan.budget_ns = spin_ns < timeout_ns ? spin_ns : timeout_ns;
	return plan;
}

/*
 * Look with @look(@arg) for up to @plan's budget: the first looks pause
 * the CPU between them, later ones yield it if the plan says so.  True
 * once @look saw what it waits for.  Drops this thread's count in
 * th_wait_spinners, which th_wait_spin_admit() raised.
 */
static bool th_wait_spin_loop(const struct th_wait_plan *plan,
			      bool (*look)(void *arg), void *arg)
{
	bool reached = false;
	unsigned int i;

	for (i = 1;; i++) {
		if (look(arg)) {
			reached = true;
			break;
		}
		if (plan->yield && i > TH_WAIT_PAUSE_LOOKS)
			sched_yield();
		else
			th_cpu_relax();
		if (!(i & 63) &&
		    th_wait_now_ns() - plan->start_ns >= plan->budget_ns)
			break;
	}
	__atomic_sub_fetch(&th_wait_spinners, 1, __ATOMIC_RELAXED);
	return reached;
}

bool th_wait_spin_for(bool (*look)(void *arg), void *arg, uint64_t timeout_ns)
{
	struct th_wait_plan plan = th_wait_spin_admit(timeout_ns);

	if (!plan.budget_ns)
		return false;
	return th_wait_spin_loop(&plan, look, arg);
}

struct th_wait_ct_look {
	struct th_vport *vp;
	const struct th_nic_ct *c;
	uint64_t threshold;
};

/*
 * One look at a counter: reached or failed, the caller has its answer;
 * otherwise drive the provider once (the ofi provider reads its
 * completion queue here, so no progress thread has to be woken).
 */
static bool th_wait_ct_look(void *arg)
{
	struct th_wait_ct_look *l = arg;
	const struct th_provider_ops *ops = l->vp->ctx->dev.ops;

	if (__atomic_load_n(&l->c->failure, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&l->c->success, __ATOMIC_ACQUIRE) >= l->threshold)
		return true;
	if (ops->progress)
		ops->progress(l->vp->ctx);
	return false;
}

/*
 * A wait with no time left does not spin, but the one look it makes is
 * a spinning waiter's: it reads the provider's queue (the ofi provider's
 * completion queue and shm rings), so that what has arrived is handled
 * by the thread that asks.  Left to the progress thread, a test asked
 * in a loop (MPI_Wait on libthmpi's generalized request) waited for
 * that thread's wake-up: an 8-byte MPI_Iallreduce and MPI_Wait on 2
 * ranks took 18 us (5.5-100 over three runs) where the blocking call
 * takes 2, and 2.5 us (1.9-3.4) with this.
 */
bool th_wait_drive_once(struct th_vport *vp)
{
	const struct th_provider_ops *ops = vp->ctx->dev.ops;

	if (!ops->progress || !th_wait_may_watch())
		return false;
	ops->progress(vp->ctx);
	return true;
}

/*
 * An early root's round ends once its PUTs to its children are issued
 * (coll.c: th_coll_early_root(), and the eager Broadcast of two ranks),
 * but on the ofi provider a PUT past the eager size still needs this
 * host: the target's RESOLVED answer read, the RMA posted.  Left to the
 * progress thread while the caller went on, a 64 KiB MPI_Ibcast +
 * MPI_Wait on 2 ranks took up to 4 ms (a scheduler tick) a call, over
 * 200 us on average in 13 runs of 20: the root's main thread, polling
 * in MPICH's next barrier, held the CPU the thread needed, and the child
 * waited.  So the waiter moves them itself, as an MPI library's
 * rendezvous send keeps its sender until the bytes left.  Only @vp's
 * count: another vport's stream of large PUTs does not hold it.
 */
int th_wait_bytes_out(struct th_vport *vp, uint64_t deadline)
{
	const struct th_provider_ops *ops = vp->ctx->dev.ops;

	if (!ops->host_owes)
		return 0;
	while (ops->host_owes(vp)) {
		if (!th_wait_drive_once(vp))
			return 0;
		if (th_wait_now_ns() >= deadline)
			return -ETIMEDOUT;
	}
	return 0;
}

/*
 * CT_WAIT under the wait policy.  With no timeout, a test: the
 * provider's answer, and where it is not there yet, one more after a look
 * that drives the provider (th_wait_drive_once()).  With @act_first
 * (th_ct_wait()), first one look through the provider with no timeout:
 * it is the host action the NIC counts (a parked re-arm round is
 * released by it) and answers at once when the counter is there.  Then
 * the spin, which reads the counter page (and drives the provider: the
 * ofi provider reads its completion queue there, so no progress thread
 * has to be woken); then, if the spin did not see the counter reached
 * cleanly, the provider's wait for the rest of the timeout, which gives
 * the exact answer (the values, -EIO, -ECONNREFUSED).
 */
static int th_ct_wait_as(struct th_vport *vp, uint16_t ct,
			 uint64_t threshold, uint64_t timeout_ns, bool act_first)
{
	const struct th_provider_ops *ops = vp->ctx->dev.ops;
	struct th_nic_ct_wait w = {
		.size = sizeof(w), .vport = vp->index, .ct = ct,
		.threshold = threshold, .timeout_ns = timeout_ns,
	};
	struct th_wait_ct_look look;
	struct th_wait_plan plan;
	uint64_t spent;
	int ret;

	if (ct >= vp->info.ct_count || (ops->timed && ops->timed(vp)))
		return ops->ct_wait(vp, &w);
	if (!timeout_ns) {
		/* a test: the provider's look, and the one that drives it */
		ret = ops->ct_wait(vp, &w);
		if (ret == -ETIMEDOUT && th_wait_drive_once(vp))
			ret = ops->ct_wait(vp, &w);
		return ret;
	}
	plan = th_wait_spin_admit(timeout_ns);
	if (!plan.budget_ns)
		return ops->ct_wait(vp, &w);
	if (act_first) {
		w.timeout_ns = 0;
		ret = ops->ct_wait(vp, &w);
		if (ret != -ETIMEDOUT) {
			__atomic_sub_fetch(&th_wait_spinners, 1,
					   __ATOMIC_RELAXED);
			return ret;
		}
	}
	look = (struct th_wait_ct_look){
		.vp = vp, .c = &vp->cts[ct], .threshold = threshold,
	};
	if (th_wait_spin_loop(&plan, th_wait_ct_look, &look) &&
	    !__atomic_load_n(&vp->cts[ct].failure, __ATOMIC_ACQUIRE))
		return 0;
	spent = th_wait_now_ns() - plan.start_ns;
	w.timeout_ns = spent < timeout_ns ? timeout_ns - spent : 0;
	return ops->ct_wait(vp, &w);
}

int th_ct_wait(struct th_vport *vp, uint16_t ct, uint64_t threshold,
	       uint64_t timeout_ns)
{
	return th_ct_wait_as(vp, ct, threshold, timeout_ns, true);
}

/*
 * Without the first look: the host action is the caller's to have made,
 * and the look takes the vport's lock, which a thread delivering into
 * this vport wants at the same moment when two rank threads take turns
 * on two CPUs.
 */
int th_ct_wait_spin_first(struct th_vport *vp, uint16_t ct,
			  uint64_t threshold, uint64_t timeout_ns)
{
	return th_ct_wait_as(vp, ct, threshold, timeout_ns, false);
}
