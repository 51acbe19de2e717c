// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * wait_test.c - the wait policy (th_wait_policy_set(3)): every policy
 * gives th_ct_wait() the same answers (reached, failed, timed out, a
 * destroyed vport), a spinning waiter sees a counter another thread or a
 * chain on another node raises, bad values are refused, one counter
 * change that raises many sleepers' counters wakes every one of them, and
 * a sleeper is not woken for another vport's counters.  Runs on the
 * in-process provider on the host and on th_nic.ko in the VM.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include <thverbs/verbs.h>

static const enum th_wait_policy policies[] = {
	TH_WAIT_AUTO, TH_WAIT_SPIN, TH_WAIT_PASSIVE,
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

FIXTURE(wait) {
	struct th_device **devs;
	int ndev;
	struct th_context *ctx[2];
	struct th_vport *vp[2];
	uint64_t buf[2][8];
	struct th_mr *mr[2];
	enum th_wait_policy saved;
	uint64_t saved_us;
};

FIXTURE_SETUP(wait)
{
	int i;

	self->saved = th_wait_policy_get(&self->saved_us);
	self->devs = th_device_list_get(NULL, &self->ndev);
	ASSERT_NE(NULL, self->devs);
	ASSERT_GE(self->ndev, 2);
	for (i = 0; i < 2; i++) {
		self->ctx[i] = th_device_open(self->devs[i]);
		ASSERT_NE(NULL, self->ctx[i]);
		self->vp[i] = th_vport_create(self->ctx[i], NULL);
		ASSERT_NE(NULL, self->vp[i]);
		self->mr[i] = th_mr_reg(self->vp[i], self->buf[i],
					sizeof(self->buf[i]), TH_NIC_ACCESS_ALL);
		ASSERT_NE(NULL, self->mr[i]);
	}
}

FIXTURE_TEARDOWN(wait)
{
	int i;

	th_wait_policy_set(self->saved, self->saved_us);
	for (i = 0; i < 2; i++) {
		if (self->mr[i])
			th_mr_dereg(self->mr[i]);
		if (self->vp[i])
			th_vport_destroy(self->vp[i]);
		if (self->ctx[i])
			th_device_close(self->ctx[i]);
	}
	th_device_list_free(self->devs);
}

struct raiser {
	struct th_vport *vp;
	uint16_t ct;
	unsigned int delay_us;
	int steps;
	bool fail;
};

/* After @delay_us, raise the counter @steps times by one (or fail it). */
static void *raise_later(void *arg)
{
	struct raiser *r = arg;
	int i;

	usleep(r->delay_us);
	if (r->fail)
		th_ct_fail(r->vp, r->ct, 1);
	else
		for (i = 0; i < r->steps; i++)
			th_ct_inc(r->vp, r->ct, 1);
	return NULL;
}

TEST(names_and_refusals)
{
	enum th_wait_policy p, saved;
	uint64_t us, saved_us;

	saved = th_wait_policy_get(&saved_us);
	ASSERT_EQ(0, th_wait_policy_parse("spin", &p));
	EXPECT_EQ(TH_WAIT_SPIN, p);
	ASSERT_EQ(0, th_wait_policy_parse("passive", &p));
	EXPECT_EQ(TH_WAIT_PASSIVE, p);
	ASSERT_EQ(0, th_wait_policy_parse("auto", &p));
	EXPECT_EQ(TH_WAIT_AUTO, p);
	p = TH_WAIT_SPIN;
	EXPECT_EQ(-EINVAL, th_wait_policy_parse("active", &p));
	EXPECT_EQ(-EINVAL, th_wait_policy_parse("", &p));
	EXPECT_EQ(-EINVAL, th_wait_policy_parse(NULL, &p));
	EXPECT_EQ(TH_WAIT_SPIN, p);	/* untouched by a refusal */
	EXPECT_STREQ("auto", th_wait_policy_name(TH_WAIT_AUTO));
	EXPECT_STREQ("passive", th_wait_policy_name(TH_WAIT_PASSIVE));
	EXPECT_EQ(NULL, th_wait_policy_name((enum th_wait_policy)3));
	EXPECT_EQ(NULL, th_wait_policy_name((enum th_wait_policy)-1));

	/* a refused set leaves the policy as it was */
	ASSERT_EQ(0, th_wait_policy_set(TH_WAIT_PASSIVE, 7));
	EXPECT_EQ(-EINVAL, th_wait_policy_set((enum th_wait_policy)3, 1));
	EXPECT_EQ(-EINVAL, th_wait_policy_set(TH_WAIT_AUTO, 10000001));
	EXPECT_EQ(TH_WAIT_PASSIVE, th_wait_policy_get(&us));
	EXPECT_EQ(7, us);
	ASSERT_EQ(0, th_wait_policy_set(TH_WAIT_AUTO, 10000000));
	EXPECT_EQ(TH_WAIT_AUTO, th_wait_policy_get(NULL));
	th_wait_policy_set(saved, saved_us);
}

/* The same answers under every policy, each checked with its values. */
TEST_F(wait, every_policy_gives_the_same_answers)
{
	struct raiser r = { .vp = self->vp[0], .delay_us = 2000, .steps = 3 };
	pthread_t t;
	uint64_t t0, s, f;
	unsigned int i;
	uint16_t ct;

	for (i = 0; i < sizeof(policies) / sizeof(policies[0]); i++) {
		ASSERT_EQ(0, th_wait_policy_set(policies[i], 50));
		TH_LOG("policy %s", th_wait_policy_name(policies[i]));
		ct = 20 + 3 * i;

		/* reached by another thread's increments */
		r.ct = ct;
		r.fail = false;
		ASSERT_EQ(0, pthread_create(&t, NULL, raise_later, &r));
		EXPECT_EQ(0, th_ct_wait(self->vp[0], ct, 3, 5000000000ULL));
		ASSERT_EQ(0, th_ct_read(self->vp[0], ct, &s, &f));
		EXPECT_GE(s, 3);
		pthread_join(t, NULL);
		EXPECT_EQ(3, s);

		/* a timeout waits at least that long, then -ETIMEDOUT */
		t0 = now_ns();
		EXPECT_EQ(-ETIMEDOUT, th_ct_wait(self->vp[0], ct, 4, 3000000));
		EXPECT_GE(now_ns() - t0, 3000000);
		/* 0 looks once */
		EXPECT_EQ(-ETIMEDOUT, th_ct_wait(self->vp[0], ct, 4, 0));
		EXPECT_EQ(0, th_ct_wait(self->vp[0], ct, 3, 0));

		/* a failure while waiting is -EIO, not a success */
		r.ct = ct + 1;
		r.fail = true;
		ASSERT_EQ(0, pthread_create(&t, NULL, raise_later, &r));
		EXPECT_EQ(-EIO, th_ct_wait(self->vp[0], ct + 1, 1, 5000000000ULL));
		pthread_join(t, NULL);
		/* failed already, and success reached too: still -EIO */
		ASSERT_EQ(0, th_ct_inc(self->vp[0], ct + 1, 5));
		EXPECT_EQ(-EIO, th_ct_wait(self->vp[0], ct + 1, 1, 1000000));

		/* out of range is refused before any spin */
		EXPECT_EQ(-EINVAL, th_ct_wait(self->vp[0], 60000, 1, 1000000));
	}
}

/*
 * A chain on node 1 PUTs into node 0 and raises node 0's counter: the
 * waiter sees the counter and the data, under every policy, round after
 * round (the NIC raises it, not a host thread of this test).
 */
TEST_F(wait, waiter_sees_a_remote_put_and_its_data)
{
	struct th_remote dst = {
		.node = th_vport_node(self->vp[0]),
		.vport = th_vport_index(self->vp[0]),
		.rkey = th_mr_rkey(self->mr[0]), .off = 0,
	};
	struct th_chain *c = th_chain_create();
	unsigned int i, round;
	uint64_t want = 0;

	ASSERT_NE(NULL, c);
	for (i = 0; i < sizeof(policies) / sizeof(policies[0]); i++) {
		ASSERT_EQ(0, th_wait_policy_set(policies[i], 1000));
		for (round = 0; round < 50; round++) {
			self->buf[1][0] = 0xabc000 + 100 * i + round;
			th_chain_reset(c);
			ASSERT_EQ(0, th_chain_put(c, self->mr[1], 0, &dst, 8, 5, 0));
			ASSERT_EQ(0, th_chain_trigger(c, 6, ++want, round));
			ASSERT_EQ(0, th_post_chain(self->vp[1], c));
			ASSERT_EQ(0, th_ct_inc(self->vp[1], 6, 1));
			ASSERT_EQ(0, th_ct_wait(self->vp[0], 5, want,
						5000000000ULL));
			EXPECT_EQ(0xabc000 + 100 * i + round,
				  __atomic_load_n(&self->buf[0][0],
						  __ATOMIC_ACQUIRE));
		}
	}
	th_chain_destroy(c);
}

/*
 * More spinning waiters than CPUs, and their raisers: under AUTO the
 * ones past the CPU count sleep rather than starve the raisers; under
 * every policy all of them return 0 within the bound.
 */
TEST_F(wait, more_waiters_than_cpus_all_finish)
{
	enum { W = 8 };
	struct raiser r[W];
	pthread_t t[W];
	unsigned int i, k;
	uint64_t t0;

	for (k = 0; k < sizeof(policies) / sizeof(policies[0]); k++) {
		ASSERT_EQ(0, th_wait_policy_set(policies[k], 200));
		for (i = 0; i < W; i++) {
			r[i] = (struct raiser){ .vp = self->vp[0],
				.ct = 40 + 10 * k + i, .delay_us = 500 * i,
				.steps = 2 };
			ASSERT_EQ(0, pthread_create(&t[i], NULL, raise_later,
						    &r[i]));
		}
		t0 = now_ns();
		for (i = 0; i < W; i++)
			EXPECT_EQ(0, th_ct_wait(self->vp[0], r[i].ct, 2,
						10000000000ULL));
		for (i = 0; i < W; i++)
			pthread_join(t[i], NULL);
		TH_LOG("%s: %llu us", th_wait_policy_name(policies[k]),
		       (unsigned long long)(now_ns() - t0) / 1000);
	}
}

struct waiter {
	struct th_vport *vp;
	uint16_t ct;
	int ret;
};

static void *wait_long(void *arg)
{
	struct waiter *w = arg;

	w->ret = th_ct_wait(w->vp, w->ct, 1, 10000000000ULL);
	return NULL;
}

/*
 * A spinning waiter whose counter only a peer's PUT would raise: the peer
 * is destroyed, the counter fails, and the spin ends with -EIO rather than
 * spinning to its timeout.
 */
TEST_F(wait, destroyed_peer_fails_a_spinning_waiter)
{
	struct th_remote dst = {
		.node = th_vport_node(self->vp[0]),
		.vport = th_vport_index(self->vp[0]),
		.rkey = th_mr_rkey(self->mr[0]), .off = 0,
	};
	struct th_chain *c = th_chain_create();
	struct waiter w = { .vp = self->vp[0], .ct = 4, .ret = 1 };
	pthread_t t;
	uint64_t t0;

	ASSERT_NE(NULL, c);
	ASSERT_EQ(0, th_wait_policy_set(TH_WAIT_SPIN, 0));
	/* node 1's PUT to node 0, raising node 0's counter 4, never fires */
	ASSERT_EQ(0, th_chain_put(c, self->mr[1], 0, &dst, 8, 4, 0));
	ASSERT_EQ(0, th_chain_trigger(c, 3, 1, 77));
	ASSERT_EQ(0, th_post_chain(self->vp[1], c));
	t0 = now_ns();
	ASSERT_EQ(0, pthread_create(&t, NULL, wait_long, &w));
	usleep(20000);
	th_mr_dereg(self->mr[1]);
	self->mr[1] = NULL;
	ASSERT_EQ(0, th_vport_destroy(self->vp[1]));
	self->vp[1] = NULL;
	pthread_join(t, NULL);
	EXPECT_EQ(-EIO, w.ret);
	EXPECT_LT(now_ns() - t0, 5000000000ULL);
	th_chain_destroy(c);
}

struct sleeper {
	struct th_vport *vp;
	uint16_t ct;
	uint64_t threshold;
	int ret;
	long switches;		/* voluntary context switches in th_ct_wait() */
	int *started;
};

/* One th_ct_wait() under the caller's policy, its sleeps counted. */
static void *sleep_once(void *arg)
{
	struct sleeper *s = arg;
	struct rusage before, after;

	getrusage(RUSAGE_THREAD, &before);
	__atomic_add_fetch(s->started, 1, __ATOMIC_RELEASE);
	s->ret = th_ct_wait(s->vp, s->ct, s->threshold, 10000000000ULL);
	getrusage(RUSAGE_THREAD, &after);
	s->switches = after.ru_nvcsw - before.ru_nvcsw;
	return NULL;
}

/* Wait (bounded) until @n threads said they started, then let them sleep. */
static bool all_started(int *started, int n)
{
	int i;

	for (i = 0; i < 10000 && __atomic_load_n(started, __ATOMIC_ACQUIRE) < n;
	     i++)
		usleep(1000);
	usleep(20000);
	return __atomic_load_n(started, __ATOMIC_ACQUIRE) >= n;
}

/*
 * One counter change fires a chain whose PUTs raise a counter on each of
 * eight other vports, each with a passive sleeper: every sleeper wakes
 * with its data, though the in-process provider wakes them all with one
 * system call at the end of that work (their vports' bits on one futex
 * word), and vports of two nodes share some of those bits.
 */
TEST_F(wait, one_change_wakes_every_sleeper_it_reaches)
{
	enum { W = 8 };
	struct th_vport *vp[W] = { NULL };
	struct th_mr *mr[W] = { NULL };
	uint64_t buf[W] = { 0 };
	struct sleeper s[W];
	struct th_chain *c = th_chain_create();
	pthread_t t[W];
	int started = 0, i;
	uint64_t t0;

	ASSERT_NE(NULL, c);
	ASSERT_EQ(0, th_wait_policy_set(TH_WAIT_PASSIVE, 0));
	self->buf[0][1] = 0x5eedf00d;
	for (i = 0; i < W; i++) {
		struct th_remote dst;

		vp[i] = th_vport_create(self->ctx[i % 2], NULL);
		ASSERT_NE(NULL, vp[i]);
		mr[i] = th_mr_reg(vp[i], &buf[i], sizeof(buf[i]),
				  TH_NIC_ACCESS_ALL);
		ASSERT_NE(NULL, mr[i]);
		dst = (struct th_remote){ .node = th_vport_node(vp[i]),
			.vport = th_vport_index(vp[i]),
			.rkey = th_mr_rkey(mr[i]) };
		ASSERT_EQ(0, th_chain_put(c, self->mr[0], 8, &dst, 8, 7, 0));
	}
	ASSERT_EQ(0, th_chain_trigger(c, 3, 1, 78));
	ASSERT_EQ(0, th_post_chain(self->vp[0], c));
	for (i = 0; i < W; i++) {
		s[i] = (struct sleeper){ .vp = vp[i], .ct = 7, .threshold = 1,
					 .ret = 1, .started = &started };
		ASSERT_EQ(0, pthread_create(&t[i], NULL, sleep_once, &s[i]));
	}
	EXPECT_TRUE(all_started(&started, W));
	t0 = now_ns();
	ASSERT_EQ(0, th_ct_inc(self->vp[0], 3, 1));
	for (i = 0; i < W; i++) {
		pthread_join(t[i], NULL);
		EXPECT_EQ(0, s[i].ret);
		EXPECT_EQ(0x5eedf00dULL, buf[i]);
	}
	/*
	 * Each woke for the change, not at its 10 s timeout: a wait that
	 * times out on a counter raised meanwhile also returns 0, so only
	 * the bound tells a lost wake-up from a delivered one (5 s: half the
	 * timeout, far more than a wake-up takes even in the debug VM).
	 */
	EXPECT_LT(now_ns() - t0, 5000000000ULL);
	th_chain_destroy(c);
	for (i = 0; i < W; i++) {
		th_mr_dereg(mr[i]);
		th_vport_destroy(vp[i]);
	}
}

/*
 * A passive sleeper on node 0's vport stays asleep while another thread
 * sleeps on node 1's vport and is woken there fifty times: the wake-ups
 * are for that vport's sleepers only.  The first sleeper's voluntary
 * context switches count its sleeps: one, and a few to spare for the
 * scheduler, where a wake-up for any vport would make it about fifty.
 */
TEST_F(wait, a_sleeper_is_not_woken_for_another_vport)
{
	enum { R = 50 };
	struct sleeper a, b;
	pthread_t ta, tb;
	int started = 0, i;

	ASSERT_EQ(0, th_wait_policy_set(TH_WAIT_PASSIVE, 0));
	a = (struct sleeper){ .vp = self->vp[0], .ct = 5, .threshold = 1,
			      .ret = 1, .started = &started };
	ASSERT_EQ(0, pthread_create(&ta, NULL, sleep_once, &a));
	ASSERT_TRUE(all_started(&started, 1));
	for (i = 0; i < R; i++) {
		b = (struct sleeper){ .vp = self->vp[1], .ct = 6,
				      .threshold = i + 1, .ret = 1,
				      .started = &started };
		ASSERT_EQ(0, pthread_create(&tb, NULL, sleep_once, &b));
		EXPECT_TRUE(all_started(&started, i + 2));
		ASSERT_EQ(0, th_ct_inc(self->vp[1], 6, 1));
		pthread_join(tb, NULL);
		ASSERT_EQ(0, b.ret);
	}
	ASSERT_EQ(0, th_ct_inc(self->vp[0], 5, 1));
	pthread_join(ta, NULL);
	EXPECT_EQ(0, a.ret);
	TH_LOG("sleeper on node 0: %ld voluntary switches", a.switches);
	EXPECT_LT(a.switches, R / 5);
}

TEST_HARNESS_MAIN
