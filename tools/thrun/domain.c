// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * domain.c - the job's own domain on th_nic.ko (the kernel provider),
 * made through libthverbs, whose descriptor every rank receives with its
 * WELCOME.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <thverbs/verbs.h>
#include "thrun.h"

/* The provider the ranks will pick: the library's rule for "auto". */
bool job_uses_kernel(void)
{
	const char *name = job.provider;

	if (!name || !*name || !strcmp(name, "auto")) {
		name = getenv("TH_PROVIDER");
		if (!name || !*name || !strcmp(name, "auto"))
			return !access("/dev/th_nic0", F_OK);
	}
	return !strcmp(name, "kernel");
}

/*
 * A domain of the job's own, so that its ranks reach each other and
 * nothing else, and nothing else reaches them; created on node 0 (a
 * domain spans the fabric).
 */
int domain_open(void)
{
	struct th_context *ctx = NULL;
	struct th_domain *d = NULL;
	struct th_device **devs;
	int n = 0, ret = 0;

	/* the node thrun names when it says why not */
	if (access("/dev/th_nic0", F_OK))
		return -errno;
	devs = th_device_list_get("kernel", &n);
	if (!devs)
		return -errno;
	ctx = n ? th_device_open(devs[0]) : NULL;
	if (!ctx)
		ret = n ? -errno : -ENODEV;
	d = ctx ? th_domain_alloc(ctx) : NULL;
	if (ctx && !d)
		ret = -errno;
	/* thrun's own descriptor: the domain lives while one is open */
	if (d) {
		job.domain_fd = fcntl(th_domain_fd(d), F_DUPFD_CLOEXEC, 0);
		if (job.domain_fd < 0)
			ret = -errno;
		th_domain_dealloc(d);
	}
	if (ctx)
		th_device_close(ctx);
	th_device_list_free(devs);
	return ret;
}
