/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * job_shm.h - what the forked ranks of a test job share (one process per
 * rank, the MPI model): a barrier in shared memory that a killed rank
 * cannot leave the others waiting at (job_break() releases them), and the
 * allgather th_coll_create() exchanges addresses through.
 */
#ifndef TH_JOB_SHM_H
#define TH_JOB_SHM_H

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define JOB_MAX_RANKS	16

struct job_shm {
	unsigned int ranks;
	_Atomic unsigned int arrived;
	_Atomic unsigned int gen;		/* a futex word */
	_Atomic unsigned int broken;
	unsigned char data[JOB_MAX_RANKS][64];
};

/* Shared anonymous memory for @ranks ranks, or NULL. */
static inline struct job_shm *job_shm_create(unsigned int ranks)
{
	struct job_shm *sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (sh == MAP_FAILED || ranks > JOB_MAX_RANKS)
		return NULL;
	memset(sh, 0, sizeof(*sh));
	sh->ranks = ranks;
	return sh;
}

static inline void job_shm_destroy(struct job_shm *sh)
{
	munmap(sh, sizeof(*sh));
}

static inline void job_wake_all(struct job_shm *sh)
{
	syscall(SYS_futex, &sh->gen, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* A rank was killed: everyone at the barrier, or coming, leaves it. */
static inline void job_break(struct job_shm *sh)
{
	atomic_store(&sh->broken, 1);
	job_wake_all(sh);
}

/* 0 once every rank arrived; -EPIPE if the job broke first. */
static inline int job_barrier(struct job_shm *sh)
{
	const struct timespec tick = { 0, 20000000 };
	unsigned int gen = atomic_load(&sh->gen);

	if (atomic_fetch_add(&sh->arrived, 1) == sh->ranks - 1) {
		atomic_store(&sh->arrived, 0);
		atomic_fetch_add(&sh->gen, 1);
		job_wake_all(sh);
		return 0;
	}
	while (atomic_load(&sh->gen) == gen) {
		if (atomic_load(&sh->broken))
			return -EPIPE;
		syscall(SYS_futex, &sh->gen, FUTEX_WAIT, gen, &tick, NULL, 0);
	}
	return 0;
}

struct job_rank {
	struct job_shm *sh;
	unsigned int rank;
};

/* th_coll_allgather_fn over the shared slots; it is a barrier too. */
static inline int job_allgather(void *arg, const void *mine, void *all,
				size_t len)
{
	struct job_rank *g = arg;
	unsigned int r;

	if (len > sizeof(g->sh->data[0]))
		return -EINVAL;
	memcpy(g->sh->data[g->rank], mine, len);
	if (job_barrier(g->sh))
		return -EPIPE;
	for (r = 0; r < g->sh->ranks; r++)
		memcpy((char *)all + r * len, g->sh->data[r], len);
	return job_barrier(g->sh) ? -EPIPE : 0;
}

#endif /* TH_JOB_SHM_H */
