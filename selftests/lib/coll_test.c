// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * coll_test.c - offloaded Allreduce, Reduce and Broadcast through the
 * public API, one process driving every rank: results bit-identical to a
 * reference evaluated in the same tree order, over N, radix, root, op,
 * dtype and size (0, odd sizes, several segments), several rounds per
 * handle.  Runs on the in-process provider on the host and on th_nic.ko in
 * the VM; ranks beyond the node count share nodes through more vports.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include <thverbs/hostcoll.h>
#include <thverbs/verbs.h>
#include "lib_world.h"

#define MAX_RANKS WORLD_MAX_RANKS


/* a = a op b for one element, the ALU's rules (no NaNs are generated). */
#define REF_INT(T, UT)							\
static void ref_##T(unsigned int op, void *ap, const void *bp)		\
{									\
	T a, b;								\
	memcpy(&a, ap, sizeof(a));					\
	memcpy(&b, bp, sizeof(b));					\
	switch (op) {							\
	case TH_NIC_ALU_SUM: a = (T)((UT)a + (UT)b); break;		\
	case TH_NIC_ALU_PROD: a = (T)((UT)a * (UT)b); break;		\
	case TH_NIC_ALU_MAX: a = b > a ? b : a; break;			\
	case TH_NIC_ALU_MIN: a = b < a ? b : a; break;			\
	case TH_NIC_ALU_BAND: a &= b; break;				\
	case TH_NIC_ALU_BOR: a |= b; break;				\
	default: a ^= b; break;						\
	}								\
	memcpy(ap, &a, sizeof(a));					\
}
REF_INT(int8_t, uint32_t)
REF_INT(int16_t, uint32_t)
REF_INT(int32_t, uint32_t)
REF_INT(int64_t, uint64_t)
REF_INT(uint8_t, uint32_t)
REF_INT(uint16_t, uint32_t)
REF_INT(uint32_t, uint32_t)
REF_INT(uint64_t, uint64_t)

#define REF_FLT(T)							\
static void ref_##T(unsigned int op, void *ap, const void *bp)		\
{									\
	T a, b;								\
	memcpy(&a, ap, sizeof(a));					\
	memcpy(&b, bp, sizeof(b));					\
	switch (op) {							\
	case TH_NIC_ALU_SUM: a = a + b; break;				\
	case TH_NIC_ALU_PROD: a = a * b; break;				\
	case TH_NIC_ALU_MAX: a = b > a ? b : a; break;			\
	default: a = b < a ? b : a; break;				\
	}								\
	memcpy(ap, &a, sizeof(a));					\
}
REF_FLT(float)
REF_FLT(double)

typedef void (*ref_fn)(unsigned int op, void *a, const void *b);
static const ref_fn ref_op[TH_NIC_DT_MAX] = {
	ref_int8_t, ref_int16_t, ref_int32_t, ref_int64_t, ref_uint8_t,
	ref_uint16_t, ref_uint32_t, ref_uint64_t, ref_float, ref_double,
};

/* out = fold(send[v], ref(child 0), ...): the tree's order of evaluation. */
static void ref_tree(const struct th_coll_attr *a, unsigned int n,
		     unsigned int v, uint8_t *const *send, uint8_t *out)
{
	unsigned int kids[MAX_RANKS], nk, j, i, es = world_esize[a->dtype];
	uint8_t *sub = malloc((size_t)a->count * es + 1);

	memcpy(out, send[v], (size_t)a->count * es);
	nk = th_tree_children(n, a->root, a->radix, v, kids, MAX_RANKS);
	for (j = 0; j < nk; j++) {
		ref_tree(a, n, kids[j], send, sub);
		for (i = 0; i < a->count; i++)
			ref_op[a->dtype](a->op, out + i * es, sub + i * es);
	}
	free(sub);
}

static void fill(uint8_t *p, size_t bytes, unsigned int dtype, unsigned int seed)
{
	size_t i;

	for (i = 0; i < bytes; i++)
		p[i] = (uint8_t)((seed * 2654435761u + i * 40503u) >> 13);
	/* floats: small integers and halves, so no NaN or overflow hides a bug */
	if (dtype == TH_NIC_DT_FLOAT32)
		for (i = 0; i + 4 <= bytes; i += 4) {
			float f = (float)((int)(p[i] % 64) - 32) / 2;

			memcpy(p + i, &f, 4);
		}
	if (dtype == TH_NIC_DT_FLOAT64)
		for (i = 0; i + 8 <= bytes; i += 8) {
			double f = (double)((int)(p[i] % 200) - 100) / 4 +
				   (double)p[i + 1] / 1024;

			memcpy(p + i, &f, 8);
		}
}

/*
 * Run @rounds rounds of one collective over @n ranks and compare every
 * rank's result with the reference; returns 0 or what went wrong.
 */
static int run_coll(struct __test_metadata *_metadata,
		    const struct th_coll_attr *a, unsigned int n,
		    unsigned int rounds)
{
	struct world w = { 0 };
	uint8_t *send[MAX_RANKS], *recv[MAX_RANKS], *want;
	size_t bytes = (size_t)a->count * world_esize[a->dtype];
	struct th_coll *coll = NULL;
	unsigned int r, round;
	int ret, bad = 0;

	ret = world_open(&w, n);
	want = malloc(bytes + 1);
	for (r = 0; r < n; r++) {
		send[r] = malloc(bytes + 1);
		recv[r] = calloc(1, bytes + 1);
	}
	if (!ret)
		coll = th_coll_create_local(w.vp, n, a, (void *const *)send,
					    (void *const *)recv);
	if (!ret && !coll)
		ret = -errno;
	for (round = 0; !ret && round < rounds; round++) {
		for (r = 0; r < n; r++) {
			fill(send[r], bytes, a->dtype, round * 131 + r);
			memset(recv[r], 0xee, bytes);
		}
		ret = th_coll_start(coll);
		if (!ret)
			ret = th_coll_wait(coll, 20000000000ULL);
		if (ret)
			break;
		if (a->kind == TH_COLL_BCAST)
			memcpy(want, send[a->root], bytes);
		else
			ref_tree(a, n, a->root, send, want);
		for (r = 0; r < n; r++) {
			if (a->kind == TH_COLL_REDUCE && r != a->root)
				continue;
			if (memcmp(want, recv[r], bytes)) {
				TH_LOG("kind %d op %u dtype %u count %u n %u k %u root %u: rank %u round %u differs",
				       a->kind, a->op, a->dtype, a->count, n,
				       a->radix, a->root, r, round);
				bad = 1;
			}
		}
	}
	th_coll_destroy(coll);
	for (r = 0; r < n; r++) {
		free(send[r]);
		free(recv[r]);
	}
	free(want);
	world_close(&w, n);
	if (ret)
		TH_LOG("kind %d n %u k %u root %u count %u: %s", a->kind, n,
		       a->radix, a->root, a->count, th_strerror(ret));
	return ret ? ret : bad;
}

static const unsigned int sizes_n[] = { 1, 2, 3, 5, 7, 8, 16, 17, 64 };

FIXTURE(sweep) {
	int unused;
};

FIXTURE_SETUP(sweep)
{
}

FIXTURE_TEARDOWN(sweep)
{
}

/*
 * 108 collectives up to 64 ranks, each a new handle of 64 vports: under
 * the debug kernel's KASAN in the emulated VM, minutes rather than the
 * harness's 30 s.
 */
TEST_F_TIMEOUT(sweep, allreduce_every_n_radix_root, 600)
{
	static const unsigned int radix[] = { 2, 3, 4, 8 };
	struct th_coll_attr a = {
		.kind = TH_COLL_ALLREDUCE, .op = TH_NIC_ALU_SUM,
		.dtype = TH_NIC_DT_FLOAT64, .count = 37,
	};
	unsigned int i, j, roots[3];

	for (i = 0; i < sizeof(sizes_n) / sizeof(sizes_n[0]); i++) {
		unsigned int n = sizes_n[i];

		roots[0] = 0;
		roots[1] = n - 1;
		roots[2] = n / 2;
		for (j = 0; j < 4 * 3; j++) {
			a.radix = radix[j % 4];
			a.root = roots[j / 4];
			ASSERT_EQ(0, run_coll(_metadata, &a, n, 2));
		}
	}
}

TEST(allreduce_every_op_and_dtype)
{
	struct th_coll_attr a = { .kind = TH_COLL_ALLREDUCE, .count = 300,
				  .radix = 2, .root = 1 };
	unsigned int op, dt;

	for (dt = 0; dt < TH_NIC_DT_MAX; dt++) {
		for (op = 0; op < TH_NIC_ALU_OP_MAX; op++) {
			if (dt >= TH_NIC_DT_FLOAT32 && op >= TH_NIC_ALU_BAND)
				continue;
			a.op = op;
			a.dtype = dt;
			ASSERT_EQ(0, run_coll(_metadata, &a, 7, 1));
		}
	}
}

TEST(sizes_segments_and_rounds)
{
	static const uint32_t counts[] = { 0, 1, 1000, 20000, 40001 };
	struct th_coll_attr a = { .kind = TH_COLL_ALLREDUCE,
				  .op = TH_NIC_ALU_MAX, .dtype = TH_NIC_DT_INT32,
				  .radix = 4 };
	unsigned int i;

	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		a.count = counts[i];
		a.segment = 0;
		ASSERT_EQ(0, run_coll(_metadata, &a, 16, 3));
		/* two ranks: an exchange up to 64 KiB, a tree past it */
		ASSERT_EQ(0, run_coll(_metadata, &a, 2, 3));
		a.segment = 777;	/* not a divisor: a short last segment */
		ASSERT_EQ(0, run_coll(_metadata, &a, 5, 2));
	}
}

TEST(reduce_and_bcast)
{
	struct th_coll_attr a = { .op = TH_NIC_ALU_SUM, .dtype = TH_NIC_DT_INT64,
				  .count = 2500, .segment = 1000 };
	unsigned int i, n;

	for (i = 0; i < sizeof(sizes_n) / sizeof(sizes_n[0]); i++) {
		n = sizes_n[i];
		a.radix = 2 + i % 3;
		a.root = n / 3;
		a.kind = TH_COLL_REDUCE;
		ASSERT_EQ(0, run_coll(_metadata, &a, n, 3));
		a.kind = TH_COLL_BCAST;
		ASSERT_EQ(0, run_coll(_metadata, &a, n, 3));
	}
}

/* One handle after another on the same vports: counters and CQ start clean. */
TEST(handles_one_after_another_on_the_same_vports)
{
	enum { N = 5, COUNT = 100 };
	static int64_t send[N][COUNT], recv[N][COUNT];
	void *sp[N], *rp[N];
	struct th_coll_attr a = { .kind = TH_COLL_ALLREDUCE, .op = TH_NIC_ALU_SUM,
				  .dtype = TH_NIC_DT_INT64, .count = COUNT,
				  .radix = 2 };
	struct world w = { 0 };
	struct th_coll *coll;
	unsigned int h, r, i, round;

	ASSERT_EQ(0, world_open(&w, N));
	for (r = 0; r < N; r++) {
		sp[r] = send[r];
		rp[r] = recv[r];
	}
	for (h = 0; h < 3; h++) {
		a.kind = h == 1 ? TH_COLL_BCAST : TH_COLL_ALLREDUCE;
		a.root = h;
		coll = th_coll_create_local(w.vp, N, &a, sp, rp);
		ASSERT_NE(NULL, coll) TH_LOG("handle %u: %s", h, strerror(errno));
		for (round = 0; round < 2; round++) {
			for (r = 0; r < N; r++)
				for (i = 0; i < COUNT; i++) {
					send[r][i] = r * 1000 + i + h + round;
					recv[r][i] = -1;
				}
			ASSERT_EQ(0, th_coll_start(coll));
			ASSERT_EQ(0, th_coll_wait(coll, 10000000000ULL))
				TH_LOG("handle %u round %u", h, round);
			for (r = 0; r < N; r++)
				for (i = 0; i < COUNT; i++) {
					int64_t want = h == 1 ? send[a.root][i] :
						(int64_t)(N * (N - 1) / 2) * 1000 +
						N * (int64_t)(i + h + round);

					ASSERT_EQ(want, recv[r][i])
						TH_LOG("handle %u round %u rank %u", h, round, r);
				}
		}
		th_coll_destroy(coll);
	}
	world_close(&w, N);
}

/*
 * A delivery between vports of one fabric is done once it is posted: a
 * parent's sends to its children share a chain (a chain of its own per
 * child is for children behind a network, test_plan_sweep.c); the root's
 * is the chain of its reduction (the next test).
 */
TEST(local_children_share_a_chain)
{
	enum { N = 8 };
	struct th_coll_attr a = { .kind = TH_COLL_ALLREDUCE, .op = TH_NIC_ALU_SUM,
				  .dtype = TH_NIC_DT_INT64, .count = 4,
				  .radix = 2 };
	unsigned int i, d, chains = 0, puts = 0, n;
	struct world w = { 0 };
	struct th_coll_step st;
	struct th_coll *coll;

	ASSERT_EQ(0, world_open(&w, N));
	coll = th_coll_create_local(w.vp, N, &a, NULL, NULL);
	ASSERT_NE(NULL, coll);
	for (i = 0; !th_coll_plan_step(coll, i, &st); i++) {
		if (st.rank)
			continue;
		for (d = 0, n = 0; d < st.ndesc; d++)
			n += st.descs[d].opcode == TH_NIC_OP_PUT;
		chains += n > 0;
		puts += n;
	}
	/* the root's children 1, 2 and 4, in one chain */
	EXPECT_EQ(1, chains);
	EXPECT_EQ(3, puts);
	th_coll_destroy(coll);
	world_close(&w, N);
}

/*
 * Two ranks of one process build a tree (the exchange is for ranks behind
 * a network, coll.c: th_coll_pair_remote(); test_ofi checks its order),
 * whose root reduces its own operand first.  MAX keeps the earlier of
 * -0.0 and +0.0 and the first NaN, so the root's -0.0 against the
 * other's +0.0, and the root's NaN against the other's NaN of another
 * payload, leave the root's bytes on both ranks, for either root, over
 * 4 rounds.
 */
TEST(a_two_rank_allreduce_reduces_the_roots_operand_first_on_both)
{
	static const uint64_t root_bits[2] = { 0x8000000000000000ULL,
					       0x7ff8000000000001ULL };
	static const uint64_t other_bits[2] = { 0x0000000000000000ULL,
						0x7ff8000000000002ULL };
	struct th_coll_attr a = { .kind = TH_COLL_ALLREDUCE,
				  .op = TH_NIC_ALU_MAX,
				  .dtype = TH_NIC_DT_FLOAT64, .count = 2,
				  .radix = 2 };
	uint64_t send[2][2], recv[2][2];
	void *sp[2] = { send[0], send[1] }, *rp[2] = { recv[0], recv[1] };
	struct world w = { 0 };
	struct th_coll *coll;
	unsigned int root, round, r, i;

	ASSERT_EQ(0, world_open(&w, 2));
	for (root = 0; root < 2; root++) {
		a.root = root;
		coll = th_coll_create_local(w.vp, 2, &a, sp, rp);
		ASSERT_NE(NULL, coll);
		for (round = 0; round < 4; round++) {
			for (r = 0; r < 2; r++)
				for (i = 0; i < 2; i++)
					send[r][i] = r == root ? root_bits[i] :
						     other_bits[i];
			memset(recv, 0xee, sizeof(recv));
			ASSERT_EQ(0, th_coll_start(coll));
			ASSERT_EQ(0, th_coll_wait(coll, 20000000000ULL));
			for (r = 0; r < 2; r++)
				for (i = 0; i < 2; i++)
					EXPECT_EQ(root_bits[i], recv[r][i]) {
						TH_LOG("root %u round %u rank %u element %u",
						       root, round, r, i);
					}
		}
		th_coll_destroy(coll);
	}
	world_close(&w, 2);
}

/* Steps named @what in the plan th_coll_describe() compiles for two ranks; -1 if none compiles. */
static int described_steps(const struct th_coll_attr *a, const char *what)
{
	struct th_coll *cl = th_coll_describe(2, a, NULL);
	struct th_coll_step st;
	unsigned int i;
	int n = 0;

	if (!cl)
		return -1;
	for (i = 0; !th_coll_plan_step(cl, i, &st); i++)
		n += !strcmp(st.what, what);
	th_coll_destroy(cl);
	return n;
}

/*
 * A two-rank Broadcast of one segment between ranks behind a network is
 * sent eagerly into one of two slots, the leaf's consumption crediting
 * the root (coll.c: th_coll_eager_pair()): the described plan (every rank
 * remote) has the root's send chains and no ready PUT; of several
 * segments it keeps the ready protocol.  Two ranks of one process keep it
 * too (a tree); 5 rounds and count 0 there, for either root, give every
 * rank the root's data.  The eager plan runs between processes in
 * test_thmpi (MPI_Bcast of 2 ranks) and is verified in test_plan_sweep.
 */
TEST(a_two_rank_broadcast_is_sent_before_the_leaf_is_ready)
{
	struct th_coll_attr a = { .kind = TH_COLL_BCAST, .op = TH_NIC_ALU_SUM,
				  .dtype = TH_NIC_DT_INT64, .count = 37,
				  .radix = 2 };
	unsigned int root;

	for (root = 0; root < 2; root++) {
		a.root = root;
		a.segment = 0;
		a.count = 0;
		ASSERT_EQ(0, run_coll(_metadata, &a, 2, 3));
		a.count = 37;
		ASSERT_EQ(0, run_coll(_metadata, &a, 2, 5));
		EXPECT_EQ(2, described_steps(&a, "send the data to the leaf and into recv: done"));
		EXPECT_EQ(0, described_steps(&a, "start: ready to receive"));
		a.segment = 10;
		ASSERT_EQ(0, run_coll(_metadata, &a, 2, 5));
		EXPECT_EQ(0, described_steps(&a, "send the data to the leaf and into recv: done"));
		/* the leaf's; the root's only raised its Y (the next test) */
		EXPECT_EQ(1, described_steps(&a, "start: ready to receive"));
	}
}

/* @cl's descriptors of opcode @op, in all its steps. */
static unsigned int descs_of(const struct th_coll *cl, uint8_t op)
{
	struct th_coll_step st;
	unsigned int i, d, n = 0;

	for (i = 0; !th_coll_plan_step(cl, i, &st); i++)
		for (d = 0; d < st.ndesc; d++)
			n += st.descs[d].opcode == op;
	return n;
}

/*
 * The counter rank @rank's PUT to rank @to raises, in the first step
 * whose description begins with @what; -1 if there is none.
 */
static int put_raises(const struct th_coll *cl, unsigned int rank,
		      unsigned int to, const char *what)
{
	struct th_coll_step st;
	unsigned int i, d;

	for (i = 0; !th_coll_plan_step(cl, i, &st); i++)
		for (d = 0; st.rank == rank &&
		     !strncmp(st.what, what, strlen(what)) && d < st.ndesc; d++)
			if (st.descs[d].opcode == TH_NIC_OP_PUT &&
			    st.descs[d].xfer.node == to)
				return st.descs[d].xfer.remote_ct;
	return -1;
}

/* Does rank @rank of @cl start a round by raising counter @ct by @value? */
static bool starts_on(const struct th_coll *cl, unsigned int rank,
		      uint16_t ct, uint64_t value)
{
	struct th_coll_start_ct st;

	return !th_coll_plan_start(cl, rank, &st) && st.rank == rank &&
	       st.ct == ct && st.value == value;
}

/* @cl's steps of @rank on counter @ct; *@total: all of @rank's steps. */
static unsigned int steps_on(const struct th_coll *cl, unsigned int rank,
			     uint16_t ct, unsigned int *total)
{
	struct th_coll_step st;
	unsigned int i, n = 0;

	*total = 0;
	for (i = 0; !th_coll_plan_step(cl, i, &st); i++) {
		if (st.rank != rank)
			continue;
		(*total)++;
		n += st.ct == ct;
	}
	return n;
}

/*
 * No chain only passes an increment on (coll.c, plan.c): a rank whose one
 * chain on S would only raise a counter of its own has none, and
 * th_coll_start() raises that counter itself (th_coll_plan_start()); a
 * rank whose round ends with one finish has that finish raise D, the
 * rounds complete, itself, with no chain on F; and no plan writes a
 * NOTIFY (th_coll_wait() waits on D).  16 ranks in radix 4: every
 * Allreduce rank starts on U(0) by 1 and no step waits on S; each of the
 * 12 leaves has one step, on U(0), its parent's PUT of the result
 * raising its D.  Described (every child behind a network, a chain each)
 * an inner rank counts its three fan-out chains in F, and the root (which
 * does not wait for its PUTs' answers) ends with its copy into recv; on
 * vports of one process the root has one step, on U(0): the reduction,
 * a PUT to each of its 6 children, CT_INC of D; an inner rank two, on
 * U(0) and B(0), its one fan-out ending CT_INC of D, REARM.  A leaf of
 * three segments counts them in F.  A Broadcast's root (whose start only
 * raised Y) starts on Y, a leaf (whose start PUTs "ready" to its parent)
 * on S; with one segment on one fabric the root's copy into recv sends
 * it to the children.  The exchange of two ranks and a Reduce
 * have no chain on F.  Every kind runs 3 rounds with every rank's result
 * checked (run_coll()), on vports of one process, as the sweep runs every
 * shape.  A two-rank eager Broadcast's hosts start by 2.
 */
TEST(no_chain_only_passes_an_increment_on)
{
	struct th_coll_attr a = { .kind = TH_COLL_ALLREDUCE,
				  .op = TH_NIC_ALU_SUM,
				  .dtype = TH_NIC_DT_FLOAT64, .count = 3,
				  .radix = 4 };
	struct th_coll_start_ct st;
	struct th_coll_step step;
	struct world w = { 0 };
	struct th_coll *cl;
	unsigned int r, i, total, leaves = 0;

	cl = th_coll_describe(16, &a, NULL);
	ASSERT_NE(NULL, cl);
	for (r = 0; r < 16; r++) {
		EXPECT_TRUE(starts_on(cl, r, 8, 1)) TH_LOG("rank %u", r);
		EXPECT_EQ(0, steps_on(cl, r, 0, &total));	/* S */
		if (th_tree_children(16, 0, 4, r, NULL, 0))
			continue;
		leaves++;
		EXPECT_EQ(0, steps_on(cl, r, 9, &total));	/* B(0) */
		EXPECT_EQ(0, steps_on(cl, r, 1, &total));	/* F */
		EXPECT_EQ(1, steps_on(cl, r, 8, &total));
		EXPECT_EQ(1, total);
		/* the parent's only PUT to it, the result's: the leaf's D */
		EXPECT_EQ(3, put_raises(cl, th_tree_parent(16, 0, 4, r), r, ""));
	}
	EXPECT_EQ(12, leaves);
	/* F, described: an inner rank's three children, the root's copy */
	EXPECT_EQ(1, steps_on(cl, 4, 1, &total));
	EXPECT_EQ(0, steps_on(cl, 0, 1, &total));
	EXPECT_EQ(0, descs_of(cl, TH_NIC_OP_NOTIFY));
	EXPECT_EQ(-ENOENT, th_coll_plan_start(cl, 16, &st));
	EXPECT_EQ(-EINVAL, th_coll_plan_start(cl, 0, NULL));
	EXPECT_EQ(-EINVAL, th_coll_plan_start(NULL, 0, &st));
	th_coll_destroy(cl);
	ASSERT_EQ(0, world_open(&w, 16));
	cl = th_coll_create_local(w.vp, 16, &a, NULL, NULL);
	ASSERT_NE(NULL, cl);
	/* the root: one chain, on U(0): REDUCE, 6 PUTs, CT_INC D, REARM */
	EXPECT_EQ(1, steps_on(cl, 0, 8, &total));
	EXPECT_EQ(1, total);
	/* an inner rank: on U(0), and on B(0) ending PUT, CT_INC D, REARM */
	EXPECT_EQ(0, steps_on(cl, 4, 1, &total));	/* F */
	EXPECT_EQ(2, total);
	EXPECT_EQ(1, steps_on(cl, 4, 9, &total));	/* B(0) */
	for (i = 0; !th_coll_plan_step(cl, i, &step); i++) {
		if (step.rank == 0 && step.ct == 8) {
			ASSERT_EQ(9, step.ndesc);
			EXPECT_EQ(TH_NIC_OP_REDUCE, step.descs[0].opcode);
			EXPECT_EQ(TH_NIC_OP_PUT, step.descs[6].opcode);
			EXPECT_EQ(TH_NIC_OP_CT_INC, step.descs[7].opcode);
			EXPECT_EQ(3, step.descs[7].ct.ct);	/* D */
		}
		if (step.rank != 4 || step.ct != 9)
			continue;
		ASSERT_LE(3, step.ndesc);
		EXPECT_EQ(TH_NIC_OP_PUT, step.descs[step.ndesc - 3].opcode);
		EXPECT_EQ(TH_NIC_OP_CT_INC, step.descs[step.ndesc - 2].opcode);
		EXPECT_EQ(3, step.descs[step.ndesc - 2].ct.ct);	/* D */
		EXPECT_EQ(TH_NIC_OP_REARM, step.descs[step.ndesc - 1].opcode);
	}
	EXPECT_EQ(1, steps_on(cl, 15, 8, &total));	/* a leaf: U(0) */
	EXPECT_EQ(1, total);
	EXPECT_EQ(0, descs_of(cl, TH_NIC_OP_NOTIFY));
	th_coll_destroy(cl);
	world_close(&w, 16);
	ASSERT_EQ(0, run_coll(_metadata, &a, 16, 3));

	/* three segments: a leaf's parent raises its F, a chain there D */
	a.segment = 1;
	cl = th_coll_describe(16, &a, NULL);
	ASSERT_NE(NULL, cl);
	EXPECT_EQ(1, put_raises(cl, th_tree_parent(16, 0, 4, 15), 15,
				"forward the result"));
	EXPECT_EQ(1, steps_on(cl, 15, 1, &total));
	for (i = 0; !th_coll_plan_step(cl, i, &step); i++) {
		if (step.rank != 15 || step.ct != 1)
			continue;
		EXPECT_EQ(3, step.threshold);
		ASSERT_EQ(2, step.ndesc);
		EXPECT_EQ(TH_NIC_OP_CT_INC, step.descs[0].opcode);
		EXPECT_EQ(3, step.descs[0].ct.ct);	/* D */
	}
	th_coll_destroy(cl);
	ASSERT_EQ(0, run_coll(_metadata, &a, 16, 3));
	a.segment = 0;

	/* the exchange: each rank's reduction raises its D */
	cl = th_coll_describe(2, &a, NULL);
	ASSERT_NE(NULL, cl);
	EXPECT_EQ(0, steps_on(cl, 0, 1, &total) + steps_on(cl, 1, 1, &total));
	EXPECT_EQ(4, total);
	EXPECT_EQ(0, descs_of(cl, TH_NIC_OP_NOTIFY));
	th_coll_destroy(cl);
	ASSERT_EQ(0, run_coll(_metadata, &a, 2, 3));

	/* a Reduce: the root's reduction, the children's credits raise D */
	a.kind = TH_COLL_REDUCE;
	cl = th_coll_describe(16, &a, NULL);
	ASSERT_NE(NULL, cl);
	for (r = 0; r < 16; r++)
		EXPECT_EQ(0, steps_on(cl, r, 1, &total)) TH_LOG("rank %u", r);
	EXPECT_EQ(3, put_raises(cl, 0, 1, "credit: children's"));
	th_coll_destroy(cl);
	ASSERT_EQ(0, run_coll(_metadata, &a, 16, 3));

	a.kind = TH_COLL_BCAST;
	a.segment = 1;		/* three segments: the ready protocol */
	cl = th_coll_describe(16, &a, NULL);
	ASSERT_NE(NULL, cl);
	EXPECT_TRUE(starts_on(cl, 0, 2, 1));	/* Y */
	EXPECT_TRUE(starts_on(cl, 15, 0, 1));	/* S */
	EXPECT_EQ(1, steps_on(cl, 15, 0, &total));
	EXPECT_EQ(0, steps_on(cl, 15, 9, &total));
	th_coll_destroy(cl);
	ASSERT_EQ(0, run_coll(_metadata, &a, 16, 3));

	/* one segment on one fabric: the root's copy sends it down */
	a.segment = 0;
	ASSERT_EQ(0, world_open(&w, 16));
	cl = th_coll_create_local(w.vp, 16, &a, NULL, NULL);
	ASSERT_NE(NULL, cl);
	EXPECT_EQ(1, steps_on(cl, 0, 9, &total));	/* B(0) */
	for (i = 0; !th_coll_plan_step(cl, i, &step); i++) {
		if (step.rank || step.ct != 9)
			continue;
		ASSERT_EQ(9, step.ndesc);
		EXPECT_EQ(TH_NIC_OP_COPY, step.descs[0].opcode);
		EXPECT_EQ(TH_NIC_OP_PUT, step.descs[6].opcode);
		EXPECT_EQ(3, step.descs[7].ct.ct);	/* D */
	}
	th_coll_destroy(cl);
	world_close(&w, 16);
	ASSERT_EQ(0, run_coll(_metadata, &a, 16, 3));

	/*
	 * The root's one chain at the NIC's 16 descriptors: an Allreduce's
	 * two passes for 12 children (13 ranks, radix 16) or a Broadcast's
	 * copy for 13 (14 ranks), a PUT each, D, REARM; a child more and the
	 * root keeps a fan-out chain of its own.  Each runs 3 rounds.
	 */
	{
		static const struct {
			enum th_coll_kind kind;
			unsigned int n, root_steps;
		} fits[] = {
			{ TH_COLL_ALLREDUCE, 13, 1 }, { TH_COLL_ALLREDUCE, 14, 2 },
			{ TH_COLL_BCAST, 14, 2 }, { TH_COLL_BCAST, 15, 3 },
		};
		unsigned int f;

		a.radix = 16;
		for (f = 0; f < 4; f++) {
			a.kind = fits[f].kind;
			ASSERT_EQ(0, world_open(&w, fits[f].n));
			cl = th_coll_create_local(w.vp, fits[f].n, &a, NULL,
						  NULL);
			ASSERT_NE(NULL, cl) TH_LOG("case %u", f);
			/* a Broadcast root's release on Y is one more */
			steps_on(cl, 0, 0, &total);
			EXPECT_EQ(fits[f].root_steps, total) TH_LOG("case %u", f);
			th_coll_destroy(cl);
			world_close(&w, fits[f].n);
			ASSERT_EQ(0, run_coll(_metadata, &a, fits[f].n, 3));
		}
		a.kind = TH_COLL_BCAST;
		a.radix = 4;
	}

	/*
	 * The eager Broadcast of two ranks counts the start twice: each host
	 * raises its counter by 2 (the root Y, the leaf U(0)); it runs
	 * between processes in test_thmpi and test_ofi.
	 */
	a.segment = 0;
	cl = th_coll_describe(2, &a, NULL);
	ASSERT_NE(NULL, cl);
	EXPECT_TRUE(starts_on(cl, 0, 2, 2));	/* Y */
	EXPECT_TRUE(starts_on(cl, 1, 8, 2));	/* U(0) */
	EXPECT_EQ(0, steps_on(cl, 0, 0, &total) + steps_on(cl, 1, 0, &total));
	th_coll_destroy(cl);
}

TEST(bad_attributes_are_refused)
{
	struct world w = { 0 };
	struct th_coll_attr a = { .kind = TH_COLL_ALLREDUCE, .op = TH_NIC_ALU_BXOR,
				  .dtype = TH_NIC_DT_FLOAT32, .count = 4 };

	ASSERT_EQ(0, world_open(&w, 2));
	/* bitwise on floats: the NIC refuses the chains */
	EXPECT_EQ(NULL, th_coll_create_local(w.vp, 2, &a, NULL, NULL));
	EXPECT_EQ(EINVAL, errno);
	a.op = TH_NIC_ALU_SUM;
	a.root = 2;
	EXPECT_EQ(NULL, th_coll_create_local(w.vp, 2, &a, NULL, NULL));
	EXPECT_EQ(EINVAL, errno);
	a.root = 0;
	a.radix = 1;
	EXPECT_EQ(NULL, th_coll_create_local(w.vp, 2, &a, NULL, NULL));
	EXPECT_EQ(EINVAL, errno);
	a.radix = 2;
	a.dtype = TH_NIC_DT_MAX;
	EXPECT_EQ(NULL, th_coll_create_local(w.vp, 2, &a, NULL, NULL));
	/* an extension bit this library does not know: refused, not ignored */
	a.dtype = TH_NIC_DT_FLOAT64;
	a.comp_mask = 1u << 31;
	EXPECT_EQ(NULL, th_coll_create_local(w.vp, 2, &a, NULL, NULL));
	EXPECT_EQ(EOPNOTSUPP, errno);
	EXPECT_EQ(NULL, th_hostcoll_create_local(w.vp, 2, &a, NULL, NULL));
	EXPECT_EQ(EOPNOTSUPP, errno);
	/* and with the mask clear the same attributes are accepted */
	a.comp_mask = 0;
	{
		struct th_coll *c = th_coll_create_local(w.vp, 2, &a, NULL, NULL);

		ASSERT_NE(NULL, c);
		th_coll_destroy(c);
	}
	world_close(&w, 2);
}

TEST_HARNESS_MAIN
