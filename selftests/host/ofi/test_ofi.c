// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_ofi.c - the ofi provider between two processes on this host, over
 * libfabric's shm (the default for a job on one host) and, for each case
 * again, tcp;ofi_rxm (TH_OFI_PROVIDER): each test runs one case of ofi_rank under
 * `thrun -n 2 --provider ofi` and passes when both ranks say it held
 * (their complaints, if any, go to this test's output).  Deliveries in
 * one message and by RMA, reads, inline writes, the refusals a target
 * gives (a wrong key or range: the initiator's violation; an absent vport
 * or another domain: -ECONNREFUSED), and a rank that dies; then the
 * collectives' job (selftests/lib/coll_rank.c) at 2 to 16 processes, and
 * with a rank killed in the middle.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#ifndef TH_THRUN
#error "TH_THRUN: the path of thrun, from ofi-tests.mk"
#endif
#ifndef TH_OFI_RANK
#error "TH_OFI_RANK: the path of ofi_rank, from ofi-tests.mk"
#endif
#ifndef TH_OFI_FORGER
#error "TH_OFI_FORGER: the path of ofi_forger, from ofi-tests.mk"
#endif
#ifndef TH_OFI_ATTACK_SUPP
#error "TH_OFI_ATTACK_SUPP: the forged case's suppressions, from ofi-tests.mk"
#endif
#ifndef TH_COLL_RANK
#error "TH_COLL_RANK: the path of coll_rank, from ofi-tests.mk"
#endif

/* thrun's own timeout; the case's waits are shorter */
#define CASE_TIMEOUT	"40"
/*
 * TH_OFI_TIMEOUT for the cases where a rank dies, so that the others find
 * out in seconds; jobs that must succeed keep the default (10 s), which a
 * loaded machine running 16 sanitized processes on 2 CPUs needs.
 */
#define SHORT_DEADLINE	"2"

/* MPICH's launcher (Debian's mpich), for jobs that join through PMI */
#define MPIEXEC		"/usr/bin/mpiexec.hydra"

static int run_prog(const char *prog, const char *const *argv,
		    const char *deadline, char *out, size_t cap);

/*
 * The next job runs as on a kernel older than 5.16: futex_waitv() fails
 * with ENOSYS in thrun and every rank it starts (a seccomp filter, which
 * children inherit), as a_kernel_without_futex_waitv_still_delivers sets.
 */
static bool g_without_futex_waitv;

#if defined(__x86_64__)
#define TH_AUDIT_ARCH	AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define TH_AUDIT_ARCH	AUDIT_ARCH_AARCH64
#endif

/* In the job's first process: 0, or -1 when the filter did not go in. */
static int deny_futex_waitv(void)
{
#ifdef TH_AUDIT_ARCH
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TH_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_futex_waitv, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = ARRAY_SIZE(f), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) ? -1 : 0;
#else
	return -1;
#endif
}

/*
 * Run thrun with @argv (NULL-terminated, after "thrun"); its exit status,
 * or -1 if it could not run.  With @out, its output and the ranks' (both
 * streams) land there, NUL-terminated, else they pass through.
 */
static int run_thrun(const char *const *argv, const char *deadline, char *out,
		     size_t cap)
{
	return run_prog(TH_THRUN, argv, deadline, out, cap);
}

/* The same for launcher @prog. */
static int run_prog(const char *prog, const char *const *argv,
		    const char *deadline, char *out, size_t cap)
{
	const char *args[32] = { prog };
	FILE *f = out ? tmpfile() : NULL;
	int status, i;
	size_t n;
	pid_t pid;

	for (i = 0; argv[i] && i < 30; i++)
		args[i + 1] = argv[i];
	if (out && !f)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		/* a dead rank is found within the delivery deadline */
		if (deadline)
			setenv("TH_OFI_TIMEOUT", deadline, 1);
		/* a peer taken for dead, or a retried connection, says why */
		setenv("TH_OFI_VERBOSE", "1", 1);
		if (g_without_futex_waitv && deny_futex_waitv())
			_exit(126);
		if (f) {
			dup2(fileno(f), STDOUT_FILENO);
			dup2(fileno(f), STDERR_FILENO);
		}
		execv(prog, (char *const *)args);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	if (f) {
		n = pread(fileno(f), out, cap - 1, 0);
		out[n > 0 && n < cap ? n : 0] = '\0';
		fclose(f);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * thrun's exit status for one case of ofi_rank over libfabric provider
 * @prov (TH_OFI_PROVIDER), or the job's default for NULL; with @out, the
 * output lands there.
 */
static int run_case_on(const char *name, const char *prov, char *out,
		       size_t cap)
{
	const char *argv[] = { "-n", "2", "--provider", "ofi", "--timeout",
			       CASE_TIMEOUT, TH_OFI_RANK, name, NULL };
	int st;

	if (prov)
		setenv("TH_OFI_PROVIDER", prov, 1);
	else
		unsetenv("TH_OFI_PROVIDER");
	st = run_thrun(argv, SHORT_DEADLINE, out, cap);
	unsetenv("TH_OFI_PROVIDER");
	return st;
}

/* Lines of @out that begin with @prefix and contain @text. */
static int count_lines(const char *out, const char *prefix, const char *text)
{
	const char *p = out, *nl;
	int n = 0;

	for (; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		if (!strncmp(p, prefix, strlen(prefix)) &&
		    memmem(p, nl - p, text, strlen(text)))
			n++;
		if (!*nl)
			break;
	}
	return n;
}

/* The same on shm with TH_OFI_RING=@ring (NULL: unset, the default). */
static int run_case_rings(const char *name, const char *ring, char *out,
			  size_t cap)
{
	int st;

	if (ring)
		setenv("TH_OFI_RING", ring, 1);
	st = run_case_on(name, NULL, out, cap);
	unsetenv("TH_OFI_RING");
	return st;
}

/*
 * each case on the default (shm, one host, small messages through the
 * shm rings), on shm alone (TH_OFI_RING=0), and over tcp;ofi_rxm
 */
#define OFI_CASE(name)						\
	TEST(name)						\
	{							\
		ASSERT_EQ(0, run_case_on(#name, NULL, NULL, 0));	\
	}							\
	TEST(name##_without_rings)				\
	{							\
		ASSERT_EQ(0, run_case_rings(#name, "0", NULL, 0));	\
	}							\
	TEST(name##_over_tcp)					\
	{							\
		ASSERT_EQ(0, run_case_on(#name, "tcp;ofi_rxm", NULL, 0)); \
	}

OFI_CASE(put)
OFI_CASE(put_eager)
OFI_CASE(get_eager)
OFI_CASE(put_rma)
OFI_CASE(get)
OFI_CASE(get_rma)
OFI_CASE(inline_remote)
OFI_CASE(target_exits_at_once)
OFI_CASE(bad_key)
OFI_CASE(bad_range)
OFI_CASE(no_vport)
OFI_CASE(foreign_domain)
OFI_CASE(peer_dies)

/* Every rank in one network namespace: tcp stays on 127.0.0.1. */
TEST(loopback_only_over_tcp)
{
	ASSERT_EQ(0, run_case_on("loopback_only", "tcp;ofi_rxm", NULL, 0));
}

/*
 * A job whose ranks are all on this host runs on shm unless
 * TH_OFI_PROVIDER says otherwise, and every rank says so (TH_OFI_VERBOSE);
 * the PUT's bytes are checked by both ranks either way.
 */
TEST(a_one_host_job_picks_shm_and_tcp_when_asked)
{
	static char out[1 << 14];

	EXPECT_EQ(0, run_case_on("put", NULL, out, sizeof(out)));
	TH_LOG("%s", out);
	EXPECT_EQ(2, count_lines(out, "libthverbs: ofi rank ",
				 "libfabric provider shm (every rank on this host)"));
	EXPECT_EQ(0, count_lines(out, "", "tcp;ofi_rxm"));
	EXPECT_EQ(0, run_case_on("put", "tcp;ofi_rxm", out, sizeof(out)));
	TH_LOG("%s", out);
	EXPECT_EQ(2, count_lines(out, "libthverbs: ofi rank ",
				 "libfabric provider tcp;ofi_rxm (TH_OFI_PROVIDER)"));
	EXPECT_EQ(0, count_lines(out, "", "provider shm"));
}

/*
 * On shm, the ranks' memory regions lose their names in /dev/shm once
 * the job has joined: no other process (another user's least of all) can
 * open them, and none is left behind (libfabric itself left 16 MiB per
 * rank there).  The doorbell regions, which hold the shm rings, never
 * had one: memfds that each rank handed its peers, both mapped in each
 * rank, and (as root) each the user's own, mode 0600, its size sealed.
 * An RMA PUT over them lands byte for byte first.
 */
TEST(shm_regions_have_no_name_once_joined)
{
	/* one host, one rail: each rank maps its doorbell and its peer's */
	setenv("OFI_BELLS", "2", 1);
	EXPECT_EQ(0, run_case_on("shm_private", NULL, NULL, 0));
	unsetenv("OFI_BELLS");
}

/*
 * Waits over ofi under each wait policy: the same exact answers (the
 * ping-pong's values and counters, a timeout, and a dead peer's -EIO and
 * -ECONNREFUSED).  Under spin the waiters read the completion queue
 * themselves as they spin (the progress op), under passive never (they
 * read only once asleep, on shm's doorbell, counted apart): each rank
 * says at exit (TH_OFI_VERBOSE) who read it.
 */
static void waits_under(struct __test_metadata *_metadata, const char *policy,
			const char *prov, bool waiters_read)
{
	const char *argv[] = { "-n", "2", "--provider", "ofi", "--timeout",
			       CASE_TIMEOUT, TH_OFI_RANK, "waits", NULL };
	static char out[1 << 14];
	int idle;

	setenv("TH_WAIT_POLICY", policy, 1);
	if (prov)
		setenv("TH_OFI_PROVIDER", prov, 1);
	EXPECT_EQ(0, run_thrun(argv, NULL, out, sizeof(out)));
	TH_LOG("%s on %s: %s", policy, prov ? prov : "the default", out);
	EXPECT_EQ(2, count_lines(out, "libthverbs: ofi rank ",
				 "by the progress thread"));
	/* spin: waiters read entries on one rank at least; passive: on none */
	idle = count_lines(out, "libthverbs: ofi rank ", ", 0 by waiters");
	EXPECT_EQ(waiters_read ? 1 : 2, idle < 2 ? 1 : 2);
	EXPECT_EQ(0, run_case_on("peer_dies", prov, NULL, 0));
	unsetenv("TH_OFI_PROVIDER");
	unsetenv("TH_WAIT_POLICY");
}

/* on the one-host default, shm, whose queue the progress thread polls */
TEST(waits_are_exact_when_the_waiter_spins)
{
	waits_under(_metadata, "spin", NULL, true);
}

TEST(waits_are_exact_when_the_waiter_sleeps)
{
	waits_under(_metadata, "passive", NULL, false);
}

/* and over tcp;ofi_rxm, where the thread sleeps in the queue */
TEST(waits_are_exact_when_the_waiter_spins_over_tcp)
{
	waits_under(_metadata, "spin", "tcp;ofi_rxm", true);
}

TEST(waits_are_exact_when_the_waiter_sleeps_over_tcp)
{
	waits_under(_metadata, "passive", "tcp;ofi_rxm", false);
}

/*
 * A test drives the queue: a wait with no time left (th_coll_wait() and
 * th_ct_wait() with a timeout of 0: MPI_Test, and libthmpi's MPI_Wait on
 * a non-blocking collective, which tests in a loop) reads the completion
 * queue once where a waiter may watch, as one turn of a spinning waiter
 * does, so that what arrived is handled by the thread that asks and not
 * left for the progress thread's wake-up.  Two ranks test their way
 * through 50 Allreduce rounds (coll_tests) or 50 ping-pong rounds
 * (ct_tests), every value checked: under spin each rank's waiters read
 * entries; under passive none do.
 */
static void tests_under(struct __test_metadata *_metadata, const char *what,
			const char *policy, int ranks_whose_waiters_read)
{
	const char *argv[] = { "-n", "2", "--provider", "ofi", "--timeout",
			       CASE_TIMEOUT, TH_OFI_RANK, what, NULL };
	static char out[1 << 14];

	setenv("TH_WAIT_POLICY", policy, 1);
	EXPECT_EQ(0, run_thrun(argv, NULL, out, sizeof(out)));
	unsetenv("TH_WAIT_POLICY");
	TH_LOG("%s, %s: %s", what, policy, out);
	EXPECT_EQ(2, count_lines(out, "libthverbs: ofi rank ",
				 "by the progress thread"));
	EXPECT_EQ(2 - ranks_whose_waiters_read,
		  count_lines(out, "libthverbs: ofi rank ", ", 0 by waiters"));
}

TEST(a_collective_test_drives_the_queue_where_waiters_may_watch)
{
	tests_under(_metadata, "coll_tests", "spin", 2);
}

TEST(a_collective_test_leaves_the_queue_to_the_thread_under_passive)
{
	tests_under(_metadata, "coll_tests", "passive", 0);
}

TEST(a_counter_test_drives_the_queue_where_waiters_may_watch)
{
	tests_under(_metadata, "ct_tests", "spin", 2);
}

TEST(a_counter_test_leaves_the_queue_to_the_thread_under_passive)
{
	tests_under(_metadata, "ct_tests", "passive", 0);
}

/*
 * A collective's wait does not return while its rank's PUT past the
 * eager size still needs this host (the RESOLVED answer, the RMA) where
 * the waiter may watch: a 64 KiB Broadcast's root waits (spin), then
 * tells the leaf, which (passive: its look drives nothing) must find the
 * round complete and all 64 KiB in place, 50 rounds, by blocking waits
 * and by tests; over shm and over tcp.
 */
TEST(a_collective_wait_moves_its_large_bytes_before_it_returns)
{
	EXPECT_EQ(0, run_case_on("coll_bytes_out", NULL, NULL, 0));
	EXPECT_EQ(0, run_case_on("coll_bytes_out", "tcp;ofi_rxm", NULL, 0));
}

/*
 * ... and only for its own vport's: a large PUT on another vport, to a
 * stopped peer, does not hold a collective on two local vports.
 */
TEST(a_collective_wait_holds_only_for_its_own_vports_bytes)
{
	EXPECT_EQ(0, run_case_on("coll_owed_vport", NULL, NULL, 0));
}

/*
 * Auto counts the waiters of every rank that shares this rank's CPUs, not
 * only its own process's: two ranks that may run on one CPU only (thrun
 * itself under that affinity, which the ranks inherit) both sleep at
 * once, even with a spin budget of a second; each says so at its join
 * (TH_OFI_VERBOSE), and no waiter reads the queue.  The same job with a
 * CPU for each rank (a rank bound to CPU TH_RANK) watches: waiters read on
 * one rank at least.  The waits' answers are exact in both.
 */
static void waits_on_cpus(struct __test_metadata *_metadata, bool own_cpu)
{
	const char *bound[] = { "-n", "2", "--provider", "ofi", "--timeout",
				CASE_TIMEOUT, "sh", "-c",
				"exec taskset -c \"$TH_RANK\" \"$0\" waits",
				TH_OFI_RANK, NULL };
	const char *shared[] = { "-n", "2", "--provider", "ofi", "--timeout",
				 CASE_TIMEOUT, TH_OFI_RANK, "waits", NULL };
	static char out[1 << 14];
	cpu_set_t saved, one;
	int idle;

	ASSERT_EQ(0, sched_getaffinity(0, sizeof(saved), &saved));
	if (own_cpu && (!CPU_ISSET(0, &saved) || !CPU_ISSET(1, &saved)))
		SKIP(return, "needs CPUs 0 and 1 (has %d CPUs)", CPU_COUNT(&saved));
	CPU_ZERO(&one);
	CPU_SET(own_cpu ? 0 : sched_getcpu(), &one);
	setenv("TH_WAIT_POLICY", "auto", 1);
	setenv("TH_SPIN_US", "1000000", 1);
	if (!own_cpu)
		ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	EXPECT_EQ(0, run_thrun(own_cpu ? bound : shared, NULL, out, sizeof(out)));
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(saved), &saved));
	unsetenv("TH_SPIN_US");
	unsetenv("TH_WAIT_POLICY");
	TH_LOG("%s", out);
	EXPECT_EQ(2, count_lines(out, "libthverbs: ofi rank ",
				 "by the progress thread"));
	EXPECT_EQ(2, count_lines(out, "libthverbs: ofi rank ", own_cpu ?
		  "ranks on its CPUs: 1 (itself included), 1 CPU between them: auto waits may watch" :
		  "ranks on its CPUs: 2 (itself included), 1 CPU between them: auto waits sleep at once"));
	/* sharing: no rank's waiters read; each on its own: one rank's do */
	idle = count_lines(out, "libthverbs: ofi rank ", ", 0 by waiters");
	EXPECT_GE(own_cpu ? 1 : 2, idle);
	EXPECT_LE(own_cpu ? 0 : 2, idle);
}

TEST(auto_sleeps_at_once_when_the_jobs_ranks_outnumber_their_cpus)
{
	waits_on_cpus(_metadata, false);
}

TEST(auto_watches_when_each_rank_has_a_cpu)
{
	waits_on_cpus(_metadata, true);
}

/*
 * Each rank's exit report (TH_OFI_VERBOSE): completions its progress
 * thread read, and how many of its reads a message had to wake it for,
 * asleep in the queue.  The number of ranks that reported.
 */
static int queue_reports(const char *out, unsigned long long *reads,
			 unsigned long long *wakes, int max)
{
	const char *p = out;
	unsigned long long w;
	unsigned int r;
	int n = 0;

	while ((p = strstr(p, "libthverbs: ofi rank ")) && n < max) {
		if (sscanf(p, "libthverbs: ofi rank %u: completions read: %llu by the progress thread, %llu by waiters; %llu reads woke",
			   &r, &reads[n], &w, &wakes[n]) == 4)
			n++;
		p++;
	}
	return n;
}

/*
 * Over tcp;ofi_rxm the progress thread sleeps in the queue (fi_cq_sread())
 * when idle; while messages flow (a completion within TH_SPIN_US) it keeps
 * looking without sleeping, so a stream that no waiter reads does not pay
 * a wake-up per delivery.  A stream of 8 x 48 triggered round trips that
 * the ranks wait for by reading their counters (so only the progress
 * thread reads the queue), with the thread's window at its bound (1 ms,
 * a margin for a loaded machine): on each rank the thread read every
 * entry, and at most a quarter of its reads began asleep in the queue.
 * With passive waits (or the busy path removed) about a third do, a
 * message after each reply, in every run.  The bound is on time (a
 * thread descheduled for longer than its window sleeps, rightly), so a
 * machine loaded by other jobs can push one run over it: the stream runs
 * up to three times and one run within the bound on both ranks passes;
 * every run must deliver every entry.
 */
TEST(a_busy_progress_thread_reads_tcp_without_sleeping_in_the_queue)
{
	unsigned long long reads[2], wakes[2];
	static char out[1 << 14];
	bool within = false;
	int i, run;

	setenv("TH_WAIT_POLICY", "auto", 1);
	setenv("TH_SPIN_US", "1000", 1);
	for (run = 0; run < 3 && !within; run++) {
		EXPECT_EQ(0, run_case_on("stream", "tcp;ofi_rxm", out,
					 sizeof(out)));
		TH_LOG("run %d: %s", run, out);
		ASSERT_EQ(2, queue_reports(out, reads, wakes, 2));
		within = true;
		for (i = 0; i < 2; i++) {
			EXPECT_LE(8 * 48 * 2ULL, reads[i]);
			if (wakes[i] > reads[i] / 4)
				within = false;
		}
	}
	unsetenv("TH_SPIN_US");
	unsetenv("TH_WAIT_POLICY");
	EXPECT_TRUE(within);
}

/*
 * Each rank's exit report (TH_OFI_VERBOSE): messages it sent, and how
 * many of them by fi_inject().  The number of ranks that reported.
 */
static int send_reports(const char *out, unsigned long long *sends,
			unsigned long long *injected, int max)
{
	const char *p = out;
	unsigned int r;
	int n = 0;

	while ((p = strstr(p, "libthverbs: ofi rank ")) && n < max) {
		if (sscanf(p, "libthverbs: ofi rank %u: messages sent: %llu, %llu of them injected",
			   &r, &sends[n], &injected[n]) == 3)
			n++;
		p++;
	}
	return n;
}

/*
 * Each rank's exit report of its shm rings (TH_OFI_VERBOSE): messages it
 * put in its peers' rings, and whether it reads its own (1, 0).  The
 * number of ranks that reported.
 */
static int ring_reports(const char *out, unsigned long long *ring_sends,
			int *reads_own, int max)
{
	const char *p = out;
	unsigned long long full;
	unsigned int r;
	char own[4];
	int n = 0;

	while ((p = strstr(p, "libthverbs: ofi rank ")) && n < max) {
		if (sscanf(p, "libthverbs: ofi rank %u: shm rings: %llu messages sent through them, %llu found a ring full and went by libfabric; this rank reads its own: %3s",
			   &r, &ring_sends[n], &full, own) == 4) {
			reads_own[n] = !strcmp(own, "yes");
			n++;
		}
		p++;
	}
	return n;
}

/*
 * On shm a small message needs no transmit completion to read, no
 * transfer to allocate (net.c: th_ofi_inject()): it goes through the
 * peer's shm ring (ring.c), or with TH_OFI_RING=0 by fi_inject().  The
 * stream's 8 x 48 triggered 8-byte PUTs of each rank, every counter
 * checked by the ranks: each rank injected all but its HELLO (rank 0
 * connects to rank 1), through the rings unless they are off.  Over
 * tcp;ofi_rxm, where a send's failure is learnt from its completion,
 * nothing is injected.
 */
TEST(small_messages_on_shm_are_sent_without_a_completion_to_read)
{
	unsigned long long sends[2], injected[2], ring_sends[2];
	static char out[1 << 14];
	int i, own[2];

	EXPECT_EQ(0, run_case_on("stream", NULL, out, sizeof(out)));
	TH_LOG("%s", out);
	ASSERT_EQ(2, send_reports(out, sends, injected, 2));
	ASSERT_EQ(2, ring_reports(out, ring_sends, own, 2));
	for (i = 0; i < 2; i++) {
		EXPECT_LE(8 * 48ULL, injected[i]);
		EXPECT_GE(1ULL, sends[i] - injected[i]);
		EXPECT_LE(8 * 48ULL, ring_sends[i]);
		EXPECT_EQ(1, own[i]);
	}
	EXPECT_EQ(0, run_case_rings("stream", "0", out, sizeof(out)));
	ASSERT_EQ(2, send_reports(out, sends, injected, 2));
	ASSERT_EQ(2, ring_reports(out, ring_sends, own, 2));
	for (i = 0; i < 2; i++) {
		EXPECT_LE(8 * 48ULL, injected[i]);
		EXPECT_GE(1ULL, sends[i] - injected[i]);
		EXPECT_EQ(0ULL, ring_sends[i]);
		EXPECT_EQ(0, own[i]);
	}
	EXPECT_EQ(0, run_case_on("stream", "tcp;ofi_rxm", out, sizeof(out)));
	ASSERT_EQ(2, send_reports(out, sends, injected, 2));
	for (i = 0; i < 2; i++) {
		EXPECT_LE(8 * 48ULL, sends[i]);
		EXPECT_EQ(0ULL, injected[i]);
	}
}

/*
 * On shm an idle progress thread sleeps on its doorbell, and a peer's
 * message rings it (bell.c): rank 1 sends one PUT after 50 ms, and its
 * exit report counts a peer it woke, rank 0's a sleep a ring ended.
 * Rank 0's host reads its counter meanwhile (OFI_DOORBELL_POLL): it does
 * not wait, and the thread is who reads.  Over tcp;ofi_rxm there is no
 * doorbell (the thread sleeps in the queue): no rank reports one.
 */
TEST(an_idle_progress_thread_is_woken_by_its_peers_doorbell)
{
	static char out[1 << 14];

	setenv("TH_WAIT_POLICY", "passive", 1);
	setenv("OFI_DOORBELL_POLL", "1", 1);
	EXPECT_EQ(0, run_case_on("doorbell", NULL, out, sizeof(out)));
	unsetenv("OFI_DOORBELL_POLL");
	TH_LOG("%s", out);
	EXPECT_EQ(2, count_lines(out, "libthverbs: ofi rank ", "doorbell: "));
	EXPECT_EQ(0, count_lines(out, "libthverbs: ofi rank 0: doorbell: ",
				 ": 0 sleeps ended by a ring"));
	EXPECT_EQ(0, count_lines(out, "libthverbs: ofi rank 1: doorbell: ",
				 ", 0 peers woken"));
	EXPECT_EQ(0, run_case_on("doorbell", "tcp;ofi_rxm", out, sizeof(out)));
	EXPECT_EQ(0, count_lines(out, "", "doorbell: "));
	unsetenv("TH_WAIT_POLICY");
}

/*
 * The same job with both ranks on one CPU (crowded): the progress thread
 * naps without arming its doorbell, so rank 1's message rings nobody
 * (rank 0's host polls, no waiter sleeps) and rank 0's thread reads it
 * after a nap; the PUT still lands (the case checks it).
 */
TEST(a_crowded_ranks_progress_thread_is_not_rung)
{
	static char out[1 << 14];
	cpu_set_t saved, one;

	ASSERT_EQ(0, sched_getaffinity(0, sizeof(saved), &saved));
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	setenv("TH_WAIT_POLICY", "passive", 1);
	setenv("OFI_DOORBELL_POLL", "1", 1);
	EXPECT_EQ(0, run_case_on("doorbell", NULL, out, sizeof(out)));
	unsetenv("OFI_DOORBELL_POLL");
	unsetenv("TH_WAIT_POLICY");
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(saved), &saved));
	TH_LOG("%s", out);
	EXPECT_EQ(2, count_lines(out, "libthverbs: ofi rank ",
				 "peers ring its waiters, not its progress thread"));
	EXPECT_EQ(2, count_lines(out, "libthverbs: ofi rank ", "doorbell: "));
	EXPECT_EQ(1, count_lines(out, "libthverbs: ofi rank 0: doorbell: ",
				 ": 0 sleeps ended by a ring"));
	EXPECT_EQ(1, count_lines(out, "libthverbs: ofi rank 1: doorbell: ",
				 ", 0 peers woken"));
}

/*
 * A waiter that sleeps in th_ct_wait() on shm sleeps on the doorbell too,
 * and reads the queue itself when a peer rings (bell.c,
 * th_ofi_bell_wait()): one wake-up, not the progress thread's and then
 * the waiter's.  Rank 0 waits (passive) for rank 1's PUT, sent after 50
 * ms; its report counts one wait that slept on the bell, and
 * completions read by a waiter the bell woke.  The bytes and the counter
 * are checked by the rank.
 */
TEST(a_sleeping_waiter_is_woken_by_the_doorbell_and_reads_itself)
{
	static char out[1 << 14];
	int attempt, read = 0;

	setenv("TH_WAIT_POLICY", "passive", 1);
	/*
	 * the thread's own look after a nap may still come first, in the
	 * microseconds before the waiter runs: up to three jobs
	 */
	for (attempt = 0; attempt < 3 && !read; attempt++) {
		EXPECT_EQ(0, run_case_on("doorbell", NULL, out, sizeof(out)));
		TH_LOG("%s", out);
		EXPECT_EQ(1, count_lines(out, "libthverbs: ofi rank 0: doorbell: ",
					 ", 1 waits slept on it"));
		EXPECT_EQ(1, count_lines(out, "libthverbs: ofi rank 0: completions read: ",
					 " read after a ring by waiters asleep on the doorbell"));
		read = !count_lines(out, "libthverbs: ofi rank 0: completions read: ",
				    ", 0 read after a ring by waiters asleep on the doorbell");
	}
	unsetenv("TH_WAIT_POLICY");
	EXPECT_TRUE(read);
}

/*
 * On a kernel without futex_waitv() (before 5.16) the first waiter that
 * would sleep on the doorbell turns that off for its process, and waits
 * sleep on their own word as before: the PUT still arrives and wakes the
 * waiter (through the progress thread), every report says so, and no
 * waiter read after a ring.  futex_waitv() fails with ENOSYS here by a
 * seccomp filter on the whole job.
 */
TEST(a_kernel_without_futex_waitv_still_delivers)
{
	static char out[1 << 14];

#ifndef TH_AUDIT_ARCH
	SKIP(return, "no seccomp filter for this architecture in the test");
#endif
	setenv("TH_WAIT_POLICY", "passive", 1);
	g_without_futex_waitv = true;
	EXPECT_EQ(0, run_case_on("doorbell", NULL, out, sizeof(out)));
	g_without_futex_waitv = false;
	unsetenv("TH_WAIT_POLICY");
	TH_LOG("%s", out);
	EXPECT_EQ(1, count_lines(out, "libthverbs: ofi rank 0: doorbell: ",
				 "; no futex_waitv() here: waiters sleep on their own word"));
	EXPECT_EQ(1, count_lines(out, "libthverbs: ofi rank 0: completions read: ",
				 ", 0 read after a ring by waiters asleep on the doorbell"));
}

/* The collectives' rank program, one process per rank: every result checked. */
static void coll_job(struct __test_metadata *_metadata, const char *n,
		     const char *radix)
{
	const char *argv[] = { "-n", n, "--provider", "ofi", "--timeout", "60",
			       TH_COLL_RANK, "5", radix, NULL };

	ASSERT_EQ(0, run_thrun(argv, NULL, NULL, 0));
}

/*
 * A coll_rank job that says how each rank's plan sends down
 * (COLL_REPORT_FANOUT): @n processes over ofi, or @n threads of one
 * process when @threads; @rounds rounds of a @radix-nomial Allreduce,
 * every result checked.  thrun's exit status; its output in @out.
 */
static int fanout_job(bool threads, const char *n, const char *rounds,
		      const char *radix, char *out, size_t cap)
{
	const char *procs[] = { "-n", n, "--provider", "ofi", "--timeout", "60",
				TH_COLL_RANK, rounds, radix, NULL };
	const char *thr[] = { "--threads", n, "--timeout", "60", TH_COLL_RANK,
			      rounds, radix, NULL };
	int st;

	setenv("COLL_REPORT_FANOUT", "1", 1);
	st = run_thrun(threads ? thr : procs, NULL, out, cap);
	unsetenv("COLL_REPORT_FANOUT");
	return st;
}

/*
 * Over libfabric a delivery is answered a round trip later, and a chain
 * waits for it: the root of 4 (radix 2) sends each of the 4 segments of
 * coll_rank's 16 KiB to its children 2 and 1 from a chain each (8 chains,
 * 8 PUTs), rank 2 to its one child (4, 4); as threads of one process (one
 * fabric) the root sends each segment to both from one chain (4, 8).
 */
TEST(a_parent_sends_to_each_child_of_another_process_from_its_own_chain)
{
	static char out[1 << 14];

	EXPECT_EQ(0, fanout_job(false, "4", "2", "2", out, sizeof(out)));
	TH_LOG("%s", out);
	EXPECT_EQ(1, count_lines(out, "coll_rank 0: fan-out: ",
				 "8 chain(s), 8 put(s), ends before the answers: no"));
	EXPECT_EQ(1, count_lines(out, "coll_rank 2: fan-out: ", "4 chain(s), 4 put(s)"));
	EXPECT_EQ(0, fanout_job(true, "4", "2", "2", out, sizeof(out)));
	TH_LOG("%s", out);
	EXPECT_EQ(1, count_lines(out, "coll_rank 0: fan-out: ", "4 chain(s), 8 put(s)"));
}

/*
 * An Allreduce root of one segment whose children are behind a network
 * ends its round once its PUTs of the result have left and its copy into
 * recv is made, not a round trip later when they are answered: 3 and 4
 * ranks, radix 4 (the root's children are every other rank), every
 * round's result checked on every rank by coll_rank, whose ranks
 * overwrite recv as soon as a round ends (a root still sending from it
 * would corrupt its children's result where a PUT reads its source
 * late); as threads of one process, where a delivery is done once
 * posted, the root keeps the usual plan.
 */
TEST(an_allreduce_roots_plan_ends_its_round_before_its_children_answer)
{
	static const struct {
		const char *n, *root;
		int leaves;
	} jobs[] = {
		{ "3", "2 chain(s), 2 put(s), ends before the answers: yes", 2 },
		{ "4", "3 chain(s), 3 put(s), ends before the answers: yes", 3 },
	};
	static char out[1 << 14];
	unsigned int j;

	setenv("COLL_ONE_SEGMENT", "1", 1);
	for (j = 0; j < 2; j++) {
		EXPECT_EQ(0, fanout_job(false, jobs[j].n, "5", "4", out,
					sizeof(out)));
		TH_LOG("%s", out);
		EXPECT_EQ(1, count_lines(out, "coll_rank 0: fan-out: ",
					 jobs[j].root));
		EXPECT_EQ(jobs[j].leaves, count_lines(out, "coll_rank ",
				"0 chain(s), 0 put(s), ends before the answers: no"));
	}
	EXPECT_EQ(0, fanout_job(true, "4", "5", "4", out, sizeof(out)));
	TH_LOG("%s", out);
	EXPECT_EQ(1, count_lines(out, "coll_rank 0: fan-out: ",
				 "1 chain(s), 3 put(s), ends before the answers: no"));
	unsetenv("COLL_ONE_SEGMENT");
}

/*
 * Two processes' Allreduce of one segment is an exchange (coll.c:
 * th_coll_exchange()): each rank sends its contribution to the other and
 * reduces both, one message a round instead of two one after the other;
 * no rank fans out.  5 rounds (both of the exchange's sets of chains),
 * every result checked by coll_rank, whose ranks overwrite recv and send
 * as soon as a round ends; then MAX of the root's -0.0 and the other's
 * +0.0, which both ranks must reduce root first.  As threads of one
 * process (one fabric, no message to save) and of several segments it is
 * a tree.
 */
TEST(an_allreduce_of_two_processes_is_an_exchange)
{
	static char out[1 << 14];

	setenv("COLL_ONE_SEGMENT", "1", 1);
	EXPECT_EQ(0, fanout_job(false, "2", "5", "2", out, sizeof(out)));
	TH_LOG("%s", out);
	EXPECT_EQ(2, count_lines(out, "coll_rank ",
				 "0 chain(s), 0 put(s), ends before the answers: no, exchange: yes"));
	EXPECT_EQ(0, fanout_job(true, "2", "5", "2", out, sizeof(out)));
	TH_LOG("%s", out);
	EXPECT_EQ(2, count_lines(out, "coll_rank ", "exchange: no"));
	/* each rank reduces the root's operand first: MAX keeps its -0.0 */
	setenv("COLL_SIGNED_ZEROS", "1", 1);
	EXPECT_EQ(0, fanout_job(false, "2", "4", "2", out, sizeof(out)));
	TH_LOG("%s", out);
	EXPECT_EQ(2, count_lines(out, "coll_rank ", "exchange: yes"));
	unsetenv("COLL_SIGNED_ZEROS");
	unsetenv("COLL_ONE_SEGMENT");
	EXPECT_EQ(0, fanout_job(false, "2", "5", "2", out, sizeof(out)));
	TH_LOG("%s", out);
	EXPECT_EQ(2, count_lines(out, "coll_rank ", "exchange: no"));
}

/*
 * A small Broadcast among processes is sent down its tree eagerly
 * (coll.c: th_coll_eager_tree()): each parent sends into one of two slots
 * at each child without waiting for the child's host, and each child
 * credits its parent once the slot is free.  No barrier between rounds
 * (COLL_NO_BARRIER) and each rank sleeping a different 0-30 us before
 * each start (COLL_JITTER_US): roots and parents run up to two rounds
 * ahead of their children, as far as the credits let them, and every
 * round's data is checked on every rank, whose hosts overwrite send and
 * recv as soon as a round ends.  4 ranks at radix 4 (leaves only), 8 at
 * radix 2 (ranks in the middle forward), 16 at radix 4.  A Broadcast of
 * 16 KiB, above the eager limit, keeps the ready protocol, and as threads
 * of one process (one fabric) it is no eager tree either.  Under passive,
 * some rank's waiters read data in their look before sleeping.
 */
TEST(a_small_broadcast_goes_down_its_tree_eagerly)
{
	static const struct {
		const char *n, *radix, *rounds;
	} jobs[] = { { "4", "4", "200" }, { "8", "2", "100" }, { "16", "4", "50" } };
	static char out[1 << 15];
	unsigned int j;

	setenv("COLL_BCAST", "1", 1);
	setenv("COLL_ONE_SEGMENT", "1", 1);
	setenv("COLL_NO_BARRIER", "1", 1);
	setenv("COLL_JITTER_US", "30", 1);
	setenv("COLL_COUNT", "4", 1);
	for (j = 0; j < sizeof(jobs) / sizeof(jobs[0]); j++) {
		EXPECT_EQ(0, fanout_job(false, jobs[j].n, jobs[j].rounds,
					jobs[j].radix, out, sizeof(out)));
		TH_LOG("%s", out);
		EXPECT_EQ(atoi(jobs[j].n),
			  count_lines(out, "coll_rank ", "eager tree: yes"));
	}
	/*
	 * waiters that sleep at once look at their queue first: a child
	 * whose host starts late finds the data there, and reads it itself
	 */
	setenv("TH_WAIT_POLICY", "passive", 1);
	EXPECT_EQ(0, fanout_job(false, "4", "200", "4", out, sizeof(out)));
	unsetenv("TH_WAIT_POLICY");
	TH_LOG("%s", out);
	EXPECT_EQ(4, count_lines(out, "libthverbs: ofi rank ",
				 "read by waiters' look before sleeping"));
	EXPECT_GT(4, count_lines(out, "libthverbs: ofi rank ",
				 "; 0 read by waiters' look before sleeping"));
	EXPECT_EQ(0, fanout_job(true, "4", "20", "4", out, sizeof(out)));
	EXPECT_EQ(4, count_lines(out, "coll_rank ", "eager tree: no"));
	setenv("COLL_COUNT", "2048", 1);
	EXPECT_EQ(0, fanout_job(false, "4", "20", "2", out, sizeof(out)));
	TH_LOG("%s", out);
	EXPECT_EQ(4, count_lines(out, "coll_rank ", "eager tree: no"));
	unsetenv("COLL_COUNT");
	unsetenv("COLL_JITTER_US");
	unsetenv("COLL_NO_BARRIER");
	unsetenv("COLL_ONE_SEGMENT");
	unsetenv("COLL_BCAST");
}

TEST(allreduce_2_processes) { coll_job(_metadata, "2", "2"); }
TEST(allreduce_4_processes) { coll_job(_metadata, "4", "2"); }
TEST(allreduce_8_processes_4_nomial) { coll_job(_metadata, "8", "4"); }
TEST(allreduce_16_processes) { coll_job(_metadata, "16", "2"); }
TEST(allreduce_4_processes_over_tcp)
{
	setenv("TH_OFI_PROVIDER", "tcp;ofi_rxm", 1);
	coll_job(_metadata, "4", "2");
	unsetenv("TH_OFI_PROVIDER");
}

/*
 * Rank 5 of 8 is killed in round 1.  The survivors outlive thrun's SIGTERM
 * (COLL_IGNORE_TERM) so that each must see its collective fail by itself,
 * through the provider: every one of the 7 says so, none times out.
 */
TEST(a_killed_rank_makes_every_other_fail_not_hang)
{
	const char *argv[] = { "-n", "8", "--provider", "ofi", "--timeout", "60",
			       "--grace", "30", TH_COLL_RANK, "3", "2", NULL };
	static char out[1 << 16];
	int st;

	setenv("COLL_KILL_RANK", "5", 1);
	setenv("COLL_IGNORE_TERM", "1", 1);
	st = run_thrun(argv, SHORT_DEADLINE, out, sizeof(out));
	unsetenv("COLL_KILL_RANK");
	unsetenv("COLL_IGNORE_TERM");
	TH_LOG("%s", out);
	EXPECT_TRUE(st == 137 || st == 2);
	EXPECT_EQ(7, count_lines(out, "coll_rank ", "round 1: "));
	EXPECT_EQ(0, count_lines(out, "", "timed out"));
}


/* ---- another local user ------------------------------------------------- */

/*
 * A one-host job over tcp;ofi_rxm listens on loopback, which every local
 * user reaches (on shm, its default, nothing is reachable by name:
 * shm_regions_have_no_name_once_joined).
 * ofi_forger, as uid 65534 with nothing of the job's, floods forged
 * answers for every operation id it can guess (GET_DATA with its bytes,
 * DONE with -EACCES, RESOLVED pointing elsewhere), forged requests, and
 * RMA at the first libfabric keys, while the job has four deliveries in
 * flight whose answers are held back (ofi_rank "forged": rank 1 stopped).
 * Every delivery completes with success and the right bytes, no foreign
 * byte lands anywhere, no counter fails, no vport enters the error state;
 * and the job says it dropped the attacker's messages.
 */
TEST(forged_messages_from_another_user_change_nothing)
{
	const char *argv[] = { "-n", "2", "--provider", "ofi", "--timeout",
			       "30", TH_OFI_RANK, "forged", NULL };
	char dir[] = "/tmp/th_forge.XXXXXX", path[64];
	static char out[1 << 16], fout[4096];
	unsigned long sent = 0;
	int st, fst = -1;
	const char *p;
	FILE *f;
	pid_t pid;
	size_t n;

	if (geteuid())
		SKIP(return, "needs root, to run the attacker as uid 65534");
	ASSERT_NE(NULL, mkdtemp(dir));
	ASSERT_EQ(0, chmod(dir, 0777));
	f = tmpfile();
	ASSERT_NE(NULL, f);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		dup2(fileno(f), STDOUT_FILENO);
		dup2(fileno(f), STDERR_FILENO);
		execl(TH_OFI_FORGER, TH_OFI_FORGER, "--match", "forged",
		      "--dir", dir, "--seconds", "2", (char *)NULL);
		_exit(127);
	}
	setenv("FORGE_DIR", dir, 1);
	setenv("TH_OFI_PROVIDER", "tcp;ofi_rxm", 1);
	/* libfabric's own leak of a half-set-up attacker connection */
	setenv("LSAN_OPTIONS", "suppressions=" TH_OFI_ATTACK_SUPP
	       ":print_suppressions=0", 1);
	st = run_thrun(argv, NULL, out, sizeof(out));
	unsetenv("LSAN_OPTIONS");
	unsetenv("TH_OFI_PROVIDER");
	unsetenv("FORGE_DIR");
	if (waitpid(pid, &fst, 0) != pid)
		fst = -1;
	n = pread(fileno(f), fout, sizeof(fout) - 1, 0);
	fout[n < sizeof(fout) ? n : 0] = '\0';
	fclose(f);
	TH_LOG("job:\n%s\nattacker:\n%s", out, fout);
	snprintf(path, sizeof(path), "%s/posted", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/forged", dir);
	unlink(path);
	rmdir(dir);
	/* the attack happened: uid 65534 sent its forgeries */
	ASSERT_TRUE(WIFEXITED(fst) && !WEXITSTATUS(fst));
	p = strstr(fout, "ofi_forger: uid 65534, 2 endpoints, ");
	ASSERT_NE(NULL, p);
	sent = strtoul(p + strlen("ofi_forger: uid 65534, 2 endpoints, "),
		       NULL, 10);
	EXPECT_LE(1000, sent);
	/* and changed nothing */
	EXPECT_EQ(0, st);
	EXPECT_EQ(0, count_lines(out, "ofi_rank ", ""));
	/* the job saw them and dropped them, unanswered */
	EXPECT_LE(1, count_lines(out, "libthverbs: ofi rank ",
				 "unauthenticated messages dropped"));
}

/* ---- refusals ---------------------------------------------------------- */

/* ofi ranks are processes: thrun refuses to make them threads. */
TEST(thrun_refuses_ofi_as_threads)
{
	const char *threads[] = { "--threads", "2", "--provider", "ofi",
				  TH_COLL_RANK, NULL };
	const char *single[] = { "-n", "2", "--single", "--provider", "ofi",
				 TH_COLL_RANK, NULL };
	static char out[4096];

	EXPECT_EQ(2, run_thrun(threads, NULL, out, sizeof(out)));
	EXPECT_EQ(1, count_lines(out, "thrun: ", "not with --threads"));
	EXPECT_EQ(2, run_thrun(single, NULL, out, sizeof(out)));
	EXPECT_EQ(1, count_lines(out, "thrun: ", "not with --single"));
}

/* A libfabric provider this machine lacks: every rank says why, and fails. */
TEST(an_unknown_libfabric_provider_fails_the_job)
{
	const char *argv[] = { "-n", "2", "--provider", "ofi", "--timeout", "30",
			       TH_OFI_RANK, "put", NULL };
	static char out[1 << 14];

	setenv("TH_OFI_PROVIDER", "no-such-provider", 1);
	EXPECT_EQ(1, run_thrun(argv, NULL, out, sizeof(out)));
	unsetenv("TH_OFI_PROVIDER");
	TH_LOG("%s", out);
	EXPECT_LE(1, count_lines(out, "ofi_rank: boot: ", "No such device"));
}

/*
 * The join is all-or-nothing on shm too: rank 0 opens its shm endpoint
 * (the one-host default), rank 1 cannot open one (a provider libfabric
 * lacks): both fail with rank 1's error, neither waits for the other.
 */
TEST(a_rank_that_cannot_join_fails_the_shm_job_on_every_rank)
{
	const char *argv[] = { "-n", "2", "--provider", "ofi", "--timeout", "30",
			       "sh", "-c",
			       "[ \"$TH_RANK\" = 1 ] && export TH_OFI_PROVIDER=no-such-provider; exec \"$0\" put",
			       TH_OFI_RANK, NULL };
	static char out[1 << 14];

	unsetenv("TH_OFI_PROVIDER");
	EXPECT_EQ(1, run_thrun(argv, NULL, out, sizeof(out)));
	TH_LOG("%s", out);
	EXPECT_EQ(1, count_lines(out, "libthverbs: ofi rank 0: ",
				 "libfabric provider shm"));
	EXPECT_EQ(2, count_lines(out, "ofi_rank: boot: ", "No such device"));
	EXPECT_EQ(0, count_lines(out, "", "timed out"));
}

/*
 * libfabric is loaded at the join (fabric_dl.c): a rank that cannot load
 * it says why, and the join fails on every rank with its error; nothing
 * runs and nobody waits for the timeout.
 */
TEST(a_rank_without_libfabric_fails_the_join_on_every_rank)
{
	const char *argv[] = { "-n", "2", "--provider", "ofi", "--timeout", "30",
			       "sh", "-c",
			       "[ \"$TH_RANK\" = 1 ] && export TH_OFI_LIBFABRIC=/nonexistent/libfabric.so.1; exec \"$0\" put",
			       TH_OFI_RANK, NULL };
	static char out[1 << 14];

	unsetenv("TH_OFI_PROVIDER");
	EXPECT_EQ(1, run_thrun(argv, NULL, out, sizeof(out)));
	TH_LOG("%s", out);
	EXPECT_EQ(1, count_lines(out, "libthverbs: ofi rank 1: cannot load libfabric (TH_OFI_LIBFABRIC): ",
				 "/nonexistent/libfabric.so.1"));
	EXPECT_EQ(2, count_lines(out, "ofi_rank: boot: ", "Function not implemented"));
	EXPECT_EQ(0, count_lines(out, "ofi_rank 0 (put)", ""));
	EXPECT_EQ(0, count_lines(out, "", "timed out"));
}

/* A malformed deadline is named once per rank, and nothing runs. */
TEST(a_malformed_timeout_is_named)
{
	const char *argv[] = { "-n", "2", "--provider", "ofi", "--timeout", "30",
			       TH_OFI_RANK, "put", NULL };
	static char out[1 << 14];

	EXPECT_EQ(1, run_thrun(argv, "10s", out, sizeof(out)));
	TH_LOG("%s", out);
	EXPECT_LE(1, count_lines(out, "libthverbs: TH_OFI_TIMEOUT='10s'", ""));
	EXPECT_EQ(0, count_lines(out, "ofi_rank 0 (put)", ""));
}

/*
 * Triggered sends (FI_TRIGGER): run the triggered case of ofi_rank with
 * @prov and TH_OFI_TRIGGER=@mode; its exit status, the output in @out.
 */
static int run_triggered(const char *prov, const char *mode, char *out,
			 size_t cap)
{
	const char *argv[] = { "-n", "2", "--provider", "ofi", "--timeout",
			       CASE_TIMEOUT, TH_OFI_RANK, "triggered", NULL };

	setenv("TH_OFI_PROVIDER", prov, 1);
	setenv("TH_OFI_TRIGGER", mode, 1);
	return run_thrun(argv, SHORT_DEADLINE, out, cap);
}

/*
 * On sockets, which offers FI_TRIGGER, rank 0's six chains that begin
 * with a remote WRITE_INLINE or PUT wait in libfabric: two are sent by it
 * when their counter gets there, four are dropped (cancelled, failed,
 * source deregistered, pending at exit), and the target sees exactly what
 * the case checks.
 */
TEST(triggered_sends_wait_in_libfabric_on_sockets)
{
	static char out[1 << 14];

	EXPECT_EQ(0, run_triggered("sockets", "1", out, sizeof(out)));
	TH_LOG("%s", out);
	EXPECT_EQ(1, count_lines(out, "libthverbs: ofi rank 0: triggered sends: ",
				 "6 armed, 2 sent by libfabric, 4 dropped, 0 left to software"));
	EXPECT_EQ(1, count_lines(out, "libthverbs: ofi rank 1: triggered sends: ",
				 "0 armed"));
}

/* The same case with every chain in the engine: the same results. */
TEST(triggered_case_holds_in_software)
{
	static char out[1 << 14];

	EXPECT_EQ(0, run_triggered("sockets", "0", out, sizeof(out)));
	TH_LOG("%s", out);
	EXPECT_EQ(2, count_lines(out, "libthverbs: ofi rank ", "triggered sends: off (sockets)"));
	EXPECT_EQ(0, run_triggered("tcp;ofi_rxm", "auto", out, sizeof(out)));
	TH_LOG("%s", out);
	EXPECT_EQ(2, count_lines(out, "libthverbs: ofi rank ", "triggered sends: off (tcp;ofi_rxm)"));
}

/* The collectives' job on sockets with triggered sends allowed. */
TEST(allreduce_4_processes_on_sockets)
{
	setenv("TH_OFI_PROVIDER", "sockets", 1);
	setenv("TH_OFI_TRIGGER", "1", 1);
	coll_job(_metadata, "4", "2");
}

/* Required where the provider lacks it: the job fails, saying why. */
TEST(trigger_required_without_fi_trigger_fails_the_job)
{
	static char out[1 << 14];

	EXPECT_EQ(1, run_triggered("tcp;ofi_rxm", "1", out, sizeof(out)));
	TH_LOG("%s", out);
	EXPECT_LE(1, count_lines(out, "libthverbs: ofi rank ",
				 "TH_OFI_TRIGGER=1, but libfabric's tcp;ofi_rxm offers no FI_TRIGGER"));
	EXPECT_EQ(0, count_lines(out, "libthverbs: ofi rank 0: triggered sends", ""));
}

/* TH_OFI_RING takes 0 or 1: anything else fails the join, named. */
TEST(a_malformed_ring_setting_is_named)
{
	static char out[1 << 14];

	EXPECT_NE(0, run_case_rings("put", "yes", out, sizeof(out)));
	TH_LOG("%s", out);
	EXPECT_LE(1, count_lines(out, "libthverbs: TH_OFI_RING='yes'", ""));
	EXPECT_EQ(0, run_case_rings("put", "1", out, sizeof(out)));
}

TEST(a_malformed_trigger_setting_is_named)
{
	static char out[1 << 14];

	EXPECT_EQ(1, run_triggered("sockets", "yes", out, sizeof(out)));
	TH_LOG("%s", out);
	EXPECT_LE(1, count_lines(out, "libthverbs: TH_OFI_TRIGGER='yes'", ""));
	EXPECT_EQ(0, count_lines(out, "ofi_rank 0 (triggered)", ""));
}

/*
 * MPICH's mpiexec launches the job instead of thrun: the ranks join
 * through PMI (boot/pmi.c) and the collectives' job and an RMA PUT run as
 * under thrun, every result checked.
 */
TEST(mpiexec_launches_ofi_jobs_through_pmi)
{
	const char *coll[] = { "-n", "4", TH_COLL_RANK, "3", "2", NULL };
	const char *put[] = { "-n", "2", TH_OFI_RANK, "put_rma", NULL };

	if (access(MPIEXEC, X_OK))
		SKIP(return, "MPICH's mpiexec (%s) is not installed", MPIEXEC);
	setenv("TH_PROVIDER", "ofi", 1);
	EXPECT_EQ(0, run_prog(MPIEXEC, coll, NULL, NULL, 0));
	EXPECT_EQ(0, run_prog(MPIEXEC, put, SHORT_DEADLINE, NULL, 0));
}

TEST_HARNESS_MAIN
