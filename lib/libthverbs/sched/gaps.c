// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * gaps.c - the index of a processor's idle gaps, so that the insertion
 * search (th_sched_gap_start()) is logarithmic per candidate instead of a
 * walk over the whole timeline.  It only skips: every gap it proposes is
 * judged by the same test, in the same order, as the plain walk, so the
 * schedules are the same (test_sched_gaps.c compares the two).
 */
#include <errno.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "sched_priv.h"

static bool th_gaps_busy(const struct th_sched_slot *x)
{
	return x->finish > x->start;
}

/* The busy slot before position @i, or TH_NONE. */
static unsigned int th_gaps_prev_busy(const struct th_sched *s,
				      const struct th_sched_proc *pr,
				      unsigned int i)
{
	while (i-- > 0)
		if (th_gaps_busy(&s->slots[pr->slots[i]]))
			return i;
	return TH_NONE;
}

/*
 * The room before the busy slot at @i: the exact test accepts a copy of
 * length dur starting at t >= the previous finish pf only if
 * fl(t + dur) <= b, b = x->start + EPS (1 + |x->start|); so dur is at most
 * b - pf plus rounding, which the margin covers.
 */
static double th_gaps_room(const struct th_sched *s,
			   const struct th_sched_proc *pr, unsigned int i)
{
	const struct th_sched_slot *x = &s->slots[pr->slots[i]];
	unsigned int p;
	double b, pf;

	if (!th_gaps_busy(x))
		return -INFINITY;
	p = th_gaps_prev_busy(s, pr, i);
	if (p == TH_NONE)
		return INFINITY;
	pf = s->slots[pr->slots[p]].finish;
	b = x->start + TH_SCHED_EPS * (1.0 + fabs(x->start));
	return b - pf + 8 * DBL_EPSILON * (1.0 + fabs(b) + fabs(pf));
}

static void th_gaps_fill(double *t, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		t[i] = -INFINITY;
}

int th_gaps_reserve(struct th_sched_proc *pr, unsigned int cap)
{
	unsigned int tcap = pr->tcap ? pr->tcap : 16;
	double *room, *finish;

	if (cap <= pr->tcap)
		return 0;
	while (tcap < cap)
		tcap *= 2;
	room = malloc(2 * (size_t)tcap * sizeof(*room));
	finish = malloc(2 * (size_t)tcap * sizeof(*finish));
	if (!room || !finish) {
		free(room);
		free(finish);
		return -ENOMEM;
	}
	th_gaps_fill(room, 2 * tcap);
	th_gaps_fill(finish, 2 * tcap);
	free(pr->room);
	free(pr->finish);
	pr->room = room;
	pr->finish = finish;
	pr->tcap = tcap;
	return 0;	/* the caller refreshes every position */
}

/* Leaves from position @from on changed (an insertion shifts them all). */
void th_gaps_update(const struct th_sched *s, struct th_sched_proc *pr,
		    unsigned int from)
{
	unsigned int i, lo, hi;

	for (i = from; i < pr->n; i++) {
		const struct th_sched_slot *x = &s->slots[pr->slots[i]];

		pr->room[pr->tcap + i] = th_gaps_room(s, pr, i);
		pr->finish[pr->tcap + i] = th_gaps_busy(x) ? x->finish : -INFINITY;
	}
	lo = (pr->tcap + from) / 2;
	hi = (pr->tcap + (pr->n ? pr->n - 1 : 0)) / 2;
	for (; lo >= 1; lo /= 2, hi /= 2) {
		for (i = lo; i <= hi; i++) {
			pr->room[i] = fmax(pr->room[2 * i], pr->room[2 * i + 1]);
			pr->finish[i] = fmax(pr->finish[2 * i],
					     pr->finish[2 * i + 1]);
		}
		if (lo == 1)
			break;
	}
}

/* The first position >= @from whose room is at least @dur, or TH_NONE. */
static unsigned int th_gaps_find(const struct th_sched_proc *pr,
				 unsigned int from, double dur)
{
	unsigned int i = pr->tcap + from;

	if (from >= pr->tcap)
		return TH_NONE;
	while (!(pr->room[i] >= dur)) {
		/* the next subtree to the right */
		while (i & 1) {
			if (i == 1)
				return TH_NONE;
			i /= 2;
		}
		i++;
	}
	while (i < pr->tcap) {
		i *= 2;
		if (!(pr->room[i] >= dur))
			i++;
	}
	return i - pr->tcap;
}

/* The latest finish of the busy slots at positions [@lo, @hi). */
static double th_gaps_max_finish(const struct th_sched_proc *pr,
				 unsigned int lo, unsigned int hi)
{
	double m = -INFINITY;

	for (lo += pr->tcap, hi += pr->tcap; lo < hi; lo /= 2, hi /= 2) {
		if (lo & 1)
			m = fmax(m, pr->finish[lo++]);
		if (hi & 1)
			m = fmax(m, pr->finish[--hi]);
	}
	return m;
}

/*
 * The plain walk from position @i with the running start @t, which is
 * already past the ready time (so t is the latest finish of the busy
 * slots before i): candidates come from the index, and each is judged as
 * the walk judges it, with the walk's t (the latest finish before it).
 */
double th_gaps_first_fit(const struct th_sched *s,
			 const struct th_sched_proc *pr, unsigned int i,
			 double t, double dur)
{
	const struct th_sched_slot *x;
	unsigned int j;

	for (;;) {
		j = th_gaps_find(pr, i, dur);
		if (j == TH_NONE || j >= pr->n)
			return fmax(t, th_gaps_max_finish(pr, i, pr->n));
		t = fmax(t, th_gaps_max_finish(pr, i, j));
		x = &s->slots[pr->slots[j]];
		if (x->finish > t) {
			if (th_time_le(t + dur, x->start))
				return t;
			t = x->finish;
		}
		i = j + 1;
	}
}

void th_gaps_free(struct th_sched_proc *pr)
{
	free(pr->room);
	free(pr->finish);
	pr->room = NULL;
	pr->finish = NULL;
	pr->tcap = 0;
}
