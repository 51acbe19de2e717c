// SPDX-License-Identifier: GPL-2.0 OR MIT
/* costs.c - costs from a structure: the w(v, s) table from beta, edges from CCR. */
#include <errno.h>
#include <math.h>

#include "sched_priv.h"

int th_dag_assign_costs(struct th_dag *dag, unsigned int nprocs, double ccr,
			double beta, uint64_t seed)
{
	double sum_mean = 0, sum_raw = 0, scale;
	struct th_rng rng;
	unsigned int v, s, i;
	int ret;

	if (!(ccr >= 0) || !(beta >= 0) || beta > 2 || isinf(ccr))
		return -EINVAL;
	if (dag->nprocs != nprocs || dag->proc_class) {	/* dense, of nprocs */
		ret = th_dag_set_procs(dag, nprocs);
		if (ret)
			return ret;
	}
	th_rng_seed(&rng, seed);
	for (v = 0; v < dag->ntasks; v++) {
		double b = dag->virt[v] ? 0 : dag->base[v], sum = 0;

		for (s = 0; s < nprocs; s++) {
			double w = b * (1 - beta / 2 + beta * th_rng_unit(&rng));

			dag->w[(size_t)v * nprocs + s] = w;
			sum += w;
		}
		dag->wmean[v] = sum / nprocs;
		sum_mean += dag->wmean[v];
	}
	for (i = 0; i < dag->nedges; i++) {
		struct th_dag_edge *e = &dag->edges[i];
		double raw = 0.5 + th_rng_unit(&rng);

		if (!(dag->wmean[e->from] > 0) || !(dag->wmean[e->to] > 0))
			raw = 0;
		e->cost = raw;
		sum_raw += raw;
	}
	scale = sum_raw > 0 ? ccr * sum_mean / sum_raw : 0;
	for (i = 0; i < dag->nedges; i++)
		dag->edges[i].cost *= scale;
	return 0;
}
