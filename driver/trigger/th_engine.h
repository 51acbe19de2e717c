/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * th_engine.h - the trigger engine's interface to its providers: the kernel
 * module and the in-process provider of libthverbs.
 *
 * The engine owns counters, pending chains, descriptor validation and
 * execution, the MR key table and the ring protocol.  A provider owns the
 * memory behind rings, counters and MRs, the fabric's vport table, waiting
 * and waking, and the contexts chains run in.
 *
 * Locking: each vport has one spinlock-like lock (struct th_eng_vport.lock)
 * protecting its counters, pending chains, MR table and CQ producer state.
 * The engine never holds two vport locks at once.  It calls ops->wake and
 * ops->random_u32 with the lock held, and ops->vport_get/put and
 * ops->defer without it.  No engine function sleeps, except those that
 * allocate: th_eng_vport_init() and th_eng_doorbell().
 */
#ifndef TH_ENGINE_H
#define TH_ENGINE_H

#include "th_compat.h"
#include "th_list.h"
#include <linux/th_nic.h>

struct th_eng_vport;
struct th_eng_chain;

/**
 * struct th_eng_limits - per-fabric limits, reported by QUERY
 * @nodes: nodes on the fabric
 * @max_vports: vports per node
 * @max_counters: counters per vport
 * @max_sq_entries: largest SQ
 * @max_cq_entries: largest CQ
 * @max_chain: descriptors per chain
 * @max_mrs: MRs per vport
 * @max_mr_size: bytes per MR
 */
struct th_eng_limits {
	u32 nodes;
	u32 max_vports;
	u32 max_counters;
	u32 max_sq_entries;
	u32 max_cq_entries;
	u32 max_chain;
	u32 max_mrs;
	u64 max_mr_size;
};

/* ABI defaults (ABI.md "Limits"). */
#define TH_ENG_DEF_NODES	16
#define TH_ENG_DEF_VPORTS	64
#define TH_ENG_DEF_COUNTERS	256
#define TH_ENG_DEF_SQ		1024
#define TH_ENG_DEF_CQ		1024
#define TH_ENG_DEF_CHAIN	16
#define TH_ENG_DEF_MRS		64
#define TH_ENG_DEF_MR_SIZE	0x40000000ULL	/* 1 GiB */

/* Hard ceilings the engine's data structures are sized for. */
#define TH_ENG_MAX_NODES	65536
#define TH_ENG_MAX_VPORTS	65535
#define TH_ENG_MAX_COUNTERS	65536
#define TH_ENG_MAX_RING		65536
#define TH_ENG_MAX_CHAIN	256
#define TH_ENG_MAX_MRS		4096

/**
 * struct th_eng_ops - what a provider supplies
 * @vport_get: find vport @vport on node @node and take a reference that
 *	keeps struct th_eng_vport allocated; NULL if there is none.  Called
 *	from execution contexts: must not sleep.
 * @vport_put: drop that reference
 * @wake: counters changed, CQ entries were written, or something the
 *	provider may wait for (idle vport, unused MR) happened: wake waiters.
 *	Called with @vp's lock held, so that a waiter that sees the new state
 *	(under that lock) and frees @vp cannot race with the wake-up; must
 *	not sleep nor take a lock that is held around calls into the engine.
 * @defer: a context ran out of budget: run this fired chain later, in a
 *	context of the provider's (th_eng_ctx_add() + th_eng_ctx_run()).  May
 *	be NULL: the context then runs everything itself.
 * @random_u32: unpredictable bits for MR keys
 */
struct th_eng_ops {
	struct th_eng_vport *(*vport_get)(void *fabric, u32 node, u32 vport);
	void (*vport_put)(void *fabric, struct th_eng_vport *vp);
	void (*wake)(struct th_eng_vport *vp);
	void (*defer)(void *fabric, struct th_eng_chain *chain);
	u32 (*random_u32)(void *fabric);
};

/**
 * struct th_eng - one fabric's engine
 * @ops: provider hooks
 * @fabric: provider context passed back to @ops
 * @lim: limits
 * @budget: chains one context runs before deferring the rest
 */
struct th_eng {
	const struct th_eng_ops *ops;
	void *fabric;
	struct th_eng_limits lim;
	u32 budget;
};

/**
 * struct th_eng_ring - the engine's view of one shared ring
 * @head: consumer index in the shared mapping
 * @tail: producer index in the shared mapping
 * @slots: slot 0
 * @entries: slots, a power of two
 * @mask: entries - 1
 * @next: the engine's own copy of the index it produces (CQ tail) or
 *	consumes (SQ head); the shared copy is written from it and never
 *	read back
 */
struct th_eng_ring {
	u32 *head;
	u32 *tail;
	void *slots;
	u32 entries;
	u32 mask;
	u32 next;
};

/**
 * struct th_eng_mr - one registered memory region
 * @key: its key, 0 if the slot is free
 * @last_key: the key the slot had before, never handed out again at once
 * @access: enum th_nic_access
 * @uaddr: the address the owner registered (identity and alignment)
 * @len: bytes
 * @kaddr: where the engine reads and writes it
 * @inflight: operations using it now
 * @dying: being deregistered: new lookups fail
 * @priv: the provider's (pinned pages, mapping)
 */
struct th_eng_mr {
	u32 key;
	u32 last_key;
	u32 access;
	u64 uaddr;
	u64 len;
	u8 *kaddr;
	u32 inflight;
	bool dying;
	void *priv;
};

/**
 * struct th_eng_stats - per-vport statistics, for QUERY-like reporting
 * @doorbells: doorbell calls
 * @chains_posted: chains accepted
 * @chains_refused: chains refused at the doorbell
 * @chains_done: chains completed successfully
 * @chains_failed: chains completed with an execution or trigger error
 * @chains_cancelled: chains cancelled (CANCEL, vport destroyed)
 * @descs_run: descriptors executed
 * @bytes_moved: bytes written by PUT, GET, COPY and WRITE_INLINE
 * @alu_bytes: operand bytes read by REDUCE
 * @cqes: completion entries written
 */
struct th_eng_stats {
	u64 doorbells;
	u64 chains_posted;
	u64 chains_refused;
	u64 chains_done;
	u64 chains_failed;
	u64 chains_cancelled;
	u64 descs_run;
	u64 bytes_moved;
	u64 alu_bytes;
	u64 cqes;
};

/**
 * struct th_eng_vport - engine state of one vport, embedded by a provider
 * @eng: the fabric's engine
 * @node: node index
 * @index: vport index on the node
 * @lock: protects everything below except @sq (see th_eng_doorbell())
 * @dead: killed: chains no longer fire, MRs no longer resolve
 * @cts: the counter page, @eng->lim.max_counters entries
 * @pending: per counter, chains waiting on it, by threshold then seq
 * @mrs: MR slots, @eng->lim.max_mrs entries
 * @mr_count: slots in use
 * @mr_key_shift: bits of a key that hold the slot index
 * @cq: completion ring; the engine produces
 * @cq_reserved: CQ entries promised to chains accepted and not completed
 * @sq: submission ring; the engine consumes, serialised by the provider
 * @scratch: @eng->lim.max_chain descriptors the doorbell copies into
 * @running: chains fired and not yet completed
 * @seq: posting order
 * @stats: statistics
 */
struct th_eng_vport {
	struct th_eng *eng;
	u32 node;
	u32 index;
	th_lock_t lock;
	bool dead;
	struct th_nic_ct *cts;
	struct th_list *pending;
	struct th_eng_mr *mrs;
	u32 mr_count;
	u32 mr_key_shift;
	struct th_eng_ring cq;
	u32 cq_reserved;
	struct th_eng_ring sq;
	struct th_nic_desc *scratch;
	u32 running;
	u64 seq;
	struct th_eng_stats stats;
};

/**
 * struct th_eng_ctx - an execution context: fired chains waiting to run
 * @eng: the engine
 * @ready: chains in firing order
 * @ran: chains run so far
 *
 * A context lives on the stack of whoever runs chains (a doorbell, a
 * counter update, a provider worker).  Deliveries that fire further chains
 * append them here instead of recursing.
 */
struct th_eng_ctx {
	struct th_eng *eng;
	struct th_list ready;
	u32 ran;
};

/**
 * struct th_eng_db_result - what one doorbell did
 * @chains: chains accepted
 * @descs: SQ slots consumed
 * @bad_index: free-running SQ index of the refused chain's first slot
 * @bad_desc: position of the offending descriptor in that chain
 */
struct th_eng_db_result {
	u32 chains;
	u32 descs;
	u32 bad_index;
	u32 bad_desc;
};

/* th_engine.c: setup, rings, contexts */
int th_eng_init(struct th_eng *eng, const struct th_eng_ops *ops, void *fabric,
		const struct th_eng_limits *lim);
u64 th_eng_ring_layout(u32 entries, u32 slot_size,
		       struct th_nic_ring_offsets *off);
bool th_eng_ring_size_valid(u32 entries, u32 max);
int th_eng_vport_init(struct th_eng_vport *vp, struct th_eng *eng, u32 node,
		      u32 index, void *sq_mem, u32 sq_entries, void *cq_mem,
		      u32 cq_entries, struct th_nic_ct *cts);
void th_eng_vport_kill(struct th_eng_vport *vp, struct th_eng_ctx *ctx);
bool th_eng_vport_idle(struct th_eng_vport *vp);
void th_eng_vport_fini(struct th_eng_vport *vp);
void th_eng_ctx_init(struct th_eng_ctx *ctx, struct th_eng *eng);
void th_eng_ctx_add(struct th_eng_ctx *ctx, struct th_eng_chain *chain);
void th_eng_ctx_run(struct th_eng_ctx *ctx);
void th_eng_ctx_run_all(struct th_eng_ctx *ctx);
struct th_eng_chain *th_eng_chain_from_node(struct th_list *node);
struct th_list *th_eng_chain_node(struct th_eng_chain *chain);
bool th_eng_cq_ready(struct th_eng_vport *vp);
void th_eng_stats_read(struct th_eng_vport *vp, struct th_eng_stats *st);

/* th_chain.c: posting, cancelling */
int th_eng_doorbell(struct th_eng_vport *vp, struct th_eng_ctx *ctx,
		    struct th_eng_db_result *res);
int th_eng_cancel(struct th_eng_vport *vp, bool by_cookie, u64 cookie,
		  u32 *cancelled, struct th_eng_ctx *ctx);

/* th_counter.c: counters */
enum th_eng_ct_op {
	TH_ENG_CT_INC,		/* success += value */
	TH_ENG_CT_SET,		/* success = value, failure = failure */
	TH_ENG_CT_FAIL,		/* failure += value */
};

int th_eng_ct_update(struct th_eng_vport *vp, u32 idx, enum th_eng_ct_op op,
		     u64 value, u64 failure, struct th_eng_ctx *ctx);
int th_eng_ct_read(struct th_eng_vport *vp, u32 idx, u64 *success,
		   u64 *failure);

/* th_mr.c: the MR key table */
int th_eng_mr_add(struct th_eng_vport *vp, u64 uaddr, u64 len, u32 access,
		  void *kaddr, void *priv, u32 *key);
int th_eng_mr_kill(struct th_eng_vport *vp, u32 key);
bool th_eng_mr_busy(struct th_eng_vport *vp, u32 key);
void *th_eng_mr_release(struct th_eng_vport *vp, u32 key);
int th_eng_mr_check_new(struct th_eng *eng, u64 len, u32 access);

/* th_validate.c: the one place descriptors are checked */
int th_eng_chain_validate(struct th_eng_vport *vp,
			  const struct th_nic_desc *descs, u32 n, u32 *bad);

#endif /* TH_ENGINE_H */
