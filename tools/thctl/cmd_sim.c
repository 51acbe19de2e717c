// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * cmd_sim.c - 'thctl sim': simulate a GOAL schedule (a file or a generated
 * k-nomial pattern) under LogGP(S), or a chain file's triggered chains
 * (--chains) in event-ordered virtual time.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <thverbs/coll.h>
#include <thverbs/sim.h>
#include <thverbs/verify.h>
#include "chainset.h"
#include "json.h"
#include "thctl.h"

/* a GOAL file larger than this is refused before it is read */
#define SIM_MAX_FILE	(1ull << 30)

static void sim_usage(FILE *f)
{
	fprintf(f,
		"usage: thctl sim [OPTIONS] FILE.goal\n"
		"       thctl sim [OPTIONS] --pattern allreduce|reduce|bcast --ranks N\n"
		"                 [--radix K] [--bytes B]\n"
		"       thctl sim [OPTIONS] --chains FILE.chain [--nic D,C,A]\n"
		"       thctl sim [OPTIONS] --plan allreduce|reduce|bcast --ranks N\n"
		"                 [--radix K] [--bytes B] [--nic D,C,A] [--host-driven]\n"
		"\n"
		"Simulates a GOAL schedule under the LogGP(S) model as LogGOPSim does\n"
		"and prints each rank's finish time (ns) and the maximum.  With\n"
		"--chains, runs a chain file's chains and 'start' counter updates\n"
		"in virtual time by the engine's rules, model-only (th_sim_chains):\n"
		"each node's and each chain's time.\n"
		"\n"
		"  --loggp L,o,g,G[,O,S]  the model's parameters in ns (G and O per byte;\n"
		"                      S: messages above S bytes use a rendezvous);\n"
		"                      default 2500,1500,1000,6,0,65535 (LogGOPSim's)\n"
		"  --pattern P         generate a k-nomial allreduce (reduce then\n"
		"                      broadcast), reduce or bcast rooted at rank 0\n"
		"  --ranks N           its ranks (1 to 16777216)\n"
		"  --radix K           its tree's radix (default 2: schedgen's binomial)\n"
		"  --bytes B           each message's size (default 8)\n"
		"  --reduce-per-byte R with --pattern (and --plan --host-driven): a\n"
		"                      calc of R x B time units after each receive a\n"
		"                      reduction takes (the host's CPU; the NIC's with\n"
		"                      --offload); default 0, as schedgen\n"
		"  --export-goal FILE  write the schedule as GOAL text to FILE (- for\n"
		"                      standard output: then nothing else is printed\n"
		"                      and nothing simulated); with --chains or\n"
		"                      --plan, the chains' first round as the host\n"
		"                      operations that do the same work\n"
		"  --offload           compile the schedule into triggered chains (each\n"
		"                      operation a chain on a counter, a send a PUT, a\n"
		"                      calc NIC work; no host o) and run those\n"
		"  --chains FILE       a chain file (thctl(1), 'thctl post') instead of GOAL\n"
		"  --plan KIND         the chains the library compiles for a collective\n"
		"                      of --ranks ranks (as thctl verify --plan), one\n"
		"                      round, int64 sums of --bytes\n"
		"  --host-driven       with --plan: beside it, the same tree driven by\n"
		"                      the hosts (--pattern KIND: host o at each hop,\n"
		"                      reductions as --reduce-per-byte says) and\n"
		"                      offloaded ideally (--pattern KIND --offload),\n"
		"                      and the ratios\n"
		"  --nic D,C,A         with --chains or --offload: ns to start a\n"
		"                      descriptor, ps per byte copied, ps per operand\n"
		"                      byte reduced (default 100,100,250)\n"
		"  -q, --quiet         print only the maximum, not every rank\n"
		"  -j, --json          one JSON document: {\"ranks\", \"finish_ns\": [...],\n"
		"                      \"max_ns\", \"events\", \"wall_s\"}\n"
		"  -p, --pretty        indent the JSON\n"
		"\n"
		"Exit status: 0 simulated, 1 the simulation failed (a receive never\n"
		"matched, a cycle of waits, a chain that never fired or feeds itself,\n"
		"time past 2^64 ns), 2 usage error or a malformed GOAL or chain file\n"
		"(file:line: why).\n");
}

/* "a,b,c,d[,e,f]" into @p */
static int sim_parse_loggp(const char *s, struct th_sim_params *p)
{
	uint64_t v[6];
	const char *c = s;
	unsigned int n = 0;
	char *end;

	while (n < 6) {
		if (*c < '0' || *c > '9')
			return -1;
		errno = 0;
		v[n++] = strtoull(c, &end, 10);
		if (errno)
			return -1;
		if (!*end)
			break;
		if (*end != ',')
			return -1;
		c = end + 1;
	}
	if ((n != 4 && n != 6) || *end)
		return -1;
	p->L = v[0];
	p->o = v[1];
	p->g = v[2];
	p->G = v[3];
	if (n == 6) {
		p->O = v[4];
		p->S = v[5];
	}
	return 0;
}

static int sim_num(const char *opt, const char *s, uint64_t max, uint64_t *v)
{
	char *end;

	errno = 0;
	if (*s < '0' || *s > '9' || ((*v = strtoull(s, &end, 10)), errno) ||
	    *end || *v > max) {
		fprintf(stderr, "thctl sim: %s: expected a number up to %" PRIu64 ", got '%s'\n",
			opt, max, s);
		return -1;
	}
	return 0;
}

/* the whole of @path, NUL-terminated; NULL with the reason said */
static char *sim_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	long size;

	if (!f) {
		fprintf(stderr, "thctl sim: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	if (fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "thctl sim: %s: cannot tell its size: %s\n", path,
			strerror(errno));
		goto out;
	}
	if ((unsigned long long)size > SIM_MAX_FILE) {
		fprintf(stderr, "thctl sim: %s: %ld bytes: larger than the 1 GiB a GOAL file may be\n",
			path, size);
		goto out;
	}
	buf = malloc((size_t)size + 1);
	if (!buf) {
		fprintf(stderr, "thctl sim: %s: out of memory\n", path);
		goto out;
	}
	if (fread(buf, 1, (size_t)size, f) != (size_t)size) {
		fprintf(stderr, "thctl sim: %s: read failed\n", path);
		free(buf);
		buf = NULL;
		goto out;
	}
	buf[size] = '\0';
	*len = (size_t)size;
out:
	fclose(f);
	return buf;
}

static int sim_export(const struct th_sim_goal *g, const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
	int ret;

	if (!f) {
		fprintf(stderr, "thctl sim: --export-goal %s: %s\n", path, strerror(errno));
		return -1;
	}
	ret = th_sim_goal_write(g, f);
	if (f != stdout ? fclose(f) : fflush(f))
		ret = -EIO;
	if (ret) {
		fprintf(stderr, "thctl sim: --export-goal %s: write failed\n", path);
		return -1;
	}
	return 0;
}

/*
 * --export-goal with --plan or --chains: @set's first round as GOAL to
 * @path; 1 when that was all (to standard output), 0 to go on, -1 failed.
 */
static int sim_export_set(const struct th_verify_set *set,
			  const struct th_sim_nic *nic, const char *path)
{
	struct th_sim_goal *g;
	char err[512] = "";
	int ret;

	if (!path)
		return 0;
	ret = th_sim_chains_goal(set, nic, &g, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "thctl sim: --export-goal: %s\n",
			err[0] ? err : strerror(-ret));
		return -1;
	}
	ret = sim_export(g, path);
	th_sim_goal_destroy(g);
	return ret ? -1 : !strcmp(path, "-");
}

/* @res's keys in an open JSON object: ranks, finish_ns, max_ns, events, wall_s */
static void sim_json_result(struct tj *t, const struct th_sim_result *res,
			    double wall)
{
	unsigned int r;

	tj_kv_u64(t, "ranks", res->ranks);
	tj_key(t, "finish_ns");
	tj_arr_begin(t);
	for (r = 0; r < res->ranks; r++)
		tj_u64(t, res->finish_ns[r]);
	tj_arr_end(t);
	tj_kv_u64(t, "max_ns", res->max_ns);
	tj_kv_u64(t, "events", res->events);
	tj_key(t, "wall_s");
	tj_double(t, wall);
}

static void sim_print(const struct th_sim_result *res, double wall, bool quiet,
		      bool json, bool pretty)
{
	unsigned int r, argmax = 0;
	struct tj t;

	for (r = 0; r < res->ranks; r++)
		if (res->finish_ns[r] == res->max_ns) {
			argmax = r;
			break;
		}
	if (json) {
		tj_init(&t, stdout, pretty);
		tj_obj_begin(&t);
		sim_json_result(&t, res, wall);
		tj_obj_end(&t);
		tj_finish(&t);
		return;
	}
	if (!quiet)
		for (r = 0; r < res->ranks; r++)
			printf("rank %u: %" PRIu64 " ns\n", r, res->finish_ns[r]);
	printf("max: %" PRIu64 " ns (rank %u); %u ranks, %" PRIu64 " events, %.3f s\n",
	       res->max_ns, argmax, res->ranks, res->events, wall);
}

/* "d,c,a" into @n */
static int sim_parse_nic(const char *s, struct th_sim_nic *n)
{
	unsigned long long d, c, a;
	char tail;

	if (*s < '0' || *s > '9' ||
	    sscanf(s, "%llu,%llu,%llu%c", &d, &c, &a, &tail) != 3 ||
	    d >= 1ull << 32 || c >= 1ull << 32 || a >= 1ull << 32)
		return -1;
	n->desc_ns = d;
	n->copy_ps = c;
	n->alu_ps = a;
	return 0;
}

static double sim_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) +
	       (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* --reduce-per-byte @per_byte for messages of @bytes: a calc's time */
static uint64_t sim_calc(double per_byte, uint64_t bytes)
{
	double t = per_byte * (double)bytes;

	/* past GOAL's 2^40, which the generator refuses with a message */
	return t < 0x1p40 ? (uint64_t)llround(t) : 1ull << 40;
}

/* one of --host-driven's variants beside the plan */
struct sim_variant {
	const char *name;
	struct th_sim_result res;
	double wall;
};

/*
 * --plan KIND --host-driven: the GOAL pattern of the same tree run by
 * the hosts (@v[0]) and compiled into chains (@v[1]), in one command
 * with the plan; 0, or the first failure (said).
 */
static int sim_beside(const char *kind, unsigned int ranks,
		      unsigned int radix, uint64_t bytes, uint64_t calc,
		      const struct th_sim_params *p,
		      const struct th_sim_nic *nic, struct sim_variant v[2])
{
	struct th_sim_goal *g;
	struct timespec t0;
	char err[512] = "";
	int ret, i;

	v[0].name = "host-driven";
	v[1].name = "offloaded-tree";
	ret = th_sim_goal_gen_calc(kind, ranks, radix, bytes, calc, &g, err,
				   sizeof(err));
	if (ret) {
		fprintf(stderr, "thctl sim: --host-driven: %s\n",
			err[0] ? err : strerror(-ret));
		return ret;
	}
	for (i = 0; i < 2; i++) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		ret = i ? th_sim_goal_offload(g, p, nic, &v[i].res, err,
					      sizeof(err)) :
			  th_sim_run(g, p, &v[i].res, err, sizeof(err));
		v[i].wall = sim_since(&t0);
		if (ret) {
			fprintf(stderr, "thctl sim: --host-driven: %s: %s\n",
				v[i].name, err[0] ? err : strerror(-ret));
			break;
		}
	}
	th_sim_goal_destroy(g);
	return ret;
}

/* the plan's result, then each variant's beside it and the ratios */
static void sim_print_beside(const struct th_sim_result *res, double wall,
			     const struct sim_variant v[2], bool quiet,
			     bool json, bool pretty)
{
	unsigned int r;
	struct tj t;
	int i;

	if (!json) {
		for (r = 0; !quiet && r < res->ranks; r++)
			printf("rank %u: %" PRIu64 " ns\n", r, res->finish_ns[r]);
		printf("plan: max %" PRIu64 " ns; %u ranks, %" PRIu64 " events, %.3f s\n",
		       res->max_ns, res->ranks, res->events, wall);
		for (i = 0; i < 2; i++)
			printf("%s: max %" PRIu64 " ns; plan / %s %.3f\n",
			       v[i].name, v[i].res.max_ns, v[i].name,
			       v[i].res.max_ns ? (double)res->max_ns /
						 (double)v[i].res.max_ns : 0.0);
		return;
	}
	tj_init(&t, stdout, pretty);
	tj_obj_begin(&t);
	sim_json_result(&t, res, wall);
	tj_key(&t, "beside");
	tj_arr_begin(&t);
	for (i = 0; i < 2; i++) {
		tj_obj_begin(&t);
		tj_kv_str(&t, "name", v[i].name);
		sim_json_result(&t, &v[i].res, v[i].wall);
		tj_key(&t, "plan_ratio");
		tj_double(&t, v[i].res.max_ns ? (double)res->max_ns /
						 (double)v[i].res.max_ns : 0.0);
		tj_obj_end(&t);
	}
	tj_arr_end(&t);
	tj_obj_end(&t);
	tj_finish(&t);
}

/* the ranks of a --plan: each a node, in the library's plan */
#define SIM_PLAN_MAX_RANKS	65536u

/* thctl sim --plan KIND: the library's plan of a collective, one round */
static int sim_plan(const char *kind, unsigned int ranks, unsigned int radix,
		    uint64_t bytes, double per_byte,
		    const struct th_sim_params *p,
		    const struct th_sim_nic *nic, const char *export,
		    bool beside, bool quiet, bool json, bool pretty)
{
	struct sim_variant v[2] = { 0 };
	struct th_coll_attr attr = {
		.op = TH_NIC_ALU_SUM, .dtype = TH_NIC_DT_INT64, .radix = radix,
	};
	struct th_sim_result res = { 0 };
	struct th_verify_set *set;
	struct timespec t0;
	struct th_coll *cl;
	char err[512] = "";
	double wall;
	int ret;

	if (!strcmp(kind, "allreduce")) {
		attr.kind = TH_COLL_ALLREDUCE;
	} else if (!strcmp(kind, "reduce")) {
		attr.kind = TH_COLL_REDUCE;
	} else if (!strcmp(kind, "bcast")) {
		attr.kind = TH_COLL_BCAST;
	} else {
		fprintf(stderr, "thctl sim: unknown plan '%s': allreduce, reduce or bcast\n",
			kind);
		return THCTL_EXIT_USAGE;
	}
	if (ranks < 2 || ranks > SIM_PLAN_MAX_RANKS || radix < 2 ||
	    bytes / 8 > UINT32_MAX) {
		fprintf(stderr, "thctl sim: --plan takes 2 to %u ranks, a radix of 2 or more and bytes below 32 GiB\n",
			SIM_PLAN_MAX_RANKS);
		return THCTL_EXIT_USAGE;
	}
	attr.count = bytes / 8 ? (uint32_t)(bytes / 8) : 1;
	cl = th_coll_describe(ranks, &attr, NULL);
	set = cl ? th_coll_set(cl, NULL) : NULL;
	if (!set) {
		fprintf(stderr, "thctl sim: cannot build the %s plan of %u ranks: %s\n",
			kind, ranks, strerror(errno));
		th_coll_destroy(cl);
		return THCTL_EXIT_FAIL;
	}
	ret = sim_export_set(set, nic, export);
	if (ret) {
		th_coll_set_free(set);
		th_coll_destroy(cl);
		return ret < 0 ? THCTL_EXIT_FAIL : THCTL_EXIT_OK;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = th_sim_chains(set, p, nic, &res, NULL, err, sizeof(err));
	wall = sim_since(&t0);
	if (ret)
		fprintf(stderr, "thctl sim: %s plan: %s\n", kind,
			err[0] ? err : strerror(-ret));
	else if (beside)	/* the same bytes as the plan's elements */
		ret = sim_beside(kind, ranks, radix,
				 (uint64_t)attr.count * sizeof(int64_t),
				 sim_calc(per_byte, (uint64_t)attr.count *
						    sizeof(int64_t)), p, nic, v);
	if (!ret && beside)
		sim_print_beside(&res, wall, v, quiet, json, pretty);
	else if (!ret)
		sim_print(&res, wall, quiet, json, pretty);
	th_sim_result_fini(&v[0].res);
	th_sim_result_fini(&v[1].res);
	th_sim_result_fini(&res);
	th_coll_set_free(set);
	th_coll_destroy(cl);
	return ret ? THCTL_EXIT_FAIL : THCTL_EXIT_OK;
}

/* thctl sim --chains FILE: a chain file's chains in virtual time */
static int sim_chains_file(const char *path, const struct th_sim_params *p,
			   const struct th_sim_nic *nic, const char *export,
			   bool quiet, bool json, bool pretty)
{
	struct th_sim_result res = { 0 };
	struct chainfile *cf;
	struct cf_diag diag;
	struct timespec t0;
	uint64_t *done;
	struct cf_set cs;
	char err[512] = "";
	unsigned int i;
	struct tj t;
	double wall;
	int ret;

	/* no fabric's limits: the simulator takes what the file names */
	cf = cf_load(path, NULL, 0, &diag);
	if (!cf) {
		cf_report("sim", path, &diag);
		return THCTL_EXIT_USAGE;
	}
	done = calloc(cf->nchains + 1, sizeof(*done));
	if (!done || cf_set_build(cf, &cs)) {
		fprintf(stderr, "thctl sim: %s: out of memory\n", path);
		free(done);
		cf_free(cf);
		return THCTL_EXIT_FAIL;
	}
	ret = sim_export_set(&cs.set, nic, export);
	if (ret) {
		ret = ret < 0 ? THCTL_EXIT_FAIL : THCTL_EXIT_OK;
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = th_sim_chains(&cs.set, p, nic, &res, done, err, sizeof(err));
	wall = sim_since(&t0);
	if (ret) {
		fprintf(stderr, "thctl sim: %s: %s\n", path,
			err[0] ? err : strerror(-ret));
		ret = ret == -EINVAL ? THCTL_EXIT_USAGE : THCTL_EXIT_FAIL;
		goto out;
	}
	if (json) {
		tj_init(&t, stdout, pretty);
		tj_obj_begin(&t);
		tj_kv_u64(&t, "nodes", res.ranks);
		tj_key(&t, "finish_ns");
		tj_arr_begin(&t);
		for (i = 0; i < res.ranks; i++)
			tj_u64(&t, res.finish_ns[i]);
		tj_arr_end(&t);
		tj_key(&t, "chains");
		tj_arr_begin(&t);
		for (i = 0; i < cf->nchains; i++) {
			tj_obj_begin(&t);
			tj_kv_str(&t, "name", cf->chains[i].name);
			tj_key(&t, "done_ns");
			if (done[i] == UINT64_MAX)
				tj_null(&t);
			else
				tj_u64(&t, done[i]);
			tj_obj_end(&t);
		}
		tj_arr_end(&t);
		tj_kv_u64(&t, "max_ns", res.max_ns);
		tj_kv_u64(&t, "events", res.events);
		tj_key(&t, "wall_s");
		tj_double(&t, wall);
		tj_obj_end(&t);
		tj_finish(&t);
	} else {
		for (i = 0; !quiet && i < res.ranks; i++)
			printf("node %u: %" PRIu64 " ns\n", i, res.finish_ns[i]);
		for (i = 0; !quiet && i < cf->nchains; i++) {
			if (done[i] == UINT64_MAX)
				printf("chain %s: never fired\n", cf->chains[i].name);
			else
				printf("chain %s: %" PRIu64 " ns\n",
				       cf->chains[i].name, done[i]);
		}
		printf("max: %" PRIu64 " ns; %u nodes, %u chains, %" PRIu64 " events, %.3f s\n",
		       res.max_ns, res.ranks, cf->nchains, res.events, wall);
	}
	ret = THCTL_EXIT_OK;
out:
	th_sim_result_fini(&res);
	cf_set_free(&cs);
	free(done);
	cf_free(cf);
	return ret;
}

int thctl_sim_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "loggp", required_argument, NULL, 'l' },
		{ "pattern", required_argument, NULL, 'P' },
		{ "ranks", required_argument, NULL, 'n' },
		{ "radix", required_argument, NULL, 'k' },
		{ "bytes", required_argument, NULL, 'b' },
		{ "export-goal", required_argument, NULL, 'e' },
		{ "chains", required_argument, NULL, 'c' },
		{ "nic", required_argument, NULL, 'N' },
		{ "offload", no_argument, NULL, 'O' },
		{ "plan", required_argument, NULL, 'L' },
		{ "host-driven", no_argument, NULL, 'H' },
		{ "reduce-per-byte", required_argument, NULL, 'R' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *pattern = NULL, *export = NULL, *path = NULL, *chains = NULL;
	const char *plan = NULL;
	struct th_sim_nic nic;
	bool have_nic = false, offload = false, beside = false;
	uint64_t ranks = 0, radix = 2, bytes = 8;
	double per_byte = 0;
	bool have_per_byte = false;
	bool quiet = false, json = false, pretty = false, have_ranks = false;
	struct th_sim_goal *g = NULL;
	struct th_sim_result res;
	struct th_sim_params p;
	struct timespec t0, t1;
	char err[512] = "";
	int c, ret;

	th_sim_params_default(&p);
	th_sim_nic_default(&nic);
	optind = 1;
	while ((c = getopt_long(argc, argv, "qjph", longopts, NULL)) != -1) {
		switch (c) {
		case 'l':
			if (sim_parse_loggp(optarg, &p)) {
				fprintf(stderr, "thctl sim: --loggp: expected L,o,g,G or L,o,g,G,O,S (whole ns), got '%s'\n",
					optarg);
				return THCTL_EXIT_USAGE;
			}
			break;
		case 'P':
			pattern = optarg;
			break;
		case 'n':
			if (sim_num("--ranks", optarg, 1u << 24, &ranks))
				return THCTL_EXIT_USAGE;
			have_ranks = true;
			break;
		case 'k':
			if (sim_num("--radix", optarg, UINT32_MAX, &radix))
				return THCTL_EXIT_USAGE;
			break;
		case 'b':
			if (sim_num("--bytes", optarg, UINT64_MAX, &bytes))
				return THCTL_EXIT_USAGE;
			break;
		case 'e':
			export = optarg;
			break;
		case 'c':
			chains = optarg;
			break;
		case 'O':
			offload = true;
			break;
		case 'L':
			plan = optarg;
			break;
		case 'H':
			beside = true;
			break;
		case 'R': {
			char *end;

			errno = 0;
			per_byte = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(per_byte >= 0) ||
			    per_byte > 1e9) {
				fprintf(stderr, "thctl sim: --reduce-per-byte: expected time units per byte, 0 to 1e9, got '%s'\n",
					optarg);
				return THCTL_EXIT_USAGE;
			}
			have_per_byte = true;
			break;
		}
		case 'N':
			if (sim_parse_nic(optarg, &nic)) {
				fprintf(stderr, "thctl sim: --nic: expected D,C,A (whole ns, ps, ps below 2^32), got '%s'\n",
					optarg);
				return THCTL_EXIT_USAGE;
			}
			have_nic = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'j':
			json = true;
			break;
		case 'p':
			pretty = true;
			break;
		case 'h':
			sim_usage(stdout);
			return THCTL_EXIT_OK;
		default:
			sim_usage(stderr);
			return THCTL_EXIT_USAGE;
		}
	}
	if (beside && (!plan || export)) {
		fprintf(stderr, "thctl sim: --host-driven goes with --plan, without --export-goal\n");
		return THCTL_EXIT_USAGE;
	}
	if (have_per_byte && !pattern && !beside) {
		fprintf(stderr, "thctl sim: --reduce-per-byte goes with --pattern or --plan --host-driven\n");
		return THCTL_EXIT_USAGE;
	}
	if (chains) {
		if (optind < argc || pattern || have_ranks || offload || plan ||
		    have_per_byte) {
			fprintf(stderr, "thctl sim: --chains FILE goes alone: no GOAL file, --pattern, --plan, --ranks, --offload or --reduce-per-byte\n");
			return THCTL_EXIT_USAGE;
		}
		return sim_chains_file(chains, &p, &nic, export, quiet, json,
				       pretty);
	}
	if (plan) {
		if (optind < argc || pattern || offload || !have_ranks) {
			fprintf(stderr, "thctl sim: --plan KIND takes --ranks N (and --radix, --bytes, --nic, --export-goal, --host-driven), no GOAL file, --pattern or --offload\n");
			return THCTL_EXIT_USAGE;
		}
		return sim_plan(plan, (unsigned int)ranks,
				radix > UINT32_MAX ? 0 : (unsigned int)radix,
				bytes, per_byte, &p, &nic, export, beside, quiet,
				json, pretty);
	}
	if (have_nic && !offload) {
		fprintf(stderr, "thctl sim: --nic goes with --chains, --offload or --plan\n");
		return THCTL_EXIT_USAGE;
	}
	if (optind < argc)
		path = argv[optind++];
	if (optind < argc || (!path == !pattern)) {
		fprintf(stderr, "thctl sim: %s (--help for usage)\n",
			!path ? "give a GOAL file or --pattern" :
			pattern ? "a GOAL file or --pattern, not both" :
				  "one GOAL file at a time");
		return THCTL_EXIT_USAGE;
	}
	if (pattern && !have_ranks) {
		fprintf(stderr, "thctl sim: --pattern needs --ranks N\n");
		return THCTL_EXIT_USAGE;
	}
	if (path && (have_ranks || radix != 2 || bytes != 8)) {
		fprintf(stderr, "thctl sim: --ranks, --radix and --bytes go with --pattern, not a file\n");
		return THCTL_EXIT_USAGE;
	}

	if (path) {
		size_t len;
		char *text = sim_read_file(path, &len);

		if (!text)
			return THCTL_EXIT_FAIL;
		ret = th_sim_goal_parse(text, len, path, &g, err, sizeof(err));
		free(text);
	} else {
		ret = th_sim_goal_gen_calc(pattern, (unsigned int)ranks,
					   radix > UINT32_MAX ? 0 :
					   (unsigned int)radix, bytes,
					   sim_calc(per_byte, bytes), &g, err,
					   sizeof(err));
	}
	if (ret) {
		fprintf(stderr, "thctl sim: %s\n", err[0] ? err : strerror(-ret));
		return ret == -ENOMEM ? THCTL_EXIT_FAIL : THCTL_EXIT_USAGE;
	}
	if (export) {
		if (sim_export(g, export)) {
			th_sim_goal_destroy(g);
			return THCTL_EXIT_FAIL;
		}
		if (!strcmp(export, "-")) {
			th_sim_goal_destroy(g);
			return THCTL_EXIT_OK;
		}
	}

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (offload) {
		ret = th_sim_goal_offload(g, &p, &nic, &res, err, sizeof(err));
	} else {
		ret = th_sim_run(g, &p, &res, err, sizeof(err));
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	th_sim_goal_destroy(g);
	if (ret) {
		fprintf(stderr, "thctl sim: %s\n", err[0] ? err : strerror(-ret));
		return ret == -EINVAL ? THCTL_EXIT_USAGE : THCTL_EXIT_FAIL;
	}
	sim_print(&res, (double)(t1.tv_sec - t0.tv_sec) +
			(double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
		  quiet, json, pretty);
	th_sim_result_fini(&res);
	return THCTL_EXIT_OK;
}
