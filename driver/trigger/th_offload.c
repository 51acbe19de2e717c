// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * th_offload.c - offloaded chains (ops->offload_arm).  A pending chain
 * whose first descriptor writes to a node elsewhere may wait in the
 * provider's network instead, which sends the delivery by itself the
 * moment the chain's counter reaches its threshold (libfabric's triggered
 * operations).  The engine still owns the counter and the chain: it shows
 * the network every change of the counter, and when the chain leaves its
 * pending list it says whether the chain fired (the delivery went; the
 * chain is parked as after ops->remote_post) or will not run (the network
 * drops the delivery).
 *
 * A PUT's local range is held from the arming on, so that the network
 * may read it when it sends: the checks the chain would meet when it runs
 * are made then (a range that fails them leaves the chain to the engine,
 * which fails it when it runs, as before).  Deregistering the region
 * withdraws the offload (th_eng_offload_withdraw_locked()), so that the
 * chain fails when it runs as it would have.  GET is not offered: its
 * bytes land when the answer comes, which is the engine's part anyway.
 * Neither the timed mode nor fault injection, which act on a delivery as
 * it leaves, is offered: both stay with the engine.
 */
#include "th_engine_int.h"

/* Offer @chain, just armed, to the network. */
void th_eng_offload_arm_locked(struct th_eng_vport *vp,
			       struct th_eng_chain *chain)
	__must_hold(&vp->lock)
{
	const struct th_eng_ops *ops = vp->eng->ops;
	const struct th_nic_desc *d = &chain->descs[0];
	struct th_eng_mr_ref *ref = &chain->hold.ref[0];
	struct th_eng_remote_op target;
	struct th_eng_mr *mr;

	if (!ops->offload_arm || vp->eng->timing || vp->ct_time ||
	    th_read_once(vp->eng->nodes[vp->node].faulty))
		return;
	/* a write there, which needs no answer to send: PUT, remote inline */
	if (th_eng_desc_remote_access(d) != TH_NIC_ACCESS_REMOTE_WRITE ||
	    !th_eng_desc_target(d, &target) ||
	    !th_eng_remote_node(vp, target.node))
		return;
	th_eng_exec_remote_describe(chain, d);
	if (th_eng_opdef(d->opcode)->flags & TH_ENG_OPF_READS_LOCAL) {
		mr = th_eng_mr_lookup_locked(vp, d->xfer.lkey);
		if (!mr || th_eng_mr_hold_locked(vp, mr, 0, d->xfer.loff,
						 d->xfer.len, ref))
			return;
		chain->hold.nref = 1;
		chain->rop.local = ref->ptr;
		chain->rop.local_priv = mr->priv;
	}
	if (ops->offload_arm(vp->eng->fabric, chain, vp, chain->trig_ct,
			     chain->threshold, vp->cts[chain->trig_ct].success,
			     &chain->rop)) {
		chain->offloaded = true;
		vp->offloaded++;
	} else if (ref->mr) {
		th_eng_mr_put_locked(ref);
		ref->mr = NULL;
		chain->hold.nref = 0;
	}
}

/* Counter @idx of @vp changed: the network sees it before any chain fires. */
void th_eng_offload_counter_locked(struct th_eng_vport *vp, u32 idx)
	__must_hold(&vp->lock)
{
	if (vp->offloaded)
		vp->eng->ops->offload_counter(vp->eng->fabric, vp, idx,
					      vp->cts[idx].success,
					      vp->cts[idx].failure);
}

/*
 * Offloaded @chain leaves its pending list with @status (or, -EAGAIN,
 * stays on it in the engine's hands).  True when it fired: its delivery
 * is out, and the chain is the provider's until th_eng_remote_done().
 * Otherwise the local range the delivery would have read goes to the
 * provider, which releases it once the network let go of the message.
 */
bool th_eng_offload_disarm_locked(struct th_eng_chain *chain, int status)
	__must_hold(&chain->vp->lock)
{
	struct th_eng_vport *vp = chain->vp;
	struct th_eng_mr_ref hold = { 0 };

	chain->offloaded = false;
	vp->offloaded--;
	if (!status) {
		th_eng_exec_remote_sent(chain);
	} else if (chain->hold.ref[0].mr) {
		hold = chain->hold.ref[0];
		chain->hold.ref[0].mr = NULL;
		chain->hold.nref = 0;
	}
	vp->eng->ops->offload_disarm(vp->eng->fabric, chain, status, &hold);
	return !status;
}

/*
 * Region @mr is being deregistered: offloaded chains that would send
 * from it go back to the engine, still pending, and fail when they run
 * (the key no longer resolves), as they would have without the offload.
 * @mr NULL: every offloaded chain of @vp goes back.
 */
void th_eng_offload_withdraw_locked(struct th_eng_vport *vp,
				    const struct th_eng_mr *mr)
	__must_hold(&vp->lock)
{
	struct th_eng_chain *chain;
	struct th_list *pos;
	u32 ct;

	for (ct = 0; vp->offloaded && ct < vp->eng->lim.max_counters; ct++) {
		for (pos = vp->pending[ct].next; pos != &vp->pending[ct];
		     pos = pos->next) {
			chain = th_eng_chain_from_node(pos);
			if (chain->offloaded &&
			    (!mr || chain->hold.ref[0].mr == mr))
				th_eng_offload_disarm_locked(chain, -EAGAIN);
		}
	}
}

/**
 * th_eng_offload_withdraw - every offloaded chain of @vp back to the engine
 * @vp: the vport
 *
 * Fault injection was turned on for its node: a delivery already waiting
 * in the network would leave without it, so the chains wait in the engine
 * again, where fault injection acts on what they send.
 */
void th_eng_offload_withdraw(struct th_eng_vport *vp)
{
	th_lock(&vp->lock);
	th_eng_offload_withdraw_locked(vp, NULL);
	th_unlock(&vp->lock);
}
