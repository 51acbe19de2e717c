/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * json.h - thctl's JSON writer: one document on a stream, compact or
 * pretty (-p), with strings escaped; what -j/--json prints.
 */
#ifndef THCTL_JSON_H
#define THCTL_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define TJ_MAX_DEPTH	16

struct tj {
	FILE *f;
	bool pretty;
	int depth;
	bool first[TJ_MAX_DEPTH];
	bool after_key;
};

void tj_init(struct tj *j, FILE *f, bool pretty);
void tj_obj_begin(struct tj *j);
void tj_obj_end(struct tj *j);
void tj_arr_begin(struct tj *j);
void tj_arr_end(struct tj *j);
void tj_key(struct tj *j, const char *key);
void tj_str(struct tj *j, const char *s);
void tj_u64(struct tj *j, uint64_t v);
void tj_i64(struct tj *j, int64_t v);
void tj_double(struct tj *j, double v);
void tj_bool(struct tj *j, bool v);
void tj_null(struct tj *j);
/* The document is complete: a newline, and the stream flushed. */
void tj_finish(struct tj *j);

static inline void tj_kv_u64(struct tj *j, const char *k, uint64_t v)
{
	tj_key(j, k);
	tj_u64(j, v);
}

static inline void tj_kv_str(struct tj *j, const char *k, const char *v)
{
	tj_key(j, k);
	tj_str(j, v);
}

#endif
