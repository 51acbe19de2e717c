// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_boot.c - thrun and the bootstrap rendezvous: allgather and barrier
 * across real processes, every failure path (a rank exits 1, is killed
 * mid-rendezvous, never arrives, the job times out) ending the job
 * promptly with one clear line, --single, --threads (ranks as threads,
 * an offloaded Allreduce job checked), --bind, usage; and the client alone
 * against a fake launcher that vanishes, stalls or aborts.  --hosts runs
 * through launchers that stay on this host (a plain one, and an "ssh"
 * that re-joins its words for a shell in a clean environment), so the
 * TCP rendezvous, its key, its refusals and its usage errors are covered
 * without root or other hosts.
 */
#include <errno.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <regex.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include <thverbs/boot.h>
#include "boot_priv.h"
#include "boot_proto.h"

#ifndef TH_THRUN
#error "TH_THRUN: the path of thrun, from boot-tests.mk"
#endif
#ifndef TH_BOOT_RANK
#error "TH_BOOT_RANK: the path of boot_rank, from boot-tests.mk"
#endif
#ifndef TH_COLL_RANK
#error "TH_COLL_RANK: the path of coll_rank, from boot-tests.mk"
#endif

/* Every thrun run must end within this, whatever goes wrong. */
#define RUN_LIMIT_MS	20000
#define OUT_CAP		(1 << 20)

struct run {
	int status;		/* thrun's exit status, -1 if it did not end */
	long ms;		/* wall time */
	char *out;		/* thrun's and the ranks' stdout + stderr */
};

static long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Run thrun with a NULL-terminated argument list; bounded by RUN_LIMIT_MS. */
static void thrun(struct run *r, ...)
{
	const char *argv[32] = { TH_THRUN };
	long start = mono_ms(), left;
	size_t len = 0;
	int p[2], argc = 1, st;
	struct pollfd pfd;
	va_list ap;
	ssize_t n;
	pid_t pid;

	va_start(ap, r);
	while (argc < 31 && (argv[argc] = va_arg(ap, const char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;

	r->status = -1;
	r->out = calloc(1, OUT_CAP + 1);
	if (!r->out || pipe2(p, O_CLOEXEC))
		return;
	pid = fork();
	if (pid == 0) {
		dup2(p[1], STDOUT_FILENO);
		dup2(p[1], STDERR_FILENO);
		execv(TH_THRUN, (char **)argv);
		_exit(126);
	}
	close(p[1]);
	pfd.fd = p[0];
	pfd.events = POLLIN;
	/* until every writer (thrun and its ranks) closed the pipe */
	for (;;) {
		left = RUN_LIMIT_MS - (mono_ms() - start);
		if (left <= 0 || poll(&pfd, 1, left) <= 0)
			break;
		n = read(p[0], r->out + len, OUT_CAP - len);
		if (n <= 0)
			break;
		len += n;
	}
	close(p[0]);
	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (mono_ms() - start > RUN_LIMIT_MS) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			r->ms = mono_ms() - start;
			return;
		}
		poll(NULL, 0, 2);
	}
	r->ms = mono_ms() - start;
	if (WIFEXITED(st))
		r->status = WEXITSTATUS(st);
}

static int count_lines(const char *out, const char *needle)
{
	int n = 0;

	for (; (out = strstr(out, needle)); out++)
		n++;
	return n;
}

static bool matches(const char *out, const char *pattern)
{
	regex_t re;
	bool m;

	if (regcomp(&re, pattern, REG_EXTENDED | REG_NEWLINE | REG_NOSUB))
		return false;
	m = !regexec(&re, out, 0, NULL, 0);
	regfree(&re);
	return m;
}

static int count_matches(const char *out, const char *pattern)
{
	regmatch_t m;
	regex_t re;
	int n = 0;

	if (regcomp(&re, pattern, REG_EXTENDED | REG_NEWLINE))
		return -1;
	while (!regexec(&re, out, 1, &m, 0)) {
		n++;
		out += m.rm_eo ? m.rm_eo : 1;
	}
	regfree(&re);
	return n;
}

/* Lines from thrun itself: exactly one when a job fails. */
static int thrun_lines(const char *out)
{
	return count_matches(out, "^thrun: ");
}

/* ---- outside thrun ---------------------------------------------------- */

TEST(init_outside_thrun_is_enoent)
{
	unsetenv("TH_BOOT");
	unsetenv("TH_SINGLE");
	errno = 0;
	ASSERT_EQ(NULL, th_boot_init());
	ASSERT_EQ(ENOENT, errno);
	th_boot_fini(NULL);
}

TEST(init_malformed_env_is_einval)
{
	unsetenv("TH_SINGLE");
	setenv("TH_BOOT", "/nonexistent/boot.sock", 1);
	setenv("TH_SIZE", "4", 1);
	setenv("TH_RANK", "4", 1);	/* out of range */
	errno = 0;
	ASSERT_EQ(NULL, th_boot_init());
	ASSERT_EQ(EINVAL, errno);
	setenv("TH_RANK", "1x", 1);
	errno = 0;
	ASSERT_EQ(NULL, th_boot_init());
	ASSERT_EQ(EINVAL, errno);
	/* well formed, but nobody listens */
	setenv("TH_RANK", "1", 1);
	errno = 0;
	ASSERT_EQ(NULL, th_boot_init());
	ASSERT_EQ(ENOENT, errno);
	unsetenv("TH_BOOT");
}

/* ---- the client against a fake launcher -------------------------------- */

enum fake_mode { FAKE_VANISH, FAKE_STALL, FAKE_ABORT };

struct fake {
	int lfd;
	enum fake_mode mode;
	int release[2];		/* STALL holds the connection until this */
	char dir[64], path[108];
	pthread_t thread;
};

static void *fake_launcher(void *arg)
{
	struct fake *f = arg;
	struct th_boot_msg m;
	char c;
	int fd;

	fd = accept(f->lfd, NULL, NULL);
	if (fd < 0)
		return NULL;
	if (recv(fd, &m, sizeof(m), MSG_WAITALL) != sizeof(m) ||
	    m.type != TH_BOOT_HELLO)
		goto out;
	memset(&m, 0, sizeof(m));
	m.magic = TH_BOOT_MAGIC;
	m.type = TH_BOOT_WELCOME;
	if (send(fd, &m, sizeof(m), MSG_NOSIGNAL) != sizeof(m))
		goto out;
	/* the rank's barrier */
	if (recv(fd, &m, sizeof(m), MSG_WAITALL) != sizeof(m))
		goto out;
	if (f->mode == FAKE_ABORT) {
		m.type = TH_BOOT_ABORT;
		m.err = ETIMEDOUT;
		send(fd, &m, sizeof(m), MSG_NOSIGNAL);
	} else if (f->mode == FAKE_STALL) {
		if (read(f->release[0], &c, 1) < 0)
			goto out;
	}
out:
	close(fd);
	return NULL;
}

FIXTURE(fake) {
	struct fake f;
	struct th_boot *b;
};

FIXTURE_VARIANT(fake) {
	enum fake_mode mode;
	int err;
};

FIXTURE_VARIANT_ADD(fake, vanish) { .mode = FAKE_VANISH, .err = -ECONNRESET };
FIXTURE_VARIANT_ADD(fake, stall) { .mode = FAKE_STALL, .err = -ETIMEDOUT };
FIXTURE_VARIANT_ADD(fake, abort) { .mode = FAKE_ABORT, .err = -ETIMEDOUT };

FIXTURE_SETUP(fake)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	self->f.mode = variant->mode;
	strcpy(self->f.dir, "/tmp/test_boot.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->f.dir));
	snprintf(self->f.path, sizeof(self->f.path), "%s/s", self->f.dir);
	strcpy(sa.sun_path, self->f.path);
	self->f.lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, self->f.lfd);
	ASSERT_EQ(0, bind(self->f.lfd, (struct sockaddr *)&sa, sizeof(sa)));
	ASSERT_EQ(0, listen(self->f.lfd, 4));
	ASSERT_EQ(0, pipe2(self->f.release, O_CLOEXEC));
	ASSERT_EQ(0, pthread_create(&self->f.thread, NULL, fake_launcher,
				    &self->f));
	unsetenv("TH_SINGLE");
	setenv("TH_BOOT", self->f.path, 1);
	setenv("TH_RANK", "0", 1);
	setenv("TH_SIZE", "2", 1);
	setenv("TH_BOOT_TIMEOUT", "0.2", 1);
}

FIXTURE_TEARDOWN(fake)
{
	th_boot_fini(self->b);
	if (write(self->f.release[1], "x", 1) < 0)
		TH_LOG("cannot release the fake launcher");
	pthread_join(self->f.thread, NULL);
	close(self->f.release[0]);
	close(self->f.release[1]);
	close(self->f.lfd);
	unlink(self->f.path);
	rmdir(self->f.dir);
	unsetenv("TH_BOOT");
	unsetenv("TH_BOOT_TIMEOUT");
}

TEST_F(fake, barrier_fails_promptly_and_stays_failed)
{
	char all[2];
	long start;

	self->b = th_boot_init();
	ASSERT_NE(NULL, self->b);
	ASSERT_EQ(0, th_boot_rank(self->b));
	ASSERT_EQ(2, th_boot_size(self->b));
	start = mono_ms();
	ASSERT_EQ(variant->err, th_boot_barrier(self->b));
	/* 0.2 s client timeout; the others are immediate */
	EXPECT_GT(2000, mono_ms() - start);
	start = mono_ms();
	ASSERT_EQ(variant->err, th_boot_barrier(self->b));
	ASSERT_EQ(variant->err, th_boot_allgather(self->b, "x", all, 1));
	EXPECT_GT(100, mono_ms() - start);
}

/* ---- thrun: the rendezvous works -------------------------------------- */

FIXTURE(gather) {
	struct run r;
};

FIXTURE_VARIANT(gather) {
	const char *n;
	int ranks;
};

FIXTURE_VARIANT_ADD(gather, n1) { .n = "1", .ranks = 1 };
FIXTURE_VARIANT_ADD(gather, n2) { .n = "2", .ranks = 2 };
FIXTURE_VARIANT_ADD(gather, n5) { .n = "5", .ranks = 5 };
FIXTURE_VARIANT_ADD(gather, n16) { .n = "16", .ranks = 16 };

FIXTURE_SETUP(gather)
{
	memset(&self->r, 0, sizeof(self->r));
}

FIXTURE_TEARDOWN(gather)
{
	free(self->r.out);
}

TEST_F(gather, allgather_data_checked)
{
	char want[64];

	thrun(&self->r, "-n", variant->n, "--timeout", "15", TH_BOOT_RANK,
	      "allgather", NULL);
	TH_LOG("%s", self->r.out);
	ASSERT_EQ(0, self->r.status);
	snprintf(want, sizeof(want), "/%d: allgather ok", variant->ranks);
	ASSERT_EQ(variant->ranks, count_lines(self->r.out, want));
	ASSERT_EQ(0, thrun_lines(self->r.out));
}

TEST(barrier_orders_phases)
{
	char file[] = "/tmp/test_boot_barrier.XXXXXX";
	struct run r;
	int fd;

	fd = mkstemp(file);
	ASSERT_LE(0, fd);
	close(fd);
	thrun(&r, "-n", "6", "--timeout", "15", TH_BOOT_RANK, "barrier", file,
	      "8", NULL);
	unlink(file);
	TH_LOG("%s", r.out);
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(6, count_lines(r.out, "/6: barrier ok"));
	free(r.out);
}

TEST(env_of_ranks)
{
	struct run r;
	char want[256];
	int i;

	unsetenv("TH_BOOT_TIMEOUT");
	thrun(&r, "-n", "3", "--provider", "inproc", "--timeout", "15",
	      TH_BOOT_RANK, "env", NULL);
	TH_LOG("%s", r.out);
	EXPECT_EQ(0, r.status);
	for (i = 0; i < 3; i++) {
		snprintf(want, sizeof(want),
			 "rank=%d size=3 single=unset provider=inproc boot=set boot_rank=%d boot_size=3 gather=2,42 ret=0\n",
			 i, i);
		EXPECT_EQ(1, count_lines(r.out, want));
	}
	free(r.out);
}

/*
 * A kernel job gets a domain of its own: without the module there is
 * none to be had, and thrun says so instead of starting ranks that could
 * reach other users' jobs... or nothing at all.
 */
TEST(kernel_job_without_the_module_says_why)
{
	struct run r;

	if (!access("/dev/th_nic0", F_OK))
		SKIP(return, "th_nic.ko is loaded here");
	thrun(&r, "-n", "2", "--provider", "kernel", "--timeout", "15",
	      TH_BOOT_RANK, "env", NULL);
	TH_LOG("%s", r.out);
	EXPECT_EQ(1, r.status);
	EXPECT_EQ(1, count_lines(r.out,
		  "cannot create the job's domain on /dev/th_nic0: No such file or directory"));
	EXPECT_EQ(1, count_lines(r.out, "thrun: "));	/* one line, no more */
	EXPECT_EQ(0, count_lines(r.out, "boot_rank env"));
	free(r.out);
}

TEST(single_drives_all_nodes)
{
	struct run r;

	thrun(&r, "--single", "-n", "7", "--provider", "inproc",
	      TH_BOOT_RANK, "env", NULL);
	TH_LOG("%s", r.out);
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(1, count_lines(r.out,
		  "boot_rank env rank=0 size=7 single=1 provider=inproc boot=unset boot_rank=0 boot_size=1 gather=0,42 ret=0\n"));
	EXPECT_EQ(1, count_lines(r.out, "boot_rank env"));
	free(r.out);
}

/* ---- thrun --threads: ranks as threads of one process ------------------ */

TEST(threads_run_an_allreduce_job)
{
	static const char *const jobs[][2] = {
		{ "16", "4" }, { "64", "2" }, { "5", "8" },
	};
	unsigned int i;
	struct run r;

	for (i = 0; i < sizeof(jobs) / sizeof(jobs[0]); i++) {
		thrun(&r, "--threads", jobs[i][0], "--provider", "inproc",
		      "--timeout", "15", TH_COLL_RANK, "3", jobs[i][1], NULL);
		TH_LOG("--threads %s, radix %s: %s", jobs[i][0], jobs[i][1], r.out);
		EXPECT_EQ(0, r.status);
		EXPECT_EQ(0, thrun_lines(r.out));
		free(r.out);
	}
}

TEST(threads_a_rank_that_leaves_fails_the_job_not_hangs)
{
	struct run r;

	ASSERT_EQ(0, setenv("COLL_KILL_RANK", "5", 1));
	thrun(&r, "--threads", "16", "--provider", "inproc", "--timeout", "15",
	      TH_COLL_RANK, "3", "4", NULL);
	unsetenv("COLL_KILL_RANK");
	TH_LOG("%s", r.out);
	EXPECT_EQ(1, r.status);
	/* failed, not timed out: thrun's own --timeout would say so */
	EXPECT_EQ(0, count_matches(r.out, "timed out"));
	free(r.out);
}

TEST(threads_usage_errors)
{
	struct run r;

	thrun(&r, "--threads", "4", "--single", TH_COLL_RANK, NULL);
	EXPECT_EQ(2, r.status);
	EXPECT_EQ(1, count_matches(r.out, "exclude each other"));
	free(r.out);
	thrun(&r, "--threads", "4", "-n", "5", TH_COLL_RANK, NULL);
	EXPECT_EQ(2, r.status);
	EXPECT_EQ(1, count_matches(r.out, "disagree"));
	free(r.out);
	thrun(&r, "--threads", "0", TH_COLL_RANK, NULL);
	EXPECT_EQ(2, r.status);
	free(r.out);
}

/* ---- thrun: failures end the job ------------------------------------- */

/* @blocked ranks reported @err from their rendezvous instead of hanging. */
static int blocked_errors(const char *out, int err)
{
	char pat[96];

	snprintf(pat, sizeof(pat), "^boot_rank [0-9]+: [a-z]+: %d ", -err);
	return count_matches(out, pat);
}

TEST(rank_exits_1)
{
	struct run r;

	thrun(&r, "-n", "4", "--timeout", "15", TH_BOOT_RANK, "fail", "3",
	      NULL);
	TH_LOG("%s", r.out);
	EXPECT_EQ(1, r.status);
	EXPECT_TRUE(matches(r.out,
		    "^thrun: rank 3 \\(pid [0-9]+\\) exited with status 1$"));
	EXPECT_EQ(1, thrun_lines(r.out));
	EXPECT_EQ(3, blocked_errors(r.out, ECONNRESET));
	EXPECT_EQ(0, count_lines(r.out, "not sticky"));
	EXPECT_GT(5000, r.ms);
	free(r.out);
}

TEST(rank_sigkilled_mid_rendezvous)
{
	struct run r;

	thrun(&r, "-n", "4", "--timeout", "15", TH_BOOT_RANK, "kill", "2",
	      NULL);
	TH_LOG("%s", r.out);
	EXPECT_EQ(128 + SIGKILL, r.status);	/* as a shell says it */
	EXPECT_TRUE(matches(r.out,
		    "^thrun: rank 2 \\(pid [0-9]+\\) killed by signal 9$"));
	EXPECT_EQ(1, thrun_lines(r.out));
	EXPECT_EQ(3, blocked_errors(r.out, ECONNRESET));
	EXPECT_GT(5000, r.ms);
	free(r.out);
}

TEST(rank_exits_0_without_joining)
{
	struct run r;

	thrun(&r, "-n", "3", "--timeout", "15", TH_BOOT_RANK, "early", NULL);
	TH_LOG("%s", r.out);
	EXPECT_EQ(1, r.status);
	EXPECT_TRUE(matches(r.out,
		    "^thrun: rank 2 \\(pid [0-9]+\\) exited without joining rendezvous round 0$"));
	/*
	 * Rank 0 or 1 opened the round; the other may still be starting
	 * and die of the SIGTERM before it could ignore it.  Nobody hangs.
	 */
	EXPECT_LE(1, blocked_errors(r.out, ECONNRESET));
	EXPECT_EQ(0, count_lines(r.out, "succeeded"));
	EXPECT_EQ(1, thrun_lines(r.out));
	EXPECT_GT(5000, r.ms);
	free(r.out);
}

TEST(connection_dropped_without_bye)
{
	struct run r;

	thrun(&r, "-n", "3", "--timeout", "15", TH_BOOT_RANK, "drop", NULL);
	TH_LOG("%s (%ld ms)", r.out, r.ms);
	EXPECT_EQ(1, r.status);
	EXPECT_TRUE(matches(r.out,
		    "^thrun: rank 0 \\(pid [0-9]+\\) closed its rendezvous connection and kept running$"));
	EXPECT_EQ(1, thrun_lines(r.out));
	EXPECT_EQ(2, blocked_errors(r.out, ECONNRESET));
	EXPECT_GT(5000, r.ms);
	free(r.out);
}

TEST(mismatched_lengths)
{
	struct run r;

	thrun(&r, "-n", "3", "--timeout", "15", TH_BOOT_RANK, "mismatch",
	      NULL);
	TH_LOG("%s", r.out);
	EXPECT_EQ(1, r.status);
	EXPECT_TRUE(matches(r.out, "^thrun: rendezvous round 1: rank [0-9]+ gave"));
	EXPECT_EQ(3, blocked_errors(r.out, EPROTO));
	free(r.out);
}

TEST(timeout_releases_blocked_ranks)
{
	struct run r;

	thrun(&r, "-n", "3", "--timeout", "1", "--grace", "0.5", TH_BOOT_RANK,
	      "hang", NULL);
	TH_LOG("%s (%ld ms)", r.out, r.ms);
	EXPECT_EQ(1, r.status);
	EXPECT_TRUE(matches(r.out, "^thrun: timed out after 1 s$"));
	EXPECT_EQ(1, thrun_lines(r.out));
	EXPECT_EQ(2, blocked_errors(r.out, ETIMEDOUT));
	EXPECT_LE(1000, r.ms);
	/* rank 0 dies of SIGTERM: no need to wait for the grace period */
	EXPECT_GT(1000 + 500 + 1000, r.ms);
	free(r.out);
}

TEST(timeout_sigkills_after_grace)
{
	struct run r;

	thrun(&r, "-n", "2", "--timeout", "0.5", "--grace", "0.3",
	      TH_BOOT_RANK, "stubborn", NULL);
	TH_LOG("%s (%ld ms)", r.out, r.ms);
	EXPECT_EQ(1, r.status);
	EXPECT_TRUE(matches(r.out, "^thrun: timed out after 0.5 s$"));
	EXPECT_EQ(1, thrun_lines(r.out));
	EXPECT_EQ(1, blocked_errors(r.out, ETIMEDOUT));
	EXPECT_LE(500 + 300, r.ms);
	EXPECT_GT(500 + 300 + 1000, r.ms);
	free(r.out);
}

TEST(exec_failure)
{
	struct run r;

	thrun(&r, "-n", "3", "/nonexistent/prog", NULL);
	TH_LOG("%s", r.out);
	EXPECT_EQ(1, r.status);
	EXPECT_TRUE(matches(r.out,
		    "^thrun: cannot run '/nonexistent/prog': No such file or directory$"));
	EXPECT_EQ(1, thrun_lines(r.out));
	free(r.out);
}

/*
 * thrun's status is the first failing rank's, as mpirun's: the code, or
 * 128 + the signal; what the ranks it then ends return does not count
 * (issue K: it was always 1).
 */
TEST(exit_status_is_the_first_failing_ranks)
{
	struct run r;

	thrun(&r, "-n", "3", "--", "sh", "-c",
	      "[ $TH_RANK = 1 ] && exit 7; sleep 10; exit 9", NULL);
	TH_LOG("%s", r.out);
	EXPECT_EQ(7, r.status);
	EXPECT_TRUE(matches(r.out,
		    "^thrun: rank 1 \\(pid [0-9]+\\) exited with status 7$"));
	EXPECT_EQ(1, thrun_lines(r.out));
	free(r.out);

	thrun(&r, "-n", "2", "--", "sh", "-c",
	      "[ $TH_RANK = 0 ] && kill -USR1 $$; sleep 10", NULL);
	TH_LOG("%s", r.out);
	EXPECT_EQ(128 + SIGUSR1, r.status);
	free(r.out);

	/* one process under --threads: its status passes through too */
	thrun(&r, "--threads", "4", "--", "sh", "-c", "exit 42", NULL);
	EXPECT_EQ(42, r.status);
	free(r.out);
}

/* mpiexec's spelling, -np N, is -n N (issue K) */
TEST(np_is_n)
{
	struct run r;

	thrun(&r, "-np", "3", "--provider", "inproc", "--timeout", "15",
	      TH_BOOT_RANK, "env", NULL);
	TH_LOG("%s", r.out);
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(3, count_matches(r.out, "^boot_rank env rank=[0-2] size=3 "));
	free(r.out);
	thrun(&r, "--provider", "inproc", "-np=2", "sh", "-c", "echo r$TH_RANK/$TH_SIZE", NULL);
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(2, count_matches(r.out, "^r[01]/2$"));
	free(r.out);
	/* after the program, -np is the program's */
	thrun(&r, "-n", "1", "sh", "-c", "echo \"$@\"", "sh", "-np", "5", NULL);
	EXPECT_EQ(0, r.status);
	EXPECT_TRUE(matches(r.out, "^-np 5$"));
	free(r.out);
}

/* ---- usage ------------------------------------------------------------ */

TEST(version)
{
	struct run r;

	thrun(&r, "--version", NULL);
	EXPECT_EQ(0, r.status);
	EXPECT_TRUE(matches(r.out, "^thrun \\(th_nic\\) " TH_VERSION "$"));
	free(r.out);
	thrun(&r, "--help", NULL);
	EXPECT_TRUE(matches(r.out, "--version"));
	free(r.out);
}

/* A malformed TH_PROVIDER is said once, by thrun, not by every rank. */
TEST(bad_provider_env_said_once)
{
	struct run r;

	setenv("TH_PROVIDER", "bogus", 1);
	thrun(&r, "-n", "4", TH_BOOT_RANK, "env", NULL);
	unsetenv("TH_PROVIDER");
	TH_LOG("%s", r.out);
	EXPECT_EQ(2, r.status);
	EXPECT_EQ(1, count_matches(r.out,
		  "^thrun: TH_PROVIDER='bogus' is not valid: expected kernel, inproc, ofi or auto$"));
	EXPECT_EQ(0, count_lines(r.out, "boot_rank env"));
	free(r.out);
}

/* The CPUs this process may use, in order, into @cpus; how many (or -1). */
static int own_cpus(int *cpus)
{
	cpu_set_t set;
	int c, n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	return n;
}

/* This process's "Cpus_allowed_list:" value, as the ranks will print it. */
static void own_cpu_list(char *buf, size_t len)
{
	char line[512];
	FILE *f = fopen("/proc/self/status", "r");

	buf[0] = '\0';
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Cpus_allowed_list: %511s", line) == 1) {
			snprintf(buf, len, "%s", line);
			break;
		}
	if (f)
		fclose(f);
}

/* Each rank says the CPUs it may run on, in one line. */
#define SAY_CPUS "echo \"rank=$TH_RANK cpus=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)\""

/*
 * --bind: by default each of two ranks or more runs on a CPU of its own
 * while they fit (rank r on the r-th CPU thrun may use), on all of them
 * when they do not or when the job is one rank; "none" never binds, "cpu" binds round robin past the last CPU.
 * Checked against this process's own CPUs, whatever the machine has.
 */
TEST(bind_gives_each_rank_a_cpu_while_they_fit)
{
	char all[512], want[600], n_fit[16], n_over[16];
	int cpus[CPU_SETSIZE], ncpu, fit, i;
	struct run r;

	ncpu = own_cpus(cpus);
	ASSERT_LT(0, ncpu);
	own_cpu_list(all, sizeof(all));
	ASSERT_NE('\0', all[0]);
	fit = ncpu < 4 ? ncpu : 4;
	snprintf(n_fit, sizeof(n_fit), "%d", fit);
	snprintf(n_over, sizeof(n_over), "%d", ncpu + 1);

	thrun(&r, "-n", n_fit, "sh", "-c", SAY_CPUS, NULL);
	TH_LOG("%s", r.out);
	EXPECT_EQ(0, r.status);
	for (i = 0; i < fit; i++) {
		snprintf(want, sizeof(want), "rank=%d cpus=%d\n", i, cpus[i]);
		EXPECT_EQ(1, count_lines(r.out, want));
	}
	free(r.out);

	thrun(&r, "-n", n_fit, "--bind", "none", "sh", "-c", SAY_CPUS, NULL);
	for (i = 0; i < fit; i++) {
		snprintf(want, sizeof(want), "rank=%d cpus=%s\n", i, all);
		EXPECT_EQ(1, count_lines(r.out, want));
	}
	free(r.out);

	/* one rank alone keeps every CPU for its threads */
	thrun(&r, "-n", "1", "sh", "-c", SAY_CPUS, NULL);
	snprintf(want, sizeof(want), "rank=0 cpus=%s\n", all);
	EXPECT_EQ(1, count_lines(r.out, want));
	free(r.out);

	/* one rank more than CPUs: none bound, unless asked */
	thrun(&r, "-n", n_over, "sh", "-c", SAY_CPUS, NULL);
	EXPECT_EQ(0, r.status);
	snprintf(want, sizeof(want), " cpus=%s\n", all);
	EXPECT_EQ(ncpu + 1, count_lines(r.out, want));
	free(r.out);
	thrun(&r, "-n", n_over, "--bind", "cpu", "sh", "-c", SAY_CPUS, NULL);
	EXPECT_EQ(0, r.status);
	snprintf(want, sizeof(want), "rank=%d cpus=%d\n", ncpu, cpus[0]);
	EXPECT_EQ(1, count_lines(r.out, want));
	free(r.out);

	thrun(&r, "-n", "2", "--bind", "core", "true", NULL);
	EXPECT_EQ(2, r.status);
	EXPECT_TRUE(matches(r.out, "--bind wants auto, cpu or none, not 'core'"));
	free(r.out);
	thrun(&r, "--single", "-n", "2", "--bind", "cpu", "true", NULL);
	EXPECT_EQ(2, r.status);
	EXPECT_TRUE(matches(r.out, "--bind cpu binds ranks on this host: not with --single"));
	free(r.out);
}

/*
 * --threads passes --bind to the rank threads (TH_BIND): by default each
 * of two threads or more runs on a CPU of its own while they fit, "none"
 * leaves them on every CPU, "cpu" binds round robin past the last.
 */
TEST(threads_bind_like_processes)
{
	int cpus[CPU_SETSIZE], ncpu, fit, i;
	char want[96], n_fit[16], n_over[16];
	struct run r;

	ncpu = own_cpus(cpus);
	ASSERT_LT(0, ncpu);
	fit = ncpu < 4 ? ncpu : 4;
	snprintf(n_fit, sizeof(n_fit), "%d", fit);
	snprintf(n_over, sizeof(n_over), "%d", ncpu + 1);
	if (fit < 2)
		SKIP(return, "one CPU: no two rank threads to bind apart");

	thrun(&r, "--threads", n_fit, "--timeout", "15", TH_BOOT_RANK, "cpus", NULL);
	TH_LOG("%s", r.out);
	EXPECT_EQ(0, r.status);
	for (i = 0; i < fit; i++) {
		snprintf(want, sizeof(want), "boot_rank cpus rank=%d count=1 first=%d\n",
			 i, cpus[i]);
		EXPECT_EQ(1, count_lines(r.out, want));
	}
	free(r.out);

	thrun(&r, "--threads", n_fit, "--bind", "none", "--timeout", "15",
	      TH_BOOT_RANK, "cpus", NULL);
	EXPECT_EQ(0, r.status);
	for (i = 0; i < fit; i++) {
		snprintf(want, sizeof(want), "boot_rank cpus rank=%d count=%d first=%d\n",
			 i, ncpu, cpus[0]);
		EXPECT_EQ(1, count_lines(r.out, want));
	}
	free(r.out);

	/* one more than CPUs: none bound by default, round robin with cpu */
	thrun(&r, "--threads", n_over, "--timeout", "15", TH_BOOT_RANK, "cpus", NULL);
	EXPECT_EQ(0, r.status);
	snprintf(want, sizeof(want), " count=%d first=%d\n", ncpu, cpus[0]);
	EXPECT_EQ(ncpu + 1, count_lines(r.out, want));
	free(r.out);
	thrun(&r, "--threads", n_over, "--bind", "cpu", "--timeout", "15",
	      TH_BOOT_RANK, "cpus", NULL);
	EXPECT_EQ(0, r.status);
	snprintf(want, sizeof(want), "boot_rank cpus rank=%d count=1 first=%d\n",
		 ncpu, cpus[0]);
	EXPECT_EQ(1, count_lines(r.out, want));
	free(r.out);
}

struct bound_rank {
	int count, first;
};

static int note_cpus(struct th_boot *b, void *arg)
{
	struct bound_rank *out = arg;
	cpu_set_t set;
	int c, r = th_boot_rank(b);

	if (pthread_getaffinity_np(pthread_self(), sizeof(set), &set))
		return -EIO;
	out[r].count = CPU_COUNT(&set);
	for (c = 0, out[r].first = -1; c < CPU_SETSIZE && out[r].first < 0; c++)
		if (CPU_ISSET(c, &set))
			out[r].first = c;
	return 0;
}

/*
 * th_boot_run_threads() without thrun: TH_BIND unset binds nothing,
 * "cpu" binds each rank to its CPU, and a value it does not know is
 * refused before any rank runs.
 */
TEST(run_threads_binds_as_th_bind_says)
{
	struct bound_rank got[2];
	int ncpu, first, c;
	cpu_set_t set;

	ASSERT_EQ(0, sched_getaffinity(0, sizeof(set), &set));
	ncpu = CPU_COUNT(&set);
	for (c = 0, first = -1; c < CPU_SETSIZE && first < 0; c++)
		if (CPU_ISSET(c, &set))
			first = c;

	unsetenv("TH_BIND");
	memset(got, 0, sizeof(got));
	ASSERT_EQ(0, th_boot_run_threads(2, note_cpus, got));
	EXPECT_EQ(ncpu, got[0].count);
	EXPECT_EQ(ncpu, got[1].count);

	ASSERT_EQ(0, setenv("TH_BIND", "cpu", 1));
	memset(got, 0, sizeof(got));
	EXPECT_EQ(0, th_boot_run_threads(2, note_cpus, got));
	EXPECT_EQ(1, got[0].count);
	EXPECT_EQ(1, got[1].count);
	EXPECT_EQ(first, got[0].first);
	if (ncpu >= 2)
		EXPECT_NE(got[0].first, got[1].first);

	ASSERT_EQ(0, setenv("TH_BIND", "core", 1));
	memset(got, 0, sizeof(got));
	EXPECT_EQ(-EINVAL, th_boot_run_threads(2, note_cpus, got));
	EXPECT_EQ(0, got[0].count);	/* no rank ran */
	unsetenv("TH_BIND");
}

TEST(usage)
{
	struct run r;

	thrun(&r, "--help", NULL);
	EXPECT_EQ(0, r.status);
	EXPECT_TRUE(matches(r.out, "^usage: thrun -n N"));
	EXPECT_TRUE(matches(r.out, "inproc"));
	free(r.out);

	thrun(&r, NULL);
	EXPECT_EQ(2, r.status);
	free(r.out);
	thrun(&r, "-n", "0", "true", NULL);
	EXPECT_EQ(2, r.status);
	free(r.out);
	thrun(&r, "-n", "2", "--provider", "rdma", "true", NULL);
	EXPECT_EQ(2, r.status);
	free(r.out);
	thrun(&r, "-n", "2", "--timeout", "soon", "true", NULL);
	EXPECT_EQ(2, r.status);
	free(r.out);
	thrun(&r, "-n", "2", NULL);
	EXPECT_EQ(2, r.status);
	free(r.out);

	/* and a plain program: no rendezvous needed */
	thrun(&r, "-n", "3", "--", "true", NULL);
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(0, thrun_lines(r.out));
	free(r.out);
}

/* ---- thrun --hosts: a TCP rendezvous with a key ---------------------- */

/*
 * Launchers that run the rank here: "launch" as `ip netns exec` would
 * (HOST, then the command's words as they are), "ssh" as ssh does (the
 * words joined with spaces, for a shell, in a clean environment: what the
 * rank gets must have come in the command line).  Both export TEST_HOST.
 */
static char launch_dir[] = "/tmp/test_boot_hosts.XXXXXX";
static char launch_local[64], launch_ssh[64], launch_log[64];

static bool write_script(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return false;
	fputs(text, f);
	return !fclose(f) && !chmod(path, 0700);
}

static void launchers_make(struct __test_metadata *_metadata)
{
	ASSERT_NE(NULL, mkdtemp(launch_dir));
	snprintf(launch_local, sizeof(launch_local), "%s/launch", launch_dir);
	snprintf(launch_ssh, sizeof(launch_ssh), "%s/ssh", launch_dir);
	snprintf(launch_log, sizeof(launch_log), "%s/argv.log", launch_dir);
	/* each records its whole command line, as ps would show it */
	ASSERT_TRUE(write_script(launch_local,
		"#!/bin/sh\necho \"$0 $*\" >> \"${0%/*}/argv.log\"\n"
		"host=$1; shift\nTEST_HOST=$host exec \"$@\"\n"));
	ASSERT_TRUE(write_script(launch_ssh,
		"#!/bin/sh\necho \"$0 $*\" >> \"${0%/*}/argv.log\"\n"
		"host=$1; shift\n"
		"exec env -i PATH=\"$PATH\" TEST_HOST=\"$host\" sh -c \"$*\"\n"));
}

static void launchers_remove(void)
{
	unlink(launch_local);
	unlink(launch_ssh);
	unlink(launch_log);
	rmdir(launch_dir);
}

/* What the launchers were run with so far, NUL-terminated (free()). */
static char *launch_argv_log(void)
{
	FILE *f = fopen(launch_log, "r");
	char *text = calloc(1, OUT_CAP + 1);

	if (f && text)
		(void)!fread(text, 1, OUT_CAP, f);
	if (f)
		fclose(f);
	return text;
}

TEST(hosts_tcp_rendezvous)
{
	char prog[512];
	struct run r;

	launchers_make(_metadata);
	snprintf(prog, sizeof(prog),
		 "echo \"host=$TEST_HOST rank=$TH_RANK boot=$TH_BOOT key=${#TH_BOOT_KEY}\"; exec %s allgather",
		 TH_BOOT_RANK);
	thrun(&r, "-n", "5", "--hosts", "a,b", "--listen", "127.0.0.1",
	      "--launcher", launch_local, "--timeout", "15", "--", "sh", "-c",
	      prog, NULL);
	TH_LOG("%s", r.out);
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(5, count_lines(r.out, "/5: allgather ok"));
	/* rank r on host r % 2, all at thrun's port, with a 128-bit key */
	EXPECT_EQ(5, count_matches(r.out,
		  "^host=(a rank=[024]|b rank=[13]) boot=tcp:127\\.0\\.0\\.1:[0-9]+ key=32$"));
	EXPECT_EQ(0, thrun_lines(r.out));
	free(r.out);

	/* the launcher's status is the rank's; SIGTERM reaches the others */
	thrun(&r, "-n", "3", "--hosts", "a", "--listen", "127.0.0.1",
	      "--launcher", launch_local, "--timeout", "15", "--", "sh", "-c",
	      "[ $TH_RANK = 1 ] && exit 7; exec sleep 10", NULL);
	TH_LOG("%s", r.out);
	EXPECT_EQ(7, r.status);
	EXPECT_TRUE(matches(r.out,
		    "^thrun: rank 1 \\(pid [0-9]+\\) exited with status 7$"));
	EXPECT_EQ(1, thrun_lines(r.out));
	EXPECT_GT(5000, r.ms);
	free(r.out);
	launchers_remove();
}

TEST(hosts_ipv6)
{
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6,
				   .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct run r;

	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		if (fd >= 0)
			close(fd);
		SKIP(return, "no IPv6 loopback here");
	}
	close(fd);
	launchers_make(_metadata);
	thrun(&r, "-n", "2", "--hosts", "a", "--listen", "::1",
	      "--launcher", launch_local, "--timeout", "15", "--", "sh", "-c",
	      "echo boot=$TH_BOOT; exec " TH_BOOT_RANK " allgather", NULL);
	TH_LOG("%s", r.out);
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(2, count_matches(r.out, "^boot=tcp:\\[::1\\]:[0-9]+$"));
	EXPECT_EQ(2, count_lines(r.out, "/2: allgather ok"));
	free(r.out);
	/* [::1] is the same address */
	thrun(&r, "-n", "1", "--hosts", "a", "--listen", "[::1]",
	      "--launcher", launch_local, "--timeout", "15",
	      TH_BOOT_RANK, "allgather", NULL);
	EXPECT_EQ(0, r.status);
	free(r.out);
	launchers_remove();
}

/*
 * Anyone on the network reaches the port: a wrong key, no key, a key that
 * is not one, a stranger that speaks something else and one that says
 * nothing are each turned away, and the job's own ranks go on.
 */
TEST(hosts_key_refusals_leave_the_job_alone)
{
	char prog[1024];
	struct run r;

	launchers_make(_metadata);
	snprintf(prog, sizeof(prog),
		 "if [ $TH_RANK = 0 ]; then "
		 "TH_BOOT_KEY=00000000000000000000000000000000 %1$s env; "
		 "env -u TH_BOOT_KEY %1$s env; "
		 "TH_BOOT_KEY=$TH_BOOT_KEY$TH_BOOT_KEY %1$s env; "
		 "a=${TH_BOOT#tcp:}; exec 3<>/dev/tcp/${a%%:*}/${a##*:}; "
		 "printf 'GET / HTTP/1.0\\r\\n\\r\\n%%16s' x >&3; "
		 "read -t 5 x <&3; echo \"stranger: $?\"; exec 3<&-; "
		 "fi; exec %1$s allgather", TH_BOOT_RANK);
	thrun(&r, "-n", "2", "--hosts", "a,b", "--listen", "127.0.0.1",
	      "--launcher", launch_local, "--timeout", "15", "--", "bash", "-c",
	      prog, NULL);
	TH_LOG("%s", r.out);
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(2, count_lines(r.out, "/2: allgather ok"));
	EXPECT_EQ(2, count_matches(r.out,
		  "^boot_rank 0: init: -13 \\(Permission denied\\)$"));
	EXPECT_EQ(1, count_matches(r.out,
		  "^boot_rank 0: init: -22 \\(Invalid argument\\)$"));
	EXPECT_EQ(1, count_matches(r.out,
		  "^libthverbs: TH_BOOT_KEY='\\(not shown\\)' is not valid"));
	/* thrun closed the stranger's connection: EOF, not read's timeout */
	EXPECT_EQ(1, count_matches(r.out, "^stranger: 1$"));
	EXPECT_EQ(1, count_matches(r.out,
		  "^thrun: refused a rendezvous connection from 127\\.0\\.0\\.1 port [0-9]+: wrong key$"));
	EXPECT_EQ(1, count_matches(r.out,
		  "^thrun: refused a rendezvous connection from 127\\.0\\.0\\.1 port [0-9]+: no key$"));
	EXPECT_EQ(1, count_matches(r.out,
		  "^thrun: refused a rendezvous connection from 127\\.0\\.0\\.1 port [0-9]+: not the rendezvous protocol$"));
	EXPECT_EQ(3, thrun_lines(r.out));
	/* and the key itself is said nowhere */
	EXPECT_EQ(0, count_matches(r.out, "[0-9a-f]{32}"));
	free(r.out);
	launchers_remove();
}

/* A connection that never says HELLO loses its slot after 10 s. */
TEST(hosts_silent_connection_closed)
{
	char prog[512];
	struct run r;

	launchers_make(_metadata);
	snprintf(prog, sizeof(prog),
		 "if [ $TH_RANK = 0 ]; then "
		 "a=${TH_BOOT#tcp:}; exec 3<>/dev/tcp/${a%%:*}/${a##*:}; "
		 "read -t 15 x <&3; echo \"silent: $? after $SECONDS s\"; "
		 "fi; exec %s allgather", TH_BOOT_RANK);
	thrun(&r, "-n", "2", "--hosts", "a", "--listen", "127.0.0.1",
	      "--launcher", launch_local, "--timeout", "18", "--", "bash", "-c",
	      prog, NULL);
	TH_LOG("%s (%ld ms)", r.out, r.ms);
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(1, count_matches(r.out, "^silent: 1 after (9|10|11) s$"));
	EXPECT_EQ(1, count_matches(r.out,
		  "^thrun: refused a rendezvous connection from 127\\.0\\.0\\.1 port [0-9]+: no HELLO within 10 s$"));
	EXPECT_EQ(2, count_lines(r.out, "/2: allgather ok"));
	free(r.out);
	launchers_remove();
}

/*
 * ssh re-joins the remote command's words with spaces for the remote
 * shell: thrun quotes each one, so that arguments with spaces, quotes, $
 * and globs arrive as given, and passes its own TH_* variables on.
 */
TEST(hosts_ssh_words_arrive_whole)
{
	struct run r;

	launchers_make(_metadata);
	setenv("TH_TEST_FORWARD", "it's a \"value\" $HOME", 1);
	thrun(&r, "-n", "2", "--hosts", "h0,h1", "--listen", "127.0.0.1",
	      "--launcher", launch_ssh, "--provider", "inproc", "--timeout",
	      "15", "--", "sh", "-c",
	      /* one write per line: the two ranks share the pipe */
	      "l=$(printf '<%s>' \"$@\" \"$TH_TEST_FORWARD\" \"$TH_PROVIDER\"); echo \"$l $TEST_HOST $TH_RANK\"",
	      "sh", "a b", "it's", "$HOME", "*", "\"q\"", "", NULL);
	unsetenv("TH_TEST_FORWARD");
	TH_LOG("%s", r.out);
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(1, count_lines(r.out,
		  "<a b><it's><$HOME><*><\"q\"><><it's a \"value\" $HOME><inproc> h0 0\n"));
	EXPECT_EQ(1, count_lines(r.out,
		  "<a b><it's><$HOME><*><\"q\"><><it's a \"value\" $HOME><inproc> h1 1\n"));
	free(r.out);

	/* and the rendezvous over it */
	thrun(&r, "-n", "3", "--hosts", "h0,h1", "--listen", "127.0.0.1",
	      "--launcher", launch_ssh, "--timeout", "15", TH_BOOT_RANK,
	      "allgather", NULL);
	TH_LOG("%s", r.out);
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(3, count_lines(r.out, "/3: allgather ok"));
	free(r.out);
	launchers_remove();
}

/*
 * The key never appears in a command line: ps shows those to every user
 * of thrun's host (the launcher's) and of the rank's (the remote shell's,
 * env's).  The ranks still get it, in their environment only, which other
 * users cannot read; rank 0 still reads thrun's stdin after it.
 */
TEST(hosts_key_is_in_no_command_line)
{
	const char *launchers[] = { launch_local, launch_ssh };
	char prog[512], *argv_log;
	unsigned int i;
	struct run r;
	int in[2];

	launchers_make(_metadata);
	snprintf(prog, sizeof(prog),
		 "echo \"rank $TH_RANK key=${#TH_BOOT_KEY} $TH_BOOT_KEY\"; "
		 "[ $TH_RANK = 0 ] && { read -r line; echo \"stdin: $line\"; }; "
		 "exec %s allgather", TH_BOOT_RANK);
	for (i = 0; i < 2; i++) {
		/* rank 0's stdin: thrun's, after the key */
		ASSERT_EQ(0, pipe(in));
		ASSERT_EQ(6, write(in[1], "hello\n", 6));
		close(in[1]);
		ASSERT_LE(0, dup2(in[0], STDIN_FILENO));
		close(in[0]);
		thrun(&r, "-n", "3", "--hosts", "h0,h1", "--listen",
		      "127.0.0.1", "--launcher", launchers[i], "--timeout", "15",
		      "--", "sh", "-c", prog, NULL);
		TH_LOG("%s", r.out);
		EXPECT_EQ(0, r.status);
		EXPECT_EQ(3, count_lines(r.out, "/3: allgather ok"));
		EXPECT_EQ(3, count_matches(r.out,
			  "^rank [012] key=32 [0-9a-f]{32}$"));
		EXPECT_EQ(1, count_matches(r.out, "^stdin: hello$"));
		argv_log = launch_argv_log();
		ASSERT_NE(NULL, argv_log);
		TH_LOG("command lines:\n%s", argv_log);
		EXPECT_EQ(3, count_matches(argv_log, "TH_RANK="));
		EXPECT_EQ(0, count_matches(argv_log, "TH_BOOT_KEY="));
		EXPECT_EQ(0, count_matches(argv_log, "[0-9a-f]{32}"));
		free(argv_log);
		free(r.out);
		unlink(launch_log);
	}
	launchers_remove();
}

TEST(hosts_usage_errors)
{
	static const struct {
		const char *args[8];
		const char *says;
	} cases[] = {
		{ { "--hosts", "a", "--listen", "127.0.0.1", "--provider", "kernel" },
		  "^thrun: --hosts: the kernel provider's job domain cannot reach other hosts; use --provider ofi$" },
		{ { "--hosts", "a" }, "^thrun: --hosts needs --listen ADDR" },
		{ { "--listen", "127.0.0.1" }, "^thrun: --listen only goes with --hosts$" },
		{ { "--launcher", "ssh" }, "^thrun: --launcher only goes with --hosts$" },
		{ { "--hosts", "a,-oProxyCommand=x", "--listen", "127.0.0.1" },
		  "^thrun: --hosts: '-oProxyCommand=x' is not a host name$" },
		{ { "--hosts", "a;reboot", "--listen", "127.0.0.1" },
		  "^thrun: --hosts: 'a;reboot' is not a host name$" },
		{ { "--hosts", "a,,b", "--listen", "127.0.0.1" },
		  "^thrun: --hosts wants HOST\\[,HOST...\\], without empty names$" },
		{ { "--hosts", "a,", "--listen", "127.0.0.1" },
		  "^thrun: --hosts wants HOST" },
		{ { "--hosts", "a", "--listen", "localhost" },
		  "^thrun: --listen wants a numeric IPv4 or IPv6 address, not 'localhost'$" },
		{ { "--hosts", "a", "--listen", "127.0.0.1:80" },
		  "^thrun: --listen wants a numeric" },
		{ { "--hosts", "a", "--listen", "127.0.0.1", "--launcher", "  " },
		  "^thrun: --launcher wants a command" },
		{ { "--hosts", "a", "--listen", "127.0.0.1", "--single" },
		  "^thrun: --hosts starts one process per rank: not with --single$" },
	};
	unsigned int i, j;
	struct run r;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *a[8] = { NULL };

		/* the options, then the program */
		for (j = 0; j < 6 && cases[i].args[j]; j++)
			a[j] = cases[i].args[j];
		a[j] = "true";
		thrun(&r, "-n", "2", a[0], a[1], a[2], a[3], a[4], a[5],
		      a[6], NULL);
		TH_LOG("case %u: %s", i, r.out);
		EXPECT_EQ(2, r.status);
		EXPECT_EQ(1, count_matches(r.out, cases[i].says));
		free(r.out);
	}
	/* kernel through thrun's environment too */
	setenv("TH_PROVIDER", "kernel", 1);
	thrun(&r, "-n", "2", "--hosts", "a", "--listen", "127.0.0.1", "true",
	      NULL);
	unsetenv("TH_PROVIDER");
	EXPECT_EQ(2, r.status);
	EXPECT_EQ(1, count_matches(r.out, "^thrun: --hosts: the kernel provider"));
	free(r.out);
	thrun(&r, "--threads", "2", "--hosts", "a", "--listen", "127.0.0.1",
	      "true", NULL);
	EXPECT_EQ(2, r.status);
	EXPECT_EQ(1, count_matches(r.out, "not with --threads$"));
	free(r.out);

	/* an address thrun cannot listen on: said, no rank started (exit 1) */
	thrun(&r, "-n", "2", "--hosts", "a", "--listen", "fe80::1",
	      "--launcher", "/nonexistent", "true", NULL);
	TH_LOG("%s", r.out);
	EXPECT_EQ(1, r.status);
	EXPECT_EQ(1, count_matches(r.out, "^thrun: cannot listen on fe80::1: "));
	EXPECT_EQ(1, thrun_lines(r.out));
	free(r.out);
	/* a launcher that cannot run is named */
	thrun(&r, "-n", "2", "--hosts", "a", "--listen", "127.0.0.1",
	      "--launcher", "/nonexistent/ssh -x", "true", NULL);
	TH_LOG("%s", r.out);
	EXPECT_EQ(1, r.status);
	EXPECT_TRUE(matches(r.out,
		    "^thrun: cannot run '/nonexistent/ssh': No such file or directory$"));
	free(r.out);
}

/* The client's side of TH_BOOT=tcp: what it refuses, and a closed port. */
TEST(init_tcp_env)
{
	static const char *const bad[] = {
		"tcp:", "tcp:127.0.0.1", "tcp:127.0.0.1:", "tcp:127.0.0.1:0",
		"tcp:127.0.0.1:65536", "tcp:127.0.0.1:80x", "tcp:localhost:80",
		"tcp:[::1:80", "tcp:[::1]80", "tcp:::1:80", "tcp:1.2.3:80",
	};
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	char boot[64];
	unsigned int i;
	int fd;

	unsetenv("TH_SINGLE");
	unsetenv("TH_BOOT_KEY");
	setenv("TH_SIZE", "2", 1);
	setenv("TH_RANK", "1", 1);
	setenv("TH_BOOT_TIMEOUT", "2", 1);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv("TH_BOOT", bad[i], 1);
		errno = 0;
		EXPECT_EQ(NULL, th_boot_init());
		EXPECT_EQ(EINVAL, errno) TH_LOG("TH_BOOT=%s", bad[i]);
	}
	/* a port nobody listens on: bound, then closed */
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, bind(fd, (struct sockaddr *)&sa, sizeof(sa)));
	ASSERT_EQ(0, getsockname(fd, (struct sockaddr *)&sa, &sl));
	close(fd);
	snprintf(boot, sizeof(boot), "tcp:127.0.0.1:%u", ntohs(sa.sin_port));
	setenv("TH_BOOT", boot, 1);
	errno = 0;
	EXPECT_EQ(NULL, th_boot_init());
	EXPECT_EQ(ECONNREFUSED, errno);
	/* a key that is not 32 hex digits, before any connection */
	setenv("TH_BOOT_KEY", "0123456789abcdef0123456789abcdeg", 1);
	errno = 0;
	EXPECT_EQ(NULL, th_boot_init());
	EXPECT_EQ(EINVAL, errno);
	unsetenv("TH_BOOT_KEY");
	unsetenv("TH_BOOT");
	unsetenv("TH_BOOT_TIMEOUT");
}


/* ---- th_boot_init_allgather(): a job that brings its own allgather ---- */

struct fake_gather {
	int calls;
	int fail;	/* returned from the call numbered fail (1-based) */
	int rank, size;
};

/* Every rank's bytes are this rank's, shifted: enough to see them land. */
static int fake_allgather(void *arg, const void *mine, void *all, size_t len)
{
	struct fake_gather *g = arg;
	int r;

	if (++g->calls == g->fail)
		return -ECONNRESET;
	for (r = 0; len && r < g->size; r++)
		memcpy((char *)all + r * len, mine, len);
	return 0;
}

/* ---- the kernel join's rank 0 serving its domain ------------------- */

/* A connection to @path; with @ask, that ask sent at once. */
static int share_connect(const char *path, const struct th_share_ask *ask)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	strcpy(sa.sun_path, path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    (ask && write(fd, ask, sizeof(*ask)) != sizeof(*ask))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* The byte and descriptor rank 0 sent on @fd: 'D' and a descriptor. */
static bool share_got_domain(int fd)
{
	char ctl[CMSG_SPACE(sizeof(int))] = { 0 };
	char byte = 0;
	struct iovec iov = { &byte, 1 };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *c;
	int passed = -1;

	if (recvmsg(fd, &mh, MSG_DONTWAIT) != 1)
		return false;
	c = CMSG_FIRSTHDR(&mh);
	if (c && c->cmsg_type == SCM_RIGHTS)
		memcpy(&passed, CMSG_DATA(c), sizeof(int));
	if (passed >= 0)
		close(passed);
	return byte == 'D' && passed >= 0;
}

/*
 * Rank 0 of the kernel join reads every connection to its socket at once,
 * each with a short time of its own: a silent connection ahead of the
 * ranks' (the same user's: the directory is 0700) and one with a wrong
 * token do not keep the ranks from their domain, which they get well
 * within the join's deadline (the old rank 0 read the silent one until
 * the deadline, and failed the join with ETIMEDOUT).
 */
TEST(share_a_silent_connection_does_not_stall_the_join)
{
	char dir[] = "/tmp/test_boot_share.XXXXXX", path[64];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct th_share_ask ask = { .rank = 1 }, wrong;
	int lfd, silent, r1, r2, bad, dom[2], ret;
	int64_t deadline;

	memset(ask.token, 0x5a, sizeof(ask.token));
	wrong = ask;
	wrong.token[3] ^= 1;
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/domain.sock", dir);
	strcpy(sa.sun_path, path);
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	ASSERT_LE(0, lfd);
	ASSERT_EQ(0, bind(lfd, (struct sockaddr *)&sa, sizeof(sa)));
	ASSERT_EQ(0, listen(lfd, 8));
	ASSERT_EQ(0, pipe2(dom, O_CLOEXEC));	/* stands for the domain */

	silent = share_connect(path, NULL);
	bad = share_connect(path, &wrong);
	r1 = share_connect(path, &ask);
	ask.rank = 2;
	r2 = share_connect(path, &ask);
	ASSERT_LE(0, silent);
	ASSERT_LE(0, bad);
	ASSERT_LE(0, r1);
	ASSERT_LE(0, r2);

	/* 15 s: far more than a connection's own time, far less than 300 */
	deadline = th_boot_now_ms() + 15000;
	ret = th_boot_share_serve(lfd, ask.token, 3, dom[0], deadline);
	EXPECT_EQ(0, ret) TH_LOG("serve: %s", strerror(-ret));
	EXPECT_TRUE(share_got_domain(r1));
	EXPECT_TRUE(share_got_domain(r2));
	/* the stranger got nothing: closed unserved */
	EXPECT_FALSE(share_got_domain(bad));

	close(silent);
	close(bad);
	close(r1);
	close(r2);
	close(dom[0]);
	close(dom[1]);
	close(lfd);
	unlink(path);
	rmdir(dir);
}

TEST(init_allgather_refuses_bad_arguments)
{
	struct fake_gather g = { .size = 2 };

	errno = 0;
	EXPECT_EQ(NULL, th_boot_init_allgather(0, 0, fake_allgather, &g, NULL));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(NULL, th_boot_init_allgather(2, 2, fake_allgather, &g, NULL));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(NULL, th_boot_init_allgather(-1, 2, fake_allgather, &g, NULL));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(NULL, th_boot_init_allgather(0, TH_BOOT_MAX_RANKS + 1,
					       fake_allgather, &g, NULL));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(NULL, th_boot_init_allgather(0, 2, NULL, &g, NULL));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(NULL, th_boot_init_allgather(0, 2, fake_allgather, &g,
					       "verbs"));
	EXPECT_EQ(EINVAL, errno);
	/* a provider of the library's with no network to join */
	errno = 0;
	EXPECT_EQ(NULL, th_boot_init_allgather(0, 2, fake_allgather, &g,
					       "inproc"));
	EXPECT_EQ(EINVAL, errno);
	/* a refusal touches nothing: no round was taken */
	EXPECT_EQ(0, g.calls);
}

/*
 * The kernel join where th_nic.ko is not loaded: ENODEV, after the rounds
 * every rank takes (each rank's record says it has no module), so no rank
 * is left waiting.  The VM runs the join that works (selftests/th_nic/
 * thmpi.sh).
 */
TEST(init_allgather_kernel_without_the_module_fails_on_every_rank)
{
	struct fake_gather g = { .size = 3 };
	int r;

	if (!access("/dev/th_nic0", F_OK))
		SKIP(return, "th_nic.ko is loaded here");
	for (r = 0; r < 3; r++) {
		g.calls = 0;
		errno = 0;
		EXPECT_EQ(NULL, th_boot_init_allgather(r, 3, fake_allgather,
						       &g, "kernel"));
		EXPECT_EQ(ENODEV, errno);
		/* where and error; then the agreement round */
		EXPECT_EQ(2, g.calls);
	}
}

/* A malformed TH_BOOT_TIMEOUT: EINVAL, after the rounds all take. */
TEST(init_allgather_kernel_bad_timeout_takes_the_rounds)
{
	struct fake_gather g = { .size = 2 };

	setenv("TH_BOOT_TIMEOUT", "soon", 1);
	errno = 0;
	EXPECT_EQ(NULL, th_boot_init_allgather(1, 2, fake_allgather, &g,
					       "kernel"));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(2, g.calls);
	unsetenv("TH_BOOT_TIMEOUT");
}

TEST(init_allgather_passes_rounds_to_the_callers_allgather)
{
	struct fake_gather g = { .size = 3, .fail = 3 };
	int mine = 42, all[3] = { 0 };
	struct th_boot *b;

	b = th_boot_init_allgather(1, 3, fake_allgather, &g, "");
	ASSERT_NE(NULL, b) TH_LOG("th_boot_init_allgather: %s", strerror(errno));
	EXPECT_EQ(1, th_boot_rank(b));
	EXPECT_EQ(3, th_boot_size(b));
	EXPECT_EQ(-ENOENT, th_boot_domain_fd(b));
	EXPECT_EQ(0, th_boot_allgather(b, &mine, all, sizeof(mine)));
	EXPECT_EQ(42, all[0]);
	EXPECT_EQ(42, all[2]);
	EXPECT_EQ(0, th_boot_barrier(b));
	EXPECT_EQ(2, g.calls);
	/* too large for the bootstrap: refused before the caller's call */
	EXPECT_EQ(-EMSGSIZE, th_boot_allgather(b, &mine, all,
					       TH_BOOT_MAX_GATHER));
	EXPECT_EQ(2, g.calls);
	/* the third round fails: sticky, later calls fail at once */
	EXPECT_EQ(-ECONNRESET, th_boot_allgather(b, &mine, all, sizeof(mine)));
	EXPECT_EQ(-ECONNRESET, th_boot_barrier(b));
	EXPECT_EQ(3, g.calls);
	th_boot_fini(b);
}

TEST_HARNESS_MAIN
