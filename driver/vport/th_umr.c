// SPDX-License-Identifier: GPL-2.0
/*
 * th_umr.c - memory registration: user pages pinned (FOLL_LONGTERM) and
 * mapped contiguously in the kernel (vmap) behind an engine MR key, with
 * pinned_vm accounting against RLIMIT_MEMLOCK, and deregistration that
 * waits for the operations using the region.
 */
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "th_loc.h"

static void th_umr_free(struct th_umr *umr, unsigned long pinned)
{
	if (umr->vaddr)
		vunmap(umr->vaddr);
	if (pinned)
		unpin_user_pages_dirty_lock(umr->pages, pinned, umr->writable);
	atomic64_sub(umr->npages, &umr->mm->pinned_vm);
	mmdrop(umr->mm);
	kvfree(umr->pages);
	kfree(umr);
}

/* Charge @npages to the caller's pinned_vm, as RDMA drivers do. */
static int th_umr_charge(struct mm_struct *mm, unsigned long npages)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	s64 now = atomic64_add_return(npages, &mm->pinned_vm);

	if (now > limit && !capable(CAP_IPC_LOCK)) {
		atomic64_sub(npages, &mm->pinned_vm);
		return -ENOMEM;
	}
	return 0;
}

static int th_umr_pin(struct th_umr *umr, unsigned long start,
		      unsigned long *pinned)
{
	unsigned int gup = FOLL_LONGTERM | (umr->writable ? FOLL_WRITE : 0);
	long got;

	while (*pinned < umr->npages) {
		got = pin_user_pages_fast(start + (*pinned << PAGE_SHIFT),
					  umr->npages - *pinned, gup,
					  umr->pages + *pinned);
		if (got <= 0)
			return got ? got : -EFAULT;
		*pinned += got;
		if (fatal_signal_pending(current))
			return -EINTR;
	}
	return 0;
}

int th_umr_reg(struct th_vport *vp, struct th_nic_mr_reg *req)
{
	struct th_umr *umr;
	unsigned long start, pinned = 0;
	u64 end;
	u32 key;
	int ret;

	if (req->flags || req->rsvd0 || req->rsvd[0] || req->rsvd[1])
		return -EINVAL;
	ret = th_eng_mr_check_new(vp->ev.eng, req->length, req->access);
	if (ret)
		return ret;
	if (check_add_overflow(req->addr, req->length, &end))
		return -EINVAL;
	if (end > TASK_SIZE)
		return -EFAULT;		/* not user memory */

	umr = kzalloc(sizeof(*umr), GFP_KERNEL);
	if (!umr)
		return -ENOMEM;
	start = req->addr & PAGE_MASK;
	umr->npages = (PAGE_ALIGN(end) - start) >> PAGE_SHIFT;
	umr->writable = req->access & (TH_NIC_ACCESS_LOCAL_WRITE |
				       TH_NIC_ACCESS_REMOTE_WRITE);
	umr->mm = current->mm;
	mmgrab(umr->mm);
	ret = th_umr_charge(umr->mm, umr->npages);
	if (ret) {
		mmdrop(umr->mm);
		kfree(umr);
		return ret;
	}
	umr->pages = kvmalloc_array(umr->npages, sizeof(*umr->pages), GFP_KERNEL);
	if (!umr->pages) {
		ret = -ENOMEM;
		goto err_free;
	}
	ret = th_umr_pin(umr, start, &pinned);
	if (ret)
		goto err_free;
	umr->vaddr = vmap(umr->pages, umr->npages, VM_MAP, PAGE_KERNEL);
	if (!umr->vaddr) {
		ret = -ENOMEM;
		goto err_free;
	}
	ret = th_eng_mr_add(&vp->ev, req->addr, req->length, req->access,
			    (u8 *)umr->vaddr + offset_in_page(req->addr), umr,
			    &key);
	if (ret)
		goto err_free;
	req->key = key;
	return 0;

err_free:
	th_umr_free(umr, pinned);
	return ret;
}

/* Stop new lookups, wait for operations in flight, then unpin. */
int th_umr_dereg(struct th_vport *vp, u32 key)
{
	struct th_umr *umr;
	int ret;

	ret = th_eng_mr_kill(&vp->ev, key);
	if (ret)
		return ret;
	wait_event(vp->wq, !th_eng_mr_busy(&vp->ev, key));
	umr = th_eng_mr_release(&vp->ev, key);
	if (umr)
		th_umr_free(umr, umr->npages);
	return 0;
}

/* Teardown of an idle, dead vport: nothing uses its MRs any more. */
void th_umr_release_all(struct th_vport *vp)
{
	u32 i, key;
	struct th_umr *umr;

	for (i = 0; i < vp->ev.eng->lim.max_mrs; i++) {
		key = vp->ev.mrs[i].key;
		if (!key)
			continue;
		umr = th_eng_mr_release(&vp->ev, key);
		if (umr)
			th_umr_free(umr, umr->npages);
	}
}
