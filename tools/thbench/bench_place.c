// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bench_place.c - 'thbench place': random multi-job workloads placed by
 * every scheduling algorithm and by the two baselines (each job on its own
 * tree; the jobs one after another), predicted by the fabric cost model
 * and measured on a provider, side by side: mean makespans, the model's
 * error, and HAGD's improvement over the others.
 *
 * A workload: J collective jobs on N nodes; each an Allreduce (60%), a
 * Reduce (20%) or a Broadcast (20%) over M random nodes, root among them,
 * of a size drawn from the list, radix 2 or 4; the nodes' ALU rates are
 * the model's times a factor drawn from [1 - beta/2, 1 + beta/2].
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_ranks.h"
#include "place_measure.h"
#include <thverbs/place.h>
#include "thbench.h"
#include <thverbs/verbs.h>
#include <thverbs/coll.h>

#define PL_MAX_LIST	16
#define PL_NVAR		(TH_SCHED_NR_ALGS + 2)	/* + trees, sequential */
#define PL_TIMEOUT_NS	20000000000ULL

struct pl_opts {
	unsigned int nodes;
	uint64_t jobs[PL_MAX_LIST], members[PL_MAX_LIST], sizes[PL_MAX_LIST];
	unsigned int njobs, nmembers, nsizes;
	double beta;
	unsigned int seeds;
	int reps;
	const char *provider, *out, *model;
	bool measure;
	bool timed;		/* the in-process provider on the model's clock */
	bool tianhe;		/* the offload/p2p comparison, modelled */
	unsigned int scale;	/* > 0: one timed Allreduce over this many nodes */
};

static const char *pl_var_name(unsigned int v)
{
	return v < TH_SCHED_NR_ALGS ? th_sched_alg_name(v) :
	       v == TH_SCHED_NR_ALGS ? "trees" : "sequential";
}

static void pl_usage(FILE *f)
{
	fprintf(f,
		"usage: thbench place [--nodes N] [--jobs LIST] [--members LIST]\n"
		"                     [--sizes LIST] [--beta B] [--seeds S] [--reps R]\n"
		"                     [--model FILE] [--provider P] [--no-measure]\n"
		"                     [--timed] [--out DIR]\n"
		"       thbench place --scale N [--timed]\n"
		"       thbench place --tianhe\n\n"
		"Random multi-job workloads (J collectives of M members each on N nodes,\n"
		"Allreduce 60%%, Reduce 20%%, Broadcast 20%%, sizes from the list, node\n"
		"ALU rates spread by beta) placed by HEFT, PETS, HCPFD, HAGD, hagd+,\n"
		"PEFT and the portfolio (the best of them), and by the baselines\n"
		"'trees' (each job on its own k-nomial tree) and 'sequential' (the\n"
		"jobs one after another).  Per (J, M): the mean\n"
		"predicted makespan over the seeds, the mean measured one (the placement\n"
		"compiled into chains and run on the provider: median of R rounds), the\n"
		"model's mean error |measured - predicted| / measured, and HAGD's\n"
		"improvement over each (100 (X - HAGD) / X, on the means).\n"
		"The model is measured on the provider first (th_place_calibrate), unless\n"
		"--model gives one.  --timed runs the in-process provider on the model's\n"
		"virtual clock (th_place_timed): 'measured' is then the virtual makespan.\n"
		"--scale N: one Allreduce of 8 KiB over N nodes (2 to 4096, radix 4),\n"
		"placed on its tree and by HAGD, predicted, run, and the wall time it\n"
		"all took.  For many jobs at scale, see 'thbench placegen'.\n"
		"--tianhe: the source paper's comparison at N = 16: the offloaded\n"
		"Allreduce against the host-driven p2p tree, whose inner hosts wake up,\n"
		"reduce on the CPU and post; predicted, then run on the virtual clock\n"
		"with ranks as threads, each with its own host clock; then the timed\n"
		"ratio as the host's wake-up and post vary.  Parameters printed.\n"
		"Defaults: --nodes 16 --jobs 2,4,8 --members 4,8 --sizes 8K,64K\n"
		"  --beta 1.0 --seeds 5 --reps 20.  Output: a table, DIR/place.csv and\n"
		"DIR/place.png (gnuplot); DIR defaults to build/bench/place.\n");
}

static int pl_parse(int argc, char **argv, struct pl_opts *o)
{
	int i, ret = 0;

	*o = (struct pl_opts){ .nodes = 16, .jobs = { 2, 4, 8 }, .njobs = 3,
			       .members = { 4, 8 }, .nmembers = 2,
			       .sizes = { 8192, 65536 }, .nsizes = 2,
			       .beta = 1.0, .seeds = 5, .reps = 20,
			       .measure = true };
	for (i = 1; !ret && i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			pl_usage(stdout);
			return 1;
		} else if (!strcmp(a, "--no-measure")) {
			o->measure = false;
			continue;
		} else if (!strcmp(a, "--timed")) {
			o->timed = true;
			continue;
		} else if (!strcmp(a, "--tianhe")) {
			o->tianhe = true;
			continue;
		} else if (!v) {
			ret = -EINVAL;
		} else if (!strcmp(a, "--nodes")) {
			o->nodes = atoi(v);
			ret = o->nodes < 2 || o->nodes > 64 ? -EINVAL : 0;
		} else if (!strcmp(a, "--jobs")) {
			ret = br_parse_list(v, o->jobs, PL_MAX_LIST, &o->njobs, 1, 64);
		} else if (!strcmp(a, "--members")) {
			ret = br_parse_list(v, o->members, PL_MAX_LIST, &o->nmembers,
					    2, 64);
		} else if (!strcmp(a, "--sizes")) {
			ret = br_parse_list(v, o->sizes, PL_MAX_LIST, &o->nsizes, 8,
					    1 << 24);
		} else if (!strcmp(a, "--beta")) {
			o->beta = atof(v);
			ret = o->beta < 0 || o->beta > 1.9 ? -EINVAL : 0;
		} else if (!strcmp(a, "--seeds")) {
			o->seeds = atoi(v);
			ret = o->seeds < 1 ? -EINVAL : 0;
		} else if (!strcmp(a, "--reps")) {
			o->reps = atoi(v);
			ret = o->reps < 1 ? -EINVAL : 0;
		} else if (!strcmp(a, "--scale")) {
			o->scale = atoi(v);
			ret = o->scale < 2 || o->scale > TH_PLACE_MAX_NODES ?
			      -EINVAL : 0;
			if (ret)	/* the placer's limit, not the fabric's */
				fprintf(stderr, "thbench place: --scale takes 2 to %u nodes (TH_PLACE_MAX_NODES), got '%s'\n",
					TH_PLACE_MAX_NODES, v);
		} else if (!strcmp(a, "--model")) {
			o->model = v;
		} else if (!strcmp(a, "--provider")) {
			o->provider = v;
		} else if (!strcmp(a, "--out")) {
			o->out = v;
		} else {
			ret = -EINVAL;
		}
		i++;
	}
	for (i = 0; !ret && i < (int)o->nmembers; i++)
		if (o->members[i] > o->nodes)
			ret = -EINVAL;
	return ret;
}

static uint64_t pl_rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* One random job; added to @j (and alone to @one, for the baseline). */
static int pl_job(struct th_place_jobs *j, uint64_t *seed, unsigned int k,
		  unsigned int members, const struct pl_opts *o)
{
	unsigned int mem[64], i, r = pl_rng(seed) % 10, pick, tmp, nodes[64];
	enum th_place_job_kind kind = r < 6 ? TH_PLACE_ALLREDUCE :
				      r < 8 ? TH_PLACE_REDUCE : TH_PLACE_BCAST;
	uint64_t bytes = o->sizes[pl_rng(seed) % o->nsizes] & ~7ULL;
	char name[16];

	for (i = 0; i < o->nodes; i++)
		nodes[i] = i;
	for (i = 0; i < members; i++) {	/* a partial Fisher-Yates */
		pick = i + pl_rng(seed) % (o->nodes - i);
		tmp = nodes[i];
		nodes[i] = nodes[pick];
		nodes[pick] = tmp;
		mem[i] = nodes[i];
	}
	snprintf(name, sizeof(name), "J%u", k);
	return th_place_add_collective(j, name, kind, mem, members,
				       mem[pl_rng(seed) % members], bytes,
				       pl_rng(seed) % 2 ? 2 : 4);
}

/* Median seconds of a round of placement @r of @j run on @vps. */
static int pl_measure(const struct th_place_jobs *j,
		      const struct th_place_result *r, struct th_vport **vps,
		      unsigned int nodes, int reps, double *out)
{
	return place_measure(j, r, vps, nodes, 3, reps, PL_TIMEOUT_NS, out,
			     NULL);
}

/* The sequential baseline measured: each job alone on its tree, summed. */
static int pl_measure_sequential(const struct th_place_jobs *j,
				 const struct th_place_model *m,
				 struct th_vport **vps, unsigned int nodes,
				 int reps, uint64_t seed, unsigned int njobs,
				 unsigned int members, const struct pl_opts *o,
				 double *out)
{
	unsigned int k;
	int ret = 0;

	(void)j;
	*out = 0;
	for (k = 0; !ret && k < njobs; k++) {
		struct th_place_jobs *one = th_place_jobs_create();
		struct th_place_result *r;
		uint64_t s = seed;
		unsigned int i;
		double t = 0;

		/* the same generator, keeping job k only */
		for (i = 0; one && i <= k; i++) {
			struct th_place_jobs *scratch = th_place_jobs_create();

			pl_job(i == k ? one : scratch, &s, i, members, o);
			th_place_jobs_destroy(scratch);
		}
		r = one ? th_place_run(one, m, TH_PLACE_TREES, TH_SCHED_HEFT) : NULL;
		ret = r ? pl_measure(one, r, vps, nodes, reps, &t) : -EINVAL;
		*out += t;
		th_place_result_destroy(r);
		th_place_jobs_destroy(one);
	}
	return ret;
}

/* Vports 0 .. n - 1, one on each of the first n nodes. */
static int pl_open(struct th_device **devs, int ndev, struct th_context **ctx,
		   struct th_vport **vps, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		unsigned int node = i % ndev;

		if (!ctx[node])
			ctx[node] = th_device_open(devs[node]);
		vps[i] = ctx[node] ? th_vport_create(ctx[node], NULL) : NULL;
		if (!vps[i])
			return -errno;
	}
	return 0;
}

static void pl_close(struct th_vport **vps, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (vps[i]) {
			th_vport_destroy(vps[i]);
			vps[i] = NULL;
		}
}

/* A model of the fabric's @nodes: @m's rates, then @m's first for the rest. */
static struct th_place_model *pl_fabric_model(const struct th_place_model *m,
					      unsigned int nodes)
{
	struct th_place_model *f = th_place_model_create(nodes);
	unsigned int i;

	if (!f)
		return NULL;
	f->descriptor = m->descriptor;
	f->latency = m->latency;
	f->bandwidth = m->bandwidth;
	f->passes = m->passes;
	f->wake = m->wake;
	f->post = m->post;
	f->cpu = m->cpu;
	for (i = 0; i < nodes; i++)
		f->alu[i] = m->alu[i < m->nodes ? i : 0];
	return f;
}

/*
 * --tianhe: the source paper's comparison.  One Allreduce over N nodes on
 * its k-nomial tree, offloaded against the host-driven p2p tree, both on
 * the same NIC; predicted (the placer's DAG for the offload; a DAG of host
 * steps for p2p: every inner node's host wakes up on its children's data,
 * reduces on the CPU, posts a PUT; on the way down it wakes up and posts
 * one PUT per child), then run: th_coll and th_hostcoll, ranks as threads, on
 * the virtual clock with the model's host costs.  See
 * Documentation/placement.rst.
 */
static double pl_p2p_tree(const struct th_place_model *m, unsigned int n,
			  unsigned int k, uint64_t bytes)
{
	struct th_dag *dag = th_dag_create(2 * n);
	unsigned int kids[256], v, s, nk;
	struct th_sched *sc = NULL;
	double put = th_place_put_cost(m, bytes), ms = -1, w;
	int parent;

	if (!dag || th_dag_set_procs(dag, n))
		goto out;
	for (v = 0; v < n; v++) {
		nk = th_tree_children(n, 0, k, v, kids, 256);
		parent = th_tree_parent(n, 0, k, v);
		/* up (task v): leaves post; inner hosts wake, reduce, post */
		w = nk ? m->wake + (1.0 + nk) * bytes / m->cpu : 0;
		w += parent >= 0 ? m->post : 0;
		for (s = 0; s < n; s++)
			th_dag_set_cost(dag, v, s, s == v ? w : INFINITY);
		/* down (task n + v): wake (not the root), post to each child */
		w = (parent >= 0 ? m->wake : 0) + nk * m->post;
		for (s = 0; s < n; s++)
			th_dag_set_cost(dag, n + v, s, s == v ? w : INFINITY);
		if (parent >= 0) {
			th_dag_add_edge(dag, v, parent, put);
			th_dag_add_edge(dag, n + parent, n + v, put);
		} else {
			th_dag_add_edge(dag, v, n + v, 0);
		}
	}
	if (th_dag_finalize(dag))
		goto out;
	sc = th_sched_run(dag, TH_SCHED_HEFT);	/* everything pinned */
	if (sc) {
		struct th_sched_metrics mt;

		if (!th_sched_metrics(sc, &mt))
			ms = mt.makespan;
	}
out:
	th_sched_destroy(sc);
	th_dag_destroy(dag);
	/* the leaves' last wake-up is in their down task */
	return ms;
}

/*
 * The same Allreduce run on the in-process provider's virtual clock with
 * @m's host costs, ranks as threads: the slowest rank's time (µs) from the
 * barrier where the ranks' clocks meet to its completion; -1 on failure.
 */
static double pl_tianhe_run(const struct th_place_model *m, unsigned int radix,
			    uint64_t bytes, enum br_variant v)
{
	struct br_job j = {
		.n = m->nodes, .v = v, .provider = "inproc", .reps = 3,
		.warmup = 1, .timed = true,
		.attr = { .kind = TH_COLL_ALLREDUCE, .op = TH_NIC_ALU_SUM,
			  .dtype = TH_NIC_DT_FLOAT64, .count = bytes / 8,
			  .radix = radix },
	};
	struct th_place_model *fm = NULL;
	struct th_device **devs;
	struct br_stat st = { 0 };
	int ndev = 0, ret = -ENODEV;

	devs = th_device_list_get("inproc", &ndev);
	th_device_list_free(devs);
	if (ndev >= (int)m->nodes)
		fm = pl_fabric_model(m, ndev);
	if (fm)
		ret = th_place_timed(fm);
	if (!ret) {
		ret = br_run_threads(&j, &st);
		th_place_timed(NULL);
	}
	th_place_model_destroy(fm);
	if (ret || !st.ok) {
		fprintf(stderr, "thbench place --tianhe: %s: %s\n",
			v == BR_P2P ? "p2p" : "offload", th_strerror(ret));
		return -1;
	}
	return st.med;
}

/* The timed ratio at 8 B, radix 4, as the host's wake-up and post vary. */
static void pl_tianhe_sensitivity(struct th_place_model *m)
{
	static const double wake[] = { 1e-6, 2e-6, 5e-6, 10e-6 };
	static const double post[] = { 3.5e-7, 7e-7, 1.4e-6 };
	double w0 = m->wake, p0 = m->post, off, p2p;
	unsigned int wi, pi;

	printf("\n# offload/p2p, timed, 8 B, radix 4, by the host's wake-up (rows) and post (columns)\n");
	printf("%8s", "wake_us");
	for (pi = 0; pi < 3; pi++)
		printf("  post=%.2fus", post[pi] * 1e6);
	printf("\n");
	for (wi = 0; wi < 4; wi++) {
		printf("%8.1f", wake[wi] * 1e6);
		for (pi = 0; pi < 3; pi++) {
			m->wake = wake[wi];
			m->post = post[pi];
			off = pl_tianhe_run(m, 4, 8, BR_OFFLOAD);
			p2p = pl_tianhe_run(m, 4, 8, BR_P2P);
			printf("  %12.3f", off > 0 && p2p > 0 ? off / p2p : NAN);
		}
		printf("\n");
	}
	m->wake = w0;
	m->post = p0;
}

static int pl_tianhe(void)
{
	static const unsigned int radix[] = { 2, 4 };
	static const uint64_t sizes[] = { 8, 65536 };
	struct th_place_model *m = th_place_model_create(16);
	unsigned int ri, si, i, mem[16];
	int bad = 0;

	if (!m)
		return 1;
	m->latency = 1e-6;
	m->bandwidth = 6e9;
	m->descriptor = 2e-7;
	m->wake = 5e-6;
	m->post = 7e-7;
	m->cpu = 5e9;
	for (i = 0; i < 16; i++) {
		m->alu[i] = 2e9;
		mem[i] = i;
	}
	printf("# Allreduce over 16 nodes, offloaded vs host-driven p2p tree\n"
	       "# NIC: latency %.2g s, bandwidth %.3g B/s, descriptor %.2g s, ALU %.3g B/s\n"
	       "# host: wake-up %.2g s, CPU reduction %.3g B/s, post %.2g s\n"
	       "# (LogGP: L = latency, o = post (host) or descriptor (NIC), G = 1 / bandwidth)\n"
	       "# off_placer: the placer's prediction for its own compile of the Allreduce\n"
	       "# (which also copies each contribution in and each result out);\n"
	       "# p2p_model: the DAG of host steps; timed: th_coll and th_hostcoll run on the\n"
	       "# in-process provider's virtual clock, ranks as threads, each with its\n"
	       "# own host clock; microseconds, the slowest rank\n",
	       m->latency, m->bandwidth, m->descriptor, m->alu[0], m->wake,
	       m->cpu, m->post);
	printf("%5s %7s | %10s %10s %8s | %10s %10s %8s | %6s\n", "radix",
	       "bytes", "off_placer", "p2p_model", "ratio", "off_timed",
	       "p2p_timed", "ratio", "paper");
	for (ri = 0; ri < 2; ri++)
		for (si = 0; si < 2; si++) {
			struct th_place_jobs *j = th_place_jobs_create();
			struct th_place_result *r = NULL;
			double off = -1, p2p, toff, tp2p;

			if (j && th_place_add_collective(j, "A", TH_PLACE_ALLREDUCE,
							 mem, 16, 0, sizes[si],
							 radix[ri]) >= 0)
				r = th_place_run(j, m, TH_PLACE_TREES, TH_SCHED_HEFT);
			if (r)	/* the start's post, the end's wake-up */
				off = r->makespan + m->post + m->wake;
			p2p = pl_p2p_tree(m, 16, radix[ri], sizes[si]);
			toff = pl_tianhe_run(m, radix[ri], sizes[si], BR_OFFLOAD);
			tp2p = pl_tianhe_run(m, radix[ri], sizes[si], BR_P2P);
			bad |= toff < 0 || tp2p < 0;
			printf("%5u %7llu | %10.2f %10.2f %8.3f | %10.2f %10.2f %8.3f | %6.3f\n",
			       radix[ri], (unsigned long long)sizes[si], off * 1e6,
			       p2p * 1e6, off > 0 && p2p > 0 ? off / p2p : NAN,
			       toff, tp2p, toff > 0 && tp2p > 0 ? toff / tp2p : NAN,
			       0.404);
			th_place_result_destroy(r);
			th_place_jobs_destroy(j);
		}
	pl_tianhe_sensitivity(m);
	th_place_model_destroy(m);
	return bad;
}

/* --scale: one big Allreduce, placed, predicted and run, with wall times. */
static int pl_scale(const struct pl_opts *o)
{
	struct th_place_model *m = th_place_model_create(o->scale);
	struct th_place_jobs *j = th_place_jobs_create();
	unsigned int *mem = malloc(o->scale * sizeof(*mem)), i, k;
	struct th_vport **vps = calloc(o->scale, sizeof(*vps));
	static const enum th_place_mode modes[2] = { TH_PLACE_TREES,
						     TH_PLACE_SCHEDULED };
	struct th_device **devs = NULL;
	struct th_context **ctx = NULL;
	int ndev = 0, ret = -ENOMEM;

	if (!m || !j || !mem || !vps) {
		fprintf(stderr, "thbench place: %u nodes: %s\n", o->scale,
			strerror(errno ? errno : ENOMEM));
		goto out;
	}
	for (i = 0; i < o->scale; i++)
		mem[i] = i;
	ret = th_place_add_collective(j, "big", TH_PLACE_ALLREDUCE, mem, o->scale,
				      0, 8192, 4);
	if (ret < 0)
		goto out;
	if (o->timed)
		ret = th_place_timed(m);
	devs = th_device_list_get("inproc", &ndev);
	ctx = devs ? calloc(ndev, sizeof(*ctx)) : NULL;
	if (ret || !ctx || ndev < (int)o->scale) {
		fprintf(stderr, "thbench place: %u in-process nodes: %s\n", o->scale,
			ret ? th_strerror(ret) : "not available");
		ret = ret ? ret : -ENODEV;
		goto out;
	}
	printf("# One Allreduce of 8 KiB over %u nodes (radix 4), in-process provider%s\n",
	       o->scale, o->timed ? " on the virtual clock" : "");
	printf("%-10s %14s %14s %12s %12s\n", "placement", "predicted_us",
	       "measured_us", "place_s", "run_s");
	for (k = 0; k < 2; k++) {
		double w0 = br_now_us(), w1, w2, meas = 0;
		struct th_place_result *r = th_place_run(j, m, modes[k],
							 k ? TH_SCHED_HAGD :
							 TH_SCHED_HEFT);

		w1 = br_now_us();
		ret = r ? pl_open(devs, ndev, ctx, vps, o->scale) : -errno;
		if (!ret)
			ret = pl_measure(j, r, vps, o->scale, 1, &meas);
		pl_close(vps, o->scale);
		w2 = br_now_us();
		if (ret) {
			fprintf(stderr, "thbench place: %s\n", th_strerror(ret));
			th_place_result_destroy(r);
			break;
		}
		printf("%-10s %14.3f %14.3f %12.3f %12.3f\n", k ? "hagd" : "trees",
		       r->makespan * 1e6, meas * 1e6, (w1 - w0) * 1e-6,
		       (w2 - w1) * 1e-6);
		th_place_result_destroy(r);
	}
out:
	for (i = 0; ctx && i < (unsigned int)ndev; i++)
		if (ctx[i])
			th_device_close(ctx[i]);
	free(ctx);
	th_device_list_free(devs);
	free(vps);
	free(mem);
	th_place_jobs_destroy(j);
	th_place_model_destroy(m);
	return ret ? 1 : 0;
}

struct pl_cell {
	double pred, meas, err;	/* sums over the seeds */
	unsigned int n, nmeas;
};

int thbench_place_main(int argc, char **argv)
{
	char outbuf[4096], path[4096];
	struct th_context **ctx = NULL;
	struct th_vport *vps[64] = { NULL };
	struct th_place_model *base = NULL;
	struct th_device **devs = NULL;
	struct pl_cell *cells = NULL;
	struct th_dag_diag d;
	struct pl_opts o;
	unsigned int ji, mi, s, v, i, ncfg, done = 0;
	FILE *csv = NULL;
	int ndev = 0, ret, status = 1;

	ret = pl_parse(argc, argv, &o);
	if (ret) {
		if (ret < 0)
			pl_usage(stderr);
		return ret < 0 ? 2 : 0;
	}
	if (o.tianhe)
		return pl_tianhe();
	if (o.scale) {
		char n[16];

		/* before the in-process fabric exists: its size */
		snprintf(n, sizeof(n), "%u", o.scale);
		setenv("TH_INPROC_NODES", n, 1);
		return pl_scale(&o);
	}
	if (!o.out)
		o.out = br_default_out("place", outbuf, sizeof(outbuf));
	if (br_mkdir_p(o.out))
		o.out = NULL;
	devs = th_device_list_get(o.provider, &ndev);
	if (!devs || ndev < 2) {
		fprintf(stderr, "thbench place: no devices\n");
		return 1;
	}
	ctx = calloc(ndev, sizeof(*ctx));
	ncfg = o.njobs * o.nmembers;
	cells = calloc(ncfg * PL_NVAR, sizeof(*cells));
	if (!ctx || !cells)
		goto out;
	if (pl_open(devs, ndev, ctx, vps, o.nodes)) {
		fprintf(stderr, "thbench place: vports: %s\n", strerror(errno));
		goto out;
	}
	if (o.model) {
		base = th_place_model_load(o.model, &d);
		if (!base || base->nodes < o.nodes) {
			fprintf(stderr, "thbench place: %s: %s\n", o.model,
				base ? "fewer nodes than --nodes" : d.msg);
			goto out;
		}
	} else if (o.timed) {
		base = th_place_model_create(o.nodes);	/* the documented defaults */
	} else {
		base = th_place_model_create(o.nodes);
		ret = base ? th_place_calibrate(vps[0], vps[1], base) : -ENOMEM;
		if (ret) {
			fprintf(stderr, "thbench place: calibration: %s\n",
				th_strerror(ret));
			goto out;
		}
	}
	printf("# Multi-job placement on %u nodes of provider '%s'%s, %u seeds, beta %g\n",
	       o.nodes, th_device_provider(devs[0]),
	       o.timed ? " on the model's virtual clock" : "", o.seeds, o.beta);
	printf("# model: alu %.3g B/s (x U[%g, %g] per node), descriptor %.3g s, latency %.3g s, bandwidth %.3g B/s\n",
	       base->alu[0], 1 - o.beta / 2, 1 + o.beta / 2, base->descriptor,
	       base->latency, base->bandwidth);
	printf("# per (jobs, members): mean makespan in us, predicted / measured (median of %d rounds);\n"
	       "# err: mean |measured - predicted| / measured; hagd+-: HAGD's improvement over it\n",
	       o.reps);
	for (ji = 0; ji < o.njobs; ji++)
		for (mi = 0; mi < o.nmembers; mi++) {
			struct pl_cell *row = &cells[(ji * o.nmembers + mi) * PL_NVAR];

			for (s = 0; s < o.seeds; s++) {
				uint64_t seed = 0x9e3779b97f4a7c15ULL ^
						(ji * 1000003ULL + mi * 7919ULL +
						 s * 104729ULL + 1);
				uint64_t gen = seed, jobs_seed;
				struct th_place_model *m = th_place_model_create(o.nodes);
				struct th_place_jobs *j = th_place_jobs_create();

				if (!m || !j)
					goto out;
				*m = (struct th_place_model){ .nodes = o.nodes,
					.alu = m->alu, .descriptor = base->descriptor,
					.latency = base->latency,
					.bandwidth = base->bandwidth,
					.passes = base->passes };
				for (i = 0; i < o.nodes; i++)
					m->alu[i] = base->alu[0] * (1 - o.beta / 2 +
						o.beta * (pl_rng(&gen) % 1000) / 1000.0);
				jobs_seed = gen;	/* the sequential baseline regenerates */
				for (i = 0; i < o.jobs[ji]; i++)
					pl_job(j, &gen, i, o.members[mi], &o);
				if (o.timed && o.measure) {
					struct th_place_model *fm =
						pl_fabric_model(m, ndev);

					/* the clock's rates are this workload's */
					pl_close(vps, o.nodes);
					ret = fm ? th_place_timed(fm) : -ENOMEM;
					th_place_model_destroy(fm);
					if (!ret)
						ret = pl_open(devs, ndev, ctx, vps,
							      o.nodes);
					if (ret) {
						fprintf(stderr, "thbench place: timed: %s\n",
							th_strerror(ret));
						goto out;
					}
				}
				for (v = 0; v < PL_NVAR; v++) {
					enum th_place_mode mode = v < TH_SCHED_NR_ALGS ?
						TH_PLACE_SCHEDULED : v == TH_SCHED_NR_ALGS ?
						TH_PLACE_TREES : TH_PLACE_SEQUENTIAL;
					struct th_place_result *r;
					double meas = 0;

					br_progress("[%u/%u] %llu jobs x %llu members, seed %u, %s",
						    done, ncfg * o.seeds,
						    (unsigned long long)o.jobs[ji],
						    (unsigned long long)o.members[mi],
						    s, pl_var_name(v));
					r = th_place_run(j, m, mode, v < TH_SCHED_NR_ALGS ?
							 v : TH_SCHED_HEFT);
					if (!r)
						continue;
					row[v].pred += r->makespan;
					row[v].n++;
					if (o.measure) {
						ret = mode == TH_PLACE_SEQUENTIAL ?
						      pl_measure_sequential(j, m, vps,
							o.nodes, o.reps, jobs_seed,
							o.jobs[ji], o.members[mi],
							&o, &meas) :
						      pl_measure(j, r, vps, o.nodes,
								 o.reps, &meas);
						if (!ret && meas > 0) {
							row[v].meas += meas;
							row[v].err += fabs(meas - r->makespan) /
								      meas;
							row[v].nmeas++;
						}
					}
					th_place_result_destroy(r);
				}
				done++;
				th_place_jobs_destroy(j);
				th_place_model_destroy(m);
			}
		}
	br_progress("%s", "");
	if (o.out && snprintf(path, sizeof(path), "%s/place.csv", o.out) <
	    (int)sizeof(path))
		csv = fopen(path, "w");
	if (csv)
		fprintf(csv, "jobs,members,placement,predicted_us,measured_us,error,hagd_improvement_pct\n");
	printf("%5s %7s | %-10s %12s %12s %7s %9s\n", "jobs", "members",
	       "placement", "predicted", "measured", "err", "hagd+-");
	for (ji = 0; ji < o.njobs; ji++)
		for (mi = 0; mi < o.nmembers; mi++) {
			struct pl_cell *row = &cells[(ji * o.nmembers + mi) * PL_NVAR];
			const struct pl_cell *h = &row[TH_SCHED_HAGD];

			for (v = 0; v < PL_NVAR; v++) {
				const struct pl_cell *c = &row[v];
				double p = c->n ? c->pred / c->n : NAN;
				double mm = c->nmeas ? c->meas / c->nmeas : NAN;
				double e = c->nmeas ? c->err / c->nmeas : NAN;
				double hp = h->n ? h->pred / h->n : NAN;
				double imp = 100 * (p - hp) / p;

				printf("%5llu %7llu | %-10s %12.2f %12.2f %7.3f %8.1f%%\n",
				       (unsigned long long)o.jobs[ji],
				       (unsigned long long)o.members[mi],
				       pl_var_name(v), p * 1e6, mm * 1e6, e, imp);
				if (csv)
					fprintf(csv, "%llu,%llu,%s,%.3f,%.3f,%.4f,%.2f\n",
						(unsigned long long)o.jobs[ji],
						(unsigned long long)o.members[mi],
						pl_var_name(v), p * 1e6, mm * 1e6,
						e, imp);
			}
		}
	if (csv) {
		fclose(csv);
		fprintf(stderr, "thbench place: csv %s\n", path);
		if (br_have("gnuplot") && snprintf(path, sizeof(path),
		    "cd '%s' && gnuplot -e \"set terminal png size 1000,600; "
		    "set output 'place.png'; set datafile separator ','; "
		    "set style data histograms; set style fill solid 0.8; "
		    "set ylabel 'mean predicted makespan (us)'; set xtics rotate by -30; "
		    "set title 'Multi-job placement, predicted makespan'; "
		    "plot 'place.csv' every ::1 using 4:xtic(stringcolumn(1).'x'.stringcolumn(2).' '.stringcolumn(3)) title 'predicted', "
		    "'' every ::1 using 5 title 'measured'\" >/dev/null 2>&1",
		    o.out) < (int)sizeof(path) && !system(path))
			fprintf(stderr, "thbench place: plot %s/place.png\n", o.out);
	}
	status = 0;
out:
	for (i = 0; i < o.nodes && i < 64; i++)
		if (vps[i])
			th_vport_destroy(vps[i]);
	for (i = 0; ctx && i < (unsigned int)ndev; i++)
		if (ctx[i])
			th_device_close(ctx[i]);
	free(ctx);
	free(cells);
	th_place_model_destroy(base);
	th_device_list_free(devs);
	return status;
}
