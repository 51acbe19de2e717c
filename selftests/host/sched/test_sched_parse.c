// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_sched_parse.c - the STG parser on the Standard Task Graph files
 * (when the set is at hand: it does not ship with th_nic), the th_dag text
 * format (round trip), and malformed files refused with their line and
 * column.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include <thverbs/place.h>
#include <thverbs/sched.h>

#ifndef TH_SHARED_DEFAULT
#define TH_SHARED_DEFAULT "../shared"
#endif
#ifndef TH_SCHED_TESTDATA
#define TH_SCHED_TESTDATA "selftests/host/sched/data"
#endif

/*
 * Where the STG files are: $TH_STG_DIR, else $TH_SHARED/data/stg (the
 * build's default: the design folder beside the tree).  0 when @file is
 * readable there; the tests that need it skip otherwise.
 */
static int stg_path(char *buf, size_t len, const char *file)
{
	const char *dir = getenv("TH_STG_DIR");
	const char *shared = getenv("TH_SHARED");

	if (dir)
		snprintf(buf, len, "%s/%s", dir, file);
	else
		snprintf(buf, len, "%s/data/stg/%s",
			 shared ? shared : TH_SHARED_DEFAULT, file);
	return access(buf, R_OK);
}

#define STG_SKIP_REASON \
	"%s: not readable; the Standard Task Graph set does not ship with th_nic: set TH_STG_DIR to a folder with its files"

static void data_path(char *buf, size_t len, const char *file)
{
	snprintf(buf, len, "%s/%s", TH_SCHED_TESTDATA, file);
}

struct stg_case {
	const char *file;
	unsigned int nreal;		/* task lines */
	unsigned int nvirtual;		/* added start/exit */
	unsigned int nedges;		/* predecessor references */
	double total;			/* sum of processing times */
	const char *warn;		/* substring of the warning, or NULL */
};

static const struct stg_case stg_cases[] = {
	{ "robot.stg", 90, 0, 135, 2483, "header says 90 tasks but counts the entry and exit dummies" },
	{ "sparse.stg", 98, 0, 177, 1936, NULL },
	{ "fft.stg", 15, 2, 20, 98, "should say 13" },
	{ "gaussian_elimination.stg", 20, 2, 34, 600, "should say 18" },
	{ "laplace.stg", 17, 2, 23, 1440, "should say 15" },
};

TEST(stg_files_accepted)
{
	unsigned int i, v, e, real_edges;
	char missing[512];

	for (i = 0; i < sizeof(stg_cases) / sizeof(stg_cases[0]); i++)
		if (stg_path(missing, sizeof(missing), stg_cases[i].file))
			SKIP(return, STG_SKIP_REASON, missing);
	for (i = 0; i < sizeof(stg_cases) / sizeof(stg_cases[0]); i++) {
		const struct stg_case *c = &stg_cases[i];
		struct th_dag_diag diag;
		struct th_dag *dag;
		char path[512];
		double total = 0;

		ASSERT_EQ(0, stg_path(path, sizeof(path), c->file));
		dag = th_dag_load(path, &diag);
		ASSERT_NE(NULL, dag)
			TH_LOG("%s:%u:%u: %s", path, diag.line, diag.col, diag.msg);
		EXPECT_EQ(c->nreal, th_dag_nreal(dag)) TH_LOG("%s", c->file);
		EXPECT_EQ(c->nreal + c->nvirtual, th_dag_ntasks(dag)) TH_LOG("%s", c->file);
		EXPECT_EQ(0, th_dag_nprocs(dag));
		real_edges = 0;
		for (e = 0; e < th_dag_nedges(dag); e++) {
			unsigned int from, to;

			th_dag_edge(dag, e, &from, &to, NULL);
			real_edges += !th_dag_is_virtual(dag, from) &&
				      !th_dag_is_virtual(dag, to);
		}
		EXPECT_EQ(c->nedges, real_edges) TH_LOG("%s", c->file);
		for (v = 0; v < th_dag_nreal(dag); v++)
			total += th_dag_base(dag, v);
		EXPECT_TRUE(fabs(total - c->total) < 1e-9)
			TH_LOG("%s: total time %g, expected %g", c->file, total, c->total);
		if (c->warn) {
			EXPECT_EQ(1, diag.warn_line) TH_LOG("%s", c->file);
			EXPECT_NE(NULL, strstr(diag.warn, c->warn))
				TH_LOG("%s: warning '%s'", c->file, diag.warn);
		} else {
			EXPECT_EQ(0, diag.warn_line)
				TH_LOG("%s: unexpected warning '%s'", c->file, diag.warn);
		}
		/* and they schedule */
		ASSERT_EQ(0, th_dag_assign_costs(dag, 4, 1.0, 1.0, 1));
		{
			struct th_sched *s = th_sched_run(dag, TH_SCHED_HAGD);
			char why[256];

			ASSERT_NE(NULL, s);
			EXPECT_EQ(0, th_sched_validate(s, why, sizeof(why)))
				TH_LOG("%s: %s", c->file, why);
			th_sched_destroy(s);
		}
		th_dag_destroy(dag);
	}
}

/* The robot file's header counts the dummies: 90 task lines, 88 tasks. */
TEST(stg_robot_header_mismatch)
{
	struct th_dag_diag diag;
	struct th_dag *dag;
	char path[512];

	if (stg_path(path, sizeof(path), "robot.stg"))
		SKIP(return, STG_SKIP_REASON, path);
	dag = th_dag_load(path, &diag);
	ASSERT_NE(NULL, dag) TH_LOG("%s: %s", path, diag.msg);
	EXPECT_EQ(1, diag.warn_line);
	EXPECT_NE(NULL, strstr(diag.warn, "90 task lines, so it should say 88"))
		TH_LOG("warning: %s", diag.warn);
	/* task 0 is the entry dummy and task 89 the exit dummy */
	EXPECT_EQ(0, th_dag_entry(dag));
	EXPECT_EQ(89, th_dag_exit(dag));
	EXPECT_STREQ("89", th_dag_name(dag, 89));
	th_dag_destroy(dag);
}

struct bad_case {
	const char *file;
	unsigned int line;
	unsigned int col;
	const char *msg;
};

static const struct bad_case bad_cases[] = {
	{ "cycle.stg", 4, 9, "cycle: task 2 depends on task 3, which depends back on it" },
	{ "unknown_pred.stg", 4, 9, "task 9 does not exist" },
	{ "truncated.stg", 4, 11, "expected 3 predecessor ids, got 2" },
	{ "negative.stg", 5, 3, "expected a non-negative processing time" },
	{ "cycle.thdag", 7, 1, "cycle: edge b -> c is on a cycle" },
	{ "unknown_pred.thdag", 6, 6, "expected a declared task, 'z' is unknown" },
	{ "truncated.thdag", 4, 12, "expected a computation cost (truncated line)" },
	{ "negative.thdag", 5, 10, "expected a non-negative communication cost, got -2.5" },
};

/*
 * A predecessor count near LONG_MAX: refused as a truncated line (3 + k
 * once overflowed, which UBSan reports, and at -O2 gave a wrong message).
 */
TEST(huge_predecessor_count)
{
	static const char text[] =
		"2\n0 0 0\n1 4 9223372036854775807 0\n2 0 1 1\n3 0 1 2\n";
	struct th_dag_diag diag;

	EXPECT_EQ(NULL, th_dag_parse_stg(text, sizeof(text) - 1, &diag));
	EXPECT_EQ(3, diag.line);
	EXPECT_NE(NULL, strstr(diag.msg, "expected 9223372036854775807 predecessor ids, got 1"))
		TH_LOG("%u:%u: %s", diag.line, diag.col, diag.msg);
}

/* A NUL byte ends no number or name silently: the line is refused there. */
TEST(nul_bytes_refused)
{
	static const char stg[] = "2\n0 0 0\n1 4\0007 1 0\n2 0 1 1\n3 0 1 2\n";
	static const char jobs[] = "thjobs 1\nallreduce A\0B members 0-3 root 0 bytes 8\n";
	struct th_dag_diag diag;

	EXPECT_EQ(NULL, th_dag_parse_stg(stg, sizeof(stg) - 1, &diag));
	EXPECT_EQ(3, diag.line);
	EXPECT_EQ(4, diag.col);
	EXPECT_STREQ("expected text, got a NUL byte", diag.msg);
	EXPECT_EQ(NULL, th_place_jobs_parse(jobs, sizeof(jobs) - 1, &diag));
	EXPECT_EQ(2, diag.line);
	EXPECT_EQ(12, diag.col);
	EXPECT_STREQ("expected text, got a NUL byte", diag.msg);
}

/* A cost of 1e308 is refused where it stands, not as an overflow later. */
TEST(huge_costs_refused_at_their_column)
{
	static const char stg[] = "2\n0 0 0\n1 1e308 1 0\n2 0 1 1\n3 0 1 2\n";
	struct th_dag_diag diag;

	EXPECT_EQ(NULL, th_dag_parse_stg(stg, sizeof(stg) - 1, &diag));
	EXPECT_EQ(3, diag.line);
	EXPECT_EQ(3, diag.col);
	EXPECT_NE(NULL, strstr(diag.msg, "processing time")) TH_LOG("%s", diag.msg);
}

/* A long chain closed by one back edge: the diagnostic names that edge. */
TEST(cycle_in_a_long_chain)
{
	enum { N = 20000 };
	size_t cap = (size_t)N * 48 + 64, len = 0;
	char *text = malloc(cap);
	struct th_dag_diag diag;
	unsigned int i;

	ASSERT_NE(NULL, text);
	len += snprintf(text + len, cap - len, "thdag 1\nprocs 2\n");
	for (i = 0; i < N; i++)
		len += snprintf(text + len, cap - len, "task t%u 1 1\n", i);
	for (i = 0; i + 1 < N; i++)
		len += snprintf(text + len, cap - len, "edge t%u t%u 1\n", i, i + 1);
	len += snprintf(text + len, cap - len, "edge t%u t%u 1\n", N - 1, N / 2);
	EXPECT_EQ(NULL, th_dag_parse_text(text, len, &diag));
	EXPECT_EQ(2 + 2 * N, diag.line);
	EXPECT_NE(NULL, strstr(diag.msg, "edge t19999 -> t10000 is on a cycle"))
		TH_LOG("%s", diag.msg);
	free(text);
}

/* @a written as th_dag text and parsed back: the copy, or NULL with @diag. */
static struct th_dag *written_and_read(const struct th_dag *a,
				       struct th_dag_diag *diag)
{
	struct th_dag *b = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (th_dag_write_text(a, f)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	b = th_dag_parse_text(buf, len, diag);
	free(buf);
	return b;
}

/*
 * The widest graphs the tools make can be read back: 4096 processors put
 * 4098 tokens on a task line, past the old fixed cap of 4096.
 */
TEST(round_trip_4096_processors)
{
	struct th_dag_gen_params gp = { .ntasks = 5, .alpha = 1.0,
					.outdeg = 2, .seed = 3 };
	struct th_dag *a = th_dag_gen_random(&gp), *b;
	struct th_dag_diag diag;

	ASSERT_NE(NULL, a);
	ASSERT_EQ(0, th_dag_assign_costs(a, 4096, 1.0, 1.0, 5));
	b = written_and_read(a, &diag);
	ASSERT_NE(NULL, b) TH_LOG("%u:%u: %s", diag.line, diag.col, diag.msg);
	EXPECT_EQ(4096, th_dag_nprocs(b));
	EXPECT_TRUE(th_dag_cost(a, 1, 4095) == th_dag_cost(b, 1, 4095));
	th_dag_destroy(a);
	th_dag_destroy(b);
}

/* An STG join with 5000 predecessors, all on one line, is read whole. */
TEST(stg_task_with_5000_predecessors)
{
	enum { K = 5000 };
	size_t cap = (size_t)K * 16 + 256, len = 0;
	char *text = malloc(cap);
	struct th_dag_diag diag;
	struct th_dag *dag;
	unsigned int i;

	ASSERT_NE(NULL, text);
	len += snprintf(text + len, cap - len, "%u\n0 0 0\n", K + 1);
	for (i = 1; i <= K; i++)
		len += snprintf(text + len, cap - len, "%u 1 1 0\n", i);
	len += snprintf(text + len, cap - len, "%u 2 %u", K + 1, K);
	for (i = 1; i <= K; i++)
		len += snprintf(text + len, cap - len, " %u", i);
	len += snprintf(text + len, cap - len, "\n%u 0 1 %u\n", K + 2, K + 1);
	dag = th_dag_parse_stg(text, len, &diag);
	ASSERT_NE(NULL, dag) TH_LOG("%u:%u: %s", diag.line, diag.col, diag.msg);
	EXPECT_EQ(K + 3, th_dag_nreal(dag));	/* with the STG entry and exit */
	th_dag_destroy(dag);
	free(text);
}

/* A line past the lexer's cap is refused by name, not read in part. */
TEST(line_past_the_token_cap_refused)
{
	size_t n = (1u << 20) + 1, cap = n * 2 + 64, len = 0;
	char *text = malloc(cap);
	struct th_dag_diag diag;

	ASSERT_NE(NULL, text);
	len += snprintf(text + len, cap - len, "thdag 1\nprocs 1\n");
	while (n--) {
		text[len++] = 'x';
		text[len++] = ' ';
	}
	EXPECT_EQ(NULL, th_dag_parse_text(text, len, &diag));
	EXPECT_EQ(3, diag.line);
	EXPECT_STREQ("line too long: more than 1048576 tokens", diag.msg);
	free(text);
}

TEST(malformed_files_refused)
{
	unsigned int i;

	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		struct th_dag_diag diag;
		struct th_dag *dag;
		char path[512];

		data_path(path, sizeof(path), c->file);
		ASSERT_EQ(0, access(path, R_OK)) TH_LOG("%s is missing", path);
		errno = 0;
		dag = th_dag_load(path, &diag);
		EXPECT_EQ(NULL, dag) TH_LOG("%s accepted", c->file);
		th_dag_destroy(dag);
		EXPECT_EQ(EINVAL, errno) TH_LOG("%s", c->file);
		EXPECT_EQ(c->line, diag.line)
			TH_LOG("%s: line %u, expected %u (%s)", c->file, diag.line,
			       c->line, diag.msg);
		EXPECT_EQ(c->col, diag.col)
			TH_LOG("%s: column %u, expected %u (%s)", c->file, diag.col,
			       c->col, diag.msg);
		EXPECT_NE(NULL, strstr(diag.msg, c->msg))
			TH_LOG("%s: message '%s'", c->file, diag.msg);
	}
}

/* Short inline cases, one per row: text, line, column, message. */
static const struct bad_case inline_cases[] = {
	{ "", 1, 1, "expected the number of tasks" },
	{ "x\n", 1, 1, "expected the number of tasks" },
	{ "2\n0 0 0\n2 1 0\n", 3, 1, "expected task id 1" },
	{ "1\n0 0 0\n1 1 1 1\n", 3, 7, "own predecessor" },
	{ "1\n0 0 0\n1 1 2 0 0\n", 3, 9, "listed twice" },
	{ "1\n0 0 0\n1 1 1 0 7\n", 3, 9, "expected end of line" },
	{ "1\n0 0\n", 2, 5, "expected the number of predecessors" },
	{ "thdag 2\n", 1, 1, "expected 'thdag 1'" },
	{ "thdag 1\ntask a 1\n", 2, 1, "expected 'procs P'" },
	{ "thdag 1\nprocs 1\ntask a 1\ntask a 2\n", 4, 6, "is taken" },
	{ "thdag 1\nprocs 1\ntask a 1\ntask b 1\nedge a b 1\nedge a b 2\n", 6, 1, "repeated" },
	{ "thdag 1\nprocs 1\ntask a 1 2\n", 3, 10, "expected end of line" },
	{ "thdag 1\nprocs 1\ntask a x\n", 3, 8, "expected a computation cost, got 'x'" },
	{ "thdag 1\nprocs 1\nnode a 1\n", 3, 1, "expected 'task' or 'edge'" },
};

TEST(malformed_inline_refused)
{
	unsigned int i;

	for (i = 0; i < sizeof(inline_cases) / sizeof(inline_cases[0]); i++) {
		const struct bad_case *c = &inline_cases[i];
		struct th_dag_diag diag;
		struct th_dag *dag;
		size_t len = strlen(c->file);

		if (!strncmp(c->file, "thdag", 5))
			dag = th_dag_parse_text(c->file, len, &diag);
		else
			dag = th_dag_parse_stg(c->file, len, &diag);
		EXPECT_EQ(NULL, dag) TH_LOG("row %u accepted", i);
		th_dag_destroy(dag);
		EXPECT_EQ(c->line, diag.line) TH_LOG("row %u: %s", i, diag.msg);
		EXPECT_EQ(c->col, diag.col) TH_LOG("row %u: %s", i, diag.msg);
		EXPECT_NE(NULL, strstr(diag.msg, c->msg))
			TH_LOG("row %u: message '%s'", i, diag.msg);
	}
}

TEST(text_fig3_file)
{
	struct th_sched_metrics m;
	struct th_dag_diag diag;
	struct th_sched *s;
	struct th_dag *dag;
	char path[512];

	data_path(path, sizeof(path), "fig3.thdag");
	dag = th_dag_load(path, &diag);
	ASSERT_NE(NULL, dag) TH_LOG("%s:%u:%u: %s", path, diag.line, diag.col, diag.msg);
	EXPECT_EQ(5, th_dag_nreal(dag));
	EXPECT_EQ(2, th_dag_nprocs(dag));
	EXPECT_STREQ("v3", th_dag_name(dag, 2));
	EXPECT_TRUE(fabs(th_dag_ccr(dag) - 26.0 / 17) < 1e-12);
	s = th_sched_run(dag, TH_SCHED_HAGD);
	ASSERT_NE(NULL, s);
	ASSERT_EQ(0, th_sched_metrics(s, &m));
	EXPECT_TRUE(fabs(m.makespan - 13) < 1e-9) TH_LOG("makespan %g", m.makespan);
	EXPECT_EQ(2, m.nduplicated);
	th_sched_destroy(s);
	th_dag_destroy(dag);
}

/* Written and read back, a generated graph keeps every cost bit for bit. */
TEST(text_round_trip)
{
	struct th_dag_gen_params gp = { .ntasks = 120, .alpha = 1.0,
					.outdeg = 4, .seed = 11 };
	struct th_dag *a = th_dag_gen_random(&gp), *b;
	struct th_dag_diag diag;
	unsigned int i, s, nreal_edges = 0;

	ASSERT_NE(NULL, a);
	ASSERT_EQ(0, th_dag_assign_costs(a, 6, 2.5, 1.5, 3));
	b = written_and_read(a, &diag);
	ASSERT_NE(NULL, b) TH_LOG("%u:%u: %s", diag.line, diag.col, diag.msg);
	EXPECT_EQ(th_dag_nreal(a), th_dag_nreal(b));
	EXPECT_EQ(th_dag_nprocs(a), th_dag_nprocs(b));
	for (i = 0; i < th_dag_nreal(a); i++) {
		EXPECT_STREQ(th_dag_name(a, i), th_dag_name(b, i));
		for (s = 0; s < th_dag_nprocs(a); s++) {
			EXPECT_TRUE(th_dag_cost(a, i, s) == th_dag_cost(b, i, s))
				TH_LOG("w(%u,%u)", i, s);
		}
	}
	for (i = 0; i < th_dag_nedges(a); i++) {
		unsigned int fa, ta, fb, tb;
		double ca, cb;

		th_dag_edge(a, i, &fa, &ta, &ca);
		if (th_dag_is_virtual(a, fa) || th_dag_is_virtual(a, ta))
			continue;
		ASSERT_EQ(0, th_dag_edge(b, nreal_edges, &fb, &tb, &cb));
		EXPECT_EQ(fa, fb);
		EXPECT_EQ(ta, tb);
		EXPECT_TRUE(ca == cb) TH_LOG("edge %u: %.17g vs %.17g", i, ca, cb);
		nreal_edges++;
	}
	EXPECT_TRUE(fabs(th_dag_ccr(a) - th_dag_ccr(b)) < 1e-12);
	th_dag_destroy(a);
	th_dag_destroy(b);
}

TEST(load_missing_file)
{
	struct th_dag_diag diag;

	errno = 0;
	EXPECT_EQ(NULL, th_dag_load("/nonexistent/x.stg", &diag));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(0, diag.line);
}

TEST_HARNESS_MAIN
