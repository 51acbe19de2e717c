/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * thverbs/verify.h - know before arming: th_verify() proves that a set of
 * chains, with the counter updates their hosts declare, will fire, finish
 * and fit on the NIC, or says for each chain exactly why not: a threshold
 * that can never be reached, chains that wait on each other, a chain that
 * overruns a limit of the NIC, a re-arming chain that feeds itself
 * (Documentation/verify.rst).  Pure logic: no device, no provider.
 *
 * Conventions as in thverbs/verbs.h: calls return 0 or a negative errno.
 */
#ifndef THVERBS_VERIFY_H
#define THVERBS_VERIFY_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/th_nic.h>
#include <thverbs/api.h>

TH_API_BEGIN

/**
 * struct th_verify_counter - a counter of the fabric
 * @node: its node
 * @vport: its vport on that node
 * @ct: its index in the vport's counters
 */
struct th_verify_counter {
	uint32_t node;
	uint32_t vport;
	uint16_t ct;
};

/**
 * struct th_verify_chain - one chain, as it would be posted
 * @name: how findings name it (NULL: "#index")
 * @node: the node it is posted on
 * @vport: the vport it is posted on
 * @descs: its descriptors as they go into the SQ: the first carries the
 *	trigger counter and threshold, a last REARM makes it re-arm by its
 *	stride every round
 * @ndesc: how many
 */
struct th_verify_chain {
	const char *name;
	uint32_t node;
	uint32_t vport;
	const struct th_nic_desc *descs;
	uint32_t ndesc;
};

/**
 * struct th_verify_action - a counter update the host declares it makes
 * (th_ct_inc(), th_ct_set()), each at most once
 * @counter: the counter
 * @set: true: th_ct_set() to @value; false: th_ct_inc() by @value
 * @value: the value set or added (an addition is signed, as th_ct_inc's)
 */
struct th_verify_action {
	struct th_verify_counter counter;
	bool set;
	uint64_t value;
};

/**
 * struct th_verify_region - a registered memory region the set may use
 *	(th_mr_reg()): descriptors' ranges are checked against these when
 *	th_verify_set.nregions is not 0
 * @node: the node it is registered on
 * @vport: its vport
 * @lkey: its local key (th_mr_lkey())
 * @rkey: its remote key (th_mr_rkey())
 * @len: its length in bytes
 * @access: TH_NIC_ACCESS_* it was registered with
 */
struct th_verify_region {
	uint32_t node;
	uint32_t vport;
	uint32_t lkey;
	uint64_t rkey;
	uint64_t len;
	uint32_t access;
};

/**
 * struct th_verify_wait - a wait the host declares: it waits until
 *	@counter reaches @value (th_ct_wait(), or the completion a chain
 *	raises it beside)
 * @counter: the counter
 * @value: the success value waited for
 */
struct th_verify_wait {
	struct th_verify_counter counter;
	uint64_t value;
};

/**
 * struct th_verify_set - what th_verify() looks at
 * @chains: the chains, in the order they are posted
 * @nchains: how many
 * @actions: the host's counter updates
 * @nactions: how many
 * @limits: the NIC's limits (th_device_query()): node_count, max_chain,
 *	max_counters, max_sq_entries, max_cq_entries; NULL: none checked
 * @sq_entries: the SQ slots of every vport (0: @limits->max_sq_entries)
 * @cq_entries: the CQ entries of every vport (0: @limits->max_cq_entries)
 * @regions: the registered regions (THVERBS_1.4); with @nregions 0 no
 *	range is checked
 * @nregions: how many
 * @waits: the host's waits (THVERBS_1.4)
 * @nwaits: how many
 * @rounds: the rounds the host's actions start, when it knows (a
 *	collective's plan: 1); a re-arming chain that can fire more is
 *	TH_VERIFY_AHEAD.  0: not known, not checked (THVERBS_1.4)
 */
struct th_verify_set {
	const struct th_verify_chain *chains;
	uint32_t nchains;
	const struct th_verify_action *actions;
	uint32_t nactions;
	const struct th_nic_query *limits;
	uint32_t sq_entries;
	uint32_t cq_entries;
	const struct th_verify_region *regions;
	uint32_t nregions;
	const struct th_verify_wait *waits;
	uint32_t nwaits;
	uint32_t rounds;
};

/**
 * enum th_verify_class - what a finding is (Documentation/verify.rst)
 * @TH_VERIFY_UNREACHABLE: the most the chain's trigger counter can ever
 *	reach is below its threshold: it never fires
 * @TH_VERIFY_CYCLE: the chain waits on chains that wait on it: none of
 *	them fires
 * @TH_VERIFY_FIT: the chain exceeds a limit the NIC enforces at posting
 *	(length, CQ entries, SQ slots, a counter or node out of range)
 * @TH_VERIFY_SELF_REARM: a re-arming chain whose own effects satisfy its
 *	next round with no host action: one trigger fires it more than once,
 *	without end when its effects pay every stride
 * @TH_VERIFY_WARN_IMMEDIATE: a warning: the threshold is met when the
 *	chain is posted, so it fires at once
 * @TH_VERIFY_WARN_WRITERS: a warning: a counter is set (CT_SET or
 *	th_ct_set()) and written by another update too, so its value depends
 *	on their order
 * @TH_VERIFY_MEMORY: a descriptor's range is outside every declared
 *	region, or the region lacks the access it needs (only with
 *	th_verify_set.nregions): the chain fails when it runs
 * @TH_VERIFY_WAIT: a wait the host declares can never end: the counter
 *	cannot reach the value (the finding's chain is UINT32_MAX)
 * @TH_VERIFY_AHEAD: a re-arming chain in a set the host drives (it
 *	declares actions) that fires a round with no host action at all:
 *	its threshold is met at posting, or chains that need none raise it;
 *	it runs a round ahead of the host's, whose k-th start finds round
 *	k + 1 under way; or, with th_verify_set.rounds, one that can fire
 *	more rounds than the host starts
 * @TH_VERIFY_CLASS_MAX: first invalid class
 */
enum th_verify_class {
	TH_VERIFY_UNREACHABLE,
	TH_VERIFY_CYCLE,
	TH_VERIFY_FIT,
	TH_VERIFY_SELF_REARM,
	TH_VERIFY_WARN_IMMEDIATE,
	TH_VERIFY_WARN_WRITERS,
	TH_VERIFY_MEMORY,
	TH_VERIFY_WAIT,
	TH_VERIFY_AHEAD,
	TH_VERIFY_CLASS_MAX
};

/* steps of a finding's path kept; a longer path is cut */
#define TH_VERIFY_PATH_MAX	16

/**
 * struct th_verify_step - one step of a path: a chain and the counter it
 *	raises that the next step's chain waits on (the last step's counter
 *	is what the finding's chain waits on, or what it raises)
 * @chain: index in th_verify_set.chains
 * @counter: the counter
 */
struct th_verify_step {
	uint32_t chain;
	struct th_verify_counter counter;
};

/**
 * struct th_verify_finding - one finding of th_verify()
 * @cls: enum th_verify_class
 * @chain: index of the chain in th_verify_set.chains; UINT32_MAX for a
 *	finding about a counter alone (TH_VERIFY_WARN_WRITERS of host
 *	actions only, TH_VERIFY_WAIT)
 * @desc: the descriptor of the chain it is about, or UINT32_MAX
 * @has_counter: @counter is meaningful
 * @counter: the counter it is about
 * @npath: steps in @path (a CYCLE's path starts and ends at @chain)
 * @path: how the chains depend on each other through counters
 * @why: a sentence saying why
 */
struct th_verify_finding {
	enum th_verify_class cls;
	uint32_t chain;
	uint32_t desc;
	bool has_counter;
	struct th_verify_counter counter;
	uint32_t npath;
	struct th_verify_step path[TH_VERIFY_PATH_MAX];
	char why[256];
};

/*
 * Verify @set: the findings, at most @max of them, in @out, the chains'
 * findings in chain order; returns how many there are (which may exceed
 * @max), 0 for a set that will fire, finish and fit, or -EINVAL for bad
 * input (a chain with no descriptors or NULL ones, an opcode unknown to
 * the NIC).
 */
int th_verify(const struct th_verify_set *set, struct th_verify_finding *out,
	      unsigned int max);
/*
 * "unreachable", "cycle", "fit", "self-rearm", "immediate", "writers",
 * "memory", "wait", "ahead"; NULL past them.
 */
const char *th_verify_class_name(enum th_verify_class cls);
/* Is @cls a warning (the chains still fire, finish and fit)? */
bool th_verify_class_is_warning(enum th_verify_class cls);

TH_API_END

#endif /* THVERBS_VERIFY_H */
