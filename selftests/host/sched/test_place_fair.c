// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_place_fair.c - fairness between the placer's jobs: Jain's index on
 * known answers; the compositions (merged, sequential, level, alternating,
 * fair, weighted, laxity) each giving a valid schedule, and 'best' the
 * shortest of them; the slowdown-bounded
 * policy bounding every slowdown where the default does not, and saying
 * so when no placement can; release times held in the schedule and
 * slowdowns measured from them; priorities and releases in the job file,
 * every refusal at its line and column; the floor at the trees baseline.
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

static bool near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * (1 + fabs(b));
}

/* A big Allreduce over every node beside two small jobs on its nodes. */
static const char big_beside_small[] =
	"thjobs 1\n"
	"allreduce BIG members 0-7 root 0 bytes 256K radix 2\n"
	"bcast S1 members 1,4,6 root 4 bytes 4K\n"
	"allreduce S2 members 2,3 root 3 bytes 4K\n";

/* Job @k's finish read off the schedule: its tasks' earliest copies. */
static double finish_of(const struct th_place_result *r, unsigned int k)
{
	unsigned int n = th_dag_ntasks(r->dag), i;
	double *first = malloc(n * sizeof(*first)), f = 0;

	if (!first)
		return NAN;
	for (i = 0; i < n; i++)
		first[i] = INFINITY;
	for (i = 0; i < th_sched_nslots(r->sched); i++) {
		const struct th_sched_slot *x = th_sched_slot(r->sched, i);

		first[x->task] = fmin(first[x->task], x->finish);
	}
	for (i = 0; i < n; i++)
		if (r->task[i].job == k)
			f = fmax(f, first[i]);
	free(first);
	return f;
}

/* The schedule validates and every figure agrees with it. */
static void check_result(struct __test_metadata *_metadata,
			 const struct th_place_jobs *j,
			 const struct th_place_result *r)
{
	double maxsd = 0, make = 0;
	unsigned int k;
	char why[256];

	ASSERT_NE(NULL, r->sched);
	ASSERT_EQ(0, th_sched_validate(r->sched, why, sizeof(why))) {
		TH_LOG("%s", why);
	}
	for (k = 0; k < r->njobs; k++) {
		EXPECT_TRUE(near(finish_of(r, k), r->job[k].finish));
		EXPECT_TRUE(near(r->job[k].slowdown,
				 (r->job[k].finish - th_place_job_release(j, k)) /
				 r->job[k].alone));
		maxsd = fmax(maxsd, r->job[k].slowdown);
		make = fmax(make, r->job[k].finish);
	}
	EXPECT_TRUE(near(maxsd, r->max_slowdown));
	EXPECT_TRUE(near(make, r->makespan));
	EXPECT_TRUE(r->jain > 0 && r->jain <= 1 + 1e-12);
}

TEST(jain_index_known_answers)
{
	static const double equal[4] = { 0.5, 0.5, 0.5, 0.5 };
	static const double one_has_all[4] = { 1, 0, 0, 0 };
	static const double one_two[2] = { 1, 2 };
	static const double zeros[2] = { 0, 0 };

	EXPECT_TRUE(near(th_place_jain(equal, 4), 1));
	EXPECT_TRUE(near(th_place_jain(one_has_all, 4), 0.25));
	/* (1 + 2)^2 / (2 (1 + 4)) */
	EXPECT_TRUE(near(th_place_jain(one_two, 2), 0.9));
	EXPECT_TRUE(near(th_place_jain(zeros, 2), 1));
	EXPECT_TRUE(near(th_place_jain(NULL, 0), 1));
}

TEST(jain_index_of_a_placement_is_over_inverse_slowdowns)
{
	struct th_dag_diag d;
	struct th_place_jobs *j = parse(big_beside_small, &d);
	struct th_place_model *m = th_place_model_create(8);
	struct th_place_result *r;
	double inv[3];
	unsigned int k;

	ASSERT_NE(NULL, j);
	ASSERT_NE(NULL, m);
	r = th_place_run(j, m, TH_PLACE_SCHEDULED, TH_SCHED_HEFT);
	ASSERT_NE(NULL, r);
	for (k = 0; k < 3; k++)
		inv[k] = 1 / r->job[k].slowdown;
	EXPECT_TRUE(near(r->jain, th_place_jain(inv, 3)));
	/* the small jobs wait behind the big one: visibly unfair */
	EXPECT_LT(r->jain, 0.9);
	th_place_result_destroy(r);
	th_place_model_destroy(m);
	th_place_jobs_destroy(j);
}

TEST(compositions_have_names_and_refuse_others)
{
	int c;

	for (c = 0; c < TH_PLACE_COMPOSE_NR; c++)
		EXPECT_EQ(c, th_place_compose_from_name(th_place_compose_name(c)));
	EXPECT_EQ(TH_PLACE_COMPOSE_LEVEL, th_place_compose_from_name("level"));
	EXPECT_EQ(-EINVAL, th_place_compose_from_name("roundrobin"));
	EXPECT_EQ(-EINVAL, th_place_compose_from_name(NULL));
	EXPECT_EQ(NULL, th_place_compose_name(TH_PLACE_COMPOSE_NR));
}

TEST(every_composition_places_validly)
{
	struct th_dag_diag d;
	struct th_place_jobs *j = parse(big_beside_small, &d);
	struct th_place_model *m = th_place_model_create(8);
	struct th_place_opts o = { 0 };
	double least;
	int c, a;

	ASSERT_NE(NULL, j);
	ASSERT_NE(NULL, m);
	for (a = 0; a < TH_SCHED_NR_ALGS; a++) {
		least = INFINITY;
		for (c = 0; c < TH_PLACE_COMPOSE_NR; c++) {
			struct th_place_result *r;

			o.compose = c;
			r = th_place_run_opts(j, m, TH_PLACE_SCHEDULED, a, &o);
			ASSERT_NE(NULL, r) {
				TH_LOG("%s %s: %s", th_sched_alg_name(a),
				       th_place_compose_name(c), strerror(errno));
			}
			check_result(_metadata, j, r);
			EXPECT_FALSE(r->from_trees);
			EXPECT_TRUE(r->bound_met);
			if (c != TH_PLACE_COMPOSE_BEST) {
				EXPECT_EQ(c, (int)r->compose);
				least = fmin(least, r->makespan);
			} else {
				/* the best is one of the others, the shortest */
				EXPECT_NE(TH_PLACE_COMPOSE_BEST, (int)r->compose);
				EXPECT_TRUE(near(r->makespan, least)) {
					TH_LOG("%s: best %g, least %g",
					       th_sched_alg_name(a), r->makespan, least);
				}
			}
			th_place_result_destroy(r);
		}
	}
	th_place_model_destroy(m);
	th_place_jobs_destroy(j);
}

/*
 * The sequential composition places the job of highest priority first,
 * into an empty fabric: it finishes as it would alone.
 */
TEST(sequential_composition_puts_the_first_job_first)
{
	struct th_dag_diag d;
	struct th_place_jobs *j = parse(
		"thjobs 1\n"
		"allreduce BIG members 0-7 root 0 bytes 256K radix 2\n"
		"bcast S1 members 1,4,6 root 4 bytes 4K priority 3\n", &d);
	struct th_place_model *m = th_place_model_create(8);
	struct th_place_opts o = { .compose = TH_PLACE_COMPOSE_SEQUENTIAL };
	struct th_place_result *r;

	ASSERT_NE(NULL, j);
	ASSERT_NE(NULL, m);
	r = th_place_run_opts(j, m, TH_PLACE_SCHEDULED, TH_SCHED_HEFT, &o);
	ASSERT_NE(NULL, r);
	check_result(_metadata, j, r);
	EXPECT_TRUE(near(r->job[1].slowdown, 1)) {
		TH_LOG("S1 slowdown %g", r->job[1].slowdown);
	}
	th_place_result_destroy(r);
	th_place_model_destroy(m);
	th_place_jobs_destroy(j);
}

TEST(fairness_bound_holds_where_the_default_does_not)
{
	struct th_dag_diag d;
	struct th_place_jobs *j = parse(big_beside_small, &d);
	struct th_place_model *m = th_place_model_create(8);
	struct th_place_opts o = { .fairness = 2 };
	struct th_place_result *plain, *fair;
	unsigned int k;
	int a;

	ASSERT_NE(NULL, j);
	ASSERT_NE(NULL, m);
	for (a = 0; a < TH_SCHED_NR_ALGS; a++) {
		plain = th_place_run(j, m, TH_PLACE_SCHEDULED, a);
		fair = th_place_run_opts(j, m, TH_PLACE_SCHEDULED, a, &o);
		ASSERT_NE(NULL, plain);
		ASSERT_NE(NULL, fair);
		check_result(_metadata, j, fair);
		/* the default slows a small job more than twice */
		EXPECT_GT(plain->max_slowdown, 2) {
			TH_LOG("%s: default max slowdown %g",
			       th_sched_alg_name(a), plain->max_slowdown);
		}
		EXPECT_TRUE(fair->bound_met);
		for (k = 0; k < fair->njobs; k++)
			EXPECT_LE(fair->job[k].slowdown, 2 * (1 + 1e-9)) {
				TH_LOG("%s: job %u slowdown %g",
				       th_sched_alg_name(a), k,
				       fair->job[k].slowdown);
			}
		EXPECT_GT(fair->jain, plain->jain);
		th_place_result_destroy(plain);
		th_place_result_destroy(fair);
	}
	th_place_model_destroy(m);
	th_place_jobs_destroy(j);
}

TEST(an_unmeetable_bound_returns_the_best_found_and_says_so)
{
	struct th_dag_diag d;
	struct th_place_jobs *j = parse(big_beside_small, &d);
	struct th_place_model *m = th_place_model_create(8);
	struct th_place_opts o = { .fairness = 1 };
	struct th_place_result *r, *loose;

	ASSERT_NE(NULL, j);
	ASSERT_NE(NULL, m);
	r = th_place_run_opts(j, m, TH_PLACE_SCHEDULED, TH_SCHED_HEFT, &o);
	ASSERT_NE(NULL, r);
	check_result(_metadata, j, r);
	EXPECT_FALSE(r->bound_met);
	EXPECT_GT(r->max_slowdown, 1);
	/* the best found is no worse than what a loose bound gets */
	o.fairness = 1e6;
	loose = th_place_run_opts(j, m, TH_PLACE_SCHEDULED, TH_SCHED_HEFT, &o);
	ASSERT_NE(NULL, loose);
	EXPECT_TRUE(loose->bound_met);
	EXPECT_LE(r->max_slowdown, loose->max_slowdown * (1 + 1e-9));
	th_place_result_destroy(loose);
	th_place_result_destroy(r);
	th_place_model_destroy(m);
	th_place_jobs_destroy(j);
}

TEST(release_times_hold_in_every_composition)
{
	struct th_dag_diag d;
	struct th_place_jobs *j = parse(
		"thjobs 1\n"
		"allreduce A members 0-5 root 0 bytes 64K radix 2\n"
		"allreduce B members 2-7 root 7 bytes 64K radix 2 release 100us\n"
		"dag G release 50us\n"
		"  step s1 reduce 3 4K on 2\n"
		"  step s2 copy 4K\n"
		"  edge s1 s2 4K\n"
		"end\n", &d);
	struct th_place_model *m = th_place_model_create(8);
	struct th_place_opts o = { 0 };
	unsigned int i, c, k, mode;

	ASSERT_NE(NULL, j) {
		TH_LOG("%u:%u: %s", d.line, d.col, d.msg);
	}
	ASSERT_NE(NULL, m);
	EXPECT_TRUE(near(th_place_job_release(j, 1), 100e-6));
	EXPECT_TRUE(near(th_place_job_release(j, 2), 50e-6));
	for (mode = TH_PLACE_SCHEDULED; mode <= TH_PLACE_TREES; mode++)
		for (c = 0; c < TH_PLACE_COMPOSE_NR + 1; c++) {
			struct th_place_result *r;

			/* the last round: the fairness policy */
			o.compose = c < TH_PLACE_COMPOSE_NR ? c : 0;
			o.fairness = c < TH_PLACE_COMPOSE_NR ? 0 : 1.5;
			o.floor = c == TH_PLACE_COMPOSE_MERGED;
			r = th_place_run_opts(j, m, mode, TH_SCHED_HEFT, &o);
			ASSERT_NE(NULL, r);
			check_result(_metadata, j, r);
			for (i = 0; i < th_sched_nslots(r->sched); i++) {
				const struct th_sched_slot *x =
					th_sched_slot(r->sched, i);

				k = r->task[x->task].job;
				if (k >= r->njobs)
					continue;
				EXPECT_GE(x->start, th_place_job_release(j, k) *
					  (1 - 1e-12)) {
					TH_LOG("mode %u compose %u: %s starts at %g",
					       mode, c,
					       th_dag_name(r->dag, x->task), x->start);
				}
			}
			th_place_result_destroy(r);
		}
	/* the sequential baseline waits for a release too */
	{
		struct th_place_result *r = th_place_run(j, m, TH_PLACE_SEQUENTIAL,
							 TH_SCHED_HEFT);
		ASSERT_NE(NULL, r);
		EXPECT_TRUE(near(r->job[1].finish, fmax(r->job[0].alone, 100e-6) +
				 r->job[1].alone));
		th_place_result_destroy(r);
	}
	th_place_model_destroy(m);
	th_place_jobs_destroy(j);
}

/* A job alone, released late: it finishes its release after, slowdown 1. */
TEST(a_lone_released_job_is_not_slowed)
{
	struct th_dag_diag d;
	struct th_place_jobs *j = parse(
		"thjobs 1\n"
		"allreduce A members 0-5 root 0 bytes 64K radix 2 release 1ms\n", &d);
	struct th_place_jobs *j0 = parse(
		"thjobs 1\n"
		"allreduce A members 0-5 root 0 bytes 64K radix 2\n", &d);
	struct th_place_model *m = th_place_model_create(6);
	struct th_place_result *r, *r0;

	ASSERT_NE(NULL, j);
	ASSERT_NE(NULL, j0);
	ASSERT_NE(NULL, m);
	r = th_place_run(j, m, TH_PLACE_SCHEDULED, TH_SCHED_HEFT);
	r0 = th_place_run(j0, m, TH_PLACE_SCHEDULED, TH_SCHED_HEFT);
	ASSERT_NE(NULL, r);
	ASSERT_NE(NULL, r0);
	EXPECT_TRUE(near(r->job[0].finish, 1e-3 + r0->job[0].finish));
	EXPECT_TRUE(near(r->job[0].slowdown, 1));
	th_place_result_destroy(r0);
	th_place_result_destroy(r);
	th_place_model_destroy(m);
	th_place_jobs_destroy(j0);
	th_place_jobs_destroy(j);
}

TEST(priorities_and_releases_parse)
{
	struct th_dag_diag d;
	struct th_place_jobs *j = parse(
		"thjobs 1\n"
		"allreduce A members 0-2 root 0 bytes 1K priority 2 release 100us\n"
		"bcast B members 3,5 root 5 bytes 100 release 2ms priority 0.5\n"
		"reduce C members 0-1 root 1 bytes 8 release 3e-6\n"
		"allreduce D members 0-1 root 1 bytes 8 release 7ns\n"
		"allreduce E members 0-1 root 1 bytes 8 release 1s\n"
		"dag G priority 4 release 0\n"
		"  step s1 copy 4K on 2\n"
		"end\n", &d);

	ASSERT_NE(NULL, j) {
		TH_LOG("%u:%u: %s", d.line, d.col, d.msg);
	}
	EXPECT_TRUE(near(th_place_job_priority(j, 0), 2));
	EXPECT_TRUE(near(th_place_job_release(j, 0), 100e-6));
	EXPECT_TRUE(near(th_place_job_priority(j, 1), 0.5));
	EXPECT_TRUE(near(th_place_job_release(j, 1), 2e-3));
	EXPECT_TRUE(near(th_place_job_priority(j, 2), 1));
	EXPECT_TRUE(near(th_place_job_release(j, 2), 3e-6));
	EXPECT_TRUE(near(th_place_job_release(j, 3), 7e-9));
	EXPECT_TRUE(near(th_place_job_release(j, 4), 1));
	EXPECT_TRUE(near(th_place_job_priority(j, 5), 4));
	EXPECT_TRUE(near(th_place_job_release(j, 5), 0));
	th_place_jobs_destroy(j);
}

TEST(bad_priorities_and_releases_are_refused_at_line_and_column)
{
	static const struct {
		const char *text;
		unsigned int line, col;
		const char *msg;
	} bad[] = {
		{ "thjobs 1\nallreduce A members 0-1 root 1 bytes 8 priority 0\n", 2, 49, "priority from" },
		{ "thjobs 1\nallreduce A members 0-1 root 1 bytes 8 priority 1001\n", 2, 49, "priority from" },
		{ "thjobs 1\nallreduce A members 0-1 root 1 bytes 8 priority x\n", 2, 49, "priority from" },
		{ "thjobs 1\nallreduce A members 0-1 root 1 bytes 8 priority\n", 2, 49, "priority from" },
		{ "thjobs 1\nallreduce A members 0-1 root 1 bytes 8 priority 1 priority 2\n", 2, 51, "each once" },
		{ "thjobs 1\nallreduce A members 0-1 root 1 bytes 8 release -1us\n", 2, 48, "release time" },
		{ "thjobs 1\nallreduce A members 0-1 root 1 bytes 8 release 1h\n", 2, 48, "release time" },
		{ "thjobs 1\nallreduce A members 0-1 root 1 bytes 8 release 3601s\n", 2, 48, "release time" },
		{ "thjobs 1\nallreduce A members 0-1 root 1 bytes 8 release us\n", 2, 48, "release time" },
		{ "thjobs 1\nallreduce A members 0-1 root 1 bytes 8 release\n", 2, 48, "release time" },
		{ "thjobs 1\nallreduce A members 0-1 root 1 bytes 8 release 1us release 2us\n", 2, 52, "each once" },
		{ "thjobs 1\ndag G foo\nstep a copy 8\nend\n", 2, 7, "'priority', 'release'" },
		{ "thjobs 1\ndag G release 2ks\nstep a copy 8\nend\n", 2, 15, "release time" },
		{ "thjobs 1\ndag G priority 0.0001\nstep a copy 8\nend\n", 2, 16, "priority from" },
		{ "thjobs 1\ndag G priority 2 priority 2\nstep a copy 8\nend\n", 2, 18, "'priority', 'release'" },
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

TEST(api_refuses_bad_priorities_releases_and_options)
{
	struct th_dag_diag d;
	struct th_place_jobs *j = parse(big_beside_small, &d);
	struct th_place_model *m = th_place_model_create(8);
	struct th_place_opts o = { 0 };

	ASSERT_NE(NULL, j);
	ASSERT_NE(NULL, m);
	EXPECT_EQ(-EINVAL, th_place_set_release(j, 0, -1e-6));
	EXPECT_EQ(-EINVAL, th_place_set_release(j, 0, NAN));
	EXPECT_EQ(-EINVAL, th_place_set_release(j, 0, 3601));
	EXPECT_EQ(-EINVAL, th_place_set_release(j, 3, 0));
	EXPECT_EQ(-EINVAL, th_place_set_release(NULL, 0, 0));
	EXPECT_EQ(-EINVAL, th_place_set_priority(j, 0, 0));
	EXPECT_EQ(-EINVAL, th_place_set_priority(j, 0, 1001));
	EXPECT_EQ(-EINVAL, th_place_set_priority(j, 0, NAN));
	EXPECT_EQ(-EINVAL, th_place_set_priority(j, 3, 1));
	EXPECT_EQ(0, th_place_set_priority(j, 0, 5));
	EXPECT_EQ(0, th_place_set_release(j, 0, 2e-6));
	EXPECT_TRUE(near(th_place_job_priority(j, 0), 5));
	EXPECT_TRUE(near(th_place_job_release(j, 0), 2e-6));

	o.fairness = 0.5;
	errno = 0;
	EXPECT_EQ(NULL, th_place_run_opts(j, m, TH_PLACE_SCHEDULED,
					  TH_SCHED_HEFT, &o));
	EXPECT_EQ(EINVAL, errno);
	o.fairness = INFINITY;
	errno = 0;
	EXPECT_EQ(NULL, th_place_run_opts(j, m, TH_PLACE_SCHEDULED,
					  TH_SCHED_HEFT, &o));
	EXPECT_EQ(EINVAL, errno);
	o.fairness = 0;
	o.compose = TH_PLACE_COMPOSE_NR;
	errno = 0;
	EXPECT_EQ(NULL, th_place_run_opts(j, m, TH_PLACE_SCHEDULED,
					  TH_SCHED_HEFT, &o));
	EXPECT_EQ(EINVAL, errno);
	th_place_model_destroy(m);
	th_place_jobs_destroy(j);
}

TEST(place_eft_refuses_and_places_where_earliest)
{
	struct th_dag *dag = th_dag_create(2);
	struct th_sched *s;
	const struct th_sched_slot *x;

	ASSERT_NE(NULL, dag);
	ASSERT_EQ(0, th_dag_add_edge(dag, 0, 1, 5));
	ASSERT_EQ(0, th_dag_set_procs(dag, 2));
	ASSERT_EQ(0, th_dag_set_cost(dag, 0, 0, 2));
	ASSERT_EQ(0, th_dag_set_cost(dag, 0, 1, 4));
	ASSERT_EQ(0, th_dag_set_cost(dag, 1, 0, 3));
	ASSERT_EQ(0, th_dag_set_cost(dag, 1, 1, 1));
	ASSERT_EQ(0, th_dag_finalize(dag));
	s = th_sched_create(dag);
	ASSERT_NE(NULL, s);
	EXPECT_EQ(-EINVAL, th_sched_place_eft(s, 0, -1));
	EXPECT_EQ(-EINVAL, th_sched_place_eft(s, 0, INFINITY));
	EXPECT_EQ(-EINVAL, th_sched_place_eft(s, 7, 0));
	EXPECT_EQ(-EINVAL, th_sched_place_eft(NULL, 0, 0));
	/* held back to 10: proc 0 finishes at 12 */
	EXPECT_EQ(0, th_sched_place_eft(s, 0, 10));
	EXPECT_EQ(-EEXIST, th_sched_place_eft(s, 0, 0));
	x = th_sched_slot(s, 0);
	EXPECT_TRUE(near(x->start, 10));
	/* proc 0: 12 + 3 = 15; proc 1: 12 + 5 + 1 = 18 */
	EXPECT_EQ(0, th_sched_place_eft(s, 1, 0));
	x = th_sched_slot(s, 1);
	EXPECT_TRUE(near(x->finish, 15));
	/* not before 16: proc 0 from 16 = 19, proc 1 from 17 = 18 */
	th_sched_destroy(s);
	s = th_sched_create(dag);
	ASSERT_NE(NULL, s);
	EXPECT_EQ(0, th_sched_place_eft(s, 0, 10));
	EXPECT_EQ(1, th_sched_place_eft(s, 1, 16));
	x = th_sched_slot(s, 1);
	EXPECT_TRUE(near(x->start, 17));
	th_sched_destroy(s);
	th_dag_destroy(dag);
}

/*
 * A tie goes to the processor the children are pinned to: task 2 sums
 * inputs from procs 0 and 1 (edges of 5), finishing at 1 + 5 + 1 = 7 on
 * any of the three; its child, pinned to proc 2, then finishes at 8
 * there, not at 7 + 5 + 1 = 13 behind a hop from proc 0.
 */
TEST(place_eft_breaks_ties_toward_pinned_children)
{
	struct th_dag *dag = th_dag_create(4);
	struct th_sched *s;
	unsigned int p;

	ASSERT_NE(NULL, dag);
	ASSERT_EQ(0, th_dag_add_edge(dag, 0, 2, 5));
	ASSERT_EQ(0, th_dag_add_edge(dag, 1, 2, 5));
	ASSERT_EQ(0, th_dag_add_edge(dag, 2, 3, 5));
	ASSERT_EQ(0, th_dag_set_procs(dag, 3));
	for (p = 0; p < 3; p++) {
		ASSERT_EQ(0, th_dag_set_cost(dag, 0, p, p == 0 ? 1 : INFINITY));
		ASSERT_EQ(0, th_dag_set_cost(dag, 1, p, p == 1 ? 1 : INFINITY));
		ASSERT_EQ(0, th_dag_set_cost(dag, 2, p, 1));
		ASSERT_EQ(0, th_dag_set_cost(dag, 3, p, p == 2 ? 1 : INFINITY));
	}
	ASSERT_EQ(0, th_dag_finalize(dag));
	s = th_sched_create(dag);
	ASSERT_NE(NULL, s);
	/* the virtual entry, then the two sources */
	ASSERT_EQ(0, th_sched_place_eft(s, th_dag_entry(dag), 0));
	EXPECT_EQ(0, th_sched_place_eft(s, 0, 0));
	EXPECT_EQ(1, th_sched_place_eft(s, 1, 0));
	/* 0, 1 and 2 tie at 7: 2 wins */
	EXPECT_EQ(2, th_sched_place_eft(s, 2, 0));
	EXPECT_EQ(2, th_sched_place_eft(s, 3, 0));
	EXPECT_TRUE(near(th_sched_slot(s, th_sched_nslots(s) - 1)->finish, 8));
	th_sched_destroy(s);
	th_dag_destroy(dag);
}

/*
 * The floor: on two Allreduces over overlapping nodes HEFT's own schedule
 * is longer than each job on its tree; the placer returns the trees one.
 */
TEST(the_scheduled_placement_is_never_longer_than_the_trees_one)
{
	struct th_dag_diag d;
	struct th_place_jobs *j = parse(
		"thjobs 1\n"
		"allreduce A members 0-2 root 0 bytes 64K radix 2\n"
		"allreduce B members 1-3 root 3 bytes 64K radix 2\n", &d);
	struct th_place_model *m = th_place_model_create(4);
	struct th_place_opts o = { .floor = true };
	struct th_place_result *own, *floored, *trees;
	int a;

	ASSERT_NE(NULL, j);
	ASSERT_NE(NULL, m);
	trees = th_place_run(j, m, TH_PLACE_TREES, TH_SCHED_HEFT);
	ASSERT_NE(NULL, trees);
	own = th_place_run(j, m, TH_PLACE_SCHEDULED, TH_SCHED_HEFT);
	ASSERT_NE(NULL, own);
	/* the case the floor is for: HEFT alone is longer here */
	EXPECT_GT(own->makespan, trees->makespan * (1 + 1e-6));
	for (a = 0; a < TH_SCHED_NR_ALGS; a++) {
		floored = th_place_run_opts(j, m, TH_PLACE_SCHEDULED, a, &o);
		ASSERT_NE(NULL, floored);
		check_result(_metadata, j, floored);
		EXPECT_LE(floored->makespan, trees->makespan * (1 + 1e-12));
		th_place_result_destroy(floored);
	}
	floored = th_place_run_opts(j, m, TH_PLACE_SCHEDULED, TH_SCHED_HEFT, &o);
	ASSERT_NE(NULL, floored);
	EXPECT_TRUE(floored->from_trees);
	EXPECT_TRUE(near(floored->makespan, trees->makespan));
	th_place_result_destroy(floored);
	th_place_result_destroy(own);
	th_place_result_destroy(trees);
	th_place_model_destroy(m);
	th_place_jobs_destroy(j);
}

TEST_HARNESS_MAIN
