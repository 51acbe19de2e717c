// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * tree.c - k-nomial trees (Documentation/collectives.rst): for rank r of N
 * with root R and radix k, v = (r - R) mod N; the parent clears v's lowest
 * non-zero base-k digit; the children are v + j * k^i for every k^i below
 * that digit (every i when v = 0) and j = 1 .. k-1, kept while < N, in that
 * order.
 */
#include <errno.h>

#include <thverbs/coll.h>
#include "thverbs_priv.h"

static int th_tree_check(unsigned int n, unsigned int root, unsigned int k,
			 unsigned int rank)
{
	return !n || root >= n || rank >= n || k < 2 ? -EINVAL : 0;
}

int th_tree_parent(unsigned int n, unsigned int root,
			     unsigned int k, unsigned int rank)
{
	unsigned long long v, p = 1;
	int ret = th_tree_check(n, root, k, rank);

	if (ret)
		return ret;
	v = (rank + n - root) % n;
	if (!v)
		return -ENOENT;		/* the root has no parent */
	while ((v / p) % k == 0)
		p *= k;
	v -= ((v / p) % k) * p;
	return (int)((v + root) % n);
}

int th_tree_children(unsigned int n, unsigned int root,
			       unsigned int k, unsigned int rank,
			       unsigned int *children, unsigned int max)
{
	unsigned long long v, p, c;
	unsigned int count = 0, j;
	int ret = th_tree_check(n, root, k, rank);

	if (ret)
		return ret;
	v = (rank + n - root) % n;
	for (p = 1; p < n; p *= k) {
		if (v && (v / p) % k)
			break;		/* reached v's lowest non-zero digit */
		for (j = 1; j < k; j++) {
			c = v + j * p;
			if (c >= n)
				break;
			if (count < max)
				children[count] = (unsigned int)((c + root) % n);
			count++;
		}
	}
	return (int)count;
}

/*
 * The depth is the most non-zero base-k digits of any v < n: with
 * d = ceil(log_k n) digits available, it is d when n exceeds 11...1 (d
 * ones, base k), else d - 1.  So ceil(log_k n) is a bound, met only then.
 */
int th_tree_depth(unsigned int n, unsigned int k)
{
	unsigned long long p = 1, ones = 0;
	int d = 0;

	if (!n || k < 2)
		return -EINVAL;
	while (p < n) {
		ones += p;
		p *= k;
		d++;
	}
	return n > ones ? d : d - 1;
}
