// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_trigger.c - trigger semantics on the engine: firing at and past the
 * threshold, ordering, failure values, cancel, limits, CQ accounting, and
 * every accepted chain completing exactly once.
 */
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "th_test.h"

FIXTURE(trig) {
	struct th_ipf *fab;
	struct th_ipf_vport *vp, *peer;
};

FIXTURE_SETUP(trig)
{
	struct th_eng_limits lim = th_t_limits(2);
	int err = 0;

	self->fab = th_ipf_create(&lim, NULL, &err);
	ASSERT_NE(NULL, self->fab);
	self->vp = th_t_vport(self->fab, 0, 0, 0, &err);
	ASSERT_NE(NULL, self->vp);
	self->peer = th_t_vport(self->fab, 1, 0, 0, &err);
	ASSERT_NE(NULL, self->peer);
}

FIXTURE_TEARDOWN(trig)
{
	th_ipf_destroy(self->fab);
}

/* Post a one-NOTIFY chain waiting for @ct >= @thr. */
static int post_notify(struct th_ipf_vport *vp, u16 ct, u64 thr, u64 cookie)
{
	struct th_nic_desc d = thn_notify(cookie * 10);

	thn_trigger(&d, ct, thr, cookie);
	return th_t_post(vp, &d, 1, NULL);
}

static int inc(struct th_ipf_vport *vp, u32 ct, s64 v)
{
	return th_t_ct_update(vp, ct, TH_ENG_CT_INC, (u64)v, 0);
}

TEST_F(trig, fires_when_threshold_reached)
{
	struct th_nic_cqe cqe[4];

	ASSERT_EQ(0, post_notify(self->vp, 3, 2, 77));
	ASSERT_EQ(0, inc(self->vp, 3, 1));
	EXPECT_EQ(0, th_t_cq_drain(self->vp, cqe, 4));
	ASSERT_EQ(0, inc(self->vp, 3, 1));
	ASSERT_EQ(1, th_t_cq_drain(self->vp, cqe, 4));
	EXPECT_EQ(77, cqe[0].cookie);
	EXPECT_EQ(770, cqe[0].imm);
	EXPECT_EQ(0, cqe[0].status);
	EXPECT_EQ(TH_NIC_OP_NOTIFY, cqe[0].opcode);
	EXPECT_EQ(TH_NIC_CQE_F_FINAL, cqe[0].flags);
	/* a chain fires once: more increments write nothing */
	ASSERT_EQ(0, inc(self->vp, 3, 5));
	EXPECT_EQ(0, th_t_cq_drain(self->vp, cqe, 4));
}

TEST_F(trig, fires_at_once_if_already_reached)
{
	struct th_nic_cqe cqe[2];

	ASSERT_EQ(0, th_t_ct_update(self->vp, 9, TH_ENG_CT_SET, 5, 0));
	ASSERT_EQ(0, post_notify(self->vp, 9, 5, 1));
	ASSERT_EQ(1, th_t_cq_drain(self->vp, cqe, 2));
	EXPECT_EQ(1, cqe[0].cookie);
	ASSERT_EQ(0, post_notify(self->vp, 9, 0, 2));	/* threshold 0 */
	ASSERT_EQ(1, th_t_cq_drain(self->vp, cqe, 2));
	EXPECT_EQ(2, cqe[0].cookie);
	ASSERT_EQ(0, post_notify(self->vp, 9, 6, 3));	/* not yet */
	EXPECT_EQ(0, th_t_cq_drain(self->vp, cqe, 2));
}

TEST_F(trig, threshold_order_then_posting_order)
{
	static const u64 thr[] = { 3, 1, 2, 1, 3, 2, 5 };
	static const u64 want[] = { 1, 3, 2, 5, 0, 4 };
	struct th_nic_cqe cqe[8];
	u32 i, n;

	for (i = 0; i < 7; i++)
		ASSERT_EQ(0, post_notify(self->vp, 0, thr[i], i));
	ASSERT_EQ(0, inc(self->vp, 0, 4));	/* one jump releases six */
	n = th_t_cq_drain(self->vp, cqe, 8);
	ASSERT_EQ(6, n);
	for (i = 0; i < n; i++)
		EXPECT_EQ(want[i], cqe[i].cookie);
	ASSERT_EQ(0, inc(self->vp, 0, 1));
	ASSERT_EQ(1, th_t_cq_drain(self->vp, cqe, 8));
	EXPECT_EQ(6, cqe[0].cookie);
}

TEST_F(trig, chains_advance_counters_that_fire_chains)
{
	struct th_nic_desc d[2];
	struct th_nic_cqe cqe[4];

	/* B waits for counter 7 >= 2; A, fired by counter 1, adds 2 to it */
	ASSERT_EQ(0, post_notify(self->vp, 7, 2, 2));
	d[0] = thn_ct_op(TH_NIC_OP_CT_INC, 7, 2);
	thn_trigger(&d[0], 1, 1, 1);
	ASSERT_EQ(0, th_t_post(self->vp, d, 1, NULL));
	EXPECT_EQ(0, th_t_cq_drain(self->vp, cqe, 4));
	ASSERT_EQ(0, inc(self->vp, 1, 1));
	ASSERT_EQ(1, th_t_cq_drain(self->vp, cqe, 4));
	EXPECT_EQ(2, cqe[0].cookie);
	EXPECT_EQ(2, th_t_ct(self->vp, 7));
	/* CT_SET re-arms a round: a set below the threshold fires nothing */
	d[0] = thn_ct_op(TH_NIC_OP_CT_SET, 7, 0);
	d[1] = thn_notify(0);
	thn_link(d, 2);
	ASSERT_EQ(0, th_t_post(self->vp, d, 2, NULL));
	EXPECT_EQ(0, th_t_ct(self->vp, 7));
	ASSERT_EQ(1, th_t_cq_drain(self->vp, cqe, 4));
}

TEST_F(trig, failure_value_fails_waiting_chains)
{
	struct th_nic_cqe cqe[8];
	u32 i;

	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, post_notify(self->vp, 4, 10 + i, i));
	ASSERT_EQ(0, th_t_ct_update(self->vp, 4, TH_ENG_CT_FAIL, 1, 0));
	ASSERT_EQ(3, th_t_cq_drain(self->vp, cqe, 8));
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(i, cqe[i].cookie);
		EXPECT_EQ(-EIO, cqe[i].status);
		EXPECT_EQ(TH_NIC_CQE_F_FINAL, cqe[i].flags);
	}
	/* posting on a failed counter fails at once */
	ASSERT_EQ(0, post_notify(self->vp, 4, 1, 9));
	ASSERT_EQ(1, th_t_cq_drain(self->vp, cqe, 8));
	EXPECT_EQ(-EIO, cqe[0].status);
	/* a reset clears it */
	ASSERT_EQ(0, th_t_ct_update(self->vp, 4, TH_ENG_CT_SET, 0, 0));
	ASSERT_EQ(0, post_notify(self->vp, 4, 1, 10));
	EXPECT_EQ(0, th_t_cq_drain(self->vp, cqe, 8));
	ASSERT_EQ(0, inc(self->vp, 4, 1));
	ASSERT_EQ(1, th_t_cq_drain(self->vp, cqe, 8));
	EXPECT_EQ(0, cqe[0].status);
}

/*
 * A chain that fails fails the counters its descriptors name: its own,
 * and a peer's where the descriptor's remote key grants the write.
 */
TEST_F(trig, a_failed_chain_fails_the_counters_it_names)
{
	struct th_nic_desc d[4];
	struct th_nic_cqe cqe[4];
	u8 buf[64], pbuf[64];
	u32 key, pkey;
	u64 prkey;

	ASSERT_EQ(0, th_t_mr_reg(self->vp, buf, sizeof(buf), 0, &key, NULL));
	ASSERT_EQ(0, th_t_mr_reg(self->peer, pbuf, sizeof(pbuf),
				 TH_NIC_ACCESS_REMOTE_WRITE, &pkey, &prkey));
	/* a chain that never runs: its trigger counter fails */
	d[0] = thn_notify(1);
	d[1] = thn_put(key, 0, 1, self->peer->ev.index, prkey, 0, 8);
	d[1].flags |= TH_NIC_DF_COMP_CT | TH_NIC_DF_REMOTE_CT;
	d[1].comp_ct = 9;
	d[1].xfer.remote_ct = 3;
	d[2] = thn_ct_op(TH_NIC_OP_CT_INC, 10, 1);
	d[3] = thn_notify(5);
	thn_link(d, 4);
	thn_trigger(&d[0], 4, 1, 99);
	ASSERT_EQ(0, th_t_post(self->vp, d, 4, NULL));
	/* the trigger counter fails: the chain never runs, and says so */
	ASSERT_EQ(0, th_t_ct_update(self->vp, 4, TH_ENG_CT_FAIL, 1, 0));
	ASSERT_EQ(1, th_t_cq_drain(self->vp, cqe, 4));
	EXPECT_EQ(99, cqe[0].cookie);
	EXPECT_EQ(-EIO, cqe[0].status);
	EXPECT_EQ(0, cqe[0].desc_index);
	EXPECT_EQ(1, th_t_ct_fail(self->vp, 9));	/* its completion counter */
	EXPECT_EQ(1, th_t_ct_fail(self->vp, 10));	/* the skipped CT_INC's */
	EXPECT_EQ(0, th_t_ct(self->vp, 10));
	EXPECT_EQ(1, th_t_ct_fail(self->peer, 3));	/* an authorised target's */
	EXPECT_EQ(0, th_t_ct(self->peer, 3));
}

/*
 * Finding F.3: a descriptor whose remote key the target never granted
 * raises no failure value there, whether it fails when it runs or is
 * cancelled: no key, no way to poison a peer's counters.  Either way the
 * refused key is a violation (issue 28: a cancel must not test keys for
 * free), so the run goes on a second vport of the user.
 */
TEST_F(trig, an_unauthorised_descriptor_fails_no_peer_counter)
{
	struct th_ipf_vport *other;
	struct th_nic_desc d[2];
	struct th_nic_cqe cqe[4];
	u8 buf[64], pbuf[64];
	u32 key, pkey, n;
	u64 prkey;
	int err = 0;

	ASSERT_EQ(0, th_t_mr_reg(self->vp, buf, sizeof(buf), 0, &key, NULL));
	ASSERT_EQ(0, th_t_mr_reg(self->peer, pbuf, sizeof(pbuf),
				 TH_NIC_ACCESS_REMOTE_READ, &pkey, &prkey));
	/* pending and cancelled: a guessed key, then a key without write */
	d[0] = thn_put_ct(key, 0, 1, self->peer->ev.index, 0x1234, 0, 8, 3);
	thn_trigger(&d[0], 5, 1, 1);
	d[1] = thn_put_ct(key, 0, 1, self->peer->ev.index, prkey, 0, 8, 4);
	thn_trigger(&d[1], 5, 1, 2);
	ASSERT_EQ(0, th_t_post(self->vp, d, 2, NULL));
	ASSERT_EQ(0, th_t_cancel(self->vp, false, 0, &n));
	EXPECT_EQ(2, n);
	EXPECT_EQ(2, th_t_cq_drain(self->vp, cqe, 4));
	EXPECT_TRUE(self->vp->ev.error);
	/* run: refused by the target */
	other = th_t_vport(self->fab, 0, 0, 0, &err);
	ASSERT_NE(NULL, other);
	ASSERT_EQ(0, th_t_mr_reg(other, buf, sizeof(buf), 0, &key, NULL));
	d[0] = thn_put_ct(key, 0, 1, self->peer->ev.index, 0x1234, 0, 8, 6);
	ASSERT_EQ(0, th_t_post(other, d, 1, NULL));
	ASSERT_EQ(1, th_t_cq_drain(other, cqe, 4));
	EXPECT_EQ(-EACCES, cqe[0].status);
	for (n = 0; n < TH_ENG_DEF_COUNTERS; n++) {
		ASSERT_EQ(0, th_t_ct_fail(self->peer, n));
		ASSERT_EQ(0, th_t_ct(self->peer, n));
	}
}

/* FINAL marks the one entry after which a chain writes nothing more. */
TEST_F(trig, only_the_last_entry_is_final)
{
	struct th_nic_desc d[3];
	struct th_nic_cqe cqe[4];
	u8 buf[8];
	u32 key;

	ASSERT_EQ(0, th_t_mr_reg(self->vp, buf, sizeof(buf), 0, &key, NULL));
	d[0] = thn_notify(1);
	d[1] = thn_put(key, 0, 1, 9, 0x77, 0, 8);	/* no such vport */
	thn_link(d, 2);
	ASSERT_EQ(0, th_t_post(self->vp, d, 2, NULL));
	ASSERT_EQ(2, th_t_cq_drain(self->vp, cqe, 4));
	EXPECT_EQ(0, cqe[0].status);
	EXPECT_EQ(0, cqe[0].flags);
	EXPECT_EQ(-ECONNREFUSED, cqe[1].status);
	EXPECT_EQ(1, cqe[1].desc_index);
	EXPECT_EQ(TH_NIC_CQE_F_FINAL, cqe[1].flags);
	/* signalled descriptors before the last are not final either */
	d[0] = thn_notify(1);
	d[1] = thn_ct_op(TH_NIC_OP_CT_INC, 3, 1);
	d[1].flags |= TH_NIC_DF_SIGNAL;
	d[2] = thn_notify(2);
	thn_link(d, 3);
	ASSERT_EQ(0, th_t_post(self->vp, d, 3, NULL));
	ASSERT_EQ(3, th_t_cq_drain(self->vp, cqe, 4));
	EXPECT_EQ(0, cqe[0].flags);
	EXPECT_EQ(0, cqe[1].flags);
	EXPECT_EQ(TH_NIC_CQE_F_FINAL, cqe[2].flags);
	EXPECT_EQ(2, cqe[2].imm);
}

TEST_F(trig, cancel_by_cookie_and_all)
{
	struct th_nic_desc d;
	struct th_nic_cqe cqe[8];
	u32 n = 0, i;

	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, post_notify(self->vp, 2, 5, i % 2 ? 7 : 8));
	d = thn_notify(0);
	d.flags |= TH_NIC_DF_COMP_CT;
	d.comp_ct = 11;
	thn_trigger(&d, 3, 1, 7);
	ASSERT_EQ(0, th_t_post(self->vp, &d, 1, NULL));

	ASSERT_EQ(0, th_t_cancel(self->vp, true, 7, &n));
	EXPECT_EQ(3, n);
	ASSERT_EQ(3, th_t_cq_drain(self->vp, cqe, 8));
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(7, cqe[i].cookie);
		EXPECT_EQ(-ECANCELED, cqe[i].status);
	}
	EXPECT_EQ(1, th_t_ct_fail(self->vp, 11));
	ASSERT_EQ(0, th_t_cancel(self->vp, true, 12345, &n));
	EXPECT_EQ(0, n);
	ASSERT_EQ(0, th_t_cancel(self->vp, false, 0, &n));
	EXPECT_EQ(2, n);
	ASSERT_EQ(2, th_t_cq_drain(self->vp, cqe, 8));
	EXPECT_EQ(8, cqe[0].cookie);
	/* cancelled chains are gone: the counter reaching 5 fires nothing */
	ASSERT_EQ(0, inc(self->vp, 2, 5));
	EXPECT_EQ(0, th_t_cq_drain(self->vp, cqe, 8));
}

TEST_F(trig, destroying_a_vport_cancels_and_fails_its_peers)
{
	struct th_nic_desc d;
	struct th_nic_cqe cqe[4];
	u8 src[8], dst[8];
	u32 skey, dkey;
	u64 rkey;

	ASSERT_EQ(0, th_t_mr_reg(self->vp, src, sizeof(src), 0, &skey, NULL));
	ASSERT_EQ(0, th_t_mr_reg(self->peer, dst, sizeof(dst),
				 TH_NIC_ACCESS_REMOTE_WRITE, &dkey, &rkey));
	/* the peer waits for our put on its counter 2 */
	ASSERT_EQ(0, post_notify(self->peer, 2, 1, 55));
	d = thn_put(skey, 0, 1, self->peer->ev.index, rkey, 0, 8);
	d.flags |= TH_NIC_DF_REMOTE_CT;
	d.xfer.remote_ct = 2;
	thn_trigger(&d, 0, 1, 1);
	ASSERT_EQ(0, th_t_post(self->vp, &d, 1, NULL));
	th_ipf_vport_destroy(self->vp);
	self->vp = NULL;
	ASSERT_EQ(1, th_t_cq_drain(self->peer, cqe, 4));
	EXPECT_EQ(55, cqe[0].cookie);
	EXPECT_EQ(-EIO, cqe[0].status);
	EXPECT_EQ(1, th_t_ct_fail(self->peer, 2));
}

TEST_F(trig, cq_never_overflows)
{
	struct th_ipf_vport *small;
	struct th_nic_desc d[TH_ENG_DEF_CHAIN];
	struct th_nic_cqe cqe[16];
	struct th_nic_doorbell res;
	int err, i;

	small = th_t_vport(self->fab, 0, 16, 8, &err);
	ASSERT_NE(NULL, small);
	/* each pending NOTIFY chain holds 2 entries: its NOTIFY and an error */
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, post_notify(small, 0, 1, i));
	ASSERT_EQ(-EAGAIN, post_notify(small, 0, 1, 4));
	/* the refused slot is still in the SQ: ring again after making room */
	ASSERT_EQ(0, inc(small, 0, 1));
	ASSERT_EQ(0, th_t_doorbell(small, &res));
	EXPECT_EQ(1, res.chains);	/* chain 4 fired at once */
	/* 5 entries written and unconsumed: one more pending chain fits */
	ASSERT_EQ(0, post_notify(small, 0, 2, 5));
	ASSERT_EQ(-EAGAIN, post_notify(small, 0, 2, 6));
	ASSERT_EQ(5, th_t_cq_drain(small, cqe, 16));
	for (i = 0; i < 5; i++)
		EXPECT_EQ(i, cqe[i].cookie);
	ASSERT_EQ(0, th_t_doorbell(small, &res));
	EXPECT_EQ(1, res.chains);
	ASSERT_EQ(0, inc(small, 0, 1));
	ASSERT_EQ(2, th_t_cq_drain(small, cqe, 16));
	EXPECT_EQ(5, cqe[0].cookie);
	EXPECT_EQ(6, cqe[1].cookie);
	/* a chain that needs more entries than the CQ has: -ENOSPC */
	for (i = 0; i < 8; i++)
		d[i] = thn_notify(i);
	thn_link(d, 8);
	ASSERT_EQ(-ENOSPC, th_t_post(small, d, 8, &res));
	EXPECT_EQ(TH_NIC_REFUSE_CQ_SIZE, res.reason);
	EXPECT_EQ(0, res.chains);
}

TEST_F(trig, limits_are_refused_not_capped)
{
	static u8 buf[64];
	struct th_ipf_vport *v[TH_ENG_DEF_VPORTS];
	u32 key, i;
	int err = 0;

	for (i = 0; i < TH_ENG_DEF_MRS; i++)
		ASSERT_EQ(0, th_t_mr_reg(self->vp, buf, sizeof(buf), 0, &key, NULL));
	EXPECT_EQ(-ENOSPC, th_t_mr_reg(self->vp, buf, sizeof(buf), 0, &key, NULL));
	EXPECT_EQ(-EINVAL, th_t_mr_reg(self->peer, buf, 0, 0, &key, NULL));
	EXPECT_EQ(-EINVAL, th_t_mr_reg(self->peer, buf, TH_ENG_DEF_MR_SIZE + 1,
				       0, &key, NULL));
	EXPECT_EQ(-EINVAL, th_t_mr_reg(self->peer, buf, 8, 1 << 3, &key, NULL));
	EXPECT_EQ(-EINVAL, th_t_mr_dereg(self->peer, 0x999));
	EXPECT_EQ(-EINVAL, inc(self->vp, TH_ENG_DEF_COUNTERS, 1));
	EXPECT_EQ(NULL, th_t_vport(self->fab, 0, 24, 0, &err));
	EXPECT_EQ(-EINVAL, err);
	EXPECT_EQ(NULL, th_t_vport(self->fab, 0, 0, 2048, &err));
	EXPECT_EQ(-EINVAL, err);
	EXPECT_EQ(NULL, th_t_vport(self->fab, 2, 0, 0, &err));
	EXPECT_EQ(-EINVAL, err);
	for (i = 1; i < TH_ENG_DEF_VPORTS; i++) {
		v[i] = th_t_vport(self->fab, 0, 16, 16, &err);
		ASSERT_NE(NULL, v[i]);
	}
	EXPECT_EQ(NULL, th_t_vport(self->fab, 0, 16, 16, &err));
	EXPECT_EQ(-ENOSPC, err);
}

TEST_F(trig, keys_are_unguessable_and_never_reused_at_once)
{
	static u8 buf[64];
	u32 k1, k2, k3;
	u64 r1, r2, r3;

	ASSERT_EQ(0, th_t_mr_reg(self->vp, buf, sizeof(buf), 0, &k1, &r1));
	ASSERT_EQ(0, th_t_mr_dereg(self->vp, k1));
	ASSERT_EQ(0, th_t_mr_reg(self->vp, buf, sizeof(buf), 0, &k2, &r2));
	EXPECT_NE(k1, k2);
	EXPECT_NE(r1, r2);
	ASSERT_EQ(0, th_t_mr_reg(self->vp, buf, sizeof(buf), 0, &k3, &r3));
	/* beyond the slot bits, keys differ randomly, not by a step */
	EXPECT_NE(k2 >> 6, k3 >> 6);
	EXPECT_NE(r2 >> 6, r3 >> 6);
	/* the remote key is not the local key, nor derived from it */
	EXPECT_NE((u64)k2, r2);
	EXPECT_NE(k2 >> 6, (u32)(r2 >> 6));
	/* 58 random bits with 64 MRs: the upper half is never all zero */
	EXPECT_NE(0, (r2 >> 32) | (r3 >> 32));
	EXPECT_EQ(-EINVAL, th_t_mr_dereg(self->vp, k1));
}

/*
 * Completed chains go back to their vport's pool and the next doorbell
 * takes them: the pool never holds more than TH_ENG_CHAIN_POOL, and a
 * reused chain runs exactly its new descriptors, none of its old ones.
 */
TEST_F(trig, chains_are_reused_from_a_bounded_pool)
{
	struct th_nic_desc d[3];
	struct th_nic_cqe cqe[8];
	struct th_eng_stats before, after;
	u32 i;

	for (i = 0; i < 3 * TH_ENG_CHAIN_POOL; i++) {
		d[0] = thn_ct_op(TH_NIC_OP_CT_INC, 5, 1);
		thn_trigger(&d[0], 4, 1, i);
		ASSERT_EQ(0, th_t_post(self->vp, d, 1, NULL));
	}
	EXPECT_EQ(0, self->vp->ev.chain_pool_len[0]);
	ASSERT_EQ(0, inc(self->vp, 4, 1));
	EXPECT_EQ(3 * TH_ENG_CHAIN_POOL, th_t_ct(self->vp, 5));
	EXPECT_EQ(TH_ENG_CHAIN_POOL, self->vp->ev.chain_pool_len[0]);
	EXPECT_EQ(0, self->vp->ev.chain_pool_len[1]);

	/* a three-descriptor chain, then a one-descriptor one in its place */
	ASSERT_GE(TH_ENG_CHAIN_SMALL, 3);
	d[0] = thn_ct_op(TH_NIC_OP_CT_INC, 6, 1);
	d[1] = thn_ct_op(TH_NIC_OP_CT_INC, 6, 10);
	d[2] = thn_notify(7);
	thn_link(d, 3);
	thn_trigger(&d[0], 4, 1, 1);
	ASSERT_EQ(0, th_t_post(self->vp, d, 3, NULL));
	EXPECT_EQ(11, th_t_ct(self->vp, 6));
	EXPECT_EQ(1, th_t_cq_drain(self->vp, cqe, 8));
	th_eng_stats_read(&self->vp->ev, &before);
	d[0] = thn_ct_op(TH_NIC_OP_CT_INC, 6, 100);
	thn_trigger(&d[0], 4, 1, 2);
	ASSERT_EQ(0, th_t_post(self->vp, d, 1, NULL));
	th_eng_stats_read(&self->vp->ev, &after);
	EXPECT_EQ(111, th_t_ct(self->vp, 6));
	EXPECT_EQ(before.descs_run + 1, after.descs_run);
	EXPECT_EQ(0, th_t_cq_drain(self->vp, cqe, 8));	/* no stale NOTIFY */
	EXPECT_EQ(TH_ENG_CHAIN_POOL, self->vp->ev.chain_pool_len[0]);
}

/*
 * One increment that fires more chains than a context's budget: the rest
 * run on the fabric's progress thread, and every one of them completes.
 */
TEST_F(trig, cascade_past_the_budget_is_deferred_not_lost)
{
	enum { N = 900 };
	struct th_nic_desc d;
	struct th_eng_stats st;
	static u8 flag[8];
	u64 s, f, rkey;
	u32 key, i;

	ASSERT_EQ(0, th_t_mr_reg(self->peer, flag, sizeof(flag),
				 TH_NIC_ACCESS_REMOTE_WRITE, &key, &rkey));
	for (i = 0; i < N; i++) {
		/* peer chain i fires on the i-th delivery */
		d = thn_ct_op(TH_NIC_OP_CT_INC, 1, 1);
		thn_trigger(&d, 0, i + 1, i);
		ASSERT_EQ(0, th_t_post(self->peer, &d, 1, NULL));
		/* our chain i delivers once we start */
		d = thn_inline_remote(1, self->peer->ev.index, rkey, 0, "x", 1);
		d.flags |= TH_NIC_DF_REMOTE_CT;
		thn_trigger(&d, 0, 1, i);
		ASSERT_EQ(0, th_t_post(self->vp, &d, 1, NULL));
	}
	ASSERT_EQ(0, th_t_ct_update(self->vp, 0, TH_ENG_CT_INC, 1, 0));
	ASSERT_EQ(0, th_t_ct_wait(self->peer, 1, N, 5000000000ULL, &s, &f));
	EXPECT_EQ(N, s);
	EXPECT_EQ(N, th_t_ct(self->peer, 0));
	th_t_stats_when_done(self->peer, N, 5000, &st);
	EXPECT_EQ(N, st.chains_done);
	th_t_stats_when_done(self->vp, N, 5000, &st);
	EXPECT_EQ(N, st.chains_done);
}

/*
 * Random posts, increments, failures and cancels on one vport: every
 * accepted chain must produce exactly one final entry, and the statistics
 * must balance.
 */
TEST_F(trig, every_accepted_chain_completes_exactly_once)
{
	enum { CHAINS = 3000, CTS = 8 };
	static u8 seen[CHAINS];
	struct th_nic_cqe cqe[64];
	struct th_eng_stats st;
	u64 accepted = 0, cookie = 0, finals = 0;
	u32 n, i, cancelled;
	unsigned int seed = 12345;
	int ret;

	memset(seen, 0, sizeof(seen));
	while (cookie < CHAINS) {
		int what = rand_r(&seed) % 10;
		u16 ct = rand_r(&seed) % CTS;

		if (what < 6) {
			ret = post_notify(self->vp, ct, rand_r(&seed) % 20, cookie);
			if (!ret)
				accepted++;
			else
				ASSERT_EQ(-EAGAIN, ret);
			/* CQ full: the refused slot stays in the SQ; make room */
			if (ret) {
				struct th_nic_doorbell res;

				ASSERT_EQ(0, th_t_cancel(self->vp, false, 0,
							   &cancelled));
				n = th_t_cq_drain(self->vp, cqe, 64);
				for (i = 0; i < n; i++) {
					ASSERT_EQ(0, seen[cqe[i].cookie]++);
					finals++;
				}
				ASSERT_EQ(0, th_t_doorbell(self->vp, &res));
				ASSERT_EQ(1, res.chains);
				accepted++;
			}
			cookie++;
		} else if (what < 8) {
			ASSERT_EQ(0, inc(self->vp, ct, rand_r(&seed) % 3));
		} else if (what == 8) {
			ASSERT_EQ(0, th_t_cancel(self->vp, true,
						   rand_r(&seed) % (cookie + 1),
						   &cancelled));
		} else if (rand_r(&seed) % 8 == 0) {
			ASSERT_EQ(0, th_t_ct_update(self->vp, ct, TH_ENG_CT_FAIL,
						      1, 0));
			ASSERT_EQ(0, th_t_ct_update(self->vp, ct, TH_ENG_CT_SET,
						      0, 0));
		}
		n = th_t_cq_drain(self->vp, cqe, 64);
		for (i = 0; i < n; i++) {
			ASSERT_EQ(TH_NIC_CQE_F_FINAL, cqe[i].flags);
			ASSERT_EQ(0, seen[cqe[i].cookie]++);
			finals++;
		}
	}
	ASSERT_EQ(0, th_t_cancel(self->vp, false, 0, &cancelled));
	while ((n = th_t_cq_drain(self->vp, cqe, 64))) {
		for (i = 0; i < n; i++) {
			ASSERT_EQ(0, seen[cqe[i].cookie]++);
			finals++;
		}
	}
	EXPECT_EQ(accepted, finals);
	for (i = 0; i < CHAINS; i++)
		ASSERT_EQ(1, seen[i]);
	th_eng_stats_read(&self->vp->ev, &st);
	EXPECT_EQ(accepted, st.chains_posted);
	EXPECT_EQ(st.chains_posted,
		  st.chains_done + st.chains_failed + st.chains_cancelled);
	EXPECT_GT(st.chains_done, 0);
	EXPECT_GT(st.chains_cancelled, 0);
	EXPECT_EQ(0, self->vp->ev.cq_reserved);
	EXPECT_EQ(0, self->vp->ev.running);
}

TEST_HARNESS_MAIN
