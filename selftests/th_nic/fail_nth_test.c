// SPDX-License-Identifier: GPL-2.0
/*
 * fail_nth_test.c - every allocating call under fail-nth, as iommufd's
 * selftests do: for n = 1, 2, ... the n-th allocation of the calling task
 * fails (/proc/self/task/TID/fail-nth, with failslab and fail_page_alloc
 * counting sleeping allocations too) until a call runs without reaching
 * its n-th allocation.  A call that failed must return -ENOMEM and leave
 * nothing behind, as the management interface's counts show (vports, MRs
 * and pinned bytes, pending chains); a call that succeeded although its
 * n-th allocation failed (a fallback took over: kvmalloc's vmalloc) is
 * undone and the next n tried.  Needs a kernel
 * with CONFIG_FAULT_INJECTION (the debug kernel of make vmtest-debug); on
 * another, each test skips with its reason.
 */
#include <fcntl.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "th_nic_util.h"
#include "th_nl_util.h"

#define FN_MAX_TRIES	2000

/* /proc/self/task/TID/fail-nth, or -1 without fault injection. */
static int fn_open(void)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%ld/fail-nth",
		 (long)syscall(SYS_gettid));
	return open(path, O_RDWR);
}

/* Count sleeping allocations too: GFP_KERNEL is what the module uses. */
static void fn_count_sleeping(void)
{
	static const char *const knobs[] = {
		"/sys/kernel/debug/failslab/ignore-gfp-wait",
		"/sys/kernel/debug/fail_page_alloc/ignore-gfp-wait",
		"/sys/kernel/debug/fail_page_alloc/ignore-gfp-highmem",
	};
	unsigned int i;
	int fd;

	for (i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
		fd = open(knobs[i], O_WRONLY);
		if (fd >= 0) {
			if (write(fd, "N", 1) != 1)
				perror(knobs[i]);
			close(fd);
		}
	}
}

static void fn_arm(int fd, unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	if (pwrite(fd, buf, len, 0) != len)
		abort();
}

/* Whether the armed fault was used up: the count reads back 0. */
static bool fn_fired(int fd)
{
	char buf[16] = { 0 };

	if (pread(fd, buf, sizeof(buf) - 1, 0) <= 0)
		abort();
	return atoi(buf) == 0;
}

static void fn_disarm(int fd)
{
	fn_arm(fd, 0);
}

/* What node 0 shows: live vports, and vport @v's MRs, bytes, chains. */
struct fn_state {
	uint32_t vports;
	uint32_t mrs;
	uint64_t pinned;
	uint32_t pending;
	uint64_t posted;
};

static int fn_state(struct nl_sock *sk, int family, int v,
		    struct fn_state *st)
{
	struct where w = { 0, v < 0 ? 0 : (uint32_t)v, v >= 0 };
	struct reply r = { 0 };
	int ret;

	memset(st, 0, sizeof(*st));
	w.vport_too = false;
	ret = request(sk, family, TH_NL_CMD_NODE_GET, 0, put_where, &w, &r);
	if (!ret && r.tb[TH_NL_A_VPORTS])
		st->vports = nla_get_u32(r.tb[TH_NL_A_VPORTS]);
	if (!ret && v >= 0) {
		w.vport_too = true;
		ret = request(sk, family, TH_NL_CMD_VPORT_GET, 0, put_where,
			      &w, &r);
		if (!ret) {
			st->mrs = nla_get_u32(r.tb[TH_NL_A_MRS]);
			st->pinned = nla_get_u64(r.tb[TH_NL_A_PINNED]);
			st->pending = nla_get_u32(r.tb[TH_NL_A_PENDING]);
			st->posted = stat_of(r.tb, TH_NL_STAT_CHAINS_POSTED);
		}
	}
	reply_free(&r);
	return ret;
}

FIXTURE(fn) {
	int fail;
	int fd;
	struct nl_sock *sk;
	int family;
	struct thn_vport vp;
	void *buf;
};

FIXTURE_SETUP(fn)
{
	self->fail = fn_open();
	self->fd = -1;
	self->sk = NULL;
	self->buf = NULL;
	if (self->fail < 0)
		return;
	fn_count_sleeping();
	ASSERT_EQ(0, connect_family(&self->sk, &self->family));
	self->fd = thn_open(0);
	ASSERT_GE(self->fd, 0);
	self->buf = thn_alloc(1 << 16);
	ASSERT_NE(NULL, self->buf);
}

FIXTURE_TEARDOWN(fn)
{
	if (self->fail >= 0) {
		fn_disarm(self->fail);
		close(self->fail);
	}
	if (self->buf)
		munmap(self->buf, 1 << 16);
	if (self->fd >= 0)
		close(self->fd);
	if (self->sk)
		nl_socket_free(self->sk);
}

#define NEED_FAIL_NTH() do {						\
	if (self->fail < 0)						\
		SKIP(return, "no fail-nth: the kernel lacks CONFIG_FAULT_INJECTION (make vmtest-debug)"); \
} while (0)

TEST_F(fn, vport_create)
{
	struct th_nic_vport_create c;
	struct fn_state st;
	unsigned int n, failures = 0, absorbed = 0;
	int ret;

	NEED_FAIL_NTH();
	for (n = 1; n < FN_MAX_TRIES; n++) {
		fn_arm(self->fail, n);
		ret = thn_vport_create_raw(self->fd, 64, 64, &c);
		if (!fn_fired(self->fail)) {
			fn_disarm(self->fail);
			ASSERT_EQ(0, ret);
			break;
		}
		fn_disarm(self->fail);
		if (!ret) {	/* absorbed by a fallback: undo, go on */
			ASSERT_EQ(0, thn_vport_destroy_id(self->fd, c.vport));
			absorbed++;
			continue;
		}
		/* the fault hit this call: refused, and nothing left */
		ASSERT_EQ(-ENOMEM, ret) TH_LOG("failure point %u", n);
		ASSERT_EQ(0, fn_state(self->sk, self->family, -1, &st));
		ASSERT_EQ(0, st.vports) TH_LOG("failure point %u left a vport", n);
		failures++;
	}
	TH_LOG("VPORT_CREATE: %u failure points refused cleanly, %u absorbed",
	       failures, absorbed);
	EXPECT_GT(failures, 0);
	EXPECT_EQ(0, thn_vport_destroy_id(self->fd, c.vport));
}

TEST_F(fn, mr_reg)
{
	struct fn_state st;
	struct thn_key key;
	unsigned int n, failures = 0, absorbed = 0;
	int ret;

	NEED_FAIL_NTH();
	ASSERT_EQ(0, thn_vport_open(self->fd, 64, 64, &self->vp));
	for (n = 1; n < FN_MAX_TRIES; n++) {
		fn_arm(self->fail, n);
		ret = thn_mr_reg(&self->vp, self->buf, 1 << 16,
				 TH_NIC_ACCESS_ALL, &key);
		if (!fn_fired(self->fail)) {
			fn_disarm(self->fail);
			ASSERT_EQ(0, ret);
			break;
		}
		fn_disarm(self->fail);
		if (!ret) {	/* absorbed by a fallback: undo, go on */
			ASSERT_EQ(0, thn_mr_dereg(&self->vp, key.l));
			absorbed++;
			continue;
		}
		ASSERT_EQ(-ENOMEM, ret) TH_LOG("failure point %u", n);
		ASSERT_EQ(0, fn_state(self->sk, self->family, self->vp.id, &st));
		ASSERT_EQ(0, st.mrs) TH_LOG("failure point %u left an MR", n);
		ASSERT_EQ(0, st.pinned) TH_LOG("failure point %u left pages pinned", n);
		failures++;
	}
	TH_LOG("MR_REG: %u failure points refused cleanly, %u absorbed",
	       failures, absorbed);
	EXPECT_GT(failures, 0);
	ASSERT_EQ(0, fn_state(self->sk, self->family, self->vp.id, &st));
	EXPECT_EQ(1, st.mrs);
	EXPECT_EQ(0, thn_mr_dereg(&self->vp, key.l));
	EXPECT_EQ(0, thn_vport_close(&self->vp));
}

TEST_F(fn, doorbell)
{
	struct th_nic_desc d[3];
	struct th_nic_cqe cqe;
	struct fn_state st;
	unsigned int n, failures = 0, absorbed = 0, i;
	uint64_t posted_before = 0;
	__u32 nc;
	int ret;

	NEED_FAIL_NTH();
	ASSERT_EQ(0, thn_vport_open(self->fd, 64, 64, &self->vp));
	for (n = 1; n < FN_MAX_TRIES; n++) {
		/* a chain that waits (counter 1), so it stays pending */
		for (i = 0; i < 3; i++)
			d[i] = thn_notify(i);
		thn_link(d, 3);
		thn_trigger(&d[0], 1, 1, n);
		fn_arm(self->fail, n);
		ret = thn_post(&self->vp, d, 3, NULL);
		if (!fn_fired(self->fail)) {
			fn_disarm(self->fail);
			ASSERT_EQ(0, ret);
			break;
		}
		fn_disarm(self->fail);
		if (!ret) {	/* absorbed: cancel the chain, go on */
			ASSERT_EQ(0, thn_cancel(&self->vp, true, n, &nc));
			ASSERT_EQ(1, nc);
			thn_cq_drain(&self->vp, &cqe, 1);
			absorbed++;
			posted_before++;
			continue;
		}
		ASSERT_EQ(-ENOMEM, ret) TH_LOG("failure point %u", n);
		thn_sq_rewind(&self->vp);	/* what the NIC did not take */
		ASSERT_EQ(0, fn_state(self->sk, self->family, self->vp.id, &st));
		ASSERT_EQ(0, st.pending) TH_LOG("failure point %u left a chain", n);
		ASSERT_EQ(posted_before, st.posted);
		failures++;
	}
	TH_LOG("DOORBELL: %u failure points refused cleanly, %u absorbed",
	       failures, absorbed);
	ASSERT_EQ(0, fn_state(self->sk, self->family, self->vp.id, &st));
	EXPECT_EQ(1, st.pending);
	/* the one accepted chain runs once its counter moves */
	ASSERT_EQ(0, thn_ct_inc(&self->vp, 1, 1));
	EXPECT_LE(1, thn_cq_wait(&self->vp, &cqe, 1, THN_WAIT_MS));
	EXPECT_EQ(0, thn_vport_close(&self->vp));
}

TEST_F(fn, domain_create)
{
	unsigned int n, failures = 0, absorbed = 0;
	int before = thn_count_fds(), dom = -1;

	NEED_FAIL_NTH();
	for (n = 1; n < FN_MAX_TRIES; n++) {
		fn_arm(self->fail, n);
		dom = thn_domain_create(self->fd);
		if (!fn_fired(self->fail)) {
			fn_disarm(self->fail);
			ASSERT_LE(0, dom);
			break;
		}
		fn_disarm(self->fail);
		if (dom >= 0) {	/* absorbed: close it, go on */
			close(dom);
			absorbed++;
			continue;
		}
		ASSERT_GT(0, dom) TH_LOG("failure point %u", n);
		/* no descriptor installed, none reserved for good */
		ASSERT_EQ(before, thn_count_fds()) TH_LOG("failure point %u", n);
		failures++;
	}
	TH_LOG("DOMAIN_CREATE: %u failure points refused cleanly, %u absorbed",
	       failures, absorbed);
	EXPECT_GT(failures, 0);
	if (dom >= 0)
		close(dom);
}

TEST_HARNESS_MAIN
