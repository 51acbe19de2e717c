// SPDX-License-Identifier: GPL-2.0 OR MIT
/* sched.c - the schedule object: copies, per-processor timelines, placement. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sched_priv.h"

static const char *const th_sched_alg_names[TH_SCHED_NR_ALGS] = {
	[TH_SCHED_HEFT]		= "heft",
	[TH_SCHED_PETS]		= "pets",
	[TH_SCHED_HCPFD]	= "hcpfd",
	[TH_SCHED_HAGD]		= "hagd",
	[TH_SCHED_HAGD_PLUS]	= "hagd+",
	[TH_SCHED_PEFT]		= "peft",
	[TH_SCHED_PORTFOLIO]	= "portfolio",
};

const char *th_sched_alg_name(enum th_sched_alg alg)
{
	return (unsigned int)alg < TH_SCHED_NR_ALGS ?
	       th_sched_alg_names[alg] : NULL;
}

int th_sched_alg_from_name(const char *name)
{
	int i;

	for (i = 0; i < TH_SCHED_NR_ALGS; i++)
		if (!strcasecmp(name, th_sched_alg_names[i]))
			return i;
	return -EINVAL;
}

/* The scale mode's per-class trees of idle-after times, all 0 (idle). */
static int th_sched_trees_create(struct th_sched *s)
{
	const struct th_dag *dag = s->dag;
	unsigned int c, i, total = 0;

	s->cand_seen = calloc(dag->nprocs, sizeof(*s->cand_seen));
	s->cand_host = calloc(dag->nprocs, sizeof(*s->cand_host));
	s->class_pos = malloc(dag->nprocs * sizeof(*s->class_pos));
	s->tree_off = malloc(dag->nclasses * sizeof(*s->tree_off));
	s->tree_cap = malloc(dag->nclasses * sizeof(*s->tree_cap));
	if (!s->cand_seen || !s->cand_host || !s->class_pos || !s->tree_off || !s->tree_cap)
		return -ENOMEM;
	for (c = 0; c < dag->nclasses; c++) {
		unsigned int n = dag->class_off[c + 1] - dag->class_off[c], cap = 1;

		while (cap < n)
			cap *= 2;
		s->tree_off[c] = total;
		s->tree_cap[c] = cap;
		total += 2 * cap;
		for (i = 0; i < n; i++)
			s->class_pos[dag->class_procs[dag->class_off[c] + i]] = i;
	}
	s->iat_tree = malloc(total * sizeof(*s->iat_tree));
	if (!s->iat_tree)
		return -ENOMEM;
	for (c = 0; c < dag->nclasses; c++) {
		double *t = s->iat_tree + s->tree_off[c];
		unsigned int cap = s->tree_cap[c];
		unsigned int n = dag->class_off[c + 1] - dag->class_off[c];

		for (i = 0; i < cap; i++)
			t[cap + i] = i < n ? 0 : INFINITY;
		for (i = cap; i-- > 1;)
			t[i] = fmin(t[2 * i], t[2 * i + 1]);
	}
	return 0;
}

/* Processor @proc's timeline changed: its leaf and the minima above it. */
void th_sched_proc_changed(struct th_sched *s, unsigned int proc)
{
	unsigned int c, i;
	double *t;

	if (!s->scaled)
		return;
	c = s->dag->proc_class[proc];
	t = s->iat_tree + s->tree_off[c];

	i = s->tree_cap[c] + s->class_pos[proc];
	t[i] = th_sched_proc_iat(s, proc);
	for (i /= 2; i >= 1; i /= 2)
		t[i] = fmin(t[2 * i], t[2 * i + 1]);
}

/* Class @c's processor idle first (the lowest of equals) and its iat. */
static unsigned int th_sched_tree_first_idle(const struct th_sched *s,
					     unsigned int c, double *iat)
{
	const double *t = s->iat_tree + s->tree_off[c];
	unsigned int i = 1, cap = s->tree_cap[c];

	while (i < cap)
		i = t[2 * i] <= t[2 * i + 1] ? 2 * i : 2 * i + 1;
	*iat = t[i];
	return s->dag->class_procs[s->dag->class_off[c] + i - cap];
}

struct th_sched *th_sched_create(const struct th_dag *dag)
{
	unsigned int n, p, i;
	struct th_sched *s;

	if (!dag || !dag->finalized || !dag->nprocs) {
		errno = EINVAL;
		return NULL;
	}
	n = dag->ntasks;
	p = dag->nprocs;
	/* every task must be able to run somewhere */
	for (n = 0; n < dag->ntasks; n++)
		if (isinf(th_dag_mean_cost(dag, n))) {
			errno = EINVAL;
			return NULL;
		}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->dag = dag;
	s->cap_slots = n + 16;
	s->slots = malloc(s->cap_slots * sizeof(*s->slots));
	s->next_copy = malloc(s->cap_slots * sizeof(*s->next_copy));
	s->first_copy = malloc(n * sizeof(*s->first_copy));
	s->primary = malloc(n * sizeof(*s->primary));
	s->aft_min = malloc(n * sizeof(*s->aft_min));
	s->procs = calloc(p, sizeof(*s->procs));
	s->cand = malloc(p * sizeof(*s->cand));
	s->scaled = dag->proc_class && p > TH_DAG_EXACT_PROCS;
	s->mask_words = (p + 63) / 64;
	if (!s->scaled)
		s->copy_mask = calloc((size_t)n * s->mask_words,
				      sizeof(*s->copy_mask));
	if (!s->slots || !s->next_copy || !s->first_copy || !s->primary ||
	    !s->aft_min || !s->procs || !s->cand ||
	    (s->scaled ? th_sched_trees_create(s) : !s->copy_mask)) {
		th_sched_destroy(s);
		errno = ENOMEM;
		return NULL;
	}
	/* outside the scale mode every processor is a candidate */
	for (i = 0; !s->scaled && i < p; i++)
		s->cand[i] = i;
	memset(s->first_copy, 0xff, n * sizeof(*s->first_copy));
	memset(s->primary, 0xff, n * sizeof(*s->primary));
	for (n = 0; n < dag->ntasks; n++)
		s->aft_min[n] = INFINITY;
	s->alg = TH_SCHED_NR_ALGS;
	return s;
}

void th_sched_destroy(struct th_sched *s)
{
	unsigned int i;

	if (!s)
		return;
	if (s->procs)
		for (i = 0; i < s->dag->nprocs; i++) {
			free(s->procs[i].slots);
			th_gaps_free(&s->procs[i]);
		}
	free(s->procs);
	free(s->slots);
	free(s->next_copy);
	free(s->first_copy);
	free(s->primary);
	free(s->aft_min);
	free(s->copy_mask);
	free(s->cand);
	free(s->cand_seen);
	free(s->cand_host);
	free(s->class_pos);
	free(s->tree_off);
	free(s->tree_cap);
	free(s->iat_tree);
	free(s);
}

static bool th_slot_empty(const struct th_sched_slot *x)
{
	return !(x->finish > x->start);
}

/* The position at which a copy starting at start goes in the timeline. */
static unsigned int th_sched_proc_pos(const struct th_sched *s,
				      const struct th_sched_proc *pr,
				      double start)
{
	unsigned int lo = 0, hi = pr->n;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (s->slots[pr->slots[mid]].start <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int th_sched_place(struct th_sched *s, unsigned int task, unsigned int proc,
		   double start, unsigned int flags)
{
	const struct th_dag *dag = s->dag;
	struct th_sched_proc *pr;
	struct th_sched_slot *x;
	unsigned int pos, i, idx;
	double finish;
	bool grown;

	if (task >= dag->ntasks || proc >= dag->nprocs || !(start >= 0) ||
	    isinf(start))
		return -EINVAL;
	if (!(flags & TH_SCHED_SLOT_DUP) && s->primary[task] != TH_NONE)
		return -EEXIST;
	finish = start + th_dag_w(dag, task, proc);
	if (isinf(finish))
		return -EINVAL;	/* the task cannot run on that processor */
	pr = &s->procs[proc];
	pos = th_sched_proc_pos(s, pr, start);
	if (finish > start) {
		for (i = pos; i-- > 0;) {
			x = &s->slots[pr->slots[i]];
			if (th_slot_empty(x))
				continue;
			if (!th_time_le(x->finish, start))
				return -EBUSY;
			break;
		}
		for (i = pos; i < pr->n; i++) {
			x = &s->slots[pr->slots[i]];
			if (th_slot_empty(x))
				continue;
			if (!th_time_le(finish, x->start))
				return -EBUSY;
			break;
		}
	}
	if (s->nslots == s->cap_slots) {
		unsigned int cap = 2 * s->cap_slots;
		struct th_sched_slot *ns;
		unsigned int *nn;

		ns = realloc(s->slots, cap * sizeof(*ns));
		if (!ns)
			return -ENOMEM;
		s->slots = ns;
		nn = realloc(s->next_copy, cap * sizeof(*nn));
		if (!nn)
			return -ENOMEM;
		s->next_copy = nn;
		s->cap_slots = cap;
	}
	if (pr->n == pr->cap) {
		unsigned int cap = pr->cap ? 2 * pr->cap : 16, *ns;

		ns = realloc(pr->slots, cap * sizeof(*ns));
		if (!ns)
			return -ENOMEM;
		pr->slots = ns;
		pr->cap = cap;
	}
	grown = pr->tcap < pr->n + 1;
	if (th_gaps_reserve(pr, pr->n + 1))
		return -ENOMEM;
	idx = s->nslots++;
	x = &s->slots[idx];
	x->task = task;
	x->proc = proc;
	x->start = start;
	x->finish = finish;
	x->flags = flags & TH_SCHED_SLOT_DUP;
	/* a copy that goes before a busy slot fills an idle gap */
	for (i = pos; i < pr->n; i++)
		if (!th_slot_empty(&s->slots[pr->slots[i]])) {
			x->flags |= TH_SCHED_SLOT_INSERTED;
			break;
		}
	memmove(&pr->slots[pos + 1], &pr->slots[pos],
		(pr->n - pos) * sizeof(*pr->slots));
	pr->slots[pos] = idx;
	pr->n++;
	th_gaps_update(s, pr, grown ? 0 : pos);
	s->next_copy[idx] = s->first_copy[task];
	s->first_copy[task] = idx;
	if (!(flags & TH_SCHED_SLOT_DUP))
		s->primary[task] = idx;
	if (finish < s->aft_min[task])
		s->aft_min[task] = finish;
	if (s->copy_mask)
		s->copy_mask[(size_t)task * s->mask_words + proc / 64] |=
			1ull << (proc % 64);
	th_sched_proc_changed(s, proc);
	return 0;
}

double th_sched_arrival(const struct th_sched *s, unsigned int edge,
			unsigned int proc)
{
	const struct th_dag_edge *e = &s->dag->edges[edge];
	double best = s->aft_min[e->from] + e->cost;
	unsigned int x;

	if (!th_sched_mask_test(s, e->from, proc))
		return best;
	for (x = s->first_copy[e->from]; x != TH_NONE; x = s->next_copy[x])
		if (s->slots[x].proc == proc && s->slots[x].finish < best)
			best = s->slots[x].finish;
	return best;
}

double th_sched_data_ready(const struct th_sched *s, unsigned int v,
			   unsigned int proc, unsigned int skip_parent)
{
	const struct th_dag *dag = s->dag;
	double ready = 0;
	unsigned int j;

	for (j = dag->pred_off[v]; j < dag->pred_off[v + 1]; j++) {
		unsigned int e = dag->pred[j];

		if (dag->edges[e].from == skip_parent)
			continue;
		ready = fmax(ready, th_sched_arrival(s, e, proc));
	}
	return ready;
}

double th_sched_proc_iat(const struct th_sched *s, unsigned int proc)
{
	const struct th_sched_proc *pr = &s->procs[proc];
	double iat = 0;
	unsigned int i;

	/* the last busy slot ends last: busy slots never overlap */
	for (i = pr->n; i-- > 0;) {
		const struct th_sched_slot *x = &s->slots[pr->slots[i]];

		iat = fmax(iat, x->finish);
		if (!th_slot_empty(x))
			break;
	}
	return iat;
}

/* Where the walk over @pr's timeline for a start >= @ready begins. */
static unsigned int th_sched_walk_from(const struct th_sched *s,
				       const struct th_sched_proc *pr,
				       double ready)
{
	unsigned int i;

	/*
	 * Busy slots do not overlap, so of those that start before ready only
	 * the last one can still run at ready: start the scan there.
	 */
	i = th_sched_proc_pos(s, pr, ready);
	while (i > 0 && th_slot_empty(&s->slots[pr->slots[i - 1]]))
		i--;
	if (i > 0)
		i--;
	return i;
}

/*
 * The earliest start >= @ready of a copy lasting @dur on @proc that
 * overlaps no busy slot: the first idle gap long enough (insertion), else
 * after the last busy slot.  The walk over the timeline; with @indexed,
 * once its running start has passed @ready, the gap index (gaps.c)
 * proposes the candidates instead, judged the same way.
 */
static double th_sched_gap_walk(const struct th_sched *s, unsigned int proc,
				double ready, double dur, bool indexed)
{
	const struct th_sched_proc *pr = &s->procs[proc];
	double t = ready;
	unsigned int i;

	for (i = th_sched_walk_from(s, pr, ready); i < pr->n; i++) {
		const struct th_sched_slot *x = &s->slots[pr->slots[i]];

		if (th_slot_empty(x) || x->finish <= t)
			continue;
		if (th_time_le(t + dur, x->start))
			return t;
		t = fmax(t, x->finish);
		if (indexed && t > ready)
			return th_gaps_first_fit(s, pr, i + 1, t, dur);
	}
	return t;
}

/* The plain walk: the reference the index is tested against. */
double th_sched_gap_start_linear(const struct th_sched *s, unsigned int proc,
				 double ready, double dur)
{
	return th_sched_gap_walk(s, proc, ready, dur, false);
}

double th_sched_gap_start(const struct th_sched *s, unsigned int proc,
			  double ready, double dur)
{
	return th_sched_gap_walk(s, proc, ready, dur, true);
}

bool th_sched_has_copy_on(const struct th_sched *s, unsigned int task,
			  unsigned int proc)
{
	return th_sched_mask_test(s, task, proc);
}

/* Adds @p to the candidate list unless it is on it already. */
static void th_sched_cand_add(struct th_sched *s, unsigned int *n,
			      unsigned int p)
{
	if (s->cand_seen[p] == s->stamp)
		return;
	s->cand_seen[p] = s->stamp;
	s->cand[(*n)++] = p;
}

/*
 * The processors holding a copy of a parent of @v.  A free edge (cost 0,
 * as into the virtual exit) brings its data as early everywhere: its
 * parent's hosts gain nothing and are left out.
 */
static void th_sched_cand_hosts(struct th_sched *s, unsigned int *n,
				unsigned int v)
{
	const struct th_dag *dag = s->dag;
	unsigned int j, x;

	for (j = dag->pred_off[v]; j < dag->pred_off[v + 1]; j++)
		if (dag->edges[dag->pred[j]].cost > 0)
			for (x = s->first_copy[dag->edges[dag->pred[j]].from];
			     x != TH_NONE; x = s->next_copy[x]) {
				th_sched_cand_add(s, n, s->slots[x].proc);
				s->cand_host[s->slots[x].proc] = s->stamp;
			}
}

/* Lists longer than this stay in the order found (hosts, then classes). */
#define TH_SCHED_CAND_SORTED	64

static int th_sched_cand_cmp(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

/* The data-ready time of @v off its parents' hosts, and its latest parent. */
static double th_sched_r0(const struct th_sched *s, unsigned int v,
			  unsigned int *crit)
{
	const struct th_dag *dag = s->dag;
	double r0 = 0, last = -1;
	unsigned int j;

	*crit = TH_NONE;
	for (j = dag->pred_off[v]; j < dag->pred_off[v + 1]; j++) {
		const struct th_dag_edge *e = &dag->edges[dag->pred[j]];
		double a = s->aft_min[e->from] + e->cost;

		r0 = fmax(r0, a);
		if (a > last) {	/* the first of equals, as hcpfd.c picks */
			last = a;
			*crit = e->from;
		}
	}
	return r0;
}

/*
 * The processors worth evaluating for task @v, ascending when few: outside
 * the scale mode all of them.  In it (Documentation/placement.rst,
 * "Scale"): a pinned task's processor; else the processors holding a copy
 * of a parent of @v, where data may be there early, and per class the
 * processor idle first.  Every other processor gets @v's data at the same
 * time r0 and differs only by when it is free, so it cannot beat its
 * class's first idle one when appending; inserting, it may (an idle gap on
 * a busier processor): that part is a heuristic.
 *
 * @also is a parent that may be copied along (duplication), or
 * TH_SCHED_CAND_CPARENT for the one whose data comes last off the hosts,
 * or TH_NONE: its parents' hosts and its pinned processor join the list.
 * With @prune, and costs non-decreasing by class, the classes stop once
 * their lower bound, r0 + w(v) (or, copying @also first, its r0 + w(also)
 * + w(v)), exceeds what an earlier class's first idle processor achieves.
 */
/*
 * A new list for free task @v (scale mode): the parents' hosts (and
 * @also's), r0 in s->cand_r0; returns their count, @also resolved.
 */
static unsigned int th_sched_cand_start(struct th_sched *s, unsigned int v,
					unsigned int *also, double *r0_also)
{
	const struct th_dag *dag = s->dag;
	unsigned int n = 0, crit;

	if (++s->stamp == 0) {	/* wrapped: no list holds anything */
		memset(s->cand_seen, 0, dag->nprocs * sizeof(*s->cand_seen));
		memset(s->cand_host, 0, dag->nprocs * sizeof(*s->cand_host));
		s->stamp = 1;
	}
	/* what th_sched_data_ready() finds on a processor hosting no parent */
	s->cand_r0 = th_sched_r0(s, v, &crit);
	if (*also == TH_SCHED_CAND_CPARENT)
		*also = crit;
	*r0_also = INFINITY;
	th_sched_cand_hosts(s, &n, v);
	if (*also != TH_NONE) {
		th_sched_cand_hosts(s, &n, *also);
		if (dag->pin[*also] != TH_NONE)
			th_sched_cand_add(s, &n, dag->pin[*also]);
		else
			*r0_also = th_sched_r0(s, *also, &crit);
	}
	return n;
}

unsigned int th_sched_candidates(struct th_sched *s, unsigned int v,
				 unsigned int also, bool prune,
				 const unsigned int **out)
{
	const struct th_dag *dag = s->dag;
	unsigned int n = 0, c;
	double r0, r0_also, bound = INFINITY;

	*out = s->cand;
	if (!s->scaled)
		return dag->nprocs;
	if (dag->pin[v] != TH_NONE) {
		s->cand[n++] = dag->pin[v];
		return n;
	}
	n = th_sched_cand_start(s, v, &also, &r0_also);
	r0 = s->cand_r0;
	prune = prune && dag->class_sorted;
	for (c = 0; c < dag->nclasses; c++) {
		double w = th_dag_class_w(dag, v, c), iat, lb = r0 + w;
		unsigned int p;

		if (isinf(w))
			continue;
		if (!isinf(r0_also))
			lb = fmin(lb, r0_also + th_dag_class_w(dag, also, c) + w);
		/* classes cost no less from here on: none can beat bound */
		if (prune && lb > bound)
			break;
		p = th_sched_tree_first_idle(s, c, &iat);
		bound = fmin(bound, fmax(r0, iat) + w);
		th_sched_cand_add(s, &n, p);
	}
	/* small lists in processor order, as the exhaustive scan meets them */
	if (n <= TH_SCHED_CAND_SORTED)
		qsort(s->cand, n, sizeof(*s->cand), th_sched_cand_cmp);
	return n;
}

struct th_sched_best {
	double eft, start;
	unsigned int p;
};

/* Task @v on processor @p: kept in @b if it finishes first (ties: lowest p). */
static void th_sched_try(struct th_sched *s, unsigned int v, unsigned int p,
			 bool insertion, struct th_sched_best *b)
{
	const struct th_dag *dag = s->dag;
	double r, st, eft, w, iat;

	/* off the parents' hosts, data is ready at the list's r0 */
	r = s->scaled && dag->pin[v] == TH_NONE &&
	    s->cand_host[p] != s->stamp ? s->cand_r0 :
	    th_sched_data_ready(s, v, p, TH_NONE);
	w = th_dag_w(dag, v, p);
	iat = th_sched_proc_iat(s, p);
	/* idle from r on: no gap to look for (the same start, no search) */
	st = insertion && iat > r ? th_sched_gap_start(s, p, r, w) :
				    fmax(r, iat);
	eft = st + w;
	if (eft < b->eft || (eft == b->eft && p < b->p)) {
		b->eft = eft;
		b->start = st;
		b->p = p;
	}
}

int th_sched_place_best(struct th_sched *s, unsigned int v, bool insertion)
{
	const struct th_dag *dag = s->dag;
	struct th_sched_best b = { .eft = INFINITY };
	unsigned int i, ncand, c, also = TH_NONE;
	const unsigned int *cand;
	double r0_also;

	if (!s->scaled || dag->pin[v] != TH_NONE || !dag->class_sorted) {
		ncand = th_sched_candidates(s, v, TH_NONE, true, &cand);
		for (i = 0; i < ncand; i++)
			th_sched_try(s, v, cand[i], insertion, &b);
	} else {
		/*
		 * The hosts first, then the classes, fastest first, until one
		 * cannot beat the best finish so far even starting at r0: the
		 * list th_sched_candidates() makes, pruned by the actual best
		 * (the same choice, fewer evaluations).
		 */
		ncand = th_sched_cand_start(s, v, &also, &r0_also);
		for (i = 0; i < ncand; i++)
			th_sched_try(s, v, s->cand[i], insertion, &b);
		for (c = 0; c < dag->nclasses; c++) {
			double w = th_dag_class_w(dag, v, c), iat;
			unsigned int p;

			if (isinf(w))
				continue;
			if (s->cand_r0 + w > b.eft)
				break;
			p = th_sched_tree_first_idle(s, c, &iat);
			if (s->cand_seen[p] != s->stamp)
				th_sched_try(s, v, p, insertion, &b);
		}
	}
	if (isinf(b.eft))
		return -EINVAL;
	return th_sched_place(s, v, b.p, b.start, 0);
}

/* The one processor @task can run on, or TH_NONE when it is not pinned. */
static unsigned int th_sched_pinned_to(const struct th_dag *dag,
				       unsigned int task)
{
	unsigned int p, on = TH_NONE;

	for (p = 0; p < dag->nprocs; p++) {
		if (isinf(th_dag_w(dag, task, p)))
			continue;
		if (on != TH_NONE)
			return TH_NONE;
		on = p;
	}
	return on;
}

/*
 * The placer's compositions (place/compose.c) order tasks across jobs by
 * rules of their own and hold a job's tasks back to its release time; the
 * placement step is the list schedulers' own: insertion, earliest finish.
 * On a tie the processor that children are pinned to wins: a combining
 * step whose inputs all come from elsewhere finishes at the same time on
 * many nodes, and only the one its delivery is pinned to saves the hop
 * after it (the lowest index would take any of them).
 */
int th_sched_place_eft(struct th_sched *s, unsigned int task,
		       double not_before)
{
	const struct th_dag *dag = s ? s->dag : NULL;
	double best = INFINITY, best_start = 0;
	unsigned int p, best_p = 0, best_pins = 0, *pin = NULL, npin = 0, j, k;
	int ret;

	if (!dag || task >= dag->ntasks || !(not_before >= 0) ||
	    isinf(not_before))
		return -EINVAL;
	if (s->primary[task] != TH_NONE)
		return -EEXIST;
	j = dag->succ_off[task + 1] - dag->succ_off[task];
	if (j) {
		pin = malloc(j * sizeof(*pin));
		if (!pin)
			return -ENOMEM;
		for (j = dag->succ_off[task]; j < dag->succ_off[task + 1]; j++) {
			p = th_sched_pinned_to(dag, dag->edges[dag->succ[j]].to);
			if (p != TH_NONE)
				pin[npin++] = p;
		}
	}
	for (p = 0; p < dag->nprocs; p++) {
		double w = th_dag_w(dag, task, p), r, st, eft;
		unsigned int pins = 0;
		bool better;

		if (isinf(w))
			continue;
		r = fmax(not_before, th_sched_data_ready(s, task, p, TH_NONE));
		st = th_sched_gap_start(s, p, r, w);
		eft = st + w;
		for (k = 0; k < npin; k++)
			pins += pin[k] == p;
		if (isinf(best))
			better = true;
		else if (th_time_le(eft, best) && th_time_le(best, eft))
			better = pins > best_pins;	/* a tie */
		else
			better = eft < best;
		if (better) {
			best = eft;
			best_start = st;
			best_p = p;
			best_pins = pins;
		}
	}
	free(pin);
	if (isinf(best))
		return -EINVAL;
	ret = th_sched_place(s, task, best_p, best_start, 0);
	return ret ? ret : (int)best_p;
}

/* A binary min-heap of task ids keyed by their position in the list. */
static void th_heap_push(unsigned int *h, unsigned int *n,
			 const unsigned int *key, unsigned int v)
{
	unsigned int i = (*n)++;

	while (i && key[h[(i - 1) / 2]] > key[v]) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = v;
}

static unsigned int th_heap_pop(unsigned int *h, unsigned int *n,
				const unsigned int *key)
{
	unsigned int top = h[0], v = h[--*n], i = 0;

	for (;;) {
		unsigned int c = 2 * i + 1;

		if (c >= *n)
			break;
		if (c + 1 < *n && key[h[c + 1]] < key[h[c]])
			c++;
		if (key[h[c]] >= key[v])
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n)
		h[i] = v;
	return top;
}

/*
 * The tie rule (Documentation/scheduler.rst, "The model as implemented"):
 * the next task is the first one in the list whose parents are all placed.
 * Equivalently, the ready task with the smallest list position.
 */
int th_sched_ready_order(const struct th_dag *dag, const unsigned int *list,
			 unsigned int *out)
{
	unsigned int n = dag->ntasks, i, j, nh = 0, k = 0;
	unsigned int *pos, *indeg, *heap;
	int ret = -ENOMEM;

	pos = malloc(n * sizeof(*pos));
	indeg = calloc(n, sizeof(*indeg));
	heap = malloc(n * sizeof(*heap));
	if (!pos || !indeg || !heap)
		goto out;
	ret = -EINVAL;
	memset(pos, 0xff, n * sizeof(*pos));
	for (i = 0; i < n; i++) {
		if (list[i] >= n || pos[list[i]] != TH_NONE)
			goto out;
		pos[list[i]] = i;
	}
	for (i = 0; i < n; i++) {
		indeg[i] = dag->pred_off[i + 1] - dag->pred_off[i];
		if (!indeg[i])
			th_heap_push(heap, &nh, pos, i);
	}
	while (nh) {
		unsigned int v = th_heap_pop(heap, &nh, pos);

		out[k++] = v;
		for (j = dag->succ_off[v]; j < dag->succ_off[v + 1]; j++) {
			unsigned int c = dag->edges[dag->succ[j]].to;

			if (!--indeg[c])
				th_heap_push(heap, &nh, pos, c);
		}
	}
	ret = k == n ? 0 : -ELOOP;
out:
	free(pos);
	free(indeg);
	free(heap);
	return ret;
}

/* Decreasing @rank, ties by task number (qsort_r's comparator). */
static int th_sched_rank_cmp(const void *a, const void *b, void *arg)
{
	const double *rank = arg;
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	if (rank[x] != rank[y])
		return rank[x] > rank[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

int th_sched_list_by_rank(const struct th_dag *dag, const double *rank,
			  unsigned int *out)
{
	unsigned int n = dag->ntasks, i, *raw = malloc(n * sizeof(*raw));
	int ret;

	if (!raw)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		raw[i] = i;
	qsort_r(raw, n, sizeof(*raw), th_sched_rank_cmp, (void *)rank);
	/* a rank need not fall along every edge: the tie rule keeps the order topological */
	ret = th_sched_ready_order(dag, raw, out);
	free(raw);
	return ret;
}

int th_sched_list(const struct th_dag *dag, enum th_sched_alg alg,
		  unsigned int *out)
{
	if (!dag->finalized || !dag->nprocs)
		return -EINVAL;
	switch (alg) {
	case TH_SCHED_HEFT:
		return th_sched_heft_list(dag, out);
	case TH_SCHED_PETS:
		return th_sched_pets_list(dag, out);
	case TH_SCHED_HCPFD:
		return th_sched_hcpfd_list(dag, out);
	case TH_SCHED_HAGD:
	case TH_SCHED_HAGD_PLUS:
		return th_sched_hagd_list(dag, out);
	case TH_SCHED_PEFT:
		return th_sched_peft_list(dag, out);
	default:	/* a portfolio has no list of its own */
		return -EINVAL;
	}
}

struct th_sched *th_sched_run(const struct th_dag *dag, enum th_sched_alg alg)
{
	struct th_sched *s;
	int ret;

	if ((unsigned int)alg >= TH_SCHED_NR_ALGS) {
		errno = EINVAL;
		return NULL;
	}
	s = th_sched_create(dag);
	if (!s)
		return NULL;
	s->alg = alg;
	switch (alg) {
	case TH_SCHED_HEFT:
		ret = th_sched_heft(s);
		break;
	case TH_SCHED_PETS:
		ret = th_sched_pets(s);
		break;
	case TH_SCHED_HCPFD:
		ret = th_sched_hcpfd(s);
		break;
	case TH_SCHED_HAGD:
		ret = th_sched_hagd(s, false);
		break;
	case TH_SCHED_HAGD_PLUS:
		ret = th_sched_hagd(s, true);
		break;
	case TH_SCHED_PEFT:
		ret = th_sched_peft(s);
		break;
	default:
		ret = th_sched_portfolio(s);
		break;
	}
	if (ret) {
		th_sched_destroy(s);
		errno = -ret;
		return NULL;
	}
	return s;
}

unsigned int th_sched_nslots(const struct th_sched *s)
{
	return s->nslots;
}

const struct th_sched_slot *th_sched_slot(const struct th_sched *s,
					  unsigned int i)
{
	return i < s->nslots ? &s->slots[i] : NULL;
}

int th_sched_alg_of(const struct th_sched *s)
{
	return s->alg < TH_SCHED_NR_ALGS ? (int)s->alg : -ENOENT;
}

int th_sched_primary(const struct th_sched *s, unsigned int task)
{
	if (task >= s->dag->ntasks || s->primary[task] == TH_NONE)
		return -ENOENT;
	return (int)s->primary[task];
}

const struct th_dag *th_sched_dag(const struct th_sched *s)
{
	return s->dag;
}
