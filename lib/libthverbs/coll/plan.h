/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * plan.h - a compiled collective: every chain of every local rank, with
 * its trigger counter, first threshold and per-round stride, built once
 * when the handle is created and posted once.  Each chain ends in REARM,
 * so later rounds need only the hosts' start increments: nothing is
 * allocated, copied or validated per round.  The plan is kept for
 * narration (th_coll_plan_step(), thctl demo).
 */
#ifndef TH_COLL_PLAN_H
#define TH_COLL_PLAN_H

#include <stdint.h>

#include "group.h"
#include <thverbs/verbs.h>
#include <thverbs/coll.h>

struct th_plan_step {
	unsigned int local;	/* index into the group's local ranks */
	uint16_t ct;
	uint64_t threshold;	/* round 1 */
	uint64_t stride;	/* per round; 0: runs once */
	uint32_t first, ndesc;	/* in the plan's descriptor array */
	const char *what;
};

struct th_plan {
	struct th_plan_step *step;
	unsigned int nsteps, cap;
	struct th_nic_desc *desc;
	uint32_t ndesc, dcap;
	struct th_chain *c;	/* the compiler's builder */
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
/* Post every step on its rank's vport, one doorbell per rank. */
int th_plan_post(struct th_plan *pl, struct th_group *g);
void th_plan_fini(struct th_plan *pl);

#endif /* TH_COLL_PLAN_H */
