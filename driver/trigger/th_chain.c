// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * th_chain.c - the life of a chain: taken from the SQ at the doorbell,
 * validated, armed on its counter, cancelled, and completed exactly once.
 */
#include "th_engine_int.h"

bool th_desc_writes_cqe(const struct th_nic_desc *d)
{
	return (d->flags & TH_NIC_DF_SIGNAL) || d->opcode == TH_NIC_OP_NOTIFY;
}

/* Insert behind every chain with a threshold <= ours: ties keep posting order. */
static void th_chain_arm_locked(struct th_eng_vport *vp,
				struct th_eng_chain *chain)
	__must_hold(&vp->lock)
{
	struct th_list *head = &vp->pending[chain->trig_ct];
	struct th_list *pos = head->prev;

	while (pos != head &&
	       th_eng_chain_from_node(pos)->threshold > chain->threshold)
		pos = pos->prev;
	th_list_insert_after(pos, &chain->node);
}

/*
 * Accept one validated chain: reserve its CQ entries, then fire it at once
 * or leave it pending on its counter.  Nothing is installed on error.
 */
static int th_chain_post(struct th_eng_vport *vp, const struct th_nic_desc *descs,
			 u32 n, struct th_eng_ctx *ctx)
{
	struct th_eng_chain *chain;
	struct th_nic_ct *ct;
	u32 credits = 1;	/* room for the one error or cancel entry */
	u32 i;
	int ret;

	chain = th_zalloc(sizeof(*chain) + n * sizeof(*descs));
	if (!chain)
		return -ENOMEM;
	memcpy(chain->descs, descs, n * sizeof(*descs));
	chain->vp = vp;
	chain->ndesc = n;
	chain->threshold = descs[0].threshold;
	chain->cookie = descs[0].cookie;
	chain->trig_ct = descs[0].trig_ct;
	chain->last_signal = n;
	for (i = 0; i < n; i++) {
		if (th_desc_writes_cqe(&descs[i])) {
			credits++;
			chain->last_signal = i;
		}
	}
	chain->credits = credits;
	th_list_init(&chain->node);

	th_lock(&vp->lock);
	if (vp->dead) {
		ret = -ECONNREFUSED;
		goto err_unlock;
	}
	if (credits > vp->cq.entries) {
		/* could never fit, however empty the CQ */
		ret = -ENOSPC;
		goto err_unlock;
	}
	if (th_cq_used_locked(vp) + vp->cq_reserved + credits > vp->cq.entries) {
		ret = -EAGAIN;
		goto err_unlock;
	}
	vp->cq_reserved += credits;
	chain->seq = vp->seq++;
	vp->stats.chains_posted++;
	ct = &vp->cts[chain->trig_ct];
	if (ct->failure)
		th_ctx_fire_locked(ctx, chain, -EIO);
	else if (ct->success >= chain->threshold)
		th_ctx_fire_locked(ctx, chain, 0);
	else
		th_chain_arm_locked(vp, chain);
	th_unlock(&vp->lock);
	return 0;

err_unlock:
	th_unlock(&vp->lock);
	th_free(chain);
	return ret;
}

/*
 * Consume the SQ from the engine's head to the tail userspace published.
 * Each chain is copied out of the shared ring into vp->scratch first, and
 * only that copy is validated and used: userspace may rewrite the slots at
 * any time.  Stops at the first refused chain, which leaves the SQ head on
 * its first slot and installs nothing.  The caller serialises doorbells on
 * a vport (the scratch area and the SQ head are not locked) and runs @ctx
 * afterwards, outside its own locks.
 */
int th_eng_doorbell(struct th_eng_vport *vp, struct th_eng_ctx *ctx,
		    struct th_eng_db_result *res)
{
	const struct th_nic_desc *slots = vp->sq.slots;
	u32 max_chain = vp->eng->lim.max_chain;
	u32 head = vp->sq.next;
	u32 avail, n, bad = 0;
	int ret = 0;

	memset(res, 0, sizeof(*res));
	avail = th_load_acquire(vp->sq.tail) - head;
	if (avail > vp->sq.entries)
		avail = vp->sq.entries;

	while (avail) {
		n = 0;
		do {
			if (n == avail || n == max_chain) {
				/* no end before the tail, or longer than allowed */
				bad = n - 1;
				ret = -EINVAL;
				break;
			}
			memcpy(&vp->scratch[n], &slots[(head + n) & vp->sq.mask],
			       sizeof(*slots));
		} while (vp->scratch[n++].flags & TH_NIC_DF_LINK);

		if (!ret)
			ret = th_eng_chain_validate(vp, vp->scratch, n, &bad);
		if (!ret) {
			ret = th_chain_post(vp, vp->scratch, n, ctx);
			bad = 0;
		}
		if (ret) {
			res->bad_index = head;
			res->bad_desc = bad;
			break;
		}
		head += n;
		avail -= n;
		res->chains++;
		res->descs += n;
		vp->sq.next = head;
		th_store_release(vp->sq.head, head);
	}

	th_lock(&vp->lock);
	vp->stats.doorbells++;
	if (ret)
		vp->stats.chains_refused++;
	th_unlock(&vp->lock);
	return ret;
}

/*
 * Cancel pending chains of @vp (those with @cookie if @by_cookie).  They
 * complete through @ctx, which the caller runs.
 */
int th_eng_cancel(struct th_eng_vport *vp, bool by_cookie, u64 cookie,
		  u32 *cancelled, struct th_eng_ctx *ctx)
{
	struct th_eng_chain *chain;
	struct th_list *pos, *next;
	u32 i, count = 0;

	th_lock(&vp->lock);
	if (vp->dead) {
		th_unlock(&vp->lock);
		return -ECONNREFUSED;
	}
	for (i = 0; i < vp->eng->lim.max_counters; i++) {
		for (pos = vp->pending[i].next; pos != &vp->pending[i]; pos = next) {
			next = pos->next;
			chain = th_eng_chain_from_node(pos);
			if (by_cookie && chain->cookie != cookie)
				continue;
			th_list_del(&chain->node);
			th_ctx_fire_locked(ctx, chain, -ECANCELED);
			count++;
		}
	}
	th_unlock(&vp->lock);
	*cancelled = count;
	return 0;
}

static u16 th_desc_remote_ct(const struct th_nic_desc *d, u32 *node, u32 *vport)
{
	if (d->opcode == TH_NIC_OP_PUT) {
		*node = d->xfer.node;
		*vport = d->xfer.vport;
		return d->xfer.remote_ct;
	}
	*node = d->wr_inline.node;
	*vport = d->wr_inline.vport;
	return d->wr_inline.remote_ct;
}

/*
 * Descriptors from @from on will not run: raise the failure value of every
 * counter they would have advanced, here and at their targets, so that
 * whoever waits on those counters fails instead of hanging.
 */
static void th_chain_fail_counters(struct th_eng_ctx *ctx,
				   struct th_eng_chain *chain, u32 from)
{
	struct th_eng_vport *vp = chain->vp;
	const struct th_eng_ops *ops = vp->eng->ops;
	struct th_eng_vport *peer;
	u32 i, node, vport;
	u16 ct;

	for (i = from; i < chain->ndesc; i++) {
		const struct th_nic_desc *d = &chain->descs[i];

		if (d->flags & TH_NIC_DF_COMP_CT)
			th_eng_ct_update(vp, d->comp_ct, TH_ENG_CT_FAIL, 1, 0, ctx);
		if (d->opcode == TH_NIC_OP_CT_INC || d->opcode == TH_NIC_OP_CT_SET)
			th_eng_ct_update(vp, d->ct.ct, TH_ENG_CT_FAIL, 1, 0, ctx);
		if (!(d->flags & TH_NIC_DF_REMOTE_CT))
			continue;
		ct = th_desc_remote_ct(d, &node, &vport);
		peer = ops->vport_get(vp->eng->fabric, node, vport);
		if (!peer)
			continue;
		if (ct < peer->eng->lim.max_counters)
			th_eng_ct_update(peer, ct, TH_ENG_CT_FAIL, 1, 0, ctx);
		ops->vport_put(vp->eng->fabric, peer);
	}
}

/*
 * The one place a chain ends.  @status 0: it ran to the end (its CQ
 * entries are written already).  Otherwise descriptor @at failed, or the
 * chain never ran (@at 0): write its one error entry and fail the counters
 * of what did not run.
 */
void th_chain_complete(struct th_eng_ctx *ctx, struct th_eng_chain *chain,
		       int status, u32 at)
{
	struct th_eng_vport *vp = chain->vp;
	struct th_nic_cqe cqe;

	if (status)
		th_chain_fail_counters(ctx, chain, at);

	th_lock(&vp->lock);
	if (status) {
		memset(&cqe, 0, sizeof(cqe));
		cqe.cookie = chain->cookie;
		cqe.status = status;
		cqe.desc_index = at;
		cqe.opcode = chain->descs[at].opcode;
		cqe.flags = TH_NIC_CQE_F_FINAL;
		cqe.vport = vp->index;
		th_cq_write_locked(vp, &cqe);
		chain->credits--;
		vp->cq_reserved--;
		if (status == -ECANCELED)
			vp->stats.chains_cancelled++;
		else
			vp->stats.chains_failed++;
	} else {
		vp->stats.chains_done++;
	}
	vp->cq_reserved -= chain->credits;
	vp->running--;
	/* the last touch of @vp: a destroyer may free it once we unlock */
	vp->eng->ops->wake(vp);
	th_unlock(&vp->lock);
	th_free(chain);
}
