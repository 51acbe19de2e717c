// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * th_counter.c - CP counters: updates from any source, and the firing of
 * the chains that wait on them.
 */
#include "th_engine_int.h"

/*
 * Move the chains that counter @idx now releases to @ctx: those whose
 * threshold the success value reached, in threshold then posting order, or
 * all of them, failed, once the failure value is non-zero.
 */
void th_eng_ct_fire_locked(struct th_eng_vport *vp, u32 idx, struct th_eng_ctx *ctx)
	__must_hold(&vp->lock)
{
	struct th_list *head = &vp->pending[idx];
	u64 success = vp->cts[idx].success;
	u64 failure = vp->cts[idx].failure;
	struct th_eng_chain *chain;

	th_lockdep_assert_held(&vp->lock);
	while (!th_list_empty(head)) {
		chain = th_eng_chain_from_node(head->next);
		if (!failure && chain->threshold > success)
			break;
		th_list_del(&chain->node);
		th_eng_ctx_fire_locked(ctx, chain, failure ? -EIO : 0);
	}
}

/* th_eng_ct_update() with @vp's lock held, for callers that hold it anyway. */
int th_eng_ct_update_locked(struct th_eng_vport *vp, u32 idx, enum th_eng_ct_op op,
			    u64 value, u64 failure, struct th_eng_ctx *ctx)
	__must_hold(&vp->lock)
{
	struct th_nic_ct *ct;

	if (idx >= vp->eng->lim.max_counters)
		return -EINVAL;
	if (vp->dead)
		return -ECONNREFUSED;
	ct = &vp->cts[idx];
	switch (op) {
	case TH_ENG_CT_INC:
		th_store_release(&ct->success, ct->success + value);
		break;
	case TH_ENG_CT_SET:
		th_store_release(&ct->success, value);
		th_store_release(&ct->failure, failure);
		break;
	case TH_ENG_CT_FAIL:
		th_store_release(&ct->failure, ct->failure + value);
		break;
	default:
		return -EINVAL;
	}
	if (vp->ct_time)
		th_eng_timing_update(vp, idx, ctx);
	th_eng_offload_counter_locked(vp, idx);
	th_eng_ct_fire_locked(vp, idx, ctx);
	vp->eng->ops->wake(vp);
	return 0;
}

/*
 * Apply @op to counter @idx of @vp and queue what it fires on @ctx; the
 * caller runs @ctx.  Counters of a dead vport no longer change.
 */
int th_eng_ct_update(struct th_eng_vport *vp, u32 idx, enum th_eng_ct_op op,
		     u64 value, u64 failure, struct th_eng_ctx *ctx)
{
	int ret;

	if (idx >= vp->eng->lim.max_counters)
		return -EINVAL;
	th_lock(&vp->lock);
	ret = th_eng_ct_update_locked(vp, idx, op, value, failure, ctx);
	th_unlock(&vp->lock);
	return ret;
}

int th_eng_ct_read(struct th_eng_vport *vp, u32 idx, u64 *success,
		   u64 *failure)
{
	if (idx >= vp->eng->lim.max_counters)
		return -EINVAL;
	*success = th_load_acquire(&vp->cts[idx].success);
	*failure = th_load_acquire(&vp->cts[idx].failure);
	/* a destroyed vport's counters never move again: stop waiting */
	return th_read_once(vp->dead) ? -ECONNREFUSED : 0;
}
