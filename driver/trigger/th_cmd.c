// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * th_cmd.c - the control calls of the ABI, once for both providers: QUERY,
 * VPORT_CREATE and VPORT_DESTROY, MR_REG and MR_DEREG, DOORBELL, CT_SET,
 * CT_INC, CT_WAIT, CANCEL and DOMAIN_CREATE.  Each takes the struct its
 * host copied in (the kernel from the ioctl, the in-process provider from
 * the library), checks flags and reserved fields, acts on the engine and
 * fills the (out) fields.  The hosts add only what is theirs: memory,
 * mappings, waiting, and the identity of users and domains.
 */
#include "th_engine_int.h"

void th_eng_cmd_query(struct th_eng *eng, u32 node, u64 features,
		      struct th_nic_query *q)
{
	const struct th_eng_limits *lim = &eng->lim;

	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	q->abi_version = TH_NIC_ABI_VERSION;
	q->node_id = node;
	q->node_count = lim->nodes;
	q->max_vports = lim->max_vports;
	q->max_counters = lim->max_counters;
	q->max_sq_entries = lim->max_sq_entries;
	q->max_cq_entries = lim->max_cq_entries;
	q->max_chain = lim->max_chain;
	q->max_mrs = lim->max_mrs;
	q->max_operands = TH_NIC_MAX_OPERANDS;
	q->max_inline = TH_NIC_INLINE_MAX;
	q->desc_size = TH_NIC_DESC_SIZE;
	q->cqe_size = TH_NIC_CQE_SIZE;
	q->max_mr_size = lim->max_mr_size;
	q->features = TH_NIC_FEAT_REDUCE_STRIDED | TH_NIC_FEAT_FLOAT_ALU |
		      TH_NIC_FEAT_REARM | features;
	q->max_user_vports = lim->max_user_vports;
	q->max_user_chains = lim->max_user_chains;
}

/*
 * Check a VPORT_CREATE request and lay out what the host must allocate:
 * ring sizes (0 picks the maximum), ring layouts, counter bytes.  The
 * domain (TH_NIC_VPORT_F_DOMAIN and domain_fd) is the host's to resolve.
 */
int th_eng_cmd_vport_config(struct th_eng *eng,
			    const struct th_nic_vport_create *req,
			    struct th_eng_vport_config *cfg)
{
	const struct th_eng_limits *lim = &eng->lim;

	if (req->flags & ~(u32)TH_NIC_VPORT_F_DOMAIN || req->rsvd0 ||
	    req->rsvd[0])
		return -EINVAL;
	if (!(req->flags & TH_NIC_VPORT_F_DOMAIN) && req->domain_fd)
		return -EINVAL;
	memset(cfg, 0, sizeof(*cfg));
	cfg->sq_entries = req->sq_entries ? req->sq_entries : lim->max_sq_entries;
	cfg->cq_entries = req->cq_entries ? req->cq_entries : lim->max_cq_entries;
	if (!th_eng_ring_size_valid(cfg->sq_entries, lim->max_sq_entries) ||
	    !th_eng_ring_size_valid(cfg->cq_entries, lim->max_cq_entries) ||
	    cfg->sq_entries < lim->max_chain)
		return -EINVAL;
	cfg->sq_bytes = th_eng_ring_layout(cfg->sq_entries,
					   sizeof(struct th_nic_desc),
					   &cfg->sq_off);
	cfg->cq_bytes = th_eng_ring_layout(cfg->cq_entries,
					   sizeof(struct th_nic_cqe),
					   &cfg->cq_off);
	cfg->ct_bytes = (u64)lim->max_counters * sizeof(struct th_nic_ct);
	return 0;
}

/* The (out) fields of VPORT_CREATE but the mmap offsets and sizes. */
void th_eng_cmd_vport_describe(struct th_eng_vport *vp,
			       const struct th_eng_vport_config *cfg,
			       struct th_nic_vport_create *req)
{
	req->vport = vp->index;
	req->sq_entries = cfg->sq_entries;
	req->cq_entries = cfg->cq_entries;
	req->ct_count = vp->eng->lim.max_counters;
	req->sq_off = cfg->sq_off;
	req->cq_off = cfg->cq_off;
}

int th_eng_cmd_vport_destroy(const struct th_nic_vport_destroy *req)
{
	return req->flags || req->rsvd ? -EINVAL : 0;
}

/* Checks on a registration request that need no vport and no memory. */
int th_eng_cmd_mr_check(struct th_eng *eng, const struct th_nic_mr_reg *req)
{
	u64 end;

	if (req->flags || req->rsvd0 || req->rsvd[0])
		return -EINVAL;
	if (req->access & ~(u32)TH_NIC_ACCESS_ALL)
		return -EINVAL;
	if (!req->length || req->length > eng->lim.max_mr_size)
		return -EINVAL;
	if (check_add_overflow(req->addr, req->length, &end))
		return -EINVAL;
	return 0;
}

int th_eng_cmd_mr_dereg(struct th_eng_vport *vp,
			const struct th_nic_mr_dereg *req)
{
	if (req->flags)
		return -EINVAL;
	return th_eng_mr_dereg(vp, req->lkey);
}

/*
 * Accept what the SQ holds, then run what fired, up to the budget, once
 * the SQ is released: a cascade may reach other vports' locks, never this
 * vport's SQ lock.  Chains accepted before a refused one still run.
 */
int th_eng_cmd_doorbell(struct th_eng_vport *vp, struct th_nic_doorbell *req)
{
	struct th_eng_ctx ctx;
	int ret;

	if (req->flags)
		return -EINVAL;
	th_eng_ctx_init(&ctx, vp->eng);
	th_eng_host_touch(vp, &ctx);
	ret = th_eng_doorbell(vp, &ctx, req);
	th_eng_ctx_run(&ctx);
	return ret;
}

/*
 * CT_SET sets both values; CT_INC adds a signed delta to the success
 * value, or with TH_NIC_CT_F_FAILURE to the failure value.  Chains the new
 * value releases fire before the call returns (up to the budget).
 */
int th_eng_cmd_ct_update(struct th_eng_vport *vp, bool set,
			 const struct th_nic_ct_update *req)
{
	enum th_eng_ct_op op;
	struct th_eng_ctx ctx;
	int ret;

	if (set) {
		if (req->flags)
			return -EINVAL;
		op = TH_ENG_CT_SET;
	} else {
		if (req->flags & ~(u32)TH_NIC_CT_F_FAILURE || req->failure)
			return -EINVAL;
		op = req->flags ? TH_ENG_CT_FAIL : TH_ENG_CT_INC;
	}
	if (req->ct >= vp->eng->lim.max_counters)
		return -EINVAL;
	th_eng_ctx_init(&ctx, vp->eng);
	th_eng_host_touch(vp, &ctx);
	ret = th_eng_ct_update(vp, req->ct, op, req->value, req->failure, &ctx);
	th_eng_ctx_run(&ctx);
	return ret;
}

/*
 * CT_WAIT: the request, before the host sleeps.  A host action: the
 * rounds its vport had parked run now, in the caller's thread.
 */
int th_eng_cmd_ct_wait_check(struct th_eng_vport *vp,
			     const struct th_nic_ct_wait *req)
{
	struct th_eng_ctx ctx;

	if (req->flags || req->ct >= vp->eng->lim.max_counters)
		return -EINVAL;
	th_eng_ctx_init(&ctx, vp->eng);
	th_eng_host_touch(vp, &ctx);
	th_eng_ctx_run(&ctx);
	return 0;
}

/* CT_WAIT: what the host sleeps on (the vport going away ends it too). */
bool th_eng_cmd_ct_reached(struct th_eng_vport *vp,
			   const struct th_nic_ct_wait *req)
{
	u64 success, failure;

	if (th_eng_ct_read(vp, req->ct, &success, &failure))
		return true;
	return failure || success >= req->threshold;
}

/*
 * CT_WAIT: the answer once the host stopped sleeping (reached, timed out,
 * or @interrupted by a signal): the values seen last, and 0, -EIO,
 * -ECONNREFUSED, -EINTR or -ETIMEDOUT.
 */
int th_eng_cmd_ct_wait_result(struct th_eng_vport *vp,
			      struct th_nic_ct_wait *req, bool interrupted)
{
	/* a counter index past the limit reads nothing: answer zeros */
	u64 success = 0, failure = 0;
	int ret;

	ret = th_eng_ct_read(vp, req->ct, &success, &failure);
	req->success = success;
	req->failure = failure;
	if (ret)
		return -ECONNREFUSED;
	if (failure)
		return -EIO;
	if (success >= req->threshold)
		return 0;
	return interrupted ? -EINTR : -ETIMEDOUT;
}

int th_eng_cmd_cancel(struct th_eng_vport *vp, struct th_nic_cancel *req)
{
	struct th_eng_ctx ctx;
	int ret;

	if (req->flags & ~(u32)TH_NIC_CANCEL_F_COOKIE)
		return -EINVAL;
	th_eng_ctx_init(&ctx, vp->eng);
	ret = th_eng_cancel(vp, req->flags & TH_NIC_CANCEL_F_COOKIE,
			    req->cookie, &req->cancelled, &ctx);
	/* after the cancel: a parked round it stopped ends without running */
	th_eng_host_touch(vp, &ctx);
	th_eng_ctx_run(&ctx);
	return ret;
}

int th_eng_cmd_domain_create(const struct th_nic_domain_create *req)
{
	return req->flags || req->rsvd ? -EINVAL : 0;
}
