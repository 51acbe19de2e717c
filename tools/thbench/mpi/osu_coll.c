// SPDX-License-Identifier: GPL-2.0 OR MIT
/* osu_coll.c - OSU-style MPI Allreduce/Reduce/Bcast latency and overlap */
/*
 * Built with mpicc, run under mpiexec -n N (bench-thmpi runs it with and
 * without libthmpi preloaded):
 *
 *   osu_coll latency|overlap MIN MAX [-c allreduce|reduce|bcast]
 *            [-f 2|4] [-t MS] [-i MAXITERS] [-m MINITERS] [-w WARMUP]
 *
 * -c picks the measured collective (default allreduce, what this program
 * measured alone when it was osu_allreduce), on MPI_DOUBLE data:
 *
 *   allreduce	MPI_Allreduce(MPI_SUM); overlap: MPI_Iallreduce
 *   reduce	MPI_Reduce(MPI_SUM, root 0); overlap: MPI_Ireduce
 *   bcast	MPI_Bcast(root 0); overlap: MPI_Ibcast
 *
 * libthmpi offloads all six (lib/libthmpi/blocking.c, nonblocking.c), so
 * every collective has both modes.  An unknown -c is refused with a
 * message and exit 2.
 *
 * Sizes in bytes (MIN rounded up to 8), MIN, MIN*f, MIN*f^2 ... and MAX
 * itself last when the steps miss it (default f = 4: 8 B .. 1 MiB is 8,
 * 32, 128, 512, 2K, 8K, 32K, 128K, 512K, 1M).
 *
 * Iterations per size are bounded by time: one probe iteration estimates
 * the time t of one operation (the slowest rank's), then
 * warmup = clamp(MS / 4t, 1, WARMUP) and iterations = clamp(MS / t,
 * MINITERS, MAXITERS); so each measured phase of a size takes about MS
 * milliseconds (-t, default 300), never fewer than MINITERS iterations
 * (default 5) nor more than MAXITERS (default 1000, the array size).
 *
 * latency (osu_allreduce, osu_reduce, osu_bcast): per iteration a barrier,
 *	then the timed call.  Per-iteration times are reduced with
 *	MPI_MAX over ranks (for Reduce and Bcast too: the time is the
 *	slowest rank's, not the root's); rank 0 prints per size
 *	  size_bytes,iters,avg_us,median_us,min_us,max_us,osu_avg_us
 *	avg/median/min/max over iterations of the slowest rank's time;
 *	osu_avg_us is what the OSU programs print as "Avg Latency" (each
 *	rank's mean, averaged over ranks).
 * overlap (osu_iallreduce, osu_ireduce, osu_ibcast): per size (a) t_pure:
 *	the I- call + Wait; (b) t_compute: busy arithmetic alone,
 *	calibrated at start (all ranks at once, so oversubscription is in
 *	the rate) to last t_pure on the wall (when (b) measures more than
 *	a fifth off t_pure, the step count is rescaled once and (b)
 *	measured again); (c) t_overall: the I- call, the same compute,
 *	Wait.  Each the mean over iterations of the slowest rank's time
 *	(barrier before each iteration); rank 0 prints
 *	  size_bytes,iters,overall_us,compute_us,pure_us,overlap_pct,
 *	  overall_med_us,compute_med_us,pure_med_us,overlap_med_pct
 *	overlap_pct = max(0, 100 * (1 - (t_overall - t_compute) / t_pure)),
 *	as the OSU micro-benchmarks compute it (not capped at 100: over 100
 *	means the overlapped run beat the compute alone); the _med columns
 *	are the same from medians over iterations instead of means.
 *
 * Results are checked after each size's timed loop (the result buffer is
 * cleared before it): Allreduce and Reduce sum rank + 1 from every rank,
 * so every rank (Reduce: the root) must hold n(n+1)/2 in every element;
 * Bcast sends the root's pattern (element i holds i % 4093 + 1), which
 * every rank must hold.  A mismatch is reported on stderr ("osu_coll: ")
 * and the program exits 1.
 *
 * The program's own reductions (times, statistics, the check's verdict)
 * call PMPI_ directly: with libthmpi preloaded they go to MPICH, so
 * libthmpi's statistics (THMPI_STATS) count only the measured calls.
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
#define ROOT		0

enum coll { COLL_ALLREDUCE, COLL_REDUCE, COLL_BCAST, COLL_MAX };

/* One row per collective: its -c name, its blocking and non-blocking call. */
static const struct coll_info {
	const char *name, *call, *icall;
} colls[COLL_MAX] = {
	[COLL_ALLREDUCE] = { "allreduce", "MPI_Allreduce", "MPI_Iallreduce" },
	[COLL_REDUCE]	 = { "reduce", "MPI_Reduce", "MPI_Ireduce" },
	[COLL_BCAST]	 = { "bcast", "MPI_Bcast", "MPI_Ibcast" },
};

struct opts {
	int overlap;
	enum coll coll;
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
			"usage: osu_coll latency|overlap MIN MAX [-c allreduce|reduce|bcast] [-f 2|4] [-t MS] [-i MAXITERS] [-m MINITERS] [-w WARMUP]\n");
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

	PMPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
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

/*
 * The measured call on @count doubles: blocking when @req is NULL, else
 * its non-blocking form.  Bcast sends and receives in @out (the root's
 * holds the pattern).
 */
static void coll_call(enum coll c, const double *in, double *out, int count,
		      MPI_Request *req)
{
	switch (c) {
	case COLL_ALLREDUCE:
		if (req)
			MPI_Iallreduce(in, out, count, MPI_DOUBLE, MPI_SUM,
				       MPI_COMM_WORLD, req);
		else
			MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM,
				      MPI_COMM_WORLD);
		break;
	case COLL_REDUCE:
		if (req)
			MPI_Ireduce(in, out, count, MPI_DOUBLE, MPI_SUM, ROOT,
				    MPI_COMM_WORLD, req);
		else
			MPI_Reduce(in, out, count, MPI_DOUBLE, MPI_SUM, ROOT,
				   MPI_COMM_WORLD);
		break;
	case COLL_BCAST:
		if (req)
			MPI_Ibcast(out, count, MPI_DOUBLE, ROOT,
				   MPI_COMM_WORLD, req);
		else
			MPI_Bcast(out, count, MPI_DOUBLE, ROOT,
				  MPI_COMM_WORLD);
		break;
	case COLL_MAX:
		break;
	}
}

enum phase { PH_BLOCKING, PH_PURE, PH_COMPUTE, PH_OVERALL };

/* One iteration of @ph (after a barrier): its time in us on this rank. */
static double iteration(const struct opts *o, enum phase ph, const double *in,
			double *out, int count, long steps)
{
	MPI_Request req;
	double t0;

	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	switch (ph) {
	case PH_BLOCKING:
		coll_call(o->coll, in, out, count, NULL);
		break;
	case PH_PURE:
		coll_call(o->coll, in, out, count, &req);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		break;
	case PH_COMPUTE:
		compute(steps);
		break;
	case PH_OVERALL:
		coll_call(o->coll, in, out, count, &req);
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
	double t = max_all(iteration(o, ph, in, out, count, steps));
	double sum = 0, iters;
	int w, i;

	if (t < 0.1)
		t = 0.1;
	w = o->budget_us / (4 * t);
	w = w < 1 ? 1 : w > o->warmup ? o->warmup : w;
	for (i = 0; i < w; i++)
		sum += iteration(o, ph, in, out, count, steps);
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
		t[i] = iteration(o, ph, in, out, count, steps);
		mine += t[i];
	}
	PMPI_Reduce(t, tmax, o->maxiters, MPI_DOUBLE, MPI_MAX, 0,
		    MPI_COMM_WORLD);
	mine /= iters;
	PMPI_Reduce(&mine, &res[4], 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
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
	PMPI_Bcast(res, 5, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	s->avg = res[0];
	s->median = res[1];
	s->min = res[2];
	s->max = res[3];
	s->osu_avg = res[4];
}

/* Bcast's root's element @i: varies, so a shifted or partial copy shows. */
static double bcast_pattern(int i)
{
	return i % 4093 + 1;
}

/*
 * Before a timed loop: the result buffer cleared, so the check after it
 * sees only what the loop delivered; Bcast's root holds its pattern.
 */
static void prepare(const struct opts *o, double *out, int count)
{
	int i;

	if (o->coll == COLL_BCAST && rank == ROOT) {
		for (i = 0; i < count; i++)
			out[i] = bcast_pattern(i);
		return;
	}
	memset(out, 0, count * sizeof(*out));
}

/* Elements of @out that are not the collective's result; reported on stderr. */
static int check(const struct opts *o, const double *out, int count,
		 long bytes)
{
	double sum = (double)nranks * (nranks + 1) / 2;
	int i, bad = 0;

	/* Reduce: only the root's buffer gets a result */
	if (o->coll == COLL_REDUCE && rank != ROOT)
		return 0;
	for (i = 0; i < count; i++) {
		double want = o->coll == COLL_BCAST ? bcast_pattern(i) : sum;

		if (out[i] != want) {
			if (!bad)
				fprintf(stderr,
					"osu_coll: %s: rank %d: %ld bytes: element %d is %g, expected %g\n",
					colls[o->coll].call, rank, bytes, i,
					out[i], want);
			bad++;
		}
	}
	return bad;
}

static int parse(int argc, char **argv, struct opts *o)
{
	char *end;
	int c;

	o->coll = COLL_ALLREDUCE;
	o->factor = 4;
	o->budget_us = DEF_BUDGET_MS * 1e3;
	o->maxiters = DEF_MAXITERS;
	o->miniters = DEF_MINITERS;
	o->warmup = DEF_WARMUP;
	while ((c = getopt(argc, argv, "c:f:t:i:m:w:")) != -1) {
		long v;

		if (c == '?')
			return -1;
		if (c == 'c') {
			for (v = 0; v < COLL_MAX; v++)
				if (!strcmp(optarg, colls[v].name))
					break;
			if (v == COLL_MAX) {
				if (!rank)
					fprintf(stderr,
						"osu_coll: unknown collective '%s' (allreduce, reduce or bcast)\n",
						optarg);
				return -1;
			}
			o->coll = v;
			continue;
		}
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
		printf("# osu_coll %s: %d ranks, MPI_DOUBLE%s, %s\n",
		       o.overlap ? "overlap" : "latency", nranks,
		       o.coll == COLL_ALLREDUCE ? " MPI_SUM" :
		       o.coll == COLL_REDUCE ? " MPI_SUM root 0" : " root 0",
		       "times in us: mean over iterations of the slowest rank");
		printf("# collective %s (%s)\n", colls[o.coll].name,
		       o.overlap ? colls[o.coll].icall : colls[o.coll].call);
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
		prepare(&o, out, count);
		if (!o.overlap) {
			iters = plan(&o, PH_BLOCKING, in, out, count, 0);
			measure(&o, PH_BLOCKING, iters, in, out, count, 0,
				t, tmax, &s);
			bad += check(&o, out, count, bytes);
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
			bad += check(&o, out, count, bytes);
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
			prepare(&o, out, count);
			iteration(&o, PH_OVERALL, in, out, count, steps);
			measure(&o, PH_OVERALL, iters, in, out, count, steps,
				t, tmax, &all);
			bad += check(&o, out, count, bytes);
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
	PMPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (!rank && any)
		fprintf(stderr, "osu_coll: wrong %s results (see above)\n",
			colls[o.coll].call);
	free(t);
	free(tmax);
	free(in);
	free(out);
	MPI_Finalize();
	return any ? 1 : 0;
}
