// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * chainset.c - a chain file as the set th_verify() and th_sim_chains()
 * take (chainset.h): each chain's descriptors as 'thctl post' would post
 * them, each 'mr' line a region of the set under keys of its own (the
 * MR's index plus one, as no memory is registered), the 'start' counter
 * updates as the host's, and each 'expect' line as a wait of the host's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "chainset.h"

/*
 * The key that stands for MR @mr in the set, local and remote alike
 * (th_verify_region's lkey and rkey): 0 is no MR's.
 */
static uint32_t cf_set_key(unsigned int mr)
{
	return mr + 1;
}

/* The descriptors of chain @c as 'thctl post' would post them. */
static void cf_set_descs(const struct chainfile *cf, const struct cf_chain *c,
			 struct th_nic_desc *out)
{
	unsigned int i, j;

	for (i = 0; i < c->ndesc; i++) {
		const struct cf_desc *d = &c->desc[i];
		struct th_nic_desc *n = &out[i];

		memset(n, 0, sizeof(*n));
		n->opcode = (uint8_t)d->opcode;
		if (i + 1 < c->ndesc)
			n->flags |= TH_NIC_DF_LINK;
		if (d->signal)
			n->flags |= TH_NIC_DF_SIGNAL;
		if (d->comp_ct >= 0) {
			n->flags |= TH_NIC_DF_COMP_CT;
			n->comp_ct = (uint16_t)d->comp_ct;
		}
		switch (d->opcode) {
		case TH_NIC_OP_PUT:
		case TH_NIC_OP_GET:
			/* src_mr[0] is the local side, dst_mr the remote one */
			n->xfer.lkey = cf_set_key(d->src_mr[0]);
			n->xfer.loff = d->src_off[0];
			n->xfer.rkey = cf_set_key(d->dst_mr);
			n->xfer.roff = d->dst_off;
			n->xfer.node = cf->mrs[d->dst_mr].node;
			n->xfer.vport = CF_SET_VPORT;
			n->xfer.len = d->len;
			if (d->remote_ct >= 0) {
				n->flags |= TH_NIC_DF_REMOTE_CT;
				n->xfer.remote_ct = (uint16_t)d->remote_ct;
			}
			break;
		case TH_NIC_OP_WRITE_INLINE:
			n->wr_inline.len = (uint8_t)d->len;
			n->wr_inline.off = d->dst_off;
			if (!d->remote) {
				n->wr_inline.lkey = cf_set_key(d->dst_mr);
				break;
			}
			n->wr_inline.rkey = cf_set_key(d->dst_mr);
			n->flags |= TH_NIC_DF_REMOTE;
			n->wr_inline.node = cf->mrs[d->dst_mr].node;
			n->wr_inline.vport = CF_SET_VPORT;
			if (d->remote_ct >= 0) {
				n->flags |= TH_NIC_DF_REMOTE_CT;
				n->wr_inline.remote_ct = (uint16_t)d->remote_ct;
			}
			break;
		case TH_NIC_OP_COPY:
			n->copy.src_key = cf_set_key(d->src_mr[0]);
			n->copy.src_off = d->src_off[0];
			n->copy.dst_key = cf_set_key(d->dst_mr);
			n->copy.dst_off = d->dst_off;
			n->copy.len = d->len;
			break;
		case TH_NIC_OP_REDUCE:
			n->reduce.alu_op = (uint8_t)d->alu_op;
			n->reduce.dtype = (uint8_t)d->dtype;
			n->reduce.nsrc = (uint8_t)d->nsrc;
			n->reduce.count = d->count;
			n->reduce.dst_key = cf_set_key(d->dst_mr);
			n->reduce.dst_off = d->dst_off;
			if (d->accumulate)
				n->reduce.rflags |= TH_NIC_RF_ACCUMULATE;
			if (d->strided) {
				n->reduce.rflags |= TH_NIC_RF_STRIDED;
				n->reduce.src_key[0] = cf_set_key(d->src_mr[0]);
				n->reduce.src_off[0] = d->src_off[0];
				n->reduce.src_off[1] = d->stride;
				break;
			}
			for (j = 0; j < d->nsrc && j < TH_NIC_MAX_OPERANDS; j++) {
				n->reduce.src_key[j] = cf_set_key(d->src_mr[j]);
				n->reduce.src_off[j] = d->src_off[j];
			}
			break;
		case TH_NIC_OP_CT_INC:
		case TH_NIC_OP_CT_SET:
			n->ct.ct = d->ct;
			n->ct.value = d->value;
			break;
		case TH_NIC_OP_NOTIFY:
			n->notify.imm = d->value;
			break;
		case TH_NIC_OP_REARM:
			n->rearm.stride = d->value;
			break;
		default:
			break;
		}
	}
	out[0].trig_ct = c->trig_ct;
	out[0].threshold = c->threshold;
	out[0].cookie = c->cookie;
}

int cf_set_build(const struct chainfile *cf, struct cf_set *s)
{
	unsigned int i;

	memset(s, 0, sizeof(*s));
	s->chains = calloc(cf->nchains + 1, sizeof(*s->chains));
	s->actions = calloc(cf->nactions + 1, sizeof(*s->actions));
	s->waits = calloc(cf->nactions + 1, sizeof(*s->waits));
	s->descs = calloc((size_t)cf->nchains * CF_MAX_DESCS + 1,
			  sizeof(*s->descs));
	s->regions = calloc(cf->nmrs + 1, sizeof(*s->regions));
	if (!s->chains || !s->actions || !s->waits || !s->descs ||
	    !s->regions) {
		cf_set_free(s);
		return -ENOMEM;
	}
	for (i = 0; i < cf->nchains; i++) {
		const struct cf_chain *c = &cf->chains[i];
		struct th_nic_desc *d = &s->descs[(size_t)i * CF_MAX_DESCS];

		cf_set_descs(cf, c, d);
		s->chains[i] = (struct th_verify_chain){
			.name = c->name, .node = c->node, .vport = CF_SET_VPORT,
			.descs = d, .ndesc = c->ndesc,
		};
	}
	s->set.chains = s->chains;
	s->set.nchains = cf->nchains;
	for (i = 0; i < cf->nmrs; i++)
		s->regions[i] = (struct th_verify_region){
			.node = cf->mrs[i].node, .vport = CF_SET_VPORT,
			.lkey = cf_set_key(i), .rkey = cf_set_key(i),
			.len = cf->mrs[i].len, .access = cf->mrs[i].access,
		};
	s->set.regions = s->regions;
	s->set.nregions = cf->nmrs;
	for (i = 0; i < cf->nactions; i++) {
		const struct cf_action *a = &cf->actions[i];

		/* an expect line is a wait of the host's */
		if (a->kind == CF_ACT_EXPECT)
			s->waits[s->set.nwaits++] = (struct th_verify_wait){
				.counter = { .node = a->node, .vport = CF_SET_VPORT,
					     .ct = a->ct },
				.value = a->value,
			};
		if (a->kind != CF_ACT_CT_INC && a->kind != CF_ACT_CT_SET)
			continue;
		s->actions[s->set.nactions++] = (struct th_verify_action){
			.counter = { .node = a->node, .vport = CF_SET_VPORT,
				     .ct = a->ct },
			.set = a->kind == CF_ACT_CT_SET,
			.value = a->value,
		};
	}
	s->set.actions = s->actions;
	s->set.waits = s->waits;
	return 0;
}

void cf_set_free(struct cf_set *s)
{
	free(s->chains);
	free(s->actions);
	free(s->waits);
	free(s->descs);
	free(s->regions);
	memset(s, 0, sizeof(*s));
}
