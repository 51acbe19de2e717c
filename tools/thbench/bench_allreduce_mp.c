// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bench_allreduce_mp.c - 'thbench allreduce-mp': the Allreduce benchmark in
 * the MPI process model, one process per node, started by thrun:
 *
 *   thrun -n 16 thbench allreduce-mp [--sizes LIST] [--radix LIST] [--reps R]
 *
 * Every rank runs the offload (th_coll) and the host-driven p2p tree
 * (th_hostcoll) on the same sizes; a round's time is the slowest rank's, from a
 * common barrier to its completion; rank 0 prints the median and spread
 * over the rounds and the ratio offload / p2p.  Here the p2p tree pays what
 * the offload saves: a host wake-up at every hop.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "thbench.h"
#include <thverbs/verbs.h>
#include <thverbs/hostcoll.h>

#define MP_MAX_LIST	16
#define MP_TIMEOUT_NS	30000000000ULL

static double mp_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

static int mp_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int mp_allgather(void *arg, const void *mine, void *all, size_t len)
{
	return th_boot_allgather(arg, mine, all, len);
}

static int mp_list(const char *s, unsigned long *out)
{
	char *end;
	int n = 0;

	while (*s && n < MP_MAX_LIST) {
		out[n] = strtoul(s, &end, 10);
		if (end == s)
			return -1;
		if (*end == 'K' || *end == 'k')
			out[n] <<= 10, end++;
		else if (*end == 'M' || *end == 'm')
			out[n] <<= 20, end++;
		n++;
		if (*end == ',')
			end++;
		else if (*end)
			return -1;
		s = end;
	}
	return n;
}

/*
 * Time @reps rounds of one variant (@coll or @p2p) after @warm untimed
 * ones; every rank takes part; the slowest rank's time per round.
 */
static int mp_time(struct th_boot *b, struct th_coll *coll, struct th_hostcoll *p2p,
		   int warm, int reps, double *out)
{
	int size = th_boot_size(b), r, i, ret = 0;
	double t, *all = calloc(size, sizeof(double));

	if (!all)
		return -ENOMEM;
	for (r = -warm; !ret && r < reps; r++) {
		ret = th_boot_barrier(b);
		if (ret)
			break;
		t = mp_now_us();
		if (coll) {
			ret = th_coll_start(coll);
			if (!ret)
				ret = th_coll_wait(coll, MP_TIMEOUT_NS);
		} else {
			ret = th_hostcoll_run(p2p, MP_TIMEOUT_NS);
		}
		t = mp_now_us() - t;
		if (!ret)
			ret = th_boot_allgather(b, &t, all, sizeof(t));
		if (ret || r < 0)
			continue;
		out[r] = 0;
		for (i = 0; i < size; i++)
			out[r] = all[i] > out[r] ? all[i] : out[r];
	}
	free(all);
	return ret;
}

int thbench_allreduce_mp_main(int argc, char **argv)
{
	unsigned long sizes[MP_MAX_LIST] = { 8, 65536 }, radix[MP_MAX_LIST] = { 2, 4 };
	int nsizes = 2, nradix = 2, reps = 50, warm = 5, i, si, ri, rank, ndev = 0;
	struct th_device **devs = NULL;
	struct th_context *ctx = NULL;
	struct th_vport *vp = NULL;
	struct th_vport_attr va = { 0 };
	struct th_domain *dom = NULL;
	struct th_boot *b;
	double *toff, *tp2p;
	int ret = 1;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
			nsizes = mp_list(argv[++i], sizes);
		} else if (!strcmp(argv[i], "--radix") && i + 1 < argc) {
			nradix = mp_list(argv[++i], radix);
		} else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
			reps = atoi(argv[++i]);
		} else {
			fprintf(stderr,
				"usage: thrun -n N thbench allreduce-mp [--sizes LIST] [--radix LIST] [--reps R]\n"
				"Offload vs host-driven p2p tree, one process per node (double sum).\n");
			return strcmp(argv[i], "--help") ? 2 : 0;
		}
	}
	if (nsizes < 1 || nradix < 1 || reps < 1) {
		fprintf(stderr, "thbench allreduce-mp: bad --sizes, --radix or --reps\n");
		return 2;
	}
	b = th_boot_init();
	if (!b) {
		fprintf(stderr, "thbench allreduce-mp: run me under thrun: %s\n",
			strerror(errno));
		return 2;
	}
	rank = th_boot_rank(b);
	toff = calloc(reps, sizeof(double));
	tp2p = calloc(reps, sizeof(double));
	devs = th_device_list_get(NULL, &ndev);
	ctx = devs && ndev ? th_device_open(devs[rank % ndev]) : NULL;
	/* the job's own domain, when thrun gave it one */
	if (ctx && th_boot_domain_fd(b) >= 0) {
		dom = th_domain_import(ctx, th_boot_domain_fd(b));
		va.domain = dom;
	}
	vp = ctx && (th_boot_domain_fd(b) < 0 || dom) ?
	     th_vport_create(ctx, &va) : NULL;
	if (!vp || !toff || !tp2p) {
		fprintf(stderr, "thbench allreduce-mp: rank %d: setup: %s\n", rank,
			strerror(errno));
		goto out;
	}
	if (!rank) {
		printf("# Allreduce, double sum, %d processes (one per node) on provider '%s'\n",
		       th_boot_size(b), th_device_provider(devs[0]));
		printf("# per operation: slowest rank, barrier to completion, us: median [p10-p90] over %d rounds\n",
		       reps);
		printf("   N   size radix | offload                    p2p-tree                   | off/p2p  paper\n");
	}
	for (si = 0; si < nsizes; si++) {
		uint32_t count = sizes[si] / sizeof(double) ? sizes[si] / sizeof(double) : 1;
		double *send = calloc(count, sizeof(double));
		double *recv = calloc(count, sizeof(double));

		for (ri = 0; ri < nradix && send && recv; ri++) {
			struct th_coll_attr a = {
				.kind = TH_COLL_ALLREDUCE, .op = TH_NIC_ALU_SUM,
				.dtype = TH_NIC_DT_FLOAT64, .count = count,
				.radix = radix[ri],
			};
			struct th_coll *coll;
			struct th_hostcoll *p2p;

			coll = th_coll_create(vp, rank, th_boot_size(b), mp_allgather,
					      b, &a, send, recv);
			if (!coll || mp_time(b, coll, NULL, warm, reps, toff))
				goto err_run;
			th_coll_destroy(coll);
			p2p = th_hostcoll_create(vp, rank, th_boot_size(b), mp_allgather,
					    b, &a, TH_HOSTCOLL_TREE, send, recv);
			if (!p2p || mp_time(b, NULL, p2p, warm, reps, tp2p))
				goto err_run;
			th_hostcoll_destroy(p2p);
			if (!rank) {
				qsort(toff, reps, sizeof(double), mp_cmp);
				qsort(tp2p, reps, sizeof(double), mp_cmp);
				printf("%4d %6lu %5lu | %8.1f [%8.1f-%8.1f] %8.1f [%8.1f-%8.1f] | %7.3f  0.404\n",
				       th_boot_size(b), sizes[si], radix[ri],
				       toff[reps / 2], toff[reps / 10],
				       toff[reps * 9 / 10], tp2p[reps / 2],
				       tp2p[reps / 10], tp2p[reps * 9 / 10],
				       toff[reps / 2] / tp2p[reps / 2]);
				fflush(stdout);
			}
		}
		free(send);
		free(recv);
	}
	ret = 0;
	goto out;
err_run:
	fprintf(stderr, "thbench allreduce-mp: rank %d: %s\n", rank, strerror(errno));
out:
	if (vp)
		th_vport_destroy(vp);
	if (dom)
		th_domain_dealloc(dom);
	if (ctx)
		th_device_close(ctx);
	th_device_list_free(devs);
	free(toff);
	free(tp2p);
	th_boot_fini(b);
	return ret;
}
