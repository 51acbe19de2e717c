// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * coll_mp_test.c - offloaded Allreduce with one process per rank (the MPI
 * model), addresses exchanged through th_coll_create()'s allgather hook:
 * results checked on every rank over several rounds, and a rank killed in
 * the middle making every other rank fail with an error, not hang.
 * Processes share one fabric only through th_nic.ko: on the in-process
 * provider the test is skipped with that reason.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "job_shm.h"
#include <thverbs/verbs.h>

#define RANKS	16
#define COUNT	1000
#define ROUNDS	3

static double input(unsigned int rank, unsigned int round, unsigned int i)
{
	return (double)((rank * 7 + round * 3 + i) % 50) / 8;
}

/* Reference in tree order: send, then each child's subtree, left to right. */
static void ref_tree(unsigned int k, unsigned int v, unsigned int round,
		     double *out)
{
	unsigned int kids[RANKS], n, j, i;
	double sub[COUNT];

	for (i = 0; i < COUNT; i++)
		out[i] = input(v, round, i);
	n = th_tree_children(RANKS, 0, k, v, kids, RANKS);
	for (j = 0; j < n; j++) {
		ref_tree(k, kids[j], round, sub);
		for (i = 0; i < COUNT; i++)
			out[i] += sub[i];
	}
}

/*
 * One rank's life; returns its exit status: 0 every round right, 1 wrong
 * data or a setup failure, 2 the collective failed with an error (the
 * expected outcome when a peer was killed), 3 it timed out (a hang).
 */
static int rank_main(struct job_shm *sh, unsigned int rank, unsigned int k,
		     int kill_rank)
{
	struct job_rank g = { sh, rank };
	struct th_coll_attr a = { .kind = TH_COLL_ALLREDUCE, .op = TH_NIC_ALU_SUM,
				  .dtype = TH_NIC_DT_FLOAT64, .count = COUNT,
				  .radix = k, .segment = 256 };
	static double send[COUNT], recv[COUNT], want[COUNT];
	struct th_device **devs;
	struct th_context *ctx;
	struct th_vport *vp;
	struct th_coll *coll;
	unsigned int round, i;
	int ndev, ret;

	devs = th_device_list_get("kernel", &ndev);
	if (!devs || ndev < 1)
		return 1;
	ctx = th_device_open(devs[rank % ndev]);
	vp = ctx ? th_vport_create(ctx, NULL) : NULL;
	if (!vp)
		return 1;
	coll = th_coll_create(vp, rank, RANKS, job_allgather, &g, &a, send,
			      recv);
	if (!coll)
		return 1;
	for (round = 0; round < ROUNDS; round++) {
		for (i = 0; i < COUNT; i++)
			send[i] = input(rank, round, i);
		if (job_barrier(sh))	/* the previous round is over */
			return 2;
		if ((int)rank == kill_rank && round == 1)
			raise(SIGKILL);		/* dies with its chains posted */
		ret = th_coll_start(coll);
		if (!ret)
			ret = th_coll_wait(coll, 10000000000ULL);
		if (ret == -ETIMEDOUT)
			return 3;
		if (ret)
			return 2;
		ref_tree(k, 0, round, want);
		if (memcmp(want, recv, sizeof(want)))
			return 1;
	}
	th_coll_destroy(coll);
	th_vport_destroy(vp);
	th_device_close(ctx);
	th_device_list_free(devs);
	return 0;
}

/* Fork the ranks; collect their exit statuses (-SIGNAL if killed). */
static void run_job(struct __test_metadata *_metadata, unsigned int k,
		    int kill_rank, int *status)
{
	struct job_shm *sh = job_shm_create(RANKS);
	pid_t pid[RANKS];
	unsigned int r;
	int st;

	ASSERT_NE(NULL, sh);
	for (r = 0; r < RANKS; r++) {
		pid[r] = fork();
		ASSERT_GE(pid[r], 0);
		if (!pid[r])
			_exit(rank_main(sh, r, k, kill_rank));
	}
	for (r = 0; r < RANKS; r++) {
		ASSERT_EQ(pid[r], waitpid(pid[r], &st, 0));
		status[r] = WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st);
	}
	job_shm_destroy(sh);
}

static bool kernel_provider(void)
{
	struct th_device **devs = th_device_list_get("kernel", NULL);

	th_device_list_free(devs);
	return devs != NULL;
}

TEST(sixteen_processes_allreduce)
{
	int status[RANKS], k;
	unsigned int r;

	if (!kernel_provider())
		SKIP(return, "processes share a fabric only through th_nic.ko");
	for (k = 2; k <= 4; k += 2) {
		run_job(_metadata, k, -1, status);
		for (r = 0; r < RANKS; r++)
			EXPECT_EQ(0, status[r]) TH_LOG("radix %d rank %u", k, r);
	}
}

TEST(a_killed_rank_makes_the_others_fail_not_hang)
{
	int status[RANKS];
	unsigned int r;

	if (!kernel_provider())
		SKIP(return, "processes share a fabric only through th_nic.ko");
	/*
	 * Rank 5 is a leaf of the 4-nomial tree: it dies in round 1 before
	 * starting; its pending chains are cancelled, the failure climbs to
	 * the root and comes down to everyone.  The others cannot pass the
	 * round's barrier without it, so each one meets the error in
	 * th_coll_wait() (status 2), and none may time out (status 3).
	 */
	run_job(_metadata, 4, 5, status);
	EXPECT_EQ(-SIGKILL, status[5]);
	for (r = 0; r < RANKS; r++)
		if (r != 5)
			EXPECT_EQ(2, status[r]) TH_LOG("rank %u", r);
}

TEST_HARNESS_MAIN
