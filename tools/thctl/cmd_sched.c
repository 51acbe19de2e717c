// SPDX-License-Identifier: GPL-2.0 OR MIT
/* cmd_sched.c - placeholder until 'thctl sched' lands. */
#include <stdio.h>

#include "thctl.h"

int thctl_sched_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "thctl sched: not built yet\n");
	return THCTL_EXIT_FAIL;
}
