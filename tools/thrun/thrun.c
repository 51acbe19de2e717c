// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * thrun.c - start a th_nic job: N processes, one per node, joined by the
 * bootstrap rendezvous (lib/libthverbs/boot) that this launcher serves
 * over a UNIX socket; or across hosts (--hosts), each rank started through
 * a launcher command such as ssh and joined over TCP with the job's random
 * key; or one process driving all N nodes (--single).  On the kernel
 * provider the job gets a domain of its own, whose descriptor every rank
 * receives with its WELCOME (SCM_RIGHTS).  A rank that fails, or the
 * job's timeout, ends the whole job.
 *
 * This file holds the stages in order (main(): the arguments, the setup,
 * the ranks started, the event loop, the teardown); each stage has a
 * file: args.c, domain.c, rendezvous.c, spawn.c, supervise.c, and msg.c
 * the clock and the messages they all use (thrun.h for what they share).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "thrun.h"

struct job job = { .lfd = -1, .domain_fd = -1, .sigr = -1, .sigw = -1 };

static void cleanup(void)
{
	int i;

	for (i = 0; job.conns && i < job.nconns; i++)
		if (job.conns[i].fd >= 0)
			conn_close(i);
	rbuf_put(job.round.buf);
	if (job.lfd >= 0)
		close(job.lfd);
	if (job.domain_fd >= 0)
		close(job.domain_fd);
	if (job.path[0])
		unlink(job.path);
	if (job.dir[0])
		rmdir(job.dir);
	free(job.conns);
	free(job.ranks);
	free(job.pfd);
	free(job.pidx);
	free(job.hosts);
	free(job.launcher);
}

/* 0; a negative errno for main() to report; 1 when it said why itself. */
static int setup(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	int fds[2], i, ret;
	char s[32];

	job.nranks = job.single ? 1 : job.nodes;
	job.ranks = calloc(job.nranks, sizeof(*job.ranks));
	job.nconns = job.single ? 0 : job.nranks + THRUN_EXTRA_CONNS;
	job.conns = calloc(job.nconns + 1, sizeof(*job.conns));
	job.pfd = calloc(job.nconns + 2, sizeof(*job.pfd));
	job.pidx = calloc(job.nconns + 2, sizeof(*job.pidx));
	if (!job.ranks || !job.conns || !job.pfd || !job.pidx)
		return -ENOMEM;
	for (i = 0; i < job.nranks; i++)
		job.ranks[i].conn = -1;
	for (i = 0; i < job.nconns; i++) {
		job.conns[i].fd = -1;
		job.conns[i].rank = -1;
	}

	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK))
		return -errno;
	job.sigr = fds[0];
	job.sigw = fds[1];
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (job.hosts) {
		ret = tcp_open();
		if (ret)
			return ret;
	} else if (!job.single) {
		ret = socket_open();
		if (ret)
			return ret;
		if (job_uses_kernel()) {
			ret = domain_open();
			if (ret) {
				th_msg("cannot create the job's domain on /dev/th_nic0: %s",
				       strerror(-ret));
				return 1;	/* said why already */
			}
		}
	}
	/* the ranks' own bound on a rendezvous outlasts the job's */
	if (job.timeout_s > 0 && !getenv("TH_BOOT_TIMEOUT")) {
		snprintf(s, sizeof(s), "%g",
			 ceil(job.timeout_s + 2 * job.grace_s + 1));
		setenv("TH_BOOT_TIMEOUT", s, 1);
	}
	if (job.timeout_s > 0)
		job.deadline = now_ms() + (int64_t)ceil(job.timeout_s * 1000);
	return 0;
}

int main(int argc, char **argv)
{
	int ret;

	if (parse_args(argc, argv)) {
		usage(stderr);
		return EXIT_USAGE;
	}
	ret = setup();
	if (ret) {
		if (ret < 0)
			th_msg("cannot set up the job: %s", strerror(-ret));
		cleanup();
		return EXIT_FAILED;
	}
	ranks_start();
	loop();
	ret = job.state == JOB_RUNNING ? EXIT_OK :
	      job.exit_code ? job.exit_code : EXIT_FAILED;
	cleanup();
	return ret;
}
