// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * cset.c - chains in the simulator's own form (struct sim_cset): each of
 * the NIC's descriptors read once through the engine's opcode table
 * (driver/trigger/th_opcode.h) - what it costs, the counters it raises,
 * where it delivers - and kept in 40 bytes, its counters as indices found
 * by (node, vport, ct) in a hash table that grows as they come.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "th_alu.h"
#include "th_engine_int.h"
#include "sim_priv.h"

void sim_cset_init(struct sim_cset *cs, const struct th_sim_nic *nic)
{
	memset(cs, 0, sizeof(*cs));
	cs->nic = *nic;
}

void sim_cset_fini(struct sim_cset *cs)
{
	free(cs->chains);
	free(cs->descs);
	free(cs->acts);
	free(cs->ctrs);
	free(cs->hash);
	memset(cs, 0, sizeof(*cs));
}

static uint32_t cs_hash(uint32_t node, uint32_t vport, uint16_t ct)
{
	/* splitmix64's finaliser over the three: every bit of each counts */
	uint64_t k = ((uint64_t)node << 32 | vport) ^ ((uint64_t)ct << 48) ^
		     ct;

	k ^= k >> 30;
	k *= 0xbf58476d1ce4e5b9ull;
	k ^= k >> 27;
	k *= 0x94d049bb133111ebull;
	k ^= k >> 31;
	return (uint32_t)k;
}

/* Doubles the counter table and its index (load at most a half). */
static int cs_grow(struct sim_cset *cs)
{
	uint32_t cap = cs->cap_ctrs ? 2 * cs->cap_ctrs : 1024, i, mask;
	struct th_verify_counter *c;
	uint32_t *h;

	if (cap >= SIM_MAX_OPS)
		return -E2BIG;
	mask = 2 * cap - 1;
	c = realloc(cs->ctrs, cap * sizeof(*c));
	if (!c)
		return -ENOMEM;
	cs->ctrs = c;
	h = malloc(2 * (size_t)cap * sizeof(*h));
	if (!h)
		return -ENOMEM;
	memset(h, 0xff, 2 * (size_t)cap * sizeof(*h));
	for (i = 0; i < cs->nctrs; i++) {
		uint32_t k = cs_hash(c[i].node, c[i].vport, c[i].ct) & mask;

		while (h[k] != SIM_NIL)
			k = (k + 1) & mask;
		h[k] = i;
	}
	free(cs->hash);
	cs->hash = h;
	cs->hash_mask = mask;
	cs->cap_ctrs = cap;
	return 0;
}

/* The index of counter (@node, @vport, @ct), added if new. */
static int cs_counter(struct sim_cset *cs, uint32_t node, uint32_t vport,
		      uint16_t ct, uint32_t *id)
{
	uint32_t h;
	int ret;

	if (node >= SIM_MAX_RANKS)
		return -E2BIG;
	if (cs->nctrs == cs->cap_ctrs) {
		ret = cs_grow(cs);
		if (ret)
			return ret;
	}
	for (h = cs_hash(node, vport, ct) & cs->hash_mask;;
	     h = (h + 1) & cs->hash_mask) {
		uint32_t i = cs->hash[h];

		if (i == SIM_NIL)
			break;
		if (cs->ctrs[i].node == node && cs->ctrs[i].vport == vport &&
		    cs->ctrs[i].ct == ct) {
			*id = i;
			return 0;
		}
	}
	cs->ctrs[cs->nctrs] = (struct th_verify_counter){
		.node = node, .vport = vport, .ct = ct };
	cs->hash[h] = cs->nctrs;
	*id = cs->nctrs++;
	if (node >= cs->nodes)
		cs->nodes = node + 1;
	return 0;
}

/* room for @n more of an array of @size-byte items */
static int cs_room(void **arr, uint32_t *cap, uint32_t len, uint64_t n,
		   size_t size)
{
	uint64_t want = (uint64_t)len + n, c = *cap ? *cap : 64;
	void *a;

	if (want <= *cap)
		return 0;
	if (want >= SIM_MAX_OPS)
		return -E2BIG;
	while (c < want)
		c *= 2;
	if (c > SIM_MAX_OPS)
		c = SIM_MAX_OPS;
	a = realloc(*arr, c * size);
	if (!a)
		return -ENOMEM;
	*arr = a;
	*cap = (uint32_t)c;
	return 0;
}

static uint64_t cs_mul_add(struct sim_cset *cs, uint64_t a, uint64_t b,
			   uint64_t c)
{
	uint64_t r;

	if (__builtin_mul_overflow(a, b, &r) || __builtin_add_overflow(r / 1000, c, &r)) {
		cs->overflow = true;
		return UINT64_MAX;
	}
	return r;
}

/*
 * Descriptor @d of a chain on (@node, @vport) in the simulator's form, read
 * from its row of the opcode table: its charge says what it costs (WIRE:
 * a message, unless its target is on @node, which is a copy; COPY and
 * ALU: the engine's time for its bytes; NONE: nothing), its flags which
 * counters it raises.
 */
static int cs_desc(struct sim_cset *cs, uint32_t node, uint32_t vport,
		   const struct th_nic_desc *d, struct sim_cdesc *out)
{
	const struct th_eng_opdef *def = th_eng_opdef(d->opcode);
	struct th_eng_remote_op op;
	bool target = th_eng_desc_target(d, &op);
	uint64_t len;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	out->ct_op = out->ct_comp = out->ct_remote = out->target = SIM_NIL;
	out->set = !!(def->flags & TH_ENG_OPF_CT_SET);
	out->ends_round = !!(def->flags & TH_ENG_OPF_ENDS_ROUND);
	out->visible = (def->flags & (TH_ENG_OPF_CT_INC | TH_ENG_OPF_CT_SET |
				      TH_ENG_OPF_CQE)) ||
		       (d->flags & (TH_NIC_DF_COMP_CT | TH_NIC_DF_SIGNAL));
	if (def->flags & (TH_ENG_OPF_CT_INC | TH_ENG_OPF_CT_SET)) {
		out->arg = d->ct.value;
		ret = cs_counter(cs, node, vport, d->ct.ct, &out->ct_op);
	} else if (out->ends_round) {
		out->arg = d->rearm.stride;
	}
	if (!ret && (d->flags & TH_NIC_DF_COMP_CT))
		ret = cs_counter(cs, node, vport, d->comp_ct, &out->ct_comp);
	if (!ret && target && op.remote_ct >= 0)
		ret = cs_counter(cs, op.node, op.vport, (uint16_t)op.remote_ct,
				 &out->ct_remote);
	if (ret)
		return ret;
	switch (def->charge) {
	case TH_ENG_CHARGE_WIRE:
		if (target && op.node != node) {
			if (op.node >= SIM_MAX_RANKS)
				return -E2BIG;
			if (op.node >= cs->nodes)
				cs->nodes = op.node + 1;
			out->kind = op.fetch ? SIM_CD_FETCH : SIM_CD_SEND;
			out->target = op.node;
			out->arg = op.len;
			return 0;
		}
		/* a target on this node: a copy here */
		out->kind = SIM_CD_WORK;
		out->arg = cs_mul_add(cs, th_eng_desc_len(d), cs->nic.copy_ps,
				      cs->nic.desc_ns);
		return 0;
	case TH_ENG_CHARGE_COPY:
		out->kind = SIM_CD_WORK;
		out->arg = cs_mul_add(cs, th_eng_desc_len(d), cs->nic.copy_ps,
				      cs->nic.desc_ns);
		return 0;
	case TH_ENG_CHARGE_ALU:
		/* every source, and the destination when accumulating */
		len = (uint64_t)d->reduce.count *
		      th_alu_dtype_size(d->reduce.dtype) *
		      (d->reduce.nsrc + !!(d->reduce.rflags & TH_NIC_RF_ACCUMULATE));
		out->kind = SIM_CD_WORK;
		out->arg = cs_mul_add(cs, len, cs->nic.alu_ps, cs->nic.desc_ns);
		return 0;
	default:
		out->kind = SIM_CD_NONE;
		return 0;
	}
}

int sim_cset_add_chain(struct sim_cset *cs, uint32_t node, uint32_t vport,
		       const struct th_nic_desc *descs, uint32_t ndesc)
{
	struct sim_cchain *c;
	uint32_t i;
	int ret;

	if (!descs || !ndesc)
		return -EINVAL;
	for (i = 0; i < ndesc; i++)
		if (descs[i].opcode >= TH_NIC_OP_MAX)
			return -EINVAL;
	ret = cs_room((void **)&cs->chains, &cs->cap_chains, cs->nchains, 1,
		      sizeof(*cs->chains));
	if (!ret)
		ret = cs_room((void **)&cs->descs, &cs->cap_descs, cs->ndescs,
			      ndesc, sizeof(*cs->descs));
	if (ret)
		return ret;
	c = &cs->chains[cs->nchains];
	c->node = node;
	c->threshold = descs[0].threshold;
	c->first = cs->ndescs;
	c->ndesc = ndesc;
	ret = cs_counter(cs, node, vport, descs[0].trig_ct, &c->ctr);
	for (i = 0; !ret && i < ndesc; i++) {
		ret = cs_desc(cs, node, vport, &descs[i],
			      &cs->descs[cs->ndescs + i]);
		cs->descs[cs->ndescs + i].chain = cs->nchains;
	}
	if (ret)
		return ret;
	cs->ndescs += ndesc;
	cs->nchains++;
	return 0;
}

int sim_cset_add_action(struct sim_cset *cs, const struct th_verify_action *a)
{
	struct sim_caction *act;
	int ret;

	ret = cs_room((void **)&cs->acts, &cs->cap_acts, cs->nacts, 1,
		      sizeof(*cs->acts));
	if (ret)
		return ret;
	act = &cs->acts[cs->nacts];
	ret = cs_counter(cs, a->counter.node, a->counter.vport, a->counter.ct,
			 &act->ctr);
	if (ret)
		return ret;
	act->set = a->set;
	act->value = a->value;
	cs->nacts++;
	return 0;
}
