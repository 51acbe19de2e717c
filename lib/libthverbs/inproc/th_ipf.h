/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * th_ipf.h - the in-process fabric: N emulated NIC nodes inside one
 * process, running the trigger engine over process memory.  The in-process
 * provider of libthverbs sits on it; the host tests drive it directly.
 */
#ifndef TH_IPF_H
#define TH_IPF_H

#include <pthread.h>

#include "th_engine.h"

struct th_ipf;

/**
 * struct th_ipf_vport - one vport of the in-process fabric
 * @ev: the engine's state
 * @fabric: owner
 * @sq_mem: SQ ring memory (th_eng_ring_layout() format)
 * @cq_mem: CQ ring memory
 * @cts: counters
 * @sq_off: SQ layout
 * @cq_off: CQ layout
 * @sq_entries: SQ slots
 * @cq_entries: CQ entries
 * @refs: references from the fabric table and from running operations
 * @sq_lock: serialises doorbells (the engine's rule)
 */
struct th_ipf_vport {
	struct th_eng_vport ev;
	struct th_ipf *fabric;
	void *sq_mem;
	void *cq_mem;
	struct th_nic_ct *cts;
	struct th_nic_ring_offsets sq_off;
	struct th_nic_ring_offsets cq_off;
	u32 sq_entries;
	u32 cq_entries;
	u32 refs;
	pthread_mutex_t sq_lock;
};

struct th_ipf *th_ipf_create(const struct th_eng_limits *lim, int *err);
void th_ipf_destroy(struct th_ipf *f);
const struct th_eng_limits *th_ipf_limits(struct th_ipf *f);
struct th_ipf_vport *th_ipf_vport_create(struct th_ipf *f, u32 node,
					 u32 sq_entries, u32 cq_entries,
					 int *err);
void th_ipf_vport_destroy(struct th_ipf_vport *vp);
int th_ipf_mr_reg(struct th_ipf_vport *vp, void *addr, u64 len, u32 access,
		  u32 *key);
int th_ipf_mr_dereg(struct th_ipf_vport *vp, u32 key);
int th_ipf_doorbell(struct th_ipf_vport *vp, struct th_eng_db_result *res);
int th_ipf_ct_update(struct th_ipf_vport *vp, u32 idx, enum th_eng_ct_op op,
		     u64 value, u64 failure);
int th_ipf_ct_wait(struct th_ipf_vport *vp, u32 idx, u64 threshold,
		   u64 timeout_ns, u64 *success, u64 *failure);
int th_ipf_cancel(struct th_ipf_vport *vp, bool by_cookie, u64 cookie,
		  u32 *cancelled);

#endif /* TH_IPF_H */
