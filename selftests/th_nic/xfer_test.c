// SPDX-License-Identifier: GPL-2.0
/*
 * xfer_test.c - data movement between vports on different nodes and fds:
 * PUT and GET (data verified byte for byte, neighbours untouched, the
 * remote counter incremented, a chain on the target fired by the
 * delivery), COPY and WRITE_INLINE.
 */
#include "kselftest_harness.h"
#include "th_nic_util.h"

#define NODE_A	2
#define NODE_B	3
#define BUF	(256 * 1024 + 3 * 4096)	/* many pages, not a power of two */

FIXTURE(xfer) {
	int fda, fdb;
	struct thn_vport a, b;
	__u8 *abuf, *bbuf;	/* page-aligned, BUF bytes */
	struct thn_key akey, bkey;	/* TH_NIC_ACCESS_ALL on each */
};

static void pattern(__u8 *p, size_t len, __u32 seed)
{
	size_t i;

	for (i = 0; i < len; i++) {
		seed = seed * 1103515245 + 12345;
		p[i] = seed >> 16;
	}
}

FIXTURE_SETUP(xfer)
{
	self->fda = thn_open(NODE_A);
	ASSERT_LE(0, self->fda);
	self->fdb = thn_open(NODE_B);
	ASSERT_LE(0, self->fdb);
	ASSERT_EQ(0, thn_vport_open(self->fda, 0, 0, &self->a));
	ASSERT_EQ(0, thn_vport_open(self->fdb, 0, 0, &self->b));
	self->abuf = thn_alloc(BUF);
	self->bbuf = thn_alloc(BUF);
	ASSERT_NE(NULL, self->abuf);
	ASSERT_NE(NULL, self->bbuf);
	pattern(self->abuf, BUF, 1);
	pattern(self->bbuf, BUF, 2);
	ASSERT_EQ(0, thn_mr_reg(&self->a, self->abuf, BUF, TH_NIC_ACCESS_ALL,
				&self->akey));
	ASSERT_EQ(0, thn_mr_reg(&self->b, self->bbuf, BUF, TH_NIC_ACCESS_ALL,
				&self->bkey));
}

FIXTURE_TEARDOWN(xfer)
{
	close(self->fda);
	close(self->fdb);
}

/* One row per transfer shape. */
FIXTURE_VARIANT(xfer) {
	__u64 loff, roff, len;
};

FIXTURE_VARIANT_ADD(xfer, one_byte) { 5, 9, 1 };
FIXTURE_VARIANT_ADD(xfer, small_unaligned) { 3, 4097, 61 };
FIXTURE_VARIANT_ADD(xfer, one_page_aligned) { 4096, 8192, 4096 };
FIXTURE_VARIANT_ADD(xfer, page_plus_one_across) { 4095, 100, 4097 };
FIXTURE_VARIANT_ADD(xfer, many_pages) { 17, 4096 * 3 + 1, 200 * 1024 + 5 };
FIXTURE_VARIANT_ADD(xfer, to_the_last_byte) { 0, BUF - 777, 777 };
FIXTURE_VARIANT_ADD(xfer, whole_region) { 0, 0, BUF };

/*
 * A PUT from A to B: bytes arrive exactly, nothing around them changes, B's
 * counter rises after the data is in place and fires B's chain, and A's
 * chain completes with its SIGNAL entry and completion counter.
 */
TEST_F(xfer, put_delivers_and_fires_target)
{
	__u8 *want = malloc(BUF);
	struct th_nic_desc d;
	struct th_nic_cqe cqe[2];

	ASSERT_NE(NULL, want);
	memcpy(want, self->bbuf, BUF);
	memcpy(want + variant->roff, self->abuf + variant->loff, variant->len);

	/* B: notify when counter 4 reaches 1 */
	ASSERT_EQ(0, thn_post_notify(&self->b, 4, 1, 0xb0b));
	d = thn_put_ct(self->akey.l, variant->loff, NODE_B, self->b.id,
		       self->bkey.r, variant->roff, variant->len, 4);
	d.flags |= TH_NIC_DF_SIGNAL;
	thn_comp_ct(&d, 6);
	thn_trigger(&d, 0, 1, 0xa0a);
	ASSERT_EQ(0, thn_post(&self->a, &d, 1, NULL));
	EXPECT_EQ(0, thn_ct(&self->b, 4));
	ASSERT_EQ(0, thn_ct_inc(&self->a, 0, 1));

	ASSERT_EQ(1, thn_cq_wait(&self->a, cqe, 1, THN_WAIT_MS));
	EXPECT_EQ(0xa0a, cqe[0].cookie);
	EXPECT_EQ(0, cqe[0].status);
	EXPECT_EQ(TH_NIC_OP_PUT, cqe[0].opcode);
	EXPECT_EQ(TH_NIC_CQE_F_FINAL, cqe[0].flags);
	EXPECT_EQ(1, thn_ct(&self->a, 6));
	ASSERT_EQ(1, thn_cq_wait(&self->b, cqe, 1, THN_WAIT_MS));
	EXPECT_EQ(0xb0b, cqe[0].cookie);
	EXPECT_EQ(0, cqe[0].status);
	EXPECT_EQ(1, thn_ct(&self->b, 4));
	EXPECT_EQ(0, thn_ct_fail(&self->b, 4));
	EXPECT_EQ(0, memcmp(want, self->bbuf, BUF));
	free(want);
}

TEST_F(xfer, get_reads_remote_memory)
{
	__u8 *want = malloc(BUF);
	struct th_nic_desc d;
	struct th_nic_cqe cqe;

	ASSERT_NE(NULL, want);
	memcpy(want, self->abuf, BUF);
	memcpy(want + variant->loff, self->bbuf + variant->roff, variant->len);

	d = thn_get(self->akey.l, variant->loff, NODE_B, self->b.id, self->bkey.r,
		    variant->roff, variant->len);
	d.flags |= TH_NIC_DF_SIGNAL;
	thn_comp_ct(&d, 7);
	thn_trigger(&d, 0, 0, 0x6e7);
	ASSERT_EQ(0, thn_post(&self->a, &d, 1, NULL));
	ASSERT_EQ(1, thn_cq_wait(&self->a, &cqe, 1, THN_WAIT_MS));
	EXPECT_EQ(0x6e7, cqe.cookie);
	EXPECT_EQ(0, cqe.status);
	EXPECT_EQ(TH_NIC_OP_GET, cqe.opcode);
	EXPECT_EQ(1, thn_ct(&self->a, 7));
	EXPECT_EQ(0, memcmp(want, self->abuf, BUF));
	/* a GET changes nothing at the source, nor its counters */
	EXPECT_EQ(0, thn_ct(&self->b, 0));
}

TEST_F(xfer, copy_within_a_vport)
{
	__u8 *want = malloc(BUF);
	struct th_nic_desc d;
	struct th_nic_cqe cqe;
	__u64 len = variant->len > BUF / 2 ? BUF / 2 : variant->len;
	__u64 soff = variant->loff % (BUF / 2);
	__u64 doff = BUF / 2 + variant->roff % (BUF / 2 - len + 1);
	struct thn_key key2;
	__u8 *second = thn_alloc(BUF);

	ASSERT_NE(NULL, want);
	ASSERT_NE(NULL, second);
	pattern(second, BUF, 3);
	ASSERT_EQ(0, thn_mr_reg(&self->a, second, BUF,
				TH_NIC_ACCESS_LOCAL_WRITE, &key2));
	/* from the first MR into the second */
	memcpy(want, second, BUF);
	memcpy(want + doff, self->abuf + soff, len);
	d = thn_copy(self->akey.l, soff, key2.l, doff, len);
	d.flags |= TH_NIC_DF_SIGNAL;
	thn_trigger(&d, 0, 0, 1);
	ASSERT_EQ(0, thn_post(&self->a, &d, 1, NULL));
	ASSERT_EQ(1, thn_cq_wait(&self->a, &cqe, 1, THN_WAIT_MS));
	EXPECT_EQ(0, cqe.status);
	EXPECT_EQ(TH_NIC_OP_COPY, cqe.opcode);
	EXPECT_EQ(0, memcmp(want, second, BUF));

	/* overlapping ranges inside one MR: memmove semantics */
	memcpy(want, second, BUF);
	memmove(want + 1000, want + 10, 5000);
	d = thn_copy(key2.l, 10, key2.l, 1000, 5000);
	d.flags |= TH_NIC_DF_SIGNAL;
	ASSERT_EQ(0, thn_post(&self->a, &d, 1, NULL));
	ASSERT_EQ(1, thn_cq_wait(&self->a, &cqe, 1, THN_WAIT_MS));
	EXPECT_EQ(0, cqe.status);
	EXPECT_EQ(0, memcmp(want, second, BUF));
	memmove(want + 10, want + 1000, 5000);
	d = thn_copy(key2.l, 1000, key2.l, 10, 5000);
	d.flags |= TH_NIC_DF_SIGNAL;
	ASSERT_EQ(0, thn_post(&self->a, &d, 1, NULL));
	ASSERT_EQ(1, thn_cq_wait(&self->a, &cqe, 1, THN_WAIT_MS));
	EXPECT_EQ(0, memcmp(want, second, BUF));
	free(want);
}

/* Fixtures without a variant: the inline and chaining cases. */
FIXTURE(wr) {
	int fda, fdb;
	struct thn_vport a, b;
	__u8 *abuf, *bbuf;
	struct thn_key akey, bkey;
};

FIXTURE_SETUP(wr)
{
	self->fda = thn_open(NODE_A);
	ASSERT_LE(0, self->fda);
	self->fdb = thn_open(NODE_B);
	ASSERT_LE(0, self->fdb);
	ASSERT_EQ(0, thn_vport_open(self->fda, 0, 0, &self->a));
	ASSERT_EQ(0, thn_vport_open(self->fdb, 0, 0, &self->b));
	self->abuf = thn_alloc(8192);
	self->bbuf = thn_alloc(8192);
	ASSERT_NE(NULL, self->abuf);
	ASSERT_NE(NULL, self->bbuf);
	memset(self->abuf, 0x11, 8192);
	memset(self->bbuf, 0x22, 8192);
	ASSERT_EQ(0, thn_mr_reg(&self->a, self->abuf, 8192, TH_NIC_ACCESS_ALL,
				&self->akey));
	ASSERT_EQ(0, thn_mr_reg(&self->b, self->bbuf, 8192, TH_NIC_ACCESS_ALL,
				&self->bkey));
}

FIXTURE_TEARDOWN(wr)
{
	close(self->fda);
	close(self->fdb);
}

TEST_F(wr, write_inline_local_and_remote)
{
	static const char word[] = "triggered operations";
	__u8 data[TH_NIC_INLINE_MAX], want[8192];
	struct th_nic_desc d[2];
	struct th_nic_cqe cqe;
	unsigned int i;

	for (i = 0; i < sizeof(data); i++)
		data[i] = 0xc0 + i;
	/* local: 32 bytes across the page boundary, and a short word */
	memset(want, 0x11, sizeof(want));
	memcpy(want + 4096 - 16, data, sizeof(data));
	memcpy(want + 100, word, sizeof(word) - 1);
	d[0] = thn_inline(self->akey.l, 4096 - 16, data, sizeof(data));
	d[1] = thn_inline(self->akey.l, 100, word, sizeof(word) - 1);
	d[1].flags |= TH_NIC_DF_SIGNAL;
	thn_link(d, 2);
	ASSERT_EQ(0, thn_post(&self->a, d, 2, NULL));
	ASSERT_EQ(1, thn_cq_wait(&self->a, &cqe, 1, THN_WAIT_MS));
	EXPECT_EQ(0, cqe.status);
	EXPECT_EQ(1, cqe.desc_index);
	EXPECT_EQ(TH_NIC_OP_WRITE_INLINE, cqe.opcode);
	EXPECT_EQ(0, memcmp(want, self->abuf, sizeof(want)));

	/* remote, with the target's counter: fires B's chain */
	ASSERT_EQ(0, thn_post_notify(&self->b, 9, 1, 0x99));
	memset(want, 0x22, sizeof(want));
	memcpy(want + 8192 - 3, "xyz", 3);
	d[0] = thn_inline_remote(NODE_B, self->b.id, self->bkey.r, 8192 - 3,
				 "xyz", 3);
	d[0].flags |= TH_NIC_DF_REMOTE_CT;
	d[0].wr_inline.remote_ct = 9;
	ASSERT_EQ(0, thn_post(&self->a, d, 1, NULL));
	ASSERT_EQ(1, thn_cq_wait(&self->b, &cqe, 1, THN_WAIT_MS));
	EXPECT_EQ(0x99, cqe.cookie);
	EXPECT_EQ(0, cqe.status);
	EXPECT_EQ(1, thn_ct(&self->b, 9));
	EXPECT_EQ(0, memcmp(want, self->bbuf, sizeof(want)));
}

/* A zero-length PUT moves nothing but still delivers its control packet. */
TEST_F(wr, zero_length_put_only_counts)
{
	__u8 want[8192];
	struct th_nic_desc d;
	struct th_nic_cqe cqe;

	memset(want, 0x22, sizeof(want));
	d = thn_put_ct(self->akey.l, 8192, NODE_B, self->b.id, self->bkey.r, 0, 0,
		       12);
	d.flags |= TH_NIC_DF_SIGNAL;
	ASSERT_EQ(0, thn_post(&self->a, &d, 1, NULL));
	ASSERT_EQ(1, thn_cq_wait(&self->a, &cqe, 1, THN_WAIT_MS));
	EXPECT_EQ(0, cqe.status);
	EXPECT_EQ(1, thn_ct(&self->b, 12));
	EXPECT_EQ(0, memcmp(want, self->bbuf, sizeof(want)));
}

/* PUTs to a second vport on the same node, and to the posting vport. */
TEST_F(wr, put_on_the_same_node_and_to_itself)
{
	struct thn_vport c;
	struct th_nic_desc d[2];
	struct th_nic_cqe cqe;
	__u8 *cbuf = thn_alloc(4096);
	struct thn_key ckey;

	ASSERT_NE(NULL, cbuf);
	memset(cbuf, 0x33, 4096);
	ASSERT_EQ(0, thn_vport_open(self->fda, 64, 64, &c));
	ASSERT_EQ(0, thn_mr_reg(&c, cbuf, 4096, TH_NIC_ACCESS_REMOTE_WRITE,
				&ckey));
	d[0] = thn_put_ct(self->akey.l, 0, NODE_A, c.id, ckey.r, 1000, 64, 1);
	d[1] = thn_put_ct(self->akey.l, 64, NODE_A, self->a.id, self->akey.r,
			  4096, 64, 2);
	d[1].flags |= TH_NIC_DF_SIGNAL;
	thn_link(d, 2);
	ASSERT_EQ(0, thn_post(&self->a, d, 2, NULL));
	ASSERT_EQ(1, thn_cq_wait(&self->a, &cqe, 1, THN_WAIT_MS));
	EXPECT_EQ(0, cqe.status);
	EXPECT_EQ(0, memcmp(cbuf + 1000, self->abuf, 64));
	EXPECT_EQ(0x33, cbuf[999]);
	EXPECT_EQ(0x33, cbuf[1064]);
	EXPECT_EQ(0, memcmp(self->abuf + 4096, self->abuf + 64, 64));
	EXPECT_EQ(1, thn_ct(&c, 1));
	EXPECT_EQ(1, thn_ct(&self->a, 2));
}

/*
 * Hops across three nodes with no host code between them: A's PUT lands
 * on B, whose chain forwards it to C with a GET back from A on the way.
 */
TEST_F(wr, delivery_fires_the_next_hop)
{
	int fdc = thn_open(NODE_B + 1);
	struct thn_vport c;
	struct th_nic_desc d[2];
	struct th_nic_cqe cqe;
	__u8 *cbuf = thn_alloc(4096);
	struct thn_key ckey;
	unsigned int i;

	ASSERT_LE(0, fdc);
	ASSERT_NE(NULL, cbuf);
	memset(cbuf, 0, 4096);
	ASSERT_EQ(0, thn_vport_open(fdc, 64, 64, &c));
	ASSERT_EQ(0, thn_mr_reg(&c, cbuf, 4096, TH_NIC_ACCESS_ALL, &ckey));
	for (i = 0; i < 256; i++)
		self->abuf[i] = i;
	/* C: once B's put lands, GET 16 more bytes from A, then notify */
	d[0] = thn_get(ckey.l, 2048, NODE_A, self->a.id, self->akey.r, 16, 16);
	d[1] = thn_notify(3);
	thn_link(d, 2);
	thn_trigger(&d[0], 5, 1, 3);
	ASSERT_EQ(0, thn_post(&c, d, 2, NULL));
	/* B: once A's put lands, forward it to C */
	d[0] = thn_put_ct(self->bkey.l, 0, NODE_B + 1, c.id, ckey.r, 0, 256, 5);
	thn_trigger(&d[0], 5, 1, 2);
	ASSERT_EQ(0, thn_post(&self->b, d, 1, NULL));
	/* A: put now */
	d[0] = thn_put_ct(self->akey.l, 0, NODE_B, self->b.id, self->bkey.r, 0,
			  256, 5);
	ASSERT_EQ(0, thn_post(&self->a, d, 1, NULL));
	ASSERT_EQ(1, thn_cq_wait(&c, &cqe, 1, THN_WAIT_MS));
	EXPECT_EQ(3, cqe.cookie);
	EXPECT_EQ(0, cqe.status);
	for (i = 0; i < 256; i++)
		ASSERT_EQ(i, cbuf[i]);
	for (i = 0; i < 16; i++)
		ASSERT_EQ(16 + i, cbuf[2048 + i]);
	EXPECT_EQ(0, cbuf[2048 + 16]);
	close(fdc);
}

/* What the process writes after registering is what the NIC reads. */
TEST_F(wr, registered_memory_is_shared_with_the_process)
{
	struct th_nic_desc d;
	struct th_nic_cqe cqe;
	unsigned int round;

	for (round = 0; round < 4; round++) {
		memset(self->abuf, 0x40 + round, 4096);
		d = thn_put(self->akey.l, 0, NODE_B, self->b.id, self->bkey.r, 0,
			    4096);
		d.flags |= TH_NIC_DF_SIGNAL;
		ASSERT_EQ(0, thn_post(&self->a, &d, 1, NULL));
		ASSERT_EQ(1, thn_cq_wait(&self->a, &cqe, 1, THN_WAIT_MS));
		ASSERT_EQ(0, cqe.status);
		ASSERT_EQ(0x40 + round, self->bbuf[0]);
		ASSERT_EQ(0x40 + round, self->bbuf[4095]);
		ASSERT_EQ(0x22, self->bbuf[4096]);
	}
}

/* A chain whose local MR is deregistered before it fires fails cleanly. */
TEST_F(wr, deregistered_before_firing_fails_with_eacces)
{
	struct th_nic_desc d;
	struct th_nic_cqe cqe;
	__u8 *src = thn_alloc(4096);
	struct thn_key skey;
	unsigned int i;

	ASSERT_NE(NULL, src);
	memset(src, 0x99, 4096);
	ASSERT_EQ(0, thn_mr_reg(&self->a, src, 4096, 0, &skey));
	d = thn_put_ct(skey.l, 0, NODE_B, self->b.id, self->bkey.r, 0, 4096, 3);
	thn_trigger(&d, 1, 1, 0xdead);
	ASSERT_EQ(0, thn_post(&self->a, &d, 1, NULL));
	ASSERT_EQ(0, thn_mr_dereg(&self->a, skey.l));
	ASSERT_EQ(0, thn_ct_inc(&self->a, 1, 1));
	ASSERT_EQ(1, thn_cq_wait(&self->a, &cqe, 1, THN_WAIT_MS));
	EXPECT_EQ(0xdead, cqe.cookie);
	EXPECT_EQ(-EACCES, cqe.status);
	EXPECT_EQ(TH_NIC_CQE_F_FINAL, cqe.flags);
	/* the target saw a failed delivery, not data */
	EXPECT_EQ(0, thn_ct(&self->b, 3));
	EXPECT_EQ(1, thn_ct_fail(&self->b, 3));
	for (i = 0; i < 8192; i++)
		ASSERT_EQ(0x22, self->bbuf[i]);
}

/* 16 MiB in one PUT: thousands of pinned pages on both sides. */
TEST_F(wr, large_put)
{
	const size_t len = 16 << 20;
	__u8 *src = thn_alloc(len), *dst = thn_alloc(len);
	struct th_nic_desc d;
	struct th_nic_cqe cqe;
	struct thn_key skey, dkey;
	size_t i;

	ASSERT_NE(NULL, src);
	ASSERT_NE(NULL, dst);
	for (i = 0; i < len; i += 8)
		*(__u64 *)(src + i) = i * 0x9e3779b97f4a7c15ULL;
	memset(dst, 0, len);
	ASSERT_EQ(0, thn_mr_reg(&self->a, src, len, 0, &skey));
	ASSERT_EQ(0, thn_mr_reg(&self->b, dst, len,
				TH_NIC_ACCESS_REMOTE_WRITE, &dkey));
	d = thn_put_ct(skey.l, 0, NODE_B, self->b.id, dkey.r, 0, len, 1);
	d.flags |= TH_NIC_DF_SIGNAL;
	ASSERT_EQ(0, thn_post(&self->a, &d, 1, NULL));
	ASSERT_EQ(1, thn_cq_wait(&self->a, &cqe, 1, 4 * THN_WAIT_MS));
	EXPECT_EQ(0, cqe.status);
	EXPECT_EQ(1, thn_ct(&self->b, 1));
	EXPECT_EQ(0, memcmp(src, dst, len));
}

/*
 * The owner unmaps a region it registered: the pinned pages stay the
 * NIC's until MR_DEREG, so a PUT into it is safe (it completes and
 * nothing crashes), and deregistration afterwards works.
 */
TEST_F(wr, region_unmapped_by_its_owner_stays_safe)
{
	struct th_nic_desc d;
	struct th_nic_cqe cqe;
	__u8 *gone = thn_alloc(3 * 4096);
	struct thn_key gkey;

	ASSERT_NE(NULL, gone);
	memset(gone, 0x5e, 3 * 4096);
	ASSERT_EQ(0, thn_mr_reg(&self->b, gone, 3 * 4096,
				TH_NIC_ACCESS_ALL, &gkey));
	ASSERT_EQ(0, munmap(gone, 3 * 4096));
	/* new memory may land at the same address: it must not be written */
	gone = mmap(gone, 3 * 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, gone);
	memset(gone, 0x6f, 3 * 4096);
	d = thn_put(self->akey.l, 0, NODE_B, self->b.id, gkey.r, 4000, 200);
	d.flags |= TH_NIC_DF_SIGNAL;
	ASSERT_EQ(0, thn_post(&self->a, &d, 1, NULL));
	ASSERT_EQ(1, thn_cq_wait(&self->a, &cqe, 1, THN_WAIT_MS));
	EXPECT_TRUE(cqe.status == 0 || cqe.status == -EACCES)
		TH_LOG("status %d", cqe.status);
	/* a GET from it reads what the region held, never the new memory */
	d = thn_get(self->akey.l, 0, NODE_B, self->b.id, gkey.r, 8000, 16);
	d.flags |= TH_NIC_DF_SIGNAL;
	ASSERT_EQ(0, thn_post(&self->a, &d, 1, NULL));
	ASSERT_EQ(1, thn_cq_wait(&self->a, &cqe, 1, THN_WAIT_MS));
	if (!cqe.status)
		EXPECT_EQ(0x5e, self->abuf[0]);
	EXPECT_EQ(0x6f, gone[4000]);
	EXPECT_EQ(0x6f, gone[4199]);
	EXPECT_EQ(0, thn_mr_dereg(&self->b, gkey.l));
}

TEST_HARNESS_MAIN
