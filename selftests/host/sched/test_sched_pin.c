// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_sched_pin.c - tasks pinned to some processors (an infinite cost on
 * the others), as the placer pins a job's contributions to its members'
 * nodes: every algorithm's schedule validates and puts no copy, primary
 * or duplicate, where its task cannot run; w̄ is the mean over the allowed
 * processors; a task that can run nowhere is refused, and so is a copy
 * placed by hand where it cannot run.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include <thverbs/sched.h>

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

TEST(pinned_tasks_stay_where_they_may_run)
{
	uint64_t seed = 0x1234567;
	unsigned int g, a, i, p, pinned = 0;

	for (g = 0; g < 8; g++) {
		struct th_dag_gen_params gp = {
			.ntasks = 60 + 40 * g, .alpha = 1.0, .outdeg = 3,
			.seed = 100 + g,
		};
		struct th_dag *dag = th_dag_gen_random(&gp);
		unsigned int np = 3 + g % 4;

		ASSERT_NE(NULL, dag);
		/* communication-heavy graphs make the duplicating ones duplicate */
		ASSERT_EQ(0, th_dag_assign_costs(dag, np, g % 2 ? 5.0 : 1.0, 1.0,
						 g + 1));
		for (i = 0; i < th_dag_nreal(dag); i++) {
			unsigned int keep = rng(&seed) % np;

			if (rng(&seed) % 3)
				continue;
			for (p = 0; p < np; p++)
				if (p != keep && rng(&seed) % 4)
					ASSERT_EQ(0, th_dag_set_cost(dag, i, p,
								     INFINITY));
			pinned++;
		}
		for (a = 0; a < TH_SCHED_NR_ALGS; a++) {
			struct th_sched *s = th_sched_run(dag, a);
			char why[256] = "";

			ASSERT_NE(NULL, s) {
				TH_LOG("graph %u, %s: %s", g, th_sched_alg_name(a),
				       strerror(errno));
			}
			EXPECT_EQ(0, th_sched_validate(s, why, sizeof(why))) {
				TH_LOG("graph %u, %s: %s", g, th_sched_alg_name(a), why);
			}
			for (i = 0; i < th_sched_nslots(s); i++) {
				const struct th_sched_slot *x = th_sched_slot(s, i);

				EXPECT_FALSE(isinf(th_dag_cost(dag, x->task, x->proc)));
				EXPECT_FALSE(isinf(x->finish));
			}
			th_sched_destroy(s);
		}
		th_dag_destroy(dag);
	}
	EXPECT_LT(100, pinned);
}

TEST(mean_cost_is_over_the_allowed_processors)
{
	struct th_dag *dag = th_dag_create(2);

	ASSERT_NE(NULL, dag);
	ASSERT_EQ(0, th_dag_add_edge(dag, 0, 1, 1));
	ASSERT_EQ(0, th_dag_set_procs(dag, 3));
	ASSERT_EQ(0, th_dag_set_cost(dag, 0, 0, 2));
	ASSERT_EQ(0, th_dag_set_cost(dag, 0, 1, INFINITY));
	ASSERT_EQ(0, th_dag_set_cost(dag, 0, 2, 4));
	ASSERT_EQ(0, th_dag_set_cost(dag, 1, 0, 1));
	ASSERT_EQ(0, th_dag_set_cost(dag, 1, 1, 1));
	ASSERT_EQ(0, th_dag_set_cost(dag, 1, 2, 1));
	ASSERT_EQ(0, th_dag_finalize(dag));
	EXPECT_EQ(3.0, th_dag_mean_cost(dag, 0));
	EXPECT_EQ(-EINVAL, th_dag_set_cost(dag, 0, 0, -1));
	EXPECT_EQ(-EINVAL, th_dag_set_cost(dag, 0, 0, NAN));
	th_dag_destroy(dag);
}

TEST(a_task_that_can_run_nowhere_is_refused)
{
	struct th_dag *dag = th_dag_create(2);
	struct th_sched *s;
	unsigned int a;

	ASSERT_NE(NULL, dag);
	ASSERT_EQ(0, th_dag_add_edge(dag, 0, 1, 1));
	ASSERT_EQ(0, th_dag_set_procs(dag, 2));
	ASSERT_EQ(0, th_dag_set_cost(dag, 0, 0, 1));
	ASSERT_EQ(0, th_dag_set_cost(dag, 0, 1, INFINITY));
	ASSERT_EQ(0, th_dag_set_cost(dag, 1, 0, INFINITY));
	ASSERT_EQ(0, th_dag_set_cost(dag, 1, 1, INFINITY));
	ASSERT_EQ(0, th_dag_finalize(dag));
	for (a = 0; a < TH_SCHED_NR_ALGS; a++) {
		errno = 0;
		EXPECT_EQ(NULL, th_sched_run(dag, a));
		EXPECT_EQ(EINVAL, errno);
	}
	/* by hand: not where it cannot run */
	ASSERT_EQ(0, th_dag_set_cost(dag, 1, 1, 2));
	s = th_sched_create(dag);
	ASSERT_NE(NULL, s);
	EXPECT_EQ(-EINVAL, th_sched_place(s, 0, 1, 0, 0));
	EXPECT_EQ(0, th_sched_place(s, 0, 0, 0, 0));
	EXPECT_EQ(-EINVAL, th_sched_place(s, 1, 0, 5, 0));
	EXPECT_EQ(0, th_sched_place(s, 1, 1, 5, 0));
	th_sched_destroy(s);
	th_dag_destroy(dag);
}

TEST_HARNESS_MAIN
