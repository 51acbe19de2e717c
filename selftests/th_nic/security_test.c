// SPDX-License-Identifier: GPL-2.0
/*
 * security_test.c - isolation on a world-accessible NIC
 * (Documentation/security.rst), exercised by unprivileged processes: the
 * test starts as root only to become two different users (THN_UID_A,
 * THN_UID_B) in its children, which do all the NIC work.
 *
 *  - inside one user's domain, a remote key is usable only with the access
 *    it was registered with; any key or range violation fails the
 *    operation, touches nothing, and puts the initiator into the error
 *    state (pending chains fail, the doorbell refuses), so every wrong
 *    guess costs a vport;
 *  - another user's processes cannot tell an existing vport with a right
 *    key from a missing vport: everything is -ECONNREFUSED;
 *  - a domain descriptor is the capability to join a domain, passed by
 *    SCM_RIGHTS; without it nothing reaches the domain's vports;
 *  - failed and cancelled chains raise failure values only where their
 *    access was authorised, and testing a key that way costs the vport;
 *  - deregistering a region stops a peer's long transfer into it;
 *  - remote keys carry at least 52 random bits; keys are not sequential;
 *  - read-only memory cannot be registered writable.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "th_nic_util.h"

#define NODE_A	8
#define NODE_B	9
#define LEN	4096

static __u8 a_pattern(size_t i)
{
	return (__u8)(i * 7 + 1);
}

/* What a prober's buffer holds (and its PUTs write). */
static __u8 b_pattern(size_t i)
{
	return (__u8)(0xff - i * 3);
}

/* ---- A: a target that publishes its keys and waits ------------------ */

/* A's regions, one per access combination. */
enum { K_LOCAL, K_RW, K_RREAD, K_RWRITE, K_NKEYS };

struct target {
	__u32 node, vport;
	__u64 rkey[K_NKEYS];
	__u32 ready, done;
	/* what A saw afterwards */
	bool untouched[K_NKEYS];	/* regions not matching a successful put */
	__u64 ct[64], ct_fail_sum;
	int err;
};

/* Filled by the prober, read back by A: which ranges a PUT changed. */
struct expect_put {
	__u32 n;
	struct { int key; __u64 off, len; } put[16];
};

struct probe {
	struct target t;
	struct expect_put puts;
};

/*
 * A: a vport on NODE_A with one region per access, filled with a pattern;
 * publishes its keys, waits until the prober is done, then checks its
 * memory and counters.
 */
static int target_run(void *arg)
{
	static const __u32 access[K_NKEYS] = {
		[K_LOCAL] = TH_NIC_ACCESS_LOCAL_WRITE,
		[K_RW] = TH_NIC_ACCESS_ALL,
		[K_RREAD] = TH_NIC_ACCESS_REMOTE_READ,
		[K_RWRITE] = TH_NIC_ACCESS_REMOTE_WRITE,
	};
	struct probe *p = arg;
	struct target *t = &p->t;
	struct thn_vport v;
	struct thn_key key;
	__u8 *mem[K_NKEYS];
	unsigned int k, i, j;
	int fd = thn_open(NODE_A);

	if (fd < 0 || thn_vport_open(fd, 0, 0, &v))
		return 1;
	for (k = 0; k < K_NKEYS; k++) {
		mem[k] = thn_alloc(LEN);
		if (!mem[k])
			return 2;
		for (j = 0; j < LEN; j++)
			mem[k][j] = a_pattern(j);
		if (thn_mr_reg(&v, mem[k], LEN, access[k], &key))
			return 3;
		t->rkey[k] = key.r;
	}
	t->node = NODE_A;
	t->vport = v.id;
	__atomic_store_n(&t->ready, 1, __ATOMIC_RELEASE);
	if (!thn_wait_word(&t->done, 1, 20 * THN_WAIT_MS))
		return 4;
	for (k = 0; k < K_NKEYS; k++) {
		t->untouched[k] = true;
		for (j = 0; j < LEN; j++) {
			__u8 want = a_pattern(j);

			for (i = 0; i < p->puts.n; i++)
				if (p->puts.put[i].key == (int)k &&
				    j >= p->puts.put[i].off &&
				    j < p->puts.put[i].off + p->puts.put[i].len)
					want = b_pattern(j - p->puts.put[i].off);
			if (mem[k][j] != want)
				t->untouched[k] = false;
		}
	}
	for (i = 0; i < 64; i++) {
		t->ct[i] = thn_ct(&v, i);
		t->ct_fail_sum += thn_ct_fail(&v, i);
	}
	close(fd);
	return 0;
}

/* Start A as @uid in the background; its pid. */
static pid_t target_start(struct probe *p, uid_t uid)
{
	pid_t pid = fork();

	if (!pid) {
		if (thn_become(uid))
			_exit(100);
		_exit(target_run(p));
	}
	return pid;
}

static int target_finish(struct probe *p, pid_t pid)
{
	int status;

	__atomic_store_n(&p->t.done, 1, __ATOMIC_RELEASE);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * A target as THN_UID_A, probed by @fn(@arg) as @prober; then the target
 * reports what it saw into @p.  0 when both sides ran to their end.
 */
static int probe_target(struct probe *p, uid_t prober, int (*fn)(void *arg),
			void *arg)
{
	pid_t a = target_start(p, THN_UID_A);
	int ret;

	if (a < 0)
		return -1;
	ret = thn_run_as(prober, fn, arg);
	if (target_finish(p, a))
		return -1;
	return ret;
}

/* ---- within one user's domain ----------------------------------------- */

/* The prober's operations against A: one row each, from a fresh vport. */
struct op_row {
	const char *name;
	bool get;		/* GET from A, else PUT to A */
	int key;		/* which of A's keys */
	__u64 key_xor;		/* a guessed key: A's key ^ this */
	__u32 vport_delta;	/* a vport next to A's */
	__u64 roff, len;
	int status;		/* expected completion status */
	bool violation;		/* the prober's vport enters the error state */
};

static const struct op_row rows[] = {
	{ "put to local-only key", false, K_LOCAL, 0, 0, 0, 64, -EACCES, true },
	{ "get from local-only key", true, K_LOCAL, 0, 0, 0, 64, -EACCES, true },
	{ "put to remote-read key", false, K_RREAD, 0, 0, 0, 64, -EACCES, true },
	{ "get from remote-write key", true, K_RWRITE, 0, 0, 0, 64, -EACCES,
	  true },
	{ "put to remote-write key", false, K_RWRITE, 0, 0, 128, 64, 0, false },
	{ "get from remote-read key", true, K_RREAD, 0, 0, 256, 64, 0, false },
	{ "put to remote-rw key", false, K_RW, 0, 0, 512, 100, 0, false },
	{ "get from remote-rw key", true, K_RW, 0, 0, 1024, 100, 0, false },
	{ "zero-length put to a guessed key", false, K_RW, 1 << 12, 0, 0, 0,
	  -EACCES, true },
	{ "put to key ^ bit 20", false, K_RW, 1 << 20, 0, 0, 64, -EACCES, true },
	{ "put to key ^ bit 40", false, K_RW, 1ULL << 40, 0, 0, 64, -EACCES,
	  true },
	{ "put to key ^ bit 63", false, K_RW, 1ULL << 63, 0, 0, 64, -EACCES,
	  true },
	{ "put to key ^ slot bit", false, K_RW, 1, 0, 0, 64, -EACCES, true },
	{ "put to a vport that does not exist", false, K_RW, 0, 1, 0, 64,
	  -ECONNREFUSED, false },
	{ "put past the region", false, K_RW, 0, 0, LEN - 32, 64, -ERANGE,
	  true },
	{ "get past the region", true, K_RW, 0, 0, LEN - 32, 64, -ERANGE, true },
};

#define NROWS ARRAY_SIZE(rows)

struct prober_out {
	int status[NROWS];
	int next_post[NROWS];		/* the post after the row's */
	__u32 next_reason[NROWS];
	bool buf_ok[NROWS];
	char why[96];
};

struct same_user {
	struct probe p;
	struct prober_out o;
};

/* The prober: each row from a fresh vport of its own, on NODE_B. */
static int prober_run(void *arg)
{
	struct same_user *su = arg;
	struct target *t = &su->p.t;
	struct th_nic_doorbell db;
	struct th_nic_cqe cqe;
	struct th_nic_desc d;
	struct thn_vport v;
	struct thn_key bkey;
	__u8 *buf = thn_alloc(LEN);
	unsigned int i;
	size_t j;
	int fd = thn_open(NODE_B);

	if (fd < 0 || !buf || !thn_wait_word(&t->ready, 1, THN_WAIT_MS))
		return 1;
	for (i = 0; i < NROWS; i++) {
		const struct op_row *r = &rows[i];
		__u64 key = t->rkey[r->key] ^ r->key_xor;

		if (thn_vport_open(fd, 0, 0, &v) ||
		    thn_mr_reg(&v, buf, LEN, TH_NIC_ACCESS_ALL, &bkey))
			return 2;
		for (j = 0; j < LEN; j++)
			buf[j] = b_pattern(j);
		if (r->get)
			d = thn_get(bkey.l, 0, t->node, t->vport + r->vport_delta,
				    key, r->roff, r->len);
		else
			d = thn_put_ct(bkey.l, 0, t->node,
				       t->vport + r->vport_delta, key, r->roff,
				       r->len, i);
		d.flags |= TH_NIC_DF_SIGNAL;
		thn_trigger(&d, 0, 0, i);
		if (thn_post(&v, &d, 1, &db) || thn_cq_wait(&v, &cqe, 1,
							    THN_WAIT_MS) != 1)
			return 3;
		su->o.status[i] = cqe.status;
		su->o.buf_ok[i] = true;
		for (j = 0; j < LEN; j++) {
			__u8 want = b_pattern(j);

			if (r->get && !r->status && j < r->len)
				want = a_pattern(r->roff + j);
			if (buf[j] != want)
				su->o.buf_ok[i] = false;
		}
		if (!r->get && !r->status) {
			struct expect_put *e = &su->p.puts;

			e->put[e->n].key = r->key;
			e->put[e->n].off = r->roff;
			e->put[e->n].len = r->len;
			e->n++;
		}
		/* a harmless chain after it: refused once in the error state */
		d = thn_notify(1);
		su->o.next_post[i] = thn_post(&v, &d, 1, &db);
		su->o.next_reason[i] = db.reason;
		thn_sq_rewind(&v);
		thn_vport_close(&v);
	}
	close(fd);
	return 0;
}

TEST(keys_within_a_domain)
{
	struct same_user *su = thn_shared(sizeof(*su));
	unsigned int i, k;

	THN_NEED_ROOT();
	ASSERT_NE(NULL, su);
	ASSERT_EQ(0, probe_target(&su->p, THN_UID_A, prober_run, su));

	for (i = 0; i < NROWS; i++) {
		const struct op_row *r = &rows[i];

		EXPECT_EQ(r->status, su->o.status[i]) TH_LOG("%s", r->name);
		EXPECT_TRUE(su->o.buf_ok[i]) TH_LOG("%s: prober's buffer", r->name);
		EXPECT_EQ(r->violation ? -ENOTCONN : 0, su->o.next_post[i])
			TH_LOG("%s: the next post", r->name);
		EXPECT_EQ(r->violation ? TH_NIC_REFUSE_VPORT_ERROR :
			  TH_NIC_REFUSE_NONE, su->o.next_reason[i])
			TH_LOG("%s: the next post's reason", r->name);
		/* a PUT's counter rises only if it succeeded */
		if (!r->get && !r->vport_delta)
			EXPECT_EQ(r->status ? 0 : 1, su->p.t.ct[i])
				TH_LOG("%s: counter", r->name);
	}
	/* no failure value anywhere: nothing was authorised and failed */
	EXPECT_EQ(0, su->p.t.ct_fail_sum);
	for (k = 0; k < K_NKEYS; k++)
		EXPECT_TRUE(su->p.t.untouched[k]) TH_LOG("A's region %u", k);
}

/* ---- from another user ------------------------------------------------ */

struct outsider {
	struct probe p;
	int status[8];
	int after;		/* a post after all of them */
};

/*
 * Another user's process: right keys, wrong keys, a vport that does not
 * exist, a GET, a remote inline write: one and the same answer.
 */
static int outsider_run(void *arg)
{
	struct outsider *o = arg;
	struct target *t = &o->p.t;
	struct th_nic_cqe cqe;
	struct th_nic_desc d[8];
	struct thn_vport v;
	struct thn_key key;
	__u8 *buf = thn_alloc(LEN);
	unsigned int i;
	int fd = thn_open(NODE_B);

	if (fd < 0 || !buf || !thn_wait_word(&t->ready, 1, THN_WAIT_MS) ||
	    thn_vport_open(fd, 0, 0, &v) ||
	    thn_mr_reg(&v, buf, LEN, TH_NIC_ACCESS_ALL, &key))
		return 1;
	d[0] = thn_put_ct(key.l, 0, t->node, t->vport, t->rkey[K_RW], 0, 64, 1);
	d[1] = thn_put_ct(key.l, 0, t->node, t->vport, t->rkey[K_RW] ^ (1 << 20),
			  0, 64, 2);
	d[2] = thn_put_ct(key.l, 0, t->node, t->vport + 1, t->rkey[K_RW], 0, 64,
			  3);
	d[3] = thn_put_ct(key.l, 0, THN_NODES - 1, 0, t->rkey[K_RW], 0, 64, 4);
	d[4] = thn_get(key.l, 0, t->node, t->vport, t->rkey[K_RW], 0, 64);
	d[5] = thn_get(key.l, 0, t->node, t->vport, t->rkey[K_RREAD], 0, 0);
	d[6] = thn_inline_remote(t->node, t->vport, t->rkey[K_RW], 0, "x", 1);
	d[6].flags |= TH_NIC_DF_REMOTE_CT;
	d[6].wr_inline.remote_ct = 7;
	d[7] = thn_put_ct(key.l, 0, t->node, t->vport, t->rkey[K_RW], LEN, 64, 8);
	for (i = 0; i < 8; i++) {
		d[i].flags |= TH_NIC_DF_SIGNAL;
		thn_trigger(&d[i], 0, 0, i);
		if (thn_post(&v, &d[i], 1, NULL) ||
		    thn_cq_wait(&v, &cqe, 1, THN_WAIT_MS) != 1)
			return 2;
		o->status[i] = cqe.status;
	}
	d[0] = thn_notify(9);
	o->after = thn_post(&v, d, 1, NULL);
	close(fd);
	return 0;
}

TEST(another_user_sees_no_vport)
{
	struct outsider *o = thn_shared(sizeof(*o));
	unsigned int i, k;

	THN_NEED_ROOT();
	ASSERT_NE(NULL, o);
	ASSERT_EQ(0, probe_target(&o->p, THN_UID_B, outsider_run, o));
	/* existing vport and right key, wrong key, no vport: all the same */
	for (i = 0; i < 8; i++)
		EXPECT_EQ(-ECONNREFUSED, o->status[i]) TH_LOG("probe %u", i);
	/* learning nothing costs nothing: no error state */
	EXPECT_EQ(0, o->after);
	for (k = 0; k < K_NKEYS; k++)
		EXPECT_TRUE(o->p.t.untouched[k]) TH_LOG("A's region %u", k);
	for (i = 0; i < 64; i++)
		EXPECT_EQ(0, o->p.t.ct[i]) TH_LOG("A's counter %u", i);
	EXPECT_EQ(0, o->p.t.ct_fail_sum);
}

/* ---- domains by descriptor -------------------------------------------- */

struct domain_run {
	int sock[2];
	__u32 vport, ready, done;
	__u64 rkey;
	int before, after_import, default_to_domain, join_bad;
	__u64 got;
};

/* The owner: a vport in a new domain, whose descriptor it sends. */
static int domain_owner(void *arg)
{
	struct domain_run *r = arg;
	struct thn_vport v;
	struct thn_key key;
	__u64 *buf = thn_alloc(LEN);
	int fd = thn_open(NODE_A), dom;

	if (fd < 0 || !buf)
		return 1;
	dom = thn_domain_create(fd);
	if (dom < 0 || thn_vport_open_in(fd, dom, &v) ||
	    thn_mr_reg(&v, buf, LEN, TH_NIC_ACCESS_ALL, &key))
		return 2;
	buf[0] = 0x600dcafe;
	r->vport = v.id;
	r->rkey = key.r;
	__atomic_store_n(&r->ready, 1, __ATOMIC_RELEASE);
	/* the first try comes without the domain: then it gets it */
	if (!thn_wait_word(&r->ready, 2, THN_WAIT_MS) ||
	    thn_send_fd(r->sock[0], dom))
		return 3;
	/* the vport keeps its domain when the descriptor is closed */
	close(dom);
	if (!thn_wait_word(&r->done, 1, 2 * THN_WAIT_MS))
		return 4;
	close(fd);
	return 0;
}

static int domain_try(struct thn_vport *v, __u32 lkey, struct domain_run *r)
{
	struct th_nic_cqe cqe;
	struct th_nic_desc d = thn_get(lkey, 0, NODE_A, r->vport, r->rkey, 0, 8);

	d.flags |= TH_NIC_DF_SIGNAL;
	if (thn_post(v, &d, 1, NULL) || thn_cq_wait(v, &cqe, 1, THN_WAIT_MS) != 1)
		return -EIO;
	return cqe.status;
}

/* The same user, first without the domain's descriptor, then with it. */
static int domain_joiner(void *arg)
{
	struct domain_run *r = arg;
	struct thn_vport v, w;
	struct thn_key key, wkey;
	__u64 *buf = thn_alloc(LEN);
	int fd = thn_open(NODE_B), dom;

	if (fd < 0 || !buf || !thn_wait_word(&r->ready, 1, THN_WAIT_MS) ||
	    thn_vport_open(fd, 0, 0, &v) ||
	    thn_mr_reg(&v, buf, LEN, TH_NIC_ACCESS_ALL, &key))
		return 1;
	r->before = domain_try(&v, key.l, r);
	__atomic_store_n(&r->ready, 2, __ATOMIC_RELEASE);
	dom = thn_recv_fd(r->sock[1]);
	if (dom < 0)
		return 2;
	/* a domain descriptor is not a node: it joins, it does nothing else */
	r->join_bad = thn_vport_open_in(fd, fd, &w);
	if (thn_vport_open_in(fd, dom, &w) ||
	    thn_mr_reg(&w, buf, LEN, TH_NIC_ACCESS_ALL, &wkey))
		return 3;
	close(dom);
	r->after_import = domain_try(&w, wkey.l, r);
	r->got = buf[0];
	/* and the default-domain vport still cannot reach it */
	r->default_to_domain = domain_try(&v, key.l, r);
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	close(fd);
	return 0;
}

TEST(a_domain_descriptor_is_the_capability)
{
	struct domain_run *r = thn_shared(sizeof(*r));
	int status;
	pid_t owner;

	THN_NEED_ROOT();
	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, r->sock));
	owner = fork();
	ASSERT_LE(0, owner);
	if (!owner) {
		if (thn_become(THN_UID_A))
			_exit(100);
		_exit(domain_owner(r));
	}
	EXPECT_EQ(0, thn_run_as(THN_UID_A, domain_joiner, r));
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	ASSERT_EQ(owner, waitpid(owner, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	/* the same user, outside the domain: as if the vport did not exist */
	EXPECT_EQ(-ECONNREFUSED, r->before);
	EXPECT_EQ(-EINVAL, r->join_bad);
	EXPECT_EQ(0, r->after_import);
	EXPECT_EQ(0x600dcafe, r->got);
	EXPECT_EQ(-ECONNREFUSED, r->default_to_domain);
}

/* ---- the error state -------------------------------------------------- */

struct guesses {
	struct probe p;
	int first, rest_status, doorbell, reason, ct_set, pending_status;
	__u32 accepted, enotconn, eacces;
};

/*
 * A guesser posts a pending chain, then 1000 guesses in one doorbell: the
 * first wrong key is the only one ever tried; everything after it, and the
 * pending chain, fail with -ENOTCONN; the vport refuses more.
 */
static int guesser_run(void *arg)
{
	enum { N = 1000 };
	struct guesses *g = arg;
	struct target *t = &g->p.t;
	struct th_nic_doorbell db;
	struct th_nic_cqe cqe[64];
	struct th_nic_desc d;
	struct thn_vport v;
	struct thn_key key;
	__u8 *buf = thn_alloc(LEN);
	unsigned int i, got = 0, n;
	int fd = thn_open(NODE_B);

	if (fd < 0 || !buf || !thn_wait_word(&t->ready, 1, THN_WAIT_MS) ||
	    thn_vport_open(fd, 0, 0, &v) ||
	    thn_mr_reg(&v, buf, LEN, TH_NIC_ACCESS_ALL, &key))
		return 1;
	if (thn_post_notify(&v, 5, 1, 0xfeed))
		return 2;
	for (i = 0; i < N; i++) {
		/* zero-length PUTs, the cheapest possible test of a guess */
		d = thn_put(key.l, 0, t->node, t->vport, t->rkey[K_RW] ^
			    ((__u64)(i + 1) << 12), 0, 0);
		thn_trigger(&d, 0, 0, i);
		v.sq_slots[(*v.sq_tail + i) & v.sq_mask] = d;
	}
	__atomic_store_n(v.sq_tail, *v.sq_tail + N, __ATOMIC_RELEASE);
	g->doorbell = thn_doorbell(&v, &db);
	g->accepted = db.chains;
	while (got < N + 1) {
		n = thn_cq_wait(&v, cqe, 64, THN_WAIT_MS);
		if (!n)
			return 3;
		for (i = 0; i < n; i++) {
			if (cqe[i].cookie == 0xfeed)
				g->pending_status = cqe[i].status;
			else if (cqe[i].status == -EACCES)
				g->eacces++;
			else if (cqe[i].status == -ENOTCONN)
				g->enotconn++;
		}
		got += n;
	}
	d = thn_notify(1);
	g->doorbell = thn_post(&v, &d, 1, &db);
	g->reason = db.reason;
	thn_sq_rewind(&v);
	/* its own counters remain the host's to use */
	g->ct_set = thn_ct_set(&v, 5, 3, 0);
	close(fd);
	return 0;
}

TEST(one_violation_costs_the_vport)
{
	struct guesses *g = thn_shared(sizeof(*g));

	THN_NEED_ROOT();
	ASSERT_NE(NULL, g);
	ASSERT_EQ(0, probe_target(&g->p, THN_UID_A, guesser_run, g));
	EXPECT_EQ(1000, g->accepted);
	EXPECT_EQ(1, g->eacces);
	EXPECT_EQ(999, g->enotconn);
	EXPECT_EQ(-ENOTCONN, g->pending_status);
	EXPECT_EQ(-ENOTCONN, g->doorbell);
	EXPECT_EQ(TH_NIC_REFUSE_VPORT_ERROR, g->reason);
	EXPECT_EQ(0, g->ct_set);
	EXPECT_EQ(0, g->p.t.ct_fail_sum);
}

/* ---- failure values need an authorised access ------------------------- */

struct poison {
	struct probe p;
	__u32 cancelled;
	int ret;
	int doorbell;		/* after the cancel */
	__u32 reason;
};

/*
 * Pending chains that name A's counters through keys A never granted (a
 * guess, a key without remote write, a range past the region), cancelled
 * in one call: none of A's counters moves.
 */
static int poisoner_run(void *arg)
{
	struct poison *ps = arg;
	struct target *t = &ps->p.t;
	struct th_nic_doorbell db;
	struct th_nic_desc d;
	struct thn_vport v;
	struct thn_key key;
	__u8 *buf = thn_alloc(LEN);
	__u64 rkey;
	unsigned int i;
	int fd = thn_open(NODE_B);

	if (fd < 0 || !buf || !thn_wait_word(&t->ready, 1, THN_WAIT_MS) ||
	    thn_vport_open(fd, 0, 0, &v) ||
	    thn_mr_reg(&v, buf, LEN, TH_NIC_ACCESS_ALL, &key))
		return 1;
	for (i = 0; i < 900; i++) {
		rkey = i % 3 == 0 ? t->rkey[K_RW] ^ ((__u64)(i + 1) << 20) :
		       i % 3 == 1 ? t->rkey[K_RREAD] : t->rkey[K_RW];
		d = thn_put_ct(key.l, 0, t->node, t->vport, rkey,
			       i % 3 == 2 ? LEN : 0, 64, i % 64);
		thn_trigger(&d, 3, 1, i);
		v.sq_slots[(*v.sq_tail + i) & v.sq_mask] = d;
	}
	__atomic_store_n(v.sq_tail, *v.sq_tail + 900, __ATOMIC_RELEASE);
	ps->ret = thn_doorbell(&v, &db);
	if (ps->ret || db.chains != 900)
		return 2;
	ps->ret = thn_cancel(&v, false, 0, &ps->cancelled);
	/* testing keys through a cancel cost the vport, as a PUT would */
	d = thn_notify(1);
	ps->doorbell = thn_post(&v, &d, 1, &db);
	ps->reason = db.reason;
	close(fd);
	return 0;
}

TEST(cancelled_chains_poison_no_counter_they_were_not_granted)
{
	struct poison *ps = thn_shared(sizeof(*ps));
	unsigned int i;

	THN_NEED_ROOT();
	ASSERT_NE(NULL, ps);
	ASSERT_EQ(0, probe_target(&ps->p, THN_UID_A, poisoner_run, ps));
	EXPECT_EQ(0, ps->ret);
	EXPECT_EQ(900, ps->cancelled);
	EXPECT_EQ(-ENOTCONN, ps->doorbell);
	EXPECT_EQ(TH_NIC_REFUSE_VPORT_ERROR, ps->reason);
	EXPECT_EQ(0, ps->p.t.ct_fail_sum);
	for (i = 0; i < 64; i++)
		EXPECT_EQ(0, ps->p.t.ct[i]);
}

/* ---- deregistration does not wait for a peer's long transfer ---------- */

#define BIG	(128UL << 20)

struct dereg_race {
	int setup;
	int dereg;
	__u32 got;
	int put_status;
	__u8 last;
};

/*
 * A PUT of 128 MiB from one vport of the user into a region of another
 * (same domain) is under way when the target deregisters the region: the
 * deregistration stops the transfer at its next slice (the PUT fails with
 * -EACCES and the end of the region is never written) instead of waiting,
 * uninterruptibly, for the whole transfer.
 */
static int dereg_run(void *arg)
{
	struct dereg_race *r = arg;
	struct thn_vport t, p;
	struct thn_key dst_key, src_key;
	struct th_nic_cqe cqe;
	struct th_nic_desc d;
	__u8 *dst = thn_alloc(BIG), *src = thn_alloc(BIG);
	__u64 until;
	int fd = thn_open(NODE_A);

	if (fd < 0 || !dst || !src || thn_vport_open(fd, 0, 0, &t) ||
	    thn_vport_open(fd, 0, 0, &p))
		return r->setup = 1;
	memset(src, 0xa5, BIG);
	memset(dst, 0, BIG);
	if (thn_mr_reg(&t, dst, BIG, TH_NIC_ACCESS_ALL, &dst_key) ||
	    thn_mr_reg(&p, src, BIG, 0, &src_key))
		return r->setup = 2;
	d = thn_put(src_key.l, 0, NODE_A, t.id, dst_key.r, 0, BIG);
	d.flags |= TH_NIC_DF_SIGNAL;
	if (thn_post(&p, &d, 1, NULL))
		return r->setup = 3;
	/* the PUT has begun: its first bytes landed */
	until = thn_now_ns() + 20ULL * 1000000000ULL;
	while (!__atomic_load_n(&dst[0], __ATOMIC_ACQUIRE) &&
	       thn_now_ns() < until)
		;
	if (!dst[0])
		return r->setup = 4;
	r->dereg = thn_mr_dereg(&t, dst_key.l);
	r->last = dst[BIG - 1];
	r->got = thn_cq_wait(&p, &cqe, 1, 60000);
	r->put_status = r->got ? cqe.status : 1;
	close(fd);
	return 0;
}

TEST(deregistration_stops_a_peers_long_transfer)
{
	struct dereg_race *r = thn_shared(sizeof(*r));
	struct rlimit lim = { 1UL << 30, 1UL << 30 };

	THN_NEED_ROOT();
	ASSERT_NE(NULL, r);
	/* both regions pinned by the unprivileged user */
	ASSERT_EQ(0, setrlimit(RLIMIT_MEMLOCK, &lim));
	ASSERT_EQ(0, thn_run_as(THN_UID_A, dereg_run, r));
	ASSERT_EQ(0, r->setup);
	EXPECT_EQ(0, r->dereg);
	EXPECT_EQ(1, r->got);
	EXPECT_EQ(-EACCES, r->put_status);
	/* the transfer stopped short: the region's end was never written */
	EXPECT_EQ(0, r->last);
}

/* ---- keys ------------------------------------------------------------- */

TEST(keys_are_not_sequential)
{
	enum { N = 32 };
	struct thn_key keys[N], wkeys[N], again;
	__u32 diffs_equal = 0, same = 0, i, j;
	struct thn_vport v, w;
	__u8 *p = thn_alloc(4096);
	int fd = thn_open(NODE_A);

	ASSERT_LE(0, fd);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, thn_vport_open(fd, 16, 16, &v));
	ASSERT_EQ(0, thn_vport_open(fd, 16, 16, &w));
	for (i = 0; i < N; i++) {
		ASSERT_EQ(0, thn_mr_reg(&v, p, 4096, 0, &keys[i]));
		ASSERT_EQ(0, thn_mr_reg(&w, p, 4096, 0, &wkeys[i]));
		EXPECT_NE(0, keys[i].l);
		EXPECT_NE(0, keys[i].r);
	}
	for (i = 0; i < N; i++)
		for (j = i + 1; j < N; j++) {
			ASSERT_NE(keys[i].l, keys[j].l);
			ASSERT_NE(keys[i].r, keys[j].r);
		}
	for (i = 2; i < N; i++)
		if (keys[i].r - keys[i - 1].r == keys[i - 1].r - keys[i - 2].r)
			diffs_equal++;
	/* a constant step would make every key predictable from one */
	EXPECT_GT(N / 2, diffs_equal);
	/* two vports do not hand out the same sequence */
	for (i = 0; i < N; i++)
		if (keys[i].r == wkeys[i].r || keys[i].l == wkeys[i].l)
			same++;
	EXPECT_GT(N / 2, same);
	/* a freed local key is not handed out again at once */
	ASSERT_EQ(0, thn_mr_dereg(&v, keys[5].l));
	ASSERT_EQ(0, thn_mr_reg(&v, p, 4096, 0, &again));
	EXPECT_NE(keys[5].l, again.l);
	EXPECT_NE(keys[5].r, again.r);
	EXPECT_EQ(-EINVAL, thn_mr_dereg(&v, keys[5].l));
	close(fd);
}

/*
 * Every bit above the slot index varies across remote keys: at least 52
 * bits (with max_mrs up to 4096) that a guess has to match.  A constant
 * bit over 256 random keys would be a 2^-255 event.
 */
TEST(remote_keys_have_52_random_bits)
{
	enum { N = 256 };
	struct thn_key k;
	struct thn_vport v;
	struct th_nic_query q;
	__u8 *p = thn_alloc(4096);
	__u64 first = 0, differ = 0;
	unsigned int i, bit, slot_bits = 0, random_bits = 0;
	int fd = thn_open(NODE_A);

	ASSERT_LE(0, fd);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, thn_query(fd, &q));
	while ((1U << slot_bits) < q.max_mrs)
		slot_bits++;
	ASSERT_EQ(0, thn_vport_open(fd, 16, 16, &v));
	for (i = 0; i < N; i++) {
		ASSERT_EQ(0, thn_mr_reg(&v, p, 4096, 0, &k));
		ASSERT_EQ(0, thn_mr_dereg(&v, k.l));
		if (!i)
			first = k.r;
		differ |= first ^ k.r;
	}
	for (bit = slot_bits; bit < 64; bit++)
		if (differ & (1ULL << bit))
			random_bits++;
	TH_LOG("%u of %u bits above the slot index varied", random_bits,
	       64 - slot_bits);
	EXPECT_EQ(64 - slot_bits, random_bits);
	EXPECT_LE(52, random_bits);
	close(fd);
}

/* A file opened read-only and mapped shared cannot become a writable MR. */
TEST(readonly_memory_cannot_be_registered_writable)
{
	static const __u32 writes[] = {
		TH_NIC_ACCESS_LOCAL_WRITE,
		TH_NIC_ACCESS_REMOTE_WRITE,
		TH_NIC_ACCESS_ALL,
	};
	char path[] = "/tmp/th_nic_ro_XXXXXX";
	struct thn_vport v;
	struct thn_key key;
	__u8 page[4096], *p, *q;
	unsigned int i;
	int fd, wfd, rfd;

	memset(page, 0x42, sizeof(page));
	wfd = mkstemp(path);
	ASSERT_LE(0, wfd);
	ASSERT_EQ(sizeof(page), write(wfd, page, sizeof(page)));
	close(wfd);
	rfd = open(path, O_RDONLY);
	ASSERT_LE(0, rfd);
	unlink(path);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, rfd, 0);
	ASSERT_NE(MAP_FAILED, p);
	q = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, q);

	fd = thn_open(NODE_A);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, thn_vport_open(fd, 16, 16, &v));
	for (i = 0; i < ARRAY_SIZE(writes); i++) {
		EXPECT_EQ(-EFAULT, thn_mr_reg(&v, p, 4096, writes[i], &key))
			TH_LOG("shared read-only file, access 0x%x", writes[i]);
		EXPECT_EQ(-EFAULT, thn_mr_reg(&v, q, 4096, writes[i], &key))
			TH_LOG("PROT_READ anonymous, access 0x%x", writes[i]);
	}
	/* reading it is fine */
	EXPECT_EQ(0, thn_mr_reg(&v, p, 4096, TH_NIC_ACCESS_REMOTE_READ, &key));
	EXPECT_EQ(0x42, p[100]);
	close(fd);
	close(rfd);
}

TEST_HARNESS_MAIN
