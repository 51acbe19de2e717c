// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_sched_algos.c - hand-checked schedules of HEFT, PETS, HCPFD, HAGD and
 * PEFT on the seed's Fig. 3 graph, the validator against broken schedules,
 * the validator over every algorithm's output on many random graphs, HAGD
 * never worse than HEFT and the portfolio the least of the others.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include <thverbs/sched.h>

#define EXPECT_CLOSE(a, b, tol)						\
	EXPECT_TRUE(fabs((double)(a) - (double)(b)) <= (tol))		\
		TH_LOG("%s = %.9g, expected %.9g", #a, (double)(a), (double)(b))

enum { V1, V2, V3, V4, V5, START, EXIT };

static struct th_dag *fig3_dag(void)
{
	static const double w[5][2] = {
		{ 4, 2 }, { 2, 4 }, { 3, 7 }, { 4, 2 }, { 2, 4 },
	};
	static const struct { unsigned int from, to; double c; } e[] = {
		{ V1, V3, 10 }, { V2, V3, 8 }, { V2, V4, 4 }, { V4, V5, 4 },
	};
	struct th_dag *dag = th_dag_create(5);
	unsigned int i, s;

	if (!dag || th_dag_set_procs(dag, 2))
		return NULL;
	for (i = 0; i < 5; i++)
		for (s = 0; s < 2; s++)
			th_dag_set_cost(dag, i, s, w[i][s]);
	for (i = 0; i < sizeof(e) / sizeof(e[0]); i++)
		th_dag_add_edge(dag, e[i].from, e[i].to, e[i].c);
	if (th_dag_finalize(dag)) {
		th_dag_destroy(dag);
		return NULL;
	}
	return dag;
}

/* One expected copy: task, processor, start, duplicate or not. */
struct want_slot {
	unsigned int task;
	unsigned int proc;
	double start;
	bool dup;
};

struct hand_case {
	enum th_sched_alg alg;
	double makespan;
	unsigned int ninserted;
	unsigned int nduplicated;
	unsigned int nwant;
	struct want_slot want[8];
	unsigned int list[7];
};

/*
 * The Fig. 3 example, worked by hand (s1 = p0, s2 = p1; ties go to the
 * lower processor): Documentation/scheduler.rst has the steps.
 */
static const struct hand_case hand_cases[] = {
	{
		.alg = TH_SCHED_HEFT, .makespan = 15, .ninserted = 1,
		.nwant = 5,
		.want = {
			{ V1, 1, 0, false }, { V2, 0, 0, false },
			{ V4, 0, 2, false }, { V3, 0, 12, false },
			{ V5, 0, 6, false },	/* inserted into [6, 12] */
		},
		.list = { START, V1, V2, V4, V3, V5, EXIT },
	},
	{
		/* levels {v1 v2} {v3 v4} {v5}: ranks v2 15 > v1 13, v4 22 > v3 20 */
		.alg = TH_SCHED_PETS, .makespan = 15, .ninserted = 1,
		.nwant = 5,
		.want = {
			{ V2, 0, 0, false }, { V1, 1, 0, false },
			{ V4, 0, 2, false }, { V3, 0, 12, false },
			{ V5, 0, 6, false },
		},
		.list = { START, V2, V1, V4, V3, V5, EXIT },
	},
	{
		/* CP start v1 v3 exit; v2 pushed for v3, v5 and v4 for exit */
		.alg = TH_SCHED_HCPFD, .makespan = 12, .nduplicated = 1,
		.nwant = 6,
		.want = {
			{ V1, 1, 0, false }, { V2, 0, 0, false },
			{ V1, 0, 2, true }, { V3, 0, 6, false },
			{ V4, 1, 6, false }, { V5, 1, 8, false },
		},
		.list = { START, V1, V2, V3, V4, V5, EXIT },
	},
	{
		/* CCR 1.53 > 1 + hf/2 everywhere: group duplication throughout */
		.alg = TH_SCHED_HAGD, .makespan = 13, .nduplicated = 2,
		.nwant = 7,
		.want = {
			{ V1, 1, 0, false }, { V2, 0, 0, false },
			{ V4, 0, 2, false }, { V1, 0, 6, true },
			{ V3, 0, 10, false }, { V4, 1, 6, true },
			{ V5, 1, 8, false },
		},
		.list = { START, V1, V2, V4, V3, V5, EXIT },
	},
	{
		/*
		 * OCT by hand (s1, s2): v3, v5 (0, 0); v4 (2, 4); v1 (3, 7);
		 * v2 (6, 7); start (8, 8).  rank_oct: start 8, v2 6.5, v1 5,
		 * v4 3, then v3, v5, exit at 0.  EFT + OCT: v2 s1 2+6 < 4+7;
		 * v1 s1 6+3 = s2 2+7 (tie: s1); v4 s1 10+2 = s2 8+4 (tie: s1);
		 * v3 s1 13 < 23; v5 s1 15 < 18.
		 */
		.alg = TH_SCHED_PEFT, .makespan = 15,
		.nwant = 5,
		.want = {
			{ V2, 0, 0, false }, { V1, 0, 2, false },
			{ V4, 0, 6, false }, { V3, 0, 10, false },
			{ V5, 0, 13, false },
		},
		.list = { START, V2, V1, V4, V3, V5, EXIT },
	},
};

static bool has_slot(const struct th_sched *s, const struct want_slot *w)
{
	unsigned int i;

	for (i = 0; i < th_sched_nslots(s); i++) {
		const struct th_sched_slot *x = th_sched_slot(s, i);

		if (x->task == w->task && x->proc == w->proc &&
		    fabs(x->start - w->start) < 1e-9 &&
		    !!(x->flags & TH_SCHED_SLOT_DUP) == w->dup)
			return true;
	}
	return false;
}

TEST(fig3_hand_checked)
{
	struct th_dag *dag = fig3_dag();
	unsigned int c, i, list[7];

	ASSERT_NE(NULL, dag);
	for (c = 0; c < sizeof(hand_cases) / sizeof(hand_cases[0]); c++) {
		const struct hand_case *hc = &hand_cases[c];
		const char *name = th_sched_alg_name(hc->alg);
		struct th_sched_metrics m;
		struct th_sched *s;
		char why[256];

		ASSERT_EQ(0, th_sched_list(dag, hc->alg, list));
		for (i = 0; i < 7; i++) {
			EXPECT_EQ(hc->list[i], list[i])
				TH_LOG("%s: list[%u] is task %u", name, i, list[i]);
		}
		s = th_sched_run(dag, hc->alg);
		ASSERT_NE(NULL, s);
		EXPECT_EQ(0, th_sched_validate(s, why, sizeof(why)))
			TH_LOG("%s: %s", name, why);
		ASSERT_EQ(0, th_sched_metrics(s, &m));
		EXPECT_CLOSE(m.makespan, hc->makespan, 1e-9);
		EXPECT_EQ(hc->ninserted, m.ninserted) TH_LOG("%s", name);
		EXPECT_EQ(hc->nduplicated, m.nduplicated) TH_LOG("%s", name);
		for (i = 0; i < hc->nwant; i++) {
			const struct want_slot *w = &hc->want[i];

			EXPECT_TRUE(has_slot(s, w))
				TH_LOG("%s: no %sv%u on p%u at %g", name,
				       w->dup ? "copy of " : "", w->task + 1,
				       w->proc, w->start);
		}
		/* real copies: the wanted ones plus nothing else */
		{
			unsigned int real = 0;

			for (i = 0; i < th_sched_nslots(s); i++)
				real += !th_dag_is_virtual(dag, th_sched_slot(s, i)->task);
			EXPECT_EQ(hc->nwant, real) TH_LOG("%s", name);
		}
		th_sched_destroy(s);
	}
	th_dag_destroy(dag);
}

/* The validator must reject what the model forbids. */
TEST(validator_rejects_broken)
{
	struct th_dag *dag = fig3_dag();
	struct th_sched *s;
	char why[256];

	ASSERT_NE(NULL, dag);
	/* HEFT's schedule by hand, without the exit */
	s = th_sched_create(dag);
	ASSERT_NE(NULL, s);
	ASSERT_EQ(0, th_sched_place(s, START, 0, 0, 0));
	ASSERT_EQ(0, th_sched_place(s, V1, 1, 0, 0));
	ASSERT_EQ(0, th_sched_place(s, V2, 0, 0, 0));
	ASSERT_EQ(0, th_sched_place(s, V4, 0, 2, 0));
	ASSERT_EQ(0, th_sched_place(s, V5, 0, 6, 0));
	ASSERT_EQ(0, th_sched_place(s, V3, 0, 12, 0));
	/* a busy processor refuses an overlapping copy; a task is placed once */
	EXPECT_EQ(-EBUSY, th_sched_place(s, V1, 0, 1, TH_SCHED_SLOT_DUP));
	EXPECT_EQ(-EBUSY, th_sched_place(s, V1, 0, 10, TH_SCHED_SLOT_DUP));
	EXPECT_EQ(-EEXIST, th_sched_place(s, V1, 0, 40, 0));
	why[0] = 0;
	EXPECT_EQ(-EINVAL, th_sched_validate(s, why, sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "task exit placed 0 times")) TH_LOG("%s", why);
	ASSERT_EQ(0, th_sched_place(s, EXIT, 0, 15, 0));
	EXPECT_EQ(0, th_sched_validate(s, why, sizeof(why))) TH_LOG("%s", why);
	th_sched_destroy(s);

	/* v3 on s1 at 5, but v1's data (s2, finish 2, c = 10) arrives at 12 */
	s = th_sched_create(dag);
	ASSERT_NE(NULL, s);
	ASSERT_EQ(0, th_sched_place(s, START, 0, 0, 0));
	ASSERT_EQ(0, th_sched_place(s, V1, 1, 0, 0));
	ASSERT_EQ(0, th_sched_place(s, V2, 0, 0, 0));
	ASSERT_EQ(0, th_sched_place(s, V3, 0, 5, 0));
	ASSERT_EQ(0, th_sched_place(s, V4, 1, 6, 0));
	ASSERT_EQ(0, th_sched_place(s, V5, 1, 8, 0));
	ASSERT_EQ(0, th_sched_place(s, EXIT, 1, 12, 0));
	EXPECT_EQ(-EINVAL, th_sched_validate(s, why, sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "t2 on p0 starts at 5 before the data of t0"))
		TH_LOG("%s", why);
	th_sched_destroy(s);

	/* the same schedule with v1 duplicated onto s1 at [0, 4] is valid */
	s = th_sched_create(dag);
	ASSERT_NE(NULL, s);
	ASSERT_EQ(0, th_sched_place(s, START, 0, 0, 0));
	ASSERT_EQ(0, th_sched_place(s, V1, 1, 0, 0));
	ASSERT_EQ(0, th_sched_place(s, V1, 0, 0, TH_SCHED_SLOT_DUP));
	ASSERT_EQ(0, th_sched_place(s, V2, 0, 4, 0));
	ASSERT_EQ(0, th_sched_place(s, V3, 0, 6, 0));
	ASSERT_EQ(0, th_sched_place(s, V4, 1, 10, 0));
	ASSERT_EQ(0, th_sched_place(s, V5, 1, 12, 0));
	ASSERT_EQ(0, th_sched_place(s, EXIT, 1, 16, 0));
	EXPECT_EQ(0, th_sched_validate(s, why, sizeof(why))) TH_LOG("%s", why);
	th_sched_destroy(s);

	/* ... but not a copy that starts before its own inputs arrive */
	s = th_sched_create(dag);
	ASSERT_NE(NULL, s);
	ASSERT_EQ(0, th_sched_place(s, START, 0, 0, 0));
	ASSERT_EQ(0, th_sched_place(s, V1, 1, 0, 0));
	ASSERT_EQ(0, th_sched_place(s, V2, 0, 0, 0));
	ASSERT_EQ(0, th_sched_place(s, V4, 0, 2, 0));
	ASSERT_EQ(0, th_sched_place(s, V4, 1, 2, TH_SCHED_SLOT_DUP));
	ASSERT_EQ(0, th_sched_place(s, V5, 0, 6, 0));
	ASSERT_EQ(0, th_sched_place(s, V3, 0, 12, 0));
	ASSERT_EQ(0, th_sched_place(s, EXIT, 0, 15, 0));
	EXPECT_EQ(-EINVAL, th_sched_validate(s, why, sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "t3 (copy) on p1 starts at 2 before the data of t1 arrives at 6"))
		TH_LOG("%s", why);
	th_sched_destroy(s);
	th_dag_destroy(dag);
}

FIXTURE(random_graphs) {
	int unused;
};

FIXTURE_VARIANT(random_graphs) {
	unsigned int ntasks;
	double alpha;
	unsigned int outdeg;
	double ccr;
	double beta;
	unsigned int procs;
	unsigned int graphs;
};

FIXTURE_SETUP(random_graphs) { self->unused = 0; }
FIXTURE_TEARDOWN(random_graphs) { }

FIXTURE_VARIANT_ADD(random_graphs, tiny_2p) {
	.ntasks = 8, .alpha = 1.0, .outdeg = 2, .ccr = 1.0, .beta = 1.0,
	.procs = 2, .graphs = 200,
};
FIXTURE_VARIANT_ADD(random_graphs, compute_bound) {
	.ntasks = 50, .alpha = 1.0, .outdeg = 4, .ccr = 0.1, .beta = 0.5,
	.procs = 4, .graphs = 60,
};
FIXTURE_VARIANT_ADD(random_graphs, comm_bound) {
	.ntasks = 50, .alpha = 1.0, .outdeg = 4, .ccr = 5.0, .beta = 1.0,
	.procs = 8, .graphs = 60,
};
FIXTURE_VARIANT_ADD(random_graphs, wide_heterogeneous) {
	.ntasks = 100, .alpha = 2.0, .outdeg = 5, .ccr = 2.5, .beta = 1.9,
	.procs = 16, .graphs = 25,
};
FIXTURE_VARIANT_ADD(random_graphs, deep_homogeneous) {
	.ntasks = 100, .alpha = 0.5, .outdeg = 2, .ccr = 1.0, .beta = 0.1,
	.procs = 4, .graphs = 25,
};
FIXTURE_VARIANT_ADD(random_graphs, large_32p) {
	.ntasks = 300, .alpha = 1.0, .outdeg = 4, .ccr = 2.5, .beta = 1.0,
	.procs = 32, .graphs = 4,
};

/*
 * Every algorithm's schedule passes the validator; SLR >= 1; HAGD never
 * duplicates up to CCR 1 (criterion false everywhere, CCR 1 included even
 * though the computed CCR may come out as 1 + 1e-16).  (HAGD inserts even
 * where the criterion holds for every task: a duplication that does not
 * shorten the task's EFT is rejected for HEFT's insertion placement.)
 */
TEST_F(random_graphs, validator_accepts_every_algorithm)
{
	unsigned int g, a, checked = 0;
	double makespan[TH_SCHED_NR_ALGS], least;
	int won[TH_SCHED_NR_ALGS];

	for (g = 0; g < variant->graphs; g++) {
		struct th_dag_gen_params gp = {
			.ntasks = variant->ntasks, .alpha = variant->alpha,
			.outdeg = variant->outdeg, .seed = 1000 + g,
		};
		struct th_dag *dag = th_dag_gen_random(&gp);

		ASSERT_NE(NULL, dag);
		ASSERT_EQ(0, th_dag_assign_costs(dag, variant->procs, variant->ccr,
						 variant->beta, 77 + g));
		for (a = 0; a < TH_SCHED_NR_ALGS; a++) {
			struct th_sched *s = th_sched_run(dag, a);
			struct th_sched_metrics m;
			char why[256];

			ASSERT_NE(NULL, s);
			EXPECT_EQ(0, th_sched_validate(s, why, sizeof(why)))
				TH_LOG("%s graph %u: %s", th_sched_alg_name(a), g, why);
			ASSERT_EQ(0, th_sched_metrics(s, &m));
			EXPECT_TRUE(m.slr >= 1 - 1e-9)
				TH_LOG("%s graph %u: SLR %g", th_sched_alg_name(a), g, m.slr);
			if (a == TH_SCHED_HEFT || a == TH_SCHED_PETS) {
				EXPECT_EQ(0, m.nduplicated);
			}
			if (a == TH_SCHED_HCPFD) {
				EXPECT_EQ(0, m.ninserted);
			}
			if (a == TH_SCHED_HAGD && variant->ccr <= 1) {
				EXPECT_EQ(0, m.nduplicated);
			}
			makespan[a] = m.makespan;
			won[a] = th_sched_alg_of(s);
			th_sched_destroy(s);
			checked++;
		}
		/*
		 * HAGD and hagd+ keep a copy only when it shortens its task's
		 * EFT and fall back to HEFT's schedule when theirs is longer:
		 * never worse than HEFT.  The portfolio is the least of all.
		 */
		EXPECT_TRUE(makespan[TH_SCHED_HAGD] <= makespan[TH_SCHED_HEFT] * (1 + 1e-12))
			TH_LOG("graph %u: HAGD %g > HEFT %g", g,
			       makespan[TH_SCHED_HAGD], makespan[TH_SCHED_HEFT]);
		EXPECT_TRUE(makespan[TH_SCHED_HAGD_PLUS] <= makespan[TH_SCHED_HEFT] * (1 + 1e-12))
			TH_LOG("graph %u: hagd+ %g > HEFT %g", g,
			       makespan[TH_SCHED_HAGD_PLUS], makespan[TH_SCHED_HEFT]);
		for (a = 0; a < TH_SCHED_PORTFOLIO; a++) {
			if (a == TH_SCHED_HAGD || a == TH_SCHED_HAGD_PLUS) {
				/* its own, or HEFT's when that was shorter */
				EXPECT_TRUE(won[a] == (int)a ||
					    (won[a] == TH_SCHED_HEFT &&
					     makespan[a] == makespan[TH_SCHED_HEFT]));
			} else {
				EXPECT_EQ((int)a, won[a]);
			}
		}
		/* the first algorithm with the least makespan wins */
		least = INFINITY;
		for (a = 0; a < TH_SCHED_PORTFOLIO; a++)
			least = fmin(least, makespan[a]);
		EXPECT_CLOSE(makespan[TH_SCHED_PORTFOLIO], least, 1e-9 * least);
		for (a = 0; a < TH_SCHED_PORTFOLIO; a++)
			if (makespan[a] <= least * (1 + 1e-9))
				break;
		EXPECT_EQ((int)a, won[TH_SCHED_PORTFOLIO]);
		th_dag_destroy(dag);
	}
	EXPECT_EQ(variant->graphs * TH_SCHED_NR_ALGS, checked);
}

/* The application graphs too, with several entries or exits (FFT). */
TEST(validator_accepts_application_graphs)
{
	static const unsigned int ge[] = { 2, 5, 10, 20 };
	static const unsigned int fft[] = { 2, 4, 8, 32 };
	unsigned int i, a, k;

	for (k = 0; k < 2; k++) {
		for (i = 0; i < 4; i++) {
			struct th_dag *dag = k ? th_dag_gen_fft(fft[i], i) :
						 th_dag_gen_gauss(ge[i], i);

			ASSERT_NE(NULL, dag);
			ASSERT_EQ(0, th_dag_assign_costs(dag, 4, 2.5, 1.5, i));
			for (a = 0; a < TH_SCHED_NR_ALGS; a++) {
				struct th_sched *s = th_sched_run(dag, a);
				char why[256];

				ASSERT_NE(NULL, s);
				EXPECT_EQ(0, th_sched_validate(s, why, sizeof(why)))
					TH_LOG("%s %s %u: %s", k ? "fft" : "ge",
					       th_sched_alg_name(a), i, why);
				th_sched_destroy(s);
			}
			th_dag_destroy(dag);
		}
	}
}

/* Same input, same schedule, slot by slot. */
TEST(deterministic_schedules)
{
	struct th_dag_gen_params gp = { .ntasks = 200, .alpha = 1.0,
					.outdeg = 4, .seed = 9 };
	struct th_dag *dag = th_dag_gen_random(&gp);
	unsigned int a, i;

	ASSERT_NE(NULL, dag);
	ASSERT_EQ(0, th_dag_assign_costs(dag, 8, 2.5, 1.0, 9));
	for (a = 0; a < TH_SCHED_NR_ALGS; a++) {
		struct th_sched *x = th_sched_run(dag, a);
		struct th_sched *y = th_sched_run(dag, a);

		ASSERT_NE(NULL, x);
		ASSERT_NE(NULL, y);
		ASSERT_EQ(th_sched_nslots(x), th_sched_nslots(y));
		for (i = 0; i < th_sched_nslots(x); i++) {
			EXPECT_EQ(0, memcmp(th_sched_slot(x, i), th_sched_slot(y, i),
					    sizeof(struct th_sched_slot)));
		}
		th_sched_destroy(x);
		th_sched_destroy(y);
	}
	th_dag_destroy(dag);
}

TEST(alg_names)
{
	unsigned int a;

	for (a = 0; a < TH_SCHED_NR_ALGS; a++) {
		EXPECT_EQ((int)a, th_sched_alg_from_name(th_sched_alg_name(a)));
	}
	EXPECT_EQ(TH_SCHED_HAGD_PLUS, th_sched_alg_from_name("HAGD+"));
	EXPECT_EQ(-EINVAL, th_sched_alg_from_name("cpop"));
	EXPECT_EQ(NULL, th_sched_run(NULL, TH_SCHED_NR_ALGS));
}

TEST_HARNESS_MAIN
