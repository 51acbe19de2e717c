/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * thmpi.h - libthmpi's private header: the PMPI interposition library that
 * runs MPICH's Allreduce, Reduce and Broadcast (blocking, non-blocking and
 * persistent) as persistent th_nic collectives.  Prototypes are grouped by
 * the file that defines them.  See Documentation/thmpi.rst.
 */
#ifndef THMPI_H
#define THMPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <mpi.h>
#include <thverbs/boot.h>
#include <thverbs/verbs.h>
#include <thverbs/coll.h>

/* THMPI_CACHE's largest value: collectives per communicator. */
#define THMPI_CACHE_MAX	256

/*
 * Why a call went to MPICH instead: one counter each in the statistics.
 * 0 (THMPI_WHY_NONE): it did not, the NIC runs it.
 */
enum thmpi_why {
	THMPI_WHY_NONE,
	THMPI_WHY_OFF,		/* THMPI_ENABLE=0, or the offload could not start */
	THMPI_WHY_INTERCOMM,	/* an inter-communicator */
	THMPI_WHY_ONE_RANK,	/* a communicator of one process */
	THMPI_WHY_OP,		/* a user-defined op, or one the ALU lacks */
	THMPI_WHY_DATATYPE,	/* derived, non-contiguous or no ALU type */
	THMPI_WHY_SIZE,		/* empty, or more than THMPI_MAX_BYTES */
	THMPI_WHY_ARGS,		/* an argument MPICH must judge (bad root ...) */
	THMPI_WHY_SETUP,	/* the collective could not be set up */
	THMPI_WHY_FULL,		/* a communicator's persistent offloads are all in use */
	THMPI_WHY_MAX
};

/* Which call: the statistics count each. */
enum thmpi_call {
	THMPI_ALLREDUCE, THMPI_REDUCE, THMPI_BCAST,
	THMPI_IALLREDUCE, THMPI_IREDUCE, THMPI_IBCAST,
	THMPI_ALLREDUCE_INIT, THMPI_REDUCE_INIT, THMPI_BCAST_INIT,
	THMPI_CALL_MAX
};

/**
 * struct thmpi_config - the THMPI_* environment, read at MPI_Init
 * @enable: THMPI_ENABLE (default 1)
 * @radix: THMPI_RADIX, k of the k-nomial tree (default 4)
 * @segment: THMPI_SEGMENT, bytes per pipelined segment (0: the library's)
 * @cache: THMPI_CACHE, collectives kept per communicator (default 16)
 * @max_bytes: THMPI_MAX_BYTES, the largest message offloaded
 * @verbose: THMPI_VERBOSE: 1 says why the offload is off, 2 adds a line
 *	per offloaded call
 * @stats: THMPI_STATS: 1 prints the job's totals at MPI_Finalize, 2 each
 *	rank's too
 * @provider: THMPI_PROVIDER: auto (the default), kernel or ofi; after
 *	MPI_Init, the one the job joined
 */
struct thmpi_config {
	bool enable;
	unsigned int radix;
	uint32_t segment;
	unsigned int cache;
	uint64_t max_bytes;
	int verbose;
	int stats;
	char provider[16];
};

/* What a cached collective computes: equal keys share a plan. */
struct thmpi_key {
	enum th_coll_kind kind;
	unsigned int op;
	unsigned int dtype;
	uint32_t count;
	int root;
};

/**
 * struct thmpi_match - what the NIC runs for one call
 * @key: the collective
 * @bytes: the message's size
 * @rank: the caller's rank in the communicator (Reduce, Bcast), else -1
 */
struct thmpi_match {
	struct thmpi_key key;
	size_t bytes;
	int rank;
};

struct thmpi_comm;
struct thmpi_nbreq;

/**
 * struct thmpi_entry - one persistent th_nic collective of a communicator
 * @next: the communicator's list (cache entries most recent first)
 * @comm: its communicator
 * @key: what it computes
 * @vp: its own vport (a vport serves one collective)
 * @coll: the plan; NULL when its setup failed on some rank (a cached
 *	refusal: the key goes to MPICH from then on)
 * @send: staging buffer the caller's data is copied into (owned), or the
 *	persistent request's own send buffer
 * @recv: staging buffer the result is copied out of, or the request's
 * @own_send, @own_recv: what to free
 * @bytes: count * the type's size
 * @pending: the non-blocking request whose round is running, or NULL
 * @retired: persistent entries: its request was freed; destroyed at the
 *	next point every rank agrees on
 */
struct thmpi_entry {
	struct thmpi_entry *next;
	struct thmpi_comm *comm;
	struct thmpi_key key;
	struct th_vport *vp;
	struct th_coll *coll;
	void *send, *recv;
	void *own_send, *own_recv;
	size_t bytes;
	struct thmpi_nbreq *pending;
	bool retired;
};

/**
 * struct thmpi_comm - libthmpi's state of one communicator (an attribute)
 * @comm: the user's communicator
 * @dup: a private duplicate carrying the plans' exchanges, so that they
 *	never match the user's messages
 * @rank, @size: in @comm
 * @cache: blocking and non-blocking collectives, most recently used first
 * @ncache: entries in @cache
 * @persist: persistent collectives, live and retired
 * @next: every communicator's state (for MPI_Finalize)
 */
struct thmpi_comm {
	MPI_Comm comm;
	MPI_Comm dup;
	int rank, size;
	struct thmpi_entry *cache;
	unsigned int ncache;
	struct thmpi_entry *persist;
	struct thmpi_comm *next;
};

/* config.c */
extern struct thmpi_config thmpi_cfg;
int thmpi_config_read(char *err, size_t len);
void thmpi_count_offload(enum thmpi_call call);
void thmpi_count_fallthrough(enum thmpi_call call, enum thmpi_why why);
void thmpi_stats_report(MPI_Comm world);
const char *thmpi_call_name(enum thmpi_call call);
void thmpi_log_call(enum thmpi_call call, const struct thmpi_entry *e);

/* init.c */
extern struct th_context *thmpi_ctx;	/* NULL: everything falls through */
extern struct th_domain *thmpi_domain;	/* the job's (kernel), else NULL */
extern MPI_Comm thmpi_world;		/* a duplicate of MPI_COMM_WORLD */
extern MPI_Comm thmpi_self;	/* a duplicate of MPI_COMM_SELF, when on */
extern int thmpi_world_rank;
/* An offload failed on this rank: report it and end the job (MPI_Abort). */
int thmpi_fatal(MPI_Comm comm, const char *what, int err);

/* match.c: 0 (THMPI_WHY_NONE) with *m filled, or why MPICH runs it */
enum thmpi_why thmpi_match_allreduce(const void *sendbuf, const void *recvbuf,
				     int count, MPI_Datatype type, MPI_Op op,
				     MPI_Comm comm, struct thmpi_match *m);
enum thmpi_why thmpi_match_reduce(const void *sendbuf, const void *recvbuf,
				  int count, MPI_Datatype type, MPI_Op op,
				  int root, MPI_Comm comm, struct thmpi_match *m);
enum thmpi_why thmpi_match_bcast(const void *buffer, int count,
				 MPI_Datatype type, int root, MPI_Comm comm,
				 struct thmpi_match *m);

/* comm.c */
int thmpi_comm_init(void);
struct thmpi_entry *thmpi_entry_for(MPI_Comm comm,
				    const struct thmpi_match *m,
				    enum thmpi_why *why);
struct thmpi_entry *thmpi_entry_persistent(MPI_Comm comm,
					   const struct thmpi_match *m,
					   void *send, void *recv,
					   enum thmpi_why *why);
void thmpi_entry_retire(struct thmpi_entry *e);
int thmpi_round_wait(struct thmpi_entry *e);
void thmpi_comm_teardown_all(void);

/* nonblocking.c */
void thmpi_nbreq_finish(struct thmpi_nbreq *nb, int err);
int thmpi_nbreq_complete(struct thmpi_nbreq *nb);

/* persistent.c */
void thmpi_persistent_fini(void);

#endif /* THMPI_H */
