// SPDX-License-Identifier: GPL-2.0 OR MIT
/* gen.c - graph generators: random layered, Gaussian elimination, FFT. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sched_priv.h"

/* Mean base weight of generated tasks; weights are uniform in [1, 2W - 1]. */
#define TH_GEN_WBAR	20.0

static double th_gen_weight(struct th_rng *r)
{
	return 1 + (2 * TH_GEN_WBAR - 2) * th_rng_unit(r);
}

static struct th_dag *th_gen_finish(struct th_dag *dag, int ret)
{
	if (!ret)
		ret = th_dag_finalize(dag);
	if (ret) {
		th_dag_destroy(dag);
		errno = -ret;
		return NULL;
	}
	return dag;
}

struct th_dag *th_dag_gen_random(const struct th_dag_gen_params *p)
{
	unsigned int v = p->ntasks, h, i, l, *width, *first, *level, *mark;
	struct th_dag *dag = NULL;
	struct th_rng rng;
	double mean;
	int ret = -ENOMEM;

	if (!v || !(p->alpha > 0) || !p->outdeg) {
		errno = EINVAL;
		return NULL;
	}
	th_rng_seed(&rng, p->seed);
	h = (unsigned int)lround(sqrt((double)v) / p->alpha);
	h = h < 1 ? 1 : h > v ? v : h;
	mean = (double)v / h;
	width = malloc(h * sizeof(*width));
	first = malloc((h + 1) * sizeof(*first));
	level = malloc(v * sizeof(*level));
	mark = malloc(v * sizeof(*mark));
	dag = th_dag_create(v);
	if (!width || !first || !level || !mark || !dag)
		goto out;
	/* widths uniform around the mean, then nudged to sum to v */
	{
		unsigned int sum = 0, hi = (unsigned int)lround(2 * mean - 1);

		for (l = 0; l < h; l++) {
			width[l] = th_rng_range(&rng, 1, hi < 1 ? 1 : hi);
			sum += width[l];
		}
		while (sum > v) {
			l = th_rng_range(&rng, 0, h - 1);
			if (width[l] > 1) {
				width[l]--;
				sum--;
			}
		}
		while (sum < v) {
			width[th_rng_range(&rng, 0, h - 1)]++;
			sum++;
		}
	}
	first[0] = 0;
	for (l = 0; l < h; l++) {
		first[l + 1] = first[l] + width[l];
		for (i = first[l]; i < first[l + 1]; i++)
			level[i] = l;
	}
	for (i = 0; i < v; i++) {
		mark[i] = TH_NONE;
		ret = th_dag_set_base(dag, i, th_gen_weight(&rng));
		if (ret)
			goto out;
	}
	for (i = 0; i < first[h > 1 ? h - 1 : 0]; i++) {
		unsigned int d = th_rng_range(&rng, 1, p->outdeg), k, tries;
		unsigned int lo = first[level[i] + 1], nx = first[level[i] + 2];

		for (k = 0, tries = 0; k < d && tries < 4 * d; tries++) {
			unsigned int c;

			/* mostly the next level, sometimes any later one */
			if (th_rng_unit(&rng) < 0.75)
				c = th_rng_range(&rng, lo, nx - 1);
			else
				c = th_rng_range(&rng, lo, v - 1);
			if (mark[c] == i)
				continue;
			mark[c] = i;
			ret = th_dag_add_edge(dag, i, c, 0);
			if (ret)
				goto out;
			k++;
		}
	}
	/* every task below the top level gets a parent */
	for (i = 0; i < v; i++)
		mark[i] = 0;
	for (i = 0; i < dag->nedges; i++)
		mark[dag->edges[i].to] = 1;
	for (i = first[h > 1 ? 1 : h]; i < v; i++) {
		if (mark[i])
			continue;
		l = level[i] - 1;
		ret = th_dag_add_edge(dag, th_rng_range(&rng, first[l],
							first[l + 1] - 1), i, 0);
		if (ret)
			goto out;
	}
	ret = 0;
out:
	free(width);
	free(first);
	free(level);
	free(mark);
	if (!dag)
		return NULL;
	return th_gen_finish(dag, ret);
}

struct th_dag *th_dag_gen_gauss(unsigned int m, uint64_t seed)
{
	unsigned int n, k, j, i, *pivot, *upd;
	struct th_dag *dag;
	struct th_rng rng;
	char name[32];
	int ret = -ENOMEM;

	if (m < 2 || m > 2000) {
		errno = EINVAL;
		return NULL;
	}
	n = (m * m + m - 2) / 2;
	dag = th_dag_create(n);
	if (!dag)
		return NULL;
	pivot = malloc(m * sizeof(*pivot));
	upd = malloc((size_t)m * m * sizeof(*upd));	/* upd[k * m + j] */
	if (!pivot || !upd)
		goto out;
	th_rng_seed(&rng, seed);
	i = 0;
	ret = 0;
	for (k = 0; k + 1 < m && !ret; k++) {
		pivot[k] = i;
		snprintf(name, sizeof(name), "P%u", k + 1);
		ret = th_dag_set_name(dag, i, name);
		if (!ret)
			ret = th_dag_set_base(dag, i, th_gen_weight(&rng));
		i++;
		for (j = k + 1; j < m && !ret; j++) {
			upd[k * m + j] = i;
			snprintf(name, sizeof(name), "U%u_%u", k + 1, j + 1);
			ret = th_dag_set_name(dag, i, name);
			if (!ret)
				ret = th_dag_set_base(dag, i, th_gen_weight(&rng));
			i++;
		}
	}
	for (k = 0; k + 1 < m && !ret; k++) {
		for (j = k + 1; j < m && !ret; j++) {
			ret = th_dag_add_edge(dag, pivot[k], upd[k * m + j], 0);
			if (ret || k + 2 >= m)
				continue;
			if (j == k + 1)
				ret = th_dag_add_edge(dag, upd[k * m + j],
						      pivot[k + 1], 0);
			else
				ret = th_dag_add_edge(dag, upd[k * m + j],
						      upd[(k + 1) * m + j], 0);
		}
	}
out:
	free(pivot);
	free(upd);
	return th_gen_finish(dag, ret);
}

struct th_dag *th_dag_gen_fft(unsigned int m, uint64_t seed)
{
	unsigned int k = 0, n, i, s, ntree;
	struct th_dag *dag;
	struct th_rng rng;
	char name[32];
	int ret = 0;

	if (m < 2 || m > (1u << 16) || (m & (m - 1))) {
		errno = EINVAL;
		return NULL;
	}
	while ((1u << k) < m)
		k++;
	ntree = 2 * m - 1;
	n = ntree + m * k;
	dag = th_dag_create(n);
	if (!dag)
		return NULL;
	th_rng_seed(&rng, seed);
	/* recursive-call tree, heap numbered: task i - 1 is node i */
	for (i = 1; i <= ntree && !ret; i++) {
		snprintf(name, sizeof(name), "R%u", i);
		ret = th_dag_set_name(dag, i - 1, name);
		if (!ret)
			ret = th_dag_set_base(dag, i - 1, th_gen_weight(&rng));
		if (!ret && i > 1)
			ret = th_dag_add_edge(dag, i / 2 - 1, i - 1, 0);
	}
	/* butterfly stages: task ntree + s * m + i */
	for (s = 0; s < k && !ret; s++) {
		for (i = 0; i < m && !ret; i++) {
			unsigned int t = ntree + s * m + i, a, b;

			snprintf(name, sizeof(name), "B%u_%u", s + 1, i);
			ret = th_dag_set_name(dag, t, name);
			if (!ret)
				ret = th_dag_set_base(dag, t, th_gen_weight(&rng));
			if (ret)
				break;
			if (!s) {
				a = m - 1 + i;		/* leaf node m + i */
				b = m - 1 + (i ^ 1);
			} else {
				a = ntree + (s - 1) * m + i;
				b = ntree + (s - 1) * m + (i ^ (1u << s));
			}
			ret = th_dag_add_edge(dag, a, t, 0);
			if (!ret)
				ret = th_dag_add_edge(dag, b, t, 0);
		}
	}
	return th_gen_finish(dag, ret);
}
