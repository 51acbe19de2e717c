// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_sched_model.c - known answers of Documentation/scheduler.rst (w̄,
 * BL, L, CCR, hf, the HAGD criterion, the Algorithm 1 walk-through),
 * metrics, cost assignment and the generators.
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

/* The seed's Fig. 3: v1 ... v5 (tasks 0 ... 4) on s1, s2. */
static struct th_dag *fig3_dag(void)
{
	static const double w[5][2] = {
		{ 4, 2 }, { 2, 4 }, { 3, 7 }, { 4, 2 }, { 2, 4 },
	};
	static const struct { unsigned int from, to; double c; } e[] = {
		{ 0, 2, 10 }, { 1, 2, 8 }, { 1, 3, 4 }, { 3, 4, 4 },
	};
	struct th_dag *dag = th_dag_create(5);
	unsigned int i, s;
	char name[8];

	if (!dag || th_dag_set_procs(dag, 2))
		return NULL;
	for (i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "v%u", i + 1);
		th_dag_set_name(dag, i, name);
		for (s = 0; s < 2; s++)
			th_dag_set_cost(dag, i, s, w[i][s]);
	}
	for (i = 0; i < sizeof(e) / sizeof(e[0]); i++)
		th_dag_add_edge(dag, e[i].from, e[i].to, e[i].c);
	if (th_dag_finalize(dag)) {
		th_dag_destroy(dag);
		return NULL;
	}
	return dag;
}

TEST(fig3_virtual_tasks)
{
	struct th_dag *dag = fig3_dag();

	ASSERT_NE(NULL, dag);
	/* two entries (v1, v2) and two exits (v3, v5): start and exit added */
	EXPECT_EQ(7, th_dag_ntasks(dag));
	EXPECT_EQ(5, th_dag_nreal(dag));
	EXPECT_EQ(5, th_dag_entry(dag));
	EXPECT_EQ(6, th_dag_exit(dag));
	EXPECT_TRUE(th_dag_is_virtual(dag, 5));
	EXPECT_TRUE(th_dag_is_virtual(dag, 6));
	EXPECT_FALSE(th_dag_is_virtual(dag, 0));
	EXPECT_CLOSE(th_dag_cost(dag, 5, 0), 0, 0);
	EXPECT_CLOSE(th_dag_cost(dag, 6, 1), 0, 0);
	EXPECT_EQ(4 + 2 + 2, th_dag_nedges(dag));
	th_dag_destroy(dag);
}

TEST(fig3_mean_bl_list)
{
	static const double wbar[5] = { 3, 3, 5, 3, 3 };
	static const double bl[5] = { 18, 17, 5, 10, 3 };
	/* L = start, v1, v2, v4, v3, v5, exit */
	static const unsigned int list[7] = { 5, 0, 1, 3, 2, 4, 6 };
	struct th_dag *dag = fig3_dag();
	unsigned int out[7], i;
	double got[7];

	ASSERT_NE(NULL, dag);
	ASSERT_EQ(0, th_sched_bottom_levels(dag, got));
	for (i = 0; i < 5; i++) {
		EXPECT_CLOSE(th_dag_mean_cost(dag, i), wbar[i], 1e-12);
		EXPECT_CLOSE(got[i], bl[i], 1e-12);
	}
	EXPECT_CLOSE(got[5], 18, 1e-12);
	EXPECT_CLOSE(got[6], 0, 1e-12);
	ASSERT_EQ(0, th_sched_list(dag, TH_SCHED_HAGD, out));
	for (i = 0; i < 7; i++) {
		EXPECT_EQ(list[i], out[i]) TH_LOG("L[%u]", i);
	}
	th_dag_destroy(dag);
}

TEST(fig3_ccr_hf_criterion)
{
	static const double hf[5] = { 2.0 / 3, 2.0 / 3, 0.8, 2.0 / 3, 2.0 / 3 };
	/* cparent of v1 ... v5 in Table 3: start, start, v1, v2, v4 */
	static const unsigned int cparent[5] = { 5, 5, 0, 1, 3 };
	struct th_dag *dag = fig3_dag();
	unsigned int i;

	ASSERT_NE(NULL, dag);
	EXPECT_CLOSE(th_dag_ccr(dag), 26.0 / 17, 1e-12);
	EXPECT_CLOSE(th_dag_ccr(dag), 1.529, 5e-4);
	for (i = 0; i < 5; i++) {
		EXPECT_CLOSE(th_dag_hf(dag, i), hf[i], 1e-12);
	}
	EXPECT_CLOSE(th_dag_hf(dag, 5), 0, 0);
	for (i = 0; i < 5; i++) {
		EXPECT_TRUE(th_sched_hagd_criterion(dag, cparent[i]))
			TH_LOG("criterion false for v%u", i + 1);
	}
	th_dag_destroy(dag);
}

/* The walk-through: v1 on s2 [0, 2], v2 on s1 [0, 2]; then v3. */
TEST(fig3_algorithm1_walkthrough)
{
	struct th_dag *dag = fig3_dag();
	struct th_sched_group_eval ev;
	struct th_sched *s;
	double eft_g[2];

	ASSERT_NE(NULL, dag);
	s = th_sched_create(dag);
	ASSERT_NE(NULL, s);
	ASSERT_EQ(0, th_sched_place(s, 5, 0, 0, 0));
	ASSERT_EQ(0, th_sched_place(s, 0, 1, 0, 0));
	ASSERT_EQ(0, th_sched_place(s, 1, 0, 0, 0));
	EXPECT_EQ(0, th_sched_cparent(s, 2));
	ASSERT_EQ(0, th_sched_group_eval(s, 2, false, &ev, eft_g));
	EXPECT_EQ(0, ev.cparent);
	EXPECT_CLOSE(ev.eft1, 15, 1e-12);
	EXPECT_EQ(0, ev.eft1_proc);
	EXPECT_CLOSE(eft_g[0], 9, 1e-12);
	EXPECT_CLOSE(eft_g[1], 19, 1e-12);
	EXPECT_CLOSE(ev.eft2, 9, 1e-12);
	EXPECT_EQ(0, ev.eft2_proc);
	/* v1 is duplicated onto s1 at [2, 6]; v3 runs [6, 9] */
	EXPECT_CLOSE(ev.group_start, 2, 1e-12);
	EXPECT_CLOSE(ev.task_start, 6, 1e-12);
	EXPECT_TRUE(ev.eft1 >= ev.eft2);
	ASSERT_EQ(0, th_sched_place(s, 0, 0, ev.group_start, TH_SCHED_SLOT_DUP));
	ASSERT_EQ(0, th_sched_place(s, 2, 0, ev.task_start, 0));
	th_sched_destroy(s);
	th_dag_destroy(dag);
}

TEST(fig3_metrics)
{
	struct th_dag *dag = fig3_dag();
	struct th_sched_metrics m;
	struct th_sched *s;

	ASSERT_NE(NULL, dag);
	s = th_sched_run(dag, TH_SCHED_HEFT);
	ASSERT_NE(NULL, s);
	ASSERT_EQ(0, th_sched_metrics(s, &m));
	/* CP_MIN: v2 -> v4 -> v5 with minimum costs 2 + 2 + 2 = 6, or v1 -> v3: 2 + 3 = 5 */
	EXPECT_CLOSE(m.cp_min, 6, 1e-12);
	EXPECT_CLOSE(m.makespan, 15, 1e-12);
	EXPECT_CLOSE(m.slr, 15.0 / 6, 1e-12);
	/* sequential: s1 4+2+3+4+2 = 15, s2 2+4+7+2+4 = 19 */
	EXPECT_CLOSE(m.speedup, 1.0, 1e-12);
	EXPECT_CLOSE(m.efficiency, 0.5, 1e-12);
	th_sched_destroy(s);
	th_dag_destroy(dag);
}

struct gen_case {
	const char *what;
	unsigned int param;
	unsigned int ntasks;
};

static struct th_dag *gen_make(const char *what, unsigned int param,
			       uint64_t seed)
{
	struct th_dag_gen_params gp = {
		.ntasks = param, .alpha = 1.0, .outdeg = 4, .seed = seed,
	};

	if (!strcmp(what, "gauss"))
		return th_dag_gen_gauss(param, seed);
	if (!strcmp(what, "fft"))
		return th_dag_gen_fft(param, seed);
	return th_dag_gen_random(&gp);
}

TEST(generator_sizes)
{
	static const struct gen_case cases[] = {
		{ "gauss", 2, 2 },	/* (m^2 + m - 2) / 2 */
		{ "gauss", 5, 14 },
		{ "gauss", 20, 209 },
		{ "fft", 2, 5 },	/* 2m - 1 + m log2 m */
		{ "fft", 4, 15 },
		{ "fft", 32, 63 + 160 },
		{ "random", 50, 50 },
		{ "random", 750, 750 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct th_dag *dag = gen_make(cases[i].what, cases[i].param, 7);

		ASSERT_NE(NULL, dag) TH_LOG("%s %u", cases[i].what, cases[i].param);
		EXPECT_EQ(cases[i].ntasks, th_dag_nreal(dag))
			TH_LOG("%s %u", cases[i].what, cases[i].param);
		th_dag_destroy(dag);
	}
	EXPECT_EQ(NULL, th_dag_gen_fft(12, 1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(NULL, th_dag_gen_gauss(1, 1));
}

/* Same seed, same graph and costs; another seed, another graph. */
static bool dag_equal(const struct th_dag *a, const struct th_dag *b)
{
	unsigned int i, s, fa, ta, fb, tb;
	double ca, cb;

	if (th_dag_ntasks(a) != th_dag_ntasks(b) ||
	    th_dag_nedges(a) != th_dag_nedges(b) ||
	    th_dag_nprocs(a) != th_dag_nprocs(b))
		return false;
	for (i = 0; i < th_dag_nedges(a); i++) {
		th_dag_edge(a, i, &fa, &ta, &ca);
		th_dag_edge(b, i, &fb, &tb, &cb);
		if (fa != fb || ta != tb || ca != cb)
			return false;
	}
	for (i = 0; i < th_dag_ntasks(a); i++)
		for (s = 0; s < th_dag_nprocs(a); s++)
			if (th_dag_cost(a, i, s) != th_dag_cost(b, i, s))
				return false;
	return true;
}

TEST(generator_deterministic)
{
	static const char *const kinds[] = { "random", "gauss", "fft" };
	static const unsigned int params[] = { 300, 12, 16 };
	unsigned int k;

	for (k = 0; k < 3; k++) {
		struct th_dag *a = gen_make(kinds[k], params[k], 42);
		struct th_dag *b = gen_make(kinds[k], params[k], 42);
		struct th_dag *c = gen_make(kinds[k], params[k], 43);

		ASSERT_NE(NULL, a);
		ASSERT_NE(NULL, b);
		ASSERT_NE(NULL, c);
		ASSERT_EQ(0, th_dag_assign_costs(a, 8, 2.5, 1.0, 99));
		ASSERT_EQ(0, th_dag_assign_costs(b, 8, 2.5, 1.0, 99));
		ASSERT_EQ(0, th_dag_assign_costs(c, 8, 2.5, 1.0, 99));
		EXPECT_TRUE(dag_equal(a, b)) TH_LOG("%s: same seed differs", kinds[k]);
		EXPECT_FALSE(dag_equal(a, c)) TH_LOG("%s: seeds 42 and 43 agree", kinds[k]);
		th_dag_destroy(a);
		th_dag_destroy(b);
		th_dag_destroy(c);
	}
}

/* Random graphs are layered, connected from one entry to one exit. */
TEST(generator_random_shape)
{
	struct th_dag_gen_params gp = { .ntasks = 500, .alpha = 1.0,
					.outdeg = 3, .seed = 5 };
	struct th_dag *dag = th_dag_gen_random(&gp);
	unsigned int i, from, to, *outdeg;

	ASSERT_NE(NULL, dag);
	outdeg = calloc(th_dag_ntasks(dag), sizeof(*outdeg));
	ASSERT_NE(NULL, outdeg);
	for (i = 0; i < th_dag_nedges(dag); i++) {
		ASSERT_EQ(0, th_dag_edge(dag, i, &from, &to, NULL));
		if (th_dag_is_virtual(dag, from) || th_dag_is_virtual(dag, to))
			continue;
		EXPECT_LT(from, to) TH_LOG("edge %u -> %u goes up a level", from, to);
		outdeg[from]++;
	}
	/* mean out-degree: 1 ... outdeg drawn, plus parents given to orphans */
	{
		unsigned int sum = 0, inner = 0;

		for (i = 0; i < th_dag_nreal(dag); i++) {
			sum += outdeg[i];
			inner += outdeg[i] > 0;
		}
		EXPECT_TRUE(sum >= inner && sum <= inner * (3 + 1))
			TH_LOG("%u edges from %u tasks", sum, inner);
		EXPECT_TRUE(inner > th_dag_nreal(dag) / 2);
	}
	free(outdeg);
	th_dag_destroy(dag);
}

struct cost_case {
	unsigned int procs;
	double ccr;
	double beta;
};

TEST(assign_costs_ccr_beta)
{
	static const struct cost_case cases[] = {
		{ 2, 0.1, 0.1 }, { 4, 0.5, 0.5 }, { 8, 1.0, 1.0 },
		{ 16, 2.5, 1.5 }, { 32, 5.0, 1.9 },
	};
	struct th_dag_gen_params gp = { .ntasks = 300, .alpha = 1.0,
					.outdeg = 4, .seed = 3 };
	unsigned int i, v, s;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct cost_case *c = &cases[i];
		struct th_dag *dag = th_dag_gen_random(&gp);

		ASSERT_NE(NULL, dag);
		ASSERT_EQ(0, th_dag_assign_costs(dag, c->procs, c->ccr, c->beta, i));
		EXPECT_EQ(c->procs, th_dag_nprocs(dag));
		EXPECT_CLOSE(th_dag_ccr(dag), c->ccr, 1e-9);
		for (v = 0; v < th_dag_ntasks(dag); v++) {
			double b = th_dag_base(dag, v);

			if (th_dag_is_virtual(dag, v))
				continue;
			for (s = 0; s < c->procs; s++) {
				double w = th_dag_cost(dag, v, s);

				EXPECT_TRUE(w >= b * (1 - c->beta / 2) - 1e-9 &&
					    w <= b * (1 + c->beta / 2) + 1e-9)
					TH_LOG("w(%u,%u) = %g outside beta %g around %g",
					       v, s, w, c->beta, b);
			}
			/* hf is measured around the sample mean, so only bounded loosely */
			EXPECT_TRUE(th_dag_hf(dag, v) <= 4 * c->beta / (2 - c->beta) + 1e-9)
				TH_LOG("hf(%u) = %g, beta %g", v, th_dag_hf(dag, v), c->beta);
		}
		th_dag_destroy(dag);
	}
}

TEST(assign_costs_refuses_bad_beta)
{
	struct th_dag *dag = fig3_dag();

	ASSERT_NE(NULL, dag);
	EXPECT_EQ(-EINVAL, th_dag_assign_costs(dag, 2, 1.0, 2.5, 0));
	EXPECT_EQ(-EINVAL, th_dag_assign_costs(dag, 2, -1.0, 1.0, 0));
	EXPECT_EQ(-EINVAL, th_dag_assign_costs(dag, 0, 1.0, 1.0, 0));
	th_dag_destroy(dag);
}

TEST(model_refuses_bad_input)
{
	struct th_dag *dag = th_dag_create(3);

	ASSERT_NE(NULL, dag);
	EXPECT_EQ(-EINVAL, th_dag_add_edge(dag, 0, 0, 1));
	EXPECT_EQ(-EINVAL, th_dag_add_edge(dag, 0, 3, 1));
	EXPECT_EQ(-EINVAL, th_dag_add_edge(dag, 0, 1, -1));
	ASSERT_EQ(0, th_dag_add_edge(dag, 0, 1, 1));
	ASSERT_EQ(0, th_dag_add_edge(dag, 1, 2, 1));
	ASSERT_EQ(0, th_dag_add_edge(dag, 2, 0, 1));
	EXPECT_EQ(-ELOOP, th_dag_finalize(dag));
	th_dag_destroy(dag);
	dag = th_dag_create(2);
	ASSERT_NE(NULL, dag);
	ASSERT_EQ(0, th_dag_add_edge(dag, 0, 1, 1));
	ASSERT_EQ(0, th_dag_add_edge(dag, 0, 1, 2));
	EXPECT_EQ(-EEXIST, th_dag_finalize(dag));
	th_dag_destroy(dag);
	/*
	 * A refused finalize with virtual tasks added (two entries, two exits)
	 * leaves the graph as built: asked again, it refuses again with the
	 * same count of tasks and edges (it used to keep the virtual tasks and
	 * count their edges into arrays sized for the real ones).
	 */
	dag = th_dag_create(4);
	ASSERT_NE(NULL, dag);
	ASSERT_EQ(0, th_dag_add_edge(dag, 0, 2, 1));
	ASSERT_EQ(0, th_dag_add_edge(dag, 1, 3, 1));
	ASSERT_EQ(0, th_dag_add_edge(dag, 1, 3, 2));
	EXPECT_EQ(-EEXIST, th_dag_finalize(dag));
	EXPECT_EQ(4, th_dag_ntasks(dag));
	EXPECT_EQ(3, th_dag_nedges(dag));
	EXPECT_EQ(-EEXIST, th_dag_finalize(dag));
	EXPECT_EQ(4, th_dag_ntasks(dag));
	EXPECT_EQ(3, th_dag_nedges(dag));
	th_dag_destroy(dag);
	errno = 0;
	EXPECT_EQ(NULL, th_dag_create(0));
	EXPECT_EQ(EINVAL, errno);
}

TEST_HARNESS_MAIN
