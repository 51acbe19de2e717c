// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * place_test.c - placements run on the NIC: several collective jobs
 * sharing 8 nodes (overlapping Allreduces, a Reduce over a wide tree, a
 * Broadcast), placed by every algorithm and by the per-job trees, compiled
 * into chains and run for several rounds; every member's result is
 * bit-identical to the placement DAG evaluated on the host in the same
 * order.  Each placement's chains, described to the verifier, verify
 * clean first (th_place_exec_describe(), th_verify()), and again as
 * compiled for posting (TH_VERIFY_PLANS=1); from the second
 * round a watcher stamps each job's finish (th_place_exec_watch()), which
 * is positive (or 0 on a clock that moves in jiffies) and within the
 * round.  Runs on the in-process provider on
 * the host and on th_nic.ko in the VM.  Also: what the executor refuses,
 * and vports too small for a placement refused before posting (EDEADLK).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kselftest_harness.h"
#include "lib_world.h"
#include <thverbs/place.h>
#include <thverbs/verbs.h>
#include <thverbs/verify.h>

#define NODES	8
#define ROUNDS	3
#define WAIT_NS	20000000000ULL

static const char jobs_text[] =
	"thjobs 1\n"
	"allreduce A members 0-5 root 0 bytes 4K radix 2\n"
	"allreduce B members 2-7 root 7 bytes 1K radix 4\n"
	"reduce R members 0-7 root 3 bytes 2K radix 8\n"
	"bcast C members 1,4,6 root 4 bytes 512\n";

/* The members of each job above, by rank, and its doubles. */
static const unsigned int job_members[4][8] = {
	{ 0, 1, 2, 3, 4, 5 }, { 2, 3, 4, 5, 6, 7 },
	{ 0, 1, 2, 3, 4, 5, 6, 7 }, { 1, 4, 6 },
};
static const unsigned int job_count[4] = { 512, 128, 256, 64 };

static double input(unsigned int job, unsigned int node, unsigned int round,
		    unsigned int i)
{
	/* sevenths: the order of the sums shows in the bits */
	return (double)((job * 31 + node * 7 + round * 3 + i) % 97) / 7.0;
}

/*
 * The placement DAG evaluated on the host, in topological order: a
 * contribution is the member's input, a combining task sums its inputs
 * left to right in the DAG's edge order (as the NIC's ALU does), a
 * delivery is its input.  Returns one array per task (NULL: virtual).
 */
static double **reference(const struct th_place_result *r, unsigned int round)
{
	const struct th_dag *dag = r->dag;
	unsigned int n = th_dag_ntasks(dag), done = 0, v, e, from, to, i;
	double **val = calloc(n, sizeof(*val)), c;
	bool *ok = calloc(n, sizeof(*ok));

	while (val && ok && done < n) {
		for (v = 0; v < n; v++) {
			const struct th_place_task *t = &r->task[v];
			unsigned int cnt = t->role ? job_count[t->job] : 0;
			bool ready = true, first = true;

			for (e = 0; !ok[v] && e < th_dag_nedges(dag); e++) {
				th_dag_edge(dag, e, &from, &to, &c);
				ready &= to != v || ok[from];
			}
			if (ok[v] || !ready)
				continue;
			ok[v] = true;
			done++;
			if (!t->role)
				continue;
			val[v] = calloc(cnt, sizeof(double));
			if (t->role == 'C') {
				for (i = 0; i < cnt; i++)
					val[v][i] = input(t->job,
							  job_members[t->job][t->rank],
							  round, i);
				continue;
			}
			for (e = 0; e < th_dag_nedges(dag); e++) {
				th_dag_edge(dag, e, &from, &to, &c);
				if (to != v || !val[from])
					continue;
				for (i = 0; i < cnt; i++)
					val[v][i] = first ? val[from][i] :
						    val[v][i] + val[from][i];
				first = false;
			}
		}
	}
	free(ok);
	return val;
}

static void free_ref(double **val, unsigned int n)
{
	unsigned int i;

	for (i = 0; val && i < n; i++)
		free(val[i]);
	free(val);
}

FIXTURE(place) {
	struct world w;
	struct th_place_jobs *jobs;
	struct th_place_model *model;
};

FIXTURE_SETUP(place)
{
	struct th_dag_diag d;

	memset(&self->w, 0, sizeof(self->w));
	/* th_place_exec_create() verifies what it compiled, before posting */
	setenv("TH_VERIFY_PLANS", "1", 1);
	ASSERT_EQ(0, world_open(&self->w, NODES));
	self->jobs = th_place_jobs_parse(jobs_text, strlen(jobs_text), &d);
	ASSERT_NE(NULL, self->jobs);
	self->model = th_place_model_create(NODES);
	ASSERT_NE(NULL, self->model);
	/* heterogeneous ALUs: the placers move combining tasks around */
	self->model->alu[0] = 5e8;
	self->model->alu[5] = 8e9;
}

FIXTURE_TEARDOWN(place)
{
	th_place_model_destroy(self->model);
	th_place_jobs_destroy(self->jobs);
	world_close(&self->w, NODES);
}

/*
 * The step of CLOCK_MONOTONIC, in seconds: a clocksource of the jiffy
 * (a VM whose TSC was found unstable, with no other) moves in steps of
 * milliseconds, and a round shorter than one reads 0 s.
 */
static double clock_step(void)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while (b.tv_sec == a.tv_sec && b.tv_nsec == a.tv_nsec);
	return (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9;
}

/* Place, compile, run ROUNDS rounds and compare every delivery. */
static void run_placement(struct __test_metadata *_metadata,
			  FIXTURE_DATA(place) *self, enum th_place_mode mode,
			  enum th_sched_alg alg)
{
	struct th_place_result *r = th_place_run(self->jobs, self->model, mode,
						 alg);
	struct th_place_exec *x;
	unsigned int round, job, k, v, bad = 0, checked = 0;
	struct th_verify_finding f[4];
	struct th_verify_set *set;
	struct th_nic_query q;
	double fin[4], step;
	int nf, ret;

	ASSERT_NE(NULL, r);
	/* the chains it is about to post verify, with this NIC's limits */
	ASSERT_EQ(0, th_device_query(self->w.ctx[0], &q));
	set = th_place_exec_describe(self->jobs, r, &q);
	ASSERT_NE(NULL, set);
	nf = th_verify(set, f, 4);
	EXPECT_EQ(0, nf) {
		TH_LOG("%s: %s: %s", th_sched_alg_name(alg),
		       set->chains[f[0].chain].name, f[0].why);
	}
	th_place_exec_describe_free(set);
	x = th_place_exec_create(self->jobs, r, self->w.vp, NODES);
	ASSERT_NE(NULL, x) {
		TH_LOG("%s: %s", th_sched_alg_name(alg), strerror(errno));
	}
	for (round = 0; round < ROUNDS; round++) {
		struct timespec t0, t1;
		double **ref, wall;

		/* round 0 unwatched: nothing measured in real time */
		if (round == 1)
			ASSERT_EQ(0, th_place_exec_watch(x, true));

		for (job = 0; job < 4; job++)
			for (k = 0; k < 8 && (k == 0 || job_members[job][k]); k++) {
				unsigned int node = job_members[job][k], i;
				double *send = th_place_exec_send(x, job, node);

				ASSERT_NE(NULL, send);
				for (i = 0; i < job_count[job]; i++)
					send[i] = input(job, node, round, i);
				memset(th_place_exec_recv(x, job, node), 0,
				       job_count[job] * sizeof(double));
			}
		clock_gettime(CLOCK_MONOTONIC, &t0);
		ASSERT_EQ(0, th_place_exec_start(x)) {
			TH_LOG("%s round %u", th_sched_alg_name(alg), round);
		}
		ret = th_place_exec_wait(x, WAIT_NS);
		ASSERT_EQ(0, ret) {
			TH_LOG("%s round %u: %s", th_sched_alg_name(alg), round,
			       strerror(-ret));
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		wall = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
		if (!round) {
			EXPECT_EQ(-ENODATA, th_place_exec_finishes(x, fin, 4));
		} else {
			ret = th_place_exec_finishes(x, fin, 4);
			ASSERT_EQ(0, ret) {
				TH_LOG("%s round %u: %s", th_sched_alg_name(alg),
				       round, strerror(-ret));
			}
			/* positive, unless the clock cannot tell it from 0 */
			step = clock_step();
			for (job = 0; job < 4; job++) {
				EXPECT_TRUE(fin[job] > 0 ||
					    (fin[job] == 0 && step > 1e-4)) {
					TH_LOG("%s round %u job %u: finish %g s (clock step %g s)",
					       th_sched_alg_name(alg), round,
					       job, fin[job], step);
				}
				EXPECT_LE(fin[job], wall) {
					TH_LOG("%s round %u job %u: finish %g s, round %g s",
					       th_sched_alg_name(alg), round,
					       job, fin[job], wall);
				}
			}
		}
		ref = reference(r, round);
		ASSERT_NE(NULL, ref);
		for (v = 0; v < th_dag_ntasks(r->dag); v++) {
			const struct th_place_task *t = &r->task[v];
			unsigned int node;
			double *got;

			if (t->role != 'D')
				continue;
			node = job_members[t->job][t->rank];
			got = th_place_exec_recv(x, t->job, node);
			checked++;
			if (memcmp(got, ref[v], job_count[t->job] * sizeof(double))) {
				bad++;
				TH_LOG("%s round %u: job %u at node %u: %g, want %g",
				       th_sched_alg_name(alg), round, t->job, node,
				       got[0], ref[v][0]);
			}
		}
		free_ref(ref, th_dag_ntasks(r->dag));
	}
	/* 6 + 6 + 1 + 3 deliveries a round */
	EXPECT_EQ(ROUNDS * 16, checked);
	EXPECT_EQ(0, bad);
	th_place_exec_destroy(x);
	th_place_result_destroy(r);
}

TEST_F(place, every_algorithm_s_placement_computes_every_result)
{
	unsigned int a;

	for (a = 0; a < TH_SCHED_NR_ALGS; a++)
		run_placement(_metadata, self, TH_PLACE_SCHEDULED, a);
}

/*
 * The same placements laid out as over a network (TH_PLACE_SPLIT=1): each
 * consumer on another node is sent to from a chain of its own, raising
 * its node's DONE; on both providers, with every result checked.
 */
TEST_F(place, every_placement_laid_out_as_over_a_network_computes_every_result)
{
	unsigned int a;

	setenv("TH_PLACE_SPLIT", "1", 1);
	for (a = 0; a < TH_SCHED_NR_ALGS; a++)
		run_placement(_metadata, self, TH_PLACE_SCHEDULED, a);
	run_placement(_metadata, self, TH_PLACE_TREES, TH_SCHED_HEFT);
	unsetenv("TH_PLACE_SPLIT");
}

/*
 * Vports whose CQs are smaller than the placement's chains need: the NIC
 * refuses the post; with TH_VERIFY_PLANS=1 the verifier finds it first (fit),
 * EDEADLK, and nothing is posted.
 */
TEST_F(place, a_placement_that_does_not_fit_is_refused_before_posting)
{
	struct th_vport_attr attr = { .cq_entries = 4 };
	struct th_vport *small[NODES] = { NULL };
	struct th_place_result *r;
	struct th_place_exec *x;
	unsigned int i;

	r = th_place_run(self->jobs, self->model, TH_PLACE_TREES, TH_SCHED_HEFT);
	ASSERT_NE(NULL, r);
	for (i = 0; i < NODES; i++) {
		small[i] = th_vport_create(self->w.ctx[i % self->w.ndev], &attr);
		ASSERT_NE(NULL, small[i]);
	}
	x = th_place_exec_create(self->jobs, r, small, NODES);
	EXPECT_EQ(NULL, x);
	EXPECT_EQ(EDEADLK, errno);
	th_place_exec_destroy(x);
	/* unverified, the post itself is refused: the verifier said so first */
	setenv("TH_VERIFY_PLANS", "0", 1);
	x = th_place_exec_create(self->jobs, r, small, NODES);
	EXPECT_EQ(NULL, x);
	EXPECT_NE(EDEADLK, errno);
	th_place_exec_destroy(x);
	setenv("TH_VERIFY_PLANS", "1", 1);
	for (i = 0; i < NODES; i++)
		th_vport_destroy(small[i]);
	th_place_result_destroy(r);
}

TEST_F(place, the_per_job_trees_compute_every_result)
{
	run_placement(_metadata, self, TH_PLACE_TREES, TH_SCHED_HEFT);
}

TEST_F(place, the_executor_refuses_what_it_cannot_run)
{
	static const char dag_text[] =
		"thjobs 1\ndag G\nstep a copy 8\nstep b copy 8 on 1\n"
		"edge a b 8\nend\n";
	static const char odd_text[] =
		"thjobs 1\nallreduce A members 0-3 root 0 bytes 12\n";
	struct th_place_jobs *j;
	struct th_place_result *r;
	struct th_dag_diag d;

	/* a DAG job's source must be pinned: its host buffer lives there */
	j = th_place_jobs_parse(dag_text, strlen(dag_text), &d);
	ASSERT_NE(NULL, j);
	r = th_place_run(j, self->model, TH_PLACE_SCHEDULED, TH_SCHED_HAGD);
	ASSERT_NE(NULL, r);
	errno = 0;
	EXPECT_EQ(NULL, th_place_exec_create(j, r, self->w.vp, NODES));
	EXPECT_EQ(EOPNOTSUPP, errno);
	/* fewer vports than the model's nodes */
	EXPECT_EQ(NULL, th_place_exec_create(j, r, self->w.vp, NODES - 1));
	EXPECT_EQ(EINVAL, errno);
	th_place_result_destroy(r);
	th_place_jobs_destroy(j);
	/* a copy of two inputs; an input of another size */
	{
		static const char *const bad[] = {
			"thjobs 1\ndag G\nstep a copy 8 on 0\nstep b copy 8 on 1\n"
			"step c copy 8 on 2\nedge a c 8\nedge b c 8\nend\n",
			"thjobs 1\ndag G\nstep a copy 16 on 0\nstep b copy 8 on 1\n"
			"edge a b 8\nend\n",
		};
		unsigned int i;

		for (i = 0; i < 2; i++) {
			j = th_place_jobs_parse(bad[i], strlen(bad[i]), &d);
			ASSERT_NE(NULL, j);
			r = th_place_run(j, self->model, TH_PLACE_SCHEDULED,
					 TH_SCHED_HEFT);
			ASSERT_NE(NULL, r);
			errno = 0;
			EXPECT_EQ(NULL, th_place_exec_create(j, r, self->w.vp, NODES));
			EXPECT_EQ(EOPNOTSUPP, errno);
			th_place_result_destroy(r);
			th_place_jobs_destroy(j);
		}
	}
	/* not whole doubles */
	j = th_place_jobs_parse(odd_text, strlen(odd_text), &d);
	ASSERT_NE(NULL, j);
	r = th_place_run(j, self->model, TH_PLACE_TREES, TH_SCHED_HEFT);
	ASSERT_NE(NULL, r);
	EXPECT_EQ(NULL, th_place_exec_create(j, r, self->w.vp, NODES));
	EXPECT_EQ(EOPNOTSUPP, errno);
	th_place_result_destroy(r);
	th_place_jobs_destroy(j);
	/* the baseline that runs jobs one by one has no single schedule */
	r = th_place_run(self->jobs, self->model, TH_PLACE_SEQUENTIAL,
			 TH_SCHED_HEFT);
	ASSERT_NE(NULL, r);
	EXPECT_EQ(NULL, th_place_exec_create(self->jobs, r, self->w.vp, NODES));
	EXPECT_EQ(EINVAL, errno);
	th_place_result_destroy(r);
}

/*
 * A DAG job beside a collective: sources on nodes 1, 6 and 2, a free
 * 3-input sum, a free copy of it and a pinned sink; every algorithm.
 * The sink holds (in1 + in2) + in3 ... in the edge order, bit for bit.
 */
TEST_F(place, dag_jobs_run_too)
{
	static const char text[] =
		"thjobs 1\n"
		"allreduce A members 0-3 root 0 bytes 1K\n"
		"dag G\n"
		"  step in1 copy 2K on 1\n"
		"  step in2 copy 2K on 6\n"
		"  step in3 copy 2K on 2\n"
		"  step sum reduce 3 2K\n"
		"  step mid copy 2K\n"
		"  step out copy 2K on 7\n"
		"  edge in1 sum 2K\n  edge in2 sum 2K\n  edge in3 sum 2K\n"
		"  edge sum mid 2K\n  edge mid out 2K\n"
		"end\n";
	struct th_dag_diag d;
	struct th_place_jobs *j = th_place_jobs_parse(text, strlen(text), &d);
	unsigned int a, round, i, s;

	ASSERT_NE(NULL, j) {
		TH_LOG("%u:%u: %s", d.line, d.col, d.msg);
	}
	for (a = 0; a < TH_SCHED_NR_ALGS; a++) {
		struct th_place_result *r = th_place_run(j, self->model,
							 TH_PLACE_SCHEDULED, a);
		struct th_place_exec *x;

		ASSERT_NE(NULL, r);
		x = th_place_exec_create(j, r, self->w.vp, NODES);
		ASSERT_NE(NULL, x) {
			TH_LOG("%s: %s", th_sched_alg_name(a), strerror(errno));
		}
		EXPECT_EQ(NULL, th_place_exec_step_in(x, 1, 3));	/* not a source */
		EXPECT_EQ(NULL, th_place_exec_step_out(x, 1, 0));	/* not a sink */
		for (round = 0; round < ROUNDS; round++) {
			double want[256], *out;

			for (s = 0; s < 3; s++) {
				double *in = th_place_exec_step_in(x, 1, s);

				ASSERT_NE(NULL, in);
				for (i = 0; i < 256; i++)
					in[i] = input(9, s, round, i);
			}
			for (i = 0; i < 256; i++)
				want[i] = (input(9, 0, round, i) + input(9, 1, round, i)) +
					  input(9, 2, round, i);
			ASSERT_EQ(0, th_place_exec_start(x));
			ASSERT_EQ(0, th_place_exec_wait(x, WAIT_NS));
			out = th_place_exec_step_out(x, 1, 5);
			ASSERT_NE(NULL, out);
			EXPECT_EQ(0, memcmp(out, want, sizeof(want))) {
				TH_LOG("%s round %u: %g, want %g",
				       th_sched_alg_name(a), round, out[0], want[0]);
			}
		}
		th_place_exec_destroy(x);
		th_place_result_destroy(r);
	}
	th_place_jobs_destroy(j);
}

/*
 * Duplicated tasks: with 10 us hops and 10 ns descriptors, HCPFD and HAGD
 * copy the shared sum x to the nodes of its consumers (the scheduler
 * decides; the test checks that they did).  Every copy is a chain of its
 * own, fed by the sources; each consumer reads the copy on its node.
 *   x = s1 + s2, y = x + s1, z = x + s2; o1 = y, o2 = z, o3 = x
 */
TEST_F(place, duplicated_tasks_run_too)
{
	static const char text[] =
		"thjobs 1\ndag G\n"
		"  step s1 copy 8K on 0\n  step s2 copy 8K on 1\n"
		"  step x reduce 2 8K\n  step y reduce 2 8K\n  step z reduce 2 8K\n"
		"  step o1 copy 8K on 2\n  step o2 copy 8K on 3\n  step o3 copy 8K on 4\n"
		"  edge s1 x 8K\n  edge s2 x 8K\n  edge x y 8K\n  edge s1 y 8K\n"
		"  edge x z 8K\n  edge s2 z 8K\n"
		"  edge y o1 8K\n  edge z o2 8K\n  edge x o3 8K\n"
		"end\n";
	static const enum th_sched_alg algs[] = {
		TH_SCHED_HCPFD, TH_SCHED_HAGD, TH_SCHED_HAGD_PLUS,
	};
	struct th_place_model *m = th_place_model_create(NODES);
	struct th_dag_diag d;
	struct th_place_jobs *j = th_place_jobs_parse(text, strlen(text), &d);
	unsigned int a, i, round, dups;

	ASSERT_NE(NULL, j);
	ASSERT_NE(NULL, m);
	m->latency = 1e-5;
	m->descriptor = 1e-8;
	for (a = 0; a < sizeof(algs) / sizeof(algs[0]); a++) {
		struct th_place_result *r = th_place_run(j, m, TH_PLACE_SCHEDULED,
							 algs[a]);
		struct th_place_exec *x;

		ASSERT_NE(NULL, r);
		for (i = 0, dups = 0; i < th_sched_nslots(r->sched); i++)
			dups += !!(th_sched_slot(r->sched, i)->flags &
				   TH_SCHED_SLOT_DUP);
		EXPECT_LT(0, dups) {
			TH_LOG("%s placed no duplicate", th_sched_alg_name(algs[a]));
		}
		x = th_place_exec_create(j, r, self->w.vp, NODES);
		ASSERT_NE(NULL, x);
		for (round = 0; round < ROUNDS; round++) {
			double *s1 = th_place_exec_step_in(x, 0, 0);
			double *s2 = th_place_exec_step_in(x, 0, 1);
			double *o1, *o2, *o3, sum;

			for (i = 0; i < 1024; i++) {
				s1[i] = input(5, 0, round, i);
				s2[i] = input(5, 1, round, i);
			}
			ASSERT_EQ(0, th_place_exec_start(x));
			ASSERT_EQ(0, th_place_exec_wait(x, WAIT_NS));
			o1 = th_place_exec_step_out(x, 0, 5);
			o2 = th_place_exec_step_out(x, 0, 6);
			o3 = th_place_exec_step_out(x, 0, 7);
			for (i = 0; i < 1024; i++) {
				sum = s1[i] + s2[i];
				if (o3[i] != sum || o1[i] != sum + s1[i] ||
				    o2[i] != sum + s2[i])
					break;
			}
			EXPECT_EQ(1024, i) {
				TH_LOG("%s round %u: element %u wrong",
				       th_sched_alg_name(algs[a]), round, i);
			}
		}
		th_place_exec_destroy(x);
		th_place_result_destroy(r);
	}
	th_place_model_destroy(m);
	th_place_jobs_destroy(j);
}

TEST_HARNESS_MAIN
