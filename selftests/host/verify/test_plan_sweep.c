// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_plan_sweep.c - the library's own plans verify clean: every plan
 * th_coll_describe() compiles for Allreduce, Reduce and Broadcast, N = 2
 * ... 64 ranks and radix 2 ... 8, and N in {100, 255, 256, 257, 512, 1000,
 * 1024} at every radix, with one segment and with four (the window's
 * credits), gives th_coll_verify() no finding and no warning.
 * TH_VERIFY_SWEEP=full sweeps every N from 2 to 1024 (make
 * verify-sweep-full), in a worker process per CPU (TH_VERIFY_JOBS).  A parent's chain per remote child.  Then the
 * refusals of th_coll_describe(),
 * th_coll_verify() and th_coll_start() on a described plan.  And a plan
 * through GOAL and back (th_sim_chains_goal()) keeps its time.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thverbs/coll.h>
#include <thverbs/sim.h>
#include <thverbs/verify.h>
#include "kselftest_harness.h"

static const unsigned int sweep_large[] = { 100, 255, 256, 257, 512, 1000, 1024 };
static const enum th_coll_kind sweep_kinds[] = {
	TH_COLL_ALLREDUCE, TH_COLL_REDUCE, TH_COLL_BCAST,
};
/* elements: one segment, and four of 64 KiB (credits between windows) */
static const uint32_t sweep_counts[] = { 1, 4 * 8192 };

/* The engine's default limits, with a node per rank. */
static struct th_nic_query sweep_limits(unsigned int n)
{
	struct th_nic_query q = {
		.size = sizeof(q), .node_count = n, .max_counters = 256,
		.max_sq_entries = 1024, .max_cq_entries = 1024, .max_chain = 16,
	};
	return q;
}

/*
 * The plan of (@kind, @n, @k, @count): its findings, or -errno; the first
 * one is logged.  @chains: how many it has.
 */
static int sweep_one(struct __test_metadata *_metadata, enum th_coll_kind kind,
		     unsigned int n, unsigned int k, uint32_t count,
		     unsigned int *chains)
{
	struct th_coll_attr a = {
		.kind = kind, .op = TH_NIC_ALU_SUM, .dtype = TH_NIC_DT_INT64,
		.count = count, .radix = k,
	};
	struct th_nic_query q = sweep_limits(n);
	struct th_verify_finding f;
	struct th_coll_step st;
	struct th_coll *cl = th_coll_describe(n, &a, &q);
	int found;

	if (!cl)
		return -errno;
	for (*chains = 0; !th_coll_plan_step(cl, *chains, &st); (*chains)++)
		;
	found = th_coll_verify(cl, &q, &f, 1);
	if (found > 0)
		TH_LOG("kind %d n %u k %u count %u: %s on step %u: %s", kind, n,
		       k, count, th_verify_class_name(f.cls), f.chain, f.why);
	th_coll_destroy(cl);
	return found;
}

static void sweep(struct __test_metadata *_metadata, unsigned int n)
{
	unsigned int ki, k, ci, chains;

	for (ki = 0; ki < 3; ki++)
		for (k = 2; k <= 8; k++)
			for (ci = 0; ci < 2; ci++) {
				ASSERT_EQ(0, sweep_one(_metadata, sweep_kinds[ki],
						       n, k, sweep_counts[ci],
						       &chains))
					TH_LOG("kind %d n %u k %u count %u", ki,
					       n, k, sweep_counts[ci]);
				/* a plan with no chains would verify trivially */
				ASSERT_GE(chains, n);
			}
}

FIXTURE(sweep) {
	int unused;
};

FIXTURE_SETUP(sweep)
{
	self->unused = 0;
}

FIXTURE_TEARDOWN(sweep)
{
}

/*
 * Worker processes for the full sweep: TH_VERIFY_JOBS, else one per
 * online CPU; at most 16.  A malformed TH_VERIFY_JOBS is 0: the test
 * fails rather than guess.
 */
#define SWEEP_JOBS_MAX	16

static unsigned int sweep_jobs(void)
{
	const char *s = getenv("TH_VERIFY_JOBS");
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long v;
	char *end;

	if (!s)
		return cpus < 1 ? 1 : cpus > SWEEP_JOBS_MAX ? SWEEP_JOBS_MAX : cpus;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || !v || v > SWEEP_JOBS_MAX)
		return 0;
	return v;
}

/*
 * Sweep N = @first ... @last in @jobs forked workers, worker j taking N =
 * first + j, first + j + jobs, ... (the cost grows with N: interleaved,
 * they finish together).  A worker whose assertion fails leaves through
 * the harness's own path with a non-zero status (its TH_LOG names the
 * plan); each worker dies with this process (the harness's timeout).
 */
static void sweep_forked(struct __test_metadata *_metadata, unsigned int first,
			 unsigned int last, unsigned int jobs)
{
	pid_t pid[SWEEP_JOBS_MAX], self = getpid();
	unsigned int j, n;
	int status;

	for (j = 0; j < jobs; j++) {
		fflush(stdout);
		fflush(stderr);
		pid[j] = fork();
		ASSERT_LE(0, pid[j]);
		if (!pid[j]) {
			/* and if the test died before this, at once */
			if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != self)
				_exit(1);
			for (n = first + j; n <= last; n += jobs)
				sweep(_metadata, n);
			_exit(_metadata->passed ? 0 : 1);
		}
	}
	for (j = 0; j < jobs; j++) {
		ASSERT_EQ(pid[j], waitpid(pid[j], &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
			TH_LOG("worker %u of %u (N = %u + %u k) failed: status 0x%x",
			       j + 1, jobs, first + j, jobs, status);
	}
}

/* the full sweep (TH_VERIFY_SWEEP=full) takes minutes under the sanitizers */
TEST_F_TIMEOUT(sweep, plans_of_2_to_64_ranks_verify_clean, 3600)
{
	const char *full = getenv("TH_VERIFY_SWEEP");
	unsigned int n, jobs, last = full && !strcmp(full, "full") ? 1024 : 64;

	if (last == 64) {
		for (n = 2; n <= last; n++)
			sweep(_metadata, n);
		TH_LOG("swept N = 2 ... %u, radix 2 ... 8, 3 kinds, 2 sizes", last);
		return;
	}
	jobs = sweep_jobs();
	ASSERT_NE(0, jobs) TH_LOG("TH_VERIFY_JOBS must be 1 ... %d", SWEEP_JOBS_MAX);
	sweep_forked(_metadata, 2, last, jobs);
	TH_LOG("swept N = 2 ... %u, radix 2 ... 8, 3 kinds, 2 sizes, in %u workers",
	       last, jobs);
}

TEST(plans_of_large_jobs_verify_clean)
{
	unsigned int i;

	for (i = 0; i < sizeof(sweep_large) / sizeof(sweep_large[0]); i++)
		sweep(_metadata, sweep_large[i]);
}

/* The sweep can fail: a fabric too small for the plan is a finding. */
TEST(a_plan_beyond_the_fabric_is_found)
{
	struct th_coll_attr a = {
		.kind = TH_COLL_ALLREDUCE, .op = TH_NIC_ALU_SUM,
		.dtype = TH_NIC_DT_INT64, .count = 1, .radix = 2,
	};
	struct th_nic_query q = sweep_limits(8);
	struct th_verify_finding f[64];
	struct th_coll *cl = th_coll_describe(16, &a, &q);
	int n;

	ASSERT_NE(NULL, cl);
	n = th_coll_verify(cl, &q, f, 64);
	ASSERT_GT(n, 0);
	EXPECT_EQ(TH_VERIFY_FIT, f[0].cls);
	EXPECT_NE(NULL, strstr(f[0].why, "but the fabric has 8 nodes")) TH_LOG("%s", f[0].why);
	/* a CQ of 2 entries cannot hold a rank's chains */
	q = sweep_limits(16);
	q.max_cq_entries = 2;
	n = th_coll_verify(cl, &q, f, 64);
	ASSERT_GT(n, 0);
	EXPECT_EQ(TH_VERIFY_FIT, f[0].cls);
	th_coll_destroy(cl);
}

TEST(bad_plans_and_described_handles_are_refused)
{
	struct th_coll_attr a = {
		.kind = TH_COLL_BCAST, .dtype = TH_NIC_DT_INT64, .count = 1,
		.radix = 1,
	};
	struct th_nic_query q = sweep_limits(4);
	struct th_verify_finding f;
	struct th_coll *cl;

	EXPECT_EQ(NULL, th_coll_describe(4, &a, &q));
	EXPECT_EQ(EINVAL, errno);
	a.radix = 2;
	EXPECT_EQ(NULL, th_coll_describe(0, &a, &q));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(NULL, th_coll_describe(4, NULL, &q));
	cl = th_coll_describe(4, &a, NULL);
	ASSERT_NE(NULL, cl);
	/* nothing was posted: no round to start */
	EXPECT_EQ(-EOPNOTSUPP, th_coll_start(cl));
	EXPECT_EQ(-EINVAL, th_coll_verify(NULL, &q, &f, 1));
	EXPECT_EQ(-EINVAL, th_coll_verify(cl, &q, NULL, 1));
	EXPECT_EQ(0, th_coll_verify(cl, &q, NULL, 0));
	EXPECT_EQ(0, th_coll_verify(cl, NULL, NULL, 0));
	th_coll_destroy(cl);
}

/* fan_chains()'s chains that raise F */
static unsigned int fan_f;

/*
 * Rank @rank's chains doing @what in @cl: how many, how many PUTs each
 * holds at most, their PUT targets in posting order (@to, up to @max),
 * and the threshold of its "round complete" step (@notify; 0 if it has
 * none: its one finish a round raises D itself).
 */
static unsigned int fan_chains(const struct th_coll *cl, unsigned int rank,
			       const char *what, unsigned int *most,
			       unsigned int *to, unsigned int max,
			       uint64_t *notify)
{
	unsigned int i, d, n = 0, puts, nto = 0;
	struct th_coll_step st;

	*most = 0;
	*notify = 0;
	for (i = 0; !th_coll_plan_step(cl, i, &st); i++) {
		if (st.rank != rank)
			continue;
		if (!strcmp(st.what, "round complete"))
			*notify = st.threshold;
		if (strcmp(st.what, what))
			continue;
		n++;
		/* does the chain raise F (after its PUTs)? */
		for (d = 0; d < st.ndesc; d++)
			if (st.descs[d].opcode == TH_NIC_OP_CT_INC)
				break;
		fan_f += d < st.ndesc;
		for (d = 0, puts = 0; d < st.ndesc; d++) {
			if (st.descs[d].opcode != TH_NIC_OP_PUT)
				continue;
			puts++;
			if (nto < max)
				to[nto++] = st.descs[d].xfer.node;
		}
		*most = puts > *most ? puts : *most;
	}
	return n;
}

/*
 * A described plan stands for ranks on NICs of their own: a parent sends
 * to each child from a chain of its own (a chain waits for each remote
 * delivery before its next descriptor), largest subtree first, and the
 * round completes once every one of them has raised F; on a root of one
 * segment, once its copy into recv did (th_coll_early_root()): that one
 * finish raises D, with no chain on F, as on Reduce's ranks.
 */
TEST(a_parent_sends_to_each_remote_child_from_a_chain_of_its_own)
{
	/* a Broadcast above the eager limit (16 KiB in one segment) */
	static const struct {
		enum th_coll_kind kind;
		uint32_t count;
		const char *root, *what;
	} cases[] = {
		{ TH_COLL_ALLREDUCE, 1, "send the result to the children",
		  "forward the result to the children" },
		{ TH_COLL_BCAST, 2048, "send the result to the children",
		  "forward the result to the children" },
		{ TH_COLL_REDUCE, 1, "credit: children's contributions consumed",
		  "credit: children's contributions consumed" },
	};
	struct th_nic_query q = sweep_limits(16);
	unsigned int c, most, to[8];
	uint64_t notify = 0;

	for (c = 0; c < 3; c++) {
		struct th_coll_attr a = {
			.kind = cases[c].kind, .op = TH_NIC_ALU_SUM,
			.dtype = TH_NIC_DT_INT64, .count = cases[c].count,
			.radix = 2,
		};
		struct th_coll *cl = th_coll_describe(16, &a, &q);

		ASSERT_NE(NULL, cl);
		/* the root of 16, radix 2: children 1, 2, 4, 8 */
		fan_f = 0;
		ASSERT_EQ(4, fan_chains(cl, 0, cases[c].root, &most, to, 8,
					&notify)) TH_LOG("case %u", c);
		/* a root's end with their PUT (th_coll_early_root()) */
		EXPECT_EQ(0, fan_f) TH_LOG("case %u", c);
		EXPECT_EQ(1, most);
		EXPECT_EQ(8, to[0]);
		EXPECT_EQ(4, to[1]);
		EXPECT_EQ(2, to[2]);
		EXPECT_EQ(1, to[3]);
		/*
		 * F: once per chain going down; Reduce's ranks and the
		 * root (its copy into recv): once, so D itself
		 */
		EXPECT_EQ(0, notify) TH_LOG("case %u", c);
		/* rank 8's children 9, 10, 12: three chains */
		fan_f = 0;
		EXPECT_EQ(3, fan_chains(cl, 8, cases[c].what, &most, to, 8,
					&notify));
		EXPECT_EQ(c == 2 ? 0 : 3, fan_f);
		EXPECT_EQ(12, to[0]);
		EXPECT_EQ(c == 2 ? 0 : 3, notify);
		EXPECT_EQ(0, th_coll_verify(cl, &q, NULL, 0));
		th_coll_destroy(cl);
	}
}

/*
 * A small Broadcast among NICs of their own is an eager tree (coll.c:
 * th_coll_eager_tree()): no chain waits for a child's readiness (Y); each
 * parent has two chains a child (odd and even rounds) that copy the data
 * and send it, each waiting on that child's own counter K(j), the largest
 * subtree first; a round is done once recv and every child's copy are
 * made (F: children + 1), and every rank but the root then credits its
 * parent, again by parity.  The plan verifies clean.
 */
TEST(a_small_broadcast_among_nics_of_their_own_is_an_eager_tree)
{
	struct th_nic_query q = sweep_limits(16);
	struct th_coll_attr a = {
		.kind = TH_COLL_BCAST, .dtype = TH_NIC_DT_INT64, .count = 1,
		.radix = 2,
	};
	unsigned int most, to[8], i, ready = 0, credits[16] = { 0 };
	struct th_coll *cl = th_coll_describe(16, &a, &q);
	struct th_coll_step st;
	uint64_t notify = 0;

	ASSERT_NE(NULL, cl);
	/* the root of 16, radix 2: children 1, 2, 4, 8, each twice */
	EXPECT_EQ(8, fan_chains(cl, 0, "copy the data for the child, send it",
				&most, to, 8, &notify));
	EXPECT_EQ(1, most);
	EXPECT_EQ(8, to[0]);
	EXPECT_EQ(8, to[1]);
	EXPECT_EQ(4, to[2]);
	EXPECT_EQ(1, to[7]);
	EXPECT_EQ(5, notify);
	/* rank 8's children 9, 10, 12; leaf 15 has none */
	EXPECT_EQ(6, fan_chains(cl, 8, "copy the data for the child, send it",
				&most, to, 8, &notify));
	EXPECT_EQ(12, to[0]);
	EXPECT_EQ(4, notify);
	EXPECT_EQ(0, fan_chains(cl, 15, "copy the data for the child, send it",
				&most, to, 8, &notify));
	EXPECT_EQ(1, notify);
	for (i = 0; !th_coll_plan_step(cl, i, &st); i++) {
		ready += st.ct == 2;	/* TH_COLL_CT_Y: the ready protocol's */
		if (!strcmp(st.what, "credit the parent: the slot is free"))
			credits[st.rank]++;
	}
	EXPECT_EQ(0, ready);
	EXPECT_EQ(0, credits[0]);
	for (i = 1; i < 16; i++)
		EXPECT_EQ(2, credits[i]) TH_LOG("rank %u", i);
	EXPECT_EQ(0, th_coll_verify(cl, &q, NULL, 0));
	th_coll_destroy(cl);
}

/*
 * A chain per child would not fit a plan of many segments in the vport's
 * CQ: 64 segments of 64 KiB to 4 children keep one chain per segment
 * with every child's PUT in it, and the plan fits and verifies clean.
 */
TEST(a_plan_of_many_segments_keeps_its_children_in_one_chain)
{
	struct th_nic_query q = sweep_limits(16);
	struct th_coll_attr a = {
		.kind = TH_COLL_ALLREDUCE, .op = TH_NIC_ALU_SUM,
		.dtype = TH_NIC_DT_INT64, .count = 64 * 8192, .radix = 2,
	};
	unsigned int most, to[8];
	uint64_t notify = 0;
	struct th_coll *cl = th_coll_describe(16, &a, &q);

	ASSERT_NE(NULL, cl);
	EXPECT_EQ(64, fan_chains(cl, 0, "forward the result to the children",
				 &most, to, 8, &notify));
	EXPECT_EQ(4, most);
	EXPECT_EQ(64, notify);
	EXPECT_EQ(0, th_coll_verify(cl, &q, NULL, 0));
	th_coll_destroy(cl);
}

/*
 * The library's Reduce plan comes back through GOAL: the plan of 64 ranks
 * simulated, and its GOAL compiled into chains again and simulated, agree
 * within 5 % (the compiled GOAL pays a descriptor more per operation).
 * Without the posting order a parent's credits went before its result,
 * 70 % later.
 */
TEST(a_reduce_plan_comes_back_through_goal)
{
	struct th_coll_attr attr = { .kind = TH_COLL_REDUCE, .op = TH_NIC_ALU_SUM,
				     .dtype = TH_NIC_DT_INT64, .count = 1,
				     .radix = 2 };
	struct th_sim_params p;
	struct th_sim_nic n;
	struct th_sim_result plan, back;
	struct th_verify_set *set;
	struct th_sim_goal *g;
	struct th_coll *cl;
	char err[256];

	th_sim_params_default(&p);
	th_sim_nic_default(&n);
	cl = th_coll_describe(64, &attr, NULL);
	ASSERT_NE(NULL, cl);
	set = th_coll_set(cl, NULL);
	ASSERT_NE(NULL, set);
	ASSERT_EQ(0, th_sim_chains(set, &p, &n, &plan, NULL, err, 256)) TH_LOG("%s", err);
	ASSERT_EQ(0, th_sim_chains_goal(set, &n, &g, err, 256)) TH_LOG("%s", err);
	ASSERT_EQ(0, th_sim_goal_offload(g, &p, &n, &back, err, 256)) TH_LOG("%s", err);
	EXPECT_LE(back.max_ns, plan.max_ns + plan.max_ns / 20)
		TH_LOG("plan %llu ns, through GOAL %llu ns",
		       (unsigned long long)plan.max_ns,
		       (unsigned long long)back.max_ns);
	EXPECT_GE(back.max_ns, plan.max_ns - plan.max_ns / 20);
	th_sim_result_fini(&plan);
	th_sim_result_fini(&back);
	th_sim_goal_destroy(g);
	th_coll_set_free(set);
	th_coll_destroy(cl);
}

TEST_HARNESS_MAIN
