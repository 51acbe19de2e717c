// SPDX-License-Identifier: GPL-2.0 OR MIT
/* hagd.c - HAGD (the seed's Algorithms 1 and 2): BL order, insertion or group duplication. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

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

static int th_hagd_group_place(struct th_sched *s, unsigned int v, bool early)
{
	const struct th_dag *dag = s->dag;
	struct th_sched_group_eval ev;
	unsigned int p;
	int ret;

	ret = th_sched_group_eval(s, v, early, &ev, NULL);
	if (ret)
		return ret;
	if (ev.eft1 < ev.eft2) {
		p = ev.eft1_proc;
		return th_sched_place(s, v, p,
				      fmax(th_sched_proc_iat(s, p),
					   th_sched_data_ready(s, v, p, TH_NONE)),
				      0);
	}
	/* a copy of a zero-cost virtual task carries nothing: leave it out */
	if (!dag->virt[ev.cparent]) {
		ret = th_sched_place(s, ev.cparent, ev.eft2_proc, ev.group_start,
				     TH_SCHED_SLOT_DUP);
		if (ret)
			return ret;
	}
	return th_sched_place(s, v, ev.eft2_proc, ev.task_start, 0);
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
out:
	free(list);
	return ret;
}
