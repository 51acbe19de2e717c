// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * device.c - device lists, provider choice, opening and querying a node,
 * and error strings.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "thverbs_priv.h"

/*
 * What TH_PROVIDER accepts, from the registration list: "kernel, inproc,
 * ofi or auto (...)", and why a provider this build lacks is not there.
 */
static void th_provider_accepted(char *buf, size_t len)
{
	size_t n = 0;
	unsigned int i;

	for (i = 0; i < th_nproviders; i++)
		if (th_providers[i].ops)
			n += snprintf(buf + n, n < len ? len - n : 0, "%s, ",
				      th_providers[i].name);
	if (n >= 2 && n < len)
		n -= 2;		/* the last ", " */
	n += snprintf(buf + n, n < len ? len - n : 0,
		      " or auto (auto, or unset: kernel when /dev/th_nic0 exists, else inproc");
	for (i = 0; i < th_nproviders; i++)
		if (!th_providers[i].ops)
			n += snprintf(buf + n, n < len ? len - n : 0,
				      "; this build has no %s: %s",
				      th_providers[i].name, th_providers[i].why);
	snprintf(buf + n, n < len ? len - n : 0, ")");
}

/* NULL for an unknown name; one taken from TH_PROVIDER is named on stderr. */
static const struct th_provider_ops *th_provider_by_name(const char *name)
{
	const struct th_provider_reg *reg;
	static bool said;
	bool from_env = false;
	char accepted[256];

	if (!name || !*name || !strcmp(name, "auto")) {
		name = getenv("TH_PROVIDER");
		from_env = true;
		if (!name || !*name || !strcmp(name, "auto"))
			name = access("/dev/th_nic0", F_OK) ? "inproc" : "kernel";
	}
	reg = th_provider_find(name);
	if (reg && reg->ops)
		return reg->ops;
	/* an argument is the caller's to report; the environment is ours */
	if (from_env) {
		th_provider_accepted(accepted, sizeof(accepted));
		th_env_complain(&said, "TH_PROVIDER", name, accepted);
	}
	return NULL;
}

struct th_device **th_device_list_get(const char *provider, int *num)
{
	const struct th_provider_ops *ops = th_provider_by_name(provider);
	struct th_device **list;
	int n, i;

	if (!ops) {
		errno = EINVAL;
		return NULL;
	}
	n = ops->count_nodes();
	if (n < 0) {
		errno = -n;
		return NULL;
	}
	list = calloc(n + 1, sizeof(*list));
	if (!list)
		return NULL;
	for (i = 0; i < n; i++) {
		list[i] = calloc(1, sizeof(**list));
		if (!list[i]) {
			th_device_list_free(list);
			errno = ENOMEM;
			return NULL;
		}
		list[i]->ops = ops;
		list[i]->node = i;
		snprintf(list[i]->name, sizeof(list[i]->name), "th_nic%d", i);
	}
	if (num)
		*num = n;
	return list;
}

void th_device_list_free(struct th_device **list)
{
	int i;

	if (!list)
		return;
	for (i = 0; list[i]; i++)
		free(list[i]);
	free(list);
}

const char *th_device_name(const struct th_device *dev)
{
	return dev->name;
}

const char *th_device_provider(const struct th_device *dev)
{
	return dev->ops->name;
}

uint32_t th_device_node(const struct th_device *dev)
{
	return dev->node;
}

struct th_context *th_device_open(struct th_device *dev)
{
	struct th_context *ctx = calloc(1, sizeof(*ctx));
	int ret;

	if (!ctx)
		return NULL;
	ctx->dev = *dev;
	ctx->fd = -1;
	ret = dev->ops->open(ctx);
	if (!ret)
		ret = dev->ops->query(ctx, &ctx->attr);
	if (ret) {
		if (ctx->priv || ctx->fd >= 0)
			dev->ops->close(ctx);
		free(ctx);
		errno = -ret;
		return NULL;
	}
	return ctx;
}

int th_device_close(struct th_context *ctx)
{
	if (!ctx)
		return -EINVAL;
	if (__atomic_load_n(&ctx->nvports, __ATOMIC_RELAXED))
		return -EBUSY;	/* destroy its vports first */
	ctx->dev.ops->close(ctx);
	free(ctx);
	return 0;
}

int th_device_query(struct th_context *ctx, struct th_nic_query *attr)
{
	return ctx->dev.ops->query(ctx, attr);
}

const char *th_refusal_str(unsigned int reason)
{
	static const char *const names[TH_NIC_REFUSE_MAX] = {
		[TH_NIC_REFUSE_NONE] = "not refused",
		[TH_NIC_REFUSE_OPCODE] = "unknown opcode",
		[TH_NIC_REFUSE_RESERVED] = "a reserved or unused field is not zero",
		[TH_NIC_REFUSE_FLAGS] = "a flag that is unknown or not allowed on this opcode",
		[TH_NIC_REFUSE_CHAIN] = "chain without an end, or longer than max_chain",
		[TH_NIC_REFUSE_TRIGGER] = "trigger counter out of range, or a trigger on a later descriptor",
		[TH_NIC_REFUSE_COUNTER] = "counter index out of range, or given without its flag",
		[TH_NIC_REFUSE_LKEY] = "local key unknown on this vport, or lacking the access",
		[TH_NIC_REFUSE_RANGE] = "offset and length outside the local region",
		[TH_NIC_REFUSE_ADDRESS] = "remote node, vport or range that cannot exist, or a key field this form does not use",
		[TH_NIC_REFUSE_INLINE] = "inline length 0 or too long, or data past the length",
		[TH_NIC_REFUSE_ALU] = "ALU operator, type, operand count or reduce flags not valid",
		[TH_NIC_REFUSE_ALIGN] = "reduce operand not aligned to its element",
		[TH_NIC_REFUSE_OVERLAP] = "reduce destination partially overlaps a source",
		[TH_NIC_REFUSE_CQ_FULL] = "the CQ has no room for the chain's completions yet",
		[TH_NIC_REFUSE_CQ_SIZE] = "the chain writes more entries than the CQ has",
		[TH_NIC_REFUSE_USER_CHAINS] = "this user's pending chains reached max_user_chains",
		[TH_NIC_REFUSE_NOMEM] = "no memory for the chain",
		[TH_NIC_REFUSE_VPORT_ERROR] = "the vport is in the error state",
		[TH_NIC_REFUSE_VPORT_GONE] = "the vport is being destroyed",
		[TH_NIC_REFUSE_REARM] = "REARM not last in its chain, or a stride of 0",
	};

	return reason < TH_NIC_REFUSE_MAX ? names[reason] : "unknown reason";
}

/*
 * Either sign: the library returns negative errnos, but errno itself and
 * what other libraries return are positive, and a caller who passed one
 * deserves its message rather than "not an error code".
 */
const char *th_strerror(int err)
{
	if (err > 0)
		err = -err;
	switch (err) {
	case 0:
		return "success";
	case -EINVAL:
		return "invalid argument or malformed descriptor (refused, nothing installed)";
	case -EAGAIN:
		return "completion queue has no room for this chain yet";
	case -ENOSPC:
		return "a limit of the NIC was reached";
	case -EACCES:
		return "memory key unknown or access denied (a remote one puts the initiator into the error state)";
	case -ECONNREFUSED:
		return "no such target vport in this domain (gone, never there, or another domain's)";
	case -ENOTCONN:
		return "the vport is in the error state after a remote access violation; destroy it";
	case -ERANGE:
		return "offset or length outside the memory region";
	case -EIO:
		return "the counter this waited on reported a failure";
	case -ECANCELED:
		return "cancelled (explicitly, or its vport was destroyed)";
	case -ETIMEDOUT:
		return "timed out";
	case -EOVERFLOW:
		return "a re-arming chain found no room in the CQ for its next round";
	default:
		return err != INT_MIN ? strerror(-err) : "not an error code";
	}
}
