/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * th_desc.h - descriptor constructors for the tests, in ABI terms only:
 * each returns a valid, unlinked, untriggered struct th_nic_desc.  Shared by
 * the host tests of the engine and the kselftests of th_nic.ko.
 */
#ifndef TH_DESC_TEST_H
#define TH_DESC_TEST_H

#include <string.h>
#include <linux/th_nic.h>

static inline struct th_nic_desc thn_xfer(__u8 op, __u32 lkey, __u64 loff,
					  __u32 node, __u32 vport, __u64 rkey,
					  __u64 roff, __u64 len)
{
	struct th_nic_desc d;

	memset(&d, 0, sizeof(d));
	d.opcode = op;
	d.xfer.lkey = lkey;
	d.xfer.loff = loff;
	d.xfer.node = node;
	d.xfer.vport = vport;
	d.xfer.rkey = rkey;
	d.xfer.roff = roff;
	d.xfer.len = len;
	return d;
}

/* PUT @len bytes of local @lkey+@loff to (node, vport, rkey, roff). */
static inline struct th_nic_desc thn_put(__u32 lkey, __u64 loff, __u32 node,
					 __u32 vport, __u64 rkey, __u64 roff,
					 __u64 len)
{
	return thn_xfer(TH_NIC_OP_PUT, lkey, loff, node, vport, rkey, roff, len);
}

/* The same PUT, incrementing counter @rct at the target on delivery. */
static inline struct th_nic_desc thn_put_ct(__u32 lkey, __u64 loff, __u32 node,
					    __u32 vport, __u64 rkey, __u64 roff,
					    __u64 len, __u16 rct)
{
	struct th_nic_desc d = thn_put(lkey, loff, node, vport, rkey, roff, len);

	d.flags |= TH_NIC_DF_REMOTE_CT;
	d.xfer.remote_ct = rct;
	return d;
}

/* GET @len bytes of (node, vport, rkey, roff) into local @lkey+@loff. */
static inline struct th_nic_desc thn_get(__u32 lkey, __u64 loff, __u32 node,
					 __u32 vport, __u64 rkey, __u64 roff,
					 __u64 len)
{
	return thn_xfer(TH_NIC_OP_GET, lkey, loff, node, vport, rkey, roff, len);
}

static inline struct th_nic_desc thn_copy(__u32 skey, __u64 soff, __u32 dkey,
					  __u64 doff, __u64 len)
{
	struct th_nic_desc d;

	memset(&d, 0, sizeof(d));
	d.opcode = TH_NIC_OP_COPY;
	d.copy.src_key = skey;
	d.copy.src_off = soff;
	d.copy.dst_key = dkey;
	d.copy.dst_off = doff;
	d.copy.len = len;
	return d;
}

/* WRITE_INLINE into a local MR (see thn_inline_remote() for a peer's). */
static inline struct th_nic_desc thn_inline(__u32 lkey, __u64 off,
					    const void *data, __u8 len)
{
	struct th_nic_desc d;

	memset(&d, 0, sizeof(d));
	d.opcode = TH_NIC_OP_WRITE_INLINE;
	d.wr_inline.lkey = lkey;
	d.wr_inline.off = off;
	d.wr_inline.len = len;
	memcpy(d.wr_inline.data, data,
	       len > TH_NIC_INLINE_MAX ? TH_NIC_INLINE_MAX : len);
	return d;
}

static inline struct th_nic_desc thn_inline_remote(__u32 node, __u32 vport,
						   __u64 rkey, __u64 off,
						   const void *data, __u8 len)
{
	struct th_nic_desc d = thn_inline(0, off, data, len);

	d.flags |= TH_NIC_DF_REMOTE;
	d.wr_inline.node = node;
	d.wr_inline.vport = vport;
	d.wr_inline.rkey = rkey;
	return d;
}

/* REDUCE: dst = op(src[0] ... src[nsrc-1]) over @count elements. */
static inline struct th_nic_desc thn_reduce(__u8 op, __u8 dtype, __u32 count,
					    __u32 dkey, __u64 doff, __u8 nsrc,
					    const __u32 *skeys,
					    const __u64 *soffs)
{
	struct th_nic_desc d;
	__u32 i;

	memset(&d, 0, sizeof(d));
	d.opcode = TH_NIC_OP_REDUCE;
	d.reduce.alu_op = op;
	d.reduce.dtype = dtype;
	d.reduce.count = count;
	d.reduce.dst_key = dkey;
	d.reduce.dst_off = doff;
	d.reduce.nsrc = nsrc;
	for (i = 0; i < nsrc && i < TH_NIC_MAX_OPERANDS; i++) {
		d.reduce.src_key[i] = skeys[i];
		d.reduce.src_off[i] = soffs[i];
	}
	return d;
}

/* CT_INC or CT_SET of local counter @ct. */
static inline struct th_nic_desc thn_ct_op(__u8 opcode, __u16 ct, __s64 value)
{
	struct th_nic_desc d;

	memset(&d, 0, sizeof(d));
	d.opcode = opcode;
	d.ct.ct = ct;
	d.ct.value = (__u64)value;
	return d;
}

static inline struct th_nic_desc thn_notify(__u64 imm)
{
	struct th_nic_desc d;

	memset(&d, 0, sizeof(d));
	d.opcode = TH_NIC_OP_NOTIFY;
	d.notify.imm = imm;
	return d;
}

/* REARM: the chain runs again once its counter gains @stride more. */
static inline struct th_nic_desc thn_rearm(__u64 stride)
{
	struct th_nic_desc d;

	memset(&d, 0, sizeof(d));
	d.opcode = TH_NIC_OP_REARM;
	d.rearm.stride = stride;
	return d;
}

static inline struct th_nic_desc thn_nop(void)
{
	struct th_nic_desc d;

	memset(&d, 0, sizeof(d));
	return d;
}

/* Make @d the head of a chain that fires once @ct reaches @threshold. */
static inline void thn_trigger(struct th_nic_desc *d, __u16 ct,
			       __u64 threshold, __u64 cookie)
{
	d->trig_ct = ct;
	d->threshold = threshold;
	d->cookie = cookie;
}

/* Add local completion counter @ct to @d. */
static inline void thn_comp_ct(struct th_nic_desc *d, __u16 ct)
{
	d->flags |= TH_NIC_DF_COMP_CT;
	d->comp_ct = ct;
}

/* Set LINK on every descriptor of @d[0 .. n-1] but the last. */
static inline void thn_link(struct th_nic_desc *d, __u32 n)
{
	__u32 i;

	for (i = 0; i + 1 < n; i++)
		d[i].flags |= TH_NIC_DF_LINK;
}

#endif /* TH_DESC_TEST_H */
