// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * ofi_rank.c - the two ranks of one ofi provider case, run by test_ofi as
 * `thrun -n 2 --provider ofi ofi_rank CASE`: rank 0 initiates, rank 1 is
 * the target, and both check what they see.  Exit status 0 when the case
 * held on this rank; otherwise 1, with a line on stderr saying what did
 * not.  Each rank hosts its own node (rank r: node r).
 *
 * The PUT, GET and shm_private cases also run in pairs on more ranks,
 * each pair at once: with OFI_PEER_XOR=K, rank r's partner is r ^ K, and the lower of
 * the two initiates (test_netns.sh: the pairs on one host, or across).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include <thverbs/boot.h>
#include <thverbs/coll.h>
#include <thverbs/verbs.h>

#include "proc_sockets.h"

#define BIG		(1u << 20)	/* past the eager limit: RMA */
#define SMALL		64
/* eager, but past what a message built on the stack carries (injected) */
#define EAGER_MID	2048
#define TH_PAIRS_MAX	16	/* ranks, with OFI_PEER_XOR */
#define SEC		1000000000ULL
#define CT_DATA		1	/* the target's: deliveries arrived */
#define CT_DONE		2	/* the initiator's: its chain's end */
#define CT_NEVER	3	/* a trigger nobody advances */
#define CT_TRIG		4	/* the initiator's: triggers it advances */
#define CT_FAILS	5	/* the initiator's: a trigger it fails */
#define CT_GONE		6	/* the target's: a cancelled chain's */
#define CT_Q		7	/* the initiator's: a trigger it advances late */
#define CT_QGONE	8	/* the target's: the withdrawn chain's */

static int g_rank;
/* this rank's partner, and its part: 0 initiates, 1 is the target */
static int g_peer = 1;
static int g_role;
static const char *g_case;

static int fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ofi_rank %d (%s): ", g_rank, g_case);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

struct rank_env {
	struct th_boot *boot;
	struct th_context *ctx;
	struct th_vport *vp;
	struct th_mr *mr;
	uint8_t *buf;
	struct th_remote peer;	/* the other rank's window */
};

static uint8_t pattern(size_t i, unsigned int salt)
{
	return (uint8_t)(i * 7 + salt * 13 + 1);
}

/*
 * Each rank's partner: rank 1 of 2, or with OFI_PEER_XOR, rank ^ K of up
 * to TH_PAIRS_MAX, for the cases that run in pairs (the others keep to 2).
 */
static int pairs(int size)
{
	const char *xor = getenv("OFI_PEER_XOR");
	int k = xor ? atoi(xor) : 0;

	if (!xor) {
		g_peer = !g_rank;
		g_role = g_rank;
		return size == 2 ? 0 : fail("needs 2 ranks");
	}
	if (strcmp(g_case, "put") && strcmp(g_case, "put_rma") &&
	    strcmp(g_case, "get") && strcmp(g_case, "get_rma") &&
	    strcmp(g_case, "shm_private"))
		return fail("OFI_PEER_XOR: only the PUT, GET and shm_private cases run in pairs");
	if (k < 1 || size > TH_PAIRS_MAX || (g_rank ^ k) >= size)
		return fail("OFI_PEER_XOR=%s does not pair %d ranks", xor, size);
	g_peer = g_rank ^ k;
	g_role = g_rank > g_peer;
	return 0;
}

static int setup(struct rank_env *e, struct th_domain *dom)
{
	struct th_vport_attr va = { .sq_entries = 64, .cq_entries = 64,
				    .domain = dom };
	struct th_remote mine, all[TH_PAIRS_MAX];
	struct th_device **devs;
	int n;

	devs = th_device_list_get("ofi", &n);
	if (!devs || n != th_boot_size(e->boot))
		return fail("device list: %s", strerror(errno));
	e->ctx = th_device_open(devs[g_rank]);
	th_device_list_free(devs);
	if (!e->ctx)
		return fail("open: %s", strerror(errno));
	e->vp = th_vport_create(e->ctx, &va);
	e->buf = calloc(1, BIG);
	e->mr = e->vp && e->buf ?
		th_mr_reg(e->vp, e->buf, BIG, TH_NIC_ACCESS_LOCAL_WRITE |
			  TH_NIC_ACCESS_REMOTE_WRITE | TH_NIC_ACCESS_REMOTE_READ) :
		NULL;
	if (!e->mr)
		return fail("vport or MR: %s", strerror(errno));
	mine.node = g_rank;
	mine.vport = th_vport_index(e->vp);
	mine.rkey = th_mr_rkey(e->mr);
	mine.off = 0;
	if (th_boot_allgather(e->boot, &mine, all, sizeof(mine)))
		return fail("allgather: %s", strerror(errno));
	e->peer = all[g_peer];
	return 0;
}

/* Post one descriptor-building chain @c on @vp, signalled; 0 or -errno. */
static int post(struct rank_env *e, struct th_chain *c)
{
	int ret = th_post_chain(e->vp, c);

	th_chain_destroy(c);
	return ret;
}

/* The status of the next CQ entry, within 20 s. */
static int cq_status(struct rank_env *e, int *status)
{
	struct th_nic_cqe cqe;
	int i;

	for (i = 0; i < 20000; i++) {
		if (th_poll_cq(e->vp, &cqe, 1) == 1) {
			*status = cqe.status;
			return 0;
		}
		usleep(1000);
	}
	return -ETIMEDOUT;
}

/* Post @c and wait for its CQ entry: 0 if its status is @want. */
static int post_expect(struct rank_env *e, struct th_chain *c, int want)
{
	int status, ret = post(e, c);

	if (ret)
		return fail("post: %s", strerror(-ret));
	if (cq_status(e, &status))
		return fail("no completion");
	if (status != want)
		return fail("completion %d, want %d", status, want);
	return 0;
}

/*
 * The initiator writes @len bytes to its partner with CT_DATA, or reads
 * them (@get); the partner checks what it got.
 */
static int case_put(struct rank_env *e, size_t len, bool get)
{
	struct th_chain *c;
	int ret;
	size_t i;

	if (g_role == 1) {
		for (i = 0; i < len; i++)
			e->buf[i] = pattern(i, 2);
		if (th_boot_barrier(e->boot))
			return fail("barrier");
		if (get)
			return th_boot_barrier(e->boot) ? fail("barrier") : 0;
		ret = th_ct_wait(e->vp, CT_DATA, 1, 20 * SEC);
		if (ret)
			return fail("counter: %s", strerror(-ret));
		for (i = 0; i < len; i++)
			if (e->buf[i] != pattern(i, 1))
				return fail("byte %zu is %u", i, e->buf[i]);
		return th_boot_barrier(e->boot) ? fail("barrier") : 0;
	}
	for (i = 0; i < len; i++)
		e->buf[i] = pattern(i, 1);
	if (th_boot_barrier(e->boot))
		return fail("barrier");
	c = th_chain_create();
	if (get)
		th_chain_get(c, e->mr, 0, &e->peer, len, TH_CHAIN_SIGNAL);
	else
		th_chain_put(c, e->mr, 0, &e->peer, len, CT_DATA,
			     TH_CHAIN_SIGNAL);
	if (post_expect(e, c, 0))
		return 1;
	if (get)
		for (i = 0; i < len; i++)
			if (e->buf[i] != pattern(i, 2))
				return fail("got byte %zu = %u", i, e->buf[i]);
	return th_boot_barrier(e->boot) ? fail("barrier") : 0;
}

/*
 * @leave: rank 1 exits the moment its data is there, without a final
 * barrier: its answer must still reach rank 0 (the provider lets it leave
 * at exit), whose chain completes with success.
 */
static int case_inline(struct rank_env *e, bool leave)
{
	static const char msg[] = "twenty-four bytes inline";
	struct th_chain *c;
	int ret;

	if (g_rank == 1) {
		ret = th_ct_wait(e->vp, CT_DATA, 1, 20 * SEC);
		if (ret)
			return fail("counter: %s", strerror(-ret));
		if (memcmp(e->buf, msg, 24))
			return fail("inline bytes differ");
		if (leave)
			exit(0);
		return th_boot_barrier(e->boot) ? fail("barrier") : 0;
	}
	c = th_chain_create();
	th_chain_write_inline_remote(c, &e->peer, msg, 24, CT_DATA,
				     TH_CHAIN_SIGNAL);
	if (post_expect(e, c, 0))
		return 1;
	if (leave)
		return 0;
	return th_boot_barrier(e->boot) ? fail("barrier") : 0;
}

/*
 * After a violation, a new vport of the same rank asks with the right key:
 * the target refuses it (-EACCES) without looking, so that a rank cannot
 * probe keys one vport at a time.
 */
static int refused_after_violation(struct rank_env *e)
{
	struct th_vport_attr va = { .sq_entries = 64, .cq_entries = 64 };
	struct th_vport *vp = th_vport_create(e->ctx, &va);
	struct th_mr *mr = vp ? th_mr_reg(vp, e->buf, SMALL,
					  TH_NIC_ACCESS_LOCAL_WRITE) : NULL;
	struct rank_env e2 = *e;
	struct th_chain *c;
	int ret;

	if (!mr)
		return fail("second vport: %s", strerror(errno));
	e2.vp = vp;
	c = th_chain_create();
	th_chain_put(c, mr, 0, &e->peer, SMALL, TH_NO_CT, TH_CHAIN_SIGNAL);
	ret = post_expect(&e2, c, -EACCES);
	th_mr_dereg(mr);
	th_vport_destroy(vp);
	return ret;
}

/*
 * A wrong key or range (@kind 0, 1) is the initiator's violation: its
 * chain fails with the error, its vport enters the error state, the
 * target's bytes stay as they were.  An absent vport (@kind 2) is
 * -ECONNREFUSED and no violation.
 */
static int case_refused(struct rank_env *e, int kind)
{
	static const int want[] = { -EACCES, -ERANGE, -ECONNREFUSED };
	struct th_remote to = e->peer;
	uint64_t len = SMALL;
	struct th_chain *c;
	int status, ret;
	size_t i;

	if (g_rank == 1) {
		if (th_boot_barrier(e->boot))
			return fail("barrier");
		for (i = 0; i < BIG; i++)
			if (e->buf[i])
				return fail("byte %zu written", i);
		return 0;
	}
	memset(e->buf, 0xab, BIG);
	if (kind == 0)
		to.rkey ^= 0x10;
	else if (kind == 1)
		to.off = BIG - 8;
	else
		to.vport = 60;
	for (i = 0; i < 2; i++) {	/* eager, then RMA */
		c = th_chain_create();
		th_chain_put(c, e->mr, 0, &to, len, CT_DATA, TH_CHAIN_SIGNAL);
		ret = post(e, c);
		if (kind < 2 && i == 1) {
			/* the first violation put the vport in the error state */
			if (ret != -ENOTCONN)
				return fail("post after a violation: %d", ret);
			/* and the target refuses this rank unchecked from now on */
			if (refused_after_violation(e))
				return 1;
			break;
		}
		if (ret)
			return fail("post: %s", strerror(-ret));
		if (cq_status(e, &status))
			return fail("no completion");
		if (status != want[kind])
			return fail("status %d, want %d", status, want[kind]);
		len = BIG / 2;
	}
	return th_boot_barrier(e->boot) ? fail("barrier") : 0;
}

/*
 * Rank 1 posts a chain that would advance rank 0's CT_DATA but waits on a
 * counter nobody moves, then dies: rank 0's counter fails instead of
 * hanging, and a delivery to the dead rank ends -ECONNREFUSED.
 */
static int case_peer_dies(struct rank_env *e)
{
	struct th_chain *c;
	int ret;

	if (g_rank == 1) {
		c = th_chain_create();
		th_chain_trigger(c, CT_NEVER, 1, 7);
		th_chain_put(c, e->mr, 0, &e->peer, SMALL, CT_DATA, 0);
		ret = post(e, c);
		if (ret)
			return fail("post: %s", strerror(-ret));
		/* the WATCH is on its way; let it land before dying */
		usleep(300000);
		th_boot_barrier(e->boot);
		_exit(0);
	}
	if (th_boot_barrier(e->boot))
		return fail("barrier");
	ret = th_ct_wait(e->vp, CT_DATA, 1, 20 * SEC);
	if (ret != -EIO)
		return fail("waiting on a dead rank's counter: %d, want -EIO",
			    ret);
	c = th_chain_create();
	th_chain_put(c, e->mr, 0, &e->peer, SMALL, TH_NO_CT, TH_CHAIN_SIGNAL);
	if (post_expect(e, c, -ECONNREFUSED))
		return 1;
	return 0;
}

/* The 8 bytes at @off of this rank's window, as one number. */
static uint64_t word_at(struct rank_env *e, size_t off)
{
	uint64_t v;

	memcpy(&v, e->buf + off, sizeof(v));
	return v;
}

/* Counter @ct must read exactly @want, no failure. */
static int ct_exact(struct rank_env *e, uint16_t ct, uint64_t want,
		    const char *what)
{
	uint64_t v, f;

	if (th_ct_read(e->vp, ct, &v, &f))
		return fail("%s: read: %s", what, strerror(errno));
	if (v != want || f)
		return fail("%s: counter %llu (failure %llu), want %llu", what,
			    (unsigned long long)v, (unsigned long long)f,
			    (unsigned long long)want);
	return 0;
}

/* PUT the word @v to the partner's window start, raising its CT_DATA. */
static int put_word(struct rank_env *e, uint64_t v)
{
	struct th_chain *c = th_chain_create();

	memcpy(e->buf + 64, &v, sizeof(v));
	th_chain_put(c, e->mr, 64, &e->peer, 8, CT_DATA, 0);
	return post(e, c);
}

#define WAIT_ROUNDS	200
/* triggered rounds posted ahead: within the vport's 64 pending chains */
#define TRIG_ROUNDS	48

/*
 * Waits across the wire give exact answers under the wait policy the job
 * runs with (test_ofi sets TH_WAIT_POLICY): a spinning waiter reads the
 * completion queue itself (the provider's progress op), a passive one
 * sleeps while the progress thread does.  First a host-driven ping-pong:
 * each rank waits for the other's 8-byte PUT of round i, which must carry
 * round i's value and leave the counter at exactly i + 1.  Then the same
 * rounds (TRIG_ROUNDS of them) as triggered chains posted ahead: the
 * counters end at exactly TRIG_ROUNDS + 1 and TRIG_ROUNDS.  A wait for a counter nobody raises times out.
 */
static int case_waits(struct rank_env *e)
{
	uint64_t v, want, to;
	struct th_chain *c;
	int i, ret;

	for (i = 0; i < WAIT_ROUNDS; i++) {
		if (g_rank == 1 || i) {
			/* rank 1 answers round i; rank 0 sees round i - 1's answer */
			to = g_rank ? i + 1 : i;
			ret = th_ct_wait(e->vp, CT_DATA, to, 20 * SEC);
			if (ret)
				return fail("round %d: wait: %s", i, strerror(-ret));
			want = g_rank ? 2 * i + 1 : 2 * (i - 1) + 2;
			if ((v = word_at(e, 0)) != want)
				return fail("round %d: value %llu, want %llu", i,
					    (unsigned long long)v,
					    (unsigned long long)want);
			if (ct_exact(e, CT_DATA, to, "ping-pong"))
				return 1;
		}
		ret = put_word(e, g_rank ? 2 * i + 2 : 2 * i + 1);
		if (ret)
			return fail("round %d: post: %s", i, strerror(-ret));
	}
	if (!g_rank) {
		ret = th_ct_wait(e->vp, CT_DATA, WAIT_ROUNDS, 20 * SEC);
		if (ret || word_at(e, 0) != 2 * WAIT_ROUNDS ||
		    ct_exact(e, CT_DATA, WAIT_ROUNDS, "last answer"))
			return fail("the last answer: %d", ret);
	}

	/* triggered: a's i-th PUT fires on its CT_TRIG reaching i + 1 */
	for (i = 0; i < TRIG_ROUNDS; i++) {
		c = th_chain_create();
		th_chain_trigger(c, CT_TRIG, i + 1, i);
		th_chain_put(c, e->mr, 64, &e->peer, 8, CT_TRIG, 0);
		ret = post(e, c);
		if (ret)
			return fail("chain %d: post: %s", i, strerror(-ret));
	}
	if (th_boot_barrier(e->boot))
		return fail("barrier");
	if (!g_rank)
		th_ct_inc(e->vp, CT_TRIG, 1);
	to = g_rank ? TRIG_ROUNDS : TRIG_ROUNDS + 1;
	ret = th_ct_wait(e->vp, CT_TRIG, to, 20 * SEC);
	if (ret)
		return fail("triggered rounds: wait: %s", strerror(-ret));
	ret = th_ct_wait(e->vp, CT_NEVER, 1, SEC / 5);
	if (ret != -ETIMEDOUT)
		return fail("a counter nobody raises: %d, want -ETIMEDOUT", ret);
	/* every chain ran once: nothing more arrives */
	if (th_boot_barrier(e->boot))
		return fail("barrier");
	return ct_exact(e, CT_TRIG, to, "triggered rounds") ||
	       ct_exact(e, CT_NEVER, 0, "never raised") ||
	       (th_boot_barrier(e->boot) ? fail("barrier") : 0);
}

#define TEST_ROUNDS	50

static int boot_allgather(void *arg, const void *mine, void *all, size_t len)
{
	return th_boot_allgather(arg, mine, all, len);
}

/*
 * Ask @test(@arg), a wait with no time left, again (yielding between)
 * until it says something other than -ETIMEDOUT, for at most 20 s.
 */
static int until_done(int (*test)(void *arg), void *arg)
{
	struct timespec t0, t;
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		ret = test(arg);
		if (ret != -ETIMEDOUT)
			return ret;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 20)
			return ret;
		sched_yield();
	}
}

static int coll_test_once(void *coll)
{
	return th_coll_wait(coll, 0);
}

/*
 * An Allreduce of the two ranks whose every wait is a test:
 * th_coll_wait() with no time left, asked again until the round is
 * complete (MPI_Test, and libthmpi's MPI_Wait on a non-blocking
 * collective), never a wait with time to spin or sleep in; each round's
 * sum checked.  test_ofi reads in the exit reports (TH_OFI_VERBOSE) who
 * read the completion queue: where waiters may watch, the tests did.
 */
static int case_coll_tests(struct rank_env *e)
{
	static uint64_t send __attribute__((aligned(64)));
	static uint64_t recv __attribute__((aligned(64)));
	struct th_coll_attr a = {
		.kind = TH_COLL_ALLREDUCE, .op = TH_NIC_ALU_SUM,
		.dtype = TH_NIC_DT_UINT64, .count = 1, .radix = 2,
	};
	struct th_coll *coll;
	int i, ret = 0;

	coll = th_coll_create(e->vp, g_rank, 2, boot_allgather, e->boot, &a,
			      &send, &recv);
	if (!coll)
		return fail("th_coll_create: %s", strerror(errno));
	for (i = 0; !ret && i < TEST_ROUNDS; i++) {
		send = (uint64_t)(g_rank + 1) * (i + 1);
		ret = th_coll_start(coll);
		if (ret) {
			ret = fail("round %d: start: %s", i, strerror(-ret));
			break;
		}
		ret = until_done(coll_test_once, coll);
		if (ret)
			ret = fail("round %d: %s", i, strerror(-ret));
		else if (recv != 3ULL * (i + 1))
			ret = fail("round %d: sum %llu, want %llu", i,
				   (unsigned long long)recv,
				   3ULL * (i + 1));
	}
	th_coll_destroy(coll);
	return ret;
}

/* past the eager size: the root's PUT goes by RESOLVE and RMA */
#define BYTES_OUT_WORDS	(8 * 1024)

/* Round @i's Broadcast data: each word says its round and its place. */
static void round_fill(uint64_t *w, int i)
{
	int j;

	for (j = 0; j < BYTES_OUT_WORDS; j++)
		w[j] = (uint64_t)i << 32 | j;
}

/* @w must hold round @i's data (round_fill()). */
static int round_check(const uint64_t *w, int i)
{
	int j;

	for (j = 0; j < BYTES_OUT_WORDS; j++)
		if (w[j] != ((uint64_t)i << 32 | j))
			return fail("round %d: word %d: %llx", i, j,
				    (unsigned long long)w[j]);
	return 0;
}

/*
 * The root's round of a Broadcast ends once its copy is made and its PUT
 * to the child issued; a PUT past the eager size still needs the root's
 * host (the RESOLVED answer, the RMA), and where waiters may watch, the
 * root's wait moves those bytes before it returns.  Rank 0 (the root,
 * under spin) waits for each round, by a blocking wait and by tests in
 * turn, and then PUTs the round's number to rank 1, which (under
 * passive, so that its own look drives nothing) waits for that word and
 * must then find its round complete and the data in place without any
 * further help: its counter rose before its DONE went to the root.
 */
static int case_coll_bytes_out(struct rank_env *e)
{
	static uint64_t send[BYTES_OUT_WORDS] __attribute__((aligned(64)));
	static uint64_t recv[BYTES_OUT_WORDS] __attribute__((aligned(64)));
	struct th_coll_attr a = {
		.kind = TH_COLL_BCAST, .dtype = TH_NIC_DT_UINT64,
		.count = BYTES_OUT_WORDS, .radix = 2,
	};
	struct th_coll *coll;
	int i, ret;

	ret = th_wait_policy_set(g_rank ? TH_WAIT_PASSIVE : TH_WAIT_SPIN, 0);
	if (ret)
		return fail("wait policy: %s", strerror(-ret));
	coll = th_coll_create(e->vp, g_rank, 2, boot_allgather, e->boot, &a,
			      send, recv);
	if (!coll)
		return fail("th_coll_create: %s", strerror(errno));
	for (i = 0; !ret && i < TEST_ROUNDS; i++) {
		if (!g_rank)
			round_fill(send, i);
		ret = th_coll_start(coll);
		if (ret) {
			ret = fail("round %d: start: %s", i, strerror(-ret));
			break;
		}
		if (!g_rank) {
			ret = i % 2 ? until_done(coll_test_once, coll) :
			      th_coll_wait(coll, 20 * SEC);
			if (ret)
				ret = fail("round %d: %s", i, strerror(-ret));
			else
				ret = put_word(e, i + 1);
			continue;
		}
		ret = th_ct_wait(e->vp, CT_DATA, i + 1, 20 * SEC);
		if (ret) {
			ret = fail("round %d: the root's word: %s", i,
				   strerror(-ret));
			break;
		}
		ret = th_coll_wait(coll, 0);
		if (ret) {
			ret = fail("round %d: the root's wait returned before its bytes arrived here: %s",
				   i, strerror(-ret));
			break;
		}
		ret = round_check(recv, i);
	}
	th_coll_destroy(coll);
	if (!ret && th_boot_barrier(e->boot))
		ret = fail("barrier");
	return ret;
}

struct ct_test {
	struct rank_env *e;
	uint64_t to;
};

/* One test of CT_DATA against its threshold: th_ct_wait(), no time left. */
static int ct_test_once(void *arg)
{
	struct ct_test *t = arg;

	return th_ct_wait(t->e->vp, CT_DATA, t->to, 0);
}

/*
 * A ping-pong whose every wait is a test (ct_test_once()): rank 0 PUTs
 * round i's value, rank 1 PUTs it back plus one; each checks the value
 * and that its counter is exact once it arrived (before its answer,
 * after which the partner's next PUT may come at any time).  test_ofi
 * reads who read the queue, as for coll_tests.
 */
static int case_ct_tests(struct rank_env *e)
{
	uint64_t v;
	int i, ret, turn;

	for (i = 0; i < TEST_ROUNDS; i++) {
		/* rank 1 waits, then answers; rank 0 sends, then waits */
		for (turn = 0; turn < 2; turn++) {
			if (turn == g_rank) {
				ret = put_word(e, 2ULL * i + 1 + g_rank);
				if (ret)
					return fail("round %d: post: %s", i,
						    strerror(-ret));
				continue;
			}
			ret = until_done(ct_test_once,
					 &(struct ct_test){ e, i + 1 });
			if (ret)
				return fail("round %d: %s", i, strerror(-ret));
			if ((v = word_at(e, 0)) != 2ULL * i + 2 - g_rank)
				return fail("round %d: value %llu, want %llu", i,
					    (unsigned long long)v,
					    2ULL * i + 2 - g_rank);
			/* before the answer: the partner's next PUT follows it */
			if (ct_exact(e, CT_DATA, i + 1, "ping-pong"))
				return 1;
		}
	}
	return th_boot_barrier(e->boot) ? fail("barrier") : 0;
}

#define STREAM_BATCHES	8

/*
 * Wait for counter @ct to reach @to by reading it, 100 us apart, for at
 * most 20 s: no th_ct_wait(), whose spin would drive the completion
 * queue itself.  0, or -ETIMEDOUT.
 */
static int wait_by_reading(struct rank_env *e, uint16_t ct, uint64_t to)
{
	const struct timespec nap = { 0, 100000 };
	uint64_t v, f;
	int i;

	for (i = 0; i < 200000; i++) {
		if (!th_ct_read(e->vp, ct, &v, &f) && (v >= to || f))
			return 0;
		nanosleep(&nap, NULL);
	}
	return -ETIMEDOUT;
}

/*
 * A stream of deliveries that no waiter reads (test_ofi runs it over
 * tcp;ofi_rxm and counts, in the exit reports, how often a message had to
 * wake the progress thread in the queue): STREAM_BATCHES times, TRIG_ROUNDS
 * triggered ping-pong rounds posted ahead, started by rank 0 and waited
 * for as a whole by reading the counter, so that only the progress thread
 * reads the queue; each batch's counters end exact.
 */
static int case_stream(struct rank_env *e)
{
	uint64_t base, to;
	struct th_chain *c;
	int b, i, ret;

	for (b = 0; b < STREAM_BATCHES; b++) {
		base = (uint64_t)b * (TRIG_ROUNDS + !g_rank);
		for (i = 0; i < TRIG_ROUNDS; i++) {
			c = th_chain_create();
			th_chain_trigger(c, CT_TRIG, base + i + 1, i);
			th_chain_put(c, e->mr, 64, &e->peer, 8, CT_TRIG, 0);
			ret = post(e, c);
			if (ret)
				return fail("batch %d chain %d: post: %s", b, i,
					    strerror(-ret));
		}
		if (th_boot_barrier(e->boot))
			return fail("barrier");
		if (!g_rank)
			th_ct_inc(e->vp, CT_TRIG, 1);
		to = base + TRIG_ROUNDS + !g_rank;
		ret = wait_by_reading(e, CT_TRIG, to);
		if (ret)
			return fail("batch %d: wait: %s", b, strerror(-ret));
		/* the peer's last PUT may still be on its way here */
		if (th_boot_barrier(e->boot) || ct_exact(e, CT_TRIG, to, "batch"))
			return 1;
	}
	return 0;
}

/*
 * The link between the ranks goes down under a live job (test_netns.sh
 * cuts it once rank 0 created OFI_CUT_READY, and then creates
 * OFI_CUT_DONE): nothing completes on a dead link, so the delivery ends
 * at its deadline, -ECONNREFUSED.  Rank 1 stays alive meanwhile.
 */
/*
 * shm's doorbell (bell.c): rank 0 waits for one PUT (passive waiters, as
 * test_ofi runs it); rank 1 sends it after 50 ms, long past the 50 us of
 * yields after which rank 0's idle progress thread sleeps on its
 * doorbell.  Rank 0's host sleeps in th_ct_wait(), or with
 * OFI_DOORBELL_POLL=1 reads the counter every millisecond, as a host
 * that computes would: the doorbell then wakes its waiter, or its
 * progress thread.  The bytes and the counter are checked here; who a
 * ring woke, by test_ofi in the exit reports.
 */
static int doorbell_poll(struct rank_env *e)
{
	uint64_t ok = 0, failed = 0;
	int i;

	for (i = 0; i < 20000 && !ok; i++) {
		usleep(1000);
		if (th_ct_read(e->vp, CT_DATA, &ok, &failed))
			return -EIO;
	}
	return ok ? 0 : -ETIMEDOUT;
}

static int case_doorbell(struct rank_env *e)
{
	const char *poll = getenv("OFI_DOORBELL_POLL");
	uint64_t v = 0x5eed0be11ULL;
	struct th_chain *c;
	int ret;

	if (th_boot_barrier(e->boot))
		return fail("barrier");
	if (g_rank) {
		usleep(50000);
		memcpy(e->buf + 64, &v, sizeof(v));
		c = th_chain_create();
		th_chain_put(c, e->mr, 64, &e->peer, 8, CT_DATA, 0);
		ret = post(e, c);
		if (ret)
			return fail("post: %s", strerror(-ret));
	} else {
		if (poll && !strcmp(poll, "1"))
			ret = doorbell_poll(e);
		else
			ret = th_ct_wait(e->vp, CT_DATA, 1, 20 * SEC);
		if (ret)
			return fail("wait: %s", strerror(-ret));
		if (word_at(e, 0) != v)
			return fail("value %llx, want %llx",
				    (unsigned long long)word_at(e, 0),
				    (unsigned long long)v);
		if (ct_exact(e, CT_DATA, 1, "the one PUT"))
			return 1;
	}
	return th_boot_barrier(e->boot) ? fail("barrier") : 0;
}

static int case_link_cut(struct rank_env *e)
{
	const char *ready = getenv("OFI_CUT_READY");
	const char *done = getenv("OFI_CUT_DONE");
	struct th_chain *c;
	int i;
	FILE *f;

	if (!ready || !done)
		return fail("OFI_CUT_READY and OFI_CUT_DONE are needed");
	if (g_rank == 1)
		return th_boot_barrier(e->boot) ? fail("barrier") : 0;
	f = fopen(ready, "w");
	if (!f)
		return fail("%s: %s", ready, strerror(errno));
	fclose(f);
	for (i = 0; i < 200 && access(done, F_OK); i++)
		usleep(100000);
	if (access(done, F_OK))
		return fail("the link was not cut");
	c = th_chain_create();
	th_chain_put(c, e->mr, 0, &e->peer, SMALL, CT_DATA, TH_CHAIN_SIGNAL);
	if (post_expect(e, c, -ECONNREFUSED))
		return 1;
	return th_boot_barrier(e->boot) ? fail("barrier") : 0;
}

/* A vport of another domain reaches nothing in the job's. */
static int case_foreign_domain(struct rank_env *e)
{
	struct rank_env f = { .boot = e->boot };
	struct th_domain *dom;
	struct th_chain *c;

	if (g_rank == 1)
		return th_boot_barrier(e->boot) ? fail("barrier") : 0;
	f.ctx = e->ctx;
	dom = th_domain_alloc(e->ctx);
	if (!dom)
		return fail("domain: %s", strerror(errno));
	f.vp = th_vport_create(e->ctx, &(struct th_vport_attr) {
		.sq_entries = 64, .cq_entries = 64, .domain = dom });
	f.buf = e->buf;
	f.mr = f.vp ? th_mr_reg(f.vp, e->buf, SMALL, 0) : NULL;
	if (!f.mr)
		return fail("vport: %s", strerror(errno));
	c = th_chain_create();
	th_chain_put(c, f.mr, 0, &e->peer, SMALL, CT_DATA, TH_CHAIN_SIGNAL);
	if (post_expect(&f, c, -ECONNREFUSED))
		return 1;
	th_mr_dereg(f.mr);
	th_vport_destroy(f.vp);
	th_domain_dealloc(dom);
	return th_boot_barrier(e->boot) ? fail("barrier") : 0;
}

/* Post a chain writing @msg at @off of the peer (@rct) when @ct reaches @at. */
static int post_inline_at(struct rank_env *e, uint16_t ct, uint64_t at,
			  uint64_t off, const char *msg, int rct)
{
	struct th_remote to = e->peer;
	struct th_chain *c = th_chain_create();

	to.off = off;
	th_chain_trigger(c, ct, at, off);
	th_chain_write_inline_remote(c, &to, msg, 16, rct, TH_CHAIN_SIGNAL);
	return post(e, c);
}

/* Post a PUT of SMALL bytes from @mr at @loff to @off of the peer (@rct) when @ct reaches @at. */
static int post_put_at(struct rank_env *e, const struct th_mr *mr,
		       uint64_t loff, uint16_t ct, uint64_t at, uint64_t off,
		       int rct)
{
	struct th_remote to = e->peer;
	struct th_chain *c = th_chain_create();

	to.off = off;
	th_chain_trigger(c, ct, at, off);
	th_chain_put(c, mr, loff, &to, SMALL, rct, TH_CHAIN_SIGNAL);
	return post(e, c);
}

/* Rank 0's next completion has status @want. */
static int expect_cqe(struct rank_env *e, const char *what, int want)
{
	int status;

	if (cq_status(e, &status))
		return fail("%s: no completion", what);
	if (status != want)
		return fail("%s: completion %d, want %d", what, status, want);
	return 0;
}

/*
 * Chains that begin with a delivery to the other rank, waiting on a counter
 * (test_ofi runs this on the sockets provider with FI_TRIGGER, where they
 * wait in libfabric, and without).  A (WRITE_INLINE) and P (PUT) go when
 * their counter gets there, and not before.  B, cancelled, C, whose counter
 * fails, and Q, whose source region is deregistered, never reach the
 * target, even once their counters pass the threshold; each one's failure
 * travels on to the counter it names there (Documentation/uapi.rst,
 * "Failure propagation"; Q fails with -EACCES when it runs, as on the
 * module).  D, posted last, goes at once and marks the end of what rank 1
 * may receive.  E is still pending when the vport is destroyed at exit,
 * which drops it too.
 */
static int case_triggered(struct rank_env *e)
{
	static const char a[16] = "A: triggered", b[16] = "B: cancelled",
			  c[16] = "C: failed", d[16] = "D: the last";
	static const uint8_t zero[SMALL];
	struct th_mr *qmr;
	uint8_t *qbuf;
	uint64_t v, f;
	size_t i;
	int ret;

	if (g_rank == 1) {
		if (th_boot_barrier(e->boot))
			return fail("barrier");
		/* two of A's and P's three increments done: nothing is here */
		if (th_ct_read(e->vp, CT_DATA, &v, &f) || v || f)
			return fail("data before its trigger (counter %llu)",
				    (unsigned long long)v);
		if (th_boot_barrier(e->boot))
			return fail("barrier");
		ret = th_ct_wait(e->vp, CT_DATA, 3, 20 * SEC);
		if (ret)
			return fail("counter: %s", strerror(-ret));
		if (memcmp(e->buf, a, 16) || memcmp(e->buf + 48, d, 16))
			return fail("A's or D's bytes differ");
		for (i = 0; i < SMALL; i++)
			if (e->buf[256 + i] != pattern(i, 3))
				return fail("P's byte %zu is %u", i, e->buf[256 + i]);
		/* B at 16, C at 32 and Q at 512 must never have come */
		if (memcmp(e->buf + 16, zero, 16) || memcmp(e->buf + 32, zero, 16) ||
		    memcmp(e->buf + 512, zero, SMALL))
			return fail("a dropped chain's bytes arrived");
		if (th_ct_read(e->vp, CT_DATA, &v, &f) || v != 3 || f)
			return fail("counter %llu, want 3", (unsigned long long)v);
		if (th_ct_read(e->vp, CT_NEVER, &v, &f) || v || f != 1 ||
		    th_ct_read(e->vp, CT_GONE, &v, &f) || v || f != 1 ||
		    th_ct_read(e->vp, CT_QGONE, &v, &f) || v || f != 1)
			return fail("B's, C's or Q's counter not failed alone");
		return th_boot_barrier(e->boot) ? fail("barrier") : 0;
	}
	for (i = 0; i < SMALL; i++)
		e->buf[1024 + i] = pattern(i, 3);
	qbuf = malloc(SMALL);
	if (!qbuf)
		return fail("malloc");
	memset(qbuf, 0x99, SMALL);
	qmr = th_mr_reg(e->vp, qbuf, SMALL, 0);
	if (!qmr)
		return fail("MR: %s", strerror(errno));
	if (post_inline_at(e, CT_TRIG, 3, 0, a, CT_DATA) ||
	    post_put_at(e, e->mr, 1024, CT_TRIG, 3, 256, CT_DATA) ||
	    post_inline_at(e, CT_TRIG, 5, 16, b, CT_GONE) ||
	    post_inline_at(e, CT_FAILS, 1, 32, c, CT_NEVER) ||
	    post_put_at(e, qmr, 0, CT_Q, 1, 512, CT_QGONE))
		return fail("post");
	/* Q's source goes: it waits in the engine again, and fails there */
	if (th_mr_dereg(qmr))
		return fail("dereg");
	th_ct_inc(e->vp, CT_Q, 1);
	if (expect_cqe(e, "Q", -EACCES))
		return 1;
	free(qbuf);
	th_ct_inc(e->vp, CT_TRIG, 1);
	th_ct_inc(e->vp, CT_TRIG, 1);
	/* rank 1 looks between the two barriers */
	if (th_boot_barrier(e->boot) || th_boot_barrier(e->boot))
		return fail("barrier");
	th_ct_inc(e->vp, CT_TRIG, 1);
	if (expect_cqe(e, "A", 0) || expect_cqe(e, "P", 0))
		return 1;
	th_ct_fail(e->vp, CT_FAILS, 1);
	if (expect_cqe(e, "C", -EIO))
		return 1;
	if (th_cancel(e->vp, 16) != 1)
		return fail("B: not cancelled");
	if (expect_cqe(e, "B", -ECANCELED))
		return 1;
	/* past both thresholds now: still nothing may go */
	th_ct_inc(e->vp, CT_TRIG, 10);
	th_ct_inc(e->vp, CT_FAILS, 10);
	if (post_inline_at(e, CT_TRIG, 0, 48, d, CT_DATA) ||
	    expect_cqe(e, "D", 0))
		return 1;
	if (post_inline_at(e, CT_TRIG, 100, 64, d, -1))
		return fail("post E");
	return th_boot_barrier(e->boot) ? fail("barrier") : 0;
}

/*
 * The TCP sockets of this process (found by inode through /proc/self/fd in
 * /proc/net/tcp and tcp6): how many, and how many are not on 127.0.0.1.
 */
static void tcp_sockets(int *total, int *outside)
{
	static const char *const tables[] = { "/proc/net/tcp", "/proc/net/tcp6" };
	char line[512], local[64];
	unsigned long inode, inodes[256];
	int n, i, t;
	FILE *f;

	*total = *outside = 0;
	n = proc_socket_inodes("self", inodes, 0, 256);
	for (t = 0; t < 2; t++) {
		f = fopen(tables[t], "r");
		while (f && fgets(line, sizeof(line), f)) {
			/* sl local rem st tx:rx tr:when retrnsmt uid timeout inode */
			if (sscanf(line, "%*s %63s %*s %*s %*s %*s %*s %*s %*s %lu",
				   local, &inode) != 2)
				continue;
			for (i = 0; i < n && inodes[i] != inode; i++)
				;
			if (i == n)
				continue;
			(*total)++;
			/* 0100007F: 127.0.0.1; ::ffff:127.0.0.1 in tcp6 */
			if (strncmp(local, "0100007F:", 9) &&
			    strncmp(local, "0000000000000000FFFF00000100007F:", 33))
				(*outside)++;
		}
		if (f)
			fclose(f);
	}
}

/*
 * Every rank on this host, in one network namespace: the provider keeps
 * the job on the loopback interface.  A PUT first, so that connections
 * exist; then no TCP socket of this process may be elsewhere.
 */
static int case_loopback_only(struct rank_env *e)
{
	int total, outside;

	if (case_put(e, SMALL, false))
		return 1;
	tcp_sockets(&total, &outside);
	if (!total)
		return fail("no TCP socket found");
	if (outside)
		return fail("%d of %d TCP sockets not on 127.0.0.1", outside,
			    total);
	return 0;
}

/*
 * On shm (this rank and its partner on one host): an RMA PUT lands byte
 * for byte; then this process maps its own region and its peer's from
 * /dev/shm, and neither has a name there any more: no other process can
 * open them.
 */
/*
 * The doorbell region mapped at @line of /proc/self/maps (which holds the
 * shm rings): this user's own, mode 0600, its size sealed, read through
 * /proc/self/map_files, which the kernel opens only for CAP_SYS_ADMIN
 * (root, as make check runs; a non-root run checks the names alone).
 * 0, or 1 with a line on stderr.
 */
static int bell_region_private(const char *line)
{
	char path[96];
	unsigned long lo, hi;
	struct stat st;
	int fd, ret = 0;

	if (geteuid() || sscanf(line, "%lx-%lx", &lo, &hi) != 2)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/map_files/%lx-%lx", lo, hi);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail("%s: %s", path, strerror(errno));
	if (fstat(fd, &st))
		ret = fail("fstat %s: %s", path, strerror(errno));
	else if ((st.st_mode & 07777) != 0600 || st.st_uid != geteuid())
		ret = fail("a doorbell region is mode %o, uid %u: want 0600, %u",
			   st.st_mode & 07777, st.st_uid, geteuid());
	else if ((fcntl(fd, F_GET_SEALS) & (F_SEAL_SHRINK | F_SEAL_GROW)) !=
		 (F_SEAL_SHRINK | F_SEAL_GROW))
		ret = fail("a doorbell region's size is not sealed (seals %#x)",
			   fcntl(fd, F_GET_SEALS));
	close(fd);
	return ret;
}

static int case_shm_private(struct rank_env *e)
{
	char line[512], own[64];
	int mapped = 0, named = 0, bells = 0, bells_named = 0;
	FILE *f;

	if (case_put(e, BIG, false))
		return 1;
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return fail("/proc/self/maps: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		/*
		 * The doorbells and their shm rings (one rail, shm): memfds,
		 * never named; one in /dev/shm would be a leak
		 */
		if (strstr(line, " /memfd:thnic-bell ")) {
			bells++;
			if (bell_region_private(line)) {
				fclose(f);
				return 1;
			}
			continue;
		}
		if (!strstr(line, " /dev/shm/"))
			continue;
		if (strstr(line, "thnic-bell")) {
			bells_named++;
			continue;
		}
		/* MPICH's or others' segments are not the job's: shm's are pid:ep:dom */
		if (!strstr(line, ":0:0"))
			continue;
		mapped++;
		if (!strstr(line, "(deleted)"))
			named++;
	}
	fclose(f);
	if (mapped < 2)
		return fail("%d shm regions mapped, want this rank's and its peer's",
			    mapped);
	if (named)
		return fail("%d of %d shm regions still named in /dev/shm", named,
			    mapped);
	/*
	 * None in a job of two rails; else this rank's and its peer's, and
	 * both where the caller knows the job is on one (OFI_BELLS=2)
	 */
	if (bells == 1 || bells_named ||
	    (getenv("OFI_BELLS") && bells < atoi(getenv("OFI_BELLS"))))
		return fail("%d doorbell regions mapped (want 0 or 2 at least, %s here), %d in /dev/shm",
			    bells, getenv("OFI_BELLS") ? getenv("OFI_BELLS") : "any",
			    bells_named);
	snprintf(own, sizeof(own), "/dev/shm/%d:0:0", (int)getpid());
	if (!access(own, F_OK))
		return fail("%s exists", own);
	return 0;
}

/* ---- forged: another user attacks the job (test_ofi, ofi_forger) ------- */

#define F_SMALL_SRC	0			/* rank 1: GET sources */
#define F_BIG_SRC	4096
#define F_BIG		(256u << 10)		/* past the eager limit */
#define F_SMALL_DST	(BIG / 2)		/* rank 1: PUT destinations */
#define F_BIG_DST	(BIG / 2 + 4096)
#define F_CANARY	(64u << 10)

/* Bytes [@off, @off + @len) of @buf hold pattern @salt (relative); or fail. */
static int check_range(const uint8_t *buf, size_t off, size_t len,
		       unsigned int salt, const char *what)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (buf[off + i] != pattern(i, salt))
			return fail("%s: byte %zu is 0x%02x, want 0x%02x", what,
				    i, buf[off + i], pattern(i, salt));
	return 0;
}

static void fill_range(uint8_t *buf, size_t off, size_t len, unsigned int salt)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[off + i] = pattern(i, salt);
}

/* Bytes [@from, @to) of @buf are still zero; or fail. */
static int check_zero(const uint8_t *buf, size_t from, size_t to,
		      const char *what)
{
	size_t i;

	for (i = from; i < to; i++)
		if (buf[i])
			return fail("%s: byte %zu written (0x%02x)", what, i,
				    buf[i]);
	return 0;
}

/* Wait up to 10 s until process @pid is stopped. */
static int wait_stopped(pid_t pid)
{
	char path[64], line[512], *p;
	int i;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (i = 0; i < 1000; i++, usleep(10000)) {
		f = fopen(path, "r");
		p = f && fgets(line, sizeof(line), f) ? strrchr(line, ')') : NULL;
		if (f)
			fclose(f);
		if (p && p[1] == ' ' && p[2] == 'T')
			return 0;
	}
	return -1;
}

/*
 * After a barrier, rank 1 stops itself (every thread, the progress
 * thread too: nothing of it answers until rank 0 sends SIGCONT to
 * @pids[1]); rank 0 returns once it is stopped.
 */
static int rank1_stops(struct rank_env *e, const pid_t *pids)
{
	if (th_boot_barrier(e->boot))
		return fail("barrier");
	if (g_rank == 1) {
		raise(SIGSTOP);
		return 0;
	}
	return wait_stopped(pids[1]) ? fail("rank 1 did not stop") : 0;
}

/* Wait up to @secs for file @dir/@name. */
static int wait_file(const char *dir, const char *name, int secs)
{
	char path[4096];
	int i;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	for (i = 0; i < secs * 100; i++, usleep(10000))
		if (!access(path, F_OK))
			return 0;
	return -1;
}

/*
 * Rank 0 has four deliveries in flight to rank 1 (an eager GET and PUT,
 * an RMA GET and PUT) while rank 1 is stopped, so their answers are
 * outstanding as long as the attack lasts (FORGE_DIR: test_ofi runs
 * ofi_forger as another user meanwhile, which creates FORGE_DIR/forged
 * when done).  Then rank 1 goes on.  Every delivery must complete with
 * success and the right bytes, no byte the attacker sent may land
 * anywhere (the windows outside the deliveries, a canary region each
 * rank registered for remote access), no counter may fail, and the
 * vport must not be in the error state.
 */
static int forged_run(struct rank_env *e, uint8_t *cbuf)
{
	const char *dir = getenv("FORGE_DIR");
	struct th_remote to = e->peer;
	struct th_chain *c;
	pid_t pids[2], me = getpid();
	int i, status, ret;
	char path[4096];

	fill_range(cbuf, 0, F_CANARY, 9);
	if (th_boot_allgather(e->boot, &me, pids, sizeof(me)))
		return fail("allgather");
	if (g_rank == 1) {
		fill_range(e->buf, F_SMALL_SRC, SMALL, 2);
		fill_range(e->buf, F_BIG_SRC, F_BIG, 3);
		if (rank1_stops(e, pids))
			return 1;
		ret = th_ct_wait(e->vp, CT_DATA, 2, 30 * SEC);
		if (ret)
			return fail("counter CT_DATA: %s", strerror(-ret));
		if (check_range(e->buf, F_SMALL_SRC, SMALL, 2, "GET source") ||
		    check_range(e->buf, F_BIG_SRC, F_BIG, 3, "RMA GET source") ||
		    check_zero(e->buf, F_BIG_SRC + F_BIG, F_SMALL_DST, "window") ||
		    check_range(e->buf, F_SMALL_DST, SMALL, 4, "PUT") ||
		    check_zero(e->buf, F_SMALL_DST + SMALL, F_BIG_DST, "window") ||
		    check_range(e->buf, F_BIG_DST, F_BIG, 5, "RMA PUT") ||
		    check_zero(e->buf, F_BIG_DST + F_BIG, BIG, "window") ||
		    check_range(cbuf, 0, F_CANARY, 9, "canary"))
			return 1;
		return th_boot_barrier(e->boot) ? fail("barrier") : 0;
	}
	fill_range(e->buf, F_SMALL_DST, SMALL, 4);
	fill_range(e->buf, F_BIG_DST, F_BIG, 5);
	if (rank1_stops(e, pids))
		return 1;
	c = th_chain_create();
	to.off = F_SMALL_SRC;
	th_chain_get(c, e->mr, F_SMALL_SRC, &to, SMALL, TH_CHAIN_SIGNAL);
	ret = post(e, c);
	c = th_chain_create();
	to.off = F_SMALL_DST;
	th_chain_put(c, e->mr, F_SMALL_DST, &to, SMALL, CT_DATA,
		     TH_CHAIN_SIGNAL);
	ret = ret ? ret : post(e, c);
	c = th_chain_create();
	to.off = F_BIG_SRC;
	th_chain_get(c, e->mr, F_BIG_SRC, &to, F_BIG, TH_CHAIN_SIGNAL);
	ret = ret ? ret : post(e, c);
	c = th_chain_create();
	to.off = F_BIG_DST;
	th_chain_put(c, e->mr, F_BIG_DST, &to, F_BIG, CT_DATA,
		     TH_CHAIN_SIGNAL);
	ret = ret ? ret : post(e, c);
	if (ret) {
		kill(pids[1], SIGCONT);
		return fail("post: %s", strerror(-ret));
	}
	if (dir) {
		snprintf(path, sizeof(path), "%s/posted", dir);
		close(open(path, O_CREAT | O_WRONLY, 0644));
		if (wait_file(dir, "forged", 30))
			fprintf(stderr, "ofi_rank 0: the attack never ended\n");
	} else {
		usleep(500000);
	}
	kill(pids[1], SIGCONT);
	for (i = 0; i < 4; i++) {
		if (cq_status(e, &status))
			return fail("delivery %d: no completion", i);
		if (status)
			return fail("delivery %d: completion %d (%s)", i, status,
				    strerror(-status));
	}
	if (check_range(e->buf, F_SMALL_SRC, SMALL, 2, "GET") ||
	    check_range(e->buf, F_BIG_SRC, F_BIG, 3, "RMA GET") ||
	    check_zero(e->buf, F_BIG_SRC + F_BIG, F_SMALL_DST, "window") ||
	    check_range(e->buf, F_SMALL_DST, SMALL, 4, "PUT source") ||
	    check_range(e->buf, F_BIG_DST, F_BIG, 5, "RMA PUT source") ||
	    check_range(cbuf, 0, F_CANARY, 9, "canary"))
		return 1;
	/* not in the error state: a chain still runs */
	c = th_chain_create();
	th_chain_ct_inc(c, CT_DONE, 1, TH_CHAIN_SIGNAL);
	if (post_expect(e, c, 0))
		return 1;
	return th_boot_barrier(e->boot) ? fail("barrier") : 0;
}

static int case_forged(struct rank_env *e)
{
	uint8_t *cbuf = malloc(F_CANARY);
	struct th_mr *canary;
	int ret;

	canary = cbuf ? th_mr_reg(e->vp, cbuf, F_CANARY,
				  TH_NIC_ACCESS_LOCAL_WRITE |
				  TH_NIC_ACCESS_REMOTE_WRITE |
				  TH_NIC_ACCESS_REMOTE_READ) : NULL;
	ret = canary ? forged_run(e, cbuf) :
		       fail("canary MR: %s", strerror(errno));
	if (canary)
		th_mr_dereg(canary);
	free(cbuf);
	return ret;
}

/*
 * A collective's wait holds its rank only for the large bytes its own
 * vport's chains owe.  Rank 0 has a 64 KiB PUT to rank 1 in flight
 * (RESOLVE sent) while rank 1 is stopped, and meanwhile drives a
 * 64 KiB Broadcast of two ranks on two vports of its own (in-process
 * deliveries, nothing owed): each round's wait (spin, 0.5 s, within the
 * delivery deadline test_ofi sets, 2 s) must return 0 with the data in
 * place, not wait for the stopped peer.  Then rank 1 goes on, and the
 * PUT completes with its bytes.
 */
static int case_coll_owed_vport(struct rank_env *e)
{
	static uint64_t send[BYTES_OUT_WORDS] __attribute__((aligned(64)));
	static uint64_t recv[2][BYTES_OUT_WORDS] __attribute__((aligned(64)));
	struct th_vport_attr va = { .sq_entries = 64, .cq_entries = 64 };
	struct th_coll_attr a = {
		.kind = TH_COLL_BCAST, .dtype = TH_NIC_DT_UINT64,
		.count = BYTES_OUT_WORDS, .radix = 2,
	};
	const size_t len = sizeof(send);
	struct th_vport *vps[2] = { NULL, NULL };
	void *sends[2] = { send, NULL }, *recvs[2] = { recv[0], recv[1] };
	struct th_coll *coll = NULL;
	pid_t pids[2], me = getpid();
	struct th_chain *c;
	int i, ret = 0, status;

	if (th_boot_allgather(e->boot, &me, pids, sizeof(me)))
		return fail("allgather");
	if (g_rank == 1) {
		if (rank1_stops(e, pids))
			return 1;
		ret = th_ct_wait(e->vp, CT_DATA, 1, 30 * SEC);
		if (ret)
			return fail("the PUT: %s", strerror(-ret));
		if (check_range(e->buf, 0, len, 6, "RMA PUT"))
			return 1;
		return th_boot_barrier(e->boot) ? fail("barrier") : 0;
	}
	if (th_wait_policy_set(TH_WAIT_SPIN, 0))
		return fail("wait policy");
	for (i = 0; i < 2; i++)
		vps[i] = th_vport_create(e->ctx, &va);
	if (vps[0] && vps[1])
		coll = th_coll_create_local(vps, 2, &a, sends, recvs);
	if (!coll) {
		ret = fail("a collective on two local vports: %s",
			   strerror(errno));
		goto out;
	}
	fill_range(e->buf, 0, len, 6);
	ret = rank1_stops(e, pids);
	if (ret)
		goto out;
	c = th_chain_create();
	th_chain_put(c, e->mr, 0, &e->peer, len, CT_DATA, TH_CHAIN_SIGNAL);
	ret = post(e, c);
	for (i = 0; !ret && i < 3; i++) {
		round_fill(send, i);
		ret = th_coll_start(coll);
		if (!ret)
			ret = th_coll_wait(coll, SEC / 2);
		if (ret)
			ret = fail("round %d, a large PUT of another vport in flight: %s",
				   i, strerror(-ret));
		else
			ret = round_check(recv[1], i);
	}
	kill(pids[1], SIGCONT);
	if (!ret && cq_status(e, &status))
		ret = fail("the PUT: no completion");
	else if (!ret && status)
		ret = fail("the PUT: completion %d (%s)", status,
			   strerror(-status));
	if (!ret && th_boot_barrier(e->boot))
		ret = fail("barrier");
out:
	kill(pids[1], SIGCONT);
	th_coll_destroy(coll);
	for (i = 0; i < 2; i++)
		if (vps[i])
			th_vport_destroy(vps[i]);
	return ret;
}

int main(int argc, char **argv)
{
	struct rank_env e = { 0 };
	int ret;

	g_case = argc > 1 ? argv[1] : "";
	e.boot = th_boot_init();
	if (!e.boot) {
		fprintf(stderr, "ofi_rank: boot: %s\n", strerror(errno));
		return 1;
	}
	g_rank = th_boot_rank(e.boot);
	if (pairs(th_boot_size(e.boot)))
		return 1;
	if (setup(&e, NULL))
		return 1;
	if (!strcmp(g_case, "put"))
		ret = case_put(&e, SMALL, false);
	else if (!strcmp(g_case, "put_eager"))
		ret = case_put(&e, EAGER_MID, false);
	else if (!strcmp(g_case, "get_eager"))
		ret = case_put(&e, EAGER_MID, true);
	else if (!strcmp(g_case, "put_rma"))
		ret = case_put(&e, BIG, false);
	else if (!strcmp(g_case, "get"))
		ret = case_put(&e, SMALL, true);
	else if (!strcmp(g_case, "get_rma"))
		ret = case_put(&e, BIG, true);
	else if (!strcmp(g_case, "inline_remote"))
		ret = case_inline(&e, false);
	else if (!strcmp(g_case, "target_exits_at_once"))
		ret = case_inline(&e, true);
	else if (!strcmp(g_case, "bad_key"))
		ret = case_refused(&e, 0);
	else if (!strcmp(g_case, "bad_range"))
		ret = case_refused(&e, 1);
	else if (!strcmp(g_case, "no_vport"))
		ret = case_refused(&e, 2);
	else if (!strcmp(g_case, "foreign_domain"))
		ret = case_foreign_domain(&e);
	else if (!strcmp(g_case, "link_cut"))
		ret = case_link_cut(&e);
	else if (!strcmp(g_case, "loopback_only"))
		ret = case_loopback_only(&e);
	else if (!strcmp(g_case, "shm_private"))
		ret = case_shm_private(&e);
	else if (!strcmp(g_case, "triggered"))
		ret = case_triggered(&e);
	else if (!strcmp(g_case, "peer_dies"))
		ret = case_peer_dies(&e);
	else if (!strcmp(g_case, "waits"))
		ret = case_waits(&e);
	else if (!strcmp(g_case, "coll_tests"))
		ret = case_coll_tests(&e);
	else if (!strcmp(g_case, "ct_tests"))
		ret = case_ct_tests(&e);
	else if (!strcmp(g_case, "coll_bytes_out"))
		ret = case_coll_bytes_out(&e);
	else if (!strcmp(g_case, "coll_owed_vport"))
		ret = case_coll_owed_vport(&e);
	else if (!strcmp(g_case, "stream"))
		ret = case_stream(&e);
	else if (!strcmp(g_case, "doorbell"))
		ret = case_doorbell(&e);
	else if (!strcmp(g_case, "forged"))
		ret = case_forged(&e);
	else
		ret = fail("unknown case");
	th_mr_dereg(e.mr);
	th_vport_destroy(e.vp);
	th_device_close(e.ctx);
	free(e.buf);
	th_boot_fini(e.boot);
	return ret;
}
