/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * th_vmstat.h - pages pinned system-wide, from /proc/vmstat's FOLL_PIN
 * counts: the tests that kill and fuzz processes check that every page a
 * registration pinned was unpinned once they are gone.
 */
#ifndef TH_VMSTAT_TEST_H
#define TH_VMSTAT_TEST_H

#include <stdio.h>
#include <string.h>

/* Pins acquired and not released, or -1 without the counts. */
static inline long long thn_pins_held(void)
{
	long long acq = -1, rel = -1, v;
	char key[64];
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return -1;
	while (fscanf(f, "%63s %lld", key, &v) == 2) {
		if (!strcmp(key, "nr_foll_pin_acquired"))
			acq = v;
		else if (!strcmp(key, "nr_foll_pin_released"))
			rel = v;
	}
	fclose(f);
	return acq < 0 || rel < 0 ? -1 : acq - rel;
}

#endif /* TH_VMSTAT_TEST_H */
