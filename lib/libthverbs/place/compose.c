// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * compose.c - composing several jobs into one schedule (thverbs/place.h,
 * Documentation/placement.rst "Fairness between jobs"): Zhao and
 * Sakellariou's four compositions of multiple DAGs (IPDPS 2006) and their
 * fairness policy, two of ours (priority-weighted ranks, least laxity to
 * a deadline), a job's release time, and the slowdown-bounded policy that
 * tries them all, then moves the deadlines of the jobs that miss the bound
 * and raises the priority of the most slowed job until the bound holds.
 *
 * Every composition is a list scheduler over the merged DAG that differs
 * only in which ready task it places next; each task then goes where it
 * finishes earliest, with insertion (th_sched_place_eft()), never before
 * its job's release.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "place_priv.h"

static const char *const th_place_compose_names[TH_PLACE_COMPOSE_NR] = {
	[TH_PLACE_COMPOSE_MERGED]	= "merged",
	[TH_PLACE_COMPOSE_SEQUENTIAL]	= "sequential",
	[TH_PLACE_COMPOSE_LEVEL]	= "level",
	[TH_PLACE_COMPOSE_ALTERNATING]	= "alternating",
	[TH_PLACE_COMPOSE_FAIR]		= "fair",
	[TH_PLACE_COMPOSE_WEIGHTED]	= "weighted",
	[TH_PLACE_COMPOSE_LAXITY]	= "laxity",
	[TH_PLACE_COMPOSE_BEST]		= "best",
};

const char *th_place_compose_name(enum th_place_compose c)
{
	return (unsigned int)c < TH_PLACE_COMPOSE_NR ?
	       th_place_compose_names[c] : NULL;
}

int th_place_compose_from_name(const char *name)
{
	int i;

	for (i = 0; name && i < TH_PLACE_COMPOSE_NR; i++)
		if (!strcmp(name, th_place_compose_names[i]))
			return i;
	return -EINVAL;
}

double th_place_jain(const double *x, unsigned int n)
{
	double sum = 0, sq = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		sum += x[i];
		sq += x[i] * x[i];
	}
	return n && sq > 0 ? sum * sum / (n * sq) : 1;
}

/* The ready rule of one schedule: which ready task goes next. */
enum th_compose_rule {
	TH_RULE_LIST = TH_PLACE_COMPOSE_MERGED,	/* the algorithm's list order */
	TH_RULE_SEQUENTIAL = TH_PLACE_COMPOSE_SEQUENTIAL,
	TH_RULE_LEVEL = TH_PLACE_COMPOSE_LEVEL,
	TH_RULE_ALTERNATING = TH_PLACE_COMPOSE_ALTERNATING,
	TH_RULE_FAIR = TH_PLACE_COMPOSE_FAIR,
	TH_RULE_WEIGHTED = TH_PLACE_COMPOSE_WEIGHTED,
	TH_RULE_LAXITY = TH_PLACE_COMPOSE_LAXITY,
};

struct th_compose {
	const struct th_place_jobs *j;
	const struct th_dag *dag;
	const struct th_place_task *task;
	enum th_sched_alg alg;
	unsigned int n, njobs;
	unsigned int *first;		/* per job: its first task (contiguous) */
	unsigned int *count;		/* per job: its tasks */
	unsigned int *order;		/* jobs by priority, release, index */
	double *pos;			/* per task: place in the list order */
	double *level;			/* per task: hops from its job's entry */
	double *bl;			/* per task: bottom level */
	double *alone_task;		/* per task: its finish placed alone */
	unsigned int *succ_off;		/* per task: its children, CSR */
	unsigned int *succ;
	unsigned int *indeg0;		/* per task: its parents */
	double *blmin, *blmax;		/* per job: over its tasks' bl */
	const double *alone;		/* per job: its makespan alone */
};

/* A min-heap of task ids on @key, over the storage @h. */
static void th_compose_push(unsigned int *h, unsigned int *n, const double *key,
			    unsigned int v)
{
	unsigned int i = (*n)++;

	while (i && (key[h[(i - 1) / 2]] > key[v] ||
		     (key[h[(i - 1) / 2]] == key[v] && h[(i - 1) / 2] > v))) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = v;
}

static bool th_compose_less(const double *key, unsigned int a, unsigned int b)
{
	return key[a] < key[b] || (key[a] == key[b] && a < b);
}

static unsigned int th_compose_pop(unsigned int *h, unsigned int *n,
				   const double *key)
{
	unsigned int top = h[0], v = h[--*n], i = 0;

	for (;;) {
		unsigned int c = 2 * i + 1;

		if (c >= *n)
			break;
		if (c + 1 < *n && th_compose_less(key, h[c + 1], h[c]))
			c++;
		if (!th_compose_less(key, h[c], v))
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n)
		h[i] = v;
	return top;
}

static int th_compose_job_cmp(const void *a, const void *b, void *arg)
{
	const struct th_place_jobs *j = arg;
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;
	const struct th_place_job *jx = &j->jobs[x], *jy = &j->jobs[y];

	if (jx->priority != jy->priority)
		return jx->priority > jy->priority ? -1 : 1;
	if (jx->release != jy->release)
		return jx->release < jy->release ? -1 : 1;
	return x < y ? -1 : x > y;
}

static void th_compose_free(struct th_compose *c)
{
	free(c->first);
	free(c->order);
	free(c->pos);
	free(c->level);
	free(c->bl);
	free(c->alone_task);
	free(c->succ_off);
	free(c->succ);
	free(c->indeg0);
	free(c->blmin);
}

/* Children per task, and parents counted: the public DAG lists edges only. */
static int th_compose_succ(struct th_compose *c)
{
	unsigned int n = c->n, ne = th_dag_nedges(c->dag), e, from, to, *fill;

	c->succ_off = calloc(n + 1, sizeof(*c->succ_off));
	c->succ = malloc((ne ? ne : 1) * sizeof(*c->succ));
	c->indeg0 = calloc(n, sizeof(*c->indeg0));
	fill = calloc(n, sizeof(*fill));
	if (!c->succ_off || !c->succ || !c->indeg0 || !fill) {
		free(fill);
		return -ENOMEM;
	}
	for (e = 0; e < ne; e++) {
		if (th_dag_edge(c->dag, e, &from, &to, NULL))
			continue;
		c->succ_off[from + 1]++;
		c->indeg0[to]++;
	}
	for (e = 0; e < n; e++)
		c->succ_off[e + 1] += c->succ_off[e];
	for (e = 0; e < ne; e++) {
		if (!th_dag_edge(c->dag, e, &from, &to, NULL))
			c->succ[c->succ_off[from] + fill[from]++] = to;
	}
	free(fill);
	return 0;
}

/* The orders and levels every rule needs, from the merged DAG. */
static int th_compose_init(struct th_compose *c, const struct th_place_jobs *j,
			   const struct th_dag *dag,
			   const struct th_place_task *task,
			   enum th_sched_alg alg)
{
	unsigned int n = th_dag_ntasks(dag), i, k, *list;
	int ret;

	memset(c, 0, sizeof(*c));
	c->j = j;
	c->dag = dag;
	c->task = task;
	c->alg = alg;
	c->n = n;
	c->njobs = j->njobs;
	c->first = malloc(2 * (size_t)j->njobs * sizeof(*c->first));
	c->order = malloc(j->njobs * sizeof(*c->order));
	c->pos = malloc(n * sizeof(*c->pos));
	c->level = calloc(n, sizeof(*c->level));
	c->bl = malloc(n * sizeof(*c->bl));
	c->blmin = malloc(2 * (size_t)j->njobs * sizeof(*c->blmin));
	list = malloc(n * sizeof(*list));
	if (!c->first || !c->order || !c->pos || !c->level || !c->bl ||
	    !c->blmin || !list) {
		free(list);
		th_compose_free(c);
		return -ENOMEM;
	}
	c->count = c->first + j->njobs;
	for (i = 0; i < j->njobs; i++) {
		c->first[i] = TH_PLACE_ANY;
		c->count[i] = 0;
		c->order[i] = i;
	}
	for (i = 0; i < n; i++) {
		k = task[i].job;
		if (k >= j->njobs)
			continue;
		if (c->first[k] == TH_PLACE_ANY)
			c->first[k] = i;
		c->count[k]++;
	}
	qsort_r(c->order, j->njobs, sizeof(*c->order), th_compose_job_cmp,
		(void *)j);
	/*
	 * The portfolio keeps the best of the others' schedules and has no
	 * list of its own: a composition orders its tasks by HEFT's, the
	 * upward rank.
	 */
	ret = th_sched_list(dag, alg == TH_SCHED_PORTFOLIO ? TH_SCHED_HEFT : alg,
			    list);
	if (!ret)
		ret = th_sched_bottom_levels(dag, c->bl);
	if (!ret)
		ret = th_compose_succ(c);
	if (!ret) {
		c->blmax = c->blmin + j->njobs;
		for (i = 0; i < j->njobs; i++) {
			c->blmin[i] = INFINITY;
			c->blmax[i] = 0;
		}
		for (i = 0; i < n; i++) {
			k = task[i].job;
			if (k >= j->njobs)
				continue;
			c->blmin[k] = fmin(c->blmin[k], c->bl[i]);
			c->blmax[k] = fmax(c->blmax[k], c->bl[i]);
		}
		for (i = 0; i < n; i++)
			c->pos[list[i]] = i;
		/*
		 * The list is topological: a parent's level is final before
		 * its children read it.  Virtual tasks do not count: a job's
		 * entries are at level 0.
		 */
		for (i = 0; i < n; i++) {
			unsigned int v = list[i];

			if (th_dag_is_virtual(dag, v))
				continue;
			for (k = c->succ_off[v]; k < c->succ_off[v + 1]; k++)
				c->level[c->succ[k]] = fmax(c->level[c->succ[k]],
							    c->level[v] + 1);
		}
	}
	free(list);
	if (ret)
		th_compose_free(c);
	return ret;
}

/*
 * Each task's finish with its job placed alone (the FAIR rule's yardstick):
 * the job's DAG scheduled by the algorithm, its tasks numbered as in the
 * merged DAG from the job's first.
 */
static int th_compose_alone_tasks(struct th_compose *c,
				  const struct th_place_model *m)
{
	unsigned int i, t, k;
	int ret = 0;

	c->alone_task = calloc(c->n, sizeof(*c->alone_task));
	if (!c->alone_task)
		return -ENOMEM;
	for (i = 0; !ret && i < c->njobs; i++) {
		struct th_dag *dag = th_place_build(c->j, m, TH_PLACE_SCHEDULED,
						    i, NULL, NULL);
		struct th_sched *s = dag ? th_sched_run(dag, c->alg) : NULL;

		if (!s) {
			ret = -errno;
			th_dag_destroy(dag);
			break;
		}
		for (t = 0; t < c->count[i]; t++)
			c->alone_task[c->first[i] + t] = INFINITY;
		for (k = 0; k < th_sched_nslots(s); k++) {
			const struct th_sched_slot *x = th_sched_slot(s, k);

			if (x->task < c->count[i])
				c->alone_task[c->first[i] + x->task] =
					fmin(c->alone_task[c->first[i] + x->task],
					     x->finish);
		}
		th_sched_destroy(s);
		th_dag_destroy(dag);
	}
	return ret;
}

/*
 * One schedule of the merged DAG under @rule; @weight per job for the
 * FAIR and WEIGHTED rules (NULL: the priorities).
 */
static struct th_sched *th_compose_schedule(const struct th_compose *c,
					    enum th_compose_rule rule,
					    const double *weight)
{
	const struct th_dag *dag = c->dag;
	unsigned int n = c->n, nj = c->njobs, i, k, v, e;
	unsigned int *indeg, *heap, *hn, *virt, nvirt = 0, placed = 0, rr = 0;
	unsigned int *nplaced;
	double *key, *fin_multi, *fin_alone;
	struct th_sched *s = th_sched_create(dag);
	bool global = rule == TH_RULE_LIST || rule == TH_RULE_LEVEL ||
		      rule == TH_RULE_WEIGHTED || rule == TH_RULE_LAXITY;
	int ret = -ENOMEM;

	if (!s)
		return NULL;
	indeg = calloc(n, sizeof(*indeg));
	heap = malloc(n * sizeof(*heap));
	hn = calloc(nj + 1, sizeof(*hn));
	virt = malloc(n * sizeof(*virt));
	key = malloc(n * sizeof(*key));
	fin_multi = calloc(2 * (size_t)nj, sizeof(*fin_multi));
	nplaced = calloc(nj, sizeof(*nplaced));
	if (!indeg || !heap || !hn || !virt || !key || !fin_multi || !nplaced)
		goto out;
	fin_alone = fin_multi + nj;
	for (v = 0; v < n; v++) {
		k = c->task[v].job;
		switch (rule) {
		case TH_RULE_LEVEL:
			key[v] = c->level[v] * n + c->pos[v];
			break;
		case TH_RULE_LAXITY:
			/*
			 * The latest start that still meets the job's deadline
			 * (@weight, or its release plus its time alone over its
			 * priority); virtual tasks first
			 */
			key[v] = k >= nj ? -INFINITY :
				 (weight ? weight[k] : c->j->jobs[k].release +
				  c->alone[k] / c->j->jobs[k].priority) - c->bl[v];
			break;
		case TH_RULE_WEIGHTED:
			key[v] = -(k >= nj ? 1 : weight ? weight[k] :
				   c->j->jobs[k].priority) * c->bl[v];
			break;
		default:
			key[v] = c->pos[v];
		}
	}
	memcpy(indeg, c->indeg0, n * sizeof(*indeg));
	/*
	 * Ready tasks wait in one heap (global rules) or in their job's
	 * (storage: the job's own task range); virtual ones go first.
	 */
#define TH_HEAP_OF(job)	(global ? heap : heap + c->first[job])
#define TH_HN_OF(job)	(global ? &hn[nj] : &hn[job])
	for (v = 0; v < n; v++) {
		if (indeg[v])
			continue;
		k = c->task[v].job;
		if (k >= nj)
			virt[nvirt++] = v;
		else
			th_compose_push(TH_HEAP_OF(k), TH_HN_OF(k), key, v);
	}
	ret = 0;
	while (!ret && placed < n) {
		unsigned int job = TH_PLACE_ANY;
		double not_before = 0;

		if (nvirt) {
			v = virt[--nvirt];
		} else if (global) {
			if (!hn[nj]) {
				ret = -EPROTO;
				break;
			}
			v = th_compose_pop(heap, &hn[nj], key);
		} else {
			switch (rule) {
			case TH_RULE_SEQUENTIAL:
				for (i = 0; i < nj && !hn[c->order[i]]; i++)
					;
				job = i < nj ? c->order[i] : TH_PLACE_ANY;
				break;
			case TH_RULE_ALTERNATING:
				for (i = 0; i < nj && !hn[c->order[(rr + i) % nj]]; i++)
					;
				if (i < nj) {
					job = c->order[(rr + i) % nj];
					rr = (rr + i + 1) % nj;
				}
				break;
			default: {	/* FAIR */
				double best = -1, sd, done, best_done = 2;

				for (i = 0; i < nj; i++) {
					k = c->order[i];
					if (!hn[k])
						continue;
					/* not started yet: the most slowed */
					sd = fin_alone[k] > 0 ?
					     (fin_multi[k] - c->j->jobs[k].release) /
					     fin_alone[k] : INFINITY;
					sd *= weight ? weight[k] : c->j->jobs[k].priority;
					/*
					 * Equally slowed so far (all on time, at
					 * first): the job least far along goes,
					 * or the first would take every turn
					 */
					done = (double)nplaced[k] / c->count[k];
					if (sd > best * (1 + 1e-12) ||
					    (sd >= best * (1 - 1e-12) && done < best_done)) {
						best = sd;
						best_done = done;
						job = k;
					}
				}
			}
			}
			if (job == TH_PLACE_ANY) {
				ret = -EPROTO;
				break;
			}
			v = th_compose_pop(heap + c->first[job], &hn[job], key);
		}
		k = c->task[v].job;
		if (k < nj)
			not_before = c->j->jobs[k].release;
		ret = th_sched_place_eft(s, v, not_before);
		if (ret < 0)
			break;
		ret = 0;
		placed++;
		if (k < nj) {
			const struct th_sched_slot *x =
				th_sched_slot(s, th_sched_nslots(s) - 1);

			fin_multi[k] = fmax(fin_multi[k], x->finish);
			nplaced[k]++;
			if (c->alone_task)
				fin_alone[k] = fmax(fin_alone[k], c->alone_task[v]);
		}
		/* children whose parents are all placed become ready */
		for (e = c->succ_off[v]; e < c->succ_off[v + 1]; e++) {
			unsigned int ch = c->succ[e];

			if (--indeg[ch])
				continue;
			k = c->task[ch].job;
			if (k >= nj)
				virt[nvirt++] = ch;
			else
				th_compose_push(TH_HEAP_OF(k), TH_HN_OF(k), key, ch);
		}
	}
#undef TH_HEAP_OF
#undef TH_HN_OF
out:
	free(indeg);
	free(heap);
	free(hn);
	free(virt);
	free(key);
	free(fin_multi);
	free(nplaced);
	if (ret) {
		th_sched_destroy(s);
		errno = -ret;
		return NULL;
	}
	return s;
}

/* A candidate placement and its figures. */
struct th_compose_cand {
	struct th_sched *s;
	struct th_dag *dag;		/* owned when not the merged DAG */
	enum th_place_compose compose;
	bool from_trees;
	double makespan, max_slowdown;
	unsigned int worst;		/* the most slowed job */
};

static void th_compose_cand_free(struct th_compose_cand *x)
{
	th_sched_destroy(x->s);
	th_dag_destroy(x->dag);
	memset(x, 0, sizeof(*x));
}

/* Fills @x's figures from its schedule; @finish receives each job's. */
static void th_compose_eval(const struct th_place_jobs *j,
			    const struct th_place_task *task,
			    const double *alone, double *finish,
			    struct th_compose_cand *x)
{
	unsigned int i;
	double sd;

	th_place_finishes(x->s, task, j->njobs, finish);
	x->makespan = 0;
	x->max_slowdown = 0;
	x->worst = 0;
	for (i = 0; i < j->njobs; i++) {
		sd = th_place_slowdown(finish[i], j->jobs[i].release, alone[i]);
		x->makespan = fmax(x->makespan, finish[i]);
		if (sd > x->max_slowdown) {
			x->max_slowdown = sd;
			x->worst = i;
		}
	}
}

/*
 * Is @a better than @b under bound @bound (0: none)?  Meeting the bound
 * first, then the least makespan, then the least slowdown (the trees
 * schedule of the floor only when shorter); when neither meets the bound,
 * the least slowdown.  A tie keeps @b, the earlier candidate.
 */
static bool th_compose_better(const struct th_compose_cand *a,
			      const struct th_compose_cand *b, double bound)
{
	bool a_ok, b_ok;

	if (!b->s)
		return true;
	if (!bound)	/* the same makespan: the fairer (not for the floor) */
		return a->makespan < b->makespan * (1 - 1e-12) ||
		       (!a->from_trees && a->makespan <= b->makespan * (1 + 1e-12) &&
			a->max_slowdown < b->max_slowdown * (1 - 1e-12));
	a_ok = a->max_slowdown <= bound * (1 + 1e-9);
	b_ok = b->max_slowdown <= bound * (1 + 1e-9);
	if (a_ok != b_ok)
		return a_ok;
	if (a_ok)
		return a->makespan < b->makespan * (1 - 1e-12) ||
		       (a->makespan <= b->makespan * (1 + 1e-12) &&
			a->max_slowdown < b->max_slowdown);
	return a->max_slowdown < b->max_slowdown * (1 - 1e-12) ||
	       (a->max_slowdown <= b->max_slowdown * (1 + 1e-12) &&
		a->makespan < b->makespan);
}

/* @x replaces @best when better; otherwise @x is freed. */
static void th_compose_offer(struct th_compose_cand *best,
			     struct th_compose_cand *x, double bound)
{
	if (x->s && th_compose_better(x, best, bound)) {
		th_compose_cand_free(best);
		*best = *x;
		memset(x, 0, sizeof(*x));
	} else {
		th_compose_cand_free(x);
	}
}

/*
 * The trees baseline as a schedule of the merged DAG: its combining tasks
 * sit on their tree nodes' members, which the merged DAG allows at the
 * same costs, so its copies are placed there unchanged.
 */
static struct th_sched *th_compose_trees(const struct th_place_jobs *j,
					 const struct th_place_model *m,
					 const struct th_dag *merged,
					 bool any_release)
{
	struct th_place_task *task = NULL;
	struct th_dag *dag = th_place_build(j, m, TH_PLACE_TREES,
					    TH_PLACE_ANY, NULL, &task);
	struct th_sched *t = NULL, *s = NULL;
	struct th_compose c;
	unsigned int i;
	int err = 0;

	if (!dag)
		return NULL;
	if (any_release) {
		err = -th_compose_init(&c, j, dag, task, TH_SCHED_HEFT);
		if (!err) {
			t = th_compose_schedule(&c, TH_RULE_LIST, NULL);
			th_compose_free(&c);
		}
	} else {
		t = th_sched_run(dag, TH_SCHED_HEFT);
	}
	if (!err && t)
		s = th_sched_create(merged);
	if (!err && !s)
		err = errno;
	for (i = 0; s && i < th_sched_nslots(t); i++) {
		const struct th_sched_slot *x = th_sched_slot(t, i);

		if (th_sched_place(s, x->task, x->proc, x->start,
				   x->flags & TH_SCHED_SLOT_DUP)) {
			th_sched_destroy(s);
			s = NULL;
			err = EPROTO;	/* the two DAGs disagree */
		}
	}
	th_sched_destroy(t);
	th_dag_destroy(dag);
	free(task);
	if (!s)
		errno = err ? err : ENOMEM;
	return s;
}

/*
 * Raise job @k's weight until even its last task ranks above every other
 * job's first (weight x bottom level): it is placed first, as alone, and
 * the others keep their order below it.
 */
static void th_compose_raise(const struct th_compose *c, double *w,
			     unsigned int k)
{
	double top = 0, low = fmax(c->blmin[k], 1e-300);
	unsigned int i;

	for (i = 0; i < c->njobs; i++)
		if (i != k)
			top = fmax(top, w[i] * c->blmax[i]);
	w[k] = fmax(2 * w[k], 2 * top / low);
	if (isinf(w[k]))
		w[k] = 1e300;
}

/* The most slowed job's weight is raised this many schedules at most. */
#define TH_COMPOSE_FAIR_ROUNDS	24

int th_place_compose_run(const struct th_place_jobs *j,
			 const struct th_place_model *m,
			 enum th_place_mode mode, enum th_sched_alg alg,
			 const struct th_place_opts *o, const double *alone,
			 double *finish, struct th_place_result *r)
{
	struct th_compose_cand best = { 0 }, x = { 0 };
	struct th_place_task *task = NULL;
	struct th_compose c = { 0 };
	bool any_release = false, have_c = false;
	double bound = mode == TH_PLACE_SCHEDULED ? o->fairness : 0;
	/* every composition a candidate: for the bound, or for the makespan */
	bool all = bound > 0 || o->compose == TH_PLACE_COMPOSE_BEST;
	double *w = NULL, *dl = NULL;
	struct th_dag *dag;
	unsigned int i, round;
	int ret = 0;

	for (i = 0; i < j->njobs; i++)
		any_release |= j->jobs[i].release > 0;
	dag = th_place_build(j, m, mode, TH_PLACE_ANY, NULL, &task);
	if (!dag)
		return -errno;
	/* the algorithm's own schedule, when nothing asks for another */
	if (!any_release && (mode == TH_PLACE_TREES || all ||
			     o->compose == TH_PLACE_COMPOSE_MERGED)) {
		x.s = th_sched_run(dag, alg);
		if (!x.s) {
			ret = -errno;
			goto out;
		}
		th_compose_eval(j, task, alone, finish, &x);
		th_compose_offer(&best, &x, bound);
	}
	if (!best.s || bound > 0 || (mode == TH_PLACE_SCHEDULED &&
				     o->compose != TH_PLACE_COMPOSE_MERGED)) {
		ret = th_compose_init(&c, j, dag, task, alg);
		have_c = !ret;
		c.alone = alone;
		if (!ret && (all || o->compose == TH_PLACE_COMPOSE_FAIR))
			ret = th_compose_alone_tasks(&c, m);
		if (ret)
			goto out;
	}
	for (i = 0; !ret && i < TH_PLACE_COMPOSE_NR; i++) {
		if (best.s && mode == TH_PLACE_TREES)
			break;
		if (mode == TH_PLACE_TREES && i != TH_PLACE_COMPOSE_MERGED)
			continue;
		if (i == TH_PLACE_COMPOSE_BEST ||
		    (mode == TH_PLACE_SCHEDULED && !all && i != o->compose))
			continue;
		if (i == TH_PLACE_COMPOSE_MERGED && !any_release && best.s)
			continue;	/* the algorithm's own, above */
		x.s = th_compose_schedule(&c, (enum th_compose_rule)i, NULL);
		if (!x.s) {
			ret = -errno;
			break;
		}
		x.compose = i;
		th_compose_eval(j, task, alone, finish, &x);
		th_compose_offer(&best, &x, bound);
	}
	/* the placer's floor: never longer than its own trees baseline */
	if (!ret && mode == TH_PLACE_SCHEDULED && o->floor) {
		x.s = th_compose_trees(j, m, dag, any_release);
		if (!x.s) {
			ret = -errno;
			goto out;
		}
		x.compose = TH_PLACE_COMPOSE_MERGED;
		x.from_trees = true;
		th_compose_eval(j, task, alone, finish, &x);
		th_compose_offer(&best, &x, bound);
	}
	/*
	 * Deadlines from the bound: each job's release plus X times its time
	 * alone, the least laxity first; a job that missed gets its deadline
	 * earlier by what it missed by, until a schedule meets them all.
	 */
	if (!ret && bound > 0) {
		dl = malloc(j->njobs * sizeof(*dl));
		if (!dl) {
			ret = -ENOMEM;
			goto out;
		}
		for (i = 0; i < j->njobs; i++)
			dl[i] = j->jobs[i].release + bound * alone[i];
		for (round = 0; round < TH_COMPOSE_FAIR_ROUNDS; round++) {
			bool met;

			x.s = th_compose_schedule(&c, TH_RULE_LAXITY, dl);
			if (!x.s) {
				ret = -errno;
				break;
			}
			x.compose = TH_PLACE_COMPOSE_LAXITY;
			th_compose_eval(j, task, alone, finish, &x);
			met = x.max_slowdown <= bound * (1 + 1e-9);
			for (i = 0; i < j->njobs; i++) {
				double want = j->jobs[i].release + bound * alone[i];

				if (finish[i] > want)
					dl[i] -= finish[i] - want;
			}
			th_compose_offer(&best, &x, bound);
			if (met)
				break;
		}
	}
	/*
	 * Raise the most slowed job's priority, again, until a schedule meets
	 * the bound: it may be shorter than a composition that met it above.
	 */
	if (!ret && bound > 0) {
		w = malloc(j->njobs * sizeof(*w));
		if (!w) {
			ret = -ENOMEM;
			goto out;
		}
		for (i = 0; i < j->njobs; i++)
			w[i] = j->jobs[i].priority;
		for (round = 0; round < TH_COMPOSE_FAIR_ROUNDS; round++) {
			bool met;

			x.s = th_compose_schedule(&c, TH_RULE_WEIGHTED, w);
			if (!x.s) {
				ret = -errno;
				break;
			}
			x.compose = TH_PLACE_COMPOSE_WEIGHTED;
			th_compose_eval(j, task, alone, finish, &x);
			met = x.max_slowdown <= bound * (1 + 1e-9);
			th_compose_raise(&c, w, x.worst);
			th_compose_offer(&best, &x, bound);
			if (met)
				break;
		}
	}
	if (ret)
		goto out;
	th_compose_eval(j, task, alone, finish, &best);
	r->sched = best.s;
	r->dag = dag;
	r->task = task;
	r->compose = best.compose;
	r->from_trees = best.from_trees;
	r->bound_met = !bound || best.max_slowdown <= bound * (1 + 1e-9);
	best.s = NULL;
	dag = NULL;
	task = NULL;
out:
	if (have_c)
		th_compose_free(&c);
	th_compose_cand_free(&best);
	th_compose_cand_free(&x);
	th_dag_destroy(dag);
	free(task);
	free(w);
	free(dl);
	return ret;
}
