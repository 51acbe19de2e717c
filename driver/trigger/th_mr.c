// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * th_mr.c - the MR key table of a vport: unguessable keys, access checks,
 * and the in-flight references that deregistration waits for.
 */
#include "th_engine_int.h"

/* Checks on a registration request that need no vport. */
int th_eng_mr_check_new(struct th_eng *eng, u64 len, u32 access)
{
	if (access & ~(u32)TH_NIC_ACCESS_ALL)
		return -EINVAL;
	if (!len || len > eng->lim.max_mr_size)
		return -EINVAL;
	return 0;
}

/*
 * A key is a slot index in its low bits and random bits above them, never
 * 0 and never the key the slot had before: knowing one key tells nothing
 * about another, and a stale key cannot name a new region.
 */
static u32 th_mr_new_key(struct th_eng_vport *vp, u32 slot, u32 old)
{
	struct th_eng *eng = vp->eng;
	u32 key;

	do {
		key = (eng->ops->random_u32(eng->fabric) << vp->mr_key_shift) | slot;
	} while (!key || key == old);
	return key;
}

int th_eng_mr_add(struct th_eng_vport *vp, u64 uaddr, u64 len, u32 access,
		  void *kaddr, void *priv, u32 *key)
{
	struct th_eng_mr *mr = NULL;
	u64 end;
	u32 i;
	int ret;

	ret = th_eng_mr_check_new(vp->eng, len, access);
	if (ret)
		return ret;
	if (check_add_overflow(uaddr, len, &end))
		return -EINVAL;

	th_lock(&vp->lock);
	if (vp->dead) {
		th_unlock(&vp->lock);
		return -ECONNREFUSED;
	}
	for (i = 0; i < vp->eng->lim.max_mrs; i++) {
		if (!vp->mrs[i].key && !vp->mrs[i].dying) {
			mr = &vp->mrs[i];
			break;
		}
	}
	if (!mr) {
		th_unlock(&vp->lock);
		return -ENOSPC;
	}
	mr->key = th_mr_new_key(vp, i, mr->last_key);
	mr->access = access;
	mr->uaddr = uaddr;
	mr->len = len;
	mr->kaddr = kaddr;
	mr->priv = priv;
	mr->inflight = 0;
	mr->dying = false;
	vp->mr_count++;
	*key = mr->key;
	th_unlock(&vp->lock);
	return 0;
}

struct th_eng_mr *th_mr_lookup_locked(struct th_eng_vport *vp, u32 key)
	__must_hold(&vp->lock)
{
	u32 slot = key & ((1U << vp->mr_key_shift) - 1);
	struct th_eng_mr *mr;

	if (!key || slot >= vp->eng->lim.max_mrs)
		return NULL;
	mr = &vp->mrs[slot];
	if (mr->key != key || mr->dying)
		return NULL;
	return mr;
}

/* First step of deregistration: the key stops resolving at once. */
int th_eng_mr_kill(struct th_eng_vport *vp, u32 key)
{
	struct th_eng_mr *mr;

	th_lock(&vp->lock);
	mr = th_mr_lookup_locked(vp, key);
	if (mr)
		mr->dying = true;
	th_unlock(&vp->lock);
	return mr ? 0 : -EINVAL;
}

/* Second step: the provider waits (on ops->wake) until this is false. */
bool th_eng_mr_busy(struct th_eng_vport *vp, u32 key)
{
	u32 slot = key & ((1U << vp->mr_key_shift) - 1);
	bool busy;

	if (slot >= vp->eng->lim.max_mrs)
		return false;
	th_lock(&vp->lock);
	busy = vp->mrs[slot].key == key && vp->mrs[slot].inflight;
	th_unlock(&vp->lock);
	return busy;
}

/*
 * Last step: free the slot and hand back the provider's cookie to unpin.
 * Also used on a dead vport's MRs, which need no kill.
 */
void *th_eng_mr_release(struct th_eng_vport *vp, u32 key)
{
	u32 slot = key & ((1U << vp->mr_key_shift) - 1);
	struct th_eng_mr *mr;
	void *priv = NULL;

	if (slot >= vp->eng->lim.max_mrs)
		return NULL;
	th_lock(&vp->lock);
	mr = &vp->mrs[slot];
	if (mr->key == key && key) {
		priv = mr->priv;
		mr->last_key = key;
		mr->key = 0;
		mr->dying = false;
		mr->priv = NULL;
		mr->kaddr = NULL;
		vp->mr_count--;
	}
	th_unlock(&vp->lock);
	return priv;
}

/*
 * Resolve [@off, @off + @len) of MR @key on @vp for an operation needing
 * @access, and hold it until th_mr_put().  Errors are the completion
 * statuses of ABI.md: the vport is gone, the key is unknown or lacks the
 * access, or the range falls outside the region.
 */
int th_mr_get(struct th_eng_vport *vp, u32 key, u32 access, u64 off, u64 len,
	      struct th_mr_ref *ref)
{
	struct th_eng_mr *mr;
	u64 end;
	int ret = 0;

	th_lock(&vp->lock);
	if (vp->dead) {
		ret = -ECONNREFUSED;
		goto out;
	}
	mr = th_mr_lookup_locked(vp, key);
	if (!mr || (mr->access & access) != access) {
		ret = -EACCES;
		goto out;
	}
	if (check_add_overflow(off, len, &end) || end > mr->len) {
		ret = -ERANGE;
		goto out;
	}
	mr->inflight++;
	ref->mr = mr;
	ref->ptr = mr->kaddr + off;
out:
	th_unlock(&vp->lock);
	return ret;
}

void th_mr_put(struct th_eng_vport *vp, struct th_mr_ref *ref)
{
	th_lock(&vp->lock);
	if (!--ref->mr->inflight && (ref->mr->dying || vp->dead))
		vp->eng->ops->wake(vp);
	th_unlock(&vp->lock);
}
