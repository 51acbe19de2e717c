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
#include <thverbs/verbs.h>
#include <thverbs/coll.h>

/* Tasks of one job in the merged DAG: [first, first + n). */
struct th_place_build {
	const struct th_place_model *m;
	enum th_place_mode mode;
	struct th_dag *dag;
	unsigned int next;		/* the next task id */
	struct th_place_task *task;
};

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

/* A task pinned to @node (infinite cost elsewhere), or free (TH_PLACE_ANY). */
static int th_place_costs(struct th_place_build *b, unsigned int t,
			  unsigned int node, unsigned int operands,
			  uint64_t bytes, bool copy)
{
	unsigned int s;
	double w;
	int ret = 0;

	for (s = 0; !ret && s < b->m->nodes; s++) {
		if (node != TH_PLACE_ANY && s != node)
			w = INFINITY;
		else if (copy || !operands)
			w = th_place_copy_cost(b->m, bytes);
		else
			w = th_place_reduce_cost(b->m, s, operands, bytes);
		ret = th_dag_set_cost(b->dag, t, s, w);
	}
	return ret;
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
	return th_dag_add_edge(b->dag, from, to, th_place_put_cost(b->m, bytes));
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

/* The DAG of jobs @only (or every job when @only is TH_PLACE_ANY). */
struct th_dag *th_place_build(const struct th_place_jobs *j,
				     const struct th_place_model *m,
				     enum th_place_mode mode, unsigned int only,
				     struct th_place_task **tasks)
{
	struct th_place_build b = { .m = m, .mode = mode };
	unsigned int i, total = 0;
	int ret = 0;

	if (!j || th_place_model_check(m) || !j->njobs ||
	    th_place_nodes_named(j) > m->nodes) {
		errno = EINVAL;
		return NULL;
	}
	for (i = 0; i < j->njobs; i++)
		if (only == TH_PLACE_ANY || only == i)
			total += th_place_job_tasks(&j->jobs[i]);
	b.task = malloc((total + 2) * sizeof(*b.task));
	b.dag = th_dag_create(total);
	if (!b.task || !b.dag || th_dag_set_procs(b.dag, m->nodes)) {
		ret = -ENOMEM;
		goto err;
	}
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
	return b.dag;
err:
	th_dag_destroy(b.dag);
	free(b.task);
	errno = ret < 0 ? -ret : EINVAL;
	return NULL;
}

struct th_dag *th_place_dag(const struct th_place_jobs *j,
			    const struct th_place_model *m,
			    enum th_place_mode mode, struct th_place_task **tasks)
{
	return th_place_build(j, m, mode == TH_PLACE_SEQUENTIAL ?
			      TH_PLACE_TREES : mode, TH_PLACE_ANY, tasks);
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
			     struct th_place_result *r)
{
	struct th_place_task *task = NULL;
	struct th_dag *dag = th_place_build(j, m, mode, only, &task);
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
	/* each job alone: its own makespan, the reference of its slowdown */
	for (i = 0; i < j->njobs; i++) {
		ret = th_place_schedule(j, m, alone_mode, alg, i, f, NULL);
		if (ret)
			goto err;
		r->job[i].alone = alone[i] = f[i];
	}
	/* with the floor, a job alone is placed no worse than on its tree */
	for (i = 0; o->floor && mode == TH_PLACE_SCHEDULED && i < j->njobs; i++) {
		ret = th_place_schedule(j, m, TH_PLACE_TREES, TH_SCHED_HEFT, i,
					f, NULL);
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
	free(f);
	return r;
err:
	free(f);
	th_place_result_destroy(r);
	errno = -ret;
	return NULL;
}
