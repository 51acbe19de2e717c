// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_place.c - the multi-job placer's model: the job file (every
 * malformed line refused at its line and column, nothing returned), the
 * cost model file, the DAG a job becomes, predictions checked against
 * hand computations (one Allreduce on its tree, disjoint jobs that do not
 * slow each other down, the sequential baseline's sum), placements
 * that validate and keep contributions on their members' nodes, HAGD's
 * group duplication acting in a placement (a hand-computed known answer)
 * and never making HAGD worse than HEFT on random multi-job workloads.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include <thverbs/place.h>

static struct th_place_jobs *parse(const char *text, struct th_dag_diag *d)
{
	return th_place_jobs_parse(text, strlen(text), d);
}

/* Round numbers: 1 us per descriptor and latency, 1 GB/s everywhere. */
static struct th_place_model *round_model(unsigned int nodes)
{
	struct th_place_model *m = th_place_model_create(nodes);
	unsigned int i;

	if (!m)
		return NULL;
	m->descriptor = 1e-6;
	m->latency = 1e-6;
	m->bandwidth = 1e9;
	for (i = 0; i < nodes; i++)
		m->alu[i] = 1e9;
	return m;
}

static bool near(double a, double b)
{
	return fabs(a - b) <= 1e-12 * (1 + fabs(b));
}

TEST(job_file_parses)
{
	struct th_dag_diag d;
	struct th_place_jobs *j = parse(
		"thjobs 1\n"
		"# comment\n"
		"allreduce A members 0-2 root 0 bytes 1K radix 2\n"
		"reduce R members 4,6,8-9 root 8 bytes 2M\n"
		"bcast B members 3,5 root 5 bytes 100\n"
		"dag G\n"
		"  step s1 reduce 3 4K on 2\n"
		"  step s2 copy 4K\n"
		"  edge s1 s2 4K\n"
		"end\n", &d);

	ASSERT_NE(NULL, j) {
		TH_LOG("%u:%u: %s", d.line, d.col, d.msg);
	}
	EXPECT_EQ(4, th_place_njobs(j));
	EXPECT_STREQ("R", th_place_job_name(j, 1));
	EXPECT_EQ(TH_PLACE_REDUCE, th_place_job_kind(j, 1));
	EXPECT_EQ(TH_PLACE_DAG, th_place_job_kind(j, 3));
	EXPECT_EQ(10, th_place_nodes_named(j));
	th_place_jobs_destroy(j);
}

TEST(malformed_job_files_are_refused_at_line_and_column)
{
	static const struct {
		const char *text;
		unsigned int line, col;
		const char *msg;
	} bad[] = {
		{ "", 1, 1, "thjobs 1" },
		{ "thjobs 2\n", 1, 8, "unsupported job file version '2'" },
		{ "thjobs 1 x\n", 1, 10, "thjobs 1" },
		{ "thjobs 1\nallreduce A members 0-1 root 1 bytes 2T\n", 2, 38, "1 to 1T" },
		{ "thjobs 1\nallreduce A members 0-1 root 1 bytes 1025G\n", 2, 38, "1 to 1T" },
		{ "thjobs 1\n", 2, 1, "a job" },
		{ "thjobs 1\nallgather A\n", 2, 1, "'allreduce'" },
		{ "thjobs 1\nallreduce A members 0-3 root 9 bytes 1K\n", 2, 1, "root (9)" },
		{ "thjobs 1\nallreduce A members 0-3 bytes 1K\n", 2, 34, "'root NODE'" },
		{ "thjobs 1\nallreduce A members 3-1 root 1 bytes 1K\n", 2, 21, "member list" },
		{ "thjobs 1\nallreduce A members 0,1,1 root 1 bytes 1K\n", 2, 21, "repeats" },
		{ "thjobs 1\nallreduce A members 0,1, root 1 bytes 1K\n", 2, 21, "member list" },
		{ "thjobs 1\nallreduce A members 0-1 root 1 bytes 0\n", 2, 38, "size" },
		{ "thjobs 1\nallreduce A members 0-1 root 1 bytes 1X\n", 2, 38, "size" },
		{ "thjobs 1\nallreduce A members 0-1 root 1 bytes 8 radix 1\n", 2, 46, "radix" },
		{ "thjobs 1\nallreduce A members 0-1 root 1 bytes 8 root 0\n", 2, 40, "each once" },
		{ "thjobs 1\nallreduce A members 0-1 root 1 bytes 8\nbcast A members 0-1 root 0 bytes 8\n", 3, 7, "new job name" },
		{ "thjobs 1\nallreduce A members 0-4096 root 1 bytes 8\n", 2, 21, "member list" },
		{ "thjobs 1\ndag G\nstep a reduce 1 8\nend\n", 3, 15, "operand count" },
		{ "thjobs 1\ndag G\nstep a copy 8 on\nend\n", 3, 18, "node number" },
		{ "thjobs 1\ndag G\nstep a copy 8\nstep a copy 8\nend\n", 4, 6, "new step name" },
		{ "thjobs 1\ndag G\nstep a copy 8\nedge a b 8\nend\n", 4, 8, "declared above" },
		{ "thjobs 1\ndag G\nstep a copy 8\nedge a a 8\nend\n", 4, 8, "another step" },
		{ "thjobs 1\ndag G\nstep a copy 8\n", 4, 1, "'end'" },
		{ "thjobs 1\ndag G\nend\n", 3, 1, "a step" },
		{ "thjobs 1\ndag G\nstep a copy 8\nallreduce A\nend\n", 4, 1, "'step', 'edge' or 'end'" },
		{ "thjobs 1\ndag G\nstep a copy 8\nstep b copy 8\nedge a b 8\nedge b a 8\nend\n", 2, 1, "cycle" },
	};
	struct th_dag_diag d;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		EXPECT_EQ(NULL, parse(bad[i].text, &d)) {
			TH_LOG("case %u accepted", i);
		}
		EXPECT_EQ(EINVAL, errno);
		EXPECT_EQ(bad[i].line, d.line) {
			TH_LOG("case %u: %u:%u: %s", i, d.line, d.col, d.msg);
		}
		EXPECT_EQ(bad[i].col, d.col) {
			TH_LOG("case %u: %u:%u: %s", i, d.line, d.col, d.msg);
		}
		EXPECT_NE(NULL, strstr(d.msg, bad[i].msg)) {
			TH_LOG("case %u: '%s' lacks '%s'", i, d.msg, bad[i].msg);
		}
	}
}

TEST(model_file_parses_and_refuses)
{
	static const char good[] =
		"thmodel 1\nnodes 4\nalu 3e9\nalu 2 1e9\ndescriptor 1e-7\n"
		"latency 2e-6\nbandwidth 5e9\nwake 5e-6\npost 7e-7\ncpu 4e9\n";
	struct th_dag_diag d;
	struct th_place_model *m = th_place_model_parse(good, strlen(good), &d);

	ASSERT_NE(NULL, m);
	EXPECT_EQ(4, m->nodes);
	EXPECT_EQ(3e9, m->alu[0]);
	EXPECT_EQ(1e9, m->alu[2]);
	EXPECT_EQ(1e-7, m->descriptor);
	EXPECT_EQ(2e-6, m->latency);
	EXPECT_EQ(5e9, m->bandwidth);
	EXPECT_EQ(5e-6, m->wake);
	EXPECT_EQ(7e-7, m->post);
	EXPECT_EQ(4e9, m->cpu);
	/* 3 operands of 1000 bytes at 1e9: one pass, 3 us of ALU */
	EXPECT_TRUE(near(th_place_reduce_cost(m, 2, 3, 1000), 1e-7 + 3e-6));
	/* 13 operands: 7, then 6 more with the partial result: two passes */
	EXPECT_TRUE(near(th_place_reduce_cost(m, 2, 13, 1000), 2e-7 + 14e-6));
	EXPECT_TRUE(near(th_place_reduce_cost(m, 2, 14, 1000), 3e-7 + 16e-6));
	EXPECT_TRUE(near(th_place_copy_cost(m, 5000), 1e-7 + 1e-6));
	EXPECT_TRUE(near(th_place_put_cost(m, 5000), 1e-7 + 2e-6 + 1e-6));
	th_place_model_destroy(m);

	m = th_place_model_parse("thmodel 1\nalu 1e9\n", 19, &d);
	EXPECT_EQ(NULL, m);
	EXPECT_EQ(2, d.line);
	m = th_place_model_parse("thmodel 1\nnodes 2\nalu 2 1e9\n", 27, &d);
	EXPECT_EQ(NULL, m);
	EXPECT_EQ(3, d.line);
	EXPECT_EQ(5, d.col);
	m = th_place_model_parse("thmodel 1\nnodes 2\nbandwidth 0\n", 30, &d);
	EXPECT_EQ(NULL, m);
	EXPECT_EQ(3, d.line);
	EXPECT_EQ(11, d.col);
	/* the host's costs: times may be 0, never negative; a rate too */
	m = th_place_model_parse("thmodel 1\nnodes 2\nwake -1e-6\n", 29, &d);
	EXPECT_EQ(NULL, m);
	EXPECT_EQ(3, d.line);
	EXPECT_EQ(6, d.col);
	m = th_place_model_parse("thmodel 1\nnodes 2\ncpu 1e9 2\n", 28, &d);
	EXPECT_EQ(NULL, m);
	EXPECT_EQ(3, d.line);
	EXPECT_EQ(9, d.col);
	/* a newer version is named as such; absurd rates and times refused */
	m = th_place_model_parse("thmodel 2\nnodes 2\n", 18, &d);
	EXPECT_EQ(NULL, m);
	EXPECT_EQ(1, d.line);
	EXPECT_EQ(9, d.col);
	EXPECT_NE(NULL, strstr(d.msg, "unsupported model file version '2'"));
	m = th_place_model_parse("thmodel 1\nnodes 2\nalu 1e-300\n", 29, &d);
	EXPECT_EQ(NULL, m);
	EXPECT_EQ(3, d.line);
	EXPECT_EQ(5, d.col);
	EXPECT_NE(NULL, strstr(d.msg, "from 1 to 1e+18"));
	m = th_place_model_parse("thmodel 1\nnodes 2\nalu 1 0.5\n", 28, &d);
	EXPECT_EQ(NULL, m);
	EXPECT_EQ(7, d.col);
	m = th_place_model_parse("thmodel 1\nnodes 2\nbandwidth 2e18\n", 33, &d);
	EXPECT_EQ(NULL, m);
	EXPECT_EQ(11, d.col);
	m = th_place_model_parse("thmodel 1\nnodes 2\nlatency 1e300\n", 32, &d);
	EXPECT_EQ(NULL, m);
	EXPECT_EQ(9, d.col);
	EXPECT_NE(NULL, strstr(d.msg, "up to 1e+06"));
	/* a model filled in by hand is held to the same ranges */
	m = th_place_model_create(2);
	ASSERT_NE(NULL, m);
	EXPECT_EQ(0, th_place_model_check(m));
	m->alu[1] = 1e-300;
	EXPECT_EQ(-EINVAL, th_place_model_check(m));
	m->alu[1] = 1e9;
	m->descriptor = 1e300;
	EXPECT_EQ(-EINVAL, th_place_model_check(m));
	th_place_model_destroy(m);
	m = th_place_model_parse("thmodel 1\nnodes 2\npost 0\ncpu 0\n", 31, &d);
	ASSERT_NE(NULL, m);
	EXPECT_EQ(0, m->post);
	EXPECT_EQ(0, m->cpu);
	th_place_model_destroy(m);
}

/* What th_place_model_write() writes, th_place_model_parse() reads back. */
TEST(model_file_round_trips)
{
	struct th_place_model *m = th_place_model_create(3), *back;
	struct th_dag_diag d;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int host;

	ASSERT_NE(NULL, m);
	for (host = 0; host < 2; host++) {
		m->alu[1] = 5e8;
		if (host) {
			m->wake = 2e-6;
			m->post = 5e-7;
			m->cpu = 3e9;
		}
		f = open_memstream(&text, &len);
		ASSERT_NE(NULL, f);
		ASSERT_EQ(0, th_place_model_write(m, f));
		ASSERT_EQ(0, fclose(f));
		/* a free host is left out of the file */
		EXPECT_EQ(host, strstr(text, "wake") != NULL);
		back = th_place_model_parse(text, len, &d);
		ASSERT_NE(NULL, back) TH_LOG("%u:%u: %s", d.line, d.col, d.msg);
		EXPECT_EQ(m->nodes, back->nodes);
		EXPECT_EQ(m->alu[0], back->alu[0]);
		EXPECT_EQ(m->alu[1], back->alu[1]);
		EXPECT_EQ(m->descriptor, back->descriptor);
		EXPECT_EQ(m->latency, back->latency);
		EXPECT_EQ(m->bandwidth, back->bandwidth);
		EXPECT_EQ(m->wake, back->wake);
		EXPECT_EQ(m->post, back->post);
		EXPECT_EQ(m->cpu, back->cpu);
		th_place_model_destroy(back);
		free(text);
		text = NULL;
	}
	th_place_model_destroy(m);
}

/*
 * One 3-member Allreduce on its binomial tree, 1000 bytes, round model:
 * C.v copies 1000 bytes, 2 us each; C.1, C.2 reach node 0 at 2 + 3 = 5 us
 * (a PUT: 1 us descriptor, 1 us latency, 1 us of bytes); R.0 reduces
 * 3 x 1000 bytes in 1 + 3 us: 5 .. 9; D.0 copies 9 .. 11; D.1 and D.2
 * arrive at 14, end at 16.
 */
TEST(one_allreduce_on_its_tree_known_answer)
{
	struct th_dag_diag d;
	struct th_place_jobs *j = parse(
		"thjobs 1\nallreduce A members 0-2 root 0 bytes 1000 radix 2\n", &d);
	struct th_place_model *m = round_model(3);
	struct th_place_result *r;

	ASSERT_NE(NULL, j);
	ASSERT_NE(NULL, m);
	r = th_place_run(j, m, TH_PLACE_TREES, TH_SCHED_HEFT);
	ASSERT_NE(NULL, r);
	EXPECT_TRUE(near(r->makespan, 16e-6)) {
		TH_LOG("makespan %.9g us", r->makespan * 1e6);
	}
	EXPECT_TRUE(near(r->job[0].alone, 16e-6));
	EXPECT_EQ(1.0, r->job[0].slowdown);
	EXPECT_EQ(0.0, r->unfairness);
	EXPECT_EQ(0, th_sched_validate(r->sched, NULL, 0));
	/* 3 contributions, 1 combining task, 3 deliveries (+ start, exit) */
	EXPECT_EQ(7, th_dag_nreal(r->dag));
	th_place_result_destroy(r);
	th_place_model_destroy(m);
	th_place_jobs_destroy(j);
}

TEST(disjoint_jobs_do_not_slow_each_other_and_sequential_sums)
{
	struct th_dag_diag d;
	struct th_place_jobs *j = parse(
		"thjobs 1\n"
		"allreduce A members 0-2 root 0 bytes 1000 radix 2\n"
		"allreduce B members 3-5 root 5 bytes 1000 radix 2\n", &d);
	struct th_place_model *m = round_model(6);
	struct th_place_result *r;

	ASSERT_NE(NULL, j);
	r = th_place_run(j, m, TH_PLACE_TREES, TH_SCHED_HEFT);
	ASSERT_NE(NULL, r);
	EXPECT_TRUE(near(r->job[0].finish, 16e-6));
	EXPECT_TRUE(near(r->job[1].finish, 16e-6));
	EXPECT_TRUE(near(r->makespan, 16e-6));
	EXPECT_EQ(0.0, r->unfairness);
	th_place_result_destroy(r);
	r = th_place_run(j, m, TH_PLACE_SEQUENTIAL, TH_SCHED_HEFT);
	ASSERT_NE(NULL, r);
	EXPECT_TRUE(near(r->job[0].finish, 16e-6));
	EXPECT_TRUE(near(r->job[1].finish, 32e-6));
	EXPECT_TRUE(near(r->makespan, 32e-6));
	EXPECT_TRUE(near(r->job[1].slowdown, 2.0));
	EXPECT_TRUE(near(r->unfairness, 0.5));
	EXPECT_EQ(NULL, r->sched);
	th_place_result_destroy(r);
	th_place_model_destroy(m);
	th_place_jobs_destroy(j);
}

/*
 * Overlapping jobs, a DAG job and heterogeneous nodes: every algorithm's
 * placement validates, puts each contribution and delivery on its
 * member's node, and the figures hold together.
 */
TEST(every_algorithm_places_mixed_jobs_validly)
{
	struct th_dag_diag d;
	struct th_place_jobs *j = parse(
		"thjobs 1\n"
		"allreduce A members 0-7 root 0 bytes 64K radix 2\n"
		"allreduce B members 4-11 root 11 bytes 16K radix 4\n"
		"reduce R members 0,3,6,9 root 3 bytes 256K\n"
		"bcast C members 2,5,8 root 8 bytes 8K\n"
		"dag G\n"
		"  step in1 copy 32K on 1\n"
		"  step in2 copy 32K on 10\n"
		"  step sum reduce 2 32K\n"
		"  step out copy 32K on 7\n"
		"  edge in1 sum 32K\n  edge in2 sum 32K\n  edge sum out 32K\n"
		"end\n", &d);
	struct th_place_model *m = th_place_model_create(12);
	struct th_place_task *task = NULL;
	unsigned int a, i;
	struct th_dag *dag;

	ASSERT_NE(NULL, j) {
		TH_LOG("%u:%u: %s", d.line, d.col, d.msg);
	}
	ASSERT_NE(NULL, m);
	for (i = 0; i < 12; i++)
		m->alu[i] = i % 3 ? 2e9 : 5e8;	/* every third node is slow */
	dag = th_place_dag(j, m, TH_PLACE_SCHEDULED, &task);
	ASSERT_NE(NULL, dag);
	for (i = 0; i < th_dag_nreal(dag); i++) {
		const char *name = th_dag_name(dag, i);
		unsigned int allowed = 0, s;

		ASSERT_LT(task[i].job, th_place_njobs(j));
		if (task[i].role != 'S') {
			EXPECT_EQ(task[i].role, strchr(name, '.')[1]);
		}
		for (s = 0; s < 12; s++)
			allowed += !isinf(th_dag_cost(dag, i, s));
		/* contributions and deliveries pinned, combining tasks free */
		if (strstr(name, ".C") || strstr(name, ".D")) {
			EXPECT_EQ(1, allowed);
		} else if (strstr(name, ".R") || !strcmp(name, "G.sum")) {
			EXPECT_EQ(12, allowed);
		}
	}
	free(task);
	th_dag_destroy(dag);
	for (a = 0; a < TH_SCHED_NR_ALGS; a++) {
		struct th_place_result *r = th_place_run(j, m, TH_PLACE_SCHEDULED, a);
		char why[256] = "";

		ASSERT_NE(NULL, r);
		EXPECT_EQ(0, th_sched_validate(r->sched, why, sizeof(why))) {
			TH_LOG("%s: %s", th_sched_alg_name(a), why);
		}
		/*
		 * No job's finish is compared with its finish alone: list
		 * heuristics are not monotone, and sharing may even help one.
		 */
		for (i = 0; i < r->njobs; i++) {
			EXPECT_LT(0, r->job[i].finish);
			EXPECT_LE(r->job[i].finish, r->makespan);
			EXPECT_TRUE(near(r->job[i].slowdown,
					 r->job[i].finish / r->job[i].alone));
		}
		for (i = 0; i < th_sched_nslots(r->sched); i++) {
			const struct th_sched_slot *x = th_sched_slot(r->sched, i);

			EXPECT_FALSE(isinf(th_dag_cost(r->dag, x->task, x->proc)));
		}
		th_place_result_destroy(r);
	}
	th_place_model_destroy(m);
	th_place_jobs_destroy(j);
}

/*
 * A sum delivered to four nodes, 50 us hops (round_model otherwise):
 * copy c = 1 + 1000/1e9 s = 2 us, PUT p = 1 + 50 + 1 = 52 us, 2-operand
 * reduction r = 1 + 2000/1e9 s = 3 us.  HEFT puts the sum on node 0 and
 * every other delivery waits a hop more: 2c + 2p + r = 111 us.  HAGD
 * copies the sum beside each delivery on nodes 1-3 (its inputs cross one
 * hop either way): 2c + p + r = 59 us, with 3 duplicates that validate.
 */
static const char shared_sum_text[] =
	"thjobs 1\n"
	"dag S\n"
	"  step in0 copy 1000 on 0\n  step in1 copy 1000 on 1\n"
	"  step sum reduce 2 1000\n"
	"  step out0 copy 1000 on 0\n  step out1 copy 1000 on 1\n"
	"  step out2 copy 1000 on 2\n  step out3 copy 1000 on 3\n"
	"  edge in0 sum 1000\n  edge in1 sum 1000\n"
	"  edge sum out0 1000\n  edge sum out1 1000\n"
	"  edge sum out2 1000\n  edge sum out3 1000\n"
	"end\n";

TEST(hagd_duplicates_a_shared_sum_known_answer)
{
	struct th_dag_diag d;
	struct th_place_jobs *j = parse(shared_sum_text, &d);
	struct th_place_model *m = round_model(4);
	struct th_place_result *heft, *hagd;
	struct th_sched_metrics hm;
	unsigned int i, copies = 0, onnode = 0;
	char why[256] = "";

	ASSERT_NE(NULL, j) {
		TH_LOG("%u:%u: %s", d.line, d.col, d.msg);
	}
	ASSERT_NE(NULL, m);
	m->latency = 50e-6;
	heft = th_place_run(j, m, TH_PLACE_SCHEDULED, TH_SCHED_HEFT);
	hagd = th_place_run(j, m, TH_PLACE_SCHEDULED, TH_SCHED_HAGD);
	ASSERT_NE(NULL, heft);
	ASSERT_NE(NULL, hagd);
	EXPECT_TRUE(fabs(heft->makespan - 111e-6) < 1e-12) {
		TH_LOG("HEFT %.9g us, expected 111", heft->makespan * 1e6);
	}
	EXPECT_TRUE(fabs(hagd->makespan - 59e-6) < 1e-12) {
		TH_LOG("HAGD %.9g us, expected 59", hagd->makespan * 1e6);
	}
	EXPECT_EQ(TH_SCHED_HAGD, th_sched_alg_of(hagd->sched));
	EXPECT_EQ(0, th_sched_validate(hagd->sched, why, sizeof(why))) {
		TH_LOG("%s", why);
	}
	ASSERT_EQ(0, th_sched_metrics(hagd->sched, &hm));
	EXPECT_EQ(3, hm.nduplicated);
	/* every copy of the sum is beside a delivery, one per node */
	for (i = 0; i < th_sched_nslots(hagd->sched); i++) {
		const struct th_sched_slot *x = th_sched_slot(hagd->sched, i);

		if (strcmp(th_dag_name(hagd->dag, x->task), "S.sum"))
			continue;
		copies++;
		onnode |= 1u << x->proc;
	}
	EXPECT_EQ(4, copies);
	EXPECT_EQ(0xf, onnode);
	th_place_result_destroy(heft);
	th_place_result_destroy(hagd);
	th_place_model_destroy(m);
	th_place_jobs_destroy(j);
}

static unsigned int xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return (unsigned int)(*x >> 11);
}

/* A random mix of collectives on @nodes nodes, as a job file. */
static void random_jobs(char *buf, size_t len, unsigned int nodes,
			unsigned int seed)
{
	static const char *const kinds[] = { "allreduce", "reduce", "bcast" };
	static const char *const sizes[] = { "1K", "8K", "64K" };
	uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
	unsigned int njobs, k, i, n, off;

#define NEXT() xorshift(&x)
	off = snprintf(buf, len, "thjobs 1\n");
	njobs = 3 + NEXT() % 4;
	for (k = 0; k < njobs; k++) {
		unsigned int first = NEXT() % nodes, root;

		n = 2 + NEXT() % (nodes - 2);
		root = first + NEXT() % n;
		off += snprintf(buf + off, len - off, "%s J%u members ",
				kinds[NEXT() % 3], k);
		for (i = 0; i < n; i++)
			off += snprintf(buf + off, len - off, "%s%u", i ? "," : "",
					(first + i) % nodes);
		off += snprintf(buf + off, len - off, " root %u bytes %s radix %u\n",
				root % nodes, sizes[NEXT() % 3], 2 + 2 * (NEXT() % 2));
	}
#undef NEXT
}

/*
 * HAGD keeps a copy only where it shortens its task's EFT, takes HEFT's
 * insertion placement otherwise, and keeps HEFT's schedule when its own
 * comes out longer: on random multi-job workloads, with short hops and
 * with 50 us ones, HAGD and hagd+ are never worse than HEFT, the
 * portfolio is the least of all, and at 50 us HAGD duplicates somewhere.
 */
TEST(hagd_never_worse_than_heft_on_placements)
{
	unsigned int seed, lat, a, dups = 0, cases = 0;
	char text[4096];

	for (lat = 0; lat < 2; lat++) {
		for (seed = 0; seed < 12; seed++) {
			struct th_place_model *m = th_place_model_create(10);
			double ms[TH_SCHED_NR_ALGS], least = INFINITY;
			struct th_place_jobs *j;
			struct th_dag_diag d;

			ASSERT_NE(NULL, m);
			if (lat)
				m->latency = 50e-6;
			for (a = 0; a < 10; a++)
				m->alu[a] = a % 3 ? 2e9 : 5e8;
			random_jobs(text, sizeof(text), 10, seed);
			j = parse(text, &d);
			ASSERT_NE(NULL, j) {
				TH_LOG("%u:%u: %s\n%s", d.line, d.col, d.msg, text);
			}
			for (a = 0; a < TH_SCHED_NR_ALGS; a++) {
				struct th_place_result *r =
					th_place_run(j, m, TH_PLACE_SCHEDULED, a);
				struct th_sched_metrics sm;
				char why[256] = "";

				ASSERT_NE(NULL, r);
				EXPECT_EQ(0, th_sched_validate(r->sched, why, sizeof(why))) {
					TH_LOG("%s seed %u: %s", th_sched_alg_name(a),
					       seed, why);
				}
				ASSERT_EQ(0, th_sched_metrics(r->sched, &sm));
				if (lat && a == TH_SCHED_HAGD)
					dups += sm.nduplicated;
				ms[a] = r->makespan;
				if (a < TH_SCHED_PORTFOLIO)
					least = fmin(least, ms[a]);
				th_place_result_destroy(r);
			}
			EXPECT_LE(ms[TH_SCHED_HAGD], ms[TH_SCHED_HEFT] * (1 + 1e-12)) {
				TH_LOG("latency %s seed %u: HAGD %g > HEFT %g",
				       lat ? "50us" : "default", seed,
				       ms[TH_SCHED_HAGD], ms[TH_SCHED_HEFT]);
			}
			EXPECT_LE(ms[TH_SCHED_HAGD_PLUS], ms[TH_SCHED_HEFT] * (1 + 1e-12));
			EXPECT_TRUE(near(ms[TH_SCHED_PORTFOLIO], least));
			th_place_jobs_destroy(j);
			th_place_model_destroy(m);
			cases++;
		}
	}
	EXPECT_EQ(24, cases);
	EXPECT_LT(0, dups);
}

TEST(a_job_beyond_the_model_is_refused)
{
	struct th_dag_diag d;
	struct th_place_jobs *j = parse(
		"thjobs 1\nallreduce A members 0-4 root 0 bytes 8\n", &d);
	struct th_place_model *m = th_place_model_create(4);

	ASSERT_NE(NULL, j);
	errno = 0;
	EXPECT_EQ(NULL, th_place_run(j, m, TH_PLACE_SCHEDULED, TH_SCHED_HAGD));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(NULL, th_place_dag(j, m, TH_PLACE_TREES, NULL));
	th_place_model_destroy(m);
	th_place_jobs_destroy(j);
}

TEST(api_refuses_bad_jobs)
{
	struct th_place_jobs *j = th_place_jobs_create();
	unsigned int mem[3] = { 0, 1, 1 };
	int g;

	ASSERT_NE(NULL, j);
	EXPECT_EQ(-EINVAL, th_place_add_collective(j, "A", TH_PLACE_ALLREDUCE, mem, 3, 0, 8, 2));
	EXPECT_EQ(-EINVAL, th_place_add_collective(j, "A", TH_PLACE_ALLREDUCE, mem, 2, 5, 8, 2));
	EXPECT_EQ(-EINVAL, th_place_add_collective(j, "A", TH_PLACE_DAG, mem, 2, 0, 8, 2));
	EXPECT_EQ(-EINVAL, th_place_add_collective(j, "bad name", TH_PLACE_REDUCE, mem, 2, 0, 8, 2));
	EXPECT_EQ(0, th_place_add_collective(j, "A", TH_PLACE_REDUCE, mem, 2, 0, 8, 0));
	EXPECT_EQ(-EEXIST, th_place_add_dag(j, "A"));
	g = th_place_add_dag(j, "G");
	EXPECT_EQ(1, g);
	EXPECT_EQ(-EINVAL, th_place_add_step(j, 0, "s", TH_PLACE_STEP_COPY, 1, 8, TH_PLACE_ANY));
	EXPECT_EQ(-EINVAL, th_place_add_step(j, g, "s", TH_PLACE_STEP_REDUCE, 1, 8, TH_PLACE_ANY));
	EXPECT_EQ(0, th_place_add_step(j, g, "s", TH_PLACE_STEP_COPY, 1, 8, TH_PLACE_ANY));
	EXPECT_EQ(-EINVAL, th_place_add_edge(j, g, 0, 0, 8));
	EXPECT_EQ(-EINVAL, th_place_add_edge(j, g, 0, 1, 8));
	th_place_jobs_destroy(j);
}

/* A model filled in by hand is checked before the placer uses it. */
TEST(bad_models_are_refused)
{
	struct th_dag_diag d;
	struct th_place_jobs *j = parse(
		"thjobs 1\nallreduce A members 0-3 root 0 bytes 64\n", &d);
	struct th_place_model *m = th_place_model_create(4);
	unsigned int i;

	ASSERT_NE(NULL, j);
	ASSERT_NE(NULL, m);
	EXPECT_EQ(0, th_place_model_check(m));
	EXPECT_EQ(-EINVAL, th_place_model_check(NULL));
	for (i = 0; i < 9; i++) {
		struct th_place_model b = *m;
		double alu[4] = { 1e9, 1e9, 1e9, 1e9 };

		b.alu = alu;
		switch (i) {
		case 0: alu[2] = 0; break;
		case 1: alu[1] = INFINITY; break;
		case 2: b.bandwidth = 0; break;
		case 3: b.latency = -1e-6; break;
		case 4: b.descriptor = NAN; break;
		case 5: b.wake = -1e-6; break;
		case 6: b.post = INFINITY; break;
		case 7: b.cpu = NAN; break;
		default: b.passes = 1; break;
		}
		EXPECT_EQ(-EINVAL, th_place_model_check(&b)) {
			TH_LOG("case %u accepted", i);
		}
		errno = 0;
		EXPECT_EQ(NULL, th_place_run(j, &b, TH_PLACE_SCHEDULED,
					     TH_SCHED_HAGD));
		EXPECT_EQ(EINVAL, errno);
		EXPECT_EQ(NULL, th_place_dag(j, &b, TH_PLACE_TREES, NULL));
	}
	th_place_model_destroy(m);
	th_place_jobs_destroy(j);
}

TEST_HARNESS_MAIN
