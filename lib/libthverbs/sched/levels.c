// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * levels.c - bottom levels (HEFT's upward rank rank_u): a task's mean cost
 * plus the longest edge-and-task path to the exit.  HEFT orders its list by
 * them and HAGD's grouping reads them, so they live apart from both.
 */
#include <errno.h>

#include "sched_priv.h"

int th_sched_bottom_levels(const struct th_dag *dag, double *out)
{
	unsigned int i, j;

	if (!dag->finalized)
		return -EINVAL;
	for (i = dag->ntasks; i-- > 0;) {
		unsigned int v = dag->topo[i];
		double best = 0;

		for (j = dag->succ_off[v]; j < dag->succ_off[v + 1]; j++) {
			const struct th_dag_edge *e = &dag->edges[dag->succ[j]];
			double r = e->cost + out[e->to];

			if (r > best)
				best = r;
		}
		out[v] = th_dag_mean_cost(dag, v) + best;
	}
	return 0;
}
