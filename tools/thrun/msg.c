// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * msg.c - what every stage of thrun uses: the monotonic clock in
 * milliseconds and thrun's one-line messages on stderr.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "thrun.h"

int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void th_msg(const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* one write: the line does not interleave with the ranks' output */
	dprintf(STDERR_FILENO, "thrun: %s\n", line);
}
