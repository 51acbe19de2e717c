// SPDX-License-Identifier: GPL-2.0 OR MIT
/* cmd_tree.c - 'thctl tree N K': print the k-nomial tree of N ranks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "thctl.h"
#include "thverbs.h"

static void tree_usage(FILE *f)
{
	fprintf(f,
		"usage: thctl tree N K [--root R]\n\n"
		"Print the K-nomial tree of N ranks rooted at R (default 0), as the\n"
		"offloaded collectives build it: each rank's role, parent and\n"
		"children, and the depth.  N >= 1, K >= 2.\n\n"
		"Exit status: 0 printed, 2 usage error.\n");
}

static int tree_num(const char *s, unsigned long *v)
{
	char *end;

	*v = strtoul(s, &end, 10);
	return *s && !*end ? 0 : -1;
}

int thctl_tree_main(int argc, char **argv)
{
	unsigned long n, k, root = 0;
	unsigned int *kids, r, j;
	char pbuf[16];
	int nk, parent;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		tree_usage(stdout);
		return THCTL_EXIT_OK;
	}
	if ((argc != 3 && argc != 5) || tree_num(argv[1], &n) ||
	    tree_num(argv[2], &k) ||
	    (argc == 5 && (strcmp(argv[3], "--root") || tree_num(argv[4], &root))) ||
	    n < 1 || n > 1000000 || k < 2 || root >= n) {
		tree_usage(stderr);
		return THCTL_EXIT_USAGE;
	}
	kids = calloc(n, sizeof(*kids));
	if (!kids)
		return THCTL_EXIT_FAIL;
	printf("%lu-nomial tree of %lu ranks, root %lu, depth %d\n", k, n, root,
	       th_tree_depth(n, k));
	for (r = 0; r < n; r++) {
		parent = th_tree_parent(n, root, k, r);
		nk = th_tree_children(n, root, k, r, kids, n);
		if (parent < 0)
			snprintf(pbuf, sizeof(pbuf), "-");
		else
			snprintf(pbuf, sizeof(pbuf), "%d", parent);
		printf("%6u  %-5s parent %6s  children {", r,
		       parent < 0 ? "root" : nk ? "inner" : "leaf", pbuf);
		for (j = 0; j < (unsigned int)nk; j++)
			printf("%s%u", j ? ", " : "", kids[j]);
		printf("}\n");
	}
	free(kids);
	return THCTL_EXIT_OK;
}
