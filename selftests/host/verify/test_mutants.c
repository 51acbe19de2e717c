// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_mutants.c - the mutation check's smoke test: 50 mutants give a
 * well-formed confusion matrix (every mutant built, broken, verified and
 * run, each counted once, its mutation in words and its class real); the
 * rate is verify_mutants' to report, not this test's.  And TH_VERIFY_PLANS:
 * a plan broken before posting is refused with EPROTO, a sound one posted
 * and run; and this debug build verifies with it unset, not with "0".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <thverbs/coll.h>
#include <thverbs/verify.h>
#include "kselftest_harness.h"
#include "mutants.h"
#include "plan.h"

FIXTURE(mut) {
	int unused;
};

FIXTURE_SETUP(mut)
{
	self->unused = 0;
}

FIXTURE_TEARDOWN(mut)
{
}

TEST_F_TIMEOUT(mut, fifty_mutants_make_a_well_formed_matrix, 600)
{
	struct mut_config cfg = { .mutants = 50, .seed = 7, .timeout_ms = 500,
				  .jobs = 2 };
	struct mut_result res[50];
	struct mut_matrix mx;
	unsigned int i, run, fl, sum = 0, flagged = 0, kinds = 0, k;

	ASSERT_EQ(0, mut_run_all(&cfg, res, &mx, NULL));
	for (run = 0; run < MUT_RUN_MAX; run++)
		for (fl = 0; fl < 2; fl++)
			sum += mx.cell[run][fl];
	EXPECT_EQ(sum, mx.mutants);
	/* every mutant was built, broken, verified and run */
	EXPECT_EQ(50, mx.mutants);
	for (i = 0; i < 50; i++) {
		EXPECT_LT(res[i].kind, MUT_KIND_MAX);
		EXPECT_LT(res[i].run, MUT_RUN_MAX) TH_LOG("mutant %u: %s", i, res[i].what);
		EXPECT_TRUE(res[i].verified);
		EXPECT_NE(0, res[i].what[0]);
		if (res[i].flagged) {
			flagged++;
			EXPECT_NE(NULL, th_verify_class_name(res[i].vclass));
			EXPECT_FALSE(th_verify_class_is_warning(res[i].vclass));
		} else {
			EXPECT_EQ(-1, res[i].vclass);
		}
	}
	for (k = 0; k < MUT_KIND_MAX; k++) {
		unsigned int n = 0;

		for (run = 0; run < MUT_RUN_MAX; run++)
			n += mx.kind[k][run][0] + mx.kind[k][run][1];
		kinds += n > 0;
	}
	/* 50 draws of five kinds: each kind, and both verdicts, appear */
	EXPECT_EQ(MUT_KIND_MAX, kinds);
	EXPECT_GT(flagged, 0);
	EXPECT_LT(flagged, 50);
}

/* the hook: the first chain waits for one more than it will ever get */
static int raise_first_threshold(struct th_plan *pl, const struct th_group *g,
				 void *arg)
{
	(void)g;
	(void)arg;
	pl->desc[pl->step[0].first].threshold += 1;
	return 0;
}

static int world(struct th_vport **vps, struct th_context **ctx, unsigned int n)
{
	struct th_device **devs;
	int ndev = 0;
	unsigned int r;

	devs = th_device_list_get("inproc", &ndev);
	if (!devs || ndev < (int)n)
		return -ENODEV;
	for (r = 0; r < n; r++) {
		ctx[r] = th_device_open(devs[r]);
		vps[r] = ctx[r] ? th_vport_create(ctx[r], NULL) : NULL;
		if (!vps[r])
			return -errno;
	}
	th_device_list_free(devs);
	return 0;
}

/* four ranks on the in-process fabric, rank r contributing r + 1 */
FIXTURE(four) {
	struct th_vport *vps[4];
	struct th_context *ctx[4];
	int64_t send[4], recv[4];
	void *sp[4], *rp[4];
};

FIXTURE_SETUP(four)
{
	unsigned int r;

	ASSERT_EQ(0, world(self->vps, self->ctx, 4));
	for (r = 0; r < 4; r++) {
		self->send[r] = r + 1;
		self->recv[r] = 0;
		self->sp[r] = &self->send[r];
		self->rp[r] = &self->recv[r];
	}
}

FIXTURE_TEARDOWN(four)
{
	unsigned int r;

	for (r = 0; r < 4; r++) {
		th_vport_destroy(self->vps[r]);
		th_device_close(self->ctx[r]);
	}
}

TEST_F(four, th_verify_plans_refuses_a_broken_plan_and_posts_a_sound_one)
{
	struct th_coll_attr a = { .kind = TH_COLL_ALLREDUCE, .op = TH_NIC_ALU_SUM,
				  .dtype = TH_NIC_DT_INT64, .count = 1,
				  .radix = 2 };
	struct th_coll *cl;
	unsigned int r;

	setenv("TH_VERIFY_PLANS", "1", 1);
	cl = th_coll_create_local_edit(self->vps, 4, &a, self->sp, self->rp,
				       raise_first_threshold, NULL);
	EXPECT_EQ(NULL, cl);
	EXPECT_EQ(EPROTO, errno);
	/* the same plan unbroken verifies, is posted and runs */
	cl = th_coll_create_local(self->vps, 4, &a, self->sp, self->rp);
	ASSERT_NE(NULL, cl) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, th_coll_start(cl));
	ASSERT_EQ(0, th_coll_wait(cl, 10000000000ULL));
	for (r = 0; r < 4; r++)
		EXPECT_EQ(10, self->recv[r]);
	th_coll_destroy(cl);
}

/*
 * This test is a debug build (the sanitized objects, TH_DEBUG_BUILD): with
 * TH_VERIFY_PLANS unset it verifies anyway, and only "0" turns it off.
 */
TEST_F(four, a_debug_build_verifies_unless_told_not_to)
{
	struct th_coll_attr a = { .kind = TH_COLL_REDUCE, .op = TH_NIC_ALU_SUM,
				  .dtype = TH_NIC_DT_INT64, .count = 1,
				  .radix = 2 };
	struct th_coll *cl;

	unsetenv("TH_VERIFY_PLANS");
	cl = th_coll_create_local_edit(self->vps, 4, &a, self->sp, self->rp,
				       raise_first_threshold, NULL);
	EXPECT_EQ(NULL, cl);
	EXPECT_EQ(EPROTO, errno);
	setenv("TH_VERIFY_PLANS", "", 1);
	cl = th_coll_create_local_edit(self->vps, 4, &a, self->sp, self->rp,
				       raise_first_threshold, NULL);
	EXPECT_EQ(NULL, cl);
	EXPECT_EQ(EPROTO, errno);
	/* told not to, the broken plan is posted (and never started) */
	setenv("TH_VERIFY_PLANS", "0", 1);
	cl = th_coll_create_local_edit(self->vps, 4, &a, self->sp, self->rp,
				       raise_first_threshold, NULL);
	EXPECT_NE(NULL, cl) TH_LOG("%s", strerror(errno));
	th_coll_destroy(cl);
}

TEST_HARNESS_MAIN
