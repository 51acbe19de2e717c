// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * chainfile.c - parser of the chain file format of 'thctl post': one
 * statement per line, '#' comments, KEY=VALUE arguments; every refusal names
 * the line and column and what was expected there.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chainfile.h"
#include "th_opcode.h"

#define CF_LINE_MAX	1024
#define CF_MAX_TOKENS	32

struct cf_tok {
	const char *key;	/* the token, or its part before '=' */
	const char *val;	/* after '=', NULL for a bare word */
	unsigned int col;	/* of the token */
	unsigned int vcol;	/* of the value */
	bool used;
};

struct cf_parser {
	struct chainfile *cf;
	const struct cf_limits *lim;
	unsigned int flags;
	struct cf_diag *diag;
	unsigned int line;
	unsigned int end_col;	/* just past the last token of the line */
	char buf[CF_LINE_MAX];
	struct cf_tok tok[CF_MAX_TOKENS];
	unsigned int ntok;
	int chain;		/* the chain operations attach to, or -1 */
};

static const char *const cf_dtype_names[TH_NIC_DT_MAX] = {
	[TH_NIC_DT_INT8] = "i8",	[TH_NIC_DT_INT16] = "i16",
	[TH_NIC_DT_INT32] = "i32",	[TH_NIC_DT_INT64] = "i64",
	[TH_NIC_DT_UINT8] = "u8",	[TH_NIC_DT_UINT16] = "u16",
	[TH_NIC_DT_UINT32] = "u32",	[TH_NIC_DT_UINT64] = "u64",
	[TH_NIC_DT_FLOAT32] = "f32",	[TH_NIC_DT_FLOAT64] = "f64",
};

static const char *const cf_alu_names[TH_NIC_ALU_OP_MAX] = {
	[TH_NIC_ALU_SUM] = "sum",	[TH_NIC_ALU_PROD] = "prod",
	[TH_NIC_ALU_MAX] = "max",	[TH_NIC_ALU_MIN] = "min",
	[TH_NIC_ALU_BAND] = "band",	[TH_NIC_ALU_BOR] = "bor",
	[TH_NIC_ALU_BXOR] = "bxor",
};

const char *cf_dtype_name(unsigned int dtype)
{
	return dtype < TH_NIC_DT_MAX ? cf_dtype_names[dtype] : NULL;
}

unsigned int cf_dtype_size(unsigned int dtype)
{
	static const unsigned char size[TH_NIC_DT_MAX] = {
		1, 2, 4, 8, 1, 2, 4, 8, 4, 8,
	};

	return dtype < TH_NIC_DT_MAX ? size[dtype] : 1;
}

bool cf_dtype_is_float(unsigned int dtype)
{
	return dtype == TH_NIC_DT_FLOAT32 || dtype == TH_NIC_DT_FLOAT64;
}

static int cf_err(struct cf_parser *p, unsigned int col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));	/* no __printf in userspace */

static int cf_err(struct cf_parser *p, unsigned int col, const char *fmt, ...)
{
	va_list ap;

	p->diag->line = p->line;
	p->diag->col = col;
	va_start(ap, fmt);
	vsnprintf(p->diag->msg, sizeof(p->diag->msg), fmt, ap);
	va_end(ap);
	return -1;
}

/* Split the line in p->buf into tokens; '#' starts a comment. */
static int cf_tokenize(struct cf_parser *p)
{
	char *s = p->buf, *hash = strchr(s, '#');
	unsigned int i;

	if (hash)
		*hash = '\0';
	p->ntok = 0;
	p->end_col = 1;
	for (i = 0; s[i];) {
		struct cf_tok *t;
		char *eq;

		if (s[i] == ' ' || s[i] == '\t' || s[i] == '\r') {
			s[i++] = '\0';
			continue;
		}
		if (p->ntok == CF_MAX_TOKENS)
			return cf_err(p, i + 1, "too many words: expected at most %d",
				      CF_MAX_TOKENS);
		t = &p->tok[p->ntok++];
		memset(t, 0, sizeof(*t));
		t->key = s + i;
		t->col = i + 1;
		while (s[i] && s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			i++;
		p->end_col = i + 1;
		if (s[i])
			s[i++] = '\0';
		eq = strchr(t->key, '=');
		if (!strncmp(t->key, ">=", 2)) {
			/* expect's ">= N" or ">=N" */
			t->val = t->key + 2;
			t->vcol = t->col + 2;
			t->key = ">=";
		} else if (eq) {
			*eq = '\0';
			t->val = eq + 1;
			t->vcol = t->col + (eq + 1 - t->key);
		}
	}
	return 0;
}

/* expect's ">=" followed by a separate number: merge the two words. */
static void cf_merge_ge(struct cf_parser *p)
{
	unsigned int i;

	for (i = 1; i + 1 < p->ntok; i++) {
		if (strcmp(p->tok[i].key, ">=") || *p->tok[i].val ||
		    p->tok[i + 1].val)
			continue;
		p->tok[i].val = p->tok[i + 1].key;
		p->tok[i].vcol = p->tok[i + 1].col;
		memmove(&p->tok[i + 1], &p->tok[i + 2],
			(p->ntok - i - 2) * sizeof(p->tok[0]));
		p->ntok--;
	}
}

/*
 * Check the arguments of a statement against @keys ("src= dst= signal"):
 * names ending in '=' take a value, others are bare flags.  Words before
 * @first are the statement and its name.
 */
static int cf_check_keys(struct cf_parser *p, unsigned int first,
			 const char *stmt, const char *keys)
{
	unsigned int i, j;

	for (i = first; i < p->ntok; i++) {
		const struct cf_tok *t = &p->tok[i];
		char want[40];
		size_t n = strlen(t->key);
		const char *k;
		bool ok = false;

		/* ">=" carries its value without an '=' */
		snprintf(want, sizeof(want), "%s%s", t->key,
			 t->val && strcmp(t->key, ">=") ? "=" : "");
		for (k = keys; *k;) {
			size_t len = strcspn(k, " ");

			if (len == strlen(want) && !strncmp(k, want, len))
				ok = true;
			k += len;
			k += *k == ' ';
		}
		if (!ok && n && t->val == NULL) {
			/* a known key written without its value? */
			snprintf(want, sizeof(want), "%s=", t->key);
			if (strstr(keys, want))
				return cf_err(p, t->col + n,
					      "expected '=' and a value after '%s'",
					      t->key);
		}
		if (!ok)
			return cf_err(p, t->col,
				      "unexpected '%s%s' for %s: expected one of: %s",
				      t->key, t->val ? "=..." : "", stmt, keys);
		if (t->val && !*t->val)
			return cf_err(p, t->vcol, "expected a value after '%s='",
				      t->key);
		for (j = first; j < i; j++)
			if (!strcmp(p->tok[j].key, t->key))
				return cf_err(p, t->col, "'%s' given twice",
					      t->key);
	}
	return 0;
}

/* The bare flag @key (such as "signal"), or NULL. */
static struct cf_tok *cf_find_flag(struct cf_parser *p, const char *key)
{
	unsigned int i;

	for (i = 1; i < p->ntok; i++)
		if (!p->tok[i].val && !strcmp(p->tok[i].key, key))
			return &p->tok[i];
	return NULL;
}

/*
 * The KEY=VALUE token named @key, or NULL.  A bare word is never one,
 * even when it spells a key: a statement's name such as "mr off
 * buffer=..." (found by fuzzing: it was read as a missing value).
 */
static struct cf_tok *cf_find(struct cf_parser *p, const char *key)
{
	unsigned int i;

	for (i = 1; i < p->ntok; i++)
		if (p->tok[i].val && !strcmp(p->tok[i].key, key))
			return &p->tok[i];
	return NULL;
}

static struct cf_tok *cf_need(struct cf_parser *p, const char *key,
			      const char *what)
{
	struct cf_tok *t = cf_find(p, key);

	if (!t)
		cf_err(p, p->end_col, "expected %s", what);
	return t;
}

/* A whole token as an unsigned number (decimal, 0x hex, 0 octal). */
static int cf_u64(struct cf_parser *p, const char *s, unsigned int col,
		  uint64_t *out, const char *what)
{
	char *end;

	errno = 0;
	if (*s == '-' || *s == '+' || !*s)
		goto bad;
	*out = strtoull(s, &end, 0);
	if (errno || *end)
		goto bad;
	return 0;
bad:
	return cf_err(p, col, "expected %s (a non-negative integer), got '%s'",
		      what, s);
}

static int cf_tok_u64(struct cf_parser *p, const struct cf_tok *t,
		      uint64_t *out, const char *what)
{
	return cf_u64(p, t->val, t->vcol, out, what);
}

static int cf_node(struct cf_parser *p, const struct cf_tok *t, uint32_t *node)
{
	uint64_t v;

	if (cf_tok_u64(p, t, &v, "a node number"))
		return -1;
	if (p->lim && v >= p->lim->nodes)
		return cf_err(p, t->vcol,
			      "unknown node %llu: the fabric has %u nodes (0-%u)",
			      (unsigned long long)v, p->lim->nodes,
			      p->lim->nodes - 1);
	if (v > UINT32_MAX)
		return cf_err(p, t->vcol, "unknown node %llu",
			      (unsigned long long)v);
	*node = v;
	return 0;
}

static int cf_ct_num(struct cf_parser *p, const char *s, unsigned int col,
		     uint16_t *ct)
{
	uint64_t v;

	if (cf_u64(p, s, col, &v, "a counter index"))
		return -1;
	if (p->lim && v >= p->lim->max_counters)
		return cf_err(p, col,
			      "counter %llu out of range: a vport has %u counters (0-%u)",
			      (unsigned long long)v, p->lim->max_counters,
			      p->lim->max_counters - 1);
	if (v > UINT16_MAX)
		return cf_err(p, col, "counter %llu out of range",
			      (unsigned long long)v);
	*ct = v;
	return 0;
}

static int cf_ct(struct cf_parser *p, const struct cf_tok *t, uint16_t *ct)
{
	const char *s = t->val;
	unsigned int col = t->vcol;

	if (!strncmp(s, "ct", 2) && s[2]) {	/* ct=ct3 reads as ct=3 */
		s += 2;
		col += 2;
	}
	return cf_ct_num(p, s, col, ct);
}

static int cf_name_ok(struct cf_parser *p, unsigned int col, const char *s,
		      const char *kind)
{
	size_t i, n = strlen(s);

	if (!n || n >= CF_NAME_MAX)
		goto bad;
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (!(c == '_' || (c >= 'a' && c <= 'z') ||
		      (c >= 'A' && c <= 'Z') || (i && c >= '0' && c <= '9')))
			goto bad;
	}
	return 0;
bad:
	return cf_err(p, col,
		      "expected a %s name (a letter or '_', then letters, digits or '_', at most %d), got '%s'",
		      kind, CF_NAME_MAX - 1, s);
}

static int cf_lookup_buffer(const struct chainfile *cf, const char *name)
{
	unsigned int i;

	for (i = 0; i < cf->nbuffers; i++)
		if (!strcmp(cf->buffers[i].name, name))
			return i;
	return -1;
}

static int cf_lookup_mr(const struct chainfile *cf, const char *name)
{
	unsigned int i;

	for (i = 0; i < cf->nmrs; i++)
		if (!strcmp(cf->mrs[i].name, name))
			return i;
	return -1;
}

static int cf_dtype(struct cf_parser *p, const char *s, size_t len,
		    unsigned int col, unsigned int *dtype)
{
	unsigned int i;

	for (i = 0; i < TH_NIC_DT_MAX; i++)
		if (strlen(cf_dtype_names[i]) == len &&
		    !strncmp(s, cf_dtype_names[i], len)) {
			*dtype = i;
			return 0;
		}
	return cf_err(p, col,
		      "expected a type (i8 i16 i32 i64 u8 u16 u32 u64 f32 f64), got '%.*s'",
		      (int)len, s);
}

/*
 * "MR" or "MR:OFF" at @col.  @node_want: the node the MR must be on
 * (a local operand), or -1 for any.
 */
static int cf_ref(struct cf_parser *p, const char *s, size_t len,
		  unsigned int col, int64_t node_want, unsigned int *mr,
		  uint64_t *off)
{
	char name[CF_NAME_MAX], num[32];
	size_t nlen = strcspn(s, ":");
	int i;

	if (nlen > len)
		nlen = len;
	if (!nlen || nlen >= sizeof(name))
		return cf_err(p, col, "expected MR or MR:OFFSET, got '%.*s'",
			      (int)len, s);
	memcpy(name, s, nlen);
	name[nlen] = '\0';
	i = cf_lookup_mr(p->cf, name);
	if (i < 0)
		return cf_err(p, col,
			      "unknown MR '%s': expected the name of an mr defined above",
			      name);
	if (node_want >= 0 && p->cf->mrs[i].node != node_want)
		return cf_err(p, col,
			      "MR '%s' is on node %u: expected a local MR of node %lld, where the chain runs",
			      name, p->cf->mrs[i].node, (long long)node_want);
	*mr = i;
	*off = 0;
	if (nlen < len) {
		size_t olen = len - nlen - 1;

		if (!olen || olen >= sizeof(num))
			return cf_err(p, col + nlen + 1,
				      "expected a byte offset after ':'");
		memcpy(num, s + nlen + 1, olen);
		num[olen] = '\0';
		if (cf_u64(p, num, col + nlen + 1, off, "a byte offset"))
			return -1;
	}
	return 0;
}

static int cf_tok_ref(struct cf_parser *p, const struct cf_tok *t,
		      int64_t node_want, unsigned int *mr, uint64_t *off)
{
	return cf_ref(p, t->val, strlen(t->val), t->vcol, node_want, mr, off);
}

/* [off, off + len) inside MR @mr, unless the NIC is left to check. */
static int cf_range(struct cf_parser *p, unsigned int col, unsigned int mr,
		    uint64_t off, uint64_t len)
{
	const struct cf_mr *m = &p->cf->mrs[mr];

	if (p->flags & CF_NO_RANGE_CHECK)
		return 0;
	if (off > m->len || len > m->len - off)
		return cf_err(p, col,
			      "length beyond MR '%s': bytes %llu..%llu, but the MR has %llu bytes",
			      m->name, (unsigned long long)off,
			      (unsigned long long)(off + len),
			      (unsigned long long)m->len);
	return 0;
}

/* ---- top-level statements ------------------------------------------ */

static int cf_new_name(struct cf_parser *p, const char *kind)
{
	if (p->ntok < 2 || p->tok[1].val)
		return cf_err(p, p->ntok < 2 ? p->end_col : p->tok[1].col,
			      "expected a name after '%s'", kind);
	return cf_name_ok(p, p->tok[1].col, p->tok[1].key, kind);
}

static int cf_fill_spec(struct cf_parser *p, const struct cf_tok *t,
			struct cf_buffer *b)
{
	const char *s = t->val, *colon = strchr(s, ':');
	unsigned int vcol;
	char *end;

	if (!strcmp(s, "zero")) {
		b->fill = CF_FILL_ZERO;
		return 0;
	}
	if (!colon)
		return cf_err(p, t->vcol,
			      "expected zero, TYPE:iota, TYPE:START or TYPE:START,STEP, got '%s'",
			      s);
	if (cf_dtype(p, s, colon - s, t->vcol, &b->dtype))
		return -1;
	b->has_dtype = true;
	b->fill = CF_FILL_SERIES;
	s = colon + 1;
	vcol = t->vcol + (s - t->val);
	if (!strcmp(s, "iota")) {
		b->fstart = 0;
		b->fstep = 1;
		b->istart = 0;
		b->istep = 1;
		return 0;
	}
	errno = 0;
	if (cf_dtype_is_float(b->dtype)) {
		b->fstart = strtod(s, &end);
		if (end != s && *end == ',') {
			s = end + 1;
			b->fstep = strtod(s, &end);
		}
	} else if (*s == '-') {
		b->istart = strtoll(s, &end, 0);
		if (end != s && *end == ',') {
			s = end + 1;
			b->istep = strtoll(s, &end, 0);
		}
	} else {
		b->istart = (int64_t)strtoull(s, &end, 0);
		if (end != s && *end == ',') {
			s = end + 1;
			b->istep = strtoll(s, &end, 0);
		}
	}
	if (end == s || *end || errno)
		return cf_err(p, vcol + (end - (colon + 1)),
			      "expected iota, START or START,STEP (numbers of type %s)",
			      cf_dtype_names[b->dtype]);
	return 0;
}

static int cf_stmt_buffer(struct cf_parser *p)
{
	struct chainfile *cf = p->cf;
	struct cf_buffer *b;
	struct cf_tok *t;

	if (cf_new_name(p, "buffer") ||
	    cf_check_keys(p, 2, "buffer", "node= size= fill="))
		return -1;
	if (cf_lookup_buffer(cf, p->tok[1].key) >= 0)
		return cf_err(p, p->tok[1].col, "buffer '%s' defined twice",
			      p->tok[1].key);
	if (cf->nbuffers == CF_MAX_BUFFERS)
		return cf_err(p, 1, "too many buffers: at most %d",
			      CF_MAX_BUFFERS);
	b = &cf->buffers[cf->nbuffers];
	memset(b, 0, sizeof(*b));
	snprintf(b->name, sizeof(b->name), "%s", p->tok[1].key);
	b->line = p->line;
	b->dtype = CF_PRINT_HEX;
	t = cf_need(p, "node", "node=N");
	if (!t || cf_node(p, t, &b->node))
		return -1;
	t = cf_need(p, "size", "size=BYTES");
	if (!t || cf_tok_u64(p, t, &b->size, "a size in bytes"))
		return -1;
	if (!b->size || b->size > (1ULL << 30))
		return cf_err(p, t->vcol, "expected a size of 1 byte to 1 GiB");
	t = cf_find(p, "fill");
	if (t) {
		if (cf_fill_spec(p, t, b))
			return -1;
		if (b->has_dtype && b->size % cf_dtype_size(b->dtype))
			return cf_err(p, t->vcol,
				      "size %llu is not a multiple of the %s element (%u bytes)",
				      (unsigned long long)b->size,
				      cf_dtype_names[b->dtype],
				      cf_dtype_size(b->dtype));
	}
	cf->nbuffers++;
	return 0;
}

static int cf_access(struct cf_parser *p, const struct cf_tok *t,
		     unsigned int *access)
{
	static const struct { const char *name; unsigned int bits; } names[] = {
		{ "none", 0 },
		{ "lw", TH_NIC_ACCESS_LOCAL_WRITE },
		{ "rr", TH_NIC_ACCESS_REMOTE_READ },
		{ "rw", TH_NIC_ACCESS_REMOTE_WRITE },
		{ "local_write", TH_NIC_ACCESS_LOCAL_WRITE },
		{ "remote_read", TH_NIC_ACCESS_REMOTE_READ },
		{ "remote_write", TH_NIC_ACCESS_REMOTE_WRITE },
		{ "all", TH_NIC_ACCESS_ALL },
	};
	const char *s = t->val;

	*access = 0;
	while (*s) {
		size_t len = strcspn(s, ",");
		unsigned int i;

		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strlen(names[i].name) == len &&
			    !strncmp(s, names[i].name, len))
				break;
		if (i == sizeof(names) / sizeof(names[0]))
			return cf_err(p, t->vcol + (s - t->val),
				      "expected an access (none, lw, rr, rw, all; combine with ','), got '%.*s'",
				      (int)len, s);
		*access |= names[i].bits;
		s += len;
		s += *s == ',';
	}
	return 0;
}

static int cf_stmt_mr(struct cf_parser *p)
{
	struct chainfile *cf = p->cf;
	const struct cf_buffer *b;
	struct cf_mr *m;
	struct cf_tok *t;
	int bi;

	if (cf_new_name(p, "mr") ||
	    cf_check_keys(p, 2, "mr", "buffer= off= len= access="))
		return -1;
	if (cf_lookup_mr(cf, p->tok[1].key) >= 0)
		return cf_err(p, p->tok[1].col, "mr '%s' defined twice",
			      p->tok[1].key);
	if (cf->nmrs == CF_MAX_MRS)
		return cf_err(p, 1, "too many MRs: at most %d", CF_MAX_MRS);
	m = &cf->mrs[cf->nmrs];
	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "%s", p->tok[1].key);
	m->line = p->line;
	t = cf_need(p, "buffer", "buffer=NAME");
	if (!t)
		return -1;
	bi = cf_lookup_buffer(cf, t->val);
	if (bi < 0)
		return cf_err(p, t->vcol,
			      "unknown buffer '%s': expected the name of a buffer defined above",
			      t->val);
	b = &cf->buffers[bi];
	m->buffer = bi;
	m->node = b->node;
	t = cf_find(p, "off");
	if (t && cf_tok_u64(p, t, &m->off, "a byte offset"))
		return -1;
	if (m->off >= b->size)
		return cf_err(p, t->vcol,
			      "offset %llu is outside buffer '%s' (%llu bytes)",
			      (unsigned long long)m->off, b->name,
			      (unsigned long long)b->size);
	m->len = b->size - m->off;
	t = cf_find(p, "len");
	if (t) {
		if (cf_tok_u64(p, t, &m->len, "a length in bytes"))
			return -1;
		if (!m->len || m->len > b->size - m->off)
			return cf_err(p, t->vcol,
				      "expected a length of 1..%llu (the rest of buffer '%s')",
				      (unsigned long long)(b->size - m->off),
				      b->name);
	}
	m->access = TH_NIC_ACCESS_ALL;
	t = cf_find(p, "access");
	if (t && cf_access(p, t, &m->access))
		return -1;
	cf->nmrs++;
	return 0;
}

/* trigger=ctN>=T */
static int cf_trigger(struct cf_parser *p, const struct cf_tok *t,
		      struct cf_chain *c)
{
	const char *s = t->val, *ge = strstr(s, ">=");
	char num[32];
	size_t n;

	if (strncmp(s, "ct", 2) || !ge || ge == s + 2)
		return cf_err(p, t->vcol, "expected ctN>=THRESHOLD, got '%s'", s);
	n = ge - (s + 2);
	if (n >= sizeof(num))
		return cf_err(p, t->vcol + 2, "expected a counter index");
	memcpy(num, s + 2, n);
	num[n] = '\0';
	if (cf_ct_num(p, num, t->vcol + 2, &c->trig_ct))
		return -1;
	return cf_u64(p, ge + 2, t->vcol + (ge + 2 - s), &c->threshold,
		      "a threshold");
}

static int cf_stmt_chain(struct cf_parser *p)
{
	struct chainfile *cf = p->cf;
	struct cf_chain *c;
	struct cf_tok *t;
	unsigned int i;

	if (cf_new_name(p, "chain") ||
	    cf_check_keys(p, 2, "chain", "node= trigger= cookie="))
		return -1;
	for (i = 0; i < cf->nchains; i++)
		if (!strcmp(cf->chains[i].name, p->tok[1].key))
			return cf_err(p, p->tok[1].col,
				      "chain '%s' defined twice", p->tok[1].key);
	if (cf->nchains == CF_MAX_CHAINS)
		return cf_err(p, 1, "too many chains: at most %d",
			      CF_MAX_CHAINS);
	c = &cf->chains[cf->nchains];
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", p->tok[1].key);
	c->line = p->line;
	c->cookie = cf->nchains + 1;
	t = cf_need(p, "node", "node=N");
	if (!t || cf_node(p, t, &c->node))
		return -1;
	t = cf_find(p, "trigger");
	if (t && cf_trigger(p, t, c))
		return -1;
	t = cf_find(p, "cookie");
	if (t && cf_tok_u64(p, t, &c->cookie, "a cookie"))
		return -1;
	p->chain = cf->nchains++;
	return 0;
}

/* ---- operations inside a chain -------------------------------------- */

static int cf_common_flags(struct cf_parser *p, struct cf_desc *d)
{
	struct cf_tok *t;

	d->signal = cf_find_flag(p, "signal") != NULL;
	d->comp_ct = -1;
	t = cf_find(p, "comp");
	if (t) {
		uint16_t ct;

		if (cf_ct(p, t, &ct))
			return -1;
		d->comp_ct = ct;
	}
	return 0;
}

static int cf_remote_ct(struct cf_parser *p, struct cf_desc *d)
{
	struct cf_tok *t = cf_find(p, "ct");
	uint16_t ct;

	d->remote_ct = -1;
	if (!t)
		return 0;
	if (cf_ct(p, t, &ct))
		return -1;
	d->remote_ct = ct;
	return 0;
}

static int cf_op_xfer(struct cf_parser *p, struct cf_chain *c,
		      struct cf_desc *d)
{
	bool put = d->opcode == TH_NIC_OP_PUT;
	struct cf_tok *src, *dst, *len;

	if (cf_check_keys(p, 1, put ? "put" : "get",
			  put ? "src= dst= len= ct= comp= signal" :
				"src= dst= len= comp= signal"))
		return -1;
	src = cf_need(p, "src", put ? "src=MR[:OFFSET] (local)" :
				      "src=MR[:OFFSET] (remote)");
	dst = src ? cf_need(p, "dst", put ? "dst=MR[:OFFSET] (remote)" :
					    "dst=MR[:OFFSET] (local)") : NULL;
	len = dst ? cf_need(p, "len", "len=BYTES") : NULL;
	if (!len)
		return -1;
	/* the local side is src_mr[0] for both, the remote side dst_mr */
	if (cf_tok_ref(p, put ? src : dst, c->node, &d->src_mr[0],
		       &d->src_off[0]) ||
	    cf_tok_ref(p, put ? dst : src, -1, &d->dst_mr, &d->dst_off) ||
	    cf_tok_u64(p, len, &d->len, "a length in bytes") ||
	    cf_range(p, len->vcol, d->src_mr[0], d->src_off[0], d->len) ||
	    cf_range(p, len->vcol, d->dst_mr, d->dst_off, d->len))
		return -1;
	d->nsrc = 1;
	return cf_common_flags(p, d) || (put && cf_remote_ct(p, d)) ? -1 : 0;
}

static int cf_op_copy(struct cf_parser *p, struct cf_chain *c,
		      struct cf_desc *d)
{
	struct cf_tok *src, *dst, *len;

	if (cf_check_keys(p, 1, "copy", "src= dst= len= comp= signal"))
		return -1;
	src = cf_need(p, "src", "src=MR[:OFFSET]");
	dst = src ? cf_need(p, "dst", "dst=MR[:OFFSET]") : NULL;
	len = dst ? cf_need(p, "len", "len=BYTES") : NULL;
	if (!len)
		return -1;
	if (cf_tok_ref(p, src, c->node, &d->src_mr[0], &d->src_off[0]) ||
	    cf_tok_ref(p, dst, c->node, &d->dst_mr, &d->dst_off) ||
	    cf_tok_u64(p, len, &d->len, "a length in bytes") ||
	    cf_range(p, len->vcol, d->src_mr[0], d->src_off[0], d->len) ||
	    cf_range(p, len->vcol, d->dst_mr, d->dst_off, d->len))
		return -1;
	d->nsrc = 1;
	return cf_common_flags(p, d);
}

/* data=TYPE:V[,V...] into d->data */
static int cf_inline_data(struct cf_parser *p, const struct cf_tok *t,
			  struct cf_desc *d)
{
	const char *s = t->val, *colon = strchr(s, ':');
	unsigned int dtype, esize;

	if (!colon)
		return cf_err(p, t->vcol, "expected TYPE:VALUE[,VALUE...], got '%s'",
			      s);
	if (cf_dtype(p, s, colon - s, t->vcol, &dtype))
		return -1;
	esize = cf_dtype_size(dtype);
	s = colon + 1;
	d->len = 0;
	for (;;) {
		unsigned int col = t->vcol + (s - t->val);
		union { int8_t i8; int16_t i16; int32_t i32; int64_t i64;
			float f32; double f64; uint8_t b[8]; } v;
		char *end;

		errno = 0;
		if (cf_dtype_is_float(dtype)) {
			double x = strtod(s, &end);

			if (dtype == TH_NIC_DT_FLOAT32)
				v.f32 = x;
			else
				v.f64 = x;
		} else {
			int64_t x = *s == '-' ? strtoll(s, &end, 0) :
				    (int64_t)strtoull(s, &end, 0);

			if (esize == 1)
				v.i8 = x;
			else if (esize == 2)
				v.i16 = x;
			else if (esize == 4)
				v.i32 = x;
			else
				v.i64 = x;
		}
		if (end == s || errno || (*end && *end != ','))
			return cf_err(p, col, "expected a value of type %s",
				      cf_dtype_names[dtype]);
		if (d->len + esize > TH_NIC_INLINE_MAX)
			return cf_err(p, col,
				      "too much inline data: at most %d bytes",
				      TH_NIC_INLINE_MAX);
		memcpy(d->data + d->len, v.b, esize);
		d->len += esize;
		if (!*end)
			return 0;
		s = end + 1;
	}
}

static int cf_op_write(struct cf_parser *p, struct cf_chain *c,
		       struct cf_desc *d)
{
	struct cf_tok *dst, *data;

	if (cf_check_keys(p, 1, "write", "dst= data= ct= comp= signal"))
		return -1;
	dst = cf_need(p, "dst", "dst=MR[:OFFSET]");
	data = dst ? cf_need(p, "data", "data=TYPE:VALUE[,VALUE...]") : NULL;
	if (!data)
		return -1;
	if (cf_tok_ref(p, dst, -1, &d->dst_mr, &d->dst_off) ||
	    cf_inline_data(p, data, d) ||
	    cf_range(p, data->vcol, d->dst_mr, d->dst_off, d->len) ||
	    cf_common_flags(p, d) || cf_remote_ct(p, d))
		return -1;
	d->remote = p->cf->mrs[d->dst_mr].node != c->node;
	if (!d->remote && d->remote_ct >= 0)
		return cf_err(p, cf_find(p, "ct")->col,
			      "ct= needs a remote target: MR '%s' is local (use comp= for a local counter)",
			      p->cf->mrs[d->dst_mr].name);
	return 0;
}

static int cf_op_reduce(struct cf_parser *p, struct cf_chain *c,
			struct cf_desc *d)
{
	struct cf_tok *op, *type, *count, *dst, *src, *stride, *nsrc;
	unsigned int i, max_src;
	uint64_t v, bytes;
	const char *s;

	if (cf_check_keys(p, 1, "reduce",
			  "op= type= count= dst= src= stride= nsrc= accumulate comp= signal"))
		return -1;
	op = cf_need(p, "op", "op=sum|prod|max|min|band|bor|bxor");
	type = op ? cf_need(p, "type", "type=TYPE") : NULL;
	count = type ? cf_need(p, "count", "count=ELEMENTS") : NULL;
	dst = count ? cf_need(p, "dst", "dst=MR[:OFFSET]") : NULL;
	src = dst ? cf_need(p, "src", "src=MR[:OFFSET][,MR[:OFFSET]...]") : NULL;
	if (!src)
		return -1;
	for (i = 0; i < TH_NIC_ALU_OP_MAX; i++)
		if (!strcmp(op->val, cf_alu_names[i]))
			break;
	if (i == TH_NIC_ALU_OP_MAX)
		return cf_err(p, op->vcol,
			      "expected an operator (sum prod max min band bor bxor), got '%s'",
			      op->val);
	d->alu_op = i;
	if (cf_dtype(p, type->val, strlen(type->val), type->vcol, &d->dtype))
		return -1;
	if (d->alu_op >= TH_NIC_ALU_BAND && cf_dtype_is_float(d->dtype))
		return cf_err(p, op->vcol,
			      "%s on %s: expected an integer type for a bitwise operator",
			      op->val, type->val);
	if (cf_tok_u64(p, count, &v, "an element count"))
		return -1;
	if (v > UINT32_MAX)
		return cf_err(p, count->vcol, "count %llu too large",
			      (unsigned long long)v);
	d->count = v;
	bytes = v * cf_dtype_size(d->dtype);
	d->accumulate = cf_find_flag(p, "accumulate") != NULL;
	max_src = TH_NIC_MAX_OPERANDS - d->accumulate;
	if (cf_tok_ref(p, dst, c->node, &d->dst_mr, &d->dst_off) ||
	    cf_range(p, dst->vcol, d->dst_mr, d->dst_off, bytes))
		return -1;
	stride = cf_find(p, "stride");
	nsrc = cf_find(p, "nsrc");
	if (!stride != !nsrc)
		return cf_err(p, (stride ? stride : nsrc)->col,
			      "expected stride= and nsrc= together (strided sources)");
	if (stride) {
		d->strided = true;
		if (cf_tok_ref(p, src, c->node, &d->src_mr[0], &d->src_off[0]) ||
		    cf_tok_u64(p, stride, &d->stride, "a stride in bytes") ||
		    cf_tok_u64(p, nsrc, &v, "a number of sources"))
			return -1;
		if (!v || v > max_src)
			return cf_err(p, nsrc->vcol,
				      "expected 1..%u sources%s", max_src,
				      d->accumulate ? " (accumulate uses one)" : "");
		d->nsrc = v;
		for (i = 0; i < d->nsrc; i++)
			if (cf_range(p, src->vcol, d->src_mr[0],
				     d->src_off[0] + i * d->stride, bytes))
				return -1;
		goto flags;
	}
	for (s = src->val, i = 0; *s; i++) {
		size_t len = strcspn(s, ",");
		unsigned int col = src->vcol + (s - src->val);

		if (i == max_src)
			return cf_err(p, col, "too many sources: expected at most %u%s",
				      max_src,
				      d->accumulate ? " (accumulate uses one)" : "");
		if (cf_ref(p, s, len, col, c->node, &d->src_mr[i],
			   &d->src_off[i]) ||
		    cf_range(p, col, d->src_mr[i], d->src_off[i], bytes))
			return -1;
		s += len;
		if (*s == ',' && !s[1])
			return cf_err(p, col + len + 1,
				      "expected MR[:OFFSET] after ','");
		s += *s == ',';
	}
	d->nsrc = i;
flags:
	return cf_common_flags(p, d);
}

static int cf_op_ct(struct cf_parser *p, struct cf_desc *d)
{
	bool inc = d->opcode == TH_NIC_OP_CT_INC;
	struct cf_tok *ct, *v;

	if (cf_check_keys(p, 1, inc ? "ct_inc" : "ct_set",
			  inc ? "ct= by= comp= signal" : "ct= value= comp= signal"))
		return -1;
	ct = cf_need(p, "ct", "ct=N");
	if (!ct || cf_ct(p, ct, &d->ct))
		return -1;
	d->value = 1;
	if (inc) {
		v = cf_find(p, "by");
		if (v) {
			char *end;

			errno = 0;
			d->value = (uint64_t)strtoll(v->val, &end, 0);
			if (errno || *end)
				return cf_err(p, v->vcol,
					      "expected a signed integer, got '%s'",
					      v->val);
		}
	} else {
		v = cf_need(p, "value", "value=V");
		if (!v || cf_tok_u64(p, v, &d->value, "a counter value"))
			return -1;
	}
	return cf_common_flags(p, d);
}

static int cf_op_simple(struct cf_parser *p, struct cf_desc *d)
{
	bool notify = d->opcode == TH_NIC_OP_NOTIFY;
	struct cf_tok *imm;

	if (cf_check_keys(p, 1, notify ? "notify" : "nop",
			  notify ? "imm= comp= signal" : "comp= signal"))
		return -1;
	imm = cf_find(p, "imm");
	if (imm && cf_tok_u64(p, imm, &d->value, "an immediate value"))
		return -1;
	return cf_common_flags(p, d);
}

/*
 * rearm stride=S: the chain's last operation; once a round got there the
 * chain waits on its counter again, its threshold raised by S (>= 1, as
 * the NIC requires).
 */
static int cf_op_rearm(struct cf_parser *p, struct cf_desc *d)
{
	struct cf_tok *st;

	if (cf_check_keys(p, 1, "rearm", "stride= comp= signal"))
		return -1;
	st = cf_need(p, "stride", "stride=S");
	if (!st || cf_tok_u64(p, st, &d->value, "a stride"))
		return -1;
	if (!d->value)
		return cf_err(p, st->vcol,
			      "expected a stride of at least 1: the NIC refuses 0");
	return cf_common_flags(p, d);
}

/* The operation a statement names, as the NIC's opcode table spells it, or -1. */
static int cf_opcode_by_name(const char *w)
{
	unsigned int op;

	for (op = 0; op < TH_NIC_OP_MAX; op++)
		if (!strcmp(w, th_eng_opcode_name(op)))
			return (int)op;
	return -1;
}

static int cf_stmt_op(struct cf_parser *p, unsigned int opcode)
{
	struct cf_chain *c;
	struct cf_desc *d;
	unsigned int max;

	if (p->chain < 0)
		return cf_err(p, p->tok[0].col,
			      "'%s' outside a chain: expected a 'chain NAME node=N' line before it",
			      p->tok[0].key);
	c = &p->cf->chains[p->chain];
	max = p->lim && p->lim->max_chain < CF_MAX_DESCS ? p->lim->max_chain :
							    CF_MAX_DESCS;
	if (c->ndesc == max)
		return cf_err(p, p->tok[0].col,
			      "chain '%s' is too long: the NIC takes at most %u operations per chain",
			      c->name, max);
	if (c->ndesc && c->desc[c->ndesc - 1].opcode == TH_NIC_OP_REARM)
		return cf_err(p, p->tok[0].col,
			      "'%s' after 'rearm': rearm ends chain '%s'",
			      p->tok[0].key, c->name);
	d = &c->desc[c->ndesc];
	memset(d, 0, sizeof(*d));
	d->line = p->line;
	d->opcode = opcode;
	d->remote_ct = -1;
	d->comp_ct = -1;
	switch (opcode) {
	case TH_NIC_OP_PUT:
	case TH_NIC_OP_GET:
		if (cf_op_xfer(p, c, d))
			return -1;
		break;
	case TH_NIC_OP_COPY:
		if (cf_op_copy(p, c, d))
			return -1;
		break;
	case TH_NIC_OP_WRITE_INLINE:
		if (cf_op_write(p, c, d))
			return -1;
		break;
	case TH_NIC_OP_REDUCE:
		if (cf_op_reduce(p, c, d))
			return -1;
		break;
	case TH_NIC_OP_CT_INC:
	case TH_NIC_OP_CT_SET:
		if (cf_op_ct(p, d))
			return -1;
		break;
	case TH_NIC_OP_REARM:
		if (cf_op_rearm(p, d))
			return -1;
		break;
	default:
		if (cf_op_simple(p, d))
			return -1;
		break;
	}
	c->ndesc++;
	return 0;
}

/* ---- host actions ---------------------------------------------------- */

static struct cf_action *cf_new_action(struct cf_parser *p,
				       enum cf_action_kind kind)
{
	struct cf_action *a;

	if (p->cf->nactions == CF_MAX_ACTIONS) {
		cf_err(p, 1, "too many host actions: at most %d", CF_MAX_ACTIONS);
		return NULL;
	}
	a = &p->cf->actions[p->cf->nactions++];
	memset(a, 0, sizeof(*a));
	a->kind = kind;
	a->line = p->line;
	return a;
}

static int cf_node_ct(struct cf_parser *p, struct cf_action *a)
{
	struct cf_tok *t = cf_need(p, "node", "node=N");

	if (!t || cf_node(p, t, &a->node))
		return -1;
	t = cf_need(p, "ct", "ct=N");
	return !t || cf_ct(p, t, &a->ct) ? -1 : 0;
}

static int cf_stmt_start(struct cf_parser *p)
{
	struct cf_tok *inc, *set;
	struct cf_action *a;

	if (cf_check_keys(p, 1, "start", "node= ct= inc= set="))
		return -1;
	inc = cf_find(p, "inc");
	set = cf_find(p, "set");
	if (inc && set)
		return cf_err(p, set->col, "expected inc= or set=, not both");
	a = cf_new_action(p, set ? CF_ACT_CT_SET : CF_ACT_CT_INC);
	if (!a || cf_node_ct(p, a))
		return -1;
	a->value = 1;
	if (inc) {
		char *end;

		errno = 0;
		a->value = (uint64_t)strtoll(inc->val, &end, 0);
		if (errno || *end)
			return cf_err(p, inc->vcol,
				      "expected a signed integer, got '%s'",
				      inc->val);
	}
	if (set && cf_tok_u64(p, set, &a->value, "a counter value"))
		return -1;
	return 0;
}

static int cf_timeout(struct cf_parser *p, const struct cf_tok *t,
		      uint64_t *ns)
{
	static const struct { const char *unit; uint64_t ns; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		{ "s", 1000000000 },
	};
	unsigned int i;
	uint64_t v;
	char *end;

	errno = 0;
	if (*t->val < '0' || *t->val > '9')
		goto bad;
	v = strtoull(t->val, &end, 10);
	if (errno)
		goto bad;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit)) {
			*ns = v * units[i].ns;
			return 0;
		}
bad:
	return cf_err(p, t->vcol,
		      "expected a timeout such as 500ms or 2s (units ns us ms s), got '%s'",
		      t->val);
}

static int cf_stmt_expect(struct cf_parser *p)
{
	struct cf_action *a;
	struct cf_tok *t;

	cf_merge_ge(p);
	if (cf_check_keys(p, 1, "expect", "node= ct= >= timeout="))
		return -1;
	a = cf_new_action(p, CF_ACT_EXPECT);
	if (!a || cf_node_ct(p, a))
		return -1;
	t = cf_need(p, ">=", "'>= VALUE' (the threshold to wait for)");
	if (!t || cf_tok_u64(p, t, &a->value, "a threshold"))
		return -1;
	a->timeout_ns = 5000000000ULL;
	t = cf_find(p, "timeout");
	return t ? cf_timeout(p, t, &a->timeout_ns) : 0;
}

static int cf_stmt_print(struct cf_parser *p)
{
	struct cf_action *a;
	struct cf_tok *t;
	const char *what = p->ntok > 1 ? p->tok[1].key : "";

	if (p->ntok > 1 && p->tok[1].val == NULL &&
	    !strcmp(what, "counters")) {
		char *dash;

		if (cf_check_keys(p, 2, "print counters", "node= cts="))
			return -1;
		a = cf_new_action(p, CF_ACT_PRINT_COUNTERS);
		t = a ? cf_need(p, "node", "node=N") : NULL;
		if (!t || cf_node(p, t, &a->node))
			return -1;
		t = cf_find(p, "cts");
		if (!t) {
			a->ct_last = 7;
			if (p->lim && a->ct_last >= p->lim->max_counters)
				a->ct_last = p->lim->max_counters - 1;
			return 0;
		}
		dash = strchr(t->val, '-');
		if (dash)
			*dash = '\0';
		if (cf_ct_num(p, t->val, t->vcol, &a->ct))
			return -1;
		a->ct_last = a->ct;
		if (dash && cf_ct_num(p, dash + 1, t->vcol + (dash + 1 - t->val),
				      &a->ct_last))
			return -1;
		if (a->ct_last < a->ct)
			return cf_err(p, t->vcol,
				      "expected a range FIRST-LAST with FIRST <= LAST");
		return 0;
	}
	if (p->ntok > 1 && p->tok[1].val == NULL &&
	    !strcmp(what, "completions")) {
		if (cf_check_keys(p, 2, "print completions", "node="))
			return -1;
		a = cf_new_action(p, CF_ACT_PRINT_CQ);
		t = a ? cf_need(p, "node", "node=N") : NULL;
		return !t || cf_node(p, t, &a->node) ? -1 : 0;
	}
	if (p->ntok > 1 && !strcmp(what, "buffer") && p->tok[1].val) {
		int bi;

		if (cf_check_keys(p, 1, "print buffer", "buffer= as="))
			return -1;
		a = cf_new_action(p, CF_ACT_PRINT_BUFFER);
		if (!a)
			return -1;
		t = cf_find(p, "buffer");
		bi = cf_lookup_buffer(p->cf, t->val);
		if (bi < 0)
			return cf_err(p, t->vcol,
				      "unknown buffer '%s': expected the name of a buffer defined above",
				      t->val);
		a->buffer = bi;
		a->as = p->cf->buffers[bi].dtype;
		t = cf_find(p, "as");
		if (t && !strcmp(t->val, "hex"))
			a->as = CF_PRINT_HEX;
		else if (t && cf_dtype(p, t->val, strlen(t->val), t->vcol, &a->as))
			return -1;
		if (a->as != CF_PRINT_HEX &&
		    p->cf->buffers[bi].size % cf_dtype_size(a->as))
			return cf_err(p, t ? t->vcol : p->tok[1].vcol,
				      "buffer '%s' (%llu bytes) is not a whole number of %s",
				      p->cf->buffers[bi].name,
				      (unsigned long long)p->cf->buffers[bi].size,
				      cf_dtype_names[a->as]);
		return 0;
	}
	return cf_err(p, p->ntok > 1 ? p->tok[1].col : p->end_col,
		      "expected 'buffer=NAME', 'counters node=N' or 'completions node=N' after print");
}

/* ---- the file ---------------------------------------------------------- */

static int cf_end_chain(struct cf_parser *p)
{
	const struct cf_chain *c;

	if (p->chain < 0)
		return 0;
	c = &p->cf->chains[p->chain];
	p->chain = -1;
	if (c->ndesc)
		return 0;
	p->line = c->line;
	return cf_err(p, 1,
		      "chain '%s' has no operations: expected operation lines (put, get, copy, write, reduce, ct_inc, ct_set, notify, nop, rearm) after it",
		      c->name);
}

static int cf_statement(struct cf_parser *p)
{
	const char *w = p->tok[0].key;
	unsigned int line = p->line;
	int op;

	if (p->tok[0].val)
		return cf_err(p, p->tok[0].col,
			      "expected a statement (buffer, mr, chain, start, expect, print or an operation), got '%s=...'",
			      w);
	op = cf_opcode_by_name(w);
	if (op >= 0)
		return cf_stmt_op(p, op);
	/* any other statement ends the chain being built */
	if (cf_end_chain(p))
		return -1;
	p->line = line;
	if (!strcmp(w, "buffer"))
		return cf_stmt_buffer(p);
	if (!strcmp(w, "mr"))
		return cf_stmt_mr(p);
	if (!strcmp(w, "chain"))
		return cf_stmt_chain(p);
	if (!strcmp(w, "start"))
		return cf_stmt_start(p);
	if (!strcmp(w, "expect"))
		return cf_stmt_expect(p);
	if (!strcmp(w, "print"))
		return cf_stmt_print(p);
	return cf_err(p, p->tok[0].col,
		      "unknown statement '%s': expected buffer, mr, chain, start, expect, print, or an operation inside a chain",
		      w);
}

struct chainfile *cf_parse(const char *text, const struct cf_limits *lim,
			   unsigned int flags, struct cf_diag *diag)
{
	struct cf_parser *p = calloc(1, sizeof(*p));
	struct chainfile *cf = calloc(1, sizeof(*cf));
	const char *s = text;

	memset(diag, 0, sizeof(*diag));
	if (!p || !cf) {
		snprintf(diag->msg, sizeof(diag->msg), "out of memory");
		goto err;
	}
	p->cf = cf;
	p->lim = lim;
	p->flags = flags;
	p->diag = diag;
	p->chain = -1;
	while (*s) {
		size_t len = strcspn(s, "\n");

		p->line++;
		if (len >= sizeof(p->buf)) {
			cf_err(p, sizeof(p->buf),
			       "line too long: expected at most %zu characters",
			       sizeof(p->buf) - 1);
			goto err;
		}
		memcpy(p->buf, s, len);
		p->buf[len] = '\0';
		if (memchr(s, '\0', len) || cf_tokenize(p))
			goto err;
		if (p->ntok && cf_statement(p))
			goto err;
		s += len;
		s += *s == '\n';
	}
	if (cf_end_chain(p))
		goto err;
	if (!cf->nchains) {
		p->line = p->line ? p->line : 1;
		cf_err(p, 1, "no chain in the file: expected at least one 'chain NAME node=N' line");
		goto err;
	}
	free(p);
	return cf;
err:
	free(p);
	free(cf);
	return NULL;
}

struct chainfile *cf_load(const char *path, const struct cf_limits *lim,
			  unsigned int flags, struct cf_diag *diag)
{
	struct chainfile *cf = NULL;
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0, cap = 0, n;

	memset(diag, 0, sizeof(*diag));
	if (!f)
		goto err_io;
	do {
		if (cap - len < 4096) {
			char *t;

			cap = cap ? cap * 2 : 65536;
			if (cap > (64u << 20)) {
				fclose(f);
				free(text);
				snprintf(diag->msg, sizeof(diag->msg),
					 "file too large (more than 64 MiB)");
				return NULL;
			}
			t = realloc(text, cap + 1);
			if (!t)
				break;
			text = t;
		}
		n = fread(text + len, 1, cap - len, f);
		len += n;
	} while (n);
	if (ferror(f) || !text) {
		fclose(f);
		free(text);
		goto err_io;
	}
	fclose(f);
	text[len] = '\0';
	if (strlen(text) != len) {
		free(text);
		snprintf(diag->msg, sizeof(diag->msg),
			 "binary data (a NUL byte): expected a text file");
		return NULL;
	}
	cf = cf_parse(text, lim, flags, diag);
	free(text);
	return cf;
err_io:
	snprintf(diag->msg, sizeof(diag->msg), "%s", strerror(errno ? errno : EIO));
	return NULL;
}

void cf_free(struct chainfile *cf)
{
	free(cf);
}

/*
 * start + step * i, rounded twice on every machine: the volatile keeps the
 * compiler from contracting it into a fused multiply-add where the target
 * has one, so a fill is bit-identical wherever the digests are compared.
 */
static double cf_series(double start, double step, uint64_t i)
{
	volatile double prod = step * (double)i;

	return start + prod;
}

void cf_fill(const struct cf_buffer *b, void *mem)
{
	unsigned int esize = cf_dtype_size(b->dtype);
	uint64_t i, n;
	char *m = mem;

	memset(mem, 0, b->size);
	if (b->fill == CF_FILL_ZERO)
		return;
	n = b->size / esize;
	for (i = 0; i < n; i++) {
		union { int8_t i8; int16_t i16; int32_t i32; int64_t i64;
			float f32; double f64; } v;
		int64_t x = (int64_t)((uint64_t)b->istart +
				      (uint64_t)b->istep * i);

		switch (b->dtype) {
		case TH_NIC_DT_FLOAT32:
			v.f32 = cf_series(b->fstart, b->fstep, i);
			break;
		case TH_NIC_DT_FLOAT64:
			v.f64 = cf_series(b->fstart, b->fstep, i);
			break;
		case TH_NIC_DT_INT8:
		case TH_NIC_DT_UINT8:
			v.i8 = x;
			break;
		case TH_NIC_DT_INT16:
		case TH_NIC_DT_UINT16:
			v.i16 = x;
			break;
		case TH_NIC_DT_INT32:
		case TH_NIC_DT_UINT32:
			v.i32 = x;
			break;
		default:
			v.i64 = x;
			break;
		}
		memcpy(m + i * esize, &v, esize);
	}
}

uint64_t cf_fnv1a64(const void *p, uint64_t len)
{
	const unsigned char *b = p;
	uint64_t h = 0xcbf29ce484222325ULL;
	uint64_t i;

	for (i = 0; i < len; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

void cf_report(const char *cmd, const char *path, const struct cf_diag *diag)
{
	if (diag->line)
		fprintf(stderr, "%s:%u:%u: %s\n", path, diag->line, diag->col,
			diag->msg);
	else
		fprintf(stderr, "thctl %s: %s: %s\n", cmd, path, diag->msg);
}
