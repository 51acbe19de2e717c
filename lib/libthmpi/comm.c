// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * comm.c - libthmpi's state of each communicator: a private duplicate for
 * the plans' exchanges, a bounded cache of persistent th_nic collectives
 * (one per call signature, least recently used evicted) and the
 * persistent requests' collectives.  The state hangs off the communicator
 * as an attribute, so MPI_Comm_free tears it down.
 *
 * Every change to a communicator's collectives is collective and decided
 * from what all its ranks know alike: MPI makes every rank call the
 * communicator's collectives in the same order, so every rank's cache
 * holds the same keys and evicts the same entry in the same call, and a
 * failed setup is agreed on (th_coll_create() fails on all ranks or none).
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "thmpi.h"

/* How long a waiting rank sleeps between looks at MPICH's own progress. */
#define THMPI_WAIT_SLICE_NS	(200 * 1000ULL)

static int thmpi_keyval = MPI_KEYVAL_INVALID;
static struct thmpi_comm *thmpi_comms;
/*
 * Set by MPI_Finalize after a barrier of every rank: every round has
 * ended everywhere, so a teardown needs no exchange (and could not do one
 * in a fixed order across communicators).
 */
static bool thmpi_quiet;

/* th_coll_allgather_fn over the communicator's private duplicate. */
static int thmpi_allgather(void *arg, const void *mine, void *all, size_t len)
{
	struct thmpi_comm *c = arg;
	int r;

	if (thmpi_quiet) {
		for (r = 0; r < c->size; r++)
			memcpy((char *)all + r * len, mine, len);
		return 0;
	}
	if (len > INT_MAX)
		return -EMSGSIZE;
	if (PMPI_Allgather(mine, (int)len, MPI_BYTE, all, (int)len, MPI_BYTE,
			   c->dup) != MPI_SUCCESS)
		return -ECONNRESET;
	return 0;
}

/* An error on any rank of @c: every rank gets one (the lowest). */
static int thmpi_agree(struct thmpi_comm *c, int err)
{
	int worst;

	if (PMPI_Allreduce(&err, &worst, 1, MPI_INT, MPI_MIN, c->dup) !=
	    MPI_SUCCESS)
		return -ECONNRESET;
	return worst;
}

static void thmpi_entry_destroy(struct thmpi_entry *e)
{
	if (e->pending)
		thmpi_nbreq_complete(e->pending);
	th_coll_destroy(e->coll);
	if (e->vp)
		th_vport_destroy(e->vp);
	free(e->own_send);
	free(e->own_recv);
	free(e);
}

static void *thmpi_staging(size_t bytes)
{
	/* cache-line aligned, whole lines: the ALU reads it in lines */
	return aligned_alloc(64, (bytes + 63) & ~(size_t)63);
}

/*
 * A new collective for @key on @c: its own vport, staging buffers where
 * @send / @recv are NULL, and the plan.  Collective: every rank of @c
 * calls it with the same key; the entry comes back with coll NULL on
 * every rank when it failed on any.
 */
static struct thmpi_entry *thmpi_entry_create(struct thmpi_comm *c,
					      const struct thmpi_key *key,
					      size_t bytes, void *send,
					      void *recv)
{
	struct th_vport_attr va = { .domain = thmpi_domain };
	struct th_coll_attr ca = {
		.kind = key->kind,
		.op = key->op,
		.dtype = key->dtype,
		.count = key->count,
		.root = key->root,
		.radix = thmpi_cfg.radix,
		/* elements per segment; bytes / count is the element's size */
		.segment = thmpi_cfg.segment / (bytes / key->count),
	};
	struct thmpi_entry *e = calloc(1, sizeof(*e));
	int err = 0;

	if (!e) {
		/*
		 * Without an entry this rank cannot remember the outcome the
		 * others will, and would disagree with them at the next call:
		 * the job ends (the communicator's error handler).
		 */
		thmpi_fatal(c->comm, "collective setup", -ENOMEM);
		return NULL;
	}
	e->comm = c;
	e->key = *key;
	e->bytes = bytes;
	e->send = send ? send : (e->own_send = thmpi_staging(bytes));
	e->recv = recv ? recv : (e->own_recv = thmpi_staging(bytes));
	if (!e->send || !e->recv)
		err = -ENOMEM;
	if (!err) {
		e->vp = th_vport_create(thmpi_ctx, &va);
		if (!e->vp)
			err = -errno;
	}
	err = thmpi_agree(c, err);
	if (!err) {
		e->coll = th_coll_create(e->vp, c->rank, c->size,
					 thmpi_allgather, c, &ca, e->send,
					 e->recv);
		if (!e->coll)
			err = -errno;
	}
	if (err) {
		if (thmpi_cfg.verbose >= 1 && !c->rank)
			fprintf(stderr,
				"thmpi: a %zu-byte collective on %d ranks could not be set up (%s); MPICH runs it\n",
				bytes, c->size, th_strerror(err));
		if (e->vp)
			th_vport_destroy(e->vp);
		e->vp = NULL;
		free(e->own_send);
		free(e->own_recv);
		e->own_send = e->own_recv = e->send = e->recv = NULL;
	}
	return e;
}

static int thmpi_comm_delete(MPI_Comm comm, int keyval, void *attr,
			     void *extra);

int thmpi_comm_init(void)
{
	return PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, thmpi_comm_delete,
				       &thmpi_keyval, NULL) == MPI_SUCCESS ?
	       0 : -ENOMEM;
}

/*
 * @comm's state, created at its first offloaded call (collective: every
 * rank of @comm makes the same call); NULL when it cannot be (the job
 * then aborts, since the others may already wait in the duplicate).
 */
static struct thmpi_comm *thmpi_comm_get(MPI_Comm comm)
{
	struct thmpi_comm *c;
	int found;

	if (PMPI_Comm_get_attr(comm, thmpi_keyval, &c, &found) ==
	    MPI_SUCCESS && found)
		return c;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->comm = comm;
	PMPI_Comm_rank(comm, &c->rank);
	PMPI_Comm_size(comm, &c->size);
	if (PMPI_Comm_dup(comm, &c->dup) != MPI_SUCCESS) {
		free(c);
		return NULL;
	}
	PMPI_Comm_set_attr(comm, thmpi_keyval, c);
	c->next = thmpi_comms;
	thmpi_comms = c;
	return c;
}

/*
 * The cached collective for @key, created on a miss (evicting the least
 * recently used one when the cache is full).  NULL when its setup failed
 * (then, as ever after for this key, MPICH runs the call) or on a local
 * allocation failure.
 */
static struct thmpi_entry *thmpi_entry_get(struct thmpi_comm *c,
					   const struct thmpi_key *key,
					   size_t bytes)
{
	struct thmpi_entry **pp, *e, **last = NULL;

	for (pp = &c->cache; (e = *pp); pp = &e->next) {
		if (!memcmp(&e->key, key, sizeof(*key))) {
			*pp = e->next;		/* to the front */
			e->next = c->cache;
			c->cache = e;
			return e->coll ? e : NULL;
		}
		last = pp;
	}
	if (c->ncache >= thmpi_cfg.cache && last) {
		e = *last;
		*last = NULL;
		c->ncache--;
		thmpi_entry_destroy(e);
	}
	e = thmpi_entry_create(c, key, bytes, NULL, NULL);
	if (!e)
		return NULL;
	e->next = c->cache;
	c->cache = e;
	c->ncache++;
	return e->coll ? e : NULL;
}

/*
 * Destroy the persistent collectives whose requests every rank has freed
 * (one agreement over the list, the same on every rank).
 */
static void thmpi_persist_reclaim(struct thmpi_comm *c)
{
	/* at most THMPI_CACHE's maximum: no allocation, no way to miss the round */
	int mine[THMPI_CACHE_MAX] = { 0 }, all[THMPI_CACHE_MAX];
	struct thmpi_entry **pp, *e;
	unsigned int n = 0, i;

	for (e = c->persist; e && n < THMPI_CACHE_MAX; e = e->next)
		mine[n++] = e->retired;
	if (PMPI_Allreduce(mine, all, n, MPI_INT, MPI_MIN, c->dup) !=
	    MPI_SUCCESS)
		return;
	for (pp = &c->persist, i = 0; (e = *pp) && i < n; i++) {
		if (!all[i]) {
			pp = &e->next;
			continue;
		}
		*pp = e->next;
		thmpi_entry_destroy(e);
	}
}

/*
 * The blocking and non-blocking calls' collective for @m on @comm, its
 * staging buffers free (an earlier non-blocking round on them finished);
 * NULL when MPICH runs the call (*@why).
 */
struct thmpi_entry *thmpi_entry_for(MPI_Comm comm,
				    const struct thmpi_match *m,
				    enum thmpi_why *why)
{
	struct thmpi_comm *c = thmpi_comm_get(comm);
	struct thmpi_entry *e;

	*why = THMPI_WHY_SETUP;
	if (!c) {
		/* the others may already wait in its duplicate: end the job */
		thmpi_fatal(comm, "communicator setup", -ENOMEM);
		return NULL;
	}
	e = thmpi_entry_get(c, &m->key, m->bytes);
	if (e && e->pending)
		thmpi_nbreq_complete(e->pending);
	return e;
}

/*
 * A persistent request's own collective for @m on @comm, on the caller's
 * @send and @recv (NULL: a staging buffer); NULL when MPICH builds the
 * request (*@why).
 */
struct thmpi_entry *thmpi_entry_persistent(MPI_Comm comm,
					   const struct thmpi_match *m,
					   void *send, void *recv,
					   enum thmpi_why *why)
{
	struct thmpi_comm *c = thmpi_comm_get(comm);
	struct thmpi_entry *e;
	unsigned int live = 0;

	if (!c) {
		thmpi_fatal(comm, "communicator setup", -ENOMEM);
		*why = THMPI_WHY_SETUP;
		return NULL;
	}

	for (e = c->persist; e; e = e->next)
		live++;
	if (live >= thmpi_cfg.cache) {
		thmpi_persist_reclaim(c);
		live = 0;
		for (e = c->persist; e; e = e->next)
			live++;
	}
	if (live >= thmpi_cfg.cache) {
		*why = THMPI_WHY_FULL;
		return NULL;
	}
	e = thmpi_entry_create(c, &m->key, m->bytes, send, recv);
	if (!e) {
		*why = THMPI_WHY_SETUP;
		return NULL;
	}
	if (!e->coll) {
		free(e);
		*why = THMPI_WHY_SETUP;
		return NULL;
	}
	e->next = c->persist;
	c->persist = e;
	return e;
}

void thmpi_entry_retire(struct thmpi_entry *e)
{
	e->retired = true;
}

/*
 * Wait for @e's round.  The NIC runs it; meanwhile MPICH's own progress
 * is driven every slice, as a blocking MPI call must (a peer may wait in
 * a receive that needs this rank's sends to move before it joins).
 */
int thmpi_round_wait(struct thmpi_entry *e)
{
	int ret, flag;

	for (;;) {
		ret = th_coll_wait(e->coll, THMPI_WAIT_SLICE_NS);
		if (ret != -ETIMEDOUT)
			return ret;
		PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, thmpi_world, &flag,
			    MPI_STATUS_IGNORE);
	}
}

/*
 * The cache's collectives, and with @persist_too the persistent ones:
 * only when no exchange is needed (MPI_Finalize, thmpi_quiet), since
 * ranks free their persistent requests at different times.
 */
static void thmpi_comm_destroy(struct thmpi_comm *c, bool persist_too)
{
	struct thmpi_entry *e;

	while ((e = c->cache)) {
		c->cache = e->next;
		thmpi_entry_destroy(e);
	}
	c->ncache = 0;
	while (persist_too && (e = c->persist)) {
		c->persist = e->next;
		thmpi_entry_destroy(e);
	}
}

static void thmpi_comm_unlink(struct thmpi_comm *c)
{
	struct thmpi_comm **pp;

	for (pp = &thmpi_comms; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			return;
		}
}

/*
 * MPI_Comm_free (collective) or MPI_Finalize: the communicator's
 * collectives go.  Persistent ones whose requests still live stay until
 * MPI_Finalize, with the duplicate they exchange over.
 */
static int thmpi_comm_delete(MPI_Comm comm, int keyval, void *attr,
			     void *extra)
{
	struct thmpi_comm *c = attr;

	(void)comm;
	(void)keyval;
	(void)extra;
	/*
	 * MPI_Comm_free is collective: the cache (the same on every rank)
	 * goes, and the persistent collectives every rank has freed; one a
	 * rank still holds waits for MPI_Finalize.
	 */
	if (!thmpi_quiet)
		thmpi_persist_reclaim(c);
	thmpi_comm_destroy(c, thmpi_quiet);
	c->comm = MPI_COMM_NULL;
	if (c->persist)
		return MPI_SUCCESS;
	thmpi_comm_unlink(c);
	PMPI_Comm_free(&c->dup);
	free(c);
	return MPI_SUCCESS;
}

/*
 * MPI_Finalize: one barrier of every rank, after which no round runs
 * anywhere; then each communicator's collectives are torn down without
 * further exchanges.
 */
void thmpi_comm_teardown_all(void)
{
	struct thmpi_comm *c;

	if (thmpi_keyval == MPI_KEYVAL_INVALID)
		return;
	PMPI_Barrier(thmpi_world);
	thmpi_quiet = true;
	while ((c = thmpi_comms)) {
		if (c->comm != MPI_COMM_NULL) {
			/* its delete callback frees it */
			PMPI_Comm_delete_attr(c->comm, thmpi_keyval);
			if (thmpi_comms != c)
				continue;
		}
		thmpi_comm_destroy(c, true);
		thmpi_comm_unlink(c);
		PMPI_Comm_free(&c->dup);
		free(c);
	}
	PMPI_Comm_free_keyval(&thmpi_keyval);
}
