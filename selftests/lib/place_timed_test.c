// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * place_timed_test.c - the in-process provider's timed mode: placements
 * compiled into chains and run on the virtual clock take exactly the
 * makespan the placer predicted, for every algorithm and the per-job
 * trees, round after round, with results still right; the same run twice
 * gives the same clock; the mode is refused once vports exist, and with a
 * model that lacks a node or has a rate of zero.  The timed
 * mode is the in-process provider's: on another provider the test skips.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "lib_world.h"
#include <thverbs/place.h>
#include <thverbs/verbs.h>

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

/* The virtual makespan of each round of placement @r, in seconds. */
static int run_rounds(struct th_place_jobs *j, struct th_place_result *r,
		      struct world *w, double *t)
{
	struct th_place_exec *x = th_place_exec_create(j, r, w->vp, NODES);
	unsigned int round;
	double t0;
	int ret = x ? 0 : -errno;

	for (round = 0; !ret && round < ROUNDS; round++) {
		t0 = th_place_timed_now();
		ret = th_place_exec_start(x);
		if (!ret)
			ret = th_place_exec_wait(x, WAIT_NS);
		t[round] = th_place_timed_now() - t0;
	}
	/* the sum still holds on the virtual clock */
	if (!ret) {
		double *y = th_place_exec_step_out(x, 4, 4);

		ret = y ? 0 : -ENOENT;
	}
	th_place_exec_destroy(x);
	return ret;
}

TEST(measured_equals_predicted_on_the_virtual_clock)
{
	struct th_place_model *fabric = model(TH_PLACE_MAX_NODES);
	struct th_place_model *m = model(NODES);
	struct th_place_jobs *j;
	struct th_dag_diag d;
	struct world w = { 0 };
	unsigned int v, round, checked = 0;

	if (!world_inproc())
		SKIP(return, "the timed mode is the in-process provider's");
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
	/* the clock cannot change under live vports */
	EXPECT_EQ(-EBUSY, th_place_timed(NULL));
	for (v = 0; v <= TH_SCHED_NR_ALGS; v++) {
		bool trees = v == TH_SCHED_NR_ALGS;
		struct th_place_result *r;
		double t[ROUNDS], again[ROUNDS];

		/* the per-job trees need every DAG step pinned: none here free */
		r = th_place_run(j, m, trees ? TH_PLACE_TREES : TH_PLACE_SCHEDULED,
				 trees ? TH_SCHED_HEFT : v);
		ASSERT_NE(NULL, r);
		ASSERT_EQ(0, run_rounds(j, r, &w, t));
		ASSERT_EQ(0, run_rounds(j, r, &w, again));
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
	world_close(&w, NODES);
	ASSERT_EQ(0, th_place_timed(NULL));
	EXPECT_EQ(-1.0, th_place_timed_now());
	th_place_jobs_destroy(j);
	th_place_model_destroy(m);
	th_place_model_destroy(fabric);
}

TEST_HARNESS_MAIN
