// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * place_fair_timed_test.c - the placer's compositions and its fairness
 * policy give placements that run: each one, compiled into chains and run
 * on the in-process provider's virtual clock, takes exactly the makespan
 * predicted, and so does the trees schedule the floor adopts as the
 * merged DAG's.  Release times are the prediction's only (the executor starts
 * every job at once), so these jobs have none.  The timed mode is the
 * in-process provider's: on another provider the test skips, saying so.
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
#define WAIT_NS	20000000000ULL

/* A big Allreduce beside small jobs on its nodes, one of priority 2. */
static const char jobs_text[] =
	"thjobs 1\n"
	"allreduce BIG members 0-7 root 0 bytes 64K radix 2\n"
	"bcast S1 members 1,4,6 root 4 bytes 1K\n"
	"allreduce S2 members 2,3,5 root 3 bytes 2K priority 2\n"
	"reduce S3 members 5-7 root 6 bytes 1K\n";

/* The virtual time one round of placement @r takes, in seconds. */
static int run_round(struct th_place_jobs *j, struct th_place_result *r,
		     struct world *w, double *t)
{
	struct th_place_exec *x = th_place_exec_create(j, r, w->vp, NODES);
	double t0;
	int ret = x ? 0 : -errno;

	if (!ret) {
		t0 = th_place_timed_now();
		ret = th_place_exec_start(x);
		if (!ret)
			ret = th_place_exec_wait(x, WAIT_NS);
		*t = th_place_timed_now() - t0;
	}
	th_place_exec_destroy(x);
	return ret;
}

TEST(every_composition_runs_in_its_predicted_time)
{
	struct th_place_model *fabric = th_place_model_create(TH_PLACE_MAX_NODES);
	struct th_place_model *m = th_place_model_create(NODES);
	struct th_place_opts o = { 0 };
	struct world w = { 0 };
	struct th_place_jobs *j;
	struct th_dag_diag d;
	unsigned int c, checked = 0, from_trees = 0;

	if (!world_inproc())
		SKIP(return, "the timed mode is the in-process provider's");
	ASSERT_NE(NULL, fabric);
	ASSERT_NE(NULL, m);
	/* hops dear enough that where a combining step runs matters */
	fabric->latency = m->latency = 2e-6;
	j = th_place_jobs_parse(jobs_text, strlen(jobs_text), &d);
	ASSERT_NE(NULL, j);
	ASSERT_EQ(0, th_place_timed(fabric));
	ASSERT_EQ(0, world_open(&w, NODES));
	/* each composition, then the fairness policy, then with the floor */
	for (c = 0; c < TH_PLACE_COMPOSE_NR + 2; c++) {
		struct th_place_result *r;
		double t;

		o.compose = c < TH_PLACE_COMPOSE_NR ? c : TH_PLACE_COMPOSE_MERGED;
		o.fairness = c == TH_PLACE_COMPOSE_NR ? 2 : 0;
		o.floor = c == TH_PLACE_COMPOSE_NR + 1;
		r = th_place_run_opts(j, m, TH_PLACE_SCHEDULED, TH_SCHED_HEFT, &o);
		ASSERT_NE(NULL, r);
		from_trees += r->from_trees;
		ASSERT_EQ(0, run_round(j, r, &w, &t));
		EXPECT_LE(fabs(t - r->makespan), 1e-9 + 1e-6 * r->makespan) {
			TH_LOG("round %u (%s): measured %.6f us, predicted %.6f us",
			       c, th_place_compose_name(r->compose), t * 1e6,
			       r->makespan * 1e6);
		}
		checked++;
		th_place_result_destroy(r);
	}
	EXPECT_EQ(TH_PLACE_COMPOSE_NR + 2, checked);
	world_close(&w, NODES);
	ASSERT_EQ(0, th_place_timed(NULL));
	th_place_jobs_destroy(j);
	th_place_model_destroy(m);
	th_place_model_destroy(fabric);
	TH_LOG("%u placement(s) from the trees", from_trees);
}

/*
 * Two Allreduces over overlapping nodes, where HEFT's own schedule is
 * longer than the trees (placement.rst, "The floor"): the trees schedule
 * the floor adopts runs as a placement of the merged DAG.
 */
TEST(the_trees_schedule_the_floor_adopts_runs)
{
	static const char two[] =
		"thjobs 1\n"
		"allreduce A members 0-2 root 0 bytes 64K radix 2\n"
		"allreduce B members 1-3 root 3 bytes 64K radix 2\n";
	struct th_place_model *fabric = th_place_model_create(TH_PLACE_MAX_NODES);
	struct th_place_model *m = th_place_model_create(NODES);
	struct th_place_opts o = { .floor = true };
	struct th_place_result *r;
	struct world w = { 0 };
	struct th_place_jobs *j;
	struct th_dag_diag d;
	double t;

	if (!world_inproc())
		SKIP(return, "the timed mode is the in-process provider's");
	ASSERT_NE(NULL, fabric);
	ASSERT_NE(NULL, m);
	j = th_place_jobs_parse(two, strlen(two), &d);
	ASSERT_NE(NULL, j);
	r = th_place_run_opts(j, m, TH_PLACE_SCHEDULED, TH_SCHED_HEFT, &o);
	ASSERT_NE(NULL, r);
	ASSERT_TRUE(r->from_trees);
	ASSERT_EQ(0, th_place_timed(fabric));
	ASSERT_EQ(0, world_open(&w, NODES));
	ASSERT_EQ(0, run_round(j, r, &w, &t));
	EXPECT_LE(fabs(t - r->makespan), 1e-9 + 1e-6 * r->makespan) {
		TH_LOG("measured %.6f us, predicted %.6f us", t * 1e6,
		       r->makespan * 1e6);
	}
	world_close(&w, NODES);
	ASSERT_EQ(0, th_place_timed(NULL));
	th_place_result_destroy(r);
	th_place_jobs_destroy(j);
	th_place_model_destroy(m);
	th_place_model_destroy(fabric);
}

TEST_HARNESS_MAIN
