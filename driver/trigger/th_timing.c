// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * th_timing.c - the engine's virtual clock (struct th_eng_timing), for a
 * provider's timed mode: when a chain may start, what each descriptor
 * costs on it, and the time every counter update carries.  The module
 * runs in real time and never enables it.
 */
#include "th_alu.h"
#include "th_engine_int.h"

/* A fired chain may start once its counter's latest update has happened. */
void th_eng_timing_fire(struct th_eng_ctx *ctx, struct th_eng_chain *chain)
{
	u64 t = ctx->stamp;

	if (chain->vp->ct_time && chain->vp->ct_time[chain->trig_ct] > t)
		t = chain->vp->ct_time[chain->trig_ct];
	chain->vnow = t;
	chain->vbusy = false;
}

/* Under @vp's lock: counter @idx was updated at @ctx->stamp. */
void th_eng_timing_update(struct th_eng_vport *vp, u32 idx,
			  const struct th_eng_ctx *ctx)
	__must_hold(&vp->lock)
{
	struct th_eng_timing *tm = vp->eng->timing;

	if (ctx->stamp > vp->ct_time[idx])
		vp->ct_time[idx] = ctx->stamp;
	th_lock(&tm->lock);
	if (ctx->stamp > tm->now)
		tm->now = ctx->stamp;
	th_unlock(&tm->lock);
}

/* @fs of work on the chain's node: after the node's earlier work. */
static void th_eng_timing_work(struct th_eng_timing *tm, struct th_eng_chain *chain,
			       u64 fs)
{
	u32 node = chain->vp->node;

	th_lock(&tm->lock);
	if (!chain->vbusy && tm->node_busy[node] > chain->vnow)
		chain->vnow = tm->node_busy[node];
	chain->vbusy = true;
	chain->vnow += fs;
	tm->node_busy[node] = chain->vnow;
	th_unlock(&tm->lock);
}

/*
 * Before descriptor @d runs (not when it resumes after a slice): charge
 * its work, and set the time of the counter updates it makes.
 */
void th_eng_timing_desc(struct th_eng_ctx *ctx, struct th_eng_chain *chain,
			const struct th_nic_desc *d)
{
	struct th_eng_timing *tm = ctx->eng->timing;
	u64 len, fs;

	switch (th_eng_opdef(d->opcode)->charge) {
	case TH_ENG_CHARGE_ALU:
		len = (u64)d->reduce.count * th_alu_dtype_size(d->reduce.dtype) *
		      (d->reduce.nsrc + !!(d->reduce.rflags & TH_NIC_RF_ACCUMULATE));
		fs = tm->desc_fs + len * tm->alu_byte_fs[chain->vp->node];
		th_eng_timing_work(tm, chain, fs);
		ctx->stamp = chain->vnow;
		return;
	case TH_ENG_CHARGE_COPY:
		fs = tm->desc_fs + th_eng_desc_len(d) * tm->byte_fs;
		th_eng_timing_work(tm, chain, fs);
		ctx->stamp = chain->vnow;
		return;
	case TH_ENG_CHARGE_WIRE:
		/* issued now, arriving after its flight: the NIC is not held */
		ctx->stamp = chain->vnow + tm->desc_fs + tm->latency_fs +
			     th_eng_desc_len(d) * tm->byte_fs;
		return;
	default:
		ctx->stamp = chain->vnow;
		return;
	}
}

/*
 * When counter @idx of @vp was last updated: a host whose wait saw it
 * cannot be earlier.  0 in real time.
 */
u64 th_eng_timing_seen(struct th_eng_vport *vp, u32 idx)
{
	u64 t;

	if (!vp->eng->timing || !vp->ct_time || idx >= vp->eng->lim.max_counters)
		return 0;
	th_lock(&vp->lock);
	t = vp->ct_time[idx];
	th_unlock(&vp->lock);
	return t;
}
