// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_order.c - the order of one counter's chains under concurrency on
 * the in-process provider (issue 35; the kselftest twin is trigger_test's
 * trig.order_holds_under_concurrent_increments on th_nic.ko): chains
 * waiting on one counter complete in threshold order while increments
 * come from many threads at once, from the host and from chains, and
 * the same with re-arming chains; and what a chain held back by fault
 * injection (parked) does to the next chain of its counter.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "th_test.h"

/*
 * Per repetition, on fresh counters C and D: CHAINS NOTIFY chains wait on
 * C at STEP, 2 STEP, ...; FEED chains wait on D at 1, 2, ..., each a COPY
 * of COPY_LEN bytes then a CT_INC of C.  HOSTS threads increment C by 1
 * while FEEDERS increment D by BATCH: C then also rises in chains run by
 * the feeders' calls, where the NOTIFY chain a feed chain fires waits in
 * the feeder's context behind the rest of the batch's copies, the window
 * in which a host thread fires and completes the next NOTIFY chains.
 * More threads than this machine's 2 CPUs.
 */
enum { HOSTS = 6, FEEDERS = 2, PER = 560, FEED = 640, BATCH = 8,
       COPY_LEN = 64 << 10, CHAINS = 100, REPS = 100, WAIT_MS = 5000 };
#define TOTAL	(HOSTS * PER + FEED)	/* CHAINS * STEP: no extra round */
#define STEP	(TOTAL / CHAINS)

/* C reaches TOTAL: the last feed chains may still run after the threads */
static u64 settle(struct th_ipf_vport *vp, u32 c)
{
	u64 success = 0, failure = 0;

	th_t_ct_wait(vp, c, TOTAL, (u64)WAIT_MS * 1000000, &success, &failure);
	return success;
}

FIXTURE(order) {
	struct th_ipf *fab;
	struct th_ipf_vport *vp;
	void *buf;
	u32 key;
};

FIXTURE_SETUP(order)
{
	struct th_eng_limits lim = th_t_limits(1);
	int err = 0;

	lim.max_user_chains = 1 << 20;
	self->fab = th_ipf_create(&lim, NULL, &err);
	ASSERT_NE(NULL, self->fab);
	self->vp = th_t_vport(self->fab, 0, 1024, 1024, &err);
	ASSERT_NE(NULL, self->vp);
	self->buf = calloc(1, 2 * COPY_LEN);
	ASSERT_NE(NULL, self->buf);
	ASSERT_EQ(0, th_t_mr_reg(self->vp, self->buf, 2 * COPY_LEN,
				 TH_NIC_ACCESS_ALL, &self->key, NULL));
}

FIXTURE_TEARDOWN(order)
{
	th_ipf_destroy(self->fab);
	free(self->buf);
}

struct incer {
	struct th_ipf_vport *vp;
	u32 ct;
	unsigned int n;
	u64 by;
	int errors;
};

static void *inc_thread(void *arg)
{
	struct incer *t = arg;
	unsigned int i;

	for (i = 0; i < t->n; i++)
		if (th_t_ct_update(t->vp, t->ct, TH_ENG_CT_INC, t->by, 0))
			t->errors++;
	return NULL;
}

static u64 now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Exactly @want CQ entries within WAIT_MS (fewer on timeout).  Between
 * looks the host polls a counter, as a waiting host does (th_ct_wait()
 * does so first): a host action.  Without it, feed chains that the
 * progress thread runs after the threads ended can raise C for more than
 * the re-arm allowance of rounds with no host action, and the rest of
 * the re-arming chain's rounds then wait parked for one (N's NIC-time
 * rule), past this bound: 179 of 200 entries once, on a loaded machine.
 */
static u32 cq_wait(struct th_ipf_vport *vp, struct th_nic_cqe *out, u32 want)
{
	u64 end = now_ms() + WAIT_MS, success, failure;
	u32 got = 0;

	while (got < want && now_ms() < end) {
		got += th_t_cq_drain(vp, out + got, want - got);
		if (got < want) {
			th_t_ct_wait(vp, 0, 0, 0, &success, &failure);
			usleep(1000);
		}
	}
	return got;
}

/* Start HOSTS threads on @c and FEEDERS on @d, and join them. */
static void hammer(struct __test_metadata *_metadata, struct th_ipf_vport *vp,
		   u32 c, u32 d)
{
	struct incer t[HOSTS + FEEDERS];
	pthread_t th[HOSTS + FEEDERS];
	unsigned int i;

	for (i = 0; i < HOSTS + FEEDERS; i++) {
		t[i] = (struct incer){ vp, i < HOSTS ? c : d,
				       i < HOSTS ? PER : FEED / FEEDERS / BATCH,
				       i < HOSTS ? 1 : BATCH, 0 };
		ASSERT_EQ(0, pthread_create(&th[i], NULL, inc_thread, &t[i]));
	}
	for (i = 0; i < HOSTS + FEEDERS; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(0, t[i].errors);
	}
}

/* FEED chains on @d at 1, 2, ...: each copies COPY_LEN, adds 1 to @c. */
static int post_feed(struct th_ipf_vport *vp, u32 key, u32 c, u32 d)
{
	struct th_nic_desc feed[2 * 64];
	unsigned int i, j;
	int ret = 0;

	for (i = 0; i < FEED && !ret; i += 64) {
		for (j = 0; j < 64; j++) {
			feed[2 * j] = thn_copy(key, 0, key, COPY_LEN, COPY_LEN);
			feed[2 * j].flags |= TH_NIC_DF_LINK;
			thn_trigger(&feed[2 * j], d, i + j + 1, 1000000 + i + j);
			feed[2 * j + 1] = thn_ct_op(TH_NIC_OP_CT_INC, c, 1);
		}
		ret = th_t_post(vp, feed, 2 * 64, NULL);
	}
	return ret;
}

static unsigned int misordered(struct __test_metadata *_metadata,
			       const struct th_nic_cqe *cqe, u32 got,
			       unsigned int rep)
{
	unsigned int i, bad = 0;

	for (i = 0; i < got; i++) {
		EXPECT_EQ(0, cqe[i].status);
		if (cqe[i].cookie != i && bad++ < 4)
			TH_LOG("rep %u: entry %u is cookie %llu", rep, i,
			       (unsigned long long)cqe[i].cookie);
	}
	return bad;
}

/* a few seconds here; 300 s for a loaded machine (the default is 30 s) */
TEST_F_TIMEOUT(order, one_counters_chains_complete_in_threshold_order, 300)
{
	struct th_nic_cqe cqe[CHAINS];
	unsigned int rep, i, failed = 0;
	u32 c, d, got;

	for (rep = 0; rep < REPS; rep++) {
		c = 2 * (rep % 100);
		d = c + 1;
		ASSERT_EQ(0, th_t_ct_update(self->vp, c, TH_ENG_CT_SET, 0, 0));
		ASSERT_EQ(0, th_t_ct_update(self->vp, d, TH_ENG_CT_SET, 0, 0));
		for (i = 0; i < CHAINS; i++) {
			struct th_nic_desc n = thn_notify(i);

			thn_trigger(&n, c, (i + 1) * STEP, i);
			ASSERT_EQ(0, th_t_post(self->vp, &n, 1, NULL));
		}
		ASSERT_EQ(0, post_feed(self->vp, self->key, c, d));
		hammer(_metadata, self->vp, c, d);
		got = cq_wait(self->vp, cqe, CHAINS);
		ASSERT_EQ(CHAINS, got) TH_LOG("rep %u", rep);
		EXPECT_EQ(TOTAL, settle(self->vp, c));
		if (misordered(_metadata, cqe, got, rep))
			failed++;
	}
	printf("# order: %u of %u repetitions out of threshold order\n",
	       failed, REPS);
	fflush(stdout);
	EXPECT_EQ(0, failed);
}

/*
 * A re-arming NOTIFY chain (cookie 7, stride STEP, posted first) and
 * single NOTIFY chains 100 + i at (i + 1) STEP on one counter, while the
 * threads increment.  What the ABI promises: the single chains complete
 * in threshold order; round 0 of 7 before chain 100 (same threshold,
 * posted first); round k > 0 after chain 100 + k (same threshold, and a
 * round is armed "as if posted again now", after it).  A round re-armed
 * when the counter is already past later thresholds fires at once, after
 * the chains those crossings fired: that is its documented place.
 */
static bool rearm_order_ok(struct __test_metadata *_metadata,
			   const struct th_nic_cqe *cqe, u32 got,
			   unsigned int rep)
{
	unsigned int i, rounds = 0, singles = 0;

	for (i = 0; i < got; i++) {
		u64 ck = cqe[i].cookie;

		if (ck == 7) {
			/* round k > 0 waits for single 100 + k */
			if (rounds > 0 && singles < rounds + 1)
				goto bad;
			if (rounds == 0 && singles)
				goto bad;
			rounds++;
		} else if (ck == 100 + singles) {
			singles++;
		} else {
			goto bad;
		}
	}
	return rounds == CHAINS && singles == CHAINS;
bad:
	TH_LOG("rep %u: entry %u is cookie %llu (after %u rounds, %u singles)",
	       rep, i, (unsigned long long)cqe[i].cookie, rounds, singles);
	return false;
}

TEST_F_TIMEOUT(order, rearm_rounds_keep_threshold_order, 300)
{
	struct th_nic_cqe cqe[2 * CHAINS];
	unsigned int rep, i, failed = 0;
	u32 c, d, got, n;

	for (rep = 0; rep < REPS / 4; rep++) {
		struct th_nic_desc r[2] = { thn_notify(0), thn_rearm(STEP) };

		c = 2 * (rep % 100);
		d = c + 1;
		ASSERT_EQ(0, th_t_ct_update(self->vp, c, TH_ENG_CT_SET, 0, 0));
		ASSERT_EQ(0, th_t_ct_update(self->vp, d, TH_ENG_CT_SET, 0, 0));
		r[0].flags |= TH_NIC_DF_LINK;
		thn_trigger(&r[0], c, STEP, 7);
		ASSERT_EQ(0, th_t_post(self->vp, r, 2, NULL));
		for (i = 0; i < CHAINS; i++) {
			struct th_nic_desc s = thn_notify(i);

			thn_trigger(&s, c, (i + 1) * STEP, 100 + i);
			ASSERT_EQ(0, th_t_post(self->vp, &s, 1, NULL));
		}
		ASSERT_EQ(0, post_feed(self->vp, self->key, c, d));
		hammer(_metadata, self->vp, c, d);
		got = cq_wait(self->vp, cqe, 2 * CHAINS);
		ASSERT_EQ(2 * CHAINS, got) TH_LOG("rep %u", rep);
		EXPECT_EQ(TOTAL, settle(self->vp, c));
		if (!rearm_order_ok(_metadata, cqe, got, rep))
			failed++;
		/* the re-arming chain waits for its next round: cancel it */
		ASSERT_EQ(0, th_t_cancel(self->vp, false, 0, &n));
		EXPECT_EQ(1, n);
		ASSERT_EQ(1, cq_wait(self->vp, cqe, 1));
		EXPECT_EQ(7, cqe[0].cookie);
		EXPECT_EQ(-ECANCELED, cqe[0].status);
	}
	printf("# order: %u of %u re-arm repetitions out of order\n", failed,
	       REPS / 4);
	fflush(stdout);	/* the harness's child ends in _exit() */
	EXPECT_EQ(0, failed);
}

/*
 * Fault parking: a chain whose PUT fault injection loses (parked with
 * the provider between retries, 1.6 s in all) gives its
 * counter's turn up, as a delivery to a remote node does: the NOTIFY
 * chain fired after it by the same increment runs in that same call, so
 * its entry is in the CQ when the call returns, while the PUT is still
 * parked (head-of-line blocking behind a lossy delivery is not what a
 * network does); the PUT's entry follows.  What the ABI says (uapi.rst
 * "Trigger semantics"), checked 3 times.
 */
FIXTURE(park) {
	struct th_ipf *fab;
	struct th_ipf_vport *vp[2];
	u64 buf[2][8];
	u32 key[2];
	u64 rkey[2];
};

FIXTURE_SETUP(park)
{
	struct th_eng_limits lim = th_t_limits(2);
	struct th_eng_fault f = { .drop_ppm = 1000000, .retries = 16,
				  .retry_ns = 100000000,
				  .vport = TH_ENG_FAULT_ANY, .seed = 1 };
	int err = 0, i;

	self->fab = th_ipf_create(&lim, NULL, &err);
	ASSERT_NE(NULL, self->fab);
	for (i = 0; i < 2; i++) {
		self->vp[i] = th_t_vport(self->fab, i, 0, 0, &err);
		ASSERT_NE(NULL, self->vp[i]);
		ASSERT_EQ(0, th_t_mr_reg(self->vp[i], self->buf[i],
					 sizeof(self->buf[i]), TH_NIC_ACCESS_ALL,
					 &self->key[i], &self->rkey[i]));
	}
	/*
	 * everything node 0 sends is lost, sent again every 100 ms, 16
	 * times: a PUT is parked for 1.6 s, then fails (-ETIMEDOUT)
	 */
	ASSERT_EQ(0, th_eng_fault_set(th_ipf_engine(self->fab), 0, &f));
}

FIXTURE_TEARDOWN(park)
{
	th_ipf_destroy(self->fab);
}

TEST_F_TIMEOUT(park, a_parked_delivery_lets_the_next_chain_start, 60)
{
	struct th_nic_cqe cqe[2];
	unsigned int rep;

	for (rep = 0; rep < 3; rep++) {
		struct th_nic_desc put = thn_put(self->key[0], 0, 1,
						 self->vp[1]->ev.index,
						 self->rkey[1], 0, 8);
		struct th_nic_desc n = thn_notify(0);
		u32 c = 10 + rep;

		put.flags |= TH_NIC_DF_SIGNAL;
		thn_trigger(&put, c, 1, 1);
		thn_trigger(&n, c, 2, 2);
		ASSERT_EQ(0, th_t_post(self->vp[0], &put, 1, NULL));
		ASSERT_EQ(0, th_t_post(self->vp[0], &n, 1, NULL));
		/* one update fires both, the PUT's chain first; it parks */
		ASSERT_EQ(0, th_t_ct_update(self->vp[0], c, TH_ENG_CT_INC, 2, 0));
		ASSERT_EQ(1, th_t_cq_drain(self->vp[0], cqe, 2))
			TH_LOG("rep %u: the NOTIFY waited for the parked PUT", rep);
		EXPECT_EQ(2, cqe[0].cookie);
		EXPECT_EQ(0, cqe[0].status);
		ASSERT_EQ(1, cq_wait(self->vp[0], cqe, 1)) TH_LOG("rep %u", rep);
		EXPECT_EQ(1, cqe[0].cookie);
		EXPECT_EQ(-ETIMEDOUT, cqe[0].status);
	}
}

TEST_HARNESS_MAIN
