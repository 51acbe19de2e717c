// SPDX-License-Identifier: GPL-2.0
/*
 * th_pinned_mr.c - memory registration: user pages pinned (FOLL_LONGTERM) and
 * mapped contiguously in the kernel (vmap) behind an engine MR, charged to
 * the registering user against RLIMIT_MEMLOCK until they are unpinned,
 * whichever process closes the vport (io_uring's rule: a short-lived child
 * must not take the charge away with its mm).
 */
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "th_loc.h"

/*
 * Charge @npages to the caller's user, refusing past RLIMIT_MEMLOCK,
 * unless it may lock memory anyway (CAP_IPC_LOCK).  The pages also show
 * in the registering mm's pinned_vm, for the record.
 */
static int th_pinned_mr_charge(struct th_pinned_mr *umr)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	struct user_struct *user;
	unsigned long cur, next;

	if (!capable(CAP_IPC_LOCK)) {
		user = current_user();
		cur = atomic_long_read(&user->locked_vm);
		do {
			next = cur + umr->npages;
			if (next > limit || next < cur)
				return -ENOMEM;
		} while (!atomic_long_try_cmpxchg(&user->locked_vm, &cur, next));
		umr->user = get_uid(user);
	}
	umr->mm = current->mm;
	mmgrab(umr->mm);
	atomic64_add(umr->npages, &umr->mm->pinned_vm);
	return 0;
}

static void th_pinned_mr_uncharge(struct th_pinned_mr *umr)
{
	if (umr->user) {
		atomic_long_sub(umr->npages, &umr->user->locked_vm);
		free_uid(umr->user);
	}
	if (umr->mm) {
		atomic64_sub(umr->npages, &umr->mm->pinned_vm);
		mmdrop(umr->mm);
	}
}

static void th_pinned_mr_release(struct th_pinned_mr *umr, unsigned long pinned)
{
	if (umr->vaddr)
		vunmap(umr->vaddr);
	if (pinned)
		unpin_user_pages_dirty_lock(umr->pages, pinned, umr->writable);
	th_pinned_mr_uncharge(umr);
	kvfree(umr->pages);
	kfree(umr);
}

/* The engine's MR is gone and nothing uses the pages: unpin, uncharge. */
void th_pinned_mr_free(struct th_pinned_mr *umr)
{
	th_pinned_mr_release(umr, umr->npages);
}

static int th_pinned_mr_pin(struct th_pinned_mr *umr, unsigned long start,
			    bool write, unsigned long *pinned)
{
	unsigned int gup = FOLL_LONGTERM | (write ? FOLL_WRITE : 0);
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

int th_pinned_mr_reg(struct th_nic_vport *vp, struct th_nic_mr_reg *req)
{
	struct th_pinned_mr *umr;
	unsigned long start, pinned = 0;
	u32 lkey;
	u64 rkey;
	int ret;

	ret = th_eng_cmd_mr_check(vp->ev.eng, req);
	if (ret)
		return ret;
	if (req->addr + req->length > TASK_SIZE)
		return -EFAULT;		/* not user memory */

	umr = kzalloc(sizeof(*umr), TH_GFP_USER);
	if (!umr)
		return -ENOMEM;
	start = req->addr & PAGE_MASK;
	umr->npages = (PAGE_ALIGN(req->addr + req->length) - start) >> PAGE_SHIFT;
	umr->writable = req->access & (TH_NIC_ACCESS_LOCAL_WRITE |
				       TH_NIC_ACCESS_REMOTE_WRITE);
	ret = th_pinned_mr_charge(umr);
	if (ret) {
		kfree(umr);
		return ret;
	}
	umr->pages = kvmalloc_array(umr->npages, sizeof(*umr->pages),
				    TH_GFP_USER);
	if (!umr->pages) {
		ret = -ENOMEM;
		goto err_release;
	}
	/*
	 * Pin for writing even a region the NIC will only read, where the
	 * mapping allows it: a read-only pin of a page never written yet
	 * would pin the shared zero page, and the owner's first write would
	 * then go to a copy the NIC never sees.  A mapping that cannot be
	 * written (a read-only file) cannot diverge: pin it for reading.
	 */
	ret = th_pinned_mr_pin(umr, start, true, &pinned);
	if (ret == -EFAULT && !umr->writable) {
		unpin_user_pages(umr->pages, pinned);
		pinned = 0;
		ret = th_pinned_mr_pin(umr, start, false, &pinned);
	}
	if (ret)
		goto err_release;
	umr->vaddr = vmap(umr->pages, umr->npages, VM_MAP, PAGE_KERNEL);
	if (!umr->vaddr) {
		ret = -ENOMEM;
		goto err_release;
	}
	ret = th_eng_mr_add(&vp->ev, req->addr, req->length, req->access,
			    (u8 *)umr->vaddr + offset_in_page(req->addr), umr,
			    &lkey, &rkey);
	if (ret)
		goto err_release;
	req->lkey = lkey;
	req->rkey = rkey;
	return 0;

err_release:
	th_pinned_mr_release(umr, pinned);
	return ret;
}
