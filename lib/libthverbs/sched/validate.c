// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * validate.c - the independent schedule validator: it re-derives every
 * constraint of the model from the slots and the graph alone, sharing no
 * code with the placement helpers of the algorithms.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "sched_priv.h"

static int th_validate_fail(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (why && len) {
		va_start(ap, fmt);
		vsnprintf(why, len, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static bool th_validate_le(double a, double b)
{
	return a <= b + 1e-7 * (1.0 + fabs(b));
}

static int th_validate_cmp(const void *a, const void *b, void *arg)
{
	const struct th_sched_slot *sl = arg;
	const struct th_sched_slot *x = &sl[*(const unsigned int *)a];
	const struct th_sched_slot *y = &sl[*(const unsigned int *)b];

	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->finish > y->finish) - (x->finish < y->finish);
}

int th_sched_validate(const struct th_sched *s, char *why, size_t len)
{
	const struct th_dag *dag = s->dag;
	const struct th_sched_slot *sl = s->slots;
	unsigned int n = dag->ntasks, ns = s->nslots, i, j, k;
	unsigned int *nprim, *off, *by_task, *order, *fill;
	int ret = -ENOMEM;

	nprim = calloc(n, sizeof(*nprim));
	off = calloc(n + 1, sizeof(*off));
	fill = malloc((n + 1) * sizeof(*fill));
	by_task = malloc((ns + 1) * sizeof(*by_task));
	order = malloc((ns + 1) * sizeof(*order));
	if (!nprim || !off || !fill || !by_task || !order)
		goto out;

	for (i = 0; i < ns; i++) {
		const struct th_sched_slot *x = &sl[i];

		if (x->task >= n || x->proc >= dag->nprocs) {
			ret = th_validate_fail(why, len, "slot %u: task %u or processor %u out of range",
					       i, x->task, x->proc);
			goto out;
		}
		if (!(x->start >= 0) ||
		    fabs(x->finish - x->start - th_dag_w(dag, x->task, x->proc)) >
		    1e-7 * (1.0 + x->finish)) {
			ret = th_validate_fail(why, len, "task %s on p%u: [%g, %g] does not last w = %g",
					       dag->names[x->task], x->proc, x->start,
					       x->finish, th_dag_w(dag, x->task, x->proc));
			goto out;
		}
		if (!(x->flags & TH_SCHED_SLOT_DUP))
			nprim[x->task]++;
		off[x->task + 1]++;
	}
	for (i = 0; i < n; i++) {
		if (nprim[i] != 1) {
			ret = th_validate_fail(why, len, "task %s placed %u times (duplicates aside)",
					       dag->names[i], nprim[i]);
			goto out;
		}
		off[i + 1] += off[i];
	}
	for (i = 0; i <= n; i++)
		fill[i] = off[i];
	for (i = 0; i < ns; i++)
		by_task[fill[sl[i].task]++] = i;

	/* no two busy slots overlap on a processor */
	for (i = 0; i < ns; i++)
		order[i] = i;
	qsort_r(order, ns, sizeof(*order), th_validate_cmp, (void *)sl);
	for (i = 0, k = ns; i < ns; i++) {
		const struct th_sched_slot *x = &sl[order[i]];

		if (!(x->finish > x->start))
			continue;
		if (k != ns && sl[k].proc == x->proc &&
		    !th_validate_le(sl[k].finish, x->start)) {
			ret = th_validate_fail(why, len, "p%u: %s [%g, %g] overlaps %s [%g, %g]",
					       x->proc, dag->names[sl[k].task],
					       sl[k].start, sl[k].finish,
					       dag->names[x->task], x->start, x->finish);
			goto out;
		}
		k = order[i];
	}

	/* every copy starts after the arrival of each of its inputs */
	for (i = 0; i < ns; i++) {
		const struct th_sched_slot *x = &sl[i];
		unsigned int v = x->task;

		for (j = dag->pred_off[v]; j < dag->pred_off[v + 1]; j++) {
			const struct th_dag_edge *e = &dag->edges[dag->pred[j]];
			double arr = INFINITY;

			for (k = off[e->from]; k < off[e->from + 1]; k++) {
				const struct th_sched_slot *y = &sl[by_task[k]];
				double a = y->finish +
					   (y->proc == x->proc ? 0 : e->cost);

				arr = fmin(arr, a);
			}
			if (!th_validate_le(arr, x->start)) {
				ret = th_validate_fail(why, len, "%s%s on p%u starts at %g before the data of %s arrives at %g",
						       dag->names[v],
						       x->flags & TH_SCHED_SLOT_DUP ? " (copy)" : "",
						       x->proc, x->start,
						       dag->names[e->from], arr);
				goto out;
			}
		}
	}
	ret = 0;
out:
	free(nprim);
	free(off);
	free(fill);
	free(by_task);
	free(order);
	return ret;
}
