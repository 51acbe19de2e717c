// SPDX-License-Identifier: GPL-2.0 OR MIT
/* portfolio.c - the portfolio: every other algorithm on the input, the least makespan kept. */
#include <errno.h>
#include <math.h>

#include "sched_priv.h"

void th_sched_swap(struct th_sched *a, struct th_sched *b)
{
	struct th_sched t = *a;

	*a = *b;
	*b = t;
}

/*
 * Runs HEFT, PETS, HCPFD, HAGD, hagd+ and PEFT in enum order and keeps the
 * schedule with the least makespan; a later one must be shorter beyond the
 * time tolerance to replace an earlier one, so ties go to the earlier
 * algorithm.  s->alg names the winner.  No algorithm is better on every
 * input (list order and processor choice are greedy), so a best-of costs
 * the sum of their run times and is never worse than any of them.
 */
int th_sched_portfolio(struct th_sched *s)
{
	struct th_sched *best = NULL;
	unsigned int a;

	for (a = 0; a < TH_SCHED_PORTFOLIO; a++) {
		struct th_sched *t = th_sched_run(s->dag, a);

		if (!t) {
			th_sched_destroy(best);
			return -errno;
		}
		t->alg = a;
		if (!best || (th_sched_makespan_of(t) < th_sched_makespan_of(best) &&
			      !th_time_le(th_sched_makespan_of(best),
					  th_sched_makespan_of(t)))) {
			th_sched_destroy(best);
			best = t;
		} else {
			th_sched_destroy(t);
		}
	}
	th_sched_swap(s, best);
	th_sched_destroy(best);
	return 0;
}
