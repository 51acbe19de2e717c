// SPDX-License-Identifier: GPL-2.0 OR MIT
/* metrics.c - makespan, SLR, speedup, efficiency, insertion and duplication counts. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "sched_priv.h"

/* The largest sum of minimum costs along an entry-to-exit path. */
static int th_sched_cp_min(const struct th_dag *dag, double *out)
{
	unsigned int i, j, s;
	double *best;

	best = malloc(dag->ntasks * sizeof(*best));
	if (!best)
		return -ENOMEM;
	for (i = dag->ntasks; i-- > 0;) {
		unsigned int v = dag->topo[i];
		double wmin = INFINITY, tail = 0;

		for (s = 0; s < dag->nprocs; s++)
			wmin = fmin(wmin, th_dag_w(dag, v, s));
		for (j = dag->succ_off[v]; j < dag->succ_off[v + 1]; j++)
			tail = fmax(tail, best[dag->edges[dag->succ[j]].to]);
		best[v] = wmin + tail;
	}
	*out = best[dag->entry];
	free(best);
	return 0;
}

int th_sched_metrics(const struct th_sched *s, struct th_sched_metrics *m)
{
	const struct th_dag *dag = s->dag;
	double seq = INFINITY;
	unsigned int i, p;
	int ret;

	m->makespan = 0;
	for (i = 0; i < dag->ntasks; i++) {
		if (dag->succ_off[i + 1] != dag->succ_off[i])
			continue;
		if (isinf(s->aft_min[i]))
			return -EINVAL;		/* an exit is not placed */
		m->makespan = fmax(m->makespan, s->aft_min[i]);
	}
	ret = th_sched_cp_min(dag, &m->cp_min);
	if (ret)
		return ret;
	for (p = 0; p < dag->nprocs; p++) {
		double sum = 0;

		for (i = 0; i < dag->ntasks; i++)
			sum += th_dag_w(dag, i, p);
		seq = fmin(seq, sum);
	}
	m->slr = m->cp_min > 0 ? m->makespan / m->cp_min : NAN;
	m->speedup = m->makespan > 0 ? seq / m->makespan : NAN;
	m->efficiency = m->speedup / dag->nprocs;
	m->ninserted = 0;
	m->nduplicated = 0;
	for (i = 0; i < s->nslots; i++) {
		const struct th_sched_slot *x = &s->slots[i];

		if (dag->virt[x->task])
			continue;
		if (x->flags & TH_SCHED_SLOT_DUP)
			m->nduplicated++;
		else if ((x->flags & TH_SCHED_SLOT_INSERTED) &&
			 x->finish > x->start)
			m->ninserted++;
	}
	return 0;
}
