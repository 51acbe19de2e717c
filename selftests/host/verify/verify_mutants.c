// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * verify_mutants.c - the mutation check as a command (make
 * verify-mutants): verify_mutants [--mutants N] [--seed S] [--timeout-ms T]
 * [--jobs J] [-v]; prints the confusion matrix of how each broken plan
 * ran against whether the verifier flagged it (mutants.h).  Exit 0 when
 * every mutant that hung or failed was flagged, 1 otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mutants.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: verify_mutants [--mutants N] [--seed S] [--timeout-ms T] [--jobs J] [-v]\n"
		"Break the library's plans in N random small ways (default 1000), verify\n"
		"and run each on the in-process provider (a child process each, killed\n"
		"past T ms (default 500) plus its start-up), and print the confusion\n"
		"matrix.  Exit 1 when a mutant that hung or failed was not flagged.\n");
}

int main(int argc, char **argv)
{
	struct mut_config cfg = { .mutants = 1000, .seed = 1, .timeout_ms = 500,
				  .jobs = 2 };
	struct mut_result *res;
	struct mut_matrix mx;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--mutants") && i + 1 < argc)
			cfg.mutants = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			cfg.seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--timeout-ms") && i + 1 < argc)
			cfg.timeout_ms = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--jobs") && i + 1 < argc)
			cfg.jobs = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "-v"))
			cfg.verbose = true;
		else {
			usage(strcmp(argv[i], "-h") && strcmp(argv[i], "--help") ?
			      stderr : stdout);
			return strcmp(argv[i], "-h") && strcmp(argv[i], "--help") ? 2 : 0;
		}
	}
	if (!cfg.mutants || !cfg.timeout_ms || !cfg.jobs) {
		usage(stderr);
		return 2;
	}
	res = calloc(cfg.mutants, sizeof(*res));
	if (!res || mut_run_all(&cfg, res, &mx, stdout)) {
		fprintf(stderr, "verify_mutants: out of memory\n");
		return 2;
	}
	mut_print(&mx, stdout);
	/* a mutant that could not set up, crashed, or had nothing to break */
	if (mx.mutants != cfg.mutants)
		printf("not run: %u of %u (see -v)\n", cfg.mutants - mx.mutants,
		       cfg.mutants);
	free(res);
	return mx.cell[MUT_RAN_HUNG][0] + mx.cell[MUT_RAN_FAILED][0] ? 1 : 0;
}
