/* SPDX-License-Identifier: GPL-2.0 */
/*
 * th_drv.h - th_nic.ko's private structures: the fabric, its nodes, users
 * and domains, an open node file, a vport, a mappable region and a pinned
 * memory region.
 */
#ifndef TH_NIC_PRIV_H
#define TH_NIC_PRIV_H

#include <linux/cdev.h>
#include <linux/completion.h>
#include <linux/cred.h>
#include <linux/device.h>
#include <linux/hashtable.h>
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
enum th_ring_mem_id {
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

#define TH_USERS_HASH_BITS	6

/**
 * struct th_fabric - every node of the module and what joins them
 * @eng: the trigger engine, with the module parameters as limits
 * @nodes: @eng.lim.nodes nodes
 * @vports: node * max_vports + index; published under the node's lock,
 *	looked up under RCU
 * @users_lock: protects @users and every user's @refs
 * @users: struct th_user by uid
 * @wq: runs deferred chains: one work item per vport with work, at most
 *	@user_turns of one user's queued at once (th_fabric.c)
 * @user_turns: that bound: the workqueue's max_active
 * @devt: first device number
 * @class: the device class (sysfs, udev)
 */
struct th_fabric {
	struct th_eng eng;
	struct th_node *nodes;
	struct th_nic_vport __rcu **vports;
	/* protects users and every user's refs; sleeps (allocation) */
	struct mutex users_lock;
	DECLARE_HASHTABLE(users, TH_USERS_HASH_BITS);
	struct workqueue_struct *wq;
	unsigned int user_turns;
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
 * struct th_nic_domain - a set of vports that may reach each other
 * @ref: one per holder: the domain file, each vport in it
 * @id: a label management shows (netlink), unique while the module is
 *	loaded; never a way in: joining takes the domain's descriptor
 *
 * Its address is the identity the engine compares.  A user's default
 * domain is embedded in struct th_user instead.
 */
struct th_nic_domain {
	struct kref ref;
	u64 id;
};

/**
 * struct th_user - one (effective) user of the fabric
 * @link: in th_fabric.users
 * @uid: who
 * @refs: vports created by this user that exist; freed at 0
 * @acct: what the user holds, for the per-user limits
 * @domain: the domain of the user's vports created without a domain fd
 * @sched_lock: protects @waiting, @turns and its vports' @sched_state and
 *	@sched_link; taken in execution contexts, never sleeps
 * @waiting: its vports with deferred work whose turn has not come
 * @turns: its vports' work items queued on the fabric's workqueue or
 *	running, at most th_fabric.user_turns
 */
struct th_user {
	struct hlist_node link;
	kuid_t uid;
	unsigned int refs;
	struct th_eng_user acct;
	struct th_nic_domain domain;
	/* protects waiting, turns, sched_state and sched_link; never sleeps */
	spinlock_t sched_lock;
	struct list_head waiting;
	unsigned int turns;
};

/* struct th_nic_vport.sched_state: where its deferred work stands */
enum {
	TH_SCHED_IDLE,		/* none, or none yet seen: no turn held */
	TH_SCHED_WAITING,	/* on its user's @waiting list */
	TH_SCHED_QUEUED,	/* its @run_work queued or running: a turn */
};

/**
 * struct th_file - one open file of a node; owns the vports created on it
 * @node: the node
 * @lock: protects @vports
 * @vports: struct th_nic_vport.file_link
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
 * struct th_ring_mem - memory mapped to userspace: a ring or the counters
 * @pages: its pages, allocated one by one and charged to the creator's
 *	memory cgroup; a mapping takes its own page references, so the
 *	memory outlives the vport until the last munmap
 * @npages: how many
 * @mem: their contiguous kernel mapping (vmap)
 * @size: bytes, @npages pages
 * @readonly: refuse writable mappings (the counter page)
 */
struct th_ring_mem {
	struct page **pages;
	unsigned long npages;
	void *mem;
	size_t size;
	bool readonly;
};

/**
 * struct th_nic_vport - a vport: engine state plus what the kernel adds
 * @ev: the engine's state
 * @owner: the file that created it
 * @file_link: in @owner->vports
 * @user: the user that created it, charged for it
 * @domain: the domain it joined by descriptor, or NULL for @user's own
 * @refs: one for the fabric table, one per user (ioctl, peer operation)
 * @wq: CT_WAIT, deregistration and teardown waiters
 * @defer_lock: protects @deferred, @parked, @park_next and @unparking;
 *	taken in execution contexts
 * @deferred: chains an execution context handed over past its budget
 * @run_work: runs @deferred on the fabric's workqueue, one budget per turn
 * @sched_state: TH_SCHED_*, under @user's sched_lock
 * @sched_link: in @user's waiting list while TH_SCHED_WAITING
 * @parked: chains fault injection holds back, each until its due time
 *	(th_eng_chain_due(), ktime ns)
 * @park_work: moves the parked chains whose time came to @deferred
 * @park_next: when @park_work is set to run (0: not set)
 * @unparking: being destroyed: chains parked from now on run at once
 * @regions: SQ, CQ and counter memory
 * @cfg: ring sizes and layouts
 * @pid: the process that created it (management shows it)
 * @rcu: frees the vport after concurrent RCU lookups are done
 */
struct th_nic_vport {
	struct th_eng_vport ev;
	struct th_file *owner;
	struct list_head file_link;
	struct th_user *user;
	struct th_nic_domain *domain;
	refcount_t refs;
	wait_queue_head_t wq;
	/* protects deferred; taken from execution contexts, never sleeps */
	spinlock_t defer_lock;
	struct th_list deferred;
	struct work_struct run_work;
	unsigned int sched_state;
	struct list_head sched_link;
	struct th_list parked;
	struct delayed_work park_work;
	u64 park_next;
	bool unparking;
	struct th_ring_mem regions[TH_REGION_NR];
	struct th_eng_vport_config cfg;
	struct pid *pid;
	struct rcu_head rcu;
};

/**
 * struct th_pinned_mr - user memory pinned behind an engine MR
 * @pages: the pinned pages
 * @npages: how many
 * @vaddr: their kernel mapping (vmap)
 * @user: the user charged (locked_vm, RLIMIT_MEMLOCK), or NULL when it
 *	had CAP_IPC_LOCK
 * @mm: the registering process's mm, whose pinned_vm shows the pages
 * @writable: pinned for writing
 */
struct th_pinned_mr {
	struct page **pages;
	unsigned long npages;
	void *vaddr;
	struct user_struct *user;
	struct mm_struct *mm;
	bool writable;
};

static inline struct th_nic_vport *th_vport_from_ev(struct th_eng_vport *ev)
{
	return container_of(ev, struct th_nic_vport, ev);
}

#endif /* TH_NIC_PRIV_H */
