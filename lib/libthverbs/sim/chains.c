// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * chains.c - the simulator's second input: a set of triggered chains (the
 * struct th_verify_set th_verify() takes) run in event-ordered virtual
 * time, model-only (counters, thresholds and costs; no payload).  What a
 * descriptor raises, where it delivers and how it is charged are read
 * from the engine's opcode table (driver/trigger/th_opcode.h); when a
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

#include "th_alu.h"
#include "th_engine_int.h"
#include "sim_priv.h"

/* rounds one chain may fire before the run is refused as self-feeding */
#define SIM_MAX_ROUNDS	(1u << 20)
#define NIL		UINT32_MAX

enum simc_what {
	EVC_UPDATE,	/* a counter update lands (sc_update) */
	EVC_DESC,	/* a chain's next descriptor may start */
	EVC_ARRIVE,	/* a message reaches its target's NIC (sc_msg) */
	EVC_REQUEST,	/* a GET's request reaches its target's NIC (sc_msg) */
	EVC_REPLY,	/* a GET's bytes reach the chain's node (sc_msg) */
};

/* A counter: its success value and the chains waiting on it. */
struct sc_ctr {
	struct th_verify_counter id;
	uint64_t value;
	uint32_t head;		/* waiting chains, threshold then posting order */
};

struct sc_chain {
	uint32_t ctr;		/* its trigger counter */
	uint32_t node;
	uint64_t threshold;	/* of the round it waits for or runs */
	uint32_t pc;		/* its next descriptor */
	uint32_t next;		/* in its counter's wait list */
	uint32_t rounds;	/* rounds fired */
	uint64_t done;		/* its latest effect; UINT64_MAX: never ran */
	bool waiting;
};

struct sc_update {
	uint32_t ctr;
	bool set;
	uint64_t value;
	uint32_t chain;		/* whose effect, or NIL for the host's */
};

/* One message of a WIRE descriptor in flight. */
struct sc_msg {
	uint32_t chain, desc;
	uint32_t target;	/* the target node */
	uint32_t remote_ct;	/* counter id at the target, or NIL */
	uint64_t len;
};

struct sc_run {
	const struct th_verify_set *set;
	const struct th_sim_params *p;
	const struct th_sim_nic *nic;
	struct sim_heap heap;
	struct sc_ctr *ctrs;
	uint32_t nctrs, ctr_cap;
	uint32_t *hash;		/* counter ids by (node, vport, ct), building */
	uint32_t hash_mask;
	struct sc_chain *chains;
	/*
	 * Per descriptor (chain c's are from desc_first[c]), the counters it
	 * raises, resolved once: its CT operand, its completion counter, the
	 * counter at its target; NIL for none.
	 */
	uint32_t *desc_first;
	uint32_t *ct_op, *ct_comp, *ct_remote;
	struct sc_update *upd;
	uint32_t nupd, upd_cap;
	struct sc_msg *msg;
	uint32_t nmsg, msg_cap;
	uint32_t nodes;
	uint64_t *busy;		/* [node]: its engine copies or reduces until */
	uint64_t *gs_free;	/* [node]: the NIC's send gap */
	uint64_t *gr_free;	/* [node]: the NIC's receive gap */
	uint64_t *finish;	/* [node]: its last event */
	uint64_t events;
	bool overflow;
	uint32_t runaway;	/* a chain past SIM_MAX_ROUNDS, or NIL */
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

static uint64_t sc_mul(struct sc_run *s, uint64_t a, uint64_t b)
{
	uint64_t r;

	if (__builtin_mul_overflow(a, b, &r)) {
		s->overflow = true;
		return UINT64_MAX;
	}
	return r;
}

/* LogGP's (n - 1) * G: the first byte is paid in L or g */
static uint64_t sc_bytes(struct sc_run *s, uint64_t n)
{
	return sc_mul(s, n ? n - 1 : 0, s->p->G);
}

static uint64_t sc_max(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static void sc_touch(struct sc_run *s, uint32_t node, uint64_t t)
{
	s->finish[node] = sc_max(s->finish[node], t);
}

static uint32_t sc_hash(uint32_t node, uint32_t vport, uint16_t ct)
{
	/* splitmix64's finaliser over the three: every bit of each counts */
	uint64_t k = ((uint64_t)node << 32 | vport) ^ ((uint64_t)ct << 48) ^
		     ct;

	k ^= k >> 30;
	k *= 0xbf58476d1ce4e5b9ull;
	k ^= k >> 27;
	k *= 0x94d049bb133111ebull;
	k ^= k >> 31;
	return (uint32_t)k;
}

/* Doubles the counter table and its index (load at most a half). */
static int sc_grow(struct sc_run *s)
{
	uint32_t cap = s->ctr_cap ? 2 * s->ctr_cap : 1024, i, mask = 2 * cap - 1;
	struct sc_ctr *c;
	uint32_t *h;

	if (cap >= SIM_MAX_OPS)
		return -E2BIG;
	c = realloc(s->ctrs, cap * sizeof(*c));
	if (!c)
		return -ENOMEM;
	s->ctrs = c;
	h = malloc(2 * (size_t)cap * sizeof(*h));
	if (!h)
		return -ENOMEM;
	memset(h, 0xff, 2 * (size_t)cap * sizeof(*h));
	for (i = 0; i < s->nctrs; i++) {
		const struct th_verify_counter *id = &c[i].id;
		uint32_t k = sc_hash(id->node, id->vport, id->ct) & mask;

		while (h[k] != NIL)
			k = (k + 1) & mask;
		h[k] = i;
	}
	free(s->hash);
	s->hash = h;
	s->hash_mask = mask;
	s->ctr_cap = cap;
	return 0;
}

/* The id of counter (@node, @vport, @ct), added if new. */
static int sc_counter(struct sc_run *s, uint32_t node, uint32_t vport,
		      uint16_t ct, uint32_t *id)
{
	uint32_t h;
	int ret;

	if (s->nctrs == s->ctr_cap) {
		ret = sc_grow(s);
		if (ret)
			return ret;
	}
	for (h = sc_hash(node, vport, ct) & s->hash_mask;;
	     h = (h + 1) & s->hash_mask) {
		uint32_t i = s->hash[h];

		if (i == NIL)
			break;
		if (s->ctrs[i].id.node == node && s->ctrs[i].id.vport == vport &&
		    s->ctrs[i].id.ct == ct) {
			*id = i;
			return 0;
		}
	}
	s->ctrs[s->nctrs] = (struct sc_ctr){
		.id = { .node = node, .vport = vport, .ct = ct }, .head = NIL };
	s->hash[h] = s->nctrs;
	*id = s->nctrs++;
	if (node >= s->nodes)
		s->nodes = node + 1;
	return 0;
}

static int sc_push_update(struct sc_run *s, uint64_t t, uint32_t ctr, bool set,
			  uint64_t value, uint32_t chain)
{
	if (s->nupd == s->upd_cap) {
		uint32_t cap = s->upd_cap ? 2 * s->upd_cap : 256;
		struct sc_update *u;

		if (cap < s->upd_cap || cap >= SIM_MAX_OPS)
			return -E2BIG;
		u = realloc(s->upd, cap * sizeof(*u));
		if (!u)
			return -ENOMEM;
		s->upd = u;
		s->upd_cap = cap;
	}
	s->upd[s->nupd] = (struct sc_update){ .ctr = ctr, .set = set,
					      .value = value, .chain = chain };
	return sim_heap_push(&s->heap, t, s->nupd++, EVC_UPDATE);
}

/* Chain @c waits on its counter again, in threshold then posting order. */
static void sc_wait(struct sc_run *s, uint32_t c)
{
	struct sc_chain *ch = &s->chains[c];
	uint32_t *at = &s->ctrs[ch->ctr].head;

	while (*at != NIL && (s->chains[*at].threshold < ch->threshold ||
			      (s->chains[*at].threshold == ch->threshold &&
			       *at < c)))
		at = &s->chains[*at].next;
	ch->next = *at;
	*at = c;
	ch->waiting = true;
}

/* The chains counter @ctr now releases fire at @t (th_eng_ct_fire_locked). */
static int sc_fire(struct sc_run *s, uint32_t ctr, uint64_t t)
{
	struct sc_ctr *c = &s->ctrs[ctr];
	int ret;

	while (c->head != NIL && s->chains[c->head].threshold <= c->value) {
		uint32_t id = c->head;
		struct sc_chain *ch = &s->chains[id];

		c->head = ch->next;
		ch->waiting = false;
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

/*
 * The updates descriptor @d of chain @c makes once it is done at @t: its
 * counter operand, its completion counter (and CQ entry), on its node.
 */
static int sc_effects(struct sc_run *s, uint32_t c, const struct th_nic_desc *d,
		      uint64_t t)
{
	const struct th_verify_chain *vc = &s->set->chains[c];
	uint32_t di = s->desc_first[c] + (uint32_t)(d - vc->descs);
	u32 f = th_eng_opdef(d->opcode)->flags;
	int ret = 0;

	if (s->ct_op[di] != NIL)
		ret = sc_push_update(s, t, s->ct_op[di], f & TH_ENG_OPF_CT_SET,
				     d->ct.value, c);
	if (!ret && s->ct_comp[di] != NIL)
		ret = sc_push_update(s, t, s->ct_comp[di], false, 1, c);
	s->chains[c].done = sc_max(s->chains[c].done, t);
	if ((f & (TH_ENG_OPF_CT_INC | TH_ENG_OPF_CT_SET | TH_ENG_OPF_CQE)) ||
	    (d->flags & (TH_NIC_DF_COMP_CT | TH_NIC_DF_SIGNAL)))
		sc_touch(s, vc->node, t);
	return ret;
}

static int sc_send(struct sc_run *s, uint32_t c, uint32_t i,
		   const struct th_eng_remote_op *op, uint64_t t)
{
	uint32_t rct = s->ct_remote[s->desc_first[c] + i];
	struct sc_msg *m;

	if (s->nmsg == s->msg_cap) {
		uint32_t cap = s->msg_cap ? 2 * s->msg_cap : 256;

		if (cap < s->msg_cap || cap >= SIM_MAX_OPS)
			return -E2BIG;
		m = realloc(s->msg, cap * sizeof(*m));
		if (!m)
			return -ENOMEM;
		s->msg = m;
		s->msg_cap = cap;
	}
	s->msg[s->nmsg] = (struct sc_msg){ .chain = c, .desc = i,
		.target = op->node, .remote_ct = rct, .len = op->len };
	return sim_heap_push(&s->heap, sc_add(s, t, s->p->L), s->nmsg++,
			     op->fetch ? EVC_REQUEST : EVC_ARRIVE);
}

/* The bytes @r reads or copies: an ALU pass reads every operand. */
static uint64_t sc_work(struct sc_run *s, const struct th_nic_desc *d)
{
	uint64_t len, ps;

	if (th_eng_opdef(d->opcode)->charge == TH_ENG_CHARGE_ALU) {
		len = (uint64_t)d->reduce.count *
		      th_alu_dtype_size(d->reduce.dtype) *
		      (d->reduce.nsrc + !!(d->reduce.rflags & TH_NIC_RF_ACCUMULATE));
		ps = sc_mul(s, len, s->nic->alu_ps);
	} else {
		ps = sc_mul(s, th_eng_desc_len(d), s->nic->copy_ps);
	}
	return sc_add(s, s->nic->desc_ns, ps / 1000);
}

/*
 * Descriptor pc of chain @c is done at @t: the next one may start, or the
 * round is over (a REARM waits for the next round, from @t).
 */
static int sc_next(struct sc_run *s, uint32_t c, uint64_t t)
{
	const struct th_verify_chain *vc = &s->set->chains[c];
	struct sc_chain *ch = &s->chains[c];
	const struct th_nic_desc *d = &vc->descs[ch->pc];

	if (++ch->pc < vc->ndesc)
		return sim_heap_push(&s->heap, t, c, EVC_DESC);
	if (th_eng_opdef(d->opcode)->flags & TH_ENG_OPF_ENDS_ROUND) {
		ch->threshold += d->rearm.stride;
		sc_wait(s, c);
		return sc_fire(s, ch->ctr, t);
	}
	return 0;
}

/*
 * Descriptor pc of chain @c may start at @t.  Its node's engine copies and
 * reduces one descriptor at a time; a WIRE descriptor to another node
 * waits for its NIC's send gap, and the chain goes on once the delivery
 * is done (th_exec.c parks it on chain->remote) while the node's other
 * chains run; an operation with no charge happens at the chain's time.
 */
static int sc_desc(struct sc_run *s, uint32_t c, uint64_t t)
{
	const struct th_verify_chain *vc = &s->set->chains[c];
	struct sc_chain *ch = &s->chains[c];
	const struct th_nic_desc *d = &vc->descs[ch->pc];
	const struct th_eng_opdef *def = th_eng_opdef(d->opcode);
	struct th_eng_remote_op op;
	uint64_t next = t;
	bool wire;
	int ret;

	wire = def->charge == TH_ENG_CHARGE_WIRE && th_eng_desc_target(d, &op);
	if (wire && op.node != vc->node) {
		if (s->gs_free[vc->node] > t)
			return sim_heap_push(&s->heap, s->gs_free[vc->node], c,
					     EVC_DESC);
		next = sc_add(s, t, s->nic->desc_ns);
		s->gs_free[vc->node] = sc_add(s, sc_add(s, next, s->p->g),
					      sc_bytes(s, op.len));
		ret = sc_send(s, c, ch->pc, &op, next);
		if (ret)
			return ret;
		sc_touch(s, vc->node, next);
	} else if (def->charge != TH_ENG_CHARGE_NONE) {
		/* a copy, a reduction, or a delivery to a vport of this node */
		if (s->busy[vc->node] > t)
			return sim_heap_push(&s->heap, s->busy[vc->node], c,
					     EVC_DESC);
		next = sc_add(s, t, sc_work(s, d));
		s->busy[vc->node] = next;
		sc_touch(s, vc->node, next);
		if (wire && op.remote_ct >= 0) {
			ret = sc_push_update(s, next,
					     s->ct_remote[s->desc_first[c] + ch->pc],
					     false, 1, c);
			if (ret)
				return ret;
		}
		ret = sc_effects(s, c, d, next);
		if (ret)
			return ret;
	} else {
		ret = sc_effects(s, c, d, t);
		if (ret)
			return ret;
	}
	/* a delivery elsewhere: the chain goes on once it is done */
	if (wire && op.node != vc->node)
		return 0;
	return sc_next(s, c, next);
}

/*
 * A message reaches its target's NIC at @t: the receive gap g and (n-1)G
 * there, the counter raised once the last byte is in.  A GET's request
 * turns round at the target, whose NIC sends the bytes back (its send
 * gap), and the reply lands on the chain's node.
 */
static int sc_arrive(struct sc_run *s, uint32_t mi, uint64_t t, bool fetch,
		     bool reply)
{
	struct sc_msg *m = &s->msg[mi];
	const struct th_verify_chain *vc = &s->set->chains[m->chain];
	const struct th_nic_desc *d = &vc->descs[m->desc];
	uint32_t at = reply ? vc->node : m->target;
	uint64_t in;
	int ret;

	if (fetch && !reply) {
		/* the request: the target's NIC sends the bytes back */
		if (s->gs_free[at] > t)
			return sim_heap_push(&s->heap, s->gs_free[at], mi,
					     EVC_REQUEST);
		s->gs_free[at] = sc_add(s, sc_add(s, t, s->p->g),
					sc_bytes(s, m->len));
		sc_touch(s, at, t);
		return sim_heap_push(&s->heap, sc_add(s, t, s->p->L), mi,
				     EVC_REPLY);
	}
	if (s->gr_free[at] > t)
		return sim_heap_push(&s->heap, s->gr_free[at], mi,
				     reply ? EVC_REPLY : EVC_ARRIVE);
	s->gr_free[at] = sc_add(s, sc_add(s, t, s->p->g), sc_bytes(s, m->len));
	in = sc_add(s, t, sc_bytes(s, m->len));
	sc_touch(s, at, in);
	if (m->remote_ct != NIL) {
		ret = sc_push_update(s, in, m->remote_ct, false, 1, m->chain);
		if (ret)
			return ret;
	}
	/*
	 * The descriptor is done: its own counter and CQ entry; the chain
	 * goes on (no acknowledgement's latency: the engine's delivery is
	 * done once the data is in place).
	 */
	ret = sc_effects(s, m->chain, d, in);
	if (ret)
		return ret;
	return sc_next(s, m->chain, in);
}

static int sc_event(struct sc_run *s, const struct sim_event *ev)
{
	struct sc_update *u;
	struct sc_ctr *c;

	s->events++;
	switch (ev->what) {
	case EVC_UPDATE:
		u = &s->upd[ev->op];
		c = &s->ctrs[u->ctr];
		c->value = u->set ? u->value : c->value + u->value;
		sc_touch(s, c->id.node, ev->time);
		return sc_fire(s, u->ctr, ev->time);
	case EVC_DESC:
		return sc_desc(s, ev->op, ev->time);
	case EVC_ARRIVE:
		return sc_arrive(s, ev->op, ev->time, false, false);
	case EVC_REQUEST:
		return sc_arrive(s, ev->op, ev->time, true, false);
	case EVC_REPLY:
		return sc_arrive(s, ev->op, ev->time, true, true);
	default:
		return -EINVAL;
	}
}

/* Why the first chain that never fired did not: its counter fell short. */
static void sc_explain(struct sc_run *s, uint32_t unfired, char *err,
		       size_t errlen)
{
	char name[80];
	uint32_t i;

	for (i = 0; i < s->set->nchains; i++) {
		const struct sc_chain *ch = &s->chains[i];
		const struct sc_ctr *c = &s->ctrs[ch->ctr];

		if (ch->done != UINT64_MAX)
			continue;
		if (s->set->chains[i].name)
			snprintf(name, sizeof(name), "%s", s->set->chains[i].name);
		else
			snprintf(name, sizeof(name), "#%u", i);
		sim_err(err, errlen,
			"%u chain(s) never fired; the first, %s (node %u), waits for counter %u of vport %u to reach %" PRIu64 ", which ended at %" PRIu64,
			unfired, name, c->id.node, c->id.ct, c->id.vport,
			ch->threshold, c->value);
		return;
	}
}

static int sc_setup(struct sc_run *s, const struct th_verify_set *set,
		    char *err, size_t errlen)
{
	uint64_t names = set->nactions;
	uint32_t i, j;

	if ((set->nchains && !set->chains) || (set->nactions && !set->actions)) {
		sim_err(err, errlen, "no chains or actions where their count says some");
		return -EINVAL;
	}
	for (i = 0; i < set->nchains; i++) {
		const struct th_verify_chain *vc = &set->chains[i];

		if (!vc->descs || !vc->ndesc) {
			sim_err(err, errlen, "chain %u has no descriptors", i);
			return -EINVAL;
		}
		for (j = 0; j < vc->ndesc; j++)
			if (vc->descs[j].opcode >= TH_NIC_OP_MAX) {
				sim_err(err, errlen,
					"chain %u descriptor %u: opcode %u is unknown to the NIC",
					i, j, vc->descs[j].opcode);
				return -EINVAL;
			}
		if (vc->node >= SIM_MAX_RANKS) {
			sim_err(err, errlen, "chain %u is on node %u; the simulator takes nodes below %u",
				i, vc->node, SIM_MAX_RANKS);
			return -E2BIG;
		}
		names += vc->ndesc;
	}
	if (names >= SIM_MAX_OPS) {
		sim_err(err, errlen, "the set has %" PRIu64 " descriptors and actions; the simulator takes fewer than %u",
			names, SIM_MAX_OPS);
		return -E2BIG;
	}
	s->chains = calloc(set->nchains ? set->nchains : 1, sizeof(*s->chains));
	s->desc_first = calloc(set->nchains + 1, sizeof(*s->desc_first));
	s->ct_op = malloc((names + 1) * sizeof(*s->ct_op));
	s->ct_comp = malloc((names + 1) * sizeof(*s->ct_comp));
	s->ct_remote = malloc((names + 1) * sizeof(*s->ct_remote));
	if (!s->chains || !s->desc_first || !s->ct_op || !s->ct_comp ||
	    !s->ct_remote)
		return -ENOMEM;
	return 0;
}

/*
 * The counters descriptor @d of @vc raises (its number @di in the set),
 * from the opcode table's row: its CT operand, its completion counter, the
 * counter at its target.
 */
static int sc_resolve(struct sc_run *s, const struct th_verify_chain *vc,
		      const struct th_nic_desc *d, uint32_t di)
{
	u32 f = th_eng_opdef(d->opcode)->flags;
	struct th_eng_remote_op op;
	int ret = 0;

	s->ct_op[di] = NIL;
	s->ct_comp[di] = NIL;
	s->ct_remote[di] = NIL;
	if (f & (TH_ENG_OPF_CT_INC | TH_ENG_OPF_CT_SET))
		ret = sc_counter(s, vc->node, vc->vport, d->ct.ct, &s->ct_op[di]);
	if (!ret && (d->flags & TH_NIC_DF_COMP_CT))
		ret = sc_counter(s, vc->node, vc->vport, d->comp_ct,
				 &s->ct_comp[di]);
	if (ret || !th_eng_desc_target(d, &op))
		return ret;
	if (op.node >= SIM_MAX_RANKS)
		return -E2BIG;
	if (op.node >= s->nodes)
		s->nodes = op.node + 1;
	if (op.remote_ct >= 0)
		ret = sc_counter(s, op.node, op.vport, (uint16_t)op.remote_ct,
				 &s->ct_remote[di]);
	return ret;
}

/* Everything named before the run: counters, nodes, the per-node clocks. */
static int sc_build(struct sc_run *s)
{
	const struct th_verify_set *set = s->set;
	uint32_t i, id, di = 0;
	int ret;

	for (i = 0; i < set->nchains; i++) {
		const struct th_verify_chain *vc = &set->chains[i];
		struct sc_chain *ch = &s->chains[i];
		uint32_t j;

		ret = sc_counter(s, vc->node, vc->vport, vc->descs[0].trig_ct,
				 &ch->ctr);
		if (ret)
			return ret;
		ch->node = vc->node;
		ch->threshold = vc->descs[0].threshold;
		ch->done = UINT64_MAX;
		s->desc_first[i] = di;
		for (j = 0; j < vc->ndesc; j++, di++) {
			ret = sc_resolve(s, vc, &vc->descs[j], di);
			if (ret)
				return ret;
		}
	}
	for (i = 0; i < set->nactions; i++) {
		ret = sc_counter(s, set->actions[i].counter.node,
				 set->actions[i].counter.vport,
				 set->actions[i].counter.ct, &id);
		if (ret)
			return ret;
	}
	if (!s->nodes)
		s->nodes = 1;
	s->busy = calloc(s->nodes, sizeof(*s->busy));
	s->gs_free = calloc(s->nodes, sizeof(*s->gs_free));
	s->gr_free = calloc(s->nodes, sizeof(*s->gr_free));
	s->finish = calloc(s->nodes, sizeof(*s->finish));
	if (!s->busy || !s->gs_free || !s->gr_free || !s->finish)
		return -ENOMEM;
	return 0;
}

static void sc_free(struct sc_run *s)
{
	sim_heap_fini(&s->heap);
	free(s->ctrs);
	free(s->hash);
	free(s->desc_first);
	free(s->ct_op);
	free(s->ct_comp);
	free(s->ct_remote);
	free(s->chains);
	free(s->upd);
	free(s->msg);
	free(s->busy);
	free(s->gs_free);
	free(s->gr_free);
	free(s->finish);
}

int th_sim_chains(const struct th_verify_set *set,
		  const struct th_sim_params *params,
		  const struct th_sim_nic *nic, struct th_sim_result *res,
		  uint64_t *chain_done_ns, char *err, size_t errlen)
{
	struct sc_run s = { .set = set, .p = params, .nic = nic,
			    .runaway = NIL };
	struct th_sim_nic defaults;
	struct sim_event ev;
	uint32_t i, unfired = 0;
	int ret;

	memset(res, 0, sizeof(*res));
	if (err && errlen)
		err[0] = '\0';
	if (!set || !params) {
		sim_err(err, errlen, "no set or no parameters");
		return -EINVAL;
	}
	if (!nic) {
		th_sim_nic_default(&defaults);
		s.nic = &defaults;
	}
	ret = sc_setup(&s, set, err, errlen);
	if (!ret)
		ret = sc_build(&s);
	if (ret == -ENOMEM)
		sim_err(err, errlen, "out of memory");
	else if (ret == -E2BIG && err && !*err)
		sim_err(err, errlen, "a descriptor targets a node past %u", SIM_MAX_RANKS);
	if (ret)
		goto out;
	/* posted first, at 0: a chain whose threshold is met fires at once */
	for (i = 0; i < set->nchains; i++)
		sc_wait(&s, i);
	for (i = 0; !ret && i < s.nctrs; i++)
		ret = sc_fire(&s, i, 0);
	/* then the host's updates, at 0, in their order */
	for (i = 0; !ret && i < set->nactions; i++) {
		const struct th_verify_action *a = &set->actions[i];
		uint32_t id;

		ret = sc_counter(&s, a->counter.node, a->counter.vport,
				 a->counter.ct, &id);
		if (!ret)
			ret = sc_push_update(&s, 0, id, a->set, a->value, NIL);
	}
	while (!ret && sim_heap_pop(&s.heap, &ev))
		ret = sc_event(&s, &ev);
	if (ret == -ELOOP && s.runaway != NIL)
		sim_err(err, errlen,
			"chain %u fired %u rounds: a re-arming chain that feeds itself (thctl verify calls it self-rearm)",
			s.runaway, SIM_MAX_ROUNDS);
	else if (ret == -ENOMEM || ret == -E2BIG)
		sim_err(err, errlen, "out of memory for the run's events");
	if (!ret && s.overflow) {
		sim_err(err, errlen, "virtual time passed 2^64 ns");
		ret = -EOVERFLOW;
	}
	if (!ret) {
		res->ranks = s.nodes;
		res->finish_ns = calloc(s.nodes, sizeof(*res->finish_ns));
		if (!res->finish_ns) {
			sim_err(err, errlen, "out of memory");
			ret = -ENOMEM;
		}
	}
	if (!ret) {
		memcpy(res->finish_ns, s.finish, s.nodes * sizeof(*s.finish));
		for (i = 0; i < s.nodes; i++)
			res->max_ns = sc_max(res->max_ns, s.finish[i]);
		res->events = s.events;
		for (i = 0; i < set->nchains; i++) {
			if (chain_done_ns)
				chain_done_ns[i] = s.chains[i].done;
			unfired += s.chains[i].done == UINT64_MAX;
		}
		if (unfired) {
			sc_explain(&s, unfired, err, errlen);
			ret = -EDEADLK;
		}
	}
out:
	sc_free(&s);
	return ret;
}
