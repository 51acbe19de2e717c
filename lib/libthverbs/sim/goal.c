// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * goal.c - the simulator's schedule object: building it (ops and edges in
 * any rank order), finalizing it (ops grouped by rank, edge lists, cycles
 * refused), writing it as GOAL text, and freeing it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_priv.h"

void sim_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

void th_sim_params_default(struct th_sim_params *p)
{
	/* LogGOPSim's defaults (its --help) */
	p->L = 2500;
	p->o = 1500;
	p->g = 1000;
	p->G = 6;
	p->O = 0;
	p->S = 65535;
}

struct th_sim_goal *sim_goal_new(unsigned int nranks)
{
	struct th_sim_goal *g;

	if (!nranks || nranks > SIM_MAX_RANKS) {
		errno = EINVAL;
		return NULL;
	}
	g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->nranks = nranks;
	g->ncpus = 1;
	g->nnics = 1;
	return g;
}

/* grows *@p (of *@cap elements of @size bytes) to hold @need */
static int sim_grow(void **p, uint32_t *cap, uint32_t need, size_t size)
{
	uint64_t ncap = *cap ? *cap : 64;
	void *np;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	if (ncap > UINT32_MAX)
		ncap = UINT32_MAX;
	np = realloc(*p, (size_t)ncap * size);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = (uint32_t)ncap;
	return 0;
}

int64_t sim_goal_add_op(struct th_sim_goal *g, const struct sim_op *op)
{
	if (g->nops >= SIM_MAX_OPS) {
		errno = ENOSPC;
		return -1;
	}
	if (sim_grow((void **)&g->ops, &g->cap_ops, g->nops + 1,
		     sizeof(*g->ops))) {
		errno = ENOMEM;
		return -1;
	}
	g->ops[g->nops] = *op;
	if (op->cpu >= g->ncpus)
		g->ncpus = op->cpu + 1u;
	if (op->nic >= g->nnics)
		g->nnics = op->nic + 1u;
	return g->nops++;
}

int sim_goal_add_dep(struct th_sim_goal *g, uint32_t waiter, uint32_t waited,
		     bool istart)
{
	int ret;

	if (g->npend / 2 >= SIM_MAX_DEPS)
		return -ENOSPC;
	ret = sim_grow((void **)&g->pend, &g->cap_pend, g->npend + 2,
		       sizeof(*g->pend));
	if (ret)
		return ret;
	g->pend[g->npend++] = waiter;
	g->pend[g->npend++] = (waited << 1) | istart;
	return 0;
}

/*
 * Kahn's walk over the edges: an op is reached once every edge into it is;
 * ops left unreached lie on a cycle or behind one.  Each of those has an
 * unreached op before it, so walking back from one along such edges must
 * come round to an op already seen: that one is on a cycle, and returned.
 * UINT32_MAX when there is no cycle.
 */
static uint32_t sim_find_cycle(const struct th_sim_goal *g)
{
	uint32_t *left, *stack, nstack = 0, i, e, reached = 0;
	uint32_t found = UINT32_MAX;

	left = malloc(((size_t)g->nops + 1) * sizeof(*left));
	stack = malloc(((size_t)g->nops + 1) * sizeof(*stack));
	if (!left || !stack)
		goto out;
	for (i = 0; i < g->nops; i++) {
		left[i] = g->nin[i];
		if (!left[i])
			stack[nstack++] = i;
	}
	while (nstack) {
		uint32_t x = stack[--nstack];

		reached++;
		for (e = g->out_first[x]; e < g->out_first[x + 1]; e++) {
			uint32_t w = g->out[e] >> 1;

			if (!--left[w])
				stack[nstack++] = w;
		}
	}
	if (reached == g->nops)
		goto out;
	/* stack[] now holds, for each unreached op, an unreached op before it */
	for (i = 0; i < g->nops; i++)
		for (e = g->out_first[i]; left[i] && e < g->out_first[i + 1]; e++)
			if (left[g->out[e] >> 1])
				stack[g->out[e] >> 1] = i;
	for (i = 0; i < g->nops && !left[i]; i++)
		;
	/* left[] marks the ops seen on the walk back: UINT32_MAX */
	while (left[i] != UINT32_MAX) {
		left[i] = UINT32_MAX;
		i = stack[i];
	}
	found = i;
out:
	free(left);
	free(stack);
	return found;
}

int sim_goal_finalize(struct th_sim_goal *g, const char *name, char *err,
		      size_t errlen)
{
	uint32_t *newidx = NULL, *count = NULL, i, r, npairs = g->npend / 2;
	struct sim_op *ops = NULL;
	uint32_t cyc;
	int ret = -ENOMEM;

	/* a counting sort of the ops by rank, stable */
	g->rank_first = calloc((size_t)g->nranks + 1, sizeof(*g->rank_first));
	newidx = malloc(((size_t)g->nops + 1) * sizeof(*newidx));
	ops = malloc(((size_t)g->nops + 1) * sizeof(*ops));
	g->out_first = calloc((size_t)g->nops + 2, sizeof(*g->out_first));
	g->nin = calloc((size_t)g->nops + 1, sizeof(*g->nin));
	g->out = malloc(((size_t)npairs + 1) * sizeof(*g->out));
	count = calloc((size_t)g->nranks + 1, sizeof(*count));
	if (!g->rank_first || !newidx || !ops || !g->out_first || !g->nin ||
	    !g->out || !count)
		goto fail;
	for (i = 0; i < g->nops; i++)
		g->rank_first[g->ops[i].rank + 1]++;
	for (r = 0; r < g->nranks; r++)
		g->rank_first[r + 1] += g->rank_first[r];
	for (i = 0; i < g->nops; i++) {
		r = g->ops[i].rank;
		newidx[i] = g->rank_first[r] + count[r]++;
		ops[newidx[i]] = g->ops[i];
	}
	free(g->ops);
	g->ops = ops;
	ops = NULL;
	g->cap_ops = g->nops;

	/* the edges, grouped by the op they leave */
	for (i = 0; i < npairs; i++)
		g->out_first[newidx[g->pend[2 * i + 1] >> 1] + 1]++;
	for (i = 0; i < g->nops; i++)
		g->out_first[i + 1] += g->out_first[i];
	{
		uint32_t *fill = calloc((size_t)g->nops + 1, sizeof(*fill));

		if (!fill)
			goto fail;
		for (i = 0; i < npairs; i++) {
			uint32_t w = newidx[g->pend[2 * i]];
			uint32_t x = newidx[g->pend[2 * i + 1] >> 1];
			uint32_t istart = g->pend[2 * i + 1] & 1;

			g->out[g->out_first[x] + fill[x]++] = (w << 1) | istart;
			g->nin[w]++;
		}
		free(fill);
	}
	free(g->pend);
	g->pend = NULL;
	g->npend = g->cap_pend = 0;

	cyc = sim_find_cycle(g);
	if (cyc != UINT32_MAX) {
		const struct sim_op *op = &g->ops[cyc];

		if (op->line)
			sim_err(err, errlen,
				"%s:%" PRIu32 ": rank %" PRIu32 ": the requires and irequires of this operation form a cycle: it can never start",
				name, op->line, op->rank);
		else
			sim_err(err, errlen,
				"%s: rank %" PRIu32 ": the dependencies form a cycle",
				name, op->rank);
		ret = -ELOOP;
		goto fail;
	}
	free(newidx);
	free(count);
	g->finalized = true;
	return 0;
fail:
	if (ret == -ENOMEM)
		sim_err(err, errlen, "%s: out of memory holding the schedule",
			name);
	free(ops);
	free(newidx);
	free(count);
	return ret;
}

void th_sim_goal_destroy(struct th_sim_goal *g)
{
	if (!g)
		return;
	free(g->ops);
	free(g->rank_first);
	free(g->out_first);
	free(g->out);
	free(g->nin);
	free(g->pend);
	free(g);
}

static void sim_write_units(const struct th_sim_goal *g,
			    const struct sim_op *op, FILE *f)
{
	/* only when the schedule uses more than one: LogGOPSim's default is 0 */
	if (g->ncpus > 1)
		fprintf(f, " cpu %u", op->cpu);
	if (g->nnics > 1 && op->kind != SIM_CALC)
		fprintf(f, " nic %u", op->nic);
}

static void sim_write_peer_tag(uint32_t v, FILE *f)
{
	if (v == SIM_ANY)
		fputs("-1", f);
	else
		fprintf(f, "%" PRIu32, v);
}

int th_sim_goal_write(const struct th_sim_goal *g, FILE *f)
{
	uint32_t r, i, e;

	if (!g || !f || !g->finalized)
		return -EINVAL;
	fprintf(f, "num_ranks %u\n", g->nranks);
	for (r = 0; r < g->nranks; r++) {
		uint32_t first = g->rank_first[r], last = g->rank_first[r + 1];

		fprintf(f, "\nrank %" PRIu32 " {\n", r);
		/* labels are l1, l2 ... in the rank's order */
		for (i = first; i < last; i++) {
			const struct sim_op *op = &g->ops[i];

			fprintf(f, "l%" PRIu32 ": ", i - first + 1);
			switch (op->kind) {
			case SIM_SEND:
				fprintf(f, "send %" PRIu64 "b to %" PRIu32 " tag ",
					op->arg, op->peer);
				sim_write_peer_tag(op->tag, f);
				break;
			case SIM_RECV:
				fprintf(f, "recv %" PRIu64 "b from ", op->arg);
				sim_write_peer_tag(op->peer, f);
				fputs(" tag ", f);
				sim_write_peer_tag(op->tag, f);
				break;
			default:
				fprintf(f, "calc %" PRIu64, op->arg);
				break;
			}
			sim_write_units(g, op, f);
			fputc('\n', f);
		}
		for (i = first; i < last; i++)
			for (e = g->out_first[i]; e < g->out_first[i + 1]; e++)
				fprintf(f, "l%" PRIu32 " %s l%" PRIu32 "\n",
					(g->out[e] >> 1) - first + 1,
					(g->out[e] & 1) ? "irequires" : "requires",
					i - first + 1);
		fputs("}\n", f);
	}
	return ferror(f) ? -EIO : 0;
}
