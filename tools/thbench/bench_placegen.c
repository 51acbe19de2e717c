// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bench_placegen.c - 'thbench placegen': a random multi-job workload as a
 * job file (and, on request, a model file) for 'thctl place', so a scale
 * run is one command to make and one to time (Documentation/placement.rst,
 * "Scale").  The same options and seed write the same files.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <thverbs/place.h>
#include "thbench.h"

struct pg_opts {
	unsigned int jobs, nodes, mem_lo, mem_hi, radix, classes;
	uint64_t bytes_lo, bytes_hi, seed;
	double beta;
	bool mixed;
	const char *model;
};

static void pg_usage(FILE *f)
{
	fprintf(f,
		"usage: thbench placegen [--jobs N] [--nodes N] [--members A-B]\n"
		"                        [--bytes A-B] [--radix K] [--mixed] [--seed S]\n"
		"                        [--model FILE [--classes C] [--beta B]]\n\n"
		"Writes a job file (thjobs 1) on stdout: N random collectives, each over\n"
		"a number of distinct random nodes drawn from A-B, rooted at one of\n"
		"them, of a size drawn from A-B bytes (a multiple of 8, K/M/G suffixes),\n"
		"on a radix-K tree.  Allreduces only, or with --mixed 60%% Allreduce,\n"
		"20%% Reduce, 20%% Broadcast.  --model also writes a model of the\n"
		"nodes with C ALU classes (node i in class i %% C; class c's rate the\n"
		"default's times 1 - B/2 + B c / (C - 1)); C = nodes gives each node its\n"
		"own rate.  Then time it:\n"
		"  thbench placegen --jobs 2000 --nodes 4096 --members 2-64 --bytes 1K-64K > big.jobs\n"
		"  /usr/bin/time -v thctl place -n 4096 -a hagd big.jobs\n"
		"Defaults: --jobs 2000 --nodes 4096 --members 2-64 --bytes 1K-64K\n"
		"  --radix 4 --seed 1 --classes 1 --beta 1.  Limits: %u nodes, %u jobs.\n",
		TH_PLACE_MAX_NODES, TH_PLACE_MAX_JOBS);
}

static int pg_size(const char *s, uint64_t *v)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		return -EINVAL;
	switch (*end) {
	case 'K': case 'k':
		x <<= 10, end++;
		break;
	case 'M': case 'm':
		x <<= 20, end++;
		break;
	case 'G': case 'g':
		x <<= 30, end++;
		break;
	}
	if (*end && *end != '-')
		return -EINVAL;
	*v = x;
	return 0;
}

/* "A-B" (or "A": both) of sizes, lo <= hi, within [min, max]. */
static int pg_range(const char *arg, uint64_t min, uint64_t max,
		    uint64_t *lo, uint64_t *hi)
{
	const char *dash = strchr(arg, '-');

	if (pg_size(arg, lo) || (dash ? pg_size(dash + 1, hi) : (*hi = *lo, 0)))
		return -EINVAL;
	return *lo < min || *hi > max || *lo > *hi ? -EINVAL : 0;
}

static int pg_parse(int argc, char **argv, struct pg_opts *o)
{
	uint64_t lo, hi, v;
	int i;

	*o = (struct pg_opts){ .jobs = 2000, .nodes = 4096, .mem_lo = 2,
			       .mem_hi = 64, .bytes_lo = 1024,
			       .bytes_hi = 65536, .radix = 4, .seed = 1,
			       .classes = 1, .beta = 1.0 };
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		const char *why = NULL;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			pg_usage(stdout);
			return 1;
		}
		if (!strcmp(a, "--mixed")) {
			o->mixed = true;
			continue;
		}
		if (!val) {
			fprintf(stderr, "thbench placegen: %s wants a value\n", a);
			return -EINVAL;
		}
		i++;
		if (!strcmp(a, "--jobs")) {
			if (pg_range(val, 1, TH_PLACE_MAX_JOBS, &v, &hi) || v != hi)
				why = "a job count from 1 to TH_PLACE_MAX_JOBS";
			o->jobs = v;
		} else if (!strcmp(a, "--nodes")) {
			if (pg_range(val, 2, TH_PLACE_MAX_NODES, &v, &hi) || v != hi)
				why = "a node count from 2 to TH_PLACE_MAX_NODES";
			o->nodes = v;
		} else if (!strcmp(a, "--members")) {
			if (pg_range(val, 2, TH_PLACE_MAX_NODES, &lo, &hi))
				why = "A-B members, 2 <= A <= B";
			o->mem_lo = lo;
			o->mem_hi = hi;
		} else if (!strcmp(a, "--bytes")) {
			if (pg_range(val, 8, 1ull << 40, &lo, &hi))
				why = "A-B bytes, 8 <= A <= B <= 1T";
			o->bytes_lo = lo;
			o->bytes_hi = hi;
		} else if (!strcmp(a, "--radix")) {
			if (pg_range(val, 2, 64, &v, &hi) || v != hi)
				why = "a radix from 2 to 64";
			o->radix = v;
		} else if (!strcmp(a, "--seed")) {
			if (pg_size(val, &o->seed))
				why = "a number";
		} else if (!strcmp(a, "--model")) {
			o->model = val;
		} else if (!strcmp(a, "--classes")) {
			if (pg_range(val, 1, TH_PLACE_MAX_NODES, &v, &hi) || v != hi)
				why = "a class count from 1 to the nodes";
			o->classes = v;
		} else if (!strcmp(a, "--beta")) {
			o->beta = strtod(val, NULL);
			if (!(o->beta >= 0 && o->beta <= 1.9))
				why = "a spread from 0 to 1.9";
		} else {
			fprintf(stderr, "thbench placegen: unknown option '%s'\n", a);
			return -EINVAL;
		}
		if (why) {
			fprintf(stderr, "thbench placegen: %s '%s': expected %s\n", a,
				val, why);
			return -EINVAL;
		}
	}
	if (o->mem_hi > o->nodes || o->classes > o->nodes) {
		fprintf(stderr, "thbench placegen: more members or classes (%u, %u) than nodes (%u)\n",
			o->mem_hi, o->classes, o->nodes);
		return -EINVAL;
	}
	return 0;
}

static uint64_t pg_rng(uint64_t *s)	/* splitmix64 */
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int pg_write_model(const struct pg_opts *o)
{
	struct th_place_model *m = th_place_model_create(o->nodes);
	double base;
	unsigned int i, c;
	FILE *f;
	int ret;

	if (!m)
		return -ENOMEM;
	base = m->alu[0];
	for (i = 0; i < o->nodes; i++) {
		c = i % o->classes;
		m->alu[i] = base * (1 - o->beta / 2 + (o->classes > 1 ?
				    o->beta * c / (o->classes - 1) : o->beta / 2));
	}
	f = fopen(o->model, "w");
	ret = f ? th_place_model_write(m, f) : -errno;
	if (f && fclose(f) && !ret)
		ret = -EIO;
	th_place_model_destroy(m);
	return ret;
}

int thbench_placegen_main(int argc, char **argv)
{
	static const char *const kinds[3] = { "allreduce", "reduce", "bcast" };
	unsigned int *node, k, i, n, kind;
	struct pg_opts o;
	uint64_t rng, bytes;
	int ret;

	ret = pg_parse(argc, argv, &o);
	if (ret) {
		if (ret < 0)
			pg_usage(stderr);
		return ret < 0 ? 2 : 0;
	}
	if (o.model) {
		ret = pg_write_model(&o);
		if (ret) {
			fprintf(stderr, "thbench placegen: %s: %s\n", o.model,
				strerror(-ret));
			return 1;
		}
	}
	node = malloc(o.nodes * sizeof(*node));
	if (!node)
		return 1;
	for (i = 0; i < o.nodes; i++)
		node[i] = i;
	rng = o.seed;
	printf("thjobs 1\n# thbench placegen --jobs %u --nodes %u --members %u-%u --bytes %llu-%llu --radix %u%s --seed %llu\n",
	       o.jobs, o.nodes, o.mem_lo, o.mem_hi,
	       (unsigned long long)o.bytes_lo, (unsigned long long)o.bytes_hi,
	       o.radix, o.mixed ? " --mixed" : "", (unsigned long long)o.seed);
	for (k = 0; k < o.jobs; k++) {
		n = o.mem_lo + pg_rng(&rng) % (o.mem_hi - o.mem_lo + 1);
		for (i = 0; i < n; i++) {	/* a partial Fisher-Yates */
			unsigned int r = i + pg_rng(&rng) % (o.nodes - i), t;

			t = node[i];
			node[i] = node[r];
			node[r] = t;
		}
		bytes = o.bytes_lo + pg_rng(&rng) % (o.bytes_hi - o.bytes_lo + 1);
		bytes = bytes & ~7ull ? bytes & ~7ull : 8;	/* whole doubles */
		kind = o.mixed ? (unsigned int)(pg_rng(&rng) % 5) : 0;
		kind = kind < 3 ? 0 : kind - 2;
		printf("%s j%u members ", kinds[kind], k);
		for (i = 0; i < n; i++)
			printf(i ? ",%u" : "%u", node[i]);
		printf(" root %u bytes %llu radix %u\n",
		       node[pg_rng(&rng) % n], (unsigned long long)bytes, o.radix);
	}
	free(node);
	return fflush(stdout) || ferror(stdout) ? 1 : 0;
}
