// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * blocking.c - MPI_Allreduce, MPI_Reduce and MPI_Bcast on the NIC: the
 * caller's data is copied into the cached collective's staging buffer,
 * one counter increment starts the round (the plan's chains wait in the
 * NIC already), and the result is copied out when it completes.  What
 * the NIC cannot run goes to MPICH unchanged.
 */
#include <string.h>

#include "thmpi.h"

/*
 * One round of @e with its staging buffers filled (thmpi_entry_for() saw
 * to any earlier non-blocking round on them); 0 or an MPI error.
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
	struct thmpi_entry *e = NULL;
	struct thmpi_match m;
	enum thmpi_why why;
	int ret;

	why = thmpi_match_allreduce(sendbuf, recvbuf, count, type, op, comm, &m);
	if (!why)
		e = thmpi_entry_for(comm, &m, &why);
	if (!e) {
		thmpi_count_fallthrough(THMPI_ALLREDUCE, why);
		return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
	}
	memcpy(e->send, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, m.bytes);
	ret = thmpi_blocking_round(e, THMPI_ALLREDUCE, comm);
	if (!ret)
		memcpy(recvbuf, e->recv, m.bytes);
	return ret;
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count,
	       MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm)
{
	struct thmpi_entry *e = NULL;
	struct thmpi_match m;
	enum thmpi_why why;
	int ret;

	why = thmpi_match_reduce(sendbuf, recvbuf, count, type, op, root, comm,
				 &m);
	if (!why)
		e = thmpi_entry_for(comm, &m, &why);
	if (!e) {
		thmpi_count_fallthrough(THMPI_REDUCE, why);
		return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root,
				   comm);
	}
	memcpy(e->send, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, m.bytes);
	ret = thmpi_blocking_round(e, THMPI_REDUCE, comm);
	if (!ret && m.rank == root)
		memcpy(recvbuf, e->recv, m.bytes);
	return ret;
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype type, int root,
	      MPI_Comm comm)
{
	struct thmpi_entry *e = NULL;
	struct thmpi_match m;
	enum thmpi_why why;
	int ret;

	why = thmpi_match_bcast(buffer, count, type, root, comm, &m);
	if (!why)
		e = thmpi_entry_for(comm, &m, &why);
	if (!e) {
		thmpi_count_fallthrough(THMPI_BCAST, why);
		return PMPI_Bcast(buffer, count, type, root, comm);
	}
	if (m.rank == root)
		memcpy(e->send, buffer, m.bytes);
	ret = thmpi_blocking_round(e, THMPI_BCAST, comm);
	if (!ret && m.rank != root)
		memcpy(buffer, e->recv, m.bytes);
	return ret;
}
