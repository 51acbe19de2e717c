// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * timed.c - the placer's side of a provider's timed mode (the in-process
 * provider's; th_place_timed()): the cost model checked and converted to
 * femtoseconds for the provider's timing ops, and the calling thread's
 * host clock read back or moved forward.  The host-driven code charges
 * its CPU reductions with th_timed_cpu() (verbs/providers.c).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "thverbs_priv.h"
#include <thverbs/place.h>

/* Femtoseconds, rounded to the nearest. */
static uint64_t th_timed_fs(double seconds)
{
	return (uint64_t)(seconds * 1e15 + 0.5);
}

int th_place_timed(const struct th_place_model *m)
{
	const struct th_provider_ops *ops = th_provider_timing();
	struct th_timing t = { 0 };
	uint64_t *alu;
	unsigned int i;
	int ret;

	if (!ops)
		return -EOPNOTSUPP;	/* no provider with a virtual clock */
	if (!m)
		return ops->timing_set(NULL);
	if (th_place_model_check(m))
		return -EINVAL;
	alu = malloc(m->nodes * sizeof(*alu));
	if (!alu)
		return -ENOMEM;
	for (i = 0; i < m->nodes; i++)
		alu[i] = th_timed_fs(1 / m->alu[i]);
	t.alu_fs = alu;
	t.nodes = m->nodes;
	t.desc_fs = th_timed_fs(m->descriptor);
	t.latency_fs = th_timed_fs(m->latency);
	t.byte_fs = th_timed_fs(1 / m->bandwidth);
	t.wake_fs = th_timed_fs(m->wake);
	t.post_fs = th_timed_fs(m->post);
	t.cpu_byte_fs = m->cpu > 0 ? th_timed_fs(1 / m->cpu) : 0;
	ret = ops->timing_set(&t);
	free(alu);
	return ret;
}

double th_place_timed_now(void)
{
	const struct th_provider_ops *ops = th_provider_timing();
	uint64_t host;

	return !ops || ops->timing_now(&host) ? -1 : host * 1e-15;
}

int th_place_timed_advance(double seconds)
{
	const struct th_provider_ops *ops = th_provider_timing();

	if (!(seconds >= 0) || isinf(seconds))
		return -EINVAL;
	return ops ? ops->timing_advance(th_timed_fs(seconds)) : -ENOENT;
}
