// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fault_test.c - fault injection on the fabric: refusals of settings out
 * of range; a PUT whose every delivery is lost fails with -ETIMEDOUT after
 * its retries, raising the failure values of its own counters and of the
 * target's, the target untouched; delayed deliveries arrive once; lost
 * ones sent again arrive exactly once, with the same faults for the same
 * seed; a vport destroyed with chains parked does not wait for them; and
 * Allreduces of 16 ranks under 0.1 %, 1 % and 100 % loss each either give
 * the right data or fail with an error, never wrong data, never a hang,
 * and under 10 % delays (deliveries overtaking each other) all give it.
 * Statistics are checked with every fault.  Fault injection is set by a
 * library call on the in-process fabric, and over generic netlink on
 * th_nic.ko (thctl's client), where the Allreduces run too; the tests of
 * single PUTs are the in-process fabric's (netlink_test has th_nic.ko's).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "lib_world.h"
#include "nl.h"
#include <thverbs/verbs.h>

#define WAIT_NS		10000000000ULL
#define BUF		4096
#define CT_GO		1
#define CT_SENT		2
#define CT_ARRIVED	3

struct pair {
	struct world w;
	struct th_mr *src, *dst;
	char *sbuf, *dbuf;
	struct th_remote to;
};

/* Vports on nodes 0 and 1, a source on 0 and a target on 1. */
static int pair_open(struct pair *p)
{
	int ret;

	memset(p, 0, sizeof(*p));
	ret = world_open(&p->w, 2);
	if (ret)
		return ret;
	p->sbuf = malloc(BUF);
	p->dbuf = calloc(1, BUF);
	if (!p->sbuf || !p->dbuf)
		return -ENOMEM;
	memset(p->sbuf, 0x3c, BUF);
	p->src = th_mr_reg(p->w.vp[0], p->sbuf, BUF, 0);
	p->dst = th_mr_reg(p->w.vp[1], p->dbuf, BUF, TH_NIC_ACCESS_REMOTE_WRITE);
	if (!p->src || !p->dst)
		return -errno;
	p->to = (struct th_remote){ .node = th_vport_node(p->w.vp[1]),
				    .vport = th_vport_index(p->w.vp[1]),
				    .rkey = th_mr_rkey(p->dst) };
	return 0;
}

static void pair_close(struct pair *p)
{
	if (p->src)
		th_mr_dereg(p->src);
	if (p->dst)
		th_mr_dereg(p->dst);
	world_close(&p->w, 2);
	free(p->sbuf);
	free(p->dbuf);
}

/* Post @n PUTs of the buffer, each when CT_GO reaches its number. */
static int post_puts(struct pair *p, unsigned int n)
{
	struct th_chain *c = th_chain_create();
	unsigned int i;
	int ret = c ? 0 : -ENOMEM;

	for (i = 0; !ret && i < n; i++) {
		th_chain_reset(c);
		ret = th_chain_trigger(c, CT_GO, i + 1, i);
		if (!ret)
			ret = th_chain_put(c, p->src, 0, &p->to, BUF, CT_ARRIVED, 0);
		if (!ret)
			ret = th_chain_comp_ct(c, CT_SENT);
		if (!ret)
			ret = th_post_chain(p->w.vp[0], c);
	}
	th_chain_destroy(c);
	return ret;
}

/*
 * A chain is counted in the statistics when it retires, just after its last
 * descriptor advanced its completion counter: a waiter on that counter can
 * read the statistics before the count.  Read them until @done chains are
 * counted (at most 5 s), then return what they say.
 */
static int stats_after(struct th_vport *vp, uint64_t done, struct th_stats *st)
{
	int ret, i;

	for (i = 0; i < 5000; i++) {
		ret = th_vport_stats(vp, st);
		if (ret || st->chains_done >= done)
			return ret;
		usleep(1000);
	}
	return 0;
}

/*
 * The next CQ entry of @vp, waiting up to 5 s: a failed chain fails its
 * counters before it writes its entry, so a waiter on a counter can look
 * at the CQ before the entry is there.  1, or 0 if none came.
 */
static int poll_cq_bounded(struct th_vport *vp, struct th_nic_cqe *cqe)
{
	int n, i;

	for (i = 0; i < 5000; i++) {
		n = th_poll_cq(vp, cqe, 1);
		if (n)
			return n;
		usleep(1000);
	}
	return 0;
}

static bool inproc(struct world *w)
{
	return !strcmp(th_device_provider(w->devs[0]), "inproc");
}

FIXTURE(fault) {
	struct pair p;
};

FIXTURE_SETUP(fault)
{
	ASSERT_EQ(0, pair_open(&self->p));
}

/* Each test's first line: a skipped setup would not stop the test. */
#define NEED_INPROC() do {						\
	if (!inproc(&self->p.w))					\
		SKIP(return, "th_nic.ko's fault injection is set over netlink (thctl fault)"); \
} while (0)

FIXTURE_TEARDOWN(fault)
{
	struct th_fault off = { .vport = TH_FAULT_ANY_VPORT };

	if (self->p.w.ctx && self->p.w.ctx[0])
		th_fault_set(self->p.w.ctx[0], &off);
	pair_close(&self->p);
}

TEST_F(fault, settings_out_of_range_are_refused)
{
	struct th_context *ctx = self->p.w.ctx[0];
	struct th_fault f = { .vport = TH_FAULT_ANY_VPORT, .retries = 3,
			      .retry_ns = 1000000, .seed = 7 }, got;
	struct th_nic_query q;
	unsigned int i;

	NEED_INPROC();
	ASSERT_EQ(0, th_device_query(ctx, &q));
	for (i = 0; i < 6; i++) {
		struct th_fault b = f;

		switch (i) {
		case 0: b.drop_ppm = 1000001; break;
		case 1: b.drop_ppm = 600000; b.delay_ppm = 400001; break;
		case 2: b.delay_ns = 100000001; break;
		case 3: b.retry_ns = 100000001; break;
		case 4: b.retries = 17; break;
		default: b.vport = q.max_vports; break;
		}
		EXPECT_EQ(-EINVAL, th_fault_set(ctx, &b)) TH_LOG("case %u", i);
	}
	EXPECT_EQ(-EINVAL, th_fault_set(ctx, NULL));
	/* what was refused changed nothing; what is accepted reads back */
	ASSERT_EQ(0, th_fault_get(ctx, &got));
	EXPECT_EQ(0, got.drop_ppm);
	f.drop_ppm = 1000;
	f.delay_ppm = 2000;
	f.delay_ns = 5000;
	ASSERT_EQ(0, th_fault_set(ctx, &f));
	ASSERT_EQ(0, th_fault_get(ctx, &got));
	EXPECT_EQ(0, memcmp(&f, &got, sizeof(f)));
}

TEST_F(fault, a_put_lost_every_time_fails_after_its_retries)
{
	struct pair *p = &self->p;
	struct th_fault f = { .drop_ppm = 1000000, .retries = 3,
			      .retry_ns = 200000, .vport = TH_FAULT_ANY_VPORT };
	struct th_nic_cqe cqe;
	struct th_stats st;
	uint64_t ok, fail;
	char zero[BUF] = { 0 };

	NEED_INPROC();
	ASSERT_EQ(0, th_fault_set(p->w.ctx[0], &f));
	ASSERT_EQ(0, post_puts(p, 1));
	ASSERT_EQ(0, th_ct_inc(p->w.vp[0], CT_GO, 1));
	/* the waiter on the target fails instead of hanging */
	EXPECT_EQ(-EIO, th_ct_wait(p->w.vp[1], CT_ARRIVED, 1, WAIT_NS));
	ASSERT_EQ(0, th_ct_read(p->w.vp[1], CT_ARRIVED, &ok, &fail));
	EXPECT_EQ(0, ok);
	EXPECT_EQ(1, fail);
	ASSERT_EQ(0, th_ct_read(p->w.vp[0], CT_SENT, &ok, &fail));
	EXPECT_EQ(0, ok);
	EXPECT_EQ(1, fail);
	ASSERT_EQ(1, poll_cq_bounded(p->w.vp[0], &cqe));
	EXPECT_EQ(-ETIMEDOUT, cqe.status);
	EXPECT_EQ(0, memcmp(p->dbuf, zero, BUF));	/* untouched */
	ASSERT_EQ(0, th_vport_stats(p->w.vp[0], &st));
	EXPECT_EQ(4, st.faults_dropped);	/* the first send and 3 retries */
	EXPECT_EQ(3, st.retries);
	EXPECT_EQ(1, st.timeouts);
	EXPECT_EQ(1, st.chains_failed);
	EXPECT_EQ(0, st.bytes_put);
}

TEST_F(fault, a_delayed_put_arrives_once)
{
	struct pair *p = &self->p;
	struct th_fault f = { .delay_ppm = 1000000, .delay_ns = 2000000,
			      .vport = TH_FAULT_ANY_VPORT };
	struct th_stats st;
	uint64_t ok, fail;

	NEED_INPROC();
	ASSERT_EQ(0, th_fault_set(p->w.ctx[0], &f));
	ASSERT_EQ(0, post_puts(p, 3));
	ASSERT_EQ(0, th_ct_inc(p->w.vp[0], CT_GO, 3));
	ASSERT_EQ(0, th_ct_wait(p->w.vp[0], CT_SENT, 3, WAIT_NS));
	ASSERT_EQ(0, th_ct_read(p->w.vp[1], CT_ARRIVED, &ok, &fail));
	EXPECT_EQ(3, ok);
	EXPECT_EQ(0, fail);
	EXPECT_EQ(0, memcmp(p->dbuf, p->sbuf, BUF));
	ASSERT_EQ(0, stats_after(p->w.vp[0], 3, &st));
	EXPECT_EQ(3, st.faults_delayed);
	EXPECT_EQ(0, st.faults_dropped);
	EXPECT_EQ(3, st.chains_done);
	EXPECT_EQ(3 * BUF, st.bytes_put);
}

/* Half the deliveries lost, 16 retries: @n PUTs, and what was counted. */
static int lossy_run(struct pair *p, uint64_t seed, unsigned int n,
		     struct th_stats *st)
{
	struct th_fault f = { .drop_ppm = 500000, .retries = 16,
			      .retry_ns = 1000, .seed = seed,
			      .vport = TH_FAULT_ANY_VPORT };
	struct th_stats before;
	uint64_t ok, fail;
	int ret;

	ret = th_vport_stats(p->w.vp[0], &before);
	if (!ret)
		ret = th_fault_set(p->w.ctx[0], &f);
	if (!ret)
		ret = post_puts(p, n);
	if (!ret)
		ret = th_ct_set(p->w.vp[0], CT_GO, 0, 0);
	if (!ret)
		ret = th_ct_inc(p->w.vp[0], CT_GO, n);
	if (!ret)
		ret = th_ct_wait(p->w.vp[0], CT_SENT, n, WAIT_NS);
	if (!ret)
		ret = th_ct_read(p->w.vp[1], CT_ARRIVED, &ok, &fail);
	if (!ret && (ok != n || fail))
		ret = -EBADMSG;		/* each arrived exactly once */
	if (!ret)
		ret = th_vport_stats(p->w.vp[0], st);
	if (!ret) {
		st->faults_dropped -= before.faults_dropped;
		st->retries -= before.retries;
		st->timeouts -= before.timeouts;
	}
	return ret;
}

TEST_F(fault, lost_puts_sent_again_arrive_exactly_once)
{
	struct pair *p = &self->p;
	struct th_stats a, b;

	NEED_INPROC();
	ASSERT_EQ(0, lossy_run(p, 42, 200, &a));
	EXPECT_EQ(0, memcmp(p->dbuf, p->sbuf, BUF));
	EXPECT_GT(a.faults_dropped, 50);	/* about 200 at 50 % */
	EXPECT_EQ(a.faults_dropped, a.retries);
	EXPECT_EQ(0, a.timeouts);
	/* the counter restarts: the same seed meets the same faults */
	ASSERT_EQ(0, th_ct_set(p->w.vp[1], CT_ARRIVED, 0, 0));
	ASSERT_EQ(0, th_ct_set(p->w.vp[0], CT_SENT, 0, 0));
	ASSERT_EQ(0, lossy_run(p, 42, 200, &b));
	EXPECT_EQ(a.faults_dropped, b.faults_dropped);
	ASSERT_EQ(0, th_ct_set(p->w.vp[1], CT_ARRIVED, 0, 0));
	ASSERT_EQ(0, th_ct_set(p->w.vp[0], CT_SENT, 0, 0));
	ASSERT_EQ(0, lossy_run(p, 43, 200, &b));
	EXPECT_NE(a.faults_dropped, b.faults_dropped);
}

TEST_F(fault, a_vport_destroyed_with_chains_parked_cancels_them)
{
	struct pair *p = &self->p;
	struct th_fault f = { .drop_ppm = 1000000, .retries = 16,
			      .retry_ns = 100000000, .vport = TH_FAULT_ANY_VPORT };
	struct th_stats before, after;

	NEED_INPROC();
	ASSERT_EQ(0, th_fault_set(p->w.ctx[0], &f));
	ASSERT_EQ(0, post_puts(p, 4));
	ASSERT_EQ(0, th_node_stats(p->w.ctx[0], &before));
	ASSERT_EQ(0, th_ct_inc(p->w.vp[0], CT_GO, 4));	/* all parked */
	ASSERT_EQ(0, th_mr_dereg(p->src));
	p->src = NULL;
	ASSERT_EQ(0, th_vport_destroy(p->w.vp[0]));
	p->w.vp[0] = NULL;
	/* the node's totals keep what the vport counted */
	ASSERT_EQ(0, th_node_stats(p->w.ctx[0], &after));
	EXPECT_EQ(4, after.chains_cancelled - before.chains_cancelled);
	EXPECT_EQ(4, after.faults_dropped - before.faults_dropped);
	EXPECT_EQ(0, after.timeouts - before.timeouts);
}

/* ---- Allreduces under loss ------------------------------------------------ */

#define RANKS	16
#define COUNT	64
#define ROUNDS	1000

struct tally {
	unsigned int correct, failed, wrong, hung;
};

static double input(unsigned int rank, unsigned int round, unsigned int i)
{
	return (double)((rank * 13 + round * 5 + i) % 64);
}

/* A node's fault injection: the library's call, or th_nic.ko's netlink. */
static int fault_on(struct world *w, unsigned int node,
		    const struct th_fault *f)
{
	struct thnl n;
	int ret = th_fault_set(w->ctx[node], f);

	if (ret != -EOPNOTSUPP)
		return ret;
	ret = thnl_open(&n);
	if (!ret)
		ret = thnl_fault_set(&n, th_device_node(w->devs[node]), f);
	thnl_close(&n);
	return ret;
}

/*
 * @rounds Allreduces under @ppm loss on every node.  A handle that failed
 * is destroyed and a new one made for the next round (a failed collective
 * cannot be used again: its counters carry the failure).
 */
static int lossy_allreduces(uint32_t ppm, uint32_t delay_ppm,
			    unsigned int rounds, struct tally *t)
{
	struct th_coll_attr a = { .kind = TH_COLL_ALLREDUCE,
				  .op = TH_NIC_ALU_SUM,
				  .dtype = TH_NIC_DT_FLOAT64, .count = COUNT,
				  .radix = 4 };
	struct th_fault f = { .drop_ppm = ppm, .delay_ppm = delay_ppm,
			      .delay_ns = 50000, .retries = 3,
			      .retry_ns = 20000, .vport = TH_FAULT_ANY_VPORT };
	double *buf = calloc(2 * RANKS * COUNT, sizeof(double));
	void *send[RANKS], *recv[RANKS];
	struct th_coll *coll = NULL;
	unsigned int r, i, round;
	struct world w = { 0 };
	int ret, err;
	double want;

	ret = buf ? world_open(&w, RANKS) : -ENOMEM;
	for (i = 0; !ret && i < (unsigned int)w.ndev; i++) {
		f.seed = 1000 + i;
		if (w.ctx[i])
			ret = fault_on(&w, i, &f);
	}
	for (r = 0; r < RANKS && buf; r++) {
		send[r] = buf + r * COUNT;
		recv[r] = buf + (RANKS + r) * COUNT;
	}
	for (round = 0; !ret && round < rounds; round++) {
		if (!coll)
			coll = th_coll_create_local(w.vp, RANKS, &a, send, recv);
		if (!coll) {
			ret = -errno;
			break;
		}
		for (r = 0; r < RANKS; r++)
			for (i = 0; i < COUNT; i++) {
				((double *)send[r])[i] = input(r, round, i);
				((double *)recv[r])[i] = -1;
			}
		err = th_coll_start(coll);
		if (!err)
			err = th_coll_wait(coll, WAIT_NS);
		if (err == -ETIMEDOUT && !th_coll_wait(coll, 0))
			err = 0;
		if (err == -ETIMEDOUT) {
			t->hung++;
		} else if (err) {
			t->failed++;
		} else {
			bool same = true;

			for (r = 0; r < RANKS; r++)
				for (i = 0; i < COUNT; i++) {
					for (want = 0, ret = 0; ret < RANKS; ret++)
						want += input(ret, round, i);
					same &= ((double *)recv[r])[i] == want;
				}
			ret = 0;
			if (same)
				t->correct++;
			else
				t->wrong++;
		}
		if (err) {
			th_coll_destroy(coll);
			coll = NULL;
		}
	}
	th_coll_destroy(coll);
	f.drop_ppm = 0;
	f.delay_ppm = 0;
	for (i = 0; w.ctx && i < (unsigned int)w.ndev; i++)
		if (w.ctx[i])
			fault_on(&w, i, &f);
	world_close(&w, RANKS);
	free(buf);
	return ret;
}

FIXTURE(loss) {
	int unused;
};

FIXTURE_SETUP(loss)
{
}

FIXTURE_TEARDOWN(loss)
{
}

/*
 * Every failed round makes a new handle, and each failure waits out its
 * retries: minutes under the VM's emulation, not the harness's 30 s.
 */
TEST_F_TIMEOUT(loss, allreduces_are_right_or_fail_never_wrong_or_hung, 900)
{
	static const uint32_t ppm[] = { 1000, 10000, 1000000 };
	struct tally d = { 0 };
	unsigned int i;

	for (i = 0; i < 3; i++) {
		struct tally t = { 0 };

		ASSERT_EQ(0, lossy_allreduces(ppm[i], 0, ROUNDS, &t));
		TH_LOG("loss %.1f %%: %u correct, %u failed, %u wrong, %u hung",
		       ppm[i] / 1e4, t.correct, t.failed, t.wrong, t.hung);
		EXPECT_EQ(ROUNDS, t.correct + t.failed + t.wrong + t.hung);
		EXPECT_EQ(0, t.wrong);
		EXPECT_EQ(0, t.hung);
		if (ppm[i] == 1000000) {
			EXPECT_EQ(ROUNDS, t.failed);	/* nothing gets through */
		} else {
			EXPECT_GT(t.correct, 0);
		}
	}
	/*
	 * A tenth of the deliveries held back, so later ones overtake them:
	 * the collective counts deliveries, it does not order them.
	 */
	ASSERT_EQ(0, lossy_allreduces(0, 100000, ROUNDS / 5, &d));
	TH_LOG("delays 10 %%: %u correct, %u failed, %u wrong, %u hung",
	       d.correct, d.failed, d.wrong, d.hung);
	EXPECT_EQ(ROUNDS / 5, d.correct);
}

TEST_HARNESS_MAIN
