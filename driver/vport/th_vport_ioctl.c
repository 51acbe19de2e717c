// SPDX-License-Identifier: GPL-2.0
/*
 * th_vport_ioctl.c - the ioctls that act on a vport: create and destroy,
 * MR registration, the doorbell, counters, CT_WAIT and CANCEL.  Each copies
 * its size-first struct in (copy_struct_from_user: a newer, larger struct
 * is accepted only if its extra bytes are zero), checks flags and reserved
 * fields, and copies its (out) fields back.
 */
#include <linux/ktime.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "th_loc.h"

/* Copy in a struct whose first member is __u32 size. */
static int th_copy_in(void *k, size_t ksize, void __user *u)
{
	u32 usize;

	if (get_user(usize, (u32 __user *)u))
		return -EFAULT;
	if (usize < ksize)
		return -EINVAL;
	return copy_struct_from_user(k, ksize, u, usize);
}

static int th_copy_out(void __user *u, const void *k, size_t ksize)
{
	return copy_to_user(u, k, ksize) ? -EFAULT : 0;
}

static long th_ioctl_vport_create(struct th_file *tf, void __user *arg)
{
	struct th_nic_vport_create req;
	int ret;

	ret = th_copy_in(&req, sizeof(req), arg);
	if (ret)
		return ret;
	if (req.flags || req.rsvd[0] || req.rsvd[1])
		return -EINVAL;
	ret = th_vport_create(tf, &req);
	if (ret)
		return ret;
	ret = th_copy_out(arg, &req, sizeof(req));
	if (ret)
		th_vport_destroy(tf, req.vport);
	return ret;
}

static long th_ioctl_vport_destroy(struct th_file *tf, void __user *arg)
{
	struct th_nic_vport_destroy req;
	int ret;

	ret = th_copy_in(&req, sizeof(req), arg);
	if (ret)
		return ret;
	if (req.flags || req.rsvd)
		return -EINVAL;
	return th_vport_destroy(tf, req.vport);
}

static long th_ioctl_mr_reg(struct th_vport *vp, void __user *arg)
{
	struct th_nic_mr_reg req;
	int ret;

	ret = th_copy_in(&req, sizeof(req), arg);
	if (ret)
		return ret;
	ret = th_umr_reg(vp, &req);
	if (ret)
		return ret;
	ret = th_copy_out(arg, &req, sizeof(req));
	if (ret)
		th_umr_dereg(vp, req.key);
	return ret;
}

static long th_ioctl_mr_dereg(struct th_vport *vp, void __user *arg)
{
	struct th_nic_mr_dereg req;
	int ret;

	ret = th_copy_in(&req, sizeof(req), arg);
	if (ret)
		return ret;
	if (req.flags)
		return -EINVAL;
	return th_umr_dereg(vp, req.key);
}

/*
 * Accept what the SQ holds, then run what fired, outside the SQ mutex: a
 * cascade may reach other nodes and take their locks, never this one.
 */
static long th_ioctl_doorbell(struct th_vport *vp, void __user *arg)
{
	struct th_nic_doorbell req;
	struct th_eng_db_result res;
	struct th_eng_ctx ctx;
	int ret, out;

	ret = th_copy_in(&req, sizeof(req), arg);
	if (ret)
		return ret;
	if (req.flags || req.rsvd)
		return -EINVAL;
	th_eng_ctx_init(&ctx, vp->ev.eng);
	mutex_lock(&vp->sq_mutex);
	ret = th_eng_doorbell(&vp->ev, &ctx, &res);
	mutex_unlock(&vp->sq_mutex);
	th_eng_ctx_run(&ctx);

	req.chains = res.chains;
	req.descs = res.descs;
	req.bad_index = res.bad_index;
	req.bad_desc = res.bad_desc;
	out = th_copy_out(arg, &req, sizeof(req));
	return ret ? ret : out;
}

static long th_ioctl_ct_update(struct th_vport *vp, unsigned int cmd,
			       void __user *arg)
{
	struct th_nic_ct_update req;
	enum th_eng_ct_op op;
	struct th_eng_ctx ctx;
	int ret;

	ret = th_copy_in(&req, sizeof(req), arg);
	if (ret)
		return ret;
	if (cmd == TH_NIC_IOCTL_CT_SET) {
		if (req.flags)
			return -EINVAL;
		op = TH_ENG_CT_SET;
	} else {
		if (req.flags & ~TH_NIC_CT_F_FAILURE || req.failure)
			return -EINVAL;
		op = req.flags ? TH_ENG_CT_FAIL : TH_ENG_CT_INC;
	}
	th_eng_ctx_init(&ctx, vp->ev.eng);
	ret = th_eng_ct_update(&vp->ev, req.ct, op, req.value, req.failure, &ctx);
	th_eng_ctx_run(&ctx);
	return ret;
}

static bool th_ct_reached(struct th_vport *vp, u32 ct, u64 threshold)
{
	u64 success, failure;

	if (th_eng_ct_read(&vp->ev, ct, &success, &failure))
		return true;	/* destroyed meanwhile */
	return failure || success >= threshold;
}

static long th_ioctl_ct_wait(struct th_vport *vp, void __user *arg)
{
	struct th_nic_ct_wait req;
	long ret;
	int out;

	ret = th_copy_in(&req, sizeof(req), arg);
	if (ret)
		return ret;
	if (req.flags || req.ct >= vp->ev.eng->lim.max_counters)
		return -EINVAL;
	if (req.timeout_ns) {
		ktime_t timeout = ns_to_ktime(min_t(u64, req.timeout_ns,
						    KTIME_MAX));

		ret = wait_event_interruptible_hrtimeout(vp->wq,
							 th_ct_reached(vp, req.ct,
								       req.threshold),
							 timeout);
		if (ret == -ERESTARTSYS)
			ret = -EINTR;	/* a relative timeout must not restart */
	}
	if (th_eng_ct_read(&vp->ev, req.ct, &req.success, &req.failure))
		ret = -ECONNREFUSED;
	else if (req.failure)
		ret = -EIO;
	else if (req.success >= req.threshold)
		ret = 0;
	else if (ret != -EINTR)
		ret = -ETIMEDOUT;
	out = th_copy_out(arg, &req, sizeof(req));
	return ret ? ret : out;
}

static long th_ioctl_cancel(struct th_vport *vp, void __user *arg)
{
	struct th_nic_cancel req;
	struct th_eng_ctx ctx;
	int ret;

	ret = th_copy_in(&req, sizeof(req), arg);
	if (ret)
		return ret;
	if (req.flags & ~TH_NIC_CANCEL_F_COOKIE)
		return -EINVAL;
	th_eng_ctx_init(&ctx, vp->ev.eng);
	ret = th_eng_cancel(&vp->ev, req.flags & TH_NIC_CANCEL_F_COOKIE,
			    req.cookie, &req.cancelled, &ctx);
	th_eng_ctx_run(&ctx);
	if (ret)
		return ret;
	return th_copy_out(arg, &req, sizeof(req));
}

/* Every vport ioctl names its vport right after size and flags. */
struct th_vport_ioctl_head {
	__u32 size;
	__u32 flags;
	__u32 vport;
};

long th_vport_ioctl(struct th_file *tf, unsigned int cmd, void __user *arg)
{
	struct th_vport_ioctl_head head;
	struct th_vport *vp;
	long ret;

	switch (cmd) {
	case TH_NIC_IOCTL_VPORT_CREATE:
		return th_ioctl_vport_create(tf, arg);
	case TH_NIC_IOCTL_VPORT_DESTROY:
		return th_ioctl_vport_destroy(tf, arg);
	case TH_NIC_IOCTL_MR_REG:
	case TH_NIC_IOCTL_MR_DEREG:
	case TH_NIC_IOCTL_DOORBELL:
	case TH_NIC_IOCTL_CT_WAIT:
	case TH_NIC_IOCTL_CT_SET:
	case TH_NIC_IOCTL_CT_INC:
	case TH_NIC_IOCTL_CANCEL:
		break;
	default:
		return -ENOTTY;
	}

	if (copy_from_user(&head, arg, sizeof(head)))
		return -EFAULT;
	vp = th_vport_lookup(tf, head.vport);
	if (!vp)
		return -EINVAL;
	switch (cmd) {
	case TH_NIC_IOCTL_MR_REG:
		ret = th_ioctl_mr_reg(vp, arg);
		break;
	case TH_NIC_IOCTL_MR_DEREG:
		ret = th_ioctl_mr_dereg(vp, arg);
		break;
	case TH_NIC_IOCTL_DOORBELL:
		ret = th_ioctl_doorbell(vp, arg);
		break;
	case TH_NIC_IOCTL_CT_WAIT:
		ret = th_ioctl_ct_wait(vp, arg);
		break;
	case TH_NIC_IOCTL_CT_SET:
	case TH_NIC_IOCTL_CT_INC:
		ret = th_ioctl_ct_update(vp, cmd, arg);
		break;
	default:
		ret = th_ioctl_cancel(vp, arg);
		break;
	}
	th_vport_put(vp);
	return ret;
}
