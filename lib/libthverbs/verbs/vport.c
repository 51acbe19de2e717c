// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vport.c - domains, vports, memory regions, host-side counter operations
 * and cancellation: thin wrappers over the provider's ops.
 */
#include <errno.h>
#include <stdlib.h>

#include "thverbs_priv.h"

static struct th_domain *th_domain_new(struct th_context *ctx, int fd)
{
	struct th_domain *d = calloc(1, sizeof(*d));
	int ret;

	if (!d)
		return NULL;
	d->ops = ctx->dev.ops;
	d->fd = -1;
	ret = fd < 0 ? ctx->dev.ops->domain_alloc(ctx, d) :
	      ctx->dev.ops->domain_import(ctx, fd, d);
	if (ret) {
		free(d);
		errno = -ret;
		return NULL;
	}
	return d;
}

struct th_domain *th_domain_alloc(struct th_context *ctx)
{
	return th_domain_new(ctx, -1);
}

struct th_domain *th_domain_import(struct th_context *ctx, int fd)
{
	if (fd < 0) {
		errno = EBADF;
		return NULL;
	}
	return th_domain_new(ctx, fd);
}

int th_domain_fd(const struct th_domain *d)
{
	return d->fd >= 0 ? d->fd : -EOPNOTSUPP;
}

/* Vports created in @d keep the domain alive: this only drops the handle. */
int th_domain_dealloc(struct th_domain *d)
{
	if (!d)
		return -EINVAL;
	d->ops->domain_free(d);
	free(d);
	return 0;
}

struct th_vport *th_vport_create(struct th_context *ctx,
					   const struct th_vport_attr *attr)
{
	struct th_domain *dom = attr ? attr->domain : NULL;
	struct th_vport *vp;
	int ret;

	if (attr && attr->comp_mask) {
		errno = EOPNOTSUPP;	/* a field this library does not know */
		return NULL;
	}
	if (dom && dom->ops != ctx->dev.ops) {
		errno = EINVAL;		/* a domain of another provider */
		return NULL;
	}
	vp = calloc(1, sizeof(*vp));
	if (!vp)
		return NULL;
	vp->ctx = ctx;
	vp->info.size = sizeof(vp->info);
	vp->info.sq_entries = attr ? attr->sq_entries : 0;
	vp->info.cq_entries = attr ? attr->cq_entries : 0;
	ret = ctx->dev.ops->vport_create(vp, &vp->info, dom);
	if (ret) {
		free(vp);
		errno = -ret;
		return NULL;
	}
	vp->index = vp->info.vport;
	/* vports of one context may come and go in several threads */
	__atomic_add_fetch(&ctx->nvports, 1, __ATOMIC_RELAXED);
	pthread_mutex_init(&vp->lock, NULL);
	th_ring_attach(vp);
	return vp;
}

int th_vport_destroy(struct th_vport *vp)
{
	int ret;

	if (!vp)
		return -EINVAL;
	ret = vp->ctx->dev.ops->vport_destroy(vp);
	if (ret)
		return ret;
	__atomic_sub_fetch(&vp->ctx->nvports, 1, __ATOMIC_RELAXED);
	pthread_mutex_destroy(&vp->lock);
	free(vp);
	return 0;
}

uint32_t th_vport_node(const struct th_vport *vp)
{
	return vp->ctx->dev.node;
}

uint32_t th_vport_index(const struct th_vport *vp)
{
	return vp->index;
}

int th_vport_node_fd(const struct th_vport *vp)
{
	return vp->ctx->dev.ops->vport_fd(vp);
}

struct th_mr *th_mr_reg(struct th_vport *vp, void *addr, size_t len,
				  unsigned int access)
{
	struct th_nic_mr_reg r = {
		.size = sizeof(r), .vport = vp->index, .access = access,
		.addr = (uintptr_t)addr, .length = len,
	};
	struct th_mr *mr = calloc(1, sizeof(*mr));
	int ret;

	if (!mr)
		return NULL;
	ret = vp->ctx->dev.ops->mr_reg(vp, &r);
	if (ret) {
		free(mr);
		errno = -ret;
		return NULL;
	}
	mr->lkey = r.lkey;
	mr->rkey = r.rkey;
	mr->vp = vp;
	mr->addr = addr;
	mr->len = len;
	return mr;
}

int th_mr_dereg(struct th_mr *mr)
{
	struct th_nic_mr_dereg r;
	int ret;

	if (!mr)
		return -EINVAL;
	r = (struct th_nic_mr_dereg){
		.size = sizeof(r), .vport = mr->vp->index, .lkey = mr->lkey,
	};
	ret = mr->vp->ctx->dev.ops->mr_dereg(mr->vp, &r);
	if (!ret)
		free(mr);
	return ret;
}

uint32_t th_mr_lkey(const struct th_mr *mr)
{
	return mr->lkey;
}

uint64_t th_mr_rkey(const struct th_mr *mr)
{
	return mr->rkey;
}

void *th_mr_addr(const struct th_mr *mr)
{
	return mr->addr;
}

size_t th_mr_length(const struct th_mr *mr)
{
	return mr->len;
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

int th_ct_set(struct th_vport *vp, uint16_t ct, uint64_t success,
			uint64_t failure)
{
	return th_ct_update(vp, true, 0, ct, success, failure);
}

int th_ct_inc(struct th_vport *vp, uint16_t ct, int64_t delta)
{
	return th_ct_update(vp, false, 0, ct, (uint64_t)delta, 0);
}

int th_ct_fail(struct th_vport *vp, uint16_t ct, uint64_t delta)
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

int th_cancel_all(struct th_vport *vp)
{
	return th_cancel_flags(vp, 0, 0);
}

int th_cancel(struct th_vport *vp, uint64_t cookie)
{
	return th_cancel_flags(vp, TH_NIC_CANCEL_F_COOKIE, cookie);
}
