// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * init.c - libthmpi's start and end: MPI_Init / MPI_Init_thread join the
 * job's th_nic network, bootstrapped over a duplicate of MPI_COMM_WORLD
 * with MPI_Allgather, so nothing but MPICH's own launcher is needed: on
 * one host with th_nic.ko loaded, a domain of the job's own on the
 * module's fabric (each process opens node rank % nodes); elsewhere the
 * ofi provider, one node per process, the node number the process's rank
 * in MPI_COMM_WORLD.  MPI_Finalize tears the collectives down and prints
 * the statistics.  When the offload cannot start, on any rank, it is off
 * on every rank and every call goes to MPICH.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "thmpi.h"

struct th_context *thmpi_ctx;
struct th_domain *thmpi_domain;
MPI_Comm thmpi_world = MPI_COMM_NULL;
MPI_Comm thmpi_self = MPI_COMM_NULL;
int thmpi_world_rank;
static struct th_boot *thmpi_boot;

static int thmpi_boot_allgather(void *arg, const void *mine, void *all,
				size_t len)
{
	(void)arg;
	if (len > INT_MAX)
		return -EMSGSIZE;
	return PMPI_Allgather(mine, (int)len, MPI_BYTE, all, (int)len,
			      MPI_BYTE, thmpi_world) == MPI_SUCCESS ?
	       0 : -ECONNRESET;
}

/* Every rank's verdict: 0 when all could, else the first failure. */
static int thmpi_agree_world(int err)
{
	int worst;

	if (PMPI_Allreduce(&err, &worst, 1, MPI_INT, MPI_MIN, thmpi_world) !=
	    MPI_SUCCESS)
		return -ECONNRESET;
	return worst;
}

/*
 * This process's node of the job's network and, on the kernel provider,
 * the job's domain taken up on it; 0 or a negative errno.
 */
static int thmpi_open_node(struct th_boot *b)
{
	struct th_device **devs;
	int n, i, ret = -ENODEV;
	int domain_fd = th_boot_domain_fd(b);

	/* the join tells which network it took */
	snprintf(thmpi_cfg.provider, sizeof(thmpi_cfg.provider), "%s",
		 domain_fd >= 0 ? "kernel" : "ofi");
	devs = th_device_list_get(thmpi_cfg.provider, &n);
	if (!devs)
		return -errno;
	for (i = 0; i < n; i++) {
		/* the module's nodes are shared: ranks take them in turn */
		if (th_device_node(devs[i]) !=
		    (uint32_t)(domain_fd >= 0 ? thmpi_world_rank % n :
			       thmpi_world_rank))
			continue;
		thmpi_ctx = th_device_open(devs[i]);
		ret = thmpi_ctx ? 0 : -errno;
		break;
	}
	th_device_list_free(devs);
	if (!ret && domain_fd >= 0) {
		thmpi_domain = th_domain_import(thmpi_ctx, domain_fd);
		if (!thmpi_domain)
			ret = -errno;
	}
	return ret;
}

/* Give back what thmpi_open_node() took. */
static void thmpi_close_node(void)
{
	if (thmpi_domain)
		th_domain_dealloc(thmpi_domain);
	thmpi_domain = NULL;
	if (thmpi_ctx)
		th_device_close(thmpi_ctx);
	thmpi_ctx = NULL;
}

static void thmpi_start(int provided)
{
	char err[256] = "";
	int ret, size;

	PMPI_Comm_rank(MPI_COMM_WORLD, &thmpi_world_rank);
	PMPI_Comm_size(MPI_COMM_WORLD, &size);
	ret = thmpi_config_read(err, sizeof(err));
	if (PMPI_Comm_dup(MPI_COMM_WORLD, &thmpi_world) != MPI_SUCCESS) {
		thmpi_world = MPI_COMM_NULL;
		return;
	}
	if (ret) {
		if (!thmpi_world_rank)
			fprintf(stderr, "thmpi: %s; the offload is off\n", err);
		thmpi_cfg.enable = false;
		return;
	}
	if (!thmpi_cfg.enable)
		return;
	if (provided == MPI_THREAD_MULTIPLE) {
		if (thmpi_cfg.verbose >= 1 && !thmpi_world_rank)
			fprintf(stderr,
				"thmpi: MPI_THREAD_MULTIPLE: the offload is off (its caches are not shared between threads)\n");
		return;
	}
	/* th_boot_init_allgather() is all-or-nothing across the ranks */
	thmpi_boot = th_boot_init_allgather(thmpi_world_rank, size,
					    thmpi_boot_allgather, NULL,
					    thmpi_cfg.provider);
	ret = thmpi_boot ? 0 : -errno;
	if (!ret)
		ret = thmpi_comm_init();
	if (!ret)
		ret = thmpi_open_node(thmpi_boot);
	/* persistent requests' handles (persistent.c); local */
	if (!ret && PMPI_Comm_dup(MPI_COMM_SELF, &thmpi_self) != MPI_SUCCESS) {
		thmpi_self = MPI_COMM_NULL;
		ret = -ENOMEM;
	}
	ret = thmpi_agree_world(ret);
	if (ret) {
		if (!thmpi_world_rank)
			fprintf(stderr,
				"thmpi: the th_nic network could not start (%s); every collective runs in MPICH\n",
				th_strerror(ret));
		thmpi_close_node();
		return;
	}
	if (thmpi_cfg.verbose >= 1 && !thmpi_world_rank)
		fprintf(stderr,
			"thmpi: offload on: %d ranks over %s, radix %u, cache %u per communicator\n",
			size, thmpi_cfg.provider, thmpi_cfg.radix,
			thmpi_cfg.cache);
}

int MPI_Init(int *argc, char ***argv)
{
	int ret = PMPI_Init(argc, argv);
	int provided = MPI_THREAD_SINGLE;

	if (ret == MPI_SUCCESS) {
		PMPI_Query_thread(&provided);
		thmpi_start(provided);
	}
	return ret;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	int ret = PMPI_Init_thread(argc, argv, required, provided);

	if (ret == MPI_SUCCESS)
		thmpi_start(*provided);
	return ret;
}

int thmpi_fatal(MPI_Comm comm, const char *what, int err)
{
	fprintf(stderr, "thmpi: rank %d: offloaded %s failed: %s\n",
		thmpi_world_rank, what, th_strerror(err));
	PMPI_Comm_call_errhandler(comm, MPI_ERR_OTHER);
	return MPI_ERR_OTHER;
}

int MPI_Finalize(void)
{
	if (thmpi_world != MPI_COMM_NULL) {
		thmpi_persistent_fini();
		thmpi_comm_teardown_all();
		thmpi_stats_report(thmpi_world);
		thmpi_close_node();
		/*
		 * The network itself lives until exit, when its last answers
		 * leave (the provider's atexit); the handle is done.
		 */
		th_boot_fini(thmpi_boot);
		thmpi_boot = NULL;
		PMPI_Comm_free(&thmpi_world);
		if (thmpi_self != MPI_COMM_NULL)
			PMPI_Comm_free(&thmpi_self);
	}
	return PMPI_Finalize();
}
