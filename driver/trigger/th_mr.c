// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * th_mr.c - the MR key tables of a vport: a local key that names a region
 * in the vport's own descriptors, a remote key with at least 52 random bits
 * that names it to peers, access checks, and the in-flight references that
 * deregistration waits for.
 */
#include "th_engine_int.h"

static u32 th_eng_mr_slot_mask(const struct th_eng_vport *vp)
{
	return (1U << vp->mr_key_shift) - 1;
}

/*
 * Keys hold the slot index in their low bits and random bits above them,
 * never 0.  A local key differs from the one its slot had before, so a
 * stale key cannot name a new region; a remote key has 64 - shift >= 52
 * random bits, so guessing one is hopeless (each wrong guess also puts the
 * guesser's vport into the error state, th_remote.c).
 */
static void th_eng_mr_new_keys(struct th_eng_vport *vp, u32 slot,
			       struct th_eng_mr *mr)
{
	struct th_eng *eng = vp->eng;
	u32 shift = vp->mr_key_shift;
	u32 lkey;
	u64 rkey;

	do {
		lkey = ((u32)eng->ops->random_u64(eng->fabric) << shift) | slot;
	} while (!lkey || lkey == mr->last_lkey);
	do {
		rkey = (eng->ops->random_u64(eng->fabric) << shift) | slot;
	} while (!rkey || rkey == mr->rkey);
	mr->lkey = lkey;
	mr->last_rkey = mr->rkey;
	mr->rkey = rkey;
}

int th_eng_mr_add(struct th_eng_vport *vp, u64 uaddr, u64 len, u32 access,
		  void *kaddr, void *priv, u32 *lkey, u64 *rkey)
{
	struct th_eng_mr *mr = NULL;
	u32 i;

	th_lock(&vp->lock);
	if (vp->dead) {
		th_unlock(&vp->lock);
		return -ECONNREFUSED;
	}
	for (i = 0; i < vp->eng->lim.max_mrs; i++) {
		if (!vp->mrs[i].lkey && !vp->mrs[i].dying) {
			mr = &vp->mrs[i];
			break;
		}
	}
	if (!mr) {
		th_unlock(&vp->lock);
		return -ENOSPC;
	}
	th_eng_mr_new_keys(vp, i, mr);
	mr->access = access;
	mr->uaddr = uaddr;
	mr->len = len;
	mr->kaddr = kaddr;
	mr->priv = priv;
	mr->inflight = 0;
	mr->dying = false;
	vp->mr_count++;
	*lkey = mr->lkey;
	*rkey = mr->rkey;
	th_unlock(&vp->lock);
	return 0;
}

/* The slot local key @lkey names, whatever it holds; NULL if none. */
static struct th_eng_mr *th_eng_mr_slot_locked(struct th_eng_vport *vp, u32 lkey)
	__must_hold(&vp->lock)
{
	u32 slot = lkey & th_eng_mr_slot_mask(vp);

	if (!lkey || slot >= vp->eng->lim.max_mrs)
		return NULL;
	return &vp->mrs[slot];
}

struct th_eng_mr *th_eng_mr_lookup_locked(struct th_eng_vport *vp, u32 lkey)
	__must_hold(&vp->lock)
{
	struct th_eng_mr *mr = th_eng_mr_slot_locked(vp, lkey);

	if (!mr || mr->lkey != lkey || mr->dying)
		return NULL;
	return mr;
}

struct th_eng_mr *th_eng_mr_lookup_rkey_locked(struct th_eng_vport *vp, u64 rkey)
	__must_hold(&vp->lock)
{
	u32 slot = (u32)rkey & th_eng_mr_slot_mask(vp);
	struct th_eng_mr *mr;

	if (!rkey || slot >= vp->eng->lim.max_mrs)
		return NULL;
	mr = &vp->mrs[slot];
	if (!mr->lkey || mr->rkey != rkey || mr->dying)
		return NULL;
	return mr;
}

struct th_eng_mr_dereg_wait {
	u32 slot;
	u32 lkey;
};

static bool th_eng_mr_unused(struct th_eng_vport *vp, void *arg)
{
	struct th_eng_mr_dereg_wait *w = arg;
	bool unused;

	th_lock(&vp->lock);
	unused = !vp->mrs[w->slot].inflight;
	th_unlock(&vp->lock);
	return unused;
}

/* A region whose deregistration was interrupted, for a new one to finish. */
static struct th_eng_mr *th_eng_mr_lookup_orphan_locked(struct th_eng_vport *vp,
							u32 lkey)
	__must_hold(&vp->lock)
{
	struct th_eng_mr *mr = th_eng_mr_slot_locked(vp, lkey);

	return mr && mr->lkey == lkey && mr->orphan ? mr : NULL;
}

/*
 * Deregister: the keys stop resolving at once, operations in flight on the
 * region stop at their next slice (th_exec.c) or finish, then the slot is
 * freed and the provider releases what it put behind it.  -EINVAL for a
 * key that names no region (or one another call is deregistering).
 *
 * The wait is killable (a peer's transfer must not hold a dying task):
 * -EINTR then, and the region stays deregistered, an orphan: its keys
 * never resolve again, its slot is not reused, and its memory stays
 * behind it until a later MR_DEREG of the same key finishes the job or
 * the vport is destroyed.
 */
int th_eng_mr_dereg(struct th_eng_vport *vp, u32 lkey)
{
	const struct th_eng_ops *ops = vp->eng->ops;
	struct th_eng_mr_dereg_wait w = { 0, lkey };
	struct th_eng_mr *mr;
	void *priv;
	int ret;

	th_lock(&vp->lock);
	mr = th_eng_mr_lookup_locked(vp, lkey);
	if (mr) {
		mr->dying = true;
		/* chains that would send from it wait in the engine again */
		th_eng_offload_withdraw_locked(vp, mr);
	} else {
		mr = th_eng_mr_lookup_orphan_locked(vp, lkey);
	}
	if (mr) {
		mr->orphan = false;	/* this call finishes it */
		w.slot = mr - vp->mrs;
	}
	th_unlock(&vp->lock);
	if (!mr)
		return -EINVAL;

	ret = ops->wait(vp, th_eng_mr_unused, &w);
	if (ret) {
		th_lock(&vp->lock);
		mr->orphan = true;
		th_unlock(&vp->lock);
		return ret;
	}

	th_lock(&vp->lock);
	priv = mr->priv;
	mr->last_lkey = mr->lkey;
	mr->lkey = 0;
	mr->dying = false;
	mr->orphan = false;
	mr->priv = NULL;
	mr->kaddr = NULL;
	vp->mr_count--;
	th_unlock(&vp->lock);
	if (priv && ops->mr_free)
		ops->mr_free(vp->eng->fabric, priv);
	return 0;
}

/*
 * Was @rkey, which no longer resolves on @vp, a key of its own: the
 * region's current one while it is being (or has been) deregistered, or
 * the one its slot had before?  A chain still holding such a key learns
 * nothing by it: the region went away since the key was handed out.
 */
bool th_eng_mr_rkey_stale_locked(struct th_eng_vport *vp, u64 rkey)
	__must_hold(&vp->lock)
{
	u32 slot = (u32)rkey & th_eng_mr_slot_mask(vp);
	const struct th_eng_mr *mr;

	if (!rkey || slot >= vp->eng->lim.max_mrs)
		return false;
	mr = &vp->mrs[slot];
	return (mr->rkey == rkey && (!mr->lkey || mr->dying)) ||
	       mr->last_rkey == rkey;
}

/*
 * May an operation needing @access touch [@off, @off + @len) of @mr?
 * -EACCES when the region lacks the access, -ERANGE when the range falls
 * outside it.
 */
int th_eng_mr_allows(const struct th_eng_mr *mr, u32 access, u64 off, u64 len)
{
	u64 end;

	if ((mr->access & access) != access)
		return -EACCES;
	if (check_add_overflow(off, len, &end) || end > mr->len)
		return -ERANGE;
	return 0;
}

/* Hold [@off, @off + @len) of @mr, if th_eng_mr_allows() it. */
int th_eng_mr_hold_locked(struct th_eng_vport *vp, struct th_eng_mr *mr,
			  u32 access, u64 off, u64 len, struct th_eng_mr_ref *ref)
	__must_hold(&vp->lock)
{
	int ret = th_eng_mr_allows(mr, access, off, len);

	if (ret)
		return ret;
	mr->inflight++;
	ref->vp = vp;
	ref->mr = mr;
	ref->ptr = mr->kaddr + off;
	return 0;
}

/*
 * Resolve a local range of @vp for one of its own operations, and hold it
 * until th_eng_mr_put().  Errors are the run-time statuses of uapi.rst: the
 * vport is gone, the key is unknown (deregistered since the doorbell) or
 * lacks the access, or the range falls outside the region.
 */
int th_eng_mr_get_locked(struct th_eng_vport *vp, u32 lkey, u32 access, u64 off,
			 u64 len, struct th_eng_mr_ref *ref)
	__must_hold(&vp->lock)
{
	struct th_eng_mr *mr;

	if (vp->dead)
		return -ECONNREFUSED;
	mr = th_eng_mr_lookup_locked(vp, lkey);
	return mr ? th_eng_mr_hold_locked(vp, mr, access, off, len, ref) : -EACCES;
}

int th_eng_mr_get(struct th_eng_vport *vp, u32 lkey, u32 access, u64 off, u64 len,
		  struct th_eng_mr_ref *ref)
{
	int ret;

	th_lock(&vp->lock);
	ret = th_eng_mr_get_locked(vp, lkey, access, off, len, ref);
	th_unlock(&vp->lock);
	return ret;
}

void th_eng_mr_put_locked(struct th_eng_mr_ref *ref)
	__must_hold(&ref->vp->lock)
{
	struct th_eng_vport *vp = ref->vp;

	if (!--ref->mr->inflight && (ref->mr->dying || vp->dead))
		vp->eng->ops->wake(vp);
}

void th_eng_mr_put(struct th_eng_mr_ref *ref)
{
	struct th_eng_vport *vp = ref->vp;

	th_lock(&vp->lock);
	th_eng_mr_put_locked(ref);
	th_unlock(&vp->lock);
}
