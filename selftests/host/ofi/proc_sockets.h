/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * proc_sockets.h - the socket inodes a process holds, read from
 * /proc/PID/fd, for the ofi tests that look its sockets up in
 * /proc/net/tcp (ofi_rank: where this process listens; ofi_forger: where
 * a job's ranks do).
 */
#ifndef TH_PROC_SOCKETS_H
#define TH_PROC_SOCKETS_H

#include <dirent.h>
#include <stdio.h>
#include <unistd.h>

/* Up to @max socket inodes of process @pid ("self" too) into @inodes, after @n. */
static inline int proc_socket_inodes(const char *pid, unsigned long *inodes,
				     int n, int max)
{
	char path[600], link[64];
	unsigned long inode;
	struct dirent *de;
	DIR *d;
	int len;

	snprintf(path, sizeof(path), "/proc/%s/fd", pid);
	d = opendir(path);
	while (d && (de = readdir(d)) && n < max) {
		snprintf(path, sizeof(path), "/proc/%s/fd/%s", pid, de->d_name);
		len = readlink(path, link, sizeof(link) - 1);
		if (len <= 0)
			continue;
		link[len] = '\0';
		if (sscanf(link, "socket:[%lu]", &inode) == 1)
			inodes[n++] = inode;
	}
	if (d)
		closedir(d);
	return n;
}

#endif /* TH_PROC_SOCKETS_H */
