// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bench_overlap.c - 'thbench overlap': what a rank's host gains from the
 * offload, at one N (default 16), ranks as threads, beside MPICH:
 *
 *   overlap  as the OSU micro-benchmarks measure non-blocking collectives:
 *            the pure latency t_pure; then start, compute for t_pure, wait
 *            (t_total); overlap % = 100 * (1 - (t_total - t_compute) /
 *            t_pure).  The host-driven p2p tree cannot progress while its
 *            host computes: it computes, then runs.  MPICH: MPI_Iallreduce.
 *   noise    the same latency with a process spinning on CPU 0 beside the
 *            ranks; slowdown = that latency / t_pure.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_ranks.h"
#include "thbench.h"

#define OV_MAX_SIZES	8

enum ov_variant { OV_OFFLOAD, OV_P2P, OV_MPI, OV_NVARIANT };

static const char *const ov_name[OV_NVARIANT] = {
	"offload", "p2p-tree", "mpich",
};

struct ov_result {
	struct br_stat pure, compute, total, noisy;
	double overlap;		/* percent; NAN-free: valid when total.ok */
};

struct ov_opts {
	unsigned int n, radix;
	uint64_t sizes[OV_MAX_SIZES];
	unsigned int nsizes;
	int reps, warmup;
	const char *provider, *out;
	bool mpi;
};

static void ov_usage(FILE *f)
{
	fprintf(f,
		"usage: thbench overlap [--nodes N] [--sizes LIST] [--radix K]\n"
		"                       [--reps R] [--provider P] [--out DIR] [--no-mpi]\n\n"
		"Allreduce (double sum) with ranks as threads, at one N, for the\n"
		"offload, the host-driven p2p tree and MPICH (processes):\n"
		"  latency   median over the reps of the job's span: the first rank's\n"
		"            start to the last rank's completion (counts the waits\n"
		"            of ranks that share a core)\n"
		"  overlap   start, compute, wait (OSU style): 100 * (1 - (t_total -\n"
		"            t_compute) / t_pure), t_compute the compute alone; each rank\n"
		"            computes t_pure x cores / N of CPU time (t_pure with a core\n"
		"            each), so that the compute takes about t_pure; the p2p tree\n"
		"            computes first and then runs (it cannot progress alone);\n"
		"            the compute alone and with the Allreduce take turns rep by\n"
		"            rep, so that both see the same machine; MPICH uses\n"
		"            MPI_Iallreduce\n"
		"  noise     latency with a CPU hog pinned to CPU 0 beside the ranks;\n"
		"            slowdown = noisy / pure latency\n"
		"Defaults: --nodes 16 --sizes 8,64K --radix 4 --reps 100.  Output: a\n"
		"table, DIR/overlap.csv and DIR/overlap.png (gnuplot); DIR defaults\n"
		"to build/bench/overlap in the source tree.\n");
}

static int ov_parse(int argc, char **argv, struct ov_opts *o)
{
	int i, ret = 0;

	*o = (struct ov_opts){ .n = 16, .radix = 4, .sizes = { 8, 65536 },
			       .nsizes = 2, .reps = 100, .warmup = 10,
			       .mpi = true };
	for (i = 1; !ret && i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			ov_usage(stdout);
			return 1;
		} else if (!strcmp(a, "--no-mpi")) {
			o->mpi = false;
		} else if (!v) {
			ret = -EINVAL;
		} else if (!strcmp(a, "--nodes")) {
			o->n = atoi(v);
			ret = o->n < 2 || o->n > 256 ? -EINVAL : 0;
			i++;
		} else if (!strcmp(a, "--radix")) {
			o->radix = atoi(v);
			ret = o->radix < 2 || o->radix > 64 ? -EINVAL : 0;
			i++;
		} else if (!strcmp(a, "--reps")) {
			o->reps = atoi(v);
			ret = o->reps < 1 ? -EINVAL : 0;
			o->warmup = o->reps / 10 > 3 ? o->reps / 10 : 3;
			i++;
		} else if (!strcmp(a, "--provider")) {
			o->provider = v;
			i++;
		} else if (!strcmp(a, "--out")) {
			o->out = v;
			i++;
		} else if (!strcmp(a, "--sizes")) {
			ret = br_parse_list(v, o->sizes, OV_MAX_SIZES, &o->nsizes,
					    0, 1ULL << 26);
			i++;
		} else {
			ret = -EINVAL;
		}
	}
	return ret;
}

/*
 * The compute per rank: CPU time that, spread over the cores, takes about
 * the pure latency of wall time (OSU gives each rank a core of its own;
 * here up to 64 ranks share 2).
 */
static double ov_work_us(unsigned int n, double pure_us)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);

	return cores > 0 && n > (unsigned long)cores ? pure_us * cores / n :
	       pure_us;
}

/* One NIC variant: pure, compute alone, both, with the hog. */
static void ov_run_nic(const struct ov_opts *o, enum br_variant v,
		       uint64_t bytes, struct ov_result *r)
{
	struct br_job j = {
		.n = o->n, .v = v, .provider = o->provider, .reps = o->reps,
		.warmup = o->warmup, .span = true,
		.attr = { .kind = TH_COLL_ALLREDUCE, .op = TH_NIC_ALU_SUM,
			  .dtype = TH_NIC_DT_FLOAT64, .count = bytes / 8,
			  .radix = o->radix },
	};
	pid_t hog;

	if (br_run_threads(&j, &r->pure))
		return;
	/* the compute alone and with the Allreduce, taking turns */
	j.compute_us = ov_work_us(o->n, r->pure.med);
	if (!br_run_pair(&j, &r->compute, &r->total) && r->compute.ok &&
	    r->total.ok)
		r->overlap = 100 * (1 - (r->total.med - r->compute.med) /
				    r->pure.med);
	j.compute_us = 0;
	hog = br_hog_start(0);
	br_run_threads(&j, &r->noisy);
	br_hog_stop(hog);
}

static void ov_run_mpi(const char *bin, const struct ov_opts *o,
		       struct ov_result *r)
{
	struct br_stat pure[OV_MAX_SIZES], noisy[OV_MAX_SIZES];
	double ovl[3 * OV_MAX_SIZES];
	unsigned int i;
	int reps = o->reps < 20 ? o->reps : 20;
	pid_t hog;

	br_mpi_run(bin, "overlap", o->n, reps, 2, o->sizes, o->nsizes, pure, ovl,
		   NULL);
	hog = br_hog_start(0);
	br_mpi_run(bin, "latency", o->n, reps, 2, o->sizes, o->nsizes, noisy,
		   NULL, NULL);
	br_hog_stop(hog);
	for (i = 0; i < o->nsizes; i++) {
		struct ov_result *m = &r[i * OV_NVARIANT];

		m->pure = pure[i];
		m->noisy = noisy[i];
		if (!pure[i].ok)
			continue;
		/* medians only, from the MPI program */
		m->overlap = ovl[3 * i];
		m->compute = (struct br_stat){ .ok = true, .med = ovl[3 * i + 1],
					       .p10 = ovl[3 * i + 1],
					       .p90 = ovl[3 * i + 1] };
		m->total = (struct br_stat){ .ok = true, .med = ovl[3 * i + 2],
					     .p10 = ovl[3 * i + 2],
					     .p90 = ovl[3 * i + 2] };
	}
}

static void ov_cell(const struct br_stat *st, char *buf, size_t len)
{
	if (st->ok)
		snprintf(buf, len, "%.1f [%.1f-%.1f]", st->med, st->p10, st->p90);
	else
		snprintf(buf, len, "%s", st->why ? st->why : "-");
}

static void ov_plot(const char *out, const struct ov_opts *o,
		    const struct ov_result *res)
{
	char dat[4096], gp[4096], png[4096], cmd[12288];
	unsigned int i, v;
	FILE *f;

	if (snprintf(dat, sizeof(dat), "%s/overlap_plot.dat", out) >= (int)sizeof(dat) ||
	    snprintf(gp, sizeof(gp), "%s/overlap.gp", out) >= (int)sizeof(gp) ||
	    snprintf(png, sizeof(png), "%s/overlap.png", out) >= (int)sizeof(png))
		return;
	f = fopen(dat, "w");
	if (!f)
		return;
	fprintf(f, "# label overlap%% slowdown\n");
	for (i = 0; i < o->nsizes; i++)
		for (v = 0; v < OV_NVARIANT; v++) {
			const struct ov_result *r = &res[i * OV_NVARIANT + v];

			fprintf(f, "\"%s %lluB\" %.1f %.2f\n", ov_name[v],
				(unsigned long long)o->sizes[i],
				r->total.ok ? r->overlap : 0,
				r->noisy.ok && r->pure.ok && r->pure.med > 0 ?
				r->noisy.med / r->pure.med : 0);
		}
	fclose(f);
	f = fopen(gp, "w");
	if (!f)
		return;
	fprintf(f,
		"set terminal png size 1000,600\nset output '%s'\n"
		"set title 'Allreduce, N = %u ranks as threads (MPICH: processes): overlap and noise'\n"
		"set style data histograms\nset style fill solid 0.8\n"
		"set xtics rotate by -30\nset ytics nomirror\nset y2tics\n"
		"set ylabel 'overlap (%%)'\nset y2label 'slowdown under noise (x)'\n"
		"set yrange [*:100]\nset y2range [0:*]\nset grid y\n"
		"plot '%s' using 2:xtic(1) title 'overlap %%', '' using 3 axes x1y2 title 'noise slowdown'\n",
		png, o->n, dat);
	fclose(f);
	if (snprintf(cmd, sizeof(cmd), "gnuplot '%s' >/dev/null 2>&1", gp) <
	    (int)sizeof(cmd) && !system(cmd))
		fprintf(stderr, "thbench overlap: plot %s\n", png);
}

int thbench_overlap_main(int argc, char **argv)
{
	char outbuf[4096], binbuf[4096], path[4096];
	const char *mpi_bin = NULL, *why = "off";
	struct ov_result *res;
	unsigned int i, v;
	struct ov_opts o;
	FILE *csv = NULL;
	int ret;

	ret = ov_parse(argc, argv, &o);
	if (ret) {
		if (ret < 0)
			ov_usage(stderr);
		return ret < 0 ? 2 : 0;
	}
	if (!o.out)
		o.out = br_default_out("overlap", outbuf, sizeof(outbuf));
	if (br_mkdir_p(o.out))
		o.out = NULL;
	res = calloc(o.nsizes * OV_NVARIANT, sizeof(*res));
	if (!res)
		return 1;
	for (i = 0; i < o.nsizes * OV_NVARIANT; i++)
		res[i].pure.why = res[i].total.why = res[i].noisy.why = "-";
	if (o.mpi && o.out)
		mpi_bin = br_mpi_build(o.out, binbuf, sizeof(binbuf), &why);
	for (i = 0; i < o.nsizes; i++) {
		br_progress("size %llu: offload", (unsigned long long)o.sizes[i]);
		ov_run_nic(&o, BR_OFFLOAD, o.sizes[i], &res[i * OV_NVARIANT + OV_OFFLOAD]);
		br_progress("size %llu: p2p tree", (unsigned long long)o.sizes[i]);
		ov_run_nic(&o, BR_P2P, o.sizes[i], &res[i * OV_NVARIANT + OV_P2P]);
	}
	if (mpi_bin) {
		br_progress("mpich: mpiexec -n %u", o.n);
		ov_run_mpi(mpi_bin, &o, &res[OV_MPI]);
	}
	br_progress("%s", "");
	if (o.out && snprintf(path, sizeof(path), "%s/overlap.csv", o.out) <
	    (int)sizeof(path))
		csv = fopen(path, "w");
	if (csv)
		fprintf(csv, "n,bytes,radix,variant,latency_us,compute_us,total_us,overlap_pct,noisy_us,slowdown\n");
	printf("# Allreduce, double sum, N = %u, radix %u: ranks as threads on %ld cores"
	       " (mpich: processes, MPI_Iallreduce)\n", o.n, o.radix,
	       sysconf(_SC_NPROCESSORS_ONLN));
	printf("# latency, compute alone and start+compute+wait in us, each the job's span\n"
	       "#   (first start to last completion): median [p10-p90];\n"
	       "# overlap %% = 100 (1 - (total - compute) / latency); compute: CPU time\n"
	       "#   latency x cores / N per rank, measured alone\n"
	       "# noisy: latency with a CPU hog on CPU 0; slowdown = noisy / latency\n");
	if (o.mpi && !mpi_bin)
		printf("# MPICH: not available (%s)\n", why);
	printf("%4s %6s %-9s | %-22s %-22s %-22s %8s | %-22s %8s\n", "N",
	       "bytes", "variant", "latency", "compute", "start+compute+wait",
	       "overlap", "noisy", "slowdown");
	for (i = 0; i < o.nsizes; i++)
		for (v = 0; v < OV_NVARIANT; v++) {
			const struct ov_result *r = &res[i * OV_NVARIANT + v];
			char c1[64], c2[64], c3[64], c4[64], ov[16] = "-",
			     sl[16] = "-";

			ov_cell(&r->pure, c1, sizeof(c1));
			ov_cell(&r->compute, c4, sizeof(c4));
			ov_cell(&r->total, c2, sizeof(c2));
			ov_cell(&r->noisy, c3, sizeof(c3));
			if (r->total.ok)
				snprintf(ov, sizeof(ov), "%.1f%%", r->overlap);
			if (r->noisy.ok && r->pure.ok && r->pure.med > 0)
				snprintf(sl, sizeof(sl), "%.2fx",
					 r->noisy.med / r->pure.med);
			printf("%4u %6llu %-9s | %-22s %-22s %-22s %8s | %-22s %8s\n",
			       o.n, (unsigned long long)o.sizes[i], ov_name[v],
			       c1, c4, c2, ov, c3, sl);
			if (csv && r->pure.ok)
				fprintf(csv, "%u,%llu,%u,%s,%.3f,%.3f,%.3f,%.1f,%.3f,%.3f\n",
					o.n, (unsigned long long)o.sizes[i],
					o.radix, ov_name[v], r->pure.med,
					r->compute.ok ? r->compute.med : 0,
					r->total.ok ? r->total.med : 0,
					r->total.ok ? r->overlap : 0,
					r->noisy.ok ? r->noisy.med : 0,
					r->noisy.ok && r->pure.med > 0 ?
					r->noisy.med / r->pure.med : 0);
		}
	if (csv) {
		fclose(csv);
		fprintf(stderr, "thbench overlap: csv %s\n", path);
	}
	if (o.out && br_have("gnuplot"))
		ov_plot(o.out, &o, res);
	free(res);
	return 0;
}
