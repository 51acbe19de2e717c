// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * place_exec.c - running a placement (thverbs/place.h): every copy of a task in
 * the schedule becomes a chain on its node's vport, compiled into the
 * collectives' plan object (plan.c) and posted once as re-arming chains.
 * A round is the hosts' increments of their contributions' counters; the
 * NIC does the rest.  Doubles, summed (Documentation/placement.rst); each
 * result is what a host evaluating the same DAG in the same order gets,
 * bit for bit.  A DAG job's steps take their inputs in edge order (a copy
 * takes one); its sources read, and its sinks write, host buffers on the
 * nodes they are pinned to.
 *
 * Per node: one scratch MR holding, for each copy there, its output and
 * an input slot per input that arrives by PUT, and for each member of a
 * job there, its send and recv buffers.  Per copy: counter X (inputs
 * arrived: its chain fires at k * inputs in round k) and, when its
 * outputs need more than one chain, counter Y (the operation done; the
 * fan-out chains fire on it).  Counter 0 of every node counts the copies
 * that finished there: the host waits until all of them have, each round.
 *
 * Which copy feeds a consumer: a copy of the producer on the consumer's
 * node if there is one, else the copy whose output arrives first by the
 * model (its finish plus the edge's PUT), as the schedule assumed.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "group.h"
#include "place_priv.h"
#include "plan.h"
#include "thverbs_priv.h"

#define TH_PX_CT_DONE	0
#define TH_PX_CT_FIRST	1
#define TH_PX_PASS	(TH_NIC_MAX_OPERANDS - 1)

struct th_px_input {
	unsigned int from;		/* the producer copy */
	uint64_t off;			/* operand in this node's scratch */
	bool remote;			/* arrives by PUT into off */
};

struct th_px_copy {
	unsigned int task, node;
	double start, finish;		/* the schedule's */
	unsigned int prev;		/* the copy before it on its node, or ANY */
	unsigned int next;		/* the copy after it on its node, or ANY */
	uint64_t out;			/* output in its node's scratch */
	uint16_t x, y;			/* counters; y 0: none */
	unsigned int nin;
	struct th_px_input *in;		/* in the DAG's predecessor order */
};

struct th_place_exec {
	const struct th_place_result *r;
	const struct th_place_jobs *j;
	unsigned int nodes;
	struct th_group g;
	struct th_plan plan;
	struct th_px_copy *copy;
	unsigned int ncopies;
	unsigned int *first_copy;	/* per task: copies (linked by next) */
	unsigned int *next_copy;
	unsigned int *per_node;		/* copies per node */
	uint64_t *send_off, *recv_off;	/* per job x node, or UINT64_MAX */
	uint64_t *bytes_of;		/* per job */
	uint64_t *step_in, *step_out;	/* per task: a DAG source's, a sink's */
	bool *sink;			/* per task: no successor */
	uint64_t started;
	uint64_t max_chain;
};

static uint64_t *th_px_slot(struct th_place_exec *x, uint64_t *arr,
			    unsigned int job, unsigned int node)
{
	return &arr[(size_t)job * x->nodes + node];
}

/* Bytes of task @v's output. */
static uint64_t th_px_bytes(const struct th_place_exec *x, unsigned int v)
{
	const struct th_place_task *t = &x->r->task[v];

	if (t->role == 'S')
		return x->j->jobs[t->job].steps[t->rank].bytes;
	return x->bytes_of[t->job];
}

/* The predecessors of @v in the DAG's edge order (how the ALU orders them). */
static unsigned int th_px_preds(const struct th_dag *dag, unsigned int v,
				unsigned int *out, double *cost)
{
	unsigned int e, n = 0, from, to;
	double c;

	for (e = 0; e < th_dag_nedges(dag); e++) {
		th_dag_edge(dag, e, &from, &to, &c);
		if (to != v || th_dag_is_virtual(dag, from))
			continue;
		if (out)
			out[n] = from;
		if (cost)
			cost[n] = c;
		n++;
	}
	return n;
}

/*
 * The producer copy of @u that feeds a consumer on @node, as the scheduler
 * assumed (th_sched_arrival()): the earliest-finishing copy by a PUT, or
 * the copy on @node when it is there no later than that.
 */
static unsigned int th_px_feeder(const struct th_place_exec *x, unsigned int u,
				 unsigned int node, double cost)
{
	unsigned int c, best = TH_PLACE_ANY, local = TH_PLACE_ANY;

	for (c = x->first_copy[u]; c != TH_PLACE_ANY; c = x->next_copy[c]) {
		if (x->copy[c].node == node &&
		    (local == TH_PLACE_ANY || x->copy[c].finish < x->copy[local].finish))
			local = c;
		if (best == TH_PLACE_ANY || x->copy[c].finish < x->copy[best].finish)
			best = c;
	}
	if (local != TH_PLACE_ANY &&
	    x->copy[local].finish <= x->copy[best].finish + cost)
		return local;
	return best;
}

/* Copies by node, then by the schedule's start (then finish, index). */
static int th_px_order_cmp(const void *a, const void *b, void *arg)
{
	const struct th_px_copy *c = arg;
	unsigned int i = *(const unsigned int *)a, k = *(const unsigned int *)b;

	if (c[i].node != c[k].node)
		return c[i].node < c[k].node ? -1 : 1;
	if (c[i].start != c[k].start)
		return c[i].start < c[k].start ? -1 : 1;
	if (c[i].finish != c[k].finish)
		return c[i].finish < c[k].finish ? -1 : 1;
	return (i > k) - (i < k);
}

/*
 * Each node runs its copies in the schedule's order: every copy also
 * waits for the one before it on its node, so that the NIC follows the
 * schedule rather than the order in which inputs happen to arrive.
 */
static int th_px_node_order(struct th_place_exec *x)
{
	unsigned int *idx = malloc((x->ncopies + 1) * sizeof(*idx)), i;

	if (!idx)
		return -ENOMEM;
	for (i = 0; i < x->ncopies; i++)
		idx[i] = i;
	qsort_r(idx, x->ncopies, sizeof(*idx), th_px_order_cmp, x->copy);
	for (i = 1; i < x->ncopies; i++)
		if (x->copy[idx[i]].node == x->copy[idx[i - 1]].node) {
			x->copy[idx[i]].prev = idx[i - 1];
			x->copy[idx[i - 1]].next = idx[i];
		}
	free(idx);
	return 0;
}

/* Lay out every node's scratch and give every copy its counters. */
static int th_px_layout(struct th_place_exec *x, uint64_t *scratch)
{
	const struct th_dag *dag = x->r->dag;
	unsigned int c, i, *preds, npred, *next_ct;
	double *cost;
	int ret = 0;

	preds = malloc(th_dag_ntasks(dag) * sizeof(*preds));
	cost = malloc(th_dag_ntasks(dag) * sizeof(*cost));
	next_ct = malloc(x->nodes * sizeof(*next_ct));
	if (!preds || !cost || !next_ct) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < x->nodes; i++)
		next_ct[i] = TH_PX_CT_FIRST;
	for (c = 0; !ret && c < x->ncopies; c++) {
		struct th_px_copy *cp = &x->copy[c];
		const struct th_place_task *t = &x->r->task[cp->task];
		uint64_t b = th_px_bytes(x, cp->task);

		/* a delivery or a sink writes straight into the host's buffer */
		if (t->role == 'D') {
			cp->out = *th_px_slot(x, x->recv_off, t->job, cp->node);
		} else if (t->role == 'S' && x->sink[cp->task]) {
			cp->out = x->step_out[cp->task];
		} else {
			cp->out = scratch[cp->node];
			scratch[cp->node] += b;
		}
		cp->x = next_ct[cp->node]++;
		npred = th_px_preds(dag, cp->task, preds, cost);
		cp->nin = npred;
		cp->in = calloc(npred + 1, sizeof(*cp->in));
		if (!cp->in) {
			ret = -ENOMEM;
			break;
		}
		for (i = 0; i < npred; i++) {
			unsigned int f = th_px_feeder(x, preds[i], cp->node, cost[i]);

			if (f == TH_PLACE_ANY) {
				ret = -EINVAL;	/* the schedule lacks a producer */
				break;
			}
			cp->in[i].from = f;
			cp->in[i].remote = x->copy[f].node != cp->node;
			if (cp->in[i].remote) {
				cp->in[i].off = scratch[cp->node];
				scratch[cp->node] += b;
			}
		}
	}
	/* local inputs: the producer's output, known now */
	for (c = 0; !ret && c < x->ncopies; c++)
		for (i = 0; i < x->copy[c].nin; i++)
			if (!x->copy[c].in[i].remote)
				x->copy[c].in[i].off = x->copy[x->copy[c].in[i].from].out;
	/*
	 * A copy whose outputs do not fit in its chain gets Y: the outputs go
	 * from chains that fire on it once the operation is done (so that, on
	 * a virtual clock too, they leave after it).  In the chain: the
	 * operation's passes, the node's next turn, the outputs, DONE, REARM.
	 */
	for (c = 0; !ret && c < x->ncopies; c++) {
		const struct th_px_copy *cp = &x->copy[c];
		unsigned int k, len = 0;

		for (k = 0; k < x->ncopies; k++)
			for (i = 0; i < x->copy[k].nin; i++)
				len += x->copy[k].in[i].from == c;
		len += cp->nin > TH_NIC_MAX_OPERANDS ?
		       2 + (cp->nin - TH_NIC_MAX_OPERANDS - 1) / TH_PX_PASS : 1;
		len += (cp->next != TH_PLACE_ANY) + 2;
		if (len > x->max_chain)
			x->copy[c].y = next_ct[cp->node]++;
	}
	for (i = 0; !ret && i < x->nodes; i++)
		if (next_ct[i] > x->g.local[i].vp->info.ct_count)
			ret = -ENOSPC;	/* more copies on a node than counters */
out:
	free(preds);
	free(cost);
	free(next_ct);
	return ret;
}

static struct th_remote th_px_remote(const struct th_place_exec *x,
				     unsigned int node, uint64_t off)
{
	struct th_remote r = {
		.node = x->g.peers[node].node, .vport = x->g.peers[node].vport,
		.rkey = x->g.peers[node].scratch_key, .off = off,
	};
	return r;
}

/* out = in[0] + in[1] + ... left to right, <= 7 operands a pass. */
static int th_px_sum(struct th_chain *c, const struct th_px_copy *cp,
		     const struct th_mr *mr, uint32_t count)
{
	const struct th_mr *src[TH_NIC_MAX_OPERANDS];
	uint64_t off[TH_NIC_MAX_OPERANDS];
	unsigned int done, n, i;
	int ret;

	n = cp->nin < TH_NIC_MAX_OPERANDS ? cp->nin : TH_NIC_MAX_OPERANDS;
	for (i = 0; i < TH_NIC_MAX_OPERANDS; i++)
		src[i] = mr;
	for (i = 0; i < n; i++)
		off[i] = cp->in[i].off;
	ret = th_chain_reduce(c, TH_NIC_ALU_SUM, TH_NIC_DT_FLOAT64, count, mr,
			      cp->out, n, src, off, false, 0);
	for (done = n; !ret && done < cp->nin; done += n) {
		n = cp->nin - done < TH_PX_PASS ? cp->nin - done : TH_PX_PASS;
		for (i = 0; i < n; i++)
			off[i] = cp->in[done + i].off;
		ret = th_chain_reduce(c, TH_NIC_ALU_SUM, TH_NIC_DT_FLOAT64, count,
				      mr, cp->out, n, src, off, true, 0);
	}
	return ret;
}

/* The copy's own operation into its output. */
static int th_px_operation(struct th_place_exec *x, struct th_chain *c,
			   const struct th_px_copy *cp, const struct th_mr *mr)
{
	const struct th_place_task *t = &x->r->task[cp->task];
	uint64_t b = th_px_bytes(x, cp->task);
	uint32_t count = b / sizeof(double);
	int ret;

	if (t->role == 'S') {
		/* a source reads its host buffer; a copy moves its one input */
		if (!cp->nin)
			ret = th_chain_copy(c, mr, x->step_in[cp->task], mr,
					    cp->out, b, 0);
		else if (x->j->jobs[t->job].steps[t->rank].kind ==
			 TH_PLACE_STEP_COPY || cp->nin == 1)
			ret = th_chain_copy(c, mr, cp->in[0].off, mr, cp->out, b, 0);
		else
			ret = th_px_sum(c, cp, mr, count);
		return ret;
	}
	if (t->role == 'C')
		return th_chain_copy(c, mr, *th_px_slot(x, x->send_off, t->job,
							cp->node), mr, cp->out, b, 0);
	if (t->role == 'D')
		return th_chain_copy(c, mr, cp->in[0].off, mr, cp->out, b, 0);
	return th_px_sum(c, cp, mr, count);
}

/* Tell every consumer of copy @ci: PUT (remote) or CT_INC (local). */
static int th_px_fan_out(struct th_place_exec *x, unsigned int ci,
			 struct th_chain **c, uint16_t ct, uint64_t thr)
{
	const struct th_px_copy *cp = &x->copy[ci];
	const struct th_mr *mr = x->g.local[cp->node].scratch_mr;
	uint64_t b = th_px_bytes(x, cp->task);
	unsigned int k, i;
	struct th_remote to;
	int ret = 0;

	for (k = 0; !ret && k < x->ncopies; k++) {
		const struct th_px_copy *w = &x->copy[k];

		for (i = 0; !ret && i < w->nin; i++) {
			if (w->in[i].from != ci)
				continue;
			/* room for this and the final CT_INC DONE and REARM */
			if (th_chain_length(*c) + 3 > x->max_chain) {
				ret = th_plan_add(&x->plan, cp->node, ct, thr, thr,
						  "placement: outputs");
				*c = th_plan_chain(&x->plan);
			}
			if (ret)
				break;
			if (w->in[i].remote) {
				to = th_px_remote(x, w->node, w->in[i].off);
				ret = th_chain_put(*c, mr, cp->out, &to, b, w->x, 0);
			} else {
				ret = th_chain_ct_inc(*c, w->x, 1, 0);
			}
		}
	}
	return ret;
}

static int th_px_compile_copy(struct th_place_exec *x, unsigned int ci)
{
	const struct th_px_copy *cp = &x->copy[ci];
	const struct th_mr *mr = x->g.local[cp->node].scratch_mr;
	struct th_chain *c = th_plan_chain(&x->plan);
	/* its inputs (a source: the host's start), and its node's turn */
	uint64_t nin = (cp->nin ? cp->nin : 1) + (cp->prev != TH_PLACE_ANY);
	int ret;

	ret = th_px_operation(x, c, cp, mr);
	if (!ret && cp->next != TH_PLACE_ANY)
		ret = th_chain_ct_inc(c, x->copy[cp->next].x, 1, 0);
	if (!ret && cp->y) {
		ret = th_chain_ct_inc(c, cp->y, 1, 0);
		if (!ret)
			ret = th_plan_add(&x->plan, cp->node, cp->x, nin, nin,
					  "placement: task");
		c = th_plan_chain(&x->plan);
		if (!ret)
			ret = th_px_fan_out(x, ci, &c, cp->y, 1);
	} else if (!ret) {
		ret = th_px_fan_out(x, ci, &c, cp->x, nin);
	}
	if (!ret)
		ret = th_chain_ct_inc(c, TH_PX_CT_DONE, 1, 0);
	if (!ret)
		ret = th_plan_add(&x->plan, cp->node, cp->y ? cp->y : cp->x,
				  cp->y ? 1 : nin, cp->y ? 1 : nin,
				  "placement: task done");
	return ret;
}

/*
 * What the executor runs of a DAG job: sources and sinks pinned (their
 * host buffers live there), inputs as large as the step, a copy with one
 * input; doubles.  Also marks the sinks.
 */
static int th_px_check_dag_jobs(struct th_place_exec *x)
{
	const struct th_dag *dag = x->r->dag;
	unsigned int v, e, from, to, n = th_dag_ntasks(dag), nin;
	double c;

	for (v = 0; v < n; v++)
		x->sink[v] = x->r->task[v].role == 'S';
	for (e = 0; e < th_dag_nedges(dag); e++) {
		th_dag_edge(dag, e, &from, &to, &c);
		if (!th_dag_is_virtual(dag, to))
			x->sink[from] = false;
	}
	for (v = 0; v < n; v++) {
		const struct th_place_task *t = &x->r->task[v];
		const struct th_place_dstep *st;

		if (t->role != 'S')
			continue;
		st = &x->j->jobs[t->job].steps[t->rank];
		nin = th_px_preds(dag, v, NULL, NULL);
		if (st->bytes % sizeof(double) ||
		    ((!nin || x->sink[v]) && st->on == TH_PLACE_ANY) ||
		    (st->kind == TH_PLACE_STEP_COPY && nin > 1))
			return -EOPNOTSUPP;
	}
	for (e = 0; e < th_dag_nedges(dag); e++) {
		th_dag_edge(dag, e, &from, &to, &c);
		if (x->r->task[to].role == 'S' && x->r->task[from].role &&
		    th_px_bytes(x, from) != th_px_bytes(x, to))
			return -EOPNOTSUPP;	/* an input of another size */
	}
	return 0;
}

void th_place_exec_destroy(struct th_place_exec *x)
{
	unsigned int c;

	if (!x)
		return;
	th_group_quiesce(&x->g);
	th_group_fini(&x->g);
	th_plan_fini(&x->plan);
	for (c = 0; x->copy && c < x->ncopies; c++)
		free(x->copy[c].in);
	free(x->copy);
	free(x->first_copy);
	free(x->next_copy);
	free(x->per_node);
	free(x->send_off);
	free(x->recv_off);
	free(x->bytes_of);
	free(x->step_in);
	free(x->step_out);
	free(x->sink);
	free(x);
}

static int th_px_init(struct th_place_exec *x, struct th_vport *const *vps)
{
	const struct th_sched *s = x->r->sched;
	const struct th_dag *dag = x->r->dag;
	unsigned int i, c, n = th_dag_ntasks(dag), nj = x->j->njobs, k;
	uint64_t *scratch;
	int ret = 0;

	x->ncopies = 0;
	for (i = 0; i < th_sched_nslots(s); i++)
		x->ncopies += !th_dag_is_virtual(dag, th_sched_slot(s, i)->task);
	x->copy = calloc(x->ncopies + 1, sizeof(*x->copy));
	x->first_copy = malloc(n * sizeof(*x->first_copy));
	x->next_copy = malloc((x->ncopies + 1) * sizeof(*x->next_copy));
	x->per_node = calloc(x->nodes, sizeof(*x->per_node));
	x->send_off = malloc((size_t)nj * x->nodes * sizeof(*x->send_off));
	x->recv_off = malloc((size_t)nj * x->nodes * sizeof(*x->recv_off));
	x->bytes_of = malloc(nj * sizeof(*x->bytes_of));
	scratch = calloc(x->nodes, sizeof(*scratch));
	if (!x->copy || !x->first_copy || !x->next_copy || !x->per_node ||
	    !x->send_off || !x->recv_off || !x->bytes_of || !scratch) {
		free(scratch);
		return -ENOMEM;
	}
	x->step_in = malloc(n * sizeof(*x->step_in));
	x->step_out = malloc(n * sizeof(*x->step_out));
	x->sink = calloc(n, sizeof(*x->sink));
	if (!x->step_in || !x->step_out || !x->sink) {
		free(scratch);
		return -ENOMEM;
	}
	for (i = 0; i < nj; i++) {
		x->bytes_of[i] = x->j->jobs[i].bytes;
		if (x->j->jobs[i].kind != TH_PLACE_DAG &&
		    x->bytes_of[i] % sizeof(double)) {
			free(scratch);
			return -EOPNOTSUPP;	/* whole doubles only */
		}
	}
	ret = th_px_check_dag_jobs(x);
	if (ret) {
		free(scratch);
		return ret;
	}
	/* copies in slot order; the slot index is the copy index */
	memset(x->first_copy, 0xff, n * sizeof(*x->first_copy));
	for (i = 0, c = 0; i < th_sched_nslots(s); i++) {
		const struct th_sched_slot *sl = th_sched_slot(s, i);

		if (th_dag_is_virtual(dag, sl->task))
			continue;
		x->copy[c] = (struct th_px_copy){ .task = sl->task,
						  .node = sl->proc,
						  .start = sl->start,
						  .finish = sl->finish,
						  .prev = TH_PLACE_ANY,
						  .next = TH_PLACE_ANY };
		x->next_copy[c] = x->first_copy[sl->task];
		x->first_copy[sl->task] = c;
		x->per_node[sl->proc]++;
		c++;
	}
	/* members' send and recv buffers first, then the copies' buffers */
	for (i = 0; i < nj; i++)
		for (k = 0; k < x->nodes; k++) {
			*th_px_slot(x, x->send_off, i, k) = UINT64_MAX;
			*th_px_slot(x, x->recv_off, i, k) = UINT64_MAX;
		}
	for (i = 0; i < nj; i++) {
		const struct th_place_job *jb = &x->j->jobs[i];

		for (k = 0; k < jb->nmembers; k++) {
			unsigned int node = jb->members[k];

			*th_px_slot(x, x->send_off, i, node) = scratch[node];
			scratch[node] += jb->bytes;
			*th_px_slot(x, x->recv_off, i, node) = scratch[node];
			scratch[node] += jb->bytes;
		}
	}
	/* DAG sources' and sinks' host buffers, on their pinned nodes */
	for (i = 0; i < n; i++) {
		const struct th_place_task *t = &x->r->task[i];
		unsigned int on;

		x->step_in[i] = x->step_out[i] = UINT64_MAX;
		if (t->role != 'S')
			continue;
		on = x->j->jobs[t->job].steps[t->rank].on;
		if (!th_px_preds(dag, i, NULL, NULL)) {
			x->step_in[i] = scratch[on];
			scratch[on] += th_px_bytes(x, i);
		}
		if (x->sink[i]) {
			x->step_out[i] = scratch[on];
			scratch[on] += th_px_bytes(x, i);
		}
	}
	x->max_chain = vps[0]->ctx->attr.max_chain;
	ret = th_group_init(&x->g, x->nodes, x->nodes, 0, 2, 8);
	for (i = 0; !ret && i < x->nodes; i++)
		ret = th_group_rank_init(&x->g, &x->g.local[i], i, vps[i], NULL,
					 NULL);
	if (!ret)
		ret = th_px_node_order(x);
	if (!ret)
		ret = th_px_layout(x, scratch);
	for (i = 0; !ret && i < x->nodes; i++)
		ret = th_group_rank_register(&x->g, &x->g.local[i], scratch[i]);
	for (i = 0; !ret && i < x->nodes; i++) {
		uint32_t ct;

		for (ct = 0; !ret && ct < vps[i]->info.ct_count; ct++)
			ret = th_ct_set(vps[i], ct, 0, 0);
	}
	free(scratch);
	return ret;
}

struct th_place_exec *th_place_exec_create(const struct th_place_jobs *j,
					   const struct th_place_result *r,
					   struct th_vport *const *vps,
					   unsigned int nodes)
{
	struct th_place_exec *x;
	unsigned int c;
	int ret;

	if (!j || !r || !r->sched || !r->task || !vps || !nodes ||
	    nodes != th_dag_nprocs(r->dag)) {
		errno = EINVAL;
		return NULL;
	}
	x = calloc(1, sizeof(*x));
	if (!x) {
		errno = ENOMEM;
		return NULL;
	}
	x->r = r;
	x->j = j;
	x->nodes = nodes;
	ret = th_plan_init(&x->plan);
	if (!ret)
		ret = th_px_init(x, vps);
	for (c = 0; !ret && c < x->ncopies; c++)
		ret = th_px_compile_copy(x, c);
	if (!ret)
		ret = th_plan_post(&x->plan, &x->g);
	if (ret) {
		th_place_exec_destroy(x);
		errno = -ret;
		return NULL;
	}
	return x;
}

static double *th_px_buf(struct th_place_exec *x, uint64_t *arr,
			 unsigned int job, unsigned int node)
{
	uint64_t off;

	if (!x || job >= x->j->njobs || node >= x->nodes)
		return NULL;
	off = *th_px_slot(x, arr, job, node);
	return off == UINT64_MAX ? NULL :
	       (double *)(x->g.local[node].scratch + off);
}

double *th_place_exec_send(struct th_place_exec *x, unsigned int job,
			   unsigned int node)
{
	return th_px_buf(x, x->send_off, job, node);
}

double *th_place_exec_recv(struct th_place_exec *x, unsigned int job,
			   unsigned int node)
{
	return th_px_buf(x, x->recv_off, job, node);
}

/* The DAG step's task in the placement DAG, or TH_PLACE_ANY. */
static unsigned int th_px_step_task(const struct th_place_exec *x,
				    unsigned int job, unsigned int step)
{
	unsigned int v;

	for (v = 0; v < th_dag_ntasks(x->r->dag); v++)
		if (x->r->task[v].role == 'S' && x->r->task[v].job == job &&
		    x->r->task[v].rank == step)
			return v;
	return TH_PLACE_ANY;
}

static double *th_px_step_buf(struct th_place_exec *x, uint64_t *arr,
			      unsigned int job, unsigned int step)
{
	unsigned int v = x ? th_px_step_task(x, job, step) : TH_PLACE_ANY;
	unsigned int on;

	if (v == TH_PLACE_ANY || arr[v] == UINT64_MAX)
		return NULL;
	on = x->j->jobs[job].steps[step].on;
	return (double *)(x->g.local[on].scratch + arr[v]);
}

double *th_place_exec_step_in(struct th_place_exec *x,
					unsigned int job, unsigned int step)
{
	return x ? th_px_step_buf(x, x->step_in, job, step) : NULL;
}

double *th_place_exec_step_out(struct th_place_exec *x,
					 unsigned int job, unsigned int step)
{
	return x ? th_px_step_buf(x, x->step_out, job, step) : NULL;
}

int th_place_exec_start(struct th_place_exec *x)
{
	unsigned int c;
	int ret = 0;

	x->started++;
	/* contributions and DAG sources: the copies with no input */
	for (c = 0; !ret && c < x->ncopies; c++)
		if (!x->copy[c].nin)
			ret = th_ct_inc(x->g.local[x->copy[c].node].vp,
					x->copy[c].x, 1);
	return ret;
}

int th_place_exec_wait(struct th_place_exec *x, uint64_t timeout_ns)
{
	struct timespec ts;
	uint64_t now, deadline;
	unsigned int i;
	int ret = 0;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	deadline = timeout_ns > UINT64_MAX - now ? UINT64_MAX : now + timeout_ns;
	for (i = 0; !ret && i < x->nodes; i++) {
		if (!x->per_node[i])
			continue;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
		ret = th_ct_wait(x->g.local[i].vp, TH_PX_CT_DONE,
				 (uint64_t)x->per_node[i] * x->started,
				 deadline > now ? deadline - now : 0);
	}
	return ret;
}
