/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * thverbs/thverbs.h - all of libthverbs' public headers at once: the verbs
 * (thverbs/verbs.h), the collectives (thverbs/coll.h), the host-driven
 * baselines (thverbs/hostcoll.h), the bootstrap (thverbs/boot.h), the DAG
 * scheduler (thverbs/sched.h), the placer (thverbs/place.h) and the LogGP(S)
 * simulator of GOAL schedules (thverbs/sim.h).
 */
#ifndef THVERBS_THVERBS_H
#define THVERBS_THVERBS_H

#include <thverbs/verbs.h>
#include <thverbs/coll.h>
#include <thverbs/hostcoll.h>
#include <thverbs/boot.h>
#include <thverbs/sched.h>
#include <thverbs/place.h>
#include <thverbs/verify.h>
#include <thverbs/sim.h>

#endif /* THVERBS_THVERBS_H */
