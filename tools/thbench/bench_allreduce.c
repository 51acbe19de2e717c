// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bench_allreduce.c - 'thbench allreduce': Allreduce latency of the offload
 * (th_coll) against the host-driven baselines on the same NIC (the p2p
 * k-nomial tree and MPICH-style recursive doubling, thverbs/hostcoll.h) and
 * against MPICH's own MPI_Allreduce, side by side
 * (Documentation/collectives.rst, "Reading the Allreduce benchmark").  One
 * process drives every rank; ranks beyond the provider's nodes share nodes
 * through extra vports.  Or a thread per rank; or a process per rank over
 * the ofi provider, which is a thrun job of 'thbench allreduce-mp
 * --machine' whose rank 0 lines are read here.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
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
#include <thverbs/coll.h>

#define AR_MAX_LIST	32
#define AR_MAX_RANKS	1024
#define AR_TIMEOUT_NS	BR_TIMEOUT_NS
#define AR_PAPER_RATIO	0.404
#define AR_MPI_TIMEOUT_S BR_MPI_TIMEOUT_S
/* a thrun job over ofi gets as long as mpiexec does */
#define AR_PROCS_TIMEOUT_S BR_MPI_TIMEOUT_S
#define AR_MAX_ENV	8
/*
 * the ofi provider's fabric when TH_OFI_PROVIDER is unset and, as here
 * (thrun -n N on this host), every rank is on one host (providers/ofi)
 */
#define AR_OFI_DEFAULT_FABRIC "shm"

/*
 * One process driving all ranks; then ranks as threads; then a process
 * per rank over ofi; then MPICH.
 */
enum ar_variant {
	AR_OFFLOAD, AR_P2P, AR_RECDBL, AR_OFFLOAD_T, AR_P2P_T, AR_OFFLOAD_O,
	AR_P2P_O, AR_MPI, AR_NVARIANT
};

static const char *const ar_variant_name[AR_NVARIANT] = {
	"offload", "p2p-tree", "recdbl", "offload-threads", "p2p-tree-threads",
	"offload-ofi", "p2p-tree-ofi", "mpich",
};

/* the plot's legend, in gnuplot's enhanced text ('_' escaped) */
static const char *const ar_variant_title[AR_NVARIANT] = {
	"offload (th\\_coll)", "p2p tree (host)", "recursive doubling (host)",
	"offload, ranks as threads", "p2p tree, ranks as threads",
	"offload, processes over ofi", "p2p tree, processes over ofi",
	"MPICH MPI\\_Allreduce (oversubscribed)",
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
	bool one, threads, procs;	/* the process models swept */
	/* --mpi-env NAME=VALUE: for mpiexec alone; NULL-terminated */
	const char *mpi_env[AR_MAX_ENV + 1];
	unsigned int nmpi_env;
};

/*
 * The process model over ofi: this thbench, the thrun beside it, and why
 * the model is skipped (NULL: it runs).
 */
struct ar_procs {
	char exe[4096], thrun[4096];
	const char *why;
};

/* What each model's messages travel over, for the header and the CSV. */
struct ar_transport {
	char ofi[128];		/* the libfabric provider */
	char mpi[512];		/* MPICH's device and the variables set */
	char mpi_note[256];	/* where those came from */
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
		"                         [--model M[,M...]] [--mpi-env NAME=VALUE]\n"
		"                         [--out DIR] [--quick] [--no-mpi] [--no-plot]\n\n"
		"Allreduce (double, sum) latency in up to three process models side by\n"
		"side: --model one, threads, procs, or a comma-separated list of them;\n"
		"both = one,threads (the default); all = one,threads,procs.\n"
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
		"A process per rank over libfabric (--model procs): for each N, a job\n"
		"  thrun -n N --provider ofi --timeout %d thbench allreduce-mp --machine\n"
		"with the thrun beside this thbench (skipped without it), over\n"
		"TH_OFI_PROVIDER (default %s: every rank is on this host); a job\n"
		"that fails or times out marks its cells so, and the sweep goes on:\n"
		"  off-ofi   the offload; a sample is the slowest rank's time from a\n"
		"            common barrier to its completion (CSV: offload-ofi)\n"
		"  p2p-ofi   the host-driven p2p tree, the same way (p2p-tree-ofi)\n"
		"And:\n"
		"  mpich     MPI_Allreduce of the system MPICH, mpiexec -n N; the\n"
		"            ranks are processes oversubscribing this machine's cores\n"
		"            (built with mpicc into DIR at run time; skipped if absent)\n"
		"            --mpi-env NAME=VALUE (repeatable) sets a variable for\n"
		"            mpiexec alone: MPICH on UCX uses shared memory between\n"
		"            one host's processes; --mpi-env UCX_TLS=tcp,self puts it\n"
		"            on TCP, as ofi's default is.  The header says which.\n"
		"Defaults: --nodes 2,4,8,16,32,64 --sizes 8,64,512,4K,32K,256K,1M\n"
		"  --radix 2,4,8 --reps 100 --warmup 10 (fewer reps when N x size\n"
		"  exceeds 16 MiB, in every model; MPICH at most 20, 10 beyond 4 ranks\n"
		"  a core, and %d s an N); --quick: --nodes 4,16\n"
		"  --sizes 8,64K --radix 2,4 --reps 30.  Sizes take K and M suffixes.\n"
		"Per operation: median and p10/p90 over the timed reps (microseconds),\n"
		"bandwidth = size / median.  The table shows the models swept.\n"
		"Output: a table on stdout, DIR/allreduce.csv (with a transport column)\n"
		"and DIR/allreduce.png (gnuplot, if present); DIR defaults to\n"
		"build/bench/allreduce under the source tree, or ./thbench-allreduce.\n"
		"The source paper's offload/p2p ratio at N = 16 is %.3f.\n",
		AR_PROCS_TIMEOUT_S, AR_OFI_DEFAULT_FABRIC, AR_MPI_TIMEOUT_S,
		AR_PAPER_RATIO);
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

/* "one,procs": the models to sweep; both and all name groups of them. */
static int ar_parse_model(const char *arg, struct ar_opts *o)
{
	char *copy = strdup(arg), *save = NULL, *tok;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	o->one = false;
	o->threads = false;
	o->procs = false;
	for (tok = strtok_r(copy, ",", &save); tok && !ret;
	     tok = strtok_r(NULL, ",", &save)) {
		bool all = !strcmp(tok, "all");
		bool both = all || !strcmp(tok, "both");

		if (both || !strcmp(tok, "one"))
			o->one = true;
		if (both || !strcmp(tok, "threads"))
			o->threads = true;
		if (all || !strcmp(tok, "procs"))
			o->procs = true;
		if (!both && strcmp(tok, "one") && strcmp(tok, "threads") &&
		    strcmp(tok, "procs"))
			ret = -EINVAL;
	}
	free(copy);
	return ret || !(o->one || o->threads || o->procs) ? -EINVAL : 0;
}

/*
 * NAME=VALUE for --mpi-env: a shell-safe name, and no quote in the value,
 * which br_mpi_run() passes in single quotes.
 */
static bool ar_env_ok(const char *s)
{
	const char *eq = strchr(s, '=');
	const char *c;

	if (!eq || eq == s || isdigit((unsigned char)*s) || strchr(s, '\''))
		return false;
	for (c = s; c < eq; c++)
		if (!isalnum((unsigned char)*c) && *c != '_')
			return false;
	return true;
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
			ret = ar_parse_model(v, o);
			i++;
		} else if (!strcmp(a, "--mpi-env")) {
			if (o->nmpi_env == AR_MAX_ENV || !ar_env_ok(v))
				ret = -EINVAL;
			else
				o->mpi_env[o->nmpi_env++] = v;
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

/* Big rounds get fewer reps, in every model: the sweep stays minutes. */
static int ar_reps(const struct ar_opts *o, unsigned int n, uint64_t bytes)
{
	int reps = o->reps;

	if (bytes * n > (16ULL << 20) && reps > 10)
		reps = reps / 5 > 10 ? reps / 5 : 10;
	return reps;
}

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
		   NULL, o->mpi_env);
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

/* ---- a process per rank over ofi ------------------------------------------- */

/* thrun beside this thbench, as br_mpi_source() finds the tree. */
static void ar_procs_find(struct ar_procs *p)
{
	ssize_t n = readlink("/proc/self/exe", p->exe, sizeof(p->exe) - 1);
	char *slash;

	p->why = "no /proc/self/exe";
	if (n <= 0)
		return;
	p->exe[n] = 0;
	slash = strrchr(p->exe, '/');
	if (!slash || snprintf(p->thrun, sizeof(p->thrun), "%.*s/thrun",
			       (int)(slash - p->exe), p->exe) >=
	    (int)sizeof(p->thrun))
		return;
	p->why = access(p->thrun, X_OK) ? "no thrun" : NULL;
}

/* The last @max lines of @f, indented, to stderr: why a job failed. */
static void ar_tail(FILE *f, int max)
{
	char line[8][512];
	int n = 0, i;

	if (max > 8)
		max = 8;
	rewind(f);
	while (fgets(line[n % max], sizeof(line[0]), f))
		n++;
	for (i = n > max ? n - max : 0; i < n; i++)
		fprintf(stderr, "  %s%s", line[i % max],
			strchr(line[i % max], '\n') ? "" : "\n");
}

/* Does @f (a job's stderr) hold @s? */
static bool ar_grep(FILE *f, const char *s)
{
	char line[512];

	rewind(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, s))
			return true;
	return false;
}

/* What ar_procs_run() reads a job's lines into. */
struct ar_procs_out {
	const struct ar_opts *o;
	const bool *which;	/* the sizes of this job */
	struct ar_stat *off, *p2p;
	unsigned int want, got;	/* cells */
};

/*
 * One "ar-mp N BYTES RADIX VARIANT MED P10 P90 REPS" line into its cell;
 * true once every cell of the job is in.
 */
static bool ar_procs_line(const char *line, void *arg)
{
	struct ar_procs_out *m = arg;
	const struct ar_opts *o = m->o;
	unsigned long long bytes;
	unsigned int n, radix, si, ri;
	double med, p10, p90;
	char var[16];
	int reps;

	if (sscanf(line, "ar-mp %u %llu %u %15s %lf %lf %lf %d", &n, &bytes,
		   &radix, var, &med, &p10, &p90, &reps) != 8)
		return m->got >= m->want;
	for (si = 0; si < o->nsizes; si++) {
		if (!m->which[si] || o->sizes[si] != bytes)
			continue;
		for (ri = 0; ri < o->nradix; ri++) {
			struct ar_stat *st = !strcmp(var, "offload") ? m->off :
					     !strcmp(var, "p2p-tree") ? m->p2p :
					     NULL;

			if (!st || o->radix[ri] != radix)
				continue;
			st += si * o->nradix + ri;
			m->got += !st->ok;
			*st = (struct ar_stat){ .ok = true, .med = med,
				.p10 = p10, .p90 = p90, .reps = reps };
		}
	}
	return m->got >= m->want;
}

/*
 * Wait for thrun @pid, which was told to give up after AR_PROCS_TIMEOUT_S;
 * should it not, end it at @deadline_ms (SIGTERM: thrun ends its ranks),
 * then for good.  Its wait status; *@killed when it had to be ended.
 */
static int ar_procs_reap(pid_t pid, int64_t deadline_ms, bool *killed)
{
	int status = 0, sig = SIGTERM;

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid || (r < 0 && errno != EINTR))
			return status;
		if (br_now_ms() >= deadline_ms) {
			kill(pid, sig);
			*killed = true;
			/* SIGKILL 10 s on: thrun's grace to end its ranks */
			sig = SIGKILL;
			deadline_ms += 10000;
		}
		nanosleep(&(struct timespec){ .tv_nsec = 100000000 }, NULL);
	}
}

/*
 * One thrun job of @n processes over ofi: 'thbench allreduce-mp --machine'
 * on the sizes marked in @which, @reps rounds each; its rank 0's lines fill
 * @off and @p2p[size index * nradix + radix index].  A job that fails or
 * times out leaves its unfilled cells saying so, and its last words on
 * stderr.
 */
static void ar_procs_run(const struct ar_procs *p, const struct ar_opts *o,
			 unsigned int n, const bool *which, int reps,
			 struct ar_stat *off, struct ar_stat *p2p)
{
	char nbuf[16], tbuf[16], rbuf[16], wbuf[16], sizes[AR_MAX_LIST * 24],
	     radix[AR_MAX_LIST * 12];
	const char *argv[] = {
		p->thrun, "-n", nbuf, "--provider", "ofi", "--timeout", tbuf,
		"--", p->exe, "allreduce-mp", "--machine", "--sizes", sizes,
		"--radix", radix, "--reps", rbuf, "--warmup", wbuf, NULL
	};
	struct ar_procs_out m = {
		.o = o, .which = which, .off = off, .p2p = p2p,
	};
	unsigned int si, ri, len = 0, i;
	int64_t deadline;
	bool killed = false;
	const char *why;
	int fds[2], status;
	FILE *err;
	pid_t pid;

	sizes[0] = 0;
	radix[0] = 0;
	for (si = 0; si < o->nsizes; si++) {
		for (ri = 0; which[si] && ri < o->nradix; ri++) {
			off[si * o->nradix + ri].why = "failed";
			p2p[si * o->nradix + ri].why = "failed";
		}
		m.want += which[si] ? 2 * o->nradix : 0;
		if (which[si])
			len += snprintf(sizes + len, sizeof(sizes) - len, "%s%llu",
					len ? "," : "",
					(unsigned long long)o->sizes[si]);
	}
	for (ri = 0, len = 0; ri < o->nradix; ri++)
		len += snprintf(radix + len, sizeof(radix) - len, "%s%u",
				ri ? "," : "", o->radix[ri]);
	snprintf(nbuf, sizeof(nbuf), "%u", n);
	snprintf(tbuf, sizeof(tbuf), "%d", AR_PROCS_TIMEOUT_S);
	snprintf(rbuf, sizeof(rbuf), "%d", reps);
	snprintf(wbuf, sizeof(wbuf), "%d", o->warmup);
	/* the ranks' stderr is kept for a failure's explanation */
	err = tmpfile();
	if (!err || pipe(fds)) {
		if (err)
			fclose(err);
		return;
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (!pid) {
		int null = open("/dev/null", O_RDONLY);

		dup2(null, STDIN_FILENO);
		dup2(fds[1], STDOUT_FILENO);
		dup2(fileno(err), STDERR_FILENO);
		close(fds[0]);
		close(fds[1]);
		execv(p->thrun, (char *const *)argv);
		_exit(127);
	}
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		fclose(err);
		return;
	}
	/*
	 * Rank 0's lines as they come, so a job cut short keeps what it did;
	 * thrun's own timeout, its grace and a margin, or BR_MPI_GRACE_MS
	 * once every result is in.
	 */
	deadline = br_now_ms() + (AR_PROCS_TIMEOUT_S + 30) * 1000LL;
	if (br_read_lines(fds[0], deadline, BR_MPI_GRACE_MS, ar_procs_line,
			  &m))
		deadline = br_now_ms();
	close(fds[0]);
	status = ar_procs_reap(pid, deadline, &killed);
	if (killed || ar_grep(err, "thrun: timed out"))
		why = "timeout";
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		why = "no thrun";
	else
		why = "failed";
	for (i = 0; i < o->nsizes * o->nradix; i++) {
		if (!which[i / o->nradix])
			continue;
		if (!off[i].ok)
			off[i].why = why;
		if (!p2p[i].ok)
			p2p[i].why = why;
	}
	if (killed || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "\nthbench allreduce: offload-ofi, p2p-tree-ofi n=%u: thrun %s",
			n, killed ? "did not end by itself" : "job failed");
		if (WIFEXITED(status))
			fprintf(stderr, " (exit %d)", WEXITSTATUS(status));
		else if (WIFSIGNALED(status))
			fprintf(stderr, " (signal %d)", WTERMSIG(status));
		fprintf(stderr, ":\n");
		ar_tail(err, 3);
	}
	fclose(err);
}

/*
 * Every size of one N, in as few jobs as the reps allow: ar_reps() gives
 * big rounds fewer, so sizes that differ in reps go in separate jobs.
 */
static void ar_procs_sweep(const struct ar_procs *p, const struct ar_opts *o,
			   unsigned int n, struct ar_stat *off,
			   struct ar_stat *p2p)
{
	bool done[AR_MAX_LIST] = { false }, which[AR_MAX_LIST];
	unsigned int si, sj;

	for (si = 0; si < o->nsizes; si++) {
		int reps = ar_reps(o, n, o->sizes[si]);

		if (done[si])
			continue;
		for (sj = 0; sj < o->nsizes; sj++) {
			which[sj] = !done[sj] && ar_reps(o, n, o->sizes[sj]) == reps;
			done[sj] = done[sj] || which[sj];
		}
		ar_procs_run(p, o, n, which, reps, off, p2p);
	}
}

/*
 * What the ofi jobs and MPICH run over: TH_OFI_PROVIDER (the ranks inherit
 * it), and MPICH's device (mpichversion) with the variables that steer it.
 */
static void ar_transport_of(const struct ar_opts *o, struct ar_transport *tr)
{
	const char *fab = getenv("TH_OFI_PROVIDER"), *tls = getenv("UCX_TLS");
	char line[512], dev[128] = "device unknown";
	bool tls_set = false;
	unsigned int i;
	size_t len;
	FILE *f;

	snprintf(tr->ofi, sizeof(tr->ofi), "%s", fab && *fab ? fab :
		 AR_OFI_DEFAULT_FABRIC);
	f = br_have("mpichversion") ? popen("mpichversion 2>/dev/null", "r") : NULL;
	while (f && fgets(line, sizeof(line), f)) {
		char *v = line + strlen("MPICH Device:");

		if (strncmp(line, "MPICH Device:", strlen("MPICH Device:")))
			continue;
		v += strspn(v, " \t");
		v[strcspn(v, " \t\n")] = 0;
		if (*v)
			snprintf(dev, sizeof(dev), "%s", v);
	}
	if (f)
		pclose(f);
	len = snprintf(tr->mpi, sizeof(tr->mpi), "%s", dev);
	for (i = 0; i < o->nmpi_env && len < sizeof(tr->mpi); i++) {
		len += snprintf(tr->mpi + len, sizeof(tr->mpi) - len, " %s",
				o->mpi_env[i]);
		tls_set = tls_set || !strncmp(o->mpi_env[i], "UCX_TLS=", 8);
	}
	if (o->nmpi_env)
		snprintf(tr->mpi_note, sizeof(tr->mpi_note), "--mpi-env");
	if (!tls_set && tls && len < sizeof(tr->mpi)) {
		snprintf(tr->mpi + len, sizeof(tr->mpi) - len, " UCX_TLS=%s", tls);
		snprintf(tr->mpi_note, sizeof(tr->mpi_note), "%s",
			 o->nmpi_env ? "--mpi-env; UCX_TLS from the environment" :
			 "from the environment");
	} else if (!tls_set && strstr(dev, "ucx")) {
		/* UCX's own pick on one host: its shared-memory transports */
		snprintf(tr->mpi_note, sizeof(tr->mpi_note),
			 "UCX_TLS unset: UCX's choice, shared memory on one host; --mpi-env UCX_TLS=tcp,self for TCP");
	}
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

/* The ratios of medians, each shown when both its models are swept. */
enum ar_ratio { AR_R_ONE, AR_R_THR, AR_R_OFI, AR_R_MPI_THR, AR_R_MPI_OFI,
		AR_NRATIO };

static bool ar_ratio_shown(const struct ar_opts *o, enum ar_ratio r)
{
	switch (r) {
	case AR_R_ONE:
		return o->one;
	case AR_R_THR:
		return o->threads;
	case AR_R_OFI:
		return o->procs;
	case AR_R_MPI_THR:
		return o->mpi && o->threads;
	case AR_R_MPI_OFI:
		return o->mpi && o->procs;
	default:
		return false;
	}
}

/*
 * One line of the table, the header's or a row's: the column groups of the
 * models swept, MPICH's unless --no-mpi, and the ratios between them.
 */
static void ar_line(const struct ar_opts *o, const char *n, const char *size,
		    const char *radix, const char *const *cell,
		    const char *const *ratio)
{
	unsigned int r;

	printf("%4s %6s %5s", n, size, radix);
	if (o->one)
		printf(" | %-20s %-20s %-20s", cell[AR_OFFLOAD], cell[AR_P2P],
		       cell[AR_RECDBL]);
	if (o->threads)
		printf(" | %-20s %-20s", cell[AR_OFFLOAD_T], cell[AR_P2P_T]);
	if (o->procs)
		printf(" | %-20s %-20s", cell[AR_OFFLOAD_O], cell[AR_P2P_O]);
	if (o->mpi)
		printf(" | %-24s", cell[AR_MPI]);
	printf(" |");
	for (r = 0; r < AR_NRATIO; r++)
		if (ar_ratio_shown(o, r))
			printf(" %7s", ratio[r]);
	printf("\n");
}

static void ar_table_head(const struct ar_opts *o, const char *provider,
			  const struct ar_procs *procs,
			  const struct ar_transport *tr, bool mpi)
{
	static const char *const head[AR_NVARIANT] = {
		"offload", "p2p-tree", "recdbl", "off-thr", "p2p-thr",
		"off-ofi", "p2p-ofi", "mpich",
	};
	static const char *const rhead[AR_NRATIO] = {
		"off/p2p", "thr", "ofi", "mpi/off", "mpi/ofi",
	};
	static const char *const rdesc[AR_NRATIO] = {
		"off/p2p (one process)", "off/p2p thr", "off/p2p ofi",
		"mpich/off thr", "mpich/off ofi",
	};
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	const char *sep = "";
	unsigned int r;

	if (o->one || o->threads)
		printf("# Allreduce, double sum, on provider '%s'\n", provider);
	else
		printf("# Allreduce, double sum\n");
	printf("# latency per operation in us: median [p10-p90]%s\n",
	       o->one ? "; recdbl ignores the radix" : "");
	if (o->one)
		printf("# one process driving all N ranks: offload, p2p-tree, recdbl\n");
	if (o->threads)
		printf("# ranks as threads (%ld cores): off-thr, p2p-thr\n", cores);
	if (o->procs && procs->why)
		printf("# a process per rank over ofi: off-ofi, p2p-ofi: skipped: %s%s\n",
		       procs->why, strcmp(procs->why, "no thrun") ? "" :
		       " beside this thbench");
	else if (o->procs)
		printf("# a process per rank (thrun -n N --provider ofi; %ld cores): off-ofi, p2p-ofi\n"
		       "#   over libfabric %s (TH_OFI_PROVIDER%s)\n", cores,
		       tr->ofi, getenv("TH_OFI_PROVIDER") &&
		       *getenv("TH_OFI_PROVIDER") ? "" : " unset: the default");
	printf("# ratios of medians: ");
	for (r = 0; r < AR_NRATIO; r++) {
		if (!ar_ratio_shown(o, r))
			continue;
		printf("%s%s", sep, rdesc[r]);
		sep = ", ";
	}
	printf(";\n#   the source paper's offload/p2p is %.3f at N = 16\n",
	       AR_PAPER_RATIO);
	if (mpi)
		printf("# mpich: MPI_Allreduce, mpiexec -n N -bind-to none: N processes OVERSUBSCRIBING %ld cores\n"
		       "#   over MPICH %s%s%s%s\n", cores, tr->mpi,
		       *tr->mpi_note ? " (" : "", tr->mpi_note,
		       *tr->mpi_note ? ")" : "");
	ar_line(o, "N", "size", "radix", head, rhead);
}

static void ar_ratio(const struct ar_stat *a, const struct ar_stat *b,
		     char *buf, size_t len)
{
	if (a->ok && b->ok && b->med > 0)
		snprintf(buf, len, "%.3f", a->med / b->med);
	else
		snprintf(buf, len, "-");
}

static void ar_table_row(const struct ar_opts *o, const struct ar_row *row)
{
	static const enum ar_variant num[AR_NRATIO] = {
		AR_OFFLOAD, AR_OFFLOAD_T, AR_OFFLOAD_O, AR_MPI, AR_MPI,
	};
	static const enum ar_variant den[AR_NRATIO] = {
		AR_P2P, AR_P2P_T, AR_P2P_O, AR_OFFLOAD_T, AR_OFFLOAD_O,
	};
	char n[16], size[24], radix[16], cell[AR_NVARIANT][64], ratio[AR_NRATIO][24];
	const char *cellp[AR_NVARIANT], *ratiop[AR_NRATIO];
	unsigned int v, r;

	snprintf(n, sizeof(n), "%u", row->n);
	ar_size_str(row->bytes, size, sizeof(size));
	snprintf(radix, sizeof(radix), "%u", row->radix);
	for (v = 0; v < AR_NVARIANT; v++) {
		ar_cell(&row->v[v], cell[v], sizeof(cell[v]));
		cellp[v] = cell[v];
	}
	for (r = 0; r < AR_NRATIO; r++) {
		ar_ratio(&row->v[num[r]], &row->v[den[r]], ratio[r],
			 sizeof(ratio[r]));
		ratiop[r] = ratio[r];
	}
	ar_line(o, n, size, radix, cellp, ratiop);
	fflush(stdout);
}

/* A CSV field, quoted when it holds a comma or a quote (RFC 4180). */
static void ar_csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/*
 * The rows measured, one per variant; the provider column names the th_nic
 * provider (ofi for a process per rank), the transport column what the
 * messages crossed: that provider, the libfabric provider, or MPICH's
 * device and the variables given to it.
 */
static void ar_csv(FILE *f, const char *provider, const struct ar_transport *tr,
		   const struct ar_row *row)
{
	unsigned int v;

	for (v = 0; f && v < AR_NVARIANT; v++) {
		const struct ar_stat *st = &row->v[v];
		bool ofi = v == AR_OFFLOAD_O || v == AR_P2P_O;

		if (!st->ok)
			continue;
		fprintf(f, "%s,%u,%llu,%u,%s,%.3f,%.3f,%.3f,%.3f,%d,",
			ofi ? "ofi" : provider, row->n,
			(unsigned long long)row->bytes, row->radix,
			ar_variant_name[v], st->med, st->p10, st->p90,
			st->med > 0 ? row->bytes / st->med : 0.0, st->reps);
		ar_csv_field(f, ofi ? tr->ofi : v == AR_MPI ? tr->mpi : provider);
		fputc('\n', f);
	}
}

/* @s for a single-quoted gnuplot title: '_' escaped (enhanced text), no quote. */
static void ar_gp_str(const char *s, char *buf, size_t len)
{
	size_t i = 0;

	for (; *s && i + 3 < len; s++) {
		if (*s == '\'')
			continue;
		if (*s == '_')
			buf[i++] = '\\';
		buf[i++] = *s;
	}
	buf[i] = 0;
}

/*
 * Latency against size at N = 16 (else the largest N swept), first radix:
 * one line per variant measured there, log-log.
 */
static void ar_plot(const char *out, const struct ar_opts *o,
		    const struct ar_row *rows, unsigned int nrows,
		    const char *provider, const struct ar_transport *tr)
{
	char dat[4096], gp[4096], png[4096], cmd[12288], what[256], fab[160];
	unsigned int i, v, pn = o->nodes[0], pr = o->radix[0], nplot = 0;
	bool any[AR_NVARIANT] = { false };
	FILE *f;

	for (i = 0; i < o->nnodes; i++)
		if (o->nodes[i] == 16 || (pn != 16 && o->nodes[i] > pn))
			pn = o->nodes[i];
	for (i = 0; i < nrows; i++)
		for (v = 0; v < AR_NVARIANT; v++)
			if (rows[i].n == pn && rows[i].radix == pr &&
			    rows[i].v[v].ok)
				any[v] = true;
	for (v = 0; v < AR_NVARIANT; v++)
		nplot += any[v];
	/* gnuplot refuses a plot with no point at all */
	if (!nplot)
		return;
	if (snprintf(dat, sizeof(dat), "%s/allreduce_plot.dat", out) >=
	    (int)sizeof(dat) ||
	    snprintf(gp, sizeof(gp), "%s/allreduce.gp", out) >= (int)sizeof(gp) ||
	    snprintf(png, sizeof(png), "%s/allreduce.png", out) >=
	    (int)sizeof(png))
		return;
	f = fopen(dat, "w");
	if (!f)
		return;
	fprintf(f, "# bytes");
	for (v = 0; v < AR_NVARIANT; v++)
		fprintf(f, " %s", ar_variant_name[v]);
	fprintf(f, " (median us; nan: none)\n");
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
	/* the title names every transport plotted */
	ar_gp_str(tr->ofi, fab, sizeof(fab));
	if (o->one || o->threads)
		snprintf(what, sizeof(what), "provider %s%s%s", provider,
			 o->procs ? "; processes over ofi, " : "",
			 o->procs ? fab : "");
	else
		snprintf(what, sizeof(what), "processes over ofi, %s", fab);
	fprintf(f,
		"set terminal png size 900,600\n"
		"set output '%s'\n"
		"set title 'Allreduce (double sum), N = %u, radix %u, %s'\n"
		"set xlabel 'message size (bytes)'\n"
		"set ylabel 'median latency (us)'\n"
		"set logscale xy\nset key top left\nset grid\n"
		"set datafile missing 'nan'\n"
		"plot", png, pn, pr, what);
	/* the first names the data file, the others reuse it ('') */
	for (v = 0, i = 0; v < AR_NVARIANT; v++) {
		if (!any[v])
			continue;
		fprintf(f, "%s '%s' using 1:%u with linespoints title '%s'",
			i ? ", \\\n    " : "", i ? "" : dat, v + 2,
			ar_variant_title[v]);
		i++;
	}
	fprintf(f, "\n");
	fclose(f);
	if (snprintf(cmd, sizeof(cmd), "gnuplot '%s' >/dev/null 2>&1", gp) <
	    (int)sizeof(cmd) && !system(cmd))
		fprintf(stderr, "thbench allreduce: plot %s\n", png);
}

/* ---- the sweep -------------------------------------------------------------------- */

int thbench_allreduce_main(int argc, char **argv)
{
	struct ar_stat mpi_st[AR_MAX_LIST], rd_st, *ofi_st = NULL;
	char outbuf[4096], binbuf[4096], path[4096];
	const char *mpi_bin = NULL, *mpi_why = "off", *provider = "ofi";
	struct ar_procs procs = { .why = "off" };
	struct ar_transport tr = { 0 };
	struct ar_world w = { 0 };
	struct ar_row *rows = NULL;
	unsigned int ni, si, ri, v, nrows = 0, total, done = 0, ncell;
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
	/* a process per rank needs no device here: its ranks open their own */
	if (o.one || o.threads) {
		w.devs = th_device_list_get(o.provider, &w.ndev);
		if (!w.devs || w.ndev < 1) {
			fprintf(stderr, "thbench allreduce: no devices: %s\n",
				strerror(errno));
			return 1;
		}
		provider = th_device_provider(w.devs[0]);
		w.ctx = calloc(w.ndev, sizeof(*w.ctx));
		if (!w.ctx)
			goto out;
	}
	if (o.procs)
		ar_procs_find(&procs);
	total = o.nnodes * o.nsizes * o.nradix;
	ncell = o.nsizes * o.nradix;
	rows = calloc(total, sizeof(*rows));
	t = calloc(o.reps, sizeof(*t));
	ofi_st = calloc(2 * ncell, sizeof(*ofi_st));
	if (!rows || !t || !ofi_st)
		goto out;
	if (o.mpi && o.out)
		mpi_bin = br_mpi_build(o.out, binbuf, sizeof(binbuf), &mpi_why);
	else if (o.mpi)
		mpi_why = "no out dir";
	if (o.mpi && !mpi_bin)
		printf("# MPICH: not available (%s)\n", mpi_why);
	ar_transport_of(&o, &tr);
	if (o.out && snprintf(path, sizeof(path), "%s/allreduce.csv", o.out) <
	    (int)sizeof(path))
		csv = fopen(path, "w");
	if (csv)
		fprintf(csv, "provider,n,bytes,radix,variant,median_us,p10_us,p90_us,MBps,reps,transport\n");
	ar_table_head(&o, provider, &procs, &tr, mpi_bin != NULL);

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
		/* [0, ncell): offload-ofi; [ncell, 2 ncell): p2p-tree-ofi */
		for (si = 0; si < 2 * ncell; si++)
			ofi_st[si] = (struct ar_stat){ .why = procs.why ?
						       procs.why : "-" };
		if (o.procs && !procs.why) {
			br_progress("[%u/%u] N=%-3u offload-ofi, p2p-tree-ofi (thrun -n %u --provider ofi)",
				done, total, n, n);
			ar_procs_sweep(&procs, &o, n, ofi_st, ofi_st + ncell);
		}
		for (si = 0; si < o.nsizes; si++) {
			uint64_t bytes = o.sizes[si];
			struct th_coll_attr a = {
				.kind = TH_COLL_ALLREDUCE, .op = TH_NIC_ALU_SUM,
				.dtype = TH_NIC_DT_FLOAT64,
				.count = (uint32_t)(bytes / 8),
			};
			struct ar_bufs b = { 0 };
			int reps = ar_reps(&o, n, bytes);

			if (o.one && ar_bufs_alloc(&b, n, a.count)) {
				ar_bufs_free(&b);
				fprintf(stderr, "thbench allreduce: out of memory\n");
				goto out;
			}
			rd_st = (struct ar_stat){ .why = "-" };
			if (o.one) {
				br_progress("[%u/%u] N=%-3u size=%-8llu recdbl",
					done, total, n, (unsigned long long)bytes);
				ar_run_nic(&w, AR_RECDBL, &a, n, &b, reps,
					   o.warmup, t, &rd_st);
			}
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
				if (o.procs) {
					row->v[AR_OFFLOAD_O] =
						ofi_st[si * o.nradix + ri];
					row->v[AR_P2P_O] =
						ofi_st[ncell + si * o.nradix + ri];
				}
				row->v[AR_MPI] = mpi_st[si];
				done++;
				br_progress("%s", "");
				ar_table_row(&o, row);
				ar_csv(csv, provider, &tr, row);
			}
			ar_bufs_free(&b);
		}
	}
	br_progress("%s", "");
	if (csv)
		fprintf(stderr, "thbench allreduce: csv %s\n", path);
	if (o.plot && br_have("gnuplot"))
		ar_plot(o.out, &o, rows, nrows, provider, &tr);
	status = 0;
out:
	if (csv)
		fclose(csv);
	free(ofi_st);
	free(t);
	free(rows);
	for (ni = 0; w.ctx && ni < (unsigned int)w.ndev; ni++)
		if (w.ctx[ni])
			th_device_close(w.ctx[ni]);
	free(w.ctx);
	th_device_list_free(w.devs);
	return status;
}
