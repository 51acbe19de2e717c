/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * th_engine_int.h - the engine's private structs and the prototypes its
 * files share, grouped by the file that defines them.
 */
#ifndef TH_ENGINE_INT_H
#define TH_ENGINE_INT_H

#include "th_engine.h"

/**
 * struct th_eng_chain - an accepted chain
 * @node: link in a pending list, a context's ready list, or a provider's
 *	deferral queue; exactly one at a time
 * @vp: the vport it was posted on
 * @seq: posting order, breaks threshold ties
 * @threshold: fires when the trigger counter's success value reaches it
 * @cookie: the chain's cookie (first descriptor's)
 * @trig_ct: the trigger counter
 * @status: set when it leaves the pending list: 0 to run, or the error it
 *	completes with without running
 * @credits: CQ entries still reserved for it
 * @last_signal: index of the last descriptor that writes a CQ entry on
 *	success, or @ndesc if none does
 * @ndesc: descriptors
 * @descs: the kernel's copy of the descriptors
 */
struct th_eng_chain {
	struct th_list node;
	struct th_eng_vport *vp;
	u64 seq;
	u64 threshold;
	u64 cookie;
	u32 trig_ct;
	int status;
	u32 credits;
	u32 last_signal;
	u32 ndesc;
	struct th_nic_desc descs[];
};

/* A reference on one MR range, held while an operation touches it. */
struct th_mr_ref {
	struct th_eng_mr *mr;
	u8 *ptr;
};

/* th_engine.c */
void th_ctx_fire_locked(struct th_eng_ctx *ctx, struct th_eng_chain *chain,
			int status);
void th_cq_write_locked(struct th_eng_vport *vp, const struct th_nic_cqe *cqe);
u32 th_cq_used_locked(struct th_eng_vport *vp);

/* th_counter.c */
void th_ct_fire_locked(struct th_eng_vport *vp, u32 idx,
		       struct th_eng_ctx *ctx);

/* th_chain.c */
bool th_desc_writes_cqe(const struct th_nic_desc *d);
void th_chain_complete(struct th_eng_ctx *ctx, struct th_eng_chain *chain,
		       int status, u32 at);

/* th_exec.c */
void th_exec_chain(struct th_eng_ctx *ctx, struct th_eng_chain *chain);

/* th_mr.c */
struct th_eng_mr *th_mr_lookup_locked(struct th_eng_vport *vp, u32 key);
int th_mr_get(struct th_eng_vport *vp, u32 key, u32 access, u64 off, u64 len,
	      struct th_mr_ref *ref);
void th_mr_put(struct th_eng_vport *vp, struct th_mr_ref *ref);

#endif /* TH_ENGINE_INT_H */
