// SPDX-License-Identifier: GPL-2.0
/*
 * security_test.c - isolation between processes: a memory key is usable by
 * another process only with the remote access it was registered with
 * (otherwise its PUT/GET completes with -EACCES and memory is untouched),
 * keys are not sequential, a deregistered key is dead, vports and their
 * mappings belong to the fd that created them, and read-only memory
 * cannot be registered for writing.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "th_nic_util.h"

#define NODE_A	8
#define NODE_B	9
#define LEN	4096

/* A's regions, one per access combination. */
enum { K_LOCAL, K_RW, K_RREAD, K_RWRITE, K_NKEYS };

/* B's operations against A: one row each. */
struct op_row {
	const char *name;
	bool get;		/* GET from A, else PUT to A */
	int key;		/* which of A's keys */
	__u32 key_xor;		/* a guessed key: A's key ^ this */
	__u32 key_add;		/* ... or + this */
	int vport_delta;	/* a vport next to A's */
	__u64 roff, len;
	bool remote_ct;		/* PUT: increment A's counter (row index) */
	int status;		/* expected completion status */
	bool moves;		/* data must arrive */
};

static const struct op_row rows[] = {
	{ "put to local-only key", false, K_LOCAL, 0, 0, 0, 0, 64, true,
	  -EACCES, false },
	{ "get from local-only key", true, K_LOCAL, 0, 0, 0, 0, 64, false,
	  -EACCES, false },
	{ "put to remote-read key", false, K_RREAD, 0, 0, 0, 0, 64, true,
	  -EACCES, false },
	{ "get from remote-write key", true, K_RWRITE, 0, 0, 0, 0, 64, false,
	  -EACCES, false },
	{ "put to remote-write key", false, K_RWRITE, 0, 0, 0, 128, 64, true,
	  0, true },
	{ "get from remote-read key", true, K_RREAD, 0, 0, 0, 256, 64, false,
	  0, true },
	{ "put to remote-rw key", false, K_RW, 0, 0, 0, 512, 100, true, 0,
	  true },
	{ "get from remote-rw key", true, K_RW, 0, 0, 0, 1024, 100, false, 0,
	  true },
	{ "put to key + 1", false, K_RW, 0, 1, 0, 0, 64, true, -EACCES, false },
	{ "put to key - 1", false, K_RW, 0, 0xffffffff, 0, 0, 64, true,
	  -EACCES, false },
	{ "put to key ^ bit 16", false, K_RW, 1 << 16, 0, 0, 0, 64, true,
	  -EACCES, false },
	{ "put to key ^ bit 31", false, K_RW, 1U << 31, 0, 0, 0, 64, true,
	  -EACCES, false },
	{ "put to key on a vport that does not exist", false, K_RW, 0, 0, 1,
	  0, 64, false, -ECONNREFUSED, false },
	{ "put past the region", false, K_RW, 0, 0, 0, LEN - 32, 64, true,
	  -ERANGE, false },
	{ "get past the region", true, K_RW, 0, 0, 0, LEN - 32, 64, false,
	  -ERANGE, false },
};

#define NROWS ARRAY_SIZE(rows)

struct shared {
	__u32 a_vport, b_vport;
	__u32 keys[K_NKEYS];
	__u32 a_ready, b_done, a_dereg, b_done2;
	int status[NROWS];
	bool b_buf_ok[NROWS];	/* B's buffer: untouched / filled as expected */
	int lkey_foreign;	/* B posting A's key as its own */
	int after_dereg;	/* B's PUT to a deregistered key */
	int own[6];		/* B poking A's vport through its own fd */
	bool b_failed;
	char why[128];
};

static __u8 a_pattern(size_t i)
{
	return (__u8)(i * 7 + 1);
}

static __u8 b_pattern(size_t i)
{
	return (__u8)(0xff - i * 3);
}

static void b_fail(struct shared *sh, const char *why)
{
	snprintf(sh->why, sizeof(sh->why), "%s", why);
	sh->b_failed = true;
	__atomic_store_n(&sh->b_done, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&sh->b_done2, 1, __ATOMIC_RELEASE);
	_exit(1);
}

/* Process B: its own node, fd and vport; A's keys from shared memory. */
static void run_b(struct shared *sh)
{
	struct th_nic_doorbell db;
	struct th_nic_cqe cqe;
	struct th_nic_desc d;
	struct thn_vport v;
	__u8 *buf = thn_alloc(LEN);
	__u32 bkey, i;
	size_t j;
	int fd = thn_open(NODE_B), fda;

	if (fd < 0 || !buf || thn_vport_open(fd, 0, 0, &v))
		b_fail(sh, "B: setup");
	if (thn_mr_reg(&v, buf, LEN, TH_NIC_ACCESS_ALL, &bkey))
		b_fail(sh, "B: MR_REG");
	sh->b_vport = v.id;
	if (!thn_wait_word(&sh->a_ready, 1, THN_WAIT_MS))
		b_fail(sh, "B: A never got ready");

	for (i = 0; i < NROWS; i++) {
		const struct op_row *r = &rows[i];
		__u32 key = ((sh->keys[r->key] ^ r->key_xor) + r->key_add);
		__u32 vport = sh->a_vport + r->vport_delta;

		for (j = 0; j < LEN; j++)
			buf[j] = b_pattern(j);
		if (r->get)
			d = thn_get(bkey, 0, NODE_A, vport, key, r->roff, r->len);
		else if (r->remote_ct)
			d = thn_put_ct(bkey, 0, NODE_A, vport, key, r->roff,
				       r->len, i);
		else
			d = thn_put(bkey, 0, NODE_A, vport, key, r->roff,
				    r->len);
		d.flags |= TH_NIC_DF_SIGNAL;
		thn_trigger(&d, 0, 0, i);
		if (thn_post(&v, &d, 1, &db))
			b_fail(sh, "B: doorbell refused a valid chain");
		if (thn_cq_wait(&v, &cqe, 1, THN_WAIT_MS) != 1)
			b_fail(sh, "B: no completion");
		sh->status[i] = cqe.status;
		sh->b_buf_ok[i] = true;
		for (j = 0; j < LEN; j++) {
			__u8 want = b_pattern(j);

			if (r->get && r->moves && j < r->len)
				want = a_pattern(r->roff + j);
			if (buf[j] != want)
				sh->b_buf_ok[i] = false;
		}
	}

	/* A's key named as B's local key: refused at the doorbell */
	d = thn_put(sh->keys[K_RW], 0, NODE_A, sh->a_vport, sh->keys[K_RW], 0,
		    8);
	sh->lkey_foreign = thn_post(&v, &d, 1, &db);
	thn_sq_rewind(&v);

	/* B's own fd on A's node cannot touch A's vport */
	fda = thn_open(NODE_A);
	if (fda < 0)
		b_fail(sh, "B: open A's node");
	{
		struct thn_vport fake = v;

		fake.fd = fda;
		fake.id = sh->a_vport;
		sh->own[0] = thn_ct_inc(&fake, 0, 1);
		sh->own[1] = thn_mr_dereg(&fake, sh->keys[K_RW]);
		sh->own[2] = thn_doorbell(&fake, &db);
		sh->own[3] = thn_cancel(&fake, false, 0, NULL);
		sh->own[4] = thn_vport_destroy_id(fda, sh->a_vport);
		sh->own[5] = thn_ct_wait(&fake, 0, 0, 0, NULL);
	}
	close(fda);
	__atomic_store_n(&sh->b_done, 1, __ATOMIC_RELEASE);

	/* once A deregistered its key, it is dead */
	if (!thn_wait_word(&sh->a_dereg, 1, THN_WAIT_MS))
		b_fail(sh, "B: A never deregistered");
	d = thn_put(bkey, 0, NODE_A, sh->a_vport, sh->keys[K_RW], 0, 64);
	d.flags |= TH_NIC_DF_SIGNAL;
	if (thn_post(&v, &d, 1, &db) ||
	    thn_cq_wait(&v, &cqe, 1, THN_WAIT_MS) != 1)
		b_fail(sh, "B: put after dereg did not complete");
	sh->after_dereg = cqe.status;
	__atomic_store_n(&sh->b_done2, 1, __ATOMIC_RELEASE);
	close(fd);
	_exit(0);
}

TEST(keys_across_processes)
{
	static const __u32 access[K_NKEYS] = {
		[K_LOCAL] = TH_NIC_ACCESS_LOCAL_WRITE,
		[K_RW] = TH_NIC_ACCESS_ALL,
		[K_RREAD] = TH_NIC_ACCESS_REMOTE_READ,
		[K_RWRITE] = TH_NIC_ACCESS_REMOTE_WRITE,
	};
	struct shared *sh = thn_shared(sizeof(*sh));
	__u8 *mem[K_NKEYS];
	struct thn_vport v;
	unsigned int i, k;
	size_t j;
	int fd, status;
	pid_t pid;

	ASSERT_NE(NULL, sh);
	/* fork first: nothing registered is shared copy-on-write */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		run_b(sh);

	fd = thn_open(NODE_A);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, thn_vport_open(fd, 0, 0, &v));
	for (k = 0; k < K_NKEYS; k++) {
		mem[k] = thn_alloc(LEN);
		ASSERT_NE(NULL, mem[k]);
		for (j = 0; j < LEN; j++)
			mem[k][j] = a_pattern(j);
		ASSERT_EQ(0, thn_mr_reg(&v, mem[k], LEN, access[k],
					&sh->keys[k]));
	}
	sh->a_vport = v.id;
	__atomic_store_n(&sh->a_ready, 1, __ATOMIC_RELEASE);

	ASSERT_TRUE(thn_wait_word(&sh->b_done, 1, 4 * THN_WAIT_MS))
		kill(pid, SIGKILL);
	ASSERT_FALSE(sh->b_failed) TH_LOG("%s", sh->why);

	for (i = 0; i < NROWS; i++) {
		const struct op_row *r = &rows[i];

		EXPECT_EQ(r->status, sh->status[i]) TH_LOG("%s", r->name);
		EXPECT_TRUE(sh->b_buf_ok[i]) TH_LOG("%s: B's buffer", r->name);
		/* the counter a PUT names rises only if it succeeded */
		if (r->remote_ct && !r->vport_delta) {
			EXPECT_EQ(r->status ? 0 : 1, thn_ct(&v, i))
				TH_LOG("%s: counter", r->name);
			EXPECT_EQ(r->status ? 1 : 0, thn_ct_fail(&v, i))
				TH_LOG("%s: failure value", r->name);
		}
	}
	/* A's memory: only the successful PUTs' ranges changed */
	for (k = 0; k < K_NKEYS; k++) {
		for (j = 0; j < LEN; j++) {
			__u8 want = a_pattern(j);

			for (i = 0; i < NROWS; i++) {
				const struct op_row *r = &rows[i];

				if (!r->get && r->moves && r->key == (int)k &&
				    j >= r->roff && j < r->roff + r->len)
					want = b_pattern(j - r->roff);
			}
			if (mem[k][j] != want) {
				EXPECT_EQ(want, mem[k][j])
					TH_LOG("A's region %u byte %zu", k, j);
				break;
			}
		}
	}
	EXPECT_EQ(-EINVAL, sh->lkey_foreign);
	for (i = 0; i < 6; i++)
		EXPECT_EQ(-EINVAL, sh->own[i]) TH_LOG("B's fd call %u on A's vport", i);

	/* deregister: B's next PUT to that key fails, memory untouched */
	memcpy(mem[K_LOCAL], mem[K_RW], LEN);
	ASSERT_EQ(0, thn_mr_dereg(&v, sh->keys[K_RW]));
	__atomic_store_n(&sh->a_dereg, 1, __ATOMIC_RELEASE);
	ASSERT_TRUE(thn_wait_word(&sh->b_done2, 1, 4 * THN_WAIT_MS))
		kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_FALSE(sh->b_failed) TH_LOG("%s", sh->why);
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	EXPECT_EQ(-EACCES, sh->after_dereg);
	EXPECT_EQ(0, memcmp(mem[K_LOCAL], mem[K_RW], LEN));
	close(fd);
}

TEST(keys_are_not_sequential)
{
	enum { N = 32 };
	__u32 keys[N], again, diffs_equal = 0, high_same = 0, i, j;
	struct thn_vport v, w;
	__u8 *p = thn_alloc(4096);
	__u32 wkeys[N];
	int fd = thn_open(NODE_A);

	ASSERT_LE(0, fd);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, thn_vport_open(fd, 16, 16, &v));
	ASSERT_EQ(0, thn_vport_open(fd, 16, 16, &w));
	for (i = 0; i < N; i++) {
		ASSERT_EQ(0, thn_mr_reg(&v, p, 4096, 0, &keys[i]));
		ASSERT_EQ(0, thn_mr_reg(&w, p, 4096, 0, &wkeys[i]));
		EXPECT_NE(0, keys[i]);
	}
	for (i = 0; i < N; i++)
		for (j = i + 1; j < N; j++)
			ASSERT_NE(keys[i], keys[j]);
	for (i = 2; i < N; i++)
		if (keys[i] - keys[i - 1] == keys[i - 1] - keys[i - 2])
			diffs_equal++;
	/* a constant step would make every key predictable from one */
	EXPECT_GT(N / 2, diffs_equal);
	/* two vports do not hand out the same sequence */
	for (i = 0; i < N; i++)
		if (keys[i] == wkeys[i])
			high_same++;
	EXPECT_GT(N / 2, high_same);
	/* a freed key is not handed out again at once */
	ASSERT_EQ(0, thn_mr_dereg(&v, keys[5]));
	ASSERT_EQ(0, thn_mr_reg(&v, p, 4096, 0, &again));
	EXPECT_NE(keys[5], again);
	EXPECT_EQ(-EINVAL, thn_mr_dereg(&v, keys[5]));
	close(fd);
}

/* A file opened read-only and mapped shared cannot become a writable MR. */
TEST(readonly_memory_cannot_be_registered_writable)
{
	static const __u32 writes[] = {
		TH_NIC_ACCESS_LOCAL_WRITE,
		TH_NIC_ACCESS_REMOTE_WRITE,
		TH_NIC_ACCESS_ALL,
	};
	char path[] = "/tmp/th_nic_ro_XXXXXX";
	struct thn_vport v;
	__u8 page[4096], *p, *q;
	unsigned int i;
	__u32 key;
	int fd, wfd, rfd, ret;

	memset(page, 0x42, sizeof(page));
	wfd = mkstemp(path);
	ASSERT_LE(0, wfd);
	ASSERT_EQ(sizeof(page), write(wfd, page, sizeof(page)));
	close(wfd);
	rfd = open(path, O_RDONLY);
	ASSERT_LE(0, rfd);
	unlink(path);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, rfd, 0);
	ASSERT_NE(MAP_FAILED, p);
	q = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, q);

	fd = thn_open(NODE_A);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, thn_vport_open(fd, 16, 16, &v));
	for (i = 0; i < ARRAY_SIZE(writes); i++) {
		ret = thn_mr_reg(&v, p, 4096, writes[i], &key);
		EXPECT_TRUE(ret == -EFAULT || ret == -EACCES || ret == -EPERM)
			TH_LOG("shared read-only file, access 0x%x: %d",
			       writes[i], ret);
		ret = thn_mr_reg(&v, q, 4096, writes[i], &key);
		EXPECT_TRUE(ret == -EFAULT || ret == -EACCES || ret == -EPERM)
			TH_LOG("PROT_READ anonymous, access 0x%x: %d",
			       writes[i], ret);
	}
	/* reading it is fine */
	EXPECT_EQ(0, thn_mr_reg(&v, p, 4096, TH_NIC_ACCESS_REMOTE_READ, &key));
	EXPECT_EQ(0x42, p[100]);
	close(fd);
	close(rfd);
}

TEST_HARNESS_MAIN
