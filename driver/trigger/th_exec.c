// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * th_exec.c - running a fired chain: each descriptor against the MRs and
 * the fabric, in order, stopping at the first that fails.  Long transfers
 * and reductions run in slices (struct th_eng.slice bytes): between two,
 * the context may yield, stop on its budget and hand the chain to the
 * provider, which resumes it where it stopped; what the descriptor holds
 * (its MR ranges, its target vport) stays held meanwhile, exactly as if it
 * had run in one go.
 */
#include "th_engine_int.h"
#include "th_alu.h"

/* Where a descriptor's bytes count: written there, read from there, or copied here. */
static void th_eng_exec_count(struct th_eng_tally *t, const struct th_nic_desc *d,
			      u64 n)
{
	u32 access = th_eng_desc_remote_access(d);

	t->bytes_moved += n;
	if (access == TH_NIC_ACCESS_REMOTE_WRITE)
		t->bytes_put += n;
	else if (access == TH_NIC_ACCESS_REMOTE_READ)
		t->bytes_got += n;
	else
		t->bytes_copied += n;
}

/* Why a chain must stop now: its vport destroyed, or in the error state. */
static int th_eng_exec_stopped(struct th_eng_vport *vp)
{
	if (th_read_once(vp->dead))
		return -ECANCELED;
	if (th_read_once(vp->error))
		return -ENOTCONN;
	return 0;
}

/*
 * Drop the MR ranges the descriptor in progress holds: those of one vport
 * under one lock (a reduction's operands are all its own), one vport's
 * lock at a time.
 */
static void th_eng_exec_release_refs(struct th_eng_exec_hold *h)
{
	struct th_eng_vport *lvp;
	u32 i, j;

	for (i = 0; i < h->nref; i++) {
		if (!h->ref[i].mr)
			continue;
		lvp = h->ref[i].vp;
		th_lock(&lvp->lock);
		for (j = i; j < h->nref; j++) {
			if (h->ref[j].mr && h->ref[j].vp == lvp) {
				th_eng_mr_put_locked(&h->ref[j]);
				h->ref[j].mr = NULL;
			}
		}
		th_unlock(&lvp->lock);
	}
	h->nref = 0;
}

/* ... and its target vport too. */
static void th_eng_exec_release(struct th_eng_chain *chain)
{
	struct th_eng_exec_hold *h = &chain->hold;

	th_eng_exec_release_refs(h);
	if (h->peer) {
		th_eng_remote_put(chain->vp, h->peer);
		h->peer = NULL;
	}
	chain->remote = TH_REMOTE_NONE;
}

static void th_eng_exec_hold_ref(struct th_eng_exec_hold *h, u32 i)
{
	if (h->nref < i + 1)
		h->nref = i + 1;
}

/*
 * Between two slices: go on only while the context has budget, the
 * chain's vport lives and is not in the error state, and the target (if
 * any) is not being destroyed, nor any region it holds deregistered (its
 * key no longer resolves: -EACCES, as for a key gone before the
 * doorbell); neither must wait for a long transfer.
 */
static int th_eng_exec_between_slices(struct th_eng_ctx *ctx,
				      struct th_eng_chain *chain)
{
	u32 i;
	int ret;

	if (th_eng_ctx_out_of_budget(ctx))
		return -EINPROGRESS;
	ret = th_eng_exec_stopped(chain->vp);
	if (ret)
		return ret;
	if (chain->hold.peer && th_read_once(chain->hold.peer->dead))
		return -ECONNREFUSED;
	for (i = 0; i < chain->hold.nref; i++)
		if (chain->hold.ref[i].mr &&
		    th_read_once(chain->hold.ref[i].mr->dying))
			return -EACCES;
	th_cond_resched();
	return 0;
}

/*
 * Move @len bytes from ref[1] to ref[0] with memmove semantics, slice by
 * slice from chain->done on.  Overlapping ranges where the destination
 * lies above the source move from the top down, so no slice overwrites
 * source bytes a later slice still reads.
 */
static int th_eng_exec_move(struct th_eng_ctx *ctx, struct th_eng_chain *chain,
			    const struct th_nic_desc *d, u64 len,
			    struct th_eng_tally *t)
{
	struct th_eng_exec_hold *h = &chain->hold;
	u8 *dst = h->ref[0].ptr;
	const u8 *src = h->ref[1].ptr;
	bool downward = (uintptr_t)dst > (uintptr_t)src &&
			(uintptr_t)dst < (uintptr_t)src + len;
	u64 n, off;
	int ret;

	while (chain->done < len) {
		if (chain->done) {
			ret = th_eng_exec_between_slices(ctx, chain);
			if (ret)
				return ret;
		}
		n = len - chain->done;
		if (n > ctx->eng->slice)
			n = ctx->eng->slice;
		off = downward ? len - chain->done - n : chain->done;
		memmove(dst + off, src + off, n);
		chain->done += n;
		ctx->bytes += n;
		th_eng_exec_count(t, d, n);
	}
	return 0;
}

/*
 * Describe in chain->rop the delivery descriptor @d makes; its local
 * bytes only when they are the descriptor's own (an inline write's), the
 * caller sets those of a region.
 */
void th_eng_exec_remote_describe(struct th_eng_chain *chain,
				 const struct th_nic_desc *d)
{
	struct th_eng_remote_op *op = &chain->rop;

	memset(op, 0, sizeof(*op));
	th_eng_desc_target(d, op);
	op->domain = chain->vp->domain;
	if (th_eng_opdef(d->opcode)->operand == TH_ENG_OPND_INLINE)
		op->local = (u8 *)d->wr_inline.data;	/* the engine's copy */
}

/*
 * A PUT, GET or remote WRITE_INLINE to a node elsewhere: hold the local
 * range (ref[0]) and describe the delivery in chain->rop; the context
 * hands it to the provider (ops->remote_post) once the chain stopped, and
 * th_eng_remote_done() resumes the chain at this descriptor.
 */
static int th_eng_exec_remote_start(struct th_eng_chain *chain,
				    const struct th_nic_desc *d)
{
	const struct th_nic_desc_xfer *x = &d->xfer;
	struct th_eng_mr_ref *ref = &chain->hold.ref[0];
	int ret;

	th_eng_exec_remote_describe(chain, d);
	th_eng_exec_hold_ref(&chain->hold, 0);
	if (th_eng_opdef(d->opcode)->operand == TH_ENG_OPND_XFER) {
		ret = th_eng_mr_get(chain->vp, x->lkey, th_eng_desc_local_access(d),
				    x->loff, x->len, ref);
		if (ret)
			return ret;
		chain->rop.local = ref->ptr;
		chain->rop.local_priv = ref->mr->priv;
	}
	chain->remote = TH_REMOTE_READY;
	return -EAGAIN;
}

/*
 * Offloaded @chain fired: the network already sent the delivery of its
 * descriptor @pos (a WRITE_INLINE, or a PUT whose local range was held
 * when it was armed, in ref[0]), so the chain is parked as if
 * ops->remote_post had taken it.
 */
void th_eng_exec_remote_sent(struct th_eng_chain *chain)
{
	const struct th_nic_desc *d = &chain->descs[chain->pos];

	th_eng_exec_remote_describe(chain, d);
	if (th_eng_opdef(d->opcode)->operand == TH_ENG_OPND_XFER) {
		chain->rop.local = chain->hold.ref[0].ptr;
		chain->rop.local_priv = chain->hold.ref[0].mr->priv;
	}
	chain->remote = TH_REMOTE_POSTED;
}

/*
 * A delivery of @d, @len bytes to (@node, @vport), ended with @ret, which
 * becomes the descriptor's: a key or range the target refused is the
 * initiator's violation; a delivery that happened counts its bytes.
 */
static int th_eng_exec_delivered(struct th_eng_ctx *ctx, struct th_eng_vport *vp,
				 const struct th_nic_desc *d, u32 node, u32 vport,
				 u64 len, struct th_eng_tally *t, int ret)
{
	if (ret == -EACCES || ret == -ERANGE)
		th_eng_remote_violation(vp, ctx);
	if (ret)
		return ret;
	ctx->bytes += len;
	th_eng_exec_count(t, d, len);
	th_trace_deliver(vp->node, vp->index, node, vport, d->opcode, len);
	return 0;
}

/* The remote delivery of descriptor @d ended: its result is the chain's. */
static int th_eng_exec_remote_finish(struct th_eng_ctx *ctx,
				     struct th_eng_chain *chain,
				     const struct th_nic_desc *d,
				     struct th_eng_tally *t)
{
	const struct th_eng_remote_op *op = &chain->rop;
	struct th_eng_vport *vp = chain->vp;
	int ret = chain->remote_status;

	chain->remote = TH_REMOTE_NONE;
	th_eng_exec_release_refs(&chain->hold);
	return th_eng_exec_delivered(ctx, vp, d, op->node, op->vport, op->len, t,
				     ret);
}

/*
 * Resolve what a PUT, GET or COPY touches: ref[0] the destination, ref[1]
 * the source, and for PUT and GET the target vport, which must be in the
 * chain's domain.
 */
static int th_eng_exec_transfer_acquire(struct th_eng_ctx *ctx,
					struct th_eng_chain *chain,
					const struct th_nic_desc *d)
{
	const struct th_nic_desc_xfer *x = &d->xfer;
	const struct th_nic_desc_copy *c = &d->copy;
	struct th_eng_vport *vp = chain->vp;
	struct th_eng_exec_hold *h = &chain->hold;
	int ret;

	bool fetch = th_eng_opdef(d->opcode)->flags & TH_ENG_OPF_READS_REMOTE;

	if (th_eng_opdef(d->opcode)->operand == TH_ENG_OPND_COPY) {
		th_eng_exec_hold_ref(h, 1);
		ret = th_eng_mr_get(vp, c->src_key, 0, c->src_off, c->len, &h->ref[1]);
		if (ret)
			return ret;
		return th_eng_mr_get(vp, c->dst_key, TH_NIC_ACCESS_LOCAL_WRITE,
				     c->dst_off, c->len, &h->ref[0]);
	}

	/* the destination is ref[0]: here for a GET, there for a PUT */
	th_eng_exec_hold_ref(h, 1);
	ret = th_eng_mr_get(vp, x->lkey, th_eng_desc_local_access(d), x->loff,
			    x->len, &h->ref[fetch ? 0 : 1]);
	if (ret)
		return ret;
	h->peer = th_eng_remote_get(vp, x->node, x->vport);
	if (!h->peer)
		return -ECONNREFUSED;
	return th_eng_remote_mr_get(vp, h->peer, x->rkey,
				    th_eng_desc_remote_access(d), x->roff,
				    x->len, &h->ref[fetch ? 1 : 0], ctx);
}

/*
 * PUTs of at most this many bytes to a vport of this fabric copy through a
 * buffer on the stack (th_eng_exec_put_small()); a collective's small rounds
 * are made of them.
 */
#define TH_EXEC_BOUNCE	256

/*
 * A small PUT to a vport of this fabric in two critical sections instead
 * of four: the source bytes are copied out under the initiator's lock,
 * then the target's range is resolved, written and its counter raised
 * under the target's lock.  Neither range is held from one to the other:
 * a region cannot be deregistered past the lock held while it is touched,
 * and the engine never holds two vport locks.  The same statuses,
 * violations, tallies and trace as the general path.
 */
static int th_eng_exec_put_small(struct th_eng_ctx *ctx, struct th_eng_chain *chain,
				 const struct th_nic_desc *d,
				 struct th_eng_tally *t)
{
	const struct th_nic_desc_xfer *x = &d->xfer;
	struct th_eng_vport *vp = chain->vp;
	struct th_eng_vport *peer;
	u8 bounce[TH_EXEC_BOUNCE];
	struct th_eng_mr *mr;
	int ret;

	th_lock(&vp->lock);
	mr = vp->dead ? NULL : th_eng_mr_lookup_locked(vp, x->lkey);
	ret = vp->dead ? -ECONNREFUSED :
	      mr ? th_eng_mr_allows(mr, 0, x->loff, x->len) : -EACCES;
	if (!ret)
		memcpy(bounce, (u8 *)mr->kaddr + x->loff, x->len);
	th_unlock(&vp->lock);
	if (ret)
		return ret;

	peer = th_eng_remote_get(vp, x->node, x->vport);
	if (!peer)
		return -ECONNREFUSED;
	th_lock(&peer->lock);
	mr = peer->dead ? NULL : th_eng_mr_lookup_rkey_locked(peer, x->rkey);
	ret = peer->dead ? -ECONNREFUSED :
	      mr ? th_eng_mr_allows(mr, TH_NIC_ACCESS_REMOTE_WRITE, x->roff,
				    x->len) : -EACCES;
	if (!ret) {
		memcpy((u8 *)mr->kaddr + x->roff, bounce, x->len);
		/* the control packet: data first, then the counter */
		if (d->flags & TH_NIC_DF_REMOTE_CT)
			th_eng_ct_update_locked(peer, x->remote_ct, TH_ENG_CT_INC, 1,
						0, ctx);
	}
	th_unlock(&peer->lock);
	th_eng_remote_put(vp, peer);
	return th_eng_exec_delivered(ctx, vp, d, x->node, x->vport, x->len, t, ret);
}

/* PUT, GET and COPY: a range's bytes to another range, in slices. */
int th_eng_exec_transfer(struct th_eng_ctx *ctx, struct th_eng_chain *chain,
			 const struct th_nic_desc *d, struct th_eng_tally *t)
{
	struct th_eng_exec_hold *h = &chain->hold;
	bool remote = th_eng_desc_remote(d);
	u64 len = th_eng_desc_len(d);
	int ret;

	if (chain->remote == TH_REMOTE_DONE)
		return th_eng_exec_remote_finish(ctx, chain, d, t);
	if (!h->nref) {
		/* a delivery leaves the NIC: fault injection may hold it */
		ret = remote ? th_eng_fault_check(chain) : 0;
		if (!ret && remote && th_eng_remote_node(chain->vp, d->xfer.node))
			return th_eng_exec_remote_start(chain, d);
		if (!ret && !chain->done && len <= TH_EXEC_BOUNCE &&
		    th_eng_desc_remote_access(d) == TH_NIC_ACCESS_REMOTE_WRITE)
			return th_eng_exec_put_small(ctx, chain, d, t);
		if (!ret)
			ret = th_eng_exec_transfer_acquire(ctx, chain, d);
		if (ret)
			return ret;
	}
	ret = th_eng_exec_move(ctx, chain, d, len, t);
	if (ret)
		return ret;
	if (remote)
		th_trace_deliver(chain->vp->node, chain->vp->index, d->xfer.node,
				 d->xfer.vport, d->opcode, len);
	/*
	 * The control packet: data first, then the counter, under the one
	 * lock of the target that also drops the hold on its range (only a
	 * write there carries the flag: th_eng_check_xfer()).
	 */
	if (d->flags & TH_NIC_DF_REMOTE_CT) {
		th_lock(&h->peer->lock);
		if (h->ref[0].mr && h->ref[0].vp == h->peer) {
			th_eng_mr_put_locked(&h->ref[0]);
			h->ref[0].mr = NULL;
		}
		th_eng_ct_update_locked(h->peer, d->xfer.remote_ct, TH_ENG_CT_INC,
					1, 0, ctx);
		th_unlock(&h->peer->lock);
	}
	th_eng_exec_release_refs(h);
	th_eng_exec_release(chain);
	return 0;
}

/* WRITE_INLINE: the descriptor's bytes, here or at its target. */
int th_eng_exec_inline(struct th_eng_ctx *ctx, struct th_eng_chain *chain,
		       const struct th_nic_desc *d, struct th_eng_tally *t)
{
	const struct th_nic_desc_inline *w = &d->wr_inline;
	struct th_eng_vport *vp = chain->vp;
	struct th_eng_exec_hold *h = &chain->hold;
	int ret;

	if (chain->remote == TH_REMOTE_DONE)
		return th_eng_exec_remote_finish(ctx, chain, d, t);
	th_eng_exec_hold_ref(h, 0);
	if (!(d->flags & TH_NIC_DF_REMOTE)) {
		ret = th_eng_mr_get(vp, w->lkey, TH_NIC_ACCESS_LOCAL_WRITE, w->off,
				    w->len, &h->ref[0]);
	} else {
		ret = th_eng_fault_check(chain);
		if (ret)
			return ret;
		if (th_eng_remote_node(vp, w->node))
			return th_eng_exec_remote_start(chain, d);
		h->peer = th_eng_remote_get(vp, w->node, w->vport);
		if (!h->peer)
			return -ECONNREFUSED;
		ret = th_eng_remote_mr_get(vp, h->peer, w->rkey,
					   TH_NIC_ACCESS_REMOTE_WRITE, w->off,
					   w->len, &h->ref[0], ctx);
	}
	if (ret)
		return ret;
	memcpy(h->ref[0].ptr, w->data, w->len);
	th_eng_exec_count(t, d, w->len);
	if (d->flags & TH_NIC_DF_REMOTE)
		th_trace_deliver(vp->node, vp->index, w->node, w->vport,
				 d->opcode, w->len);
	th_eng_exec_release_refs(h);
	if (d->flags & TH_NIC_DF_REMOTE_CT)
		th_eng_ct_update(h->peer, w->remote_ct, TH_ENG_CT_INC, 1, 0, ctx);
	th_eng_exec_release(chain);
	return 0;
}

/* ref[0] the destination, ref[1 + i] source i. */
static int th_eng_exec_reduce_acquire(struct th_eng_chain *chain,
				      const struct th_nic_desc_reduce *r)
{
	struct th_eng_vport *vp = chain->vp;
	struct th_eng_exec_hold *h = &chain->hold;
	u64 bytes = (u64)r->count * th_alu_dtype_size(r->dtype);
	u32 i, lkey;
	u64 off;
	int ret;

	/* every operand is the vport's own: one lock for all of them */
	th_lock(&vp->lock);
	th_eng_exec_hold_ref(h, 0);
	ret = th_eng_mr_get_locked(vp, r->dst_key, TH_NIC_ACCESS_LOCAL_WRITE,
				   r->dst_off, bytes, &h->ref[0]);
	for (i = 0; !ret && i < r->nsrc; i++) {
		if (r->rflags & TH_NIC_RF_STRIDED) {
			lkey = r->src_key[0];
			if (check_mul_overflow((u64)i, (u64)r->src_off[1], &off) ||
			    check_add_overflow(off, (u64)r->src_off[0], &off)) {
				ret = -ERANGE;
				break;
			}
		} else {
			lkey = r->src_key[i];
			off = r->src_off[i];
		}
		th_eng_exec_hold_ref(h, 1 + i);
		ret = th_eng_mr_get_locked(vp, lkey, 0, off, bytes, &h->ref[1 + i]);
	}
	th_unlock(&vp->lock);
	return ret;
}

/*
 * Reduce elements chain->done ... count - 1, a slice at a time: each
 * element's operands are still combined left to right in one ALU call,
 * so slicing changes no result.
 */
/* REDUCE: the ALU over the operands into the destination, in slices. */
int th_eng_exec_reduce(struct th_eng_ctx *ctx, struct th_eng_chain *chain,
		       const struct th_nic_desc *d, struct th_eng_tally *t)
{
	const struct th_nic_desc_reduce *r = &d->reduce;
	struct th_eng_exec_hold *h = &chain->hold;
	bool acc = r->rflags & TH_NIC_RF_ACCUMULATE;
	u32 esize = th_alu_dtype_size(r->dtype);
	u64 per_elem = (u64)esize * (r->nsrc + acc);
	u64 slice_elems = ctx->eng->slice / per_elem;
	const void *src[TH_NIC_MAX_OPERANDS];
	u64 n, off;
	u32 i;
	int ret;

	if (!h->nref) {
		ret = th_eng_exec_reduce_acquire(chain, r);
		if (ret)
			return ret;
	}
	if (!slice_elems)
		slice_elems = 1;
	while (chain->done < r->count) {
		if (chain->done) {
			ret = th_eng_exec_between_slices(ctx, chain);
			if (ret)
				return ret;
		}
		n = r->count - chain->done;
		if (n > slice_elems)
			n = slice_elems;
		off = chain->done * esize;
		for (i = 0; i < r->nsrc; i++)
			src[i] = h->ref[1 + i].ptr + off;
		th_alu_reduce(r->alu_op, r->dtype, h->ref[0].ptr + off, src,
			      r->nsrc, acc, n);
		chain->done += n;
		ctx->bytes += n * per_elem;
		t->alu_bytes += n * per_elem;
	}
	th_eng_exec_release(chain);
	return 0;
}

/* CT_INC or CT_SET @d on the chain's own vport @vp. */
static int th_eng_exec_ct_locked(struct th_eng_ctx *ctx, struct th_eng_vport *vp,
				 const struct th_nic_desc *d)
	__must_hold(&vp->lock)
{
	bool set = th_eng_opdef(d->opcode)->flags & TH_ENG_OPF_CT_SET;

	return th_eng_ct_update_locked(vp, d->ct.ct,
				       set ? TH_ENG_CT_SET : TH_ENG_CT_INC,
				       d->ct.value, 0, ctx);
}

/* CT_INC and CT_SET, on their own when not in a run of them. */
int th_eng_exec_ct(struct th_eng_ctx *ctx, struct th_eng_chain *chain,
		   const struct th_nic_desc *d,
		   struct th_eng_tally *t __always_unused)
{
	struct th_eng_vport *vp = chain->vp;
	int ret;

	th_lock(&vp->lock);
	ret = th_eng_exec_ct_locked(ctx, vp, d);
	th_unlock(&vp->lock);
	return ret;
}

/*
 * NOP, NOTIFY and REARM do nothing when they run: their CQ entry and
 * counter are every descriptor's, REARM acts once the round is over.
 */
int th_eng_exec_nothing(struct th_eng_ctx *ctx __always_unused,
			struct th_eng_chain *chain __always_unused,
			const struct th_nic_desc *d __always_unused,
			struct th_eng_tally *t __always_unused)
{
	return 0;
}

/* The CQ entry of descriptor @i of @chain, which succeeded. */
static void th_eng_exec_write_cqe_locked(struct th_eng_chain *chain, u32 i)
	__must_hold(&chain->vp->lock)
{
	const struct th_nic_desc *d = &chain->descs[i];
	struct th_eng_vport *vp = chain->vp;
	struct th_nic_cqe cqe;

	memset(&cqe, 0, sizeof(cqe));
	cqe.cookie = chain->cookie;
	if (th_eng_opdef(d->opcode)->operand == TH_ENG_OPND_NOTIFY)
		cqe.imm = d->notify.imm;
	cqe.desc_index = i;
	cqe.opcode = d->opcode;
	/*
	 * final only if nothing after it can still fail and write again, and
	 * no further round follows
	 */
	cqe.flags = i + 1 == chain->ndesc && !chain->stride ?
		    TH_NIC_CQE_F_FINAL : 0;
	cqe.vport = vp->index;
	th_eng_cq_write_locked(vp, &cqe);
	chain->credits--;
	vp->cq_reserved--;
}

/*
 * Descriptor @i of @chain succeeded, under its vport's lock: its CQ entry
 * first, then its completion counter, so that whoever sees the counter
 * move finds the entry already in the CQ.
 */
static void th_eng_exec_desc_done_locked(struct th_eng_ctx *ctx,
					 struct th_eng_chain *chain, u32 i)
	__must_hold(&chain->vp->lock)
{
	const struct th_nic_desc *d = &chain->descs[i];
	struct th_eng_vport *vp = chain->vp;

	if (th_eng_desc_writes_cqe(d)) {
		th_eng_exec_write_cqe_locked(chain, i);
		vp->eng->ops->wake(vp);
	}
	if (d->flags & TH_NIC_DF_COMP_CT)
		th_eng_ct_update_locked(vp, d->comp_ct, TH_ENG_CT_INC, 1, 0, ctx);
}

/*
 * Whether the end of @d has anything to do (a CQ entry, a completion
 * counter): most descriptors of a collective's chains have neither, and
 * the callers then skip the call (an Allreduce of 16 ranks: 129 a round).
 */
static bool th_eng_exec_desc_done_has_work(const struct th_nic_desc *d)
{
	return th_eng_desc_writes_cqe(d) || (d->flags & TH_NIC_DF_COMP_CT);
}

/* The same, taking the lock only when there is something to do. */
static void th_eng_exec_desc_done(struct th_eng_ctx *ctx, struct th_eng_chain *chain,
				  u32 i)
{
	if (!th_eng_exec_desc_done_has_work(&chain->descs[i]))
		return;
	th_lock(&chain->vp->lock);
	th_eng_exec_desc_done_locked(ctx, chain, i);
	th_unlock(&chain->vp->lock);
}

/*
 * Counter operations, NOTIFY, NOP and REARM touch nothing but the chain's
 * own vport, and their CQ entries and completion counters are its own
 * too: a run of them, and the end of the round after them, go under one
 * hold of its lock instead of a lock each (most chains of a collective
 * are such a run, or end with one).  Not in timed mode: its charge per
 * descriptor takes the lock itself.
 */
static bool th_eng_exec_desc_own(const struct th_eng_ctx *ctx,
				 const struct th_nic_desc *d)
{
	if (ctx->eng->timing)
		return false;
	return !(th_eng_opdef(d->opcode)->flags & TH_ENG_OPF_MEMORY);
}

/*
 * Run descriptors *@i, *@i + 1 ... of @chain while they are its own
 * (th_eng_exec_desc_own()), under its vport's lock; *@i is left at the last
 * one that ran.  0, -EINPROGRESS on the budget (as between any two
 * descriptors), or the error of the one that failed (at *@i).
 */
static int th_eng_exec_own_run_locked(struct th_eng_ctx *ctx,
				      struct th_eng_chain *chain, u32 *i,
				      struct th_eng_tally *t)
	__must_hold(&chain->vp->lock)
{
	struct th_eng_vport *vp = chain->vp;
	const struct th_nic_desc *d;
	int ret;

	for (;;) {
		d = &chain->descs[*i];
		if (th_eng_opdef(d->opcode)->flags &
		    (TH_ENG_OPF_CT_INC | TH_ENG_OPF_CT_SET))
			ret = th_eng_exec_ct_locked(ctx, vp, d);
		else
			ret = 0;	/* th_eng_exec_nothing() */
		if (ret)
			return ret;
		chain->done = 0;
		t->descs_run++;
		if (th_eng_exec_desc_done_has_work(d))
			th_eng_exec_desc_done_locked(ctx, chain, *i);
		if (*i + 1 == chain->ndesc ||
		    !th_eng_exec_desc_own(ctx, &chain->descs[*i + 1]))
			return 0;
		++*i;
		if (th_eng_ctx_out_of_budget(ctx))
			return -EINPROGRESS;
		ret = th_eng_exec_stopped(vp);
		if (ret)
			return ret;
	}
}

void th_eng_exec_tally_fold_locked(struct th_eng_vport *vp,
				   const struct th_eng_tally *t)
	__must_hold(&vp->lock)
{
	vp->stats.descs_run += t->descs_run;
	vp->stats.bytes_moved += t->bytes_moved;
	vp->stats.alu_bytes += t->alu_bytes;
	vp->stats.bytes_put += t->bytes_put;
	vp->stats.bytes_got += t->bytes_got;
	vp->stats.bytes_copied += t->bytes_copied;
}

bool th_eng_exec_chain(struct th_eng_ctx *ctx, struct th_eng_chain *chain)
{
	struct th_eng_vport *vp = chain->vp;
	struct th_eng_tally t = { 0 };
	const struct th_nic_desc *d;
	int ret = chain->status;
	u32 i = chain->pos;

	if (!ret) {
		for (; i < chain->ndesc; i++) {
			/* the budget also holds between descriptors */
			if (i > chain->pos && th_eng_ctx_out_of_budget(ctx)) {
				ret = -EINPROGRESS;
				break;
			}
			/* a remote delivery's end is taken first, whatever came */
			ret = chain->remote == TH_REMOTE_DONE ? 0 :
			      th_eng_exec_stopped(vp);
			if (ret)
				break;
			if (th_eng_exec_desc_own(ctx, &chain->descs[i])) {
				th_lock(&vp->lock);
				ret = th_eng_exec_own_run_locked(ctx, chain, &i, &t);
				/* the round ends under the same lock */
				if (!ret && i + 1 == chain->ndesc && chain->stride &&
				    !chain->hold.nref && !chain->hold.peer) {
					chain->remote = TH_REMOTE_NONE;
					th_eng_chain_next_round_locked(ctx, chain, &t);
					return true;
				}
				th_unlock(&vp->lock);
				if (ret)
					break;
				continue;
			}
			/* timed mode: once per descriptor, not on a resume */
			if (ctx->eng->timing && !chain->done && !chain->hold.nref &&
			    !chain->tries && !chain->fault_pass)
				th_eng_timing_desc(ctx, chain, &chain->descs[i]);
			d = &chain->descs[i];
			ret = th_eng_opdef(d->opcode)->run(ctx, chain, d, &t);
			if (ret)
				break;
			chain->done = 0;
			t.descs_run++;
			th_eng_exec_desc_done(ctx, chain, i);
		}
	} else {
		i = 0;
	}
	/*
	 * between slices, parked by fault injection (chain->park_ns), or
	 * waiting for a remote delivery (chain->remote)
	 */
	if (ret == -EINPROGRESS ||
	    (ret == -EAGAIN && (chain->park_ns ||
				chain->remote == TH_REMOTE_READY))) {
		chain->pos = i;
		/*
		 * A delivery that left for the network: to a remote node, or
		 * lost or delayed there by fault injection (parked until it
		 * is sent again).  The next chain of the counter may start
		 * while it travels, as deliveries of one counter's chains
		 * overlap on a real network; released here, before the
		 * caller posts or parks it: from then on it may complete on
		 * another thread.  Between two slices it keeps the turn.
		 */
		th_lock(&vp->lock);
		th_eng_exec_tally_fold_locked(vp, &t);
		if (ret == -EAGAIN && chain->ordered)
			th_eng_chain_order_release_locked(ctx, chain);
		th_unlock(&vp->lock);
		return false;
	}
	th_eng_exec_release(chain);
	/* the tally is folded under the lock the chain's end takes anyway */
	if (!ret && chain->stride)
		th_eng_chain_next_round(ctx, chain, &t);
	else
		th_eng_chain_complete(ctx, chain, ret, i, &t);
	return true;
}
