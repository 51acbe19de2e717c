/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * thverbs/sim.h - a timed simulator of GOAL schedules under the LogGP(S)
 * model, the one LogGOPSim (github.com/spcl/LogGOPSim) implements: a GOAL
 * text reader and writer, k-nomial schedule generators, and a discrete-event
 * core in virtual time.  Documentation/sim.rst describes the model, the GOAL
 * subset read and how each parameter is charged.
 *
 * Conventions: functions return 0 or a negative errno; on failure the
 * functions that take @err write a sentence saying why there (at most
 * @errlen bytes, NUL-terminated; @err may be NULL).  Times are virtual
 * nanoseconds.  Objects are single-threaded.
 */
#ifndef TH_SIM_H
#define TH_SIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <thverbs/api.h>

TH_API_BEGIN

/* A parsed or generated schedule: ranks, their operations and dependencies. */
struct th_sim_goal;

/*
 * The LogGP(S) parameters, in ns (G and O per byte); messages of more than
 * S bytes use a rendezvous.  th_sim_params_default() gives LogGOPSim's
 * defaults: L=2500 o=1500 g=1000 G=6 O=0 S=65535.
 */
struct th_sim_params {
	uint64_t L, o, g, G, O, S;
};

/* What a run gives: each rank's finish time, the maximum, the event count. */
struct th_sim_result {
	unsigned int ranks;
	uint64_t *finish_ns;		/* [ranks] */
	uint64_t max_ns;
	uint64_t events;		/* operations and messages handled */
};

void th_sim_params_default(struct th_sim_params *p);

/*
 * Reads GOAL text (@len bytes, need not be NUL-terminated); @name names it
 * in error messages ("name:line: why").
 */
int th_sim_goal_parse(const char *text, size_t len, const char *name,
		      struct th_sim_goal **goal, char *err, size_t errlen);

/*
 * A k-nomial schedule of @ranks ranks rooted at rank 0: @pattern is
 * "reduce", "bcast" or "allreduce" (a reduce then a broadcast), each
 * message @bytes long.  With @radix 2 the tree is LogGOPSim's schedgen
 * binomial tree.
 */
int th_sim_goal_gen(const char *pattern, unsigned int ranks,
		    unsigned int radix, uint64_t bytes,
		    struct th_sim_goal **goal, char *err, size_t errlen);

/* Writes @goal as GOAL text that th_sim_goal_parse() and LogGOPSim read. */
int th_sim_goal_write(const struct th_sim_goal *goal, FILE *f);

void th_sim_goal_destroy(struct th_sim_goal *goal);

/*
 * Simulates @goal under @params; @res is filled (release it with
 * th_sim_result_fini()).  -EDEADLK when operations never ran (a receive
 * no send matched, or a send no receive took), said in @err.
 */
int th_sim_run(const struct th_sim_goal *goal,
	       const struct th_sim_params *params, struct th_sim_result *res,
	       char *err, size_t errlen);

void th_sim_result_fini(struct th_sim_result *res);

TH_API_END

#endif /* TH_SIM_H */
