// SPDX-License-Identifier: GPL-2.0
/*
 * limits_test.c - what one unprivileged user can make the module hold:
 * vports and pending chains up to the per-user limits QUERY reports (and
 * not one more, whichever nodes they are on), vports of one node up to
 * the user's share of it (max_user_node_vports), kernel memory charged to
 * the caller's memory cgroup (so memory.max stops it first), pinned pages
 * charged to the user until unpinned (a short-lived child cannot take the
 * charge away), and mappings that must be MAP_SHARED.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "th_nic_util.h"

/* ---- vports per user -------------------------------------------------- */

struct vport_limit {
	__u32 max;		/* QUERY's max_user_vports */
	__u32 made;		/* vports created before the refusal */
	int refusal;
	int other_user;		/* another user's create meanwhile */
	int after_close;	/* after closing one */
	__u32 ready, other_done;
};

static int vport_hog(void *arg)
{
	struct vport_limit *l = arg;
	struct th_nic_vport_create c;
	struct th_nic_query q;
	int fds[THN_NODES], i, ret = 0;

	for (i = 0; i < THN_NODES; i++) {
		fds[i] = thn_open(i);
		if (fds[i] < 0)
			return 1;
	}
	if (thn_query(fds[0], &q))
		return 2;
	l->max = q.max_user_vports;
	/* smallest rings, spread over every node: the limit is per user */
	while (!ret && l->made < 100000) {
		ret = thn_vport_create_raw(fds[l->made % THN_NODES], 16, 16, &c);
		if (!ret)
			l->made++;
	}
	l->refusal = ret;
	__atomic_store_n(&l->ready, 1, __ATOMIC_RELEASE);
	if (!thn_wait_word(&l->other_done, 1, 4 * THN_WAIT_MS))
		return 3;
	close(fds[0]);
	l->after_close = thn_vport_create_raw(fds[1], 16, 16, &c);
	return 0;
}

static int vport_other(void *arg)
{
	struct vport_limit *l = arg;
	struct th_nic_vport_create c;
	int fd;

	if (!thn_wait_word(&l->ready, 1, 8 * THN_WAIT_MS))
		return 1;
	fd = thn_open(THN_NODES - 1);
	l->other_user = fd < 0 ? fd : thn_vport_create_raw(fd, 16, 16, &c);
	__atomic_store_n(&l->other_done, 1, __ATOMIC_RELEASE);
	return 0;
}

TEST(vports_per_user_are_limited)
{
	struct vport_limit *l = thn_shared(sizeof(*l));
	int status;
	pid_t hog;

	THN_NEED_ROOT();
	ASSERT_NE(NULL, l);
	hog = fork();
	ASSERT_LE(0, hog);
	if (!hog) {
		if (thn_become(THN_UID_A))
			_exit(100);
		_exit(vport_hog(l));
	}
	EXPECT_EQ(0, thn_run_as(THN_UID_B, vport_other, l));
	ASSERT_EQ(hog, waitpid(hog, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	/* the default fabric has 1024 vport slots: a user gets a quarter */
	EXPECT_LT(0, l->max);
	EXPECT_GT(THN_NODES * THN_DEF_VPORTS, l->max);
	EXPECT_EQ(l->max, l->made);
	EXPECT_EQ(-ENOSPC, l->refusal);
	EXPECT_EQ(0, l->other_user);
	/* closing a node's file gives its vports back */
	EXPECT_EQ(0, l->after_close);
}

/* ---- vports per user on one node --------------------------------------- */

#define CAP_NODE	3

struct node_limit {
	__u32 cap;		/* max_user_node_vports */
	__u32 made;		/* on CAP_NODE before the refusal */
	int refusal;
	int other_node;		/* the same user on another node */
	int other_user;		/* another user on CAP_NODE */
	int after_close;	/* on CAP_NODE again, after closing one */
	__u32 ready, other_done;
};

/* The module parameter; 32, its documented default, if it cannot be read. */
static __u32 node_cap(void)
{
	FILE *f = fopen("/sys/module/th_nic/parameters/max_user_node_vports",
			"r");
	unsigned int v = 32;

	if (f) {
		if (fscanf(f, "%u", &v) != 1)
			v = 32;
		fclose(f);
	}
	return v;
}

static int node_hog(void *arg)
{
	struct node_limit *l = arg;
	struct th_nic_vport_create c, first;
	int fd = thn_open(CAP_NODE), fd2 = thn_open(CAP_NODE + 1), ret = 0;

	if (fd < 0 || fd2 < 0)
		return 1;
	while (!ret && l->made < THN_DEF_VPORTS + 1) {
		ret = thn_vport_create_raw(fd, 16, 16, l->made ? &c : &first);
		if (!ret)
			l->made++;
	}
	l->refusal = ret;
	l->other_node = thn_vport_create_raw(fd2, 16, 16, &c);
	__atomic_store_n(&l->ready, 1, __ATOMIC_RELEASE);
	if (!thn_wait_word(&l->other_done, 1, 4 * THN_WAIT_MS))
		return 3;
	if (thn_vport_destroy_id(fd, first.vport))
		return 4;
	l->after_close = thn_vport_create_raw(fd, 16, 16, &c);
	return 0;
}

static int node_other(void *arg)
{
	struct node_limit *l = arg;
	struct th_nic_vport_create c;
	int fd;

	if (!thn_wait_word(&l->ready, 1, 8 * THN_WAIT_MS))
		return 1;
	fd = thn_open(CAP_NODE);
	l->other_user = fd < 0 ? fd : thn_vport_create_raw(fd, 16, 16, &c);
	__atomic_store_n(&l->other_done, 1, __ATOMIC_RELEASE);
	return 0;
}

/*
 * One user holds at most max_user_node_vports of one node (-EDQUOT past
 * it, not the node's -ENOSPC): the node keeps room for other users, and
 * the user still has the other nodes.
 */
TEST(vports_per_user_on_one_node_are_limited)
{
	struct node_limit *l = thn_shared(sizeof(*l));
	int status;
	pid_t hog;

	THN_NEED_ROOT();
	ASSERT_NE(NULL, l);
	l->cap = node_cap();
	hog = fork();
	ASSERT_LE(0, hog);
	if (!hog) {
		if (thn_become(THN_UID_A))
			_exit(100);
		_exit(node_hog(l));
	}
	EXPECT_EQ(0, thn_run_as(THN_UID_B, node_other, l));
	ASSERT_EQ(hog, waitpid(hog, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("hog: status %#x", status);
	/* a share of a node, enough for 32 collectives of one rank */
	EXPECT_LE(32, l->cap);
	EXPECT_GT(THN_DEF_VPORTS, l->cap);
	EXPECT_EQ(l->cap, l->made);
	EXPECT_EQ(-EDQUOT, l->refusal);
	EXPECT_EQ(0, l->other_node);
	EXPECT_EQ(0, l->other_user);
	EXPECT_EQ(0, l->after_close);
}

/* ---- pending chains per user ------------------------------------------- */

struct chain_limit {
	__u32 max, posted, reason, after_cancel_reason;
	int refusal, after_cancel;
};

/*
 * Chains that wait forever (a counter nobody raises), 1000 per vport,
 * until the NIC refuses: the refusal names the user's limit, and
 * cancelling some makes room again.
 */
static int chain_hog(void *arg)
{
	struct chain_limit *l = arg;
	struct th_nic_doorbell db;
	struct th_nic_desc d;
	struct th_nic_query q;
	struct thn_vport v[64];
	__u32 cancelled, i, nv = 0;
	int fd = thn_open(3), ret = 0;

	if (fd < 0 || thn_query(fd, &q))
		return 1;
	l->max = q.max_user_chains;
	while (!ret && nv < 64) {
		if (thn_vport_open(fd, 1024, 1024, &v[nv]))
			return 2;
		for (i = 0; i < 1000; i++) {
			d = thn_nop();
			thn_trigger(&d, 1, 1, i);
			v[nv].sq_slots[(*v[nv].sq_tail + i) & v[nv].sq_mask] = d;
		}
		__atomic_store_n(v[nv].sq_tail, *v[nv].sq_tail + 1000,
				 __ATOMIC_RELEASE);
		ret = thn_doorbell(&v[nv], &db);
		l->posted += db.chains;
		l->reason = db.reason;
		nv++;
	}
	l->refusal = ret;
	/* room again once some complete (cancelled) */
	if (thn_cancel(&v[0], false, 0, &cancelled) || cancelled != 1000)
		return 3;
	ret = thn_doorbell(&v[nv - 1], &db);
	l->after_cancel = ret;
	l->after_cancel_reason = db.reason;
	close(fd);
	return 0;
}

TEST(pending_chains_per_user_are_limited)
{
	struct chain_limit *l = thn_shared(sizeof(*l));

	THN_NEED_ROOT();
	ASSERT_NE(NULL, l);
	EXPECT_EQ(0, thn_run_as(THN_UID_A, chain_hog, l));
	EXPECT_LT(0, l->max);
	EXPECT_EQ(l->max, l->posted);
	EXPECT_EQ(-ENOSPC, l->refusal);
	EXPECT_EQ(TH_NIC_REFUSE_USER_CHAINS, l->reason);
	EXPECT_EQ(0, l->after_cancel);
	EXPECT_EQ(TH_NIC_REFUSE_NONE, l->after_cancel_reason);
}

/* ---- pinned memory stays charged to the user -------------------------- */

struct memlock {
	int vport_fd;
	__u32 vport;
	void *mem;		/* shared: valid in the child and after it */
	int child_reg, parent_reg, parent_after_close;
};

#define PIN_BYTES	(256 * 1024)

/* The child registers on the parent's vport (shared fd), then exits. */
static int memlock_child(struct memlock *m)
{
	struct thn_vport v = { .fd = m->vport_fd, .id = m->vport };
	struct thn_key key;

	m->child_reg = thn_mr_reg(&v, m->mem, PIN_BYTES, TH_NIC_ACCESS_ALL,
				  &key);
	return 0;
}

static int memlock_run(void *arg)
{
	struct memlock *m = arg;
	struct thn_vport v;
	struct thn_key key;
	int status;
	pid_t pid;

	m->vport_fd = thn_open(4);
	if (m->vport_fd < 0 || thn_vport_open(m->vport_fd, 16, 16, &v))
		return 1;
	m->vport = v.id;
	pid = fork();
	if (!pid)
		_exit(memlock_child(m));
	if (waitpid(pid, &status, 0) != pid)
		return 2;
	/*
	 * The child's mm is gone, its pages still pinned: the charge stayed
	 * with the user, so the limit (one region's worth) is reached.
	 */
	m->parent_reg = thn_mr_reg(&v, (char *)m->mem + PIN_BYTES, PIN_BYTES,
				   TH_NIC_ACCESS_ALL, &key);
	/* destroying the vport unpins, whoever registered: room again */
	thn_vport_close(&v);
	close(m->vport_fd);
	m->vport_fd = thn_open(4);
	if (m->vport_fd < 0 || thn_vport_open(m->vport_fd, 16, 16, &v))
		return 3;
	m->parent_after_close = thn_mr_reg(&v, (char *)m->mem + PIN_BYTES,
					   PIN_BYTES, TH_NIC_ACCESS_ALL, &key);
	close(m->vport_fd);
	return 0;
}

TEST(pinned_pages_stay_charged_to_the_user)
{
	struct memlock *m = thn_shared(sizeof(*m));
	struct rlimit rl = { PIN_BYTES + 4096, PIN_BYTES + 4096 };
	struct rlimit old;

	THN_NEED_ROOT();
	ASSERT_NE(NULL, m);
	m->mem = thn_shared(2 * PIN_BYTES);
	ASSERT_NE(NULL, m->mem);
	memset(m->mem, 1, 2 * PIN_BYTES);
	/* the limit the unprivileged children inherit: one region fits */
	ASSERT_EQ(0, getrlimit(RLIMIT_MEMLOCK, &old));
	ASSERT_EQ(0, setrlimit(RLIMIT_MEMLOCK, &rl));
	EXPECT_EQ(0, thn_run_as(THN_UID_B, memlock_run, m));
	ASSERT_EQ(0, setrlimit(RLIMIT_MEMLOCK, &old));
	EXPECT_EQ(0, m->child_reg);
	EXPECT_EQ(-ENOMEM, m->parent_reg);
	EXPECT_EQ(0, m->parent_after_close);
}

/* ---- memory cgroup ------------------------------------------------------ */

#define CG_ROOT	"/sys/fs/cgroup"
#define CG_DIR	CG_ROOT "/th_nic_limits"

static int cg_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		ret = -errno;
	close(fd);
	return ret;
}

static long long cg_read(const char *path)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? atoll(buf) : -1;
}

/* A memory cgroup of our own, or a reason why not. */
static const char *cg_setup(void)
{
	char controllers[256] = "";
	int fd;

	mkdir(CG_ROOT, 0755);
	if (access(CG_ROOT "/cgroup.controllers", F_OK) &&
	    mount("cgroup2", CG_ROOT, "cgroup2", 0, NULL))
		return "cannot mount cgroup2";
	fd = open(CG_ROOT "/cgroup.controllers", O_RDONLY);
	if (fd < 0 || read(fd, controllers, sizeof(controllers) - 1) < 0) {
		if (fd >= 0)
			close(fd);
		return "no cgroup.controllers";
	}
	close(fd);
	if (!strstr(controllers, "memory"))
		return "no memory controller";
	cg_write(CG_ROOT "/cgroup.subtree_control", "+memory");
	rmdir(CG_DIR);
	if (mkdir(CG_DIR, 0755))
		return "cannot create a cgroup";
	return NULL;
}

struct cg_run {
	long long before, after_vports, at_refusal;
	__u32 made, made_limited;
	int refusal;
};

/* Vports with the largest rings: what each one costs the cgroup. */
static int cg_vports(void *arg)
{
	struct cg_run *r = arg;
	struct th_nic_vport_create c;
	int fd = thn_open(5);

	if (fd < 0)
		return 1;
	r->before = cg_read(CG_DIR "/memory.current");
	while (r->made < 8 && !thn_vport_create_raw(fd, 0, 0, &c))
		r->made++;
	r->after_vports = cg_read(CG_DIR "/memory.current");
	close(fd);
	return 0;
}

/* The same with memory.max set: the cgroup refuses before the NIC does. */
static int cg_vports_limited(void *arg)
{
	struct cg_run *r = arg;
	struct th_nic_vport_create c;
	int fds[THN_NODES], i, ret = 0;

	for (i = 0; i < THN_NODES; i++) {
		fds[i] = thn_open(i);
		if (fds[i] < 0)
			return 1;
	}
	while (!ret && r->made_limited < 100000) {
		ret = thn_vport_create_raw(fds[r->made_limited % THN_NODES], 0, 0,
					   &c);
		if (!ret)
			r->made_limited++;
	}
	r->refusal = ret;
	r->at_refusal = cg_read(CG_DIR "/memory.current");
	return 0;
}

/* Move this process into cgroup directory @dir: its children follow. */
static int cg_enter(const char *dir)
{
	char path[128], pid[32];

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	snprintf(pid, sizeof(pid), "%d", getpid());
	return cg_write(path, pid);
}

TEST(kernel_memory_is_charged_to_the_callers_cgroup)
{
	struct cg_run *r = thn_shared(sizeof(*r));
	const char *why;
	char pid[32];

	THN_NEED_ROOT();
	ASSERT_NE(NULL, r);
	why = cg_setup();
	if (why)
		SKIP(return, "%s", why);
	/* the test process joins the cgroup, its unprivileged child with it */
	ASSERT_EQ(0, cg_enter(CG_DIR));
	ASSERT_EQ(0, thn_run_as(THN_UID_A, cg_vports, r));
	ASSERT_EQ(0, cg_enter(CG_ROOT));
	EXPECT_EQ(8, r->made);
	/* 8 vports of a 128 KiB SQ, 32 KiB CQ, counters, state: > 1 MiB */
	TH_LOG("8 vports charged %lld bytes to their cgroup",
	       r->after_vports - r->before);
	EXPECT_LE(8LL * (128 + 32 + 4) * 1024, r->after_vports - r->before);

	/* 2 MiB more than the empty cgroup holds: some vports, far below 256 */
	snprintf(pid, sizeof(pid), "%lld", cg_read(CG_DIR "/memory.current") +
		 (2LL << 20));
	ASSERT_EQ(0, cg_write(CG_DIR "/memory.max", pid));
	ASSERT_EQ(0, cg_enter(CG_DIR));
	EXPECT_EQ(0, thn_run_as(THN_UID_A, cg_vports_limited, r));
	ASSERT_EQ(0, cg_enter(CG_ROOT));
	TH_LOG("with 2 MiB to spare: %u vports, then %d", r->made_limited,
	       r->refusal);
	EXPECT_EQ(-ENOMEM, r->refusal);
	EXPECT_LT(0, r->made_limited);
	EXPECT_GT(64, r->made_limited);
	rmdir(CG_DIR);
}

/* ---- mappings ------------------------------------------------------------ */

/* Private mappings would be copy-on-write pages the NIC never sees. */
TEST(private_mappings_are_refused)
{
	struct th_nic_vport_create c;
	int fd = thn_open(6);
	void *p;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, thn_vport_create_raw(fd, 16, 16, &c));
	p = mmap(NULL, c.sq_mmap_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd,
		 c.sq_mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, c.cq_mmap_size, PROT_READ, MAP_PRIVATE, fd,
		 c.cq_mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	p = mmap(NULL, c.ct_mmap_size, PROT_READ, MAP_PRIVATE, fd,
		 c.ct_mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	/* shared is fine */
	p = mmap(NULL, c.ct_mmap_size, PROT_READ, MAP_SHARED, fd,
		 c.ct_mmap_offset);
	EXPECT_NE(MAP_FAILED, p);
	close(fd);
}

TEST_HARNESS_MAIN
