/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * inproc.h - the in-process fabric: N emulated NIC nodes inside one
 * process, running the trigger engine over process memory.  The in-process
 * provider of libthverbs (provider.c) sits on it; the host tests drive it
 * directly.  Control calls take the ABI's structs and go through the
 * engine's command layer (th_eng_cmd_*() on &vport->ev), as the module's
 * ioctls do.
 */
#ifndef TH_INPROC_H
#define TH_INPROC_H

#include <pthread.h>

#include "th_engine.h"

/**
 * struct th_ipf_waitq - where threads sleep until something changes
 * @seq: bumped on every wake-up; a waiter that read it before checking its
 *	condition sleeps only while it is unchanged, so no wake-up is lost
 * @waiters: threads asleep or about to be: a wake-up with none takes no
 *	lock (the waiter raises it before its last look at @seq, the waker
 *	bumps @seq before looking at it: one of them sees the other)
 * @lock: protects nothing but the sleep on @cond; taken after a vport lock
 *	(the engine wakes under it), never before one
 * @cond: broadcast on every wake-up that finds a waiter
 */
struct th_ipf_waitq {
	u64 seq;
	u32 waiters;
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

/**
 * struct th_ipf_net - a network that joins this fabric's nodes to nodes
 * hosted by other processes (the ofi provider); see struct th_eng_ops for
 * what each hook must do
 * @node_remote: the node is elsewhere
 * @remote_post: start a delivery there
 * @remote_fail_ct: raise a failure value there
 * @mr_free: an MR's last use ended: release what the network keeps for it
 *	(struct th_eng_mr.priv)
 * @chain_posted: a chain is being accepted
 * @offload_arm: may the network send a pending chain's first delivery
 *	by itself (struct th_eng_ops); NULL: never
 * @offload_counter: a counter an offloaded chain waits on changed
 * @offload_disarm: an offloaded chain left its pending list
 * @sleep: a host thread sleeps in th_ct_wait() until *@woken is not 0 or
 *	@deadline (CLOCK_REALTIME) passes, -ETIMEDOUT then; it may read the
 *	network meanwhile, and return 0 early.  NULL: the fabric's bell
 * @arg: the network's, passed to every hook
 */
struct th_ipf_net {
	bool (*node_remote)(void *arg, u32 node);
	void (*remote_post)(void *arg, struct th_eng_chain *chain,
			    const struct th_eng_remote_op *op);
	void (*remote_fail_ct)(void *arg, const void *domain, u32 node,
			       u32 vport, u16 ct, u64 rkey, u64 off, u64 len);
	void (*mr_free)(void *arg, void *priv);
	void (*chain_posted)(void *arg, struct th_eng_vport *ev,
			     const struct th_nic_desc *descs, u32 n);
	bool (*offload_arm)(void *arg, struct th_eng_chain *chain,
			    struct th_eng_vport *ev, u32 ct, u64 threshold,
			    u64 success, const struct th_eng_remote_op *op);
	void (*offload_counter)(void *arg, struct th_eng_vport *ev, u32 ct,
				u64 success, u64 failure);
	void (*offload_disarm)(void *arg, struct th_eng_chain *chain,
			       int status, struct th_eng_mr_ref *hold);
	int (*sleep)(void *arg, u32 *woken, const struct timespec *deadline);
	void *arg;
};

/**
 * struct th_ipf - the fabric
 * @eng: the engine
 * @lock: serialises the writers of @vports (creation and teardown) and
 *	protects domains' @refs; a lookup takes neither it nor any lock
 *	(th_ipf_vport_get())
 * @changed: woken on every change anywhere (vport references, quiescing)
 * @vports: nodes x max_vports slots, NULL when free, TH_IPF_SLOT_LEAVING
 *	while the vport that was in it is torn down
 * @refs: per slot of @vports, the references to the vport in it: the
 *	table's and one per running operation (a transfer to it, a CT_WAIT on
 *	it).  Counted without a lock, and never from 0: a vport whose count
 *	fell to 0 is being torn down, and a lookup finds nothing.  Kept
 *	beside the table rather than in the vport, so a lookup never touches
 *	a vport that may be freed meanwhile.
 * @user: the one user of an in-process fabric: this process
 * @default_domain: the domain of vports created without one
 * @progress: the NIC's progress thread: runs the chains a context handed
 *	over past its budget, as the module's per-vport work items do
 * @progress_lock: protects @runq, @parked, every vport's @deferred,
 *	@runq_link and @unparking,
 *	@progress_started and @stopping
 * @progress_cond: signals @runq or @stopping
 * @runq: vports with deferred chains, served in turn
 * @parked: chains fault injection holds back, each until its due time
 *	(th_eng_chain_due()); the progress thread moves them to @runq
 * @progress_started: @progress exists (started on first use)
 * @stopping: th_ipf_destroy() asks @progress to exit
 * @host: the host's costs in the timed mode (@eng.timing set), written
 *	only while no vport exists
 * @net: the network to nodes of other processes, or NULL (all nodes here)
 * @bell: the futex word the CT_WAIT sleepers of every vport here sleep on,
 *	each with its vport's bit (struct th_ipf_vport.bell_bit), so that
 *	one system call wakes all of a broadcast's ranks (th_ipf_wake_bell());
 *	it moves on every such wake-up.  Not for a network's sleepers, which
 *	sleep their own way (struct th_ipf_net.sleep).
 */
struct th_ipf {
	struct th_eng eng;
	pthread_mutex_t lock;
	struct th_ipf_waitq changed;
	struct th_ipf_vport **vports;
	u32 *refs;
	struct th_eng_user user;
	struct th_ipf_domain *default_domain;
	pthread_t progress;
	pthread_mutex_t progress_lock;
	pthread_cond_t progress_cond;
	struct th_list runq;
	struct th_list parked;
	bool progress_started;
	bool stopping;
	struct {
		u64 wake_fs;
		u64 post_fs;
		u64 cpu_byte_fs;
	} host;
	const struct th_ipf_net *net;
	u32 bell;
};

/**
 * struct th_ipf_domain - a domain of the in-process fabric
 * @fabric: owner
 * @refs: one per holder (the library's handle, each vport); freed at 0
 * @token: random bits naming it to other processes' nodes (struct
 *	th_ipf_net): two processes' domains are one when their tokens are
 *
 * Vports of one domain reach each other and nothing else.  Its address is
 * the identity the engine compares (struct th_eng_vport.domain).
 */
struct th_ipf_domain {
	struct th_ipf *fabric;
	u32 refs;
	u8 token[16];
};

/**
 * struct th_ipf_vport - one vport of the in-process fabric
 * @ev: the engine's state
 * @fabric: owner
 * @domain: its domain, referenced
 * @sq_mem: SQ ring memory (th_eng_ring_layout() format)
 * @cq_mem: CQ ring memory
 * @cts: counters
 * @cfg: ring sizes and layouts
 * @ct_waiters: threads sleeping in CT_WAIT on this vport (struct
 *	th_ipf_ct_waiter), each woken only once its own condition holds
 *	(ranks as threads are not woken by every counter that moves), and
 *	taken off the list by its waker
 * @nct_waiters: their number, read without the lock by the waker
 * @bell_bit: the bit its sleepers wait for on the fabric's bell: one of
 *	32, by its node and index; vports that share one wake each other's
 *	sleepers, who look and sleep again
 * @ct_lock: protects @ct_waiters; taken after the vport lock
 * @deferred: chains the engine handed over past a context's budget
 * @runq_link: in the fabric's run queue while @deferred is not empty
 * @unparking: being destroyed: chains parked from now on run at once
 *	(under the fabric's progress_lock)
 */
struct th_ipf_vport {
	struct th_eng_vport ev;
	struct th_ipf *fabric;
	struct th_ipf_domain *domain;
	void *sq_mem;
	void *cq_mem;
	struct th_nic_ct *cts;
	struct th_eng_vport_config cfg;
	struct th_list ct_waiters;
	u32 nct_waiters;
	u32 bell_bit;
	pthread_mutex_t ct_lock;
	struct th_list deferred;
	struct th_list runq_link;
	bool unparking;
};

/* fabric.c */
struct th_ipf *th_ipf_create(const struct th_eng_limits *lim,
			     const struct th_ipf_net *net, int *err);
void th_ipf_destroy(struct th_ipf *f);
struct th_eng *th_ipf_engine(struct th_ipf *f);
struct th_ipf_domain *th_ipf_domain_create(struct th_ipf *f, int *err);
struct th_ipf_domain *th_ipf_default_domain(struct th_ipf *f);
void th_ipf_domain_get(struct th_ipf_domain *d);
void th_ipf_domain_put(struct th_ipf_domain *d);
void th_ipf_waitq_init(struct th_ipf_waitq *wq);
void th_ipf_waitq_destroy(struct th_ipf_waitq *wq);
void th_ipf_waitq_wake_locked(struct th_ipf_waitq *wq);
bool th_ipf_waitq_wait(struct th_ipf_waitq *wq, bool (*done)(void *arg),
		       void *arg, const struct timespec *deadline);
bool th_ipf_wait(struct th_ipf *f, bool (*done)(void *arg), void *arg,
		 const struct timespec *deadline);
void th_ipf_wake_word(u32 *word);
void th_ipf_wake_bell(struct th_ipf *f, u32 bits);
int th_ipf_bell_wait(struct th_ipf *f, u32 seq, u32 bits,
		     const struct timespec *deadline);
u32 th_ipf_bell_seq(struct th_ipf *f);
void th_ipf_wake_begin(void);
void th_ipf_wake_end(void);
int th_ipf_word_wait(u32 *word, u32 val, const struct timespec *deadline);

/*
 * A slot of struct th_ipf.vports whose vport is being torn down: lookups
 * find nothing there, and no vport is created in it until the teardown
 * ends, whose wait for the slot's count to reach 0 a new vport's count
 * would otherwise upset.
 */
#define TH_IPF_SLOT_LEAVING	((struct th_ipf_vport *)(uintptr_t)1)

/* The count of references to @vp (struct th_ipf.refs). */
static inline u32 *th_ipf_vport_refs(struct th_ipf_vport *vp)
{
	return &vp->fabric->refs[(size_t)vp->ev.node *
				 vp->fabric->eng.lim.max_vports + vp->ev.index];
}

/* vport.c */
int th_ipf_vport_create(struct th_ipf *f, u32 node, struct th_ipf_domain *d,
			struct th_nic_vport_create *req,
			struct th_ipf_vport **out);
void th_ipf_vport_destroy(struct th_ipf_vport *vp);
int th_ipf_mr_reg(struct th_ipf_vport *vp, struct th_nic_mr_reg *req);
int th_ipf_ct_wait(struct th_ipf_vport *vp, struct th_nic_ct_wait *req);
/* under @vp's engine lock, after the change */
void th_ipf_ct_wake_locked(struct th_ipf_vport *vp);

/* fabric.c, for the engine's quiesce */
void th_ipf_unpark_vport(struct th_ipf_vport *vp);

/*
 * provider.c: the in-process fabric's one process-wide instance, and the
 * provider calls that work on any fabric of this kind (struct
 * th_context.priv the fabric, struct th_vport.priv the vport): the ofi
 * provider's node is one too
 */
struct th_ipf *th_inproc_get(int *err);
struct th_context;
struct th_vport;
struct th_domain;
void th_ip_close(struct th_context *ctx);
int th_ip_query(struct th_context *ctx, struct th_nic_query *q);
int th_ip_domain_alloc(struct th_context *ctx, struct th_domain *d);
void th_ip_domain_free(struct th_domain *d);
int th_ip_vport_create(struct th_vport *vp, struct th_nic_vport_create *req,
		       struct th_domain *d);
int th_ip_vport_destroy(struct th_vport *vp);
int th_ip_mr_dereg(struct th_vport *vp, struct th_nic_mr_dereg *req);
int th_ip_doorbell(struct th_vport *vp, struct th_nic_doorbell *db);
int th_ip_ct_update(struct th_vport *vp, bool set, struct th_nic_ct_update *u);
int th_ip_ct_wait(struct th_vport *vp, struct th_nic_ct_wait *w);
int th_ip_cancel(struct th_vport *vp, struct th_nic_cancel *c);
int th_ip_vport_fd(const struct th_vport *vp);
bool th_ip_node_remote(const struct th_vport *vp, uint32_t node);

/* stats.c: statistics and fault injection for the library calls */
struct th_vport;
struct th_context;
struct th_stats;
struct th_fault;
int th_ip_vport_stats(struct th_vport *vp, struct th_stats *st);
int th_ip_node_stats(struct th_context *ctx, struct th_stats *st);
int th_ip_fault_set(struct th_context *ctx, const struct th_fault *f);
int th_ip_fault_get(struct th_context *ctx, struct th_fault *f);

/*
 * clock.c: the virtual clock, and one host clock per thread (the
 * provider's timing ops; struct th_timing is thverbs_priv.h's)
 */
struct th_timing;
int th_ip_timing_set(const struct th_timing *t);
int th_ip_timing_now(uint64_t *host);
int th_ip_timing_advance(uint64_t to);
void th_ip_timing_cpu(uint64_t bytes);
int th_ip_timing_seen(const struct th_vport *vp, uint16_t ct, uint64_t *fs);
void th_ip_timing_command(struct th_ipf *f);
void th_ip_timing_saw(struct th_ipf_vport *vp, u32 ct);

/* memcheck.c */
int th_ipf_mem_check(u64 addr, u64 len, u32 access);

/* fabric.c, for vport.c */
struct th_ipf_vport *th_ipf_from_ev(struct th_eng_vport *ev);

#endif /* TH_INPROC_H */
