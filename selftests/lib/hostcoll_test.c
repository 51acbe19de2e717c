// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * hostcoll_test.c - the host-driven Allreduce baselines
 * (thverbs/hostcoll.h) through the public API, one process driving every
 * rank: the p2p tree's results are bit-identical to th_coll's offload on
 * the same vports, tree and inputs; recursive doubling agrees wherever the
 * order of evaluation cannot matter (integers, exact floats); over N,
 * radix, root, op, dtype and size.  The one-process-per-rank model
 * (th_hostcoll_create) runs as one thread per rank, exchanging addresses
 * through a barrier-based allgather.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include <thverbs/hostcoll.h>
#include <thverbs/verbs.h>
#include "lib_world.h"

#define MAX_RANKS WORLD_MAX_RANKS
#define TIMEOUT_NS 20000000000ULL


/*
 * Floats: with @exact, small integers and quarters (+ 1/1024ths), whose
 * sums are exact in any order; otherwise sevenths and thirteenths, whose
 * sums round, so a change in the order of evaluation shows.
 */
static void fill(uint8_t *p, size_t bytes, unsigned int dtype,
		 unsigned int seed, bool exact)
{
	size_t i;

	for (i = 0; i < bytes; i++)
		p[i] = (uint8_t)((seed * 2654435761u + i * 40503u) >> 13);
	if (dtype == TH_NIC_DT_FLOAT32)
		for (i = 0; i + 4 <= bytes; i += 4) {
			float f = exact ? (float)((int)(p[i] % 64) - 32) / 2 :
				  (float)((int)(p[i] % 64) - 32) / 7 +
				  (float)p[i + 1] / 13;

			memcpy(p + i, &f, 4);
		}
	if (dtype == TH_NIC_DT_FLOAT64)
		for (i = 0; i + 8 <= bytes; i += 8) {
			double f = exact ? (double)((int)(p[i] % 200) - 100) / 4 +
				   (double)p[i + 1] / 1024 :
				   (double)((int)(p[i] % 200) - 100) / 7 +
				   (double)p[i + 1] / 13;

			memcpy(p + i, &f, 8);
		}
}

/*
 * @rounds rounds of Allreduce over @n ranks, offloaded (th_coll) and host
 * driven (@algo) on the same vports and inputs (floats exact for
 * recursive doubling, whose order differs); every rank's p2p result
 * must equal the offload's, bit for bit.  Returns 0, 1 (mismatch) or a
 * negative errno.
 */
static int run_cmp(struct __test_metadata *_metadata,
		   const struct th_coll_attr *a, enum th_hostcoll_algo algo,
		   unsigned int n, unsigned int rounds)
{
	uint8_t *send[MAX_RANKS], *want[MAX_RANKS], *got[MAX_RANKS];
	size_t bytes = (size_t)a->count * world_esize[a->dtype];
	struct th_coll *coll = NULL;
	struct th_hostcoll *p2p = NULL;
	struct world w = { 0 };
	unsigned int r, round;
	int ret, bad = 0;

	ret = world_open(&w, n);
	for (r = 0; r < n; r++) {
		send[r] = malloc(bytes + 1);
		want[r] = calloc(1, bytes + 1);
		got[r] = calloc(1, bytes + 1);
	}
	if (!ret) {
		coll = th_coll_create_local(w.vp, n, a, (void *const *)send,
					    (void *const *)want);
		if (!coll)
			ret = -errno;
	}
	if (!ret) {
		p2p = th_hostcoll_create_local_algo(w.vp, n, a, algo,
						    (void *const *)send,
						    (void *const *)got);
		if (!p2p)
			ret = -errno;
	}
	for (round = 0; !ret && round < rounds; round++) {
		for (r = 0; r < n; r++) {
			fill(send[r], bytes, a->dtype, round * 131 + r * 7 + 1,
			     algo != TH_HOSTCOLL_TREE);
			memset(want[r], 0xee, bytes);
			memset(got[r], 0xdd, bytes);
		}
		ret = th_coll_start(coll);
		/* odd rounds: no deadline at all (a timeout too large to add) */
		if (!ret)
			ret = th_coll_wait(coll, round % 2 ? UINT64_MAX : TIMEOUT_NS);
		if (!ret)
			ret = th_hostcoll_run(p2p, round % 2 ? UINT64_MAX : TIMEOUT_NS);
		for (r = 0; !ret && r < n; r++) {
			if (!memcmp(want[r], got[r], bytes))
				continue;
			TH_LOG("%s op %u dtype %u count %u n %u k %u root %u: rank %u round %u differs",
			       th_hostcoll_algo_name(algo), a->op, a->dtype,
			       a->count, n, a->radix, a->root, r, round);
			bad = 1;
		}
	}
	th_hostcoll_destroy(p2p);
	th_coll_destroy(coll);
	for (r = 0; r < n; r++) {
		free(send[r]);
		free(want[r]);
		free(got[r]);
	}
	world_close(&w, n);
	if (ret)
		TH_LOG("%s n %u k %u root %u count %u: %s",
		       th_hostcoll_algo_name(algo), n, a->radix, a->root, a->count,
		       th_strerror(ret));
	return ret ? ret : bad;
}

static const unsigned int ranks_n[] = { 1, 2, 3, 5, 8, 16 };
static const uint32_t counts[] = { 0, 1, 37, 3000 };

/* op and dtype pairs: every dtype once, every op at least once */
static const struct { unsigned int op, dtype; } sample[] = {
	{ TH_NIC_ALU_SUM, TH_NIC_DT_FLOAT64 },
	{ TH_NIC_ALU_PROD, TH_NIC_DT_FLOAT32 },
	{ TH_NIC_ALU_MAX, TH_NIC_DT_INT32 },
	{ TH_NIC_ALU_MIN, TH_NIC_DT_INT64 },
	{ TH_NIC_ALU_BXOR, TH_NIC_DT_UINT8 },
	{ TH_NIC_ALU_SUM, TH_NIC_DT_INT16 },
	{ TH_NIC_ALU_BAND, TH_NIC_DT_UINT64 },
	{ TH_NIC_ALU_BOR, TH_NIC_DT_UINT32 },
	{ TH_NIC_ALU_PROD, TH_NIC_DT_INT8 },
	{ TH_NIC_ALU_MIN, TH_NIC_DT_UINT16 },
	{ TH_NIC_ALU_MAX, TH_NIC_DT_FLOAT64 },
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

TEST(tree_matches_offload_n_radix_size)
{
	static const unsigned int radix[] = { 2, 4 };
	struct th_coll_attr a = { .kind = TH_COLL_ALLREDUCE,
				  .op = TH_NIC_ALU_SUM,
				  .dtype = TH_NIC_DT_FLOAT64 };
	unsigned int i, j, c;

	for (i = 0; i < ARRAY_LEN(ranks_n); i++)
		for (j = 0; j < ARRAY_LEN(radix); j++)
			for (c = 0; c < ARRAY_LEN(counts); c++) {
				a.radix = radix[j];
				a.count = counts[c];
				ASSERT_EQ(0, run_cmp(_metadata, &a, TH_HOSTCOLL_TREE,
						     ranks_n[i], 2));
			}
}

TEST(tree_matches_offload_ops_dtypes_roots)
{
	struct th_coll_attr a = { .kind = TH_COLL_ALLREDUCE, .count = 301 };
	unsigned int i, n;

	for (i = 0; i < ARRAY_LEN(sample); i++) {
		n = ranks_n[i % ARRAY_LEN(ranks_n)];
		a.op = sample[i].op;
		a.dtype = sample[i].dtype;
		a.radix = 2 + 2 * (i & 1);
		a.root = (i * 5) % n;
		ASSERT_EQ(0, run_cmp(_metadata, &a, TH_HOSTCOLL_TREE, n, 2));
		a.root = 6 - i % 3;
		ASSERT_EQ(0, run_cmp(_metadata, &a, TH_HOSTCOLL_TREE, 7, 1));
	}
}

/* More than six children: several ALU passes on the CPU as on the NIC. */
TEST(tree_wide_nodes_and_many_ranks)
{
	struct th_coll_attr a = { .kind = TH_COLL_ALLREDUCE,
				  .op = TH_NIC_ALU_PROD,
				  .dtype = TH_NIC_DT_FLOAT32, .count = 129 };

	a.radix = 8;
	ASSERT_EQ(0, run_cmp(_metadata, &a, TH_HOSTCOLL_TREE, 16, 2));
	a.radix = 16;
	ASSERT_EQ(0, run_cmp(_metadata, &a, TH_HOSTCOLL_TREE, 16, 1));
	a.radix = 4;
	a.op = TH_NIC_ALU_SUM;
	a.dtype = TH_NIC_DT_FLOAT64;
	ASSERT_EQ(0, run_cmp(_metadata, &a, TH_HOSTCOLL_TREE, 64, 1));
}

TEST(tree_many_rounds_on_one_handle)
{
	struct th_coll_attr a = { .kind = TH_COLL_ALLREDUCE,
				  .op = TH_NIC_ALU_SUM,
				  .dtype = TH_NIC_DT_INT32, .count = 1000,
				  .radix = 2, .root = 2 };

	ASSERT_EQ(0, run_cmp(_metadata, &a, TH_HOSTCOLL_TREE, 5, 25));
}

/* Orders differ, so only order-free cases are compared with the tree. */
TEST(recdbl_matches_offload)
{
	static const unsigned int rd_n[] = { 1, 2, 3, 5, 6, 7, 8, 16, 17 };
	struct th_coll_attr a = { .kind = TH_COLL_ALLREDUCE, .radix = 4 };
	unsigned int i, c;

	for (i = 0; i < ARRAY_LEN(rd_n); i++) {
		for (c = 0; c < ARRAY_LEN(counts); c++) {
			a.count = counts[c];
			a.op = TH_NIC_ALU_SUM;
			a.dtype = c & 1 ? TH_NIC_DT_FLOAT64 : TH_NIC_DT_INT64;
			ASSERT_EQ(0, run_cmp(_metadata, &a, TH_HOSTCOLL_RECDBL,
					     rd_n[i], 3));
		}
		a.count = 77;
		a.op = TH_NIC_ALU_MAX;
		a.dtype = TH_NIC_DT_FLOAT32;
		ASSERT_EQ(0, run_cmp(_metadata, &a, TH_HOSTCOLL_RECDBL, rd_n[i], 2));
		a.op = TH_NIC_ALU_BXOR;
		a.dtype = TH_NIC_DT_UINT16;
		ASSERT_EQ(0, run_cmp(_metadata, &a, TH_HOSTCOLL_RECDBL, rd_n[i], 2));
		a.op = TH_NIC_ALU_PROD;
		a.dtype = TH_NIC_DT_INT32;
		ASSERT_EQ(0, run_cmp(_metadata, &a, TH_HOSTCOLL_RECDBL, rd_n[i], 2));
	}
}

/* ---- one handle per rank, one thread per rank ---------------------------- */

#define MT_ROUNDS 4

struct mt_shared {
	pthread_barrier_t barrier;
	uint8_t gathered[MAX_RANKS * 64];
	const struct th_coll_attr *attr;
	enum th_hostcoll_algo algo;
	unsigned int n;
	struct th_vport **vp;
	uint8_t *send[MAX_RANKS], *recv[MAX_RANKS];
	uint8_t *want[MT_ROUNDS][MAX_RANKS];
};

struct mt_rank {
	struct mt_shared *sh;
	unsigned int rank;
	int ret;		/* 0, 1 (a result differs) or -errno */
};

static int mt_allgather(void *arg, const void *mine, void *all, size_t len)
{
	struct mt_rank *me = arg;
	struct mt_shared *sh = me->sh;

	if (len > 64)
		return -EINVAL;
	memcpy(sh->gathered + me->rank * len, mine, len);
	pthread_barrier_wait(&sh->barrier);
	memcpy(all, sh->gathered, sh->n * len);
	pthread_barrier_wait(&sh->barrier);
	return 0;
}

static void *mt_rank_main(void *arg)
{
	struct mt_rank *me = arg;
	struct mt_shared *sh = me->sh;
	size_t bytes = (size_t)sh->attr->count * world_esize[sh->attr->dtype];
	unsigned int r = me->rank, round;
	struct th_hostcoll *p;

	p = th_hostcoll_create(sh->vp[r], r, sh->n, mt_allgather, me, sh->attr,
			       sh->algo, sh->send[r], sh->recv[r]);
	if (!p) {
		me->ret = -errno;
		return NULL;
	}
	for (round = 0; !me->ret && round < MT_ROUNDS; round++) {
		/* no barrier: a fast rank's next PUTs must not spoil this one */
		fill(sh->send[r], bytes, sh->attr->dtype, round * 131 + r * 7 + 1,
		     sh->algo != TH_HOSTCOLL_TREE);
		memset(sh->recv[r], 0xdd, bytes);
		me->ret = th_hostcoll_run(p, TIMEOUT_NS);
		if (!me->ret && memcmp(sh->recv[r], sh->want[round][r], bytes))
			me->ret = 1;
	}
	th_hostcoll_destroy(p);
	return NULL;
}

/*
 * The offload's results for MT_ROUNDS rounds first (one process), then
 * the same inputs through one host-driven handle per thread.
 */
static int run_threads(struct __test_metadata *_metadata,
		       const struct th_coll_attr *a, enum th_hostcoll_algo algo,
		       unsigned int n)
{
	size_t bytes = (size_t)a->count * world_esize[a->dtype];
	struct mt_rank rank[MAX_RANKS];
	pthread_t tid[MAX_RANKS];
	struct mt_shared *sh = calloc(1, sizeof(*sh));
	struct th_coll *coll = NULL;
	unsigned int r, round, started = 0;
	struct world w = { 0 };
	int ret;

	if (!sh)
		return -ENOMEM;
	sh->attr = a;
	sh->algo = algo;
	sh->n = n;
	sh->vp = w.vp;
	ret = world_open(&w, n);
	for (r = 0; r < n; r++) {
		sh->send[r] = malloc(bytes + 1);
		sh->recv[r] = calloc(1, bytes + 1);
		for (round = 0; round < MT_ROUNDS; round++)
			sh->want[round][r] = calloc(1, bytes + 1);
	}
	if (!ret) {
		coll = th_coll_create_local(w.vp, n, a, (void *const *)sh->send,
					    (void *const *)sh->recv);
		ret = coll ? 0 : -errno;
	}
	for (round = 0; !ret && round < MT_ROUNDS; round++) {
		for (r = 0; r < n; r++)
			fill(sh->send[r], bytes, a->dtype, round * 131 + r * 7 + 1,
			     algo != TH_HOSTCOLL_TREE);
		ret = th_coll_start(coll);
		if (!ret)
			ret = th_coll_wait(coll, TIMEOUT_NS);
		for (r = 0; !ret && r < n; r++)
			memcpy(sh->want[round][r], sh->recv[r], bytes);
	}
	th_coll_destroy(coll);
	if (!ret)
		ret = -pthread_barrier_init(&sh->barrier, NULL, n);
	for (r = 0; !ret && r < n; r++) {
		rank[r] = (struct mt_rank){ .sh = sh, .rank = r };
		ret = -pthread_create(&tid[r], NULL, mt_rank_main, &rank[r]);
		started = ret ? started : r + 1;
	}
	/* a failed create leaves the others waiting at the barrier: say so */
	if (ret && started)
		TH_LOG("pthread_create failed after %u threads", started);
	for (r = 0; r < started; r++) {
		pthread_join(tid[r], NULL);
		if (rank[r].ret)
			TH_LOG("%s n %u k %u count %u: rank %u: %s",
			       th_hostcoll_algo_name(algo), n, a->radix, a->count, r,
			       rank[r].ret > 0 ? "result differs" :
			       th_strerror(rank[r].ret));
		if (!ret)
			ret = rank[r].ret;
	}
	if (started)
		pthread_barrier_destroy(&sh->barrier);
	for (r = 0; r < n; r++) {
		free(sh->send[r]);
		free(sh->recv[r]);
		for (round = 0; round < MT_ROUNDS; round++)
			free(sh->want[round][r]);
	}
	world_close(&w, n);
	free(sh);
	return ret;
}

TEST(one_handle_per_rank_threads)
{
	static const unsigned int mt_n[] = { 1, 3, 8, 16 };
	struct th_coll_attr a = { .kind = TH_COLL_ALLREDUCE,
				  .op = TH_NIC_ALU_SUM,
				  .dtype = TH_NIC_DT_FLOAT64, .count = 513 };
	unsigned int i;

	for (i = 0; i < ARRAY_LEN(mt_n); i++) {
		a.radix = 2;
		ASSERT_EQ(0, run_threads(_metadata, &a, TH_HOSTCOLL_TREE, mt_n[i]));
		a.radix = 4;
		a.root = mt_n[i] / 2;
		ASSERT_EQ(0, run_threads(_metadata, &a, TH_HOSTCOLL_TREE, mt_n[i]));
		a.root = 0;
		ASSERT_EQ(0, run_threads(_metadata, &a, TH_HOSTCOLL_RECDBL, mt_n[i]));
	}
}

TEST(bad_attributes_are_refused)
{
	struct th_coll_attr a = { .kind = TH_COLL_REDUCE, .op = TH_NIC_ALU_SUM,
				  .dtype = TH_NIC_DT_INT32, .count = 4 };
	struct world w = { 0 };

	ASSERT_EQ(0, world_open(&w, 2));
	EXPECT_EQ(NULL, th_hostcoll_create_local(w.vp, 2, &a, NULL, NULL));
	EXPECT_EQ(EOPNOTSUPP, errno);
	a.kind = TH_COLL_ALLREDUCE;
	a.root = 2;
	EXPECT_EQ(NULL, th_hostcoll_create_local(w.vp, 2, &a, NULL, NULL));
	EXPECT_EQ(EINVAL, errno);
	a.root = 0;
	a.radix = 1;
	EXPECT_EQ(NULL, th_hostcoll_create_local(w.vp, 2, &a, NULL, NULL));
	EXPECT_EQ(EINVAL, errno);
	a.radix = 2;
	a.dtype = TH_NIC_DT_FLOAT32;
	a.op = TH_NIC_ALU_BXOR;
	EXPECT_EQ(NULL, th_hostcoll_create_local(w.vp, 2, &a, NULL, NULL));
	EXPECT_EQ(EINVAL, errno);
	a.op = TH_NIC_ALU_SUM;
	EXPECT_EQ(NULL, th_hostcoll_create_local_algo(w.vp, 2, &a, TH_HOSTCOLL_ALGO_MAX,
						      NULL, NULL));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-EINVAL, th_hostcoll_run(NULL, 0));
	EXPECT_STREQ("p2p-tree", th_hostcoll_algo_name(TH_HOSTCOLL_TREE));
	EXPECT_STREQ("recdbl", th_hostcoll_algo_name(TH_HOSTCOLL_RECDBL));
	world_close(&w, 2);
}

TEST_HARNESS_MAIN
