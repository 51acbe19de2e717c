// SPDX-License-Identifier: GPL-2.0
/*
 * race_test.c - the module under concurrent callers: doorbells rung from
 * several threads on one SQ consume each chain once, a vport destroyed
 * while other threads use it fails their calls cleanly, and two processes
 * firing chains into each other's counters lose no increment.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "th_nic_util.h"

#define NODE_A	0
#define NODE_B	1

struct ringer {
	struct thn_vport *v;
	volatile bool stop;
	__u64 calls, refused;
	int bad;		/* an unexpected return value */
};

static void *ring_loop(void *arg)
{
	struct ringer *r = arg;
	struct th_nic_doorbell db;
	int ret;

	while (!r->stop) {
		ret = thn_doorbell(r->v, &db);
		r->calls++;
		if (ret == -EAGAIN)
			r->refused++;
		else if (ret)
			r->bad = ret;
	}
	return NULL;
}

/*
 * One producer fills the SQ without ringing; three threads ring at once.
 * The kernel serialises them: every chain is taken exactly once.
 */
TEST(concurrent_doorbells_take_each_chain_once)
{
	enum { CHAINS = 4000, THREADS = 3 };
	static __u8 seen[CHAINS];
	struct ringer r[THREADS];
	pthread_t th[THREADS];
	struct th_nic_cqe cqe[64];
	struct thn_vport v;
	__u32 posted = 0, done = 0, n, i, tail;
	__u64 deadline;
	int fd = thn_open(NODE_A);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, thn_vport_open(fd, 0, 0, &v));
	for (i = 0; i < THREADS; i++) {
		r[i] = (struct ringer){ .v = &v };
		ASSERT_EQ(0, pthread_create(&th[i], NULL, ring_loop, &r[i]));
	}
	deadline = thn_now_ns() + 60000000000ULL;
	while (done < CHAINS && thn_now_ns() < deadline) {
		tail = *v.sq_tail;
		/* room in the SQ, and CQ credits (2 a chain) for the rest */
		while (posted < CHAINS && tail - thn_sq_head(&v) < v.sq_mask &&
		       posted - done < 400) {
			struct th_nic_desc d = thn_notify(posted);

			thn_trigger(&d, 0, 0, posted);
			memcpy(&v.sq_slots[tail & v.sq_mask], &d, sizeof(d));
			__atomic_store_n(v.sq_tail, ++tail, __ATOMIC_RELEASE);
			posted++;
		}
		n = thn_cq_drain(&v, cqe, 64);
		for (i = 0; i < n; i++) {
			ASSERT_GT(CHAINS, cqe[i].cookie);
			ASSERT_EQ(0, seen[cqe[i].cookie]++)
				TH_LOG("cookie %llu twice",
				       (unsigned long long)cqe[i].cookie);
			ASSERT_EQ(0, cqe[i].status);
		}
		done += n;
		if (!n)
			sched_yield();
	}
	for (i = 0; i < THREADS; i++) {
		r[i].stop = true;
		pthread_join(th[i], NULL);
		EXPECT_EQ(0, r[i].bad);
	}
	EXPECT_EQ(CHAINS, done);
	for (i = 0; i < CHAINS; i++)
		ASSERT_EQ(1, seen[i]);
	close(fd);
}

struct user {
	struct thn_vport v;	/* a copy: same fd and index */
	volatile bool stop;
	int first_err;		/* what the calls got after the destroy */
	volatile __u64 calls;
};

static void *use_loop(void *arg)
{
	struct user *u = arg;
	struct th_nic_doorbell db;
	int ret;

	while (!u->stop) {
		ret = thn_ct_inc(&u->v, 1, 1);
		if (!ret)
			ret = thn_doorbell(&u->v, &db);
		if (!ret)
			ret = thn_ct_wait(&u->v, 1, 0, 0, NULL);
		if (!ret)
			ret = thn_cancel(&u->v, false, 0, NULL);
		u->calls++;
		if (ret && !u->first_err)
			u->first_err = ret;
	}
	return NULL;
}

/*
 * Threads hammer a vport (counter updates, doorbells, waits, cancels)
 * while it is destroyed: their calls fail with -EINVAL from then on, and
 * the index is reusable.
 */
TEST(destroy_while_in_use)
{
	enum { THREADS = 3 };
	struct user u[THREADS];
	pthread_t th[THREADS];
	struct thn_vport v, again;
	unsigned int i, round;
	int fd = thn_open(NODE_A);

	ASSERT_LE(0, fd);
	for (round = 0; round < 20; round++) {
		ASSERT_EQ(0, thn_vport_open(fd, 64, 64, &v));
		for (i = 0; i < 32; i++)
			ASSERT_EQ(0, thn_post_notify(&v, 1 + i % 4, 1000000, i));
		for (i = 0; i < THREADS; i++) {
			u[i] = (struct user){ .v = v };
			ASSERT_EQ(0, pthread_create(&th[i], NULL, use_loop,
						    &u[i]));
		}
		thn_sleep_us(5000);
		ASSERT_EQ(0, thn_vport_destroy_id(fd, v.id));
		/* each thread makes a few calls after the destroy */
		for (i = 0; i < THREADS; i++) {
			__u64 seen = u[i].calls, deadline;

			deadline = thn_now_ns() + THN_WAIT_MS * 1000000ULL;
			while (u[i].calls < seen + 3 && thn_now_ns() < deadline)
				thn_sleep_us(1000);
		}
		for (i = 0; i < THREADS; i++) {
			u[i].stop = true;
			pthread_join(th[i], NULL);
			EXPECT_TRUE(u[i].first_err == -EINVAL ||
				    u[i].first_err == -ECONNREFUSED)
				TH_LOG("round %u thread %u: %d after %llu calls",
				       round, i, u[i].first_err,
				       (unsigned long long)u[i].calls);
		}
		thn_vport_unmap(&v);
	}
	ASSERT_EQ(0, thn_vport_open(fd, 64, 64, &again));
	ASSERT_EQ(0, thn_post_notify(&again, 0, 0, 1));
	EXPECT_EQ(1, thn_cq_wait(&again, NULL, 1, THN_WAIT_MS));
	close(fd);
}

struct pingpong {
	__u32 vport[2];
	__u64 key[2];		/* remote keys */
	__u32 ready, go;
	__u64 got[2];
	int err[2];
};

/*
 * Process i posts ROUNDS chains on its own counter 0, each adding one to
 * the other process's counter 1 through a zero-length PUT, then
 * increments its own counter 0 from the host as fast as it can.  Both
 * sides run at once; in the end each counter 1 holds exactly ROUNDS.
 */
static int run_side(struct pingpong *sh, int me)
{
	enum { ROUNDS = 500 };
	struct th_nic_desc d;
	struct thn_vport v;
	__u8 *buf = thn_alloc(4096);
	struct thn_key key;
	__u32 i, other;
	int fd = thn_open(me ? NODE_B : NODE_A);

	if (fd < 0 || !buf || thn_vport_open(fd, 0, 0, &v) ||
	    thn_mr_reg(&v, buf, 4096, TH_NIC_ACCESS_ALL, &key))
		return 1;
	sh->vport[me] = v.id;
	sh->key[me] = key.r;
	__atomic_add_fetch(&sh->ready, 1, __ATOMIC_ACQ_REL);
	if (!thn_wait_word(&sh->ready, 2, THN_WAIT_MS))
		return 2;
	other = sh->vport[!me];
	for (i = 0; i < ROUNDS; i++) {
		d = thn_put_ct(key.l, 0, me ? NODE_A : NODE_B, other,
			       sh->key[!me], 0, 0, 1);
		thn_trigger(&d, 0, i + 1, i);
		if (thn_post(&v, &d, 1, NULL))
			return 3;
	}
	__atomic_add_fetch(&sh->go, 1, __ATOMIC_ACQ_REL);
	if (!thn_wait_word(&sh->go, 2, THN_WAIT_MS))
		return 4;
	for (i = 0; i < ROUNDS; i++)
		if (thn_ct_inc(&v, 0, 1))
			return 5;
	/* wait for the other side's ROUNDS deliveries */
	sh->err[me] = thn_ct_wait(&v, 1, ROUNDS, 20000000000ULL, NULL);
	sh->got[me] = thn_ct(&v, 1);
	/* stay until both have looked: our vport is the other's target */
	__atomic_add_fetch(&sh->go, 1, __ATOMIC_ACQ_REL);
	thn_wait_word(&sh->go, 4, THN_WAIT_MS);
	close(fd);
	return 0;
}

TEST(two_processes_cross_firing_lose_nothing)
{
	struct pingpong *sh = thn_shared(sizeof(*sh));
	int status, i;
	pid_t pid[2];

	ASSERT_NE(NULL, sh);
	for (i = 0; i < 2; i++) {
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (!pid[i])
			_exit(run_side(sh, i));
	}
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(pid[i], waitpid(pid[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
			TH_LOG("side %d: status 0x%x", i, status);
		EXPECT_EQ(0, sh->err[i]);
		EXPECT_EQ(500, sh->got[i]);
	}
}

TEST_HARNESS_MAIN
