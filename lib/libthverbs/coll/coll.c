// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * coll.c - offloaded Allreduce, Reduce and Broadcast over k-nomial trees,
 * compiled into chains (COLLECTIVES.md).  A handle is persistent: created
 * once, started many times.
 *
 * Counters of a rank's vport:
 *   S     the host's start (one per round)
 *   F     segments finished on this rank; a NOTIFY fires when it reaches
 *         nseg * k in round k
 *   Y     Broadcast: this rank and its children are ready to receive
 *   U(s)  segment s: contributions arrived (children's puts, own start)
 *   B(s)  segment s: the result (or broadcast data) may go down
 * Counters are never reset: round k (from 1) waits for multiples of k, so
 * chains of the next round can be posted ahead without firing early.
 *
 * Round to round safety (no slot is overwritten before it is consumed):
 *   Allreduce  a child's next contribution follows its host's next start,
 *              which follows its completion, which follows the result
 *              coming down, which follows the parent's reduction;
 *   Reduce     a child completes only when its parent has reduced its
 *              contribution (a zero-byte PUT from the parent: the credit);
 *   Broadcast  a parent sends down only once its children's hosts have
 *              started the round (their ready PUTs raise its Y).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "thverbs_priv.h"

#define TH_COLL_CT_S		0
#define TH_COLL_CT_F		1
#define TH_COLL_CT_Y		2
#define TH_COLL_CT_U(s)		(8 + 2 * (s))
#define TH_COLL_CT_B(s)		(9 + 2 * (s))
#define TH_COLL_MAX_SEG		100	/* (256 - 8) / 2, with room to spare */
#define TH_COLL_DEF_SEG_BYTES	(64 * 1024)
#define TH_COLL_FANOUT		15	/* descriptors per chain besides one */
#define TH_COLL_PASS		(TH_NIC_MAX_OPERANDS - 1)

/* What a rank publishes so that others can address it. */
struct th_coll_peer {
	uint32_t node;
	uint32_t vport;
	uint64_t send_key;
	uint64_t recv_key;
	uint64_t scratch_key;
};

struct th_coll_rank {
	unsigned int rank;
	struct th_vport *vp;
	void *send, *recv, *scratch;
	void *own_send, *own_recv;	/* when the caller gave none */
	struct th_mr *send_mr, *recv_mr, *scratch_mr;
	int parent;
	unsigned int slot_at_parent;
	unsigned int nchild;
	unsigned int *child;
};

struct th_coll {
	struct th_coll_attr attr;
	unsigned int n;
	unsigned int nlocal;
	struct th_coll_rank *local;
	struct th_coll_peer *peers;
	uint64_t bytes;		/* per rank */
	uint32_t esize;
	uint32_t seg;		/* elements per segment */
	uint32_t nseg;
	uint32_t window;	/* segments in flight per child: slot sets */
	uint64_t round;		/* rounds posted ahead */
	uint64_t started;	/* rounds started: the one being waited for */
	int broken;		/* a failed post-ahead: no further round */
	th_coll_allgather_fn allgather;	/* one process per rank: the exchange */
	void *allgather_arg;
	struct th_chain *c;
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
	return cl->bytes ? (uint64_t)cl->seg * cl->esize : cl->esize;
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

static uint64_t th_coll_scratch_bytes(const struct th_coll *cl,
				      const struct th_coll_rank *rk)
{
	return (1 + (uint64_t)rk->nchild) * cl->window * th_coll_seg_bytes(cl);
}

/* Contributions segment s waits for in round k: children, own start, credit. */
static uint64_t th_coll_up_threshold(const struct th_coll *cl,
				     const struct th_coll_rank *rk, uint32_t s,
				     uint64_t k)
{
	return (rk->nchild + 1 + (rk->parent >= 0 && s >= cl->window)) * k;
}

static struct th_remote th_coll_remote(const struct th_coll *cl,
				       unsigned int rank, uint64_t key,
				       uint64_t off)
{
	struct th_remote r = {
		.node = cl->peers[rank].node, .vport = cl->peers[rank].vport,
		.rkey = key, .off = off,
	};
	return r;
}

/* ---- chain compilation -------------------------------------------------- */

static int th_coll_post(struct th_coll_rank *rk, struct th_chain *c,
			uint16_t ct, uint64_t threshold, uint64_t cookie)
{
	int ret = th_chain_trigger(c, ct, threshold, cookie);

	/* staged: a round's chains reach the NIC in one doorbell */
	return ret ? ret : th_stage_chain(rk->vp, c);
}

/* dst = own send (+) slot[0] (+) ... slot[c-1], left to right, <= 7 a pass. */
static int th_coll_reduce(struct th_coll *cl, struct th_coll_rank *rk,
			  uint32_t s, const struct th_mr *dst, uint64_t doff)
{
	const struct th_mr *src[TH_NIC_MAX_OPERANDS];
	uint64_t off[TH_NIC_MAX_OPERANDS], so = th_coll_seg_off(cl, s);
	uint32_t count = th_coll_seg_count(cl, s);
	unsigned int done, n, i;
	int ret;

	n = rk->nchild < TH_COLL_PASS ? rk->nchild : TH_COLL_PASS;
	src[0] = rk->send_mr;
	off[0] = so;
	for (i = 0; i < n; i++) {
		src[i + 1] = rk->scratch_mr;
		off[i + 1] = th_coll_slot_off(cl, i, s);
	}
	ret = th_chain_reduce(cl->c, cl->attr.op, cl->attr.dtype, count, dst,
			      doff, n + 1, src, off, false, 0);
	for (done = n; !ret && done < rk->nchild; done += n) {
		n = rk->nchild - done;
		n = n < TH_COLL_PASS ? n : TH_COLL_PASS;
		for (i = 0; i < n; i++) {
			src[i] = rk->scratch_mr;
			off[i] = th_coll_slot_off(cl, done + i, s);
		}
		ret = th_chain_reduce(cl->c, cl->attr.op, cl->attr.dtype, count,
				      dst, doff, n, src, off, true, 0);
	}
	return ret;
}

/*
 * Chains, each on @ct >= @threshold, that PUT @len bytes from @src at
 * @soff to every child (@key and @doff on the child), raising @rct there;
 * the last one also raises F here when @finish.
 */
static int th_coll_fan_out(struct th_coll *cl, struct th_coll_rank *rk,
			   uint16_t ct, uint64_t threshold,
			   const struct th_mr *src, uint64_t soff, uint64_t len,
			   bool recv_key, uint64_t doff, uint16_t rct,
			   bool finish)
{
	unsigned int j = 0, in_chain;
	struct th_remote to;
	int ret = 0;

	do {
		th_chain_reset(cl->c);
		for (in_chain = 0; !ret && j < rk->nchild &&
		     in_chain < TH_COLL_FANOUT; j++, in_chain++) {
			unsigned int ch = rk->child[j];
			uint64_t key = recv_key ? cl->peers[ch].recv_key :
					cl->peers[ch].scratch_key;

			to = th_coll_remote(cl, ch, key, doff);
			ret = th_chain_put(cl->c, src, soff, &to, len, rct, 0);
		}
		if (!ret && j == rk->nchild && finish)
			ret = th_chain_ct_inc(cl->c, TH_COLL_CT_F, 1, 0);
		if (!ret && th_chain_length(cl->c))
			ret = th_coll_post(rk, cl->c, ct, threshold, 0);
	} while (!ret && j < rk->nchild);
	return ret;
}

/* The host's start raises @ct(s) of every segment (16 per chain). */
static int th_coll_start_fan(struct th_coll *cl, struct th_coll_rank *rk,
			     uint64_t k, bool up)
{
	uint32_t s = 0, in_chain;
	int ret = 0;

	while (!ret && s < cl->nseg) {
		th_chain_reset(cl->c);
		for (in_chain = 0; !ret && s < cl->nseg &&
		     in_chain <= TH_COLL_FANOUT; s++, in_chain++)
			ret = th_chain_ct_inc(cl->c, up ? TH_COLL_CT_U(s) :
					      TH_COLL_CT_B(s), 1, 0);
		if (!ret)
			ret = th_coll_post(rk, cl->c, TH_COLL_CT_S, k, 0);
	}
	return ret;
}

static int th_coll_post_up(struct th_coll *cl, struct th_coll_rank *rk,
			   uint32_t s, uint64_t k)
{
	uint64_t so = th_coll_seg_off(cl, s), to_off = th_coll_tmp_off(cl, s);
	uint64_t len = (uint64_t)th_coll_seg_count(cl, s) * cl->esize;
	uint64_t thr = th_coll_up_threshold(cl, rk, s, k);
	bool root = rk->parent < 0;
	struct th_remote to;
	int ret = 0;

	th_chain_reset(cl->c);
	if (rk->nchild)
		ret = th_coll_reduce(cl, rk, s, root ? rk->recv_mr : rk->scratch_mr,
				     root ? so : to_off);
	else if (root)
		ret = th_chain_copy(cl->c, rk->send_mr, so, rk->recv_mr, so, len, 0);
	if (!ret && !root) {
		to = th_coll_remote(cl, rk->parent,
				    cl->peers[rk->parent].scratch_key,
				    th_coll_slot_off(cl, rk->slot_at_parent, s));
		ret = th_chain_put(cl->c, rk->nchild ? rk->scratch_mr : rk->send_mr,
				   rk->nchild ? to_off : so, &to, len,
				   TH_COLL_CT_U(s), 0);
	} else if (!ret) {
		/* the root: Reduce is done here, Allreduce goes down */
		ret = th_chain_ct_inc(cl->c, cl->attr.kind == TH_COLL_REDUCE ?
				      TH_COLL_CT_F : TH_COLL_CT_B(s), 1, 0);
	}
	if (!ret)
		ret = th_coll_post(rk, cl->c, TH_COLL_CT_U(s), thr, 0);
	/* the slots of segment s are free: children may send s + window */
	if (!ret && rk->nchild && s + cl->window < cl->nseg)
		ret = th_coll_fan_out(cl, rk, TH_COLL_CT_U(s), thr,
				      rk->scratch_mr, 0, 0, false, 0,
				      TH_COLL_CT_U(s + cl->window), false);
	/* Reduce: the credit that lets each child complete (zero bytes) */
	if (!ret && cl->attr.kind == TH_COLL_REDUCE && rk->nchild)
		ret = th_coll_fan_out(cl, rk, TH_COLL_CT_U(s), thr,
				      rk->scratch_mr, 0, 0, false, 0,
				      TH_COLL_CT_F, false);
	return ret;
}

/* Post the chains of round @k on one rank. */
static int th_coll_post_round(struct th_coll *cl, struct th_coll_rank *rk,
			      uint64_t k)
{
	enum th_coll_kind kind = cl->attr.kind;
	bool root = rk->parent < 0;
	struct th_remote to;
	uint32_t s;
	int ret = 0;

	if (kind == TH_COLL_BCAST) {
		/* ready: my children (and I) may receive this round */
		th_chain_reset(cl->c);
		if (root) {
			ret = th_chain_ct_inc(cl->c, TH_COLL_CT_Y, 1, 0);
		} else {
			to = th_coll_remote(cl, rk->parent,
					    cl->peers[rk->parent].scratch_key, 0);
			ret = th_chain_put(cl->c, rk->scratch_mr, 0, &to, 0,
					   TH_COLL_CT_Y, 0);
			if (!ret && rk->nchild)
				ret = th_chain_ct_inc(cl->c, TH_COLL_CT_Y, 1, 0);
		}
		if (!ret)
			ret = th_coll_post(rk, cl->c, TH_COLL_CT_S, k, 0);
		/* once all are ready, the data may go down (root: from send) */
		if (!ret && rk->nchild) {
			th_chain_reset(cl->c);
			for (s = 0; !ret && s < cl->nseg; s++) {
				ret = th_chain_ct_inc(cl->c, TH_COLL_CT_B(s), 1, 0);
				if (!ret && ((s + 1) % (TH_COLL_FANOUT + 1) == 0 ||
					     s + 1 == cl->nseg)) {
					ret = th_coll_post(rk, cl->c, TH_COLL_CT_Y,
							   (uint64_t)(rk->nchild + 1) * k,
							   0);
					th_chain_reset(cl->c);
				}
			}
		}
		if (!ret && root && !rk->nchild)
			ret = th_coll_start_fan(cl, rk, k, false);
	} else {
		ret = th_coll_start_fan(cl, rk, k, true);
		for (s = 0; !ret && s < cl->nseg; s++)
			ret = th_coll_post_up(cl, rk, s, k);
	}

	/* down: forward what arrived in recv (or the root's send) */
	for (s = 0; !ret && s < cl->nseg && kind != TH_COLL_REDUCE; s++) {
		uint64_t so = th_coll_seg_off(cl, s);
		uint64_t len = (uint64_t)th_coll_seg_count(cl, s) * cl->esize;
		uint64_t thr = k;
		const struct th_mr *src = rk->recv_mr;

		if (kind == TH_COLL_BCAST && !root && rk->nchild)
			thr = 2 * k;	/* data arrived and children ready */
		if (kind == TH_COLL_BCAST && root) {
			th_chain_reset(cl->c);
			ret = th_chain_copy(cl->c, rk->send_mr, so, rk->recv_mr,
					    so, len, 0);
			if (!ret)
				ret = th_coll_post(rk, cl->c, TH_COLL_CT_B(s), k, 0);
		}
		if (!ret && rk->nchild) {
			ret = th_coll_fan_out(cl, rk, TH_COLL_CT_B(s), thr, src,
					      so, len, true, so,
					      TH_COLL_CT_B(s), true);
		} else if (!ret) {
			th_chain_reset(cl->c);
			ret = th_chain_ct_inc(cl->c, TH_COLL_CT_F, 1, 0);
			if (!ret)
				ret = th_coll_post(rk, cl->c, TH_COLL_CT_B(s),
						   thr, 0);
		}
	}

	/* the round's completion entry */
	if (!ret) {
		th_chain_reset(cl->c);
		ret = th_chain_notify(cl->c, k, 0);
		if (!ret)
			ret = th_coll_post(rk, cl->c, TH_COLL_CT_F,
					   (uint64_t)cl->nseg * k, k);
	}
	return ret ? ret : th_ring_doorbell(rk->vp);
}

/* ---- setup ---------------------------------------------------------------- */

static int th_coll_check(const struct th_coll_attr *a, unsigned int n)
{
	if (!a || !n || a->root >= n || a->radix == 1)
		return -EINVAL;
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
	uint64_t seg_bytes;

	if (!cl)
		return NULL;
	cl->attr = *attr;
	if (!cl->attr.radix)
		cl->attr.radix = 4;
	cl->n = n;
	cl->nlocal = nlocal;
	cl->esize = th_coll_dtype_size(attr->dtype);
	cl->bytes = (uint64_t)attr->count * cl->esize;
	cl->seg = attr->segment;
	if (!cl->seg) {
		seg_bytes = TH_COLL_DEF_SEG_BYTES;
		cl->seg = seg_bytes / cl->esize;
	}
	if (!cl->seg || cl->seg > attr->count)
		cl->seg = attr->count ? attr->count : 1;
	if (((uint64_t)attr->count + cl->seg - 1) / cl->seg > TH_COLL_MAX_SEG)
		cl->seg = ((uint64_t)attr->count + TH_COLL_MAX_SEG - 1) /
			  TH_COLL_MAX_SEG;
	cl->nseg = attr->count ?
		   ((uint64_t)attr->count + cl->seg - 1) / cl->seg : 1;
	/* two slot sets used alternately: segment s + 1 climbs while s reduces */
	cl->window = cl->nseg < 2 ? cl->nseg : 2;
	cl->local = calloc(nlocal, sizeof(*cl->local));
	cl->peers = calloc(n, sizeof(*cl->peers));
	cl->c = th_chain_create();
	if (!cl->local || !cl->peers || !cl->c) {
		th_chain_destroy(cl->c);
		free(cl->peers);
		free(cl->local);
		free(cl);
		return NULL;
	}
	return cl;
}

static struct th_mr *th_coll_reg(struct th_vport *vp, void **buf, void **own,
				 uint64_t bytes)
{
	if (!*buf || !bytes) {
		*own = calloc(1, bytes ? bytes : 8);
		if (!*own)
			return NULL;
		*buf = *own;
	}
	return th_reg_mr(vp, *buf, bytes ? bytes : 8, TH_NIC_ACCESS_ALL);
}

/* Register a local rank's memory and learn its place in the tree. */
static int th_coll_rank_init(struct th_coll *cl, struct th_coll_rank *rk,
			     unsigned int rank, struct th_vport *vp,
			     void *send, void *recv)
{
	int nchild, parent;

	rk->rank = rank;
	rk->vp = vp;
	rk->send = send;
	rk->recv = recv;
	nchild = th_tree_children(cl->n, cl->attr.root, cl->attr.radix, rank,
				  NULL, 0);
	parent = th_tree_parent(cl->n, cl->attr.root, cl->attr.radix, rank);
	if (nchild < 0 || (parent < 0 && parent != -ENOENT))
		return nchild < 0 ? nchild : parent;
	rk->nchild = nchild;
	rk->parent = parent < 0 ? -1 : parent;
	rk->child = calloc(nchild + 1, sizeof(*rk->child));
	if (!rk->child)
		return -ENOMEM;
	th_tree_children(cl->n, cl->attr.root, cl->attr.radix, rank, rk->child,
			 nchild);
	rk->scratch = calloc(1, th_coll_scratch_bytes(cl, rk));
	if (!rk->scratch)
		return -ENOMEM;
	rk->send_mr = th_coll_reg(vp, &rk->send, &rk->own_send, cl->bytes);
	rk->recv_mr = th_coll_reg(vp, &rk->recv, &rk->own_recv, cl->bytes);
	rk->scratch_mr = th_reg_mr(vp, rk->scratch,
				   th_coll_scratch_bytes(cl, rk),
				   TH_NIC_ACCESS_ALL);
	if (!rk->send_mr || !rk->recv_mr || !rk->scratch_mr)
		return -errno;
	cl->peers[rank] = (struct th_coll_peer){
		.node = th_vport_node(vp), .vport = th_vport_index(vp),
		.send_key = th_mr_rkey(rk->send_mr),
		.recv_key = th_mr_rkey(rk->recv_mr),
		.scratch_key = th_mr_rkey(rk->scratch_mr),
	};
	return 0;
}

/* Which of its parent's slots a rank fills: its index among the children. */
static int th_coll_find_slot(struct th_coll *cl, struct th_coll_rank *rk)
{
	unsigned int kids[256], *child = kids, j;
	int n;

	if (rk->parent < 0)
		return 0;
	n = th_tree_children(cl->n, cl->attr.root, cl->attr.radix, rk->parent,
			     NULL, 0);
	if (n > 256)
		child = calloc(n, sizeof(*child));
	if (!child)
		return -ENOMEM;
	th_tree_children(cl->n, cl->attr.root, cl->attr.radix, rk->parent,
			 child, n);
	for (j = 0; j < (unsigned int)n; j++)
		if (child[j] == rk->rank)
			rk->slot_at_parent = j;
	if (child != kids)
		free(child);
	return 0;
}

/*
 * A handle starts from zeroed counters and an empty CQ on its vports, so
 * that a vport may serve one handle after another (not two at once).
 */
static int th_coll_reset(struct th_coll *cl, struct th_coll_rank *rk)
{
	struct th_nic_cqe cqe[16];
	uint32_t s;
	int ret = 0;

	while (th_poll_cq(rk->vp, cqe, 16) > 0)
		;
	for (s = TH_COLL_CT_S; !ret && s <= TH_COLL_CT_Y; s++)
		ret = th_ct_set(rk->vp, s, 0, 0);
	for (s = 0; !ret && s < cl->nseg; s++) {
		ret = th_ct_set(rk->vp, TH_COLL_CT_U(s), 0, 0);
		if (!ret)
			ret = th_ct_set(rk->vp, TH_COLL_CT_B(s), 0, 0);
	}
	return ret;
}

static int th_coll_post_all(struct th_coll *cl)
{
	unsigned int i;
	int ret = 0;

	cl->round++;
	for (i = 0; !ret && i < cl->nlocal; i++)
		ret = th_coll_post_round(cl, &cl->local[i], cl->round);
	return ret;
}

TH_EXPORT void th_coll_destroy(struct th_coll *cl)
{
	unsigned int i;

	if (!cl)
		return;
	/*
	 * Cancelling the round posted ahead raises failure values at peers;
	 * a peer still finishing the last round must not see them.  With one
	 * process per rank, destruction is therefore collective: every rank
	 * waits here until all have completed their rounds.
	 */
	if (cl->allgather && cl->started) {
		struct th_coll_peer me = { 0 };

		cl->allgather(cl->allgather_arg, &me, cl->peers, sizeof(me));
	}
	for (i = 0; i < cl->nlocal; i++) {
		struct th_coll_rank *rk = &cl->local[i];

		if (rk->vp) {
			struct th_nic_cqe cqe[16];

			/* the next round, posted ahead, and its cancel entries */
			th_cancel_all(rk->vp);
			while (th_poll_cq(rk->vp, cqe, 16) > 0)
				;
		}
		if (rk->send_mr)
			th_dereg_mr(rk->send_mr);
		if (rk->recv_mr)
			th_dereg_mr(rk->recv_mr);
		if (rk->scratch_mr)
			th_dereg_mr(rk->scratch_mr);
		free(rk->own_send);
		free(rk->own_recv);
		free(rk->scratch);
		free(rk->child);
	}
	th_chain_destroy(cl->c);
	free(cl->peers);
	free(cl->local);
	free(cl);
}

static struct th_coll *th_coll_fail(struct th_coll *cl, int err)
{
	th_coll_destroy(cl);
	errno = -err;
	return NULL;
}

TH_EXPORT struct th_coll *th_coll_create_local(struct th_vport *const *vps,
					       unsigned int n,
					       const struct th_coll_attr *attr,
					       void *const *send,
					       void *const *recv)
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
	for (r = 0; r < n; r++) {
		ret = th_coll_rank_init(cl, &cl->local[r], r, vps[r],
					send ? send[r] : NULL,
					recv ? recv[r] : NULL);
		if (!ret)
			ret = th_coll_reset(cl, &cl->local[r]);
		if (ret)
			return th_coll_fail(cl, ret);
	}
	for (r = 0; !ret && r < n; r++)
		ret = th_coll_find_slot(cl, &cl->local[r]);
	if (!ret)
		ret = th_coll_post_all(cl);
	return ret ? th_coll_fail(cl, ret) : cl;
}

TH_EXPORT struct th_coll *th_coll_create(struct th_vport *vp, unsigned int rank,
					 unsigned int size,
					 th_coll_allgather_fn allgather,
					 void *arg,
					 const struct th_coll_attr *attr,
					 void *send, void *recv)
{
	struct th_coll_peer mine;
	struct th_coll *cl;
	unsigned int r;
	int ret = th_coll_check(attr, size);

	if (!ret && (rank >= size || !allgather))
		ret = -EINVAL;
	if (ret) {
		errno = -ret;
		return NULL;
	}
	cl = th_coll_alloc(attr, size, 1);
	if (!cl)
		return NULL;
	ret = th_coll_rank_init(cl, &cl->local[0], rank, vp, send, recv);
	if (!ret)
		ret = th_coll_reset(cl, &cl->local[0]);
	/*
	 * Every rank takes part in both exchanges, even after a local
	 * failure (it sends a zeroed entry), so that no peer is left waiting
	 * in the rendezvous; the failure is reported after them.
	 */
	mine = ret ? (struct th_coll_peer){ 0 } : cl->peers[rank];
	if (allgather(arg, &mine, cl->peers, sizeof(mine)) && !ret)
		ret = -ECONNRESET;
	for (r = 0; !ret && r < size; r++)
		if (!cl->peers[r].scratch_key)	/* that rank failed to set up */
			ret = -ECONNRESET;
	if (!ret)
		ret = th_coll_find_slot(cl, &cl->local[0]);
	if (!ret)
		ret = th_coll_post_all(cl);
	/* everyone's round-1 chains are posted before anyone may start */
	if (allgather(arg, &mine, cl->peers, sizeof(mine)) && !ret)
		ret = -ECONNRESET;
	cl->allgather = allgather;
	cl->allgather_arg = arg;
	return ret ? th_coll_fail(cl, ret) : cl;
}

/*
 * Start the next round on every local rank, then post the round after it
 * while the NIC works on this one: the host's bookkeeping overlaps the
 * collective instead of following it.  Round k+1's thresholds cannot be
 * met before round k+1 starts, so its chains wait (collectives.rst).
 */
TH_EXPORT int th_coll_start(struct th_coll *cl)
{
	unsigned int i;
	int ret = 0;

	if (cl->broken)
		return cl->broken;
	cl->started++;
	for (i = 0; !ret && i < cl->nlocal; i++)
		ret = th_ct_inc(cl->local[i].vp, TH_COLL_CT_S, 1);
	if (!ret)
		ret = th_coll_post_all(cl);
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

/* The round's NOTIFY on one rank, or the first error entry. */
static int th_coll_wait_rank(struct th_coll *cl, struct th_coll_rank *rk,
			     uint64_t deadline)
{
	struct th_nic_cqe cqe;
	uint64_t now;
	int n;

	for (;;) {
		n = th_poll_cq(rk->vp, &cqe, 1);
		if (n < 0)
			return n;
		if (n && cqe.status)
			return cqe.status;
		if (n && cqe.opcode == TH_NIC_OP_NOTIFY && cqe.imm == cl->started)
			return 0;
		if (n)
			continue;
		now = th_coll_now_ns();
		if (now >= deadline)
			return -ETIMEDOUT;
		/* sleep until F moves (or fails), then look at the CQ again */
		n = th_ct_wait(rk->vp, TH_COLL_CT_F, (uint64_t)cl->nseg * cl->started,
			       deadline - now < 1000000 ? deadline - now : 1000000);
		if (n && n != -ETIMEDOUT)
			return n;
	}
}

TH_EXPORT int th_coll_wait(struct th_coll *cl, uint64_t timeout_ns)
{
	uint64_t now = th_coll_now_ns();
	uint64_t deadline = timeout_ns > UINT64_MAX - now ? UINT64_MAX :
			    now + timeout_ns;
	unsigned int i;
	int ret = 0;

	for (i = 0; !ret && i < cl->nlocal; i++)
		ret = th_coll_wait_rank(cl, &cl->local[i], deadline);
	return ret;
}
