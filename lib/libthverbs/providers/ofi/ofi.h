/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * ofi.h - the ofi provider: each process of a job hosts one node (its
 * rank's) on an in-process fabric (providers/inproc) running the trigger
 * engine, and deliveries between processes travel over libfabric.
 *
 * The wire (wire.c): every delivery is answered by its target after the
 * target's engine has applied it, so a chain's next descriptor runs only
 * once the previous one's data and counter are in place there, as on the
 * module.  Deliveries of up to TH_OFI_EAGER bytes travel inside one
 * message; larger ones are RMA: the initiator asks the target to resolve
 * the key (RESOLVE), which holds the region, and writes or reads it with
 * fi_writedata()/fi_read() on the libfabric key the answer carries.  No
 * unverified key ever reaches libfabric: on tcp;ofi_rxm a bad one is
 * reported as success and silently drops the connection.
 *
 * Rails (net.c): a rank reaches each peer over one libfabric endpoint, its
 * rail: shm to the ranks that share its host, tcp;ofi_rxm to the others.
 * A job all on one host, or with no two ranks together, has one rail; a
 * job that mixes both has two per rank that needs both (provider.c).
 *
 * Progress (net.c): one thread per process reads the completion queues
 * and runs what arrives through the engine; it also ends every delivery whose
 * answer does not come within TH_OFI_TIMEOUT seconds (-ECONNREFUSED, and
 * the peer is taken for dead).
 */
#ifndef TH_OFI_H
#define TH_OFI_H

#include <pthread.h>
#include <sys/socket.h>

#include "fabric_dl.h"
#include <rdma/fabric.h>
#include <rdma/fi_trigger.h>

#include "inproc.h"

/* bytes a delivery carries inside one message; more go by RMA */
#define TH_OFI_EAGER		4096
/* payload bytes of a message built on the stack to be injected, at most */
#define TH_OFI_INJECT_MAX	256
/* receive buffers posted at once */
#define TH_OFI_RX_BUFS		64
/* the longest endpoint name exchanged at boot */
#define TH_OFI_NAME_MAX		64
/* default seconds a delivery waits for its answer */
#define TH_OFI_TIMEOUT_S	10
/* bytes of the job's MAC key and of a process's secret (auth.c) */
#define TH_OFI_KEY_LEN		16
/* endpoints a rank may have: one to the other hosts, one on this host */
#define TH_OFI_RAILS		2
/* messages a shm ring holds, one ring per sender (ring.c) */
#define TH_OFI_RING_SLOTS	32
/* the ranks of a job past which its doorbell regions hold no rings */
#define TH_OFI_RING_MAX_RANKS	256
/* messages a pass reads from the rings at most, as fi_cq_read()'s 16 */
#define TH_OFI_RING_BUDGET	16

enum th_ofi_msg_type {
	TH_OFI_MSG_PUT = 1,	/* data follows: write it, answer DONE */
	TH_OFI_MSG_GET,		/* answer GET_DATA with the bytes */
	TH_OFI_MSG_GET_DATA,	/* status, then the bytes */
	TH_OFI_MSG_DONE,	/* a delivery's status */
	TH_OFI_MSG_FAIL_CT,	/* raise a failure value, no answer */
	TH_OFI_MSG_RESOLVE,	/* hold a region for RMA: answer RESOLVED */
	TH_OFI_MSG_RESOLVED,	/* status, hold, address, libfabric key */
	TH_OFI_MSG_RELEASE,	/* an RMA read is over: drop the hold */
	TH_OFI_MSG_WATCH,	/* fail this counter if the sender dies */
	TH_OFI_MSG_PING,	/* are you there: a send that fails says no */
	TH_OFI_MSG_HELLO,	/* boot: the connection from the lower rank */
};

/* how often a process with watches on a peer checks that it lives */
#define TH_OFI_PING_MS		1000

/* struct th_ofi_hdr.flags */
#define TH_OFI_F_CT		0x1	/* @ct is a counter to advance */
#define TH_OFI_F_READ		0x2	/* RESOLVE: for reading */
#define TH_OFI_F_ACK		0x4	/* carries a DONE: @ack_id ended well */

/**
 * struct th_ofi_hdr - every message's header
 * @type: enum th_ofi_msg_type
 * @flags: TH_OFI_F_*
 * @ct: the target's counter
 * @src: the sender's rank
 * @dst: the receiver's rank
 * @status: 0 or a negative errno (answers)
 * @vport: the target vport
 * @id: the initiator's operation, echoed in answers
 * @rkey: the engine's remote key
 * @off: offset in the region
 * @len: bytes
 * @domain: the initiator's domain token
 * @raddr: RESOLVED: the address to give libfabric
 * @fikey: RESOLVED: libfabric's key for the region
 * @hold: RESOLVED, RELEASE: the target's hold
 * @ack_id: with TH_OFI_F_ACK, the receiver's operation that this sender
 *	applied (a DONE of status 0 riding on this message, wire.c)
 * @mac: SipHash-2-4 of the header's bytes before it under the job's key:
 *	a message whose MAC does not verify is dropped unread (auth.c)
 */
struct th_ofi_hdr {
	u8 type;
	u8 flags;
	u16 ct;
	u32 src;
	u32 dst;
	s32 status;
	u32 vport;
	u32 pad;
	u64 id;
	u64 rkey;
	u64 off;
	u64 len;
	u8 domain[16];
	u64 raddr;
	u64 fikey;
	u64 hold;
	u64 ack_id;
	u64 mac;
};
/* no padding: the MAC covers the header's bytes, all of them named */
_Static_assert(sizeof(struct th_ofi_hdr) == 112, "th_ofi_hdr has no holes");

/* the largest message a slot holds: one built to be injected */
#define TH_OFI_RING_MSG	(sizeof(struct th_ofi_hdr) + TH_OFI_INJECT_MAX)

/**
 * struct th_ofi_ring_slot - one message of a ring
 * @full: 1 while the slot holds a message for the reader, 0 when free
 * @len: the message's bytes
 * @msg: the message: a sealed header, then its payload
 */
struct th_ofi_ring_slot {
	u32 full;
	u32 len;
	u8 msg[TH_OFI_RING_MSG];
} __attribute__((aligned(64)));

/* one sender's ring in a rank's region (ring.c) */
struct th_ofi_ring {
	struct th_ofi_ring_slot slot[TH_OFI_RING_SLOTS];
};

/* What a completion queue entry's context is. */
enum th_ofi_ctx_kind {
	TH_OFI_CTX_RX = 1,	/* a posted receive buffer */
	TH_OFI_CTX_TX,		/* a message sent */
	TH_OFI_CTX_RMA,		/* an RMA write or read */
};

/**
 * struct th_ofi_xfer - one libfabric operation in flight
 * @fctx: libfabric's
 * @tctx: a triggered send's: the counter and threshold it waits for
 *	(trigger.c); libfabric completes it with this context too
 * @kind: enum th_ofi_ctx_kind
 * @rail: the rail (struct th_ofi.rail) it is posted on
 * @peer: the rank it goes to
 * @op: the operation it serves (struct th_ofi_op id), or 0
 * @link: on the backlog while libfabric has no room for it
 * @queued: when it was handed over (CLOCK_MONOTONIC ns)
 * @err: why it failed before libfabric took it
 * @len: bytes at @buf (TX: header and payload), or RMA bytes
 * @write: RMA: a write (with @data as remote CQ data), else a read
 * @local: RMA: the local bytes
 * @desc: RMA: their registration's descriptor (FI_MR_LOCAL), or NULL
 * @raddr: RMA: the target address libfabric takes
 * @fikey: RMA: the target's libfabric key
 * @data: RMA write: the remote CQ data
 * @trig: a triggered send: its slot in struct th_ofi.trig, plus one
 * @buf: TX: the message; RX: the receive buffer
 */
struct th_ofi_xfer {
	union {
		struct fi_context2 fctx;
		struct fi_triggered_context tctx;
	};
	u8 kind;
	u8 rail;
	u32 peer;
	u64 op;
	struct th_list link;
	u64 queued;
	int err;
	size_t len;
	bool write;
	void *local;
	void *desc;
	u64 raddr;
	u64 fikey;
	u64 data;
	u64 trig;
	u8 buf[];
};

/* struct th_ofi_op.state */
enum th_ofi_op_state {
	TH_OFI_OP_FREE,
	TH_OFI_OP_SENT,		/* a message out, its answer awaited */
	TH_OFI_OP_RESOLVING,	/* RESOLVE out */
	TH_OFI_OP_RMA,		/* the write or read posted */
	TH_OFI_OP_ARMED,	/* a triggered send, its chain still pending */
};

/**
 * struct th_ofi_op - a delivery this process started
 * @chain: the engine's chain, resumed with th_eng_remote_done()
 * @rop: what the engine asked
 * @gen: bumped on every reuse: an answer for an older use is dropped
 * @state: enum th_ofi_op_state
 * @peer: the target's rank
 * @deadline: CLOCK_MONOTONIC ns by which it must have ended
 * @hold: RMA: the target's hold
 * @status: with @deadline 0: the operation ended with it, for the
 *	progress thread to report
 * @from: the index of the vport whose chain started it (@owed's entry)
 * @answered: TH_OFI_OP_ARMED: the answer (@status) came before the
 *	engine said the chain fired; it is reported once it has
 */
struct th_ofi_op {
	struct th_eng_chain *chain;
	struct th_eng_remote_op rop;
	u32 gen;
	u8 state;
	u32 peer;
	u64 deadline;
	u64 hold;
	int status;
	u32 from;
	bool answered;
};

/* Triggered sends waiting or in flight at once; past it, chains wait in software. */
#define TH_OFI_MAX_TRIGGERED	256

/* struct th_ofi_trig.state */
enum th_ofi_trig_state {
	TH_OFI_TRIG_FREE,
	TH_OFI_TRIG_ARMED,	/* waits in libfabric for its counter */
	TH_OFI_TRIG_GONE,	/* sent (or dropped): its completion awaited */
};

/**
 * struct th_ofi_trig - a chain's first delivery, waiting in libfabric
 * @state: enum th_ofi_trig_state
 * @cntr: the libfabric counter it waits on, kept for the slot's next use
 * @x: the message (and its triggered context)
 * @chain: while armed, the engine's chain
 * @ev: while armed, the chain's vport
 * @ct: the engine counter the chain waits on, which @cntr mirrors
 * @threshold: its threshold
 * @op: the delivery's operation (struct th_ofi_op id)
 * @completed: libfabric completed the send (and @x is freed) before the
 *	engine said the chain fired
 * @hold: a dropped PUT's local range, which libfabric may still read:
 *	released when the message completes
 */
struct th_ofi_trig {
	u8 state;
	struct fid_cntr *cntr;
	struct th_ofi_xfer *x;
	struct th_eng_chain *chain;
	struct th_eng_vport *ev;
	u32 ct;
	u64 threshold;
	u64 op;
	bool completed;
	struct th_eng_mr_ref hold;
};

/* TH_OFI_TRIGGER: whether chains may wait in libfabric (trigger.c) */
enum th_ofi_trigger_mode {
	TH_OFI_TRIGGER_AUTO,	/* if the provider offers FI_TRIGGER */
	TH_OFI_TRIGGER_OFF,
	TH_OFI_TRIGGER_ON,	/* required: the job fails without it */
};

/**
 * struct th_ofi_hold - a region held for a peer's RMA (target side)
 * @ev: the target vport, referenced
 * @ref: the held range
 * @gen: bumped on every reuse
 * @busy: in use
 * @peer: whose
 * @op: the peer's operation
 * @ct: the counter to advance when a write lands (TH_OFI_F_CT in @flags)
 * @flags: TH_OFI_F_*
 */
struct th_ofi_hold {
	struct th_eng_vport *ev;
	struct th_eng_mr_ref ref;
	u32 gen;
	bool busy;
	u32 peer;
	u64 op;
	u16 ct;
	u8 flags;
};

/**
 * struct th_ofi_watch - a counter to fail when a peer dies
 * @domain: the domain token it was set up in
 * @peer: the rank whose chains would advance it (target side), or the
 *	rank told (initiator side)
 * @vport: the vport
 * @ct: the counter
 */
struct th_ofi_watch {
	u8 domain[16];
	u32 peer;
	u32 vport;
	u16 ct;
};

/* Watches kept, each side: past it, a counter is not watched (documented). */
#define TH_OFI_MAX_WATCHES	4096

struct th_ofi_bell;
struct th_ofi_ring;

/**
 * struct th_ofi_rail - one libfabric endpoint and what it needs
 * @prov: the libfabric provider's name
 * @info: what fi_getinfo() chose
 * @fabric, @domain, @ep, @cq, @av: libfabric's objects; the AV holds the
 *	peers this rail reaches (struct th_ofi.peers)
 * @virt_addr: the provider addresses RMA by virtual address
 * @mr_local: the provider needs registered local buffers (FI_MR_LOCAL):
 *	RMA passes the MR's descriptor; triggered sends are not used
 * @cq_poll: its completion queue is polled, not slept in (shm)
 * @wait_fd: the descriptor its completion queue signals on, or -1
 *	(net.c: th_ofi_cq_idle())
 * @inject_max: the largest message sent by fi_inject() on it, or 0: on
 *	shm, whose send has put the bytes in the peer's queue when it
 *	returns, its inject size (net.c: th_ofi_inject())
 * @rx: its receive buffers
 */
struct th_ofi_rail {
	char prov[32];
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_ep *ep;
	struct fid_cq *cq;
	struct fid_av *av;
	bool virt_addr;
	bool mr_local;
	bool cq_poll;
	int wait_fd;
	size_t inject_max;
	struct th_ofi_xfer *rx[TH_OFI_RX_BUFS];
};

/**
 * struct th_ofi_mr - a region's registration on every rail, the engine
 * MR's private part (its peers' RMA comes over either)
 * @fmr: by rail
 */
struct th_ofi_mr {
	struct fid_mr *fmr[TH_OFI_RAILS];
};

/**
 * struct th_ofi - the process's part of the job's fabric
 * @ipf: the node this process hosts, with the engine
 * @net: the hooks @ipf calls for deliveries elsewhere
 * @rank: this process's rank, the node it hosts
 * @size: ranks, the job's nodes
 * @prov: the first rail's libfabric provider's name
 * @rail: the endpoints: the first always, the second only when the job
 *	mixes ranks on this host (shm) and elsewhere (tcp;ofi_rxm, first)
 * @nrails: rails open
 * @rail_of: the rail each rank is reached over
 * @cq_poll: the progress thread polls the completion queues, with a
 *	backoff when idle, instead of sleeping in one (th_ofi_cq_idle()):
 *	with shm's, and with two, since it can sleep in only one
 * @cq_idle_since: when the thread last read an entry (ns): it stays busy,
 *	not asleep in a queue, for TH_SPIN_US after (th_ofi_cq_busy())
 * @cq_nap_ns: @cq_poll: the current idle sleep, doubled up to a bound
 * @cq_yielded: when the busy thread last yielded its CPU (ns)
 * @bell: this rank's doorbell, which its progress thread naps on (bell.c),
 *	or NULL; @bell_fd its region's descriptor (a memfd) until the job
 *	joined, and @handoff_sock, @handoff_nonce the socket that hands it
 *	to the peers and its name (handoff.c); -1 when closed
 * @bells: each peer's doorbell, rung after a message to it, or NULL
 * @bell_seq, @bell_armed: the progress thread's side of the handshake
 * @bell_rings: rings that woke a peer (TH_OFI_VERBOSE's report)
 * @bell_woken: the progress thread's sleeps that a ring ended
 * @bell_waits: waits that slept on @bell (th_ofi_bell_wait())
 * @bell_for_waiters: the progress thread's last sleep on @bell ran to its
 *	end while @bell rang for waiters (th_ofi_bell_rang_for_waiters())
 * @bell_no_waitv: the kernel has no futex_waitv(): waiters sleep on
 *	their own word alone, and the progress thread reads for them
 * @pidfds: on shm, each peer's process (pidfd_open()), or -1: a send to
 *	a process that ended still lands in its memory, so its death is
 *	seen here (th_ofi_net_peer_gone())
 * @peers: each rank's address, in its rail's AV
 * @dead: each rank taken for dead (its process ended or went silent)
 * @blocked: scratch of the backlog's pass: libfabric has no room for it
 * @ring_due: scratch of the backlog's pass: a transfer to this peer went,
 *	and its doorbell is rung after the pass lets go of @lock
 * @rings: this rank reads the shm rings of its doorbell region (ring.c)
 * @ring_to: each peer's ring for this rank's messages, in the peer's
 *	region, or NULL (no rings there, or TH_OFI_RING=0 on that rank)
 * @ring_tail: each peer's ring, the next slot this rank fills (@lock)
 * @ring_head: each of this rank's rings, the next slot it reads
 *	(@cq_lock)
 * @ring_seen: @bell's sequence at the last look that read every ring to
 *	its end; @ring_more: the last look stopped at its budget; @ring_next:
 *	the ring the next look starts with (@cq_lock)
 * @ring_sends, @ring_full: messages put in a peer's ring; messages that
 *	found it full and went by libfabric (@lock)
 * @lock: protects everything below, and @dead
 * @ops: deliveries started here, by slot (id = gen << 32 | slot + 1)
 * @nops: slots
 * @owed: by this node's vport index, its deliveries past the eager size
 *	whose bytes this host still moves (RESOLVE out, or the RMA posted,
 *	until the operation ends): a collective's wait on that vport holds
 *	its rank while any is left (ops->host_owes); written under @lock,
 *	read without it
 * @nowed: its entries (the node's vports)
 * @holds: regions held for peers, by slot
 * @nholds: slots
 * @watches: counters to fail when their peer dies
 * @nwatches: entries in @watches
 * @told: watches this process asked of its targets, not to ask twice
 * @ntold: entries in @told
 * @orphans: chains whose delivery could not even get a slot, to end
 *	(-ENOMEM) from the progress thread
 * @backlog: transfers libfabric had no room for, in order
 * @backlog_waits, @orphans_wait: @backlog, @orphans may not be empty: set
 *	under @lock when one is added to, and cleared under it when
 *	emptied; the progress thread reads them without @lock, so that a
 *	pass with neither takes no lock for them
 * @next_key: regions registered, the counter their unguessable libfabric
 *	keys are drawn from (auth.c)
 * @timeout_ns: a delivery's deadline
 * @thread: the progress thread
 * @stopping: the thread is asked to exit
 * @job_token: the job's domain (rank 0's), default for vports
 * @verbose: TH_OFI_VERBOSE=1: say on stderr when a peer is taken for dead
 * @crowded: the job's ranks that share this rank's CPUs outnumber them
 *	(the join's count): its progress thread naps without arming its
 *	doorbell, so peers ring its waiters only (net.c, th_ofi_cq_idle())
 * @host_shared: the join told the wait policy who shares this rank's
 *	CPUs (th_wait_host_share()), to be taken back when the job ends
 * @tx_inflight: transfers handed to libfabric or queued, not yet completed
 * @hellos: HELLOs of the boot whose send completed (or failed: @hello_err)
 * @hello_err: the first HELLO's failure
 * @trigger: chains' first deliveries may wait in libfabric (FI_TRIGGER)
 * @trig_lock: protects @trig and the counts below; taken under an engine
 *	vport's lock, and before @lock
 * @trig: triggered sends, by slot
 * @trig_armed: sends handed to libfabric to wait for their counter
 * @trig_sent: of those, sent by libfabric when the counter got there
 * @trig_dropped: of those, dropped because their chain would not run
 * @trig_software: chains that qualified but found no free slot
 * @mac_key: the job's key, rank 0's: every header is sealed with it
 * @secret: this process's own, for what must not be guessed (auth.c)
 * @forged: messages dropped unread: not sealed with the job's key, not
 *	for this rank, or not as long as their header says
 * @misfit: authentic answers that fit no operation in flight (a late
 *	answer, or one of the wrong kind or from the wrong rank)
 * @violator: each rank whose request broke a key or a range here: its
 *	later requests are refused unchecked, so that keys cannot be probed
 *	(set under @lock, read without it by the handler of the next
 *	request, under @cq_lock)
 * @violations: such requests
 * @cq_lock: held by whoever reads the completion queue and handles what
 *	it read: the progress thread or a spinning waiter, one at a time
 * @driven: a waiter drove the queue (th_ofi_net_progress()) since the
 *	progress thread last looked, which clears it
 * @cq_asleep: the progress thread holds @cq_lock asleep in fi_cq_sread()
 * @cq_kicked: a waiter has asked it to let go (fi_cq_signal()) already
 * @nap_lock, @nap_cv: the progress thread naps on @nap_cv while a waiter
 *	drives the queue (@napping); a waiter that goes to sleep, or an
 *	operation to end, ends the nap (@nap_over), both under @nap_lock
 * @ended: an operation was marked ended for the thread's next pass
 * @thread_reads: entries the progress thread read (under @cq_lock)
 * @waiter_reads: entries waiters read (under @cq_lock)
 * @sleeper_reads: entries waiters read in their one look before they
 *	slept (th_ofi_net_look(); under @cq_lock)
 * @bell_reads: entries waiters asleep on @bell read once it rang (under
 *	@cq_lock)
 * @queue_wakes: the thread's reads that slept in the queue first and
 *	were ended by what arrived (fi_cq_sread(); under @cq_lock)
 * @sends, @injected: messages sent, and how many of them with no
 *	completion to read: by fi_inject(), or through a shm ring (under
 *	@lock)
 */
struct th_ofi {
	struct th_ipf *ipf;
	struct th_ipf_net net;
	u32 rank;
	u32 size;
	char prov[32];
	struct th_ofi_rail rail[TH_OFI_RAILS];
	u32 nrails;
	u8 *rail_of;
	bool cq_poll;
	u64 cq_idle_since;
	u64 cq_nap_ns;
	u64 cq_yielded;
	struct th_ofi_bell *bell;
	int bell_fd;
	int handoff_sock;
	u64 handoff_nonce;
	struct th_ofi_bell **bells;
	u32 bell_seq;
	bool bell_armed;
	u64 bell_rings;
	u64 bell_woken;
	u64 bell_waits;
	bool bell_for_waiters;
	bool bell_no_waitv;
	int *pidfds;
	fi_addr_t *peers;
	bool *dead;
	bool *blocked;
	bool *ring_due;
	bool rings;
	struct th_ofi_ring **ring_to;
	u32 *ring_tail;
	u32 *ring_head;
	u32 ring_seen;
	bool ring_more;
	u32 ring_next;
	u64 ring_sends;
	u64 ring_full;
	pthread_mutex_t lock;
	struct th_ofi_op *ops;
	u32 nops;
	u32 *owed;
	u32 nowed;
	struct th_ofi_hold *holds;
	u32 nholds;
	struct th_ofi_watch watches[TH_OFI_MAX_WATCHES];
	u32 nwatches;
	struct th_ofi_watch told[TH_OFI_MAX_WATCHES];
	u32 ntold;
	struct th_list orphans;
	struct th_list backlog;
	bool backlog_waits;
	bool orphans_wait;
	u64 next_key;
	u64 timeout_ns;
	pthread_t thread;
	bool stopping;
	u8 job_token[16];
	bool verbose;
	bool host_shared;
	bool crowded;
	u32 tx_inflight;
	u32 hellos;
	int hello_err;
	bool trigger;
	pthread_mutex_t trig_lock;
	struct th_ofi_trig trig[TH_OFI_MAX_TRIGGERED];
	u64 trig_armed;
	u64 trig_sent;
	u64 trig_dropped;
	u64 trig_software;
	u8 mac_key[TH_OFI_KEY_LEN];
	u8 secret[TH_OFI_KEY_LEN];
	u64 forged;
	u64 misfit;
	bool *violator;
	u64 violations;
	pthread_mutex_t cq_lock;
	bool driven;
	bool cq_asleep;
	bool cq_kicked;
	pthread_mutex_t nap_lock;
	pthread_cond_t nap_cv;
	bool napping;
	bool nap_over;
	bool ended;
	u64 thread_reads;
	u64 waiter_reads;
	u64 sleeper_reads;
	u64 bell_reads;
	u64 queue_wakes;
	u64 sends;
	u64 injected;
};

/* net.c: libfabric's objects, sending, and the progress thread */
int th_ofi_net_open(struct th_ofi *o, const char *prov,
		    enum th_ofi_trigger_mode trigger);
int th_ofi_net_name(struct th_ofi *o, u32 rail, void *name, size_t *len);
int th_ofi_net_peers(struct th_ofi *o, const void *const *names);
int th_ofi_net_start(struct th_ofi *o);
int th_ofi_net_connect(struct th_ofi *o);
void th_ofi_net_close(struct th_ofi *o);
void th_ofi_net_quiesce(struct th_ofi *o);
int th_ofi_net_watch_pids(struct th_ofi *o, const u64 *pids);
bool th_ofi_net_peer_gone(struct th_ofi *o, u32 peer);
void th_ofi_net_unlink(struct th_ofi *o);
int th_ofi_send(struct th_ofi *o, u32 peer, const struct th_ofi_hdr *h,
		const void *payload, size_t len, u64 op);
int th_ofi_rma(struct th_ofi *o, u32 peer, bool write, void *local,
	       void *local_mr, u64 len, u64 raddr, u64 fikey, u64 data, u64 op);
u64 th_ofi_now_ns(void);
void th_ofi_net_progress(struct th_ofi *o);
void th_ofi_net_look(struct th_ofi *o, u64 *reads);
void th_ofi_net_look_all(struct th_ofi *o, u64 *reads);

/* ring.c */
size_t th_ofi_ring_region_bytes(u32 size);
bool th_ofi_ring_open(struct th_ofi *o);
void th_ofi_ring_join(struct th_ofi *o);
ssize_t th_ofi_ring_push_locked(struct th_ofi *o, u32 peer, const void *msg,
				size_t len);
ssize_t th_ofi_ring_read_locked(struct th_ofi *o, u64 *reads);
void th_ofi_ring_report(const struct th_ofi *o);
void th_ofi_ring_close(struct th_ofi *o);

/* bell.c */
void *th_ofi_bell_rings(struct th_ofi_bell *b);
bool th_ofi_bell_has_rings(const struct th_ofi_bell *b);
u32 th_ofi_bell_seq(const struct th_ofi_bell *b);
void th_ofi_bell_open(struct th_ofi *o, u64 *nonce);
void th_ofi_bell_join(struct th_ofi *o, const u64 *nonces);
void th_ofi_bell_unlink(struct th_ofi *o);
void th_ofi_bell_ring(struct th_ofi *o, u32 peer);
void th_ofi_bell_ring_self(struct th_ofi *o);
bool th_ofi_bell_arm(struct th_ofi *o);
void th_ofi_bell_disarm(struct th_ofi *o);
bool th_ofi_bell_sleep(struct th_ofi *o, const struct timespec *nap);
bool th_ofi_bell_rang_for_waiters(struct th_ofi *o);
bool th_ofi_bell_waits(const struct th_ofi *o);
int th_ofi_bell_wait(struct th_ofi *o, u32 *woken,
		     const struct timespec *deadline);
void th_ofi_bell_close(struct th_ofi *o);

/* handoff.c */
/* "thbellfd": what a proof is of, so that it proves nothing else */
#define TH_OFI_HANDOFF_MAGIC	0x64666c6c65626874ULL

/**
 * struct th_ofi_handoff_req - what a rank sends with its region's
 * descriptor to a peer's socket (handoff.c)
 * @magic: TH_OFI_HANDOFF_MAGIC
 * @from: the sender's rank
 * @to: the listener's rank
 * @nonce: the listener's random name, as the boot round gave it
 * @proof: th_ofi_handoff_proof(): SipHash-2-4, under the job's key, of
 *	the four fields above
 */
struct th_ofi_handoff_req {
	u64 magic;
	u32 from;
	u32 to;
	u64 nonce;
	u64 proof;
};

struct sockaddr_un;
u64 th_ofi_handoff_proof(const struct th_ofi *o, u32 from, u32 to, u64 nonce);
socklen_t th_ofi_handoff_addr(struct sockaddr_un *sa, u64 nonce);
bool th_ofi_handoff_send_req(int sock, const struct th_ofi_handoff_req *r,
			     int fd);
int th_ofi_handoff_listen(struct th_ofi *o, u64 *nonce);
void th_ofi_handoff_run(struct th_ofi *o, int region, size_t bytes,
			const u64 *nonces, int *fds, u64 timeout_ns);
void th_ofi_handoff_close(struct th_ofi *o);
void th_ofi_net_waiter_sleeps(struct th_ofi *o);
void th_ofi_wake(struct th_ofi *o);
void th_ofi_net_report(struct th_ofi *o);
int th_ofi_net_mr_reg(struct th_ofi *o, void *addr, u64 len, u32 access,
		      struct th_ofi_mr **mr);
void th_ofi_net_mr_free(struct th_ofi_mr *mr);

/* wire.c: the deliveries, both ends */
u64 th_ofi_id(u32 gen, u32 slot);
int th_ofi_op_alloc_locked(struct th_ofi *o);
int th_ofi_op_find_locked(struct th_ofi *o, u64 id, u8 state);
void th_ofi_hdr_init(struct th_ofi *o, struct th_ofi_hdr *h, u8 type,
		     const struct th_eng_remote_op *op, u64 id);
void th_ofi_remote_post(void *arg, struct th_eng_chain *chain,
			const struct th_eng_remote_op *op);
void th_ofi_remote_fail_ct(void *arg, const void *domain, u32 node, u32 vport,
			   u16 ct, u64 rkey, u64 off, u64 len);
void th_ofi_recv(struct th_ofi *o, const struct th_ofi_hdr *h,
		 const void *payload, size_t len);
void th_ofi_rma_landed(struct th_ofi *o, u64 data);
void th_ofi_xfer_done(struct th_ofi *o, struct th_ofi_xfer *x, int status);
void th_ofi_peer_dead(struct th_ofi *o, u32 peer, const char *why);
void th_ofi_expire(struct th_ofi *o);
void th_ofi_chain_posted(void *arg, struct th_eng_vport *ev,
			 const struct th_nic_desc *descs, u32 n);
void th_ofi_orphans_end(struct th_ofi *o);
void th_ofi_watch_forget(struct th_ofi *o, u32 vport);
void th_ofi_ping(struct th_ofi *o);
bool th_ofi_ack_take(u32 peer, u64 *id);

/* trigger.c: chains' first deliveries as libfabric triggered sends */
bool th_ofi_offload_arm(void *arg, struct th_eng_chain *chain,
			struct th_eng_vport *ev, u32 ct, u64 threshold,
			u64 success, const struct th_eng_remote_op *op);
void th_ofi_offload_counter(void *arg, struct th_eng_vport *ev, u32 ct,
			    u64 success, u64 failure);
void th_ofi_offload_disarm(void *arg, struct th_eng_chain *chain, int status,
			   struct th_eng_mr_ref *hold);
void th_ofi_trig_done(struct th_ofi *o, u32 slot);
void th_ofi_trig_kick(struct th_ofi *o);
void th_ofi_trig_close(struct th_ofi *o);
void th_ofi_trig_report(struct th_ofi *o);

/* auth.c: sealed headers, unguessable ids and keys */
enum th_ofi_prf_use {
	TH_OFI_PRF_MR_KEY = 1,	/* the libfabric key of the n-th region */
	TH_OFI_PRF_OP_GEN,	/* the first generation of op slot n */
};
u64 th_ofi_siphash(const u8 key[TH_OFI_KEY_LEN], const void *data, size_t len);
void th_ofi_address(const struct th_ofi *o, struct th_ofi_hdr *h, u32 peer);
void th_ofi_seal(const struct th_ofi *o, struct th_ofi_hdr *h, u32 peer);
bool th_ofi_authentic(struct th_ofi *o, const struct th_ofi_hdr *h, size_t len);
bool th_ofi_well_formed(struct th_ofi *o, const struct th_ofi_hdr *h,
			size_t len);
int th_ofi_auth_init(struct th_ofi *o, u8 key[TH_OFI_KEY_LEN]);
u64 th_ofi_unguessable(const struct th_ofi *o, u32 what, u64 n);
void th_ofi_auth_report(struct th_ofi *o);

/* provider.c */
struct th_ofi *th_ofi_get(void);

#endif /* TH_OFI_H */
