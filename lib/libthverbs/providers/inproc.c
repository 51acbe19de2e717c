// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * inproc.c - the in-process provider: a fabric of TH_INPROC_NODES nodes
 * (default 16) inside this process, running the same trigger engine as
 * th_nic.ko over process memory, with the module's default limits.  A
 * chain runs in the thread that fires it, as in the kernel.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "thverbs_priv.h"
#include "th_ipf.h"

static struct th_ipf *th_inproc_fabric;
static int th_inproc_err;
static pthread_once_t th_inproc_once = PTHREAD_ONCE_INIT;

static void th_inproc_init(void)
{
	struct th_eng_limits lim = {
		.nodes		= TH_ENG_DEF_NODES,
		.max_vports	= TH_ENG_DEF_VPORTS,
		.max_counters	= TH_ENG_DEF_COUNTERS,
		.max_sq_entries	= TH_ENG_DEF_SQ,
		.max_cq_entries	= TH_ENG_DEF_CQ,
		.max_chain	= TH_ENG_DEF_CHAIN,
		.max_mrs	= TH_ENG_DEF_MRS,
		.max_mr_size	= TH_ENG_DEF_MR_SIZE,
	};
	const char *env = getenv("TH_INPROC_NODES");

	if (env && *env) {
		char *end;
		unsigned long n = strtoul(env, &end, 10);

		if (*end || !n || n > TH_ENG_MAX_NODES) {
			th_inproc_err = -EINVAL;
			return;
		}
		lim.nodes = n;
	}
	th_inproc_fabric = th_ipf_create(&lim, &th_inproc_err);
}

static struct th_ipf *th_inproc_get(int *err)
{
	pthread_once(&th_inproc_once, th_inproc_init);
	*err = th_inproc_err;
	return th_inproc_fabric;
}

static int th_ip_count_nodes(void)
{
	int err;
	struct th_ipf *f = th_inproc_get(&err);

	return f ? (int)th_ipf_limits(f)->nodes : err;
}

static int th_ip_open(struct th_context *ctx)
{
	int err;
	struct th_ipf *f = th_inproc_get(&err);

	if (!f)
		return err;
	if (ctx->dev.node >= th_ipf_limits(f)->nodes)
		return -ENODEV;
	ctx->priv = f;
	return 0;
}

static void th_ip_close(struct th_context *ctx)
{
	ctx->priv = NULL;
}

static int th_ip_query(struct th_context *ctx, struct th_nic_query *q)
{
	const struct th_eng_limits *lim = th_ipf_limits(ctx->priv);

	*q = (struct th_nic_query){
		.size		= sizeof(*q),
		.abi_version	= TH_NIC_ABI_VERSION,
		.node_id	= ctx->dev.node,
		.node_count	= lim->nodes,
		.max_vports	= lim->max_vports,
		.max_counters	= lim->max_counters,
		.max_sq_entries	= lim->max_sq_entries,
		.max_cq_entries	= lim->max_cq_entries,
		.max_chain	= lim->max_chain,
		.max_mrs	= lim->max_mrs,
		.max_operands	= TH_NIC_MAX_OPERANDS,
		.max_inline	= TH_NIC_INLINE_MAX,
		.desc_size	= TH_NIC_DESC_SIZE,
		.cqe_size	= TH_NIC_CQE_SIZE,
		.max_mr_size	= lim->max_mr_size,
		.features	= TH_NIC_FEAT_REDUCE_STRIDED |
				  TH_NIC_FEAT_FLOAT_ALU | TH_NIC_FEAT_INPROC,
	};
	return 0;
}

static int th_ip_vport_create(struct th_vport *vp, struct th_nic_vport_create *req)
{
	struct th_ipf_vport *iv;
	int err = 0;

	iv = th_ipf_vport_create(vp->ctx->priv, vp->ctx->dev.node,
				 req->sq_entries, req->cq_entries, &err);
	if (!iv)
		return err;
	vp->priv = iv;
	vp->sq = iv->sq_mem;
	vp->cq = iv->cq_mem;
	vp->cts = iv->cts;
	req->vport = iv->ev.index;
	req->sq_entries = iv->sq_entries;
	req->cq_entries = iv->cq_entries;
	req->ct_count = th_ipf_limits(vp->ctx->priv)->max_counters;
	req->sq_off = iv->sq_off;
	req->cq_off = iv->cq_off;
	return 0;
}

static int th_ip_vport_destroy(struct th_vport *vp)
{
	th_ipf_vport_destroy(vp->priv);
	return 0;
}

static int th_ip_mr_reg(struct th_vport *vp, void *addr, size_t len,
			unsigned int access, uint32_t *key)
{
	return th_ipf_mr_reg(vp->priv, addr, len, access, key);
}

static int th_ip_mr_dereg(struct th_vport *vp, uint32_t key)
{
	return th_ipf_mr_dereg(vp->priv, key);
}

static int th_ip_doorbell(struct th_vport *vp, struct th_nic_doorbell *db)
{
	struct th_eng_db_result res;
	int ret = th_ipf_doorbell(vp->priv, &res);

	db->chains = res.chains;
	db->descs = res.descs;
	db->bad_index = res.bad_index;
	db->bad_desc = res.bad_desc;
	return ret;
}

/* The same checks as the module's CT_SET and CT_INC ioctls. */
static int th_ip_ct_update(struct th_vport *vp, bool set,
			   struct th_nic_ct_update *u)
{
	if (set)
		return u->flags ? -EINVAL :
		       th_ipf_ct_update(vp->priv, u->ct, TH_ENG_CT_SET,
					u->value, u->failure);
	if (u->flags & ~TH_NIC_CT_F_FAILURE || u->failure)
		return -EINVAL;
	return th_ipf_ct_update(vp->priv, u->ct,
				u->flags ? TH_ENG_CT_FAIL : TH_ENG_CT_INC,
				u->value, 0);
}

static int th_ip_ct_wait(struct th_vport *vp, struct th_nic_ct_wait *w)
{
	return th_ipf_ct_wait(vp->priv, w->ct, w->threshold, w->timeout_ns,
			      (u64 *)&w->success, (u64 *)&w->failure);
}

static int th_ip_cancel(struct th_vport *vp, struct th_nic_cancel *c)
{
	if (c->flags & ~TH_NIC_CANCEL_F_COOKIE)
		return -EINVAL;
	return th_ipf_cancel(vp->priv, c->flags & TH_NIC_CANCEL_F_COOKIE,
			     c->cookie, &c->cancelled);
}

static int th_ip_vport_fd(const struct th_vport *vp)
{
	(void)vp;
	return -EOPNOTSUPP;	/* wait with th_ct_wait() or poll the CQ */
}

const struct th_provider_ops th_inproc_provider = {
	.name		= "inproc",
	.count_nodes	= th_ip_count_nodes,
	.open		= th_ip_open,
	.close		= th_ip_close,
	.query		= th_ip_query,
	.vport_create	= th_ip_vport_create,
	.vport_destroy	= th_ip_vport_destroy,
	.mr_reg		= th_ip_mr_reg,
	.mr_dereg	= th_ip_mr_dereg,
	.doorbell	= th_ip_doorbell,
	.ct_update	= th_ip_ct_update,
	.ct_wait	= th_ip_ct_wait,
	.cancel		= th_ip_cancel,
	.vport_fd	= th_ip_vport_fd,
};
