// SPDX-License-Identifier: GPL-2.0
/*
 * vport_hold.c - a helper of run.sh: create vports and hold them until
 * stdin closes, so that management (thctl over netlink) has something to
 * show.  Usage: vport_hold FIRST_NODE LAST_NODE PER_NODE; prints "ready N"
 * once N vports exist (each with an MR of a page and counter 1 raised to
 * 42), or "failed: why" and exits 1.
 */
#include <stdlib.h>
#include <sys/resource.h>

#include "th_nic_util.h"

int main(int argc, char **argv)
{
	unsigned int first, last, per, node, i, made = 0;
	static char page[4096] __attribute__((aligned(4096)));
	struct thn_vport vp;
	struct thn_key key;
	char c;
	int fd, ret;

	struct rlimit nofile = { 8192, 8192 };

	if (argc != 4)
		return 2;
	setrlimit(RLIMIT_NOFILE, &nofile);	/* a descriptor per node */
	first = strtoul(argv[1], NULL, 0);
	last = strtoul(argv[2], NULL, 0);
	per = strtoul(argv[3], NULL, 0);
	for (node = first; node <= last; node++) {
		fd = thn_open(node);
		if (fd < 0) {
			printf("failed: open node %u: %s\n", node, strerror(-fd));
			return 1;
		}
		for (i = 0; i < per; i++) {
			/* small rings (the SQ holds a chain), not mapped: little memory */
			ret = thn_vport_create_raw(fd, 16, 16, &vp.info);
			if (ret) {
				printf("failed: vport %u on node %u: %s\n", i, node,
				       strerror(-ret));
				return 1;
			}
			made++;
			if (per > 2)
				continue;
			vp.fd = fd;
			vp.id = vp.info.vport;
			if (thn_mr_reg(&vp, page, sizeof(page), 0, &key) ||
			    thn_ct_inc(&vp, 1, 42)) {
				printf("failed: MR or counter on node %u\n", node);
				return 1;
			}
		}
	}
	printf("ready %u\n", made);
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return 0;
}
