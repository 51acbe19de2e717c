// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * plan_verify.c - a compiled plan as the chain verifier's input: each
 * step is one chain on its rank's node and vport, its descriptors the
 * very ones th_plan_post() posts; each rank's start increment is the
 * host's one update per round, its wait for the round's completion (D)
 * the host's one wait, and its send, recv and scratch regions those the
 * ranges must fall in (Documentation/verify.rst, "Plans").  The same set
 * goes to the simulator (th_coll_set(), thctl sim --plan).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "plan.h"
#include "thverbs_priv.h"

/*
 * A debug build (TH_DEBUG_BUILD: the sanitized objects the host tests
 * link, or CPPFLAGS=-DTH_DEBUG_BUILD) verifies every plan and placement
 * unless TH_VERIFY_PLANS=0: a broken compile is then an EPROTO at
 * creation, not a hang in some later round.  A release build verifies
 * only when asked, as the check costs a plan's compile again.
 */
#ifdef TH_DEBUG_BUILD
#define TH_VERIFY_PLANS_DEFAULT true
#else
#define TH_VERIFY_PLANS_DEFAULT false
#endif

bool th_plan_verify_wanted(void)
{
	const char *env = getenv("TH_VERIFY_PLANS");

	if (!env || !*env)
		return TH_VERIFY_PLANS_DEFAULT;
	return strcmp(env, "0");
}

/* A plan's set and the arrays it points into. */
struct th_plan_set {
	struct th_verify_set set;
	struct th_verify_chain *chains;
	struct th_verify_action *acts;
	struct th_verify_region *regs;
	struct th_verify_wait *waits;
};

static void th_plan_set_free(struct th_plan_set *ps)
{
	free(ps->chains);
	free(ps->acts);
	free(ps->regs);
	free(ps->waits);
}

static int th_plan_set_build(const struct th_plan *pl, const struct th_group *g,
			     const struct th_nic_query *limits, uint32_t sq,
			     uint32_t cq, struct th_plan_set *ps)
{
	struct th_verify_set *set = &ps->set;
	unsigned int i;

	memset(ps, 0, sizeof(*ps));
	/* a rank's chains wait on its peers': half a job never fires */
	if (g->nlocal != g->n)
		return -EOPNOTSUPP;
	set->limits = limits;
	set->sq_entries = sq;
	set->cq_entries = cq;
	ps->chains = calloc(pl->nsteps + 1, sizeof(*ps->chains));
	ps->acts = calloc(g->nlocal + 1, sizeof(*ps->acts));
	ps->regs = calloc(3 * g->nlocal + 1, sizeof(*ps->regs));
	ps->waits = calloc(g->nlocal + 1, sizeof(*ps->waits));
	if (!ps->chains || !ps->acts || !ps->regs || !ps->waits) {
		th_plan_set_free(ps);
		return -ENOMEM;
	}
	for (i = 0; i < pl->nsteps; i++) {
		const struct th_plan_step *st = &pl->step[i];
		const struct th_group_peer *p = &g->peers[g->local[st->local].rank];

		ps->chains[i] = (struct th_verify_chain){
			.name = st->what, .node = p->node, .vport = p->vport,
			.descs = &pl->desc[st->first], .ndesc = st->ndesc,
		};
	}
	/*
	 * Each rank: the host starts the round on its start counter (S, or
	 * the one its left-out start chain raised: th_plan_fold_starts()),
	 * and waits for D, the rounds complete (th_coll_wait());
	 * its three regions.  A
	 * plan whose chains take turns (an exchange: odd and even rounds)
	 * is looked at over its period: that many starts and rounds.
	 */
	for (i = 0; i < g->nlocal; i++) {
		const struct th_group_rank *rk = &g->local[i];
		const struct th_group_peer *p = &g->peers[rk->rank];
		const struct th_mr *mr[3] = {
			rk->send_mr, rk->recv_mr, rk->scratch_mr,
		};
		struct th_plan_start st = th_plan_start_of(pl, i,
							   TH_COLL_CT_S);
		unsigned int k;

		ps->acts[i] = (struct th_verify_action){
			.counter = { .node = p->node, .vport = p->vport,
				     .ct = st.ct },
			.value = pl->period * st.value,
		};
		ps->waits[i] = (struct th_verify_wait){
			.counter = { .node = p->node, .vport = p->vport,
				     .ct = TH_COLL_CT_D },
			.value = pl->period,
		};
		for (k = 0; k < 3 && mr[0] && mr[1] && mr[2]; k++)
			ps->regs[set->nregions++] = (struct th_verify_region){
				.node = p->node, .vport = p->vport,
				.lkey = mr[k]->lkey, .rkey = mr[k]->rkey,
				.len = mr[k]->len, .access = TH_NIC_ACCESS_ALL,
			};
	}
	set->chains = ps->chains;
	set->nchains = pl->nsteps;
	set->actions = ps->acts;
	set->nactions = g->nlocal;
	/* a handle's regions are all there or none is checked */
	if (set->nregions != 3 * g->nlocal)
		set->nregions = 0;
	set->regions = ps->regs;
	set->waits = ps->waits;
	set->nwaits = g->nlocal;
	/* the actions are one period's: no chain may fire more rounds */
	set->rounds = pl->period;
	return 0;
}

int th_plan_verify(const struct th_plan *pl, const struct th_group *g,
		   const struct th_nic_query *limits, uint32_t sq, uint32_t cq,
		   struct th_verify_finding *out, unsigned int max)
{
	struct th_plan_set ps;
	int ret;

	ret = th_plan_set_build(pl, g, limits, sq, cq, &ps);
	if (ret)
		return ret;
	ret = th_verify(&ps.set, out, max);
	th_plan_set_free(&ps);
	return ret;
}

struct th_verify_set *th_plan_set(const struct th_plan *pl,
				  const struct th_group *g,
				  const struct th_nic_query *limits)
{
	struct th_plan_set *ps = calloc(1, sizeof(*ps));
	int ret;

	if (!ps) {
		errno = ENOMEM;
		return NULL;
	}
	ret = th_plan_set_build(pl, g, limits, 0, 0, ps);
	if (ret) {
		free(ps);
		errno = -ret;
		return NULL;
	}
	/* the set is the first member: freed from it (th_coll_set_free()) */
	return &ps->set;
}

void th_plan_set_destroy(struct th_verify_set *set)
{
	struct th_plan_set *ps = (struct th_plan_set *)set;

	if (!ps)
		return;
	th_plan_set_free(ps);
	free(ps);
}

void th_plan_verify_report(const struct th_plan *pl, const struct th_group *g,
			   const struct th_verify_finding *f)
{
	const struct th_plan_step *st = f->chain < pl->nsteps ?
					&pl->step[f->chain] : NULL;

	fprintf(stderr, "libthverbs: plan: %s: rank %u step %u (%s): %s\n",
		th_verify_class_name(f->cls),
		st ? g->local[st->local].rank : 0, f->chain,
		st && st->what ? st->what : "-", f->why);
}
