// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_rearm.c - chains that end in REARM: posted once, run once per
 * round each time their counter gains the stride, with no doorbell; each
 * round's entries written once and their CQ room reserved per round;
 * ordered among ordinary chains as if posted anew at each re-arm; ended,
 * with exactly one final entry, by a cancel (after a running round), a
 * failed round, a full CQ, or the vport's destruction.
 */
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "th_test.h"

FIXTURE(rearm) {
	struct th_ipf *fab;
	struct th_ipf_vport *vp, *peer;
};

FIXTURE_SETUP(rearm)
{
	struct th_eng_limits lim = th_t_limits(2);
	int err = 0;

	self->fab = th_ipf_create(&lim, NULL, &err);
	ASSERT_NE(NULL, self->fab);
	self->vp = th_t_vport(self->fab, 0, 0, 0, &err);
	self->peer = th_t_vport(self->fab, 1, 0, 0, &err);
	ASSERT_NE(NULL, self->peer);
}

FIXTURE_TEARDOWN(rearm)
{
	th_ipf_destroy(self->fab);
}

/* [NOTIFY(@imm), REARM(@stride)] on @ct from @thr, cookie @cookie. */
static int post_rearming_notify(struct th_ipf_vport *vp, u16 ct, u64 thr,
				u64 stride, u64 cookie, u64 imm)
{
	struct th_nic_desc d[2];

	d[0] = thn_notify(imm);
	d[1] = thn_rearm(stride);
	thn_link(d, 2);
	thn_trigger(&d[0], ct, thr, cookie);
	return th_t_post(vp, d, 2, NULL);
}

static int inc(struct th_ipf_vport *vp, u32 ct, u64 v)
{
	return th_t_ct_update(vp, ct, TH_ENG_CT_INC, v, 0);
}

TEST_F(rearm, runs_once_per_round_until_cancelled)
{
	struct th_nic_cqe cqe[8];
	struct th_eng_stats st;
	u32 n, i;

	ASSERT_EQ(0, post_rearming_notify(self->vp, 3, 2, 2, 77, 5));
	EXPECT_EQ(0, th_t_cq_drain(self->vp, cqe, 8));
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, inc(self->vp, 3, 1));	/* half a stride */
		EXPECT_EQ(0, th_t_cq_drain(self->vp, cqe, 8));
		ASSERT_EQ(0, inc(self->vp, 3, 1));
		ASSERT_EQ(1, th_t_cq_drain(self->vp, cqe, 8)) TH_LOG("round %u", i);
		EXPECT_EQ(77, cqe[0].cookie);
		EXPECT_EQ(5, cqe[0].imm);
		EXPECT_EQ(0, cqe[0].status);
		EXPECT_EQ(0, cqe[0].flags);	/* more rounds follow */
	}
	th_eng_stats_read(&self->vp->ev, &st);
	EXPECT_EQ(1, st.chains_posted);
	EXPECT_EQ(4, st.chains_done);
	EXPECT_EQ(1, th_atomic_read(&self->vp->ev.user->chains));
	/* cancelled while pending: one final entry, and nothing after */
	ASSERT_EQ(0, th_t_cancel(self->vp, true, 77, &n));
	EXPECT_EQ(1, n);
	ASSERT_EQ(1, th_t_cq_drain(self->vp, cqe, 8));
	EXPECT_EQ(-ECANCELED, cqe[0].status);
	EXPECT_EQ(TH_NIC_CQE_F_FINAL, cqe[0].flags);
	ASSERT_EQ(0, inc(self->vp, 3, 10));
	EXPECT_EQ(0, th_t_cq_drain(self->vp, cqe, 8));
	EXPECT_EQ(0, th_atomic_read(&self->vp->ev.user->chains));
	EXPECT_EQ(0, self->vp->ev.cq_reserved);
}

/*
 * Re-arming counts as posting again: among chains of equal threshold, a
 * re-armed chain comes after those posted before its re-arm and before
 * those posted after it.
 */
TEST_F(rearm, reposted_in_order_at_each_round)
{
	struct th_nic_cqe cqe[8];
	u32 n;

	ASSERT_EQ(0, th_t_post(self->vp, (struct th_nic_desc[]){ ({
		struct th_nic_desc d = thn_notify(20);

		thn_trigger(&d, 1, 2, 20);
		d; }) }, 1, NULL));
	ASSERT_EQ(0, post_rearming_notify(self->vp, 1, 1, 1, 10, 10));
	ASSERT_EQ(0, th_t_post(self->vp, (struct th_nic_desc[]){ ({
		struct th_nic_desc d = thn_notify(11);

		thn_trigger(&d, 1, 1, 11);
		d; }) }, 1, NULL));
	/* round 1 at 1: R(10) then 11, in posting order */
	ASSERT_EQ(0, inc(self->vp, 1, 1));
	ASSERT_EQ(2, th_t_cq_drain(self->vp, cqe, 8));
	EXPECT_EQ(10, cqe[0].imm);
	EXPECT_EQ(11, cqe[1].imm);
	/* at 2: 20 was posted before R re-armed for 2, 30 after */
	ASSERT_EQ(0, th_t_post(self->vp, (struct th_nic_desc[]){ ({
		struct th_nic_desc d = thn_notify(30);

		thn_trigger(&d, 1, 2, 30);
		d; }) }, 1, NULL));
	ASSERT_EQ(0, inc(self->vp, 1, 1));
	n = th_t_cq_drain(self->vp, cqe, 8);
	ASSERT_EQ(3, n);
	EXPECT_EQ(20, cqe[0].imm);
	EXPECT_EQ(10, cqe[1].imm);
	EXPECT_EQ(30, cqe[2].imm);
}

/*
 * Each round reserves its CQ entries when it re-arms; a consumer that
 * does not drain ends the chain with -EOVERFLOW, in the room kept for
 * that one entry: the CQ never overflows and nothing is lost silently.
 */
TEST_F(rearm, a_full_cq_ends_it_with_eoverflow)
{
	struct th_ipf_vport *small;
	struct th_nic_cqe cqe[16];
	int err, i;

	small = th_t_vport(self->fab, 0, 16, 8, &err);
	ASSERT_NE(NULL, small);
	ASSERT_EQ(0, post_rearming_notify(small, 0, 1, 1, 9, 9));
	for (i = 0; i < 10; i++)
		ASSERT_EQ(0, inc(small, 0, 1));
	/* 7 rounds fit with the error entry's room; the 8th cannot re-arm */
	ASSERT_EQ(8, th_t_cq_drain(small, cqe, 16));
	for (i = 0; i < 7; i++)
		EXPECT_EQ(0, cqe[i].status);
	EXPECT_EQ(-EOVERFLOW, cqe[7].status);
	EXPECT_EQ(TH_NIC_CQE_F_FINAL, cqe[7].flags);
	EXPECT_EQ(0, small->ev.cq_reserved);
	EXPECT_EQ(0, th_atomic_read(&small->ev.user->chains));
}

#define MIB	(1ULL << 20)

/*
 * Cancelled while a round runs (a long copy, handed to the progress
 * thread): the round finishes, writes its entry, and the chain ends
 * instead of re-arming.  Cancelled between rounds, it ends at once.
 * Either way: one round's entry, one final entry.
 */
TEST_F(rearm, cancel_lets_a_running_round_finish)
{
	u8 *s = malloc(16 * MIB), *t = malloc(16 * MIB);
	struct th_nic_desc d[3];
	struct th_nic_cqe cqe[8];
	u32 ks, kt, n, got = 0;
	u64 sx, fx;

	ASSERT_NE(NULL, s);
	ASSERT_NE(NULL, t);
	memset(s, 3, 16 * MIB);
	ASSERT_EQ(0, th_t_mr_reg(self->vp, s, 16 * MIB, 0, &ks, NULL));
	ASSERT_EQ(0, th_t_mr_reg(self->vp, t, 16 * MIB,
				 TH_NIC_ACCESS_LOCAL_WRITE, &kt, NULL));
	d[0] = thn_copy(ks, 0, kt, 0, 16 * MIB);
	d[1] = thn_notify(1);
	thn_comp_ct(&d[1], 2);
	d[2] = thn_rearm(1);
	thn_link(d, 3);
	thn_trigger(&d[0], 4, 0, 66);
	ASSERT_EQ(0, th_t_post(self->vp, d, 3, NULL));
	ASSERT_EQ(0, th_t_cancel(self->vp, false, 0, &n));
	EXPECT_EQ(1, n);
	ASSERT_EQ(0, th_t_ct_wait(self->vp, 2, 1, 60000000000ULL, &sx, &fx));
	while (got < 2) {
		n = th_t_cq_drain(self->vp, cqe + got, 8 - got);
		got += n;
		if (!n)
			th_t_ct_wait(self->vp, 3, 1, 1000000, &sx, &fx);
	}
	EXPECT_EQ(0, cqe[0].status);
	EXPECT_EQ(1, cqe[0].imm);
	EXPECT_EQ(-ECANCELED, cqe[1].status);
	EXPECT_EQ(TH_NIC_CQE_F_FINAL, cqe[1].flags);
	EXPECT_EQ(0, memcmp(s, t, 16 * MIB));
	free(s);
	free(t);
}

/*
 * A failed round ends the chain: its counters fail as for any chain, and
 * it does not come back.  The vport's destruction ends one that waits,
 * and a peer waiting on its PUTs sees the failure.
 */
TEST_F(rearm, a_failed_round_or_a_destroyed_vport_ends_it)
{
	struct th_nic_desc d[3];
	struct th_nic_cqe cqe[4];
	u8 buf[64], pbuf[64];
	u32 k, pk;
	u64 prk;

	ASSERT_EQ(0, th_t_mr_reg(self->vp, buf, sizeof(buf), 0, &k, NULL));
	ASSERT_EQ(0, th_t_mr_reg(self->peer, pbuf, sizeof(pbuf),
				 TH_NIC_ACCESS_REMOTE_WRITE, &pk, &prk));
	/* round 2 fails: the counter it waits on fails */
	ASSERT_EQ(0, post_rearming_notify(self->vp, 6, 1, 1, 5, 5));
	ASSERT_EQ(0, inc(self->vp, 6, 1));
	ASSERT_EQ(0, th_t_ct_update(self->vp, 6, TH_ENG_CT_FAIL, 1, 0));
	ASSERT_EQ(2, th_t_cq_drain(self->vp, cqe, 4));
	EXPECT_EQ(0, cqe[0].status);
	EXPECT_EQ(-EIO, cqe[1].status);
	EXPECT_EQ(TH_NIC_CQE_F_FINAL, cqe[1].flags);
	ASSERT_EQ(0, th_t_ct_update(self->vp, 6, TH_ENG_CT_SET, 5, 0));
	EXPECT_EQ(0, th_t_cq_drain(self->vp, cqe, 4));

	/* a PUT each round into the peer, which waits for round 2 */
	d[0] = thn_put_ct(k, 0, 1, self->peer->ev.index, prk, 0, 8, 7);
	d[1] = thn_nop();
	d[2] = thn_rearm(1);
	thn_link(d, 3);
	thn_trigger(&d[0], 8, 1, 8);
	ASSERT_EQ(0, th_t_post(self->vp, d, 3, NULL));
	d[0] = thn_notify(2);
	thn_trigger(&d[0], 7, 2, 2);
	ASSERT_EQ(0, th_t_post(self->peer, d, 1, NULL));
	ASSERT_EQ(0, inc(self->vp, 8, 1));
	EXPECT_EQ(1, th_t_ct(self->peer, 7));
	th_ipf_vport_destroy(self->vp);
	self->vp = NULL;
	/* the pending round's PUT never comes: the peer is told */
	ASSERT_EQ(1, th_t_cq_drain(self->peer, cqe, 4));
	EXPECT_EQ(-EIO, cqe[0].status);
	EXPECT_EQ(1, th_t_ct_fail(self->peer, 7));
}

/*
 * Random increments, cancels and ordinary chains beside re-arming ones:
 * every chain ends with exactly one final entry, every round of a
 * re-arming chain writes its one NOTIFY, and the books balance.
 */
TEST_F(rearm, exactly_once_per_round_under_random_load)
{
	enum { CHAINS = 40, STEPS = 3000 };
	static u32 rounds[CHAINS], finals[CHAINS];
	struct th_nic_cqe cqe[64];
	struct th_eng_stats st;
	u64 r = 0x9e3779b97f4a7c15ULL, posted_rounds = 0;
	u32 i, n, c, step, cancelled;

	memset(rounds, 0, sizeof(rounds));
	memset(finals, 0, sizeof(finals));
	for (i = 0; i < CHAINS; i++) {
		if (i % 2) {
			ASSERT_EQ(0, post_rearming_notify(self->vp, i % 4, 1 + i % 3,
							  1 + i % 2, i, i));
		} else {
			struct th_nic_desc d = thn_notify(i);

			thn_trigger(&d, i % 4, 1 + i % 5, i);
			ASSERT_EQ(0, th_t_post(self->vp, &d, 1, NULL));
		}
	}
	for (step = 0; step < STEPS; step++) {
		r ^= r << 13;
		r ^= r >> 7;
		r ^= r << 17;
		if (r % 97 == 0) {
			ASSERT_EQ(0, th_t_cancel(self->vp, true, r % CHAINS,
						 &cancelled));
		} else {
			ASSERT_EQ(0, inc(self->vp, r % 4, 1));
		}
		while ((n = th_t_cq_drain(self->vp, cqe, 64))) {
			for (i = 0; i < n; i++) {
				c = cqe[i].cookie;
				ASSERT_GT(CHAINS, c);
				if (!cqe[i].status) {
					ASSERT_EQ(c, cqe[i].imm);
					rounds[c]++;
					posted_rounds++;
				}
				/* a one-shot success, an error or a cancel */
				if (cqe[i].flags & TH_NIC_CQE_F_FINAL)
					finals[c]++;
				ASSERT_GE(1, finals[c]) TH_LOG("chain %u twice", c);
				/* a one-shot chain has one round at most */
				if (!(c % 2))
					ASSERT_GE(1, rounds[c]);
			}
		}
	}
	ASSERT_EQ(0, th_t_cancel(self->vp, false, 0, &cancelled));
	while ((n = th_t_cq_drain(self->vp, cqe, 64)))
		for (i = 0; i < n; i++)
			finals[cqe[i].cookie]++;
	for (i = 0; i < CHAINS; i++)
		EXPECT_EQ(1, finals[i]) TH_LOG("chain %u", i);
	th_eng_stats_read(&self->vp->ev, &st);
	EXPECT_EQ(posted_rounds, st.chains_done);
	EXPECT_EQ(CHAINS, st.chains_posted);
	EXPECT_EQ(0, self->vp->ev.cq_reserved);
	EXPECT_EQ(0, th_atomic_read(&self->vp->ev.user->chains));
	TH_LOG("%llu rounds", (unsigned long long)posted_rounds);
}

TEST_HARNESS_MAIN
