// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * first_chain.c - "Your first triggered chain" (Documentation/tutorial.rst):
 * node 0 puts 8 doubles into node 1 when the host starts it, and the NIC
 * counts their arrival on node 1.  Against the installed library
 * (libthverbs-dev ships it with a Makefile):
 *
 *   cc first_chain.c $(pkg-config --cflags --libs libthverbs) -o first_chain
 *   ./first_chain
 *
 * and from the top of the source tree:
 *
 *   cc -I include/uapi -I lib/libthverbs/include \
 *      examples/first_chain.c -Lbuild/lib -lthverbs -o first_chain
 *   LD_LIBRARY_PATH=build/lib ./first_chain
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <thverbs/verbs.h>

#define COUNT		8
#define CT_GO		0	/* node 0: the host says "go" */
#define CT_ARRIVED	1	/* node 1: the data is in place */
#define CT_DONE		2	/* node 0: the chain has ended */

static int fail(const char *what, int err)
{
	fprintf(stderr, "first_chain: %s: %s\n", what, th_strerror(err));
	return 1;
}

int main(void)
{
	struct th_device **list;
	struct th_context *ctx[2];
	struct th_vport *vp[2];
	struct th_mr *src_mr, *dst_mr;
	struct th_chain *chain;
	struct th_remote dst;
	struct th_nic_cqe cqe;
	double *src, *dst_buf;
	unsigned int bad, reason;
	int i, n, ret;

	/* 1. Two nodes of the provider TH_PROVIDER names (kernel or inproc). */
	list = th_device_list_get(NULL, &n);
	if (!list || n < 2)
		return fail("need two nodes", list ? -ENODEV : -errno);
	for (i = 0; i < 2; i++) {
		ctx[i] = th_device_open(list[i]);
		if (!ctx[i])
			return fail("open a node", -errno);
		vp[i] = th_vport_create(ctx[i], NULL);
		if (!vp[i])
			return fail("create a vport", -errno);
	}

	/* 2. Memory: the source on node 0, the target on node 1. */
	src = aligned_alloc(64, COUNT * sizeof(double));
	dst_buf = aligned_alloc(64, COUNT * sizeof(double));
	if (!src || !dst_buf)
		return fail("allocate", -ENOMEM);
	for (i = 0; i < COUNT; i++) {
		src[i] = 1.5 + i;
		dst_buf[i] = 0;
	}
	src_mr = th_mr_reg(vp[0], src, COUNT * sizeof(double), 0);
	dst_mr = th_mr_reg(vp[1], dst_buf, COUNT * sizeof(double),
			   TH_NIC_ACCESS_REMOTE_WRITE);
	if (!src_mr || !dst_mr)
		return fail("register memory", -errno);

	/* 3. The chain, two descriptors: PUT (bumping node 1's CT_ARRIVED),
	 *    then NOTIFY, whose completion counter CT_DONE moves once its
	 *    entry is in the CQ; it fires when node 0's CT_GO reaches 1.
	 */
	dst = (struct th_remote){
		.node = th_vport_node(vp[1]),
		.vport = th_vport_index(vp[1]),
		.rkey = th_mr_rkey(dst_mr),
		.off = 0,
	};
	chain = th_chain_create();
	if (!chain)
		return fail("create a chain", -ENOMEM);
	th_chain_put(chain, src_mr, 0, &dst, COUNT * sizeof(double),
		     CT_ARRIVED, 0);
	th_chain_notify(chain, 42, 0);
	th_chain_comp_ct(chain, CT_DONE);
	th_chain_trigger(chain, CT_GO, 1, 0xf1);

	/* 4. Post it: the NIC checks every descriptor, then it waits. */
	ret = th_post_chain(vp[0], chain);
	if (!th_post_error(vp[0], &bad, &reason))
		fprintf(stderr, "first_chain: descriptor %u refused: %s\n", bad,
			th_refusal_str(reason));
	if (ret)
		return fail("post", ret);
	printf("posted a chain of %u descriptors; node 1 has %s\n",
	       th_chain_length(chain), dst_buf[0] == 0 ? "nothing yet" : "data?");

	/* 5. Trigger it, and wait for the NIC to deliver. */
	ret = th_ct_inc(vp[0], CT_GO, 1);
	if (ret)
		return fail("start", ret);
	ret = th_ct_wait(vp[1], CT_ARRIVED, 1, 1000000000ULL);
	if (ret)
		return fail("wait for the data", ret);
	ret = th_ct_wait(vp[0], CT_DONE, 1, 1000000000ULL);
	if (ret)
		return fail("wait for the chain", ret);
	if (th_poll_cq(vp[0], &cqe, 1) != 1 || cqe.status)
		return fail("completion", cqe.status ? cqe.status : -EIO);
	printf("completion: cookie %#llx imm %llu\n",
	       (unsigned long long)cqe.cookie, (unsigned long long)cqe.imm);
	printf("node 1 received:");
	for (i = 0; i < COUNT; i++)
		printf(" %g", dst_buf[i]);
	printf("\n");
	ret = memcmp(src, dst_buf, COUNT * sizeof(double)) ? 1 : 0;

	/* 6. Tear down in reverse order. */
	th_chain_destroy(chain);
	th_mr_dereg(src_mr);
	th_mr_dereg(dst_mr);
	for (i = 0; i < 2; i++) {
		th_vport_destroy(vp[i]);
		th_device_close(ctx[i]);
	}
	th_device_list_free(list);
	free(src);
	free(dst_buf);
	return ret;
}
