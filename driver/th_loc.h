/* SPDX-License-Identifier: GPL-2.0 */
/*
 * th_loc.h - prototypes shared between th_nic.ko's files, grouped by the
 * file that defines them.
 */
#ifndef TH_LOC_H
#define TH_LOC_H

#include <linux/fs.h>
#include <linux/mm_types.h>

#include "th_compat_kernel.h"
#include "th_drv.h"
#include "linux/th_nic_netlink.h"

/* th_fabric.c */
struct th_fabric *th_fabric_create(const struct th_eng_limits *lim);
void th_fabric_destroy(struct th_fabric *fab);
struct th_nic_vport __rcu **th_fabric_slot(struct th_fabric *fab, u32 node,
					   u32 index);
struct th_user *th_fabric_user_get(struct th_fabric *fab);
void th_fabric_user_put(struct th_fabric *fab, struct th_user *user);
void th_fabric_run_work(struct work_struct *work);
void th_fabric_park_work(struct work_struct *work);

/* th_dev.c */
int th_dev_register(struct th_fabric *fab);
void th_dev_unregister(struct th_fabric *fab);

/* th_domain.c */
struct file *th_domain_create(struct th_nic_domain_create *req);
void th_domain_publish(struct th_nic_domain_create *req, struct file *file,
		       bool answered);
struct th_nic_domain *th_domain_from_fd(int fd);
void th_domain_put(struct th_nic_domain *dom);
u64 th_domain_next_id(void);

/* th_netlink.c */
int th_netlink_register(struct th_fabric *fab);
void th_netlink_unregister(void);
void th_netlink_vport_event(struct th_nic_vport *vp, u8 event, int err);

/* th_ioctl.c */
long th_ioctl(struct th_file *tf, unsigned int cmd, void __user *arg);

/* vport/th_vport.c */
int th_vport_create(struct th_file *tf, struct th_nic_vport_create *req);
int th_vport_destroy(struct th_file *tf, u32 index);
void th_vport_destroy_all(struct th_file *tf);
struct th_nic_vport *th_vport_lookup(struct th_file *tf, u32 index);
void th_vport_put(struct th_nic_vport *vp);

/* vport/th_ring_mem.c */
int th_ring_mem_alloc(struct th_ring_mem *r, size_t bytes, bool readonly);
void th_ring_mem_free(struct th_ring_mem *r);
int th_ring_mem_mmap(struct th_ring_mem *r, struct vm_area_struct *vma);

/* vport/th_pinned_mr.c */
int th_pinned_mr_reg(struct th_nic_vport *vp, struct th_nic_mr_reg *req);
void th_pinned_mr_free(struct th_pinned_mr *umr);

#endif /* TH_LOC_H */
