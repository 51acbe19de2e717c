// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * model.c - the verifier's model of a set of chains: every counter the
 * chains and the host name, and what each descriptor raises each round,
 * read from the engine's opcode table (a CT_INC or CT_SET operand, the
 * completion counter, a counter at the target) and never from an
 * opcode's name.  Failure values are left out: a threshold waits on a
 * counter's success value, which a failure does not advance.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "th_engine_int.h"
#include "verify_priv.h"

static uint32_t tv_counter_hash(uint32_t node, uint32_t vport, uint16_t ct)
{
	uint64_t h = ((uint64_t)node << 32 | vport) * 0x9e3779b97f4a7c15ULL;

	h ^= (h >> 29) + ct * 0xbf58476d1ce4e5b9ULL;
	return (uint32_t)(h ^ (h >> 32));
}

/*
 * The counters' index: open addressing over @m->slot (TV_NONE: empty),
 * kept at most half full, so that a set of many counters is not looked
 * up in time linear in their number.
 */
static int tv_counter_rehash(struct tv_model *m, uint32_t nslots)
{
	uint32_t *slot = malloc(nslots * sizeof(*slot)), i, h;

	if (!slot)
		return -ENOMEM;
	for (i = 0; i < nslots; i++)
		slot[i] = TV_NONE;
	for (i = 0; i < m->nctrs; i++) {
		const struct th_verify_counter *c = &m->ctrs[i];

		h = tv_counter_hash(c->node, c->vport, c->ct) & (nslots - 1);
		while (slot[h] != TV_NONE)
			h = (h + 1) & (nslots - 1);
		slot[h] = i;
	}
	free(m->slot);
	m->slot = slot;
	m->nslots = nslots;
	return 0;
}

/* The index of counter (@node, @vport, @ct), added if new. */
int tv_counter_id(struct tv_model *m, uint32_t node, uint32_t vport,
		  uint16_t ct, uint32_t *id)
{
	uint32_t h;
	int ret;

	if (2 * (m->nctrs + 1) > m->nslots) {
		ret = tv_counter_rehash(m, m->nslots ? 2 * m->nslots : 64);
		if (ret)
			return ret;
	}
	h = tv_counter_hash(node, vport, ct) & (m->nslots - 1);
	for (; m->slot[h] != TV_NONE; h = (h + 1) & (m->nslots - 1)) {
		const struct th_verify_counter *c = &m->ctrs[m->slot[h]];

		if (c->node == node && c->vport == vport && c->ct == ct) {
			*id = m->slot[h];
			return 0;
		}
	}
	if (m->nctrs == m->ctr_cap) {
		uint32_t cap = m->ctr_cap ? 2 * m->ctr_cap : 16;
		struct th_verify_counter *c = realloc(m->ctrs, cap * sizeof(*c));
		struct tv_host *hs;

		if (!c)
			return -ENOMEM;
		m->ctrs = c;
		hs = realloc(m->host, cap * sizeof(*hs));
		if (!hs)
			return -ENOMEM;
		m->host = hs;
		m->ctr_cap = cap;
	}
	m->ctrs[m->nctrs] = (struct th_verify_counter){
		.node = node, .vport = vport, .ct = ct };
	memset(&m->host[m->nctrs], 0, sizeof(m->host[0]));
	m->slot[h] = m->nctrs;
	*id = m->nctrs++;
	return 0;
}

static int tv_effect_add(struct tv_model *m, uint32_t desc, uint32_t node,
			 uint32_t vport, uint16_t ct, bool set, uint64_t value)
{
	struct tv_effect *e;
	uint32_t id;
	int ret;

	ret = tv_counter_id(m, node, vport, ct, &id);
	if (ret)
		return ret;
	if (m->neffs == m->eff_cap) {
		uint32_t cap = m->eff_cap ? 2 * m->eff_cap : 32;

		e = realloc(m->effs, cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		m->effs = e;
		m->eff_cap = cap;
	}
	e = &m->effs[m->neffs++];
	*e = (struct tv_effect){ .ctr = id, .desc = desc, .set = set };
	if (set)
		e->set_value = value;
	else
		e->inc = value;
	return 0;
}

/*
 * What descriptor @i of @vc raises when it runs: its operand's counter
 * (CT_INC adds its value, a negative one counting as nothing, as the most
 * a counter can reach is what matters; CT_SET sets it), its completion
 * counter, and the counter it raises at its target.
 */
static int tv_desc_effects(struct tv_model *m, const struct th_verify_chain *vc,
			   uint32_t i)
{
	const struct th_nic_desc *d = &vc->descs[i];
	u32 f = th_eng_opdef(d->opcode)->flags;
	struct th_eng_remote_op op;
	int ret = 0;

	if (f & TH_ENG_OPF_CT_INC) {
		int64_t by = (int64_t)d->ct.value;

		ret = tv_effect_add(m, i, vc->node, vc->vport, d->ct.ct, false,
				    by > 0 ? (uint64_t)by : 0);
	} else if (f & TH_ENG_OPF_CT_SET) {
		ret = tv_effect_add(m, i, vc->node, vc->vport, d->ct.ct, true,
				    d->ct.value);
	}
	if (!ret && (d->flags & TH_NIC_DF_COMP_CT))
		ret = tv_effect_add(m, i, vc->node, vc->vport, d->comp_ct,
				    false, 1);
	if (!ret && th_eng_desc_target(d, &op) && op.remote_ct >= 0)
		ret = tv_effect_add(m, i, op.node, op.vport,
				    (uint16_t)op.remote_ct, false, 1);
	return ret;
}

static int tv_chain_build(struct tv_model *m, uint32_t ci)
{
	const struct th_verify_chain *vc = &m->set->chains[ci];
	struct tv_chain *c = &m->chains[ci];
	const struct th_nic_desc *last;
	uint32_t i;
	int ret;

	if (!vc->descs || !vc->ndesc)
		return -EINVAL;
	for (i = 0; i < vc->ndesc; i++)
		if (vc->descs[i].opcode >= TH_NIC_OP_MAX)
			return -EINVAL;
	ret = tv_counter_id(m, vc->node, vc->vport, vc->descs[0].trig_ct,
			    &c->trig);
	if (ret)
		return ret;
	c->threshold = vc->descs[0].threshold;
	last = &vc->descs[vc->ndesc - 1];
	if (th_eng_opdef(last->opcode)->flags & TH_ENG_OPF_ENDS_ROUND) {
		c->rearm = true;
		c->stride = last->rearm.stride;
	}
	/* as the engine reserves at posting: one for an error or cancel */
	c->credits = th_eng_chain_credits(vc->descs, vc->ndesc);
	c->first_eff = m->neffs;
	for (i = 0; i < vc->ndesc; i++) {
		ret = tv_desc_effects(m, vc, i);
		if (ret)
			return ret;
	}
	c->neff = m->neffs - c->first_eff;
	return 0;
}

static int tv_host_build(struct tv_model *m)
{
	uint32_t i, id;
	int ret;

	/* the counters the host waits on are counters of the model too */
	for (i = 0; i < m->set->nwaits; i++) {
		const struct th_verify_counter *c = &m->set->waits[i].counter;

		ret = tv_counter_id(m, c->node, c->vport, c->ct, &id);
		if (ret)
			return ret;
	}
	for (i = 0; i < m->set->nactions; i++) {
		const struct th_verify_action *a = &m->set->actions[i];
		struct tv_host *h;

		ret = tv_counter_id(m, a->counter.node, a->counter.vport,
				    a->counter.ct, &id);
		if (ret)
			return ret;
		h = &m->host[id];
		h->writers++;
		if (a->set) {
			h->setters++;
			h->set = true;
			if (a->value > h->set_max)
				h->set_max = a->value;
		} else if ((int64_t)a->value > 0) {
			h->inc = tv_sat_add(h->inc, a->value);
		}
	}
	return 0;
}

int tv_model_build(struct tv_model *m, const struct th_verify_set *set)
{
	uint32_t i;
	int ret;

	m->set = set;
	if (set->nchains && !set->chains)
		return -EINVAL;
	if (set->nactions && !set->actions)
		return -EINVAL;
	if ((set->nregions && !set->regions) || (set->nwaits && !set->waits))
		return -EINVAL;
	m->chains = calloc(set->nchains ? set->nchains : 1, sizeof(*m->chains));
	if (!m->chains)
		return -ENOMEM;
	for (i = 0; i < set->nchains; i++) {
		ret = tv_chain_build(m, i);
		if (ret)
			return ret;
	}
	return tv_host_build(m);
}

/*
 * The chains each chain can trigger, as lists: once per pair, whatever
 * the number of its descriptors that raise the counter.  Searching for
 * cycles then costs the graph's edges, not chains times chains.
 */
int tv_model_graph(struct tv_model *m)
{
	uint32_t n = m->set->nchains, a, b, e, k, edges = 0;
	uint32_t *wait_first = calloc(m->nctrs + 2, sizeof(*wait_first));
	uint32_t *waiters = calloc(n + 1, sizeof(*waiters));
	uint32_t *seen = calloc(n + 1, sizeof(*seen));
	int ret = -ENOMEM;

	m->wait_first = wait_first;
	m->waiters = waiters;
	m->succ_first = calloc(n + 2, sizeof(*m->succ_first));
	m->alone_reach = calloc(m->nctrs + 1, sizeof(*m->alone_reach));
	m->alone_setmax = calloc(m->nctrs + 1, sizeof(*m->alone_setmax));
	m->alone_touched = calloc(m->nctrs + 1, sizeof(*m->alone_touched));
	m->alone_list = calloc(m->nctrs + 1, sizeof(*m->alone_list));
	m->alone_queued = calloc(n + 1, sizeof(*m->alone_queued));
	m->alone_changes = calloc(n + 1, sizeof(*m->alone_changes));
	m->alone_queue = calloc(n + 1, sizeof(*m->alone_queue));
	m->alone_rounds = calloc(n + 1, sizeof(*m->alone_rounds));
	m->alone_fired = calloc(n + 1, sizeof(*m->alone_fired));
	m->zero_chains = calloc(n + 1, sizeof(*m->zero_chains));
	if (!wait_first || !waiters || !seen || !m->succ_first ||
	    !m->alone_reach || !m->alone_setmax || !m->alone_touched ||
	    !m->alone_list || !m->alone_queued || !m->alone_changes ||
	    !m->alone_queue || !m->alone_rounds || !m->alone_fired ||
	    !m->zero_chains)
		goto out;
	for (b = 0; b < n; b++)
		if (!m->chains[b].threshold)
			m->zero_chains[m->nzero++] = b;
	/* the chains waiting on each counter, grouped by counter */
	for (b = 0; b < n; b++)
		wait_first[m->chains[b].trig + 2]++;
	for (k = 2; k < m->nctrs + 2; k++)
		wait_first[k] += wait_first[k - 1];
	for (b = 0; b < n; b++)
		waiters[wait_first[m->chains[b].trig + 1]++] = b;
	/* two passes: count the edges, then fill them in */
	for (int pass = 0; pass < 2; pass++) {
		for (b = 0; b < n; b++)
			seen[b] = UINT32_MAX;
		edges = 0;
		for (a = 0; a < n; a++) {
			const struct tv_chain *c = &m->chains[a];

			if (pass)
				m->succ_first[a] = edges;
			for (e = c->first_eff; e < c->first_eff + c->neff; e++) {
				const struct tv_effect *ef = &m->effs[e];

				if (ef->set ? !ef->set_value : !ef->inc)
					continue;
				for (k = wait_first[ef->ctr]; k < wait_first[ef->ctr + 1]; k++) {
					b = waiters[k];
					if (seen[b] == a)
						continue;
					seen[b] = a;
					if (pass)
						m->succ[edges] = b;
					edges++;
				}
			}
		}
		if (!pass) {
			m->succ = calloc(edges + 1, sizeof(*m->succ));
			if (!m->succ)
				goto out;
		}
	}
	m->succ_first[n] = edges;
	ret = 0;
out:
	/* the waiters stay in the model, grouped by counter */
	free(seen);
	return ret;
}

void tv_model_free(struct tv_model *m)
{
	free(m->slot);
	free(m->succ_first);
	free(m->succ);
	free(m->wait_first);
	free(m->waiters);
	free(m->alone_reach);
	free(m->alone_setmax);
	free(m->alone_touched);
	free(m->alone_list);
	free(m->alone_queued);
	free(m->alone_changes);
	free(m->alone_queue);
	free(m->alone_rounds);
	free(m->alone_fired);
	free(m->zero_chains);
	free(m->ctrs);
	free(m->host);
	free(m->chains);
	free(m->effs);
}

/* Does chain @chain raise (add to or set) counter @ctr? */
bool tv_chain_raises(const struct tv_model *m, uint32_t chain, uint32_t ctr)
{
	const struct tv_chain *c = &m->chains[chain];
	uint32_t i;

	for (i = c->first_eff; i < c->first_eff + c->neff; i++) {
		const struct tv_effect *e = &m->effs[i];

		if (e->ctr == ctr && (e->set ? e->set_value > 0 : e->inc > 0))
			return true;
	}
	return false;
}

const char *tv_chain_name(const struct tv_model *m, uint32_t chain,
			  char *buf, unsigned int len)
{
	const char *name = m->set->chains[chain].name;

	if (name)
		return name;
	snprintf(buf, len, "#%u", chain);
	return buf;
}

/* "n1.v0.ct3": node, vport, counter */
void tv_counter_str(const struct th_verify_counter *c, char *buf,
		    unsigned int len)
{
	snprintf(buf, len, "n%u.v%u.ct%u", c->node, c->vport, c->ct);
}
