// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_exec.c - what chains do when they run: data moved by PUT, GET,
 * COPY, WRITE_INLINE and REDUCE across nodes, counters advanced on
 * delivery, and operations that fail at run time leaving memory untouched.
 */
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "kselftest_harness.h"
#include "th_test.h"

#define NODES 3

FIXTURE(exec) {
	struct th_ipf *fab;
	struct th_ipf_vport *vp[NODES];
	u32 key[NODES];
	u64 rkey[NODES];
	double buf[NODES][64];
};

FIXTURE_SETUP(exec)
{
	struct th_eng_limits lim = th_t_limits(NODES);
	int err = 0, i, j;

	self->fab = th_ipf_create(&lim, NULL, &err);
	ASSERT_NE(NULL, self->fab);
	for (i = 0; i < NODES; i++) {
		self->vp[i] = th_t_vport(self->fab, i, 0, 0, &err);
		ASSERT_NE(NULL, self->vp[i]);
		for (j = 0; j < 64; j++)
			self->buf[i][j] = i * 100 + j;
		ASSERT_EQ(0, th_t_mr_reg(self->vp[i], self->buf[i],
					 sizeof(self->buf[i]), TH_NIC_ACCESS_ALL,
					 &self->key[i], &self->rkey[i]));
	}
}

FIXTURE_TEARDOWN(exec)
{
	th_ipf_destroy(self->fab);
}

/* Node 0 puts to node 1, whose delivery fires node 1's put to node 2. */
TEST_F(exec, put_delivery_triggers_the_next_hop)
{
	struct th_nic_desc d[2];
	struct th_nic_cqe cqe[2];
	int j;

	d[0] = thn_put(self->key[1], 0, 2, 0, self->rkey[2], 8 * 32, 8 * 8);
	d[0].flags |= TH_NIC_DF_REMOTE_CT | TH_NIC_DF_SIGNAL;
	d[0].xfer.remote_ct = 4;
	thn_trigger(&d[0], 4, 1, 11);
	ASSERT_EQ(0, th_t_post(self->vp[1], d, 1, NULL));

	d[0] = thn_put(self->key[0], 0, 1, 0, self->rkey[1], 0, 8 * 8);
	d[0].flags |= TH_NIC_DF_REMOTE_CT | TH_NIC_DF_COMP_CT;
	d[0].xfer.remote_ct = 4;
	d[0].comp_ct = 1;
	ASSERT_EQ(0, th_t_post(self->vp[0], d, 1, NULL));

	for (j = 0; j < 8; j++) {
		ASSERT_EQ(j, self->buf[1][j]);
		ASSERT_EQ(j, self->buf[2][32 + j]);
	}
	EXPECT_EQ(208, self->buf[2][8]);	/* untouched around it */
	EXPECT_EQ(240, self->buf[2][40]);
	EXPECT_EQ(1, th_t_ct(self->vp[0], 1));
	EXPECT_EQ(1, th_t_ct(self->vp[1], 4));
	EXPECT_EQ(1, th_t_ct(self->vp[2], 4));
	ASSERT_EQ(1, th_t_cq_drain(self->vp[1], cqe, 2));
	EXPECT_EQ(11, cqe[0].cookie);
	EXPECT_EQ(0, cqe[0].status);
}

TEST_F(exec, get_copy_and_inline)
{
	struct th_nic_desc d[3];
	static const char word[] = "triggered";
	int j;

	d[0] = thn_get(self->key[0], 0, 2, 0, self->rkey[2], 0, 8 * 4);
	d[1] = thn_copy(self->key[0], 0, self->key[0], 8 * 2, 8 * 4);
	d[2] = thn_inline(self->key[0], 8 * 60, word, sizeof(word));
	thn_link(d, 3);
	ASSERT_EQ(0, th_t_post(self->vp[0], d, 3, NULL));
	/* GET brought 200..203, COPY moved them (overlapping) two slots up */
	EXPECT_EQ(200, self->buf[0][0]);
	EXPECT_EQ(201, self->buf[0][1]);
	for (j = 0; j < 4; j++)
		EXPECT_EQ(200 + j, self->buf[0][2 + j]);
	EXPECT_EQ(0, memcmp(&self->buf[0][60], word, sizeof(word)));

	/* remote inline with its control packet */
	d[0] = thn_inline_remote(1, 0, self->rkey[1], 0, "ab", 2);
	d[0].flags |= TH_NIC_DF_REMOTE_CT;
	d[0].wr_inline.remote_ct = 6;
	ASSERT_EQ(0, th_t_post(self->vp[0], d, 1, NULL));
	EXPECT_EQ(0, memcmp(self->buf[1], "ab", 2));
	EXPECT_EQ(1, th_t_ct(self->vp[1], 6));
}

/* REDUCE sums slots that children's puts fill, strided, into dst. */
TEST_F(exec, reduce_over_put_slots)
{
	struct th_nic_desc d[2];
	u32 k[3] = { 0 };
	u64 o[3] = { 0 };
	int j;

	/* nodes 1 and 2 put 8 doubles each into node 0 slots 16.. and 24.. */
	for (j = 1; j < NODES; j++) {
		d[0] = thn_put(self->key[j], 0, 0, 0, self->rkey[0],
				8 * (8 + 8 * j), 8 * 8);
		d[0].flags |= TH_NIC_DF_REMOTE_CT;
		d[0].xfer.remote_ct = 2;
		ASSERT_EQ(0, th_t_post(self->vp[j], d, 1, NULL));
	}
	EXPECT_EQ(2, th_t_ct(self->vp[0], 2));
	/* dst 40.. = own 8.. + slot 16.. + slot 24.. */
	d[0] = thn_reduce(TH_NIC_ALU_SUM, TH_NIC_DT_FLOAT64, 8, self->key[0],
			   8 * 40, 3, k, o);
	d[0].reduce.rflags = TH_NIC_RF_STRIDED;
	d[0].reduce.src_key[0] = self->key[0];
	d[0].reduce.src_off[0] = 8 * 8;		/* own data at 8.. */
	d[0].reduce.src_off[1] = 8 * 8;		/* then 16.., 24.. */
	thn_trigger(&d[0], 2, 2, 0);
	ASSERT_EQ(0, th_t_post(self->vp[0], d, 1, NULL));
	for (j = 0; j < 8; j++) {
		/* 8.. (own) + 16.. (node 1's 100..) + 24.. (node 2's 200..) */
		double want = (8 + j) + (100 + j) + (200 + j);

		ASSERT_EQ(want, self->buf[0][40 + j]);
	}
}

/*
 * Errors the target finds when a PUT runs: memory untouched, the counter
 * not raised.  A key or range violation also puts the initiator into the
 * error state (a vport that is merely gone does not): each row starts
 * from a fresh initiator.
 */
TEST_F(exec, run_time_errors_leave_memory_untouched)
{
	static const struct {
		const char *what;
		u64 rkey_xor;
		u32 vport;
		u64 roff;
		u32 access_peer;	/* re-register the target with this */
		int status;
		bool violation;
	} rows[] = {
		{ "unknown remote key", 0x40, 0, 0, TH_NIC_ACCESS_ALL, -EACCES,
		  true },
		{ "wrong random bits", 1ULL << 40, 0, 0, TH_NIC_ACCESS_ALL,
		  -EACCES, true },
		{ "no remote write", 0, 0, 0, TH_NIC_ACCESS_LOCAL_WRITE, -EACCES,
		  true },
		{ "remote vport gone", 0, 5, 0, TH_NIC_ACCESS_ALL, -ECONNREFUSED,
		  false },
		{ "past remote MR", 0, 0, 8 * 60, TH_NIC_ACCESS_ALL, -ERANGE,
		  true },
	};
	struct th_ipf_vport *from;
	struct th_nic_desc d;
	struct th_nic_cqe cqe[2];
	double before[64], mine[8] = { 0 };
	unsigned int i;
	u32 lkey;
	int err;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		ASSERT_EQ(0, th_t_mr_dereg(self->vp[1], self->key[1]));
		ASSERT_EQ(0, th_t_mr_reg(self->vp[1], self->buf[1],
					 sizeof(self->buf[1]), rows[i].access_peer,
					 &self->key[1], &self->rkey[1]));
		from = th_t_vport(self->fab, 0, 0, 0, &err);
		ASSERT_NE(NULL, from);
		ASSERT_EQ(0, th_t_mr_reg(from, mine, sizeof(mine), 0, &lkey,
					 NULL));
		memcpy(before, self->buf[1], sizeof(before));
		d = thn_put(lkey, 0, 1, rows[i].vport,
			     self->rkey[1] ^ rows[i].rkey_xor, rows[i].roff, 64);
		d.flags |= TH_NIC_DF_REMOTE_CT;
		d.xfer.remote_ct = 1;
		thn_trigger(&d, 0, 0, i);
		ASSERT_EQ(0, th_t_post(from, &d, 1, NULL));
		ASSERT_EQ(1, th_t_cq_drain(from, cqe, 2));
		EXPECT_EQ(rows[i].status, cqe[0].status) TH_LOG("%s", rows[i].what);
		EXPECT_EQ(0, memcmp(before, self->buf[1], sizeof(before)))
			TH_LOG("%s", rows[i].what);
		EXPECT_EQ(0, th_t_ct(self->vp[1], 1)) TH_LOG("%s", rows[i].what);
		EXPECT_EQ(0, th_t_ct_fail(self->vp[1], 1)) TH_LOG("%s", rows[i].what);
		EXPECT_EQ(rows[i].violation, from->ev.error)
			TH_LOG("%s", rows[i].what);
		th_ipf_vport_destroy(from);
	}
}

TEST_F(exec, deregistered_between_post_and_fire)
{
	struct th_nic_desc d;
	struct th_nic_cqe cqe[2];
	double before[64];

	d = thn_copy(self->key[0], 0, self->key[0], 8 * 8, 64);
	thn_trigger(&d, 3, 1, 5);
	ASSERT_EQ(0, th_t_post(self->vp[0], &d, 1, NULL));
	ASSERT_EQ(0, th_t_mr_dereg(self->vp[0], self->key[0]));
	memcpy(before, self->buf[0], sizeof(before));
	ASSERT_EQ(0, th_t_ct_update(self->vp[0], 3, TH_ENG_CT_INC, 1, 0));
	ASSERT_EQ(1, th_t_cq_drain(self->vp[0], cqe, 2));
	EXPECT_EQ(-EACCES, cqe[0].status);
	EXPECT_EQ(0, memcmp(before, self->buf[0], sizeof(before)));
}

TEST_F(exec, get_needs_remote_read)
{
	struct th_nic_desc d;
	struct th_nic_cqe cqe[2];
	double before[64];

	ASSERT_EQ(0, th_t_mr_dereg(self->vp[2], self->key[2]));
	ASSERT_EQ(0, th_t_mr_reg(self->vp[2], self->buf[2], sizeof(self->buf[2]),
				 TH_NIC_ACCESS_REMOTE_WRITE, &self->key[2],
				 &self->rkey[2]));
	memcpy(before, self->buf[0], sizeof(before));
	d = thn_get(self->key[0], 0, 2, 0, self->rkey[2], 0, 64);
	ASSERT_EQ(0, th_t_post(self->vp[0], &d, 1, NULL));
	ASSERT_EQ(1, th_t_cq_drain(self->vp[0], cqe, 2));
	EXPECT_EQ(-EACCES, cqe[0].status);
	EXPECT_EQ(0, memcmp(before, self->buf[0], sizeof(before)));
}

/* How a chain on node 0 reaches its own vport through the fabric. */
enum self_op { SELF_PUT, SELF_GET, SELF_INLINE, SELF_PUT_FIRES_REDUCE };

FIXTURE(self_target) {
	struct th_ipf *fab;
	struct th_ipf_vport *vp;
	u32 key;
	u64 rkey;
	double buf[64];
};

FIXTURE_VARIANT(self_target) {
	enum self_op op;
};

FIXTURE_VARIANT_ADD(self_target, put) { SELF_PUT };
FIXTURE_VARIANT_ADD(self_target, get) { SELF_GET };
FIXTURE_VARIANT_ADD(self_target, inline_with_counter) { SELF_INLINE };
FIXTURE_VARIANT_ADD(self_target, put_fires_reduce) { SELF_PUT_FIRES_REDUCE };

FIXTURE_SETUP(self_target)
{
	struct th_eng_limits lim = th_t_limits(1);
	int err = 0, j;

	self->fab = th_ipf_create(&lim, NULL, &err);
	ASSERT_NE(NULL, self->fab);
	self->vp = th_t_vport(self->fab, 0, 0, 0, &err);
	ASSERT_NE(NULL, self->vp);
	for (j = 0; j < 64; j++)
		self->buf[j] = j;
	ASSERT_EQ(0, th_t_mr_reg(self->vp, self->buf, sizeof(self->buf),
				 TH_NIC_ACCESS_ALL, &self->key, &self->rkey));
}

FIXTURE_TEARDOWN(self_target)
{
	th_ipf_destroy(self->fab);
}

static void *destroy_vport(void *vp)
{
	th_ipf_vport_destroy(vp);
	return NULL;
}

/*
 * A remote operation whose target is the posting vport itself (a rank
 * writing to its own address) takes a reference like any other and must
 * drop it: afterwards the vport holds only the fabric table's reference,
 * and destroying it finishes instead of waiting forever.
 */
TEST_F(self_target, releases_its_reference)
{
	struct th_nic_desc d[2];
	struct th_nic_cqe cqe[2];
	u32 k[1] = { 0 };
	u64 o[1] = { 0 };
	struct timespec until;
	pthread_t t;
	int j;

	switch (variant->op) {
	case SELF_PUT:
		d[0] = thn_put(self->key, 0, 0, 0, self->rkey, 8 * 8, 64);
		break;
	case SELF_GET:
		d[0] = thn_get(self->key, 8 * 8, 0, 0, self->rkey, 0, 64);
		break;
	case SELF_INLINE:
		d[0] = thn_inline_remote(0, 0, self->rkey, 8 * 8, "self", 4);
		d[0].flags |= TH_NIC_DF_REMOTE_CT;
		d[0].wr_inline.remote_ct = 3;
		break;
	case SELF_PUT_FIRES_REDUCE:
		/* the put lands in slots 8.., its control packet fires the reduce */
		d[1] = thn_reduce(TH_NIC_ALU_SUM, TH_NIC_DT_FLOAT64, 8, self->key,
				   8 * 16, 1, k, o);
		d[1].reduce.src_key[0] = self->key;
		d[1].reduce.src_off[0] = 8 * 8;
		thn_trigger(&d[1], 3, 1, 0);
		ASSERT_EQ(0, th_t_post(self->vp, &d[1], 1, NULL));
		d[0] = thn_put_ct(self->key, 0, 0, 0, self->rkey, 8 * 8, 64, 3);
		break;
	}
	d[0].flags |= TH_NIC_DF_SIGNAL;
	thn_trigger(&d[0], 0, 0, 7);
	ASSERT_EQ(0, th_t_post(self->vp, d, 1, NULL));
	ASSERT_EQ(1, th_t_cq_drain(self->vp, cqe, 2));
	EXPECT_EQ(0, cqe[0].status);
	if (variant->op == SELF_PUT_FIRES_REDUCE)
		for (j = 0; j < 8; j++)
			EXPECT_EQ(j, self->buf[16 + j]);
	if (variant->op == SELF_INLINE) {
		EXPECT_EQ(0, memcmp(&self->buf[8], "self", 4));
		EXPECT_EQ(1, th_t_ct(self->vp, 3));
	}
	EXPECT_EQ(1, *th_ipf_vport_refs(self->vp));

	/* bounded: on a leak the destroyer would wait forever */
	ASSERT_EQ(0, pthread_create(&t, NULL, destroy_vport, self->vp));
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 10;
	ASSERT_EQ(0, pthread_timedjoin_np(t, NULL, &until))
		TH_LOG("vport destroy still waiting after 10 s: a reference leaked");
}

TEST_HARNESS_MAIN
