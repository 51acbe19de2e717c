// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * hostcoll.c - host-driven Allreduce baselines (thverbs/hostcoll.h): the
 * k-nomial tree of th_coll and MPICH's recursive doubling, with the host
 * waiting on counters, reducing on the CPU and posting a one-descriptor
 * PUT per message at the moment it is sent.
 *
 * Counters of a rank's vport (never reset after create: round k waits for
 * k times the per-round increments, so a fast peer's next round cannot be
 * mistaken for this one):
 *   R        tree: children's contributions arrived (nchild per round)
 *   B        tree: the result arrived from the parent (1 per round)
 *   PRE      recdbl: the extra even neighbour's send arrived
 *   RES      recdbl: the result arrived from the odd neighbour
 *   SENT     this rank's own PUTs completed (a source may be reused)
 *   STEP(s)  recdbl: the partner's partial result of step s arrived
 *
 * Round to round safety with one process per rank:
 *   tree    a child's next PUT follows its next run, which follows the
 *           result coming down, which follows the parent's reduction of
 *           its slot; the parent's next PUT into the child's recv follows
 *           the child's next contribution.
 *   recdbl  a partner reaches round k + 1's step s only after finishing
 *           round k, which needed this rank's step-s data of round k, sent
 *           after this rank finished round k - 1: two slot sets, by round
 *           parity, suffice.  PRE is consumed before RES is sent, and RES
 *           lands in recv after the even rank's next PUT.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "counters.h"
#include "group.h"
#include "th_alu.h"
#include <thverbs/hostcoll.h>
#include <thverbs/coll.h>
#include "thverbs_priv.h"

#define TH_HOSTCOLL_PASS		(TH_NIC_MAX_OPERANDS - 1)

/* A local rank: the group's, and what the host counts for it. */
struct th_hostcoll_rank {
	struct th_group_rank *gr;
	uint64_t sent;			/* PUTs posted: SENT's target */
	int newrank;			/* recdbl: in the power-of-two group, or -1 */
};

struct th_hostcoll {
	struct th_coll_attr attr;
	enum th_hostcoll_algo algo;
	struct th_group g;
	struct th_hostcoll_rank *local;
	unsigned int *up_order;		/* local ranks, deepest first */
	uint64_t slot_bytes;		/* bytes, at least one element */
	uint32_t esize;
	/* recursive doubling */
	unsigned int pof2, rem, nsteps;
	uint64_t round;			/* rounds run, including this one */
	uint64_t deadline;
	struct th_chain *c;
};

static uint64_t th_hostcoll_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* ---- scratch layout ------------------------------------------------------- */

/* tree: the partial result, then one slot per child */
static uint64_t th_hostcoll_tree_slot(const struct th_hostcoll *p, unsigned int j)
{
	return (1 + (uint64_t)j) * p->slot_bytes;
}

/* recdbl: the PRE slot, then two slots (by round parity) per step */
static uint64_t th_hostcoll_step_slot(const struct th_hostcoll *p, unsigned int s,
				      uint64_t round)
{
	return (1 + 2 * (uint64_t)s + (round & 1)) * p->slot_bytes;
}

static uint64_t th_hostcoll_scratch_bytes(const struct th_hostcoll *p,
					  const struct th_hostcoll_rank *rk)
{
	if (p->algo == TH_HOSTCOLL_TREE)
		return th_hostcoll_tree_slot(p, rk->gr->nchild);
	return th_hostcoll_step_slot(p, p->nsteps, 0);
}

/* ---- the host's moves ------------------------------------------------------ */

static int th_hostcoll_wait(struct th_hostcoll *p, struct th_hostcoll_rank *rk, uint16_t ct,
			    uint64_t threshold)
{
	uint64_t now = th_hostcoll_now_ns();

	/* past the deadline, still look once: a reached counter is no timeout */
	return th_ct_wait(rk->gr->vp, ct, threshold,
			  p->deadline > now ? p->deadline - now : 0);
}

/* A one-descriptor chain, posted now: PUT @len bytes to @to, raising @rct. */
static int th_hostcoll_put(struct th_hostcoll *p, struct th_hostcoll_rank *rk,
			   const struct th_mr *src, uint64_t soff, unsigned int to,
			   uint64_t key, uint64_t doff, uint16_t rct)
{
	struct th_remote dst = {
		.node = p->g.peers[to].node, .vport = p->g.peers[to].vport,
		.rkey = key, .off = doff,
	};
	int ret;

	th_chain_reset(p->c);
	ret = th_chain_put(p->c, src, soff, &dst, p->g.bytes, rct, 0);
	if (!ret)
		ret = th_chain_comp_ct(p->c, TH_HOSTCOLL_CT_SENT);
	if (!ret)
		ret = th_post_chain(rk->gr->vp, p->c);
	if (!ret)
		rk->sent++;
	return ret;
}

/* Every PUT this rank posted has read its source. */
static int th_hostcoll_drain(struct th_hostcoll *p, struct th_hostcoll_rank *rk)
{
	return th_hostcoll_wait(p, rk, TH_HOSTCOLL_CT_SENT, rk->sent);
}

/*
 * dst = src[0] op ... op src[n-1] on the CPU, at most 7 operands a pass;
 * the timed mode charges every operand byte read, dst again after the
 * first pass.
 */
static void th_hostcoll_reduce(struct th_hostcoll *p, void *dst, const void **src,
			       unsigned int nsrc)
{
	uint64_t bytes = (uint64_t)p->attr.count * p->esize;
	unsigned int done, k;

	if (!p->attr.count)
		return;
	k = nsrc < TH_NIC_MAX_OPERANDS ? nsrc : TH_NIC_MAX_OPERANDS;
	th_alu_reduce(p->attr.op, p->attr.dtype, dst, src, k, false,
		      p->attr.count);
	th_timed_cpu(k * bytes);
	for (done = k; done < nsrc; done += k) {
		k = nsrc - done < TH_HOSTCOLL_PASS ? nsrc - done : TH_HOSTCOLL_PASS;
		th_alu_reduce(p->attr.op, p->attr.dtype, dst, src + done, k,
			      true, p->attr.count);
		th_timed_cpu((k + 1) * bytes);
	}
}

/* ---- k-nomial tree ---------------------------------------------------------- */

/* Wait for the children, reduce in tree order, send up (or keep: root). */
static int th_hostcoll_tree_up(struct th_hostcoll *p, struct th_hostcoll_rank *rk)
{
	const void **src;
	unsigned int j;
	bool root = rk->gr->parent < 0;
	void *dst = root ? rk->gr->recv : rk->gr->scratch;
	int ret;

	if (!rk->gr->nchild && root) {
		memcpy(rk->gr->recv, rk->gr->send, p->g.bytes);
		return 0;
	}
	if (!rk->gr->nchild)
		return th_hostcoll_put(p, rk, rk->gr->send_mr, 0, rk->gr->parent,
				       p->g.peers[rk->gr->parent].scratch_key,
				       th_hostcoll_tree_slot(p, rk->gr->slot_at_parent),
				       TH_HOSTCOLL_CT_R);
	ret = th_hostcoll_wait(p, rk, TH_HOSTCOLL_CT_R, rk->gr->nchild * p->round);
	if (ret)
		return ret;
	src = malloc((1 + rk->gr->nchild) * sizeof(*src));
	if (!src)
		return -ENOMEM;
	src[0] = rk->gr->send;
	for (j = 0; j < rk->gr->nchild; j++)
		src[1 + j] = rk->gr->scratch + th_hostcoll_tree_slot(p, j);
	th_hostcoll_reduce(p, dst, src, 1 + rk->gr->nchild);
	free(src);
	if (root)
		return 0;
	return th_hostcoll_put(p, rk, rk->gr->scratch_mr, 0, rk->gr->parent,
			       p->g.peers[rk->gr->parent].scratch_key,
			       th_hostcoll_tree_slot(p, rk->gr->slot_at_parent), TH_HOSTCOLL_CT_R);
}

/* Wait for the result (root: have it), forward it to every child. */
static int th_hostcoll_tree_down(struct th_hostcoll *p, struct th_hostcoll_rank *rk)
{
	unsigned int j;
	int ret = 0;

	if (rk->gr->parent >= 0)
		ret = th_hostcoll_wait(p, rk, TH_HOSTCOLL_CT_B, p->round);
	for (j = 0; !ret && j < rk->gr->nchild; j++)
		ret = th_hostcoll_put(p, rk, rk->gr->recv_mr, 0, rk->gr->child[j],
				      p->g.peers[rk->gr->child[j]].recv_key, 0,
				      TH_HOSTCOLL_CT_B);
	return ret;
}

static int th_hostcoll_tree_run(struct th_hostcoll *p)
{
	unsigned int i;
	int ret = 0;

	/* bottom-up, then top-down: every wait is for work already posted */
	for (i = 0; !ret && i < p->g.nlocal; i++)
		ret = th_hostcoll_tree_up(p, &p->local[p->up_order[i]]);
	for (i = p->g.nlocal; !ret && i > 0; i--)
		ret = th_hostcoll_tree_down(p, &p->local[p->up_order[i - 1]]);
	return ret;
}

/* ---- recursive doubling ------------------------------------------------------- */

static unsigned int th_hostcoll_rd_real(const struct th_hostcoll *p, unsigned int newrank)
{
	return newrank < p->rem ? 2 * newrank + 1 : newrank + p->rem;
}

/* recv = (lower ranks' part) op (higher ranks' part) */
static void th_hostcoll_rd_combine(struct th_hostcoll *p, struct th_hostcoll_rank *rk,
				   const void *theirs, bool theirs_lower)
{
	const void *src[2];

	src[0] = theirs_lower ? theirs : rk->gr->recv;
	src[1] = theirs_lower ? rk->gr->recv : theirs;
	th_hostcoll_reduce(p, rk->gr->recv, src, 2);
}

static int th_hostcoll_rd_step(struct th_hostcoll *p, unsigned int s, bool post)
{
	unsigned int i, partner;
	uint64_t slot = th_hostcoll_step_slot(p, s, p->round);
	int ret = 0;

	for (i = 0; !ret && i < p->g.nlocal; i++) {
		struct th_hostcoll_rank *rk = &p->local[i];

		if (rk->newrank < 0)
			continue;
		partner = th_hostcoll_rd_real(p, rk->newrank ^ (1u << s));
		if (post) {
			ret = th_hostcoll_put(p, rk, rk->gr->recv_mr, 0, partner,
					      p->g.peers[partner].scratch_key, slot,
					      TH_HOSTCOLL_CT_STEP(s));
			continue;
		}
		/* recv is about to change: our PUT must have read it */
		ret = th_hostcoll_drain(p, rk);
		if (!ret)
			ret = th_hostcoll_wait(p, rk, TH_HOSTCOLL_CT_STEP(s), p->round);
		if (!ret)
			th_hostcoll_rd_combine(p, rk, rk->gr->scratch + slot,
					       partner < rk->gr->rank);
	}
	return ret;
}

/*
 * Each phase runs on every local rank before the next phase starts, so
 * one process driving all ranks never waits for a PUT not yet posted.
 */
static int th_hostcoll_rd_run(struct th_hostcoll *p)
{
	unsigned int i, s;
	int ret = 0;

	for (i = 0; !ret && i < p->g.nlocal; i++) {
		struct th_hostcoll_rank *rk = &p->local[i];

		/* the previous round's PUTs out of recv are long done */
		memcpy(rk->gr->recv, rk->gr->send, p->g.bytes);
		if (rk->gr->rank < 2 * p->rem && !(rk->gr->rank & 1))
			ret = th_hostcoll_put(p, rk, rk->gr->send_mr, 0, rk->gr->rank + 1,
					      p->g.peers[rk->gr->rank + 1].scratch_key, 0,
					      TH_HOSTCOLL_CT_PRE);
	}
	for (i = 0; !ret && i < p->g.nlocal; i++) {
		struct th_hostcoll_rank *rk = &p->local[i];

		if (rk->gr->rank < 2 * p->rem && (rk->gr->rank & 1)) {
			ret = th_hostcoll_wait(p, rk, TH_HOSTCOLL_CT_PRE, p->round);
			if (!ret)
				th_hostcoll_rd_combine(p, rk, rk->gr->scratch, true);
		}
	}
	for (s = 0; !ret && s < p->nsteps; s++) {
		ret = th_hostcoll_rd_step(p, s, true);
		if (!ret)
			ret = th_hostcoll_rd_step(p, s, false);
	}
	for (i = 0; !ret && i < p->g.nlocal; i++) {
		struct th_hostcoll_rank *rk = &p->local[i];

		if (rk->gr->rank < 2 * p->rem && (rk->gr->rank & 1))
			ret = th_hostcoll_put(p, rk, rk->gr->recv_mr, 0, rk->gr->rank - 1,
					      p->g.peers[rk->gr->rank - 1].recv_key, 0,
					      TH_HOSTCOLL_CT_RES);
	}
	for (i = 0; !ret && i < p->g.nlocal; i++) {
		struct th_hostcoll_rank *rk = &p->local[i];

		if (rk->gr->rank < 2 * p->rem && !(rk->gr->rank & 1))
			ret = th_hostcoll_wait(p, rk, TH_HOSTCOLL_CT_RES, p->round);
	}
	return ret;
}

/* ---- setup ------------------------------------------------------------------ */

static int th_hostcoll_check(const struct th_coll_attr *a, unsigned int n,
			     enum th_hostcoll_algo algo)
{
	if (!a || !n || a->root >= n || a->radix == 1 || algo >= TH_HOSTCOLL_ALGO_MAX)
		return -EINVAL;
	if (a->comp_mask)
		return -EOPNOTSUPP;	/* a field this library does not know */
	if (a->kind != TH_COLL_ALLREDUCE)
		return -EOPNOTSUPP;
	if (!th_alu_op_valid(a->op, a->dtype))
		return -EINVAL;
	return 0;
}

static struct th_hostcoll *th_hostcoll_alloc(const struct th_coll_attr *attr,
					     enum th_hostcoll_algo algo, unsigned int n,
					     unsigned int nlocal)
{
	struct th_hostcoll *p = calloc(1, sizeof(*p));
	unsigned int i;

	if (!p)
		return NULL;
	p->attr = *attr;
	if (!p->attr.radix)
		p->attr.radix = 4;
	p->algo = algo;
	p->esize = th_alu_dtype_size(attr->dtype);
	p->slot_bytes = attr->count ? (uint64_t)attr->count * p->esize : p->esize;
	for (p->pof2 = 1; 2 * p->pof2 <= n; p->pof2 *= 2)
		p->nsteps++;
	p->rem = n - p->pof2;
	p->local = calloc(nlocal, sizeof(*p->local));
	p->up_order = calloc(nlocal, sizeof(*p->up_order));
	p->c = th_chain_create();
	if (!p->local || !p->up_order || !p->c ||
	    th_group_init(&p->g, n, nlocal, attr->root, p->attr.radix,
			  (uint64_t)attr->count * p->esize)) {
		th_chain_destroy(p->c);
		free(p->up_order);
		free(p->local);
		free(p);
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < nlocal; i++)
		p->local[i].gr = &p->g.local[i];
	return p;
}

/* Local rank @li is @rank: tree, memory, counters clear, keys published. */
static int th_hostcoll_rank_init(struct th_hostcoll *p, unsigned int li,
				 unsigned int rank, struct th_vport *vp,
				 void *send, void *recv)
{
	static const uint16_t cts[] = { TH_HOSTCOLL_CT_R, TH_HOSTCOLL_CT_B, TH_HOSTCOLL_CT_PRE,
					TH_HOSTCOLL_CT_RES, TH_HOSTCOLL_CT_SENT };
	struct th_hostcoll_rank *rk = &p->local[li];
	unsigned int i;
	int ret;

	if (!vp || vp->info.ct_count < TH_HOSTCOLL_NEED_CTS)
		return -EINVAL;
	ret = th_group_rank_init(&p->g, rk->gr, rank, vp, send, recv);
	if (ret)
		return ret;
	if (rank < 2 * p->rem)
		rk->newrank = rank & 1 ? (int)(rank / 2) : -1;
	else
		rk->newrank = rank - p->rem;
	/* before anyone learns our keys, so no PUT can be counted twice */
	for (i = 0; i < sizeof(cts) / sizeof(cts[0]); i++) {
		ret = th_ct_set(vp, cts[i], 0, 0);
		if (ret)
			return ret;
	}
	for (i = 0; i < p->nsteps; i++) {
		ret = th_ct_set(vp, TH_HOSTCOLL_CT_STEP(i), 0, 0);
		if (ret)
			return ret;
	}
	return th_group_rank_register(&p->g, rk->gr,
				      th_hostcoll_scratch_bytes(p, rk));
}

/* Local ranks, deepest first (insertion sort: stable, n is small). */
static void th_hostcoll_order(struct th_hostcoll *p)
{
	unsigned int i, j, v;

	for (i = 0; i < p->g.nlocal; i++) {
		v = i;
		for (j = i; j > 0 && p->g.local[p->up_order[j - 1]].depth <
				     p->g.local[v].depth; j--)
			p->up_order[j] = p->up_order[j - 1];
		p->up_order[j] = v;
	}
}

void th_hostcoll_destroy(struct th_hostcoll *p)
{
	if (!p)
		return;
	/*
	 * Not collective: once th_hostcoll_run() returned, every PUT to this rank
	 * has landed and every PUT from it has completed.
	 */
	th_group_quiesce(&p->g);
	th_group_fini(&p->g);
	th_chain_destroy(p->c);
	free(p->up_order);
	free(p->local);
	free(p);
}

static struct th_hostcoll *th_hostcoll_fail(struct th_hostcoll *p, int err)
{
	th_hostcoll_destroy(p);
	errno = -err;
	return NULL;
}

struct th_hostcoll *
th_hostcoll_create_local_algo(struct th_vport *const *vps, unsigned int n,
			      const struct th_coll_attr *attr, enum th_hostcoll_algo algo,
			      void *const *send, void *const *recv)
{
	struct th_hostcoll *p;
	unsigned int r;
	int ret = th_hostcoll_check(attr, n, algo);

	if (!ret && !vps)
		ret = -EINVAL;
	if (ret) {
		errno = -ret;
		return NULL;
	}
	p = th_hostcoll_alloc(attr, algo, n, n);
	if (!p)
		return NULL;
	for (r = 0; !ret && r < n; r++)
		ret = th_hostcoll_rank_init(p, r, r, vps[r], send ? send[r] : NULL,
					    recv ? recv[r] : NULL);
	if (ret)
		return th_hostcoll_fail(p, ret);
	th_hostcoll_order(p);
	return p;
}

struct th_hostcoll *th_hostcoll_create_local(struct th_vport *const *vps,
					     unsigned int n,
					     const struct th_coll_attr *attr,
					     void *const *send,
					     void *const *recv)
{
	return th_hostcoll_create_local_algo(vps, n, attr, TH_HOSTCOLL_TREE, send, recv);
}

struct th_hostcoll *th_hostcoll_create(struct th_vport *vp, unsigned int rank,
				       unsigned int size,
				       th_coll_allgather_fn allgather,
				       void *arg,
				       const struct th_coll_attr *attr,
				       enum th_hostcoll_algo algo, void *send,
				       void *recv)
{
	struct th_hostcoll *p;
	int ret = th_hostcoll_check(attr, size, algo);

	if (!ret && (rank >= size || !allgather))
		ret = -EINVAL;
	if (ret) {
		errno = -ret;
		return NULL;
	}
	p = th_hostcoll_alloc(attr, algo, size, 1);
	if (!p)
		return NULL;
	p->g.allgather = allgather;
	p->g.allgather_arg = arg;
	/* a rank that failed still takes part in the exchange: all fail */
	ret = th_group_exchange(&p->g, th_hostcoll_rank_init(p, 0, rank, vp, send,
							     recv));
	if (ret)
		return th_hostcoll_fail(p, ret);
	th_hostcoll_order(p);
	return p;
}

int th_hostcoll_run(struct th_hostcoll *p, uint64_t timeout_ns)
{
	unsigned int i;
	int ret;

	if (!p)
		return -EINVAL;
	p->deadline = th_hostcoll_now_ns();
	/* a timeout too large to add means no deadline */
	p->deadline = timeout_ns > UINT64_MAX - p->deadline ? UINT64_MAX :
		      p->deadline + timeout_ns;
	p->round++;
	ret = p->algo == TH_HOSTCOLL_TREE ? th_hostcoll_tree_run(p) : th_hostcoll_rd_run(p);
	for (i = 0; !ret && i < p->g.nlocal; i++)
		ret = th_hostcoll_drain(p, &p->local[i]);
	return ret;
}

const char *th_hostcoll_algo_name(enum th_hostcoll_algo algo)
{
	switch (algo) {
	case TH_HOSTCOLL_TREE:
		return "p2p-tree";
	case TH_HOSTCOLL_RECDBL:
		return "recdbl";
	default:
		return NULL;
	}
}
