// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * chain.c - the chain builder: one call per descriptor kind, each encoding
 * one struct th_nic_desc.  It refuses only what cannot be encoded (too many
 * descriptors, operands or inline bytes); every other rule is the NIC's,
 * checked once by the engine at the doorbell.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "thverbs_priv.h"

struct th_chain *th_chain_create(void)
{
	return calloc(1, sizeof(struct th_chain));
}

void th_chain_destroy(struct th_chain *c)
{
	free(c);
}

void th_chain_reset(struct th_chain *c)
{
	memset(c->d, 0, sizeof(c->d[0]) * c->n);
	c->n = 0;
	c->err = 0;
	c->trig_ct = 0;
	c->threshold = 0;
	c->cookie = 0;
}

unsigned int th_chain_length(const struct th_chain *c)
{
	return c->n;
}

/* Append a descriptor; NULL (and the chain poisoned) when full. */
static struct th_nic_desc *th_chain_add(struct th_chain *c, uint8_t opcode,
					unsigned int flags)
{
	struct th_nic_desc *d;

	if (flags & ~TH_CHAIN_SIGNAL) {
		c->err = c->err ? c->err : -EINVAL;
		return NULL;
	}
	if (c->n == TH_CHAIN_CAP) {
		c->err = c->err ? c->err : -ENOSPC;
		return NULL;
	}
	if (c->n)
		c->d[c->n - 1].flags |= TH_NIC_DF_LINK;
	d = &c->d[c->n++];
	memset(d, 0, sizeof(*d));
	d->opcode = opcode;
	if (flags & TH_CHAIN_SIGNAL)
		d->flags |= TH_NIC_DF_SIGNAL;
	return d;
}

static int th_chain_bad(struct th_chain *c, int err)
{
	if (!c->err)
		c->err = err;
	return err;
}

/* Kept aside and written into the first descriptor when posted. */
int th_chain_trigger(struct th_chain *c, uint16_t ct,
			       uint64_t threshold, uint64_t cookie)
{
	c->trig_ct = ct;
	c->threshold = threshold;
	c->cookie = cookie;
	return 0;
}

int th_chain_comp_ct(struct th_chain *c, uint16_t ct)
{
	if (!c->n)
		return th_chain_bad(c, -EINVAL);
	c->d[c->n - 1].flags |= TH_NIC_DF_COMP_CT;
	c->d[c->n - 1].comp_ct = ct;
	return 0;
}

static int th_chain_xfer(struct th_chain *c, uint8_t op, const struct th_mr *l,
			 uint64_t loff, const struct th_remote *r, uint64_t len,
			 int remote_ct, unsigned int flags)
{
	struct th_nic_desc *d = th_chain_add(c, op, flags);

	if (!d)
		return c->err;
	d->xfer.lkey = l->lkey;
	d->xfer.loff = loff;
	d->xfer.rkey = r->rkey;
	d->xfer.roff = r->off;
	d->xfer.len = len;
	d->xfer.node = r->node;
	d->xfer.vport = r->vport;
	if (remote_ct != TH_NO_CT) {
		if (remote_ct < 0 || remote_ct > UINT16_MAX)
			return th_chain_bad(c, -EINVAL);
		d->flags |= TH_NIC_DF_REMOTE_CT;
		d->xfer.remote_ct = remote_ct;
	}
	return 0;
}

int th_chain_put(struct th_chain *c, const struct th_mr *src,
			   uint64_t off, const struct th_remote *dst, uint64_t len,
			   int remote_ct, unsigned int flags)
{
	return th_chain_xfer(c, TH_NIC_OP_PUT, src, off, dst, len, remote_ct,
			     flags);
}

int th_chain_get(struct th_chain *c, const struct th_mr *dst,
			   uint64_t off, const struct th_remote *src, uint64_t len,
			   unsigned int flags)
{
	return th_chain_xfer(c, TH_NIC_OP_GET, dst, off, src, len, TH_NO_CT,
			     flags);
}

int th_chain_copy(struct th_chain *c, const struct th_mr *src,
			    uint64_t soff, const struct th_mr *dst, uint64_t doff,
			    uint64_t len, unsigned int flags)
{
	struct th_nic_desc *d = th_chain_add(c, TH_NIC_OP_COPY, flags);

	if (!d)
		return c->err;
	d->copy.src_key = src->lkey;
	d->copy.src_off = soff;
	d->copy.dst_key = dst->lkey;
	d->copy.dst_off = doff;
	d->copy.len = len;
	return 0;
}

static struct th_nic_desc *th_chain_inline(struct th_chain *c, const void *data,
					   unsigned int len, unsigned int flags)
{
	struct th_nic_desc *d;

	if (!len || len > TH_NIC_INLINE_MAX) {
		th_chain_bad(c, -EINVAL);
		return NULL;
	}
	d = th_chain_add(c, TH_NIC_OP_WRITE_INLINE, flags);
	if (!d)
		return NULL;
	d->wr_inline.len = len;
	memcpy(d->wr_inline.data, data, len);
	return d;
}

int th_chain_write_inline(struct th_chain *c, const struct th_mr *dst,
				    uint64_t off, const void *data,
				    unsigned int len, unsigned int flags)
{
	struct th_nic_desc *d = th_chain_inline(c, data, len, flags);

	if (!d)
		return c->err;
	d->wr_inline.lkey = dst->lkey;
	d->wr_inline.off = off;
	return 0;
}

int th_chain_write_inline_remote(struct th_chain *c,
					   const struct th_remote *dst,
					   const void *data, unsigned int len,
					   int remote_ct, unsigned int flags)
{
	struct th_nic_desc *d = th_chain_inline(c, data, len, flags);

	if (!d)
		return c->err;
	d->flags |= TH_NIC_DF_REMOTE;
	d->wr_inline.rkey = dst->rkey;
	d->wr_inline.off = dst->off;
	d->wr_inline.node = dst->node;
	d->wr_inline.vport = dst->vport;
	if (remote_ct != TH_NO_CT) {
		if (remote_ct < 0 || remote_ct > UINT16_MAX)
			return th_chain_bad(c, -EINVAL);
		d->flags |= TH_NIC_DF_REMOTE_CT;
		d->wr_inline.remote_ct = remote_ct;
	}
	return 0;
}

static struct th_nic_desc *th_chain_reduce_head(struct th_chain *c,
						unsigned int op,
						unsigned int dtype,
						uint32_t count,
						const struct th_mr *dst,
						uint64_t doff, unsigned int nsrc,
						bool accumulate,
						unsigned int flags)
{
	struct th_nic_desc *d;

	if (!nsrc || nsrc > TH_NIC_MAX_OPERANDS || op > UINT8_MAX ||
	    dtype > UINT8_MAX) {
		th_chain_bad(c, -EINVAL);
		return NULL;
	}
	d = th_chain_add(c, TH_NIC_OP_REDUCE, flags);
	if (!d)
		return NULL;
	d->reduce.alu_op = op;
	d->reduce.dtype = dtype;
	d->reduce.nsrc = nsrc;
	d->reduce.count = count;
	d->reduce.dst_key = dst->lkey;
	d->reduce.dst_off = doff;
	if (accumulate)
		d->reduce.rflags |= TH_NIC_RF_ACCUMULATE;
	return d;
}

int th_chain_reduce(struct th_chain *c, unsigned int op,
			      unsigned int dtype, uint32_t count,
			      const struct th_mr *dst, uint64_t doff,
			      unsigned int nsrc, const struct th_mr *const *src,
			      const uint64_t *soff, bool accumulate,
			      unsigned int flags)
{
	struct th_nic_desc *d = th_chain_reduce_head(c, op, dtype, count, dst,
						     doff, nsrc, accumulate,
						     flags);
	unsigned int i;

	if (!d)
		return c->err;
	for (i = 0; i < nsrc; i++) {
		d->reduce.src_key[i] = src[i]->lkey;
		d->reduce.src_off[i] = soff[i];
	}
	return 0;
}

int th_chain_reduce_strided(struct th_chain *c, unsigned int op,
				      unsigned int dtype, uint32_t count,
				      const struct th_mr *dst, uint64_t doff,
				      const struct th_mr *src, uint64_t base,
				      uint64_t stride, unsigned int nsrc,
				      bool accumulate, unsigned int flags)
{
	struct th_nic_desc *d = th_chain_reduce_head(c, op, dtype, count, dst,
						     doff, nsrc, accumulate,
						     flags);

	if (!d)
		return c->err;
	d->reduce.rflags |= TH_NIC_RF_STRIDED;
	d->reduce.src_key[0] = src->lkey;
	d->reduce.src_off[0] = base;
	d->reduce.src_off[1] = stride;
	return 0;
}

static int th_chain_ct(struct th_chain *c, uint8_t op, uint16_t ct,
		       uint64_t value, unsigned int flags)
{
	struct th_nic_desc *d = th_chain_add(c, op, flags);

	if (!d)
		return c->err;
	d->ct.ct = ct;
	d->ct.value = value;
	return 0;
}

int th_chain_ct_inc(struct th_chain *c, uint16_t ct, int64_t delta,
			      unsigned int flags)
{
	return th_chain_ct(c, TH_NIC_OP_CT_INC, ct, (uint64_t)delta, flags);
}

int th_chain_ct_set(struct th_chain *c, uint16_t ct, uint64_t value,
			      unsigned int flags)
{
	return th_chain_ct(c, TH_NIC_OP_CT_SET, ct, value, flags);
}

int th_chain_notify(struct th_chain *c, uint64_t imm,
			      unsigned int flags)
{
	struct th_nic_desc *d = th_chain_add(c, TH_NIC_OP_NOTIFY, flags);

	if (!d)
		return c->err;
	d->notify.imm = imm;
	return 0;
}

/*
 * End the chain with REARM: it runs again each time its trigger counter
 * gains @stride more, until cancelled or its vport is destroyed.
 */
int th_chain_rearm(struct th_chain *c, uint64_t stride,
			     unsigned int flags)
{
	struct th_nic_desc *d;

	if (!stride)
		return th_chain_bad(c, -EINVAL);
	d = th_chain_add(c, TH_NIC_OP_REARM, flags);
	if (!d)
		return c->err;
	d->rearm.stride = stride;
	return 0;
}

int th_chain_nop(struct th_chain *c, unsigned int flags)
{
	return th_chain_add(c, TH_NIC_OP_NOP, flags) ? 0 : c->err;
}
