/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * badinput_rings.h - VPORT_CREATE's ring sizes at their edges: RING(name,
 * sq_entries, cq_entries, expected result).  A size is a power of two no
 * larger than the limit (1024 by default), the SQ at least max_chain (16)
 * slots, 0 the default.  The largest and smallest accepted, the next power
 * of two past each, one entry off the largest, and values at the top of
 * the 32-bit range are refused.  Run on the host by test_boundary.c and
 * against th_nic.ko by badinput_test.c.  No include guard: the includer
 * defines RING, then includes this once.
 */
RING(default_sizes, 0, 0, 0);
RING(sq_largest, 1024, 16, 0);
RING(sq_next_power_past_largest, 2048, 16, -EINVAL);
RING(sq_one_past_largest, 1025, 16, -EINVAL);
RING(sq_one_below_largest, 1023, 16, -EINVAL);
RING(sq_smallest_holds_a_max_chain, 16, 16, 0);
RING(sq_power_below_max_chain, 8, 16, -EINVAL);
RING(sq_top_bit, 0x80000000U, 16, -EINVAL);
RING(sq_all_ones, 0xffffffffU, 16, -EINVAL);
RING(cq_largest, 16, 1024, 0);
RING(cq_next_power_past_largest, 16, 2048, -EINVAL);
RING(cq_one_past_largest, 16, 1025, -EINVAL);
RING(cq_smallest, 16, 1, 0);
RING(cq_top_bit, 16, 0x80000000U, -EINVAL);
RING(cq_all_ones, 16, 0xffffffffU, -EINVAL);
