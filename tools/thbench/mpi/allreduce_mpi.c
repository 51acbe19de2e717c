// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * allreduce_mpi.c - the MPI peer of 'thbench allreduce': MPI_Allreduce of
 * doubles (sum) per size, built by thbench with mpicc and run under
 * mpiexec -n N.  Rank 0 prints one line per size:
 *   size BYTES median_us P10_us P90_us reps
 * where each sample is the slowest rank's time of one operation (a
 * barrier before each).  Not part of the make build: no MPI headers there.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int rank, size, reps, warmup, i, a;
	double *t, *tmax, *in, *out;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 4) {
		if (!rank)
			fprintf(stderr, "usage: allreduce_mpi REPS WARMUP BYTES...\n");
		MPI_Finalize();
		return 2;
	}
	reps = atoi(argv[1]);
	warmup = atoi(argv[2]);
	t = calloc(reps, sizeof(*t));
	tmax = calloc(reps, sizeof(*tmax));
	if (reps < 1 || !t || !tmax)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (a = 3; a < argc; a++) {
		long bytes = atol(argv[a]);
		int count = bytes / 8 > 0 ? bytes / 8 : 1;

		in = malloc(count * sizeof(*in));
		out = malloc(count * sizeof(*out));
		if (!in || !out)
			MPI_Abort(MPI_COMM_WORLD, 1);
		for (i = 0; i < count; i++)
			in[i] = rank + i * 0.5;
		for (i = 0; i < warmup; i++)
			MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM,
				      MPI_COMM_WORLD);
		for (i = 0; i < reps; i++) {
			double t0;

			MPI_Barrier(MPI_COMM_WORLD);
			t0 = MPI_Wtime();
			MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM,
				      MPI_COMM_WORLD);
			t[i] = (MPI_Wtime() - t0) * 1e6;
		}
		MPI_Reduce(t, tmax, reps, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
		if (!rank) {
			qsort(tmax, reps, sizeof(*tmax), cmp_double);
			printf("size %ld %.3f %.3f %.3f %d\n", bytes,
			       tmax[reps / 2], tmax[reps / 10],
			       tmax[reps * 9 / 10], reps);
			fflush(stdout);
		}
		free(in);
		free(out);
	}
	free(t);
	free(tmax);
	MPI_Finalize();
	return 0;
}
