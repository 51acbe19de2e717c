// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_security.c - the engine's isolation and bounds, on the in-process
 * fabric: domains (nothing crosses them, and from outside a vport looks
 * absent), the error state a remote key violation causes, the per-user
 * limits on vports and pending chains, the execution budget in bytes
 * (a doorbell hands long work over instead of running it), and fairness
 * between vports with deferred work.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "th_test.h"

FIXTURE(dom) {
	struct th_ipf *fab;
	struct th_ipf_domain *d;
	struct th_ipf_vport *in1, *in2, *out;
	u32 k_in1, k_in2, k_out;
	u64 r_in1, r_in2, r_out;
	u8 b_in1[256], b_in2[256], b_out[256];
};

FIXTURE_SETUP(dom)
{
	struct th_eng_limits lim = th_t_limits(3);
	int err = 0;

	self->fab = th_ipf_create(&lim, NULL, &err);
	ASSERT_NE(NULL, self->fab);
	self->d = th_ipf_domain_create(self->fab, &err);
	ASSERT_NE(NULL, self->d);
	self->in1 = th_t_vport_in(self->fab, 0, self->d, &err);
	self->in2 = th_t_vport_in(self->fab, 1, self->d, &err);
	self->out = th_t_vport(self->fab, 2, 0, 0, &err);
	ASSERT_NE(NULL, self->in1);
	ASSERT_NE(NULL, self->in2);
	ASSERT_NE(NULL, self->out);
	memset(self->b_in1, 0x11, sizeof(self->b_in1));
	memset(self->b_in2, 0x22, sizeof(self->b_in2));
	memset(self->b_out, 0x33, sizeof(self->b_out));
	ASSERT_EQ(0, th_t_mr_reg(self->in1, self->b_in1, 256, TH_NIC_ACCESS_ALL,
				 &self->k_in1, &self->r_in1));
	ASSERT_EQ(0, th_t_mr_reg(self->in2, self->b_in2, 256, TH_NIC_ACCESS_ALL,
				 &self->k_in2, &self->r_in2));
	ASSERT_EQ(0, th_t_mr_reg(self->out, self->b_out, 256, TH_NIC_ACCESS_ALL,
				 &self->k_out, &self->r_out));
}

FIXTURE_TEARDOWN(dom)
{
	th_ipf_domain_put(self->d);
	th_ipf_destroy(self->fab);
}

/* Post @d alone on @vp: its one CQ entry's status. */
static int run_one(struct th_ipf_vport *vp, struct th_nic_desc d)
{
	struct th_nic_cqe cqe[2];

	d.flags |= TH_NIC_DF_SIGNAL;
	if (th_t_post(vp, &d, 1, NULL) || th_t_cq_drain(vp, cqe, 2) != 1)
		return -EIO;
	return cqe[0].status;
}

/*
 * From outside the domain: a right key, a wrong key, a vport that does not
 * exist and a remote counter all answer -ECONNREFUSED; nothing moves;
 * the prober is not punished (it learnt nothing).
 */
TEST_F(dom, outside_the_domain_everything_looks_absent)
{
	u8 ones[256];
	int i;

	EXPECT_EQ(-ECONNREFUSED, run_one(self->out, thn_put_ct(self->k_out, 0, 0,
			self->in1->ev.index, self->r_in1, 0, 64, 3)));
	EXPECT_EQ(-ECONNREFUSED, run_one(self->out, thn_put(self->k_out, 0, 0,
			self->in1->ev.index, self->r_in1 ^ (1ULL << 30), 0, 64)));
	EXPECT_EQ(-ECONNREFUSED, run_one(self->out, thn_put(self->k_out, 0, 0,
			self->in1->ev.index + 5, self->r_in1, 0, 64)));
	EXPECT_EQ(-ECONNREFUSED, run_one(self->out, thn_get(self->k_out, 0, 0,
			self->in1->ev.index, self->r_in1, 0, 64)));
	EXPECT_EQ(-ECONNREFUSED, run_one(self->out, thn_inline_remote(0,
			self->in1->ev.index, self->r_in1, 0, "x", 1)));
	/* and the other way round */
	EXPECT_EQ(-ECONNREFUSED, run_one(self->in1, thn_put(self->k_in1, 0, 2,
			self->out->ev.index, self->r_out, 0, 64)));
	memset(ones, 0x11, sizeof(ones));
	EXPECT_EQ(0, memcmp(ones, self->b_in1, sizeof(ones)));
	memset(ones, 0x33, sizeof(ones));
	EXPECT_EQ(0, memcmp(ones, self->b_out, sizeof(ones)));
	for (i = 0; i < TH_ENG_DEF_COUNTERS; i++) {
		ASSERT_EQ(0, th_t_ct(self->in1, i));
		ASSERT_EQ(0, th_t_ct_fail(self->in1, i));
	}
	EXPECT_FALSE(self->out->ev.error);
	EXPECT_FALSE(self->in1->ev.error);
	/* inside, the same PUT lands */
	EXPECT_EQ(0, run_one(self->in2, thn_put_ct(self->k_in2, 0, 0,
			self->in1->ev.index, self->r_in1, 0, 64, 3)));
	EXPECT_EQ(0x22, self->b_in1[0]);
	EXPECT_EQ(1, th_t_ct(self->in1, 3));
}

/*
 * A chain cancelled outside the domain raises no failure value inside it,
 * even with the right key; inside, the same cancel does.
 */
TEST_F(dom, failure_values_do_not_cross_domains)
{
	struct th_nic_desc d;
	u32 n;

	d = thn_put_ct(self->k_out, 0, 0, self->in1->ev.index, self->r_in1, 0,
		       64, 4);
	thn_trigger(&d, 1, 1, 1);
	ASSERT_EQ(0, th_t_post(self->out, &d, 1, NULL));
	ASSERT_EQ(0, th_t_cancel(self->out, false, 0, &n));
	EXPECT_EQ(1, n);
	EXPECT_EQ(0, th_t_ct_fail(self->in1, 4));
	d = thn_put_ct(self->k_in2, 0, 0, self->in1->ev.index, self->r_in1, 0,
		       64, 4);
	thn_trigger(&d, 1, 1, 1);
	ASSERT_EQ(0, th_t_post(self->in2, &d, 1, NULL));
	ASSERT_EQ(0, th_t_cancel(self->in2, false, 0, &n));
	EXPECT_EQ(1, th_t_ct_fail(self->in1, 4));
	/* an authorised failure value costs nothing */
	EXPECT_FALSE(self->in2->ev.error);
}

/*
 * Cancelling a chain that names a peer's counter through a key the peer
 * refuses tests that key as surely as a PUT would (the counter's failure
 * value moves only for a right one): it costs the vport, as the PUT does.
 */
TEST_F(dom, testing_a_key_through_cancel_is_a_violation)
{
	struct th_nic_doorbell db;
	struct th_eng_stats st;
	struct th_nic_desc d;
	u32 n;

	d = thn_put_ct(self->k_in2, 0, 0, self->in1->ev.index,
		       self->r_in1 ^ (1ULL << 50), 0, 64, 4);
	thn_trigger(&d, 1, 1, 1);
	ASSERT_EQ(0, th_t_post(self->in2, &d, 1, NULL));
	ASSERT_EQ(0, th_t_cancel(self->in2, false, 0, &n));
	EXPECT_EQ(1, n);
	EXPECT_EQ(0, th_t_ct_fail(self->in1, 4));
	th_eng_stats_read(&self->in2->ev, &st);
	EXPECT_EQ(1, st.violations);
	EXPECT_TRUE(self->in2->ev.error);
	d = thn_notify(2);
	EXPECT_EQ(-ENOTCONN, th_t_post(self->in2, &d, 1, &db));
	EXPECT_EQ(TH_NIC_REFUSE_VPORT_ERROR, db.reason);
	EXPECT_FALSE(self->in1->ev.error);
}

/*
 * A key the target handed out and deregistered since is no test of
 * anything: cancelling a chain that still names it (a job tearing down)
 * costs nothing, and fails nothing at the target either.
 */
TEST_F(dom, a_key_deregistered_since_costs_nothing_on_cancel)
{
	struct th_eng_stats st;
	struct th_nic_desc d;
	u32 n;

	d = thn_put_ct(self->k_in2, 0, 0, self->in1->ev.index, self->r_in1, 0,
		       64, 4);
	thn_trigger(&d, 1, 1, 1);
	ASSERT_EQ(0, th_t_post(self->in2, &d, 1, NULL));
	ASSERT_EQ(0, th_t_mr_dereg(self->in1, self->k_in1));
	ASSERT_EQ(0, th_t_cancel(self->in2, false, 0, &n));
	EXPECT_EQ(1, n);
	EXPECT_EQ(0, th_t_ct_fail(self->in1, 4));
	th_eng_stats_read(&self->in2->ev, &st);
	EXPECT_EQ(0, st.violations);
	EXPECT_FALSE(self->in2->ev.error);
}

/*
 * The same through the failure path: a chain whose first descriptor fails
 * (a vport that does not exist) fails the counters of the rest, and a remote
 * one among them through a range past the peer's region is a violation.
 */
TEST_F(dom, testing_a_key_through_a_failed_chain_is_a_violation)
{
	struct th_nic_desc d[2];
	struct th_nic_cqe cqe[4];
	struct th_eng_stats st;

	d[0] = thn_put(self->k_in2, 0, 0, self->in1->ev.index + 5,
		       self->r_in1, 0, 8);
	d[1] = thn_put_ct(self->k_in2, 0, 0, self->in1->ev.index,
			  self->r_in1, 200, 64, 6);
	thn_link(d, 2);
	thn_trigger(&d[0], 0, 0, 5);
	ASSERT_EQ(0, th_t_post(self->in2, d, 2, NULL));
	ASSERT_LE(1, th_t_cq_drain(self->in2, cqe, 4));
	EXPECT_EQ(-ECONNREFUSED, cqe[0].status);
	EXPECT_EQ(0, cqe[0].desc_index);
	EXPECT_EQ(0, th_t_ct_fail(self->in1, 6));
	th_eng_stats_read(&self->in2->ev, &st);
	EXPECT_EQ(1, st.violations);
	EXPECT_TRUE(self->in2->ev.error);
	EXPECT_EQ(0x11, self->b_in1[0]);
}

/*
 * One violation: the violating chain fails with -EACCES, every pending
 * chain with -ENOTCONN, and the doorbell refuses from then on; counters
 * and registration remain the host's.  Destroying the vport is the way
 * out.
 */
TEST_F(dom, a_violation_puts_the_initiator_into_the_error_state)
{
	struct th_nic_doorbell db;
	struct th_nic_cqe cqe[8];
	struct th_nic_desc d;
	struct th_eng_stats st;
	u32 lkey, n;

	d = thn_notify(1);
	thn_trigger(&d, 2, 1, 71);
	ASSERT_EQ(0, th_t_post(self->in2, &d, 1, NULL));
	thn_trigger(&d, 3, 5, 72);
	ASSERT_EQ(0, th_t_post(self->in2, &d, 1, NULL));
	d = thn_put(self->k_in2, 0, 0, self->in1->ev.index,
		    self->r_in1 ^ (1ULL << 50), 0, 8);
	thn_trigger(&d, 0, 0, 70);
	ASSERT_EQ(0, th_t_post(self->in2, &d, 1, NULL));
	EXPECT_TRUE(self->in2->ev.error);
	/* the violation first, then the two pending chains it failed */
	n = th_t_cq_drain(self->in2, cqe, 8);
	ASSERT_EQ(3, n);
	EXPECT_EQ(70, cqe[0].cookie);
	EXPECT_EQ(-EACCES, cqe[0].status);
	EXPECT_EQ(-ENOTCONN, cqe[1].status);
	EXPECT_EQ(-ENOTCONN, cqe[2].status);
	EXPECT_EQ(71 + 72, cqe[1].cookie + cqe[2].cookie);
	d = thn_notify(2);
	EXPECT_EQ(-ENOTCONN, th_t_post(self->in2, &d, 1, &db));
	EXPECT_EQ(TH_NIC_REFUSE_VPORT_ERROR, db.reason);
	EXPECT_EQ(0, db.chains);
	EXPECT_EQ(0, th_t_ct_update(self->in2, 2, TH_ENG_CT_SET, 9, 0));
	EXPECT_EQ(9, th_t_ct(self->in2, 2));
	EXPECT_EQ(0, th_t_mr_reg(self->in2, self->b_in2, 8, 0, &lkey, NULL));
	th_eng_stats_read(&self->in2->ev, &st);
	EXPECT_EQ(1, st.violations);
	/* the target saw nothing */
	EXPECT_EQ(0x11, self->b_in1[0]);
	EXPECT_FALSE(self->in1->ev.error);
}

/*
 * A doorbell that races the vport's destruction (after the kill, before
 * the free) installs nothing: a chain left pending on a dead vport would
 * never complete.
 */
TEST_F(dom, a_doorbell_racing_destruction_installs_nothing)
{
	struct th_nic_doorbell db;
	struct th_nic_desc d = thn_notify(1);
	struct th_eng_ctx ctx;

	thn_trigger(&d, 4, 1, 1);
	th_eng_ctx_init(&ctx, th_ipf_engine(self->fab));
	th_eng_vport_kill(&self->in2->ev, &ctx);
	th_eng_ctx_run(&ctx);
	EXPECT_EQ(-ECONNREFUSED, th_t_post(self->in2, &d, 1, &db));
	EXPECT_EQ(TH_NIC_REFUSE_VPORT_GONE, db.reason);
	EXPECT_EQ(0, db.chains);
	EXPECT_EQ(0, th_atomic_read(&self->in2->ev.user->chains));
}

/*
 * In-process, a domain is a handle, never a descriptor: VPORT_CREATE
 * naming one by descriptor is refused, as are unknown flags and reserved
 * fields, and nothing is created.
 */
TEST_F(dom, vport_create_refusals)
{
	static const struct {
		const char *what;
		u32 flags, domain_fd, rsvd0;
		u64 rsvd;
	} rows[] = {
		{ "a domain descriptor", TH_NIC_VPORT_F_DOMAIN, 3, 0, 0 },
		{ "a descriptor without its flag", 0, 3, 0, 0 },
		{ "unknown flag", 2, 0, 0, 0 },
		{ "rsvd0", 0, 0, 1, 0 },
		{ "rsvd", 0, 0, 0, 1 },
	};
	struct th_nic_vport_create req;
	struct th_ipf_vport *vp;
	unsigned int i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		memset(&req, 0, sizeof(req));
		req.size = sizeof(req);
		req.flags = rows[i].flags;
		req.domain_fd = rows[i].domain_fd;
		req.rsvd0 = rows[i].rsvd0;
		req.rsvd[0] = rows[i].rsvd;
		EXPECT_EQ(-EINVAL, th_ipf_vport_create(self->fab, 0, NULL, &req,
						       &vp)) TH_LOG("%s", rows[i].what);
	}
	EXPECT_EQ(3, th_atomic_read(&self->in1->ev.user->vports));
}

/* ---- per-user limits --------------------------------------------------- */

FIXTURE(lim) {
	struct th_ipf *fab;
};

FIXTURE_SETUP(lim)
{
	struct th_eng_limits lim = th_t_limits(2);
	int err = 0;

	lim.max_user_vports = 3;
	lim.max_user_chains = 5;
	self->fab = th_ipf_create(&lim, NULL, &err);
	ASSERT_NE(NULL, self->fab);
}

FIXTURE_TEARDOWN(lim)
{
	th_ipf_destroy(self->fab);
}

TEST_F(lim, vports_per_user_on_the_whole_fabric)
{
	struct th_ipf_vport *v[4];
	struct th_nic_query q;
	int err = 0;

	th_eng_cmd_query(th_ipf_engine(self->fab), 0, 0, &q);
	EXPECT_EQ(3, q.max_user_vports);
	EXPECT_EQ(5, q.max_user_chains);
	v[0] = th_t_vport(self->fab, 0, 0, 0, &err);
	v[1] = th_t_vport(self->fab, 1, 0, 0, &err);
	v[2] = th_t_vport(self->fab, 1, 0, 0, &err);
	ASSERT_NE(NULL, v[2]);
	/* node 0 has 63 free slots, the user none */
	v[3] = th_t_vport(self->fab, 0, 0, 0, &err);
	EXPECT_EQ(NULL, v[3]);
	EXPECT_EQ(-ENOSPC, err);
	th_ipf_vport_destroy(v[1]);
	v[3] = th_t_vport(self->fab, 0, 0, 0, &err);
	EXPECT_NE(NULL, v[3]);
}

TEST_F(lim, pending_chains_per_user_on_all_its_vports)
{
	struct th_ipf_vport *a, *b;
	struct th_nic_doorbell db;
	struct th_nic_desc d[3];
	int err = 0, i;

	a = th_t_vport(self->fab, 0, 0, 0, &err);
	b = th_t_vport(self->fab, 1, 0, 0, &err);
	ASSERT_NE(NULL, b);
	for (i = 0; i < 3; i++) {
		d[i] = thn_nop();
		thn_trigger(&d[i], 1, 1, i);
	}
	ASSERT_EQ(0, th_t_post(a, d, 3, &db));
	EXPECT_EQ(3, db.chains);
	/* two more fit, on another vport; the third is refused whole */
	ASSERT_EQ(-ENOSPC, th_t_post(b, d, 3, &db));
	EXPECT_EQ(2, db.chains);
	EXPECT_EQ(TH_NIC_REFUSE_USER_CHAINS, db.reason);
	/* a completion makes room: the refused chain goes in */
	ASSERT_EQ(0, th_t_ct_update(a, 1, TH_ENG_CT_INC, 1, 0));
	EXPECT_EQ(0, th_t_doorbell(b, &db));
	EXPECT_EQ(1, db.chains);
}

/* ---- CPU: the budget in bytes, and fairness ---------------------------- */

FIXTURE(cpu) {
	struct th_ipf *fab;
	struct th_ipf_vport *a, *b;
};

FIXTURE_SETUP(cpu)
{
	struct th_eng_limits lim = th_t_limits(2);
	int err = 0;

	self->fab = th_ipf_create(&lim, NULL, &err);
	ASSERT_NE(NULL, self->fab);
	self->a = th_t_vport(self->fab, 0, 0, 0, &err);
	self->b = th_t_vport(self->fab, 1, 0, 0, &err);
	ASSERT_NE(NULL, self->b);
}

FIXTURE_TEARDOWN(cpu)
{
	th_ipf_destroy(self->fab);
}

#define MIB	(1ULL << 20)

/*
 * A 64 MiB COPY runs its first budget (TH_ENG_BUDGET_BYTES) in the
 * doorbell, then on the progress thread: the doorbell hands it over, the
 * work completes exactly once, and the data is right, including an
 * overlapping copy that must run from the top down.
 */
TEST_F(cpu, a_doorbell_hands_long_copies_over)
{
	u64 *s = malloc(64 * MIB + 4096), *t = malloc(64 * MIB), sx, fx, i;
	struct th_nic_desc d;
	struct th_eng_stats st;
	u32 ks, kt;

	ASSERT_NE(NULL, s);
	ASSERT_NE(NULL, t);
	for (i = 0; i < (64 * MIB + 4096) / 8; i++)
		s[i] = i;
	ASSERT_EQ(0, th_t_mr_reg(self->a, s, 64 * MIB + 4096,
				 TH_NIC_ACCESS_LOCAL_WRITE, &ks, NULL));
	ASSERT_EQ(0, th_t_mr_reg(self->a, t, 64 * MIB,
				 TH_NIC_ACCESS_LOCAL_WRITE, &kt, NULL));
	d = thn_copy(ks, 0, kt, 0, 64 * MIB);
	thn_comp_ct(&d, 1);
	ASSERT_EQ(0, th_t_post(self->a, &d, 1, NULL));
	th_eng_stats_read(&self->a->ev, &st);
	EXPECT_LE(1, st.chains_deferred);
	ASSERT_EQ(0, th_t_ct_wait(self->a, 1, 1, 60000000000ULL, &sx, &fx));
	EXPECT_EQ(1, sx);
	EXPECT_EQ(0, memcmp(s, t, 64 * MIB));
	/* memmove semantics across slices: shift the source up by 4 KiB */
	d = thn_copy(ks, 0, ks, 4096, 64 * MIB);
	thn_comp_ct(&d, 2);
	ASSERT_EQ(0, th_t_post(self->a, &d, 1, NULL));
	ASSERT_EQ(0, th_t_ct_wait(self->a, 2, 1, 60000000000ULL, &sx, &fx));
	for (i = 0; i < 64 * MIB / 8; i++)
		if (s[512 + i] != i) {
			EXPECT_EQ(i, s[512 + i]);
			break;
		}
	/* and from the bottom up: back down by 4 KiB */
	d = thn_copy(ks, 4096, ks, 0, 64 * MIB);
	thn_comp_ct(&d, 3);
	ASSERT_EQ(0, th_t_post(self->a, &d, 1, NULL));
	ASSERT_EQ(0, th_t_ct_wait(self->a, 3, 1, 60000000000ULL, &sx, &fx));
	for (i = 0; i < 64 * MIB / 8; i++)
		if (s[i] != i) {
			EXPECT_EQ(i, s[i]);
			break;
		}
	free(s);
	free(t);
}

/*
 * The budget holds between the descriptors of one chain too: sixteen
 * 1 MiB copies, each a single slice, are not run in one go by the
 * doorbell.
 */
TEST_F(cpu, the_budget_holds_between_descriptors)
{
	u8 *s = malloc(MIB), *t = malloc(MIB);
	struct th_nic_desc d[TH_ENG_DEF_CHAIN];
	struct th_eng_stats st;
	u32 ks, kt, i;
	u64 sx, fx;

	ASSERT_NE(NULL, s);
	ASSERT_NE(NULL, t);
	memset(s, 9, MIB);
	ASSERT_EQ(0, th_t_mr_reg(self->a, s, MIB, 0, &ks, NULL));
	ASSERT_EQ(0, th_t_mr_reg(self->a, t, MIB, TH_NIC_ACCESS_LOCAL_WRITE,
				 &kt, NULL));
	for (i = 0; i < TH_ENG_DEF_CHAIN; i++)
		d[i] = thn_copy(ks, 0, kt, 0, MIB);
	thn_comp_ct(&d[TH_ENG_DEF_CHAIN - 1], 1);
	thn_link(d, TH_ENG_DEF_CHAIN);
	ASSERT_EQ(0, th_t_post(self->a, d, TH_ENG_DEF_CHAIN, NULL));
	th_eng_stats_read(&self->a->ev, &st);
	EXPECT_LE(1, st.chains_deferred);
	ASSERT_EQ(0, th_t_ct_wait(self->a, 1, 1, 60000000000ULL, &sx, &fx));
	th_t_stats_when_done(self->a, 1, 5000, &st);
	EXPECT_EQ(TH_ENG_DEF_CHAIN, st.descs_run);
	EXPECT_EQ(1, st.chains_done);
	EXPECT_EQ(0, memcmp(s, t, MIB));
	free(s);
	free(t);
}

/*
 * Vport A hands 256 MiB of copies to the progress thread, then vport B
 * 8 MiB: vports with deferred work take turns, one budget each, so B is
 * done while nearly all of A's work is still waiting.  A queue served in
 * order would finish all of A first.
 */
TEST_F(cpu, deferred_work_takes_turns_between_vports)
{
	u8 *as = malloc(32 * MIB), *at = malloc(32 * MIB);
	u8 *bs = malloc(8 * MIB), *bt = malloc(8 * MIB);
	struct th_nic_desc d;
	u32 kas, kat, kbs, kbt, i;
	u64 sx, fx, a_done;

	ASSERT_NE(NULL, as);
	ASSERT_NE(NULL, bt);
	memset(as, 1, 32 * MIB);
	memset(bs, 2, 8 * MIB);
	ASSERT_EQ(0, th_t_mr_reg(self->a, as, 32 * MIB, 0, &kas, NULL));
	ASSERT_EQ(0, th_t_mr_reg(self->a, at, 32 * MIB,
				 TH_NIC_ACCESS_LOCAL_WRITE, &kat, NULL));
	ASSERT_EQ(0, th_t_mr_reg(self->b, bs, 8 * MIB, 0, &kbs, NULL));
	ASSERT_EQ(0, th_t_mr_reg(self->b, bt, 8 * MIB,
				 TH_NIC_ACCESS_LOCAL_WRITE, &kbt, NULL));
	for (i = 0; i < 8; i++) {
		d = thn_copy(kas, 0, kat, 0, 32 * MIB);
		thn_comp_ct(&d, 1);
		ASSERT_EQ(0, th_t_post(self->a, &d, 1, NULL));
	}
	d = thn_copy(kbs, 0, kbt, 0, 8 * MIB);
	thn_comp_ct(&d, 1);
	ASSERT_EQ(0, th_t_post(self->b, &d, 1, NULL));
	ASSERT_EQ(0, th_t_ct_wait(self->b, 1, 1, 60000000000ULL, &sx, &fx));
	a_done = th_t_ct(self->a, 1);
	TH_LOG("A's chains done when B's was: %llu of 8",
	       (unsigned long long)a_done);
	EXPECT_GT(8, a_done);
	EXPECT_EQ(0, memcmp(bs, bt, 8 * MIB));
	ASSERT_EQ(0, th_t_ct_wait(self->a, 1, 8, 60000000000ULL, &sx, &fx));
	EXPECT_EQ(0, memcmp(as, at, 32 * MIB));
	free(as);
	free(at);
	free(bs);
	free(bt);
}

TEST_HARNESS_MAIN
