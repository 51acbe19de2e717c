// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * trigger.c - chains that wait in libfabric: where the provider offers
 * triggered operations (FI_TRIGGER), a pending chain whose first
 * descriptor is a WRITE_INLINE to another rank is handed to libfabric as
 * a triggered send, which libfabric itself sends the moment a counter
 * reaches a threshold (fi_trigger(3)): this process only keeps that
 * counter equal to the engine's, and posts nothing when it gets there;
 * so is one that begins with a PUT of up to TH_OFI_EAGER bytes, whose
 * bytes libfabric reads from the region when it sends them.
 *
 * The engine keeps the chain's counter (ops->offload_counter shows every
 * change); each armed send waits on a libfabric counter of its own that
 * mirrors it, so that a send whose chain will not run (cancelled, failed,
 * its vport going) can be made harmless: libfabric 1.17 cancels no
 * triggered work, so the message is rewritten into a PING, which the
 * target ignores, and released; a PUT's region stays held until it has
 * gone.  The message is the wire's eager PUT (wire.c), its header built
 * when the chain is armed.  A WRITE_INLINE's bytes are copied behind the
 * header then: they are the descriptor's own, fixed at posting, so
 * sending them later changes nothing.  A PUT's are a second piece of the
 * message, the region itself, which the engine holds from the arming on.
 * The target answers as for any delivery, and the answer resumes the
 * chain (th_eng_remote_done()) from the progress thread.
 *
 * What stays in software is in Documentation/ofi.rst, "Triggered
 * operations".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fabric_dl.h"	/* before any <rdma/...> */
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>

#include "ofi.h"

/*
 * The value an armed send's counter must reach.  libfabric counters are
 * 64 bits, but the sockets provider compares them as 32-bit signed
 * integers: the mirror keeps to [0, TH_OFI_TRIG_AT].
 */
#define TH_OFI_TRIG_AT		(1ULL << 30)

/* What the mirror of a counter at @success shows a chain waiting for @threshold. */
static u64 th_ofi_trig_mirror(u64 success, u64 threshold)
{
	if (success >= threshold)
		return TH_OFI_TRIG_AT;
	if (threshold - success >= TH_OFI_TRIG_AT)
		return 0;
	return TH_OFI_TRIG_AT - (threshold - success);
}

/* A free slot with its counter open, under @trig_lock; -1 if none. */
static int th_ofi_trig_slot_locked(struct th_ofi *o)
{
	struct fi_cntr_attr attr = {
		.events = FI_CNTR_EVENTS_COMP,
		.wait_obj = FI_WAIT_NONE,
	};
	u32 i;

	for (i = 0; i < TH_OFI_MAX_TRIGGERED; i++) {
		if (o->trig[i].state != TH_OFI_TRIG_FREE)
			continue;
		if (!o->trig[i].cntr &&
		    fi_cntr_open(o->rail[0].domain, &attr, &o->trig[i].cntr, NULL))
			return -1;
		return i;
	}
	return -1;
}

/* Free operation slot @id, taken for a send that never went. */
static void th_ofi_trig_op_free(struct th_ofi *o, u64 id)
{
	int slot;

	pthread_mutex_lock(&o->lock);
	slot = th_ofi_op_find_locked(o, id, TH_OFI_OP_ARMED);
	if (slot >= 0) {
		o->ops[slot].state = TH_OFI_OP_FREE;
		o->ops[slot].gen++;
	}
	pthread_mutex_unlock(&o->lock);
}

/*
 * ops->offload_arm: hand @chain's first delivery to libfabric, to be sent
 * when counter @ct of @ev reaches @threshold.  False leaves the chain to
 * the engine, as without FI_TRIGGER: no slot free, the peer taken for
 * dead, or libfabric refusing.
 */
bool th_ofi_offload_arm(void *arg, struct th_eng_chain *chain,
			struct th_eng_vport *ev, u32 ct, u64 threshold,
			u64 success, const struct th_eng_remote_op *op)
{
	struct th_ofi *o = arg;
	struct th_eng_remote_op rop = *op;
	struct th_ofi_trig *t;
	struct th_ofi_xfer *x;
	struct th_ofi_hdr h;
	struct iovec iov[2];
	struct fi_msg msg;
	int slot, n;
	bool put;
	u64 id = 0;

	if (!o->trigger)
		return false;
	put = rop.opcode == TH_NIC_OP_PUT;
	/*
	 * larger PUTs go by RMA after a RESOLVE: the engine's, for now; so
	 * do sends to a peer on the second rail, whose domain has no
	 * counters of ours (triggered sends are the first rail's alone)
	 */
	if (rop.node >= o->size || rop.node == o->rank ||
	    rop.len > TH_OFI_EAGER || o->rail_of[rop.node] ||
	    (put && o->rail[0].info->tx_attr->iov_limit < 2))
		return false;
	x = calloc(1, sizeof(*x) + sizeof(h) + (put ? 0 : rop.len));
	if (!x)
		return false;

	pthread_mutex_lock(&o->trig_lock);
	slot = th_ofi_trig_slot_locked(o);
	if (slot < 0) {
		o->trig_software++;
		goto refuse;
	}
	t = &o->trig[slot];
	pthread_mutex_lock(&o->lock);
	n = o->dead[rop.node] ? -1 : th_ofi_op_alloc_locked(o);
	if (n >= 0) {
		o->ops[n].chain = chain;
		o->ops[n].rop = rop;
		o->ops[n].state = TH_OFI_OP_ARMED;
		o->ops[n].peer = rop.node;
		o->ops[n].deadline = ~0ULL;	/* the answer waits for the fire */
		o->ops[n].status = 0;
		o->ops[n].answered = false;
		id = th_ofi_id(o->ops[n].gen, n);
	}
	pthread_mutex_unlock(&o->lock);
	if (n < 0)
		goto refuse;

	/* the wire's eager PUT: inline bytes behind the header, or the region */
	th_ofi_hdr_init(o, &h, TH_OFI_MSG_PUT, &rop, id);
	x->kind = TH_OFI_CTX_TX;
	x->peer = rop.node;
	x->op = id;
	x->trig = slot + 1;
	x->len = sizeof(h) + (put ? 0 : rop.len);
	memcpy(x->buf, &h, sizeof(h));
	th_ofi_seal(o, (struct th_ofi_hdr *)x->buf, rop.node);
	if (!put)
		memcpy(x->buf + sizeof(h), rop.local, rop.len);
	x->tctx.event_type = FI_TRIGGER_THRESHOLD;
	x->tctx.trigger.threshold.cntr = t->cntr;
	x->tctx.trigger.threshold.threshold = TH_OFI_TRIG_AT;

	iov[0].iov_base = x->buf;
	iov[0].iov_len = x->len;
	iov[1].iov_base = rop.local;
	iov[1].iov_len = rop.len;
	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = iov;
	msg.iov_count = put && rop.len ? 2 : 1;
	msg.addr = o->peers[rop.node];
	msg.context = &x->tctx;
	/* below the threshold: the engine fires chains that reached it */
	if (fi_cntr_set(t->cntr, th_ofi_trig_mirror(success, threshold)) ||
	    fi_sendmsg(o->rail[0].ep, &msg, FI_TRIGGER | FI_COMPLETION)) {
		th_ofi_trig_op_free(o, id);
		goto refuse;
	}
	t->state = TH_OFI_TRIG_ARMED;
	t->completed = false;
	t->hold.mr = NULL;
	t->x = x;
	t->chain = chain;
	t->ev = ev;
	t->ct = ct;
	t->threshold = threshold;
	t->op = id;
	o->trig_armed++;
	pthread_mutex_unlock(&o->trig_lock);
	return true;

refuse:
	pthread_mutex_unlock(&o->trig_lock);
	free(x);
	return false;
}

/* ops->offload_counter: every armed send waiting on (@ev, @ct) sees it. */
void th_ofi_offload_counter(void *arg, struct th_eng_vport *ev, u32 ct,
			    u64 success, u64 failure)
{
	struct th_ofi *o = arg;
	struct th_ofi_trig *t;
	u32 i;

	/* a failure value fails the chains: they are disarmed, not sent */
	if (failure)
		return;
	pthread_mutex_lock(&o->trig_lock);
	for (i = 0; i < TH_OFI_MAX_TRIGGERED; i++) {
		t = &o->trig[i];
		if (t->state == TH_OFI_TRIG_ARMED && t->ev == ev && t->ct == ct)
			fi_cntr_set(t->cntr,
				    th_ofi_trig_mirror(success, t->threshold));
	}
	pthread_mutex_unlock(&o->trig_lock);
}

/*
 * ops->offload_disarm: @chain left its pending list.  Fired (@status 0):
 * libfabric sent its delivery, whose answer now ends the chain like any
 * other (deadline, dead peer).  Otherwise the message becomes a PING and
 * goes, so that libfabric lets go of it and the slot can be used again.
 */
void th_ofi_offload_disarm(void *arg, struct th_eng_chain *chain, int status,
			   struct th_eng_mr_ref *hold)
{
	struct th_ofi *o = arg;
	struct th_ofi_trig *t = NULL;
	bool signal = false;
	int op;
	u32 i;

	pthread_mutex_lock(&o->trig_lock);
	for (i = 0; i < TH_OFI_MAX_TRIGGERED && !t; i++)
		if (o->trig[i].state == TH_OFI_TRIG_ARMED &&
		    o->trig[i].chain == chain)
			t = &o->trig[i];
	if (!t) {
		/* th_ofi_offload_arm() said yes: it is there */
		pthread_mutex_unlock(&o->trig_lock);
		return;
	}
	pthread_mutex_lock(&o->lock);
	op = th_ofi_op_find_locked(o, t->op, TH_OFI_OP_ARMED);
	if (op >= 0 && !status) {
		o->ops[op].state = TH_OFI_OP_SENT;
		o->ops[op].deadline = th_ofi_now_ns() + o->timeout_ns;
		if (o->ops[op].answered) {
			o->ops[op].deadline = 0;	/* ends on the next pass */
			signal = true;
		}
	} else if (op >= 0) {
		o->ops[op].state = TH_OFI_OP_FREE;
		o->ops[op].gen++;
	}
	if (!t->completed)
		o->tx_inflight++;	/* th_ofi_trig_done() takes it back */
	pthread_mutex_unlock(&o->lock);
	if (status) {
		/* a PUT's region: libfabric reads it until the PING is gone */
		t->hold = *hold;
		((struct th_ofi_hdr *)t->x->buf)->type = TH_OFI_MSG_PING;
		th_ofi_seal(o, (struct th_ofi_hdr *)t->x->buf, t->x->peer);
		t->x->op = 0;
		o->trig_dropped++;
	} else {
		o->trig_sent++;
	}
	t->chain = NULL;
	t->ev = NULL;
	if (t->completed) {
		/* sent and completed already, between the counter and now */
		t->state = TH_OFI_TRIG_FREE;
		t->completed = false;
		t->x = NULL;
		fi_cntr_set(t->cntr, 0);
	} else {
		t->state = TH_OFI_TRIG_GONE;
		/* fired: already past it; dropped: the PING goes now */
		fi_cntr_set(t->cntr, TH_OFI_TRIG_AT);
	}
	pthread_mutex_unlock(&o->trig_lock);
	if (signal)
		th_ofi_wake(o);
}

/*
 * Slot @slot's message completed (th_ofi_xfer_done() frees it): the slot
 * is free again, or, if the engine has not yet said that the chain fired
 * (the progress thread can be that quick), once it has.
 */
void th_ofi_trig_done(struct th_ofi *o, u32 slot)
{
	struct th_ofi_trig *t = &o->trig[slot];
	struct th_eng_mr_ref hold = { 0 };

	pthread_mutex_lock(&o->trig_lock);
	if (t->state == TH_OFI_TRIG_GONE) {
		t->state = TH_OFI_TRIG_FREE;
		t->x = NULL;
		hold = t->hold;
		t->hold.mr = NULL;
		fi_cntr_set(t->cntr, 0);
		pthread_mutex_lock(&o->lock);
		o->tx_inflight--;
		pthread_mutex_unlock(&o->lock);
	} else if (t->state == TH_OFI_TRIG_ARMED) {
		t->completed = true;
		t->x = NULL;
	}
	pthread_mutex_unlock(&o->trig_lock);
	/* the engine's vport lock comes before @trig_lock: not under it */
	th_eng_remote_release(&hold);
}

/*
 * The progress thread's pass: a send whose counter got there while
 * libfabric had no room (sockets keeps it and looks again only when the
 * counter changes) is offered again.
 */
void th_ofi_trig_kick(struct th_ofi *o)
{
	u32 i;

	if (!o->trigger)
		return;
	pthread_mutex_lock(&o->trig_lock);
	for (i = 0; i < TH_OFI_MAX_TRIGGERED; i++)
		if (o->trig[i].state == TH_OFI_TRIG_GONE)
			fi_cntr_set(o->trig[i].cntr, TH_OFI_TRIG_AT);
	pthread_mutex_unlock(&o->trig_lock);
}

/*
 * After the endpoint closed: the counters, and the messages of sends
 * that were still waiting (libfabric no longer holds them).  A sent one
 * was freed by its completion, or is left to the process's exit.
 */
void th_ofi_trig_close(struct th_ofi *o)
{
	u32 i;

	for (i = 0; i < TH_OFI_MAX_TRIGGERED; i++) {
		if (o->trig[i].state == TH_OFI_TRIG_ARMED)
			free(o->trig[i].x);
		if (o->trig[i].cntr)
			fi_close(&o->trig[i].cntr->fid);
		o->trig[i].cntr = NULL;
		o->trig[i].state = TH_OFI_TRIG_FREE;
	}
}

/* TH_OFI_VERBOSE=1, at exit: what waited in libfabric. */
void th_ofi_trig_report(struct th_ofi *o)
{
	if (!o->verbose)
		return;
	pthread_mutex_lock(&o->trig_lock);
	if (o->trigger)
		fprintf(stderr, "libthverbs: ofi rank %u: triggered sends: %llu armed, %llu sent by libfabric, %llu dropped, %llu left to software\n",
			o->rank, (unsigned long long)o->trig_armed,
			(unsigned long long)o->trig_sent,
			(unsigned long long)o->trig_dropped,
			(unsigned long long)o->trig_software);
	else
		fprintf(stderr, "libthverbs: ofi rank %u: triggered sends: off (%s)\n",
			o->rank, o->prov);
	pthread_mutex_unlock(&o->trig_lock);
}
