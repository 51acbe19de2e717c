// SPDX-License-Identifier: GPL-2.0 OR MIT
/* cmd_tree.c - 'thctl tree N K': print the k-nomial tree of N ranks. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "thctl.h"
#include <thverbs/verbs.h>
#include <thverbs/coll.h>

static void tree_usage(FILE *f)
{
	fprintf(f,
		"usage: thctl tree N K [--root R] [-j [-p]]\n\n"
		"Print the K-nomial tree of N ranks rooted at R (default 0), as the\n"
		"offloaded collectives build it: each rank's role, parent and\n"
		"children, and the depth.  N from 1 to 1000000; K >= 2 (a radix of 1\n"
		"is no tree); R < N.  -j: one JSON document,\n"
		"{\"n\", \"radix\", \"root\", \"depth\", \"ranks\": [{\"rank\", \"role\",\n"
		"\"parent\" (null at the root), \"children\"}]}; -p: indented.\n\n"
		"Exit status: 0 printed, 2 usage error.\n");
}

#define TREE_MAX_RANKS	1000000

static int tree_num(const char *s, unsigned long *v)
{
	char *end;

	/* strtoul would take "-1" as ULONG_MAX */
	if (*s == '-')
		return -1;
	*v = strtoul(s, &end, 10);
	return *s && !*end ? 0 : -1;
}

/*
 * Which argument is wrong and what it should be, in one line: "usage"
 * alone left the reader to guess that K = 1 is not a tree.  0 when all
 * are fine.
 */
static int tree_check(const char *ns, const char *ks, const char *roots,
		      unsigned long *n, unsigned long *k, unsigned long *root)
{
	if (tree_num(ns, n) || *n < 1 || *n > TREE_MAX_RANKS) {
		fprintf(stderr, "thctl tree: N: expected a number of ranks from 1 to %d, got '%s'\n",
			TREE_MAX_RANKS, ns);
		return -1;
	}
	if (tree_num(ks, k) || *k < 2 || *k > TREE_MAX_RANKS) {
		fprintf(stderr, "thctl tree: K: the radix must be from 2 to %d, got '%s'\n",
			TREE_MAX_RANKS, ks);
		return -1;
	}
	if (roots && (tree_num(roots, root) || *root >= *n)) {
		fprintf(stderr, "thctl tree: --root: expected a rank from 0 to %lu, got '%s'\n",
			*n - 1, roots);
		return -1;
	}
	return 0;
}

/* -j and -p, wherever they are: removed from @argv, counted out of @argc. */
static void tree_flags(int *argc, char **argv, bool *json, bool *pretty)
{
	int i, o = 0;

	for (i = 0; i < *argc; i++) {
		if (i && (!strcmp(argv[i], "-j") || !strcmp(argv[i], "--json")))
			*json = true;
		else if (i && (!strcmp(argv[i], "-p") || !strcmp(argv[i], "--pretty")))
			*pretty = true;
		else
			argv[o++] = argv[i];
	}
	*argc = o;
}

int thctl_tree_main(int argc, char **argv)
{
	unsigned long n, k, root = 0;
	unsigned int *kids, r, j;
	bool json = false, pretty = false;
	char pbuf[16];
	int nk, parent;
	struct tj t;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		tree_usage(stdout);
		return THCTL_EXIT_OK;
	}
	tree_flags(&argc, argv, &json, &pretty);
	if ((argc != 3 && argc != 5) || (argc == 5 && strcmp(argv[3], "--root"))) {
		tree_usage(stderr);
		return THCTL_EXIT_USAGE;
	}
	if (tree_check(argv[1], argv[2], argc == 5 ? argv[4] : NULL, &n, &k,
		       &root))
		return THCTL_EXIT_USAGE;
	kids = calloc(n, sizeof(*kids));
	if (!kids)
		return THCTL_EXIT_FAIL;
	if (json) {
		tj_init(&t, stdout, pretty);
		tj_obj_begin(&t);
		tj_kv_u64(&t, "n", n);
		tj_kv_u64(&t, "radix", k);
		tj_kv_u64(&t, "root", root);
		tj_kv_u64(&t, "depth", th_tree_depth(n, k));
		tj_key(&t, "ranks");
		tj_arr_begin(&t);
		for (r = 0; r < n; r++) {
			parent = th_tree_parent(n, root, k, r);
			nk = th_tree_children(n, root, k, r, kids, n);
			tj_obj_begin(&t);
			tj_kv_u64(&t, "rank", r);
			tj_kv_str(&t, "role", parent < 0 ? "root" : nk ? "inner" : "leaf");
			tj_key(&t, "parent");
			if (parent < 0)
				tj_null(&t);
			else
				tj_u64(&t, parent);
			tj_key(&t, "children");
			tj_arr_begin(&t);
			for (j = 0; j < (unsigned int)nk; j++)
				tj_u64(&t, kids[j]);
			tj_arr_end(&t);
			tj_obj_end(&t);
		}
		tj_arr_end(&t);
		tj_obj_end(&t);
		tj_finish(&t);
		free(kids);
		return THCTL_EXIT_OK;
	}
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
