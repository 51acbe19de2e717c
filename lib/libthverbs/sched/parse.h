/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* parse.h - helpers shared by the STG and th_dag text parsers. */
#ifndef TH_SCHED_PARSE_H
#define TH_SCHED_PARSE_H

#include <stdarg.h>
#include <stddef.h>

#include "sched_priv.h"

/* One line of input split into tokens, with 1-based columns. */
#define TH_DAG_LEX_MAX_TOKENS	4096

struct th_dag_lex {
	const char *p;
	const char *end;
	unsigned int line;		/* of the current line */
	const char *line_start;
	unsigned int line_len;
	unsigned int ntok;
	const char *tok[TH_DAG_LEX_MAX_TOKENS];
	unsigned int tok_len[TH_DAG_LEX_MAX_TOKENS];
	unsigned int tok_col[TH_DAG_LEX_MAX_TOKENS];
	bool overflow;
	unsigned int nul_col;		/* a NUL byte's column, 0: none */
};

#pragma GCC visibility push(hidden)

void th_dag_lex_init(struct th_dag_lex *lx, const char *text, size_t len);
/*
 * A line no parser can take: too many tokens, or a NUL byte (text files
 * have none; it would end a number or a name early and silently).  Fills
 * @diag and returns its error, or 0 for a good line.
 */
int th_dag_lex_refuse(const struct th_dag_lex *lx, struct th_dag_diag *diag);
/* Next line with tokens, skipping blank and '#' lines; false at the end. */
bool th_dag_lex_next(struct th_dag_lex *lx);
/* Column just past the last token: where a missing token was expected. */
unsigned int th_dag_lex_eol_col(const struct th_dag_lex *lx);

int th_dag_diag_set(struct th_dag_diag *d, unsigned int line, unsigned int col,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void th_dag_diag_warn(struct th_dag_diag *d, unsigned int line,
		  const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Parses a whole token as an integer or a real; false if it is not one. */
bool th_dag_tok_long(const char *tok, unsigned int len, long *out);
bool th_dag_tok_double(const char *tok, unsigned int len, double *out);

/* A whole file, malloc'd; NULL with errno and diag->msg. */
char *th_dag_read_file(const char *path, size_t *len, struct th_dag_diag *diag);

/* An edge on a cycle of an unfinalized graph, or -1 when there is none. */
long th_dag_cycle_edge(const struct th_dag *dag);

#pragma GCC visibility pop

#endif /* TH_SCHED_PARSE_H */
