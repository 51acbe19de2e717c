// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * calibrate.c - measuring the placer's fabric cost model on a provider
 * (th_place_calibrate()): re-arming chains on two vports of two nodes,
 * each run by one counter increment, timed from the host:
 *   descriptor  a chain of 15 counter increments against a chain of 1
 *               (with the REARM, 16: the NIC's default chain length)
 *   latency     a PUT of 8 bytes there and one back (a round trip)
 *   bandwidth   the same with 1 MiB
 *   alu         a 2-operand double sum of 256 KiB a side
 * and the host, for the timed mode:
 *   post        a counter increment that fires nothing
 *   cpu         the same sum as the ALU's, on this CPU
 *   wake        from an increment to the return of another thread's
 *               wait for it, that thread asleep, less the increment
 * Each figure is the median of its runs.  With one process driving both
 * vports, an increment runs what it fires before it returns, on the
 * in-process and on the kernel provider alike.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "th_alu.h"
#include "thverbs_priv.h"
#include <thverbs/place.h>

#define TH_CAL_RUNS	201
#define TH_CAL_BIG	(1u << 20)
#define TH_CAL_ALU	(256u << 10)
#define TH_CAL_TIMEOUT	5000000000ULL
#define TH_CAL_WAKES	51
#define TH_CAL_ASLEEP_NS 300000	/* long enough for the waiter to sleep */

enum { CT_GO = 1, CT_SPIN, CT_BACK, CT_THERE, CT_WAKE };

static double th_cal_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int th_cal_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * Median seconds of one round: increment @go on @vp, then wait for @done
 * on @wvp to reach the round (0: the increment's own return suffices).
 */
static int th_cal_time(struct th_vport *vp, struct th_vport *wvp, uint16_t done,
		       uint64_t *round, double *out)
{
	double t[TH_CAL_RUNS], t0;
	unsigned int i;
	int ret = 0;

	for (i = 0; !ret && i < TH_CAL_RUNS; i++) {
		t0 = th_cal_now();
		ret = th_ct_inc(vp, CT_GO, 1);
		++*round;
		if (!ret && done)
			ret = th_ct_wait(wvp, done, *round, TH_CAL_TIMEOUT);
		t[i] = th_cal_now() - t0;
	}
	if (ret)
		return ret;
	qsort(t, TH_CAL_RUNS, sizeof(*t), th_cal_cmp);
	*out = t[TH_CAL_RUNS / 2];
	return 0;
}

/* Post @c on @vp as a chain that runs each time @ct (now 0) gains one. */
static int th_cal_post(struct th_vport *vp, struct th_chain *c, uint16_t ct)
{
	int ret = th_chain_rearm(c, 1, 0);

	if (!ret)
		ret = th_chain_trigger(c, ct, 1, 0);
	return ret ? ret : th_post_chain(vp, c);
}

/* No chain left on @vp, its CQ empty and the counters used at zero. */
static void th_cal_reset(struct th_vport *vp)
{
	struct th_nic_cqe cqe[16];
	unsigned int i;

	th_cancel_all(vp);
	while (th_poll_cq(vp, cqe, 16) > 0)
		;
	for (i = CT_GO; i <= CT_WAKE; i++)
		th_ct_set(vp, i, 0, 0);
}

static double th_cal_median(double *t, unsigned int n)
{
	qsort(t, n, sizeof(*t), th_cal_cmp);
	return t[n / 2];
}

/* The host's post and CPU rate; @buf holds two operands of TH_CAL_ALU. */
static int th_cal_host(struct th_vport *vp, uint8_t *buf,
		       struct th_place_model *m)
{
	double t[TH_CAL_RUNS], t0, cpu;
	const void *src[2] = { buf, buf + TH_CAL_ALU };
	unsigned int i;
	int ret = 0;

	for (i = 0; !ret && i < TH_CAL_RUNS; i++) {
		t0 = th_cal_now();
		ret = th_ct_inc(vp, CT_SPIN, 1);
		t[i] = th_cal_now() - t0;
	}
	if (ret)
		return ret;
	m->post = th_cal_median(t, TH_CAL_RUNS);
	for (i = 0; i < TH_CAL_RUNS / 4; i++) {
		t0 = th_cal_now();
		th_alu_reduce(TH_NIC_ALU_SUM, TH_NIC_DT_FLOAT64, buf, src, 2,
			      false, TH_CAL_ALU / 8);
		t[i] = th_cal_now() - t0;
	}
	cpu = th_cal_median(t, TH_CAL_RUNS / 4);
	m->cpu = cpu > 0 ? 2.0 * TH_CAL_ALU / cpu : 1e12;
	return 0;
}

struct th_cal_waiter {
	struct th_vport *vp;
	double woke[TH_CAL_WAKES];
	unsigned int done;	/* rounds whose @woke is written */
	int ret;
};

static void *th_cal_waiter(void *arg)
{
	struct th_cal_waiter *w = arg;
	unsigned int i;
	int ret = 0;

	for (i = 0; !ret && i < TH_CAL_WAKES; i++) {
		ret = th_ct_wait(w->vp, CT_WAKE, i + 1, TH_CAL_TIMEOUT);
		w->woke[i] = th_cal_now();
		__atomic_store_n(&w->ret, ret, __ATOMIC_RELAXED);
		__atomic_store_n(&w->done, i + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* The host's wake-up: another thread asleep in a wait for our increment. */
static int th_cal_wake(struct th_vport *vp, struct th_place_model *m)
{
	struct th_cal_waiter w = { .vp = vp };
	const struct timespec asleep = { 0, TH_CAL_ASLEEP_NS };
	double t[TH_CAL_WAKES], wake;
	unsigned int i;
	pthread_t thr;
	int ret = 0;

	if (pthread_create(&thr, NULL, th_cal_waiter, &w))
		return -EAGAIN;
	for (i = 0; !ret && i < TH_CAL_WAKES; i++) {
		nanosleep(&asleep, NULL);
		t[i] = th_cal_now();
		ret = th_ct_inc(vp, CT_WAKE, 1);
		/* one round at a time: the waiter sleeps again before the next */
		while (!ret && __atomic_load_n(&w.done, __ATOMIC_ACQUIRE) <= i)
			sched_yield();
		if (!ret)
			ret = w.ret;
	}
	if (ret)	/* release a waiter still waiting */
		th_ct_inc(vp, CT_WAKE, TH_CAL_WAKES);
	pthread_join(thr, NULL);
	if (ret)
		return ret;
	for (i = 0; i < TH_CAL_WAKES; i++)
		t[i] = w.woke[i] - t[i];
	wake = th_cal_median(t, TH_CAL_WAKES) - m->post;
	m->wake = wake > 0 ? wake : 0;
	return 0;
}

int th_place_calibrate(struct th_vport *a, struct th_vport *b,
				 struct th_place_model *m)
{
	struct th_mr *ma = NULL, *mb = NULL;
	struct th_chain *c = th_chain_create();
	const struct th_mr *src[2];
	uint64_t off[2], round = 0;
	double t1, t16, small, big, alu;
	struct th_remote to, back;
	uint8_t *bufa, *bufb;
	unsigned int i;
	int ret = -ENOMEM;

	bufa = calloc(1, 2 * TH_CAL_BIG + 2 * TH_CAL_ALU);
	bufb = calloc(1, 2 * TH_CAL_BIG);
	if (!c || !bufa || !bufb || !m)
		goto out;
	ma = th_mr_reg(a, bufa, 2 * TH_CAL_BIG + 2 * TH_CAL_ALU, TH_NIC_ACCESS_ALL);
	mb = th_mr_reg(b, bufb, 2 * TH_CAL_BIG, TH_NIC_ACCESS_ALL);
	if (!ma || !mb) {
		ret = errno ? -errno : -ENOMEM;
		goto out;
	}
	ret = 0;
	to = (struct th_remote){ .node = th_vport_node(b),
				 .vport = th_vport_index(b),
				 .rkey = th_mr_rkey(mb) };
	back = (struct th_remote){ .node = th_vport_node(a),
				   .vport = th_vport_index(a),
				   .rkey = th_mr_rkey(ma) };

	/* the descriptor: 1 increment, then 15 */
	for (i = 0; !ret && i < 2; i++) {
		unsigned int k;

		th_cal_reset(a);
		th_chain_reset(c);
		for (k = 0; !ret && k < (i ? 15u : 1u); k++)
			ret = th_chain_ct_inc(c, CT_SPIN, 1, 0);
		if (!ret)
			ret = th_cal_post(a, c, CT_GO);
		round = 0;
		if (!ret)
			ret = th_cal_time(a, NULL, 0, &round, i ? &t16 : &t1);
	}

	/* a round trip of 8 bytes, then of 1 MiB: there on b, back on a */
	for (i = 0; !ret && i < 2; i++) {
		uint64_t len = i ? TH_CAL_BIG : 8;

		th_cal_reset(a);
		th_cal_reset(b);
		th_chain_reset(c);
		ret = th_chain_put(c, mb, 0, &back, len, CT_BACK, 0);
		if (!ret)
			ret = th_cal_post(b, c, CT_THERE);
		th_chain_reset(c);
		if (!ret)
			ret = th_chain_put(c, ma, 0, &to, len, CT_THERE, 0);
		if (!ret)
			ret = th_cal_post(a, c, CT_GO);
		round = 0;
		if (!ret)
			ret = th_cal_time(a, a, CT_BACK, &round, i ? &big : &small);
	}

	/* the ALU: two operands of 256 KiB of doubles into a third */
	th_cal_reset(a);
	th_cal_reset(b);
	th_chain_reset(c);
	src[0] = ma;
	src[1] = ma;
	off[0] = 2 * TH_CAL_BIG;
	off[1] = 2 * TH_CAL_BIG + TH_CAL_ALU;
	if (!ret)
		ret = th_chain_reduce(c, TH_NIC_ALU_SUM, TH_NIC_DT_FLOAT64,
				      TH_CAL_ALU / 8, ma, 0, 2, src, off, false, 0);
	if (!ret)
		ret = th_cal_post(a, c, CT_GO);
	round = 0;
	if (!ret)
		ret = th_cal_time(a, NULL, 0, &round, &alu);
	th_cal_reset(a);
	if (ret)
		goto out;

	m->descriptor = t16 > t1 ? (t16 - t1) / 14 : 1e-9;
	/* a round trip is two PUTs: descriptor + latency + bytes / bandwidth */
	m->bandwidth = big > small ? 2.0 * (TH_CAL_BIG - 8) / (big - small) : 1e12;
	m->latency = small / 2 - m->descriptor - 8 / m->bandwidth;
	if (m->latency < 1e-9)
		m->latency = 1e-9;
	alu -= m->descriptor;
	for (i = 0; i < m->nodes; i++)
		m->alu[i] = alu > 0 ? 2.0 * TH_CAL_ALU / alu : 1e12;
	ret = th_cal_host(a, bufa + 2 * TH_CAL_BIG, m);
	if (!ret)
		ret = th_cal_wake(a, m);
	th_cal_reset(a);
out:
	if (ma)
		th_mr_dereg(ma);
	if (mb)
		th_mr_dereg(mb);
	free(bufa);
	free(bufb);
	th_chain_destroy(c);
	return ret;
}
