/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* place_priv.h - the placer's jobs, as jobs.c keeps them for place.c. */
#ifndef TH_PLACE_PRIV_H
#define TH_PLACE_PRIV_H

#include <thverbs/place.h>

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
};

struct th_place_jobs {
	struct th_place_job *jobs;
	unsigned int njobs, cap;
};

#pragma GCC visibility push(hidden)
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
