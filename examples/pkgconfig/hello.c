// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * hello.c - the smallest libthverbs program built out of the tree, against
 * the installed library (libthverbs-dev), with only pkg-config's flags:
 *
 *   cc hello.c $(pkg-config --cflags --libs libthverbs) -o hello
 *   TH_PROVIDER=inproc ./hello
 *
 * Two vports on two nodes; node 0 posts a chain that puts 16 bytes into
 * node 1's memory when counter 0 of node 0 reaches 1, then the host bumps
 * that counter and checks what arrived.  TH_PROVIDER=inproc runs the NIC
 * inside this process (no module needed); TH_PROVIDER=kernel uses
 * /dev/th_nic0 and /dev/th_nic1 of th_nic.ko.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <thverbs/verbs.h>

#define LEN		16
#define CT_GO		0	/* node 0: the host says "go" */
#define CT_ARRIVED	1	/* node 1: the data is in place */
#define CT_DONE		2	/* node 0: the chain has ended */
#define TIMEOUT_NS	2000000000ULL

static int fail(const char *what, int err)
{
	fprintf(stderr, "hello: %s: %s\n", what, th_strerror(err));
	return 1;
}

int main(void)
{
	static const char msg[LEN] = "hello, th_nic!";
	struct th_device **list;
	struct th_context *ctx[2];
	struct th_vport *vp[2];
	struct th_mr *src_mr, *dst_mr;
	struct th_chain *chain;
	struct th_remote dst;
	struct th_nic_cqe cqe;
	unsigned int bad, reason;
	char *src, *dst_buf;
	int i, n, ret;

	list = th_device_list_get(NULL, &n);
	if (!list)
		return fail("list the nodes", -errno);
	if (n < 2)
		return fail("need two nodes", -ENODEV);
	for (i = 0; i < 2; i++) {
		ctx[i] = th_device_open(list[i]);
		if (!ctx[i])
			return fail("open a node", -errno);
		vp[i] = th_vport_create(ctx[i], NULL);
		if (!vp[i])
			return fail("create a vport", -errno);
	}

	src = aligned_alloc(64, 64);
	dst_buf = aligned_alloc(64, 64);
	if (!src || !dst_buf)
		return fail("allocate", -ENOMEM);
	memcpy(src, msg, LEN);
	memset(dst_buf, 0, LEN);
	src_mr = th_mr_reg(vp[0], src, 64, 0);
	dst_mr = th_mr_reg(vp[1], dst_buf, 64, TH_NIC_ACCESS_REMOTE_WRITE);
	if (!src_mr || !dst_mr)
		return fail("register memory", -errno);

	/* PUT (bumps node 1's CT_ARRIVED), NOTIFY (bumps CT_DONE after its
	 * completion entry), fired when node 0's CT_GO reaches 1. */
	dst = (struct th_remote){
		.node = th_vport_node(vp[1]),
		.vport = th_vport_index(vp[1]),
		.rkey = th_mr_rkey(dst_mr),
		.off = 0,
	};
	chain = th_chain_create();
	if (!chain)
		return fail("create a chain", -ENOMEM);
	th_chain_put(chain, src_mr, 0, &dst, LEN, CT_ARRIVED, 0);
	th_chain_notify(chain, 7, 0);
	th_chain_comp_ct(chain, CT_DONE);
	th_chain_trigger(chain, CT_GO, 1, 0x4e110);

	ret = th_post_chain(vp[0], chain);
	if (ret) {
		if (!th_post_error(vp[0], &bad, &reason))
			fprintf(stderr, "hello: descriptor %u refused: %s\n",
				bad, th_refusal_str(reason));
		return fail("post", ret);
	}
	if (dst_buf[0])
		return fail("the chain ran before its trigger", -EPROTO);

	ret = th_ct_inc(vp[0], CT_GO, 1);
	if (ret)
		return fail("trigger", ret);
	ret = th_ct_wait(vp[1], CT_ARRIVED, 1, TIMEOUT_NS);
	if (ret)
		return fail("wait for the data", ret);
	ret = th_ct_wait(vp[0], CT_DONE, 1, TIMEOUT_NS);
	if (ret)
		return fail("wait for the chain", ret);
	if (th_poll_cq(vp[0], &cqe, 1) != 1)
		return fail("completion", -EIO);
	if (cqe.status)
		return fail("completion status", cqe.status);
	if (memcmp(dst_buf, msg, LEN))
		return fail("the data that arrived", -EBADMSG);

	printf("%s provider: node %u vport %u received \"%s\" from node %u vport %u (cookie %#llx)\n",
	       th_device_provider(list[0]), th_vport_node(vp[1]),
	       th_vport_index(vp[1]), dst_buf, th_vport_node(vp[0]),
	       th_vport_index(vp[0]), (unsigned long long)cqe.cookie);

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
	return 0;
}
