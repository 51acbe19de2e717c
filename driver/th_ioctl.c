// SPDX-License-Identifier: GPL-2.0
/*
 * th_ioctl.c - the ioctls of a node file: one table row per command.  The
 * struct is copied in once (size-first, at most TH_NIC_IOCTL_MAX_SIZE
 * bytes, copy_struct_from_user() rules), the vport it names is looked up
 * from that copy, the engine's command layer checks and acts, and the
 * (out) fields are copied back.
 */
#include <linux/file.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "th_loc.h"

/* Every vport ioctl names its vport right after size and flags. */
struct th_ioctl_vport_head {
	__u32 size;
	__u32 flags;
	__u32 vport;
};

union th_ioctl_arg {
	struct th_ioctl_vport_head head;
	struct th_nic_query query;
	struct th_nic_vport_create vport_create;
	struct th_nic_vport_destroy vport_destroy;
	struct th_nic_mr_reg mr_reg;
	struct th_nic_mr_dereg mr_dereg;
	struct th_nic_doorbell doorbell;
	struct th_nic_ct_wait ct_wait;
	struct th_nic_ct_update ct_update;
	struct th_nic_cancel cancel;
	struct th_nic_domain_create domain_create;
};

/* When the (out) fields go back to userspace. */
enum th_ioctl_out {
	TH_OUT_NONE,
	TH_OUT_ON_SUCCESS,
	TH_OUT_ALWAYS,
};

/**
 * struct th_ioctl_def - one ioctl
 * @cmd: its number
 * @size: the struct this module knows
 * @on_vport: the struct names a vport of the file (struct th_ioctl_vport_head)
 * @out: when to copy the struct back
 * @run: do it; @vp is the named vport (referenced) or NULL
 * @undo: take back a success whose answer could not be copied out
 */
struct th_ioctl_def {
	unsigned int cmd;
	size_t size;
	bool on_vport;
	enum th_ioctl_out out;
	long (*run)(struct th_file *tf, struct th_nic_vport *vp,
		    union th_ioctl_arg *a);
	void (*undo)(struct th_file *tf, struct th_nic_vport *vp,
		     union th_ioctl_arg *a);
};

/*
 * Copy in a struct whose first member is __u32 size: smaller than ours is
 * -EINVAL, larger than a page -E2BIG, larger than ours only with zeroes
 * past it.
 */
static int th_ioctl_copy_in(void *k, size_t ksize, void __user *u)
{
	u32 usize;

	if (get_user(usize, (u32 __user *)u))
		return -EFAULT;
	if (usize < ksize)
		return -EINVAL;
	if (usize > TH_NIC_IOCTL_MAX_SIZE)
		return -E2BIG;
	return copy_struct_from_user(k, ksize, u, usize);
}

static long th_ioctl_query(struct th_file *tf, struct th_nic_vport *vp,
			   union th_ioctl_arg *a)
{
	if (a->query.flags)
		return -EINVAL;
	th_eng_cmd_query(&tf->node->fab->eng, tf->node->id,
			 TH_NIC_FEAT_DOMAIN_FD, &a->query);
	return 0;
}

static long th_ioctl_vport_create(struct th_file *tf, struct th_nic_vport *vp,
				  union th_ioctl_arg *a)
{
	return th_vport_create(tf, &a->vport_create);
}

static void th_ioctl_vport_create_undo(struct th_file *tf, struct th_nic_vport *vp,
				       union th_ioctl_arg *a)
{
	th_vport_destroy(tf, a->vport_create.vport);
}

static long th_ioctl_vport_destroy(struct th_file *tf, struct th_nic_vport *vp,
				   union th_ioctl_arg *a)
{
	int ret = th_eng_cmd_vport_destroy(&a->vport_destroy);

	return ret ? ret : th_vport_destroy(tf, a->vport_destroy.vport);
}

static long th_ioctl_mr_reg(struct th_file *tf, struct th_nic_vport *vp,
			    union th_ioctl_arg *a)
{
	return th_pinned_mr_reg(vp, &a->mr_reg);
}

static void th_ioctl_mr_reg_undo(struct th_file *tf, struct th_nic_vport *vp,
				 union th_ioctl_arg *a)
{
	th_eng_mr_dereg(&vp->ev, a->mr_reg.lkey);
}

static long th_ioctl_mr_dereg(struct th_file *tf, struct th_nic_vport *vp,
			      union th_ioctl_arg *a)
{
	return th_eng_cmd_mr_dereg(&vp->ev, &a->mr_dereg);
}

static long th_ioctl_doorbell(struct th_file *tf, struct th_nic_vport *vp,
			      union th_ioctl_arg *a)
{
	return th_eng_cmd_doorbell(&vp->ev, &a->doorbell);
}

static long th_ioctl_ct_set(struct th_file *tf, struct th_nic_vport *vp,
			    union th_ioctl_arg *a)
{
	return th_eng_cmd_ct_update(&vp->ev, true, &a->ct_update);
}

static long th_ioctl_ct_inc(struct th_file *tf, struct th_nic_vport *vp,
			    union th_ioctl_arg *a)
{
	return th_eng_cmd_ct_update(&vp->ev, false, &a->ct_update);
}

static long th_ioctl_ct_wait(struct th_file *tf, struct th_nic_vport *vp,
			     union th_ioctl_arg *a)
{
	struct th_nic_ct_wait *w = &a->ct_wait;
	long ret;

	ret = th_eng_cmd_ct_wait_check(&vp->ev, w);
	if (ret)
		return ret;
	if (w->timeout_ns) {
		ktime_t timeout = ns_to_ktime(min_t(u64, w->timeout_ns,
						    KTIME_MAX));

		ret = wait_event_interruptible_hrtimeout(vp->wq,
							 th_eng_cmd_ct_reached(&vp->ev, w),
							 timeout);
	}
	/* a relative timeout must not restart: -ERESTARTSYS becomes -EINTR */
	return th_eng_cmd_ct_wait_result(&vp->ev, w, ret == -ERESTARTSYS);
}

static long th_ioctl_cancel(struct th_file *tf, struct th_nic_vport *vp,
			    union th_ioctl_arg *a)
{
	return th_eng_cmd_cancel(&vp->ev, &a->cancel);
}

static const struct th_ioctl_def th_ioctls[] = {
	{ TH_NIC_IOCTL_QUERY, sizeof(struct th_nic_query), false,
	  TH_OUT_ON_SUCCESS, th_ioctl_query },
	{ TH_NIC_IOCTL_VPORT_CREATE, sizeof(struct th_nic_vport_create), false,
	  TH_OUT_ON_SUCCESS, th_ioctl_vport_create, th_ioctl_vport_create_undo },
	{ TH_NIC_IOCTL_VPORT_DESTROY, sizeof(struct th_nic_vport_destroy),
	  false, TH_OUT_NONE, th_ioctl_vport_destroy },
	{ TH_NIC_IOCTL_MR_REG, sizeof(struct th_nic_mr_reg), true,
	  TH_OUT_ON_SUCCESS, th_ioctl_mr_reg, th_ioctl_mr_reg_undo },
	{ TH_NIC_IOCTL_MR_DEREG, sizeof(struct th_nic_mr_dereg), true,
	  TH_OUT_NONE, th_ioctl_mr_dereg },
	{ TH_NIC_IOCTL_DOORBELL, sizeof(struct th_nic_doorbell), true,
	  TH_OUT_ALWAYS, th_ioctl_doorbell },
	{ TH_NIC_IOCTL_CT_WAIT, sizeof(struct th_nic_ct_wait), true,
	  TH_OUT_ALWAYS, th_ioctl_ct_wait },
	{ TH_NIC_IOCTL_CT_SET, sizeof(struct th_nic_ct_update), true,
	  TH_OUT_NONE, th_ioctl_ct_set },
	{ TH_NIC_IOCTL_CT_INC, sizeof(struct th_nic_ct_update), true,
	  TH_OUT_NONE, th_ioctl_ct_inc },
	{ TH_NIC_IOCTL_CANCEL, sizeof(struct th_nic_cancel), true,
	  TH_OUT_ON_SUCCESS, th_ioctl_cancel },
};

/*
 * DOMAIN_CREATE installs its descriptor only once the answer naming it
 * reached userspace: it has its own row-less path.
 */
static long th_ioctl_domain_create(void __user *arg)
{
	struct th_nic_domain_create req;
	struct file *file;
	int ret;

	ret = th_ioctl_copy_in(&req, sizeof(req), arg);
	if (ret)
		return ret;
	file = th_domain_create(&req);
	if (IS_ERR(file))
		return PTR_ERR(file);
	ret = copy_to_user(arg, &req, sizeof(req)) ? -EFAULT : 0;
	th_domain_publish(&req, file, !ret);
	return ret;
}

long th_ioctl(struct th_file *tf, unsigned int cmd, void __user *arg)
{
	const struct th_ioctl_def *def = NULL;
	union th_ioctl_arg a;
	struct th_nic_vport *vp = NULL;
	long ret;
	size_t i;

	if (cmd == TH_NIC_IOCTL_DOMAIN_CREATE)
		return th_ioctl_domain_create(arg);
	for (i = 0; i < ARRAY_SIZE(th_ioctls); i++)
		if (th_ioctls[i].cmd == cmd)
			def = &th_ioctls[i];
	if (!def)
		return -ENOTTY;

	ret = th_ioctl_copy_in(&a, def->size, arg);
	if (ret)
		return ret;
	if (def->on_vport) {
		vp = th_vport_lookup(tf, a.head.vport);
		if (!vp)
			return -EINVAL;
	}
	ret = def->run(tf, vp, &a);
	if (def->out == TH_OUT_ALWAYS ||
	    (def->out == TH_OUT_ON_SUCCESS && !ret)) {
		if (copy_to_user(arg, &a, def->size)) {
			if (!ret && def->undo)
				def->undo(tf, vp, &a);
			if (!ret)
				ret = -EFAULT;
		}
	}
	if (vp)
		th_vport_put(vp);
	return ret;
}
