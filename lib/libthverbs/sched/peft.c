// SPDX-License-Identifier: GPL-2.0 OR MIT
/* peft.c - PEFT (Arabnejad & Barbosa 2014): optimistic cost table, rank_oct order, EFT + OCT placement. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "sched_priv.h"

/*
 * OCT(t, p) = max over children s of min over p' of
 *	OCT(s, p') + w(s, p') + (p' != p ? c(t, s) : 0),
 * 0 for an exit task: the longest way from t's end to the exit when every
 * later task gets its best processor, t running on p.  The inner minimum
 * is min(OCT(s, p) + w(s, p), M(s) + c) with M(s) the minimum over every
 * p' (p' = p never gains from the + c), so the table costs O(E p).  A task
 * pinned away from p' has w = INFINITY there, which the minimum skips.
 * oct[ntasks * nprocs].
 */
static int th_peft_oct(const struct th_dag *dag, double *oct)
{
	unsigned int np = dag->nprocs, i, j, p;
	double *best;

	best = malloc(dag->ntasks * sizeof(*best));	/* M(s) */
	if (!best)
		return -ENOMEM;
	for (i = dag->ntasks; i-- > 0;) {
		unsigned int t = dag->topo[i];
		double *row = &oct[(size_t)t * np];

		for (p = 0; p < np; p++)
			row[p] = 0;
		for (j = dag->succ_off[t]; j < dag->succ_off[t + 1]; j++) {
			const struct th_dag_edge *e = &dag->edges[dag->succ[j]];
			const double *srow = &oct[(size_t)e->to * np];

			for (p = 0; p < np; p++)
				row[p] = fmax(row[p],
					      fmin(srow[p] + th_dag_w(dag, e->to, p),
						   best[e->to] + e->cost));
		}
		best[t] = INFINITY;
		for (p = 0; p < np; p++)
			best[t] = fmin(best[t], row[p] + th_dag_w(dag, t, p));
	}
	free(best);
	return 0;
}

/* rank_oct(t): OCT(t, p) averaged over the processors t can run on. */
static void th_peft_ranks(const struct th_dag *dag, const double *oct,
			  double *rank)
{
	unsigned int np = dag->nprocs, t, p, k;

	for (t = 0; t < dag->ntasks; t++) {
		double sum = 0;

		for (p = 0, k = 0; p < np; p++)
			if (!isinf(th_dag_w(dag, t, p))) {
				sum += oct[(size_t)t * np + p];
				k++;
			}
		rank[t] = k ? sum / k : 0;
	}
}

struct th_peft_key {
	const double *rank;
};

static int th_peft_cmp(const void *a, const void *b, void *arg)
{
	const struct th_peft_key *k = arg;
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	if (k->rank[x] != k->rank[y])
		return k->rank[x] > k->rank[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* The list from a computed table: decreasing rank_oct, ties by task number. */
static int th_peft_list_of(const struct th_dag *dag, const double *oct,
			   unsigned int *out)
{
	unsigned int n = dag->ntasks, i, *raw;
	struct th_peft_key key;
	double *rank;
	int ret = -ENOMEM;

	rank = malloc(n * sizeof(*rank));
	raw = malloc(n * sizeof(*raw));
	if (!rank || !raw)
		goto out;
	th_peft_ranks(dag, oct, rank);
	for (i = 0; i < n; i++)
		raw[i] = i;
	key.rank = rank;
	qsort_r(raw, n, sizeof(*raw), th_peft_cmp, &key);
	/* rank_oct need not fall along every edge: the tie rule keeps it a topological order */
	ret = th_sched_ready_order(dag, raw, out);
out:
	free(rank);
	free(raw);
	return ret;
}

int th_sched_peft_list(const struct th_dag *dag, unsigned int *out)
{
	double *oct;
	int ret;

	oct = malloc((size_t)dag->ntasks * dag->nprocs * sizeof(*oct));
	if (!oct)
		return -ENOMEM;
	ret = th_peft_oct(dag, oct);
	if (!ret)
		ret = th_peft_list_of(dag, oct, out);
	free(oct);
	return ret;
}

/* Each task to the processor with the least EFT (with insertion) + OCT. */
int th_sched_peft(struct th_sched *s)
{
	const struct th_dag *dag = s->dag;
	unsigned int np = dag->nprocs, i, p, *list;
	double *oct;
	int ret = -ENOMEM;

	oct = malloc((size_t)dag->ntasks * np * sizeof(*oct));
	list = malloc(dag->ntasks * sizeof(*list));
	if (!oct || !list)
		goto out;
	ret = th_peft_oct(dag, oct);
	if (!ret)
		ret = th_peft_list_of(dag, oct, list);
	for (i = 0; !ret && i < dag->ntasks; i++) {
		unsigned int v = list[i], best_p = 0;
		double best = INFINITY, best_start = 0;

		for (p = 0; p < np; p++) {
			double w = th_dag_w(dag, v, p), st, o;

			if (isinf(w))
				continue;
			st = th_sched_gap_start(s, p,
						th_sched_data_ready(s, v, p, TH_NONE), w);
			o = st + w + oct[(size_t)v * np + p];
			if (o < best) {
				best = o;
				best_p = p;
				best_start = st;
			}
		}
		ret = isinf(best) ? -EINVAL :
		      th_sched_place(s, v, best_p, best_start, 0);
	}
out:
	free(oct);
	free(list);
	return ret;
}
