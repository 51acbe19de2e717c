// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_wait_count.c - which threads auto counts as waiting (verbs/wait.c):
 * those that entered a wait within the last millisecond.  A thread that
 * waited once and went idle (the main thread that set up, then joins its
 * rank threads) must not keep two rank threads on two CPUs from watching;
 * threads that all wait now must still crowd the CPUs.  Asked through
 * th_wait_spin_for(), the spin that th_boot's rendezvous and th_ct_wait()
 * share: true when auto let the thread watch, false when it sleeps at once.
 */
#include <pthread.h>
#include <semaphore.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include <thverbs/verbs.h>
#include "thverbs_priv.h"

#define LOOKS	2000	/* waits a thread makes in a row, at least */

/* What a waiter waits for is there at the first look. */
static bool seen(void *arg)
{
	(void)arg;
	return true;
}

/* One wait under the policy: did auto let this thread watch? */
static bool watches(void)
{
	return th_wait_spin_for(seen, NULL, 1000000000ULL);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

struct team {
	pthread_barrier_t start;
	unsigned int n;
	unsigned int arrived;	/* threads past their first wait */
};

struct waiter {
	struct team *team;
	int waits;
	int watched;
};

/*
 * Wait in a row: at least LOOKS times and 20 ms, and on until every
 * thread of the team has waited, so that all of them overlap whichever
 * one the scheduler starts last.
 */
static void *wait_in_a_row(void *arg)
{
	struct waiter *w = arg;
	struct team *t = w->team;
	uint64_t t0;

	pthread_barrier_wait(&t->start);
	t0 = now_ns();
	do {
		w->watched += watches();
		if (++w->waits == 1)
			__atomic_add_fetch(&t->arrived, 1, __ATOMIC_RELEASE);
	} while (w->waits < LOOKS || now_ns() - t0 < 20000000ULL ||
		 __atomic_load_n(&t->arrived, __ATOMIC_ACQUIRE) < t->n);
	return NULL;
}

/* @n threads wait in a row, together. */
static void waiters(struct __test_metadata *_metadata, unsigned int n,
		    struct waiter *w)
{
	struct team team = { .n = n };
	pthread_t t[4];
	unsigned int i;

	ASSERT_LE(n, 4);
	ASSERT_EQ(0, pthread_barrier_init(&team.start, NULL, n));
	for (i = 0; i < n; i++) {
		w[i] = (struct waiter){ .team = &team };
		ASSERT_EQ(0, pthread_create(&t[i], NULL, wait_in_a_row, &w[i]));
	}
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&team.start);
}

FIXTURE(count) {
	enum th_wait_policy saved;
	uint64_t saved_us;
};

/* Auto, and two CPUs for this process whatever the machine has. */
FIXTURE_SETUP(count)
{
	cpu_set_t cpus;

	/* and two waiters must not be too many spinners for the process */
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(cpus), &cpus));
	if (CPU_COUNT(&cpus) < 2)
		SKIP(return, "needs 2 CPUs, has %d", CPU_COUNT(&cpus));
	self->saved = th_wait_policy_get(&self->saved_us);
	ASSERT_EQ(0, th_wait_policy_set(TH_WAIT_AUTO, 1000));
	th_wait_host_share(1, 2);
}

FIXTURE_TEARDOWN(count)
{
	th_wait_host_share(0, 0);
	th_wait_policy_set(self->saved, self->saved_us);
}

/*
 * The main thread waits, then idles while two threads wait: once it has
 * been idle for the millisecond, two waiters fit two CPUs and watch.  It
 * used to count until it exited, and each of the two slept at once.
 */
TEST_F(count, a_thread_that_went_idle_leaves_the_cpus_to_the_waiters)
{
	struct waiter w[2];

	ASSERT_TRUE(watches());		/* alone: it watches, and counts */
	usleep(20000);
	waiters(_metadata, 2, w);
	TH_LOG("watched %d of %d and %d of %d waits", w[0].watched,
	       w[0].waits, w[1].watched, w[1].waits);
	/*
	 * the first waits of the two may race: one counted, the main
	 * thread not yet forgotten by the other's sweep
	 */
	EXPECT_GE(w[0].watched + w[1].watched, w[0].waits + w[1].waits - 2);
}

/* A thread that makes one wait each time it is let go (a relay). */
struct relay {
	sem_t go, done;
	bool watched;
	uint64_t at;		/* when its wait began */
	bool stop;
};

static void *relay_wait(void *arg)
{
	struct relay *r = arg;

	for (;;) {
		sem_wait(&r->go);
		if (r->stop)
			return NULL;
		r->at = now_ns();
		r->watched = watches();
		sem_post(&r->done);
	}
}

/*
 * Three threads that wait one after the other within a millisecond, on
 * two CPUs: the third is one waiter too many and sleeps at once.  A count
 * that forgot threads which wait now, or never counted them, would let
 * it watch.  The three waits are a relay (the main thread, then two
 * threads let go in turn), and only an attempt whose three waits began
 * within 0.5 ms counts (a loaded machine may hold one back longer):
 * every such attempt must refuse the third.
 */
TEST_F(count, a_third_thread_that_waits_with_two_others_sleeps_at_once)
{
	struct relay r[2];
	pthread_t t[2];
	int attempt, quick = 0, refused = 0;
	uint64_t t0;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		r[i] = (struct relay){ .stop = false };
		ASSERT_EQ(0, sem_init(&r[i].go, 0, 0));
		ASSERT_EQ(0, sem_init(&r[i].done, 0, 0));
		ASSERT_EQ(0, pthread_create(&t[i], NULL, relay_wait, &r[i]));
	}
	for (attempt = 0; attempt < 200 && quick < 10; attempt++) {
		usleep(3000);	/* everybody idle: the count starts afresh */
		t0 = now_ns();
		watches();
		for (i = 0; i < 2; i++) {
			sem_post(&r[i].go);
			sem_wait(&r[i].done);
		}
		if (r[1].at - t0 > 500000)
			continue;
		quick++;
		refused += !r[1].watched;
	}
	for (i = 0; i < 2; i++) {
		r[i].stop = true;
		sem_post(&r[i].go);
		pthread_join(t[i], NULL);
		sem_destroy(&r[i].go);
		sem_destroy(&r[i].done);
	}
	TH_LOG("%d attempts within 0.5 ms of %d, the third refused in %d",
	       quick, attempt, refused);
	if (!quick)
		SKIP(return, "no attempt of 200 had its three waits within 0.5 ms");
	EXPECT_EQ(quick, refused);
}

TEST_HARNESS_MAIN
