/* SPDX-License-Identifier: GPL-2.0 */
/*
 * th_nl_util.h - header-only libnl client of th_nic's generic netlink
 * family for the kselftests (netlink_test, fail_nth_test): requests whose
 * replies land in a struct reply (the last message's attributes kept),
 * the ack waited for, and the attributes tests put and read.
 */
#ifndef TH_NL_UTIL_H
#define TH_NL_UTIL_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <linux/th_nic_netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>

struct reply {
	int err;			/* the kernel's, or 0 */
	bool done;			/* ack, error or end of dump came */
	unsigned int n;			/* messages */
	struct nlattr *tb[TH_NL_A_MAX + 1];
	struct nl_msg *last;		/* kept for @tb */
	int (*each)(struct nlattr **tb, void *arg);
	void *arg;
};

static inline int on_valid(struct nl_msg *msg, void *arg)
{
	struct reply *r = arg;

	if (r->last)
		nlmsg_free(r->last);
	nlmsg_get(msg);
	r->last = msg;
	if (genlmsg_parse(nlmsg_hdr(msg), 0, r->tb, TH_NL_A_MAX, NULL))
		return NL_SKIP;
	r->n++;
	if (r->each && r->each(r->tb, r->arg))
		return NL_STOP;
	return NL_OK;
}

static inline int on_error(struct sockaddr_nl *who, struct nlmsgerr *e, void *arg)
{
	struct reply *r = arg;

	(void)who;
	r->err = e->error;
	r->done = true;
	return NL_STOP;
}

/* The ack, or the end of a dump with its error (libnl ignores it). */
static inline int on_done(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *h = nlmsg_hdr(msg);
	struct reply *r = arg;
	int err;

	if (h->nlmsg_type == NLMSG_DONE && nlmsg_datalen(h) >= (int)sizeof(err)) {
		memcpy(&err, nlmsg_data(h), sizeof(err));
		if (err < 0)
			r->err = err;
	}
	r->done = true;
	return NL_STOP;
}

typedef int (*put_fn)(struct nl_msg *msg, void *arg);

/*
 * The callbacks that gather a request's replies into @r (reset here), or
 * NULL without memory: request() and the tests that send their own way.
 */
static inline struct nl_cb *reply_cb(struct reply *r)
{
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);

	if (!cb)
		return NULL;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, r);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_done, r);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, on_done, r);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, r);
	r->err = 0;
	r->n = 0;
	r->done = false;
	return cb;
}

/* Send @cmd with what @put adds; the replies land in @r. */
static inline int request(struct nl_sock *sk, int family, uint8_t cmd, int flags,
		   put_fn put, void *parg, struct reply *r)
{
	struct nl_msg *msg = nlmsg_alloc();
	struct nl_cb *cb = reply_cb(r);
	int ret = -ENOMEM;

	if (!msg || !cb)
		goto out;
	ret = -EMSGSIZE;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, flags, cmd,
			 TH_NL_VERSION))
		goto out;
	if (put && put(msg, parg))
		goto out;
	ret = nl_send_auto(sk, msg);
	if (ret < 0) {
		ret = ret == -NLE_NOMEM ? -ENOMEM : -EIO;
		goto out;
	}
	/*
	 * The reply and its ack may come in two reads: wait for the ack.  A
	 * read that fails ends the wait: ENOBUFS (NLE_NOMEM) when the kernel
	 * could not queue a reply, an ack or the next part of a dump.
	 */
	ret = 0;
	while (!r->done && ret >= 0)
		ret = nl_recvmsgs(sk, cb);
	if (r->err || r->done)
		ret = r->err;
	else
		ret = ret == -NLE_NOMEM ? -ENOBUFS : -EIO;
out:
	nlmsg_free(msg);
	nl_cb_put(cb);
	return ret;
}

static inline void reply_free(struct reply *r)
{
	if (r->last)
		nlmsg_free(r->last);
	r->last = NULL;
}

struct where {
	uint32_t node, vport;
	bool vport_too;
};

static inline int put_where(struct nl_msg *msg, void *arg)
{
	struct where *w = arg;

	if (nla_put_u32(msg, TH_NL_A_NODE, w->node))
		return -1;
	return w->vport_too ? nla_put_u32(msg, TH_NL_A_VPORT, w->vport) : 0;
}

static inline uint64_t stat_of(struct nlattr **tb, int which)
{
	struct nlattr *st[TH_NL_STAT_MAX + 1];

	if (!tb[TH_NL_A_STATS] ||
	    nla_parse_nested(st, TH_NL_STAT_MAX, tb[TH_NL_A_STATS], NULL) ||
	    !st[which])
		return UINT64_MAX;
	return nla_get_u64(st[which]);
}

/* A FAULT_SET request: drop rate, retries and their timeout on a node. */
struct fault_req {
	uint32_t node;
	uint32_t drop, retries;
	uint64_t retry_ns;
};

static inline int put_fault(struct nl_msg *msg, void *arg)
{
	struct fault_req *f = arg;
	struct nlattr *nest;

	if (nla_put_u32(msg, TH_NL_A_NODE, f->node))
		return -1;
	nest = nla_nest_start(msg, TH_NL_A_FAULT);
	if (!nest || nla_put_u32(msg, TH_NL_FAULT_DROP_PPM, f->drop) ||
	    nla_put_u32(msg, TH_NL_FAULT_RETRIES, f->retries) ||
	    nla_put_u64(msg, TH_NL_FAULT_RETRY_NS, f->retry_ns))
		return -1;
	nla_nest_end(msg, nest);
	return 0;
}

static inline int connect_family(struct nl_sock **sk, int *family)
{
	*sk = nl_socket_alloc();
	if (!*sk || genl_connect(*sk))
		return -1;
	*family = genl_ctrl_resolve(*sk, TH_NL_FAMILY_NAME);
	return *family < 0 ? -1 : 0;
}

#endif /* TH_NL_UTIL_H */
