// SPDX-License-Identifier: GPL-2.0 OR MIT
/* hcpfd.c - HCPFD (Hagras, Janecek 2005): critical-parent listing, fast duplication. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sched_priv.h"

static bool th_time_eq(double a, double b)
{
	return fabs(a - b) <= TH_SCHED_EPS * (1.0 + fabs(a) + fabs(b));
}

int th_sched_hcpfd_list(const struct th_dag *dag, unsigned int *out)
{
	unsigned int n = dag->ntasks, i, j, sp = 0, k = 0, *stack, *cp;
	unsigned int ncp = 0;
	double *aest, *alst;
	bool *listed;
	int ret = -ENOMEM;

	aest = malloc(n * sizeof(*aest));
	alst = malloc(n * sizeof(*alst));
	stack = malloc(2 * n * sizeof(*stack));
	cp = malloc(n * sizeof(*cp));
	listed = calloc(n, sizeof(*listed));
	if (!aest || !alst || !stack || !cp || !listed)
		goto out;
	for (i = 0; i < n; i++) {
		unsigned int v = dag->topo[i];
		double t = 0;

		for (j = dag->pred_off[v]; j < dag->pred_off[v + 1]; j++) {
			const struct th_dag_edge *e = &dag->edges[dag->pred[j]];

			t = fmax(t, aest[e->from] + th_dag_mean_cost(dag, e->from) +
				    e->cost);
		}
		aest[v] = t;
	}
	for (i = n; i-- > 0;) {
		unsigned int v = dag->topo[i];
		double t = INFINITY;

		for (j = dag->succ_off[v]; j < dag->succ_off[v + 1]; j++) {
			const struct th_dag_edge *e = &dag->edges[dag->succ[j]];

			t = fmin(t, alst[e->to] - e->cost);
		}
		alst[v] = isinf(t) ? aest[v] : t - th_dag_mean_cost(dag, v);
	}
	/* critical-path tasks in topological order: the entry first */
	for (i = 0; i < n; i++)
		if (th_time_eq(aest[dag->topo[i]], alst[dag->topo[i]]))
			cp[ncp++] = dag->topo[i];
	for (i = ncp; i-- > 0;)
		stack[sp++] = cp[i];
	while (sp) {
		unsigned int v = stack[sp - 1], pick = TH_NONE;

		if (listed[v]) {
			sp--;
			continue;
		}
		for (j = dag->pred_off[v]; j < dag->pred_off[v + 1]; j++) {
			unsigned int u = dag->edges[dag->pred[j]].from;

			if (listed[u])
				continue;
			if (pick == TH_NONE || alst[u] < alst[pick] ||
			    (alst[u] == alst[pick] && u < pick))
				pick = u;
		}
		if (pick != TH_NONE) {
			stack[sp++] = pick;
			continue;
		}
		sp--;
		listed[v] = true;
		out[k++] = v;
	}
	/* every task is an ancestor of the single exit, which is on the CP */
	ret = k == n ? 0 : -EINVAL;
out:
	free(aest);
	free(alst);
	free(stack);
	free(cp);
	free(listed);
	return ret;
}

/* Places v: append, or append after a copy of its critical parent. */
static int th_hcpfd_place(struct th_sched *s, unsigned int v)
{
	const struct th_dag *dag = s->dag;
	double best = INFINITY, best_start = 0, best_cs = 0;
	unsigned int p, j, best_p = 0, best_cp = TH_NONE;
	int ret;

	for (p = 0; p < dag->nprocs; p++) {
		double iat = th_sched_proc_iat(s, p), w = th_dag_w(dag, v, p);
		double last = -1, ready = 0, st, cs, cf, st_dup;
		unsigned int cpar = TH_NONE;

		for (j = dag->pred_off[v]; j < dag->pred_off[v + 1]; j++) {
			unsigned int e = dag->pred[j];
			double a = th_sched_arrival(s, e, p);

			if (a > last) {
				last = a;
				cpar = dag->edges[e].from;
			}
			ready = fmax(ready, a);
		}
		st = fmax(iat, ready);
		if (st + w < best) {
			best = st + w;
			best_start = st;
			best_p = p;
			best_cp = TH_NONE;
		}
		if (cpar == TH_NONE || dag->virt[cpar] ||
		    th_sched_has_copy_on(s, cpar, p))
			continue;
		/* the copy is appended; the task follows it on the processor */
		cs = fmax(iat, th_sched_data_ready(s, cpar, p, TH_NONE));
		cf = cs + th_dag_w(dag, cpar, p);
		st_dup = fmax(cf, th_sched_data_ready(s, v, p, cpar));
		if (st_dup < st && st_dup + w < best) {
			best = st_dup + w;
			best_start = st_dup;
			best_p = p;
			best_cp = cpar;
			best_cs = cs;
		}
	}
	if (isinf(best))
		return -EINVAL;
	if (best_cp != TH_NONE) {
		ret = th_sched_place(s, best_cp, best_p, best_cs,
				     TH_SCHED_SLOT_DUP);
		if (ret)
			return ret;
	}
	return th_sched_place(s, v, best_p, best_start, 0);
}

int th_sched_hcpfd(struct th_sched *s)
{
	unsigned int i, *list;
	int ret;

	list = malloc(s->dag->ntasks * sizeof(*list));
	if (!list)
		return -ENOMEM;
	ret = th_sched_hcpfd_list(s->dag, list);
	for (i = 0; !ret && i < s->dag->ntasks; i++)
		ret = th_hcpfd_place(s, list[i]);
	free(list);
	return ret;
}
