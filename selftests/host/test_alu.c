// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_alu.c - host tests of the ALU (driver/trigger/th_alu.c): every op and
 * dtype against a scalar reference, edge values, aliasing and validation.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "th_alu.h"
#include "kselftest_harness.h"

#define MAX_OPS		TH_NIC_MAX_OPERANDS

static const char *const op_names[TH_NIC_ALU_OP_MAX] = {
	[TH_NIC_ALU_SUM] = "sum", [TH_NIC_ALU_PROD] = "prod",
	[TH_NIC_ALU_MAX] = "max", [TH_NIC_ALU_MIN] = "min",
	[TH_NIC_ALU_BAND] = "band", [TH_NIC_ALU_BOR] = "bor",
	[TH_NIC_ALU_BXOR] = "bxor",
};

static const char *const dt_names[TH_NIC_DT_MAX] = {
	[TH_NIC_DT_INT8] = "int8", [TH_NIC_DT_INT16] = "int16",
	[TH_NIC_DT_INT32] = "int32", [TH_NIC_DT_INT64] = "int64",
	[TH_NIC_DT_UINT8] = "uint8", [TH_NIC_DT_UINT16] = "uint16",
	[TH_NIC_DT_UINT32] = "uint32", [TH_NIC_DT_UINT64] = "uint64",
	[TH_NIC_DT_FLOAT32] = "float32", [TH_NIC_DT_FLOAT64] = "float64",
};

/*
 * The reference model: one element at a time, operands left to right,
 * values carried as raw bits in a u64 (zero-extended), integer arithmetic
 * done in 64 bits and truncated, floats with explicit NaN branches.  It
 * shares no code with th_alu.c, not even the element sizes.
 */
static unsigned int ref_size(unsigned int dtype)
{
	switch (dtype) {
	case TH_NIC_DT_INT8: case TH_NIC_DT_UINT8:
		return 1;
	case TH_NIC_DT_INT16: case TH_NIC_DT_UINT16:
		return 2;
	case TH_NIC_DT_INT32: case TH_NIC_DT_UINT32: case TH_NIC_DT_FLOAT32:
		return 4;
	default:
		return 8;
	}
}

static bool ref_signed(unsigned int dtype)
{
	return dtype <= TH_NIC_DT_INT64;
}

static u64 ref_mask(unsigned int size)
{
	return size == 8 ? ~0ULL : (1ULL << (8 * size)) - 1;
}

static s64 ref_sext(u64 bits, unsigned int size)
{
	unsigned int shift = 64 - 8 * size;

	return (s64)(bits << shift) >> shift;
}

static u64 ref_get(unsigned int size, const void *p, u64 i)
{
	const u8 *b = (const u8 *)p + i * size;
	u64 v = 0;
	unsigned int k;

	for (k = 0; k < size; k++)	/* little-endian, byte by byte */
		v |= (u64)b[k] << (8 * k);
	return v;
}

static void ref_put(unsigned int size, void *p, u64 i, u64 v)
{
	u8 *b = (u8 *)p + i * size;
	unsigned int k;

	for (k = 0; k < size; k++)
		b[k] = v >> (8 * k);
}

static double bits_f64(u64 b)
{
	double d;

	memcpy(&d, &b, sizeof(d));
	return d;
}

static u64 f64_bits(double d)
{
	u64 b;

	memcpy(&b, &d, sizeof(b));
	return b;
}

static float bits_f32(u64 b)
{
	u32 w = b;
	float f;

	memcpy(&f, &w, sizeof(f));
	return f;
}

static u64 f32_bits(float f)
{
	u32 w;

	memcpy(&w, &f, sizeof(w));
	return w;
}

static u64 ref_int(unsigned int op, unsigned int dtype, u64 a, u64 b)
{
	unsigned int size = ref_size(dtype);
	bool sgn = ref_signed(dtype);
	bool b_greater = sgn ? ref_sext(b, size) > ref_sext(a, size) : b > a;
	bool b_less = sgn ? ref_sext(b, size) < ref_sext(a, size) : b < a;
	u64 r;

	switch (op) {
	case TH_NIC_ALU_SUM:
		r = a + b;
		break;
	case TH_NIC_ALU_PROD:
		r = a * b;
		break;
	case TH_NIC_ALU_MAX:
		r = b_greater ? b : a;
		break;
	case TH_NIC_ALU_MIN:
		r = b_less ? b : a;
		break;
	case TH_NIC_ALU_BAND:
		r = a & b;
		break;
	case TH_NIC_ALU_BOR:
		r = a | b;
		break;
	default:
		r = a ^ b;
		break;
	}
	return r & ref_mask(size);
}

static u64 ref_f64(unsigned int op, u64 a, u64 b)
{
	double x = bits_f64(a), y = bits_f64(b);

	switch (op) {
	case TH_NIC_ALU_SUM:
		return f64_bits(x + y);
	case TH_NIC_ALU_PROD:
		return f64_bits(x * y);
	case TH_NIC_ALU_MAX:
		if (isnan(x))
			return a;
		if (isnan(y))
			return b;
		return y > x ? b : a;
	default:
		if (isnan(x))
			return a;
		if (isnan(y))
			return b;
		return y < x ? b : a;
	}
}

static u64 ref_f32(unsigned int op, u64 a, u64 b)
{
	float x = bits_f32(a), y = bits_f32(b);

	switch (op) {
	case TH_NIC_ALU_SUM:
		return f32_bits(x + y);
	case TH_NIC_ALU_PROD:
		return f32_bits(x * y);
	case TH_NIC_ALU_MAX:
		if (isnan(x))
			return a;
		if (isnan(y))
			return b;
		return y > x ? b : a;
	default:
		if (isnan(x))
			return a;
		if (isnan(y))
			return b;
		return y < x ? b : a;
	}
}

static u64 ref_combine(unsigned int op, unsigned int dtype, u64 a, u64 b)
{
	if (dtype == TH_NIC_DT_FLOAT64)
		return ref_f64(op, a, b);
	if (dtype == TH_NIC_DT_FLOAT32)
		return ref_f32(op, a, b);
	return ref_int(op, dtype, a, b);
}

static void ref_reduce(unsigned int op, unsigned int dtype, void *dst,
		       void *const *src, unsigned int nsrc, bool accumulate,
		       u64 count)
{
	unsigned int size = ref_size(dtype);
	u64 i;

	for (i = 0; i < count; i++) {
		u64 v = accumulate ? ref_get(size, dst, i) :
				     ref_get(size, src[0], i);
		unsigned int k;

		for (k = accumulate ? 0 : 1; k < nsrc; k++)
			v = ref_combine(op, dtype, v, ref_get(size, src[k], i));
		ref_put(size, dst, i, v);
	}
}

/* xorshift64*: seeded, so a failure reproduces. */
static u64 rng_next(u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

/*
 * Random operands that reach the corners: integer extremes, and for floats
 * +-0, small integers (ties), subnormals, infinities and, where the op
 * keeps payloads defined (max, min), quiet and signalling NaNs.  Sums and
 * products get no NaN inputs: which of two NaNs an add returns depends on
 * the order the compiler put the operands in, which IEEE leaves open.
 */
static u64 rand_elem(u64 *s, unsigned int dtype, bool nans)
{
	unsigned int size = ref_size(dtype);
	u64 r = rng_next(s), m = rng_next(s);
	u64 sign = r >> 63;

	if (dtype == TH_NIC_DT_FLOAT64) {
		switch (r % 32) {
		case 0: case 1:
			return sign << 63;
		case 2:
			return sign << 63 | (m & ((1ULL << 52) - 1));
		case 3:
			return sign << 63 | 0x7ff0000000000000ULL;
		case 4:
			if (nans)
				return sign << 63 | 0x7ff8000000000000ULL |
				       (m & 0xffff);
			break;
		case 5:
			if (nans)
				return 0x7ff0000000000000ULL | 1 | (m & 0xff00);
			break;
		case 6: case 7: case 8: case 9:
			return f64_bits((double)(int)(m % 7) - 3);
		}
		/* normal, exponent within +-20 of 1: sums stay interesting */
		return sign << 63 | (u64)(1023 - 20 + m % 41) << 52 |
		       (rng_next(s) & ((1ULL << 52) - 1));
	}
	if (dtype == TH_NIC_DT_FLOAT32) {
		switch (r % 32) {
		case 0: case 1:
			return sign << 31;
		case 2:
			return sign << 31 | (m & 0x7fffff);
		case 3:
			return sign << 31 | 0x7f800000;
		case 4:
			if (nans)
				return sign << 31 | 0x7fc00000 | (m & 0xffff);
			break;
		case 5:
			if (nans)
				return 0x7f800000 | 1 | (m & 0xff00);
			break;
		case 6: case 7: case 8: case 9:
			return f32_bits((float)(int)(m % 7) - 3);
		}
		return sign << 31 | (u64)(127 - 10 + m % 21) << 23 |
		       (rng_next(s) & 0x7fffff);
	}
	switch (r % 16) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
		return ref_mask(size);			/* -1, UINTn_MAX */
	case 3:
		return 1ULL << (8 * size - 1);		/* INTn_MIN */
	case 4:
		return ref_mask(size) >> 1;		/* INTn_MAX */
	case 5:
		return m % 5;				/* small: ties */
	default:
		return m & ref_mask(size);
	}
}

static void fill_random(void *p, unsigned int dtype, u64 count, u64 seed,
			bool nans)
{
	unsigned int size = ref_size(dtype);
	u64 s = seed * 0x9e3779b97f4a7c15ULL + 1, i;

	for (i = 0; i < count; i++)
		ref_put(size, p, i, rand_elem(&s, dtype, nans));
}

/* Index of the first element whose bits differ, or -1. */
static long long first_diff(const void *a, const void *b, unsigned int size,
			    u64 count)
{
	u64 i;

	for (i = 0; i < count; i++)
		if (memcmp((const u8 *)a + i * size,
			   (const u8 *)b + i * size, size))
			return i;
	return -1;
}

/* Element counts: empty, tiny, below one chunk, several chunks, slices. */
static const u64 counts[] = { 0, 1, 7, 1000, 5000, 70001 };
#define MAX_COUNT	70001
#define GUARD		16	/* elements after dst that must stay intact */
#define GUARD_BYTE	0xa5

FIXTURE(alu_ref) {
	void *src[MAX_OPS];	/* operands given to the ALU */
	void *copy[MAX_OPS];	/* pristine copies, to check sources */
	void *dst;		/* the ALU's destination, plus a guard */
	void *want;		/* the reference's destination */
	void *alias;		/* a source that is also the destination */
};

FIXTURE_VARIANT(alu_ref) {
	unsigned int op;
	unsigned int dtype;
};

/* One row per valid (op, dtype): bitwise ops have no float rows. */
#define ALU_ROW(o, t)							\
	FIXTURE_VARIANT_ADD(alu_ref, o##_##t) {				\
		.op = TH_NIC_ALU_##o, .dtype = TH_NIC_DT_##t,		\
	}

ALU_ROW(SUM, INT8);
ALU_ROW(SUM, INT16);
ALU_ROW(SUM, INT32);
ALU_ROW(SUM, INT64);
ALU_ROW(SUM, UINT8);
ALU_ROW(SUM, UINT16);
ALU_ROW(SUM, UINT32);
ALU_ROW(SUM, UINT64);
ALU_ROW(SUM, FLOAT32);
ALU_ROW(SUM, FLOAT64);
ALU_ROW(PROD, INT8);
ALU_ROW(PROD, INT16);
ALU_ROW(PROD, INT32);
ALU_ROW(PROD, INT64);
ALU_ROW(PROD, UINT8);
ALU_ROW(PROD, UINT16);
ALU_ROW(PROD, UINT32);
ALU_ROW(PROD, UINT64);
ALU_ROW(PROD, FLOAT32);
ALU_ROW(PROD, FLOAT64);
ALU_ROW(MAX, INT8);
ALU_ROW(MAX, INT16);
ALU_ROW(MAX, INT32);
ALU_ROW(MAX, INT64);
ALU_ROW(MAX, UINT8);
ALU_ROW(MAX, UINT16);
ALU_ROW(MAX, UINT32);
ALU_ROW(MAX, UINT64);
ALU_ROW(MAX, FLOAT32);
ALU_ROW(MAX, FLOAT64);
ALU_ROW(MIN, INT8);
ALU_ROW(MIN, INT16);
ALU_ROW(MIN, INT32);
ALU_ROW(MIN, INT64);
ALU_ROW(MIN, UINT8);
ALU_ROW(MIN, UINT16);
ALU_ROW(MIN, UINT32);
ALU_ROW(MIN, UINT64);
ALU_ROW(MIN, FLOAT32);
ALU_ROW(MIN, FLOAT64);
ALU_ROW(BAND, INT8);
ALU_ROW(BAND, INT16);
ALU_ROW(BAND, INT32);
ALU_ROW(BAND, INT64);
ALU_ROW(BAND, UINT8);
ALU_ROW(BAND, UINT16);
ALU_ROW(BAND, UINT32);
ALU_ROW(BAND, UINT64);
ALU_ROW(BOR, INT8);
ALU_ROW(BOR, INT16);
ALU_ROW(BOR, INT32);
ALU_ROW(BOR, INT64);
ALU_ROW(BOR, UINT8);
ALU_ROW(BOR, UINT16);
ALU_ROW(BOR, UINT32);
ALU_ROW(BOR, UINT64);
ALU_ROW(BXOR, INT8);
ALU_ROW(BXOR, INT16);
ALU_ROW(BXOR, INT32);
ALU_ROW(BXOR, INT64);
ALU_ROW(BXOR, UINT8);
ALU_ROW(BXOR, UINT16);
ALU_ROW(BXOR, UINT32);
ALU_ROW(BXOR, UINT64);

FIXTURE_SETUP(alu_ref)
{
	size_t bytes = (size_t)MAX_COUNT * 8;
	unsigned int k;

	for (k = 0; k < MAX_OPS; k++) {
		self->src[k] = malloc(bytes);
		self->copy[k] = malloc(bytes);
		ASSERT_NE(NULL, self->src[k]);
		ASSERT_NE(NULL, self->copy[k]);
	}
	self->dst = malloc(bytes + GUARD * 8);
	self->want = malloc(bytes);
	self->alias = malloc(bytes);
	ASSERT_NE(NULL, self->dst);
	ASSERT_NE(NULL, self->want);
	ASSERT_NE(NULL, self->alias);
}

FIXTURE_TEARDOWN(alu_ref)
{
	unsigned int k;

	for (k = 0; k < MAX_OPS; k++) {
		free(self->src[k]);
		free(self->copy[k]);
	}
	free(self->dst);
	free(self->want);
	free(self->alias);
}

static bool alu_nans(unsigned int op)
{
	return op == TH_NIC_ALU_MAX || op == TH_NIC_ALU_MIN;
}

/*
 * Every operand count, with and without accumulate, at every count:
 * bit-identical to the reference, sources untouched, nothing written past
 * the last element.
 */
TEST_F(alu_ref, matches_reference)
{
	unsigned int op = variant->op, dt = variant->dtype;
	unsigned int size = ref_size(dt), ci, nsrc, k, acc;
	bool nans = alu_nans(op);
	u8 guard[GUARD * 8];

	memset(guard, GUARD_BYTE, sizeof(guard));
	for (ci = 0; ci < ARRAY_SIZE(counts); ci++) {
		u64 count = counts[ci];
		size_t bytes = count * size;

		for (k = 0; k < MAX_OPS; k++) {
			fill_random(self->src[k], dt, count,
				    op << 24 | dt << 16 | ci << 8 | k, nans);
			memcpy(self->copy[k], self->src[k], bytes);
		}
		for (acc = 0; acc < 2; acc++) {
			for (nsrc = 1; nsrc + acc <= MAX_OPS; nsrc++) {
				long long bad;

				/* slices are per call: two operand counts do */
				if (count > 5000 && nsrc != 1 &&
				    nsrc + acc != MAX_OPS)
					continue;

				fill_random(self->dst, dt, count,
					    0xd57 + ci * 16 + nsrc, nans);
				memcpy(self->want, self->dst, bytes);
				memset((u8 *)self->dst + bytes, GUARD_BYTE,
				       sizeof(guard));

				th_alu_reduce(op, dt, self->dst,
					      (const void *const *)self->src,
					      nsrc, acc, count);
				ref_reduce(op, dt, self->want, self->src, nsrc,
					   acc, count);

				bad = first_diff(self->dst, self->want, size,
						 count);
				ASSERT_EQ(-1, bad) TH_LOG(
					"%s %s nsrc %u acc %u count %llu: element %lld is 0x%llx, want 0x%llx",
					op_names[op], dt_names[dt], nsrc, acc,
					(unsigned long long)count, bad,
					(unsigned long long)ref_get(size, self->dst, bad),
					(unsigned long long)ref_get(size, self->want, bad));
				ASSERT_EQ(0, memcmp((u8 *)self->dst + bytes,
						    guard, sizeof(guard)))
					TH_LOG("%s %s nsrc %u acc %u count %llu: wrote past the end",
					       op_names[op], dt_names[dt], nsrc,
					       acc, (unsigned long long)count);
				for (k = 0; k < MAX_OPS; k++) {
					ASSERT_EQ(0, memcmp(self->src[k],
							    self->copy[k],
							    bytes))
						TH_LOG("%s %s nsrc %u acc %u: source %u modified",
						       op_names[op],
						       dt_names[dt], nsrc,
						       acc, k);
				}
			}
		}
	}
}

/*
 * dst == src[k], for every k, with the most operands allowed: the result
 * equals that of a separate destination holding the same initial value,
 * and that of the reference.
 */
TEST_F(alu_ref, dst_aliases_source)
{
	static const u64 alias_counts[] = { 7, 5000 };
	unsigned int op = variant->op, dt = variant->dtype;
	unsigned int size = ref_size(dt), ci, k, acc;
	bool nans = alu_nans(op);

	for (ci = 0; ci < ARRAY_SIZE(alias_counts); ci++) {
		u64 count = alias_counts[ci];
		size_t bytes = count * size;

		for (k = 0; k < MAX_OPS; k++)
			fill_random(self->src[k], dt, count,
				    0xa11a5 + (op << 24 | dt << 16 | k), nans);
		for (acc = 0; acc < 2; acc++) {
			unsigned int nsrc = MAX_OPS - acc;

			for (k = 0; k < nsrc; k++) {
				void *ops[MAX_OPS];
				long long bad;

				memcpy(ops, self->src, sizeof(ops));
				/* separate dst, same initial value as alias */
				memcpy(self->dst, self->src[k], bytes);
				memcpy(self->want, self->src[k], bytes);
				th_alu_reduce(op, dt, self->dst,
					      (const void *const *)ops, nsrc,
					      acc, count);
				ref_reduce(op, dt, self->want, ops, nsrc, acc,
					   count);

				memcpy(self->alias, self->src[k], bytes);
				ops[k] = self->alias;
				th_alu_reduce(op, dt, self->alias,
					      (const void *const *)ops, nsrc,
					      acc, count);

				bad = first_diff(self->alias, self->dst, size,
						 count);
				ASSERT_EQ(-1, bad) TH_LOG(
					"%s %s nsrc %u acc %u count %llu dst == src[%u]: element %lld is 0x%llx, separate dst gives 0x%llx",
					op_names[op], dt_names[dt], nsrc, acc,
					(unsigned long long)count, k, bad,
					(unsigned long long)ref_get(size, self->alias, bad),
					(unsigned long long)ref_get(size, self->dst, bad));
				bad = first_diff(self->alias, self->want, size,
						 count);
				ASSERT_EQ(-1, bad) TH_LOG(
					"%s %s nsrc %u acc %u count %llu dst == src[%u]: element %lld is 0x%llx, want 0x%llx",
					op_names[op], dt_names[dt], nsrc, acc,
					(unsigned long long)count, k, bad,
					(unsigned long long)ref_get(size, self->alias, bad),
					(unsigned long long)ref_get(size, self->want, bad));
			}
		}
	}
}

/*
 * Edge values, one row each.  Operands are raw bits (truncated to the
 * element size); with accumulate, in[0] is the destination's initial
 * value.  ANY_NAN: IEEE fixes only that the result is a NaN (all ones is
 * a NaN in both float formats, and never an exact result below).
 */
#define ANY_NAN		(~0ULL)

struct alu_edge {
	const char *what;
	unsigned int op;
	unsigned int dtype;
	bool accumulate;
	unsigned int nops;	/* operands in in[], destination included */
	u64 in[MAX_OPS];
	u64 out;
};

#define S(x)		((u64)(s64)(x))
#define F64(x)		f64_bits(x)
#define F32(x)		f32_bits(x)
#define SUM		TH_NIC_ALU_SUM
#define PROD		TH_NIC_ALU_PROD
#define MAX		TH_NIC_ALU_MAX
#define MIN		TH_NIC_ALU_MIN
#define BAND		TH_NIC_ALU_BAND
#define BOR		TH_NIC_ALU_BOR
#define BXOR		TH_NIC_ALU_BXOR
#define I8		TH_NIC_DT_INT8
#define I16		TH_NIC_DT_INT16
#define I32		TH_NIC_DT_INT32
#define I64		TH_NIC_DT_INT64
#define U8		TH_NIC_DT_UINT8
#define U16		TH_NIC_DT_UINT16
#define U32		TH_NIC_DT_UINT32
#define U64		TH_NIC_DT_UINT64
#define FL32		TH_NIC_DT_FLOAT32
#define FL64		TH_NIC_DT_FLOAT64

/* quiet NaNs with distinct payloads, a signalling one, the smallest denormals */
#define QNAN64_1	0x7ff8000000000001ULL
#define QNAN64_2	0x7ff8000000000002ULL
#define QNAN64_NEG	0xfff8000000000003ULL
#define SNAN64		0x7ff0000000000004ULL
#define QNAN32_1	0x7fc00001ULL
#define QNAN32_2	0x7fc00002ULL
#define SNAN32		0x7f800004ULL
#define DEN64(n)	((u64)(n))
#define DEN32(n)	((u64)(n))
#define NEG64		0x8000000000000000ULL
#define NEG32		0x80000000ULL

TEST(edge_values)
{
	const double inf = __builtin_inf();
	const struct alu_edge rows[] = {
		/* integers wrap, two's complement */
		{ "int32 INT_MAX + 1 wraps to INT_MIN", SUM, I32, false, 2,
		  { S(INT32_MAX), S(1) }, S(INT32_MIN) },
		{ "int32 INT_MIN + -1 wraps to INT_MAX", SUM, I32, false, 2,
		  { S(INT32_MIN), S(-1) }, S(INT32_MAX) },
		{ "int8 127 + 1 wraps to -128", SUM, I8, false, 2,
		  { S(127), S(1) }, S(-128) },
		{ "uint8 255 + 1 wraps to 0", SUM, U8, false, 2,
		  { 255, 1 }, 0 },
		{ "int64 INT64_MAX + 1 wraps to INT64_MIN", SUM, I64, false, 2,
		  { S(INT64_MAX), S(1) }, S(INT64_MIN) },
		{ "uint64 max + max + 2 wraps to 0", SUM, U64, false, 3,
		  { ~0ULL, ~0ULL, 2 }, 0 },
		{ "int8 -128 * -1 wraps to -128", PROD, I8, false, 2,
		  { S(-128), S(-1) }, S(-128) },
		{ "uint8 16 * 16 wraps to 0", PROD, U8, false, 2,
		  { 16, 16 }, 0 },
		{ "int16 -32768 * -1 wraps to -32768", PROD, I16, false, 2,
		  { S(-32768), S(-1) }, S(-32768) },
		{ "int16 255 * 255 = 65025 wraps to -511", PROD, I16, false, 2,
		  { S(255), S(255) }, S(-511) },
		{ "uint16 65535 * 65535 = 1 (overflows int)", PROD, U16, false,
		  2, { 65535, 65535 }, 1 },
		{ "uint16 300 * 300 * 3 = 7856 mod 2^16", PROD, U16, false, 3,
		  { 300, 300, 3 }, 7856 },
		{ "uint32 0xffffffff^2 wraps to 1", PROD, U32, false, 2,
		  { 0xffffffff, 0xffffffff }, 1 },
		{ "int32 INT_MIN * -1 wraps to INT_MIN", PROD, I32, false, 2,
		  { S(INT32_MIN), S(-1) }, S(INT32_MIN) },
		{ "int64 INT64_MIN * -1 wraps to INT64_MIN", PROD, I64, false,
		  2, { S(INT64_MIN), S(-1) }, S(INT64_MIN) },
		{ "uint64 2^32 * 2^32 wraps to 0", PROD, U64, false, 2,
		  { 1ULL << 32, 1ULL << 32 }, 0 },
		{ "int64 product of 7 operands of -1 = -1", PROD, I64, false, 7,
		  { S(-1), S(-1), S(-1), S(-1), S(-1), S(-1), S(-1) }, S(-1) },
		/* max and min compare with the sign of the type */
		{ "int8 max(-1, 1) = 1", MAX, I8, false, 2,
		  { S(-1), S(1) }, S(1) },
		{ "uint8 max(0xff, 1) = 0xff", MAX, U8, false, 2,
		  { 0xff, 1 }, 0xff },
		{ "int16 min(5, -32768, 7) = -32768", MIN, I16, false, 3,
		  { S(5), S(-32768), S(7) }, S(-32768) },
		{ "uint16 min(0x8000, 3) = 3", MIN, U16, false, 2,
		  { 0x8000, 3 }, 3 },
		{ "int32 max of 7 negatives = -1", MAX, I32, false, 7,
		  { S(-5), S(-3), S(-9), S(-1), S(-7), S(-2), S(-8) }, S(-1) },
		{ "uint32 min(0x80000000, 5) = 5", MIN, U32, false, 2,
		  { 0x80000000, 5 }, 5 },
		{ "int64 min(INT64_MAX, INT64_MIN) = INT64_MIN", MIN, I64,
		  false, 2, { S(INT64_MAX), S(INT64_MIN) }, S(INT64_MIN) },
		{ "uint64 max(1, 2^63) = 2^63", MAX, U64, false, 2,
		  { 1, 1ULL << 63 }, 1ULL << 63 },
		{ "int64 max(INT64_MIN, -1) = -1", MAX, I64, false, 2,
		  { S(INT64_MIN), S(-1) }, S(-1) },
		/* bitwise */
		{ "int8 0xf0 & 0x3c = 0x30", BAND, I8, false, 2,
		  { 0xf0, 0x3c }, 0x30 },
		{ "uint16 0x0f00 | 0x00f0 | 0x000f = 0x0fff", BOR, U16, false,
		  3, { 0x0f00, 0x00f0, 0x000f }, 0x0fff },
		{ "int64 xor of 1, 2, 4 ... 64 = 127", BXOR, I64, false, 7,
		  { 1, 2, 4, 8, 16, 32, 64 }, 127 },
		{ "uint32 x ^ x = 0", BXOR, U32, false, 2,
		  { 0xdeadbeef, 0xdeadbeef }, 0 },
		{ "uint8 accumulate: dst 0xff ^ 0x0f = 0xf0", BXOR, U8, true, 2,
		  { 0xff, 0x0f }, 0xf0 },
		{ "uint64 and of all ones and a pattern", BAND, U64, false, 2,
		  { ~0ULL, 0x8000000000000001ULL }, 0x8000000000000001ULL },
		/* one operand, and accumulate */
		{ "int32 sum of one operand copies it", SUM, I32, false, 1,
		  { S(-42) }, S(-42) },
		{ "int32 accumulate: dst 5 + 7 = 12", SUM, I32, true, 2,
		  { S(5), S(7) }, S(12) },
		{ "uint16 accumulate over 6 sources", SUM, U16, true, 7,
		  { 1, 2, 3, 4, 5, 6, 7 }, 28 },
		/* float max / min: the first NaN met wins, payload intact */
		{ "f64 max: leading NaN is kept", MAX, FL64, false, 2,
		  { QNAN64_1, F64(1.0) }, QNAN64_1 },
		{ "f64 max: first of two NaNs wins", MAX, FL64, false, 3,
		  { F64(1.0), QNAN64_1, QNAN64_2 }, QNAN64_1 },
		{ "f64 max: NaN after larger values wins", MAX, FL64, false, 4,
		  { F64(5.0), F64(7.0), QNAN64_2, F64(9.0) }, QNAN64_2 },
		{ "f64 max: negative NaN is kept", MAX, FL64, false, 2,
		  { F64(-inf), QNAN64_NEG }, QNAN64_NEG },
		{ "f64 max: signalling NaN kept bit for bit", MAX, FL64, false,
		  3, { F64(0.0), SNAN64, QNAN64_1 }, SNAN64 },
		{ "f64 min: leading NaN is kept", MIN, FL64, false, 2,
		  { QNAN64_2, F64(-inf) }, QNAN64_2 },
		{ "f64 min: NaN in the middle wins", MIN, FL64, false, 3,
		  { F64(1.0), QNAN64_1, F64(-inf) }, QNAN64_1 },
		{ "f64 max accumulate: NaN dst is kept", MAX, FL64, true, 2,
		  { QNAN64_1, F64(inf) }, QNAN64_1 },
		{ "f32 max: first of two NaNs wins", MAX, FL32, false, 3,
		  { F32(2.0f), QNAN32_2, QNAN32_1 }, QNAN32_2 },
		{ "f32 min: leading NaN is kept", MIN, FL32, false, 2,
		  { QNAN32_1, F32(-1.0f) }, QNAN32_1 },
		{ "f32 min: signalling NaN kept bit for bit", MIN, FL32, false,
		  2, { F32(1.0f), SNAN32 }, SNAN32 },
		/* signed zeros: the earlier one is kept */
		{ "f64 max(-0, +0) = -0", MAX, FL64, false, 2,
		  { NEG64, 0 }, NEG64 },
		{ "f64 max(+0, -0) = +0", MAX, FL64, false, 2,
		  { 0, NEG64 }, 0 },
		{ "f64 min(-0, +0) = -0", MIN, FL64, false, 2,
		  { NEG64, 0 }, NEG64 },
		{ "f64 min(+0, -0) = +0", MIN, FL64, false, 2,
		  { 0, NEG64 }, 0 },
		{ "f64 max(-0, +0, -0) = -0", MAX, FL64, false, 3,
		  { NEG64, 0, NEG64 }, NEG64 },
		{ "f32 max(-0, +0) = -0", MAX, FL32, false, 2,
		  { NEG32, 0 }, NEG32 },
		{ "f32 min(+0, -0) = +0", MIN, FL32, false, 2,
		  { 0, NEG32 }, 0 },
		{ "f64 -0 + -0 = -0", SUM, FL64, false, 2,
		  { NEG64, NEG64 }, NEG64 },
		{ "f64 -0 + +0 = +0", SUM, FL64, false, 2,
		  { NEG64, 0 }, 0 },
		{ "f64 +0 + -0 = +0", SUM, FL64, false, 2,
		  { 0, NEG64 }, 0 },
		{ "f64 accumulate: dst -0 + -0 = -0", SUM, FL64, true, 2,
		  { NEG64, NEG64 }, NEG64 },
		{ "f32 -0 + -0 = -0", SUM, FL32, false, 2,
		  { NEG32, NEG32 }, NEG32 },
		{ "f32 -0 + +0 = +0", SUM, FL32, false, 2,
		  { NEG32, 0 }, 0 },
		{ "f64 -0 * +1 = -0", PROD, FL64, false, 2,
		  { NEG64, F64(1.0) }, NEG64 },
		/* infinities */
		{ "f64 inf + -inf is NaN", SUM, FL64, false, 2,
		  { F64(inf), F64(-inf) }, ANY_NAN },
		{ "f32 -inf + inf is NaN", SUM, FL32, false, 2,
		  { F32(-inf), F32(inf) }, ANY_NAN },
		{ "f64 inf * 0 is NaN", PROD, FL64, false, 2,
		  { F64(inf), 0 }, ANY_NAN },
		{ "f64 inf + 1e308 = inf", SUM, FL64, false, 2,
		  { F64(inf), F64(1e308) }, F64(inf) },
		{ "f64 1e308 + 1e308 overflows to inf", SUM, FL64, false, 2,
		  { F64(1e308), F64(1e308) }, F64(inf) },
		{ "f64 max(1, inf, 3) = inf", MAX, FL64, false, 3,
		  { F64(1.0), F64(inf), F64(3.0) }, F64(inf) },
		{ "f64 max(-inf, -1e308) = -1e308", MAX, FL64, false, 2,
		  { F64(-inf), F64(-1e308) }, F64(-1e308) },
		{ "f32 min(3, -inf, 1) = -inf", MIN, FL32, false, 3,
		  { F32(3.0f), F32(-inf), F32(1.0f) }, F32(-inf) },
		{ "f64 NaN + 1 keeps the payload", SUM, FL64, false, 2,
		  { QNAN64_1, F64(1.0) }, QNAN64_1 },
		{ "f64 1 * NaN keeps the payload", PROD, FL64, false, 2,
		  { F64(1.0), QNAN64_2 }, QNAN64_2 },
		/* subnormals are neither flushed nor treated as zero */
		{ "f64 denorm_min + denorm_min = 2 denorm_min", SUM, FL64,
		  false, 2, { DEN64(1), DEN64(1) }, DEN64(2) },
		{ "f64 3 denorm_min * 0.5 rounds to even, 2 denorm_min", PROD,
		  FL64, false, 2, { DEN64(3), F64(0.5) }, DEN64(2) },
		{ "f64 max(+0, denorm_min) = denorm_min", MAX, FL64, false, 2,
		  { 0, DEN64(1) }, DEN64(1) },
		{ "f64 min(-0, -denorm_min) = -denorm_min", MIN, FL64, false,
		  2, { NEG64, NEG64 | DEN64(1) }, NEG64 | DEN64(1) },
		{ "f32 denorm_min + denorm_min = 2 denorm_min", SUM, FL32,
		  false, 2, { DEN32(1), DEN32(1) }, DEN32(2) },
		{ "f32 largest denormal + denorm_min = FLT_MIN", SUM, FL32,
		  false, 2, { DEN32(0x7fffff), DEN32(1) }, 0x00800000 },
		{ "f32 FLT_MIN * 0.5 is a denormal", PROD, FL32, false, 2,
		  { 0x00800000, F32(0.5f) }, DEN32(0x400000) },
		/* strictly left to right */
		{ "f64 1e16 + -1e16 + 1 = 1 (right to left: 0)", SUM, FL64,
		  false, 3, { F64(1e16), F64(-1e16), F64(1.0) }, F64(1.0) },
		{ "f64 1 + 1e16 + -1e16 = 0 (right to left: 1)", SUM, FL64,
		  false, 3, { F64(1.0), F64(1e16), F64(-1e16) }, F64(0.0) },
		{ "f64 accumulate: dst 1 + 1e16 + -1e16 = 0", SUM, FL64, true,
		  3, { F64(1.0), F64(1e16), F64(-1e16) }, F64(0.0) },
		{ "f32 1e8 + -1e8 + 1 = 1 (right to left: 0)", SUM, FL32,
		  false, 3, { F32(1e8f), F32(-1e8f), F32(1.0f) }, F32(1.0f) },
		{ "f32 1 + 1e8 + -1e8 = 0 (right to left: 1)", SUM, FL32,
		  false, 3, { F32(1.0f), F32(1e8f), F32(-1e8f) }, F32(0.0f) },
		{ "f64 1e200 * 1e200 * 1e-200 = inf (right to left: 1e200)",
		  PROD, FL64, false, 3, { F64(1e200), F64(1e200),
		  F64(1e-200) }, F64(inf) },
	};
	/* more than a chunk of every type, so vector loop and tail both run */
	const u64 count = 4099;
	unsigned int r;

	for (r = 0; r < ARRAY_SIZE(rows); r++) {
		const struct alu_edge *e = &rows[r];
		unsigned int size = ref_size(e->dtype), k;
		unsigned int nsrc = e->nops - e->accumulate;
		void *buf[MAX_OPS + 1] = { NULL };
		const void *src[MAX_OPS];
		u64 i;

		ASSERT_TRUE(th_alu_op_valid(e->op, e->dtype))
			TH_LOG("row '%s' is not a valid combination", e->what);
		for (k = 0; k < e->nops; k++) {
			buf[k] = malloc(count * size);
			ASSERT_NE(NULL, buf[k]);
			for (i = 0; i < count; i++)
				ref_put(size, buf[k], i, e->in[k]);
		}
		if (e->accumulate) {
			for (k = 0; k < nsrc; k++)
				src[k] = buf[k + 1];
			buf[MAX_OPS] = buf[0];	/* dst: the first operand */
		} else {
			for (k = 0; k < nsrc; k++)
				src[k] = buf[k];
			buf[MAX_OPS] = malloc(count * size);
			ASSERT_NE(NULL, buf[MAX_OPS]);
		}
		th_alu_reduce(e->op, e->dtype, buf[MAX_OPS], src, nsrc,
			      e->accumulate, count);

		for (i = 0; i < count; i++) {
			u64 got = ref_get(size, buf[MAX_OPS], i);
			bool nan = size == 8 ? isnan(bits_f64(got)) :
					       isnan(bits_f32(got));

			if (e->out == ANY_NAN) {
				ASSERT_TRUE(nan) TH_LOG(
					"%s: element %llu is 0x%llx, want a NaN",
					e->what, (unsigned long long)i,
					(unsigned long long)got);
			} else {
				ASSERT_EQ(e->out & ref_mask(size), got)
					TH_LOG("%s: element %llu is 0x%llx, want 0x%llx",
					       e->what, (unsigned long long)i,
					       (unsigned long long)got,
					       (unsigned long long)(e->out & ref_mask(size)));
			}
		}
		for (k = 0; k < e->nops; k++)
			free(buf[k]);
		if (!e->accumulate)
			free(buf[MAX_OPS]);
	}
}

/* th_alu_op_valid(), one row per case worth naming. */
TEST(op_valid)
{
	static const struct {
		unsigned int op, dtype;
		bool valid;
	} rows[] = {
		{ TH_NIC_ALU_SUM, TH_NIC_DT_INT8, true },
		{ TH_NIC_ALU_SUM, TH_NIC_DT_FLOAT64, true },
		{ TH_NIC_ALU_PROD, TH_NIC_DT_FLOAT32, true },
		{ TH_NIC_ALU_MAX, TH_NIC_DT_FLOAT64, true },
		{ TH_NIC_ALU_MIN, TH_NIC_DT_UINT64, true },
		{ TH_NIC_ALU_BAND, TH_NIC_DT_UINT8, true },
		{ TH_NIC_ALU_BOR, TH_NIC_DT_INT64, true },
		{ TH_NIC_ALU_BXOR, TH_NIC_DT_INT32, true },
		{ TH_NIC_ALU_BAND, TH_NIC_DT_FLOAT32, false },
		{ TH_NIC_ALU_BAND, TH_NIC_DT_FLOAT64, false },
		{ TH_NIC_ALU_BOR, TH_NIC_DT_FLOAT32, false },
		{ TH_NIC_ALU_BOR, TH_NIC_DT_FLOAT64, false },
		{ TH_NIC_ALU_BXOR, TH_NIC_DT_FLOAT32, false },
		{ TH_NIC_ALU_BXOR, TH_NIC_DT_FLOAT64, false },
		{ TH_NIC_ALU_OP_MAX, TH_NIC_DT_INT32, false },
		{ 255, TH_NIC_DT_INT32, false },
		{ ~0u, TH_NIC_DT_INT32, false },
		{ TH_NIC_ALU_SUM, TH_NIC_DT_MAX, false },
		{ TH_NIC_ALU_SUM, 255, false },
		{ TH_NIC_ALU_SUM, ~0u, false },
		{ TH_NIC_ALU_OP_MAX, TH_NIC_DT_MAX, false },
	};
	unsigned int r, op, dt, nvalid = 0;

	/* braces: EXPECT_*() ... TH_LOG() is two statements */
	for (r = 0; r < ARRAY_SIZE(rows); r++) {
		EXPECT_EQ(rows[r].valid,
			  th_alu_op_valid(rows[r].op, rows[r].dtype))
			TH_LOG("op %u dtype %u: want %s", rows[r].op,
			       rows[r].dtype, rows[r].valid ? "valid" : "refused");
	}

	/* the whole grid, and a margin past it */
	for (op = 0; op < TH_NIC_ALU_OP_MAX + 3; op++) {
		for (dt = 0; dt < TH_NIC_DT_MAX + 3; dt++) {
			bool bitwise = op >= TH_NIC_ALU_BAND;
			bool fl = dt == TH_NIC_DT_FLOAT32 ||
				  dt == TH_NIC_DT_FLOAT64;
			bool want = op < TH_NIC_ALU_OP_MAX &&
				    dt < TH_NIC_DT_MAX && !(bitwise && fl);

			EXPECT_EQ(want, th_alu_op_valid(op, dt))
				TH_LOG("op %u dtype %u", op, dt);
			nvalid += th_alu_op_valid(op, dt);
		}
	}
	/* as many as the alu_ref rows above */
	EXPECT_EQ(4U * 10 + 3 * 8, nvalid);
}

TEST(dtype_size)
{
	static const struct {
		unsigned int dtype, size;
		bool is_float;
	} rows[] = {
		{ TH_NIC_DT_INT8, 1, false },
		{ TH_NIC_DT_INT16, 2, false },
		{ TH_NIC_DT_INT32, 4, false },
		{ TH_NIC_DT_INT64, 8, false },
		{ TH_NIC_DT_UINT8, 1, false },
		{ TH_NIC_DT_UINT16, 2, false },
		{ TH_NIC_DT_UINT32, 4, false },
		{ TH_NIC_DT_UINT64, 8, false },
		{ TH_NIC_DT_FLOAT32, 4, true },
		{ TH_NIC_DT_FLOAT64, 8, true },
		{ TH_NIC_DT_MAX, 0, false },
		{ 255, 0, false },
		{ ~0u, 0, false },
	};
	unsigned int r;

	for (r = 0; r < ARRAY_SIZE(rows); r++) {
		EXPECT_EQ(rows[r].size, th_alu_dtype_size(rows[r].dtype))
			TH_LOG("dtype %u", rows[r].dtype);
		EXPECT_EQ(rows[r].is_float,
			  th_alu_dtype_is_float(rows[r].dtype))
			TH_LOG("dtype %u", rows[r].dtype);
	}
}

TEST_HARNESS_MAIN
