// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_sim_chains.c - th_sim_chains(), the simulator run on triggered
 * chains, against times worked out by hand under LogGP with the NIC's
 * costs: a put, a ping-pong, a get, the send and receive gaps, the
 * engine's firing order (threshold, then posting), results that do not
 * depend on the order chains are posted in, re-arming rounds, and the
 * refusals: a chain that never fires, a chain that feeds itself, bad
 * input; and GOAL schedules compiled into chains (th_sim_goal_chains()):
 * the README reduce and the allreduce's closed form offloaded, calc and
 * irequires, an idle rank, and what cannot be compiled.
 */
#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "kselftest_harness.h"
#include <thverbs/sim.h>

#define L_	2500ull
#define g_	1000ull
#define G_	6ull
#define D_	100ull		/* the NIC's time to start a descriptor */

static struct th_sim_params params(void)
{
	struct th_sim_params p;

	th_sim_params_default(&p);
	return p;
}

static struct th_sim_nic nic(void)
{
	struct th_sim_nic n = { .desc_ns = D_, .copy_ps = 100, .alu_ps = 250 };

	return n;
}

/* A PUT of @len bytes to (@node, vport 0), raising its counter @rct. */
static struct th_nic_desc put(uint16_t trig, uint64_t thr, uint32_t node,
			      uint64_t len, uint16_t rct)
{
	struct th_nic_desc d;

	memset(&d, 0, sizeof(d));
	d.opcode = TH_NIC_OP_PUT;
	d.trig_ct = trig;
	d.threshold = thr;
	d.flags = TH_NIC_DF_REMOTE_CT;
	d.xfer.node = node;
	d.xfer.len = len;
	d.xfer.remote_ct = rct;
	return d;
}

static struct th_nic_desc get(uint16_t trig, uint64_t thr, uint32_t node,
			      uint64_t len, uint16_t comp)
{
	struct th_nic_desc d;

	memset(&d, 0, sizeof(d));
	d.opcode = TH_NIC_OP_GET;
	d.trig_ct = trig;
	d.threshold = thr;
	d.flags = TH_NIC_DF_COMP_CT;
	d.comp_ct = comp;
	d.xfer.node = node;
	d.xfer.len = len;
	return d;
}

static struct th_nic_desc copy(uint16_t trig, uint64_t thr, uint64_t len)
{
	struct th_nic_desc d;

	memset(&d, 0, sizeof(d));
	d.opcode = TH_NIC_OP_COPY;
	d.trig_ct = trig;
	d.threshold = thr;
	d.copy.len = len;
	return d;
}

static struct th_nic_desc ct_op(uint8_t opcode, uint16_t trig, uint64_t thr,
				uint16_t ct, uint64_t value)
{
	struct th_nic_desc d;

	memset(&d, 0, sizeof(d));
	d.opcode = opcode;
	d.trig_ct = trig;
	d.threshold = thr;
	d.ct.ct = ct;
	d.ct.value = value;
	return d;
}

static struct th_nic_desc rearm(uint64_t stride)
{
	struct th_nic_desc d;

	memset(&d, 0, sizeof(d));
	d.opcode = TH_NIC_OP_REARM;
	d.rearm.stride = stride;
	return d;
}

static struct th_verify_chain chain(uint32_t node, const struct th_nic_desc *d,
				    uint32_t n)
{
	struct th_verify_chain c = { .node = node, .descs = d, .ndesc = n };

	return c;
}

static struct th_verify_action inc(uint32_t node, uint16_t ct, uint64_t by)
{
	struct th_verify_action a = { .counter = { .node = node, .ct = ct },
				      .value = by };

	return a;
}

/* runs @set; returns the error, fills @res and @done */
static int run(const struct th_verify_chain *c, uint32_t nc,
	       const struct th_verify_action *a, uint32_t na,
	       struct th_sim_result *res, uint64_t *done, char *err)
{
	struct th_verify_set set = { .chains = c, .nchains = nc,
				     .actions = a, .nactions = na };
	struct th_sim_params p = params();
	struct th_sim_nic n = nic();

	err[0] = '\0';
	return th_sim_chains(&set, &p, &n, res, done, err, 256);
}

/* host raises node 0's counter 0; its chain puts @len bytes to node 1 */
TEST(one_put)
{
	struct th_nic_desc d = put(0, 1, 1, 1, 3);
	struct th_verify_chain c = chain(0, &d, 1);
	struct th_verify_action a = inc(0, 0, 1);
	struct th_sim_result res;
	uint64_t done;
	char err[256];

	ASSERT_EQ(0, run(&c, 1, &a, 1, &res, &done, err)) TH_LOG("%s", err);
	ASSERT_EQ(2u, res.ranks);
	/* started at 0, issued after D, landed after L: no host o */
	EXPECT_EQ(D_ + L_, res.finish_ns[1]);
	EXPECT_EQ(D_ + L_, res.max_ns);
	EXPECT_EQ(D_, res.finish_ns[0]);
	EXPECT_EQ(D_ + L_, done);
	th_sim_result_fini(&res);

	/* 1 KiB: the last byte lands (n - 1) G later */
	d = put(0, 1, 1, 1024, 3);
	ASSERT_EQ(0, run(&c, 1, &a, 1, &res, &done, err)) TH_LOG("%s", err);
	EXPECT_EQ(D_ + L_ + 1023 * G_, res.max_ns);
	th_sim_result_fini(&res);
}

/* node 1's chain waits for the put and answers: two hops */
TEST(ping_pong)
{
	struct th_nic_desc ping = put(0, 1, 1, 8, 5);
	struct th_nic_desc pong = put(5, 1, 0, 8, 6);
	struct th_verify_chain c[2] = { chain(0, &ping, 1), chain(1, &pong, 1) };
	struct th_verify_action a = inc(0, 0, 1);
	struct th_sim_result res;
	uint64_t done[2];
	char err[256];

	ASSERT_EQ(0, run(c, 2, &a, 1, &res, done, err)) TH_LOG("%s", err);
	EXPECT_EQ(D_ + L_ + 7 * G_, done[0]);
	EXPECT_EQ(2 * (D_ + L_ + 7 * G_), done[1]);
	EXPECT_EQ(2 * (D_ + L_ + 7 * G_), res.max_ns);
	th_sim_result_fini(&res);
}

/* a GET: the request's L, the target's send, the reply's L and (n-1)G */
TEST(get_round_trip)
{
	struct th_nic_desc d = get(0, 1, 1, 100, 2);
	struct th_nic_desc note = ct_op(TH_NIC_OP_NOTIFY, 2, 1, 0, 0);
	struct th_verify_chain c[2] = { chain(0, &d, 1), chain(0, &note, 1) };
	struct th_verify_action a = inc(0, 0, 1);
	struct th_sim_result res;
	uint64_t done[2];
	char err[256];

	ASSERT_EQ(0, run(c, 2, &a, 1, &res, done, err)) TH_LOG("%s", err);
	EXPECT_EQ(D_ + 2 * L_ + 99 * G_, done[0]);
	/* the completion counter fired the second chain then */
	EXPECT_EQ(D_ + 2 * L_ + 99 * G_, done[1]);
	EXPECT_EQ(D_ + L_, res.finish_ns[1]);
	th_sim_result_fini(&res);
}

/* three chains fired at once on node 0: the NIC's send gap g spaces them */
TEST(send_gap_serialises)
{
	struct th_nic_desc d[3] = { put(0, 1, 1, 1, 0), put(0, 1, 2, 1, 0),
				    put(0, 1, 3, 1, 0) };
	struct th_verify_chain c[3] = { chain(0, &d[0], 1), chain(0, &d[1], 1),
					chain(0, &d[2], 1) };
	struct th_verify_action a = inc(0, 0, 1);
	struct th_sim_result res;
	char err[256];

	ASSERT_EQ(0, run(c, 3, &a, 1, &res, NULL, err)) TH_LOG("%s", err);
	ASSERT_EQ(4u, res.ranks);
	EXPECT_EQ(D_ + L_, res.finish_ns[1]);
	EXPECT_EQ(D_ + g_ + D_ + L_, res.finish_ns[2]);
	EXPECT_EQ(D_ + 2 * (g_ + D_) + L_, res.finish_ns[3]);
	th_sim_result_fini(&res);
}

/*
 * One chain, two puts and a notify: each descriptor waits for the one
 * before it to be delivered (the engine parks the chain on its delivery),
 * so the second put leaves once the first is in, and the notify, on node
 * 0, follows the second.
 */
TEST(chain_goes_on_after_delivery)
{
	struct th_nic_desc d[3] = { put(0, 1, 1, 1, 0), put(0, 1, 2, 1, 0),
				    ct_op(TH_NIC_OP_NOTIFY, 0, 1, 0, 0) };
	struct th_verify_chain c = chain(0, d, 3);
	struct th_verify_action a = inc(0, 0, 1);
	struct th_sim_result res;
	uint64_t done;
	char err[256];

	ASSERT_EQ(0, run(&c, 1, &a, 1, &res, &done, err)) TH_LOG("%s", err);
	EXPECT_EQ(D_ + L_, res.finish_ns[1]);
	EXPECT_EQ(2 * (D_ + L_), res.finish_ns[2]);
	EXPECT_EQ(2 * (D_ + L_), res.finish_ns[0]);
	EXPECT_EQ(2 * (D_ + L_), done);
	th_sim_result_fini(&res);
}

/* two puts land on node 2 at once: its receive gap takes them in turn */
TEST(receive_gap_serialises)
{
	struct th_nic_desc d0 = put(0, 1, 2, 1, 4);
	struct th_nic_desc d1 = put(0, 1, 2, 1, 4);
	struct th_nic_desc wait2 = ct_op(TH_NIC_OP_NOTIFY, 4, 2, 0, 0);
	struct th_verify_chain c[3] = { chain(0, &d0, 1), chain(1, &d1, 1),
					chain(2, &wait2, 1) };
	struct th_verify_action a[2] = { inc(0, 0, 1), inc(1, 0, 1) };
	struct th_sim_result res;
	uint64_t done[3];
	char err[256];

	ASSERT_EQ(0, run(c, 3, a, 2, &res, done, err)) TH_LOG("%s", err);
	EXPECT_EQ(D_ + L_, done[0]);
	EXPECT_EQ(D_ + L_ + g_, done[1]);
	EXPECT_EQ(D_ + L_ + g_, done[2]);
	th_sim_result_fini(&res);
}

/*
 * Two chains on one counter, posted threshold 2 first: an increment by 2
 * releases both, threshold 1 first (the engine's order), and their copies
 * share the node's engine.
 */
TEST(threshold_then_posting_order)
{
	struct th_nic_desc hi = copy(0, 2, 1000);
	struct th_nic_desc lo = copy(0, 1, 1000);
	struct th_verify_chain c[2] = { chain(0, &hi, 1), chain(0, &lo, 1) };
	struct th_verify_action a = inc(0, 0, 2);
	struct th_sim_result res;
	uint64_t done[2], one = D_ + 1000 * 100 / 1000;
	char err[256];

	ASSERT_EQ(0, run(c, 2, &a, 1, &res, done, err)) TH_LOG("%s", err);
	EXPECT_EQ(one, done[1]);
	EXPECT_EQ(2 * one, done[0]);
	th_sim_result_fini(&res);
}

/*
 * Virtual time, not posting order: a copy triggered late (by a put that
 * lands at D + L) and one triggered at 0 on the same node give the same
 * times whichever is posted first.
 */
TEST(posting_order_does_not_matter)
{
	struct th_nic_desc p = put(0, 1, 1, 1, 1);
	struct th_nic_desc late = copy(1, 1, 50000);
	struct th_nic_desc early = copy(2, 1, 50000);
	struct th_verify_chain a1[3] = { chain(0, &p, 1), chain(1, &late, 1),
					 chain(1, &early, 1) };
	struct th_verify_chain a2[3] = { chain(0, &p, 1), chain(1, &early, 1),
					 chain(1, &late, 1) };
	struct th_verify_action a[2] = { inc(0, 0, 1), inc(1, 2, 1) };
	struct th_sim_result r1, r2;
	uint64_t d1[3], d2[3], work = D_ + 50000 * 100 / 1000;
	char err[256];

	ASSERT_EQ(0, run(a1, 3, a, 2, &r1, d1, err)) TH_LOG("%s", err);
	ASSERT_EQ(0, run(a2, 3, a, 2, &r2, d2, err)) TH_LOG("%s", err);
	/* the early copy holds the engine from 0; the late one waits */
	EXPECT_EQ(work, d1[2]);
	EXPECT_EQ(2 * work, d1[1]);
	EXPECT_EQ(d1[1], d2[2]);
	EXPECT_EQ(d1[2], d2[1]);
	EXPECT_EQ(r1.max_ns, r2.max_ns);
	th_sim_result_fini(&r1);
	th_sim_result_fini(&r2);
}

/* a re-arming chain fires once per stride the host pays: 3 rounds */
TEST(rearm_rounds)
{
	struct th_nic_desc d[2] = { copy(0, 1, 1000), rearm(1) };
	struct th_nic_desc count = ct_op(TH_NIC_OP_CT_INC, 0, 1, 7, 1);
	struct th_nic_desc d2[3] = { d[0], count, rearm(1) };
	struct th_nic_desc seen = ct_op(TH_NIC_OP_NOTIFY, 7, 3, 0, 0);
	struct th_verify_chain c[2] = { chain(0, d2, 3), chain(0, &seen, 1) };
	struct th_verify_action a = inc(0, 0, 3);
	struct th_sim_result res;
	uint64_t done[2], one = D_ + 1000 * 100 / 1000;
	char err[256];

	(void)d;
	ASSERT_EQ(0, run(c, 2, &a, 1, &res, done, err)) TH_LOG("%s", err);
	/* the rounds run one after another: counter 7 reaches 3 at 3 copies */
	EXPECT_EQ(3 * one, done[0]);
	EXPECT_EQ(3 * one, done[1]);
	th_sim_result_fini(&res);
}

TEST(never_fires_is_edeadlk)
{
	struct th_nic_desc d = put(0, 2, 1, 1, 0);
	struct th_verify_chain c = chain(0, &d, 1);
	struct th_verify_action a = inc(0, 0, 1);
	struct th_sim_result res;
	uint64_t done = 0;
	char err[256];

	c.name = "stuck";
	ASSERT_EQ(-EDEADLK, run(&c, 1, &a, 1, &res, &done, err));
	EXPECT_EQ(UINT64_MAX, done);
	EXPECT_NE(NULL, strstr(err, "stuck")) TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(err, "reach 2, which ended at 1")) TH_LOG("%s", err);
	th_sim_result_fini(&res);
}

TEST(self_feeding_rearm_is_eloop)
{
	struct th_nic_desc d[2] = { ct_op(TH_NIC_OP_CT_INC, 0, 1, 0, 1),
				    rearm(1) };
	struct th_verify_chain c = chain(0, d, 2);
	struct th_verify_action a = inc(0, 0, 1);
	struct th_sim_result res;
	char err[256];

	ASSERT_EQ(-ELOOP, run(&c, 1, &a, 1, &res, NULL, err));
	EXPECT_NE(NULL, strstr(err, "feeds itself")) TH_LOG("%s", err);
}

TEST(refusals)
{
	struct th_nic_desc d = put(0, 1, 1, 1, 0);
	struct th_verify_chain c = chain(0, &d, 1);
	struct th_verify_set set = { .chains = &c, .nchains = 1 };
	struct th_sim_params p = params();
	struct th_sim_result res;
	char err[256];

	EXPECT_EQ(-EINVAL, th_sim_chains(NULL, &p, NULL, &res, NULL, err, sizeof(err)));
	EXPECT_EQ(-EINVAL, th_sim_chains(&set, NULL, NULL, &res, NULL, err, sizeof(err)));
	c.ndesc = 0;
	EXPECT_EQ(-EINVAL, th_sim_chains(&set, &p, NULL, &res, NULL, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "no descriptors")) TH_LOG("%s", err);
	c.ndesc = 1;
	d.opcode = TH_NIC_OP_MAX;
	EXPECT_EQ(-EINVAL, th_sim_chains(&set, &p, NULL, &res, NULL, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "unknown")) TH_LOG("%s", err);
	set.nchains = 1;
	set.chains = NULL;
	EXPECT_EQ(-EINVAL, th_sim_chains(&set, &p, NULL, &res, NULL, err, sizeof(err)));
	d = put(0, 1, 1u << 30, 1, 0);
	c.descs = &d;
	set.chains = &c;
	EXPECT_EQ(-E2BIG, th_sim_chains(&set, &p, NULL, &res, NULL, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "node")) TH_LOG("%s", err);
}

/* ---- GOAL compiled into chains (th_sim_goal_chains) ---- */

/* compiles @goal and runs it: 0 or the error; @res filled on success */
static int run_goal(const struct th_sim_goal *goal, struct th_sim_result *res,
		    char *err)
{
	struct th_sim_params p = params();
	struct th_sim_nic n = nic();
	struct th_sim_chainset *cs;
	int ret;

	ret = th_sim_goal_chains(goal, &n, &cs, err, 256);
	if (ret)
		return ret;
	ret = th_sim_chains(th_sim_chainset_set(cs), &p, &n, res, NULL, err, 256);
	th_sim_chainset_destroy(cs);
	return ret;
}

static int parse(const char *text, struct th_sim_goal **g, char *err)
{
	return th_sim_goal_parse(text, strlen(text), "t.goal", g, err, 256);
}

/*
 * LogGOPSim's README reduce (8 ranks, 1024 B) offloaded: three hops of
 * D + L + 1023 G (the host's 34,914 ns has 2o a hop instead of D), the
 * receive gaps never in the way.
 */
TEST(goal_reduce_offloaded)
{
	struct th_sim_result res;
	struct th_sim_goal *g;
	char err[256];

	ASSERT_EQ(0, th_sim_goal_gen("reduce", 8, 2, 1024, &g, err, sizeof(err)));
	ASSERT_EQ(0, run_goal(g, &res, err)) TH_LOG("%s", err);
	EXPECT_EQ(8u, res.ranks);
	EXPECT_EQ(3 * (D_ + L_ + 1023 * G_), res.max_ns);
	EXPECT_EQ(res.max_ns, res.finish_ns[0]);
	/* the leaves are done once they sent */
	EXPECT_EQ(D_, res.finish_ns[7]);
	th_sim_result_fini(&res);
	th_sim_goal_destroy(g);
}

/* a binomial allreduce of 8 B offloaded: 2 log2 P (D + L + 7G), P = 2..1024 */
TEST(goal_allreduce_offloaded_closed_form)
{
	unsigned int k;

	for (k = 1; k <= 10; k++) {
		struct th_sim_result res;
		struct th_sim_goal *g;
		char err[256];

		ASSERT_EQ(0, th_sim_goal_gen("allreduce", 1u << k, 2, 8, &g, err,
					     sizeof(err)));
		ASSERT_EQ(0, run_goal(g, &res, err)) TH_LOG("%s", err);
		EXPECT_EQ(2 * k * (D_ + L_ + 7 * G_), res.max_ns) TH_LOG("P = %u", 1u << k);
		th_sim_result_fini(&res);
		th_sim_goal_destroy(g);
	}
}

/*
 * requires and irequires, a calc, a rank with nothing to do: l2 (a calc
 * of 5000 ns) starts once l1 started (irequires), l3 sends once l2 is
 * done, rank 1 receives.
 */
TEST(goal_calc_irequires_and_an_idle_rank)
{
	static const char text[] =
		"num_ranks 3\n"
		"rank 0 {\n"
		"l1: send 8b to 1 tag 0\n"
		"l2: calc 5000\n"
		"l3: send 8b to 1 tag 1\n"
		"l2 irequires l1\n"
		"l3 requires l2\n"
		"}\n"
		"rank 1 {\n"
		"l1: recv 8b from 0 tag 0\n"
		"l2: recv 8b from 0 tag 1\n"
		"}\n"
		"rank 2 {\n"
		"}\n";
	struct th_sim_result res;
	struct th_sim_goal *g;
	char err[256];

	ASSERT_EQ(0, parse(text, &g, err)) TH_LOG("%s", err);
	ASSERT_EQ(0, run_goal(g, &res, err)) TH_LOG("%s", err);
	EXPECT_EQ(3u, res.ranks);
	EXPECT_EQ(0u, res.finish_ns[2]);
	/*
	 * One descriptor at a time on the engine: it issues l1 (D), then
	 * runs the calc (D + 5000), then issues l3, which arrives L + 7G on
	 */
	EXPECT_EQ(D_ + D_ + 5000 + D_ + L_ + 7 * G_, res.max_ns);
	th_sim_result_fini(&res);
	th_sim_goal_destroy(g);
}

/* @set as GOAL text (th_sim_chains_goal(), th_sim_goal_write()), or NULL */
static char *goal_of(const struct th_verify_set *set, int *ret, char *err)
{
	struct th_sim_nic n = nic();
	struct th_sim_goal *g;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	*ret = th_sim_chains_goal(set, &n, &g, err, 256);
	if (*ret)
		return NULL;
	f = open_memstream(&buf, &len);
	if (f) {
		*ret = th_sim_goal_write(g, f);
		fclose(f);
	}
	th_sim_goal_destroy(g);
	return buf;
}

/*
 * Chains as GOAL: node 0's host start fires a PUT to node 1, whose chain
 * (waiting for it) copies 1000 bytes and puts back; node 0's last chain
 * waits for that.  The text says so, operation by operation, and the
 * host-driven run of it is the LogGP sum for two messages and a calc.
 */
TEST(chains_as_goal)
{
	struct th_nic_desc ping = put(0, 1, 1, 8, 5);
	struct th_nic_desc work[2] = { copy(5, 1, 1000), put(0, 0, 0, 8, 6) };
	struct th_nic_desc last = ct_op(TH_NIC_OP_CT_INC, 6, 1, 7, 1);
	struct th_verify_chain c[3] = {
		chain(0, &ping, 1), chain(1, work, 2), chain(0, &last, 1),
	};
	struct th_verify_action a = inc(0, 0, 1);
	struct th_verify_set set = { .chains = c, .nchains = 3,
				     .actions = &a, .nactions = 1 };
	static const char want[] =
		"num_ranks 2\n\n"
		"rank 0 {\n"
		"l1: send 8b to 1 tag 0\n"
		"l2: recv 8b from 1 tag 1\n"
		"l3: calc 0\n"
		"l3 requires l2\n"
		"}\n\n"
		"rank 1 {\n"
		"l1: recv 8b from 0 tag 0\n"
		"l2: calc 200\n"
		"l3: send 8b to 0 tag 1\n"
		"l2 requires l1\n"
		"l3 requires l2\n"
		"}\n";
	struct th_sim_params p = params();
	struct th_sim_result res;
	struct th_sim_goal *g;
	char err[256];
	char *text;
	int ret;

	text = goal_of(&set, &ret, err);
	ASSERT_EQ(0, ret) TH_LOG("%s", err);
	ASSERT_NE(NULL, text);
	EXPECT_STREQ(want, text);
	/* and it runs host-driven: o + L + o, the calc, o + L + o, the calc 0 */
	ASSERT_EQ(0, th_sim_goal_parse(text, strlen(text), "t", &g, err, 256))
		TH_LOG("%s", err);
	ASSERT_EQ(0, th_sim_run(g, &p, &res, err, 256)) TH_LOG("%s", err);
	EXPECT_EQ(2 * (1500 + L_ + 7 * G_ + 1500) + 200, res.finish_ns[0]);
	th_sim_result_fini(&res);
	th_sim_goal_destroy(g);
	free(text);
}

/*
 * Chains that fire together keep their posting order in GOAL: node 0's
 * host start fires a copy-then-put chain and, posted after it, a put of
 * its own; the second's send irequires the first's (it starts once the
 * first message started, not before the copy is done), and a third chain
 * of no message is required whole by the one after it.
 */
TEST(chains_that_fire_together_keep_their_posting_order)
{
	struct th_nic_desc first[2] = { copy(0, 1, 1000), put(0, 0, 1, 8, 5) };
	struct th_nic_desc second = put(0, 1, 2, 8, 5);
	struct th_nic_desc third = ct_op(TH_NIC_OP_CT_INC, 0, 1, 9, 1);
	struct th_nic_desc fourth = put(0, 1, 1, 16, 6);
	struct th_verify_chain c[4] = {
		chain(0, first, 2), chain(0, &second, 1), chain(0, &third, 1),
		chain(0, &fourth, 1),
	};
	struct th_verify_action a = inc(0, 0, 1);
	struct th_verify_set set = { .chains = c, .nchains = 4,
				     .actions = &a, .nactions = 1 };
	static const char want_rank0[] =
		"rank 0 {\n"
		"l1: calc 200\n"
		"l2: send 8b to 1 tag 0\n"
		"l3: send 8b to 2 tag 1\n"
		"l4: calc 0\n"
		"l5: send 16b to 1 tag 2\n"
		"l2 requires l1\n"
		"l3 irequires l2\n"
		"l4 irequires l3\n"
		"l5 requires l4\n"
		"}\n";
	char err[256];
	char *text;
	int ret;

	text = goal_of(&set, &ret, err);
	ASSERT_EQ(0, ret) TH_LOG("%s", err);
	ASSERT_NE(NULL, text);
	EXPECT_NE(NULL, strstr(text, want_rank0)) TH_LOG("%s", text);
	free(text);
}

/*
 * Where the order cannot be kept: chains A and B fire together on ct 0
 * >= 1, B raises ct 0 again and C waits for 2.  GOAL makes A wait for
 * every raiser, B's raise among them, so A before B would be a cycle:
 * the order is dropped and the set still has its GOAL, with no irequires.
 */
TEST(chains_whose_order_goal_cannot_keep_still_have_a_goal)
{
	struct th_nic_desc a = put(0, 1, 1, 8, 5);
	struct th_nic_desc b = ct_op(TH_NIC_OP_CT_INC, 0, 1, 0, 1);
	struct th_nic_desc c = put(0, 2, 1, 8, 6);
	struct th_verify_chain ch[3] = {
		chain(0, &a, 1), chain(0, &b, 1), chain(0, &c, 1),
	};
	struct th_verify_action act = inc(0, 0, 1);
	struct th_verify_set set = { .chains = ch, .nchains = 3,
				     .actions = &act, .nactions = 1 };
	char err[256];
	char *text;
	int ret;

	text = goal_of(&set, &ret, err);
	ASSERT_EQ(0, ret) TH_LOG("%s", err);
	ASSERT_NE(NULL, text);
	EXPECT_EQ(NULL, strstr(text, "irequires")) TH_LOG("%s", text);
	free(text);
}

/*
 * What has no GOAL order: a chain whose counter a round never raises to
 * its threshold (EDEADLK), two chains that each raise the other's
 * counter (ELOOP); and no set (EINVAL).
 */
TEST(chains_as_goal_refusals)
{
	struct th_nic_desc one = ct_op(TH_NIC_OP_CT_INC, 0, 2, 1, 1);
	struct th_nic_desc x = ct_op(TH_NIC_OP_CT_INC, 0, 1, 1, 1);
	struct th_nic_desc y = ct_op(TH_NIC_OP_CT_INC, 1, 1, 0, 1);
	struct th_verify_chain c[2] = { chain(0, &x, 1), chain(0, &y, 1) };
	struct th_verify_action a = inc(0, 0, 1);
	struct th_verify_set set = { .chains = c, .nchains = 1,
				     .actions = &a, .nactions = 1 };
	struct th_sim_goal *g = NULL;
	char err[256];
	int ret;

	c[0] = chain(0, &one, 1);
	c[0].name = "short";
	EXPECT_EQ(NULL, goal_of(&set, &ret, err));
	EXPECT_EQ(-EDEADLK, ret);
	EXPECT_NE(NULL, strstr(err, "short")) TH_LOG("%s", err);
	c[0] = chain(0, &x, 1);
	set.nchains = 2;
	set.nactions = 0;
	EXPECT_EQ(NULL, goal_of(&set, &ret, err));
	EXPECT_EQ(-ELOOP, ret) TH_LOG("%s", err);
	EXPECT_EQ(-EINVAL, th_sim_chains_goal(NULL, NULL, &g, err, 256));
	EXPECT_EQ(-EINVAL, th_sim_chains_goal(&set, NULL, NULL, err, 256));
	EXPECT_EQ(NULL, g);
}

TEST(goal_refusals)
{
	struct th_sim_chainset *cs;
	struct th_sim_goal *g;
	struct th_sim_nic n = nic();
	char err[256];

	ASSERT_EQ(0, parse("num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 0\n}\n"
			   "rank 1 {\nl1: recv 8b from -1 tag 0\n}\n", &g, err));
	EXPECT_EQ(-EINVAL, th_sim_goal_chains(g, &n, &cs, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "receive from any peer")) TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(err, "line 6")) TH_LOG("%s", err);
	th_sim_goal_destroy(g);

	ASSERT_EQ(0, parse("num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 0\n}\n"
			   "rank 1 {\nl1: recv 8b from 0 tag 3\n}\n", &g, err));
	EXPECT_EQ(-EDEADLK, th_sim_goal_chains(g, &n, &cs, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "a send, has no matching receive")) TH_LOG("%s", err);
	n.copy_ps = 0;
	EXPECT_EQ(-EINVAL, th_sim_goal_chains(g, &n, &cs, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "copy rate")) TH_LOG("%s", err);
	th_sim_goal_destroy(g);
	EXPECT_EQ(-EINVAL, th_sim_goal_chains(NULL, NULL, &cs, err, sizeof(err)));
}

TEST_HARNESS_MAIN
