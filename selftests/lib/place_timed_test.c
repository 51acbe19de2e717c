// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * place_timed_test.c - the in-process provider's timed mode: placements
 * compiled into chains and run on the virtual clock take exactly the
 * makespan the placer predicted, for every algorithm and the per-job
 * trees, round after round, with results still right; the same run twice
 * gives the same clock; the mode is refused once vports exist, and with a
 * model that lacks a node or has a rate of zero.  Each job's measured
 * finish (th_place_exec_finishes()) is its predicted one.  The chains a
 * placement posts, described to the verifier (th_place_exec_describe()),
 * verify clean for every algorithm; a threshold raised past what its
 * inputs bring is found.  The timed mode is the in-process provider's:
 * on another provider the timed tests skip.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "lib_world.h"
#include <thverbs/place.h>
#include <thverbs/verbs.h>
#include <thverbs/verify.h>

#define NODES	8
#define ROUNDS	3
#define WAIT_NS	20000000000ULL

static const char jobs_text[] =
	"thjobs 1\n"
	"allreduce A members 0-5 root 0 bytes 4K radix 2\n"
	"allreduce B members 2-7 root 7 bytes 1K radix 4\n"
	"reduce R members 0-7 root 3 bytes 2K radix 8\n"
	"bcast C members 1,4,6 root 4 bytes 512\n"
	"dag G\n"
	"  step s1 copy 8K on 0\n  step s2 copy 8K on 1\n"
	"  step x reduce 2 8K\n  step y reduce 2 8K\n"
	"  step o1 copy 8K on 2\n  step o2 copy 8K on 3\n"
	"  edge s1 x 8K\n  edge s2 x 8K\n  edge x y 8K\n  edge s1 y 8K\n"
	"  edge y o1 8K\n  edge x o2 8K\n"
	"end\n";

/*
 * Heterogeneous, with hops that make duplication worth it; @nodes: the
 * fabric's (every node needs a rate) or the placement's first ones.
 */
static struct th_place_model *model(unsigned int nodes)
{
	struct th_place_model *m = th_place_model_create(nodes);
	unsigned int i;

	if (!m)
		return NULL;
	m->latency = 2e-6;
	m->descriptor = 5e-8;
	for (i = 0; i < nodes; i++)
		m->alu[i] = i % 3 ? 2e9 : 7e8;
	return m;
}

/*
 * The virtual makespan of each round of placement @r, in seconds; each
 * job's measured finish in the last round into @fin (r->njobs).
 */
/* The chains posted on the @n vports of @w so far. */
static uint64_t chains_posted(struct world *w, unsigned int n)
{
	struct th_stats st;
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!th_vport_stats(w->vp[i], &st))
			sum += st.chains_posted;
	return sum;
}

static int run_rounds(struct th_place_jobs *j, struct th_place_result *r,
		      struct world *w, double *t, double *fin, uint64_t *posted)
{
	uint64_t before = chains_posted(w, NODES);
	struct th_place_exec *x = th_place_exec_create(j, r, w->vp, NODES);
	unsigned int round;
	double t0;
	int ret = x ? 0 : -errno;

	*posted = chains_posted(w, NODES) - before;
	/* nothing measured before a round */
	if (!ret && th_place_exec_finishes(x, fin, r->njobs) != -ENODATA)
		ret = -EPROTO;
	for (round = 0; !ret && round < ROUNDS; round++) {
		t0 = th_place_timed_now();
		ret = th_place_exec_start(x);
		if (!ret)
			ret = th_place_exec_wait(x, WAIT_NS);
		t[round] = th_place_timed_now() - t0;
	}
	if (!ret && th_place_exec_finishes(x, fin, r->njobs + 1) != -EINVAL)
		ret = -EPROTO;
	if (!ret)
		ret = th_place_exec_finishes(x, fin, r->njobs);
	/* the sum still holds on the virtual clock */
	if (!ret) {
		double *y = th_place_exec_step_out(x, 4, 4);

		ret = y ? 0 : -ENOENT;
	}
	th_place_exec_destroy(x);
	return ret;
}

/*
 * Two layouts of the same placements: as on one host (the in-process
 * fabric's nodes are local: a copy's outputs share its chain), and as
 * over a network (TH_PLACE_SPLIT=1: each consumer on another node is
 * sent to from a chain of its own, which a description always shows).
 */
FIXTURE(layout) {
	int unused;
};

FIXTURE_VARIANT(layout) {
	const char *split;
};

FIXTURE_VARIANT_ADD(layout, one_host) {
	.split = "0",
};

FIXTURE_VARIANT_ADD(layout, as_over_a_network) {
	.split = "1",
};

FIXTURE_SETUP(layout)
{
	self->unused = 0;
	setenv("TH_PLACE_SPLIT", variant->split, 1);
}

FIXTURE_TEARDOWN(layout)
{
	unsetenv("TH_PLACE_SPLIT");
}

TEST_F(layout, measured_equals_predicted_on_the_virtual_clock)
{
	struct th_place_model *fabric = model(TH_PLACE_MAX_NODES);
	struct th_place_model *m = model(NODES);
	bool split = !strcmp(variant->split, "1");
	uint64_t posted_all = 0, described_all = 0;
	struct th_place_jobs *j;
	struct th_dag_diag d;
	struct world w = { 0 };
	struct th_nic_query q;
	unsigned int v, round, checked = 0;

	if (!world_inproc())
		SKIP(return, "the timed mode is the in-process provider's");
	setenv("TH_VERIFY_PLANS", "1", 1);	/* every compile verified first */
	ASSERT_NE(NULL, m);
	ASSERT_NE(NULL, fabric);
	j = th_place_jobs_parse(jobs_text, strlen(jobs_text), &d);
	ASSERT_NE(NULL, j);
	/* every node of the fabric needs a rate; a rate of 0 is no rate */
	EXPECT_EQ(-EINVAL, th_place_timed(m));
	fabric->alu[9] = 0;
	EXPECT_EQ(-EINVAL, th_place_timed(fabric));
	fabric->alu[9] = 2e9;
	EXPECT_EQ(-1.0, th_place_timed_now());	/* still real time */
	ASSERT_EQ(0, th_place_timed(fabric));
	ASSERT_EQ(0, world_open(&w, NODES));
	ASSERT_EQ(0, th_device_query(w.ctx[0], &q));
	/* the clock cannot change under live vports */
	EXPECT_EQ(-EBUSY, th_place_timed(NULL));
	for (v = 0; v <= TH_SCHED_NR_ALGS; v++) {
		bool trees = v == TH_SCHED_NR_ALGS;
		struct th_place_result *r;
		double t[ROUNDS], again[ROUNDS], fin[8], fin2[8];
		uint64_t posted, posted2;
		struct th_verify_set *set;
		unsigned int k;

		/* the per-job trees need every DAG step pinned: none here free */
		r = th_place_run(j, m, trees ? TH_PLACE_TREES : TH_PLACE_SCHEDULED,
				 trees ? TH_SCHED_HEFT : v);
		ASSERT_NE(NULL, r);
		ASSERT_EQ(0, run_rounds(j, r, &w, t, fin, &posted));
		ASSERT_EQ(0, run_rounds(j, r, &w, again, fin2, &posted2));
		EXPECT_EQ(posted, posted2);
		/* split, what is posted is what a description shows */
		set = th_place_exec_describe(j, r, &q);
		ASSERT_NE(NULL, set);
		if (split)
			EXPECT_EQ(set->nchains, posted) TH_LOG("%s",
				trees ? "trees" : th_sched_alg_name(v));
		posted_all += posted;
		described_all += set->nchains;
		th_place_exec_describe_free(set);
		/* each job finishes when the placer said, on the clock */
		ASSERT_EQ(5, r->njobs);
		for (k = 0; k < r->njobs; k++) {
			EXPECT_GT(fin[k], 0);
			EXPECT_LE(fin[k], t[ROUNDS - 1] + 1e-12);
			EXPECT_LE(fabs(fin[k] - r->job[k].finish),
				  1e-9 + 1e-6 * r->job[k].finish) {
				TH_LOG("%s job %u: measured %.6f us, predicted %.6f us",
				       trees ? "trees" : th_sched_alg_name(v), k,
				       fin[k] * 1e6, r->job[k].finish * 1e6);
			}
		}
		for (round = 0; round < ROUNDS; round++) {
			EXPECT_LE(fabs(t[round] - r->makespan),
				  1e-9 + 1e-6 * r->makespan) {
				TH_LOG("%s round %u: measured %.6f us, predicted %.6f us",
				       trees ? "trees" : th_sched_alg_name(v), round,
				       t[round] * 1e6, r->makespan * 1e6);
			}
			/* the same clock: differences of larger times, to 1 fs */
			EXPECT_LE(fabs(t[round] - again[round]), 1e-15 * 4);
			checked++;
		}
		th_place_result_destroy(r);
	}
	EXPECT_EQ((TH_SCHED_NR_ALGS + 1) * ROUNDS, checked);
	/* on one host, fewer chains: the consumers share the copy's */
	if (!split)
		EXPECT_LT(posted_all, described_all);
	world_close(&w, NODES);
	ASSERT_EQ(0, th_place_timed(NULL));
	EXPECT_EQ(-1.0, th_place_timed_now());
	th_place_jobs_destroy(j);
	th_place_model_destroy(m);
	th_place_model_destroy(fabric);
}

/* The NIC's default limits, as the in-process provider reports them. */
static void limits(struct th_nic_query *q)
{
	memset(q, 0, sizeof(*q));
	q->node_count = NODES;
	q->max_vports = 64;
	q->max_counters = 256;
	q->max_sq_entries = 1024;
	q->max_cq_entries = 1024;
	q->max_chain = 16;
}

TEST(described_chains_verify_and_a_broken_threshold_is_found)
{
	struct th_place_model *m = model(NODES);
	struct th_verify_finding f[8];
	struct th_place_jobs *j;
	struct th_dag_diag d;
	struct th_nic_query q;
	unsigned int v, c, i;

	ASSERT_NE(NULL, m);
	j = th_place_jobs_parse(jobs_text, strlen(jobs_text), &d);
	ASSERT_NE(NULL, j);
	limits(&q);
	for (v = 0; v <= TH_SCHED_NR_ALGS; v++) {
		bool trees = v == TH_SCHED_NR_ALGS;
		struct th_place_result *r;
		struct th_verify_set *set;
		struct th_nic_desc *broken;
		int n;

		r = th_place_run(j, m, trees ? TH_PLACE_TREES : TH_PLACE_SCHEDULED,
				 trees ? TH_SCHED_HEFT : v);
		ASSERT_NE(NULL, r);
		EXPECT_EQ(NULL, th_place_exec_describe(j, r, NULL));
		EXPECT_EQ(EINVAL, errno);
		set = th_place_exec_describe(j, r, &q);
		ASSERT_NE(NULL, set);
		ASSERT_GT(set->nchains, 0);
		ASSERT_GT(set->nactions, 0);
		n = th_verify(set, f, 8);
		for (i = 0; n > 0 && i < (unsigned int)n && i < 8; i++)
			if (!th_verify_class_is_warning(f[i].cls))
				TH_LOG("%s: %s: %s: %s", trees ? "trees" :
				       th_sched_alg_name(v),
				       th_verify_class_name(f[i].cls),
				       set->chains[f[i].chain].name, f[i].why);
		for (i = 0; n > 0 && i < (unsigned int)n && i < 8; i++)
			EXPECT_TRUE(th_verify_class_is_warning(f[i].cls));
		/* every chain is named for its task and node */
		for (c = 0; c < set->nchains; c++)
			EXPECT_NE(NULL, strstr(set->chains[c].name, "@n"));
		/*
		 * a chain that waits for one more input than anything brings:
		 * the chains are const to the verifier, not to their owner
		 */
		broken = (struct th_nic_desc *)set->chains[0].descs;
		broken->threshold += 1;
		n = th_verify(set, f, 8);
		ASSERT_GT(n, 0);
		EXPECT_EQ(TH_VERIFY_UNREACHABLE, f[0].cls);
		EXPECT_EQ(0, f[0].chain);
		th_place_exec_describe_free(set);
		th_place_result_destroy(r);
	}
	th_place_jobs_destroy(j);
	th_place_model_destroy(m);
}

/*
 * A copy with several consumers on other nodes sends to each from a chain
 * of its own (described chains stand for nodes behind a network, where a
 * chain waits for each delivery before its next descriptor): HEFT sums
 * shared-sum's two inputs once and delivers the sum to four nodes, three
 * of them remote.
 */
TEST(a_copy_sends_to_each_remote_consumer_from_a_chain_of_its_own)
{
	static const char shared_sum[] =
		"thjobs 1\n"
		"dag S\n"
		"  step in0 copy 16K on 0\n  step in1 copy 16K on 1\n"
		"  step sum reduce 2 16K\n"
		"  step out0 copy 16K on 0\n  step out1 copy 16K on 1\n"
		"  step out2 copy 16K on 2\n  step out3 copy 16K on 3\n"
		"  edge in0 sum 16K\n  edge in1 sum 16K\n"
		"  edge sum out0 16K\n  edge sum out1 16K\n"
		"  edge sum out2 16K\n  edge sum out3 16K\n"
		"end\n";
	struct th_place_model *m = th_place_model_create(4);
	const struct th_verify_chain *main_chain = NULL;
	unsigned int c, i, nsum = 0, sum_node = 0, seen = 0;
	struct th_place_result *r;
	struct th_verify_set *set;
	struct th_place_jobs *j;
	struct th_dag_diag d;
	struct th_nic_query q;

	ASSERT_NE(NULL, m);
	m->latency = 5e-5;
	j = th_place_jobs_parse(shared_sum, strlen(shared_sum), &d);
	ASSERT_NE(NULL, j);
	r = th_place_run(j, m, TH_PLACE_SCHEDULED, TH_SCHED_HEFT);
	ASSERT_NE(NULL, r);
	limits(&q);
	set = th_place_exec_describe(j, r, &q);
	ASSERT_NE(NULL, set);
	for (c = 0; c < set->nchains; c++) {
		const struct th_verify_chain *vc = &set->chains[c];
		unsigned int puts = 0, to = 0;

		if (strncmp(vc->name, "S.sum@n", 7))
			continue;
		nsum++;
		for (i = 0; i < vc->ndesc; i++)
			if (vc->descs[i].opcode == TH_NIC_OP_PUT) {
				puts++;
				to = vc->descs[i].xfer.node;
			}
		if (!strchr(vc->name, '/')) {	/* the sum itself: no PUT */
			main_chain = vc;
			sum_node = vc->node;
			EXPECT_EQ(0, puts) TH_LOG("%s", vc->name);
			continue;
		}
		/* one PUT each, to a node of its own, all on one counter */
		EXPECT_EQ(1, puts) TH_LOG("%s", vc->name);
		EXPECT_NE(vc->node, to);
		EXPECT_EQ(0, seen & (1u << to)) TH_LOG("%s: node %u twice", vc->name, to);
		seen |= 1u << to;
		EXPECT_EQ(1, vc->descs[0].threshold);
		if (c && strchr(set->chains[c - 1].name, '/'))
			EXPECT_EQ(set->chains[c - 1].descs[0].trig_ct,
				  vc->descs[0].trig_ct);
	}
	ASSERT_NE(NULL, main_chain);
	EXPECT_EQ(4, nsum);
	EXPECT_EQ(0xfu & ~(1u << sum_node), seen);
	th_place_exec_describe_free(set);
	th_place_result_destroy(r);
	th_place_jobs_destroy(j);
	th_place_model_destroy(m);
}

TEST_HARNESS_MAIN
