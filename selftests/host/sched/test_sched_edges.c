// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_sched_edges.c - the scheduler's limits and criteria at their
 * edges: the th_dag text format's processor count (1 ... 4096) and
 * non-negative costs (0 accepted, -0.5 refused), HAGD's criterion on a
 * graph whose CCR is 1 mathematically but 1 + 2^-52 in doubles (false,
 * as scheduler.rst says, thanks to the margin), and cparent's tie rule
 * (the first parent in edge order).  Each found by a mutation that
 * survived the other sched tests (scripts/mutants.list).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include <thverbs/sched.h>

static struct th_dag *parse(const char *text, struct th_dag_diag *diag)
{
	memset(diag, 0, sizeof(*diag));
	return th_dag_parse_text(text, strlen(text), diag);
}

/* "thdag 1", "procs @p", one task with @p costs of 1. */
static char *procs_text(unsigned int p)
{
	size_t cap = 64 + 2 * (size_t)p, len;
	char *s = malloc(cap);
	unsigned int i;

	if (!s)
		return NULL;
	len = snprintf(s, cap, "thdag 1\nprocs %u\ntask a", p);
	for (i = 0; i < p; i++)
		len += snprintf(s + len, cap - len, " 1");
	snprintf(s + len, cap - len, "\n");
	return s;
}

TEST(processor_count_1_to_4096)
{
	struct th_dag_diag diag;
	struct th_dag *dag;
	unsigned int ok[] = { 1, 4096 }, bad[] = { 0, 4097 };
	char *text;
	int i;

	for (i = 0; i < 2; i++) {
		text = procs_text(ok[i]);
		ASSERT_NE(NULL, text);
		dag = parse(text, &diag);
		EXPECT_NE(NULL, dag) TH_LOG("procs %u: %u:%u %s", ok[i],
					    diag.line, diag.col, diag.msg);
		if (dag)
			EXPECT_EQ(ok[i], th_dag_nprocs(dag));
		th_dag_destroy(dag);
		free(text);
		text = procs_text(bad[i]);
		ASSERT_NE(NULL, text);
		dag = parse(text, &diag);
		EXPECT_EQ(NULL, dag) TH_LOG("procs %u accepted", bad[i]);
		th_dag_destroy(dag);
		EXPECT_EQ(2, diag.line);
		EXPECT_EQ(7, diag.col);
		EXPECT_STREQ("expected a processor count from 1 to 4096", diag.msg);
		free(text);
	}
}

TEST(costs_may_be_zero_not_negative)
{
	struct th_dag_diag diag;
	struct th_dag *dag;

	dag = parse("thdag 1\nprocs 2\ntask a 0 0\ntask b 1 1\nedge a b 0\n",
		    &diag);
	EXPECT_NE(NULL, dag) TH_LOG("%u:%u %s", diag.line, diag.col, diag.msg);
	th_dag_destroy(dag);
	dag = parse("thdag 1\nprocs 2\ntask a 1 1\ntask b 1 1\nedge a b -0.5\n",
		    &diag);
	EXPECT_EQ(NULL, dag);
	th_dag_destroy(dag);
	EXPECT_EQ(5, diag.line);
	EXPECT_EQ(10, diag.col);
	EXPECT_STREQ("expected a non-negative communication cost, got -0.5",
		     diag.msg);
	dag = parse("thdag 1\nprocs 2\ntask a 1 -0.5\n", &diag);
	EXPECT_EQ(NULL, dag);
	th_dag_destroy(dag);
	EXPECT_EQ(3, diag.line);
	EXPECT_EQ(10, diag.col);
}

/*
 * Edges 0.1 + 0.2 sum to 0.30000000000000004, the tasks' mean costs to
 * 0.3: CCR is 1 + 2^-52 in doubles, 1 in fact.  With hf = 0 (equal costs
 * everywhere) the criterion CCR > 1 + hf / 2 is false; 0.1 + 0.25 makes
 * it true.
 */
TEST(hagd_criterion_at_ccr_1)
{
	struct th_dag_diag diag;
	struct th_dag *dag;

	dag = parse("thdag 1\nprocs 2\ntask a 0.3 0.3\ntask b 0 0\ntask c 0 0\n"
		    "edge a b 0.1\nedge a c 0.2\n", &diag);
	ASSERT_NE(NULL, dag) TH_LOG("%u:%u %s", diag.line, diag.col, diag.msg);
	EXPECT_GT(th_dag_ccr(dag), 1.0);	/* the rounding this is about */
	EXPECT_EQ(0, th_dag_hf(dag, 0));
	EXPECT_FALSE(th_sched_hagd_criterion(dag, 0));
	th_dag_destroy(dag);
	dag = parse("thdag 1\nprocs 2\ntask a 0.3 0.3\ntask b 0 0\ntask c 0 0\n"
		    "edge a b 0.1\nedge a c 0.25\n", &diag);
	ASSERT_NE(NULL, dag);
	EXPECT_TRUE(th_sched_hagd_criterion(dag, 0));
	th_dag_destroy(dag);
}

/* Two parents whose data arrive at the same time: the first edge's wins. */
TEST(cparent_tie_goes_to_the_first_parent)
{
	struct th_dag_diag diag;
	struct th_dag *dag;
	struct th_sched *s;

	dag = parse("thdag 1\nprocs 2\ntask a 1 1\ntask b 1 1\ntask v 1 1\n"
		    "edge a v 5\nedge b v 5\n", &diag);
	ASSERT_NE(NULL, dag) TH_LOG("%u:%u %s", diag.line, diag.col, diag.msg);
	s = th_sched_create(dag);
	ASSERT_NE(NULL, s);
	ASSERT_EQ(0, th_sched_place(s, 0, 0, 0, 0));
	ASSERT_EQ(0, th_sched_place(s, 1, 1, 0, 0));
	EXPECT_EQ(0, th_sched_cparent(s, 2));
	th_sched_destroy(s);
	th_dag_destroy(dag);
	/* and the later arrival when there is one */
	dag = parse("thdag 1\nprocs 2\ntask a 1 1\ntask b 1 1\ntask v 1 1\n"
		    "edge a v 5\nedge b v 6\n", &diag);
	ASSERT_NE(NULL, dag);
	s = th_sched_create(dag);
	ASSERT_NE(NULL, s);
	ASSERT_EQ(0, th_sched_place(s, 0, 0, 0, 0));
	ASSERT_EQ(0, th_sched_place(s, 1, 1, 0, 0));
	EXPECT_EQ(1, th_sched_cparent(s, 2));
	th_sched_destroy(s);
	th_dag_destroy(dag);
}

TEST_HARNESS_MAIN
