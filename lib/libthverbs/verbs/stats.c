// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * stats.c - statistics and fault injection as the library offers them
 * (th_vport_stats(), th_node_stats(), th_fault_set(), th_fault_get()):
 * the provider's, where it has them; th_nic.ko's are read and set over
 * generic netlink instead (thctl), so there these are -EOPNOTSUPP.
 */
#include <errno.h>

#include "thverbs_priv.h"

int th_vport_stats(struct th_vport *vp, struct th_stats *st)
{
	if (!vp || !st)
		return -EINVAL;
	if (!vp->ctx->dev.ops->vport_stats)
		return -EOPNOTSUPP;
	return vp->ctx->dev.ops->vport_stats(vp, st);
}

int th_node_stats(struct th_context *ctx, struct th_stats *st)
{
	if (!ctx || !st)
		return -EINVAL;
	if (!ctx->dev.ops->node_stats)
		return -EOPNOTSUPP;
	return ctx->dev.ops->node_stats(ctx, st);
}

int th_fault_set(struct th_context *ctx, const struct th_fault *f)
{
	if (!ctx || !f)
		return -EINVAL;
	if (!ctx->dev.ops->fault_set)
		return -EOPNOTSUPP;
	return ctx->dev.ops->fault_set(ctx, f);
}

int th_fault_get(struct th_context *ctx, struct th_fault *f)
{
	if (!ctx || !f)
		return -EINVAL;
	if (!ctx->dev.ops->fault_get)
		return -EOPNOTSUPP;
	return ctx->dev.ops->fault_get(ctx, f);
}
