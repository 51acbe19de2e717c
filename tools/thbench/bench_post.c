// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bench_post.c - 'thbench post': the latency of posting a one-descriptor
 * chain and reaping its completion, and of one triggered hop (a PUT whose
 * delivery fires the peer's PUT back), on a chosen provider.  On the ofi
 * provider the two nodes are two processes (thrun -n 2 --provider ofi),
 * each opening its own rank's node, so the hop crosses libfabric.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "thbench.h"
#include <thverbs/boot.h>
#include <thverbs/verbs.h>

/* round trips of one hop sample, posted ahead */
#define BENCH_ROUNDS	200
/* a hop sample's wait for its last return, at most */
#define BENCH_WAIT_NS	10000000000ULL

static double bench_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

static int bench_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void bench_report(const char *provider, const char *what, double *t,
			 int n)
{
	qsort(t, n, sizeof(*t), bench_cmp);
	printf("%-8s %-34s median %8.2f us  p10 %8.2f  p90 %8.2f  (n=%d)\n",
	       provider, what, t[n / 2], t[n / 10], t[n * 9 / 10], n);
}

static void bench_usage(FILE *f)
{
	fprintf(f,
		"usage: thbench post [--provider P] [--iters N] [--samples S]\n"
		"       thrun -n 2 --provider ofi thbench post [--iters N] [--samples S]\n\n"
		"Measures, on one provider (kernel, inproc, auto, or ofi under thrun):\n"
		"  post+complete  post a one-NOTIFY chain that fires at once and\n"
		"                 poll until its completion entry arrives;\n"
		"  triggered hop  a PUT of 8 bytes whose arrival increments the\n"
		"                 peer's counter, which fires the peer's PUT back:\n"
		"                 200 round trips posted ahead, started by one host\n"
		"                 increment; time / 400 per hop (S samples,\n"
		"                 default 5, at least 5).\n"
		"Reports the median and p10/p90 of N samples (default 2000).\n"
		"On ofi the two nodes are the two ranks' processes: the hop crosses\n"
		"libfabric both ways (TH_OFI_PROVIDER; by default shm when both\n"
		"ranks are on this host, tcp;ofi_rxm otherwise), and rank 0 prints;\n"
		"the ranks' waits follow TH_WAIT_POLICY.\n");
}

/* Round trips of triggered PUTs between two nodes, all posted ahead. */
static int bench_hops(struct th_vport *a, struct th_mr *ma, struct th_vport *b,
		      struct th_mr *mb, int rounds, double *us)
{
	struct th_remote to_b = { th_vport_node(b), th_vport_index(b),
				  th_mr_rkey(mb), 0 };
	struct th_remote to_a = { th_vport_node(a), th_vport_index(a),
				  th_mr_rkey(ma), 0 };
	struct th_chain *c = th_chain_create();
	double t0;
	int i, ret = 0;

	if (!c)
		return -ENOMEM;
	th_ct_set(a, 1, 0, 0);
	th_ct_set(b, 1, 0, 0);
	for (i = 0; !ret && i < rounds; i++) {
		/* a's i-th put fires on a's counter 1 reaching i + 1 */
		th_chain_reset(c);
		ret = th_chain_put(c, ma, 0, &to_b, 8, 1, 0);
		if (!ret)
			ret = th_chain_trigger(c, 1, i + 1, i);
		if (!ret)
			ret = th_post_chain(a, c);
		th_chain_reset(c);
		if (!ret)
			ret = th_chain_put(c, mb, 0, &to_a, 8, 1, 0);
		if (!ret)
			ret = th_chain_trigger(c, 1, i + 1, i);
		if (!ret)
			ret = th_post_chain(b, c);
	}
	th_chain_destroy(c);
	if (ret)
		return ret;
	/* the host's increment starts round 0; each return starts the next */
	t0 = bench_now_us();
	ret = th_ct_inc(a, 1, 1);
	if (!ret)
		ret = th_ct_wait(a, 1, rounds + 1, BENCH_WAIT_NS);
	*us = (bench_now_us() - t0) / (2.0 * rounds);
	return ret;
}

/* What both ranks of the ofi run take from the command line. */
struct bench_ofi_args {
	int iters;
	int samples;
	bool ran;
};

/* What each rank tells the other: where its counter and region are. */
struct bench_ofi_peer {
	struct th_remote at;
};

/* Every rank's @err in one round: the first rank's failure, else 0. */
static int bench_agree(struct th_boot *b, int err)
{
	int all[2] = { 0, 0 }, ret;

	ret = th_boot_allgather(b, &err, all, sizeof(err));
	if (ret)
		return ret;
	return all[0] ? all[0] : all[1];
}

/*
 * One hop sample over ofi, rank @rank's part: each rank posts its
 * BENCH_ROUNDS chains (its i-th PUT fires on its counter 1 reaching
 * i + 1), the ranks meet, and rank 0's host increment starts round 0.
 * Rank 0 times until its counter has every return; rank 1 waits until it
 * has every PUT, so that neither starts the next sample early.
 */
static int bench_ofi_hops(struct th_boot *b, struct th_vport *vp,
			  struct th_mr *mr, const struct th_remote *peer,
			  double *us)
{
	int rank = th_boot_rank(b), i, ret = 0;
	struct th_chain *c = th_chain_create();
	double t0 = 0;

	if (!c)
		return -ENOMEM;
	th_ct_set(vp, 1, 0, 0);
	for (i = 0; !ret && i < BENCH_ROUNDS; i++) {
		th_chain_reset(c);
		ret = th_chain_put(c, mr, 0, peer, 8, 1, 0);
		if (!ret)
			ret = th_chain_trigger(c, 1, i + 1, i);
		if (!ret)
			ret = th_post_chain(vp, c);
	}
	th_chain_destroy(c);
	ret = bench_agree(b, ret);
	if (ret)
		return ret;
	if (!rank) {
		t0 = bench_now_us();
		ret = th_ct_inc(vp, 1, 1);
		if (!ret)
			ret = th_ct_wait(vp, 1, BENCH_ROUNDS + 1, BENCH_WAIT_NS);
		*us = (bench_now_us() - t0) / (2.0 * BENCH_ROUNDS);
	} else {
		ret = th_ct_wait(vp, 1, BENCH_ROUNDS, BENCH_WAIT_NS);
	}
	return bench_agree(b, ret);
}

/* Rank 0's post+complete samples: a local chain, no libfabric. */
static int bench_ofi_post(struct th_vport *vp, double *t, int iters)
{
	struct th_chain *c = th_chain_create();
	struct th_nic_cqe cqe;
	int i, n, ret = 0;

	if (!c)
		return -ENOMEM;
	ret = th_chain_notify(c, 0, 0);
	for (i = -iters / 10; !ret && i < iters; i++) {	/* warm-up first */
		double t0 = bench_now_us();

		ret = th_post_chain(vp, c);
		while (!ret && (n = th_poll_cq(vp, &cqe, 1)) == 0)
			;
		if (!ret && (n < 0 || cqe.status))
			ret = n < 0 ? n : cqe.status;
		if (!ret && i >= 0)
			t[i] = bench_now_us() - t0;
	}
	th_chain_destroy(c);
	return ret;
}

/* One rank of 'thbench post' on the ofi provider. */
static int bench_ofi_rank(struct th_boot *b, void *arg)
{
	struct bench_ofi_args *a = arg;
	int rank = th_boot_rank(b), ndev = 0, i, ret = -EIO;
	struct bench_ofi_peer mine, all[2];
	struct th_device **devs = NULL;
	struct th_context *ctx = NULL;
	struct th_vport *vp = NULL;
	struct th_mr *mr = NULL;
	static char buf[64];
	double *t = NULL;

	a->ran = true;
	if (th_boot_size(b) != 2) {
		if (!rank)
			fprintf(stderr, "thbench post: the ofi hop runs on 2 ranks: thrun -n 2 --provider ofi thbench post\n");
		/*
		 * The others leave only once rank 0 has said why: thrun ends
		 * the job at the first rank that fails, and a rank 0 not yet
		 * scheduled would be killed before it spoke.
		 */
		th_boot_barrier(b);
		return -EINVAL;
	}
	devs = th_device_list_get("ofi", &ndev);
	ctx = devs && ndev == 2 ? th_device_open(devs[rank]) : NULL;
	vp = ctx ? th_vport_create(ctx, NULL) : NULL;
	mr = vp ? th_mr_reg(vp, buf, sizeof(buf), TH_NIC_ACCESS_ALL) : NULL;
	t = calloc(a->iters > a->samples ? a->iters : a->samples, sizeof(*t));
	ret = mr && t ? 0 : -errno;
	if (ret)
		fprintf(stderr, "thbench post: rank %d: setup: %s\n", rank,
			strerror(errno));
	ret = bench_agree(b, ret);
	if (ret)
		goto out;
	memset(&mine, 0, sizeof(mine));
	mine.at.node = th_vport_node(vp);
	mine.at.vport = th_vport_index(vp);
	mine.at.rkey = th_mr_rkey(mr);
	ret = th_boot_allgather(b, &mine, all, sizeof(mine));
	if (ret)
		goto out;
	if (!rank) {
		ret = bench_ofi_post(vp, t, a->iters);
		if (!ret)
			bench_report("ofi", "post+complete (1 descriptor)", t,
				     a->iters);
	}
	ret = bench_agree(b, ret);
	for (i = 0; !ret && i < a->samples; i++)
		ret = bench_ofi_hops(b, vp, mr, &all[!rank].at, &t[i]);
	if (!ret && !rank)
		bench_report("ofi", "triggered PUT hop (8 B, 2 procs)", t,
			     a->samples);
	if (ret && !rank)
		fprintf(stderr, "thbench post: ofi: %s\n", strerror(-ret));
out:
	if (mr)
		th_mr_dereg(mr);
	if (vp)
		th_vport_destroy(vp);
	if (ctx)
		th_device_close(ctx);
	th_device_list_free(devs);
	free(t);
	return ret;
}

/* 'thbench post' on ofi: the two nodes are thrun's two processes. */
static int bench_post_ofi(int iters, int samples)
{
	struct bench_ofi_args a = { .iters = iters, .samples = samples };
	int ret = th_boot_run(bench_ofi_rank, &a);

	if (ret == -ENOENT || ret == -EOPNOTSUPP) {
		fprintf(stderr, "thbench post: the ofi provider runs under thrun: thrun -n 2 --provider ofi thbench post (%s)\n",
			strerror(-ret));
		return 2;
	}
	if (ret && !a.ran)
		fprintf(stderr, "thbench post: joining the job: %s\n",
			strerror(-ret));
	return ret ? 1 : 0;
}

int thbench_post_main(int argc, char **argv)
{
	const char *provider = NULL;
	struct th_context *ctx[2] = { NULL, NULL };
	struct th_vport *vp[2] = { NULL, NULL };
	struct th_mr *mr[2] = { NULL, NULL };
	static char buf[2][64];
	struct th_device **devs;
	struct th_nic_cqe cqe;
	struct th_chain *c;
	int iters = 2000, samples = 5, i, n, ret = 1, ndev = 0;
	double *t, hop;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--provider") && i + 1 < argc) {
			provider = argv[++i];
		} else if (!strcmp(argv[i], "--iters") && i + 1 < argc) {
			iters = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--samples") && i + 1 < argc) {
			samples = atoi(argv[++i]);
		} else {
			bench_usage(strcmp(argv[i], "--help") ? stderr : stdout);
			return strcmp(argv[i], "--help") ? 2 : 0;
		}
	}
	if (iters < 10) {
		fprintf(stderr, "thbench post: --iters must be at least 10\n");
		return 2;
	}
	if (samples < 5 || samples > 1000) {
		fprintf(stderr, "thbench post: --samples must be from 5 to 1000\n");
		return 2;
	}
	if (!provider && getenv("TH_PROVIDER") &&
	    !strcmp(getenv("TH_PROVIDER"), "ofi"))
		provider = "ofi";
	if (provider && !strcmp(provider, "ofi"))
		return bench_post_ofi(iters, samples);
	devs = th_device_list_get(provider, &ndev);
	if (!devs || ndev < 2) {
		fprintf(stderr, "thbench post: need 2 nodes: %s\n", strerror(errno));
		return 1;
	}
	t = calloc(iters > samples ? iters : samples, sizeof(*t));
	c = th_chain_create();
	for (i = 0; i < 2; i++) {
		ctx[i] = th_device_open(devs[i]);
		vp[i] = ctx[i] ? th_vport_create(ctx[i], NULL) : NULL;
		mr[i] = vp[i] ? th_mr_reg(vp[i], buf[i], sizeof(buf[i]),
					  TH_NIC_ACCESS_ALL) : NULL;
		if (!mr[i]) {
			fprintf(stderr, "thbench post: setup: %s\n", strerror(errno));
			goto out;
		}
	}
	if (!t || !c)
		goto out;

	th_chain_notify(c, 0, 0);
	for (i = -iters / 10; i < iters; i++) {	/* warm-up first */
		double t0 = bench_now_us();

		if (th_post_chain(vp[0], c))
			goto out;
		while ((n = th_poll_cq(vp[0], &cqe, 1)) == 0)
			;
		if (n < 0 || cqe.status)
			goto out;
		if (i >= 0)
			t[i] = bench_now_us() - t0;
	}
	bench_report(th_device_provider(devs[0]), "post+complete (1 descriptor)",
		     t, iters);
	for (i = 0; i < samples; i++) {
		if (bench_hops(vp[0], mr[0], vp[1], mr[1], BENCH_ROUNDS, &hop))
			goto out;
		t[i] = hop;
	}
	bench_report(th_device_provider(devs[0]), "triggered PUT hop (8 B)", t,
		     samples);
	ret = 0;
out:
	for (i = 0; i < 2; i++) {
		if (mr[i])
			th_mr_dereg(mr[i]);
		if (vp[i])
			th_vport_destroy(vp[i]);
		if (ctx[i])
			th_device_close(ctx[i]);
	}
	th_chain_destroy(c);
	free(t);
	th_device_list_free(devs);
	return ret;
}
