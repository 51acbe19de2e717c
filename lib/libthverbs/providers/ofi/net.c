// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * net.c - the ofi provider's libfabric objects: one reliable-datagram
 * endpoint per rail (one, or two when the job mixes ranks on this host
 * and elsewhere: shm to those here, tcp;ofi_rxm to the others), each with
 * its completion queue and address vector, sending on the peer's rail
 * with a backlog for when libfabric has no room, and the progress thread,
 * which reads the completion queues (the tcp;ofi_rxm data path makes
 * progress only when asked), runs the backlog and ends deliveries past
 * their deadline.  On shm, and whenever there are two rails, the queues
 * are polled instead of slept in (th_ofi_cq_idle()).
 *
 * A thread that spins in th_ct_wait() reads the completion queue too
 * (th_ofi_net_progress(), the provider's progress op): the message that
 * raises its counter is then handled on the thread that waits for it, and
 * no sleeping progress thread has to be woken (25-50 us on a VM) on the
 * critical path.  One reader at a time (@cq_lock): entries are handled in
 * the order libfabric gives them, as with the thread alone.  While a
 * waiter drives the queue, the progress thread stays out of
 * fi_cq_sread(), whose wake-up for every message would take a CPU from
 * the spinner, and looks only every TH_OFI_DRIVEN_US; a waiter that goes
 * to sleep (th_ofi_net_waiter_sleeps()) hands the queue back at once.
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include "fabric_dl.h"	/* before any <rdma/...> */
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <thverbs/verbs.h>

#include "thverbs_priv.h"	/* th_wait_may_watch() */
#include "ofi.h"

/* how long the progress thread sleeps in the completion queue, at most */
#define TH_OFI_POLL_MS		100
/* a polled queue (shm): the first and the longest sleep when idle */
#define TH_OFI_NAP_MIN_NS	20000ULL
#define TH_OFI_NAP_MAX_NS	1000000ULL
/*
 * A waiter drove the completion queue since the progress thread's last
 * look: the thread leaves it to the waiter and naps this long.  It bounds
 * the delay of a message that arrives just after a waiter saw its
 * counter and left (one that goes to sleep instead hands the queue back
 * at once); shorter, the thread's looks would take the spinner's CPU
 * more often (on 2 CPUs, 50 us cost the spinning hop about 2x).
 */
#define TH_OFI_DRIVEN_US	200
/* the longest a busy progress thread looks without sleeping (th_ofi_cq_busy()) */
#define TH_OFI_BUSY_MAX_US	1000
/*
 * A busy progress thread yields its CPU once in this long, and pauses
 * between its other empty looks (th_ofi_busy_look_again()).
 */
#define TH_OFI_YIELD_NS		5000ULL

u64 th_ofi_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* libfabric returns negative FI_E* values, which are errno values. */
static int th_ofi_err(ssize_t ret)
{
	return ret < 0 ? (int)ret : -EIO;
}

/*
 * What fi_getinfo() offers of provider @prov with the library's needs,
 * plus triggered operations if @trigger.
 */
static int th_ofi_getinfo(struct th_ofi_rail *r, const char *prov,
			  bool trigger)
{
	struct fi_info *hints = fi_allocinfo();
	int ret;

	if (!hints)
		return -ENOMEM;
	hints->ep_attr->type = FI_EP_RDM;
	hints->caps = FI_MSG | FI_RMA | FI_READ | FI_WRITE | FI_REMOTE_READ |
		      FI_REMOTE_WRITE;
	if (trigger)
		hints->caps |= FI_TRIGGER;
	hints->mode = FI_CONTEXT | FI_CONTEXT2;
	/* FI_MR_LOCAL: RMA names its local MR (verbs needs it) */
	hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR |
				      FI_MR_ALLOCATED | FI_MR_PROV_KEY;
	hints->domain_attr->threading = FI_THREAD_SAFE;
	hints->fabric_attr->prov_name = strdup(prov);
	ret = fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &r->info);
	fi_freeinfo(hints);
	if (ret)
		return ret == -FI_ENODATA ? -ENODEV : th_ofi_err(ret);
	return 0;
}

/*
 * The descriptor @r's completion queue signals on, if its wait object is
 * one (tcp;ofi_rxm's is), for the idle naps of a job on two rails
 * (th_ofi_cq_idle()); else -1.  Not for shm's, which is polled.
 */
static int th_ofi_rail_wait_fd(struct th_ofi_rail *r)
{
	enum fi_wait_obj obj = FI_WAIT_NONE;
	int fd = -1;

	if (r->cq_poll || fi_control(&r->cq->fid, FI_GETWAITOBJ, &obj) ||
	    obj != FI_WAIT_FD || fi_control(&r->cq->fid, FI_GETWAIT, &fd))
		return -1;
	return fd;
}

/* Close what @r has open; it can be opened again. */
static void th_ofi_rail_close(struct th_ofi_rail *r)
{
	u32 i;

	if (r->ep)
		fi_close(&r->ep->fid);
	if (r->av)
		fi_close(&r->av->fid);
	if (r->cq)
		fi_close(&r->cq->fid);
	if (r->domain)
		fi_close(&r->domain->fid);
	if (r->fabric)
		fi_close(&r->fabric->fid);
	if (r->info)
		fi_freeinfo(r->info);
	for (i = 0; i < TH_OFI_RX_BUFS; i++)
		free(r->rx[i]);
	memset(r, 0, sizeof(*r));
}

/*
 * Open the next rail: the fabric, domain and endpoint of provider @prov
 * ("tcp;ofi_rxm" and the like).  What the library needs: messages and
 * RMA with remote CQ data on reliable datagrams, thread safety; the
 * memory registration modes it handles (virtual addresses, allocated
 * memory, its own keys).  Triggered operations (@trigger, trigger.c) are
 * asked for first unless off, and are then used if offered, on the first
 * rail only; when required they must be.  A rail that fails is closed.
 */
int th_ofi_net_open(struct th_ofi *o, const char *prov,
		    enum th_ofi_trigger_mode trigger)
{
	struct fi_cq_attr cqa = {
		.format = FI_CQ_FORMAT_DATA,
		.wait_obj = FI_WAIT_UNSPEC,
		.size = 4096,
	};
	struct fi_av_attr ava = { .type = FI_AV_TABLE };
	struct th_ofi_rail *r = &o->rail[o->nrails];
	bool trig = false;
	int ret = -ENODEV;

	if (o->nrails == TH_OFI_RAILS)
		return -EINVAL;
	/*
	 * libfabric 1.17's shm offers only the "yield" wait object, whose
	 * fi_cq_sread() ignores its timeout: the progress thread would sit
	 * in it until a completion came, and a send that found no room (the
	 * first to a peer, while shm connects) would never be retried.  So
	 * the thread polls shm's queue (th_ofi_thread_read()); it keeps its wait
	 * object, for fi_cq_signal(), which a queue without one crashes in.
	 */
	r->cq_poll = !strcmp(prov, "shm");

	if (trigger != TH_OFI_TRIGGER_OFF)
		ret = th_ofi_getinfo(r, prov, true);
	if (ret == -ENODEV && trigger == TH_OFI_TRIGGER_ON)
		fprintf(stderr, "libthverbs: ofi rank %u: TH_OFI_TRIGGER=1, but libfabric's %s offers no FI_TRIGGER\n",
			o->rank, prov);
	if (ret == -ENODEV && trigger != TH_OFI_TRIGGER_ON)
		ret = th_ofi_getinfo(r, prov, false);
	if (ret)
		goto fail;
	trig = trigger != TH_OFI_TRIGGER_OFF && (r->info->caps & FI_TRIGGER);
	/* a write's remote CQ data names the target's hold: 4 bytes */
	ret = -ENODEV;
	if (r->info->domain_attr->cq_data_size < sizeof(u32))
		goto fail;
	snprintf(r->prov, sizeof(r->prov), "%s",
		 r->info->fabric_attr->prov_name);
	/*
	 * Only on shm: its send has the bytes in the peer's queue when it
	 * returns, and a peer that dies is found by its pid (pidfds), so a
	 * send needs no completion.  Elsewhere (tcp;ofi_rxm) a send's failure
	 * is learnt from its completion, the PING's above all.
	 */
	if (r->cq_poll && r->info->tx_attr->inject_size >= sizeof(struct th_ofi_hdr))
		r->inject_max = r->info->tx_attr->inject_size;
	r->virt_addr = r->info->domain_attr->mr_mode & FI_MR_VIRT_ADDR;
	r->mr_local = r->info->domain_attr->mr_mode & FI_MR_LOCAL;
	/* a triggered send's header is in memory no MR covers */
	if (trig && r->mr_local) {
		trig = false;
		if (trigger == TH_OFI_TRIGGER_ON) {
			fprintf(stderr, "libthverbs: ofi rank %u: TH_OFI_TRIGGER=1, but libfabric's %s needs registered local buffers (FI_MR_LOCAL)\n",
				o->rank, prov);
			goto fail;
		}
	}
	ret = fi_fabric(r->info->fabric_attr, &r->fabric, NULL);
	if (!ret)
		ret = fi_domain(r->fabric, r->info, &r->domain, NULL);
	if (!ret)
		ret = fi_endpoint(r->domain, r->info, &r->ep, NULL);
	if (!ret)
		ret = fi_cq_open(r->domain, &cqa, &r->cq, NULL);
	if (!ret)
		ret = fi_av_open(r->domain, &ava, &r->av, NULL);
	if (!ret)
		ret = fi_ep_bind(r->ep, &r->cq->fid, FI_TRANSMIT | FI_RECV);
	if (!ret)
		ret = fi_ep_bind(r->ep, &r->av->fid, 0);
	if (!ret)
		ret = fi_enable(r->ep);
	if (ret) {
		ret = th_ofi_err(ret);
		goto fail;
	}
	if (!o->nrails) {
		o->trigger = trig;
		snprintf(o->prov, sizeof(o->prov), "%s", r->prov);
	}
	o->nrails++;
	/*
	 * The thread sleeps in a queue only when there is one, and it can
	 * sleep in it: with two, a message on the other would wait for the
	 * sleep to end (up to TH_OFI_POLL_MS), so both are polled, and the
	 * idle naps are spent on the first's descriptor (th_ofi_cq_idle()).
	 */
	o->cq_poll = o->nrails > 1 || r->cq_poll;
	o->rail[0].wait_fd = o->nrails > 1 ?
			     th_ofi_rail_wait_fd(&o->rail[0]) : -1;
	return 0;

fail:
	th_ofi_rail_close(r);
	return ret;
}

int th_ofi_net_name(struct th_ofi *o, u32 rail, void *name, size_t *len)
{
	int ret = fi_getname(&o->rail[rail].ep->fid, name, len);

	return ret ? th_ofi_err(ret) : 0;
}

/*
 * Each rank's name on its rail (@rail_of), in rank order: on one rail,
 * fi_addr = rank.
 */
int th_ofi_net_peers(struct th_ofi *o, const void *const *names)
{
	u32 i;
	int n;

	o->peers = calloc(o->size, sizeof(*o->peers));
	o->dead = calloc(o->size, sizeof(*o->dead));
	o->blocked = calloc(o->size, sizeof(*o->blocked));
	o->ring_due = calloc(o->size, sizeof(*o->ring_due));
	o->violator = calloc(o->size, sizeof(*o->violator));
	if (!o->peers || !o->dead || !o->blocked || !o->ring_due ||
	    !o->violator)
		return -ENOMEM;
	for (i = 0; i < o->size; i++) {
		n = fi_av_insert(o->rail[o->rail_of[i]].av, names[i], 1,
				 &o->peers[i], 0, NULL);
		if (n != 1)
			return n < 0 ? th_ofi_err(n) : -EINVAL;
	}
	return 0;
}

/*
 * On shm, watch each peer's process (@pids, from the boot's round; 0 for
 * a peer not on shm; the ranks on shm share the PID namespace): a PING to a process that ended lands
 * in its shared memory and completes as if read, so only the process
 * itself can say it is gone.  Opened while every peer is still in the
 * boot's rounds, so no pid has been reused.  Where a pidfd cannot be had
 * (a kernel before 5.3), that peer's death is found by the deadlines
 * alone, as on sockets; the job still runs, and says so when verbose.
 */
int th_ofi_net_watch_pids(struct th_ofi *o, const u64 *pids)
{
	u32 i;

	o->pidfds = malloc(o->size * sizeof(*o->pidfds));
	if (!o->pidfds)
		return -ENOMEM;
	for (i = 0; i < o->size; i++) {
		o->pidfds[i] = i == o->rank || !pids[i] ? -1 :
			       (int)syscall(SYS_pidfd_open, (pid_t)pids[i], 0);
		if (i != o->rank && pids[i] && o->pidfds[i] < 0 && o->verbose)
			fprintf(stderr, "libthverbs: ofi rank %u: cannot watch rank %u's process (%s): its death is found by deadlines only\n",
				o->rank, i, strerror(errno));
	}
	return 0;
}

/* Has @peer's process ended?  Only known for peers on shm (@pidfds). */
bool th_ofi_net_peer_gone(struct th_ofi *o, u32 peer)
{
	struct pollfd p;

	if (!o->pidfds || o->pidfds[peer] < 0)
		return false;
	p.fd = o->pidfds[peer];
	p.events = POLLIN;
	return poll(&p, 1, 0) == 1;
}

/* Register [@addr, @addr + @len) on @r (@access: FI_*). */
static int th_ofi_rail_mr_reg(struct th_ofi *o, struct th_ofi_rail *r,
			      void *addr, u64 len, u64 acc, struct fid_mr **mr)
{
	size_t bytes = r->info->domain_attr->mr_key_size;
	int ret, tries = 0;
	u64 key;

	/*
	 * A key of our choosing unless the provider picks (FI_MR_PROV_KEY):
	 * unguessable, since a peer's RMA at a valid key needs no message
	 * (auth.c).  Two draws colliding is a 2^-64 chance: draw again.
	 */
	do {
		key = th_ofi_unguessable(o, TH_OFI_PRF_MR_KEY,
					 __atomic_add_fetch(&o->next_key, 1,
							    __ATOMIC_RELAXED));
		if (bytes && bytes < sizeof(key))
			key &= (1ULL << (8 * bytes)) - 1;
		ret = fi_mr_reg(r->domain, addr, len, acc, 0, key, 0, mr, NULL);
	} while (ret == -FI_ENOKEY && ++tries < 4);
	return ret ? th_ofi_err(ret) : 0;
}

/*
 * Register [@addr, @addr + @len) for peers' RMA (@access:
 * TH_NIC_ACCESS_*) on every rail, each with its own key: a peer's RMA
 * comes over its rail.
 */
int th_ofi_net_mr_reg(struct th_ofi *o, void *addr, u64 len, u32 access,
		      struct th_ofi_mr **mr)
{
	u64 acc = FI_READ | FI_WRITE;
	struct th_ofi_mr *m;
	u32 i;
	int ret = 0;

	if (access & TH_NIC_ACCESS_REMOTE_READ)
		acc |= FI_REMOTE_READ;
	if (access & TH_NIC_ACCESS_REMOTE_WRITE)
		acc |= FI_REMOTE_WRITE;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	for (i = 0; i < o->nrails && !ret; i++)
		ret = th_ofi_rail_mr_reg(o, &o->rail[i], addr, len, acc,
					 &m->fmr[i]);
	if (ret) {
		th_ofi_net_mr_free(m);
		return ret;
	}
	*mr = m;
	return 0;
}

void th_ofi_net_mr_free(struct th_ofi_mr *mr)
{
	u32 i;

	for (i = 0; i < TH_OFI_RAILS; i++)
		if (mr->fmr[i])
			fi_close(&mr->fmr[i]->fid);
	free(mr);
}

/*
 * Post @x; -FI_EAGAIN when libfabric has no room now.  On shm the message
 * is in the peer's queue when this returns: the caller rings the peer's
 * doorbell (bell.c), after it has let go of @lock: a ring that wakes a
 * sleeper is a system call.
 */
static ssize_t th_ofi_post(struct th_ofi *o, struct th_ofi_xfer *x)
{
	struct fid_ep *ep = o->rail[x->rail].ep;
	fi_addr_t to = o->peers[x->peer];
	ssize_t ret;

	if (x->kind == TH_OFI_CTX_TX)
		ret = fi_send(ep, x->buf, x->len, NULL, to, &x->fctx);
	else if (x->write)
		ret = fi_writedata(ep, x->local, x->len, x->desc, x->data,
				   to, x->raddr, x->fikey, &x->fctx);
	else
		ret = fi_read(ep, x->local, x->len, x->desc, to, x->raddr,
			      x->fikey, &x->fctx);
	return ret;
}

/* A boot HELLO, whose failure is retried rather than fatal. */
static bool th_ofi_is_hello(const struct th_ofi_xfer *x)
{
	return x->kind == TH_OFI_CTX_TX &&
	       ((const struct th_ofi_hdr *)x->buf)->type == TH_OFI_MSG_HELLO;
}

/* Does @peer have transfers waiting?  They go first. */
static bool th_ofi_peer_queued_locked(struct th_ofi *o, u32 peer)
{
	struct th_list *pos;

	for (pos = o->backlog.next; pos != &o->backlog; pos = pos->next)
		if (th_container_of(pos, struct th_ofi_xfer, link)->peer == peer)
			return true;
	return false;
}

/*
 * Post @x now, or behind the backlog when libfabric has no room (or older
 * transfers wait): never sleeps.  Its completion comes to
 * th_ofi_xfer_done(); on an error here @x is freed.
 */
static int th_ofi_submit(struct th_ofi *o, struct th_ofi_xfer *x)
{
	ssize_t ret = -FI_EAGAIN;
	u32 peer = x->peer;
	bool posted;

	x->rail = o->rail_of[peer];
	pthread_mutex_lock(&o->lock);
	if (o->dead[peer])
		ret = -FI_ECONNREFUSED;
	else if (!th_ofi_peer_queued_locked(o, peer))
		ret = th_ofi_post(o, x);
	posted = !ret;
	if (ret == -FI_EAGAIN) {
		/* the clock only here: a send that goes at once needs none */
		x->queued = th_ofi_now_ns();
		th_list_add_tail(&o->backlog, &x->link);
		__atomic_store_n(&o->backlog_waits, true, __ATOMIC_RELAXED);
		ret = 0;
	}
	if (!ret) {
		o->tx_inflight++;
		o->sends++;
	}
	pthread_mutex_unlock(&o->lock);
	/* @x may be completed and freed by now: @peer was kept */
	if (posted)
		th_ofi_bell_ring(o, peer);
	if (ret) {
		free(x);
		return th_ofi_err(ret);
	}
	return 0;
}

/*
 * Send the message @msg of @len bytes (addressed, not sealed) to @peer
 * through its shm ring (ring.c) if there is one with room, else by
 * fi_inject(), sealed, if its rail takes it so (@inject_max); either only
 * when nothing waits for @peer on the backlog: 0 when it went, -FI_EAGAIN
 * when it must take the queued path (th_ofi_submit()), or the error that
 * makes the peer unreachable.  What an injected message saves is the
 * transmit completion: one entry less to read (of the two a hop cost
 * each rank), a transfer less to allocate and free (ofi.rst, "A small
 * message on shm needs no completion").  A ring's message needs no seal
 * (auth.c): the seal is made only for libfabric, and under @lock only
 * when a ring was full.
 */
static ssize_t th_ofi_inject(struct th_ofi *o, u32 peer, void *msg,
			     size_t len)
{
	struct th_ofi_rail *r = &o->rail[o->rail_of[peer]];
	bool ring = o->ring_to && o->ring_to[peer];
	ssize_t ret = -FI_EAGAIN;

	if (!ring && len > r->inject_max)
		return ret;
	if (!ring)
		th_ofi_seal(o, msg, peer);
	pthread_mutex_lock(&o->lock);
	if (o->dead[peer]) {
		ret = -FI_ECONNREFUSED;
	} else if (!th_ofi_peer_queued_locked(o, peer)) {
		/* the peer's shm ring first (ring.c), else libfabric */
		if (ring)
			ret = th_ofi_ring_push_locked(o, peer, msg, len);
		if (ret == -FI_EAGAIN && len <= r->inject_max) {
			if (ring)
				th_ofi_seal(o, msg, peer);
			ret = fi_inject(r->ep, msg, len, o->peers[peer]);
		}
	}
	if (!ret) {
		o->sends++;
		o->injected++;
	}
	pthread_mutex_unlock(&o->lock);
	if (!ret)
		th_ofi_bell_ring(o, peer);
	return ret;
}

/*
 * Send @h (with @len bytes of @payload) to @peer, for operation @op (0:
 * none).  Built on the stack when it may be injected, copied into a
 * transfer when it is not, or when libfabric has no room for it now;
 * what goes by libfabric is sealed (auth.c).
 */
int th_ofi_send(struct th_ofi *o, u32 peer, const struct th_ofi_hdr *h,
		const void *payload, size_t len, u64 op)
{
	/* a union: the header is written through its own type, aligned */
	union {
		struct th_ofi_hdr h;
		u8 b[sizeof(struct th_ofi_hdr) + TH_OFI_INJECT_MAX];
	} msg;
	size_t total = sizeof(*h) + len;
	struct th_ofi_hdr *mh = &msg.h;
	struct th_ofi_xfer *x;
	ssize_t ret;

	/* a HELLO is counted by its completion (th_ofi_net_connect()) */
	if (total > sizeof(msg) || h->type == TH_OFI_MSG_HELLO)
		mh = NULL;
	x = mh ? NULL : calloc(1, sizeof(*x) + total);
	if (!mh && !x)
		return -ENOMEM;
	if (!mh)
		mh = (struct th_ofi_hdr *)x->buf;
	memcpy(mh, h, sizeof(*h));
	/* a DONE this thread owes @peer rides along (wire.c) */
	if (th_ofi_ack_take(peer, &mh->ack_id))
		mh->flags |= TH_OFI_F_ACK;
	th_ofi_address(o, mh, peer);
	if (len)
		memcpy((u8 *)mh + sizeof(*h), payload, len);
	if (!x) {
		ret = th_ofi_inject(o, peer, msg.b, total);
		if (ret != -FI_EAGAIN)
			return ret ? th_ofi_err(ret) : 0;
		x = calloc(1, sizeof(*x) + total);
		if (!x)
			return -ENOMEM;
		memcpy(x->buf, msg.b, total);
	}
	th_ofi_seal(o, (struct th_ofi_hdr *)x->buf, peer);
	x->kind = TH_OFI_CTX_TX;
	x->peer = peer;
	x->op = op;
	x->len = total;
	return th_ofi_submit(o, x);
}

/*
 * An RMA write (with @data as remote CQ data) or read of @len bytes at
 * @local (in the MR whose registrations are @local_mr), to
 * (@raddr, @fikey) at @peer, for operation @op.
 */
int th_ofi_rma(struct th_ofi *o, u32 peer, bool write, void *local,
	       void *local_mr, u64 len, u64 raddr, u64 fikey, u64 data, u64 op)
{
	struct th_ofi_xfer *x = calloc(1, sizeof(*x));
	struct th_ofi_rail *rail;

	if (!x)
		return -ENOMEM;
	x->kind = TH_OFI_CTX_RMA;
	x->peer = peer;
	x->op = op;
	x->len = len;
	x->write = write;
	x->local = local;
	rail = &o->rail[o->rail_of[peer]];
	x->desc = local_mr && rail->mr_local ?
		  fi_mr_desc(((struct th_ofi_mr *)local_mr)->fmr[o->rail_of[peer]]) :
		  NULL;
	x->raddr = raddr;
	x->fikey = fikey;
	x->data = data;
	return th_ofi_submit(o, x);
}

/*
 * Post the backlog, each peer's transfers in order: a peer libfabric has
 * no room for (tcp;ofi_rxm: no connection yet) waits without holding up
 * the others.  A transfer that waited past the deadline means its peer
 * cannot be reached (a process that ended refuses the connection, and
 * rxm then says "try again" for ever): the peer is taken for dead, and
 * its transfers fail.  @now is the pass's clock, read before the lock: a
 * transfer queued since is younger than it, not past its deadline.  An
 * empty backlog costs no lock.
 */
static void th_ofi_backlog_run(struct th_ofi *o, u64 now)
{
	struct th_list *pos, *next, failed;
	struct th_ofi_xfer *x;
	ssize_t ret;
	u32 peer;

	if (!__atomic_load_n(&o->backlog_waits, __ATOMIC_RELAXED))
		return;
	th_list_init(&failed);
	pthread_mutex_lock(&o->lock);
	for (peer = 0; peer < o->size; peer++)
		o->blocked[peer] = false;
	for (pos = o->backlog.next; pos != &o->backlog; pos = next) {
		next = pos->next;
		x = th_container_of(pos, struct th_ofi_xfer, link);
		if (o->dead[x->peer] ||
		    (now > x->queued && now - x->queued > o->timeout_ns)) {
			th_list_del(pos);
			th_list_add_tail(&failed, pos);
			continue;
		}
		if (o->blocked[x->peer])
			continue;
		ret = th_ofi_post(o, x);
		if (ret == -FI_EAGAIN) {
			o->blocked[x->peer] = true;
			continue;
		}
		/* rung once the lock is let go, when @x may be gone */
		if (!ret)
			o->ring_due[x->peer] = true;
		th_list_del(pos);
		if (ret) {
			x->err = th_ofi_err(ret);
			th_list_add_tail(&failed, pos);
		}
	}
	__atomic_store_n(&o->backlog_waits, !th_list_empty(&o->backlog),
			 __ATOMIC_RELAXED);
	pthread_mutex_unlock(&o->lock);
	/* @ring_due is this thread's alone: only it runs the backlog */
	for (peer = 0; peer < o->size; peer++) {
		if (o->ring_due[peer]) {
			o->ring_due[peer] = false;
			th_ofi_bell_ring(o, peer);
		}
	}
	while (!th_list_empty(&failed)) {
		x = th_container_of(failed.next, struct th_ofi_xfer, link);
		th_list_del(&x->link);
		/* the boot tries a connection again (th_ofi_net_connect()) */
		if (!th_ofi_is_hello(x))
			th_ofi_peer_dead(o, x->peer, x->err ?
					 fi_strerror(-x->err) :
					 "unreachable for TH_OFI_TIMEOUT");
		th_ofi_xfer_done(o, x, -ECONNREFUSED);
	}
}

static int th_ofi_rx_post(struct th_ofi *o, struct th_ofi_xfer *x)
{
	ssize_t ret;

	do {
		ret = fi_recv(o->rail[x->rail].ep, x->buf, x->len, NULL,
			      FI_ADDR_UNSPEC, &x->fctx);
	} while (ret == -FI_EAGAIN);
	return ret ? th_ofi_err(ret) : 0;
}

/* One completion queue entry. */
static void th_ofi_complete(struct th_ofi *o, const struct fi_cq_data_entry *e)
{
	struct th_ofi_xfer *x = e->op_context;

	if ((e->flags & FI_REMOTE_WRITE) && (e->flags & FI_REMOTE_CQ_DATA)) {
		th_ofi_rma_landed(o, e->data);
		return;
	}
	if (!x)
		return;
	if (x->kind == TH_OFI_CTX_RX) {
		/* nothing of a message is read before its seal is checked */
		if (th_ofi_authentic(o, (const struct th_ofi_hdr *)x->buf,
				     e->len))
			th_ofi_recv(o, (const struct th_ofi_hdr *)x->buf,
				    x->buf + sizeof(struct th_ofi_hdr),
				    e->len - sizeof(struct th_ofi_hdr));
		th_ofi_rx_post(o, x);
		return;
	}
	th_ofi_xfer_done(o, x, 0);
}

/* An error entry of @rail: a transfer failed, its peer is taken for dead. */
static void th_ofi_complete_err(struct th_ofi *o, u32 rail)
{
	struct fi_cq_err_entry err = { 0 };
	struct th_ofi_xfer *x;

	if (fi_cq_readerr(o->rail[rail].cq, &err, 0) != 1)
		return;
	x = err.op_context;
	if (!x)
		return;
	if (x->kind == TH_OFI_CTX_RX) {
		if (!o->stopping)
			th_ofi_rx_post(o, x);
		return;
	}
	/* the boot tries a connection again (th_ofi_net_connect()) */
	if (!th_ofi_is_hello(x))
		th_ofi_peer_dead(o, x->peer, fi_strerror(err.err));
	th_ofi_xfer_done(o, x, -ECONNREFUSED);
}

/*
 * Sleep up to @nap in poll() on the first rail's wait descriptor (two
 * rails), or, when fi_trywait() says entries wait there, not at all: 0.
 * -1 when there is no descriptor to sleep on.
 */
static int th_ofi_tcp_nap(struct th_ofi *o, const struct timespec *nap)
{
	struct fid *fid;
	struct pollfd p;

	if (o->nrails < 2 || o->rail[0].wait_fd < 0)
		return -1;
	fid = &o->rail[0].cq->fid;
	if (fi_trywait(o->rail[0].fabric, &fid, 1) != FI_SUCCESS)
		return 0;
	p.fd = o->rail[0].wait_fd;
	p.events = POLLIN;
	ppoll(&p, 1, nap, NULL);
	return 0;
}

/*
 * Whether the progress thread read a completion within the last
 * TH_SPIN_US, at most TH_OFI_BUSY_MAX_US (not with
 * TH_WAIT_POLICY=passive, nor under auto when the job's ranks that share
 * this one's CPUs outnumber them, th_wait_may_watch(): the look would
 * hold a core another rank needs): while a stream of messages flows it keeps
 * looking, yielding between looks, rather than sleep in the queue and be
 * woken for the next one (fi_cq_sread(): a wake-up on the critical path
 * of every hop, 25-50 us on a VM).  The bound keeps an idle rank asleep
 * between its peers' PINGs whatever TH_SPIN_US says.
 */
static bool th_ofi_cq_busy(struct th_ofi *o, u64 now)
{
	uint64_t spin_us;

	/* passive, or more waiters than CPUs on this machine: sleep */
	if (!th_wait_may_watch())
		return false;
	th_wait_policy_get(&spin_us);
	if (spin_us > TH_OFI_BUSY_MAX_US)
		spin_us = TH_OFI_BUSY_MAX_US;
	return now - o->cq_idle_since < spin_us * 1000;
}

/*
 * A busy thread's queues were empty at @now: it looks again soon, with a
 * pause of the CPU in between, and a sched_yield() at most every
 * TH_OFI_YIELD_NS so that a thread of this rank that wants its CPU gets
 * it within microseconds.  A yield after every look was a system call
 * (a few hundred ns on a VM, and a run of the scheduler) between a
 * message's arrival and its reading: the one-host hop went from 1.64-1.95
 * to 1.43-1.66 us with this (five runs each).
 */
static void th_ofi_busy_look_again(struct th_ofi *o, u64 now)
{
	if (now - o->cq_yielded >= TH_OFI_YIELD_NS) {
		o->cq_yielded = now;
		sched_yield();
	} else {
		th_cpu_relax();
	}
}

/*
 * The polled queues (shm: fi_cq_sread() on its only wait object ignores
 * its timeout in libfabric 1.17; or two rails) were empty: the thread yields while it was
 * busy recently (for TH_SPIN_US; not with TH_WAIT_POLICY=passive), then
 * sleeps, each idle sleep twice the last, from TH_OFI_NAP_MIN_NS up to
 * TH_OFI_NAP_MAX_NS: an idle job costs a thousand short wake-ups a second
 * per rank, and the first message after a pause waits at most that long.
 * Not for ever under "spin" either: a thread that is always runnable gets
 * a CPU only when a spinning waiter's time slice ends.
 *
 * With two rails the nap is spent in poll() on the TCP rail's wait
 * descriptor where it has one (th_ofi_rail_wait_fd()): a message over TCP
 * ends it at once, as fi_cq_sread() does on a job all on TCP, where a
 * plain nap would hold each hop across hosts for up to its length (a
 * 4-rank 8-byte Allreduce, two ranks per host, passive waiters, one run
 * on a loaded 2-CPU machine: 572 us a round with plain naps, 470 with
 * this, 320 with every pair on TCP); shm's queue is looked at after each
 * nap, as in a job on one host.
 */
static void th_ofi_cq_idle(struct th_ofi *o, u64 now)
{
	struct timespec nap;

	if (th_ofi_cq_busy(o, now)) {
		th_ofi_busy_look_again(o, now);
		return;
	}
	/*
	 * With a doorbell: say the thread sleeps, look once more, then nap.
	 * Not when this rank's CPUs are crowded (@crowded): a peer's ring
	 * then wakes a sleeping waiter, which reads its own message, and
	 * else nobody; the thread reads after its nap.  Rung, the thread
	 * took the message off the ring and then waited for a CPU among
	 * the busy ranks, holding the queue the waiter needed: libthmpi's
	 * 8-byte MPI_Bcast, 4 ranks on 2 CPUs, 16.9-34.0 us with the thread
	 * rung, 2.5-6.3 us without it (MPICH alone 1.7-2.3), Allreduce the
	 * same.
	 */
	if (!o->crowded && th_ofi_bell_arm(o))
		return;
	o->cq_nap_ns = o->cq_nap_ns ? o->cq_nap_ns * 2 : TH_OFI_NAP_MIN_NS;
	if (o->cq_nap_ns > TH_OFI_NAP_MAX_NS)
		o->cq_nap_ns = TH_OFI_NAP_MAX_NS;
	nap.tv_sec = 0;
	nap.tv_nsec = o->cq_nap_ns;
	if (!th_ofi_bell_sleep(o, &nap) && th_ofi_tcp_nap(o, &nap))
		nanosleep(&nap, NULL);
}

/* Handle @n entries read from @rail's queue (or its error), under @cq_lock. */
static void th_ofi_handle_locked(struct th_ofi *o, u32 rail,
				 const struct fi_cq_data_entry *e, ssize_t n)
{
	ssize_t i;

	if (n == -FI_EAVAIL)
		th_ofi_complete_err(o, rail);
	for (i = 0; i < n; i++)
		th_ofi_complete(o, &e[i]);
}

/*
 * Read each rail's queue once, without sleeping, and handle what came,
 * under @cq_lock, then the shm rings (ring.c): the entries and messages
 * read (added to @reads), or -FI_EAGAIN when every queue and ring was
 * empty.  On one rail, one fi_cq_read() as before rails.
 */
static ssize_t th_ofi_read_rails_locked(struct th_ofi *o,
					struct fi_cq_data_entry *e, u64 *reads)
{
	ssize_t n, got = -FI_EAGAIN;
	u32 r;

	for (r = 0; r < o->nrails; r++) {
		n = fi_cq_read(o->rail[r].cq, e, 16);
		if (n == -FI_EAGAIN)
			continue;
		if (got < 0)
			got = 0;
		if (n > 0) {
			got += n;
			*reads += n;
		}
		th_ofi_handle_locked(o, r, e, n);
	}
	n = th_ofi_ring_read_locked(o, reads);
	if (n > 0)
		got = got < 0 ? n : got + n;
	return got;
}

/*
 * A waiter reads each queue once, counting in @reads: if nobody else
 * holds them (false when somebody does, who reads them anyway), or, with
 * @wait, after the reader that holds them.
 */
static bool th_ofi_waiter_read(struct th_ofi *o, u64 *reads, bool wait)
{
	struct fi_cq_data_entry e[16];

	if (wait)
		pthread_mutex_lock(&o->cq_lock);
	else if (pthread_mutex_trylock(&o->cq_lock))
		return false;
	if (!__atomic_load_n(&o->stopping, __ATOMIC_ACQUIRE))
		th_ofi_read_rails_locked(o, e, reads);
	pthread_mutex_unlock(&o->cq_lock);
	return true;
}

/*
 * ops->progress: a waiter that spins reads what the completion queue has
 * and handles it, without sleeping.  If the progress thread holds the
 * queue (asleep in fi_cq_sread()), it is told once to let go, and this
 * call returns at once: the waiter looks again soon.
 */
void th_ofi_net_progress(struct th_ofi *o)
{
	/* no clock here: the thread clears the flag and looks again later */
	if (!__atomic_load_n(&o->driven, __ATOMIC_RELAXED))
		__atomic_store_n(&o->driven, true, __ATOMIC_RELAXED);
	if (!th_ofi_waiter_read(o, &o->waiter_reads, false) &&
	    __atomic_load_n(&o->cq_asleep, __ATOMIC_ACQUIRE) &&
	    !__atomic_exchange_n(&o->cq_kicked, true, __ATOMIC_ACQ_REL))
		fi_cq_signal(o->rail[0].cq);
}

/*
 * A waiter about to sleep in the provider's wait looks at the queue once,
 * without sleeping, counting in @reads: what has arrived already (an
 * eager Broadcast's data, sent before this rank's host started the round)
 * is handled by the waiter itself, and its wait ends without a wake-up.
 * A waiter that sleeps at once (auto with more waiters than CPUs, or
 * passive) would otherwise leave it to the progress thread, asleep too,
 * and wait for two wake-ups on CPUs that busy ranks hold.  If the thread
 * holds the queue, it is awake and reads it anyway.  A waiter asleep on
 * the doorbell looks again each time it rings (bell.c).
 */
void th_ofi_net_look(struct th_ofi *o, u64 *reads)
{
	th_ofi_waiter_read(o, reads, false);
}

/*
 * A waiter asleep on the doorbell reads each queue once, waiting for the
 * reader that holds them if any: that one may have read before the
 * message the doorbell rang for arrived (bell.c).  Only with polled
 * queues, whose readers hold @cq_lock only while they read.
 */
void th_ofi_net_look_all(struct th_ofi *o, u64 *reads)
{
	th_ofi_waiter_read(o, reads, true);
}

/*
 * The progress thread naps on @nap_cv until @until_ns (th_ofi_now_ns()),
 * or until a waiter or an operation ends the nap (th_ofi_nap_end()).
 */
static void th_ofi_thread_nap(struct th_ofi *o, u64 until_ns)
{
	struct timespec nap;

	nap.tv_sec = until_ns / 1000000000ULL;
	nap.tv_nsec = until_ns % 1000000000ULL;
	pthread_mutex_lock(&o->nap_lock);
	o->napping = true;
	if (!o->nap_over && !__atomic_load_n(&o->stopping, __ATOMIC_ACQUIRE))
		pthread_cond_timedwait(&o->nap_cv, &o->nap_lock, &nap);
	o->napping = false;
	o->nap_over = false;
	pthread_mutex_unlock(&o->nap_lock);
}

/* End the progress thread's nap on @nap_cv, if it naps. */
static void th_ofi_nap_end(struct th_ofi *o)
{
	pthread_mutex_lock(&o->nap_lock);
	if (o->napping) {
		o->nap_over = true;
		pthread_cond_signal(&o->nap_cv);
	}
	pthread_mutex_unlock(&o->nap_lock);
}

/*
 * The thread's read: asleep in the queue for up to TH_OFI_POLL_MS, unless
 * a waiter drives it; then a nap until the waiter may have left, and a
 * look without sleeping if the queue is free.  With a polled queue (shm,
 * or two rails: @cq_poll) each queue is read in turn, and the thread
 * sleeps only with them let go, for the idle backoff (th_ofi_cq_idle()):
 * it cannot sleep in one queue while the other needs reading, and shm's
 * cannot be slept in with a timeout at all.
 */
static ssize_t th_ofi_thread_read(struct th_ofi *o, struct fi_cq_data_entry *e,
				  u64 now)
{
	ssize_t n;

	/* a waiter drove the queue since the last look: it may still */
	if (__atomic_exchange_n(&o->driven, false, __ATOMIC_ACQ_REL)) {
		/* not on the doorbell: the waiter reads what comes */
		th_ofi_bell_disarm(o);
		th_ofi_thread_nap(o, th_ofi_now_ns() + TH_OFI_DRIVEN_US * 1000ULL);
		if (pthread_mutex_trylock(&o->cq_lock))
			return 0;
		n = th_ofi_read_rails_locked(o, e, &o->thread_reads);
		if (n > 0)
			o->cq_idle_since = th_ofi_now_ns();	/* after a nap */
	} else if (o->cq_poll) {
		/* the doorbell rang for waiters: they read (bell.c) */
		if (th_ofi_bell_rang_for_waiters(o)) {
			th_ofi_cq_idle(o, now);
			return 0;
		}
		/* read, and sleep only with the queues let go */
		pthread_mutex_lock(&o->cq_lock);
		n = th_ofi_read_rails_locked(o, e, &o->thread_reads);
		if (n == -FI_EAGAIN) {
			pthread_mutex_unlock(&o->cq_lock);
			th_ofi_cq_idle(o, now);
			return 0;
		}
		o->cq_idle_since = now;
		o->cq_nap_ns = 0;
		th_ofi_bell_disarm(o);
	} else if (th_ofi_cq_busy(o, now)) {
		/* one rail, busy lately: look without sleeping, then again */
		pthread_mutex_lock(&o->cq_lock);
		n = th_ofi_read_rails_locked(o, e, &o->thread_reads);
		pthread_mutex_unlock(&o->cq_lock);
		if (n == -FI_EAGAIN) {
			th_ofi_busy_look_again(o, now);
			return 0;
		}
		o->cq_idle_since = now;
		return n;
	} else {
		/* one rail, idle: a last look, then asleep in the queue */
		pthread_mutex_lock(&o->cq_lock);
		n = fi_cq_read(o->rail[0].cq, e, 16);
		if (n == -FI_EAGAIN) {
			__atomic_store_n(&o->cq_kicked, false, __ATOMIC_RELAXED);
			__atomic_store_n(&o->cq_asleep, true, __ATOMIC_RELEASE);
			n = fi_cq_sread(o->rail[0].cq, e, 16, NULL, TH_OFI_POLL_MS);
			__atomic_store_n(&o->cq_asleep, false, __ATOMIC_RELEASE);
			if (n == -FI_ENOSYS)
				n = fi_cq_read(o->rail[0].cq, e, 16);
			else if (n > 0)
				o->queue_wakes++;
			/* woken for a waiter, or for an operation to end: not idle */
			if (n == -FI_EAGAIN &&
			    __atomic_load_n(&o->cq_kicked, __ATOMIC_ACQUIRE))
				n = 0;
		}
		if (n > 0) {
			o->thread_reads += n;
			o->cq_idle_since = th_ofi_now_ns();
		}
		th_ofi_handle_locked(o, 0, e, n);
	}
	pthread_mutex_unlock(&o->cq_lock);
	return n;
}

static void *th_ofi_progress(void *arg)
{
	struct th_ofi *o = arg;
	struct fi_cq_data_entry e[16];
	u64 next_expire = 0, next_ping = 0, now = th_ofi_now_ns();
	ssize_t n;

	/*
	 * One clock read a pass, at its end (after any sleep): the next
	 * pass's read and backlog take it as their "now".  A busy thread
	 * passes every few hundred nanoseconds; with three reads a pass
	 * the clock took 9 % of a busy hop's profile.
	 */
	while (!__atomic_load_n(&o->stopping, __ATOMIC_ACQUIRE)) {
		n = th_ofi_thread_read(o, e, now);
		th_ofi_backlog_run(o, now);
		th_ofi_orphans_end(o);
		th_ofi_trig_kick(o);
		now = th_ofi_now_ns();
		/*
		 * An idle wait (or a wake-up to end an operation, which
		 * th_ofi_wake() asks for) runs the pass over the slots
		 */
		if (now >= next_expire || n == -FI_EAGAIN ||
		    __atomic_exchange_n(&o->ended, false, __ATOMIC_ACQ_REL)) {
			th_ofi_expire(o);
			next_expire = now + TH_OFI_POLL_MS * 1000000ULL;
		}
		if (now >= next_ping) {
			th_ofi_ping(o);
			next_ping = now + TH_OFI_PING_MS * 1000000ULL;
		}
	}
	return NULL;
}

/*
 * A waiter stops driving the queue to sleep in the provider's ct_wait:
 * the progress thread, napping, takes the queue back now.
 */
void th_ofi_net_waiter_sleeps(struct th_ofi *o)
{
	if (!__atomic_load_n(&o->driven, __ATOMIC_RELAXED) &&
	    !__atomic_load_n(&o->napping, __ATOMIC_RELAXED))
		return;
	__atomic_store_n(&o->driven, false, __ATOMIC_RELAXED);
	th_ofi_nap_end(o);
}

/* Wake the progress thread if it sleeps in a queue, on its doorbell, or naps. */
static void th_ofi_signal(struct th_ofi *o)
{
	u32 r;

	for (r = 0; r < o->nrails; r++)
		fi_cq_signal(o->rail[r].cq);
	th_ofi_bell_ring_self(o);
	th_ofi_nap_end(o);
}

/* An operation was marked ended: the thread ends it on its next pass. */
void th_ofi_wake(struct th_ofi *o)
{
	__atomic_store_n(&o->ended, true, __ATOMIC_RELEASE);
	th_ofi_signal(o);
}

/* TH_OFI_VERBOSE=1, at exit: who read the completion queue. */
void th_ofi_net_report(struct th_ofi *o)
{
	if (o->verbose)
		fprintf(stderr, "libthverbs: ofi rank %u: completions read: %llu by the progress thread, %llu by waiters; %llu reads woke the thread in the queue; %llu read by waiters' look before sleeping, %llu read after a ring by waiters asleep on the doorbell\n",
			o->rank, (unsigned long long)o->thread_reads,
			(unsigned long long)o->waiter_reads,
			(unsigned long long)o->queue_wakes,
			(unsigned long long)o->sleeper_reads,
			(unsigned long long)o->bell_reads);
	if (o->verbose)
		fprintf(stderr, "libthverbs: ofi rank %u: messages sent: %llu, %llu of them injected (no completion to read: by fi_inject() or through a shm ring)\n",
			o->rank, (unsigned long long)o->sends,
			(unsigned long long)o->injected);
	th_ofi_ring_report(o);
	if (o->verbose && o->bell)
		fprintf(stderr, "libthverbs: ofi rank %u: doorbell: %llu sleeps ended by a ring, %llu peers woken, %llu waits slept on it%s\n",
			o->rank, (unsigned long long)o->bell_woken,
			(unsigned long long)__atomic_load_n(&o->bell_rings,
							    __ATOMIC_RELAXED),
			(unsigned long long)__atomic_load_n(&o->bell_waits,
							    __ATOMIC_RELAXED),
			__atomic_load_n(&o->bell_no_waitv, __ATOMIC_RELAXED) ?
			"; no futex_waitv() here: waiters sleep on their own word" :
			"");
}

/* Post each rail's receive buffers and start the progress thread. */
int th_ofi_net_start(struct th_ofi *o)
{
	size_t room = sizeof(struct th_ofi_hdr) + TH_OFI_EAGER;
	struct th_ofi_xfer *x;
	u32 i, r;
	int ret;

	for (r = 0; r < o->nrails; r++) {
		for (i = 0; i < TH_OFI_RX_BUFS; i++) {
			x = calloc(1, sizeof(*x) + room);
			if (!x)
				return -ENOMEM;
			o->rail[r].rx[i] = x;
			x->kind = TH_OFI_CTX_RX;
			x->rail = r;
			x->len = room;
			ret = th_ofi_rx_post(o, x);
			if (ret)
				return ret;
		}
	}
	ret = pthread_create(&o->thread, NULL, th_ofi_progress, o);
	return -ret;
}

/*
 * Connect to every higher rank now, each pair once and one pair at a
 * time: tcp;ofi_rxm connects on a pair's first send, and two ranks that
 * both do so at once collide (one is refused, and in libfabric 1.17 its
 * sends can then wait for ever).  With every connection started at once,
 * 16 loaded processes still failed about 1 run in 5 (a rank's sends to
 * some higher ranks answered "try again" until the deadline); one at a
 * time, none in 10.  The job's barrier after this call (th_ofi_boot())
 * makes every connection exist before any delivery.
 */
int th_ofi_net_connect(struct th_ofi *o)
{
	struct th_ofi_hdr h = { .type = TH_OFI_MSG_HELLO };
	u64 deadline = th_ofi_now_ns() + o->timeout_ns;
	u32 peer, want, got;
	int ret, err;

	h.src = o->rank;
	/* one at a time: a rank never has all its lower peers connecting at once */
	for (peer = o->rank + 1, want = 0; peer < o->size; peer++) {
		ret = th_ofi_send(o, peer, &h, NULL, 0, 0);
		if (ret)
			return ret;
		want++;
		for (;;) {
			pthread_mutex_lock(&o->lock);
			got = o->hellos;
			err = o->hello_err;
			o->hello_err = 0;
			pthread_mutex_unlock(&o->lock);
			if (th_ofi_now_ns() > deadline)
				return err ? err : -ETIMEDOUT;
			if (got == want && !err)
				break;
			if (got == want) {
				/* refused (a loaded peer): again, until the deadline */
				if (o->verbose)
					fprintf(stderr, "libthverbs: ofi rank %u: connection to rank %u failed (%s); trying again\n",
						o->rank, peer, strerror(-err));
				usleep(10000);
				ret = th_ofi_send(o, peer, &h, NULL, 0, 0);
				if (ret)
					return ret;
				want++;
				continue;
			}
			usleep(200);
		}
	}
	return 0;
}

/*
 * shm: take the shm rail's region's name out of /dev/shm once every peer
 * on it has mapped the region (the connections of th_ofi_net_connect(), made
 * on every rank before the boot's last round).  libfabric 1.17 removes it
 * only when the endpoint is closed, which a process that exits, or dies,
 * never does: 16 MiB per rank were left behind for each job.  Nothing
 * can open the region by its name after this either.
 */
void th_ofi_net_unlink(struct th_ofi *o)
{
	char name[TH_OFI_NAME_MAX + 1];
	size_t len;
	const char *p;
	u32 r;

	for (r = 0; r < o->nrails; r++) {
		len = TH_OFI_NAME_MAX;
		if (!o->rail[r].cq_poll ||
		    fi_getname(&o->rail[r].ep->fid, name, &len))
			continue;
		name[len < sizeof(name) ? len : sizeof(name) - 1] = '\0';
		p = strstr(name, "://");
		shm_unlink(p ? p + 3 : name);
	}
	th_ofi_bell_unlink(o);
}

/*
 * The process exits (atexit, before libfabric's own destructor): the
 * progress thread stops after what it is doing, which may be answering a
 * delivery the exiting program just saw arrive; then what this process
 * sent gets up to a second to leave, its completions read here and
 * nothing else run.  A peer's answer lost at exit would fail its chain.
 */
void th_ofi_net_quiesce(struct th_ofi *o)
{
	u64 deadline = th_ofi_now_ns() + 1000000000ULL;
	struct fi_cq_data_entry e[16];
	struct fi_cq_err_entry err;
	struct th_ofi_xfer *x;
	ssize_t n, i;
	bool any;
	u32 r;

	__atomic_store_n(&o->stopping, true, __ATOMIC_RELEASE);
	if (o->thread) {
		th_ofi_net_waiter_sleeps(o);
		th_ofi_signal(o);
		pthread_join(o->thread, NULL);
		o->thread = 0;
	}
	/* a waiter still spinning reads no more: it sees @stopping */
	pthread_mutex_lock(&o->cq_lock);
	while (o->tx_inflight && th_ofi_now_ns() < deadline) {
		for (r = 0, any = false; r < o->nrails; r++) {
			n = fi_cq_read(o->rail[r].cq, e, 16);
			if (n == -FI_EAVAIL) {
				memset(&err, 0, sizeof(err));
				if (fi_cq_readerr(o->rail[r].cq, &err, 0) == 1)
					e[0].op_context = err.op_context;
				e[0].flags = 0;
				n = 1;
			}
			for (i = 0; i < n; i++) {
				x = e[i].op_context;
				if (!x || x->kind == TH_OFI_CTX_RX ||
				    (e[i].flags & FI_REMOTE_WRITE))
					continue;
				o->tx_inflight--;
				free(x);
			}
			any |= n > 0;
		}
		if (!any)
			usleep(100);
	}
	pthread_mutex_unlock(&o->cq_lock);
}

/*
 * Stop the thread and close the endpoint; what is still posted is
 * cancelled with it, so the buffers are freed only after.
 */
void th_ofi_net_close(struct th_ofi *o)
{
	u32 i;

	__atomic_store_n(&o->stopping, true, __ATOMIC_RELEASE);
	if (o->thread) {
		th_ofi_net_waiter_sleeps(o);
		th_ofi_signal(o);
		pthread_join(o->thread, NULL);
		o->thread = 0;
	}
	th_ofi_bell_close(o);
	for (i = 0; i < TH_OFI_RAILS; i++)
		th_ofi_rail_close(&o->rail[i]);
	o->nrails = 0;
	for (i = 0; o->pidfds && i < o->size; i++)
		if (o->pidfds[i] >= 0)
			close(o->pidfds[i]);
	free(o->pidfds);
	free(o->peers);
	free(o->rail_of);
	free(o->dead);
	free(o->blocked);
	free(o->ring_due);
	free(o->violator);
	explicit_bzero(o->mac_key, sizeof(o->mac_key));
	explicit_bzero(o->secret, sizeof(o->secret));
}
