// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bench_allreduce.c - 'thbench allreduce': Allreduce latency of the
 * offload (th_coll) against the host-driven baselines on the same NIC (the
 * p2p k-nomial tree and MPICH-style recursive doubling, th_p2p.h) and
 * against MPICH's own MPI_Allreduce, side by side (COLLECTIVES.md,
 * "Benchmark protocol").  One process drives every rank; ranks beyond the
 * provider's nodes share nodes through extra vports.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "th_p2p.h"
#include "thbench.h"
#include "thverbs.h"

#define AR_MAX_LIST	32
#define AR_MAX_RANKS	1024
#define AR_TIMEOUT_NS	30000000000ULL
#define AR_PAPER_RATIO	0.404
#define AR_MPI_TIMEOUT_S 180

enum ar_variant { AR_OFFLOAD, AR_P2P, AR_RECDBL, AR_MPI, AR_NVARIANT };

static const char *const ar_variant_name[AR_NVARIANT] = {
	"offload", "p2p-tree", "recdbl", "mpich",
};

struct ar_stat {
	bool ok;
	double med, p10, p90;	/* microseconds */
	int reps;
	const char *why;	/* when !ok: what to print instead */
};

struct ar_opts {
	unsigned int nodes[AR_MAX_LIST], nnodes;
	uint64_t sizes[AR_MAX_LIST];
	unsigned int nsizes;
	unsigned int radix[AR_MAX_LIST], nradix;
	const char *provider;
	const char *out;
	int reps, warmup;
	bool mpi, plot;
};

struct ar_world {
	struct th_device **devs;
	int ndev;
	struct th_context **ctx;
	struct th_vport *vp[AR_MAX_RANKS];
	unsigned int n;
};

/* One row of results: N, size, radix and every variant. */
struct ar_row {
	unsigned int n, radix;
	uint64_t bytes;
	struct ar_stat v[AR_NVARIANT];
};

static double ar_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

static int ar_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void ar_stat_of(struct ar_stat *st, double *t, int n)
{
	qsort(t, n, sizeof(*t), ar_cmp);
	st->ok = true;
	st->med = t[n / 2];
	st->p10 = t[n / 10];
	st->p90 = t[n * 9 / 10];
	st->reps = n;
}

static void ar_usage(FILE *f)
{
	fprintf(f,
		"usage: thbench allreduce [--provider P] [--nodes LIST] [--sizes LIST]\n"
		"                         [--radix LIST] [--reps R] [--warmup W]\n"
		"                         [--out DIR] [--quick] [--no-mpi] [--no-plot]\n\n"
		"Allreduce (double, sum) latency, one process driving N ranks:\n"
		"  offload   th_coll: the k-nomial tree compiled into triggered chains\n"
		"  p2p-tree  the same tree and NIC, the host waits, reduces, puts\n"
		"  recdbl    MPICH-style recursive doubling on the NIC, host driven\n"
		"            (no radix: the same figure on every radix row)\n"
		"  mpich     MPI_Allreduce of the system MPICH, mpiexec -n N; the\n"
		"            ranks are processes oversubscribing this machine's cores\n"
		"            (built with mpicc into DIR at run time; skipped if absent)\n"
		"Defaults: --nodes 2,4,8,16,32,64 --sizes 8,64,512,4K,32K,256K,1M\n"
		"  --radix 2,4,8 --reps 100 --warmup 10 (fewer reps when N x size\n"
		"  exceeds 16 MiB; MPICH at most 20, 10 beyond 4 ranks a core, and\n"
		"  %d s an N); --quick: --nodes 4,16\n"
		"  --sizes 8,64K --radix 2,4 --reps 30.  Sizes take K and M suffixes.\n"
		"Per operation: median and p10/p90 over the timed reps (microseconds),\n"
		"bandwidth = size / median.  Output: a table on stdout, DIR/allreduce.csv\n"
		"and DIR/allreduce.png (gnuplot, if present); DIR defaults to\n"
		"build/bench/allreduce under the source tree, or ./thbench-allreduce.\n"
		"The source paper's offload/p2p ratio at N = 16 is %.3f.\n",
		AR_MPI_TIMEOUT_S, AR_PAPER_RATIO);
}

/* ---- options ---------------------------------------------------------------- */

static int ar_parse_u64(const char *s, uint64_t *v)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	if (*end == 'k' || *end == 'K') {
		x <<= 10;
		end++;
	} else if (*end == 'm' || *end == 'M') {
		x <<= 20;
		end++;
	}
	if (*end)
		return -EINVAL;
	*v = x;
	return 0;
}

static int ar_parse_list(const char *arg, uint64_t *v, unsigned int *n,
			 uint64_t min, uint64_t max)
{
	char *copy = strdup(arg), *save = NULL, *tok;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	*n = 0;
	for (tok = strtok_r(copy, ",", &save); tok && !ret;
	     tok = strtok_r(NULL, ",", &save)) {
		if (*n == AR_MAX_LIST || ar_parse_u64(tok, &v[*n]) ||
		    v[*n] < min || v[*n] > max)
			ret = -EINVAL;
		else
			(*n)++;
	}
	free(copy);
	return ret || !*n ? -EINVAL : 0;
}

static int ar_parse_uints(const char *arg, unsigned int *v, unsigned int *n,
			  unsigned int min, unsigned int max)
{
	uint64_t tmp[AR_MAX_LIST];
	unsigned int i;
	int ret = ar_parse_list(arg, tmp, n, min, max);

	for (i = 0; !ret && i < *n; i++)
		v[i] = tmp[i];
	return ret;
}

static int ar_parse(int argc, char **argv, struct ar_opts *o)
{
	static const unsigned int nodes[] = { 2, 4, 8, 16, 32, 64 };
	static const uint64_t sizes[] = { 8, 64, 512, 4096, 32768, 262144,
					  1048576 };
	static const unsigned int radix[] = { 2, 4, 8 };
	bool reps_set = false;
	unsigned int i;
	int ret = 0;

	memset(o, 0, sizeof(*o));
	o->nnodes = sizeof(nodes) / sizeof(nodes[0]);
	memcpy(o->nodes, nodes, sizeof(nodes));
	o->nsizes = sizeof(sizes) / sizeof(sizes[0]);
	memcpy(o->sizes, sizes, sizeof(sizes));
	o->nradix = sizeof(radix) / sizeof(radix[0]);
	memcpy(o->radix, radix, sizeof(radix));
	o->reps = 100;
	o->warmup = -1;
	o->mpi = true;
	o->plot = true;
	for (i = 1; !ret && i < (unsigned int)argc; i++) {
		const char *a = argv[i], *v = i + 1 < (unsigned int)argc ?
					      argv[i + 1] : NULL;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			ar_usage(stdout);
			return 1;
		} else if (!strcmp(a, "--quick")) {
			o->nnodes = 2;
			o->nodes[0] = 4;
			o->nodes[1] = 16;
			o->nsizes = 2;
			o->sizes[0] = 8;
			o->sizes[1] = 65536;
			o->nradix = 2;
			o->radix[0] = 2;
			o->radix[1] = 4;
			if (!reps_set)
				o->reps = 30;
		} else if (!strcmp(a, "--no-mpi")) {
			o->mpi = false;
		} else if (!strcmp(a, "--no-plot")) {
			o->plot = false;
		} else if (!v) {
			ret = -EINVAL;
		} else if (!strcmp(a, "--nodes")) {
			ret = ar_parse_uints(v, o->nodes, &o->nnodes, 1,
					     AR_MAX_RANKS);
			i++;
		} else if (!strcmp(a, "--sizes")) {
			ret = ar_parse_list(v, o->sizes, &o->nsizes, 0,
					    1ULL << 30);
			i++;
		} else if (!strcmp(a, "--radix")) {
			ret = ar_parse_uints(v, o->radix, &o->nradix, 2, 64);
			i++;
		} else if (!strcmp(a, "--reps")) {
			o->reps = atoi(v);
			reps_set = true;
			ret = o->reps < 1 ? -EINVAL : 0;
			i++;
		} else if (!strcmp(a, "--warmup")) {
			o->warmup = atoi(v);
			ret = o->warmup < 0 ? -EINVAL : 0;
			i++;
		} else if (!strcmp(a, "--provider")) {
			o->provider = v;
			i++;
		} else if (!strcmp(a, "--out")) {
			o->out = v;
			i++;
		} else {
			ret = -EINVAL;
		}
	}
	if (o->warmup < 0)
		o->warmup = o->reps / 10 > 3 ? o->reps / 10 : 3;
	return ret;
}

/* ---- the world: vports for N ranks -------------------------------------------- */

static int ar_world_vports(struct ar_world *w, unsigned int n)
{
	unsigned int r;

	for (r = 0; r < n; r++) {
		unsigned int node = r % w->ndev;

		if (!w->ctx[node])
			w->ctx[node] = th_open_device(w->devs[node]);
		if (!w->ctx[node])
			return -errno;
		w->vp[r] = th_create_vport(w->ctx[node], NULL);
		if (!w->vp[r])
			return -errno;
		w->n = r + 1;
	}
	return 0;
}

static void ar_world_release(struct ar_world *w)
{
	unsigned int r;

	for (r = 0; r < w->n; r++)
		th_destroy_vport(w->vp[r]);
	w->n = 0;
}

/* ---- the variants on the NIC ------------------------------------------------------ */

struct ar_bufs {
	unsigned int n;
	uint32_t count;
	double *send[AR_MAX_RANKS], *recv[AR_MAX_RANKS];
};

static void ar_bufs_free(struct ar_bufs *b)
{
	unsigned int r;

	for (r = 0; r < b->n; r++) {
		free(b->send[r]);
		free(b->recv[r]);
	}
	b->n = 0;
}

static int ar_bufs_alloc(struct ar_bufs *b, unsigned int n, uint32_t count)
{
	unsigned int r, i;

	b->count = count;
	for (r = 0; r < n; r++) {
		b->send[r] = malloc((count ? count : 1) * sizeof(double));
		b->recv[r] = calloc(count ? count : 1, sizeof(double));
		b->n = r + 1;
		if (!b->send[r] || !b->recv[r])
			return -ENOMEM;
		for (i = 0; i < count; i++)
			b->send[r][i] = (double)(r + 1) / 7 + (double)i / 3;
	}
	return 0;
}

/*
 * One variant on fresh vports (th_coll expects its counters at zero):
 * warm-up, then @reps timed operations.
 */
static int ar_run_nic(struct ar_world *w, enum ar_variant v,
		      const struct th_coll_attr *a, unsigned int n,
		      struct ar_bufs *b, int reps, int warmup, double *t,
		      struct ar_stat *st)
{
	struct th_coll *coll = NULL;
	struct th_p2p *p2p = NULL;
	int i, ret;

	ret = ar_world_vports(w, n);
	if (!ret && v == AR_OFFLOAD) {
		coll = th_coll_create_local(w->vp, n, a, (void *const *)b->send,
					    (void *const *)b->recv);
		ret = coll ? 0 : -errno;
	} else if (!ret) {
		p2p = th_p2p_create_local_algo(w->vp, n, a, v == AR_P2P ?
					       TH_P2P_TREE : TH_P2P_RECDBL,
					       (void *const *)b->send,
					       (void *const *)b->recv);
		ret = p2p ? 0 : -errno;
	}
	for (i = -warmup; !ret && i < reps; i++) {
		double t0 = ar_now_us();

		if (coll) {
			ret = th_coll_start(coll);
			if (!ret)
				ret = th_coll_wait(coll, AR_TIMEOUT_NS);
		} else {
			ret = th_p2p_run(p2p, AR_TIMEOUT_NS);
		}
		if (i >= 0)
			t[i] = ar_now_us() - t0;
	}
	th_coll_destroy(coll);
	th_p2p_destroy(p2p);
	ar_world_release(w);
	if (ret) {
		st->ok = false;
		st->why = "error";
		fprintf(stderr, "\nthbench allreduce: %s n=%u count=%u radix=%u: %s\n",
			ar_variant_name[v], n, a->count, a->radix,
			th_strerror(ret));
		return ret;
	}
	ar_stat_of(st, t, reps);
	return 0;
}

/* ---- MPICH ---------------------------------------------------------------------- */

static bool ar_have(const char *prog)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", prog);
	return system(cmd) == 0;
}

static int ar_mkdir_p(const char *dir)
{
	char path[4096], *p;

	if (snprintf(path, sizeof(path), "%s", dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(path, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

/* The MPI program's source: next to the tree thbench was built from. */
static const char *ar_mpi_source(char *buf, size_t len)
{
	char exe[4096];
	ssize_t n;
	char *slash;

#ifdef THBENCH_TOP
	snprintf(buf, len, "%s/tools/thbench/mpi/allreduce_mpi.c", THBENCH_TOP);
	if (!access(buf, R_OK))
		return buf;
#endif
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		slash = strrchr(exe, '/');
		if (slash)
			*slash = 0;
		/* build/bin/thbench -> the tree */
		if (snprintf(buf, len, "%s/../../tools/thbench/mpi/allreduce_mpi.c",
			     exe) < (int)len && !access(buf, R_OK))
			return buf;
	}
	return NULL;
}

/* Build the MPI peer into @out; NULL (and a reason) when it cannot be. */
static const char *ar_mpi_build(const char *out, char *bin, size_t len,
				const char **why)
{
	char src[4096], cmd[12288];

	if (!ar_have("mpicc") || !ar_have("mpiexec")) {
		*why = "n/a";
		return NULL;
	}
	if (!ar_mpi_source(src, sizeof(src))) {
		*why = "no src";
		return NULL;
	}
	if (snprintf(bin, len, "%s/allreduce_mpi", out) >= (int)len ||
	    snprintf(cmd, sizeof(cmd), "mpicc -O2 -o '%s' '%s' >&2", bin,
		     src) >= (int)sizeof(cmd) || system(cmd)) {
		*why = "no build";
		return NULL;
	}
	return bin;
}

/* mpiexec -n @n over every size; fills @st[size index]. */
static void ar_mpi_run(const char *bin, const struct ar_opts *o,
		       unsigned int n, struct ar_stat *st)
{
	char cmd[8192], line[256];
	int reps = o->reps < 20 ? o->reps : 20, warmup, len, status;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int i;
	FILE *f;

	/* far oversubscribed, an operation takes tenths of a second */
	warmup = o->warmup < 5 ? o->warmup : 5;
	if (cores > 0 && n > 4 * cores) {
		reps = reps < 10 ? reps : 10;
		warmup = warmup < 2 ? warmup : 2;
	}

	for (i = 0; i < o->nsizes; i++) {
		st[i].ok = false;
		st[i].why = "failed";
	}
	/*
	 * Hydra forks the ranks locally; -bind-to none lets the kernel share
	 * the cores; timeout(1) ends a hung job (and its ranks).
	 */
	len = snprintf(cmd, sizeof(cmd),
		       "timeout -k 5 %d mpiexec -n %u -bind-to none '%s' %d %d",
		       AR_MPI_TIMEOUT_S, n, bin, reps, warmup);
	for (i = 0; i < o->nsizes && len < (int)sizeof(cmd) - 32; i++)
		len += snprintf(cmd + len, sizeof(cmd) - len, " %llu",
				(unsigned long long)o->sizes[i]);
	snprintf(cmd + len, sizeof(cmd) - len, " </dev/null 2>/dev/null");
	f = popen(cmd, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long bytes;
		double med, p10, p90;
		int r;

		if (sscanf(line, "size %llu %lf %lf %lf %d", &bytes, &med, &p10,
			   &p90, &r) != 5)
			continue;
		for (i = 0; i < o->nsizes; i++)
			if (o->sizes[i] == bytes) {
				st[i] = (struct ar_stat){ .ok = true, .med = med,
					.p10 = p10, .p90 = p90, .reps = r };
			}
	}
	status = pclose(f);
	if (status && WIFEXITED(status) && WEXITSTATUS(status) == 124)
		for (i = 0; i < o->nsizes; i++)
			if (!st[i].ok)
				st[i].why = "timeout";
}

/* ---- output ---------------------------------------------------------------------- */

static void ar_size_str(uint64_t bytes, char *buf, size_t len)
{
	if (bytes >= (1 << 20) && !(bytes % (1 << 20)))
		snprintf(buf, len, "%lluM", (unsigned long long)(bytes >> 20));
	else if (bytes >= 1024 && !(bytes % 1024))
		snprintf(buf, len, "%lluK", (unsigned long long)(bytes >> 10));
	else
		snprintf(buf, len, "%llu", (unsigned long long)bytes);
}

static void ar_cell(const struct ar_stat *st, char *buf, size_t len)
{
	if (st->ok)
		snprintf(buf, len, "%.1f [%.1f-%.1f]", st->med, st->p10, st->p90);
	else
		snprintf(buf, len, "%s", st->why ? st->why : "-");
}

static void ar_table_head(const char *provider, bool mpi)
{
	printf("# Allreduce, double sum, one process driving N ranks on provider '%s'\n",
	       provider);
	printf("# latency per operation in us: median [p10-p90]; recdbl ignores the radix;\n"
	       "# off/p2p: offload median / p2p-tree median (paper: %.3f at N = 16);\n"
	       "# MB/s: size / median\n", AR_PAPER_RATIO);
	if (mpi)
		printf("# mpich: MPI_Allreduce, mpiexec -n N -bind-to none: N processes OVERSUBSCRIBING %ld cores\n",
		       sysconf(_SC_NPROCESSORS_ONLN));
	printf("%4s %6s %5s | %-26s %-26s %-26s %-28s | %7s %6s | %s\n", "N",
	       "size", "radix", "offload", "p2p-tree", "recdbl (mpich-style)",
	       "mpich", "off/p2p", "paper", "MB/s off/p2p");
}

static void ar_table_row(const struct ar_row *row)
{
	char size[24], cell[AR_NVARIANT][64], ratio[24] = "-", bw[64] = "-";
	unsigned int v;

	ar_size_str(row->bytes, size, sizeof(size));
	for (v = 0; v < AR_NVARIANT; v++)
		ar_cell(&row->v[v], cell[v], sizeof(cell[v]));
	if (row->v[AR_OFFLOAD].ok && row->v[AR_P2P].ok && row->v[AR_P2P].med > 0)
		snprintf(ratio, sizeof(ratio), "%.3f",
			 row->v[AR_OFFLOAD].med / row->v[AR_P2P].med);
	if (row->v[AR_OFFLOAD].ok && row->v[AR_P2P].ok &&
	    row->v[AR_OFFLOAD].med > 0 && row->v[AR_P2P].med > 0)
		snprintf(bw, sizeof(bw), "%.1f/%.1f",
			 row->bytes / row->v[AR_OFFLOAD].med,
			 row->bytes / row->v[AR_P2P].med);
	printf("%4u %6s %5u | %-26s %-26s %-26s %-28s | %7s %6.3f | %s\n",
	       row->n, size, row->radix, cell[0], cell[1], cell[2], cell[3],
	       ratio, AR_PAPER_RATIO, bw);
	fflush(stdout);
}

static void ar_csv(FILE *f, const char *provider, const struct ar_row *row)
{
	unsigned int v;

	for (v = 0; f && v < AR_NVARIANT; v++) {
		const struct ar_stat *st = &row->v[v];

		if (!st->ok)
			continue;
		fprintf(f, "%s,%u,%llu,%u,%s,%.3f,%.3f,%.3f,%.3f,%d\n", provider,
			row->n, (unsigned long long)row->bytes, row->radix,
			ar_variant_name[v], st->med, st->p10, st->p90,
			st->med > 0 ? row->bytes / st->med : 0.0, st->reps);
	}
}

/*
 * Latency against size at N = 16 (else the largest N swept), first radix:
 * one line per variant, log-log.
 */
static void ar_plot(const char *out, const struct ar_opts *o,
		    const struct ar_row *rows, unsigned int nrows,
		    const char *provider)
{
	char dat[4096], gp[4096], png[4096], cmd[12288];
	unsigned int i, v, pn = o->nodes[0], pr = o->radix[0];
	FILE *f;

	for (i = 0; i < o->nnodes; i++)
		if (o->nodes[i] == 16 || (pn != 16 && o->nodes[i] > pn))
			pn = o->nodes[i];
	if (snprintf(dat, sizeof(dat), "%s/allreduce_plot.dat", out) >=
	    (int)sizeof(dat) ||
	    snprintf(gp, sizeof(gp), "%s/allreduce.gp", out) >= (int)sizeof(gp) ||
	    snprintf(png, sizeof(png), "%s/allreduce.png", out) >=
	    (int)sizeof(png))
		return;
	f = fopen(dat, "w");
	if (!f)
		return;
	fprintf(f, "# bytes offload p2p-tree recdbl mpich (median us; nan: none)\n");
	for (i = 0; i < nrows; i++) {
		if (rows[i].n != pn || rows[i].radix != pr)
			continue;
		fprintf(f, "%llu", (unsigned long long)(rows[i].bytes ?
							rows[i].bytes : 1));
		for (v = 0; v < AR_NVARIANT; v++)
			fprintf(f, rows[i].v[v].ok ? " %.3f" : " nan",
				rows[i].v[v].med);
		fprintf(f, "\n");
	}
	fclose(f);
	f = fopen(gp, "w");
	if (!f)
		return;
	fprintf(f,
		"set terminal png size 900,600\n"
		"set output '%s'\n"
		"set title 'Allreduce (double sum), N = %u, radix %u, provider %s'\n"
		"set xlabel 'message size (bytes)'\n"
		"set ylabel 'median latency (us)'\n"
		"set logscale xy\nset key top left\nset grid\n"
		"set datafile missing 'nan'\n"
		"plot '%s' using 1:2 with linespoints title 'offload (th\\_coll)', \\\n"
		"     '' using 1:3 with linespoints title 'p2p tree (host)', \\\n"
		"     '' using 1:4 with linespoints title 'recursive doubling (host)', \\\n"
		"     '' using 1:5 with linespoints title 'MPICH MPI\\_Allreduce (oversubscribed)'\n",
		png, pn, pr, provider, dat);
	fclose(f);
	if (snprintf(cmd, sizeof(cmd), "gnuplot '%s' >/dev/null 2>&1", gp) <
	    (int)sizeof(cmd) && !system(cmd))
		fprintf(stderr, "thbench allreduce: plot %s\n", png);
}

/* The progress line: rewritten in place, on a terminal only. */
static void __attribute__((format(printf, 1, 2)))
ar_progress(const char *fmt, ...)
{
	va_list ap;

	if (!isatty(STDERR_FILENO))
		return;
	fputs("\r\033[K", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

static const char *ar_default_out(char *buf, size_t len)
{
	struct stat sb;

#ifdef THBENCH_TOP
	snprintf(buf, len, "%s/build", THBENCH_TOP);
	if (!stat(buf, &sb) && S_ISDIR(sb.st_mode) && !access(buf, W_OK)) {
		snprintf(buf, len, "%s/build/bench/allreduce", THBENCH_TOP);
		return buf;
	}
#endif
	(void)sb;
	snprintf(buf, len, "thbench-allreduce");
	return buf;
}

/* ---- the sweep -------------------------------------------------------------------- */

int thbench_allreduce_main(int argc, char **argv)
{
	struct ar_stat mpi_st[AR_MAX_LIST], rd_st;
	char outbuf[4096], binbuf[4096], path[4096];
	const char *mpi_bin = NULL, *mpi_why = "off", *provider;
	struct ar_world w = { 0 };
	struct ar_row *rows = NULL;
	unsigned int ni, si, ri, nrows = 0, total, done = 0;
	struct ar_opts o;
	FILE *csv = NULL;
	double *t = NULL;
	int ret, status = 1;

	ret = ar_parse(argc, argv, &o);
	if (ret) {
		if (ret < 0)
			ar_usage(stderr);
		return ret < 0 ? 2 : 0;
	}
	if (!o.out)
		o.out = ar_default_out(outbuf, sizeof(outbuf));
	/* no out dir (a read-only VM payload): the table alone */
	ret = ar_mkdir_p(o.out);
	if (ret) {
		fprintf(stderr, "thbench allreduce: %s: %s: no CSV, plot or MPICH\n",
			o.out, strerror(-ret));
		o.out = NULL;
		o.plot = false;
	}
	w.devs = th_get_device_list(o.provider, &w.ndev);
	if (!w.devs || w.ndev < 1) {
		fprintf(stderr, "thbench allreduce: no devices: %s\n",
			strerror(errno));
		return 1;
	}
	provider = th_device_provider(w.devs[0]);
	w.ctx = calloc(w.ndev, sizeof(*w.ctx));
	total = o.nnodes * o.nsizes * o.nradix;
	rows = calloc(total, sizeof(*rows));
	t = calloc(o.reps, sizeof(*t));
	if (!w.ctx || !rows || !t)
		goto out;
	if (o.mpi && o.out)
		mpi_bin = ar_mpi_build(o.out, binbuf, sizeof(binbuf), &mpi_why);
	else if (o.mpi)
		mpi_why = "no out dir";
	if (o.mpi && !mpi_bin)
		printf("# MPICH: not available (%s)\n", mpi_why);
	if (o.out && snprintf(path, sizeof(path), "%s/allreduce.csv", o.out) <
	    (int)sizeof(path))
		csv = fopen(path, "w");
	if (csv)
		fprintf(csv, "provider,n,bytes,radix,variant,median_us,p10_us,p90_us,MBps,reps\n");
	ar_table_head(provider, mpi_bin != NULL);

	for (ni = 0; ni < o.nnodes; ni++) {
		unsigned int n = o.nodes[ni];

		for (si = 0; si < o.nsizes; si++)
			mpi_st[si] = (struct ar_stat){ .why = mpi_bin ? "-" :
						       o.mpi ? "not available" :
						       "off" };
		if (mpi_bin) {
			ar_progress("[%u/%u] N=%-3u mpich (mpiexec -n %u)",
				done, total, n, n);
			ar_mpi_run(mpi_bin, &o, n, mpi_st);
		}
		for (si = 0; si < o.nsizes; si++) {
			uint64_t bytes = o.sizes[si];
			struct th_coll_attr a = {
				.kind = TH_COLL_ALLREDUCE, .op = TH_NIC_ALU_SUM,
				.dtype = TH_NIC_DT_FLOAT64,
				.count = (uint32_t)(bytes / 8),
			};
			struct ar_bufs b = { 0 };
			int reps = o.reps;

			/* big rounds: fewer reps, the sweep stays minutes */
			if (bytes * n > (16ULL << 20) && reps > 10)
				reps = reps / 5 > 10 ? reps / 5 : 10;
			if (ar_bufs_alloc(&b, n, a.count)) {
				ar_bufs_free(&b);
				fprintf(stderr, "thbench allreduce: out of memory\n");
				goto out;
			}
			ar_progress("[%u/%u] N=%-3u size=%-8llu recdbl",
				done, total, n, (unsigned long long)bytes);
			ar_run_nic(&w, AR_RECDBL, &a, n, &b, reps, o.warmup, t,
				   &rd_st);
			for (ri = 0; ri < o.nradix; ri++) {
				struct ar_row *row = &rows[nrows++];

				a.radix = o.radix[ri];
				row->n = n;
				row->bytes = bytes;
				row->radix = a.radix;
				ar_progress("[%u/%u] N=%-3u size=%-8llu radix=%u",
					done, total, n, (unsigned long long)bytes,
					a.radix);
				ar_run_nic(&w, AR_OFFLOAD, &a, n, &b, reps,
					   o.warmup, t, &row->v[AR_OFFLOAD]);
				ar_run_nic(&w, AR_P2P, &a, n, &b, reps, o.warmup,
					   t, &row->v[AR_P2P]);
				row->v[AR_RECDBL] = rd_st;
				row->v[AR_MPI] = mpi_st[si];
				done++;
				ar_progress("%s", "");
				ar_table_row(row);
				ar_csv(csv, provider, row);
			}
			ar_bufs_free(&b);
		}
	}
	ar_progress("%s", "");
	if (csv)
		fprintf(stderr, "thbench allreduce: csv %s\n", path);
	if (o.plot && ar_have("gnuplot"))
		ar_plot(o.out, &o, rows, nrows, provider);
	status = 0;
out:
	if (csv)
		fclose(csv);
	free(t);
	free(rows);
	for (ni = 0; w.ctx && ni < (unsigned int)w.ndev; ni++)
		if (w.ctx[ni])
			th_close_device(w.ctx[ni]);
	free(w.ctx);
	th_free_device_list(w.devs);
	return status;
}
