// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_validate.c - every bad-input rule of Documentation/uapi.rst, as rows
 * that the engine's doorbell must refuse with -EINVAL, naming the slot,
 * installing nothing; valid edge cases must be accepted.  The rows are
 * shared with the module's kselftest (selftests/common/badinput_table.h).
 */
#include <string.h>

#include "kselftest_harness.h"
#include "th_test.h"
#include "badinput_rows.h"

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
	u32 reason;		/* expected enum th_nic_refusal */
};

FIXTURE_SETUP(validate)
{
	struct th_eng_limits lim = th_t_limits(2);
	int err = 0;

	self->fab = th_ipf_create(&lim, NULL, &err);
	ASSERT_NE(NULL, self->fab);
	self->vp = th_t_vport(self->fab, 0, 0, 0, &err);
	ASSERT_NE(NULL, self->vp);
	self->peer = th_t_vport(self->fab, 1, 0, 0, &err);
	ASSERT_NE(NULL, self->peer);
	memset(self->rw, 0xa5, sizeof(self->rw));
	memset(self->ro, 0x5a, sizeof(self->ro));
	memset(self->peer_rw, 0x3c, sizeof(self->peer_rw));
	ASSERT_EQ(0, th_t_mr_reg(self->vp, self->rw, sizeof(self->rw),
				 TH_NIC_ACCESS_ALL, &self->c.rw, NULL));
	ASSERT_EQ(0, th_t_mr_reg(self->vp, self->ro, sizeof(self->ro), 0,
				 &self->c.ro, NULL));
	ASSERT_EQ(0, th_t_mr_reg(self->peer, self->peer_rw,
				 sizeof(self->peer_rw), TH_NIC_ACCESS_ALL,
				 &self->c.peer_lkey, &self->c.peer_rw));
	self->c.peer_node = 1;
	self->c.peer_vport = self->peer->ev.index;
	self->c.nodes = lim.nodes;
}

FIXTURE_TEARDOWN(validate)
{
	th_ipf_destroy(self->fab);
}

#define REFUSE(name, fn, at, why) \
	FIXTURE_VARIANT_ADD(validate, name) { \
		.build = fn, .err = -EINVAL, .bad_desc = at, .reason = why };
#define ACCEPT(name, fn) \
	FIXTURE_VARIANT_ADD(validate, name) { .build = fn, .err = 0 };
#include "badinput_table.h"

TEST_F(validate, doorbell)
{
	struct th_nic_desc d[TH_ENG_DEF_CHAIN + 1];
	struct th_nic_doorbell res;
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
		EXPECT_EQ(variant->reason, res.reason);
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
		EXPECT_EQ(TH_NIC_REFUSE_NONE, res.reason);
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

	self->fab = th_ipf_create(&lim, NULL, &err);
	ASSERT_NE(NULL, self->fab);
	self->vp = th_t_vport(self->fab, 0, 0, 0, &err);
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
	struct th_nic_doorbell res;
	u32 head = th_t_sq_head(self->vp);

	d[0] = thn_notify(1);
	d[1] = thn_notify(2);
	d[2] = thn_notify(3);
	d[2].rsvd0 = 1;
	ASSERT_EQ(-EINVAL, th_t_post(self->vp, d, 3, &res));
	EXPECT_EQ(TH_NIC_REFUSE_RESERVED, res.reason);
	EXPECT_EQ(2, res.chains);
	EXPECT_EQ(2, res.descs);
	EXPECT_EQ(head + 2, res.bad_index);
	EXPECT_EQ(head + 2, th_t_sq_head(self->vp));
}

/* The SQ tail is clamped: a tail far ahead of the head consumes one ring. */
TEST_F(sq, tail_is_clamped_to_ring)
{
	struct th_nic_doorbell res;
	u32 *tail = (u32 *)((char *)self->vp->sq_mem + self->vp->cfg.sq_off.tail);
	struct th_nic_desc *slots =
		(void *)((char *)self->vp->sq_mem + self->vp->cfg.sq_off.slots);
	u32 i;

	for (i = 0; i < self->vp->cfg.sq_entries; i++)
		slots[i] = thn_notify(i);
	__atomic_store_n(tail, 0x7fffffffU, __ATOMIC_RELEASE);
	/* each NOTIFY needs 2 CQ credits: half the ring fits, then -EAGAIN */
	ASSERT_EQ(-EAGAIN, th_t_doorbell(self->vp, &res));
	EXPECT_EQ(TH_NIC_REFUSE_CQ_FULL, res.reason);
	EXPECT_EQ(self->vp->cfg.cq_entries / 2, res.chains);
	EXPECT_LE(res.descs, self->vp->cfg.sq_entries);
}

TEST_HARNESS_MAIN
