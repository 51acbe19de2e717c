// SPDX-License-Identifier: GPL-2.0
/*
 * th_region.c - memory a vport shares with userspace (SQ, CQ, counters):
 * allocated with vmalloc_user(), mapped with remap_vmalloc_range(), and
 * refcounted by every VMA so that it outlives neither its vport's users nor
 * its mappings.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "th_loc.h"

struct th_region *th_region_alloc(size_t size, bool readonly)
{
	struct th_region *r = kzalloc(sizeof(*r), GFP_KERNEL);

	if (!r)
		return NULL;
	r->mem = vmalloc_user(size);
	if (!r->mem) {
		kfree(r);
		return NULL;
	}
	kref_init(&r->ref);
	r->size = size;
	r->readonly = readonly;
	return r;
}

static void th_region_release(struct kref *ref)
{
	struct th_region *r = container_of(ref, struct th_region, ref);

	vfree(r->mem);
	kfree(r);
}

void th_region_put(struct th_region *r)
{
	kref_put(&r->ref, th_region_release);
}

static void th_region_vm_open(struct vm_area_struct *vma)
{
	struct th_region *r = vma->vm_private_data;

	kref_get(&r->ref);
}

static void th_region_vm_close(struct vm_area_struct *vma)
{
	th_region_put(vma->vm_private_data);
}

static const struct vm_operations_struct th_region_vm_ops = {
	.open	= th_region_vm_open,
	.close	= th_region_vm_close,
};

int th_region_mmap(struct th_region *r, struct vm_area_struct *vma)
{
	int ret;

	if (vma->vm_end - vma->vm_start > r->size)
		return -EINVAL;
	if (r->readonly) {
		if (vma->vm_flags & VM_WRITE)
			return -EPERM;
		/* and mprotect() may not make it writable later */
		vma->vm_flags &= ~VM_MAYWRITE;
	}
	ret = remap_vmalloc_range(vma, r->mem, 0);
	if (ret)
		return ret;
	vma->vm_private_data = r;
	vma->vm_ops = &th_region_vm_ops;
	th_region_vm_open(vma);
	return 0;
}
