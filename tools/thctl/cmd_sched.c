// SPDX-License-Identifier: GPL-2.0 OR MIT
/* cmd_sched.c - 'thctl sched': schedule one graph, print the table and metrics, draw a Gantt chart. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <thverbs/sched.h>
#include "json.h"
#include "thctl.h"

struct thctl_sched_opts {
	int alg;			/* -1: all */
	unsigned int procs;
	double ccr;
	double beta;
	unsigned long long seed;
	const char *gen;
	double alpha;
	unsigned int outdeg;
	const char *svg;
	const char *write;
	bool quiet;
	bool costs_given;		/* -p/--ccr/--beta on a costed file */
	bool json, pretty;
	struct tj tj;			/* with json: the document */
};

static void thctl_sched_usage(FILE *f)
{
	fprintf(f,
		"usage: thctl sched [OPTIONS] FILE\n"
		"       thctl sched [OPTIONS] --gen random:V|gauss:M|fft:M\n"
		"\n"
		"Schedules a task graph and prints the schedule with its metrics.\n"
		"FILE is an STG file (structure only: costs come from -p, --ccr,\n"
		"--beta and --seed) or a th_dag text file (costs included).\n"
		"\n"
		"  -a, --alg NAME      heft, pets, hcpfd, hagd (default), hagd+, peft,\n"
		"                      portfolio (the least makespan of the others), or all\n"
		"  -p, --procs P       processors for STG and generated graphs (4)\n"
		"      --ccr X         communication to computation ratio (1.0)\n"
		"      --beta B        heterogeneity of the processors, 0..2 (1.0)\n"
		"      --seed N        seed of the costs and generators (1)\n"
		"      --gen KIND:N    generate instead of reading a file\n"
		"      --alpha A       shape of random graphs (1.0)\n"
		"      --outdeg D      maximum out-degree of random graphs (4)\n"
		"      --svg FILE      write an SVG Gantt chart (duplicates hatched)\n"
		"      --write FILE    write the graph with its costs as th_dag text\n"
		"  -q, --quiet         metrics only, no schedule table\n"
		"  -j, --json          one JSON document: {\"tasks\", \"edges\", \"procs\",\n"
		"                      \"schedules\": [{\"alg\", \"makespan\", \"slr\", \"speedup\",\n"
		"                      \"efficiency\", \"inserted\", \"duplicated\", \"schedule\",\n"
		"                      \"slots\":\n"
		"                      [{\"proc\", \"task\", \"start\", \"finish\", \"duplicate\"}]}]}\n"
		"                      (slots unless -q); --pretty: indented (-p is --procs)\n"
		"  -h, --help          this text\n"
		"\n"
		"'schedule' names whose schedule it is: the portfolio's winner, or heft\n"
		"when HAGD's own schedule came out longer than HEFT's and HEFT's was kept.\n"
		"\n"
		"Exit status: 0 success, 1 scheduling or validation failed,\n"
		"2 usage error or malformed input (file:line:col: message).\n");
}

/*
 * A number in [@lo, @hi]: NaN is none (it compares false with both
 * bounds, so it is tested the other way round), and an @integer option
 * takes whole numbers only, not 2.7 read as 2.
 */
static int thctl_sched_parse_number(const char *arg, const char *what,
				    double lo, double hi, bool integer,
				    double *out)
{
	char *end;

	errno = 0;
	*out = strtod(arg, &end);
	if (errno || *end || end == arg || !(*out >= lo && *out <= hi) ||
	    (integer && *out != (double)(long long)*out)) {
		fprintf(stderr, "thctl sched: %s: expected %s from %g to %g, got '%s'\n",
			what, integer ? "a whole number" : "a number", lo, hi, arg);
		return -EINVAL;
	}
	return 0;
}

static int thctl_sched_parse_num(const char *arg, const char *what, double lo,
				 double hi, double *out)
{
	return thctl_sched_parse_number(arg, what, lo, hi, false, out);
}

static int thctl_sched_parse_int(const char *arg, const char *what, double lo,
				 double hi, double *out)
{
	return thctl_sched_parse_number(arg, what, lo, hi, true, out);
}

static struct th_dag *thctl_sched_generate(const struct thctl_sched_opts *o)
{
	struct th_dag_gen_params gp;
	const char *colon = strchr(o->gen, ':');
	struct th_dag *dag;
	unsigned long n;
	char *end;

	if (!colon)
		goto bad;
	errno = 0;
	n = strtoul(colon + 1, &end, 10);
	if (errno || *end || !n || n > 1000000)
		goto bad;
	if (!strncmp(o->gen, "random:", 7)) {
		gp.ntasks = n;
		gp.alpha = o->alpha;
		gp.outdeg = o->outdeg;
		gp.seed = o->seed;
		dag = th_dag_gen_random(&gp);
	} else if (!strncmp(o->gen, "gauss:", 6)) {
		dag = th_dag_gen_gauss(n, o->seed);
	} else if (!strncmp(o->gen, "fft:", 4)) {
		dag = th_dag_gen_fft(n, o->seed);
	} else {
		goto bad;
	}
	if (dag || errno != EINVAL)
		return dag;
bad:
	fprintf(stderr, "thctl sched: --gen: expected random:V, gauss:M (2..2000) or fft:M (M a power of two, 2..65536), got '%s'\n",
		o->gen);
	errno = EINVAL;
	return NULL;
}

/* The name of the algorithm whose schedule @s is (th_sched_alg_of()). */
static const char *thctl_sched_by(const struct th_sched *s)
{
	int a = th_sched_alg_of(s);

	return a >= 0 ? th_sched_alg_name(a) : "-";
}

static void thctl_sched_print_metrics(const char *alg,
				      const struct th_sched_metrics *m,
				      const char *by)
{
	printf("%-9s makespan %10.3f  SLR %7.4f  speedup %7.4f  efficiency %6.4f  inserted %4u  duplicated %4u",
	       alg, m->makespan, m->slr, m->speedup, m->efficiency,
	       m->ninserted, m->nduplicated);
	if (strcmp(alg, by))
		printf("  schedule of %s", by);
	printf("\n");
}

static int thctl_sched_slot_cmp(const void *a, const void *b)
{
	const struct th_sched_slot *x = *(const struct th_sched_slot *const *)a;
	const struct th_sched_slot *y = *(const struct th_sched_slot *const *)b;

	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->task < y->task ? -1 : x->task > y->task;
}

static int thctl_sched_print_table(const struct th_sched *s)
{
	const struct th_dag *dag = th_sched_dag(s);
	unsigned int n = th_sched_nslots(s), i;
	const struct th_sched_slot **v;

	v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		v[i] = th_sched_slot(s, i);
	qsort(v, n, sizeof(*v), thctl_sched_slot_cmp);
	printf("%-5s %-16s %12s %12s  %s\n", "proc", "task", "start", "finish", "note");
	for (i = 0; i < n; i++) {
		const struct th_sched_slot *x = v[i];

		if (th_dag_is_virtual(dag, x->task))
			continue;
		printf("p%-4u %-16s %12.3f %12.3f  %s%s\n", x->proc,
		       th_dag_name(dag, x->task), x->start, x->finish,
		       x->flags & TH_SCHED_SLOT_DUP ? "duplicate" : "",
		       (x->flags & TH_SCHED_SLOT_INSERTED) && x->finish > x->start ?
		       "inserted" : "");
	}
	free(v);
	return 0;
}

/* One schedule as a JSON object: its metrics, and its slots with @table. */
static void thctl_sched_json(struct tj *j, const struct th_sched *s,
			     const char *alg, const struct th_sched_metrics *m,
			     bool table)
{
	const struct th_dag *dag = th_sched_dag(s);
	unsigned int n = th_sched_nslots(s), i;

	tj_obj_begin(j);
	tj_kv_str(j, "alg", alg);
	tj_key(j, "makespan");
	tj_double(j, m->makespan);
	tj_key(j, "slr");
	tj_double(j, m->slr);
	tj_key(j, "speedup");
	tj_double(j, m->speedup);
	tj_key(j, "efficiency");
	tj_double(j, m->efficiency);
	tj_kv_u64(j, "inserted", m->ninserted);
	tj_kv_u64(j, "duplicated", m->nduplicated);
	tj_kv_str(j, "schedule", thctl_sched_by(s));
	if (table) {
		tj_key(j, "slots");
		tj_arr_begin(j);
		for (i = 0; i < n; i++) {
			const struct th_sched_slot *x = th_sched_slot(s, i);

			if (th_dag_is_virtual(dag, x->task))
				continue;
			tj_obj_begin(j);
			tj_kv_u64(j, "proc", x->proc);
			tj_kv_str(j, "task", th_dag_name(dag, x->task));
			tj_key(j, "start");
			tj_double(j, x->start);
			tj_key(j, "finish");
			tj_double(j, x->finish);
			tj_key(j, "duplicate");
			tj_bool(j, x->flags & TH_SCHED_SLOT_DUP);
			tj_obj_end(j);
		}
		tj_arr_end(j);
	}
	tj_obj_end(j);
}

static int thctl_sched_one(const struct th_dag *dag, int alg,
			   struct thctl_sched_opts *o, bool table)
{
	struct th_sched_metrics m;
	struct th_sched *s;
	char why[256];
	int ret;

	s = th_sched_run(dag, alg);
	if (!s) {
		fprintf(stderr, "thctl sched: %s: %s\n", th_sched_alg_name(alg),
			strerror(errno));
		return THCTL_EXIT_FAIL;
	}
	ret = th_sched_validate(s, why, sizeof(why));
	if (ret) {
		fprintf(stderr, "thctl sched: %s: invalid schedule: %s\n",
			th_sched_alg_name(alg), why);
		th_sched_destroy(s);
		return THCTL_EXIT_FAIL;
	}
	ret = th_sched_metrics(s, &m);
	if (!ret && o->json)
		thctl_sched_json(&o->tj, s, th_sched_alg_name(alg), &m, table);
	if (!ret && table && !o->json)
		ret = thctl_sched_print_table(s);
	if (!ret && !o->json)
		thctl_sched_print_metrics(th_sched_alg_name(alg), &m,
					  thctl_sched_by(s));
	if (!ret && o->svg) {
		FILE *f = fopen(o->svg, "w");
		char title[128];

		if (!f) {
			fprintf(stderr, "thctl sched: %s: %s\n", o->svg, strerror(errno));
			th_sched_destroy(s);
			return THCTL_EXIT_FAIL;
		}
		snprintf(title, sizeof(title), "%s, %u tasks on %u processors",
			 th_sched_alg_name(alg), th_dag_nreal(dag),
			 th_dag_nprocs(dag));
		ret = th_sched_write_svg(s, f, title);
		if (fclose(f) && !ret)
			ret = -EIO;
	}
	th_sched_destroy(s);
	if (ret) {
		fprintf(stderr, "thctl sched: %s\n", strerror(-ret));
		return THCTL_EXIT_FAIL;
	}
	return THCTL_EXIT_OK;
}

int thctl_sched_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "alg",	required_argument, NULL, 'a' },
		{ "procs",	required_argument, NULL, 'p' },
		{ "ccr",	required_argument, NULL, 'c' },
		{ "beta",	required_argument, NULL, 'b' },
		{ "seed",	required_argument, NULL, 's' },
		{ "gen",	required_argument, NULL, 'g' },
		{ "alpha",	required_argument, NULL, 'A' },
		{ "outdeg",	required_argument, NULL, 'D' },
		{ "svg",	required_argument, NULL, 'S' },
		{ "write",	required_argument, NULL, 'W' },
		{ "quiet",	no_argument,	   NULL, 'q' },
		{ "json",	no_argument,	   NULL, 'j' },
		{ "pretty",	no_argument,	   NULL, 'P' },
		{ "help",	no_argument,	   NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct thctl_sched_opts o = {
		.alg = TH_SCHED_HAGD, .procs = 4, .ccr = 1.0, .beta = 1.0,
		.seed = 1, .alpha = 1.0, .outdeg = 4,
	};
	const char *path = NULL;
	struct th_dag_diag diag;
	struct th_dag *dag;
	int c, ret = THCTL_EXIT_OK;
	double x;

	optind = 1;
	while ((c = getopt_long(argc, argv, "a:p:qhj", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			o.json = true;
			break;
		case 'P':
			o.pretty = true;
			break;
		case 'a':
			if (!strcmp(optarg, "all")) {
				o.alg = -1;
				break;
			}
			o.alg = th_sched_alg_from_name(optarg);
			if (o.alg < 0) {
				fprintf(stderr, "thctl sched: --alg: expected heft, pets, hcpfd, hagd, hagd+ or all, got '%s'\n",
					optarg);
				return THCTL_EXIT_USAGE;
			}
			break;
		case 'p':
			if (thctl_sched_parse_int(optarg, "--procs", 1, 4096, &x))
				return THCTL_EXIT_USAGE;
			o.procs = (unsigned int)x;
			o.costs_given = true;
			break;
		case 'c':
			if (thctl_sched_parse_num(optarg, "--ccr", 0, 1e6, &o.ccr))
				return THCTL_EXIT_USAGE;
			o.costs_given = true;
			break;
		case 'b':
			if (thctl_sched_parse_num(optarg, "--beta", 0, 2, &o.beta))
				return THCTL_EXIT_USAGE;
			o.costs_given = true;
			break;
		case 's':
			if (thctl_sched_parse_int(optarg, "--seed", 0, 1e18, &x))
				return THCTL_EXIT_USAGE;
			o.seed = (unsigned long long)x;
			break;
		case 'g':
			o.gen = optarg;
			break;
		case 'A':
			if (thctl_sched_parse_num(optarg, "--alpha", 0.01, 100, &o.alpha))
				return THCTL_EXIT_USAGE;
			break;
		case 'D':
			if (thctl_sched_parse_int(optarg, "--outdeg", 1, 1000, &x))
				return THCTL_EXIT_USAGE;
			o.outdeg = (unsigned int)x;
			break;
		case 'S':
			o.svg = optarg;
			break;
		case 'W':
			o.write = optarg;
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'h':
			thctl_sched_usage(stdout);
			return THCTL_EXIT_OK;
		default:
			thctl_sched_usage(stderr);
			return THCTL_EXIT_USAGE;
		}
	}
	if (optind < argc)
		path = argv[optind++];
	if (optind < argc || !!path == !!o.gen) {
		fprintf(stderr, "thctl sched: expected one graph: a FILE or --gen\n");
		thctl_sched_usage(stderr);
		return THCTL_EXIT_USAGE;
	}
	if (o.svg && o.alg < 0) {
		fprintf(stderr, "thctl sched: --svg needs one algorithm, not 'all'\n");
		return THCTL_EXIT_USAGE;
	}
	if (path) {
		dag = th_dag_load(path, &diag);
		if (!dag) {
			if (diag.line)
				fprintf(stderr, "%s:%u:%u: %s\n", path, diag.line,
					diag.col, diag.msg);
			else
				fprintf(stderr, "%s: %s\n", path,
					diag.msg[0] ? diag.msg : strerror(errno));
			return errno == ENOMEM ? THCTL_EXIT_FAIL : THCTL_EXIT_USAGE;
		}
		if (diag.warn_line)
			fprintf(stderr, "%s:%u: warning: %s\n", path,
				diag.warn_line, diag.warn);
	} else {
		dag = thctl_sched_generate(&o);
		if (!dag) {
			if (errno != EINVAL) {
				fprintf(stderr, "thctl sched: --gen %s: %s\n", o.gen,
					strerror(errno));
				return THCTL_EXIT_FAIL;
			}
			return THCTL_EXIT_USAGE;
		}
	}
	/* a th_dag file carries its costs; anything else gets them here */
	if (!th_dag_nprocs(dag) || (o.costs_given && !path)) {
		ret = th_dag_assign_costs(dag, o.procs, o.ccr, o.beta, o.seed);
		if (ret) {
			fprintf(stderr, "thctl sched: costs: %s\n", strerror(-ret));
			th_dag_destroy(dag);
			return THCTL_EXIT_USAGE;
		}
	} else if (o.costs_given) {
		fprintf(stderr, "thctl sched: note: %s carries its own costs; -p, --ccr and --beta are ignored\n",
			path);
	}
	if (o.json) {
		tj_init(&o.tj, stdout, o.pretty);
		tj_obj_begin(&o.tj);
		tj_kv_u64(&o.tj, "tasks", th_dag_nreal(dag));
		tj_kv_u64(&o.tj, "edges", th_dag_nedges(dag));
		tj_kv_u64(&o.tj, "procs", th_dag_nprocs(dag));
		tj_key(&o.tj, "schedules");
		tj_arr_begin(&o.tj);
	} else {
		printf("# %u tasks (+%u virtual), %u edges, %u processors, CCR %.4g\n",
		       th_dag_nreal(dag), th_dag_ntasks(dag) - th_dag_nreal(dag),
		       th_dag_nedges(dag), th_dag_nprocs(dag), th_dag_ccr(dag));
	}
	if (o.write) {
		FILE *f = fopen(o.write, "w");

		if (!f || th_dag_write_text(dag, f) || fclose(f)) {
			fprintf(stderr, "thctl sched: %s: cannot write\n", o.write);
			th_dag_destroy(dag);
			return THCTL_EXIT_FAIL;
		}
	}
	if (o.alg >= 0) {
		ret = thctl_sched_one(dag, o.alg, &o, !o.quiet);
	} else {
		for (c = 0; c < TH_SCHED_NR_ALGS && !ret; c++)
			ret = thctl_sched_one(dag, c, &o, false);
	}
	if (o.json && !ret) {
		tj_arr_end(&o.tj);
		tj_obj_end(&o.tj);
		tj_finish(&o.tj);
	}
	th_dag_destroy(dag);
	return ret;
}
