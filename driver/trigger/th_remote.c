// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * th_remote.c - the fabric as an initiator sees it: finding a target vport
 * of the same domain, resolving a remote key on it, and the error state a
 * remote access violation puts the initiator into (security.rst, "Keys
 * and the error state").
 *
 * From outside a domain every target looks absent: a vport of another
 * domain, a missing vport and a missing key behind either all complete
 * with -ECONNREFUSED and touch nothing.  Inside the domain, a key that is
 * unknown or lacks the access (-EACCES) or a range outside the region
 * (-ERANGE) is a violation: the initiator's vport enters the error state,
 * so each wrong guess of a remote key costs a vport.
 *
 * A provider whose nodes live in several processes or hosts (struct
 * th_eng_ops.node_remote) carries deliveries to the others itself: the
 * target's engine resolves the key with th_eng_remote_hold(), the same
 * checks as here, and the initiator's engine takes the answer through
 * th_eng_remote_done(), so both ends keep the rules above.  Chains whose
 * first delivery waits in such a network are th_offload.c's.
 */
#include "th_engine_int.h"

/*
 * Vport @vport of node @node if it is in @vp's domain, referenced (drop
 * it with th_eng_remote_put()); NULL if it does not exist or is in another
 * domain, which an initiator cannot tell apart.  @vp itself counts.
 */
struct th_eng_vport *th_eng_remote_get(struct th_eng_vport *vp, u32 node,
				       u32 vport)
{
	const struct th_eng_ops *ops = vp->eng->ops;
	struct th_eng_vport *peer;

	peer = ops->vport_get(vp->eng->fabric, node, vport);
	if (peer && peer->domain != vp->domain) {
		ops->vport_put(vp->eng->fabric, peer);
		peer = NULL;
	}
	return peer;
}

void th_eng_remote_put(struct th_eng_vport *vp, struct th_eng_vport *peer)
{
	vp->eng->ops->vport_put(vp->eng->fabric, peer);
}

/*
 * @vp broke a remote key's rules: from now on it is in the error state.
 * Its pending chains complete with -ENOTCONN through @ctx, and the
 * doorbell refuses it; only destroying it ends the state.
 */
void th_eng_remote_violation(struct th_eng_vport *vp, struct th_eng_ctx *ctx)
{
	bool entered = false;

	th_lock(&vp->lock);
	vp->stats.violations++;
	if (!vp->error && !vp->dead) {
		vp->error = true;
		entered = true;
		th_eng_chain_fail_pending_locked(vp, ctx, -ENOTCONN);
		vp->eng->ops->wake(vp);
	}
	th_unlock(&vp->lock);
	if (entered && vp->eng->ops->notify)
		vp->eng->ops->notify(vp, TH_ENG_EVENT_ERROR, -ENOTCONN);
}

/*
 * Resolve [@off, @off + @len) of remote key @rkey on @peer (from
 * th_eng_remote_get()) for an operation of @vp needing @access, and hold it
 * until th_eng_mr_put().  -ECONNREFUSED if @peer is going away; -EACCES and
 * -ERANGE are violations.
 */
int th_eng_remote_mr_get(struct th_eng_vport *vp, struct th_eng_vport *peer,
			 u64 rkey, u32 access, u64 off, u64 len,
			 struct th_eng_mr_ref *ref, struct th_eng_ctx *ctx)
{
	int ret = th_eng_remote_hold(peer, rkey, access, off, len, ref);

	if (ret == -EACCES || ret == -ERANGE)
		th_eng_remote_violation(vp, ctx);
	return ret;
}

/*
 * The target of a failure value that @vp sends on behalf of a remote
 * write of [@off, @off + @len) through @rkey on (@node, @vport), which
 * will not run: referenced (th_eng_remote_put()), or NULL when that write
 * would not have been authorised (security.rst, "Failure values": an access
 * that was never allowed touches no peer's counters).  The vport checked
 * is the one returned, so a vport that takes the index afterwards is
 * never reached.  A key or range the target refuses is a violation, as
 * the write itself would have been: else a cancelled chain would test
 * rkeys for free.  Not so a key the target did hand out and has since
 * deregistered (a job tearing down while its peers' chains are cancelled
 * or fail): it tells nothing the initiator did not know.  @ctx NULL: no
 * violation at all (th_eng_chain_fail_counters() says when).
 */
struct th_eng_vport *th_eng_remote_fail_peer(struct th_eng_vport *vp, u32 node,
					     u32 vport, u64 rkey, u64 off, u64 len,
					     struct th_eng_ctx *ctx)
{
	struct th_eng_vport *peer = th_eng_remote_get(vp, node, vport);
	struct th_eng_mr *mr;
	int ret;

	if (!peer)
		return NULL;
	th_lock(&peer->lock);
	if (peer->dead) {
		ret = -ECONNREFUSED;
	} else {
		mr = th_eng_mr_lookup_rkey_locked(peer, rkey);
		ret = mr ? th_eng_mr_allows(mr, TH_NIC_ACCESS_REMOTE_WRITE, off,
					    len) :
		      th_eng_mr_rkey_stale_locked(peer, rkey) ? -ECONNREFUSED :
		      -EACCES;
	}
	th_unlock(&peer->lock);
	if (!ret)
		return peer;
	th_eng_remote_put(vp, peer);
	if (ctx && (ret == -EACCES || ret == -ERANGE))
		th_eng_remote_violation(vp, ctx);
	return NULL;
}

/* Is @node behind the provider's network rather than in this engine? */
bool th_eng_remote_node(struct th_eng_vport *vp, u32 node)
{
	const struct th_eng_ops *ops = vp->eng->ops;

	return ops->node_remote && ops->node_remote(vp->eng->fabric, node);
}

/**
 * th_eng_remote_done - a delivery to a remote node ended
 * @ctx: the provider's context, which runs @chain on from where it stopped
 *	(th_eng_ctx_run() after this)
 * @chain: the chain ops->remote_post() was given
 * @status: 0 once the data is in place (and the target's counter advanced),
 *	or the target's or the network's error: -ECONNREFUSED, -EACCES or
 *	-ERANGE (a violation: this chain's vport enters the error state)
 */
void th_eng_remote_done(struct th_eng_ctx *ctx, struct th_eng_chain *chain,
			int status)
{
	chain->remote_status = status;
	th_store_release(&chain->remote, TH_REMOTE_DONE);
	th_eng_ctx_add(ctx, chain);
}

/**
 * th_eng_remote_hold - the target's side of a remote delivery
 * @vp: the target vport, which the provider found in the initiator's domain
 * @rkey: the remote key the initiator named
 * @access: TH_NIC_ACCESS_REMOTE_WRITE or TH_NIC_ACCESS_REMOTE_READ
 * @off: offset in the region
 * @len: bytes
 * @ref: the held range, on success; release it with th_eng_remote_release()
 *	once the delivery is over (deregistration waits for it)
 *
 * Return: 0, -ECONNREFUSED if @vp is being destroyed, -EACCES for a key
 * that is unknown or lacks @access, -ERANGE for a range outside the region.
 * The last two are the initiator's violation, for it to act on.
 */
int th_eng_remote_hold(struct th_eng_vport *vp, u64 rkey, u32 access, u64 off,
		       u64 len, struct th_eng_mr_ref *ref)
{
	struct th_eng_mr *mr;
	int ret;

	ref->mr = NULL;
	th_lock(&vp->lock);
	if (vp->dead) {
		ret = -ECONNREFUSED;
	} else {
		mr = th_eng_mr_lookup_rkey_locked(vp, rkey);
		ret = mr ? th_eng_mr_hold_locked(vp, mr, access, off, len, ref) :
		      -EACCES;
	}
	th_unlock(&vp->lock);
	return ret;
}

void th_eng_remote_release(struct th_eng_mr_ref *ref)
{
	if (ref->mr)
		th_eng_mr_put(ref);
	ref->mr = NULL;
}
