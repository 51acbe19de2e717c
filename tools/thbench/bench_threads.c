// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bench_threads.c - 'thbench threads': Allreduce with ranks as threads, the
 * offload under each wait policy beside what such a program would use
 * instead, an OpenMP reduction (libgomp) under its default and passive
 * wait policies, and the host-driven p2p tree.
 *
 * libgomp reads OMP_WAIT_POLICY once, when it loads: each OpenMP variant
 * runs in a child (this program again, with the variable set), which
 * prints its samples' statistics.  The offload variants run here, the
 * policy changed between them with th_wait_policy_set().  Every variant
 * runs --runs times, interleaved (variant after variant, then again), so
 * that a slow spell of the machine falls on all of them.
 */
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_ranks.h"
#include "thbench.h"

#define TT_MAX_NODES	8
#define TT_MAX_SIZES	8
#define TT_MAX_RUNS	20

enum tt_variant {
	TT_OFF_AUTO, TT_OFF_SPIN, TT_OFF_PASSIVE, TT_P2P,
	TT_OMP_DEFAULT, TT_OMP_PASSIVE, TT_NVARIANT
};

static const char *const tt_name[TT_NVARIANT] = {
	"offload-auto", "offload-spin", "offload-passive", "p2p-tree",
	"omp-default", "omp-passive",
};

struct tt_opts {
	unsigned int nodes[TT_MAX_NODES], nnodes;
	uint64_t sizes[TT_MAX_SIZES];
	unsigned int nsizes, radix, runs;
	int reps, warmup;
	const char *out;
	bool omp;
};

/* One variant at one (N, size): the statistics of each run. */
struct tt_cell {
	struct br_stat run[TT_MAX_RUNS];
	struct br_stat all;	/* median of the runs' medians, p10s, p90s */
	double lo, hi;		/* the runs' medians, smallest and largest */
};

static void tt_usage(FILE *f)
{
	fprintf(f,
		"usage: thbench threads [--nodes LIST] [--sizes LIST] [--radix K]\n"
		"                       [--reps R] [--runs M] [--out DIR] [--no-omp]\n\n"
		"Allreduce (double sum), ranks as threads of one process, on the\n"
		"in-process provider, beside an OpenMP reduction:\n"
		"  offload-auto     the offload, TH_WAIT_POLICY=auto (the default)\n"
		"  offload-spin     the offload, spin\n"
		"  offload-passive  the offload, passive (sleep at once)\n"
		"  p2p-tree         the host-driven p2p tree on the same NIC (auto)\n"
		"  omp-default      #pragma omp for reduction(+:buf[:count]), libgomp,\n"
		"                   OMP_WAIT_POLICY unset (libgomp spins, then sleeps)\n"
		"  omp-passive      the same, OMP_WAIT_POLICY=passive\n"
		"A sample is the slowest rank's time from a common barrier to its\n"
		"completion, for every variant.  Each variant runs M times,\n"
		"interleaved; a cell is the median over the runs of each run's\n"
		"median [p10-p90], and the runs' median spread (min-max) in the CSV.\n"
		"Ratios: offload-auto / omp-default and / omp-passive.\n"
		"Defaults: --nodes 2,4,16 --sizes 8,64K --radix 4 --reps 200\n"
		"  --runs 3.  Output: a table, DIR/threads.csv and DIR/threads.png\n"
		"(gnuplot); DIR defaults to build/bench/threads in the source tree.\n");
}

static int tt_parse(int argc, char **argv, struct tt_opts *o)
{
	uint64_t v[TT_MAX_NODES];
	unsigned int i;
	int a;

	*o = (struct tt_opts){ .nodes = { 2, 4, 16 }, .nnodes = 3,
		.sizes = { 8, 65536 }, .nsizes = 2, .radix = 4, .runs = 3,
		.reps = 200, .warmup = 20, .omp = true };
	for (a = 1; a < argc; a++) {
		const char *arg = argv[a], *val = a + 1 < argc ? argv[a + 1] : NULL;
		char *end;
		long n;

		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			tt_usage(stdout);
			exit(0);
		}
		if (!strcmp(arg, "--no-omp")) {
			o->omp = false;
			continue;
		}
		if (!val)
			goto bad;
		a++;
		if (!strcmp(arg, "--nodes")) {
			if (br_parse_list(val, v, TT_MAX_NODES, &o->nnodes, 2, 64))
				goto bad;
			for (i = 0; i < o->nnodes; i++)
				o->nodes[i] = v[i];
			continue;
		}
		if (!strcmp(arg, "--sizes")) {
			if (br_parse_list(val, o->sizes, TT_MAX_SIZES, &o->nsizes,
					  8, 16 << 20))
				goto bad;
			for (i = 0; i < o->nsizes; i++)
				if (o->sizes[i] % 8)
					goto bad;
			continue;
		}
		if (!strcmp(arg, "--out")) {
			o->out = val;
			continue;
		}
		errno = 0;
		n = strtol(val, &end, 10);
		if (errno || *end || end == val)
			goto bad;
		if (!strcmp(arg, "--radix") && n >= 2 && n <= 64)
			o->radix = n;
		else if (!strcmp(arg, "--reps") && n >= 10 && n <= 1000000)
			o->reps = n;
		else if (!strcmp(arg, "--runs") && n >= 1 && n <= TT_MAX_RUNS)
			o->runs = n;
		else
			goto bad;
	}
	return 0;
bad:
	fprintf(stderr, "thbench threads: bad argument '%s'%s%s\n", argv[a],
		a + 1 < argc ? " " : "", a + 1 < argc ? argv[a + 1] : "");
	tt_usage(stderr);
	return -EINVAL;
}

/* ---- the OpenMP peer, in a child ------------------------------------------ */

/*
 * The worksharing loop, orphaned in a function of its own: GCC gives each
 * thread its private copy of an array section on the stack, and in a loop
 * in one frame those copies pile up (64 KiB a round overflowed a thread's
 * stack); a call returns its copy each time.
 */
static __attribute__((noinline)) void tt_omp_reduce(double *res,
						   const double *mine,
						   unsigned int n,
						   unsigned int count)
{
	unsigned int i, c;

#pragma omp for reduction(+:res[:count]) schedule(static)
	for (i = 0; i < n; i++)
		for (c = 0; c < count; c++)
			res[c] += mine[(size_t)i * count + c];
}

/*
 * thbench threads --omp-child N COUNT REPS WARMUP: an OpenMP team of N
 * threads, each with COUNT doubles, reduces them into one shared array
 * that every thread reads afterwards (the worksharing loop's closing
 * barrier makes the result everyone's: an Allreduce).  Prints "omp MED
 * P10 P90 REPS", or "omp wrong" if a result is not the sum.
 */
static int tt_omp_child(int argc, char **argv)
{
	unsigned int n, count, k;
	int reps, warmup, wrong = 0;
	double *t, *mine, *res;
	struct br_stat st;

	if (argc != 6)
		return 2;
	n = atoi(argv[2]);
	count = atoi(argv[3]);
	reps = atoi(argv[4]);
	warmup = atoi(argv[5]);
	if (n < 1 || !count || reps < 1 || warmup < 0)
		return 2;
	t = calloc((size_t)n * reps, sizeof(*t));
	mine = malloc((size_t)n * count * sizeof(*mine));
	res = calloc(count, sizeof(*res));
	if (!t || !mine || !res)
		return 1;
	for (k = 0; k < n * count; k++)
		mine[k] = k / count + 1;	/* rank r holds r + 1 */

#pragma omp parallel num_threads(n) reduction(|:wrong)
	{
		unsigned int me = omp_get_thread_num();
		double t0, t1;
		int r;

		for (r = -warmup; r < reps; r++) {
#pragma omp single
			memset(res, 0, count * sizeof(*res));
			/* the single's barrier is the common start */
			t0 = br_now_us();
			tt_omp_reduce(res, mine, n, count);
			t1 = br_now_us();
			if (res[0] != n * (n + 1) / 2.0 ||
			    res[count - 1] != n * (n + 1) / 2.0)
				wrong = 1;
			if (r >= 0)
				t[(size_t)r * n + me] = t1 - t0;
#pragma omp barrier
		}
	}
	if (wrong) {
		printf("omp wrong\n");
		return 1;
	}
	/* a sample: the slowest thread of the rep */
	for (int r = 0; r < reps; r++) {
		double worst = 0;

		for (k = 0; k < n; k++)
			if (t[(size_t)r * n + k] > worst)
				worst = t[(size_t)r * n + k];
		t[r] = worst;
	}
	br_stat_of(&st, t, reps);
	printf("omp %.3f %.3f %.3f %d\n", st.med, st.p10, st.p90, st.reps);
	free(t);
	free(mine);
	free(res);
	return 0;
}

/* Run this program as the OpenMP child with OMP_WAIT_POLICY @policy. */
static void tt_omp_run(const char *policy, unsigned int n, uint64_t bytes,
		       const struct tt_opts *o, struct br_stat *st)
{
	char cmd[4096], line[256];
	char exe[1024];
	ssize_t len;
	FILE *f;
	int rc;

	*st = (struct br_stat){ .why = "failed" };
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len <= 0)
		return;
	exe[len] = 0;
	/* OMP_WAIT_POLICY unset for libgomp's default; OMP_PROC_BIND off */
	snprintf(cmd, sizeof(cmd),
		 "env %s%s OMP_PROC_BIND=false '%s' threads --omp-child %u %llu %d %d",
		 policy ? "OMP_WAIT_POLICY=" : "-u OMP_WAIT_POLICY",
		 policy ? policy : "", exe, n,
		 (unsigned long long)(bytes / 8), o->reps, o->warmup);
	f = popen(cmd, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "omp %lf %lf %lf %d", &st->med, &st->p10,
			   &st->p90, &st->reps) == 4)
			st->ok = true;
		else if (!strncmp(line, "omp wrong", 9))
			st->why = "WRONG";
	rc = pclose(f);
	if (rc)
		st->ok = false;
}

/* ---- the offload and the p2p tree, here ----------------------------------- */

static void tt_nic_run(enum tt_variant v, unsigned int n, uint64_t bytes,
		       const struct tt_opts *o, struct br_stat *st)
{
	static const enum th_wait_policy pol[] = {
		[TT_OFF_AUTO] = TH_WAIT_AUTO, [TT_OFF_SPIN] = TH_WAIT_SPIN,
		[TT_OFF_PASSIVE] = TH_WAIT_PASSIVE, [TT_P2P] = TH_WAIT_AUTO,
	};
	struct br_job j = {
		.n = n, .v = v == TT_P2P ? BR_P2P : BR_OFFLOAD,
		.provider = "inproc", .reps = o->reps, .warmup = o->warmup,
		.attr = { .kind = TH_COLL_ALLREDUCE, .op = TH_NIC_ALU_SUM,
			  .dtype = TH_NIC_DT_FLOAT64, .count = bytes / 8,
			  .radix = o->radix },
	};
	uint64_t us;

	th_wait_policy_get(&us);
	th_wait_policy_set(pol[v], us);
	*st = (struct br_stat){ .why = "failed" };
	br_run_threads(&j, st);
}

static int tt_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void tt_cell_sum(struct tt_cell *c, unsigned int runs)
{
	double med[TT_MAX_RUNS], p10[TT_MAX_RUNS], p90[TT_MAX_RUNS];
	unsigned int i, k = 0;

	for (i = 0; i < runs; i++) {
		if (!c->run[i].ok) {
			c->all = c->run[i];
			return;
		}
		med[k] = c->run[i].med;
		p10[k] = c->run[i].p10;
		p90[k++] = c->run[i].p90;
	}
	qsort(med, k, sizeof(double), tt_cmp);
	qsort(p10, k, sizeof(double), tt_cmp);
	qsort(p90, k, sizeof(double), tt_cmp);
	c->all = (struct br_stat){ .ok = true, .med = med[k / 2],
				   .p10 = p10[k / 2], .p90 = p90[k / 2],
				   .reps = c->run[0].reps };
	c->lo = med[0];
	c->hi = med[k - 1];
}

static void tt_print_cell(const struct tt_cell *c)
{
	char buf[64];

	if (c->all.ok)
		snprintf(buf, sizeof(buf), "%.1f [%.1f-%.1f]", c->all.med,
			 c->all.p10, c->all.p90);
	else
		snprintf(buf, sizeof(buf), "%s", c->all.why ? c->all.why : "-");
	printf(" %-19s", buf);
}

static double tt_ratio(const struct tt_cell *a, const struct tt_cell *b)
{
	return a->all.ok && b->all.ok && b->all.med > 0 ?
	       a->all.med / b->all.med : NAN;
}

static void tt_plot(const char *out, const struct tt_opts *o)
{
	char cmd[8192];

	if (!br_have("gnuplot"))
		return;
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && gnuplot -e \""
		 "set terminal png size 1000,600; set output 'threads.png'; "
		 "set datafile separator ','; set logscale y; "
		 "set title 'Allreduce, ranks as threads (radix %u): median us'; "
		 "set style data histograms; set style fill solid 0.8; "
		 "set key top left; set xtics rotate by -30; "
		 "plot for [v=0:%d] 'threads.csv' using (column('variant') eq word('%s %s %s %s %s %s', v+1) ? column('median_us') : 1/0):xtic(stringcolumn('nodes').'/'.stringcolumn('bytes')) title word('%s %s %s %s %s %s', v+1)\" "
		 "> /dev/null 2>&1",
		 out, o->radix, TT_NVARIANT - 1,
		 tt_name[0], tt_name[1], tt_name[2], tt_name[3], tt_name[4],
		 tt_name[5], tt_name[0], tt_name[1], tt_name[2], tt_name[3],
		 tt_name[4], tt_name[5]);
	if (system(cmd) == 0)
		printf("thbench threads: plot %s/threads.png\n", out);
}

int thbench_threads_main(int argc, char **argv)
{
	struct tt_cell *cells;
	struct tt_opts o;
	char outbuf[4096], path[4200];
	unsigned int ni, si, r, v, ncells;
	enum th_wait_policy saved;
	uint64_t saved_us;
	FILE *csv;

	if (argc >= 2 && !strcmp(argv[1], "--omp-child"))
		return tt_omp_child(argc, argv);
	if (tt_parse(argc, argv, &o))
		return 2;
	if (!o.out)
		o.out = br_default_out("threads", outbuf, sizeof(outbuf));
	if (br_mkdir_p(o.out)) {
		fprintf(stderr, "thbench threads: cannot create %s\n", o.out);
		return 1;
	}
	ncells = o.nnodes * o.nsizes * TT_NVARIANT;
	cells = calloc(ncells, sizeof(*cells));
	if (!cells)
		return 1;
	saved = th_wait_policy_get(&saved_us);
	for (r = 0; r < o.runs; r++)
		for (ni = 0; ni < o.nnodes; ni++)
			for (si = 0; si < o.nsizes; si++)
				for (v = 0; v < TT_NVARIANT; v++) {
					struct tt_cell *c = &cells[(ni * o.nsizes + si) *
								   TT_NVARIANT + v];
					unsigned int n = o.nodes[ni];
					uint64_t b = o.sizes[si];

					br_progress("run %u/%u N=%u %llu B %s", r + 1,
						    o.runs, n, (unsigned long long)b,
						    tt_name[v]);
					if (v == TT_OMP_DEFAULT || v == TT_OMP_PASSIVE) {
						if (o.omp)
							tt_omp_run(v == TT_OMP_PASSIVE ?
								   "passive" : NULL,
								   n, b, &o, &c->run[r]);
						else
							c->run[r] = (struct br_stat){
								.why = "off" };
					} else {
						tt_nic_run(v, n, b, &o, &c->run[r]);
					}
				}
	th_wait_policy_set(saved, saved_us);
	br_progress("%s", "");
	for (v = 0; v < ncells; v++)
		tt_cell_sum(&cells[v], o.runs);

	printf("# Allreduce, double sum, ranks as threads; radix %u; %ld cores\n"
	       "# latency in us: median over %u runs of each run's median [p10-p90], %d reps a run\n"
	       "# spin bound of auto: TH_SPIN_US=%llu\n",
	       o.radix, sysconf(_SC_NPROCESSORS_ONLN), o.runs, o.reps,
	       (unsigned long long)saved_us);
	printf("   N   size |");
	for (v = 0; v < TT_NVARIANT; v++)
		printf(" %-19s", tt_name[v]);
	printf("| auto/omp-def auto/omp-pas\n");
	snprintf(path, sizeof(path), "%s/threads.csv", o.out);
	csv = fopen(path, "w");
	if (csv)
		fprintf(csv, "nodes,bytes,radix,variant,median_us,p10_us,p90_us,run_min_us,run_max_us,runs,reps\n");
	for (ni = 0; ni < o.nnodes; ni++)
		for (si = 0; si < o.nsizes; si++) {
			struct tt_cell *row = &cells[(ni * o.nsizes + si) * TT_NVARIANT];

			printf("%4u %6llu |", o.nodes[ni],
			       (unsigned long long)o.sizes[si]);
			for (v = 0; v < TT_NVARIANT; v++) {
				tt_print_cell(&row[v]);
				if (csv && row[v].all.ok)
					fprintf(csv, "%u,%llu,%u,%s,%.3f,%.3f,%.3f,%.3f,%.3f,%u,%d\n",
						o.nodes[ni],
						(unsigned long long)o.sizes[si],
						o.radix, tt_name[v], row[v].all.med,
						row[v].all.p10, row[v].all.p90,
						row[v].lo, row[v].hi, o.runs,
						row[v].all.reps);
			}
			printf("| %11.3f %11.3f\n",
			       tt_ratio(&row[TT_OFF_AUTO], &row[TT_OMP_DEFAULT]),
			       tt_ratio(&row[TT_OFF_AUTO], &row[TT_OMP_PASSIVE]));
		}
	if (csv) {
		fclose(csv);
		printf("thbench threads: csv %s\n", path);
		tt_plot(o.out, &o);
	}
	free(cells);
	return 0;
}
