// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * heap.c - the simulator's event queue: a 4-ary min-heap ordered by
 * virtual time, then by the order the events were pushed (a sequence
 * number), so that runs are deterministic and events of the same instant
 * run first in, first out (LogGOPSim's STRICT_ORDER).  Four children a
 * node, not two: half the levels for a pop to walk, and the four sit in
 * two cache lines (a 2^20-rank run holds about a million events).
 *
 * Most events are for the instant being run (a chain's next descriptor,
 * a counter raised now): those skip the heap and wait in a ring in push
 * order.  Every event in the heap for that instant was pushed before them,
 * so the ring's head is taken only once the heap's top is later or newer,
 * and the order is exactly the heap's alone.
 */
#include <errno.h>
#include <stdlib.h>

#include "sim_priv.h"

#define SIM_HEAP_ARITY	4

static bool sim_event_before(const struct sim_event *a, const struct sim_event *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

/* Append @ev to the ring of the current instant. */
static int sim_now_push(struct sim_heap *h, const struct sim_event *ev)
{
	if (h->now_n == h->now_cap) {
		size_t ncap = h->now_cap ? h->now_cap * 2 : 1024, i;
		struct sim_event *n = malloc(ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		for (i = 0; i < h->now_n; i++)
			n[i] = h->now[(h->now_head + i) % h->now_cap];
		free(h->now);
		h->now = n;
		h->now_cap = ncap;
		h->now_head = 0;
	}
	h->now[(h->now_head + h->now_n++) % h->now_cap] = *ev;
	return 0;
}

int sim_heap_push(struct sim_heap *h, uint64_t time, uint32_t op,
		  uint32_t what)
{
	struct sim_event ev = { .time = time, .seq = h->next_seq++, .op = op,
				.what = what };
	size_t i;

	if (h->popped && time == h->now_time)
		return sim_now_push(h, &ev);

	if (h->n == h->cap) {
		size_t ncap = h->cap ? h->cap * 2 : 1024;
		struct sim_event *n = realloc(h->ev, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		h->ev = n;
		h->cap = ncap;
	}
	/* sift up */
	for (i = h->n++; i > 0; ) {
		size_t parent = (i - 1) / SIM_HEAP_ARITY;

		if (!sim_event_before(&ev, &h->ev[parent]))
			break;
		h->ev[i] = h->ev[parent];
		i = parent;
	}
	h->ev[i] = ev;
	return 0;
}

bool sim_heap_pop(struct sim_heap *h, struct sim_event *out)
{
	struct sim_event last;
	size_t i = 0;

	/* the ring's events are the instant's newest: after the heap's */
	if (h->now_n && (!h->n || sim_event_before(&h->now[h->now_head],
						    &h->ev[0]))) {
		*out = h->now[h->now_head];
		h->now_head = (h->now_head + 1) % h->now_cap;
		h->now_n--;
		return true;
	}
	if (!h->n)
		return false;
	*out = h->ev[0];
	/* (an event of the past, were one pushed, leaves the instant be) */
	if (!h->now_n) {
		h->popped = true;
		h->now_time = out->time;
	}
	last = h->ev[--h->n];
	/* sift the last event down from the root */
	for (;;) {
		size_t first = SIM_HEAP_ARITY * i + 1, c = first, k, end;

		if (first >= h->n)
			break;
		end = first + SIM_HEAP_ARITY < h->n ? first + SIM_HEAP_ARITY : h->n;
		for (k = first + 1; k < end; k++)
			if (sim_event_before(&h->ev[k], &h->ev[c]))
				c = k;
		if (!sim_event_before(&h->ev[c], &last))
			break;
		h->ev[i] = h->ev[c];
		i = c;
	}
	if (h->n)
		h->ev[i] = last;
	return true;
}

void sim_heap_fini(struct sim_heap *h)
{
	free(h->ev);
	free(h->now);
	h->ev = h->now = NULL;
	h->n = h->cap = h->now_n = h->now_cap = h->now_head = 0;
	h->popped = false;
}
