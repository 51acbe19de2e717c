/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * place_run.h - 'thctl place --run', '--verify', '--sim' and
 * '--export-goal' (place_run.c): the chosen placements verified before
 * anything is posted, then run on a provider, or their chains simulated,
 * predicted against measured or simulated per job, or written as GOAL.
 */
#ifndef THCTL_PLACE_RUN_H
#define THCTL_PLACE_RUN_H

#include <stdbool.h>

#include <thverbs/place.h>

struct thctl_place_run_opts {
	bool run;		/* run each placement and measure it */
	bool verify;		/* verify each placement's chains first */
	bool sim;		/* simulate each placement's chains */
	bool timed;		/* on the model's virtual clock (inproc) */
	bool json, pretty;
	const char *provider;	/* "inproc" (NULL) or "kernel" */
	unsigned int reps;	/* rounds measured, the median kept */
	int alg;		/* -1: every algorithm and the per-job trees */
	const struct th_place_opts *place;	/* --compose, --fairness */
};

/* Exit status (enum thctl_exit); messages on stderr. */
int thctl_place_run(const struct thctl_place_run_opts *o,
		    const struct th_place_jobs *j,
		    const struct th_place_model *m);

/*
 * Do the model's nodes share one ALU rate?  The simulator's NIC costs
 * (--sim) and a GOAL calc (--export-goal) have one for every node.
 */
bool thctl_place_one_alu_rate(const struct th_place_model *m);

/*
 * --export-goal: the first round of placement @r's chains (@label's) as
 * GOAL text to @path (th_sim_chains_goal()), its times in picoseconds as
 * --sim's; the LogGP parameters that go with it on stderr.  Exit status.
 */
int thctl_place_export_goal(const struct th_place_jobs *j,
			    const struct th_place_model *m,
			    const struct th_place_result *r,
			    const char *label, const char *path);

#endif /* THCTL_PLACE_RUN_H */
