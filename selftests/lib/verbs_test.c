// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * verbs_test.c - the libthverbs suite, through the public API only.  The
 * same binary runs on the host against the in-process provider and in the
 * test VM against th_nic.ko (the provider "auto" picks the kernel when
 * /dev/th_nic0 exists); TH_PROVIDER overrides.
 */
#include <errno.h>
#include <pthread.h>
#include <fenv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

#include "kselftest_harness.h"
#include <thverbs/verbs.h>

#define NODES_USED 3

FIXTURE(verbs) {
	struct th_device **devs;
	int ndev;
	struct th_context *ctx[NODES_USED];
	struct th_vport *vp[NODES_USED];
	struct th_chain *c;
	double buf[NODES_USED][128];
	struct th_mr *mr[NODES_USED];
};

FIXTURE_SETUP(verbs)
{
	int i, j;

	self->devs = th_device_list_get(NULL, &self->ndev);
	ASSERT_NE(NULL, self->devs);
	ASSERT_GE(self->ndev, NODES_USED);
	for (i = 0; i < NODES_USED; i++) {
		self->ctx[i] = th_device_open(self->devs[i]);
		ASSERT_NE(NULL, self->ctx[i]) TH_LOG("open: %s", strerror(errno));
		self->vp[i] = th_vport_create(self->ctx[i], NULL);
		ASSERT_NE(NULL, self->vp[i]);
		for (j = 0; j < 128; j++)
			self->buf[i][j] = i * 1000 + j;
		self->mr[i] = th_mr_reg(self->vp[i], self->buf[i],
					sizeof(self->buf[i]), TH_NIC_ACCESS_ALL);
		ASSERT_NE(NULL, self->mr[i]);
	}
	self->c = th_chain_create();
	ASSERT_NE(NULL, self->c);
}

FIXTURE_TEARDOWN(verbs)
{
	int i;

	th_chain_destroy(self->c);
	for (i = 0; i < NODES_USED; i++) {
		if (self->mr[i])
			th_mr_dereg(self->mr[i]);
		if (self->vp[i])
			th_vport_destroy(self->vp[i]);
		if (self->ctx[i])
			th_device_close(self->ctx[i]);
	}
	th_device_list_free(self->devs);
}

static struct th_remote remote_of(struct th_vport *vp, struct th_mr *mr,
				  uint64_t off)
{
	struct th_remote r = {
		.node = th_vport_node(vp), .vport = th_vport_index(vp),
		.rkey = th_mr_rkey(mr), .off = off,
	};
	return r;
}

TEST_F(verbs, devices_and_query)
{
	struct th_nic_query q;

	/* a context with vports cannot be closed */
	EXPECT_EQ(-EBUSY, th_device_close(self->ctx[0]));

	TH_LOG("provider %s, %d nodes", th_device_provider(self->devs[0]),
	       self->ndev);
	EXPECT_EQ(0, strcmp("th_nic1", th_device_name(self->devs[1])));
	EXPECT_EQ(2, th_device_node(self->devs[2]));
	ASSERT_EQ(0, th_device_query(self->ctx[1], &q));
	EXPECT_EQ(TH_NIC_ABI_VERSION, q.abi_version);
	EXPECT_EQ(1, q.node_id);
	EXPECT_EQ((uint32_t)self->ndev, q.node_count);
	EXPECT_EQ(7, q.max_operands);
	EXPECT_EQ(32, q.max_inline);
	EXPECT_EQ(TH_NIC_DESC_SIZE, q.desc_size);
	EXPECT_EQ(256, q.max_counters);
	EXPECT_EQ(16, q.max_chain);
	EXPECT_EQ(NULL, th_device_list_get("no-such-provider", NULL));
	EXPECT_EQ(EINVAL, errno);
	/* an extension bit this library does not know: refused, not ignored */
	{
		struct th_vport_attr va = { .comp_mask = 1 };

		EXPECT_EQ(NULL, th_vport_create(self->ctx[0], &va));
		EXPECT_EQ(EOPNOTSUPP, errno);
	}
}

TEST_F(verbs, put_fires_the_target_and_completes)
{
	struct th_remote dst = remote_of(self->vp[1], self->mr[1], 8 * 64);
	struct th_nic_cqe cqe[4];
	uint64_t s, f;
	int i;

	/* node 1 waits for two arrivals on counter 5, then notifies */
	ASSERT_EQ(0, th_chain_notify(self->c, 99, 0));
	ASSERT_EQ(0, th_chain_trigger(self->c, 5, 2, 0xb));
	ASSERT_EQ(0, th_post_chain(self->vp[1], self->c));
	th_chain_reset(self->c);

	ASSERT_EQ(0, th_chain_put(self->c, self->mr[0], 0, &dst, 8 * 16, 5,
				  TH_CHAIN_SIGNAL));
	ASSERT_EQ(0, th_chain_comp_ct(self->c, 1));
	ASSERT_EQ(0, th_chain_trigger(self->c, 0, 1, 0xa));
	ASSERT_EQ(0, th_post_chain(self->vp[0], self->c));
	EXPECT_EQ(0, th_poll_cq(self->vp[0], cqe, 4));	/* not started */

	ASSERT_EQ(0, th_ct_inc(self->vp[0], 0, 1));
	ASSERT_EQ(0, th_ct_wait(self->vp[0], 1, 1, 1000000000ULL));
	ASSERT_EQ(1, th_poll_cq(self->vp[0], cqe, 4));
	EXPECT_EQ(0xa, cqe[0].cookie);
	EXPECT_EQ(0, cqe[0].status);
	for (i = 0; i < 16; i++)
		ASSERT_EQ(i, self->buf[1][64 + i]);
	ASSERT_EQ(0, th_ct_read(self->vp[1], 5, &s, &f));
	EXPECT_EQ(1, s);
	EXPECT_EQ(0, f);
	EXPECT_EQ(0, th_poll_cq(self->vp[1], cqe, 4));

	/* a host increment supplies the second arrival */
	ASSERT_EQ(0, th_ct_inc(self->vp[1], 5, 1));
	ASSERT_EQ(1, th_poll_cq(self->vp[1], cqe, 4));
	EXPECT_EQ(0xb, cqe[0].cookie);
	EXPECT_EQ(99, cqe[0].imm);
	EXPECT_EQ(TH_NIC_CQE_F_FINAL, cqe[0].flags);
}

TEST_F(verbs, get_copy_inline_reduce)
{
	struct th_remote src = remote_of(self->vp[2], self->mr[2], 0);
	const struct th_mr *srcs[7];
	uint64_t offs[7];
	struct th_nic_cqe cqe;
	double want;
	int i, k;

	ASSERT_EQ(0, th_chain_get(self->c, self->mr[0], 0, &src, 8 * 8, 0));
	ASSERT_EQ(0, th_chain_copy(self->c, self->mr[0], 0, self->mr[0], 8 * 8,
				   8 * 8, 0));
	ASSERT_EQ(0, th_chain_write_inline(self->c, self->mr[0], 8 * 127,
					   "\x00\x00\x00\x00\x00\x00\xf0\x3f",
					   8, 0));
	/* 127 = 1.0 now; dst 16.. = sum of 7 slices of 8 (2000.. twice...) */
	for (k = 0; k < 7; k++) {
		srcs[k] = self->mr[0];
		offs[k] = 8 * 8 * k;
	}
	ASSERT_EQ(0, th_chain_reduce(self->c, TH_NIC_ALU_SUM, TH_NIC_DT_FLOAT64,
				     8, self->mr[0], 8 * 64, 7, srcs, offs,
				     false, 0));
	ASSERT_EQ(0, th_chain_notify(self->c, 0, 0));
	ASSERT_EQ(0, th_post_chain(self->vp[0], self->c));
	ASSERT_EQ(1, th_poll_cq(self->vp[0], &cqe, 1));
	ASSERT_EQ(0, cqe.status);
	EXPECT_EQ(1.0, self->buf[0][127]);
	for (i = 0; i < 8; i++) {
		EXPECT_EQ(2000 + i, self->buf[0][i]);
		EXPECT_EQ(2000 + i, self->buf[0][8 + i]);
		/* left to right: s0 + s1 + ... + s6 in double arithmetic */
		want = 2000 + i;
		want += 2000 + i;
		for (k = 2; k < 7; k++)
			want += 8 * k + i;
		EXPECT_EQ(want, self->buf[0][64 + i]);
	}
}

TEST_F(verbs, refused_chain_installs_nothing_and_names_the_descriptor)
{
	struct th_remote dst = remote_of(self->vp[1], self->mr[1], 0);
	struct th_nic_cqe cqe[2];
	unsigned int bad = 99;
	double before[128];

	memcpy(before, self->buf[1], sizeof(before));
	ASSERT_EQ(0, th_chain_notify(self->c, 1, 0));
	/* longer than the MR: refused at the doorbell */
	ASSERT_EQ(0, th_chain_put(self->c, self->mr[0], 8, &dst,
				  sizeof(self->buf[0]), 2, 0));
	EXPECT_EQ(-EINVAL, th_post_chain(self->vp[0], self->c));
	ASSERT_EQ(0, th_post_error(self->vp[0], &bad, NULL));
	EXPECT_EQ(1, bad);
	/* a trigger set before the descriptors, and one set twice */
	th_chain_reset(self->c);
	ASSERT_EQ(0, th_chain_trigger(self->c, 3, 1, 0xdead));
	ASSERT_EQ(0, th_chain_notify(self->c, 9, 0));
	ASSERT_EQ(0, th_chain_trigger(self->c, 3, 2, 0xbeef));
	ASSERT_EQ(0, th_post_chain(self->vp[0], self->c));
	EXPECT_EQ(-ENOENT, th_post_error(self->vp[0], &bad, NULL));
	ASSERT_EQ(0, th_ct_inc(self->vp[0], 3, 1));
	EXPECT_EQ(0, th_poll_cq(self->vp[0], cqe, 2));
	ASSERT_EQ(0, th_ct_inc(self->vp[0], 3, 1));
	ASSERT_EQ(1, th_poll_cq(self->vp[0], cqe, 2));
	EXPECT_EQ(0xbeef, cqe[0].cookie);
	EXPECT_EQ(0, th_poll_cq(self->vp[0], cqe, 2));
	EXPECT_EQ(0, memcmp(before, self->buf[1], sizeof(before)));
	/* the SQ was rewound: the next chain goes through */
	th_chain_reset(self->c);
	ASSERT_EQ(0, th_chain_notify(self->c, 2, 0));
	ASSERT_EQ(0, th_post_chain(self->vp[0], self->c));
	ASSERT_EQ(1, th_poll_cq(self->vp[0], cqe, 2));
	EXPECT_EQ(2, cqe[0].imm);
}

TEST_F(verbs, staged_chains_reach_the_nic_with_one_doorbell)
{
	struct th_vport_attr attr = { .sq_entries = 16, .cq_entries = 64 };
	struct th_nic_cqe cqe[32];
	struct th_vport *small;
	unsigned int bad = 99, i;
	int n;

	small = th_vport_create(self->ctx[0], &attr);
	ASSERT_NE(NULL, small);
	/* 20 one-descriptor chains through a 16-slot SQ: staging rings when full */
	for (i = 0; i < 20; i++) {
		th_chain_reset(self->c);
		ASSERT_EQ(0, th_chain_notify(self->c, i, 0));
		ASSERT_EQ(0, th_stage_chain(small, self->c));
	}
	ASSERT_EQ(0, th_ring_doorbell(small));
	n = th_poll_cq(small, cqe, 32);
	ASSERT_EQ(20, n);
	for (i = 0; i < 20; i++)
		EXPECT_EQ(i, cqe[i].imm);
	/* good, bad, good: the first is taken, the rest withdrawn */
	th_chain_reset(self->c);
	ASSERT_EQ(0, th_chain_notify(self->c, 100, 0));
	ASSERT_EQ(0, th_stage_chain(small, self->c));
	th_chain_reset(self->c);
	ASSERT_EQ(0, th_chain_nop(self->c, 0));
	ASSERT_EQ(0, th_chain_ct_inc(self->c, 300, 1, 0));	/* no counter 300 */
	ASSERT_EQ(0, th_stage_chain(small, self->c));
	th_chain_reset(self->c);
	ASSERT_EQ(0, th_chain_notify(self->c, 102, 0));
	ASSERT_EQ(0, th_stage_chain(small, self->c));
	EXPECT_EQ(-EINVAL, th_ring_doorbell(small));
	ASSERT_EQ(0, th_post_error(small, &bad, NULL));
	EXPECT_EQ(1, bad);
	ASSERT_EQ(1, th_poll_cq(small, cqe, 32));
	EXPECT_EQ(100, cqe[0].imm);
	EXPECT_EQ(0, th_ring_doorbell(small));		/* nothing left staged */
	EXPECT_EQ(0, th_poll_cq(small, cqe, 32));
	EXPECT_EQ(0, th_vport_destroy(small));
}

TEST_F(verbs, builder_refuses_what_cannot_be_encoded)
{
	const struct th_mr *srcs[8];
	uint64_t offs[8] = { 0 };
	int i;

	for (i = 0; i < 8; i++)
		srcs[i] = self->mr[0];
	EXPECT_EQ(-EINVAL, th_chain_reduce(self->c, TH_NIC_ALU_SUM,
					   TH_NIC_DT_INT32, 4, self->mr[0], 0,
					   8, srcs, offs, false, 0));
	EXPECT_EQ(-EINVAL, th_post_chain(self->vp[0], self->c));
	th_chain_reset(self->c);
	EXPECT_EQ(-EINVAL, th_chain_write_inline(self->c, self->mr[0], 0,
						 offs, 33, 0));
	th_chain_reset(self->c);
	EXPECT_EQ(-EINVAL, th_chain_comp_ct(self->c, 1));	/* no descriptor */
	th_chain_reset(self->c);
	for (i = 0; i < 17; i++)
		ASSERT_EQ(0, th_chain_nop(self->c, 0));
	/* the builder holds it; the NIC's max_chain (16) refuses it */
	EXPECT_EQ(-EINVAL, th_post_chain(self->vp[0], self->c));
	th_chain_reset(self->c);
	EXPECT_EQ(-EINVAL, th_post_chain(self->vp[0], self->c));	/* empty */
}

TEST_F(verbs, counters_wait_fail_and_cancel)
{
	struct th_nic_cqe cqe[4];
	uint64_t s, f;

	EXPECT_EQ(-ETIMEDOUT, th_ct_wait(self->vp[0], 9, 1, 1000000));
	ASSERT_EQ(0, th_ct_set(self->vp[0], 9, 41, 0));
	ASSERT_EQ(0, th_ct_inc(self->vp[0], 9, 1));
	EXPECT_EQ(0, th_ct_wait(self->vp[0], 9, 42, 0));
	EXPECT_EQ(-EINVAL, th_ct_read(self->vp[0], 256, &s, &f));
	EXPECT_EQ(-EINVAL, th_ct_inc(self->vp[0], 256, 1));

	ASSERT_EQ(0, th_chain_notify(self->c, 0, 0));
	ASSERT_EQ(0, th_chain_trigger(self->c, 10, 5, 1));
	ASSERT_EQ(0, th_post_chain(self->vp[0], self->c));
	ASSERT_EQ(0, th_chain_trigger(self->c, 10, 5, 2));
	ASSERT_EQ(0, th_post_chain(self->vp[0], self->c));
	ASSERT_EQ(0, th_chain_trigger(self->c, 11, 5, 3));
	ASSERT_EQ(0, th_post_chain(self->vp[0], self->c));
	EXPECT_EQ(1, th_cancel(self->vp[0], 2));
	ASSERT_EQ(1, th_poll_cq(self->vp[0], cqe, 4));
	EXPECT_EQ(2, cqe[0].cookie);
	EXPECT_EQ(-ECANCELED, cqe[0].status);
	/* a failure value fails the waiters on counter 10 and CT_WAIT */
	ASSERT_EQ(0, th_ct_fail(self->vp[0], 10, 1));
	ASSERT_EQ(1, th_poll_cq(self->vp[0], cqe, 4));
	EXPECT_EQ(-EIO, cqe[0].status);
	EXPECT_EQ(-EIO, th_ct_wait(self->vp[0], 10, 1, 1000000));
	EXPECT_EQ(1, th_cancel_all(self->vp[0]));
	ASSERT_EQ(1, th_poll_cq(self->vp[0], cqe, 4));
	EXPECT_EQ(3, cqe[0].cookie);
}

TEST_F(verbs, cq_full_is_eagain_and_recovers)
{
	struct th_vport *small;
	struct th_vport_attr attr = { .sq_entries = 16, .cq_entries = 4 };
	struct th_nic_cqe cqe[4];

	small = th_vport_create(self->ctx[0], &attr);
	ASSERT_NE(NULL, small);
	ASSERT_EQ(0, th_chain_notify(self->c, 0, 0));
	ASSERT_EQ(0, th_chain_trigger(self->c, 0, 1, 0));
	ASSERT_EQ(0, th_post_chain(small, self->c));
	ASSERT_EQ(0, th_post_chain(small, self->c));
	EXPECT_EQ(-EAGAIN, th_post_chain(small, self->c));
	ASSERT_EQ(0, th_ct_inc(small, 0, 1));
	ASSERT_EQ(2, th_poll_cq(small, cqe, 4));
	ASSERT_EQ(0, th_post_chain(small, self->c));
	ASSERT_EQ(1, th_poll_cq(small, cqe, 4));
	EXPECT_EQ(0, th_vport_destroy(small));
	/* bad sizes refused */
	attr.cq_entries = 3;
	EXPECT_EQ(NULL, th_vport_create(self->ctx[0], &attr));
	EXPECT_EQ(EINVAL, errno);
}

/*
 * th_post_error() speaks of the last post only: after a refusal by the
 * NIC, a post the library itself refuses (an empty chain) leaves nothing
 * to report.
 */
TEST_F(verbs, post_error_is_about_the_last_post)
{
	unsigned int bad = 99, reason = 99;

	ASSERT_EQ(0, th_chain_notify(self->c, 0, 0));
	ASSERT_EQ(0, th_chain_comp_ct(self->c, 4096));	/* out of range */
	ASSERT_EQ(-EINVAL, th_post_chain(self->vp[0], self->c));
	ASSERT_EQ(0, th_post_error(self->vp[0], &bad, &reason));
	EXPECT_EQ(0, bad);
	EXPECT_EQ(TH_NIC_REFUSE_COUNTER, reason);
	th_chain_reset(self->c);
	EXPECT_EQ(-EINVAL, th_post_chain(self->vp[0], self->c));
	EXPECT_EQ(-ENOENT, th_post_error(self->vp[0], &bad, &reason));
}

/*
 * A key the target does not grant fails the PUT when it runs, touches
 * nothing, and puts the initiating vport into the error state: later posts
 * are refused with -ENOTCONN until it is destroyed.
 */
TEST_F(verbs, deregistered_and_foreign_keys_fail_at_run_time)
{
	struct th_remote dst = remote_of(self->vp[1], self->mr[1], 0);
	struct th_nic_cqe cqe;
	struct th_mr *ro;
	double before[128];
	unsigned int reason = 0;

	memcpy(before, self->buf[1], sizeof(before));
	/* a region without remote write cannot be put into */
	ASSERT_EQ(0, th_mr_dereg(self->mr[1]));
	self->mr[1] = NULL;
	ro = th_mr_reg(self->vp[1], self->buf[1], sizeof(self->buf[1]),
		       TH_NIC_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, ro);
	dst.rkey = th_mr_rkey(ro);
	ASSERT_EQ(0, th_chain_put(self->c, self->mr[0], 0, &dst, 64, TH_NO_CT,
				  0));
	ASSERT_EQ(0, th_post_chain(self->vp[0], self->c));
	ASSERT_EQ(1, th_poll_cq(self->vp[0], &cqe, 1));
	EXPECT_EQ(-EACCES, cqe.status);
	/* the violation put node 0's vport into the error state */
	EXPECT_EQ(-ENOTCONN, th_post_chain(self->vp[0], self->c));
	ASSERT_EQ(0, th_post_error(self->vp[0], NULL, &reason));
	EXPECT_EQ(TH_NIC_REFUSE_VPORT_ERROR, reason);
	ASSERT_EQ(0, th_mr_dereg(ro));
	/* and a deregistered key is unknown, from node 2 */
	th_chain_reset(self->c);
	ASSERT_EQ(0, th_chain_put(self->c, self->mr[2], 0, &dst, 64, TH_NO_CT,
				  0));
	ASSERT_EQ(0, th_post_chain(self->vp[2], self->c));
	ASSERT_EQ(1, th_poll_cq(self->vp[2], &cqe, 1));
	EXPECT_EQ(-EACCES, cqe.status);
	EXPECT_EQ(0, memcmp(before, self->buf[1], sizeof(before)));
	EXPECT_EQ(NULL, th_mr_reg(self->vp[1], self->buf[0], 0, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(NULL, th_mr_reg(self->vp[1], self->buf[0], 8, 1 << 7));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(verbs, destroyed_peer_fails_its_waiters)
{
	struct th_remote dst = remote_of(self->vp[1], self->mr[1], 0);
	struct th_nic_cqe cqe;

	/* node 1 waits for node 2's put, which will never come */
	ASSERT_EQ(0, th_chain_notify(self->c, 0, 0));
	ASSERT_EQ(0, th_chain_trigger(self->c, 4, 1, 77));
	ASSERT_EQ(0, th_post_chain(self->vp[1], self->c));
	th_chain_reset(self->c);
	ASSERT_EQ(0, th_chain_put(self->c, self->mr[2], 0, &dst, 8, 4, 0));
	ASSERT_EQ(0, th_chain_trigger(self->c, 0, 1, 0));
	ASSERT_EQ(0, th_post_chain(self->vp[2], self->c));
	ASSERT_EQ(0, th_mr_dereg(self->mr[2]));
	self->mr[2] = NULL;
	ASSERT_EQ(0, th_vport_destroy(self->vp[2]));
	self->vp[2] = NULL;
	ASSERT_EQ(1, th_poll_cq(self->vp[1], &cqe, 1));
	EXPECT_EQ(77, cqe.cookie);
	EXPECT_EQ(-EIO, cqe.status);
	EXPECT_NE(NULL, th_strerror(cqe.status));
}

/* One PUT of 64 bytes from @from to (@to, @mr): its completion status. */
static int put_status(struct th_chain *c, struct th_vport *from,
		      struct th_mr *src, struct th_vport *to, struct th_mr *dst)
{
	struct th_remote r = remote_of(to, dst, 0);
	struct th_nic_cqe cqe;
	int ret;

	th_chain_reset(c);
	ret = th_chain_put(c, src, 0, &r, 64, TH_NO_CT, TH_CHAIN_SIGNAL);
	if (!ret)
		ret = th_post_chain(from, c);
	if (ret)
		return ret;
	if (th_poll_cq(from, &cqe, 1) != 1)
		return -EIO;	/* chains run before the post returns here */
	return cqe.status;
}

/*
 * Vports of a domain reach each other; vports outside it see them as
 * absent (-ECONNREFUSED, no error state), and they see nothing outside.
 */
TEST_F(verbs, domains_isolate_their_vports)
{
	struct th_domain *dom, *again;
	struct th_vport_attr attr = { 0 };
	struct th_vport *d1, *d2, *d3 = NULL;
	struct th_mr *m1, *m2, *m3 = NULL;
	double b1[16] = { 0 }, b2[16], b3[16];
	int i, fd;

	dom = th_domain_alloc(self->ctx[1]);
	ASSERT_NE(NULL, dom);
	attr.domain = dom;
	d1 = th_vport_create(self->ctx[1], &attr);
	d2 = th_vport_create(self->ctx[2], &attr);
	ASSERT_NE(NULL, d1);
	ASSERT_NE(NULL, d2);
	for (i = 0; i < 16; i++)
		b2[i] = 100 + i;
	m1 = th_mr_reg(d1, b1, sizeof(b1), TH_NIC_ACCESS_ALL);
	m2 = th_mr_reg(d2, b2, sizeof(b2), TH_NIC_ACCESS_ALL);
	ASSERT_NE(NULL, m1);
	ASSERT_NE(NULL, m2);

	/* the default domain cannot reach in, and may go on trying */
	EXPECT_EQ(-ECONNREFUSED, put_status(self->c, self->vp[0], self->mr[0],
					    d1, m1));
	EXPECT_EQ(-ECONNREFUSED, put_status(self->c, self->vp[0], self->mr[0],
					    d1, m1));
	EXPECT_EQ(0, b1[0]);
	/* inside, a PUT lands */
	EXPECT_EQ(0, put_status(self->c, d2, m2, d1, m1));
	EXPECT_EQ(100, b1[0]);
	EXPECT_EQ(107, b1[7]);
	/* and the domain cannot reach out */
	EXPECT_EQ(-ECONNREFUSED, put_status(self->c, d1, m1, self->vp[1],
					    self->mr[1]));
	EXPECT_EQ(1000, self->buf[1][0]);

	/* a domain travels as a descriptor only on the kernel provider */
	fd = th_domain_fd(dom);
	if (!strcmp(th_device_provider(self->devs[0]), "kernel")) {
		ASSERT_LE(0, fd);
		again = th_domain_import(self->ctx[0], fd);
		ASSERT_NE(NULL, again);
		attr.domain = again;
		d3 = th_vport_create(self->ctx[0], &attr);
		ASSERT_NE(NULL, d3);
		for (i = 0; i < 16; i++)
			b3[i] = 300 + i;
		m3 = th_mr_reg(d3, b3, sizeof(b3), TH_NIC_ACCESS_ALL);
		ASSERT_NE(NULL, m3);
		EXPECT_EQ(0, put_status(self->c, d3, m3, d1, m1));
		EXPECT_EQ(300, b1[0]);
		EXPECT_EQ(0, th_domain_dealloc(again));
	} else {
		EXPECT_EQ(-EOPNOTSUPP, fd);
		EXPECT_EQ(NULL, th_domain_import(self->ctx[0], 0));
		EXPECT_EQ(EOPNOTSUPP, errno);
	}
	/* the handle can go: its vports keep the domain */
	EXPECT_EQ(0, th_domain_dealloc(dom));
	EXPECT_EQ(0, put_status(self->c, d2, m2, d1, m1));
	if (d3) {
		th_mr_dereg(m3);
		th_vport_destroy(d3);
	}
	th_mr_dereg(m1);
	th_mr_dereg(m2);
	th_vport_destroy(d1);
	th_vport_destroy(d2);
}

/*
 * Memory registration refuses, on both providers, what the module cannot
 * pin: NULL, unmapped, inaccessible, half-mapped, kernel addresses, and
 * read-only memory for writing.
 */
TEST_F(verbs, registration_refuses_memory_the_nic_cannot_use)
{
	long page = sysconf(_SC_PAGESIZE);
	struct th_mr *mr;
	char *p, *ro;

	EXPECT_EQ(NULL, th_mr_reg(self->vp[0], NULL, page, TH_NIC_ACCESS_ALL));
	EXPECT_EQ(EFAULT, errno);
	p = mmap(NULL, 2 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(NULL, th_mr_reg(self->vp[0], p, page, 0));
	EXPECT_EQ(EFAULT, errno);
	ASSERT_EQ(0, mprotect(p, page, PROT_READ | PROT_WRITE));
	EXPECT_EQ(NULL, th_mr_reg(self->vp[0], p, 2 * page, TH_NIC_ACCESS_ALL));
	EXPECT_EQ(EFAULT, errno);
	mr = th_mr_reg(self->vp[0], p, page, TH_NIC_ACCESS_ALL);
	ASSERT_NE(NULL, mr);
	EXPECT_EQ(0, th_mr_dereg(mr));
	ASSERT_EQ(0, munmap(p, 2 * page));
	EXPECT_EQ(NULL, th_mr_reg(self->vp[0], p, page, 0));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(NULL, th_mr_reg(self->vp[0], (void *)0xffff888000000000ULL,
				  page, 0));
	EXPECT_EQ(EFAULT, errno);
	/* read-only memory: for reading yes, for writing no */
	ro = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	EXPECT_EQ(NULL, th_mr_reg(self->vp[0], ro, page,
				  TH_NIC_ACCESS_LOCAL_WRITE));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(NULL, th_mr_reg(self->vp[0], ro, page,
				  TH_NIC_ACCESS_REMOTE_WRITE));
	EXPECT_EQ(EFAULT, errno);
	mr = th_mr_reg(self->vp[0], ro, page, TH_NIC_ACCESS_REMOTE_READ);
	ASSERT_NE(NULL, mr);
	EXPECT_EQ(0, th_mr_dereg(mr));
	munmap(ro, page);
}

/*
 * A chain ending in th_chain_rearm() is posted once and moves data each
 * round, driven by counter increments alone, until cancelled.
 */
TEST_F(verbs, rearming_chain_runs_round_after_round)
{
	struct th_remote dst = remote_of(self->vp[1], self->mr[1], 0);
	struct th_nic_cqe cqe;
	uint64_t s;
	int round;

	EXPECT_EQ(-EINVAL, th_chain_rearm(self->c, 0, 0));
	th_chain_reset(self->c);
	ASSERT_EQ(0, th_chain_put(self->c, self->mr[0], 0, &dst, 8, 6, 0));
	ASSERT_EQ(0, th_chain_notify(self->c, 0, 0));
	ASSERT_EQ(0, th_chain_rearm(self->c, 1, 0));
	ASSERT_EQ(0, th_chain_trigger(self->c, 5, 1, 0x5e));
	ASSERT_EQ(0, th_post_chain(self->vp[0], self->c));
	for (round = 1; round <= 3; round++) {
		self->buf[0][0] = round * 1.5;
		ASSERT_EQ(0, th_ct_inc(self->vp[0], 5, 1));
		ASSERT_EQ(0, th_ct_wait(self->vp[1], 6, round, 5000000000ULL));
		EXPECT_EQ(round * 1.5, self->buf[1][0]);
		ASSERT_EQ(1, th_poll_cq(self->vp[0], &cqe, 1));
		EXPECT_EQ(0, cqe.status);
		EXPECT_EQ(0, cqe.flags);
	}
	EXPECT_EQ(1, th_cancel(self->vp[0], 0x5e));
	ASSERT_EQ(1, th_poll_cq(self->vp[0], &cqe, 1));
	EXPECT_EQ(-ECANCELED, cqe.status);
	ASSERT_EQ(0, th_ct_inc(self->vp[0], 5, 1));
	ASSERT_EQ(0, th_ct_read(self->vp[1], 6, &s, NULL));
	EXPECT_EQ(3, s);
}

/* Sum of @n floats left to right, under whatever mode the caller set. */
static float sum_left_to_right(const float *v, int n)
{
	volatile float acc = v[0];
	int i;

	for (i = 1; i < n; i++)
		acc = acc + v[i];
	return acc;
}

/*
 * The ALU computes under the default floating-point environment whatever
 * mode the posting thread runs in (rounding up, flush-to-zero,
 * denormals-are-zero), so results are the same bits on both providers,
 * and the thread's own mode is left as it was.
 */
TEST_F(verbs, alu_ignores_the_callers_floating_point_mode)
{
	float *buf = (float *)self->buf[0];	/* 256 floats */
	float want[4];
	const struct th_mr *src[2] = { self->mr[0], self->mr[0] };
	uint64_t soff[2] = { 0, 16 };
	int i;

	/* operands whose sum rounds, and denormals */
	buf[0] = 1.0f;
	buf[4] = 1e-8f;
	buf[1] = 1e-40f;
	buf[5] = 1e-40f;
	buf[2] = 3.0f;
	buf[6] = 1.0f / 3.0f;
	buf[3] = -1.0f;
	buf[7] = 1e-8f;
	for (i = 0; i < 4; i++)
		want[i] = sum_left_to_right((const float[]){ buf[i], buf[4 + i] },
					    2);

	ASSERT_EQ(0, fesetround(FE_UPWARD));
#if defined(__x86_64__)
	_mm_setcsr(_mm_getcsr() | 0x8040);	/* FTZ and DAZ */
#endif
	ASSERT_EQ(0, th_chain_reduce(self->c, TH_NIC_ALU_SUM, TH_NIC_DT_FLOAT32, 4,
				     self->mr[0], 64, 2, src, soff, false, 0));
	ASSERT_EQ(0, th_post_chain(self->vp[0], self->c));
	EXPECT_EQ(FE_UPWARD, fegetround());
#if defined(__x86_64__)
	EXPECT_EQ(0x8040, _mm_getcsr() & 0x8040);
	_mm_setcsr(_mm_getcsr() & ~0x8040u);
#endif
	fesetround(FE_TONEAREST);
	ASSERT_EQ(0, th_ct_wait(self->vp[0], 0, 0, 0));
	/* bit for bit */
	EXPECT_EQ(0, memcmp(want, &buf[16], sizeof(want)));
}

/* th_strerror() reads an errno of either sign the same (issue K) */
/* Several threads creating and destroying vports of one context. */
struct churn {
	struct th_context *ctx;
	int failed;
};

static void *churn_vports(void *arg)
{
	struct churn *ch = arg;
	int i;

	for (i = 0; i < 200; i++) {
		struct th_vport *vp = th_vport_create(ch->ctx, NULL);

		if (!vp || th_vport_destroy(vp))
			ch->failed++;
	}
	return NULL;
}

/*
 * th_vport_create() and th_vport_destroy() are MT-Safe on one context: the
 * context's count of vports, which th_device_close() refuses on, ends at
 * what it started from however the threads interleave.
 */
TEST_F(verbs, vports_of_one_context_come_and_go_in_several_threads)
{
	struct churn ch[4];
	pthread_t t[4];
	int i;

	for (i = 0; i < 4; i++) {
		ch[i] = (struct churn){ .ctx = self->ctx[0] };
		ASSERT_EQ(0, pthread_create(&t[i], NULL, churn_vports, &ch[i]));
	}
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, pthread_join(t[i], NULL));
		EXPECT_EQ(0, ch[i].failed);
	}
	/* the fixture's one vport is still there: close is refused ... */
	EXPECT_EQ(-EBUSY, th_device_close(self->ctx[0]));
	/* ... until it goes, and then the count is exactly zero */
	ASSERT_EQ(0, th_mr_dereg(self->mr[0]));
	self->mr[0] = NULL;
	ASSERT_EQ(0, th_vport_destroy(self->vp[0]));
	self->vp[0] = NULL;
	EXPECT_EQ(0, th_device_close(self->ctx[0]));
	self->ctx[0] = NULL;
}

TEST(strerror_takes_either_sign)
{
	static const int errs[] = { EINVAL, EAGAIN, EACCES, ETIMEDOUT, ENOMEM, EBADF };
	unsigned int i;

	for (i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		TH_LOG("errno %d: '%s'", errs[i], th_strerror(errs[i]));
		EXPECT_STREQ(th_strerror(-errs[i]), th_strerror(errs[i]));
		EXPECT_EQ(NULL, strstr(th_strerror(errs[i]), "not an error code"));
	}
	EXPECT_STREQ("success", th_strerror(0));
}

/*
 * A malformed TH_PROVIDER: th_device_list_get() still fails with EINVAL,
 * and the library names the variable, its value and the choices on
 * stderr, once however often it is read (issue K).
 */
TEST(malformed_provider_env_is_named_once)
{
	char out[1024] = "";
	const char *want;
	FILE *cap = tmpfile();
	int saved, i, lines = 0;
	ssize_t n;

	ASSERT_NE(NULL, cap);
	saved = dup(STDERR_FILENO);
	ASSERT_LE(0, saved);
	ASSERT_LE(0, dup2(fileno(cap), STDERR_FILENO));
	setenv("TH_PROVIDER", "bogus", 1);
	for (i = 0; i < 3; i++) {
		errno = 0;
		if (th_device_list_get(NULL, NULL) || errno != EINVAL)
			break;
	}
	unsetenv("TH_PROVIDER");
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	EXPECT_EQ(3, i);
	n = pread(fileno(cap), out, sizeof(out) - 1, 0);
	fclose(cap);
	ASSERT_LE(0, n);
	out[n] = '\0';
	TH_LOG("stderr: %s", out);
	for (i = 0; out[i]; i++)
		lines += out[i] == '\n';
	EXPECT_EQ(1, lines);
	EXPECT_NE(NULL, strstr(out, "TH_PROVIDER='bogus'"));
	/*
	 * ofi is named only where the build has it: there, asking for it
	 * outside a thrun job is ENOTCONN; without it, an unknown name
	 */
	errno = 0;
	EXPECT_EQ(NULL, th_device_list_get("ofi", NULL));
	want = errno == ENOTCONN ? "expected kernel, inproc, ofi or auto" :
	       "expected kernel, inproc or auto";
	EXPECT_NE(NULL, strstr(out, want));
	/* an unknown name passed as an argument is the caller's to report */
	errno = 0;
	EXPECT_EQ(NULL, th_device_list_get("bogus", NULL));
	EXPECT_EQ(EINVAL, errno);
}

TEST_HARNESS_MAIN
