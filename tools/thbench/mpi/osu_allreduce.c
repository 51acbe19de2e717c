// SPDX-License-Identifier: GPL-2.0 OR MIT
/* osu_allreduce.c - OSU-style MPI Allreduce latency/overlap benchmark */
/*
 * Built with mpicc, run under mpiexec -n N (bench-thmpi runs it with and
 * without libthmpi preloaded):
 *
 *   osu_allreduce latency|overlap MIN MAX [-f 2|4] [-t MS] [-i MAXITERS]
 *                 [-m MINITERS] [-w WARMUP]
 *
 * Sizes in bytes of MPI_DOUBLE data (MIN rounded up to 8), MIN, MIN*f,
 * MIN*f^2 ... and MAX itself last when the steps miss it (default f = 4:
 * 8 B .. 1 MiB is 8, 32, 128, 512, 2K, 8K, 32K, 128K, 512K, 1M).
 *
 * Iterations per size are bounded by time: one probe iteration estimates
 * the time t of one operation (the slowest rank's), then
 * warmup = clamp(MS / 4t, 1, WARMUP) and iterations = clamp(MS / t,
 * MINITERS, MAXITERS); so each measured phase of a size takes about MS
 * milliseconds (-t, default 300), never fewer than MINITERS iterations
 * (default 5) nor more than MAXITERS (default 1000, the array size).
 *
 * latency (osu_allreduce): per iteration a barrier, then the timed
 *	MPI_Allreduce(MPI_SUM) of doubles.  Per-iteration times are reduced
 *	with MPI_Reduce(MPI_MAX) over ranks; rank 0 prints per size
 *	  size_bytes,iters,avg_us,median_us,min_us,max_us,osu_avg_us
 *	avg/median/min/max over iterations of the slowest rank's time;
 *	osu_avg_us is what osu_allreduce prints as "Avg Latency" (each
 *	rank's mean, averaged over ranks).
 * overlap (osu_iallreduce): per size (a) t_pure: Iallreduce + Wait;
 *	(b) t_compute: busy arithmetic alone, calibrated at start (all ranks
 *	at once, so oversubscription is in the rate) to last t_pure on the
 *	wall (when (b) measures more than a fifth off t_pure, the step
 *	count is rescaled once and (b) measured again); (c) t_overall:
 *	Iallreduce, the same compute, Wait.  Each the mean over iterations
 *	of the slowest rank's time (barrier before each iteration); rank 0
 *	prints
 *	  size_bytes,iters,overall_us,compute_us,pure_us,overlap_pct,
 *	  overall_med_us,compute_med_us,pure_med_us,overlap_med_pct
 *	overlap_pct = max(0, 100 * (1 - (t_overall - t_compute) / t_pure)),
 *	as the OSU micro-benchmarks compute it (not capped at 100: over 100
 *	means the overlapped run beat the compute alone); the _med columns
 *	are the same from medians over iterations instead of means.
 *
 * Every rank contributes rank + 1 in every element: after each size's
 * timed loop every rank checks the last result (n(n+1)/2 everywhere);
 * a mismatch is reported on stderr and the program exits 1.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEF_BUDGET_MS	300
#define DEF_MAXITERS	1000
#define DEF_MINITERS	5
#define DEF_WARMUP	10

struct opts {
	int overlap;
	long min, max;
	int factor;
	double budget_us;
	int maxiters, miniters, warmup;
};

static int rank, nranks;

static void usage(void)
{
	if (!rank)
		fprintf(stderr,
			"usage: osu_allreduce latency|overlap MIN MAX [-f 2|4] [-t MS] [-i MAXITERS] [-m MINITERS] [-w WARMUP]\n");
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Busy arithmetic: @n steps of a dependent multiply-add chain. */
static volatile double sink;

static void compute(long n)
{
	double x = sink + 1.0;
	long i;

	for (i = 0; i < n; i++)
		x = x * 1.0000001 + 1e-9;
	sink = x;
}

/* The largest of every rank's @v (on every rank). */
static double max_all(double v)
{
	double m;

	MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	return m;
}

/*
 * Compute steps per microsecond of wall time with every rank computing
 * at once: the slowest rank's rate, median of three trials of at least
 * 100 ms each.
 */
static double calibrate(void)
{
	double rates[3], t0, t;
	long n = 100000;
	int k;

	for (;;) {
		MPI_Barrier(MPI_COMM_WORLD);
		t0 = MPI_Wtime();
		compute(n);
		t = max_all(MPI_Wtime() - t0);
		if (t >= 0.1)
			break;
		n *= t > 0.01 ? 2 : 8;
	}
	for (k = 0; k < 3; k++) {
		MPI_Barrier(MPI_COMM_WORLD);
		t0 = MPI_Wtime();
		compute(n);
		t = max_all(MPI_Wtime() - t0);
		rates[k] = n / (t * 1e6);
	}
	qsort(rates, 3, sizeof(*rates), cmp_double);
	return rates[1];
}

enum phase { PH_BLOCKING, PH_PURE, PH_COMPUTE, PH_OVERALL };

/* One iteration of @ph (after a barrier): its time in us on this rank. */
static double iteration(enum phase ph, const double *in, double *out,
			int count, long steps)
{
	MPI_Request req;
	double t0;

	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	switch (ph) {
	case PH_BLOCKING:
		MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM,
			      MPI_COMM_WORLD);
		break;
	case PH_PURE:
		MPI_Iallreduce(in, out, count, MPI_DOUBLE, MPI_SUM,
			       MPI_COMM_WORLD, &req);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		break;
	case PH_COMPUTE:
		compute(steps);
		break;
	case PH_OVERALL:
		MPI_Iallreduce(in, out, count, MPI_DOUBLE, MPI_SUM,
			       MPI_COMM_WORLD, &req);
		compute(steps);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		break;
	}
	return (MPI_Wtime() - t0) * 1e6;
}

/* Probe and warm up @ph; the number of timed iterations, as all agree. */
static int plan(const struct opts *o, enum phase ph, const double *in,
		double *out, int count, long steps)
{
	double t = max_all(iteration(ph, in, out, count, steps));
	double sum = 0, iters;
	int w, i;

	if (t < 0.1)
		t = 0.1;
	w = o->budget_us / (4 * t);
	w = w < 1 ? 1 : w > o->warmup ? o->warmup : w;
	for (i = 0; i < w; i++)
		sum += iteration(ph, in, out, count, steps);
	t = max_all(sum / w);
	if (t < 0.1)
		t = 0.1;
	iters = o->budget_us / t;
	if (iters < o->miniters)
		iters = o->miniters;
	if (iters > o->maxiters)
		iters = o->maxiters;
	return (int)iters;
}

struct stats {
	double avg, median, min, max, osu_avg;
};

/*
 * @iters timed iterations of @ph; statistics over iterations of the
 * slowest rank's time (fixed-size reductions: @t and @tmax hold
 * o->maxiters, zero past @iters), valid on every rank.
 */
static void measure(const struct opts *o, enum phase ph, int iters,
		    const double *in, double *out, int count, long steps,
		    double *t, double *tmax, struct stats *s)
{
	double mine = 0, res[5];
	int i;

	memset(t, 0, o->maxiters * sizeof(*t));
	for (i = 0; i < iters; i++) {
		t[i] = iteration(ph, in, out, count, steps);
		mine += t[i];
	}
	MPI_Reduce(t, tmax, o->maxiters, MPI_DOUBLE, MPI_MAX, 0,
		   MPI_COMM_WORLD);
	mine /= iters;
	MPI_Reduce(&mine, &res[4], 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	if (!rank) {
		double sum = 0;

		for (i = 0; i < iters; i++)
			sum += tmax[i];
		res[0] = sum / iters;
		qsort(tmax, iters, sizeof(*tmax), cmp_double);
		res[1] = iters % 2 ? tmax[iters / 2] :
			 (tmax[iters / 2 - 1] + tmax[iters / 2]) / 2;
		res[2] = tmax[0];
		res[3] = tmax[iters - 1];
		res[4] /= nranks;
	}
	MPI_Bcast(res, 5, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	s->avg = res[0];
	s->median = res[1];
	s->min = res[2];
	s->max = res[3];
	s->osu_avg = res[4];
}

/* Elements of @out that are not n(n+1)/2; reported on stderr. */
static int check(const double *out, int count, long bytes)
{
	double want = (double)nranks * (nranks + 1) / 2;
	int i, bad = 0;

	for (i = 0; i < count; i++)
		if (out[i] != want) {
			if (!bad)
				fprintf(stderr,
					"osu_allreduce: rank %d: %ld bytes: element %d is %g, expected %g\n",
					rank, bytes, i, out[i], want);
			bad++;
		}
	return bad;
}

static int parse(int argc, char **argv, struct opts *o)
{
	char *end;
	int c;

	o->factor = 4;
	o->budget_us = DEF_BUDGET_MS * 1e3;
	o->maxiters = DEF_MAXITERS;
	o->miniters = DEF_MINITERS;
	o->warmup = DEF_WARMUP;
	while ((c = getopt(argc, argv, "f:t:i:m:w:")) != -1) {
		long v;

		if (c == '?')
			return -1;
		v = strtol(optarg, &end, 10);
		if (*end || v < 1)
			return -1;
		switch (c) {
		case 'f':
			if (v != 2 && v != 4)
				return -1;
			o->factor = v;
			break;
		case 't':
			o->budget_us = v * 1e3;
			break;
		case 'i':
			o->maxiters = v;
			break;
		case 'm':
			o->miniters = v;
			break;
		case 'w':
			o->warmup = v;
			break;
		}
	}
	if (argc - optind != 3)
		return -1;
	if (!strcmp(argv[optind], "overlap"))
		o->overlap = 1;
	else if (strcmp(argv[optind], "latency"))
		return -1;
	o->min = strtol(argv[optind + 1], &end, 10);
	if (*end || o->min < 1)
		return -1;
	o->max = strtol(argv[optind + 2], &end, 10);
	if (*end || o->max < o->min || o->max > (1L << 30))
		return -1;
	o->min = (o->min + 7) / 8 * 8;
	if (o->miniters > o->maxiters)
		o->miniters = o->maxiters;
	return 0;
}

int main(int argc, char **argv)
{
	double *t, *tmax, *in, *out, rate = 0;
	struct opts o = { 0 };
	int bad = 0, any, i;
	long bytes;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	if (parse(argc, argv, &o)) {
		usage();
		MPI_Finalize();
		return 2;
	}
	t = calloc(o.maxiters, sizeof(*t));
	tmax = calloc(o.maxiters, sizeof(*tmax));
	in = malloc(o.max + 8);
	out = malloc(o.max + 8);
	if (!t || !tmax || !in || !out)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (i = 0; i < (int)((o.max + 8) / 8); i++)
		in[i] = rank + 1;
	if (o.overlap)
		rate = calibrate();
	if (!rank) {
		printf("# osu_allreduce %s: %d ranks, MPI_DOUBLE MPI_SUM, %s\n",
		       o.overlap ? "overlap (MPI_Iallreduce)" :
		       "latency (MPI_Allreduce)", nranks,
		       "times in us: mean over iterations of the slowest rank");
		if (o.overlap)
			printf("# compute rate %.1f steps/us (all ranks at once)\n",
			       rate);
		printf("# %s\n", o.overlap ?
		       "size_bytes,iters,overall_us,compute_us,pure_us,overlap_pct,overall_med_us,compute_med_us,pure_med_us,overlap_med_pct" :
		       "size_bytes,iters,avg_us,median_us,min_us,max_us,osu_avg_us");
		fflush(stdout);
	}
	for (bytes = o.min;; bytes = bytes * o.factor > o.max &&
			      bytes < o.max ? o.max : bytes * o.factor) {
		int count, iters;
		struct stats s;

		if (bytes > o.max)
			break;
		count = bytes / 8;
		memset(out, 0, bytes);
		if (!o.overlap) {
			iters = plan(&o, PH_BLOCKING, in, out, count, 0);
			measure(&o, PH_BLOCKING, iters, in, out, count, 0,
				t, tmax, &s);
			bad += check(out, count, bytes);
			if (!rank)
				printf("%ld,%d,%.2f,%.2f,%.2f,%.2f,%.2f\n",
				       bytes, iters, s.avg, s.median, s.min,
				       s.max, s.osu_avg);
		} else {
			struct stats comp, all;
			double pct, pct_med;
			long steps;

			iters = plan(&o, PH_PURE, in, out, count, 0);
			measure(&o, PH_PURE, iters, in, out, count, 0, t,
				tmax, &s);
			bad += check(out, count, bytes);
			steps = (long)(s.avg * rate);
			measure(&o, PH_COMPUTE, iters, in, out, count, steps,
				t, tmax, &comp);
			/* off by more than a fifth: rescale once, measure again */
			if (comp.avg > 0 && (comp.avg > 1.2 * s.avg ||
					     comp.avg < 0.8 * s.avg)) {
				steps = (long)(steps * s.avg / comp.avg);
				measure(&o, PH_COMPUTE, iters, in, out, count,
					steps, t, tmax, &comp);
			}
			memset(out, 0, bytes);
			iteration(PH_OVERALL, in, out, count, steps);
			measure(&o, PH_OVERALL, iters, in, out, count, steps,
				t, tmax, &all);
			bad += check(out, count, bytes);
			pct = 100 * (1 - (all.avg - comp.avg) / s.avg);
			pct_med = 100 * (1 - (all.median - comp.median) /
					 s.median);
			if (!rank)
				printf("%ld,%d,%.2f,%.2f,%.2f,%.1f,%.2f,%.2f,%.2f,%.1f\n",
				       bytes, iters, all.avg, comp.avg, s.avg,
				       pct < 0 ? 0 : pct, all.median,
				       comp.median, s.median,
				       pct_med < 0 ? 0 : pct_med);
		}
		if (!rank)
			fflush(stdout);
		if (bytes == o.max)
			break;
	}
	MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (!rank && any)
		fprintf(stderr, "osu_allreduce: wrong Allreduce results (see above)\n");
	free(t);
	free(tmax);
	free(in);
	free(out);
	MPI_Finalize();
	return any ? 1 : 0;
}
