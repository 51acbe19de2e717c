/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * verify_priv.h - the verifier's model of a set of chains: the counters
 * they name, what each chain raises per round (read from the engine's
 * opcode table), the host's declared updates, and the fixed point of how
 * far each counter can get and how many rounds each chain can fire
 * (Documentation/verify.rst, "The abstraction").
 */
#ifndef TH_VERIFY_PRIV_H
#define TH_VERIFY_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include <thverbs/verify.h>

/* a counter's reach, a chain's rounds: no bound */
#define TV_UNBOUNDED	UINT64_MAX
#define TV_NONE		UINT32_MAX

/*
 * What one descriptor does to one counter's success value each time its
 * chain runs: adds @inc, or (@set) sets it to @set_value.
 */
struct tv_effect {
	uint32_t ctr;
	uint32_t desc;
	bool set;
	uint64_t inc;
	uint64_t set_value;
};

/*
 * struct tv_chain - a chain as the verifier sees it
 * @trig: its trigger counter (index in tv_model.ctrs)
 * @threshold: the success value its first round waits for
 * @rearm: it ends in a REARM: round k waits for threshold + k * stride
 * @stride: the REARM's stride
 * @credits: CQ entries it reserves when posted (1 + entries it writes)
 * @first_eff, @neff: its effects in tv_model.effs
 * @refused: a limit of the NIC refuses it: it is never posted (or a
 *	range of it is outside its region: it fails when it runs)
 */
struct tv_chain {
	uint32_t trig;
	uint64_t threshold;
	bool rearm;
	uint64_t stride;
	uint32_t credits;
	uint32_t first_eff, neff;
	bool refused;
};

/* The host's declared updates of one counter. */
struct tv_host {
	uint64_t inc;		/* the sum of its positive increments */
	bool set;
	uint64_t set_max;	/* the largest value it sets */
	uint32_t writers;	/* its updates */
	uint32_t setters;	/* of which sets */
};

struct tv_model {
	const struct th_verify_set *set;
	uint32_t nctrs, ctr_cap;
	struct th_verify_counter *ctrs;
	uint32_t *slot, nslots;		/* the counters' index (model.c) */
	struct tv_host *host;		/* per counter */
	struct tv_chain *chains;	/* per chain of the set */
	uint32_t neffs, eff_cap;
	struct tv_effect *effs;
	/*
	 * The dependency graph: succ[succ_first[a] .. succ_first[a + 1]) are
	 * the chains whose trigger counter chain @a raises (tv_model_graph())
	 */
	uint32_t *succ_first;
	uint32_t *succ;
	/* the chains waiting on counter k: waiters[wait_first[k] .. wait_first[k + 1]) */
	uint32_t *wait_first;
	uint32_t *waiters;
	/* the chains with threshold 0 (they fire on nothing) */
	uint32_t *zero_chains, nzero;
	/*
	 * tv_rounds_alone()'s scratch, all zero between its uses: per
	 * counter its reach, set maximum and whether touched; per chain its
	 * rounds, changes and whether queued; the touched counters, the
	 * chains that fired and the queue
	 */
	uint64_t *alone_reach, *alone_setmax, *alone_rounds;
	bool *alone_touched, *alone_queued;
	uint32_t *alone_changes, *alone_list, *alone_fired, *alone_queue;
	uint32_t alone_ntouched, alone_nfired;
	/* findings */
	struct th_verify_finding *out;
	unsigned int max;
	unsigned int nfound;
};

/*
 * What a fixed point starts from: with or without the host's updates;
 * @optimistic: every chain fires as often as it can (once, or without
 * bound if it re-arms), whatever its counter.  A fixed point without the
 * host from one chain just triggered is tv_rounds_alone()'s.
 */
struct tv_start {
	bool host;
	bool optimistic;
};

/* model.c */
int tv_model_build(struct tv_model *m, const struct th_verify_set *set);
void tv_model_free(struct tv_model *m);
int tv_counter_id(struct tv_model *m, uint32_t node, uint32_t vport,
		  uint16_t ct, uint32_t *id);
const char *tv_chain_name(const struct tv_model *m, uint32_t chain,
			  char *buf, unsigned int len);
void tv_counter_str(const struct th_verify_counter *c, char *buf,
		    unsigned int len);
bool tv_chain_raises(const struct tv_model *m, uint32_t chain, uint32_t ctr);
int tv_model_graph(struct tv_model *m);

/* reach.c */
int tv_reach(const struct tv_model *m, const struct tv_start *start,
	     uint64_t *reach, uint64_t *rounds);
const uint64_t *tv_rounds_alone(struct tv_model *m, uint32_t seed);
void tv_rounds_alone_done(struct tv_model *m);
uint64_t tv_sat_add(uint64_t a, uint64_t b);
uint64_t tv_sat_mul(uint64_t a, uint64_t b);

/* fit.c */
int tv_fit(struct tv_model *m);

/* memory.c */
int tv_memory(struct tv_model *m);

/* verify.c */
struct th_verify_finding *tv_finding(struct tv_model *m,
				     enum th_verify_class cls, uint32_t chain,
				     uint32_t desc, const uint32_t *ctr);

#endif /* TH_VERIFY_PRIV_H */
