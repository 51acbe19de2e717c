// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fit.c - the limits the NIC enforces when a chain is posted, checked
 * before it is: its length against max_chain and the SQ, the CQ entries
 * it reserves (1 + every descriptor that writes an entry, as the engine
 * counts them; NOTIFY always writes one) against the CQ alone and beside
 * the other chains of its vport, every counter and node it names, and
 * the REARM rules.  A chain that does not fit is refused, so the rest of
 * the analysis takes it as never posted.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "th_engine_int.h"
#include "verify_priv.h"

struct tv_fit_limits {
	uint32_t nodes, max_counters, max_chain, sq, cq;
};

static void tv_fit_refuse(struct tv_model *m, uint32_t ci, uint32_t desc,
			  const uint32_t *ctr, const char *why)
{
	struct th_verify_finding *f;

	m->chains[ci].refused = true;
	f = tv_finding(m, TH_VERIFY_FIT, ci, desc, ctr);
	if (f)
		snprintf(f->why, sizeof(f->why), "%s", why);
}

/* A counter @ct of @node named by descriptor @i: in range? */
static bool tv_fit_counter(struct tv_model *m, const struct tv_fit_limits *l,
			   uint32_t ci, uint32_t i, uint32_t node,
			   uint32_t vport, uint16_t ct, const char *what)
{
	char why[256];
	uint32_t id;

	if (l->nodes && node >= l->nodes) {
		snprintf(why, sizeof(why),
			 "descriptor %u reaches node %u (its %s), but the fabric has %u nodes",
			 i, node, what, l->nodes);
		tv_fit_refuse(m, ci, i, NULL, why);
		return false;
	}
	if (!l->max_counters || ct < l->max_counters)
		return true;
	if (tv_counter_id(m, node, vport, ct, &id))
		id = TV_NONE;
	snprintf(why, sizeof(why),
		 "descriptor %u names %s %u, but a vport has %u counters (max_counters)",
		 i, what, ct, l->max_counters);
	tv_fit_refuse(m, ci, i, id == TV_NONE ? NULL : &id, why);
	return false;
}

/* Every counter and node descriptor @i of chain @ci names. */
static bool tv_fit_desc(struct tv_model *m, const struct tv_fit_limits *l,
			uint32_t ci, uint32_t i)
{
	const struct th_verify_chain *vc = &m->set->chains[ci];
	const struct th_nic_desc *d = &vc->descs[i];
	u32 f = th_eng_opdef(d->opcode)->flags;
	struct th_eng_remote_op op;
	char why[160];

	if (i == 0 && !tv_fit_counter(m, l, ci, i, vc->node, vc->vport,
				      d->trig_ct, "trigger counter"))
		return false;
	if ((d->flags & TH_NIC_DF_COMP_CT) &&
	    !tv_fit_counter(m, l, ci, i, vc->node, vc->vport, d->comp_ct,
			    "completion counter"))
		return false;
	if ((f & (TH_ENG_OPF_CT_INC | TH_ENG_OPF_CT_SET)) &&
	    !tv_fit_counter(m, l, ci, i, vc->node, vc->vport, d->ct.ct,
			    "counter"))
		return false;
	if (th_eng_desc_target(d, &op) &&
	    !tv_fit_counter(m, l, ci, i, op.node, op.vport,
			    op.remote_ct >= 0 ? (uint16_t)op.remote_ct : 0,
			    "target counter"))
		return false;
	if (f & TH_ENG_OPF_ENDS_ROUND) {
		if (i + 1 != vc->ndesc) {
			snprintf(why, sizeof(why),
				 "descriptor %u ends a round but is not the chain's last", i);
			tv_fit_refuse(m, ci, i, NULL, why);
			return false;
		}
		if (!d->rearm.stride) {
			snprintf(why, sizeof(why),
				 "descriptor %u re-arms with stride 0, which the NIC refuses", i);
			tv_fit_refuse(m, ci, i, &m->chains[ci].trig, why);
			return false;
		}
	}
	return true;
}

static struct tv_fit_limits tv_fit_limits(const struct th_verify_set *set)
{
	const struct th_nic_query *q = set->limits;
	struct tv_fit_limits l = { 0 };

	if (q) {
		l.nodes = q->node_count;
		l.max_counters = q->max_counters;
		l.max_chain = q->max_chain;
		l.sq = q->max_sq_entries;
		l.cq = q->max_cq_entries;
	}
	if (set->sq_entries)
		l.sq = set->sq_entries;
	if (set->cq_entries)
		l.cq = set->cq_entries;
	return l;
}

/*
 * The CQ entries held on each vport by the chains posted so far: an
 * open-addressing table of (node, vport), so that a set of many chains
 * is summed in one pass.
 */
struct tv_fit_vports {
	uint32_t nslots;
	struct tv_fit_vport {
		bool used;
		uint32_t node, vport;
		uint64_t held;
	} *slot;
};

static uint64_t *tv_fit_held(struct tv_fit_vports *t, uint32_t node,
			     uint32_t vport)
{
	uint64_t k = ((uint64_t)node << 32 | vport) * 0x9e3779b97f4a7c15ULL;
	uint32_t h = (uint32_t)(k >> 32) & (t->nslots - 1);

	while (t->slot[h].used &&
	       (t->slot[h].node != node || t->slot[h].vport != vport))
		h = (h + 1) & (t->nslots - 1);
	if (!t->slot[h].used)
		t->slot[h] = (struct tv_fit_vport){ .used = true, .node = node,
						    .vport = vport };
	return &t->slot[h].held;
}

int tv_fit(struct tv_model *m)
{
	const struct tv_fit_limits l = tv_fit_limits(m->set);
	struct tv_fit_vports vps = { .nslots = 16 };
	uint32_t ci, i;
	char why[256];

	/* at most one vport per chain: a table at most half full */
	while (vps.nslots < 2 * m->set->nchains)
		vps.nslots *= 2;
	vps.slot = calloc(vps.nslots, sizeof(*vps.slot));
	if (!vps.slot)
		return -ENOMEM;
	for (ci = 0; ci < m->set->nchains; ci++) {
		const struct th_verify_chain *vc = &m->set->chains[ci];
		struct tv_chain *c = &m->chains[ci];
		uint64_t *held, reserved;

		if (l.max_chain && vc->ndesc > l.max_chain) {
			snprintf(why, sizeof(why),
				 "%u descriptors, but a chain holds at most %u (max_chain)",
				 vc->ndesc, l.max_chain);
			tv_fit_refuse(m, ci, TV_NONE, NULL, why);
			continue;
		}
		if (l.sq && vc->ndesc > l.sq) {
			snprintf(why, sizeof(why),
				 "%u descriptors, but the SQ has %u slots",
				 vc->ndesc, l.sq);
			tv_fit_refuse(m, ci, TV_NONE, NULL, why);
			continue;
		}
		for (i = 0; i < vc->ndesc; i++)
			if (!tv_fit_desc(m, &l, ci, i))
				break;
		if (c->refused || !l.cq)
			continue;
		if (c->credits > l.cq) {
			snprintf(why, sizeof(why),
				 "a round needs %u CQ entries (1 + %u that write one), but the CQ has %u",
				 c->credits, c->credits - 1, l.cq);
			tv_fit_refuse(m, ci, TV_NONE, NULL, why);
			continue;
		}
		/*
		 * Its vport's chains posted before it still hold their
		 * entries unless they completed: counted as if none had,
		 * as the host posts them all before it starts any.
		 */
		held = tv_fit_held(&vps, vc->node, vc->vport);
		reserved = *held + c->credits;
		if (reserved > l.cq) {
			snprintf(why, sizeof(why),
				 "with the chains posted before it on its vport it needs %llu CQ entries, but the CQ has %u",
				 (unsigned long long)reserved, l.cq);
			tv_fit_refuse(m, ci, TV_NONE, NULL, why);
			continue;
		}
		*held = reserved;
	}
	free(vps.slot);
	return 0;
}
