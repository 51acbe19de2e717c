// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_nic_time.c - NIC time (Documentation/security.rst "NIC time"): a
 * re-arming chain runs at most rearm_rounds rounds between two host
 * actions of its vport's user.  A chain that re-fires itself parks after
 * them (rounds_parked), loses nothing, and resumes at the host's next
 * doorbell, counter update, CT_WAIT or CANCEL on its vport; a plan whose
 * every round starts from a host increment never parks, nor a chain
 * driven by a peer vport of the same user.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "th_test.h"

#define ROUNDS	5	/* rearm_rounds of these fabrics */

FIXTURE(nic_time) {
	struct th_ipf *fab;
	struct th_ipf_vport *vp, *peer;
};

FIXTURE_SETUP(nic_time)
{
	struct th_eng_limits lim = th_t_limits(2);
	int err = 0;

	lim.rearm_rounds = ROUNDS;
	self->fab = th_ipf_create(&lim, NULL, &err);
	ASSERT_NE(NULL, self->fab);
	self->vp = th_t_vport(self->fab, 0, 0, 0, &err);
	ASSERT_NE(NULL, self->vp);
	self->peer = th_t_vport(self->fab, 1, 0, 0, &err);
	ASSERT_NE(NULL, self->peer);
}

FIXTURE_TEARDOWN(nic_time)
{
	th_ipf_destroy(self->fab);
}

static int inc(struct th_ipf_vport *vp, u32 ct, u64 v)
{
	return th_t_ct_update(vp, ct, TH_ENG_CT_INC, v, 0);
}

/* The self-sustaining loop: on @ct >= 1, [CT_INC @ct; REARM 1]. */
static int post_self_loop(struct th_ipf_vport *vp, u16 ct, u64 cookie)
{
	struct th_nic_desc d[2];

	d[0] = thn_ct_op(TH_NIC_OP_CT_INC, ct, 1);
	d[1] = thn_rearm(1);
	thn_link(d, 2);
	thn_trigger(&d[0], ct, 1, cookie);
	return th_t_post(vp, d, 2, NULL);
}

TEST(limits_refuse_too_many_rounds)
{
	struct th_eng_limits lim = th_t_limits(1);
	struct th_ipf *f;
	int err = 0;

	lim.rearm_rounds = TH_ENG_MAX_REARM_ROUNDS + 1;
	f = th_ipf_create(&lim, NULL, &err);
	EXPECT_EQ(NULL, f);
	EXPECT_EQ(-EINVAL, err);
	if (f)
		th_ipf_destroy(f);
	/* 0 is the default */
	lim.rearm_rounds = 0;
	f = th_ipf_create(&lim, NULL, &err);
	ASSERT_NE(NULL, f);
	EXPECT_EQ(TH_ENG_DEF_REARM_ROUNDS, th_ipf_engine(f)->lim.rearm_rounds);
	th_ipf_destroy(f);
}

TEST_F(nic_time, self_loop_parks_and_resumes_at_each_host_action)
{
	struct th_nic_cqe cqe[4];
	struct th_eng_stats st;
	u64 s, fl;
	u32 n;

	ASSERT_EQ(0, post_self_loop(self->vp, 0, 9));
	/* one increment: ROUNDS rounds, each advancing ct0, then parked */
	ASSERT_EQ(0, inc(self->vp, 0, 1));
	th_eng_stats_read(&self->vp->ev, &st);
	EXPECT_EQ(ROUNDS, st.chains_done);
	EXPECT_EQ(1, st.rounds_parked);
	EXPECT_EQ(ROUNDS + 1, st.chains_fired);
	EXPECT_EQ(1 + ROUNDS, th_t_ct(self->vp, 0));
	EXPECT_EQ(0, th_t_ct_fail(self->vp, 0));
	/* nothing runs by itself: still parked a while later */
	usleep(50 * 1000);
	th_eng_stats_read(&self->vp->ev, &st);
	EXPECT_EQ(ROUNDS, st.chains_done);
	EXPECT_EQ(1 + ROUNDS, th_t_ct(self->vp, 0));
	EXPECT_EQ(0, th_t_cq_drain(self->vp, cqe, 4));
	EXPECT_EQ(1, self->vp->ev.accepted);

	/* an update of another counter is a host action: ROUNDS more */
	ASSERT_EQ(0, inc(self->vp, 7, 1));
	th_eng_stats_read(&self->vp->ev, &st);
	EXPECT_EQ(2 * ROUNDS, st.chains_done);
	EXPECT_EQ(2, st.rounds_parked);
	EXPECT_EQ(1 + 2 * ROUNDS, th_t_ct(self->vp, 0));

	/* CT_WAIT is one too, and an empty doorbell */
	EXPECT_EQ(0, th_t_ct_wait(self->vp, 0, 1, 0, &s, &fl));
	th_eng_stats_read(&self->vp->ev, &st);
	EXPECT_EQ(3 * ROUNDS, st.chains_done);
	ASSERT_EQ(0, th_t_post(self->vp, NULL, 0, NULL));
	th_eng_stats_read(&self->vp->ev, &st);
	EXPECT_EQ(4 * ROUNDS, st.chains_done);
	EXPECT_EQ(4, st.rounds_parked);
	EXPECT_EQ(1 + 4 * ROUNDS, th_t_ct(self->vp, 0));

	/* a cancel ends the parked round without running it: one entry */
	ASSERT_EQ(0, th_t_cancel(self->vp, true, 9, &n));
	EXPECT_EQ(1, n);
	ASSERT_EQ(1, th_t_cq_drain(self->vp, cqe, 4));
	EXPECT_EQ(9, cqe[0].cookie);
	EXPECT_EQ(-ECANCELED, cqe[0].status);
	EXPECT_EQ(TH_NIC_CQE_F_FINAL, cqe[0].flags);
	EXPECT_EQ(0, cqe[0].desc_index);
	th_eng_stats_read(&self->vp->ev, &st);
	EXPECT_EQ(4 * ROUNDS, st.chains_done);
	EXPECT_EQ(1, st.chains_cancelled);
	EXPECT_EQ(1 + 4 * ROUNDS, th_t_ct(self->vp, 0));
	EXPECT_EQ(0, self->vp->ev.accepted);
	EXPECT_EQ(0, self->vp->ev.running);
	EXPECT_EQ(0, th_atomic_read(&self->vp->ev.user->chains));
}

/* Destroying a vport with a parked round: it ends, nothing leaks. */
TEST_F(nic_time, parked_round_ends_with_its_vport)
{
	struct th_eng_stats st;

	ASSERT_EQ(0, post_self_loop(self->vp, 0, 1));
	ASSERT_EQ(0, post_self_loop(self->vp, 1, 2));
	ASSERT_EQ(0, inc(self->vp, 0, 1));
	ASSERT_EQ(0, inc(self->vp, 1, 1));
	th_eng_stats_read(&self->vp->ev, &st);
	EXPECT_LE(1, st.rounds_parked);
	EXPECT_EQ(2, self->vp->ev.running);
	th_ipf_vport_destroy(self->vp);
	self->vp = NULL;
	EXPECT_EQ(0, th_atomic_read(&self->peer->ev.user->chains));
}

/*
 * The offloaded collectives' shape: on S (the host's increment) the start
 * chain counts into U; on U the round's work writes a NOTIFY and raises
 * D.  Every round starts from a host increment, so no round ever parks,
 * however many rounds run.
 */
TEST_F(nic_time, host_started_plan_runs_every_round)
{
	enum { S = 0, U = 1, D = 2, NR = 1000 };
	struct th_nic_desc a[2], b[3];
	struct th_nic_cqe cqe[4];
	struct th_eng_stats st;
	u32 r, got = 0;

	a[0] = thn_ct_op(TH_NIC_OP_CT_INC, U, 1);
	a[1] = thn_rearm(1);
	thn_link(a, 2);
	thn_trigger(&a[0], S, 1, 1);
	b[0] = thn_notify(0);
	b[1] = thn_ct_op(TH_NIC_OP_CT_INC, D, 1);
	b[2] = thn_rearm(1);
	thn_link(b, 3);
	thn_trigger(&b[0], U, 1, 2);
	ASSERT_EQ(0, th_t_post(self->vp, a, 2, NULL));
	ASSERT_EQ(0, th_t_post(self->vp, b, 3, NULL));
	for (r = 0; r < NR; r++) {
		ASSERT_EQ(0, inc(self->vp, S, 1));
		got += th_t_cq_drain(self->vp, cqe, 4);
	}
	EXPECT_EQ(NR, got);
	EXPECT_EQ(NR, th_t_ct(self->vp, D));
	th_eng_stats_read(&self->vp->ev, &st);
	EXPECT_EQ(2 * NR, st.chains_done);
	EXPECT_EQ(0, st.rounds_parked);
}

/*
 * A chain driven by deliveries from a peer vport of the same user runs
 * every round: the host actions that start the peer's rounds are its
 * user's, and they give all the user's re-arming chains their rounds
 * back (a round trip between two vports, a tree of them: thctl place
 * --calibrate parked after 16 round trips when only the vport's own host
 * actions counted).
 */
TEST_F(nic_time, peer_driven_rounds_of_one_user_never_park)
{
	enum { U = 1, P = 3, NR = 3 * ROUNDS + 2 };
	struct th_nic_desc a[3], b[2];
	struct th_eng_stats st;
	static u8 buf[64];
	u8 one = 1;
	u64 rkey;
	u32 lkey, r;

	ASSERT_EQ(0, th_t_mr_reg(self->vp, buf, sizeof(buf),
				 TH_NIC_ACCESS_REMOTE_WRITE, &lkey, &rkey));
	/* peer: on P, write a byte to the vport raising its U */
	a[0] = thn_inline_remote(0, self->vp->ev.index, rkey, 0, &one, 1);
	a[0].flags |= TH_NIC_DF_REMOTE_CT;
	a[0].wr_inline.remote_ct = U;
	a[1] = thn_rearm(1);
	thn_link(a, 2);
	thn_trigger(&a[0], P, 1, 3);
	ASSERT_EQ(0, th_t_post(self->peer, a, 2, NULL));
	/* the vport: on U, count in counter 4 */
	b[0] = thn_ct_op(TH_NIC_OP_CT_INC, 4, 1);
	b[1] = thn_rearm(1);
	thn_link(b, 2);
	thn_trigger(&b[0], U, 1, 4);
	ASSERT_EQ(0, th_t_post(self->vp, b, 2, NULL));
	/* the peer's host drives NR rounds; this vport's host does nothing */
	for (r = 0; r < NR; r++)
		ASSERT_EQ(0, inc(self->peer, P, 1));
	EXPECT_EQ(NR, th_t_ct(self->vp, U));
	EXPECT_EQ(NR, th_t_ct(self->vp, 4));
	th_eng_stats_read(&self->vp->ev, &st);
	EXPECT_EQ(0, st.rounds_parked);
	EXPECT_EQ(NR, st.chains_done);
	EXPECT_EQ(0, th_t_ct_fail(self->vp, 4));
}

TEST_HARNESS_MAIN
