// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * th_validate.c - the one place a descriptor chain is checked against
 * uapi.rst, "At the doorbell", for every provider.  Each rule answers
 * with the reason the doorbell reports (enum th_nic_refusal; all of them
 * -EINVAL); what can only be known when a chain runs (remote keys, domains,
 * regions deregistered since) is checked in th_exec.c and th_remote.c.
 */
#include "th_engine_int.h"
#include "th_alu.h"

static bool th_eng_all_zero(const void *p, size_t n)
{
	const u8 *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

/* A local MR named by a descriptor: it must exist and allow @access. */
static const struct th_eng_mr *th_eng_local_mr(struct th_eng_vport *vp, u32 lkey,
					       u32 access)
	__must_hold(&vp->lock)
{
	const struct th_eng_mr *mr = th_eng_mr_lookup_locked(vp, lkey);

	if (!mr || (mr->access & access) != access)
		return NULL;
	return mr;
}

/* A local range: TH_NIC_REFUSE_LKEY, _RANGE, or none. */
static u32 th_eng_local_range(struct th_eng_vport *vp, u32 lkey, u32 access,
			      u64 off, u64 len)
	__must_hold(&vp->lock)
{
	const struct th_eng_mr *mr = th_eng_local_mr(vp, lkey, access);

	if (!mr)
		return TH_NIC_REFUSE_LKEY;
	return th_eng_mr_allows(mr, 0, off, len) ? TH_NIC_REFUSE_RANGE : 0;
}

/*
 * @d's local ranges (th_eng_desc_local_ranges()), each inside an MR of
 * @vp that allows its access: the first refusal, or 0.
 */
static u32 th_eng_local_ranges_ok(struct th_eng_vport *vp,
				  const struct th_nic_desc *d)
	__must_hold(&vp->lock)
{
	struct th_eng_local_range lr[TH_ENG_LOCAL_RANGES];
	u32 i, n = th_eng_desc_local_ranges(d, lr), reason = 0;

	for (i = 0; i < n && !reason; i++)
		reason = th_eng_local_range(vp, lr[i].key, lr[i].access,
					    lr[i].off, lr[i].len);
	return reason;
}

/*
 * A remote target: a fabric address that can exist, and a range that
 * cannot wrap; the key and the domain are checked by the target when it
 * runs.
 */
static bool th_eng_remote_ok(struct th_eng_vport *vp, u64 off, u64 len)
{
	u64 end;

	/* the node and vport are th_eng_chain_fit()'s */
	return len <= vp->eng->lim.max_mr_size &&
	       !check_add_overflow(off, len, &end);
}

/*
 * TH_NIC_DF_REMOTE_CT and its counter: both or neither; the flag only on
 * a descriptor that writes at a target (a GET, or an inline write that
 * stays here, raises nothing there).  Its range is th_eng_chain_fit()'s.
 */
static u32 th_eng_remote_ct_ok(const struct th_nic_desc *d, u16 remote_ct)
{
	if (d->flags & TH_NIC_DF_REMOTE_CT) {
		if (th_eng_desc_remote_access(d) != TH_NIC_ACCESS_REMOTE_WRITE)
			return TH_NIC_REFUSE_FLAGS;
	} else if (remote_ct) {
		return TH_NIC_REFUSE_COUNTER;
	}
	return 0;
}

/* PUT and GET: a local range, a remote target and its counter. */
u32 th_eng_check_xfer(struct th_eng_vport *vp, const struct th_nic_desc *d,
		      u32 pos __always_unused, u32 n __always_unused)
	__must_hold(&vp->lock)
{
	const struct th_nic_desc_xfer *x = &d->xfer;
	u32 reason;

	if (x->rsvd0 || !th_eng_all_zero(x->rsvd, sizeof(x->rsvd)))
		return TH_NIC_REFUSE_RESERVED;
	reason = th_eng_local_ranges_ok(vp, d);
	if (reason)
		return reason;
	if (!th_eng_remote_ok(vp, x->roff, x->len))
		return TH_NIC_REFUSE_ADDRESS;
	return th_eng_remote_ct_ok(d, x->remote_ct);
}

/* COPY: two local ranges, the destination writable. */
u32 th_eng_check_copy(struct th_eng_vport *vp, const struct th_nic_desc *d,
		      u32 pos __always_unused, u32 n __always_unused)
	__must_hold(&vp->lock)
{
	const struct th_nic_desc_copy *c = &d->copy;

	if (!th_eng_all_zero(c->rsvd, sizeof(c->rsvd)))
		return TH_NIC_REFUSE_RESERVED;
	return th_eng_local_ranges_ok(vp, d);
}

/* WRITE_INLINE: its bytes, and a local range or a remote target. */
u32 th_eng_check_inline(struct th_eng_vport *vp, const struct th_nic_desc *d,
			u32 pos __always_unused, u32 n __always_unused)
	__must_hold(&vp->lock)
{
	const struct th_nic_desc_inline *w = &d->wr_inline;
	bool remote = d->flags & TH_NIC_DF_REMOTE;
	u32 reason;

	if (!th_eng_all_zero(w->rsvd0, sizeof(w->rsvd0)) ||
	    !th_eng_all_zero(w->rsvd, sizeof(w->rsvd)))
		return TH_NIC_REFUSE_RESERVED;
	if (!w->len || w->len > TH_NIC_INLINE_MAX ||
	    !th_eng_all_zero(w->data + w->len, TH_NIC_INLINE_MAX - w->len))
		return TH_NIC_REFUSE_INLINE;
	if (remote) {
		if (w->lkey)
			return TH_NIC_REFUSE_ADDRESS;
		if (!th_eng_remote_ok(vp, w->off, w->len))
			return TH_NIC_REFUSE_ADDRESS;
	} else {
		if (w->node || w->vport || w->rkey)
			return TH_NIC_REFUSE_ADDRESS;
		reason = th_eng_local_ranges_ok(vp, d);
		if (reason)
			return reason;
	}
	return th_eng_remote_ct_ok(d, w->remote_ct);
}

/*
 * One REDUCE operand: inside its MR, aligned to the element in the owner's
 * address space, and either exactly the destination or disjoint from it
 * (a shifted overlap would make the result depend on evaluation order).
 */
static u32 th_eng_reduce_operand_ok(struct th_eng_vport *vp, u32 lkey, u64 off,
				    u64 bytes, u32 esize, u64 dst_addr)
	__must_hold(&vp->lock)
{
	const struct th_eng_mr *mr = th_eng_local_mr(vp, lkey, 0);
	u64 addr;

	if (!mr)
		return TH_NIC_REFUSE_LKEY;
	if (th_eng_mr_allows(mr, 0, off, bytes))
		return TH_NIC_REFUSE_RANGE;
	addr = mr->uaddr + off;
	if (addr & (esize - 1))
		return TH_NIC_REFUSE_ALIGN;
	if (addr == dst_addr || addr + bytes <= dst_addr ||
	    dst_addr + bytes <= addr)
		return 0;
	return TH_NIC_REFUSE_OVERLAP;
}

/* REDUCE: its ALU operation, its operands and its destination. */
u32 th_eng_check_reduce(struct th_eng_vport *vp, const struct th_nic_desc *d,
			u32 pos __always_unused, u32 n __always_unused)
	__must_hold(&vp->lock)
{
	struct th_eng_local_range lr[TH_ENG_LOCAL_RANGES];
	const struct th_nic_desc_reduce *r = &d->reduce;
	bool strided = r->rflags & TH_NIC_RF_STRIDED;
	u32 max_src = TH_NIC_MAX_OPERANDS;
	const struct th_eng_mr *dst;
	u32 esize, i, nr, used_off, used_key, reason;
	u64 bytes, dst_addr;

	if (!th_alu_op_valid(r->alu_op, r->dtype))
		return TH_NIC_REFUSE_ALU;
	if (r->rflags & ~(u32)TH_NIC_RF_ALL)
		return TH_NIC_REFUSE_ALU;
	if (r->rflags & TH_NIC_RF_ACCUMULATE)
		max_src--;
	if (!r->nsrc || r->nsrc > max_src)
		return TH_NIC_REFUSE_ALU;

	/* fields past the operands in use must be zero */
	used_key = strided ? 1 : r->nsrc;
	used_off = strided ? 2 : r->nsrc;
	for (i = used_key; i < TH_NIC_MAX_OPERANDS; i++)
		if (r->src_key[i])
			return TH_NIC_REFUSE_RESERVED;
	for (i = used_off; i < TH_NIC_MAX_OPERANDS; i++)
		if (r->src_off[i])
			return TH_NIC_REFUSE_RESERVED;

	/* the destination, then each operand (th_eng_desc_local_ranges()) */
	esize = th_alu_dtype_size(r->dtype);
	nr = th_eng_desc_local_ranges(d, lr);
	bytes = lr[0].len;
	dst = th_eng_local_mr(vp, lr[0].key, lr[0].access);
	if (!dst)
		return TH_NIC_REFUSE_LKEY;
	if (th_eng_mr_allows(dst, 0, lr[0].off, bytes))
		return TH_NIC_REFUSE_RANGE;
	dst_addr = dst->uaddr + lr[0].off;
	if (dst_addr & (esize - 1))
		return TH_NIC_REFUSE_ALIGN;

	for (i = 1; i < nr; i++) {
		reason = th_eng_reduce_operand_ok(vp, lr[i].key, lr[i].off, bytes,
						  esize, dst_addr);
		if (reason)
			return reason;
	}
	return 0;
}

/* CT_INC and CT_SET: a counter of the chain's vport (its range: the fit). */
u32 th_eng_check_ct(struct th_eng_vport *vp __always_unused,
		    const struct th_nic_desc *d, u32 pos __always_unused,
		    u32 n __always_unused)
{
	const struct th_nic_desc_ct *c = &d->ct;

	if (c->rsvd0 || c->rsvd1 || !th_eng_all_zero(c->rsvd, sizeof(c->rsvd)))
		return TH_NIC_REFUSE_RESERVED;
	return 0;
}

/* NOP: no operand at all. */
u32 th_eng_check_none(struct th_eng_vport *vp __always_unused, const struct th_nic_desc *d,
		      u32 pos __always_unused, u32 n __always_unused)
{
	return th_eng_all_zero(d->raw, sizeof(d->raw)) ?
	       0 : TH_NIC_REFUSE_RESERVED;
}

/* NOTIFY: its immediate, nothing else. */
u32 th_eng_check_notify(struct th_eng_vport *vp __always_unused, const struct th_nic_desc *d,
			u32 pos __always_unused, u32 n __always_unused)
{
	return th_eng_all_zero(d->notify.rsvd, sizeof(d->notify.rsvd)) ?
	       0 : TH_NIC_REFUSE_RESERVED;
}

/* REARM: its place and stride are the fit's; the rest is reserved. */
u32 th_eng_check_rearm(struct th_eng_vport *vp __always_unused, const struct th_nic_desc *d,
		       u32 pos __always_unused, u32 n __always_unused)
{
	return th_eng_all_zero(d->rearm.rsvd, sizeof(d->rearm.rsvd)) ?
	       0 : TH_NIC_REFUSE_RESERVED;
}

/* Rules every descriptor follows, whatever its opcode. */
static u32 th_eng_validate_common(const struct th_nic_desc *d, u32 pos, u32 n)
{
	bool linked = d->flags & TH_NIC_DF_LINK;
	const struct th_eng_opdef *def;

	if (d->opcode >= TH_NIC_OP_MAX)
		return TH_NIC_REFUSE_OPCODE;
	def = th_eng_opdef(d->opcode);
	if (d->rsvd0)
		return TH_NIC_REFUSE_RESERVED;
	if (d->flags & ~(u32)TH_NIC_DF_ALL)
		return TH_NIC_REFUSE_FLAGS;
	/* every descriptor but the last links to the next */
	if (linked != (pos + 1 < n))
		return TH_NIC_REFUSE_CHAIN;
	/* counters' ranges are th_eng_chain_fit()'s */
	if (pos && (d->trig_ct || d->threshold || d->cookie))
		return TH_NIC_REFUSE_TRIGGER;
	if (!(d->flags & TH_NIC_DF_COMP_CT) && d->comp_ct)
		return TH_NIC_REFUSE_COUNTER;
	if ((d->flags & TH_NIC_DF_REMOTE) && !(def->flags & TH_ENG_OPF_REMOTE_FLAG))
		return TH_NIC_REFUSE_FLAGS;
	if ((d->flags & TH_NIC_DF_REMOTE_CT) && !(def->flags & TH_ENG_OPF_REMOTE_CT))
		return TH_NIC_REFUSE_FLAGS;
	return 0;
}

static u32 th_eng_validate_desc(struct th_eng_vport *vp, const struct th_nic_desc *d,
				u32 pos, u32 n)
	__must_hold(&vp->lock)
{
	u32 reason = th_eng_validate_common(d, pos, n);

	if (reason)
		return reason;
	return th_eng_opdef(d->opcode)->check(vp, d, pos, n);
}

/*
 * Check a whole chain of @n descriptors (already copied out of the SQ).
 * Returns TH_NIC_REFUSE_NONE, or the reason for the first offending
 * descriptor, whose position is then in *@bad.
 */
u32 th_eng_chain_validate(struct th_eng_vport *vp,
			  const struct th_nic_desc *descs, u32 n, u32 *bad)
{
	const struct th_eng_limits *lim = &vp->eng->lim;
	const struct th_eng_fit fit = {
		.nodes = lim->nodes, .max_vports = lim->max_vports,
		.max_counters = lim->max_counters, .max_chain = lim->max_chain,
		.sq_entries = vp->sq.entries, .cq_entries = vp->cq.entries,
	};
	u32 i, reason;

	reason = th_eng_chain_fit(&fit, descs, n, bad);
	if (reason)
		return reason;
	th_lock(&vp->lock);
	for (i = 0; i < n; i++) {
		reason = th_eng_validate_desc(vp, &descs[i], i, n);
		if (reason) {
			*bad = i;
			break;
		}
	}
	th_unlock(&vp->lock);
	return reason;
}

u32 th_eng_chain_credits(const struct th_nic_desc *descs, u32 n)
{
	u32 i, credits = 1;	/* room for the one error or cancel entry */

	/* an opcode unknown writes nothing: the validation refuses it */
	for (i = 0; i < n; i++)
		if (descs[i].opcode < TH_NIC_OP_MAX &&
		    th_eng_desc_writes_cqe(&descs[i]))
			credits++;
	return credits;
}

/* @ct names a counter of a vport: below max_counters. */
static bool th_eng_fit_counter(const struct th_eng_fit *fit, u32 ct)
{
	return !fit->max_counters || ct < fit->max_counters;
}

/* The size rules of descriptor @pos of @n. */
static u32 th_eng_desc_fit(const struct th_eng_fit *fit,
			   const struct th_nic_desc *d, u32 pos, u32 n)
{
	u32 f = th_eng_opdef(d->opcode)->flags;
	struct th_eng_remote_op op;

	if (!pos && !th_eng_fit_counter(fit, d->trig_ct))
		return TH_NIC_REFUSE_TRIGGER;
	if ((d->flags & TH_NIC_DF_COMP_CT) && !th_eng_fit_counter(fit, d->comp_ct))
		return TH_NIC_REFUSE_COUNTER;
	if ((f & (TH_ENG_OPF_CT_INC | TH_ENG_OPF_CT_SET)) &&
	    !th_eng_fit_counter(fit, d->ct.ct))
		return TH_NIC_REFUSE_COUNTER;
	if (th_eng_desc_target(d, &op)) {
		if ((fit->nodes && op.node >= fit->nodes) ||
		    (fit->max_vports && op.vport >= fit->max_vports))
			return TH_NIC_REFUSE_ADDRESS;
		if (op.remote_ct >= 0 && !th_eng_fit_counter(fit, op.remote_ct))
			return TH_NIC_REFUSE_COUNTER;
	}
	if ((f & TH_ENG_OPF_ENDS_ROUND) && (pos + 1 != n || !d->rearm.stride))
		return TH_NIC_REFUSE_REARM;
	return TH_NIC_REFUSE_NONE;
}

u32 th_eng_chain_fit(const struct th_eng_fit *fit,
		     const struct th_nic_desc *descs, u32 n, u32 *bad)
{
	u32 i, reason;

	*bad = 0;
	if (!n || (fit->max_chain && n > fit->max_chain) ||
	    (fit->sq_entries && n > fit->sq_entries))
		return TH_NIC_REFUSE_CHAIN;
	for (i = 0; i < n; i++) {
		/* an opcode unknown is refused as such by the validation */
		if (descs[i].opcode >= TH_NIC_OP_MAX)
			continue;
		reason = th_eng_desc_fit(fit, &descs[i], i, n);
		if (reason) {
			*bad = i;
			return reason;
		}
	}
	if (fit->cq_entries && th_eng_chain_credits(descs, n) > fit->cq_entries)
		return TH_NIC_REFUSE_CQ_SIZE;
	return TH_NIC_REFUSE_NONE;
}
