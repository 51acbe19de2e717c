// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * wire.c - deliveries between the processes of an ofi job, both ends.
 *
 * The initiator (th_ofi_remote_post(), from the engine) records the
 * delivery in a slot and sends it: up to TH_OFI_EAGER bytes inside a PUT
 * or GET message, more by asking the target to RESOLVE the key first and
 * then writing or reading by RMA.  The target answers only after its
 * engine applied the delivery (the data in place, the counter advanced,
 * chains it fired run), and the initiator then resumes the chain with
 * th_eng_remote_done(): a chain's descriptors take effect in order across
 * processes as they do inside one.  The target checks what the module
 * checks (security.rst, "Domains"): another domain's vport looks absent
 * (-ECONNREFUSED), and a key that is wrong or a range outside it is the
 * initiator's violation (-EACCES, -ERANGE), which puts the initiator's
 * vport into the error state through the engine.
 *
 * One message per delivery where one will do: the target's engine often
 * answers a PUT with a message of its own to the initiator at once (a
 * chain the PUT's counter fired: the ping-pong of a triggered hop, a
 * collective's next step).  The DONE then rides on that message
 * (TH_OFI_F_ACK in its sealed header) instead of following it as a
 * second send, receive and wake-up; it goes alone when nothing went.
 *
 * Everything here that runs engine code or answers a peer runs on the
 * thread that reads the completion queue (the progress thread, or a
 * waiter that spins, net.c); th_ofi_remote_post() and
 * th_ofi_remote_fail_ct() only send.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fabric_dl.h"	/* before any <rdma/...> */
#include <rdma/fi_domain.h>

#include "ofi.h"

/* Regions held for peers' RMA at once; past it, RESOLVE answers -EBUSY. */
#define TH_OFI_MAX_HOLDS	16384
/* Deliveries in flight from this process at once (bounded by its chains). */
#define TH_OFI_MAX_OPS		(1U << 20)

static const u8 *th_ofi_token(const void *domain)
{
	return ((const struct th_ipf_domain *)domain)->token;
}

u64 th_ofi_id(u32 gen, u32 slot)
{
	return (u64)gen << 32 | (slot + 1);
}

static struct th_eng *th_ofi_eng(struct th_ofi *o)
{
	return th_ipf_engine(o->ipf);
}

/* ---- the initiator's slots -------------------------------------------- */

/* A free slot for @chain's delivery, under the lock; -1 if none. */
int th_ofi_op_alloc_locked(struct th_ofi *o)
{
	struct th_ofi_op *ops;
	u32 i, n;

	for (i = 0; i < o->nops; i++)
		if (o->ops[i].state == TH_OFI_OP_FREE)
			return i;
	n = o->nops ? o->nops * 2 : 64;
	if (n > TH_OFI_MAX_OPS)
		return -1;
	ops = realloc(o->ops, n * sizeof(*ops));
	if (!ops)
		return -1;
	memset(ops + o->nops, 0, (n - o->nops) * sizeof(*ops));
	/* ids that cannot be guessed (auth.c), not counted up from zero */
	for (; i < n; i++)
		ops[i].gen = th_ofi_unguessable(o, TH_OFI_PRF_OP_GEN, i);
	i = o->nops;
	o->ops = ops;
	o->nops = n;
	return i;
}

/* The slot of live operation @id in state @state (0: any); -1 if none. */
int th_ofi_op_find_locked(struct th_ofi *o, u64 id, u8 state)
{
	u32 slot = (u32)id - 1;

	if ((u32)id == 0 || slot >= o->nops)
		return -1;
	if (o->ops[slot].gen != (u32)(id >> 32) ||
	    o->ops[slot].state == TH_OFI_OP_FREE ||
	    (state && o->ops[slot].state != state))
		return -1;
	return slot;
}

/*
 * Vport @vport's count of large deliveries whose bytes this host owes,
 * moved by @by (ops->host_owes reads it without the lock).
 */
static void th_ofi_owed_add_locked(struct th_ofi *o, u32 vport, int by)
{
	if (vport < o->nowed)
		__atomic_store_n(&o->owed[vport], o->owed[vport] + by,
				 __ATOMIC_RELEASE);
}

/*
 * Does answer @type from rank @from fit operation @slot?  Only the rank
 * it went to answers it, and only with what such an operation expects:
 * GET_DATA a GET in one message, DONE a PUT (in one message, triggered,
 * or by RMA).  RESOLVED is matched by th_ofi_resolved().
 */
static bool th_ofi_answer_fits_locked(struct th_ofi *o, int slot, u8 type,
				      u32 from)
{
	const struct th_ofi_op *op = &o->ops[slot];
	bool get = op->rop.fetch;

	if (op->peer != from)
		return false;
	if (type == TH_OFI_MSG_GET_DATA)
		return get && op->state == TH_OFI_OP_SENT;
	if (type == TH_OFI_MSG_DONE)
		return !get && (op->state == TH_OFI_OP_SENT ||
				op->state == TH_OFI_OP_RMA ||
				op->state == TH_OFI_OP_ARMED);
	return false;
}

/*
 * Operation @id ends with @status: its chain goes on (engine), here on the
 * progress thread.  @answer: the message type of rank @from's answer that
 * ends it, or 0 when this process ends it itself (a failure, a deadline,
 * an RMA read done).  @data: GET: the bytes the target sent.  An id that
 * already ended (a late answer, a second error) is ignored, and so is an
 * answer that does not fit the operation (counted: o->misfit).
 */
static void th_ofi_op_end(struct th_ofi *o, u64 id, int status, u8 answer,
			  u32 from, const void *data, size_t len)
{
	struct th_eng_chain *chain;
	struct th_eng_ctx ctx;
	int slot;

	pthread_mutex_lock(&o->lock);
	slot = th_ofi_op_find_locked(o, id, 0);
	if (slot >= 0 && answer &&
	    !th_ofi_answer_fits_locked(o, slot, answer, from))
		slot = -1;
	if (slot < 0) {
		if (answer)
			o->misfit++;
		pthread_mutex_unlock(&o->lock);
		return;
	}
	if (o->ops[slot].state == TH_OFI_OP_ARMED) {
		/* a triggered send whose chain the engine has not fired yet */
		if (!o->ops[slot].answered) {
			o->ops[slot].answered = true;
			o->ops[slot].status = status;
		}
		pthread_mutex_unlock(&o->lock);
		return;
	}
	chain = o->ops[slot].chain;
	/*
	 * Not owed from here on: a waiter that saw the chain's end must not
	 * spin on a count that only this thread, maybe preempted, can lower
	 */
	if (o->ops[slot].state == TH_OFI_OP_RESOLVING ||
	    o->ops[slot].state == TH_OFI_OP_RMA)
		th_ofi_owed_add_locked(o, o->ops[slot].from, -1);
	if (data && !status) {
		if (len == o->ops[slot].rop.len)
			memcpy(o->ops[slot].rop.local, data, len);
		else
			status = -EPROTO;
	}
	o->ops[slot].state = TH_OFI_OP_FREE;
	o->ops[slot].gen++;
	pthread_mutex_unlock(&o->lock);

	th_eng_ctx_init(&ctx, th_ofi_eng(o));
	th_eng_remote_done(&ctx, chain, status);
	th_eng_ctx_run(&ctx);
}

/* The header of a request for @op from this process. */
void th_ofi_hdr_init(struct th_ofi *o, struct th_ofi_hdr *h, u8 type,
		     const struct th_eng_remote_op *op, u64 id)
{
	memset(h, 0, sizeof(*h));
	h->type = type;
	h->src = o->rank;
	h->vport = op->vport;
	h->id = id;
	h->rkey = op->rkey;
	h->off = op->roff;
	h->len = op->len;
	if (op->remote_ct >= 0) {
		h->flags |= TH_OFI_F_CT;
		h->ct = op->remote_ct;
	}
	memcpy(h->domain, th_ofi_token(op->domain), sizeof(h->domain));
}

/*
 * ops->remote_post: start @op.  Its end always comes from the progress
 * thread (never from here), as the engine requires: a failure to send
 * marks the slot ended now, and the thread, woken, reports it.
 */
void th_ofi_remote_post(void *arg, struct th_eng_chain *chain,
			const struct th_eng_remote_op *op)
{
	struct th_ofi *o = arg;
	bool eager = op->len <= TH_OFI_EAGER;
	struct th_ofi_hdr h;
	u8 type, state;
	u64 id;
	int slot, ret = 0;

	if (op->fetch)
		type = eager ? TH_OFI_MSG_GET : TH_OFI_MSG_RESOLVE;
	else
		type = eager ? TH_OFI_MSG_PUT : TH_OFI_MSG_RESOLVE;
	state = eager ? TH_OFI_OP_SENT : TH_OFI_OP_RESOLVING;

	pthread_mutex_lock(&o->lock);
	slot = th_ofi_op_alloc_locked(o);
	if (slot < 0) {
		pthread_mutex_unlock(&o->lock);
		/* no slot to report through: the chain fails at once, later */
		ret = -ENOMEM;
		goto fail_unslotted;
	}
	o->ops[slot].chain = chain;
	o->ops[slot].rop = *op;
	o->ops[slot].state = state;
	o->ops[slot].peer = op->node;
	o->ops[slot].deadline = th_ofi_now_ns() + o->timeout_ns;
	o->ops[slot].status = 0;
	o->ops[slot].from = th_eng_chain_vport(chain)->index;
	if (!eager)
		th_ofi_owed_add_locked(o, o->ops[slot].from, 1);
	id = th_ofi_id(o->ops[slot].gen, slot);
	if (op->node >= o->size || o->dead[op->node])
		ret = -ECONNREFUSED;
	pthread_mutex_unlock(&o->lock);

	if (!ret) {
		th_ofi_hdr_init(o, &h, type, op, id);
		if (type == TH_OFI_MSG_RESOLVE && op->fetch)
			h.flags |= TH_OFI_F_READ;
		ret = th_ofi_send(o, op->node, &h, op->local,
				  type == TH_OFI_MSG_PUT ? op->len : 0, id);
	}
	if (ret) {
		/* libfabric would not take it: the peer cannot be reached */
		if (ret != -ENOMEM)
			ret = -ECONNREFUSED;
		pthread_mutex_lock(&o->lock);
		if (th_ofi_op_find_locked(o, id, 0) == slot) {
			o->ops[slot].status = ret;
			o->ops[slot].deadline = 0;	/* ends on the next pass */
		}
		pthread_mutex_unlock(&o->lock);
		th_ofi_wake(o);
	}
	return;

fail_unslotted:
	pthread_mutex_lock(&o->lock);
	th_list_add_tail(&o->orphans, th_eng_chain_node(chain));
	__atomic_store_n(&o->orphans_wait, true, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&o->lock);
	th_ofi_wake(o);
}

/* The progress thread ends the deliveries that found no slot. */
void th_ofi_orphans_end(struct th_ofi *o)
{
	struct th_eng_chain *chain;
	struct th_eng_ctx ctx;

	if (!__atomic_load_n(&o->orphans_wait, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&o->lock);
	while (!th_list_empty(&o->orphans)) {
		chain = th_eng_chain_from_node(o->orphans.next);
		th_list_del(o->orphans.next);
		pthread_mutex_unlock(&o->lock);
		th_eng_ctx_init(&ctx, th_ofi_eng(o));
		th_eng_remote_done(&ctx, chain, -ENOMEM);
		th_eng_ctx_run(&ctx);
		pthread_mutex_lock(&o->lock);
	}
	__atomic_store_n(&o->orphans_wait, false, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&o->lock);
}

/*
 * ops->remote_fail_ct: tell (@node, @vport) that counter @ct will not
 * advance; the target checks the access.  Lost if the target is gone,
 * which then has no counter to fail.
 */
void th_ofi_remote_fail_ct(void *arg, const void *domain, u32 node, u32 vport,
			   u16 ct, u64 rkey, u64 off, u64 len)
{
	struct th_ofi *o = arg;
	struct th_eng_remote_op op = {
		.node = node, .vport = vport, .rkey = rkey, .roff = off,
		.len = len, .remote_ct = ct, .domain = domain,
	};
	struct th_ofi_hdr h;

	if (node >= o->size)
		return;
	th_ofi_hdr_init(o, &h, TH_OFI_MSG_FAIL_CT, &op, 0);
	th_ofi_send(o, node, &h, NULL, 0, 0);
}

static bool th_ofi_watch_eq(const struct th_ofi_watch *a,
			    const struct th_ofi_watch *b)
{
	return a->peer == b->peer && a->vport == b->vport && a->ct == b->ct &&
	       !memcmp(a->domain, b->domain, sizeof(a->domain));
}

/*
 * ops->chain_posted: each remote counter the chain advances is watched by
 * its target, which fails it if this process dies before the chain ran,
 * as the module fails a dying process's chains' counters.  Asked once per
 * counter (re-arming chains and collectives post the same ones again).
 */
void th_ofi_chain_posted(void *arg, struct th_eng_vport *ev,
			 const struct th_nic_desc *descs, u32 n)
{
	struct th_ofi *o = arg;
	struct th_eng_remote_op op = { .domain = ev->domain };
	struct th_ofi_watch w;
	struct th_ofi_hdr h;
	u32 i, j;
	bool told;

	for (i = 0; i < n; i++) {
		const struct th_nic_desc *d = &descs[i];

		if (!th_eng_desc_target(d, &op) || op.remote_ct < 0)
			continue;
		if (op.node == o->rank || op.node >= o->size)
			continue;
		memcpy(w.domain, th_ofi_token(ev->domain), sizeof(w.domain));
		w.peer = op.node;
		w.vport = op.vport;
		w.ct = op.remote_ct;
		pthread_mutex_lock(&o->lock);
		for (j = 0, told = false; j < o->ntold && !told; j++)
			told = th_ofi_watch_eq(&o->told[j], &w);
		if (!told && o->ntold < TH_OFI_MAX_WATCHES)
			o->told[o->ntold++] = w;
		pthread_mutex_unlock(&o->lock);
		if (told)
			continue;
		th_ofi_hdr_init(o, &h, TH_OFI_MSG_WATCH, &op, 0);
		th_ofi_send(o, op.node, &h, NULL, 0, 0);
	}
}

/* ---- the target's side ------------------------------------------------ */

/*
 * The DONE a PUT being applied on this thread owes its initiator while
 * the engine runs what the PUT's counter fired: the first message this
 * thread sends that peer meanwhile carries it (th_ofi_ack_take(), from
 * th_ofi_send()).  Per thread: the engine runs a delivery's consequences
 * on the thread that applied it, and a message another thread sends
 * carries nothing.
 */
static __thread struct {
	bool owed;
	u32 peer;
	u64 id;
} th_ofi_owed;

/* Is a DONE owed to @peer?  Then it is the caller's to carry: @id. */
bool th_ofi_ack_take(u32 peer, u64 *id)
{
	if (!th_ofi_owed.owed || th_ofi_owed.peer != peer)
		return false;
	th_ofi_owed.owed = false;
	*id = th_ofi_owed.id;
	return true;
}

/* The vport @h names, if it is in @h's domain, referenced; else NULL. */
static struct th_eng_vport *th_ofi_target(struct th_ofi *o,
					  const struct th_ofi_hdr *h)
{
	struct th_eng *eng = th_ofi_eng(o);
	struct th_eng_vport *ev;

	ev = eng->ops->vport_get(o->ipf, o->rank, h->vport);
	if (ev && memcmp(th_ofi_token(ev->domain), h->domain,
			 sizeof(h->domain))) {
		eng->ops->vport_put(o->ipf, ev);
		ev = NULL;
	}
	return ev;
}

static void th_ofi_target_put(struct th_ofi *o, struct th_eng_vport *ev)
{
	th_ofi_eng(o)->ops->vport_put(o->ipf, ev);
}

/* Advance (or fail) counter @ct of @ev and run what it fires. */
static void th_ofi_ct(struct th_ofi *o, struct th_eng_vport *ev, u16 ct,
		      enum th_eng_ct_op how)
{
	struct th_eng_ctx ctx;

	th_eng_ctx_init(&ctx, th_ofi_eng(o));
	th_eng_ct_update(ev, ct, how, 1, 0, &ctx);
	th_eng_ctx_run(&ctx);
}

static void th_ofi_answer(struct th_ofi *o, const struct th_ofi_hdr *req,
			  u8 type, int status, const void *data, size_t len)
{
	struct th_ofi_hdr h;

	memset(&h, 0, sizeof(h));
	h.type = type;
	h.src = o->rank;
	h.id = req->id;
	h.status = status;
	h.len = len;
	th_ofi_send(o, req->src, &h, data, len, 0);
}

/*
 * Has rank @src broken a key or a range here before?  Then its requests
 * are refused (-EACCES) without a look at their keys: the module puts a
 * violator's vport into the error state, and a rank that goes on asking
 * is probing.
 */
static bool th_ofi_violator(struct th_ofi *o, u32 src)
{
	/*
	 * no lock: @src's requests are handled in order, under @cq_lock,
	 * so the one after a violation sees the flag its handler set
	 */
	return __atomic_load_n(&o->violator[src], __ATOMIC_RELAXED);
}

/* A request of rank @src ended with @ret here: a violation? */
static void th_ofi_judge(struct th_ofi *o, u32 src, int ret)
{
	if (ret != -EACCES && ret != -ERANGE)
		return;
	pthread_mutex_lock(&o->lock);
	__atomic_store_n(&o->violator[src], true, __ATOMIC_RELAXED);
	o->violations++;
	pthread_mutex_unlock(&o->lock);
}

/* An eager PUT: the bytes, then the counter, then the answer. */
static void th_ofi_put_apply(struct th_ofi *o, const struct th_ofi_hdr *h,
			     const void *payload, size_t len)
{
	bool refused = th_ofi_violator(o, h->src);
	struct th_eng_vport *ev = refused ? NULL : th_ofi_target(o, h);
	struct th_eng_mr_ref ref;
	int ret = refused ? -EACCES : -ECONNREFUSED;
	bool acked = false;

	if (ev) {
		ret = len == h->len ? 0 : -EPROTO;
		if (!ret)
			ret = th_eng_remote_hold(ev, h->rkey,
						 TH_NIC_ACCESS_REMOTE_WRITE,
						 h->off, h->len, &ref);
		if (!ret) {
			memcpy(ref.ptr, payload, len);
			th_eng_remote_release(&ref);
			if (h->flags & TH_OFI_F_CT) {
				/* a message the counter sends back carries the DONE */
				th_ofi_owed.owed = true;
				th_ofi_owed.peer = h->src;
				th_ofi_owed.id = h->id;
				th_ofi_ct(o, ev, h->ct, TH_ENG_CT_INC);
				acked = !th_ofi_owed.owed;
				th_ofi_owed.owed = false;
			}
		}
		th_ofi_target_put(o, ev);
		th_ofi_judge(o, h->src, ret);
	}
	if (!acked)
		th_ofi_answer(o, h, TH_OFI_MSG_DONE, ret, NULL, 0);
}

static void th_ofi_get_apply(struct th_ofi *o, const struct th_ofi_hdr *h)
{
	bool refused = th_ofi_violator(o, h->src);
	struct th_eng_vport *ev = refused ? NULL : th_ofi_target(o, h);
	struct th_eng_mr_ref ref;
	int ret = refused ? -EACCES : -ECONNREFUSED;

	if (ev) {
		ret = h->len <= TH_OFI_EAGER ? 0 : -EPROTO;
		if (!ret)
			ret = th_eng_remote_hold(ev, h->rkey,
						 TH_NIC_ACCESS_REMOTE_READ,
						 h->off, h->len, &ref);
		if (!ret) {
			th_ofi_answer(o, h, TH_OFI_MSG_GET_DATA, 0, ref.ptr,
				      h->len);
			th_eng_remote_release(&ref);
		}
		th_ofi_target_put(o, ev);
		th_ofi_judge(o, h->src, ret);
	}
	if (ret)
		th_ofi_answer(o, h, TH_OFI_MSG_GET_DATA, ret, NULL, 0);
}

static void th_ofi_fail_apply(struct th_ofi *o, const struct th_ofi_hdr *h)
{
	struct th_eng_vport *ev = th_ofi_violator(o, h->src) ? NULL :
				  th_ofi_target(o, h);
	struct th_eng_mr_ref ref;

	if (!ev)
		return;
	/* a failure value only where the write would have been allowed */
	if (!th_eng_remote_hold(ev, h->rkey, TH_NIC_ACCESS_REMOTE_WRITE,
				h->off, h->len, &ref)) {
		th_eng_remote_release(&ref);
		th_ofi_ct(o, ev, h->ct, TH_ENG_CT_FAIL);
	}
	th_ofi_target_put(o, ev);
	/*
	 * Not judged: FAIL_CT is never answered, so it tells the sender
	 * nothing about the key; and a chain torn down after its target
	 * deregistered the region sends one with a key that is gone.
	 */
}

/* WATCH: remember the counter, if the sender may write there at all. */
static void th_ofi_watch_apply(struct th_ofi *o, const struct th_ofi_hdr *h)
{
	struct th_eng_vport *ev = th_ofi_violator(o, h->src) ? NULL :
				  th_ofi_target(o, h);
	struct th_eng_mr_ref ref;
	struct th_ofi_watch w;
	bool known;
	u32 j;
	int ret;

	if (!ev)
		return;
	/*
	 * Not judged: a chain's WATCH goes out when it is posted, and on the
	 * module a bad key is the initiator's violation only once the chain
	 * runs (its PUT or its FAIL_CT is judged then).
	 */
	ret = th_eng_remote_hold(ev, h->rkey, TH_NIC_ACCESS_REMOTE_WRITE,
				 h->off, h->len, &ref);
	if (!ret) {
		th_eng_remote_release(&ref);
		memcpy(w.domain, h->domain, sizeof(w.domain));
		w.peer = h->src;
		w.vport = h->vport;
		w.ct = h->ct;
		pthread_mutex_lock(&o->lock);
		for (j = 0, known = false; j < o->nwatches && !known; j++)
			known = th_ofi_watch_eq(&o->watches[j], &w);
		if (!known && o->nwatches < TH_OFI_MAX_WATCHES)
			o->watches[o->nwatches++] = w;
		pthread_mutex_unlock(&o->lock);
	}
	th_ofi_target_put(o, ev);
}

/*
 * Local vport @vport is gone: its watches go with it, so that a vport
 * created later with its index is not failed for its predecessor's peers.
 */
void th_ofi_watch_forget(struct th_ofi *o, u32 vport)
{
	u32 j = 0;

	pthread_mutex_lock(&o->lock);
	while (j < o->nwatches) {
		if (o->watches[j].vport == vport)
			o->watches[j] = o->watches[--o->nwatches];
		else
			j++;
	}
	pthread_mutex_unlock(&o->lock);
}

/* @peer died: fail each counter it was to advance here, once. */
static void th_ofi_watch_fire(struct th_ofi *o, u32 peer)
{
	struct th_ofi_hdr h = { 0 };
	struct th_eng_vport *ev;
	struct th_ofi_watch w;
	u32 j = 0;

	pthread_mutex_lock(&o->lock);
	while (j < o->nwatches) {
		if (o->watches[j].peer != peer) {
			j++;
			continue;
		}
		w = o->watches[j];
		o->watches[j] = o->watches[--o->nwatches];
		pthread_mutex_unlock(&o->lock);
		h.vport = w.vport;
		memcpy(h.domain, w.domain, sizeof(h.domain));
		ev = th_ofi_target(o, &h);
		if (ev) {
			th_ofi_ct(o, ev, w.ct, TH_ENG_CT_FAIL);
			th_ofi_target_put(o, ev);
		}
		pthread_mutex_lock(&o->lock);
	}
	pthread_mutex_unlock(&o->lock);
}

/*
 * Each peer whose death would fail counters here gets a PING: a send to
 * a process that ended fails (tcp: the connection is refused or reset),
 * and th_ofi_peer_dead() follows.  Nothing answers it.  On shm such a
 * send succeeds, and the peer's process is looked at instead.
 */
void th_ofi_ping(struct th_ofi *o)
{
	struct th_ofi_hdr h = { .type = TH_OFI_MSG_PING };
	u32 peer, j;
	bool watched;

	h.src = o->rank;
	for (peer = 0; peer < o->size; peer++) {
		pthread_mutex_lock(&o->lock);
		for (j = 0, watched = false; j < o->nwatches && !watched; j++)
			watched = o->watches[j].peer == peer;
		watched = watched && !o->dead[peer];
		pthread_mutex_unlock(&o->lock);
		if (watched && th_ofi_net_peer_gone(o, peer))
			th_ofi_peer_dead(o, peer, "its process ended");
		else if (watched)
			th_ofi_send(o, peer, &h, NULL, 0, 0);
	}
}

/* A free hold slot, under the lock; -1 if none may be had. */
static int th_ofi_hold_alloc_locked(struct th_ofi *o)
{
	struct th_ofi_hold *holds;
	u32 i, n;

	for (i = 0; i < o->nholds; i++)
		if (!o->holds[i].busy)
			return i;
	n = o->nholds ? o->nholds * 2 : 64;
	if (n > TH_OFI_MAX_HOLDS)
		return -1;
	holds = realloc(o->holds, n * sizeof(*holds));
	if (!holds)
		return -1;
	memset(holds + o->nholds, 0, (n - o->nholds) * sizeof(*holds));
	o->holds = holds;
	o->nholds = n;
	return i;
}

/*
 * A hold's id, which an RMA write carries as its remote CQ data: 32 bits,
 * all that verbs offers (InfiniBand's immediate data), so 15 for the slot
 * plus one (TH_OFI_MAX_HOLDS fits) and 17 of its generation.
 */
#define TH_OFI_HOLD_SLOT_BITS	15
#define TH_OFI_HOLD_GEN_MASK	((1U << (32 - TH_OFI_HOLD_SLOT_BITS)) - 1)

static u64 th_ofi_hold_id(u32 gen, u32 slot)
{
	return (u64)(gen & TH_OFI_HOLD_GEN_MASK) << TH_OFI_HOLD_SLOT_BITS |
	       (slot + 1);
}

/* The slot hold id @id names, or -1. */
static int th_ofi_hold_slot(u64 id)
{
	u32 low = id & ((1U << TH_OFI_HOLD_SLOT_BITS) - 1);

	return low && !(id >> 32) ? (int)low - 1 : -1;
}

/* Take hold @id of @peer off the books (-1: not one), under the lock. */
static int th_ofi_hold_find_locked(struct th_ofi *o, u64 id, u32 peer)
{
	int slot = th_ofi_hold_slot(id);

	if (slot < 0 || (u32)slot >= o->nholds || !o->holds[slot].busy ||
	    (o->holds[slot].gen & TH_OFI_HOLD_GEN_MASK) !=
	    (u32)(id >> TH_OFI_HOLD_SLOT_BITS) ||
	    o->holds[slot].peer != peer)
		return -1;
	return slot;
}

/* Drop hold @slot: the region, then the vport (its teardown waits). */
static void th_ofi_hold_drop(struct th_ofi *o, int slot)
{
	struct th_ofi_hold hd;

	pthread_mutex_lock(&o->lock);
	hd = o->holds[slot];
	o->holds[slot].busy = false;
	o->holds[slot].gen++;
	pthread_mutex_unlock(&o->lock);
	th_eng_remote_release(&hd.ref);
	th_ofi_target_put(o, hd.ev);
}

/* RESOLVE: hold the region for the peer's RMA and tell it where it is. */
static void th_ofi_resolve(struct th_ofi *o, const struct th_ofi_hdr *h)
{
	bool refused = th_ofi_violator(o, h->src);
	struct th_eng_vport *ev = refused ? NULL : th_ofi_target(o, h);
	u32 access = h->flags & TH_OFI_F_READ ? TH_NIC_ACCESS_REMOTE_READ :
			TH_NIC_ACCESS_REMOTE_WRITE;
	struct th_ofi_hdr a;
	struct th_eng_mr_ref ref;
	struct th_ofi_rail *rail = &o->rail[o->rail_of[h->src]];
	struct fid_mr *fmr;
	int ret = refused ? -EACCES : -ECONNREFUSED, slot = -1;

	memset(&a, 0, sizeof(a));
	if (ev) {
		ret = th_eng_remote_hold(ev, h->rkey, access, h->off, h->len,
					 &ref);
		th_ofi_judge(o, h->src, ret);
	}
	if (!ret) {
		/* the registration on the rail the peer's RMA comes over */
		fmr = ((struct th_ofi_mr *)ref.mr->priv)->fmr[o->rail_of[h->src]];
		a.raddr = rail->virt_addr ? (u64)(uintptr_t)ref.ptr :
			  (u64)(ref.ptr - ref.mr->kaddr);
		a.fikey = fi_mr_key(fmr);
		pthread_mutex_lock(&o->lock);
		slot = th_ofi_hold_alloc_locked(o);
		if (slot >= 0) {
			o->holds[slot] = (struct th_ofi_hold) {
				.ev = ev, .ref = ref, .busy = true,
				.gen = o->holds[slot].gen, .peer = h->src,
				.op = h->id, .ct = h->ct, .flags = h->flags,
			};
			a.hold = th_ofi_hold_id(o->holds[slot].gen, slot);
		}
		pthread_mutex_unlock(&o->lock);
		if (slot < 0) {
			th_eng_remote_release(&ref);
			ret = -EBUSY;
		}
	}
	if (ret && ev)
		th_ofi_target_put(o, ev);
	a.type = TH_OFI_MSG_RESOLVED;
	a.src = o->rank;
	a.id = h->id;
	a.status = ret;
	th_ofi_send(o, h->src, &a, NULL, 0, 0);
}

/* A peer's RMA write landed (@data: the hold): counter, release, answer. */
void th_ofi_rma_landed(struct th_ofi *o, u64 data)
{
	struct th_ofi_hold hd;
	struct th_ofi_hdr req = { 0 };
	int slot;

	pthread_mutex_lock(&o->lock);
	slot = th_ofi_hold_slot(data);
	if (slot >= 0 && (u32)slot < o->nholds)
		slot = th_ofi_hold_find_locked(o, data, o->holds[slot].peer);
	else
		slot = -1;
	if (slot >= 0)
		hd = o->holds[slot];
	pthread_mutex_unlock(&o->lock);
	if (slot < 0)
		return;
	if (hd.flags & TH_OFI_F_CT)
		th_ofi_ct(o, hd.ev, hd.ct, TH_ENG_CT_INC);
	th_ofi_hold_drop(o, slot);
	req.src = hd.peer;
	req.id = hd.op;
	th_ofi_answer(o, &req, TH_OFI_MSG_DONE, 0, NULL, 0);
}

/* RESOLVED: the target holds the region; move the bytes. */
static void th_ofi_resolved(struct th_ofi *o, const struct th_ofi_hdr *h)
{
	struct th_eng_remote_op rop = { 0 };
	int slot, ret;

	pthread_mutex_lock(&o->lock);
	slot = th_ofi_op_find_locked(o, h->id, TH_OFI_OP_RESOLVING);
	if (slot >= 0 && o->ops[slot].peer != h->src)
		slot = -1;
	if (slot < 0)
		o->misfit++;
	if (slot >= 0 && !h->status) {
		o->ops[slot].state = TH_OFI_OP_RMA;
		o->ops[slot].hold = h->hold;
		rop = o->ops[slot].rop;
	}
	pthread_mutex_unlock(&o->lock);
	if (slot < 0)
		return;
	if (h->status) {
		th_ofi_op_end(o, h->id, h->status, 0, 0, NULL, 0);
		return;
	}
	ret = th_ofi_rma(o, h->src, !rop.fetch, rop.local,
			 rop.local_priv, rop.len, h->raddr, h->fikey, h->hold,
			 h->id);
	if (ret)
		th_ofi_op_end(o, h->id, ret, 0, 0, NULL, 0);
}

/* A message arrived. */
void th_ofi_recv(struct th_ofi *o, const struct th_ofi_hdr *h,
		 const void *payload, size_t len)
{
	int slot;

	if (h->src >= o->size)
		return;
	/*
	 * A DONE riding on this message first: the sender applied our PUT
	 * before it sent this (the PUT's counter fired what sent it)
	 */
	if (h->flags & TH_OFI_F_ACK)
		th_ofi_op_end(o, h->ack_id, 0, TH_OFI_MSG_DONE, h->src, NULL, 0);
	switch (h->type) {
	case TH_OFI_MSG_PUT:
		th_ofi_put_apply(o, h, payload, len);
		break;
	case TH_OFI_MSG_GET:
		th_ofi_get_apply(o, h);
		break;
	case TH_OFI_MSG_GET_DATA:
		th_ofi_op_end(o, h->id, h->status, h->type, h->src,
			      h->status ? NULL : payload, len);
		break;
	case TH_OFI_MSG_DONE:
		th_ofi_op_end(o, h->id, h->status, h->type, h->src, NULL, 0);
		break;
	case TH_OFI_MSG_FAIL_CT:
		th_ofi_fail_apply(o, h);
		break;
	case TH_OFI_MSG_RESOLVE:
		th_ofi_resolve(o, h);
		break;
	case TH_OFI_MSG_RESOLVED:
		th_ofi_resolved(o, h);
		break;
	case TH_OFI_MSG_WATCH:
		th_ofi_watch_apply(o, h);
		break;
	case TH_OFI_MSG_RELEASE:
		pthread_mutex_lock(&o->lock);
		slot = th_ofi_hold_find_locked(o, h->hold, h->src);
		pthread_mutex_unlock(&o->lock);
		if (slot >= 0)
			th_ofi_hold_drop(o, slot);
		break;
	}
}

/*
 * A transfer of ours completed (@status 0) or failed.  A failed one ends
 * its operation; a read that completed ends it too, after telling the
 * target to drop its hold.  Writes and messages wait for the answer.
 */
void th_ofi_xfer_done(struct th_ofi *o, struct th_ofi_xfer *x, int status)
{
	struct th_ofi_hdr h;
	int slot;

	if (x->kind == TH_OFI_CTX_TX &&
	    ((struct th_ofi_hdr *)x->buf)->type == TH_OFI_MSG_HELLO) {
		pthread_mutex_lock(&o->lock);
		o->hellos++;
		if (status && !o->hello_err)
			o->hello_err = status;
		pthread_mutex_unlock(&o->lock);
	} else if (x->op && status) {
		th_ofi_op_end(o, x->op, status, 0, 0, NULL, 0);
	} else if (x->op && x->kind == TH_OFI_CTX_RMA && !x->write) {
		memset(&h, 0, sizeof(h));
		pthread_mutex_lock(&o->lock);
		slot = th_ofi_op_find_locked(o, x->op, TH_OFI_OP_RMA);
		if (slot >= 0)
			h.hold = o->ops[slot].hold;
		pthread_mutex_unlock(&o->lock);
		if (slot >= 0) {
			h.type = TH_OFI_MSG_RELEASE;
			h.src = o->rank;
			th_ofi_send(o, x->peer, &h, NULL, 0, 0);
			th_ofi_op_end(o, x->op, 0, 0, 0, NULL, 0);
		}
	}
	if (x->trig) {
		th_ofi_trig_done(o, x->trig - 1);
	} else if (x->kind != TH_OFI_CTX_RX) {
		pthread_mutex_lock(&o->lock);
		o->tx_inflight--;
		pthread_mutex_unlock(&o->lock);
	}
	free(x);
}

/* ---- failures --------------------------------------------------------- */

/*
 * @peer's process ended or went silent: every delivery to it ends with
 * -ECONNREFUSED (as to a vanished vport), the regions it held are
 * released, and the counters its chains were to advance fail.
 */
void th_ofi_peer_dead(struct th_ofi *o, u32 peer, const char *why)
{
	u64 id;
	u32 i;
	bool first;

	pthread_mutex_lock(&o->lock);
	first = !o->dead[peer];
	o->dead[peer] = true;
	for (i = 0; i < o->nops; i++) {
		if (o->ops[i].state == TH_OFI_OP_FREE || o->ops[i].peer != peer)
			continue;
		if (o->ops[i].state == TH_OFI_OP_ARMED) {
			/* its chain has not fired: it fails once it does */
			if (!o->ops[i].answered) {
				o->ops[i].answered = true;
				o->ops[i].status = -ECONNREFUSED;
			}
			continue;
		}
		o->ops[i].status = -ECONNREFUSED;
		o->ops[i].deadline = 0;
	}
	pthread_mutex_unlock(&o->lock);
	if (!first)
		return;
	if (o->verbose)
		fprintf(stderr, "libthverbs: ofi rank %u: rank %u taken for dead: %s\n",
			o->rank, peer, why);
	for (i = 0; i < o->nholds; i++) {
		pthread_mutex_lock(&o->lock);
		id = o->holds[i].busy && o->holds[i].peer == peer ?
		     th_ofi_id(o->holds[i].gen, i) : 0;
		pthread_mutex_unlock(&o->lock);
		if (id)
			th_ofi_hold_drop(o, i);
	}
	th_ofi_watch_fire(o, peer);
}

/*
 * The progress thread's pass over the slots: operations marked ended
 * (deadline 0, with their status) end now; those past their deadline end
 * with -ECONNREFUSED, and their peer is taken for dead (a link that
 * silently went down completes nothing).
 */
void th_ofi_expire(struct th_ofi *o)
{
	u64 now = th_ofi_now_ns(), id;
	int status = 0;
	u32 i, peer = 0;
	bool silent;

	for (i = 0; i < o->nops; i++) {
		pthread_mutex_lock(&o->lock);
		id = 0;
		silent = false;
		if (o->ops[i].state != TH_OFI_OP_FREE &&
		    o->ops[i].deadline <= now) {
			id = th_ofi_id(o->ops[i].gen, i);
			silent = o->ops[i].deadline;
			status = silent ? -ECONNREFUSED : o->ops[i].status;
			peer = o->ops[i].peer;
		}
		pthread_mutex_unlock(&o->lock);
		if (silent && peer < o->size)
			th_ofi_peer_dead(o, peer, "no answer within TH_OFI_TIMEOUT");
		if (id)
			th_ofi_op_end(o, id, status, 0, 0, NULL, 0);
	}
}
