// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * timed_host_test.c - the host in the in-process provider's timed mode:
 * each command to the NIC costs the model's post, a wait for a later
 * counter update costs a wake-up after it, th_place_timed_advance() moves
 * the clock only forward; every thread keeps its own host clock, from 0
 * at each installation; and with ranks as threads, the host-driven p2p
 * tree and the offloaded Allreduce take, round after round, exactly the
 * times worked out by hand from the model, with results checked.  The
 * timed mode is the in-process provider's: on another provider the test
 * skips.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "lib_world.h"
#include <thverbs/boot.h>
#include <thverbs/hostcoll.h>
#include <thverbs/place.h>
#include <thverbs/verbs.h>

#define WAIT_NS	20000000000ULL
#define ROUNDS	3
#define RANKS	4
#define COUNT	1024		/* doubles: 8 KiB */

/* The model's costs, chosen so that every term is visible in a sum. */
#define POST	1e-6
#define WAKE	3e-6
#define DESC	5e-7
#define LAT	2e-6
#define BW	1e9
#define ALU	2e9
#define CPU	4e9

/* Every node of the fabric, with the costs above. */
static struct th_place_model *model(void)
{
	struct th_place_model *m;
	struct th_device **devs;
	unsigned int i;
	int n = 0;

	devs = th_device_list_get("inproc", &n);
	th_device_list_free(devs);
	m = n > 0 ? th_place_model_create(n) : NULL;
	if (!m)
		return NULL;
	for (i = 0; i < m->nodes; i++)
		m->alu[i] = ALU;
	m->descriptor = DESC;
	m->latency = LAT;
	m->bandwidth = BW;
	m->post = POST;
	m->wake = WAKE;
	m->cpu = CPU;
	return m;
}

/* Equal to the femtosecond the clock keeps, with rounding of each term. */
static bool same_time(double a, double b)
{
	return fabs(a - b) <= 1e-13;
}

TEST(host_commands_and_waits_cost_the_model)
{
	struct th_place_model *m;
	struct th_device **devs;
	struct th_context *ctx;
	struct th_vport *vp;
	struct th_mr *src, *dst;
	struct th_chain *c;
	struct th_remote to;
	static char buf[2][4096];
	double t, arrive;
	int n = 0;

	if (!world_inproc())
		SKIP(return, "the timed mode is the in-process provider's");
	m = model();
	ASSERT_NE(NULL, m);
	/* a model file may give the host's costs; negative ones are refused */
	m->wake = -1;
	EXPECT_EQ(-EINVAL, th_place_timed(m));
	m->wake = WAKE;
	ASSERT_EQ(0, th_place_timed(m));
	EXPECT_EQ(0.0, th_place_timed_now());
	devs = th_device_list_get("inproc", &n);
	ASSERT_NE(NULL, devs);
	ctx = th_device_open(devs[0]);
	ASSERT_NE(NULL, ctx);
	vp = th_vport_create(ctx, NULL);
	ASSERT_NE(NULL, vp);
	src = th_mr_reg(vp, buf[0], sizeof(buf[0]), 0);
	dst = th_mr_reg(vp, buf[1], sizeof(buf[1]), TH_NIC_ACCESS_REMOTE_WRITE);
	ASSERT_NE(NULL, src);
	ASSERT_NE(NULL, dst);
	memset(buf[0], 0x5a, sizeof(buf[0]));
	c = th_chain_create();
	ASSERT_NE(NULL, c);
	to = (struct th_remote){ .node = th_vport_node(vp),
				 .vport = th_vport_index(vp),
				 .rkey = th_mr_rkey(dst), .off = 0 };
	/* on counter 1: PUT the buffer to ourselves, raising counter 2 */
	ASSERT_EQ(0, th_chain_trigger(c, 1, 1, 0));
	ASSERT_EQ(0, th_chain_put(c, src, 0, &to, sizeof(buf[0]), 2, 0));
	ASSERT_EQ(0, th_post_chain(vp, c));
	t = th_place_timed_now();
	EXPECT_TRUE(same_time(t, POST)) TH_LOG("after a post: %.9g s", t);
	ASSERT_EQ(0, th_ct_inc(vp, 1, 1));
	t = th_place_timed_now();
	EXPECT_TRUE(same_time(t, 2 * POST)) TH_LOG("after an add: %.9g s", t);
	/* the PUT left at the add and arrived after its flight */
	arrive = 2 * POST + DESC + LAT + sizeof(buf[0]) / BW;
	ASSERT_EQ(0, th_ct_wait(vp, 2, 1, WAIT_NS));
	t = th_place_timed_now();
	EXPECT_TRUE(same_time(t, arrive + WAKE))
		TH_LOG("after the wait: %.9g s, want %.9g", t, arrive + WAKE);
	EXPECT_EQ(0, memcmp(buf[0], buf[1], sizeof(buf[0])));
	/* a counter seen already costs no wake-up */
	ASSERT_EQ(0, th_ct_wait(vp, 2, 1, WAIT_NS));
	EXPECT_TRUE(same_time(th_place_timed_now(), arrive + WAKE));
	/* computing: the clock moves forward only */
	EXPECT_EQ(0, th_place_timed_advance(1e-3));
	EXPECT_TRUE(same_time(th_place_timed_now(), 1e-3));
	EXPECT_EQ(0, th_place_timed_advance(1e-6));
	EXPECT_TRUE(same_time(th_place_timed_now(), 1e-3));
	EXPECT_EQ(-EINVAL, th_place_timed_advance(-1));
	EXPECT_EQ(-EINVAL, th_place_timed_advance(INFINITY));
	th_chain_destroy(c);
	EXPECT_EQ(0, th_mr_dereg(src));
	EXPECT_EQ(0, th_mr_dereg(dst));
	EXPECT_EQ(0, th_vport_destroy(vp));
	th_device_close(ctx);
	th_device_list_free(devs);
	ASSERT_EQ(0, th_place_timed(NULL));
	EXPECT_EQ(-ENOENT, th_place_timed_advance(1));
	th_place_model_destroy(m);
}

static void *other_thread(void *arg)
{
	double *seen = arg;

	seen[0] = th_place_timed_now();
	seen[1] = th_place_timed_advance(5e-3);
	seen[2] = th_place_timed_now();
	return NULL;
}

TEST(each_thread_keeps_its_own_clock)
{
	struct th_place_model *m;
	double seen[3];
	pthread_t t;

	if (!world_inproc())
		SKIP(return, "the timed mode is the in-process provider's");
	m = model();
	ASSERT_NE(NULL, m);
	ASSERT_EQ(0, th_place_timed(m));
	ASSERT_EQ(0, th_place_timed_advance(1e-3));
	ASSERT_EQ(0, pthread_create(&t, NULL, other_thread, seen));
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(0.0, seen[0]);		/* a new thread starts at 0 */
	EXPECT_EQ(0.0, seen[1]);
	EXPECT_TRUE(same_time(seen[2], 5e-3));
	EXPECT_TRUE(same_time(th_place_timed_now(), 1e-3));	/* untouched */
	/* installing the clock again starts every thread's at 0 */
	ASSERT_EQ(0, th_place_timed(m));
	EXPECT_EQ(0.0, th_place_timed_now());
	ASSERT_EQ(0, th_place_timed(NULL));
	EXPECT_EQ(-1.0, th_place_timed_now());
	th_place_model_destroy(m);
}

/* ---- ranks as threads on the virtual clock ----------------------------------- */

struct timed_job {
	bool p2p;
	double t[ROUNDS][RANKS];	/* each rank's time per round */
	int results[RANKS];
};

static int boot_allgather(void *arg, const void *mine, void *all, size_t len)
{
	return th_boot_allgather(arg, mine, all, len);
}

static double input(unsigned int rank, unsigned int round, unsigned int i)
{
	return (double)((rank * 5 + round * 3 + i) % 40);
}

/* A barrier in virtual time: every rank's clock moves to the latest. */
static int meet(struct th_boot *b, double *t0)
{
	double mine = th_place_timed_now(), all[RANKS];
	unsigned int r;
	int ret;

	ret = th_boot_allgather(b, &mine, all, sizeof(mine));
	for (*t0 = 0, r = 0; !ret && r < RANKS; r++)
		*t0 = all[r] > *t0 ? all[r] : *t0;
	return ret ? ret : th_place_timed_advance(*t0);
}

static int timed_rank(struct th_boot *b, void *arg)
{
	struct timed_job *j = arg;
	unsigned int rank = th_boot_rank(b), round, i, r;
	struct th_coll_attr a = { .kind = TH_COLL_ALLREDUCE,
				  .op = TH_NIC_ALU_SUM,
				  .dtype = TH_NIC_DT_FLOAT64, .count = COUNT,
				  .radix = 2 };
	double *send = calloc(2 * COUNT, sizeof(double)), *recv = send + COUNT;
	struct th_device **devs = NULL;
	struct th_context *ctx = NULL;
	struct th_vport *vp = NULL;
	struct th_coll *coll = NULL;
	struct th_hostcoll *p2p = NULL;
	double t0, want;
	int ndev = 0, ret;

	if (send)
		devs = th_device_list_get("inproc", &ndev);
	if (devs && ndev > RANKS)
		ctx = th_device_open(devs[rank]);
	if (ctx)
		vp = th_vport_create(ctx, NULL);
	if (vp && j->p2p)
		p2p = th_hostcoll_create(vp, rank, RANKS, boot_allgather, b, &a,
					 TH_HOSTCOLL_TREE, send, recv);
	else if (vp)
		coll = th_coll_create(vp, rank, RANKS, boot_allgather, b, &a,
				      send, recv);
	ret = coll || p2p ? 0 : -ENODEV;
	for (round = 0; round < ROUNDS; round++) {
		for (i = 0; i < COUNT && send; i++)
			send[i] = input(rank, round, i);
		/* every rank meets every round, even after a failure */
		if (meet(b, &t0) || ret)
			continue;
		ret = p2p ? th_hostcoll_run(p2p, WAIT_NS) : th_coll_start(coll);
		if (!ret && coll)
			ret = th_coll_wait(coll, WAIT_NS);
		j->t[round][rank] = th_place_timed_now() - t0;
		for (i = 0; !ret && i < COUNT; i++) {
			for (want = 0, r = 0; r < RANKS; r++)
				want += input(r, round, i);
			if (recv[i] != want)
				ret = -EBADMSG;
		}
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

/*
 * The binomial tree of 4 ranks: 0 over 1 and 2, 2 over 3.  One PUT of the
 * 8 KiB takes DESC + LAT + B / BW; every term below is one step of the
 * run, by hand.
 */
static double put_time(void)
{
	return DESC + LAT + COUNT * 8.0 / BW;
}

/*
 * The host-driven tree.  Leaves post at POST.  Rank 2 wakes on rank 3's
 * data, reduces 2 operands on the CPU, posts; rank 0 wakes on rank 2's
 * data (rank 1's came earlier) and reduces 3: the result is ready at
 * T0 = 2 POST + 2 PUT + 2 WAKE + 5 B / CPU.  Going down, rank 0 posts to
 * each child in the tree's order, rank 2 wakes and posts to rank 3, which
 * wakes; rank 2's own drain wakes it at the same time.
 */
static double p2p_by_hand(void)
{
	unsigned int kids[2], pos2;
	double b = COUNT * 8.0, t0, a1, a2, end;

	t0 = 2 * POST + 2 * put_time() + 2 * WAKE + 5 * b / CPU;
	if (th_tree_children(RANKS, 0, 2, 0, kids, 2) != 2)
		return -1;
	pos2 = kids[0] == 2 ? 0 : 1;
	a2 = t0 + (pos2 + 1) * POST + put_time();	/* rank 2 has it */
	a1 = t0 + (2 - pos2) * POST + put_time();	/* rank 1 has it */
	end = a2 + WAKE + POST + put_time() + WAKE;	/* ranks 2 and 3 */
	if (a1 + WAKE > end)
		end = a1 + WAKE;
	if (t0 + 2 * POST + put_time() + WAKE > end)	/* rank 0's drain */
		end = t0 + 2 * POST + put_time() + WAKE;
	return end;
}

/*
 * The offload: each host posts its start (POST); the leaves' NICs put to
 * their parents; rank 2's NIC reduces 2 operands, puts; rank 0's reduces 3
 * (each REDUCE a descriptor and its operand bytes at ALU) and sends the
 * result down, two hops to rank 3, whose host then wakes.
 */
static double offload_by_hand(void)
{
	double b = COUNT * 8.0;

	return POST + 4 * put_time() + 2 * DESC + 5 * b / ALU + WAKE;
}

TEST(ranks_as_threads_take_the_times_worked_out_by_hand)
{
	struct th_place_model *m;
	struct timed_job j;
	unsigned int v, round, r;

	if (!world_inproc())
		SKIP(return, "the timed mode is the in-process provider's");
	m = model();
	ASSERT_NE(NULL, m);
	ASSERT_EQ(0, th_place_timed(m));
	for (v = 0; v < 2; v++) {
		double want = v ? p2p_by_hand() : offload_by_hand(), slowest;

		memset(&j, 0, sizeof(j));
		j.p2p = v;
		ASSERT_EQ(0, th_boot_run_threads(RANKS, timed_rank, &j));
		for (r = 0; r < RANKS; r++)
			EXPECT_EQ(0, j.results[r]);
		for (round = 0; round < ROUNDS; round++) {
			for (slowest = 0, r = 0; r < RANKS; r++)
				if (j.t[round][r] > slowest)
					slowest = j.t[round][r];
			EXPECT_TRUE(same_time(slowest, want))
				TH_LOG("%s round %u: %.6f us, by hand %.6f us",
				       v ? "p2p" : "offload", round, slowest * 1e6,
				       want * 1e6);
		}
	}
	ASSERT_EQ(0, th_place_timed(NULL));
	th_place_model_destroy(m);
}

TEST_HARNESS_MAIN
