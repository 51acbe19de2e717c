/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * chainfile.h - the chain file format of 'thctl post': a parser that turns
 * the text into buffers, MRs, chains and host actions, checking everything
 * that can be checked before the NIC is touched.  Pure C, no library calls,
 * so it is unit-tested on the host (selftests/host/thctl/test_chainfile.c).
 * The format is described in Documentation/man/man1/thctl.1.
 */
#ifndef THCTL_CHAINFILE_H
#define THCTL_CHAINFILE_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/th_nic.h>

#define CF_NAME_MAX	32
#define CF_MAX_BUFFERS	256
#define CF_MAX_MRS	256
#define CF_MAX_CHAINS	256
#define CF_MAX_DESCS	64	/* per chain; the node's max_chain applies too */
#define CF_MAX_ACTIONS	1024

/* The fabric the file is checked against (th_device_query's answer). */
struct cf_limits {
	uint32_t nodes;
	uint32_t max_counters;
	uint32_t max_chain;
};

/* cf_parse() flags */
enum cf_parse_flags {
	/* leave offsets and lengths to the NIC (tests its refusal path) */
	CF_NO_RANGE_CHECK	= 1 << 0,
};

/* Where and why a file was refused: "LINE:COL: MSG"; line 0: no position. */
struct cf_diag {
	unsigned int line;
	unsigned int col;
	char msg[256];
};

enum cf_fill_kind {
	CF_FILL_ZERO,
	CF_FILL_SERIES,		/* element i = start + i * step */
};

struct cf_buffer {
	char name[CF_NAME_MAX];
	unsigned int line;
	uint32_t node;
	uint64_t size;
	enum cf_fill_kind fill;
	unsigned int dtype;	/* TH_NIC_DT_*, also the default print format */
	bool has_dtype;
	double fstart, fstep;	/* float types */
	int64_t istart, istep;	/* integer types (unsigned as two's complement) */
};

struct cf_mr {
	char name[CF_NAME_MAX];
	unsigned int line;
	unsigned int buffer;	/* index in chainfile.buffers */
	uint32_t node;		/* the buffer's */
	uint64_t off;		/* in the buffer */
	uint64_t len;
	unsigned int access;	/* TH_NIC_ACCESS_* */
};

/* One operation line of a chain, in the terms of the builder calls. */
struct cf_desc {
	unsigned int line;
	unsigned int opcode;	/* TH_NIC_OP_* */
	bool signal;
	int comp_ct;		/* -1: none */
	int remote_ct;		/* PUT, remote WRITE_INLINE; -1: none */
	/* PUT and GET: src_mr[0] is the local side, dst_mr the remote one
	 * (whichever moves the data); COPY: src_mr[0] to dst_mr, both local;
	 * WRITE_INLINE: dst_mr; REDUCE: dst_mr and the sources
	 */
	unsigned int dst_mr;
	uint64_t dst_off;
	unsigned int nsrc;
	unsigned int src_mr[TH_NIC_MAX_OPERANDS];
	uint64_t src_off[TH_NIC_MAX_OPERANDS];
	uint64_t len;
	bool remote;		/* WRITE_INLINE to another node */
	uint8_t data[TH_NIC_INLINE_MAX];
	/* REDUCE */
	unsigned int alu_op, dtype;
	uint32_t count;
	bool accumulate, strided;
	uint64_t stride;	/* strided: sources at src_off[0] + i * stride */
	/* CT_INC, CT_SET: counter and value; NOTIFY: value is imm;
	 * REARM: value is the stride
	 */
	uint16_t ct;
	uint64_t value;
};

struct cf_chain {
	char name[CF_NAME_MAX];
	unsigned int line;
	uint32_t node;
	uint16_t trig_ct;
	uint64_t threshold;
	uint64_t cookie;
	unsigned int ndesc;
	struct cf_desc desc[CF_MAX_DESCS];
};

enum cf_action_kind {
	CF_ACT_CT_INC,		/* start node=N ct=I inc=D */
	CF_ACT_CT_SET,		/* start node=N ct=I set=V */
	CF_ACT_EXPECT,		/* expect node=N ct=I >= V timeout=T */
	CF_ACT_PRINT_BUFFER,	/* print buffer=B as=TYPE|hex */
	CF_ACT_PRINT_COUNTERS,	/* print counters node=N cts=A-B */
	CF_ACT_PRINT_CQ,	/* print completions node=N */
};

/* as= of print buffer: a TH_NIC_DT_* or this */
#define CF_PRINT_HEX	TH_NIC_DT_MAX

struct cf_action {
	enum cf_action_kind kind;
	unsigned int line;
	uint32_t node;
	uint16_t ct, ct_last;
	uint64_t value;
	uint64_t timeout_ns;
	unsigned int buffer;
	unsigned int as;
};

struct chainfile {
	unsigned int nbuffers, nmrs, nchains, nactions;
	struct cf_buffer buffers[CF_MAX_BUFFERS];
	struct cf_mr mrs[CF_MAX_MRS];
	struct cf_chain chains[CF_MAX_CHAINS];
	struct cf_action actions[CF_MAX_ACTIONS];
};

/*
 * Parse @text against @lim (NULL: no fabric checks).  Returns a chainfile
 * to free with cf_free(), or NULL with @diag filled in.
 */
struct chainfile *cf_parse(const char *text, const struct cf_limits *lim,
			   unsigned int flags, struct cf_diag *diag);
/* The same, from a file; I/O errors give line 0 and strerror. */
struct chainfile *cf_load(const char *path, const struct cf_limits *lim,
			  unsigned int flags, struct cf_diag *diag);
void cf_free(struct chainfile *cf);
/*
 * Why cf_load() refused @path, on stderr: "PATH:LINE:COL: why", or
 * "thctl CMD: PATH: why" for a file that could not be read.
 */
void cf_report(const char *cmd, const char *path, const struct cf_diag *diag);

/* "f64", "u8", ...; NULL when out of range */
const char *cf_dtype_name(unsigned int dtype);
unsigned int cf_dtype_size(unsigned int dtype);
bool cf_dtype_is_float(unsigned int dtype);

/* Write the buffer's initial contents into @mem (cf->buffers[i].size bytes). */
void cf_fill(const struct cf_buffer *b, void *mem);

/* FNV-1a, 64-bit: the digest 'thctl post --print-digest' prints. */
uint64_t cf_fnv1a64(const void *p, uint64_t len);

#endif /* THCTL_CHAINFILE_H */
