// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * kill_storm_test.c - offloaded Allreduce in jobs of 16 processes (one
 * per rank, the MPI model) while ranks are SIGKILLed at random moments:
 * in setup, in the middle of a round, in teardown.  What must hold:
 *   - no hang: every rank that was not killed ends within its deadline,
 *     with every round right or with an error (never a wrong result,
 *     never a timed-out wait), and every process can be reaped;
 *   - nothing left behind: once a job's processes are gone, no node has
 *     a vport (the netlink statistics), and every page pinned for a
 *     registration was unpinned (/proc/vmstat's FOLL_PIN counts, which
 *     are sampled during the jobs too, to show that they move);
 *   - one job in five is killed nowhere and must get every round right.
 * The collectives run: TH_STORM_COLLECTIVES (default 1000; 200 with
 * TH_VM_QUICK, the debug kernel's run), in jobs of ROUNDS.  run.sh's
 * rmmod at the end checks that the module unloads clean after the storm.
 * Processes share a fabric only through th_nic.ko: on the in-process
 * provider the test is skipped with that reason.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "nl.h"
#include "job_shm.h"
#include "th_vmstat.h"
#include <thverbs/verbs.h>

#define RANKS		16
#define COUNT		256
#define ROUNDS		20
#define WAIT_NS		10000000000ULL	/* a round's wait: 10 s is a hang */
#define EXIT_SECS	40		/* a rank's whole life after a kill */

/* Exit statuses of a rank. */
enum {
	RANK_OK,	/* every round right */
	RANK_WRONG,	/* a wrong result, or setup failed in a whole job */
	RANK_ERROR,	/* a round or the setup failed with an error */
	RANK_TIMEOUT,	/* a wait timed out: a hang */
	RANK_BROKEN,	/* left at a barrier: a peer was killed */
};

/* Small integers: sums in any order are exact. */
static double input(unsigned int rank, unsigned int round, unsigned int i)
{
	return (double)((rank * 7 + round * 3 + i) % 50);
}

static int rank_main(struct job_shm *sh, unsigned int rank, unsigned int k)
{
	struct job_rank g = { sh, rank };
	struct th_coll_attr a = { .kind = TH_COLL_ALLREDUCE, .op = TH_NIC_ALU_SUM,
				  .dtype = TH_NIC_DT_FLOAT64, .count = COUNT,
				  .radix = k, .segment = 128 };
	static double send[COUNT], recv[COUNT];
	struct th_device **devs;
	struct th_context *ctx;
	struct th_vport *vp;
	struct th_coll *coll;
	unsigned int round, i, r;
	int ndev, ret, st = RANK_OK;

	devs = th_device_list_get("kernel", &ndev);
	if (!devs || ndev < 1)
		return RANK_WRONG;
	ctx = th_device_open(devs[rank % ndev]);
	vp = ctx ? th_vport_create(ctx, NULL) : NULL;
	if (!vp)
		return RANK_WRONG;
	coll = th_coll_create(vp, rank, RANKS, job_allgather, &g, &a, send,
			      recv);
	if (!coll)
		return atomic_load(&sh->broken) ? RANK_BROKEN : RANK_ERROR;
	for (round = 0; round < ROUNDS && st == RANK_OK; round++) {
		for (i = 0; i < COUNT; i++)
			send[i] = input(rank, round, i);
		if (job_barrier(sh)) {	/* the previous round is over */
			st = RANK_BROKEN;
			break;
		}
		ret = th_coll_start(coll);
		if (!ret)
			ret = th_coll_wait(coll, WAIT_NS);
		if (ret == -ETIMEDOUT) {
			st = RANK_TIMEOUT;
			break;
		}
		if (ret) {
			st = RANK_ERROR;
			break;
		}
		for (i = 0; i < COUNT && st == RANK_OK; i++) {
			double want = 0;

			for (r = 0; r < RANKS; r++)
				want += input(r, round, i);
			if (recv[i] != want)
				st = RANK_WRONG;
		}
	}
	/*
	 * A rank that leaves the rounds early breaks the job, as a kill does:
	 * its peers must not wait at a barrier it will never reach (they
	 * would fall out of step and hang until reaped).
	 */
	if (st != RANK_OK && st != RANK_BROKEN)
		job_break(sh);
	/* collective when whole; a broken job's allgather fails at once */
	th_coll_destroy(coll);
	th_vport_destroy(vp);
	th_device_close(ctx);
	th_device_list_free(devs);
	return st;
}

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/*
 * Sleep towards @until (µs), at most 1 ms at a time; false once it came.
 * The time left is read once: the storm's hang (issue 28) was
 * usleep(next - now_us() > 1000 ? 1000 : next - now_us()), whose second
 * now_us() could pass @next after the first had not (the storm's parent
 * preempted between the two by its 16 ranks): the difference wrapped, and
 * usleep()'s 32-bit argument made it a sleep of about 71 minutes, with
 * no deadline of the test running yet and nothing blocked in the kernel.
 */
static bool nap_until(uint64_t until)
{
	uint64_t now = now_us();

	if (now >= until)
		return false;
	usleep(until - now > 1000 ? 1000 : (useconds_t)(until - now));
	return true;
}

/* xorshift: the storm is the same for the same seed */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

struct tally {
	unsigned int jobs, clean_jobs, kills, killed_after_end;
	unsigned int ok, error, broken, wrong, timeout, overdue, unreaped;
	uint64_t clean_us;		/* the last whole job's duration */
	long long pins_peak;		/* pages pinned, most seen at once */
	uint64_t pins_at;		/* when last sampled */
};

/* Every 20 ms at most: reading /proc/vmstat is not free. */
static void sample_pins(struct tally *t)
{
	long long p;

	if (now_us() - t->pins_at < 20000)
		return;
	t->pins_at = now_us();
	p = thn_pins_held();
	if (p > t->pins_peak)
		t->pins_peak = p;
}

/*
 * Reap @pid by @deadline (µs); past it, a SIGKILL and 10 s more.  Returns
 * its wait status, -1 if it had to be killed (overdue), -2 if even
 * SIGKILL could not end it (unkillable: a task stuck in the kernel).
 */
static int reap(struct tally *t, pid_t pid, uint64_t deadline)
{
	int st;

	while (now_us() < deadline) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return st;
		sample_pins(t);
		usleep(2000);
	}
	kill(pid, SIGKILL);
	deadline = now_us() + 10000000;
	while (now_us() < deadline) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return -1;
		usleep(2000);
	}
	return -2;
}

static void run_job(struct __test_metadata *_metadata, struct tally *t,
		    uint64_t *seed, bool storm)
{
	bool victim[RANKS] = { false };
	uint64_t kill_at[RANKS], start, span, deadline;
	unsigned int r, nkill = 0, k = 2 + rnd(seed) % 3;
	struct job_shm *sh = job_shm_create(RANKS);
	pid_t pid[RANKS];
	int st;

	ASSERT_NE(NULL, sh);
	/* moments anywhere from before setup to past the last round */
	span = t->clean_us ? t->clean_us * 5 / 4 : 2000000;
	if (storm) {
		nkill = 1 + rnd(seed) % 3;
		for (r = 0; r < nkill; r++) {
			unsigned int v = rnd(seed) % RANKS;

			victim[v] = true;
			kill_at[v] = rnd(seed) % span;
		}
	}
	start = now_us();
	for (r = 0; r < RANKS; r++) {
		pid[r] = fork();
		ASSERT_GE(pid[r], 0);
		if (!pid[r])
			_exit(rank_main(sh, r, k));
	}
	for (r = 0; r < RANKS; r++)
		kill_at[r] = victim[r] ? start + kill_at[r] : UINT64_MAX;
	/* the kills, in time order */
	for (;;) {
		uint64_t next = UINT64_MAX;
		unsigned int v = RANKS;

		for (r = 0; r < RANKS; r++)
			if (kill_at[r] < next) {
				next = kill_at[r];
				v = r;
			}
		if (v == RANKS)
			break;
		while (nap_until(next))
			sample_pins(t);
		kill(pid[v], SIGKILL);
		kill_at[v] = UINT64_MAX;
		t->kills++;
		job_break(sh);
	}
	/*
	 * One deadline for the whole job: ranks still alive EXIT_SECS after
	 * the last kill are overdue together (a job that hangs costs 40 s,
	 * not 40 s a rank, and the storm stops there to report it).
	 */
	deadline = now_us() + EXIT_SECS * 1000000ULL;
	for (r = 0; r < RANKS; r++) {
		st = reap(t, pid[r], deadline);
		if (st == -2) {
			t->unreaped++;
			TH_LOG("job %u rank %u: unkillable", t->jobs, r);
			continue;
		}
		if (st == -1) {
			t->overdue++;
			TH_LOG("job %u rank %u: alive %u s after the last kill (%s)",
			       t->jobs, r, EXIT_SECS, storm ? "storm" : "whole job");
			continue;
		}
		if (victim[r] && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
			continue;
		if (victim[r])
			t->killed_after_end++;
		if (!WIFEXITED(st)) {
			t->wrong++;
			TH_LOG("job %u rank %u: signal %d", t->jobs, r,
			       WIFSIGNALED(st) ? WTERMSIG(st) : 0);
			continue;
		}
		switch (WEXITSTATUS(st)) {
		case RANK_OK:
			t->ok++;
			break;
		case RANK_ERROR:
			t->error++;
			break;
		case RANK_BROKEN:
			t->broken++;
			break;
		case RANK_TIMEOUT:
			t->timeout++;
			TH_LOG("job %u rank %u: a wait timed out", t->jobs, r);
			break;
		default:
			t->wrong++;
			TH_LOG("job %u rank %u: status %d (%s)", t->jobs, r,
			       WEXITSTATUS(st), storm ? "storm" : "whole job");
		}
		/* a job nobody killed gets every round right */
		if (!storm && WEXITSTATUS(st) != RANK_OK) {
			t->wrong++;
			TH_LOG("job %u rank %u: status %d with no kill", t->jobs,
			       r, WEXITSTATUS(st));
		}
	}
	if (!storm) {
		t->clean_jobs++;
		t->clean_us = now_us() - start;
	}
	t->jobs++;
	job_shm_destroy(sh);
}

static int count_vports(struct nlattr **tb, void *arg)
{
	unsigned int *n = arg;

	if (tb[TH_NL_A_VPORTS])
		*n += nla_get_u32(tb[TH_NL_A_VPORTS]);
	return 0;
}

/* Live vports on every node, through the netlink statistics. */
static int live_vports_once(unsigned int *n)
{
	struct thnl nl;
	int ret = thnl_open(&nl);

	*n = 0;
	if (ret)
		return ret;
	ret = thnl_request(&nl, TH_NL_CMD_NODE_GET, true, NULL, NULL,
			   count_vports, n);
	thnl_close(&nl);
	return ret;
}

/*
 * live_vports_once(), asked again (on a new socket) when the kernel's
 * answer does not come within TH_NL_REPLY_SECS: the storm once sat with
 * every CPU idle and no task blocked until the VM's timeout, and the
 * netlink dump is the one wait of the storm's parent that had no bound.
 * Each retry is said, so a lost answer is seen, not hidden.
 */
static int live_vports(unsigned int *n)
{
	int ret, i;

	for (i = 0; i < 3; i++) {
		ret = live_vports_once(n);
		if (ret != -ETIMEDOUT)
			return ret;
		printf("# kill storm: no netlink answer in %d s; asking again\n",
		       TH_NL_REPLY_SECS);
		fflush(stdout);
	}
	return ret;
}

static bool kernel_provider(void)
{
	struct th_device **devs = th_device_list_get("kernel", NULL);

	th_device_list_free(devs);
	return devs != NULL;
}

FIXTURE(storm) {
	int unused;
};

FIXTURE_SETUP(storm)
{
}

FIXTURE_TEARDOWN(storm)
{
}

/* 1000 collectives take 15 s on the stock kernel under TCG; leave room. */
TEST_F_TIMEOUT(storm, kill_storm, 360)
{
	const char *env = getenv("TH_STORM_COLLECTIVES");
	unsigned int collectives = env ? atoi(env) :
				   getenv("TH_VM_QUICK") ? 200 : 1000;
	unsigned int jobs = (collectives + ROUNDS - 1) / ROUNDS, j, vports = 1, i;
	long long pins_before = thn_pins_held(), pins_after = -1;
	uint64_t seed = 0x5eed5 + collectives, start = now_us();
	struct tally t = { 0 };

	if (!kernel_provider())
		SKIP(return, "processes share a fabric only through th_nic.ko");
	ASSERT_EQ(0, live_vports(&vports));
	ASSERT_EQ(0, vports) TH_LOG("vports alive before the storm");
	for (j = 0; j < jobs; j++) {
		run_job(_metadata, &t, &seed, j % 5 != 0);
		/* a vport outlives its process only while its close runs */
		for (i = 0; i < 500; i++) {
			ASSERT_EQ(0, live_vports(&vports));
			if (!vports)
				break;
			usleep(10000);
		}
		EXPECT_EQ(0, vports) TH_LOG("job %u left %u vports", j, vports);
		if (vports || t.unreaped || t.overdue)
			break;
	}
	if (pins_before >= 0) {
		for (i = 0; i < 500; i++) {
			pins_after = thn_pins_held();
			if (pins_after <= pins_before)
				break;
			usleep(10000);
		}
	}
	printf("# kill storm: %u collectives in %u jobs of %u processes (%u whole), %u ranks SIGKILLed, %.1f s\n",
	       t.jobs * ROUNDS, t.jobs, RANKS, t.clean_jobs, t.kills,
	       (now_us() - start) / 1e6);
	printf("# kill storm: survivors: %u every round right, %u an error, %u left at a broken barrier; %u killed after they ended\n",
	       t.ok, t.error, t.broken, t.killed_after_end);
	printf("# kill storm: hangs: %u timed-out waits, %u overdue, %u unkillable; wrong results %u\n",
	       t.timeout, t.overdue, t.unreaped, t.wrong);
	printf("# kill storm: left behind: %u vports; pinned pages %lld before, %lld at most during, %lld after\n",
	       vports, pins_before, t.pins_peak, pins_after);
	/* the harness's child ends in _exit(): a file or pipe keeps nothing */
	fflush(stdout);
	EXPECT_EQ(jobs, t.jobs);	/* fewer: it stopped at a hung job */
	EXPECT_EQ(0, t.timeout);
	EXPECT_EQ(0, t.overdue);
	EXPECT_EQ(0, t.unreaped);
	EXPECT_EQ(0, t.wrong);
	EXPECT_GT(t.kills, 0);
	EXPECT_GT(t.ok, 0);
	if (pins_before < 0) {
		TH_LOG("no FOLL_PIN counts in /proc/vmstat: pinned pages not checked");
	} else {
		/* earlier tests' pages may still be on their way out */
		EXPECT_LE(pins_after, pins_before);
	}
}

TEST_HARNESS_MAIN
