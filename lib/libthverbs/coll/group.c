// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * group.c - the ranks behind a collective handle (group.h): tree
 * positions, registered memory, the exchange of addresses and keys, and
 * the teardown, for the offload and the host-driven baselines alike.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <thverbs/coll.h>
#include "group.h"
#include "thverbs_priv.h"

int th_group_init(struct th_group *g, unsigned int n, unsigned int nlocal,
		  unsigned int root, unsigned int radix, uint64_t bytes)
{
	memset(g, 0, sizeof(*g));
	g->n = n;
	g->nlocal = nlocal;
	g->root = root;
	g->radix = radix ? radix : 4;
	g->bytes = bytes;
	g->local = calloc(nlocal, sizeof(*g->local));
	g->peers = calloc(n, sizeof(*g->peers));
	if (!g->local || !g->peers) {
		free(g->local);
		free(g->peers);
		g->local = NULL;
		g->peers = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* Which of its parent's slots @rk fills: its index among the children. */
static int th_group_find_slot(struct th_group *g, struct th_group_rank *rk)
{
	unsigned int *sib, j;
	int nsib;

	nsib = th_tree_children(g->n, g->root, g->radix, rk->parent, NULL, 0);
	if (nsib < 0)
		return nsib;
	sib = calloc(nsib + 1, sizeof(*sib));
	if (!sib)
		return -ENOMEM;
	th_tree_children(g->n, g->root, g->radix, rk->parent, sib, nsib);
	for (j = 0; j < (unsigned int)nsib; j++)
		if (sib[j] == rk->rank)
			rk->slot_at_parent = j;
	free(sib);
	return 0;
}

int th_group_rank_init(struct th_group *g, struct th_group_rank *rk,
		       unsigned int rank, struct th_vport *vp, void *send,
		       void *recv)
{
	int nchild, parent, v;

	rk->rank = rank;
	rk->vp = vp;
	rk->send = send;
	rk->recv = recv;
	rk->parent = -1;
	if (!vp && !g->described)
		return -EINVAL;
	nchild = th_tree_children(g->n, g->root, g->radix, rank, NULL, 0);
	parent = th_tree_parent(g->n, g->root, g->radix, rank);
	if (nchild < 0 || (parent < 0 && parent != -ENOENT))
		return nchild < 0 ? nchild : parent;
	rk->nchild = nchild;
	rk->child = calloc(nchild + 1, sizeof(*rk->child));
	if (!rk->child)
		return -ENOMEM;
	th_tree_children(g->n, g->root, g->radix, rank, rk->child, nchild);
	if (parent < 0)
		return 0;
	rk->parent = parent;
	for (v = parent; v >= 0; v = th_tree_parent(g->n, g->root, g->radix, v))
		rk->depth++;
	return th_group_find_slot(g, rk);
}

static struct th_mr *th_group_reg(struct th_vport *vp, void **buf, void **own,
				  uint64_t bytes)
{
	if (!*buf || !bytes) {
		*own = calloc(1, bytes ? bytes : 8);
		if (!*own)
			return NULL;
		*buf = *own;
	}
	return th_mr_reg(vp, *buf, bytes ? bytes : 8, TH_NIC_ACCESS_ALL);
}

int th_group_rank_register(struct th_group *g, struct th_group_rank *rk,
			   uint64_t scratch_bytes)
{
	rk->scratch_bytes = scratch_bytes ? scratch_bytes : 8;
	rk->scratch = calloc(1, rk->scratch_bytes);
	if (!rk->scratch)
		return -ENOMEM;
	errno = 0;
	rk->send_mr = th_group_reg(rk->vp, &rk->send, &rk->own_send, g->bytes);
	rk->recv_mr = th_group_reg(rk->vp, &rk->recv, &rk->own_recv, g->bytes);
	rk->scratch_mr = th_mr_reg(rk->vp, rk->scratch, rk->scratch_bytes,
				   TH_NIC_ACCESS_ALL);
	if (!rk->send_mr || !rk->recv_mr || !rk->scratch_mr)
		return errno ? -errno : -ENOMEM;
	g->peers[rk->rank] = (struct th_group_peer){
		.node = th_vport_node(rk->vp), .vport = th_vport_index(rk->vp),
		.send_key = th_mr_rkey(rk->send_mr),
		.recv_key = th_mr_rkey(rk->recv_mr),
		.scratch_key = th_mr_rkey(rk->scratch_mr),
	};
	return 0;
}

/*
 * A described rank has regions that name no memory: their keys are
 * distinct per rank and region (1, 2, 3 for send, recv, scratch), which
 * is all the plan's descriptors carry of them.
 */
int th_group_rank_describe(struct th_group *g, struct th_group_rank *rk,
			   unsigned int rank, uint64_t scratch_bytes)
{
	struct th_mr *mr = calloc(3, sizeof(*mr));

	if (!mr)
		return -ENOMEM;
	rk->described = mr;
	mr[0] = (struct th_mr){ .lkey = 1, .rkey = 1, .len = g->bytes };
	mr[1] = (struct th_mr){ .lkey = 2, .rkey = 2, .len = g->bytes };
	mr[2] = (struct th_mr){ .lkey = 3, .rkey = 3, .len = scratch_bytes };
	rk->send_mr = &mr[0];
	rk->recv_mr = &mr[1];
	rk->scratch_mr = &mr[2];
	rk->scratch_bytes = scratch_bytes;
	g->peers[rank] = (struct th_group_peer){
		.node = rank, .vport = 0, .send_key = 1, .recv_key = 2,
		.scratch_key = 3,
	};
	return 0;
}

int th_group_exchange(struct th_group *g, int err)
{
	struct th_group_peer mine = { 0 };
	unsigned int r;

	if (!g->allgather)
		return err;
	if (!err)
		mine = g->peers[g->local[0].rank];
	if (g->allgather(g->allgather_arg, &mine, g->peers, sizeof(mine)) &&
	    !err)
		err = -ECONNRESET;
	for (r = 0; !err && r < g->n; r++)
		if (!g->peers[r].scratch_key)	/* that rank failed to set up */
			err = -ECONNRESET;
	g->exchanged = !err;
	return err;
}

int th_group_agree(struct th_group *g, int err)
{
	struct th_group_peer mine = { .scratch_key = !err };
	struct th_group_peer *all;
	unsigned int r;

	if (!g->allgather)
		return err;
	/* the peers table stays as it is: gather into a scratch copy */
	all = calloc(g->n, sizeof(*all));
	if (!all)
		mine.scratch_key = 0;	/* still take part: nobody waits */
	if (g->allgather(g->allgather_arg, &mine,
			 all ? all : (void *)g->peers, sizeof(mine)) && !err)
		err = -ECONNRESET;
	for (r = 0; all && !err && r < g->n; r++)
		if (!all[r].scratch_key)
			err = -ECONNRESET;
	if (!all && !err)
		err = -ENOMEM;
	free(all);
	if (err)
		g->exchanged = false;	/* no rank will start a round */
	return err;
}

int th_group_barrier(struct th_group *g)
{
	return th_group_agree(g, 0);
}

static uint64_t th_group_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * Drain @vp's CQ until @chains final entries came, or until @deadline.
 * A chain still running when cancelled (a delivery to another process not
 * yet answered: a root that ended its round before its children answered,
 * a leaf whose contribution's answer is on its way) is only stopped, and
 * writes its entry when its round ends; left in the CQ, that entry would
 * be the next handle's on this vport.  The deadline keeps a dead peer,
 * whose answer never comes, from holding the teardown past it: then the
 * entry lands late, as it did before.
 */
static void th_group_drain(struct th_vport *vp, int chains, uint64_t deadline)
{
	const struct timespec nap = { 0, 20000 };
	struct th_nic_cqe cqe[16];
	int n, j, finals = 0;

	for (;;) {
		n = th_poll_cq(vp, cqe, 16);
		if (n < 0)
			return;		/* nothing more will come */
		for (j = 0; j < n; j++)
			finals += !!(cqe[j].flags & TH_NIC_CQE_F_FINAL);
		if (n > 0)
			continue;
		if (finals >= chains || th_group_now_ns() > deadline)
			return;
		nanosleep(&nap, NULL);
	}
}

/* the whole teardown's bound, whatever the number of local ranks */
#define TH_GROUP_QUIESCE_NS	(500 * 1000000ULL)

void th_group_quiesce(struct th_group *g)
{
	uint64_t deadline = th_group_now_ns() + TH_GROUP_QUIESCE_NS;
	unsigned int i;

	for (i = 0; g->local && i < g->nlocal; i++) {
		struct th_group_rank *rk = &g->local[i];
		int chains;

		if (!rk->vp)
			continue;
		chains = th_cancel_all(rk->vp);
		th_group_drain(rk->vp, chains > 0 ? chains : 0, deadline);
	}
}

void th_group_fini(struct th_group *g)
{
	unsigned int i;

	for (i = 0; g->local && i < g->nlocal; i++) {
		struct th_group_rank *rk = &g->local[i];

		if (rk->described) {
			free(rk->described);
			rk->send_mr = rk->recv_mr = rk->scratch_mr = NULL;
		}
		if (rk->send_mr)
			th_mr_dereg(rk->send_mr);
		if (rk->recv_mr)
			th_mr_dereg(rk->recv_mr);
		if (rk->scratch_mr)
			th_mr_dereg(rk->scratch_mr);
		free(rk->own_send);
		free(rk->own_recv);
		free(rk->scratch);
		free(rk->child);
	}
	free(g->local);
	free(g->peers);
	memset(g, 0, sizeof(*g));
}
