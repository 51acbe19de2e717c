// SPDX-License-Identifier: GPL-2.0
/*
 * cpu_test.c - no system call runs unbounded work: a doorbell whose chains
 * copy or reduce hundreds of MiB returns after its budget, with the work
 * left running in the NIC's own context (in slices, with scheduling
 * points), where it completes exactly once with the right data; and
 * another vport's deferred work is not queued behind it.  Run by an
 * unprivileged user whose RLIMIT_MEMLOCK root raised for the big regions.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "th_nic_util.h"

#define NODE	10
#define BIG	(64ULL << 20)	/* one region: 64 MiB */
#define PER	4		/* COPY descriptors per chain: 256 MiB */
#define CT_DONE	1

struct big_run {
	__u64 doorbell_ns, total_ns, reduce_doorbell_ns;
	__u64 done_at_return, reduce_done_at_return;
	int wait, reduce_wait;
	bool data_ok, reduce_ok;
	int err;
};

/* Fill @p with a pattern that differs in every 8-byte word. */
static void fill(__u64 *p, size_t words)
{
	size_t i;

	for (i = 0; i < words; i++)
		p[i] = i * 0x9e3779b97f4a7c15ULL + 1;
}

static int big_copies(void *arg)
{
	struct big_run *r = arg;
	struct th_nic_desc d[PER + 1];
	struct th_nic_doorbell db;
	struct thn_vport v;
	struct thn_key src, dst;
	__u64 *s = thn_alloc(BIG), *t = thn_alloc(BIG), t0, i;
	__u64 soff[1] = { 0 };
	__u32 k[1];
	int fd = thn_open(NODE), j;

	if (fd < 0 || !s || !t || thn_vport_open(fd, 0, 0, &v))
		return 1;
	fill(s, BIG / 8);
	memset(t, 0, BIG);
	if (thn_mr_reg(&v, s, BIG, 0, &src) ||
	    thn_mr_reg(&v, t, BIG, TH_NIC_ACCESS_LOCAL_WRITE, &dst))
		return 2;

	/* one chain: 256 MiB of copies, then its completion counter */
	for (j = 0; j < PER; j++)
		d[j] = thn_copy(src.l, 0, dst.l, 0, BIG);
	thn_comp_ct(&d[PER - 1], CT_DONE);
	thn_link(d, PER);
	t0 = thn_now_ns();
	if (thn_post(&v, d, PER, &db))
		return 3;
	r->doorbell_ns = thn_now_ns() - t0;
	r->done_at_return = thn_ct(&v, CT_DONE);
	r->wait = thn_ct_wait(&v, CT_DONE, 1, 120000000000ULL, NULL);
	r->total_ns = thn_now_ns() - t0;
	r->data_ok = !memcmp(s, t, BIG);

	/* 8 Mi words: t = t + s, 128 MiB of operands */
	k[0] = src.l;
	d[0] = thn_reduce(TH_NIC_ALU_SUM, TH_NIC_DT_UINT64, BIG / 8, dst.l, 0, 1,
			  k, soff);
	d[0].reduce.rflags = TH_NIC_RF_ACCUMULATE;
	thn_comp_ct(&d[0], CT_DONE + 1);
	t0 = thn_now_ns();
	if (thn_post(&v, d, 1, &db))
		return 4;
	r->reduce_doorbell_ns = thn_now_ns() - t0;
	r->reduce_done_at_return = thn_ct(&v, CT_DONE + 1);
	r->reduce_wait = thn_ct_wait(&v, CT_DONE + 1, 1, 120000000000ULL, NULL);
	r->reduce_ok = true;
	for (i = 0; i < BIG / 8; i++)
		if (t[i] != 2 * s[i])
			r->reduce_ok = false;
	close(fd);
	return 0;
}

/* Nothing to set up: a fixture only for the longer timeout TCG needs. */
FIXTURE(big) {
	int unused;
};

FIXTURE_SETUP(big)
{
	self->unused = 0;
}

FIXTURE_TEARDOWN(big)
{
}

/* The big regions need more than the default 8 MiB; inherited by children. */
static void raise_memlock(void)
{
	struct rlimit rl = { 4 * BIG, 4 * BIG };

	setrlimit(RLIMIT_MEMLOCK, &rl);
}

TEST_F_TIMEOUT(big, a_doorbell_returns_before_256_MiB_of_copies_are_done, 300)
{
	struct big_run *r = thn_shared(sizeof(*r));

	ASSERT_NE(NULL, r);
	raise_memlock();
	ASSERT_EQ(0, thn_run_as(THN_UID_A, big_copies, r));
	TH_LOG("doorbell of a 256 MiB COPY chain: %.3f ms; done after %.1f ms",
	       r->doorbell_ns / 1e6, r->total_ns / 1e6);
	TH_LOG("doorbell of a 64 MiB accumulate REDUCE: %.3f ms",
	       r->reduce_doorbell_ns / 1e6);
	/* the call handed the work over instead of doing it all */
	EXPECT_EQ(0, r->done_at_return);
	EXPECT_EQ(0, r->reduce_done_at_return);
	/* and the NIC finished it, once, right */
	EXPECT_EQ(0, r->wait);
	EXPECT_TRUE(r->data_ok);
	EXPECT_EQ(0, r->reduce_wait);
	EXPECT_TRUE(r->reduce_ok);
}

struct pair_run {
	__u64 a_done_when_b_done;
	int b_wait, a_wait;
	bool b_ok;
};

/*
 * Vport A gets four 256 MiB chains, then vport B one of 16 MiB (past one
 * budget, so deferred as well): B's turn comes after at most a budget of
 * A's, so B finishes while most of A's gigabyte is still to do.
 */
static int two_vports(void *arg)
{
	struct pair_run *r = arg;
	struct th_nic_desc d[PER];
	struct thn_vport a, b;
	struct thn_key asrc, adst, bsrc, bdst;
	__u64 *s = thn_alloc(BIG), *t = thn_alloc(BIG);
	__u8 *bs = thn_alloc(16 << 20), *bt = thn_alloc(16 << 20);
	int fa = thn_open(NODE), fb = thn_open(NODE + 1), i, j;

	if (fa < 0 || fb < 0 || !s || !t || !bs || !bt ||
	    thn_vport_open(fa, 0, 0, &a) || thn_vport_open(fb, 0, 0, &b) ||
	    thn_mr_reg(&a, s, BIG, 0, &asrc) ||
	    thn_mr_reg(&a, t, BIG, TH_NIC_ACCESS_LOCAL_WRITE, &adst) ||
	    thn_mr_reg(&b, bs, 16 << 20, 0, &bsrc) ||
	    thn_mr_reg(&b, bt, 16 << 20, TH_NIC_ACCESS_LOCAL_WRITE, &bdst))
		return 1;
	memset(bs, 0x5b, 16 << 20);
	for (i = 0; i < 4; i++) {
		for (j = 0; j < PER; j++)
			d[j] = thn_copy(asrc.l, 0, adst.l, 0, BIG);
		thn_comp_ct(&d[PER - 1], CT_DONE);
		thn_link(d, PER);
		if (thn_post(&a, d, PER, NULL))
			return 2;
	}
	d[0] = thn_copy(bsrc.l, 0, bdst.l, 0, 16 << 20);
	thn_comp_ct(&d[0], CT_DONE);
	if (thn_post(&b, d, 1, NULL))
		return 3;
	r->b_wait = thn_ct_wait(&b, CT_DONE, 1, 600000000000ULL, NULL);
	r->a_done_when_b_done = thn_ct(&a, CT_DONE);
	r->b_ok = !memcmp(bs, bt, 16 << 20);
	r->a_wait = thn_ct_wait(&a, CT_DONE, 4, 600000000000ULL, NULL);
	close(fa);
	close(fb);
	return 0;
}

TEST_F_TIMEOUT(big, another_vports_work_is_not_queued_behind_it, 300)
{
	struct pair_run *r = thn_shared(sizeof(*r));

	ASSERT_NE(NULL, r);
	raise_memlock();
	ASSERT_EQ(0, thn_run_as(THN_UID_A, two_vports, r));
	EXPECT_EQ(0, r->b_wait);
	EXPECT_TRUE(r->b_ok);
	TH_LOG("A's chains done when B's was: %llu of 4",
	       (unsigned long long)r->a_done_when_b_done);
	EXPECT_GT(4, r->a_done_when_b_done);
	EXPECT_EQ(0, r->a_wait);
}

TEST_HARNESS_MAIN
