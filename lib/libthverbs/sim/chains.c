// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * chains.c - the simulator's second input: a set of triggered chains (the
 * struct th_verify_set th_verify() takes) run in event-ordered virtual
 * time, model-only (counters, thresholds and costs; no payload).  What a
 * descriptor raises, where it delivers and how it is charged were read
 * from the engine's opcode table when the set was built (cset.c); when a
 * chain fires is the engine's rule (th_counter.c): the chains an update
 * releases fire in threshold, then posting, order, and a re-armed chain
 * waits for its threshold plus its stride.  The wire is LogGP's, with no
 * host overhead o: the NIC runs the chain (Documentation/sim.rst,
 * "Chains").
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_priv.h"

/* rounds one chain may fire before the run is refused as self-feeding */
#define SIM_MAX_ROUNDS	(1u << 20)

/*
 * The events.  An update is named by what makes it (a descriptor's
 * counter operand, its completion counter, the counter where it delivers,
 * or a host action), so that it needs no record of its own; a message by
 * its descriptor, which its chain waits on.
 */
enum simc_what {
	EVC_UPD_OP,	/* descriptor @op's CT operand lands */
	EVC_UPD_COMP,	/* descriptor @op's completion counter is raised */
	EVC_UPD_REMOTE,	/* descriptor @op raises its target's counter */
	EVC_UPD_HOST,	/* host action @op lands */
	EVC_DESC,	/* chain @op's next descriptor may start */
	EVC_ARRIVE,	/* descriptor @op's message reaches its target's NIC */
	EVC_REQUEST,	/* descriptor @op's GET request reaches its target */
	EVC_REPLY,	/* descriptor @op's GET bytes reach the chain's node */
};

/* A chain as it runs. */
struct sc_chain {
	uint64_t threshold;	/* of the round it waits for or runs */
	uint64_t done;		/* its latest effect; UINT64_MAX: never ran */
	uint32_t pc;		/* its next descriptor */
	uint32_t next;		/* in its counter's wait list */
	uint32_t rounds;	/* rounds fired */
};

struct sc_run {
	const struct sim_cset *cs;
	const struct th_sim_params *p;
	struct sim_heap heap;
	uint64_t *value;	/* [counter]: its success value */
	uint32_t *head;		/* [counter]: waiting chains, threshold order */
	struct sc_chain *chains;
	uint64_t *busy;		/* [node]: its engine copies or reduces until */
	uint64_t *gs_free;	/* [node]: the NIC's send gap */
	uint64_t *gr_free;	/* [node]: the NIC's receive gap */
	uint64_t *finish;	/* [node]: its last event */
	uint64_t events;
	bool overflow;
	uint32_t runaway;	/* a chain past SIM_MAX_ROUNDS, or SIM_NIL */
};

void th_sim_nic_default(struct th_sim_nic *n)
{
	n->desc_ns = 100;
	n->copy_ps = 100;
	n->alu_ps = 250;
}

static uint64_t sc_add(struct sc_run *s, uint64_t a, uint64_t b)
{
	uint64_t r;

	if (__builtin_add_overflow(a, b, &r)) {
		s->overflow = true;
		return UINT64_MAX;
	}
	return r;
}

/* LogGP's (n - 1) * G: the first byte is paid in L or g */
static uint64_t sc_bytes(struct sc_run *s, uint64_t n)
{
	uint64_t r;

	if (__builtin_mul_overflow(n ? n - 1 : 0, s->p->G, &r)) {
		s->overflow = true;
		return UINT64_MAX;
	}
	return r;
}

static uint64_t sc_max(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static void sc_touch(struct sc_run *s, uint32_t node, uint64_t t)
{
	s->finish[node] = sc_max(s->finish[node], t);
}

/* Chain @c waits on its counter again, in threshold then posting order. */
static void sc_wait(struct sc_run *s, uint32_t c)
{
	struct sc_chain *ch = &s->chains[c];
	uint32_t *at = &s->head[s->cs->chains[c].ctr];

	while (*at != SIM_NIL &&
	       (s->chains[*at].threshold < ch->threshold ||
		(s->chains[*at].threshold == ch->threshold && *at < c)))
		at = &s->chains[*at].next;
	ch->next = *at;
	*at = c;
}

/* The chains counter @ctr now releases fire at @t (th_eng_ct_fire_locked). */
static int sc_fire(struct sc_run *s, uint32_t ctr, uint64_t t)
{
	uint32_t *head = &s->head[ctr];
	int ret;

	while (*head != SIM_NIL && s->chains[*head].threshold <= s->value[ctr]) {
		uint32_t id = *head;
		struct sc_chain *ch = &s->chains[id];

		*head = ch->next;
		if (++ch->rounds > SIM_MAX_ROUNDS) {
			s->runaway = id;
			return -ELOOP;
		}
		ch->pc = 0;
		if (ch->done == UINT64_MAX)
			ch->done = t;
		ret = sim_heap_push(&s->heap, t, id, EVC_DESC);
		if (ret)
			return ret;
	}
	return 0;
}

/* An update lands: descriptor @di's counter, or host action @di's. */
static int sc_update(struct sc_run *s, uint32_t what, uint32_t di, uint64_t t)
{
	const struct sim_cset *cs = s->cs;
	uint32_t ctr;

	if (what == EVC_UPD_HOST) {
		const struct sim_caction *a = &cs->acts[di];

		ctr = a->ctr;
		s->value[ctr] = a->set ? a->value : s->value[ctr] + a->value;
	} else {
		const struct sim_cdesc *d = &cs->descs[di];

		ctr = what == EVC_UPD_OP ? d->ct_op :
		      what == EVC_UPD_COMP ? d->ct_comp : d->ct_remote;
		if (what == EVC_UPD_OP && d->set)
			s->value[ctr] = d->arg;
		else
			s->value[ctr] += what == EVC_UPD_OP ? d->arg : 1;
	}
	sc_touch(s, cs->ctrs[ctr].node, t);
	return sc_fire(s, ctr, t);
}

/*
 * Descriptor @di is done at @t: its CT operand and completion counter
 * land (each an event at @t, after those already queued for @t).
 */
static int sc_effects(struct sc_run *s, uint32_t di, uint64_t t)
{
	const struct sim_cdesc *d = &s->cs->descs[di];
	int ret = 0;

	if (d->ct_op != SIM_NIL)
		ret = sim_heap_push(&s->heap, t, di, EVC_UPD_OP);
	if (!ret && d->ct_comp != SIM_NIL)
		ret = sim_heap_push(&s->heap, t, di, EVC_UPD_COMP);
	s->chains[d->chain].done = sc_max(s->chains[d->chain].done, t);
	if (d->visible)
		sc_touch(s, s->cs->chains[d->chain].node, t);
	return ret;
}

/*
 * Descriptor pc of chain @c is done at @t: the next one may start, or the
 * round is over (a REARM waits for the next round, from @t).
 */
static int sc_next(struct sc_run *s, uint32_t c, uint64_t t)
{
	const struct sim_cchain *cc = &s->cs->chains[c];
	struct sc_chain *ch = &s->chains[c];
	const struct sim_cdesc *d = &s->cs->descs[cc->first + ch->pc];

	if (++ch->pc < cc->ndesc)
		return sim_heap_push(&s->heap, t, c, EVC_DESC);
	if (d->ends_round) {
		ch->threshold += d->arg;
		sc_wait(s, c);
		return sc_fire(s, cc->ctr, t);
	}
	return 0;
}

/*
 * Descriptor pc of chain @c may start at @t.  Its node's engine copies and
 * reduces one descriptor at a time; a message to another node waits for
 * its NIC's send gap, and the chain goes on once the delivery is done
 * (th_exec.c parks it on chain->remote) while the node's other chains run;
 * a descriptor with no charge happens at the chain's time.
 */
static int sc_desc(struct sc_run *s, uint32_t c, uint64_t t)
{
	const struct sim_cchain *cc = &s->cs->chains[c];
	uint32_t di = cc->first + s->chains[c].pc;
	const struct sim_cdesc *d = &s->cs->descs[di];
	uint32_t node = cc->node;
	uint64_t next = t;
	int ret;

	switch (d->kind) {
	case SIM_CD_SEND:
	case SIM_CD_FETCH:
		/* the engine issues it (after its copy or reduction in
		 * progress), then the NIC's send gap */
		if (s->busy[node] > t)
			return sim_heap_push(&s->heap, s->busy[node], c, EVC_DESC);
		if (s->gs_free[node] > t)
			return sim_heap_push(&s->heap, s->gs_free[node], c,
					     EVC_DESC);
		next = sc_add(s, t, s->cs->nic.desc_ns);
		s->busy[node] = next;
		/* a GET's request is one byte's worth; its bytes come back */
		s->gs_free[node] = sc_add(s, sc_add(s, next, s->p->g),
					  d->kind == SIM_CD_SEND ?
					  sc_bytes(s, d->arg) : 0);
		sc_touch(s, node, next);
		return sim_heap_push(&s->heap, sc_add(s, next, s->p->L), di,
				     d->kind == SIM_CD_SEND ? EVC_ARRIVE :
							      EVC_REQUEST);
	case SIM_CD_WORK:
		if (s->busy[node] > t)
			return sim_heap_push(&s->heap, s->busy[node], c, EVC_DESC);
		next = sc_add(s, t, d->arg);
		s->busy[node] = next;
		sc_touch(s, node, next);
		/* a delivery to a vport of this node: its counter here */
		if (d->ct_remote != SIM_NIL) {
			ret = sim_heap_push(&s->heap, next, di, EVC_UPD_REMOTE);
			if (ret)
				return ret;
		}
		break;
	default:
		break;
	}
	ret = sc_effects(s, di, next);
	return ret ? ret : sc_next(s, c, next);
}

/*
 * Descriptor @di's message reaches a NIC at @t: the receive gap g and
 * (n-1)G there, the counter raised once the last byte is in.  A GET's
 * request turns round at the target, whose NIC sends the bytes back (its
 * send gap), and the reply lands on the chain's node.
 */
static int sc_arrive(struct sc_run *s, uint32_t what, uint32_t di, uint64_t t)
{
	const struct sim_cdesc *d = &s->cs->descs[di];
	uint32_t at = what == EVC_REPLY ? s->cs->chains[d->chain].node : d->target;
	uint64_t in;
	int ret;

	if (what == EVC_REQUEST) {
		if (s->gs_free[at] > t)
			return sim_heap_push(&s->heap, s->gs_free[at], di, what);
		s->gs_free[at] = sc_add(s, sc_add(s, t, s->p->g),
					sc_bytes(s, d->arg));
		sc_touch(s, at, t);
		return sim_heap_push(&s->heap, sc_add(s, t, s->p->L), di,
				     EVC_REPLY);
	}
	if (s->gr_free[at] > t)
		return sim_heap_push(&s->heap, s->gr_free[at], di, what);
	s->gr_free[at] = sc_add(s, sc_add(s, t, s->p->g), sc_bytes(s, d->arg));
	in = sc_add(s, t, sc_bytes(s, d->arg));
	sc_touch(s, at, in);
	if (d->ct_remote != SIM_NIL) {
		ret = sim_heap_push(&s->heap, in, di, EVC_UPD_REMOTE);
		if (ret)
			return ret;
	}
	/*
	 * The descriptor is done: its own counter and CQ entry; the chain
	 * goes on (no acknowledgement's latency: the engine's delivery is
	 * done once the data is in place).
	 */
	ret = sc_effects(s, di, in);
	return ret ? ret : sc_next(s, d->chain, in);
}

static int sc_event(struct sc_run *s, const struct sim_event *ev)
{
	s->events++;
	switch (ev->what) {
	case EVC_UPD_OP:
	case EVC_UPD_COMP:
	case EVC_UPD_REMOTE:
	case EVC_UPD_HOST:
		return sc_update(s, ev->what, ev->op, ev->time);
	case EVC_DESC:
		return sc_desc(s, ev->op, ev->time);
	case EVC_ARRIVE:
	case EVC_REQUEST:
	case EVC_REPLY:
		return sc_arrive(s, ev->what, ev->op, ev->time);
	default:
		return -EINVAL;
	}
}

/* Why the first chain that never fired did not: its counter fell short. */
static void sc_explain(struct sc_run *s, const struct th_verify_chain *names,
		       uint32_t unfired, char *err, size_t errlen)
{
	char name[80];
	uint32_t i;

	for (i = 0; i < s->cs->nchains; i++) {
		const struct sc_chain *ch = &s->chains[i];
		const struct th_verify_counter *c =
			&s->cs->ctrs[s->cs->chains[i].ctr];

		if (ch->done != UINT64_MAX)
			continue;
		if (names && names[i].name)
			snprintf(name, sizeof(name), "%s", names[i].name);
		else
			snprintf(name, sizeof(name), "#%u", i);
		sim_err(err, errlen,
			"%u chain(s) never fired; the first, %s (node %u), waits for counter %u of vport %u to reach %" PRIu64 ", which ended at %" PRIu64,
			unfired, name, c->node, c->ct, c->vport, ch->threshold,
			s->value[s->cs->chains[i].ctr]);
		return;
	}
}

static int sc_alloc(struct sc_run *s)
{
	const struct sim_cset *cs = s->cs;
	uint32_t nodes = cs->nodes ? cs->nodes : 1, i;

	s->value = calloc(cs->nctrs + 1, sizeof(*s->value));
	s->head = malloc((cs->nctrs + 1) * sizeof(*s->head));
	s->chains = calloc(cs->nchains + 1, sizeof(*s->chains));
	s->busy = calloc(nodes, sizeof(*s->busy));
	s->gs_free = calloc(nodes, sizeof(*s->gs_free));
	s->gr_free = calloc(nodes, sizeof(*s->gr_free));
	s->finish = calloc(nodes, sizeof(*s->finish));
	if (!s->value || !s->head || !s->chains || !s->busy || !s->gs_free ||
	    !s->gr_free || !s->finish)
		return -ENOMEM;
	memset(s->head, 0xff, (cs->nctrs + 1) * sizeof(*s->head));
	for (i = 0; i < cs->nchains; i++) {
		s->chains[i].threshold = cs->chains[i].threshold;
		s->chains[i].done = UINT64_MAX;
	}
	return 0;
}

static void sc_free(struct sc_run *s)
{
	sim_heap_fini(&s->heap);
	free(s->value);
	free(s->head);
	free(s->chains);
	free(s->busy);
	free(s->gs_free);
	free(s->gr_free);
	free(s->finish);
}

int sim_cset_run(const struct sim_cset *cs, const struct th_sim_params *p,
		 const struct th_verify_chain *names, struct th_sim_result *res,
		 uint64_t *chain_done_ns, char *err, size_t errlen)
{
	struct sc_run s = { .cs = cs, .p = p, .runaway = SIM_NIL };
	uint32_t i, unfired = 0, nodes = cs->nodes ? cs->nodes : 1;
	struct sim_event ev;
	int ret;

	memset(res, 0, sizeof(*res));
	if (cs->overflow) {
		sim_err(err, errlen, "a descriptor's work passes 2^64 ns");
		return -EOVERFLOW;
	}
	ret = sc_alloc(&s);
	/* posted first, at 0: a chain whose threshold is met fires at once */
	for (i = 0; !ret && i < cs->nchains; i++)
		sc_wait(&s, i);
	for (i = 0; !ret && i < cs->nctrs; i++)
		ret = sc_fire(&s, i, 0);
	/* then the host's updates, at 0, in their order */
	for (i = 0; !ret && i < cs->nacts; i++)
		ret = sim_heap_push(&s.heap, 0, i, EVC_UPD_HOST);
	while (!ret && sim_heap_pop(&s.heap, &ev))
		ret = sc_event(&s, &ev);
	if (ret == -ELOOP && s.runaway != SIM_NIL)
		sim_err(err, errlen,
			"chain %u fired %u rounds: a re-arming chain that feeds itself (thctl verify calls it self-rearm)",
			s.runaway, SIM_MAX_ROUNDS);
	else if (ret == -ENOMEM)
		sim_err(err, errlen, "out of memory for the run");
	if (!ret && s.overflow) {
		sim_err(err, errlen, "virtual time passed 2^64 ns");
		ret = -EOVERFLOW;
	}
	if (!ret) {
		res->ranks = nodes;
		res->finish_ns = malloc(nodes * sizeof(*res->finish_ns));
		if (!res->finish_ns) {
			sim_err(err, errlen, "out of memory");
			ret = -ENOMEM;
		}
	}
	if (!ret) {
		memcpy(res->finish_ns, s.finish, nodes * sizeof(*s.finish));
		for (i = 0; i < nodes; i++)
			res->max_ns = sc_max(res->max_ns, s.finish[i]);
		res->events = s.events;
		for (i = 0; i < cs->nchains; i++) {
			if (chain_done_ns)
				chain_done_ns[i] = s.chains[i].done;
			unfired += s.chains[i].done == UINT64_MAX;
		}
		if (unfired) {
			sc_explain(&s, names, unfired, err, errlen);
			ret = -EDEADLK;
		}
	}
	sc_free(&s);
	return ret;
}

int sim_cset_build(struct sim_cset *cs, const struct th_verify_set *set,
		   const struct th_sim_nic *nic, char *err, size_t errlen)
{
	struct th_sim_nic defaults;
	uint32_t i;
	int ret = 0;

	if (!nic) {
		th_sim_nic_default(&defaults);
		nic = &defaults;
	}
	sim_cset_init(cs, nic);
	for (i = 0; !ret && i < set->nchains; i++) {
		const struct th_verify_chain *vc = &set->chains[i];

		ret = sim_cset_add_chain(cs, vc->node, vc->vport, vc->descs,
					 vc->ndesc);
		if (ret == -EINVAL)
			sim_err(err, errlen, "chain %u has no descriptors or an opcode unknown to the NIC",
				i);
		else if (ret == -E2BIG)
			sim_err(err, errlen, "chain %u names a node past %u, or the set passes 2^30 descriptors or counters",
				i, SIM_MAX_RANKS - 1);
	}
	for (i = 0; !ret && i < set->nactions; i++) {
		ret = sim_cset_add_action(cs, &set->actions[i]);
		if (ret == -E2BIG)
			sim_err(err, errlen, "action %u names a node past %u",
				i, SIM_MAX_RANKS - 1);
	}
	if (ret == -ENOMEM)
		sim_err(err, errlen, "out of memory");
	if (ret)
		sim_cset_fini(cs);
	return ret;
}

int th_sim_chains(const struct th_verify_set *set,
		  const struct th_sim_params *params,
		  const struct th_sim_nic *nic, struct th_sim_result *res,
		  uint64_t *chain_done_ns, char *err, size_t errlen)
{
	struct sim_cset cs;
	int ret;

	memset(res, 0, sizeof(*res));
	if (err && errlen)
		err[0] = '\0';
	if (!set || !params ||
	    (set->nchains && !set->chains) || (set->nactions && !set->actions)) {
		sim_err(err, errlen, "no set, no parameters, or no chains or actions where their count says some");
		return -EINVAL;
	}
	ret = sim_cset_build(&cs, set, nic, err, errlen);
	if (ret)
		return ret;
	ret = sim_cset_run(&cs, params, set->chains, res, chain_done_ns, err,
			   errlen);
	sim_cset_fini(&cs);
	return ret;
}
