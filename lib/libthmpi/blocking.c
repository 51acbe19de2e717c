// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * blocking.c - MPI_Allreduce, MPI_Reduce and MPI_Bcast on the NIC: the
 * caller's data is copied into the cached collective's staging buffer,
 * one counter increment starts the round (the plan's chains wait in the
 * NIC already), and the result is copied out when it completes.  What
 * the NIC cannot run goes to MPICH unchanged.
 */
#include <errno.h>
#include <string.h>

#include "thmpi.h"

/* The cached collective for the call, or NULL: MPICH runs it (@why). */
static struct thmpi_entry *thmpi_blocking_entry(MPI_Comm comm,
						const struct thmpi_key *key,
						size_t bytes,
						enum thmpi_why *why)
{
	struct thmpi_comm *c = thmpi_comm_get(comm);
	struct thmpi_entry *e;

	if (!c) {
		/* the others may already wait in its duplicate: end the job */
		thmpi_fatal(comm, "communicator setup", -ENOMEM);
		*why = THMPI_WHY_SETUP;
		return NULL;
	}
	e = thmpi_entry_get(c, key, bytes);
	if (!e)
		*why = THMPI_WHY_SETUP;
	return e;
}

/*
 * One round of @e with its staging buffers filled (after any earlier
 * non-blocking round on them ended); 0 or an MPI error.
 */
static int thmpi_blocking_round(struct thmpi_entry *e, enum thmpi_call call,
				MPI_Comm comm)
{
	int ret;

	ret = th_coll_start(e->coll);
	if (!ret)
		ret = thmpi_round_wait(e);
	if (ret)
		return thmpi_fatal(comm, thmpi_call_name(call), ret);
	thmpi_count_offload(call);
	thmpi_log_call(call, e);
	return MPI_SUCCESS;
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
		  MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
	struct thmpi_key key;
	struct thmpi_entry *e = NULL;
	enum thmpi_why why;
	size_t bytes;
	int ret;

	why = thmpi_match_comm(comm, 0, false);
	if (!why)
		why = thmpi_match_reduce(type, op, count, &key, &bytes);
	if (!why && (!recvbuf || !sendbuf))
		why = THMPI_WHY_ARGS;
	if (!why) {
		key.kind = TH_COLL_ALLREDUCE;
		e = thmpi_blocking_entry(comm, &key, bytes, &why);
	}
	if (!e) {
		thmpi_count_fallthrough(THMPI_ALLREDUCE, why);
		return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
	}
	if (e->pending)
		thmpi_nbreq_complete(e->pending);
	memcpy(e->send, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, bytes);
	ret = thmpi_blocking_round(e, THMPI_ALLREDUCE, comm);
	if (!ret)
		memcpy(recvbuf, e->recv, bytes);
	return ret;
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count,
	       MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm)
{
	struct thmpi_key key;
	struct thmpi_entry *e = NULL;
	enum thmpi_why why;
	size_t bytes;
	int rank = -1, ret;

	why = thmpi_match_comm(comm, root, true);
	if (!why)
		why = thmpi_match_reduce(type, op, count, &key, &bytes);
	if (!why) {
		PMPI_Comm_rank(comm, &rank);
		/* in place only at the root; the root's result needs a buffer */
		if (!sendbuf || (sendbuf == MPI_IN_PLACE && rank != root) ||
		    (rank == root && !recvbuf))
			why = THMPI_WHY_ARGS;
	}
	if (!why) {
		key.kind = TH_COLL_REDUCE;
		key.root = root;
		e = thmpi_blocking_entry(comm, &key, bytes, &why);
	}
	if (!e) {
		thmpi_count_fallthrough(THMPI_REDUCE, why);
		return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root,
				   comm);
	}
	if (e->pending)
		thmpi_nbreq_complete(e->pending);
	memcpy(e->send, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, bytes);
	ret = thmpi_blocking_round(e, THMPI_REDUCE, comm);
	if (!ret && rank == root)
		memcpy(recvbuf, e->recv, bytes);
	return ret;
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype type, int root,
	      MPI_Comm comm)
{
	struct thmpi_key key;
	struct thmpi_entry *e = NULL;
	enum thmpi_why why;
	size_t bytes;
	int rank = -1, ret;

	why = thmpi_match_comm(comm, root, true);
	if (!why)
		why = thmpi_match_bcast(type, count, &key, &bytes);
	if (!why && !buffer)
		why = THMPI_WHY_ARGS;
	if (!why) {
		PMPI_Comm_rank(comm, &rank);
		key.kind = TH_COLL_BCAST;
		key.root = root;
		e = thmpi_blocking_entry(comm, &key, bytes, &why);
	}
	if (!e) {
		thmpi_count_fallthrough(THMPI_BCAST, why);
		return PMPI_Bcast(buffer, count, type, root, comm);
	}
	if (e->pending)
		thmpi_nbreq_complete(e->pending);
	if (rank == root)
		memcpy(e->send, buffer, bytes);
	ret = thmpi_blocking_round(e, THMPI_BCAST, comm);
	if (!ret && rank != root)
		memcpy(buffer, e->recv, bytes);
	return ret;
}
