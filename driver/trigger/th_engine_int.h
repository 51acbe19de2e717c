/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * th_engine_int.h - the engine's private structs and the prototypes its
 * files share, grouped by the file that defines them.
 */
#ifndef TH_ENGINE_INT_H
#define TH_ENGINE_INT_H

#include "th_engine.h"
#include "th_alu.h"
#include "th_opcode.h"

/*
 * What the descriptor in progress holds between two slices: its MR
 * ranges (a REDUCE's destination first, then its sources; a transfer's
 * destination, then its source) and the remote vport it reaches.
 */
struct th_eng_exec_hold {
	struct th_eng_mr_ref ref[TH_NIC_MAX_OPERANDS + 1];
	u32 nref;
	struct th_eng_vport *peer;
};

/* struct th_eng_chain.remote: where a delivery to a remote node stands */
enum {
	TH_REMOTE_NONE,		/* none in progress */
	TH_REMOTE_READY,	/* built in @rop, for the context to post */
	TH_REMOTE_POSTED,	/* the provider's, until th_eng_remote_done() */
	TH_REMOTE_DONE,		/* ended with @remote_status: resume */
};

/**
 * struct th_eng_chain - an accepted chain
 * @node: link in a pending list, a context's ready list, or a provider's
 *	deferral queue; exactly one at a time
 * @vp: the vport it was posted on
 * @seq: posting order, breaks threshold ties
 * @threshold: fires when the trigger counter's success value reaches it
 * @cookie: the chain's cookie (first descriptor's)
 * @trig_ct: the trigger counter
 * @status: set when it leaves the pending list: 0 to run, or the error it
 *	completes with without running
 * @credits: CQ entries still reserved for it
 * @stride: a re-arming chain's threshold step (its last descriptor is
 *	REARM); 0 for a chain that runs once
 * @nsignal: CQ entries one successful run writes
 * @stop: a cancel asked the running round of a re-arming chain to be its
 *	last
 * @rearm_link: in its vport's list of re-arming chains, while it lives
 * @ndesc: descriptors
 * @pos: the descriptor running (or next to run)
 * @done: bytes (REDUCE: elements) of descriptor @pos already done
 * @hold: what descriptor @pos holds while it runs in slices
 * @descs: the engine's copy of the descriptors
 * @size: 0: room for TH_ENG_CHAIN_SMALL descriptors, 1: for max_chain
 * @vnow: timed mode: the chain's clock (when fired: when it may start)
 * @vbusy: timed mode: it holds its node's NIC (from its first REDUCE or COPY)
 * @tries: fault injection: times descriptor @pos's delivery was lost
 * @fault_pass: fault injection: descriptor @pos's delivery was held back
 *	and goes now
 * @park_ns: fault injection: how long to hold the chain back (ops->park)
 * @due: while parked, the provider's note of when it runs again
 * @remote: descriptor @pos is a delivery to a node elsewhere: TH_REMOTE_*
 * @remote_status: its result, once TH_REMOTE_DONE
 * @rop: what it asked of the provider
 * @offloaded: pending, with its first delivery in the provider's network
 *	(ops->offload_arm)
 * @ordered: it holds its trigger counter's turn (struct th_eng_ct_order):
 *	the counter's next fired chain waits until it completes or sends a
 *	delivery to a remote node
 * @touch_seen: re-arming: its user's host actions (struct th_eng_user
 *	touches) when its @rounds were last reset
 * @rounds: re-arming: rounds fired since then (at most rearm_rounds)
 */
struct th_eng_chain {
	struct th_list node;
	struct th_eng_vport *vp;
	u64 seq;
	u64 threshold;
	u64 cookie;
	u32 trig_ct;
	int status;
	u32 credits;
	u64 stride;
	u32 nsignal;
	bool stop;
	struct th_list rearm_link;
	u32 ndesc;
	u32 pos;
	u64 done;
	struct th_eng_exec_hold hold;
	u32 size;
	u64 vnow;
	bool vbusy;
	u32 tries;
	bool fault_pass;
	u64 park_ns;
	u64 due;
	u8 remote;
	int remote_status;
	struct th_eng_remote_op rop;
	bool offloaded;
	bool ordered;
	u32 touch_seen;
	u32 rounds;
	struct th_nic_desc descs[];
};

/**
 * struct th_eng_ct_order - the run order of one counter's fired chains
 * @busy: a fired chain of this counter holds the turn (it is in some
 *	context's ready list, running, deferred or parked)
 * @waiting: fired chains behind it, in firing order; under the vport's lock
 *
 * Firing decides the order under the vport's lock, but the contexts that
 * run fired chains are the callers' (two ioctls, a worker): without the
 * turn, a chain fired by one caller could run and complete before one
 * fired earlier by another caller that was preempted before running its
 * context.  Documentation/locking.rst, "Order of one counter's chains".
 */
struct th_eng_ct_order {
	bool busy;
	struct th_list waiting;
};

/**
 * struct th_eng_node - what the engine keeps per node
 * @lock: protects everything below
 * @fault: its fault injection
 * @faulty: @fault loses or delays something; read without @lock
 * @rng: the fault generator's state
 * @gone: the statistics of its destroyed vports
 */
struct th_eng_node {
	th_lock_t lock;
	struct th_eng_fault fault;
	bool faulty;
	u64 rng;
	struct th_eng_stats gone;
};

/* th_fault.c */
int th_eng_fault_check(struct th_eng_chain *chain);
void th_eng_fault_vport_gone(struct th_eng_vport *vp);

/* th_engine.c */
void th_eng_ctx_fire_locked(struct th_eng_ctx *ctx, struct th_eng_chain *chain,
			    int status);
void th_eng_cq_write_locked(struct th_eng_vport *vp, const struct th_nic_cqe *cqe);
u32 th_eng_cq_used_locked(struct th_eng_vport *vp);
bool th_eng_ctx_out_of_budget(const struct th_eng_ctx *ctx);
void th_eng_rearm_release_locked(struct th_eng_vport *vp, struct th_eng_ctx *ctx);

/* th_timing.c */
void th_eng_timing_fire(struct th_eng_ctx *ctx, struct th_eng_chain *chain);
void th_eng_timing_update(struct th_eng_vport *vp, u32 idx,
			  const struct th_eng_ctx *ctx);
void th_eng_timing_desc(struct th_eng_ctx *ctx, struct th_eng_chain *chain,
			const struct th_nic_desc *d);

/* th_counter.c */
void th_eng_ct_fire_locked(struct th_eng_vport *vp, u32 idx,
			   struct th_eng_ctx *ctx);
int th_eng_ct_update_locked(struct th_eng_vport *vp, u32 idx, enum th_eng_ct_op op,
			    u64 value, u64 failure, struct th_eng_ctx *ctx);

/* th_exec.c: what a chain's run did, for the vport's statistics */
struct th_eng_tally {
	u64 bytes_moved;
	u64 alu_bytes;
	u64 bytes_put;
	u64 bytes_got;
	u64 bytes_copied;
	u32 descs_run;
};

void th_eng_exec_tally_fold_locked(struct th_eng_vport *vp,
				   const struct th_eng_tally *t);

/**
 * struct th_eng_opdef - what an opcode is: one row of th_opcode.h
 * @name: as thctl and the traces spell it
 * @operand: enum th_eng_operand: the member of the descriptor's union
 * @charge: enum th_eng_charge: what the timed model charges
 * @flags: TH_ENG_OPF_*: what it reads, writes and raises
 * @check: its rules at the doorbell, after those every descriptor
 *	follows: TH_NIC_REFUSE_NONE or the reason (under @vp's lock)
 * @run: run it (from where it stopped): 0 when done, -EINPROGRESS when
 *	stopped between slices, -EAGAIN when handed to the network, or the
 *	error it failed with
 */
struct th_eng_opdef {
	const char *name;
	u8 operand;
	u8 charge;
	u16 flags;
	u32 (*check)(struct th_eng_vport *vp, const struct th_nic_desc *d,
		     u32 pos, u32 n);
	int (*run)(struct th_eng_ctx *ctx, struct th_eng_chain *chain,
		   const struct th_nic_desc *d, struct th_eng_tally *t);
};

/* th_opcode.c */
extern const struct th_eng_opdef th_eng_opdefs[TH_NIC_OP_MAX];

/* The row of @opcode, which the doorbell checked is below TH_NIC_OP_MAX. */
static inline const struct th_eng_opdef *th_eng_opdef(u8 opcode)
{
	return &th_eng_opdefs[opcode];
}

/* Does @d write or read memory of another vport (or another node)? */
static inline bool th_eng_desc_remote(const struct th_nic_desc *d)
{
	u32 f = th_eng_opdef(d->opcode)->flags;

	if (f & (TH_ENG_OPF_READS_REMOTE | TH_ENG_OPF_WRITES_REMOTE))
		return true;
	return (f & TH_ENG_OPF_REMOTE_FLAG) && (d->flags & TH_NIC_DF_REMOTE);
}

/*
 * The access @d needs on the range of its own vport it touches:
 * LOCAL_WRITE if it writes it, 0 if it only reads it.  A descriptor
 * whose TH_NIC_DF_REMOTE sent its write elsewhere needs none.
 */
static inline u32 th_eng_desc_local_access(const struct th_nic_desc *d)
{
	u32 f = th_eng_opdef(d->opcode)->flags;

	if (!(f & TH_ENG_OPF_WRITES_LOCAL))
		return 0;
	if ((f & TH_ENG_OPF_REMOTE_FLAG) && (d->flags & TH_NIC_DF_REMOTE))
		return 0;
	return TH_NIC_ACCESS_LOCAL_WRITE;
}

/* The access @d needs on its target's range (remote key), or 0. */
static inline u32 th_eng_desc_remote_access(const struct th_nic_desc *d)
{
	u32 f = th_eng_opdef(d->opcode)->flags;

	if (f & TH_ENG_OPF_READS_REMOTE)
		return TH_NIC_ACCESS_REMOTE_READ;
	if ((f & TH_ENG_OPF_WRITES_REMOTE) ||
	    ((f & TH_ENG_OPF_REMOTE_FLAG) && (d->flags & TH_NIC_DF_REMOTE)))
		return TH_NIC_ACCESS_REMOTE_WRITE;
	return 0;
}

/*
 * The bytes @d moves: a transfer's or an inline write's length, a
 * reduction's destination, 0 for the rest.
 */
static inline u64 th_eng_desc_len(const struct th_nic_desc *d)
{
	switch (th_eng_opdef(d->opcode)->operand) {
	case TH_ENG_OPND_XFER:
		return d->xfer.len;
	case TH_ENG_OPND_COPY:
		return d->copy.len;
	case TH_ENG_OPND_INLINE:
		return d->wr_inline.len;
	case TH_ENG_OPND_REDUCE:
		return (u64)d->reduce.count *
		       th_alu_dtype_size(d->reduce.dtype);
	default:
		return 0;
	}
}

/**
 * struct th_eng_local_range - a range of its own vport's MR a descriptor
 *	touches (th_eng_desc_local_ranges())
 * @key: the MR's local key
 * @access: what it must allow: TH_NIC_ACCESS_LOCAL_WRITE where written
 * @off: the offset in the MR (U64_MAX where computing it overflowed)
 * @len: bytes
 */
struct th_eng_local_range {
	u32 key;
	u32 access;
	u64 off;
	u64 len;
};

/* A destination and every operand of a REDUCE at most */
#define TH_ENG_LOCAL_RANGES	(1 + TH_NIC_MAX_OPERANDS)

u32 th_eng_desc_local_ranges(const struct th_nic_desc *d,
			     struct th_eng_local_range *out);

/* Does @d write a CQ entry when it succeeds? */
static inline bool th_eng_desc_writes_cqe(const struct th_nic_desc *d)
{
	return (d->flags & TH_NIC_DF_SIGNAL) ||
	       (th_eng_opdef(d->opcode)->flags & TH_ENG_OPF_CQE);
}

/* th_validate.c: the checks of the rows */
u32 th_eng_check_none(struct th_eng_vport *vp, const struct th_nic_desc *d,
		      u32 pos, u32 n);
u32 th_eng_check_xfer(struct th_eng_vport *vp, const struct th_nic_desc *d,
		      u32 pos, u32 n);
u32 th_eng_check_copy(struct th_eng_vport *vp, const struct th_nic_desc *d,
		      u32 pos, u32 n);
u32 th_eng_check_inline(struct th_eng_vport *vp, const struct th_nic_desc *d,
			u32 pos, u32 n);
u32 th_eng_check_reduce(struct th_eng_vport *vp, const struct th_nic_desc *d,
			u32 pos, u32 n);
u32 th_eng_check_ct(struct th_eng_vport *vp, const struct th_nic_desc *d,
		    u32 pos, u32 n);
u32 th_eng_check_notify(struct th_eng_vport *vp, const struct th_nic_desc *d,
			u32 pos, u32 n);
u32 th_eng_check_rearm(struct th_eng_vport *vp, const struct th_nic_desc *d,
		       u32 pos, u32 n);

/* th_exec.c: the runs of the rows */
int th_eng_exec_transfer(struct th_eng_ctx *ctx, struct th_eng_chain *chain,
			 const struct th_nic_desc *d, struct th_eng_tally *t);
int th_eng_exec_inline(struct th_eng_ctx *ctx, struct th_eng_chain *chain,
		       const struct th_nic_desc *d, struct th_eng_tally *t);
int th_eng_exec_reduce(struct th_eng_ctx *ctx, struct th_eng_chain *chain,
		       const struct th_nic_desc *d, struct th_eng_tally *t);
int th_eng_exec_ct(struct th_eng_ctx *ctx, struct th_eng_chain *chain,
		   const struct th_nic_desc *d, struct th_eng_tally *t);
int th_eng_exec_nothing(struct th_eng_ctx *ctx, struct th_eng_chain *chain,
			const struct th_nic_desc *d, struct th_eng_tally *t);

/* th_chain.c */
void th_eng_chain_pool_drain(struct th_eng_vport *vp);
void th_eng_chain_complete(struct th_eng_ctx *ctx, struct th_eng_chain *chain,
			   int status, u32 at, const struct th_eng_tally *t);
void th_eng_chain_fail_pending_locked(struct th_eng_vport *vp,
				      struct th_eng_ctx *ctx, int status);
void th_eng_chain_next_round(struct th_eng_ctx *ctx, struct th_eng_chain *chain,
			     const struct th_eng_tally *t);
void th_eng_chain_next_round_locked(struct th_eng_ctx *ctx,
				    struct th_eng_chain *chain,
				    const struct th_eng_tally *t)
	__releases(&chain->vp->lock);
void th_eng_chain_order_fire_locked(struct th_eng_ctx *ctx,
				    struct th_eng_chain *chain);
void th_eng_chain_order_release_locked(struct th_eng_ctx *ctx,
				       struct th_eng_chain *chain);

/*
 * th_exec.c: run @chain for as long as @ctx's budget lasts; false if it
 * stopped in the middle (the caller defers it), true once it completed.
 */
bool th_eng_exec_chain(struct th_eng_ctx *ctx, struct th_eng_chain *chain);
void th_eng_exec_remote_sent(struct th_eng_chain *chain);
void th_eng_exec_remote_describe(struct th_eng_chain *chain,
				 const struct th_nic_desc *d);

/* th_remote.c */
struct th_eng_vport *th_eng_remote_get(struct th_eng_vport *vp, u32 node,
				       u32 vport);
void th_eng_remote_put(struct th_eng_vport *vp, struct th_eng_vport *peer);
int th_eng_remote_mr_get(struct th_eng_vport *vp, struct th_eng_vport *peer,
			 u64 rkey, u32 access, u64 off, u64 len,
			 struct th_eng_mr_ref *ref, struct th_eng_ctx *ctx);
void th_eng_remote_violation(struct th_eng_vport *vp, struct th_eng_ctx *ctx);
bool th_eng_remote_node(struct th_eng_vport *vp, u32 node);
bool th_eng_mr_rkey_stale_locked(struct th_eng_vport *vp, u64 rkey);
struct th_eng_vport *th_eng_remote_fail_peer(struct th_eng_vport *vp, u32 node,
					     u32 vport, u64 rkey, u64 off, u64 len,
					     struct th_eng_ctx *ctx);

/* th_offload.c */
void th_eng_offload_arm_locked(struct th_eng_vport *vp,
			       struct th_eng_chain *chain);
void th_eng_offload_counter_locked(struct th_eng_vport *vp, u32 idx);
bool th_eng_offload_disarm_locked(struct th_eng_chain *chain, int status);
void th_eng_offload_withdraw_locked(struct th_eng_vport *vp,
				    const struct th_eng_mr *mr);

/* th_mr.c */
struct th_eng_mr *th_eng_mr_lookup_locked(struct th_eng_vport *vp, u32 lkey);
struct th_eng_mr *th_eng_mr_lookup_rkey_locked(struct th_eng_vport *vp, u64 rkey);
int th_eng_mr_get(struct th_eng_vport *vp, u32 lkey, u32 access, u64 off, u64 len,
		  struct th_eng_mr_ref *ref);
int th_eng_mr_get_locked(struct th_eng_vport *vp, u32 lkey, u32 access, u64 off,
			 u64 len, struct th_eng_mr_ref *ref);
int th_eng_mr_allows(const struct th_eng_mr *mr, u32 access, u64 off, u64 len);
int th_eng_mr_hold_locked(struct th_eng_vport *vp, struct th_eng_mr *mr,
			  u32 access, u64 off, u64 len, struct th_eng_mr_ref *ref);
void th_eng_mr_put(struct th_eng_mr_ref *ref);
void th_eng_mr_put_locked(struct th_eng_mr_ref *ref);

#endif /* TH_ENGINE_INT_H */
