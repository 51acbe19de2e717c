// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_lock.c - the engine's lock in userspace (th_compat.h, th_lock_user.c):
 * it excludes, more threads than CPUs at once; a thread that finds it held
 * long marks it and sleeps, and the holder's release wakes it; a free lock
 * and a released one read 0.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "th_compat.h"

/* the taker must mark and sleep within SETTLE_MS: a bound, not a timing */
enum { THREADS = 6, ROUNDS = 200000, SETTLE_MS = 5000, JOIN_S = 10 };

struct shared {
	th_lock_t lock;
	/* written under the lock only, not atomically: a lost update shows */
	unsigned long count;
	unsigned long inside;	/* threads between th_lock() and th_unlock() */
	unsigned long overlaps;
	bool taken;		/* the sleeper's mark that it got the lock */
	pid_t tid;		/* the sleeper's thread */
};

static u32 word(struct shared *s)
{
	return __atomic_load_n(&s->lock.word, __ATOMIC_ACQUIRE);
}

static void *hammer(void *arg)
{
	struct shared *s = arg;
	int i;

	for (i = 0; i < ROUNDS; i++) {
		th_lock(&s->lock);
		if (++s->inside != 1)
			s->overlaps++;
		s->count++;
		/* now and then a longer hold, so that takers sleep too */
		if (!(i & 1023))
			usleep(50);
		s->inside--;
		th_unlock(&s->lock);
	}
	return NULL;
}

static void *take_once(void *arg)
{
	struct shared *s = arg;

	__atomic_store_n(&s->tid, gettid(), __ATOMIC_RELEASE);
	th_lock(&s->lock);
	s->taken = true;
	th_unlock(&s->lock);
	return NULL;
}

static int join_bounded(pthread_t t)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += JOIN_S;
	return pthread_timedjoin_np(t, NULL, &until);
}

/* The state of thread @tid of this process, from /proc: 'R', 'S', ... */
static char task_state(pid_t tid)
{
	char path[64], buf[256], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return '?';
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');	/* the name may hold spaces */
	return p && p[1] == ' ' ? p[2] : '?';
}

TEST(a_free_lock_reads_0_and_a_held_one_1)
{
	struct shared s;

	memset(&s, 0xa5, sizeof(s));
	th_lock_init(&s.lock);
	EXPECT_EQ(0, word(&s));
	th_lock(&s.lock);
	EXPECT_EQ(1, word(&s));
	th_unlock(&s.lock);
	EXPECT_EQ(0, word(&s));
	th_lock_destroy(&s.lock);
}

TEST(it_excludes_more_threads_than_cpus)
{
	struct shared s = { .count = 0 };
	pthread_t t[THREADS];
	int i, made = 0;

	th_lock_init(&s.lock);
	for (i = 0; i < THREADS; i++) {
		if (pthread_create(&t[i], NULL, hammer, &s))
			break;
		made++;
	}
	for (i = 0; i < made; i++)
		ASSERT_EQ(0, join_bounded(t[i]))
			TH_LOG("a thread still waits for the lock after %d s", JOIN_S);
	ASSERT_EQ(THREADS, made);
	EXPECT_EQ((unsigned long)THREADS * ROUNDS, s.count);
	EXPECT_EQ(0, s.overlaps);
	EXPECT_EQ(0, word(&s));
}

/*
 * A lock held until its taker has given up spinning: the taker marks the
 * word 2 and sleeps in the kernel (its state 'S'), which the test waits
 * for, at most SETTLE_MS (a taker that spins forever, or sleeps unmarked,
 * never gets there); the release finds the mark and wakes it, and it gets
 * the lock.
 */
TEST(a_long_hold_puts_the_taker_to_sleep_and_the_release_wakes_it)
{
	struct shared s = { .taken = false, .tid = 0 };
	pid_t tid = 0;
	pthread_t t;
	int ms;

	th_lock_init(&s.lock);
	th_lock(&s.lock);
	ASSERT_EQ(0, pthread_create(&t, NULL, take_once, &s));
	for (ms = 0; ms < SETTLE_MS; ms++) {
		tid = __atomic_load_n(&s.tid, __ATOMIC_ACQUIRE);
		if (tid && word(&s) == 2 && task_state(tid) == 'S')
			break;
		usleep(1000);
	}
	EXPECT_EQ(2, word(&s))
		TH_LOG("after %d ms the taker has not marked the lock", SETTLE_MS);
	EXPECT_EQ('S', task_state(tid))
		TH_LOG("after %d ms the taker is not asleep", SETTLE_MS);
	EXPECT_FALSE(s.taken);
	th_unlock(&s.lock);
	ASSERT_EQ(0, join_bounded(t))
		TH_LOG("the release did not wake the sleeping taker in %d s", JOIN_S);
	EXPECT_TRUE(s.taken);
	/* it took the lock as 2 (others might sleep); its release cleared it */
	EXPECT_EQ(0, word(&s));
}

TEST_HARNESS_MAIN
