/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * chainset.h - a chain file's chains, 'start' actions and 'expect' waits
 * as the set th_verify() and th_sim_chains() take: the descriptors
 * 'thctl post' would post, every node's one vport (0), its MRs as the
 * set's regions.
 */
#ifndef THCTL_CHAINSET_H
#define THCTL_CHAINSET_H

#include <thverbs/verify.h>
#include "chainfile.h"

/* every vport of 'thctl post' is its node's only one: vport 0 here */
#define CF_SET_VPORT	0

struct cf_set {
	struct th_verify_set set;
	struct th_verify_chain *chains;
	struct th_verify_action *actions;
	struct th_verify_wait *waits;
	struct th_nic_desc *descs;
	struct th_verify_region *regions;
};

/* Fills @s from @cf (its limits stay NULL); 0 or -ENOMEM. */
int cf_set_build(const struct chainfile *cf, struct cf_set *s);
void cf_set_free(struct cf_set *s);

#endif /* THCTL_CHAINSET_H */
