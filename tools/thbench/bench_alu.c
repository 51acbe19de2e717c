// SPDX-License-Identifier: GPL-2.0 OR MIT
/* bench_alu.c - "thbench alu": throughput of th_alu_reduce() per op, dtype,
 * operand count and operand size.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "th_alu.h"
#include "thbench.h"

#define ALU_MAX_LIST	16
#define ALU_MAX_REPS	1000
/* each repetition runs the reduction this long at least, for clock grain */
#define ALU_REP_NS	20000000ULL

static const char *const alu_op_names[TH_NIC_ALU_OP_MAX] = {
	[TH_NIC_ALU_SUM] = "sum", [TH_NIC_ALU_PROD] = "prod",
	[TH_NIC_ALU_MAX] = "max", [TH_NIC_ALU_MIN] = "min",
	[TH_NIC_ALU_BAND] = "band", [TH_NIC_ALU_BOR] = "bor",
	[TH_NIC_ALU_BXOR] = "bxor",
};

static const char *const alu_dt_names[TH_NIC_DT_MAX] = {
	[TH_NIC_DT_INT8] = "int8", [TH_NIC_DT_INT16] = "int16",
	[TH_NIC_DT_INT32] = "int32", [TH_NIC_DT_INT64] = "int64",
	[TH_NIC_DT_UINT8] = "uint8", [TH_NIC_DT_UINT16] = "uint16",
	[TH_NIC_DT_UINT32] = "uint32", [TH_NIC_DT_UINT64] = "uint64",
	[TH_NIC_DT_FLOAT32] = "float32", [TH_NIC_DT_FLOAT64] = "float64",
};

struct alu_case {
	unsigned int op, dtype, nsrc;
	size_t bytes;		/* per operand */
};

/*
 * With no selection on the command line: the headline case (float64 sum of
 * 7 operands) in cache and from memory, fewer operands, the other float
 * ops, and integer kernels of each width, including the 64-bit max and
 * product that baseline x86-64 (SSE2) cannot vectorise.
 */
static const struct alu_case alu_default_sweep[] = {
	{ TH_NIC_ALU_SUM,  TH_NIC_DT_FLOAT64, 7, 64 << 10 },
	{ TH_NIC_ALU_SUM,  TH_NIC_DT_FLOAT64, 7, 8 << 20 },
	{ TH_NIC_ALU_SUM,  TH_NIC_DT_FLOAT64, 2, 64 << 10 },
	{ TH_NIC_ALU_SUM,  TH_NIC_DT_FLOAT64, 2, 8 << 20 },
	{ TH_NIC_ALU_SUM,  TH_NIC_DT_FLOAT32, 7, 64 << 10 },
	{ TH_NIC_ALU_SUM,  TH_NIC_DT_FLOAT32, 7, 8 << 20 },
	{ TH_NIC_ALU_PROD, TH_NIC_DT_FLOAT64, 7, 64 << 10 },
	{ TH_NIC_ALU_MAX,  TH_NIC_DT_FLOAT64, 7, 64 << 10 },
	{ TH_NIC_ALU_MIN,  TH_NIC_DT_FLOAT32, 7, 64 << 10 },
	{ TH_NIC_ALU_SUM,  TH_NIC_DT_INT32,   7, 64 << 10 },
	{ TH_NIC_ALU_PROD, TH_NIC_DT_UINT16,  7, 64 << 10 },
	{ TH_NIC_ALU_MAX,  TH_NIC_DT_INT8,    7, 64 << 10 },
	{ TH_NIC_ALU_BXOR, TH_NIC_DT_UINT64,  7, 64 << 10 },
	{ TH_NIC_ALU_MAX,  TH_NIC_DT_INT64,   7, 64 << 10 },
	{ TH_NIC_ALU_PROD, TH_NIC_DT_UINT64,  7, 64 << 10 },
};

static void alu_usage(FILE *f)
{
	unsigned int i;

	fprintf(f,
		"usage: thbench alu [--op OP[,OP...]] [--dtype T[,T...]] [--nsrc N[,N...]]\n"
		"                   [--bytes B[,B...]] [--reps R] [--acc] [--csv]\n"
		"\n"
		"Times th_alu_reduce() and prints the median throughput over R\n"
		"repetitions, after a warm-up; each repetition loops for >= 20 ms.\n"
		"GB/s counts operand data read: nsrc (+1 with --acc, dst being an\n"
		"operand) x count x element size, GB = 1e9 bytes.\n"
		"\n"
		"  --op      operators (default sum):");
	for (i = 0; i < TH_NIC_ALU_OP_MAX; i++)
		fprintf(f, " %s", alu_op_names[i]);
	fprintf(f, "\n  --dtype   element types (default float64):");
	for (i = 0; i < TH_NIC_DT_MAX; i++)
		fprintf(f, " %s", alu_dt_names[i]);
	fprintf(f,
		"\n"
		"  --nsrc    source operands, 1..7, 1..6 with --acc (default 7)\n"
		"  --bytes   bytes per operand, suffix K, M or G (default 64K)\n"
		"  --reps    timed repetitions, 1..%u (default 7)\n"
		"  --acc     accumulate: dst is the first operand\n"
		"  --csv     comma-separated output\n"
		"  --help    this text\n"
		"\n"
		"Every combination of the lists is run; bitwise ops on floats are\n"
		"skipped.  With none of --op, --dtype, --nsrc, --bytes: a default\n"
		"sweep, including float64 sum of 7 operands at 64K (in cache) and\n"
		"8M (from memory).\n"
		"Exit status: 0 success, 1 failure, 2 usage error.\n",
		ALU_MAX_REPS);
}

static int alu_lookup(const char *s, const char *const *names, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

/* "64K" -> 65536; 0 on a malformed or zero size. */
static size_t alu_parse_size(const char *s)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		return 0;
	switch (*end) {
	case 'k': case 'K':
		v <<= 10, end++;
		break;
	case 'm': case 'M':
		v <<= 20, end++;
		break;
	case 'g': case 'G':
		v <<= 30, end++;
		break;
	}
	if (*end == 'i' && end[1] == 'B')	/* accept KiB, MiB, GiB too */
		end += 2;
	if (*end || v > (1ULL << 40))
		return 0;
	return v;
}

/*
 * Splits a comma-separated @arg into @out, each item parsed by name (when
 * @names) or as a number or size.  Returns the count, or -1.
 */
static int alu_parse_list(const char *opt, const char *arg,
			  const char *const *names, unsigned int nnames,
			  bool is_size, unsigned long long *out)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	int n = 0;

	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		long long v;

		if (n == ALU_MAX_LIST) {
			fprintf(stderr, "thbench alu: %s: at most %d items\n",
				opt, ALU_MAX_LIST);
			goto err;
		}
		if (names) {
			v = alu_lookup(tok, names, nnames);
		} else if (is_size) {
			v = alu_parse_size(tok);
			v = v ? v : -1;
		} else {
			char *end;

			v = strtol(tok, &end, 10);
			if (*end || end == tok)
				v = -1;
		}
		if (v < 0) {
			fprintf(stderr, "thbench alu: %s: bad value '%s'\n",
				opt, tok);
			goto err;
		}
		out[n++] = v;
	}
	free(copy);
	if (!n)
		fprintf(stderr, "thbench alu: %s: empty list\n", opt);
	return n ? n : -1;

err:
	free(copy);
	return -1;
}

static unsigned long long alu_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int alu_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* xorshift64*: reproducible operands */
static unsigned long long alu_rand(unsigned long long *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

/*
 * Floats in [1, 2): no NaN, infinity or subnormal, whose slow paths on
 * some CPUs would measure the CPU rather than the code.
 */
static void alu_fill(void *p, unsigned int dtype, size_t count,
		     unsigned long long seed)
{
	unsigned long long s = seed * 0x9e3779b97f4a7c15ULL + 1;
	size_t i;

	for (i = 0; i < count; i++) {
		unsigned long long r = alu_rand(&s);

		if (dtype == TH_NIC_DT_FLOAT64)
			((double *)p)[i] = 1.0 + (double)(r >> 11) / (1ULL << 53);
		else if (dtype == TH_NIC_DT_FLOAT32)
			((float *)p)[i] = 1.0f + (float)(r >> 40) / (1 << 24);
		else
			memcpy((char *)p + i * th_alu_dtype_size(dtype), &r,
			       th_alu_dtype_size(dtype));
	}
}

struct alu_result {
	double median, best, worst;	/* GB/s */
	unsigned long long iters;	/* reductions per repetition */
};

static int alu_run(const struct alu_case *c, bool acc, unsigned int reps,
		   struct alu_result *res)
{
	unsigned int esize = th_alu_dtype_size(c->dtype), k, r;
	size_t count = c->bytes / esize, bytes = count * esize;
	void *buf[TH_NIC_MAX_OPERANDS + 1] = { NULL };
	double gbps[ALU_MAX_REPS];
	unsigned long long t0, t1, i;
	int ret = 1;

	for (k = 0; k <= c->nsrc; k++) {
		/* page-aligned and rounded up, as aligned_alloc() asks */
		buf[k] = aligned_alloc(4096, (bytes + 4095) & ~(size_t)4095);
		if (!buf[k]) {
			fprintf(stderr, "thbench alu: out of memory\n");
			goto out;
		}
		alu_fill(buf[k], c->dtype, count, k + 1);
	}

	/*
	 * Warm-up, which also sizes a repetition: double the iterations
	 * until they take 1/4 of the target, then scale up to it.
	 */
	for (res->iters = 1;; res->iters *= 2) {
		t0 = alu_now_ns();
		for (i = 0; i < res->iters; i++)
			th_alu_reduce(c->op, c->dtype, buf[c->nsrc],
				      (const void *const *)buf, c->nsrc, acc,
				      count);
		t1 = alu_now_ns();
		if (t1 - t0 >= ALU_REP_NS / 4)
			break;
	}
	res->iters = res->iters * ALU_REP_NS / (t1 - t0) + 1;

	for (r = 0; r < reps; r++) {
		t0 = alu_now_ns();
		for (i = 0; i < res->iters; i++)
			th_alu_reduce(c->op, c->dtype, buf[c->nsrc],
				      (const void *const *)buf, c->nsrc, acc,
				      count);
		t1 = alu_now_ns();
		gbps[r] = (double)(c->nsrc + acc) * bytes * res->iters /
			  (double)(t1 - t0);
	}
	qsort(gbps, reps, sizeof(gbps[0]), alu_cmp_double);
	res->worst = gbps[0];
	res->best = gbps[reps - 1];
	res->median = reps % 2 ? gbps[reps / 2] :
			(gbps[reps / 2 - 1] + gbps[reps / 2]) / 2;
	ret = 0;
out:
	for (k = 0; k <= c->nsrc; k++)
		free(buf[k]);
	return ret;
}

static void alu_print_size(char *s, size_t n, size_t bytes)
{
	if (bytes >= (1 << 30) && !(bytes & ((1 << 30) - 1)))
		snprintf(s, n, "%zuG", bytes >> 30);
	else if (bytes >= (1 << 20) && !(bytes & ((1 << 20) - 1)))
		snprintf(s, n, "%zuM", bytes >> 20);
	else if (bytes >= (1 << 10) && !(bytes & ((1 << 10) - 1)))
		snprintf(s, n, "%zuK", bytes >> 10);
	else
		snprintf(s, n, "%zu", bytes);
}

int thbench_alu_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "op",    required_argument, NULL, 'o' },
		{ "dtype", required_argument, NULL, 'd' },
		{ "nsrc",  required_argument, NULL, 'n' },
		{ "bytes", required_argument, NULL, 'b' },
		{ "reps",  required_argument, NULL, 'r' },
		{ "acc",   no_argument,       NULL, 'a' },
		{ "csv",   no_argument,       NULL, 'c' },
		{ "help",  no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	unsigned long long ops[ALU_MAX_LIST] = { TH_NIC_ALU_SUM };
	unsigned long long dts[ALU_MAX_LIST] = { TH_NIC_DT_FLOAT64 };
	unsigned long long nsrcs[ALU_MAX_LIST] = { 7 };
	unsigned long long sizes[ALU_MAX_LIST] = { 64 << 10 };
	int nops = 1, ndts = 1, nnsrc = 1, nsizes = 1;
	struct alu_case cases[ALU_MAX_LIST * ALU_MAX_LIST * 4];
	unsigned int ncases = 0, reps = 7, i;
	bool acc = false, csv = false, chosen = false;
	int opt, a, b, c, d;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		char *end;
		long v;

		switch (opt) {
		case 'o':
			nops = alu_parse_list("--op", optarg, alu_op_names,
					      TH_NIC_ALU_OP_MAX, false, ops);
			if (nops < 0)
				return 2;
			chosen = true;
			break;
		case 'd':
			ndts = alu_parse_list("--dtype", optarg, alu_dt_names,
					      TH_NIC_DT_MAX, false, dts);
			if (ndts < 0)
				return 2;
			chosen = true;
			break;
		case 'n':
			nnsrc = alu_parse_list("--nsrc", optarg, NULL, 0,
					       false, nsrcs);
			if (nnsrc < 0)
				return 2;
			chosen = true;
			break;
		case 'b':
			nsizes = alu_parse_list("--bytes", optarg, NULL, 0,
						true, sizes);
			if (nsizes < 0)
				return 2;
			chosen = true;
			break;
		case 'r':
			v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v < 1 ||
			    v > ALU_MAX_REPS) {
				fprintf(stderr, "thbench alu: --reps: 1..%u\n",
					ALU_MAX_REPS);
				return 2;
			}
			reps = v;
			break;
		case 'a':
			acc = true;
			break;
		case 'c':
			csv = true;
			break;
		case 'h':
			alu_usage(stdout);
			return 0;
		default:
			alu_usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "thbench alu: unexpected argument '%s'\n",
			argv[optind]);
		alu_usage(stderr);
		return 2;
	}
	for (c = 0; c < nnsrc; c++) {
		if (nsrcs[c] < 1 || nsrcs[c] + acc > TH_NIC_MAX_OPERANDS) {
			fprintf(stderr, "thbench alu: --nsrc %llu: 1..%u%s\n",
				nsrcs[c], TH_NIC_MAX_OPERANDS - acc,
				acc ? " with --acc" : "");
			return 2;
		}
	}

	if (!chosen) {
		for (i = 0; i < sizeof(alu_default_sweep) /
				sizeof(alu_default_sweep[0]); i++) {
			cases[ncases] = alu_default_sweep[i];
			/* one operand fewer leaves room for dst */
			if (cases[ncases].nsrc + acc > TH_NIC_MAX_OPERANDS)
				cases[ncases].nsrc--;
			ncases++;
		}
	}
	for (a = 0; chosen && a < nops; a++)
		for (b = 0; b < ndts; b++)
			for (c = 0; c < nnsrc; c++)
				for (d = 0; d < nsizes; d++) {
					struct alu_case *k = &cases[ncases];

					k->op = ops[a];
					k->dtype = dts[b];
					k->nsrc = nsrcs[c];
					k->bytes = sizes[d];
					if (!th_alu_op_valid(k->op, k->dtype)) {
						if (c == 0 && d == 0)
							fprintf(stderr,
								"thbench alu: skipping %s on %s (not a valid combination)\n",
								alu_op_names[k->op],
								alu_dt_names[k->dtype]);
						continue;
					}
					if (k->bytes < th_alu_dtype_size(k->dtype)) {
						fprintf(stderr,
							"thbench alu: --bytes %zu: less than one %s\n",
							k->bytes,
							alu_dt_names[k->dtype]);
						return 2;
					}
					if (ncases == sizeof(cases) / sizeof(cases[0])) {
						fprintf(stderr,
							"thbench alu: too many combinations\n");
						return 2;
					}
					ncases++;
				}
	if (!ncases) {
		fprintf(stderr, "thbench alu: nothing to run\n");
		return 2;
	}

	if (csv)
		printf("op,dtype,nsrc,accumulate,bytes_per_operand,count,reps,iters_per_rep,median_gbps,best_gbps,worst_gbps\n");
	else
		printf("# thbench alu: GB/s of operand data read = (nsrc%s) x count x elem size / time\n"
		       "# median of %u repetitions of >= 20 ms each, after a warm-up; GB = 1e9 bytes\n"
		       "%-5s %-8s %4s %10s %10s %12s %10s %10s\n",
		       acc ? " + 1 for dst" : "", reps, "op", "dtype",
		       "nsrc", "bytes/opnd", "count", "median GB/s", "best",
		       "worst");

	for (i = 0; i < ncases; i++) {
		const struct alu_case *k = &cases[i];
		size_t count = k->bytes / th_alu_dtype_size(k->dtype);
		struct alu_result res;
		char size[32];

		if (alu_run(k, acc, reps, &res))
			return 1;
		if (csv) {
			printf("%s,%s,%u,%d,%zu,%zu,%u,%llu,%.3f,%.3f,%.3f\n",
			       alu_op_names[k->op], alu_dt_names[k->dtype],
			       k->nsrc, acc, k->bytes, count, reps, res.iters,
			       res.median, res.best, res.worst);
		} else {
			alu_print_size(size, sizeof(size), k->bytes);
			printf("%-5s %-8s %4u %10s %10zu %12.2f %10.2f %10.2f\n",
			       alu_op_names[k->op], alu_dt_names[k->dtype],
			       k->nsrc, size, count, res.median, res.best,
			       res.worst);
		}
		fflush(stdout);
	}
	return 0;
}
