// SPDX-License-Identifier: GPL-2.0
/*
 * th_netlink.c - th_nic's generic netlink family (uapi th_nic_netlink.h):
 * nodes, vports and their statistics, a vport's counters, fault injection,
 * and the events multicast group.
 *
 * Who sees what follows the kernel's rules for /proc: anyone lists the
 * vports with their owner and state, as anyone lists processes; a vport's
 * details (domain, rings, pending chains, memory, statistics) and its
 * counters are its owner's (same effective uid) or a CAP_NET_ADMIN
 * holder's, as /proc/PID/io is, judged as netlink_capable() judges: by
 * the socket's opener as well as by the task using it.  Setting fault injection takes
 * CAP_NET_ADMIN (GENL_ADMIN_PERM).  Dumps keep their place in the
 * callback's arguments, so they resume across messages.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/pid.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include "th_loc.h"

static struct th_fabric *th_nl_fab;
static struct genl_family th_nl_family;

enum th_nl_mcgrp { TH_NL_MCGRP_EVENTS_ID };

static const struct genl_multicast_group th_nl_mcgrps[] = {
	[TH_NL_MCGRP_EVENTS_ID] = { .name = TH_NL_MCGRP_EVENTS },
};

static struct netlink_range_validation th_nl_ppm_range = {
	.max = TH_ENG_FAULT_PPM,
};

static struct netlink_range_validation th_nl_ns_range = {
	.max = TH_ENG_FAULT_MAX_NS,
};

static const struct nla_policy th_nl_fault_policy[TH_NL_FAULT_MAX + 1] = {
	[TH_NL_FAULT_DROP_PPM]	= NLA_POLICY_FULL_RANGE(NLA_U32, &th_nl_ppm_range),
	[TH_NL_FAULT_DELAY_PPM]	= NLA_POLICY_FULL_RANGE(NLA_U32, &th_nl_ppm_range),
	[TH_NL_FAULT_DELAY_NS]	= NLA_POLICY_FULL_RANGE(NLA_U64, &th_nl_ns_range),
	[TH_NL_FAULT_RETRY_NS]	= NLA_POLICY_FULL_RANGE(NLA_U64, &th_nl_ns_range),
	[TH_NL_FAULT_RETRIES]	= NLA_POLICY_MAX(NLA_U32,
						 TH_ENG_FAULT_MAX_RETRIES),
	[TH_NL_FAULT_VPORT]	= { .type = NLA_U32 },
	[TH_NL_FAULT_SEED]	= { .type = NLA_U64 },
};

static const struct nla_policy th_nl_policy[TH_NL_A_MAX + 1] = {
	[TH_NL_A_NODE]		= { .type = NLA_U32 },
	[TH_NL_A_VPORT]		= { .type = NLA_U32 },
	[TH_NL_A_CT_FIRST]	= { .type = NLA_U32 },
	[TH_NL_A_CT_COUNT]	= { .type = NLA_U32 },
	[TH_NL_A_FAULT]		= NLA_POLICY_NESTED(th_nl_fault_policy),
};

/* ---- filling messages --------------------------------------------------- */

static int th_nl_put_stats(struct sk_buff *skb, const struct th_eng_stats *st)
{
	static const struct {
		u16 attr;
		size_t off;
	} map[] = {
		{ TH_NL_STAT_DOORBELLS, offsetof(struct th_eng_stats, doorbells) },
		{ TH_NL_STAT_CHAINS_POSTED, offsetof(struct th_eng_stats, chains_posted) },
		{ TH_NL_STAT_CHAINS_REFUSED, offsetof(struct th_eng_stats, chains_refused) },
		{ TH_NL_STAT_CHAINS_FIRED, offsetof(struct th_eng_stats, chains_fired) },
		{ TH_NL_STAT_CHAINS_DONE, offsetof(struct th_eng_stats, chains_done) },
		{ TH_NL_STAT_CHAINS_FAILED, offsetof(struct th_eng_stats, chains_failed) },
		{ TH_NL_STAT_CHAINS_CANCELLED, offsetof(struct th_eng_stats, chains_cancelled) },
		{ TH_NL_STAT_CHAINS_DEFERRED, offsetof(struct th_eng_stats, chains_deferred) },
		{ TH_NL_STAT_DESCS_RUN, offsetof(struct th_eng_stats, descs_run) },
		{ TH_NL_STAT_CQES, offsetof(struct th_eng_stats, cqes) },
		{ TH_NL_STAT_BYTES_PUT, offsetof(struct th_eng_stats, bytes_put) },
		{ TH_NL_STAT_BYTES_GOT, offsetof(struct th_eng_stats, bytes_got) },
		{ TH_NL_STAT_BYTES_COPIED, offsetof(struct th_eng_stats, bytes_copied) },
		{ TH_NL_STAT_BYTES_REDUCED, offsetof(struct th_eng_stats, alu_bytes) },
		{ TH_NL_STAT_VIOLATIONS, offsetof(struct th_eng_stats, violations) },
		{ TH_NL_STAT_FAULTS_DROPPED, offsetof(struct th_eng_stats, faults_dropped) },
		{ TH_NL_STAT_FAULTS_DELAYED, offsetof(struct th_eng_stats, faults_delayed) },
		{ TH_NL_STAT_RETRIES, offsetof(struct th_eng_stats, retries) },
		{ TH_NL_STAT_TIMEOUTS, offsetof(struct th_eng_stats, timeouts) },
		{ TH_NL_STAT_ROUNDS_PARKED, offsetof(struct th_eng_stats, rounds_parked) },
	};
	struct nlattr *nest = nla_nest_start(skb, TH_NL_A_STATS);
	size_t i;

	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < ARRAY_SIZE(map); i++) {
		u64 v = *(const u64 *)((const u8 *)st + map[i].off);

		if (nla_put_u64_64bit(skb, map[i].attr, v, TH_NL_STAT_PAD)) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* Vport @index of @node, referenced (th_vport_put()); NULL if none. */
static struct th_nic_vport *th_nl_vport_get(u32 node, u32 index)
{
	struct th_eng_vport *ev;

	ev = th_nl_fab->eng.ops->vport_get(th_nl_fab, node, index);
	return ev ? th_vport_from_ev(ev) : NULL;
}

/*
 * Is the requester @owner?  The kernel's rule for netlink_capable()
 * applied to the uid: both whoever opened the socket (its file's
 * credentials) and the task sending, unless the sender named a
 * destination (NETLINK_SKB_DST: a deliberate sendmsg, not a write() on a
 * descriptor it was handed).  A socket opened by one user and handed to a
 * root program (as its stdout, say) so gets the opener's rights, never
 * the program's: no confused deputy.  A socket with no file (a kernel
 * one) is nobody's.
 */
static bool th_nl_is_owner(const struct sk_buff *skb, kuid_t owner)
{
	const struct netlink_skb_parms *nsp = &NETLINK_CB(skb);
	const struct socket *sock = nsp->sk ? nsp->sk->sk_socket : NULL;
	bool opener = (nsp->flags & NETLINK_SKB_DST) ||
		      (sock && sock->file &&
		       uid_eq(sock->file->f_cred->euid, owner));

	return opener && uid_eq(current_euid(), owner);
}

/* Its owner, or an administrator: the rule of /proc/PID/io. */
static bool th_nl_may_see(const struct sk_buff *skb, struct th_nic_vport *vp)
{
	return th_nl_is_owner(skb, vp->user->uid) ||
	       netlink_capable(skb, CAP_NET_ADMIN);
}

static u64 th_nl_domain_label(struct th_nic_vport *vp)
{
	return vp->domain ? vp->domain->id : vp->user->domain.id;
}

/*
 * Node, vport, and its owner as the reader sees them; an event has no
 * reader yet (any task may send it): the initial namespaces' numbers.
 */
static int th_nl_put_owner(struct sk_buff *skb, struct th_nic_vport *vp,
			   bool event)
{
	pid_t pid = event ? pid_nr(vp->pid) : pid_vnr(vp->pid);
	uid_t uid = from_kuid_munged(event ? &init_user_ns : current_user_ns(),
				     vp->user->uid);

	if (nla_put_u32(skb, TH_NL_A_NODE, vp->ev.node) ||
	    nla_put_u32(skb, TH_NL_A_VPORT, vp->ev.index) ||
	    nla_put_u32(skb, TH_NL_A_PID, pid) ||
	    nla_put_u32(skb, TH_NL_A_UID, uid))
		return -EMSGSIZE;
	return 0;
}

static int th_nl_fill_vport(struct sk_buff *skb, struct th_nic_vport *vp,
			    bool details, u32 portid, u32 seq, int flags)
{
	struct th_eng_vport_info info;
	struct th_eng_stats st;
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &th_nl_family, flags,
			  TH_NL_CMD_VPORT_GET);
	if (!hdr)
		return -EMSGSIZE;
	th_eng_vport_info(&vp->ev, &info);
	if (nla_put_u32(skb, TH_NL_A_VERSION, TH_NL_VERSION) ||
	    th_nl_put_owner(skb, vp, false) ||
	    nla_put_u8(skb, TH_NL_A_STATE, info.state))
		goto cancel;
	if (details) {
		th_eng_stats_read(&vp->ev, &st);
		if (nla_put_u64_64bit(skb, TH_NL_A_DOMAIN, th_nl_domain_label(vp),
				      TH_NL_A_PAD) ||
		    nla_put_u32(skb, TH_NL_A_SQ_ENTRIES, info.sq_entries) ||
		    nla_put_u32(skb, TH_NL_A_CQ_ENTRIES, info.cq_entries) ||
		    nla_put_u32(skb, TH_NL_A_PENDING, info.pending) ||
		    nla_put_u32(skb, TH_NL_A_MRS, info.mrs) ||
		    nla_put_u64_64bit(skb, TH_NL_A_PINNED, info.pinned,
				      TH_NL_A_PAD) ||
		    th_nl_put_stats(skb, &st))
			goto cancel;
	}
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/* A node's totals: its destroyed vports' and its live ones'. */
static u32 th_nl_node_stats(u32 node, struct th_eng_stats *sum)
{
	struct th_eng_stats st;
	struct th_nic_vport *vp;
	u32 i, live = 0;

	th_eng_node_stats(&th_nl_fab->eng, node, sum);
	for (i = 0; i < th_nl_fab->eng.lim.max_vports; i++) {
		vp = th_nl_vport_get(node, i);
		if (!vp)
			continue;
		live++;
		th_eng_stats_read(&vp->ev, &st);
		th_vport_put(vp);
		th_eng_stats_add(sum, &st);
	}
	return live;
}

static int th_nl_fill_node(struct sk_buff *skb, u32 node, u32 portid, u32 seq,
			   int flags)
{
	struct th_eng_stats st;
	void *hdr;
	u32 live;

	hdr = genlmsg_put(skb, portid, seq, &th_nl_family, flags,
			  TH_NL_CMD_NODE_GET);
	if (!hdr)
		return -EMSGSIZE;
	live = th_nl_node_stats(node, &st);
	if (nla_put_u32(skb, TH_NL_A_VERSION, TH_NL_VERSION) ||
	    nla_put_u32(skb, TH_NL_A_NODE, node) ||
	    nla_put_u32(skb, TH_NL_A_NODES, th_nl_fab->eng.lim.nodes) ||
	    nla_put_u32(skb, TH_NL_A_VPORTS, live) ||
	    th_nl_put_stats(skb, &st)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static int th_nl_fill_fault(struct sk_buff *skb, u32 node, u32 portid,
			    u32 seq, int flags)
{
	struct th_eng_fault f;
	struct nlattr *nest;
	void *hdr;

	if (th_eng_fault_get(&th_nl_fab->eng, node, &f))
		return -EINVAL;
	hdr = genlmsg_put(skb, portid, seq, &th_nl_family, flags,
			  TH_NL_CMD_FAULT_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, TH_NL_A_VERSION, TH_NL_VERSION) ||
	    nla_put_u32(skb, TH_NL_A_NODE, node))
		goto cancel;
	nest = nla_nest_start(skb, TH_NL_A_FAULT);
	if (!nest ||
	    nla_put_u32(skb, TH_NL_FAULT_DROP_PPM, f.drop_ppm) ||
	    nla_put_u32(skb, TH_NL_FAULT_DELAY_PPM, f.delay_ppm) ||
	    nla_put_u64_64bit(skb, TH_NL_FAULT_DELAY_NS, f.delay_ns,
			      TH_NL_FAULT_PAD) ||
	    nla_put_u64_64bit(skb, TH_NL_FAULT_RETRY_NS, f.retry_ns,
			      TH_NL_FAULT_PAD) ||
	    nla_put_u32(skb, TH_NL_FAULT_RETRIES, f.retries) ||
	    nla_put_u32(skb, TH_NL_FAULT_VPORT, f.vport) ||
	    nla_put_u64_64bit(skb, TH_NL_FAULT_SEED, f.seed, TH_NL_FAULT_PAD))
		goto cancel;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/* ---- requests ------------------------------------------------------------- */

/* TH_NL_A_NODE, checked against the fabric. */
static int th_nl_node_attr(struct genl_info *info, u32 *node)
{
	if (GENL_REQ_ATTR_CHECK(info, TH_NL_A_NODE))
		return -EINVAL;
	*node = nla_get_u32(info->attrs[TH_NL_A_NODE]);
	if (*node >= th_nl_fab->eng.lim.nodes) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[TH_NL_A_NODE],
				    "no such node");
		return -ENODEV;
	}
	return 0;
}

/* Reply to @info with what @fill puts in a message of @size. */
static int th_nl_reply(struct genl_info *info, size_t size,
		       int (*fill)(struct sk_buff *skb, u32 node, u32 portid,
				   u32 seq, int flags),
		       u32 node)
{
	struct sk_buff *msg = genlmsg_new(size, GFP_KERNEL);
	int ret;

	if (!msg)
		return -ENOMEM;
	ret = fill(msg, node, info->snd_portid, info->snd_seq, 0);
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	return genlmsg_reply(msg, info);
}

static int th_nl_node_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	u32 node;
	int ret = th_nl_node_attr(info, &node);

	return ret ? ret : th_nl_reply(info, NLMSG_GOODSIZE, th_nl_fill_node,
				       node);
}

/* What @fill says of every node, from the one args[0] names on. */
static int th_nl_dump_nodes(struct sk_buff *skb, struct netlink_callback *cb,
			    int (*fill)(struct sk_buff *skb, u32 node,
					u32 portid, u32 seq, int flags))
{
	u32 node;

	for (node = cb->args[0]; node < th_nl_fab->eng.lim.nodes; node++) {
		if (fill(skb, node, NETLINK_CB(cb->skb).portid,
			 cb->nlh->nlmsg_seq, NLM_F_MULTI))
			break;
	}
	cb->args[0] = node;
	return skb->len;
}

static int th_nl_node_get_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb)
{
	return th_nl_dump_nodes(skb, cb, th_nl_fill_node);
}

static int th_nl_vport_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	struct th_nic_vport *vp;
	u32 node;
	int ret;

	ret = th_nl_node_attr(info, &node);
	if (ret)
		return ret;
	if (GENL_REQ_ATTR_CHECK(info, TH_NL_A_VPORT))
		return -EINVAL;
	vp = th_nl_vport_get(node, nla_get_u32(info->attrs[TH_NL_A_VPORT]));
	if (!vp)
		return -ENOENT;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	ret = msg ? th_nl_fill_vport(msg, vp, th_nl_may_see(skb, vp),
				     info->snd_portid, info->snd_seq, 0) :
		    -ENOMEM;
	th_vport_put(vp);
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	return genlmsg_reply(msg, info);
}

/*
 * Every vport, node by node (of TH_NL_A_NODE only, when given): args[0]
 * is the next node, args[1] the next vport index on it.
 */
static int th_nl_vport_get_dumpit(struct sk_buff *skb,
				  struct netlink_callback *cb)
{
	struct nlattr **attrs = th_genl_dump_attrs(cb);
	const struct th_eng_limits *lim = &th_nl_fab->eng.lim;
	u32 node = cb->args[0], index = cb->args[1], last = lim->nodes;
	struct th_nic_vport *vp;
	int ret = 0;

	if (attrs[TH_NL_A_NODE]) {
		last = nla_get_u32(attrs[TH_NL_A_NODE]);
		if (last >= lim->nodes)
			return -ENODEV;
		if (node < last)
			node = last;
		last++;
	}
	for (; node < last; node++, index = 0) {
		for (; index < lim->max_vports; index++) {
			vp = th_nl_vport_get(node, index);
			if (!vp)
				continue;
			ret = th_nl_fill_vport(skb, vp, th_nl_may_see(cb->skb, vp),
					       NETLINK_CB(cb->skb).portid,
					       cb->nlh->nlmsg_seq, NLM_F_MULTI);
			th_vport_put(vp);
			if (ret)
				goto out;
		}
	}
out:
	cb->args[0] = node;
	cb->args[1] = index;
	return skb->len;
}

static int th_nl_counters_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	u32 node, first = 0, count, i, max = th_nl_fab->eng.lim.max_counters;
	struct nlattr *list, *ct;
	struct sk_buff *msg;
	struct th_nic_vport *vp;
	void *hdr;
	int ret;

	ret = th_nl_node_attr(info, &node);
	if (ret)
		return ret;
	if (GENL_REQ_ATTR_CHECK(info, TH_NL_A_VPORT))
		return -EINVAL;
	if (info->attrs[TH_NL_A_CT_FIRST])
		first = nla_get_u32(info->attrs[TH_NL_A_CT_FIRST]);
	count = info->attrs[TH_NL_A_CT_COUNT] ?
		nla_get_u32(info->attrs[TH_NL_A_CT_COUNT]) : max;
	if (first >= max || count > max - first) {
		NL_SET_ERR_MSG(info->extack, "counters out of range");
		return -EINVAL;
	}
	vp = th_nl_vport_get(node, nla_get_u32(info->attrs[TH_NL_A_VPORT]));
	if (!vp)
		return -ENOENT;
	ret = -EPERM;
	if (!th_nl_may_see(skb, vp))
		goto out_put;
	ret = -ENOMEM;
	msg = genlmsg_new(128 + (size_t)count * 48, GFP_KERNEL);
	if (!msg)
		goto out_put;
	ret = -EMSGSIZE;
	hdr = genlmsg_put(msg, info->snd_portid, info->snd_seq, &th_nl_family,
			  0, TH_NL_CMD_COUNTERS_GET);
	if (!hdr || nla_put_u32(msg, TH_NL_A_VERSION, TH_NL_VERSION) ||
	    nla_put_u32(msg, TH_NL_A_NODE, node) ||
	    nla_put_u32(msg, TH_NL_A_VPORT, vp->ev.index))
		goto out_free;
	list = nla_nest_start(msg, TH_NL_A_COUNTERS);
	if (!list)
		goto out_free;
	for (i = first; i < first + count; i++) {
		ct = nla_nest_start(msg, TH_NL_A_COUNTER);
		if (!ct || nla_put_u32(msg, TH_NL_CT_INDEX, i) ||
		    nla_put_u64_64bit(msg, TH_NL_CT_SUCCESS,
				      READ_ONCE(vp->ev.cts[i].success),
				      TH_NL_CT_PAD) ||
		    nla_put_u64_64bit(msg, TH_NL_CT_FAILURE,
				      READ_ONCE(vp->ev.cts[i].failure),
				      TH_NL_CT_PAD))
			goto out_free;
		nla_nest_end(msg, ct);
	}
	nla_nest_end(msg, list);
	genlmsg_end(msg, hdr);
	th_vport_put(vp);
	return genlmsg_reply(msg, info);

out_free:
	nlmsg_free(msg);
out_put:
	th_vport_put(vp);
	return ret;
}

static int th_nl_fault_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	u32 node;
	int ret = th_nl_node_attr(info, &node);

	return ret ? ret : th_nl_reply(info, NLMSG_GOODSIZE, th_nl_fill_fault,
				       node);
}

static int th_nl_fault_get_dumpit(struct sk_buff *skb,
				  struct netlink_callback *cb)
{
	return th_nl_dump_nodes(skb, cb, th_nl_fill_fault);
}

static int th_nl_fault_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[TH_NL_FAULT_MAX + 1];
	struct th_eng_fault f = { .vport = TH_ENG_FAULT_ANY };
	u32 node;
	int ret;

	ret = th_nl_node_attr(info, &node);
	if (ret)
		return ret;
	if (GENL_REQ_ATTR_CHECK(info, TH_NL_A_FAULT))
		return -EINVAL;
	ret = nla_parse_nested(tb, TH_NL_FAULT_MAX, info->attrs[TH_NL_A_FAULT],
			       th_nl_fault_policy, info->extack);
	if (ret)
		return ret;
	if (tb[TH_NL_FAULT_DROP_PPM])
		f.drop_ppm = nla_get_u32(tb[TH_NL_FAULT_DROP_PPM]);
	if (tb[TH_NL_FAULT_DELAY_PPM])
		f.delay_ppm = nla_get_u32(tb[TH_NL_FAULT_DELAY_PPM]);
	if (tb[TH_NL_FAULT_DELAY_NS])
		f.delay_ns = nla_get_u64(tb[TH_NL_FAULT_DELAY_NS]);
	if (tb[TH_NL_FAULT_RETRY_NS])
		f.retry_ns = nla_get_u64(tb[TH_NL_FAULT_RETRY_NS]);
	if (tb[TH_NL_FAULT_RETRIES])
		f.retries = nla_get_u32(tb[TH_NL_FAULT_RETRIES]);
	if (tb[TH_NL_FAULT_VPORT])
		f.vport = nla_get_u32(tb[TH_NL_FAULT_VPORT]);
	if (tb[TH_NL_FAULT_SEED])
		f.seed = nla_get_u64(tb[TH_NL_FAULT_SEED]);
	ret = th_eng_fault_set(&th_nl_fab->eng, node, &f);
	if (ret)
		NL_SET_ERR_MSG(info->extack,
			       "rates above 10^6 in all, times above 10^8 ns, more than 16 retries or no such vport");
	return ret;
}

static const struct genl_ops th_nl_ops[] = {
	{
		.cmd = TH_NL_CMD_NODE_GET,
		.doit = th_nl_node_get_doit,
		.dumpit = th_nl_node_get_dumpit,
	},
	{
		.cmd = TH_NL_CMD_VPORT_GET,
		.doit = th_nl_vport_get_doit,
		.dumpit = th_nl_vport_get_dumpit,
	},
	{
		.cmd = TH_NL_CMD_COUNTERS_GET,
		.doit = th_nl_counters_get_doit,
	},
	{
		.cmd = TH_NL_CMD_FAULT_GET,
		.doit = th_nl_fault_get_doit,
		.dumpit = th_nl_fault_get_dumpit,
	},
	{
		.cmd = TH_NL_CMD_FAULT_SET,
		.doit = th_nl_fault_set_doit,
		.flags = GENL_ADMIN_PERM,
	},
};

static struct genl_family th_nl_family = {
	.name = TH_NL_FAMILY_NAME,
	.version = TH_NL_VERSION,
	.maxattr = TH_NL_A_MAX,
	.policy = th_nl_policy,
	.module = THIS_MODULE,
	.ops = th_nl_ops,
	.n_ops = ARRAY_SIZE(th_nl_ops),
	/* every command validates strictly: header, types, lengths */
	.resv_start_op = TH_NL_CMD_NODE_GET,
	.mcgrps = th_nl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(th_nl_mcgrps),
};

/* ---- events --------------------------------------------------------------- */

/*
 * Tell the events group that @event happened on @vp; nothing when nobody
 * listens.  Any context: the message is allocated atomically.  A
 * notification that cannot be built is not lost silently: every listener
 * gets ENOBUFS on its socket, as for one its socket had no room for, and
 * knows to read the state again.
 */
void th_netlink_vport_event(struct th_nic_vport *vp, u8 event, int err)
{
	struct sk_buff *msg;
	void *hdr;

	if (!th_nl_fab ||
	    !genl_has_listeners(&th_nl_family, &init_net, TH_NL_MCGRP_EVENTS_ID))
		return;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_ATOMIC);
	if (!msg)
		goto lost;
	hdr = genlmsg_put(msg, 0, 0, &th_nl_family, 0, TH_NL_CMD_EVENT);
	if (!hdr || nla_put_u32(msg, TH_NL_A_VERSION, TH_NL_VERSION) ||
	    nla_put_u8(msg, TH_NL_A_EVENT, event) ||
	    th_nl_put_owner(msg, vp, true) ||
	    (err && nla_put_s32(msg, TH_NL_A_ERROR, err))) {
		nlmsg_free(msg);
		goto lost;
	}
	genlmsg_end(msg, hdr);
	genlmsg_multicast(&th_nl_family, msg, 0, TH_NL_MCGRP_EVENTS_ID,
			  GFP_ATOMIC);
	return;
lost:
	genl_set_err(&th_nl_family, &init_net, 0, TH_NL_MCGRP_EVENTS_ID,
		     -ENOBUFS);
}

int th_netlink_register(struct th_fabric *fab)
{
	int ret;

	th_nl_fab = fab;
	ret = genl_register_family(&th_nl_family);
	if (ret)
		th_nl_fab = NULL;
	return ret;
}

void th_netlink_unregister(void)
{
	genl_unregister_family(&th_nl_family);
	th_nl_fab = NULL;
}
