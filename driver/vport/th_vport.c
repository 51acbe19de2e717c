// SPDX-License-Identifier: GPL-2.0
/*
 * th_vport.c - vport lifetime: creation on an open file, publication on the
 * fabric, lookup by the owner, and teardown that cancels what is pending,
 * waits for what runs and for peers using it, then frees.
 */
#include <linux/mm.h>
#include <linux/slab.h>

#include "th_loc.h"

void th_vport_put(struct th_vport *vp)
{
	if (refcount_dec_and_test(&vp->refs))
		complete(&vp->released);
}

/* A vport of @tf by index, referenced; NULL if @tf has no such vport. */
struct th_vport *th_vport_lookup(struct th_file *tf, u32 index)
{
	struct th_vport *vp, *found = NULL;

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

static void th_vport_free_regions(struct th_vport *vp)
{
	int i;

	for (i = 0; i < TH_REGION_NR; i++)
		if (vp->regions[i])
			th_region_put(vp->regions[i]);
}

static int th_vport_alloc_regions(struct th_vport *vp, const struct th_eng_limits *lim)
{
	size_t sq, cq, ct;

	sq = th_eng_ring_layout(vp->sq_entries, sizeof(struct th_nic_desc),
				&vp->sq_off);
	cq = th_eng_ring_layout(vp->cq_entries, sizeof(struct th_nic_cqe),
				&vp->cq_off);
	ct = (size_t)lim->max_counters * sizeof(struct th_nic_ct);
	vp->regions[TH_REGION_SQ] = th_region_alloc(PAGE_ALIGN(sq), false);
	vp->regions[TH_REGION_CQ] = th_region_alloc(PAGE_ALIGN(cq), false);
	vp->regions[TH_REGION_CT] = th_region_alloc(PAGE_ALIGN(ct), true);
	if (!vp->regions[TH_REGION_SQ] || !vp->regions[TH_REGION_CQ] ||
	    !vp->regions[TH_REGION_CT]) {
		th_vport_free_regions(vp);
		return -ENOMEM;
	}
	return 0;
}

static void th_vport_describe(struct th_vport *vp, struct th_nic_vport_create *req)
{
	u32 index = vp->ev.index;

	req->vport = index;
	req->sq_entries = vp->sq_entries;
	req->cq_entries = vp->cq_entries;
	req->ct_count = vp->ev.eng->lim.max_counters;
	req->sq_off = vp->sq_off;
	req->cq_off = vp->cq_off;
	req->sq_mmap_offset = TH_MMAP_OFFSET(index, TH_REGION_SQ);
	req->cq_mmap_offset = TH_MMAP_OFFSET(index, TH_REGION_CQ);
	req->ct_mmap_offset = TH_MMAP_OFFSET(index, TH_REGION_CT);
	req->sq_mmap_size = vp->regions[TH_REGION_SQ]->size;
	req->cq_mmap_size = vp->regions[TH_REGION_CQ]->size;
	req->ct_mmap_size = vp->regions[TH_REGION_CT]->size;
}

int th_vport_create(struct th_file *tf, struct th_nic_vport_create *req)
{
	struct th_node *node = tf->node;
	struct th_fabric *fab = node->fab;
	const struct th_eng_limits *lim = &fab->eng.lim;
	struct th_vport __rcu **slot = NULL;
	struct th_vport *vp;
	u32 i;
	int ret;

	vp = kzalloc(sizeof(*vp), GFP_KERNEL);
	if (!vp)
		return -ENOMEM;
	vp->sq_entries = req->sq_entries ? req->sq_entries : lim->max_sq_entries;
	vp->cq_entries = req->cq_entries ? req->cq_entries : lim->max_cq_entries;
	if (!th_eng_ring_size_valid(vp->sq_entries, lim->max_sq_entries) ||
	    !th_eng_ring_size_valid(vp->cq_entries, lim->max_cq_entries) ||
	    vp->sq_entries < lim->max_chain) {
		ret = -EINVAL;
		goto err_free_vp;
	}
	ret = th_vport_alloc_regions(vp, lim);
	if (ret)
		goto err_free_vp;
	vp->owner = tf;
	refcount_set(&vp->refs, 1);	/* the fabric table's */
	init_completion(&vp->released);
	init_waitqueue_head(&vp->wq);
	mutex_init(&vp->sq_mutex);

	mutex_lock(&node->lock);
	for (i = 0; i < lim->max_vports; i++) {
		slot = th_fabric_slot(fab, node->id, i);
		if (!rcu_access_pointer(*slot))
			break;
	}
	if (i == lim->max_vports) {
		ret = -ENOSPC;
		goto err_unlock;
	}
	ret = th_eng_vport_init(&vp->ev, &fab->eng, node->id, i,
				vp->regions[TH_REGION_SQ]->mem, vp->sq_entries,
				vp->regions[TH_REGION_CQ]->mem, vp->cq_entries,
				vp->regions[TH_REGION_CT]->mem);
	if (ret)
		goto err_unlock;
	mutex_lock(&tf->lock);
	list_add_tail(&vp->file_link, &tf->vports);
	mutex_unlock(&tf->lock);
	/* visible to peers only once complete */
	rcu_assign_pointer(*slot, vp);
	mutex_unlock(&node->lock);

	th_vport_describe(vp, req);
	return 0;

err_unlock:
	mutex_unlock(&node->lock);
	th_vport_free_regions(vp);
err_free_vp:
	kfree(vp);
	return ret;
}

/*
 * Take a vport that its owner no longer lists down: unpublish it, cancel
 * its pending chains (their peers see the failures), wait until no peer
 * holds it and none of its chains runs, release its MRs, and free it after
 * concurrent RCU lookups are done.  Its mappings keep their memory until
 * unmapped (struct th_region).
 */
static void th_vport_teardown(struct th_vport *vp)
{
	struct th_node *node = vp->owner->node;
	struct th_fabric *fab = node->fab;
	struct th_eng_ctx ctx;

	mutex_lock(&node->lock);
	RCU_INIT_POINTER(*th_fabric_slot(fab, node->id, vp->ev.index), NULL);
	mutex_unlock(&node->lock);

	th_eng_ctx_init(&ctx, &fab->eng);
	th_eng_vport_kill(&vp->ev, &ctx);
	th_eng_ctx_run(&ctx);

	th_vport_put(vp);
	wait_for_completion(&vp->released);
	wait_event(vp->wq, th_eng_vport_idle(&vp->ev));

	th_umr_release_all(vp);
	th_eng_vport_fini(&vp->ev);
	th_vport_free_regions(vp);
	mutex_destroy(&vp->sq_mutex);
	kfree_rcu(vp, rcu);
}

int th_vport_destroy(struct th_file *tf, u32 index)
{
	struct th_vport *vp, *found = NULL;

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
	struct th_vport *vp, *tmp;
	LIST_HEAD(doomed);

	mutex_lock(&tf->lock);
	list_splice_init(&tf->vports, &doomed);
	mutex_unlock(&tf->lock);
	list_for_each_entry_safe(vp, tmp, &doomed, file_link) {
		list_del(&vp->file_link);
		th_vport_teardown(vp);
	}
}
