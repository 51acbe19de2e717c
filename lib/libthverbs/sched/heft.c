// SPDX-License-Identifier: GPL-2.0 OR MIT
/* heft.c - HEFT (Topcuoglu, Hariri, Wu 2002): rank_u order, insertion EFT. */
#include <errno.h>
#include <stdlib.h>

#include "sched_priv.h"

int th_sched_heft_list(const struct th_dag *dag, unsigned int *out)
{
	double *rank = malloc(dag->ntasks * sizeof(*rank));
	int ret = rank ? th_sched_bottom_levels(dag, rank) : -ENOMEM;

	if (!ret)
		ret = th_sched_list_by_rank(dag, rank, out);
	free(rank);
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
