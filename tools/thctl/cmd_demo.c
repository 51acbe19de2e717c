// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * cmd_demo.c - 'thctl demo': an offloaded reduction on the in-process
 * fabric, narrated.  Leaves put their vectors into the root's slots; the
 * root's chain waits for its counter to reach the number of leaves, then
 * reduces and notifies, with no host code in between.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "thctl.h"
#include "th_ipf.h"

#define DEMO_MAX_NODES	8
#define DEMO_COUNT	4	/* doubles per contribution */
#define DEMO_CT_START	0	/* the host's "my data is ready" counter */
#define DEMO_CT_ARRIVED	1	/* contributions arrived at the root */

static void demo_usage(FILE *f)
{
	fprintf(f,
		"usage: thctl demo [-n NODES]\n\n"
		"Run a reduction offloaded to the in-process NIC model: nodes 1..N-1\n"
		"put their vectors into node 0's slots when the host starts them;\n"
		"node 0's chain fires when all have arrived, sums them on the ALU\n"
		"and posts a completion.  NODES is 2..%d (default 4).\n\n"
		"Exit status: 0 the result is right, 1 it is not, 2 usage error.\n",
		DEMO_MAX_NODES);
}

static int demo_post(struct th_ipf_vport *vp, const struct th_nic_desc *d,
		     unsigned int n)
{
	u32 *tailp = (u32 *)((char *)vp->sq_mem + vp->sq_off.tail);
	u32 mask = *(u32 *)((char *)vp->sq_mem + vp->sq_off.ring_mask);
	struct th_nic_desc *slots = (void *)((char *)vp->sq_mem + vp->sq_off.entries);
	struct th_eng_db_result res;
	u32 tail = *tailp;
	unsigned int i;

	for (i = 0; i < n; i++)
		slots[(tail + i) & mask] = d[i];
	__atomic_store_n(tailp, tail + n, __ATOMIC_RELEASE);
	return th_ipf_doorbell(vp, &res);
}

static int demo_fail(const char *what, int err)
{
	fprintf(stderr, "thctl demo: %s: %s\n", what, strerror(-err));
	return THCTL_EXIT_FAIL;
}

static void demo_ct(struct th_ipf_vport *vp, unsigned int idx, const char *name)
{
	printf("    node %u counter %u (%s) = %llu\n", vp->ev.node, idx, name,
	       (unsigned long long)__atomic_load_n(&vp->cts[idx].success,
						    __ATOMIC_ACQUIRE));
}

int thctl_demo_main(int argc, char **argv)
{
	static double data[DEMO_MAX_NODES][DEMO_MAX_NODES * DEMO_COUNT];
	struct th_ipf_vport *vp[DEMO_MAX_NODES];
	u32 key[DEMO_MAX_NODES];
	struct th_eng_limits lim = {
		.max_vports = 4, .max_counters = 8, .max_sq_entries = 64,
		.max_cq_entries = 64, .max_chain = TH_ENG_DEF_CHAIN,
		.max_mrs = 4, .max_mr_size = TH_ENG_DEF_MR_SIZE,
	};
	struct th_nic_desc d[2];
	struct th_nic_cqe *cq;
	struct th_ipf *fab;
	unsigned int nodes = 4, i, j, bad = 0;
	u32 head, tail;
	int err = 0;

	for (i = 1; i < (unsigned int)argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			demo_usage(stdout);
			return THCTL_EXIT_OK;
		} else if (!strcmp(argv[i], "-n") && i + 1 < (unsigned int)argc) {
			nodes = strtoul(argv[++i], NULL, 10);
		} else {
			demo_usage(stderr);
			return THCTL_EXIT_USAGE;
		}
	}
	if (nodes < 2 || nodes > DEMO_MAX_NODES) {
		fprintf(stderr, "thctl demo: NODES must be 2..%d\n", DEMO_MAX_NODES);
		return THCTL_EXIT_USAGE;
	}
	lim.nodes = nodes;
	fab = th_ipf_create(&lim, &err);
	if (!fab)
		return demo_fail("create fabric", err);

	printf("th_nic demo: %u nodes on the in-process fabric\n", nodes);
	for (i = 0; i < nodes; i++) {
		vp[i] = th_ipf_vport_create(fab, i, 0, 0, &err);
		if (!vp[i])
			return demo_fail("create vport", err);
		/* node i's own vector at slot 0; the root receives into slots 1.. */
		for (j = 0; j < DEMO_COUNT; j++)
			data[i][j] = (i + 1) * 1.5 + j;
		err = th_ipf_mr_reg(vp[i], data[i], sizeof(data[i]),
				    TH_NIC_ACCESS_ALL, &key[i]);
		if (err)
			return demo_fail("register memory", err);
	}

	/* root: when all leaves have arrived, sum slots 0..N-1 into slot 0 */
	memset(d, 0, sizeof(d));
	d[0].opcode = TH_NIC_OP_REDUCE;
	d[0].flags = TH_NIC_DF_LINK;
	d[0].trig_ct = DEMO_CT_ARRIVED;
	d[0].threshold = nodes - 1;
	d[0].cookie = 0xd3110;
	d[0].reduce.alu_op = TH_NIC_ALU_SUM;
	d[0].reduce.dtype = TH_NIC_DT_FLOAT64;
	d[0].reduce.rflags = TH_NIC_RF_STRIDED;
	d[0].reduce.nsrc = nodes;
	d[0].reduce.count = DEMO_COUNT;
	d[0].reduce.dst_key = key[0];
	d[0].reduce.src_key[0] = key[0];
	d[0].reduce.src_off[1] = DEMO_COUNT * sizeof(double);
	d[1].opcode = TH_NIC_OP_NOTIFY;
	d[1].notify.imm = nodes;
	err = demo_post(vp[0], d, 2);
	if (err)
		return demo_fail("post the root's chain", err);
	printf("  node 0 posted REDUCE(sum, %u operands) -> NOTIFY, waiting for counter %u >= %u\n",
	       nodes, DEMO_CT_ARRIVED, nodes - 1);

	/* leaves: when the host says go, put my vector into the root's slot */
	for (i = 1; i < nodes; i++) {
		memset(d, 0, sizeof(d));
		d[0].opcode = TH_NIC_OP_PUT;
		d[0].flags = TH_NIC_DF_REMOTE_CT;
		d[0].trig_ct = DEMO_CT_START;
		d[0].threshold = 1;
		d[0].xfer.lkey = key[i];
		d[0].xfer.len = DEMO_COUNT * sizeof(double);
		d[0].xfer.node = 0;
		d[0].xfer.vport = vp[0]->ev.index;
		d[0].xfer.rkey = key[0];
		d[0].xfer.roff = i * DEMO_COUNT * sizeof(double);
		d[0].xfer.remote_ct = DEMO_CT_ARRIVED;
		err = demo_post(vp[i], d, 1);
		if (err)
			return demo_fail("post a leaf's chain", err);
		printf("  node %u posted PUT -> node 0 slot %u, waiting for its counter %u >= 1\n",
		       i, i, DEMO_CT_START);
	}
	demo_ct(vp[0], DEMO_CT_ARRIVED, "arrived");

	/* the hosts start; from here the NIC alone moves and reduces data */
	for (i = nodes - 1; i >= 1; i--) {
		printf("  host %u: data ready (counter %u += 1)\n", i, DEMO_CT_START);
		err = th_ipf_ct_update(vp[i], DEMO_CT_START, TH_ENG_CT_INC, 1, 0);
		if (err)
			return demo_fail("start", err);
		demo_ct(vp[0], DEMO_CT_ARRIVED, "arrived");
	}

	cq = (void *)((char *)vp[0]->cq_mem + vp[0]->cq_off.entries);
	head = *(u32 *)((char *)vp[0]->cq_mem + vp[0]->cq_off.head);
	tail = __atomic_load_n((u32 *)((char *)vp[0]->cq_mem + vp[0]->cq_off.tail),
			       __ATOMIC_ACQUIRE);
	if (tail - head != 1 || cq[0].status) {
		fprintf(stderr, "thctl demo: expected one good completion on node 0\n");
		return THCTL_EXIT_FAIL;
	}
	printf("  node 0 completion: cookie %#llx status %d imm %llu\n",
	       (unsigned long long)cq[0].cookie, cq[0].status,
	       (unsigned long long)cq[0].imm);
	printf("  result on node 0:");
	for (j = 0; j < DEMO_COUNT; j++) {
		double want = 0;

		for (i = 0; i < nodes; i++)
			want += (i + 1) * 1.5 + j;
		printf(" %g", data[0][j]);
		bad |= data[0][j] != want;
	}
	printf("  (%s)\n", bad ? "WRONG" : "correct");
	th_ipf_destroy(fab);
	return bad ? THCTL_EXIT_FAIL : THCTL_EXIT_OK;
}
