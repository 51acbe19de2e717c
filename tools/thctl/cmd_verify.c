// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * cmd_verify.c - 'thctl verify FILE': prove, before anything is posted,
 * that the chains of a chain file will fire, finish and fit, with the
 * counter updates of its 'start' actions as the host's (th_verify(),
 * Documentation/verify.rst); each finding as FILE:LINE: CLASS: chain
 * NAME counter C: why, and its path.  'thctl verify --plan KIND': the
 * same for the plan the library compiles for a collective
 * (th_coll_describe(), th_coll_verify()), with the verifier's time.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <thverbs/verbs.h>
#include <thverbs/coll.h>
#include <thverbs/verify.h>
#include "finding.h"
#include "json.h"
#include "thctl.h"
#include "chainfile.h"
#include "chainset.h"

static void verify_usage(FILE *f)
{
	fprintf(f,
		"usage: thctl verify [--provider kernel|inproc|auto] [--sq-entries N]\n"
		"                    [--cq-entries N] [-j [-p]] FILE\n"
		"       thctl verify --plan allreduce|reduce|bcast --nodes N --radix K\n"
		"                    [--bytes B] [--provider P] [-j [-p]]\n\n"
		"Prove that the chains of chain FILE (the format of 'thctl post') will\n"
		"fire, finish and fit, with its 'start' actions as the host's counter\n"
		"updates; nothing is posted.  Each finding is printed as\n"
		"  FILE:LINE: CLASS: chain NAME counter C: why\n"
		"followed by its path of chains and counters.  Classes: unreachable (a\n"
		"threshold no source can reach), cycle (chains that wait on each other),\n"
		"fit (beyond a limit of the NIC), self-rearm (a re-arming chain that\n"
		"feeds itself); warnings: immediate (fires when posted), writers (a\n"
		"counter set and written by another update).  Documentation/verify.rst.\n\n"
		"--plan verifies the chains the library compiles for a collective of N\n"
		"ranks (rank r on node r) over a radix-K k-nomial tree, B bytes per rank\n"
		"(default 8; int64 sum), without posting them, and prints the verifier's\n"
		"time (the median of 5 runs; -j: \"verify_s\").\n\n"
		"  --provider P     whose node 0 gives the limits (default auto)\n"
		"  --sq-entries N   SQ slots of each vport (default: max_sq_entries)\n"
		"  --cq-entries N   CQ entries of each vport (default: max_cq_entries)\n"
		"  --plan KIND      the library's plan of allreduce, reduce or bcast\n"
		"  --nodes N        ranks of the plan, 2 ... 1048576\n"
		"  --radix K        the tree's radix, >= 2\n"
		"  --bytes B        bytes per rank (default 8)\n"
		"  -j, --json       one JSON document: {\"file\", \"ok\", \"findings\": [...]}\n"
		"                   (--plan: {\"plan\", \"nodes\", \"radix\", \"bytes\",\n"
		"                   \"chains\", \"ok\", \"verify_s\", \"findings\"}); -p indents it\n\n"
		"Exit status: 0 no finding but warnings; 1 findings; 2 usage error or a\n"
		"malformed FILE.\n");
}

static unsigned int verify_line(const struct chainfile *cf,
				const struct th_verify_finding *f)
{
	const struct cf_chain *c;
	unsigned int i;

	/* a wait that cannot end: the expect line that declares it */
	for (i = 0; f->cls == TH_VERIFY_WAIT && i < cf->nactions; i++)
		if (cf->actions[i].kind == CF_ACT_EXPECT &&
		    cf->actions[i].node == f->counter.node &&
		    cf->actions[i].ct == f->counter.ct)
			return cf->actions[i].line;
	if (f->chain >= cf->nchains)
		return 0;
	c = &cf->chains[f->chain];
	return f->desc < c->ndesc ? c->desc[f->desc].line : c->line;
}

static void verify_print(const char *path, const struct chainfile *cf,
			 const struct th_verify_finding *f)
{
	unsigned int line = verify_line(cf, f), i;
	char cs[48] = "-";

	if (f->has_counter)
		thctl_counter_str(&f->counter, cs, sizeof(cs));
	if (line)
		printf("%s:%u: ", path, line);
	else
		printf("%s: ", path);
	printf("%s: chain %s counter %s: %s\n", th_verify_class_name(f->cls),
	       f->chain < cf->nchains ? cf->chains[f->chain].name : "-", cs,
	       f->why);
	if (!f->npath)
		return;
	printf("  path:");
	for (i = 0; i < f->npath; i++) {
		thctl_counter_str(&f->path[i].counter, cs, sizeof(cs));
		printf(" %s -> %s ->", cf->chains[f->path[i].chain].name, cs);
	}
	/* a path leads to the finding's chain */
	printf(" %s\n", f->chain < cf->nchains ? cf->chains[f->chain].name : "-");
}

/* A chain file's chain by its name (thctl_finding_json()). */
static bool verify_file_chain(const void *arg, uint32_t chain, char *buf,
			      size_t len)
{
	const struct chainfile *cf = arg;

	if (chain >= cf->nchains)
		return false;
	snprintf(buf, len, "%s", cf->chains[chain].name);
	return true;
}

static void verify_file_keys(struct tj *j, const void *arg,
			     const struct th_verify_finding *f)
{
	tj_kv_u64(j, "line", verify_line(arg, f));
}

static void verify_json(struct tj *j, const struct chainfile *cf,
			const struct th_verify_finding *f)
{
	thctl_finding_json(j, f, verify_file_chain, verify_file_keys, cf);
}

/* The limits: node 0 of @provider's answer, the fabric's node count. */
static int verify_limits(const char *provider, struct th_nic_query *q)
{
	struct th_device **devs;
	struct th_context *ctx;
	int ndevs = 0;

	devs = th_device_list_get(provider, &ndevs);
	if (!devs || !ndevs) {
		fprintf(stderr, "thctl verify: no th_nic nodes (provider %s) to take the limits from: %s\n",
			provider ? provider : "auto",
			devs ? "none found" : strerror(errno));
		th_device_list_free(devs);
		return -ENODEV;
	}
	ctx = th_device_open(devs[0]);
	if (!ctx || th_device_query(ctx, q)) {
		fprintf(stderr, "thctl verify: cannot query node 0: %s\n",
			th_strerror(-errno));
		if (ctx)
			th_device_close(ctx);
		th_device_list_free(devs);
		return -EIO;
	}
	th_device_close(ctx);
	if ((uint32_t)ndevs < q->node_count)
		q->node_count = (uint32_t)ndevs;
	th_device_list_free(devs);
	return 0;
}

static int verify_u32_arg(const char *s, uint32_t *v)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = strtoul(s, &end, 0);
	if (errno || *end || !*s || !x || x > UINT32_MAX)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

/* Verify @cf against @set's limits; the findings printed; the exit status. */
static int verify_file(const char *path, const struct chainfile *cf,
		       struct th_verify_set *set, bool json, bool pretty)
{
	struct th_verify_finding *f = NULL;
	unsigned int i, errors = 0;
	int n, ret = THCTL_EXIT_FAIL;
	struct cf_set cs;
	struct tj j;

	if (cf_set_build(cf, &cs))
		goto out;
	cs.set.limits = set->limits;
	cs.set.sq_entries = set->sq_entries;
	cs.set.cq_entries = set->cq_entries;
	set = &cs.set;
	n = th_verify(set, NULL, 0);
	if (n >= 0) {
		f = calloc((size_t)n + 1, sizeof(*f));
		if (!f)
			goto out;
		n = th_verify(set, f, (unsigned int)n);
	}
	if (n < 0) {
		fprintf(stderr, "thctl verify: %s: %s\n", path, strerror(-n));
		goto out;
	}
	for (i = 0; i < (unsigned int)n; i++)
		errors += !th_verify_class_is_warning(f[i].cls);
	if (json) {
		tj_init(&j, stdout, pretty);
		tj_obj_begin(&j);
		tj_kv_str(&j, "file", path);
		tj_key(&j, "ok");
		tj_bool(&j, !errors);
		tj_key(&j, "findings");
		tj_arr_begin(&j);
		for (i = 0; i < (unsigned int)n; i++)
			verify_json(&j, cf, &f[i]);
		tj_arr_end(&j);
		tj_obj_end(&j);
		tj_finish(&j);
	} else {
		for (i = 0; i < (unsigned int)n; i++)
			verify_print(path, cf, &f[i]);
		printf("%s: %u chain(s), %u finding(s), %u warning(s)\n", path,
		       cf->nchains, errors, (unsigned int)n - errors);
	}
	ret = errors ? THCTL_EXIT_FAIL : THCTL_EXIT_OK;
out:
	free(f);
	cf_set_free(&cs);
	return ret;
}

/*
 * thctl post --verify: @cf, which post loaded, verified against @q (post's
 * node 0, its node count already the fabric's) before anything is set
 * up; the findings printed as thctl verify prints them.  THCTL_EXIT_OK
 * when it may be posted.
 */
int thctl_verify_loaded(const char *path, const struct chainfile *cf,
			const struct th_nic_query *q)
{
	struct th_verify_set set = { .limits = q };

	return verify_file(path, cf, &set, false, false);
}

/* ---- --plan: the library's own plans ------------------------------------ */

struct verify_plan_args {
	const char *kind;
	uint32_t nodes, radix;
	uint64_t bytes;
};

static double verify_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int verify_double_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* "r3#17": the rank whose vport runs step @i, and the step */
static void verify_step_name(const struct th_coll *cl, uint32_t i, char *buf,
			     size_t len)
{
	struct th_coll_step st;

	if (th_coll_plan_step(cl, i, &st))
		snprintf(buf, len, "#%u", i);
	else
		snprintf(buf, len, "r%u#%u", st.rank, i);
}

static void verify_plan_print(const struct th_coll *cl,
			      const struct th_verify_finding *f)
{
	struct th_coll_step st = { 0 };
	char cs[48] = "-", nm[32];
	unsigned int i;

	if (f->has_counter)
		thctl_counter_str(&f->counter, cs, sizeof(cs));
	verify_step_name(cl, f->chain, nm, sizeof(nm));
	th_coll_plan_step(cl, f->chain, &st);
	printf("%s: chain %s (%s) counter %s: %s\n", th_verify_class_name(f->cls),
	       nm, st.what ? st.what : "-", cs, f->why);
	if (!f->npath)
		return;
	printf("  path:");
	for (i = 0; i < f->npath; i++) {
		verify_step_name(cl, f->path[i].chain, nm, sizeof(nm));
		thctl_counter_str(&f->path[i].counter, cs, sizeof(cs));
		printf(" %s -> %s ->", nm, cs);
	}
	verify_step_name(cl, f->chain, nm, sizeof(nm));
	printf(" %s\n", nm);
}

/* A plan's step by its name, rN#I (thctl_finding_json()). */
static bool verify_plan_chain(const void *arg, uint32_t chain, char *buf,
			      size_t len)
{
	verify_step_name(arg, chain, buf, len);
	return true;
}

static void verify_plan_keys(struct tj *j, const void *arg,
			     const struct th_verify_finding *f)
{
	struct th_coll_step st = { 0 };

	th_coll_plan_step(arg, f->chain, &st);
	tj_kv_u64(j, "rank", st.rank);
	tj_kv_str(j, "what", st.what ? st.what : "");
}

static void verify_plan_json(struct tj *j, const struct th_coll *cl,
			     const struct th_verify_finding *f)
{
	thctl_finding_json(j, f, verify_plan_chain, verify_plan_keys, cl);
}

#define VERIFY_PLAN_RUNS	5
#define VERIFY_PLAN_MAX_NODES	(1u << 20)

/*
 * The plan of @a, described (nothing posted), verified against @q with
 * the fabric taken to have a node per rank; the verifier timed over
 * VERIFY_PLAN_RUNS runs, the median reported.
 */
static int verify_plan(const struct verify_plan_args *a, struct th_nic_query *q,
		       bool json, bool pretty)
{
	struct th_coll_attr attr = {
		.op = TH_NIC_ALU_SUM, .dtype = TH_NIC_DT_INT64,
		.radix = a->radix,
	};
	struct th_verify_finding *f = NULL;
	double t[VERIFY_PLAN_RUNS], t0;
	unsigned int i, errors = 0, nsteps = 0;
	struct th_coll_step st;
	struct th_coll *cl;
	int n = 0, ret = THCTL_EXIT_FAIL;
	struct tj j;

	if (!strcmp(a->kind, "allreduce"))
		attr.kind = TH_COLL_ALLREDUCE;
	else if (!strcmp(a->kind, "reduce"))
		attr.kind = TH_COLL_REDUCE;
	else
		attr.kind = TH_COLL_BCAST;
	attr.count = a->bytes / 8 ? (uint32_t)(a->bytes / 8) : 1;
	q->node_count = a->nodes;
	cl = th_coll_describe(a->nodes, &attr, q);
	if (!cl) {
		fprintf(stderr, "thctl verify: cannot build the %s plan of %u ranks: %s\n",
			a->kind, a->nodes, strerror(errno));
		return THCTL_EXIT_FAIL;
	}
	while (!th_coll_plan_step(cl, nsteps, &st))
		nsteps++;
	for (i = 0; i < VERIFY_PLAN_RUNS; i++) {
		t0 = verify_now();
		n = th_coll_verify(cl, q, f, f ? (unsigned int)n : 0);
		t[i] = verify_now() - t0;
		if (n < 0)
			break;
		if (!f) {
			f = calloc((size_t)n + 1, sizeof(*f));
			if (!f) {
				n = -ENOMEM;
				break;
			}
		}
	}
	if (n < 0) {
		fprintf(stderr, "thctl verify: %s plan: %s\n", a->kind, strerror(-n));
		goto out;
	}
	/* the last runs filled @f: as many as the first counted */
	qsort(t, VERIFY_PLAN_RUNS, sizeof(t[0]), verify_double_cmp);
	for (i = 0; i < (unsigned int)n; i++)
		errors += !th_verify_class_is_warning(f[i].cls);
	if (json) {
		tj_init(&j, stdout, pretty);
		tj_obj_begin(&j);
		tj_kv_str(&j, "plan", a->kind);
		tj_kv_u64(&j, "nodes", a->nodes);
		tj_kv_u64(&j, "radix", a->radix);
		tj_kv_u64(&j, "bytes", a->bytes);
		tj_kv_u64(&j, "chains", nsteps);
		tj_key(&j, "ok");
		tj_bool(&j, !errors);
		tj_key(&j, "verify_s");
		tj_double(&j, t[VERIFY_PLAN_RUNS / 2]);
		tj_key(&j, "findings");
		tj_arr_begin(&j);
		for (i = 0; i < (unsigned int)n; i++)
			verify_plan_json(&j, cl, &f[i]);
		tj_arr_end(&j);
		tj_obj_end(&j);
		tj_finish(&j);
	} else {
		for (i = 0; i < (unsigned int)n; i++)
			verify_plan_print(cl, &f[i]);
		printf("%s --nodes %u --radix %u --bytes %llu: %u chain(s), %u finding(s), %u warning(s); verified in %.6f s (median of %d)\n",
		       a->kind, a->nodes, a->radix, (unsigned long long)a->bytes,
		       nsteps, errors, (unsigned int)n - errors,
		       t[VERIFY_PLAN_RUNS / 2], VERIFY_PLAN_RUNS);
	}
	ret = errors ? THCTL_EXIT_FAIL : THCTL_EXIT_OK;
out:
	free(f);
	th_coll_destroy(cl);
	return ret;
}

int thctl_verify_main(int argc, char **argv)
{
	const char *provider = NULL, *path = NULL;
	struct th_nic_query q = { .size = sizeof(q) };
	struct th_verify_set set = { 0 };
	struct verify_plan_args plan = { .bytes = 8 };
	bool json = false, pretty = false;
	struct cf_diag diag;
	struct chainfile *cf;
	int i, ret;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			verify_usage(stdout);
			return THCTL_EXIT_OK;
		} else if (!strcmp(argv[i], "--provider") && i + 1 < argc) {
			provider = argv[++i];
		} else if (!strcmp(argv[i], "--sq-entries") && i + 1 < argc) {
			if (verify_u32_arg(argv[++i], &set.sq_entries))
				goto bad_number;
		} else if (!strcmp(argv[i], "--cq-entries") && i + 1 < argc) {
			if (verify_u32_arg(argv[++i], &set.cq_entries))
				goto bad_number;
		} else if (!strcmp(argv[i], "--plan") && i + 1 < argc) {
			plan.kind = argv[++i];
		} else if (!strcmp(argv[i], "--nodes") && i + 1 < argc) {
			if (verify_u32_arg(argv[++i], &plan.nodes))
				goto bad_number;
		} else if (!strcmp(argv[i], "--radix") && i + 1 < argc) {
			if (verify_u32_arg(argv[++i], &plan.radix))
				goto bad_number;
		} else if (!strcmp(argv[i], "--bytes") && i + 1 < argc) {
			uint32_t b;

			if (verify_u32_arg(argv[++i], &b))
				goto bad_number;
			plan.bytes = b;
		} else if (!strcmp(argv[i], "-j") || !strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "-p") || !strcmp(argv[i], "--pretty")) {
			pretty = true;
		} else if (argv[i][0] == '-' || path) {
			fprintf(stderr, "thctl verify: unexpected argument '%s'\n",
				argv[i]);
			verify_usage(stderr);
			return THCTL_EXIT_USAGE;
		} else {
			path = argv[i];
		}
	}
	if (plan.kind && (path || !plan.nodes || !plan.radix)) {
		fprintf(stderr, "thctl verify: --plan takes --nodes and --radix, and no FILE\n");
		return THCTL_EXIT_USAGE;
	}
	if (plan.kind && strcmp(plan.kind, "allreduce") &&
	    strcmp(plan.kind, "reduce") && strcmp(plan.kind, "bcast")) {
		fprintf(stderr, "thctl verify: unknown plan '%s': expected allreduce, reduce or bcast\n",
			plan.kind);
		return THCTL_EXIT_USAGE;
	}
	if (plan.kind && (plan.nodes < 2 || plan.nodes > VERIFY_PLAN_MAX_NODES ||
			  plan.radix < 2)) {
		fprintf(stderr, "thctl verify: --nodes must be 2 ... %u and --radix at least 2\n",
			VERIFY_PLAN_MAX_NODES);
		return THCTL_EXIT_USAGE;
	}
	if (!plan.kind && (plan.nodes || plan.radix)) {
		fprintf(stderr, "thctl verify: --nodes and --radix need --plan\n");
		return THCTL_EXIT_USAGE;
	}
	if (!path && !plan.kind) {
		verify_usage(stderr);
		return THCTL_EXIT_USAGE;
	}
	if (provider && strcmp(provider, "kernel") && strcmp(provider, "inproc") &&
	    strcmp(provider, "auto")) {
		fprintf(stderr,
			"thctl verify: unknown provider '%s': expected kernel, inproc or auto\n",
			provider);
		return THCTL_EXIT_USAGE;
	}
	if (plan.kind) {
		if (verify_limits(provider, &q))
			return THCTL_EXIT_FAIL;
		/* the rings every rank's vport is taken to have */
		if (set.sq_entries)
			q.max_sq_entries = set.sq_entries;
		if (set.cq_entries)
			q.max_cq_entries = set.cq_entries;
		return verify_plan(&plan, &q, json, pretty);
	}
	/*
	 * Parsed without the fabric's limits: a chain beyond them is a
	 * finding of class fit, not a malformed file.
	 */
	cf = cf_load(path, NULL, 0, &diag);
	if (!cf) {
		cf_report("verify", path, &diag);
		return THCTL_EXIT_USAGE;
	}
	if (verify_limits(provider, &q)) {
		cf_free(cf);
		return THCTL_EXIT_FAIL;
	}
	set.limits = &q;
	ret = verify_file(path, cf, &set, json, pretty);
	cf_free(cf);
	return ret;

bad_number:
	fprintf(stderr, "thctl verify: '%s': expected a positive number\n",
		argv[i]);
	return THCTL_EXIT_USAGE;
}
