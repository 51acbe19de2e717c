/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * thverbs/coll.h - offloaded collectives on the th_nic NIC: Allreduce,
 * Reduce and Broadcast over k-nomial trees, compiled into re-arming chains
 * once and started by the hosts' counter increments
 * (Documentation/collectives.rst), and the trees themselves.
 *
 * Conventions as in thverbs/verbs.h: calls return 0 or a negative errno;
 * constructors return NULL and set errno.
 */
#ifndef THVERBS_COLL_H
#define THVERBS_COLL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <thverbs/verbs.h>
#include <thverbs/api.h>

TH_API_BEGIN

/* ---- k-nomial trees (Documentation/collectives.rst) --------------------- */

/* The parent of @rank, or -ENOENT for the root (-EINVAL on bad input). */
int th_tree_parent(unsigned int n, unsigned int root, unsigned int k,
		   unsigned int rank);
/*
 * The children of @rank, in tree order, into @children (up to @max of
 * them); returns how many there are (which may exceed @max).
 */
int th_tree_children(unsigned int n, unsigned int root, unsigned int k,
		     unsigned int rank, unsigned int *children,
		     unsigned int max);
/* The tree's depth (edges on its longest path); at most ceil(log_k n). */
int th_tree_depth(unsigned int n, unsigned int k);

/* ---- offloaded collectives (Documentation/collectives.rst) -------------- */

enum th_coll_kind {
	TH_COLL_ALLREDUCE,	/* every rank's recv = op over all send */
	TH_COLL_REDUCE,		/* the root's recv = op over all send */
	TH_COLL_BCAST,		/* every rank's recv = the root's send */
};

/**
 * struct th_coll_attr - what a collective handle computes
 * @kind: enum th_coll_kind
 * @op: TH_NIC_ALU_* (ignored by BCAST)
 * @dtype: TH_NIC_DT_*
 * @count: elements per rank
 * @root: root rank of the tree
 * @radix: k of the k-nomial tree, >= 2; 0 picks 4
 * @segment: elements per pipelined segment; 0 picks a default
 * @comp_mask: which optional fields after it are set: 0 in this version
 *	(as th_vport_attr's; an unknown bit fails with EOPNOTSUPP)
 */
struct th_coll_attr {
	enum th_coll_kind kind;
	unsigned int op;
	unsigned int dtype;
	uint32_t count;
	unsigned int root;
	unsigned int radix;
	uint32_t segment;
	uint32_t comp_mask;
};

struct th_coll;

/* Exchange @len bytes per rank (e.g. th_boot_allgather()). */
typedef int (*th_coll_allgather_fn)(void *arg, const void *mine, void *all,
				    size_t len);

/*
 * Creating a handle compiles the collective into a plan: every chain of
 * every rank, posted once as a re-arming chain (TH_NIC_OP_REARM), so that
 * a round costs each host one counter increment and nothing else.
 *
 * One process drives all @n ranks: rank r runs on @vps[r] with buffers
 * @send[r] and @recv[r] (count elements each; unused ones may be NULL).
 * A vport serves one handle at a time; its counters 0 ... 207 are the
 * handle's (th_coll_counter_map()).
 */
struct th_coll *th_coll_create_local(struct th_vport *const *vps,
				     unsigned int n,
				     const struct th_coll_attr *attr,
				     void *const *send, void *const *recv);
/*
 * One process (or thread) per rank: addresses are exchanged through
 * @allgather, which must also act as a barrier (th_boot_allgather() does).
 * Collective: if any rank fails, all fail.
 */
struct th_coll *th_coll_create(struct th_vport *vp, unsigned int rank,
			       unsigned int size, th_coll_allgather_fn allgather,
			       void *arg, const struct th_coll_attr *attr,
			       void *send, void *recv);
/*
 * Start a round on every rank this process drives: one increment of its
 * start counter each, which tells the NIC the send buffers are ready.  The
 * plan's chains are already waiting; with one process driving every rank,
 * the whole collective has run when this returns.
 */
int th_coll_start(struct th_coll *coll);
/* Wait for the round's completion on every local rank. */
int th_coll_wait(struct th_coll *coll, uint64_t timeout_ns);
/*
 * Cancel the plan and free.  With one process per rank it is collective
 * once a round has started: every rank calls it (it meets the others
 * through the allgather hook), so that no rank's cancellation reaches a
 * peer still finishing the last round.
 */
void th_coll_destroy(struct th_coll *coll);

/**
 * struct th_coll_step - one chain of a handle's plan
 * @rank: the rank whose vport runs it
 * @ct: its trigger counter
 * @threshold: the counter value it waits for in round 1
 * @stride: added to the threshold each round (its REARM); 0: runs once
 * @ndesc: descriptors, the final REARM included
 * @descs: the descriptors, as posted (valid while the handle lives)
 * @what: what the chain does, in words
 */
struct th_coll_step {
	unsigned int rank;
	uint16_t ct;
	uint64_t threshold;
	uint64_t stride;
	unsigned int ndesc;
	const struct th_nic_desc *descs;
	const char *what;
};

/* Step @i of @coll's plan (local ranks in order); -ENOENT past the last. */
int th_coll_plan_step(const struct th_coll *coll, unsigned int i,
		      struct th_coll_step *step);

/**
 * struct th_coll_start_ct - how a rank's host starts a round
 * @rank: the rank
 * @ct: the counter of the rank's vport that th_coll_start() raises: S
 *	(counter 0, th_coll_counter_map()) when a chain of the rank waits
 *	for it; where S's one chain would only raise another counter, that
 *	counter (the chain is not in the plan)
 * @value: by how much, each round
 */
struct th_coll_start_ct {
	unsigned int rank;
	uint16_t ct;
	uint64_t value;
};

/* Local rank @i's start (local ranks in order); -ENOENT past the last. */
int th_coll_plan_start(const struct th_coll *coll, unsigned int i,
		       struct th_coll_start_ct *start);

struct th_verify_finding;

/*
 * The plan of an @n-rank collective without posting it: no vport, no
 * memory; rank r stands on node r, vport 0, and chains hold at most
 * @limits->max_chain descriptors (NULL: the engine's default).  For
 * th_coll_plan_step() and th_coll_verify(); th_coll_start() on it fails
 * with EOPNOTSUPP.  th_coll_destroy() frees it.
 */
struct th_coll *th_coll_describe(unsigned int n,
				 const struct th_coll_attr *attr,
				 const struct th_nic_query *limits);
/*
 * th_verify() (thverbs/verify.h) on @coll's plan: its steps as the chains
 * (finding i's chain is step i), each rank's start increment as the host's
 * update, against @limits (NULL: none; with th_coll_describe(),
 * node_count must cover the ranks).  Returns th_verify()'s answer, or
 * -EOPNOTSUPP for a handle that drives only some of the ranks.
 */
int th_coll_verify(const struct th_coll *coll,
		   const struct th_nic_query *limits,
		   struct th_verify_finding *out, unsigned int max);
struct th_verify_set;
/*
 * The set th_coll_verify() checks (@coll's steps as chains, the host's
 * start increment and wait per rank, their regions), kept for the caller:
 * for th_sim_chains() (thverbs/sim.h) or th_verify().  NULL with errno
 * (EOPNOTSUPP for a handle that drives only some of the ranks); free it
 * with th_coll_set_free().
 */
struct th_verify_set *th_coll_set(const struct th_coll *coll,
				  const struct th_nic_query *limits);
void th_coll_set_free(struct th_verify_set *set);

/**
 * struct th_coll_counter - counters a collective handle uses on its vports
 * @first: the first counter
 * @count: how many (one per segment, step ...)
 * @name: short name (S, F, U(s) ...)
 * @user: which handles use it: "offload", "p2p-tree", "recdbl"
 * @meaning: what it counts
 */
struct th_coll_counter {
	uint16_t first;
	uint16_t count;
	const char *name;
	const char *user;
	const char *meaning;
};

/* Entry @i of the one map of counters the handles use; -ENOENT past it. */
int th_coll_counter_map(unsigned int i, struct th_coll_counter *out);

TH_API_END

#endif /* THVERBS_COLL_H */
