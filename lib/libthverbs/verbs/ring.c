// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * ring.c - the SQ/CQ ring protocol and the counter page, shared by both
 * providers (they expose the same layout): posting a chain, polling the
 * CQ, reading counters without a system call.
 */
#include <errno.h>
#include <string.h>

#include "thverbs_priv.h"

static uint32_t *th_ring_u32(void *base, uint32_t off)
{
	return (uint32_t *)((char *)base + off);
}

/* Resolve the ring fields from the offsets the NIC returned. */
void th_ring_attach(struct th_vport *vp)
{
	const struct th_nic_vport_create *in = &vp->info;

	vp->sq_head = th_ring_u32(vp->sq, in->sq_off.head);
	vp->sq_tail = th_ring_u32(vp->sq, in->sq_off.tail);
	vp->sq_mask = *th_ring_u32(vp->sq, in->sq_off.ring_mask);
	vp->sq_entries = *th_ring_u32(vp->sq, in->sq_off.ring_entries);
	vp->sq_slots = (void *)((char *)vp->sq + in->sq_off.slots);
	vp->cq_head = th_ring_u32(vp->cq, in->cq_off.head);
	vp->cq_tail = th_ring_u32(vp->cq, in->cq_off.tail);
	vp->cq_mask = *th_ring_u32(vp->cq, in->cq_off.ring_mask);
	vp->cq_entries = *th_ring_u32(vp->cq, in->cq_off.ring_entries);
	vp->cq_slots = (void *)((char *)vp->cq + in->cq_off.slots);
}

/*
 * Copy @c into the SQ at the tail, without ringing; vp->lock held.
 * -EAGAIN when the SQ has no room for it until the NIC consumes.
 */
static int th_sq_stage_locked(struct th_vport *vp, const struct th_chain *c)
{
	uint32_t head = __atomic_load_n(vp->sq_head, __ATOMIC_ACQUIRE);
	uint32_t tail = *vp->sq_tail, i;

	if (c->n > vp->sq_entries - (tail - head))
		return -EAGAIN;
	for (i = 0; i < c->n; i++)
		vp->sq_slots[(tail + i) & vp->sq_mask] = c->d[i];
	vp->sq_slots[tail & vp->sq_mask].trig_ct = c->trig_ct;
	vp->sq_slots[tail & vp->sq_mask].threshold = c->threshold;
	vp->sq_slots[tail & vp->sq_mask].cookie = c->cookie;
	__atomic_store_n(vp->sq_tail, tail + c->n, __ATOMIC_RELEASE);
	return 0;
}

/*
 * Ring the doorbell for everything staged; vp->lock held.  The NIC takes
 * chains in order up to one it refuses; that one and any staged after it
 * are withdrawn by moving the tail back to where the NIC's head stopped.
 */
static int th_sq_ring_locked(struct th_vport *vp)
{
	struct th_nic_doorbell db = { .size = sizeof(db), .vport = vp->index };
	uint32_t head;
	int ret;

	if (*vp->sq_tail == __atomic_load_n(vp->sq_head, __ATOMIC_ACQUIRE))
		return 0;	/* nothing staged */
	ret = vp->ctx->dev.ops->doorbell(vp, &db);
	vp->refused = ret && db.reason != TH_NIC_REFUSE_NONE;
	vp->reason = db.reason;
	if (ret) {
		vp->bad_desc = db.bad_desc;
		head = __atomic_load_n(vp->sq_head, __ATOMIC_ACQUIRE);
		__atomic_store_n(vp->sq_tail, head, __ATOMIC_RELEASE);
	}
	return ret;
}

/*
 * What the library refuses before the NIC sees the chain; such a refusal
 * also ends what th_post_error() reports about an earlier one.
 */
static int th_chain_check(struct th_vport *vp, const struct th_chain *c)
{
	int ret = c->err;

	if (!ret && !c->n)
		ret = -EINVAL;
	if (!ret && c->n > vp->sq_entries)
		ret = -ENOSPC;
	if (ret) {
		pthread_mutex_lock(&vp->lock);
		vp->refused = false;
		pthread_mutex_unlock(&vp->lock);
	}
	return ret;
}

/* Stage @c, ringing first if the SQ is full of staged chains. */
static int th_sq_stage_or_ring_locked(struct th_vport *vp,
				      const struct th_chain *c)
{
	int ret = th_sq_stage_locked(vp, c);

	if (ret == -EAGAIN) {
		ret = th_sq_ring_locked(vp);
		if (!ret)
			ret = th_sq_stage_locked(vp, c);
	}
	return ret;
}

int th_post_chain(struct th_vport *vp, struct th_chain *c)
{
	int ret = th_chain_check(vp, c);

	if (ret)
		return ret;
	pthread_mutex_lock(&vp->lock);
	ret = th_sq_stage_or_ring_locked(vp, c);
	if (!ret)
		ret = th_sq_ring_locked(vp);
	pthread_mutex_unlock(&vp->lock);
	return ret;
}

/*
 * Many chains, one system call: stage them, then ring once.  A full SQ
 * rings by itself (so an error of an earlier staged chain may surface here).
 */
int th_stage_chain(struct th_vport *vp, struct th_chain *c)
{
	int ret = th_chain_check(vp, c);

	if (ret)
		return ret;
	pthread_mutex_lock(&vp->lock);
	ret = th_sq_stage_or_ring_locked(vp, c);
	pthread_mutex_unlock(&vp->lock);
	return ret;
}

int th_ring_doorbell(struct th_vport *vp)
{
	int ret;

	pthread_mutex_lock(&vp->lock);
	ret = th_sq_ring_locked(vp);
	pthread_mutex_unlock(&vp->lock);
	return ret;
}

int th_post_error(const struct th_vport *vp, unsigned int *desc_index,
			    unsigned int *reason)
{
	if (!vp->refused)
		return -ENOENT;	/* the last post was not refused by the NIC */
	if (desc_index)
		*desc_index = vp->bad_desc;
	if (reason)
		*reason = vp->reason;
	return 0;
}

int th_poll_cq(struct th_vport *vp, struct th_nic_cqe *out, int max)
{
	uint32_t head, tail;
	int n = 0;

	if (max < 0)
		return -EINVAL;
	pthread_mutex_lock(&vp->lock);
	head = *vp->cq_head;
	tail = __atomic_load_n(vp->cq_tail, __ATOMIC_ACQUIRE);
	while (head != tail && n < max)
		out[n++] = vp->cq_slots[head++ & vp->cq_mask];
	__atomic_store_n(vp->cq_head, head, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&vp->lock);
	return n;
}

int th_ct_read(const struct th_vport *vp, uint16_t ct,
			 uint64_t *success, uint64_t *failure)
{
	if (ct >= vp->info.ct_count)
		return -EINVAL;
	if (success)
		*success = __atomic_load_n(&vp->cts[ct].success, __ATOMIC_ACQUIRE);
	if (failure)
		*failure = __atomic_load_n(&vp->cts[ct].failure, __ATOMIC_ACQUIRE);
	return 0;
}
