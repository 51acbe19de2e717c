/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * th_test.h - helpers shared by the host tests: a small in-process fabric,
 * its control calls in one-line form (each builds the ABI struct and goes
 * through the engine's command layer, as the providers do), posting
 * descriptors through the real SQ ring and doorbell, and reaping CQ
 * entries.
 */
#ifndef TH_TEST_H
#define TH_TEST_H

#include "inproc.h"
#include "th_desc.h"

#define TH_T_BUF	4096

/* ABI default limits with a few nodes: tests override what they probe. */
struct th_eng_limits th_t_limits(u32 nodes);

/* A vport in the fabric's default domain (@d NULL) or in @d; NULL + *err. */
struct th_ipf_vport *th_t_vport(struct th_ipf *f, u32 node, u32 sq_entries,
				u32 cq_entries, int *err);
struct th_ipf_vport *th_t_vport_in(struct th_ipf *f, u32 node,
				   struct th_ipf_domain *d, int *err);
/* MR_REG: the local key, and the remote key if @rkey is not NULL. */
int th_t_mr_reg(struct th_ipf_vport *vp, void *addr, u64 len, u32 access,
		u32 *lkey, u64 *rkey);
int th_t_mr_dereg(struct th_ipf_vport *vp, u32 lkey);
/* CT_SET (TH_ENG_CT_SET), CT_INC (TH_ENG_CT_INC) or its failure form. */
int th_t_ct_update(struct th_ipf_vport *vp, u32 idx, enum th_eng_ct_op op,
		   u64 value, u64 failure);
int th_t_ct_wait(struct th_ipf_vport *vp, u32 idx, u64 threshold,
		 u64 timeout_ns, u64 *success, u64 *failure);
/*
 * The statistics of @vp once @chains chains are done, or as they are after
 * @ms milliseconds: a counter moves before the chain that moved it closes
 * its books, so a waiter on the counter may see them a moment early.
 */
void th_t_stats_when_done(struct th_ipf_vport *vp, u64 chains, unsigned int ms,
			  struct th_eng_stats *st);
int th_t_cancel(struct th_ipf_vport *vp, bool by_cookie, u64 cookie,
		u32 *cancelled);
/* The doorbell alone, on whatever the SQ holds. */
int th_t_doorbell(struct th_ipf_vport *vp, struct th_nic_doorbell *db);

/* Copy @n descriptors into the SQ at its tail, publish, ring the doorbell. */
int th_t_post(struct th_ipf_vport *vp, const struct th_nic_desc *d, u32 n,
	      struct th_nic_doorbell *db);
/* Take up to @max CQ entries, advancing the CQ head. */
u32 th_t_cq_drain(struct th_ipf_vport *vp, struct th_nic_cqe *out, u32 max);
u32 th_t_sq_head(struct th_ipf_vport *vp);
u64 th_t_ct(struct th_ipf_vport *vp, u32 idx);
u64 th_t_ct_fail(struct th_ipf_vport *vp, u32 idx);

/* Descriptor constructors (thn_put() ...): selftests/common/th_desc.h */

#endif /* TH_TEST_H */
