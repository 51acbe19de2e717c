// SPDX-License-Identifier: GPL-2.0 OR MIT
/* thbench.c - entry point of thbench: dispatches to one benchmark per file. */
#include <stdio.h>
#include <string.h>

#include "thbench.h"

struct thbench_cmd {
	const char *name;
	int (*main)(int argc, char **argv);
	const char *help;
};

static const struct thbench_cmd thbench_cmds[] = {
	{ "allreduce", thbench_allreduce_main, "Allreduce: offload vs host-driven p2p tree, recursive doubling, MPICH" },
	{ "allreduce-mp", thbench_allreduce_mp_main, "the same, one process per node (run under thrun)" },
	{ "alu",   thbench_alu_main,   "ALU throughput per op, dtype and operand count" },
	{ "faults", thbench_faults_main, "Allreduces under lost deliveries: right, failed, wrong, hung; latency" },
	{ "overlap", thbench_overlap_main, "overlap and noise slowdown at one N: offload, p2p tree, MPICH" },
	{ "place", thbench_place_main, "multi-job placement: every algorithm and the baselines, predicted and measured" },
	{ "placegen", thbench_placegen_main, "a random multi-job workload as a job file, for thctl place at scale" },
	{ "post",  thbench_post_main,  "latency of a one-descriptor chain and of a triggered hop (ofi: under thrun -n 2)" },
	{ "threads", thbench_threads_main, "ranks as threads: the offload under each wait policy beside OpenMP" },
	{ "sched", thbench_sched_main, "DAG scheduler evaluation sweep (HEFT, PETS, HCPFD, HAGD)" },
};

static void thbench_usage(FILE *f)
{
	unsigned int i;

	fprintf(f, "usage: thbench COMMAND [ARGS]\n       thbench --version\n\ncommands:\n");
	for (i = 0; i < sizeof(thbench_cmds) / sizeof(thbench_cmds[0]); i++)
		fprintf(f, "  %-13s %s\n", thbench_cmds[i].name, thbench_cmds[i].help);
	fprintf(f, "\n'thbench COMMAND --help' describes a command; --version prints the release.\n"
		   "Exit status: 0 success, 1 failure, 2 usage error.\n");
}

int main(int argc, char **argv)
{
	unsigned int i;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		thbench_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	/* TH_VERSION: the top Makefile's VERSION, through CPPFLAGS */
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("thbench (th_nic) %s\n", TH_VERSION);
		return 0;
	}
	for (i = 0; i < sizeof(thbench_cmds) / sizeof(thbench_cmds[0]); i++)
		if (!strcmp(argv[1], thbench_cmds[i].name))
			return thbench_cmds[i].main(argc - 1, argv + 1);
	fprintf(stderr, "thbench: unknown command '%s'\n", argv[1]);
	thbench_usage(stderr);
	return 2;
}
