// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * json.c - thctl's JSON writer (json.h): separators and indentation are
 * decided here, so a command only says what it writes, in order.
 */
#include <math.h>
#include <inttypes.h>

#include "json.h"

void tj_init(struct tj *j, FILE *f, bool pretty)
{
	j->f = f;
	j->pretty = pretty;
	j->depth = 0;
	j->first[0] = true;
	j->after_key = false;
}

static void tj_indent(struct tj *j)
{
	int i;

	if (!j->pretty)
		return;
	fputc('\n', j->f);
	for (i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* Before a value or a key: its separator, unless it follows a key. */
static void tj_sep(struct tj *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
	if (j->depth)
		tj_indent(j);
}

static void tj_open(struct tj *j, char c)
{
	tj_sep(j);
	fputc(c, j->f);
	if (j->depth + 1 < TJ_MAX_DEPTH)
		j->depth++;
	j->first[j->depth] = true;
}

static void tj_close(struct tj *j, char c)
{
	bool empty = j->first[j->depth];

	if (j->depth)
		j->depth--;
	if (!empty)
		tj_indent(j);
	fputc(c, j->f);
}

void tj_obj_begin(struct tj *j) { tj_open(j, '{'); }
void tj_obj_end(struct tj *j) { tj_close(j, '}'); }
void tj_arr_begin(struct tj *j) { tj_open(j, '['); }
void tj_arr_end(struct tj *j) { tj_close(j, ']'); }

static void tj_quoted(struct tj *j, const char *s)
{
	const unsigned char *p;

	fputc('"', j->f);
	for (p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(j->f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", j->f);
		else if (*p == '\t')
			fputs("\\t", j->f);
		else if (*p < 0x20)
			fprintf(j->f, "\\u%04x", *p);
		else
			fputc(*p, j->f);
	}
	fputc('"', j->f);
}

void tj_key(struct tj *j, const char *key)
{
	tj_sep(j);
	tj_quoted(j, key);
	fputs(j->pretty ? ": " : ":", j->f);
	j->after_key = true;
}

void tj_str(struct tj *j, const char *s)
{
	tj_sep(j);
	tj_quoted(j, s ? s : "");
}

void tj_u64(struct tj *j, uint64_t v)
{
	tj_sep(j);
	fprintf(j->f, "%" PRIu64, v);
}

void tj_i64(struct tj *j, int64_t v)
{
	tj_sep(j);
	fprintf(j->f, "%" PRId64, v);
}

/* JSON has no NaN or infinity: those are null. */
void tj_double(struct tj *j, double v)
{
	tj_sep(j);
	if (isfinite(v))
		fprintf(j->f, "%.17g", v);
	else
		fputs("null", j->f);
}

void tj_bool(struct tj *j, bool v)
{
	tj_sep(j);
	fputs(v ? "true" : "false", j->f);
}

void tj_null(struct tj *j)
{
	tj_sep(j);
	fputs("null", j->f);
}

void tj_finish(struct tj *j)
{
	fputc('\n', j->f);
	fflush(j->f);
}
