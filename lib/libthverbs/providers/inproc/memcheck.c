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
#include <string.h>

#include "inproc.h"

/* The end of user space on the kernel the module supports (x86-64). */
#define TH_IPF_TASK_SIZE	0x00007ffffffff000ULL

/*
 * The mapping of /proc/self/maps that holds @addr: its end and whether it
 * is readable and writable; false if none does.
 */
static bool th_ipf_mapping_at(FILE *maps, u64 addr, u64 *end, bool *readable,
			      bool *writable)
{
	char line[512], perms[8], name[256];
	unsigned long long lo, hi;

	rewind(maps);
	while (fgets(line, sizeof(line), maps)) {
		name[0] = '\0';
		if (sscanf(line, "%llx-%llx %7s %*s %*s %*s %255s", &lo, &hi,
			   perms, name) < 3)
			continue;
		if (addr < lo || addr >= hi)
			continue;
		*end = hi;
		/* special mappings the kernel refuses to pin (VM_IO/PFNMAP) */
		if (!strcmp(name, "[vvar]") || !strcmp(name, "[vsyscall]")) {
			*readable = false;
			*writable = false;
		} else {
			*readable = perms[0] == 'r';
			*writable = perms[1] == 'w';
		}
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
	u64 end = addr + len, at = addr, map_end;
	bool readable, writable;
	FILE *maps;
	int ret = 0;

	if (end > TH_IPF_TASK_SIZE)
		return -EFAULT;
	maps = fopen("/proc/self/maps", "re");
	if (!maps)
		return 0;	/* no procfs: nothing to check against */
	while (at < end) {
		if (!th_ipf_mapping_at(maps, at, &map_end, &readable,
				       &writable) ||
		    !readable || (want_write && !writable)) {
			ret = -EFAULT;
			break;
		}
		at = map_end;
	}
	fclose(maps);
	return ret;
}
