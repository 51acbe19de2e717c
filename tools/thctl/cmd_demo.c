// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * cmd_demo.c - 'thctl demo': an Allreduce offloaded to the NIC over a
 * k-nomial tree, one process driving every node, narrated node by node.
 *
 * Per node (COLLECTIVES.md): counter R counts the host's start plus the
 * children's contributions, counter B the result's arrival from the parent.
 * A node's upward chain fires on R >= children + 1: it reduces its own
 * vector with the children's slots (7 operands a pass at most) and puts the
 * partial result into its parent's slot; the root's reduces into the result
 * and puts it down.  A node's downward chain fires on B >= 1 and forwards
 * the result to its children, then notifies.  After the hosts start, no
 * host code runs until the completions.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "thctl.h"
#include "thverbs.h"

#define DEMO_MAX_NODES	1024
#define DEMO_CT_R	1	/* start + contributions arrived */
#define DEMO_CT_B	2	/* result arrived from the parent */
#define DEMO_PASS	(TH_NIC_MAX_OPERANDS - 1) /* new operands per pass */

struct demo_node {
	struct th_context *ctx;
	struct th_vport *vp;
	struct th_mr *mr;
	double *mem;		/* send | recv | tmp | slot[0] ... slot[c-1] */
	int parent;
	int slot_at_parent;	/* which of the parent's slots is ours */
	unsigned int nchild;
	unsigned int *child;
};

struct demo {
	unsigned int n, k, count;
	size_t seg;		/* bytes of one vector */
	struct demo_node *node;
	struct th_device **devs;
	bool verbose;
};

static void demo_usage(FILE *f)
{
	fprintf(f,
		"usage: thctl demo [-n NODES] [-k RADIX] [-c COUNT] [--provider P] [-q]\n\n"
		"Run an Allreduce (float64 sum of COUNT elements, default 4) offloaded\n"
		"to the NIC over a k-nomial tree of NODES nodes (default 16, radix 4),\n"
		"one process driving every node, and print what each node did.\n"
		"The provider is kernel, inproc or auto (default: TH_PROVIDER, else\n"
		"kernel when /dev/th_nic0 exists, else the in-process NIC model).\n\n"
		"Exit status: 0 every node has the right result, 1 a failure, 2 usage.\n");
}

static uint64_t demo_off(const struct demo *d, unsigned int slot)
{
	return (uint64_t)slot * d->seg;	/* 0 send, 1 recv, 2 tmp, 3+ slots */
}

static struct th_remote demo_remote(const struct demo *d, unsigned int rank,
				    unsigned int slot)
{
	const struct demo_node *nd = &d->node[rank];
	struct th_remote r = {
		.node = th_vport_node(nd->vp), .vport = th_vport_index(nd->vp),
		.rkey = th_mr_rkey(nd->mr), .off = demo_off(d, slot),
	};
	return r;
}

/* The value rank r contributes at element i: distinct, exactly summable. */
static double demo_value(unsigned int r, unsigned int i)
{
	return (r + 1) * 0.5 + i * 1024;
}

/* dst = own + slot[0] + ... + slot[c-1], left to right, <= 7 per pass. */
static int demo_reduce(const struct demo *d, struct th_chain *c,
		       const struct demo_node *nd, unsigned int dst)
{
	const struct th_mr *src[TH_NIC_MAX_OPERANDS];
	uint64_t off[TH_NIC_MAX_OPERANDS];
	unsigned int done = 0, n, i;
	int ret;

	n = nd->nchild < DEMO_PASS ? nd->nchild : DEMO_PASS;
	src[0] = nd->mr;
	off[0] = demo_off(d, 0);
	for (i = 0; i < n; i++) {
		src[i + 1] = nd->mr;
		off[i + 1] = demo_off(d, 3 + i);
	}
	ret = th_chain_reduce(c, TH_NIC_ALU_SUM, TH_NIC_DT_FLOAT64, d->count,
			      nd->mr, demo_off(d, dst), n + 1, src, off, false,
			      0);
	for (done = n; !ret && done < nd->nchild; done += n) {
		n = nd->nchild - done;
		n = n < DEMO_PASS ? n : DEMO_PASS;
		for (i = 0; i < n; i++) {
			src[i] = nd->mr;
			off[i] = demo_off(d, 3 + done + i);
		}
		ret = th_chain_reduce(c, TH_NIC_ALU_SUM, TH_NIC_DT_FLOAT64,
				      d->count, nd->mr, demo_off(d, dst), n,
				      src, off, true, 0);
	}
	return ret;
}

/* Puts of the result to children [from, to), then NOTIFY if last. */
static int demo_post_down(struct demo *d, struct th_chain *c, unsigned int r,
			  unsigned int from, unsigned int to, uint16_t ct)
{
	struct demo_node *nd = &d->node[r];
	struct th_remote dst;
	unsigned int j;
	int ret = 0;

	th_chain_reset(c);
	for (j = from; !ret && j < to; j++) {
		dst = demo_remote(d, nd->child[j], 1);
		ret = th_chain_put(c, nd->mr, demo_off(d, 1), &dst, d->seg,
				   DEMO_CT_B, 0);
	}
	if (!ret && to == nd->nchild)
		ret = th_chain_notify(c, r, 0);
	if (!ret)
		ret = th_chain_trigger(c, ct, 1, 0x200 + r);
	return ret ? ret : th_post_chain(nd->vp, c);
}

/*
 * Upward: reduce, then put to the parent (the root instead raises its own
 * counter D).  Downward, on B (the root: D): forward the result to the
 * children, DEMO_FANOUT puts per chain; equal thresholds fire in posting
 * order, so the last chain's NOTIFY comes after every put.
 */
#define DEMO_CT_D	3
#define DEMO_FANOUT	15	/* puts per chain: the default max_chain is 16 */
static int demo_post_node(struct demo *d, struct th_chain *c, unsigned int r)
{
	struct demo_node *nd = &d->node[r];
	uint16_t down = nd->parent < 0 ? DEMO_CT_D : DEMO_CT_B;
	struct th_remote to;
	unsigned int j;
	int ret;

	th_chain_reset(c);
	if (nd->nchild)
		ret = demo_reduce(d, c, nd, nd->parent < 0 ? 1 : 2);
	else if (nd->parent < 0)	/* a tree of one node */
		ret = th_chain_copy(c, nd->mr, demo_off(d, 0), nd->mr,
				    demo_off(d, 1), d->seg, 0);
	else
		ret = 0;
	if (!ret && nd->parent >= 0) {
		to = demo_remote(d, nd->parent, 3 + nd->slot_at_parent);
		ret = th_chain_put(c, nd->mr, demo_off(d, nd->nchild ? 2 : 0),
				   &to, d->seg, DEMO_CT_R, 0);
	} else if (!ret) {
		ret = th_chain_ct_inc(c, DEMO_CT_D, 1, 0);
	}
	if (!ret)
		ret = th_chain_trigger(c, DEMO_CT_R, nd->nchild + 1, 0x100 + r);
	if (!ret)
		ret = th_post_chain(nd->vp, c);
	for (j = 0; !ret; j += DEMO_FANOUT) {
		unsigned int end = j + DEMO_FANOUT;

		ret = demo_post_down(d, c, r, j,
				     end < nd->nchild ? end : nd->nchild, down);
		if (end >= nd->nchild)
			break;
	}
	return ret;
}

static int demo_setup(struct demo *d, unsigned int r)
{
	struct demo_node *nd = &d->node[r];
	unsigned int i, slots;
	int ret;

	nd->ctx = th_open_device(d->devs[r]);
	if (!nd->ctx)
		return -errno;
	nd->vp = th_create_vport(nd->ctx, NULL);
	if (!nd->vp)
		return -errno;
	ret = th_tree_children(d->n, 0, d->k, r, NULL, 0);
	if (ret < 0)
		return ret;
	nd->nchild = ret;
	nd->child = calloc(nd->nchild + 1, sizeof(*nd->child));
	if (!nd->child)
		return -ENOMEM;
	th_tree_children(d->n, 0, d->k, r, nd->child, nd->nchild);
	nd->parent = th_tree_parent(d->n, 0, d->k, r);
	if (nd->parent < 0)
		nd->parent = -1;
	slots = 3 + nd->nchild;
	nd->mem = calloc(slots, d->seg);
	if (!nd->mem)
		return -ENOMEM;
	for (i = 0; i < d->count; i++)
		nd->mem[i] = demo_value(r, i);
	nd->mr = th_reg_mr(nd->vp, nd->mem, slots * d->seg, TH_NIC_ACCESS_ALL);
	return nd->mr ? 0 : -errno;
}

static void demo_teardown(struct demo *d)
{
	unsigned int r;

	for (r = 0; r < d->n; r++) {
		struct demo_node *nd = &d->node[r];

		if (nd->mr)
			th_dereg_mr(nd->mr);
		if (nd->vp)
			th_destroy_vport(nd->vp);
		if (nd->ctx)
			th_close_device(nd->ctx);
		free(nd->mem);
		free(nd->child);
	}
	free(d->node);
	th_free_device_list(d->devs);
}

static int demo_fail(struct demo *d, const char *what, int err)
{
	fprintf(stderr, "thctl demo: %s: %s\n", what, th_strerror(err));
	demo_teardown(d);
	return THCTL_EXIT_FAIL;
}

static int demo_parse(int argc, char **argv, struct demo *d,
		      const char **provider)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		char *end = NULL;
		unsigned long v = 0;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			demo_usage(stdout);
			exit(THCTL_EXIT_OK);
		} else if (!strcmp(a, "-q")) {
			d->verbose = false;
			continue;
		} else if (!strcmp(a, "--provider") && i + 1 < argc) {
			*provider = argv[++i];
			continue;
		}
		if (i + 1 >= argc)
			return -EINVAL;
		v = strtoul(argv[++i], &end, 10);
		if (*end)
			return -EINVAL;
		if (!strcmp(a, "-n") && v >= 1 && v <= DEMO_MAX_NODES)
			d->n = v;
		else if (!strcmp(a, "-k") && v >= 2 && v <= 64)
			d->k = v;
		else if (!strcmp(a, "-c") && v >= 1 && v <= (1 << 20))
			d->count = v;
		else
			return -EINVAL;
	}
	return 0;
}

static double demo_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int thctl_demo_main(int argc, char **argv)
{
	struct demo d = { .n = 16, .k = 4, .count = 4, .verbose = true };
	const char *provider = NULL;
	struct th_nic_cqe cqe;
	struct th_chain *c;
	unsigned int r, i, j, bad = 0;
	double t0, t1, want;
	int ndev = 0, ret;

	if (demo_parse(argc, argv, &d, &provider)) {
		demo_usage(stderr);
		return THCTL_EXIT_USAGE;
	}
	d.seg = (size_t)d.count * sizeof(double);
	d.devs = th_get_device_list(provider, &ndev);
	if (!d.devs) {
		fprintf(stderr, "thctl demo: no devices: %s\n", strerror(errno));
		return THCTL_EXIT_FAIL;
	}
	if ((unsigned int)ndev < d.n) {
		fprintf(stderr, "thctl demo: %u nodes wanted, the %s provider has %d\n",
			d.n, th_device_provider(d.devs[0]), ndev);
		th_free_device_list(d.devs);
		return THCTL_EXIT_USAGE;
	}
	d.node = calloc(d.n, sizeof(*d.node));
	c = th_chain_create();
	if (!d.node || !c)
		return demo_fail(&d, "setup", -ENOMEM);

	printf("th_nic demo: Allreduce (sum of %u doubles) over a %u-nomial tree of %u nodes, provider %s\n",
	       d.count, d.k, d.n, th_device_provider(d.devs[0]));
	for (r = 0; r < d.n; r++) {
		ret = demo_setup(&d, r);
		if (ret)
			return demo_fail(&d, "open node", ret);
	}
	for (r = 0; r < d.n; r++)
		for (j = 0; j < d.node[r].nchild; j++)
			d.node[d.node[r].child[j]].slot_at_parent = j;
	for (r = 0; r < d.n; r++) {
		struct demo_node *nd = &d.node[r];

		ret = demo_post_node(&d, c, r);
		if (ret)
			return demo_fail(&d, "post chains", ret);
		if (!d.verbose)
			continue;
		printf("  node %2u  %-5s parent %2d  children {", r,
		       nd->parent < 0 ? "root" : nd->nchild ? "inner" : "leaf",
		       nd->parent);
		for (j = 0; j < nd->nchild; j++)
			printf("%s%u", j ? "," : "", nd->child[j]);
		printf("}  waits for R >= %u, then %s >= 1\n", nd->nchild + 1,
		       nd->parent < 0 ? "its own D" : "B");
	}

	/* every host starts; from here only the NIC works */
	t0 = demo_now();
	for (r = d.n; r-- > 0;) {
		ret = th_ct_inc(d.node[r].vp, DEMO_CT_R, 1);
		if (ret)
			return demo_fail(&d, "start", ret);
	}
	for (r = 0; r < d.n; r++) {
		ret = th_ct_wait(d.node[r].vp, DEMO_CT_B, r ? 1 : 0, 5000000000ULL);
		if (ret)
			return demo_fail(&d, "wait for the result", ret);
	}
	t1 = demo_now();

	for (r = 0; r < d.n; r++) {
		struct demo_node *nd = &d.node[r];
		unsigned int ok = 1;
		int got;

		/* a chain deferred past a context's budget may still be running */
		while ((got = th_poll_cq(nd->vp, &cqe, 1)) == 0 &&
		       demo_now() - t1 < 5)
			usleep(100);
		if (got != 1 || cqe.status)
			ok = 0;
		for (i = 0; i < d.count; i++) {
			/* the tree's order of evaluation, recomputed on the host */
			want = 0;
			for (j = 0; j < d.n; j++)
				want += demo_value(j, i);
			if (nd->mem[d.count + i] != want)
				ok = 0;
		}
		bad += !ok;
		if (d.verbose)
			printf("  node %2u  completion %s, result[0] = %g  %s\n", r,
			       got == 1 ? (cqe.status ? th_strerror(cqe.status) : "ok") :
			       "missing", nd->mem[d.count], ok ? "correct" : "WRONG");
	}
	printf("%u of %u nodes correct; %.1f us from the first start to the last result\n",
	       d.n - bad, d.n, (t1 - t0) * 1e6);
	th_chain_destroy(c);
	demo_teardown(&d);
	return bad ? THCTL_EXIT_FAIL : THCTL_EXIT_OK;
}
