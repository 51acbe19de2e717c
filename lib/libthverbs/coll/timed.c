// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * timed.c - the placer's side of the in-process provider's timed mode
 * (th_place_timed()): the cost model checked and converted to the
 * engine's femtoseconds, and the host's virtual clock read back.
 */
#include <errno.h>
#include <stdlib.h>

#include "inproc.h"
#include "thverbs_priv.h"
#include "th_place.h"

/* Femtoseconds, rounded to the nearest. */
static u64 th_timed_fs(double seconds)
{
	return (u64)(seconds * 1e15 + 0.5);
}

TH_EXPORT int th_place_timed(const struct th_place_model *m)
{
	u64 *alu;
	unsigned int i;
	int ret;

	if (!m)
		return th_ip_timing_set(NULL, 0, 0, 0, 0);
	if (th_place_model_check(m))
		return -EINVAL;
	alu = malloc(m->nodes * sizeof(*alu));
	if (!alu)
		return -ENOMEM;
	for (i = 0; i < m->nodes; i++)
		alu[i] = th_timed_fs(1 / m->alu[i]);
	ret = th_ip_timing_set(alu, m->nodes, th_timed_fs(m->descriptor),
			       th_timed_fs(m->latency),
			       th_timed_fs(1 / m->bandwidth));
	free(alu);
	return ret;
}

TH_EXPORT double th_place_timed_now(void)
{
	u64 host;

	return th_ip_timing_now(&host) ? -1 : host * 1e-15;
}
