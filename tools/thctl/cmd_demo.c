// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * cmd_demo.c - 'thctl demo': an Allreduce offloaded to the NIC over a
 * k-nomial tree, one process driving every node, narrated from the
 * library's own plan (th_coll_plan_step()): the counters the handle uses,
 * then every chain each node's NIC holds, what triggers it and by how much
 * its threshold grows each round.  Then a few rounds run: each is one
 * counter increment per host, and every node's result is checked.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "json.h"
#include "thctl.h"
#include "th_opcode.h"
#include <thverbs/verbs.h>
#include <thverbs/coll.h>

#define DEMO_MAX_NODES	1024
#define DEMO_ROUNDS	3

struct demo {
	unsigned int n, k, count;
	struct th_device **devs;
	int ndev;
	struct th_context **ctx;
	struct th_vport **vp;
	double **send, **recv;
	bool verbose;
	bool stats, json, pretty;
};

static void demo_usage(FILE *f)
{
	fprintf(f,
		"usage: thctl demo [-n NODES] [-k RADIX] [-c COUNT] [--provider P] [-q]\n"
		"                  [--stats] [-j [-p]]\n\n"
		"Compile an Allreduce (float64 sum of COUNT elements, default 4) over a\n"
		"k-nomial tree of NODES nodes (default 16, radix 4) into the library's\n"
		"plan of re-arming chains, print the plan node by node, run %u rounds\n"
		"(one counter increment per host each) and check every node's result.\n"
		"One process drives every node; nodes beyond the provider's share them.\n"
		"The provider is kernel, inproc or auto (default: TH_PROVIDER, else\n"
		"kernel when /dev/th_nic0 exists, else the in-process NIC model).\n"
		"--stats prints the in-process fabric's statistics of the nodes used\n"
		"(th_nic.ko's: thctl stat).  -j prints one JSON document instead:\n"
		"{\"nodes\", \"radix\", \"count\", \"ok\", \"output\": [lines], \"stats\":\n"
		"[{\"node\", the statistics...}] or null}; -p indents it.\n\n"
		"Exit status: 0 every node has the right result, 1 a failure, 2 usage.\n",
		DEMO_ROUNDS);
}

static double demo_value(unsigned int r, unsigned int round, unsigned int i)
{
	return (double)((r * 3 + round * 5 + i) % 17);
}

static const char *demo_op(uint8_t opcode)
{
	const char *name = th_eng_opcode_name(opcode);

	return name ? name : "?";
}

/* The counter map's name for counter @ct, e.g. "U(0)" for 8. */
static void demo_ct_name(uint16_t ct, char *buf, size_t len)
{
	struct th_coll_counter m;
	unsigned int i;

	for (i = 0; !th_coll_counter_map(i, &m); i++) {
		if (strcmp(m.user, "offload") && strncmp(m.user, "offload ", 8))
			continue;
		if (m.count == 1 && ct == m.first) {
			snprintf(buf, len, "%s", m.name);
			return;
		}
		/* U(s) and B(s) interleave: every second counter */
		if (m.count > 1 && ct >= m.first && !((ct - m.first) % 2) &&
		    (ct - m.first) / 2 < m.count) {
			snprintf(buf, len, "%.*s%u)", (int)(strchr(m.name, '(') -
							     m.name + 1),
				 m.name, (ct - m.first) / 2);
			return;
		}
	}
	snprintf(buf, len, "ct%u", ct);
}

/* How @rank's host starts a round: "the host raises U(0) by 1". */
static void demo_start(const struct th_coll *coll, unsigned int rank)
{
	struct th_coll_start_ct st;
	unsigned int i;
	char ct[32];

	for (i = 0; !th_coll_plan_start(coll, i, &st); i++) {
		if (st.rank != rank)
			continue;
		demo_ct_name(st.ct, ct, sizeof(ct));
		printf("  node %u: its host starts a round by raising %s by %llu\n",
		       rank, ct, (unsigned long long)st.value);
		return;
	}
	printf("  node %u\n", rank);
}

static void demo_narrate(const struct th_coll *coll)
{
	struct th_coll_counter m;
	struct th_coll_step st;
	unsigned int i, j, rank = ~0u;
	char ct[32];

	printf("  counters of each node's vport:\n");
	for (i = 0; !th_coll_counter_map(i, &m); i++)
		if (!strncmp(m.user, "offload", 7))
			printf("    %-5s %s\n", m.name, m.meaning);
	printf("  the plan: chains posted once, each re-armed by its stride every round\n");
	for (i = 0; !th_coll_plan_step(coll, i, &st); i++) {
		if (st.rank != rank) {
			rank = st.rank;
			demo_start(coll, rank);
		}
		demo_ct_name(st.ct, ct, sizeof(ct));
		printf("    on %-5s >= %llu (+%llu a round): %s [", ct,
		       (unsigned long long)st.threshold,
		       (unsigned long long)st.stride, st.what);
		for (j = 0; j < st.ndesc; j++)
			printf("%s%s", j ? " " : "", demo_op(st.descs[j].opcode));
		printf("]\n");
	}
}

static void demo_teardown(struct demo *d)
{
	unsigned int r;

	for (r = 0; d->vp && r < d->n; r++) {
		if (d->vp[r])
			th_vport_destroy(d->vp[r]);
		free(d->send ? d->send[r] : NULL);
		free(d->recv ? d->recv[r] : NULL);
	}
	for (r = 0; d->ctx && r < (unsigned int)d->ndev; r++)
		if (d->ctx[r])
			th_device_close(d->ctx[r]);
	free(d->vp);
	free(d->ctx);
	free(d->send);
	free(d->recv);
	th_device_list_free(d->devs);
}

static int demo_fail(struct demo *d, const char *what, int err)
{
	fprintf(stderr, "thctl demo: %s: %s\n", what, th_strerror(err));
	demo_teardown(d);
	return THCTL_EXIT_FAIL;
}

/* Node r's vport and buffers (ranks beyond the nodes share them). */
static int demo_setup(struct demo *d, unsigned int r)
{
	unsigned int node = r % d->ndev;

	if (!d->ctx[node])
		d->ctx[node] = th_device_open(d->devs[node]);
	if (!d->ctx[node])
		return -errno;
	d->vp[r] = th_vport_create(d->ctx[node], NULL);
	d->send[r] = calloc(d->count, sizeof(double));
	d->recv[r] = calloc(d->count, sizeof(double));
	if (!d->vp[r])
		return -errno;
	return d->send[r] && d->recv[r] ? 0 : -ENOMEM;
}

static int demo_parse(int argc, char **argv, struct demo *d,
		      const char **provider)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		char *end = NULL;
		unsigned long v = 0;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			demo_usage(stdout);
			exit(THCTL_EXIT_OK);
		} else if (!strcmp(a, "-q")) {
			d->verbose = false;
			continue;
		} else if (!strcmp(a, "--stats")) {
			d->stats = true;
			continue;
		} else if (!strcmp(a, "-j") || !strcmp(a, "--json")) {
			d->json = true;
			continue;
		} else if (!strcmp(a, "-p") || !strcmp(a, "--pretty")) {
			d->pretty = true;
			continue;
		} else if (!strcmp(a, "--provider") && i + 1 < argc) {
			*provider = argv[++i];
			continue;
		}
		if (i + 1 >= argc)
			return -EINVAL;
		v = strtoul(argv[++i], &end, 10);
		if (*end)
			return -EINVAL;
		if (!strcmp(a, "-n") && v >= 1 && v <= DEMO_MAX_NODES)
			d->n = v;
		else if (!strcmp(a, "-k") && v >= 2 && v <= 64)
			d->k = v;
		else if (!strcmp(a, "-c") && v >= 1 && v <= (1 << 20))
			d->count = v;
		else
			return -EINVAL;
	}
	return 0;
}

static double demo_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int demo_run(struct demo *dp, const char *provider)
{
	struct demo d = *dp;
	struct th_coll_attr a = { .kind = TH_COLL_ALLREDUCE,
				  .op = TH_NIC_ALU_SUM,
				  .dtype = TH_NIC_DT_FLOAT64 };
	unsigned int r, i, j, round, bad = 0;
	struct th_coll *coll;
	double t0, t1 = 0, want;
	int ret;

	d.devs = th_device_list_get(provider, &d.ndev);
	if (!d.devs || d.ndev < 1) {
		fprintf(stderr, "thctl demo: no devices: %s\n", strerror(errno));
		return THCTL_EXIT_FAIL;
	}
	d.ctx = calloc(d.ndev, sizeof(*d.ctx));
	d.vp = calloc(d.n, sizeof(*d.vp));
	d.send = calloc(d.n, sizeof(*d.send));
	d.recv = calloc(d.n, sizeof(*d.recv));
	if (!d.ctx || !d.vp || !d.send || !d.recv)
		return demo_fail(&d, "setup", -ENOMEM);
	printf("th_nic demo: Allreduce (sum of %u doubles) over a %u-nomial tree of %u nodes, provider %s\n",
	       d.count, d.k, d.n, th_device_provider(d.devs[0]));
	for (r = 0; r < d.n; r++) {
		ret = demo_setup(&d, r);
		if (ret)
			return demo_fail(&d, "open node", ret);
	}
	a.count = d.count;
	a.radix = d.k;
	coll = th_coll_create_local(d.vp, d.n, &a, (void *const *)d.send,
				    (void *const *)d.recv);
	if (!coll)
		return demo_fail(&d, "compile and post the plan", -errno);
	if (d.verbose)
		demo_narrate(coll);

	for (round = 0; round < DEMO_ROUNDS; round++) {
		for (r = 0; r < d.n; r++)
			for (i = 0; i < d.count; i++)
				d.send[r][i] = demo_value(r, round, i);
		/* every host starts: one increment each; the NIC does the rest */
		t0 = demo_now();
		ret = th_coll_start(coll);
		if (!ret)
			ret = th_coll_wait(coll, 5000000000ULL);
		t1 = demo_now() - t0;
		if (ret) {
			th_coll_destroy(coll);
			return demo_fail(&d, "round", ret);
		}
		for (r = 0, bad = 0; r < d.n; r++) {
			unsigned int ok = 1;

			for (i = 0; i < d.count; i++) {
				want = 0;
				for (j = 0; j < d.n; j++)
					want += demo_value(j, round, i);
				if (d.recv[r][i] != want)
					ok = 0;
			}
			bad += !ok;
			if (d.verbose && round + 1 == DEMO_ROUNDS)
				printf("  node %2u  result[0] = %g  %s\n", r,
				       d.recv[r][0], ok ? "correct" : "WRONG");
		}
		if (d.verbose)
			printf("  round %u: %u of %u nodes correct, %.1f us\n",
			       round + 1, d.n - bad, d.n, t1 * 1e6);
		if (bad)
			break;
	}
	printf("%u of %u nodes correct; %.1f us from the first start to the last result\n",
	       d.n - bad, d.n, t1 * 1e6);
	th_coll_destroy(coll);
	demo_teardown(&d);
	return bad ? THCTL_EXIT_FAIL : THCTL_EXIT_OK;
}

int thctl_demo_main(int argc, char **argv)
{
	struct demo d = { .n = 16, .k = 4, .count = 4, .verbose = true };
	const char *provider = NULL;
	struct thctl_capture cap;
	struct th_device **devs;
	bool *used;
	int ret, ndev = 0, i;
	struct tj j;

	if (demo_parse(argc, argv, &d, &provider)) {
		demo_usage(stderr);
		return THCTL_EXIT_USAGE;
	}
	if (d.json && thctl_capture_begin(&cap))
		return THCTL_EXIT_FAIL;
	ret = demo_run(&d, provider);
	if (!d.json && !d.stats)
		return ret;
	/* the nodes the ranks used: rank r on node r % ndev */
	devs = th_device_list_get(provider, &ndev);
	used = calloc(ndev > 0 ? ndev : 1, sizeof(*used));
	for (i = 0; used && i < ndev; i++)
		used[i] = (unsigned int)i < d.n;
	if (d.stats && used && devs)
		thctl_stats_print(devs, used, ndev);
	if (d.json) {
		tj_init(&j, cap.saved, d.pretty);
		tj_obj_begin(&j);
		tj_kv_u64(&j, "nodes", d.n);
		tj_kv_u64(&j, "radix", d.k);
		tj_kv_u64(&j, "count", d.count);
		tj_key(&j, "ok");
		tj_bool(&j, ret == THCTL_EXIT_OK);
		thctl_capture_end(&cap, &j);
		if (used && devs)
			thctl_stats_json(&j, devs, used, ndev);
		tj_obj_end(&j);
		tj_finish(&j);
	}
	free(used);
	th_device_list_free(devs);
	return ret;
}
