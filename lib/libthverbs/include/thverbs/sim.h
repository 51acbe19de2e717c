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
#include <thverbs/verify.h>

TH_API_BEGIN

/* A parsed or generated schedule: ranks, their operations and dependencies. */
struct th_sim_goal;
/* A schedule compiled into triggered chains (th_sim_goal_chains()). */
struct th_sim_chainset;

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

/*
 * th_sim_goal_gen(), and after each receive a reduction takes a calc of
 * @calc (the reducing rank's CPU host-driven, its NIC once offloaded), on
 * which the rank's send up (or the root's broadcast) waits; 0 is
 * th_sim_goal_gen()'s schedule.  Since THVERBS_1.5.
 */
int th_sim_goal_gen_calc(const char *pattern, unsigned int ranks,
			 unsigned int radix, uint64_t bytes, uint64_t calc,
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

/*
 * What a NIC's own work costs when it runs a chain (th_sim_chains()),
 * beside LogGP's wire: @desc_ns to start a descriptor that does work
 * (sends, copies, reduces), and picoseconds per byte copied (@copy_ps)
 * and per operand byte the ALU reads (@alu_ps).  th_sim_nic_default():
 * 100 ns, 100 ps (10 GB/s), 250 ps (4 GB/s).
 */
struct th_sim_nic {
	uint64_t desc_ns;
	uint64_t copy_ps;
	uint64_t alu_ps;
};

void th_sim_nic_default(struct th_sim_nic *nic);

/*
 * Runs the chains of @set (the set th_verify() takes: chains as posted,
 * the host's counter updates) in event-ordered virtual time, model-only:
 * counters, thresholds and costs, no payload.  Chains fire by the
 * engine's rules and each descriptor is charged from the engine's opcode
 * table: sends pay @params' g, G and L on the NICs (no host o: the NIC
 * runs them), copies and reductions @nic (NULL: th_sim_nic_default())
 * on their node, one at a time.  The host's updates land at 0, after the
 * chains are posted.  @res gets each node's last event (ranks = nodes);
 * @chain_done_ns, if not NULL, each chain's last effect, UINT64_MAX for
 * one that never fired.  -EDEADLK when a chain never fired (which, and
 * its counter, said in @err; @res and @chain_done_ns are still filled),
 * -ELOOP when a re-arming chain fired 2^20 rounds, -EINVAL for bad
 * input, -E2BIG past the limits.
 */
int th_sim_chains(const struct th_verify_set *set,
		  const struct th_sim_params *params,
		  const struct th_sim_nic *nic, struct th_sim_result *res,
		  uint64_t *chain_done_ns, char *err, size_t errlen);

/*
 * Compiles @goal into the triggered chains an offloading NIC would run
 * (Documentation/sim.rst, "GOAL as chains"): rank r is node r, each
 * operation a chain on a counter of its own that waits for its
 * dependencies (and, for a receive, its message); a send is a PUT raising
 * its matched receive's counter, a calc NIC work of its length (a copy at
 * @nic's rate; NULL: th_sim_nic_default()).  Refuses wildcard receives
 * (-EINVAL) and a send or receive with no partner (-EDEADLK), said in
 * @err.  Run the result with th_sim_chains(th_sim_chainset_set(cs), ...).
 */
int th_sim_goal_chains(const struct th_sim_goal *goal,
		       const struct th_sim_nic *nic,
		       struct th_sim_chainset **cs, char *err, size_t errlen);
const struct th_verify_set *th_sim_chainset_set(const struct th_sim_chainset *cs);
void th_sim_chainset_destroy(struct th_sim_chainset *cs);
/*
 * The first round of @set's chains as a GOAL schedule (Documentation/
 * sim.rst, "Chains as GOAL"), for LogGOPSim or th_sim_run(): node n is
 * rank n; a message is a send and its receive, a GET a request and its
 * reply, a copy or reduction a calc of @nic's time for it (NULL:
 * th_sim_nic_default()), any other descriptor a calc of 0; each waits for
 * the one before it in its chain, and a chain's first for every operation
 * that raises its trigger counter in the round.  -EDEADLK when a chain's
 * counter is raised by less than its threshold in a round, -ELOOP when
 * the chains wait on each other within one, -EINVAL, -E2BIG past GOAL's
 * limits, -ENOMEM; said in @err.  th_sim_goal_destroy() frees *@goal.
 */
int th_sim_chains_goal(const struct th_verify_set *set,
		       const struct th_sim_nic *nic, struct th_sim_goal **goal,
		       char *err, size_t errlen);
/*
 * th_sim_goal_chains() then th_sim_chains() in one, without holding the
 * NIC's descriptors of the whole schedule (for a million ranks): @res as
 * th_sim_chains() fills it.
 */
int th_sim_goal_offload(const struct th_sim_goal *goal,
			const struct th_sim_params *params,
			const struct th_sim_nic *nic, struct th_sim_result *res,
			char *err, size_t errlen);

TH_API_END

#endif /* TH_SIM_H */
