// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * th_chain.c - the life of a chain: taken from the SQ at the doorbell,
 * validated, armed on its counter, cancelled, re-armed for its next round
 * (a chain ending in REARM), and completed exactly once.
 */
#include "th_engine_int.h"

/* Insert behind every chain with a threshold <= ours: ties keep posting order. */
static void th_eng_chain_arm_locked(struct th_eng_vport *vp,
				    struct th_eng_chain *chain)
	__must_hold(&vp->lock)
{
	struct th_list *head = &vp->pending[chain->trig_ct];
	struct th_list *pos = head->prev;

	while (pos != head &&
	       th_eng_chain_from_node(pos)->threshold > chain->threshold)
		pos = pos->prev;
	th_list_insert_after(pos, &chain->node);
	th_eng_offload_arm_locked(vp, chain);
}

/*
 * A chain whose counter already failed or already reached its threshold
 * fires now; any other waits on its counter's pending list.
 */
static void th_eng_chain_fire_or_arm_locked(struct th_eng_ctx *ctx,
					    struct th_eng_vport *vp,
					    struct th_eng_chain *chain)
	__must_hold(&vp->lock)
{
	struct th_nic_ct *ct = &vp->cts[chain->trig_ct];

	if (ct->failure)
		th_eng_ctx_fire_locked(ctx, chain, -EIO);
	else if (ct->success >= chain->threshold)
		th_eng_ctx_fire_locked(ctx, chain, 0);
	else
		th_eng_chain_arm_locked(vp, chain);
}

/*
 * @chain fired (under its vport's lock): it runs in @ctx if no other
 * fired chain of its counter holds the turn, else it waits behind them.
 * Firing picks chains in threshold order under the lock; the turn keeps
 * that order when they run, whichever contexts (two ioctls on two CPUs, a
 * worker) fired them and ran them: a chain starts only after the previous
 * one of its counter completed, or sent its delivery to a remote node.
 */
void th_eng_chain_order_fire_locked(struct th_eng_ctx *ctx,
				    struct th_eng_chain *chain)
	__must_hold(&chain->vp->lock)
{
	struct th_eng_ct_order *o = &chain->vp->order[chain->trig_ct];

	th_lockdep_assert_held(&chain->vp->lock);
	if (o->busy) {
		th_list_add_tail(&o->waiting, &chain->node);
		return;
	}
	o->busy = true;
	chain->ordered = true;
	th_list_add_tail(&ctx->ready, &chain->node);
}

/*
 * @chain gives its counter's turn up (it completed, is ready for its next
 * round, or its delivery leaves for a remote node): the first chain
 * waiting behind it takes the turn and joins @ctx, the context that
 * releases it, so it runs after everything fired before it.
 */
void th_eng_chain_order_release_locked(struct th_eng_ctx *ctx,
				       struct th_eng_chain *chain)
	__must_hold(&chain->vp->lock)
{
	struct th_eng_ct_order *o = &chain->vp->order[chain->trig_ct];
	struct th_eng_chain *next;

	th_lockdep_assert_held(&chain->vp->lock);
	if (!chain->ordered)
		return;
	chain->ordered = false;
	if (th_list_empty(&o->waiting)) {
		o->busy = false;
		return;
	}
	next = th_eng_chain_from_node(o->waiting.next);
	th_list_del(&next->node);
	next->ordered = true;
	th_list_add_tail(&ctx->ready, &next->node);
}

/* The errno each refusal reason gives at the doorbell. */
static int th_eng_refusal_errno(u32 reason)
{
	switch (reason) {
	case TH_NIC_REFUSE_CQ_FULL:
		return -EAGAIN;
	case TH_NIC_REFUSE_CQ_SIZE:
	case TH_NIC_REFUSE_USER_CHAINS:
		return -ENOSPC;
	case TH_NIC_REFUSE_NOMEM:
		return -ENOMEM;
	case TH_NIC_REFUSE_VPORT_ERROR:
		return -ENOTCONN;
	case TH_NIC_REFUSE_VPORT_GONE:
		return -ECONNREFUSED;
	default:
		return -EINVAL;
	}
}

/*
 * Charge one chain to @vp's user: refused once the user's accepted and
 * uncompleted chains reach max_user_chains, whichever vports they are on.
 */
static bool th_eng_user_charge_chain(struct th_eng_vport *vp)
{
	struct th_eng_user *user = vp->user;

	if ((u32)th_atomic_inc_return(&user->chains) >
	    vp->eng->lim.max_user_chains) {
		th_atomic_dec(&user->chains);
		return false;
	}
	return true;
}

/*
 * A chain with room for @n descriptors: from @vp's pool of completed ones
 * of its size, else newly allocated.  Its descriptors are left as they
 * were: the doorbell overwrites them.
 */
static struct th_eng_chain *th_eng_chain_get(struct th_eng_vport *vp, u32 n)
{
	u32 size = n > TH_ENG_CHAIN_SMALL, room;
	struct th_eng_chain *chain = NULL;

	th_lock(&vp->lock);
	if (vp->chain_pool_len[size]) {
		chain = th_container_of(vp->chain_pool[size].next,
					struct th_eng_chain, node);
		th_list_del(&chain->node);
		vp->chain_pool_len[size]--;
	}
	th_unlock(&vp->lock);
	if (chain) {
		memset(chain, 0, offsetof(struct th_eng_chain, descs));
	} else {
		room = size ? vp->eng->lim.max_chain : TH_ENG_CHAIN_SMALL;
		chain = th_zalloc(sizeof(*chain) + room * sizeof(chain->descs[0]));
	}
	if (chain)
		chain->size = size;
	return chain;
}

/* Keep @chain for reuse if the pool has room; false: the caller frees it. */
static bool th_eng_chain_pool_put_locked(struct th_eng_vport *vp,
					 struct th_eng_chain *chain)
{
	u32 size = chain->size;

	if (vp->chain_pool_len[size] >= TH_ENG_CHAIN_POOL)
		return false;
	th_list_add_tail(&vp->chain_pool[size], &chain->node);
	vp->chain_pool_len[size]++;
	return true;
}

static void th_eng_chain_release(struct th_eng_vport *vp, struct th_eng_chain *chain)
{
	bool pooled;

	th_lock(&vp->lock);
	pooled = th_eng_chain_pool_put_locked(vp, chain);
	th_unlock(&vp->lock);
	if (!pooled)
		th_free(chain);
}

/* Free the pools: @vp is being destroyed and nothing runs on it. */
void th_eng_chain_pool_drain(struct th_eng_vport *vp)
{
	struct th_eng_chain *chain;
	u32 size;

	for (size = 0; size < 2; size++) {
		while (!th_list_empty(&vp->chain_pool[size])) {
			chain = th_container_of(vp->chain_pool[size].next,
						struct th_eng_chain, node);
			th_list_del(&chain->node);
			th_free(chain);
		}
		vp->chain_pool_len[size] = 0;
	}
}

/*
 * The length of the chain at SQ slot @head: up to the first descriptor
 * without LINK, within @avail slots and max_chain.  0 (and @bad) when it
 * has no end there.  The slots are shared with userspace: the copy the
 * doorbell takes afterwards is checked again.
 */
static u32 th_eng_chain_scan(struct th_eng_vport *vp, u32 head, u32 avail,
			     u32 *bad)
{
	const struct th_nic_desc *slots = vp->sq.slots;
	u32 max_chain = vp->eng->lim.max_chain, n = 0;

	do {
		if (n == avail || n == max_chain) {
			/* no end before the tail, or longer than allowed */
			*bad = n - 1;
			return 0;
		}
	} while (th_read_once(slots[(head + n++) & vp->sq.mask].flags) &
		 TH_NIC_DF_LINK);
	return n;
}

/*
 * Accept @chain, whose @n descriptors the doorbell copied in and
 * validated: reserve its CQ entries, then fire it at once or leave it
 * pending on its counter.  Returns a refusal reason; nothing is installed
 * unless it is TH_NIC_REFUSE_NONE (the caller keeps @chain then).
 */
static u32 th_eng_chain_post(struct th_eng_vport *vp, struct th_eng_chain *chain,
			     u32 n, struct th_eng_ctx *ctx)
{
	const struct th_nic_desc *descs = chain->descs;
	u32 credits = 1;	/* room for the one error or cancel entry */
	u32 i, reason;

	if (!th_eng_user_charge_chain(vp))
		return TH_NIC_REFUSE_USER_CHAINS;
	chain->vp = vp;
	chain->ndesc = n;
	chain->threshold = descs[0].threshold;
	chain->cookie = descs[0].cookie;
	chain->trig_ct = descs[0].trig_ct;
	if (th_eng_opdef(descs[n - 1].opcode)->flags & TH_ENG_OPF_ENDS_ROUND)
		chain->stride = descs[n - 1].rearm.stride;
	for (i = 0; i < n; i++)
		if (th_eng_desc_writes_cqe(&descs[i]))
			chain->nsignal++;
	credits += chain->nsignal;
	chain->credits = credits;
	th_list_init(&chain->node);
	th_list_init(&chain->rearm_link);

	th_lock(&vp->lock);
	/* once killed, nothing would ever complete a new pending chain */
	if (vp->dead) {
		reason = TH_NIC_REFUSE_VPORT_GONE;
		goto err_unlock;
	}
	if (vp->error) {
		reason = TH_NIC_REFUSE_VPORT_ERROR;
		goto err_unlock;
	}
	/* a chain that could never fit was refused by th_eng_chain_fit() */
	if (th_eng_cq_used_locked(vp) + vp->cq_reserved + credits > vp->cq.entries) {
		reason = TH_NIC_REFUSE_CQ_FULL;
		goto err_unlock;
	}
	vp->cq_reserved += credits;
	chain->seq = vp->seq++;
	vp->stats.chains_posted++;
	vp->accepted++;
	th_trace_post(vp->node, vp->index, chain->seq, chain->cookie,
		      chain->ndesc, chain->trig_ct, chain->threshold);
	if (chain->stride)
		th_list_add_tail(&vp->rearming, &chain->rearm_link);
	th_eng_chain_fire_or_arm_locked(ctx, vp, chain);
	th_unlock(&vp->lock);
	return TH_NIC_REFUSE_NONE;

err_unlock:
	th_unlock(&vp->lock);
	th_atomic_dec(&vp->user->chains);
	return reason;
}

/*
 * Consume the SQ from the engine's head to the tail userspace published,
 * filling @db's (out) fields.  Each chain is copied out of the shared ring
 * once, straight into the chain object that will run it (from the vport's
 * pool), and only that copy is validated and used: userspace may rewrite
 * the slots at any time.  Stops at the first refused chain, which leaves
 * the SQ head on its first slot and installs nothing.  Doorbells on a
 * vport are serialised by its sq_lock (the SQ head); the caller runs @ctx
 * afterwards, outside it.
 */
int th_eng_doorbell(struct th_eng_vport *vp, struct th_eng_ctx *ctx,
		    struct th_nic_doorbell *db)
{
	const struct th_nic_desc *slots = vp->sq.slots;
	u32 head, avail, n, i, bad = 0, reason = TH_NIC_REFUSE_NONE;
	struct th_eng_chain *chain;

	db->chains = 0;
	db->descs = 0;
	db->bad_index = 0;
	db->bad_desc = 0;
	th_mutex_lock(&vp->sq_lock);
	head = vp->sq.next;
	avail = th_load_acquire(vp->sq.tail) - head;
	if (avail > vp->sq.entries)
		avail = vp->sq.entries;

	while (avail) {
		n = th_eng_chain_scan(vp, head, avail, &bad);
		chain = n ? th_eng_chain_get(vp, n) : NULL;
		if (!chain) {
			reason = n ? TH_NIC_REFUSE_NOMEM : TH_NIC_REFUSE_CHAIN;
			db->bad_index = head;
			db->bad_desc = n ? 0 : bad;
			break;
		}
		for (i = 0; i < n; i++)
			memcpy(&chain->descs[i], &slots[(head + i) & vp->sq.mask],
			       sizeof(*slots));
		/* userspace may have rewritten the slots since: the copy decides */
		for (i = 0; i + 1 < n && (chain->descs[i].flags & TH_NIC_DF_LINK); i++)
			;
		if (i + 1 != n || (chain->descs[n - 1].flags & TH_NIC_DF_LINK)) {
			bad = i;
			reason = TH_NIC_REFUSE_CHAIN;
		}
		if (!reason)
			reason = th_eng_chain_validate(vp, chain->descs, n, &bad);
		if (!reason && vp->eng->ops->chain_posted)
			vp->eng->ops->chain_posted(vp->eng->fabric, vp,
						   chain->descs, n);
		if (!reason) {
			reason = th_eng_chain_post(vp, chain, n, ctx);
			bad = 0;
		}
		if (reason) {
			th_eng_chain_release(vp, chain);
			db->bad_index = head;
			db->bad_desc = bad;
			break;
		}
		head += n;
		avail -= n;
		db->chains++;
		db->descs += n;
		vp->sq.next = head;
		th_store_release(vp->sq.head, head);
	}
	th_mutex_unlock(&vp->sq_lock);
	db->reason = reason;

	th_lock(&vp->lock);
	vp->stats.doorbells++;
	if (reason)
		vp->stats.chains_refused++;
	th_unlock(&vp->lock);
	return reason ? th_eng_refusal_errno(reason) : 0;
}

/*
 * Cancel pending chains of @vp (those with @cookie if @by_cookie).  They
 * complete through @ctx, which the caller runs.  A re-arming chain that is
 * running finishes its round and then ends, cancelled, instead of waiting
 * for the next: it counts as cancelled too.
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
			th_eng_ctx_fire_locked(ctx, chain, -ECANCELED);
			count++;
		}
	}
	for (pos = vp->rearming.next; pos != &vp->rearming; pos = pos->next) {
		chain = th_container_of(pos, struct th_eng_chain, rearm_link);
		/* not pending: fired or running (cancelled ones have a status) */
		if (chain->status || chain->stop ||
		    (by_cookie && chain->cookie != cookie))
			continue;
		chain->stop = true;
		count++;
	}
	th_unlock(&vp->lock);
	*cancelled = count;
	return 0;
}

/*
 * A round of re-arming @chain ran to its end: wait for the next, threshold
 * += stride, as if posted again now; with its next round's CQ entries
 * reserved.  It ends instead, through th_eng_chain_complete(), when its vport
 * is going or in the error state, when a cancel stopped it, when the CQ
 * has no room for another round (-EOVERFLOW), or when the threshold would
 * wrap (-ERANGE).  The round's tally @t joins the vport's statistics.
 */
void th_eng_chain_next_round(struct th_eng_ctx *ctx, struct th_eng_chain *chain,
			     const struct th_eng_tally *t)
{
	th_lock(&chain->vp->lock);
	th_eng_chain_next_round_locked(ctx, chain, t);
}

/* th_eng_chain_next_round() from under the vport's lock, which it drops. */
void th_eng_chain_next_round_locked(struct th_eng_ctx *ctx,
				    struct th_eng_chain *chain,
				    const struct th_eng_tally *t)
	__releases(&chain->vp->lock)
{
	struct th_eng_vport *vp = chain->vp;
	u64 next;
	int status = 0;

	/* a round of a re-arming chain is over */
	th_trace_complete(vp->node, vp->index, chain->seq, chain->cookie, 0,
			  chain->ndesc - 1);
	if (vp->dead || chain->stop)
		status = -ECANCELED;
	else if (vp->error)
		status = -ENOTCONN;
	else if (check_add_overflow(chain->threshold, chain->stride, &next))
		status = -ERANGE;
	else if (th_eng_cq_used_locked(vp) + vp->cq_reserved + chain->nsignal >
		 vp->cq.entries)
		status = -EOVERFLOW;
	if (status) {
		th_unlock(&vp->lock);
		th_eng_chain_complete(ctx, chain, status, chain->ndesc - 1, t);
		return;
	}
	th_eng_exec_tally_fold_locked(vp, t);
	vp->stats.chains_done++;
	vp->cq_reserved += chain->nsignal;
	chain->credits += chain->nsignal;
	chain->threshold = next;
	chain->seq = vp->seq++;
	chain->pos = 0;
	chain->done = 0;
	vp->running--;
	/* the next chain of the counter goes first: this round is over */
	th_eng_chain_order_release_locked(ctx, chain);
	th_eng_chain_fire_or_arm_locked(ctx, vp, chain);
	/* teardown waits for running chains: this one is pending again */
	vp->eng->ops->wake(vp);
	th_unlock(&vp->lock);
}

/*
 * Move every pending chain of @vp to @ctx, to complete with @status
 * without running (cancel of a destroyed vport, the error state).
 */
void th_eng_chain_fail_pending_locked(struct th_eng_vport *vp,
				      struct th_eng_ctx *ctx, int status)
	__must_hold(&vp->lock)
{
	struct th_eng_chain *chain;
	u32 i;

	for (i = 0; i < vp->eng->lim.max_counters; i++) {
		while (!th_list_empty(&vp->pending[i])) {
			chain = th_eng_chain_from_node(vp->pending[i].next);
			th_list_del(&chain->node);
			th_eng_ctx_fire_locked(ctx, chain, status);
		}
	}
}

/*
 * The remote counter descriptor @d would have raised, if its access to the
 * target was authorised: same domain, and a remote key granting the write
 * over the whole range (security.rst, "Failure values": failure values reach a
 * peer only for an authorised access; a refused key costs a violation).
 * Returns the target it checked, referenced, or NULL; a target on a
 * remote node gets the failure value through the provider, and NULL is
 * returned.  @ctx NULL: a refused key costs nothing.
 */
static struct th_eng_vport *th_eng_fail_target(struct th_eng_vport *vp,
					       const struct th_nic_desc *d, u16 *ct,
					       struct th_eng_ctx *ctx)
{
	struct th_eng_remote_op op;

	/* TH_NIC_DF_REMOTE_CT was accepted only with a target to raise */
	if (!th_eng_desc_target(d, &op) || op.remote_ct < 0)
		return NULL;
	*ct = op.remote_ct;
	if (th_eng_remote_node(vp, op.node)) {
		/* the target checks the access itself */
		vp->eng->ops->remote_fail_ct(vp->eng->fabric, vp->domain, op.node,
					     op.vport, *ct, op.rkey, op.roff,
					     op.len);
		return NULL;
	}
	return th_eng_remote_fail_peer(vp, op.node, op.vport, op.rkey, op.roff,
				       op.len, ctx);
}

/*
 * Descriptors from @from on will not run: raise the failure value of every
 * counter they would have advanced, here and, where authorised, at their
 * targets, so that whoever waits on those counters fails instead of
 * hanging.  A refused key costs a violation, but not for a chain the
 * network lost (@status -ETIMEDOUT): only fault injection loses, and a
 * chain retrying its delivery can outlive its target's regions.
 */
static void th_eng_chain_fail_counters(struct th_eng_ctx *ctx,
				       struct th_eng_chain *chain, u32 from,
				       int status)
{
	struct th_eng_vport *vp = chain->vp;
	struct th_eng_vport *peer;
	u32 i;
	u16 ct;

	for (i = from; i < chain->ndesc; i++) {
		const struct th_nic_desc *d = &chain->descs[i];

		if (d->flags & TH_NIC_DF_COMP_CT)
			th_eng_ct_update(vp, d->comp_ct, TH_ENG_CT_FAIL, 1, 0, ctx);
		if (th_eng_opdef(d->opcode)->flags &
		    (TH_ENG_OPF_CT_INC | TH_ENG_OPF_CT_SET))
			th_eng_ct_update(vp, d->ct.ct, TH_ENG_CT_FAIL, 1, 0, ctx);
		if (!(d->flags & TH_NIC_DF_REMOTE_CT))
			continue;
		peer = th_eng_fail_target(vp, d, &ct,
					  status == -ETIMEDOUT ? NULL : ctx);
		if (!peer)
			continue;
		th_eng_ct_update(peer, ct, TH_ENG_CT_FAIL, 1, 0, ctx);
		th_eng_remote_put(vp, peer);
	}
}

/*
 * The one place a chain ends.  @status 0: it ran to the end (its CQ
 * entries are written already).  Otherwise descriptor @at failed, or the
 * chain never ran (@at 0): write its one error entry and fail the counters
 * of what did not run.  What it did run, @t, joins the vport's statistics.
 */
void th_eng_chain_complete(struct th_eng_ctx *ctx, struct th_eng_chain *chain,
			   int status, u32 at, const struct th_eng_tally *t)
{
	struct th_eng_vport *vp = chain->vp;
	struct th_nic_cqe cqe;
	bool pooled;

	th_trace_complete(vp->node, vp->index, chain->seq, chain->cookie, status,
			  at);
	if (status)
		th_eng_chain_fail_counters(ctx, chain, at, status);
	th_atomic_dec(&vp->user->chains);

	th_lock(&vp->lock);
	th_eng_exec_tally_fold_locked(vp, t);
	if (status) {
		memset(&cqe, 0, sizeof(cqe));
		cqe.cookie = chain->cookie;
		cqe.status = status;
		cqe.desc_index = at;
		cqe.opcode = chain->descs[at].opcode;
		cqe.flags = TH_NIC_CQE_F_FINAL;
		cqe.vport = vp->index;
		th_eng_cq_write_locked(vp, &cqe);
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
	/* its entries are in the CQ: the next chain of its counter may run */
	th_eng_chain_order_release_locked(ctx, chain);
	vp->running--;
	vp->accepted--;
	if (chain->stride)
		th_list_del(&chain->rearm_link);
	pooled = th_eng_chain_pool_put_locked(vp, chain);
	/* the last touch of @vp: a destroyer may free it once we unlock */
	vp->eng->ops->wake(vp);
	th_unlock(&vp->lock);
	if (!pooled)
		th_free(chain);
}
