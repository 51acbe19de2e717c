// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fit.c - the limits the NIC enforces when a chain is posted, checked
 * before it is by the engine's own function (th_eng_chain_fit(): its
 * length against max_chain and the SQ, every counter and node it names,
 * the REARM rules, the CQ entries one round writes), so that a set that
 * verifies is never refused for size; and beside the other chains of its
 * vport, the CQ entries they all reserve (1 + every descriptor that
 * writes an entry, th_eng_chain_credits()).  A chain that does not fit is
 * refused, so the rest of the analysis takes it as never posted.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "th_engine_int.h"
#include "verify_priv.h"

static void tv_fit_refuse(struct tv_model *m, uint32_t ci, uint32_t desc,
			  const uint32_t *ctr, const char *why)
{
	struct th_verify_finding *f;

	m->chains[ci].refused = true;
	f = tv_finding(m, TH_VERIFY_FIT, ci, desc, ctr);
	if (f)
		snprintf(f->why, sizeof(f->why), "%s", why);
}

/* The limits as th_eng_chain_fit() takes them; 0: not checked. */
static struct th_eng_fit tv_fit_limits(const struct th_verify_set *set)
{
	const struct th_nic_query *q = set->limits;
	struct th_eng_fit l = { 0 };

	if (q) {
		l.nodes = q->node_count;
		l.max_vports = q->max_vports;
		l.max_counters = q->max_counters;
		l.max_chain = q->max_chain;
		l.sq_entries = q->max_sq_entries;
		l.cq_entries = q->max_cq_entries;
	}
	if (set->sq_entries)
		l.sq_entries = set->sq_entries;
	if (set->cq_entries)
		l.cq_entries = set->cq_entries;
	return l;
}

/*
 * The counter of descriptor @i that th_eng_chain_fit() found out of range
 * (its order: completion, operand, target), named for the finding.
 */
static int tv_fit_bad_counter(struct tv_model *m, const struct th_eng_fit *l,
			      const struct th_verify_chain *vc, uint32_t i,
			      uint32_t *id, const char **what, uint32_t *node,
			      uint16_t *ct)
{
	const struct th_nic_desc *d = &vc->descs[i];
	u32 f = th_eng_opdef(d->opcode)->flags;
	struct th_eng_remote_op op;
	uint32_t vport = vc->vport;

	*node = vc->node;
	if ((d->flags & TH_NIC_DF_COMP_CT) && d->comp_ct >= l->max_counters) {
		*ct = d->comp_ct;
		*what = "completion counter";
	} else if ((f & (TH_ENG_OPF_CT_INC | TH_ENG_OPF_CT_SET)) &&
		   d->ct.ct >= l->max_counters) {
		*ct = d->ct.ct;
		*what = "counter";
	} else if (th_eng_desc_target(d, &op) && op.remote_ct >= 0) {
		*ct = (uint16_t)op.remote_ct;
		*node = op.node;
		vport = op.vport;
		*what = "target counter";
	} else {
		return -ENOENT;
	}
	return tv_counter_id(m, *node, vport, *ct, id);
}

/* Chain @ci refused by th_eng_chain_fit() for @reason at descriptor @i. */
static void tv_fit_why(struct tv_model *m, const struct th_eng_fit *l,
		       uint32_t ci, u32 reason, uint32_t i)
{
	const struct th_verify_chain *vc = &m->set->chains[ci];
	const struct th_nic_desc *d = &vc->descs[i];
	struct th_eng_remote_op op;
	const char *what = "counter";
	uint32_t id, node;
	char why[256];
	uint16_t ct;

	switch (reason) {
	case TH_NIC_REFUSE_CHAIN:
		if (l->max_chain && vc->ndesc > l->max_chain)
			snprintf(why, sizeof(why),
				 "%u descriptors, but a chain holds at most %u (max_chain)",
				 vc->ndesc, l->max_chain);
		else
			snprintf(why, sizeof(why),
				 "%u descriptors, but the SQ has %u slots",
				 vc->ndesc, l->sq_entries);
		tv_fit_refuse(m, ci, TV_NONE, NULL, why);
		return;
	case TH_NIC_REFUSE_TRIGGER:
		snprintf(why, sizeof(why),
			 "descriptor %u names trigger counter %u, but a vport has %u counters (max_counters)",
			 i, d->trig_ct, l->max_counters);
		tv_fit_refuse(m, ci, i, &m->chains[ci].trig, why);
		return;
	case TH_NIC_REFUSE_COUNTER:
		if (tv_fit_bad_counter(m, l, vc, i, &id, &what, &node, &ct))
			break;
		snprintf(why, sizeof(why),
			 "descriptor %u names %s %u, but a vport has %u counters (max_counters)",
			 i, what, ct, l->max_counters);
		tv_fit_refuse(m, ci, i, &id, why);
		return;
	case TH_NIC_REFUSE_ADDRESS:
		if (!th_eng_desc_target(d, &op))
			break;
		if (l->nodes && op.node >= l->nodes)
			snprintf(why, sizeof(why),
				 "descriptor %u reaches node %u (its target), but the fabric has %u nodes",
				 i, op.node, l->nodes);
		else
			snprintf(why, sizeof(why),
				 "descriptor %u reaches vport %u of node %u, but a node has %u vports",
				 i, op.vport, op.node, l->max_vports);
		tv_fit_refuse(m, ci, i, NULL, why);
		return;
	case TH_NIC_REFUSE_REARM:
		if (i + 1 != vc->ndesc) {
			snprintf(why, sizeof(why),
				 "descriptor %u ends a round but is not the chain's last", i);
			tv_fit_refuse(m, ci, i, NULL, why);
		} else {
			snprintf(why, sizeof(why),
				 "descriptor %u re-arms with stride 0, which the NIC refuses", i);
			tv_fit_refuse(m, ci, i, &m->chains[ci].trig, why);
		}
		return;
	case TH_NIC_REFUSE_CQ_SIZE:
		snprintf(why, sizeof(why),
			 "a round needs %u CQ entries (1 + %u that write one), but the CQ has %u",
			 m->chains[ci].credits, m->chains[ci].credits - 1,
			 l->cq_entries);
		tv_fit_refuse(m, ci, TV_NONE, NULL, why);
		return;
	default:
		break;
	}
	snprintf(why, sizeof(why), "descriptor %u: the doorbell refuses it (reason %u)",
		 i, reason);
	tv_fit_refuse(m, ci, i, NULL, why);
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
	const struct th_eng_fit l = tv_fit_limits(m->set);
	struct tv_fit_vports vps = { .nslots = 16 };
	uint32_t ci, bad;
	char why[256];
	u32 reason;

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

		/* the doorbell's own rules, from the engine */
		reason = th_eng_chain_fit(&l, vc->descs, vc->ndesc, &bad);
		if (reason) {
			tv_fit_why(m, &l, ci, reason, bad);
			continue;
		}
		if (!l.cq_entries)
			continue;
		/*
		 * Its vport's chains posted before it still hold their
		 * entries unless they completed: counted as if none had,
		 * as the host posts them all before it starts any.
		 */
		held = tv_fit_held(&vps, vc->node, vc->vport);
		reserved = *held + c->credits;
		if (reserved > l.cq_entries) {
			snprintf(why, sizeof(why),
				 "with the chains posted before it on its vport it needs %llu CQ entries, but the CQ has %u",
				 (unsigned long long)reserved, l.cq_entries);
			tv_fit_refuse(m, ci, TV_NONE, NULL, why);
			continue;
		}
		*held = reserved;
	}
	free(vps.slot);
	return 0;
}
