// SPDX-License-Identifier: GPL-2.0
/*
 * th_ring_mem.c - memory a vport shares with userspace (SQ, CQ, counters):
 * pages allocated one by one and charged to the creating process's memory
 * cgroup, mapped contiguously for the kernel (vmap) and inserted into
 * MAP_SHARED mappings of the node file.  A mapping holds its own
 * references on the pages, so they outlive the vport until the last
 * munmap, and the file the mapping holds keeps the module loaded.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "th_loc.h"

static void th_ring_mem_free_pages(struct th_ring_mem *r, unsigned long n)
{
	while (n--)
		__free_page(r->pages[n]);
	kvfree(r->pages);
	r->pages = NULL;
}

/* @bytes rounded up to pages, zeroed; 0 or -ENOMEM. */
int th_ring_mem_alloc(struct th_ring_mem *r, size_t bytes, bool readonly)
{
	unsigned long i;

	r->npages = PAGE_ALIGN(bytes) >> PAGE_SHIFT;
	r->size = r->npages << PAGE_SHIFT;
	r->readonly = readonly;
	r->pages = kvcalloc(r->npages, sizeof(*r->pages), TH_GFP_USER);
	if (!r->pages)
		return -ENOMEM;
	for (i = 0; i < r->npages; i++) {
		r->pages[i] = alloc_page(TH_GFP_USER | __GFP_ZERO);
		if (!r->pages[i])
			goto err_free;
	}
	r->mem = vmap(r->pages, r->npages, VM_MAP, PAGE_KERNEL);
	if (!r->mem)
		goto err_free;
	return 0;

err_free:
	th_ring_mem_free_pages(r, i);
	return -ENOMEM;
}

/* Drop the vport's hold; pages still mapped live until their munmap. */
void th_ring_mem_free(struct th_ring_mem *r)
{
	if (!r->pages)
		return;
	vunmap(r->mem);
	r->mem = NULL;
	th_ring_mem_free_pages(r, r->npages);
}

/*
 * MAP_SHARED only: a private mapping would give userspace copy-on-write
 * pages the NIC never sees.  The counter page only ever read-only.
 */
int th_ring_mem_mmap(struct th_ring_mem *r, struct vm_area_struct *vma)
{
	unsigned long pages = vma_pages(vma);

	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (pages > r->npages)
		return -EINVAL;
	if (r->readonly) {
		if (vma->vm_flags & VM_WRITE)
			return -EPERM;
		/* and mprotect() may not make it writable later */
		th_vm_flags_clear(vma, VM_MAYWRITE);
	}
	th_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	return vm_insert_pages(vma, vma->vm_start, r->pages, &pages);
}
