// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * kernel.c - the kernel provider: th_nic.ko's ioctls and mmap'd rings on
 * /dev/th_nic<N>; domains are the module's domain descriptors.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "thverbs_priv.h"

static int th_k_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

/* Nodes are numbered from 0 without gaps: count until one is missing. */
static int th_k_count_nodes(void)
{
	char path[32];
	int n = 0;

	for (;;) {
		snprintf(path, sizeof(path), "/dev/th_nic%d", n);
		if (access(path, F_OK))
			break;
		n++;
	}
	return n ? n : -ENODEV;
}

static int th_k_open(struct th_context *ctx)
{
	char path[32];

	snprintf(path, sizeof(path), "/dev/th_nic%u", ctx->dev.node);
	ctx->fd = open(path, O_RDWR | O_CLOEXEC);
	return ctx->fd < 0 ? -errno : 0;
}

static void th_k_close(struct th_context *ctx)
{
	if (ctx->fd >= 0)
		close(ctx->fd);
}

static int th_k_query(struct th_context *ctx, struct th_nic_query *q)
{
	*q = (struct th_nic_query){ .size = sizeof(*q) };
	return th_k_ioctl(ctx->fd, TH_NIC_IOCTL_QUERY, q);
}

static int th_k_domain_alloc(struct th_context *ctx, struct th_domain *d)
{
	struct th_nic_domain_create c = { .size = sizeof(c) };
	int ret = th_k_ioctl(ctx->fd, TH_NIC_IOCTL_DOMAIN_CREATE, &c);

	if (!ret)
		d->fd = c.fd;
	return ret;
}

/* Our own descriptor for the domain: the caller keeps theirs. */
static int th_k_domain_import(struct th_context *ctx, int fd,
			      struct th_domain *d)
{
	(void)ctx;
	d->fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	return d->fd < 0 ? -errno : 0;
}

static void th_k_domain_free(struct th_domain *d)
{
	close(d->fd);
}

static void *th_k_map(int fd, uint64_t off, uint64_t size, int prot)
{
	void *p = mmap(NULL, size, prot, MAP_SHARED, fd, (off_t)off);

	return p == MAP_FAILED ? NULL : p;
}

static void th_k_unmap(struct th_vport *vp)
{
	if (vp->sq)
		munmap(vp->sq, vp->info.sq_mmap_size);
	if (vp->cq)
		munmap(vp->cq, vp->info.cq_mmap_size);
	if (vp->cts)
		munmap(vp->cts, vp->info.ct_mmap_size);
}

static int th_k_vport_create(struct th_vport *vp, struct th_nic_vport_create *req,
			     struct th_domain *dom)
{
	int fd = vp->ctx->fd, ret;
	struct th_nic_vport_destroy d = { .size = sizeof(d) };

	if (dom) {
		req->flags |= TH_NIC_VPORT_F_DOMAIN;
		req->domain_fd = dom->fd;
	}
	ret = th_k_ioctl(fd, TH_NIC_IOCTL_VPORT_CREATE, req);
	if (ret)
		return ret;
	vp->sq = th_k_map(fd, req->sq_mmap_offset, req->sq_mmap_size,
			  PROT_READ | PROT_WRITE);
	vp->cq = th_k_map(fd, req->cq_mmap_offset, req->cq_mmap_size,
			  PROT_READ | PROT_WRITE);
	vp->cts = th_k_map(fd, req->ct_mmap_offset, req->ct_mmap_size, PROT_READ);
	if (!vp->sq || !vp->cq || !vp->cts) {
		ret = -errno;
		th_k_unmap(vp);
		d.vport = req->vport;
		th_k_ioctl(fd, TH_NIC_IOCTL_VPORT_DESTROY, &d);
		return ret;
	}
	return 0;
}

static int th_k_vport_destroy(struct th_vport *vp)
{
	struct th_nic_vport_destroy d = { .size = sizeof(d), .vport = vp->index };
	int ret = th_k_ioctl(vp->ctx->fd, TH_NIC_IOCTL_VPORT_DESTROY, &d);

	if (!ret)
		th_k_unmap(vp);
	return ret;
}

static int th_k_mr_reg(struct th_vport *vp, struct th_nic_mr_reg *req)
{
	return th_k_ioctl(vp->ctx->fd, TH_NIC_IOCTL_MR_REG, req);
}

static int th_k_mr_dereg(struct th_vport *vp, struct th_nic_mr_dereg *req)
{
	return th_k_ioctl(vp->ctx->fd, TH_NIC_IOCTL_MR_DEREG, req);
}

static int th_k_doorbell(struct th_vport *vp, struct th_nic_doorbell *db)
{
	return th_k_ioctl(vp->ctx->fd, TH_NIC_IOCTL_DOORBELL, db);
}

static int th_k_ct_update(struct th_vport *vp, bool set,
			  struct th_nic_ct_update *u)
{
	return th_k_ioctl(vp->ctx->fd, set ? TH_NIC_IOCTL_CT_SET :
			  TH_NIC_IOCTL_CT_INC, u);
}

static int th_k_ct_wait(struct th_vport *vp, struct th_nic_ct_wait *w)
{
	return th_k_ioctl(vp->ctx->fd, TH_NIC_IOCTL_CT_WAIT, w);
}

static int th_k_cancel(struct th_vport *vp, struct th_nic_cancel *c)
{
	return th_k_ioctl(vp->ctx->fd, TH_NIC_IOCTL_CANCEL, c);
}

static int th_k_vport_fd(const struct th_vport *vp)
{
	return vp->ctx->fd;
}

const struct th_provider_ops th_kernel_provider = {
	.name		= "kernel",
	.count_nodes	= th_k_count_nodes,
	.open		= th_k_open,
	.close		= th_k_close,
	.query		= th_k_query,
	.domain_alloc	= th_k_domain_alloc,
	.domain_import	= th_k_domain_import,
	.domain_free	= th_k_domain_free,
	.vport_create	= th_k_vport_create,
	.vport_destroy	= th_k_vport_destroy,
	.mr_reg		= th_k_mr_reg,
	.mr_dereg	= th_k_mr_dereg,
	.doorbell	= th_k_doorbell,
	.ct_update	= th_k_ct_update,
	.ct_wait	= th_k_ct_wait,
	.cancel		= th_k_cancel,
	.vport_fd	= th_k_vport_fd,
};
