// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * th_opcode.c - the engine's opcode table, built from the rows of
 * th_opcode.h, and what the engine derives from a row: which memory a
 * descriptor touches with which access, where its delivery goes, how many
 * bytes it moves.  Validation, execution, completion and the timed model
 * read the table; none of them tests an opcode by name.
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
