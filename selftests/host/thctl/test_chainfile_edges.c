// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_chainfile_edges.c - the chain file parser's limits at their edges:
 * the last value accepted, the next refused with its line, column and
 * message.  Counter indexes without fabric limits (16 bits), counter
 * ranges (FIRST-LAST, FIRST <= LAST), strided REDUCE source counts (7, 6
 * with accumulate).  Each found by a mutation that survived
 * test_chainfile (scripts/mutants.list).
 */
#include <string.h>

#include "kselftest_harness.h"
#include "chainfile.h"

static const struct cf_limits lim16 = {
	.nodes = 4, .max_counters = 16, .max_chain = 4,
};

#define PRELUDE "buffer a node=0 size=64\nbuffer s node=0 size=64\n" \
		"mr ka buffer=a\nmr ks buffer=s\n"
#define CHAIN	PRELUDE "chain c node=0\n"

/* @text parses (0) or is refused at @line:@col with @msg. */
static int parse(struct __test_metadata *_metadata, const char *text,
		 const struct cf_limits *lim, unsigned int line,
		 unsigned int col, const char *msg)
{
	struct cf_diag diag;
	struct chainfile *cf;

	memset(&diag, 0, sizeof(diag));
	cf = cf_parse(text, lim, 0, &diag);
	if (!msg) {
		EXPECT_NE(NULL, cf) TH_LOG("%u:%u: %s", diag.line, diag.col,
					   diag.msg);
		cf_free(cf);
		return cf ? 0 : -1;
	}
	EXPECT_EQ(NULL, cf);
	cf_free(cf);
	EXPECT_EQ(line, diag.line);
	EXPECT_EQ(col, diag.col);
	EXPECT_STREQ(msg, diag.msg);
	return cf ? -1 : 0;
}

/* Without a fabric's limits a counter index is still 16 bits. */
TEST(counter_index_is_16_bits_without_limits)
{
	EXPECT_EQ(0, parse(_metadata, CHAIN " ct_inc ct=65535\n", NULL,
			   0, 0, NULL));
	EXPECT_EQ(0, parse(_metadata, CHAIN " ct_inc ct=65536\n", NULL,
			   6, 12, "counter 65536 out of range"));
}

TEST(counter_ranges_may_be_one_counter_not_reversed)
{
	EXPECT_EQ(0, parse(_metadata, CHAIN " nop\nprint counters node=0 cts=15-15\n",
			   &lim16, 0, 0, NULL));
	EXPECT_EQ(0, parse(_metadata, CHAIN " nop\nprint counters node=0 cts=5-4\n",
			   &lim16, 7, 27,
			   "expected a range FIRST-LAST with FIRST <= LAST"));
}

/* Strided: 7 sources (8 bytes each, 56 of 64), 6 with accumulate. */
TEST(strided_source_counts)
{
	EXPECT_EQ(0, parse(_metadata, CHAIN
			   " reduce op=sum type=f64 count=1 dst=ka src=ks:0 stride=8 nsrc=7\n",
			   &lim16, 0, 0, NULL));
	EXPECT_EQ(0, parse(_metadata, CHAIN
			   " reduce op=sum type=f64 count=1 dst=ka src=ks:0 stride=8 nsrc=8\n",
			   &lim16, 6, 63, "expected 1..7 sources"));
	EXPECT_EQ(0, parse(_metadata, CHAIN
			   " reduce op=sum type=f64 count=1 dst=ka src=ks:0 stride=8 nsrc=6 accumulate\n",
			   &lim16, 0, 0, NULL));
	EXPECT_EQ(0, parse(_metadata, CHAIN
			   " reduce op=sum type=f64 count=1 dst=ka src=ks:0 stride=8 nsrc=7 accumulate\n",
			   &lim16, 6, 63,
			   "expected 1..6 sources (accumulate uses one)"));
}

TEST_HARNESS_MAIN
