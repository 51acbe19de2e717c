/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * thverbs/boot.h - the bootstrap rendezvous of a job started by thrun: ranks
 * learn who they are and exchange addresses and keys before they use the
 * NIC.  See Documentation/thrun.rst.
 *
 * Conventions as in thverbs/verbs.h: calls return 0 or a negative errno;
 * th_boot_init() returns NULL and sets errno.  A handle is used by one
 * thread at a time (with ranks as threads, each rank's thread uses its
 * own).  Once a call has failed (a peer died, the launcher is
 * gone or aborted the job, a timeout passed), every later call on the
 * handle fails with the same error at once: the job is over.
 */
#ifndef TH_BOOT_H
#define TH_BOOT_H

#include <stddef.h>
#include <thverbs/api.h>

TH_API_BEGIN

struct th_boot;

/* Largest job, and largest size * len of one allgather. */
#define TH_BOOT_MAX_RANKS	4096
#define TH_BOOT_MAX_GATHER	(64u << 20)

/*
 * Join the job thrun started (environment TH_BOOT, TH_RANK, TH_SIZE).
 * NULL + errno: ENOENT when not under thrun (or its socket is gone),
 * EINVAL on a malformed environment, ECONNREFUSED/ECONNRESET/ETIMEDOUT
 * when the launcher cannot be reached, refuses the rank or already ended
 * the job.  Under "thrun --single" (TH_SINGLE=1)
 * the handle is local: rank 0 of 1 process, and the calls below complete
 * at once.
 */
struct th_boot *th_boot_init(void);

/*
 * Exchange @len bytes per rank, rank r's at all + r * len; a barrier too.
 * A barrier round passes len 0 with @mine and @all NULL.
 */
typedef int (*th_boot_allgather_fn)(void *arg, const void *mine, void *all,
				    size_t len);

/*
 * Join a job whose processes already reach each other, the ranks of an MPI
 * communicator for one: @rank of @size, and @allgather (called with @arg)
 * carries every bootstrap round, which th_boot_allgather() and
 * th_boot_barrier() then pass on.  @allgather must be collective: every
 * rank calls it the same number of times with the same len; it returns 0
 * or a negative errno, and a failure is sticky as above.
 * @provider names the network to join: "ofi" joins the job's libfabric
 * network (every rank's node, as under thrun --provider ofi); "kernel"
 * takes up a th_nic.ko domain of the job's own, for ranks all on one host
 * with the module loaded: rank 0 allocates it and hands its descriptor to
 * every rank over a UNIX socket in a 0700 directory under $TMPDIR (waits
 * bounded by TH_BOOT_TIMEOUT), and th_boot_domain_fd() returns it; "auto"
 * is "kernel" when every rank is on one host with the module, else "ofi";
 * NULL or "" joins none.  The join is collective and all-or-nothing: when
 * it fails on one rank it fails on all, each with an error.
 * NULL + errno: EINVAL on a bad argument (any other @provider; no round is
 * taken), EPROTONOSUPPORT when the library lacks the provider (built
 * without libfabric), ENODEV when libfabric has no such provider here or
 * ("kernel") th_nic.ko is not loaded on some rank's host, EXDEV
 * ("kernel") when the ranks are not all on one host, EPROTO when the
 * ranks disagree, EALREADY when this process already joined a network, or
 * the error of the rank that failed or @allgather returned.
 */
struct th_boot *th_boot_init_allgather(int rank, int size,
				       th_boot_allgather_fn allgather,
				       void *arg, const char *provider);

/* This process's rank, 0 ... size - 1. */
int th_boot_rank(const struct th_boot *b);
/* Number of processes in the job (1 under --single). */
int th_boot_size(const struct th_boot *b);
/*
 * The job's domain (thrun creates one per job on the kernel provider and
 * hands it to every rank, as rank 0 of th_boot_init_allgather()'s "kernel"
 * join does): a descriptor to pass to th_domain_import(), so
 * the job's vports reach each other and no other job's.  It stays the
 * handle's; -ENOENT when the job has none (in-process, --single).
 */
int th_boot_domain_fd(const struct th_boot *b);

/*
 * Every rank contributes @len bytes from @mine; @all receives size * len
 * bytes, rank r's at all + r * len.  Every rank must pass the same @len
 * (-EPROTO for all otherwise).  -EMSGSIZE when size * len exceeds
 * TH_BOOT_MAX_GATHER; -ECONNRESET when a peer died or the launcher went
 * away or aborted the job; -ETIMEDOUT when the job's timeout passed or the
 * call waited longer than TH_BOOT_TIMEOUT seconds (default 300; 0 waits
 * as long as the launcher lives).
 */
int th_boot_allgather(struct th_boot *b, const void *mine, void *all,
		      size_t len);

/* No rank returns before every rank has called it; errors as above. */
int th_boot_barrier(struct th_boot *b);

/* Leave the rendezvous and free @b (NULL is ignored). */
void th_boot_fini(struct th_boot *b);

/*
 * A rank's program, for th_boot_run(): @b is the rank's handle (the
 * runner's: do not th_boot_fini() it); return 0 or a negative errno.
 */
typedef int (*th_boot_rank_fn)(struct th_boot *b, void *arg);

/*
 * Run @fn as every rank this process hosts, so that one program serves
 * both process models:
 *   thrun -n N prog         once, with this process's handle
 *                           (th_boot_init(); errors as there);
 *   thrun --threads N prog  (TH_THREADS=N) in N threads of this process,
 *                           one per rank, whose handles meet each other:
 *                           ranks share the in-process fabric, and each
 *                           thread waits for its own completions.
 * Returns 0 when every rank returned 0, else the lowest rank's error.
 * Under TH_THREADS, th_boot_init() fails with EOPNOTSUPP: the ranks'
 * handles come from here.
 */
int th_boot_run(th_boot_rank_fn fn, void *arg);

/*
 * Run @fn in @n threads (ranks 0 ... n - 1) without a launcher.  Their
 * allgather and barrier follow the rules above: a failure is sticky for
 * the whole team, a rank whose @fn returned while others wait for it fails
 * them with -ECONNRESET, and TH_BOOT_TIMEOUT bounds each call.  TH_BIND
 * (thrun --bind's auto, cpu or none; unset: none) binds rank r's thread to
 * the r-th CPU of the process, as thrun binds rank processes; another
 * value is -EINVAL.
 */
int th_boot_run_threads(unsigned int n, th_boot_rank_fn fn, void *arg);

TH_API_END

#endif /* TH_BOOT_H */
