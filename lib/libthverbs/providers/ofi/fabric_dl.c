// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fabric_dl.c - libfabric, loaded when a job first joins over it rather
 * than with libthverbs.  Debian's libfabric.so.1 needs the PSM libraries,
 * whose constructors probe for InfiniPath and Omni-Path hardware, about
 * 0.2 s in every process that loads them; most processes that use
 * libthverbs (thctl, thbench, programs on the in-process or kernel
 * provider) never touch the network.  The provider calls libfabric's five
 * exported functions by the names fabric_dl.h gives them; everything else
 * it uses goes through the objects those return.
 */
#include "fabric_dl.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

typedef int (*th_fi_getinfo_fn)(uint32_t, const char *, const char *,
				uint64_t, const struct fi_info *,
				struct fi_info **);
typedef void (*th_fi_freeinfo_fn)(struct fi_info *);
typedef struct fi_info *(*th_fi_dupinfo_fn)(const struct fi_info *);
typedef int (*th_fi_fabric_fn)(struct fi_fabric_attr *, struct fid_fabric **,
			       void *);
typedef const char *(*th_fi_strerror_fn)(int);

static struct {
	void *lib;
	th_fi_getinfo_fn getinfo;
	th_fi_freeinfo_fn freeinfo;
	th_fi_dupinfo_fn dupinfo;
	th_fi_fabric_fn fabric;
	th_fi_strerror_fn strerror;
	char why[256];
} th_fi;

static pthread_once_t th_fi_once = PTHREAD_ONCE_INIT;

/* @name at the version the 1.17 headers bind, as the linker would; NULL */
static void *th_fi_sym(const char *name, const char *version)
{
	void *p = dlvsym(th_fi.lib, name, version);

	if (!p && !th_fi.why[0])
		snprintf(th_fi.why, sizeof(th_fi.why),
			 "the libfabric loaded has no %s@%s", name, version);
	return p;
}

/* TH_OFI_LIBFABRIC: another build of libfabric 1.x, by its path */
static void th_fi_open(void)
{
	/* not for a program that runs with another user's rights */
	const char *path = secure_getenv("TH_OFI_LIBFABRIC");

	if (!path || !path[0])
		path = "libfabric.so.1";
	th_fi.lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!th_fi.lib) {
		snprintf(th_fi.why, sizeof(th_fi.why),
			 "cannot load libfabric (TH_OFI_LIBFABRIC): %s", dlerror());
		return;
	}
	th_fi.getinfo = (th_fi_getinfo_fn)th_fi_sym("fi_getinfo", "FABRIC_1.3");
	th_fi.freeinfo = (th_fi_freeinfo_fn)th_fi_sym("fi_freeinfo", "FABRIC_1.3");
	th_fi.dupinfo = (th_fi_dupinfo_fn)th_fi_sym("fi_dupinfo", "FABRIC_1.3");
	th_fi.fabric = (th_fi_fabric_fn)th_fi_sym("fi_fabric", "FABRIC_1.1");
	th_fi.strerror = (th_fi_strerror_fn)th_fi_sym("fi_strerror", "FABRIC_1.0");
	if (th_fi.why[0]) {
		dlclose(th_fi.lib);
		th_fi.lib = NULL;
	}
}

int th_fi_load(const char **why)
{
	pthread_once(&th_fi_once, th_fi_open);
	if (th_fi.lib)
		return 0;
	if (why)
		*why = th_fi.why;
	return -ENOSYS;
}

int th_fi_getinfo(uint32_t version, const char *node, const char *service,
		  uint64_t flags, const struct fi_info *hints,
		  struct fi_info **info)
{
	if (th_fi_load(NULL))
		return -FI_ENOSYS;
	return th_fi.getinfo(version, node, service, flags, hints, info);
}

void th_fi_freeinfo(struct fi_info *info)
{
	/* an info exists only once the library is in */
	if (info && !th_fi_load(NULL))
		th_fi.freeinfo(info);
}

struct fi_info *th_fi_dupinfo(const struct fi_info *info)
{
	return th_fi_load(NULL) ? NULL : th_fi.dupinfo(info);
}

int th_fi_fabric(struct fi_fabric_attr *attr, struct fid_fabric **fabric,
		 void *context)
{
	if (th_fi_load(NULL))
		return -FI_ENOSYS;
	return th_fi.fabric(attr, fabric, context);
}

const char *th_fi_strerror(int errnum)
{
	return th_fi_load(NULL) ? th_fi.why : th_fi.strerror(errnum);
}
