// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_remote.c - the engine's hooks for nodes hosted elsewhere (struct
 * th_eng_ops.node_remote and friends, which the ofi provider uses), driven
 * by a network the test plays by hand: nodes 2 and 3 are "remote", a
 * delivery to them waits in a queue until the test carries it out with
 * the target's side of the engine (th_eng_remote_hold()) and ends it with
 * th_eng_remote_done().  The chain stops at the delivery and goes on
 * after it, a refusal is the initiator's violation or not as on one node,
 * a vport's teardown waits for its delivery, failure values and watches
 * reach the network, and every chain completes exactly once.
 */
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "kselftest_harness.h"
#include "th_test.h"

#define NODES	4
#define FIRST_REMOTE 2
#define MAX_Q	8

/* The hand-played network: what the engine handed over, in order. */
struct fake_net {
	pthread_mutex_t lock;
	struct th_eng_chain *chain[MAX_Q];
	struct th_eng_remote_op op[MAX_Q];
	unsigned int n;
	unsigned int posted;	/* chain_posted calls */
	struct {
		u32 node, vport;
		u16 ct;
		u64 rkey, off, len;
	} fail[MAX_Q];
	unsigned int nfail;
};

static bool fake_remote(void *arg, u32 node)
{
	(void)arg;
	return node >= FIRST_REMOTE;
}

static void fake_post(void *arg, struct th_eng_chain *chain,
		      const struct th_eng_remote_op *op)
{
	struct fake_net *net = arg;

	pthread_mutex_lock(&net->lock);
	if (net->n < MAX_Q) {
		net->chain[net->n] = chain;
		net->op[net->n] = *op;
		net->n++;
	}
	pthread_mutex_unlock(&net->lock);
}

static void fake_fail_ct(void *arg, const void *domain, u32 node, u32 vport,
			 u16 ct, u64 rkey, u64 off, u64 len)
{
	struct fake_net *net = arg;

	(void)domain;
	pthread_mutex_lock(&net->lock);
	if (net->nfail < MAX_Q) {
		net->fail[net->nfail].node = node;
		net->fail[net->nfail].vport = vport;
		net->fail[net->nfail].ct = ct;
		net->fail[net->nfail].rkey = rkey;
		net->fail[net->nfail].off = off;
		net->fail[net->nfail].len = len;
		net->nfail++;
	}
	pthread_mutex_unlock(&net->lock);
}

static void fake_mr_free(void *arg, void *priv)
{
	(void)arg;
	(void)priv;
}

static void fake_posted(void *arg, struct th_eng_vport *ev,
			const struct th_nic_desc *descs, u32 n)
{
	struct fake_net *net = arg;

	(void)ev;
	(void)descs;
	(void)n;
	__atomic_add_fetch(&net->posted, 1, __ATOMIC_SEQ_CST);
}

FIXTURE(remote) {
	struct fake_net net;
	struct th_ipf_net hooks;
	struct th_ipf *fab;
	struct th_ipf_vport *vp[NODES];
	u32 key[NODES];
	u64 rkey[NODES];
	u8 buf[NODES][256];
};

FIXTURE_SETUP(remote)
{
	struct th_eng_limits lim = th_t_limits(NODES);
	int err = 0, i, j;

	memset(&self->net, 0, sizeof(self->net));
	pthread_mutex_init(&self->net.lock, NULL);
	self->hooks = (struct th_ipf_net) {
		.node_remote = fake_remote, .remote_post = fake_post,
		.remote_fail_ct = fake_fail_ct, .mr_free = fake_mr_free,
		.chain_posted = fake_posted, .arg = &self->net,
	};
	self->fab = th_ipf_create(&lim, &self->hooks, &err);
	ASSERT_NE(NULL, self->fab);
	/* the "remote" nodes' vports stand for the other process's */
	for (i = 0; i < NODES; i++) {
		self->vp[i] = th_t_vport(self->fab, i, 0, 0, &err);
		ASSERT_NE(NULL, self->vp[i]);
		for (j = 0; j < 256; j++)
			self->buf[i][j] = i * 50 + j;
		ASSERT_EQ(0, th_t_mr_reg(self->vp[i], self->buf[i], 256,
					 TH_NIC_ACCESS_ALL, &self->key[i],
					 &self->rkey[i]));
	}
}

FIXTURE_TEARDOWN(remote)
{
	th_ipf_destroy(self->fab);
}

/* Deliveries handed to the network so far. */
static unsigned int queued(struct fake_net *net)
{
	unsigned int n;

	pthread_mutex_lock(&net->lock);
	n = net->n;
	pthread_mutex_unlock(&net->lock);
	return n;
}

/*
 * Play the target's side of delivery @i on vport @to, as a provider's
 * progress thread would, and end it: @force, if not 0, is the network's
 * own verdict (the target never saw it); else the target's checks decide.
 */
static int deliver(struct fake_net *net, unsigned int i, struct th_ipf_vport *to,
		   struct th_eng *eng, int force)
{
	struct th_eng_remote_op *op = &net->op[i];
	struct th_eng_mr_ref ref;
	struct th_eng_ctx ctx;
	u32 access = op->opcode == TH_NIC_OP_GET ? TH_NIC_ACCESS_REMOTE_READ :
		     TH_NIC_ACCESS_REMOTE_WRITE;
	int ret = force;

	th_eng_ctx_init(&ctx, eng);
	if (!ret)
		ret = th_eng_remote_hold(&to->ev, op->rkey, access, op->roff,
					 op->len, &ref);
	if (!ret) {
		if (op->opcode == TH_NIC_OP_GET)
			memcpy(op->local, ref.ptr, op->len);
		else
			memcpy(ref.ptr, op->local, op->len);
		th_eng_remote_release(&ref);
		if (op->remote_ct >= 0)
			th_eng_ct_update(&to->ev, op->remote_ct, TH_ENG_CT_INC, 1,
					 0, &ctx);
	}
	th_eng_remote_done(&ctx, net->chain[i], ret);
	th_eng_ctx_run(&ctx);
	return ret;
}

/* A PUT to a remote node stops the chain until the network ends it. */
TEST_F(remote, a_chain_waits_for_its_remote_put_then_goes_on)
{
	struct th_nic_desc d[2];
	struct th_nic_cqe cqe[2];
	struct fake_net *net = &self->net;
	int j;

	d[0] = thn_put_ct(self->key[0], 16, 2, self->vp[2]->ev.index,
			  self->rkey[2], 64, 32, 5);
	d[0].flags |= TH_NIC_DF_SIGNAL;
	d[1] = thn_ct_op(TH_NIC_OP_CT_INC, 7, 1);
	thn_comp_ct(&d[1], 8);
	thn_link(d, 2);
	thn_trigger(&d[0], 0, 0, 42);
	ASSERT_EQ(0, th_t_post(self->vp[0], d, 2, NULL));
	EXPECT_EQ(1, net->posted);

	/* handed over, exactly as described, and nothing after it ran */
	ASSERT_EQ(1, queued(net));
	EXPECT_EQ(TH_NIC_OP_PUT, net->op[0].opcode);
	EXPECT_EQ(2, net->op[0].node);
	EXPECT_EQ(self->vp[2]->ev.index, net->op[0].vport);
	EXPECT_EQ(self->rkey[2], net->op[0].rkey);
	EXPECT_EQ(64, net->op[0].roff);
	EXPECT_EQ(32, net->op[0].len);
	EXPECT_EQ(5, net->op[0].remote_ct);
	EXPECT_EQ(self->buf[0] + 16, net->op[0].local);
	EXPECT_EQ(self->vp[0]->ev.domain, net->op[0].domain);
	EXPECT_EQ(0, th_t_ct(self->vp[0], 7));
	EXPECT_EQ(0, th_t_cq_drain(self->vp[0], cqe, 2));

	ASSERT_EQ(0, deliver(net, 0, self->vp[2], th_ipf_engine(self->fab), 0));
	for (j = 0; j < 32; j++)
		ASSERT_EQ((u8)(16 + j), self->buf[2][64 + j]);
	EXPECT_EQ((u8)(2 * 50 + 63), self->buf[2][63]);	/* untouched */
	EXPECT_EQ(1, th_t_ct(self->vp[2], 5));
	EXPECT_EQ(1, th_t_ct(self->vp[0], 7));
	EXPECT_EQ(1, th_t_ct(self->vp[0], 8));
	ASSERT_EQ(1, th_t_cq_drain(self->vp[0], cqe, 2));
	EXPECT_EQ(42, cqe[0].cookie);
	EXPECT_EQ(0, cqe[0].status);
	EXPECT_EQ(1, queued(net));	/* one delivery, once */
}

/* A GET's bytes land in the initiator's region through the network. */
TEST_F(remote, a_remote_get_fills_the_local_region)
{
	struct th_nic_desc d = thn_get(self->key[1], 0, 3, self->vp[3]->ev.index,
				       self->rkey[3], 100, 20);
	int j;

	thn_comp_ct(&d, 2);
	ASSERT_EQ(0, th_t_post(self->vp[1], &d, 1, NULL));
	ASSERT_EQ(1, queued(&self->net));
	EXPECT_EQ(TH_NIC_OP_GET, self->net.op[0].opcode);
	EXPECT_EQ(-1, self->net.op[0].remote_ct);
	ASSERT_EQ(0, deliver(&self->net, 0, self->vp[3],
			     th_ipf_engine(self->fab), 0));
	for (j = 0; j < 20; j++)
		ASSERT_EQ((u8)(3 * 50 + 100 + j), self->buf[1][j]);
	EXPECT_EQ(1, th_t_ct(self->vp[1], 2));
}

/*
 * The target refuses a key: the initiator's violation, as on one node
 * (error state, later posts refused); a vanished vport is not one.
 */
TEST_F(remote, the_targets_refusal_is_judged_as_on_one_node)
{
	struct th_nic_desc d = thn_put(self->key[1], 0, 2, self->vp[2]->ev.index,
				       self->rkey[2] ^ 1, 0, 8);
	struct th_nic_cqe cqe;

	d.flags |= TH_NIC_DF_SIGNAL;
	ASSERT_EQ(0, th_t_post(self->vp[1], &d, 1, NULL));
	ASSERT_EQ(-ECONNREFUSED, deliver(&self->net, 0, self->vp[2],
					 th_ipf_engine(self->fab), -ECONNREFUSED));
	ASSERT_EQ(1, th_t_cq_drain(self->vp[1], &cqe, 1));
	EXPECT_EQ(-ECONNREFUSED, cqe.status);
	EXPECT_FALSE(self->vp[1]->ev.error);

	d.xfer.lkey = self->key[0];
	ASSERT_EQ(0, th_t_post(self->vp[0], &d, 1, NULL));
	ASSERT_EQ(-EACCES, deliver(&self->net, 1, self->vp[2],
				   th_ipf_engine(self->fab), 0));
	ASSERT_EQ(1, th_t_cq_drain(self->vp[0], &cqe, 1));
	EXPECT_EQ(-EACCES, cqe.status);
	EXPECT_TRUE(self->vp[0]->ev.error);
	EXPECT_EQ(-ENOTCONN, th_t_post(self->vp[0], &d, 1, NULL));
	EXPECT_EQ((u8)(2 * 50), self->buf[2][0]);	/* untouched */
}

struct destroyer {
	struct th_ipf_vport *vp;
	bool done;
};

static void *destroy_thread(void *arg)
{
	struct destroyer *ds = arg;

	th_ipf_vport_destroy(ds->vp);
	__atomic_store_n(&ds->done, true, __ATOMIC_SEQ_CST);
	return NULL;
}

/*
 * Destroying a vport whose chain waits for the network waits for the
 * delivery's end (the provider's deadline bounds it), and the chain still
 * completes once.
 */
TEST_F(remote, teardown_waits_for_a_delivery_in_flight)
{
	struct th_nic_desc d = thn_put_ct(self->key[1], 0, 2,
					  self->vp[2]->ev.index, self->rkey[2],
					  0, 8, 3);
	struct destroyer ds = { .vp = self->vp[1] };
	struct timespec ms = { 0, 50000000 };
	pthread_t t;

	ASSERT_EQ(0, th_t_post(self->vp[1], &d, 1, NULL));
	ASSERT_EQ(1, queued(&self->net));
	ASSERT_EQ(0, pthread_create(&t, NULL, destroy_thread, &ds));
	nanosleep(&ms, NULL);
	EXPECT_FALSE(__atomic_load_n(&ds.done, __ATOMIC_SEQ_CST));
	deliver(&self->net, 0, self->vp[2], th_ipf_engine(self->fab), 0);
	pthread_join(t, NULL);
	EXPECT_TRUE(ds.done);
	self->vp[1] = NULL;
	EXPECT_EQ(1, th_t_ct(self->vp[2], 3));
	EXPECT_EQ(1, queued(&self->net));
}

/*
 * A chain that fails before its remote PUT sends the failure value of the
 * PUT's counter through the network, with what the target must check.
 */
TEST_F(remote, failure_values_for_remote_counters_go_to_the_network)
{
	struct th_nic_desc d = thn_put_ct(self->key[0], 0, 3,
					  self->vp[3]->ev.index, self->rkey[3],
					  24, 16, 9);

	thn_trigger(&d, 6, 1, 1);
	ASSERT_EQ(0, th_t_post(self->vp[0], &d, 1, NULL));
	ASSERT_EQ(0, th_t_ct_update(self->vp[0], 6, TH_ENG_CT_FAIL, 1, 0));
	EXPECT_EQ(0, queued(&self->net));	/* nothing was delivered */
	ASSERT_EQ(1, self->net.nfail);
	EXPECT_EQ(3, self->net.fail[0].node);
	EXPECT_EQ(self->vp[3]->ev.index, self->net.fail[0].vport);
	EXPECT_EQ(9, self->net.fail[0].ct);
	EXPECT_EQ(self->rkey[3], self->net.fail[0].rkey);
	EXPECT_EQ(24, self->net.fail[0].off);
	EXPECT_EQ(16, self->net.fail[0].len);
}

/* Local targets never reach the network. */
TEST_F(remote, local_nodes_stay_local)
{
	struct th_nic_desc d = thn_put_ct(self->key[0], 8, 1,
					  self->vp[1]->ev.index, self->rkey[1],
					  0, 8, 4);

	ASSERT_EQ(0, th_t_post(self->vp[0], &d, 1, NULL));
	EXPECT_EQ(0, queued(&self->net));
	EXPECT_EQ(1, th_t_ct(self->vp[1], 4));
	EXPECT_EQ(8, self->buf[1][0]);
}

TEST_HARNESS_MAIN
