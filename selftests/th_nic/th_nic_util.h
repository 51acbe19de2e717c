/* SPDX-License-Identifier: GPL-2.0 */
/*
 * th_nic_util.h - header-only helpers for the th_nic kselftests: open a
 * node, create a vport and map its rings and counter page, register
 * memory, post descriptors through the SQ and ring the doorbell, reap the
 * CQ, counter ioctls, and descriptor constructors.
 *
 * Every call returns 0 (or a count) or a negative errno, never -1: tests
 * compare against -EINVAL and friends directly.  Ring indices follow the
 * ownership rules of struct th_nic_ring_offsets: userspace writes the SQ
 * tail and the CQ head (release) and reads the NIC's indices (acquire).
 */
#ifndef TH_NIC_UTIL_H
#define TH_NIC_UTIL_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/th_nic.h>

#include "th_desc.h"

/* The limits as run.sh loads th_nic.ko (Documentation/uapi.rst, "Limits"). */
#define THN_NODES		16
#define THN_DEF_VPORTS		64
#define THN_DEF_COUNTERS	256
#define THN_DEF_SQ		1024
#define THN_DEF_CQ		1024
#define THN_DEF_CHAIN		16
#define THN_DEF_MRS		64
#define THN_DEF_MR_SIZE		(1ULL << 30)
#define THN_DEF_USER_VPORTS	256
#define THN_DEF_USER_CHAINS	16384

/* Generous: the VM runs under TCG, an order of magnitude slower. */
#define THN_WAIT_MS		5000

/**
 * struct thn_vport - a vport and its three mappings
 * @fd: the node's file descriptor (not owned)
 * @info: what VPORT_CREATE returned
 * @id: the vport index (@info.vport)
 * @sq: SQ mapping, @sq_len bytes
 * @cq: CQ mapping, @cq_len bytes
 * @cts: counter page (read-only), @ct_len bytes
 * @sq_head: SQ consumer index (the NIC writes it)
 * @sq_tail: SQ producer index (we write it)
 * @sq_slots: SQ slot 0
 * @cq_head: CQ consumer index (we write it)
 * @cq_tail: CQ producer index (the NIC writes it)
 * @cq_slots: CQ slot 0
 * @sq_mask: SQ entries - 1, read from the mapping
 * @cq_mask: CQ entries - 1, read from the mapping
 */
struct thn_vport {
	int fd;
	struct th_nic_vport_create info;
	__u32 id;
	void *sq, *cq;
	const struct th_nic_ct *cts;
	size_t sq_len, cq_len, ct_len;
	__u32 *sq_head, *sq_tail, *cq_head, *cq_tail;
	struct th_nic_desc *sq_slots;
	struct th_nic_cqe *cq_slots;
	__u32 sq_mask, cq_mask;
};

/* ---- plumbing ---------------------------------------------------------- */

static inline __u64 thn_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline void thn_sleep_us(unsigned int us)
{
	struct timespec ts = { us / 1000000, (long)(us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

/* A line on stdout, flushed: the harness _exit()s its test children. */
static inline void __attribute__((format(printf, 1, 2)))
thn_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("# ");
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

/* ioctl() returning 0 or -errno. */
static inline int thn_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

/*
 * Without the module there is nothing to test: say so and exit with
 * kselftest's skip status (4), once, before the harness starts, as
 * `make -C tools/testing/selftests TARGETS=th_nic run_tests` expects on a
 * machine that has not loaded th_nic.ko.  (In the project's VM run the
 * module's insmod is a test of its own, so a failed load is not hidden.)
 */
static void __attribute__((constructor, used)) thn_require_module(void)
{
	if (access("/dev/th_nic0", F_OK) == 0)
		return;
	printf("TAP version 13\n1..0 # SKIP th_nic.ko is not loaded (no /dev/th_nic0)\n");
	exit(4);
}

/* Open /dev/th_nic<node>: the fd, or -errno. */
static inline int thn_open(unsigned int node)
{
	char path[32];
	int fd;

	snprintf(path, sizeof(path), "/dev/th_nic%u", node);
	fd = open(path, O_RDWR | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static inline int thn_query(int fd, struct th_nic_query *q)
{
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	return thn_ioctl(fd, TH_NIC_IOCTL_QUERY, q);
}

/* ---- vports ------------------------------------------------------------ */

static inline void *thn_map(int fd, __u64 off, __u64 len, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_SHARED, fd, (off_t)off);

	return p == MAP_FAILED ? NULL : p;
}

static inline __u32 *thn_u32_at(void *base, __u32 off)
{
	return (__u32 *)((char *)base + off);
}

/* VPORT_CREATE alone, no mappings. */
static inline int thn_vport_create_raw(int fd, __u32 sq_entries,
				       __u32 cq_entries,
				       struct th_nic_vport_create *c)
{
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->sq_entries = sq_entries;
	c->cq_entries = cq_entries;
	return thn_ioctl(fd, TH_NIC_IOCTL_VPORT_CREATE, c);
}

static inline int thn_vport_destroy_id(int fd, __u32 vport)
{
	struct th_nic_vport_destroy d = {
		.size = sizeof(d),
		.vport = vport,
	};

	return thn_ioctl(fd, TH_NIC_IOCTL_VPORT_DESTROY, &d);
}

/* Drop the three mappings (the vport itself stays). */
static inline void thn_vport_unmap(struct thn_vport *vp)
{
	if (vp->sq)
		munmap(vp->sq, vp->sq_len);
	if (vp->cq)
		munmap(vp->cq, vp->cq_len);
	if (vp->cts)
		munmap((void *)vp->cts, vp->ct_len);
	vp->sq = NULL;
	vp->cq = NULL;
	vp->cts = NULL;
}

/*
 * Create a vport on @fd (0 entries: the maximum) and map its SQ and CQ
 * read/write and its counter page read-only, at the offsets and sizes the
 * kernel returned.
 */
/*
 * Map the SQ and CQ read/write and the counter page read-only of the
 * vport @vp->info describes, at the offsets and sizes the kernel returned;
 * on failure the vport is destroyed.
 */
static inline int thn_vport_map(struct thn_vport *vp)
{
	struct th_nic_vport_create *c = &vp->info;
	int fd = vp->fd, ret;

	vp->id = c->vport;
	vp->sq_len = c->sq_mmap_size;
	vp->cq_len = c->cq_mmap_size;
	vp->ct_len = c->ct_mmap_size;
	vp->sq = thn_map(fd, c->sq_mmap_offset, c->sq_mmap_size,
			 PROT_READ | PROT_WRITE);
	vp->cq = thn_map(fd, c->cq_mmap_offset, c->cq_mmap_size,
			 PROT_READ | PROT_WRITE);
	vp->cts = thn_map(fd, c->ct_mmap_offset, c->ct_mmap_size, PROT_READ);
	if (!vp->sq || !vp->cq || !vp->cts) {
		ret = -errno;
		thn_vport_unmap(vp);
		thn_vport_destroy_id(fd, vp->id);
		return ret;
	}
	vp->sq_head = thn_u32_at(vp->sq, c->sq_off.head);
	vp->sq_tail = thn_u32_at(vp->sq, c->sq_off.tail);
	vp->sq_mask = *thn_u32_at(vp->sq, c->sq_off.ring_mask);
	vp->sq_slots = (void *)((char *)vp->sq + c->sq_off.slots);
	vp->cq_head = thn_u32_at(vp->cq, c->cq_off.head);
	vp->cq_tail = thn_u32_at(vp->cq, c->cq_off.tail);
	vp->cq_mask = *thn_u32_at(vp->cq, c->cq_off.ring_mask);
	vp->cq_slots = (void *)((char *)vp->cq + c->cq_off.slots);
	return 0;
}

/*
 * Create a vport on @fd (0 entries: the maximum) in the caller's own
 * domain, and map it (thn_vport_map()).
 */
static inline int thn_vport_open(int fd, __u32 sq_entries, __u32 cq_entries,
				 struct thn_vport *vp)
{
	int ret;

	memset(vp, 0, sizeof(*vp));
	vp->fd = fd;
	ret = thn_vport_create_raw(fd, sq_entries, cq_entries, &vp->info);
	if (ret)
		return ret;
	return thn_vport_map(vp);
}

/* Unmap, then VPORT_DESTROY. */
static inline int thn_vport_close(struct thn_vport *vp)
{
	thn_vport_unmap(vp);
	return thn_vport_destroy_id(vp->fd, vp->id);
}

/* ---- memory regions ---------------------------------------------------- */

/* The two keys of a region: local descriptors use @l, peers @r. */
struct thn_key {
	__u32 l;
	__u64 r;
};

static inline int thn_mr_reg(struct thn_vport *vp, const void *addr, __u64 len,
			     __u32 access, struct thn_key *key)
{
	struct th_nic_mr_reg r = {
		.size = sizeof(r),
		.vport = vp->id,
		.access = access,
		.addr = (__u64)(uintptr_t)addr,
		.length = len,
	};
	int ret = thn_ioctl(vp->fd, TH_NIC_IOCTL_MR_REG, &r);

	if (!ret) {
		key->l = r.lkey;
		key->r = r.rkey;
	}
	return ret;
}

static inline int thn_mr_dereg(struct thn_vport *vp, __u32 lkey)
{
	struct th_nic_mr_dereg r = {
		.size = sizeof(r),
		.vport = vp->id,
		.lkey = lkey,
	};

	return thn_ioctl(vp->fd, TH_NIC_IOCTL_MR_DEREG, &r);
}

/* Open descriptors of this process (/proc/self/fd), or -1. */
static inline int thn_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;	/* not the one opendir() holds */
}

/* Page-aligned anonymous memory, or NULL. */
static inline void *thn_alloc(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* ---- SQ and doorbell --------------------------------------------------- */

static inline __u32 thn_sq_head(struct thn_vport *vp)
{
	return __atomic_load_n(vp->sq_head, __ATOMIC_ACQUIRE);
}

static inline int thn_doorbell(struct thn_vport *vp, struct th_nic_doorbell *db)
{
	struct th_nic_doorbell scratch;

	if (!db)
		db = &scratch;
	memset(db, 0, sizeof(*db));
	db->size = sizeof(*db);
	db->vport = vp->id;
	return thn_ioctl(vp->fd, TH_NIC_IOCTL_DOORBELL, db);
}

/*
 * Write @n descriptors at the SQ tail, publish the tail (release) and
 * ring the doorbell.  A refused chain stays in the SQ; thn_sq_rewind()
 * drops it.
 */
static inline int thn_post(struct thn_vport *vp, const struct th_nic_desc *d,
			   __u32 n, struct th_nic_doorbell *db)
{
	__u32 tail = *vp->sq_tail, i;

	for (i = 0; i < n; i++)
		memcpy(&vp->sq_slots[(tail + i) & vp->sq_mask], &d[i],
		       sizeof(d[i]));
	__atomic_store_n(vp->sq_tail, tail + n, __ATOMIC_RELEASE);
	return thn_doorbell(vp, db);
}

/* Take back what the NIC did not consume: tail = head. */
static inline void thn_sq_rewind(struct thn_vport *vp)
{
	__atomic_store_n(vp->sq_tail, thn_sq_head(vp), __ATOMIC_RELEASE);
}

/* ---- CQ ---------------------------------------------------------------- */

static inline __u32 thn_cq_pending(struct thn_vport *vp)
{
	return __atomic_load_n(vp->cq_tail, __ATOMIC_ACQUIRE) - *vp->cq_head;
}

/* Take up to @max entries now, advancing the CQ head. */
static inline __u32 thn_cq_drain(struct thn_vport *vp, struct th_nic_cqe *out,
				 __u32 max)
{
	__u32 head = *vp->cq_head, n = 0;
	__u32 tail = __atomic_load_n(vp->cq_tail, __ATOMIC_ACQUIRE);

	while (head != tail && n < max) {
		if (out)
			memcpy(&out[n], &vp->cq_slots[head & vp->cq_mask],
			       sizeof(*out));
		n++;
		head++;
	}
	__atomic_store_n(vp->cq_head, head, __ATOMIC_RELEASE);
	return n;
}

/*
 * Collect exactly @want entries, waiting up to @ms in poll(2) for them;
 * returns how many arrived (fewer on timeout).  Never takes more than
 * @want.
 */
static inline __u32 thn_cq_wait(struct thn_vport *vp, struct th_nic_cqe *out,
				__u32 want, int ms)
{
	__u64 deadline = thn_now_ns() + (__u64)ms * 1000000ULL;
	struct pollfd pfd = { .fd = vp->fd, .events = POLLIN };
	__u32 got = 0;

	for (;;) {
		__u32 n = thn_cq_drain(vp, out ? out + got : NULL, want - got);

		got += n;
		if (got == want || thn_now_ns() >= deadline)
			return got;
		/*
		 * POLLIN covers every vport of the fd, so it may be another
		 * vport's entry: then back off instead of spinning.
		 */
		if (poll(&pfd, 1, 10) > 0 && !thn_cq_pending(vp))
			thn_sleep_us(100);
	}
}

/* ---- counters ---------------------------------------------------------- */

static inline __u64 thn_ct(struct thn_vport *vp, __u32 idx)
{
	return __atomic_load_n(&vp->cts[idx].success, __ATOMIC_ACQUIRE);
}

static inline __u64 thn_ct_fail(struct thn_vport *vp, __u32 idx)
{
	return __atomic_load_n(&vp->cts[idx].failure, __ATOMIC_ACQUIRE);
}

static inline int thn_ct_update(struct thn_vport *vp, unsigned long cmd,
				__u32 flags, __u32 idx, __u64 value,
				__u64 failure)
{
	struct th_nic_ct_update u = {
		.size = sizeof(u),
		.flags = flags,
		.vport = vp->id,
		.ct = idx,
		.value = value,
		.failure = failure,
	};

	return thn_ioctl(vp->fd, cmd, &u);
}

static inline int thn_ct_set(struct thn_vport *vp, __u32 idx, __u64 value,
			     __u64 failure)
{
	return thn_ct_update(vp, TH_NIC_IOCTL_CT_SET, 0, idx, value, failure);
}

static inline int thn_ct_inc(struct thn_vport *vp, __u32 idx, __s64 delta)
{
	return thn_ct_update(vp, TH_NIC_IOCTL_CT_INC, 0, idx, (__u64)delta, 0);
}

/* Raise the failure value of counter @idx by @delta. */
static inline int thn_ct_fail_inc(struct thn_vport *vp, __u32 idx, __u64 delta)
{
	return thn_ct_update(vp, TH_NIC_IOCTL_CT_INC, TH_NIC_CT_F_FAILURE, idx,
			     delta, 0);
}

/* CT_WAIT; @out (may be NULL) gets the values the kernel saw last. */
static inline int thn_ct_wait(struct thn_vport *vp, __u32 idx, __u64 threshold,
			      __u64 timeout_ns, struct th_nic_ct_wait *out)
{
	struct th_nic_ct_wait w = {
		.size = sizeof(w),
		.vport = vp->id,
		.ct = idx,
		.threshold = threshold,
		.timeout_ns = timeout_ns,
	};
	int ret = thn_ioctl(vp->fd, TH_NIC_IOCTL_CT_WAIT, &w);

	if (out)
		*out = w;
	return ret;
}

/* CANCEL every pending chain of @vp, or those with @cookie. */
static inline int thn_cancel(struct thn_vport *vp, bool by_cookie,
			     __u64 cookie, __u32 *cancelled)
{
	struct th_nic_cancel c = {
		.size = sizeof(c),
		.flags = by_cookie ? TH_NIC_CANCEL_F_COOKIE : 0,
		.vport = vp->id,
		.cookie = cookie,
	};
	int ret = thn_ioctl(vp->fd, TH_NIC_IOCTL_CANCEL, &c);

	if (cancelled)
		*cancelled = c.cancelled;
	return ret;
}

/* Descriptor constructors (thn_put() ...): selftests/common/th_desc.h */

/* A one-NOTIFY chain (imm = cookie) that fires when @ct reaches @thr. */
static inline int thn_post_notify(struct thn_vport *vp, __u16 ct, __u64 thr,
				  __u64 cookie)
{
	struct th_nic_desc d = thn_notify(cookie);

	thn_trigger(&d, ct, thr, cookie);
	return thn_post(vp, &d, 1, NULL);
}

/* ---- processes --------------------------------------------------------- */

/* Shared anonymous memory that survives fork(), zeroed; NULL on failure. */
static inline void *thn_shared(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Spin (sleeping) until *@word >= @want or @ms pass; true if reached. */
static inline bool thn_wait_word(const volatile __u32 *word, __u32 want, int ms)
{
	__u64 deadline = thn_now_ns() + (__u64)ms * 1000000ULL;

	while (__atomic_load_n(word, __ATOMIC_ACQUIRE) < want) {
		if (thn_now_ns() >= deadline)
			return false;
		thn_sleep_us(200);
	}
	return true;
}

/*
 * Become an unprivileged user for good: no supplementary groups, @uid as
 * real, effective and saved uid (and gid), and so no capabilities.  Only
 * root can do it; returns 0 or -errno.
 */
static inline int thn_become(uid_t uid)
{
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid))
		return -errno;
	return getuid() == uid && geteuid() == uid ? 0 : -EPERM;
}

/* Unprivileged users the tests run as (nobody and its neighbour). */
#define THN_UID_A	65533
#define THN_UID_B	65534

/*
 * Run @fn(@arg) in a child process that becomes @uid first when it runs
 * as root (an unprivileged caller stays who it is); the child's exit
 * status, or -1 if it did not exit.  Resource limits are inherited: raise
 * them before the call.
 */
static inline int thn_run_as(uid_t uid, int (*fn)(void *arg), void *arg)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		if (!geteuid() && thn_become(uid))
			_exit(100);
		_exit(fn(arg));
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* In a kselftest: skip unless root, which two different users need. */
#define THN_NEED_ROOT() do {						\
	if (geteuid())							\
		SKIP(return, "needs root to become unprivileged users");	\
} while (0)

/* ---- domains ----------------------------------------------------------- */

/* DOMAIN_CREATE on @fd: the new domain's descriptor, or -errno. */
static inline int thn_domain_create(int fd)
{
	struct th_nic_domain_create c = { .size = sizeof(c) };
	int ret = thn_ioctl(fd, TH_NIC_IOCTL_DOMAIN_CREATE, &c);

	return ret ? ret : c.fd;
}

/* VPORT_CREATE in domain @dom (a descriptor), then the mappings. */
static inline int thn_vport_open_in(int fd, int dom, struct thn_vport *vp)
{
	struct th_nic_vport_create *c = &vp->info;
	int ret;

	memset(vp, 0, sizeof(*vp));
	vp->fd = fd;
	c->size = sizeof(*c);
	c->flags = TH_NIC_VPORT_F_DOMAIN;
	c->domain_fd = dom;
	ret = thn_ioctl(fd, TH_NIC_IOCTL_VPORT_CREATE, c);
	if (ret)
		return ret;
	return thn_vport_map(vp);
}

/* Send descriptor @fd over UNIX socket @sock (SCM_RIGHTS). */
static inline int thn_send_fd(int sock, int fd)
{
	char byte = 'D', ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &byte, 1 };
	struct msghdr m = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);

	memset(ctl, 0, sizeof(ctl));
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &m, 0) == 1 ? 0 : -errno;
}

/* Receive a descriptor sent by thn_send_fd(): it, or -errno. */
static inline int thn_recv_fd(int sock)
{
	char byte, ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &byte, 1 };
	struct msghdr m = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *c;
	int fd;

	if (recvmsg(sock, &m, 0) != 1)
		return -EIO;
	c = CMSG_FIRSTHDR(&m);
	if (!c || c->cmsg_type != SCM_RIGHTS)
		return -EIO;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

#endif /* TH_NIC_UTIL_H */
