/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * boot_priv.h - the bootstrap handle, shared by the launcher's client
 * (boot.c: one process per rank) and the in-process team (team.c: one
 * thread per rank).
 */
#ifndef TH_BOOT_PRIV_H
#define TH_BOOT_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <thverbs/boot.h>

struct th_boot_team;
struct th_boot_pmi;

struct th_boot {
	int fd;			/* -1 for a local (--single) or thread handle */
	int domain_fd;		/* the job's domain, -1 without one */
	int rank;
	int size;
	int err;		/* sticky: the negative errno of the first failure */
	int64_t timeout_ms;	/* per call; -1 waits as long as the launcher lives */
	struct th_boot_team *team;	/* ranks as threads, else NULL */
	struct th_boot_pmi *pmi;	/* launched by mpiexec (pmi.c), else NULL */
	th_boot_allgather_fn gather;	/* th_boot_init_allgather()'s, else NULL */
	void *gather_arg;
};

/*
 * Where a process runs: its machine's boot, its network namespace, and
 * what decides whether ranks can share memory and watch each other's
 * process: the mount namespace (where /dev/shm is), the PID namespace
 * with its pid, and its user.
 */
struct th_boot_where {
	char boot_id[40];
	uint64_t netns;
	uint64_t mntns;
	uint64_t pidns;
	uint64_t pid;
	uint64_t uid;
};

int64_t th_boot_now_ms(void);
/* Now plus the handle's timeout; -1 for none. */
int64_t th_boot_deadline(const struct th_boot *b);
/* poll() one descriptor until @deadline: 0, -ETIMEDOUT or -errno. */
int th_boot_wait(int fd, short events, int64_t deadline, short *revents);
/* Whole buffers over a stream socket (boot.c), with a descriptor passed. */
int th_boot_recv_all(int fd, void *buf, size_t len, int64_t deadline,
		     int *passed_fd);
int th_boot_send_all(int fd, const void *buf, size_t len, int64_t deadline);
/* Record @err as the handle's sticky failure unless it has one. */
int th_boot_fail(struct th_boot *b, int err);
void th_boot_where(struct th_boot_where *w);
/*
 * One round in which every rank says whether its part so far worked: 0
 * when all did, else this rank's error or, when it had none, the first
 * failed rank's.  A join whose ranks take every round, failed or not,
 * ends on all of them when one fails, instead of leaving the others
 * waiting in a round it never reaches.
 */
int th_boot_agree(struct th_boot *b, int err);
/*
 * share.c: th_boot_init_allgather(..., "kernel"), or "auto" with
 * @only_if_here: then 1 when the ranks are not all on one host with
 * th_nic.ko loaded (the same answer on every rank).  @err: this rank's
 * error so far, which the rounds carry (the join then fails on all).
 */
int th_boot_share_kernel_domain(struct th_boot *b, bool only_if_here,
				int err);

#define TH_SHARE_TOKEN_LEN	16

/* What a rank sends rank 0 on connecting: the job's token and its rank. */
struct th_share_ask {
	uint8_t token[TH_SHARE_TOKEN_LEN];
	uint32_t rank;
};

/*
 * share.c, rank 0: accept on listening socket @lfd (non-blocking) and
 * send @domain_fd once to each rank 1 .. @size - 1 whose ask carries
 * @token; 0 once all are served, -ETIMEDOUT at @deadline (ms, -1: none),
 * or the error of a send.  Each connection has a short time of its own
 * to ask, and all are read at once.
 */
int th_boot_share_serve(int lfd, const uint8_t *token, int size,
			int domain_fd, int64_t deadline);
int th_boot_env_int(const char *name, long min, long max, int *out);
int th_boot_env_timeout(int64_t *ms);
/* pmi.c: a job MPICH's mpiexec launched (PMI_FD); -ENOENT if not one */
int th_boot_pmi_init(struct th_boot *b);
int th_boot_pmi_allgather(struct th_boot *b, const void *mine, void *all,
			  size_t len);
void th_boot_pmi_fini(struct th_boot *b);
/* th_boot_allgather() among the threads of @b's team. */
int th_boot_team_allgather(struct th_boot *b, const void *mine, void *all,
			   size_t len);

#endif /* TH_BOOT_PRIV_H */
