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
 * undone and the next n tried.  The netlink operations are swept the
 * same way: a failed request answers -ENOMEM (its handler failed) or
 * ENOBUFS on the socket (the kernel could not queue its reply, ack or
 * the rest of a dump), never a short answer taken for a whole one, and
 * an event the kernel could not build reaches its listeners as ENOBUFS.
 * Needs a kernel
 * with CONFIG_FAULT_INJECTION (the debug kernel of make vmtest-debug); on
 * another, each test skips with its reason.
 */
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/time.h>

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

/* ---- netlink ---------------------------------------------------------------- */

/* A socket for one attempt: a reply the kernel lost is not read by the next. */
static struct nl_sock *fn_nl_socket(void)
{
	struct timeval tv = { .tv_sec = 5 };
	struct nl_sock *sk = nl_socket_alloc();

	if (!sk)
		return NULL;
	if (genl_connect(sk)) {
		nl_socket_free(sk);
		return NULL;
	}
	/* a reply lost without ENOBUFS would hang the read: fail instead */
	setsockopt(nl_socket_get_fd(sk), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return sk;
}

struct fn_nl_case {
	const char *name;
	uint8_t cmd;
	int flags;
	put_fn put;
	void *arg;
	unsigned int want;		/* messages in the whole answer */
};

struct fn_nl_tally {
	unsigned int points, nomem, nobufs, absorbed;
};

/*
 * One request under fail-nth at n = 1, 2, ... until it runs clean.
 * @check, when given, sees the outcome of every attempt (the state a
 * setting request left).
 */
static int fn_nl_sweep(struct __test_metadata *_metadata, int fail, int family,
		       const struct fn_nl_case *c, struct fn_nl_tally *t,
		       void (*check)(struct __test_metadata *, int family,
				     unsigned int n, int ret, void *arg),
		       void *check_arg)
{
	unsigned int n;

	memset(t, 0, sizeof(*t));
	for (n = 1; n < FN_MAX_TRIES; n++) {
		struct nl_sock *sk = fn_nl_socket();
		struct reply r = { 0 };
		bool fired;
		int ret;

		if (!sk)
			return -1;
		fn_arm(fail, n);
		ret = request(sk, family, c->cmd, c->flags, c->put, c->arg, &r);
		fired = fn_fired(fail);
		fn_disarm(fail);
		reply_free(&r);
		nl_socket_free(sk);
		if (check)
			check(_metadata, family, n, ret, check_arg);
		if (!fired) {
			EXPECT_EQ(0, ret) TH_LOG("%s: clean run: %d", c->name, ret);
			EXPECT_EQ(c->want, r.n) TH_LOG("%s: clean run", c->name);
			return 0;
		}
		t->points++;
		if (!ret) {	/* absorbed: then the answer is whole */
			EXPECT_EQ(c->want, r.n)
				TH_LOG("%s: failure point %u: a short answer passed for whole",
				       c->name, n);
			t->absorbed++;
			continue;
		}
		if (ret == -ENOMEM) {
			t->nomem++;
		} else if (ret == -ENOBUFS) {
			t->nobufs++;
		} else {
			EXPECT_EQ(-ENOMEM, ret)
				TH_LOG("%s: failure point %u answered %d (-EIO: nothing came back)",
				       c->name, n, ret);
			return -1;
		}
	}
	return -1;
}

static void fn_nl_report(const char *name, const struct fn_nl_tally *t)
{
	printf("# fail-nth %-22s %3u failure points: %u -ENOMEM, %u ENOBUFS, %u absorbed, all clean\n",
	       name, t->points, t->nomem, t->nobufs, t->absorbed);
}

TEST_F(fn, netlink_gets_and_dumps)
{
	struct where node = { 0, 0, false }, vport;
	struct fn_nl_tally t;
	struct thn_key key;
	unsigned int i;

	NEED_FAIL_NTH();
	ASSERT_EQ(0, thn_vport_open(self->fd, 64, 64, &self->vp));
	ASSERT_EQ(0, thn_mr_reg(&self->vp, self->buf, 1 << 16,
				TH_NIC_ACCESS_ALL, &key));
	vport = (struct where){ 0, self->vp.id, true };
	{
		const struct fn_nl_case cases[] = {
			{ "NODE_GET", TH_NL_CMD_NODE_GET, 0, put_where, &node, 1 },
			{ "NODE_GET dump", TH_NL_CMD_NODE_GET, NLM_F_DUMP, NULL, NULL, THN_NODES },
			{ "VPORT_GET", TH_NL_CMD_VPORT_GET, 0, put_where, &vport, 1 },
			{ "VPORT_GET dump", TH_NL_CMD_VPORT_GET, NLM_F_DUMP, NULL, NULL, 1 },
			{ "COUNTERS_GET", TH_NL_CMD_COUNTERS_GET, 0, put_where, &vport, 1 },
			{ "FAULT_GET", TH_NL_CMD_FAULT_GET, 0, put_where, &node, 1 },
			{ "FAULT_GET dump", TH_NL_CMD_FAULT_GET, NLM_F_DUMP, NULL, NULL, THN_NODES },
		};

		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			ASSERT_EQ(0, fn_nl_sweep(_metadata, self->fail, self->family,
						 &cases[i], &t, NULL, NULL));
			EXPECT_GT(t.points, 0) TH_LOG("%s allocates nothing?", cases[i].name);
			fn_nl_report(cases[i].name, &t);
		}
	}
	EXPECT_EQ(0, thn_mr_dereg(&self->vp, key.l));
	EXPECT_EQ(0, thn_vport_close(&self->vp));
}

struct fn_fault {
	struct fault_req req;
	uint32_t applied;		/* the last rate known to be set */
};

static uint32_t fn_fault_drop(int family, uint32_t node)
{
	struct nlattr *ft[TH_NL_FAULT_MAX + 1];
	struct where w = { node, 0, false };
	struct nl_sock *sk = fn_nl_socket();
	struct reply r = { 0 };
	uint32_t drop = UINT32_MAX;

	if (sk && !request(sk, family, TH_NL_CMD_FAULT_GET, 0, put_where, &w, &r) &&
	    r.tb[TH_NL_A_FAULT] &&
	    !nla_parse_nested(ft, TH_NL_FAULT_MAX, r.tb[TH_NL_A_FAULT], NULL))
		drop = ft[TH_NL_FAULT_DROP_PPM] ? nla_get_u32(ft[TH_NL_FAULT_DROP_PPM]) : 0;
	reply_free(&r);
	if (sk)
		nl_socket_free(sk);
	return drop;
}

/*
 * After each FAULT_SET: -ENOMEM (the handler failed) left the old rate;
 * success set the new one; ENOBUFS (the ack was lost) may have either.
 */
static void fn_fault_check(struct __test_metadata *_metadata, int family,
			   unsigned int n, int ret, void *arg)
{
	struct fn_fault *f = arg;
	uint32_t now = fn_fault_drop(family, f->req.node);

	if (!ret || (ret == -ENOBUFS && now == f->req.drop)) {
		EXPECT_EQ(f->req.drop, now) TH_LOG("failure point %u", n);
	} else {
		EXPECT_EQ(f->applied, now) TH_LOG("failure point %u: half-set", n);
	}
	f->applied = now;
	f->req.drop++;		/* the next attempt sets a rate not seen yet */
}

TEST_F(fn, netlink_fault_set)
{
	struct fn_fault f = { .req = { .node = 3, .drop = 1000, .retries = 2,
				       .retry_ns = 1000000 } };
	const struct fn_nl_case c = { "FAULT_SET", TH_NL_CMD_FAULT_SET, 0,
				      put_fault, &f.req, 0 };
	struct fn_nl_tally t;
	struct reply r = { 0 };

	NEED_FAIL_NTH();
	f.applied = fn_fault_drop(self->family, f.req.node);
	ASSERT_EQ(0, f.applied);
	ASSERT_EQ(0, fn_nl_sweep(_metadata, self->fail, self->family, &c, &t,
				 fn_fault_check, &f));
	EXPECT_GT(t.points, 0);
	fn_nl_report("FAULT_SET", &t);
	/* clear it */
	f.req.drop = 0;
	ASSERT_EQ(0, request(self->sk, self->family, TH_NL_CMD_FAULT_SET, 0,
			     put_fault, &f.req, &r));
	reply_free(&r);
	EXPECT_EQ(0, fn_fault_drop(self->family, f.req.node));
}

/* Events on the listener since the last look: new, del, and ENOBUFS seen. */
struct fn_events {
	unsigned int news, dels, lost;
};

static int fn_any_seq(struct nl_msg *msg, void *arg)
{
	(void)msg;
	(void)arg;
	return NL_OK;
}

static int fn_on_event(struct nlattr **tb, void *arg)
{
	struct fn_events *e = arg;
	uint8_t ev = tb[TH_NL_A_EVENT] ? nla_get_u8(tb[TH_NL_A_EVENT]) : 0;

	e->news += ev == TH_NL_EVENT_VPORT_NEW;
	e->dels += ev == TH_NL_EVENT_VPORT_DEL;
	return 0;
}

static void fn_events_read(struct nl_sock *mon, struct fn_events *e)
{
	struct reply r = { .each = fn_on_event, .arg = e };
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);
	int ret;

	memset(e, 0, sizeof(*e));
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &r);
	nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, fn_any_seq, NULL);
	/* the events of a call are queued before it returns: no waiting */
	while ((ret = nl_recvmsgs(mon, cb)) >= 0 || ret == -NLE_NOMEM)
		e->lost += ret == -NLE_NOMEM;
	reply_free(&r);
	nl_cb_put(cb);
}

/*
 * Sweeps of VPORT_CREATE with a listener on the events group.  Which
 * allocation the n-th is varies a little from call to call (slab and
 * vmalloc refills), so one sweep may step over the notification's own:
 * sweep again, up to FN_EVENT_SWEEPS times, until one point reached it.
 */
#define FN_EVENT_SWEEPS	5

TEST_F(fn, vport_events_told_or_lost_loudly)
{
	struct th_nic_vport_create c;
	struct fn_events e;
	struct nl_sock *mon;
	unsigned int n, sweep, failures = 0, lost = 0, told = 0;
	int grp, ret;

	NEED_FAIL_NTH();
	mon = nl_socket_alloc();
	ASSERT_NE(NULL, mon);
	ASSERT_EQ(0, genl_connect(mon));
	nl_socket_disable_seq_check(mon);
	grp = genl_ctrl_resolve_grp(mon, TH_NL_FAMILY_NAME, TH_NL_MCGRP_EVENTS);
	ASSERT_GE(grp, 0);
	ASSERT_EQ(0, nl_socket_add_membership(mon, grp));
	ASSERT_EQ(0, nl_socket_set_nonblocking(mon));
	for (sweep = 0; sweep < FN_EVENT_SWEEPS && !lost; sweep++) {
		for (n = 1; n < FN_MAX_TRIES; n++) {
			fn_arm(self->fail, n);
			ret = thn_vport_create_raw(self->fd, 64, 64, &c);
			if (!fn_fired(self->fail)) {
				fn_disarm(self->fail);
				ASSERT_EQ(0, ret);
				fn_events_read(mon, &e);
				EXPECT_EQ(1, e.news);
				ASSERT_EQ(0, thn_vport_destroy_id(self->fd, c.vport));
				break;
			}
			fn_disarm(self->fail);
			fn_events_read(mon, &e);
			if (ret) {
				/* refused: no vport, so no event of one */
				EXPECT_EQ(0, e.news) TH_LOG("failure point %u", n);
				failures++;
				continue;
			}
			/* created: its listeners were told, or told they missed it */
			EXPECT_TRUE(e.news == 1 || e.lost)
				TH_LOG("failure point %u: a vport's creation lost silently", n);
			told += e.news == 1;
			lost += e.news == 0;
			ASSERT_EQ(0, thn_vport_destroy_id(self->fd, c.vport));
			fn_events_read(mon, &e);
			EXPECT_EQ(1, e.dels);
		}
	}
	printf("# fail-nth VPORT_CREATE+events %u sweeps, %u points: %u refused, %u told, %u lost with ENOBUFS\n",
	       sweep, failures + told + lost, failures, told, lost);
	if (!lost)
		TH_LOG("no failure point reached the notification in %u sweeps", sweep);
	nl_socket_free(mon);
}

TEST_HARNESS_MAIN
