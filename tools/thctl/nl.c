// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * nl.c - thctl's generic netlink client (nl.h) on libnl-genl-3: one
 * socket, the family resolved by name, requests whose replies and errors
 * come back through callbacks, and the events group.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "nl.h"
#include <thverbs/verbs.h>

int thnl_open(struct thnl *n)
{
	memset(n, 0, sizeof(*n));
	n->sk = nl_socket_alloc();
	if (!n->sk)
		return -ENOMEM;
	if (genl_connect(n->sk)) {
		nl_socket_free(n->sk);
		n->sk = NULL;
		return -EPROTONOSUPPORT;
	}
	/*
	 * A request waits for its answer at most TH_NL_REPLY_SECS: a reply the
	 * kernel never sends is an error (-ETIMEDOUT), not a process asleep
	 * in recvmsg() forever.
	 */
	{
		struct timeval tv = { .tv_sec = TH_NL_REPLY_SECS };

		setsockopt(nl_socket_get_fd(n->sk), SOL_SOCKET, SO_RCVTIMEO,
			   &tv, sizeof(tv));
	}
	n->family = genl_ctrl_resolve(n->sk, TH_NL_FAMILY_NAME);
	if (n->family < 0) {
		nl_socket_free(n->sk);
		n->sk = NULL;
		return -ENOENT;
	}
	return 0;
}

void thnl_close(struct thnl *n)
{
	if (n->sk)
		nl_socket_free(n->sk);
	n->sk = NULL;
}

struct thnl_call {
	struct thnl *n;
	thnl_reply_fn reply;
	void *arg;
	int stop;
	bool done;	/* the request's ack, error or the dump's end came */
};

static int thnl_valid(struct nl_msg *msg, void *arg)
{
	struct thnl_call *c = arg;
	struct nlattr *tb[TH_NL_A_MAX + 1];

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, TH_NL_A_MAX, NULL))
		return NL_SKIP;	/* not ours to read: a newer family's */
	c->stop = c->reply ? c->reply(tb, c->arg) : 0;
	return c->stop ? NL_STOP : NL_OK;
}

static int thnl_error(struct sockaddr_nl *who, struct nlmsgerr *e, void *arg)
{
	struct thnl_call *c = arg;

	(void)who;
	c->n->err = e->error;
	c->done = true;
	return NL_STOP;
}

/*
 * The ack of a request, or the end of a dump: the exchange is over.  A
 * dump the kernel cut short (out of memory while filling a message) says
 * so in its NLMSG_DONE, whose payload is the error: libnl does not look,
 * and a short list must not pass for the whole one.
 */
static int thnl_done(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *h = nlmsg_hdr(msg);
	struct thnl_call *c = arg;
	int err;

	if (h->nlmsg_type == NLMSG_DONE && nlmsg_datalen(h) >= (int)sizeof(err)) {
		memcpy(&err, nlmsg_data(h), sizeof(err));
		if (err < 0)
			c->n->err = err;
	}
	c->done = true;
	return NL_STOP;
}

static struct nl_cb *thnl_cb(struct thnl_call *c)
{
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);

	if (!cb)
		return NULL;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, thnl_valid, c);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, thnl_done, c);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, thnl_done, c);
	nl_cb_err(cb, NL_CB_CUSTOM, thnl_error, c);
	return cb;
}

int thnl_request(struct thnl *n, uint8_t cmd, bool dump, thnl_put_fn put,
		 void *put_arg, thnl_reply_fn reply, void *reply_arg)
{
	struct thnl_call c = { .n = n, .reply = reply, .arg = reply_arg };
	struct nl_msg *msg = nlmsg_alloc();
	struct nl_cb *cb = thnl_cb(&c);
	int ret = -ENOMEM;

	n->err = 0;
	if (!msg || !cb)
		goto out;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, n->family, 0,
			 dump ? NLM_F_DUMP : 0, cmd, TH_NL_VERSION))
		goto out;
	ret = put ? put(msg, put_arg) : 0;
	if (ret)
		goto out;
	ret = nl_send_auto(n->sk, msg);
	if (ret < 0) {
		ret = -EIO;
		goto out;
	}
	/*
	 * Until the dump's end, or the request's ack or error: a reply and
	 * its ack may come in two reads, and an ack left unread would be
	 * taken for the next request's answer.
	 */
	do {
		ret = nl_recvmsgs(n->sk, cb);
	} while (ret >= 0 && !c.done && !c.stop);
	if (n->err)
		ret = n->err;
	else if (ret == -NLE_AGAIN)	/* no answer in TH_NL_REPLY_SECS */
		ret = -ETIMEDOUT;
	else if (ret < 0 && !c.stop)	/* ENOBUFS: a reply or ack was lost */
		ret = ret == -NLE_NOMEM ? -ENOBUFS : -EIO;
	else
		ret = 0;
out:
	nlmsg_free(msg);
	nl_cb_put(cb);
	return ret;
}

static int thnl_any_seq(struct nl_msg *msg, void *arg)
{
	(void)msg;
	(void)arg;
	return NL_OK;
}

int thnl_monitor(struct thnl *n, unsigned int count, int timeout_ms,
		 thnl_reply_fn reply, void *reply_arg)
{
	struct thnl_call c = { .n = n, .reply = reply, .arg = reply_arg };
	struct nl_cb *cb;
	struct pollfd pfd;
	unsigned int seen = 0;
	int grp, ret;

	grp = genl_ctrl_resolve_grp(n->sk, TH_NL_FAMILY_NAME, TH_NL_MCGRP_EVENTS);
	if (grp < 0)
		return -ENOENT;
	if (nl_socket_add_membership(n->sk, grp))
		return -EPERM;
	cb = thnl_cb(&c);
	if (!cb)
		return -ENOMEM;
	/* events carry no sequence number of ours */
	nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, thnl_any_seq, NULL);
	pfd.fd = nl_socket_get_fd(n->sk);
	pfd.events = POLLIN;
	ret = 0;
	while (!c.stop && (!count || seen < count)) {
		ret = poll(&pfd, 1, timeout_ms);
		if (ret < 0 && errno == EINTR) {
			ret = 0;
			break;
		}
		if (ret <= 0) {
			ret = ret < 0 ? -errno : 0;
			break;		/* quiet for @timeout_ms */
		}
		ret = nl_recvmsgs(n->sk, cb);
		if (ret == -NLE_NOMEM) {
			/* ENOBUFS: the kernel dropped events; say so */
			c.stop = reply(NULL, reply_arg);
		} else if (ret < 0) {
			ret = -EIO;
			break;
		}
		ret = 0;
		seen++;
	}
	nl_cb_put(cb);
	return ret;
}

struct thnl_fault_req {
	uint32_t node;
	const struct th_fault *f;
};

static int thnl_put_fault(struct nl_msg *msg, void *arg)
{
	const struct thnl_fault_req *r = arg;
	const struct th_fault *f = r->f;
	struct nlattr *nest;

	if (nla_put_u32(msg, TH_NL_A_NODE, r->node))
		return -EMSGSIZE;
	nest = nla_nest_start(msg, TH_NL_A_FAULT);
	if (!nest ||
	    nla_put_u32(msg, TH_NL_FAULT_DROP_PPM, f->drop_ppm) ||
	    nla_put_u32(msg, TH_NL_FAULT_DELAY_PPM, f->delay_ppm) ||
	    nla_put_u64(msg, TH_NL_FAULT_DELAY_NS, f->delay_ns) ||
	    nla_put_u64(msg, TH_NL_FAULT_RETRY_NS, f->retry_ns) ||
	    nla_put_u32(msg, TH_NL_FAULT_RETRIES, f->retries) ||
	    (f->vport != TH_FAULT_ANY_VPORT &&
	     nla_put_u32(msg, TH_NL_FAULT_VPORT, f->vport)) ||
	    nla_put_u64(msg, TH_NL_FAULT_SEED, f->seed))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

int thnl_fault_set(struct thnl *n, uint32_t node, const struct th_fault *f)
{
	struct thnl_fault_req r = { .node = node, .f = f };

	return thnl_request(n, TH_NL_CMD_FAULT_SET, false, thnl_put_fault, &r,
			    NULL, NULL);
}

const char *thnl_stat_name(unsigned int attr)
{
	static const char *const names[TH_NL_STAT_MAX + 1] = {
		[TH_NL_STAT_DOORBELLS] = "doorbells",
		[TH_NL_STAT_CHAINS_POSTED] = "chains_posted",
		[TH_NL_STAT_CHAINS_REFUSED] = "chains_refused",
		[TH_NL_STAT_CHAINS_FIRED] = "chains_fired",
		[TH_NL_STAT_CHAINS_DONE] = "chains_done",
		[TH_NL_STAT_CHAINS_FAILED] = "chains_failed",
		[TH_NL_STAT_CHAINS_CANCELLED] = "chains_cancelled",
		[TH_NL_STAT_CHAINS_DEFERRED] = "chains_deferred",
		[TH_NL_STAT_DESCS_RUN] = "descs_run",
		[TH_NL_STAT_CQES] = "cqes",
		[TH_NL_STAT_BYTES_PUT] = "bytes_put",
		[TH_NL_STAT_BYTES_GOT] = "bytes_got",
		[TH_NL_STAT_BYTES_COPIED] = "bytes_copied",
		[TH_NL_STAT_BYTES_REDUCED] = "bytes_reduced",
		[TH_NL_STAT_VIOLATIONS] = "violations",
		[TH_NL_STAT_FAULTS_DROPPED] = "faults_dropped",
		[TH_NL_STAT_FAULTS_DELAYED] = "faults_delayed",
		[TH_NL_STAT_RETRIES] = "retries",
		[TH_NL_STAT_TIMEOUTS] = "timeouts",
		[TH_NL_STAT_ROUNDS_PARKED] = "rounds_parked",
	};

	return attr <= TH_NL_STAT_MAX ? names[attr] : NULL;
}

const char *thnl_state_name(unsigned int state)
{
	switch (state) {
	case TH_NL_VPORT_OK:
		return "ok";
	case TH_NL_VPORT_ERROR:
		return "error";
	case TH_NL_VPORT_DEAD:
		return "dead";
	}
	return "unknown";
}

const char *thnl_event_name(unsigned int event)
{
	switch (event) {
	case TH_NL_EVENT_VPORT_NEW:
		return "vport-new";
	case TH_NL_EVENT_VPORT_DEL:
		return "vport-del";
	case TH_NL_EVENT_VPORT_ERROR:
		return "vport-error";
	case TH_NL_EVENT_FAULT:
		return "fault";
	}
	return "unknown";
}

const char *thnl_strerror(int err)
{
	switch (err) {
	case -ENOENT:
		return "no such vport, or th_nic.ko is not loaded (no th_nic netlink family)";
	case -EPERM:
		return "not permitted: the vport is another user's, or the change needs CAP_NET_ADMIN";
	case -ENODEV:
		return "no such node";
	}
	return strerror(-err);
}
