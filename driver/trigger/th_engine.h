/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * th_engine.h - the trigger engine's interface to its providers: the kernel
 * module and the in-process provider of libthverbs.
 *
 * The engine owns the ABI: counters, pending chains, descriptor validation
 * and execution, the MR key tables, domains and the error state, the
 * per-user limits, the ring protocol, and the checks and answers of every
 * control call (th_cmd.c).  A provider owns the memory behind rings,
 * counters and MRs, the fabric's vport table, the identity of users and
 * domains, waiting and waking, and the contexts chains run in.
 *
 * Locking: each vport has one spinlock-like lock (struct th_eng_vport.lock)
 * protecting its counters, pending chains, MR table and CQ producer state,
 * and a sleeping lock serialising its doorbells (@sq_lock).  The engine
 * never holds two vport locks at once.  It calls ops->wake with a vport
 * lock held, and every other op without one.  Functions that allocate or
 * wait sleep: th_eng_vport_init(), th_eng_cmd_doorbell(),
 * th_eng_mr_dereg(), th_eng_vport_destroy(); chain execution yields
 * between slices of long operations (th_cond_resched()) but never blocks.
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
 * @max_user_vports: vports one user may hold on the fabric
 * @max_user_chains: accepted, uncompleted chains one user may have
 * @rearm_rounds: rounds each re-arming chain may run per host action on
 *	its vport (th_eng_host_touch()); 0: TH_ENG_DEF_REARM_ROUNDS
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
	u32 max_user_vports;
	u32 max_user_chains;
	u32 rearm_rounds;
};

/* ABI defaults (Documentation/uapi.rst, "Limits"). */
#define TH_ENG_DEF_NODES	16
#define TH_ENG_DEF_VPORTS	64
#define TH_ENG_DEF_COUNTERS	256
#define TH_ENG_DEF_SQ		1024
#define TH_ENG_DEF_CQ		1024
#define TH_ENG_DEF_CHAIN	16
/*
 * Completed chains a vport keeps for reuse, of each size (memory charged
 * as pending chains' is); chains of up to TH_ENG_CHAIN_SMALL descriptors
 * are allocated that small, so that many short pending chains stay
 * compact.
 */
#define TH_ENG_CHAIN_POOL	16
#define TH_ENG_CHAIN_SMALL	4
#define TH_ENG_DEF_MRS		64
#define TH_ENG_DEF_MR_SIZE	0x40000000ULL	/* 1 GiB */
/*
 * Per user: a quarter of the default fabric's vports, and as many pending
 * chains as 16 full CQs.  With the other defaults that bounds what one
 * user makes the NIC hold to about 45 MiB of vports and 64 MiB of chains
 * (a 16-descriptor chain takes a 4 KiB allocation): 101 MiB measured.
 */
#define TH_ENG_DEF_USER_VPORTS	256
#define TH_ENG_DEF_USER_CHAINS	16384
/*
 * NIC time (Documentation/security.rst "NIC time"): a re-arming chain runs
 * at most this many rounds between two host actions on its vport; the
 * next round then parks until the host acts again.  A plan whose every
 * round starts from a host increment (the offloaded collectives) uses one
 * round per chain per host action: the rest lets the host start rounds
 * ahead of the NIC.  A chain that re-fires itself runs this many rounds
 * per host call, in that call: the caller pays for them.
 */
#define TH_ENG_DEF_REARM_ROUNDS	16

/* Hard ceilings the engine's data structures are sized for. */
#define TH_ENG_MAX_NODES	65536
#define TH_ENG_MAX_VPORTS	65535
#define TH_ENG_MAX_COUNTERS	65536
#define TH_ENG_MAX_RING		65536
#define TH_ENG_MAX_CHAIN	256
#define TH_ENG_MAX_MRS		4096
#define TH_ENG_MAX_USER		0x40000000U	/* 2^30 */
#define TH_ENG_MAX_REARM_ROUNDS	0x100000U	/* 2^20 */

/*
 * What one execution context runs before handing the rest to the NIC's
 * own context: chains, and bytes moved or reduced.  A long operation runs
 * in slices of at most TH_ENG_SLICE bytes, with a scheduling point after
 * each.
 */
#define TH_ENG_BUDGET_CHAINS	1024
#define TH_ENG_BUDGET_BYTES	(4ULL << 20)
#define TH_ENG_SLICE		0x100000ULL	/* 1 MiB */

/**
 * struct th_eng_user - what one user holds on the fabric
 * @vports: vports it created that are not destroyed yet
 * @chains: its chains accepted and not yet completed
 * @touches: host actions on any of its vports so far (th_eng_host_touch()):
 *	each gives all its re-arming chains rearm_rounds more rounds
 *
 * The provider keeps one per user identity (a uid in the kernel; the
 * process in-process) and hands it to th_eng_vport_init(); it must outlive
 * the vports that name it.
 */
struct th_eng_user {
	th_atomic_t vports;
	th_atomic_t chains;
	th_atomic_t touches;
};

/**
 * struct th_eng_remote_op - a delivery to a node elsewhere (ops->remote_post)
 * @opcode: TH_NIC_OP_PUT, TH_NIC_OP_GET or TH_NIC_OP_WRITE_INLINE
 * @fetch: the target's bytes come back to @local (GET); else @local's
 *	go there
 * @node: the target node
 * @vport: the target vport
 * @rkey: the target's remote key
 * @roff: offset in it
 * @len: bytes
 * @local: PUT and WRITE_INLINE: the bytes to send; GET: where they land.
 *	The engine holds the local MR range until th_eng_remote_done().
 * @local_priv: PUT and GET: what the provider put behind the local MR
 *	(struct th_eng_mr.priv), for a network that needs its own handle of
 *	local memory; NULL for WRITE_INLINE
 * @remote_ct: the target's counter to advance once the data is there,
 *	or -1 for none
 * @domain: the initiator's domain: the target refuses another's
 *	(-ECONNREFUSED) as a local target does
 *
 * The target resolves @rkey as th_eng_remote_mr_get() does here and answers
 * -ECONNREFUSED (no such vport in the domain, or dying), -EACCES or
 * -ERANGE (a violation, for which the initiator's vport enters the error
 * state as it does for a local target), or 0 once the data is in place
 * and @remote_ct advanced.
 */
struct th_eng_remote_op {
	u8 opcode;
	bool fetch;
	u32 node;
	u32 vport;
	u64 rkey;
	u64 roff;
	u64 len;
	u8 *local;
	void *local_priv;
	int remote_ct;
	const void *domain;
};

/**
 * struct th_eng_mr_ref - a held range of an MR (th_eng_remote_hold())
 * @vp: the MR's vport
 * @mr: the MR; NULL when nothing is held
 * @ptr: the range's first byte
 */
struct th_eng_mr_ref {
	struct th_eng_vport *vp;
	struct th_eng_mr *mr;
	u8 *ptr;
};

/**
 * struct th_eng_ops - what a provider supplies
 * @vport_get: find vport @vport on node @node and take a reference that
 *	keeps struct th_eng_vport allocated; NULL if there is none.  The
 *	engine checks the domain.  Called from execution contexts: must not
 *	sleep.
 * @vport_put: drop that reference
 * @wake: counters changed, CQ entries were written, or something the
 *	provider may wait for (idle vport, unused MR) happened: wake waiters.
 *	Called with @vp's lock held, so that a waiter that sees the new state
 *	(under that lock) and frees @vp cannot race with the wake-up; must
 *	not sleep nor take a lock that is held around calls into the engine.
 * @wait: sleep until @done(@vp, @arg) holds, or a fatal signal comes
 *	(killable: 0, or -EINTR); re-check @done after every @wake of @vp.
 *	@done takes @vp's lock.
 * @quiesce: after th_eng_vport_kill(): drop the provider's own reference
 *	to @vp and return once no peer operation holds one and
 *	th_eng_vport_idle(@vp)
 * @defer: a context ran out of budget: run this fired chain later, in a
 *	context of the provider's, fairly between vports (queue it on
 *	th_eng_chain_vport(@chain), run it with th_eng_ctx_add() and
 *	th_eng_ctx_run()).  May be NULL: the context then runs everything
 *	itself.
 * @mr_free: release what the provider put behind an MR (its @priv), once
 *	nothing uses the region any more; may be NULL
 * @random_u64: unpredictable bits for MR keys
 * @park: fault injection held a fired chain back (a delivery delayed, or
 *	lost and to be sent again): run it again, as @defer does, @ns
 *	nanoseconds from now, or at once when its vport is being destroyed.
 *	May be NULL: the provider then offers no fault injection.
 * @notify: enum th_eng_event @event happened on @vp (@err: its error);
 *	called with no engine lock held, from execution contexts: must not
 *	sleep.  May be NULL.
 * @node_remote: node @node is hosted elsewhere, behind a network the
 *	provider drives (struct th_eng_remote_op); NULL: every node is here
 *	(the module, the in-process fabric)
 * @remote_post: start @op for @chain, which stays parked until the
 *	provider calls th_eng_remote_done() for it, exactly once, from a
 *	context of its own (never from inside this call); must not sleep.
 *	The provider owns the completion's deadline: an operation to a peer
 *	that died or went silent still ends, with -ECONNREFUSED.
 * @remote_fail_ct: raise the failure value of counter @ct of (@node,
 *	@vport), on a node @node_remote() says is elsewhere, for a chain of
 *	domain @domain that will not run the descriptor that would have
 *	advanced it; the target checks, as th_eng_remote_fail_peer() does here,
 *	that [@off, @off + @len) of @rkey could be written by that domain.
 *	Must not sleep.
 * @chain_posted: a chain of @n descriptors @descs passed validation on
 *	@vp and is about to be accepted: the provider may tell the remote
 *	targets of its counters, so that they fail those counters if this
 *	node's process dies.  Called under @vp's SQ lock; must not sleep.
 *	May be NULL.
 * @offload_arm: @chain of @vp now waits for counter @ct to reach
 *	@threshold (its success value is @success), and its first
 *	descriptor is a PUT or a WRITE_INLINE to a node elsewhere, @op: the
 *	provider may hand that delivery to its network now, for the network
 *	to send by itself the moment the counter reaches the threshold (a
 *	triggered operation).  @op->local: the bytes it sends (a PUT's local
 *	range, held by the engine until the chain resumes or @offload_disarm
 *	hands it over; a WRITE_INLINE's, the chain's own).  True: it took
 *	it; from then on
 *	every change of @ct goes to @offload_counter and the chain's leaving
 *	its pending list to @offload_disarm.  Not asked in the timed mode
 *	nor while fault injection is on for the node.  Called under @vp's
 *	lock; must not sleep.  May be NULL.
 * @offload_counter: counter @ct of @vp now holds @success and @failure
 *	(a non-zero failure value means no chain on it will run); called for
 *	every counter of a vport with an offloaded chain, the provider
 *	picks those its chains wait on.  Called under @vp's lock, before the
 *	chains the change fires leave their pending list; must not sleep.
 * @offload_disarm: offloaded @chain left its pending list.  @status 0:
 *	it fired, its delivery was sent when @offload_counter showed the
 *	threshold reached, and it stays parked at its first descriptor, as
 *	after @remote_post, until th_eng_remote_done().  Otherwise the
 *	delivery must never reach the target: the chain will not run
 *	(cancelled, failed, its vport in the error state or going), or
 *	(-EAGAIN) its local range is being deregistered, or fault injection
 *	was turned on (th_eng_offload_withdraw()), and the chain waits in
 *	the engine again.  Then @hold is the range the delivery would
 *	have read (@hold->mr NULL: none), the provider's to release with
 *	th_eng_remote_release() once nothing can read it any more.  Called
 *	under the chain's vport's lock; must not sleep, nor call into the
 *	engine.
 */
struct th_eng_ops {
	struct th_eng_vport *(*vport_get)(void *fabric, u32 node, u32 vport);
	void (*vport_put)(void *fabric, struct th_eng_vport *vp);
	void (*wake)(struct th_eng_vport *vp);
	int (*wait)(struct th_eng_vport *vp,
		    bool (*done)(struct th_eng_vport *vp, void *arg), void *arg);
	void (*quiesce)(struct th_eng_vport *vp);
	void (*defer)(void *fabric, struct th_eng_chain *chain);
	void (*mr_free)(void *fabric, void *priv);
	u64 (*random_u64)(void *fabric);
	void (*park)(void *fabric, struct th_eng_chain *chain, u64 ns);
	void (*notify)(struct th_eng_vport *vp, u32 event, int err);
	bool (*node_remote)(void *fabric, u32 node);
	void (*remote_post)(void *fabric, struct th_eng_chain *chain,
			    const struct th_eng_remote_op *op);
	void (*remote_fail_ct)(void *fabric, const void *domain, u32 node,
			       u32 vport, u16 ct, u64 rkey, u64 off, u64 len);
	void (*chain_posted)(void *fabric, struct th_eng_vport *vp,
			     const struct th_nic_desc *descs, u32 n);
	bool (*offload_arm)(void *fabric, struct th_eng_chain *chain,
			    struct th_eng_vport *vp, u32 ct, u64 threshold,
			    u64 success, const struct th_eng_remote_op *op);
	void (*offload_counter)(void *fabric, struct th_eng_vport *vp, u32 ct,
				u64 success, u64 failure);
	void (*offload_disarm)(void *fabric, struct th_eng_chain *chain,
			       int status, struct th_eng_mr_ref *hold);
};

/**
 * struct th_eng_timing - the engine's virtual clock, for a timed mode
 * @lock: protects @now and @node_busy
 * @desc_fs: femtoseconds of NIC work per REDUCE pass or COPY
 * @latency_fs: a PUT's flight, issue to arrival (with @desc_fs more)
 * @byte_fs: femtoseconds per byte moved
 * @alu_byte_fs: per node, femtoseconds per operand byte reduced
 * @node_busy: per node, when its NIC finishes the work it has
 * @now: the latest event so far
 * @host_now: the clock of the host that calls into the engine now (the
 *	provider may keep one per thread): its commands happen then
 *
 * A provider's timed mode; the module runs in real time and never sets
 * one.  Every counter update carries a time (struct th_eng_ctx.stamp): a
 * host command's at @host_now(), a chain's at the point of its run; a
 * host that waits for a counter reads that counter's time with
 * th_eng_timing_seen() and moves its own clock.  A chain starts when
 * its counter's latest update happened; REDUCE and COPY occupy the node's
 * NIC in the order they run, a PUT or GET arrives after its flight without
 * occupying it, counter operations take no time.
 */
struct th_eng_timing {
	th_lock_t lock;
	u64 desc_fs;
	u64 latency_fs;
	u64 byte_fs;
	u64 *alu_byte_fs;
	u64 *node_busy;
	u64 now;
	u64 (*host_now)(void);
};

#define TH_ENG_FAULT_ANY	0xffffffffu
#define TH_ENG_FAULT_PPM	1000000u
#define TH_ENG_FAULT_MAX_NS	100000000ULL	/* 100 ms */
#define TH_ENG_FAULT_MAX_RETRIES 16

/**
 * struct th_eng_fault - fault injection on what one node's NIC sends
 * @drop_ppm: deliveries (a PUT's data, a GET's request, a remote
 *	WRITE_INLINE) lost, per million
 * @delay_ppm: deliveries held back by @delay_ns, per million; a delivery
 *	is lost or delayed, never both (@drop_ppm + @delay_ppm <= 10^6)
 * @delay_ns: how long a delayed delivery is held back
 * @retry_ns: the sender's timeout: a lost delivery is sent again after it
 * @retries: a delivery is sent again at most this many times; when the
 *	last is lost too, its descriptor fails with -ETIMEDOUT
 * @vport: only what this vport of the node sends; TH_ENG_FAULT_ANY: all
 * @seed: the generator's seed: the same deliveries, in the same order,
 *	meet the same faults
 *
 * A lost delivery never arrived: nothing is written at the target, and
 * the one sent again is the only one that can arrive, so nothing is ever
 * delivered twice.  Times are at most TH_ENG_FAULT_MAX_NS.
 */
struct th_eng_fault {
	u32 drop_ppm;
	u32 delay_ppm;
	u64 delay_ns;
	u64 retry_ns;
	u32 retries;
	u32 vport;
	u64 seed;
};

struct th_eng_node;

/**
 * struct th_eng - one fabric's engine
 * @ops: provider hooks
 * @fabric: provider context passed back to @ops
 * @lim: limits
 * @budget_chains: chains one context runs before deferring the rest
 * @budget_bytes: bytes one context moves or reduces before deferring
 * @slice: bytes of one operation between two scheduling points
 * @timing: the virtual clock of a timed mode; NULL: real time
 * @nodes: per node, its fault injection and the statistics of its
 *	destroyed vports (th_fault.c)
 */
struct th_eng {
	const struct th_eng_ops *ops;
	void *fabric;
	struct th_eng_limits lim;
	u32 budget_chains;
	u64 budget_bytes;
	u64 slice;
	struct th_eng_timing *timing;	/* NULL: real time */
	struct th_eng_node *nodes;
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
 * @lkey: its local key, 0 if the slot is free
 * @rkey: its remote key
 * @last_rkey: the remote key the slot had before the current one
 * @last_lkey: the local key the slot had before, never handed out again
 *	at once
 * @access: enum th_nic_access
 * @uaddr: the address the owner registered (identity and alignment)
 * @len: bytes
 * @kaddr: where the engine reads and writes it
 * @inflight: operations using it now
 * @dying: being deregistered: new lookups fail, transfers stop at their
 *	next slice
 * @orphan: its deregistration was interrupted (a fatal signal): it stays
 *	dying until a new one of the same key, or the vport's destruction
 * @priv: the provider's (pinned pages, mapping)
 */
struct th_eng_mr {
	u32 lkey;
	u64 rkey;
	u64 last_rkey;
	u32 last_lkey;
	u32 access;
	u64 uaddr;
	u64 len;
	u8 *kaddr;
	u32 inflight;
	bool dying;
	bool orphan;
	void *priv;
};

/**
 * struct th_eng_stats - per-vport statistics
 * @doorbells: doorbell calls
 * @chains_posted: chains accepted
 * @chains_refused: chains refused at the doorbell
 * @chains_done: chains completed successfully (rounds, for re-arming
 *	ones)
 * @chains_failed: chains completed with an execution or trigger error
 * @chains_cancelled: chains cancelled (CANCEL, vport destroyed)
 * @chains_deferred: times a chain was handed to the NIC's own context
 * @descs_run: descriptors executed
 * @bytes_moved: bytes written by PUT, GET, COPY and WRITE_INLINE
 * @alu_bytes: operand bytes read by REDUCE
 * @cqes: completion entries written
 * @violations: remote access violations (the vport entered the error
 *	state at the first)
 * @chains_fired: chains fired (each round of a re-arming one)
 * @bytes_put: bytes PUT and written inline to another vport
 * @bytes_got: bytes read by GET
 * @bytes_copied: bytes written by COPY and local WRITE_INLINE
 * @faults_dropped: deliveries it sent that fault injection lost
 * @faults_delayed: deliveries it sent that fault injection held back
 * @retries: lost deliveries sent again
 * @timeouts: descriptors failed with -ETIMEDOUT, their last retry lost
 * @rounds_parked: rounds of re-arming chains held back because the chain
 *	ran its rearm_rounds since the host last acted on the vport
 *
 * The same fields serve as a node's totals (th_eng_node_stats()).
 */
struct th_eng_stats {
	u64 doorbells;
	u64 chains_posted;
	u64 chains_refused;
	u64 chains_done;
	u64 chains_failed;
	u64 chains_cancelled;
	u64 chains_deferred;
	u64 descs_run;
	u64 bytes_moved;
	u64 alu_bytes;
	u64 cqes;
	u64 violations;
	u64 chains_fired;
	u64 bytes_put;
	u64 bytes_got;
	u64 bytes_copied;
	u64 faults_dropped;
	u64 faults_delayed;
	u64 retries;
	u64 timeouts;
	u64 rounds_parked;
};

/**
 * struct th_eng_vport - engine state of one vport, embedded by a provider
 * @eng: the fabric's engine
 * @node: node index
 * @index: vport index on the node
 * @domain: the domain it belongs to: an identity the provider keeps alive
 *	while the vport exists; remote accesses need the same one on both
 *	ends
 * @user: the user it is charged to
 * @lock: protects everything below except @sq
 * @dead: killed: chains no longer fire, MRs no longer resolve
 * @error: in the error state after a remote access violation: pending
 *	chains failed, the doorbell refuses
 * @cts: the counter page, @eng->lim.max_counters entries
 * @pending: per counter, chains waiting on it, by threshold then seq
 * @order: per counter, the turn of its fired chains (one runs at a time,
 *	in firing order; struct th_eng_ct_order in th_engine_int.h)
 * @mrs: MR slots, @eng->lim.max_mrs entries
 * @mr_count: slots in use
 * @mr_key_shift: bits of a key that hold the slot index
 * @cq: completion ring; the engine produces
 * @cq_reserved: CQ entries promised to chains accepted and not completed
 * @sq_lock: serialises doorbells (the SQ head)
 * @sq: submission ring; the engine consumes under @sq_lock
 * @chain_pool: chains that completed, kept for the next doorbell, by size:
 *	[0] room for TH_ENG_CHAIN_SMALL descriptors, [1] for max_chain;
 *	posting allocates nothing in the steady state
 * @chain_pool_len: their numbers, at most TH_ENG_CHAIN_POOL each
 * @running: chains fired and not yet completed
 * @rearming: chains ending in REARM, pending or running (rearm_link)
 * @ct_time: timed mode: per counter, when it was last updated
 * @seq: posting order
 * @stats: statistics
 * @accepted: chains accepted and not completed
 * @offloaded: pending chains the provider's network would send
 *	(ops->offload_arm)
 * @rearm_parked: fired rounds of re-arming chains that ran theirs, until
 *	the next host action (struct th_eng_chain.node)
 */
struct th_eng_vport {
	struct th_eng *eng;
	u32 node;
	u32 index;
	const void *domain;
	struct th_eng_user *user;
	th_lock_t lock;
	bool dead;
	bool error;
	struct th_nic_ct *cts;
	struct th_list *pending;
	struct th_eng_ct_order *order;
	struct th_eng_mr *mrs;
	u32 mr_count;
	u32 mr_key_shift;
	struct th_eng_ring cq;
	u32 cq_reserved;
	th_mutex_t sq_lock;
	struct th_eng_ring sq;
	struct th_list chain_pool[2];
	u32 chain_pool_len[2];
	u32 running;
	struct th_list rearming;
	u64 *ct_time;
	u64 seq;
	struct th_eng_stats stats;
	u32 accepted;
	u32 offloaded;
	struct th_list rearm_parked;
};

/**
 * struct th_eng_vport_info - what management shows of a vport
 * @state: 0 running, 1 in the error state, 2 being destroyed (the
 *	values of enum th_nl_vport_state)
 * @pending: chains accepted and not completed
 * @mrs: registered memory regions
 * @pinned: bytes of those regions
 * @sq_entries: SQ slots
 * @cq_entries: CQ entries
 */
struct th_eng_vport_info {
	u32 state;
	u32 pending;
	u32 mrs;
	u64 pinned;
	u32 sq_entries;
	u32 cq_entries;
};

/* What the engine tells a provider's management (struct th_eng_ops.notify) */
enum th_eng_event {
	TH_ENG_EVENT_ERROR = 1,	/* the vport entered the error state */
	TH_ENG_EVENT_FAULT,	/* a descriptor failed: its last retry was lost */
};

/**
 * struct th_eng_ctx - an execution context: fired chains waiting to run
 * @eng: the engine
 * @ready: chains in firing order
 * @ran: chains run so far
 * @bytes: bytes moved or reduced so far
 * @stamp: timed mode: the time of the next counter update it makes
 *
 * A context lives on the stack of whoever runs chains (a doorbell, a
 * counter update, a provider worker).  Deliveries that fire further chains
 * append them here instead of recursing.
 */
struct th_eng_ctx {
	struct th_eng *eng;
	struct th_list ready;
	u32 ran;
	u64 bytes;
	u64 stamp;		/* timed mode: when the next update happens */
};

/**
 * struct th_eng_vport_config - a checked VPORT_CREATE request
 * @sq_entries: SQ slots
 * @cq_entries: CQ entries
 * @sq_bytes: bytes of the SQ ring memory (th_eng_ring_layout())
 * @cq_bytes: bytes of the CQ ring memory
 * @ct_bytes: bytes of the counter array
 * @sq_off: SQ layout
 * @cq_off: CQ layout
 */
struct th_eng_vport_config {
	u32 sq_entries;
	u32 cq_entries;
	u64 sq_bytes;
	u64 cq_bytes;
	u64 ct_bytes;
	struct th_nic_ring_offsets sq_off;
	struct th_nic_ring_offsets cq_off;
};

/* th_engine.c: setup, vport lifetime, rings, contexts */
void th_eng_limits_default(struct th_eng_limits *lim);
int th_eng_init(struct th_eng *eng, const struct th_eng_ops *ops, void *fabric,
		const struct th_eng_limits *lim);
u64 th_eng_ring_layout(u32 entries, u32 slot_size,
		       struct th_nic_ring_offsets *off);
bool th_eng_ring_size_valid(u32 entries, u32 max);
void th_eng_user_init(struct th_eng_user *user);
int th_eng_vport_init(struct th_eng_vport *vp, struct th_eng *eng, u32 node,
		      u32 index, const struct th_eng_vport_config *cfg,
		      void *sq_mem, void *cq_mem, struct th_nic_ct *cts,
		      const void *domain, struct th_eng_user *user);
void th_eng_vport_kill(struct th_eng_vport *vp, struct th_eng_ctx *ctx);
bool th_eng_vport_idle(struct th_eng_vport *vp);
void th_eng_vport_destroy(struct th_eng_vport *vp);
void th_eng_ctx_init(struct th_eng_ctx *ctx, struct th_eng *eng);
void th_eng_host_touch(struct th_eng_vport *vp, struct th_eng_ctx *ctx);
/* Timed mode: when counter @idx of @vp was last updated. */
u64 th_eng_timing_seen(struct th_eng_vport *vp, u32 idx);
void th_eng_ctx_add(struct th_eng_ctx *ctx, struct th_eng_chain *chain);
void th_eng_ctx_run(struct th_eng_ctx *ctx);
void th_eng_ctx_run_all(struct th_eng_ctx *ctx);
struct th_eng_chain *th_eng_chain_from_node(struct th_list *node);
struct th_list *th_eng_chain_node(struct th_eng_chain *chain);
struct th_eng_vport *th_eng_chain_vport(struct th_eng_chain *chain);
bool th_eng_cq_ready(struct th_eng_vport *vp);
void th_eng_stats_read(struct th_eng_vport *vp, struct th_eng_stats *st);
void th_eng_stats_add(struct th_eng_stats *sum, const struct th_eng_stats *st);
void th_eng_vport_info(struct th_eng_vport *vp, struct th_eng_vport_info *info);

/* th_fault.c: fault injection, and each node's totals */
int th_eng_nodes_init(struct th_eng *eng);
void th_eng_fini(struct th_eng *eng);
int th_eng_fault_set(struct th_eng *eng, u32 node,
		     const struct th_eng_fault *f);
int th_eng_fault_get(struct th_eng *eng, u32 node, struct th_eng_fault *f);
void th_eng_node_stats(struct th_eng *eng, u32 node, struct th_eng_stats *st);
void th_eng_chain_set_due(struct th_eng_chain *chain, u64 due);
u64 th_eng_chain_due(const struct th_eng_chain *chain);

/* th_chain.c: posting, cancelling */
int th_eng_doorbell(struct th_eng_vport *vp, struct th_eng_ctx *ctx,
		    struct th_nic_doorbell *db);
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

/* th_remote.c: deliveries between nodes a network joins (ops->node_remote) */
void th_eng_remote_done(struct th_eng_ctx *ctx, struct th_eng_chain *chain,
			int status);
int th_eng_remote_hold(struct th_eng_vport *vp, u64 rkey, u32 access, u64 off,
		       u64 len, struct th_eng_mr_ref *ref);
void th_eng_remote_release(struct th_eng_mr_ref *ref);

/* th_offload.c: chains whose first delivery waits in the network */
void th_eng_offload_withdraw(struct th_eng_vport *vp);

/* th_opcode.c: where a (validated) descriptor delivers, if elsewhere */
bool th_eng_desc_target(const struct th_nic_desc *d,
			struct th_eng_remote_op *op);

/* th_mr.c: the MR key tables */
int th_eng_mr_add(struct th_eng_vport *vp, u64 uaddr, u64 len, u32 access,
		  void *kaddr, void *priv, u32 *lkey, u64 *rkey);
int th_eng_mr_dereg(struct th_eng_vport *vp, u32 lkey);

/**
 * struct th_eng_fit - the sizes a chain must fit to be posted, with no
 *	vport: the engine fills it from its limits and the vport's rings
 *	(th_eng_chain_validate()), the chain verifier from the limits a
 *	device reports (lib/libthverbs/verify/fit.c); a field of 0 is not
 *	checked
 * @nodes: nodes of the fabric: a target's node is below it
 * @max_vports: vports per node: a target's vport is below it
 * @max_counters: counters per vport: every counter named is below it
 * @max_chain: descriptors per chain
 * @sq_entries: the vport's SQ slots
 * @cq_entries: the vport's CQ entries: a round's entries fit in it
 */
struct th_eng_fit {
	u32 nodes;
	u32 max_vports;
	u32 max_counters;
	u32 max_chain;
	u32 sq_entries;
	u32 cq_entries;
};

/* th_validate.c: the one place descriptors are checked */
u32 th_eng_chain_validate(struct th_eng_vport *vp,
			  const struct th_nic_desc *descs, u32 n, u32 *bad);
/*
 * The size rules of the doorbell, in one function for the engine and the
 * verifier, so that a set that verifies is never refused for size: the
 * chain's length, every counter and target it names, a REARM's place and
 * stride, and the CQ entries a round writes.  TH_NIC_REFUSE_NONE, or the
 * reason for the first offending descriptor, whose position is then in
 * *@bad (0 for the chain as a whole).
 */
u32 th_eng_chain_fit(const struct th_eng_fit *fit,
		     const struct th_nic_desc *descs, u32 n, u32 *bad);
/* The CQ entries a chain reserves when posted: 1 + those it writes. */
u32 th_eng_chain_credits(const struct th_nic_desc *descs, u32 n);

/*
 * th_cmd.c: the control calls.  Each takes the ABI struct its host copied
 * in, checks its flags and reserved fields, acts, and fills its (out)
 * fields; the hosts only copy in and out and supply memory and waiting.
 */
void th_eng_cmd_query(struct th_eng *eng, u32 node, u64 features,
		      struct th_nic_query *q);
int th_eng_cmd_vport_config(struct th_eng *eng,
			    const struct th_nic_vport_create *req,
			    struct th_eng_vport_config *cfg);
void th_eng_cmd_vport_describe(struct th_eng_vport *vp,
			       const struct th_eng_vport_config *cfg,
			       struct th_nic_vport_create *req);
int th_eng_cmd_vport_destroy(const struct th_nic_vport_destroy *req);
int th_eng_cmd_mr_check(struct th_eng *eng, const struct th_nic_mr_reg *req);
int th_eng_cmd_mr_dereg(struct th_eng_vport *vp,
			const struct th_nic_mr_dereg *req);
int th_eng_cmd_doorbell(struct th_eng_vport *vp, struct th_nic_doorbell *req);
int th_eng_cmd_ct_update(struct th_eng_vport *vp, bool set,
			 const struct th_nic_ct_update *req);
int th_eng_cmd_ct_wait_check(struct th_eng_vport *vp,
			     const struct th_nic_ct_wait *req);
bool th_eng_cmd_ct_reached(struct th_eng_vport *vp,
			   const struct th_nic_ct_wait *req);
int th_eng_cmd_ct_wait_result(struct th_eng_vport *vp,
			      struct th_nic_ct_wait *req, bool interrupted);
int th_eng_cmd_cancel(struct th_eng_vport *vp, struct th_nic_cancel *req);
int th_eng_cmd_domain_create(const struct th_nic_domain_create *req);

#endif /* TH_ENGINE_H */
