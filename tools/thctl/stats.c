// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * stats.c - what 'thctl post' and 'thctl demo' add with --stats and -j:
 * the in-process fabric's statistics per node (th_node_stats(), the keys
 * of th_nic_netlink.h's statistics), and their printed output captured
 * for the JSON document.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "thctl.h"
#include <thverbs/verbs.h>

static const struct {
	const char *name;
	size_t off;
} thctl_stat_fields[] = {
#define F(x) { #x, offsetof(struct th_stats, x) }
	F(doorbells), F(chains_posted), F(chains_refused), F(chains_fired),
	F(chains_done), F(chains_failed), F(chains_cancelled),
	F(chains_deferred), F(descs_run), F(cqes), F(bytes_put), F(bytes_got),
	F(bytes_copied), F(bytes_reduced), F(violations), F(faults_dropped),
	F(faults_delayed), F(retries), F(timeouts),
#undef F
};

#define THCTL_NFIELDS (sizeof(thctl_stat_fields) / sizeof(thctl_stat_fields[0]))

static uint64_t thctl_stat_at(const struct th_stats *st, unsigned int i)
{
	return *(const uint64_t *)((const char *)st + thctl_stat_fields[i].off);
}

/* Node @node's totals; -EOPNOTSUPP on th_nic.ko (thctl stat reads those). */
static int thctl_node_stats(struct th_device *dev, struct th_stats *st)
{
	struct th_context *ctx = th_device_open(dev);
	int ret;

	if (!ctx)
		return -errno;
	ret = th_node_stats(ctx, st);
	th_device_close(ctx);
	return ret;
}

void thctl_stats_print(struct th_device **devs, const bool *used,
		       unsigned int n)
{
	struct th_stats st;
	unsigned int node, i, shown;
	int ret;

	for (node = 0; node < n; node++) {
		if (!used[node])
			continue;
		ret = thctl_node_stats(devs[node], &st);
		if (ret == -EOPNOTSUPP) {
			printf("statistics: th_nic.ko's are read with 'thctl stat'\n");
			return;
		}
		if (ret)
			continue;
		printf("statistics of node %u:", node);
		for (i = 0, shown = 0; i < THCTL_NFIELDS; i++)
			if (thctl_stat_at(&st, i)) {
				printf(" %s %" PRIu64, thctl_stat_fields[i].name,
				       thctl_stat_at(&st, i));
				shown++;
			}
		printf("%s\n", shown ? "" : " all 0 (it only received)");
	}
}

void thctl_stats_json(struct tj *j, struct th_device **devs, const bool *used,
		      unsigned int n)
{
	struct th_stats st;
	unsigned int node, i;
	bool any = false;

	tj_key(j, "stats");
	for (node = 0; node < n; node++) {
		if (!used[node] || thctl_node_stats(devs[node], &st))
			continue;
		if (!any)
			tj_arr_begin(j);
		any = true;
		tj_obj_begin(j);
		tj_kv_u64(j, "node", node);
		for (i = 0; i < THCTL_NFIELDS; i++)
			tj_kv_u64(j, thctl_stat_fields[i].name, thctl_stat_at(&st, i));
		tj_obj_end(j);
	}
	if (any)
		tj_arr_end(j);
	else
		tj_null(j);	/* th_nic.ko: thctl stat */
}

/*
 * -j: what a command prints goes into a buffer instead, and ends up in
 * the document's "output", one string per line.
 */
int thctl_capture_begin(struct thctl_capture *c)
{
	c->buf = NULL;
	c->len = 0;
	c->saved = stdout;
	c->mem = open_memstream(&c->buf, &c->len);
	if (!c->mem)
		return -ENOMEM;
	stdout = c->mem;
	return 0;
}

void thctl_capture_end(struct thctl_capture *c, struct tj *j)
{
	char *line, *next;

	fflush(c->mem);
	stdout = c->saved;
	fclose(c->mem);
	tj_key(j, "output");
	tj_arr_begin(j);
	for (line = c->buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		tj_str(j, line);
	}
	tj_arr_end(j);
	free(c->buf);
}
