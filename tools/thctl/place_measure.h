/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * place_measure.h - running a placement's rounds on a provider and taking
 * the medians, for 'thctl place --run' and 'thbench place': one loop for
 * both (compiled into each tool, as nl.c is).
 */
#ifndef THCTL_PLACE_MEASURE_H
#define THCTL_PLACE_MEASURE_H

#include <stdint.h>

#include <thverbs/place.h>

/*
 * Compile placement @r of @j onto @vps (one vport per node, @nodes),
 * run @warmup rounds and then @reps, each bounded by @timeout_ns, and
 * give the median round (start to every copy done) in *@makespan, in
 * seconds: on the virtual clock if one is installed (th_place_timed()),
 * else CLOCK_MONOTONIC.  With @finish (@r->njobs of them), also each
 * job's median measured finish (th_place_exec_finishes(); in real time a
 * watcher thread stamps them, th_place_exec_watch()).  0 or a negative
 * errno: creation, a round that failed or timed out.
 */
int place_measure(const struct th_place_jobs *j, const struct th_place_result *r,
		  struct th_vport *const *vps, unsigned int nodes,
		  unsigned int warmup, unsigned int reps, uint64_t timeout_ns,
		  double *makespan, double *finish);

#endif /* THCTL_PLACE_MEASURE_H */
