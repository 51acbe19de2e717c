// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * plan_verify.c - a compiled plan as the chain verifier's input: each
 * step is one chain on its rank's node and vport, its descriptors the
 * very ones th_plan_post() posts, and each rank's start increment the
 * host's one update per round (Documentation/verify.rst, "Plans").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "plan.h"

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
	if (!chains || !acts) {
		free(chains);
		free(acts);
		return -ENOMEM;
	}
	for (i = 0; i < pl->nsteps; i++) {
		const struct th_plan_step *st = &pl->step[i];
		const struct th_group_peer *p = &g->peers[g->local[st->local].rank];

		chains[i] = (struct th_verify_chain){
			.name = st->what, .node = p->node, .vport = p->vport,
			.descs = &pl->desc[st->first], .ndesc = st->ndesc,
		};
	}
	for (i = 0; i < g->nlocal; i++) {
		const struct th_group_peer *p = &g->peers[g->local[i].rank];

		acts[i] = (struct th_verify_action){
			.counter = { .node = p->node, .vport = p->vport,
				     .ct = TH_COLL_CT_S },
			.value = 1,
		};
	}
	set.chains = chains;
	set.nchains = pl->nsteps;
	set.actions = acts;
	set.nactions = g->nlocal;
	ret = th_verify(&set, out, max);
	free(chains);
	free(acts);
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
