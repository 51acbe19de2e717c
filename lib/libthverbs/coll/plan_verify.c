// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * plan_verify.c - a compiled plan as the chain verifier's input: each
 * step is one chain on its rank's node and vport, its descriptors the
 * very ones th_plan_post() posts; each rank's start increment is the
 * host's one update per round, its wait for the round's completion (D)
 * the host's one wait, and its send, recv and scratch regions those the
 * ranges must fall in (Documentation/verify.rst, "Plans").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "plan.h"
#include "thverbs_priv.h"

bool th_plan_verify_wanted(void)
{
	const char *env = getenv("TH_VERIFY_PLANS");

	return env && *env && strcmp(env, "0");
}

int th_plan_verify(const struct th_plan *pl, const struct th_group *g,
		   const struct th_nic_query *limits, uint32_t sq, uint32_t cq,
		   struct th_verify_finding *out, unsigned int max)
{
	struct th_verify_chain *chains;
	struct th_verify_action *acts;
	struct th_verify_region *regs;
	struct th_verify_wait *waits;
	struct th_verify_set set = {
		.limits = limits, .sq_entries = sq, .cq_entries = cq,
	};
	unsigned int i;
	int ret;

	/* a rank's chains wait on its peers': half a job never fires */
	if (g->nlocal != g->n)
		return -EOPNOTSUPP;
	chains = calloc(pl->nsteps + 1, sizeof(*chains));
	acts = calloc(g->nlocal + 1, sizeof(*acts));
	regs = calloc(3 * g->nlocal + 1, sizeof(*regs));
	waits = calloc(g->nlocal + 1, sizeof(*waits));
	if (!chains || !acts || !regs || !waits) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < pl->nsteps; i++) {
		const struct th_plan_step *st = &pl->step[i];
		const struct th_group_peer *p = &g->peers[g->local[st->local].rank];

		chains[i] = (struct th_verify_chain){
			.name = st->what, .node = p->node, .vport = p->vport,
			.descs = &pl->desc[st->first], .ndesc = st->ndesc,
		};
	}
	/*
	 * Each rank: the host starts the round, and waits for the round's
	 * NOTIFY, raised beside D (th_coll_wait()); its three regions.
	 */
	for (i = 0; i < g->nlocal; i++) {
		const struct th_group_rank *rk = &g->local[i];
		const struct th_group_peer *p = &g->peers[rk->rank];
		const struct th_mr *mr[3] = {
			rk->send_mr, rk->recv_mr, rk->scratch_mr,
		};
		unsigned int k;

		acts[i] = (struct th_verify_action){
			.counter = { .node = p->node, .vport = p->vport,
				     .ct = TH_COLL_CT_S },
			.value = 1,
		};
		waits[i] = (struct th_verify_wait){
			.counter = { .node = p->node, .vport = p->vport,
				     .ct = TH_COLL_CT_D },
			.value = 1,
		};
		for (k = 0; k < 3 && mr[0] && mr[1] && mr[2]; k++)
			regs[set.nregions++] = (struct th_verify_region){
				.node = p->node, .vport = p->vport,
				.lkey = mr[k]->lkey, .rkey = mr[k]->rkey,
				.len = mr[k]->len, .access = TH_NIC_ACCESS_ALL,
			};
	}
	set.chains = chains;
	set.nchains = pl->nsteps;
	set.actions = acts;
	set.nactions = g->nlocal;
	/* a handle's regions are all there or none is checked */
	if (set.nregions != 3 * g->nlocal)
		set.nregions = 0;
	set.regions = regs;
	set.waits = waits;
	set.nwaits = g->nlocal;
	/* the actions are one round's: no chain may fire two */
	set.rounds = 1;
	ret = th_verify(&set, out, max);
out:
	free(chains);
	free(acts);
	free(regs);
	free(waits);
	return ret;
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
