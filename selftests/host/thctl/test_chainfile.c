// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_chainfile.c - the chain file parser of 'thctl post': every malformed
 * input is refused with its exact line, column and message (one row per
 * case), valid files give the right descriptors and actions, and the
 * example files parse.
 */
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"
#include "chainfile.h"

#ifndef THCTL_EXAMPLES
#define THCTL_EXAMPLES "tools/thctl/examples"
#endif

/* A small fabric, so the limits are easy to cross. */
static const struct cf_limits lim4 = {
	.nodes = 4, .max_counters = 16, .max_chain = 4,
};

#define PRELUDE "buffer a node=0 size=64\nbuffer b node=1 size=64\n" \
		"mr ka buffer=a\nmr kb buffer=b\n"
#define CHAIN	PRELUDE "chain c node=0\n"

/* ---- malformed input: one row each ---------------------------------- */

FIXTURE(bad) {
	struct cf_diag diag;
};

FIXTURE_VARIANT(bad) {
	const char *text;
	unsigned int line, col;
	const char *msg;
};

FIXTURE_SETUP(bad)
{
	memset(&self->diag, 0, sizeof(self->diag));
}

FIXTURE_TEARDOWN(bad)
{
}

#define BAD(name, txt, ln, cl, m)			\
	FIXTURE_VARIANT_ADD(bad, name) {		\
		.text = txt, .line = ln, .col = cl, .msg = m, \
	}

BAD(unknown_statement,
    "frobnicate x\n",
    1, 1, "unknown statement 'frobnicate': expected buffer, mr, chain, start, expect, print, or an operation inside a chain");
BAD(chain_without_ops,
    CHAIN,
    5, 1, "chain 'c' has no operations: expected operation lines (put, get, copy, write, reduce, ct_inc, ct_set, notify, nop, rearm) after it");
BAD(op_outside_chain,
    PRELUDE "put src=ka dst=kb len=8\n",
    5, 1, "'put' outside a chain: expected a 'chain NAME node=N' line before it");
BAD(unknown_node,
    PRELUDE "chain c node=9\n  nop\n",
    5, 14, "unknown node 9: the fabric has 4 nodes (0-3)");
BAD(trigger_counter_out_of_range,
    PRELUDE "chain c node=0 trigger=ct16>=1\n nop\n",
    5, 26, "counter 16 out of range: a vport has 16 counters (0-15)");
BAD(put_len_beyond_mr,
    CHAIN " put src=ka dst=kb len=65\n",
    6, 24, "length beyond MR 'ka': bytes 0..65, but the MR has 64 bytes");
BAD(put_missing_len,
    CHAIN " put src=ka dst=kb\n",
    6, 19, "expected len=BYTES");
BAD(put_src_not_local,
    CHAIN " put src=kb dst=ka len=8\n",
    6, 10, "MR 'kb' is on node 1: expected a local MR of node 0, where the chain runs");
BAD(put_unknown_mr,
    CHAIN " put src=kx dst=kb len=8\n",
    6, 10, "unknown MR 'kx': expected the name of an mr defined above");
BAD(size_not_a_number,
    "buffer a node=0 size=abc\n",
    1, 22, "expected a size in bytes (a non-negative integer), got 'abc'");
BAD(fill_bad_step,
    "buffer a node=0 size=64 fill=f64:1.5,x\n",
    1, 38, "expected iota, START or START,STEP (numbers of type f64)");
BAD(trigger_without_threshold,
    PRELUDE "chain c node=0 trigger=ct1\n nop\n",
    5, 24, "expected ctN>=THRESHOLD, got 'ct1'");
BAD(bitwise_on_float,
    CHAIN " reduce op=bxor type=f64 count=8 dst=ka src=ka\n",
    6, 12, "bxor on f64: expected an integer type for a bitwise operator");
BAD(too_many_sources,
    CHAIN " reduce op=sum type=f64 count=8 dst=ka src=ka,ka,ka,ka,ka,ka,ka,ka\n",
    6, 65, "too many sources: expected at most 7");
BAD(chain_too_long,
    CHAIN " nop\n nop\n nop\n nop\n nop\n",
    10, 2, "chain 'c' is too long: the NIC takes at most 4 operations per chain");
BAD(unknown_key,
    CHAIN " put src=ka dst=kb len=8 bogus=1\n",
    6, 26, "unexpected 'bogus=...' for put: expected one of: src= dst= len= ct= comp= signal");
BAD(duplicate_key,
    CHAIN " put src=ka src=ka dst=kb len=8\n",
    6, 13, "'src' given twice");
BAD(expect_without_threshold,
    CHAIN " nop\nexpect node=1 ct=3\n",
    7, 19, "expected '>= VALUE' (the threshold to wait for)");
BAD(bad_timeout,
    CHAIN " nop\nexpect node=1 ct=3 >= 1 timeout=5min\n",
    7, 33, "expected a timeout such as 500ms or 2s (units ns us ms s), got '5min'");
BAD(print_unknown_buffer,
    CHAIN " nop\nprint buffer=zz\n",
    7, 14, "unknown buffer 'zz': expected the name of a buffer defined above");
BAD(empty_file,
    "",
    1, 1, "no chain in the file: expected at least one 'chain NAME node=N' line");
BAD(inline_too_long,
    CHAIN " write dst=ka data=u64:1,2,3,4,5\n",
    6, 32, "too much inline data: at most 32 bytes");
BAD(ct_inc_out_of_range,
    CHAIN " ct_inc ct=99\n",
    6, 12, "counter 99 out of range: a vport has 16 counters (0-15)");
BAD(buffer_twice,
    "buffer a node=0 size=64\nbuffer a node=1 size=8\n",
    2, 8, "buffer 'a' defined twice");
BAD(key_without_value,
    CHAIN " put src=ka dst=kb len\n",
    6, 23, "expected '=' and a value after 'len'");
BAD(bad_name,
    PRELUDE "chain 1c node=0\n nop\n",
    5, 7, "expected a chain name (a letter or '_', then letters, digits or '_', at most 31), got '1c'");
BAD(local_write_with_remote_ct,
    CHAIN " write dst=ka data=u8:1 ct=2\n",
    6, 25, "ct= needs a remote target: MR 'ka' is local (use comp= for a local counter)");
BAD(reduce_count_beyond_mr,
    CHAIN " reduce op=sum type=f64 count=9 dst=ka src=ka\n",
    6, 37, "length beyond MR 'ka': bytes 0..72, but the MR has 64 bytes");
BAD(remote_offset_beyond_mr,
    CHAIN " put src=ka dst=kb:60 len=8\n",
    6, 27, "length beyond MR 'kb': bytes 60..68, but the MR has 64 bytes");
BAD(start_unknown_node,
    CHAIN " nop\nstart node=4 ct=0\n",
    7, 12, "unknown node 4: the fabric has 4 nodes (0-3)");
BAD(print_counter_out_of_range,
    CHAIN " nop\nprint counters node=0 cts=2-20\n",
    7, 29, "counter 20 out of range: a vport has 16 counters (0-15)");
BAD(strided_beyond_mr,
    CHAIN " reduce op=sum type=f64 count=2 dst=ka src=ka:0 stride=16 nsrc=5\n",
    6, 44, "length beyond MR 'ka': bytes 64..80, but the MR has 64 bytes");
BAD(mr_unknown_buffer,
    "mr ka buffer=nope\n",
    1, 14, "unknown buffer 'nope': expected the name of a buffer defined above");
BAD(fill_unknown_type,
    "buffer a node=0 size=64 fill=q32:1\n",
    1, 30, "expected a type (i8 i16 i32 i64 u8 u16 u32 u64 f32 f64), got 'q32'");
BAD(flag_with_value,
    CHAIN " put src=ka dst=kb len=8 signal=1\n",
    6, 26, "unexpected 'signal=...' for put: expected one of: src= dst= len= ct= comp= signal");
BAD(bad_access,
    "buffer a node=0 size=8\nmr ka buffer=a access=lw,xx\n",
    2, 26, "expected an access (none, lw, rr, rw, all; combine with ','), got 'xx'");

TEST_F(bad, refused_with_line_col_and_message)
{
	struct chainfile *cf = cf_parse(variant->text, &lim4, 0, &self->diag);

	ASSERT_EQ(NULL, cf) {
		cf_free(cf);
	}
	EXPECT_EQ(variant->line, self->diag.line);
	EXPECT_EQ(variant->col, self->diag.col);
	EXPECT_STREQ(variant->msg, self->diag.msg);
}

/* ---- valid input ------------------------------------------------------- */

static struct chainfile *parse_ok(struct __test_metadata *_metadata,
				  const char *text, unsigned int flags)
{
	struct cf_diag diag;
	struct chainfile *cf = cf_parse(text, &lim4, flags, &diag);

	EXPECT_NE(NULL, cf)
		TH_LOG("%u:%u: %s", diag.line, diag.col, diag.msg);
	return cf;
}

TEST(put_notify_descriptors)
{
	struct chainfile *cf = parse_ok(_metadata,
		"# a comment line\n"
		"buffer a node=0 size=64 fill=f64:iota   # trailing comment\n"
		"buffer b node=1 size=128\n"
		"mr ka buffer=a access=lw\n"
		"mr kb buffer=b off=64 len=64 access=lw,rw\n"
		"chain c1 node=0 trigger=ct2>=3\n"
		"\tput src=ka:8 dst=kb:16 len=32 ct=5 comp=1 signal\n"
		"\tnotify imm=0x55\n"
		"chain c2 node=1 cookie=99\n"
		"  ct_set ct=4 value=10\n"
		"  ct_inc ct=4 by=-3\n", 0);
	const struct cf_chain *c;
	const struct cf_desc *d;

	ASSERT_NE(NULL, cf);
	ASSERT_EQ(2, cf->nbuffers);
	ASSERT_EQ(2, cf->nmrs);
	EXPECT_EQ(64, cf->mrs[1].off);
	EXPECT_EQ(64, cf->mrs[1].len);
	EXPECT_EQ(1, cf->mrs[1].node);
	EXPECT_EQ(TH_NIC_ACCESS_LOCAL_WRITE | TH_NIC_ACCESS_REMOTE_WRITE,
		  cf->mrs[1].access);
	EXPECT_EQ(TH_NIC_DT_FLOAT64, cf->buffers[0].dtype);
	ASSERT_EQ(2, cf->nchains);
	c = &cf->chains[0];
	EXPECT_EQ(0, c->node);
	EXPECT_EQ(2, c->trig_ct);
	EXPECT_EQ(3, c->threshold);
	EXPECT_EQ(1, c->cookie);		/* default: position in the file */
	ASSERT_EQ(2, c->ndesc);
	d = &c->desc[0];
	EXPECT_EQ(TH_NIC_OP_PUT, d->opcode);
	EXPECT_EQ(7, d->line);
	EXPECT_EQ(0, d->src_mr[0]);
	EXPECT_EQ(8, d->src_off[0]);
	EXPECT_EQ(1, d->dst_mr);
	EXPECT_EQ(16, d->dst_off);
	EXPECT_EQ(32, d->len);
	EXPECT_EQ(5, d->remote_ct);
	EXPECT_EQ(1, d->comp_ct);
	EXPECT_TRUE(d->signal);
	d = &c->desc[1];
	EXPECT_EQ(TH_NIC_OP_NOTIFY, d->opcode);
	EXPECT_EQ(0x55, d->value);
	EXPECT_EQ(-1, d->comp_ct);
	EXPECT_FALSE(d->signal);
	c = &cf->chains[1];
	EXPECT_EQ(1, c->node);
	EXPECT_EQ(99, c->cookie);
	EXPECT_EQ(0, c->threshold);
	ASSERT_EQ(2, c->ndesc);
	EXPECT_EQ(TH_NIC_OP_CT_SET, c->desc[0].opcode);
	EXPECT_EQ(4, c->desc[0].ct);
	EXPECT_EQ(10, c->desc[0].value);
	EXPECT_EQ(TH_NIC_OP_CT_INC, c->desc[1].opcode);
	EXPECT_EQ((uint64_t)-3, c->desc[1].value);
	cf_free(cf);
}

TEST(reduce_forms)
{
	struct chainfile *cf = parse_ok(_metadata,
		PRELUDE
		"buffer s node=0 size=256\n"
		"mr ks buffer=s\n"
		"chain r node=0\n"
		"  reduce op=max type=i32 count=4 dst=ka:16 src=ka:0,ks:32,ks:64\n"
		"  reduce op=sum type=f32 count=8 dst=ka src=ks:0 stride=64 nsrc=4 accumulate\n", 0);
	const struct cf_desc *d;

	ASSERT_NE(NULL, cf);
	d = &cf->chains[0].desc[0];
	EXPECT_EQ(TH_NIC_OP_REDUCE, d->opcode);
	EXPECT_EQ(TH_NIC_ALU_MAX, d->alu_op);
	EXPECT_EQ(TH_NIC_DT_INT32, d->dtype);
	EXPECT_EQ(4, d->count);
	EXPECT_EQ(16, d->dst_off);
	ASSERT_EQ(3, d->nsrc);
	EXPECT_EQ(0, d->src_mr[0]);
	EXPECT_EQ(2, d->src_mr[1]);
	EXPECT_EQ(32, d->src_off[1]);
	EXPECT_EQ(64, d->src_off[2]);
	EXPECT_FALSE(d->strided);
	EXPECT_FALSE(d->accumulate);
	d = &cf->chains[0].desc[1];
	EXPECT_EQ(TH_NIC_ALU_SUM, d->alu_op);
	EXPECT_EQ(TH_NIC_DT_FLOAT32, d->dtype);
	EXPECT_TRUE(d->strided);
	EXPECT_TRUE(d->accumulate);
	EXPECT_EQ(4, d->nsrc);
	EXPECT_EQ(64, d->stride);
	cf_free(cf);
}

TEST(inline_data_and_remote)
{
	struct chainfile *cf = parse_ok(_metadata,
		CHAIN
		"  write dst=kb:4 data=u16:0x1234,7 ct=3\n"
		"  write dst=ka data=f64:1.5\n", 0);
	const struct cf_desc *d;
	uint16_t u[2];
	double x;

	ASSERT_NE(NULL, cf);
	d = &cf->chains[0].desc[0];
	EXPECT_EQ(TH_NIC_OP_WRITE_INLINE, d->opcode);
	EXPECT_TRUE(d->remote);
	EXPECT_EQ(4, d->len);
	EXPECT_EQ(3, d->remote_ct);
	memcpy(u, d->data, sizeof(u));
	EXPECT_EQ(0x1234, u[0]);
	EXPECT_EQ(7, u[1]);
	d = &cf->chains[0].desc[1];
	EXPECT_FALSE(d->remote);
	EXPECT_EQ(8, d->len);
	memcpy(&x, d->data, sizeof(x));
	EXPECT_EQ(1.5, x);
	cf_free(cf);
}

TEST(actions_in_file_order)
{
	struct chainfile *cf = parse_ok(_metadata,
		CHAIN " nop\n"
		"start node=0 ct=1\n"
		"start node=1 ct=2 set=9\n"
		"expect node=1 ct=3 >= 2 timeout=250ms\n"
		"expect node=1 ct=3 >=4\n"
		"print buffer=a as=hex\n"
		"print counters node=1 cts=2-5\n"
		"print completions node=0\n", 0);
	const struct cf_action *a;

	ASSERT_NE(NULL, cf);
	ASSERT_EQ(7, cf->nactions);
	a = cf->actions;
	EXPECT_EQ(CF_ACT_CT_INC, a[0].kind);
	EXPECT_EQ(1, a[0].ct);
	EXPECT_EQ(1, a[0].value);
	EXPECT_EQ(CF_ACT_CT_SET, a[1].kind);
	EXPECT_EQ(9, a[1].value);
	EXPECT_EQ(CF_ACT_EXPECT, a[2].kind);
	EXPECT_EQ(2, a[2].value);
	EXPECT_EQ(250000000ULL, a[2].timeout_ns);
	EXPECT_EQ(4, a[3].value);
	EXPECT_EQ(5000000000ULL, a[3].timeout_ns);
	EXPECT_EQ(CF_ACT_PRINT_BUFFER, a[4].kind);
	EXPECT_EQ(CF_PRINT_HEX, a[4].as);
	EXPECT_EQ(CF_ACT_PRINT_COUNTERS, a[5].kind);
	EXPECT_EQ(2, a[5].ct);
	EXPECT_EQ(5, a[5].ct_last);
	EXPECT_EQ(CF_ACT_PRINT_CQ, a[6].kind);
	EXPECT_EQ(13, a[6].line);
	cf_free(cf);
}

/* --no-precheck: ranges are left to the NIC, everything else still holds */
TEST(no_range_check)
{
	struct cf_diag diag;
	struct chainfile *cf;

	cf = parse_ok(_metadata, CHAIN " put src=ka dst=kb len=65\n",
		      CF_NO_RANGE_CHECK);
	ASSERT_NE(NULL, cf);
	EXPECT_EQ(65, cf->chains[0].desc[0].len);
	cf_free(cf);
	cf = cf_parse(CHAIN " put src=ka dst=kb len=65 ct=16\n", &lim4,
		      CF_NO_RANGE_CHECK, &diag);
	EXPECT_EQ(NULL, cf);
	EXPECT_EQ(6, diag.line);
	EXPECT_EQ(30, diag.col);
}

TEST(fill_series)
{
	struct chainfile *cf = parse_ok(_metadata,
		"buffer f node=0 size=32 fill=f64:0.5,0.25\n"
		"buffer i node=0 size=8 fill=i16:-2,3\n"
		"buffer u node=0 size=3 fill=u8:0xAB\n"
		CHAIN " nop\n", 0);
	double f[4];
	int16_t i[4];
	uint8_t u[3];

	ASSERT_NE(NULL, cf);
	cf_fill(&cf->buffers[0], f);
	EXPECT_EQ(0.5, f[0]);
	EXPECT_EQ(1.25, f[3]);
	cf_fill(&cf->buffers[1], i);
	EXPECT_EQ(-2, i[0]);
	EXPECT_EQ(7, i[3]);
	cf_fill(&cf->buffers[2], u);
	EXPECT_EQ(0xAB, u[0]);
	EXPECT_EQ(0xAB, u[2]);
	/* FNV-1a 64 of "a", the published test vector */
	EXPECT_EQ(0xaf63dc4c8601ec8cULL, cf_fnv1a64("a", 1));
	cf_free(cf);
}

TEST(examples_parse)
{
	static const char *const files[] = {
		"first_chain.chain", "put_reduce.chain", "reduce_tree.chain",
		"int_ops.chain",
	};
	const struct cf_limits lim = {
		.nodes = 16, .max_counters = 256, .max_chain = 16,
	};
	unsigned int i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct cf_diag diag;
		struct chainfile *cf;
		char path[512];

		snprintf(path, sizeof(path), "%s/%s", THCTL_EXAMPLES, files[i]);
		cf = cf_load(path, &lim, 0, &diag);
		EXPECT_NE(NULL, cf)
			TH_LOG("%s:%u:%u: %s", path, diag.line, diag.col, diag.msg);
		cf_free(cf);
	}
}

/*
 * Names that spell keys are names: "mr off" and "mr len" once crashed the
 * parser, which took the bare name for a key without a value (found by
 * fuzz/parse_fuzz.c; the input is in fuzz/regress/chainfile).
 */
TEST(names_that_spell_keys)
{
	struct cf_diag diag;
	struct chainfile *cf;

	cf = cf_parse("buffer off node=0 size=64\nmr off buffer=off\n"
		      "mr len buffer=off off=8 len=16\n"
		      "chain signal node=0\n nop signal\n", &lim4, 0, &diag);
	ASSERT_NE(NULL, cf) TH_LOG("%u:%u: %s", diag.line, diag.col, diag.msg);
	EXPECT_STREQ("off", cf->mrs[0].name);
	EXPECT_EQ(0, cf->mrs[0].off);
	EXPECT_EQ(64, cf->mrs[0].len);
	EXPECT_EQ(8, cf->mrs[1].off);
	EXPECT_EQ(16, cf->mrs[1].len);
	EXPECT_TRUE(cf->chains[0].desc[0].signal);
	cf_free(cf);
}

TEST(missing_file)
{
	struct cf_diag diag;

	EXPECT_EQ(NULL, cf_load("/nonexistent/x.chain", NULL, 0, &diag));
	EXPECT_EQ(0, diag.line);
	EXPECT_STREQ("No such file or directory", diag.msg);
}

TEST_HARNESS_MAIN
