// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * coll_threads_test.c - ranks as threads (th_boot_run_threads()): the
 * in-memory rendezvous (allgather data checked over many rounds and
 * lengths under every wait policy, a late rank waited for, a rank past
 * TH_BOOT_TIMEOUT failing everyone, a rank that leaves failing the others
 * instead of hanging them, mismatched lengths), and the collectives with one thread per rank, each
 * on its own context and vport and waiting for its own completions:
 * Allreduce, Reduce and Broadcast offloaded, and the host-driven p2p tree,
 * results checked on every rank, with more ranks than cores.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include <thverbs/boot.h>
#include <thverbs/hostcoll.h>
#include <thverbs/verbs.h>

#define COUNT	1500	/* with segment 512: three segments */
#define ROUNDS	4
#define WAIT_NS	20000000000ULL

/* ---- the rendezvous ------------------------------------------------------ */

struct gather_job {
	unsigned int rounds;
	int leave_rank;		/* returns before round 1, or -1 */
	int odd_len_rank;	/* passes a different length, or -1 */
	int late_rank;		/* sleeps late_ms before round 0, or -1 */
	unsigned int late_ms;
	int results[64];	/* each rank's last return */
	int64_t waited_ms[64];	/* each rank's time in its first gather */
	int64_t left_ms[64];	/* when each rank left its first gather */
	int64_t late_came_ms;	/* when the late rank entered its first */
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int gather_rank(struct th_boot *b, void *arg)
{
	struct gather_job *j = arg;
	int rank = th_boot_rank(b), size = th_boot_size(b);
	unsigned int round, r, i, len;
	unsigned char mine[64], *all;
	int64_t t0;
	int ret = 0;

	all = malloc(64 * (size_t)size);
	if (!all)
		return -ENOMEM;
	for (round = 0; !ret && round < j->rounds; round++) {
		if (rank == j->leave_rank && round == 1)
			break;
		len = 1 + round % 64;
		if (rank == j->odd_len_rank)
			len++;
		for (i = 0; i < len; i++)
			mine[i] = rank * 31 + round * 7 + i;
		if (rank == j->late_rank && round == 0)
			usleep(j->late_ms * 1000);
		t0 = now_ms();
		if (rank == j->late_rank && round == 0)
			j->late_came_ms = t0;
		ret = th_boot_allgather(b, mine, all, len);
		if (round == 0) {
			j->left_ms[rank] = now_ms();
			j->waited_ms[rank] = j->left_ms[rank] - t0;
		}
		for (r = 0; !ret && r < (unsigned int)size; r++)
			for (i = 0; i < len; i++)
				if (all[r * len + i] !=
				    (unsigned char)(r * 31 + round * 7 + i))
					ret = -EBADMSG;
	}
	free(all);
	j->results[rank] = ret;
	return ret;
}

/*
 * Every size under every wait policy: the rendezvous spins for a gather's
 * end under spin and auto, and sleeps on its futex under passive (auto
 * with more threads than CPUs, too).  spin never yields, so it runs only
 * with a few threads.
 */
FIXTURE(team) {
	struct gather_job j;
	enum th_wait_policy saved;
	uint64_t saved_us;
};
FIXTURE_VARIANT(team) {
	unsigned int n;
	enum th_wait_policy policy;
};
FIXTURE_VARIANT_ADD(team, n1) { .n = 1, .policy = TH_WAIT_AUTO };
FIXTURE_VARIANT_ADD(team, n2) { .n = 2, .policy = TH_WAIT_AUTO };
FIXTURE_VARIANT_ADD(team, n5) { .n = 5, .policy = TH_WAIT_AUTO };
FIXTURE_VARIANT_ADD(team, n64) { .n = 64, .policy = TH_WAIT_AUTO };
FIXTURE_VARIANT_ADD(team, n2_spin) { .n = 2, .policy = TH_WAIT_SPIN };
FIXTURE_VARIANT_ADD(team, n3_spin) { .n = 3, .policy = TH_WAIT_SPIN };
FIXTURE_VARIANT_ADD(team, n2_passive) { .n = 2, .policy = TH_WAIT_PASSIVE };
FIXTURE_VARIANT_ADD(team, n64_passive) {
	.n = 64, .policy = TH_WAIT_PASSIVE
};

FIXTURE_SETUP(team)
{
	memset(&self->j, 0, sizeof(self->j));
	self->j.leave_rank = -1;
	self->j.odd_len_rank = -1;
	self->j.late_rank = -1;
	self->saved = th_wait_policy_get(&self->saved_us);
	ASSERT_EQ(0, th_wait_policy_set(variant->policy, self->saved_us));
}

FIXTURE_TEARDOWN(team)
{
	th_wait_policy_set(self->saved, self->saved_us);
}

TEST_F(team, allgather_data_checked_over_rounds)
{
	self->j.rounds = 200;
	ASSERT_EQ(0, th_boot_run_threads(variant->n, gather_rank, &self->j));
}

/*
 * A rank that comes late, but comes: the others wait for it (asleep or
 * spinning, per the policy), all leave when it comes (not a sleep's cap,
 * a second, later), and every round's data is right.  The leaving is
 * timed from the late rank's arrival, not from each rank's own: the
 * last of 64 threads may start hundreds of milliseconds after the first
 * under a debug kernel in an emulated VM (506 ms from the first's
 * arrival, in one CI run).
 */
TEST_F(team, a_late_rank_is_waited_for)
{
	unsigned int r;

	self->j.rounds = 20;
	self->j.late_rank = variant->n - 1;
	self->j.late_ms = 50;
	ASSERT_EQ(0, th_boot_run_threads(variant->n, gather_rank, &self->j));
	/*
	 * No rank leaves before the late one came (not "waits 40 ms of its
	 * own": under load a rank may start 10 ms after the first, and then
	 * waits that much less, as hostcheck saw with 64 threads)
	 */
	for (r = 0; r + 1 < variant->n; r++) {
		EXPECT_LE(self->j.late_came_ms, self->j.left_ms[r]);
		EXPECT_GE(500, self->j.left_ms[r] - self->j.late_came_ms);
	}
}

/* The CPUs this process may run on. */
static unsigned int cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	return CPU_COUNT(&set) > 0 ? CPU_COUNT(&set) : 1;
}

/*
 * TH_BOOT_TIMEOUT bounds a gather, under every policy: a rank late past
 * it fails the others' gather with -ETIMEDOUT, after about the timeout,
 * and its own gather with the same sticky error when it arrives.
 *
 * The first waiter to time out fails the others, who may have started
 * later (spinners on 2 cores delay the creation of the rest): the longest
 * wait is the timeout.  And no wait is twice it (a spin for the whole
 * timeout, then a sleep for another).  That bound is on time, checked
 * where the waiters fit on the CPUs: a debug kernel under TCG still kept
 * a waiter that had timed out off its CPU for up to 490 ms, in one run of
 * several.  So a case runs up to three times, and one run with every
 * wait under the bound passes; a doubled wait exceeds it in every run.
 */
TEST(a_gather_past_the_timeout_fails_every_rank)
{
	static const enum th_wait_policy policies[] = {
		TH_WAIT_AUTO, TH_WAIT_SPIN, TH_WAIT_PASSIVE,
	};
	static const unsigned int sizes[] = { 2, 5 };
	enum th_wait_policy saved;
	int64_t longest = 0;
	unsigned int p, i, r, run;
	struct gather_job j;
	bool fits;
	uint64_t us;

	saved = th_wait_policy_get(&us);
	ASSERT_EQ(0, setenv("TH_BOOT_TIMEOUT", "0.3", 1));
	for (p = 0; p < 3; p++) {
		ASSERT_EQ(0, th_wait_policy_set(policies[p], us));
		for (i = 0; i < 2; i++) {
			fits = policies[p] != TH_WAIT_SPIN ||
			       sizes[i] - 1 <= cpus();
			for (run = 0; run < 3; run++) {
				memset(&j, 0, sizeof(j));
				j.rounds = 3;
				j.leave_rank = -1;
				j.odd_len_rank = -1;
				j.late_rank = 0;
				j.late_ms = 800;
				EXPECT_EQ(-ETIMEDOUT,
					  th_boot_run_threads(sizes[i],
							      gather_rank, &j));
				for (r = 0; r < sizes[i]; r++)
					EXPECT_EQ(-ETIMEDOUT, j.results[r]);
				longest = 0;
				for (r = 1; r < sizes[i]; r++)
					if (j.waited_ms[r] > longest)
						longest = j.waited_ms[r];
				EXPECT_LE(290, longest);
				if (!fits || longest < 550)
					break;
				TH_LOG("%s, %u ranks, run %u: a wait of %lld ms",
				       th_wait_policy_name(policies[p]),
				       sizes[i], run + 1, (long long)longest);
			}
			if (fits)
				EXPECT_GT(550, longest);
		}
	}
	unsetenv("TH_BOOT_TIMEOUT");
	th_wait_policy_set(saved, us);
}

static const unsigned int team_sizes[] = { 2, 5, 64 };

TEST(a_rank_that_leaves_fails_the_others)
{
	struct gather_job j;
	unsigned int i, n, r;

	for (i = 0; i < sizeof(team_sizes) / sizeof(team_sizes[0]); i++) {
		n = team_sizes[i];
		memset(&j, 0, sizeof(j));
		j.rounds = 5;
		j.leave_rank = n - 1;
		j.odd_len_rank = -1;
		j.late_rank = -1;
		EXPECT_EQ(-ECONNRESET, th_boot_run_threads(n, gather_rank, &j));
		for (r = 0; r + 1 < n; r++)
			EXPECT_EQ(-ECONNRESET, j.results[r]);
		EXPECT_EQ(0, j.results[n - 1]);
	}
}

TEST(mismatched_lengths_are_eproto_for_all)
{
	struct gather_job j;
	unsigned int i, n, r;

	for (i = 0; i < sizeof(team_sizes) / sizeof(team_sizes[0]); i++) {
		n = team_sizes[i];
		memset(&j, 0, sizeof(j));
		j.rounds = 3;
		j.leave_rank = -1;
		j.odd_len_rank = 0;
		j.late_rank = -1;
		EXPECT_EQ(-EPROTO, th_boot_run_threads(n, gather_rank, &j));
		for (r = 0; r < n; r++)
			EXPECT_EQ(-EPROTO, j.results[r]);
	}
}

TEST(run_threads_refuses_bad_arguments)
{
	struct gather_job j = { .leave_rank = -1, .odd_len_rank = -1,
				.late_rank = -1 };

	EXPECT_EQ(-EINVAL, th_boot_run_threads(0, gather_rank, &j));
	EXPECT_EQ(-EINVAL, th_boot_run_threads(TH_BOOT_MAX_RANKS + 1,
					       gather_rank, &j));
	EXPECT_EQ(-EINVAL, th_boot_run_threads(2, NULL, &j));
	EXPECT_EQ(-EINVAL, th_boot_run(NULL, NULL));
}

TEST(init_under_threads_points_to_run)
{
	struct gather_job j = { .rounds = 3, .leave_rank = -1,
				.odd_len_rank = -1, .late_rank = -1 };

	ASSERT_EQ(0, setenv("TH_THREADS", "3", 1));
	errno = 0;
	EXPECT_EQ(NULL, th_boot_init());
	EXPECT_EQ(EOPNOTSUPP, errno);
	/* th_boot_run() takes TH_THREADS as the number of rank threads */
	EXPECT_EQ(0, th_boot_run(gather_rank, &j));
	ASSERT_EQ(0, setenv("TH_THREADS", "0", 1));
	EXPECT_EQ(-EINVAL, th_boot_run(gather_rank, &j));
	unsetenv("TH_THREADS");
}

/* ---- collectives, one thread per rank -------------------------------------- */

struct coll_job {
	enum th_coll_kind kind;
	bool p2p;
	bool one_segment;	/* the whole message one segment */
	unsigned int radix, root;
	int results[64];
	unsigned int rounds_ok[64];
};

/* Whole numbers: any order of summation gives the same bits. */
static double input(unsigned int rank, unsigned int round, unsigned int i)
{
	return (double)((rank * 7 + round * 3 + i) % 50);
}

static int boot_allgather(void *arg, const void *mine, void *all, size_t len)
{
	return th_boot_allgather(arg, mine, all, len);
}

static bool rank_result_ok(const struct coll_job *j, unsigned int rank,
			   unsigned int size, unsigned int round,
			   const double *recv)
{
	unsigned int i, r;
	double want;

	if (j->kind == TH_COLL_REDUCE && rank != j->root)
		return true;	/* only the root's recv is defined */
	for (i = 0; i < COUNT; i++) {
		want = 0;
		if (j->kind == TH_COLL_BCAST)
			want = input(j->root, round, i);
		else
			for (r = 0; r < size; r++)
				want += input(r, round, i);
		if (recv[i] != want)
			return false;
	}
	return true;
}

static int coll_rank(struct th_boot *b, void *arg)
{
	struct coll_job *j = arg;
	unsigned int rank = th_boot_rank(b), size = th_boot_size(b), round, i;
	struct th_coll_attr a = { .kind = j->kind, .op = TH_NIC_ALU_SUM,
				  .dtype = TH_NIC_DT_FLOAT64, .count = COUNT,
				  .radix = j->radix, .root = j->root,
				  .segment = j->one_segment ? COUNT : 512 };
	double *send = calloc(2 * COUNT, sizeof(double)), *recv = send + COUNT;
	struct th_device **devs;
	struct th_context *ctx = NULL;
	struct th_vport *vp = NULL;
	struct th_coll *coll = NULL;
	struct th_hostcoll *p2p = NULL;
	int ndev = 0, ret = -ENOMEM;

	devs = send ? th_device_list_get(NULL, &ndev) : NULL;
	if (devs && ndev > 0)
		ctx = th_device_open(devs[rank % ndev]);
	if (ctx)
		vp = th_vport_create(ctx, NULL);
	if (vp && j->p2p)
		p2p = th_hostcoll_create(vp, rank, size, boot_allgather, b, &a,
					 TH_HOSTCOLL_TREE, send, recv);
	else if (vp)
		coll = th_coll_create(vp, rank, size, boot_allgather, b, &a,
				      send, recv);
	ret = coll || p2p ? 0 : -errno;
	for (round = 0; !ret && round < ROUNDS; round++) {
		for (i = 0; i < COUNT; i++)
			send[i] = input(rank, round, i);
		/* the previous round is over everywhere: buffers may change */
		ret = th_boot_barrier(b);
		if (!ret && p2p)
			ret = th_hostcoll_run(p2p, WAIT_NS);
		if (!ret && coll)
			ret = th_coll_start(coll);
		if (!ret && coll)
			ret = th_coll_wait(coll, WAIT_NS);
		if (!ret && !rank_result_ok(j, rank, size, round, recv))
			ret = -EBADMSG;
		if (!ret)
			j->rounds_ok[rank]++;
	}
	th_coll_destroy(coll);
	th_hostcoll_destroy(p2p);
	if (vp)
		th_vport_destroy(vp);
	if (ctx)
		th_device_close(ctx);
	th_device_list_free(devs);
	free(send);
	j->results[rank] = ret;
	return ret;
}

FIXTURE(ranks) {
	struct coll_job j;
};
FIXTURE_VARIANT(ranks) {
	unsigned int n, radix, root;
	enum th_coll_kind kind;
	bool p2p;
	bool one_segment;
};
FIXTURE_VARIANT_ADD(ranks, allreduce_n2_k2) {
	.n = 2, .radix = 2, .kind = TH_COLL_ALLREDUCE };
FIXTURE_VARIANT_ADD(ranks, allreduce_n2_one_segment) {
	.n = 2, .radix = 2, .kind = TH_COLL_ALLREDUCE, .one_segment = true };
FIXTURE_VARIANT_ADD(ranks, bcast_n2_one_segment_root1) {
	.n = 2, .radix = 2, .root = 1, .kind = TH_COLL_BCAST,
	.one_segment = true };
FIXTURE_VARIANT_ADD(ranks, allreduce_n16_k4) {
	.n = 16, .radix = 4, .kind = TH_COLL_ALLREDUCE };
FIXTURE_VARIANT_ADD(ranks, allreduce_n64_k2) {
	.n = 64, .radix = 2, .kind = TH_COLL_ALLREDUCE };
FIXTURE_VARIANT_ADD(ranks, reduce_n16_k2_root5) {
	.n = 16, .radix = 2, .root = 5, .kind = TH_COLL_REDUCE };
FIXTURE_VARIANT_ADD(ranks, bcast_n16_k4_root3) {
	.n = 16, .radix = 4, .root = 3, .kind = TH_COLL_BCAST };
FIXTURE_VARIANT_ADD(ranks, p2p_tree_n16_k4) {
	.n = 16, .radix = 4, .kind = TH_COLL_ALLREDUCE, .p2p = true };
FIXTURE_VARIANT_ADD(ranks, p2p_tree_n33_k2) {
	.n = 33, .radix = 2, .kind = TH_COLL_ALLREDUCE, .p2p = true };

FIXTURE_SETUP(ranks)
{
	memset(&self->j, 0, sizeof(self->j));
	self->j.kind = variant->kind;
	self->j.radix = variant->radix;
	self->j.root = variant->root;
	self->j.p2p = variant->p2p;
	self->j.one_segment = variant->one_segment;
}

FIXTURE_TEARDOWN(ranks)
{
}

TEST_F(ranks, every_rank_right_every_round)
{
	unsigned int r;
	int ret = th_boot_run_threads(variant->n, coll_rank, &self->j);

	for (r = 0; r < variant->n; r++) {
		EXPECT_EQ(0, self->j.results[r]) {
			TH_LOG("rank %u: %s", r, th_strerror(self->j.results[r]));
		}
		EXPECT_EQ(ROUNDS, self->j.rounds_ok[r]);
	}
	ASSERT_EQ(0, ret);
}

TEST_HARNESS_MAIN
