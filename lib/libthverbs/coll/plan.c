// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * plan.c - a compiled collective (plan.h): the chains of every local rank,
 * recorded once by the compiler, posted once as re-arming chains.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "thverbs_priv.h"

int th_plan_init(struct th_plan *pl)
{
	memset(pl, 0, sizeof(*pl));
	pl->period = 1;
	pl->c = th_chain_create();
	return pl->c ? 0 : -ENOMEM;
}

struct th_chain *th_plan_chain(struct th_plan *pl)
{
	th_chain_reset(pl->c);
	return pl->c;
}

static int th_plan_grow(void **p, uint32_t *cap, uint32_t need, size_t size)
{
	uint32_t ncap = *cap ? *cap : 16;
	void *np;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	np = realloc(*p, (size_t)ncap * size);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = ncap;
	return 0;
}

int th_plan_add(struct th_plan *pl, unsigned int local, uint16_t ct,
		uint64_t threshold, uint64_t stride, const char *what)
{
	struct th_chain *c = pl->c;
	struct th_plan_step *st;
	int ret = 0;

	if (stride)
		ret = th_chain_rearm(c, stride, 0);
	if (!ret)
		ret = c->err;
	if (!ret && !c->n)
		ret = -EINVAL;
	if (!ret)
		ret = th_plan_grow((void **)&pl->step, &pl->cap, pl->nsteps + 1,
				   sizeof(*pl->step));
	if (!ret)
		ret = th_plan_grow((void **)&pl->desc, &pl->dcap,
				   pl->ndesc + c->n, sizeof(*pl->desc));
	if (ret)
		return ret;
	st = &pl->step[pl->nsteps++];
	*st = (struct th_plan_step){
		.local = local, .ct = ct, .threshold = threshold,
		.stride = stride, .first = pl->ndesc, .ndesc = c->n,
		.what = what,
	};
	memcpy(&pl->desc[pl->ndesc], c->d, c->n * sizeof(*c->d));
	/*
	 * The trigger as the SQ gets it: the descriptors kept are those
	 * posted and those the verifier reads (th_plan_verify())
	 */
	pl->desc[pl->ndesc].trig_ct = ct;
	pl->desc[pl->ndesc].threshold = threshold;
	pl->ndesc += c->n;
	return 0;
}

/* @st only raises a counter of its own vport by a constant each round */
static bool th_plan_step_is_relay(const struct th_plan *pl,
				  const struct th_plan_step *st)
{
	const struct th_nic_desc *d = &pl->desc[st->first];

	return st->threshold == 1 && st->stride == 1 && st->ndesc == 2 &&
	       d[0].opcode == TH_NIC_OP_CT_INC &&
	       d[0].flags == TH_NIC_DF_LINK &&
	       !d[0].cookie && d[1].opcode == TH_NIC_OP_REARM &&
	       d[1].rearm.stride == 1 && !d[1].flags;
}

/* Keep the steps @drop does not mark, and their descriptors, in order. */
static void th_plan_compact(struct th_plan *pl, const bool *drop)
{
	unsigned int i, kept = 0;
	uint32_t nd = 0;

	for (i = 0; i < pl->nsteps; i++) {
		struct th_plan_step st = pl->step[i];

		if (drop[i])
			continue;
		memmove(&pl->desc[nd], &pl->desc[st.first],
			st.ndesc * sizeof(*pl->desc));
		st.first = nd;
		nd += st.ndesc;
		pl->step[kept++] = st;
	}
	pl->nsteps = kept;
	pl->ndesc = nd;
}

int th_plan_fold_starts(struct th_plan *pl, unsigned int nlocal,
			uint16_t start_ct)
{
	unsigned int li, i, *on_start, *at;
	bool *drop;
	int ret = -ENOMEM;

	free(pl->start);
	pl->start = calloc(nlocal, sizeof(*pl->start));
	on_start = calloc(nlocal, sizeof(*on_start));
	at = calloc(nlocal, sizeof(*at));
	drop = calloc(pl->nsteps ? pl->nsteps : 1, sizeof(*drop));
	if (!pl->start || !on_start || !at || !drop) {
		free(pl->start);	/* nothing half-made: S by 1, as before */
		pl->start = NULL;
		goto out;
	}
	for (i = 0; i < pl->nsteps; i++) {
		if (pl->step[i].ct != start_ct || pl->step[i].local >= nlocal)
			continue;
		on_start[pl->step[i].local]++;
		at[pl->step[i].local] = i;
	}
	for (li = 0; li < nlocal; li++) {
		const struct th_nic_desc *d;

		pl->start[li] = (struct th_plan_start){ start_ct, 1 };
		if (on_start[li] != 1 ||
		    !th_plan_step_is_relay(pl, &pl->step[at[li]]))
			continue;
		d = &pl->desc[pl->step[at[li]].first];
		if (d->ct.ct == start_ct)
			continue;
		pl->start[li] = (struct th_plan_start){ d->ct.ct, d->ct.value };
		drop[at[li]] = true;
	}
	th_plan_compact(pl, drop);
	ret = 0;
out:
	free(on_start);
	free(at);
	free(drop);
	return ret;
}

struct th_plan_start th_plan_start_of(const struct th_plan *pl,
				      unsigned int local, uint16_t start_ct)
{
	if (pl->start)
		return pl->start[local];
	return (struct th_plan_start){ start_ct, 1 };
}

/* Stage local rank @local's steps; the caller rings its doorbell. */
static int th_plan_stage_rank(struct th_plan *pl, struct th_group_rank *rk,
			      unsigned int local)
{
	struct th_chain *c = pl->c;
	unsigned int i;
	int ret = 0;

	for (i = 0; !ret && i < pl->nsteps; i++) {
		const struct th_plan_step *st = &pl->step[i];

		if (st->local != local)
			continue;
		th_chain_reset(c);
		memcpy(c->d, &pl->desc[st->first], st->ndesc * sizeof(*c->d));
		c->n = st->ndesc;
		/* the descriptors are the plan, as the verifier reads it */
		th_chain_trigger(c, c->d[0].trig_ct, c->d[0].threshold, 0);
		ret = th_stage_chain(rk->vp, c);
	}
	th_chain_reset(c);
	return ret;
}

int th_plan_post(struct th_plan *pl, struct th_group *g)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; !ret && i < g->nlocal; i++) {
		ret = th_plan_stage_rank(pl, &g->local[i], i);
		if (!ret)
			ret = th_ring_doorbell(g->local[i].vp);
	}
	return ret;
}

void th_plan_fini(struct th_plan *pl)
{
	th_chain_destroy(pl->c);
	free(pl->step);
	free(pl->desc);
	free(pl->start);
	memset(pl, 0, sizeof(*pl));
}
