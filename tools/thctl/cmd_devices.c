// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * cmd_devices.c - 'thctl devices', 'thctl info NODE' and 'thctl counters
 * NODE VPORT': what a provider's nodes are and what they allow.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "thverbs.h"
#include "thctl.h"

#define PROVIDER_HELP \
	"  --provider P   kernel (/dev/th_nic*), inproc (a fabric inside this\n" \
	"                 process) or auto (default: $TH_PROVIDER, else kernel\n" \
	"                 if /dev/th_nic0 exists, else inproc)\n"

/*
 * Common option parsing: --provider and -h; the rest are positional
 * arguments, returned in @pos.  Returns -1 to exit 0 (help shown), -2 on a
 * usage error, else the number of positional arguments.
 */
static int dev_args(int argc, char **argv, const char **provider,
		    char **pos, int max_pos, const char **cts,
		    void (*usage)(FILE *f))
{
	int i, n = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return -1;
		} else if (!strcmp(argv[i], "--provider") && i + 1 < argc) {
			*provider = argv[++i];
		} else if (!strncmp(argv[i], "--provider=", 11)) {
			*provider = argv[i] + 11;
		} else if (cts && !strcmp(argv[i], "--cts") && i + 1 < argc) {
			*cts = argv[++i];
		} else if (argv[i][0] == '-' || n == max_pos) {
			fprintf(stderr, "thctl %s: unexpected argument '%s'\n",
				argv[0], argv[i]);
			usage(stderr);
			return -2;
		} else {
			pos[n++] = argv[i];
		}
	}
	if (*provider && strcmp(*provider, "kernel") &&
	    strcmp(*provider, "inproc") && strcmp(*provider, "auto")) {
		fprintf(stderr, "thctl %s: unknown provider '%s': expected kernel, inproc or auto\n",
			argv[0], *provider);
		return -2;
	}
	return n;
}

static struct th_device **dev_list(const char *cmd, const char *provider,
				   int *n)
{
	struct th_device **list = th_get_device_list(provider, n);

	if (!list)
		fprintf(stderr, "thctl %s: no th_nic nodes (provider %s): %s\n",
			cmd, provider ? provider : "auto", th_strerror(-errno));
	return list;
}

/* A whole-string unsigned number below @limit, or -1 with a message. */
static long dev_index(const char *cmd, const char *what, const char *s,
		      unsigned long limit)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (*s < '0' || *s > '9' || *end || errno) {
		fprintf(stderr, "thctl %s: expected a %s number, got '%s'\n",
			cmd, what, s);
		return -1;
	}
	if (v >= limit) {
		fprintf(stderr, "thctl %s: unknown %s %lu: there are %lu (0-%lu)\n",
			cmd, what, v, limit, limit - 1);
		return -1;
	}
	return v;
}

/* ---- devices -------------------------------------------------------- */

static void devices_usage(FILE *f)
{
	fprintf(f,
		"usage: thctl devices [--provider kernel|inproc|auto]\n\n"
		"List the nodes of a provider: one line per node with its name, node\n"
		"number and provider.  The inproc provider has $TH_INPROC_NODES nodes\n"
		"(default 16) that exist only inside the calling process.\n\n"
		PROVIDER_HELP "\n"
		"Exit status: 0 listed, 1 the provider has no nodes or failed,\n"
		"2 usage error.\n");
}

int thctl_devices_main(int argc, char **argv)
{
	const char *provider = NULL;
	struct th_device **list;
	int i, n = 0;

	i = dev_args(argc, argv, &provider, NULL, 0, NULL, devices_usage);
	if (i < 0)
		return i == -1 ? THCTL_EXIT_OK : THCTL_EXIT_USAGE;
	list = dev_list("devices", provider, &n);
	if (!list)
		return THCTL_EXIT_FAIL;
	for (i = 0; i < n; i++)
		printf("%-10s node %-5u provider %s\n", th_device_name(list[i]),
		       th_device_node(list[i]), th_device_provider(list[i]));
	th_free_device_list(list);
	return n ? THCTL_EXIT_OK : THCTL_EXIT_FAIL;
}

/* ---- info ------------------------------------------------------------ */

static void info_usage(FILE *f)
{
	fprintf(f,
		"usage: thctl info [--provider kernel|inproc|auto] NODE\n\n"
		"Open NODE and print its QUERY answer: ABI version, node id and count,\n"
		"the limits (vports, counters, SQ and CQ sizes, chain length, MRs and\n"
		"their size, ALU operands, inline bytes) and feature bits.  Creates\n"
		"nothing on the node.\n\n"
		PROVIDER_HELP "\n"
		"Exit status: 0 printed, 1 the node could not be opened or queried,\n"
		"2 usage error or an unknown NODE.\n");
}

static int dev_open(const char *cmd, const char *provider, const char *node_s,
		    struct th_device ***list, struct th_context **ctx,
		    struct th_nic_query *q, long *node)
{
	int n = 0;

	*list = dev_list(cmd, provider, &n);
	if (!*list)
		return THCTL_EXIT_FAIL;
	*node = dev_index(cmd, "node", node_s, n);
	if (*node < 0) {
		th_free_device_list(*list);
		return THCTL_EXIT_USAGE;
	}
	*ctx = th_open_device((*list)[*node]);
	if (!*ctx || th_query_device(*ctx, q)) {
		fprintf(stderr, "thctl %s: node %ld: %s\n", cmd, *node,
			th_strerror(-errno));
		if (*ctx)
			th_close_device(*ctx);
		th_free_device_list(*list);
		return THCTL_EXIT_FAIL;
	}
	return 0;
}

int thctl_info_main(int argc, char **argv)
{
	struct th_nic_query q = { .size = sizeof(q) };
	const char *provider = NULL;
	struct th_device **list;
	struct th_context *ctx;
	char *pos[1];
	long node;
	int ret;

	ret = dev_args(argc, argv, &provider, pos, 1, NULL, info_usage);
	if (ret < 0)
		return ret == -1 ? THCTL_EXIT_OK : THCTL_EXIT_USAGE;
	if (ret != 1) {
		info_usage(stderr);
		return THCTL_EXIT_USAGE;
	}
	ret = dev_open("info", provider, pos[0], &list, &ctx, &q, &node);
	if (ret)
		return ret;
	printf("node            %u of %u (%s, provider %s)\n", q.node_id,
	       q.node_count, th_device_name(list[node]),
	       th_device_provider(list[node]));
	printf("abi_version     %u\n", q.abi_version);
	printf("max_vports      %u\n", q.max_vports);
	printf("max_counters    %u (per vport)\n", q.max_counters);
	printf("max_sq_entries  %u\n", q.max_sq_entries);
	printf("max_cq_entries  %u\n", q.max_cq_entries);
	printf("max_chain       %u (descriptors per chain)\n", q.max_chain);
	printf("max_mrs         %u (per vport)\n", q.max_mrs);
	printf("max_mr_size     %llu\n", (unsigned long long)q.max_mr_size);
	printf("max_operands    %u\n", q.max_operands);
	printf("max_inline      %u\n", q.max_inline);
	printf("desc_size       %u\n", q.desc_size);
	printf("cqe_size        %u\n", q.cqe_size);
	printf("max_user_vports %u (per user, whole fabric)\n",
	       q.max_user_vports);
	printf("max_user_chains %u (pending, per user)\n", q.max_user_chains);
	printf("features       %s%s%s%s%s\n",
	       q.features & TH_NIC_FEAT_REDUCE_STRIDED ? " reduce_strided" : "",
	       q.features & TH_NIC_FEAT_FLOAT_ALU ? " float_alu" : "",
	       q.features & TH_NIC_FEAT_INPROC ? " inproc" : "",
	       q.features & TH_NIC_FEAT_DOMAIN_FD ? " domain_fd" : "",
	       q.features ? "" : " none");
	th_close_device(ctx);
	th_free_device_list(list);
	return THCTL_EXIT_OK;
}

/* ---- counters -------------------------------------------------------- */

static void counters_usage(FILE *f)
{
	fprintf(f,
		"usage: thctl counters [--provider kernel|inproc|auto] [--cts FIRST-LAST]\n"
		"                      NODE VPORT\n\n"
		"What this can show, honestly: a vport and its counter page belong to\n"
		"the open file (the process) that created it; the page is mapped only\n"
		"into that process, and the inproc fabric exists only inside one\n"
		"process.  So another process, such as this one, cannot read the\n"
		"counters of a running program's vport.  This command opens NODE,\n"
		"creates nothing, checks that VPORT and the counter range exist on\n"
		"it, and prints the node's counter limits and how to see the values:\n"
		"from the owning program (th_ct_read(3)), or with 'print counters'\n"
		"in a chain file run by 'thctl post'.\n\n"
		PROVIDER_HELP
		"  --cts A-B      the counter range to check (default 0-7)\n\n"
		"Exit status: 0 NODE, VPORT and the range exist; 1 the node could not\n"
		"be opened; 2 usage error, unknown NODE, VPORT or counter out of range.\n");
}

int thctl_counters_main(int argc, char **argv)
{
	struct th_nic_query q = { .size = sizeof(q) };
	const char *provider = NULL, *cts = NULL;
	long node, vport, first = 0, last = 7;
	struct th_device **list;
	struct th_context *ctx;
	char *pos[2];
	int ret;

	ret = dev_args(argc, argv, &provider, pos, 2, &cts, counters_usage);
	if (ret < 0)
		return ret == -1 ? THCTL_EXIT_OK : THCTL_EXIT_USAGE;
	if (ret != 2) {
		counters_usage(stderr);
		return THCTL_EXIT_USAGE;
	}
	ret = dev_open("counters", provider, pos[0], &list, &ctx, &q, &node);
	if (ret)
		return ret;
	ret = THCTL_EXIT_USAGE;
	vport = dev_index("counters", "vport", pos[1], q.max_vports);
	if (vport < 0)
		goto out;
	if (cts) {
		char buf[64], *dash;

		snprintf(buf, sizeof(buf), "%s", cts);
		dash = strchr(buf, '-');
		if (dash)
			*dash = '\0';
		first = dev_index("counters", "counter", buf, q.max_counters);
		if (first < 0)
			goto out;
		last = dash ? dev_index("counters", "counter", dash + 1,
					q.max_counters) : first;
		if (last < 0)
			goto out;
		if (last < first) {
			fprintf(stderr, "thctl counters: expected FIRST-LAST with FIRST <= LAST, got '%s'\n",
				cts);
			goto out;
		}
	} else if (last >= (long)q.max_counters) {
		last = q.max_counters - 1;
	}
	printf("node %ld vport %ld: counters %ld-%ld of %u per vport\n", node,
	       vport, first, last, q.max_counters);
	printf("values: not readable from this process; the counter page of a vport\n"
	       "is mapped only into the process that created it%s.\n"
	       "Read them there with th_ct_read(3), or use 'print counters' in a\n"
	       "chain file run by 'thctl post'.\n",
	       q.features & TH_NIC_FEAT_INPROC ?
	       " (and the inproc fabric lives inside one process)" : "");
	ret = THCTL_EXIT_OK;
out:
	th_close_device(ctx);
	th_free_device_list(list);
	return ret;
}
