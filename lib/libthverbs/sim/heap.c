// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * heap.c - the simulator's event queue: a binary min-heap ordered by
 * virtual time, then by the order the events were pushed (a sequence
 * number), so that runs are deterministic and events of the same instant
 * run first in, first out (LogGOPSim's STRICT_ORDER).
 */
#include <errno.h>
#include <stdlib.h>

#include "sim_priv.h"

static bool sim_event_before(const struct sim_event *a, const struct sim_event *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

int sim_heap_push(struct sim_heap *h, uint64_t time, uint32_t op,
		  uint32_t what)
{
	struct sim_event ev = { .time = time, .seq = h->next_seq++, .op = op,
				.what = what };
	size_t i;

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
		size_t parent = (i - 1) / 2;

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

	if (!h->n)
		return false;
	*out = h->ev[0];
	last = h->ev[--h->n];
	/* sift the last event down from the root */
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && sim_event_before(&h->ev[c + 1], &h->ev[c]))
			c++;
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
	h->ev = NULL;
	h->n = h->cap = 0;
}
