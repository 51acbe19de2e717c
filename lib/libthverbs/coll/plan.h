/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * plan.h - a compiled collective: every chain of every local rank, with
 * its trigger counter, first threshold and per-round stride, built once
 * when the handle is created and posted once.  Each chain ends in REARM,
 * so later rounds need only the hosts' start increments: nothing is
 * allocated, copied or validated per round.  The plan is kept for
 * narration (th_coll_plan_step(), thctl demo) and is what the verifier
 * reads (th_plan_verify(), Documentation/verify.rst): the descriptors
 * posted and those verified are the same array.
 */
#ifndef TH_COLL_PLAN_H
#define TH_COLL_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "group.h"
#include <thverbs/verbs.h>
#include <thverbs/coll.h>
#include <thverbs/verify.h>

struct th_plan_step {
	unsigned int local;	/* index into the group's local ranks */
	uint16_t ct;
	uint64_t threshold;	/* round 1 */
	uint64_t stride;	/* per round; 0: runs once */
	uint32_t first, ndesc;	/* in the plan's descriptor array */
	const char *what;
};

/* What a local rank's host raises to start a round: @ct by @value. */
struct th_plan_start {
	uint16_t ct;
	uint64_t value;
};

struct th_plan {
	struct th_plan_step *step;
	unsigned int nsteps, cap;
	struct th_nic_desc *desc;
	uint32_t ndesc, dcap;
	struct th_chain *c;	/* the compiler's builder */
	/* rounds in which every chain fires once: 1, or 2 (an exchange) */
	unsigned int period;
	/* per local rank, after th_plan_fold_starts(); NULL: @ct 0 by 1 */
	struct th_plan_start *start;
};

int th_plan_init(struct th_plan *pl);
/* The builder, reset: the compiler adds a chain's descriptors to it. */
struct th_chain *th_plan_chain(struct th_plan *pl);
/*
 * Record the builder's chain for local rank @local, triggered on @ct at
 * @threshold in round 1 and at @threshold + (k - 1) * @stride in round k
 * (it ends in REARM; @stride 0: it runs once).
 */
int th_plan_add(struct th_plan *pl, unsigned int local, uint16_t ct,
		uint64_t threshold, uint64_t stride, const char *what);
/*
 * Each local rank of @nlocal whose only chain on @start_ct (the host's
 * start, raised by 1 a round) is a relay, one CT_INC of a counter of its
 * own at threshold 1 and stride 1, loses that chain: its host raises the
 * relay's counter itself (pl->start).  A chain fewer per rank and round.
 */
int th_plan_fold_starts(struct th_plan *pl, unsigned int nlocal,
			uint16_t start_ct);
/* What local rank @local's host raises to start a round. */
struct th_plan_start th_plan_start_of(const struct th_plan *pl,
				      unsigned int local, uint16_t start_ct);
/* Post every step on its rank's vport, one doorbell per rank. */
int th_plan_post(struct th_plan *pl, struct th_group *g);
void th_plan_fini(struct th_plan *pl);

/*
 * plan_verify.c: th_verify() on the plan of @g's ranks (every rank of the
 * job must be local), with each rank's one start increment as the host's
 * update, against @limits (NULL: none) and @sq / @cq slots per vport (0:
 * @limits'); chain i of the findings is step i.  Returns th_verify()'s.
 */
int th_plan_verify(const struct th_plan *pl, const struct th_group *g,
		   const struct th_nic_query *limits, uint32_t sq, uint32_t cq,
		   struct th_verify_finding *out, unsigned int max);
/*
 * coll.c: th_coll_create_local() with @edit called on the compiled plan
 * before it is verified (TH_VERIFY_PLANS) and posted; not exported: the
 * mutation tool (selftests/host/verify/verify_mutants.c) breaks plans
 * with it.  A non-zero return fails the creation with it.
 */
typedef int (*th_coll_plan_edit_fn)(struct th_plan *pl,
				    const struct th_group *g, void *arg);
struct th_coll *th_coll_create_local_edit(struct th_vport *const *vps,
					  unsigned int n,
					  const struct th_coll_attr *attr,
					  void *const *send, void *const *recv,
					  th_coll_plan_edit_fn edit, void *arg);

/*
 * plan_verify.c: the set th_plan_verify() checks, kept for the caller
 * (th_coll_set()); NULL with errno; freed by th_plan_set_destroy().
 */
struct th_verify_set *th_plan_set(const struct th_plan *pl,
				  const struct th_group *g,
				  const struct th_nic_query *limits);
void th_plan_set_destroy(struct th_verify_set *set);

/* TH_VERIFY_PLANS=1 in the environment: verify every plan compiled. */
bool th_plan_verify_wanted(void);
/* @f, in one line, on stderr: "libthverbs: plan: CLASS: rank R step I ..." */
void th_plan_verify_report(const struct th_plan *pl, const struct th_group *g,
			   const struct th_verify_finding *f);

#endif /* TH_COLL_PLAN_H */
