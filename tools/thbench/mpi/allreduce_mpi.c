// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * allreduce_mpi.c - the MPI peer of thbench's Allreduce benchmarks, built by
 * thbench with mpicc and run under mpiexec -n N:
 *
 *   allreduce_mpi latency REPS WARMUP BYTES...
 *	MPI_Allreduce of doubles (sum); rank 0 prints per size
 *	"size BYTES median_us p10_us p90_us reps", each sample the slowest
 *	rank's time of one operation (a barrier before each).
 *   allreduce_mpi overlap REPS WARMUP BYTES...
 *	MPI_Iallreduce as the OSU micro-benchmarks measure it: the pure
 *	time t_pure (start, wait); the compute alone, t_compute; then
 *	start, compute, wait, t_total; rank 0 prints "size ..." for the pure
 *	time and "overlap BYTES pct t_pure t_compute t_total" (each time the
 *	job's span: the first rank's start to the last rank's end), where
 *	pct = 100 * (1 - (t_total - t_compute) / t_pure), from medians.  The
 *	compute is CPU time, t_pure x cores / N per rank when the ranks
 *	outnumber the cores, so that it lasts about t_pure on the wall.
 *
 * Not part of the make build: no MPI headers there.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

static void compute(double us)
{
	double end = cpu_us() + us;

	while (cpu_us() < end)
		;
}

/*
 * Samples of one mode; @compute_us < 0: blocking MPI_Allreduce; with
 * @only, the compute alone.  @t0: the start times (MPI_Wtime), or NULL.
 */
static void run(double *t, double *t0s, int reps, int warmup, double *in,
		double *out, int count, double compute_us, int only)
{
	MPI_Request req;
	int i;

	for (i = -warmup; i < reps; i++) {
		double t0;

		MPI_Barrier(MPI_COMM_WORLD);
		t0 = MPI_Wtime();
		if (only) {
			compute(compute_us);
		} else if (compute_us < 0) {
			MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM,
				      MPI_COMM_WORLD);
		} else {
			MPI_Iallreduce(in, out, count, MPI_DOUBLE, MPI_SUM,
				       MPI_COMM_WORLD, &req);
			compute(compute_us);
			MPI_Wait(&req, MPI_STATUS_IGNORE);
		}
		if (i >= 0 && t0s) {
			t0s[i] = t0 * 1e6;
			t[i] = MPI_Wtime() * 1e6;	/* the end */
		} else if (i >= 0) {
			t[i] = (MPI_Wtime() - t0) * 1e6;
		}
	}
}

/*
 * The job's span per sample (all ranks on one host share the clock
 * MPI_Wtime reads): the last end less the first start; sorted on rank 0,
 * the median everywhere.
 */
static double span(double *t0s, double *t1s, double *tmin, double *tmax,
		   int reps, int rank)
{
	double med = 0;
	int i;

	MPI_Reduce(t0s, tmin, reps, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
	MPI_Reduce(t1s, tmax, reps, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	if (!rank) {
		for (i = 0; i < reps; i++)
			tmax[i] -= tmin[i];
		qsort(tmax, reps, sizeof(*tmax), cmp_double);
		med = tmax[reps / 2];
	}
	MPI_Bcast(&med, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	return med;
}

/* The slowest rank's samples, sorted, on rank 0; the median everywhere. */
static double slowest(double *t, double *tmax, int reps, int rank)
{
	double med = 0;

	MPI_Reduce(t, tmax, reps, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	if (!rank) {
		qsort(tmax, reps, sizeof(*tmax), cmp_double);
		med = tmax[reps / 2];
	}
	MPI_Bcast(&med, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	return med;
}

int main(int argc, char **argv)
{
	int rank, size, reps, warmup, i, a, overlap;
	double *t, *tmax, *t0s, *tmin, *in, *out;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 5 || (strcmp(argv[1], "latency") &&
			 strcmp(argv[1], "overlap"))) {
		if (!rank)
			fprintf(stderr, "usage: allreduce_mpi latency|overlap REPS WARMUP BYTES...\n");
		MPI_Finalize();
		return 2;
	}
	overlap = !strcmp(argv[1], "overlap");
	reps = atoi(argv[2]);
	warmup = atoi(argv[3]);
	t = calloc(reps, sizeof(*t));
	tmax = calloc(reps, sizeof(*tmax));
	t0s = calloc(reps, sizeof(*t0s));
	tmin = calloc(reps, sizeof(*tmin));
	if (reps < 1 || !t || !tmax || !t0s || !tmin)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (a = 4; a < argc; a++) {
		long bytes = atol(argv[a]);
		int count = bytes / 8 > 0 ? bytes / 8 : 1;
		double pure, total, work, tcomp;
		long cores = sysconf(_SC_NPROCESSORS_ONLN);

		in = malloc(count * sizeof(*in));
		out = malloc(count * sizeof(*out));
		if (!in || !out)
			MPI_Abort(MPI_COMM_WORLD, 1);
		for (i = 0; i < count; i++)
			in[i] = rank + i * 0.5;
		run(t, overlap ? t0s : NULL, reps, warmup, in, out, count,
		    overlap ? 0 : -1, 0);
		pure = overlap ? span(t0s, t, tmin, tmax, reps, rank) :
		       slowest(t, tmax, reps, rank);
		if (!rank) {
			printf("size %ld %.3f %.3f %.3f %d\n", bytes, pure,
			       tmax[reps / 10], tmax[reps * 9 / 10], reps);
			fflush(stdout);
		}
		if (overlap) {
			work = cores > 0 && size > cores ? pure * cores / size :
			       pure;
			run(t, t0s, reps, warmup, in, out, count, work, 1);
			tcomp = span(t0s, t, tmin, tmax, reps, rank);
			run(t, t0s, reps, warmup, in, out, count, work, 0);
			total = span(t0s, t, tmin, tmax, reps, rank);
			if (!rank) {
				printf("overlap %ld %.1f %.3f %.3f %.3f\n", bytes,
				       100 * (1 - (total - tcomp) / pure), pure,
				       tcomp, total);
				fflush(stdout);
			}
		}
		free(in);
		free(out);
	}
	free(t);
	free(tmax);
	free(t0s);
	free(tmin);
	MPI_Finalize();
	return 0;
}
