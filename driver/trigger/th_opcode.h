/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * th_opcode.h - what each opcode of the NIC is, in one row per opcode:
 * its name, its operand, the memory it reads and writes and where, the
 * counters it raises, how it is checked at the doorbell, how it runs and
 * how the timed model charges it.  The engine (th_opcode.c) builds its
 * table from these rows; tools that only need the names expand the same
 * rows without the functions.  A new opcode is a row here, its check and
 * its run function (Documentation/engine.rst, "Adding an opcode").
 */
#ifndef TH_OPCODE_H
#define TH_OPCODE_H

#include <linux/th_nic.h>

/**
 * enum th_eng_operand - which member of struct th_nic_desc's union an
 * opcode reads, and so how its reserved bytes and its target decode
 * @TH_ENG_OPND_NONE: none: all of @raw is reserved
 * @TH_ENG_OPND_XFER: @xfer, a local range and a remote one
 * @TH_ENG_OPND_COPY: @copy, two local ranges
 * @TH_ENG_OPND_INLINE: @wr_inline, bytes carried in the descriptor
 * @TH_ENG_OPND_REDUCE: @reduce, operands and a destination
 * @TH_ENG_OPND_CT: @ct, a counter of the chain's vport and a value
 * @TH_ENG_OPND_NOTIFY: @notify, the immediate of a CQ entry
 * @TH_ENG_OPND_REARM: @rearm, the stride of the next round
 */
enum th_eng_operand {
	TH_ENG_OPND_NONE,
	TH_ENG_OPND_XFER,
	TH_ENG_OPND_COPY,
	TH_ENG_OPND_INLINE,
	TH_ENG_OPND_REDUCE,
	TH_ENG_OPND_CT,
	TH_ENG_OPND_NOTIFY,
	TH_ENG_OPND_REARM,
};

/**
 * enum th_eng_charge - what the timed model charges an opcode
 * @TH_ENG_CHARGE_NONE: nothing: its updates happen at the chain's time
 * @TH_ENG_CHARGE_WIRE: issued now, arriving after the flight of its
 *	bytes; the node is not held
 * @TH_ENG_CHARGE_COPY: the node's engine copies its bytes
 * @TH_ENG_CHARGE_ALU: the node's ALU reads every operand's bytes
 */
enum th_eng_charge {
	TH_ENG_CHARGE_NONE,
	TH_ENG_CHARGE_WIRE,
	TH_ENG_CHARGE_COPY,
	TH_ENG_CHARGE_ALU,
};

/**
 * enum th_eng_opf - what an opcode touches (struct th_eng_opdef.flags)
 * @TH_ENG_OPF_READS_LOCAL: it reads a range of the chain's own vport
 * @TH_ENG_OPF_WRITES_LOCAL: it writes a range of the chain's own vport
 * @TH_ENG_OPF_READS_REMOTE: it reads a range of another vport: the
 *	target's bytes come back
 * @TH_ENG_OPF_WRITES_REMOTE: it writes a range of another vport
 * @TH_ENG_OPF_REMOTE_FLAG: TH_NIC_DF_REMOTE turns its local write into a
 *	write at a target
 * @TH_ENG_OPF_REMOTE_CT: it may raise a counter at its target
 *	(TH_NIC_DF_REMOTE_CT), when it writes there
 * @TH_ENG_OPF_CT_INC: it adds its value to its operand's counter
 * @TH_ENG_OPF_CT_SET: it sets its operand's counter and clears its failure
 * @TH_ENG_OPF_CQE: it writes a CQ entry even without TH_NIC_DF_SIGNAL
 * @TH_ENG_OPF_ENDS_ROUND: it ends a round: last in its chain, which then
 *	waits on its counter again
 * @TH_ENG_OPF_MEMORY: any of the four above that touch memory; an opcode
 *	with none touches only its vport's counters and CQ
 *
 * Memory it reads here needs no access bit; memory it writes needs
 * LOCAL_WRITE here or REMOTE_WRITE there, memory it reads there
 * REMOTE_READ (th_eng_desc_local_access(), th_eng_desc_remote_access()).
 * Every descriptor may also raise its completion counter and write a CQ
 * entry (TH_NIC_DF_COMP_CT, TH_NIC_DF_SIGNAL), and waits on its chain's
 * trigger counter: those are no opcode's.
 */
enum th_eng_opf {
	TH_ENG_OPF_READS_LOCAL		= 1 << 0,
	TH_ENG_OPF_WRITES_LOCAL		= 1 << 1,
	TH_ENG_OPF_READS_REMOTE		= 1 << 2,
	TH_ENG_OPF_WRITES_REMOTE	= 1 << 3,
	TH_ENG_OPF_REMOTE_FLAG		= 1 << 4,
	TH_ENG_OPF_REMOTE_CT		= 1 << 5,
	TH_ENG_OPF_CT_INC		= 1 << 6,
	TH_ENG_OPF_CT_SET		= 1 << 7,
	TH_ENG_OPF_CQE			= 1 << 8,
	TH_ENG_OPF_ENDS_ROUND		= 1 << 9,
	TH_ENG_OPF_MEMORY		= TH_ENG_OPF_READS_LOCAL |
					  TH_ENG_OPF_WRITES_LOCAL |
					  TH_ENG_OPF_READS_REMOTE |
					  TH_ENG_OPF_WRITES_REMOTE,
};

/*
 * The rows: X(CODE, name, operand, flags, charge, check, run).
 *   CODE    the opcode is TH_NIC_OP_##CODE
 *   name    how thctl's chain files, its listings and the traces spell it
 *   operand enum th_eng_operand, without its prefix
 *   flags   TH_ENG_OPF_* without their prefix, or'ed by TH_ENG_OPF()
 *   charge  enum th_eng_charge, without its prefix
 *   check   its validation at the doorbell (th_validate.c)
 *   run     its execution (th_exec.c)
 */
#define TH_ENG_OPCODES(X)						\
	X(NOP, "nop", NONE, 0, NONE,					\
	  th_eng_check_none, th_eng_exec_nothing)			\
	X(PUT, "put", XFER,						\
	  TH_ENG_OPF(READS_LOCAL) | TH_ENG_OPF(WRITES_REMOTE) |		\
	  TH_ENG_OPF(REMOTE_CT), WIRE,					\
	  th_eng_check_xfer, th_eng_exec_transfer)			\
	X(GET, "get", XFER,						\
	  TH_ENG_OPF(READS_REMOTE) | TH_ENG_OPF(WRITES_LOCAL), WIRE,	\
	  th_eng_check_xfer, th_eng_exec_transfer)			\
	X(COPY, "copy", COPY,						\
	  TH_ENG_OPF(READS_LOCAL) | TH_ENG_OPF(WRITES_LOCAL), COPY,	\
	  th_eng_check_copy, th_eng_exec_transfer)			\
	X(WRITE_INLINE, "write", INLINE,				\
	  TH_ENG_OPF(WRITES_LOCAL) | TH_ENG_OPF(REMOTE_FLAG) |		\
	  TH_ENG_OPF(REMOTE_CT), WIRE,					\
	  th_eng_check_inline, th_eng_exec_inline)			\
	X(REDUCE, "reduce", REDUCE,					\
	  TH_ENG_OPF(READS_LOCAL) | TH_ENG_OPF(WRITES_LOCAL), ALU,	\
	  th_eng_check_reduce, th_eng_exec_reduce)			\
	X(CT_INC, "ct_inc", CT, TH_ENG_OPF(CT_INC), NONE,		\
	  th_eng_check_ct, th_eng_exec_ct)				\
	X(CT_SET, "ct_set", CT, TH_ENG_OPF(CT_SET), NONE,		\
	  th_eng_check_ct, th_eng_exec_ct)				\
	X(NOTIFY, "notify", NOTIFY, TH_ENG_OPF(CQE), NONE,		\
	  th_eng_check_notify, th_eng_exec_nothing)			\
	X(REARM, "rearm", REARM, TH_ENG_OPF(ENDS_ROUND), NONE,		\
	  th_eng_check_rearm, th_eng_exec_nothing)

#define TH_ENG_OPF(f)	TH_ENG_OPF_##f

/*
 * The name of opcode @op as thctl spells it, or NULL: for tools, which
 * need no engine.  The engine's own is th_eng_opdef(op)->name.
 */
static inline const char *th_eng_opcode_name(unsigned int op)
{
#define TH_ENG_OPNAME(code, nm, ...)	case TH_NIC_OP_##code: return nm;
	switch (op) {
	TH_ENG_OPCODES(TH_ENG_OPNAME)
	}
#undef TH_ENG_OPNAME
	return NULL;
}

#endif /* TH_OPCODE_H */
