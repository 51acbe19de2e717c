// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vport.c - vports of the in-process fabric: creation in a domain and
 * publication, teardown, memory registration over process memory, and
 * CT_WAIT.  The checks and answers are the engine's command layer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "inproc.h"

static void th_ipf_vport_free(struct th_ipf_vport *vp)
{
	pthread_mutex_destroy(&vp->ct_lock);
	free(vp->cts);
	free(vp->cq_mem);
	free(vp->sq_mem);
	free(vp);
}

/*
 * VPORT_CREATE on node @node, in domain @d (NULL: the fabric's default
 * domain); @req is checked and answered as the ioctl is (mmap fields
 * zero: the rings are process memory, at vp->sq_mem and friends).
 */
int th_ipf_vport_create(struct th_ipf *f, u32 node, struct th_ipf_domain *d,
			struct th_nic_vport_create *req,
			struct th_ipf_vport **out)
{
	const struct th_eng_limits *lim = &f->eng.lim;
	struct th_ipf_vport *vp;
	size_t base;
	u32 i;
	int ret;

	if (node >= lim->nodes)
		return -EINVAL;
	/* an in-process domain is a handle, never a descriptor */
	if (req->flags & TH_NIC_VPORT_F_DOMAIN)
		return -EINVAL;
	vp = calloc(1, sizeof(*vp));
	if (!vp)
		return -ENOMEM;
	pthread_mutex_init(&vp->ct_lock, NULL);
	th_list_init(&vp->ct_waiters);
	ret = th_eng_cmd_vport_config(&f->eng, req, &vp->cfg);
	if (ret)
		goto err_free;
	vp->fabric = f;
	vp->domain = d ? d : th_ipf_default_domain(f);
	th_list_init(&vp->deferred);
	th_list_init(&vp->runq_link);
	ret = -ENOMEM;
	vp->sq_mem = calloc(1, vp->cfg.sq_bytes);
	vp->cq_mem = calloc(1, vp->cfg.cq_bytes);
	vp->cts = calloc(1, vp->cfg.ct_bytes);
	if (!vp->sq_mem || !vp->cq_mem || !vp->cts)
		goto err_free;

	pthread_mutex_lock(&f->lock);
	base = (size_t)node * lim->max_vports;
	for (i = 0; i < lim->max_vports && f->vports[base + i]; i++)
		;
	if (i == lim->max_vports) {
		ret = -ENOSPC;
		goto err_unlock;
	}
	ret = th_eng_vport_init(&vp->ev, &f->eng, node, i, &vp->cfg,
				vp->sq_mem, vp->cq_mem, vp->cts, vp->domain,
				&f->user);
	if (ret)
		goto err_unlock;
	vp->domain->refs++;
	/* a node's first vports, and the first vport of each node, differ */
	vp->bell_bit = 1U << ((node + i) % 32);
	/* the table's reference, then the vport for lookups to find */
	__atomic_store_n(&f->refs[base + i], 1, __ATOMIC_RELAXED);
	__atomic_store_n(&f->vports[base + i], vp, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&f->lock);

	th_eng_cmd_vport_describe(&vp->ev, &vp->cfg, req);
	*out = vp;
	return 0;

err_unlock:
	pthread_mutex_unlock(&f->lock);
err_free:
	th_ipf_vport_free(vp);
	return ret;
}

/*
 * Unpublish, then the engine's teardown: cancel what is pending (peers
 * see their counters fail), wait for running chains and for peers'
 * operations on it, release its MRs; then free the slot, and the vport.
 */
void th_ipf_vport_destroy(struct th_ipf_vport *vp)
{
	struct th_ipf *f = vp->fabric;
	const struct th_eng_limits *lim = &f->eng.lim;
	size_t slot = (size_t)vp->ev.node * lim->max_vports + vp->ev.index;

	/* lookups find nothing from now on (th_ipf_vport_get()) */
	pthread_mutex_lock(&f->lock);
	__atomic_store_n(&f->vports[slot], TH_IPF_SLOT_LEAVING,
			 __ATOMIC_RELEASE);
	pthread_mutex_unlock(&f->lock);

	th_eng_vport_destroy(&vp->ev);
	th_ipf_domain_put(vp->domain);
	/* its count is 0 and stays so: the slot may take a new vport */
	pthread_mutex_lock(&f->lock);
	__atomic_store_n(&f->vports[slot], NULL, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&f->lock);
	th_ipf_vport_free(vp);
}

/*
 * MR_REG over process memory: the engine's checks, then what the kernel
 * would refuse when pinning (th_ipf_mem_check()); the address is used as
 * it is.
 */
int th_ipf_mr_reg(struct th_ipf_vport *vp, struct th_nic_mr_reg *req)
{
	u32 lkey;
	u64 rkey;
	int ret;

	ret = th_eng_cmd_mr_check(vp->ev.eng, req);
	if (ret)
		return ret;
	ret = th_ipf_mem_check(req->addr, req->length, req->access);
	if (ret)
		return ret;
	ret = th_eng_mr_add(&vp->ev, req->addr, req->length, req->access,
			    (void *)(uintptr_t)req->addr, NULL, &lkey, &rkey);
	if (ret)
		return ret;
	req->lkey = lkey;
	req->rkey = rkey;
	return 0;
}

/*
 * A thread in CT_WAIT, on its vport's list while it sleeps.  @woken says
 * its condition holds: its waker takes it off the list and sets it under
 * ct_lock, so a waiter it names never needs that lock again to leave.
 * The wake-up itself may come later: on the fabric's bell, with the
 * vport's bit (th_ipf_wake_bell()), or on @woken itself for a sleeper of
 * the network's (@own_word: ofi's, which sleeps on its doorbell too).
 */
struct th_ipf_ct_waiter {
	struct th_list link;
	const struct th_nic_ct_wait *req;
	u32 woken;
	bool own_word;
};

/*
 * The engine changed @vp under its lock, which is held: wake the CT_WAIT
 * sleepers whose condition now holds, and no others.  A sleeper checks its
 * condition under ct_lock before it goes on the list and the waker checks
 * it under ct_lock after the change, so a sleeper on the list misses no
 * wake-up.  The unlocked count needs no fence here: a sleeper counts
 * itself, then takes and drops @vp's engine lock before it looks
 * (th_ipf_ct_sleep()), so either its look follows this critical section
 * and sees the change, or its count precedes this look at the count.
 * Not inlined: th_ipf_wake()'s common call then needs no stack frame.
 */
__attribute__((noinline)) void th_ipf_ct_wake_locked(struct th_ipf_vport *vp)
{
	struct th_ipf_ct_waiter *w;
	struct th_list *pos, *next;

	if (!__atomic_load_n(&vp->nct_waiters, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&vp->ct_lock);
	for (pos = vp->ct_waiters.next; pos != &vp->ct_waiters; pos = next) {
		next = pos->next;
		w = th_container_of(pos, struct th_ipf_ct_waiter, link);
		if (!th_eng_cmd_ct_reached(&vp->ev, w->req))
			continue;
		th_list_del(&w->link);
		__atomic_store_n(&w->woken, 1, __ATOMIC_RELEASE);
		if (w->own_word)
			th_ipf_wake_word(&w->woken);
		else
			th_ipf_wake_bell(vp->fabric, vp->bell_bit);
	}
	pthread_mutex_unlock(&vp->ct_lock);
}

/* Sleep until @req's condition holds or @deadline (CLOCK_REALTIME) passes. */
static void th_ipf_ct_sleep(struct th_ipf_vport *vp,
			    const struct th_nic_ct_wait *req,
			    const struct timespec *deadline)
{
	const struct th_ipf_net *net = vp->fabric->net;
	struct th_ipf_ct_waiter w = {
		.req = req,
		.own_word = net && net->sleep,
	};
	bool listed = false;
	int ret;
	u32 seq;

	__atomic_add_fetch(&vp->nct_waiters, 1, __ATOMIC_SEQ_CST);
	/* the handshake with th_ipf_ct_wake_locked(), before the first look */
	th_lock(&vp->ev.lock);
	th_unlock(&vp->ev.lock);
	pthread_mutex_lock(&vp->ct_lock);
	if (!th_eng_cmd_ct_reached(&vp->ev, req)) {
		th_list_add_tail(&vp->ct_waiters, &w.link);
		listed = true;
	}
	pthread_mutex_unlock(&vp->ct_lock);
	while (listed) {
		/* a network may read its queue while it sleeps (ofi's doorbell) */
		if (w.own_word) {
			if (__atomic_load_n(&w.woken, __ATOMIC_ACQUIRE))
				break;
			ret = net->sleep(net->arg, &w.woken, deadline);
		} else {
			/* the bell before @woken: th_ipf_bell_wait() says why */
			seq = th_ipf_bell_seq(vp->fabric);
			if (__atomic_load_n(&w.woken, __ATOMIC_ACQUIRE))
				break;
			ret = th_ipf_bell_wait(vp->fabric, seq, vp->bell_bit,
					       deadline);
		}
		if (ret == -ETIMEDOUT)
			break;
	}
	if (listed && !__atomic_load_n(&w.woken, __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&vp->ct_lock);
		/* the waker takes it off the list when it sets @woken */
		if (!w.woken)
			th_list_del(&w.link);
		pthread_mutex_unlock(&vp->ct_lock);
	}
	__atomic_sub_fetch(&vp->nct_waiters, 1, __ATOMIC_SEQ_CST);
}

int th_ipf_ct_wait(struct th_ipf_vport *vp, struct th_nic_ct_wait *req)
{
	struct th_ipf *f = vp->fabric;
	struct timespec deadline;
	u64 ns = req->timeout_ns;
	int ret;

	ret = th_eng_cmd_ct_wait_check(&vp->ev, req);
	if (ret)
		return ret;
	if (ns) {
		clock_gettime(CLOCK_REALTIME, &deadline);
		if (ns / 1000000000ULL > (u64)(INT32_MAX - deadline.tv_sec))
			ns = (u64)(INT32_MAX - deadline.tv_sec) * 1000000000ULL;
		deadline.tv_sec += ns / 1000000000ULL;
		deadline.tv_nsec += ns % 1000000000ULL;
		if (deadline.tv_nsec >= 1000000000L) {
			deadline.tv_sec++;
			deadline.tv_nsec -= 1000000000L;
		}
		/* a reference keeps @vp until we return, even if destroyed */
		__atomic_add_fetch(th_ipf_vport_refs(vp), 1, __ATOMIC_RELAXED);
		th_ipf_ct_sleep(vp, req, &deadline);
		ret = th_eng_cmd_ct_wait_result(&vp->ev, req, false);
		if (!ret)
			th_ip_timing_saw(vp, req->ct);
		f->eng.ops->vport_put(f, &vp->ev);
		return ret;
	}
	ret = th_eng_cmd_ct_wait_result(&vp->ev, req, false);
	if (!ret)
		th_ip_timing_saw(vp, req->ct);
	return ret;
}
