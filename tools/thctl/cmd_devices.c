// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * cmd_devices.c - 'thctl devices' and 'thctl info NODE': what a provider's
 * nodes are and what they allow, as text or JSON (-j, -p).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include <thverbs/verbs.h>
#include "thctl.h"

#define PROVIDER_HELP \
	"  --provider P   kernel (/dev/th_nic*), inproc (a fabric inside this\n" \
	"                 process) or auto (default: $TH_PROVIDER, else kernel\n" \
	"                 if /dev/th_nic0 exists, else inproc)\n" \
	"  -j, --json     one JSON document; -p, --pretty: indented\n"

/* -j and -p */
static bool dev_json, dev_pretty;

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
		} else if (!strcmp(argv[i], "-j") || !strcmp(argv[i], "--json")) {
			dev_json = true;
		} else if (!strcmp(argv[i], "-p") || !strcmp(argv[i], "--pretty")) {
			dev_pretty = true;
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
	struct th_device **list = th_device_list_get(provider, n);

	/*
	 * strerror, not th_strerror: the latter reads EINVAL as a refused
	 * descriptor, where here it is a provider name or TH_* variable the
	 * library has just named on stderr.
	 */
	if (!list)
		fprintf(stderr, "thctl %s: no th_nic nodes (provider %s): %s\n",
			cmd, provider ? provider : "auto", strerror(errno));
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
	if (dev_json) {
		struct tj j;

		tj_init(&j, stdout, dev_pretty);
		tj_arr_begin(&j);
		for (i = 0; i < n; i++) {
			tj_obj_begin(&j);
			tj_kv_str(&j, "name", th_device_name(list[i]));
			tj_kv_u64(&j, "node", th_device_node(list[i]));
			tj_kv_str(&j, "provider", th_device_provider(list[i]));
			tj_obj_end(&j);
		}
		tj_arr_end(&j);
		tj_finish(&j);
	}
	for (i = 0; i < n && !dev_json; i++)
		printf("%-10s node %-5u provider %s\n", th_device_name(list[i]),
		       th_device_node(list[i]), th_device_provider(list[i]));
	th_device_list_free(list);
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
		th_device_list_free(*list);
		return THCTL_EXIT_USAGE;
	}
	*ctx = th_device_open((*list)[*node]);
	if (!*ctx || th_device_query(*ctx, q)) {
		fprintf(stderr, "thctl %s: node %ld: %s\n", cmd, *node,
			th_strerror(-errno));
		if (*ctx)
			th_device_close(*ctx);
		th_device_list_free(*list);
		return THCTL_EXIT_FAIL;
	}
	return 0;
}

static void info_json(const struct th_nic_query *q, struct th_device *dev)
{
	static const struct {
		uint64_t bit;
		const char *name;
	} feats[] = {
		{ TH_NIC_FEAT_REDUCE_STRIDED, "reduce_strided" },
		{ TH_NIC_FEAT_FLOAT_ALU, "float_alu" },
		{ TH_NIC_FEAT_INPROC, "inproc" },
		{ TH_NIC_FEAT_DOMAIN_FD, "domain_fd" },
	};
	struct tj j;
	unsigned int i;

	tj_init(&j, stdout, dev_pretty);
	tj_obj_begin(&j);
	tj_kv_str(&j, "name", th_device_name(dev));
	tj_kv_str(&j, "provider", th_device_provider(dev));
	tj_kv_u64(&j, "node", q->node_id);
	tj_kv_u64(&j, "nodes", q->node_count);
	tj_kv_u64(&j, "abi_version", q->abi_version);
	tj_kv_u64(&j, "max_vports", q->max_vports);
	tj_kv_u64(&j, "max_counters", q->max_counters);
	tj_kv_u64(&j, "max_sq_entries", q->max_sq_entries);
	tj_kv_u64(&j, "max_cq_entries", q->max_cq_entries);
	tj_kv_u64(&j, "max_chain", q->max_chain);
	tj_kv_u64(&j, "max_mrs", q->max_mrs);
	tj_kv_u64(&j, "max_mr_size", q->max_mr_size);
	tj_kv_u64(&j, "max_operands", q->max_operands);
	tj_kv_u64(&j, "max_inline", q->max_inline);
	tj_kv_u64(&j, "desc_size", q->desc_size);
	tj_kv_u64(&j, "cqe_size", q->cqe_size);
	tj_kv_u64(&j, "max_user_vports", q->max_user_vports);
	tj_kv_u64(&j, "max_user_chains", q->max_user_chains);
	tj_key(&j, "features");
	tj_arr_begin(&j);
	for (i = 0; i < sizeof(feats) / sizeof(feats[0]); i++)
		if (q->features & feats[i].bit)
			tj_str(&j, feats[i].name);
	tj_arr_end(&j);
	tj_obj_end(&j);
	tj_finish(&j);
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
	if (dev_json) {
		info_json(&q, list[node]);
		th_device_close(ctx);
		th_device_list_free(list);
		return THCTL_EXIT_OK;
	}
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
	th_device_close(ctx);
	th_device_list_free(list);
	return THCTL_EXIT_OK;
}
