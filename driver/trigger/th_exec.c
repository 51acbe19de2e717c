// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * th_exec.c - running a fired chain: each descriptor against the MRs and
 * the fabric, in order, stopping at the first that fails.
 */
#include "th_engine_int.h"
#include "th_alu.h"

/* Per-chain tallies folded into the vport's statistics at completion. */
struct th_exec_tally {
	u64 bytes_moved;
	u64 alu_bytes;
	u32 descs_run;
};

static int th_exec_put(struct th_eng_ctx *ctx, struct th_eng_vport *vp,
		       const struct th_nic_desc *d, struct th_exec_tally *t)
{
	const struct th_nic_desc_xfer *x = &d->xfer;
	const struct th_eng_ops *ops = vp->eng->ops;
	struct th_mr_ref src, dst;
	struct th_eng_vport *peer;
	int ret;

	ret = th_mr_get(vp, x->lkey, 0, x->loff, x->len, &src);
	if (ret)
		return ret;
	peer = ops->vport_get(vp->eng->fabric, x->node, x->vport);
	if (!peer) {
		th_mr_put(vp, &src);
		return -ECONNREFUSED;
	}
	ret = th_mr_get(peer, x->rkey, TH_NIC_ACCESS_REMOTE_WRITE, x->roff,
			x->len, &dst);
	if (!ret) {
		memmove(dst.ptr, src.ptr, x->len);
		th_mr_put(peer, &dst);
		t->bytes_moved += x->len;
	}
	th_mr_put(vp, &src);
	/* the control packet: data first, then the counter */
	if (!ret && (d->flags & TH_NIC_DF_REMOTE_CT))
		th_eng_ct_update(peer, x->remote_ct, TH_ENG_CT_INC, 1, 0, ctx);
	ops->vport_put(vp->eng->fabric, peer);
	return ret;
}

static int th_exec_get(struct th_eng_vport *vp, const struct th_nic_desc *d,
		       struct th_exec_tally *t)
{
	const struct th_nic_desc_xfer *x = &d->xfer;
	const struct th_eng_ops *ops = vp->eng->ops;
	struct th_mr_ref src, dst;
	struct th_eng_vport *peer;
	int ret;

	ret = th_mr_get(vp, x->lkey, TH_NIC_ACCESS_LOCAL_WRITE, x->loff, x->len,
			&dst);
	if (ret)
		return ret;
	peer = ops->vport_get(vp->eng->fabric, x->node, x->vport);
	if (!peer) {
		th_mr_put(vp, &dst);
		return -ECONNREFUSED;
	}
	ret = th_mr_get(peer, x->rkey, TH_NIC_ACCESS_REMOTE_READ, x->roff,
			x->len, &src);
	if (!ret) {
		memmove(dst.ptr, src.ptr, x->len);
		th_mr_put(peer, &src);
		t->bytes_moved += x->len;
	}
	ops->vport_put(vp->eng->fabric, peer);
	th_mr_put(vp, &dst);
	return ret;
}

static int th_exec_copy(struct th_eng_vport *vp, const struct th_nic_desc *d,
			struct th_exec_tally *t)
{
	const struct th_nic_desc_copy *c = &d->copy;
	struct th_mr_ref src, dst;
	int ret;

	ret = th_mr_get(vp, c->src_key, 0, c->src_off, c->len, &src);
	if (ret)
		return ret;
	ret = th_mr_get(vp, c->dst_key, TH_NIC_ACCESS_LOCAL_WRITE, c->dst_off,
			c->len, &dst);
	if (!ret) {
		memmove(dst.ptr, src.ptr, c->len);
		th_mr_put(vp, &dst);
		t->bytes_moved += c->len;
	}
	th_mr_put(vp, &src);
	return ret;
}

static int th_exec_inline(struct th_eng_ctx *ctx, struct th_eng_vport *vp,
			  const struct th_nic_desc *d, struct th_exec_tally *t)
{
	const struct th_nic_desc_inline *w = &d->wr_inline;
	const struct th_eng_ops *ops = vp->eng->ops;
	struct th_eng_vport *target = vp;
	struct th_mr_ref dst;
	u32 access = TH_NIC_ACCESS_LOCAL_WRITE;
	int ret;

	if (d->flags & TH_NIC_DF_REMOTE) {
		target = ops->vport_get(vp->eng->fabric, w->node, w->vport);
		if (!target)
			return -ECONNREFUSED;
		access = TH_NIC_ACCESS_REMOTE_WRITE;
	}
	ret = th_mr_get(target, w->key, access, w->off, w->len, &dst);
	if (!ret) {
		memcpy(dst.ptr, w->data, w->len);
		th_mr_put(target, &dst);
		t->bytes_moved += w->len;
		if (d->flags & TH_NIC_DF_REMOTE_CT)
			th_eng_ct_update(target, w->remote_ct, TH_ENG_CT_INC, 1,
					 0, ctx);
	}
	/* a remote target may be @vp itself: that reference is ours too */
	if (d->flags & TH_NIC_DF_REMOTE)
		ops->vport_put(vp->eng->fabric, target);
	return ret;
}

static int th_exec_reduce(struct th_eng_vport *vp, const struct th_nic_desc *d,
			  struct th_exec_tally *t)
{
	const struct th_nic_desc_reduce *r = &d->reduce;
	bool acc = r->rflags & TH_NIC_RF_ACCUMULATE;
	struct th_mr_ref dst, src[TH_NIC_MAX_OPERANDS];
	const void *ptr[TH_NIC_MAX_OPERANDS];
	u64 bytes = (u64)r->count * th_alu_dtype_size(r->dtype);
	u32 i, key, got = 0;
	u64 off;
	int ret;

	ret = th_mr_get(vp, r->dst_key, TH_NIC_ACCESS_LOCAL_WRITE, r->dst_off,
			bytes, &dst);
	if (ret)
		return ret;
	for (i = 0; i < r->nsrc; i++) {
		if (r->rflags & TH_NIC_RF_STRIDED) {
			key = r->src_key[0];
			if (check_mul_overflow((u64)i, (u64)r->src_off[1], &off) ||
			    check_add_overflow(off, (u64)r->src_off[0], &off)) {
				ret = -ERANGE;
				break;
			}
		} else {
			key = r->src_key[i];
			off = r->src_off[i];
		}
		ret = th_mr_get(vp, key, 0, off, bytes, &src[i]);
		if (ret)
			break;
		ptr[i] = src[i].ptr;
		got++;
	}
	if (!ret) {
		th_alu_reduce(r->alu_op, r->dtype, dst.ptr, ptr, r->nsrc, acc,
			      r->count);
		t->alu_bytes += bytes * (r->nsrc + acc);
	}
	for (i = 0; i < got; i++)
		th_mr_put(vp, &src[i]);
	th_mr_put(vp, &dst);
	return ret;
}

static int th_exec_desc(struct th_eng_ctx *ctx, struct th_eng_vport *vp,
			const struct th_nic_desc *d, struct th_exec_tally *t)
{
	switch (d->opcode) {
	case TH_NIC_OP_PUT:
		return th_exec_put(ctx, vp, d, t);
	case TH_NIC_OP_GET:
		return th_exec_get(vp, d, t);
	case TH_NIC_OP_COPY:
		return th_exec_copy(vp, d, t);
	case TH_NIC_OP_WRITE_INLINE:
		return th_exec_inline(ctx, vp, d, t);
	case TH_NIC_OP_REDUCE:
		return th_exec_reduce(vp, d, t);
	case TH_NIC_OP_CT_INC:
		return th_eng_ct_update(vp, d->ct.ct, TH_ENG_CT_INC, d->ct.value,
					0, ctx);
	case TH_NIC_OP_CT_SET:
		return th_eng_ct_update(vp, d->ct.ct, TH_ENG_CT_SET, d->ct.value,
					0, ctx);
	case TH_NIC_OP_NOP:
	case TH_NIC_OP_NOTIFY:
		return 0;
	}
	/* validated at the doorbell: unreachable */
	return -EINVAL;
}

/*
 * Descriptor @i of @chain succeeded: its CQ entry first, then its
 * completion counter, so that whoever sees the counter move finds the
 * entry already in the CQ.
 */
static void th_exec_desc_done(struct th_eng_ctx *ctx, struct th_eng_chain *chain,
			      u32 i)
{
	const struct th_nic_desc *d = &chain->descs[i];
	struct th_eng_vport *vp = chain->vp;
	struct th_nic_cqe cqe;

	if (th_desc_writes_cqe(d)) {
		memset(&cqe, 0, sizeof(cqe));
		cqe.cookie = chain->cookie;
		if (d->opcode == TH_NIC_OP_NOTIFY)
			cqe.imm = d->notify.imm;
		cqe.desc_index = i;
		cqe.opcode = d->opcode;
		/* final only if nothing after it can still fail and write again */
		cqe.flags = i + 1 == chain->ndesc ? TH_NIC_CQE_F_FINAL : 0;
		cqe.vport = vp->index;
		th_lock(&vp->lock);
		th_cq_write_locked(vp, &cqe);
		chain->credits--;
		vp->cq_reserved--;
		vp->eng->ops->wake(vp);
		th_unlock(&vp->lock);
	}
	if (d->flags & TH_NIC_DF_COMP_CT)
		th_eng_ct_update(vp, d->comp_ct, TH_ENG_CT_INC, 1, 0, ctx);
}

void th_exec_chain(struct th_eng_ctx *ctx, struct th_eng_chain *chain)
{
	struct th_eng_vport *vp = chain->vp;
	struct th_exec_tally t = { 0 };
	u32 i;
	int ret = chain->status;

	for (i = 0; !ret && i < chain->ndesc; i++) {
		/* a destroyed vport's chain stops where it is */
		if (th_read_once(vp->dead)) {
			ret = -ECANCELED;
			break;
		}
		ret = th_exec_desc(ctx, vp, &chain->descs[i], &t);
		if (ret)
			break;
		t.descs_run++;
		th_exec_desc_done(ctx, chain, i);
	}
	if (chain->status)
		i = 0;

	th_lock(&vp->lock);
	vp->stats.descs_run += t.descs_run;
	vp->stats.bytes_moved += t.bytes_moved;
	vp->stats.alu_bytes += t.alu_bytes;
	th_unlock(&vp->lock);
	th_chain_complete(ctx, chain, ret, i);
}
