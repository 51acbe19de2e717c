// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * th_ipf.c - the in-process fabric: node and vport tables, process memory
 * as MRs, and the waits and wake-ups the engine asks of a provider.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "th_ipf.h"
#include "th_abi_check.h"

/* The ABI this library was built against: sizes and offsets pinned. */
#define TH_ABI_CHECK(cond) _Static_assert(cond, #cond)
static inline void th_ipf_abi_check(void)
{
	TH_NIC_ABI_CHECKS();
}
#undef TH_ABI_CHECK

/**
 * struct th_ipf - the fabric
 * @eng: the engine
 * @lock: protects @vports and every vport's @refs
 * @wake_seq: bumped on every wake-up; a waiter that read it before checking
 *	its condition sleeps only while it is unchanged, so no wake-up is lost
 * @wait_lock: protects nothing but the sleep on @changed; taken after a
 *	vport lock (the engine wakes under it), never before one
 * @changed: broadcast on every wake-up
 * @vports: nodes x max_vports slots, NULL when free
 * @progress: the NIC's progress thread: runs the chains a context handed
 *	over past its budget, as the module's workqueue does
 * @progress_lock: protects @deferred, @progress_started and @stopping
 * @progress_cond: signals @deferred or @stopping
 * @deferred: chains waiting for @progress
 * @progress_started: @progress exists (started on first use)
 * @stopping: th_ipf_destroy() asks @progress to exit
 */
struct th_ipf {
	struct th_eng eng;
	pthread_mutex_t lock;
	u64 wake_seq;
	pthread_mutex_t wait_lock;
	pthread_cond_t changed;
	struct th_ipf_vport **vports;
	pthread_t progress;
	pthread_mutex_t progress_lock;
	pthread_cond_t progress_cond;
	struct th_list deferred;
	bool progress_started;
	bool stopping;
};

static void th_ipf_signal(struct th_ipf *f)
{
	__atomic_add_fetch(&f->wake_seq, 1, __ATOMIC_RELEASE);
	pthread_mutex_lock(&f->wait_lock);
	pthread_cond_broadcast(&f->changed);
	pthread_mutex_unlock(&f->wait_lock);
}

/*
 * Sleep until @done(@arg) holds or the absolute CLOCK_REALTIME @deadline
 * passes (NULL: no deadline); returns false on timeout.  @done may take
 * vport locks: no lock is held while it runs.
 */
static bool th_ipf_wait(struct th_ipf *f, bool (*done)(void *arg), void *arg,
			const struct timespec *deadline)
{
	u64 seq;
	int ret = 0;

	for (;;) {
		seq = __atomic_load_n(&f->wake_seq, __ATOMIC_ACQUIRE);
		if (done(arg))
			return true;
		if (ret == ETIMEDOUT)
			return false;
		pthread_mutex_lock(&f->wait_lock);
		while (!ret && __atomic_load_n(&f->wake_seq, __ATOMIC_ACQUIRE) == seq) {
			if (deadline)
				ret = pthread_cond_timedwait(&f->changed,
							     &f->wait_lock, deadline);
			else
				pthread_cond_wait(&f->changed, &f->wait_lock);
		}
		pthread_mutex_unlock(&f->wait_lock);
	}
}

static struct th_ipf_vport *th_ipf_from_ev(struct th_eng_vport *ev)
{
	return th_container_of(ev, struct th_ipf_vport, ev);
}

static struct th_eng_vport *th_ipf_vport_get(void *fabric, u32 node, u32 vport)
{
	struct th_ipf *f = fabric;
	struct th_ipf_vport *vp = NULL;

	if (node >= f->eng.lim.nodes || vport >= f->eng.lim.max_vports)
		return NULL;
	pthread_mutex_lock(&f->lock);
	vp = f->vports[(size_t)node * f->eng.lim.max_vports + vport];
	if (vp)
		vp->refs++;
	pthread_mutex_unlock(&f->lock);
	return vp ? &vp->ev : NULL;
}

static void th_ipf_vport_put(void *fabric, struct th_eng_vport *ev)
{
	struct th_ipf *f = fabric;

	pthread_mutex_lock(&f->lock);
	th_ipf_from_ev(ev)->refs--;
	pthread_mutex_unlock(&f->lock);
	th_ipf_signal(f);
}

/* Under @ev's lock (engine rule): take no lock a waiter holds around it. */
static void th_ipf_wake(struct th_eng_vport *ev)
{
	th_ipf_signal(th_ipf_from_ev(ev)->fabric);
}

static u32 th_ipf_random_u32(void *fabric)
{
	u32 v;

	(void)fabric;
	if (getrandom(&v, sizeof(v), 0) != sizeof(v))
		v = (u32)random();
	return v;
}

static void *th_ipf_progress(void *arg)
{
	struct th_ipf *f = arg;
	struct th_eng_ctx ctx;

	pthread_mutex_lock(&f->progress_lock);
	for (;;) {
		while (th_list_empty(&f->deferred) && !f->stopping)
			pthread_cond_wait(&f->progress_cond, &f->progress_lock);
		if (th_list_empty(&f->deferred))
			break;		/* stopping, and nothing left to run */
		th_eng_ctx_init(&ctx, &f->eng);
		th_list_splice_tail(&ctx.ready, &f->deferred);
		pthread_mutex_unlock(&f->progress_lock);
		th_eng_ctx_run(&ctx);	/* past the budget, defers to us again */
		pthread_mutex_lock(&f->progress_lock);
	}
	pthread_mutex_unlock(&f->progress_lock);
	return NULL;
}

static void th_ipf_defer(void *fabric, struct th_eng_chain *chain)
{
	struct th_ipf *f = fabric;

	pthread_mutex_lock(&f->progress_lock);
	th_list_add_tail(&f->deferred, th_eng_chain_node(chain));
	if (!f->progress_started &&
	    !pthread_create(&f->progress, NULL, th_ipf_progress, f))
		f->progress_started = true;
	pthread_cond_signal(&f->progress_cond);
	if (!f->progress_started) {
		/* no thread to be had: run it here rather than lose it */
		struct th_eng_ctx ctx;

		th_eng_ctx_init(&ctx, &f->eng);
		th_list_splice_tail(&ctx.ready, &f->deferred);
		pthread_mutex_unlock(&f->progress_lock);
		th_eng_ctx_run_all(&ctx);
		return;
	}
	pthread_mutex_unlock(&f->progress_lock);
}

static const struct th_eng_ops th_ipf_ops = {
	.vport_get	= th_ipf_vport_get,
	.vport_put	= th_ipf_vport_put,
	.wake		= th_ipf_wake,
	.defer		= th_ipf_defer,
	.random_u32	= th_ipf_random_u32,
};

struct th_ipf *th_ipf_create(const struct th_eng_limits *lim, int *err)
{
	struct th_ipf *f = calloc(1, sizeof(*f));
	int ret;

	if (!f) {
		*err = -ENOMEM;
		return NULL;
	}
	ret = th_eng_init(&f->eng, &th_ipf_ops, f, lim);
	if (ret)
		goto err_free;
	f->vports = calloc((size_t)lim->nodes * lim->max_vports,
			   sizeof(*f->vports));
	if (!f->vports) {
		ret = -ENOMEM;
		goto err_free;
	}
	pthread_mutex_init(&f->lock, NULL);
	pthread_mutex_init(&f->wait_lock, NULL);
	pthread_cond_init(&f->changed, NULL);
	pthread_mutex_init(&f->progress_lock, NULL);
	pthread_cond_init(&f->progress_cond, NULL);
	th_list_init(&f->deferred);
	return f;

err_free:
	free(f);
	*err = ret;
	return NULL;
}

/* Destroys whatever vports are left, then the fabric. */
void th_ipf_destroy(struct th_ipf *f)
{
	size_t i, n = (size_t)f->eng.lim.nodes * f->eng.lim.max_vports;

	for (i = 0; i < n; i++)
		if (f->vports[i])
			th_ipf_vport_destroy(f->vports[i]);
	pthread_mutex_lock(&f->progress_lock);
	f->stopping = true;
	pthread_cond_signal(&f->progress_cond);
	pthread_mutex_unlock(&f->progress_lock);
	if (f->progress_started)
		pthread_join(f->progress, NULL);
	pthread_cond_destroy(&f->progress_cond);
	pthread_mutex_destroy(&f->progress_lock);
	pthread_cond_destroy(&f->changed);
	pthread_mutex_destroy(&f->wait_lock);
	pthread_mutex_destroy(&f->lock);
	free(f->vports);
	free(f);
}

const struct th_eng_limits *th_ipf_limits(struct th_ipf *f)
{
	return &f->eng.lim;
}

struct th_ipf_vport *th_ipf_vport_create(struct th_ipf *f, u32 node,
					 u32 sq_entries, u32 cq_entries,
					 int *err)
{
	const struct th_eng_limits *lim = &f->eng.lim;
	struct th_ipf_vport *vp;
	size_t slot, base;
	u32 i;
	int ret;

	if (node >= lim->nodes) {
		*err = -EINVAL;
		return NULL;
	}
	sq_entries = sq_entries ? sq_entries : lim->max_sq_entries;
	cq_entries = cq_entries ? cq_entries : lim->max_cq_entries;
	vp = calloc(1, sizeof(*vp));
	if (!vp) {
		*err = -ENOMEM;
		return NULL;
	}
	vp->fabric = f;
	vp->sq_entries = sq_entries;
	vp->cq_entries = cq_entries;
	vp->sq_mem = calloc(1, th_eng_ring_layout(sq_entries, sizeof(struct th_nic_desc),
						  &vp->sq_off));
	vp->cq_mem = calloc(1, th_eng_ring_layout(cq_entries, sizeof(struct th_nic_cqe),
						  &vp->cq_off));
	vp->cts = calloc(lim->max_counters, sizeof(*vp->cts));
	ret = -ENOMEM;
	if (!vp->sq_mem || !vp->cq_mem || !vp->cts)
		goto err_free;

	pthread_mutex_lock(&f->lock);
	base = (size_t)node * lim->max_vports;
	for (i = 0; i < lim->max_vports && f->vports[base + i]; i++)
		;
	if (i == lim->max_vports) {
		pthread_mutex_unlock(&f->lock);
		ret = -ENOSPC;
		goto err_free;
	}
	slot = base + i;
	ret = th_eng_vport_init(&vp->ev, &f->eng, node, i, vp->sq_mem, sq_entries,
				vp->cq_mem, cq_entries, vp->cts);
	if (ret) {
		pthread_mutex_unlock(&f->lock);
		goto err_free;
	}
	pthread_mutex_init(&vp->sq_lock, NULL);
	vp->refs = 1;
	f->vports[slot] = vp;
	pthread_mutex_unlock(&f->lock);
	return vp;

err_free:
	free(vp->cts);
	free(vp->cq_mem);
	free(vp->sq_mem);
	free(vp);
	*err = ret;
	return NULL;
}

static bool th_ipf_vport_unused(void *arg)
{
	struct th_ipf_vport *vp = arg;
	u32 refs;

	pthread_mutex_lock(&vp->fabric->lock);
	refs = vp->refs;
	pthread_mutex_unlock(&vp->fabric->lock);
	return refs == 1 && th_eng_vport_idle(&vp->ev);
}

/*
 * Unpublish, cancel what is pending (peers see their counters fail), wait
 * for running chains and for peers' operations on our MRs, then free.
 */
void th_ipf_vport_destroy(struct th_ipf_vport *vp)
{
	struct th_ipf *f = vp->fabric;
	const struct th_eng_limits *lim = &f->eng.lim;
	struct th_eng_ctx ctx;
	u32 i;

	pthread_mutex_lock(&f->lock);
	f->vports[(size_t)vp->ev.node * lim->max_vports + vp->ev.index] = NULL;
	pthread_mutex_unlock(&f->lock);

	th_eng_ctx_init(&ctx, &f->eng);
	th_eng_vport_kill(&vp->ev, &ctx);
	th_eng_ctx_run(&ctx);

	th_ipf_wait(f, th_ipf_vport_unused, vp, NULL);

	for (i = 0; i < lim->max_mrs; i++)
		if (vp->ev.mrs[i].key)
			th_eng_mr_release(&vp->ev, vp->ev.mrs[i].key);
	th_eng_vport_fini(&vp->ev);
	pthread_mutex_destroy(&vp->sq_lock);
	free(vp->cts);
	free(vp->cq_mem);
	free(vp->sq_mem);
	free(vp);
}

/* Process memory needs no pinning: the engine uses the address as is. */
int th_ipf_mr_reg(struct th_ipf_vport *vp, void *addr, u64 len, u32 access,
		  u32 *key)
{
	if (!addr)
		return -EFAULT;
	return th_eng_mr_add(&vp->ev, (u64)(uintptr_t)addr, len, access, addr,
			     NULL, key);
}

struct th_ipf_mr_wait {
	struct th_ipf_vport *vp;
	u32 key;
};

static bool th_ipf_mr_unused(void *arg)
{
	struct th_ipf_mr_wait *w = arg;

	return !th_eng_mr_busy(&w->vp->ev, w->key);
}

int th_ipf_mr_dereg(struct th_ipf_vport *vp, u32 key)
{
	struct th_ipf_mr_wait w = { vp, key };
	int ret = th_eng_mr_kill(&vp->ev, key);

	if (ret)
		return ret;
	th_ipf_wait(vp->fabric, th_ipf_mr_unused, &w, NULL);
	th_eng_mr_release(&vp->ev, key);
	return 0;
}

int th_ipf_doorbell(struct th_ipf_vport *vp, struct th_eng_db_result *res)
{
	struct th_eng_ctx ctx;
	int ret;

	th_eng_ctx_init(&ctx, vp->ev.eng);
	pthread_mutex_lock(&vp->sq_lock);
	ret = th_eng_doorbell(&vp->ev, &ctx, res);
	pthread_mutex_unlock(&vp->sq_lock);
	/* chains accepted before a refused one still run */
	th_eng_ctx_run(&ctx);
	return ret;
}

int th_ipf_ct_update(struct th_ipf_vport *vp, u32 idx, enum th_eng_ct_op op,
		     u64 value, u64 failure)
{
	struct th_eng_ctx ctx;
	int ret;

	th_eng_ctx_init(&ctx, vp->ev.eng);
	ret = th_eng_ct_update(&vp->ev, idx, op, value, failure, &ctx);
	th_eng_ctx_run(&ctx);
	return ret;
}

struct th_ipf_ct_wait {
	struct th_ipf_vport *vp;
	u32 idx;
	u64 threshold;
	u64 success;
	u64 failure;
	int ret;
};

static bool th_ipf_ct_reached(void *arg)
{
	struct th_ipf_ct_wait *w = arg;

	w->ret = th_eng_ct_read(&w->vp->ev, w->idx, &w->success, &w->failure);
	return w->ret || w->failure || w->success >= w->threshold;
}

int th_ipf_ct_wait(struct th_ipf_vport *vp, u32 idx, u64 threshold,
		   u64 timeout_ns, u64 *success, u64 *failure)
{
	struct th_ipf_ct_wait w = { .vp = vp, .idx = idx, .threshold = threshold };
	struct timespec deadline;
	bool reached;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += timeout_ns / 1000000000ULL;
	deadline.tv_nsec += timeout_ns % 1000000000ULL;
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	/* a reference keeps @vp until we return, even if destroyed meanwhile */
	pthread_mutex_lock(&vp->fabric->lock);
	vp->refs++;
	pthread_mutex_unlock(&vp->fabric->lock);
	reached = th_ipf_wait(vp->fabric, th_ipf_ct_reached, &w, &deadline);
	th_ipf_vport_put(vp->fabric, &vp->ev);
	*success = w.success;
	*failure = w.failure;
	if (w.ret)
		return w.ret;
	if (w.failure)
		return -EIO;
	return reached ? 0 : -ETIMEDOUT;
}

int th_ipf_cancel(struct th_ipf_vport *vp, bool by_cookie, u64 cookie,
		  u32 *cancelled)
{
	struct th_eng_ctx ctx;
	int ret;

	th_eng_ctx_init(&ctx, vp->ev.eng);
	ret = th_eng_cancel(&vp->ev, by_cookie, cookie, cancelled, &ctx);
	th_eng_ctx_run(&ctx);
	return ret;
}
