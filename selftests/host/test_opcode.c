// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_opcode.c - host tests of the opcode table (driver/trigger/
 * th_opcode.h, th_opcode.c): one row per opcode of the ABI, and what the
 * engine derives from a row (access, target, length, CQ entry, round)
 * against a specification written out here by hand from the uapi
 * header's words, one row per case.
 */
#include <string.h>

#include "th_engine_int.h"
#include "kselftest_harness.h"

/* What include/uapi/linux/th_nic.h says each opcode is. */
struct op_spec {
	unsigned int op;
	const char *name;		/* thctl's spelling */
	enum th_eng_operand operand;
	enum th_eng_charge charge;
	u32 local_access;		/* without TH_NIC_DF_REMOTE */
	u32 remote_access;		/* without TH_NIC_DF_REMOTE */
	bool remote_flag;		/* TH_NIC_DF_REMOTE is accepted */
	bool remote_ct;			/* TH_NIC_DF_REMOTE_CT is accepted */
	bool cqe;			/* an entry even without SIGNAL */
	bool ends_round;
	bool own;			/* touches no memory */
};

static const struct op_spec specs[] = {
	{ TH_NIC_OP_NOP, "nop", TH_ENG_OPND_NONE, TH_ENG_CHARGE_NONE,
	  0, 0, false, false, false, false, true },
	{ TH_NIC_OP_PUT, "put", TH_ENG_OPND_XFER, TH_ENG_CHARGE_WIRE,
	  0, TH_NIC_ACCESS_REMOTE_WRITE, false, true, false, false, false },
	{ TH_NIC_OP_GET, "get", TH_ENG_OPND_XFER, TH_ENG_CHARGE_WIRE,
	  TH_NIC_ACCESS_LOCAL_WRITE, TH_NIC_ACCESS_REMOTE_READ, false, false,
	  false, false, false },
	{ TH_NIC_OP_COPY, "copy", TH_ENG_OPND_COPY, TH_ENG_CHARGE_COPY,
	  TH_NIC_ACCESS_LOCAL_WRITE, 0, false, false, false, false, false },
	{ TH_NIC_OP_WRITE_INLINE, "write", TH_ENG_OPND_INLINE,
	  TH_ENG_CHARGE_WIRE, TH_NIC_ACCESS_LOCAL_WRITE, 0, true, true, false,
	  false, false },
	{ TH_NIC_OP_REDUCE, "reduce", TH_ENG_OPND_REDUCE, TH_ENG_CHARGE_ALU,
	  TH_NIC_ACCESS_LOCAL_WRITE, 0, false, false, false, false, false },
	{ TH_NIC_OP_CT_INC, "ct_inc", TH_ENG_OPND_CT, TH_ENG_CHARGE_NONE,
	  0, 0, false, false, false, false, true },
	{ TH_NIC_OP_CT_SET, "ct_set", TH_ENG_OPND_CT, TH_ENG_CHARGE_NONE,
	  0, 0, false, false, false, false, true },
	{ TH_NIC_OP_NOTIFY, "notify", TH_ENG_OPND_NOTIFY, TH_ENG_CHARGE_NONE,
	  0, 0, false, false, true, false, true },
	{ TH_NIC_OP_REARM, "rearm", TH_ENG_OPND_REARM, TH_ENG_CHARGE_NONE,
	  0, 0, false, false, false, true, true },
};

TEST(every_opcode_of_the_abi_has_exactly_one_row_and_the_spec_covers_it)
{
	bool seen[TH_NIC_OP_MAX] = { false };
	unsigned int i, j;

	ASSERT_EQ(TH_NIC_OP_MAX, sizeof(specs) / sizeof(specs[0]));
	for (i = 0; i < TH_NIC_OP_MAX; i++) {
		const struct th_eng_opdef *def = th_eng_opdef(i);

		ASSERT_NE(NULL, def->name);
		ASSERT_NE(NULL, def->check);
		ASSERT_NE(NULL, def->run);
		/* the tools' spelling is the engine's */
		ASSERT_NE(NULL, th_eng_opcode_name(i));
		EXPECT_STREQ(def->name, th_eng_opcode_name(i));
		for (j = 0; j < i; j++)
			EXPECT_STRNE(def->name, th_eng_opdef(j)->name);
		seen[specs[i].op] = true;
	}
	for (i = 0; i < TH_NIC_OP_MAX; i++)
		EXPECT_TRUE(seen[i]);
	EXPECT_EQ(NULL, th_eng_opcode_name(TH_NIC_OP_MAX));
	EXPECT_EQ(NULL, th_eng_opcode_name(0xff));
}

TEST(each_row_says_what_the_abi_says)
{
	unsigned int i;

	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		const struct op_spec *s = &specs[i];
		const struct th_eng_opdef *def = th_eng_opdef(s->op);
		struct th_nic_desc d = { .opcode = s->op };

		TH_LOG("opcode %u (%s)", s->op, s->name);
		EXPECT_STREQ(s->name, def->name);
		EXPECT_EQ(s->operand, def->operand);
		EXPECT_EQ(s->charge, def->charge);
		EXPECT_EQ(s->local_access, th_eng_desc_local_access(&d));
		EXPECT_EQ(s->remote_access, th_eng_desc_remote_access(&d));
		EXPECT_EQ(s->remote_access != 0, th_eng_desc_remote(&d));
		EXPECT_EQ(s->remote_flag, !!(def->flags & TH_ENG_OPF_REMOTE_FLAG));
		EXPECT_EQ(s->remote_ct, !!(def->flags & TH_ENG_OPF_REMOTE_CT));
		EXPECT_EQ(s->cqe, th_eng_desc_writes_cqe(&d));
		EXPECT_EQ(s->ends_round, !!(def->flags & TH_ENG_OPF_ENDS_ROUND));
		EXPECT_EQ(s->own, !(def->flags & TH_ENG_OPF_MEMORY));
		/* SIGNAL asks any descriptor for an entry */
		d.flags = TH_NIC_DF_SIGNAL;
		EXPECT_TRUE(th_eng_desc_writes_cqe(&d));
	}
	/* a counter operation raises or sets, never both */
	EXPECT_EQ(TH_ENG_OPF_CT_INC, th_eng_opdef(TH_NIC_OP_CT_INC)->flags);
	EXPECT_EQ(TH_ENG_OPF_CT_SET, th_eng_opdef(TH_NIC_OP_CT_SET)->flags);
}

TEST(the_remote_flag_sends_an_inline_write_to_its_target)
{
	struct th_nic_desc d = {
		.opcode = TH_NIC_OP_WRITE_INLINE,
		.flags = TH_NIC_DF_REMOTE,
	};

	EXPECT_EQ(0, th_eng_desc_local_access(&d));
	EXPECT_EQ(TH_NIC_ACCESS_REMOTE_WRITE, th_eng_desc_remote_access(&d));
	EXPECT_TRUE(th_eng_desc_remote(&d));
	/* on an opcode without the flag in its row it changes nothing */
	d.opcode = TH_NIC_OP_COPY;
	EXPECT_FALSE(th_eng_desc_remote(&d));
	EXPECT_EQ(TH_NIC_ACCESS_LOCAL_WRITE, th_eng_desc_local_access(&d));
}

/* One target decode: a descriptor, and what it delivers where. */
struct target_case {
	const char *what;
	struct th_nic_desc d;
	bool remote;
	struct th_eng_remote_op want;
};

static const struct target_case targets[] = {
	{ "put raising a counter there",
	  { .opcode = TH_NIC_OP_PUT, .flags = TH_NIC_DF_REMOTE_CT,
	    .xfer = { .lkey = 9, .node = 3, .rkey = 0x1234, .loff = 16,
		      .roff = 48, .len = 640, .vport = 5, .remote_ct = 7 } },
	  true, { .opcode = TH_NIC_OP_PUT, .node = 3, .vport = 5,
		  .rkey = 0x1234, .roff = 48, .len = 640, .remote_ct = 7 } },
	{ "put raising nothing there",
	  { .opcode = TH_NIC_OP_PUT,
	    .xfer = { .node = 1, .rkey = 2, .roff = 3, .len = 4, .vport = 6,
		      .remote_ct = 0 } },
	  true, { .opcode = TH_NIC_OP_PUT, .node = 1, .vport = 6, .rkey = 2,
		  .roff = 3, .len = 4, .remote_ct = -1 } },
	{ "get: the bytes come back, no counter there",
	  { .opcode = TH_NIC_OP_GET, .flags = TH_NIC_DF_REMOTE_CT,
	    .xfer = { .node = 2, .rkey = 0xabc, .roff = 8, .len = 24,
		      .vport = 1, .remote_ct = 4 } },
	  true, { .opcode = TH_NIC_OP_GET, .fetch = true, .node = 2, .vport = 1,
		  .rkey = 0xabc, .roff = 8, .len = 24, .remote_ct = -1 } },
	{ "inline write there",
	  { .opcode = TH_NIC_OP_WRITE_INLINE,
	    .flags = TH_NIC_DF_REMOTE | TH_NIC_DF_REMOTE_CT,
	    .wr_inline = { .node = 4, .rkey = 77, .vport = 2, .remote_ct = 3,
			   .len = 8, .off = 128 } },
	  true, { .opcode = TH_NIC_OP_WRITE_INLINE, .node = 4, .vport = 2,
		  .rkey = 77, .roff = 128, .len = 8, .remote_ct = 3 } },
	{ "inline write here",
	  { .opcode = TH_NIC_OP_WRITE_INLINE,
	    .wr_inline = { .lkey = 1, .len = 8, .off = 128 } },
	  false, { 0 } },
	{ "copy", { .opcode = TH_NIC_OP_COPY }, false, { 0 } },
	{ "reduce", { .opcode = TH_NIC_OP_REDUCE }, false, { 0 } },
	{ "counter", { .opcode = TH_NIC_OP_CT_INC }, false, { 0 } },
};

TEST(a_descriptors_target_decodes_from_its_operand)
{
	unsigned int i;

	for (i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
		const struct target_case *c = &targets[i];
		struct th_eng_remote_op op;

		TH_LOG("%s", c->what);
		memset(&op, 0x5a, sizeof(op));
		ASSERT_EQ(c->remote, th_eng_desc_target(&c->d, &op));
		if (!c->remote) {
			/* untouched */
			EXPECT_EQ(0x5a5a5a5a, op.node);
			continue;
		}
		EXPECT_EQ(c->want.opcode, op.opcode);
		EXPECT_EQ(c->want.fetch, op.fetch);
		EXPECT_EQ(c->want.node, op.node);
		EXPECT_EQ(c->want.vport, op.vport);
		EXPECT_EQ(c->want.rkey, op.rkey);
		EXPECT_EQ(c->want.roff, op.roff);
		EXPECT_EQ(c->want.len, op.len);
		EXPECT_EQ(c->want.remote_ct, op.remote_ct);
	}
}

TEST(the_bytes_a_descriptor_moves)
{
	struct th_nic_desc d = { .opcode = TH_NIC_OP_PUT, .xfer.len = 4096 };

	EXPECT_EQ(4096, th_eng_desc_len(&d));
	d.opcode = TH_NIC_OP_GET;
	EXPECT_EQ(4096, th_eng_desc_len(&d));
	memset(&d, 0, sizeof(d));
	d.opcode = TH_NIC_OP_COPY;
	d.copy.len = 300;
	EXPECT_EQ(300, th_eng_desc_len(&d));
	memset(&d, 0, sizeof(d));
	d.opcode = TH_NIC_OP_WRITE_INLINE;
	d.wr_inline.len = 13;
	EXPECT_EQ(13, th_eng_desc_len(&d));
	memset(&d, 0, sizeof(d));
	d.opcode = TH_NIC_OP_REDUCE;
	d.reduce.count = 10;
	d.reduce.dtype = TH_NIC_DT_FLOAT64;
	d.reduce.nsrc = 3;
	EXPECT_EQ(80, th_eng_desc_len(&d));
	memset(&d, 0, sizeof(d));
	d.opcode = TH_NIC_OP_CT_SET;
	d.ct.value = 99;
	EXPECT_EQ(0, th_eng_desc_len(&d));
}

TEST_HARNESS_MAIN
