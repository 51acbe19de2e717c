// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * th_remote.c - the fabric as an initiator sees it: finding a target vport
 * of the same domain, resolving a remote key on it, and the error state a
 * remote access violation puts the initiator into (ABI.md "Security
 * model").
 *
 * From outside a domain every target looks absent: a vport of another
 * domain, a missing vport and a missing key behind either all complete
 * with -ECONNREFUSED and touch nothing.  Inside the domain, a key that is
 * unknown or lacks the access (-EACCES) or a range outside the region
 * (-ERANGE) is a violation: the initiator's vport enters the error state,
 * so each wrong guess of a remote key costs a vport.
 */
#include "th_engine_int.h"

/*
 * Vport @vport of node @node if it is in @vp's domain, referenced (drop
 * it with th_remote_put()); NULL if it does not exist or is in another
 * domain, which an initiator cannot tell apart.  @vp itself counts.
 */
struct th_eng_vport *th_remote_get(struct th_eng_vport *vp, u32 node,
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

void th_remote_put(struct th_eng_vport *vp, struct th_eng_vport *peer)
{
	vp->eng->ops->vport_put(vp->eng->fabric, peer);
}

/*
 * @vp broke a remote key's rules: from now on it is in the error state.
 * Its pending chains complete with -ENOTCONN through @ctx, and the
 * doorbell refuses it; only destroying it ends the state.
 */
static void th_remote_violation(struct th_eng_vport *vp,
				struct th_eng_ctx *ctx)
{
	bool entered = false;

	th_lock(&vp->lock);
	vp->stats.violations++;
	if (!vp->error && !vp->dead) {
		vp->error = true;
		entered = true;
		th_chain_fail_pending_locked(vp, ctx, -ENOTCONN);
		vp->eng->ops->wake(vp);
	}
	th_unlock(&vp->lock);
	if (entered && vp->eng->ops->notify)
		vp->eng->ops->notify(vp, TH_ENG_EVENT_ERROR, -ENOTCONN);
}

/*
 * Resolve [@off, @off + @len) of remote key @rkey on @peer (from
 * th_remote_get()) for an operation of @vp needing @access, and hold it
 * until th_mr_put().  -ECONNREFUSED if @peer is going away; -EACCES and
 * -ERANGE are violations.
 */
int th_remote_mr_get(struct th_eng_vport *vp, struct th_eng_vport *peer,
		     u64 rkey, u32 access, u64 off, u64 len,
		     struct th_mr_ref *ref, struct th_eng_ctx *ctx)
{
	struct th_eng_mr *mr;
	int ret;

	th_lock(&peer->lock);
	if (peer->dead) {
		ret = -ECONNREFUSED;
	} else {
		mr = th_mr_lookup_rkey_locked(peer, rkey);
		ret = mr ? th_mr_hold_locked(peer, mr, access, off, len, ref) :
		      -EACCES;
	}
	th_unlock(&peer->lock);
	if (ret == -EACCES || ret == -ERANGE)
		th_remote_violation(vp, ctx);
	return ret;
}

/*
 * Would a remote write by @vp of [@off, @off + @len) through @rkey on
 * (@node, @vport) be authorised?  Asked before a failure value is sent
 * on a descriptor's behalf: an access that was never allowed touches no
 * peer's counters.
 */
bool th_remote_authorised(struct th_eng_vport *vp, u32 node, u32 vport,
			  u64 rkey, u64 off, u64 len)
{
	struct th_eng_vport *peer = th_remote_get(vp, node, vport);
	struct th_eng_mr *mr;
	bool ok;

	if (!peer)
		return false;
	th_lock(&peer->lock);
	mr = peer->dead ? NULL : th_mr_lookup_rkey_locked(peer, rkey);
	ok = mr && !th_mr_allows(mr, TH_NIC_ACCESS_REMOTE_WRITE, off, len);
	th_unlock(&peer->lock);
	th_remote_put(vp, peer);
	return ok;
}
