// SPDX-License-Identifier: GPL-2.0
/*
 * latency_test.c - per-hop latency of triggered PUTs, printed, never
 * asserted: nodes A and B play ping-pong with no host code in the loop.
 * A's chain k fires when A's counter reaches k + 1 and PUTs to B,
 * incrementing B's counter, which fires B's chain k, whose PUT increments
 * A's counter ... ROUNDS round trips, all pre-posted with increasing
 * thresholds; one CT_INC on A starts it.  The data is checked too.
 */
#include <stdlib.h>

#include "kselftest_harness.h"
#include "th_nic_util.h"

#define NODE_A	14
#define NODE_B	15
#define ROUNDS	500		/* chains per side: within SQ and CQ */
#define REPEATS	5
#define MSG	8

FIXTURE(pp) {
	int fda, fdb;
	struct thn_vport a, b;
	__u64 *abuf, *bbuf;	/* [0]: what arrives, [1 + k]: what leaves */
	struct thn_key akey, bkey;
};

FIXTURE_SETUP(pp)
{
	self->fda = thn_open(NODE_A);
	ASSERT_LE(0, self->fda);
	self->fdb = thn_open(NODE_B);
	ASSERT_LE(0, self->fdb);
	ASSERT_EQ(0, thn_vport_open(self->fda, 0, 0, &self->a));
	ASSERT_EQ(0, thn_vport_open(self->fdb, 0, 0, &self->b));
	self->abuf = thn_alloc((ROUNDS + 1) * MSG);
	self->bbuf = thn_alloc((ROUNDS + 1) * MSG);
	ASSERT_NE(NULL, self->abuf);
	ASSERT_NE(NULL, self->bbuf);
	ASSERT_EQ(0, thn_mr_reg(&self->a, self->abuf, (ROUNDS + 1) * MSG,
				TH_NIC_ACCESS_ALL, &self->akey));
	ASSERT_EQ(0, thn_mr_reg(&self->b, self->bbuf, (ROUNDS + 1) * MSG,
				TH_NIC_ACCESS_ALL, &self->bkey));
}

FIXTURE_TEARDOWN(pp)
{
	close(self->fda);
	close(self->fdb);
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* Post one side's ROUNDS chains: chain k waits for (base + k + 1). */
static int post_side(struct thn_vport *me, __u32 mykey, __u32 node,
		     struct thn_vport *peer, __u64 peer_key, __u64 base,
		     bool last_notifies)
{
	struct th_nic_desc d[2];
	__u32 k;
	int ret;

	for (k = 0; k < ROUNDS; k++) {
		d[0] = thn_put_ct(mykey, (1 + k) * MSG, node, peer->id,
				  peer_key, 0, MSG, 0);
		thn_trigger(&d[0], 0, base + k + 1, k);
		if (last_notifies && k == ROUNDS - 1) {
			d[1] = thn_notify(k);
			thn_link(d, 2);
			ret = thn_post(me, d, 2, NULL);
		} else {
			ret = thn_post(me, d, 1, NULL);
		}
		if (ret)
			return ret;
	}
	return 0;
}

TEST_F_TIMEOUT(pp, triggered_put_ping_pong, 120)
{
	__u64 hop_ns[REPEATS], t0, t1, base_a, base_b;
	struct th_nic_ct_wait w;
	struct th_nic_cqe cqe;
	unsigned int rep, k;

	for (k = 0; k < ROUNDS; k++) {
		self->abuf[1 + k] = 0xa000000000000000ULL | k;
		self->bbuf[1 + k] = 0xb000000000000000ULL | k;
	}
	for (rep = 0; rep < REPEATS; rep++) {
		/* A's counter ends each repeat at ROUNDS + 1, B's at ROUNDS */
		base_a = (__u64)rep * (ROUNDS + 1);
		base_b = (__u64)rep * ROUNDS;
		ASSERT_EQ(0, post_side(&self->a, self->akey.l, NODE_B, &self->b,
				       self->bkey.r, base_a, false));
		/* B's chain k answers A's PUT k: it fires at base_b + k + 1 */
		ASSERT_EQ(0, post_side(&self->b, self->bkey.l, NODE_A, &self->a,
				       self->akey.r, base_b, true));
		EXPECT_EQ(base_a, thn_ct(&self->a, 0));
		t0 = thn_now_ns();
		ASSERT_EQ(0, thn_ct_inc(&self->a, 0, 1));	/* serve */
		ASSERT_EQ(0, thn_ct_wait(&self->a, 0, base_a + ROUNDS + 1,
					 30000000000ULL, &w));
		t1 = thn_now_ns();
		hop_ns[rep] = (t1 - t0) / (2 * ROUNDS);
		ASSERT_EQ(1, thn_cq_wait(&self->b, &cqe, 1, THN_WAIT_MS));
		EXPECT_EQ(0, cqe.status);
		EXPECT_EQ(ROUNDS - 1, cqe.cookie);
		EXPECT_EQ(base_b + ROUNDS, thn_ct(&self->b, 0));
		/* the last ball each side received */
		EXPECT_EQ(0xa000000000000000ULL | (ROUNDS - 1), self->bbuf[0]);
		EXPECT_EQ(0xb000000000000000ULL | (ROUNDS - 1), self->abuf[0]);
		self->abuf[0] = 0;
		self->bbuf[0] = 0;
	}
	qsort(hop_ns, REPEATS, sizeof(hop_ns[0]), cmp_u64);
	thn_msg("latency: triggered PUT ping-pong node %d <-> node %d, %d-byte messages, %d round trips x %d: %.2f us per hop (median), %.2f us min, %.2f us max\n",
		NODE_A, NODE_B, MSG, ROUNDS, REPEATS, hop_ns[REPEATS / 2] / 1e3, hop_ns[0] / 1e3,
		hop_ns[REPEATS - 1] / 1e3);
}

/*
 * The same ping-pong driven by the two hosts (CT_WAIT, then CT_INC the
 * peer's chain by hand), for comparison: the offload should be faster.
 */
TEST_F(pp, host_driven_ping_pong_for_comparison)
{
	struct th_nic_desc d;
	__u64 t0, t1;
	unsigned int k, n = 100;

	t0 = thn_now_ns();
	for (k = 0; k < n; k++) {
		d = thn_put_ct(self->akey.l, MSG, NODE_B, self->b.id, self->bkey.r,
			       0, MSG, 0);
		ASSERT_EQ(0, thn_post(&self->a, &d, 1, NULL));
		ASSERT_EQ(0, thn_ct_wait(&self->b, 0, k + 1, 5000000000ULL,
					 NULL));
		d = thn_put_ct(self->bkey.l, MSG, NODE_A, self->a.id, self->akey.r,
			       0, MSG, 0);
		ASSERT_EQ(0, thn_post(&self->b, &d, 1, NULL));
		ASSERT_EQ(0, thn_ct_wait(&self->a, 0, k + 1, 5000000000ULL,
					 NULL));
	}
	t1 = thn_now_ns();
	thn_msg("latency: host-driven PUT ping-pong (doorbell + CT_WAIT per hop, one process): %.2f us per hop\n",
		(t1 - t0) / 1e3 / (2 * n));
}

TEST_HARNESS_MAIN
