// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * place_measure.c - a placement's rounds run and their medians taken
 * (place_measure.h): the round's time on the virtual or the monotonic
 * clock, and each job's measured finish.
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "place_measure.h"

static double pm_now(void)
{
	double v = th_place_timed_now();
	struct timespec ts;

	if (v >= 0)
		return v;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int pm_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of @n values (the mean of the middle two for even @n). */
static double pm_median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), pm_cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int place_measure(const struct th_place_jobs *j, const struct th_place_result *r,
		  struct th_vport *const *vps, unsigned int nodes,
		  unsigned int warmup, unsigned int reps, uint64_t timeout_ns,
		  double *makespan, double *finish)
{
	struct th_place_exec *x = th_place_exec_create(j, r, vps, nodes);
	unsigned int nj = r->njobs, i, k;
	double *t = calloc(reps + 1, sizeof(*t));
	double *f = calloc((size_t)reps * nj + 1, sizeof(*f));
	double *col = calloc(reps + 1, sizeof(*col));
	int ret = x ? 0 : -errno;
	double t0;

	if (!ret && (!t || !f || !col || !reps))
		ret = reps ? -ENOMEM : -EINVAL;
	/* in real time a watcher stamps the finishes (a virtual clock has them) */
	if (!ret && finish && th_place_timed_now() < 0)
		ret = th_place_exec_watch(x, true);
	for (i = 0; !ret && i < warmup + reps; i++) {
		t0 = pm_now();
		ret = th_place_exec_start(x);
		if (!ret)
			ret = th_place_exec_wait(x, timeout_ns);
		if (ret || i < warmup)
			continue;
		t[i - warmup] = pm_now() - t0;
		if (finish)
			ret = th_place_exec_finishes(x, &f[(size_t)(i - warmup) * nj],
						     nj);
	}
	if (!ret) {
		*makespan = pm_median(t, reps);
		for (k = 0; finish && k < nj; k++) {
			for (i = 0; i < reps; i++)
				col[i] = f[(size_t)i * nj + k];
			finish[k] = pm_median(col, reps);
		}
	}
	th_place_exec_destroy(x);
	free(t);
	free(f);
	free(col);
	return ret;
}
