// SPDX-License-Identifier: GPL-2.0 OR MIT
/* parse.c - the line lexer, diagnostics and cycle finder of the parsers. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

/* The largest graph, job or model file read: 256 MiB. */
#define TH_DAG_MAX_FILE	(256u << 20)

struct th_dag_lex *th_dag_lex_create(const char *text, size_t len)
{
	struct th_dag_lex *lx = calloc(1, sizeof(*lx));

	if (!lx) {
		errno = ENOMEM;
		return NULL;
	}
	lx->p = text;
	lx->end = text + len;
	return lx;
}

void th_dag_lex_destroy(struct th_dag_lex *lx)
{
	if (!lx)
		return;
	free(lx->tok);
	free(lx->tok_len);
	free(lx->tok_col);
	free(lx);
}

/* Room for one more token; false (and lx->nomem) when it cannot grow. */
static bool th_dag_lex_room(struct th_dag_lex *lx)
{
	unsigned int cap = lx->cap ? lx->cap * 2 : 64;
	const char **tok;
	unsigned int *len, *col;

	if (lx->ntok < lx->cap)
		return true;
	if (cap > TH_DAG_LEX_MAX_TOKENS)
		cap = TH_DAG_LEX_MAX_TOKENS;
	/* Each array is replaced only once it has grown: none is lost. */
	tok = realloc(lx->tok, cap * sizeof(*tok));
	if (tok)
		lx->tok = tok;
	len = tok ? realloc(lx->tok_len, cap * sizeof(*len)) : NULL;
	if (len)
		lx->tok_len = len;
	col = len ? realloc(lx->tok_col, cap * sizeof(*col)) : NULL;
	if (!col) {
		lx->nomem = true;
		return false;
	}
	lx->tok_col = col;
	lx->cap = cap;
	return true;
}

static bool th_dag_lex_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

bool th_dag_lex_next(struct th_dag_lex *lx)
{
	while (lx->p < lx->end) {
		const char *s = lx->p, *e = memchr(s, '\n', lx->end - s), *q;

		if (!e)
			e = lx->end;
		lx->p = e < lx->end ? e + 1 : e;
		lx->line++;
		lx->line_start = s;
		lx->line_len = e - s;
		lx->ntok = 0;
		lx->overflow = false;
		lx->nomem = false;
		q = memchr(s, '\0', e - s);
		lx->nul_col = q ? q - s + 1 : 0;
		for (q = s; q < e && th_dag_lex_space(*q); q++)
			;
		if (q == e || *q == '#')
			continue;
		while (q < e) {
			const char *t = q;

			while (q < e && !th_dag_lex_space(*q))
				q++;
			if (lx->ntok == TH_DAG_LEX_MAX_TOKENS) {
				lx->overflow = true;
				break;
			}
			if (!th_dag_lex_room(lx))
				break;
			lx->tok[lx->ntok] = t;
			lx->tok_len[lx->ntok] = q - t;
			lx->tok_col[lx->ntok] = t - s + 1;
			lx->ntok++;
			while (q < e && th_dag_lex_space(*q))
				q++;
		}
		return true;
	}
	return false;
}

unsigned int th_dag_lex_eol_col(const struct th_dag_lex *lx)
{
	unsigned int i = lx->ntok;

	if (!i)
		return 1;
	return lx->tok_col[i - 1] + lx->tok_len[i - 1];
}

int th_dag_diag_set(struct th_dag_diag *d, unsigned int line, unsigned int col,
		const char *fmt, ...)
{
	va_list ap;

	if (!d)
		return -EINVAL;
	d->line = line;
	d->col = col;
	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

void th_dag_diag_warn(struct th_dag_diag *d, unsigned int line,
		  const char *fmt, ...)
{
	va_list ap;

	if (!d || d->warn_line)
		return;
	d->warn_line = line;
	va_start(ap, fmt);
	vsnprintf(d->warn, sizeof(d->warn), fmt, ap);
	va_end(ap);
}

int th_dag_lex_refuse(const struct th_dag_lex *lx, struct th_dag_diag *diag)
{
	if (lx->nul_col)
		return th_dag_diag_set(diag, lx->line, lx->nul_col,
				       "expected text, got a NUL byte");
	if (lx->nomem) {
		th_dag_diag_set(diag, lx->line, 1, "out of memory");
		return -ENOMEM;
	}
	if (lx->overflow)
		return th_dag_diag_set(diag, lx->line, 1,
				       "line too long: more than %u tokens",
				       TH_DAG_LEX_MAX_TOKENS);
	return 0;
}

bool th_dag_tok_long(const char *tok, unsigned int len, long *out)
{
	char buf[32], *end;

	if (!len || len >= sizeof(buf))
		return false;
	memcpy(buf, tok, len);
	buf[len] = 0;
	errno = 0;
	*out = strtol(buf, &end, 10);
	return !errno && end == buf + len;
}

bool th_dag_tok_double(const char *tok, unsigned int len, double *out)
{
	char buf[64], *end;

	if (!len || len >= sizeof(buf))
		return false;
	memcpy(buf, tok, len);
	buf[len] = 0;
	errno = 0;
	*out = strtod(buf, &end);
	/*
	 * Finite is not enough: sums of a million costs of 1e308 overflow
	 * later, far from any line; a bound of 1e300 keeps them finite
	 */
	return !errno && end == buf + len && isfinite(*out) &&
	       fabs(*out) <= 1e300;
}

/*
 * An edge on a cycle, or -1 if there is none.  Kahn's algorithm over each
 * task's out-edges (a CSR index built once): linear in tasks and edges.
 * It used to scan every edge for each task taken, quadratic: 9.2 s for a
 * 160,000-task chain with one back edge.
 */
long th_dag_cycle_edge(const struct th_dag *dag)
{
	unsigned int n = dag->ntasks, m = dag->nedges, i, head = 0, tail = 0, v;
	unsigned int *indeg, *queue, *back, *first, *out;
	long ret = -1;

	indeg = calloc(n, sizeof(*indeg));
	queue = malloc(n * sizeof(*queue));
	back = malloc(n * sizeof(*back));
	first = calloc((size_t)n + 1, sizeof(*first));
	out = malloc((m ? m : 1) * sizeof(*out));
	if (!indeg || !queue || !back || !first || !out)
		goto out;
	/* out-edges of task v: out[first[v] .. first[v + 1]) */
	for (i = 0; i < m; i++) {
		indeg[dag->edges[i].to]++;
		first[dag->edges[i].from + 1]++;
	}
	for (v = 0; v < n; v++)
		first[v + 1] += first[v];
	memcpy(queue, first, n * sizeof(*queue));	/* fill cursors */
	for (i = 0; i < m; i++)
		out[queue[dag->edges[i].from]++] = i;
	for (i = 0; i < n; i++)
		if (!indeg[i])
			queue[tail++] = i;
	while (head < tail) {
		v = queue[head++];
		for (i = first[v]; i < first[v + 1]; i++)
			if (!--indeg[dag->edges[out[i]].to])
				queue[tail++] = dag->edges[out[i]].to;
	}
	if (tail == n)
		goto out;
	/* every task left has a predecessor left: walking back n steps lands on a cycle */
	memset(back, 0xff, n * sizeof(*back));
	for (i = 0; i < dag->nedges; i++)
		if (indeg[dag->edges[i].to] && indeg[dag->edges[i].from] &&
		    back[dag->edges[i].to] == TH_NONE)
			back[dag->edges[i].to] = i;
	for (v = 0; v < n && !indeg[v]; v++)
		;
	for (i = 0; i < n; i++)
		v = dag->edges[back[v]].from;
	ret = back[v];
out:
	free(indeg);
	free(queue);
	free(back);
	free(first);
	free(out);
	return ret;
}

/* The file's refusal, as an open failure is: no line, the reason, errno. */
static char *th_dag_read_fail(struct th_dag_diag *diag, int err,
			      const char *msg)
{
	if (diag) {
		memset(diag, 0, sizeof(*diag));
		snprintf(diag->msg, sizeof(diag->msg), "%s",
			 msg ? msg : strerror(err));
	}
	errno = err;
	return NULL;
}

/*
 * The whole of @path, at most TH_DAG_MAX_FILE bytes: a read error (a
 * directory reads as EISDIR, not as an empty file) and an endless input
 * (/dev/zero) are refused rather than taken or read until memory runs out.
 */
char *th_dag_read_file(const char *path, size_t *len_out,
		       struct th_dag_diag *diag)
{
	size_t len = 0, cap = 0, n;
	char *buf = NULL, *nb;
	FILE *f;
	int err;

	f = fopen(path, "r");
	if (!f)
		return th_dag_read_fail(diag, errno, NULL);
	do {
		if (cap - len < 65536) {
			cap = cap ? 2 * cap : 131072;
			nb = cap <= TH_DAG_MAX_FILE + 131072 ? realloc(buf, cap) : NULL;
			if (!nb) {
				free(buf);
				fclose(f);
				return th_dag_read_fail(diag, cap > TH_DAG_MAX_FILE ?
							EFBIG : ENOMEM,
							cap > TH_DAG_MAX_FILE ?
							"larger than the 256 MiB a graph file may be" :
							NULL);
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n && len <= TH_DAG_MAX_FILE);
	err = ferror(f) ? errno : len > TH_DAG_MAX_FILE ? EFBIG : 0;
	fclose(f);
	if (err) {
		free(buf);
		return th_dag_read_fail(diag, err, err == EFBIG ?
					"larger than the 256 MiB a graph file may be" :
					NULL);
	}
	*len_out = len;
	return buf;
}
