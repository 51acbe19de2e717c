// SPDX-License-Identifier: GPL-2.0
/*
 * syscall_fuzz_test.c - a structured fuzzer of th_nic.ko's system calls,
 * as unprivileged users: several processes, each with a thread racing
 * its doorbells, draw from a seeded generator
 *   - opens and closes of random nodes (a close with vports and mappings
 *     still up), vports created and destroyed with sizes good and bad;
 *   - mmaps of random offsets, lengths and protections, and munmaps;
 *   - MR registrations of good, unmapped, read-only and huge ranges, and
 *     deregistrations of keys real and guessed;
 *   - bursts of chains written to the SQ and rung (the bulk of the
 *     chains), SQ slots rewritten by the racing thread while the doorbell
 *     reads them, counter updates, waits and cancels;
 *   - raw ioctls: any command number of the driver's type with any size,
 *     direction and bytes, and bad pointers;
 *   - forks whose child uses the inherited descriptors, or is killed.
 * What must hold: every chain a burst got accepted completes exactly once
 * (one final CQ entry) on a vport nothing random touched; every process
 * ends within its deadline; afterwards no vport is left (the netlink
 * statistics) and no page stays pinned (/proc/vmstat).  The kernel's own
 * checkers judge the rest: on the debug kernel (make vmtest-debug) any
 * KASAN, lockdep, UBSAN or kmemleak report fails the run.
 * Budget: TH_VMFUZZ_IOCTLS ioctls and TH_VMFUZZ_CHAINS chains accepted,
 * within TH_VMFUZZ_SECONDS (600, at most 1700).  By default 20000 and
 * 200000, a quick pass for Debian's kernel; make vmtest-debug, where the
 * checkers are, asks for 100000 and 1000000 (8 minutes there: a chain
 * costs 1.3 ms under KASAN and lockdep in TCG).
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/resource.h>

#include "kselftest_harness.h"
#include "th_nic_util.h"
#include "th_nl_util.h"
#include "th_vmstat.h"

#define WORKERS		4
#define MAXFD		3
#define MAXVP		6
#define MAXMR		8
#define MAXMAP		8
#define AREA		(64 * 1024)
#define NAREA		4
#define SQ_N		256
#define CQ_N		256
#define BURST		128

static __u64 rnd(__u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* What the workers report, in shared memory. */
struct wstats {
	_Atomic __u64 ioctls, chains, finals, bursts, races, raw, forks;
	_Atomic __u64 vports, mrs, maps, closes;
	_Atomic __u64 lost, dup;	/* exactly-once broken: must stay 0 */
	_Atomic __u64 done;		/* 1 when the worker finished */
	_Atomic __u64 op_ns[16], op_n[16];	/* by struct fop */
};

struct fvp {
	bool live;
	bool accounted;		/* only bursts touched it: check exactly-once */
	int fdi;
	struct thn_vport v;
	__u64 accepted, finals;
	__u32 lkey;		/* an MR of its own for the bursts, or 0 */
};

struct fmr {
	int vpi;		/* -1: free */
	__u32 lkey;
	__u64 rkey;
};

struct fmap {
	void *p;
	size_t len;
};

struct worker {
	__u64 seed;
	int fds[MAXFD];
	struct fvp vp[MAXVP];
	struct fmr mr[MAXMR];
	struct fmap map[MAXMAP];
	__u8 *area[NAREA];
	__u64 want_ioctls, want_chains, deadline;
	struct wstats *st;
	/*
	 * The racing thread: rewrites @race_vp's slots while it is set, with
	 * @race_busy up from before it reads @race_vp until its write is
	 * done, so that the worker, having cleared @race_vp, can wait until
	 * no write into that SQ is still to come before it may unmap it.
	 */
	_Atomic(struct thn_vport *) race_vp;
	_Atomic int race_busy;
	_Atomic int race_stop;
	pthread_t racer;
};

static int w_ioctl(struct worker *w, int fd, unsigned long cmd, void *arg)
{
	atomic_fetch_add(&w->st->ioctls, 1);
	return thn_ioctl(fd, cmd, arg);
}

/* ---- the racing thread ---------------------------------------------------- */

static void *racer_main(void *arg)
{
	struct worker *w = arg;
	__u64 s = w->seed ^ 0xabcdef;

	while (!atomic_load(&w->race_stop)) {
		struct thn_vport *v;

		atomic_store(&w->race_busy, 1);
		v = atomic_load(&w->race_vp);
		/* any slot, any bytes: the kernel acts on what it copied */
		if (v)
			((__u8 *)&v->sq_slots[rnd(&s) & v->sq_mask])[rnd(&s) % sizeof(struct th_nic_desc)] =
				(__u8)rnd(&s);
		atomic_store(&w->race_busy, 0);
		if (!v)
			thn_sleep_us(50);
	}
	return NULL;
}

/* ---- objects ---------------------------------------------------------------- */

static int pick_fd(struct worker *w)
{
	unsigned int i, o = rnd(&w->seed) % MAXFD;

	for (i = 0; i < MAXFD; i++)
		if (w->fds[(o + i) % MAXFD] >= 0)
			return (o + i) % MAXFD;
	return -1;
}

static int pick_vp(struct worker *w, bool mapped)
{
	unsigned int i, o = rnd(&w->seed) % MAXVP;

	for (i = 0; i < MAXVP; i++) {
		struct fvp *f = &w->vp[(o + i) % MAXVP];

		if (f->live && (!mapped || f->v.sq))
			return (o + i) % MAXVP;
	}
	return -1;
}

/* Every entry of @f's CQ so far; counts the final ones. */
static void drain(struct worker *w, struct fvp *f)
{
	struct th_nic_cqe cqe[64];
	__u32 n, i;

	while ((n = thn_cq_drain(&f->v, cqe, 64)))
		for (i = 0; i < n; i++)
			if (cqe[i].flags & TH_NIC_CQE_F_FINAL) {
				f->finals++;
				atomic_fetch_add(&w->st->finals, 1);
			}
}

/*
 * Retire vport @i: on an accounted one, every accepted chain must have
 * completed exactly once (waiting up to 20 s for the NIC's own context, as
 * loaded as the debug kernel under TCG gets).
 */
static void vp_retire(struct worker *w, unsigned int i, bool destroy)
{
	struct fvp *f = &w->vp[i];
	__u64 until = thn_now_ns() + 20000000000ULL;

	if (f->v.sq && f->accounted) {
		drain(w, f);
		while (f->finals < f->accepted && thn_now_ns() < until) {
			thn_sleep_us(1000);
			drain(w, f);
		}
		if (f->finals < f->accepted)
			atomic_fetch_add(&w->st->lost, f->accepted - f->finals);
		if (f->finals > f->accepted)
			atomic_fetch_add(&w->st->dup, f->finals - f->accepted);
	}
	if (f->v.sq)
		thn_vport_unmap(&f->v);
	if (destroy && w->fds[f->fdi] >= 0) {
		struct th_nic_vport_destroy d = { .size = sizeof(d),
						  .vport = f->v.id };

		w_ioctl(w, w->fds[f->fdi], TH_NIC_IOCTL_VPORT_DESTROY, &d);
	}
	memset(f, 0, sizeof(*f));
}

static void op_open(struct worker *w)
{
	unsigned int i;
	int fd;

	for (i = 0; i < MAXFD && w->fds[i] >= 0; i++)
		;
	if (i == MAXFD)
		return;
	/* now and then a node that does not exist */
	fd = thn_open(rnd(&w->seed) % (THN_NODES + 2));
	if (fd >= 0)
		w->fds[i] = fd;
}

static void op_close(struct worker *w)
{
	int fi = pick_fd(w);
	unsigned int i;

	if (fi < 0)
		return;
	/* its vports go with it; their mappings may outlive the descriptor */
	for (i = 0; i < MAXVP; i++)
		if (w->vp[i].live && w->vp[i].fdi == fi)
			vp_retire(w, i, false);
	close(w->fds[fi]);
	w->fds[fi] = -1;
	atomic_fetch_add(&w->st->closes, 1);
}

static void op_vport_create(struct worker *w)
{
	static const __u32 sizes[] = { 0, 1, 3, 64, SQ_N, 1u << 20, ~0u };
	int fi = pick_fd(w);
	unsigned int i;
	struct fvp *f;

	if (fi < 0)
		return;
	for (i = 0; i < MAXVP && w->vp[i].live; i++)
		;
	if (i == MAXVP)
		return;
	f = &w->vp[i];
	memset(f, 0, sizeof(*f));
	f->v.fd = w->fds[fi];
	if (rnd(&w->seed) % 4) {	/* a good one */
		atomic_fetch_add(&w->st->ioctls, 1);
		if (thn_vport_open(w->fds[fi], SQ_N, CQ_N, &f->v))
			return;
		f->accounted = true;
	} else {
		atomic_fetch_add(&w->st->ioctls, 1);
		if (thn_vport_create_raw(w->fds[fi], sizes[rnd(&w->seed) % 7],
					 sizes[rnd(&w->seed) % 7], &f->v.info))
			return;
		f->v.id = f->v.info.vport;	/* unmapped */
	}
	f->live = true;
	f->fdi = fi;
	atomic_fetch_add(&w->st->vports, 1);
}

static void op_vport_destroy(struct worker *w)
{
	int i = pick_vp(w, false);

	if (i >= 0)
		vp_retire(w, i, true);
}

static void op_mr_reg(struct worker *w)
{
	int i = pick_vp(w, false), m;
	struct th_nic_mr_reg r = { .size = sizeof(r) };
	__u8 *a = w->area[rnd(&w->seed) % NAREA];
	__u64 k = rnd(&w->seed);

	if (i < 0 || w->fds[w->vp[i].fdi] < 0)
		return;
	for (m = 0; m < MAXMR && w->mr[m].vpi >= 0; m++)
		;
	r.vport = w->vp[i].v.id;
	r.access = k & 0xf;
	switch (k % 6) {
	case 0:		/* unmapped */
		r.addr = (__u64)(uintptr_t)a + AREA + 4096 * 64;
		r.length = 4096;
		break;
	case 1:		/* huge */
		r.addr = (__u64)(uintptr_t)a;
		r.length = 1ULL << (30 + k % 20);
		break;
	case 2:		/* not page aligned, odd length */
		r.addr = (__u64)(uintptr_t)a + 17;
		r.length = 1000;
		break;
	case 3:		/* a kernel address */
		r.addr = 0xffff888000000000ULL;
		r.length = 4096;
		break;
	default:
		r.addr = (__u64)(uintptr_t)a;
		r.length = AREA;
		r.access = TH_NIC_ACCESS_ALL;
	}
	if (w_ioctl(w, w->fds[w->vp[i].fdi], TH_NIC_IOCTL_MR_REG, &r))
		return;
	atomic_fetch_add(&w->st->mrs, 1);
	if (!w->vp[i].lkey && r.access == TH_NIC_ACCESS_ALL &&
	    r.addr == (__u64)(uintptr_t)a && r.length == AREA)
		w->vp[i].lkey = r.lkey;
	if (m < MAXMR)
		w->mr[m] = (struct fmr){ i, r.lkey, r.rkey };
}

static void op_mr_dereg(struct worker *w)
{
	struct th_nic_mr_dereg d = { .size = sizeof(d) };
	int m = rnd(&w->seed) % MAXMR, i = pick_vp(w, false);

	if (i < 0 || w->fds[w->vp[i].fdi] < 0)
		return;
	d.vport = w->vp[i].v.id;
	/* a key it registered, or one guessed */
	if (w->mr[m].vpi == i && rnd(&w->seed) % 2) {
		d.lkey = w->mr[m].lkey;
		w->mr[m].vpi = -1;
		if (w->vp[i].lkey == d.lkey)
			w->vp[i].lkey = 0;
	} else {
		d.lkey = (__u32)rnd(&w->seed);
	}
	w_ioctl(w, w->fds[w->vp[i].fdi], TH_NIC_IOCTL_MR_DEREG, &d);
}

static void op_mmap(struct worker *w)
{
	static const int prots[] = { PROT_READ, PROT_READ | PROT_WRITE,
				     PROT_WRITE, PROT_READ | PROT_EXEC, PROT_NONE };
	int fi = pick_fd(w), i = pick_vp(w, false), m;
	__u64 k = rnd(&w->seed), off;
	size_t len = 4096 * (1 + k % 8);
	void *p;

	if (fi < 0)
		return;
	for (m = 0; m < MAXMAP && w->map[m].p; m++)
		;
	if (m == MAXMAP) {
		m = k % MAXMAP;
		munmap(w->map[m].p, w->map[m].len);
		w->map[m].p = NULL;
	}
	/* a vport's own offsets, or anything page aligned */
	if (i >= 0 && k % 3) {
		struct th_nic_vport_create *c = &w->vp[i].v.info;
		const __u64 offs[] = { c->sq_mmap_offset, c->cq_mmap_offset,
				       c->ct_mmap_offset };

		off = offs[(k >> 8) % 3] + 4096 * ((k >> 16) % 2);
	} else {
		off = (k >> 4) & ~4095ULL;
	}
	p = mmap(NULL, len, prots[(k >> 24) % 5],
		 (k >> 28) & 1 ? MAP_PRIVATE : MAP_SHARED, w->fds[fi], (off_t)off);
	if (p == MAP_FAILED)
		return;
	w->map[m] = (struct fmap){ p, len };
	atomic_fetch_add(&w->st->maps, 1);
}

static void op_munmap(struct worker *w)
{
	int m = rnd(&w->seed) % MAXMAP;

	if (w->map[m].p) {
		munmap(w->map[m].p, w->map[m].len);
		w->map[m].p = NULL;
	}
}

/* One chain of one descriptor that writes a final CQ entry. */
static struct th_nic_desc burst_desc(struct worker *w, struct fvp *f, __u64 n)
{
	struct th_nic_desc d;

	switch (rnd(&w->seed) % 5) {
	case 0:
		d = f->lkey ? thn_inline(f->lkey, (n * 8) % AREA, "burst", 5) :
			      thn_notify(n);
		d.flags |= TH_NIC_DF_SIGNAL;
		break;
	case 1:
		d = f->lkey ? thn_copy(f->lkey, 0, f->lkey, AREA / 2, 256) :
			      thn_notify(n);
		d.flags |= TH_NIC_DF_SIGNAL;
		break;
	case 2:
		d = thn_ct_op(TH_NIC_OP_CT_INC, n % 8, 1);
		d.flags |= TH_NIC_DF_SIGNAL;
		break;
	default:
		d = thn_notify(n);
	}
	d.cookie = n;
	return d;
}

/* Fill the SQ with chains and ring: the bulk of the chains. */
static void op_burst(struct worker *w, bool race)
{
	int i = pick_vp(w, true);
	struct th_nic_doorbell db;
	struct fvp *f;
	__u32 n, k, tail;
	int ret;

	if (i < 0 || w->fds[w->vp[i].fdi] < 0)
		return;
	f = &w->vp[i];
	drain(w, f);
	n = 1 + rnd(&w->seed) % BURST;
	tail = *f->v.sq_tail;
	for (k = 0; k < n; k++)
		f->v.sq_slots[(tail + k) & f->v.sq_mask] =
			burst_desc(w, f, f->accepted + k);
	__atomic_store_n(f->v.sq_tail, tail + n, __ATOMIC_RELEASE);
	if (race) {
		/* what it accepts from now on is whatever the racer left */
		f->accounted = false;
		atomic_store(&w->race_vp, &f->v);
		atomic_fetch_add(&w->st->races, 1);
	}
	atomic_fetch_add(&w->st->ioctls, 1);
	ret = thn_doorbell(&f->v, &db);
	atomic_store(&w->race_vp, NULL);
	/*
	 * A write the racer started before it saw NULL may still land: wait
	 * for it, or a later unmap of this SQ is under its pen and the
	 * worker dies of SIGSEGV (a worker ended abnormally in 1 of the first
	 * 5 runs of a 20x VM repeat before this wait: the one way found).
	 */
	while (atomic_load(&w->race_busy))
		sched_yield();
	if (ret && ret != -EAGAIN && ret != -EINVAL && ret != -ENOSPC)
		f->accounted = false;	/* error state, gone: no books kept */
	f->accepted += db.chains;
	atomic_fetch_add(&w->st->chains, db.chains);
	atomic_fetch_add(&w->st->bursts, 1);
	thn_sq_rewind(&f->v);
	drain(w, f);
}

static void op_counter(struct worker *w)
{
	int i = pick_vp(w, false);
	__u64 k = rnd(&w->seed);
	int fd;

	if (i < 0 || w->fds[w->vp[i].fdi] < 0)
		return;
	fd = w->fds[w->vp[i].fdi];
	switch (k % 4) {
	case 0: {
		struct th_nic_ct_update u = { .size = sizeof(u), .vport = w->vp[i].v.id,
					      .ct = (k >> 8) % 300, .value = k >> 32 };

		w_ioctl(w, fd, k & 16 ? TH_NIC_IOCTL_CT_SET : TH_NIC_IOCTL_CT_INC, &u);
		break;
	}
	case 1: {
		struct th_nic_ct_wait cw = { .size = sizeof(cw), .vport = w->vp[i].v.id,
					     .ct = (k >> 8) % 300,
					     .threshold = (k >> 20) % 4,
					     .timeout_ns = (k >> 40) % 200000 };

		w_ioctl(w, fd, TH_NIC_IOCTL_CT_WAIT, &cw);
		break;
	}
	case 2: {
		struct th_nic_cancel c = { .size = sizeof(c), .vport = w->vp[i].v.id,
					   .flags = k & 1, .cookie = (k >> 8) % 64 };

		w_ioctl(w, fd, TH_NIC_IOCTL_CANCEL, &c);
		w->vp[i].accounted = false;	/* cancelled chains end early */
		break;
	}
	default: {
		struct th_nic_query q;

		atomic_fetch_add(&w->st->ioctls, 1);
		thn_query(fd, &q);
	}
	}
}

/* Any command of the driver's type, any size and direction, any bytes. */
static void op_raw(struct worker *w)
{
	static const uintptr_t bad[] = { 0, 1, 4095, 0xffff888000000000ULL,
					 0x7ffffffff000ULL };
	int fi = pick_fd(w);
	__u64 k = rnd(&w->seed), buf[80];
	unsigned int j, size, i;
	unsigned long cmd;
	void *arg = buf;

	if (fi < 0)
		return;
	for (j = 0; j < sizeof(buf) / 8; j++)
		buf[j] = rnd(&w->seed);
	buf[0] = (buf[0] & ~0xffffffffULL) | (k % 3 ? 64 : (k >> 8) % 5000);
	/* now and then the real vport ids, so commands reach something */
	i = pick_vp(w, false);
	if (i < MAXVP && k % 2)
		((__u32 *)buf)[2] = w->vp[i].v.id;
	size = k % 4 ? 64 : (k >> 12) % 640;
	cmd = _IOC((k >> 20) % 4, TH_NIC_IOCTL_MAGIC, (k >> 24) % 16, size);
	if (!((k >> 32) % 8))
		arg = (void *)bad[(k >> 40) % 5];
	if (!w_ioctl(w, w->fds[fi], cmd, arg)) {
		/* whatever it did to our vports, they are not ours to count */
		for (i = 0; i < MAXVP; i++)
			if (w->vp[i].fdi == fi)
				w->vp[i].accounted = false;
	}
	atomic_fetch_add(&w->st->raw, 1);
}

/* A child with our descriptors: uses them, or is killed doing so. */
static void op_fork(struct worker *w)
{
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return;
	if (!pid) {
		unsigned int n;

		atomic_store(&w->race_stop, 1);	/* no racer here */
		for (n = 0; n < 8; n++) {
			switch (rnd(&w->seed) % 4) {
			case 0:
				op_raw(w);
				break;
			case 1:
				op_counter(w);
				break;
			case 2:
				op_mmap(w);
				break;
			default:
				op_close(w);
			}
		}
		_exit(0);
	}
	atomic_fetch_add(&w->st->forks, 1);
	if (rnd(&w->seed) % 2)
		kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	/* it shared our descriptors: whatever it did, our books are off */
	for (st = 0; st < MAXVP; st++)
		w->vp[st].accounted = false;
}

static void op_burst_plain(struct worker *w)
{
	op_burst(w, false);
}

static void op_burst_raced(struct worker *w)
{
	op_burst(w, true);
}

/*
 * What a worker does, how often (out of 1000), and what it cost.  Forks
 * and vport churn are rare: on the debug kernel a fork costs 250 ms and a
 * vport 30 ms, against 0.2 ms for a raw ioctl.
 */
static const struct fop {
	const char *name;
	void (*fn)(struct worker *w);
	unsigned int weight;
} fops[] = {
	{ "open", op_open, 40 },
	{ "close", op_close, 20 },
	{ "vport-create", op_vport_create, 50 },
	{ "vport-destroy", op_vport_destroy, 30 },
	{ "mr-reg", op_mr_reg, 100 },
	{ "mr-dereg", op_mr_dereg, 60 },
	{ "mmap", op_mmap, 50 },
	{ "munmap", op_munmap, 30 },
	{ "counter", op_counter, 250 },
	{ "raw-ioctl", op_raw, 365 },
	{ "fork", op_fork, 5 },
	{ "burst", op_burst_plain, 0 },		/* chosen apart */
	{ "burst-raced", op_burst_raced, 0 },
};

#define NFOPS	(sizeof(fops) / sizeof(fops[0]))
#define FOP_BURST	(NFOPS - 2)
_Static_assert(NFOPS <= 16, "struct wstats counts 16 kinds of operation");

static void run_op(struct worker *w, unsigned int i)
{
	__u64 t = thn_now_ns();

	fops[i].fn(w);
	atomic_fetch_add(&w->st->op_ns[i], thn_now_ns() - t);
	atomic_fetch_add(&w->st->op_n[i], 1);
}

static void worker_step(struct worker *w)
{
	bool need_chains = atomic_load(&w->st->chains) < w->want_chains;
	bool need_ioctls = atomic_load(&w->st->ioctls) < w->want_ioctls;
	unsigned int k = rnd(&w->seed) % 1000, i;

	if (need_chains && (!need_ioctls || k < 300)) {
		run_op(w, FOP_BURST + (k % 10 == 0));
		if (pick_vp(w, true) < 0) {
			if (pick_fd(w) < 0)
				op_open(w);
			op_vport_create(w);
		}
		return;
	}
	/* the weights add up to 1000: this stops before the bursts */
	for (i = 0; k >= fops[i].weight; i++)
		k -= fops[i].weight;
	run_op(w, i);
}

static int worker_main(struct worker *w)
{
	unsigned int i;

	for (i = 0; i < MAXFD; i++)
		w->fds[i] = -1;
	for (i = 0; i < MAXMR; i++)
		w->mr[i].vpi = -1;
	for (i = 0; i < NAREA; i++) {
		w->area[i] = thn_alloc(AREA);
		if (!w->area[i])
			return 1;
		memset(w->area[i], i, AREA);
	}
	if (pthread_create(&w->racer, NULL, racer_main, w))
		return 1;
	while ((atomic_load(&w->st->chains) < w->want_chains ||
		atomic_load(&w->st->ioctls) < w->want_ioctls) &&
	       thn_now_ns() < w->deadline)
		worker_step(w);
	atomic_store(&w->race_stop, 1);
	pthread_join(w->racer, NULL);
	for (i = 0; i < MAXVP; i++)
		if (w->vp[i].live)
			vp_retire(w, i, true);
	for (i = 0; i < MAXFD; i++)
		if (w->fds[i] >= 0)
			close(w->fds[i]);
	for (i = 0; i < MAXMAP; i++)
		if (w->map[i].p)
			munmap(w->map[i].p, w->map[i].len);
	atomic_store(&w->st->done, 1);
	return 0;
}

static __u64 env_u64(const char *name, __u64 def)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : def;
}

static int sum_vports(struct nlattr **tb, void *arg)
{
	unsigned int *n = arg;

	if (tb[TH_NL_A_VPORTS])
		*n += nla_get_u32(tb[TH_NL_A_VPORTS]);
	return 0;
}

/* Live vports on every node, through the netlink statistics. */
static int live_vports(unsigned int *n)
{
	struct reply r = { .each = sum_vports, .arg = n };
	struct nl_sock *sk;
	int family, ret;

	*n = 0;
	if (connect_family(&sk, &family))
		return -1;
	ret = request(sk, family, TH_NL_CMD_NODE_GET, NLM_F_DUMP, NULL, NULL, &r);
	reply_free(&r);
	nl_socket_free(sk);
	return ret;
}

FIXTURE(fz) {
	int unused;
};

FIXTURE_SETUP(fz)
{
}

FIXTURE_TEARDOWN(fz)
{
}

/* TH_VMFUZZ_SECONDS (600, at most 1700) and the reaping after it */
TEST_F_TIMEOUT(fz, structured_fuzz_as_unprivileged_users, 1800)
{
	__u64 ioctls = env_u64("TH_VMFUZZ_IOCTLS", 20000);
	__u64 chains = env_u64("TH_VMFUZZ_CHAINS", 200000);
	__u64 secs = env_u64("TH_VMFUZZ_SECONDS", 600), start = thn_now_ns();
	long long pins_before = thn_pins_held(), pins_after = -1;
	struct wstats *st = thn_shared(sizeof(*st) * WORKERS), sum = { 0 };
	unsigned int i, vports = 1;
	pid_t pid[WORKERS];
	int status;

	if (secs > 1700)	/* and 60 s to reap, within the harness's 1800 */
		secs = 1700;
	ASSERT_NE(NULL, st);
	ASSERT_EQ(0, live_vports(&vports));
	ASSERT_EQ(0, vports) TH_LOG("vports alive before the fuzzer");
	for (i = 0; i < WORKERS; i++) {
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (!pid[i]) {
			struct worker w = {
				.seed = 0x9e3779b97f4a7c15ULL * (i + 1),
				.want_ioctls = ioctls / WORKERS,
				.want_chains = chains / WORKERS,
				.deadline = start + secs * 1000000000ULL,
				.st = &st[i],
			};

			/* half the workers as one user, half as another */
			if (!geteuid() && thn_become(i % 2 ? THN_UID_A : THN_UID_B))
				_exit(100);
			_exit(worker_main(&w));
		}
	}
	for (i = 0; i < WORKERS; i++) {
		__u64 until = start + (secs + 60) * 1000000000ULL;
		pid_t got = 0;

		while (thn_now_ns() < until &&
		       !(got = waitpid(pid[i], &status, WNOHANG)))
			thn_sleep_us(10000);
		EXPECT_EQ(pid[i], got) TH_LOG("worker %u hangs", i);
		if (got != pid[i]) {
			kill(pid[i], SIGKILL);
			waitpid(pid[i], &status, 0);
			continue;
		}
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
			TH_LOG("worker %u: status %#x", i, status);
	}
	for (i = 0; i < WORKERS; i++) {
#define ADD(x) sum.x += atomic_load(&st[i].x)
		ADD(ioctls); ADD(chains); ADD(finals); ADD(bursts); ADD(races);
		ADD(raw); ADD(forks); ADD(vports); ADD(mrs); ADD(maps);
		ADD(closes); ADD(lost); ADD(dup); ADD(done);
#undef ADD
	}
	for (i = 0; i < 500; i++) {
		ASSERT_EQ(0, live_vports(&vports));
		pins_after = thn_pins_held();
		if (!vports && pins_after <= pins_before)
			break;
		thn_sleep_us(10000);
	}
	thn_msg("structured fuzz: %llu ioctls (%llu raw), %llu chains accepted in %llu bursts (%llu raced), %.1f s, %u processes as users %u and %u\n",
		(unsigned long long)sum.ioctls, (unsigned long long)sum.raw,
		(unsigned long long)sum.chains, (unsigned long long)sum.bursts,
		(unsigned long long)sum.races, (thn_now_ns() - start) / 1e9,
		WORKERS, THN_UID_A, THN_UID_B);
	thn_msg("structured fuzz: %llu vports, %llu MRs, %llu mappings made; %llu closes, %llu forks; exactly-once: %llu lost, %llu twice\n",
		(unsigned long long)sum.vports, (unsigned long long)sum.mrs,
		(unsigned long long)sum.maps, (unsigned long long)sum.closes,
		(unsigned long long)sum.forks, (unsigned long long)sum.lost,
		(unsigned long long)sum.dup);
	for (i = 0; i < NFOPS; i++) {
		__u64 n = 0, ns = 0, all = 0;
		unsigned int j, o;

		for (j = 0; j < WORKERS; j++) {
			n += atomic_load(&st[j].op_n[i]);
			ns += atomic_load(&st[j].op_ns[i]);
			for (o = 0; o < NFOPS; o++)
				all += atomic_load(&st[j].op_ns[o]);
		}
		thn_msg("structured fuzz: %-13s %8llu times, %8.1f us each, %4.1f%% of the workers' time\n",
			fops[i].name, (unsigned long long)n,
			n ? ns / 1e3 / n : 0.0, all ? 100.0 * ns / all : 0.0);
	}
	thn_msg("structured fuzz: left behind: %u vports; pinned pages %lld before, %lld after\n",
		vports, pins_before, pins_after);
	EXPECT_EQ(WORKERS, sum.done);
	EXPECT_LE(ioctls, sum.ioctls) TH_LOG("the ioctl budget was not reached in %llu s",
					     (unsigned long long)secs);
	EXPECT_LE(chains, sum.chains) TH_LOG("the chain budget was not reached in %llu s",
					     (unsigned long long)secs);
	EXPECT_EQ(0, sum.lost);
	EXPECT_EQ(0, sum.dup);
	EXPECT_EQ(0, vports);
	/* earlier tests' pages may still be on their way out: never more */
	if (pins_before >= 0) {
		EXPECT_LE(pins_after, pins_before);
	}
}

TEST_HARNESS_MAIN
