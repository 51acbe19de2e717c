// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * place.c - the multi-job placer (Documentation/placement.rst;
 * thverbs/place.h): every job becomes part of one DAG whose costs come from the
 * fabric cost model, the DAG is scheduled, and each job's finish, its
 * slowdown against running alone and the unfairness are predicted; the
 * baselines place each job on its own k-nomial tree, together or one
 * after another.  How the jobs share one schedule (compositions, release
 * times, the fairness bound, the floor at the trees) is compose.c's.
 *
 * A collective of n members (rank v on node members[v]) on its tree:
 *   C.v  rank v's contribution, pinned to its node (a copy out of send)
 *   R.v  for each rank with children: reduces its contribution and its
 *        children's results (1 + children operands); free in the
 *        scheduled mode, on rank v's node on the trees
 *   D.v  the result delivered at rank v's node, a copy into recv
 *        (Allreduce, Broadcast: every rank, forwarded down the tree;
 *        Reduce: the root)
 * Edges carry the job's bytes; a PUT costs the model's put cost between
 * nodes and nothing within one.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "place_priv.h"
#include "sched_priv.h"
#include <thverbs/verbs.h>
#include <thverbs/coll.h>

/*
 * The model's node classes: its distinct ALU rates, fastest first (a
 * reduction then costs no less class by class).  Made once per
 * th_place_run(), for the placement and every job's placement alone.
 */
struct th_place_classes {
	unsigned int n;
	unsigned int *of;		/* per node */
	unsigned int *node;		/* per class: a node of it */
};

/*
 * Tasks of one job in the merged DAG: [first, first + n).  The DAG keeps
 * its costs by node class (nodes of one ALU rate cost a task the same):
 * a pinned task one cost, a free one a cost per class (sched_priv.h).
 */
struct th_place_build {
	const struct th_place_model *m;
	enum th_place_mode mode;
	struct th_dag *dag;
	unsigned int next;		/* the next task id */
	struct th_place_task *task;
	const struct th_place_classes *cls;
};

static int th_place_rate_cmp(const void *a, const void *b, void *arg)
{
	const double *alu = arg;
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	/* fastest first: a reduction then costs no less class by class */
	if (alu[x] != alu[y])
		return alu[x] > alu[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

static void th_place_classes_free(struct th_place_classes *c)
{
	free(c->of);
	free(c->node);
	c->of = NULL;
	c->node = NULL;
}

/* The node classes of @m. */
static int th_place_classes(const struct th_place_model *m,
			    struct th_place_classes *c)
{
	unsigned int i, *order;
	bool same = true;

	c->of = calloc(m->nodes, sizeof(*c->of));
	c->node = calloc(m->nodes, sizeof(*c->node));
	order = malloc(m->nodes * sizeof(*order));
	if (!c->of || !c->node || !order) {
		free(order);
		th_place_classes_free(c);
		return -ENOMEM;
	}
	for (i = 1; i < m->nodes; i++)
		same &= m->alu[i] == m->alu[0];
	c->n = 1;
	for (i = 0; !same && i < m->nodes; i++)
		order[i] = i;
	if (!same)
		qsort_r(order, m->nodes, sizeof(*order), th_place_rate_cmp,
			m->alu);
	for (i = 1; !same && i < m->nodes; i++) {
		if (m->alu[order[i]] != m->alu[order[i - 1]])
			c->node[c->n++] = order[i];
		c->of[order[i]] = c->n - 1;
	}
	if (!same)
		c->node[0] = order[0];
	free(order);
	return 0;
}

static unsigned int th_place_job_tasks(const struct th_place_job *jb)
{
	unsigned int n = jb->nmembers, v, inner = 0;

	if (jb->kind == TH_PLACE_DAG)
		return jb->nsteps;
	if (jb->kind == TH_PLACE_BCAST)
		return 1 + n;
	for (v = 0; v < n; v++)
		inner += th_tree_children(n, jb->root, jb->radix, v, NULL, 0) > 0;
	return n + inner + (jb->kind == TH_PLACE_REDUCE ? 1 : n);
}

/* What task @t costs on @node: ERANGE when the model makes it infinite. */
static int th_place_cost(const struct th_place_build *b, unsigned int node,
			 unsigned int operands, uint64_t bytes, bool copy,
			 double *w)
{
	*w = copy || !operands ? th_place_copy_cost(b->m, bytes) :
	     th_place_reduce_cost(b->m, node, operands, bytes);
	return isfinite(*w) ? 0 : -ERANGE;
}

/*
 * A task pinned to @node (infinite cost elsewhere: one cost kept), or free
 * (TH_PLACE_ANY: two terms, its cost on each node class from its rate).
 */
static int th_place_costs(struct th_place_build *b, unsigned int t,
			  unsigned int node, unsigned int operands,
			  uint64_t bytes, bool copy)
{
	double w, fixed, read;
	int ret;

	if (node != TH_PLACE_ANY) {
		ret = th_place_cost(b, node, operands, bytes, copy, &w);
		return ret ? ret : th_dag_pin(b->dag, t, node, w);
	}
	/* fixed + read / rate, as th_place_reduce_cost() computes it */
	if (copy || !operands) {
		fixed = th_place_copy_cost(b->m, bytes);
		read = 0;
	} else {
		th_place_reduce_terms(b->m, operands, bytes, &fixed, &read);
	}
	/* the slowest class costs the most: finite there, finite everywhere */
	if (!isfinite(fixed + read / b->m->alu[b->cls->node[b->cls->n - 1]]))
		return -ERANGE;
	return th_dag_set_affine(b->dag, t, fixed, read);
}

/* The next task: JOB.<role><v>. */
static int th_place_task(struct th_place_build *b, unsigned int job,
			 const char *jname, char role, unsigned int v,
			 unsigned int *id)
{
	char name[96];

	*id = b->next++;
	b->task[*id] = (struct th_place_task){ .job = job, .role = role,
					       .rank = v };
	snprintf(name, sizeof(name), "%s.%c%u", jname, role, v);
	return th_dag_set_name(b->dag, *id, name);
}

static int th_place_edge(struct th_place_build *b, unsigned int from,
			 unsigned int to, uint64_t bytes)
{
	double w = th_place_put_cost(b->m, bytes);

	return isfinite(w) ? th_dag_add_edge(b->dag, from, to, w) : -ERANGE;
}

static int th_place_collective(struct th_place_build *b, unsigned int job,
			       const struct th_place_job *jb)
{
	unsigned int n = jb->nmembers, k = jb->radix, v, c, *kids = NULL;
	unsigned int *cid, *rid, *did, *out;
	bool reduce = jb->kind != TH_PLACE_BCAST;
	int ret = -ENOMEM, nk, parent;

	cid = malloc(4 * (size_t)n * sizeof(*cid));
	kids = malloc(n * sizeof(*kids));
	if (!cid || !kids)
		goto out;
	rid = cid + n;
	did = rid + n;
	out = did + n;		/* the task that carries rank v's result up */
	ret = 0;
	for (v = 0; !ret && v < n; v++) {
		rid[v] = did[v] = TH_PLACE_ANY;
		if (!reduce && v != jb->root)
			continue;
		ret = th_place_task(b, job, jb->name, 'C', v, &cid[v]);
		if (!ret)
			ret = th_place_costs(b, cid[v], jb->members[v], 0,
					     jb->bytes, true);
		out[v] = cid[v];
	}
	/* combining tasks, children before parents: ranks by depth, deepest first */
	for (v = n; reduce && !ret && v-- > 0;) {
		/* k-nomial children of a rank have higher relative ranks */
		unsigned int r = (v + jb->root) % n;

		nk = th_tree_children(n, jb->root, k, r, kids, n);
		if (nk < 0) {
			ret = nk;
			break;
		}
		if (!nk)
			continue;
		ret = th_place_task(b, job, jb->name, 'R', r, &rid[r]);
		if (!ret)
			ret = th_place_costs(b, rid[r], b->mode == TH_PLACE_SCHEDULED ?
					     TH_PLACE_ANY : jb->members[r],
					     1 + nk, jb->bytes, false);
		if (!ret)
			ret = th_place_edge(b, cid[r], rid[r], jb->bytes);
		for (c = 0; !ret && c < (unsigned int)nk; c++)
			ret = th_place_edge(b, out[kids[c]], rid[r], jb->bytes);
		out[r] = rid[r];
	}
	/* deliveries: top down (parents have lower relative ranks) */
	for (v = 0; !ret && v < n; v++) {
		unsigned int r = (v + jb->root) % n;

		if (jb->kind == TH_PLACE_REDUCE && r != jb->root)
			continue;
		ret = th_place_task(b, job, jb->name, 'D', r, &did[r]);
		if (!ret)
			ret = th_place_costs(b, did[r], jb->members[r], 0,
					     jb->bytes, true);
		if (ret)
			break;
		parent = th_tree_parent(n, jb->root, k, r);
		if (parent >= 0 && jb->kind != TH_PLACE_REDUCE)
			ret = th_place_edge(b, did[parent], did[r], jb->bytes);
		else
			ret = th_place_edge(b, out[jb->root], did[r], jb->bytes);
	}
out:
	free(cid);
	free(kids);
	return ret;
}

static int th_place_dag_job(struct th_place_build *b, unsigned int job,
			    const struct th_place_job *jb)
{
	unsigned int first = b->next, i, id;
	int ret = 0;

	for (i = 0; !ret && i < jb->nsteps; i++) {
		const struct th_place_dstep *st = &jb->steps[i];
		char name[96];

		id = b->next++;
		b->task[id] = (struct th_place_task){ .job = job, .role = 'S',
						      .rank = i };
		snprintf(name, sizeof(name), "%s.%s", jb->name, st->name);
		ret = th_dag_set_name(b->dag, id, name);
		if (!ret)
			ret = th_place_costs(b, id, st->on,
					     st->kind == TH_PLACE_STEP_REDUCE ?
					     st->operands : 0, st->bytes,
					     st->kind == TH_PLACE_STEP_COPY);
	}
	for (i = 0; !ret && i < jb->nedges; i++)
		ret = th_place_edge(b, first + jb->edges[i].from,
				    first + jb->edges[i].to, jb->edges[i].bytes);
	return ret;
}

/* Tasks of the placement DAG of jobs @only (or all), virtual ones aside. */
static uint64_t th_place_total_tasks(const struct th_place_jobs *j,
				     unsigned int only)
{
	uint64_t total = 0;
	unsigned int i;

	for (i = 0; i < j->njobs; i++)
		if (only == TH_PLACE_ANY || only == i)
			total += th_place_job_tasks(&j->jobs[i]);
	return total;
}

/* The highest node job @jb names, plus one. */
static unsigned int th_place_job_nodes(const struct th_place_job *jb)
{
	unsigned int i, n = 0;

	for (i = 0; i < jb->nmembers; i++)
		if (jb->members[i] + 1 > n)
			n = jb->members[i] + 1;
	for (i = 0; i < jb->nsteps; i++)
		if (jb->steps[i].on != TH_PLACE_ANY && jb->steps[i].on + 1 > n)
			n = jb->steps[i].on + 1;
	return n;
}

/*
 * The DAG of jobs @only (or every job when @only is TH_PLACE_ANY), on the
 * node classes @cls of @m (NULL: made here).
 */
struct th_dag *th_place_build(const struct th_place_jobs *j,
				     const struct th_place_model *m,
				     enum th_place_mode mode, unsigned int only,
				     const struct th_place_classes *cls,
				     struct th_place_task **tasks)
{
	struct th_place_build b = { .m = m, .mode = mode, .cls = cls };
	struct th_place_classes own = { 0 };
	double *rate = NULL;		/* per class */
	unsigned int i;
	uint64_t total;
	int ret = 0;

	if (!j || th_place_model_check(m) || !j->njobs ||
	    (only == TH_PLACE_ANY ? th_place_nodes_named(j) :
	     th_place_job_nodes(&j->jobs[only])) > m->nodes) {
		errno = EINVAL;
		return NULL;
	}
	total = th_place_total_tasks(j, only);
	if (total > TH_PLACE_MAX_TASKS) {
		errno = E2BIG;	/* the placement DAG's limit */
		return NULL;
	}
	b.task = malloc((total + 2) * sizeof(*b.task));
	b.dag = th_dag_create(total);
	rate = malloc(m->nodes * sizeof(*rate));
	if (!cls) {
		ret = th_place_classes(m, &own);
		b.cls = &own;
	}
	if (!ret && (!b.task || !b.dag || !rate))
		ret = -ENOMEM;
	if (!ret)
		ret = th_dag_set_classes(b.dag, m->nodes, b.cls->of, b.cls->n);
	for (i = 0; !ret && i < b.cls->n; i++)
		rate[i] = m->alu[b.cls->node[i]];
	if (!ret)
		ret = th_dag_set_class_divisors(b.dag, rate);
	if (ret)
		goto err;
	for (i = 0; !ret && i < j->njobs; i++) {
		if (only != TH_PLACE_ANY && only != i)
			continue;
		ret = j->jobs[i].kind == TH_PLACE_DAG ?
		      th_place_dag_job(&b, i, &j->jobs[i]) :
		      th_place_collective(&b, i, &j->jobs[i]);
	}
	if (!ret && b.next != total)
		ret = -EPROTO;	/* th_place_job_tasks() miscounted */
	if (!ret)
		ret = th_dag_finalize(b.dag);
	if (ret)
		goto err;
	for (i = total; i < th_dag_ntasks(b.dag); i++)	/* virtual start, exit */
		b.task[i] = (struct th_place_task){ .job = TH_PLACE_ANY };
	if (tasks)
		*tasks = b.task;
	else
		free(b.task);
	th_place_classes_free(&own);
	free(rate);
	return b.dag;
err:
	th_dag_destroy(b.dag);
	free(b.task);
	th_place_classes_free(&own);
	free(rate);
	errno = ret < 0 ? -ret : EINVAL;
	return NULL;
}

struct th_dag *th_place_dag(const struct th_place_jobs *j,
			    const struct th_place_model *m,
			    enum th_place_mode mode, struct th_place_task **tasks)
{
	return th_place_build(j, m, mode == TH_PLACE_SEQUENTIAL ?
			      TH_PLACE_TREES : mode, TH_PLACE_ANY, NULL, tasks);
}

/* Each job's finish: the latest of its tasks' earliest copies. */
void th_place_finishes(const struct th_sched *s,
		       const struct th_place_task *task, unsigned int njobs,
		       double *finish)
{
	const struct th_dag *dag = th_sched_dag(s);
	unsigned int i, n = th_dag_ntasks(dag);
	double *first = malloc(n * sizeof(*first));

	memset(finish, 0, njobs * sizeof(*finish));
	if (!first)
		return;
	for (i = 0; i < n; i++)
		first[i] = INFINITY;
	for (i = 0; i < th_sched_nslots(s); i++) {
		const struct th_sched_slot *x = th_sched_slot(s, i);

		first[x->task] = fmin(first[x->task], x->finish);
	}
	for (i = 0; i < n; i++)
		if (task[i].job < njobs && !isinf(first[i]))
			finish[task[i].job] = fmax(finish[task[i].job], first[i]);
	free(first);
}

/*
 * Schedule jobs @only (or all) in @mode; fills @finish per job, and hands
 * the schedule and its DAG over when @s_out is not NULL.
 */
static int th_place_schedule(const struct th_place_jobs *j,
			     const struct th_place_model *m,
			     enum th_place_mode mode, enum th_sched_alg alg,
			     unsigned int only, double *finish,
			     struct th_place_result *r,
			     const struct th_place_classes *cls)
{
	struct th_place_task *task = NULL;
	struct th_dag *dag = th_place_build(j, m, mode, only, cls, &task);
	struct th_sched *s = dag ? th_sched_run(dag, alg) : NULL;
	int err = s ? 0 : -errno;

	if (s)
		th_place_finishes(s, task, j->njobs, finish);
	if (s && r) {
		r->sched = s;
		r->dag = dag;
		r->task = task;
		return 0;
	}
	free(task);
	th_sched_destroy(s);
	th_dag_destroy(dag);
	return err;
}

void th_place_result_destroy(struct th_place_result *r)
{
	if (!r)
		return;
	th_sched_destroy(r->sched);
	th_dag_destroy(r->dag);
	free(r->task);
	free(r->job);
	free(r);
}

struct th_place_result *th_place_run(const struct th_place_jobs *j,
				     const struct th_place_model *m,
				     enum th_place_mode mode,
				     enum th_sched_alg alg)
{
	return th_place_run_opts(j, m, mode, alg, NULL);
}

struct th_place_result *th_place_run_opts(const struct th_place_jobs *j,
					  const struct th_place_model *m,
					  enum th_place_mode mode,
					  enum th_sched_alg alg,
					  const struct th_place_opts *o)
{
	static const struct th_place_opts plain = { 0 };
	enum th_place_mode alone_mode = mode == TH_PLACE_SCHEDULED ?
					TH_PLACE_SCHEDULED : TH_PLACE_TREES;
	struct th_place_classes cls = { 0 };
	struct th_place_result *r;
	double *f, *alone, *inv, mean = 0, dev = 0, clock = 0;
	unsigned int i;
	int ret;

	if (!o)
		o = &plain;
	if (!j || th_place_model_check(m) || (unsigned int)alg >= TH_SCHED_NR_ALGS ||
	    mode > TH_PLACE_SEQUENTIAL || !j->njobs ||
	    (unsigned int)o->compose >= TH_PLACE_COMPOSE_NR ||
	    !(o->fairness == 0 || o->fairness >= 1) || isinf(o->fairness)) {
		errno = EINVAL;
		return NULL;
	}
	if (th_place_total_tasks(j, TH_PLACE_ANY) > TH_PLACE_MAX_TASKS) {
		errno = E2BIG;	/* before the placements alone, not after */
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	f = calloc(3 * (size_t)j->njobs, sizeof(*f));
	if (r)
		r->job = calloc(j->njobs, sizeof(*r->job));
	if (!r || !f || !r->job) {
		free(f);
		th_place_result_destroy(r);
		errno = ENOMEM;
		return NULL;
	}
	alone = f + j->njobs;
	inv = alone + j->njobs;
	r->njobs = j->njobs;
	r->bound_met = true;
	ret = th_place_classes(m, &cls);
	if (ret)
		goto err;
	/* each job alone: its own makespan, the reference of its slowdown */
	for (i = 0; i < j->njobs; i++) {
		ret = th_place_schedule(j, m, alone_mode, alg, i, f, NULL,
					&cls);
		if (ret)
			goto err;
		r->job[i].alone = alone[i] = f[i];
	}
	/* with the floor, a job alone is placed no worse than on its tree */
	for (i = 0; o->floor && mode == TH_PLACE_SCHEDULED && i < j->njobs; i++) {
		ret = th_place_schedule(j, m, TH_PLACE_TREES, TH_SCHED_HEFT, i,
					f, NULL, &cls);
		if (ret)
			goto err;
		r->job[i].alone = alone[i] = fmin(alone[i], f[i]);
	}
	if (mode == TH_PLACE_SEQUENTIAL) {
		/* one after another, each from its release at the earliest */
		for (i = 0; i < j->njobs; i++) {
			clock = fmax(clock, j->jobs[i].release) + r->job[i].alone;
			r->job[i].finish = clock;
		}
	} else {
		ret = th_place_compose_run(j, m, mode, alg, o, alone, f, r);
		if (ret)
			goto err;
		for (i = 0; i < j->njobs; i++)
			r->job[i].finish = f[i];
	}
	for (i = 0; i < j->njobs; i++) {
		r->job[i].slowdown = th_place_slowdown(r->job[i].finish,
						       j->jobs[i].release,
						       r->job[i].alone);
		r->makespan = fmax(r->makespan, r->job[i].finish);
		r->max_slowdown = fmax(r->max_slowdown, r->job[i].slowdown);
		inv[i] = r->job[i].slowdown > 0 ? 1 / r->job[i].slowdown : 0;
		mean += r->job[i].slowdown / j->njobs;
	}
	for (i = 0; i < j->njobs; i++)
		dev += fabs(r->job[i].slowdown - mean) / j->njobs;
	r->unfairness = dev;
	r->jain = th_place_jain(inv, j->njobs);
	th_place_classes_free(&cls);
	free(f);
	return r;
err:
	th_place_classes_free(&cls);
	free(f);
	th_place_result_destroy(r);
	errno = -ret;
	return NULL;
}
