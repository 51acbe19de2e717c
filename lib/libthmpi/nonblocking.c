// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * nonblocking.c - MPI_Iallreduce, MPI_Ireduce and MPI_Ibcast on the NIC.
 * The round starts in the call and runs in the NIC while the program
 * computes: no MPI call is needed for it to progress.  The request the
 * caller gets is an MPICH generalized request (MPIX_Grequest_start, with a
 * poll function), so MPI_Wait, MPI_Test and their -all/-any/-some forms
 * complete it like any other; its poll copies the result out.
 *
 * A cached collective runs one round at a time: a second call on the same
 * signature first finishes the first one's round (it cannot deadlock:
 * every rank started that round before it could reach this call).
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "thmpi.h"

/**
 * struct thmpi_nbreq - one non-blocking offloaded call
 * @e: its collective while the round runs; NULL once finished
 * @req: the generalized request the caller holds
 * @out: where the result goes (NULL: nowhere on this rank)
 * @bytes: how much
 * @err: the round's outcome, once finished
 * @call: which call, for the error message
 * @comm: the caller's communicator, for its error handler
 */
struct thmpi_nbreq {
	struct thmpi_entry *e;
	MPI_Request req;
	void *out;
	size_t bytes;
	int err;
	enum thmpi_call call;
	MPI_Comm comm;
};

/* The round ended (@err): result out, request complete for MPICH. */
void thmpi_nbreq_finish(struct thmpi_nbreq *nb, int err)
{
	struct thmpi_entry *e = nb->e;

	if (!e)
		return;
	if (!err && nb->out)
		memcpy(nb->out, e->recv, nb->bytes);
	nb->err = err;
	e->pending = NULL;
	nb->e = NULL;
	PMPI_Grequest_complete(nb->req);
}

/* Wait for @nb's round (another call needs its collective). */
int thmpi_nbreq_complete(struct thmpi_nbreq *nb)
{
	if (nb->e)
		thmpi_nbreq_finish(nb, thmpi_round_wait(nb->e));
	return nb->err;
}

/* MPI_Test / MPI_Wait look: finished yet?  Never blocks. */
static int thmpi_nbreq_poll(void *state, MPI_Status *status)
{
	struct thmpi_nbreq *nb = state;
	int ret, flag;

	(void)status;
	if (!nb->e)
		return MPI_SUCCESS;
	ret = th_coll_wait(nb->e->coll, 0);
	if (ret != -ETIMEDOUT) {
		thmpi_nbreq_finish(nb, ret);
		return MPI_SUCCESS;
	}
	/*
	 * The test above read the provider's queue where a waiter may
	 * watch (th_ct_wait(3): a test drives the provider once).  MPI_Wait
	 * calls this in a loop without driving MPICH's progress itself; do
	 * it here, and let the progress thread have the CPU where the
	 * waiters may not watch (more ranks than CPUs).
	 */
	PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, thmpi_world, &flag,
		    MPI_STATUS_IGNORE);
	sched_yield();
	return MPI_SUCCESS;
}

/* MPI_Waitall's form: a bounded wait on each. */
static int thmpi_nbreq_wait(int count, void **states, double timeout,
			    MPI_Status *status)
{
	int i;

	(void)timeout;
	for (i = 0; i < count; i++)
		thmpi_nbreq_poll(states[i], status);
	return MPI_SUCCESS;
}

static int thmpi_nbreq_query(void *state, MPI_Status *status)
{
	struct thmpi_nbreq *nb = state;

	PMPI_Status_set_elements(status, MPI_BYTE, 0);
	PMPI_Status_set_cancelled(status, 0);
	status->MPI_SOURCE = MPI_UNDEFINED;
	status->MPI_TAG = MPI_UNDEFINED;
	if (nb->err) {
		thmpi_fatal(nb->comm, thmpi_call_name(nb->call), nb->err);
		status->MPI_ERROR = MPI_ERR_OTHER;
		return MPI_ERR_OTHER;
	}
	status->MPI_ERROR = MPI_SUCCESS;
	return MPI_SUCCESS;
}

static int thmpi_nbreq_free(void *state)
{
	struct thmpi_nbreq *nb = state;

	/* freeing an active collective request is erroneous; finish it */
	thmpi_nbreq_complete(nb);
	free(nb);
	return MPI_SUCCESS;
}

static int thmpi_nbreq_cancel(void *state, int complete)
{
	(void)state;
	(void)complete;
	return MPI_SUCCESS;	/* a collective cannot be cancelled */
}

/* Start @e's round for a non-blocking @call; fills *@request. */
static int thmpi_nb_start(struct thmpi_entry *e, enum thmpi_call call,
			  MPI_Comm comm, void *out, MPI_Request *request)
{
	struct thmpi_nbreq *nb = calloc(1, sizeof(*nb));
	int ret;

	if (!nb)
		return thmpi_fatal(comm, thmpi_call_name(call), -ENOMEM);
	ret = th_coll_start(e->coll);
	if (ret) {
		free(nb);
		return thmpi_fatal(comm, thmpi_call_name(call), ret);
	}
	nb->e = e;
	nb->out = out;
	nb->bytes = e->bytes;
	nb->call = call;
	nb->comm = comm;
	e->pending = nb;
	ret = PMPIX_Grequest_start(thmpi_nbreq_query, thmpi_nbreq_free,
				   thmpi_nbreq_cancel, thmpi_nbreq_poll,
				   thmpi_nbreq_wait, nb, request);
	if (ret != MPI_SUCCESS) {
		thmpi_round_wait(e);
		e->pending = NULL;
		free(nb);
		return ret;
	}
	nb->req = *request;
	thmpi_count_offload(call);
	thmpi_log_call(call, e);
	return MPI_SUCCESS;
}

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count,
		   MPI_Datatype type, MPI_Op op, MPI_Comm comm,
		   MPI_Request *request)
{
	struct thmpi_entry *e = NULL;
	struct thmpi_match m;
	enum thmpi_why why = THMPI_WHY_ARGS;

	if (request)
		why = thmpi_match_allreduce(sendbuf, recvbuf, count, type, op,
					    comm, &m);
	if (!why)
		e = thmpi_entry_for(comm, &m, &why);
	if (!e) {
		thmpi_count_fallthrough(THMPI_IALLREDUCE, why);
		return PMPI_Iallreduce(sendbuf, recvbuf, count, type, op, comm,
				       request);
	}
	memcpy(e->send, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, m.bytes);
	return thmpi_nb_start(e, THMPI_IALLREDUCE, comm, recvbuf, request);
}

int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count,
		MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm,
		MPI_Request *request)
{
	struct thmpi_entry *e = NULL;
	struct thmpi_match m;
	enum thmpi_why why = THMPI_WHY_ARGS;

	if (request)
		why = thmpi_match_reduce(sendbuf, recvbuf, count, type, op,
					 root, comm, &m);
	if (!why)
		e = thmpi_entry_for(comm, &m, &why);
	if (!e) {
		thmpi_count_fallthrough(THMPI_IREDUCE, why);
		return PMPI_Ireduce(sendbuf, recvbuf, count, type, op, root,
				    comm, request);
	}
	memcpy(e->send, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, m.bytes);
	return thmpi_nb_start(e, THMPI_IREDUCE, comm,
			      m.rank == root ? recvbuf : NULL, request);
}

int MPI_Ibcast(void *buffer, int count, MPI_Datatype type, int root,
	       MPI_Comm comm, MPI_Request *request)
{
	struct thmpi_entry *e = NULL;
	struct thmpi_match m;
	enum thmpi_why why = THMPI_WHY_ARGS;

	if (request)
		why = thmpi_match_bcast(buffer, count, type, root, comm, &m);
	if (!why)
		e = thmpi_entry_for(comm, &m, &why);
	if (!e) {
		thmpi_count_fallthrough(THMPI_IBCAST, why);
		return PMPI_Ibcast(buffer, count, type, root, comm, request);
	}
	if (m.rank == root)
		memcpy(e->send, buffer, m.bytes);
	return thmpi_nb_start(e, THMPI_IBCAST, comm,
			      m.rank == root ? NULL : buffer, request);
}
