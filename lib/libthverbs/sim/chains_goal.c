// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * chains_goal.c - a set of chains as a GOAL schedule (th_sim_chains_goal()):
 * the first round of every chain as the host operations that do the same
 * work in the same order, so that a library plan or a placement can be
 * run through LogGOPSim beside th_sim_chains() (Documentation/sim.rst,
 * "Chains as GOAL").
 *
 * Node n is rank n.  Each descriptor, read through the opcode table into
 * the simulator's own form (cset.c), becomes:
 *   a message (PUT, inline write)  a send on its node and the matching
 *                                  receive on the target (a tag of its own);
 *   a GET                          a one-byte request and its receive, and
 *                                  the reply: a send on the target that
 *                                  requires the request, and its receive;
 *   a copy or a reduction          a calc of the engine's time for it;
 *   anything else                  a calc of 0 ns, which keeps its place.
 * Each requires the one before it in its chain (a message: once sent, as
 * GOAL's sends are done).  A chain's first operation requires every
 * operation that raises its trigger counter in the round (a delivery's
 * receive, a completion's or a CT_INC's own operation); the host's start
 * updates need none.  That is exact for the library's plans, whose
 * thresholds count every update of a round; a chain whose threshold less
 * updates would reach waits here for them all.
 *
 * Chains of one node that fire together (one counter, one threshold) run
 * in the order they were posted: the engine runs one until it waits for
 * a delivery, then the next.  So a chain's first operation irequires the
 * first message of the chain before it (starts once that one started),
 * or requires its last operation when it sends none; without this a
 * parent's credits, ready as early as its reduction, would go before the
 * reduction's result in GOAL, where the engine sends the result first.
 * Where a later chain raises the counter an earlier one waits on (a
 * threshold below the round's updates), GOAL cannot have both, and the
 * order is dropped for the whole set (th_sim_chains_goal()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim_priv.h"

/* An operation that raises counter @ctr by @amount, made for @chain. */
struct cg_raise {
	uint32_t ctr;
	uint32_t op;
	uint32_t chain;
	uint64_t amount;
};

struct cg_build {
	const struct sim_cset *cs;
	struct th_sim_goal *g;
	struct cg_raise *raise;
	uint32_t nraise, cap_raise;
	uint32_t next_tag;
};

static int cg_raise_add(struct cg_build *b, uint32_t ctr, int64_t op,
			uint32_t chain, uint64_t amount)
{
	if (ctr == SIM_NIL)
		return 0;
	if (b->nraise == b->cap_raise) {
		uint32_t ncap = b->cap_raise ? b->cap_raise * 2 : 1024;
		struct cg_raise *n;

		if (ncap <= b->cap_raise)
			return -E2BIG;
		n = realloc(b->raise, (size_t)ncap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		b->raise = n;
		b->cap_raise = ncap;
	}
	b->raise[b->nraise++] = (struct cg_raise){
		.ctr = ctr, .op = (uint32_t)op, .chain = chain, .amount = amount,
	};
	return 0;
}

static int64_t cg_op(struct cg_build *b, uint8_t kind, uint32_t rank,
		     uint32_t peer, uint32_t tag, uint64_t arg)
{
	struct sim_op op = {
		.kind = kind, .rank = rank, .peer = peer, .tag = tag,
		.arg = arg < SIM_MAX_SIZE ? arg : SIM_MAX_SIZE - 1,
	};

	return sim_goal_add_op(b->g, &op);
}

/* A new message's tag; -E2BIG past GOAL's. */
static int cg_tag(struct cg_build *b, uint32_t *tag)
{
	if (b->next_tag > SIM_MAX_TAG)
		return -E2BIG;
	*tag = b->next_tag++;
	return 0;
}

/*
 * Descriptor @di of chain @c as operations: the first in *@start, the one
 * whose end is the descriptor's end in *@done.
 */
static int cg_desc(struct cg_build *b, uint32_t c, uint32_t di,
		   int64_t *start, int64_t *done)
{
	const struct sim_cdesc *d = &b->cs->descs[di];
	uint32_t node = b->cs->chains[c].node, t1, t2;
	int64_t s, r, rs, rr;
	int ret;

	switch (d->kind) {
	case SIM_CD_SEND:
		ret = cg_tag(b, &t1);
		if (ret)
			return ret;
		s = cg_op(b, SIM_SEND, node, d->target, t1, d->arg);
		r = cg_op(b, SIM_RECV, d->target, node, t1, d->arg);
		if (s < 0 || r < 0)
			return -errno;
		*start = *done = s;
		ret = cg_raise_add(b, d->ct_remote, r, c, 1);
		return ret ? ret : cg_raise_add(b, d->ct_comp, s, c, 1);
	case SIM_CD_FETCH:
		ret = cg_tag(b, &t1);
		if (!ret)
			ret = cg_tag(b, &t2);
		if (ret)
			return ret;
		s = cg_op(b, SIM_SEND, node, d->target, t1, 1);
		r = cg_op(b, SIM_RECV, d->target, node, t1, 1);
		rs = cg_op(b, SIM_SEND, d->target, node, t2, d->arg);
		rr = cg_op(b, SIM_RECV, node, d->target, t2, d->arg);
		if (s < 0 || r < 0 || rs < 0 || rr < 0)
			return -errno;
		ret = sim_goal_add_dep(b->g, (uint32_t)rs, (uint32_t)r, false);
		if (!ret)
			ret = sim_goal_add_dep(b->g, (uint32_t)rr, (uint32_t)s,
					       false);
		*start = s;
		*done = rr;
		if (!ret)
			ret = cg_raise_add(b, d->ct_remote, rs, c, 1);
		if (!ret)
			ret = cg_raise_add(b, d->ct_comp, rr, c, 1);
		return ret;
	default:
		/* WORK: the engine's ns for it; NONE: nothing, in its place */
		s = cg_op(b, SIM_CALC, node, 0, 0,
			  d->kind == SIM_CD_WORK ? d->arg : 0);
		if (s < 0)
			return -errno;
		*start = *done = s;
		ret = cg_raise_add(b, d->ct_op, s, c, d->arg);
		if (!ret)
			ret = cg_raise_add(b, d->ct_comp, s, c, 1);
		if (!ret)
			ret = cg_raise_add(b, d->ct_remote, s, c, 1);
		return ret;
	}
}

/* chain indices by node, trigger counter, threshold, then posting order */
static int cg_cmp_fire(const void *a, const void *b, void *arg)
{
	const struct sim_cchain *ch = arg;
	const struct sim_cchain *x = &ch[*(const uint32_t *)a];
	const struct sim_cchain *y = &ch[*(const uint32_t *)b];

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->ctr != y->ctr)
		return x->ctr < y->ctr ? -1 : 1;
	if (x->threshold != y->threshold)
		return x->threshold < y->threshold ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 :
	       *(const uint32_t *)a > *(const uint32_t *)b;
}

/*
 * Chains that fire together on a node keep their posting order: each
 * one's first operation after the previous one's first message has
 * started (@park, -1: none), or after its last operation (@last).
 */
static int cg_fire_order(struct cg_build *b, const uint32_t *first,
			 const int64_t *park, const uint32_t *last)
{
	const struct sim_cchain *ch = b->cs->chains;
	uint32_t n = b->cs->nchains, i, *ord;
	int ret = 0;

	ord = malloc(((size_t)n + 1) * sizeof(*ord));
	if (!ord)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		ord[i] = i;
	qsort_r(ord, n, sizeof(*ord), cg_cmp_fire, (void *)ch);
	for (i = 1; !ret && i < n; i++) {
		uint32_t p = ord[i - 1], c = ord[i];

		if (ch[p].node != ch[c].node || ch[p].ctr != ch[c].ctr ||
		    ch[p].threshold != ch[c].threshold)
			continue;
		ret = park[p] >= 0 ?
		      sim_goal_add_dep(b->g, first[c], (uint32_t)park[p], true) :
		      sim_goal_add_dep(b->g, first[c], last[p], false);
	}
	free(ord);
	return ret;
}

static int cg_cmp_raise(const void *a, const void *b)
{
	const struct cg_raise *x = a, *y = b;

	if (x->ctr != y->ctr)
		return x->ctr < y->ctr ? -1 : 1;
	return x->op < y->op ? -1 : x->op > y->op;
}

/* Chain @c's first operation @first waits for its counter's raisers. */
static int cg_trigger(struct cg_build *b, const struct th_verify_set *set,
		      const uint64_t *by_host, uint32_t c, uint32_t first,
		      char *err, size_t errlen)
{
	const struct sim_cchain *cc = &b->cs->chains[c];
	struct cg_raise key = { .ctr = cc->ctr };
	uint64_t sum = by_host[cc->ctr];
	uint32_t lo = 0, hi = b->nraise, i;
	int ret = 0;

	/* the first raiser of the counter */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (b->raise[mid].ctr < key.ctr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < b->nraise && b->raise[i].ctr == cc->ctr; i++)
		sum += b->raise[i].amount;
	if (sum < cc->threshold) {
		sim_err(err, errlen, "chain %s waits for %llu on its counter, which the set raises by %llu in a round: it never fires",
			set->chains[c].name ? set->chains[c].name : "(unnamed)",
			(unsigned long long)cc->threshold,
			(unsigned long long)sum);
		return -EDEADLK;
	}
	for (i = lo; !ret && i < b->nraise && b->raise[i].ctr == cc->ctr; i++)
		if (b->raise[i].chain != c)
			ret = sim_goal_add_dep(b->g, first, b->raise[i].op, false);
	return ret;
}

/*
 * @cs as GOAL into *@out; with @keep_order, chains that fire together keep
 * their posting order (cg_fire_order()).
 */
static int cg_build_goal(const struct th_verify_set *set,
			 const struct sim_cset *cs, bool keep_order,
			 struct th_sim_goal **out, char *err, size_t errlen)
{
	struct cg_build b = { 0 };
	uint64_t *by_host = NULL;
	uint32_t *first = NULL, *last = NULL;
	int64_t *park = NULL;
	uint32_t c, i;
	int ret = 0;

	b.cs = cs;
	b.next_tag = 0;
	b.g = sim_goal_new(cs->nodes ? cs->nodes : 1);
	by_host = calloc(cs->nctrs + 1, sizeof(*by_host));
	first = calloc(cs->nchains + 1, sizeof(*first));
	last = calloc(cs->nchains + 1, sizeof(*last));
	park = malloc((cs->nchains + 1) * sizeof(*park));
	if (!b.g || !by_host || !first || !last || !park)
		ret = -ENOMEM;
	for (i = 0; !ret && i < cs->nacts; i++)
		by_host[cs->acts[i].ctr] += cs->acts[i].value;
	for (c = 0; !ret && c < cs->nchains; c++) {
		const struct sim_cchain *cc = &cs->chains[c];
		int64_t start = -1, done = -1, prev = -1;

		park[c] = -1;
		for (i = 0; !ret && i < cc->ndesc; i++) {
			uint8_t kind = cs->descs[cc->first + i].kind;

			ret = cg_desc(&b, c, cc->first + i, &start, &done);
			if (!ret && prev >= 0)
				ret = sim_goal_add_dep(b.g, (uint32_t)start,
						       (uint32_t)prev, false);
			if (!ret && !i)
				first[c] = (uint32_t)start;
			if (park[c] < 0 && (kind == SIM_CD_SEND ||
					    kind == SIM_CD_FETCH))
				park[c] = start;
			prev = done;
		}
		last[c] = (uint32_t)prev;
	}
	if (!ret && keep_order)
		ret = cg_fire_order(&b, first, park, last);
	if (!ret)
		qsort(b.raise, b.nraise, sizeof(*b.raise), cg_cmp_raise);
	for (c = 0; !ret && c < cs->nchains; c++)
		ret = cg_trigger(&b, set, by_host, c, first[c], err, errlen);
	if (!ret)
		ret = sim_goal_finalize(b.g, "the chains", err, errlen);
	if (ret)
		th_sim_goal_destroy(b.g);
	else
		*out = b.g;
	free(b.raise);
	free(by_host);
	free(first);
	free(last);
	free(park);
	return ret;
}

int th_sim_chains_goal(const struct th_verify_set *set,
		       const struct th_sim_nic *nic, struct th_sim_goal **out,
		       char *err, size_t errlen)
{
	struct sim_cset cs;
	int ret;

	if (err && errlen)
		err[0] = '\0';
	if (!out || !set || (set->nchains && !set->chains) ||
	    (set->nactions && !set->actions)) {
		sim_err(err, errlen, "no set or no result, or no chains or actions where their count says some");
		return -EINVAL;
	}
	*out = NULL;
	ret = sim_cset_build(&cs, set, nic, err, errlen);
	if (ret)
		return ret;
	ret = cg_build_goal(set, &cs, true, out, err, errlen);
	/*
	 * A later chain that raises what an earlier one of its group waits
	 * for (their thresholds below a round's updates): GOAL, which waits
	 * for every raiser, cannot also keep their order; then none is kept.
	 */
	if (ret == -ELOOP) {
		if (err && errlen)
			err[0] = '\0';
		ret = cg_build_goal(set, &cs, false, out, err, errlen);
	}
	if (ret == -ELOOP)
		sim_err(err, errlen, "the chains wait on each other within a round (a counter raised by what it triggers): no GOAL order");
	else if (ret == -E2BIG)
		sim_err(err, errlen, "the set passes GOAL's limits (2^30 operations or dependencies, 2^31 messages)");
	else if (ret == -ENOMEM || ret == -ENOSPC)
		sim_err(err, errlen, "out of memory or past 2^30 operations");
	sim_cset_fini(&cs);
	return ret;
}
