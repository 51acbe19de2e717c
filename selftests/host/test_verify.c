// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_verify.c - host tests of the chain verifier (lib/libthverbs/
 * verify/, th_verify()): one row per chain set, built from a few lines
 * of chains, effects and host actions, each broken set with the class,
 * chain and counter it must be found with, and a clean set per class
 * that must give no error; then the refusals of bad input.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <thverbs/verify.h>
#include "kselftest_harness.h"

enum eff_kind {
	E_END,
	E_INC,		/* ct_inc ct by value */
	E_SET,		/* ct_set ct to value */
	E_COMP,		/* nop with a completion counter ct */
	E_PUT,		/* put raising ct at node */
	E_WRITE,	/* remote write_inline raising ct at node */
	E_NOTIFY,	/* notify: a CQ entry */
	E_SIG,		/* nop with SIGNAL */
};

struct eff {
	enum eff_kind kind;
	uint32_t node;
	uint16_t ct;
	uint64_t value;
};

struct ch {
	bool used;
	uint32_t node;
	uint16_t trig;
	uint64_t threshold;
	uint64_t stride;	/* 0: no REARM */
	uint32_t pad;		/* nops added after the effects */
	struct eff effs[5];
};

struct act {
	bool used;
	uint32_t node;
	uint16_t ct;
	bool set;
	uint64_t value;
};

#define NO_CLASS	TH_VERIFY_CLASS_MAX

struct vrow {
	const char *name;
	struct ch chains[4];
	struct act acts[3];
	uint32_t max_chain, sq, cq, max_counters;	/* 0: defaults */
	/* the finding wanted; NO_CLASS: no error (warnings allowed) */
	enum th_verify_class cls;
	uint32_t chain;
	bool any_counter;			/* FIT about no counter */
	uint32_t node;
	uint16_t ct;
};

#define C(...)	{ .used = true, __VA_ARGS__ }
#define A(...)	{ .used = true, __VA_ARGS__ }

static const struct vrow rows[] = {
	/* a. UNREACHABLE */
	{ "host_gives_too_little", { C(.node = 0, .trig = 0, .threshold = 2,
	  .effs = { { E_NOTIFY } }) }, { A(.node = 0, .ct = 0, .value = 1) },
	  .cls = TH_VERIFY_UNREACHABLE, .chain = 0, .node = 0, .ct = 0 },
	{ "nothing_raises_it", { C(.node = 0, .trig = 5, .threshold = 1,
	  .effs = { { E_NOTIFY } }) }, { A(.node = 0, .ct = 0, .value = 1) },
	  .cls = TH_VERIFY_UNREACHABLE, .chain = 0, .node = 0, .ct = 5 },
	{ "one_put_for_three", {
	  C(.node = 1, .trig = 1, .threshold = 3, .effs = { { E_NOTIFY } }),
	  C(.node = 0, .trig = 0, .threshold = 1,
	    .effs = { { E_PUT, .node = 1, .ct = 1 } }) },
	  { A(.node = 0, .ct = 0, .value = 1) },
	  .cls = TH_VERIFY_UNREACHABLE, .chain = 0, .node = 1, .ct = 1 },
	{ "ct_set_is_a_ceiling", {
	  C(.node = 0, .trig = 0, .threshold = 1,
	    .effs = { { E_SET, .ct = 2, .value = 2 } }),
	  C(.node = 0, .trig = 2, .threshold = 3, .effs = { { E_NOTIFY } }) },
	  { A(.node = 0, .ct = 0, .value = 1) },
	  .cls = TH_VERIFY_UNREACHABLE, .chain = 1, .node = 0, .ct = 2 },
	{ "blocked_behind_an_unreachable_chain", {
	  C(.node = 0, .trig = 0, .threshold = 5,
	    .effs = { { E_COMP, .ct = 1 } }),
	  C(.node = 0, .trig = 1, .threshold = 1, .effs = { { E_NOTIFY } }) },
	  { A(.node = 0, .ct = 0, .value = 1) },
	  .cls = TH_VERIFY_UNREACHABLE, .chain = 1, .node = 0, .ct = 1 },
	{ "rearm_rounds_are_counted", {
	  C(.node = 0, .trig = 0, .threshold = 1, .stride = 1,
	    .effs = { { E_COMP, .ct = 1 } }),
	  C(.node = 0, .trig = 1, .threshold = 4, .effs = { { E_NOTIFY } }) },
	  { A(.node = 0, .ct = 0, .value = 3) },
	  .cls = TH_VERIFY_UNREACHABLE, .chain = 1, .node = 0, .ct = 1 },
	{ "clean_unreachable", {
	  C(.node = 0, .trig = 0, .threshold = 2,
	    .effs = { { E_PUT, .node = 1, .ct = 1 } }),
	  C(.node = 1, .trig = 1, .threshold = 1, .effs = { { E_NOTIFY } }) },
	  { A(.node = 0, .ct = 0, .value = 1), A(.node = 0, .ct = 0, .value = 1) },
	  .cls = NO_CLASS },
	{ "clean_rearm_rounds", {
	  C(.node = 0, .trig = 0, .threshold = 1, .stride = 1,
	    .effs = { { E_COMP, .ct = 1 } }),
	  C(.node = 0, .trig = 1, .threshold = 3, .effs = { { E_NOTIFY } }) },
	  { A(.node = 0, .ct = 0, .value = 3) }, .cls = NO_CLASS },

	/* b. CYCLE */
	{ "two_nodes_wait_on_each_other", {
	  C(.node = 0, .trig = 1, .threshold = 1,
	    .effs = { { E_PUT, .node = 1, .ct = 1 } }),
	  C(.node = 1, .trig = 1, .threshold = 1,
	    .effs = { { E_PUT, .node = 0, .ct = 1 } }) },
	  { A(.node = 0, .ct = 0, .value = 1) },
	  .cls = TH_VERIFY_CYCLE, .chain = 0, .node = 0, .ct = 1 },
	{ "three_node_ring", {
	  C(.node = 0, .trig = 1, .threshold = 1,
	    .effs = { { E_WRITE, .node = 1, .ct = 2 } }),
	  C(.node = 1, .trig = 2, .threshold = 1,
	    .effs = { { E_PUT, .node = 2, .ct = 3 } }),
	  C(.node = 2, .trig = 3, .threshold = 1,
	    .effs = { { E_PUT, .node = 0, .ct = 1 } }) },
	  { A(.node = 2, .ct = 0, .value = 1) },
	  .cls = TH_VERIFY_CYCLE, .chain = 0, .node = 0, .ct = 1 },
	{ "host_brings_half_the_other_half_waits", {
	  C(.node = 0, .trig = 0, .threshold = 2,
	    .effs = { { E_COMP, .ct = 1 } }),
	  C(.node = 0, .trig = 1, .threshold = 1,
	    .effs = { { E_INC, .ct = 0, .value = 1 } }) },
	  { A(.node = 0, .ct = 0, .value = 1) },
	  .cls = TH_VERIFY_CYCLE, .chain = 0, .node = 0, .ct = 0 },
	{ "a_chain_waits_on_itself", {
	  C(.node = 3, .trig = 4, .threshold = 1,
	    .effs = { { E_COMP, .ct = 4 } }) },
	  .cls = TH_VERIFY_CYCLE, .chain = 0, .node = 3, .ct = 4 },
	{ "figure_eight_second_loop_waits_on_the_first", {
	  C(.node = 0, .trig = 1, .threshold = 1,
	    .effs = { { E_PUT, .node = 1, .ct = 1 } }),
	  C(.node = 1, .trig = 1, .threshold = 1,
	    .effs = { { E_PUT, .node = 0, .ct = 1 }, { E_PUT, .node = 2, .ct = 1 } }),
	  C(.node = 2, .trig = 1, .threshold = 1,
	    .effs = { { E_PUT, .node = 1, .ct = 1 } }) },
	  .cls = TH_VERIFY_UNREACHABLE, .chain = 2, .node = 2, .ct = 1 },
	{ "clean_cycle", {
	  C(.node = 0, .trig = 1, .threshold = 1,
	    .effs = { { E_PUT, .node = 1, .ct = 1 } }),
	  C(.node = 1, .trig = 0, .threshold = 1,
	    .effs = { { E_PUT, .node = 0, .ct = 1 } }) },
	  { A(.node = 1, .ct = 0, .value = 1) }, .cls = NO_CLASS },

	/* c. FIT */
	{ "longer_than_max_chain", {
	  C(.node = 0, .trig = 0, .threshold = 1, .pad = 19,
	    .effs = { { E_NOTIFY } }) },
	  { A(.node = 0, .ct = 0, .value = 1) },
	  .cls = TH_VERIFY_FIT, .chain = 0, .any_counter = true },
	{ "more_cq_entries_than_the_cq", {
	  C(.node = 0, .trig = 0, .threshold = 1,
	    .effs = { { E_NOTIFY }, { E_NOTIFY }, { E_SIG }, { E_NOTIFY } }) },
	  { A(.node = 0, .ct = 0, .value = 1) }, .cq = 4,
	  .cls = TH_VERIFY_FIT, .chain = 0, .any_counter = true },
	{ "counter_out_of_range", {
	  C(.node = 0, .trig = 300, .threshold = 1, .effs = { { E_NOTIFY } }) },
	  { A(.node = 0, .ct = 0, .value = 1) },
	  .cls = TH_VERIFY_FIT, .chain = 0, .node = 0, .ct = 300 },
	{ "the_vports_chains_together_overrun_the_cq", {
	  C(.node = 0, .trig = 0, .threshold = 1,
	    .effs = { { E_NOTIFY }, { E_SIG } }),
	  C(.node = 0, .trig = 0, .threshold = 1,
	    .effs = { { E_NOTIFY }, { E_SIG } }),
	  C(.node = 0, .trig = 0, .threshold = 1,
	    .effs = { { E_NOTIFY }, { E_SIG } }) },
	  { A(.node = 0, .ct = 0, .value = 1) }, .cq = 8,
	  .cls = TH_VERIFY_FIT, .chain = 2, .any_counter = true },
	{ "target_counter_out_of_range", {
	  C(.node = 0, .trig = 0, .threshold = 1,
	    .effs = { { E_PUT, .node = 1, .ct = 256 } }) },
	  { A(.node = 0, .ct = 0, .value = 1) },
	  .cls = TH_VERIFY_FIT, .chain = 0, .node = 1, .ct = 256 },
	{ "clean_fit", {
	  C(.node = 0, .trig = 0, .threshold = 1, .pad = 11,
	    .effs = { { E_NOTIFY }, { E_SIG }, { E_NOTIFY } }),
	  C(.node = 0, .trig = 0, .threshold = 1,
	    .effs = { { E_NOTIFY }, { E_SIG }, { E_PUT, .node = 1, .ct = 255 } }) },
	  { A(.node = 0, .ct = 0, .value = 1) }, .cq = 8, .cls = NO_CLASS },

	{ "more_descriptors_than_sq_slots", {
	  C(.node = 0, .trig = 0, .threshold = 1, .pad = 9,
	    .effs = { { E_NOTIFY } }) },
	  { A(.node = 0, .ct = 0, .value = 1) }, .sq = 8,
	  .cls = TH_VERIFY_FIT, .chain = 0, .any_counter = true },
	{ "a_refused_chain_never_raises_its_waiters_counter", {
	  C(.node = 0, .trig = 0, .threshold = 1, .pad = 16,
	    .effs = { { E_COMP, .ct = 1 } }),
	  C(.node = 0, .trig = 1, .threshold = 1, .effs = { { E_NOTIFY } }) },
	  { A(.node = 0, .ct = 0, .value = 1) },
	  .cls = TH_VERIFY_UNREACHABLE, .chain = 1, .node = 0, .ct = 1 },

	/* d. SELF-REARM */
	{ "rearm_raises_its_own_counter", {
	  C(.node = 0, .trig = 0, .threshold = 1, .stride = 1,
	    .effs = { { E_INC, .ct = 0, .value = 1 } }) },
	  { A(.node = 0, .ct = 0, .value = 1) },
	  .cls = TH_VERIFY_SELF_REARM, .chain = 0, .node = 0, .ct = 0 },
	{ "two_completions_pay_a_stride_of_two", {
	  C(.node = 2, .trig = 3, .threshold = 2, .stride = 2,
	    .effs = { { E_COMP, .ct = 3 }, { E_NOTIFY }, { E_COMP, .ct = 3 } }) },
	  { A(.node = 2, .ct = 3, .value = 2) },
	  .cls = TH_VERIFY_SELF_REARM, .chain = 0, .node = 2, .ct = 3 },
	{ "two_rearming_chains_feed_each_other", {
	  C(.node = 0, .trig = 0, .threshold = 1, .stride = 1,
	    .effs = { { E_PUT, .node = 1, .ct = 0 } }),
	  C(.node = 1, .trig = 0, .threshold = 1, .stride = 1,
	    .effs = { { E_PUT, .node = 0, .ct = 0 } }) },
	  { A(.node = 0, .ct = 0, .value = 1) },
	  .cls = TH_VERIFY_SELF_REARM, .chain = 0, .node = 0, .ct = 0 },
	{ "rearm_fed_by_a_big_increment", {
	  C(.node = 0, .trig = 1, .threshold = 10, .stride = 10,
	    .effs = { { E_INC, .ct = 1, .value = 25 } }) },
	  { A(.node = 0, .ct = 1, .value = 10) },
	  .cls = TH_VERIFY_SELF_REARM, .chain = 0, .node = 0, .ct = 1 },
	{ "clean_self_rearm", {
	  C(.node = 0, .trig = 0, .threshold = 1, .stride = 2,
	    .effs = { { E_COMP, .ct = 0 }, { E_NOTIFY } }) },
	  { A(.node = 0, .ct = 0, .value = 4) }, .cls = NO_CLASS },
	{ "clean_rearm_fed_by_the_host", {
	  C(.node = 0, .trig = 0, .threshold = 1, .stride = 1,
	    .effs = { { E_PUT, .node = 1, .ct = 0 } }),
	  C(.node = 1, .trig = 0, .threshold = 1, .stride = 1,
	    .effs = { { E_NOTIFY } }) },
	  { A(.node = 0, .ct = 0, .value = 3) }, .cls = NO_CLASS },

	{ "rearm_sets_its_counter_ahead_for_49_rounds", {
	  C(.node = 0, .trig = 0, .threshold = 1, .stride = 1,
	    .effs = { { E_SET, .ct = 0, .value = 50 } }) },
	  { A(.node = 0, .ct = 0, .value = 1) },
	  .cls = TH_VERIFY_SELF_REARM, .chain = 0, .node = 0, .ct = 0 },
	{ "clean_negative_increment_feeds_nothing", {
	  C(.node = 0, .trig = 0, .threshold = 1, .stride = 1,
	    .effs = { { E_INC, .ct = 0, .value = (uint64_t)-5 } }) },
	  { A(.node = 0, .ct = 0, .value = 1) }, .cls = NO_CLASS },

	/* e. warnings */
	{ "fires_when_posted", {
	  C(.node = 0, .trig = 0, .threshold = 0, .effs = { { E_NOTIFY } }) },
	  .cls = TH_VERIFY_WARN_IMMEDIATE, .chain = 0, .node = 0, .ct = 0 },
	{ "set_and_incremented", {
	  C(.node = 0, .trig = 0, .threshold = 1,
	    .effs = { { E_SET, .ct = 2, .value = 1 } }),
	  C(.node = 1, .trig = 0, .threshold = 1,
	    .effs = { { E_PUT, .node = 0, .ct = 2 } }) },
	  { A(.node = 0, .ct = 0, .value = 1), A(.node = 1, .ct = 0, .value = 1) },
	  .cls = TH_VERIFY_WARN_WRITERS, .chain = 0, .node = 0, .ct = 2 },
};

/* Descriptors of a row's chain, as the library's builders would make them. */
static uint32_t build_chain(const struct ch *c, struct th_nic_desc *d)
{
	uint32_t n = 0, i;

	for (i = 0; i < 5 && c->effs[i].kind != E_END; i++, n++) {
		const struct eff *e = &c->effs[i];

		memset(&d[n], 0, sizeof(d[n]));
		switch (e->kind) {
		case E_INC:
		case E_SET:
			d[n].opcode = e->kind == E_INC ? TH_NIC_OP_CT_INC :
							 TH_NIC_OP_CT_SET;
			d[n].ct.ct = e->ct;
			d[n].ct.value = e->value;
			break;
		case E_COMP:
			d[n].opcode = TH_NIC_OP_NOP;
			d[n].flags = TH_NIC_DF_COMP_CT;
			d[n].comp_ct = e->ct;
			break;
		case E_PUT:
			d[n].opcode = TH_NIC_OP_PUT;
			d[n].flags = TH_NIC_DF_REMOTE_CT;
			d[n].xfer.node = e->node;
			d[n].xfer.remote_ct = e->ct;
			d[n].xfer.len = 8;
			break;
		case E_WRITE:
			d[n].opcode = TH_NIC_OP_WRITE_INLINE;
			d[n].flags = TH_NIC_DF_REMOTE | TH_NIC_DF_REMOTE_CT;
			d[n].wr_inline.node = e->node;
			d[n].wr_inline.remote_ct = e->ct;
			d[n].wr_inline.len = 8;
			break;
		case E_NOTIFY:
			d[n].opcode = TH_NIC_OP_NOTIFY;
			break;
		default:
			d[n].opcode = TH_NIC_OP_NOP;
			d[n].flags = TH_NIC_DF_SIGNAL;
			break;
		}
	}
	for (i = 0; i < c->pad; i++, n++) {
		memset(&d[n], 0, sizeof(d[n]));
		d[n].opcode = TH_NIC_OP_NOP;
	}
	if (c->stride) {
		memset(&d[n], 0, sizeof(d[n]));
		d[n].opcode = TH_NIC_OP_REARM;
		d[n].rearm.stride = c->stride;
		n++;
	}
	for (i = 0; i + 1 < n; i++)
		d[i].flags |= TH_NIC_DF_LINK;
	d[0].trig_ct = c->trig;
	d[0].threshold = c->threshold;
	d[0].cookie = 1;
	return n;
}

static const struct th_nic_query default_limits = {
	.size = sizeof(struct th_nic_query),
	.node_count = 16,
	.max_counters = 256,
	.max_sq_entries = 1024,
	.max_cq_entries = 1024,
	.max_chain = 16,
};

/* Run @r; the findings into @f (64), their number returned. */
static int run_row(const struct vrow *r, struct th_verify_finding *f)
{
	static struct th_nic_desc descs[4][32];
	struct th_verify_chain chains[4];
	struct th_verify_action acts[3];
	struct th_nic_query q = default_limits;
	struct th_verify_set set = { .chains = chains, .actions = acts,
				     .limits = &q };
	uint32_t i;

	if (r->max_chain)
		q.max_chain = r->max_chain;
	if (r->cq)
		set.cq_entries = r->cq;
	if (r->sq)
		set.sq_entries = r->sq;
	if (r->max_counters)
		q.max_counters = r->max_counters;
	for (i = 0; i < 4 && r->chains[i].used; i++) {
		chains[i] = (struct th_verify_chain){
			.node = r->chains[i].node,
			.descs = descs[i],
			.ndesc = build_chain(&r->chains[i], descs[i]),
		};
		set.nchains++;
	}
	for (i = 0; i < 3 && r->acts[i].used; i++) {
		acts[i] = (struct th_verify_action){
			.counter = { .node = r->acts[i].node, .ct = r->acts[i].ct },
			.set = r->acts[i].set,
			.value = r->acts[i].value,
		};
		set.nactions++;
	}
	return th_verify(&set, f, 64);
}

FIXTURE(vrows) {
	struct th_verify_finding f[64];
};

FIXTURE_SETUP(vrows) { memset(self->f, 0, sizeof(self->f)); }
FIXTURE_TEARDOWN(vrows) {}

FIXTURE_VARIANT(vrows) {
	unsigned int row;
};

#define ROW(i)	FIXTURE_VARIANT_ADD(vrows, r##i) { .row = i }
ROW(0); ROW(1); ROW(2); ROW(3); ROW(4); ROW(5); ROW(6); ROW(7); ROW(8);
ROW(9); ROW(10); ROW(11); ROW(12); ROW(13); ROW(14); ROW(15); ROW(16);
ROW(17); ROW(18); ROW(19); ROW(20); ROW(21); ROW(22); ROW(23); ROW(24);
ROW(25); ROW(26); ROW(27); ROW(28); ROW(29); ROW(30); ROW(31);

TEST_F(vrows, finds_the_class_chain_and_counter)
{
	const struct vrow *r = &rows[variant->row];
	int n, i, errors = 0, match = -1;

	ASSERT_LT(variant->row, sizeof(rows) / sizeof(rows[0]));
	n = run_row(r, self->f);
	TH_LOG("row %s: %d finding(s)", r->name, n);
	ASSERT_GE(n, 0);
	ASSERT_LE(n, 64);
	for (i = 0; i < n; i++) {
		const struct th_verify_finding *f = &self->f[i];

		TH_LOG("  %s chain %u counter n%u.ct%u: %s",
		       th_verify_class_name(f->cls), f->chain, f->counter.node,
		       f->counter.ct, f->why);
		EXPECT_NE('\0', f->why[0]);
		EXPECT_EQ(NULL, strchr(f->why, '?'));
		if (!th_verify_class_is_warning(f->cls))
			errors++;
		if (match < 0 && f->cls == r->cls && f->chain == r->chain &&
		    (r->any_counter ||
		     (f->has_counter && f->counter.node == r->node &&
		      f->counter.ct == r->ct)))
			match = i;
	}
	if (r->cls == NO_CLASS) {
		EXPECT_EQ(0, errors);
		return;
	}
	ASSERT_LE(0, match) TH_LOG("no %s finding on chain %u", th_verify_class_name(r->cls), r->chain);
	/* a cycle's path closes on its chain; every path names real chains */
	for (i = 0; i < (int)self->f[match].npath; i++)
		EXPECT_GT(4, self->f[match].path[i].chain);
	if (r->cls == TH_VERIFY_CYCLE || r->cls == TH_VERIFY_SELF_REARM) {
		const struct th_verify_finding *f = &self->f[match];

		ASSERT_LT(0, f->npath);
		EXPECT_EQ(r->chain, f->path[0].chain);
		EXPECT_EQ(r->ct, f->path[f->npath - 1].counter.ct);
		EXPECT_EQ(r->node, f->path[f->npath - 1].counter.node);
	}
}

TEST(the_table_has_a_row_per_variant)
{
	ASSERT_EQ(32, sizeof(rows) / sizeof(rows[0]));
}

TEST(a_chain_in_a_cycle_makes_one_finding_and_its_waiters_another)
{
	struct th_verify_finding f[8];
	static const struct vrow r = { "cycle_and_waiter", {
		C(.node = 0, .trig = 1, .threshold = 1,
		  .effs = { { E_PUT, .node = 1, .ct = 1 } }),
		C(.node = 1, .trig = 1, .threshold = 1,
		  .effs = { { E_PUT, .node = 0, .ct = 1 }, { E_COMP, .ct = 2 } }),
		C(.node = 1, .trig = 2, .threshold = 1, .effs = { { E_NOTIFY } }) },
		{ { 0 } }, .cls = NO_CLASS };
	struct th_verify_finding big[64];
	int n;

	n = run_row(&r, big);
	ASSERT_EQ(2, n);
	memcpy(f, big, sizeof(f));
	EXPECT_EQ(TH_VERIFY_CYCLE, f[0].cls);
	EXPECT_EQ(0, f[0].chain);
	EXPECT_EQ(2, f[0].npath);
	EXPECT_EQ(TH_VERIFY_UNREACHABLE, f[1].cls);
	EXPECT_EQ(2, f[1].chain);
	EXPECT_EQ(2, f[1].counter.ct);
}

TEST(more_findings_than_room_are_counted)
{
	struct th_verify_finding f[1];
	struct th_nic_desc d = { .opcode = TH_NIC_OP_NOTIFY, .trig_ct = 9,
				 .threshold = 1 };
	struct th_verify_chain c[3] = {
		{ .descs = &d, .ndesc = 1 }, { .descs = &d, .ndesc = 1 },
		{ .descs = &d, .ndesc = 1 } };
	struct th_verify_set set = { .chains = c, .nchains = 3 };

	ASSERT_EQ(3, th_verify(&set, f, 1));
	EXPECT_EQ(TH_VERIFY_UNREACHABLE, f[0].cls);
	ASSERT_EQ(3, th_verify(&set, NULL, 0));
}

TEST(bad_input_is_refused)
{
	struct th_nic_desc d = { .opcode = TH_NIC_OP_MAX };
	struct th_verify_chain c = { .descs = &d, .ndesc = 1 };
	struct th_verify_set set = { .chains = &c, .nchains = 1 };
	struct th_verify_finding f[1];

	EXPECT_EQ(-EINVAL, th_verify(&set, f, 1));
	d.opcode = TH_NIC_OP_NOP;
	c.ndesc = 0;
	EXPECT_EQ(-EINVAL, th_verify(&set, f, 1));
	c.ndesc = 1;
	c.descs = NULL;
	EXPECT_EQ(-EINVAL, th_verify(&set, f, 1));
	EXPECT_EQ(-EINVAL, th_verify(NULL, f, 1));
	c.descs = &d;
	EXPECT_EQ(-EINVAL, th_verify(&set, NULL, 1));
	set.nactions = 1;
	EXPECT_EQ(-EINVAL, th_verify(&set, f, 1));
}

TEST(an_empty_set_is_clean_and_class_names_are_spelled)
{
	struct th_verify_set set = { 0 };

	EXPECT_EQ(0, th_verify(&set, NULL, 0));
	EXPECT_STREQ("unreachable", th_verify_class_name(TH_VERIFY_UNREACHABLE));
	EXPECT_STREQ("cycle", th_verify_class_name(TH_VERIFY_CYCLE));
	EXPECT_STREQ("fit", th_verify_class_name(TH_VERIFY_FIT));
	EXPECT_STREQ("self-rearm", th_verify_class_name(TH_VERIFY_SELF_REARM));
	EXPECT_EQ(NULL, th_verify_class_name(TH_VERIFY_CLASS_MAX));
	EXPECT_TRUE(th_verify_class_is_warning(TH_VERIFY_WARN_WRITERS));
	EXPECT_FALSE(th_verify_class_is_warning(TH_VERIFY_CYCLE));
}

TEST_HARNESS_MAIN
