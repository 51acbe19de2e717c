// SPDX-License-Identifier: GPL-2.0 OR MIT
/* bench_alu.c - placeholder until the alu benchmark lands. */
#include <stdio.h>

#include "thbench.h"

int thbench_alu_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "thbench alu: not built yet\n");
	return 1;
}
