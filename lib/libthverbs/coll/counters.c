// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * counters.c - the one map of the counters collective handles use
 * (counters.h, th_coll_counter_map()): which handle, which counters, what
 * each counts.  thctl demo prints it beside the plan.
 */
#include <errno.h>

#include <thverbs/coll.h>
#include "counters.h"
#include "thverbs_priv.h"

static const struct th_coll_counter th_coll_counters[] = {
	{ TH_COLL_CT_S, 1, "S", "offload",
	  "the host's start, where a chain waits for it: one increment per "
	  "round (th_coll_plan_start() names the counter each rank starts)" },
	{ TH_COLL_CT_F, 1, "F", "offload",
	  "segments finished on this rank (once per fan-out chain where they "
	  "go down; on a leaf, once per segment arrived), where a round has "
	  "more than one: a chain raises D when a round's are all in" },
	{ TH_COLL_CT_Y, 1, "Y", "offload (Broadcast)",
	  "this rank and each child ready to receive the round" },
	{ TH_COLL_CT_D, 1, "D", "offload",
	  "rounds complete on this rank, what th_coll_wait() waits for: "
	  "raised by the round's one finish, or by the chain on F" },
	{ TH_COLL_CT_C, 1, "C", "offload (eager Broadcast)",
	  "this rank's credits to its parent that were answered: its "
	  "teardown waits for the last" },
	{ TH_COLL_CT_U(0), TH_COLL_MAX_SEG, "U(s)", "offload",
	  "segment s: own start, children's contributions, parent's credit "
	  "(counters 8, 10, 12 ...)" },
	{ TH_COLL_CT_B(0), TH_COLL_MAX_SEG, "B(s)", "offload",
	  "segment s: the result (or the data) may go down "
	  "(counters 9, 11, 13 ...)" },
	{ TH_COLL_CT_K(0), TH_COLL_EAGER_MAX_CHILD, "K(j)",
	  "offload (eager Broadcast of one segment)",
	  "child j: twice the rounds released to it, plus its credits "
	  "(counters 10 ... 73, unused by U(s) and B(s) with one segment)" },
	{ TH_HOSTCOLL_CT_R, 1, "R", "p2p-tree",
	  "children's contributions arrived" },
	{ TH_HOSTCOLL_CT_B, 1, "B", "p2p-tree", "the result arrived from the parent" },
	{ TH_HOSTCOLL_CT_PRE, 1, "PRE", "recdbl", "the extra even rank's vector" },
	{ TH_HOSTCOLL_CT_RES, 1, "RES", "recdbl", "the result from the odd rank" },
	{ TH_HOSTCOLL_CT_SENT, 1, "SENT", "p2p-tree, recdbl",
	  "this rank's own PUTs completed: their sources may be reused" },
	{ TH_HOSTCOLL_CT_STEP(0), TH_HOSTCOLL_MAX_STEPS, "STEP(s)", "recdbl",
	  "the partner's partial result of step s arrived" },
};

int th_coll_counter_map(unsigned int i, struct th_coll_counter *out)
{
	if (!out)
		return -EINVAL;
	if (i >= sizeof(th_coll_counters) / sizeof(th_coll_counters[0]))
		return -ENOENT;
	*out = th_coll_counters[i];
	return 0;
}
