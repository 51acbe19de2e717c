// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bench_allreduce_mp.c - 'thbench allreduce-mp': the Allreduce benchmark in
 * the MPI process model, one process per node, started by thrun:
 *
 *   thrun -n 16 thbench allreduce-mp [--sizes LIST] [--radix LIST] [--reps R]
 *   thrun --threads 16 thbench allreduce-mp ...   (ranks as threads, no module)
 *   thrun -n 4 --provider ofi thbench allreduce-mp ...   (over libfabric)
 *
 * Every rank runs the offload (th_coll) and the host-driven p2p tree
 * (th_hostcoll) on the same sizes; a round's time is the slowest rank's, from a
 * common barrier to its completion; rank 0 prints the median and spread
 * over the rounds and the ratio offload / p2p.  Here the p2p tree pays what
 * the offload saves: a host wake-up at every hop.  With --machine, rank 0
 * prints one line per size, radix and variant instead of the table:
 *
 *   ar-mp N BYTES RADIX offload|p2p-tree MEDIAN_US P10_US P90_US REPS
 *
 * which 'thbench allreduce --model procs' reads (bench_allreduce.c).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "thbench.h"
#include <thverbs/verbs.h>
#include <thverbs/coll.h>
#include <thverbs/hostcoll.h>

#define MP_MAX_LIST	32	/* as many as thbench allreduce takes */
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

	while (*s) {
		/* more than fit is an error, not a silently shorter sweep */
		if (n == MP_MAX_LIST)
			return -1;
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

/* What every rank runs: the command line, parsed once by main. */
struct mp_args {
	unsigned long sizes[MP_MAX_LIST], radix[MP_MAX_LIST];
	int nsizes, nradix, reps, warm;
	bool threads;		/* thrun --threads: the ranks share one fabric */
	bool machine;		/* rank 0 prints "ar-mp ..." lines, no table */
	bool ran;		/* mp_rank() was reached (it reports its errors) */
};

/*
 * Processes reach each other only through th_nic.ko: each one that uses
 * the in-process provider has a fabric of its own, so a job of several
 * would fail at its first exchange with EAGAIN, rank after rank.  Rank 0
 * says why, once; the others leave quietly, after a barrier (thrun's
 * rendezvous needs no fabric) so that none of them ends the job before
 * rank 0 has spoken.
 */
static bool mp_fabric_shared(struct th_boot *b, const struct mp_args *a,
			     struct th_device **devs)
{
	int n = th_boot_size(b);

	if (a->threads || n == 1 || strcmp(th_device_provider(devs[0]), "inproc"))
		return true;
	if (!th_boot_rank(b))
		fprintf(stderr,
			"thbench allreduce-mp: %d processes on the in-process provider cannot reach each other: processes share a fabric only through th_nic.ko (%s). Load th_nic.ko, or run the ranks as threads of one process: thrun --threads %d thbench allreduce-mp ...\n",
			n, access("/dev/th_nic0", F_OK) ? "/dev/th_nic0 is missing" :
			"TH_PROVIDER asks for inproc", n);
	th_boot_barrier(b);
	return false;
}

/* Rank 0's figures of one variant, in the --machine format. */
static void mp_machine_line(int n, unsigned long size, unsigned long radix,
			    const char *variant, const double *t, int reps)
{
	printf("ar-mp %d %lu %lu %s %.3f %.3f %.3f %d\n", n, size, radix, variant,
	       t[reps / 2], t[reps / 10], t[reps * 9 / 10], reps);
}

static int mp_rank(struct th_boot *b, void *arg)
{
	struct mp_args *a = arg;
	int si, ri, rank = th_boot_rank(b), ndev = 0, reps = a->reps;
	struct th_device **devs = NULL;
	struct th_context *ctx = NULL;
	struct th_vport *vp = NULL;
	struct th_vport_attr va = { 0 };
	struct th_domain *dom = NULL;
	double *toff, *tp2p;
	int ret = -EIO;

	a->ran = true;
	toff = calloc(reps, sizeof(double));
	tp2p = calloc(reps, sizeof(double));
	devs = th_device_list_get(NULL, &ndev);
	if (devs && ndev && !mp_fabric_shared(b, a, devs)) {
		ret = -EXDEV;
		goto out;
	}
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
			th_strerror(errno));
		goto out;
	}
	if (!rank && !a->machine) {
		printf("# Allreduce, double sum, %d %s (one per node) on provider '%s'\n",
		       th_boot_size(b), a->threads ? "threads" : "processes",
		       th_device_provider(devs[0]));
		printf("# per operation: slowest rank, barrier to completion, us: median [p10-p90] over %d rounds\n",
		       reps);
		printf("   N   size radix | offload                    p2p-tree                   | off/p2p  paper\n");
	}
	for (si = 0; si < a->nsizes; si++) {
		unsigned long size = a->sizes[si];
		uint32_t count = size / sizeof(double) ? size / sizeof(double) : 1;
		double *send = calloc(count, sizeof(double));
		double *recv = calloc(count, sizeof(double));

		for (ri = 0; ri < a->nradix && send && recv; ri++) {
			struct th_coll_attr ca = {
				.kind = TH_COLL_ALLREDUCE, .op = TH_NIC_ALU_SUM,
				.dtype = TH_NIC_DT_FLOAT64, .count = count,
				.radix = a->radix[ri],
			};
			struct th_coll *coll;
			struct th_hostcoll *p2p;

			coll = th_coll_create(vp, rank, th_boot_size(b), mp_allgather,
					      b, &ca, send, recv);
			if (!coll || mp_time(b, coll, NULL, a->warm, reps, toff))
				goto err_run;
			th_coll_destroy(coll);
			p2p = th_hostcoll_create(vp, rank, th_boot_size(b), mp_allgather,
						 b, &ca, TH_HOSTCOLL_TREE, send, recv);
			if (!p2p || mp_time(b, NULL, p2p, a->warm, reps, tp2p))
				goto err_run;
			th_hostcoll_destroy(p2p);
			if (!rank) {
				qsort(toff, reps, sizeof(double), mp_cmp);
				qsort(tp2p, reps, sizeof(double), mp_cmp);
			}
			if (!rank && a->machine) {
				mp_machine_line(th_boot_size(b), size, a->radix[ri],
						"offload", toff, reps);
				mp_machine_line(th_boot_size(b), size, a->radix[ri],
						"p2p-tree", tp2p, reps);
				fflush(stdout);
			} else if (!rank) {
				printf("%4d %6lu %5lu | %8.1f [%8.1f-%8.1f] %8.1f [%8.1f-%8.1f] | %7.3f  0.404\n",
				       th_boot_size(b), size, a->radix[ri],
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
	fprintf(stderr, "thbench allreduce-mp: rank %d: %s\n", rank, th_strerror(errno));
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
	return ret;
}

int thbench_allreduce_mp_main(int argc, char **argv)
{
	struct mp_args a = {
		.sizes = { 8, 65536 }, .radix = { 2, 4 },
		.nsizes = 2, .nradix = 2, .reps = 50, .warm = 5,
		.threads = getenv("TH_THREADS") != NULL,
	};
	bool warm_ok = true;
	int i, ret;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
			a.nsizes = mp_list(argv[++i], a.sizes);
		} else if (!strcmp(argv[i], "--radix") && i + 1 < argc) {
			a.nradix = mp_list(argv[++i], a.radix);
		} else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
			a.reps = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--warmup") && i + 1 < argc) {
			a.warm = atoi(argv[++i]);
			warm_ok = a.warm >= 0;
		} else if (!strcmp(argv[i], "--machine")) {
			a.machine = true;
		} else {
			fprintf(stderr,
				"usage: thrun -n N thbench allreduce-mp [--sizes LIST] [--radix LIST] [--reps R]\n"
				"                                       [--warmup W] [--machine]\n"
				"       thrun --threads N thbench allreduce-mp [...]\n"
				"Offload vs host-driven p2p tree, one rank per node (double sum).\n"
				"Processes share a fabric through th_nic.ko, or over libfabric with\n"
				"thrun --provider ofi; else run the ranks as threads of one process\n"
				"(thrun --threads N).  Defaults: --sizes 8,64K --radix 2,4 --reps 50\n"
				"--warmup 5.  --machine: rank 0 prints, per size, radix and variant,\n"
				"  ar-mp N BYTES RADIX offload|p2p-tree MEDIAN_US P10_US P90_US REPS\n"
				"instead of the table (for thbench allreduce --model procs).\n");
			return strcmp(argv[i], "--help") ? 2 : 0;
		}
	}
	if (a.nsizes < 1 || a.nradix < 1 || a.reps < 1 || !warm_ok) {
		fprintf(stderr, "thbench allreduce-mp: bad --sizes, --radix, --reps or --warmup\n");
		return 2;
	}
	ret = th_boot_run(mp_rank, &a);
	if (ret == -ENOENT || ret == -EOPNOTSUPP) {
		fprintf(stderr, "thbench allreduce-mp: run me under thrun -n N or thrun --threads N: %s\n",
			th_strerror(ret));
		return 2;
	}
	/* joining the job failed (an ofi fabric that would not open, say) */
	if (ret && !a.ran)
		fprintf(stderr, "thbench allreduce-mp: joining the job: %s\n",
			th_strerror(ret));
	return ret ? 1 : 0;
}
