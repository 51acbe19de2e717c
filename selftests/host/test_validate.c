// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_validate.c - every bad-input rule of ABI.md has a row here that the
 * doorbell must refuse with -EINVAL, naming the slot, installing nothing;
 * valid edge cases must be accepted.  One row per case.
 */
#include <string.h>

#include "kselftest_harness.h"
#include "th_test.h"

/* What a row's chain builder may use. */
struct vctx {
	u32 rw;		/* local write + remote read/write, TH_T_BUF bytes */
	u32 ro;		/* no access flags: local reads only */
	u32 peer_rw;	/* the same on the peer vport (node 1) */
};

typedef u32 (*build_fn)(const struct vctx *c, struct th_nic_desc *d);

FIXTURE(validate) {
	struct th_ipf *fab;
	struct th_ipf_vport *vp, *peer;
	struct vctx c;
	u8 rw[TH_T_BUF] __attribute__((aligned(64)));
	u8 ro[TH_T_BUF] __attribute__((aligned(64)));
	u8 peer_rw[TH_T_BUF] __attribute__((aligned(64)));
};

FIXTURE_VARIANT(validate) {
	build_fn build;
	int err;		/* expected doorbell result */
	u32 bad_desc;		/* expected offending position on -EINVAL */
};

FIXTURE_SETUP(validate)
{
	struct th_eng_limits lim = th_t_limits(2);
	int err = 0;

	self->fab = th_ipf_create(&lim, &err);
	ASSERT_NE(NULL, self->fab);
	self->vp = th_ipf_vport_create(self->fab, 0, 0, 0, &err);
	ASSERT_NE(NULL, self->vp);
	self->peer = th_ipf_vport_create(self->fab, 1, 0, 0, &err);
	ASSERT_NE(NULL, self->peer);
	memset(self->rw, 0xa5, sizeof(self->rw));
	memset(self->ro, 0x5a, sizeof(self->ro));
	memset(self->peer_rw, 0x3c, sizeof(self->peer_rw));
	ASSERT_EQ(0, th_ipf_mr_reg(self->vp, self->rw, sizeof(self->rw),
				   TH_NIC_ACCESS_ALL, &self->c.rw));
	ASSERT_EQ(0, th_ipf_mr_reg(self->vp, self->ro, sizeof(self->ro), 0,
				   &self->c.ro));
	ASSERT_EQ(0, th_ipf_mr_reg(self->peer, self->peer_rw,
				   sizeof(self->peer_rw), TH_NIC_ACCESS_ALL,
				   &self->c.peer_rw));
}

FIXTURE_TEARDOWN(validate)
{
	th_ipf_destroy(self->fab);
}

/* ---- valid building blocks ------------------------------------------ */

static u32 put1(const struct vctx *c, struct th_nic_desc *d)
{
	d[0] = thn_put(c->rw, 0, 1, 0, c->peer_rw, 0, 64);
	return 1;
}

static u32 get1(const struct vctx *c, struct th_nic_desc *d)
{
	d[0] = thn_get(c->rw, 0, 1, 0, c->peer_rw, 0, 64);
	return 1;
}

static u32 copy1(const struct vctx *c, struct th_nic_desc *d)
{
	d[0] = thn_copy(c->ro, 0, c->rw, 0, 64);
	return 1;
}

static u32 inline1(const struct vctx *c, struct th_nic_desc *d)
{
	d[0] = thn_inline(c->rw, 8, "abcd", 4);
	return 1;
}

static u32 reduce1(const struct vctx *c, struct th_nic_desc *d)
{
	u32 k[3] = { c->ro, c->ro, c->rw };
	u64 o[3] = { 0, 256, 512 };

	d[0] = thn_reduce(TH_NIC_ALU_SUM, TH_NIC_DT_FLOAT64, 16, c->rw, 1024,
			   3, k, o);
	return 1;
}

static u32 strided1(const struct vctx *c, struct th_nic_desc *d)
{
	u32 n = reduce1(c, d);

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

static u32 two_chain(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, &d[0]);
	d[1] = thn_notify(7);
	thn_link(d, 2);
	return 2;
}

/* ---- common rules ----------------------------------------------------- */

static u32 bad_opcode(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].opcode = TH_NIC_OP_MAX;
	return 1;
}

static u32 bad_rsvd0(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].rsvd0 = 1;
	return 1;
}

static u32 bad_flag(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].flags = 1 << 7;
	return 1;
}

static u32 bad_trig_ct(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	thn_trigger(&d[0], TH_ENG_DEF_COUNTERS, 1, 0);
	return 1;
}

static u32 bad_second_threshold(const struct vctx *c, struct th_nic_desc *d)
{
	two_chain(c, d);
	d[1].threshold = 1;
	return 2;
}

static u32 bad_second_cookie(const struct vctx *c, struct th_nic_desc *d)
{
	two_chain(c, d);
	d[1].cookie = 1;
	return 2;
}

static u32 bad_second_trig_ct(const struct vctx *c, struct th_nic_desc *d)
{
	two_chain(c, d);
	d[1].trig_ct = 1;
	return 2;
}

static u32 bad_comp_ct_range(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].flags |= TH_NIC_DF_COMP_CT;
	d[0].comp_ct = TH_ENG_DEF_COUNTERS;
	return 1;
}

static u32 bad_comp_ct_noflag(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].comp_ct = 3;
	return 1;
}

static u32 bad_remote_on_put(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].flags |= TH_NIC_DF_REMOTE;
	return 1;
}

static u32 bad_remote_ct_on_copy(const struct vctx *c, struct th_nic_desc *d)
{
	copy1(c, d);
	d[0].flags |= TH_NIC_DF_REMOTE_CT;
	return 1;
}

static u32 bad_remote_ct_on_get(const struct vctx *c, struct th_nic_desc *d)
{
	get1(c, d);
	d[0].flags |= TH_NIC_DF_REMOTE_CT;
	return 1;
}

static u32 bad_no_end(const struct vctx *c, struct th_nic_desc *d)
{
	two_chain(c, d);
	d[1].flags |= TH_NIC_DF_LINK;	/* links past the tail */
	return 2;
}

static u32 bad_too_long(const struct vctx *c, struct th_nic_desc *d)
{
	u32 i;

	(void)c;
	for (i = 0; i < TH_ENG_DEF_CHAIN + 1; i++)
		d[i] = thn_notify(i);
	thn_link(d, TH_ENG_DEF_CHAIN + 1);
	return TH_ENG_DEF_CHAIN + 1;
}

static u32 bad_in_middle(const struct vctx *c, struct th_nic_desc *d)
{
	u32 i;

	for (i = 0; i < 5; i++)
		d[i] = thn_notify(i);
	d[3].notify.rsvd[0] = 1;
	(void)c;
	thn_link(d, 5);
	return 5;
}

/* ---- PUT / GET --------------------------------------------------------- */

static u32 bad_put_lkey(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].xfer.lkey ^= 0x100;
	return 1;
}

static u32 bad_put_range(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].xfer.loff = TH_T_BUF - 63;
	return 1;
}

static u32 bad_put_wrap(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].xfer.loff = ~0ULL;
	d[0].xfer.len = 2;
	return 1;
}

static u32 bad_put_node(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].xfer.node = 2;
	return 1;
}

static u32 bad_put_vport(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].xfer.vport = TH_ENG_DEF_VPORTS;
	return 1;
}

static u32 bad_put_len_max(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].xfer.lkey = c->rw;
	d[0].xfer.len = TH_ENG_DEF_MR_SIZE + 1;
	return 1;
}

static u32 bad_put_roff_wrap(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].xfer.roff = ~0ULL - 10;
	return 1;
}

static u32 bad_put_rsvd(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].xfer.rsvd[7] = 1;
	return 1;
}

static u32 bad_put_remote_ct_noflag(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].xfer.remote_ct = 1;
	return 1;
}

static u32 bad_put_remote_ct_range(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].flags |= TH_NIC_DF_REMOTE_CT;
	d[0].xfer.remote_ct = TH_ENG_DEF_COUNTERS;
	return 1;
}

static u32 bad_get_readonly(const struct vctx *c, struct th_nic_desc *d)
{
	get1(c, d);
	d[0].xfer.lkey = c->ro;
	return 1;
}

/* ---- COPY -------------------------------------------------------------- */

static u32 bad_copy_dst_ro(const struct vctx *c, struct th_nic_desc *d)
{
	copy1(c, d);
	d[0].copy.dst_key = c->ro;
	return 1;
}

static u32 bad_copy_src_range(const struct vctx *c, struct th_nic_desc *d)
{
	copy1(c, d);
	d[0].copy.src_off = TH_T_BUF;
	return 1;
}

static u32 bad_copy_rsvd(const struct vctx *c, struct th_nic_desc *d)
{
	copy1(c, d);
	d[0].copy.rsvd[0] = 1;
	return 1;
}

/* ---- WRITE_INLINE ------------------------------------------------------ */

static u32 bad_inline_len0(const struct vctx *c, struct th_nic_desc *d)
{
	inline1(c, d);
	d[0].wr_inline.len = 0;
	memset(d[0].wr_inline.data, 0, TH_NIC_INLINE_MAX);
	return 1;
}

static u32 bad_inline_len33(const struct vctx *c, struct th_nic_desc *d)
{
	inline1(c, d);
	d[0].wr_inline.len = TH_NIC_INLINE_MAX + 1;
	return 1;
}

static u32 bad_inline_tail(const struct vctx *c, struct th_nic_desc *d)
{
	inline1(c, d);
	d[0].wr_inline.data[20] = 1;
	return 1;
}

static u32 bad_inline_local_node(const struct vctx *c, struct th_nic_desc *d)
{
	inline1(c, d);
	d[0].wr_inline.node = 1;
	return 1;
}

static u32 bad_inline_ro(const struct vctx *c, struct th_nic_desc *d)
{
	inline1(c, d);
	d[0].wr_inline.key = c->ro;
	return 1;
}

static u32 bad_inline_range(const struct vctx *c, struct th_nic_desc *d)
{
	inline1(c, d);
	d[0].wr_inline.off = TH_T_BUF - 3;
	return 1;
}

static u32 bad_inline_remote_ct_local(const struct vctx *c, struct th_nic_desc *d)
{
	inline1(c, d);
	d[0].flags |= TH_NIC_DF_REMOTE_CT;
	return 1;
}

static u32 bad_inline_rsvd(const struct vctx *c, struct th_nic_desc *d)
{
	inline1(c, d);
	d[0].wr_inline.rsvd0[1] = 1;
	return 1;
}

/* ---- REDUCE ------------------------------------------------------------ */

static u32 bad_reduce_op(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.alu_op = TH_NIC_ALU_OP_MAX;
	return 1;
}

static u32 bad_reduce_dtype(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.dtype = TH_NIC_DT_MAX;
	return 1;
}

static u32 bad_reduce_band_float(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.alu_op = TH_NIC_ALU_BAND;
	return 1;
}

static u32 bad_reduce_bxor_float32(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.alu_op = TH_NIC_ALU_BXOR;
	d[0].reduce.dtype = TH_NIC_DT_FLOAT32;
	return 1;
}

static u32 bad_reduce_nsrc0(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.nsrc = 0;
	memset(d[0].reduce.src_key, 0, sizeof(d[0].reduce.src_key));
	memset(d[0].reduce.src_off, 0, sizeof(d[0].reduce.src_off));
	return 1;
}

static u32 bad_reduce_nsrc8(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.nsrc = 8;
	return 1;
}

static u32 seven_sources(const struct vctx *c, struct th_nic_desc *d)
{
	u32 k[7];
	u64 o[7];
	u32 i;

	for (i = 0; i < 7; i++) {
		k[i] = c->ro;
		o[i] = i * 128;
	}
	d[0] = thn_reduce(TH_NIC_ALU_MAX, TH_NIC_DT_INT32, 32, c->rw, 0, 7, k, o);
	return 1;
}

static u32 bad_reduce_acc7(const struct vctx *c, struct th_nic_desc *d)
{
	seven_sources(c, d);
	d[0].reduce.rflags = TH_NIC_RF_ACCUMULATE;
	return 1;
}

static u32 ok_reduce_acc6(const struct vctx *c, struct th_nic_desc *d)
{
	seven_sources(c, d);
	d[0].reduce.rflags = TH_NIC_RF_ACCUMULATE;
	d[0].reduce.nsrc = 6;
	d[0].reduce.src_key[6] = 0;
	d[0].reduce.src_off[6] = 0;
	return 1;
}

static u32 bad_reduce_rflags(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.rflags = 1 << 5;
	return 1;
}

static u32 bad_reduce_unused_key(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.src_key[5] = c->ro;
	return 1;
}

static u32 bad_reduce_unused_off(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.src_off[6] = 8;
	return 1;
}

static u32 bad_reduce_dst_ro(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.dst_key = c->ro;
	return 1;
}

static u32 bad_reduce_src_range(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.src_off[1] = TH_T_BUF - 64;	/* 128 bytes needed */
	return 1;
}

static u32 bad_reduce_dst_align(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.dst_off = 1028;
	return 1;
}

static u32 bad_reduce_src_align(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.src_off[0] = 2;
	return 1;
}

static u32 bad_reduce_overlap(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.src_off[2] = 1024 + 8;	/* rw, shifted by one element */
	return 1;
}

static u32 ok_reduce_dst_is_src(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.src_off[2] = 1024;		/* exactly the destination */
	return 1;
}

static u32 bad_strided_range(const struct vctx *c, struct th_nic_desc *d)
{
	strided1(c, d);
	d[0].reduce.src_off[1] = 1300;	/* source 3 at 3900 + 128 > 4096 */
	return 1;
}

static u32 bad_strided_key1(const struct vctx *c, struct th_nic_desc *d)
{
	strided1(c, d);
	d[0].reduce.src_key[1] = c->ro;
	return 1;
}

static u32 bad_strided_wrap(const struct vctx *c, struct th_nic_desc *d)
{
	strided1(c, d);
	d[0].reduce.src_off[1] = ~0ULL / 2;
	return 1;
}

/* ---- counters, NOTIFY, NOP -------------------------------------------- */

static u32 bad_ct_range(const struct vctx *c, struct th_nic_desc *d)
{
	(void)c;
	d[0] = thn_ct_op(TH_NIC_OP_CT_INC, TH_ENG_DEF_COUNTERS, 1);
	return 1;
}

static u32 bad_ct_rsvd(const struct vctx *c, struct th_nic_desc *d)
{
	(void)c;
	d[0] = thn_ct_op(TH_NIC_OP_CT_SET, 1, 1);
	d[0].ct.rsvd1 = 1;
	return 1;
}

static u32 bad_notify_rsvd(const struct vctx *c, struct th_nic_desc *d)
{
	(void)c;
	d[0] = thn_notify(1);
	d[0].notify.rsvd[11] = 1;
	return 1;
}

static u32 bad_nop_operand(const struct vctx *c, struct th_nic_desc *d)
{
	(void)c;
	memset(d, 0, sizeof(*d));
	d[0].raw[50] = 1;
	return 1;
}

/* ---- valid edge cases -------------------------------------------------- */

static u32 ok_put_len0(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].xfer.len = 0;
	d[0].xfer.loff = TH_T_BUF;	/* an empty range at the very end */
	return 1;
}

static u32 ok_reduce_count0(const struct vctx *c, struct th_nic_desc *d)
{
	reduce1(c, d);
	d[0].reduce.count = 0;
	return 1;
}

static u32 ok_inline32(const struct vctx *c, struct th_nic_desc *d)
{
	u8 data[TH_NIC_INLINE_MAX];

	memset(data, 0x77, sizeof(data));
	d[0] = thn_inline(c->rw, TH_T_BUF - TH_NIC_INLINE_MAX, data,
			   TH_NIC_INLINE_MAX);
	return 1;
}

static u32 ok_inline_remote(const struct vctx *c, struct th_nic_desc *d)
{
	d[0] = thn_inline(c->peer_rw, 0, "xy", 2);
	d[0].flags |= TH_NIC_DF_REMOTE | TH_NIC_DF_REMOTE_CT;
	d[0].wr_inline.node = 1;
	d[0].wr_inline.remote_ct = TH_ENG_DEF_COUNTERS - 1;
	return 1;
}

static u32 ok_max_chain(const struct vctx *c, struct th_nic_desc *d)
{
	u32 i;

	(void)c;
	for (i = 0; i < TH_ENG_DEF_CHAIN; i++)
		d[i] = thn_notify(i);
	thn_link(d, TH_ENG_DEF_CHAIN);
	return TH_ENG_DEF_CHAIN;
}

static u32 ok_far_address(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	d[0].xfer.vport = TH_ENG_DEF_VPORTS - 1;	/* fails later, at run time */
	return 1;
}

static u32 ok_pending_last_ct(const struct vctx *c, struct th_nic_desc *d)
{
	put1(c, d);
	thn_trigger(&d[0], TH_ENG_DEF_COUNTERS - 1, ~0ULL, 42);
	return 1;
}

static u32 ok_every_op(const struct vctx *c, struct th_nic_desc *d)
{
	u32 n = 0;

	memset(&d[n++], 0, sizeof(*d));		/* NOP */
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
	FIXTURE_VARIANT_ADD(validate, name) { .build = fn, .err = -EINVAL, .bad_desc = at }
#define ACCEPT(name, fn) \
	FIXTURE_VARIANT_ADD(validate, name) { .build = fn, .err = 0 }

REFUSE(unknown_opcode, bad_opcode, 0);
REFUSE(reserved_header_byte, bad_rsvd0, 0);
REFUSE(unknown_flag, bad_flag, 0);
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
REFUSE(chain_longer_than_max, bad_too_long, TH_ENG_DEF_CHAIN - 1);
REFUSE(bad_descriptor_in_middle, bad_in_middle, 3);
REFUSE(put_unknown_local_key, bad_put_lkey, 0);
REFUSE(put_past_local_mr, bad_put_range, 0);
REFUSE(put_offset_wraps, bad_put_wrap, 0);
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
REFUSE(copy_reserved, bad_copy_rsvd, 0);
REFUSE(inline_length_zero, bad_inline_len0, 0);
REFUSE(inline_length_33, bad_inline_len33, 0);
REFUSE(inline_bytes_past_length, bad_inline_tail, 0);
REFUSE(inline_local_with_node, bad_inline_local_node, 0);
REFUSE(inline_into_readonly_mr, bad_inline_ro, 0);
REFUSE(inline_past_mr, bad_inline_range, 0);
REFUSE(inline_remote_counter_on_local, bad_inline_remote_ct_local, 0);
REFUSE(inline_reserved, bad_inline_rsvd, 0);
REFUSE(reduce_unknown_op, bad_reduce_op, 0);
REFUSE(reduce_unknown_dtype, bad_reduce_dtype, 0);
REFUSE(reduce_band_on_float64, bad_reduce_band_float, 0);
REFUSE(reduce_bxor_on_float32, bad_reduce_bxor_float32, 0);
REFUSE(reduce_zero_sources, bad_reduce_nsrc0, 0);
REFUSE(reduce_eight_sources, bad_reduce_nsrc8, 0);
REFUSE(reduce_accumulate_with_seven, bad_reduce_acc7, 0);
REFUSE(reduce_unknown_rflag, bad_reduce_rflags, 0);
REFUSE(reduce_unused_key_set, bad_reduce_unused_key, 0);
REFUSE(reduce_unused_offset_set, bad_reduce_unused_off, 0);
REFUSE(reduce_into_readonly_mr, bad_reduce_dst_ro, 0);
REFUSE(reduce_source_past_mr, bad_reduce_src_range, 0);
REFUSE(reduce_misaligned_destination, bad_reduce_dst_align, 0);
REFUSE(reduce_misaligned_source, bad_reduce_src_align, 0);
REFUSE(reduce_partial_overlap, bad_reduce_overlap, 0);
REFUSE(reduce_strided_past_mr, bad_strided_range, 0);
REFUSE(reduce_strided_second_key, bad_strided_key1, 0);
REFUSE(reduce_strided_stride_wraps, bad_strided_wrap, 0);
REFUSE(counter_op_out_of_range, bad_ct_range, 0);
REFUSE(counter_op_reserved, bad_ct_rsvd, 0);
REFUSE(notify_reserved, bad_notify_rsvd, 0);
REFUSE(nop_with_operands, bad_nop_operand, 0);
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

TEST_F(validate, doorbell)
{
	struct th_nic_desc d[TH_ENG_DEF_CHAIN + 1];
	struct th_eng_db_result res;
	struct th_eng_stats st;
	struct th_nic_cqe cqe[4];
	u32 n, head, i;
	u8 pattern[TH_T_BUF];
	int ret;

	memset(d, 0, sizeof(d));
	n = variant->build(&self->c, d);
	head = th_t_sq_head(self->vp);
	ret = th_t_post(self->vp, d, n, &res);
	ASSERT_EQ(variant->err, ret);
	th_eng_stats_read(&self->vp->ev, &st);

	if (variant->err) {
		/* the SQ head stays on the refused chain, which names its slot */
		EXPECT_EQ(head, th_t_sq_head(self->vp));
		EXPECT_EQ(0, res.chains);
		EXPECT_EQ(0, res.descs);
		EXPECT_EQ(head, res.bad_index);
		EXPECT_EQ(variant->bad_desc, res.bad_desc);
		/* nothing installed, nothing ran, nothing written */
		EXPECT_EQ(0, st.chains_posted);
		EXPECT_EQ(1, st.chains_refused);
		EXPECT_EQ(0, st.descs_run);
		EXPECT_EQ(0, self->vp->ev.cq_reserved);
		EXPECT_EQ(0, th_t_cq_drain(self->vp, cqe, 4));
		memset(pattern, 0xa5, sizeof(pattern));
		EXPECT_EQ(0, memcmp(pattern, self->rw, sizeof(pattern)));
		memset(pattern, 0x3c, sizeof(pattern));
		EXPECT_EQ(0, memcmp(pattern, self->peer_rw, sizeof(pattern)));
		for (i = 0; i < TH_ENG_DEF_COUNTERS; i++)
			ASSERT_EQ(0, th_t_ct(self->vp, i));
	} else {
		EXPECT_EQ(head + n, th_t_sq_head(self->vp));
		EXPECT_EQ(1, res.chains);
		EXPECT_EQ(n, res.descs);
		EXPECT_EQ(1, st.chains_posted);
		EXPECT_EQ(0, st.chains_refused);
	}
}

/* Ring behaviour, outside the per-row table. */
FIXTURE(sq) {
	struct th_ipf *fab;
	struct th_ipf_vport *vp;
};

FIXTURE_SETUP(sq)
{
	struct th_eng_limits lim = th_t_limits(1);
	int err = 0;

	self->fab = th_ipf_create(&lim, &err);
	ASSERT_NE(NULL, self->fab);
	self->vp = th_ipf_vport_create(self->fab, 0, 0, 0, &err);
	ASSERT_NE(NULL, self->vp);
}

FIXTURE_TEARDOWN(sq)
{
	th_ipf_destroy(self->fab);
}

/* A refused chain does not undo the good chains posted before it. */
TEST_F(sq, good_chains_before_a_bad_one_stay_posted)
{
	struct th_nic_desc d[3];
	struct th_eng_db_result res;
	u32 head = th_t_sq_head(self->vp);

	d[0] = thn_notify(1);
	d[1] = thn_notify(2);
	d[2] = thn_notify(3);
	d[2].rsvd0 = 1;
	ASSERT_EQ(-EINVAL, th_t_post(self->vp, d, 3, &res));
	EXPECT_EQ(2, res.chains);
	EXPECT_EQ(2, res.descs);
	EXPECT_EQ(head + 2, res.bad_index);
	EXPECT_EQ(head + 2, th_t_sq_head(self->vp));
}

/* The SQ tail is clamped: a tail far ahead of the head consumes one ring. */
TEST_F(sq, tail_is_clamped_to_ring)
{
	struct th_eng_db_result res;
	u32 *tail = (u32 *)((char *)self->vp->sq_mem + self->vp->sq_off.tail);
	struct th_nic_desc *slots =
		(void *)((char *)self->vp->sq_mem + self->vp->sq_off.entries);
	u32 i;

	for (i = 0; i < self->vp->sq_entries; i++)
		slots[i] = thn_notify(i);
	__atomic_store_n(tail, 0x7fffffffU, __ATOMIC_RELEASE);
	/* each NOTIFY needs 2 CQ credits: half the ring fits, then -EAGAIN */
	ASSERT_EQ(-EAGAIN, th_ipf_doorbell(self->vp, &res));
	EXPECT_EQ(self->vp->cq_entries / 2, res.chains);
	EXPECT_LE(res.descs, self->vp->sq_entries);
}

TEST_HARNESS_MAIN
