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

/* Parents by ALST, then id: the order in which the listing picks them. */
static int th_hcpfd_cmp(const void *a, const void *b, void *arg)
{
	const double *alst = arg;
	unsigned int u = *(const unsigned int *)a, w = *(const unsigned int *)b;

	if (alst[u] != alst[w])
		return alst[u] < alst[w] ? -1 : 1;
	return (u > w) - (u < w);
}

/*
 * The unlisted parent of @v with the least ALST (ties: the lower id), or
 * TH_NONE.  Each task's parents are sorted once, on its first visit, and a
 * cursor moves past those listed since: a task is listed once and never
 * unlisted, so the cursor only moves forward, and a task with many parents
 * (the exit of independent tasks) costs n log n, not n per visit.
 */
static unsigned int th_hcpfd_pick(const struct th_dag *dag, unsigned int v,
				  const double *alst, const bool *listed,
				  unsigned int *par, unsigned int *cursor,
				  bool *sorted)
{
	unsigned int lo = dag->pred_off[v], hi = dag->pred_off[v + 1], j;

	if (!sorted[v]) {
		for (j = lo; j < hi; j++)
			par[j] = dag->edges[dag->pred[j]].from;
		qsort_r(par + lo, hi - lo, sizeof(*par), th_hcpfd_cmp,
			(void *)alst);
		cursor[v] = lo;
		sorted[v] = true;
	}
	while (cursor[v] < hi && listed[par[cursor[v]]])
		cursor[v]++;
	return cursor[v] < hi ? par[cursor[v]] : TH_NONE;
}

int th_sched_hcpfd_list(const struct th_dag *dag, unsigned int *out)
{
	unsigned int n = dag->ntasks, i, j, sp = 0, k = 0, *stack, *cp;
	unsigned int ncp = 0, *par, *cursor;
	double *aest, *alst;
	bool *listed, *sorted;
	int ret = -ENOMEM;

	aest = malloc(n * sizeof(*aest));
	alst = malloc(n * sizeof(*alst));
	stack = malloc(2 * n * sizeof(*stack));
	cp = malloc(n * sizeof(*cp));
	listed = calloc(n, sizeof(*listed));
	sorted = calloc(n, sizeof(*sorted));
	cursor = malloc(n * sizeof(*cursor));
	par = malloc((dag->pred_off[n] + 1) * sizeof(*par));
	if (!aest || !alst || !stack || !cp || !listed || !sorted || !cursor ||
	    !par)
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
		pick = th_hcpfd_pick(dag, v, alst, listed, par, cursor, sorted);
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
	free(sorted);
	free(cursor);
	free(par);
	return ret;
}

/* Places v: append, or append after a copy of its critical parent. */
static int th_hcpfd_place(struct th_sched *s, unsigned int v)
{
	const struct th_dag *dag = s->dag;
	double best = INFINITY, best_start = 0, best_cs = 0;
	unsigned int p, i, j, best_p = 0, best_cp = TH_NONE, ncand;
	const unsigned int *cand;
	int ret;

	ncand = th_sched_candidates(s, v, TH_SCHED_CAND_CPARENT, true, &cand);
	for (i = 0; i < ncand; i++) {
		double iat, w, last = -1, ready = 0, st, cs, cf, st_dup;
		unsigned int cpar = TH_NONE;

		p = cand[i];
		iat = th_sched_proc_iat(s, p);
		w = th_dag_w(dag, v, p);

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
