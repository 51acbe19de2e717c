// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * text.c - the th_dag text format (parser and writer) and th_dag_load().
 *
 *	thdag 1
 *	procs P
 *	task NAME w_1 ... w_P
 *	edge FROM TO COST
 *
 * '#' starts a comment line; tasks are declared before the edges that name
 * them; costs are non-negative reals.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

struct th_text_edge {
	unsigned int from;
	unsigned int to;
	double cost;
	unsigned int line;
	unsigned int col;
};

struct th_text {
	unsigned int nprocs;
	unsigned int ntask;
	unsigned int cap_task;
	char **names;
	double *w;			/* ntask x nprocs */
	unsigned int nedge;
	unsigned int cap_edge;
	struct th_text_edge *edges;
	/* open-addressing hash of names -> task + 1 */
	unsigned int hcap;
	unsigned int *hash;
};

static uint64_t th_text_hash_str(const char *s, unsigned int len)
{
	uint64_t h = 1469598103934665603ull;

	while (len--)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static int th_text_lookup(const struct th_text *t, const char *s,
			  unsigned int len)
{
	unsigned int i;

	if (!t->hcap)
		return -1;
	i = th_text_hash_str(s, len) & (t->hcap - 1);
	for (; t->hash[i]; i = (i + 1) & (t->hcap - 1)) {
		const char *n = t->names[t->hash[i] - 1];

		if (strlen(n) == len && !memcmp(n, s, len))
			return t->hash[i] - 1;
	}
	return -1;
}

static int th_text_rehash(struct th_text *t)
{
	unsigned int cap = t->hcap ? 2 * t->hcap : 256, i, *h;

	h = calloc(cap, sizeof(*h));
	if (!h)
		return -ENOMEM;
	for (i = 0; i < t->ntask; i++) {
		const char *n = t->names[i];
		unsigned int k = th_text_hash_str(n, strlen(n)) & (cap - 1);

		while (h[k])
			k = (k + 1) & (cap - 1);
		h[k] = i + 1;
	}
	free(t->hash);
	t->hash = h;
	t->hcap = cap;
	return 0;
}

static int th_text_add_task(struct th_text *t, const char *name,
			    unsigned int len)
{
	unsigned int k;
	char *copy;

	if (t->ntask == t->cap_task) {
		unsigned int cap = t->cap_task ? 2 * t->cap_task : 64;
		char **nn = realloc(t->names, cap * sizeof(*nn));
		double *nw;

		if (!nn)
			return -ENOMEM;
		t->names = nn;
		nw = realloc(t->w, (size_t)cap * t->nprocs * sizeof(*nw));
		if (!nw)
			return -ENOMEM;
		t->w = nw;
		t->cap_task = cap;
	}
	copy = strndup(name, len);
	if (!copy)
		return -ENOMEM;
	t->names[t->ntask++] = copy;
	if (2 * t->ntask > t->hcap)
		return th_text_rehash(t);
	k = th_text_hash_str(name, len) & (t->hcap - 1);
	while (t->hash[k])
		k = (k + 1) & (t->hcap - 1);
	t->hash[k] = t->ntask;
	return 0;
}

static void th_text_free(struct th_text *t)
{
	unsigned int i;

	for (i = 0; i < t->ntask; i++)
		free(t->names[i]);
	free(t->names);
	free(t->w);
	free(t->edges);
	free(t->hash);
}

static bool th_text_name_ok(const char *s, unsigned int len)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-+", s[i]))
			return false;
	return len > 0;
}

static bool th_tok_is(const struct th_dag_lex *lx, unsigned int i, const char *w)
{
	return lx->tok_len[i] == strlen(w) && !memcmp(lx->tok[i], w, lx->tok_len[i]);
}

/* A non-negative cost in token i, or an error in diag. */
static int th_text_cost(const struct th_dag_lex *lx, unsigned int i,
			struct th_dag_diag *diag, const char *what, double *out)
{
	if (i >= lx->ntok)
		return th_dag_diag_set(diag, lx->line, th_dag_lex_eol_col(lx) + 1,
				   "expected a %s (truncated line)", what);
	if (!th_dag_tok_double(lx->tok[i], lx->tok_len[i], out))
		return th_dag_diag_set(diag, lx->line, lx->tok_col[i],
				   "expected a %s, got '%.*s'", what,
				   (int)lx->tok_len[i], lx->tok[i]);
	if (*out < 0)
		return th_dag_diag_set(diag, lx->line, lx->tok_col[i],
				   "expected a non-negative %s, got %g", what, *out);
	return 0;
}

static int th_text_line(struct th_text *t, struct th_dag_lex *lx, int state,
			struct th_dag_diag *d)
{
	unsigned int i;
	long l;
	int ret, a, b;

	if (state == 0) {
		if (!th_tok_is(lx, 0, "thdag") || lx->ntok < 2 ||
		    !th_dag_tok_long(lx->tok[1], lx->tok_len[1], &l) || l != 1 ||
		    lx->ntok > 2)
			return th_dag_diag_set(d, lx->line, lx->tok_col[0],
					   "expected 'thdag 1'");
		return 0;
	}
	if (state == 1) {
		if (!th_tok_is(lx, 0, "procs"))
			return th_dag_diag_set(d, lx->line, lx->tok_col[0],
					   "expected 'procs P'");
		if (lx->ntok != 2 ||
		    !th_dag_tok_long(lx->tok[1], lx->tok_len[1], &l) || l < 1 ||
		    l > 4096)
			return th_dag_diag_set(d, lx->line, lx->ntok > 1 ? lx->tok_col[1] :
					   th_dag_lex_eol_col(lx) + 1,
					   "expected a processor count from 1 to 4096");
		t->nprocs = l;
		return 0;
	}
	if (th_tok_is(lx, 0, "task")) {
		if (t->nedge)
			return th_dag_diag_set(d, lx->line, lx->tok_col[0],
					   "expected 'edge': tasks come before edges");
		if (lx->ntok < 2 || !th_text_name_ok(lx->tok[1], lx->tok_len[1]))
			return th_dag_diag_set(d, lx->line, lx->ntok > 1 ? lx->tok_col[1] :
					   th_dag_lex_eol_col(lx) + 1,
					   "expected a task name ([A-Za-z0-9_.:+-])");
		if (th_text_lookup(t, lx->tok[1], lx->tok_len[1]) >= 0)
			return th_dag_diag_set(d, lx->line, lx->tok_col[1],
					   "expected a new task name, '%.*s' is taken",
					   (int)lx->tok_len[1], lx->tok[1]);
		ret = th_text_add_task(t, lx->tok[1], lx->tok_len[1]);
		if (ret)
			return th_dag_diag_set(d, 0, 0, "out of memory");
		for (i = 0; i < t->nprocs; i++) {
			ret = th_text_cost(lx, 2 + i, d, "computation cost",
					   &t->w[(size_t)(t->ntask - 1) * t->nprocs + i]);
			if (ret)
				return ret;
		}
		if (lx->ntok > 2 + t->nprocs)
			return th_dag_diag_set(d, lx->line, lx->tok_col[2 + t->nprocs],
					   "expected end of line after %u costs", t->nprocs);
		return 0;
	}
	if (th_tok_is(lx, 0, "edge")) {
		struct th_text_edge *e;
		double c;

		for (i = 1; i < 3; i++) {
			if (i >= lx->ntok)
				return th_dag_diag_set(d, lx->line, th_dag_lex_eol_col(lx) + 1,
						   "expected a task name (truncated line)");
		}
		a = th_text_lookup(t, lx->tok[1], lx->tok_len[1]);
		if (a < 0)
			return th_dag_diag_set(d, lx->line, lx->tok_col[1],
					   "expected a declared task, '%.*s' is unknown",
					   (int)lx->tok_len[1], lx->tok[1]);
		b = th_text_lookup(t, lx->tok[2], lx->tok_len[2]);
		if (b < 0)
			return th_dag_diag_set(d, lx->line, lx->tok_col[2],
					   "expected a declared task, '%.*s' is unknown",
					   (int)lx->tok_len[2], lx->tok[2]);
		if (a == b)
			return th_dag_diag_set(d, lx->line, lx->tok_col[2],
					   "cycle: an edge from '%s' to itself",
					   t->names[a]);
		ret = th_text_cost(lx, 3, d, "communication cost", &c);
		if (ret)
			return ret;
		if (lx->ntok > 4)
			return th_dag_diag_set(d, lx->line, lx->tok_col[4],
					   "expected end of line after the edge cost");
		if (t->nedge == t->cap_edge) {
			unsigned int cap = t->cap_edge ? 2 * t->cap_edge : 64;

			e = realloc(t->edges, cap * sizeof(*e));
			if (!e)
				return th_dag_diag_set(d, 0, 0, "out of memory");
			t->edges = e;
			t->cap_edge = cap;
		}
		e = &t->edges[t->nedge++];
		e->from = a;
		e->to = b;
		e->cost = c;
		e->line = lx->line;
		e->col = lx->tok_col[0];
		return 0;
	}
	return th_dag_diag_set(d, lx->line, lx->tok_col[0],
			   "expected 'task' or 'edge', got '%.*s'",
			   (int)lx->tok_len[0], lx->tok[0]);
}

struct th_dag *th_dag_parse_text(const char *text, size_t len,
				 struct th_dag_diag *diag)
{
	struct th_dag_diag scratch;
	struct th_dag *dag = NULL;
	struct th_text t;
	struct th_dag_lex *lx;
	unsigned int i, s;
	int ret = -ENOMEM, state = 0;

	if (!diag)
		diag = &scratch;
	memset(diag, 0, sizeof(*diag));
	memset(&t, 0, sizeof(t));
	lx = th_dag_lex_create(text, len);
	if (!lx) {
		errno = ENOMEM;
		return NULL;
	}
	while (th_dag_lex_next(lx)) {
		ret = th_dag_lex_refuse(lx, diag);
		if (ret)
			goto err;
		ret = th_text_line(&t, lx, state, diag);
		if (ret)
			goto err;
		if (state < 2)
			state++;
	}
	if (!t.ntask) {
		ret = th_dag_diag_set(diag, lx->line + 1, 1,
				  state == 0 ? "expected 'thdag 1'" :
				  state == 1 ? "expected 'procs P'" :
				  "expected at least one task");
		goto err;
	}
	dag = th_dag_create(t.ntask);
	if (!dag)
		goto err_nomem;
	ret = th_dag_set_procs(dag, t.nprocs);
	for (i = 0; !ret && i < t.ntask; i++) {
		ret = th_dag_set_name(dag, i, t.names[i]);
		for (s = 0; !ret && s < t.nprocs; s++)
			ret = th_dag_set_cost(dag, i, s,
					      t.w[(size_t)i * t.nprocs + s]);
	}
	for (i = 0; !ret && i < t.nedge; i++)
		ret = th_dag_add_edge(dag, t.edges[i].from, t.edges[i].to,
				      t.edges[i].cost);
	if (ret)
		goto err_nomem;
	ret = th_dag_finalize(dag);
	if (ret == -ELOOP) {
		long e = th_dag_cycle_edge(dag);

		if (e >= 0 && e < t.nedge)
			ret = th_dag_diag_set(diag, t.edges[e].line, t.edges[e].col,
					  "cycle: edge %s -> %s is on a cycle",
					  t.names[t.edges[e].from],
					  t.names[t.edges[e].to]);
		else
			ret = th_dag_diag_set(diag, 1, 1, "cycle in the graph");
		goto err;
	}
	if (ret == -EEXIST) {
		unsigned int j;

		/* find the second edge between the same pair, for its line */
		for (i = 0; i < t.nedge; i++)
			for (j = 0; j < i; j++)
				if (t.edges[j].from == t.edges[i].from &&
				    t.edges[j].to == t.edges[i].to) {
					ret = th_dag_diag_set(diag, t.edges[i].line,
							  t.edges[i].col,
							  "expected a new edge: %s -> %s is repeated",
							  t.names[t.edges[i].from],
							  t.names[t.edges[i].to]);
					goto err;
				}
		goto err;
	}
	if (ret)
		goto err;
	th_dag_lex_destroy(lx);
	th_text_free(&t);
	return dag;

err_nomem:
	ret = -ENOMEM;
	th_dag_diag_set(diag, 0, 0, "out of memory");
err:
	th_dag_lex_destroy(lx);
	th_text_free(&t);
	th_dag_destroy(dag);
	errno = -ret;
	return NULL;
}

/* Shortest text that reads back as the same double. */
static void th_text_num(FILE *f, double x)
{
	char buf[40];

	snprintf(buf, sizeof(buf), "%.10g", x);
	if (strtod(buf, NULL) != x)
		snprintf(buf, sizeof(buf), "%.17g", x);
	fprintf(f, " %s", buf);
}

int th_dag_write_text(const struct th_dag *dag, FILE *f)
{
	unsigned int i, s;

	if (!dag->nprocs)
		return -EINVAL;
	fprintf(f, "thdag 1\n# %u tasks, %u edges, CCR %.4g\nprocs %u\n",
		dag->nreal, dag->nedges, th_dag_ccr(dag), dag->nprocs);
	for (i = 0; i < dag->ntasks; i++) {
		if (dag->virt[i])
			continue;
		fprintf(f, "task %s", dag->names[i]);
		for (s = 0; s < dag->nprocs; s++)
			th_text_num(f, th_dag_w(dag, i, s));
		fputc('\n', f);
	}
	for (i = 0; i < dag->nedges; i++) {
		const struct th_dag_edge *e = &dag->edges[i];

		if (dag->virt[e->from] || dag->virt[e->to])
			continue;
		fprintf(f, "edge %s %s", dag->names[e->from], dag->names[e->to]);
		th_text_num(f, e->cost);
		fputc('\n', f);
	}
	return ferror(f) ? -EIO : 0;
}

struct th_dag *th_dag_load(const char *path, struct th_dag_diag *diag)
{
	struct th_dag *dag;
	const char *p;
	size_t len;
	char *buf;
	int err;

	buf = th_dag_read_file(path, &len, diag);
	if (!buf)
		return NULL;
	/* the first word that is not white space or in a '#' comment line */
	for (p = buf; p < buf + len; p++) {
		if (*p == '#')
			while (p < buf + len && *p != '\n')
				p++;
		else if (!strchr(" \t\r\n", *p))
			break;
	}
	if (len - (p - buf) >= 5 && !memcmp(p, "thdag", 5))
		dag = th_dag_parse_text(buf, len, diag);
	else
		dag = th_dag_parse_stg(buf, len, diag);
	err = errno;
	free(buf);
	errno = err;
	return dag;
}
