// SPDX-License-Identifier: GPL-2.0 OR MIT
/* stg.c - the Standard Task Graph parser: structure and base weights. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

/* A predecessor reference kept until every task line has been read. */
struct th_stg_ref {
	unsigned int to;
	long from;
	unsigned int line;
	unsigned int col;
};

struct th_stg_task {
	double time;
	unsigned int line;
};

static struct th_dag *th_stg_fail(struct th_dag *dag, int err)
{
	th_dag_destroy(dag);
	errno = -err;
	return NULL;
}

struct th_dag *th_dag_parse_stg(const char *text, size_t len,
				struct th_dag_diag *diag)
{
	unsigned int ntask = 0, cap_task = 0, nref = 0, cap_ref = 0, i;
	unsigned int header_line = 0, first_ref;
	struct th_stg_task *tasks = NULL;
	struct th_stg_ref *refs = NULL;
	struct th_dag *dag = NULL;
	struct th_dag_diag scratch;
	struct th_dag_lex *lx;
	long header = -1;
	int ret = -ENOMEM;

	if (!diag)
		diag = &scratch;
	memset(diag, 0, sizeof(*diag));
	lx = th_dag_lex_create(text, len);
	if (!lx)
		return th_stg_fail(NULL, -ENOMEM);
	while (th_dag_lex_next(lx)) {
		long id, k, from;
		double t;

		ret = th_dag_lex_refuse(lx, diag);
		if (ret)
			goto err;
		if (header < 0) {
			if (!th_dag_tok_long(lx->tok[0], lx->tok_len[0], &header) ||
			    header < 0) {
				ret = th_dag_diag_set(diag, lx->line, lx->tok_col[0],
						  "expected the number of tasks");
				header = -1;
				goto err;
			}
			if (lx->ntok > 1) {
				ret = th_dag_diag_set(diag, lx->line, lx->tok_col[1],
						  "expected end of line after the number of tasks");
				goto err;
			}
			header_line = lx->line;
			continue;
		}
		if (!th_dag_tok_long(lx->tok[0], lx->tok_len[0], &id) || id < 0) {
			ret = th_dag_diag_set(diag, lx->line, lx->tok_col[0],
					  "expected a task id");
			goto err;
		}
		if (id != (long)ntask) {
			ret = th_dag_diag_set(diag, lx->line, lx->tok_col[0],
					  "expected task id %u (ids run from 0 without gaps), got %ld",
					  ntask, id);
			goto err;
		}
		if (lx->ntok < 2) {
			ret = th_dag_diag_set(diag, lx->line, th_dag_lex_eol_col(lx) + 1,
					  "expected a processing time (truncated line)");
			goto err;
		}
		if (!th_dag_tok_double(lx->tok[1], lx->tok_len[1], &t)) {
			ret = th_dag_diag_set(diag, lx->line, lx->tok_col[1],
					  "expected a processing time");
			goto err;
		}
		if (t < 0) {
			ret = th_dag_diag_set(diag, lx->line, lx->tok_col[1],
					  "expected a non-negative processing time, got %g", t);
			goto err;
		}
		if (lx->ntok < 3) {
			ret = th_dag_diag_set(diag, lx->line, th_dag_lex_eol_col(lx) + 1,
					  "expected the number of predecessors (truncated line)");
			goto err;
		}
		if (!th_dag_tok_long(lx->tok[2], lx->tok_len[2], &k) || k < 0) {
			ret = th_dag_diag_set(diag, lx->line, lx->tok_col[2],
					  "expected the number of predecessors");
			goto err;
		}
		/* k against what the line holds: 3 + k overflows for huge k */
		if (k > (long)lx->ntok - 3) {
			ret = th_dag_diag_set(diag, lx->line, th_dag_lex_eol_col(lx) + 1,
					  "expected %ld predecessor ids, got %u (truncated line)",
					  k, lx->ntok - 3);
			goto err;
		}
		if (k < (long)lx->ntok - 3) {
			ret = th_dag_diag_set(diag, lx->line, lx->tok_col[3 + k],
					  "expected end of line after %ld predecessor ids", k);
			goto err;
		}
		if (ntask == cap_task) {
			struct th_stg_task *nt;

			cap_task = cap_task ? 2 * cap_task : 64;
			nt = realloc(tasks, cap_task * sizeof(*nt));
			if (!nt)
				goto err_nomem;
			tasks = nt;
		}
		tasks[ntask].time = t;
		tasks[ntask].line = lx->line;
		first_ref = nref;
		for (i = 0; i < k; i++) {
			unsigned int ti = 3 + i, j;

			if (!th_dag_tok_long(lx->tok[ti], lx->tok_len[ti], &from) ||
			    from < 0) {
				ret = th_dag_diag_set(diag, lx->line, lx->tok_col[ti],
						  "expected a predecessor id");
				goto err;
			}
			if (from == id) {
				ret = th_dag_diag_set(diag, lx->line, lx->tok_col[ti],
						  "cycle: task %ld is its own predecessor", id);
				goto err;
			}
			for (j = first_ref; j < nref; j++)
				if (refs[j].from == from)
					break;
			if (j < nref) {
				ret = th_dag_diag_set(diag, lx->line, lx->tok_col[ti],
						  "expected distinct predecessors: %ld is listed twice",
						  from);
				goto err;
			}
			if (nref == cap_ref) {
				struct th_stg_ref *nr;

				cap_ref = cap_ref ? 2 * cap_ref : 256;
				nr = realloc(refs, cap_ref * sizeof(*nr));
				if (!nr)
					goto err_nomem;
				refs = nr;
			}
			refs[nref].to = ntask;
			refs[nref].from = from;
			refs[nref].line = lx->line;
			refs[nref].col = lx->tok_col[ti];
			nref++;
		}
		ntask++;
	}
	if (header < 0) {
		ret = th_dag_diag_set(diag, lx->line + 1, 1,
				  "expected the number of tasks (empty file)");
		goto err;
	}
	if (ntask < 1) {
		ret = th_dag_diag_set(diag, lx->line + 1, 1,
				  "expected task lines after the header");
		goto err;
	}
	if ((long)ntask == header)
		th_dag_diag_warn(diag, header_line,
			     "header says %ld tasks but counts the entry and exit dummies: the file has %u task lines, so it should say %u; using the %u lines",
			     header, ntask, ntask >= 2 ? ntask - 2 : 0, ntask);
	else if ((long)ntask != header + 2)
		th_dag_diag_warn(diag, header_line,
			     "header says %ld tasks (%ld lines with the entry and exit dummies) but the file has %u task lines; using the %u lines",
			     header, header + 2, ntask, ntask);
	for (i = 0; i < nref; i++) {
		if (refs[i].from >= (long)ntask) {
			ret = th_dag_diag_set(diag, refs[i].line, refs[i].col,
					  "expected a defined predecessor: task %ld does not exist",
					  refs[i].from);
			goto err;
		}
	}
	dag = th_dag_create(ntask);
	if (!dag)
		goto err_nomem;
	for (i = 0; i < ntask; i++) {
		char name[24];

		snprintf(name, sizeof(name), "%u", i);
		ret = th_dag_set_name(dag, i, name);
		if (!ret)
			ret = th_dag_set_base(dag, i, tasks[i].time);
		if (ret)
			goto err;
	}
	for (i = 0; i < nref; i++) {
		ret = th_dag_add_edge(dag, refs[i].from, refs[i].to, 0);
		if (ret)
			goto err;
	}
	ret = th_dag_finalize(dag);
	if (ret == -ELOOP) {
		long e = th_dag_cycle_edge(dag);

		if (e >= 0)
			ret = th_dag_diag_set(diag, refs[e].line, refs[e].col,
					  "cycle: task %u depends on task %ld, which depends back on it",
					  refs[e].to, refs[e].from);
		else
			ret = th_dag_diag_set(diag, 1, 1, "cycle in the graph");
		goto err;
	}
	if (ret)
		goto err;
	th_dag_lex_destroy(lx);
	free(tasks);
	free(refs);
	return dag;

err_nomem:
	ret = -ENOMEM;
	th_dag_diag_set(diag, 0, 0, "out of memory");
err:
	th_dag_lex_destroy(lx);
	free(tasks);
	free(refs);
	return th_stg_fail(dag, ret);
}
