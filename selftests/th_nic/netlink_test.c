// SPDX-License-Identifier: GPL-2.0
/*
 * netlink_test.c - th_nic's generic netlink family, through libnl: every
 * node dumped; a vport's owner, state, rings, memory and statistics; its
 * counters as the counter page has them; what another user sees (owner
 * and state only) and may not do (read counters, set faults); malformed
 * requests refused by the policy; fault injection set, read back and
 * felt by a PUT that times out, with its statistics; and the events group
 * telling of vports created and destroyed, of the failed delivery and of a
 * vport put in the error state by a wrong key.
 */
#include "kselftest_harness.h"
#include "th_nic_util.h"
#include "th_nl_util.h"

FIXTURE(nl) {
	struct nl_sock *sk;
	int family;
	int fd;
	struct thn_vport vp;
	struct reply r;
};

FIXTURE_SETUP(nl)
{
	memset(&self->r, 0, sizeof(self->r));
	ASSERT_EQ(0, connect_family(&self->sk, &self->family));
	self->fd = thn_open(0);
	ASSERT_GE(self->fd, 0);
	ASSERT_EQ(0, thn_vport_open(self->fd, 64, 64, &self->vp));
}

FIXTURE_TEARDOWN(nl)
{
	reply_free(&self->r);
	thn_vport_close(&self->vp);
	close(self->fd);
	nl_socket_free(self->sk);
}

static int count_node(struct nlattr **tb, void *arg)
{
	unsigned int *next = arg;

	if (!tb[TH_NL_A_NODE] || nla_get_u32(tb[TH_NL_A_NODE]) != *next ||
	    !tb[TH_NL_A_VERSION] || nla_get_u32(tb[TH_NL_A_VERSION]) != TH_NL_VERSION ||
	    !tb[TH_NL_A_NODES] || nla_get_u32(tb[TH_NL_A_NODES]) != THN_NODES)
		return 1;	/* stop: the check below fails */
	(*next)++;
	return 0;
}

TEST_F(nl, every_node_is_dumped_in_order)
{
	unsigned int next = 0;

	self->r.each = count_node;
	self->r.arg = &next;
	ASSERT_EQ(0, request(self->sk, self->family, TH_NL_CMD_NODE_GET,
			     NLM_F_DUMP, NULL, NULL, &self->r));
	EXPECT_EQ(THN_NODES, next);
	EXPECT_EQ(THN_NODES, self->r.n);
}

TEST_F(nl, a_vport_shows_its_owner_memory_and_statistics)
{
	struct where w = { 0, self->vp.id, true };
	struct th_nic_cqe cqe;
	struct nlattr **tb = self->r.tb;
	struct thn_key key;
	void *buf = thn_alloc(8192);

	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, thn_mr_reg(&self->vp, buf, 8192, TH_NIC_ACCESS_LOCAL_WRITE,
				&key));
	ASSERT_EQ(0, thn_post_notify(&self->vp, 0, 0, 77));
	ASSERT_EQ(1, thn_cq_wait(&self->vp, &cqe, 1, THN_WAIT_MS));
	ASSERT_EQ(0, request(self->sk, self->family, TH_NL_CMD_VPORT_GET, 0,
			     put_where, &w, &self->r));
	ASSERT_NE(NULL, tb[TH_NL_A_PID]);
	EXPECT_EQ((uint32_t)getpid(), nla_get_u32(tb[TH_NL_A_PID]));
	EXPECT_EQ(geteuid(), nla_get_u32(tb[TH_NL_A_UID]));
	EXPECT_EQ(TH_NL_VPORT_OK, nla_get_u8(tb[TH_NL_A_STATE]));
	ASSERT_NE(NULL, tb[TH_NL_A_DOMAIN]);	/* ours: the details */
	EXPECT_EQ(64, nla_get_u32(tb[TH_NL_A_SQ_ENTRIES]));
	EXPECT_EQ(64, nla_get_u32(tb[TH_NL_A_CQ_ENTRIES]));
	EXPECT_EQ(1, nla_get_u32(tb[TH_NL_A_MRS]));
	EXPECT_EQ(8192, nla_get_u64(tb[TH_NL_A_PINNED]));
	EXPECT_EQ(0, nla_get_u32(tb[TH_NL_A_PENDING]));
	EXPECT_EQ(1, stat_of(tb, TH_NL_STAT_CHAINS_POSTED));
	EXPECT_EQ(1, stat_of(tb, TH_NL_STAT_CHAINS_DONE));
	EXPECT_EQ(1, stat_of(tb, TH_NL_STAT_DOORBELLS));
	EXPECT_EQ(1, stat_of(tb, TH_NL_STAT_CQES));
	/* the node's totals include it */
	w.vport_too = false;
	ASSERT_EQ(0, request(self->sk, self->family, TH_NL_CMD_NODE_GET, 0,
			     put_where, &w, &self->r));
	EXPECT_LE(1, nla_get_u32(tb[TH_NL_A_VPORTS]));
	EXPECT_LE(1, stat_of(tb, TH_NL_STAT_CHAINS_DONE));
	EXPECT_EQ(0, thn_mr_dereg(&self->vp, key.l));
	munmap(buf, 8192);
}

struct ct_want {
	unsigned int seen;
	int bad;
};

static int check_counters(struct nlattr **tb, void *arg)
{
	struct ct_want *cw = arg;
	struct nlattr *ct, *c[TH_NL_CT_MAX + 1];
	int rem;

	if (!tb[TH_NL_A_COUNTERS])
		return cw->bad = 1;
	nla_for_each_nested(ct, tb[TH_NL_A_COUNTERS], rem) {
		uint32_t i;
		uint64_t ok, fail;

		if (nla_parse_nested(c, TH_NL_CT_MAX, ct, NULL))
			return cw->bad = 2;
		i = nla_get_u32(c[TH_NL_CT_INDEX]);
		ok = nla_get_u64(c[TH_NL_CT_SUCCESS]);
		fail = nla_get_u64(c[TH_NL_CT_FAILURE]);
		if (ok != (i == 5 ? 7 : 0) || fail != (i == 6 ? 3 : 0))
			cw->bad = 3;
		cw->seen++;
	}
	return 0;
}

struct range {
	uint32_t node, vport, first, count;
};

static int put_range(struct nl_msg *msg, void *arg)
{
	struct range *rg = arg;

	return nla_put_u32(msg, TH_NL_A_NODE, rg->node) ||
	       nla_put_u32(msg, TH_NL_A_VPORT, rg->vport) ||
	       nla_put_u32(msg, TH_NL_A_CT_FIRST, rg->first) ||
	       nla_put_u32(msg, TH_NL_A_CT_COUNT, rg->count);
}

TEST_F(nl, counters_read_what_the_page_says)
{
	struct where w = { 0, self->vp.id, true };
	struct range rg = { 0, self->vp.id, 4, 4 };
	struct ct_want cw = { 0 };

	ASSERT_EQ(0, thn_ct_inc(&self->vp, 5, 7));
	ASSERT_EQ(0, thn_ct_fail_inc(&self->vp, 6, 3));
	self->r.each = check_counters;
	self->r.arg = &cw;
	ASSERT_EQ(0, request(self->sk, self->family, TH_NL_CMD_COUNTERS_GET, 0,
			     put_where, &w, &self->r));
	EXPECT_EQ(THN_DEF_COUNTERS, cw.seen);	/* all by default */
	EXPECT_EQ(0, cw.bad);
	cw.seen = 0;
	ASSERT_EQ(0, request(self->sk, self->family, TH_NL_CMD_COUNTERS_GET, 0,
			     put_range, &rg, &self->r));
	EXPECT_EQ(4, cw.seen);
	EXPECT_EQ(0, cw.bad);
	rg.first = THN_DEF_COUNTERS - 1;
	rg.count = 2;		/* past the end */
	EXPECT_EQ(-EINVAL, request(self->sk, self->family,
				   TH_NL_CMD_COUNTERS_GET, 0, put_range, &rg,
				   &self->r));
}

struct other {
	uint32_t vport;
};

/* As another user: owner and state, no details; no counters, no faults. */
static int as_other_user(void *arg)
{
	struct other *o = arg;
	struct where w = { 0, o->vport, true };
	struct fault_req f = { .node = 0, .drop = 1000 };
	struct reply r = { 0 };
	struct nl_sock *sk;
	int family, ret = 0;

	if (connect_family(&sk, &family))
		return 10;
	if (request(sk, family, TH_NL_CMD_VPORT_GET, 0, put_where, &w, &r))
		ret = 11;
	else if (!r.tb[TH_NL_A_PID] || !r.tb[TH_NL_A_STATE])
		ret = 12;
	else if (r.tb[TH_NL_A_DOMAIN] || r.tb[TH_NL_A_STATS] || r.tb[TH_NL_A_MRS])
		ret = 13;
	else if (request(sk, family, TH_NL_CMD_COUNTERS_GET, 0, put_where, &w,
			 &r) != -EPERM)
		ret = 14;
	else if (request(sk, family, TH_NL_CMD_FAULT_SET, 0, put_fault, &f,
			 &r) != -EPERM)
		ret = 15;
	else if (request(sk, family, TH_NL_CMD_NODE_GET, NLM_F_DUMP, NULL, NULL,
			 &r) || r.n != THN_NODES)
		ret = 16;
	reply_free(&r);
	nl_socket_free(sk);
	return ret;
}

TEST_F(nl, another_user_sees_owner_and_state_only)
{
	struct other o = { self->vp.id };

	THN_NEED_ROOT();
	EXPECT_EQ(0, thn_run_as(THN_UID_A, as_other_user, &o));
}

static int no_seq_check(struct nl_msg *msg __attribute__((unused)),
			void *arg __attribute__((unused)))
{
	return NL_OK;
}

/*
 * request(), but written with write(2), as a program does to a descriptor
 * it was handed (its stdout, say): no destination address, so the kernel
 * holds the sender to the socket opener's rights.
 */
static int request_write(struct nl_sock *sk, int family, uint8_t cmd,
			 put_fn put, void *parg, struct reply *r)
{
	struct nl_msg *msg = nlmsg_alloc();
	struct nl_cb *cb = reply_cb(r);
	struct nlmsghdr *h;
	int ret = -ENOMEM;

	if (!msg || !cb)
		goto out;
	nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, no_seq_check, NULL);
	ret = -EMSGSIZE;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, NLM_F_ACK,
			 cmd, TH_NL_VERSION) || (put && put(msg, parg)))
		goto out;
	nl_complete_msg(sk, msg);
	h = nlmsg_hdr(msg);
	ret = -EIO;
	if (write(nl_socket_get_fd(sk), h, h->nlmsg_len) != (ssize_t)h->nlmsg_len)
		goto out;
	ret = 0;
	while (!r->done && ret >= 0)
		ret = nl_recvmsgs(sk, cb);
	ret = r->err || r->done ? r->err : -EIO;
out:
	nlmsg_free(msg);
	nl_cb_put(cb);
	return ret;
}

/*
 * A socket carries its opener's rights (a confused deputy): opened by
 * another user and handed to root, which writes a request to it, it sees
 * root's vport as that user would (owner and state, no details, no
 * counters).  Opened by root and handed to that user, it gives the user
 * nothing more than the user's own rights either.
 */
static int deputy(void *arg)
{
	struct other *o = arg;
	struct where w = { 0, o->vport, true };
	struct reply r = { 0 };
	struct nl_sock *sk;
	int family, ret = 0;

	/* opened with euid A (saved uid 0), written to with euid 0 */
	if (setresuid(-1, THN_UID_A, 0))
		return 20;
	if (connect_family(&sk, &family))
		return 21;
	if (setresuid(-1, 0, -1) || geteuid())
		return 22;
	if (request_write(sk, family, TH_NL_CMD_VPORT_GET, put_where, &w, &r))
		ret = 23;
	else if (!r.tb[TH_NL_A_PID] || !r.tb[TH_NL_A_STATE])
		ret = 24;
	else if (r.tb[TH_NL_A_DOMAIN] || r.tb[TH_NL_A_STATS] || r.tb[TH_NL_A_MRS])
		ret = 25;	/* root's details through A's socket */
	else if (request_write(sk, family, TH_NL_CMD_COUNTERS_GET, put_where,
			       &w, &r) != -EPERM)
		ret = 26;
	reply_free(&r);
	nl_socket_free(sk);
	return ret;
}

static int deputy_reverse(void *arg)
{
	struct other *o = arg;
	struct where w = { 0, o->vport, true };
	struct reply r = { 0 };
	struct nl_sock *sk;
	int family, ret = 0;

	/* opened by root, used by A */
	if (connect_family(&sk, &family))
		return 30;
	if (thn_become(THN_UID_A) || !geteuid())
		return 31;
	if (request_write(sk, family, TH_NL_CMD_VPORT_GET, put_where, &w, &r))
		ret = 32;
	else if (r.tb[TH_NL_A_DOMAIN] || r.tb[TH_NL_A_STATS])
		ret = 33;
	else if (request_write(sk, family, TH_NL_CMD_COUNTERS_GET, put_where,
			       &w, &r) != -EPERM)
		ret = 34;
	reply_free(&r);
	nl_socket_free(sk);
	return ret;
}

TEST_F(nl, a_socket_has_its_openers_rights)
{
	struct other o = { self->vp.id };
	struct reply r = { 0 };
	struct where w = { 0, self->vp.id, true };

	THN_NEED_ROOT();
	EXPECT_EQ(0, thn_run_as(0, deputy, &o));
	EXPECT_EQ(0, thn_run_as(0, deputy_reverse, &o));
	/* root's own socket, written to, still sees root's vport */
	ASSERT_EQ(0, request_write(self->sk, self->family, TH_NL_CMD_VPORT_GET,
				   put_where, &w, &r));
	EXPECT_NE(NULL, r.tb[TH_NL_A_DOMAIN]);
	reply_free(&r);
}

/* Raw attributes, to get them wrong on purpose. */
struct raw {
	int type;
	const void *data;
	int len;
};

static int put_raw(struct nl_msg *msg, void *arg)
{
	struct raw *r = arg;

	return nla_put(msg, r->type, r->len, r->data);
}

static int put_bad_fault(struct nl_msg *msg, void *arg)
{
	uint32_t rate = *(uint32_t *)arg;
	struct nlattr *nest;

	if (nla_put_u32(msg, TH_NL_A_NODE, 0))
		return -1;
	nest = nla_nest_start(msg, TH_NL_A_FAULT);
	if (!nest || nla_put_u32(msg, TH_NL_FAULT_DROP_PPM, rate))
		return -1;
	nla_nest_end(msg, nest);
	return 0;
}

TEST_F(nl, malformed_requests_are_refused)
{
	uint8_t byte = 0;
	uint32_t word = 0, huge = 99999, rate = 1000001;
	struct raw short_node = { TH_NL_A_NODE, &byte, 1 };
	struct raw unknown = { TH_NL_A_MAX + 5, &word, 4 };
	struct raw reply_only = { TH_NL_A_PID, &word, 4 };
	struct raw far_node = { TH_NL_A_NODE, &huge, 4 };

	EXPECT_EQ(-EINVAL, request(self->sk, self->family, TH_NL_CMD_NODE_GET, 0,
				   put_raw, &short_node, &self->r));
	EXPECT_EQ(-EINVAL, request(self->sk, self->family, TH_NL_CMD_NODE_GET, 0,
				   put_raw, &unknown, &self->r));
	EXPECT_EQ(-EINVAL, request(self->sk, self->family, TH_NL_CMD_NODE_GET, 0,
				   put_raw, &reply_only, &self->r));
	EXPECT_EQ(-ENODEV, request(self->sk, self->family, TH_NL_CMD_NODE_GET, 0,
				   put_raw, &far_node, &self->r));
	/* a doit without its node */
	EXPECT_EQ(-EINVAL, request(self->sk, self->family, TH_NL_CMD_VPORT_GET, 0,
				   NULL, NULL, &self->r));
	/* a rate above a million: the nested policy's range */
	EXPECT_EQ(-ERANGE, request(self->sk, self->family, TH_NL_CMD_FAULT_SET, 0,
				   put_bad_fault, &rate, &self->r));
	/* no such command */
	EXPECT_EQ(-EOPNOTSUPP, request(self->sk, self->family, TH_NL_CMD_EVENT,
				       0, NULL, NULL, &self->r));
}

/* ---- fault injection and events ------------------------------------------- */

/* Events carry no sequence number of ours. */
static int any_seq(struct nl_msg *msg, void *arg)
{
	(void)msg;
	(void)arg;
	return NL_OK;
}

struct events {
	unsigned int news, dels, faults, errors;
	uint32_t node;
};

static int on_event(struct nlattr **tb, void *arg)
{
	struct events *e = arg;

	if (!tb[TH_NL_A_EVENT] || !tb[TH_NL_A_NODE] ||
	    nla_get_u32(tb[TH_NL_A_NODE]) != e->node)
		return 0;
	switch (nla_get_u8(tb[TH_NL_A_EVENT])) {
	case TH_NL_EVENT_VPORT_NEW:
		e->news++;
		break;
	case TH_NL_EVENT_VPORT_DEL:
		e->dels++;
		break;
	case TH_NL_EVENT_VPORT_ERROR:
		e->errors++;
		break;
	case TH_NL_EVENT_FAULT:
		if (tb[TH_NL_A_ERROR] &&
		    (int32_t)nla_get_u32(tb[TH_NL_A_ERROR]) == -ETIMEDOUT)
			e->faults++;
		break;
	}
	return 0;
}

TEST_F(nl, a_lost_put_and_a_wrong_key_are_counted_and_told)
{
	struct fault_req f = { .node = 1, .drop = 1000000, .retries = 2,
			       .retry_ns = 100000 };
	struct where w = { 1, 0, true };
	struct events ev = { .node = 1 };
	struct reply er = { .each = on_event, .arg = &ev };
	struct thn_vport a, b;
	struct th_nic_desc d;
	struct th_nic_cqe cqe;
	struct thn_key ka, kb;
	struct nl_sock *mon;
	struct nl_cb *cb;
	int fd1, fd2, grp, mfam, i;
	void *src = thn_alloc(4096), *dst = thn_alloc(4096);

	ASSERT_NE(NULL, src);
	ASSERT_NE(NULL, dst);
	/* a listener on the events group, before anything happens */
	ASSERT_EQ(0, connect_family(&mon, &mfam));
	grp = genl_ctrl_resolve_grp(mon, TH_NL_FAMILY_NAME, TH_NL_MCGRP_EVENTS);
	ASSERT_GE(grp, 0);
	ASSERT_EQ(0, nl_socket_add_membership(mon, grp));
	ASSERT_EQ(0, nl_socket_set_nonblocking(mon));

	ASSERT_EQ(0, request(self->sk, self->family, TH_NL_CMD_FAULT_SET, 0,
			     put_fault, &f, &self->r));
	w.vport_too = false;
	ASSERT_EQ(0, request(self->sk, self->family, TH_NL_CMD_FAULT_GET, 0,
			     put_where, &w, &self->r));
	ASSERT_NE(NULL, self->r.tb[TH_NL_A_FAULT]);
	fd1 = thn_open(1);
	fd2 = thn_open(2);
	ASSERT_GE(fd1, 0);
	ASSERT_GE(fd2, 0);
	ASSERT_EQ(0, thn_vport_open(fd1, 64, 64, &a));
	ASSERT_EQ(0, thn_vport_open(fd2, 64, 64, &b));
	ASSERT_EQ(0, thn_mr_reg(&a, src, 4096, 0, &ka));
	ASSERT_EQ(0, thn_mr_reg(&b, dst, 4096, TH_NIC_ACCESS_REMOTE_WRITE, &kb));
	d = thn_put_ct(ka.l, 0, 2, b.id, kb.r, 0, 4096, 3);
	ASSERT_EQ(0, thn_post(&a, &d, 1, NULL));
	/* the peer waiting on counter 3 fails instead of hanging */
	EXPECT_EQ(-EIO, thn_ct_wait(&b, 3, 1, THN_WAIT_MS * 1000000ULL, NULL));
	ASSERT_EQ(1, thn_cq_wait(&a, &cqe, 1, THN_WAIT_MS));
	EXPECT_EQ(-ETIMEDOUT, cqe.status);
	w.vport_too = true;
	w.vport = a.id;
	ASSERT_EQ(0, request(self->sk, self->family, TH_NL_CMD_VPORT_GET, 0,
			     put_where, &w, &self->r));
	EXPECT_EQ(3, stat_of(self->r.tb, TH_NL_STAT_FAULTS_DROPPED));
	EXPECT_EQ(2, stat_of(self->r.tb, TH_NL_STAT_RETRIES));
	EXPECT_EQ(1, stat_of(self->r.tb, TH_NL_STAT_TIMEOUTS));
	EXPECT_EQ(1, stat_of(self->r.tb, TH_NL_STAT_CHAINS_FAILED));
	f.drop = 0;
	ASSERT_EQ(0, request(self->sk, self->family, TH_NL_CMD_FAULT_SET, 0,
			     put_fault, &f, &self->r));
	/* a wrong key inside the domain: a violation, a puts the error state */
	d = thn_put_ct(ka.l, 0, 2, b.id, kb.r ^ 1, 0, 4096, 3);
	ASSERT_EQ(0, thn_post(&a, &d, 1, NULL));
	ASSERT_EQ(1, thn_cq_wait(&a, &cqe, 1, THN_WAIT_MS));
	EXPECT_EQ(-EACCES, cqe.status);
	ASSERT_EQ(0, request(self->sk, self->family, TH_NL_CMD_VPORT_GET, 0,
			     put_where, &w, &self->r));
	EXPECT_EQ(TH_NL_VPORT_ERROR, nla_get_u8(self->r.tb[TH_NL_A_STATE]));
	thn_vport_close(&a);
	thn_vport_close(&b);
	close(fd1);
	close(fd2);
	/* what the group said of node 1: a created, its loss, its error, gone */
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	ASSERT_NE(NULL, cb);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &er);
	nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, any_seq, NULL);
	for (i = 0; i < 50 && (ev.news < 1 || ev.dels < 1 || ev.faults < 1 ||
			       ev.errors < 1); i++) {
		if (nl_recvmsgs(mon, cb) < 0)
			thn_sleep_us(20000);
	}
	nl_cb_put(cb);
	reply_free(&er);
	nl_socket_free(mon);
	EXPECT_EQ(1, ev.news);
	EXPECT_EQ(1, ev.dels);
	EXPECT_EQ(1, ev.faults);
	EXPECT_EQ(1, ev.errors);
	munmap(src, 4096);
	munmap(dst, 4096);
}

TEST_HARNESS_MAIN
