// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * th_fault.c - what the engine keeps per node: fault injection on what its
 * NIC sends, and the statistics of its vports that are gone, so a node's
 * totals outlive them.
 *
 * The fabric is reliable the way a real one is.  A delivery (a PUT's
 * data, a GET's request, a remote WRITE_INLINE) that fault injection
 * loses never arrives, and the sender sends it again after its timeout:
 * the chain is parked with the provider (ops->park) and resumes at the
 * same descriptor.  After the configured number of retries, the last one
 * lost too, the descriptor fails with -ETIMEDOUT, which fails the chain
 * and raises the failure values of its counters and of the counters it
 * would have raised on its targets (th_chain.c), so that whoever waits on
 * them fails instead of hanging.  A delayed delivery is parked once and
 * then goes.  Nothing is delivered twice, and nothing is lost silently:
 * every loss, delay, retry and timeout is counted on the sending vport.
 */
#include "th_engine_int.h"

int th_eng_nodes_init(struct th_eng *eng)
{
	u32 i;

	eng->nodes = th_vzalloc(sizeof(*eng->nodes) * eng->lim.nodes);
	if (!eng->nodes)
		return -ENOMEM;
	for (i = 0; i < eng->lim.nodes; i++)
		th_lock_init(&eng->nodes[i].lock);
	return 0;
}

void th_eng_fini(struct th_eng *eng)
{
	u32 i;

	if (!eng->nodes)
		return;
	for (i = 0; i < eng->lim.nodes; i++)
		th_lock_destroy(&eng->nodes[i].lock);
	th_vfree(eng->nodes);
	eng->nodes = NULL;
}

/* splitmix64: a fine generator from any seed, zero included. */
static u64 th_eng_fault_next(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * Set node @node's fault injection; rates of 0 turn it off.  The
 * generator restarts from @f->seed.  -EINVAL for a rate or time out of
 * range, -EOPNOTSUPP when the provider cannot park chains.
 */
int th_eng_fault_set(struct th_eng *eng, u32 node, const struct th_eng_fault *f)
{
	struct th_eng_node *n;

	if (node >= eng->lim.nodes || f->drop_ppm > TH_ENG_FAULT_PPM ||
	    f->delay_ppm > TH_ENG_FAULT_PPM - f->drop_ppm ||
	    f->delay_ns > TH_ENG_FAULT_MAX_NS ||
	    f->retry_ns > TH_ENG_FAULT_MAX_NS ||
	    f->retries > TH_ENG_FAULT_MAX_RETRIES ||
	    (f->vport != TH_ENG_FAULT_ANY && f->vport >= eng->lim.max_vports))
		return -EINVAL;
	if (!eng->ops->park && (f->drop_ppm || f->delay_ppm))
		return -EOPNOTSUPP;
	n = &eng->nodes[node];
	th_lock(&n->lock);
	n->fault = *f;
	n->rng = f->seed;
	th_write_once(n->faulty, f->drop_ppm || f->delay_ppm);
	th_unlock(&n->lock);
	return 0;
}

int th_eng_fault_get(struct th_eng *eng, u32 node, struct th_eng_fault *f)
{
	struct th_eng_node *n;

	if (node >= eng->lim.nodes)
		return -EINVAL;
	n = &eng->nodes[node];
	th_lock(&n->lock);
	*f = n->fault;
	th_unlock(&n->lock);
	return 0;
}

/*
 * Before descriptor chain->pos sends its delivery: 0 to send it now;
 * -EAGAIN to park the chain for chain->park_ns (lost: sent again then;
 * delayed: goes then); -ETIMEDOUT when the last retry was lost too.
 */
int th_eng_fault_check(struct th_eng_chain *chain)
{
	struct th_eng_vport *vp = chain->vp;
	struct th_eng_node *n = &vp->eng->nodes[vp->node];
	u64 roll = 0;
	u32 drop = 0, delay = 0, retries = 0;
	u64 delay_ns = 0, retry_ns = 0;
	bool hit = false;

	if (chain->fault_pass) {
		chain->fault_pass = false;
		chain->tries = 0;
		return 0;
	}
	if (!th_read_once(n->faulty))
		return 0;
	th_lock(&n->lock);
	if (n->fault.vport == TH_ENG_FAULT_ANY || n->fault.vport == vp->index) {
		hit = true;
		roll = th_eng_fault_next(&n->rng) % TH_ENG_FAULT_PPM;
		drop = n->fault.drop_ppm;
		delay = n->fault.delay_ppm;
		delay_ns = n->fault.delay_ns;
		retries = n->fault.retries;
		retry_ns = n->fault.retry_ns;
	}
	th_unlock(&n->lock);
	if (!hit || roll >= (u64)drop + delay) {
		chain->tries = 0;
		return 0;
	}
	th_trace_fault(vp->node, vp->index, chain->seq,
		       roll >= drop ? 1 : chain->tries >= retries ? 2 : 0,
		       chain->tries);
	th_lock(&vp->lock);
	if (roll < drop) {
		vp->stats.faults_dropped++;
		if (chain->tries >= retries) {
			vp->stats.timeouts++;
			th_unlock(&vp->lock);
			chain->tries = 0;
			if (vp->eng->ops->notify)
				vp->eng->ops->notify(vp, TH_ENG_EVENT_FAULT,
						     -ETIMEDOUT);
			return -ETIMEDOUT;
		}
		vp->stats.retries++;
		chain->tries++;
		chain->park_ns = retry_ns ? retry_ns : 1;
	} else {
		vp->stats.faults_delayed++;
		chain->fault_pass = true;
		chain->park_ns = delay_ns ? delay_ns : 1;
	}
	th_unlock(&vp->lock);
	return -EAGAIN;
}

/* @vp is destroyed: its node's totals keep what it counted. */
void th_eng_fault_vport_gone(struct th_eng_vport *vp)
{
	struct th_eng_node *n = &vp->eng->nodes[vp->node];
	struct th_eng_stats st;

	th_eng_stats_read(vp, &st);
	th_lock(&n->lock);
	th_eng_stats_add(&n->gone, &st);
	th_unlock(&n->lock);
}

/* What node @node's destroyed vports counted (add the live ones' to it). */
void th_eng_node_stats(struct th_eng *eng, u32 node, struct th_eng_stats *st)
{
	struct th_eng_node *n = &eng->nodes[node];

	th_lock(&n->lock);
	*st = n->gone;
	th_unlock(&n->lock);
}

void th_eng_chain_set_due(struct th_eng_chain *chain, u64 due)
{
	chain->due = due;
}

u64 th_eng_chain_due(const struct th_eng_chain *chain)
{
	return chain->due;
}
