/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * group.h - the ranks behind a collective handle, shared by the offload
 * (coll.c) and the host-driven baselines (hostcoll.c): who each rank is, its
 * place in the k-nomial tree, its registered send, recv and scratch
 * memory, what every rank publishes to the others, the exchange of that
 * with one process (or thread) per rank, and the teardown.
 */
#ifndef TH_COLL_GROUP_H
#define TH_COLL_GROUP_H

#include <stdbool.h>
#include <stdint.h>

#include <thverbs/verbs.h>
#include <thverbs/coll.h>

/* What a rank publishes so that others can address it. */
struct th_group_peer {
	uint32_t node;
	uint32_t vport;
	uint64_t send_key;
	uint64_t recv_key;
	uint64_t scratch_key;	/* 0: that rank failed to set up */
};

/* A rank this process drives. */
struct th_group_rank {
	unsigned int rank;
	struct th_vport *vp;
	void *send, *recv;
	uint8_t *scratch;
	uint64_t scratch_bytes;
	void *own_send, *own_recv;	/* when the caller gave none */
	struct th_mr *send_mr, *recv_mr, *scratch_mr;
	/* the k-nomial tree of (root, radix) */
	int parent;			/* -1: the root */
	unsigned int slot_at_parent;	/* its index among the parent's children */
	unsigned int nchild;
	unsigned int *child;
	unsigned int depth;		/* edges up to the root */
	struct th_mr *described;	/* th_group_rank_describe()'s regions */
};

struct th_group {
	unsigned int n;			/* ranks in the job */
	unsigned int nlocal;		/* ranks this handle drives */
	unsigned int root, radix;
	uint64_t bytes;			/* send and recv, per rank */
	struct th_group_rank *local;
	struct th_group_peer *peers;	/* every rank's, indexed by rank */
	/* one process (or thread) per rank: the exchange, else NULL */
	th_coll_allgather_fn allgather;
	void *allgather_arg;
	bool exchanged;			/* peers hold every rank's entry */
	bool described;			/* no vports: a plan to look at */
};

/* Zeroed @g, sized; radix 0 means 4.  -ENOMEM. */
int th_group_init(struct th_group *g, unsigned int n, unsigned int nlocal,
		  unsigned int root, unsigned int radix, uint64_t bytes);
/* Local rank @rk is @rank on @vp: its tree position. */
int th_group_rank_init(struct th_group *g, struct th_group_rank *rk,
		       unsigned int rank, struct th_vport *vp, void *send,
		       void *recv);
/*
 * Rank @rank of a described group (@g->described), after
 * th_group_rank_init() with no vport: regions that stand for its memory
 * (@scratch_bytes of scratch); it runs on node @rank, vport 0.
 */
int th_group_rank_describe(struct th_group *g, struct th_group_rank *rk,
			   unsigned int rank, uint64_t scratch_bytes);
/* Allocate @scratch_bytes of scratch, register all three, publish keys. */
int th_group_rank_register(struct th_group *g, struct th_group_rank *rk,
			   uint64_t scratch_bytes);
/*
 * One rank per process or thread: share every rank's entry.  Every rank
 * takes part even after a local failure (@err != 0; it sends a zeroed
 * entry), so that no peer is left waiting in the rendezvous; returns @err,
 * or -ECONNRESET when the exchange failed or some rank could not set up.
 */
int th_group_exchange(struct th_group *g, int err);
/*
 * Every rank reports @err; all return 0 only if every rank had none (else
 * their own error, or -ECONNRESET), and then no handle is half made.
 */
int th_group_agree(struct th_group *g, int err);
/* A barrier through the exchange hook (no-op with every rank local). */
int th_group_barrier(struct th_group *g);
/*
 * Cancel every chain on the local vports and drain their CQs, waiting
 * (boundedly) for the entries of chains that were still running.
 */
void th_group_quiesce(struct th_group *g);
/* Deregister and free; @g may be partly initialised. */
void th_group_fini(struct th_group *g);

#endif /* TH_COLL_GROUP_H */
