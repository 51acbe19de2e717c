// SPDX-License-Identifier: GPL-2.0
/*
 * reduce_test.c - the module's ALU, bit for bit: every operator on every
 * element type (bitwise operators on floats refused), several operand
 * counts, accumulate, strided sources and in-place destinations, against a
 * reference evaluated here strictly left to right (integers wrap; float
 * max/min keep the first NaN met and, on ties, the earlier operand).
 */
#include <math.h>

#include "kselftest_harness.h"
#include "th_nic_util.h"

#define NODE		5
#define MAX_COUNT	4099
#define SLOT		(MAX_COUNT * 8 + 128)	/* a multiple of 64 */
#define NSLOTS		8			/* 7 sources + dst */
#define DST_SLOT	7
#define GUARD		0x5c

static const unsigned int esize[TH_NIC_DT_MAX] = {
	[TH_NIC_DT_INT8] = 1, [TH_NIC_DT_UINT8] = 1,
	[TH_NIC_DT_INT16] = 2, [TH_NIC_DT_UINT16] = 2,
	[TH_NIC_DT_INT32] = 4, [TH_NIC_DT_UINT32] = 4,
	[TH_NIC_DT_INT64] = 8, [TH_NIC_DT_UINT64] = 8,
	[TH_NIC_DT_FLOAT32] = 4, [TH_NIC_DT_FLOAT64] = 8,
};

static bool is_float(unsigned int dt)
{
	return dt == TH_NIC_DT_FLOAT32 || dt == TH_NIC_DT_FLOAT64;
}

static bool is_bitwise(unsigned int op)
{
	return op == TH_NIC_ALU_BAND || op == TH_NIC_ALU_BOR ||
	       op == TH_NIC_ALU_BXOR;
}

/* ---- the reference -------------------------------------------------- */

#define IMAX(a, b)	((b) > (a) ? (b) : (a))
#define IMIN(a, b)	((b) < (a) ? (b) : (a))
#define FMAX(a, b)	(isnan(a) ? (a) : (isnan(b) || (b) > (a)) ? (b) : (a))
#define FMIN(a, b)	(isnan(a) ? (a) : (isnan(b) || (b) < (a)) ? (b) : (a))

/* out[i] = first[i] op src[0][i] op ... (first: dst or src[0]) */
#define REF(T, EXPR) do {						\
	const T *f = first;						\
	T *o = out;							\
	for (i = 0; i < count; i++) {					\
		T a = f[i];						\
		for (k = k0; k < n; k++) {				\
			T b = ((const T *)src[k])[i];			\
			a = (EXPR);					\
		}							\
		o[i] = a;						\
	}								\
} while (0)

#define REF_INT(U, S) do {						\
	switch (op) {							\
	case TH_NIC_ALU_SUM: REF(U, (U)(a + b)); break;			\
	case TH_NIC_ALU_PROD: REF(U, (U)((__u64)a * (__u64)b)); break;	\
	case TH_NIC_ALU_MAX: REF(S, IMAX(a, b)); break;			\
	case TH_NIC_ALU_MIN: REF(S, IMIN(a, b)); break;			\
	case TH_NIC_ALU_BAND: REF(U, (U)(a & b)); break;		\
	case TH_NIC_ALU_BOR: REF(U, (U)(a | b)); break;			\
	case TH_NIC_ALU_BXOR: REF(U, (U)(a ^ b)); break;		\
	}								\
} while (0)

#define REF_UINT(U) do {						\
	switch (op) {							\
	case TH_NIC_ALU_MAX: REF(U, IMAX(a, b)); break;			\
	case TH_NIC_ALU_MIN: REF(U, IMIN(a, b)); break;			\
	default: REF_INT(U, U); break;					\
	}								\
} while (0)

#define REF_FLOAT(T) do {						\
	switch (op) {							\
	case TH_NIC_ALU_SUM: REF(T, a + b); break;			\
	case TH_NIC_ALU_PROD: REF(T, a * b); break;			\
	case TH_NIC_ALU_MAX: REF(T, FMAX(a, b)); break;			\
	case TH_NIC_ALU_MIN: REF(T, FMIN(a, b)); break;			\
	}								\
} while (0)

static void reference(unsigned int op, unsigned int dt, void *out,
		      const void *dst_before, const void *const *src,
		      unsigned int n, bool acc, unsigned int count)
{
	const void *first = acc ? dst_before : src[0];
	unsigned int i, k, k0 = acc ? 0 : 1;

	switch (dt) {
	case TH_NIC_DT_INT8: REF_INT(__u8, __s8); break;
	case TH_NIC_DT_INT16: REF_INT(__u16, __s16); break;
	case TH_NIC_DT_INT32: REF_INT(__u32, __s32); break;
	case TH_NIC_DT_INT64: REF_INT(__u64, __s64); break;
	case TH_NIC_DT_UINT8: REF_UINT(__u8); break;
	case TH_NIC_DT_UINT16: REF_UINT(__u16); break;
	case TH_NIC_DT_UINT32: REF_UINT(__u32); break;
	case TH_NIC_DT_UINT64: REF_UINT(__u64); break;
	case TH_NIC_DT_FLOAT32: REF_FLOAT(float); break;
	case TH_NIC_DT_FLOAT64: REF_FLOAT(double); break;
	}
}

/* ---- operand data ------------------------------------------------------ */

static __u64 rnd(__u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * Float operands: for sum and prod, finite values of mixed magnitude with
 * zeros of both signs, subnormals and the odd infinity (inf - inf gives
 * the one default NaN, the same on every path); for max and min, a small
 * set so ties are frequent, with quiet NaNs of distinct payloads.
 */
static double fval(__u64 *s, unsigned int op, bool f32, unsigned int tag)
{
	__u64 r = rnd(s);
	double sign = (r & 1) ? -1.0 : 1.0;

	if (op == TH_NIC_ALU_MAX || op == TH_NIC_ALU_MIN) {
		switch ((r >> 1) % 10) {
		case 0: return 0.0;
		case 1: return -0.0;
		case 2: return sign * INFINITY;
		case 3: return sign * 1.5;
		case 4: return 2.0;
		case 5: return sign * (f32 ? 1e-40 : 4.9e-320);
		case 6: return NAN;	/* payload set by the caller */
		default: return sign * (double)((r >> 8) % 1000) / 8;
		}
	}
	switch ((r >> 1) % 32) {
	case 0: return 0.0;
	case 1: return -0.0;
	case 2: return sign * (f32 ? 1e-41 : 1e-310);
	case 3: return (tag % 5 == 0) ? sign * INFINITY : 1.0;
	default:
		return sign * ldexp((double)(r >> 11) / (double)(1ULL << 53),
				    (int)((r >> 4) % 40) - 20);
	}
}

static void fill(void *p, unsigned int op, unsigned int dt, unsigned int count,
		 __u64 seed)
{
	__u64 s = seed * 0x9e3779b97f4a7c15ULL + 1;
	unsigned int i;

	for (i = 0; i < count; i++) {
		__u64 r = rnd(&s);

		switch (dt) {
		case TH_NIC_DT_FLOAT32: {
			float f = fval(&s, op, true, i);
			__u32 bits;

			memcpy(&bits, &f, 4);
			if (isnan(f))	/* quiet NaN, payload from the seed */
				bits = (r & 0x80000000U) | 0x7fc00000U |
				       ((__u32)(r % 0x3fffff) + 1);
			memcpy((__u8 *)p + 4 * i, &bits, 4);
			break;
		}
		case TH_NIC_DT_FLOAT64: {
			double f = fval(&s, op, false, i);
			__u64 bits;

			memcpy(&bits, &f, 8);
			if (isnan(f))
				bits = (r & (1ULL << 63)) | 0x7ff8000000000000ULL |
				       ((r >> 20) % 0x7ffffffffffffULL + 1);
			memcpy((__u8 *)p + 8 * i, &bits, 8);
			break;
		}
		default:
			/* small values now and then, so max/min meet ties */
			if (r % 4 == 0)
				r %= 5;
			memcpy((__u8 *)p + (size_t)esize[dt] * i, &r, esize[dt]);
		}
	}
}

/* ---- the test ---------------------------------------------------------- */

FIXTURE(red) {
	int fd;
	struct thn_vport v;
	__u8 *mem;		/* NSLOTS slots of SLOT bytes */
	__u32 key;		/* local write */
	__u8 *before, *want;	/* SLOT bytes each */
};

FIXTURE_VARIANT(red) {
	unsigned int dtype;
};

FIXTURE_VARIANT_ADD(red, int8) { TH_NIC_DT_INT8 };
FIXTURE_VARIANT_ADD(red, int16) { TH_NIC_DT_INT16 };
FIXTURE_VARIANT_ADD(red, int32) { TH_NIC_DT_INT32 };
FIXTURE_VARIANT_ADD(red, int64) { TH_NIC_DT_INT64 };
FIXTURE_VARIANT_ADD(red, uint8) { TH_NIC_DT_UINT8 };
FIXTURE_VARIANT_ADD(red, uint16) { TH_NIC_DT_UINT16 };
FIXTURE_VARIANT_ADD(red, uint32) { TH_NIC_DT_UINT32 };
FIXTURE_VARIANT_ADD(red, uint64) { TH_NIC_DT_UINT64 };
FIXTURE_VARIANT_ADD(red, float32) { TH_NIC_DT_FLOAT32 };
FIXTURE_VARIANT_ADD(red, float64) { TH_NIC_DT_FLOAT64 };

FIXTURE_SETUP(red)
{
	struct thn_key k;

	self->fd = thn_open(NODE);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, thn_vport_open(self->fd, 0, 0, &self->v));
	self->mem = thn_alloc((size_t)NSLOTS * SLOT);
	self->before = thn_alloc(SLOT);
	self->want = thn_alloc(SLOT);
	ASSERT_NE(NULL, self->mem);
	ASSERT_NE(NULL, self->before);
	ASSERT_NE(NULL, self->want);
	ASSERT_EQ(0, thn_mr_reg(&self->v, self->mem, (size_t)NSLOTS * SLOT,
				TH_NIC_ACCESS_LOCAL_WRITE, &k));
	self->key = k.l;
}

FIXTURE_TEARDOWN(red)
{
	close(self->fd);
}

/* One row per operand shape. */
struct shape {
	const char *name;
	unsigned int nsrc;
	bool acc;		/* TH_NIC_RF_ACCUMULATE */
	bool strided;		/* TH_NIC_RF_STRIDED, slots as base + i * SLOT */
	bool in_place;		/* dst is source 0 */
	unsigned int count;
};

static const struct shape shapes[] = {
	{ "1 source", 1, false, false, false, 1037 },
	{ "2 sources", 2, false, false, false, 1037 },
	{ "3 sources", 3, false, false, false, 1 },
	{ "5 sources", 5, false, false, false, 63 },
	{ "7 sources", 7, false, false, false, MAX_COUNT },
	{ "accumulate 1", 1, true, false, false, 1037 },
	{ "accumulate 6", 6, true, false, false, 1037 },
	{ "strided 4", 4, false, true, false, 1037 },
	{ "strided 7", 7, false, true, false, 257 },
	{ "strided accumulate 3", 3, true, true, false, 1037 },
	{ "in place 3", 3, false, false, true, 1037 },
	{ "no elements", 2, false, false, false, 0 },
};

static void run_op(struct __test_metadata *_metadata,
		   FIXTURE_DATA(red) *self, unsigned int op, unsigned int dt)
{
	const unsigned int es = esize[dt];
	struct th_nic_doorbell db;
	struct th_nic_cqe cqe;
	struct th_nic_desc d;
	unsigned int s, k;

	if (is_bitwise(op) && is_float(dt)) {
		__u32 keys[2] = { self->key, self->key };
		__u64 offs[2] = { 0, SLOT };
		__u32 head = thn_sq_head(&self->v);

		d = thn_reduce(op, dt, 16, self->key, DST_SLOT * SLOT, 2, keys,
			       offs);
		d.flags |= TH_NIC_DF_SIGNAL;
		EXPECT_EQ(-EINVAL, thn_post(&self->v, &d, 1, &db));
		EXPECT_EQ(head, db.bad_index);
		EXPECT_EQ(0, db.bad_desc);
		EXPECT_EQ(head, thn_sq_head(&self->v));
		thn_sq_rewind(&self->v);
		EXPECT_EQ(0, thn_cq_pending(&self->v));
		return;
	}

	for (s = 0; s < ARRAY_SIZE(shapes); s++) {
		const struct shape *sh = &shapes[s];
		unsigned int dst_slot = sh->in_place ? 0 : DST_SLOT;
		const void *src[TH_NIC_MAX_OPERANDS];
		__u32 keys[TH_NIC_MAX_OPERANDS];
		__u64 offs[TH_NIC_MAX_OPERANDS];
		__u8 *dst = self->mem + (size_t)dst_slot * SLOT;
		size_t bytes = (size_t)sh->count * es;

		for (k = 0; k < NSLOTS; k++) {
			memset(self->mem + (size_t)k * SLOT, GUARD, SLOT);
			fill(self->mem + (size_t)k * SLOT, op, dt, sh->count,
			     ((__u64)op << 40) ^ ((__u64)dt << 32) ^
			     (s << 8) ^ k);
		}
		memcpy(self->before, dst, SLOT);
		for (k = 0; k < sh->nsrc; k++) {
			src[k] = self->mem + (size_t)k * SLOT;
			keys[k] = self->key;
			offs[k] = (__u64)k * SLOT;
		}
		memcpy(self->want, self->before, SLOT);
		reference(op, dt, self->want, self->before, src, sh->nsrc,
			  sh->acc, sh->count);

		d = thn_reduce(op, dt, sh->count, self->key,
			       (__u64)dst_slot * SLOT, sh->nsrc, keys, offs);
		if (sh->acc)
			d.reduce.rflags |= TH_NIC_RF_ACCUMULATE;
		if (sh->strided) {
			d.reduce.rflags |= TH_NIC_RF_STRIDED;
			memset(d.reduce.src_key, 0, sizeof(d.reduce.src_key));
			memset(d.reduce.src_off, 0, sizeof(d.reduce.src_off));
			d.reduce.src_key[0] = self->key;
			d.reduce.src_off[0] = 0;
			d.reduce.src_off[1] = SLOT;
		}
		d.flags |= TH_NIC_DF_SIGNAL;
		thn_trigger(&d, 0, 0, s);
		ASSERT_EQ(0, thn_post(&self->v, &d, 1, &db))
			TH_LOG("%s: bad_desc %u", sh->name, db.bad_desc);
		ASSERT_EQ(1, thn_cq_wait(&self->v, &cqe, 1, THN_WAIT_MS))
			TH_LOG("%s: no completion", sh->name);
		ASSERT_EQ(0, cqe.status) TH_LOG("%s", sh->name);
		EXPECT_EQ(s, cqe.cookie);
		EXPECT_EQ(TH_NIC_OP_REDUCE, cqe.opcode);
		for (k = 0; k < sh->count; k++) {
			if (memcmp(dst + (size_t)k * es,
				   self->want + (size_t)k * es, es))
				break;
		}
		EXPECT_EQ(sh->count, k) {
			__u64 got = 0, want = 0;

			memcpy(&got, dst + (size_t)k * es, es);
			memcpy(&want, self->want + (size_t)k * es, es);
			TH_LOG("%s: element %u of %u: got 0x%llx, want 0x%llx",
			       sh->name, k, sh->count,
			       (unsigned long long)got,
			       (unsigned long long)want);
		}
		/* past the last element nothing changed */
		EXPECT_EQ(0, memcmp(dst + bytes, self->before + bytes,
				    SLOT - bytes)) TH_LOG("%s: wrote past count",
							  sh->name);
		/* sources untouched unless one is the destination */
		for (k = sh->in_place ? 1 : 0; k < DST_SLOT; k++) {
			__u8 *p = self->mem + (size_t)k * SLOT;

			fill(self->want, op, dt, sh->count,
			     ((__u64)op << 40) ^ ((__u64)dt << 32) ^
			     (s << 8) ^ k);
			ASSERT_EQ(0, memcmp(p, self->want, bytes))
				TH_LOG("%s: source %u changed", sh->name, k);
		}
	}
}

TEST_F(red, sum) { run_op(_metadata, self, TH_NIC_ALU_SUM, variant->dtype); }
TEST_F(red, prod) { run_op(_metadata, self, TH_NIC_ALU_PROD, variant->dtype); }
TEST_F(red, max) { run_op(_metadata, self, TH_NIC_ALU_MAX, variant->dtype); }
TEST_F(red, min) { run_op(_metadata, self, TH_NIC_ALU_MIN, variant->dtype); }
TEST_F(red, band) { run_op(_metadata, self, TH_NIC_ALU_BAND, variant->dtype); }
TEST_F(red, bor) { run_op(_metadata, self, TH_NIC_ALU_BOR, variant->dtype); }
TEST_F(red, bxor) { run_op(_metadata, self, TH_NIC_ALU_BXOR, variant->dtype); }

/*
 * The rules the reference encodes, checked on hand-picked operands so a
 * wrong reference cannot hide a wrong ALU: the first NaN wins, ties keep
 * the earlier zero, integer sums wrap.
 */
TEST(hand_picked_edge_cases)
{
	int fd = thn_open(NODE);
	struct thn_vport v;
	struct th_nic_cqe cqe;
	struct th_nic_desc d;
	double *m = thn_alloc(4096);
	struct thn_key mr;
	__u32 key, keys[4];
	__u64 offs[4], bits[4];
	const __u64 nan1 = 0x7ff8000000000001ULL, nan2 = 0xfff8000000000002ULL;
	unsigned int i;

	ASSERT_LE(0, fd);
	ASSERT_NE(NULL, m);
	ASSERT_EQ(0, thn_vport_open(fd, 0, 0, &v));
	ASSERT_EQ(0, thn_mr_reg(&v, m, 4096, TH_NIC_ACCESS_LOCAL_WRITE, &mr));
	key = mr.l;
	for (i = 0; i < 4; i++) {
		keys[i] = key;
		offs[i] = 64 * i;
	}
	/* element 0: 1, NaN1, NaN2, 3 -> NaN1; element 1: -0, +0, -0, -1 */
	m[0] = 1.0;
	memcpy(&m[8], &nan1, 8);
	memcpy(&m[16], &nan2, 8);
	m[24] = 3.0;
	m[1] = -0.0;
	m[9] = 0.0;
	m[17] = -0.0;
	m[25] = -1.0;
	for (i = 0; i < 2; i++) {
		d = thn_reduce(i ? TH_NIC_ALU_MIN : TH_NIC_ALU_MAX,
			       TH_NIC_DT_FLOAT64, 2, key, 256 + 64 * i, 4,
			       keys, offs);
		d.flags |= TH_NIC_DF_SIGNAL;
		ASSERT_EQ(0, thn_post(&v, &d, 1, NULL));
		ASSERT_EQ(1, thn_cq_wait(&v, &cqe, 1, THN_WAIT_MS));
		ASSERT_EQ(0, cqe.status);
	}
	memcpy(&bits[0], &m[32], 8);		/* max, element 0 */
	memcpy(&bits[1], &m[33], 8);		/* max, element 1 */
	memcpy(&bits[2], &m[40], 8);		/* min, element 0 */
	memcpy(&bits[3], &m[41], 8);		/* min, element 1 */
	EXPECT_EQ(nan1, bits[0]);
	EXPECT_EQ(0x8000000000000000ULL, bits[1]);	/* -0 kept over +0 */
	EXPECT_EQ(nan1, bits[2]);
	EXPECT_EQ(0xbff0000000000000ULL, bits[3]);	/* -1 */

	/* int32 sum wraps: INT32_MAX + 1 = INT32_MIN */
	{
		__s32 *w = (__s32 *)m;

		w[0] = 0x7fffffff;
		w[16] = 1;
		d = thn_reduce(TH_NIC_ALU_SUM, TH_NIC_DT_INT32, 1, key, 512, 2,
			       keys, offs);
		d.flags |= TH_NIC_DF_SIGNAL;
		ASSERT_EQ(0, thn_post(&v, &d, 1, NULL));
		ASSERT_EQ(1, thn_cq_wait(&v, &cqe, 1, THN_WAIT_MS));
		ASSERT_EQ(0, cqe.status);
		EXPECT_EQ((__s32)0x80000000, w[128]);
	}
	close(fd);
}

TEST_HARNESS_MAIN
