/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * th_test.h - helpers shared by the host tests: a small in-process fabric,
 * posting descriptors through the real SQ ring and doorbell, reaping CQ
 * entries, and descriptor constructors.
 */
#ifndef TH_TEST_H
#define TH_TEST_H

#include "th_ipf.h"
#include "th_desc.h"

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

/* Descriptor constructors (thn_put() ...): selftests/common/th_desc.h */

#endif /* TH_TEST_H */
