// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_verify_classes.c - the verifier's classes added for the library's
 * plans and the mutation check: memory (a descriptor's range outside the
 * declared regions, locally or at its target, or without the access it
 * needs: a transfer's, a copy's, a reduction's, an inline write's), wait (a wait the host declares that can never end), ahead (a
 * re-arming chain that fires with no host action); each found, and its
 * sound twin clean.  And the engine's one fit function, th_eng_chain_fit(),
 * refusing each size rule as the doorbell does.
 */
#include <string.h>

#include <thverbs/verbs.h>
#include <thverbs/verify.h>
#include "th_engine_int.h"
#include "kselftest_harness.h"

/* node 0 puts @len bytes from lkey 1 to node 1's rkey 7, raising ct 2 there */
static void put_desc(struct th_nic_desc *d, uint64_t len)
{
	memset(d, 0, sizeof(*d));
	d->opcode = TH_NIC_OP_PUT;
	d->trig_ct = 0;
	d->threshold = 1;
	d->flags = TH_NIC_DF_REMOTE_CT;
	d->xfer.lkey = 1;
	d->xfer.rkey = 7;
	d->xfer.len = len;
	d->xfer.node = 1;
	d->xfer.remote_ct = 2;
}

static const struct th_verify_action start0 = {
	.counter = { .node = 0, .ct = 0 }, .value = 1,
};

static int verify_put(uint64_t len, const struct th_verify_region *regs,
		      unsigned int nregs, struct th_verify_finding *f)
{
	struct th_nic_desc d;
	struct th_verify_chain c = { .name = "put", .descs = &d, .ndesc = 1 };
	struct th_verify_set set = {
		.chains = &c, .nchains = 1, .actions = &start0, .nactions = 1,
		.regions = regs, .nregions = nregs,
	};

	put_desc(&d, len);
	return th_verify(&set, f, 4);
}

TEST(a_range_outside_its_region_is_memory)
{
	struct th_verify_region regs[2] = {
		{ .node = 0, .lkey = 1, .rkey = 10, .len = 64,
		  .access = TH_NIC_ACCESS_ALL },
		{ .node = 1, .lkey = 1, .rkey = 7, .len = 8,
		  .access = TH_NIC_ACCESS_ALL },
	};
	struct th_verify_finding f[4];

	EXPECT_EQ(0, verify_put(8, regs, 2, f));
	/* past the target's 8 bytes */
	ASSERT_EQ(1, verify_put(16, regs, 2, f));
	EXPECT_EQ(TH_VERIFY_MEMORY, f[0].cls);
	EXPECT_EQ(0, f[0].chain);
	EXPECT_EQ(0, f[0].desc);
	EXPECT_NE(NULL, strstr(f[0].why, "remote range")) TH_LOG("%s", f[0].why);
	/* past the local 64 bytes */
	regs[1].len = 128;
	ASSERT_EQ(1, verify_put(100, regs, 2, f));
	EXPECT_NE(NULL, strstr(f[0].why, "local range")) TH_LOG("%s", f[0].why);
	/* a remote key the target does not have */
	regs[1].rkey = 8;
	ASSERT_EQ(1, verify_put(8, regs, 2, f));
	EXPECT_NE(NULL, strstr(f[0].why, "names no region")) TH_LOG("%s", f[0].why);
	/* a region that cannot be written from afar */
	regs[1].rkey = 7;
	regs[1].access = TH_NIC_ACCESS_REMOTE_READ;
	ASSERT_EQ(1, verify_put(8, regs, 2, f));
	EXPECT_NE(NULL, strstr(f[0].why, "lacks")) TH_LOG("%s", f[0].why);
	/* no regions declared: nothing checked */
	EXPECT_EQ(0, verify_put(1000, regs, 0, f));
}

/* One descriptor on node 0, against @regs: the findings' count. */
static int verify_one(const struct th_nic_desc *d,
		      const struct th_verify_region *regs, unsigned int nregs,
		      struct th_verify_finding *f)
{
	struct th_verify_chain c = { .name = "one", .descs = d, .ndesc = 1 };
	struct th_verify_set set = {
		.chains = &c, .nchains = 1, .actions = &start0, .nactions = 1,
		.regions = regs, .nregions = nregs,
	};

	return th_verify(&set, f, 4);
}

/*
 * A copy's, a reduction's and a local inline write's ranges, as the
 * doorbell reads them: sources inside their region, the destination
 * inside a region with local write.
 */
TEST(local_ranges_of_copy_reduce_and_inline_write_are_memory)
{
	struct th_verify_region regs[2] = {
		{ .node = 0, .lkey = 1, .len = 64, .access = 0 },
		{ .node = 0, .lkey = 2, .len = 64,
		  .access = TH_NIC_ACCESS_LOCAL_WRITE },
	};
	struct th_verify_finding f[4];
	struct th_nic_desc d;

	memset(&d, 0, sizeof(d));
	d.opcode = TH_NIC_OP_COPY;
	d.threshold = 1;
	d.copy.src_key = 1;
	d.copy.dst_key = 2;
	d.copy.len = 64;
	EXPECT_EQ(0, verify_one(&d, regs, 2, f));
	d.copy.src_off = 8;		/* the source past its 64 bytes */
	ASSERT_EQ(1, verify_one(&d, regs, 2, f));
	EXPECT_EQ(TH_VERIFY_MEMORY, f[0].cls);
	EXPECT_NE(NULL, strstr(f[0].why, "key 0x1")) TH_LOG("%s", f[0].why);
	d.copy.src_off = 0;
	d.copy.dst_key = 1;		/* into the region without local write */
	ASSERT_EQ(1, verify_one(&d, regs, 2, f));
	EXPECT_NE(NULL, strstr(f[0].why, "lacks the local access")) TH_LOG("%s", f[0].why);

	memset(&d, 0, sizeof(d));
	d.opcode = TH_NIC_OP_REDUCE;
	d.threshold = 1;
	d.reduce.alu_op = TH_NIC_ALU_SUM;
	d.reduce.dtype = TH_NIC_DT_FLOAT64;
	d.reduce.count = 4;		/* 32 bytes */
	d.reduce.nsrc = 2;
	d.reduce.dst_key = 2;
	d.reduce.src_key[0] = 1;
	d.reduce.src_key[1] = 1;
	d.reduce.src_off[1] = 32;
	EXPECT_EQ(0, verify_one(&d, regs, 2, f));
	d.reduce.src_off[1] = 40;	/* the second operand past the end */
	ASSERT_EQ(1, verify_one(&d, regs, 2, f));
	EXPECT_NE(NULL, strstr(f[0].why, "local range [40, +32)")) TH_LOG("%s", f[0].why);
	/* strided: operand i at src_off[0] + i * src_off[1], key 0's */
	d.reduce.rflags = TH_NIC_RF_STRIDED;
	d.reduce.src_key[1] = 0;
	d.reduce.src_off[1] = 32;
	EXPECT_EQ(0, verify_one(&d, regs, 2, f));
	d.reduce.src_off[0] = 8;
	ASSERT_EQ(1, verify_one(&d, regs, 2, f));
	EXPECT_NE(NULL, strstr(f[0].why, "local range [40, +32)")) TH_LOG("%s", f[0].why);
	d.reduce.src_off[0] = 0;
	d.reduce.dst_key = 1;		/* the destination without local write */
	ASSERT_EQ(1, verify_one(&d, regs, 2, f));
	EXPECT_NE(NULL, strstr(f[0].why, "lacks the local access")) TH_LOG("%s", f[0].why);

	memset(&d, 0, sizeof(d));
	d.opcode = TH_NIC_OP_WRITE_INLINE;
	d.threshold = 1;
	d.wr_inline.len = 4;
	d.wr_inline.lkey = 2;
	d.wr_inline.off = 60;
	EXPECT_EQ(0, verify_one(&d, regs, 2, f));
	d.wr_inline.lkey = 1;
	ASSERT_EQ(1, verify_one(&d, regs, 2, f));
	EXPECT_NE(NULL, strstr(f[0].why, "lacks the local access")) TH_LOG("%s", f[0].why);
	/* no regions declared: nothing checked */
	EXPECT_EQ(0, verify_one(&d, regs, 0, f));
}

TEST(a_chain_behind_a_failing_one_is_unreachable_too)
{
	struct th_verify_region regs[2] = {
		{ .node = 0, .lkey = 1, .len = 64, .access = TH_NIC_ACCESS_ALL },
		{ .node = 1, .lkey = 1, .rkey = 7, .len = 8,
		  .access = TH_NIC_ACCESS_ALL },
	};
	struct th_nic_desc d[2];
	struct th_verify_chain c[2] = {
		{ .name = "put", .node = 0, .descs = &d[0], .ndesc = 1 },
		{ .name = "after", .node = 1, .descs = &d[1], .ndesc = 1 },
	};
	struct th_verify_set set = {
		.chains = c, .nchains = 2, .actions = &start0, .nactions = 1,
		.regions = regs, .nregions = 2,
	};
	struct th_verify_finding f[4];

	put_desc(&d[0], 32);
	memset(&d[1], 0, sizeof(d[1]));
	d[1].opcode = TH_NIC_OP_NOP;
	d[1].trig_ct = 2;
	d[1].threshold = 1;
	ASSERT_EQ(2, th_verify(&set, f, 4));
	EXPECT_EQ(TH_VERIFY_MEMORY, f[0].cls);
	EXPECT_EQ(TH_VERIFY_UNREACHABLE, f[1].cls);
	EXPECT_EQ(1, f[1].chain);
}

TEST(a_wait_that_cannot_end_is_found)
{
	struct th_nic_desc d;
	struct th_verify_chain c = { .name = "put", .descs = &d, .ndesc = 1 };
	struct th_verify_wait w = { .counter = { .node = 1, .ct = 2 }, .value = 1 };
	struct th_verify_set set = {
		.chains = &c, .nchains = 1, .actions = &start0, .nactions = 1,
		.waits = &w, .nwaits = 1,
	};
	struct th_verify_finding f[4];

	put_desc(&d, 8);
	/* the put raises n1.ct2 once: a wait for 1 ends, for 2 never */
	EXPECT_EQ(0, th_verify(&set, f, 4));
	w.value = 2;
	ASSERT_EQ(1, th_verify(&set, f, 4));
	EXPECT_EQ(TH_VERIFY_WAIT, f[0].cls);
	EXPECT_EQ(UINT32_MAX, f[0].chain);
	EXPECT_TRUE(f[0].has_counter);
	EXPECT_EQ(1, f[0].counter.node);
	EXPECT_EQ(2, f[0].counter.ct);
	EXPECT_NE(NULL, strstr(f[0].why, "can reach at most 1")) TH_LOG("%s", f[0].why);
	/* a counter nothing names at all */
	w = (struct th_verify_wait){ .counter = { .node = 3, .ct = 9 }, .value = 1 };
	ASSERT_EQ(1, th_verify(&set, f, 4));
	EXPECT_EQ(TH_VERIFY_WAIT, f[0].cls);
	EXPECT_STREQ("wait", th_verify_class_name(TH_VERIFY_WAIT));
	EXPECT_FALSE(th_verify_class_is_warning(TH_VERIFY_WAIT));
}

TEST(a_rearming_chain_the_host_does_not_start_runs_ahead)
{
	struct th_nic_desc d[2];
	struct th_verify_chain c = { .name = "tick", .descs = d, .ndesc = 2 };
	struct th_verify_set set = {
		.chains = &c, .nchains = 1, .actions = &start0, .nactions = 1,
	};
	struct th_verify_finding f[4];

	memset(d, 0, sizeof(d));
	d[0].opcode = TH_NIC_OP_NOP;
	d[0].flags = TH_NIC_DF_LINK;
	d[0].threshold = 1;
	d[1].opcode = TH_NIC_OP_REARM;
	d[1].rearm.stride = 1;
	EXPECT_EQ(0, th_verify(&set, f, 4));
	d[0].threshold = 0;
	/* the warning that it fires when posted, and the error */
	ASSERT_EQ(2, th_verify(&set, f, 4));
	EXPECT_EQ(TH_VERIFY_WARN_IMMEDIATE, f[0].cls);
	EXPECT_EQ(TH_VERIFY_AHEAD, f[1].cls);
	EXPECT_EQ(0, f[1].chain);
	EXPECT_NE(NULL, strstr(f[1].why, "threshold 0")) TH_LOG("%s", f[1].why);
	EXPECT_STREQ("ahead", th_verify_class_name(TH_VERIFY_AHEAD));
	EXPECT_EQ(NULL, th_verify_class_name(TH_VERIFY_CLASS_MAX));
	/* a set with no host action is not driven by one: immediate only */
	set.nactions = 0;
	ASSERT_EQ(1, th_verify(&set, f, 4));
	EXPECT_EQ(TH_VERIFY_WARN_IMMEDIATE, f[0].cls);
}

/* With the host's rounds known, a chain fed past them runs ahead too. */
TEST(a_rearming_chain_fed_past_the_hosts_rounds_runs_ahead)
{
	struct th_nic_desc d[3];
	struct th_verify_chain c[2] = {
		{ .name = "tick", .descs = d, .ndesc = 2 },
		{ .name = "feed", .descs = &d[2], .ndesc = 1 },
	};
	/* the host starts tick (ct0) and, for another reason, feed (ct2) */
	const struct th_verify_action acts[2] = {
		start0, { .counter = { .node = 0, .ct = 2 }, .value = 1 },
	};
	struct th_verify_set set = {
		.chains = c, .nchains = 2, .actions = acts, .nactions = 2,
	};
	struct th_verify_finding f[4];

	memset(d, 0, sizeof(d));
	d[0].opcode = TH_NIC_OP_NOP;
	d[0].flags = TH_NIC_DF_LINK | TH_NIC_DF_COMP_CT;
	d[0].comp_ct = 1;
	d[0].threshold = 1;
	d[1].opcode = TH_NIC_OP_REARM;
	d[1].rearm.stride = 1;
	/* feed adds one to tick's counter: tick can fire twice */
	d[2].opcode = TH_NIC_OP_CT_INC;
	d[2].trig_ct = 2;
	d[2].threshold = 1;
	d[2].ct.ct = 0;
	d[2].ct.value = 1;
	/* rounds unknown: tick fires twice, which nothing says is wrong */
	EXPECT_EQ(0, th_verify(&set, f, 4));
	set.rounds = 1;
	ASSERT_EQ(1, th_verify(&set, f, 4));
	EXPECT_EQ(TH_VERIFY_AHEAD, f[0].cls);
	EXPECT_EQ(0, f[0].chain);
	EXPECT_NE(NULL, strstr(f[0].why, "2 round(s) for the host's 1")) TH_LOG("%s", f[0].why);
	set.rounds = 2;
	EXPECT_EQ(0, th_verify(&set, f, 4));
}

TEST(regions_and_waits_without_arrays_are_refused)
{
	struct th_verify_set set = { .nregions = 1 };

	EXPECT_EQ(-EINVAL, th_verify(&set, NULL, 0));
	set.nregions = 0;
	set.nwaits = 1;
	EXPECT_EQ(-EINVAL, th_verify(&set, NULL, 0));
}

/* The engine's fit: each size rule, as the doorbell refuses it. */
TEST(the_fit_function_refuses_each_size_rule)
{
	const struct th_eng_fit fit = {
		.nodes = 2, .max_vports = 4, .max_counters = 16, .max_chain = 3,
		.sq_entries = 8, .cq_entries = 3,
	};
	struct th_eng_fit open = { 0 };
	struct th_nic_desc d[4];
	u32 bad;

	memset(d, 0, sizeof(d));
	put_desc(&d[0], 8);
	EXPECT_EQ(TH_NIC_REFUSE_NONE, th_eng_chain_fit(&fit, d, 1, &bad));
	EXPECT_EQ(TH_NIC_REFUSE_CHAIN, th_eng_chain_fit(&fit, d, 0, &bad));
	EXPECT_EQ(TH_NIC_REFUSE_CHAIN, th_eng_chain_fit(&fit, d, 4, &bad));
	d[0].trig_ct = 16;
	EXPECT_EQ(TH_NIC_REFUSE_TRIGGER, th_eng_chain_fit(&fit, d, 1, &bad));
	d[0].trig_ct = 0;
	d[0].xfer.remote_ct = 16;
	EXPECT_EQ(TH_NIC_REFUSE_COUNTER, th_eng_chain_fit(&fit, d, 1, &bad));
	d[0].xfer.remote_ct = 2;
	d[0].xfer.node = 2;
	EXPECT_EQ(TH_NIC_REFUSE_ADDRESS, th_eng_chain_fit(&fit, d, 1, &bad));
	d[0].xfer.node = 1;
	d[0].xfer.vport = 4;
	EXPECT_EQ(TH_NIC_REFUSE_ADDRESS, th_eng_chain_fit(&fit, d, 1, &bad));
	d[0].xfer.vport = 0;
	/* a completion counter out of range on the second descriptor */
	d[0].flags |= TH_NIC_DF_LINK;
	d[1].opcode = TH_NIC_OP_NOP;
	d[1].flags = TH_NIC_DF_COMP_CT;
	d[1].comp_ct = 20;
	EXPECT_EQ(TH_NIC_REFUSE_COUNTER, th_eng_chain_fit(&fit, d, 2, &bad));
	EXPECT_EQ(1, bad);
	d[1].comp_ct = 1;
	/* three CQ entries: 1 + two that write one do not fit 3 */
	d[1].flags |= TH_NIC_DF_SIGNAL | TH_NIC_DF_LINK;
	d[2].opcode = TH_NIC_OP_NOTIFY;
	EXPECT_EQ(TH_NIC_REFUSE_NONE, th_eng_chain_fit(&fit, d, 2, &bad));
	EXPECT_EQ(3, th_eng_chain_credits(d, 3));
	EXPECT_EQ(TH_NIC_REFUSE_NONE, th_eng_chain_fit(&fit, d, 3, &bad));
	d[0].flags |= TH_NIC_DF_SIGNAL;
	EXPECT_EQ(TH_NIC_REFUSE_CQ_SIZE, th_eng_chain_fit(&fit, d, 3, &bad));
	d[0].flags &= ~TH_NIC_DF_SIGNAL;
	/* REARM: last, and a stride */
	d[2].opcode = TH_NIC_OP_REARM;
	EXPECT_EQ(TH_NIC_REFUSE_REARM, th_eng_chain_fit(&fit, d, 3, &bad));
	EXPECT_EQ(2, bad);
	d[2].rearm.stride = 1;
	EXPECT_EQ(TH_NIC_REFUSE_NONE, th_eng_chain_fit(&fit, d, 3, &bad));
	d[1].opcode = TH_NIC_OP_REARM;
	d[1].rearm.stride = 1;
	EXPECT_EQ(TH_NIC_REFUSE_REARM, th_eng_chain_fit(&fit, d, 3, &bad));
	EXPECT_EQ(1, bad);
	/* limits of 0 are not checked */
	EXPECT_EQ(TH_NIC_REFUSE_NONE, th_eng_chain_fit(&open, d, 2, &bad));
}

TEST_HARNESS_MAIN
