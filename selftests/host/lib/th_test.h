/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * th_test.h - helpers shared by the host tests: a small in-process fabric,
 * posting descriptors through the real SQ ring and doorbell, reaping CQ
 * entries, and descriptor constructors.
 */
#ifndef TH_TEST_H
#define TH_TEST_H

#include "th_ipf.h"

#define TH_T_BUF	4096

/* ABI default limits with a few nodes: tests override what they probe. */
struct th_eng_limits th_t_limits(u32 nodes);

/* Copy @n descriptors into the SQ at its tail, publish, ring the doorbell. */
int th_t_post(struct th_ipf_vport *vp, const struct th_nic_desc *d, u32 n,
	      struct th_eng_db_result *res);
/* Take up to @max CQ entries, advancing the CQ head. */
u32 th_t_cq_drain(struct th_ipf_vport *vp, struct th_nic_cqe *out, u32 max);
u32 th_t_sq_head(struct th_ipf_vport *vp);
u64 th_t_ct(struct th_ipf_vport *vp, u32 idx);
u64 th_t_ct_fail(struct th_ipf_vport *vp, u32 idx);

/* Descriptor constructors: a valid, unlinked, untriggered descriptor. */
struct th_nic_desc th_t_put(u32 lkey, u64 loff, u32 node, u32 vport, u32 rkey,
			    u64 roff, u64 len);
struct th_nic_desc th_t_get(u32 lkey, u64 loff, u32 node, u32 vport, u32 rkey,
			    u64 roff, u64 len);
struct th_nic_desc th_t_copy(u32 skey, u64 soff, u32 dkey, u64 doff, u64 len);
struct th_nic_desc th_t_inline(u32 key, u64 off, const void *data, u8 len);
struct th_nic_desc th_t_reduce(u8 op, u8 dtype, u32 count, u32 dkey, u64 doff,
			       u8 nsrc, const u32 *skeys, const u64 *soffs);
struct th_nic_desc th_t_ct_op(u8 opcode, u16 ct, s64 value);
struct th_nic_desc th_t_notify(u64 imm);
/* Make @d the head of a chain triggered by @ct reaching @threshold. */
void th_t_trigger(struct th_nic_desc *d, u16 ct, u64 threshold, u64 cookie);
/* Set LINK on every descriptor of @d[0 .. n-1] but the last. */
void th_t_link(struct th_nic_desc *d, u32 n);

#endif /* TH_TEST_H */
