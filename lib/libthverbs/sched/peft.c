// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * peft.c - PEFT (Arabnejad & Barbosa 2014): optimistic cost table,
 * rank_oct order, EFT + OCT placement; above TH_DAG_EXACT_PROCS
 * processors of the class layout, the table per ALU class and the
 * placement over th_sched_candidates().
 */
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

/*
 * The table per processor class, for the class layout's scale mode:
 * processors of one class cost every task the same, so OCT differs
 * between them only through a child pinned to one of them, whose "no
 * communication" case is taken for the whole class (optimistic, as the
 * table is).  oct[ntasks * nclasses]: O(E classes) time and memory.
 */
static bool th_peft_by_class(const struct th_dag *dag)
{
	return dag->proc_class && dag->nprocs > TH_DAG_EXACT_PROCS;
}

/* A task's cost on class @c: its pinned cost on its own class only. */
static double th_peft_class_w(const struct th_dag *dag, unsigned int t,
			      unsigned int c)
{
	if (dag->pin[t] != TH_NONE)
		return dag->proc_class[dag->pin[t]] == c ? dag->pin_w[t] : INFINITY;
	return th_dag_class_w(dag, t, c);
}

static int th_peft_oct_classes(const struct th_dag *dag, double *oct)
{
	unsigned int nc = dag->nclasses, i, j, c;
	double *best;

	best = malloc(dag->ntasks * sizeof(*best));
	if (!best)
		return -ENOMEM;
	for (i = dag->ntasks; i-- > 0;) {
		unsigned int t = dag->topo[i];
		double *row = &oct[(size_t)t * nc];

		for (c = 0; c < nc; c++)
			row[c] = 0;
		for (j = dag->succ_off[t]; j < dag->succ_off[t + 1]; j++) {
			const struct th_dag_edge *e = &dag->edges[dag->succ[j]];
			const double *srow = &oct[(size_t)e->to * nc];

			for (c = 0; c < nc; c++)
				row[c] = fmax(row[c],
					      fmin(srow[c] + th_peft_class_w(dag, e->to, c),
						   best[e->to] + e->cost));
		}
		best[t] = INFINITY;
		for (c = 0; c < nc; c++)
			best[t] = fmin(best[t], row[c] + th_peft_class_w(dag, t, c));
	}
	free(best);
	return 0;
}

/* rank_oct over classes: each class weighs as many processors as it has. */
static void th_peft_ranks_classes(const struct th_dag *dag, const double *oct,
				  double *rank)
{
	unsigned int nc = dag->nclasses, t, c;

	for (t = 0; t < dag->ntasks; t++) {
		double sum = 0, k = 0;

		for (c = 0; c < nc; c++) {
			double n = dag->pin[t] != TH_NONE ? 1 :
				   dag->class_off[c + 1] - dag->class_off[c];

			if (isinf(th_peft_class_w(dag, t, c)))
				continue;
			sum += n * oct[(size_t)t * nc + c];
			k += n;
		}
		rank[t] = k ? sum / k : 0;
	}
}

/* The table's width: processors, or classes in the scale mode. */
static unsigned int th_peft_width(const struct th_dag *dag)
{
	return th_peft_by_class(dag) ? dag->nclasses : dag->nprocs;
}

static int th_peft_table(const struct th_dag *dag, double *oct)
{
	return th_peft_by_class(dag) ? th_peft_oct_classes(dag, oct) :
				       th_peft_oct(dag, oct);
}

/* OCT(v, p) from either table. */
static double th_peft_at(const struct th_dag *dag, const double *oct,
			 unsigned int v, unsigned int p)
{
	if (th_peft_by_class(dag))
		return oct[(size_t)v * dag->nclasses + dag->proc_class[p]];
	return oct[(size_t)v * dag->nprocs + p];
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

/* The list from a computed table: decreasing rank_oct, ties by task number. */
static int th_peft_list_of(const struct th_dag *dag, const double *oct,
			   unsigned int *out)
{
	double *rank = malloc(dag->ntasks * sizeof(*rank));
	int ret;

	if (!rank)
		return -ENOMEM;
	if (th_peft_by_class(dag))
		th_peft_ranks_classes(dag, oct, rank);
	else
		th_peft_ranks(dag, oct, rank);
	ret = th_sched_list_by_rank(dag, rank, out);
	free(rank);
	return ret;
}

int th_sched_peft_list(const struct th_dag *dag, unsigned int *out)
{
	double *oct;
	int ret;

	oct = malloc((size_t)dag->ntasks * th_peft_width(dag) * sizeof(*oct));
	if (!oct)
		return -ENOMEM;
	ret = th_peft_table(dag, oct);
	if (!ret)
		ret = th_peft_list_of(dag, oct, out);
	free(oct);
	return ret;
}

/*
 * Each task to the processor with the least EFT (with insertion) + OCT:
 * every processor, or in the scale mode th_sched_candidates()'s (its
 * parents' hosts and each class's first idle one, not pruned: OCT is not
 * the EFT the pruning bounds).
 */
int th_sched_peft(struct th_sched *s)
{
	const struct th_dag *dag = s->dag;
	unsigned int i, k, n, *list;
	const unsigned int *cand;
	double *oct;
	int ret = -ENOMEM;

	oct = malloc((size_t)dag->ntasks * th_peft_width(dag) * sizeof(*oct));
	list = malloc(dag->ntasks * sizeof(*list));
	if (!oct || !list)
		goto out;
	ret = th_peft_table(dag, oct);
	if (!ret)
		ret = th_peft_list_of(dag, oct, list);
	for (i = 0; !ret && i < dag->ntasks; i++) {
		unsigned int v = list[i], best_p = 0;
		double best = INFINITY, best_start = 0;

		n = th_sched_candidates(s, v, TH_NONE, false, &cand);
		for (k = 0; k < n; k++) {
			unsigned int p = s->scaled ? cand[k] : k;
			double w = th_dag_w(dag, v, p), st, o;

			if (isinf(w))
				continue;
			st = th_sched_gap_start(s, p,
						th_sched_data_ready(s, v, p, TH_NONE), w);
			o = st + w + th_peft_at(dag, oct, v, p);
			if (o < best || (o == best && p < best_p)) {
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
