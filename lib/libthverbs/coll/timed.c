// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * timed.c - the placer's side of the in-process provider's timed mode
 * (th_place_timed()): the cost model checked and converted to the
 * engine's femtoseconds, and the calling thread's host clock read back,
 * moved forward, or charged for a reduction on its CPU.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "inproc.h"
#include "thverbs_priv.h"
#include <thverbs/place.h>
#include "timed.h"

/* Femtoseconds, rounded to the nearest. */
static u64 th_timed_fs(double seconds)
{
	return (u64)(seconds * 1e15 + 0.5);
}

int th_place_timed(const struct th_place_model *m)
{
	struct th_ip_timing t = { 0 };
	u64 *alu;
	unsigned int i;
	int ret;

	if (!m)
		return th_ip_timing_set(NULL);
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
	ret = th_ip_timing_set(&t);
	free(alu);
	return ret;
}

double th_place_timed_now(void)
{
	u64 host;

	return th_ip_timing_now(&host) ? -1 : host * 1e-15;
}

int th_place_timed_advance(double seconds)
{
	if (!(seconds >= 0) || isinf(seconds))
		return -EINVAL;
	return th_ip_timing_advance(th_timed_fs(seconds));
}

void th_timed_cpu(uint64_t bytes)
{
	th_ip_timing_cpu(bytes);
}
