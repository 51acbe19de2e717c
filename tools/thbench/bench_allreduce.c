// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bench_allreduce.c - 'thbench allreduce': Allreduce latency of the
 * offload (th_coll) against the host-driven baselines on the same NIC (the
 * p2p k-nomial tree and MPICH-style recursive doubling, th_hostcoll.h) and
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

#include "bench_ranks.h"
#include <thverbs/hostcoll.h>
#include "thbench.h"
#include <thverbs/verbs.h>

#define AR_MAX_LIST	32
#define AR_MAX_RANKS	1024
#define AR_TIMEOUT_NS	BR_TIMEOUT_NS
#define AR_PAPER_RATIO	0.404
#define AR_MPI_TIMEOUT_S BR_MPI_TIMEOUT_S

/* one process driving all ranks; then ranks as threads; then MPICH */
enum ar_variant {
	AR_OFFLOAD, AR_P2P, AR_RECDBL, AR_OFFLOAD_T, AR_P2P_T, AR_MPI,
	AR_NVARIANT
};

static const char *const ar_variant_name[AR_NVARIANT] = {
	"offload", "p2p-tree", "recdbl", "offload-threads", "p2p-tree-threads",
	"mpich",
};

#define ar_stat br_stat

struct ar_opts {
	unsigned int nodes[AR_MAX_LIST], nnodes;
	uint64_t sizes[AR_MAX_LIST];
	unsigned int nsizes;
	unsigned int radix[AR_MAX_LIST], nradix;
	const char *provider;
	const char *out;
	int reps, warmup;
	bool mpi, plot;
	bool one, threads;	/* the process models swept */
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

static void ar_usage(FILE *f)
{
	fprintf(f,
		"usage: thbench allreduce [--provider P] [--nodes LIST] [--sizes LIST]\n"
		"                         [--radix LIST] [--reps R] [--warmup W]\n"
		"                         [--model one|threads|both] [--out DIR]\n"
		"                         [--quick] [--no-mpi] [--no-plot]\n\n"
		"Allreduce (double, sum) latency in two process models side by side.\n"
		"One process driving all N ranks (--model one):\n"
		"  offload   th_coll: the k-nomial tree compiled into triggered chains\n"
		"  p2p-tree  the same tree and NIC, the host waits, reduces, puts\n"
		"  recdbl    MPICH-style recursive doubling on the NIC, host driven\n"
		"            (no radix: the same figure on every radix row)\n"
		"Ranks as threads, one per rank, each waiting for its own completions\n"
		"(--model threads; more threads than cores from N = 3 on 2 cores):\n"
		"  off-thr   the offload; a sample is the slowest rank's time from a\n"
		"            common barrier to its completion\n"
		"  p2p-thr   the host-driven p2p tree, the same way\n"
		"And:\n"
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

static int ar_parse_uints(const char *arg, unsigned int *v, unsigned int *n,
			  unsigned int min, unsigned int max)
{
	uint64_t tmp[AR_MAX_LIST];
	unsigned int i;
	int ret = br_parse_list(arg, tmp, AR_MAX_LIST, n, min, max);

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
	o->one = true;
	o->threads = true;
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
			ret = br_parse_list(v, o->sizes, AR_MAX_LIST, &o->nsizes, 0,
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
		} else if (!strcmp(a, "--model")) {
			o->one = !strcmp(v, "one") || !strcmp(v, "both");
			o->threads = !strcmp(v, "threads") || !strcmp(v, "both");
			ret = o->one || o->threads ? 0 : -EINVAL;
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
			w->ctx[node] = th_device_open(w->devs[node]);
		if (!w->ctx[node])
			return -errno;
		w->vp[r] = th_vport_create(w->ctx[node], NULL);
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
		th_vport_destroy(w->vp[r]);
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
	struct th_hostcoll *p2p = NULL;
	int i, ret;

	ret = ar_world_vports(w, n);
	if (!ret && v == AR_OFFLOAD) {
		coll = th_coll_create_local(w->vp, n, a, (void *const *)b->send,
					    (void *const *)b->recv);
		ret = coll ? 0 : -errno;
	} else if (!ret) {
		p2p = th_hostcoll_create_local_algo(w->vp, n, a, v == AR_P2P ?
						    TH_HOSTCOLL_TREE : TH_HOSTCOLL_RECDBL,
						    (void *const *)b->send,
						    (void *const *)b->recv);
		ret = p2p ? 0 : -errno;
	}
	for (i = -warmup; !ret && i < reps; i++) {
		double t0 = br_now_us();

		if (coll) {
			ret = th_coll_start(coll);
			if (!ret)
				ret = th_coll_wait(coll, AR_TIMEOUT_NS);
		} else {
			ret = th_hostcoll_run(p2p, AR_TIMEOUT_NS);
		}
		if (i >= 0)
			t[i] = br_now_us() - t0;
	}
	th_coll_destroy(coll);
	th_hostcoll_destroy(p2p);
	ar_world_release(w);
	if (ret) {
		st->ok = false;
		st->why = "error";
		fprintf(stderr, "\nthbench allreduce: %s n=%u count=%u radix=%u: %s\n",
			ar_variant_name[v], n, a->count, a->radix,
			th_strerror(ret));
		return ret;
	}
	br_stat_of(st, t, reps);
	return 0;
}

/* ---- MPICH and the threads model ------------------------------------------ */

/* mpiexec -n @n over every size; fills @st[size index]. */
static void ar_mpi_run(const char *bin, const struct ar_opts *o,
		       unsigned int n, struct ar_stat *st)
{
	int reps = o->reps < 20 ? o->reps : 20, warmup;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);

	/* far oversubscribed, an operation takes tenths of a second */
	warmup = o->warmup < 5 ? o->warmup : 5;
	if (cores > 0 && n > 4 * cores) {
		reps = reps < 10 ? reps : 10;
		warmup = warmup < 2 ? warmup : 2;
	}
	br_mpi_run(bin, "latency", n, reps, warmup, o->sizes, o->nsizes, st,
		   NULL, NULL);
}

/* One variant with a thread per rank (bench_ranks.c). */
static void ar_run_threads(enum ar_variant v, const struct th_coll_attr *a,
			   unsigned int n, const char *provider, int reps,
			   int warmup, struct ar_stat *st)
{
	struct br_job j = {
		.n = n, .v = v == AR_OFFLOAD_T ? BR_OFFLOAD : BR_P2P,
		.attr = *a, .provider = provider, .reps = reps,
		.warmup = warmup,
	};

	if (br_run_threads(&j, st))
		fprintf(stderr, "\nthbench allreduce: %s n=%u count=%u radix=%u: %s\n",
			ar_variant_name[v], n, a->count, a->radix,
			th_strerror(j.err));
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
	printf("# Allreduce, double sum, on provider '%s'\n", provider);
	printf("# latency per operation in us: median [p10-p90]; recdbl ignores the radix\n"
	       "# one process driving all N ranks: offload, p2p-tree, recdbl\n"
	       "# ranks as threads (%ld cores): off-thr, p2p-thr\n"
	       "# ratios of medians: off/p2p (one process), off/p2p thr, mpich/off thr;\n"
	       "#   the source paper's offload/p2p is %.3f at N = 16\n",
	       sysconf(_SC_NPROCESSORS_ONLN), AR_PAPER_RATIO);
	if (mpi)
		printf("# mpich: MPI_Allreduce, mpiexec -n N -bind-to none: N processes OVERSUBSCRIBING %ld cores\n",
		       sysconf(_SC_NPROCESSORS_ONLN));
	printf("%4s %6s %5s | %-20s %-20s %-20s | %-20s %-20s | %-24s | %7s %7s %7s\n",
	       "N", "size", "radix", "offload", "p2p-tree", "recdbl", "off-thr",
	       "p2p-thr", "mpich", "off/p2p", "thr", "mpi/off");
}

static void ar_ratio(const struct ar_stat *a, const struct ar_stat *b,
		     char *buf, size_t len)
{
	if (a->ok && b->ok && b->med > 0)
		snprintf(buf, len, "%.3f", a->med / b->med);
	else
		snprintf(buf, len, "-");
}

static void ar_table_row(const struct ar_row *row)
{
	char size[24], cell[AR_NVARIANT][64], r1[24], r2[24], r3[24];
	unsigned int v;

	ar_size_str(row->bytes, size, sizeof(size));
	for (v = 0; v < AR_NVARIANT; v++)
		ar_cell(&row->v[v], cell[v], sizeof(cell[v]));
	ar_ratio(&row->v[AR_OFFLOAD], &row->v[AR_P2P], r1, sizeof(r1));
	ar_ratio(&row->v[AR_OFFLOAD_T], &row->v[AR_P2P_T], r2, sizeof(r2));
	ar_ratio(&row->v[AR_MPI], &row->v[AR_OFFLOAD_T], r3, sizeof(r3));
	printf("%4u %6s %5u | %-20s %-20s %-20s | %-20s %-20s | %-24s | %7s %7s %7s\n",
	       row->n, size, row->radix, cell[AR_OFFLOAD], cell[AR_P2P],
	       cell[AR_RECDBL], cell[AR_OFFLOAD_T], cell[AR_P2P_T], cell[AR_MPI],
	       r1, r2, r3);
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
	fprintf(f, "# bytes offload p2p-tree recdbl off-thr p2p-thr mpich (median us; nan: none)\n");
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
		"     '' using 1:5 with linespoints title 'offload, ranks as threads', \\\n"
		"     '' using 1:6 with linespoints title 'p2p tree, ranks as threads', \\\n"
		"     '' using 1:7 with linespoints title 'MPICH MPI\\_Allreduce (oversubscribed)'\n",
		png, pn, pr, provider, dat);
	fclose(f);
	if (snprintf(cmd, sizeof(cmd), "gnuplot '%s' >/dev/null 2>&1", gp) <
	    (int)sizeof(cmd) && !system(cmd))
		fprintf(stderr, "thbench allreduce: plot %s\n", png);
}

/* ---- the sweep -------------------------------------------------------------------- */

int thbench_allreduce_main(int argc, char **argv)
{
	struct ar_stat mpi_st[AR_MAX_LIST], rd_st;
	char outbuf[4096], binbuf[4096], path[4096];
	const char *mpi_bin = NULL, *mpi_why = "off", *provider;
	struct ar_world w = { 0 };
	struct ar_row *rows = NULL;
	unsigned int ni, si, ri, v, nrows = 0, total, done = 0;
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
		o.out = br_default_out("allreduce", outbuf, sizeof(outbuf));
	/* no out dir (a read-only VM payload): the table alone */
	ret = br_mkdir_p(o.out);
	if (ret) {
		fprintf(stderr, "thbench allreduce: %s: %s: no CSV, plot or MPICH\n",
			o.out, strerror(-ret));
		o.out = NULL;
		o.plot = false;
	}
	w.devs = th_device_list_get(o.provider, &w.ndev);
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
		mpi_bin = br_mpi_build(o.out, binbuf, sizeof(binbuf), &mpi_why);
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
			br_progress("[%u/%u] N=%-3u mpich (mpiexec -n %u)",
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
			rd_st = (struct ar_stat){ .why = "-" };
			br_progress("[%u/%u] N=%-3u size=%-8llu recdbl",
				done, total, n, (unsigned long long)bytes);
			if (o.one)
				ar_run_nic(&w, AR_RECDBL, &a, n, &b, reps,
					   o.warmup, t, &rd_st);
			for (ri = 0; ri < o.nradix; ri++) {
				struct ar_row *row = &rows[nrows++];

				a.radix = o.radix[ri];
				row->n = n;
				row->bytes = bytes;
				row->radix = a.radix;
				br_progress("[%u/%u] N=%-3u size=%-8llu radix=%u",
					done, total, n, (unsigned long long)bytes,
					a.radix);
				for (v = 0; v < AR_NVARIANT; v++)
					row->v[v] = (struct ar_stat){ .why = "-" };
				if (o.one) {
					ar_run_nic(&w, AR_OFFLOAD, &a, n, &b, reps,
						   o.warmup, t, &row->v[AR_OFFLOAD]);
					ar_run_nic(&w, AR_P2P, &a, n, &b, reps,
						   o.warmup, t, &row->v[AR_P2P]);
				}
				if (o.threads) {
					br_progress("[%u/%u] N=%-3u size=%-8llu radix=%u threads",
						done, total, n,
						(unsigned long long)bytes, a.radix);
					ar_run_threads(AR_OFFLOAD_T, &a, n, o.provider,
						       reps, o.warmup,
						       &row->v[AR_OFFLOAD_T]);
					ar_run_threads(AR_P2P_T, &a, n, o.provider,
						       reps, o.warmup,
						       &row->v[AR_P2P_T]);
				}
				row->v[AR_RECDBL] = rd_st;
				row->v[AR_MPI] = mpi_st[si];
				done++;
				br_progress("%s", "");
				ar_table_row(row);
				ar_csv(csv, provider, row);
			}
			ar_bufs_free(&b);
		}
	}
	br_progress("%s", "");
	if (csv)
		fprintf(stderr, "thbench allreduce: csv %s\n", path);
	if (o.plot && br_have("gnuplot"))
		ar_plot(o.out, &o, rows, nrows, provider);
	status = 0;
out:
	if (csv)
		fclose(csv);
	free(t);
	free(rows);
	for (ni = 0; w.ctx && ni < (unsigned int)w.ndev; ni++)
		if (w.ctx[ni])
			th_device_close(w.ctx[ni]);
	free(w.ctx);
	th_device_list_free(w.devs);
	return status;
}
