// SPDX-License-Identifier: GPL-2.0
/*
 * th_vport.c - vport lifetime: creation on an open file in a domain,
 * charged to its user (and within its share of the node), publication on
 * the fabric, lookup by the owner,
 * and teardown that cancels what is pending, waits for what runs and for
 * peers using it, then frees.
 */
#include <linux/capability.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>

#include "th_loc.h"

/*
 * Vports one user may hold on one node.  max_user_vports (256) bounds a
 * user on the whole fabric, but 256 is four whole nodes of 64: without a
 * bound per node one user could take every slot of a few nodes and leave
 * other users none there.  32 is half a default node, so every node keeps
 * room for others, and still fits a job of 16 ranks with 32 collectives
 * each (one vport per collective) spread one rank per node.  Like a
 * resource limit, it does not bind a CAP_SYS_RESOURCE holder (an
 * administrator filling a node).
 */
static unsigned int max_user_node_vports = 32;

static int th_vport_set_node_cap(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, 1U << 30);
}

static const struct kernel_param_ops th_vport_node_cap_ops = {
	.set = th_vport_set_node_cap,
	.get = param_get_uint,
};

module_param_cb(max_user_node_vports, &th_vport_node_cap_ops,
		&max_user_node_vports, 0444);
MODULE_PARM_DESC(max_user_node_vports,
		 "vports one user may hold on one node (1 ... 2^30)");

/*
 * Under @node's lock: may @user have one more vport on @node?  Vports
 * being torn down left the table first, so they no longer count.
 */
static bool th_vport_user_fits(struct th_node *node, struct th_user *user)
	__must_hold(&node->lock)
{
	struct th_fabric *fab = node->fab;
	struct th_nic_vport *vp;
	u32 i, held = 0;

	for (i = 0; i < fab->eng.lim.max_vports; i++) {
		vp = rcu_dereference_protected(*th_fabric_slot(fab, node->id, i),
					       lockdep_is_held(&node->lock));
		if (vp && vp->user == user)
			held++;
	}
	return held < READ_ONCE(max_user_node_vports);
}

/* CAP_SYS_RESOURCE overrides the share, as it overrides resource limits. */
static bool th_vport_node_cap_applies(void)
{
	return !capable(CAP_SYS_RESOURCE);
}

/*
 * Drop a reference.  The last one wakes the teardown waiting in
 * th_fabric_quiesce(); the vport is freed after an RCU grace period
 * (kfree_rcu), so the wake-up below never touches freed memory.
 */
void th_vport_put(struct th_nic_vport *vp)
{
	rcu_read_lock();
	if (refcount_dec_and_test(&vp->refs))
		wake_up_all(&vp->wq);
	rcu_read_unlock();
}

/* A vport of @tf by index, referenced; NULL if @tf has no such vport. */
struct th_nic_vport *th_vport_lookup(struct th_file *tf, u32 index)
{
	struct th_nic_vport *vp, *found = NULL;

	mutex_lock(&tf->lock);
	list_for_each_entry(vp, &tf->vports, file_link) {
		if (vp->ev.index == index) {
			refcount_inc(&vp->refs);
			found = vp;
			break;
		}
	}
	mutex_unlock(&tf->lock);
	return found;
}

static void th_vport_free_regions(struct th_nic_vport *vp)
{
	int i;

	for (i = 0; i < TH_REGION_NR; i++)
		th_ring_mem_free(&vp->regions[i]);
}

static int th_vport_alloc_regions(struct th_nic_vport *vp)
{
	const struct th_eng_vport_config *cfg = &vp->cfg;
	int ret;

	ret = th_ring_mem_alloc(&vp->regions[TH_REGION_SQ], cfg->sq_bytes, false);
	if (!ret)
		ret = th_ring_mem_alloc(&vp->regions[TH_REGION_CQ], cfg->cq_bytes,
					false);
	if (!ret)
		ret = th_ring_mem_alloc(&vp->regions[TH_REGION_CT], cfg->ct_bytes,
					true);
	if (ret)
		th_vport_free_regions(vp);
	return ret;
}

static void th_vport_describe(struct th_nic_vport *vp, struct th_nic_vport_create *req)
{
	u32 index = vp->ev.index;

	th_eng_cmd_vport_describe(&vp->ev, &vp->cfg, req);
	req->sq_mmap_offset = TH_MMAP_OFFSET(index, TH_REGION_SQ);
	req->cq_mmap_offset = TH_MMAP_OFFSET(index, TH_REGION_CQ);
	req->ct_mmap_offset = TH_MMAP_OFFSET(index, TH_REGION_CT);
	req->sq_mmap_size = vp->regions[TH_REGION_SQ].size;
	req->cq_mmap_size = vp->regions[TH_REGION_CQ].size;
	req->ct_mmap_size = vp->regions[TH_REGION_CT].size;
}

/* The identity the engine compares: the joined domain or the user's own. */
static const void *th_vport_domain_id(struct th_nic_vport *vp)
{
	return vp->domain ? vp->domain : &vp->user->domain;
}

int th_vport_create(struct th_file *tf, struct th_nic_vport_create *req)
{
	struct th_node *node = tf->node;
	struct th_fabric *fab = node->fab;
	const struct th_eng_limits *lim = &fab->eng.lim;
	struct th_nic_vport __rcu **slot = NULL;
	struct th_nic_vport *vp;
	u32 i;
	int ret;

	vp = kzalloc(sizeof(*vp), TH_GFP_USER);
	if (!vp)
		return -ENOMEM;
	ret = th_eng_cmd_vport_config(&fab->eng, req, &vp->cfg);
	if (ret)
		goto err_free_vp;
	if (req->flags & TH_NIC_VPORT_F_DOMAIN) {
		vp->domain = th_domain_from_fd(req->domain_fd);
		if (IS_ERR(vp->domain)) {
			ret = PTR_ERR(vp->domain);
			goto err_free_vp;
		}
	}
	ret = -ENOMEM;
	vp->user = th_fabric_user_get(fab);
	if (!vp->user)
		goto err_put_domain;
	ret = th_vport_alloc_regions(vp);
	if (ret)
		goto err_put_user;
	vp->owner = tf;
	vp->pid = get_pid(task_tgid(current));
	refcount_set(&vp->refs, 1);	/* the fabric table's */
	init_waitqueue_head(&vp->wq);
	spin_lock_init(&vp->defer_lock);
	th_list_init(&vp->deferred);
	INIT_WORK(&vp->run_work, th_fabric_run_work);
	th_list_init(&vp->parked);
	INIT_DELAYED_WORK(&vp->park_work, th_fabric_park_work);

	mutex_lock(&node->lock);
	/* the user's share of this node first: a quota, not a full node */
	if (th_vport_node_cap_applies() &&
	    !th_vport_user_fits(node, vp->user)) {
		ret = -EDQUOT;
		goto err_unlock;
	}
	for (i = 0; i < lim->max_vports; i++) {
		slot = th_fabric_slot(fab, node->id, i);
		if (!rcu_access_pointer(*slot))
			break;
	}
	if (i == lim->max_vports) {
		ret = -ENOSPC;
		goto err_unlock;
	}
	ret = th_eng_vport_init(&vp->ev, &fab->eng, node->id, i, &vp->cfg,
				vp->regions[TH_REGION_SQ].mem,
				vp->regions[TH_REGION_CQ].mem,
				vp->regions[TH_REGION_CT].mem,
				th_vport_domain_id(vp), &vp->user->acct);
	if (ret)
		goto err_unlock;
	mutex_lock(&tf->lock);
	list_add_tail(&vp->file_link, &tf->vports);
	mutex_unlock(&tf->lock);
	/* visible to peers only once complete */
	rcu_assign_pointer(*slot, vp);
	mutex_unlock(&node->lock);

	th_vport_describe(vp, req);
	th_netlink_vport_event(vp, TH_NL_EVENT_VPORT_NEW, 0);
	return 0;

err_unlock:
	mutex_unlock(&node->lock);
	put_pid(vp->pid);
	th_vport_free_regions(vp);
err_put_user:
	th_fabric_user_put(fab, vp->user);
err_put_domain:
	if (vp->domain)
		th_domain_put(vp->domain);
err_free_vp:
	kfree(vp);
	return ret;
}

/*
 * Take a vport that its owner no longer lists down: unpublish it, then the
 * engine's teardown (cancel what is pending, so peers see the failures;
 * wait until no peer holds it and none of its chains runs; release its
 * MRs), and free it after concurrent RCU lookups are done.  Its mappings
 * keep their pages until unmapped (struct th_ring_mem).
 */
static void th_vport_teardown(struct th_nic_vport *vp)
{
	struct th_node *node = vp->owner->node;
	struct th_fabric *fab = node->fab;

	mutex_lock(&node->lock);
	RCU_INIT_POINTER(*th_fabric_slot(fab, node->id, vp->ev.index), NULL);
	mutex_unlock(&node->lock);

	th_eng_vport_destroy(&vp->ev);
	th_netlink_vport_event(vp, TH_NL_EVENT_VPORT_DEL, 0);
	th_vport_free_regions(vp);
	put_pid(vp->pid);
	th_fabric_user_put(fab, vp->user);
	if (vp->domain)
		th_domain_put(vp->domain);
	kfree_rcu(vp, rcu);
}

int th_vport_destroy(struct th_file *tf, u32 index)
{
	struct th_nic_vport *vp, *found = NULL;

	mutex_lock(&tf->lock);
	list_for_each_entry(vp, &tf->vports, file_link) {
		if (vp->ev.index == index) {
			list_del(&vp->file_link);
			found = vp;
			break;
		}
	}
	mutex_unlock(&tf->lock);
	if (!found)
		return -EINVAL;
	th_vport_teardown(found);
	return 0;
}

void th_vport_destroy_all(struct th_file *tf)
{
	struct th_nic_vport *vp, *tmp;
	LIST_HEAD(doomed);

	mutex_lock(&tf->lock);
	list_splice_init(&tf->vports, &doomed);
	mutex_unlock(&tf->lock);
	list_for_each_entry_safe(vp, tmp, &doomed, file_link) {
		list_del(&vp->file_link);
		th_vport_teardown(vp);
	}
}
