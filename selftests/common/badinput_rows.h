/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * badinput_rows.h - the table of bad (and valid edge-case) descriptor
 * chains, one row per rule of ABI.md "Errors and bad input".  The same rows
 * run against the engine on the host (selftests/host/test_validate.c) and
 * against th_nic.ko in the VM (selftests/th_nic/badinput_test.c).
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

#endif /* BADINPUT_ROWS_H */
