/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * mutants.h - the mutation check of the chain verifier: the library's
 * own plans broken in one small random way each (a threshold, a counter
 * number, a target node, a length, a dropped chain), each verified and
 * run on the in-process provider in a child process with a deadline, and
 * the confusion matrix of the two (Documentation/verify.rst, "Mutants").
 */
#ifndef TH_VERIFY_MUTANTS_H
#define TH_VERIFY_MUTANTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* what a mutant did when run */
enum mut_run {
	MUT_RAN_OK,	/* the round completed with the right data */
	MUT_RAN_WRONG,	/* it completed, with wrong data */
	MUT_RAN_FAILED,	/* refused when posted, or an error entry */
	MUT_RAN_HUNG,	/* no completion by the deadline */
	MUT_RUN_MAX
};

/* how a plan was broken */
enum mut_kind {
	MUT_THRESHOLD, MUT_COUNTER, MUT_TARGET, MUT_LENGTH, MUT_DROP,
	MUT_KIND_MAX
};

struct mut_result {
	enum mut_kind kind;
	enum mut_run run;
	bool verified;		/* the verifier ran on it */
	bool flagged;		/* ... and found an error (not a warning) */
	int vclass;		/* the first error's class, or -1 */
	char what[160];		/* the mutation, in words */
};

struct mut_config {
	unsigned int mutants;
	uint64_t seed;
	unsigned int timeout_ms;	/* the round's deadline */
	unsigned int jobs;		/* children at a time */
	bool verbose;			/* a line per mutant */
};

/* matrix[run][flagged]; per kind too */
struct mut_matrix {
	unsigned int cell[MUT_RUN_MAX][2];
	unsigned int kind[MUT_KIND_MAX][MUT_RUN_MAX][2];
	unsigned int mutants;
};

/* Run @cfg->mutants mutants; their results into @res (that many), summed in @mx. */
int mut_run_all(const struct mut_config *cfg, struct mut_result *res,
		struct mut_matrix *mx, FILE *log);
void mut_print(const struct mut_matrix *mx, FILE *f);
const char *mut_run_name(enum mut_run r);
const char *mut_kind_name(enum mut_kind k);

#endif /* TH_VERIFY_MUTANTS_H */
