/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* place_priv.h - the placer's jobs, as jobs.c keeps them for place.c. */
#ifndef TH_PLACE_PRIV_H
#define TH_PLACE_PRIV_H

#include <thverbs/place.h>

/* Bounds of a job's release time (seconds) and priority. */
#define TH_PLACE_MAX_RELEASE	3600.0
#define TH_PLACE_MIN_PRIORITY	0.001
#define TH_PLACE_MAX_PRIORITY	1000.0

struct th_place_dstep {
	char *name;
	enum th_place_step kind;
	unsigned int operands;
	uint64_t bytes;
	unsigned int on;		/* TH_PLACE_ANY: free */
};

struct th_place_dedge {
	unsigned int from, to;
	uint64_t bytes;
};

struct th_place_job {
	char *name;
	enum th_place_job_kind kind;
	/* collectives */
	unsigned int *members;		/* nodes, by rank */
	unsigned int nmembers;
	unsigned int root;		/* a rank */
	uint64_t bytes;
	unsigned int radix;
	/* DAG jobs */
	struct th_place_dstep *steps;
	unsigned int nsteps, cap_steps;
	struct th_place_dedge *edges;
	unsigned int nedges, cap_edges;
	/* fairness (compose.c) */
	double release;			/* seconds */
	double priority;		/* weight, 1 unless set */
};

struct th_place_jobs {
	struct th_place_job *jobs;
	unsigned int njobs, cap;
};

#pragma GCC visibility push(hidden)

struct th_place_classes;
/*
 * place.c: the DAG of job @only (TH_PLACE_ANY: every job) in @mode, on
 * the node classes @cls of @m (NULL: made for it)
 */
struct th_dag *th_place_build(const struct th_place_jobs *j,
			      const struct th_place_model *m,
			      enum th_place_mode mode, unsigned int only,
			      const struct th_place_classes *cls,
			      struct th_place_task **tasks);
/* place.c: each job's finish in @s, the latest of its tasks' first copies */
void th_place_finishes(const struct th_sched *s,
		       const struct th_place_task *task, unsigned int njobs,
		       double *finish);

/* A job's slowdown: its time from release to finish against alone. */
static inline double th_place_slowdown(double finish, double release,
				       double alone)
{
	return alone > 0 ? (finish - release) / alone : 1;
}

/*
 * compose.c: the schedule of every job in @mode as @o asks, into @r's
 * sched, dag, task, compose, bound_met and from_trees; @finish per job.
 * @alone: each job's makespan placed alone, the slowdowns' yardstick.
 */
int th_place_compose_run(const struct th_place_jobs *j,
			 const struct th_place_model *m,
			 enum th_place_mode mode, enum th_sched_alg alg,
			 const struct th_place_opts *o, const double *alone,
			 double *finish, struct th_place_result *r);

/*
 * model.c: a REDUCE's cost on a node of ALU rate r is @fixed + @read / r
 * (th_place_reduce_cost() computes it so): the placer keeps the two terms
 * per free task instead of a cost per rate.
 */
void th_place_reduce_terms(const struct th_place_model *m,
			   unsigned int operands, uint64_t bytes,
			   double *fixed, double *read);
#pragma GCC visibility pop

#endif /* TH_PLACE_PRIV_H */
