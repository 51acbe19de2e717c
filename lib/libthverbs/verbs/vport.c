// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vport.c - vports, memory regions, host-side counter operations and
 * cancellation: thin wrappers over the provider's ops.
 */
#include <errno.h>
#include <stdlib.h>

#include "thverbs_priv.h"

TH_EXPORT struct th_vport *th_create_vport(struct th_context *ctx,
					   const struct th_vport_attr *attr)
{
	struct th_vport *vp = calloc(1, sizeof(*vp));
	int ret;

	if (!vp)
		return NULL;
	vp->ctx = ctx;
	vp->info.size = sizeof(vp->info);
	vp->info.sq_entries = attr ? attr->sq_entries : 0;
	vp->info.cq_entries = attr ? attr->cq_entries : 0;
	ret = ctx->dev.ops->vport_create(vp, &vp->info);
	if (ret) {
		free(vp);
		errno = -ret;
		return NULL;
	}
	vp->index = vp->info.vport;
	ctx->nvports++;
	pthread_mutex_init(&vp->lock, NULL);
	th_ring_attach(vp);
	return vp;
}

TH_EXPORT int th_destroy_vport(struct th_vport *vp)
{
	int ret;

	if (!vp)
		return -EINVAL;
	ret = vp->ctx->dev.ops->vport_destroy(vp);
	if (ret)
		return ret;
	vp->ctx->nvports--;
	pthread_mutex_destroy(&vp->lock);
	free(vp);
	return 0;
}

TH_EXPORT uint32_t th_vport_node(const struct th_vport *vp)
{
	return vp->ctx->dev.node;
}

TH_EXPORT uint32_t th_vport_index(const struct th_vport *vp)
{
	return vp->index;
}

TH_EXPORT int th_vport_fd(const struct th_vport *vp)
{
	return vp->ctx->dev.ops->vport_fd(vp);
}

TH_EXPORT struct th_mr *th_reg_mr(struct th_vport *vp, void *addr, size_t len,
				  unsigned int access)
{
	struct th_mr *mr = calloc(1, sizeof(*mr));
	int ret;

	if (!mr)
		return NULL;
	ret = vp->ctx->dev.ops->mr_reg(vp, addr, len, access, &mr->key);
	if (ret) {
		free(mr);
		errno = -ret;
		return NULL;
	}
	mr->vp = vp;
	mr->addr = addr;
	mr->len = len;
	return mr;
}

TH_EXPORT int th_dereg_mr(struct th_mr *mr)
{
	int ret;

	if (!mr)
		return -EINVAL;
	ret = mr->vp->ctx->dev.ops->mr_dereg(mr->vp, mr->key);
	if (!ret)
		free(mr);
	return ret;
}

TH_EXPORT uint32_t th_mr_key(const struct th_mr *mr)
{
	return mr->key;
}

TH_EXPORT void *th_mr_addr(const struct th_mr *mr)
{
	return mr->addr;
}

TH_EXPORT size_t th_mr_length(const struct th_mr *mr)
{
	return mr->len;
}

TH_EXPORT int th_ct_wait(struct th_vport *vp, uint16_t ct, uint64_t threshold,
			 uint64_t timeout_ns)
{
	struct th_nic_ct_wait w = {
		.size = sizeof(w), .vport = vp->index, .ct = ct,
		.threshold = threshold, .timeout_ns = timeout_ns,
	};

	return vp->ctx->dev.ops->ct_wait(vp, &w);
}

static int th_ct_update(struct th_vport *vp, bool set, uint32_t flags,
			uint16_t ct, uint64_t value, uint64_t failure)
{
	struct th_nic_ct_update u = {
		.size = sizeof(u), .flags = flags, .vport = vp->index, .ct = ct,
		.value = value, .failure = failure,
	};

	return vp->ctx->dev.ops->ct_update(vp, set, &u);
}

TH_EXPORT int th_ct_set(struct th_vport *vp, uint16_t ct, uint64_t success,
			uint64_t failure)
{
	return th_ct_update(vp, true, 0, ct, success, failure);
}

TH_EXPORT int th_ct_inc(struct th_vport *vp, uint16_t ct, int64_t delta)
{
	return th_ct_update(vp, false, 0, ct, (uint64_t)delta, 0);
}

TH_EXPORT int th_ct_fail(struct th_vport *vp, uint16_t ct, uint64_t delta)
{
	return th_ct_update(vp, false, TH_NIC_CT_F_FAILURE, ct, delta, 0);
}

static int th_cancel_flags(struct th_vport *vp, uint32_t flags, uint64_t cookie)
{
	struct th_nic_cancel c = {
		.size = sizeof(c), .flags = flags, .vport = vp->index,
		.cookie = cookie,
	};
	int ret = vp->ctx->dev.ops->cancel(vp, &c);

	return ret ? ret : (int)c.cancelled;
}

TH_EXPORT int th_cancel_all(struct th_vport *vp)
{
	return th_cancel_flags(vp, 0, 0);
}

TH_EXPORT int th_cancel(struct th_vport *vp, uint64_t cookie)
{
	return th_cancel_flags(vp, TH_NIC_CANCEL_F_COOKIE, cookie);
}
