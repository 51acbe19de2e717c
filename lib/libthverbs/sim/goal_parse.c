// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * goal_parse.c - the GOAL text reader: num_ranks, rank blocks, send, recv
 * and calc with their tag/cpu/nic annotations, requires and irequires,
 * comments; every refusal says file:line: why.
 */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_priv.h"

enum tok_kind {
	TOK_EOF,
	TOK_NL,		/* statements end at a newline */
	TOK_WORD,	/* [A-Za-z_][A-Za-z0-9_]* */
	TOK_NUM,	/* [0-9]+ */
	TOK_NEG1,	/* -1: the wildcard */
	TOK_LBRACE,
	TOK_RBRACE,
	TOK_COLON,
};

struct tok {
	enum tok_kind kind;
	const char *s;
	size_t len;
	uint64_t num;
	uint32_t line;
};

/* a label of the open rank block */
struct label {
	const char *s;
	uint32_t len;
	uint32_t line;		/* where it was first named */
	int64_t op;		/* the op it labels, -1 while undefined */
	uint32_t slot;		/* its place in the table */
};

/* a dependency of the open block, resolved when it closes */
struct dep {
	uint32_t waiter, waited;	/* label slots */
	uint32_t line;
	bool istart;
};

struct parser {
	const char *p, *end, *name;
	uint32_t line;
	char *err;
	size_t errlen;
	struct tok t;			/* the current token */
	struct th_sim_goal *g;
	/* the open block: its labels (an open-addressed table) and deps */
	int64_t rank;			/* -1 outside a block */
	struct label *labels;		/* by number */
	uint32_t nlabels;
	uint32_t *table;		/* [table_cap]: number + 1, 0 free */
	uint32_t table_cap;
	struct dep *deps;
	uint32_t ndeps, cap_deps;
	uint8_t *rank_seen;		/* [nranks] */
	uint32_t *rank_line;		/* [nranks]: where its block opened */
};

static int goal_err(struct parser *ps, uint32_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int goal_err(struct parser *ps, uint32_t line, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	sim_err(ps->err, ps->errlen, "%s:%" PRIu32 ": %s", ps->name, line, why);
	return -EINVAL;
}

static bool goal_word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool goal_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* the next token into ps->t; comments are skipped, a newline in one kept */
static int goal_next_token(struct parser *ps)
{
	struct tok *t = &ps->t;

	for (;;) {
		while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' ||
					   *ps->p == '\r'))
			ps->p++;
		if (ps->end - ps->p >= 2 && ps->p[0] == '/' && ps->p[1] == '/') {
			while (ps->p < ps->end && *ps->p != '\n')
				ps->p++;
			continue;
		}
		if (ps->end - ps->p >= 2 && ps->p[0] == '/' && ps->p[1] == '*') {
			uint32_t start = ps->line;
			bool nl = false;

			ps->p += 2;
			while (ps->p < ps->end &&
			       !(ps->end - ps->p >= 2 && ps->p[0] == '*' &&
				 ps->p[1] == '/')) {
				if (*ps->p == '\n') {
					ps->line++;
					nl = true;
				}
				ps->p++;
			}
			if (ps->p >= ps->end)
				return goal_err(ps, start, "a /* comment is never closed");
			ps->p += 2;
			if (nl) {
				/* the comment ended a line: so does this token */
				t->kind = TOK_NL;
				t->line = ps->line - 1;
				return 0;
			}
			continue;
		}
		break;
	}
	t->line = ps->line;
	t->s = ps->p;
	if (ps->p >= ps->end) {
		t->kind = TOK_EOF;
		return 0;
	}
	switch (*ps->p) {
	case '\n':
		t->kind = TOK_NL;
		ps->line++;
		ps->p++;
		return 0;
	case '{':
		t->kind = TOK_LBRACE;
		ps->p++;
		return 0;
	case '}':
		t->kind = TOK_RBRACE;
		ps->p++;
		return 0;
	case ':':
		t->kind = TOK_COLON;
		ps->p++;
		return 0;
	}
	if (*ps->p == '-') {
		if (ps->end - ps->p >= 2 && ps->p[1] == '1' &&
		    (ps->end - ps->p == 2 || !goal_digit(ps->p[2]))) {
			t->kind = TOK_NEG1;
			ps->p += 2;
			return 0;
		}
		return goal_err(ps, ps->line, "a negative number other than -1 (the wildcard)");
	}
	if (goal_digit(*ps->p)) {
		uint64_t v = 0;

		while (ps->p < ps->end && goal_digit(*ps->p)) {
			if (v > (UINT64_MAX - 9) / 10)
				return goal_err(ps, ps->line, "a number too large for 64 bits");
			v = v * 10 + (uint64_t)(*ps->p - '0');
			ps->p++;
		}
		t->kind = TOK_NUM;
		t->num = v;
		t->len = (size_t)(ps->p - t->s);
		return 0;
	}
	if (goal_word_char(*ps->p)) {
		while (ps->p < ps->end && (goal_word_char(*ps->p) || goal_digit(*ps->p)))
			ps->p++;
		t->kind = TOK_WORD;
		t->len = (size_t)(ps->p - t->s);
		return 0;
	}
	if ((unsigned char)*ps->p >= 0x20 && (unsigned char)*ps->p < 0x7f)
		return goal_err(ps, ps->line, "unexpected character '%c'", *ps->p);
	return goal_err(ps, ps->line, "unexpected byte 0x%02x",
		    (unsigned char)*ps->p);
}

static bool goal_is_word(const struct tok *t, const char *w)
{
	return t->kind == TOK_WORD && t->len == strlen(w) &&
	       !memcmp(t->s, w, t->len);
}

/* what the current token is, for messages */
static const char *goal_tok_what(const struct tok *t, char *buf, size_t len)
{
	switch (t->kind) {
	case TOK_EOF:
		return "the end of the file";
	case TOK_NL:
		return "the end of the line";
	case TOK_NEG1:
		return "'-1'";
	default:
		snprintf(buf, len, "'%.*s'", (int)(t->len > 32 ? 32 : t->len),
			 t->s);
		return buf;
	}
}

static int goal_expect_end(struct parser *ps, const char *after)
{
	char b[48];
	int ret = goal_next_token(ps);

	if (ret)
		return ret;
	if (ps->t.kind != TOK_NL && ps->t.kind != TOK_EOF)
		return goal_err(ps, ps->t.line, "%s after %s: one statement a line",
			    goal_tok_what(&ps->t, b, sizeof(b)), after);
	return 0;
}

/* the next token must be a number no larger than @max (or -1 if @any) */
static int goal_want_num(struct parser *ps, const char *what, uint64_t max,
		    bool any, uint64_t *out)
{
	char b[48];
	int ret = goal_next_token(ps);

	if (ret)
		return ret;
	if (ps->t.kind == TOK_NEG1 && any) {
		*out = SIM_ANY;
		return 0;
	}
	if (ps->t.kind == TOK_NEG1)
		return goal_err(ps, ps->t.line, "%s cannot be -1 (the wildcard is for a receive's peer and tag)", what);
	if (ps->t.kind != TOK_NUM)
		return goal_err(ps, ps->t.line, "%s expected, found %s", what,
			    goal_tok_what(&ps->t, b, sizeof(b)));
	if (ps->t.num > max)
		return goal_err(ps, ps->t.line, "%s %" PRIu64 " is above the limit %" PRIu64,
			    what, ps->t.num, max);
	*out = ps->t.num;
	return 0;
}

static uint32_t goal_label_hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	while (len--)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/*
 * The label of the open block that the current token names: its number
 * (the order labels were first named in), made when new.  The table holds
 * number + 1 by hash, open-addressed and at most half full.
 */
static int goal_label(struct parser *ps, uint32_t *slot)
{
	const struct tok *t = &ps->t;
	uint32_t h, i, k;

	if (t->len > SIM_MAX_LABEL)
		return goal_err(ps, t->line, "a label longer than %u bytes",
			    SIM_MAX_LABEL);
	if ((ps->nlabels + 1) * 2 > ps->table_cap) {
		uint32_t ncap = ps->table_cap ? ps->table_cap * 2 : 256;
		uint32_t *nt = calloc(ncap, sizeof(*nt));
		struct label *nl = realloc(ps->labels,
					   (size_t)(ncap / 2) * sizeof(*nl));

		if (!nt || !nl || ncap > SIM_MAX_OPS) {
			free(nt);
			if (nl)
				ps->labels = nl;
			return goal_err(ps, t->line, "too many labels in one rank");
		}
		ps->labels = nl;
		for (k = 0; k < ps->nlabels; k++) {
			i = goal_label_hash(nl[k].s, nl[k].len) & (ncap - 1);
			while (nt[i])
				i = (i + 1) & (ncap - 1);
			nt[i] = k + 1;
			nl[k].slot = i;
		}
		free(ps->table);
		ps->table = nt;
		ps->table_cap = ncap;
	}
	h = goal_label_hash(t->s, t->len);
	for (i = h & (ps->table_cap - 1); ps->table[i];
	     i = (i + 1) & (ps->table_cap - 1)) {
		const struct label *l = &ps->labels[ps->table[i] - 1];

		if (l->len == t->len && !memcmp(l->s, t->s, t->len)) {
			*slot = ps->table[i] - 1;
			return 0;
		}
	}
	k = ps->nlabels++;
	ps->table[i] = k + 1;
	ps->labels[k] = (struct label){ .s = t->s, .len = (uint32_t)t->len,
					.line = t->line, .op = -1, .slot = i };
	*slot = k;
	return 0;
}

/* after "send", "recv" or "calc": the rest of the operation */
static int goal_parse_op(struct parser *ps, enum sim_kind kind, int64_t label)
{
	struct sim_op op = { .rank = (uint32_t)ps->rank, .line = ps->t.line,
			     .kind = kind, .tag = 0 };
	bool seen_tag = false, seen_cpu = false, seen_nic = false;
	char b[48];
	uint64_t v;
	int64_t idx;
	int ret;

	if (kind == SIM_CALC) {
		ret = goal_want_num(ps, "a calc time (ns)", SIM_MAX_SIZE - 1, false, &v);
		if (ret)
			return ret;
		op.arg = v;
	} else {
		ret = goal_want_num(ps, "a size in bytes", SIM_MAX_SIZE - 1, false, &v);
		if (ret)
			return ret;
		op.arg = v;
		ret = goal_next_token(ps);
		if (ret)
			return ret;
		if (!goal_is_word(&ps->t, "b"))
			return goal_err(ps, ps->t.line, "'b' expected after the size, found %s",
				    goal_tok_what(&ps->t, b, sizeof(b)));
		ret = goal_next_token(ps);
		if (ret)
			return ret;
		if (!goal_is_word(&ps->t, kind == SIM_SEND ? "to" : "from"))
			return goal_err(ps, ps->t.line, "'%s' expected, found %s",
				    kind == SIM_SEND ? "to" : "from",
				    goal_tok_what(&ps->t, b, sizeof(b)));
		ret = goal_want_num(ps, "a peer rank", UINT32_MAX - 1,
			       kind == SIM_RECV, &v);
		if (ret)
			return ret;
		if (v != SIM_ANY && v >= ps->g->nranks)
			return goal_err(ps, ps->t.line, "peer %" PRIu64 " is not a rank: num_ranks is %u",
				    v, ps->g->nranks);
		op.peer = (uint32_t)v;
	}
	for (;;) {
		ret = goal_next_token(ps);
		if (ret)
			return ret;
		if (ps->t.kind == TOK_NL || ps->t.kind == TOK_EOF)
			break;
		if (goal_is_word(&ps->t, "tag") && kind != SIM_CALC && !seen_tag) {
			ret = goal_want_num(ps, "a tag", SIM_MAX_TAG, kind == SIM_RECV, &v);
			op.tag = (uint32_t)v;
			seen_tag = true;
		} else if (goal_is_word(&ps->t, "cpu") && !seen_cpu) {
			ret = goal_want_num(ps, "a cpu number", SIM_MAX_UNITS - 1, false, &v);
			op.cpu = (uint8_t)v;
			seen_cpu = true;
		} else if (goal_is_word(&ps->t, "nic") && !seen_nic) {
			ret = goal_want_num(ps, "a nic number", SIM_MAX_UNITS - 1, false, &v);
			op.nic = (uint8_t)v;
			seen_nic = true;
		} else {
			return goal_err(ps, ps->t.line, "%s: expected %s, or the end of the line",
				    goal_tok_what(&ps->t, b, sizeof(b)),
				    kind == SIM_CALC ? "cpu or nic" : "tag, cpu or nic");
		}
		if (ret)
			return ret;
	}
	idx = sim_goal_add_op(ps->g, &op);
	if (idx < 0)
		return goal_err(ps, op.line, "more than %u operations: refused", SIM_MAX_OPS);
	if (label >= 0)
		ps->labels[label].op = idx;
	return 0;
}

/* at '}': the block's dependencies, now that all its labels are known */
static int goal_close_block(struct parser *ps)
{
	uint32_t k;
	int ret;

	for (k = 0; k < ps->ndeps; k++) {
		const struct dep *d = &ps->deps[k];
		const struct label *w = &ps->labels[d->waiter];
		const struct label *x = &ps->labels[d->waited];

		if (w->op < 0 || x->op < 0) {
			const struct label *u = w->op < 0 ? w : x;

			return goal_err(ps, d->line, "label '%.*s' names no operation of rank %" PRId64,
				    (int)u->len, u->s, ps->rank);
		}
		if (w->op == x->op)
			return goal_err(ps, d->line, "'%.*s' requires itself: it could never start",
				    (int)w->len, w->s);
		ret = sim_goal_add_dep(ps->g, (uint32_t)w->op, (uint32_t)x->op,
				       d->istart);
		if (ret)
			return goal_err(ps, d->line, "more than %u dependencies: refused",
				    SIM_MAX_DEPS);
	}
	for (k = 0; k < ps->nlabels; k++)
		ps->table[ps->labels[k].slot] = 0;
	ps->nlabels = 0;
	ps->ndeps = 0;
	ps->rank = -1;
	return 0;
}

/* a statement inside a block that starts with the word in ps->t */
static int goal_parse_block_stmt(struct parser *ps)
{
	uint32_t slot, slot2, line = ps->t.line;
	char b[48];
	bool istart;
	int ret;

	if (goal_is_word(&ps->t, "send"))
		return goal_parse_op(ps, SIM_SEND, -1);
	if (goal_is_word(&ps->t, "recv"))
		return goal_parse_op(ps, SIM_RECV, -1);
	if (goal_is_word(&ps->t, "calc"))
		return goal_parse_op(ps, SIM_CALC, -1);
	ret = goal_label(ps, &slot);
	if (ret)
		return ret;
	ret = goal_next_token(ps);
	if (ret)
		return ret;
	if (ps->t.kind == TOK_COLON) {
		if (ps->labels[slot].op >= 0)
			return goal_err(ps, line, "label '%.*s' is already defined in this rank",
				    (int)ps->labels[slot].len, ps->labels[slot].s);
		ret = goal_next_token(ps);
		if (ret)
			return ret;
		if (goal_is_word(&ps->t, "send"))
			return goal_parse_op(ps, SIM_SEND, slot);
		if (goal_is_word(&ps->t, "recv"))
			return goal_parse_op(ps, SIM_RECV, slot);
		if (goal_is_word(&ps->t, "calc"))
			return goal_parse_op(ps, SIM_CALC, slot);
		return goal_err(ps, ps->t.line, "send, recv or calc expected, found %s",
			    goal_tok_what(&ps->t, b, sizeof(b)));
	}
	if (!goal_is_word(&ps->t, "requires") && !goal_is_word(&ps->t, "irequires"))
		return goal_err(ps, ps->t.line, "':', requires or irequires expected after a label, found %s",
			    goal_tok_what(&ps->t, b, sizeof(b)));
	istart = ps->t.s[0] == 'i';
	ret = goal_next_token(ps);
	if (ret)
		return ret;
	if (ps->t.kind != TOK_WORD)
		return goal_err(ps, ps->t.line, "a label expected, found %s",
			    goal_tok_what(&ps->t, b, sizeof(b)));
	ret = goal_label(ps, &slot2);
	if (ret)
		return ret;
	if (ps->ndeps == ps->cap_deps) {
		uint32_t ncap = ps->cap_deps ? ps->cap_deps * 2 : 256;
		struct dep *nd;

		if (ncap > SIM_MAX_DEPS)
			return goal_err(ps, line, "more than %u dependencies in one rank: refused",
				    SIM_MAX_DEPS);
		nd = realloc(ps->deps, (size_t)ncap * sizeof(*nd));
		if (!nd)
			return goal_err(ps, line, "out of memory");
		ps->deps = nd;
		ps->cap_deps = ncap;
	}
	ps->deps[ps->ndeps++] = (struct dep){ .waiter = slot, .waited = slot2,
					      .line = line, .istart = istart };
	return goal_expect_end(ps, "the dependency");
}

static int goal_parse_all(struct parser *ps)
{
	char b[48];
	uint64_t v;
	int ret;

	for (;;) {
		ret = goal_next_token(ps);
		if (ret)
			return ret;
		if (ps->t.kind == TOK_NL)
			continue;
		if (ps->t.kind == TOK_EOF)
			break;
		if (ps->rank >= 0) {
			if (ps->t.kind == TOK_RBRACE) {
				ret = goal_close_block(ps);
				if (!ret)
					ret = goal_expect_end(ps, "'}'");
			} else if (ps->t.kind == TOK_WORD) {
				ret = goal_parse_block_stmt(ps);
			} else {
				ret = goal_err(ps, ps->t.line, "%s: an operation, a dependency or '}' expected",
					   goal_tok_what(&ps->t, b, sizeof(b)));
			}
			if (ret)
				return ret;
			continue;
		}
		if (goal_is_word(&ps->t, "num_ranks")) {
			uint32_t line = ps->t.line;

			if (ps->g)
				return goal_err(ps, line, "num_ranks given twice");
			ret = goal_want_num(ps, "a rank count", SIM_MAX_RANKS, false, &v);
			if (ret)
				return ret;
			if (!v)
				return goal_err(ps, line, "num_ranks 0: a schedule has ranks");
			ps->g = sim_goal_new((unsigned int)v);
			ps->rank_seen = calloc(v, 1);
			ps->rank_line = calloc(v, sizeof(*ps->rank_line));
			if (!ps->g || !ps->rank_seen || !ps->rank_line)
				return goal_err(ps, line, "out of memory for %" PRIu64 " ranks", v);
			ret = goal_expect_end(ps, "num_ranks");
		} else if (goal_is_word(&ps->t, "rank")) {
			uint32_t line = ps->t.line;

			if (!ps->g)
				return goal_err(ps, line, "a rank block before num_ranks");
			ret = goal_want_num(ps, "a rank number", UINT32_MAX, false, &v);
			if (ret)
				return ret;
			if (v >= ps->g->nranks)
				return goal_err(ps, line, "rank %" PRIu64 " is not a rank: num_ranks is %u",
					    v, ps->g->nranks);
			if (ps->rank_seen[v])
				return goal_err(ps, line, "rank %" PRIu64 " has a block already (line %" PRIu32 ")",
					    v, ps->rank_line[v]);
			ps->rank_seen[v] = 1;
			ps->rank_line[v] = line;
			ret = goal_next_token(ps);
			if (ret)
				return ret;
			if (ps->t.kind != TOK_LBRACE)
				return goal_err(ps, ps->t.line, "'{' expected after rank %" PRIu64 ", found %s",
					    v, goal_tok_what(&ps->t, b, sizeof(b)));
			ps->rank = (int64_t)v;
			ret = goal_expect_end(ps, "'{'");
		} else {
			ret = goal_err(ps, ps->t.line, "%s: num_ranks or a rank block expected",
				   goal_tok_what(&ps->t, b, sizeof(b)));
		}
		if (ret)
			return ret;
	}
	if (ps->rank >= 0)
		return goal_err(ps, ps->line, "rank %" PRId64 "'s block (line %" PRIu32 ") is not closed",
			    ps->rank, ps->rank_line[ps->rank]);
	if (!ps->g)
		return goal_err(ps, ps->line, "no num_ranks: not a GOAL schedule");
	return 0;
}

int th_sim_goal_parse(const char *text, size_t len, const char *name,
		      struct th_sim_goal **goal, char *err, size_t errlen)
{
	struct parser ps = {
		.p = text, .end = text + len, .name = name ? name : "goal",
		.line = 1, .err = err, .errlen = errlen, .rank = -1,
	};
	int ret;

	if (!goal || (!text && len))
		return -EINVAL;
	*goal = NULL;
	ret = goal_parse_all(&ps);
	if (!ret)
		ret = sim_goal_finalize(ps.g, ps.name, err, errlen);
	free(ps.labels);
	free(ps.table);
	free(ps.deps);
	free(ps.rank_seen);
	free(ps.rank_line);
	if (ret) {
		th_sim_goal_destroy(ps.g);
		return ret;
	}
	*goal = ps.g;
	return 0;
}
