// SPDX-License-Identifier: GPL-2.0 OR MIT
/* hagd.c - HAGD (the seed's Algorithms 1 and 2): BL order, insertion or group duplication. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sched_priv.h"

struct th_hagd_key {
	const struct th_dag *dag;
	const double *bl;
};

static int th_hagd_cmp(const void *a, const void *b, void *arg)
{
	const struct th_hagd_key *k = arg;
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;
	double wx, wy;

	if (k->bl[x] != k->bl[y])
		return k->bl[x] > k->bl[y] ? -1 : 1;
	wx = th_dag_mean_cost(k->dag, x);
	wy = th_dag_mean_cost(k->dag, y);
	if (wx != wy)
		return wx > wy ? -1 : 1;
	return x < y ? -1 : x > y;
}

int th_sched_hagd_list(const struct th_dag *dag, unsigned int *out)
{
	unsigned int n = dag->ntasks, i, *raw;
	struct th_hagd_key key;
	double *bl;
	int ret = -ENOMEM;

	bl = malloc(n * sizeof(*bl));
	raw = malloc(n * sizeof(*raw));
	if (!bl || !raw)
		goto out;
	ret = th_sched_bottom_levels(dag, bl);
	if (ret)
		goto out;
	for (i = 0; i < n; i++)
		raw[i] = i;
	key.dag = dag;
	key.bl = bl;
	qsort_r(raw, n, sizeof(*raw), th_hagd_cmp, &key);
	ret = th_sched_ready_order(dag, raw, out);
out:
	free(bl);
	free(raw);
	return ret;
}

/*
 * CCR > 1 + hf(cparent) / 2.  CCR is a ratio of sums and comes out as
 * 1 + 1e-16 for a graph scaled to CCR 1, which would make the test true
 * wherever hf = 0 (a virtual cparent); the margin keeps it false there,
 * as the mathematics says.
 */
static bool th_hagd_criterion(double ccr, double hf)
{
	return ccr > 1 + hf / 2 + TH_SCHED_EPS * (1 + ccr);
}

bool th_sched_hagd_criterion(const struct th_dag *dag, unsigned int cparent)
{
	return th_hagd_criterion(th_dag_ccr(dag), th_dag_hf(dag, cparent));
}

int th_sched_cparent(const struct th_sched *s, unsigned int task)
{
	const struct th_dag *dag = s->dag;
	unsigned int j, best = TH_NONE;
	double last = -INFINITY;

	if (task >= dag->ntasks)
		return -EINVAL;
	/* the arrival at a processor holding no copy of the parent */
	for (j = dag->pred_off[task]; j < dag->pred_off[task + 1]; j++) {
		const struct th_dag_edge *e = &dag->edges[dag->pred[j]];
		double a = s->aft_min[e->from] + e->cost;

		if (isinf(a))
			return -EAGAIN;		/* a parent is not placed */
		if (a > last) {
			last = a;
			best = e->from;
		}
	}
	return best == TH_NONE ? -ENOENT : (int)best;
}

int th_sched_group_eval(const struct th_sched *s, unsigned int task,
			bool early, struct th_sched_group_eval *ev,
			double *eft_g)
{
	const struct th_dag *dag = s->dag;
	unsigned int p, i, j, cp, cp_edge = 0, ncand;
	const unsigned int *cand;
	int ret;

	ret = th_sched_cparent(s, task);
	if (ret < 0)
		return ret;
	cp = ret;
	for (j = dag->pred_off[task]; j < dag->pred_off[task + 1]; j++)
		if (dag->edges[dag->pred[j]].from == cp)
			cp_edge = dag->pred[j];
	ev->cparent = cp;
	ev->eft1 = INFINITY;
	ev->eft2 = INFINITY;
	ev->eft1_proc = 0;
	ev->eft2_proc = 0;
	ev->group_start = 0;
	ev->task_start = 0;
	/* the candidate list is scratch of the schedule's; eft_g wants all */
	ncand = eft_g ? dag->nprocs :
		th_sched_candidates((struct th_sched *)s, task, cp, true, &cand);
	for (i = 0; i < ncand; i++) {
		double iat, cp_in, others, st, gs, eft, wv, wc;

		p = eft_g ? i : cand[i];
		iat = th_sched_proc_iat(s, p);
		wv = th_dag_w(dag, task, p);
		wc = th_dag_w(dag, cp, p);

		others = th_sched_data_ready(s, task, p, cp);
		eft = fmax(iat, fmax(others, th_sched_arrival(s, cp_edge, p))) + wv;
		if (eft < ev->eft1) {
			ev->eft1 = eft;
			ev->eft1_proc = p;
		}
		cp_in = th_sched_data_ready(s, cp, p, TH_NONE);
		if (early) {
			/* hagd+: the copy starts as soon as its inputs allow */
			gs = fmax(iat, cp_in);
			st = fmax(gs + wc, others);
		} else {
			gs = fmax(iat, fmax(cp_in, others));
			st = gs + wc;
		}
		eft = st + wv;
		if (eft_g)
			eft_g[p] = eft;
		/* a processor that holds cparent gains nothing from a copy */
		if (th_sched_has_copy_on(s, cp, p))
			continue;
		if (eft < ev->eft2) {
			ev->eft2 = eft;
			ev->eft2_proc = p;
			ev->group_start = gs;
			ev->task_start = st;
		}
	}
	return 0;
}

/*
 * The insertion placement's EFT for v (HEFT's rule): what a rejected
 * duplication falls back to, so that the group branch never trades the
 * idle gaps HEFT would use for an append-only slot.  It must choose as
 * th_sched_place_best(s, v, true) does (same processors, same ties):
 * th_hagd_not_worse_than_heft() skips HEFT's rerun on that ground.
 */
static double th_hagd_insertion_eft(const struct th_sched *s, unsigned int v,
				    unsigned int *proc, double *start)
{
	const struct th_dag *dag = s->dag;
	double best = INFINITY;
	unsigned int p;

	for (p = 0; p < dag->nprocs; p++) {
		double w = th_dag_w(dag, v, p), st;

		if (isinf(w))
			continue;
		st = th_sched_gap_start(s, p, th_sched_data_ready(s, v, p, TH_NONE), w);
		if (st + w < best) {
			best = st + w;
			*proc = p;
			*start = st;
		}
	}
	return best;
}

/* One processor's group: the copied parent, where it and v start. */
struct th_hagd_group {
	unsigned int parent;
	unsigned int proc;
	double copy_start;
	double task_start;
	double eft;
};

/*
 * The group on processor p: the parent whose data reaches p last (the
 * critical parent as p sees it; a pinned task, a virtual one or one with a
 * copy on p cannot be copied there, and then nothing is gained on p),
 * copied onto p into the first idle gap that holds the copy and v back to
 * back (HAGD), or the copy as early as its own inputs allow and v after it
 * (hagd+).  Both fit the idle gaps HEFT's insertion would use, where the
 * seed appends at the processor's end: a copy in a gap starts no later.
 * @beat: a group that cannot finish before it is not worked out (false):
 * the gap searches are the expensive part, and most groups lose.
 */
static bool th_hagd_group_on(const struct th_sched *s, unsigned int v,
			     unsigned int p, bool early, double beat,
			     struct th_hagd_group *g)
{
	const struct th_dag *dag = s->dag;
	unsigned int j, cp = TH_NONE;
	double last = -INFINITY, others = 0, wc, wv, cp_in;

	wv = th_dag_w(dag, v, p);
	if (isinf(wv))
		return false;
	/*
	 * One pass: the latest arrival names the parent to copy, the latest
	 * of the others is when v's other inputs are all there (one edge per
	 * parent: th_dag_finalize() refuses duplicate edges).
	 */
	for (j = dag->pred_off[v]; j < dag->pred_off[v + 1]; j++) {
		unsigned int e = dag->pred[j];
		double a = th_sched_arrival(s, e, p);

		if (a > last) {
			others = fmax(others, last);
			last = a;
			cp = dag->edges[e].from;
		} else {
			others = fmax(others, a);
		}
	}
	if (cp == TH_NONE || dag->virt[cp] || th_sched_has_copy_on(s, cp, p))
		return false;
	wc = th_dag_w(dag, cp, p);
	if (isinf(wc))
		return false;
	cp_in = th_sched_data_ready(s, cp, p, TH_NONE);
	/* no gap can make the group finish before its inputs allow */
	if (th_time_le(beat, fmax(cp_in + wc, others) + wv))
		return false;
	g->parent = cp;
	g->proc = p;
	if (early) {
		g->copy_start = th_sched_gap_start(s, p, cp_in, wc);
		g->task_start = th_sched_gap_start(s, p,
				fmax(g->copy_start + wc, others), wv);
	} else {
		g->copy_start = th_sched_gap_start(s, p, fmax(cp_in, others),
						   wc + wv);
		g->task_start = g->copy_start + wc;
	}
	g->eft = g->task_start + wv;
	return true;
}

/*
 * Group task duplication for v, kept only when it shortens v's EFT: the
 * best group over the processors against v placed by insertion.  A tie
 * keeps the insertion placement (a copy that gains nothing only takes a
 * slot and a chain).
 */
static int th_hagd_group_place(struct th_sched *s, unsigned int v, bool early)
{
	const struct th_dag *dag = s->dag;
	struct th_hagd_group best = { .eft = INFINITY }, g;
	unsigned int p, ins_p = 0;
	double ins_start = 0, ins;
	int ret;

	ins = th_hagd_insertion_eft(s, v, &ins_p, &ins_start);
	if (isinf(ins))
		return -EINVAL;
	for (p = 0; p < dag->nprocs; p++)
		if (th_hagd_group_on(s, v, p, early, fmin(ins, best.eft), &g) &&
		    g.eft < best.eft)
			best = g;
	if (!(best.eft < ins && !th_time_le(ins, best.eft)))
		return th_sched_place(s, v, ins_p, ins_start, 0);
	ret = th_sched_place(s, best.parent, best.proc, best.copy_start,
			     TH_SCHED_SLOT_DUP);
	if (ret)
		return ret;
	return th_sched_place(s, v, best.proc, best.task_start, 0);
}

/*
 * Every duplication is kept only when it shortens its task's EFT, but a
 * greedy step that wins locally can still lose at the end (another list
 * order, a copy that takes a gap a later task wanted).  HAGD's schedule is
 * then replaced by HEFT's on the same input, and th_sched_alg_of() says
 * so: HAGD is never worse than HEFT.
 */
static int th_hagd_not_worse_than_heft(struct th_sched *s,
				       const unsigned int *list)
{
	unsigned int n = s->dag->ntasks, i, *hlist;
	struct th_sched *h;
	int ret;

	/*
	 * Without a copy, HAGD placed every task by HEFT's rule; in HEFT's
	 * order too (BL is rank_u, only the ties differ) the schedule is
	 * HEFT's: nothing to compare, and no second run.
	 */
	for (i = 0; i < s->nslots && !(s->slots[i].flags & TH_SCHED_SLOT_DUP); i++)
		;
	if (i == s->nslots) {
		hlist = malloc(n * sizeof(*hlist));
		if (!hlist)
			return -ENOMEM;
		ret = th_sched_heft_list(s->dag, hlist);
		if (!ret)
			ret = memcmp(hlist, list, n * sizeof(*hlist)) ? 1 : 0;
		free(hlist);
		if (ret <= 0)
			return ret;
	}
	h = th_sched_create(s->dag);
	if (!h)
		return -errno;
	ret = th_sched_heft(h);
	if (!ret && th_sched_makespan_of(h) < th_sched_makespan_of(s) &&
	    !th_time_le(th_sched_makespan_of(s), th_sched_makespan_of(h))) {
		h->alg = TH_SCHED_HEFT;
		th_sched_swap(s, h);
	}
	th_sched_destroy(h);
	return ret;
}

int th_sched_hagd(struct th_sched *s, bool early)
{
	const struct th_dag *dag = s->dag;
	unsigned int i, *list;
	double ccr;
	int ret;

	list = malloc(dag->ntasks * sizeof(*list));
	if (!list)
		return -ENOMEM;
	ret = th_sched_hagd_list(dag, list);
	if (ret)
		goto out;
	ccr = th_dag_ccr(dag);
	ret = th_sched_place_best(s, list[0], false);
	for (i = 1; !ret && i < dag->ntasks; i++) {
		unsigned int v = list[i];
		int cp = th_sched_cparent(s, v);

		if (cp < 0) {
			ret = cp;
			break;
		}
		if (th_hagd_criterion(ccr, th_dag_hf(dag, cp)))
			ret = th_hagd_group_place(s, v, early);
		else
			ret = th_sched_place_best(s, v, true);
	}
	if (!ret)
		ret = th_hagd_not_worse_than_heft(s, list);
out:
	free(list);
	return ret;
}
