/* SPDX-License-Identifier: GPL-2.0 */
/*
 * th_compat_kernel.h - the one place where th_nic.ko adapts to the kernel
 * version it is built against: every kernel interface the module uses
 * that changed after 6.1 (the oldest kernel supported, Debian 12's) has
 * its version test here, and the module's .c files use the th_ names
 * below instead of testing LINUX_VERSION_CODE themselves.
 *
 * Compiled against 6.1 (Debian 12) and 6.12 (Debian 13, and Debian 12's
 * linux-6.12); the versions named for 6.2-6.11 are those of the upstream
 * commits.  Interfaces the module uses that did not change from 6.1 to
 * 6.18 need nothing here (the list is in the report of issue K).
 */
#ifndef TH_COMPAT_KERNEL_H
#define TH_COMPAT_KERNEL_H

#include <linux/version.h>
#include <linux/device.h>
#include <linux/file.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <net/genetlink.h>

/* 6.4: class_create() lost its module argument (the class's owner). */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 4, 0)
#define th_class_create(name)	class_create(THIS_MODULE, name)
#else
#define th_class_create(name)	class_create(name)
#endif

/*
 * 6.2: struct class.devnode() takes a const struct device; declare a
 * devnode callback as char *fn(TH_DEVNODE_CONST struct device *, umode_t *).
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
#define TH_DEVNODE_CONST
#else
#define TH_DEVNODE_CONST	const
#endif

/*
 * 6.3: vma->vm_flags is read-only; changes go through vm_flags_set() and
 * vm_flags_clear(), which also take the VMA's write lock (per-VMA locks).
 * Own names, so that a stable 6.1 kernel that gains the helpers still
 * builds.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)
static inline void th_vm_flags_set(struct vm_area_struct *vma,
				   unsigned long flags)
{
	vma->vm_flags |= flags;
}

static inline void th_vm_flags_clear(struct vm_area_struct *vma,
				     unsigned long flags)
{
	vma->vm_flags &= ~flags;
}
#else
#define th_vm_flags_set(vma, flags)	vm_flags_set(vma, flags)
#define th_vm_flags_clear(vma, flags)	vm_flags_clear(vma, flags)
#endif

/*
 * 6.12: struct fd is one word, its file read with fd_file() (a macro, so
 * a kernel that has it, a stable backport included, is seen here).
 */
#ifndef fd_file
#define fd_file(f)	((f).file)
#endif

/*
 * 6.6: a dump's parsed request attributes moved into a struct genl_info
 * (also reached by genl_info_dump()); before, struct genl_dumpit_info held them itself.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 6, 0)
#define th_genl_dump_attrs(cb)	(genl_dumpit_info(cb)->attrs)
#else
#define th_genl_dump_attrs(cb)	(genl_dumpit_info(cb)->info.attrs)
#endif

#endif /* TH_COMPAT_KERNEL_H */
