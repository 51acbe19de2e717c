// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * th_alu.c - the NIC's reduction unit: element-wise sum, prod, max, min,
 * band, bor and bxor over 1 ... 7 operands, for th_nic.ko and libthverbs.
 *
 * Work proceeds in chunks: an accumulator on the stack is loaded from the
 * first operand, combined with each further operand in turn and stored to
 * the destination.  Each source is read once and the destination written
 * once, which keeps "dst == src[k]" safe and the order of evaluation left to
 * right for every element.
 *
 * The per-chunk loops take restrict pointers (the accumulator is private;
 * two sources may be the same memory, which restrict allows as neither is
 * written) and, for full chunks, a constant trip count: with no alias
 * check and no scalar epilogue to pay for, gcc's -O2 ("very cheap") cost
 * model vectorises them.  The short last chunk stays scalar.
 */
#include "th_alu.h"

/* The accumulator lives on the stack: kernel stacks are small. */
#ifdef __KERNEL__
#define TH_ALU_CHUNK	512
#else
#define TH_ALU_CHUNK	4096
#endif

/*
 * Bytes of destination produced between th_fpu_begin() and th_fpu_end().
 * In the kernel that window runs with preemption off; with 7 operands it
 * reads under half a MiB, tens of microseconds even from DRAM.
 */
#define TH_ALU_SLICE	(64 * 1024)

typedef void (*th_alu_chunk_fn)(void *restrict acc, const void *restrict src);
typedef void (*th_alu_chunk2_fn)(void *restrict acc, const void *restrict s1,
				 const void *restrict s2);
typedef void (*th_alu_tail_fn)(void *restrict acc, const void *restrict src,
			       unsigned int n);

/*
 * dst = first op src[k] op ... one chunk at a time, where first is dst
 * itself (accumulate) or src[0].  Full chunks take two sources per pass
 * (@chunk2), which halves the loads and stores of the accumulator, and
 * the odd one out alone (@chunk); the short last chunk goes to @tail.
 * Forced inline into each (op, dtype) entry point: the three are then
 * known, and inlined in turn instead of called indirectly (retpolines).
 */
static __always_inline void th_alu_run(void *acc, unsigned int esize,
				       th_alu_chunk_fn chunk,
				       th_alu_chunk2_fn chunk2,
				       th_alu_tail_fn tail, void *dst,
				       const void *const *src,
				       unsigned int nsrc, bool accumulate,
				       u64 count)
{
	const unsigned int chunk_elems = TH_ALU_CHUNK / esize;
	const unsigned int slice_elems = TH_ALU_SLICE / esize;
	const u8 *first = accumulate ? dst : src[0];
	unsigned int k0 = accumulate ? 0 : 1;
	th_fpu_state_t fpu;
	u64 done = 0;

	while (done < count) {
		u64 slice_end = count - done > slice_elems ?
				done + slice_elems : count;

		th_fpu_begin(&fpu);
		while (done < slice_end) {
			unsigned int n = slice_end - done > chunk_elems ?
					 chunk_elems : slice_end - done;
			size_t off = done * esize;
			unsigned int k;

			memcpy(acc, first + off, (size_t)n * esize);
			k = k0;
			if (n == chunk_elems) {
				for (; k + 1 < nsrc; k += 2)
					chunk2(acc, (const u8 *)src[k] + off,
					       (const u8 *)src[k + 1] + off);
				if (k < nsrc)
					chunk(acc, (const u8 *)src[k] + off);
			} else {
				for (; k < nsrc; k++)
					tail(acc, (const u8 *)src[k] + off, n);
			}
			memcpy((u8 *)dst + off, acc, (size_t)n * esize);
			done += n;
		}
		th_fpu_end(&fpu);
		if (done < count)
			th_cond_resched();
	}
}

/*
 * TH_ALU_DEFINE(name, type, combine) defines name(), the entry point for
 * one (op, dtype).  @combine is an expression for "a op b", where a is the
 * accumulator and b the next operand, both of @type.
 */
#define TH_ALU_DEFINE(name, type, combine)				\
static inline type name##_op(type a, type b)				\
{									\
	return combine;							\
}									\
									\
static void name##_chunk(void *restrict accv, const void *restrict srcv)	\
{									\
	type *acc = accv;						\
	const type *src = srcv;						\
	unsigned int i;							\
									\
	for (i = 0; i < TH_ALU_CHUNK / sizeof(type); i++)		\
		acc[i] = name##_op(acc[i], src[i]);			\
}									\
									\
static void name##_chunk2(void *restrict accv, const void *restrict s1v,	\
			  const void *restrict s2v)			\
{									\
	type *acc = accv;						\
	const type *s1 = s1v, *s2 = s2v;				\
	unsigned int i;							\
									\
	for (i = 0; i < TH_ALU_CHUNK / sizeof(type); i++)		\
		acc[i] = name##_op(name##_op(acc[i], s1[i]), s2[i]);	\
}									\
									\
static void name##_tail(void *restrict accv, const void *restrict srcv,	\
			unsigned int n)					\
{									\
	type *acc = accv;						\
	const type *src = srcv;						\
	unsigned int i;							\
									\
	for (i = 0; i < n; i++)						\
		acc[i] = name##_op(acc[i], src[i]);			\
}									\
									\
static void name(void *dst, const void *const *src, unsigned int nsrc,	\
		 bool accumulate, u64 count)				\
{									\
	type acc[TH_ALU_CHUNK / sizeof(type)];				\
									\
	th_alu_run(acc, sizeof(type), name##_chunk, name##_chunk2,	\
		   name##_tail, dst, src, nsrc, accumulate, count);	\
}

/*
 * Sums, products and bitwise ops give the same bits for signed and
 * unsigned operands of one width, so they run on unsigned types only,
 * whose overflow is defined.  Products are taken in at least 32 bits:
 * u8 and u16 operands would otherwise be promoted to int, and
 * 65535 * 65535 overflows int (undefined behaviour).
 */
#define TH_ALU_ADD	(a + b)
#define TH_ALU_MUL	(a * b)
#define TH_ALU_MUL32	((u32)a * (u32)b)
#define TH_ALU_AND	(a & b)
#define TH_ALU_OR	(a | b)
#define TH_ALU_XOR	(a ^ b)

/* Integers: equal values are identical, so ties need no rule. */
#define TH_ALU_IMAX	(b > a ? b : a)
#define TH_ALU_IMIN	(b < a ? b : a)

/*
 * Floats: keep the accumulator if it is a NaN or the operand is not
 * strictly greater (less); else take the operand, which is then greater
 * (less) or a NaN, as "b <= a" is false for a NaN b.  So the first NaN met
 * wins and, as -0.0 == +0.0, the earlier zero is kept.  NaNs are found
 * with "a != a": no libm in the kernel.  This form becomes four vector
 * compares and logic ops plus a select, chained or not; spelling out the
 * three cases as nested ?: makes chained pairs several times slower.
 */
#define TH_ALU_FMAX	(a != a || b <= a ? a : b)
#define TH_ALU_FMIN	(a != a || b >= a ? a : b)

TH_ALU_DEFINE(th_alu_sum_u8, u8, TH_ALU_ADD)
TH_ALU_DEFINE(th_alu_sum_u16, u16, TH_ALU_ADD)
TH_ALU_DEFINE(th_alu_sum_u32, u32, TH_ALU_ADD)
TH_ALU_DEFINE(th_alu_sum_u64, u64, TH_ALU_ADD)
TH_ALU_DEFINE(th_alu_sum_f32, float, TH_ALU_ADD)
TH_ALU_DEFINE(th_alu_sum_f64, double, TH_ALU_ADD)

TH_ALU_DEFINE(th_alu_prod_u8, u8, TH_ALU_MUL32)
TH_ALU_DEFINE(th_alu_prod_u16, u16, TH_ALU_MUL32)
TH_ALU_DEFINE(th_alu_prod_u32, u32, TH_ALU_MUL32)
TH_ALU_DEFINE(th_alu_prod_u64, u64, TH_ALU_MUL)
TH_ALU_DEFINE(th_alu_prod_f32, float, TH_ALU_MUL)
TH_ALU_DEFINE(th_alu_prod_f64, double, TH_ALU_MUL)

TH_ALU_DEFINE(th_alu_max_s8, s8, TH_ALU_IMAX)
TH_ALU_DEFINE(th_alu_max_s16, s16, TH_ALU_IMAX)
TH_ALU_DEFINE(th_alu_max_s32, s32, TH_ALU_IMAX)
TH_ALU_DEFINE(th_alu_max_s64, s64, TH_ALU_IMAX)
TH_ALU_DEFINE(th_alu_max_u8, u8, TH_ALU_IMAX)
TH_ALU_DEFINE(th_alu_max_u16, u16, TH_ALU_IMAX)
TH_ALU_DEFINE(th_alu_max_u32, u32, TH_ALU_IMAX)
TH_ALU_DEFINE(th_alu_max_u64, u64, TH_ALU_IMAX)
TH_ALU_DEFINE(th_alu_max_f32, float, TH_ALU_FMAX)
TH_ALU_DEFINE(th_alu_max_f64, double, TH_ALU_FMAX)

TH_ALU_DEFINE(th_alu_min_s8, s8, TH_ALU_IMIN)
TH_ALU_DEFINE(th_alu_min_s16, s16, TH_ALU_IMIN)
TH_ALU_DEFINE(th_alu_min_s32, s32, TH_ALU_IMIN)
TH_ALU_DEFINE(th_alu_min_s64, s64, TH_ALU_IMIN)
TH_ALU_DEFINE(th_alu_min_u8, u8, TH_ALU_IMIN)
TH_ALU_DEFINE(th_alu_min_u16, u16, TH_ALU_IMIN)
TH_ALU_DEFINE(th_alu_min_u32, u32, TH_ALU_IMIN)
TH_ALU_DEFINE(th_alu_min_u64, u64, TH_ALU_IMIN)
TH_ALU_DEFINE(th_alu_min_f32, float, TH_ALU_FMIN)
TH_ALU_DEFINE(th_alu_min_f64, double, TH_ALU_FMIN)

TH_ALU_DEFINE(th_alu_band_u8, u8, TH_ALU_AND)
TH_ALU_DEFINE(th_alu_band_u16, u16, TH_ALU_AND)
TH_ALU_DEFINE(th_alu_band_u32, u32, TH_ALU_AND)
TH_ALU_DEFINE(th_alu_band_u64, u64, TH_ALU_AND)

TH_ALU_DEFINE(th_alu_bor_u8, u8, TH_ALU_OR)
TH_ALU_DEFINE(th_alu_bor_u16, u16, TH_ALU_OR)
TH_ALU_DEFINE(th_alu_bor_u32, u32, TH_ALU_OR)
TH_ALU_DEFINE(th_alu_bor_u64, u64, TH_ALU_OR)

TH_ALU_DEFINE(th_alu_bxor_u8, u8, TH_ALU_XOR)
TH_ALU_DEFINE(th_alu_bxor_u16, u16, TH_ALU_XOR)
TH_ALU_DEFINE(th_alu_bxor_u32, u32, TH_ALU_XOR)
TH_ALU_DEFINE(th_alu_bxor_u64, u64, TH_ALU_XOR)

typedef void (*th_alu_fn)(void *dst, const void *const *src,
			  unsigned int nsrc, bool accumulate, u64 count);

/* The same kernel for both signednesses of one width. */
#define TH_ALU_ANY_SIGN(op)						\
	[TH_NIC_DT_INT8] = th_alu_##op##_u8,				\
	[TH_NIC_DT_UINT8] = th_alu_##op##_u8,				\
	[TH_NIC_DT_INT16] = th_alu_##op##_u16,				\
	[TH_NIC_DT_UINT16] = th_alu_##op##_u16,				\
	[TH_NIC_DT_INT32] = th_alu_##op##_u32,				\
	[TH_NIC_DT_UINT32] = th_alu_##op##_u32,				\
	[TH_NIC_DT_INT64] = th_alu_##op##_u64,				\
	[TH_NIC_DT_UINT64] = th_alu_##op##_u64

#define TH_ALU_BY_SIGN(op)						\
	[TH_NIC_DT_INT8] = th_alu_##op##_s8,				\
	[TH_NIC_DT_UINT8] = th_alu_##op##_u8,				\
	[TH_NIC_DT_INT16] = th_alu_##op##_s16,				\
	[TH_NIC_DT_UINT16] = th_alu_##op##_u16,				\
	[TH_NIC_DT_INT32] = th_alu_##op##_s32,				\
	[TH_NIC_DT_UINT32] = th_alu_##op##_u32,				\
	[TH_NIC_DT_INT64] = th_alu_##op##_s64,				\
	[TH_NIC_DT_UINT64] = th_alu_##op##_u64

#define TH_ALU_FLOAT(op)						\
	[TH_NIC_DT_FLOAT32] = th_alu_##op##_f32,			\
	[TH_NIC_DT_FLOAT64] = th_alu_##op##_f64

/* A hole in this table is a combination the ABI refuses. */
static const th_alu_fn th_alu_fns[TH_NIC_ALU_OP_MAX][TH_NIC_DT_MAX] = {
	[TH_NIC_ALU_SUM] = { TH_ALU_ANY_SIGN(sum), TH_ALU_FLOAT(sum) },
	[TH_NIC_ALU_PROD] = { TH_ALU_ANY_SIGN(prod), TH_ALU_FLOAT(prod) },
	[TH_NIC_ALU_MAX] = { TH_ALU_BY_SIGN(max), TH_ALU_FLOAT(max) },
	[TH_NIC_ALU_MIN] = { TH_ALU_BY_SIGN(min), TH_ALU_FLOAT(min) },
	[TH_NIC_ALU_BAND] = { TH_ALU_ANY_SIGN(band) },
	[TH_NIC_ALU_BOR] = { TH_ALU_ANY_SIGN(bor) },
	[TH_NIC_ALU_BXOR] = { TH_ALU_ANY_SIGN(bxor) },
};

static const u8 th_alu_dtype_sizes[TH_NIC_DT_MAX] = {
	[TH_NIC_DT_INT8] = 1,
	[TH_NIC_DT_INT16] = 2,
	[TH_NIC_DT_INT32] = 4,
	[TH_NIC_DT_INT64] = 8,
	[TH_NIC_DT_UINT8] = 1,
	[TH_NIC_DT_UINT16] = 2,
	[TH_NIC_DT_UINT32] = 4,
	[TH_NIC_DT_UINT64] = 8,
	[TH_NIC_DT_FLOAT32] = 4,
	[TH_NIC_DT_FLOAT64] = 8,
};

unsigned int th_alu_dtype_size(unsigned int dtype)
{
	return dtype < TH_NIC_DT_MAX ? th_alu_dtype_sizes[dtype] : 0;
}

bool th_alu_dtype_is_float(unsigned int dtype)
{
	return dtype == TH_NIC_DT_FLOAT32 || dtype == TH_NIC_DT_FLOAT64;
}

bool th_alu_op_valid(unsigned int op, unsigned int dtype)
{
	return op < TH_NIC_ALU_OP_MAX && dtype < TH_NIC_DT_MAX &&
	       th_alu_fns[op][dtype];
}

void th_alu_reduce(unsigned int op, unsigned int dtype, void *dst,
		   const void *const *src, unsigned int nsrc, bool accumulate,
		   u64 count)
{
	th_alu_fns[op][dtype](dst, src, nsrc, accumulate, count);
}
