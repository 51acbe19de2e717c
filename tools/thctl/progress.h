/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* progress.h - thctl's progress line for long commands (progress.c). */
#ifndef THCTL_PROGRESS_H
#define THCTL_PROGRESS_H

#include <stdbool.h>

/*
 * From two seconds after thctl_progress_start() on, once a second, a line
 * on stderr naming the current stage and the seconds so far: rewritten in
 * place on a terminal, one line per tick with @force elsewhere, nothing
 * otherwise.  Never on stdout (the JSON stays clean).
 */
void thctl_progress_start(const char *cmd, bool force);
/* The stage the next ticks name (copied; at most 95 characters). */
void thctl_progress_stage(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
/* No more ticks; the line is cleared on a terminal. */
void thctl_progress_stop(void);

#endif /* THCTL_PROGRESS_H */
