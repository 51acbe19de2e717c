// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * providers.c - the registration list: every provider this library knows,
 * the one place that names their ops tables.  The core picks a provider by
 * name (TH_PROVIDER, th_device_list_get()), a job's join and the timed
 * mode (th_provider_timing(), th_timed_cpu()) by what its ops offer,
 * never by naming one.
 */
#include <stddef.h>
#include <string.h>

#include "thverbs_priv.h"

extern const struct th_provider_ops th_kernel_provider;
extern const struct th_provider_ops th_inproc_provider;
/*
 * Only in builds with libfabric (the shared library, when its headers were
 * there): weak, so that a build without it (the static archive the VM's
 * programs link) has none.
 */
extern const struct th_provider_ops th_ofi_provider __attribute__((weak));

const struct th_provider_reg th_providers[] = {
	{ "kernel", &th_kernel_provider, NULL },
	{ "inproc", &th_inproc_provider, NULL },
	{ "ofi", &th_ofi_provider, "it was built without libfabric" },
};
const unsigned int th_nproviders = TH_ARRAY_SIZE(th_providers);

const struct th_provider_reg *th_provider_find(const char *name)
{
	unsigned int i;

	for (i = 0; name && i < th_nproviders; i++)
		if (!strcmp(th_providers[i].name, name))
			return &th_providers[i];
	return NULL;
}

const struct th_provider_ops *th_provider_timing(void)
{
	unsigned int i;

	for (i = 0; i < th_nproviders; i++)
		if (th_providers[i].ops && th_providers[i].ops->timing_set)
			return th_providers[i].ops;
	return NULL;
}

void th_timed_cpu(uint64_t bytes)
{
	const struct th_provider_ops *ops = th_provider_timing();

	if (ops)
		ops->timing_cpu(bytes);
}
