/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * thverbs_priv.h - libthverbs internals: the objects behind the opaque
 * handles, and the provider ops table that every provider implements
 * (providers/<name>/, each registered in providers.c).  Everything ring-related is common: both providers
 * expose the ABI's ring and counter layout.
 */
#ifndef THVERBS_PRIV_H
#define THVERBS_PRIV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

#include <thverbs/verbs.h>

#include "th_compat.h"	/* th_cpu_relax() */

#define TH_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* The builder's capacity; the NIC refuses chains beyond its max_chain. */
#define TH_CHAIN_CAP	256

/**
 * struct th_timing - the costs of a provider's timed mode, in femtoseconds
 * @alu_fs: per node, per operand byte a NIC reduces
 * @nodes: entries of @alu_fs: at least the fabric's nodes
 * @desc_fs: NIC work per REDUCE pass or COPY
 * @latency_fs: a PUT's flight
 * @byte_fs: per byte a PUT or a COPY moves
 * @wake_fs: a host that waited for a counter runs this long after its
 *	update
 * @post_fs: host software per command (a doorbell, a counter update)
 * @cpu_byte_fs: per operand byte a host reduces on its CPU
 *
 * th_place_timed() converts the placer's model to these.
 */
struct th_timing {
	const uint64_t *alu_fs;
	unsigned int nodes;
	uint64_t desc_fs;
	uint64_t latency_fs;
	uint64_t byte_fs;
	uint64_t wake_fs;
	uint64_t post_fs;
	uint64_t cpu_byte_fs;
};

struct th_boot;

/*
 * struct th_provider_ops - what a provider does for the library; the core
 * reaches a provider only through these, and finds one through the
 * registration list (th_provider_find(), providers.c).
 */
struct th_provider_ops {
	const char *name;
	/* number of nodes, or a negative errno */
	int (*count_nodes)(void);
	int (*open)(struct th_context *ctx);
	void (*close)(struct th_context *ctx);
	int (*query)(struct th_context *ctx, struct th_nic_query *q);
	int (*domain_alloc)(struct th_context *ctx, struct th_domain *d);
	int (*domain_import)(struct th_context *ctx, int fd, struct th_domain *d);
	void (*domain_free)(struct th_domain *d);
	/* create in @d (NULL: the default domain), map SQ, CQ and counters */
	int (*vport_create)(struct th_vport *vp, struct th_nic_vport_create *req,
			    struct th_domain *d);
	int (*vport_destroy)(struct th_vport *vp);
	int (*mr_reg)(struct th_vport *vp, struct th_nic_mr_reg *req);
	int (*mr_dereg)(struct th_vport *vp, struct th_nic_mr_dereg *req);
	int (*doorbell)(struct th_vport *vp, struct th_nic_doorbell *db);
	int (*ct_update)(struct th_vport *vp, bool set,
			 struct th_nic_ct_update *u);
	int (*ct_wait)(struct th_vport *vp, struct th_nic_ct_wait *w);
	int (*cancel)(struct th_vport *vp, struct th_nic_cancel *c);
	int (*vport_fd)(const struct th_vport *vp);
	/*
	 * The vport runs on a virtual clock (the in-process timed mode),
	 * whose host learns of the NIC's work only through waits; NULL: no.
	 */
	bool (*timed)(const struct th_vport *vp);
	/*
	 * Drive the NIC once without sleeping (a waiter that spins calls it
	 * between looks at its counter, so that no progress thread has to
	 * be woken on the critical path); NULL: the NIC needs no help.
	 */
	void (*progress)(struct th_context *ctx);
	/*
	 * This process's host still moves the bytes of a delivery that a
	 * chain of @vp started (the ofi provider: a PUT or GET past the
	 * eager size, by RESOLVE and RMA); NULL: the NIC moves them without
	 * the host.
	 */
	bool (*host_owes)(const struct th_vport *vp);
	/*
	 * Node @node is behind a network from @vp: a delivery there is a
	 * message, and the chain that sends it waits a round trip for its
	 * answer before its next descriptor.  Plans give each such PUT a
	 * chain of its own so that a parent's children are served at once
	 * (coll.c).  NULL: every node is in this NIC's fabric.
	 */
	bool (*node_remote)(const struct th_vport *vp, uint32_t node);
	/* statistics and fault injection; NULL: -EOPNOTSUPP */
	int (*vport_stats)(struct th_vport *vp, struct th_stats *st);
	int (*node_stats)(struct th_context *ctx, struct th_stats *st);
	int (*fault_set)(struct th_context *ctx, const struct th_fault *f);
	int (*fault_get)(struct th_context *ctx, struct th_fault *f);
	/*
	 * A job's rank joins the provider's network in th_boot_init(): a
	 * collective round on @b before any of the program's; NULL: the
	 * provider needs none.
	 */
	int (*join)(struct th_boot *b);
	/*
	 * The timed mode's virtual clock, process-wide (th_place_timed());
	 * NULL: the provider has none.  timing_set(NULL) ends it; times and
	 * the calling thread's host clock in femtoseconds.
	 */
	int (*timing_set)(const struct th_timing *t);
	int (*timing_now)(uint64_t *host);
	int (*timing_advance)(uint64_t to);
	void (*timing_cpu)(uint64_t bytes);
	/*
	 * When counter @ct of @vp was last updated, on the virtual clock
	 * (femtoseconds); -ENOENT in real time.  The placement executor
	 * reads each job's finish with it (th_place_exec_finishes()).
	 */
	int (*timing_seen)(const struct th_vport *vp, uint16_t ct,
			   uint64_t *fs);
};

/*
 * struct th_provider_reg - an entry of the registration list: a provider
 * this library knows, @ops NULL when this build lacks it (@why says why).
 */
struct th_provider_reg {
	const char *name;
	const struct th_provider_ops *ops;
	const char *why;
};

/* providers.c: the registration list, in the order TH_PROVIDER names them */
extern const struct th_provider_reg th_providers[];
extern const unsigned int th_nproviders;
/* the entry named @name, or NULL */
const struct th_provider_reg *th_provider_find(const char *name);
/* the first provider built in that has a timed mode, or NULL */
const struct th_provider_ops *th_provider_timing(void);
/*
 * The calling thread reduced @bytes of operands on its CPU: the timed
 * mode charges its host clock (nothing in real time).
 */
void th_timed_cpu(uint64_t bytes);

/*
 * wait.c: spin under the wait policy for something other than a counter
 * (th_boot's team rendezvous), as th_ct_wait() spins for its counter.
 * True once @look(@arg) returned true; false when the policy says sleep,
 * at once or after the spin's budget (at most @timeout_ns): the caller
 * then sleeps its own way.
 */
bool th_wait_spin_for(bool (*look)(void *arg), void *arg, uint64_t timeout_ns);
/*
 * wait.c: th_ct_wait() for a waiter whose host has acted already this
 * round (th_coll_wait(): th_coll_start() raised a counter of its vport):
 * the spin first, with no host action, then the provider's wait.
 */
int th_ct_wait_spin_first(struct th_vport *vp, uint16_t ct,
			  uint64_t threshold, uint64_t timeout_ns);
/*
 * wait.c: a provider's join says how many of the job's ranks on this
 * machine share this process's CPUs (this one included) and how many
 * CPUs they share; auto then counts waiting threads in all of them.
 * (0, 0): this process alone, as before any join.  True when even one
 * waiting thread a rank is too many for auto to watch.
 */
bool th_wait_host_share(unsigned int ranks, unsigned int cpus);
/*
 * wait.c: whether a thread that is not a waiter (a provider's progress
 * thread) may look without sleeping: not under passive, nor under auto
 * when the waiting threads outnumber the CPUs.
 */
bool th_wait_may_watch(void);
/*
 * wait.c: a wait with no time left (th_ct_wait() or th_coll_wait() with
 * a timeout of 0, which libthmpi's MPI_Test and MPI_Wait on a
 * non-blocking collective call) drives the provider once, as one turn
 * of a spinning waiter, where a waiter may watch (th_wait_may_watch()).
 * True when it did: the caller looks at its counter again.
 */
bool th_wait_drive_once(struct th_vport *vp);
/*
 * wait.c: a collective's round is complete on a rank, but where the
 * host moves the bytes that @vp's chains send (ops->host_owes), it
 * drives the provider until none are owed, or until @deadline
 * (CLOCK_MONOTONIC ns): -ETIMEDOUT, after at least one drive.  0 at once
 * where a waiter may not watch: the progress thread moves them.
 */
int th_wait_bytes_out(struct th_vport *vp, uint64_t deadline);

struct th_device {
	const struct th_provider_ops *ops;
	uint32_t node;
	char name[32];
};

struct th_context {
	struct th_device dev;
	int fd;			/* kernel: the node's file */
	void *priv;
	struct th_nic_query attr;
	unsigned int nvports;	/* close is refused while any exists */
};

struct th_domain {
	const struct th_provider_ops *ops;
	int fd;			/* kernel: the domain's descriptor */
	void *priv;		/* inproc: the fabric's domain */
};

struct th_vport {
	struct th_context *ctx;
	uint32_t index;
	struct th_nic_vport_create info;
	void *sq;
	void *cq;
	struct th_nic_ct *cts;
	uint32_t *sq_head, *sq_tail, *cq_head, *cq_tail;
	struct th_nic_desc *sq_slots;
	struct th_nic_cqe *cq_slots;
	uint32_t sq_mask, cq_mask, sq_entries, cq_entries;
	/* serialises posting (one chain in the SQ at a time) and CQ polling */
	pthread_mutex_t lock;
	uint32_t bad_desc;
	uint32_t reason;	/* enum th_nic_refusal of the last refusal */
	bool refused;		/* the NIC refused the last post */
	void *priv;
};

/* @vp's provider keeps a virtual clock (struct th_provider_ops.timed). */
static inline bool th_vport_timed(const struct th_vport *vp)
{
	return vp->ctx->dev.ops->timed && vp->ctx->dev.ops->timed(vp);
}

struct th_mr {
	struct th_vport *vp;
	uint32_t lkey;
	uint64_t rkey;
	void *addr;
	size_t len;
};

struct th_chain {
	uint32_t n;
	int err;		/* first builder error, reported at post */
	/* the trigger, applied to the first descriptor when posted */
	uint16_t trig_ct;
	uint64_t threshold;
	uint64_t cookie;
	struct th_nic_desc d[TH_CHAIN_CAP];
};

/* ring.c: the ring protocol both providers share */
void th_ring_attach(struct th_vport *vp);

/*
 * A TH_* environment variable holds a value the library cannot use.  The
 * call that read it fails with -EINVAL, and an errno cannot say which
 * variable or what it should hold, so the library says it on stderr, as
 * UCX and libfabric do for theirs: once per process and call site (@said),
 * however often the variable is read.  Inline, so that every part of the
 * library (boot.o is linked alone into test programs) has it.
 */
static inline void th_env_complain(bool *said, const char *name,
				   const char *value, const char *accepted)
{
	if (__atomic_exchange_n(said, true, __ATOMIC_RELAXED))
		return;
	fprintf(stderr, "libthverbs: %s='%s' is not valid: expected %s\n",
		name, value, accepted);
}

#endif /* THVERBS_PRIV_H */
