// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bench_ranks.c - what thbench's Allreduce benchmarks share (bench_ranks.h):
 * ranks as threads, statistics, the MPICH peer, the CPU hog, output.
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_ranks.h"
#include <thverbs/boot.h>
#include <thverbs/hostcoll.h>
#include <thverbs/place.h>

double br_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

static int br_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void br_stat_of(struct br_stat *st, double *t, int n)
{
	qsort(t, n, sizeof(*t), br_cmp);
	st->ok = true;
	st->med = t[n / 2];
	st->p10 = t[n / 10];
	st->p90 = t[n * 9 / 10];
	st->reps = n;
}

static double br_cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

void br_compute(double us)
{
	double end = br_cpu_us() + us;

	while (br_cpu_us() < end)
		;
}

/* ---- ranks as threads ---------------------------------------------------- */

struct br_shared {
	struct br_job *j;
	struct th_device **devs;
	int ndev;
	int *err;		/* per rank */
};

static int br_allgather(void *arg, const void *mine, void *all, size_t len)
{
	return th_boot_allgather(arg, mine, all, len);
}

/*
 * One rank's operation in rep @rep: start, compute, wait; or compute, run;
 * or the compute alone.
 */
static int br_op(struct br_job *j, int rep, struct th_coll *coll,
		 struct th_hostcoll *p2p)
{
	int ret;

	/* rep counts from -warmup: & 1 is its parity either side of 0 */
	if (j->compute_only || (j->alternate && !(rep & 1))) {
		br_compute(j->compute_us);
		return 0;
	}
	if (p2p) {
		if (j->compute_us > 0)
			br_compute(j->compute_us);
		return th_hostcoll_run(p2p, BR_TIMEOUT_NS);
	}
	ret = th_coll_start(coll);
	if (!ret && j->compute_us > 0)
		br_compute(j->compute_us);
	return ret ? ret : th_coll_wait(coll, BR_TIMEOUT_NS);
}

/*
 * A barrier, then the start of a sample in microseconds: now, or on the
 * virtual clock,
 * the latest of the ranks' host clocks, to which every rank moves (a
 * barrier in virtual time).
 */
static int br_start(struct th_boot *b, const struct br_job *j, double *t0)
{
	double mine, *all, latest = 0;
	unsigned int r;
	int ret;

	if (!j->timed) {
		ret = th_boot_barrier(b);
		*t0 = br_now_us();
		return ret;
	}
	all = malloc(j->n * sizeof(*all));
	if (!all)
		return -ENOMEM;
	mine = th_place_timed_now();
	ret = th_boot_allgather(b, &mine, all, sizeof(mine));
	for (r = 0; !ret && r < j->n; r++)
		latest = all[r] > latest ? all[r] : latest;
	if (!ret)
		ret = th_place_timed_advance(latest);
	free(all);
	*t0 = latest * 1e6;
	return ret;
}

static double br_end(const struct br_job *j)
{
	return j->timed ? th_place_timed_now() * 1e6 : br_now_us();
}

static int br_rank(struct th_boot *b, void *arg)
{
	struct br_shared *sh = arg;
	struct br_job *j = sh->j;
	unsigned int rank = th_boot_rank(b);
	uint32_t count = j->attr.count ? j->attr.count : 1;
	double *send = calloc(2 * (size_t)count, sizeof(double));
	double *recv = send ? send + count : NULL, t0;
	struct th_context *ctx = NULL;
	struct th_vport *vp = NULL;
	struct th_coll *coll = NULL;
	struct th_hostcoll *p2p = NULL;
	unsigned int i;
	int rep, ret = -ENOMEM;

	for (i = 0; send && i < count; i++)
		send[i] = (double)(rank + 1) / 7 + (double)i / 3;
	if (send)
		ctx = th_device_open(sh->devs[rank % sh->ndev]);
	if (ctx)
		vp = th_vport_create(ctx, NULL);
	if (vp && j->v == BR_P2P)
		p2p = th_hostcoll_create(vp, rank, j->n, br_allgather, b, &j->attr,
					 TH_HOSTCOLL_TREE, send, recv);
	else if (vp)
		coll = th_coll_create(vp, rank, j->n, br_allgather, b, &j->attr,
				      send, recv);
	if (send)
		ret = coll || p2p ? 0 : -errno;
	/* every rank takes part in every barrier, even after a failure */
	for (rep = -j->warmup; rep < j->reps; rep++) {
		if (br_start(b, j, &t0))
			break;	/* a barrier, too */
		if (!ret)
			ret = br_op(j, rep, coll, p2p);
		if (rep >= 0) {
			j->t0[(size_t)rank * j->reps + rep] = t0;
			j->t[(size_t)rank * j->reps + rep] = br_end(j) - t0;
		}
	}
	th_coll_destroy(coll);
	th_hostcoll_destroy(p2p);
	if (vp)
		th_vport_destroy(vp);
	if (ctx)
		th_device_close(ctx);
	free(send);
	sh->err[rank] = ret;
	return ret;
}

/*
 * @t's @n samples into @st; with @both, its even ones into @st and its odd
 * ones into @both.  @t is reordered (statistics sort it anyway).
 */
static void br_stat_split(struct br_stat *st, struct br_stat *both, double *t,
			  int n)
{
	double *odd;
	int i, k = 0;

	if (!both) {
		br_stat_of(st, t, n);
		return;
	}
	odd = malloc((n / 2 + 1) * sizeof(*odd));
	if (!odd) {
		st->ok = both->ok = false;
		st->why = both->why = "error";
		return;
	}
	for (i = 1; i < n; i += 2)
		odd[k++] = t[i];
	for (i = 0; i < (n + 1) / 2; i++)
		t[i] = t[2 * i];
	br_stat_of(st, t, (n + 1) / 2);
	br_stat_of(both, odd, k);
	free(odd);
}

/*
 * Run @j; its samples (the slowest rank's time, or the span) into @st, or
 * with @both the even reps' into @st and the odd reps' into @both.
 */
static int br_run(struct br_job *j, struct br_stat *st, struct br_stat *both)
{
	struct br_shared sh = { .j = j };
	double *worst = NULL;
	unsigned int r;
	int rep, ret = -ENOMEM;

	st->ok = false;
	st->why = "error";
	if (both)
		*both = *st;
	j->t = calloc((size_t)j->n * j->reps, sizeof(double));
	j->t0 = calloc((size_t)j->n * j->reps, sizeof(double));
	sh.err = calloc(j->n, sizeof(int));
	worst = calloc(j->reps, sizeof(double));
	sh.devs = th_device_list_get(j->provider, &sh.ndev);
	if (j->t && j->t0 && sh.err && worst && sh.devs && sh.ndev > 0)
		ret = th_boot_run_threads(j->n, br_rank, &sh);
	else if (j->t && j->t0 && sh.err && worst)
		ret = -ENODEV;
	for (r = 0; !ret && r < j->n; r++)
		ret = sh.err[r];
	if (!ret) {
		for (rep = 0; rep < j->reps; rep++) {
			double first = 0, last = 0, s, e;

			for (r = 0; r < j->n; r++) {
				s = j->t0[(size_t)r * j->reps + rep];
				e = s + j->t[(size_t)r * j->reps + rep];
				if (j->t[(size_t)r * j->reps + rep] > worst[rep])
					worst[rep] = j->t[(size_t)r * j->reps + rep];
				first = !r || s < first ? s : first;
				last = e > last ? e : last;
			}
			if (j->span)
				worst[rep] = last - first;
		}
		br_stat_split(st, both, worst, j->reps);
	}
	j->err = ret;
	th_device_list_free(sh.devs);
	free(worst);
	free(sh.err);
	free(j->t);
	free(j->t0);
	j->t = NULL;
	j->t0 = NULL;
	return ret;
}

int br_run_threads(struct br_job *j, struct br_stat *st)
{
	return br_run(j, st, NULL);
}

int br_run_pair(struct br_job *j, struct br_stat *only, struct br_stat *both)
{
	int reps = j->reps, ret;

	j->alternate = true;
	j->reps = 2 * reps;
	ret = br_run(j, only, both);
	j->reps = reps;
	j->alternate = false;
	return ret;
}

/* ---- the CPU hog ---------------------------------------------------------- */

pid_t br_hog_start(int cpu)
{
	cpu_set_t set;
	pid_t pid = fork();

	if (pid)
		return pid;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	for (;;)
		;	/* until SIGKILL */
}

void br_hog_stop(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* ---- MPICH ---------------------------------------------------------------- */

bool br_have(const char *prog)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", prog);
	return system(cmd) == 0;
}

int br_mkdir_p(const char *dir)
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
static const char *br_mpi_source(char *buf, size_t len)
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

const char *br_mpi_build(const char *out, char *bin, size_t len,
			 const char **why)
{
	char src[4096], cmd[12288];

	if (!br_have("mpicc") || !br_have("mpiexec")) {
		*why = "n/a";
		return NULL;
	}
	if (!br_mpi_source(src, sizeof(src))) {
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

int64_t br_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int br_read_lines(int fd, int64_t deadline_ms, int grace_ms,
		  bool (*fn)(const char *line, void *arg), void *arg)
{
	char buf[4096], *nl;
	size_t have = 0;

	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int64_t left = deadline_ms - br_now_ms();
		ssize_t got;

		if (left <= 0)
			return -ETIMEDOUT;
		if (poll(&pfd, 1, left > 1000 ? 1000 : (int)left) <= 0)
			continue;
		got = read(fd, buf + have, sizeof(buf) - 1 - have);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return 0;
		have += got;
		buf[have] = 0;
		while ((nl = strchr(buf, '\n'))) {
			*nl = 0;
			if (fn(buf, arg) && deadline_ms > br_now_ms() + grace_ms)
				deadline_ms = br_now_ms() + grace_ms;
			have -= nl + 1 - buf;
			memmove(buf, nl + 1, have + 1);
		}
		/* a line longer than the buffer is none of ours */
		if (have == sizeof(buf) - 1)
			have = 0;
	}
}

/* What br_mpi_run() reads: mpiexec's shell's pid, then rank 0's lines. */
struct br_mpi_out {
	const uint64_t *sizes;
	unsigned int nsizes, got, got_ovl;
	struct br_stat *st;
	double *ovl;
	pid_t pid;
};

static bool br_mpi_done(const struct br_mpi_out *m)
{
	return m->got == m->nsizes && (!m->ovl || m->got_ovl >= m->nsizes);
}

static bool br_mpi_line(const char *line, void *arg)
{
	struct br_mpi_out *m = arg;
	unsigned long long bytes;
	double med, p10, p90, pct, tc, tt, tp;
	unsigned int i;
	int r;

	if (sscanf(line, "pid %d", &r) == 1) {
		m->pid = r;
	} else if (sscanf(line, "size %llu %lf %lf %lf %d", &bytes, &med,
			  &p10, &p90, &r) == 5) {
		for (i = 0; i < m->nsizes; i++)
			if (m->sizes[i] == bytes) {
				m->got += !m->st[i].ok;
				m->st[i] = (struct br_stat){ .ok = true,
					.med = med, .p10 = p10, .p90 = p90,
					.reps = r };
			}
	} else if (m->ovl && sscanf(line, "overlap %llu %lf %lf %lf %lf",
				    &bytes, &pct, &tp, &tc, &tt) == 5) {
		for (i = 0; i < m->nsizes; i++)
			if (m->sizes[i] == bytes) {
				m->ovl[3 * i] = pct;
				m->ovl[3 * i + 1] = tc;
				m->ovl[3 * i + 2] = tt;
				m->got_ovl++;
			}
	}
	return br_mpi_done(m);
}

void br_mpi_run(const char *bin, const char *mode, unsigned int n, int reps,
		int warmup, const uint64_t *sizes, unsigned int nsizes,
		struct br_stat *st, double *ovl, const char *const *env)
{
	struct br_mpi_out m = {
		.sizes = sizes, .nsizes = nsizes, .st = st, .ovl = ovl,
	};
	char cmd[8192];
	int len, status, ret;
	unsigned int i;
	FILE *f;

	for (i = 0; i < nsizes; i++) {
		st[i].ok = false;
		st[i].why = "failed";
	}
	/*
	 * Hydra forks the ranks locally; -bind-to none lets the kernel share
	 * the cores; timeout(1) ends a hung job (and its ranks).  env(1) sets
	 * the caller's variables for this job alone, not for thbench's other
	 * children.  The shell says its pid, which exec makes timeout's: the
	 * job can be ended once its results are in (below).
	 */
	len = snprintf(cmd, sizeof(cmd), "echo pid $$; exec env");
	for (i = 0; env && env[i] && len < (int)sizeof(cmd); i++)
		len += snprintf(cmd + len, sizeof(cmd) - len, " '%s'", env[i]);
	if (len < (int)sizeof(cmd))
		len += snprintf(cmd + len, sizeof(cmd) - len,
				" timeout -k 5 %d mpiexec -n %u -bind-to none '%s' %s %d %d",
				BR_MPI_TIMEOUT_S, n, bin, mode, reps, warmup);
	if (len >= (int)sizeof(cmd))
		return;
	for (i = 0; i < nsizes && len < (int)sizeof(cmd) - 32; i++)
		len += snprintf(cmd + len, sizeof(cmd) - len, " %llu",
				(unsigned long long)sizes[i]);
	snprintf(cmd + len, sizeof(cmd) - len, " </dev/null 2>/dev/null");
	f = popen(cmd, "r");
	if (!f)
		return;
	/*
	 * MPICH over UCX's tcp transport, oversubscribed, at times hangs in
	 * MPI_Finalize after its last result (seen at 4 ranks on 2 cores):
	 * 10 s after that, the job is ended (timeout(1) passes SIGTERM to its
	 * process group) rather than waited for until its timeout.
	 */
	ret = br_read_lines(fileno(f), br_now_ms() + (BR_MPI_TIMEOUT_S + 15) * 1000LL,
			    BR_MPI_GRACE_MS, br_mpi_line, &m);
	if (ret == -ETIMEDOUT && m.pid > 0) {
		if (br_mpi_done(&m))
			fprintf(stderr, "\nthbench: mpiexec -n %u: every result in, then no exit in %d s: ended\n",
				n, BR_MPI_GRACE_MS / 1000);
		kill(m.pid, SIGTERM);
	}
	status = pclose(f);
	if (status && WIFEXITED(status) && WEXITSTATUS(status) == 124)
		for (i = 0; i < nsizes; i++)
			if (!st[i].ok)
				st[i].why = "timeout";
}

/* ---- options ---------------------------------------------------------------- */

/* A size: a number with an optional K or M suffix. */
static int br_parse_u64(const char *s, uint64_t *v)
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

int br_parse_list(const char *arg, uint64_t *v, unsigned int cap,
		  unsigned int *n, uint64_t min, uint64_t max)
{
	char *copy = strdup(arg), *save = NULL, *tok;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	*n = 0;
	for (tok = strtok_r(copy, ",", &save); tok && !ret;
	     tok = strtok_r(NULL, ",", &save)) {
		if (*n == cap || br_parse_u64(tok, &v[*n]) ||
		    v[*n] < min || v[*n] > max)
			ret = -EINVAL;
		else
			(*n)++;
	}
	free(copy);
	return ret || !*n ? -EINVAL : 0;
}

/* ---- output ---------------------------------------------------------------- */

const char *br_default_out(const char *name, char *buf, size_t len)
{
	struct stat sb;

#ifdef THBENCH_TOP
	snprintf(buf, len, "%s/build", THBENCH_TOP);
	if (!stat(buf, &sb) && S_ISDIR(sb.st_mode) && !access(buf, W_OK)) {
		snprintf(buf, len, "%s/build/bench/%s", THBENCH_TOP, name);
		return buf;
	}
#endif
	(void)sb;
	snprintf(buf, len, "thbench-%s", name);
	return buf;
}

/* The progress line: rewritten in place, on a terminal only. */
void br_progress(const char *fmt, ...)
{
	va_list ap;

	if (!isatty(STDERR_FILENO))
		return;
	fputs("\r\033[K", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}
