/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * badinput_rows.h - the table of bad (and valid edge-case) descriptor
 * chains, one row per rule of Documentation/uapi.rst, "At the doorbell".
 * The same rows run against the engine on the host
 * (selftests/host/test_validate.c) and against th_nic.ko in the VM
 * (selftests/th_nic/badinput_test.c).
 *
 * This header holds the builders; badinput_table.h lists the rows, for
 * the includer to expand with its own REFUSE(name, builder, bad_desc) and
 * ACCEPT(name, builder) macros.
 */
#ifndef BADINPUT_ROWS_H
#define BADINPUT_ROWS_H

#include <string.h>
#include <linux/th_nic.h>

#include "th_desc.h"

/* Both setups run with the ABI's default limits and 4 KiB regions. */
#define BAD_BUF		4096
#define BAD_COUNTERS	256
#define BAD_CHAIN	16
#define BAD_VPORTS	64
#define BAD_MR_SIZE	(1ULL << 30)

/**
 * struct vctx - what a row's chain builder may use
 * @rw: local key of a local MR with TH_NIC_ACCESS_ALL, BAD_BUF bytes
 * @ro: local key of a local MR without access flags (local reads only)
 * @peer_rw: remote key of an MR with TH_NIC_ACCESS_ALL on the peer vport
 * @peer_lkey: the peer's local key of that MR (ours cannot use it)
 * @peer_node: the peer's node
 * @peer_vport: the peer's vport index
 * @nodes: node count of the fabric (the first invalid node)
 */
struct vctx {
	__u32 rw;
	__u32 ro;
	__u64 peer_rw;
	__u32 peer_lkey;
	__u32 peer_node;
	__u32 peer_vport;
	__u32 nodes;
};

typedef __u32 (*build_fn)(const struct vctx *c, struct th_nic_desc *d);

/* ---- valid building blocks ------------------------------------------ */

static __u32 put1(const struct vctx *c, struct th_nic_desc *d)
{
	d[0] = thn_put(c->rw, 0, c->peer_node, c->peer_vport, c->peer_rw, 0, 64);
	return 1;
}

static __u32 get1(const struct vctx *c, struct th_nic_desc *d)
{
	d[0] = thn_get(c->rw, 0, c->peer_node, c->peer_vport, c->peer_rw, 0, 64);
	return 1;
}

static __u32 copy1(const struct vctx *c, struct th_nic_desc *d)
{
	d[0] = thn_copy(c->ro, 0, c->rw, 0, 64);
	return 1;
}

static __u32 inline1(const struct vctx *c, struct th_nic_desc *d)
{
	d[0] = thn_inline(c->rw, 8, "abcd", 4);
	return 1;
}

static __u32 reduce1(const struct vctx *c, struct th_nic_desc *d)
{
	__u32 k[3] = { c->ro, c->ro, c->rw };
	__u64 o[3] = { 0, 256, 512 };

	d[0] = thn_reduce(TH_NIC_ALU_SUM, TH_NIC_DT_FLOAT64, 16, c->rw, 1024,
			  3, k, o);
	return 1;
}

static __u32 strided1(const struct vctx *c, struct th_nic_desc *d)
{
	__u32 n = reduce1(c, d);

	d[0].reduce.rflags = TH_NIC_RF_STRIDED;
	d[0].reduce.nsrc = 4;
	d[0].reduce.src_key[0] = c->ro;
	d[0].reduce.src_key[1] = 0;
	d[0].reduce.src_key[2] = 0;
	d[0].reduce.src_off[0] = 0;
	d[0].reduce.src_off[1] = 128;
	d[0].reduce.src_off[2] = 0;
	return n;
}

static __u32 two_chain(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, &d[0]);
	d[1] = thn_notify(7);
	thn_link(d, 2);
	return 2;
}

/* ---- common rules ----------------------------------------------------- */

static __u32 bad_opcode(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].opcode = TH_NIC_OP_MAX;
	return 1;
}

static __u32 bad_opcode_255(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].opcode = 255;
	return 1;
}

static __u32 bad_rsvd0(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].rsvd0 = 1;
	return 1;
}

static __u32 bad_flag(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].flags = 1 << 7;
	return 1;
}

static __u32 bad_flag_top(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].flags = 1 << 15;
	return 1;
}

static __u32 bad_trig_ct(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	thn_trigger(&d[0], BAD_COUNTERS, 1, 0);
	return 1;
}

static __u32 bad_second_threshold(const struct vctx *c, struct th_nic_desc *d)
{
	two_chain(c, d);
	d[1].threshold = 1;
	return 2;
}

static __u32 bad_second_cookie(const struct vctx *c, struct th_nic_desc *d)
{
	two_chain(c, d);
	d[1].cookie = 1;
	return 2;
}

static __u32 bad_second_trig_ct(const struct vctx *c, struct th_nic_desc *d)
{
	two_chain(c, d);
	d[1].trig_ct = 1;
	return 2;
}

static __u32 bad_comp_ct_range(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	thn_comp_ct(&d[0], BAD_COUNTERS);
	return 1;
}

static __u32 bad_comp_ct_noflag(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].comp_ct = 3;
	return 1;
}

static __u32 bad_remote_on_put(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].flags |= TH_NIC_DF_REMOTE;
	return 1;
}

static __u32 bad_remote_ct_on_copy(const struct vctx *c, struct th_nic_desc *d)
{
	copy1(c, d);
	d[0].flags |= TH_NIC_DF_REMOTE_CT;
	return 1;
}

static __u32 bad_remote_ct_on_get(const struct vctx *c, struct th_nic_desc *d)
{
	get1(c, d);
	d[0].flags |= TH_NIC_DF_REMOTE_CT;
	return 1;
}

static __u32 bad_no_end(const struct vctx *c, struct th_nic_desc *d)
{
	two_chain(c, d);
	d[1].flags |= TH_NIC_DF_LINK;	/* links past the tail */
	return 2;
}

static __u32 bad_too_long(const struct vctx *c, struct th_nic_desc *d)
{
	__u32 i;

	(void)c;
	for (i = 0; i < BAD_CHAIN + 1; i++)
		d[i] = thn_notify(i);
	thn_link(d, BAD_CHAIN + 1);
	return BAD_CHAIN + 1;
}

static __u32 bad_in_middle(const struct vctx *c, struct th_nic_desc *d)
{
	__u32 i;

	(void)c;
	for (i = 0; i < 5; i++)
		d[i] = thn_notify(i);
	d[3].notify.rsvd[0] = 1;
	thn_link(d, 5);
	return 5;
}

/* ---- PUT / GET --------------------------------------------------------- */

static __u32 bad_put_lkey(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].xfer.lkey ^= 0x100;
	return 1;
}

static __u32 bad_put_lkey_peer(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].xfer.lkey = c->peer_lkey;	/* another vport's key */
	return 1;
}

static __u32 bad_put_lkey_zero(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].xfer.lkey = 0;
	return 1;
}

static __u32 bad_put_range(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].xfer.loff = BAD_BUF - 63;
	return 1;
}

static __u32 bad_put_wrap(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].xfer.loff = ~0ULL;
	d[0].xfer.len = 2;
	return 1;
}

static __u32 bad_put_len_wrap(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].xfer.loff = 64;
	d[0].xfer.len = ~0ULL - 32;
	return 1;
}

static __u32 bad_put_node(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].xfer.node = c->nodes;
	return 1;
}

static __u32 bad_put_vport(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].xfer.vport = BAD_VPORTS;
	return 1;
}

static __u32 bad_put_len_max(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].xfer.len = BAD_MR_SIZE + 1;
	return 1;
}

static __u32 bad_put_roff_wrap(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].xfer.roff = ~0ULL - 10;
	return 1;
}

static __u32 bad_put_rsvd0(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].xfer.rsvd0 = 1;
	return 1;
}

static __u32 bad_put_rsvd(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].xfer.rsvd[6] = 1;
	return 1;
}

static __u32 bad_put_remote_ct_noflag(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].xfer.remote_ct = 1;
	return 1;
}

static __u32 bad_put_remote_ct_range(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].flags |= TH_NIC_DF_REMOTE_CT;
	d[0].xfer.remote_ct = BAD_COUNTERS;
	return 1;
}

static __u32 bad_get_readonly(const struct vctx *c, struct th_nic_desc *d)
{
	get1(c, d);
	d[0].xfer.lkey = c->ro;
	return 1;
}

/* ---- COPY -------------------------------------------------------------- */

static __u32 bad_copy_dst_ro(const struct vctx *c, struct th_nic_desc *d)
{
	copy1(c, d);
	d[0].copy.dst_key = c->ro;
	return 1;
}

static __u32 bad_copy_src_range(const struct vctx *c, struct th_nic_desc *d)
{
	copy1(c, d);
	d[0].copy.src_off = BAD_BUF;
	return 1;
}

static __u32 bad_copy_dst_wrap(const struct vctx *c, struct th_nic_desc *d)
{
	copy1(c, d);
	d[0].copy.dst_off = ~0ULL - 8;
	return 1;
}

/* Starts inside the MR and runs 32 bytes past its end, without wrapping. */
static __u32 bad_copy_dst_range(const struct vctx *c, struct th_nic_desc *d)
{
	copy1(c, d);
	d[0].copy.dst_off = BAD_BUF - 32;
	return 1;
}

static __u32 bad_copy_rsvd(const struct vctx *c, struct th_nic_desc *d)
{
	copy1(c, d);
	d[0].copy.rsvd[0] = 1;
	return 1;
}

/* ---- WRITE_INLINE ------------------------------------------------------ */

static __u32 bad_inline_len0(const struct vctx *c, struct th_nic_desc *d)
{
	inline1(c, d);
	d[0].wr_inline.len = 0;
	memset(d[0].wr_inline.data, 0, TH_NIC_INLINE_MAX);
	return 1;
}

static __u32 bad_inline_len33(const struct vctx *c, struct th_nic_desc *d)
{
	inline1(c, d);
	d[0].wr_inline.len = TH_NIC_INLINE_MAX + 1;
	return 1;
}

static __u32 bad_inline_tail(const struct vctx *c, struct th_nic_desc *d)
{
	inline1(c, d);
	d[0].wr_inline.data[20] = 1;
	return 1;
}

static __u32 bad_inline_local_node(const struct vctx *c, struct th_nic_desc *d)
{
	inline1(c, d);
	d[0].wr_inline.node = 1;
	return 1;
}

static __u32 bad_inline_ro(const struct vctx *c, struct th_nic_desc *d)
{
	inline1(c, d);
	d[0].wr_inline.lkey = c->ro;
	return 1;
}

static __u32 bad_inline_range(const struct vctx *c, struct th_nic_desc *d)
{
	inline1(c, d);
	d[0].wr_inline.off = BAD_BUF - 3;
	return 1;
}

static __u32 bad_inline_remote_ct_local(const struct vctx *c, struct th_nic_desc *d)
{
	inline1(c, d);
	d[0].flags |= TH_NIC_DF_REMOTE_CT;
	return 1;
}

static __u32 bad_inline_remote_node(const struct vctx *c, struct th_nic_desc *d)
{
	d[0] = thn_inline_remote(c->nodes, c->peer_vport, c->peer_rw, 0, "x", 1);
	return 1;
}

static __u32 bad_inline_rsvd(const struct vctx *c, struct th_nic_desc *d)
{
	inline1(c, d);
	d[0].wr_inline.rsvd0[1] = 1;
	return 1;
}

static __u32 bad_inline_rsvd_tail(const struct vctx *c, struct th_nic_desc *d)
{
	inline1(c, d);
	d[0].wr_inline.rsvd[4] = 1;
	return 1;
}

/* A local inline write carries no remote key, a remote one no local key. */
static __u32 bad_inline_local_rkey(const struct vctx *c, struct th_nic_desc *d)
{
	inline1(c, d);
	d[0].wr_inline.rkey = c->peer_rw;
	return 1;
}

static __u32 bad_inline_remote_lkey(const struct vctx *c, struct th_nic_desc *d)
{
	d[0] = thn_inline_remote(c->peer_node, c->peer_vport, c->peer_rw, 0,
				 "x", 1);
	d[0].wr_inline.lkey = c->rw;
	return 1;
}

/* ---- REDUCE ------------------------------------------------------------ */

static __u32 bad_reduce_op(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.alu_op = TH_NIC_ALU_OP_MAX;
	return 1;
}

static __u32 bad_reduce_dtype(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.dtype = TH_NIC_DT_MAX;
	return 1;
}

static __u32 bad_reduce_band_float(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.alu_op = TH_NIC_ALU_BAND;
	return 1;
}

static __u32 bad_reduce_bor_float(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.alu_op = TH_NIC_ALU_BOR;
	return 1;
}

static __u32 bad_reduce_bxor_float32(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.alu_op = TH_NIC_ALU_BXOR;
	d[0].reduce.dtype = TH_NIC_DT_FLOAT32;
	return 1;
}

static __u32 bad_reduce_nsrc0(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.nsrc = 0;
	memset(d[0].reduce.src_key, 0, sizeof(d[0].reduce.src_key));
	memset(d[0].reduce.src_off, 0, sizeof(d[0].reduce.src_off));
	return 1;
}

static __u32 bad_reduce_nsrc8(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.nsrc = 8;
	return 1;
}

static __u32 seven_sources(const struct vctx *c, struct th_nic_desc *d)
{
	__u32 k[7];
	__u64 o[7];
	__u32 i;

	for (i = 0; i < 7; i++) {
		k[i] = c->ro;
		o[i] = i * 128;
	}
	d[0] = thn_reduce(TH_NIC_ALU_MAX, TH_NIC_DT_INT32, 32, c->rw, 0, 7, k, o);
	return 1;
}

static __u32 bad_reduce_acc7(const struct vctx *c, struct th_nic_desc *d)
{
	seven_sources(c, d);
	d[0].reduce.rflags = TH_NIC_RF_ACCUMULATE;
	return 1;
}

static __u32 ok_reduce_acc6(const struct vctx *c, struct th_nic_desc *d)
{
	seven_sources(c, d);
	d[0].reduce.rflags = TH_NIC_RF_ACCUMULATE;
	d[0].reduce.nsrc = 6;
	d[0].reduce.src_key[6] = 0;
	d[0].reduce.src_off[6] = 0;
	return 1;
}

static __u32 bad_reduce_rflags(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.rflags = 1 << 5;
	return 1;
}

static __u32 bad_reduce_unused_key(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.src_key[5] = c->ro;
	return 1;
}

static __u32 bad_reduce_unused_off(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.src_off[6] = 8;
	return 1;
}

static __u32 bad_reduce_dst_ro(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.dst_key = c->ro;
	return 1;
}

static __u32 bad_reduce_src_range(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.src_off[1] = BAD_BUF - 64;	/* 128 bytes needed */
	return 1;
}

/* 128 bytes from 64 before the end: aligned, clear of the sources. */
static __u32 bad_reduce_dst_range(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.dst_off = BAD_BUF - 64;
	return 1;
}

static __u32 bad_reduce_count_wrap(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.count = 0xffffffff;
	return 1;
}

static __u32 bad_reduce_src_peer_key(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.src_key[0] = c->peer_lkey;
	return 1;
}

static __u32 bad_reduce_dst_align(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.dst_off = 1028;
	return 1;
}

static __u32 bad_reduce_src_align(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.src_off[0] = 2;
	return 1;
}

static __u32 bad_reduce_overlap(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.src_off[2] = 1024 + 8;	/* rw, shifted by one element */
	return 1;
}

static __u32 ok_reduce_dst_is_src(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.src_off[2] = 1024;		/* exactly the destination */
	return 1;
}

static __u32 bad_strided_range(const struct vctx *c, struct th_nic_desc *d)
{
	strided1(c, d);
	d[0].reduce.src_off[1] = 1328;	/* source 3 at 3984 + 128 > 4096 */
	return 1;
}

static __u32 bad_strided_key1(const struct vctx *c, struct th_nic_desc *d)
{
	strided1(c, d);
	d[0].reduce.src_key[1] = c->ro;
	return 1;
}

static __u32 bad_strided_wrap(const struct vctx *c, struct th_nic_desc *d)
{
	strided1(c, d);
	d[0].reduce.src_off[1] = ~0ULL / 2;
	return 1;
}

/* ---- counters, NOTIFY, NOP -------------------------------------------- */

static __u32 bad_ct_range(const struct vctx *c, struct th_nic_desc *d)
{
	(void)c;
	d[0] = thn_ct_op(TH_NIC_OP_CT_INC, BAD_COUNTERS, 1);
	return 1;
}

static __u32 bad_ct_range_max(const struct vctx *c, struct th_nic_desc *d)
{
	(void)c;
	d[0] = thn_ct_op(TH_NIC_OP_CT_SET, 0xffff, 1);
	return 1;
}

static __u32 bad_ct_rsvd(const struct vctx *c, struct th_nic_desc *d)
{
	(void)c;
	d[0] = thn_ct_op(TH_NIC_OP_CT_SET, 1, 1);
	d[0].ct.rsvd1 = 1;
	return 1;
}

static __u32 bad_notify_rsvd(const struct vctx *c, struct th_nic_desc *d)
{
	(void)c;
	d[0] = thn_notify(1);
	d[0].notify.rsvd[11] = 1;
	return 1;
}

/* ---- REARM -------------------------------------------------------------- */

static __u32 ok_rearm(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, &d[0]);
	d[1] = thn_notify(1);
	d[2] = thn_rearm(4);
	thn_link(d, 3);
	thn_trigger(&d[0], 3, 4, 9);	/* waits: its counter is at 0 */
	return 3;
}

static __u32 bad_rearm_not_last(const struct vctx *c, struct th_nic_desc *d)
{
	(void)c;
	d[0] = thn_rearm(1);
	d[1] = thn_notify(1);
	thn_link(d, 2);
	return 2;
}

static __u32 bad_rearm_stride0(const struct vctx *c, struct th_nic_desc *d)
{
	d[0] = thn_notify(1);
	d[1] = thn_rearm(0);
	thn_link(d, 2);
	(void)c;
	return 2;
}

static __u32 bad_rearm_rsvd(const struct vctx *c, struct th_nic_desc *d)
{
	(void)c;
	d[0] = thn_rearm(1);
	d[0].rearm.rsvd[11] = 1;
	return 1;
}

static __u32 bad_nop_operand(const struct vctx *c, struct th_nic_desc *d)
{
	(void)c;
	d[0] = thn_nop();
	d[0].raw[50] = 1;
	return 1;
}

/* ---- valid edge cases -------------------------------------------------- */

static __u32 ok_put_len0(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].xfer.len = 0;
	d[0].xfer.loff = BAD_BUF;	/* an empty range at the very end */
	return 1;
}

static __u32 ok_reduce_count0(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.count = 0;
	return 1;
}

static __u32 ok_inline32(const struct vctx *c, struct th_nic_desc *d)
{
	__u8 data[TH_NIC_INLINE_MAX];

	memset(data, 0x77, sizeof(data));
	d[0] = thn_inline(c->rw, BAD_BUF - TH_NIC_INLINE_MAX, data,
			  TH_NIC_INLINE_MAX);
	return 1;
}

static __u32 ok_inline_remote(const struct vctx *c, struct th_nic_desc *d)
{
	d[0] = thn_inline_remote(c->peer_node, c->peer_vport, c->peer_rw, 0, "xy", 2);
	d[0].flags |= TH_NIC_DF_REMOTE_CT;
	d[0].wr_inline.remote_ct = BAD_COUNTERS - 1;
	return 1;
}

static __u32 ok_max_chain(const struct vctx *c, struct th_nic_desc *d)
{
	__u32 i;

	(void)c;
	for (i = 0; i < BAD_CHAIN; i++)
		d[i] = thn_notify(i);
	thn_link(d, BAD_CHAIN);
	return BAD_CHAIN;
}

static __u32 ok_far_address(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].xfer.vport = BAD_VPORTS - 1;	/* fails later, at run time */
	return 1;
}

static __u32 ok_pending_last_ct(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	thn_trigger(&d[0], BAD_COUNTERS - 1, ~0ULL, 42);
	return 1;
}

static __u32 ok_every_op(const struct vctx *c, struct th_nic_desc *d)
{
	__u32 n = 0;

	d[n++] = thn_nop();
	put1(c, &d[n++]);
	get1(c, &d[n++]);
	copy1(c, &d[n++]);
	inline1(c, &d[n++]);
	reduce1(c, &d[n++]);
	d[n++] = thn_ct_op(TH_NIC_OP_CT_INC, 5, -3);
	d[n++] = thn_ct_op(TH_NIC_OP_CT_SET, 5, 9);
	d[n++] = thn_notify(1);
	thn_link(d, n);
	return n;
}

/* ---- boundaries -------------------------------------------------------- */
/*
 * Every range and limit rule at its edge: the largest value that fits
 * (accepted), one unit past it (refused, with its reason) and a value that
 * wraps the 64-bit sum (refused).  A unit is a byte for byte ranges, an
 * element for REDUCE operands, an index for counters and addresses.  The
 * end of a range is off + len: it may equal the region's length, never
 * exceed it.
 */
#define U64_MAX_	(~0ULL)

/* PUT, local side: [loff, loff + 64) of a BAD_BUF region. */
static __u32 ok_put_local_fit(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].xfer.loff = BAD_BUF - 64;
	return 1;
}

static __u32 bad_put_local_len_past(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].xfer.loff = BAD_BUF - 64;
	d[0].xfer.len = 65;
	return 1;
}

/* PUT, remote side: its range may end at 2^64 - 1, not wrap past it. */
static __u32 ok_put_remote_end_max(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].xfer.roff = U64_MAX_ - 64;		/* fails later, at the target */
	return 1;
}

static __u32 bad_put_remote_one_past(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].xfer.roff = U64_MAX_ - 63;
	return 1;
}

static __u32 ok_put_last_node(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].xfer.node = c->nodes - 1;		/* may fail later, at run time */
	return 1;
}

static __u32 ok_put_remote_ct_last(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].flags |= TH_NIC_DF_REMOTE_CT;
	d[0].xfer.remote_ct = BAD_COUNTERS - 1;
	return 1;
}

static __u32 bad_put_remote_ct_ffff(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].flags |= TH_NIC_DF_REMOTE_CT;
	d[0].xfer.remote_ct = 0xffff;
	return 1;
}

/* GET: the local side is written, the same edges apply. */
static __u32 ok_get_local_fit(const struct vctx *c, struct th_nic_desc *d)
{
	get1(c, d);
	d[0].xfer.loff = BAD_BUF - 64;
	return 1;
}

static __u32 bad_get_local_one_past(const struct vctx *c, struct th_nic_desc *d)
{
	get1(c, d);
	d[0].xfer.loff = BAD_BUF - 63;
	return 1;
}

static __u32 bad_get_local_wrap(const struct vctx *c, struct th_nic_desc *d)
{
	get1(c, d);
	d[0].xfer.loff = U64_MAX_ - 31;
	return 1;
}

static __u32 ok_get_remote_end_max(const struct vctx *c, struct th_nic_desc *d)
{
	get1(c, d);
	d[0].xfer.roff = U64_MAX_ - 64;
	return 1;
}

static __u32 bad_get_remote_one_past(const struct vctx *c, struct th_nic_desc *d)
{
	get1(c, d);
	d[0].xfer.roff = U64_MAX_ - 63;
	return 1;
}

static __u32 bad_get_node(const struct vctx *c, struct th_nic_desc *d)
{
	get1(c, d);
	d[0].xfer.node = c->nodes;
	return 1;
}

static __u32 bad_get_vport(const struct vctx *c, struct th_nic_desc *d)
{
	get1(c, d);
	d[0].xfer.vport = BAD_VPORTS;
	return 1;
}

/* COPY: source and destination, each at the end of its region. */
static __u32 ok_copy_src_fit(const struct vctx *c, struct th_nic_desc *d)
{
	copy1(c, d);
	d[0].copy.src_off = BAD_BUF - 64;
	return 1;
}

static __u32 bad_copy_src_one_past(const struct vctx *c, struct th_nic_desc *d)
{
	copy1(c, d);
	d[0].copy.src_off = BAD_BUF - 63;
	return 1;
}

static __u32 bad_copy_src_wrap(const struct vctx *c, struct th_nic_desc *d)
{
	copy1(c, d);
	d[0].copy.src_off = U64_MAX_ - 8;
	return 1;
}

static __u32 ok_copy_dst_fit(const struct vctx *c, struct th_nic_desc *d)
{
	copy1(c, d);
	d[0].copy.dst_off = BAD_BUF - 64;
	return 1;
}

static __u32 bad_copy_dst_one_past(const struct vctx *c, struct th_nic_desc *d)
{
	copy1(c, d);
	d[0].copy.dst_off = BAD_BUF - 63;
	return 1;
}

/* The whole region, and one byte more than the region. */
static __u32 ok_copy_whole(const struct vctx *c, struct th_nic_desc *d)
{
	copy1(c, d);
	d[0].copy.len = BAD_BUF;
	return 1;
}

static __u32 bad_copy_len_one_past(const struct vctx *c, struct th_nic_desc *d)
{
	copy1(c, d);
	d[0].copy.len = BAD_BUF + 1;
	return 1;
}

/* A length that wraps the sum by itself: offsets 1, len 2^64 - 1. */
static __u32 bad_copy_len_wrap(const struct vctx *c, struct th_nic_desc *d)
{
	copy1(c, d);
	d[0].copy.src_off = 1;
	d[0].copy.dst_off = 1;
	d[0].copy.len = U64_MAX_;
	return 1;
}

/* Source in range, destination past its end: the destination is checked. */
static __u32 bad_copy_dst_only_past(const struct vctx *c, struct th_nic_desc *d)
{
	copy1(c, d);
	d[0].copy.len = BAD_BUF;
	d[0].copy.dst_off = 1;
	return 1;
}

/* WRITE_INLINE, local and remote. */
static __u32 bad_inline_local_wrap(const struct vctx *c, struct th_nic_desc *d)
{
	inline1(c, d);
	d[0].wr_inline.off = U64_MAX_ - 1;
	return 1;
}

static __u32 bad_inline_len255(const struct vctx *c, struct th_nic_desc *d)
{
	inline1(c, d);
	d[0].wr_inline.len = 255;
	return 1;
}

static __u32 ok_inline_remote_end_max(const struct vctx *c,
				      struct th_nic_desc *d)
{
	d[0] = thn_inline_remote(c->peer_node, c->peer_vport, c->peer_rw,
				 U64_MAX_ - 2, "xy", 2);
	return 1;
}

static __u32 bad_inline_remote_one_past(const struct vctx *c,
					struct th_nic_desc *d)
{
	d[0] = thn_inline_remote(c->peer_node, c->peer_vport, c->peer_rw,
				 U64_MAX_ - 1, "xy", 2);
	return 1;
}

static __u32 ok_inline_remote_last_vport(const struct vctx *c,
					 struct th_nic_desc *d)
{
	d[0] = thn_inline_remote(c->nodes - 1, BAD_VPORTS - 1, c->peer_rw, 0,
				 "x", 1);
	return 1;
}

static __u32 bad_inline_remote_vport(const struct vctx *c,
				     struct th_nic_desc *d)
{
	d[0] = thn_inline_remote(c->peer_node, BAD_VPORTS, c->peer_rw, 0,
				 "x", 1);
	return 1;
}

static __u32 bad_inline_remote_ct_range(const struct vctx *c,
					struct th_nic_desc *d)
{
	ok_inline_remote(c, d);
	d[0].wr_inline.remote_ct = BAD_COUNTERS;
	return 1;
}

/* REDUCE: 16 float64 (128 bytes) per operand; one element is 8 bytes. */
static __u32 ok_reduce_dst_fit(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.dst_off = BAD_BUF - 128;
	return 1;
}

static __u32 bad_reduce_dst_one_past(const struct vctx *c,
				     struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.dst_off = BAD_BUF - 120;
	return 1;
}

static __u32 bad_reduce_dst_wrap(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.dst_off = U64_MAX_ - 127;	/* 8-aligned */
	return 1;
}

/* One element more at the destination's fitting offset. */
static __u32 bad_reduce_dst_count_past(const struct vctx *c,
				       struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.dst_off = BAD_BUF - 128;
	d[0].reduce.count = 17;
	return 1;
}

static __u32 ok_reduce_src_fit(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.src_off[1] = BAD_BUF - 128;
	return 1;
}

static __u32 bad_reduce_src_one_past(const struct vctx *c,
				     struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.src_off[1] = BAD_BUF - 120;
	return 1;
}

static __u32 bad_reduce_src_wrap(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.src_off[1] = U64_MAX_ - 7;	/* 8-aligned */
	return 1;
}

/* The last source past its end, the others fine: every source is checked. */
static __u32 bad_reduce_last_src_past(const struct vctx *c,
				      struct th_nic_desc *d)
{
	seven_sources(c, d);
	d[0].reduce.src_off[6] = BAD_BUF - 124;	/* 128 bytes of int32 */
	return 1;
}

/*
 * Overlap of a source with the destination (rw at 1024, 128 bytes): a
 * source ending where it begins or beginning where it ends is disjoint,
 * one element closer overlaps.
 */
static __u32 ok_reduce_src_ends_at_dst(const struct vctx *c,
				       struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.src_off[2] = 1024 - 128;
	return 1;
}

static __u32 bad_reduce_src_one_into_dst(const struct vctx *c,
					 struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.src_off[2] = 1024 - 120;
	return 1;
}

static __u32 ok_reduce_src_starts_at_dst_end(const struct vctx *c,
					     struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.src_off[2] = 1024 + 128;
	return 1;
}

static __u32 bad_reduce_src_one_before_dst_end(const struct vctx *c,
					       struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.src_off[2] = 1024 + 120;
	return 1;
}

/*
 * Element counts: one source and the destination each a whole region
 * (SUM, source ro at 0, destination rw at 0), then one element more.
 */
static __u32 reduce_whole(const struct vctx *c, struct th_nic_desc *d,
			  __u8 dtype, __u32 esize, __u32 extra)
{
	__u32 k[1] = { c->ro };
	__u64 o[1] = { 0 };

	d[0] = thn_reduce(TH_NIC_ALU_SUM, dtype, BAD_BUF / esize + extra,
			  c->rw, 0, 1, k, o);
	return 1;
}

#define REDUCE_WHOLE(name, dtype, esize, extra) \
static __u32 name(const struct vctx *c, struct th_nic_desc *d) \
{ \
	return reduce_whole(c, d, dtype, esize, extra); \
}
REDUCE_WHOLE(ok_reduce_int8_whole, TH_NIC_DT_INT8, 1, 0)
REDUCE_WHOLE(bad_reduce_int8_one_past, TH_NIC_DT_INT8, 1, 1)
REDUCE_WHOLE(ok_reduce_uint16_whole, TH_NIC_DT_UINT16, 2, 0)
REDUCE_WHOLE(bad_reduce_uint16_one_past, TH_NIC_DT_UINT16, 2, 1)
REDUCE_WHOLE(ok_reduce_float32_whole, TH_NIC_DT_FLOAT32, 4, 0)
REDUCE_WHOLE(bad_reduce_float32_one_past, TH_NIC_DT_FLOAT32, 4, 1)
REDUCE_WHOLE(ok_reduce_int64_whole, TH_NIC_DT_INT64, 8, 0)
REDUCE_WHOLE(bad_reduce_int64_one_past, TH_NIC_DT_INT64, 8, 1)
REDUCE_WHOLE(ok_reduce_float64_whole, TH_NIC_DT_FLOAT64, 8, 0)
REDUCE_WHOLE(bad_reduce_float64_one_past, TH_NIC_DT_FLOAT64, 8, 1)

/* Strided: 4 sources at src_off[0] + i * src_off[1], 128 bytes each. */
static __u32 ok_strided_fit(const struct vctx *c, struct th_nic_desc *d)
{
	strided1(c, d);
	d[0].reduce.src_off[0] = BAD_BUF - 4 * 128;	/* last ends at BUF */
	return 1;
}

static __u32 bad_strided_one_past(const struct vctx *c, struct th_nic_desc *d)
{
	strided1(c, d);
	d[0].reduce.src_off[0] = BAD_BUF - 4 * 128 + 8;
	return 1;
}

/* 3 * stride is exactly 2^64 - 1: the product fits, adding 8 wraps. */
static __u32 bad_strided_sum_wrap(const struct vctx *c, struct th_nic_desc *d)
{
	strided1(c, d);
	d[0].reduce.src_off[0] = 8;
	d[0].reduce.src_off[1] = 0x5555555555555555ULL;
	return 1;
}

/* Strided sources use src_off[0] and [1] only: [2] is reserved. */
static __u32 bad_strided_off2(const struct vctx *c, struct th_nic_desc *d)
{
	strided1(c, d);
	d[0].reduce.src_off[2] = 8;
	return 1;
}

static __u32 ok_strided_seven(const struct vctx *c, struct th_nic_desc *d)
{
	strided1(c, d);
	d[0].reduce.nsrc = 7;
	return 1;
}

static __u32 bad_strided_eight(const struct vctx *c, struct th_nic_desc *d)
{
	strided1(c, d);
	d[0].reduce.nsrc = 8;
	return 1;
}

static __u32 ok_strided_acc_six(const struct vctx *c, struct th_nic_desc *d)
{
	strided1(c, d);
	d[0].reduce.rflags |= TH_NIC_RF_ACCUMULATE;
	d[0].reduce.nsrc = 6;
	return 1;
}

static __u32 bad_strided_acc_seven(const struct vctx *c, struct th_nic_desc *d)
{
	strided1(c, d);
	d[0].reduce.rflags |= TH_NIC_RF_ACCUMULATE;
	d[0].reduce.nsrc = 7;
	return 1;
}

static __u32 ok_reduce_one_source(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.nsrc = 1;
	d[0].reduce.src_key[1] = d[0].reduce.src_key[2] = 0;
	d[0].reduce.src_off[1] = d[0].reduce.src_off[2] = 0;
	return 1;
}

/* Counters: the last index is fine, the next and 0xffff are not. */
static __u32 bad_trig_ct_ffff(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	thn_trigger(&d[0], 0xffff, 1, 0);
	return 1;
}

static __u32 ok_comp_ct_last(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	thn_comp_ct(&d[0], BAD_COUNTERS - 1);
	return 1;
}

static __u32 bad_comp_ct_ffff(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	thn_comp_ct(&d[0], 0xffff);
	return 1;
}

static __u32 ok_ct_inc_last(const struct vctx *c, struct th_nic_desc *d)
{
	(void)c;
	d[0] = thn_ct_op(TH_NIC_OP_CT_INC, BAD_COUNTERS - 1, 1);
	return 1;
}

static __u32 ok_ct_set_last(const struct vctx *c, struct th_nic_desc *d)
{
	(void)c;
	d[0] = thn_ct_op(TH_NIC_OP_CT_SET, BAD_COUNTERS - 1, 1);
	return 1;
}

static __u32 bad_ct_set_range(const struct vctx *c, struct th_nic_desc *d)
{
	(void)c;
	d[0] = thn_ct_op(TH_NIC_OP_CT_SET, BAD_COUNTERS, 1);
	return 1;
}

/* Thresholds and strides: any 64-bit value is accepted at the doorbell. */
static __u32 ok_rearm_stride_one(const struct vctx *c, struct th_nic_desc *d)
{
	ok_rearm(c, d);
	d[2].rearm.stride = 1;
	return 3;
}

/* It would wrap after its first round: that ends it then, with -ERANGE. */
static __u32 ok_rearm_stride_max(const struct vctx *c, struct th_nic_desc *d)
{
	ok_rearm(c, d);
	d[2].rearm.stride = U64_MAX_;
	return 3;
}

/* The longest chain may end in REARM; one more descriptor may not. */
static __u32 ok_rearm_max_chain(const struct vctx *c, struct th_nic_desc *d)
{
	__u32 i;

	(void)c;
	for (i = 0; i + 1 < BAD_CHAIN; i++)
		d[i] = thn_notify(i);
	d[BAD_CHAIN - 1] = thn_rearm(1);
	thn_link(d, BAD_CHAIN);
	thn_trigger(&d[0], 2, 5, 5);	/* waits: its counter is at 0 */
	return BAD_CHAIN;
}

static __u32 bad_rearm_past_max_chain(const struct vctx *c,
				      struct th_nic_desc *d)
{
	__u32 i;

	(void)c;
	for (i = 0; i < BAD_CHAIN; i++)
		d[i] = thn_notify(i);
	d[BAD_CHAIN] = thn_rearm(1);
	thn_link(d, BAD_CHAIN + 1);
	thn_trigger(&d[0], 2, 5, 5);
	return BAD_CHAIN + 1;
}

#endif /* BADINPUT_ROWS_H */
