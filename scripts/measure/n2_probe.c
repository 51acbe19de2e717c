// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * n2_probe.c - NIC time, measured, for issue 28 item 2's before/after
 * report (scripts/measure/n2-before-after.sh): what a self-re-arming loop
 * makes the machine do, and how fast a legitimate re-armed plan (the
 * offloaded Allreduce) runs.  Prints "N2 key value" lines and judges
 * nothing (selftests/host/test_nic_time.c and selftests/th_nic/
 * nictime_test.c do).  Builds against the public libthverbs API only.
 *
 * Usage: n2_probe MODE [ARGS]
 *   rearm SECONDS NVPORTS   NVPORTS vports on node 0, each with the chain
 *                           [CT_INC ct0; REARM stride 1] on ct0 >= 0,
 *                           posted with one doorbell; then sleep SECONDS.
 *                           Rounds run (the sum of ct0), the machine's
 *                           busy share over that time (/proc/stat), and
 *                           the CPU time charged to this process.
 *   allreduce NODES SECONDS the offloaded Allreduce (4 doubles, radix 4)
 *                           over NODES ranks, one process driving all:
 *                           start + wait for SECONDS; rounds per second
 * The provider is th_nic.ko's (kernel), or N2_PROVIDER's.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <thverbs/verbs.h>

#define MAX_VPORTS	256
#define MAX_NODES	64

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The "cpu" line of /proc/stat: all jiffies, and those not idle. */
static int cpu_jiffies(unsigned long long *total, unsigned long long *busy)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	int n, i;

	if (!f)
		return -errno;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n < 5)
		return -EIO;
	*total = 0;
	for (i = 0; i < 8; i++)
		*total += v[i];
	*busy = *total - v[3] - v[4];	/* less idle and iowait */
	return 0;
}

static double self_cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

/* th_nic.ko unless N2_PROVIDER names another (inproc: a dry run) */
static const char *provider(void)
{
	const char *p = getenv("N2_PROVIDER");

	return p && *p ? p : "kernel";
}

static int fail(const char *what, int err)
{
	printf("N2 error %s:%s\n", what, th_strerror(err));
	return 1;
}

static int probe_rearm(unsigned int secs, unsigned int n)
{
	unsigned long long t0, b0, t1, b1;
	struct th_vport *vp[MAX_VPORTS];
	struct th_device **devs;
	struct th_context *ctx;
	struct th_chain *c;
	uint64_t s, f, rounds = 0;
	unsigned int i;
	double cpu0;
	int ndev, ret;

	devs = th_device_list_get(provider(), &ndev);
	if (!devs || ndev < 1)
		return fail("devices", -errno);
	ctx = th_device_open(devs[0]);
	if (!ctx)
		return fail("open", -errno);
	for (i = 0; i < n; i++) {
		vp[i] = th_vport_create(ctx, NULL);
		if (!vp[i])
			return fail("vport", -errno);
	}
	c = th_chain_create();
	if (!c)
		return fail("chain", -ENOMEM);
	if (th_chain_trigger(c, 0, 0, 1) || th_chain_ct_inc(c, 0, 1, 0) ||
	    th_chain_rearm(c, 1, 0))
		return fail("chain", -EINVAL);
	cpu0 = self_cpu_s();
	if (cpu_jiffies(&t0, &b0))
		return fail("/proc/stat", -EIO);
	for (i = 0; i < n; i++) {
		ret = th_post_chain(vp[i], c);	/* one doorbell */
		if (ret)
			return fail("post", ret);
	}
	sleep(secs);
	if (cpu_jiffies(&t1, &b1))
		return fail("/proc/stat", -EIO);
	for (i = 0; i < n; i++)
		if (!th_ct_read(vp[i], 0, &s, &f))
			rounds += s;
	printf("N2 rearm_vports %u\n", n);
	printf("N2 rearm_seconds %u\n", secs);
	printf("N2 rearm_rounds %llu\n", (unsigned long long)rounds);
	printf("N2 rearm_busy_pct %.1f\n",
	       t1 > t0 ? 100.0 * (b1 - b0) / (t1 - t0) : 0.0);
	printf("N2 rearm_charged_cpu_s %.2f\n", self_cpu_s() - cpu0);
	for (i = 0; i < n; i++)
		th_vport_destroy(vp[i]);
	th_chain_destroy(c);
	th_device_close(ctx);
	th_device_list_free(devs);
	return 0;
}

static int probe_allreduce(unsigned int n, unsigned int secs)
{
	struct th_coll_attr a = { .kind = TH_COLL_ALLREDUCE,
				  .op = TH_NIC_ALU_SUM,
				  .dtype = TH_NIC_DT_FLOAT64,
				  .count = 4, .radix = 4 };
	struct th_context *ctx[MAX_NODES] = { NULL };
	double *send[MAX_NODES], *recv[MAX_NODES];
	struct th_vport *vp[MAX_NODES];
	unsigned long long rounds = 0;
	struct th_device **devs;
	struct th_coll *coll;
	double t0, t1, want;
	unsigned int r, node;
	int ndev, ret, bad = 0;

	if (n > MAX_NODES)
		return fail("nodes", -EINVAL);
	devs = th_device_list_get(provider(), &ndev);
	if (!devs || ndev < 1)
		return fail("devices", -errno);
	for (r = 0; r < n; r++) {
		node = r % ndev;
		if (!ctx[node])
			ctx[node] = th_device_open(devs[node]);
		if (!ctx[node])
			return fail("open", -errno);
		vp[r] = th_vport_create(ctx[node], NULL);
		send[r] = calloc(4, sizeof(double));
		recv[r] = calloc(4, sizeof(double));
		if (!vp[r] || !send[r] || !recv[r])
			return fail("vport", -errno);
		send[r][0] = r + 1;
	}
	coll = th_coll_create_local(vp, n, &a, (void *const *)send,
				    (void *const *)recv);
	if (!coll)
		return fail("coll", -errno);
	t0 = now_s();
	do {
		ret = th_coll_start(coll);
		if (!ret)
			ret = th_coll_wait(coll, 10000000000ULL);
		if (ret)
			return fail("round", ret);
		rounds++;
		t1 = now_s();
	} while (t1 - t0 < secs);
	want = n * (n + 1) / 2.0;
	for (r = 0; r < n; r++)
		bad += recv[r][0] != want;
	printf("N2 allreduce_nodes %u\n", n);
	printf("N2 allreduce_rounds %llu\n", rounds);
	printf("N2 allreduce_rounds_per_s %.0f\n", rounds / (t1 - t0));
	printf("N2 allreduce_wrong_results %d\n", bad);
	th_coll_destroy(coll);
	for (r = 0; r < n; r++) {
		th_vport_destroy(vp[r]);
		free(send[r]);
		free(recv[r]);
	}
	for (r = 0; r < MAX_NODES; r++)
		if (ctx[r])
			th_device_close(ctx[r]);
	th_device_list_free(devs);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "rearm"))
		return probe_rearm(atoi(argv[2]),
				   atoi(argv[3]) > MAX_VPORTS ? MAX_VPORTS :
				   atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "allreduce"))
		return probe_allreduce(atoi(argv[2]), atoi(argv[3]));
	fprintf(stderr, "usage: n2_probe rearm SECONDS NVPORTS | allreduce NODES SECONDS\n");
	return 2;
}
