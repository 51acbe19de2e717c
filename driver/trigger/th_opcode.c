// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * th_opcode.c - the engine's opcode table, built from the rows of
 * th_opcode.h, and what the engine derives from a row: which memory a
 * descriptor touches with which access (its local ranges, its target),
 * where its delivery goes, how many bytes it moves.  Validation,
 * execution, completion and the timed model read the table; none of them
 * tests an opcode by name.
 */
#include "th_engine_int.h"
#include "th_alu.h"

#define TH_ENG_OPDEF(code, nm, opnd, fl, chg, chk, rn)			\
	[TH_NIC_OP_##code] = {						\
		.name = nm,						\
		.operand = TH_ENG_OPND_##opnd,				\
		.flags = (fl),						\
		.charge = TH_ENG_CHARGE_##chg,				\
		.check = chk,						\
		.run = rn,						\
	},

const struct th_eng_opdef th_eng_opdefs[TH_NIC_OP_MAX] = {
	TH_ENG_OPCODES(TH_ENG_OPDEF)
};

/* One row per opcode of the ABI, no more, no fewer. */
#define TH_ENG_OPCOUNT(...)	+ 1
static_assert(0 TH_ENG_OPCODES(TH_ENG_OPCOUNT) == TH_NIC_OP_MAX,
	      "th_opcode.h needs exactly one row per TH_NIC_OP_*");

/*
 * Where @d delivers: its target in @op (opcode, node, vport, key, offset,
 * length, the counter it raises there or -1, whether the bytes come
 * back), all but its local bytes and the domain.  False, and @op
 * untouched, for a descriptor that stays on its vport.  The providers
 * read a chain's targets through this too (th_engine.h).
 */
bool th_eng_desc_target(const struct th_nic_desc *d,
			struct th_eng_remote_op *op)
{
	const struct th_eng_opdef *def = th_eng_opdef(d->opcode);
	bool ct = (d->flags & TH_NIC_DF_REMOTE_CT) &&
		  (def->flags & TH_ENG_OPF_REMOTE_CT);

	if (!th_eng_desc_remote(d))
		return false;
	op->opcode = d->opcode;
	op->fetch = def->flags & TH_ENG_OPF_READS_REMOTE;
	switch (def->operand) {
	case TH_ENG_OPND_XFER:
		op->node = d->xfer.node;
		op->vport = d->xfer.vport;
		op->rkey = d->xfer.rkey;
		op->roff = d->xfer.roff;
		op->len = d->xfer.len;
		op->remote_ct = ct ? d->xfer.remote_ct : -1;
		return true;
	case TH_ENG_OPND_INLINE:
		op->node = d->wr_inline.node;
		op->vport = d->wr_inline.vport;
		op->rkey = d->wr_inline.rkey;
		op->roff = d->wr_inline.off;
		op->len = d->wr_inline.len;
		op->remote_ct = ct ? d->wr_inline.remote_ct : -1;
		return true;
	default:
		/* a row that reaches another vport names its operand above */
		return false;
	}
}

/* One range of th_eng_desc_local_ranges(): @n so far. */
static u32 th_eng_range(struct th_eng_local_range *out, u32 n, u32 key,
			u32 access, u64 off, u64 len)
{
	out[n] = (struct th_eng_local_range){
		.key = key, .access = access, .off = off, .len = len,
	};
	return n + 1;
}

/*
 * The ranges of its own vport's MRs that @d touches, in @out (room for
 * TH_ENG_LOCAL_RANGES), with the access each needs (LOCAL_WRITE where it
 * writes, 0 where it only reads); their number.  A transfer's local
 * bytes; a COPY's source, then its destination; a local inline write's
 * destination; a REDUCE's destination, then its operands in order (a
 * strided operand whose offset overflows gets offset U64_MAX, which no
 * MR holds).  The doorbell checks each against its MR
 * (th_eng_chain_validate()), and the verifier each against the regions
 * it was given (lib/libthverbs/verify/memory.c): one reading of the
 * descriptor for both.
 */
u32 th_eng_desc_local_ranges(const struct th_nic_desc *d,
			     struct th_eng_local_range *out)
{
	const struct th_nic_desc_reduce *r = &d->reduce;
	bool strided = r->rflags & TH_NIC_RF_STRIDED;
	u64 bytes, off;
	u32 i, n = 0;

	switch (th_eng_opdef(d->opcode)->operand) {
	case TH_ENG_OPND_XFER:
		return th_eng_range(out, 0, d->xfer.lkey,
				    th_eng_desc_local_access(d), d->xfer.loff,
				    d->xfer.len);
	case TH_ENG_OPND_COPY:
		n = th_eng_range(out, 0, d->copy.src_key, 0, d->copy.src_off,
				 d->copy.len);
		return th_eng_range(out, n, d->copy.dst_key, TH_NIC_ACCESS_LOCAL_WRITE,
				    d->copy.dst_off, d->copy.len);
	case TH_ENG_OPND_INLINE:
		if (d->flags & TH_NIC_DF_REMOTE)
			return 0;	/* its target's: th_eng_desc_target() */
		return th_eng_range(out, 0, d->wr_inline.lkey,
				    TH_NIC_ACCESS_LOCAL_WRITE, d->wr_inline.off,
				    d->wr_inline.len);
	case TH_ENG_OPND_REDUCE:
		bytes = th_eng_desc_len(d);
		n = th_eng_range(out, 0, r->dst_key, TH_NIC_ACCESS_LOCAL_WRITE,
				 r->dst_off, bytes);
		for (i = 0; i < r->nsrc && i < TH_NIC_MAX_OPERANDS; i++) {
			off = r->src_off[i];
			if (strided &&
			    (check_mul_overflow((u64)i, (u64)r->src_off[1], &off) ||
			     check_add_overflow(off, (u64)r->src_off[0], &off)))
				off = U64_MAX;
			n = th_eng_range(out, n, r->src_key[strided ? 0 : i], 0,
					 off, bytes);
		}
		return n;
	default:
		return 0;
	}
}
