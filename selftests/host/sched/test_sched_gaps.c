// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_sched_gaps.c - the index of idle gaps (lib/libthverbs/sched/gaps.c)
 * answers every insertion query exactly as the plain walk over the
 * timeline does: on timelines built by hand (gaps of every size, empty
 * slots, duplicates, times large enough for the tolerance to matter) and
 * on the schedules every algorithm builds for random graphs, queried at
 * many ready times and durations; and HEFT on independent tasks, where
 * the walk was quadratic, gives the schedule a hand-computed list gives.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "sched_priv.h"
#include <thverbs/sched.h>

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static double unit(uint64_t *s)
{
	return (rng(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* Every query against both answers; the number that differed. */
static unsigned int compare_queries(const struct th_sched *s, uint64_t *seed,
				    double horizon, unsigned int nq)
{
	const struct th_dag *dag = th_sched_dag(s);
	unsigned int q, bad = 0, p;
	double ready, dur, a, b;

	for (q = 0; q < nq; q++) {
		p = rng(seed) % th_dag_nprocs(dag);
		ready = unit(seed) * horizon;
		/* durations from tiny to longer than any gap */
		dur = pow(10.0, unit(seed) * 6 - 3) * horizon / 100;
		if (q % 7 == 0)
			ready = floor(ready);	/* on slot boundaries too */
		a = th_sched_gap_start(s, p, ready, dur);
		b = th_sched_gap_start_linear(s, p, ready, dur);
		if (a != b)
			bad++;
	}
	return bad;
}

TEST(hand_built_timelines_answer_as_the_walk)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	unsigned int round;

	for (round = 0; round < 40; round++) {
		unsigned int n = 50 + rng(&seed) % 400, i, placed = 0;
		double scale = round % 2 ? 1e6 : 1.0;	/* the tolerance grows with time */
		struct th_dag *dag = th_dag_create(n);
		struct th_sched *s;

		ASSERT_NE(NULL, dag);
		ASSERT_EQ(0, th_dag_set_procs(dag, 3));
		for (i = 0; i < n; i++) {
			unsigned int p;

			/* some tasks take no time: empty slots in the timeline */
			for (p = 0; p < 3; p++)
				ASSERT_EQ(0, th_dag_set_cost(dag, i, p,
					  i % 9 == 0 ? 0 : scale * (0.5 + unit(&seed) * 4)));
		}
		ASSERT_EQ(0, th_dag_finalize(dag));
		s = th_sched_create(dag);
		ASSERT_NE(NULL, s);
		for (i = 0; i < n; i++) {
			unsigned int p = rng(&seed) % 3, tries;
			double at = unit(&seed) * scale * n * 2;

			/* anywhere it fits: gaps of every size remain */
			for (tries = 0; tries < 4; tries++) {
				if (!th_sched_place(s, i, p, at, 0)) {
					placed++;
					break;
				}
				at = unit(&seed) * scale * n * 2;
			}
			/* and duplicates of earlier tasks */
			if (i > 3 && i % 5 == 0)
				th_sched_place(s, rng(&seed) % i, rng(&seed) % 3,
					       unit(&seed) * scale * n * 2,
					       TH_SCHED_SLOT_DUP);
			if (i % 25 == 0)
				EXPECT_EQ(0, compare_queries(s, &seed,
							     scale * n * 2, 200));
		}
		EXPECT_LT(n / 4, placed);
		EXPECT_EQ(0, compare_queries(s, &seed, scale * n * 2, 2000));
		th_sched_destroy(s);
		th_dag_destroy(dag);
	}
}

TEST(every_algorithm_s_schedules_answer_as_the_walk)
{
	uint64_t seed = 12345;
	unsigned int g, a;

	for (g = 0; g < 6; g++) {
		struct th_dag_gen_params gp = {
			.ntasks = 200 + 150 * g, .alpha = g % 2 ? 0.5 : 1.5,
			.outdeg = 3, .seed = 7 + g,
		};
		struct th_dag *dag = th_dag_gen_random(&gp);

		ASSERT_NE(NULL, dag);
		ASSERT_EQ(0, th_dag_assign_costs(dag, 2 + g * 3, g % 3 ? 5.0 : 0.5,
						 1.0, 11 + g));
		for (a = 0; a < TH_SCHED_NR_ALGS; a++) {
			struct th_sched *s = th_sched_run(dag, a);
			double horizon = 0;
			unsigned int i;

			ASSERT_NE(NULL, s);
			EXPECT_EQ(0, th_sched_validate(s, NULL, 0));
			for (i = 0; i < th_sched_nslots(s); i++)
				horizon = fmax(horizon, th_sched_slot(s, i)->finish);
			EXPECT_EQ(0, compare_queries(s, &seed, horizon * 1.1, 3000)) {
				TH_LOG("graph %u, %s", g, th_sched_alg_name(a));
			}
			th_sched_destroy(s);
		}
		th_dag_destroy(dag);
	}
}

/*
 * Independent tasks on two processors, where HEFT's insertion search used
 * to walk the whole timeline for every task: the schedule is the greedy
 * earliest-finish list, which the test computes itself.
 */
TEST(heft_on_independent_tasks_is_the_greedy_list)
{
	enum { N = 20000 };
	struct th_dag *dag = th_dag_create(N);
	double end[2] = { 0, 0 }, w[2], makespan = 0;
	struct th_sched *s;
	unsigned int i, p;

	ASSERT_NE(NULL, dag);
	ASSERT_EQ(0, th_dag_set_procs(dag, 2));
	for (i = 0; i < N; i++) {
		ASSERT_EQ(0, th_dag_set_cost(dag, i, 0, 1 + (i * 7919) % 13));
		ASSERT_EQ(0, th_dag_set_cost(dag, i, 1, 1 + (i * 104729) % 17));
	}
	ASSERT_EQ(0, th_dag_finalize(dag));
	s = th_sched_run(dag, TH_SCHED_HEFT);
	ASSERT_NE(NULL, s);
	EXPECT_EQ(0, th_sched_validate(s, NULL, 0));
	/* HEFT's list: the same upward rank order the library uses */
	{
		unsigned int *order = malloc(th_dag_ntasks(dag) * sizeof(*order));

		ASSERT_NE(NULL, order);
		ASSERT_EQ(0, th_sched_list(dag, TH_SCHED_HEFT, order));
		for (i = 0; i < th_dag_ntasks(dag); i++) {
			unsigned int v = order[i];

			if (th_dag_is_virtual(dag, v))
				continue;
			/* packed timelines: no gap ever fits, so EFT on the ends */
			for (p = 0; p < 2; p++)
				w[p] = end[p] + th_dag_cost(dag, v, p);
			p = w[1] < w[0];
			end[p] = w[p];
		}
		free(order);
	}
	makespan = fmax(end[0], end[1]);
	for (i = 0; i < th_sched_nslots(s); i++)
		EXPECT_GE(makespan, th_sched_slot(s, i)->finish);
	EXPECT_EQ(makespan, fmax(th_sched_slot(s, th_sched_primary(s,
		  th_dag_exit(dag)))->finish, 0));
	th_sched_destroy(s);
	th_dag_destroy(dag);
}

TEST_HARNESS_MAIN
