/* SPDX-License-Identifier: GPL-2.0 */
/*
 * th_loc.h - prototypes shared between th_nic.ko's files, grouped by the
 * file that defines them.
 */
#ifndef TH_LOC_H
#define TH_LOC_H

#include <linux/fs.h>
#include <linux/mm_types.h>

#include "th_nic.h"

/* th_fabric.c */
struct th_fabric *th_fabric_create(const struct th_eng_limits *lim);
void th_fabric_destroy(struct th_fabric *fab);
struct th_vport __rcu **th_fabric_slot(struct th_fabric *fab, u32 node,
				       u32 index);

/* th_dev.c */
int th_dev_register(struct th_fabric *fab);
void th_dev_unregister(struct th_fabric *fab);

/* vport/th_vport.c */
int th_vport_create(struct th_file *tf, struct th_nic_vport_create *req);
int th_vport_destroy(struct th_file *tf, u32 index);
void th_vport_destroy_all(struct th_file *tf);
struct th_vport *th_vport_lookup(struct th_file *tf, u32 index);
void th_vport_put(struct th_vport *vp);

/* vport/th_region.c */
struct th_region *th_region_alloc(size_t size, bool readonly);
void th_region_put(struct th_region *r);
int th_region_mmap(struct th_region *r, struct vm_area_struct *vma);

/* vport/th_umr.c */
int th_umr_reg(struct th_vport *vp, struct th_nic_mr_reg *req);
int th_umr_dereg(struct th_vport *vp, u32 key);
void th_umr_release_all(struct th_vport *vp);

/* vport/th_vport_ioctl.c */
long th_vport_ioctl(struct th_file *tf, unsigned int cmd, void __user *arg);

#endif /* TH_LOC_H */
