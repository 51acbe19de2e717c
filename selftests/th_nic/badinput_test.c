// SPDX-License-Identifier: GPL-2.0
/*
 * badinput_test.c - bad input refused by the module: one row per
 * descriptor rule of ABI.md (doorbell -EINVAL naming the slot and the
 * descriptor, the SQ head left on it, nothing installed or written), valid
 * edge cases accepted; malformed ioctl structs; bad MR registrations.
 */
#include <stddef.h>

#include "kselftest_harness.h"
#include "th_nic_util.h"

#define NODE	6
#define PEER	7
#define BUF	4096

/* What a row's chain builder may use. */
struct vctx {
	__u32 rw;		/* TH_NIC_ACCESS_ALL, BUF bytes */
	__u32 ro;		/* no access flags: local reads only */
	__u32 peer_rw;		/* TH_NIC_ACCESS_ALL on the peer */
	__u32 peer_vport;
};

typedef __u32 (*build_fn)(const struct vctx *c, struct th_nic_desc *d);

FIXTURE(bad) {
	int fd, peer_fd;
	struct thn_vport v, peer;
	struct vctx c;
	__u8 *rw, *ro, *peer_rw;
};

FIXTURE_VARIANT(bad) {
	build_fn build;
	int err;		/* expected doorbell result */
	__u32 bad_desc;		/* expected offending position on -EINVAL */
};

FIXTURE_SETUP(bad)
{
	self->fd = thn_open(NODE);
	ASSERT_LE(0, self->fd);
	self->peer_fd = thn_open(PEER);
	ASSERT_LE(0, self->peer_fd);
	ASSERT_EQ(0, thn_vport_open(self->fd, 0, 0, &self->v));
	ASSERT_EQ(0, thn_vport_open(self->peer_fd, 0, 0, &self->peer));
	self->rw = thn_alloc(BUF);
	self->ro = thn_alloc(BUF);
	self->peer_rw = thn_alloc(BUF);
	ASSERT_NE(NULL, self->rw);
	ASSERT_NE(NULL, self->ro);
	ASSERT_NE(NULL, self->peer_rw);
	memset(self->rw, 0xa5, BUF);
	memset(self->ro, 0x5a, BUF);
	memset(self->peer_rw, 0x3c, BUF);
	ASSERT_EQ(0, thn_mr_reg(&self->v, self->rw, BUF, TH_NIC_ACCESS_ALL,
				&self->c.rw));
	ASSERT_EQ(0, thn_mr_reg(&self->v, self->ro, BUF, 0, &self->c.ro));
	ASSERT_EQ(0, thn_mr_reg(&self->peer, self->peer_rw, BUF,
				TH_NIC_ACCESS_ALL, &self->c.peer_rw));
	self->c.peer_vport = self->peer.id;
}

FIXTURE_TEARDOWN(bad)
{
	close(self->fd);
	close(self->peer_fd);
}

/* ---- valid building blocks ------------------------------------------ */

static __u32 put1(const struct vctx *c, struct th_nic_desc *d)
{
	d[0] = thn_put(c->rw, 0, PEER, c->peer_vport, c->peer_rw, 0, 64);
	return 1;
}

static __u32 get1(const struct vctx *c, struct th_nic_desc *d)
{
	d[0] = thn_get(c->rw, 0, PEER, c->peer_vport, c->peer_rw, 0, 64);
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
	thn_trigger(&d[0], THN_DEF_COUNTERS, 1, 0);
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
	thn_comp_ct(&d[0], THN_DEF_COUNTERS);
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
	for (i = 0; i < THN_DEF_CHAIN + 1; i++)
		d[i] = thn_notify(i);
	thn_link(d, THN_DEF_CHAIN + 1);
	return THN_DEF_CHAIN + 1;
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
	d[0].xfer.lkey = c->peer_rw;	/* another vport's key */
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
	d[0].xfer.loff = BUF - 63;
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
	d[0].xfer.node = THN_NODES;
	return 1;
}

static __u32 bad_put_vport(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].xfer.vport = THN_DEF_VPORTS;
	return 1;
}

static __u32 bad_put_len_max(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].xfer.len = THN_DEF_MR_SIZE + 1;
	return 1;
}

static __u32 bad_put_roff_wrap(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].xfer.roff = ~0ULL - 10;
	return 1;
}

static __u32 bad_put_rsvd(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].xfer.rsvd[7] = 1;
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
	d[0].xfer.remote_ct = THN_DEF_COUNTERS;
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
	d[0].copy.src_off = BUF;
	return 1;
}

static __u32 bad_copy_dst_wrap(const struct vctx *c, struct th_nic_desc *d)
{
	copy1(c, d);
	d[0].copy.dst_off = ~0ULL - 8;
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
	d[0].wr_inline.key = c->ro;
	return 1;
}

static __u32 bad_inline_range(const struct vctx *c, struct th_nic_desc *d)
{
	inline1(c, d);
	d[0].wr_inline.off = BUF - 3;
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
	d[0] = thn_inline_remote(THN_NODES, c->peer_vport, c->peer_rw, 0, "x", 1);
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
	d[0].wr_inline.rsvd[5] = 1;
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
	d[0].reduce.src_off[1] = BUF - 64;	/* 128 bytes needed */
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
	d[0].reduce.src_key[0] = c->peer_rw;
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
	d[0].reduce.src_off[1] = 1300;	/* source 3 at 3900 + 128 > 4096 */
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
	d[0] = thn_ct_op(TH_NIC_OP_CT_INC, THN_DEF_COUNTERS, 1);
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

static __u32 bad_nop_operand(const struct vctx *c, struct th_nic_desc *d)
{
	(void)c;
	d[0] = thn_nop();
	d[0].raw[50] = 1;
	return 1;
}

/* A good chain, then a bad one: the good one's effects must not count. */
static __u32 bad_second_chain_first_ok(const struct vctx *c,
				       struct th_nic_desc *d)
{
	(void)c;
	d[0] = thn_nop();
	thn_trigger(&d[0], 0, 1, 0);		/* stays pending */
	d[1] = thn_notify(1);
	d[1].rsvd0 = 1;
	return 2;
}

/* ---- valid edge cases -------------------------------------------------- */

static __u32 ok_put_len0(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].xfer.len = 0;
	d[0].xfer.loff = BUF;	/* an empty range at the very end */
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
	d[0] = thn_inline(c->rw, BUF - TH_NIC_INLINE_MAX, data,
			  TH_NIC_INLINE_MAX);
	return 1;
}

static __u32 ok_inline_remote(const struct vctx *c, struct th_nic_desc *d)
{
	d[0] = thn_inline_remote(PEER, c->peer_vport, c->peer_rw, 0, "xy", 2);
	d[0].flags |= TH_NIC_DF_REMOTE_CT;
	d[0].wr_inline.remote_ct = THN_DEF_COUNTERS - 1;
	return 1;
}

static __u32 ok_max_chain(const struct vctx *c, struct th_nic_desc *d)
{
	__u32 i;

	(void)c;
	for (i = 0; i < THN_DEF_CHAIN; i++)
		d[i] = thn_notify(i);
	thn_link(d, THN_DEF_CHAIN);
	return THN_DEF_CHAIN;
}

static __u32 ok_far_address(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].xfer.vport = THN_DEF_VPORTS - 1;	/* fails later, at run time */
	return 1;
}

static __u32 ok_pending_last_ct(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	thn_trigger(&d[0], THN_DEF_COUNTERS - 1, ~0ULL, 42);
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

#define REFUSE(name, fn, at) \
	FIXTURE_VARIANT_ADD(bad, name) { .build = fn, .err = -EINVAL, .bad_desc = at }
#define ACCEPT(name, fn) \
	FIXTURE_VARIANT_ADD(bad, name) { .build = fn, .err = 0 }

REFUSE(unknown_opcode, bad_opcode, 0);
REFUSE(opcode_255, bad_opcode_255, 0);
REFUSE(reserved_header_byte, bad_rsvd0, 0);
REFUSE(unknown_flag, bad_flag, 0);
REFUSE(unknown_top_flag, bad_flag_top, 0);
REFUSE(trigger_counter_out_of_range, bad_trig_ct, 0);
REFUSE(threshold_on_later_descriptor, bad_second_threshold, 1);
REFUSE(cookie_on_later_descriptor, bad_second_cookie, 1);
REFUSE(trigger_on_later_descriptor, bad_second_trig_ct, 1);
REFUSE(completion_counter_out_of_range, bad_comp_ct_range, 0);
REFUSE(completion_counter_without_flag, bad_comp_ct_noflag, 0);
REFUSE(remote_flag_on_put, bad_remote_on_put, 0);
REFUSE(remote_counter_on_copy, bad_remote_ct_on_copy, 0);
REFUSE(remote_counter_on_get, bad_remote_ct_on_get, 0);
REFUSE(chain_without_end, bad_no_end, 1);
REFUSE(chain_longer_than_max, bad_too_long, THN_DEF_CHAIN - 1);
REFUSE(bad_descriptor_in_middle, bad_in_middle, 3);
REFUSE(put_unknown_local_key, bad_put_lkey, 0);
REFUSE(put_other_vports_key_as_local, bad_put_lkey_peer, 0);
REFUSE(put_local_key_zero, bad_put_lkey_zero, 0);
REFUSE(put_past_local_mr, bad_put_range, 0);
REFUSE(put_offset_wraps, bad_put_wrap, 0);
REFUSE(put_offset_plus_len_wraps, bad_put_len_wrap, 0);
REFUSE(put_node_out_of_range, bad_put_node, 0);
REFUSE(put_vport_out_of_range, bad_put_vport, 0);
REFUSE(put_longer_than_max_mr, bad_put_len_max, 0);
REFUSE(put_remote_offset_wraps, bad_put_roff_wrap, 0);
REFUSE(put_reserved, bad_put_rsvd, 0);
REFUSE(put_remote_counter_without_flag, bad_put_remote_ct_noflag, 0);
REFUSE(put_remote_counter_out_of_range, bad_put_remote_ct_range, 0);
REFUSE(get_into_readonly_mr, bad_get_readonly, 0);
REFUSE(copy_into_readonly_mr, bad_copy_dst_ro, 0);
REFUSE(copy_past_source_mr, bad_copy_src_range, 0);
REFUSE(copy_destination_wraps, bad_copy_dst_wrap, 0);
REFUSE(copy_reserved, bad_copy_rsvd, 0);
REFUSE(inline_length_zero, bad_inline_len0, 0);
REFUSE(inline_length_33, bad_inline_len33, 0);
REFUSE(inline_bytes_past_length, bad_inline_tail, 0);
REFUSE(inline_local_with_node, bad_inline_local_node, 0);
REFUSE(inline_into_readonly_mr, bad_inline_ro, 0);
REFUSE(inline_past_mr, bad_inline_range, 0);
REFUSE(inline_remote_counter_on_local, bad_inline_remote_ct_local, 0);
REFUSE(inline_remote_node_out_of_range, bad_inline_remote_node, 0);
REFUSE(inline_reserved, bad_inline_rsvd, 0);
REFUSE(inline_reserved_tail, bad_inline_rsvd_tail, 0);
REFUSE(reduce_unknown_op, bad_reduce_op, 0);
REFUSE(reduce_unknown_dtype, bad_reduce_dtype, 0);
REFUSE(reduce_band_on_float64, bad_reduce_band_float, 0);
REFUSE(reduce_bor_on_float64, bad_reduce_bor_float, 0);
REFUSE(reduce_bxor_on_float32, bad_reduce_bxor_float32, 0);
REFUSE(reduce_zero_sources, bad_reduce_nsrc0, 0);
REFUSE(reduce_eight_sources, bad_reduce_nsrc8, 0);
REFUSE(reduce_accumulate_with_seven, bad_reduce_acc7, 0);
REFUSE(reduce_unknown_rflag, bad_reduce_rflags, 0);
REFUSE(reduce_unused_key_set, bad_reduce_unused_key, 0);
REFUSE(reduce_unused_offset_set, bad_reduce_unused_off, 0);
REFUSE(reduce_into_readonly_mr, bad_reduce_dst_ro, 0);
REFUSE(reduce_source_past_mr, bad_reduce_src_range, 0);
REFUSE(reduce_count_past_mr, bad_reduce_count_wrap, 0);
REFUSE(reduce_source_on_other_vport, bad_reduce_src_peer_key, 0);
REFUSE(reduce_misaligned_destination, bad_reduce_dst_align, 0);
REFUSE(reduce_misaligned_source, bad_reduce_src_align, 0);
REFUSE(reduce_partial_overlap, bad_reduce_overlap, 0);
REFUSE(reduce_strided_past_mr, bad_strided_range, 0);
REFUSE(reduce_strided_second_key, bad_strided_key1, 0);
REFUSE(reduce_strided_stride_wraps, bad_strided_wrap, 0);
REFUSE(counter_op_out_of_range, bad_ct_range, 0);
REFUSE(counter_op_index_ffff, bad_ct_range_max, 0);
REFUSE(counter_op_reserved, bad_ct_rsvd, 0);
REFUSE(notify_reserved, bad_notify_rsvd, 0);
REFUSE(nop_with_operands, bad_nop_operand, 0);
REFUSE(good_chain_then_bad_chain, bad_second_chain_first_ok, 0);
ACCEPT(put_of_zero_bytes_at_mr_end, ok_put_len0);
ACCEPT(reduce_of_zero_elements, ok_reduce_count0);
ACCEPT(inline_of_32_bytes, ok_inline32);
ACCEPT(inline_remote_with_last_counter, ok_inline_remote);
ACCEPT(reduce_seven_sources, seven_sources);
ACCEPT(reduce_accumulate_six_sources, ok_reduce_acc6);
ACCEPT(reduce_destination_is_a_source, ok_reduce_dst_is_src);
ACCEPT(reduce_strided, strided1);
ACCEPT(chain_of_max_length, ok_max_chain);
ACCEPT(put_to_highest_vport, ok_far_address);
ACCEPT(pending_on_last_counter, ok_pending_last_ct);
ACCEPT(every_opcode_in_one_chain, ok_every_op);

/* Every counter of @v, success and failure, is zero. */
static bool counters_zero(struct thn_vport *v)
{
	__u32 i;

	for (i = 0; i < THN_DEF_COUNTERS; i++)
		if (thn_ct(v, i) || thn_ct_fail(v, i))
			return false;
	return true;
}

static bool all_bytes(const __u8 *p, __u8 val, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != val)
			return false;
	return true;
}

TEST_F(bad, doorbell)
{
	struct th_nic_desc d[THN_DEF_CHAIN + 1];
	struct th_nic_doorbell db;
	struct th_nic_cqe cqe[4];
	__u32 n, head, cancelled;
	int ret;

	memset(d, 0, sizeof(d));
	n = variant->build(&self->c, d);
	/* bad_second_chain_first_ok: its good chain is accepted first */
	if (variant->build == bad_second_chain_first_ok) {
		head = thn_sq_head(&self->v);
		ASSERT_EQ(-EINVAL, thn_post(&self->v, d, 2, &db));
		EXPECT_EQ(1, db.chains);
		EXPECT_EQ(1, db.descs);
		EXPECT_EQ(head + 1, db.bad_index);
		EXPECT_EQ(0, db.bad_desc);
		EXPECT_EQ(head + 1, thn_sq_head(&self->v));
		ASSERT_EQ(0, thn_cancel(&self->v, false, 0, &cancelled));
		EXPECT_EQ(1, cancelled);
		return;
	}

	head = thn_sq_head(&self->v);
	ret = thn_post(&self->v, d, n, &db);
	ASSERT_EQ(variant->err, ret);

	if (variant->err) {
		/* the SQ head stays on the refused chain, which names its slot */
		EXPECT_EQ(head, thn_sq_head(&self->v));
		EXPECT_EQ(0, db.chains);
		EXPECT_EQ(0, db.descs);
		EXPECT_EQ(head, db.bad_index);
		EXPECT_EQ(variant->bad_desc, db.bad_desc);
		/* ringing again refuses the same chain, consuming nothing */
		EXPECT_EQ(-EINVAL, thn_doorbell(&self->v, &db));
		EXPECT_EQ(head, db.bad_index);
		EXPECT_EQ(head, thn_sq_head(&self->v));
		thn_sq_rewind(&self->v);
		/* nothing installed, nothing ran, nothing written */
		ASSERT_EQ(0, thn_cancel(&self->v, false, 0, &cancelled));
		EXPECT_EQ(0, cancelled);
		thn_sleep_us(20000);
		EXPECT_EQ(0, thn_cq_drain(&self->v, cqe, 4));
		EXPECT_TRUE(all_bytes(self->rw, 0xa5, BUF));
		EXPECT_TRUE(all_bytes(self->ro, 0x5a, BUF));
		EXPECT_TRUE(all_bytes(self->peer_rw, 0x3c, BUF));
		EXPECT_TRUE(counters_zero(&self->v));
		EXPECT_TRUE(counters_zero(&self->peer));
		EXPECT_EQ(0, thn_cq_pending(&self->peer));
		/* and the vport still works */
		ASSERT_EQ(0, thn_post_notify(&self->v, 0, 0, 0x600d));
		ASSERT_EQ(1, thn_cq_wait(&self->v, cqe, 1, THN_WAIT_MS));
		EXPECT_EQ(0x600d, cqe[0].cookie);
	} else {
		EXPECT_EQ(head + n, thn_sq_head(&self->v));
		EXPECT_EQ(1, db.chains);
		EXPECT_EQ(n, db.descs);
	}
}

/* ---- ioctl structs ----------------------------------------------------- */

struct ictx {
	__u32 vport;		/* a vport of the fd */
	__u32 key;		/* an MR on it */
	void *mem;		/* a page to register */
};

/* One row: a valid struct, then one change that must be refused. */
struct iorow {
	const char *name;
	unsigned long cmd;
	__u32 size;		/* sizeof the struct */
	void (*fill)(const struct ictx *c, void *buf);
	int off;		/* byte offset to overwrite, -1: none */
	int width;		/* 4 or 8 */
	__u64 value;
	__s32 size_delta;	/* added to the size field */
	bool extra;		/* a non-zero byte past the struct */
	int err;
};

static void fill_query(const struct ictx *c, void *b)
{
	(void)c;
	((struct th_nic_query *)b)->size = sizeof(struct th_nic_query);
}

static void fill_create(const struct ictx *c, void *b)
{
	struct th_nic_vport_create *s = b;

	(void)c;
	s->size = sizeof(*s);
	s->sq_entries = 16;
	s->cq_entries = 16;
}

static void fill_destroy(const struct ictx *c, void *b)
{
	struct th_nic_vport_destroy *s = b;

	s->size = sizeof(*s);
	s->vport = c->vport;
}

static void fill_reg(const struct ictx *c, void *b)
{
	struct th_nic_mr_reg *s = b;

	s->size = sizeof(*s);
	s->vport = c->vport;
	s->addr = (__u64)(uintptr_t)c->mem;
	s->length = 4096;
	s->access = TH_NIC_ACCESS_ALL;
}

static void fill_dereg(const struct ictx *c, void *b)
{
	struct th_nic_mr_dereg *s = b;

	s->size = sizeof(*s);
	s->vport = c->vport;
	s->key = c->key;
}

static void fill_doorbell(const struct ictx *c, void *b)
{
	struct th_nic_doorbell *s = b;

	s->size = sizeof(*s);
	s->vport = c->vport;
}

static void fill_wait(const struct ictx *c, void *b)
{
	struct th_nic_ct_wait *s = b;

	s->size = sizeof(*s);
	s->vport = c->vport;
	s->ct = 100;
}

static void fill_update(const struct ictx *c, void *b)
{
	struct th_nic_ct_update *s = b;

	s->size = sizeof(*s);
	s->vport = c->vport;
	s->ct = 100;
	s->value = 1000;	/* a refused update must not show up */
}

static void fill_cancel(const struct ictx *c, void *b)
{
	struct th_nic_cancel *s = b;

	s->size = sizeof(*s);
	s->vport = c->vport;
}

#define ROW(nm, ioc, type, fn, field, w, val, err_) \
	{ nm, ioc, sizeof(struct type), fn, offsetof(struct type, field), w, \
	  val, 0, false, err_ }
#define SIZE_ROW(nm, ioc, type, fn, delta, extra_, err_) \
	{ nm, ioc, sizeof(struct type), fn, -1, 0, 0, delta, extra_, err_ }
#define HEADER_ROWS(pfx, ioc, type, fn) \
	SIZE_ROW(pfx " size 0", ioc, type, fn, -(int)sizeof(struct type), \
		 false, -EINVAL), \
	SIZE_ROW(pfx " size short", ioc, type, fn, -4, false, -EINVAL), \
	SIZE_ROW(pfx " larger, non-zero tail", ioc, type, fn, 8, true, -E2BIG), \
	ROW(pfx " flag 31", ioc, type, fn, flags, 4, 1U << 31, -EINVAL)

static const struct iorow iorows[] = {
	HEADER_ROWS("QUERY", TH_NIC_IOCTL_QUERY, th_nic_query, fill_query),
	HEADER_ROWS("VPORT_CREATE", TH_NIC_IOCTL_VPORT_CREATE,
		    th_nic_vport_create, fill_create),
	ROW("VPORT_CREATE rsvd[0]", TH_NIC_IOCTL_VPORT_CREATE,
	    th_nic_vport_create, fill_create, rsvd[0], 8, 1, -EINVAL),
	ROW("VPORT_CREATE rsvd[1]", TH_NIC_IOCTL_VPORT_CREATE,
	    th_nic_vport_create, fill_create, rsvd[1], 8, 1ULL << 63, -EINVAL),
	HEADER_ROWS("VPORT_DESTROY", TH_NIC_IOCTL_VPORT_DESTROY,
		    th_nic_vport_destroy, fill_destroy),
	ROW("VPORT_DESTROY rsvd", TH_NIC_IOCTL_VPORT_DESTROY,
	    th_nic_vport_destroy, fill_destroy, rsvd, 4, 1, -EINVAL),
	ROW("VPORT_DESTROY unknown vport", TH_NIC_IOCTL_VPORT_DESTROY,
	    th_nic_vport_destroy, fill_destroy, vport, 4, 0xffff, -EINVAL),
	HEADER_ROWS("MR_REG", TH_NIC_IOCTL_MR_REG, th_nic_mr_reg, fill_reg),
	ROW("MR_REG rsvd[0]", TH_NIC_IOCTL_MR_REG, th_nic_mr_reg, fill_reg,
	    rsvd[0], 8, 1, -EINVAL),
	ROW("MR_REG rsvd[1]", TH_NIC_IOCTL_MR_REG, th_nic_mr_reg, fill_reg,
	    rsvd[1], 8, 1, -EINVAL),
	ROW("MR_REG unknown access", TH_NIC_IOCTL_MR_REG, th_nic_mr_reg,
	    fill_reg, access, 4, 1 << 3, -EINVAL),
	ROW("MR_REG access bit 31", TH_NIC_IOCTL_MR_REG, th_nic_mr_reg,
	    fill_reg, access, 4, 1U << 31, -EINVAL),
	ROW("MR_REG length 0", TH_NIC_IOCTL_MR_REG, th_nic_mr_reg, fill_reg,
	    length, 8, 0, -EINVAL),
	ROW("MR_REG length > max", TH_NIC_IOCTL_MR_REG, th_nic_mr_reg,
	    fill_reg, length, 8, THN_DEF_MR_SIZE + 4096, -EINVAL),
	ROW("MR_REG unknown vport", TH_NIC_IOCTL_MR_REG, th_nic_mr_reg,
	    fill_reg, vport, 4, THN_DEF_VPORTS - 1, -EINVAL),
	HEADER_ROWS("MR_DEREG", TH_NIC_IOCTL_MR_DEREG, th_nic_mr_dereg,
		    fill_dereg),
	ROW("MR_DEREG unknown key", TH_NIC_IOCTL_MR_DEREG, th_nic_mr_dereg,
	    fill_dereg, key, 4, 0x12345, -EINVAL),
	ROW("MR_DEREG key 0", TH_NIC_IOCTL_MR_DEREG, th_nic_mr_dereg,
	    fill_dereg, key, 4, 0, -EINVAL),
	HEADER_ROWS("DOORBELL", TH_NIC_IOCTL_DOORBELL, th_nic_doorbell,
		    fill_doorbell),
	ROW("DOORBELL rsvd", TH_NIC_IOCTL_DOORBELL, th_nic_doorbell,
	    fill_doorbell, rsvd, 4, 1, -EINVAL),
	ROW("DOORBELL unknown vport", TH_NIC_IOCTL_DOORBELL, th_nic_doorbell,
	    fill_doorbell, vport, 4, THN_DEF_VPORTS - 1, -EINVAL),
	HEADER_ROWS("CT_WAIT", TH_NIC_IOCTL_CT_WAIT, th_nic_ct_wait, fill_wait),
	ROW("CT_WAIT counter out of range", TH_NIC_IOCTL_CT_WAIT,
	    th_nic_ct_wait, fill_wait, ct, 4, THN_DEF_COUNTERS, -EINVAL),
	ROW("CT_WAIT unknown vport", TH_NIC_IOCTL_CT_WAIT, th_nic_ct_wait,
	    fill_wait, vport, 4, THN_DEF_VPORTS - 1, -EINVAL),
	HEADER_ROWS("CT_SET", TH_NIC_IOCTL_CT_SET, th_nic_ct_update,
		    fill_update),
	ROW("CT_SET with FAILURE flag", TH_NIC_IOCTL_CT_SET, th_nic_ct_update,
	    fill_update, flags, 4, TH_NIC_CT_F_FAILURE, -EINVAL),
	ROW("CT_SET counter out of range", TH_NIC_IOCTL_CT_SET,
	    th_nic_ct_update, fill_update, ct, 4, THN_DEF_COUNTERS, -EINVAL),
	ROW("CT_SET unknown vport", TH_NIC_IOCTL_CT_SET, th_nic_ct_update,
	    fill_update, vport, 4, THN_DEF_VPORTS - 1, -EINVAL),
	HEADER_ROWS("CT_INC", TH_NIC_IOCTL_CT_INC, th_nic_ct_update,
		    fill_update),
	ROW("CT_INC flag 1", TH_NIC_IOCTL_CT_INC, th_nic_ct_update,
	    fill_update, flags, 4, 2, -EINVAL),
	ROW("CT_INC failure field", TH_NIC_IOCTL_CT_INC, th_nic_ct_update,
	    fill_update, failure, 8, 1, -EINVAL),
	ROW("CT_INC counter out of range", TH_NIC_IOCTL_CT_INC,
	    th_nic_ct_update, fill_update, ct, 4, 0xffffffff, -EINVAL),
	ROW("CT_INC unknown vport", TH_NIC_IOCTL_CT_INC, th_nic_ct_update,
	    fill_update, vport, 4, 0xffffffff, -EINVAL),
	HEADER_ROWS("CANCEL", TH_NIC_IOCTL_CANCEL, th_nic_cancel, fill_cancel),
	ROW("CANCEL flag 1", TH_NIC_IOCTL_CANCEL, th_nic_cancel, fill_cancel,
	    flags, 4, 2, -EINVAL),
	ROW("CANCEL unknown vport", TH_NIC_IOCTL_CANCEL, th_nic_cancel,
	    fill_cancel, vport, 4, THN_DEF_VPORTS - 1, -EINVAL),
};

TEST(malformed_ioctl_structs_are_refused)
{
	__u64 buf[64];
	struct thn_vport v;
	struct ictx c;
	unsigned int i;
	__u32 cancelled;
	int fd = thn_open(NODE), ret;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, thn_vport_open(fd, 16, 16, &v));
	c.vport = v.id;
	c.mem = thn_alloc(4096);
	ASSERT_NE(NULL, c.mem);
	ASSERT_EQ(0, thn_mr_reg(&v, c.mem, 4096, 0, &c.key));
	ASSERT_EQ(0, thn_post_notify(&v, 100, 1000, 5));	/* stays pending */

	for (i = 0; i < ARRAY_SIZE(iorows); i++) {
		const struct iorow *r = &iorows[i];

		memset(buf, 0, sizeof(buf));
		r->fill(&c, buf);
		if (r->off >= 0)
			memcpy((__u8 *)buf + r->off, &r->value, r->width);
		buf[0] = (buf[0] & ~0xffffffffULL) |
			 (__u32)(r->size + r->size_delta);
		if (r->extra)
			((__u8 *)buf)[r->size + 3] = 0x80;
		ret = thn_ioctl(fd, r->cmd, buf);
		EXPECT_EQ(r->err, ret) TH_LOG("%s", r->name);
	}
	/* nothing of the refused calls happened */
	EXPECT_EQ(0, thn_ct(&v, 100));
	EXPECT_EQ(0, thn_ct_fail(&v, 100));
	ASSERT_EQ(0, thn_cancel(&v, false, 0, &cancelled));
	EXPECT_EQ(1, cancelled);
	EXPECT_EQ(0, thn_mr_dereg(&v, c.key));
	/* the larger struct with a zero tail is fine for every call */
	memset(buf, 0, sizeof(buf));
	fill_update(&c, buf);
	buf[0] = sizeof(struct th_nic_ct_update) + 16;
	EXPECT_EQ(0, thn_ioctl(fd, TH_NIC_IOCTL_CT_INC, buf));
	EXPECT_EQ(1000, thn_ct(&v, 100));
	memset(buf, 0, sizeof(buf));
	fill_doorbell(&c, buf);
	buf[0] = sizeof(struct th_nic_doorbell) + 8;
	EXPECT_EQ(0, thn_ioctl(fd, TH_NIC_IOCTL_DOORBELL, buf));
	memset(buf, 0, sizeof(buf));
	fill_create(&c, buf);
	buf[0] = sizeof(struct th_nic_vport_create) + 64;
	EXPECT_EQ(0, thn_ioctl(fd, TH_NIC_IOCTL_VPORT_CREATE, buf));
	close(fd);
}

TEST(mr_reg_bad_memory)
{
	struct thn_vport v;
	__u8 *p;
	__u32 key;
	int fd = thn_open(NODE), ret;
	long page = sysconf(_SC_PAGESIZE);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, thn_vport_open(fd, 16, 16, &v));
	/* NULL, unmapped, PROT_NONE, half-mapped, kernel addresses */
	EXPECT_EQ(-EFAULT, thn_mr_reg(&v, NULL, page, TH_NIC_ACCESS_ALL, &key));
	p = thn_alloc(2 * page);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, munmap(p, 2 * page));
	EXPECT_EQ(-EFAULT, thn_mr_reg(&v, p, page, 0, &key));
	p = mmap(NULL, 2 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(-EFAULT, thn_mr_reg(&v, p, page, 0, &key));
	ASSERT_EQ(0, mprotect(p, page, PROT_READ | PROT_WRITE));
	EXPECT_EQ(-EFAULT, thn_mr_reg(&v, p, 2 * page, TH_NIC_ACCESS_ALL,
				      &key));
	EXPECT_EQ(0, thn_mr_reg(&v, p, page, TH_NIC_ACCESS_ALL, &key));
	EXPECT_EQ(-EFAULT, thn_mr_reg(&v, (void *)0xffff888000000000ULL, page,
				      0, &key));
	EXPECT_EQ(-EFAULT, thn_mr_reg(&v, (void *)0xffffffffff600000ULL, page,
				      0, &key));
	/* an address range that wraps: refused either way */
	ret = thn_mr_reg(&v, (void *)(~0UL - 100), page, 0, &key);
	EXPECT_TRUE(ret == -EINVAL || ret == -EFAULT) TH_LOG("got %d", ret);
	close(fd);
}

TEST(mr_limit_and_dereg)
{
	struct thn_vport v;
	__u32 keys[THN_DEF_MRS], key, i;
	__u8 *p = thn_alloc(4096);
	int fd = thn_open(NODE);

	ASSERT_LE(0, fd);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, thn_vport_open(fd, 16, 16, &v));
	for (i = 0; i < THN_DEF_MRS; i++)
		ASSERT_EQ(0, thn_mr_reg(&v, p, 4096, 0, &keys[i]));
	EXPECT_EQ(-ENOSPC, thn_mr_reg(&v, p, 4096, 0, &key));
	ASSERT_EQ(0, thn_mr_dereg(&v, keys[7]));
	EXPECT_EQ(-EINVAL, thn_mr_dereg(&v, keys[7]));
	ASSERT_EQ(0, thn_mr_reg(&v, p, 4096, 0, &key));
	EXPECT_NE(keys[7], key);
	EXPECT_EQ(-ENOSPC, thn_mr_reg(&v, p, 4096, 0, &key));
	for (i = 0; i < THN_DEF_MRS; i++)
		if (i != 7)
			ASSERT_EQ(0, thn_mr_dereg(&v, keys[i]));
	EXPECT_EQ(0, thn_mr_dereg(&v, key));
	close(fd);
}

TEST_HARNESS_MAIN
