// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * cmd_nl.c - thctl's management of th_nic.ko over generic netlink:
 * 'stat [NODE [VPORT]]', 'vports [NODE]', 'counters NODE VPORT',
 * 'fault show|set|clear' and 'monitor', each as a table or, with -j,
 * one JSON document (-p: pretty).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "nl.h"
#include "thctl.h"
#include <thverbs/verbs.h>

struct mg_opts {
	bool json, pretty;
	const char *cmd;
	char *pos[3];
	int npos;
	/* counters */
	const char *cts;
	/* fault set */
	struct {
		bool drop, delay_rate, delay, retry, retries, vport, seed;
	} has;
	uint32_t drop_ppm, delay_ppm, retries, vport;
	uint64_t delay_ns, retry_ns, seed;
	/* monitor */
	unsigned int count;
	int timeout_ms;
};

static const struct {
	const char *cmd;
	const char *synopsis;
} mg_synopsis[] = {
	{ "stat", "stat [NODE [VPORT]] [-j [-p]]" },
	{ "vports", "vports [NODE] [-j [-p]]" },
	{ "counters", "counters NODE VPORT [--cts FIRST[-LAST]] [-j [-p]]" },
	{ "fault", "fault show [NODE] [-j [-p]]\n"
		   "       thctl fault set NODE [--drop RATE] [--delay-rate RATE] [--delay TIME]\n"
		   "                       [--retry TIME] [--retries N] [--vport V] [--seed S]\n"
		   "       thctl fault clear NODE" },
	{ "monitor", "monitor [--count N] [--timeout SECONDS] [-j [-p]]" },
};

/* @cmd's synopsis first, then the other management commands'. */
static void mg_usage(FILE *f, const char *cmd)
{
	unsigned int i, n = sizeof(mg_synopsis) / sizeof(mg_synopsis[0]);

	for (i = 0; i < n; i++)
		if (!strcmp(cmd, mg_synopsis[i].cmd))
			fprintf(f, "usage: thctl %s\n", mg_synopsis[i].synopsis);
	fprintf(f, "\nthe management commands:\n");
	for (i = 0; i < n; i++)
		fprintf(f, "       thctl %s\n", mg_synopsis[i].synopsis);
	fprintf(f,
		"\nth_nic.ko's nodes over generic netlink (the in-process fabric has the\n"
		"library calls th_node_stats() and th_fault_set() instead).\n"
		"  stat       every node's totals; a node's statistics; a vport's\n"
		"  vports     the vports, with owner, state, rings, memory\n"
		"  counters   a vport's counters (yours, or with CAP_NET_ADMIN):\n"
		"             the non-zero ones, or FIRST-LAST\n"
		"  fault      fault injection on what a node sends (set and clear need\n"
		"             CAP_NET_ADMIN): RATE per million, or with %%; TIME in ns,\n"
		"             or with us or ms; a lost delivery is sent again after\n"
		"             --retry (default 1ms), at most --retries times (default 3)\n"
		"  monitor    vports created, destroyed, in error, and failed deliveries,\n"
		"             until --count events or --timeout seconds without one;\n"
		"             'lost' when the kernel dropped events (read them again)\n"
		"  -j, --json one JSON document on stdout; -p, --pretty: indented\n"
		"Another user's vports show their owner and state only, as /proc does.\n\n"
		"Exit status: 0 success, 1 the module is not loaded or the request\n"
		"failed (the kernel's reason is printed), 2 usage error.\n");
}

/* "1000", "0.1%": per million. */
static int mg_rate(const char *s, uint32_t *ppm)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || !(v >= 0))
		return -EINVAL;
	if (!strcmp(end, "%"))
		v *= 1e4;
	else if (*end)
		return -EINVAL;
	if (v > 1e6)
		return -EINVAL;
	*ppm = (uint32_t)llround(v);
	return 0;
}

/* "500", "20us", "1ms": nanoseconds. */
static int mg_time(const char *s, uint64_t *ns)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || !(v >= 0))
		return -EINVAL;
	if (!strcmp(end, "us"))
		v *= 1e3;
	else if (!strcmp(end, "ms"))
		v *= 1e6;
	else if (*end && strcmp(end, "ns"))
		return -EINVAL;
	if (v > 1e8)
		return -EINVAL;
	*ns = (uint64_t)llround(v);
	return 0;
}

static int mg_u32(const char *s, uint32_t *v)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = strtoul(s, &end, 0);
	if (*s < '0' || *s > '9' || *end || errno || x > UINT32_MAX)
		return -EINVAL;
	*v = x;
	return 0;
}

static int mg_parse(int argc, char **argv, struct mg_opts *o)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ "cts", required_argument, NULL, 'c' },
		{ "drop", required_argument, NULL, 'D' },
		{ "delay-rate", required_argument, NULL, 'R' },
		{ "delay", required_argument, NULL, 'L' },
		{ "retry", required_argument, NULL, 'T' },
		{ "retries", required_argument, NULL, 'N' },
		{ "vport", required_argument, NULL, 'V' },
		{ "seed", required_argument, NULL, 'S' },
		{ "count", required_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	uint32_t u;
	int c, bad = 0, li = -1;

	o->cmd = argv[0];
	o->timeout_ms = -1;
	o->retry_ns = 1000000;
	o->retries = 3;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "jph", opts, &li)) != -1) {
		switch (c) {
		case 'j': o->json = true; break;
		case 'p': o->pretty = true; break;
		case 'h': mg_usage(stdout, o->cmd); return 1;
		case 'c': o->cts = optarg; break;
		case 'D': bad |= mg_rate(optarg, &o->drop_ppm); o->has.drop = true; break;
		case 'R': bad |= mg_rate(optarg, &o->delay_ppm); o->has.delay_rate = true; break;
		case 'L': bad |= mg_time(optarg, &o->delay_ns); o->has.delay = true; break;
		case 'T': bad |= mg_time(optarg, &o->retry_ns); o->has.retry = true; break;
		case 'N': bad |= mg_u32(optarg, &o->retries); o->has.retries = true; break;
		case 'V': bad |= mg_u32(optarg, &o->vport); o->has.vport = true; break;
		case 'S':
			bad |= mg_u32(optarg, &u);
			o->seed = u;
			o->has.seed = true;
			break;
		case 'n': bad |= mg_u32(optarg, &o->count); break;
		case 't':
			bad |= mg_u32(optarg, &u);
			o->timeout_ms = u > INT32_MAX / 1000 ? INT32_MAX : (int)u * 1000;
			break;
		default:
			fprintf(stderr, "thctl %s: unknown option '%s'\n", o->cmd,
				argv[optind - 1]);
			return -1;
		}
		if (bad) {
			fprintf(stderr, "thctl %s: bad value '%s' for --%s\n", o->cmd,
				optarg, li >= 0 ? opts[li].name : "?");
			return -1;
		}
		li = -1;
	}
	for (; optind < argc; optind++) {
		if (o->npos == 3) {
			fprintf(stderr, "thctl %s: unexpected argument '%s'\n",
				o->cmd, argv[optind]);
			return -1;
		}
		o->pos[o->npos++] = argv[optind];
	}
	return 0;
}

/* Open the family, or say why not; THCTL_EXIT_OK when open. */
static int mg_connect(const struct mg_opts *o, struct thnl *n)
{
	int ret = thnl_open(n);

	if (!ret)
		return THCTL_EXIT_OK;
	fprintf(stderr, "thctl %s: %s\n", o->cmd, ret == -ENOENT ?
		"th_nic.ko is not loaded (no th_nic generic netlink family)" :
		thnl_strerror(ret));
	return THCTL_EXIT_FAIL;
}

static int mg_fail(const struct mg_opts *o, int err)
{
	fprintf(stderr, "thctl %s: %s\n", o->cmd, thnl_strerror(err));
	return THCTL_EXIT_FAIL;
}

static uint32_t mg_get32(struct nlattr **tb, int a)
{
	return tb[a] ? nla_get_u32(tb[a]) : 0;
}

/* ---- stat ------------------------------------------------------------------- */

struct mg_stats {
	bool have;
	uint64_t v[TH_NL_STAT_MAX + 1];
};

static void mg_stats_of(struct nlattr **tb, struct mg_stats *st)
{
	struct nlattr *s[TH_NL_STAT_MAX + 1];
	int i;

	memset(st, 0, sizeof(*st));
	if (!tb[TH_NL_A_STATS] ||
	    nla_parse_nested(s, TH_NL_STAT_MAX, tb[TH_NL_A_STATS], NULL))
		return;
	st->have = true;
	for (i = 1; i <= TH_NL_STAT_MAX; i++)
		if (s[i] && thnl_stat_name(i))
			st->v[i] = nla_get_u64(s[i]);
}

static void mg_stats_json(struct tj *j, const struct mg_stats *st)
{
	int i;

	tj_key(j, "stats");
	if (!st->have) {
		tj_null(j);
		return;
	}
	tj_obj_begin(j);
	for (i = 1; i <= TH_NL_STAT_MAX; i++)
		if (thnl_stat_name(i))
			tj_kv_u64(j, thnl_stat_name(i), st->v[i]);
	tj_obj_end(j);
}

static void mg_stats_list(const struct mg_stats *st)
{
	int i;

	for (i = 1; i <= TH_NL_STAT_MAX; i++)
		if (thnl_stat_name(i))
			printf("  %-17s %" PRIu64 "\n", thnl_stat_name(i), st->v[i]);
}

struct mg_walk {
	const struct mg_opts *o;
	struct tj j;
	unsigned int rows;
};

static int mg_node_row(struct nlattr **tb, void *arg)
{
	struct mg_walk *w = arg;
	struct mg_stats st;

	mg_stats_of(tb, &st);
	if (w->o->json) {
		tj_obj_begin(&w->j);
		tj_kv_u64(&w->j, "node", mg_get32(tb, TH_NL_A_NODE));
		tj_kv_u64(&w->j, "vports", mg_get32(tb, TH_NL_A_VPORTS));
		mg_stats_json(&w->j, &st);
		tj_obj_end(&w->j);
	} else if (w->o->npos) {
		printf("node %u: %u vports\n", mg_get32(tb, TH_NL_A_NODE),
		       mg_get32(tb, TH_NL_A_VPORTS));
		mg_stats_list(&st);
	} else {
		if (!w->rows)
			printf("%5s %6s %10s %10s %10s %8s %9s %12s %13s %8s %8s\n",
			       "node", "vports", "posted", "fired", "done",
			       "failed", "cancelled", "bytes_put",
			       "bytes_reduced", "dropped", "timeouts");
		printf("%5u %6u %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %8" PRIu64
		       " %9" PRIu64 " %12" PRIu64 " %13" PRIu64 " %8" PRIu64
		       " %8" PRIu64 "\n",
		       mg_get32(tb, TH_NL_A_NODE), mg_get32(tb, TH_NL_A_VPORTS),
		       st.v[TH_NL_STAT_CHAINS_POSTED], st.v[TH_NL_STAT_CHAINS_FIRED],
		       st.v[TH_NL_STAT_CHAINS_DONE], st.v[TH_NL_STAT_CHAINS_FAILED],
		       st.v[TH_NL_STAT_CHAINS_CANCELLED], st.v[TH_NL_STAT_BYTES_PUT],
		       st.v[TH_NL_STAT_BYTES_REDUCED], st.v[TH_NL_STAT_FAULTS_DROPPED],
		       st.v[TH_NL_STAT_TIMEOUTS]);
	}
	w->rows++;
	return 0;
}

struct mg_target {
	uint32_t node, vport;
	bool has_vport;
	uint32_t first, count;
	bool has_range;
};

static int mg_put_target(struct nl_msg *msg, void *arg)
{
	const struct mg_target *t = arg;

	if (nla_put_u32(msg, TH_NL_A_NODE, t->node) ||
	    (t->has_vport && nla_put_u32(msg, TH_NL_A_VPORT, t->vport)) ||
	    (t->has_range && (nla_put_u32(msg, TH_NL_A_CT_FIRST, t->first) ||
			      nla_put_u32(msg, TH_NL_A_CT_COUNT, t->count))))
		return -EMSGSIZE;
	return 0;
}

static void mg_vport_json(struct tj *j, struct nlattr **tb)
{
	struct mg_stats st;

	tj_obj_begin(j);
	tj_kv_u64(j, "node", mg_get32(tb, TH_NL_A_NODE));
	tj_kv_u64(j, "vport", mg_get32(tb, TH_NL_A_VPORT));
	tj_kv_u64(j, "pid", mg_get32(tb, TH_NL_A_PID));
	tj_kv_u64(j, "uid", mg_get32(tb, TH_NL_A_UID));
	tj_kv_str(j, "state", thnl_state_name(tb[TH_NL_A_STATE] ?
					       nla_get_u8(tb[TH_NL_A_STATE]) : 0));
	/* the owner's details: absent from the reply for other users */
	tj_key(j, "details");
	tj_bool(j, tb[TH_NL_A_DOMAIN] != NULL);
	if (tb[TH_NL_A_DOMAIN]) {
		tj_kv_u64(j, "domain", nla_get_u64(tb[TH_NL_A_DOMAIN]));
		tj_kv_u64(j, "sq_entries", mg_get32(tb, TH_NL_A_SQ_ENTRIES));
		tj_kv_u64(j, "cq_entries", mg_get32(tb, TH_NL_A_CQ_ENTRIES));
		tj_kv_u64(j, "pending", mg_get32(tb, TH_NL_A_PENDING));
		tj_kv_u64(j, "mrs", mg_get32(tb, TH_NL_A_MRS));
		tj_kv_u64(j, "pinned_bytes", tb[TH_NL_A_PINNED] ?
			  nla_get_u64(tb[TH_NL_A_PINNED]) : 0);
		mg_stats_of(tb, &st);
		mg_stats_json(j, &st);
	}
	tj_obj_end(j);
}

static int mg_vport_row(struct nlattr **tb, void *arg)
{
	struct mg_walk *w = arg;
	char dom[24] = "-", pend[12] = "-", mrs[12] = "-", pin[24] = "-";

	if (w->o->json) {
		mg_vport_json(&w->j, tb);
		w->rows++;
		return 0;
	}
	if (tb[TH_NL_A_DOMAIN]) {
		snprintf(dom, sizeof(dom), "%" PRIu64,
			 (uint64_t)nla_get_u64(tb[TH_NL_A_DOMAIN]));
		snprintf(pend, sizeof(pend), "%u", mg_get32(tb, TH_NL_A_PENDING));
		snprintf(mrs, sizeof(mrs), "%u", mg_get32(tb, TH_NL_A_MRS));
		snprintf(pin, sizeof(pin), "%" PRIu64, tb[TH_NL_A_PINNED] ?
			 (uint64_t)nla_get_u64(tb[TH_NL_A_PINNED]) : 0);
	}
	if (!w->rows)
		printf("%5s %5s %8s %6s %6s %7s %8s %5s %12s\n", "node", "vport",
		       "pid", "uid", "state", "domain", "pending", "mrs",
		       "pinned");
	printf("%5u %5u %8u %6u %6s %7s %8s %5s %12s\n",
	       mg_get32(tb, TH_NL_A_NODE), mg_get32(tb, TH_NL_A_VPORT),
	       mg_get32(tb, TH_NL_A_PID), mg_get32(tb, TH_NL_A_UID),
	       thnl_state_name(tb[TH_NL_A_STATE] ? nla_get_u8(tb[TH_NL_A_STATE]) : 0),
	       dom, pend, mrs, pin);
	w->rows++;
	return 0;
}

/* One vport in full: stat NODE VPORT. */
static int mg_vport_full(struct nlattr **tb, void *arg)
{
	struct mg_walk *w = arg;
	struct mg_stats st;

	if (w->o->json) {
		mg_vport_json(&w->j, tb);
		w->rows++;
		return 0;
	}
	mg_vport_row(tb, arg);
	mg_stats_of(tb, &st);
	if (st.have)
		mg_stats_list(&st);
	else
		printf("  (statistics are the owner's)\n");
	return 0;
}

/* NODE (and VPORT) from @o->pos, or a usage error. */
static int mg_target_of(const struct mg_opts *o, int first, struct mg_target *t)
{
	memset(t, 0, sizeof(*t));
	if (o->npos > first && mg_u32(o->pos[first], &t->node)) {
		fprintf(stderr, "thctl %s: expected a node number, got '%s'\n",
			o->cmd, o->pos[first]);
		return -1;
	}
	if (o->npos > first + 1) {
		if (mg_u32(o->pos[first + 1], &t->vport)) {
			fprintf(stderr, "thctl %s: expected a vport number, got '%s'\n",
				o->cmd, o->pos[first + 1]);
			return -1;
		}
		t->has_vport = true;
	}
	return 0;
}

/*
 * Every command's start: its options, @min to @max positional arguments,
 * NODE [VPORT] from position @first, the family, and the JSON writer.
 * Returns -1 to go on, else the exit status.
 */
static int mg_start(int argc, char **argv, struct mg_walk *w, int min,
		    int max, int first, struct mg_target *t, struct thnl *n)
{
	struct mg_opts *o = (struct mg_opts *)w->o;
	int ret = mg_parse(argc, argv, o);

	if (ret)
		return ret > 0 ? THCTL_EXIT_OK : THCTL_EXIT_USAGE;
	if (o->npos < min || o->npos > max) {
		mg_usage(stderr, o->cmd);
		return THCTL_EXIT_USAGE;
	}
	if (mg_target_of(o, first, t))
		return THCTL_EXIT_USAGE;
	ret = mg_connect(o, n);
	if (ret)
		return ret;
	tj_init(&w->j, stdout, o->pretty);
	return -1;
}

int thctl_stat_main(int argc, char **argv)
{
	struct mg_opts o = { 0 };
	struct mg_walk w = { .o = &o };
	struct mg_target t;
	struct thnl n;
	int ret;

	ret = mg_start(argc, argv, &w, 0, 2, 0, &t, &n);
	if (ret >= 0)
		return ret;
	if (o.json && o.npos < 2)
		tj_arr_begin(&w.j);
	if (o.npos == 2)
		ret = thnl_request(&n, TH_NL_CMD_VPORT_GET, false, mg_put_target,
				   &t, mg_vport_full, &w);
	else if (o.npos == 1)
		ret = thnl_request(&n, TH_NL_CMD_NODE_GET, false, mg_put_target,
				   &t, mg_node_row, &w);
	else
		ret = thnl_request(&n, TH_NL_CMD_NODE_GET, true, NULL, NULL,
				   mg_node_row, &w);
	if (o.json && o.npos < 2)
		tj_arr_end(&w.j);
	if (o.json && !ret)
		tj_finish(&w.j);
	thnl_close(&n);
	return ret ? mg_fail(&o, ret) : THCTL_EXIT_OK;
}

int thctl_vports_main(int argc, char **argv)
{
	struct mg_opts o = { 0 };
	struct mg_walk w = { .o = &o };
	struct mg_target t;
	struct thnl n;
	int ret;

	ret = mg_start(argc, argv, &w, 0, 1, 0, &t, &n);
	if (ret >= 0)
		return ret;
	if (o.json)
		tj_arr_begin(&w.j);
	ret = thnl_request(&n, TH_NL_CMD_VPORT_GET, true,
			   o.npos ? mg_put_target : NULL, &t, mg_vport_row, &w);
	if (o.json) {
		tj_arr_end(&w.j);
		if (!ret)
			tj_finish(&w.j);
	} else if (!ret && !w.rows) {
		printf("no vports\n");
	}
	thnl_close(&n);
	return ret ? mg_fail(&o, ret) : THCTL_EXIT_OK;
}

/* ---- counters ---------------------------------------------------------------- */

static int mg_counters_reply(struct nlattr **tb, void *arg)
{
	struct mg_walk *w = arg;
	struct nlattr *ct, *c[TH_NL_CT_MAX + 1];
	int rem;

	if (w->o->json) {
		tj_obj_begin(&w->j);
		tj_kv_u64(&w->j, "node", mg_get32(tb, TH_NL_A_NODE));
		tj_kv_u64(&w->j, "vport", mg_get32(tb, TH_NL_A_VPORT));
		tj_key(&w->j, "counters");
		tj_arr_begin(&w->j);
	} else {
		printf("%5s %20s %20s\n", "ct", "success", "failure");
	}
	if (tb[TH_NL_A_COUNTERS])
		nla_for_each_nested(ct, tb[TH_NL_A_COUNTERS], rem) {
			uint64_t ok, fail;

			if (nla_parse_nested(c, TH_NL_CT_MAX, ct, NULL) ||
			    !c[TH_NL_CT_INDEX])
				continue;
			ok = c[TH_NL_CT_SUCCESS] ? nla_get_u64(c[TH_NL_CT_SUCCESS]) : 0;
			fail = c[TH_NL_CT_FAILURE] ? nla_get_u64(c[TH_NL_CT_FAILURE]) : 0;
			/* without a range: the counters in use */
			if (!w->o->cts && !ok && !fail)
				continue;
			w->rows++;
			if (w->o->json) {
				tj_obj_begin(&w->j);
				tj_kv_u64(&w->j, "index", nla_get_u32(c[TH_NL_CT_INDEX]));
				tj_kv_u64(&w->j, "success", ok);
				tj_kv_u64(&w->j, "failure", fail);
				tj_obj_end(&w->j);
			} else {
				printf("%5u %20" PRIu64 " %20" PRIu64 "\n",
				       nla_get_u32(c[TH_NL_CT_INDEX]), ok, fail);
			}
		}
	if (w->o->json) {
		tj_arr_end(&w->j);
		tj_obj_end(&w->j);
	} else if (!w->rows) {
		printf("(every counter is 0)\n");
	}
	return 0;
}

int thctl_counters_main(int argc, char **argv)
{
	struct mg_opts o = { 0 };
	struct mg_walk w = { .o = &o };
	struct mg_target t;
	struct thnl n;
	uint32_t last;
	int ret;

	ret = mg_parse(argc, argv, &o);
	if (ret)
		return ret > 0 ? THCTL_EXIT_OK : THCTL_EXIT_USAGE;
	if (o.npos != 2) {
		mg_usage(stderr, o.cmd);
		return THCTL_EXIT_USAGE;
	}
	if (mg_target_of(&o, 0, &t))
		return THCTL_EXIT_USAGE;
	if (o.cts) {
		char buf[64], *dash;

		snprintf(buf, sizeof(buf), "%s", o.cts);
		dash = strchr(buf, '-');
		if (dash)
			*dash = '\0';
		if (mg_u32(buf, &t.first) ||
		    (dash && mg_u32(dash + 1, &last)) ||
		    (dash && last < t.first)) {
			fprintf(stderr, "thctl counters: expected FIRST or FIRST-LAST with FIRST <= LAST, got '%s'\n",
				o.cts);
			return THCTL_EXIT_USAGE;
		}
		t.count = dash ? last - t.first + 1 : 1;
		t.has_range = true;
	}
	ret = mg_connect(&o, &n);
	if (ret)
		return ret;
	tj_init(&w.j, stdout, o.pretty);
	ret = thnl_request(&n, TH_NL_CMD_COUNTERS_GET, false, mg_put_target, &t,
			   mg_counters_reply, &w);
	if (o.json && !ret)
		tj_finish(&w.j);
	thnl_close(&n);
	return ret ? mg_fail(&o, ret) : THCTL_EXIT_OK;
}

/* ---- fault ----------------------------------------------------------------------- */

static int mg_fault_row(struct nlattr **tb, void *arg)
{
	struct mg_walk *w = arg;
	struct nlattr *f[TH_NL_FAULT_MAX + 1] = { NULL };
	uint32_t drop = 0, delay = 0, retries = 0, vport = UINT32_MAX;
	uint64_t delay_ns = 0, retry_ns = 0, seed = 0;

	if (tb[TH_NL_A_FAULT] &&
	    !nla_parse_nested(f, TH_NL_FAULT_MAX, tb[TH_NL_A_FAULT], NULL)) {
		drop = f[TH_NL_FAULT_DROP_PPM] ? nla_get_u32(f[TH_NL_FAULT_DROP_PPM]) : 0;
		delay = f[TH_NL_FAULT_DELAY_PPM] ? nla_get_u32(f[TH_NL_FAULT_DELAY_PPM]) : 0;
		delay_ns = f[TH_NL_FAULT_DELAY_NS] ? nla_get_u64(f[TH_NL_FAULT_DELAY_NS]) : 0;
		retry_ns = f[TH_NL_FAULT_RETRY_NS] ? nla_get_u64(f[TH_NL_FAULT_RETRY_NS]) : 0;
		retries = f[TH_NL_FAULT_RETRIES] ? nla_get_u32(f[TH_NL_FAULT_RETRIES]) : 0;
		vport = f[TH_NL_FAULT_VPORT] ? nla_get_u32(f[TH_NL_FAULT_VPORT]) : vport;
		seed = f[TH_NL_FAULT_SEED] ? nla_get_u64(f[TH_NL_FAULT_SEED]) : 0;
	}
	/* a listing of every node shows the nodes with faults */
	if (!w->o->npos && !drop && !delay)
		return 0;
	w->rows++;
	if (w->o->json) {
		tj_obj_begin(&w->j);
		tj_kv_u64(&w->j, "node", mg_get32(tb, TH_NL_A_NODE));
		tj_kv_u64(&w->j, "drop_ppm", drop);
		tj_kv_u64(&w->j, "delay_ppm", delay);
		tj_kv_u64(&w->j, "delay_ns", delay_ns);
		tj_kv_u64(&w->j, "retry_ns", retry_ns);
		tj_kv_u64(&w->j, "retries", retries);
		tj_key(&w->j, "vport");
		if (vport == UINT32_MAX)
			tj_null(&w->j);
		else
			tj_u64(&w->j, vport);
		tj_kv_u64(&w->j, "seed", seed);
		tj_obj_end(&w->j);
		return 0;
	}
	if (w->rows == 1)
		printf("%5s %9s %9s %10s %10s %7s %5s %20s\n", "node", "drop_ppm",
		       "delay_ppm", "delay_ns", "retry_ns", "retries", "vport",
		       "seed");
	printf("%5u %9u %9u %10" PRIu64 " %10" PRIu64 " %7u %5s %20" PRIu64 "\n",
	       mg_get32(tb, TH_NL_A_NODE), drop, delay, delay_ns, retry_ns,
	       retries, vport == UINT32_MAX ? "all" : "", seed);
	if (vport != UINT32_MAX)
		printf("      (only vport %u)\n", vport);
	return 0;
}

int thctl_fault_main(int argc, char **argv)
{
	struct mg_opts o = { 0 };
	struct mg_walk w = { .o = &o };
	struct mg_target t;
	struct thnl n;
	bool show;
	int ret;

	ret = mg_parse(argc, argv, &o);
	if (ret)
		return ret > 0 ? THCTL_EXIT_OK : THCTL_EXIT_USAGE;
	show = o.npos >= 1 && !strcmp(o.pos[0], "show");
	if (!o.npos || (show && o.npos > 2) ||
	    (!show && (o.npos != 2 || (strcmp(o.pos[0], "set") &&
				       strcmp(o.pos[0], "clear"))))) {
		mg_usage(stderr, o.cmd);
		return THCTL_EXIT_USAGE;
	}
	if (mg_target_of(&o, 1, &t))
		return THCTL_EXIT_USAGE;
	if (!show && !strcmp(o.pos[0], "clear")) {
		o.drop_ppm = 0;
		o.delay_ppm = 0;
	}
	if (!show && (uint64_t)o.drop_ppm + o.delay_ppm > 1000000) {
		fprintf(stderr, "thctl fault: --drop and --delay-rate add up to more than 100%%\n");
		return THCTL_EXIT_USAGE;
	}
	ret = mg_connect(&o, &n);
	if (ret)
		return ret;
	tj_init(&w.j, stdout, o.pretty);
	if (show) {
		o.npos--;	/* a node given or not, as mg_fault_row reads it */
		if (o.json && !o.npos)
			tj_arr_begin(&w.j);
		ret = thnl_request(&n, TH_NL_CMD_FAULT_GET, !o.npos,
				   o.npos ? mg_put_target : NULL, &t,
				   mg_fault_row, &w);
		if (o.json && !o.npos)
			tj_arr_end(&w.j);
		if (o.json && !ret)
			tj_finish(&w.j);
		else if (!ret && !w.rows)
			printf("no fault injection on any node\n");
	} else {
		struct th_fault f = {
			.drop_ppm = o.drop_ppm, .delay_ppm = o.delay_ppm,
			.delay_ns = o.delay_ns, .retry_ns = o.retry_ns,
			.retries = o.retries, .seed = o.seed,
			.vport = o.has.vport ? o.vport : TH_FAULT_ANY_VPORT,
		};

		ret = thnl_fault_set(&n, t.node, &f);
		if (o.json && !ret) {
			tj_obj_begin(&w.j);
			tj_kv_u64(&w.j, "node", t.node);
			tj_kv_str(&w.j, "fault", o.drop_ppm || o.delay_ppm ?
				  "set" : "cleared");
			tj_obj_end(&w.j);
			tj_finish(&w.j);
		}
	}
	thnl_close(&n);
	return ret ? mg_fail(&o, ret) : THCTL_EXIT_OK;
}

/* ---- monitor ------------------------------------------------------------------- */

static volatile sig_atomic_t mg_stop;

static void mg_on_signal(int sig)
{
	(void)sig;
	mg_stop = 1;
}

/* Events the kernel could not deliver: the reader must look again. */
static int mg_lost(struct mg_walk *w)
{
	if (w->o->json) {
		tj_obj_begin(&w->j);
		tj_kv_str(&w->j, "event", "lost");
		tj_obj_end(&w->j);
	} else {
		printf("lost         events were dropped by the kernel (ENOBUFS): read the state again\n");
		fflush(stdout);
	}
	return mg_stop;
}

static int mg_event(struct nlattr **tb, void *arg)
{
	struct mg_walk *w = arg;
	const char *what;
	int32_t err;

	if (!tb)
		return mg_lost(w);
	what = thnl_event_name(tb[TH_NL_A_EVENT] ?
			       nla_get_u8(tb[TH_NL_A_EVENT]) : 0);
	err = tb[TH_NL_A_ERROR] ? (int32_t)nla_get_u32(tb[TH_NL_A_ERROR]) : 0;
	w->rows++;
	if (w->o->json) {
		tj_obj_begin(&w->j);
		tj_kv_str(&w->j, "event", what);
		tj_kv_u64(&w->j, "node", mg_get32(tb, TH_NL_A_NODE));
		tj_kv_u64(&w->j, "vport", mg_get32(tb, TH_NL_A_VPORT));
		tj_kv_u64(&w->j, "pid", mg_get32(tb, TH_NL_A_PID));
		tj_kv_u64(&w->j, "uid", mg_get32(tb, TH_NL_A_UID));
		tj_key(&w->j, "error");
		tj_i64(&w->j, err);
		tj_obj_end(&w->j);
	} else {
		printf("%-12s node %u vport %u pid %u uid %u", what,
		       mg_get32(tb, TH_NL_A_NODE), mg_get32(tb, TH_NL_A_VPORT),
		       mg_get32(tb, TH_NL_A_PID), mg_get32(tb, TH_NL_A_UID));
		if (err)
			printf(" error %s", strerror(-err));
		printf("\n");
		fflush(stdout);
	}
	return mg_stop;
}

int thctl_monitor_main(int argc, char **argv)
{
	struct mg_opts o = { 0 };
	struct mg_walk w = { .o = &o };
	struct sigaction sa = { .sa_handler = mg_on_signal };
	struct thnl n;
	int ret;

	ret = mg_parse(argc, argv, &o);
	if (ret)
		return ret > 0 ? THCTL_EXIT_OK : THCTL_EXIT_USAGE;
	if (o.npos) {
		mg_usage(stderr, o.cmd);
		return THCTL_EXIT_USAGE;
	}
	ret = mg_connect(&o, &n);
	if (ret)
		return ret;
	/* an interrupted monitor still ends its JSON document */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	tj_init(&w.j, stdout, o.pretty);
	if (o.json)
		tj_arr_begin(&w.j);
	ret = thnl_monitor(&n, o.count, o.timeout_ms, mg_event, &w);
	if (o.json) {
		tj_arr_end(&w.j);
		tj_finish(&w.j);
	}
	thnl_close(&n);
	return ret ? mg_fail(&o, ret) : THCTL_EXIT_OK;
}
