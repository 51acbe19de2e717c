/* SPDX-License-Identifier: GPL-2.0 */
/*
 * th_nic.h - th_nic.ko's private structures: the fabric, its nodes, an open
 * node file, a vport, a mappable region and a pinned memory region.
 */
#ifndef TH_NIC_PRIV_H
#define TH_NIC_PRIV_H

#include <linux/cdev.h>
#include <linux/completion.h>
#include <linux/device.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "th_engine.h"

/* The mappable regions of a vport, in mmap offset order. */
enum th_region_id {
	TH_REGION_SQ,
	TH_REGION_CQ,
	TH_REGION_CT,
	TH_REGION_NR
};

/*
 * mmap offsets: vport index in bits 36 and up, region in bits 32-35, the
 * rest zero; page aligned, and distinct for every vport of a node.
 */
#define TH_MMAP_VPORT_SHIFT	36
#define TH_MMAP_REGION_SHIFT	32
#define TH_MMAP_OFFSET(vport, region) \
	(((u64)(vport) << TH_MMAP_VPORT_SHIFT) | \
	 ((u64)(region) << TH_MMAP_REGION_SHIFT))

/**
 * struct th_fabric - every node of the module and what joins them
 * @eng: the trigger engine, with the module parameters as limits
 * @nodes: @eng.lim.nodes nodes
 * @vports: node * max_vports + index; published under the node's lock,
 *	looked up under RCU
 * @defer_lock: protects @deferred; taken in execution contexts, never sleeps
 * @deferred: fired chains a context handed over when out of budget
 * @defer_work: runs @deferred on @wq
 * @wq: the fabric's workqueue
 * @devt: first device number
 * @class: the device class (sysfs, udev)
 */
struct th_fabric {
	struct th_eng eng;
	struct th_node *nodes;
	struct th_vport __rcu **vports;
	/* protects deferred; taken from execution contexts, never sleeps */
	spinlock_t defer_lock;
	struct th_list deferred;
	struct work_struct defer_work;
	struct workqueue_struct *wq;
	dev_t devt;
	struct class *class;
};

/**
 * struct th_node - one emulated NIC, /dev/th_nic<id>
 * @fab: the fabric
 * @id: fabric address
 * @cdev: the character device
 * @dev: its device
 * @lock: serialises vport slot allocation and release on this node
 */
struct th_node {
	struct th_fabric *fab;
	u32 id;
	struct cdev cdev;
	struct device *dev;
	/* serialises vport slot allocation and release on this node */
	struct mutex lock;
};

/**
 * struct th_file - one open file of a node; owns the vports created on it
 * @node: the node
 * @lock: protects @vports
 * @vports: struct th_vport.file_link
 * @poll_wq: poll(2) waiters; woken by every vport of the file
 */
struct th_file {
	struct th_node *node;
	/* protects vports; never held across engine calls */
	struct mutex lock;
	struct list_head vports;
	wait_queue_head_t poll_wq;
};

/**
 * struct th_region - memory mapped to userspace: a ring or the counters
 * @ref: one for the vport, one per VMA; freed with the last
 * @mem: vmalloc_user() memory
 * @size: bytes, a page multiple
 * @readonly: refuse writable mappings (the counter page)
 */
struct th_region {
	struct kref ref;
	void *mem;
	size_t size;
	bool readonly;
};

/**
 * struct th_vport - a vport: engine state plus what the kernel adds
 * @ev: the engine's state
 * @owner: the file that created it
 * @file_link: in @owner->vports
 * @refs: one for the fabric table, one per user (ioctl, peer operation)
 * @released: completed when @refs drops to zero
 * @wq: CT_WAIT, deregistration and teardown waiters
 * @sq_mutex: serialises doorbells (the engine's rule)
 * @regions: SQ, CQ and counter memory
 * @sq_off: SQ layout
 * @cq_off: CQ layout
 * @sq_entries: SQ slots
 * @cq_entries: CQ entries
 * @rcu: frees the vport after concurrent RCU lookups are done
 */
struct th_vport {
	struct th_eng_vport ev;
	struct th_file *owner;
	struct list_head file_link;
	refcount_t refs;
	struct completion released;
	wait_queue_head_t wq;
	/* serialises doorbells: the engine's SQ head and scratch area */
	struct mutex sq_mutex;
	struct th_region *regions[TH_REGION_NR];
	struct th_nic_ring_offsets sq_off;
	struct th_nic_ring_offsets cq_off;
	u32 sq_entries;
	u32 cq_entries;
	struct rcu_head rcu;
};

/**
 * struct th_umr - user memory pinned behind an engine MR
 * @pages: the pinned pages
 * @npages: how many
 * @vaddr: their kernel mapping (vmap)
 * @mm: the registering process's mm, for pinned_vm accounting
 * @writable: pinned for writing
 */
struct th_umr {
	struct page **pages;
	unsigned long npages;
	void *vaddr;
	struct mm_struct *mm;
	bool writable;
};

static inline struct th_vport *th_vport_from_ev(struct th_eng_vport *ev)
{
	return container_of(ev, struct th_vport, ev);
}

#endif /* TH_NIC_PRIV_H */
