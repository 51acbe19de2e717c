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
 * fan-out chains fire on it).  A copy with two or more consumers behind a
 * network (the provider's node_remote) sends to each from a chain of its
 * own on Y, since a chain waits for each delivery there before its next
 * descriptor.  Counter 0 of every node counts the chains that end a
 * copy's work there (one a copy, or one a consumer served alone): the
 * host waits until all of them have, each round.
 *
 * Which copy feeds a consumer: a copy of the producer on the consumer's
 * node if there is one, else the copy whose output arrives first by the
 * model (its finish plus the edge's PUT), as the schedule assumed.
 *
 * A copy of a task nothing else waits on (a delivery, a DAG job's sink)
 * also has counter F, raised right after its operation: when F was last
 * raised is when that copy finished, and a job's finish is the latest of
 * its last tasks' earliest copies, as the placer predicts it.  On the
 * virtual clock F's update time is read back from the provider; in real
 * time a watcher thread polls the F counters while the round runs
 * (th_place_exec_watch()).
 *
 * The same compile, with no vports (keys 0, node i's vport 0), describes
 * the chains to th_verify() (th_place_exec_describe()): one definition of
 * what is posted, for the poster and the verifier.  A description stands
 * for nodes on NICs of their own, so it is the layout over a network;
 * TH_PLACE_SPLIT=1 posts that layout on one host too.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "group.h"
#include "place_priv.h"
#include "plan.h"
#include "thverbs_priv.h"
#include <thverbs/verify.h>

#define TH_PX_CT_DONE	0
#define TH_PX_CT_FIRST	1
#define TH_PX_PASS	(TH_NIC_MAX_OPERANDS - 1)
#define TH_PX_LAST_CHAIN "placement: task done"	/* a copy's last chain */

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
	bool split;			/* a chain per remote consumer, on y */
	uint16_t f;			/* finished (a last task's copy); 0: none */
	unsigned int nin;
	struct th_px_input *in;		/* in the DAG's predecessor order */
};

/* A consumer of a copy's output: copy @copy's input @in. */
struct th_px_use {
	unsigned int copy, in;
};

/* The real-time watcher of the F counters (th_place_exec_watch()). */
struct th_px_watch {
	pthread_t thread;
	/* all atomic: round generations, and the flags */
	uint64_t go;			/* the round to watch */
	uint64_t spinning;		/* the round it polls for */
	uint64_t done;			/* the round it finished (| TH_PX_UNSTAMPED) */
	int stop;			/* end the thread */
	int abort;			/* the round is given up */
};

#define TH_PX_UNSTAMPED	(1ULL << 63)	/* done, but not every copy stamped */

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
	uint64_t *send_off, *recv_off;	/* per member of each job */
	unsigned int *member_first;	/* per job + 1: into send_off, recv_off */
	uint64_t none;			/* UINT64_MAX: a node that is no member */
	uint64_t *bytes_of;		/* per job */
	uint64_t *step_in, *step_out;	/* per task: a DAG source's, a sink's */
	bool *sink;			/* per task: a DAG step with no successor */
	bool *last;			/* per task: no real successor */
	unsigned int *pred_first;	/* per task + 1: into pred, pred_cost */
	unsigned int *pred;		/* predecessors, in the DAG's edge order */
	double *pred_cost;
	unsigned int *use_first;	/* per copy + 1: into use */
	struct th_px_use *use;		/* who reads each copy's output */
	uint64_t started;
	uint64_t max_chain;
	uint32_t ct_count;
	bool describe;			/* compiled, never posted: no vports */
	bool all_remote;		/* TH_PLACE_SPLIT: as if over a network */
	struct th_mr *fake_mr;		/* describe: each node's scratch, key 0 */
	/* measuring: the copies with F, when each last finished */
	unsigned int *fin_copy, nfin;
	double *fin_at;			/* seconds: virtual, or CLOCK_MONOTONIC */
	double t0;			/* the round's start, on the same clock */
	bool measured;			/* fin_at holds the last round's */
	struct th_px_watch *watch;
};

/* Member @node's entry of job @job in @arr; UINT64_MAX for a non-member. */
static uint64_t *th_px_slot(struct th_place_exec *x, uint64_t *arr,
			    unsigned int job, unsigned int node)
{
	const struct th_place_job *jb = &x->j->jobs[job];
	unsigned int k;

	for (k = 0; k < jb->nmembers; k++)
		if (jb->members[k] == node)
			return &arr[x->member_first[job] + k];
	x->none = UINT64_MAX;
	return &x->none;
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
static unsigned int th_px_preds(const struct th_place_exec *x, unsigned int v,
				const unsigned int **from, const double **cost)
{
	if (from)
		*from = &x->pred[x->pred_first[v]];
	if (cost)
		*cost = &x->pred_cost[x->pred_first[v]];
	return x->pred_first[v + 1] - x->pred_first[v];
}

/* The predecessor lists, once: every edge between real tasks, in order. */
static int th_px_index_preds(struct th_place_exec *x)
{
	const struct th_dag *dag = x->r->dag;
	unsigned int n = th_dag_ntasks(dag), ne = th_dag_nedges(dag), e, v;
	unsigned int from, to, *fill;
	double c;

	x->pred_first = calloc(n + 1, sizeof(*x->pred_first));
	x->pred = malloc((ne + 1) * sizeof(*x->pred));
	x->pred_cost = malloc((ne + 1) * sizeof(*x->pred_cost));
	x->last = calloc(n, sizeof(*x->last));
	fill = calloc(n + 1, sizeof(*fill));
	if (!x->pred_first || !x->pred || !x->pred_cost || !x->last || !fill) {
		free(fill);
		return -ENOMEM;
	}
	for (v = 0; v < n; v++)
		x->last[v] = !th_dag_is_virtual(dag, v);
	for (e = 0; e < ne; e++) {
		if (th_dag_edge(dag, e, &from, &to, &c) ||
		    th_dag_is_virtual(dag, to))
			continue;
		x->last[from] = false;
		if (!th_dag_is_virtual(dag, from))
			x->pred_first[to + 1]++;
	}
	for (v = 0; v < n; v++)
		x->pred_first[v + 1] += x->pred_first[v];
	for (e = 0; e < ne; e++) {
		if (th_dag_edge(dag, e, &from, &to, &c) ||
		    th_dag_is_virtual(dag, to) || th_dag_is_virtual(dag, from))
			continue;
		x->pred[x->pred_first[to] + fill[to]] = from;
		x->pred_cost[x->pred_first[to] + fill[to]++] = c;
	}
	free(fill);
	return 0;
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

/* Who reads each copy's output: the inputs, grouped by producer copy. */
static int th_px_index_uses(struct th_place_exec *x)
{
	unsigned int c, i, f, *fill;

	x->use_first = calloc(x->ncopies + 1, sizeof(*x->use_first));
	fill = calloc(x->ncopies + 1, sizeof(*fill));
	if (!x->use_first || !fill) {
		free(fill);
		return -ENOMEM;
	}
	for (c = 0; c < x->ncopies; c++)
		for (i = 0; i < x->copy[c].nin; i++)
			x->use_first[x->copy[c].in[i].from + 1]++;
	for (c = 0; c < x->ncopies; c++)
		x->use_first[c + 1] += x->use_first[c];
	x->use = malloc((x->use_first[x->ncopies] + 1) * sizeof(*x->use));
	if (!x->use) {
		free(fill);
		return -ENOMEM;
	}
	/* in consumer order, as the fan-out has always sent them */
	for (c = 0; c < x->ncopies; c++)
		for (i = 0; i < x->copy[c].nin; i++) {
			f = x->copy[c].in[i].from;
			x->use[x->use_first[f] + fill[f]++] =
				(struct th_px_use){ .copy = c, .in = i };
		}
	free(fill);
	return 0;
}

/*
 * TH_PLACE_SPLIT=1: lay a placement out as over a network on any provider
 * (every other node remote), so that a single host runs, and the tests
 * check, the chains a fabric of several hosts would get.
 */
static bool th_px_split_wanted(void)
{
	const char *env = getenv("TH_PLACE_SPLIT");

	return env && *env && strcmp(env, "0");
}

/*
 * Is @to behind a network from @from (the provider's node_remote)?  A
 * PUT there is a message, and the chain that sends it waits for its
 * answer before its next descriptor, so a copy with several such
 * consumers gives each a chain of its own (th_px_compile_copy()), as
 * the collectives' fan-out does.  A description stands for nodes on
 * NICs of their own: all remote.
 */
static bool th_px_node_remote(const struct th_place_exec *x, unsigned int from,
			      unsigned int to)
{
	const struct th_provider_ops *ops;
	struct th_vport *vp;

	if (from == to)
		return false;
	if (x->describe || x->all_remote)
		return true;
	vp = x->g.local[from].vp;
	ops = vp->ctx->dev.ops;
	return ops->node_remote && ops->node_remote(vp, x->g.peers[to].node);
}

/* Is use @u of copy @ci a PUT to a node behind a network? */
static bool th_px_use_remote(const struct th_place_exec *x, unsigned int ci,
			     unsigned int u)
{
	const struct th_px_copy *w = &x->copy[x->use[u].copy];

	return w->in[x->use[u].in].remote &&
	       th_px_node_remote(x, x->copy[ci].node, w->node);
}

/* Does use @u of copy @ci go from a chain of its own? */
static bool th_px_use_alone(const struct th_place_exec *x, unsigned int ci,
			    unsigned int u)
{
	return x->copy[ci].split && th_px_use_remote(x, ci, u);
}

/* The consumers of copy @ci a split would serve from chains of their own. */
static unsigned int th_px_nalone(const struct th_place_exec *x, unsigned int ci)
{
	unsigned int u, n = 0;

	for (u = x->use_first[ci]; u < x->use_first[ci + 1]; u++)
		n += th_px_use_remote(x, ci, u);
	return n;
}

/* Lay out every node's scratch and give every copy its counters. */
static int th_px_layout(struct th_place_exec *x, uint64_t *scratch)
{
	unsigned int c, i, npred, *next_ct;
	const unsigned int *preds;
	const double *cost;
	int ret = 0;

	next_ct = malloc(x->nodes * sizeof(*next_ct));
	x->fin_copy = malloc((x->ncopies + 1) * sizeof(*x->fin_copy));
	x->fin_at = calloc(x->ncopies + 1, sizeof(*x->fin_at));
	if (!next_ct || !x->fin_copy || !x->fin_at) {
		free(next_ct);
		return -ENOMEM;
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
		if (x->last[cp->task]) {
			cp->f = next_ct[cp->node]++;
			x->fin_copy[x->nfin++] = c;
		}
		npred = th_px_preds(x, cp->task, &preds, &cost);
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
	if (!ret)
		ret = th_px_index_uses(x);
	/*
	 * A copy whose outputs do not fit in its chain gets Y: the outputs go
	 * from chains that fire on it once the operation is done (so that, on
	 * a virtual clock too, they leave after it).  In the chain: the
	 * operation's passes, F, the node's next turn, the outputs, DONE,
	 * REARM.  A copy with two or more consumers behind a network may
	 * split: Y too, and each of those consumers a chain of its own on it
	 * (PUT, DONE, REARM), when the rest (the local outputs and Y's
	 * increment) fit in one; each of those chains raises DONE, so its
	 * node counts them.  The Ys that must be come first; a split that
	 * would need a counter more than the vport has is not made.
	 */
	for (c = 0; !ret && c < x->ncopies; c++) {
		struct th_px_copy *cp = &x->copy[c];
		unsigned int len, nuse, nalone;

		nuse = x->use_first[c + 1] - x->use_first[c];
		len = cp->nin > TH_NIC_MAX_OPERANDS ?
		      2 + (cp->nin - TH_NIC_MAX_OPERANDS - 1) / TH_PX_PASS : 1;
		len += (cp->f != 0) + (cp->next != TH_PLACE_ANY) + 2;
		nalone = th_px_nalone(x, c);
		cp->split = nalone >= 2 && len + nuse - nalone <= x->max_chain;
		if (len + nuse > x->max_chain)
			cp->y = next_ct[cp->node]++;
	}
	/* the splits that need a Y of their own, while counters last */
	for (c = 0; !ret && c < x->ncopies; c++) {
		struct th_px_copy *cp = &x->copy[c];

		if (cp->split && !cp->y) {
			if (next_ct[cp->node] < x->ct_count)
				cp->y = next_ct[cp->node]++;
			else
				cp->split = false;
		}
		if (cp->split)
			x->per_node[cp->node] += th_px_nalone(x, c) - 1;
	}
	/*
	 * More copies on a node than counters: refused when posting; a
	 * description keeps them, for the verifier to say so.
	 */
	for (i = 0; !ret && !x->describe && i < x->nodes; i++)
		if (next_ct[i] > x->ct_count)
			ret = -ENOSPC;
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

/*
 * Tell every consumer of copy @ci: PUT (remote) or CT_INC (local); @alone
 * those that go from chains of their own (th_px_use_alone()), or the
 * others.
 */
static int th_px_fan_out(struct th_place_exec *x, unsigned int ci,
			 struct th_chain **c, uint16_t ct, uint64_t thr,
			 bool alone)
{
	const struct th_px_copy *cp = &x->copy[ci];
	const struct th_mr *mr = x->g.local[cp->node].scratch_mr;
	uint64_t b = th_px_bytes(x, cp->task);
	unsigned int u;
	struct th_remote to;
	int ret = 0;

	for (u = x->use_first[ci]; !ret && u < x->use_first[ci + 1]; u++) {
		const struct th_px_copy *w = &x->copy[x->use[u].copy];
		const struct th_px_input *in = &w->in[x->use[u].in];

		if (th_px_use_alone(x, ci, u) != alone)
			continue;
		/* room for this and the final CT_INC DONE and REARM */
		if (th_chain_length(*c) + 3 > x->max_chain) {
			ret = th_plan_add(&x->plan, cp->node, ct, thr, thr,
					  "placement: outputs");
			*c = th_plan_chain(&x->plan);
		}
		if (ret)
			break;
		if (in->remote) {
			to = th_px_remote(x, w->node, in->off);
			ret = th_chain_put(*c, mr, cp->out, &to, b, w->x, 0);
		} else {
			ret = th_chain_ct_inc(*c, w->x, 1, 0);
		}
	}
	return ret;
}

/*
 * A split copy after its operation in @c: the local outputs and Y's
 * increment there; then a chain per remote consumer on Y (PUT, DONE), the
 * copy's last chain the last of them.
 */
static int th_px_compile_split(struct th_place_exec *x, unsigned int ci,
			       struct th_chain *c, uint64_t nin)
{
	const struct th_px_copy *cp = &x->copy[ci];
	const struct th_mr *mr = x->g.local[cp->node].scratch_mr;
	uint64_t b = th_px_bytes(x, cp->task);
	unsigned int u, left = 0;
	struct th_remote to;
	int ret;

	ret = th_px_fan_out(x, ci, &c, cp->x, nin, false);
	if (!ret)
		ret = th_chain_ct_inc(c, cp->y, 1, 0);
	if (!ret)
		ret = th_plan_add(&x->plan, cp->node, cp->x, nin, nin,
				  "placement: task");
	for (u = x->use_first[ci]; u < x->use_first[ci + 1]; u++)
		left += th_px_use_alone(x, ci, u);
	for (u = x->use_first[ci]; !ret && u < x->use_first[ci + 1]; u++) {
		const struct th_px_copy *w = &x->copy[x->use[u].copy];
		const struct th_px_input *in = &w->in[x->use[u].in];

		if (!th_px_use_alone(x, ci, u))
			continue;
		c = th_plan_chain(&x->plan);
		to = th_px_remote(x, w->node, in->off);
		ret = th_chain_put(c, mr, cp->out, &to, b, w->x, 0);
		if (!ret)
			ret = th_chain_ct_inc(c, TH_PX_CT_DONE, 1, 0);
		if (!ret)
			ret = th_plan_add(&x->plan, cp->node, cp->y, 1, 1,
					  --left ? "placement: output" :
					  TH_PX_LAST_CHAIN);
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
	if (!ret && cp->f)		/* it finished: now, for the clock */
		ret = th_chain_ct_inc(c, cp->f, 1, 0);
	if (!ret && cp->next != TH_PLACE_ANY)
		ret = th_chain_ct_inc(c, x->copy[cp->next].x, 1, 0);
	if (!ret && cp->split) {
		return th_px_compile_split(x, ci, c, nin);
	} else if (!ret && cp->y) {
		ret = th_chain_ct_inc(c, cp->y, 1, 0);
		if (!ret)
			ret = th_plan_add(&x->plan, cp->node, cp->x, nin, nin,
					  "placement: task");
		c = th_plan_chain(&x->plan);
		if (!ret)
			ret = th_px_fan_out(x, ci, &c, cp->y, 1, false);
	} else if (!ret) {
		ret = th_px_fan_out(x, ci, &c, cp->x, nin, false);
	}
	if (!ret)
		ret = th_chain_ct_inc(c, TH_PX_CT_DONE, 1, 0);
	if (!ret)
		ret = th_plan_add(&x->plan, cp->node, cp->y ? cp->y : cp->x,
				  cp->y ? 1 : nin, cp->y ? 1 : nin,
				  TH_PX_LAST_CHAIN);
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
		if (!th_dag_edge(dag, e, &from, &to, &c) &&
		    !th_dag_is_virtual(dag, to))
			x->sink[from] = false;
	}
	for (v = 0; v < n; v++) {
		const struct th_place_task *t = &x->r->task[v];
		const struct th_place_dstep *st;

		if (t->role != 'S')
			continue;
		st = &x->j->jobs[t->job].steps[t->rank];
		nin = th_px_preds(x, v, NULL, NULL);
		if (st->bytes % sizeof(double) ||
		    ((!nin || x->sink[v]) && st->on == TH_PLACE_ANY) ||
		    (st->kind == TH_PLACE_STEP_COPY && nin > 1))
			return -EOPNOTSUPP;
	}
	for (e = 0; e < th_dag_nedges(dag); e++) {
		if (th_dag_edge(dag, e, &from, &to, &c))
			continue;
		if (x->r->task[to].role == 'S' && x->r->task[from].role &&
		    th_px_bytes(x, from) != th_px_bytes(x, to))
			return -EOPNOTSUPP;	/* an input of another size */
	}
	return 0;
}

static void th_px_watch_stop(struct th_place_exec *x);
static int th_px_describe_group(struct th_place_exec *x);
static int th_px_verify_compiled(const struct th_place_exec *x,
				 const struct th_nic_query *limits);

void th_place_exec_destroy(struct th_place_exec *x)
{
	unsigned int c;

	if (!x)
		return;
	th_px_watch_stop(x);
	for (c = 0; x->fake_mr && x->g.local && c < x->nodes; c++)
		x->g.local[c].scratch_mr = NULL;	/* never registered */
	th_group_quiesce(&x->g);
	th_group_fini(&x->g);
	free(x->fake_mr);
	free(x->pred_first);
	free(x->pred);
	free(x->pred_cost);
	free(x->last);
	free(x->use_first);
	free(x->use);
	free(x->fin_copy);
	free(x->fin_at);
	th_plan_fini(&x->plan);
	for (c = 0; x->copy && c < x->ncopies; c++)
		free(x->copy[c].in);
	free(x->copy);
	free(x->first_copy);
	free(x->next_copy);
	free(x->per_node);
	free(x->send_off);
	free(x->recv_off);
	free(x->member_first);
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
	x->member_first = calloc(nj + 1, sizeof(*x->member_first));
	for (i = 0; x->member_first && i < nj; i++)
		x->member_first[i + 1] = x->member_first[i] +
					 x->j->jobs[i].nmembers;
	k = x->member_first ? x->member_first[nj] : 0;
	x->send_off = malloc((k + 1) * sizeof(*x->send_off));
	x->recv_off = malloc((k + 1) * sizeof(*x->recv_off));
	x->bytes_of = malloc(nj * sizeof(*x->bytes_of));
	scratch = calloc(x->nodes, sizeof(*scratch));
	if (!x->copy || !x->first_copy || !x->next_copy || !x->per_node ||
	    !x->member_first || !x->send_off || !x->recv_off || !x->bytes_of || !scratch) {
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
	ret = th_px_index_preds(x);
	if (!ret)
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
	for (i = 0; i < nj; i++) {
		const struct th_place_job *jb = &x->j->jobs[i];

		for (k = 0; k < jb->nmembers; k++) {
			unsigned int node = jb->members[k];

			x->send_off[x->member_first[i] + k] = scratch[node];
			scratch[node] += jb->bytes;
			x->recv_off[x->member_first[i] + k] = scratch[node];
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
		if (!th_px_preds(x, i, NULL, NULL)) {
			x->step_in[i] = scratch[on];
			scratch[on] += th_px_bytes(x, i);
		}
		if (x->sink[i]) {
			x->step_out[i] = scratch[on];
			scratch[on] += th_px_bytes(x, i);
		}
	}
	ret = th_group_init(&x->g, x->nodes, x->nodes, 0, 2, 8);
	if (!ret && x->describe)
		ret = th_px_describe_group(x);
	for (i = 0; !ret && !x->describe && i < x->nodes; i++)
		ret = th_group_rank_init(&x->g, &x->g.local[i], i, vps[i], NULL,
					 NULL);
	if (!ret)
		ret = th_px_node_order(x);
	if (!ret)
		ret = th_px_layout(x, scratch);
	for (i = 0; !ret && !x->describe && i < x->nodes; i++)
		ret = th_group_rank_register(&x->g, &x->g.local[i], scratch[i]);
	for (i = 0; !ret && !x->describe && i < x->nodes; i++) {
		uint32_t ct;

		for (ct = 0; !ret && ct < vps[i]->info.ct_count; ct++)
			ret = th_ct_set(vps[i], ct, 0, 0);
	}
	free(scratch);
	return ret;
}

/*
 * Describing, not posting: node i's vport 0, keys 0 and a region per node
 * that is never registered; the verifier reads counters, thresholds and
 * targets, not keys.
 */
static int th_px_describe_group(struct th_place_exec *x)
{
	unsigned int i;

	x->fake_mr = calloc(x->nodes, sizeof(*x->fake_mr));
	if (!x->fake_mr)
		return -ENOMEM;
	for (i = 0; i < x->nodes; i++) {
		x->g.local[i].rank = i;
		x->g.local[i].scratch_mr = &x->fake_mr[i];
		x->g.peers[i] = (struct th_group_peer){ .node = i, .vport = 0 };
	}
	return 0;
}

/* The placement compiled into x->plan, on @vps or (describing) none. */
static struct th_place_exec *th_px_compile(const struct th_place_jobs *j,
					   const struct th_place_result *r,
					   struct th_vport *const *vps,
					   unsigned int nodes,
					   const struct th_nic_query *limits)
{
	struct th_place_exec *x;
	unsigned int c;
	int ret;

	if (!j || !r || !r->sched || !r->task || (!vps && !limits) || !nodes ||
	    nodes != th_dag_nprocs(r->dag) || th_place_njobs(j) != r->njobs) {
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
	x->describe = !vps;
	x->all_remote = th_px_split_wanted();
	x->max_chain = vps ? vps[0]->ctx->attr.max_chain : limits->max_chain;
	x->ct_count = vps ? vps[0]->info.ct_count : limits->max_counters;
	for (c = 0; vps && c < nodes; c++)
		if (vps[c]->info.ct_count < x->ct_count)
			x->ct_count = vps[c]->info.ct_count;
	ret = th_plan_init(&x->plan);
	if (!ret)
		ret = th_px_init(x, vps);
	for (c = 0; !ret && c < x->ncopies; c++)
		ret = th_px_compile_copy(x, c);
	if (ret) {
		th_place_exec_destroy(x);
		errno = -ret;
		return NULL;
	}
	return x;
}

struct th_place_exec *th_place_exec_create(const struct th_place_jobs *j,
					   const struct th_place_result *r,
					   struct th_vport *const *vps,
					   unsigned int nodes)
{
	struct th_place_exec *x;
	int ret;

	if (!vps) {
		errno = EINVAL;
		return NULL;
	}
	x = th_px_compile(j, r, vps, nodes, NULL);
	if (!x)
		return NULL;
	ret = th_px_verify_compiled(x, &vps[0]->ctx->attr);
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

static double th_px_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/*
 * The watcher: while it is on it never sleeps (a wake-up would delay the
 * round's start by tens of microseconds); each round it polls the F
 * counters of the copies not yet seen, one sweep after another, and
 * stamps each with CLOCK_MONOTONIC when its count reaches the round; it
 * stops when all are seen or the round is given up.  A stamp is late by at
 * most one sweep (a load per unseen copy) plus whatever time the watcher
 * is not on a CPU.
 */
static void *th_px_watcher(void *arg)
{
	struct th_place_exec *x = arg;
	struct th_px_watch *w = x->watch;
	unsigned char *seen = calloc(x->nfin + 1, 1);
	unsigned int i, pending;
	uint64_t gen, target, v;

	while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE)) {
		gen = __atomic_load_n(&w->go, __ATOMIC_ACQUIRE);
		if (gen == (__atomic_load_n(&w->done, __ATOMIC_RELAXED) &
			    ~TH_PX_UNSTAMPED)) {
			sched_yield();	/* between rounds: others may run */
			continue;
		}
		target = gen;	/* the round's number: F counts rounds */
		__atomic_store_n(&w->spinning, gen, __ATOMIC_RELEASE);
		if (seen)
			memset(seen, 0, x->nfin);
		pending = seen ? x->nfin : 0;
		while (pending && !__atomic_load_n(&w->abort, __ATOMIC_ACQUIRE))
			for (i = 0; i < x->nfin; i++) {
				const struct th_px_copy *cp = &x->copy[x->fin_copy[i]];

				if (seen[i] ||
				    th_ct_read(x->g.local[cp->node].vp, cp->f, &v,
					       NULL) || v < target)
					continue;
				x->fin_at[i] = th_px_mono();
				seen[i] = 1;
				pending--;
			}
		__atomic_store_n(&w->done, pending || !seen ?
				 gen | TH_PX_UNSTAMPED : gen, __ATOMIC_RELEASE);
	}
	free(seen);
	return NULL;
}

static void th_px_watch_stop(struct th_place_exec *x)
{
	struct th_px_watch *w = x->watch;

	if (!w)
		return;
	__atomic_store_n(&w->abort, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&w->stop, 1, __ATOMIC_RELEASE);
	pthread_join(w->thread, NULL);
	free(w);
	x->watch = NULL;
}

int th_place_exec_watch(struct th_place_exec *x, bool on)
{
	struct th_px_watch *w;
	int ret;

	if (!x || x->describe)
		return -EINVAL;
	if (!on) {
		th_px_watch_stop(x);
		return 0;
	}
	if (x->watch)
		return 0;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	/* the rounds before it are not watched (nor one under way) */
	w->go = w->spinning = x->started;
	w->done = x->started | TH_PX_UNSTAMPED;
	x->watch = w;
	ret = -pthread_create(&w->thread, NULL, th_px_watcher, x);
	if (ret) {
		free(w);
		x->watch = NULL;
	}
	return ret;
}

/* A virtual clock on the provider of @x's vports, or NULL: real time. */
static const struct th_provider_ops *th_px_timed(const struct th_place_exec *x)
{
	const struct th_vport *vp = x->g.local[0].vp;
	const struct th_provider_ops *ops = vp->ctx->dev.ops;
	uint64_t fs;

	return ops->timing_seen && !ops->timing_seen(vp, 0, &fs) ? ops : NULL;
}

int th_place_exec_start(struct th_place_exec *x)
{
	unsigned int c;
	int ret = 0;

	if (!x || x->describe)
		return -EINVAL;
	x->started++;
	x->measured = false;
	if (x->watch && !th_px_timed(x)) {
		struct th_px_watch *w = x->watch;

		/* the watcher polls before the first increment */
		__atomic_store_n(&w->abort, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&w->go, x->started, __ATOMIC_RELEASE);
		while (__atomic_load_n(&w->spinning, __ATOMIC_ACQUIRE) != x->started)
			sched_yield();
	}
	x->t0 = th_place_timed_now();
	if (x->t0 < 0)
		x->t0 = th_px_mono();
	/* contributions and DAG sources: the copies with no input */
	for (c = 0; !ret && c < x->ncopies; c++)
		if (!x->copy[c].nin)
			ret = th_ct_inc(x->g.local[x->copy[c].node].vp,
					x->copy[c].x, 1);
	return ret;
}

/* The watcher's round ends (given up on @ret); 0 if it stamped them all. */
static int th_px_watch_end(struct th_place_exec *x, int ret)
{
	struct th_px_watch *w = x->watch;
	uint64_t done;

	if (ret)
		__atomic_store_n(&w->abort, 1, __ATOMIC_RELEASE);
	/* every F is raised before its node's DONE: the sweep ends soon */
	while (((done = __atomic_load_n(&w->done, __ATOMIC_ACQUIRE)) &
		~TH_PX_UNSTAMPED) != __atomic_load_n(&w->go, __ATOMIC_RELAXED))
		sched_yield();
	return ret ? ret : done & TH_PX_UNSTAMPED ? -ENODATA : 0;
}

/* On the virtual clock: when each F was last raised. */
static int th_px_read_finishes(struct th_place_exec *x,
			       const struct th_provider_ops *ops)
{
	unsigned int i;
	uint64_t fs;
	int ret = 0;

	for (i = 0; !ret && i < x->nfin; i++) {
		const struct th_px_copy *cp = &x->copy[x->fin_copy[i]];

		ret = ops->timing_seen(x->g.local[cp->node].vp, cp->f, &fs);
		x->fin_at[i] = fs * 1e-15;
	}
	return ret;
}

int th_place_exec_wait(struct th_place_exec *x, uint64_t timeout_ns)
{
	const struct th_provider_ops *timed;
	struct timespec ts;
	uint64_t now, deadline;
	unsigned int i;
	int ret = 0;

	if (!x || x->describe)
		return -EINVAL;
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
	timed = th_px_timed(x);
	if (timed) {
		if (!ret)
			ret = th_px_read_finishes(x, timed);
		x->measured = !ret;
	} else if (x->watch) {
		int wr = th_px_watch_end(x, ret);

		x->measured = !wr;
	}
	return ret;
}

int th_place_exec_finishes(struct th_place_exec *x, double *finish_s,
			   unsigned int njobs)
{
	unsigned int i, job, n;
	double *first;

	if (!x || !finish_s || njobs != x->j->njobs || x->describe)
		return -EINVAL;
	if (!x->measured)
		return -ENODATA;
	n = th_dag_ntasks(x->r->dag);
	first = malloc(n * sizeof(*first));
	if (!first)
		return -ENOMEM;
	/* a job's finish: the latest of its last tasks' earliest copies */
	for (i = 0; i < n; i++)
		first[i] = INFINITY;
	for (i = 0; i < x->nfin; i++) {
		unsigned int t = x->copy[x->fin_copy[i]].task;

		first[t] = fmin(first[t], x->fin_at[i] - x->t0);
	}
	for (job = 0; job < njobs; job++)
		finish_s[job] = 0;
	for (i = 0; i < n; i++)
		if (x->last[i] && isfinite(first[i]))
			finish_s[x->r->task[i].job] =
				fmax(finish_s[x->r->task[i].job], first[i]);
	free(first);
	return 0;
}

/* ---- describing the chains to the verifier ---------------------------- */

/* What th_place_exec_describe() hands out; the set first. */
struct th_px_described {
	struct th_verify_set set;
	struct th_nic_query limits;
	struct th_verify_chain *chains;
	struct th_nic_desc *descs;
	struct th_verify_action *actions;
	char *names;
};

/* The chains compiled into @x's plan, as th_verify() reads them. */
static struct th_verify_set *th_px_set_of(const struct th_place_exec *x,
					  const struct th_nic_query *limits)
{
	struct th_px_described *d;
	unsigned int i, c, k, na = 0;
	size_t nlen = 0, off = 0;
	int ret = -ENOMEM;

	d = calloc(1, sizeof(*d));
	if (!d)
		goto out;
	d->limits = *limits;
	d->chains = calloc(x->plan.nsteps + 1, sizeof(*d->chains));
	d->descs = malloc((x->plan.ndesc + 1) * sizeof(*d->descs));
	d->actions = calloc(x->ncopies + 1, sizeof(*d->actions));
	/* a name per chain: its task's, @node, and which of its chains */
	for (i = 0, c = 0; i < x->plan.nsteps; i++) {
		nlen += 32 + strlen(c < x->ncopies ?
				    th_dag_name(x->r->dag, x->copy[c].task) : "?");
		c += !strcmp(x->plan.step[i].what, TH_PX_LAST_CHAIN);
	}
	d->names = malloc(nlen + 1);
	if (!d->chains || !d->descs || !d->actions || !d->names)
		goto out;
	memcpy(d->descs, x->plan.desc, x->plan.ndesc * sizeof(*d->descs));
	/*
	 * The plan's steps in copy order: each copy's chains were added
	 * together, in th_px_compile_copy(), the last one ending in DONE.
	 */
	for (i = 0, c = 0, k = 0; i < x->plan.nsteps; i++) {
		const struct th_plan_step *st = &x->plan.step[i];
		struct th_verify_chain *vc = &d->chains[i];
		struct th_nic_desc *first = &d->descs[st->first];
		char part[16] = "";
		int n;

		/* what th_plan_post() writes into the first descriptor */
		first->trig_ct = st->ct;
		first->threshold = st->threshold;
		vc->node = x->g.peers[st->local].node;
		vc->vport = x->g.peers[st->local].vport;
		vc->descs = first;
		vc->ndesc = st->ndesc;
		/* JOB.TASK@nNODE, then /2, /3 for a copy's further chains */
		if (k)
			snprintf(part, sizeof(part), "/%u", k + 1);
		n = snprintf(d->names + off, nlen + 1 - off, "%s@n%u%s",
			     c < x->ncopies ?
			     th_dag_name(x->r->dag, x->copy[c].task) : "?",
			     st->local, part);
		vc->name = (const char *)(uintptr_t)off;
		off += n + 1;
		k++;
		if (!strcmp(st->what, TH_PX_LAST_CHAIN)) {
			c++;	/* the copy's last chain: the next copy's follow */
			k = 0;
		}
	}
	for (i = 0; i < x->plan.nsteps; i++)
		d->chains[i].name = d->names + (uintptr_t)d->chains[i].name;
	/* the host's part of a round: each source's counter, once */
	for (c = 0; c < x->ncopies; c++)
		if (!x->copy[c].nin)
			d->actions[na++] = (struct th_verify_action){
				.counter = { .node = x->g.peers[x->copy[c].node].node,
					     .vport = x->g.peers[x->copy[c].node].vport,
					     .ct = x->copy[c].x },
				.value = 1,
			};
	d->set = (struct th_verify_set){
		.chains = d->chains, .nchains = x->plan.nsteps,
		.actions = d->actions, .nactions = na, .limits = &d->limits,
	};
	ret = 0;
out:
	if (ret) {
		th_place_exec_describe_free(d ? &d->set : NULL);
		errno = -ret;
		return NULL;
	}
	return &d->set;
}

struct th_verify_set *th_place_exec_describe(const struct th_place_jobs *j,
					     const struct th_place_result *r,
					     const struct th_nic_query *limits)
{
	struct th_verify_set *set;
	struct th_place_exec *x;
	int err;

	if (!limits) {
		errno = EINVAL;
		return NULL;
	}
	x = th_px_compile(j, r, NULL, r ? th_dag_nprocs(r->dag) : 0, limits);
	if (!x)
		return NULL;
	set = th_px_set_of(x, limits);
	err = errno;
	th_place_exec_destroy(x);
	errno = err;
	return set;
}

/*
 * TH_VERIFY_PLANS=1, as for the collectives' plans (th_plan_verify_wanted();
 * debug runs, the tests): th_place_exec_create() verifies the chains it
 * compiled, as they will be posted, with the NIC's limits of node 0;
 * -EDEADLK on a finding (a chain that would not fire, finish or fit),
 * before anything is posted.
 */
static int th_px_verify_compiled(const struct th_place_exec *x,
				 const struct th_nic_query *limits)
{
	struct th_verify_finding f[4];
	struct th_verify_set *set;
	int n, i;

	if (!th_plan_verify_wanted())
		return 0;
	set = th_px_set_of(x, limits);
	if (!set)
		return -errno;
	/* the vports' own rings, which may be smaller than the NIC allows */
	for (i = 0; i < (int)x->nodes; i++) {
		const struct th_vport *vp = x->g.local[i].vp;

		if (!set->sq_entries || vp->sq_entries < set->sq_entries)
			set->sq_entries = vp->sq_entries;
		if (!set->cq_entries || vp->cq_entries < set->cq_entries)
			set->cq_entries = vp->cq_entries;
	}
	n = th_verify(set, f, 4);
	for (i = 0; i < n && i < 4; i++)
		if (!th_verify_class_is_warning(f[i].cls)) {
			n = -EDEADLK;
			break;
		}
	th_place_exec_describe_free(set);
	return n < 0 ? n : 0;
}

void th_place_exec_describe_free(struct th_verify_set *set)
{
	struct th_px_described *d = (struct th_px_described *)set;

	if (!d)
		return;
	free(d->chains);
	free(d->descs);
	free(d->actions);
	free(d->names);
	free(d);
}
