/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * counters.h - which counters of a vport each collective handle uses.
 * The table in plan.c (th_coll_counter_map()) says the same in words; the
 * two ranges do not overlap, so an offload handle and a baseline handle
 * may share a vport.
 */
#ifndef TH_COLL_COUNTERS_H
#define TH_COLL_COUNTERS_H

/* th_coll: 0 ... 8 + 2 * TH_COLL_MAX_SEG - 1 */
#define TH_COLL_CT_S		0	/* the host's start, one per round */
#define TH_COLL_CT_F		1	/* segments finished on this rank */
#define TH_COLL_CT_Y		2	/* Broadcast: this rank and children ready */
#define TH_COLL_CT_D		3	/* rounds complete: what the host waits for */
#define TH_COLL_CT_C		4	/* two-rank Broadcast: credits answered */
#define TH_COLL_CT_U(s)		(8 + 2 * (s))	/* segment s: contributions */
#define TH_COLL_CT_B(s)		(9 + 2 * (s))	/* segment s: may go down */
#define TH_COLL_MAX_SEG		100
/*
 * An eager Broadcast (one segment): child j's counter, where the rounds
 * this rank released to it and the child's credits meet.  Counters 10 ..
 * 10 + TH_COLL_EAGER_MAX_CHILD - 1, which are U(s) and B(s) for s >= 1:
 * unused with one segment.
 */
#define TH_COLL_CT_K(j)		(10 + (j))
#define TH_COLL_EAGER_MAX_CHILD	64

/* th_hostcoll: 216 ... 255 */
#define TH_HOSTCOLL_CT_R		216	/* tree: children's contributions */
#define TH_HOSTCOLL_CT_B		217	/* tree: the result from the parent */
#define TH_HOSTCOLL_CT_PRE		218	/* recdbl: the extra even rank's send */
#define TH_HOSTCOLL_CT_RES		219	/* recdbl: the result from the odd rank */
#define TH_HOSTCOLL_CT_SENT		220	/* this rank's own PUTs completed */
#define TH_HOSTCOLL_CT_STEP(s)	(224 + (s))	/* recdbl: step s arrived */
#define TH_HOSTCOLL_MAX_STEPS	32
#define TH_HOSTCOLL_NEED_CTS		256

#endif /* TH_COLL_COUNTERS_H */
