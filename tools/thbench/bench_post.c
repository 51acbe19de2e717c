// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bench_post.c - 'thbench post': the latency of posting a one-descriptor
 * chain and reaping its completion, and of one triggered hop (a PUT whose
 * delivery fires the peer's PUT back), on a chosen provider.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "thbench.h"
#include <thverbs/verbs.h>

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
		"usage: thbench post [--provider P] [--iters N]\n\n"
		"Measures, on one provider (kernel, inproc or auto):\n"
		"  post+complete  post a one-NOTIFY chain that fires at once and\n"
		"                 poll until its completion entry arrives;\n"
		"  triggered hop  a PUT of 8 bytes whose arrival increments the\n"
		"                 peer's counter, which fires the peer's PUT back:\n"
		"                 200 round trips posted ahead, started by one host\n"
		"                 increment; time / 400 per hop (5 samples).\n"
		"Reports the median and spread of N samples (default 2000).\n");
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
		ret = th_ct_wait(a, 1, rounds + 1, 10000000000ULL);
	*us = (bench_now_us() - t0) / (2.0 * rounds);
	return ret;
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
	int iters = 2000, i, n, ret = 1, ndev = 0;
	double *t, hop;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--provider") && i + 1 < argc) {
			provider = argv[++i];
		} else if (!strcmp(argv[i], "--iters") && i + 1 < argc) {
			iters = atoi(argv[++i]);
		} else {
			bench_usage(strcmp(argv[i], "--help") ? stderr : stdout);
			return strcmp(argv[i], "--help") ? 2 : 0;
		}
	}
	if (iters < 10) {
		fprintf(stderr, "thbench post: --iters must be at least 10\n");
		return 2;
	}
	devs = th_device_list_get(provider, &ndev);
	if (!devs || ndev < 2) {
		fprintf(stderr, "thbench post: need 2 nodes: %s\n", strerror(errno));
		return 1;
	}
	t = calloc(iters, sizeof(*t));
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
	for (i = 0; i < 5; i++) {
		if (bench_hops(vp[0], mr[0], vp[1], mr[1], 200, &hop))
			goto out;
		t[i] = hop;
	}
	bench_report(th_device_provider(devs[0]), "triggered PUT hop (8 B)", t, 5);
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
