// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * cmd_verify.c - 'thctl verify FILE': prove, before anything is posted,
 * that the chains of a chain file will fire, finish and fit, with the
 * counter updates of its 'start' actions as the host's (th_verify(),
 * Documentation/verify.rst); each finding as FILE:LINE: CLASS: chain
 * NAME counter C: why, and its path.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <thverbs/verbs.h>
#include <thverbs/verify.h>
#include "json.h"
#include "thctl.h"
#include "chainfile.h"
#include "chainset.h"

static void verify_usage(FILE *f)
{
	fprintf(f,
		"usage: thctl verify [--provider kernel|inproc|auto] [--sq-entries N]\n"
		"                    [--cq-entries N] [-j [-p]] FILE\n\n"
		"Prove that the chains of chain FILE (the format of 'thctl post') will\n"
		"fire, finish and fit, with its 'start' actions as the host's counter\n"
		"updates; nothing is posted.  Each finding is printed as\n"
		"  FILE:LINE: CLASS: chain NAME counter C: why\n"
		"followed by its path of chains and counters.  Classes: unreachable (a\n"
		"threshold no source can reach), cycle (chains that wait on each other),\n"
		"fit (beyond a limit of the NIC), self-rearm (a re-arming chain that\n"
		"feeds itself); warnings: immediate (fires when posted), writers (a\n"
		"counter set and written by another update).  Documentation/verify.rst.\n\n"
		"  --provider P     whose node 0 gives the limits (default auto)\n"
		"  --sq-entries N   SQ slots of each vport (default: max_sq_entries)\n"
		"  --cq-entries N   CQ entries of each vport (default: max_cq_entries)\n"
		"  -j, --json       one JSON document: {\"file\", \"ok\", \"findings\": [...]};\n"
		"                   -p indents it\n\n"
		"Exit status: 0 no finding but warnings; 1 findings; 2 usage error or a\n"
		"malformed FILE.\n");
}

static void verify_counter_str(const struct th_verify_counter *c, char *buf,
			       size_t len)
{
	snprintf(buf, len, "n%u.v%u.ct%u", c->node, c->vport, c->ct);
}

static unsigned int verify_line(const struct chainfile *cf,
				const struct th_verify_finding *f)
{
	const struct cf_chain *c;

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
		verify_counter_str(&f->counter, cs, sizeof(cs));
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
		verify_counter_str(&f->path[i].counter, cs, sizeof(cs));
		printf(" %s -> %s ->", cf->chains[f->path[i].chain].name, cs);
	}
	/* a path leads to the finding's chain */
	printf(" %s\n", f->chain < cf->nchains ? cf->chains[f->chain].name : "-");
}

static void verify_json(struct tj *j, const struct chainfile *cf,
			const struct th_verify_finding *f)
{
	unsigned int i;
	char cs[48];

	tj_obj_begin(j);
	tj_kv_str(j, "class", th_verify_class_name(f->cls));
	tj_key(j, "warning");
	tj_bool(j, th_verify_class_is_warning(f->cls));
	tj_kv_u64(j, "line", verify_line(cf, f));
	tj_key(j, "chain");
	if (f->chain < cf->nchains)
		tj_str(j, cf->chains[f->chain].name);
	else
		tj_null(j);
	tj_key(j, "counter");
	if (f->has_counter) {
		verify_counter_str(&f->counter, cs, sizeof(cs));
		tj_str(j, cs);
	} else {
		tj_null(j);
	}
	tj_kv_str(j, "why", f->why);
	tj_key(j, "path");
	tj_arr_begin(j);
	for (i = 0; i < f->npath; i++) {
		tj_obj_begin(j);
		tj_kv_str(j, "chain", cf->chains[f->path[i].chain].name);
		verify_counter_str(&f->path[i].counter, cs, sizeof(cs));
		tj_kv_str(j, "counter", cs);
		tj_obj_end(j);
	}
	tj_arr_end(j);
	tj_obj_end(j);
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

int thctl_verify_main(int argc, char **argv)
{
	const char *provider = NULL, *path = NULL;
	struct th_nic_query q = { .size = sizeof(q) };
	struct th_verify_set set = { 0 };
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
	if (!path) {
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
	/*
	 * Parsed without the fabric's limits: a chain beyond them is a
	 * finding of class fit, not a malformed file.
	 */
	cf = cf_load(path, NULL, 0, &diag);
	if (!cf) {
		if (diag.line)
			fprintf(stderr, "%s:%u:%u: %s\n", path, diag.line,
				diag.col, diag.msg);
		else
			fprintf(stderr, "thctl verify: %s: %s\n", path, diag.msg);
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
