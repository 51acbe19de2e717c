// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * cmd_place.c - 'thctl place': place the offload jobs of a job file onto
 * the fabric's NIC nodes with every scheduling algorithm (or one), beside
 * the two baselines (each job on its own tree; the jobs one after
 * another), and print the predicted makespans, each job's finish and
 * slowdown, the unfairness and Jain's index; the jobs composed as asked
 * (--compose) or within a slowdown bound (--fairness); a Gantt chart
 * (SVG) and JSON on request.  --verify and --run hand over to
 * place_run.c.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <thverbs/place.h>
#include "json.h"
#include "place_run.h"
#include "progress.h"
#include "thctl.h"
#include <thverbs/verbs.h>

struct thctl_place_opts {
	const char *jobs;
	const char *model;
	unsigned int nodes;
	int alg;		/* -1: every algorithm */
	const char *svg;
	const char *export_goal;
	bool json;
	bool pretty;
	bool write_model;
	bool calibrate;
	bool progress;
	const char *provider;
	struct thctl_place_run_opts run;	/* --run, --verify */
	struct th_place_opts place;	/* --compose, --fairness, --no-floor */
};

static void thctl_place_usage(FILE *f)
{
	fprintf(f,
		"usage: thctl place [OPTIONS] JOBFILE\n"
		"       thctl place --write-model [--nodes N]\n"
		"       thctl place --calibrate [--provider P] [--nodes N]\n"
		"       thctl place --verify [--run [--timed] [--reps N]] [--sim] [--provider P]\n"
		"                   [-a NAME] [-m FILE] [-j [-p]] JOBFILE\n"
		"\n"
		"Places the offload jobs of JOBFILE (Documentation/placement.rst) on the\n"
		"NIC nodes and predicts the makespan from the fabric cost model: every\n"
		"job in one DAG, scheduled by each algorithm (HEFT, PETS, HCPFD, HAGD,\n"
		"hagd+, PEFT, and the portfolio: the best of them), beside two\n"
		"baselines that place each job on its own k-nomial tree over its\n"
		"members, all together ('trees') or one after another ('sequential').\n"
		"Per placement: the makespan, the duplicated tasks ('dup'), whose\n"
		"schedule it is ('schedule': the portfolio's winner; heft when HAGD's\n"
		"own was longer), each job's finish and its slowdown ((finish -\n"
		"release) / its makespan placed alone), the largest slowdown, the\n"
		"unfairness (mean absolute deviation of the slowdowns) and Jain's\n"
		"fairness index of 1 / slowdown (1: all alike).  A scheduled placement\n"
		"is never longer than the 'trees' one: where that is shorter, its\n"
		"schedule is taken (composition 'trees').\n"
		"\n"
		"  -m, --model FILE    the fabric cost model (default: --nodes identical\n"
		"                      nodes with the built-in rates)\n"
		"  -n, --nodes N       nodes of the default model (default: the highest\n"
		"                      node a job names, plus one)\n"
		"  -a, --alg NAME      heft, pets, hcpfd, hagd, hagd+, peft, portfolio,\n"
		"                      or all (default)\n"
		"  -c, --compose NAME  how the jobs' DAGs make one schedule: merged (one\n"
		"                      DAG, common entry and exit; default), sequential\n"
		"                      (job after job, gaps filled), level (level by\n"
		"                      level across jobs), alternating (round robin),\n"
		"                      fair (the most slowed job next), weighted\n"
		"                      (priority x rank), laxity (least laxity to\n"
		"                      each job's release + time alone / priority),\n"
		"                      best (all of them, the least makespan kept)\n"
		"  -f, --fairness X    no job slower than X (>= 1) times its placement\n"
		"                      alone, at the least makespan found; exit 1 with\n"
		"                      the best largest slowdown found when none is\n"
		"      --no-floor      the algorithm's own schedule even where the\n"
		"                      'trees' placement is shorter\n"
		"      --svg FILE      the Gantt chart of the first algorithm's placement,\n"
		"                      one row per node, coloured by job, duplicates hatched\n"
		"      --export-goal FILE  the first algorithm's placement, its chains'\n"
		"                      first round, as GOAL for LogGOPSim (times in ps;\n"
		"                      the thctl sim command to run it on stderr)\n"
		"  -j, --json          JSON instead of the table; -p, --pretty: indented\n"
		"      --write-model   print the default model in the model file format\n"
		"      --calibrate     measure the model on a provider's first two nodes\n"
		"                      (chains timed from this process) and print it\n"
		"      --provider P    kernel, inproc or auto, for --calibrate; inproc\n"
		"                      (default) or kernel for --run and --verify\n"
		"      --verify        describe the chains each chosen placement would\n"
		"                      post and verify them (thctl verify; the provider's\n"
		"                      limits); print the findings, exit 1 on any (before\n"
		"                      --run: nothing runs); -j: per placement, the\n"
		"                      chains, findings and the verifier's time, verify_s\n"
		"      --run           run each chosen placement (-a NAME, or every\n"
		"                      algorithm and 'trees') on the provider, one vport\n"
		"                      per model node, and print each job's predicted and\n"
		"                      measured finish, the error in %%, and makespans\n"
		"      --timed         --run on the model's virtual clock (inproc only)\n"
		"      --sim           run each chosen placement's chains in the\n"
		"                      simulator's event-ordered virtual time (thctl\n"
		"                      sim; the model as LogGP, one ALU rate) and print\n"
		"                      each job's predicted and simulated finish\n"
		"      --reps N        --run: rounds measured, the median kept (default 5)\n"
		"      --progress      the progress line (after 2 s) on stderr even when\n"
		"                      it is not a terminal (on a terminal: always)\n"
		"  -h, --help          this text\n"
		"\n"
		"Times are in microseconds: the model's predictions and, with --run,\n"
		"what was measured (error: 100 (measured - predicted) / predicted).\n"
		"Limits: %u nodes, %u jobs, %u tasks in the placement DAG\n"
		"(Documentation/placement.rst).\n"
		"Exit status: 0 success, 1 placement failed (or a --verify finding, or\n"
		"a --run that failed, or its provider is absent), 2 usage error or\n"
		"malformed input (file:line:col: message).\n", TH_PLACE_MAX_NODES,
		TH_PLACE_MAX_JOBS, TH_PLACE_MAX_TASKS);
}

static int thctl_place_args(int argc, char **argv, struct thctl_place_opts *o)
{
	static const struct option longopts[] = {
		{ "model", required_argument, NULL, 'm' },
		{ "nodes", required_argument, NULL, 'n' },
		{ "alg", required_argument, NULL, 'a' },
		{ "svg", required_argument, NULL, 'S' },
		{ "export-goal", required_argument, NULL, 'E' },
		{ "json", no_argument, NULL, 'J' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "write-model", no_argument, NULL, 'W' },
		{ "calibrate", no_argument, NULL, 'C' },
		{ "provider", required_argument, NULL, 'P' },
		{ "verify", no_argument, NULL, 'V' },
		{ "sim", no_argument, NULL, 'M' },
		{ "run", no_argument, NULL, 'R' },
		{ "timed", no_argument, NULL, 'T' },
		{ "reps", required_argument, NULL, 'N' },
		{ "compose", required_argument, NULL, 'c' },
		{ "fairness", required_argument, NULL, 'f' },
		{ "no-floor", no_argument, NULL, 'F' },
		{ "progress", no_argument, NULL, 'G' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	char *end;
	double x;
	long v;
	int c;

	o->alg = -1;
	o->place.floor = true;
	optind = 1;
	while ((c = getopt_long(argc, argv, "m:n:a:c:f:hjp", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			v = th_place_compose_from_name(optarg);
			if (v < 0) {
				fprintf(stderr, "thctl place: unknown composition '%s' (merged, sequential, level, alternating, fair, weighted, laxity, best)\n",
					optarg);
				return -EINVAL;
			}
			o->place.compose = v;
			break;
		case 'f':
			x = strtod(optarg, &end);
			if (*end || end == optarg || !(x >= 1) || x > 1e6) {
				fprintf(stderr, "thctl place: --fairness wants a bound from 1 to 1e6\n");
				return -EINVAL;
			}
			o->place.fairness = x;
			break;
		case 'F':
			o->place.floor = false;
			break;
		case 'j':
			o->json = true;
			break;
		case 'p':
			o->pretty = true;
			break;
		case 'm':
			o->model = optarg;
			break;
		case 'n':
			v = strtol(optarg, &end, 10);
			if (*end || v < 1 || v > TH_PLACE_MAX_NODES) {
				fprintf(stderr, "thctl place: --nodes wants 1..%u\n",
					TH_PLACE_MAX_NODES);
				return -EINVAL;
			}
			o->nodes = v;
			break;
		case 'a':
			if (!strcmp(optarg, "all")) {
				o->alg = -1;
			} else {
				o->alg = th_sched_alg_from_name(optarg);
				if (o->alg < 0) {
					fprintf(stderr, "thctl place: unknown algorithm '%s'\n",
						optarg);
					return -EINVAL;
				}
			}
			break;
		case 'S':
			o->svg = optarg;
			break;
		case 'E':
			o->export_goal = optarg;
			break;
		case 'J':
			o->json = true;
			break;
		case 'W':
			o->write_model = true;
			break;
		case 'C':
			o->calibrate = true;
			break;
		case 'P':
			o->provider = optarg;
			break;
		case 'V':
			o->run.verify = true;
			break;
		case 'M':
			o->run.sim = true;
			break;
		case 'R':
			o->run.run = true;
			break;
		case 'T':
			o->run.timed = true;
			break;
		case 'N':
			v = strtol(optarg, &end, 10);
			if (*end || v < 1 || v > 10000) {
				fprintf(stderr, "thctl place: --reps wants 1..10000\n");
				return -EINVAL;
			}
			o->run.reps = v;
			break;
		case 'G':
			o->progress = true;
			break;
		case 'h':
			thctl_place_usage(stdout);
			exit(THCTL_EXIT_OK);
		default:
			return -EINVAL;
		}
	}
	if ((o->run.timed || o->run.reps) && !o->run.run) {
		fprintf(stderr, "thctl place: --timed and --reps go with --run\n");
		return -EINVAL;
	}
	if (o->write_model || o->calibrate)
		return optind == argc ? 0 : -EINVAL;
	if (optind + 1 != argc) {
		fprintf(stderr, "thctl place: %s\n", optind == argc ?
			"no job file" : "one job file only");
		return -EINVAL;
	}
	o->jobs = argv[optind];
	return 0;
}

struct thctl_place_row {
	const char *label;
	struct th_place_result *r;
	bool scheduled;		/* by an algorithm, not a baseline */
};

/* Duplicated copies in a placement (0 without a schedule). */
static unsigned int thctl_place_dups(const struct th_place_result *r)
{
	struct th_sched_metrics sm;

	return r->sched && !th_sched_metrics(r->sched, &sm) ? sm.nduplicated : 0;
}

/*
 * Whose schedule a scheduled placement is: the portfolio's winner, HEFT's
 * when HAGD's own was longer, or the trees' when the floor took them ("-"
 * for the baselines).
 */
static const char *thctl_place_by(const struct thctl_place_row *row)
{
	int a;

	if (!row->scheduled || !row->r->sched)
		return "-";
	if (row->r->from_trees)
		return "trees";
	a = th_sched_alg_of(row->r->sched);
	return a >= 0 ? th_sched_alg_name(a) : "-";
}

/* Where a scheduled placement's schedule came from. */
static const char *thctl_place_source(const struct thctl_place_row *row)
{
	if (!row->scheduled)
		return "-";
	return row->r->from_trees ? "trees" : th_place_compose_name(row->r->compose);
}

static void thctl_place_table(const struct th_place_jobs *j,
			      const struct thctl_place_row *rows,
			      unsigned int nrows)
{
	unsigned int i, k;
	double best = 0;

	for (i = 0; i < nrows; i++)
		if (rows[i].r && (!best || rows[i].r->makespan < best))
			best = rows[i].r->makespan;
	printf("%-12s %-11s %12s %9s %8s %11s %6s %4s %-9s", "placement",
	       "composition", "makespan_us", "vs_best", "max_sd", "unfairness",
	       "jain", "dup", "schedule");
	for (k = 0; k < th_place_njobs(j); k++)
		printf("  %s (finish_us/slowdown)", th_place_job_name(j, k));
	printf("\n");
	for (i = 0; i < nrows; i++) {
		const struct th_place_result *r = rows[i].r;

		if (!r) {
			printf("%-12s %-11s %12s\n", rows[i].label, "-", "failed");
			continue;
		}
		printf("%-12s %-11s %12.2f %9.3f %8.2f %11.3f %6.3f %4u %-9s",
		       rows[i].label, thctl_place_source(&rows[i]),
		       r->makespan * 1e6, best > 0 ? r->makespan / best : 1,
		       r->max_slowdown, r->unfairness, r->jain,
		       thctl_place_dups(r), thctl_place_by(&rows[i]));
		for (k = 0; k < r->njobs; k++)
			printf("  %10.2f/%.2f", r->job[k].finish * 1e6,
			       r->job[k].slowdown);
		printf("\n");
	}
}

static void thctl_place_json(const struct th_place_jobs *j,
			     const struct th_place_model *m,
			     const struct thctl_place_row *rows,
			     unsigned int nrows, bool pretty, double fairness)
{
	unsigned int i, k;
	struct tj t;

	tj_init(&t, stdout, pretty);
	tj_obj_begin(&t);
	tj_kv_u64(&t, "nodes", m->nodes);
	if (fairness > 0) {
		tj_key(&t, "fairness");
		tj_double(&t, fairness);
	}
	tj_key(&t, "placements");
	tj_arr_begin(&t);
	for (i = 0; i < nrows; i++) {
		const struct th_place_result *r = rows[i].r;

		tj_obj_begin(&t);
		tj_kv_str(&t, "placement", rows[i].label);
		if (!r) {
			tj_key(&t, "failed");
			tj_bool(&t, true);
			tj_obj_end(&t);
			continue;
		}
		tj_key(&t, "makespan_us");
		tj_double(&t, r->makespan * 1e6);
		tj_kv_str(&t, "composition", thctl_place_source(&rows[i]));
		tj_key(&t, "max_slowdown");
		tj_double(&t, r->max_slowdown);
		tj_key(&t, "unfairness");
		tj_double(&t, r->unfairness);
		tj_key(&t, "jain");
		tj_double(&t, r->jain);
		if (rows[i].scheduled && fairness > 0) {
			tj_key(&t, "fairness_met");
			tj_bool(&t, r->bound_met);
		}
		tj_kv_u64(&t, "duplicated", thctl_place_dups(r));
		if (rows[i].scheduled)
			tj_kv_str(&t, "schedule", thctl_place_by(&rows[i]));
		tj_key(&t, "jobs");
		tj_arr_begin(&t);
		for (k = 0; k < r->njobs; k++) {
			tj_obj_begin(&t);
			tj_kv_str(&t, "job", th_place_job_name(j, k));
			tj_key(&t, "finish_us");
			tj_double(&t, r->job[k].finish * 1e6);
			tj_key(&t, "alone_us");
			tj_double(&t, r->job[k].alone * 1e6);
			tj_key(&t, "release_us");
			tj_double(&t, th_place_job_release(j, k) * 1e6);
			tj_key(&t, "priority");
			tj_double(&t, th_place_job_priority(j, k));
			tj_key(&t, "slowdown");
			tj_double(&t, r->job[k].slowdown);
			tj_obj_end(&t);
		}
		tj_arr_end(&t);
		tj_obj_end(&t);
	}
	tj_arr_end(&t);
	tj_obj_end(&t);
	tj_finish(&t);
}

/* One placement into @row, its failure said on stderr with its reason. */
static void thctl_place_one(const struct th_place_jobs *j,
			    const struct th_place_model *m,
			    enum th_place_mode mode, enum th_sched_alg alg,
			    const struct th_place_opts *opts,
			    struct thctl_place_row *row)
{
	thctl_progress_stage("placing: %s", row->label);
	row->r = th_place_run_opts(j, m, mode, alg, opts);
	if (row->r)
		return;
	if (errno == E2BIG)
		fprintf(stderr, "thctl place: %s: the jobs make more than %u tasks, the placer's limit\n",
			row->label, TH_PLACE_MAX_TASKS);
	else if (errno == ERANGE)
		fprintf(stderr, "thctl place: %s: a cost overflows: the model's rates are too small for these sizes\n",
			row->label);
	else
		fprintf(stderr, "thctl place: %s: %s\n", row->label,
			th_strerror(-errno));
}

/* --calibrate: the model measured on the provider's nodes 0 and 1. */
static int thctl_place_calibrate(const struct thctl_place_opts *o)
{
	struct th_context *ctx[2] = { NULL, NULL };
	struct th_vport *vp[2] = { NULL, NULL };
	struct th_place_model *m = NULL;
	struct th_device **devs;
	int ndev = 0, i, ret = -ENODEV;

	devs = th_device_list_get(o->provider, &ndev);
	if (devs && ndev >= 2) {
		for (i = 0, ret = 0; !ret && i < 2; i++) {
			ctx[i] = th_device_open(devs[i]);
			vp[i] = ctx[i] ? th_vport_create(ctx[i], NULL) : NULL;
			ret = vp[i] ? 0 : -errno;
		}
		m = th_place_model_create(o->nodes ? o->nodes : (unsigned int)ndev);
		if (!ret)
			ret = m ? th_place_calibrate(vp[0], vp[1], m) : -ENOMEM;
	}
	if (!ret) {
		printf("# measured on provider %s, nodes 0 and 1\n",
		       th_device_provider(devs[0]));
		ret = th_place_model_write(m, stdout);
	} else {
		fprintf(stderr, "thctl place: calibration: %s\n", th_strerror(ret));
	}
	for (i = 0; i < 2; i++) {
		if (vp[i])
			th_vport_destroy(vp[i]);
		if (ctx[i])
			th_device_close(ctx[i]);
	}
	th_place_model_destroy(m);
	th_device_list_free(devs);
	return ret ? THCTL_EXIT_FAIL : THCTL_EXIT_OK;
}

int thctl_place_main(int argc, char **argv)
{
	struct thctl_place_opts o = { 0 };
	struct thctl_place_row rows[TH_SCHED_NR_ALGS + 2] = { 0 };
	struct th_place_model *m = NULL;
	struct th_place_jobs *j = NULL;
	struct th_dag_diag d;
	unsigned int nrows = 0, i;
	int a, status = THCTL_EXIT_OK;

	if (thctl_place_args(argc, argv, &o)) {
		thctl_place_usage(stderr);
		return THCTL_EXIT_USAGE;
	}
	if (o.calibrate)
		return thctl_place_calibrate(&o);
	if (o.write_model) {
		m = th_place_model_create(o.nodes ? o.nodes : 16);
		if (!m || th_place_model_write(m, stdout))
			status = THCTL_EXIT_FAIL;
		th_place_model_destroy(m);
		return status;
	}
	j = th_place_jobs_load(o.jobs, &d);
	if (!j) {
		if (d.line)
			fprintf(stderr, "%s:%u:%u: %s\n", o.jobs, d.line, d.col, d.msg);
		else
			fprintf(stderr, "thctl place: %s: %s\n", o.jobs, d.msg);
		return THCTL_EXIT_USAGE;
	}
	if (o.model) {
		m = th_place_model_load(o.model, &d);
		if (!m) {
			if (d.line)
				fprintf(stderr, "%s:%u:%u: %s\n", o.model, d.line,
					d.col, d.msg);
			else
				fprintf(stderr, "thctl place: %s: %s\n", o.model, d.msg);
			th_place_jobs_destroy(j);
			return THCTL_EXIT_USAGE;
		}
	} else {
		m = th_place_model_create(o.nodes ? o.nodes :
					  th_place_nodes_named(j));
	}
	if (!m || th_place_nodes_named(j) > m->nodes) {
		fprintf(stderr, "thctl place: the jobs name node %u, the model has %u nodes\n",
			th_place_nodes_named(j) - 1, m ? m->nodes : 0);
		th_place_model_destroy(m);
		th_place_jobs_destroy(j);
		return THCTL_EXIT_USAGE;
	}
	if (o.export_goal && (o.run.run || o.run.verify || o.run.sim)) {
		fprintf(stderr, "thctl place: --export-goal writes a placement and runs nothing: not with --run, --verify or --sim\n");
		th_place_model_destroy(m);
		th_place_jobs_destroy(j);
		return THCTL_EXIT_USAGE;
	}
	if (o.export_goal && !thctl_place_one_alu_rate(m)) {
		fprintf(stderr, "thctl place: --export-goal: the model's nodes have different ALU rates: a GOAL calc has one\n");
		th_place_model_destroy(m);
		th_place_jobs_destroy(j);
		return THCTL_EXIT_USAGE;
	}
	if (o.run.run || o.run.verify || o.run.sim) {
		o.run.alg = o.alg;
		o.run.json = o.json;
		o.run.pretty = o.pretty;
		o.run.provider = o.provider;
		o.run.reps = o.run.reps ? o.run.reps : 5;
		o.run.place = &o.place;
		status = thctl_place_run(&o.run, j, m);
		th_place_model_destroy(m);
		th_place_jobs_destroy(j);
		return status;
	}
	thctl_progress_start("thctl place", o.progress);
	for (a = 0; a < TH_SCHED_NR_ALGS; a++) {
		if (o.alg >= 0 && a != o.alg)
			continue;
		rows[nrows].label = th_sched_alg_name(a);
		rows[nrows].scheduled = true;
		thctl_place_one(j, m, TH_PLACE_SCHEDULED, a, &o.place,
				&rows[nrows++]);
	}
	rows[nrows].label = "trees";
	thctl_place_one(j, m, TH_PLACE_TREES, TH_SCHED_HEFT, NULL, &rows[nrows++]);
	rows[nrows].label = "sequential";
	thctl_place_one(j, m, TH_PLACE_SEQUENTIAL, TH_SCHED_HEFT, NULL,
			&rows[nrows++]);
	thctl_progress_stop();
	for (i = 0; i < nrows; i++)
		if (!rows[i].r)
			status = THCTL_EXIT_FAIL;
	if (o.json)
		thctl_place_json(j, m, rows, nrows, o.pretty, o.place.fairness);
	else
		thctl_place_table(j, rows, nrows);
	for (i = 0; i < nrows; i++) {
		const struct th_place_result *r = rows[i].r;
		unsigned int k, worst = 0;

		if (!r || !rows[i].scheduled || r->bound_met)
			continue;
		for (k = 0; k < r->njobs; k++)
			if (r->job[k].slowdown > r->job[worst].slowdown)
				worst = k;
		fprintf(stderr, "thctl place: %s: no placement found keeps every job within %g times its time alone; the best has a largest slowdown of %.3f (job %s)\n",
			rows[i].label, o.place.fairness, r->max_slowdown,
			th_place_job_name(j, worst));
		status = THCTL_EXIT_FAIL;
	}
	if (o.svg && rows[0].r && rows[0].r->sched) {
		FILE *f = fopen(o.svg, "w");
		char title[128];

		const struct th_place_result *r0 = rows[0].r;
		unsigned int nt = th_dag_ntasks(r0->dag), t, *grp;
		const char **names;

		grp = calloc(nt, sizeof(*grp));
		names = calloc(th_place_njobs(j), sizeof(*names));
		for (t = 0; grp && t < nt; t++)
			grp[t] = r0->task[t].job;
		for (t = 0; names && t < th_place_njobs(j); t++)
			names[t] = th_place_job_name(j, t);
		snprintf(title, sizeof(title), "placement by %s (colour: job)",
			 rows[0].label);
		if (!f || !grp || !names ||
		    th_sched_write_svg_groups(r0->sched, f, title, grp,
					      th_place_njobs(j), names)) {
			fprintf(stderr, "thctl place: %s: cannot write\n", o.svg);
			status = THCTL_EXIT_FAIL;
		}
		if (f)
			fclose(f);
		free(grp);
		free(names);
	}
	if (o.export_goal && rows[0].r) {
		int st = thctl_place_export_goal(j, m, rows[0].r, rows[0].label,
						 o.export_goal);

		if (st)
			status = st;
	}
	for (i = 0; i < nrows; i++)
		th_place_result_destroy(rows[i].r);
	th_place_model_destroy(m);
	th_place_jobs_destroy(j);
	return status;
}
