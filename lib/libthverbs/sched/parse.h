/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* parse.h - helpers shared by the STG and th_dag text parsers. */
#ifndef TH_SCHED_PARSE_H
#define TH_SCHED_PARSE_H

#include <stdarg.h>
#include <stddef.h>

#include "sched_priv.h"

/*
 * One line of input split into tokens, with 1-based columns.  The token
 * arrays grow with the longest line: a graph of 4096 processors has 4098
 * tokens on a task line and an STG task lists all its predecessors on
 * one.  The cap bounds the arrays at 16 MiB whatever the input.
 */
#define TH_DAG_LEX_MAX_TOKENS	(1u << 20)

struct th_dag_lex {
	const char *p;
	const char *end;
	unsigned int line;		/* of the current line */
	const char *line_start;
	unsigned int line_len;
	unsigned int ntok;
	unsigned int cap;		/* entries in the three arrays */
	const char **tok;
	unsigned int *tok_len;
	unsigned int *tok_col;
	bool overflow;
	bool nomem;			/* the arrays could not grow */
	unsigned int nul_col;		/* a NUL byte's column, 0: none */
};

#pragma GCC visibility push(hidden)

/* A lexer over @text (not copied); NULL with errno ENOMEM. */
struct th_dag_lex *th_dag_lex_create(const char *text, size_t len);
void th_dag_lex_destroy(struct th_dag_lex *lx);
/*
 * A line no parser can take: too many tokens (or no memory for them), or
 * a NUL byte (text files
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
