// SPDX-License-Identifier: GPL-2.0 OR MIT
/* th_test.c - helpers shared by the host tests (see th_test.h). */
#include <string.h>

#include "th_test.h"

struct th_eng_limits th_t_limits(u32 nodes)
{
	struct th_eng_limits lim = {
		.nodes		= nodes,
		.max_vports	= TH_ENG_DEF_VPORTS,
		.max_counters	= TH_ENG_DEF_COUNTERS,
		.max_sq_entries	= TH_ENG_DEF_SQ,
		.max_cq_entries	= TH_ENG_DEF_CQ,
		.max_chain	= TH_ENG_DEF_CHAIN,
		.max_mrs	= TH_ENG_DEF_MRS,
		.max_mr_size	= TH_ENG_DEF_MR_SIZE,
	};
	return lim;
}

static u32 *th_t_u32(void *mem, u32 off)
{
	return (u32 *)((char *)mem + off);
}

int th_t_post(struct th_ipf_vport *vp, const struct th_nic_desc *d, u32 n,
	      struct th_eng_db_result *res)
{
	u32 *tailp = th_t_u32(vp->sq_mem, vp->sq_off.tail);
	u32 mask = *th_t_u32(vp->sq_mem, vp->sq_off.ring_mask);
	struct th_nic_desc *slots = (void *)((char *)vp->sq_mem + vp->sq_off.entries);
	u32 tail = *tailp, i;
	struct th_eng_db_result scratch;

	for (i = 0; i < n; i++)
		slots[(tail + i) & mask] = d[i];
	__atomic_store_n(tailp, tail + n, __ATOMIC_RELEASE);
	return th_ipf_doorbell(vp, res ? res : &scratch);
}

u32 th_t_cq_drain(struct th_ipf_vport *vp, struct th_nic_cqe *out, u32 max)
{
	u32 *headp = th_t_u32(vp->cq_mem, vp->cq_off.head);
	u32 *tailp = th_t_u32(vp->cq_mem, vp->cq_off.tail);
	u32 mask = *th_t_u32(vp->cq_mem, vp->cq_off.ring_mask);
	struct th_nic_cqe *slots = (void *)((char *)vp->cq_mem + vp->cq_off.entries);
	u32 head = *headp, tail = __atomic_load_n(tailp, __ATOMIC_ACQUIRE), n = 0;

	while (head != tail && n < max)
		out[n++] = slots[head++ & mask];
	__atomic_store_n(headp, head, __ATOMIC_RELEASE);
	return n;
}

u32 th_t_sq_head(struct th_ipf_vport *vp)
{
	return __atomic_load_n(th_t_u32(vp->sq_mem, vp->sq_off.head),
			       __ATOMIC_ACQUIRE);
}

u64 th_t_ct(struct th_ipf_vport *vp, u32 idx)
{
	return __atomic_load_n(&vp->cts[idx].success, __ATOMIC_ACQUIRE);
}

u64 th_t_ct_fail(struct th_ipf_vport *vp, u32 idx)
{
	return __atomic_load_n(&vp->cts[idx].failure, __ATOMIC_ACQUIRE);
}

static struct th_nic_desc th_t_xfer(u8 op, u32 lkey, u64 loff, u32 node,
				    u32 vport, u32 rkey, u64 roff, u64 len)
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

struct th_nic_desc th_t_put(u32 lkey, u64 loff, u32 node, u32 vport, u32 rkey,
			    u64 roff, u64 len)
{
	return th_t_xfer(TH_NIC_OP_PUT, lkey, loff, node, vport, rkey, roff, len);
}

struct th_nic_desc th_t_get(u32 lkey, u64 loff, u32 node, u32 vport, u32 rkey,
			    u64 roff, u64 len)
{
	return th_t_xfer(TH_NIC_OP_GET, lkey, loff, node, vport, rkey, roff, len);
}

struct th_nic_desc th_t_copy(u32 skey, u64 soff, u32 dkey, u64 doff, u64 len)
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

struct th_nic_desc th_t_inline(u32 key, u64 off, const void *data, u8 len)
{
	struct th_nic_desc d;

	memset(&d, 0, sizeof(d));
	d.opcode = TH_NIC_OP_WRITE_INLINE;
	d.wr_inline.key = key;
	d.wr_inline.off = off;
	d.wr_inline.len = len;
	memcpy(d.wr_inline.data, data, len > TH_NIC_INLINE_MAX ? TH_NIC_INLINE_MAX : len);
	return d;
}

struct th_nic_desc th_t_reduce(u8 op, u8 dtype, u32 count, u32 dkey, u64 doff,
			       u8 nsrc, const u32 *skeys, const u64 *soffs)
{
	struct th_nic_desc d;
	u32 i;

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

struct th_nic_desc th_t_ct_op(u8 opcode, u16 ct, s64 value)
{
	struct th_nic_desc d;

	memset(&d, 0, sizeof(d));
	d.opcode = opcode;
	d.ct.ct = ct;
	d.ct.value = (u64)value;
	return d;
}

struct th_nic_desc th_t_notify(u64 imm)
{
	struct th_nic_desc d;

	memset(&d, 0, sizeof(d));
	d.opcode = TH_NIC_OP_NOTIFY;
	d.notify.imm = imm;
	return d;
}

void th_t_trigger(struct th_nic_desc *d, u16 ct, u64 threshold, u64 cookie)
{
	d->trig_ct = ct;
	d->threshold = threshold;
	d->cookie = cookie;
}

void th_t_link(struct th_nic_desc *d, u32 n)
{
	u32 i;

	for (i = 0; i + 1 < n; i++)
		d[i].flags |= TH_NIC_DF_LINK;
}
