// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_sim.c - the LogGP(S) simulator against known answers: LogGOPSim's
 * 16-rank dissemination barrier (22,000 ns) and its README's binomial
 * reduce (34,914 / 24,776 / 13,138 ...), the closed form of a binomial
 * reduce then broadcast, rendezvous, wildcards, calc and irequires, the
 * GOAL writer's round trip, and every refusal of the reader and the core.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include <thverbs/sim.h>

#define L_	2500
#define O_	1500
#define G_	6

/* a growing text buffer */
struct txt {
	char *s;
	size_t len, cap;
};

static void txt_add(struct txt *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void txt_add(struct txt *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->s ? t->s + t->len : NULL,
			      t->s ? t->cap - t->len : 0, fmt, ap);
		va_end(ap);
		if (t->s && (size_t)n < t->cap - t->len)
			break;
		t->cap = t->cap * 2 + (size_t)n + 256;
		t->s = realloc(t->s, t->cap);
		if (!t->s)
			abort();
	}
	t->len += (size_t)n;
}

/* parses and runs @text under LogGOPSim's defaults; 0 or the error */
static int sim_text(const char *text, struct th_sim_result *res, char *err,
		    size_t errlen)
{
	struct th_sim_params p;
	struct th_sim_goal *g;
	int ret;

	th_sim_params_default(&p);
	ret = th_sim_goal_parse(text, strlen(text), "t.goal", &g, err, errlen);
	if (ret)
		return ret;
	ret = th_sim_run(g, &p, res, err, errlen);
	th_sim_goal_destroy(g);
	return ret;
}

/*
 * schedgen's dissemination barrier: round k sends to rank + 2^k and
 * receives from rank - 2^k; a round's send requires the last receive.
 */
static char *dissemination(unsigned int n)
{
	struct txt t = { 0 };
	unsigned int r, k, lbl;

	txt_add(&t, "// dissemination barrier, %u ranks\nnum_ranks %u\n", n, n);
	for (r = 0; r < n; r++) {
		txt_add(&t, "\nrank %u {\n", r);
		lbl = 0;
		for (k = 1; k < n; k <<= 1) {
			txt_add(&t, "l%u: send 1b to %u tag 0\n", lbl + 1, (r + k) % n);
			if (lbl)
				txt_add(&t, "l%u requires l%u\n", lbl + 1, lbl);
			txt_add(&t, "l%u: recv 1b from %u tag 0\n", lbl + 2,
				(r + n - k) % n);
			lbl += 2;
		}
		txt_add(&t, "}\n");
	}
	return t.s;
}

TEST(dissemination_16_is_22000)
{
	struct th_sim_result res;
	char err[256] = "", *text = dissemination(16);
	unsigned int r;

	ASSERT_EQ(0, sim_text(text, &res, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(16u, res.ranks);
	/* 4 rounds of o (send) + L + o (receive) */
	for (r = 0; r < 16; r++)
		EXPECT_EQ(22000u, res.finish_ns[r]) TH_LOG("rank %u", r);
	EXPECT_EQ(22000u, res.max_ns);
	EXPECT_EQ(4u * 16u * 3u, res.events);	/* send, msg, recv each */
	th_sim_result_fini(&res);
	free(text);
}

/* LogGOPSim's README: schedgen binomialtreereduce, 8 ranks, 1024 B */
static const char readme_reduce[] =
	"num_ranks 8\n"
	"rank 0 {\n"
	"l1: recv 1024b from 1 tag 0\n"
	"l2: recv 1024b from 2 tag 0\n"
	"l3: recv 1024b from 4 tag 0\n"
	"}\n"
	"rank 1 {\n"
	"l1: send 1024b to 0 tag 0\n"
	"l2: recv 1024b from 3 tag 0\n"
	"l1 requires l2\n"
	"l3: recv 1024b from 5 tag 0\n"
	"l1 requires l3\n"
	"}\n"
	"rank 2 {\n"
	"l1: send 1024b to 0 tag 0\n"
	"l2: recv 1024b from 6 tag 0\n"
	"l1 requires l2\n"
	"}\n"
	"rank 3 {\n"
	"l1: send 1024b to 1 tag 0\n"
	"l2: recv 1024b from 7 tag 0\n"
	"l1 requires l2\n"
	"}\n"
	"rank 4 {\nl1: send 1024b to 0 tag 0\n}\n"
	"rank 5 {\nl1: send 1024b to 1 tag 0\n}\n"
	"rank 6 {\nl1: send 1024b to 2 tag 0\n}\n"
	"rank 7 {\nl1: send 1024b to 3 tag 0\n}\n";

static const uint64_t readme_times[8] = {
	34914, 24776, 13138, 13138, 1500, 1500, 1500, 1500,
};

TEST(readme_binomial_reduce)
{
	struct th_sim_result res;
	char err[256] = "";
	unsigned int r;

	ASSERT_EQ(0, sim_text(readme_reduce, &res, err, sizeof(err)))
		TH_LOG("%s", err);
	for (r = 0; r < 8; r++)
		EXPECT_EQ(readme_times[r], res.finish_ns[r]) TH_LOG("rank %u", r);
	EXPECT_EQ(34914u, res.max_ns);
	/* LogGOPSim reports 21 events for it: 7 sends, 7 msgs, 7 recvs */
	EXPECT_EQ(21u, res.events);
	th_sim_result_fini(&res);
}

/* the generator's radix-2 reduce is schedgen's: the same answer */
TEST(generated_reduce_matches_readme)
{
	struct th_sim_result res;
	struct th_sim_params p;
	struct th_sim_goal *g;
	char err[256] = "";
	unsigned int r;

	th_sim_params_default(&p);
	ASSERT_EQ(0, th_sim_goal_gen("reduce", 8, 2, 1024, &g, err, sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(0, th_sim_run(g, &p, &res, err, sizeof(err))) TH_LOG("%s", err);
	for (r = 0; r < 8; r++)
		EXPECT_EQ(readme_times[r], res.finish_ns[r]) TH_LOG("rank %u", r);
	th_sim_result_fini(&res);
	th_sim_goal_destroy(g);
}

/*
 * A binomial reduce then broadcast of 8 B at P = 2^k: each of the 2 log2 P
 * hops on the critical path costs o + L + o + 7G, the sender's later sends
 * (o apart, g < o) never delaying the subtree that goes first.
 */
TEST(allreduce_closed_form)
{
	struct th_sim_params p;
	unsigned int k;

	th_sim_params_default(&p);
	for (k = 1; k <= 12; k++) {
		struct th_sim_result res;
		struct th_sim_goal *g;
		char err[256] = "";
		uint64_t want = 2ull * k * (2 * O_ + L_ + 7 * G_);

		ASSERT_EQ(0, th_sim_goal_gen("allreduce", 1u << k, 2, 8, &g, err,
					     sizeof(err))) TH_LOG("%s", err);
		ASSERT_EQ(0, th_sim_run(g, &p, &res, err, sizeof(err)))
			TH_LOG("%s", err);
		EXPECT_EQ(want, res.max_ns) TH_LOG("P = %u", 1u << k);
		th_sim_result_fini(&res);
		th_sim_goal_destroy(g);
	}
}

/*
 * With a calc of C after each receive a reduction takes
 * (th_sim_goal_gen_calc()): the reduce's log2 P levels each add C, the
 * broadcast none; C = 0 is th_sim_goal_gen()'s schedule; C past 2^40 is
 * refused.
 */
TEST(allreduce_with_reductions_closed_form)
{
	const uint64_t c = 800;
	struct th_sim_params p;
	struct th_sim_goal *g;
	char err[256] = "";
	unsigned int k;

	th_sim_params_default(&p);
	for (k = 1; k <= 12; k++) {
		struct th_sim_result res, plain;
		struct th_sim_goal *g0;

		ASSERT_EQ(0, th_sim_goal_gen_calc("allreduce", 1u << k, 2, 8, c,
						  &g, err, sizeof(err)))
			TH_LOG("%s", err);
		ASSERT_EQ(0, th_sim_run(g, &p, &res, err, sizeof(err)))
			TH_LOG("%s", err);
		EXPECT_EQ(2ull * k * (2 * O_ + L_ + 7 * G_) + k * c, res.max_ns)
			TH_LOG("P = %u", 1u << k);
		ASSERT_EQ(0, th_sim_goal_gen_calc("allreduce", 1u << k, 2, 8, 0,
						  &g0, err, sizeof(err)));
		ASSERT_EQ(0, th_sim_run(g0, &p, &plain, err, sizeof(err)));
		EXPECT_EQ(2ull * k * (2 * O_ + L_ + 7 * G_), plain.max_ns);
		th_sim_result_fini(&res);
		th_sim_result_fini(&plain);
		th_sim_goal_destroy(g);
		th_sim_goal_destroy(g0);
	}
	EXPECT_EQ(-EINVAL, th_sim_goal_gen_calc("reduce", 4, 2, 8, 1ull << 40,
						&g, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "below 2^40")) TH_LOG("%s", err);
}

/* reduce alone and broadcast alone: log2 P hops each */
TEST(reduce_and_bcast_closed_form)
{
	static const char *const pat[] = { "reduce", "bcast" };
	struct th_sim_params p;
	unsigned int k, i;

	th_sim_params_default(&p);
	for (i = 0; i < 2; i++)
		for (k = 1; k <= 10; k++) {
			struct th_sim_result res;
			struct th_sim_goal *g;
			char err[256] = "";

			ASSERT_EQ(0, th_sim_goal_gen(pat[i], 1u << k, 2, 8, &g,
						     err, sizeof(err)));
			ASSERT_EQ(0, th_sim_run(g, &p, &res, err, sizeof(err)))
				TH_LOG("%s", err);
			EXPECT_EQ((uint64_t)k * (2 * O_ + L_ + 7 * G_), res.max_ns)
				TH_LOG("%s P = %u", pat[i], 1u << k);
			th_sim_result_fini(&res);
			th_sim_goal_destroy(g);
		}
}

/* a k-nomial tree (radix 4, 16 ranks): two levels of 3 children each */
TEST(knomial_radix4)
{
	struct th_sim_result res;
	struct th_sim_params p;
	struct th_sim_goal *g;
	char err[256] = "";
	uint64_t hop = 2 * O_ + L_ + 7 * G_;

	th_sim_params_default(&p);
	ASSERT_EQ(0, th_sim_goal_gen("bcast", 16, 4, 8, &g, err, sizeof(err)));
	ASSERT_EQ(0, th_sim_run(g, &p, &res, err, sizeof(err))) TH_LOG("%s", err);
	/*
	 * The root sends to 1, 2, 3, 4, 8, 12, o apart; rank 1 (the first)
	 * receives after one hop and sends to 5, 9, 13; rank 3 receives 2o
	 * later and sends to 7, 11, 15; rank 15 gets rank 3's third send.
	 */
	EXPECT_EQ(hop + 3 * O_, res.finish_ns[1]);
	EXPECT_EQ(2 * O_ + hop + 3 * O_, res.finish_ns[3]);
	EXPECT_EQ(2 * O_ + hop + 2 * O_ + hop, res.finish_ns[15]);
	EXPECT_EQ(res.finish_ns[15], res.max_ns);
	th_sim_result_fini(&res);
	th_sim_goal_destroy(g);
}

/* one message: o at the sender; L; o + (n-1)G at the receiver */
TEST(one_message_charges)
{
	struct th_sim_result res;
	char err[256] = "";

	ASSERT_EQ(0, sim_text("num_ranks 2\nrank 0 {\nl1: send 100b to 1 tag 5\n}\n"
			      "rank 1 {\nl1: recv 100b from 0 tag 5\n}\n",
			      &res, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ((uint64_t)O_, res.finish_ns[0]);
	EXPECT_EQ((uint64_t)(O_ + L_ + O_ + 99 * G_), res.finish_ns[1]);
	th_sim_result_fini(&res);
}

/* two sends back to back: the second waits for o (o > g) */
TEST(gap_and_overhead_serialise)
{
	struct th_sim_result res;
	struct th_sim_params p;
	struct th_sim_goal *g;
	char err[256] = "";
	const char *text =
		"num_ranks 2\nrank 0 {\nl1: send 1000b to 1 tag 0\nl2: send 1000b to 1 tag 1\n}\n"
		"rank 1 {\nl1: recv 1000b from 0 tag 0\nl2: recv 1000b from 0 tag 1\n}\n";

	/* g + (n-1)G = 1000 + 999*6 = 6994 > o: the NIC gap decides */
	th_sim_params_default(&p);
	ASSERT_EQ(0, th_sim_goal_parse(text, strlen(text), "t", &g, err, sizeof(err)));
	ASSERT_EQ(0, th_sim_run(g, &p, &res, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ((uint64_t)(6994 + O_), res.finish_ns[0]);
	/*
	 * Rank 1: the first message lands at o + L = 4000 and holds the CPU
	 * for o + 999G (to 11494); the second lands at 6994 + 4000 = 10994,
	 * waits for the CPU, and holds it o + 999G more.
	 */
	EXPECT_EQ((uint64_t)(O_ + L_ + 2 * (O_ + 999 * G_)), res.finish_ns[1]);
	/* 2 sends, 2 messages, 2 receives: the waits are not counted */
	EXPECT_EQ(6u, res.events);
	th_sim_result_fini(&res);
	th_sim_goal_destroy(g);
}

/* above S: the send completes only when its receive matches */
TEST(rendezvous_holds_the_sender)
{
	struct th_sim_result res;
	struct th_sim_params p;
	struct th_sim_goal *g;
	char err[256] = "";
	const char *text =
		"num_ranks 2\n"
		"rank 0 {\nl1: send 100b to 1 tag 0\nl2: calc 10\nl2 requires l1\n}\n"
		"rank 1 {\nl1: calc 50000\nl2: recv 100b from 0 tag 0\nl2 requires l1\n}\n";

	th_sim_params_default(&p);
	p.S = 64;
	ASSERT_EQ(0, th_sim_goal_parse(text, strlen(text), "t", &g, err, sizeof(err)));
	ASSERT_EQ(0, th_sim_run(g, &p, &res, err, sizeof(err))) TH_LOG("%s", err);
	/*
	 * The message lands at o + L = 4000 while rank 1 computes (to
	 * 50000): its CPU takes it at 50000 (o + 99G), when the receive,
	 * freed by the calc, is posted: they match at 50000, rank 0's send
	 * is done then (its CPU held until then), and its calc runs after.
	 */
	EXPECT_EQ((uint64_t)(50000 + O_ + 99 * G_), res.finish_ns[1]);
	EXPECT_EQ((uint64_t)(50000 + 10), res.finish_ns[0]);
	/* eager (S = default): the calc follows the send's o */
	th_sim_result_fini(&res);
	p.S = 65535;
	ASSERT_EQ(0, th_sim_run(g, &p, &res, err, sizeof(err)));
	EXPECT_EQ((uint64_t)(O_ + 10), res.finish_ns[0]);
	th_sim_result_fini(&res);
	th_sim_goal_destroy(g);
}

/* -1 receives: the first posted receive that accepts takes the message */
TEST(wildcards_in_posting_order)
{
	struct th_sim_result res;
	char err[256] = "";

	/*
	 * Rank 2 posts (from -1, tag 7) then (from 1, tag -1); rank 0's
	 * message (tag 7) arrives first and takes the first; rank 1's (tag
	 * 3) the second.  A calc after each receive tells which ran when.
	 */
	ASSERT_EQ(0, sim_text(
		"num_ranks 3\n"
		"rank 0 {\nl1: send 8b to 2 tag 7\n}\n"
		"rank 1 {\nl0: calc 10000\nl1: send 8b to 2 tag 3\nl1 requires l0\n}\n"
		"rank 2 {\n"
		"a: recv 8b from -1 tag 7\n"
		"b: recv 8b from 1 tag -1\n"
		"c: calc 1\n"
		"c requires a\n"
		"}\n", &res, err, sizeof(err))) TH_LOG("%s", err);
	/* msg 1 at 4000: o+7G to 5542, calc to 5543; msg 2 at 15500 */
	EXPECT_EQ((uint64_t)(10000 + O_ + L_ + O_ + 7 * G_), res.finish_ns[2]);
	th_sim_result_fini(&res);

	/* a message no posted receive accepts waits for one that does */
	ASSERT_EQ(-EDEADLK, sim_text(
		"num_ranks 2\n"
		"rank 0 {\nl1: send 8b to 1 tag 1\n}\n"
		"rank 1 {\nl1: recv 8b from 0 tag 2\n}\n", &res, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "no receive took it")) TH_LOG("%s", err);
}

/* irequires: the dependent may start once the other started */
TEST(irequires_and_requires)
{
	struct th_sim_result res;
	char err[256] = "";

	ASSERT_EQ(0, sim_text(
		"num_ranks 2\nrank 0 {\n"
		"l1: recv 8b from 1 tag 0\n"
		"l2: calc 10 cpu 1\n"
		"l2 irequires l1\n"
		"l3: calc 5000 cpu 1\n"
		"l3 requires l1\n"
		"}\nrank 1 {\nl1: send 8b to 0 tag 0\n}\n", &res, err, sizeof(err)))
		TH_LOG("%s", err);
	/*
	 * l2 runs on cpu 1 as soon as the receive is posted (0 to 10); l3
	 * once the message matched it, as it lands at o + L = 4000 (the
	 * receive is done then, as in LogGOPSim, while cpu 0 pays o + 7G),
	 * to 9000.  Had l2 waited for the receive, cpu 1 would end at 9010.
	 */
	EXPECT_EQ((uint64_t)(O_ + L_ + 5000), res.finish_ns[0]);
	th_sim_result_fini(&res);
}

/* what the writer writes, the reader reads, with the same answer */
TEST(write_read_round_trip)
{
	struct th_sim_result a, b;
	struct th_sim_params p;
	struct th_sim_goal *g, *g2;
	char err[256] = "", *buf = NULL;
	size_t len = 0;
	unsigned int r;
	FILE *f;

	th_sim_params_default(&p);
	ASSERT_EQ(0, th_sim_goal_gen("allreduce", 37, 3, 4096, &g, err, sizeof(err)));
	f = open_memstream(&buf, &len);
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, th_sim_goal_write(g, f));
	fclose(f);
	ASSERT_NE(NULL, strstr(buf, "num_ranks 37\n"));
	ASSERT_EQ(0, th_sim_goal_parse(buf, len, "w", &g2, err, sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(0, th_sim_run(g, &p, &a, err, sizeof(err)));
	ASSERT_EQ(0, th_sim_run(g2, &p, &b, err, sizeof(err)));
	ASSERT_EQ(a.ranks, b.ranks);
	for (r = 0; r < a.ranks; r++)
		EXPECT_EQ(a.finish_ns[r], b.finish_ns[r]);
	EXPECT_EQ(a.events, b.events);
	EXPECT_LT(0u, a.max_ns);
	th_sim_result_fini(&a);
	th_sim_result_fini(&b);
	th_sim_goal_destroy(g);
	th_sim_goal_destroy(g2);
	free(buf);
}

/* comments, blank lines, unlabelled operations, cpu/nic annotations */
TEST(reader_accepts_the_format)
{
	struct th_sim_result res;
	char err[256] = "";

	ASSERT_EQ(0, sim_text(
		"/* a header\n   comment */\n"
		"num_ranks 2 // two\n\n"
		"rank 1 {\n"
		"  recv 8b from -1 tag -1 cpu 0 nic 1\n"
		"}\n"
		"rank 0 {   /* block */\n"
		"\tx_1: send 8b to 1 tag 2 nic 1 cpu 0\n"
		"}\n", &res, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ((uint64_t)(2 * O_ + L_ + 7 * G_), res.finish_ns[1]);
	th_sim_result_fini(&res);
}

struct bad_case {
	const char *text;
	const char *why;	/* in the message */
	int ret;
};

static const struct bad_case bad[] = {
	{ "rank 0 {\n}\n", "t.goal:1: a rank block before num_ranks", -EINVAL },
	{ "num_ranks 2\nnum_ranks 2\n", "t.goal:2: num_ranks given twice", -EINVAL },
	{ "num_ranks 0\n", "t.goal:1: num_ranks 0", -EINVAL },
	{ "num_ranks 99999999999\n", "above the limit", -EINVAL },
	{ "num_ranks 2\nrank 2 {\n}\n", "t.goal:2: rank 2 is not a rank", -EINVAL },
	{ "num_ranks 2\nrank 0 {\n}\nrank 0 {\n}\n", "t.goal:4: rank 0 has a block already (line 2)", -EINVAL },
	{ "num_ranks 2\nrank 0 {\nl1: send 8b to 1\n", "is not closed", -EINVAL },
	{ "num_ranks 2\nrank 0\n", "t.goal:2: '{' expected", -EINVAL },
	{ "num_ranks 2\nrank 0 {\nl1: send 8b to 5 tag 0\n}\n", "t.goal:3: peer 5 is not a rank: num_ranks is 2", -EINVAL },
	{ "num_ranks 2\nrank 0 {\nl1: send 8b to -1 tag 0\n}\n", "t.goal:3: a peer rank cannot be -1", -EINVAL },
	{ "num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag -1\n}\n", "t.goal:3: a tag cannot be -1", -EINVAL },
	{ "num_ranks 2\nrank 0 {\nl1: send 8 to 1\n}\n", "t.goal:3: 'b' expected after the size, found 'to'", -EINVAL },
	{ "num_ranks 2\nrank 0 {\nl1: send 8b from 1\n}\n", "t.goal:3: 'to' expected, found 'from'", -EINVAL },
	{ "num_ranks 2\nrank 0 {\nl1: recv 8b to 1\n}\n", "t.goal:3: 'from' expected, found 'to'", -EINVAL },
	{ "num_ranks 2\nrank 0 {\nl1: jump 8b to 1\n}\n", "t.goal:3: send, recv or calc expected, found 'jump'", -EINVAL },
	{ "num_ranks 2\nrank 0 {\nl1: send 2000000000000b to 1\n}\n", "t.goal:3: a size in bytes 2000000000000 is above the limit", -EINVAL },
	{ "num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 0 tag 1\n}\n", "t.goal:3: 'tag': expected", -EINVAL },
	{ "num_ranks 2\nrank 0 {\nl1: calc 5 tag 1\n}\n", "t.goal:3: 'tag': expected cpu or nic", -EINVAL },
	{ "num_ranks 2\nrank 0 {\nl1: calc 5 cpu 16\n}\n", "t.goal:3: a cpu number 16 is above the limit 15", -EINVAL },
	{ "num_ranks 2\nrank 0 {\nl1: calc 5\nl1: calc 6\n}\n", "t.goal:4: label 'l1' is already defined", -EINVAL },
	{ "num_ranks 2\nrank 0 {\nl1: calc 5\nl1 requires l9\n}\n", "t.goal:4: label 'l9' names no operation of rank 0", -EINVAL },
	{ "num_ranks 2\nrank 0 {\nl1: calc 5\nl1 requires l1\n}\n", "t.goal:4: 'l1' requires itself", -EINVAL },
	{ "num_ranks 2\nrank 0 {\nl1: calc 5\nl1 needs l1\n}\n", "t.goal:4: ':', requires or irequires expected", -EINVAL },
	{ "num_ranks 2\nrank 0 {\nl1: calc 5 l2: calc 6\n}\n", "t.goal:3: 'l2': expected cpu or nic", -EINVAL },
	{ "num_ranks 2\nrank 0 {\nl1: calc 5\n} rank 1 {\n", "t.goal:4: 'rank' after '}'", -EINVAL },
	{ "num_ranks 2\n/* open\n\n", "t.goal:2: a /* comment is never closed", -EINVAL },
	{ "num_ranks 2\nrank 0 {\nl1: calc -5\n}\n", "t.goal:3: a negative number other than -1", -EINVAL },
	{ "num_ranks 2\nrank 0 {\nl1: calc 5 @\n}\n", "t.goal:3: unexpected character '@'", -EINVAL },
	{ "num_ranks 2\nhello\n", "t.goal:2: 'hello': num_ranks or a rank block expected", -EINVAL },
	{ "// nothing\n", "no num_ranks", -EINVAL },
	{ "num_ranks 99999999999999999999999\n", "t.goal:1: a number too large for 64 bits", -EINVAL },
	{ "num_ranks 2\n\x01\n", "t.goal:2: unexpected byte 0x01", -EINVAL },
	{ "num_ranks 2\nrank 0 {\nl1: calc 5\nl1 requires 3\n}\n", "t.goal:4: a label expected, found '3'", -EINVAL },
	{ "num_ranks 2\nrank 0 {\n7: calc 5\n}\n", "t.goal:3: '7': an operation, a dependency or '}' expected", -EINVAL },
	{ "num_ranks 2\nrank 0 {\nl1 requires l2 l3\n}\n", "t.goal:3: 'l3' after the dependency: one statement a line", -EINVAL },
	{ "num_ranks 1\nrank 0 {\nl1: calc 1\nl2: calc 1\nl3: calc 1\n"
	  "l1 requires l3\nl2 requires l1\nl3 irequires l2\n}\n",
	  "t.goal:3: rank 0: the requires and irequires of this operation form a cycle", -ELOOP },
	/* l1 waits behind the cycle l2 -> l3 -> l2: the cycle is named */
	{ "num_ranks 1\nrank 0 {\nl1: calc 1\nl2: calc 1\nl3: calc 1\n"
	  "l1 requires l2\nl2 requires l3\nl3 requires l2\n}\n",
	  "t.goal:4: rank 0: the requires and irequires of this operation form a cycle", -ELOOP },
	{ "num_ranks 1\nrank 0 {\nlabel_of_more_than_sixty_four_bytes_is_refused_by_the_reader_xxxxxxxxxx: calc 1\n}\n",
	  "t.goal:3: a label longer than 64 bytes", -EINVAL },
};

TEST(reader_refusals)
{
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct th_sim_goal *g = (void *)1;
		char err[256] = "";

		EXPECT_EQ(bad[i].ret, th_sim_goal_parse(bad[i].text, strlen(bad[i].text),
						       "t.goal", &g, err, sizeof(err)))
			TH_LOG("case %u: %s", i, bad[i].text);
		EXPECT_EQ(NULL, g);
		EXPECT_NE(NULL, strstr(err, bad[i].why))
			TH_LOG("case %u: got '%s', want '%s'", i, err, bad[i].why);
	}
}

/* the core's refusals: never matched, never started, parameters, overflow */
TEST(run_refusals)
{
	struct th_sim_result res;
	struct th_sim_params p;
	struct th_sim_goal *g;
	char err[256] = "";
	const char *text;

	ASSERT_EQ(-EDEADLK, sim_text(
		"num_ranks 2\nrank 0 {\n}\nrank 1 {\nl1: recv 8b from 0 tag 0\n}\n",
		&res, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "rank 1: the operation at line 5, a receive, was never matched by a send"))
		TH_LOG("%s", err);

	ASSERT_EQ(-EDEADLK, sim_text(
		"num_ranks 2\nrank 0 {\nl1: recv 8b from 1 tag 0\nl2: send 8b to 1 tag 0\nl2 requires l1\n}\n"
		"rank 1 {\nl1: recv 8b from 0 tag 0\nl2: send 8b to 0 tag 0\nl2 requires l1\n}\n",
		&res, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "was never matched")) TH_LOG("%s", err);

	/* what requires a receive never matched never starts */
	ASSERT_EQ(-EDEADLK, sim_text(
		"num_ranks 2\nrank 0 {\nl1: calc 5\nl1 requires l2\nl2: recv 8b from 1 tag 0\n}\n"
		"rank 1 {\n}\n", &res, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "rank 0: the operation at line 3 never started: what it requires never completed"))
		TH_LOG("%s", err);

	/* a rendezvous send its peer never receives */
	th_sim_params_default(&p);
	p.S = 4;
	text = "num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 0\n}\nrank 1 {\nl1: recv 8b from 0 tag 1\n}\n";
	ASSERT_EQ(0, th_sim_goal_parse(text, strlen(text), "t", &g, err, sizeof(err)));
	ASSERT_EQ(-EDEADLK, th_sim_run(g, &p, &res, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "no receive took it")) TH_LOG("%s", err);

	p.G = 1ull << 20;
	ASSERT_EQ(-EINVAL, th_sim_run(g, &p, &res, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "out of range")) TH_LOG("%s", err);
	EXPECT_EQ(NULL, res.finish_ns);
	th_sim_goal_destroy(g);

	/* virtual time past 2^64 ns: sends of 2^40 - 1 bytes at G = 2^20 - 1
	 * hold the NIC ~2^60 ns each; the 16th cannot start in 64 bits */
	th_sim_params_default(&p);
	p.G = (1ull << 20) - 1;
	{
		struct txt t = { 0 };
		unsigned int i;

		txt_add(&t, "num_ranks 2\nrank 0 {\n");
		for (i = 0; i < 20; i++)
			txt_add(&t, "send 1099511627775b to 1 tag 0\n");
		txt_add(&t, "}\nrank 1 {\n");
		for (i = 0; i < 20; i++)
			txt_add(&t, "recv 1099511627775b from 0 tag 0\n");
		txt_add(&t, "}\n");
		ASSERT_EQ(0, th_sim_goal_parse(t.s, t.len, "t", &g, err, sizeof(err)));
		ASSERT_EQ(-EOVERFLOW, th_sim_run(g, &p, &res, err, sizeof(err)));
		EXPECT_NE(NULL, strstr(err, "passed 2^64 ns")) TH_LOG("%s", err);
		th_sim_goal_destroy(g);
		free(t.s);
	}

	/* the generator's refusals */
	EXPECT_EQ(-EINVAL, th_sim_goal_gen("scatter", 8, 2, 8, &g, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "unknown pattern 'scatter'"));
	EXPECT_EQ(-EINVAL, th_sim_goal_gen("reduce", 8, 1, 8, &g, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "radix 1"));
	EXPECT_EQ(-EINVAL, th_sim_goal_gen("reduce", 0, 2, 8, &g, err, sizeof(err)));
	EXPECT_EQ(-EINVAL, th_sim_goal_gen("reduce", 8, 2, 1ull << 40, &g, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "below 2^40"));
}

TEST_HARNESS_MAIN
