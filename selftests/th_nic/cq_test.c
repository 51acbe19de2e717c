// SPDX-License-Identifier: GPL-2.0
/*
 * cq_test.c - the CQ never overflows: chains reserve their entries when
 * posted, a post beyond the reservation is refused with -EAGAIN and
 * consumes nothing, draining makes room again; garbage ring indices from
 * userspace are clamped, and every accepted chain completes exactly once.
 */
#include <stdlib.h>

#include "kselftest_harness.h"
#include "th_nic_util.h"

#define NODE 10

FIXTURE(cq) {
	int fd;
	struct thn_vport v;	/* SQ 16, CQ 8 */
};

FIXTURE_SETUP(cq)
{
	self->fd = thn_open(NODE);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, thn_vport_open(self->fd, 16, 8, &self->v));
	ASSERT_EQ(7, self->v.cq_mask);
}

FIXTURE_TEARDOWN(cq)
{
	close(self->fd);
}

/* Wait until @n entries are in the CQ, without consuming them. */
static bool wait_pending(struct thn_vport *v, __u32 n)
{
	__u64 deadline = thn_now_ns() + THN_WAIT_MS * 1000000ULL;

	while (thn_cq_pending(v) < n && thn_now_ns() < deadline)
		thn_sleep_us(1000);
	return thn_cq_pending(v) == n;
}

/*
 * Each pending NOTIFY chain holds 2 entries (its NOTIFY, or one error
 * entry, plus one spare): four fill a CQ of 8.
 */
TEST_F(cq, reservation_refuses_with_eagain)
{
	struct th_nic_doorbell db;
	struct th_nic_cqe cqe[16];
	__u32 head, i;

	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, thn_post_notify(&self->v, 0, 1, i));
	head = thn_sq_head(&self->v);
	ASSERT_EQ(-EAGAIN, thn_post_notify(&self->v, 0, 1, 4));
	thn_doorbell(&self->v, &db);
	EXPECT_EQ(0, db.chains);
	EXPECT_EQ(0, db.descs);
	EXPECT_EQ(head, thn_sq_head(&self->v));
	EXPECT_EQ(1, *self->v.sq_tail - thn_sq_head(&self->v));
	EXPECT_EQ(0, thn_cq_pending(&self->v));

	/* the refused slot is still in the SQ: ring again after making room */
	ASSERT_EQ(0, thn_ct_inc(&self->v, 0, 1));
	ASSERT_TRUE(wait_pending(&self->v, 4));
	ASSERT_EQ(0, thn_doorbell(&self->v, &db));
	EXPECT_EQ(1, db.chains);	/* chain 4 fired at once */
	/* 5 entries written and unconsumed: one more pending chain fits */
	ASSERT_EQ(0, thn_post_notify(&self->v, 0, 2, 5));
	ASSERT_EQ(-EAGAIN, thn_post_notify(&self->v, 0, 2, 6));
	ASSERT_EQ(5, thn_cq_wait(&self->v, cqe, 5, THN_WAIT_MS));
	for (i = 0; i < 5; i++) {
		EXPECT_EQ(i, cqe[i].cookie);
		EXPECT_EQ(0, cqe[i].status);
	}
	/* after draining, posting works again */
	ASSERT_EQ(0, thn_doorbell(&self->v, &db));
	EXPECT_EQ(1, db.chains);
	ASSERT_EQ(0, thn_ct_inc(&self->v, 0, 1));
	ASSERT_EQ(2, thn_cq_wait(&self->v, cqe, 2, THN_WAIT_MS));
	EXPECT_EQ(5, cqe[0].cookie);
	EXPECT_EQ(6, cqe[1].cookie);
	EXPECT_EQ(0, thn_cq_pending(&self->v));
}

/* A chain writing no entry on success still holds one for its error. */
TEST_F(cq, silent_chains_hold_one_entry)
{
	struct th_nic_desc d;
	struct th_nic_cqe cqe[8];
	__u32 i, cancelled;

	for (i = 0; i < 8; i++) {
		d = thn_ct_op(TH_NIC_OP_CT_INC, 1, 1);
		thn_trigger(&d, 0, 1, i);
		ASSERT_EQ(0, thn_post(&self->v, &d, 1, NULL));
	}
	d = thn_ct_op(TH_NIC_OP_CT_INC, 1, 1);
	thn_trigger(&d, 0, 1, 8);
	ASSERT_EQ(-EAGAIN, thn_post(&self->v, &d, 1, NULL));
	thn_sq_rewind(&self->v);
	/* success writes nothing and frees every reservation */
	ASSERT_EQ(0, thn_ct_inc(&self->v, 0, 1));
	EXPECT_EQ(8, thn_ct(&self->v, 1));
	EXPECT_EQ(0, thn_cq_pending(&self->v));
	for (i = 0; i < 8; i++) {
		d = thn_ct_op(TH_NIC_OP_CT_INC, 1, 1);
		thn_trigger(&d, 0, 2, i);
		ASSERT_EQ(0, thn_post(&self->v, &d, 1, NULL));
	}
	/* cancelling writes the 8 reserved error entries: exactly full */
	ASSERT_EQ(0, thn_cancel(&self->v, false, 0, &cancelled));
	EXPECT_EQ(8, cancelled);
	ASSERT_EQ(8, thn_cq_wait(&self->v, cqe, 8, THN_WAIT_MS));
	for (i = 0; i < 8; i++)
		EXPECT_EQ(-ECANCELED, cqe[i].status);
	EXPECT_EQ(8, thn_ct_fail(&self->v, 1));
}

/* A chain that could never fit, however empty the CQ: -ENOSPC. */
TEST_F(cq, chain_larger_than_cq_is_enospc)
{
	struct th_nic_desc d[8];
	struct th_nic_doorbell db;
	__u32 i;

	for (i = 0; i < 8; i++)
		d[i] = thn_notify(i);
	thn_link(d, 8);		/* 8 NOTIFYs + 1 error entry = 9 > 8 */
	ASSERT_EQ(-ENOSPC, thn_post(&self->v, d, 8, &db));
	EXPECT_EQ(0, db.chains);
	thn_sq_rewind(&self->v);
	thn_link(d, 7);		/* 7 + 1 = 8 fits */
	d[6].flags &= ~TH_NIC_DF_LINK;
	ASSERT_EQ(0, thn_post(&self->v, d, 7, &db));
	ASSERT_EQ(7, thn_cq_wait(&self->v, NULL, 7, THN_WAIT_MS));
}

/*
 * A CQ head moved past the tail by userspace: the kernel trusts only its
 * bound and refuses posts rather than overwrite; restoring it heals.
 */
TEST_F(cq, garbage_cq_head_is_clamped)
{
	__u32 good = *self->v.cq_head;

	__atomic_store_n(self->v.cq_head, good + 1000, __ATOMIC_RELEASE);
	EXPECT_EQ(-EAGAIN, thn_post_notify(&self->v, 0, 0, 1));
	thn_sq_rewind(&self->v);
	__atomic_store_n(self->v.cq_head, good - 1000, __ATOMIC_RELEASE);
	EXPECT_EQ(-EAGAIN, thn_post_notify(&self->v, 0, 0, 2));
	thn_sq_rewind(&self->v);
	EXPECT_EQ(good, __atomic_load_n(self->v.cq_tail, __ATOMIC_ACQUIRE));
	__atomic_store_n(self->v.cq_head, good, __ATOMIC_RELEASE);
	EXPECT_EQ(0, thn_post_notify(&self->v, 0, 0, 3));
	EXPECT_EQ(1, thn_cq_wait(&self->v, NULL, 1, THN_WAIT_MS));
}

/* An SQ tail far ahead of the head: one ring's worth is considered. */
TEST_F(cq, garbage_sq_tail_is_clamped)
{
	struct th_nic_doorbell db;
	__u32 head = thn_sq_head(&self->v), i;

	for (i = 0; i < 16; i++) {
		struct th_nic_desc d = thn_notify(i);

		thn_trigger(&d, 0, 0, i);
		memcpy(&self->v.sq_slots[(head + i) & self->v.sq_mask], &d,
		       sizeof(d));
	}
	__atomic_store_n(self->v.sq_tail, head + 0x7fffffffU, __ATOMIC_RELEASE);
	/* each NOTIFY chain needs 2 entries: 4 fit, then -EAGAIN */
	EXPECT_EQ(-EAGAIN, thn_doorbell(&self->v, &db));
	EXPECT_EQ(4, db.chains);
	EXPECT_EQ(4, db.descs);
	EXPECT_EQ(head + 4, thn_sq_head(&self->v));
	thn_sq_rewind(&self->v);
	EXPECT_EQ(4, thn_cq_wait(&self->v, NULL, 4, THN_WAIT_MS));
	/* and a tail behind the head reads as a full ring, also clamped */
	__atomic_store_n(self->v.sq_tail, thn_sq_head(&self->v) - 1,
			 __ATOMIC_RELEASE);
	EXPECT_EQ(-EAGAIN, thn_doorbell(&self->v, &db));
	EXPECT_GE(16U, db.descs);
	thn_sq_rewind(&self->v);
	thn_cq_wait(&self->v, NULL, 8, 100);
	EXPECT_EQ(0, thn_cq_pending(&self->v));
}

/*
 * Random posts, increments, failures and cancels: every accepted chain
 * completes exactly once, the CQ never holds more than its size, and the
 * refused ones were never seen.
 */
TEST_F(cq, every_accepted_chain_completes_exactly_once)
{
	enum { CHAINS = 2000, CTS = 4 };
	static __u8 seen[CHAINS], accepted[CHAINS];
	struct th_nic_cqe cqe[8];
	__u64 cookie = 0, finals = 0, acc = 0;
	unsigned int seed = 4242, i, n;
	__u32 cancelled;
	int ret;

	while (cookie < CHAINS) {
		int what = rand_r(&seed) % 10;
		__u16 ct = rand_r(&seed) % CTS;

		if (what < 6) {
			ret = thn_post_notify(&self->v, ct, rand_r(&seed) % 12,
					      cookie);
			if (ret) {
				ASSERT_EQ(-EAGAIN, ret);
				thn_sq_rewind(&self->v);
			} else {
				accepted[cookie] = 1;
				acc++;
			}
			cookie++;
		} else if (what < 8) {
			ASSERT_EQ(0, thn_ct_inc(&self->v, ct, rand_r(&seed) % 3));
		} else if (what == 8) {
			ASSERT_EQ(0, thn_cancel(&self->v, true,
						rand_r(&seed) % (cookie + 1),
						&cancelled));
		} else if (rand_r(&seed) % 4 == 0) {
			ASSERT_EQ(0, thn_ct_fail_inc(&self->v, ct, 1));
			ASSERT_EQ(0, thn_ct_set(&self->v, ct, 0, 0));
		}
		ASSERT_GE(8U, thn_cq_pending(&self->v));
		/* drain only now and then, so the CQ runs full */
		if (rand_r(&seed) % 3)
			continue;
		n = thn_cq_drain(&self->v, cqe, 8);
		for (i = 0; i < n; i++) {
			ASSERT_EQ(TH_NIC_CQE_F_FINAL, cqe[i].flags);
			ASSERT_GT(CHAINS, cqe[i].cookie);
			ASSERT_TRUE(accepted[cqe[i].cookie]);
			ASSERT_EQ(0, seen[cqe[i].cookie]++);
			finals++;
		}
	}
	ASSERT_EQ(0, thn_cancel(&self->v, false, 0, &cancelled));
	while ((n = thn_cq_wait(&self->v, cqe, 8, 100))) {
		for (i = 0; i < n; i++) {
			ASSERT_TRUE(accepted[cqe[i].cookie]);
			ASSERT_EQ(0, seen[cqe[i].cookie]++);
			finals++;
		}
	}
	EXPECT_EQ(acc, finals);
	for (i = 0; i < CHAINS; i++)
		ASSERT_EQ(accepted[i], seen[i]) TH_LOG("cookie %u", i);
	EXPECT_LT(CHAINS / 10, acc);
}

/* Chains that straddle the end of the SQ ring are read across the wrap. */
TEST_F(cq, chains_wrap_around_the_sq)
{
	struct th_nic_desc d[5];
	struct th_nic_cqe cqe[5];
	__u32 round, i, head;

	for (round = 0; round < 40; round++) {
		head = thn_sq_head(&self->v);
		/* 3 descriptors: some rounds start at slot 14 or 15 of 16 */
		d[0] = thn_ct_op(TH_NIC_OP_CT_INC, 2, 1);
		d[1] = thn_ct_op(TH_NIC_OP_CT_INC, 2, 10);
		d[2] = thn_notify(round * 100 + head);
		thn_link(d, 3);
		thn_trigger(&d[0], 0, 0, round);
		ASSERT_EQ(0, thn_post(&self->v, d, 3, NULL));
		ASSERT_EQ(head + 3, thn_sq_head(&self->v));
		ASSERT_EQ(1, thn_cq_wait(&self->v, cqe, 1, THN_WAIT_MS));
		EXPECT_EQ(round, cqe[0].cookie);
		EXPECT_EQ(round * 100 + head, cqe[0].imm);
		EXPECT_EQ(2, cqe[0].desc_index);
		EXPECT_EQ(11 * (round + 1), thn_ct(&self->v, 2));
	}
	for (i = 0; i < 5; i++)
		d[i] = thn_notify(i);
	thn_link(d, 5);
	EXPECT_EQ(0, thn_post(&self->v, d, 5, NULL));
	EXPECT_EQ(5, thn_cq_wait(&self->v, cqe, 5, THN_WAIT_MS));
}

TEST_HARNESS_MAIN
