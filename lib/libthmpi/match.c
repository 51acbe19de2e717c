// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * match.c - which MPI calls the NIC can run: MPI datatypes and ops onto
 * the ALU's (TH_NIC_DT_*, TH_NIC_ALU_*), contiguous buffers for
 * Broadcast, intra-communicators of two or more processes.  Every answer
 * depends only on what every rank of the call passes alike, so all ranks
 * of a communicator decide the same way without talking.
 */
#include <string.h>

#include "thmpi.h"

/* Predefined types the ALU reduces, by C size (long is 64-bit here). */
static int thmpi_dtype(MPI_Datatype t)
{
	if (t == MPI_SIGNED_CHAR || t == MPI_INT8_T)
		return TH_NIC_DT_INT8;
	if (t == MPI_UNSIGNED_CHAR || t == MPI_UINT8_T)
		return TH_NIC_DT_UINT8;
	if (t == MPI_SHORT || t == MPI_INT16_T)
		return TH_NIC_DT_INT16;
	if (t == MPI_UNSIGNED_SHORT || t == MPI_UINT16_T)
		return TH_NIC_DT_UINT16;
	if (t == MPI_INT || t == MPI_INT32_T)
		return TH_NIC_DT_INT32;
	if (t == MPI_UNSIGNED || t == MPI_UINT32_T)
		return TH_NIC_DT_UINT32;
	if ((t == MPI_LONG && sizeof(long) == 8) || t == MPI_LONG_LONG ||
	    t == MPI_INT64_T)
		return TH_NIC_DT_INT64;
	if ((t == MPI_UNSIGNED_LONG && sizeof(long) == 8) ||
	    t == MPI_UNSIGNED_LONG_LONG || t == MPI_UINT64_T)
		return TH_NIC_DT_UINT64;
	if (t == MPI_FLOAT)
		return TH_NIC_DT_FLOAT32;
	if (t == MPI_DOUBLE)
		return TH_NIC_DT_FLOAT64;
	return -1;
}

static int thmpi_op(MPI_Op op)
{
	if (op == MPI_SUM)
		return TH_NIC_ALU_SUM;
	if (op == MPI_PROD)
		return TH_NIC_ALU_PROD;
	if (op == MPI_MAX)
		return TH_NIC_ALU_MAX;
	if (op == MPI_MIN)
		return TH_NIC_ALU_MIN;
	if (op == MPI_BAND)
		return TH_NIC_ALU_BAND;
	if (op == MPI_BOR)
		return TH_NIC_ALU_BOR;
	if (op == MPI_BXOR)
		return TH_NIC_ALU_BXOR;
	return -1;	/* logical ops, MAXLOC/MINLOC, REPLACE, user ops */
}

static const unsigned int thmpi_dtype_size[TH_NIC_DT_MAX] = {
	1, 2, 4, 8, 1, 2, 4, 8, 4, 8
};

static enum thmpi_why thmpi_match_alu(MPI_Datatype type, MPI_Op op,
				      int count, struct thmpi_key *key,
				      size_t *bytes)
{
	int dt, alu;

	memset(key, 0, sizeof(*key));
	if (count < 0)
		return THMPI_WHY_ARGS;
	alu = thmpi_op(op);
	if (alu < 0)
		return THMPI_WHY_OP;
	dt = thmpi_dtype(type);
	/* MPI_BYTE takes the bitwise ops only; MPICH judges the rest */
	if (dt < 0 && type == MPI_BYTE && alu >= TH_NIC_ALU_BAND)
		dt = TH_NIC_DT_UINT8;
	if (dt < 0)
		return THMPI_WHY_DATATYPE;
	if (alu >= TH_NIC_ALU_BAND &&
	    (dt == TH_NIC_DT_FLOAT32 || dt == TH_NIC_DT_FLOAT64))
		return THMPI_WHY_OP;	/* erroneous: MPICH says so */
	*bytes = (size_t)count * thmpi_dtype_size[dt];
	if (!*bytes || *bytes > thmpi_cfg.max_bytes)
		return THMPI_WHY_SIZE;
	key->op = alu;
	key->dtype = dt;
	key->count = count;
	return 0;
}

/* Broadcast moves bytes: any type laid out without holes will do. */
static enum thmpi_why thmpi_match_bytes(MPI_Datatype type, int count,
					struct thmpi_key *key, size_t *bytes)
{
	MPI_Aint lb, extent, tlb, textent;
	int size;

	memset(key, 0, sizeof(*key));
	if (count < 0 || type == MPI_DATATYPE_NULL)
		return THMPI_WHY_ARGS;
	if (PMPI_Type_size(type, &size) != MPI_SUCCESS ||
	    PMPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS ||
	    PMPI_Type_get_true_extent(type, &tlb, &textent) != MPI_SUCCESS)
		return THMPI_WHY_ARGS;
	if (lb || tlb || extent != size || textent != size)
		return THMPI_WHY_DATATYPE;
	*bytes = (size_t)count * size;
	if (!*bytes || *bytes > thmpi_cfg.max_bytes)
		return THMPI_WHY_SIZE;
	key->op = TH_NIC_ALU_SUM;
	key->dtype = TH_NIC_DT_UINT8;
	key->count = *bytes;
	return 0;
}

static enum thmpi_why thmpi_match_comm(MPI_Comm comm, int root, bool rooted)
{
	int inter, size;

	if (!thmpi_ctx)
		return THMPI_WHY_OFF;
	if (comm == MPI_COMM_NULL)
		return THMPI_WHY_ARGS;
	if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
		return THMPI_WHY_ARGS;
	if (inter)
		return THMPI_WHY_INTERCOMM;
	if (PMPI_Comm_size(comm, &size) != MPI_SUCCESS)
		return THMPI_WHY_ARGS;
	if (size < 2)
		return THMPI_WHY_ONE_RANK;
	if (rooted && (root < 0 || root >= size))
		return THMPI_WHY_ARGS;
	return 0;
}

enum thmpi_why thmpi_match_allreduce(const void *sendbuf, const void *recvbuf,
				     int count, MPI_Datatype type, MPI_Op op,
				     MPI_Comm comm, struct thmpi_match *m)
{
	enum thmpi_why why = thmpi_match_comm(comm, 0, false);

	if (!why)
		why = thmpi_match_alu(type, op, count, &m->key, &m->bytes);
	if (!why && (!recvbuf || !sendbuf))
		why = THMPI_WHY_ARGS;
	m->key.kind = TH_COLL_ALLREDUCE;
	m->rank = -1;
	return why;
}

enum thmpi_why thmpi_match_reduce(const void *sendbuf, const void *recvbuf,
				  int count, MPI_Datatype type, MPI_Op op,
				  int root, MPI_Comm comm, struct thmpi_match *m)
{
	enum thmpi_why why = thmpi_match_comm(comm, root, true);

	m->rank = -1;
	if (!why)
		why = thmpi_match_alu(type, op, count, &m->key, &m->bytes);
	if (!why) {
		PMPI_Comm_rank(comm, &m->rank);
		/* in place only at the root; the root's result needs a buffer */
		if (!sendbuf || (sendbuf == MPI_IN_PLACE && m->rank != root) ||
		    (m->rank == root && !recvbuf))
			why = THMPI_WHY_ARGS;
	}
	m->key.kind = TH_COLL_REDUCE;
	m->key.root = root;
	return why;
}

enum thmpi_why thmpi_match_bcast(const void *buffer, int count,
				 MPI_Datatype type, int root, MPI_Comm comm,
				 struct thmpi_match *m)
{
	enum thmpi_why why = thmpi_match_comm(comm, root, true);

	m->rank = -1;
	if (!why)
		why = thmpi_match_bytes(type, count, &m->key, &m->bytes);
	if (!why && !buffer)
		why = THMPI_WHY_ARGS;
	if (!why)
		PMPI_Comm_rank(comm, &m->rank);
	m->key.kind = TH_COLL_BCAST;
	m->key.root = root;
	return why;
}
