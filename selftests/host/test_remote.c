// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_remote.c - the engine's hooks for nodes hosted elsewhere (struct
 * th_eng_ops.node_remote and friends, which the ofi provider uses), driven
 * by a network the test plays by hand: nodes 2 and 3 are "remote", a
 * delivery to them waits in a queue until the test carries it out with
 * the target's side of the engine (th_eng_remote_hold()) and ends it with
 * th_eng_remote_done().  The chain stops at the delivery and goes on
 * after it, a refusal is the initiator's violation or not as on one node,
 * a vport's teardown waits for its delivery and for a peer's held
 * reference (dropped without the fabric's lock), failure values and watches
 * reach the network, and every chain completes exactly once.  Offloaded
 * chains (ops->offload_arm): a chain whose first descriptor is a remote
 * PUT is offered to the network, which sees its counter move, is told
 * when it fires (and must resume it) or is dropped (and gets the held
 * source range to release), and loses it again when the source region is
 * deregistered; no offer in the timed mode or under fault injection.
 */
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
	/* offloaded chains: @take says whether offload_arm() accepts */
	bool take;
	unsigned int arms, counters, disarms;
	struct th_eng_chain *armed;
	u32 arm_ct;
	u64 arm_threshold, arm_success;
	u8 arm_opcode;
	const u8 *arm_local;
	u64 ct_success, ct_failure;
	int disarm_status;
	struct th_eng_mr_ref hold;
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

static bool fake_offload_arm(void *arg, struct th_eng_chain *chain,
			     struct th_eng_vport *ev, u32 ct, u64 threshold,
			     u64 success, const struct th_eng_remote_op *op)
{
	struct fake_net *net = arg;

	(void)ev;
	pthread_mutex_lock(&net->lock);
	net->arms++;
	net->armed = chain;
	net->arm_ct = ct;
	net->arm_threshold = threshold;
	net->arm_success = success;
	net->arm_opcode = op->opcode;
	net->arm_local = op->local;
	pthread_mutex_unlock(&net->lock);
	return net->take;
}

static void fake_offload_counter(void *arg, struct th_eng_vport *ev, u32 ct,
				 u64 success, u64 failure)
{
	struct fake_net *net = arg;

	(void)ev;
	(void)ct;
	pthread_mutex_lock(&net->lock);
	net->counters++;
	net->ct_success = success;
	net->ct_failure = failure;
	pthread_mutex_unlock(&net->lock);
}

/* Keeps what it is handed: the engine's lock is held, so no release here. */
static void fake_offload_disarm(void *arg, struct th_eng_chain *chain,
				int status, struct th_eng_mr_ref *hold)
{
	struct fake_net *net = arg;

	(void)chain;
	pthread_mutex_lock(&net->lock);
	net->disarms++;
	net->disarm_status = status;
	net->hold = *hold;
	pthread_mutex_unlock(&net->lock);
}

static unsigned int disarms(struct fake_net *net)
{
	return __atomic_load_n(&net->disarms, __ATOMIC_SEQ_CST);
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
		.chain_posted = fake_posted,
		.offload_arm = fake_offload_arm,
		.offload_counter = fake_offload_counter,
		.offload_disarm = fake_offload_disarm, .arg = &self->net,
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
 * A transfer holds its peer (the provider's vport_get, as
 * th_eng_remote_get() takes it) and drops it without the fabric's lock: a
 * teardown of that peer waits for the reference, and the drop that makes
 * it the last one wakes the teardown.  Bounded: the teardown must end
 * within 5 s of the drop.
 */
TEST_F(remote, teardown_waits_for_a_held_peer_and_wakes_when_it_is_dropped)
{
	struct th_eng *e = th_ipf_engine(self->fab);
	u32 index = self->vp[1]->ev.index;
	struct th_eng_vport *peer = e->ops->vport_get(e->fabric, 1, index);
	struct destroyer ds = { .vp = self->vp[1] };
	struct timespec ms = { 0, 50000000 }, deadline;
	pthread_t t;

	ASSERT_EQ(&self->vp[1]->ev, peer);
	ASSERT_EQ(0, pthread_create(&t, NULL, destroy_thread, &ds));
	nanosleep(&ms, NULL);
	EXPECT_FALSE(__atomic_load_n(&ds.done, __ATOMIC_SEQ_CST));
	e->ops->vport_put(e->fabric, peer);
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 5;
	ASSERT_EQ(0, pthread_timedjoin_np(t, NULL, &deadline))
		TH_LOG("the teardown was not woken by the last reference's drop");
	EXPECT_TRUE(ds.done);
	self->vp[1] = NULL;
	/* the table no longer knows it */
	EXPECT_EQ(NULL, e->ops->vport_get(e->fabric, 1, index));
}

/*
 * Lookups take no lock, and count their references per slot of the
 * fabric's table (th_ipf_vport_get()).  While a vport's teardown waits for
 * a held reference, its slot is found empty by a lookup, and it is not
 * given to a new vport, whose count would keep the teardown waiting; once
 * the teardown is over it is free again, and a lookup there finds the new
 * vport and nothing of the old.
 */
TEST_F(remote, a_slot_is_not_reused_while_its_vport_is_torn_down)
{
	struct th_eng *e = th_ipf_engine(self->fab);
	u32 index = self->vp[1]->ev.index;
	struct th_eng_vport *peer = e->ops->vport_get(e->fabric, 1, index);
	struct destroyer ds = { .vp = self->vp[1] };
	struct timespec ms = { 0, 50000000 }, deadline;
	struct th_ipf_vport *during, *after;
	struct th_eng_vport *found;
	pthread_t t;
	int err;

	ASSERT_EQ(&self->vp[1]->ev, peer);
	ASSERT_EQ(0, pthread_create(&t, NULL, destroy_thread, &ds));
	nanosleep(&ms, NULL);
	ASSERT_FALSE(__atomic_load_n(&ds.done, __ATOMIC_SEQ_CST));
	/* the teardown holds the slot: found empty, not reused */
	EXPECT_EQ(NULL, e->ops->vport_get(e->fabric, 1, index));
	during = th_t_vport(self->fab, 1, 0, 0, &err);
	ASSERT_NE(NULL, during);
	EXPECT_NE(index, during->ev.index);
	e->ops->vport_put(e->fabric, peer);
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 5;
	ASSERT_EQ(0, pthread_timedjoin_np(t, NULL, &deadline))
		TH_LOG("the teardown did not end once its reference was dropped");
	self->vp[1] = NULL;
	/* the slot is free again: the next vport of node 1 takes it */
	after = th_t_vport(self->fab, 1, 0, 0, &err);
	ASSERT_NE(NULL, after);
	EXPECT_EQ(index, after->ev.index);
	found = e->ops->vport_get(e->fabric, 1, index);
	EXPECT_EQ(&after->ev, found);
	if (found)
		e->ops->vport_put(e->fabric, found);
	th_ipf_vport_destroy(after);
	th_ipf_vport_destroy(during);
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

/*
 * An offloaded PUT: the network sees the counter, is told when the chain
 * fires (remote_post is not called: the network sent it), and the chain
 * goes on only when the network ends the delivery.
 */
TEST_F(remote, an_offloaded_put_is_sent_by_the_network_and_resumed_by_it)
{
	struct th_nic_desc d = thn_put_ct(self->key[0], 16, 2,
					  self->vp[2]->ev.index, self->rkey[2],
					  64, 32, 5);
	struct fake_net *net = &self->net;
	struct th_eng_ctx ctx;
	struct th_nic_cqe cqe;
	int j;

	net->take = true;
	d.flags |= TH_NIC_DF_SIGNAL;
	thn_trigger(&d, 1, 2, 42);
	ASSERT_EQ(0, th_t_post(self->vp[0], &d, 1, NULL));
	ASSERT_EQ(1, net->arms);
	EXPECT_EQ(TH_NIC_OP_PUT, net->arm_opcode);
	EXPECT_EQ(1, net->arm_ct);
	EXPECT_EQ(2, net->arm_threshold);
	EXPECT_EQ(0, net->arm_success);
	EXPECT_EQ(self->buf[0] + 16, net->arm_local);

	ASSERT_EQ(0, th_t_ct_update(self->vp[0], 1, TH_ENG_CT_INC, 1, 0));
	EXPECT_EQ(1, net->counters);
	EXPECT_EQ(1, net->ct_success);
	EXPECT_EQ(0, disarms(net));
	ASSERT_EQ(0, th_t_ct_update(self->vp[0], 1, TH_ENG_CT_INC, 1, 0));
	EXPECT_EQ(2, net->ct_success);
	ASSERT_EQ(1, disarms(net));
	EXPECT_EQ(0, net->disarm_status);
	EXPECT_EQ(NULL, net->hold.mr);		/* the chain keeps its range */
	EXPECT_EQ(0, queued(net));		/* the network sent it itself */
	EXPECT_EQ(0, th_t_cq_drain(self->vp[0], &cqe, 1));

	/* the network's delivery, then its end resumes the chain */
	memcpy(self->buf[2] + 64, net->arm_local, 32);
	th_eng_ctx_init(&ctx, th_ipf_engine(self->fab));
	th_eng_ct_update(&self->vp[2]->ev, 5, TH_ENG_CT_INC, 1, 0, &ctx);
	th_eng_remote_done(&ctx, net->armed, 0);
	th_eng_ctx_run(&ctx);
	ASSERT_EQ(1, th_t_cq_drain(self->vp[0], &cqe, 1));
	EXPECT_EQ(42, cqe.cookie);
	EXPECT_EQ(0, cqe.status);
	for (j = 0; j < 32; j++)
		ASSERT_EQ((u8)(16 + j), self->buf[2][64 + j]);
	/* the range was released: deregistration does not wait */
	EXPECT_EQ(0, th_t_mr_dereg(self->vp[0], self->key[0]));
	EXPECT_EQ(1, disarms(net));
}

struct deregger {
	struct th_ipf_vport *vp;
	u32 key;
	int ret;
	bool done;
};

static void *dereg_thread(void *arg)
{
	struct deregger *dr = arg;

	dr->ret = th_t_mr_dereg(dr->vp, dr->key);
	__atomic_store_n(&dr->done, true, __ATOMIC_SEQ_CST);
	return NULL;
}

/*
 * A dropped offload (its counter failed) hands the held source range to
 * the network, whose message may still read it: deregistration waits
 * until the network releases it.  The failure reaches the remote counter.
 */
TEST_F(remote, a_dropped_offload_hands_its_source_range_to_the_network)
{
	struct th_nic_desc d = thn_put_ct(self->key[1], 0, 3,
					  self->vp[3]->ev.index, self->rkey[3],
					  0, 8, 6);
	struct deregger dr = { .vp = self->vp[1], .key = self->key[1] };
	struct timespec ms = { 0, 50000000 };
	struct fake_net *net = &self->net;
	struct th_nic_cqe cqe;
	pthread_t t;

	net->take = true;
	thn_trigger(&d, 2, 3, 7);
	ASSERT_EQ(0, th_t_post(self->vp[1], &d, 1, NULL));
	ASSERT_EQ(1, net->arms);
	ASSERT_EQ(0, th_t_ct_update(self->vp[1], 2, TH_ENG_CT_FAIL, 1, 0));
	ASSERT_EQ(1, disarms(net));
	EXPECT_EQ(-EIO, net->disarm_status);
	EXPECT_EQ(1, net->ct_failure);
	ASSERT_NE(NULL, net->hold.mr);
	ASSERT_EQ(1, th_t_cq_drain(self->vp[1], &cqe, 1));
	EXPECT_EQ(-EIO, cqe.status);
	ASSERT_EQ(1, net->nfail);
	EXPECT_EQ(6, net->fail[0].ct);
	EXPECT_EQ(0, queued(net));

	ASSERT_EQ(0, pthread_create(&t, NULL, dereg_thread, &dr));
	nanosleep(&ms, NULL);
	EXPECT_FALSE(__atomic_load_n(&dr.done, __ATOMIC_SEQ_CST));
	th_eng_remote_release(&net->hold);
	pthread_join(t, NULL);
	EXPECT_EQ(0, dr.ret);
	EXPECT_EQ((u8)(3 * 50), self->buf[3][0]);	/* untouched */
}

/*
 * Deregistering an offloaded PUT's source withdraws the offload (-EAGAIN,
 * the range handed over); the chain stays pending in the engine and fails
 * with -EACCES when it runs, as without the offload.
 */
TEST_F(remote, deregistering_the_source_withdraws_the_offload)
{
	struct th_nic_desc d = thn_put_ct(self->key[0], 0, 2,
					  self->vp[2]->ev.index, self->rkey[2],
					  0, 8, 4);
	struct deregger dr = { .vp = self->vp[0], .key = self->key[0] };
	struct fake_net *net = &self->net;
	struct th_nic_cqe cqe;
	pthread_t t;
	int i;

	net->take = true;
	d.flags |= TH_NIC_DF_SIGNAL;
	thn_trigger(&d, 3, 1, 9);
	ASSERT_EQ(0, th_t_post(self->vp[0], &d, 1, NULL));
	ASSERT_EQ(1, net->arms);
	ASSERT_EQ(0, pthread_create(&t, NULL, dereg_thread, &dr));
	for (i = 0; i < 2000 && !disarms(net); i++)
		usleep(1000);
	ASSERT_EQ(1, disarms(net));
	EXPECT_EQ(-EAGAIN, net->disarm_status);
	ASSERT_NE(NULL, net->hold.mr);
	th_eng_remote_release(&net->hold);
	pthread_join(t, NULL);
	EXPECT_EQ(0, dr.ret);
	EXPECT_EQ(0, th_t_cq_drain(self->vp[0], &cqe, 1));	/* still pending */

	ASSERT_EQ(0, th_t_ct_update(self->vp[0], 3, TH_ENG_CT_INC, 1, 0));
	ASSERT_EQ(1, th_t_cq_drain(self->vp[0], &cqe, 1));
	EXPECT_EQ(9, cqe.cookie);
	EXPECT_EQ(-EACCES, cqe.status);
	EXPECT_EQ(0, queued(net));
	EXPECT_EQ(1, disarms(net));		/* told once */
	ASSERT_EQ(1, net->nfail);			/* its counter, failed */
	EXPECT_EQ(4, net->fail[0].ct);
}

/*
 * The network's refusal leaves the chain to the engine, its range not
 * held; fault injection on the node means no offer at all.
 */
TEST_F(remote, no_offload_when_refused_or_under_fault_injection)
{
	struct th_nic_desc d = thn_put_ct(self->key[0], 0, 2,
					  self->vp[2]->ev.index, self->rkey[2],
					  0, 8, 4);
	struct th_eng_fault f = { .drop_ppm = 1, .vport = TH_ENG_FAULT_ANY };
	struct fake_net *net = &self->net;

	thn_trigger(&d, 3, 1, 9);
	ASSERT_EQ(0, th_t_post(self->vp[0], &d, 1, NULL));
	ASSERT_EQ(1, net->arms);			/* offered, refused */
	EXPECT_EQ(0, th_t_mr_dereg(self->vp[0], self->key[0]));	/* not held */

	net->take = true;
	ASSERT_EQ(0, th_eng_fault_set(th_ipf_engine(self->fab), 1, &f));
	d.xfer.lkey = self->key[1];
	ASSERT_EQ(0, th_t_post(self->vp[1], &d, 1, NULL));
	EXPECT_EQ(1, net->arms);			/* not offered */
	EXPECT_EQ(0, disarms(net));
}

/*
 * Fault injection turned on after a chain was offloaded takes it back
 * (th_eng_offload_withdraw()): the network drops its delivery, and the
 * chain runs in the engine, where the faults act on what it sends.
 */
TEST_F(remote, fault_injection_takes_offloaded_chains_back)
{
	struct th_nic_desc d = thn_put_ct(self->key[0], 0, 2,
					  self->vp[2]->ev.index, self->rkey[2],
					  0, 8, 4);
	struct fake_net *net = &self->net;

	net->take = true;
	thn_trigger(&d, 3, 1, 9);
	ASSERT_EQ(0, th_t_post(self->vp[0], &d, 1, NULL));
	ASSERT_EQ(1, net->arms);
	th_eng_offload_withdraw(&self->vp[0]->ev);
	ASSERT_EQ(1, disarms(net));
	EXPECT_EQ(-EAGAIN, net->disarm_status);
	ASSERT_NE(NULL, net->hold.mr);
	th_eng_remote_release(&net->hold);
	th_eng_offload_withdraw(&self->vp[0]->ev);	/* nothing left */
	EXPECT_EQ(1, disarms(net));

	/* it fires in the engine now: remote_post, as without the offload */
	ASSERT_EQ(0, th_t_ct_update(self->vp[0], 3, TH_ENG_CT_INC, 1, 0));
	ASSERT_EQ(1, queued(net));
	ASSERT_EQ(0, deliver(net, 0, self->vp[2], th_ipf_engine(self->fab), 0));
	EXPECT_EQ(1, th_t_ct(self->vp[2], 4));
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
