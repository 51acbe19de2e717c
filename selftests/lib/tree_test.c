// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * tree_test.c - the k-nomial tree builder: the examples of
 * Documentation/collectives.rst, and the properties every tree must have
 * for N up to 300, radix 2 to 9 and several roots.
 */
#include <errno.h>
#include <string.h>

#include "kselftest_harness.h"
#include <thverbs/verbs.h>

#define MAXN 300

struct tree_example {
	unsigned int k, rank, n_kids;
	unsigned int kids[8];
};

/* Documentation/collectives.rst, "k-nomial trees": N = 16, root 0. */
static const struct tree_example examples[] = {
	{ 2, 0, 4, { 1, 2, 4, 8 } },
	{ 2, 2, 1, { 3 } },
	{ 2, 4, 2, { 5, 6 } },
	{ 2, 6, 1, { 7 } },
	{ 2, 8, 3, { 9, 10, 12 } },
	{ 4, 0, 6, { 1, 2, 3, 4, 8, 12 } },
	{ 4, 4, 3, { 5, 6, 7 } },
	{ 4, 8, 3, { 9, 10, 11 } },
	{ 4, 12, 3, { 13, 14, 15 } },
};

TEST(examples_of_the_design)
{
	unsigned int kids[16], i, j;

	for (i = 0; i < sizeof(examples) / sizeof(examples[0]); i++) {
		const struct tree_example *e = &examples[i];
		int n = th_tree_children(16, 0, e->k, e->rank, kids, 16);

		ASSERT_EQ((int)e->n_kids, n) TH_LOG("k %u rank %u", e->k, e->rank);
		for (j = 0; j < e->n_kids; j++)
			EXPECT_EQ(e->kids[j], kids[j]);
	}
	/* the 4-nomial root of 16 has 6 children: 7 operands, the ALU's limit */
	EXPECT_EQ(6, th_tree_children(16, 0, 4, 0, NULL, 0));
	EXPECT_EQ(-ENOENT, th_tree_parent(16, 0, 4, 0));
	EXPECT_EQ(4, th_tree_parent(16, 0, 4, 7));
	EXPECT_EQ(2, th_tree_depth(16, 4));
	EXPECT_EQ(4, th_tree_depth(16, 2));
}

/* Depth of @v below the root, walking parents (bounded by n steps). */
static int walk_depth(unsigned int n, unsigned int root, unsigned int k,
		      unsigned int v)
{
	int d = 0;

	while (v != root && d <= (int)n) {
		int p = th_tree_parent(n, root, k, v);

		if (p < 0)
			return -1;
		v = p;
		d++;
	}
	return v == root ? d : -1;
}

TEST(properties_for_every_n_radix_and_root)
{
	static unsigned int kids[MAXN], seen_as_child[MAXN];
	unsigned int n, k, ri, r, j, root, ceil_log, p;
	int nk, depth, maxd;

	for (n = 1; n <= MAXN; n += (n < 70 ? 1 : 23)) {
		for (k = 2; k <= 9; k++) {
			for (ri = 0; ri < 3; ri++) {
				root = ri == 0 ? 0 : ri == 1 ? n - 1 : n / 2;
				memset(seen_as_child, 0, sizeof(seen_as_child));
				maxd = 0;
				for (r = 0; r < n; r++) {
					nk = th_tree_children(n, root, k, r, kids, MAXN);
					ASSERT_GE(nk, 0);
					for (j = 0; j < (unsigned int)nk; j++) {
						ASSERT_LT(kids[j], n);
						seen_as_child[kids[j]]++;
						/* a child's parent is this rank */
						ASSERT_EQ((int)r, th_tree_parent(n, root, k, kids[j]));
					}
					/* every rank reaches the root: the tree spans */
					depth = walk_depth(n, root, k, r);
					ASSERT_GE(depth, 0) TH_LOG("n %u k %u root %u rank %u", n, k, root, r);
					maxd = depth > maxd ? depth : maxd;
				}
				/* exactly one parent for every non-root, none for the root */
				for (r = 0; r < n; r++)
					ASSERT_EQ(r == root ? 0U : 1U, seen_as_child[r]);
				ASSERT_EQ(-ENOENT, th_tree_parent(n, root, k, root));
				/* depth: at most ceil(log_k n), as th_tree_depth says */
				for (ceil_log = 0, p = 1; p < n; p *= k)
					ceil_log++;
				ASSERT_EQ(maxd, th_tree_depth(n, k)) TH_LOG("n %u k %u", n, k);
				ASSERT_LE(maxd, (int)ceil_log);
			}
		}
	}
}

TEST(bad_input_is_refused)
{
	unsigned int kids[4];

	EXPECT_EQ(-EINVAL, th_tree_children(0, 0, 2, 0, kids, 4));
	EXPECT_EQ(-EINVAL, th_tree_children(4, 4, 2, 0, kids, 4));
	EXPECT_EQ(-EINVAL, th_tree_children(4, 0, 1, 0, kids, 4));
	EXPECT_EQ(-EINVAL, th_tree_parent(4, 0, 2, 4));
	EXPECT_EQ(-EINVAL, th_tree_depth(4, 1));
	/* more children than room: the count, and only @max written */
	kids[1] = 99;
	EXPECT_EQ(4, th_tree_children(16, 0, 2, 0, kids, 1));
	EXPECT_EQ(1, kids[0]);
	EXPECT_EQ(99, kids[1]);
}

TEST_HARNESS_MAIN
