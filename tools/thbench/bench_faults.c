// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bench_faults.c - 'thbench faults': Allreduces of N ranks (one process
 * driving them all) under fault injection on every node, rate by rate:
 * how many gave the right data, failed with an error, gave wrong data or
 * hung, and the latency of the right ones beside the fault-free run's.
 * Faults are set with th_fault_set() on the in-process fabric and over
 * generic netlink on th_nic.ko (which needs CAP_NET_ADMIN).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_ranks.h"
#include "nl.h"
#include "thbench.h"
#include <thverbs/verbs.h>
#include <thverbs/coll.h>

#define FB_MAX_RATES	8
#define FB_TIMEOUT_NS	10000000000ULL

struct fb_opts {
	const char *provider;
	unsigned int rounds, ranks, count, radix, retries;
	uint64_t retry_ns;
	uint32_t rates[FB_MAX_RATES];
	unsigned int nrates;
};

struct fb_row {
	unsigned int correct, failed, wrong, hung;
	double med, p90;	/* µs, of the right ones */
};

static void fb_usage(FILE *f)
{
	fprintf(f,
		"usage: thbench faults [--provider P] [--rounds N] [--ranks R]\n"
		"                      [--count C] [--radix K] [--rates LIST]\n"
		"                      [--retries N] [--retry NS]\n\n"
		"Allreduces (float64 sum of C elements, R ranks on R nodes, radix K)\n"
		"under lost deliveries on every node, for each rate in LIST (per\n"
		"million; default 0,1000,10000,1000000: none, 0.1 %%, 1 %%, 100 %%),\n"
		"N rounds each (default 1000).  A lost delivery is sent again after\n"
		"NS (default 20000) at most N times (default 3).  Per rate: rounds\n"
		"right, failed with an error, wrong, hung (no answer in 10 s), and\n"
		"the median and p90 latency of the right ones beside the fault-free\n"
		"median.  A failed handle is destroyed and a new one made.\n"
		"Exit status: 0, or 1 if any round was wrong or hung.\n");
}

static int fb_parse(int argc, char **argv, struct fb_opts *o)
{
	uint64_t v[FB_MAX_RATES];
	unsigned int n;
	int i;

	*o = (struct fb_opts){ .rounds = 1000, .ranks = 16, .count = 64,
			       .radix = 4, .retries = 3, .retry_ns = 20000,
			       .rates = { 0, 1000, 10000, 1000000 },
			       .nrates = 4 };
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		char *end;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fb_usage(stdout);
			return 1;
		}
		if (!val)
			goto bad;
		i++;
		errno = 0;
		if (!strcmp(a, "--provider")) {
			o->provider = val;
		} else if (!strcmp(a, "--rates")) {
			if (br_parse_list(val, v, FB_MAX_RATES, &n, 0, 1000000))
				goto bad;
			for (o->nrates = 0; o->nrates < n; o->nrates++)
				o->rates[o->nrates] = v[o->nrates];
		} else {
			unsigned long long x = strtoull(val, &end, 0);

			if (*end || errno || !*val)
				goto bad;
			if (!strcmp(a, "--rounds") && x && x <= 1000000)
				o->rounds = x;
			else if (!strcmp(a, "--ranks") && x >= 2 && x <= 64)
				o->ranks = x;
			else if (!strcmp(a, "--count") && x && x <= (1u << 24))
				o->count = x;
			else if (!strcmp(a, "--radix") && x >= 2 && x <= 64)
				o->radix = x;
			else if (!strcmp(a, "--retries") && x <= 16)
				o->retries = x;
			else if (!strcmp(a, "--retry") && x <= 100000000)
				o->retry_ns = x;
			else
				goto bad;
		}
	}
	return 0;
bad:
	fprintf(stderr, "thbench faults: bad argument '%s'\n", argv[i - 1]);
	fb_usage(stderr);
	return -1;
}

/* Every node's fault injection: the library's call, or netlink. */
static int fb_fault_all(struct th_context **ctx, struct th_device **devs,
			unsigned int n, const struct th_fault *f0)
{
	struct th_fault f = *f0;
	struct thnl nl = { 0 };
	unsigned int i;
	int ret = 0;

	for (i = 0; !ret && i < n; i++) {
		f.seed = 77 + i;
		ret = th_fault_set(ctx[i], &f);
		if (ret == -EOPNOTSUPP) {
			ret = nl.sk ? 0 : thnl_open(&nl);
			if (!ret)
				ret = thnl_fault_set(&nl, th_device_node(devs[i]), &f);
		}
	}
	thnl_close(&nl);
	return ret;
}

static double fb_input(unsigned int rank, unsigned int round, unsigned int i)
{
	return (double)((rank * 13 + round * 5 + i) % 64);
}

static int fb_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* @o->rounds Allreduces under what is set; @row filled. */
static int fb_rounds(const struct fb_opts *o, struct th_vport **vp,
		     double *buf, struct fb_row *row)
{
	struct th_coll_attr a = { .kind = TH_COLL_ALLREDUCE,
				  .op = TH_NIC_ALU_SUM,
				  .dtype = TH_NIC_DT_FLOAT64, .count = o->count,
				  .radix = o->radix };
	double *t = calloc(o->rounds, sizeof(double)), want, t0;
	void *send[64], *recv[64];
	struct th_coll *coll = NULL;
	unsigned int r, i, round, nt = 0;
	int err, ret = t ? 0 : -ENOMEM;

	for (r = 0; r < o->ranks; r++) {
		send[r] = buf + (size_t)r * o->count;
		recv[r] = buf + (size_t)(o->ranks + r) * o->count;
	}
	for (round = 0; !ret && round < o->rounds; round++) {
		if (!coll)
			coll = th_coll_create_local(vp, o->ranks, &a, send, recv);
		if (!coll) {
			ret = -errno;
			break;
		}
		for (r = 0; r < o->ranks; r++)
			for (i = 0; i < o->count; i++) {
				((double *)send[r])[i] = fb_input(r, round, i);
				((double *)recv[r])[i] = -1;
			}
		t0 = br_now_us();
		err = th_coll_start(coll);
		if (!err)
			err = th_coll_wait(coll, FB_TIMEOUT_NS);
		if (err == -ETIMEDOUT) {
			row->hung++;
		} else if (err) {
			row->failed++;
		} else {
			bool same = true;

			t[nt++] = br_now_us() - t0;
			for (i = 0; i < o->count; i++) {
				for (want = 0, r = 0; r < o->ranks; r++)
					want += fb_input(r, round, i);
				for (r = 0; r < o->ranks; r++)
					same &= ((double *)recv[r])[i] == want;
			}
			if (same)
				row->correct++;
			else
				row->wrong++;
		}
		if (err) {
			th_coll_destroy(coll);
			coll = NULL;
		}
		if (!(round % 100))
			br_progress("thbench faults: round %u of %u", round, o->rounds);
	}
	th_coll_destroy(coll);
	row->med = row->p90 = NAN;
	if (nt) {
		qsort(t, nt, sizeof(*t), fb_cmp);
		row->med = t[nt / 2];
		row->p90 = t[nt * 9 / 10];
	}
	free(t);
	return ret;
}

int thbench_faults_main(int argc, char **argv)
{
	struct fb_opts o;
	struct th_device **devs = NULL;
	struct th_context *ctx[64] = { NULL };
	struct th_vport *vp[64] = { NULL };
	struct fb_row rows[FB_MAX_RATES] = { 0 };
	struct th_fault f = { .vport = TH_FAULT_ANY_VPORT };
	double *buf = NULL, base = NAN;
	unsigned int r, k;
	int ndev = 0, ret, bad = 0;

	ret = fb_parse(argc, argv, &o);
	if (ret)
		return ret > 0 ? 0 : 2;
	devs = th_device_list_get(o.provider, &ndev);
	if (!devs || ndev < (int)o.ranks) {
		fprintf(stderr, "thbench faults: %d nodes, %u ranks need one each\n",
			ndev, o.ranks);
		th_device_list_free(devs);
		return 1;
	}
	buf = calloc(2 * (size_t)o.ranks * o.count, sizeof(double));
	ret = buf ? 0 : -ENOMEM;
	for (r = 0; !ret && r < o.ranks; r++) {
		ctx[r] = th_device_open(devs[r]);
		vp[r] = ctx[r] ? th_vport_create(ctx[r], NULL) : NULL;
		ret = vp[r] ? 0 : -errno;
	}
	f.retries = o.retries;
	f.retry_ns = o.retry_ns;
	for (k = 0; !ret && k < o.nrates; k++) {
		f.drop_ppm = o.rates[k];
		ret = fb_fault_all(ctx, devs, o.ranks, &f);
		if (ret) {
			fprintf(stderr, "thbench faults: setting faults: %s\n",
				th_strerror(ret));
			break;
		}
		ret = fb_rounds(&o, vp, buf, &rows[k]);
	}
	f.drop_ppm = 0;
	if (vp[0])
		fb_fault_all(ctx, devs, o.ranks, &f);
	br_progress("%s", "");
	if (!ret) {
		printf("# Allreduce of %u float64 over %u ranks (radix %u), provider %s,\n"
		       "# %u rounds per rate; a lost delivery sent again after %llu ns,\n"
		       "# at most %u times; latency of the right rounds in us\n",
		       o.count, o.ranks, o.radix, th_device_provider(devs[0]),
		       o.rounds, (unsigned long long)o.retry_ns, o.retries);
		printf("%9s %8s %8s %6s %5s %10s %10s %9s\n", "loss", "correct",
		       "failed", "wrong", "hung", "median_us", "p90_us",
		       "vs_none");
		for (k = 0; k < o.nrates; k++) {
			if (!o.rates[k])
				base = rows[k].med;
			printf("%8.1f%% %8u %8u %6u %5u", o.rates[k] / 1e4,
			       rows[k].correct, rows[k].failed, rows[k].wrong,
			       rows[k].hung);
			if (rows[k].correct)
				printf(" %10.2f %10.2f %9.2f\n", rows[k].med,
				       rows[k].p90, rows[k].med / base);
			else
				printf(" %10s %10s %9s\n", "-", "-", "-");
			bad |= rows[k].wrong || rows[k].hung;
		}
	} else {
		fprintf(stderr, "thbench faults: %s\n", th_strerror(ret));
	}
	for (r = 0; r < o.ranks; r++) {
		if (vp[r])
			th_vport_destroy(vp[r]);
		if (ctx[r])
			th_device_close(ctx[r]);
	}
	th_device_list_free(devs);
	free(buf);
	return ret || bad ? 1 : 0;
}
