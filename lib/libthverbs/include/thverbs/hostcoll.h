/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * thverbs/hostcoll.h - host-driven Allreduce baselines on the th_nic NIC:
 * the hosts wait, reduce on the CPU and post one-descriptor PUTs
 * themselves, where th_coll compiles the same work into triggered chains
 * (COLLECTIVES.md, "Host-driven baselines").
 *
 * Conventions as in thverbs/verbs.h: 0 or a negative errno; constructors return
 * NULL and set errno.
 */
#ifndef TH_HOSTCOLL_H
#define TH_HOSTCOLL_H

#include <thverbs/verbs.h>
#include <thverbs/coll.h>
#include <thverbs/api.h>

TH_API_BEGIN

/**
 * enum th_hostcoll_algo - how the hosts drive the Allreduce
 * @TH_HOSTCOLL_TREE: the offload's k-nomial tree (attr->radix, attr->root):
 *	each rank waits for its children's PUTs, reduces own send, child 0,
 *	child 1, ... left to right (bit-identical to th_coll), PUTs to its
 *	parent, waits for the result and forwards it to its children.
 * @TH_HOSTCOLL_RECDBL: MPICH's recursive doubling (MPIR_Allreduce_intra_
 *	recursive_doubling): the n - 2^floor(log2 n) extra ranks fold into
 *	their odd neighbours first and get the result back last; the others
 *	exchange partial results with rank ^ 2^s at step s.  Each combination
 *	is lower ranks' part op higher ranks' part, so every rank holds the
 *	same bits; the order differs from the tree's (floats may differ from
 *	th_coll in the last place).  attr->radix and attr->root are ignored.
 */
enum th_hostcoll_algo {
	TH_HOSTCOLL_TREE,
	TH_HOSTCOLL_RECDBL,
	TH_HOSTCOLL_ALGO_MAX,
};

struct th_hostcoll;

/*
 * One process drives all @n ranks (rank r on @vps[r], buffers @send[r]
 * and @recv[r], attr->count elements; NULL entries get private buffers).
 * Only TH_COLL_ALLREDUCE is supported (-EOPNOTSUPP otherwise).  The
 * handle uses counters 216 ... 255 of each vport (th_coll uses fewer than
 * 216) and resets them; the vports need 256 counters.
 */
struct th_hostcoll *th_hostcoll_create_local_algo(struct th_vport *const *vps,
						  unsigned int n,
						  const struct th_coll_attr *attr,
						  enum th_hostcoll_algo algo,
						  void *const *send, void *const *recv);
/* th_hostcoll_create_local_algo() with TH_HOSTCOLL_TREE. */
struct th_hostcoll *th_hostcoll_create_local(struct th_vport *const *vps,
					     unsigned int n,
					     const struct th_coll_attr *attr,
					     void *const *send, void *const *recv);
/*
 * One process per rank: addresses are exchanged through @allgather, which
 * must also act as a barrier (th_boot_allgather() does).
 */
struct th_hostcoll *th_hostcoll_create(struct th_vport *vp, unsigned int rank,
				       unsigned int size, th_coll_allgather_fn allgather,
				       void *arg, const struct th_coll_attr *attr,
				       enum th_hostcoll_algo algo, void *send, void *recv);
/*
 * One whole Allreduce on every rank this process drives: returns when each
 * local rank holds the result in recv and its own PUTs have completed.
 * One process driving all ranks runs them in an order that cannot
 * deadlock (tree: leaves first up, root first down; recursive doubling:
 * step by step).
 */
int th_hostcoll_run(struct th_hostcoll *p, uint64_t timeout_ns);
void th_hostcoll_destroy(struct th_hostcoll *p);
/* "p2p-tree", "recdbl"; NULL for an unknown value. */
const char *th_hostcoll_algo_name(enum th_hostcoll_algo algo);

TH_API_END

#endif /* TH_HOSTCOLL_H */
