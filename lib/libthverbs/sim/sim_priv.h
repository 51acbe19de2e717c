/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * sim_priv.h - the simulator's schedule object (ranks, operations, their
 * dependencies as an edge list per operation), the builder the GOAL reader
 * and the generators share, the limits, and the event heap.
 */
#ifndef TH_SIM_PRIV_H
#define TH_SIM_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <thverbs/sim.h>

/*
 * Limits: what one schedule may hold.  Ranks and operations are 32-bit
 * indices (an edge keeps a flag in its low bit, so operations and edges
 * stay below 2^31); sizes and calc times stay below 2^40 so that a
 * message's (size-1)*G with G below 2^20 cannot overflow 64 bits; CPUs and
 * NICs per rank are few because every rank carries a clock for each.
 */
#define SIM_MAX_RANKS	(1u << 24)
#define SIM_MAX_OPS	(1u << 30)
#define SIM_MAX_DEPS	(1u << 30)
#define SIM_MAX_SIZE	(1ull << 40)
#define SIM_MAX_TAG	0x7fffffffu
#define SIM_MAX_UNITS	16u		/* cpu and nic numbers below this */
#define SIM_MAX_LABEL	64u		/* bytes of a label */
#define SIM_MAX_PARAM	(1ull << 32)	/* L, o, g, S below this */
#define SIM_MAX_PER_BYTE (1ull << 20)	/* G, O below this */
#define SIM_ANY		UINT32_MAX	/* a receive's -1: any peer, any tag */

enum sim_kind {
	/* in LogGOPSim's order: operations freed together start in it */
	SIM_SEND = 0,
	SIM_RECV = 1,
	SIM_CALC = 2,
};

struct sim_op {
	uint64_t arg;		/* bytes (send, recv) or ns (calc) */
	uint32_t rank;
	uint32_t peer;		/* the other rank, or SIM_ANY */
	uint32_t tag;		/* or SIM_ANY */
	uint32_t line;		/* in the GOAL text; 0 when generated */
	uint8_t kind, cpu, nic;
};

struct th_sim_goal {
	unsigned int nranks;
	unsigned int ncpus, nnics;	/* the highest numbers used, plus one */
	struct sim_op *ops;
	uint32_t nops, cap_ops;
	uint32_t *rank_first;		/* [nranks + 1]: rank r's ops */
	/*
	 * Dependencies: op w requires (or irequires) op x is edge x -> w;
	 * out_first[x] .. out_first[x + 1] index out[], each (w << 1) | 1 for
	 * irequires (w may start once x started), | 0 for requires (w may
	 * start once x is done).  nin[w] counts the edges into w.
	 */
	uint32_t *out_first;		/* [nops + 1] */
	uint32_t *out;
	uint32_t *nin;			/* [nops] */
	/* while building: the edges as (waiter, waited << 1 | istart) pairs */
	uint32_t *pend;
	uint32_t npend, cap_pend;
	bool finalized;
};

/* builder: add ops (any rank order) and edges, then finalize */
struct th_sim_goal *sim_goal_new(unsigned int nranks);
/* the op's index, or -1 when the limit is reached (errno ENOSPC) */
int64_t sim_goal_add_op(struct th_sim_goal *g, const struct sim_op *op);
int sim_goal_add_dep(struct th_sim_goal *g, uint32_t waiter, uint32_t waited,
		     bool istart);
/*
 * Groups the ops by rank (keeping each rank's order), builds the edge
 * lists and refuses a cycle (-ELOOP, said in @err with @name).
 */
int sim_goal_finalize(struct th_sim_goal *g, const char *name, char *err,
		      size_t errlen);

void sim_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* heap.c: the events in virtual time, ties by the order they were pushed */
struct sim_event {
	uint64_t time;
	uint64_t seq;
	uint32_t op;
	uint32_t what;			/* enum sim_what in run.c */
};

struct sim_heap {
	struct sim_event *ev;
	size_t n, cap;
	uint64_t next_seq;
	/* events pushed for the instant last popped, in order (a ring) */
	struct sim_event *now;
	size_t now_head, now_n, now_cap;
	uint64_t now_time;
	bool popped;
};

int sim_heap_push(struct sim_heap *h, uint64_t time, uint32_t op,
		  uint32_t what);
bool sim_heap_pop(struct sim_heap *h, struct sim_event *out);
void sim_heap_fini(struct sim_heap *h);

/*
 * cset.c: a set of chains in the simulator's own form, built from the
 * NIC's descriptors through the engine's opcode table once, so that the
 * run (chains.c) reads 40 bytes a descriptor and no table: what it costs,
 * the counters it raises (resolved to indices), where it delivers.
 */
#define SIM_NIL		UINT32_MAX

enum sim_cd_kind {
	SIM_CD_NONE,		/* no cost: at the chain's time */
	SIM_CD_WORK,		/* the node's engine for @arg ns */
	SIM_CD_SEND,		/* @arg bytes to node @target */
	SIM_CD_FETCH,		/* @arg bytes from node @target (a GET) */
};

struct sim_cdesc {
	uint64_t arg;		/* ns, bytes, or the CT value, or the stride */
	uint32_t ct_op;		/* its CT operand's counter, or SIM_NIL */
	uint32_t ct_comp;	/* its completion counter, or SIM_NIL */
	uint32_t ct_remote;	/* the counter raised where it delivers */
	uint32_t target;	/* SEND, FETCH: the node */
	uint32_t chain;		/* its chain */
	uint8_t kind;		/* enum sim_cd_kind */
	uint8_t set;		/* ct_op is set to @arg, not raised by it */
	uint8_t ends_round;	/* a REARM: @arg is the stride */
	uint8_t visible;	/* once done, an event on its own node */
};

struct sim_cchain {
	uint64_t threshold;
	uint32_t node;
	uint32_t ctr;		/* its trigger counter */
	uint32_t first, ndesc;	/* in sim_cset.descs */
};

struct sim_caction {
	uint64_t value;
	uint32_t ctr;
	bool set;
};

struct sim_cset {
	struct sim_cchain *chains;
	uint32_t nchains, cap_chains;
	struct sim_cdesc *descs;
	uint32_t ndescs, cap_descs;
	struct sim_caction *acts;
	uint32_t nacts, cap_acts;
	/* the counters, by index; found by (node, vport, ct) while building */
	struct th_verify_counter *ctrs;
	uint32_t nctrs, cap_ctrs;
	uint32_t *hash;
	uint32_t hash_mask;
	uint32_t nodes;		/* the highest node named, plus one */
	struct th_sim_nic nic;
	bool overflow;		/* a work time past 2^64 ns */
};

void sim_cset_init(struct sim_cset *cs, const struct th_sim_nic *nic);
/* -EINVAL (a chain with no descriptors, an unknown opcode), -E2BIG, -ENOMEM */
int sim_cset_add_chain(struct sim_cset *cs, uint32_t node, uint32_t vport,
		       const struct th_nic_desc *descs, uint32_t ndesc);
int sim_cset_add_action(struct sim_cset *cs, const struct th_verify_action *a);
void sim_cset_fini(struct sim_cset *cs);
/*
 * @cs from @set's chains and actions (th_sim_chains()'s input; @nic NULL:
 * the defaults); on failure @cs is freed and @err says why.
 */
int sim_cset_build(struct sim_cset *cs, const struct th_verify_set *set,
		   const struct th_sim_nic *nic, char *err, size_t errlen);

/*
 * chains.c: runs @cs (th_sim_chains()); @names, if not NULL, names the
 * chains in @err (th_verify_chain.name), else "#index".
 */
int sim_cset_run(const struct sim_cset *cs, const struct th_sim_params *p,
		 const struct th_verify_chain *names, struct th_sim_result *res,
		 uint64_t *chain_done_ns, char *err, size_t errlen);

#endif /* TH_SIM_PRIV_H */
