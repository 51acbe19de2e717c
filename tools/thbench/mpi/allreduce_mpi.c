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
 *	time (start, wait), then start, compute for that long, wait; rank 0
 *	prints "size ..." for the pure time and
 *	"overlap BYTES pct t_pure t_compute t_total", where
 *	pct = 100 * (1 - (t_total - t_compute) / t_pure), from medians.
 *
 * Not part of the make build: no MPI headers there.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void compute(double us)
{
	double end = MPI_Wtime() + us * 1e-6;

	while (MPI_Wtime() < end)
		;
}

/* Samples of one mode; @compute_us < 0: blocking MPI_Allreduce. */
static void run(double *t, int reps, int warmup, double *in, double *out,
		int count, double compute_us)
{
	MPI_Request req;
	int i;

	for (i = -warmup; i < reps; i++) {
		double t0;

		MPI_Barrier(MPI_COMM_WORLD);
		t0 = MPI_Wtime();
		if (compute_us < 0) {
			MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM,
				      MPI_COMM_WORLD);
		} else {
			MPI_Iallreduce(in, out, count, MPI_DOUBLE, MPI_SUM,
				       MPI_COMM_WORLD, &req);
			compute(compute_us);
			MPI_Wait(&req, MPI_STATUS_IGNORE);
		}
		if (i >= 0)
			t[i] = (MPI_Wtime() - t0) * 1e6;
	}
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
	double *t, *tmax, *in, *out;

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
	if (reps < 1 || !t || !tmax)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (a = 4; a < argc; a++) {
		long bytes = atol(argv[a]);
		int count = bytes / 8 > 0 ? bytes / 8 : 1;
		double pure, total;

		in = malloc(count * sizeof(*in));
		out = malloc(count * sizeof(*out));
		if (!in || !out)
			MPI_Abort(MPI_COMM_WORLD, 1);
		for (i = 0; i < count; i++)
			in[i] = rank + i * 0.5;
		run(t, reps, warmup, in, out, count, overlap ? 0 : -1);
		pure = slowest(t, tmax, reps, rank);
		if (!rank) {
			printf("size %ld %.3f %.3f %.3f %d\n", bytes, pure,
			       tmax[reps / 10], tmax[reps * 9 / 10], reps);
			fflush(stdout);
		}
		if (overlap) {
			run(t, reps, warmup, in, out, count, pure);
			total = slowest(t, tmax, reps, rank);
			if (!rank) {
				printf("overlap %ld %.1f %.3f %.3f %.3f\n", bytes,
				       100 * (1 - (total - pure) / pure), pure,
				       pure, total);
				fflush(stdout);
			}
		}
		free(in);
		free(out);
	}
	free(t);
	free(tmax);
	MPI_Finalize();
	return 0;
}
