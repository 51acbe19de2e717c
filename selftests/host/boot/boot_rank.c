// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * boot_rank.c - the rank program test_boot runs under thrun: one mode per
 * scenario (allgather, barrier, a failing or killed rank, a hang, ...),
 * reporting through one line per rank on stdout that the test reads.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <thverbs/boot.h>

/* Reachable at exit, so LeakSanitizer stays quiet on the failure paths. */
static struct th_boot *boot;
static int rank, size;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* One write per line: the ranks share the pipe the test reads. */
static void say(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	if (write(STDOUT_FILENO, line, n) < 0)
		exit(10);
}

static void join(void)
{
	const char *r = getenv("TH_RANK");

	boot = th_boot_init();
	if (!boot) {
		/* a late joiner of a failed job: the same shape as the others */
		say("boot_rank %s: init: %d (%s)", r ? r : "?", -errno,
		    strerror(errno));
		exit(3);
	}
	rank = th_boot_rank(boot);
	size = th_boot_size(boot);
}

/* A rendezvous that must fail: report the error, exit 3 (0 if it worked). */
static int expect_failure(int ret, const char *what)
{
	if (!ret) {
		say("boot_rank %d: %s succeeded", rank, what);
		return 0;
	}
	say("boot_rank %d: %s: %d (%s)", rank, what, ret, strerror(-ret));
	/* the handle stays failed: a second call says the same at once */
	if (th_boot_barrier(boot) != ret)
		say("boot_rank %d: error not sticky", rank);
	th_boot_fini(boot);
	return 3;
}

static unsigned char pattern(int r, int round, size_t i)
{
	return (unsigned char)(r * 131 + round * 17 + i * 7 + (i >> 8));
}

static int mode_allgather(void)
{
	static const size_t lens[] = { 1, 7, 64, 4096, 65536, 3 };
	unsigned char *mine, *all;
	size_t round, i, len;
	int r, ret;

	join();
	if (rank != atoi(getenv("TH_RANK")) || size != atoi(getenv("TH_SIZE"))) {
		say("boot_rank %d: rank/size disagree with the environment", rank);
		return 1;
	}
	for (round = 0; round < sizeof(lens) / sizeof(lens[0]); round++) {
		len = lens[round];
		mine = malloc(len);
		all = malloc(len * size);
		if (!mine || !all)
			return 10;
		for (i = 0; i < len; i++)
			mine[i] = pattern(rank, round, i);
		memset(all, 0xee, len * size);
		ret = th_boot_allgather(boot, mine, all, len);
		if (ret) {
			say("boot_rank %d: allgather %zu: %d", rank, len, ret);
			return 1;
		}
		for (r = 0; r < size; r++)
			for (i = 0; i < len; i++)
				if (all[r * len + i] != pattern(r, round, i)) {
					say("boot_rank %d: round %zu: byte %zu of rank %d wrong",
					    rank, round, i, r);
					return 1;
				}
		free(mine);
		free(all);
		ret = th_boot_barrier(boot);
		if (ret) {
			say("boot_rank %d: barrier: %d", rank, ret);
			return 1;
		}
	}
	/* refused before anything is read or written */
	ret = th_boot_allgather(boot, &rank, &rank, TH_BOOT_MAX_GATHER + 1ul);
	if (ret != -EMSGSIZE) {
		say("boot_rank %d: oversized allgather gave %d", rank, ret);
		return 1;
	}
	th_boot_fini(boot);
	say("boot_rank %d/%d: allgather ok", rank, size);
	return 0;
}

/* Append "phase rank" to @file, barrier, and count the phase's lines. */
static int mode_barrier(const char *file, int phases)
{
	char buf[16384];
	int fd, p, n, count, ret;
	ssize_t got;
	char *s;

	join();
	fd = open(file, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return 10;
	for (p = 0; p < phases; p++) {
		n = snprintf(buf, sizeof(buf), "%d %d\n", p, rank);
		if (write(fd, buf, n) != n)
			return 10;
		ret = th_boot_barrier(boot);
		if (ret) {
			say("boot_rank %d: barrier: %d", rank, ret);
			return 1;
		}
		got = pread(fd, buf, sizeof(buf) - 1, 0);
		if (got < 0)
			return 10;
		buf[got] = '\0';
		count = 0;
		for (s = buf; *s; s = strchr(s, '\n') + 1) {
			if (atoi(s) == p)
				count++;
			if (!strchr(s, '\n'))
				break;
		}
		if (count != size) {
			say("boot_rank %d: phase %d: %d of %d ranks before the barrier",
			    rank, p, count, size);
			return 1;
		}
	}
	close(fd);
	th_boot_fini(boot);
	say("boot_rank %d/%d: barrier ok", rank, size);
	return 0;
}

/* Rank @victim exits 1 while the others block in a barrier. */
static int mode_fail(int victim)
{
	signal(SIGTERM, SIG_IGN);	/* to live long enough to report */
	join();
	if (th_boot_barrier(boot))
		return 10;
	if (rank == victim)
		exit(1);
	return expect_failure(th_boot_barrier(boot), "barrier");
}

static void *kill_self(void *arg)
{
	(void)arg;
	poll(NULL, 0, 20);	/* let the main thread block in the barrier */
	raise(SIGKILL);
	return NULL;
}

/*
 * Wait until thrun reaped @pid (bounded at 10 s): by then it has ended
 * the job, so a barrier entered afterwards cannot complete with the dead
 * rank's contribution.
 */
static void wait_reaped(pid_t pid)
{
	char path[64];
	int i;

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	for (i = 0; i < 2000 && !access(path, F_OK); i++)
		poll(NULL, 0, 5);
}

/*
 * Rank @victim is SIGKILLed inside a barrier; the next rank enters that
 * barrier only once the victim is dead, so the barrier cannot complete.
 */
static int mode_kill(int victim)
{
	pid_t *pids, me = getpid();
	pthread_t t;
	int watcher;

	signal(SIGTERM, SIG_IGN);
	join();
	pids = calloc(size, sizeof(*pids));
	if (!pids || th_boot_allgather(boot, &me, pids, sizeof(me)))
		return 10;
	watcher = (victim + 1) % size;
	if (rank == victim) {
		if (pthread_create(&t, NULL, kill_self, NULL))
			return 10;
	} else if (rank == watcher) {
		wait_reaped(pids[victim]);
	}
	free(pids);
	return expect_failure(th_boot_barrier(boot), "barrier");
}

/* Rank 0 never arrives; with @stubborn it also ignores SIGTERM. */
static int mode_hang(int stubborn)
{
	if (stubborn || getenv("TH_RANK")[0] != '0')
		signal(SIGTERM, SIG_IGN);
	join();
	if (th_boot_barrier(boot))
		return 10;
	if (rank == 0) {
		for (;;)
			pause();
	}
	return expect_failure(th_boot_barrier(boot), "barrier");
}

/*
 * Rank 0 closes its rendezvous socket behind the library's back (no BYE)
 * and keeps running; SIGTERM ends it.
 */
static int mode_drop(void)
{
	if (getenv("TH_RANK")[0] != '0')
		signal(SIGTERM, SIG_IGN);
	join();
	if (th_boot_barrier(boot))
		return 10;
	if (rank == 0) {
		close_range(3, ~0u, 0);
		for (;;)
			pause();
	}
	return expect_failure(th_boot_barrier(boot), "barrier");
}

/* The last rank exits 0 without ever joining. */
static int mode_early(void)
{
	if (atoi(getenv("TH_RANK")) == atoi(getenv("TH_SIZE")) - 1)
		return 0;
	signal(SIGTERM, SIG_IGN);
	join();
	return expect_failure(th_boot_barrier(boot), "barrier");
}

/* Every rank gives a different length. */
static int mode_mismatch(void)
{
	char buf[64] = { 0 }, *all;
	int ret;

	signal(SIGTERM, SIG_IGN);
	join();
	if (th_boot_barrier(boot))
		return 10;
	all = malloc(sizeof(buf) * size);
	if (!all)
		return 10;
	ret = th_boot_allgather(boot, buf, all, rank + 1);
	free(all);
	return expect_failure(ret, "allgather");
}

static const char *env_or(const char *name)
{
	const char *v = getenv(name);

	return v ? v : "unset";
}

static int mode_env(void)
{
	int in[2], *out;
	int ret;

	join();
	out = calloc(size, sizeof(in));
	if (!out)
		return 10;
	in[0] = rank;
	in[1] = 42;
	ret = th_boot_allgather(boot, in, out, sizeof(in));
	if (!ret)
		ret = th_boot_barrier(boot);
	say("boot_rank env rank=%s size=%s single=%s provider=%s boot=%s boot_rank=%d boot_size=%d gather=%d,%d ret=%d",
	    env_or("TH_RANK"), env_or("TH_SIZE"), env_or("TH_SINGLE"),
	    env_or("TH_PROVIDER"), getenv("TH_BOOT") ? "set" : "unset",
	    rank, size, out[2 * (size - 1)], out[2 * (size - 1) + 1], ret);
	free(out);
	th_boot_fini(boot);
	return ret ? 1 : 0;
}

/* Where this rank's thread may run: how many CPUs, and the first. */
static int rank_cpus(struct th_boot *b, void *arg)
{
	cpu_set_t set;
	int c, first = -1;

	(void)arg;
	if (pthread_getaffinity_np(pthread_self(), sizeof(set), &set))
		return 10;
	for (c = 0; c < CPU_SETSIZE && first < 0; c++)
		if (CPU_ISSET(c, &set))
			first = c;
	say("boot_rank cpus rank=%d count=%d first=%d", th_boot_rank(b),
	    CPU_COUNT(&set), first);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int arg = argc > 2 ? atoi(argv[2]) : 0;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (!strcmp(mode, "allgather"))
		return mode_allgather();
	if (!strcmp(mode, "barrier") && argc > 3)
		return mode_barrier(argv[2], atoi(argv[3]));
	if (!strcmp(mode, "fail"))
		return mode_fail(arg);
	if (!strcmp(mode, "kill"))
		return mode_kill(arg);
	if (!strcmp(mode, "hang"))
		return mode_hang(0);
	if (!strcmp(mode, "stubborn"))
		return mode_hang(1);
	if (!strcmp(mode, "drop"))
		return mode_drop();
	if (!strcmp(mode, "early"))
		return mode_early();
	if (!strcmp(mode, "mismatch"))
		return mode_mismatch();
	if (!strcmp(mode, "env"))
		return mode_env();
	if (!strcmp(mode, "cpus"))
		return th_boot_run(rank_cpus, NULL) ? 1 : 0;
	fprintf(stderr, "usage: boot_rank allgather | barrier FILE PHASES | fail R | kill R | hang | stubborn | drop | early | mismatch | env | cpus\n");
	return 2;
}
