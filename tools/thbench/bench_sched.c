// SPDX-License-Identifier: GPL-2.0 OR MIT
/* bench_sched.c - placeholder until the sched benchmark lands. */
#include <stdio.h>

#include "thbench.h"

int thbench_sched_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "thbench sched: not built yet\n");
	return 1;
}
