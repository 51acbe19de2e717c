// SPDX-License-Identifier: GPL-2.0
/*
 * teardown_test.c - what pending work becomes when its owner goes away:
 * close, VPORT_DESTROY, the last munmap and SIGKILL mid-chain each fail the
 * peers' waiting chains cleanly (-EIO / -ECONNREFUSED), nothing hangs, the
 * node stays usable, and the module cannot be unloaded while in use.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "th_nic_util.h"

#define NODE_A	11
#define NODE_B	13

/* How the owner of the pending PUT goes away. */
enum gone { GONE_CLOSE, GONE_DESTROY, GONE_LAST_MUNMAP };

FIXTURE(td) {
	int fdb;
	struct thn_vport b;	/* the peer that waits */
	__u8 *bbuf;
	struct thn_key bkey;
};

FIXTURE_VARIANT(td) {
	enum gone how;
};

FIXTURE_VARIANT_ADD(td, close) { GONE_CLOSE };
FIXTURE_VARIANT_ADD(td, vport_destroy) { GONE_DESTROY };
FIXTURE_VARIANT_ADD(td, close_then_last_munmap) { GONE_LAST_MUNMAP };

/* The peer B: a vport on NODE_B with a 4 KiB region of 0x77. */
#define PEER_SETUP(self) do {						\
	(self)->fdb = thn_open(NODE_B);					\
	ASSERT_LE(0, (self)->fdb);					\
	ASSERT_EQ(0, thn_vport_open((self)->fdb, 0, 0, &(self)->b));	\
	(self)->bbuf = thn_alloc(4096);					\
	ASSERT_NE(NULL, (self)->bbuf);					\
	memset((self)->bbuf, 0x77, 4096);					\
	ASSERT_EQ(0, thn_mr_reg(&(self)->b, (self)->bbuf, 4096,		\
				TH_NIC_ACCESS_ALL, &(self)->bkey));	\
} while (0)

FIXTURE_SETUP(td)
{
	PEER_SETUP(self);
}

FIXTURE_TEARDOWN(td)
{
	close(self->fdb);
}

/*
 * A posts a PUT that would increment B's counter 2; B waits on it.  A goes
 * away before the PUT fires: B's chain fails with -EIO, its counter's
 * failure value rises, CT_WAIT on it returns -EIO, and B's memory is
 * untouched.
 */
TEST_F(td, peer_of_a_vanished_owner_fails_cleanly)
{
	struct th_nic_ct_wait w;
	struct th_nic_cqe cqe;
	struct th_nic_desc d;
	struct thn_vport a;
	__u8 *abuf = thn_alloc(4096);
	struct thn_key akey;
	__u32 i;
	int fda = thn_open(NODE_A);

	ASSERT_LE(0, fda);
	ASSERT_NE(NULL, abuf);
	ASSERT_EQ(0, thn_vport_open(fda, 0, 0, &a));
	ASSERT_EQ(0, thn_mr_reg(&a, abuf, 4096, 0, &akey));
	ASSERT_EQ(0, thn_post_notify(&self->b, 2, 1, 0xb));
	/* several pending chains on A, one of them the PUT */
	for (i = 0; i < 10; i++)
		ASSERT_EQ(0, thn_post_notify(&a, i, 1, i));
	d = thn_put_ct(akey.l, 0, NODE_B, self->b.id, self->bkey.r, 0, 64, 2);
	thn_trigger(&d, 0, 1, 0xa);
	ASSERT_EQ(0, thn_post(&a, &d, 1, NULL));
	EXPECT_EQ(0, thn_cq_pending(&self->b));

	switch (variant->how) {
	case GONE_CLOSE:
		thn_vport_unmap(&a);
		ASSERT_EQ(0, close(fda));
		break;
	case GONE_DESTROY:
		ASSERT_EQ(0, thn_vport_close(&a));
		break;
	case GONE_LAST_MUNMAP:
		/* the mappings keep the file: the release comes with munmap */
		ASSERT_EQ(0, close(fda));
		thn_vport_unmap(&a);
		break;
	}
	ASSERT_EQ(1, thn_cq_wait(&self->b, &cqe, 1, THN_WAIT_MS));
	EXPECT_EQ(0xb, cqe.cookie);
	EXPECT_EQ(-EIO, cqe.status);
	EXPECT_EQ(TH_NIC_CQE_F_FINAL, cqe.flags);
	EXPECT_EQ(1, thn_ct_fail(&self->b, 2));
	EXPECT_EQ(0, thn_ct(&self->b, 2));
	EXPECT_EQ(-EIO, thn_ct_wait(&self->b, 2, 1, 1000000000ULL, &w));
	for (i = 0; i < 64; i++)
		ASSERT_EQ(0x77, self->bbuf[i]);
	/* a PUT to the vanished vport: -ECONNREFUSED, not a hang */
	d = thn_put(self->bkey.l, 0, NODE_A, a.id, akey.r, 0, 8);
	d.flags |= TH_NIC_DF_SIGNAL;
	ASSERT_EQ(0, thn_post(&self->b, &d, 1, NULL));
	ASSERT_EQ(1, thn_cq_wait(&self->b, &cqe, 1, THN_WAIT_MS));
	EXPECT_EQ(-ECONNREFUSED, cqe.status);
	/* the node is usable: a new owner gets a vport */
	fda = thn_open(NODE_A);
	ASSERT_LE(0, fda);
	ASSERT_EQ(0, thn_vport_open(fda, 0, 0, &a));
	EXPECT_EQ(0, thn_ct(&a, 0));
	close(fda);
}

/* The same peer, for the tests where the owner is killed. */
FIXTURE(kl) {
	int fdb;
	struct thn_vport b;
	__u8 *bbuf;
	struct thn_key bkey;
};

FIXTURE_SETUP(kl)
{
	PEER_SETUP(self);
}

FIXTURE_TEARDOWN(kl)
{
	close(self->fdb);
}

struct killed {
	__u32 vport, ready, posted;
	__u64 key;		/* the victim's remote key */
};

/*
 * The child owns a vport on NODE_A with a PUT to us pending, plus a
 * stream of chains it keeps posting and firing until it is killed.
 */
static void run_victim(struct killed *sh, __u32 b_vport, __u64 bkey)
{
	struct th_nic_desc d[2];
	struct thn_vport a;
	__u8 *buf = thn_alloc(65536);
	struct thn_key key;
	__u32 n = 0;
	int fd = thn_open(NODE_A);

	if (fd < 0 || !buf || thn_vport_open(fd, 0, 0, &a) ||
	    thn_mr_reg(&a, buf, 65536, TH_NIC_ACCESS_ALL, &key))
		_exit(1);
	sh->vport = a.id;
	sh->key = key.r;
	d[0] = thn_put_ct(key.l, 0, NODE_B, b_vport, bkey, 0, 64, 5);
	thn_trigger(&d[0], 0, 1, 1);
	if (thn_post(&a, d, 1, NULL))
		_exit(2);
	__atomic_store_n(&sh->ready, 1, __ATOMIC_RELEASE);
	/* busy until killed: chains that copy, count and cascade */
	for (;;) {
		d[0] = thn_copy(key.l, 0, key.l, 32768, 32768);
		d[1] = thn_ct_op(TH_NIC_OP_CT_INC, 7, 1);
		thn_link(d, 2);
		thn_trigger(&d[0], 6, n, 100 + n);
		if (!thn_post(&a, d, 2, NULL))
			n++;
		else
			thn_sq_rewind(&a);
		thn_ct_inc(&a, 6, 1);
		thn_cq_drain(&a, NULL, 64);
		__atomic_store_n(&sh->posted, n, __ATOMIC_RELEASE);
	}
}

TEST_F(kl, process_killed_mid_chain)
{
	struct killed *sh = thn_shared(sizeof(*sh));
	struct th_nic_cqe cqe;
	struct th_nic_desc d;
	struct thn_vport a;
	int status;
	pid_t pid;

	ASSERT_NE(NULL, sh);
	ASSERT_EQ(0, thn_post_notify(&self->b, 5, 1, 0x5));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		run_victim(sh, self->b.id, self->bkey.r);
	ASSERT_TRUE(thn_wait_word(&sh->ready, 1, THN_WAIT_MS)) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	/* let it run a while, then kill it in the middle of its loop */
	thn_wait_word(&sh->posted, 50, 2000);
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSIGNALED(status));
	TH_LOG("victim posted %u chains before SIGKILL", sh->posted);

	ASSERT_EQ(1, thn_cq_wait(&self->b, &cqe, 1, THN_WAIT_MS));
	EXPECT_EQ(0x5, cqe.cookie);
	EXPECT_EQ(-EIO, cqe.status);
	EXPECT_EQ(1, thn_ct_fail(&self->b, 5));
	/* its vport is gone: GET and PUT to it are refused, not hung */
	d = thn_get(self->bkey.l, 0, NODE_A, sh->vport, sh->key, 0, 8);
	d.flags |= TH_NIC_DF_SIGNAL;
	ASSERT_EQ(0, thn_post(&self->b, &d, 1, NULL));
	ASSERT_EQ(1, thn_cq_wait(&self->b, &cqe, 1, THN_WAIT_MS));
	EXPECT_EQ(-ECONNREFUSED, cqe.status);
	d = thn_put(self->bkey.l, 0, NODE_A, sh->vport, sh->key, 0, 8);
	d.flags |= TH_NIC_DF_SIGNAL;
	ASSERT_EQ(0, thn_post(&self->b, &d, 1, NULL));
	ASSERT_EQ(1, thn_cq_wait(&self->b, &cqe, 1, THN_WAIT_MS));
	EXPECT_EQ(-ECONNREFUSED, cqe.status);
	EXPECT_EQ(0x77, self->bbuf[0]);
	/* and the node is usable again */
	{
		int fd = thn_open(NODE_A);

		ASSERT_LE(0, fd);
		ASSERT_EQ(0, thn_vport_open(fd, 0, 0, &a));
		ASSERT_EQ(0, thn_post_notify(&a, 0, 0, 1));
		ASSERT_EQ(1, thn_cq_wait(&a, NULL, 1, THN_WAIT_MS));
		close(fd);
	}
}

/*
 * Our PUTs stream into a vport whose owner is killed meanwhile: each
 * chain completes, with 0 before and -ECONNREFUSED or -EACCES after.
 */
TEST_F(kl, traffic_into_a_dying_vport_completes)
{
	struct killed *sh = thn_shared(sizeof(*sh));
	struct th_nic_cqe cqe[64];
	struct th_nic_desc d;
	__u32 posted = 0, done = 0, ok = 0, refused = 0, i, n;
	__u64 deadline;
	int status, ret;
	pid_t pid;

	ASSERT_NE(NULL, sh);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		run_victim(sh, self->b.id, self->bkey.r);
	ASSERT_TRUE(thn_wait_word(&sh->ready, 1, THN_WAIT_MS)) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	deadline = thn_now_ns() + 4000000000ULL;
	while (posted < 3000 && thn_now_ns() < deadline) {
		if (posted == 200)
			kill(pid, SIGKILL);
		d = thn_put(self->bkey.l, 0, NODE_A, sh->vport, sh->key,
			    (posted % 64) * 512, 512);
		d.flags |= TH_NIC_DF_SIGNAL;
		thn_trigger(&d, 0, 0, posted);
		ret = thn_post(&self->b, &d, 1, NULL);
		if (ret == -EAGAIN)
			thn_sq_rewind(&self->b);
		else if (!ret)
			posted++;
		else
			ASSERT_EQ(0, ret);
		n = thn_cq_drain(&self->b, cqe, 64);
		for (i = 0; i < n; i++, done++) {
			if (!cqe[i].status)
				ok++;
			else if (cqe[i].status == -ECONNREFUSED ||
				 cqe[i].status == -EACCES)
				refused++;
			else
				EXPECT_EQ(0, cqe[i].status);
		}
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	done += thn_cq_wait(&self->b, cqe, posted - done > 64 ? 64 :
			    posted - done, THN_WAIT_MS);
	while (done < posted) {
		n = thn_cq_wait(&self->b, cqe, 64, 1000);
		if (!n)
			break;
		done += n;
	}
	EXPECT_EQ(posted, done);
	EXPECT_LT(0, ok);
	EXPECT_LT(0, refused);
	TH_LOG("%u puts: %u delivered before the kill, %u refused after",
	       posted, ok, refused);
}

struct waiter {
	struct thn_vport *v;
	int ret;
};

static void *wait_forever(void *arg)
{
	struct waiter *w = arg;

	w->ret = thn_ct_wait(w->v, 3, 1, 20000000000ULL, NULL);
	return NULL;
}

/* CT_WAIT sleeping on a vport that gets destroyed returns -ECONNREFUSED. */
TEST(ct_wait_ends_when_its_vport_is_destroyed)
{
	struct waiter w;
	struct thn_vport v;
	pthread_t th;
	__u64 t0;
	int fd = thn_open(NODE_A);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, thn_vport_open(fd, 16, 16, &v));
	w.v = &v;
	w.ret = 1;
	ASSERT_EQ(0, pthread_create(&th, NULL, wait_forever, &w));
	thn_sleep_us(100000);
	t0 = thn_now_ns();
	ASSERT_EQ(0, thn_vport_destroy_id(fd, v.id));
	pthread_join(th, NULL);
	EXPECT_EQ(-ECONNREFUSED, w.ret);
	EXPECT_GT(10000000000ULL, thn_now_ns() - t0);
	/* and a new CT_WAIT on the index is refused at once */
	EXPECT_EQ(-EINVAL, thn_ct_wait(&v, 3, 1, 0, NULL));
	close(fd);
}

/* The module's reference count, as /sys/module/th_nic/refcnt shows it. */
static int module_refcnt(void)
{
	FILE *f = fopen("/sys/module/th_nic/refcnt", "r");
	int n = -1;

	if (f) {
		if (fscanf(f, "%d", &n) != 1)
			n = -1;
		fclose(f);
	}
	return n;
}

/*
 * The child's vport targets itself through the fabric: a PUT, a GET, a
 * remote WRITE_INLINE with its control packet, and a PUT whose control
 * packet fires a REDUCE.  Exits 0 when every chain completed correctly;
 * the exit itself closes the node and must not wait for a leaked
 * reference.
 */
static void run_self_targeted(void)
{
	struct thn_key key;
	__u32 k[1];
	__u64 o[1] = { 8 * 8 };
	struct th_nic_doorbell db;
	struct th_nic_cqe cqe[8];
	struct th_nic_desc d[5];
	struct thn_vport v;
	double *buf = thn_alloc(4096);
	int fd = thn_open(NODE_A), j;

	if (fd < 0 || !buf || thn_vport_open(fd, 0, 0, &v) ||
	    thn_mr_reg(&v, buf, 4096, TH_NIC_ACCESS_ALL, &key))
		_exit(2);
	for (j = 0; j < 64; j++)
		buf[j] = j;
	k[0] = key.l;
	d[0] = thn_reduce(TH_NIC_ALU_SUM, TH_NIC_DT_FLOAT64, 8, key.l, 8 * 16, 1,
			  k, o);
	thn_trigger(&d[0], 3, 1, 0);
	d[1] = thn_put(key.l, 0, NODE_A, v.id, key.r, 8 * 24, 64);
	d[2] = thn_get(key.l, 8 * 32, NODE_A, v.id, key.r, 0, 64);
	d[3] = thn_inline_remote(NODE_A, v.id, key.r, 8 * 40, "self", 4);
	d[3].flags |= TH_NIC_DF_REMOTE_CT;
	d[3].wr_inline.remote_ct = 4;
	d[4] = thn_put_ct(key.l, 0, NODE_A, v.id, key.r, 8 * 8, 64, 3);
	for (j = 1; j < 5; j++) {
		d[j].flags |= TH_NIC_DF_SIGNAL;
		thn_trigger(&d[j], 0, 0, j);
	}
	if (thn_post(&v, d, 5, &db) || db.chains != 5)
		_exit(3);
	if (thn_cq_wait(&v, cqe, 4, THN_WAIT_MS) != 4)
		_exit(4);
	for (j = 0; j < 4; j++)
		if (cqe[j].status)
			_exit(5);
	for (j = 0; j < 8; j++)
		if (buf[16 + j] != j || buf[24 + j] != j || buf[32 + j] != j)
			_exit(6);
	if (memcmp(&buf[40], "self", 4) || thn_ct(&v, 4) != 1)
		_exit(7);
	_exit(0);	/* closes the node with no chain pending */
}

/*
 * Finding F.1: a remote operation aimed at its own vport leaked a vport
 * reference, so closing the node waited forever in D state (SIGKILL could
 * not end it) and the module could never be unloaded.  The process must
 * exit, and the module's reference count come back down.
 */
TEST(self_targeted_operations_let_the_process_exit)
{
	int before = module_refcnt(), status = 0, i;
	pid_t pid, got = 0;

	ASSERT_LE(0, before);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		run_self_targeted();
	/* bounded: a process stuck in teardown never exits */
	for (i = 0; i < 200 && got != pid; i++) {
		got = waitpid(pid, &status, WNOHANG);
		if (got != pid)
			thn_sleep_us(100000);
	}
	if (got != pid) {
		kill(pid, SIGKILL);
		ASSERT_EQ(pid, got) TH_LOG("the process did not exit within 20 s");
	}
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(before, module_refcnt());
}

/* rmmod fails while a node is open, and while only a mapping is left. */
TEST(module_is_pinned_while_in_use)
{
	struct thn_vport v;
	struct th_nic_query q;
	int fd = thn_open(NODE_A), rc;

	ASSERT_LE(0, fd);
	rc = system("rmmod th_nic 2>/dev/null");
	if (rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 127)
		SKIP(close(fd); return, "no rmmod in this system");
	EXPECT_NE(0, rc);
	EXPECT_EQ(0, system("grep -q '^th_nic ' /proc/modules"));
	ASSERT_EQ(0, thn_query(fd, &q));

	ASSERT_EQ(0, thn_vport_open(fd, 16, 16, &v));
	ASSERT_EQ(0, close(fd));
	/* the mapping holds the file: unloading must still fail */
	rc = system("rmmod th_nic 2>/dev/null");
	EXPECT_NE(0, rc);
	EXPECT_EQ(0, system("grep -q '^th_nic ' /proc/modules"));
	EXPECT_EQ(0, thn_ct(&v, 0));
	thn_vport_unmap(&v);
}

TEST_HARNESS_MAIN
