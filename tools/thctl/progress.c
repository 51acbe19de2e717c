// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * progress.c - thctl's progress line: an interval timer whose SIGALRM
 * handler writes the current stage and the elapsed seconds to stderr with
 * write(2) (async-signal-safe), so a long library call (a placement) gets
 * its line without calling back into the tool.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

#define PROGRESS_DELAY_S	2	/* quiet commands print nothing */

/* Two stage buffers: the handler reads the one @stage_cur names. */
static char progress_stage_buf[2][96];
static volatile sig_atomic_t progress_cur;
static volatile sig_atomic_t progress_printed;
static char progress_cmd[32];
static bool progress_tty;
static bool progress_on;
static struct timespec progress_t0;

static size_t progress_put(char *buf, size_t at, size_t cap, const char *s)
{
	while (*s && at + 1 < cap)
		buf[at++] = *s++;
	return at;
}

static void progress_tick(int sig)
{
	char line[192], num[16];
	struct timespec now;
	size_t at = 0;
	int n = 0;
	long secs;

	(void)sig;
	clock_gettime(CLOCK_MONOTONIC, &now);
	secs = now.tv_sec - progress_t0.tv_sec;
	if (progress_tty)
		at = progress_put(line, at, sizeof(line), "\r\033[K");
	at = progress_put(line, at, sizeof(line), progress_cmd);
	at = progress_put(line, at, sizeof(line), ": ");
	at = progress_put(line, at, sizeof(line),
			  progress_stage_buf[progress_cur]);
	at = progress_put(line, at, sizeof(line), ", ");
	do {	/* the seconds, digits reversed then put right */
		num[n++] = '0' + secs % 10;
		secs /= 10;
	} while (secs && n < (int)sizeof(num));
	while (n && at + 1 < sizeof(line))
		line[at++] = num[--n];
	at = progress_put(line, at, sizeof(line), " s");
	if (!progress_tty)
		at = progress_put(line, at, sizeof(line), "\n");
	if (write(STDERR_FILENO, line, at) > 0)
		progress_printed = 1;
}

void thctl_progress_start(const char *cmd, bool force)
{
	struct itimerval it = { .it_value = { PROGRESS_DELAY_S, 0 },
				.it_interval = { 1, 0 } };
	struct sigaction sa;

	progress_tty = isatty(STDERR_FILENO);
	progress_on = progress_tty || force;
	if (!progress_on)
		return;
	snprintf(progress_cmd, sizeof(progress_cmd), "%s", cmd);
	clock_gettime(CLOCK_MONOTONIC, &progress_t0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = progress_tick;
	sa.sa_flags = SA_RESTART;	/* the command's reads go on */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
}

void thctl_progress_stage(const char *fmt, ...)
{
	int next = !progress_cur;
	va_list ap;

	if (!progress_on)
		return;
	va_start(ap, fmt);
	vsnprintf(progress_stage_buf[next], sizeof(progress_stage_buf[next]),
		  fmt, ap);
	va_end(ap);
	progress_cur = next;	/* the handler sees a whole string */
}

void thctl_progress_stop(void)
{
	struct itimerval off = { { 0, 0 }, { 0, 0 } };

	if (!progress_on)
		return;
	setitimer(ITIMER_REAL, &off, NULL);
	signal(SIGALRM, SIG_DFL);
	if (progress_printed && progress_tty &&
	    write(STDERR_FILENO, "\r\033[K", 4) < 0)
		progress_printed = 0;
	progress_on = false;
}
