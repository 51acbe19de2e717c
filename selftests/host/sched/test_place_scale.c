// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_place_scale.c - the placer at scale (Documentation/placement.rst,
 * "Scale"): the scale mode's candidate processors against the exhaustive
 * search where they must agree, and the limits refused with their reason.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include <thverbs/place.h>

/* Job k of @n: @members nodes spread over the model, rooted at the first. */
static int add_spread(struct th_place_jobs *j, unsigned int k,
		      unsigned int members, unsigned int nodes, uint64_t bytes)
{
	unsigned int mem[64], i;
	char name[32];

	for (i = 0; i < members; i++)
		mem[i] = (k * 7919u + i * 97u) % nodes;
	snprintf(name, sizeof(name), "j%u", k);
	return th_place_add_collective(j, name, TH_PLACE_ALLREDUCE, mem, members,
				       mem[0], bytes, 4);
}

/* The same graph in the dense layout: every processor's cost copied. */
static struct th_dag *dense_copy(const struct th_dag *dag)
{
	unsigned int n = th_dag_nreal(dag), p = th_dag_nprocs(dag), v, s, e;
	struct th_dag *d = th_dag_create(n);

	if (!d || th_dag_set_procs(d, p))
		return NULL;
	for (v = 0; v < n; v++)
		for (s = 0; s < p; s++)
			if (th_dag_set_cost(d, v, s, th_dag_cost(dag, v, s)))
				return NULL;
	for (e = 0; e < th_dag_nedges(dag); e++) {
		unsigned int from, to;
		double c;

		th_dag_edge(dag, e, &from, &to, &c);
		if (from < n && to < n && th_dag_add_edge(d, from, to, c))
			return NULL;
	}
	return th_dag_finalize(d) ? NULL : d;
}

static double makespan(const struct th_sched *s)
{
	double m = 0;
	unsigned int i;

	for (i = 0; i < th_sched_nslots(s); i++)
		m = fmax(m, th_sched_slot(s, i)->finish);
	return m;
}

/*
 * Few jobs on many nodes: every class has an idle node when a combining
 * task is ready, so the candidates find the exhaustive search's finish
 * times (the makespan; processors may differ among equal ones).  Two ALU
 * classes, the slow one holding the lower node numbers.
 */
TEST(scale_mode_matches_the_exhaustive_search_with_idle_nodes)
{
	struct th_place_model *m = th_place_model_create(600);
	struct th_place_jobs *j = th_place_jobs_create();
	unsigned int k, i, a;

	ASSERT_NE(NULL, m);
	ASSERT_NE(NULL, j);
	for (i = 0; i < 600; i++)
		m->alu[i] = i < 300 ? 5e8 : 2e9;
	for (k = 0; k < 3; k++)
		ASSERT_LE(0, add_spread(j, k, 20 + 10 * k, 600, 16384));
	for (a = 0; a < TH_SCHED_NR_ALGS; a++) {
		struct th_dag *dag = th_place_dag(j, m, TH_PLACE_SCHEDULED, NULL);
		struct th_dag *dense = dag ? dense_copy(dag) : NULL;
		struct th_sched *fast = dag ? th_sched_run(dag, a) : NULL;
		struct th_sched *full = dense ? th_sched_run(dense, a) : NULL;
		char why[256] = "";

		ASSERT_NE(NULL, fast);
		ASSERT_NE(NULL, full);
		EXPECT_EQ(0, th_sched_validate(fast, why, sizeof(why))) {
			TH_LOG("%s: %s", th_sched_alg_name(a), why);
		}
		EXPECT_TRUE(fabs(makespan(fast) - makespan(full)) <=
			    1e-9 * makespan(full)) {
			TH_LOG("%s: %.9g s with candidates, %.9g s exhaustive",
			       th_sched_alg_name(a), makespan(fast),
			       makespan(full));
		}
		/* the fast ones use the fast nodes: no R task on a slow one */
		for (i = 0; i < th_sched_nslots(fast); i++) {
			const struct th_sched_slot *x = th_sched_slot(fast, i);
			const char *name = th_dag_name(dag, x->task);

			if (strstr(name, ".R"))
				EXPECT_LE(300, x->proc);
		}
		th_sched_destroy(fast);
		th_sched_destroy(full);
		th_dag_destroy(dense);
		th_dag_destroy(dag);
	}
	th_place_jobs_destroy(j);
	th_place_model_destroy(m);
}

/* Crowded: many jobs on 300 nodes; valid, every slot at a finite cost. */
TEST(scale_mode_places_crowded_jobs_validly)
{
	struct th_place_model *m = th_place_model_create(300);
	struct th_place_jobs *j = th_place_jobs_create();
	unsigned int k, i, a;

	ASSERT_NE(NULL, m);
	ASSERT_NE(NULL, j);
	for (i = 0; i < 300; i++)
		m->alu[i] = 1e9 * (1 + i % 3);
	for (k = 0; k < 60; k++)
		ASSERT_LE(0, add_spread(j, k, 2 + k % 60, 300, 1024 * (1 + k % 64)));
	for (a = 0; a < TH_SCHED_NR_ALGS; a++) {
		struct th_place_result *r = th_place_run(j, m, TH_PLACE_SCHEDULED, a);
		char why[256] = "";

		ASSERT_NE(NULL, r);
		EXPECT_EQ(0, th_sched_validate(r->sched, why, sizeof(why))) {
			TH_LOG("%s: %s", th_sched_alg_name(a), why);
		}
		EXPECT_TRUE(isfinite(r->makespan) && r->makespan > 0);
		for (i = 0; i < th_sched_nslots(r->sched); i++) {
			const struct th_sched_slot *x = th_sched_slot(r->sched, i);

			EXPECT_FALSE(isinf(th_dag_cost(r->dag, x->task, x->proc)));
		}
		for (i = 0; i < r->njobs; i++)
			EXPECT_TRUE(r->job[i].alone > 0 &&
				    r->job[i].finish <= r->makespan);
		th_place_result_destroy(r);
	}
	th_place_jobs_destroy(j);
	th_place_model_destroy(m);
}

/* More than TH_PLACE_MAX_JOBS jobs: refused at the job's line. */
TEST(too_many_jobs_are_refused_at_their_line)
{
	size_t cap = (size_t)(TH_PLACE_MAX_JOBS + 2) * 48, len = 0;
	char *text = malloc(cap);
	struct th_place_jobs *j;
	struct th_dag_diag d;
	unsigned int k;

	ASSERT_NE(NULL, text);
	len += snprintf(text + len, cap - len, "thjobs 1\n");
	for (k = 0; k <= TH_PLACE_MAX_JOBS; k++)
		len += snprintf(text + len, cap - len,
				"bcast b%u members 0,1 root 0 bytes 8\n", k);
	errno = 0;
	j = th_place_jobs_parse(text, len, &d);
	EXPECT_EQ(NULL, j);
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(TH_PLACE_MAX_JOBS + 2, d.line);
	EXPECT_NE(NULL, strstr(d.msg, "too many jobs")) {
		TH_LOG("%u:%u: %s", d.line, d.col, d.msg);
	}
	th_place_jobs_destroy(j);
	free(text);
}

/* A placement DAG over TH_PLACE_MAX_TASKS tasks: E2BIG, before any work. */
TEST(too_many_tasks_are_refused)
{
	struct th_place_model *m = th_place_model_create(TH_PLACE_MAX_NODES);
	struct th_place_jobs *j = th_place_jobs_create();
	unsigned int *mem = malloc(TH_PLACE_MAX_NODES * sizeof(*mem)), k, i;
	char name[32];

	ASSERT_NE(NULL, m);
	ASSERT_NE(NULL, j);
	ASSERT_NE(NULL, mem);
	for (i = 0; i < TH_PLACE_MAX_NODES; i++)
		mem[i] = i;
	/* each: 4096 contributions, 4096 deliveries and the inner ranks */
	for (k = 0; k < TH_PLACE_MAX_TASKS / (2 * TH_PLACE_MAX_NODES) + 1; k++) {
		snprintf(name, sizeof(name), "big%u", k);
		ASSERT_LE(0, th_place_add_collective(j, name, TH_PLACE_ALLREDUCE,
						     mem, TH_PLACE_MAX_NODES, 0,
						     8, 4));
	}
	errno = 0;
	EXPECT_EQ(NULL, th_place_dag(j, m, TH_PLACE_SCHEDULED, NULL));
	EXPECT_EQ(E2BIG, errno);
	errno = 0;
	EXPECT_EQ(NULL, th_place_run(j, m, TH_PLACE_SCHEDULED, TH_SCHED_HEFT));
	EXPECT_EQ(E2BIG, errno);
	free(mem);
	th_place_jobs_destroy(j);
	th_place_model_destroy(m);
}

/* Past TH_PLACE_MAX_NODES: the model and the job file say so. */
TEST(too_many_nodes_are_refused)
{
	struct th_dag_diag d;
	unsigned int mem[2] = { 0, TH_PLACE_MAX_NODES };
	struct th_place_jobs *j = th_place_jobs_create();

	errno = 0;
	EXPECT_EQ(NULL, th_place_model_create(TH_PLACE_MAX_NODES + 1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(NULL, th_place_model_parse("thmodel 1\nnodes 4097\n", 21, &d));
	EXPECT_NE(NULL, strstr(d.msg, "from 1 to 4096"));
	ASSERT_NE(NULL, j);
	EXPECT_EQ(-EINVAL, th_place_add_collective(j, "x", TH_PLACE_ALLREDUCE,
						   mem, 2, 0, 8, 4));
	th_place_jobs_destroy(j);
}

TEST_HARNESS_MAIN
