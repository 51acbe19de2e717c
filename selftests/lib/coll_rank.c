// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * coll_rank.c - the ranks of an offloaded Allreduce job started by thrun,
 * as processes (`thrun -n N coll_rank [ROUNDS] [RADIX]`) or as threads of
 * one process (`thrun --threads N coll_rank ...`), through th_boot_run():
 * addresses are exchanged through the bootstrap, every round's result is
 * checked against the tree-order reference, and a nonzero exit says what
 * went wrong.  With COLL_KILL_RANK=r in the environment, rank r kills
 * itself (a thread: leaves) in round 1, and the others must see the
 * collective fail (exit 2), never hang (exit 3).  COLL_IGNORE_TERM=1 makes
 * the ranks outlive thrun's SIGTERM (until its SIGKILL, --grace later), so
 * that a test sees every survivor report the failure itself.
 * COLL_REPORT_FANOUT=1 prints how each rank's plan sends down;
 * COLL_ONE_SEGMENT=1 makes the message one segment (of 512 elements
 * otherwise); COLL_COUNT=N sends N doubles a rank instead of 2048.
 * COLL_BCAST=1 runs a Broadcast from rank 0 instead (every rank must get
 * the root's data); COLL_NO_BARRIER=1 leaves out the barrier before each
 * round, so that a rank may run ahead of the others as far as the
 * collective lets it; COLL_JITTER_US=N makes each rank sleep a different
 * 0 to N us before each start.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <thverbs/verbs.h>

/* elements a rank: 2048 (16 KiB), or COLL_COUNT (up to 1 Mi) */
static unsigned int g_count = 2048;

static unsigned int g_size, g_radix;

/*
 * COLL_REPORT_FANOUT=1: how this rank's plan sends the result down, as
 * "coll_rank R: fan-out: C chain(s), P put(s), ends before the answers:
 * yes|no, exchange: yes|no, eager tree: yes|no" (a chain of its own per
 * child behind a network, children of one fabric sharing one; "yes" where
 * the round ends with a copy into recv, not once the PUTs are answered:
 * an Allreduce or Broadcast root of one segment with children behind a
 * network; an exchange where the two ranks of a one-segment Allreduce
 * send each other their contributions, and there is no tree; an eager
 * tree where a small Broadcast's parents send before their children are
 * ready, and each child credits its parent).
 */
static void report_fanout(const struct th_coll *coll, unsigned int rank)
{
	unsigned int i, d, chains = 0, puts = 0, early = 0, exchange = 0;
	unsigned int eager = 0;
	struct th_coll_step st;

	for (i = 0; !th_coll_plan_step(coll, i, &st); i++) {
		eager += !strcmp(st.what, "copy the data for the child, send it") ||
			 !strcmp(st.what, "credit the parent: the slot is free");
		early += !strcmp(st.what, "copy the result into recv: done");
		exchange += !strcmp(st.what,
				    "start: send own contribution to the peer");
		/*
		 * "forward the result to the children[: round complete]",
		 * "send the result ...", the root's "reduce into the result,
		 * send it to the children: round complete"
		 */
		if (!strstr(st.what, "to the children"))
			continue;
		chains++;
		for (d = 0; d < st.ndesc; d++)
			puts += st.descs[d].opcode == TH_NIC_OP_PUT;
	}
	printf("coll_rank %u: fan-out: %u chain(s), %u put(s), ends before the answers: %s, exchange: %s, eager tree: %s\n",
	       rank, chains, puts, early ? "yes" : "no",
	       exchange ? "yes" : "no", eager ? "yes" : "no");
	fflush(stdout);
}

static bool env_on(const char *name)
{
	const char *v = getenv(name);

	return v && !strcmp(v, "1");
}

/* COLL_ONE_SEGMENT=1: the whole message is one segment */
static bool one_segment(void)
{
	return env_on("COLL_ONE_SEGMENT");
}

/* COLL_JITTER_US=N: before round @round, rank @rank sleeps 0 to N us */
static void jitter(unsigned int rank, unsigned int round)
{
	const char *v = getenv("COLL_JITTER_US");
	unsigned long us = v ? strtoul(v, NULL, 10) : 0;
	unsigned int h = (rank + 1) * 2654435761u ^ (round + 1) * 40503u;

	if (us)
		usleep(h % (us + 1));
}

/*
 * COLL_SIGNED_ZEROS=1: MAX of -0.0 (rank 0, the root) and +0.0 (every
 * other rank), which keeps the earlier operand: every rank must get the
 * root's -0.0, which only a reduction of the root's operand first gives.
 */
static bool signed_zeros(void)
{
	const char *v = getenv("COLL_SIGNED_ZEROS");

	return v && !strcmp(v, "1");
}

static double input(unsigned int rank, unsigned int round, unsigned int i)
{
	return (double)((rank * 5 + round * 11 + i) % 64) / 4;
}

static void ref_tree(unsigned int v, unsigned int round, double *out)
{
	unsigned int kids[64], n, j, i;
	double *sub = malloc(sizeof(double) * g_count);

	for (i = 0; i < g_count; i++)
		out[i] = input(v, round, i);
	n = th_tree_children(g_size, 0, g_radix, v, kids, 64);
	for (j = 0; j < n; j++) {
		ref_tree(kids[j], round, sub);
		for (i = 0; i < g_count; i++)
			out[i] += sub[i];
	}
	free(sub);
}

static int boot_allgather(void *arg, const void *mine, void *all, size_t len)
{
	return th_boot_allgather(arg, mine, all, len);
}

static unsigned int g_rounds;

/*
 * One rank; its exit status says what happened: 0 every round right, 1
 * wrong data or a setup failure, 2 the collective failed with an error
 * (expected when a peer died), 3 it timed out (a hang).
 */
static int rank_main(struct th_boot *boot, void *arg)
{
	const char *kill_env = getenv("COLL_KILL_RANK");
	bool zeros = signed_zeros();
	bool bcast = env_on("COLL_BCAST");
	struct th_coll_attr a = { .kind = bcast ? TH_COLL_BCAST :
					  TH_COLL_ALLREDUCE,
				  .op = zeros ? TH_NIC_ALU_MAX : TH_NIC_ALU_SUM,
				  .dtype = TH_NIC_DT_FLOAT64, .count = g_count,
				  .segment = one_segment() ? g_count : 512,
				  .radix = g_radix };
	double *send = calloc(4 * g_count, sizeof(double));
	double *recv = send + g_count, *want = send + 2 * g_count;
	double *got = send + 3 * g_count;
	bool threads = arg != NULL;
	struct th_vport_attr va = { 0 };
	struct th_domain *dom = NULL;
	struct th_device **devs;
	struct th_context *ctx;
	struct th_vport *vp;
	struct th_coll *coll;
	unsigned int round, i;
	int rank, ndev, ret, dfd;

	rank = th_boot_rank(boot);
	devs = send ? th_device_list_get(NULL, &ndev) : NULL;
	ctx = devs ? th_device_open(devs[rank % ndev]) : NULL;
	/* on the kernel provider thrun gives every job a domain of its own */
	dfd = th_boot_domain_fd(boot);
	if (ctx && !threads && !strcmp(th_device_provider(devs[0]), "kernel") &&
	    dfd < 0) {
		fprintf(stderr, "coll_rank %d: thrun passed no domain\n", rank);
		return 1;
	}
	if (ctx && dfd >= 0) {
		dom = th_domain_import(ctx, dfd);
		va.domain = dom;
	}
	vp = ctx && (dfd < 0 || dom) ? th_vport_create(ctx, &va) : NULL;
	coll = vp ? th_coll_create(vp, rank, g_size, boot_allgather, boot, &a,
				   send, recv) : NULL;
	if (!coll) {
		fprintf(stderr, "coll_rank %d: setup: %s\n", rank, strerror(errno));
		return 1;
	}
	if (getenv("COLL_REPORT_FANOUT"))
		report_fanout(coll, rank);
	for (round = 0; round < g_rounds; round++) {
		for (i = 0; i < g_count; i++)
			send[i] = zeros ? (rank ? 0.0 : -0.0) :
				  input(rank, round, i);
		/* a thread cannot be killed alone: that rank just leaves */
		if (threads && kill_env && atoi(kill_env) == rank && round == 1)
			return 2;
		ret = env_on("COLL_NO_BARRIER") ? 0 : th_boot_barrier(boot);
		if (ret) {
			/* a peer is gone: thrun ends the job */
			fprintf(stderr, "coll_rank %d: round %u: barrier: %s\n",
				rank, round, th_strerror(ret));
			return 2;
		}
		if (kill_env && atoi(kill_env) == rank && round == 1)
			raise(SIGKILL);
		jitter(rank, round);
		ret = th_coll_start(coll);
		if (!ret)
			ret = th_coll_wait(coll, 20000000000ULL);
		if (ret) {
			fprintf(stderr, "coll_rank %d: round %u: %s\n", rank, round,
				th_strerror(ret));
			return ret == -ETIMEDOUT ? 3 : 2;
		}
		/*
		 * A round complete leaves the buffers to the host: as a
		 * program may, reuse recv at once (a rank still sending
		 * from it would send this to its children)
		 */
		memcpy(got, recv, g_count * sizeof(double));
		memset(recv, 0xff, g_count * sizeof(double));
		if (zeros)
			for (i = 0; i < g_count; i++)
				want[i] = -0.0;
		else if (bcast)
			for (i = 0; i < g_count; i++)
				want[i] = input(0, round, i);
		else
			ref_tree(0, round, want);
		if (memcmp(want, got, g_count * sizeof(double))) {
			fprintf(stderr, "coll_rank %d: round %u: wrong result\n",
				rank, round);
			return 1;
		}
	}
	th_coll_destroy(coll);
	th_vport_destroy(vp);
	if (dom)
		th_domain_dealloc(dom);
	th_device_close(ctx);
	th_device_list_free(devs);
	free(send);
	return 0;
}

int main(int argc, char **argv)
{
	const char *threads = getenv("TH_THREADS");
	const char *ignore = getenv("COLL_IGNORE_TERM");
	int ret;

	if (ignore && !strcmp(ignore, "1"))
		signal(SIGTERM, SIG_IGN);

	g_rounds = argc > 1 ? atoi(argv[1]) : 3;
	g_radix = argc > 2 ? atoi(argv[2]) : 4;
	g_size = 0;
	if (threads)
		g_size = atoi(threads);
	else if (getenv("TH_SIZE"))
		g_size = atoi(getenv("TH_SIZE"));
	else if (getenv("PMI_SIZE"))	/* MPICH's mpiexec (boot/pmi.c) */
		g_size = atoi(getenv("PMI_SIZE"));
	if (getenv("COLL_COUNT")) {
		unsigned long c = strtoul(getenv("COLL_COUNT"), NULL, 0);

		g_count = c <= (1u << 20) ? (unsigned int)c : 0;
	}
	if (!g_count) {
		fprintf(stderr, "coll_rank: COLL_COUNT must be 1 to 1048576\n");
		return 1;
	}
	if (!g_size || g_size > 64) {
		fprintf(stderr, "coll_rank: run me under thrun -n N, --threads N or mpiexec -n N (N <= 64)\n");
		return 1;
	}
	/* the argument only tells the rank which model it runs in */
	ret = th_boot_run(rank_main, threads ? (void *)threads : NULL);
	if (ret < 0) {
		fprintf(stderr, "coll_rank: %s\n", th_strerror(ret));
		return 1;
	}
	return ret;
}
