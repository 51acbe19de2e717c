// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * config.c - libthmpi's settings (the THMPI_* environment), its per-call
 * log line and its statistics: what was offloaded, what went to MPICH and
 * why, printed at MPI_Finalize on request.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "thmpi.h"

struct thmpi_config thmpi_cfg;

/* [call][0] offloaded, [call][why] fell through */
static unsigned long long thmpi_counts[THMPI_CALL_MAX][THMPI_WHY_MAX];

static const char *const thmpi_call_names[THMPI_CALL_MAX] = {
	[THMPI_ALLREDUCE] = "MPI_Allreduce",
	[THMPI_REDUCE] = "MPI_Reduce",
	[THMPI_BCAST] = "MPI_Bcast",
	[THMPI_IALLREDUCE] = "MPI_Iallreduce",
	[THMPI_IREDUCE] = "MPI_Ireduce",
	[THMPI_IBCAST] = "MPI_Ibcast",
	[THMPI_ALLREDUCE_INIT] = "MPI_Allreduce_init",
	[THMPI_REDUCE_INIT] = "MPI_Reduce_init",
	[THMPI_BCAST_INIT] = "MPI_Bcast_init",
};

static const char *const thmpi_why_names[THMPI_WHY_MAX] = {
	[THMPI_WHY_OFF] = "offload off",
	[THMPI_WHY_INTERCOMM] = "inter-communicator",
	[THMPI_WHY_ONE_RANK] = "one-process communicator",
	[THMPI_WHY_OP] = "op",
	[THMPI_WHY_DATATYPE] = "datatype",
	[THMPI_WHY_SIZE] = "size",
	[THMPI_WHY_ARGS] = "arguments",
	[THMPI_WHY_SETUP] = "setup failed",
	[THMPI_WHY_FULL] = "persistent slots full",
};

const char *thmpi_call_name(enum thmpi_call call)
{
	return thmpi_call_names[call];
}

/* A whole number from @name in [min, max], @def when unset. */
static int thmpi_env_ulong(const char *name, unsigned long long min,
			   unsigned long long max, unsigned long long def,
			   unsigned long long *out, char *err, size_t len)
{
	const char *v = getenv(name);
	unsigned long long n;
	char *end;

	*out = def;
	if (!v || !*v)
		return 0;
	errno = 0;
	n = strtoull(v, &end, 0);
	/* K and M suffixes for byte sizes */
	if (end != v && (*end == 'K' || *end == 'k') && !end[1]) {
		errno = n > max >> 10 ? ERANGE : errno;
		n <<= 10;
		end++;
	} else if (end != v && (*end == 'M' || *end == 'm') && !end[1]) {
		errno = n > max >> 20 ? ERANGE : errno;
		n <<= 20;
		end++;
	}
	if (errno || end == v || *end || *v == '-' || n < min || n > max) {
		snprintf(err, len, "%s=%s: expected a whole number from %llu to %llu",
			 name, v, min, max);
		return -EINVAL;
	}
	*out = n;
	return 0;
}

/*
 * Read the environment; -EINVAL with a message in @err on a malformed
 * setting (the offload then stays off: a setting the user made by mistake
 * must not silently change what runs).
 */
int thmpi_config_read(char *err, size_t len)
{
	unsigned long long v;
	const char *prov = getenv("THMPI_PROVIDER");

	memset(&thmpi_cfg, 0, sizeof(thmpi_cfg));
	if (thmpi_env_ulong("THMPI_ENABLE", 0, 1, 1, &v, err, len))
		return -EINVAL;
	thmpi_cfg.enable = v;
	if (thmpi_env_ulong("THMPI_VERBOSE", 0, 2, 0, &v, err, len))
		return -EINVAL;
	thmpi_cfg.verbose = v;
	if (thmpi_env_ulong("THMPI_STATS", 0, 2, 0, &v, err, len))
		return -EINVAL;
	thmpi_cfg.stats = v;
	if (thmpi_env_ulong("THMPI_RADIX", 2, 64, 4, &v, err, len))
		return -EINVAL;
	thmpi_cfg.radix = v;
	if (thmpi_env_ulong("THMPI_SEGMENT", 0, 64ULL << 20, 0, &v, err, len))
		return -EINVAL;
	thmpi_cfg.segment = v;
	if (thmpi_env_ulong("THMPI_CACHE", 1, THMPI_CACHE_MAX, 16, &v, err, len))
		return -EINVAL;
	thmpi_cfg.cache = v;
	if (thmpi_env_ulong("THMPI_MAX_BYTES", 1, 1ULL << 30, 16ULL << 20, &v,
			    err, len))
		return -EINVAL;
	thmpi_cfg.max_bytes = v;
	if (!prov || !*prov)
		prov = "auto";
	if (strcmp(prov, "auto") && strcmp(prov, "kernel") &&
	    strcmp(prov, "ofi")) {
		snprintf(err, len,
			 "THMPI_PROVIDER=%s: expected auto, kernel or ofi", prov);
		return -EINVAL;
	}
	snprintf(thmpi_cfg.provider, sizeof(thmpi_cfg.provider), "%s", prov);
	return 0;
}

void thmpi_count_offload(enum thmpi_call call)
{
	thmpi_counts[call][0]++;
}

void thmpi_count_fallthrough(enum thmpi_call call, enum thmpi_why why)
{
	thmpi_counts[call][why]++;
	if (thmpi_cfg.verbose >= 2)
		fprintf(stderr, "thmpi: rank %d: %s to MPICH (%s)\n",
			thmpi_world_rank, thmpi_call_names[call],
			thmpi_why_names[why]);
}

void thmpi_log_call(enum thmpi_call call, const struct thmpi_entry *e)
{
	if (thmpi_cfg.verbose < 2)
		return;
	fprintf(stderr,
		"thmpi: rank %d: %s offloaded: %zu bytes, root %d, %d ranks, radix %u\n",
		thmpi_world_rank, thmpi_call_names[call], e->bytes, e->key.root,
		e->comm->size, thmpi_cfg.radix);
}

/* One rank's (or the job's) counters, a line per call that happened. */
static void thmpi_stats_print(const char *who,
			      unsigned long long (*c)[THMPI_WHY_MAX])
{
	unsigned long long off = 0, fell = 0;
	int call, why;

	for (call = 0; call < THMPI_CALL_MAX; call++)
		for (why = 0; why < THMPI_WHY_MAX; why++)
			*(why ? &fell : &off) += c[call][why];
	fprintf(stderr, "thmpi: %s: %llu calls offloaded, %llu to MPICH\n",
		who, off, fell);
	for (call = 0; call < THMPI_CALL_MAX; call++) {
		const char *sep = ", to MPICH:";
		char line[512];
		int n, any = 0;

		n = snprintf(line, sizeof(line), "thmpi: %s:   %-18s %llu offloaded",
			     who, thmpi_call_names[call], c[call][0]);
		for (why = THMPI_WHY_OFF; why < THMPI_WHY_MAX; why++) {
			if (!c[call][why] || n >= (int)sizeof(line))
				continue;
			n += snprintf(line + n, sizeof(line) - n, "%s %llu %s",
				      sep, c[call][why], thmpi_why_names[why]);
			sep = ",";
			any = 1;
		}
		if (c[call][0] || any)
			fprintf(stderr, "%s\n", line);
	}
}

/* At MPI_Finalize (collective over @world): the totals on rank 0. */
void thmpi_stats_report(MPI_Comm world)
{
	unsigned long long sum[THMPI_CALL_MAX][THMPI_WHY_MAX];
	char who[32];

	if (!thmpi_cfg.stats)
		return;
	if (thmpi_cfg.stats >= 2) {
		snprintf(who, sizeof(who), "rank %d", thmpi_world_rank);
		thmpi_stats_print(who, thmpi_counts);
	}
	PMPI_Reduce(thmpi_counts, sum, THMPI_CALL_MAX * THMPI_WHY_MAX,
		    MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, world);
	if (!thmpi_world_rank)
		thmpi_stats_print("job (every rank's calls)", sum);
}
