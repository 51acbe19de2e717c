// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * coll.c - offloaded Allreduce, Reduce and Broadcast over k-nomial trees,
 * compiled into a plan of re-arming chains (Documentation/collectives.rst,
 * plan.h).  A handle is persistent: created once (ranks, memory, exchange,
 * the plan posted), then each round is only the hosts' start increments.
 *
 * Counters of a rank's vport (counters.h):
 *   S     the host's start (one per round)
 *   F     segments finished on this rank, once per fan-out chain where a
 *         segment goes down to children; a chain raises D when it reaches
 *         th_coll_finishes() * k in round k (only where a round has more
 *         than one finish: th_coll_finish_ct())
 *   Y     Broadcast: this rank and its children are ready to receive
 *   D     rounds complete, what the host waits for (th_coll_wait())
 *   U(s)  segment s: contributions arrived (children's puts, own start)
 *   B(s)  segment s: the result (or broadcast data) may go down
 * Counters are never reset: every chain's threshold in round k is k times
 * its threshold in round 1, so each chain re-arms with that as its stride
 * and a peer's early next-round increments cannot fire this round twice.
 *
 * Round to round safety (no slot is overwritten before it is consumed):
 *   Allreduce  a child's next contribution follows its host's next start,
 *              which follows its completion, which follows the result
 *              coming down, which follows the parent's reduction;
 *   Reduce     a child completes only when its parent has reduced its
 *              contribution (a zero-byte PUT from the parent: the credit);
 *   Broadcast  a parent sends down only once its children's hosts have
 *              started the round (their ready PUTs raise its Y).
 * An Allreduce of two ranks in one segment is no tree but an exchange
 * (th_coll_exchange()): each rank sends the other its contribution; a
 * Broadcast of two ranks in one segment is sent before the leaf is ready,
 * into one of two slots (th_coll_eager_pair()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <thverbs/coll.h>
#include "counters.h"
#include "group.h"
#include "plan.h"
#include "thverbs_priv.h"
#include "th_engine.h"

#define TH_COLL_DEF_SEG_BYTES	(64 * 1024)
#define TH_COLL_PASS		(TH_NIC_MAX_OPERANDS - 1)

struct th_coll {
	struct th_coll_attr attr;
	struct th_group g;
	struct th_plan plan;
	uint32_t esize;
	uint32_t seg;		/* elements per segment */
	uint32_t nseg;
	uint32_t window;	/* segments in flight per child: slot sets */
	uint32_t max_chain;	/* the NIC's descriptors per chain */
	uint32_t cq_room, sq_room;	/* a vport's CQ and SQ entries */
	uint64_t started;	/* rounds started: the one being waited for */
	uint64_t *done;		/* per local rank: rounds seen complete */
	int broken;		/* a failed start: no further round */
	bool eager;		/* an eager Broadcast tree (th_coll_eager_tree()) */
};

/* ---- layout ----------------------------------------------------------- */

static uint64_t th_coll_seg_off(const struct th_coll *cl, uint32_t s)
{
	return (uint64_t)s * cl->seg * cl->esize;
}

static uint32_t th_coll_seg_count(const struct th_coll *cl, uint32_t s)
{
	uint64_t first = (uint64_t)s * cl->seg;

	if (first >= cl->attr.count)
		return 0;
	return cl->attr.count - first < cl->seg ? cl->attr.count - first : cl->seg;
}

/*
 * Scratch is bounded by the segment size, not the message: the partial
 * result (tmp) and each child's slot hold @window segments, segment s in
 * set s % window.  A child sends segment s + window only after its parent
 * has reduced segment s (the parent's credit, a zero-byte PUT).
 */
static uint64_t th_coll_seg_bytes(const struct th_coll *cl)
{
	return cl->g.bytes ? (uint64_t)cl->seg * cl->esize : cl->esize;
}

static uint64_t th_coll_tmp_off(const struct th_coll *cl, uint32_t s)
{
	return (s % cl->window) * th_coll_seg_bytes(cl);
}

static uint64_t th_coll_slot_off(const struct th_coll *cl, unsigned int j,
				 uint32_t s)
{
	return ((1 + (uint64_t)j) * cl->window + s % cl->window) *
	       th_coll_seg_bytes(cl);
}

/* the largest Broadcast sent eagerly: MPI libraries' eager limits are alike */
#define TH_COLL_EAGER_BYTES	8192

/*
 * Could this Broadcast be an eager tree (th_coll_eager_tree()), as far as
 * its shape says, before the peers are known: one segment of at most
 * TH_COLL_EAGER_BYTES, three ranks or more (two have
 * th_coll_eager_pair()), and no rank with more children than K counters
 * (the root has the most).  Every rank computes the same.
 */
static bool th_coll_eager_shape(const struct th_coll *cl)
{
	int root_children;

	if (cl->attr.kind != TH_COLL_BCAST || cl->nseg != 1 || cl->g.n < 3 ||
	    (uint64_t)th_coll_seg_count(cl, 0) * cl->esize > TH_COLL_EAGER_BYTES)
		return false;
	root_children = th_tree_children(cl->g.n, cl->attr.root,
					 cl->attr.radix, cl->attr.root, NULL, 0);
	return root_children > 0 && root_children <= TH_COLL_EAGER_MAX_CHILD;
}

static uint64_t th_coll_scratch_bytes(const struct th_coll *cl,
				      const struct th_group_rank *rk)
{
	/*
	 * two ranks: two copies of send, two slots for the peer's data,
	 * should the peer be behind a network (th_coll_pair_remote(),
	 * known only once the peers are exchanged, after this)
	 */
	if (cl->g.n == 2 && cl->nseg == 1 &&
	    cl->attr.kind != TH_COLL_REDUCE)
		return 4 * th_coll_seg_bytes(cl);
	/* an eager Broadcast's two slots and two copies a child, likewise */
	if (th_coll_eager_shape(cl))
		return (2 + 2 * (uint64_t)rk->nchild) * th_coll_seg_bytes(cl);
	return (1 + (uint64_t)rk->nchild) * cl->window * th_coll_seg_bytes(cl);
}

/* Contributions segment s waits for each round: children, own start, credit. */
static uint64_t th_coll_up_threshold(const struct th_coll *cl,
				     const struct th_group_rank *rk, uint32_t s)
{
	return rk->nchild + 1 + (rk->parent >= 0 && s >= cl->window);
}

static struct th_remote th_coll_remote(const struct th_coll *cl,
				       unsigned int rank, uint64_t key,
				       uint64_t off)
{
	struct th_remote r = {
		.node = cl->g.peers[rank].node, .vport = cl->g.peers[rank].vport,
		.rkey = key, .off = off,
	};
	return r;
}

/* PUTs per fan-out chain: the NIC's length less an F increment and REARM. */
static unsigned int th_coll_fanout(const struct th_coll *cl)
{
	return cl->max_chain > 3 ? cl->max_chain - 2 : 1;
}

/* ---- compilation into the plan ---------------------------------------- */

/*
 * Record the builder's chain for local rank @li on @ct: @threshold in
 * round 1, k times that in round k (the stride).
 */
static int th_coll_add(struct th_coll *cl, unsigned int li, uint16_t ct,
		       uint64_t threshold, const char *what)
{
	return th_plan_add(&cl->plan, li, ct, threshold, threshold, what);
}

/* dst = own send (+) slot[0] (+) ... slot[c-1], left to right, <= 7 a pass. */
static int th_coll_reduce(struct th_coll *cl, struct th_group_rank *rk,
			  uint32_t s, const struct th_mr *dst, uint64_t doff)
{
	const struct th_mr *src[TH_NIC_MAX_OPERANDS];
	uint64_t off[TH_NIC_MAX_OPERANDS], so = th_coll_seg_off(cl, s);
	uint32_t count = th_coll_seg_count(cl, s);
	struct th_chain *c = cl->plan.c;
	unsigned int done, n, i;
	int ret;

	n = rk->nchild < TH_COLL_PASS ? rk->nchild : TH_COLL_PASS;
	src[0] = rk->send_mr;
	off[0] = so;
	for (i = 0; i < n; i++) {
		src[i + 1] = rk->scratch_mr;
		off[i + 1] = th_coll_slot_off(cl, i, s);
	}
	ret = th_chain_reduce(c, cl->attr.op, cl->attr.dtype, count, dst,
			      doff, n + 1, src, off, false, 0);
	for (done = n; !ret && done < rk->nchild; done += n) {
		n = rk->nchild - done;
		n = n < TH_COLL_PASS ? n : TH_COLL_PASS;
		for (i = 0; i < n; i++) {
			src[i] = rk->scratch_mr;
			off[i] = th_coll_slot_off(cl, done + i, s);
		}
		ret = th_chain_reduce(c, cl->attr.op, cl->attr.dtype, count,
				      dst, doff, n, src, off, true, 0);
	}
	return ret;
}

static uint64_t th_coll_finishes(const struct th_coll *cl,
				 const struct th_group_rank *rk);

/*
 * The counter a finish of a rank raises, for a rank whose round ends
 * with @finishes of them (th_coll_finishes()).  The host waits for D,
 * the rounds complete (th_coll_wait()).  With one finish a round, that
 * finish raises D itself; with several, each raises F and one chain on F
 * raises D once all are in.  A software NIC pays a firing, a run and a
 * re-arm for a chain that would only pass the one increment on.  Not in
 * an eager tree, whose credit to the parent waits on F too.
 */
static uint16_t th_coll_finish_ct(const struct th_coll *cl, uint64_t finishes)
{
	return finishes == 1 && !cl->eager ? TH_COLL_CT_D : TH_COLL_CT_F;
}

/* ... of local rank @rk */
static uint16_t th_coll_rank_finish_ct(const struct th_coll *cl,
				       const struct th_group_rank *rk)
{
	return th_coll_finish_ct(cl, th_coll_finishes(cl, rk));
}

/*
 * ... of a leaf, or of any rank of a Reduce, which may be a peer in
 * another process: those finish once per segment (th_coll_finishes()),
 * so every process decides alike from the segment count.
 */
static uint16_t th_coll_seg_finish_ct(const struct th_coll *cl)
{
	return th_coll_finish_ct(cl, cl->nseg);
}

/*
 * End the fan-out chain being built (the plan's one): when @finish, with
 * this rank's finish (th_coll_rank_finish_ct()).
 */
static int th_coll_fan_end(struct th_coll *cl, unsigned int li, uint16_t ct,
			   uint64_t threshold, bool finish, const char *what)
{
	int ret = 0;

	if (finish)
		ret = th_chain_ct_inc(cl->plan.c,
				      th_coll_rank_finish_ct(cl, &cl->g.local[li]),
				      1, 0);
	return ret ? ret : th_coll_add(cl, li, ct, threshold, what);
}

/*
 * A chain per child costs CQ room (each pending chain holds an entry) and
 * SQ room (three descriptors where a batch spends one a child): @rk's
 * children get theirs only while its plan keeps within half of each, so
 * that a message of many segments to many children still fits its vport
 * (in one chain per th_coll_fanout() children, as before).
 */
static bool th_coll_split_fits(const struct th_coll *cl,
			       const struct th_group_rank *rk)
{
	uint64_t fans = cl->nseg + (cl->nseg > cl->window ?
				    cl->nseg - cl->window : 0);
	uint64_t chains = fans * rk->nchild + 2 * (uint64_t)cl->nseg + 8;
	uint64_t descs = 3 * fans * rk->nchild + 4 * (uint64_t)cl->nseg + 32;

	return 2 * chains <= cl->cq_room && 2 * descs <= cl->sq_room;
}

/*
 * Is child @ch behind a network from @rk (ops->node_remote)?  A PUT there
 * is a message, and its chain waits a round trip for the answer before
 * its next descriptor: such a child gets a chain of its own, so that a
 * parent serves its children at once, not one round trip after another.
 * A described plan stands for ranks on NICs of their own: all remote.
 */
static bool th_coll_child_remote(const struct th_coll *cl,
				 const struct th_group_rank *rk, unsigned int ch)
{
	const struct th_provider_ops *ops;

	if (!th_coll_split_fits(cl, rk))
		return false;
	if (cl->g.described)
		return true;
	ops = rk->vp->ctx->dev.ops;
	return ops->node_remote && ops->node_remote(rk->vp, cl->g.peers[ch].node);
}

/*
 * The chains a fan-out to @rk's children takes: one per remote child, the
 * others th_coll_fanout() a chain.  Each of them raises F once when it
 * finishes a segment, so this is also F's count per segment below.
 */
static unsigned int th_coll_fan_chains(const struct th_coll *cl,
				       const struct th_group_rank *rk)
{
	unsigned int j, remote = 0, fanout = th_coll_fanout(cl);

	for (j = 0; j < rk->nchild; j++)
		remote += th_coll_child_remote(cl, rk, rk->child[j]);
	return remote + (rk->nchild - remote + fanout - 1) / fanout;
}

/*
 * Does the root @rk finish a round before its children have answered its
 * PUTs of the result (Allreduce) or the data (Broadcast)?  A PUT to a
 * child behind a network is answered a round trip after it leaves, and a
 * fan-out chain raising F after it made the root, at N <= radix the
 * slowest rank, complete one round trip after the last child got the
 * data (3 one-way messages where a leaf takes 2).  Instead such a root
 * of a one-segment message sends from its scratch (tmp, otherwise unused
 * on a root): the Allreduce root reduces into it, the Broadcast root
 * copies its send buffer there; its fan-out chains PUT from there and
 * raise nothing, and one more chain, posted after them on the same
 * counter, copies tmp into recv and raises F.  The round ends once the
 * PUTs are issued and the copy is made, and the host may reuse its
 * buffers at once.  tmp is written again only in the next round once
 * every child has started it (Allreduce: its contribution; Broadcast:
 * its ready PUT), which a child does once it has this round's data.  The
 * copy into recv is off the children's path: the PUTs go first.  A PUT
 * that fails still fails its chain (and leaves the child waiting); the
 * root's own result is complete either way.
 */
static bool th_coll_early_root(const struct th_coll *cl,
			       const struct th_group_rank *rk)
{
	unsigned int j;

	if (cl->attr.kind == TH_COLL_REDUCE || rk->parent >= 0 ||
	    !rk->nchild || cl->nseg != 1)
		return false;
	for (j = 0; j < rk->nchild; j++)
		if (th_coll_child_remote(cl, rk, rk->child[j]))
			return true;
	return false;
}

/*
 * Does the root @rk send the result (Allreduce) or the data (Broadcast)
 * to its children from the chain that makes it, its reduction or its
 * copy into recv?  Those raised B(0) (Allreduce) or shared its trigger
 * (Broadcast) for a fan-out chain of their own: a chain more a round, on
 * every round's path, for a software NIC a firing and a re-arm.  With one
 * segment, no child behind a network (an early root's PUTs need chains
 * of their own) and room in one chain for the reduction's passes (one,
 * and one more per TH_COLL_PASS children past the first TH_COLL_PASS) or
 * the copy, a PUT per child, the round's end (D) and the REARM.
 */
static bool th_coll_root_fans_out(const struct th_coll *cl,
				  const struct th_group_rank *rk)
{
	unsigned int make = 1;

	if (rk->parent >= 0 || cl->attr.kind == TH_COLL_REDUCE ||
	    !rk->nchild || cl->nseg != 1 || th_coll_early_root(cl, rk))
		return false;
	if (cl->attr.kind == TH_COLL_ALLREDUCE && rk->nchild > TH_COLL_PASS)
		make += (rk->nchild - 1) / TH_COLL_PASS;
	return make + rk->nchild + 2 <= cl->max_chain;
}

/*
 * Is rank @r behind a network from this process's first rank (the
 * provider's node_remote; every rank of a described plan)?  Known once
 * the peers are exchanged.
 */
static bool th_coll_rank_remote(const struct th_coll *cl, unsigned int r)
{
	const struct th_group_rank *rk = &cl->g.local[0];
	const struct th_provider_ops *ops;

	if (cl->g.described)
		return true;
	if (!rk->vp)
		return false;
	ops = rk->vp->ctx->dev.ops;
	return ops->node_remote && ops->node_remote(rk->vp, cl->g.peers[r].node);
}

/*
 * Two ranks in one segment, behind a network from each other (each in
 * its own process over libfabric; every rank of a described plan): the
 * plans of th_coll_exchange() and th_coll_eager_pair().  They save a
 * message's latency, which only a network has: on one fabric, where a
 * delivery is done once posted, their extra copies and chains cost more
 * than they save (an 8-byte Allreduce of two threads, 5 to 6 us instead
 * of 3 to 5; one process driving both, 0.9 us instead of 0.7), so ranks
 * there keep the tree.  Both ranks decide alike: each is remote to the
 * other.  Known only once the peers are exchanged; scratch is sized for
 * it before (th_coll_scratch_bytes()).
 */
static bool th_coll_pair_remote(const struct th_coll *cl)
{
	if (cl->g.n != 2 || cl->nseg != 1 || !cl->g.peers)
		return false;
	return th_coll_rank_remote(cl, 1 - cl->g.local[0].rank);
}

/*
 * Is rank @r a leaf of an Allreduce's or a Broadcast's tree?  A leaf has
 * nothing to forward: each segment its parent PUTs into its recv is a
 * finish of the leaf's (F, or with one segment D:
 * th_coll_seg_finish_ct()), raised by the PUT itself, where a chain on
 * B(s) would only pass the increment on.  Parent and leaf decide alike,
 * from the tree.
 */
static bool th_coll_leaf_done_on_arrival(const struct th_coll *cl,
					 unsigned int r)
{
	return cl->attr.kind != TH_COLL_REDUCE && r != cl->g.root &&
	       !th_tree_children(cl->g.n, cl->g.root, cl->g.radix, r, NULL, 0);
}

/*
 * Chains, each on @ct >= @threshold, that PUT @len bytes from @src at
 * @soff to every child (@key and @doff on the child), raising @rct there;
 * each also raises F here when @finish (th_coll_fan_chains() of them).
 * With @cont, the first children's PUTs go on the end of the chain being
 * built (th_coll_root_fans_out()), which the caller made sure has room.
 */
static int th_coll_fan_out(struct th_coll *cl, unsigned int li, uint16_t ct,
			   uint64_t threshold, const struct th_mr *src,
			   uint64_t soff, uint64_t len, bool recv_key,
			   uint64_t doff, uint16_t rct, bool finish, bool cont,
			   const char *what)
{
	struct th_group_rank *rk = &cl->g.local[li];
	unsigned int j, in_batch = 0, fanout = th_coll_fanout(cl);
	struct th_chain *batch = cont ? cl->plan.c : NULL, *c;
	struct th_remote to;
	int ret = 0;

	/* children come by growing subtree (tree.c): the largest goes first */
	for (j = rk->nchild; !ret && j-- > 0;) {
		unsigned int ch = rk->child[j];
		uint64_t key = recv_key ? cl->g.peers[ch].recv_key :
				cl->g.peers[ch].scratch_key;
		bool alone = th_coll_child_remote(cl, rk, ch);

		/* the plan builds one chain at a time: a remote child's is
		 * made whole between two batches of local ones */
		if (alone && batch) {
			ret = th_coll_fan_end(cl, li, ct, threshold, finish, what);
			batch = NULL;
			in_batch = 0;
		}
		c = batch ? batch : th_plan_chain(&cl->plan);
		to = th_coll_remote(cl, ch, key, doff);
		/* the data going down (into recv) to a leaf: its finish */
		if (!ret)
			ret = th_chain_put(c, src, soff, &to, len,
					   recv_key &&
					   th_coll_leaf_done_on_arrival(cl, ch) ?
					   th_coll_seg_finish_ct(cl) : rct, 0);
		if (!ret && (alone || ++in_batch == fanout)) {
			ret = th_coll_fan_end(cl, li, ct, threshold, finish, what);
			batch = NULL;
			in_batch = 0;
		} else {
			batch = c;
		}
	}
	if (!ret && batch)
		ret = th_coll_fan_end(cl, li, ct, threshold, finish, what);
	return ret;
}

/* The host's start raises @ct(s) of every segment (max_chain - 1 a chain). */
static int th_coll_start_fan(struct th_coll *cl, unsigned int li, bool up)
{
	uint32_t s = 0, in_chain;
	struct th_chain *c;
	int ret = 0;

	while (!ret && s < cl->nseg) {
		c = th_plan_chain(&cl->plan);
		for (in_chain = 0; !ret && s < cl->nseg &&
		     in_chain + 1 < cl->max_chain; s++, in_chain++)
			ret = th_chain_ct_inc(c, up ? TH_COLL_CT_U(s) :
					      TH_COLL_CT_B(s), 1, 0);
		if (!ret)
			ret = th_coll_add(cl, li, TH_COLL_CT_S, 1,
					  up ? "start: count own contribution" :
					  "start: release the data");
	}
	return ret;
}

static int th_coll_compile_up(struct th_coll *cl, unsigned int li, uint32_t s)
{
	struct th_group_rank *rk = &cl->g.local[li];
	uint64_t so = th_coll_seg_off(cl, s), to_off = th_coll_tmp_off(cl, s);
	uint64_t len = (uint64_t)th_coll_seg_count(cl, s) * cl->esize;
	uint64_t thr = th_coll_up_threshold(cl, rk, s);
	struct th_chain *c = th_plan_chain(&cl->plan);
	bool root = rk->parent < 0;
	bool early = th_coll_early_root(cl, rk);
	const char *what = NULL;
	struct th_remote to;
	int ret = 0;

	/* an early root reduces into tmp, and copies to recv beside its PUTs */
	if (rk->nchild)
		ret = th_coll_reduce(cl, rk, s, root && !early ? rk->recv_mr :
				     rk->scratch_mr, root && !early ? so : to_off);
	else if (root)
		ret = th_chain_copy(c, rk->send_mr, so, rk->recv_mr, so, len, 0);
	if (!ret && !root) {
		to = th_coll_remote(cl, rk->parent,
				    cl->g.peers[rk->parent].scratch_key,
				    th_coll_slot_off(cl, rk->slot_at_parent, s));
		ret = th_chain_put(c, rk->nchild ? rk->scratch_mr : rk->send_mr,
				   rk->nchild ? to_off : so, &to, len,
				   TH_COLL_CT_U(s), 0);
		what = rk->nchild ? "reduce with the children's, put to the parent" :
		       "put own contribution to the parent";
	} else if (!ret && th_coll_root_fans_out(cl, rk)) {
		/* the root's one chain: reduce, and the result down */
		return th_coll_fan_out(cl, li, TH_COLL_CT_U(s), thr,
				       rk->recv_mr, so, len, true, so,
				       TH_COLL_CT_B(s), true, true,
				       "reduce into the result, send it to the children: round complete");
	} else if (!ret) {
		/* the root: Reduce is done here, Allreduce goes down */
		ret = th_chain_ct_inc(c, cl->attr.kind == TH_COLL_REDUCE ?
				      th_coll_rank_finish_ct(cl, rk) :
				      TH_COLL_CT_B(s), 1, 0);
		what = cl->attr.kind == TH_COLL_REDUCE ? "reduce into the result" :
		       "reduce into the result, release it down";
	}
	if (!ret)
		ret = th_coll_add(cl, li, TH_COLL_CT_U(s), thr, what);
	/* the slots of segment s are free: children may send s + window */
	if (!ret && rk->nchild && s + cl->window < cl->nseg)
		ret = th_coll_fan_out(cl, li, TH_COLL_CT_U(s), thr,
				      rk->scratch_mr, 0, 0, false, 0,
				      TH_COLL_CT_U(s + cl->window), false, false,
				      "credit: children may send the next window");
	/* Reduce: the credit that lets each child complete (zero bytes) */
	if (!ret && cl->attr.kind == TH_COLL_REDUCE && rk->nchild)
		ret = th_coll_fan_out(cl, li, TH_COLL_CT_U(s), thr,
				      rk->scratch_mr, 0, 0, false, 0,
				      th_coll_seg_finish_ct(cl), false, false,
				      "credit: children's contributions consumed");
	return ret;
}

/* Broadcast: ready PUTs up, and the data released once all are ready. */
static int th_coll_compile_ready(struct th_coll *cl, unsigned int li)
{
	struct th_group_rank *rk = &cl->g.local[li];
	struct th_chain *c = th_plan_chain(&cl->plan);
	bool root = rk->parent < 0;
	struct th_remote to;
	uint32_t s;
	int ret = 0;

	if (root) {
		ret = th_chain_ct_inc(c, TH_COLL_CT_Y, 1, 0);
	} else {
		to = th_coll_remote(cl, rk->parent,
				    cl->g.peers[rk->parent].scratch_key, 0);
		ret = th_chain_put(c, rk->scratch_mr, 0, &to, 0, TH_COLL_CT_Y, 0);
		if (!ret && rk->nchild)
			ret = th_chain_ct_inc(c, TH_COLL_CT_Y, 1, 0);
	}
	if (!ret)
		ret = th_coll_add(cl, li, TH_COLL_CT_S, 1,
				  "start: ready to receive");
	/* once all are ready, the data may go down (root: from send) */
	if (!ret && rk->nchild) {
		c = th_plan_chain(&cl->plan);
		for (s = 0; !ret && s < cl->nseg; s++) {
			ret = th_chain_ct_inc(c, TH_COLL_CT_B(s), 1, 0);
			if (!ret && (th_chain_length(c) + 1 == cl->max_chain ||
				     s + 1 == cl->nseg)) {
				ret = th_coll_add(cl, li, TH_COLL_CT_Y,
						  rk->nchild + 1,
						  "children ready: release the data");
				c = th_plan_chain(&cl->plan);
			}
		}
	}
	if (!ret && root && !rk->nchild)
		ret = th_coll_start_fan(cl, li, false);
	return ret;
}

/* Down: forward what arrived in recv (or the root's send) to the children. */
static int th_coll_compile_down(struct th_coll *cl, unsigned int li, uint32_t s)
{
	struct th_group_rank *rk = &cl->g.local[li];
	enum th_coll_kind kind = cl->attr.kind;
	uint64_t so = th_coll_seg_off(cl, s);
	uint64_t len = (uint64_t)th_coll_seg_count(cl, s) * cl->esize;
	bool early = th_coll_early_root(cl, rk);
	bool root = rk->parent < 0;
	uint64_t thr = 1;
	struct th_chain *c;
	int ret = 0;

	if (kind == TH_COLL_BCAST && !root && rk->nchild)
		thr = 2;	/* data arrived and children ready */
	/* the Allreduce root sent the result from its reduction's chain */
	if (kind == TH_COLL_ALLREDUCE && th_coll_root_fans_out(cl, rk))
		return 0;
	if (kind == TH_COLL_BCAST && th_coll_root_fans_out(cl, rk)) {
		c = th_plan_chain(&cl->plan);
		ret = th_chain_copy(c, rk->send_mr, so, rk->recv_mr, so, len, 0);
		return ret ? ret :
		       th_coll_fan_out(cl, li, TH_COLL_CT_B(s), thr,
				       rk->recv_mr, so, len, true, so,
				       TH_COLL_CT_B(s), true, true,
				       "copy the data into the result, send it to the children: round complete");
	}
	if (kind == TH_COLL_BCAST && root) {
		c = th_plan_chain(&cl->plan);
		if (early)
			ret = th_chain_copy(c, rk->send_mr, so, rk->scratch_mr,
					    th_coll_tmp_off(cl, s), len, 0);
		else
			ret = th_chain_copy(c, rk->send_mr, so, rk->recv_mr, so,
					    len, 0);
		if (!ret)
			ret = th_coll_add(cl, li, TH_COLL_CT_B(s), 1, early ?
					  "copy the data into scratch" :
					  "copy the data into the result");
	}
	if (!ret && early) {
		ret = th_coll_fan_out(cl, li, TH_COLL_CT_B(s), thr,
				      rk->scratch_mr, th_coll_tmp_off(cl, s),
				      len, true, so, TH_COLL_CT_B(s), false, false,
				      "send the result to the children");
		c = th_plan_chain(&cl->plan);
		if (!ret)
			ret = th_chain_copy(c, rk->scratch_mr,
					    th_coll_tmp_off(cl, s), rk->recv_mr,
					    so, len, 0);
		if (!ret)
			ret = th_chain_ct_inc(c, th_coll_rank_finish_ct(cl, rk),
					      1, 0);
		return ret ? ret : th_coll_add(cl, li, TH_COLL_CT_B(s), thr,
					       "copy the result into recv: done");
	}
	if (!ret && rk->nchild)
		return th_coll_fan_out(cl, li, TH_COLL_CT_B(s), thr, rk->recv_mr,
				       so, len, true, so, TH_COLL_CT_B(s), true,
				       false, th_coll_rank_finish_ct(cl, rk) ==
				       TH_COLL_CT_D ?
				       "forward the result to the children: round complete" :
				       "forward the result to the children");
	/* a leaf's parent raises its finish (th_coll_leaf_done_on_arrival()) */
	if (!ret && !th_coll_leaf_done_on_arrival(cl, rk->rank)) {
		c = th_plan_chain(&cl->plan);
		ret = th_chain_ct_inc(c, th_coll_rank_finish_ct(cl, rk), 1, 0);
		if (!ret)
			ret = th_coll_add(cl, li, TH_COLL_CT_B(s), thr,
					  "the result arrived");
	}
	return ret;
}

/*
 * An Allreduce of two ranks in one segment is an exchange, not a tree:
 * each rank PUTs its contribution to the other and reduces both itself,
 * so a round takes one one-way message where the tree's leaf waits for
 * two (its contribution up, the result down) and the root for one.  Two
 * sets of buffers in scratch, used by odd and even rounds: tmp(p), the
 * copy of send that the PUT reads (a PUT may read its source after the
 * round ended here, as an RMA write or a verbs NIC's DMA does), and
 * slot(p), where the peer's contribution lands; each set has its own two
 * chains, re-arming every second round.  No credit is needed:
 *   slot(p)  the peer's PUT of round k + 2 follows its round k + 1, which
 *            needs this rank's PUT of k + 1, sent at this rank's start of
 *            k + 1, after its round k (the reduce of slot(p)) completed;
 *   tmp(p)   this rank's copy of round k + 2 follows its round k + 1,
 *            which needs the peer's PUT of k + 1, which the peer sent
 *            after its round k had this rank's PUT of k from tmp(p).
 * Both ranks reduce the root's contribution first, as the tree's root
 * does: the result is the same bytes on both and as the tree's (MAX and
 * MIN keep the first NaN and the earlier of -0.0 and +0.0).
 */
static bool th_coll_exchange(const struct th_coll *cl)
{
	return cl->attr.kind == TH_COLL_ALLREDUCE && th_coll_pair_remote(cl);
}

/*
 * A Broadcast of two ranks in one segment is sent eagerly: the root
 * sends round k as soon as its host started it, into one of two slots at
 * the leaf, instead of waiting for the leaf's host to say it is ready
 * (a round trip: the leaf's ready PUT up, then the data down).  The
 * leaf's chain copies the slot into recv once its host started the round
 * and the data is there, and then tells the root it consumed it (a
 * zero-byte PUT raising the root's Y): the credit.  The root sends round
 * k once its host started round k and the leaf consumed round k - 2,
 * whose slot round k takes.  Counters weigh the host's start twice:
 *   root  Y = 2 starts + rounds the leaf consumed; round k on Y >= 3k - 2.
 *         Then starts >= k (the leaf cannot have consumed past k - 1) and
 *         the leaf consumed at least k - 2.
 *   leaf  U(0) = 2 starts + rounds arrived; round k on U(0) >= 3k.  Then
 *         starts >= k (no more than k + 1 rounds can have arrived: the
 *         root sends k + 2 only once the leaf consumed k) and round k
 *         arrived.
 * The root's chain of round k copies send into its tmp(p) (a PUT may
 * read its source after the round ended, when the host may write send
 * again) and into recv, raises F, and then PUTs tmp(p): its round does
 * not wait for the PUT's answer.  One chain, not a second on the same
 * trigger for the copy into recv and F: a chain still waiting for the
 * answer of round k - 2 is not armed yet, and the round would end (the
 * host then writing send) before its copy of send.  tmp(p) is written
 * again in round k + 2, once the leaf consumed round k, which that PUT
 * delivered.  The leaf's chain copies the slot into recv and raises F;
 * a second on the same trigger, which runs after it, sends the credit
 * (late if it still waits for its last answer: the root then waits).
 */
static bool th_coll_eager_pair(const struct th_coll *cl)
{
	return cl->attr.kind == TH_COLL_BCAST && th_coll_pair_remote(cl);
}

static int th_coll_compile_eager_pair(struct th_coll *cl, unsigned int li)
{
	struct th_group_rank *rk = &cl->g.local[li];
	unsigned int peer = 1 - rk->rank;
	bool root = rk->rank == cl->attr.root;
	uint64_t len = (uint64_t)th_coll_seg_count(cl, 0) * cl->esize;
	uint64_t b = th_coll_seg_bytes(cl), first, tmp, slot;
	uint16_t wait = root ? TH_COLL_CT_Y : TH_COLL_CT_U(0);
	struct th_remote to;
	struct th_chain *c;
	int ret;

	/* the host's start counts twice */
	c = th_plan_chain(&cl->plan);
	ret = th_chain_ct_inc(c, wait, 2, 0);
	if (!ret)
		ret = th_coll_add(cl, li, TH_COLL_CT_S, 1, root ?
				  "start: count it toward the send" :
				  "start: count it toward the copy");
	/* odd rounds (round 1 first), then even ones */
	for (first = 1; !ret && first <= 2; first++) {
		tmp = (first - 1) * b;
		slot = (first + 1) * b;
		c = th_plan_chain(&cl->plan);
		if (root) {
			to = th_coll_remote(cl, peer,
					    cl->g.peers[peer].scratch_key, slot);
			ret = th_chain_copy(c, rk->send_mr, 0, rk->scratch_mr,
					    tmp, len, 0);
			if (!ret)
				ret = th_chain_copy(c, rk->send_mr, 0,
						    rk->recv_mr, 0, len, 0);
			if (!ret)
				ret = th_chain_ct_inc(c,
						      th_coll_rank_finish_ct(cl, rk),
						      1, 0);
			if (!ret)
				ret = th_chain_put(c, rk->scratch_mr, tmp, &to,
						   len, TH_COLL_CT_U(0), 0);
			if (!ret)
				ret = th_plan_add(&cl->plan, li, wait,
						  3 * first - 2, 6,
						  "send the data to the leaf and into recv: done");
			continue;
		}
		ret = th_chain_copy(c, rk->scratch_mr, slot, rk->recv_mr, 0,
				    len, 0);
		if (!ret)
			ret = th_chain_ct_inc(c, th_coll_rank_finish_ct(cl, rk),
					      1, 0);
		if (!ret)
			ret = th_plan_add(&cl->plan, li, wait, 3 * first, 6,
					  "copy the data into recv: done");
		/*
		 * then, on the same trigger (chains run in the order posted),
		 * the credit: the slot is free once copied
		 */
		c = th_plan_chain(&cl->plan);
		to = th_coll_remote(cl, peer, cl->g.peers[peer].scratch_key, 0);
		if (!ret)
			ret = th_chain_put(c, rk->scratch_mr, 0, &to, 0,
					   TH_COLL_CT_Y, 0);
		/* answered: the root has it (th_coll_credits_wait()) */
		if (!ret)
			ret = th_chain_ct_inc(c, TH_COLL_CT_C, 1, 0);
		if (!ret)
			ret = th_plan_add(&cl->plan, li, wait, 3 * first, 6,
					  "credit the root: the slot is free");
	}
	return ret;
}

/*
 * A Broadcast of one small segment (th_coll_eager_shape()) among ranks
 * each behind a network from every other (each in its own process over
 * libfabric; every rank of a described plan) is sent eagerly down the
 * tree, as th_coll_eager_pair() sends it to one leaf: a parent sends
 * round k into one of two slots at each child as soon as it has the data,
 * without waiting for the child's host to say it is ready, and a child
 * tells its parent (a zero-byte PUT: the credit) once it no longer needs
 * the slot.  So a child whose host starts late finds the data there, and
 * no rank's round waits for another's host: with a busy-polling MPI
 * barrier between the calls, the ready protocol (th_coll_compile_ready())
 * waited for each parent's next time slice.  Providers host a job's ranks
 * either all on one fabric or each on its own, so every rank decides
 * alike (set once the peers are known, in th_coll_compile()).
 *
 * Rank r with children c_0 .. c_(m-1); round k uses slot(p) and tmp_j(p),
 * p = k's parity; src is the root's send, or slot(p) elsewhere:
 *   gate     the root: on its start (S >= k); the others: on U(0) = 2
 *            starts + rounds arrived >= 3k, which means started round k
 *            and round k arrived (as the pair's leaf: at most k + 1 can
 *            have arrived, the parent sends k + 2 only after this rank's
 *            credit of k).  Copies src into recv, raises F, and raises
 *            each child's K(j) by 2.
 *   child j  on K(j) = 2 gates + the child's credits >= 3k - 2: the gate
 *            of round k fired and the child consumed round k - 2, whose
 *            slot round k takes (gate k + 1 needs this round complete, so
 *            the gates are at most k; the credits at most k - 1).  Copies
 *            src into tmp_j(p) (a PUT may read its source after the round
 *            ended; the child's credit of k says the PUT of k was read,
 *            and tmp_j(p) is written again only in round k + 2), raises
 *            F, and PUTs tmp_j(p) into the child's slot(p), raising its
 *            U(0).  A chain per child: each PUT waits for its answer.
 *   round    F = m + 1 a round: recv and every child's copy made; D
 *            rises; then, but for the root, the credit to the parent:
 *            slot(p) was copied everywhere it goes.
 * One K counter per child, not one for all children: a sum of credits
 * would let one child two rounds ahead stand for another two behind.  The
 * root's round waits for no host, only for its children's credits of two
 * rounds before (a host never more than two rounds ahead of its child).
 */
static bool th_coll_eager_tree(const struct th_coll *cl)
{
	return cl->eager;
}

/* Decided once the peers are exchanged (th_coll_compile()). */
static bool th_coll_eager_decide(const struct th_coll *cl)
{
	unsigned int r;

	if (!th_coll_eager_shape(cl) || !cl->g.peers)
		return false;
	for (r = 0; r < cl->g.n; r++)
		if (r != cl->g.local[0].rank && !th_coll_rank_remote(cl, r))
			return false;
	return true;
}

static uint64_t th_coll_eager_slot(const struct th_coll *cl, uint64_t first)
{
	return (first - 1) * th_coll_seg_bytes(cl);
}

static uint64_t th_coll_eager_tmp(const struct th_coll *cl, unsigned int j,
				  uint64_t first)
{
	return (2 + 2 * (uint64_t)j + first - 1) * th_coll_seg_bytes(cl);
}

/* Record the gate chain being built: the root's start, or round parity @first. */
static int th_coll_eager_gate_add(struct th_coll *cl, unsigned int li,
				  bool root, uint64_t first)
{
	const char *what = "the data into recv, release it to the children";

	if (root)
		return th_coll_add(cl, li, TH_COLL_CT_S, 1, what);
	return th_plan_add(&cl->plan, li, TH_COLL_CT_U(0), 3 * first, 6, what);
}

static int th_coll_compile_eager_tree(struct th_coll *cl, unsigned int li)
{
	struct th_group_rank *rk = &cl->g.local[li];
	uint64_t len = (uint64_t)th_coll_seg_count(cl, 0) * cl->esize;
	bool root = rk->parent < 0;
	const struct th_mr *src;
	struct th_remote to;
	struct th_chain *c;
	uint64_t first, sent;
	unsigned int j;
	int ret = 0;

	/* the host's start counts twice */
	if (!root) {
		c = th_plan_chain(&cl->plan);
		ret = th_chain_ct_inc(c, TH_COLL_CT_U(0), 2, 0);
		if (!ret)
			ret = th_coll_add(cl, li, TH_COLL_CT_S, 1,
					  "start: count it toward the copy");
	}
	src = root ? rk->send_mr : rk->scratch_mr;
	/* the gate: the root's every round; the others' by parity */
	for (first = 1; !ret && first <= (root ? 1 : 2); first++) {
		c = th_plan_chain(&cl->plan);
		ret = th_chain_copy(c, src, root ? 0 : th_coll_eager_slot(cl, first),
				    rk->recv_mr, 0, len, 0);
		if (!ret)
			ret = th_chain_ct_inc(c, TH_COLL_CT_F, 1, 0);
		/* children come by growing subtree (tree.c): the largest first */
		for (j = rk->nchild; !ret && j-- > 0;) {
			/* more children than a chain holds: another on the trigger */
			if (th_chain_length(c) + 1 == cl->max_chain) {
				ret = th_coll_eager_gate_add(cl, li, root, first);
				c = th_plan_chain(&cl->plan);
			}
			if (!ret)
				ret = th_chain_ct_inc(c, TH_COLL_CT_K(j), 2, 0);
		}
		if (!ret)
			ret = th_coll_eager_gate_add(cl, li, root, first);
	}
	/* each child by parity: copy, count, send; the largest subtree first */
	for (j = rk->nchild; !ret && j-- > 0;) {
		unsigned int ch = rk->child[j];

		for (first = 1; !ret && first <= 2; first++) {
			to = th_coll_remote(cl, ch, cl->g.peers[ch].scratch_key,
					    th_coll_eager_slot(cl, first));
			c = th_plan_chain(&cl->plan);
			ret = th_chain_copy(c, src, root ? 0 :
					    th_coll_eager_slot(cl, first),
					    rk->scratch_mr,
					    th_coll_eager_tmp(cl, j, first), len, 0);
			if (!ret)
				ret = th_chain_ct_inc(c, TH_COLL_CT_F, 1, 0);
			if (!ret)
				ret = th_chain_put(c, rk->scratch_mr,
						   th_coll_eager_tmp(cl, j, first),
						   &to, len, TH_COLL_CT_U(0), 0);
			/* the gate of round k, the child's credit of k - 2 */
			sent = 3 * first - 2;
			if (!ret)
				ret = th_plan_add(&cl->plan, li, TH_COLL_CT_K(j),
						  sent, 6,
						  "copy the data for the child, send it");
		}
	}
	return ret;
}

/*
 * An eager tree's child, once its round is complete (F, after the
 * chain raising D on the same trigger): the credit to its parent, by
 * parity, each chain waiting for its own answer (C counts them).
 */
static int th_coll_compile_eager_credit(struct th_coll *cl, unsigned int li)
{
	struct th_group_rank *rk = &cl->g.local[li];
	uint64_t per_round = rk->nchild + 1, first;
	struct th_remote to;
	struct th_chain *c;
	int ret = 0;

	to = th_coll_remote(cl, rk->parent, cl->g.peers[rk->parent].scratch_key,
			    0);
	for (first = 1; !ret && first <= 2; first++) {
		c = th_plan_chain(&cl->plan);
		ret = th_chain_put(c, rk->scratch_mr, 0, &to, 0,
				   TH_COLL_CT_K(rk->slot_at_parent), 0);
		if (!ret)
			ret = th_chain_ct_inc(c, TH_COLL_CT_C, 1, 0);
		if (!ret)
			ret = th_plan_add(&cl->plan, li, TH_COLL_CT_F,
					  per_round * first, 2 * per_round,
					  "credit the parent: the slot is free");
	}
	return ret;
}

static int th_coll_compile_exchange(struct th_coll *cl, unsigned int li)
{
	struct th_group_rank *rk = &cl->g.local[li];
	unsigned int peer = 1 - rk->rank, mine = rk->rank != cl->attr.root;
	uint32_t count = th_coll_seg_count(cl, 0);
	uint64_t len = (uint64_t)count * cl->esize;
	uint64_t b = th_coll_seg_bytes(cl), tmp, slot;
	const struct th_mr *src[2];
	uint64_t off[2], first;
	struct th_remote to;
	struct th_chain *c;
	int ret = 0;

	/* the set of odd rounds first (round 1), then of even ones */
	for (first = 1; !ret && first <= 2; first++) {
		tmp = (first - 1) * b;
		slot = (first + 1) * b;
		/* own start: copy send, count it, send the copy */
		c = th_plan_chain(&cl->plan);
		ret = th_chain_copy(c, rk->send_mr, 0, rk->scratch_mr, tmp,
				    len, 0);
		if (!ret)
			ret = th_chain_ct_inc(c, TH_COLL_CT_U(0), 1, 0);
		to = th_coll_remote(cl, peer, cl->g.peers[peer].scratch_key,
				    slot);
		if (!ret)
			ret = th_chain_put(c, rk->scratch_mr, tmp, &to, len,
					   TH_COLL_CT_U(0), 0);
		if (!ret)
			ret = th_plan_add(&cl->plan, li, TH_COLL_CT_S, first, 2,
					  "start: send own contribution to the peer");
		/* both contributions here: the result */
		c = th_plan_chain(&cl->plan);
		src[mine] = rk->send_mr;
		off[mine] = 0;
		src[!mine] = rk->scratch_mr;
		off[!mine] = slot;
		if (!ret)
			ret = th_chain_reduce(c, cl->attr.op, cl->attr.dtype,
					      count, rk->recv_mr, 0, 2, src,
					      off, false, 0);
		if (!ret)
			ret = th_chain_ct_inc(c, th_coll_rank_finish_ct(cl, rk),
					      1, 0);
		if (!ret)
			ret = th_plan_add(&cl->plan, li, TH_COLL_CT_U(0),
					  2 * first, 4,
					  "reduce own and the peer's contribution");
	}
	return ret;
}

/*
 * F's count in a round: a segment ends once on a leaf and on Reduce's
 * ranks, once per fan-out chain where it goes down to children.
 */
static uint64_t th_coll_finishes(const struct th_coll *cl,
				 const struct th_group_rank *rk)
{
	/* recv and a copy for each child */
	if (th_coll_eager_tree(cl))
		return (uint64_t)rk->nchild + 1;
	/* an early root's segment ends with its copy into recv */
	if (cl->attr.kind == TH_COLL_REDUCE || !rk->nchild ||
	    th_coll_early_root(cl, rk) || th_coll_exchange(cl) ||
	    th_coll_eager_pair(cl))
		return cl->nseg;
	return (uint64_t)cl->nseg * th_coll_fan_chains(cl, rk);
}

/* Every chain of local rank @li, for every round. */
static int th_coll_compile_rank(struct th_coll *cl, unsigned int li)
{
	enum th_coll_kind kind = cl->attr.kind;
	struct th_chain *c;
	uint32_t s;
	int ret = 0;

	if (th_coll_exchange(cl)) {
		ret = th_coll_compile_exchange(cl, li);
	} else if (th_coll_eager_pair(cl)) {
		ret = th_coll_compile_eager_pair(cl, li);
	} else if (th_coll_eager_tree(cl)) {
		ret = th_coll_compile_eager_tree(cl, li);
	} else if (kind == TH_COLL_BCAST) {
		ret = th_coll_compile_ready(cl, li);
	} else {
		ret = th_coll_start_fan(cl, li, true);
		for (s = 0; !ret && s < cl->nseg; s++)
			ret = th_coll_compile_up(cl, li, s);
	}
	for (s = 0; !ret && s < cl->nseg && kind != TH_COLL_REDUCE &&
	     !th_coll_exchange(cl) && !th_coll_eager_pair(cl) &&
	     !th_coll_eager_tree(cl); s++)
		ret = th_coll_compile_down(cl, li, s);
	/* several finishes a round: the round is complete once all are in */
	if (!ret && th_coll_rank_finish_ct(cl, &cl->g.local[li]) ==
	    TH_COLL_CT_F) {
		c = th_plan_chain(&cl->plan);
		ret = th_chain_ct_inc(c, TH_COLL_CT_D, 1, 0);
		if (!ret)
			ret = th_coll_add(cl, li, TH_COLL_CT_F,
					  th_coll_finishes(cl, &cl->g.local[li]),
					  "round complete");
	}
	if (!ret && th_coll_eager_tree(cl) && cl->g.local[li].parent >= 0)
		ret = th_coll_compile_eager_credit(cl, li);
	return ret;
}

/* ---- setup ---------------------------------------------------------------- */

static int th_coll_check(const struct th_coll_attr *a, unsigned int n)
{
	if (!a || !n || a->root >= n || a->radix == 1)
		return -EINVAL;
	if (a->comp_mask)
		return -EOPNOTSUPP;	/* a field this library does not know */
	if (a->kind != TH_COLL_ALLREDUCE && a->kind != TH_COLL_REDUCE &&
	    a->kind != TH_COLL_BCAST)
		return -EINVAL;
	if (a->dtype >= TH_NIC_DT_MAX || a->op >= TH_NIC_ALU_OP_MAX)
		return -EINVAL;
	return 0;
}

static uint32_t th_coll_dtype_size(unsigned int dtype)
{
	static const uint8_t size[TH_NIC_DT_MAX] = { 1, 2, 4, 8, 1, 2, 4, 8, 4, 8 };

	return size[dtype];
}

static struct th_coll *th_coll_alloc(const struct th_coll_attr *attr,
				     unsigned int n, unsigned int nlocal)
{
	struct th_coll *cl = calloc(1, sizeof(*cl));
	uint32_t esize = th_coll_dtype_size(attr->dtype);

	if (!cl)
		return NULL;
	cl->attr = *attr;
	if (!cl->attr.radix)
		cl->attr.radix = 4;
	cl->esize = esize;
	cl->seg = attr->segment;
	if (!cl->seg)
		cl->seg = TH_COLL_DEF_SEG_BYTES / esize;
	if (!cl->seg || cl->seg > attr->count)
		cl->seg = attr->count ? attr->count : 1;
	if (((uint64_t)attr->count + cl->seg - 1) / cl->seg > TH_COLL_MAX_SEG)
		cl->seg = ((uint64_t)attr->count + TH_COLL_MAX_SEG - 1) /
			  TH_COLL_MAX_SEG;
	cl->nseg = attr->count ?
		   ((uint64_t)attr->count + cl->seg - 1) / cl->seg : 1;
	/* two slot sets used alternately: segment s + 1 climbs while s reduces */
	cl->window = cl->nseg < 2 ? cl->nseg : 2;
	cl->done = calloc(nlocal, sizeof(*cl->done));
	if (!cl->done || th_plan_init(&cl->plan) ||
	    th_group_init(&cl->g, n, nlocal, attr->root, cl->attr.radix,
			  (uint64_t)attr->count * esize)) {
		th_plan_fini(&cl->plan);
		free(cl->done);
		free(cl);
		errno = ENOMEM;
		return NULL;
	}
	return cl;
}

/*
 * A handle starts from zeroed counters and an empty CQ on its vports, so
 * that a vport may serve one handle after another (not two at once).
 */
static int th_coll_reset(struct th_coll *cl, struct th_group_rank *rk)
{
	struct th_nic_cqe cqe[16];
	uint32_t s;
	int ret = 0;

	while (th_poll_cq(rk->vp, cqe, 16) > 0)
		;
	for (s = TH_COLL_CT_S; !ret && s <= TH_COLL_CT_C; s++)
		ret = th_ct_set(rk->vp, s, 0, 0);
	for (s = 0; !ret && s < cl->nseg; s++) {
		ret = th_ct_set(rk->vp, TH_COLL_CT_U(s), 0, 0);
		if (!ret)
			ret = th_ct_set(rk->vp, TH_COLL_CT_B(s), 0, 0);
	}
	/* an eager Broadcast's, should the peers make it one */
	for (s = 0; !ret && th_coll_eager_shape(cl) && s < rk->nchild; s++)
		ret = th_ct_set(rk->vp, TH_COLL_CT_K(s), 0, 0);
	return ret;
}

/* Local rank @li: tree, memory, keys published, counters and CQ clear. */
static int th_coll_rank_setup(struct th_coll *cl, unsigned int li,
			      unsigned int rank, struct th_vport *vp,
			      void *send, void *recv)
{
	struct th_group_rank *rk = &cl->g.local[li];
	int ret = th_group_rank_init(&cl->g, rk, rank, vp, send, recv);

	if (!ret && !cl->max_chain) {
		cl->max_chain = vp->ctx->attr.max_chain;
		cl->cq_room = vp->cq_entries;
		cl->sq_room = vp->sq_entries;
	}
	if (!ret)
		ret = th_group_rank_register(&cl->g, rk,
					     th_coll_scratch_bytes(cl, rk));
	if (!ret)
		ret = th_coll_reset(cl, rk);
	return ret;
}

/*
 * TH_VERIFY_PLANS=1: the plan just compiled, verified against the NIC's
 * limits and its first vport's rings before it is posted; the first
 * finding on stderr and -EPROTO when there is one.  Only a plan of every
 * rank of the job can be: one rank's chains wait on its peers'.
 */
static int th_coll_verify_compiled(struct th_coll *cl)
{
	const struct th_vport *vp = cl->g.local[0].vp;
	struct th_verify_finding f;
	int n;

	if (cl->g.described || cl->g.nlocal != cl->g.n ||
	    !th_plan_verify_wanted())
		return 0;
	n = th_plan_verify(&cl->plan, &cl->g, &vp->ctx->attr, vp->sq_entries,
			   vp->cq_entries, &f, 1);
	if (n < 0)
		return n;
	if (!n || th_verify_class_is_warning(f.cls))
		return 0;
	th_plan_verify_report(&cl->plan, &cl->g, &f);
	return -EPROTO;
}

/*
 * Compile every local rank, then post the plan: once, for all rounds.
 * @edit, when given, may change the plan before it is verified and
 * posted (the mutation tool: th_coll_create_local_edit()).
 */
static int th_coll_compile(struct th_coll *cl, th_coll_plan_edit_fn edit,
			   void *arg)
{
	unsigned int i;
	int ret = 0;

	cl->eager = th_coll_eager_decide(cl);
	/* these plans take turns: odd and even rounds */
	if (th_coll_exchange(cl) || th_coll_eager_pair(cl) ||
	    th_coll_eager_tree(cl))
		cl->plan.period = 2;
	for (i = 0; !ret && i < cl->g.nlocal; i++)
		ret = th_coll_compile_rank(cl, i);
	if (!ret)
		ret = th_plan_fold_starts(&cl->plan, cl->g.nlocal,
					  TH_COLL_CT_S);
	if (!ret && edit)
		ret = edit(&cl->plan, &cl->g, arg);
	if (!ret)
		ret = th_coll_verify_compiled(cl);
	if (ret || cl->g.described)
		return ret;
	return th_plan_post(&cl->plan, &cl->g);
}

/* an eager Broadcast's child waits this long for its last credit's answer */
#define TH_COLL_CREDIT_WAIT_NS	(500 * 1000000ULL)

/*
 * An eager Broadcast's child (two ranks, or a tree) sends each credit
 * after its round ended, the last one too.  Before the barrier that lets
 * its parent tear down (and a next handle on its vport zero its
 * counters), the child waits until every credit was answered, that is
 * applied at the parent, so that none can raise the next handle's Y or K.
 * Bounded: a dead parent never answers, and a handle that failed sent
 * what it sent.
 */
static void th_coll_credits_wait(struct th_coll *cl)
{
	unsigned int i;

	if (!(th_coll_eager_pair(cl) || th_coll_eager_tree(cl)) ||
	    cl->broken || cl->g.described)
		return;
	for (i = 0; i < cl->g.nlocal; i++) {
		struct th_group_rank *rk = &cl->g.local[i];

		if (rk->vp && rk->rank != cl->attr.root && cl->done[i])
			th_ct_wait(rk->vp, TH_COLL_CT_C, cl->done[i],
				   TH_COLL_CREDIT_WAIT_NS);
	}
}

void th_coll_destroy(struct th_coll *cl)
{
	if (!cl)
		return;
	th_coll_credits_wait(cl);
	/*
	 * Cancelling the plan raises failure values at peers; a peer still
	 * finishing the last round must not see them.  With one process (or
	 * thread) per rank, destruction is therefore collective: every rank
	 * waits here until all have completed their rounds.
	 */
	if (cl->g.exchanged && cl->started)
		th_group_barrier(&cl->g);
	th_group_quiesce(&cl->g);
	th_group_fini(&cl->g);
	th_plan_fini(&cl->plan);
	free(cl->done);
	free(cl);
}

static struct th_coll *th_coll_fail(struct th_coll *cl, int err)
{
	th_coll_destroy(cl);
	errno = -err;
	return NULL;
}

struct th_coll *th_coll_create_local(struct th_vport *const *vps,
					       unsigned int n,
					       const struct th_coll_attr *attr,
					       void *const *send,
					       void *const *recv)
{
	return th_coll_create_local_edit(vps, n, attr, send, recv, NULL, NULL);
}

struct th_coll *th_coll_create_local_edit(struct th_vport *const *vps,
					  unsigned int n,
					  const struct th_coll_attr *attr,
					  void *const *send, void *const *recv,
					  th_coll_plan_edit_fn edit, void *arg)
{
	struct th_coll *cl;
	unsigned int r;
	int ret = th_coll_check(attr, n);

	if (!ret && !vps)
		ret = -EINVAL;
	if (ret) {
		errno = -ret;
		return NULL;
	}
	cl = th_coll_alloc(attr, n, n);
	if (!cl)
		return NULL;
	for (r = 0; !ret && r < n; r++)
		ret = th_coll_rank_setup(cl, r, r, vps[r], send ? send[r] : NULL,
					 recv ? recv[r] : NULL);
	if (!ret)
		ret = th_coll_compile(cl, edit, arg);
	return ret ? th_coll_fail(cl, ret) : cl;
}

struct th_coll *th_coll_create(struct th_vport *vp, unsigned int rank,
					 unsigned int size,
					 th_coll_allgather_fn allgather,
					 void *arg,
					 const struct th_coll_attr *attr,
					 void *send, void *recv)
{
	struct th_coll *cl;
	int ret = th_coll_check(attr, size);

	if (!ret && (rank >= size || !allgather || !vp))
		ret = -EINVAL;
	if (ret) {
		errno = -ret;
		return NULL;
	}
	cl = th_coll_alloc(attr, size, 1);
	if (!cl)
		return NULL;
	cl->g.allgather = allgather;
	cl->g.allgather_arg = arg;
	ret = th_coll_rank_setup(cl, 0, rank, vp, send, recv);
	ret = th_group_exchange(&cl->g, ret);
	if (!ret)
		ret = th_coll_compile(cl, NULL, NULL);
	/*
	 * Everyone's plan is posted before anyone may start; a rank that
	 * failed still takes part, so that all fail together.
	 */
	ret = th_group_agree(&cl->g, ret);
	return ret ? th_coll_fail(cl, ret) : cl;
}

struct th_coll *th_coll_describe(unsigned int n, const struct th_coll_attr *attr,
				 const struct th_nic_query *limits)
{
	struct th_coll *cl;
	unsigned int r;
	int ret = th_coll_check(attr, n);

	if (ret) {
		errno = -ret;
		return NULL;
	}
	cl = th_coll_alloc(attr, n, n);
	if (!cl)
		return NULL;
	cl->g.described = true;
	cl->max_chain = limits && limits->max_chain ? limits->max_chain :
			TH_ENG_DEF_CHAIN;
	cl->cq_room = limits && limits->max_cq_entries ?
		      limits->max_cq_entries : TH_ENG_DEF_CQ;
	cl->sq_room = limits && limits->max_sq_entries ?
		      limits->max_sq_entries : TH_ENG_DEF_SQ;
	for (r = 0; !ret && r < n; r++) {
		struct th_group_rank *rk = &cl->g.local[r];

		ret = th_group_rank_init(&cl->g, rk, r, NULL, NULL, NULL);
		if (!ret)
			ret = th_group_rank_describe(&cl->g, rk, r,
						     th_coll_scratch_bytes(cl, rk));
	}
	if (!ret)
		ret = th_coll_compile(cl, NULL, NULL);
	return ret ? th_coll_fail(cl, ret) : cl;
}

int th_coll_verify(const struct th_coll *cl, const struct th_nic_query *limits,
		   struct th_verify_finding *out, unsigned int max)
{
	if (!cl || (max && !out))
		return -EINVAL;
	return th_plan_verify(&cl->plan, &cl->g, limits, 0, 0, out, max);
}

struct th_verify_set *th_coll_set(const struct th_coll *cl,
				  const struct th_nic_query *limits)
{
	if (!cl) {
		errno = EINVAL;
		return NULL;
	}
	return th_plan_set(&cl->plan, &cl->g, limits);
}

void th_coll_set_free(struct th_verify_set *set)
{
	th_plan_set_destroy(set);
}

/*
 * Start the next round on every local rank: one counter increment each.
 * The plan's chains re-arm themselves, so nothing is posted, copied or
 * validated here; with one process driving every rank, the increments
 * run the whole collective before this returns.
 */
int th_coll_start(struct th_coll *cl)
{
	unsigned int i;
	int ret = 0;

	if (cl->broken)
		return cl->broken;
	if (cl->g.described)
		return -EOPNOTSUPP;	/* nothing was posted */
	cl->started++;
	for (i = 0; !ret && i < cl->g.nlocal; i++) {
		struct th_plan_start st = th_plan_start_of(&cl->plan, i,
							   TH_COLL_CT_S);

		ret = th_ct_inc(cl->g.local[i].vp, st.ct, st.value);
	}
	if (ret)
		cl->broken = ret;
	return ret;
}

static uint64_t th_coll_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * The rounds started, complete on local rank @li (its D), or the first
 * error entry in its CQ.  D is read from the counter page: a round that
 * ran in th_coll_start() (one process driving the ranks) costs the wait
 * two loads, no call into the provider.  The CQ is read only while D is
 * short: it holds nothing but errors (no chain of the plan writes an
 * entry on success), and an error entry's status says more than D's
 * failure value.
 */
static int th_coll_wait_rank(struct th_coll *cl, unsigned int li,
			     uint64_t deadline)
{
	struct th_group_rank *rk = &cl->g.local[li];
	uint64_t now, d = 0, failed = 0;
	struct th_nic_cqe cqe;
	bool driven = false;
	int n;

	while (cl->done[li] < cl->started) {
		/*
		 * On a virtual clock the host learns of each round through
		 * the wait on D at its virtual time, not from the counter
		 * page, which the NIC wrote in real time already.
		 */
		if (th_vport_timed(rk->vp)) {
			now = th_coll_now_ns();
			n = th_ct_wait(rk->vp, TH_COLL_CT_D, cl->done[li] + 1,
				       deadline > now ? deadline - now : 0);
			if (n)
				return n;
			cl->done[li]++;
			continue;
		}
		th_ct_read(rk->vp, TH_COLL_CT_D, &d, &failed);
		if (!failed && d > cl->done[li]) {
			/* D counts rounds this rank's host started: never more */
			cl->done[li] = d < cl->started ? d : cl->started;
			continue;
		}
		n = th_poll_cq(rk->vp, &cqe, 1);
		if (n < 0)
			return n;
		if (n && cqe.status)
			return cqe.status;
		if (n)
			continue;
		if (failed)
			return -EIO;
		now = th_coll_now_ns();
		/* no time left (a test): one look that drives the NIC */
		if (now >= deadline && !driven) {
			driven = true;
			if (th_wait_drive_once(rk->vp))
				continue;
		}
		if (now >= deadline)
			return -ETIMEDOUT;
		/*
		 * Wait (the policy's spin, then sleep) until D says the next
		 * round is complete, or a counter fails; then look again.
		 * The spin comes first: th_coll_start() was this round's host
		 * action on the vport.
		 */
		n = th_ct_wait_spin_first(rk->vp, TH_COLL_CT_D,
					  cl->done[li] + 1, deadline - now);
		if (n && n != -ETIMEDOUT)
			return n;
	}
	/* complete here; the bytes it sends may still need this host */
	return th_wait_bytes_out(rk->vp, deadline);
}

int th_coll_wait(struct th_coll *cl, uint64_t timeout_ns)
{
	uint64_t now = th_coll_now_ns();
	uint64_t deadline = timeout_ns > UINT64_MAX - now ? UINT64_MAX :
			    now + timeout_ns;
	unsigned int i;
	int ret = 0;

	for (i = 0; !ret && i < cl->g.nlocal; i++)
		ret = th_coll_wait_rank(cl, i, deadline);
	return ret;
}

int th_coll_plan_start(const struct th_coll *cl, unsigned int i,
		       struct th_coll_start_ct *st)
{
	struct th_plan_start ps;

	if (!cl || !st)
		return -EINVAL;
	if (i >= cl->g.nlocal)
		return -ENOENT;
	ps = th_plan_start_of(&cl->plan, i, TH_COLL_CT_S);
	*st = (struct th_coll_start_ct){
		.rank = cl->g.local[i].rank, .ct = ps.ct, .value = ps.value,
	};
	return 0;
}

int th_coll_plan_step(const struct th_coll *cl, unsigned int i,
				struct th_coll_step *st)
{
	const struct th_plan_step *ps;

	if (!cl || !st)
		return -EINVAL;
	if (i >= cl->plan.nsteps)
		return -ENOENT;
	ps = &cl->plan.step[i];
	*st = (struct th_coll_step){
		.rank = cl->g.local[ps->local].rank, .ct = ps->ct,
		.threshold = ps->threshold, .stride = ps->stride,
		.ndesc = ps->ndesc, .descs = &cl->plan.desc[ps->first],
		.what = ps->what,
	};
	return 0;
}
