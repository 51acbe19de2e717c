// SPDX-License-Identifier: GPL-2.0 OR MIT
/* thctl.c - entry point of thctl: dispatches to one command per table row. */
#include <stdio.h>
#include <string.h>

#include "thctl.h"

struct thctl_cmd {
	const char *name;
	int (*main)(int argc, char **argv);
	const char *help;
};

static const struct thctl_cmd thctl_cmds[] = {
	{ "demo",  thctl_demo_main,  "an offloaded reduction on the in-process NIC model, narrated" },
	{ "place", thctl_place_main, "place offload jobs on the NIC nodes (HAGD and others) and predict" },
	{ "sched", thctl_sched_main, "schedule a task graph (HEFT, PETS, HCPFD, HAGD)" },
	{ "sim",   thctl_sim_main,   "simulate a GOAL schedule under LogGP(S), as LogGOPSim does" },
	{ "tree",  thctl_tree_main,  "print the k-nomial tree of N ranks" },
	{ "devices", thctl_devices_main, "list the nodes of a provider" },
	{ "info", thctl_info_main, "a node's ABI version, limits and features" },
	{ "stat", thctl_stat_main, "th_nic.ko: statistics of every node, a node, a vport" },
	{ "vports", thctl_vports_main, "th_nic.ko: the vports, their owners, state and memory" },
	{ "counters", thctl_counters_main, "th_nic.ko: a vport's counters" },
	{ "fault", thctl_fault_main, "th_nic.ko: fault injection: show, set, clear" },
	{ "monitor", thctl_monitor_main, "th_nic.ko: vports created, destroyed, in error; faults" },
	{ "post", thctl_post_main, "run a chain file: set up, post, trigger, wait, print" },
	{ "verify", thctl_verify_main, "prove a chain file's chains will fire, finish and fit" },
};

static void thctl_usage(FILE *f)
{
	unsigned int i;

	fprintf(f, "usage: thctl COMMAND [ARGS]\n       thctl --version\n\ncommands:\n");
	for (i = 0; i < sizeof(thctl_cmds) / sizeof(thctl_cmds[0]); i++)
		fprintf(f, "  %-10s %s\n", thctl_cmds[i].name, thctl_cmds[i].help);
	fprintf(f, "\n'thctl COMMAND --help' describes a command; --version prints the release.\n"
		   "Exit status: 0 success, 1 the operation failed, 2 usage error.\n");
}

int main(int argc, char **argv)
{
	unsigned int i;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		thctl_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? THCTL_EXIT_USAGE : THCTL_EXIT_OK;
	}
	/* TH_VERSION: the top Makefile's VERSION, through CPPFLAGS */
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("thctl (th_nic) %s\n", TH_VERSION);
		return THCTL_EXIT_OK;
	}
	for (i = 0; i < sizeof(thctl_cmds) / sizeof(thctl_cmds[0]); i++)
		if (!strcmp(argv[1], thctl_cmds[i].name))
			return thctl_cmds[i].main(argc - 1, argv + 1);
	fprintf(stderr, "thctl: unknown command '%s'\n", argv[1]);
	thctl_usage(stderr);
	return THCTL_EXIT_USAGE;
}
