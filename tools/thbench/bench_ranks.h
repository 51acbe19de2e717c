/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * bench_ranks.h - the parts thbench's Allreduce benchmarks share: ranks as
 * threads (one thread per rank, each on its own context and vport, through
 * th_boot_run_threads()), statistics, the MPICH peer, a CPU hog for the
 * noise runs, the output directory and the progress line.
 */
#ifndef THBENCH_RANKS_H
#define THBENCH_RANKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <thverbs/verbs.h>
#include <thverbs/coll.h>

#define BR_TIMEOUT_NS	30000000000ULL
#define BR_MPI_TIMEOUT_S 180
/* how long a job may take to exit once its last result is in */
#define BR_MPI_GRACE_MS	10000

struct br_stat {
	bool ok;
	double med, p10, p90;	/* microseconds */
	int reps;
	const char *why;	/* when !ok: what to print instead */
};

enum br_variant { BR_OFFLOAD, BR_P2P };

/*
 * One measurement with ranks as threads: @reps timed operations after
 * @warmup, a team barrier before each; a sample is the slowest rank's time
 * from its barrier to its completion.  With @compute_us > 0, each rank
 * starts the operation, computes for that long, then waits (the offload),
 * or computes and then runs it (the host-driven tree, which cannot
 * progress without its host); with @compute_only, it only computes.  The
 * compute is CPU time of the rank's thread, so that ranks sharing a core
 * each do the same work however they are scheduled.
 */
struct br_job {
	unsigned int n;
	enum br_variant v;
	struct th_coll_attr attr;
	const char *provider;
	int reps, warmup;
	double compute_us;
	bool compute_only;
	/*
	 * With @compute_us, set by br_run_pair(): even reps compute only,
	 * odd reps run the operation too, so that both see the machine as it
	 * was at the time (two runs one after the other may not: the compute
	 * alone took 457 us in one run of an overlap benchmark and 214 us in
	 * the next, on this 2-CPU VM whose CPUs change speed).
	 */
	bool alternate;
	/*
	 * A sample is the job's span instead: from the first rank's start to
	 * the last rank's completion (one clock: the ranks share a process),
	 * which counts the time oversubscribed ranks wait for a core.
	 */
	bool span;
	/*
	 * Times are of the in-process provider's virtual clock (the caller
	 * installed it with th_place_timed()): at each barrier the ranks'
	 * host clocks meet at the latest of them, where the sample starts.
	 */
	bool timed;
	/* filled: per rank and rep, then the error of the first failed rank */
	double *t, *t0;
	int err;
};

int br_run_threads(struct br_job *j, struct br_stat *st);
/*
 * @j->reps of the compute alone (@only) and as many of the operation with
 * it (@both), taking turns rep by rep (@j->alternate).
 */
int br_run_pair(struct br_job *j, struct br_stat *only, struct br_stat *both);
/* Spin for @us microseconds of this thread's CPU time (the "compute"). */
void br_compute(double us);

double br_now_us(void);
void br_stat_of(struct br_stat *st, double *t, int n);

/* A process spinning on CPU @cpu until br_hog_stop(); -1 if none. */
pid_t br_hog_start(int cpu);
void br_hog_stop(pid_t pid);

/* The MPICH peer, built into @out with mpicc: NULL and @why if it cannot be. */
const char *br_mpi_build(const char *out, char *bin, size_t len,
			 const char **why);
/*
 * mpiexec -n @n @bin @mode @reps @warmup SIZES: lines "size BYTES med p10
 * p90 reps" fill @st[i] for @sizes[i]; mode "overlap" fills @ovl[3i ...
 * 3i + 2] with the overlap percentage, the compute's and the total time.
 * @env: NULL, or NAME=VALUE strings, NULL-terminated, set for mpiexec and
 * its ranks only (UCX_TLS=tcp,self, say); no value may hold a quote (').
 */
void br_mpi_run(const char *bin, const char *mode, unsigned int n, int reps,
		int warmup, const uint64_t *sizes, unsigned int nsizes,
		struct br_stat *st, double *ovl, const char *const *env);

/* CLOCK_MONOTONIC in milliseconds, for the deadlines below. */
int64_t br_now_ms(void);

/*
 * A child's output, a line at a time (without its newline) into @fn until
 * end of file (0) or @deadline_ms (-ETIMEDOUT).  Once @fn returns true,
 * every result it waited for is in, and the child gets @grace_ms more to
 * end by itself: an MPI job can hang in its teardown after its last word.
 */
int br_read_lines(int fd, int64_t deadline_ms, int grace_ms,
		  bool (*fn)(const char *line, void *arg), void *arg);

/* "8,64K,1M" into @v (at most @cap), each in @min ... @max; -EINVAL. */
int br_parse_list(const char *arg, uint64_t *v, unsigned int cap,
		  unsigned int *n, uint64_t min, uint64_t max);

bool br_have(const char *prog);
int br_mkdir_p(const char *dir);
/* DIR for @name: build/bench/@name in the source tree, else ./thbench-@name. */
const char *br_default_out(const char *name, char *buf, size_t len);
void br_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* THBENCH_RANKS_H */
