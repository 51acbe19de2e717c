/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * lib_world.h - a set of vports for the library suites: rank r on node
 * r % nodes, so ranks beyond the node count share nodes through more
 * vports.  Header-only, public API only.
 */
#ifndef LIB_WORLD_H
#define LIB_WORLD_H

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <thverbs/verbs.h>

#define WORLD_MAX_RANKS 64

struct world {
	struct th_device **devs;
	int ndev;
	struct th_context **ctx;
	struct th_vport *vp[WORLD_MAX_RANKS];
};

static inline int world_open(struct world *w, unsigned int n)
{
	unsigned int r;

	if (n > WORLD_MAX_RANKS)
		return -EINVAL;
	w->devs = th_device_list_get(NULL, &w->ndev);
	if (!w->devs)
		return -errno;
	w->ctx = calloc(w->ndev, sizeof(*w->ctx));
	if (!w->ctx)
		return -ENOMEM;
	for (r = 0; r < n; r++) {
		unsigned int node = r % w->ndev;

		if (!w->ctx[node])
			w->ctx[node] = th_device_open(w->devs[node]);
		if (!w->ctx[node])
			return -errno;
		w->vp[r] = th_vport_create(w->ctx[node], NULL);
		if (!w->vp[r])
			return -errno;
	}
	return 0;
}

static inline void world_close(struct world *w, unsigned int n)
{
	unsigned int r;
	int i;

	for (r = 0; r < n; r++)
		if (w->vp[r])
			th_vport_destroy(w->vp[r]);
	for (i = 0; w->ctx && i < w->ndev; i++)
		if (w->ctx[i])
			th_device_close(w->ctx[i]);
	free(w->ctx);
	th_device_list_free(w->devs);
}

/* The default provider is the in-process one (not th_nic.ko). */
static inline bool world_inproc(void)
{
	struct th_device **devs;
	int n = 0;
	bool yes;

	devs = th_device_list_get(NULL, &n);
	yes = devs && n > 0 && !strcmp(th_device_provider(devs[0]), "inproc");
	th_device_list_free(devs);
	return yes;
}

/* Bytes per element of each TH_NIC_DT_*. */
static const unsigned int world_esize[TH_NIC_DT_MAX] = {
	1, 2, 4, 8, 1, 2, 4, 8, 4, 8
};

#endif /* LIB_WORLD_H */
