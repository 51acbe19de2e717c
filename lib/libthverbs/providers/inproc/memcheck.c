// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * memcheck.c - what the module refuses when it pins memory for MR_REG,
 * checked for the in-process provider against the process's own mappings
 * (/proc/self/maps): the range must lie in user space and be mapped
 * throughout, readable, and writable when the region allows writes.
 *
 * What userspace cannot check the same way is documented in
 * Documentation/security.rst: the module pins the pages, so unmapping a
 * registered range later leaves the region intact there, while in-process
 * the memory is simply gone; and pinned pages count against
 * RLIMIT_MEMLOCK only in the module.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inproc.h"

/* The end of user space on the kernel the module supports (x86-64). */
#define TH_IPF_TASK_SIZE	0x00007ffffffff000ULL

/*
 * One line of /proc/self/maps: its range, whether it can be read and
 * written; false at the end.  Special mappings the kernel refuses to pin
 * (VM_IO, VM_PFNMAP) count as neither.
 */
static bool th_ipf_next_mapping(FILE *maps, u64 *lo, u64 *hi, bool *readable,
				bool *writable)
{
	char line[512], *p;

	/* "lo-hi perms offset dev inode   name": parsed by hand, sscanf
	 * costs more than the rest of a registration */
	while (fgets(line, sizeof(line), maps)) {
		*lo = strtoull(line, &p, 16);
		if (*p++ != '-')
			continue;
		*hi = strtoull(p, &p, 16);
		if (*p++ != ' ' || strlen(p) < 4)
			continue;
		*readable = p[0] == 'r';
		*writable = p[1] == 'w';
		if (strstr(p, " [vvar]") || strstr(p, " [vsyscall]"))
			*readable = *writable = false;
		return true;
	}
	return false;
}

/*
 * 0, or -EFAULT as the module's pinning gives it: outside user space, a
 * hole in the range, a page that cannot be read, or (for a region that
 * allows writes) one that cannot be written.
 */
int th_ipf_mem_check(u64 addr, u64 len, u32 access)
{
	bool want_write = access & (TH_NIC_ACCESS_LOCAL_WRITE |
				    TH_NIC_ACCESS_REMOTE_WRITE);
	u64 end = addr + len, at = addr, lo, hi;
	bool readable, writable;
	FILE *maps;
	int ret = -EFAULT;

	if (end > TH_IPF_TASK_SIZE)
		return -EFAULT;
	maps = fopen("/proc/self/maps", "re");
	if (!maps)
		return 0;	/* no procfs: nothing to check against */
	/* the lines come in address order: one pass covers the range */
	while (th_ipf_next_mapping(maps, &lo, &hi, &readable, &writable)) {
		if (hi <= at)
			continue;
		if (lo > at || !readable || (want_write && !writable))
			break;		/* a hole, or a page it cannot use */
		at = hi;
		if (at >= end) {
			ret = 0;
			break;
		}
	}
	fclose(maps);
	return ret;
}
