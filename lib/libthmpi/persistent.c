// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * persistent.c - MPI-4's persistent collectives on the NIC:
 * MPI_Allreduce_init, MPI_Reduce_init and MPI_Bcast_init compile the
 * plan once on the caller's own buffers (no staging copy but for
 * MPI_IN_PLACE), MPI_Start is one counter increment.
 *
 * The handle the caller holds is a real MPICH persistent request (a
 * zero-byte send to MPI_PROC_NULL on thmpi_self, a duplicate of
 * MPI_COMM_SELF), so MPICH accepts it everywhere, in arrays with other
 * requests too; the
 * completion calls (Wait, Test and their -all, -any, -some forms),
 * MPI_Start(all), MPI_Request_free and MPI_Request_get_status look it up
 * first and finish the NIC's round before MPICH sees the request.
 * Without persistent offloads the lookups are one test of an empty list.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "thmpi.h"

/**
 * struct thmpi_preq - one persistent offloaded request
 * @next: every live one
 * @handle: the MPICH request the caller holds
 * @e: its collective
 * @copy_in: MPI_IN_PLACE: the caller's buffer the input is copied from
 * @active: started and not yet completed
 * @call: which call, for messages
 * @comm: the caller's communicator, for its error handler
 */
struct thmpi_preq {
	struct thmpi_preq *next;
	MPI_Request handle;
	struct thmpi_entry *e;
	const void *copy_in;
	bool active;
	enum thmpi_call call;
	MPI_Comm comm;
};

static struct thmpi_preq *thmpi_preqs;
/*
 * Freed requests, their handles kept for the next *_init: MPICH 4.0.2
 * hangs in every persistent collective it runs itself after a persistent
 * send or receive to MPI_PROC_NULL was freed (thmpi_check's
 * run_persistent_then_mpich()), so ours are freed only at MPI_Finalize.
 * A persistent barrier on thmpi_self would do instead, but MPICH's
 * MPI_Waitany, MPI_Testsome and MPI_Testall mishandle its own
 * persistent collectives.  At most as many as were ever live at once.
 */
static struct thmpi_preq *thmpi_spares;

static struct thmpi_preq *thmpi_preq_find(MPI_Request r)
{
	struct thmpi_preq *p;

	if (r == MPI_REQUEST_NULL)
		return NULL;
	for (p = thmpi_preqs; p; p = p->next)
		if (p->handle == r)
			return p;
	return NULL;
}

/*
 * 1 when @p's round is over (or it is not running), 0 if not yet; *@err
 * the error handler's verdict when the round failed.
 */
static int thmpi_preq_test(struct thmpi_preq *p, int *err)
{
	int ret;

	if (!p || !p->active)
		return 1;
	ret = th_coll_wait(p->e->coll, 0);
	if (ret == -ETIMEDOUT)
		return 0;
	p->active = false;
	if (ret)
		*err = thmpi_fatal(p->comm, thmpi_call_name(p->call), ret);
	return 1;
}

/* Wait for @p's round: MPI_SUCCESS, or the error handler's verdict. */
static int thmpi_preq_wait(struct thmpi_preq *p)
{
	int ret;

	if (!p || !p->active)
		return MPI_SUCCESS;
	ret = thmpi_round_wait(p->e);
	p->active = false;
	return ret ? thmpi_fatal(p->comm, thmpi_call_name(p->call), ret) :
		     MPI_SUCCESS;
}

/* Let MPICH move its own requests while ours run in the NIC. */
static void thmpi_progress(void)
{
	int flag;

	PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, thmpi_world, &flag,
		    MPI_STATUS_IGNORE);
	sched_yield();
}

static int thmpi_preq_new(struct thmpi_entry *e, enum thmpi_call call,
			  MPI_Comm comm, const void *copy_in,
			  MPI_Request *request)
{
	struct thmpi_preq *p = thmpi_spares;
	int ret;

	if (p) {
		thmpi_spares = p->next;
	} else {
		p = calloc(1, sizeof(*p));
		if (!p)
			return thmpi_fatal(comm, thmpi_call_name(call), -ENOMEM);
		ret = PMPI_Send_init(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 0,
				     thmpi_self, &p->handle);
		if (ret != MPI_SUCCESS) {
			free(p);
			thmpi_entry_retire(e);
			return ret;
		}
	}
	p->e = e;
	p->call = call;
	p->comm = comm;
	p->copy_in = copy_in;
	p->next = thmpi_preqs;
	thmpi_preqs = p;
	*request = p->handle;
	thmpi_count_offload(call);
	thmpi_log_call(call, e);
	return MPI_SUCCESS;
}

int MPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count,
		       MPI_Datatype type, MPI_Op op, MPI_Comm comm,
		       MPI_Info info, MPI_Request *request)
{
	bool in_place = sendbuf == MPI_IN_PLACE;
	struct thmpi_entry *e = NULL;
	struct thmpi_match m;
	enum thmpi_why why = THMPI_WHY_ARGS;

	if (request)
		why = thmpi_match_allreduce(sendbuf, recvbuf, count, type, op,
					    comm, &m);
	if (!why)
		e = thmpi_entry_persistent(comm, &m,
					   in_place ? NULL : (void *)sendbuf,
					   recvbuf, &why);
	if (!e) {
		thmpi_count_fallthrough(THMPI_ALLREDUCE_INIT, why);
		return PMPI_Allreduce_init(sendbuf, recvbuf, count, type, op,
					   comm, info, request);
	}
	return thmpi_preq_new(e, THMPI_ALLREDUCE_INIT, comm,
			      in_place ? recvbuf : NULL, request);
}

int MPI_Reduce_init(const void *sendbuf, void *recvbuf, int count,
		    MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm,
		    MPI_Info info, MPI_Request *request)
{
	bool in_place = sendbuf == MPI_IN_PLACE;
	struct thmpi_entry *e = NULL;
	struct thmpi_match m;
	enum thmpi_why why = THMPI_WHY_ARGS;

	if (request)
		why = thmpi_match_reduce(sendbuf, recvbuf, count, type, op,
					 root, comm, &m);
	if (!why)
		e = thmpi_entry_persistent(comm, &m,
					   in_place ? NULL : (void *)sendbuf,
					   m.rank == root ? recvbuf : NULL,
					   &why);
	if (!e) {
		thmpi_count_fallthrough(THMPI_REDUCE_INIT, why);
		return PMPI_Reduce_init(sendbuf, recvbuf, count, type, op,
					root, comm, info, request);
	}
	return thmpi_preq_new(e, THMPI_REDUCE_INIT, comm,
			      in_place ? recvbuf : NULL, request);
}

int MPI_Bcast_init(void *buffer, int count, MPI_Datatype type, int root,
		   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	struct thmpi_entry *e = NULL;
	struct thmpi_match m;
	enum thmpi_why why = THMPI_WHY_ARGS;

	if (request)
		why = thmpi_match_bcast(buffer, count, type, root, comm, &m);
	if (!why)
		e = thmpi_entry_persistent(comm, &m,
					   m.rank == root ? buffer : NULL,
					   m.rank == root ? NULL : buffer, &why);
	if (!e) {
		thmpi_count_fallthrough(THMPI_BCAST_INIT, why);
		return PMPI_Bcast_init(buffer, count, type, root, comm, info,
				       request);
	}
	return thmpi_preq_new(e, THMPI_BCAST_INIT, comm, NULL, request);
}

static int thmpi_preq_start(struct thmpi_preq *p, MPI_Request *request)
{
	int ret;

	if (p->active)
		return PMPI_Start(request);	/* MPICH says it is erroneous */
	if (p->copy_in)
		memcpy(p->e->send, p->copy_in, p->e->bytes);
	ret = th_coll_start(p->e->coll);
	if (ret)
		return thmpi_fatal(p->comm, thmpi_call_name(p->call), ret);
	p->active = true;
	return PMPI_Start(request);
}

int MPI_Start(MPI_Request *request)
{
	struct thmpi_preq *p = thmpi_preqs ? thmpi_preq_find(*request) : NULL;

	return p ? thmpi_preq_start(p, request) : PMPI_Start(request);
}

int MPI_Startall(int count, MPI_Request requests[])
{
	struct thmpi_preq *p;
	int i, ret = MPI_SUCCESS;

	if (!thmpi_preqs)
		return PMPI_Startall(count, requests);
	for (i = 0; i < count && ret == MPI_SUCCESS; i++) {
		p = thmpi_preq_find(requests[i]);
		ret = p ? thmpi_preq_start(p, &requests[i]) :
			  PMPI_Start(&requests[i]);
	}
	return ret;
}

/* A failed round's error (MPI_ERRORS_RETURN) wins over MPICH's answer. */
static int thmpi_first_error(int ours, int mpich)
{
	return ours != MPI_SUCCESS ? ours : mpich;
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
	int err = MPI_SUCCESS;

	if (thmpi_preqs)
		err = thmpi_preq_wait(thmpi_preq_find(*request));
	return thmpi_first_error(err, PMPI_Wait(request, status));
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
	int err = MPI_SUCCESS;

	if (thmpi_preqs && !thmpi_preq_test(thmpi_preq_find(*request), &err)) {
		thmpi_progress();
		*flag = 0;
		return MPI_SUCCESS;
	}
	return thmpi_first_error(err, PMPI_Test(request, flag, status));
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
	int i, err = MPI_SUCCESS, ret;

	for (i = 0; thmpi_preqs && i < count; i++) {
		ret = thmpi_preq_wait(thmpi_preq_find(requests[i]));
		err = thmpi_first_error(err, ret);
	}
	return thmpi_first_error(err, PMPI_Waitall(count, requests, statuses));
}

int MPI_Testall(int count, MPI_Request requests[], int *flag,
		MPI_Status statuses[])
{
	int i, done = 1, err = MPI_SUCCESS;

	for (i = 0; thmpi_preqs && i < count; i++)
		done &= thmpi_preq_test(thmpi_preq_find(requests[i]), &err);
	if (!done) {
		/* none completes unless all do */
		thmpi_progress();
		*flag = 0;
		return err;
	}
	return thmpi_first_error(err, PMPI_Testall(count, requests, flag,
						   statuses));
}

/*
 * A copy of @requests in which our running requests are MPI_REQUEST_NULL,
 * for MPICH's -any and -some calls; NULL when none runs (use the array
 * itself) or on no memory (*@err).
 */
static MPI_Request *thmpi_hide_running(int count, const MPI_Request *requests,
				       int *err)
{
	MPI_Request *copy = NULL;
	struct thmpi_preq *p;
	int i;

	*err = MPI_SUCCESS;
	for (i = 0; thmpi_preqs && i < count; i++) {
		p = thmpi_preq_find(requests[i]);
		if (!p || !p->active)
			continue;
		if (!copy) {
			copy = malloc(sizeof(*copy) * count);
			if (!copy) {
				*err = MPI_ERR_NO_MEM;
				return NULL;
			}
			memcpy(copy, requests, sizeof(*copy) * count);
		}
		copy[i] = MPI_REQUEST_NULL;
	}
	return copy;
}

/* The first of ours in @requests whose round is over: its index or -1. */
static int thmpi_first_finished(int count, MPI_Request *requests, int *err)
{
	struct thmpi_preq *p;
	int i;

	for (i = 0; thmpi_preqs && i < count; i++) {
		p = thmpi_preq_find(requests[i]);
		if (p && p->active && thmpi_preq_test(p, err))
			return i;
	}
	return -1;
}

/* One look for MPI_Waitany / MPI_Testany; *flag set when one completed. */
static int thmpi_anyof(int count, MPI_Request requests[], int *index,
		       int *flag, MPI_Status *status, bool *running)
{
	int i, ret, err = MPI_SUCCESS;
	MPI_Request *copy;

	i = thmpi_first_finished(count, requests, &err);
	if (i >= 0) {
		*index = i;
		*flag = 1;
		return thmpi_first_error(err, PMPI_Wait(&requests[i], status));
	}
	copy = thmpi_hide_running(count, requests, &ret);
	if (ret != MPI_SUCCESS)
		return ret;
	*running = copy != NULL;
	ret = PMPI_Testany(count, copy ? copy : requests, index, flag, status);
	if (copy && ret == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED)
		requests[*index] = copy[*index];
	free(copy);
	/* every request inactive and none of ours running: MPICH's answer */
	if (*running && *flag && *index == MPI_UNDEFINED)
		*flag = 0;
	return ret;
}

int MPI_Waitany(int count, MPI_Request requests[], int *index,
		MPI_Status *status)
{
	bool running;
	int flag = 0, ret;

	if (!thmpi_preqs)
		return PMPI_Waitany(count, requests, index, status);
	for (;;) {
		ret = thmpi_anyof(count, requests, index, &flag, status,
				  &running);
		if (ret != MPI_SUCCESS || flag)
			return ret;
		thmpi_progress();
	}
}

int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag,
		MPI_Status *status)
{
	bool running;

	if (!thmpi_preqs)
		return PMPI_Testany(count, requests, index, flag, status);
	return thmpi_anyof(count, requests, index, flag, status, &running);
}

/* One look for MPI_Waitsome / MPI_Testsome. */
static int thmpi_someof(int incount, MPI_Request requests[], int *outcount,
			int indices[], MPI_Status statuses[], bool *running)
{
	int i, n = 0, ret, err = MPI_SUCCESS;
	MPI_Status st, *sp;
	MPI_Request *copy;

	while ((i = thmpi_first_finished(incount, requests, &err)) >= 0) {
		sp = statuses == MPI_STATUSES_IGNORE ? &st : &statuses[n];
		ret = thmpi_first_error(err, PMPI_Wait(&requests[i], sp));
		if (ret != MPI_SUCCESS)
			return ret;
		indices[n++] = i;
	}
	copy = thmpi_hide_running(incount, requests, &ret);
	if (ret != MPI_SUCCESS)
		return ret;
	*running = copy != NULL;
	ret = PMPI_Testsome(incount, copy ? copy : requests, outcount,
			    indices + n,
			    statuses == MPI_STATUSES_IGNORE ? statuses :
			    statuses + n);
	if (ret != MPI_SUCCESS) {
		free(copy);
		return ret;
	}
	if (*outcount == MPI_UNDEFINED) {
		/* no active request of MPICH's */
		*outcount = n || *running ? n : MPI_UNDEFINED;
	} else {
		for (i = 0; copy && i < *outcount; i++)
			requests[indices[n + i]] = copy[indices[n + i]];
		*outcount += n;
	}
	free(copy);
	return MPI_SUCCESS;
}

int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount,
		 int indices[], MPI_Status statuses[])
{
	bool running;
	int ret;

	if (!thmpi_preqs)
		return PMPI_Waitsome(incount, requests, outcount, indices,
				     statuses);
	for (;;) {
		ret = thmpi_someof(incount, requests, outcount, indices,
				   statuses, &running);
		if (ret != MPI_SUCCESS || *outcount)
			return ret;
		thmpi_progress();
	}
}

int MPI_Testsome(int incount, MPI_Request requests[], int *outcount,
		 int indices[], MPI_Status statuses[])
{
	bool running;

	if (!thmpi_preqs)
		return PMPI_Testsome(incount, requests, outcount, indices,
				     statuses);
	return thmpi_someof(incount, requests, outcount, indices, statuses,
			    &running);
}

int MPI_Request_get_status(MPI_Request request, int *flag,
			   MPI_Status *status)
{
	int err = MPI_SUCCESS;

	if (thmpi_preqs && !thmpi_preq_test(thmpi_preq_find(request), &err)) {
		thmpi_progress();
		*flag = 0;
		return MPI_SUCCESS;
	}
	return thmpi_first_error(err, PMPI_Request_get_status(request, flag,
							      status));
}

static void thmpi_preq_unlink(struct thmpi_preq *p)
{
	struct thmpi_preq **pp;

	for (pp = &thmpi_preqs; *pp; pp = &(*pp)->next)
		if (*pp == p) {
			*pp = p->next;
			return;
		}
}

/*
 * Freeing is local, but destroying a plan is collective: the collective
 * is retired here (its round, if any, finished first) and destroyed once
 * every rank has retired it (comm.c).
 */
int MPI_Request_free(MPI_Request *request)
{
	struct thmpi_preq *p = thmpi_preqs ? thmpi_preq_find(*request) : NULL;

	if (!p)
		return PMPI_Request_free(request);
	thmpi_preq_wait(p);
	thmpi_entry_retire(p->e);
	thmpi_preq_unlink(p);
	/* kept for the next *_init (thmpi_spares), inactive: a no-op send */
	PMPI_Wait(&p->handle, MPI_STATUS_IGNORE);
	*p = (struct thmpi_preq){ .next = thmpi_spares, .handle = p->handle };
	thmpi_spares = p;
	*request = MPI_REQUEST_NULL;
	return MPI_SUCCESS;
}

/* MPI_Finalize: requests the program never freed, and the spares. */
void thmpi_persistent_fini(void)
{
	struct thmpi_preq *p;

	while ((p = thmpi_preqs)) {
		thmpi_preqs = p->next;
		thmpi_preq_wait(p);
		thmpi_entry_retire(p->e);
		PMPI_Request_free(&p->handle);
		free(p);
	}
	while ((p = thmpi_spares)) {
		thmpi_spares = p->next;
		PMPI_Request_free(&p->handle);
		free(p);
	}
}
