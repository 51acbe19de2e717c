// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * gen.c - k-nomial schedules made in memory: reduce, broadcast and
 * allreduce (a reduce then a broadcast) rooted at rank 0, with radix 2
 * being the binomial tree of LogGOPSim's schedgen (binomialtreereduce,
 * binomialtreebcast), so that its README's example can be reproduced.
 * schedgen charges no reduction; th_sim_goal_gen_calc() puts a calc
 * after each receive a reduction takes, for a fair comparison of a
 * host-driven tree (its CPU reduces) with an offloaded one.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sim_priv.h"

#define GEN_MAX_RADIX	4096u

/*
 * The tree: rank v's parent is v with its leading base-k digit cleared
 * (v - d * k^m, k^m <= v < k^(m+1)); its children are v + d * k^j for
 * every k^j above v and d = 1 .. k-1, in that order (the biggest
 * subtrees first: in a broadcast they are sent first).
 */
static uint64_t gen_lead(uint64_t v, uint64_t k)
{
	uint64_t pw = 1;

	while (pw <= v / k)
		pw *= k;
	return pw;		/* k^m <= v < k^(m+1), for v >= 1 */
}

struct gen {
	struct th_sim_goal *g;
	unsigned int n, k;
	uint64_t bytes;
	uint64_t calc;			/* a reduction's time; 0: none */
	int64_t *recvs;			/* a rank's receives, scratch */
	int64_t *child;			/* a rank's children, scratch */
};

/* at most (k-1) children a round, 24 rounds for 2^24 ranks */
#define GEN_MAX_CHILDREN(k)	((size_t)((k) - 1) * 25 + 1)

static int64_t gen_op(struct gen *gen, uint32_t rank, enum sim_kind kind,
		      uint32_t peer, uint32_t tag)
{
	struct sim_op op = { .arg = gen->bytes, .rank = rank, .peer = peer,
			     .tag = tag, .kind = kind };

	return sim_goal_add_op(gen->g, &op);
}

/* every child c of @v, in order, into out[] (returns how many) */
static unsigned int gen_children(const struct gen *gen, uint64_t v,
				 int64_t *out)
{
	uint64_t pw = v ? gen_lead(v, gen->k) * gen->k : 1;
	unsigned int n = 0, d;

	for (; pw < gen->n; pw *= gen->k)
		for (d = 1; d < gen->k; d++) {
			uint64_t c = v + d * pw;

			if (c >= gen->n)
				break;
			out[n++] = (int64_t)c;
		}
	return n;
}

/*
 * A reduce on rank @v (tag @tag): the send to the parent first (schedgen's
 * label order), then the receives from the children, each followed by
 * the calc of its reduction when gen->calc is set; the send requires
 * them all.  Returns the send, or for the root -1; *@nrecv receives (or
 * their calcs) are left in gen->recvs.
 */
static int gen_reduce_rank(struct gen *gen, uint32_t v, uint32_t tag,
			   int64_t *send, unsigned int *nrecv)
{
	int64_t *child = gen->child;
	unsigned int n = gen_children(gen, v, child), i;

	*send = -1;
	if (v) {
		uint64_t pw = gen_lead(v, gen->k);

		*send = gen_op(gen, v, SIM_SEND, (uint32_t)(v % pw), tag);
		if (*send < 0)
			return -ENOSPC;
	}
	for (i = 0; i < n; i++) {
		gen->recvs[i] = gen_op(gen, v, SIM_RECV, (uint32_t)child[i], tag);
		if (gen->recvs[i] < 0)
			return -ENOSPC;
		if (gen->calc) {
			struct sim_op op = { .kind = SIM_CALC, .rank = v,
					     .arg = gen->calc };
			int64_t c = sim_goal_add_op(gen->g, &op);

			if (c < 0 || sim_goal_add_dep(gen->g, (uint32_t)c,
						      (uint32_t)gen->recvs[i],
						      false))
				return -ENOSPC;
			gen->recvs[i] = c;
		}
		if (*send >= 0 &&
		    sim_goal_add_dep(gen->g, (uint32_t)*send,
				     (uint32_t)gen->recvs[i], false))
			return -ENOSPC;
	}
	*nrecv = n;
	return 0;
}

/*
 * A broadcast on rank @v (tag @tag): the receive from the parent, then the
 * sends to the children, each requiring the receive (at the root: each
 * requiring the @nafter ops in @after, the reduce before it).  When
 * @after_send >= 0 the receive requires it (the rank's reduce is done).
 */
static int gen_bcast_rank(struct gen *gen, uint32_t v, uint32_t tag,
			  int64_t after_send, const int64_t *after,
			  unsigned int nafter)
{
	int64_t *child = gen->child, recv = -1, s;
	unsigned int n = gen_children(gen, v, child), i, j;

	if (v) {
		recv = gen_op(gen, v, SIM_RECV,
			      (uint32_t)(v % gen_lead(v, gen->k)), tag);
		if (recv < 0)
			return -ENOSPC;
		if (after_send >= 0 &&
		    sim_goal_add_dep(gen->g, (uint32_t)recv,
				     (uint32_t)after_send, false))
			return -ENOSPC;
	}
	for (i = 0; i < n; i++) {
		s = gen_op(gen, v, SIM_SEND, (uint32_t)child[i], tag);
		if (s < 0)
			return -ENOSPC;
		if (recv >= 0 &&
		    sim_goal_add_dep(gen->g, (uint32_t)s, (uint32_t)recv, false))
			return -ENOSPC;
		for (j = 0; recv < 0 && j < nafter; j++)
			if (sim_goal_add_dep(gen->g, (uint32_t)s,
					     (uint32_t)after[j], false))
				return -ENOSPC;
	}
	return 0;
}

int th_sim_goal_gen(const char *pattern, unsigned int ranks,
		    unsigned int radix, uint64_t bytes,
		    struct th_sim_goal **goal, char *err, size_t errlen)
{
	return th_sim_goal_gen_calc(pattern, ranks, radix, bytes, 0, goal, err,
				    errlen);
}

int th_sim_goal_gen_calc(const char *pattern, unsigned int ranks,
			 unsigned int radix, uint64_t bytes, uint64_t calc,
			 struct th_sim_goal **goal, char *err, size_t errlen)
{
	struct gen gen = { .n = ranks, .k = radix, .bytes = bytes, .calc = calc };
	bool reduce, bcast;
	unsigned int v, nrecv;
	int64_t send;
	int ret = 0;

	if (!goal || !pattern)
		return -EINVAL;
	*goal = NULL;
	reduce = !strcmp(pattern, "reduce") || !strcmp(pattern, "allreduce");
	bcast = !strcmp(pattern, "bcast") || !strcmp(pattern, "allreduce");
	if (!reduce && !bcast) {
		sim_err(err, errlen, "unknown pattern '%s': reduce, bcast or allreduce",
			pattern);
		return -EINVAL;
	}
	if (!ranks || ranks > SIM_MAX_RANKS) {
		sim_err(err, errlen, "%u ranks: from 1 to %u", ranks, SIM_MAX_RANKS);
		return -EINVAL;
	}
	if (radix < 2 || radix > GEN_MAX_RADIX) {
		sim_err(err, errlen, "radix %u: from 2 to %u", radix, GEN_MAX_RADIX);
		return -EINVAL;
	}
	if (bytes >= SIM_MAX_SIZE) {
		sim_err(err, errlen, "%" PRIu64 " bytes: below 2^40", bytes);
		return -EINVAL;
	}
	if (calc >= SIM_MAX_SIZE) {
		sim_err(err, errlen, "a reduction of %" PRIu64 ": below 2^40",
			calc);
		return -EINVAL;
	}
	gen.g = sim_goal_new(ranks);
	gen.recvs = malloc(GEN_MAX_CHILDREN(radix) * sizeof(*gen.recvs));
	gen.child = malloc(GEN_MAX_CHILDREN(radix) * sizeof(*gen.child));
	if (!gen.g || !gen.recvs || !gen.child) {
		ret = -ENOMEM;
		goto out;
	}
	for (v = 0; v < ranks && !ret; v++) {
		send = -1;
		nrecv = 0;
		if (reduce)
			ret = gen_reduce_rank(&gen, v, 0, &send, &nrecv);
		if (!ret && bcast)
			ret = gen_bcast_rank(&gen, v, reduce ? 1 : 0, send,
					     gen.recvs, nrecv);
	}
	if (!ret)
		ret = sim_goal_finalize(gen.g, pattern, err, errlen);
	else
		sim_err(err, errlen, "the schedule does not fit the limits (%u operations)",
			SIM_MAX_OPS);
out:
	free(gen.recvs);
	free(gen.child);
	if (ret) {
		if (ret == -ENOMEM)
			sim_err(err, errlen, "out of memory for the schedule");
		th_sim_goal_destroy(gen.g);
		return ret;
	}
	*goal = gen.g;
	return 0;
}
