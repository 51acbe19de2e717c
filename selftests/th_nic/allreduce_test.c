// SPDX-License-Identifier: GPL-2.0
/*
 * allreduce_test.c - a 16-node float64 sum allreduce over a 4-nomial tree
 * (root 0; Documentation/collectives.rst), built by hand out of raw chains,
 * one process per node.  After the hosts' starts no host code runs until
 * the completions.  The result must be bit-identical on all 16 to the same
 * tree order evaluated here; the elapsed time is printed, never asserted.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "th_nic_util.h"

#define N		16
#define RADIX		4
#define MAXC		6		/* children of the root */
#define COUNT		1024		/* float64 elements */
#define BYTES		(COUNT * 8)
#define ROUNDS		6		/* round 0 is a warm-up */
#define CT_R		0		/* children's contributions + own start */
#define CT_B		1		/* the result arrived from the parent */

/* ---- the tree ---------------------------------------------------------- */

struct tree {
	int parent[N];
	int nchild[N];
	int child[N][MAXC];
	int slot[N];		/* index among the parent's children */
};

/*
 * The k-nomial tree rooted at 0: a rank's parent clears its lowest
 * non-zero base-k digit; children come in increasing k^i, then j.
 */
static void build_tree(struct tree *t)
{
	int v, j, p;

	memset(t, 0, sizeof(*t));
	for (v = 0; v < N; v++) {
		t->parent[v] = -1;
		for (p = 1; v && p < N; p *= RADIX) {
			if ((v / p) % RADIX) {
				t->parent[v] = v - ((v / p) % RADIX) * p;
				break;
			}
		}
	}
	for (p = 1; p < N; p *= RADIX)
		for (v = 0; v < N; v++)
			for (j = 1; j < RADIX; j++) {
				int c = v + j * p;

				if (c < N && t->parent[c] == v) {
					t->slot[c] = t->nchild[v];
					t->child[v][t->nchild[v]++] = c;
				}
			}
}

static double contribution(int rank, int i)
{
	/* distinct values whose sum depends on the order of evaluation */
	return 1.0 / (3.0 + rank) + (double)i * 1e-3 + (rank % 3) * 1e8;
}

/* The tree's partial sums, evaluated in the ALU's order. */
static double subtree(const struct tree *t, int v, int i)
{
	double acc = contribution(v, i);
	int c;

	for (c = 0; c < t->nchild[v]; c++)
		acc = acc + subtree(t, t->child[v][c], i);
	return acc;
}

/* ---- the shared page --------------------------------------------------- */

struct peer {
	__u32 vport;
	__u64 recv_key;		/* remote write: the result lands here */
	__u64 slot_key;		/* remote write: children's partials */
};

struct shared {
	struct tree t;
	struct peer peer[N];
	pthread_barrier_t bar;
	__u64 start_ns[ROUNDS][N];
	__u64 done_ns[ROUNDS][N];
	int status[N];		/* 0, or the step that failed */
	int bad_element[N];	/* -1 or the first wrong element */
	char why[N][96];
};

static int fail(struct shared *sh, int rank, int step, const char *why)
{
	sh->status[rank] = step;
	snprintf(sh->why[rank], sizeof(sh->why[rank]), "%s", why);
	return step;
}

/*
 * One node's chains for round @r (0-based): thresholds grow each round
 * and counters are never reset, so chains of later rounds can be posted
 * while earlier ones run.
 */
static int post_round(struct shared *sh, int me, struct thn_vport *v,
		      __u32 send_key, __u32 recv_key, __u32 slot_key,
		      __u32 tmp_key, int r)
{
	const struct tree *t = &sh->t;
	int c = t->nchild[me], parent = t->parent[me], i, n = 0;
	struct th_nic_desc d[THN_DEF_CHAIN];
	__u32 keys[TH_NIC_MAX_OPERANDS];
	__u64 offs[TH_NIC_MAX_OPERANDS];

	/* upward: wait for c children + own start, reduce, send up */
	if (c) {
		keys[0] = send_key;
		offs[0] = 0;
		for (i = 0; i < c; i++) {
			keys[i + 1] = slot_key;
			offs[i + 1] = (__u64)i * BYTES;
		}
		d[n++] = thn_reduce(TH_NIC_ALU_SUM, TH_NIC_DT_FLOAT64, COUNT,
				    parent < 0 ? recv_key : tmp_key, 0, c + 1,
				    keys, offs);
	}
	if (parent >= 0) {
		const struct peer *p = &sh->peer[parent];

		d[n++] = thn_put_ct(c ? tmp_key : send_key, 0, parent, p->vport,
				    p->slot_key, (__u64)t->slot[me] * BYTES,
				    BYTES, CT_R);
	} else {
		/* the root: the result goes down at once */
		for (i = 0; i < c; i++) {
			int ch = t->child[me][i];

			d[n++] = thn_put_ct(recv_key, 0, ch, sh->peer[ch].vport,
					    sh->peer[ch].recv_key, 0, BYTES,
					    CT_B);
		}
		d[n++] = thn_notify(r);
	}
	thn_link(d, n);
	thn_trigger(&d[0], CT_R, (__u64)(c + 1) * (r + 1), 1000 + r);
	if (thn_post(v, d, n, NULL))
		return -1;
	if (parent < 0)
		return 0;

	/* downward: forward the result to the children, then complete */
	n = 0;
	for (i = 0; i < c; i++) {
		int ch = t->child[me][i];

		d[n++] = thn_put_ct(recv_key, 0, ch, sh->peer[ch].vport,
				    sh->peer[ch].recv_key, 0, BYTES, CT_B);
	}
	d[n++] = thn_notify(r);
	thn_link(d, n);
	thn_trigger(&d[0], CT_B, r + 1, 2000 + r);
	return thn_post(v, d, n, NULL) ? -1 : 0;
}

static int run_rank(struct shared *sh, int me)
{
	double *send = thn_alloc(BYTES), *recv = thn_alloc(BYTES);
	double *slots = thn_alloc((size_t)MAXC * BYTES);
	double *tmp = thn_alloc(BYTES);
	struct thn_key send_key, recv_key, slot_key, tmp_key;
	struct pollfd pfd;
	struct thn_vport v;
	struct th_nic_cqe cqe;
	int fd, r, i;

	if (!send || !recv || !slots || !tmp)
		return fail(sh, me, 1, "alloc");
	fd = thn_open(me);
	if (fd < 0 || thn_vport_open(fd, 0, 0, &v))
		return fail(sh, me, 2, "open/vport");
	for (i = 0; i < COUNT; i++)
		send[i] = contribution(me, i);
	if (thn_mr_reg(&v, send, BYTES, 0, &send_key) ||
	    thn_mr_reg(&v, recv, BYTES, TH_NIC_ACCESS_LOCAL_WRITE |
		       TH_NIC_ACCESS_REMOTE_WRITE, &recv_key) ||
	    thn_mr_reg(&v, slots, (size_t)MAXC * BYTES,
		       TH_NIC_ACCESS_REMOTE_WRITE, &slot_key) ||
	    thn_mr_reg(&v, tmp, BYTES, TH_NIC_ACCESS_LOCAL_WRITE, &tmp_key))
		return fail(sh, me, 3, "MR_REG");
	sh->peer[me].vport = v.id;
	sh->peer[me].recv_key = recv_key.r;
	sh->peer[me].slot_key = slot_key.r;
	pthread_barrier_wait(&sh->bar);		/* every key published */

	pfd.fd = fd;
	pfd.events = POLLIN;
	for (r = 0; r < ROUNDS; r++) {
		memset(recv, 0, BYTES);
		if (post_round(sh, me, &v, send_key.l, recv_key.l, slot_key.l,
			       tmp_key.l, r))
			return fail(sh, me, 4, "posting the chains");
		pthread_barrier_wait(&sh->bar);	/* every chain posted */
		sh->start_ns[r][me] = thn_now_ns();
		if (thn_ct_inc(&v, CT_R, 1))
			return fail(sh, me, 5, "CT_INC start");
		/* the host only waits now */
		while (!thn_cq_drain(&v, &cqe, 1)) {
			if (thn_now_ns() - sh->start_ns[r][me] >
			    10000000000ULL)
				return fail(sh, me, 6, "no completion in 10 s");
			poll(&pfd, 1, 100);
		}
		sh->done_ns[r][me] = thn_now_ns();
		if (cqe.status || cqe.imm != (__u64)r)
			return fail(sh, me, 7, "bad completion entry");
		sh->bad_element[me] = -1;
		for (i = 0; i < COUNT; i++) {
			double want = subtree(&sh->t, 0, i);

			if (memcmp(&want, &recv[i], 8)) {
				sh->bad_element[me] = i;
				return fail(sh, me, 8, "result differs");
			}
		}
		/* nobody starts the next round before everyone checked */
		pthread_barrier_wait(&sh->bar);
	}
	close(fd);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

TEST(tree_shape)
{
	static const int root_children[] = { 1, 2, 3, 4, 8, 12 };
	struct tree t;
	int i;

	build_tree(&t);
	ASSERT_EQ(-1, t.parent[0]);
	ASSERT_EQ(6, t.nchild[0]);
	for (i = 0; i < 6; i++)
		EXPECT_EQ(root_children[i], t.child[0][i]);
	for (i = 4; i < N; i += 4) {
		EXPECT_EQ(3, t.nchild[i]);
		EXPECT_EQ(0, t.parent[i]);
		EXPECT_EQ(i + 1, t.child[i][0]);
		EXPECT_EQ(i + 3, t.child[i][2]);
	}
	for (i = 1; i < N; i++)
		if (i % 4)
			EXPECT_EQ(0, t.nchild[i]);
	EXPECT_EQ(4, t.parent[7]);
	EXPECT_EQ(12, t.parent[13]);
	EXPECT_EQ(4, t.slot[8]);
}

FIXTURE(ar) {
	struct shared *sh;
	pid_t pid[N];
};

FIXTURE_SETUP(ar)
{
	pthread_barrierattr_t a;

	self->sh = thn_shared(sizeof(*self->sh));
	ASSERT_NE(NULL, self->sh);
	build_tree(&self->sh->t);
	ASSERT_EQ(0, pthread_barrierattr_init(&a));
	ASSERT_EQ(0, pthread_barrierattr_setpshared(&a, PTHREAD_PROCESS_SHARED));
	ASSERT_EQ(0, pthread_barrier_init(&self->sh->bar, &a, N));
}

FIXTURE_TEARDOWN(ar)
{
}

TEST_F_TIMEOUT(ar, sixteen_nodes_4nomial_float64_sum, 120)
{
	struct shared *sh = self->sh;
	__u64 lat[ROUNDS - 1], tail[ROUNDS - 1], first, last, last_start;
	__u64 deadline;
	int i, r, status, left = N;

	for (i = 0; i < N; i++) {
		self->pid[i] = fork();
		ASSERT_LE(0, self->pid[i]);
		if (!self->pid[i])
			_exit(run_rank(sh, i));
	}
	/* a rank that fails leaves the others at a barrier: kill them all */
	deadline = thn_now_ns() + 100000000000ULL;
	while (left) {
		pid_t p = waitpid(-1, &status, WNOHANG);

		if (p > 0) {
			left--;
			if (!WIFEXITED(status) || WEXITSTATUS(status))
				break;
			continue;
		}
		if (thn_now_ns() > deadline)
			break;
		thn_sleep_us(10000);
	}
	if (left) {
		for (i = 0; i < N; i++)
			kill(self->pid[i], SIGKILL);
		while (waitpid(-1, &status, 0) > 0)
			;
	}
	for (i = 0; i < N; i++) {
		EXPECT_EQ(0, sh->status[i])
			TH_LOG("rank %d: step %d: %s (element %d)", i,
			       sh->status[i], sh->why[i], sh->bad_element[i]);
	}
	ASSERT_EQ(0, left) TH_LOG("ranks did not finish");

	/*
	 * Per round: first start to last completion (the figure), and the
	 * part after the last start, when only the NIC and wake-ups remain.
	 */
	for (r = 1; r < ROUNDS; r++) {
		first = ~0ULL;
		last_start = 0;
		last = 0;
		for (i = 0; i < N; i++) {
			if (sh->start_ns[r][i] < first)
				first = sh->start_ns[r][i];
			if (sh->start_ns[r][i] > last_start)
				last_start = sh->start_ns[r][i];
			if (sh->done_ns[r][i] > last)
				last = sh->done_ns[r][i];
		}
		lat[r - 1] = last - first;
		tail[r - 1] = last - last_start;
	}
	qsort(lat, ROUNDS - 1, sizeof(lat[0]), cmp_u64);
	qsort(tail, ROUNDS - 1, sizeof(tail[0]), cmp_u64);
	thn_msg("allreduce: 16 nodes, 4-nomial, %d x float64 sum, %d rounds: median %.1f us, min %.1f us, max %.1f us (first start to last completion)\n",
		COUNT, ROUNDS - 1, lat[(ROUNDS - 1) / 2] / 1e3, lat[0] / 1e3,
		lat[ROUNDS - 2] / 1e3);
	thn_msg("allreduce: of which after the last host's start: median %.1f us\n",
		tail[(ROUNDS - 1) / 2] / 1e3);
}

TEST_HARNESS_MAIN
