// SPDX-License-Identifier: GPL-2.0 OR MIT
/* heft.c - HEFT (Topcuoglu, Hariri, Wu 2002): rank_u order, insertion EFT. */
#include <errno.h>
#include <stdlib.h>

#include "sched_priv.h"

struct th_heft_key {
	const double *rank;
};

static int th_heft_cmp(const void *a, const void *b, void *arg)
{
	const struct th_heft_key *k = arg;
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	if (k->rank[x] != k->rank[y])
		return k->rank[x] > k->rank[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

int th_sched_heft_list(const struct th_dag *dag, unsigned int *out)
{
	unsigned int n = dag->ntasks, i, *raw;
	struct th_heft_key key;
	double *rank;
	int ret = -ENOMEM;

	rank = malloc(n * sizeof(*rank));
	raw = malloc(n * sizeof(*raw));
	if (!rank || !raw)
		goto out;
	ret = th_sched_bottom_levels(dag, rank);
	if (ret)
		goto out;
	for (i = 0; i < n; i++)
		raw[i] = i;
	key.rank = rank;
	qsort_r(raw, n, sizeof(*raw), th_heft_cmp, &key);
	ret = th_sched_ready_order(dag, raw, out);
out:
	free(rank);
	free(raw);
	return ret;
}

int th_sched_heft(struct th_sched *s)
{
	unsigned int i, *list;
	int ret;

	list = malloc(s->dag->ntasks * sizeof(*list));
	if (!list)
		return -ENOMEM;
	ret = th_sched_heft_list(s->dag, list);
	for (i = 0; !ret && i < s->dag->ntasks; i++)
		ret = th_sched_place_best(s, list[i], true);
	free(list);
	return ret;
}
