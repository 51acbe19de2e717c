// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * supervise.c - watching a running job: the event loop over the
 * rendezvous and the signals, the ranks reaped as they exit, and ending
 * the job (ABORT, SIGTERM, SIGKILL after the grace) when one fails or the
 * timeout passes.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "thrun.h"

/*
 * End the job: one line saying why, ABORT to every connection (after
 * what it is already receiving), SIGTERM to every live rank.  Only the
 * first failure speaks; what follows from it is silent.
 */
void job_fail(int err, const char *fmt, ...)
{
	char line[448];
	va_list ap;
	int i;

	if (job.state != JOB_RUNNING)
		return;
	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(line, sizeof(line), fmt, ap);
		va_end(ap);
		th_msg("%s", line);
	}
	job.state = JOB_ABORTING;
	job.err = err;
	for (i = 0; i < job.nconns; i++) {
		struct conn *c = &job.conns[i];

		if (c->fd < 0)
			continue;
		conn_queue(c, TH_BOOT_ABORT, err, NULL);
		c->closing = true;
	}
	for (i = 0; i < job.nranks; i++)
		if (!job.ranks[i].exited && job.ranks[i].pid > 0)
			kill(job.ranks[i].pid, SIGTERM);
	job.kill_at = now_ms() + (int64_t)(job.grace_s * 1000);
}

void on_signal(int sig)
{
	int saved = errno;
	unsigned char b = sig;

	/* a full pipe already holds a wakeup: the result does not matter */
	(void)!write(job.sigw, &b, 1);
	errno = saved;
}

static void rank_exited(int i, int status)
{
	struct rank *r = &job.ranks[i];

	r->exited = true;
	job.live--;
	/*
	 * The first failure is the job's status, as Open MPI's mpirun and
	 * srun report it: what the ranks killed after it return says nothing
	 * (MPICH's hydra ORs every rank's status, which mixes codes: 1|2 = 3).
	 */
	if (job.state == JOB_RUNNING && WIFSIGNALED(status))
		job.exit_code = 128 + WTERMSIG(status);
	else if (job.state == JOB_RUNNING && WEXITSTATUS(status))
		job.exit_code = WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		job_fail(ECONNRESET, "rank %d (pid %d) killed by signal %d",
			 i, (int)r->pid, WTERMSIG(status));
	else if (WEXITSTATUS(status))
		job_fail(ECONNRESET, "rank %d (pid %d) exited with status %d",
			 i, (int)r->pid, WEXITSTATUS(status));
	else
		round_check_gone();
}

static void reap(void)
{
	int status, i;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		for (i = 0; i < job.nranks; i++)
			if (job.ranks[i].pid == pid && !job.ranks[i].exited)
				break;
		if (i < job.nranks)
			rank_exited(i, status);
	}
}

static int loop_timeout(void)
{
	int64_t now = now_ms(), next = -1, t;
	int i;

	if (job.state == JOB_RUNNING && job.deadline)
		next = job.deadline;
	if (job.state == JOB_ABORTING)
		next = job.kill_at;
	if (job.state == JOB_KILLING)
		next = job.giveup_at;
	for (i = 0; job.state == JOB_RUNNING && i < job.nranks; i++) {
		t = job.ranks[i].dropped_at;
		if (t && !job.ranks[i].exited &&
		    (next < 0 || t + THRUN_DROP_GRACE_MS < next))
			next = t + THRUN_DROP_GRACE_MS;
	}
	for (i = 0; i < job.nconns; i++) {
		t = job.conns[i].hello_by;
		if (t && job.conns[i].fd >= 0 && (next < 0 || t < next))
			next = t;
	}
	if (next < 0)
		return -1;
	return next <= now ? 0 : (int)(next - now > INT_MAX ? INT_MAX :
				       next - now);
}

static void loop_timers(void)
{
	int64_t now = now_ms();
	int i;

	if (job.state == JOB_RUNNING && job.deadline && now >= job.deadline)
		job_fail(ETIMEDOUT, "timed out after %g s", job.timeout_s);
	for (i = 0; job.state == JOB_RUNNING && i < job.nranks; i++) {
		struct rank *r = &job.ranks[i];

		if (r->dropped_at && !r->exited &&
		    now >= r->dropped_at + THRUN_DROP_GRACE_MS)
			job_fail(ECONNRESET,
				 "rank %d (pid %d) closed its rendezvous connection and kept running",
				 i, (int)r->pid);
	}
	for (i = 0; i < job.nconns; i++) {
		struct conn *c = &job.conns[i];

		if (c->fd >= 0 && c->hello_by && now >= c->hello_by) {
			conn_refuse(c, 0, "no HELLO within "
				    THRUN_STR(THRUN_HELLO_S) " s");
			conn_close(i);
		}
	}
	if (job.state == JOB_ABORTING && now >= job.kill_at) {
		for (i = 0; i < job.nranks; i++)
			if (!job.ranks[i].exited && job.ranks[i].pid > 0)
				kill(job.ranks[i].pid, SIGKILL);
		job.state = JOB_KILLING;
		job.giveup_at = now + fmax(job.grace_s * 1000,
					   THRUN_REAP_MIN_MS);
	}
}

static void loop_signals(void)
{
	unsigned char sigs[64];
	ssize_t n, i;

	while ((n = read(job.sigr, sigs, sizeof(sigs))) > 0) {
		for (i = 0; i < n; i++) {
			if (sigs[i] == SIGCHLD)
				continue;
			if (job.state == JOB_RUNNING) {
				/* as a shell reports a command it interrupted */
				job.exit_code = 128 + sigs[i];
				job_fail(EINTR, "interrupted by signal %d (%s)",
					 sigs[i], strsignal(sigs[i]));
			}
			else if (job.state == JOB_ABORTING)
				job.kill_at = 0;	/* asked twice: kill now */
		}
	}
	reap();
}

static void loop_event(int ci, short rev)
{
	struct conn *c;
	bool ok = true;

	if (ci < 0) {
		conn_accept();
		return;
	}
	c = &job.conns[ci];
	if (c->fd < 0)
		return;
	if (rev & POLLIN)
		ok = conn_read(c);
	if (ok && (rev & POLLERR))
		ok = false;
	if (ok && c->qlen)
		ok = conn_flush(c);
	if (!ok)
		conn_drop(ci);
	else if (c->closing && !c->qlen)
		conn_close(ci);
	else if ((rev & POLLHUP) && !(rev & POLLIN))
		conn_drop(ci);	/* hung up with nothing left to read */
}

static bool loop_gave_up(void)
{
	int i;

	if (job.state != JOB_KILLING || now_ms() < job.giveup_at)
		return false;
	for (i = 0; i < job.nranks; i++)
		if (!job.ranks[i].exited)
			th_msg("rank %d (pid %d) did not exit after SIGKILL",
			       i, (int)job.ranks[i].pid);
	return true;
}

void loop(void)
{
	struct pollfd *pfd = job.pfd;
	int *idx = job.pidx;
	int n, i, np;

	while (job.live > 0 && !loop_gave_up()) {
		np = 0;
		pfd[np].fd = job.sigr;
		pfd[np++].events = POLLIN;
		if (job.lfd >= 0) {
			idx[np] = -1;
			pfd[np].fd = job.lfd;
			pfd[np++].events = POLLIN;
		}
		for (i = 0; i < job.nconns; i++) {
			struct conn *c = &job.conns[i];

			if (c->fd < 0)
				continue;
			idx[np] = i;
			pfd[np].fd = c->fd;
			/* once aborting, only deliver the ABORT */
			pfd[np].events = job.state == JOB_RUNNING &&
					 !c->closing ? POLLIN : 0;
			if (c->qlen)
				pfd[np].events |= POLLOUT;
			np++;
		}
		n = poll(pfd, np, loop_timeout());
		if (n < 0 && errno != EINTR) {
			th_msg("poll: %s", strerror(errno));
			break;
		}
		loop_signals();
		for (i = 1; n > 0 && i < np; i++)
			if (pfd[i].revents)
				loop_event(idx[i], pfd[i].revents);
		loop_timers();
	}
}
