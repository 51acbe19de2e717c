// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_boundary.c - run-time rules at their edges, which the doorbell's
 * bad-input rows (test_validate.c) cannot reach: the counters of skipped
 * CT_SET descriptors fail with their chain as CT_INC's do, a re-arming
 * chain runs while threshold + stride fits in 64 bits and ends with
 * -ERANGE the round it would wrap, and VPORT_CREATE's ring sizes at their
 * limits (the rows of badinput_rings.h, shared with the VM).
 */
#include <string.h>

#include "kselftest_harness.h"
#include "th_test.h"

FIXTURE(edge) {
	struct th_ipf *fab;
	struct th_ipf_vport *vp;
};

FIXTURE_SETUP(edge)
{
	struct th_eng_limits lim = th_t_limits(1);
	int err = 0;

	self->fab = th_ipf_create(&lim, NULL, &err);
	ASSERT_NE(NULL, self->fab);
	self->vp = th_t_vport(self->fab, 0, 0, 0, &err);
	ASSERT_NE(NULL, self->vp);
}

FIXTURE_TEARDOWN(edge)
{
	th_ipf_destroy(self->fab);
}

/*
 * uapi.rst "Failure propagation": the counters of the CT_INC and CT_SET
 * descriptors a failed chain did not run get their failure value.  A
 * chain that never ran (its trigger counter failed).
 */
TEST_F(edge, a_chain_that_never_ran_fails_its_ct_set_counters)
{
	struct th_nic_desc d[3];
	struct th_nic_cqe cqe[4];

	d[0] = thn_notify(1);
	d[1] = thn_ct_op(TH_NIC_OP_CT_SET, 11, 7);
	d[2] = thn_ct_op(TH_NIC_OP_CT_INC, 12, 1);
	thn_link(d, 3);
	thn_trigger(&d[0], 4, 1, 44);
	ASSERT_EQ(0, th_t_post(self->vp, d, 3, NULL));
	ASSERT_EQ(0, th_t_ct_update(self->vp, 4, TH_ENG_CT_FAIL, 1, 0));
	ASSERT_EQ(1, th_t_cq_drain(self->vp, cqe, 4));
	EXPECT_EQ(44, cqe[0].cookie);
	EXPECT_EQ(-EIO, cqe[0].status);
	EXPECT_EQ(1, th_t_ct_fail(self->vp, 11));	/* the skipped CT_SET's */
	EXPECT_EQ(0, th_t_ct(self->vp, 11));		/* and it did not run */
	EXPECT_EQ(1, th_t_ct_fail(self->vp, 12));	/* the CT_INC's */
	EXPECT_EQ(0, th_t_ct(self->vp, 12));
}

/*
 * The same for a chain that fails as it runs: a COPY whose source was
 * deregistered after the doorbell fails, the CT_SET after it is skipped.
 */
TEST_F(edge, a_chain_failing_midway_fails_the_ct_set_it_skips)
{
	struct th_nic_desc d[2];
	struct th_nic_cqe cqe[4];
	u8 src[64], dst[64];
	u32 ks, kd;

	ASSERT_EQ(0, th_t_mr_reg(self->vp, src, sizeof(src), 0, &ks, NULL));
	ASSERT_EQ(0, th_t_mr_reg(self->vp, dst, sizeof(dst),
				 TH_NIC_ACCESS_LOCAL_WRITE, &kd, NULL));
	d[0] = thn_copy(ks, 0, kd, 0, sizeof(src));
	d[1] = thn_ct_op(TH_NIC_OP_CT_SET, 13, 5);
	thn_link(d, 2);
	thn_trigger(&d[0], 6, 1, 66);
	ASSERT_EQ(0, th_t_post(self->vp, d, 2, NULL));
	ASSERT_EQ(0, th_t_mr_dereg(self->vp, ks));
	ASSERT_EQ(0, th_t_ct_update(self->vp, 6, TH_ENG_CT_INC, 1, 0));
	ASSERT_EQ(1, th_t_cq_drain(self->vp, cqe, 4));
	EXPECT_EQ(66, cqe[0].cookie);
	EXPECT_NE(0, cqe[0].status);
	EXPECT_EQ(0, cqe[0].desc_index);		/* the COPY failed */
	EXPECT_EQ(1, th_t_ct_fail(self->vp, 13));
	EXPECT_EQ(0, th_t_ct(self->vp, 13));
}

/* [NOTIFY(@imm), REARM(@stride)] on counter @ct from @thr. */
static int post_rearming(struct th_ipf_vport *vp, u16 ct, u64 thr, u64 stride,
			 u64 cookie)
{
	struct th_nic_desc d[2];

	d[0] = thn_notify(cookie);
	d[1] = thn_rearm(stride);
	thn_link(d, 2);
	thn_trigger(&d[0], ct, thr, cookie);
	return th_t_post(vp, d, 2, NULL);
}

/*
 * Threshold 2^64 - 3, stride 2: the second round's threshold is 2^64 - 1
 * (exact fit: it waits for it), the third's would wrap: the chain ends
 * with -ERANGE after its second round instead of firing again at once.
 */
TEST_F(edge, rearm_runs_up_to_u64_max_then_ends_with_erange)
{
	struct th_nic_cqe cqe[8];

	ASSERT_EQ(0, post_rearming(self->vp, 3, ~0ULL - 2, 2, 30));
	ASSERT_EQ(0, th_t_ct_update(self->vp, 3, TH_ENG_CT_SET, ~0ULL - 2, 0));
	ASSERT_EQ(1, th_t_cq_drain(self->vp, cqe, 8));
	EXPECT_EQ(0, cqe[0].status);
	EXPECT_EQ(0, cqe[0].flags);			/* re-armed */
	/* one short of the second round's threshold: nothing */
	ASSERT_EQ(0, th_t_ct_update(self->vp, 3, TH_ENG_CT_INC, 1, 0));
	EXPECT_EQ(0, th_t_cq_drain(self->vp, cqe, 8));
	ASSERT_EQ(0, th_t_ct_update(self->vp, 3, TH_ENG_CT_INC, 1, 0));
	ASSERT_EQ(2, th_t_cq_drain(self->vp, cqe, 8));
	EXPECT_EQ(0, cqe[0].status);			/* round 2 ran */
	EXPECT_EQ(30, cqe[0].imm);
	EXPECT_EQ(-ERANGE, cqe[1].status);		/* and round 3 cannot be */
	EXPECT_EQ(30, cqe[1].cookie);
	EXPECT_EQ(TH_NIC_CQE_F_FINAL, cqe[1].flags);
	EXPECT_EQ(0, th_t_cq_drain(self->vp, cqe, 8));
	EXPECT_EQ(0, self->vp->ev.cq_reserved);
	EXPECT_EQ(0, th_atomic_read(&self->vp->ev.user->chains));
}

/* A stride of 2^64 - 1 from threshold 1 wraps after the first round. */
TEST_F(edge, rearm_stride_u64_max_wraps_after_one_round)
{
	struct th_nic_cqe cqe[8];

	ASSERT_EQ(0, post_rearming(self->vp, 5, 1, ~0ULL, 50));
	ASSERT_EQ(0, th_t_ct_update(self->vp, 5, TH_ENG_CT_INC, 1, 0));
	ASSERT_EQ(2, th_t_cq_drain(self->vp, cqe, 8));
	EXPECT_EQ(0, cqe[0].status);
	EXPECT_EQ(-ERANGE, cqe[1].status);
	EXPECT_EQ(TH_NIC_CQE_F_FINAL, cqe[1].flags);
	ASSERT_EQ(0, th_t_ct_update(self->vp, 5, TH_ENG_CT_INC, 5, 0));
	EXPECT_EQ(0, th_t_cq_drain(self->vp, cqe, 8));
	EXPECT_EQ(0, th_atomic_read(&self->vp->ev.user->chains));
}

/* ---- VPORT_CREATE ring sizes ------------------------------------------ */

FIXTURE(ring) {
	struct th_ipf *fab;
};

FIXTURE_VARIANT(ring) {
	u32 sq, cq;
	int err;
};

FIXTURE_SETUP(ring)
{
	struct th_eng_limits lim = th_t_limits(1);
	int err = 0;

	self->fab = th_ipf_create(&lim, NULL, &err);
	ASSERT_NE(NULL, self->fab);
}

FIXTURE_TEARDOWN(ring)
{
	th_ipf_destroy(self->fab);
}

#define RING(name, sq_, cq_, err_) \
	FIXTURE_VARIANT_ADD(ring, name) { .sq = sq_, .cq = cq_, .err = err_ }
#include "badinput_rings.h"

TEST_F(ring, vport_create)
{
	struct th_ipf_vport *vp;
	int err = 0;

	vp = th_t_vport(self->fab, 0, variant->sq, variant->cq, &err);
	if (variant->err) {
		EXPECT_EQ(NULL, vp);
		EXPECT_EQ(variant->err, err);
		return;
	}
	ASSERT_NE(NULL, vp) TH_LOG("err %d", err);
	/* the sizes asked for (or the defaults) are the ring's */
	EXPECT_EQ(variant->sq ? variant->sq : TH_ENG_DEF_SQ, vp->cfg.sq_entries);
	EXPECT_EQ(variant->cq ? variant->cq : TH_ENG_DEF_CQ, vp->cfg.cq_entries);
}

TEST_HARNESS_MAIN
