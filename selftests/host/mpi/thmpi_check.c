// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * thmpi_check.c - an MPI program that runs every call libthmpi offloads
 * (Allreduce, Reduce, Bcast; blocking, non-blocking, persistent) over its
 * datatypes, ops and sizes, on MPI_COMM_WORLD and on a communicator split
 * from it, and the calls it must leave to MPICH; it checks every result
 * against a reference it computes itself and writes a digest per case
 * (--out FILE, "%d" replaced by the world rank), so that a run with the
 * library and one without can be compared byte for byte.  Plain MPI: it
 * knows nothing of th_nic, and runs the same with or without libthmpi.
 *
 *   thmpi_check [--out FILE] [--inexact] [--thread-multiple] [--any]
 *               [--light] [--kill-rank R] [--rounds N]
 *
 * --inexact feeds floats whose sums round (1/(rank+i+1)): no reference
 * check for them, only digests (the tree's order is fixed: two runs with
 * the library must agree bit for bit).  --kill-rank R: rank R kills
 * itself (SIGKILL) in round 5 of a loop of Allreduces; the job must end
 * with an error, not hang.  --any adds MPI_Waitany and MPI_Testsome over
 * persistent requests (run_persistent_many()).  --light runs each call
 * form once (double sum, in place for every other reduction), an int max
 * and a 1 MiB Allreduce, on both communicators, and nothing else: many
 * ranks on a slow machine (the test VM).  Exit 0 when every result was
 * right.
 */
#include <math.h>
#include <stdbool.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

enum kind { K_INT, K_UINT, K_FLOAT };

struct type {
	const char *name;
	MPI_Datatype t;
	enum kind kind;
	int size;
};

static struct type types[] = {
	{ "int8", MPI_INT8_T, K_INT, 1 },
	{ "uint8", MPI_UINT8_T, K_UINT, 1 },
	{ "int16", MPI_INT16_T, K_INT, 2 },
	{ "uint16", MPI_UINT16_T, K_UINT, 2 },
	{ "int", MPI_INT, K_INT, 4 },
	{ "unsigned", MPI_UNSIGNED, K_UINT, 4 },
	{ "long", MPI_LONG, K_INT, 8 },
	{ "unsigned_long", MPI_UNSIGNED_LONG, K_UINT, 8 },
	{ "float", MPI_FLOAT, K_FLOAT, 4 },
	{ "double", MPI_DOUBLE, K_FLOAT, 8 },
	/* the same machine types under their other names */
	{ "signed_char", MPI_SIGNED_CHAR, K_INT, 1 },
	{ "unsigned_char", MPI_UNSIGNED_CHAR, K_UINT, 1 },
	{ "short", MPI_SHORT, K_INT, 2 },
	{ "unsigned_short", MPI_UNSIGNED_SHORT, K_UINT, 2 },
	{ "int32", MPI_INT32_T, K_INT, 4 },
	{ "uint32", MPI_UINT32_T, K_UINT, 4 },
	{ "long_long", MPI_LONG_LONG, K_INT, 8 },
	{ "unsigned_long_long", MPI_UNSIGNED_LONG_LONG, K_UINT, 8 },
	{ "int64", MPI_INT64_T, K_INT, 8 },
	{ "uint64", MPI_UINT64_T, K_UINT, 8 },
};
#define NPRIMARY 10	/* types[] before the other names */
#define NTYPES (int)(sizeof(types) / sizeof(types[0]))

enum opk { O_SUM, O_PROD, O_MAX, O_MIN, O_BAND, O_BOR, O_BXOR, O_N };
static const char *const op_names[O_N] = {
	"sum", "prod", "max", "min", "band", "bor", "bxor"
};

static MPI_Op mpi_op(enum opk o)
{
	static const MPI_Op ops[O_N] = { MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN,
					 MPI_BAND, MPI_BOR, MPI_BXOR };
	return ops[o];
}

enum call { C_ALLREDUCE, C_IALLREDUCE, C_ALLREDUCE_INIT, C_REDUCE,
	    C_IREDUCE, C_REDUCE_INIT, C_BCAST, C_IBCAST, C_BCAST_INIT, C_N };
static const char *const call_names[C_N] = {
	"allreduce", "iallreduce", "allreduce_init", "reduce", "ireduce",
	"reduce_init", "bcast", "ibcast", "bcast_init"
};

static int g_inexact, g_failed, g_cases, g_wrank;
static int g_light;	/* --light: each call form once (many ranks, slow machines) */
static FILE *g_out;

/* Rank @r's input element @i: exact in every type for every op. */
static double input(const struct type *ty, enum opk o, int r, long i, int seed)
{
	long v;

	switch (o) {
	case O_PROD:
		/* at most six factors of 2 and a sign: |product| <= 64 */
		v = (r + i + seed) % 5 == 0 && ty->kind != K_UINT ? -1 :
		    ((r + i) % 4 == 0 && r < 6 ? 2 : 1);
		return v;
	case O_BAND: case O_BOR: case O_BXOR:
		return (r * 37 + i * 11 + seed) & 0x7f;
	default:
		if (ty->kind == K_FLOAT && g_inexact)
			return 1.0 / (r + i % 97 + seed + 1);
		v = (r * 7 + i * 3 + seed) % 11;
		if (ty->kind == K_UINT)
			return v;
		return ty->kind == K_FLOAT ? (v - 5) * 0.25 : v - 5;
	}
}

static void put(const struct type *ty, void *buf, long i, double v)
{
	switch (ty->size * 4 + ty->kind) {
	case 4 + K_INT: ((int8_t *)buf)[i] = v; break;
	case 4 + K_UINT: ((uint8_t *)buf)[i] = v; break;
	case 8 + K_INT: ((int16_t *)buf)[i] = v; break;
	case 8 + K_UINT: ((uint16_t *)buf)[i] = v; break;
	case 16 + K_INT: ((int32_t *)buf)[i] = v; break;
	case 16 + K_UINT: ((uint32_t *)buf)[i] = v; break;
	case 16 + K_FLOAT: ((float *)buf)[i] = v; break;
	case 32 + K_INT: ((int64_t *)buf)[i] = v; break;
	case 32 + K_UINT: ((uint64_t *)buf)[i] = v; break;
	case 32 + K_FLOAT: ((double *)buf)[i] = v; break;
	}
}

static double get(const struct type *ty, const void *buf, long i)
{
	switch (ty->size * 4 + ty->kind) {
	case 4 + K_INT: return ((const int8_t *)buf)[i];
	case 4 + K_UINT: return ((const uint8_t *)buf)[i];
	case 8 + K_INT: return ((const int16_t *)buf)[i];
	case 8 + K_UINT: return ((const uint16_t *)buf)[i];
	case 16 + K_INT: return ((const int32_t *)buf)[i];
	case 16 + K_UINT: return ((const uint32_t *)buf)[i];
	case 16 + K_FLOAT: return ((const float *)buf)[i];
	case 32 + K_INT: return ((const int64_t *)buf)[i];
	case 32 + K_UINT: return ((const uint64_t *)buf)[i];
	default: return ((const double *)buf)[i];
	}
}

/* The exact result of element @i over @n ranks (small integers: exact). */
static double reference(const struct type *ty, enum opk o, int n, long i,
			int seed)
{
	double acc = input(ty, o, 0, i, seed), v;
	long a = (long)acc;
	int r;

	for (r = 1; r < n; r++) {
		v = input(ty, o, r, i, seed);
		switch (o) {
		case O_SUM: acc += v; break;
		case O_PROD: acc *= v; break;
		case O_MAX: acc = v > acc ? v : acc; break;
		case O_MIN: acc = v < acc ? v : acc; break;
		case O_BAND: a &= (long)v; break;
		case O_BOR: a |= (long)v; break;
		case O_BXOR: a ^= (long)v; break;
		default: break;
		}
	}
	return o >= O_BAND ? a : acc;
}

static uint64_t digest(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint64_t h = 1469598103934665603ULL;

	while (len--)
		h = (h ^ *p++) * 1099511628211ULL;
	return h;
}

/*
 * One case: @call of @count elements of @ty with @o on @comm (named
 * @cname), twice (seeds 1 and 2: the second run reuses what the first set
 * up), results checked and digested.
 */
static void run_case(MPI_Comm comm, const char *cname, enum call call,
		     const struct type *ty, enum opk o, long count,
		     int in_place)
{
	int rank, n, root, seed, reduce = call < C_BCAST;
	int rooted = call >= C_REDUCE, is_root, defined;
	size_t bytes = (size_t)count * ty->size;
	unsigned char *send = malloc(bytes), *recv = malloc(bytes);
	MPI_Request req = MPI_REQUEST_NULL;
	long i, bad = 0;

	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &n);
	/*
	 * MPICH 4.0.2's own MPI_Reduce crashes on MPI_IN_PLACE at a root
	 * other than 0 (1037 ints on 4 ranks): in-place cases use root 0.
	 */
	root = in_place && rooted ? 0 : n - 1 - (count % n);
	is_root = rank == root;
	if (!reduce)
		o = O_SUM;
	for (seed = 1; seed <= 2; seed++) {
		for (i = 0; i < count; i++) {
			put(ty, send, i, input(ty, o, rank, i, seed));
			put(ty, recv, i, -1);
		}
		/* the broadcast's data is the root's */
		if (!reduce && !is_root)
			memcpy(send, recv, bytes);
		if (in_place && reduce && (call < C_REDUCE || is_root))
			memcpy(recv, send, bytes);
		const void *sb = in_place && reduce &&
				 (call < C_REDUCE || is_root) ?
				 MPI_IN_PLACE : send;
		void *bb = is_root ? send : recv;

		switch (call) {
		case C_ALLREDUCE:
			MPI_Allreduce(sb, recv, count, ty->t, mpi_op(o), comm);
			break;
		case C_IALLREDUCE:
			MPI_Iallreduce(sb, recv, count, ty->t, mpi_op(o), comm,
				       &req);
			MPI_Wait(&req, MPI_STATUS_IGNORE);
			break;
		case C_ALLREDUCE_INIT:
			if (seed == 1)
				MPI_Allreduce_init(sb, recv, count, ty->t,
						   mpi_op(o), comm,
						   MPI_INFO_NULL, &req);
			MPI_Start(&req);
			MPI_Wait(&req, MPI_STATUS_IGNORE);
			break;
		case C_REDUCE:
			MPI_Reduce(sb, recv, count, ty->t, mpi_op(o), root,
				   comm);
			break;
		case C_IREDUCE:
			MPI_Ireduce(sb, recv, count, ty->t, mpi_op(o), root,
				    comm, &req);
			MPI_Wait(&req, MPI_STATUS_IGNORE);
			break;
		case C_REDUCE_INIT:
			if (seed == 1)
				MPI_Reduce_init(sb, recv, count, ty->t,
						mpi_op(o), root, comm,
						MPI_INFO_NULL, &req);
			MPI_Start(&req);
			MPI_Wait(&req, MPI_STATUS_IGNORE);
			break;
		case C_BCAST:
			MPI_Bcast(bb, count, ty->t, root, comm);
			break;
		case C_IBCAST:
			MPI_Ibcast(bb, count, ty->t, root, comm, &req);
			MPI_Wait(&req, MPI_STATUS_IGNORE);
			break;
		case C_BCAST_INIT:
			if (seed == 1)
				MPI_Bcast_init(bb, count, ty->t, root, comm,
					       MPI_INFO_NULL, &req);
			MPI_Start(&req);
			MPI_Wait(&req, MPI_STATUS_IGNORE);
			break;
		default:
			break;
		}
		defined = !rooted || call >= C_BCAST || is_root;
		if (!defined)
			continue;
		for (i = 0; i < count; i++) {
			double want = reduce ?
				reference(ty, o, n, i, seed) :
				input(ty, o, root, i, seed), got;
			if (!reduce && is_root)
				break;	/* the root's own buffer */
			got = get(ty, recv, i);
			if (ty->kind == K_FLOAT && g_inexact)
				continue;
			if (ty->kind == K_FLOAT && ty->size == 4)
				want = (float)want;
			if (got != want && !bad++)
				fprintf(stderr,
					"rank %d: %s %s %s %s count %ld%s: element %ld is %g, want %g\n",
					g_wrank, cname, call_names[call],
					ty->name, op_names[o], count,
					in_place ? " in place" : "", i, got,
					want);
		}
		if (g_out)
			fprintf(g_out, "%s %s %s %s %ld %d seed %d %016llx\n",
				cname, call_names[call], ty->name, op_names[o],
				count, in_place, seed,
				(unsigned long long)digest(!reduce && is_root ?
							   send : recv, bytes));
	}
	if (req != MPI_REQUEST_NULL)
		MPI_Request_free(&req);
	g_cases++;
	g_failed += bad != 0;
	free(send);
	free(recv);
}

/* Every call, type, op and size on @comm. */
static void run_matrix(MPI_Comm comm, const char *cname)
{
	static const long counts[] = { 1, 1037 };
	static const long big[] = { 32768, 131072 };	/* 256 KiB, 1 MiB of doubles */
	int c, t, o, k, ip = 0;

	if (g_light) {
		for (c = 0; c < C_N; c++)
			run_case(comm, cname, c, &types[9], O_SUM, 1037,
				 c < C_BCAST && c % 2);
		run_case(comm, cname, C_ALLREDUCE, &types[4], O_MAX, 1, 0);
		run_case(comm, cname, C_ALLREDUCE, &types[9], O_SUM, big[1], 0);
		return;
	}
	/* Allreduce: every type, op and both small sizes */
	for (t = 0; t < NTYPES; t++)
		for (o = 0; o < O_N; o++)
			for (k = 0; k < 2; k++) {
				if (types[t].kind == K_FLOAT && o >= O_BAND)
					continue;
				if (t >= NPRIMARY && (o != O_SUM || k))
					continue;
				run_case(comm, cname, C_ALLREDUCE, &types[t],
					 o, counts[k], ip++ % 3 == 0);
			}
	/* the other calls: every type with SUM, every op with int and double */
	for (c = C_IALLREDUCE; c < C_N; c++) {
		for (t = 0; t < NPRIMARY; t++)
			run_case(comm, cname, c, &types[t], O_SUM, 1037,
				 c < C_BCAST && ip++ % 3 == 0);
		for (o = 1; c < C_BCAST && o < O_N; o++) {
			run_case(comm, cname, c, &types[4], o, 1037, 0);
			if (o < O_BAND)
				run_case(comm, cname, c, &types[9], o, 1, 1);
		}
		for (k = 0; k < 2; k++)
			run_case(comm, cname, c, &types[9], O_SUM, big[k], k);
	}
	run_case(comm, cname, C_ALLREDUCE, &types[9], O_SUM, big[1], 0);
}

static MPI_Datatype g_vec;	/* 4 ints, every other one */

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *t)
{
	int i, n = *t == g_vec ? *len * 4 : *len, stride = *t == g_vec ? 2 : 1;

	for (i = 0; i < n; i++)
		((int *)inout)[i * stride] += ((int *)in)[i * stride];
}

static void expect_int(const char *what, int got, int want)
{
	g_cases++;
	if (got != want) {
		g_failed++;
		fprintf(stderr, "rank %d: %s: %d, want %d\n", g_wrank, what,
			got, want);
	}
}

/*
 * An offloaded persistent Allreduce, freed, then one MPICH runs (a user
 * op), twice.  The second hung in MPICH 4.0.2 when libthmpi's handles were
 * persistent sends to MPI_PROC_NULL: freeing one breaks every persistent
 * collective MPICH runs after it.
 */
static void run_persistent_then_mpich(MPI_Comm comm)
{
	int x, y, n, k;
	MPI_Request req;
	MPI_Op op;

	MPI_Comm_size(comm, &n);
	MPI_Op_create(user_sum, 1, &op);
	for (k = 0; k < 2; k++) {
		x = g_wrank + k;
		MPI_Allreduce_init(&x, &y, 1, MPI_INT, MPI_SUM, comm,
				   MPI_INFO_NULL, &req);
		MPI_Start(&req);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		MPI_Request_free(&req);
		expect_int("persistent sum, offloaded", y, n * (n - 1) / 2 + n * k);
		MPI_Allreduce_init(&x, &y, 1, MPI_INT, op, comm,
				   MPI_INFO_NULL, &req);
		MPI_Start(&req);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		MPI_Request_free(&req);
		expect_int("persistent user op after it, MPICH's", y,
			   n * (n - 1) / 2 + n * k);
	}
	MPI_Op_free(&op);
}

/* What libthmpi must leave to MPICH: each still gives the right answer. */
static void run_fallthrough(MPI_Comm world)
{
	int rank, n, i, x, y, v[8], w[8], color;
	struct { double d; int i; } dl, dr;
	long double ld, ldr;
	MPI_Datatype vec;
	MPI_Comm half, inter;
	MPI_Op op;

	MPI_Comm_rank(world, &rank);
	MPI_Comm_size(world, &n);
	x = rank + 1;
	MPI_Op_create(user_sum, 1, &op);
	MPI_Allreduce(&x, &y, 1, MPI_INT, op, world);
	expect_int("user-defined op", y, n * (n + 1) / 2);

	MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_LAND, world);
	expect_int("MPI_LAND", y, 1);

	dl.d = rank;
	dl.i = rank;
	MPI_Allreduce(&dl, &dr, 1, MPI_DOUBLE_INT, MPI_MAXLOC, world);
	expect_int("MPI_MAXLOC", dr.i, n - 1);

	/* a strided type: every other int of v */
	MPI_Type_vector(4, 1, 2, MPI_INT, &vec);
	MPI_Type_commit(&vec);
	g_vec = vec;
	for (i = 0; i < 8; i++)
		v[i] = rank + i, w[i] = -1;
	MPI_Allreduce(v, w, 1, vec, op, world);
	expect_int("vector type, element 2", w[2], n * (n - 1) / 2 + 2 * n);
	expect_int("vector type, hole", w[1], -1);
	MPI_Op_free(&op);

	/* a type the ALU lacks */
	ld = rank + 1;
	MPI_Allreduce(&ld, &ldr, 1, MPI_LONG_DOUBLE, MPI_SUM, world);
	expect_int("MPI_LONG_DOUBLE", (int)ldr, n * (n + 1) / 2);
	for (i = 0; i < 8; i++)
		v[i] = rank ? -1 : 100 + i;
	MPI_Bcast(v, 1, vec, 0, world);
	expect_int("broadcast of a vector type", v[6], 106);
	expect_int("broadcast of a vector type, hole", v[5], rank ? -1 : 105);
	MPI_Type_free(&vec);

	MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF);
	expect_int("MPI_COMM_SELF", y, x);

	y = 7;
	MPI_Allreduce(&x, &y, 0, MPI_INT, MPI_SUM, world);
	expect_int("count 0", y, 7);

	/* an inter-communicator between the even and the odd ranks */
	if (n >= 2) {
		color = rank % 2;
		MPI_Comm_split(world, color, rank, &half);
		MPI_Intercomm_create(half, 0, world, color ? 0 : 1, 99, &inter);
		MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, inter);
		/* the other group's sum: odd ranks (x even) or even ones */
		for (i = 0, v[0] = 0; i < n; i++)
			if (i % 2 != color)
				v[0] += i + 1;
		expect_int("inter-communicator", y, v[0]);
		MPI_Comm_free(&inter);
		MPI_Comm_free(&half);
	}
}

/*
 * @nreq persistent Allreduces, started together and completed with
 * MPI_Waitall, and (@any) MPI_Waitany, MPI_Testsome and MPI_Testall in
 * turn.  17 is more than libthmpi keeps per communicator by default: the
 * last is MPICH's own, in the same arrays as the offloaded ones.
 * MPICH 4.0.2 itself gets its persistent collectives wrong in these:
 * MPI_Waitany returns the same index again and again (they never turn
 * inactive) and MPI_Testall fails with MPI_ERR_IN_STATUS, so those rounds
 * are run only on request, with the library and as many requests as it
 * offloads.
 */
static void run_persistent_many(MPI_Comm comm, int nreq, bool any)
{
	int x[32], y[32], ind[32], i, k, n, rank, idx, flag, out, left;
	MPI_Request req[32];
	/* real statuses: gcc 12 takes MPI_STATUSES_IGNORE for an overflow */
	MPI_Status st[32];
	char what[64];

	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &n);
	for (i = 0; i < nreq; i++)
		MPI_Allreduce_init(&x[i], &y[i], 1, MPI_INT, MPI_SUM, comm,
				   MPI_INFO_NULL, &req[i]);
	for (k = 0; k < 4; k++) {
		if (!any && k)
			continue;
		for (i = 0; i < nreq; i++) {
			x[i] = rank + i + k;
			y[i] = -1;
		}
		MPI_Startall(nreq, req);
		switch (k) {
		case 0:
			MPI_Waitall(nreq, req, st);
			break;
		case 1:
			for (left = nreq; left; left--) {
				MPI_Waitany(nreq, req, &idx, MPI_STATUS_IGNORE);
				if (idx == MPI_UNDEFINED)
					break;
			}
			expect_int("MPI_Waitany: every request completed", left, 0);
			MPI_Waitany(nreq, req, &idx, MPI_STATUS_IGNORE);
			expect_int("MPI_Waitany: then none active",
				   idx, MPI_UNDEFINED);
			break;
		case 2:
			for (left = nreq; left > 0; left -= out) {
				MPI_Testsome(nreq, req, &out, ind, st);
				if (out == MPI_UNDEFINED)
					break;
			}
			expect_int("MPI_Testsome: every request completed", left, 0);
			break;
		default:
			do
				MPI_Testall(nreq, req, &flag, st);
			while (!flag);
			break;
		}
		for (i = 0; i < nreq; i++) {
			snprintf(what, sizeof(what),
				 "persistent request %d, round %d", i, k);
			expect_int(what, y[i], n * (n - 1) / 2 + n * (i + k));
		}
	}
	for (i = 0; i < nreq; i++)
		MPI_Request_free(&req[i]);
}

/* Allreduces until rank @victim kills itself in round 5. */
static int run_kill(int victim, int rounds)
{
	double a[64], b[64];
	int r, i;

	for (r = 0; r < rounds; r++) {
		for (i = 0; i < 64; i++)
			a[i] = g_wrank + r;
		if (r == 5 && g_wrank == victim) {
			fprintf(stderr, "rank %d: killing myself in round %d\n",
				g_wrank, r);
			raise(SIGKILL);
		}
		MPI_Allreduce(a, b, 64, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	}
	return 0;
}

int main(int argc, char **argv)
{
	int i, n, provided, multiple = 0, victim = -1, rounds = 1000, any = 0;
	const char *out = NULL;
	MPI_Comm split;
	char path[4096];

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--out") && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(argv[i], "--inexact"))
			g_inexact = 1;
		else if (!strcmp(argv[i], "--thread-multiple"))
			multiple = 1;
		else if (!strcmp(argv[i], "--any"))
			any = 1;
		else if (!strcmp(argv[i], "--light"))
			g_light = 1;
		else if (!strcmp(argv[i], "--kill-rank") && i + 1 < argc)
			victim = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			rounds = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: %s [--out FILE] [--inexact] [--thread-multiple] [--any] [--light] [--kill-rank R] [--rounds N]\n",
				argv[0]);
			return 2;
		}
	}
	if (multiple)
		MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	else
		MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &g_wrank);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	if (victim >= 0) {
		run_kill(victim, rounds);
		MPI_Finalize();
		return 0;
	}
	if (out) {
		snprintf(path, sizeof(path), out, g_wrank);
		g_out = fopen(path, "w");
		if (!g_out) {
			perror(path);
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
	}
	run_matrix(MPI_COMM_WORLD, "world");
	if (n >= 4) {
		/* halves, in reverse rank order */
		MPI_Comm_split(MPI_COMM_WORLD, g_wrank % 2, -g_wrank, &split);
		run_matrix(split, g_wrank % 2 ? "odd" : "even");
		MPI_Comm_free(&split);
	}
	run_persistent_then_mpich(MPI_COMM_WORLD);
	if (!g_light) {
		run_fallthrough(MPI_COMM_WORLD);
		run_persistent_many(MPI_COMM_WORLD, 17, 0);
	}
	if (any)
		run_persistent_many(MPI_COMM_WORLD, 4, 1);
	if (g_out)
		fclose(g_out);
	MPI_Allreduce(MPI_IN_PLACE, &g_failed, 1, MPI_INT, MPI_SUM,
		      MPI_COMM_WORLD);
	if (!g_wrank)
		printf("thmpi_check: %d ranks, %d cases per rank, %d wrong\n",
		       n, g_cases, g_failed);
	MPI_Finalize();
	return g_failed ? 1 : 0;
}
