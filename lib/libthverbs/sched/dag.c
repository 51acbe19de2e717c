// SPDX-License-Identifier: GPL-2.0 OR MIT
/* dag.c - the task graph: tasks, edges, the cost table (dense or by class), finalization. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched_priv.h"

/* Room for a virtual start and exit is reserved at creation. */
#define TH_DAG_VIRTUAL_ROOM	2

struct th_dag *th_dag_create(unsigned int ntasks)
{
	struct th_dag *dag;
	unsigned int cap;

	if (!ntasks || ntasks > (1u << 28)) {
		errno = EINVAL;
		return NULL;
	}
	cap = ntasks + TH_DAG_VIRTUAL_ROOM;
	dag = calloc(1, sizeof(*dag));
	if (!dag)
		return NULL;
	dag->ntasks = ntasks;
	dag->nreal = ntasks;
	dag->cap_tasks = cap;
	dag->names = calloc(cap, sizeof(*dag->names));
	dag->base = calloc(cap, sizeof(*dag->base));
	dag->wmean = calloc(cap, sizeof(*dag->wmean));
	dag->wstale = calloc(cap, sizeof(*dag->wstale));
	dag->virt = calloc(cap, sizeof(*dag->virt));
	if (!dag->names || !dag->base || !dag->wmean || !dag->wstale ||
	    !dag->virt) {
		th_dag_destroy(dag);
		errno = ENOMEM;
		return NULL;
	}
	dag->entry = TH_NONE;
	dag->exit = TH_NONE;
	return dag;
}

/* Back to the dense layout's bookkeeping (w is the caller's to replace). */
static void th_dag_free_classes(struct th_dag *dag)
{
	free(dag->proc_class);
	free(dag->class_off);
	free(dag->class_procs);
	free(dag->pin);
	free(dag->pin_w);
	free(dag->row);
	free(dag->class_div);
	free(dag->aff_a);
	free(dag->aff_b);
	dag->class_div = NULL;
	dag->aff_a = NULL;
	dag->aff_b = NULL;
	dag->proc_class = NULL;
	dag->class_off = NULL;
	dag->class_procs = NULL;
	dag->pin = NULL;
	dag->pin_w = NULL;
	dag->row = NULL;
	dag->nclasses = 0;
	dag->nrows = 0;
	dag->cap_rows = 0;
	dag->class_sorted = false;
}

void th_dag_destroy(struct th_dag *dag)
{
	unsigned int i;

	if (!dag)
		return;
	if (dag->names)
		for (i = 0; i < dag->cap_tasks; i++)
			free(dag->names[i]);
	free(dag->names);
	free(dag->base);
	th_dag_free_classes(dag);
	free(dag->w);
	free(dag->wmean);
	free(dag->wstale);
	free(dag->virt);
	free(dag->edges);
	free(dag->pred_off);
	free(dag->pred);
	free(dag->succ_off);
	free(dag->succ);
	free(dag->topo);
	free(dag);
}

int th_dag_set_name(struct th_dag *dag, unsigned int task, const char *name)
{
	char *copy;

	if (task >= dag->ntasks || !name)
		return -EINVAL;
	copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	free(dag->names[task]);
	dag->names[task] = copy;
	return 0;
}

int th_dag_add_edge(struct th_dag *dag, unsigned int from, unsigned int to,
		    double cost)
{
	struct th_dag_edge *e;

	if (dag->finalized)
		return -EBUSY;
	if (from >= dag->ntasks || to >= dag->ntasks || from == to ||
	    !(cost >= 0) || isinf(cost))
		return -EINVAL;
	if (dag->nedges == dag->cap_edges) {
		unsigned int cap = dag->cap_edges ? 2 * dag->cap_edges : 64;

		e = realloc(dag->edges, cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		dag->edges = e;
		dag->cap_edges = cap;
	}
	e = &dag->edges[dag->nedges++];
	e->from = from;
	e->to = to;
	e->cost = cost;
	return 0;
}

int th_dag_set_procs(struct th_dag *dag, unsigned int nprocs)
{
	double *w;

	if (!nprocs || nprocs > TH_DAG_MAX_PROCS)
		return -EINVAL;
	w = calloc((size_t)dag->cap_tasks * nprocs, sizeof(*w));
	if (!w)
		return -ENOMEM;
	th_dag_free_classes(dag);
	free(dag->w);
	dag->w = w;
	dag->nprocs = nprocs;
	memset(dag->wmean, 0, dag->cap_tasks * sizeof(*dag->wmean));
	memset(dag->wstale, 0, dag->cap_tasks * sizeof(*dag->wstale));
	return 0;
}

int th_dag_set_classes(struct th_dag *dag, unsigned int nprocs,
		       const unsigned int *class_of, unsigned int nclasses)
{
	unsigned int s, c, *fill = NULL;
	int ret = -ENOMEM;

	if (!nprocs || nprocs > TH_DAG_MAX_PROCS || !nclasses ||
	    nclasses > nprocs || !class_of)
		return -EINVAL;
	for (s = 0; s < nprocs; s++)
		if (class_of[s] >= nclasses)
			return -EINVAL;
	th_dag_free_classes(dag);
	free(dag->w);
	dag->w = NULL;
	dag->nprocs = 0;
	dag->proc_class = malloc(nprocs * sizeof(*dag->proc_class));
	dag->class_off = calloc(nclasses + 1, sizeof(*dag->class_off));
	dag->class_procs = malloc(nprocs * sizeof(*dag->class_procs));
	dag->pin = malloc(dag->cap_tasks * sizeof(*dag->pin));
	dag->pin_w = calloc(dag->cap_tasks, sizeof(*dag->pin_w));
	dag->row = malloc(dag->cap_tasks * sizeof(*dag->row));
	fill = malloc((nclasses + 1) * sizeof(*fill));
	if (!dag->proc_class || !dag->class_off || !dag->class_procs ||
	    !dag->pin || !dag->pin_w || !dag->row || !fill)
		goto err;
	memcpy(dag->proc_class, class_of, nprocs * sizeof(*class_of));
	for (s = 0; s < nprocs; s++)
		dag->class_off[class_of[s] + 1]++;
	ret = -EINVAL;
	for (c = 0; c < nclasses; c++) {
		if (!dag->class_off[c + 1])
			goto err;	/* a class without processors */
		dag->class_off[c + 1] += dag->class_off[c];
	}
	memcpy(fill, dag->class_off, (nclasses + 1) * sizeof(*fill));
	for (s = 0; s < nprocs; s++)
		dag->class_procs[fill[class_of[s]]++] = s;
	memset(dag->pin, 0xff, dag->cap_tasks * sizeof(*dag->pin));
	memset(dag->row, 0xff, dag->cap_tasks * sizeof(*dag->row));
	dag->nclasses = nclasses;
	dag->nprocs = nprocs;
	memset(dag->wmean, 0, dag->cap_tasks * sizeof(*dag->wmean));
	memset(dag->wstale, 0, dag->cap_tasks * sizeof(*dag->wstale));
	free(fill);
	return 0;
err:
	free(fill);
	th_dag_free_classes(dag);
	return ret;
}

int th_dag_set_class_divisors(struct th_dag *dag, const double *div)
{
	unsigned int c;

	if (!dag->proc_class || !div)
		return -EINVAL;
	for (c = 0; c < dag->nclasses; c++)
		if (!(div[c] > 0) || isinf(div[c]))
			return -EINVAL;
	if (!dag->class_div) {
		dag->class_div = malloc(dag->nclasses * sizeof(*dag->class_div));
		if (!dag->class_div)
			return -ENOMEM;
	}
	memcpy(dag->class_div, div, dag->nclasses * sizeof(*div));
	return 0;
}

int th_dag_set_affine(struct th_dag *dag, unsigned int task, double a,
		      double b)
{
	if (!dag->proc_class || !dag->class_div || task >= dag->ntasks ||
	    !(a >= 0) || !(b >= 0) || isinf(a) || isinf(b) ||
	    (dag->virt[task] && (a != 0 || b != 0)))
		return -EINVAL;
	if (!dag->aff_a) {
		dag->aff_a = calloc(dag->cap_tasks, sizeof(*dag->aff_a));
		dag->aff_b = calloc(dag->cap_tasks, sizeof(*dag->aff_b));
		if (!dag->aff_a || !dag->aff_b)
			return -ENOMEM;	/* freed with the layout */
	}
	/* a task that had a row keeps it unused: rows are not recycled */
	dag->row[task] = TH_DAG_AFFINE;
	dag->aff_a[task] = a;
	dag->aff_b[task] = b;
	dag->pin[task] = TH_NONE;
	dag->wstale[task] = true;
	return 0;
}

/* Task @task's row of class costs, made (all 0) on first use. */
static double *th_dag_row(struct th_dag *dag, unsigned int task)
{
	if (dag->row[task] == TH_NONE || dag->row[task] == TH_DAG_AFFINE) {
		if (dag->nrows == dag->cap_rows) {
			unsigned int cap = dag->cap_rows ? 2 * dag->cap_rows : 64;
			double *w = realloc(dag->w, (size_t)cap * dag->nclasses *
					    sizeof(*w));

			if (!w)
				return NULL;
			dag->w = w;
			dag->cap_rows = cap;
		}
		dag->row[task] = dag->nrows++;
		memset(&dag->w[(size_t)dag->row[task] * dag->nclasses], 0,
		       dag->nclasses * sizeof(*dag->w));
	}
	return &dag->w[(size_t)dag->row[task] * dag->nclasses];
}

int th_dag_set_class_cost(struct th_dag *dag, unsigned int task,
			  unsigned int cls, double w)
{
	double *row;

	if (!dag->proc_class || task >= dag->ntasks || cls >= dag->nclasses ||
	    !(w >= 0) || (dag->virt[task] && w != 0))
		return -EINVAL;
	row = th_dag_row(dag, task);
	if (!row)
		return -ENOMEM;
	row[cls] = w;
	dag->pin[task] = TH_NONE;
	dag->wstale[task] = true;
	return 0;
}

int th_dag_pin(struct th_dag *dag, unsigned int task, unsigned int proc,
	       double w)
{
	if (!dag->proc_class || task >= dag->ntasks || proc >= dag->nprocs ||
	    !(w >= 0) || isinf(w) || (dag->virt[task] && w != 0))
		return -EINVAL;
	dag->pin[task] = proc;
	dag->pin_w[task] = w;
	dag->wstale[task] = true;
	return 0;
}

/*
 * w̄: the mean over the processors the task may run on (finite costs); a
 * task pinned to some processors is ranked by its cost there.  With every
 * cost infinite it is infinite, and th_sched_run() refuses the graph.
 */
static void th_dag_update_mean(struct th_dag *dag, unsigned int v)
{
	double sum = 0, w;
	unsigned int s, c, k = 0;

	if (dag->proc_class && dag->pin[v] != TH_NONE) {
		dag->wmean[v] = dag->pin_w[v];
		return;
	}
	if (dag->proc_class && dag->nprocs > TH_DAG_EXACT_PROCS) {
		/*
		 * Per class, weighted by its processors: p / classes times
		 * fewer additions, rounded differently from the sum over the
		 * processors, which small layouts keep (the same w̄ as dense).
		 */
		for (c = 0; c < dag->nclasses; c++) {
			unsigned int n = dag->class_off[c + 1] - dag->class_off[c];

			w = th_dag_class_w(dag, v, c);
			if (isinf(w))
				continue;
			sum += n * w;
			k += n;
		}
		dag->wmean[v] = k ? sum / k : INFINITY;
		return;
	}
	for (s = 0; s < dag->nprocs; s++) {
		w = th_dag_w(dag, v, s);
		if (isinf(w))
			continue;
		sum += w;
		k++;
	}
	dag->wmean[v] = k ? sum / k : INFINITY;
}

int th_dag_set_cost(struct th_dag *dag, unsigned int task, unsigned int proc,
		    double w)
{
	if (task >= dag->ntasks || proc >= dag->nprocs || !(w >= 0) ||
	    dag->proc_class)
		return -EINVAL;
	if (dag->virt[task] && w != 0)
		return -EINVAL;
	dag->w[(size_t)task * dag->nprocs + proc] = w;
	/* w̄ when next read: setting a whole row costs p, not p^2 */
	dag->wstale[task] = true;
	return 0;
}

int th_dag_set_base(struct th_dag *dag, unsigned int task, double wbar)
{
	if (task >= dag->ntasks || !(wbar >= 0) || isinf(wbar))
		return -EINVAL;
	dag->base[task] = wbar;
	return 0;
}

int th_dag_set_edge_cost(struct th_dag *dag, unsigned int edge, double cost)
{
	if (edge >= dag->nedges || !(cost >= 0) || isinf(cost))
		return -EINVAL;
	dag->edges[edge].cost = cost;
	return 0;
}

/* Groups edge indices by a key (from or to) into off[]/idx[]. */
static int th_dag_group_edges(struct th_dag *dag, bool by_from,
			      unsigned int **off_out, unsigned int **idx_out)
{
	unsigned int n = dag->ntasks, i, *off, *idx, *fill;

	off = calloc(n + 1, sizeof(*off));
	idx = malloc((dag->nedges + 1) * sizeof(*idx));
	fill = malloc((n + 1) * sizeof(*fill));
	if (!off || !idx || !fill) {
		free(off);
		free(idx);
		free(fill);
		return -ENOMEM;
	}
	for (i = 0; i < dag->nedges; i++)
		off[(by_from ? dag->edges[i].from : dag->edges[i].to) + 1]++;
	for (i = 0; i < n; i++)
		off[i + 1] += off[i];
	memcpy(fill, off, (n + 1) * sizeof(*fill));
	for (i = 0; i < dag->nedges; i++)
		idx[fill[by_from ? dag->edges[i].from : dag->edges[i].to]++] = i;
	free(fill);
	*off_out = off;
	*idx_out = idx;
	return 0;
}

static int th_dag_add_virtual(struct th_dag *dag, bool start, unsigned int *id)
{
	unsigned int v = dag->ntasks++, i, n = dag->nreal;
	bool *mark;
	int ret;

	dag->virt[v] = true;
	dag->base[v] = 0;
	ret = th_dag_set_name(dag, v, start ? "start" : "exit");
	if (ret)
		return ret;
	/* one edge per real entry (no predecessor) or exit (no successor) */
	mark = calloc(n, sizeof(*mark));
	if (!mark)
		return -ENOMEM;
	for (i = 0; i < dag->nedges; i++)
		if (dag->edges[i].to < n && dag->edges[i].from < n)
			mark[start ? dag->edges[i].to : dag->edges[i].from] = true;
	for (i = 0; i < n && !ret; i++)
		if (!mark[i])
			ret = start ? th_dag_add_edge(dag, v, i, 0) :
				      th_dag_add_edge(dag, i, v, 0);
	free(mark);
	*id = v;
	return ret;
}

/* Whether every task's class costs are non-decreasing with the class. */
static bool th_dag_rows_sorted(const struct th_dag *dag)
{
	unsigned int r, c;
	bool affine = false;

	/* affine costs (b >= 0) grow as the divisors shrink */
	for (r = 0; dag->class_div && r < dag->ntasks; r++)
		affine |= dag->row[r] == TH_DAG_AFFINE && dag->aff_b[r] > 0;
	for (c = 1; affine && c < dag->nclasses; c++)
		if (!(dag->class_div[c] <= dag->class_div[c - 1]))
			return false;

	for (r = 0; r < dag->nrows; r++)
		for (c = 1; c < dag->nclasses; c++)
			if (!(dag->w[(size_t)r * dag->nclasses + c - 1] <=
			      dag->w[(size_t)r * dag->nclasses + c]))
				return false;
	return true;
}

int th_dag_finalize(struct th_dag *dag)
{
	unsigned int n, i, j, nin = 0, nout = 0, head, tail, *indeg;
	unsigned int *seen, ntasks0 = dag->ntasks, nedges0 = dag->nedges;
	char buf[32];
	int ret;

	if (dag->finalized)
		return 0;
	n = dag->nreal;
	indeg = calloc(n, sizeof(*indeg));
	seen = calloc(n, sizeof(*seen));
	if (!indeg || !seen) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < dag->nedges; i++) {
		indeg[dag->edges[i].to]++;
		seen[dag->edges[i].from]++;
	}
	for (i = 0; i < n; i++) {
		nin += !indeg[i];
		nout += !seen[i];
		if (!indeg[i])
			dag->entry = i;
		if (!seen[i])
			dag->exit = i;
	}
	ret = -ELOOP;
	if (!nin || !nout)
		goto out;
	if (nin > 1) {
		ret = th_dag_add_virtual(dag, true, &dag->entry);
		if (ret)
			goto out;
	}
	if (nout > 1) {
		ret = th_dag_add_virtual(dag, false, &dag->exit);
		if (ret)
			goto out;
	}
	for (i = 0; i < dag->ntasks; i++) {
		if (dag->names[i])
			continue;
		snprintf(buf, sizeof(buf), "t%u", i);
		ret = th_dag_set_name(dag, i, buf);
		if (ret)
			goto out;
	}
	ret = th_dag_group_edges(dag, false, &dag->pred_off, &dag->pred);
	if (!ret)
		ret = th_dag_group_edges(dag, true, &dag->succ_off, &dag->succ);
	if (ret)
		goto out;

	/* Kahn's algorithm; duplicate edges are refused on the way */
	free(indeg);
	free(seen);
	indeg = calloc(dag->ntasks, sizeof(*indeg));
	seen = malloc(dag->ntasks * sizeof(*seen));
	dag->topo = malloc(dag->ntasks * sizeof(*dag->topo));
	ret = -ENOMEM;
	if (!indeg || !seen || !dag->topo)
		goto out;
	memset(seen, 0xff, dag->ntasks * sizeof(*seen));
	for (i = 0; i < dag->ntasks; i++) {
		for (j = dag->succ_off[i]; j < dag->succ_off[i + 1]; j++) {
			unsigned int to = dag->edges[dag->succ[j]].to;

			if (seen[to] == i) {
				ret = -EEXIST;
				goto out;
			}
			seen[to] = i;
			indeg[to]++;
		}
	}
	head = 0;
	tail = 0;
	for (i = 0; i < dag->ntasks; i++)
		if (!indeg[i])
			dag->topo[tail++] = i;
	while (head < tail) {
		unsigned int v = dag->topo[head++];

		for (j = dag->succ_off[v]; j < dag->succ_off[v + 1]; j++) {
			unsigned int to = dag->edges[dag->succ[j]].to;

			if (!--indeg[to])
				dag->topo[tail++] = to;
		}
	}
	ret = tail == dag->ntasks ? 0 : -ELOOP;
	if (!ret) {
		if (dag->nprocs)
			for (i = 0; i < dag->ntasks; i++)
				th_dag_update_mean(dag, i);
		dag->class_sorted = dag->proc_class && th_dag_rows_sorted(dag);
		dag->finalized = true;
	}
out:
	if (ret) {
		/*
		 * Back to the graph as it was built: the virtual tasks and their
		 * edges go, so a later call (after the caller fixes the graph)
		 * counts degrees over real tasks only.
		 */
		for (i = ntasks0; i < dag->ntasks; i++) {
			free(dag->names[i]);
			dag->names[i] = NULL;
			dag->virt[i] = false;
		}
		dag->ntasks = ntasks0;
		dag->nedges = nedges0;
		free(dag->pred_off);
		free(dag->pred);
		free(dag->succ_off);
		free(dag->succ);
		free(dag->topo);
		dag->pred_off = NULL;
		dag->pred = NULL;
		dag->succ_off = NULL;
		dag->succ = NULL;
		dag->topo = NULL;
	}
	free(indeg);
	free(seen);
	return ret;
}

unsigned int th_dag_ntasks(const struct th_dag *dag)
{
	return dag->ntasks;
}

unsigned int th_dag_nreal(const struct th_dag *dag)
{
	return dag->nreal;
}

unsigned int th_dag_nprocs(const struct th_dag *dag)
{
	return dag->nprocs;
}

unsigned int th_dag_nedges(const struct th_dag *dag)
{
	return dag->nedges;
}

bool th_dag_is_virtual(const struct th_dag *dag, unsigned int task)
{
	return task < dag->ntasks && dag->virt[task];
}

const char *th_dag_name(const struct th_dag *dag, unsigned int task)
{
	return task < dag->ntasks ? dag->names[task] : NULL;
}

double th_dag_cost(const struct th_dag *dag, unsigned int task,
		   unsigned int proc)
{
	if (task >= dag->ntasks || proc >= dag->nprocs)
		return NAN;
	return th_dag_w(dag, task, proc);
}

double th_dag_base(const struct th_dag *dag, unsigned int task)
{
	return task < dag->ntasks ? dag->base[task] : NAN;
}

int th_dag_edge(const struct th_dag *dag, unsigned int edge,
		unsigned int *from, unsigned int *to, double *cost)
{
	if (edge >= dag->nedges)
		return -EINVAL;
	if (from)
		*from = dag->edges[edge].from;
	if (to)
		*to = dag->edges[edge].to;
	if (cost)
		*cost = dag->edges[edge].cost;
	return 0;
}

unsigned int th_dag_entry(const struct th_dag *dag)
{
	return dag->entry;
}

unsigned int th_dag_exit(const struct th_dag *dag)
{
	return dag->exit;
}

double th_dag_mean_cost(const struct th_dag *dag, unsigned int task)
{
	if (task >= dag->ntasks)
		return NAN;
	if (!dag->nprocs)
		return dag->base[task];
	if (dag->wstale[task]) {
		/* the cache of w̄ is the graph's own, whatever the caller's const */
		th_dag_update_mean((struct th_dag *)dag, task);
		dag->wstale[task] = false;
	}
	return dag->wmean[task];
}

double th_dag_ccr(const struct th_dag *dag)
{
	double c = 0, w = 0;
	unsigned int i;

	for (i = 0; i < dag->nedges; i++)
		c += dag->edges[i].cost;
	for (i = 0; i < dag->ntasks; i++)
		w += th_dag_mean_cost(dag, i);
	return w > 0 ? c / w : 0;
}

double th_dag_hf(const struct th_dag *dag, unsigned int task)
{
	double mean = th_dag_mean_cost(dag, task), dev = 0;
	unsigned int s;

	if (!(mean > 0))
		return 0;
	if (dag->proc_class && dag->pin[task] != TH_NONE)
		return dag->nprocs > 1 ? INFINITY : 0;	/* infinite elsewhere */
	if (dag->proc_class) {
		/* the same maximum as over the processors: classes hold their costs */
		for (s = 0; s < dag->nclasses; s++)
			dev = fmax(dev, fabs(th_dag_class_w(dag, task, s) - mean));
		return 2 * dev / mean;
	}
	for (s = 0; s < dag->nprocs; s++)
		dev = fmax(dev, fabs(th_dag_w(dag, task, s) - mean));
	return 2 * dev / mean;
}
