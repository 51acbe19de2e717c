// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bench_sched.c - 'thbench sched': the HAGD paper's evaluation (Table 4
 * sweep, Tables 5 and 6, Fig. 7, the application graphs) and the scaling
 * of every algorithm up to 10,000 tasks x 64 processors.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <thverbs/sched.h>
#include "thbench.h"

#define NALG		TH_SCHED_NR_ALGS
#define NVAL		5
#define NPARAM		4
#define NCASE		(NVAL * NVAL * NVAL)	/* CCR x beta x #vm */

/* The seed's Table 4. */
static const double bench_nv[NVAL] = { 50, 100, 300, 500, 750 };
static const double bench_ccr[NVAL] = { 0.1, 0.5, 1.0, 2.5, 5.0 };
static const double bench_beta[NVAL] = { 0.1, 0.5, 1.0, 1.5, 1.9 };
static const double bench_vm[NVAL] = { 2, 4, 8, 16, 32 };
static const double *const bench_values[NPARAM] = {
	bench_nv, bench_ccr, bench_beta, bench_vm,
};
static const char *const bench_param_names[NPARAM] = { "v", "ccr", "beta", "vm" };
static const char *const bench_param_titles[NPARAM] = {
	"(a) number of tasks #v", "(b) CCR", "(c) heterogeneity beta",
	"(d) number of VM instances #vm",
};

/* The paper's ranges of HAGD's improvement (Fig. 7 (a) to (d)). */
static const char *const bench_paper[NPARAM][NALG] = {
	{ "3.1-7.3%", "5.0-8.7%", "3.8-16.2%" },
	{ "0.1-7.8%", "1.2-11.5%", "10.9-20.0%" },
	{ "2.0-6.3%", "4.6-9.4%", "5.3-16.8%" },
	{ "2.9-13.0%", "3.6-15.9%", "3.7-19.1%" },
};

struct bench_opts {
	unsigned int graphs;
	bool quick;
	bool scaling;
	bool scaling_large;
	bool apps;
	const char *outdir;
	unsigned long long seed;
	double alpha;
	unsigned int outdeg;
	unsigned int threads;
	const char *stg_dir;	/* robot.stg and sparse.stg; NULL: skip them */
};

/* Results of one schedule. */
struct bench_res {
	double slr;
	double makespan;
	unsigned int ninserted;
	unsigned int nduplicated;
	int by;			/* th_sched_alg_of(): whose schedule it is */
};

/* One work item: a random graph structure of one size, all 125 cost cases. */
struct bench_item {
	unsigned int vi;
	unsigned int g;
	struct bench_res res[NVAL][NVAL][NVAL][NALG];	/* ccr, beta, vm */
};

struct bench_shared {
	const struct bench_opts *o;
	struct bench_item *items;
	unsigned int nitems;
	atomic_uint next;
	atomic_uint done;
	atomic_uint invalid;
	pthread_mutex_t lock;		/* serialises the progress line */
	struct timespec t0;
	char why[320];
};

static double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t bench_mix(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t x = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull);

	x ^= c * 0xbf58476d1ce4e5b9ull;
	x ^= x >> 31;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 29);
}

/* Schedules dag with every algorithm; validates each schedule. */
static int bench_run_all(struct th_dag *dag, struct bench_res *res,
			 char *why, size_t len)
{
	unsigned int a;

	for (a = 0; a < NALG; a++) {
		struct th_sched *s = th_sched_run(dag, a);
		struct th_sched_metrics m;
		int ret;

		if (!s)
			return -errno;
		ret = th_sched_validate(s, why, len);
		if (!ret)
			ret = th_sched_metrics(s, &m);
		res[a].by = th_sched_alg_of(s);
		th_sched_destroy(s);
		if (ret)
			return ret;
		res[a].slr = m.slr;
		res[a].makespan = m.makespan;
		res[a].ninserted = m.ninserted;
		res[a].nduplicated = m.nduplicated;
	}
	return 0;
}

static void bench_progress(struct bench_shared *sh, const char *what)
{
	unsigned int done = atomic_load(&sh->done);
	struct timespec now;
	double el;

	clock_gettime(CLOCK_MONOTONIC, &now);
	el = now.tv_sec - sh->t0.tv_sec + (now.tv_nsec - sh->t0.tv_nsec) * 1e-9;
	pthread_mutex_lock(&sh->lock);
	fprintf(stderr, "\rthbench sched: %s %u/%u graphs, %.1f s elapsed%s",
		what, done, sh->nitems, el,
		done && done < sh->nitems ?
		"" : "          ");
	if (done < sh->nitems && done)
		fprintf(stderr, ", about %.0f s left   ",
			el / done * (sh->nitems - done));
	fflush(stderr);
	pthread_mutex_unlock(&sh->lock);
}

static void *bench_worker(void *arg)
{
	struct bench_shared *sh = arg;
	const struct bench_opts *o = sh->o;
	unsigned int i;

	while ((i = atomic_fetch_add(&sh->next, 1)) < sh->nitems) {
		struct bench_item *it = &sh->items[i];
		struct th_dag_gen_params gp = {
			.ntasks = (unsigned int)bench_nv[it->vi],
			.alpha = o->alpha, .outdeg = o->outdeg,
			.seed = bench_mix(o->seed, it->vi, it->g),
		};
		struct th_dag *dag = th_dag_gen_random(&gp);
		unsigned int k;
		char why[256];

		if (!dag) {
			atomic_fetch_add(&sh->invalid, 1);
			continue;
		}
		for (k = 0; k < NCASE; k++) {
			unsigned int c = k / 25, b = k / 5 % 5, p = k % 5;
			int ret;

			ret = th_dag_assign_costs(dag, (unsigned int)bench_vm[p],
						  bench_ccr[c], bench_beta[b],
						  bench_mix(gp.seed, k, 1));
			if (!ret)
				ret = bench_run_all(dag, it->res[c][b][p], why,
						    sizeof(why));
			if (ret) {
				pthread_mutex_lock(&sh->lock);
				snprintf(sh->why, sizeof(sh->why), "v=%u g=%u: %s",
					 gp.ntasks, it->g, why);
				pthread_mutex_unlock(&sh->lock);
				atomic_fetch_add(&sh->invalid, 1);
			}
		}
		th_dag_destroy(dag);
		atomic_fetch_add(&sh->done, 1);
		bench_progress(sh, "sweep");
	}
	return NULL;
}

/* Writes to stdout and to the summary file. */
static FILE *bench_summary;

static void __attribute__((format(printf, 1, 2))) bench_out(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (bench_summary) {
		va_start(ap, fmt);
		vfprintf(bench_summary, fmt, ap);
		va_end(ap);
	}
}

static FILE *bench_open(const struct bench_opts *o, const char *name)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", o->outdir, name);
	f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "thbench sched: %s: %s\n", path, strerror(errno));
	return f;
}

static bool bench_have_gnuplot(void)
{
	return !system("command -v gnuplot >/dev/null 2>&1");
}

static int bench_gnuplot(const struct bench_opts *o, const char *script)
{
	char cmd[1200];
	int ret;

	if (!bench_have_gnuplot()) {
		bench_out("note: gnuplot not found; %s left unplotted (install Debian gnuplot-nox)\n",
			  script);
		return 0;
	}
	snprintf(cmd, sizeof(cmd), "cd '%s' && gnuplot '%s'", o->outdir, script);
	ret = system(cmd);
	if (ret)
		fprintf(stderr, "thbench sched: gnuplot %s failed (%d)\n", script, ret);
	return ret ? -EIO : 0;
}

struct bench_avg {
	double slr[NPARAM][NVAL][NALG];
	double makespan[NVAL][NALG];	/* per #v */
	double ins[NVAL][NALG];		/* per CCR */
	double dup[NVAL][NALG];
	unsigned int wins[NALG];	/* HAGD strictly better, per other alg */
	unsigned int ties[NALG];
	unsigned int fellback[NALG];	/* HAGD, hagd+: HEFT's schedule kept */
	unsigned int won[NALG];		/* the portfolio's winners */
	unsigned int runs;
};

static void bench_reduce(const struct bench_shared *sh, struct bench_avg *av)
{
	double cnt[NPARAM][NVAL] = { { 0 } }, mcnt[NVAL] = { 0 }, ccnt[NVAL] = { 0 };
	unsigned int i, j, c, a, k;

	memset(av, 0, sizeof(*av));
	/* in item order, so that the sums do not depend on the threads */
	for (i = 0; i < sh->nitems; i++) {
		const struct bench_item *it = &sh->items[i];

		for (j = 0; j < NCASE; j++) {
			unsigned int idx[NPARAM] = { it->vi, j / 25, j / 5 % 5, j % 5 };
			const struct bench_res *r = it->res[idx[1]][idx[2]][idx[3]];

			c = idx[1];
			for (k = 0; k < NPARAM; k++) {
				for (a = 0; a < NALG; a++)
					av->slr[k][idx[k]][a] += r[a].slr;
				cnt[k][idx[k]]++;
			}
			for (a = 0; a < NALG; a++) {
				av->makespan[it->vi][a] += r[a].makespan;
				av->ins[c][a] += r[a].ninserted;
				av->dup[c][a] += r[a].nduplicated;
				if (r[TH_SCHED_HAGD].slr < r[a].slr - 1e-12)
					av->wins[a]++;
				else if (fabs(r[TH_SCHED_HAGD].slr - r[a].slr) <= 1e-12)
					av->ties[a]++;
				if (a != TH_SCHED_PORTFOLIO && r[a].by != (int)a)
					av->fellback[a]++;
			}
			if (r[TH_SCHED_PORTFOLIO].by >= 0)
				av->won[r[TH_SCHED_PORTFOLIO].by]++;
			mcnt[it->vi]++;
			ccnt[c]++;
			av->runs++;
		}
	}
	for (k = 0; k < NPARAM; k++)
		for (i = 0; i < NVAL; i++)
			for (a = 0; a < NALG; a++)
				av->slr[k][i][a] /= cnt[k][i] ? cnt[k][i] : 1;
	for (i = 0; i < NVAL; i++)
		for (a = 0; a < NALG; a++) {
			av->makespan[i][a] /= mcnt[i] ? mcnt[i] : 1;
			av->ins[i][a] /= ccnt[i] ? ccnt[i] : 1;
			av->dup[i][a] /= ccnt[i] ? ccnt[i] : 1;
		}
}

static double bench_impr(double other, double hagd)
{
	return 100.0 * (other - hagd) / other;
}

static void bench_report_sweep(const struct bench_opts *o,
			       const struct bench_avg *av)
{
	unsigned int k, i, a;
	FILE *f;

	bench_out("\n== Average SLR per parameter value (averaged over the other parameters and %u graphs per #v)\n",
		  o->graphs);
	for (k = 0; k < NPARAM; k++) {
		char name[64];

		bench_out("\n%s\n%8s", bench_param_titles[k], bench_param_names[k]);
		for (a = 0; a < NALG; a++)
			bench_out(" %9s", th_sched_alg_name(a));
		bench_out("   HAGD vs HEFT   PETS  HCPFD\n");
		snprintf(name, sizeof(name), "slr_by_%s.csv", bench_param_names[k]);
		f = bench_open(o, name);
		if (f) {
			fprintf(f, "%s", bench_param_names[k]);
			for (a = 0; a < NALG; a++)
				fprintf(f, ",%s", th_sched_alg_name(a));
			fprintf(f, ",impr_heft_pct,impr_pets_pct,impr_hcpfd_pct\n");
		}
		for (i = 0; i < NVAL; i++) {
			const double *s = av->slr[k][i];

			bench_out("%8g", bench_values[k][i]);
			for (a = 0; a < NALG; a++)
				bench_out(" %9.4f", s[a]);
			bench_out("   %11.2f%% %5.2f%% %5.2f%%\n",
				  bench_impr(s[TH_SCHED_HEFT], s[TH_SCHED_HAGD]),
				  bench_impr(s[TH_SCHED_PETS], s[TH_SCHED_HAGD]),
				  bench_impr(s[TH_SCHED_HCPFD], s[TH_SCHED_HAGD]));
			if (f) {
				fprintf(f, "%g", bench_values[k][i]);
				for (a = 0; a < NALG; a++)
					fprintf(f, ",%.6f", s[a]);
				fprintf(f, ",%.4f,%.4f,%.4f\n",
					bench_impr(s[TH_SCHED_HEFT], s[TH_SCHED_HAGD]),
					bench_impr(s[TH_SCHED_PETS], s[TH_SCHED_HAGD]),
					bench_impr(s[TH_SCHED_HCPFD], s[TH_SCHED_HAGD]));
			}
		}
		if (f)
			fclose(f);
	}

	bench_out("\n== Improvement of HAGD = (SLR_other - SLR_HAGD) / SLR_other, range over the values of each parameter\n");
	bench_out("%-6s %-8s %22s %22s   %s\n", "param", "vs", "this reproduction",
		  "hagd+ (variant)", "paper");
	f = bench_open(o, "improvement.csv");
	if (f)
		fprintf(f, "param,vs,min_pct,max_pct,plus_min_pct,plus_max_pct,paper\n");
	for (k = 0; k < NPARAM; k++) {
		for (a = 0; a <= TH_SCHED_HCPFD; a++) {
			double lo = INFINITY, hi = -INFINITY, plo = INFINITY, phi = -INFINITY;

			for (i = 0; i < NVAL; i++) {
				double x = bench_impr(av->slr[k][i][a], av->slr[k][i][TH_SCHED_HAGD]);
				double y = bench_impr(av->slr[k][i][a], av->slr[k][i][TH_SCHED_HAGD_PLUS]);

				lo = fmin(lo, x);
				hi = fmax(hi, x);
				plo = fmin(plo, y);
				phi = fmax(phi, y);
			}
			bench_out("%-6s %-8s %9.1f%% .. %6.1f%% %9.1f%% .. %6.1f%%   %s\n",
				  bench_param_names[k], th_sched_alg_name(a), lo, hi,
				  plo, phi, bench_paper[k][a]);
			if (f)
				fprintf(f, "%s,%s,%.3f,%.3f,%.3f,%.3f,%s\n",
					bench_param_names[k], th_sched_alg_name(a),
					lo, hi, plo, phi, bench_paper[k][a]);
		}
	}
	if (f)
		fclose(f);
	bench_out("\nSchedules where HAGD's SLR is lower / equal, of %u per algorithm:",
		  av->runs);
	for (a = 0; a <= TH_SCHED_HCPFD; a++)
		bench_out(" %s %u / %u;", th_sched_alg_name(a), av->wins[a], av->ties[a]);
	bench_out("\n");
	/* HAGD falls back to HEFT's schedule when its own is longer */
	bench_out("HEFT's schedule kept because it was shorter: hagd %u, hagd+ %u of %u\n",
		  av->fellback[TH_SCHED_HAGD], av->fellback[TH_SCHED_HAGD_PLUS],
		  av->runs);
	bench_out("Portfolio winners (ties: the earlier):");
	for (a = 0; a < TH_SCHED_PORTFOLIO; a++)
		bench_out(" %s %u;", th_sched_alg_name(a), av->won[a]);
	bench_out("\n");

	bench_out("\n== Table 5: mean makespan per #v\n%-9s", "alg");
	for (i = 0; i < NVAL; i++)
		bench_out(" %9g", bench_nv[i]);
	bench_out("\n");
	f = bench_open(o, "table5_makespan.csv");
	if (f)
		fprintf(f, "alg,v50,v100,v300,v500,v750\n");
	for (a = 0; a < NALG; a++) {
		bench_out("%-9s", th_sched_alg_name(a));
		if (f)
			fprintf(f, "%s", th_sched_alg_name(a));
		for (i = 0; i < NVAL; i++) {
			bench_out(" %9.1f", av->makespan[i][a]);
			if (f)
				fprintf(f, ",%.3f", av->makespan[i][a]);
		}
		bench_out("\n");
		if (f)
			fputc('\n', f);
	}
	if (f)
		fclose(f);

	bench_out("\n== Table 6: mean insertions and duplications per schedule, per CCR\n%-15s", "");
	for (i = 0; i < NVAL; i++)
		bench_out(" %7g", bench_ccr[i]);
	bench_out("\n");
	f = bench_open(o, "table6_counts.csv");
	if (f)
		fprintf(f, "kind,alg,ccr0.1,ccr0.5,ccr1,ccr2.5,ccr5\n");
	for (k = 0; k < 2; k++) {
		for (a = 0; a < NALG; a++) {
			bench_out("%-5s %-9s", k ? "dup" : "ins", th_sched_alg_name(a));
			if (f)
				fprintf(f, "%s,%s", k ? "duplication" : "insertion",
					th_sched_alg_name(a));
			for (i = 0; i < NVAL; i++) {
				double x = k ? av->dup[i][a] : av->ins[i][a];

				bench_out(" %7.1f", x);
				if (f)
					fprintf(f, ",%.3f", x);
			}
			bench_out("\n");
			if (f)
				fputc('\n', f);
		}
	}
	if (f)
		fclose(f);
}

static int bench_plot_fig7(const struct bench_opts *o)
{
	FILE *f = bench_open(o, "fig7.gp");
	unsigned int k, a;

	if (!f)
		return -EIO;
	fprintf(f, "# Fig. 7 of the HAGD paper, reproduced: average SLR per parameter.\n"
		   "set terminal pngcairo size 1400,1000 font ',11'\n"
		   "set output 'fig7.png'\n"
		   "set datafile separator ','\n"
		   "set key top left\nset grid\nset ylabel 'average SLR'\n"
		   "set multiplot layout 2,2 title 'Fig. 7 reproduced (random layered graphs)'\n");
	for (k = 0; k < NPARAM; k++) {
		fprintf(f, "set title '%s'\nset xlabel '%s'\n%s", bench_param_titles[k],
			bench_param_names[k],
			k == 0 || k == 3 ? "set logscale x 2\n" : "unset logscale x\n");
		fprintf(f, "set xtics (");
		for (a = 0; a < NVAL; a++)
			fprintf(f, "%s%g", a ? ", " : "", bench_values[k][a]);
		fprintf(f, ")\n");
		fprintf(f, "plot ");
		for (a = 0; a < NALG; a++)
			fprintf(f, "%s'slr_by_%s.csv' using 1:%u with linespoints lw 2 title '%s'",
				a ? ", " : "", bench_param_names[k], a + 2,
				th_sched_alg_name(a));
		fputc('\n', f);
	}
	fprintf(f, "unset multiplot\n");
	fclose(f);
	return bench_gnuplot(o, "fig7.gp");
}

static struct th_dag *bench_app_graph(const struct bench_opts *o,
				      const char *kind, unsigned int m)
{
	struct th_dag_diag diag;
	struct th_dag *dag;
	char path[1024];

	if (!strcmp(kind, "ge"))
		return th_dag_gen_gauss(m, bench_mix(o->seed, m, 7));
	if (!strcmp(kind, "fft"))
		return th_dag_gen_fft(m, bench_mix(o->seed, m, 8));
	snprintf(path, sizeof(path), "%s/%s.stg", o->stg_dir, kind);
	dag = th_dag_load(path, &diag);
	if (!dag && diag.line)
		fprintf(stderr, "\nthbench sched: %s:%u:%u: %s\n", path, diag.line,
			diag.col, diag.msg[0] ? diag.msg : strerror(errno));
	else if (!dag)	/* not read at all: no line to point at */
		fprintf(stderr, "\nthbench sched: %s: %s\n", path,
			diag.msg[0] ? diag.msg : strerror(errno));
	return dag;
}

/* The application graphs: average SLR over CCR x beta x #vm, per graph. */
static int bench_apps(const struct bench_opts *o)
{
	static const unsigned int ge_full[] = { 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
						 15, 16, 17, 18, 19, 20 };
	static const unsigned int ge_quick[] = { 5, 10, 15, 20 };
	static const unsigned int fft_sizes[] = { 2, 4, 8, 16, 32 };
	struct { const char *kind; unsigned int m; } rows[40];
	unsigned int nrows = 0, i, k, a, r, reps = o->quick ? 1 : 4;
	FILE *f;
	int ret = 0;

	for (i = 0; i < (o->quick ? 4 : 16); i++) {
		rows[nrows].kind = "ge";
		rows[nrows++].m = o->quick ? ge_quick[i] : ge_full[i];
	}
	for (i = 0; i < 5; i++) {
		rows[nrows].kind = "fft";
		rows[nrows++].m = fft_sizes[i];
	}
	/*
	 * robot and sparse exist only as files of the Standard Task Graph set,
	 * which does not ship with th_nic: without --stg-dir, the generated
	 * graphs alone, and a line that says what is left out.
	 */
	if (o->stg_dir) {
		rows[nrows].kind = "robot";
		rows[nrows++].m = 0;
		rows[nrows].kind = "sparse";
		rows[nrows++].m = 0;
	}

	bench_out("\n== Application graphs: average SLR over CCR x beta x #vm (%u cost draws each)\n",
		  reps);
	if (!o->stg_dir)
		bench_out("# robot and sparse (Standard Task Graph set) left out: --stg-dir DIR reads DIR/robot.stg and DIR/sparse.stg\n");
	bench_out("%-8s %5s", "graph", "tasks");
	for (a = 0; a < NALG; a++)
		bench_out(" %8s", th_sched_alg_name(a));
	bench_out("   HAGD vs HEFT   PETS  HCPFD\n");
	f = bench_open(o, "apps.csv");
	if (f) {
		fprintf(f, "graph,size,tasks");
		for (a = 0; a < NALG; a++)
			fprintf(f, ",%s", th_sched_alg_name(a));
		fprintf(f, "\n");
	}
	for (r = 0; r < nrows; r++) {
		struct th_dag *dag = bench_app_graph(o, rows[r].kind, rows[r].m);
		double sum[NALG] = { 0 }, n = 0;
		char label[32];

		if (!dag) {
			ret = -EINVAL;
			continue;
		}
		for (k = 0; k < NCASE * reps; k++) {
			unsigned int j = k % NCASE, c = j / 25, b = j / 5 % 5, p = j % 5;
			struct bench_res res[NALG];
			char why[256];
			int err;

			err = th_dag_assign_costs(dag, (unsigned int)bench_vm[p],
						  bench_ccr[c], bench_beta[b],
						  bench_mix(o->seed + k / NCASE, r, j));
			if (!err)
				err = bench_run_all(dag, res, why, sizeof(why));
			if (err) {
				fprintf(stderr, "\nthbench sched: %s %u: %s\n",
					rows[r].kind, rows[r].m, why);
				ret = -EINVAL;
				continue;
			}
			for (a = 0; a < NALG; a++)
				sum[a] += res[a].slr;
			n++;
		}
		if (rows[r].m)
			snprintf(label, sizeof(label), "%s%u", rows[r].kind, rows[r].m);
		else
			snprintf(label, sizeof(label), "%s", rows[r].kind);
		bench_out("%-8s %5u", label, th_dag_nreal(dag));
		for (a = 0; a < NALG; a++) {
			sum[a] /= n ? n : 1;
			bench_out(" %8.4f", sum[a]);
		}
		bench_out("   %11.2f%% %5.2f%% %5.2f%%\n",
			  bench_impr(sum[TH_SCHED_HEFT], sum[TH_SCHED_HAGD]),
			  bench_impr(sum[TH_SCHED_PETS], sum[TH_SCHED_HAGD]),
			  bench_impr(sum[TH_SCHED_HCPFD], sum[TH_SCHED_HAGD]));
		if (f) {
			fprintf(f, "%s,%u,%u", rows[r].kind, rows[r].m, th_dag_nreal(dag));
			for (a = 0; a < NALG; a++)
				fprintf(f, ",%.6f", sum[a]);
			fputc('\n', f);
		}
		th_dag_destroy(dag);
		fprintf(stderr, "\rthbench sched: application graphs %u/%u      ", r + 1, nrows);
		fflush(stderr);
	}
	fputc('\n', stderr);
	if (f)
		fclose(f);
	return ret;
}

static int bench_sweep(const struct bench_opts *o)
{
	struct bench_shared sh;
	struct bench_avg *av;
	pthread_t *tids;
	unsigned int i, t;
	int ret = 0;

	memset(&sh, 0, sizeof(sh));
	sh.o = o;
	sh.nitems = NVAL * o->graphs;
	sh.items = calloc(sh.nitems, sizeof(*sh.items));
	tids = calloc(o->threads, sizeof(*tids));
	av = malloc(sizeof(*av));
	if (!sh.items || !tids || !av) {
		free(sh.items);
		free(tids);
		free(av);
		return -ENOMEM;
	}
	/* largest graphs first, so that the threads finish together */
	for (i = 0; i < sh.nitems; i++) {
		sh.items[i].vi = NVAL - 1 - i / o->graphs;
		sh.items[i].g = i % o->graphs;
	}
	pthread_mutex_init(&sh.lock, NULL);
	clock_gettime(CLOCK_MONOTONIC, &sh.t0);
	bench_progress(&sh, "sweep");
	for (t = 0; t < o->threads; t++)
		if (pthread_create(&tids[t], NULL, bench_worker, &sh))
			break;
	if (!t)
		bench_worker(&sh);
	while (t-- > 0)
		pthread_join(tids[t], NULL);
	fputc('\n', stderr);
	pthread_mutex_destroy(&sh.lock);
	if (atomic_load(&sh.invalid)) {
		fprintf(stderr, "thbench sched: %u failed or invalid schedules; last: %s\n",
			atomic_load(&sh.invalid), sh.why);
		ret = -EINVAL;
	}
	bench_out("# sweep: %u graphs per #v, alpha %g, out-degree <= %u, seed %llu; %u schedules per algorithm, each validated\n",
		  o->graphs, o->alpha, o->outdeg, o->seed, sh.nitems * 125);
	bench_reduce(&sh, av);
	bench_report_sweep(o, av);
	if (bench_plot_fig7(o))
		ret = ret ? ret : -EIO;
	free(av);
	free(sh.items);
	free(tids);
	return ret;
}

/* Wall time of one algorithm on one graph, best of reps runs, in ms. */
static double bench_time(const struct th_dag *dag, enum th_sched_alg a,
			 unsigned int reps)
{
	double best = INFINITY;
	unsigned int i;

	for (i = 0; i < reps; i++) {
		double t = bench_now();
		struct th_sched *s = th_sched_run(dag, a);

		t = bench_now() - t;
		if (!s)
			return NAN;
		th_sched_destroy(s);
		best = fmin(best, t);
	}
	return best * 1e3;
}

/* Least-squares slope of log(time) against log(tasks), sizes >= from. */
static double bench_slope(const unsigned int *sizes, unsigned int ns,
			  const double *ms, unsigned int stride, unsigned int from)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, k = 0;
	unsigned int i;

	for (i = 0; i < ns; i++) {
		double x, y;

		if (sizes[i] < from || !(ms[i * stride] > 0))
			continue;
		x = log(sizes[i]);
		y = log(ms[i * stride]);
		sx += x;
		sy += y;
		sxx += x * x;
		sxy += x * y;
		k++;
	}
	return k > 1 ? (k * sxy - sx * sy) / (k * sxx - sx * sx) : NAN;
}

static int bench_scaling(const struct bench_opts *o)
{
	static const unsigned int sizes_full[] = { 100, 250, 500, 750, 1000, 2500, 5000, 10000 };
	static const unsigned int sizes_quick[] = { 100, 750, 2500 };
	static const unsigned int procs[] = { 8, 32, 64 };
	static const double ccrs[] = { 1.0, 5.0 };
	const unsigned int *sizes = o->quick ? sizes_quick : sizes_full;
	unsigned int ns = o->quick ? 3 : 8, n, pi, ci, a;
	/* ms[size][proc][ccr][alg] */
	double (*ms)[3][2][NALG];
	FILE *f, *series[3][2] = { { NULL } };
	char name[64];
	int ret = 0;

	ms = calloc(ns, sizeof(*ms));
	if (!ms)
		return -ENOMEM;
	bench_out("\n== Scaling: wall time per schedule (ms, best of several runs), random graphs (alpha %g, out-degree <= %u), beta 1.0\n",
		  o->alpha, o->outdeg);
	f = bench_open(o, "scaling.csv");
	if (f) {
		fprintf(f, "tasks,procs,ccr");
		for (a = 0; a < NALG; a++)
			fprintf(f, ",%s", th_sched_alg_name(a));
		fputc('\n', f);
	}
	for (pi = 0; pi < 3; pi++)
		for (ci = 0; ci < 2; ci++) {
			snprintf(name, sizeof(name), "scaling_p%u_ccr%g.dat",
				 procs[pi], ccrs[ci]);
			series[pi][ci] = bench_open(o, name);
		}
	bench_out("%7s %5s %5s", "tasks", "procs", "ccr");
	for (a = 0; a < NALG; a++)
		bench_out(" %9s", th_sched_alg_name(a));
	bench_out("\n");
	for (n = 0; n < ns; n++) {
		struct th_dag_gen_params gp = {
			.ntasks = sizes[n], .alpha = o->alpha, .outdeg = o->outdeg,
			.seed = bench_mix(o->seed, sizes[n], 99),
		};
		struct th_dag *dag = th_dag_gen_random(&gp);
		unsigned int reps = sizes[n] <= 1000 ? 7 : 3;

		if (!dag) {
			ret = -errno;
			break;
		}
		for (pi = 0; pi < 3; pi++) {
			for (ci = 0; ci < 2; ci++) {
				FILE *sf = series[pi][ci];

				ret = th_dag_assign_costs(dag, procs[pi], ccrs[ci], 1.0, 5);
				if (ret)
					break;
				bench_out("%7u %5u %5.1f", sizes[n], procs[pi], ccrs[ci]);
				if (f)
					fprintf(f, "%u,%u,%g", sizes[n], procs[pi], ccrs[ci]);
				if (sf)
					fprintf(sf, "%u", sizes[n]);
				for (a = 0; a < NALG; a++) {
					double t = bench_time(dag, a, reps);

					ms[n][pi][ci][a] = t;
					bench_out(" %9.3f", t);
					if (f)
						fprintf(f, ",%.4f", t);
					if (sf)
						fprintf(sf, " %.4f", t);
				}
				bench_out("\n");
				if (f)
					fputc('\n', f);
				if (sf)
					fputc('\n', sf);
				fprintf(stderr, "\rthbench sched: scaling %u tasks x %u procs      ",
					sizes[n], procs[pi]);
				fflush(stderr);
			}
		}
		th_dag_destroy(dag);
		if (ret)
			break;
	}
	fputc('\n', stderr);
	if (f)
		fclose(f);
	for (pi = 0; pi < 3; pi++)
		for (ci = 0; ci < 2; ci++)
			if (series[pi][ci])
				fclose(series[pi][ci]);
	if (!ret) {
		bench_out("\nexponent b in time ~ tasks^b (least squares over %u..%u tasks):\n%-14s",
			  o->quick ? sizes[0] : 1000, sizes[ns - 1], "");
		for (a = 0; a < NALG; a++)
			bench_out(" %7s", th_sched_alg_name(a));
		bench_out("\n");
		for (pi = 0; pi < 3; pi++)
			for (ci = 0; ci < 2; ci++) {
				bench_out("p %2u, CCR %3g ", procs[pi], ccrs[ci]);
				for (a = 0; a < NALG; a++)
					bench_out(" %7.2f",
						  bench_slope(sizes, ns, &ms[0][pi][ci][a],
							      3 * 2 * NALG,
							      o->quick ? 0 : 1000));
				bench_out("\n");
			}
	}
	free(ms);
	if (ret)
		return ret;
	f = bench_open(o, "scaling.gp");
	if (!f)
		return -EIO;
	fprintf(f, "# Scaling of the schedulers: wall time per schedule against the number of tasks.\n"
		   "set terminal pngcairo size 1500,900 font ',11'\n"
		   "set output 'scaling.png'\n"
		   "set logscale xy\nset grid\nset key top left\n"
		   "set xlabel 'tasks'\nset ylabel 'ms per schedule'\n"
		   "set multiplot layout 2,3 title 'Scheduling time per graph (random layered graphs, beta 1)'\n");
	for (ci = 0; ci < 2; ci++)
		for (pi = 0; pi < 3; pi++) {
			fprintf(f, "set title '%u processors, CCR %g'\nplot ", procs[pi], ccrs[ci]);
			for (a = 0; a < NALG; a++)
				fprintf(f, "%s'scaling_p%u_ccr%g.dat' using 1:%u with linespoints lw 2 title '%s'",
					a ? ", " : "", procs[pi], ccrs[ci], a + 2,
					th_sched_alg_name(a));
			fprintf(f, ", x/1e2 dashtype 2 lc 'gray' title 'n (reference)', x*x/1e5 dashtype 3 lc 'black' title 'n^2 (reference)'\n");
		}
	fprintf(f, "unset multiplot\n");
	fclose(f);
	return bench_gnuplot(o, "scaling.gp") ? -EIO : 0;
}

/*
 * Scaling to large placements: every algorithm, one run each, up to 10^6
 * tasks, on the two shapes that stress the insertion search and the
 * listing: independent tasks on 2 processors (HEFT's worst case: every
 * timeline packed, so each task once walked all of it) and random layered
 * graphs on 8 processors (CCR 1).  Table, CSV, PNG.
 */
static struct th_dag *bench_independent(unsigned int n)
{
	struct th_dag *dag = th_dag_create(n);
	unsigned int i;

	if (!dag || th_dag_set_procs(dag, 2))
		goto err;
	for (i = 0; i < n; i++)
		if (th_dag_set_cost(dag, i, 0, 1 + (i * 7919u) % 13) ||
		    th_dag_set_cost(dag, i, 1, 1 + (i * 104729u) % 17))
			goto err;
	if (!th_dag_finalize(dag))
		return dag;
err:
	th_dag_destroy(dag);
	return NULL;
}

static int bench_scaling_large(const struct bench_opts *o)
{
	static const unsigned int sizes_full[] = { 1000, 10000, 100000, 300000, 1000000 };
	static const unsigned int sizes_quick[] = { 1000, 10000, 100000 };
	static const char *const shape[2] = { "independent, 2 procs",
					      "layered, 8 procs, CCR 1" };
	const unsigned int *sizes = o->quick ? sizes_quick : sizes_full;
	unsigned int ns = o->quick ? 3 : 5, n, k, a;
	double ms[5][2][NALG];
	FILE *f, *dat[2];
	char name[64];

	bench_out("\n== Scaling to large placements: wall time of one schedule (ms)\n");
	f = bench_open(o, "scaling_large.csv");
	if (f) {
		fprintf(f, "shape,tasks");
		for (a = 0; a < NALG; a++)
			fprintf(f, ",%s", th_sched_alg_name(a));
		fputc('\n', f);
	}
	for (k = 0; k < 2; k++) {
		snprintf(name, sizeof(name), "scaling_large_%u.dat", k);
		dat[k] = bench_open(o, name);
	}
	bench_out("%-26s %8s", "shape", "tasks");
	for (a = 0; a < NALG; a++)
		bench_out(" %10s", th_sched_alg_name(a));
	bench_out("\n");
	for (k = 0; k < 2; k++) {
		for (n = 0; n < ns; n++) {
			struct th_dag_gen_params gp = {
				.ntasks = sizes[n], .alpha = o->alpha,
				.outdeg = o->outdeg,
				.seed = bench_mix(o->seed, sizes[n], 77),
			};
			struct th_dag *dag = k ? th_dag_gen_random(&gp) :
					     bench_independent(sizes[n]);

			if (!dag || (k && th_dag_assign_costs(dag, 8, 1.0, 1.0, 5))) {
				th_dag_destroy(dag);
				return -ENOMEM;
			}
			bench_out("%-26s %8u", shape[k], sizes[n]);
			if (f)
				fprintf(f, "%s,%u", k ? "layered" : "independent",
					sizes[n]);
			if (dat[k])
				fprintf(dat[k], "%u", sizes[n]);
			for (a = 0; a < NALG; a++) {
				fprintf(stderr, "\rthbench sched: %s, %u tasks, %s      ",
					shape[k], sizes[n], th_sched_alg_name(a));
				ms[n][k][a] = bench_time(dag, a, 1);
				bench_out(" %10.1f", ms[n][k][a]);
				if (f)
					fprintf(f, ",%.3f", ms[n][k][a]);
				if (dat[k])
					fprintf(dat[k], " %.3f", ms[n][k][a]);
			}
			bench_out("\n");
			if (f)
				fputc('\n', f);
			if (dat[k])
				fputc('\n', dat[k]);
			th_dag_destroy(dag);
		}
	}
	fputc('\n', stderr);
	bench_out("\nexponent b in time ~ tasks^b (least squares from 10,000 tasks):\n%-26s", "");
	for (a = 0; a < NALG; a++)
		bench_out(" %10s", th_sched_alg_name(a));
	bench_out("\n");
	for (k = 0; k < 2; k++) {
		bench_out("%-26s", shape[k]);
		for (a = 0; a < NALG; a++)
			bench_out(" %10.2f", bench_slope(sizes, ns, &ms[0][k][a],
							  2 * NALG, 10000));
		bench_out("\n");
	}
	if (f)
		fclose(f);
	for (k = 0; k < 2; k++)
		if (dat[k])
			fclose(dat[k]);
	f = bench_open(o, "scaling_large.gp");
	if (!f)
		return -EIO;
	fprintf(f, "set terminal pngcairo size 1400,600 font ',11'\n"
		   "set output 'scaling_large.png'\n"
		   "set logscale xy\nset grid\nset key top left\n"
		   "set xlabel 'tasks'\nset ylabel 'ms per schedule'\n"
		   "set multiplot layout 1,2 title 'Scheduling time up to 10^6 tasks'\n");
	for (k = 0; k < 2; k++) {
		fprintf(f, "set title '%s'\nplot ", shape[k]);
		for (a = 0; a < NALG; a++)
			fprintf(f, "%s'scaling_large_%u.dat' using 1:%u with linespoints lw 2 title '%s'",
				a ? ", " : "", k, a + 2, th_sched_alg_name(a));
		fprintf(f, ", x/1e3 dashtype 2 lc 'gray' title 'n (reference)'\n");
	}
	fprintf(f, "unset multiplot\n");
	fclose(f);
	return bench_gnuplot(o, "scaling_large.gp") ? -EIO : 0;
}

/* The 750 x 32 figure: median of many runs per algorithm. */
static void bench_speed_750(const struct bench_opts *o)
{
	struct th_dag_gen_params gp = { .ntasks = 750, .alpha = o->alpha,
					.outdeg = o->outdeg, .seed = o->seed };
	struct th_dag *dag = th_dag_gen_random(&gp);
	unsigned int a, i, ci;

	if (!dag)
		return;
	bench_out("\n== 750 tasks on 32 processors: median wall time of 21 runs (ms)\n");
	for (ci = 0; ci < 3; ci++) {
		double ccr = ci == 0 ? 0.1 : ci == 1 ? 1.0 : 5.0;

		if (th_dag_assign_costs(dag, 32, ccr, 1.0, 3))
			break;
		bench_out("CCR %-4g", ccr);
		for (a = 0; a < NALG; a++) {
			double t[21], x;
			unsigned int j;

			for (i = 0; i < 21; i++)
				t[i] = bench_time(dag, a, 1);
			for (i = 1; i < 21; i++)
				for (j = i; j > 0 && t[j - 1] > t[j]; j--) {
					x = t[j];
					t[j] = t[j - 1];
					t[j - 1] = x;
				}
			bench_out("  %s %.3f", th_sched_alg_name(a), t[10]);
		}
		bench_out("\n");
	}
	th_dag_destroy(dag);
}

static void bench_usage(FILE *f)
{
	fprintf(f,
		"usage: thbench sched [OPTIONS]\n"
		"\n"
		"Reproduces the HAGD paper's evaluation: the Table 4 sweep (#v, CCR, beta,\n"
		"#vm, full factorial) on random layered graphs, with HEFT, PETS, HCPFD,\n"
		"HAGD, hagd+, PEFT and the portfolio (the least makespan of the others);\n"
		"average SLR per parameter value, HAGD's improvement, how often HAGD kept\n"
		"HEFT's schedule and which algorithm the portfolio took, Table 5\n"
		"makespans, Table 6 counts, the application graphs, CSV files and the\n"
		"four panels of Fig. 7 (gnuplot).  Every schedule is validated.\n"
		"\n"
		"  -n, --graphs N     random graphs per #v (default 100; --quick 3)\n"
		"  -q, --quick        a small run (under a minute)\n"
		"  -o, --out DIR      output directory (default ./thbench-sched)\n"
		"      --scaling      time the algorithms up to 10,000 tasks x 64 processors\n"
		"      --scaling-large  time one schedule of each algorithm up to 10^6\n"
		"                     tasks: independent tasks on 2 processors and\n"
		"                     random layered graphs on 8 (--quick: 10^5)\n"
		"                     instead of the sweep\n"
		"      --no-apps      skip the application graphs\n"
		"      --seed N       seed (default 1)\n"
		"      --alpha A      shape of random graphs (default 1.0)\n"
		"      --outdeg D     maximum out-degree (default 4)\n"
		"  -j, --threads N    worker threads (default 2)\n"
		"      --stg-dir DIR  also the STG set's robot and sparse graphs, from\n"
		"                     DIR/robot.stg and DIR/sparse.stg (default: only\n"
		"                     the generated graphs, which need no file)\n"
		"  -h, --help         this text\n"
		"\n"
		"A progress line goes to stderr.  Exit status: 0 ok, 1 failure (an invalid\n"
		"schedule, a missing STG file), 2 usage error.\n");
}

static int bench_num(const char *arg, const char *what, double lo, double hi,
		     double *out)
{
	char *end;

	errno = 0;
	*out = strtod(arg, &end);
	if (errno || *end || *out < lo || *out > hi) {
		fprintf(stderr, "thbench sched: %s: expected a number from %g to %g, got '%s'\n",
			what, lo, hi, arg);
		return -EINVAL;
	}
	return 0;
}

int thbench_sched_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "graphs",	required_argument, NULL, 'n' },
		{ "quick",	no_argument,	   NULL, 'q' },
		{ "out",	required_argument, NULL, 'o' },
		{ "scaling",	no_argument,	   NULL, 'S' },
		{ "scaling-large", no_argument,	   NULL, 'L' },
		{ "no-apps",	no_argument,	   NULL, 'N' },
		{ "seed",	required_argument, NULL, 's' },
		{ "alpha",	required_argument, NULL, 'A' },
		{ "outdeg",	required_argument, NULL, 'D' },
		{ "threads",	required_argument, NULL, 'j' },
		{ "stg-dir",	required_argument, NULL, 'H' },
		{ "help",	no_argument,	   NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bench_opts o = {
		.graphs = 0, .outdir = "thbench-sched", .seed = 1, .alpha = 1.0,
		.outdeg = 4, .threads = 2, .apps = true,
	};
	char path[1024];
	double x, t0 = bench_now();
	int c, ret = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "n:qo:j:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (bench_num(optarg, "--graphs", 1, 10000, &x))
				return 2;
			o.graphs = (unsigned int)x;
			break;
		case 'q':
			o.quick = true;
			break;
		case 'o':
			o.outdir = optarg;
			break;
		case 'L':
			o.scaling_large = true;
			break;
		case 'S':
			o.scaling = true;
			break;
		case 'N':
			o.apps = false;
			break;
		case 's':
			if (bench_num(optarg, "--seed", 0, 1e18, &x))
				return 2;
			o.seed = (unsigned long long)x;
			break;
		case 'A':
			if (bench_num(optarg, "--alpha", 0.01, 100, &o.alpha))
				return 2;
			break;
		case 'D':
			if (bench_num(optarg, "--outdeg", 1, 1000, &x))
				return 2;
			o.outdeg = (unsigned int)x;
			break;
		case 'j':
			if (bench_num(optarg, "--threads", 1, 256, &x))
				return 2;
			o.threads = (unsigned int)x;
			break;
		case 'H':
			o.stg_dir = optarg;
			break;
		case 'h':
			bench_usage(stdout);
			return 0;
		default:
			bench_usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "thbench sched: unexpected argument '%s'\n", argv[optind]);
		bench_usage(stderr);
		return 2;
	}
	if (!o.graphs)
		o.graphs = o.quick ? 3 : 100;
	if (mkdir(o.outdir, 0777) && errno != EEXIST) {
		fprintf(stderr, "thbench sched: %s: %s\n", o.outdir, strerror(errno));
		return 1;
	}
	snprintf(path, sizeof(path), "%s/%s", o.outdir,
		 o.scaling_large ? "scaling_large.txt" :
		 o.scaling ? "scaling.txt" : "summary.txt");
	bench_summary = fopen(path, "w");
	if (!bench_summary) {
		fprintf(stderr, "thbench sched: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (o.scaling_large) {
		ret = bench_scaling_large(&o);
	} else if (o.scaling) {
		bench_speed_750(&o);
		ret = bench_scaling(&o);
	} else {
		ret = bench_sweep(&o);
		if (o.apps && bench_apps(&o))
			ret = ret ? ret : -EINVAL;
	}
	bench_out("\n# done in %.1f s; results in %s/\n", bench_now() - t0, o.outdir);
	fclose(bench_summary);
	bench_summary = NULL;
	return ret ? 1 : 0;
}
