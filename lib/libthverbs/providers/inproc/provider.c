// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * provider.c - the in-process provider: a fabric of TH_INPROC_NODES nodes
 * (default 16) inside this process, running the same trigger engine as
 * th_nic.ko over process memory, with the module's default limits.  A
 * chain runs in the thread that fires it, as in the kernel; what a
 * context hands over past its budget runs on the fabric's progress
 * thread.  Every control call goes through the engine's command layer.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "thverbs_priv.h"
#include "inproc.h"

static struct th_ipf *th_inproc_fabric;
static int th_inproc_err;
static pthread_once_t th_inproc_once = PTHREAD_ONCE_INIT;

/*
 * The module's defaults, except that the fabric's one user (this process)
 * may hold every vport and fill every CQ: the per-user limits protect
 * users from each other, and an in-process fabric has no other user.
 */
static void th_inproc_init(void)
{
	struct th_eng_limits lim;
	const char *env = getenv("TH_INPROC_NODES");
	u64 all;

	th_eng_limits_default(&lim);
	if (env && *env) {
		char *end;
		unsigned long n = strtoul(env, &end, 10);

		if (*end || !n || n > TH_ENG_MAX_NODES || *env == '-') {
			/* runs once per process (pthread_once): one complaint */
			static bool said;
			char accepted[64];

			snprintf(accepted, sizeof(accepted),
				 "a number of nodes from 1 to %d (default 16)",
				 TH_ENG_MAX_NODES);
			th_env_complain(&said, "TH_INPROC_NODES", env, accepted);
			th_inproc_err = -EINVAL;
			return;
		}
		lim.nodes = n;
	}
	all = (u64)lim.nodes * lim.max_vports;
	lim.max_user_vports = all > TH_ENG_MAX_USER ? TH_ENG_MAX_USER : all;
	all *= lim.max_cq_entries;
	lim.max_user_chains = all > TH_ENG_MAX_USER ? TH_ENG_MAX_USER : all;
	th_inproc_fabric = th_ipf_create(&lim, NULL, &th_inproc_err);
}

struct th_ipf *th_inproc_get(int *err)
{
	pthread_once(&th_inproc_once, th_inproc_init);
	*err = th_inproc_err;
	return th_inproc_fabric;
}

static struct th_ipf_vport *th_ip_vport(const struct th_vport *vp)
{
	return vp->priv;
}

static int th_ip_count_nodes(void)
{
	int err;
	struct th_ipf *f = th_inproc_get(&err);

	return f ? (int)th_ipf_engine(f)->lim.nodes : err;
}

static int th_ip_open(struct th_context *ctx)
{
	int err;
	struct th_ipf *f = th_inproc_get(&err);

	if (!f)
		return err;
	if (ctx->dev.node >= th_ipf_engine(f)->lim.nodes)
		return -ENODEV;
	ctx->priv = f;
	return 0;
}

void th_ip_close(struct th_context *ctx)
{
	ctx->priv = NULL;
}

int th_ip_query(struct th_context *ctx, struct th_nic_query *q)
{
	th_eng_cmd_query(th_ipf_engine(ctx->priv), ctx->dev.node,
			 TH_NIC_FEAT_INPROC, q);
	return 0;
}

int th_ip_domain_alloc(struct th_context *ctx, struct th_domain *d)
{
	int err = 0;

	d->priv = th_ipf_domain_create(ctx->priv, &err);
	return d->priv ? 0 : err;
}

static int th_ip_domain_import(struct th_context *ctx, int fd,
			       struct th_domain *d)
{
	(void)ctx;
	(void)fd;
	(void)d;
	return -EOPNOTSUPP;	/* in-process domains are not descriptors */
}

void th_ip_domain_free(struct th_domain *d)
{
	th_ipf_domain_put(d->priv);
}

int th_ip_vport_create(struct th_vport *vp, struct th_nic_vport_create *req,
			      struct th_domain *d)
{
	struct th_ipf_vport *iv;
	int ret;

	ret = th_ipf_vport_create(vp->ctx->priv, vp->ctx->dev.node,
				  d ? d->priv : NULL, req, &iv);
	if (ret)
		return ret;
	vp->priv = iv;
	vp->sq = iv->sq_mem;
	vp->cq = iv->cq_mem;
	vp->cts = iv->cts;
	return 0;
}

int th_ip_vport_destroy(struct th_vport *vp)
{
	th_ipf_vport_destroy(th_ip_vport(vp));
	return 0;
}

static int th_ip_mr_reg(struct th_vport *vp, struct th_nic_mr_reg *req)
{
	return th_ipf_mr_reg(th_ip_vport(vp), req);
}

int th_ip_mr_dereg(struct th_vport *vp, struct th_nic_mr_dereg *req)
{
	return th_eng_cmd_mr_dereg(&th_ip_vport(vp)->ev, req);
}

/* A host's command costs it the timed mode's software overhead first. */
/*
 * The doorbell and the host's counter updates run what they fire in this
 * thread; the sleepers that work satisfies wake once it is done and this
 * thread holds no lock (th_ipf_wake_begin()).
 */
int th_ip_doorbell(struct th_vport *vp, struct th_nic_doorbell *db)
{
	int ret;

	th_ip_timing_command(th_ip_vport(vp)->fabric);
	th_ipf_wake_begin();
	ret = th_eng_cmd_doorbell(&th_ip_vport(vp)->ev, db);
	th_ipf_wake_end();
	return ret;
}

int th_ip_ct_update(struct th_vport *vp, bool set,
			   struct th_nic_ct_update *u)
{
	int ret;

	th_ip_timing_command(th_ip_vport(vp)->fabric);
	th_ipf_wake_begin();
	ret = th_eng_cmd_ct_update(&th_ip_vport(vp)->ev, set, u);
	th_ipf_wake_end();
	return ret;
}

int th_ip_ct_wait(struct th_vport *vp, struct th_nic_ct_wait *w)
{
	return th_ipf_ct_wait(th_ip_vport(vp), w);
}

int th_ip_cancel(struct th_vport *vp, struct th_nic_cancel *c)
{
	return th_eng_cmd_cancel(&th_ip_vport(vp)->ev, c);
}

int th_ip_vport_fd(const struct th_vport *vp)
{
	(void)vp;
	return -EOPNOTSUPP;	/* wait with th_ct_wait() or poll the CQ */
}

/* A node of the fabric's network (the ofi provider's other ranks). */
bool th_ip_node_remote(const struct th_vport *vp, uint32_t node)
{
	const struct th_ipf_net *net = th_ip_vport(vp)->fabric->net;

	return net && net->node_remote && net->node_remote(net->arg, node);
}

static bool th_ip_timed(const struct th_vport *vp)
{
	return th_ip_vport(vp)->fabric->eng.timing;
}

const struct th_provider_ops th_inproc_provider = {
	.name		= "inproc",
	.count_nodes	= th_ip_count_nodes,
	.open		= th_ip_open,
	.close		= th_ip_close,
	.query		= th_ip_query,
	.domain_alloc	= th_ip_domain_alloc,
	.domain_import	= th_ip_domain_import,
	.domain_free	= th_ip_domain_free,
	.vport_create	= th_ip_vport_create,
	.vport_destroy	= th_ip_vport_destroy,
	.mr_reg		= th_ip_mr_reg,
	.mr_dereg	= th_ip_mr_dereg,
	.doorbell	= th_ip_doorbell,
	.ct_update	= th_ip_ct_update,
	.ct_wait	= th_ip_ct_wait,
	.cancel		= th_ip_cancel,
	.vport_fd	= th_ip_vport_fd,
	.timed		= th_ip_timed,
	.vport_stats	= th_ip_vport_stats,
	.node_stats	= th_ip_node_stats,
	.fault_set	= th_ip_fault_set,
	.fault_get	= th_ip_fault_get,
	.timing_set	= th_ip_timing_set,
	.timing_now	= th_ip_timing_now,
	.timing_advance	= th_ip_timing_advance,
	.timing_cpu	= th_ip_timing_cpu,
	.timing_seen	= th_ip_timing_seen,
};
