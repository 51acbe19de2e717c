// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_boundary.c - run-time rules at their edges, which the doorbell's
 * bad-input rows (test_validate.c) cannot reach: the counters of skipped
 * CT_SET descriptors fail with their chain as CT_INC's do, a re-arming
 * chain runs while threshold + stride fits in 64 bits and ends with
 * -ERANGE the round it would wrap, a remote range that ends at its
 * region's end lands while one byte more is the initiator's violation,
 * the doorbell takes exactly one ring however far the tail runs ahead,
 * COPY and REDUCE stay exact across slices, and VPORT_CREATE's ring sizes
 * at their limits (the rows of badinput_rings.h, shared with the VM).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* ---- remote ranges ----------------------------------------------------- */

FIXTURE(far) {
	struct th_ipf *fab;
	struct th_ipf_vport *peer;
	u32 pkey;
	u64 prkey;
	u8 pbuf[TH_T_BUF] __attribute__((aligned(64)));
	u8 lbuf[TH_T_BUF] __attribute__((aligned(64)));
};

FIXTURE_SETUP(far)
{
	struct th_eng_limits lim = th_t_limits(2);
	int err = 0;

	self->fab = th_ipf_create(&lim, NULL, &err);
	ASSERT_NE(NULL, self->fab);
	self->peer = th_t_vport(self->fab, 1, 0, 0, &err);
	ASSERT_NE(NULL, self->peer);
	memset(self->pbuf, 0x3c, sizeof(self->pbuf));
	memset(self->lbuf, 0x77, sizeof(self->lbuf));
	ASSERT_EQ(0, th_t_mr_reg(self->peer, self->pbuf, sizeof(self->pbuf),
				 TH_NIC_ACCESS_ALL, &self->pkey, &self->prkey));
}

FIXTURE_TEARDOWN(far)
{
	th_ipf_destroy(self->fab);
}

/*
 * Post @d (its local key filled in here) from a new vport on node 0 and
 * return the status of its one CQ entry; *@error: the vport's error state
 * after it.
 */
static int far_run(struct __test_metadata *_metadata,
		   FIXTURE_DATA(far) *self, struct th_nic_desc d, bool *error)
{
	struct th_ipf_vport *vp;
	struct th_nic_cqe cqe[4];
	int err = 0;
	u32 key;

	vp = th_t_vport(self->fab, 0, 0, 0, &err);
	if (!vp)
		return -1000;
	if (th_t_mr_reg(vp, self->lbuf, sizeof(self->lbuf), TH_NIC_ACCESS_ALL,
			&key, NULL))
		return -1001;
	if (d.opcode != TH_NIC_OP_WRITE_INLINE)
		d.xfer.lkey = key;
	d.flags |= TH_NIC_DF_SIGNAL;
	EXPECT_EQ(0, th_t_post(vp, &d, 1, NULL));
	EXPECT_EQ(1, th_t_cq_drain(vp, cqe, 4));
	*error = vp->ev.error;
	return cqe[0].status;
}

/* A PUT, a GET and a remote WRITE_INLINE ending at the region's end. */
TEST_F(far, remote_ranges_that_end_at_the_region_end_land)
{
	u8 want[64];
	bool error;

	memset(want, 0x77, sizeof(want));
	EXPECT_EQ(0, far_run(_metadata, self,
			     thn_put(0, 0, 1, self->peer->ev.index, self->prkey,
				     TH_T_BUF - 64, 64), &error));
	EXPECT_FALSE(error);
	EXPECT_EQ(0, memcmp(want, self->pbuf + TH_T_BUF - 64, 64));
	EXPECT_EQ(0x3c, self->pbuf[TH_T_BUF - 65]);
	memset(self->pbuf + TH_T_BUF - 64, 0x44, 64);
	EXPECT_EQ(0, far_run(_metadata, self,
			     thn_get(0, 0, 1, self->peer->ev.index, self->prkey,
				     TH_T_BUF - 64, 64), &error));
	EXPECT_FALSE(error);
	EXPECT_EQ(0x44, self->lbuf[0]);
	EXPECT_EQ(0x44, self->lbuf[63]);
	EXPECT_EQ(0, far_run(_metadata, self,
			     thn_inline_remote(1, self->peer->ev.index,
					       self->prkey, TH_T_BUF - 4,
					       "wxyz", 4), &error));
	EXPECT_FALSE(error);
	EXPECT_EQ(0, memcmp("wxyz", self->pbuf + TH_T_BUF - 4, 4));
}

/*
 * One byte past the target's region: refused by the target with -ERANGE,
 * the initiator's violation (its vport enters the error state), and not
 * one byte written or read.
 */
TEST_F(far, remote_ranges_one_byte_past_are_violations)
{
	struct th_nic_desc d[3] = {
		thn_put(0, 0, 1, 0, 0, TH_T_BUF - 63, 64),
		thn_get(0, 0, 1, 0, 0, TH_T_BUF - 63, 64),
		thn_inline_remote(1, 0, 0, TH_T_BUF - 3, "wxyz", 4),
	};
	u8 pattern[TH_T_BUF];
	bool error;
	int i;

	d[0].xfer.vport = d[1].xfer.vport = self->peer->ev.index;
	d[0].xfer.rkey = d[1].xfer.rkey = self->prkey;
	d[2].wr_inline.vport = self->peer->ev.index;
	d[2].wr_inline.rkey = self->prkey;
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(-ERANGE, far_run(_metadata, self, d[i], &error))
			TH_LOG("descriptor %d", i);
		EXPECT_TRUE(error) TH_LOG("descriptor %d", i);
	}
	memset(pattern, 0x3c, sizeof(pattern));
	EXPECT_EQ(0, memcmp(pattern, self->pbuf, sizeof(pattern)));
	memset(pattern, 0x77, sizeof(pattern));
	EXPECT_EQ(0, memcmp(pattern, self->lbuf, sizeof(pattern)));
	EXPECT_FALSE(self->peer->ev.error);
}

/*
 * The target's access rights: a PUT into a region registered for remote
 * reads only, a GET from one registered for remote writes only, are the
 * initiator's violations (-EACCES), and move nothing.
 */
TEST_F(far, remote_access_is_checked_by_the_target)
{
	u8 ronly[64], wonly[64];
	u32 k1, k2;
	u64 r1, r2;
	bool error;

	memset(ronly, 0x11, sizeof(ronly));
	memset(wonly, 0x22, sizeof(wonly));
	ASSERT_EQ(0, th_t_mr_reg(self->peer, ronly, sizeof(ronly),
				 TH_NIC_ACCESS_REMOTE_READ, &k1, &r1));
	ASSERT_EQ(0, th_t_mr_reg(self->peer, wonly, sizeof(wonly),
				 TH_NIC_ACCESS_REMOTE_WRITE, &k2, &r2));
	EXPECT_EQ(-EACCES, far_run(_metadata, self,
				   thn_put(0, 0, 1, self->peer->ev.index, r1,
					   0, 64), &error));
	EXPECT_TRUE(error);
	EXPECT_EQ(0x11, ronly[0]);
	EXPECT_EQ(-EACCES, far_run(_metadata, self,
				   thn_get(0, 0, 1, self->peer->ev.index, r2,
					   0, 64), &error));
	EXPECT_TRUE(error);
	EXPECT_EQ(0x77, self->lbuf[0]);
	/* and the rights they have work */
	EXPECT_EQ(0, far_run(_metadata, self,
			     thn_get(0, 0, 1, self->peer->ev.index, r1, 0, 64),
			     &error));
	EXPECT_EQ(0x11, self->lbuf[0]);
	EXPECT_EQ(0, far_run(_metadata, self,
			     thn_put(0, 0, 1, self->peer->ev.index, r2, 0, 64),
			     &error));
	EXPECT_EQ(0x11, wonly[0]);
}

/* ---- the SQ clamp -------------------------------------------------------- */

/*
 * A tail one slot more than a ring ahead of the head, or far ahead: the
 * doorbell takes exactly one ring of slots (every one a chain here, with
 * CQ room for all), not one more.
 */
TEST_F(edge, doorbell_takes_exactly_one_ring)
{
	struct th_ipf_vport *vp;
	struct th_nic_doorbell res;
	struct th_nic_desc *slots;
	u32 *tail, i, head;
	int err = 0;

	vp = th_t_vport(self->fab, 0, 16, 1024, &err);
	ASSERT_NE(NULL, vp);
	tail = (u32 *)((char *)vp->sq_mem + vp->cfg.sq_off.tail);
	slots = (void *)((char *)vp->sq_mem + vp->cfg.sq_off.slots);
	for (i = 0; i < vp->cfg.sq_entries; i++) {
		slots[i] = thn_nop();
		thn_trigger(&slots[i], 1, 1, i);	/* pending */
	}
	head = th_t_sq_head(vp);
	__atomic_store_n(tail, head + 17, __ATOMIC_RELEASE);
	ASSERT_EQ(0, th_t_doorbell(vp, &res));
	EXPECT_EQ(16, res.chains);
	EXPECT_EQ(16, res.descs);
	EXPECT_EQ(head + 16, th_t_sq_head(vp));
	head = th_t_sq_head(vp);
	__atomic_store_n(tail, head + 1000, __ATOMIC_RELEASE);
	ASSERT_EQ(0, th_t_doorbell(vp, &res));
	EXPECT_EQ(16, res.chains);
	EXPECT_EQ(16, res.descs);
	EXPECT_EQ(head + 16, th_t_sq_head(vp));
}

/* ---- slices -------------------------------------------------------------- */

#define MIB	(1ULL << 20)

/* Wait (bounded) for counter @ct to reach 1, then take one CQ entry. */
static int wait_one(struct __test_metadata *_metadata, struct th_ipf_vport *vp,
		    u32 ct, struct th_nic_cqe *cqe)
{
	u64 sx, fx;
	int i;

	EXPECT_EQ(0, th_t_ct_wait(vp, ct, 1, 60000000000ULL, &sx, &fx))
		TH_LOG("counter %u never reached 1", ct);
	for (i = 0; i < 6000; i++) {
		if (th_t_cq_drain(vp, cqe, 1))
			return cqe->status;
		usleep(10000);
	}
	TH_LOG("no CQ entry after 60 s");
	return -1000;
}

/*
 * An overlapping COPY within one region, three slices and a bit long,
 * both ways: the result is memmove's, slice by slice.
 */
TEST_F(edge, overlapping_copy_across_slices_is_memmove)
{
	u64 len = 3 * MIB + 5, size = len + 64, i;
	u8 *buf = malloc(size), *ref = malloc(size);
	struct th_nic_cqe cqe;
	struct th_nic_desc d;
	u64 shift[2][2] = { { 0, 24 }, { 24, 0 } };	/* up, down */
	u32 key;
	int k;

	ASSERT_NE(NULL, buf);
	ASSERT_NE(NULL, ref);
	ASSERT_EQ(0, th_t_mr_reg(self->vp, buf, size, TH_NIC_ACCESS_ALL, &key,
				 NULL));
	for (k = 0; k < 2; k++) {
		for (i = 0; i < size; i++)
			buf[i] = ref[i] = (u8)(i * 7 + i / 251);
		memmove(ref + shift[k][1], ref + shift[k][0], len);
		d = thn_copy(key, shift[k][0], key, shift[k][1], len);
		thn_comp_ct(&d, 20 + 2 * k);
		d.flags |= TH_NIC_DF_SIGNAL;
		ASSERT_EQ(0, th_t_post(self->vp, &d, 1, NULL));
		EXPECT_EQ(0, wait_one(_metadata, self->vp, 20 + 2 * k, &cqe));
		EXPECT_EQ(0, memcmp(ref, buf, size)) TH_LOG("direction %d", k);
	}
	th_t_mr_dereg(self->vp, key);
	free(buf);
	free(ref);
}

/* A REDUCE of three slices and a bit: every element right. */
TEST_F(edge, reduce_across_slices_is_exact)
{
	u32 count = 3 * (u32)(TH_ENG_SLICE / 16) + 3, i, k[2];
	double *s0 = malloc(count * 8ULL), *s1 = malloc(count * 8ULL);
	double *dst = malloc(count * 8ULL);
	u32 keys[2];
	u64 offs[2] = { 0, 0 };
	struct th_nic_cqe cqe;
	struct th_nic_desc d;
	u32 kd, bad = 0;

	ASSERT_NE(NULL, s0);
	ASSERT_NE(NULL, s1);
	ASSERT_NE(NULL, dst);
	for (i = 0; i < count; i++) {
		s0[i] = i;
		s1[i] = 2.0 * i + 0.5;
		dst[i] = -1;
	}
	ASSERT_EQ(0, th_t_mr_reg(self->vp, s0, count * 8ULL, 0, &k[0], NULL));
	ASSERT_EQ(0, th_t_mr_reg(self->vp, s1, count * 8ULL, 0, &k[1], NULL));
	ASSERT_EQ(0, th_t_mr_reg(self->vp, dst, count * 8ULL,
				 TH_NIC_ACCESS_LOCAL_WRITE, &kd, NULL));
	keys[0] = k[0];
	keys[1] = k[1];
	/* two sources of 8 bytes: TH_ENG_SLICE / 16 elements a slice */
	d = thn_reduce(TH_NIC_ALU_SUM, TH_NIC_DT_FLOAT64, count, kd, 0, 2,
		       keys, offs);
	thn_comp_ct(&d, 30);
	d.flags |= TH_NIC_DF_SIGNAL;
	ASSERT_EQ(0, th_t_post(self->vp, &d, 1, NULL));
	EXPECT_EQ(0, wait_one(_metadata, self->vp, 30, &cqe));
	for (i = 0; i < count; i++)
		if (dst[i] != 3.0 * i + 0.5 && !bad++)
			TH_LOG("element %u: %g, not %g", i, dst[i], 3.0 * i + 0.5);
	EXPECT_EQ(0, bad);
	free(s0);
	free(s1);
	free(dst);
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
