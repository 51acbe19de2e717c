/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * th_alu.h - the NIC's reduction unit: element-wise op over 1 ... 7 operands
 * of one dtype, evaluated strictly left to right.
 */
#ifndef TH_ALU_H
#define TH_ALU_H

#include "th_compat.h"
#include <linux/th_nic.h>

/* Size in bytes of one element of @dtype, or 0 if @dtype is not valid. */
unsigned int th_alu_dtype_size(unsigned int dtype);

/* True if @dtype is float32 or float64. */
bool th_alu_dtype_is_float(unsigned int dtype);

/* True if @op and @dtype are both valid and may be combined. */
bool th_alu_op_valid(unsigned int op, unsigned int dtype);

/**
 * th_alu_reduce() - dst[i] = src[0][i] op src[1][i] op ... op src[n-1][i]
 * @op: enum th_nic_alu_op, valid for @dtype (th_alu_op_valid())
 * @dtype: enum th_nic_dtype
 * @dst: destination, aligned to the element size
 * @src: @nsrc source pointers, each aligned to the element size
 * @nsrc: number of sources; 1 ... 7, or 1 ... 6 with @accumulate
 * @accumulate: dst is the first operand: dst[i] = dst[i] op src[0][i] ...
 * @count: number of elements
 *
 * Evaluation is left to right for every element, so float results are
 * reproducible bit for bit.  @dst may be identical to any source; it must
 * not partially overlap one (the validator refuses that).  Integer
 * arithmetic wraps (two's complement).  Floats: max and min propagate the
 * first NaN met; between -0.0 and +0.0 the earlier operand is kept.
 * The caller has validated every argument; this function cannot fail.
 *
 * In the kernel it uses the FPU (kernel_fpu_begin() per slice of at most
 * 64 KiB of @dst) and calls cond_resched() between slices: call it from
 * process context, without spinlocks held.
 */
void th_alu_reduce(unsigned int op, unsigned int dtype, void *dst,
		   const void *const *src, unsigned int nsrc, bool accumulate,
		   u64 count);

#endif /* TH_ALU_H */
