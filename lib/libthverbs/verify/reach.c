// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * reach.c - the fixed point at the heart of the verifier: how far each
 * counter's success value can ever get, and how many rounds each chain
 * can fire.  A counter reaches at most the largest value anything sets
 * it to plus every increment that can reach it: the host's, and each
 * chain's per round times the rounds it can fire.  A chain fires no
 * round while its counter cannot reach its threshold, one if it does not
 * re-arm, and (reach - threshold) / stride + 1 if it does.  Both grow
 * together from nothing; a re-arming chain still growing after every
 * chain had its turn feeds itself, and is taken as firing without bound
 * (widening), so the iteration ends.  The result is an upper bound: what
 * it says cannot be reached cannot be (Documentation/verify.rst).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "verify_priv.h"

uint64_t tv_sat_add(uint64_t a, uint64_t b)
{
	return a > TV_UNBOUNDED - b ? TV_UNBOUNDED : a + b;
}

uint64_t tv_sat_mul(uint64_t a, uint64_t b)
{
	if (!a || !b)
		return 0;
	return a > TV_UNBOUNDED / b ? TV_UNBOUNDED : a * b;
}

/* The rounds @c can fire when its trigger counter reaches at most @r. */
static uint64_t tv_rounds_of(const struct tv_chain *c, uint64_t r,
			     bool optimistic)
{
	if (c->refused)
		return 0;
	if (optimistic)
		return c->rearm ? TV_UNBOUNDED : 1;
	if (r < c->threshold)
		return 0;
	if (!c->rearm)
		return 1;
	if (r == TV_UNBOUNDED || !c->stride)
		return TV_UNBOUNDED;
	return tv_sat_add((r - c->threshold) / c->stride, 1);
}

/* Each counter's reach when the chains fire @rounds rounds. */
static void tv_reach_of(const struct tv_model *m, const struct tv_start *s,
			const uint64_t *rounds, uint64_t *reach, uint64_t *setmax)
{
	uint32_t i, j;

	for (i = 0; i < m->nctrs; i++) {
		reach[i] = s->host ? m->host[i].inc : 0;
		setmax[i] = s->host && m->host[i].set ? m->host[i].set_max : 0;
	}
	for (i = 0; i < m->set->nchains; i++) {
		const struct tv_chain *c = &m->chains[i];

		if (!rounds[i])
			continue;
		for (j = c->first_eff; j < c->first_eff + c->neff; j++) {
			const struct tv_effect *e = &m->effs[j];

			if (e->set) {
				if (e->set_value > setmax[e->ctr])
					setmax[e->ctr] = e->set_value;
			} else {
				reach[e->ctr] = tv_sat_add(reach[e->ctr],
					tv_sat_mul(rounds[i], e->inc));
			}
		}
	}
	for (i = 0; i < m->nctrs; i++)
		reach[i] = tv_sat_add(reach[i], setmax[i]);
}

/*
 * The fixed point from @s: @reach per counter, @rounds per chain
 * (TV_UNBOUNDED: no bound).  0 or -ENOMEM.
 */
int tv_reach(const struct tv_model *m, const struct tv_start *s,
	     uint64_t *reach, uint64_t *rounds)
{
	uint32_t n = m->set->nchains, i, it, widen;
	uint64_t *setmax = calloc(m->nctrs + 1, sizeof(*setmax));
	bool *grew = calloc(n + 1, sizeof(*grew));
	bool changed = true;

	if (!setmax || !grew) {
		free(setmax);
		free(grew);
		return -ENOMEM;
	}
	memset(rounds, 0, n * sizeof(*rounds));
	/* each widening bounds one more chain for good: at most n of them */
	for (widen = 0; widen <= n && changed; widen++) {
		/* a dependency path is at most n chains long */
		for (it = 0; it < n + 2; it++) {
			tv_reach_of(m, s, rounds, reach, setmax);
			changed = false;
			for (i = 0; i < n; i++) {
				uint64_t r = tv_rounds_of(&m->chains[i],
							  reach[m->chains[i].trig],
							  s->optimistic);

				grew[i] = r != rounds[i];
				if (grew[i]) {
					rounds[i] = r;
					changed = true;
				}
			}
			if (!changed)
				break;
		}
		/* still growing: a re-arming chain that feeds itself */
		for (i = 0; changed && i < n; i++)
			if (grew[i] && m->chains[i].rearm)
				rounds[i] = TV_UNBOUNDED;
	}
	tv_reach_of(m, s, rounds, reach, setmax);
	free(setmax);
	free(grew);
	return 0;
}

/* Counter @k of tv_rounds_alone() moved: its waiters are looked at again. */
static void tv_alone_moved(struct tv_model *m, uint32_t k, uint32_t *tail)
{
	uint32_t w;

	if (!m->alone_touched[k]) {
		m->alone_touched[k] = true;
		m->alone_list[m->alone_ntouched++] = k;
	}
	for (w = m->wait_first[k]; w < m->wait_first[k + 1]; w++) {
		uint32_t b = m->waiters[w];

		if (!m->alone_queued[b]) {
			m->alone_queued[b] = true;
			m->alone_queue[(*tail)++ % (m->set->nchains + 1)] = b;
		}
	}
}

/*
 * The rounds of every chain in the fixed point from a start without the
 * host: chain @seed (TV_NONE: none) just triggered, nothing else but the
 * chains that fire on nothing (threshold 0).  Same answer as tv_reach()
 * from that start, but by a worklist over the chains whose trigger
 * counters moved, in the model's scratch: such a start moves only what
 * the seed's effects reach, a few chains of a plan of thousands, and a
 * pass over every chain and counter each step of the iteration made a
 * plan with credit cycles (each chain of which gets a fixed point of its
 * own) quadratic: 0.59 s for an eager Broadcast of 1024 ranks.  A
 * re-arming chain whose rounds changed more times than there are chains,
 * plus two, feeds itself and is taken as firing without bound, as
 * tv_reach() widens it.  The rounds per chain, valid until
 * tv_rounds_alone_done(), which must come before the next call.
 */
const uint64_t *tv_rounds_alone(struct tv_model *m, uint32_t seed)
{
	uint32_t n = m->set->nchains, head = 0, tail = 0, i, j;
	uint64_t *rounds = m->alone_rounds;
	uint64_t r, old, k;

	for (j = 0; j < m->nzero; j++) {
		i = m->zero_chains[j];
		m->alone_queued[i] = true;
		m->alone_queue[tail++ % (n + 1)] = i;
	}
	if (seed != TV_NONE) {
		const struct tv_chain *c = &m->chains[seed];

		if (c->threshold > m->alone_setmax[c->trig])
			m->alone_setmax[c->trig] = c->threshold;
		tv_alone_moved(m, c->trig, &tail);
	}
	while (head != tail) {
		const struct tv_chain *c;

		i = m->alone_queue[head++ % (n + 1)];
		m->alone_queued[i] = false;
		c = &m->chains[i];
		r = tv_rounds_of(c, tv_sat_add(m->alone_reach[c->trig],
					       m->alone_setmax[c->trig]), false);
		if (r == rounds[i])
			continue;
		if (c->rearm && ++m->alone_changes[i] > n + 2)
			r = TV_UNBOUNDED;
		old = rounds[i];
		rounds[i] = r;
		if (!old)
			m->alone_fired[m->alone_nfired++] = i;
		for (j = c->first_eff; j < c->first_eff + c->neff; j++) {
			const struct tv_effect *e = &m->effs[j];

			if (e->set) {
				if (old || e->set_value <= m->alone_setmax[e->ctr])
					continue;
				m->alone_setmax[e->ctr] = e->set_value;
			} else {
				k = r == TV_UNBOUNDED ? TV_UNBOUNDED : r - old;
				if (!e->inc)
					continue;
				m->alone_reach[e->ctr] =
					tv_sat_add(m->alone_reach[e->ctr],
						   tv_sat_mul(k, e->inc));
			}
			tv_alone_moved(m, e->ctr, &tail);
		}
	}
	return rounds;
}

/* The scratch of tv_rounds_alone() all zero again, in what it touched. */
void tv_rounds_alone_done(struct tv_model *m)
{
	uint32_t i;

	for (i = 0; i < m->alone_ntouched; i++) {
		uint32_t c = m->alone_list[i];

		m->alone_reach[c] = 0;
		m->alone_setmax[c] = 0;
		m->alone_touched[c] = false;
	}
	for (i = 0; i < m->alone_nfired; i++) {
		m->alone_rounds[m->alone_fired[i]] = 0;
		m->alone_changes[m->alone_fired[i]] = 0;
	}
	m->alone_ntouched = 0;
	m->alone_nfired = 0;
}
