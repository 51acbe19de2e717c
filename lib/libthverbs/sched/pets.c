// SPDX-License-Identifier: GPL-2.0 OR MIT
/* pets.c - PETS (Ilavarasan, Thambidurai 2007): levels, rank, insertion EFT. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "sched_priv.h"

struct th_pets_key {
	const unsigned int *level;
	const double *rank;
	const double *acc;
};

static int th_pets_cmp(const void *a, const void *b, void *arg)
{
	const struct th_pets_key *k = arg;
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	if (k->level[x] != k->level[y])
		return k->level[x] < k->level[y] ? -1 : 1;
	if (k->rank[x] != k->rank[y])
		return k->rank[x] > k->rank[y] ? -1 : 1;
	if (k->acc[x] != k->acc[y])
		return k->acc[x] < k->acc[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

int th_sched_pets_list(const struct th_dag *dag, unsigned int *out)
{
	unsigned int n = dag->ntasks, i, j, *level, *raw;
	struct th_pets_key key;
	double *rank, *acc;
	int ret = -ENOMEM;

	level = malloc(n * sizeof(*level));
	raw = malloc(n * sizeof(*raw));
	rank = malloc(n * sizeof(*rank));
	acc = malloc(n * sizeof(*acc));
	if (!level || !raw || !rank || !acc)
		goto out;
	for (i = 0; i < n; i++) {
		unsigned int v = dag->topo[i], lv = 0;
		double dtc = 0, rpt = 0;

		for (j = dag->pred_off[v]; j < dag->pred_off[v + 1]; j++) {
			unsigned int u = dag->edges[dag->pred[j]].from;

			if (level[u] + 1 > lv)
				lv = level[u] + 1;
			rpt = fmax(rpt, rank[u]);
		}
		for (j = dag->succ_off[v]; j < dag->succ_off[v + 1]; j++)
			dtc += dag->edges[dag->succ[j]].cost;
		level[v] = lv;
		acc[v] = th_dag_mean_cost(dag, v);
		rank[v] = round(acc[v] + dtc + rpt);
		raw[i] = v;
	}
	key.level = level;
	key.rank = rank;
	key.acc = acc;
	qsort_r(raw, n, sizeof(*raw), th_pets_cmp, &key);
	ret = th_sched_ready_order(dag, raw, out);
out:
	free(level);
	free(raw);
	free(rank);
	free(acc);
	return ret;
}

int th_sched_pets(struct th_sched *s)
{
	unsigned int i, *list;
	int ret;

	list = malloc(s->dag->ntasks * sizeof(*list));
	if (!list)
		return -ENOMEM;
	ret = th_sched_pets_list(s->dag, list);
	for (i = 0; !ret && i < s->dag->ntasks; i++)
		ret = th_sched_place_best(s, list[i], true);
	free(list);
	return ret;
}
