/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * thverbs/verbs.h - libthverbs: the verbs-style API of the th_nic triggered-
 * operation NIC, over the kernel module (/dev/th_nic*) or the in-process
 * provider that runs the same engine inside the calling process: devices,
 * domains, vports and memory, chains, counters, statistics and errors.
 * The collectives are thverbs/coll.h's, the bootstrap thverbs/boot.h's,
 * the scheduler and placer thverbs/sched.h's and thverbs/place.h's;
 * thverbs/thverbs.h includes them all.
 *
 * Conventions: every call returns 0 (or a count) on success and a negative
 * errno on failure; constructors return NULL and set errno.  Objects are
 * opaque.  A vport may be used from several threads, except that chains
 * are built per thread (struct th_chain is not shared).
 */
#ifndef THVERBS_H
#define THVERBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/th_nic.h>

#include <thverbs/api.h>

TH_API_BEGIN

struct th_device;
struct th_context;
struct th_domain;
struct th_vport;
struct th_mr;
struct th_chain;

/* ---- devices -------------------------------------------------------- */

/*
 * List the nodes of @provider: "kernel" (/dev/th_nic*), "inproc" (an
 * emulated fabric inside this process), or "auto"/NULL: the environment
 * variable TH_PROVIDER if set, else "kernel" when /dev/th_nic0 exists,
 * else "inproc".  The inproc fabric has TH_INPROC_NODES nodes (default 16).
 */
struct th_device **th_device_list_get(const char *provider, int *num);
void th_device_list_free(struct th_device **list);
const char *th_device_name(const struct th_device *dev);
const char *th_device_provider(const struct th_device *dev);
uint32_t th_device_node(const struct th_device *dev);

struct th_context *th_device_open(struct th_device *dev);
/* -EBUSY while vports of @ctx exist. */
int th_device_close(struct th_context *ctx);

/* The node's identity and limits: the QUERY ioctl's answer. */
int th_device_query(struct th_context *ctx, struct th_nic_query *attr);

/* ---- domains ----------------------------------------------------------- */

/*
 * A domain is the set of vports that may reach each other (PUT, GET,
 * remote inline writes and counters); from outside, its vports look like
 * vports that do not exist.  A vport created without one joins its user's
 * own domain: one user's programs reach each other, no other user's do.
 * A job's launcher allocates a domain and hands it to its ranks: on the
 * kernel provider it is a file descriptor (th_domain_fd()), inherited or
 * passed over a UNIX socket and taken up with th_domain_import(); thrun
 * does this for its jobs (th_boot_domain_fd()).  In-process domains exist
 * only inside the process.
 */
struct th_domain *th_domain_alloc(struct th_context *ctx);
/* Take up a domain descriptor; @fd stays the caller's (it is duplicated). */
struct th_domain *th_domain_import(struct th_context *ctx, int fd);
/* The domain's descriptor (kernel provider), or -EOPNOTSUPP. */
int th_domain_fd(const struct th_domain *d);
/* Drop the handle; vports created in the domain keep it alive. */
int th_domain_dealloc(struct th_domain *d);

/* ---- vports and memory ---------------------------------------------- */

/**
 * struct th_vport_attr - vport creation parameters
 * @sq_entries: SQ slots, a power of two; 0 for the maximum
 * @cq_entries: CQ entries, a power of two; 0 for the maximum
 * @domain: the domain to join, from the same provider; NULL for the
 *	user's own
 * @comp_mask: which optional fields after it are set; none exist in this
 *	version, so 0.  A later version appends fields, each with a
 *	TH_VPORT_ATTR_* bit; a library older than the header refuses a bit it
 *	does not know with EOPNOTSUPP instead of ignoring the field.
 *	Zero-initialise the struct ({0} or designated initialisers).
 */
struct th_vport_attr {
	uint32_t sq_entries;
	uint32_t cq_entries;
	struct th_domain *domain;
	uint32_t comp_mask;
};

struct th_vport *th_vport_create(struct th_context *ctx,
				 const struct th_vport_attr *attr);
int th_vport_destroy(struct th_vport *vp);
uint32_t th_vport_node(const struct th_vport *vp);
uint32_t th_vport_index(const struct th_vport *vp);
/* A descriptor that polls readable while the CQ holds entries. */
int th_vport_node_fd(const struct th_vport *vp);

/* @access: TH_NIC_ACCESS_* */
struct th_mr *th_mr_reg(struct th_vport *vp, void *addr, size_t len,
			unsigned int access);
int th_mr_dereg(struct th_mr *mr);
/* The key a peer names the region with (struct th_remote.rkey). */
uint64_t th_mr_rkey(const struct th_mr *mr);
/* The key this vport's own descriptors name it with (raw descriptors). */
uint32_t th_mr_lkey(const struct th_mr *mr);
void *th_mr_addr(const struct th_mr *mr);
size_t th_mr_length(const struct th_mr *mr);

/**
 * struct th_remote - remote memory, as exchanged between peers
 * @node: the target's node
 * @vport: the target's vport index
 * @rkey: the target MR's remote key (th_mr_rkey())
 * @off: byte offset in that MR
 */
struct th_remote {
	uint32_t node;
	uint32_t vport;
	uint64_t rkey;
	uint64_t off;
};

/* ---- chains ----------------------------------------------------------- */

/* Per-descriptor flags of the builder calls. */
enum th_chain_flags {
	TH_CHAIN_SIGNAL	= 1 << 0,	/* write a CQ entry when it completes */
};

/* No remote counter: pass as @remote_ct. */
#define TH_NO_CT	(-1)

struct th_chain *th_chain_create(void);
void th_chain_destroy(struct th_chain *c);
void th_chain_reset(struct th_chain *c);
unsigned int th_chain_length(const struct th_chain *c);

/*
 * Fire when counter @ct reaches @threshold (0: at once); @cookie names it.
 * May be called at any time before the post; the last call wins.
 */
int th_chain_trigger(struct th_chain *c, uint16_t ct, uint64_t threshold,
		     uint64_t cookie);
/* Add 1 to local counter @ct when the last added descriptor completes. */
int th_chain_comp_ct(struct th_chain *c, uint16_t ct);

int th_chain_put(struct th_chain *c, const struct th_mr *src, uint64_t off,
		 const struct th_remote *dst, uint64_t len, int remote_ct,
		 unsigned int flags);
int th_chain_get(struct th_chain *c, const struct th_mr *dst, uint64_t off,
		 const struct th_remote *src, uint64_t len, unsigned int flags);
int th_chain_copy(struct th_chain *c, const struct th_mr *src, uint64_t soff,
		  const struct th_mr *dst, uint64_t doff, uint64_t len,
		  unsigned int flags);
int th_chain_write_inline(struct th_chain *c, const struct th_mr *dst,
			  uint64_t off, const void *data, unsigned int len,
			  unsigned int flags);
int th_chain_write_inline_remote(struct th_chain *c, const struct th_remote *dst,
				 const void *data, unsigned int len,
				 int remote_ct, unsigned int flags);
/*
 * dst = src[0] op ... op src[nsrc-1] over @count elements (with
 * @accumulate, dst op src[0] op ...), evaluated left to right.
 */
int th_chain_reduce(struct th_chain *c, unsigned int op, unsigned int dtype,
		    uint32_t count, const struct th_mr *dst, uint64_t doff,
		    unsigned int nsrc, const struct th_mr *const *src,
		    const uint64_t *soff, bool accumulate, unsigned int flags);
/* Sources i = 0 .. nsrc-1 at @base + i * @stride in @src. */
int th_chain_reduce_strided(struct th_chain *c, unsigned int op,
			    unsigned int dtype, uint32_t count,
			    const struct th_mr *dst, uint64_t doff,
			    const struct th_mr *src, uint64_t base,
			    uint64_t stride, unsigned int nsrc, bool accumulate,
			    unsigned int flags);
int th_chain_ct_inc(struct th_chain *c, uint16_t ct, int64_t delta,
		    unsigned int flags);
int th_chain_ct_set(struct th_chain *c, uint16_t ct, uint64_t value,
		    unsigned int flags);
int th_chain_notify(struct th_chain *c, uint64_t imm, unsigned int flags);
/*
 * End the chain with REARM: it runs once per round, each time its trigger
 * counter gains @stride more, with no new post; a round that finds no room
 * in the CQ for its entries ends it with -EOVERFLOW.  th_cancel() ends it
 * (a running round first finishes).  Must be the chain's last descriptor.
 */
int th_chain_rearm(struct th_chain *c, uint64_t stride, unsigned int flags);
int th_chain_nop(struct th_chain *c, unsigned int flags);

/*
 * Post @c on @vp: copied into the SQ and the doorbell rung.  The chain may
 * be reset and reused at once.  -EINVAL: the NIC refused it (nothing was
 * installed; th_post_error() says which descriptor and why); -EAGAIN: the
 * CQ has no room for its completions yet (poll and retry); -ENOSPC: a
 * limit (CQ size, the user's pending chains); -ENOTCONN: the vport is in
 * the error state after a remote access violation (destroy it).
 */
int th_post_chain(struct th_vport *vp, struct th_chain *c);
/*
 * Batched posting: th_stage_chain() copies @c into the SQ without telling
 * the NIC; th_ring_doorbell() hands over everything staged in one call.
 * Chains are taken in order up to the first one refused; it and those
 * staged after it are withdrawn (th_post_error() names the descriptor).
 * th_post_chain() is a stage and a ring.
 */
int th_stage_chain(struct th_vport *vp, struct th_chain *c);
int th_ring_doorbell(struct th_vport *vp);
/*
 * After a post the NIC refused: the position of the offending descriptor
 * in its chain (for -EINVAL) and the reason (enum th_nic_refusal); either
 * pointer may be NULL.  -ENOENT when the last post on @vp was not refused.
 */
int th_post_error(const struct th_vport *vp, unsigned int *desc_index,
		  unsigned int *reason);
/* A message for a refusal reason (enum th_nic_refusal). */
const char *th_refusal_str(unsigned int reason);

/* Take up to @max completion entries; returns how many. */
int th_poll_cq(struct th_vport *vp, struct th_nic_cqe *out, int max);

/* ---- counters --------------------------------------------------------- */

/* From the mapped counter page: no system call. */
int th_ct_read(const struct th_vport *vp, uint16_t ct, uint64_t *success,
	       uint64_t *failure);
/*
 * 0 once success >= threshold; -EIO on failure, -ETIMEDOUT, -EINTR.  How
 * the thread waits (spins on the counter page, sleeps) is the process's
 * wait policy: th_wait_policy_set() below.
 */
int th_ct_wait(struct th_vport *vp, uint16_t ct, uint64_t threshold,
	       uint64_t timeout_ns);

/*
 * The wait policy of every wait in this process (th_ct_wait(), and so the
 * collectives' waits), in the spirit of OMP_WAIT_POLICY: SPIN watches the
 * counter page until the counter or the timeout, PASSIVE sleeps in the
 * provider at once, AUTO (the default) spins for at most @spin_us while
 * fewer threads spin than the process has CPUs, then sleeps.  The
 * environment sets the start value (TH_WAIT_POLICY=auto|spin|passive,
 * TH_SPIN_US); th_wait_policy_set() returns -EINVAL for a policy it does
 * not know or @spin_us above 10 s.
 */
enum th_wait_policy {
	TH_WAIT_AUTO,
	TH_WAIT_SPIN,
	TH_WAIT_PASSIVE,
};

int th_wait_policy_set(enum th_wait_policy policy, uint64_t spin_us);
/* The policy now, and (@spin_us not NULL) AUTO's spin bound. */
enum th_wait_policy th_wait_policy_get(uint64_t *spin_us);
/* "auto", "spin", "passive" to a policy (0) or -EINVAL; and back (NULL). */
int th_wait_policy_parse(const char *name, enum th_wait_policy *policy);
const char *th_wait_policy_name(enum th_wait_policy policy);
int th_ct_set(struct th_vport *vp, uint16_t ct, uint64_t success,
	      uint64_t failure);
int th_ct_inc(struct th_vport *vp, uint16_t ct, int64_t delta);
int th_ct_fail(struct th_vport *vp, uint16_t ct, uint64_t delta);

/* Cancel pending chains: all, or those with @cookie.  Returns the count. */
int th_cancel_all(struct th_vport *vp);
int th_cancel(struct th_vport *vp, uint64_t cookie);

/* ---- statistics and fault injection ---------------------------------------- */

/**
 * struct th_stats - what a vport counted, or a node in total (its live
 * vports and the ones destroyed); the fields of th_nic_netlink.h's
 * TH_NL_STAT_*, which thctl shows for th_nic.ko's nodes
 * @doorbells: doorbells rung
 * @chains_posted: chains accepted; @chains_refused: refused at the doorbell
 * @chains_fired: chains fired (each round of a re-arming one)
 * @chains_done: completed (rounds, for re-arming chains); @chains_failed:
 *	completed with an error; @chains_cancelled: cancelled
 * @chains_deferred: times a chain was handed to the NIC's own context
 * @descs_run: descriptors executed; @cqes: completion entries written
 * @bytes_put: bytes PUT or written inline to another vport;
 *	@bytes_got: read by GET; @bytes_copied: by COPY and local inline
 *	writes; @bytes_reduced: operand bytes the ALU read
 * @violations: remote access violations
 * @faults_dropped, @faults_delayed: deliveries fault injection lost or
 *	held back; @retries: lost ones sent again; @timeouts: descriptors
 *	failed with -ETIMEDOUT, their last retry lost
 */
struct th_stats {
	uint64_t doorbells;
	uint64_t chains_posted;
	uint64_t chains_refused;
	uint64_t chains_fired;
	uint64_t chains_done;
	uint64_t chains_failed;
	uint64_t chains_cancelled;
	uint64_t chains_deferred;
	uint64_t descs_run;
	uint64_t cqes;
	uint64_t bytes_put;
	uint64_t bytes_got;
	uint64_t bytes_copied;
	uint64_t bytes_reduced;
	uint64_t violations;
	uint64_t faults_dropped;
	uint64_t faults_delayed;
	uint64_t retries;
	uint64_t timeouts;
};

/*
 * The in-process fabric's statistics; on th_nic.ko, -EOPNOTSUPP: read
 * them over generic netlink (thctl stat).
 */
int th_vport_stats(struct th_vport *vp, struct th_stats *st);
int th_node_stats(struct th_context *ctx, struct th_stats *st);

#define TH_FAULT_ANY_VPORT	0xffffffffu

/**
 * struct th_fault - fault injection on what one node's NIC sends
 * @drop_ppm: deliveries (a PUT's data, a GET's request, a remote inline
 *	write) lost, per million; a lost one is sent again after @retry_ns
 * @delay_ppm: deliveries held back by @delay_ns, per million
 *	(@drop_ppm + @delay_ppm at most 10^6)
 * @delay_ns: how long (at most 100 ms)
 * @retry_ns: the sender's timeout before it sends a lost delivery again
 *	(at most 100 ms)
 * @retries: how many times at most (at most 16); when the last is lost
 *	too, the descriptor fails with -ETIMEDOUT and its chain's failure
 *	values are raised, on its targets' counters too
 * @vport: only what this vport of the node sends; TH_FAULT_ANY_VPORT: all
 * @seed: the same deliveries, in the same order, meet the same faults
 *
 * Rates of 0 turn it off.  Nothing is ever delivered twice.
 */
struct th_fault {
	uint32_t drop_ppm;
	uint32_t delay_ppm;
	uint64_t delay_ns;
	uint64_t retry_ns;
	uint32_t retries;
	uint32_t vport;
	uint64_t seed;
};

/*
 * The in-process fabric's fault injection on @ctx's node: -EINVAL out of
 * range; on th_nic.ko, -EOPNOTSUPP: set it over generic netlink (thctl
 * fault set, which needs CAP_NET_ADMIN).
 */
int th_fault_set(struct th_context *ctx, const struct th_fault *f);
int th_fault_get(struct th_context *ctx, struct th_fault *f);

/* ---- errors ----------------------------------------------------------- */

/*
 * A message for an errno of either sign: the negative ones this library
 * returns, or a positive one from errno; th_strerror(-EINVAL) and
 * th_strerror(EINVAL) say the same.
 */
const char *th_strerror(int err);

TH_API_END

/*
 * This header declared the collectives and k-nomial trees (now
 * thverbs/coll.h) and brought in the bootstrap (thverbs/boot.h) before
 * they had headers of their own; programs written then still build.  New
 * code includes the headers it uses, or thverbs/thverbs.h for all of them;
 * THVERBS_VERBS_ONLY leaves the two out (the library's own core builds so).
 */
#ifndef THVERBS_VERBS_ONLY
#include <thverbs/coll.h>
#include <thverbs/boot.h>
#endif

#endif /* THVERBS_H */
