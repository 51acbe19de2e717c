/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * nl.h - thctl's client of th_nic.ko's generic netlink family (uapi
 * th_nic_netlink.h), on libnl-genl-3: requests, dumps, the events group,
 * and the statistics' names, shared by every management command.
 */
#ifndef THCTL_NL_H
#define THCTL_NL_H

#include <stdbool.h>
#include <stdint.h>

#include <netlink/genl/genl.h>
#include <linux/th_nic_netlink.h>

/* How long a request waits for the kernel's answer before -ETIMEDOUT. */
#define TH_NL_REPLY_SECS	10

struct thnl {
	struct nl_sock *sk;
	int family;
	int err;		/* the kernel's errno for the last request */
};

/*
 * Connect and resolve the family: 0, or a negative errno (-ENOENT: the
 * family is not registered, th_nic.ko is not loaded).
 */
int thnl_open(struct thnl *n);
void thnl_close(struct thnl *n);

/* Adds a request's attributes; returns 0 or a negative errno. */
typedef int (*thnl_put_fn)(struct nl_msg *msg, void *arg);
/* One reply message's top-level attributes; non-zero stops. */
typedef int (*thnl_reply_fn)(struct nlattr **tb, void *arg);

/*
 * Send @cmd (a dump with @dump) with what @put adds, and hand every reply
 * to @reply.  Returns 0 or the kernel's negative errno.
 */
int thnl_request(struct thnl *n, uint8_t cmd, bool dump, thnl_put_fn put,
		 void *put_arg, thnl_reply_fn reply, void *reply_arg);

/*
 * Join the events group and hand each event to @reply until it returns
 * non-zero, @count events came (0: no limit) or @timeout_ms passed
 * without one (negative: none).  When the kernel dropped events (its
 * queue or an allocation failed: ENOBUFS on the socket) @reply gets NULL
 * attributes once, so that nothing is lost silently.  Returns 0 or a
 * negative errno.
 */
int thnl_monitor(struct thnl *n, unsigned int count, int timeout_ms,
		 thnl_reply_fn reply, void *reply_arg);

struct th_fault;
/*
 * Set node @node's fault injection (struct th_fault, as the in-process
 * provider's th_fault_set() takes it): 0 or the kernel's negative errno
 * (-EPERM without CAP_NET_ADMIN).
 */
int thnl_fault_set(struct thnl *n, uint32_t node, const struct th_fault *f);

/* The statistics' JSON keys and labels, by TH_NL_STAT_* (NULL: none). */
const char *thnl_stat_name(unsigned int attr);
/* "ok", "error" or "dead". */
const char *thnl_state_name(unsigned int state);
/* "vport-new" ... for enum th_nl_event. */
const char *thnl_event_name(unsigned int event);

/* A message for thnl_open()'s and thnl_request()'s errors. */
const char *thnl_strerror(int err);

#endif
