// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * th_engine.c - engine setup, vport lifetime, ring layout, CQ writes and
 * the execution contexts chains run in.
 */
#include "th_engine_int.h"

/* Ring header: each index on its own cache line, slots after them. */
#define TH_RING_HEAD_OFF	0
#define TH_RING_TAIL_OFF	64
#define TH_RING_MASK_OFF	128
#define TH_RING_ENTRIES_OFF	132
#define TH_RING_SLOTS_OFF	256

static bool th_eng_is_pow2(u32 v)
{
	return v && !(v & (v - 1));
}

/* The default limits, for both providers (Documentation/uapi.rst, "Limits"). */
void th_eng_limits_default(struct th_eng_limits *lim)
{
	lim->nodes = TH_ENG_DEF_NODES;
	lim->max_vports = TH_ENG_DEF_VPORTS;
	lim->max_counters = TH_ENG_DEF_COUNTERS;
	lim->max_sq_entries = TH_ENG_DEF_SQ;
	lim->max_cq_entries = TH_ENG_DEF_CQ;
	lim->max_chain = TH_ENG_DEF_CHAIN;
	lim->max_mrs = TH_ENG_DEF_MRS;
	lim->max_mr_size = TH_ENG_DEF_MR_SIZE;
	lim->max_user_vports = TH_ENG_DEF_USER_VPORTS;
	lim->max_user_chains = TH_ENG_DEF_USER_CHAINS;
	lim->rearm_rounds = TH_ENG_DEF_REARM_ROUNDS;
}

int th_eng_init(struct th_eng *eng, const struct th_eng_ops *ops, void *fabric,
		const struct th_eng_limits *lim)
{
	if (!lim->nodes || lim->nodes > TH_ENG_MAX_NODES ||
	    !lim->max_vports || lim->max_vports > TH_ENG_MAX_VPORTS ||
	    !lim->max_counters || lim->max_counters > TH_ENG_MAX_COUNTERS ||
	    !th_eng_ring_size_valid(lim->max_sq_entries, TH_ENG_MAX_RING) ||
	    !th_eng_ring_size_valid(lim->max_cq_entries, TH_ENG_MAX_RING) ||
	    !lim->max_chain || lim->max_chain > TH_ENG_MAX_CHAIN ||
	    lim->max_chain > lim->max_sq_entries ||
	    !lim->max_mrs || lim->max_mrs > TH_ENG_MAX_MRS ||
	    !lim->max_mr_size ||
	    !lim->max_user_vports || lim->max_user_vports > TH_ENG_MAX_USER ||
	    !lim->max_user_chains || lim->max_user_chains > TH_ENG_MAX_USER ||
	    lim->rearm_rounds > TH_ENG_MAX_REARM_ROUNDS)
		return -EINVAL;
	eng->ops = ops;
	eng->fabric = fabric;
	eng->lim = *lim;
	if (!eng->lim.rearm_rounds)
		eng->lim.rearm_rounds = TH_ENG_DEF_REARM_ROUNDS;
	eng->budget_chains = TH_ENG_BUDGET_CHAINS;
	eng->budget_bytes = TH_ENG_BUDGET_BYTES;
	eng->slice = TH_ENG_SLICE;
	/* undone by th_eng_fini() */
	return th_eng_nodes_init(eng);
}

bool th_eng_ring_size_valid(u32 entries, u32 max)
{
	return th_eng_is_pow2(entries) && entries <= max;
}

/*
 * The layout of a ring mapping, shared by both providers; returns its size
 * in bytes (the caller rounds up to pages).
 */
u64 th_eng_ring_layout(u32 entries, u32 slot_size,
		       struct th_nic_ring_offsets *off)
{
	memset(off, 0, sizeof(*off));
	off->head = TH_RING_HEAD_OFF;
	off->tail = TH_RING_TAIL_OFF;
	off->ring_mask = TH_RING_MASK_OFF;
	off->ring_entries = TH_RING_ENTRIES_OFF;
	off->slots = TH_RING_SLOTS_OFF;
	return TH_RING_SLOTS_OFF + (u64)entries * slot_size;
}

static void th_eng_ring_setup(struct th_eng_ring *r, void *mem, u32 entries)
{
	u8 *base = mem;

	r->head = (u32 *)(base + TH_RING_HEAD_OFF);
	r->tail = (u32 *)(base + TH_RING_TAIL_OFF);
	r->slots = base + TH_RING_SLOTS_OFF;
	r->entries = entries;
	r->mask = entries - 1;
	r->next = 0;
	*r->head = 0;
	*r->tail = 0;
	*(u32 *)(base + TH_RING_MASK_OFF) = r->mask;
	*(u32 *)(base + TH_RING_ENTRIES_OFF) = entries;
}

static u32 th_eng_bits_for(u32 n)
{
	u32 bits = 0;

	while ((1U << bits) < n)
		bits++;
	return bits;
}

void th_eng_user_init(struct th_eng_user *user)
{
	th_atomic_set(&user->vports, 0);
	th_atomic_set(&user->chains, 0);
	th_atomic_set(&user->touches, 0);
}

/*
 * Charge one vport to @user: -ENOSPC once the user holds max_user_vports
 * (whatever nodes they are on), so that one user cannot take every vport
 * of the fabric.
 */
static int th_eng_user_charge_vport(struct th_eng *eng, struct th_eng_user *user)
{
	if ((u32)th_atomic_inc_return(&user->vports) > eng->lim.max_user_vports) {
		th_atomic_dec(&user->vports);
		return -ENOSPC;
	}
	return 0;
}

/*
 * @cfg comes from th_eng_cmd_vport_config(); @sq_mem and @cq_mem hold its
 * sq_bytes and cq_bytes, zeroed; @cts its ct_bytes, zeroed.  They stay the
 * provider's, as do @domain and @user, which must outlive the vport.
 */
int th_eng_vport_init(struct th_eng_vport *vp, struct th_eng *eng, u32 node,
		      u32 index, const struct th_eng_vport_config *cfg,
		      void *sq_mem, void *cq_mem, struct th_nic_ct *cts,
		      const void *domain, struct th_eng_user *user)
{
	const struct th_eng_limits *lim = &eng->lim;
	u32 i;
	int ret;

	if (node >= lim->nodes || index >= lim->max_vports || !domain || !user)
		return -EINVAL;
	ret = th_eng_user_charge_vport(eng, user);
	if (ret)
		return ret;

	memset(vp, 0, sizeof(*vp));
	vp->eng = eng;
	vp->node = node;
	vp->index = index;
	vp->domain = domain;
	vp->user = user;
	vp->cts = cts;
	ret = -ENOMEM;
	vp->pending = th_zalloc(sizeof(*vp->pending) * lim->max_counters);
	if (!vp->pending)
		goto err_uncharge;
	vp->order = th_zalloc(sizeof(*vp->order) * lim->max_counters);
	if (!vp->order)
		goto err_free_pending;
	vp->mrs = th_zalloc(sizeof(*vp->mrs) * lim->max_mrs);
	if (!vp->mrs)
		goto err_free_pending;
	if (eng->timing) {
		vp->ct_time = th_zalloc(sizeof(*vp->ct_time) * lim->max_counters);
		if (!vp->ct_time)
			goto err_free_mrs;
	}
	for (i = 0; i < lim->max_counters; i++) {
		th_list_init(&vp->pending[i]);
		th_list_init(&vp->order[i].waiting);
	}
	th_list_init(&vp->rearming);
	th_list_init(&vp->rearm_parked);
	th_list_init(&vp->chain_pool[0]);
	th_list_init(&vp->chain_pool[1]);
	vp->mr_key_shift = th_eng_bits_for(lim->max_mrs);
	th_eng_ring_setup(&vp->sq, sq_mem, cfg->sq_entries);
	th_eng_ring_setup(&vp->cq, cq_mem, cfg->cq_entries);
	th_lock_init(&vp->lock);
	th_mutex_init(&vp->sq_lock);
	return 0;

err_free_mrs:
	th_free(vp->mrs);
err_free_pending:
	th_free(vp->order);
	th_free(vp->pending);
err_uncharge:
	th_atomic_dec(&user->vports);
	return ret;
}

/*
 * Mark @vp dead and move its pending chains to @ctx as cancelled.  From
 * here on nothing fires on it and its MRs no longer resolve; chains already
 * running stop at their next descriptor or slice.  The caller runs @ctx,
 * then waits for th_eng_vport_idle().
 */
void th_eng_vport_kill(struct th_eng_vport *vp, struct th_eng_ctx *ctx)
{
	th_lock(&vp->lock);
	vp->dead = true;
	th_eng_chain_fail_pending_locked(vp, ctx, -ECANCELED);
	/* parked rounds run now, see the vport dead and end cancelled */
	th_eng_rearm_release_locked(vp, ctx);
	/* CT_WAIT and poll waiters must see that the vport is gone */
	vp->eng->ops->wake(vp);
	th_unlock(&vp->lock);
}

/* True when no chain of @vp runs and no operation uses one of its MRs. */
bool th_eng_vport_idle(struct th_eng_vport *vp)
{
	bool idle;
	u32 i;

	th_lock(&vp->lock);
	idle = !vp->running;
	for (i = 0; idle && i < vp->eng->lim.max_mrs; i++)
		if (vp->mrs[i].lkey && vp->mrs[i].inflight)
			idle = false;
	th_unlock(&vp->lock);
	return idle;
}

/*
 * Take @vp down once its provider unpublished it (no new peer finds it):
 * cancel what is pending (peers waiting on its puts see failures), let the
 * provider wait until no peer holds it and none of its chains runs,
 * release its MRs, and free the engine's state.  The provider frees the
 * memory it supplied afterwards.
 */
void th_eng_vport_destroy(struct th_eng_vport *vp)
{
	const struct th_eng_ops *ops = vp->eng->ops;
	struct th_eng_ctx ctx;
	void *priv;
	u32 i;

	th_eng_ctx_init(&ctx, vp->eng);
	th_eng_vport_kill(vp, &ctx);
	th_eng_ctx_run(&ctx);
	ops->quiesce(vp);

	for (i = 0; i < vp->eng->lim.max_mrs; i++) {
		if (!vp->mrs[i].lkey)
			continue;
		priv = vp->mrs[i].priv;
		vp->mrs[i].lkey = 0;
		if (priv && ops->mr_free)
			ops->mr_free(vp->eng->fabric, priv);
	}
	th_atomic_dec(&vp->user->vports);
	th_eng_fault_vport_gone(vp);
	th_eng_chain_pool_drain(vp);
	th_free(vp->ct_time);
	th_free(vp->mrs);
	th_free(vp->order);
	th_free(vp->pending);
	th_mutex_destroy(&vp->sq_lock);
	th_lock_destroy(&vp->lock);
}

void th_eng_ctx_init(struct th_eng_ctx *ctx, struct th_eng *eng)
{
	ctx->eng = eng;
	th_list_init(&ctx->ready);
	ctx->ran = 0;
	ctx->bytes = 0;
	/* a host's call happens at the calling host's clock */
	ctx->stamp = eng->timing ? eng->timing->host_now() : 0;
}

/*
 * NIC time (Documentation/security.rst "NIC time").  Rounds of re-arming
 * chains are the one kind of NIC work no host call asked for: a chain
 * whose round advances its own counter fires again by itself, forever,
 * and past a call's budget that work runs in the provider's context,
 * charged to no one.  So each re-arming chain runs at most
 * lim.rearm_rounds rounds between two host actions on its vport; the
 * next round parks on the vport (counted in rounds_parked, traced) and
 * runs in the context of the host's next action, which pays for it.
 * Nothing is lost: the parked round keeps its place, its CQ room and
 * its threshold.
 */

/* Parked rounds of @vp to @ctx, each with a fresh allowance of rounds. */
void th_eng_rearm_release_locked(struct th_eng_vport *vp, struct th_eng_ctx *ctx)
	__must_hold(&vp->lock)
{
	struct th_eng_chain *chain;

	while (!th_list_empty(&vp->rearm_parked)) {
		chain = th_eng_chain_from_node(vp->rearm_parked.next);
		th_list_del(&chain->node);
		chain->touch_seen = (u32)th_atomic_read(&vp->user->touches);
		chain->rounds = 1;
		/* timed mode: it waited for the host's call, whose time it is */
		if (ctx->eng->timing && ctx->stamp > chain->vnow)
			chain->vnow = ctx->stamp;
		/* a cancel stopped it while parked: end it without running */
		if (chain->stop && !chain->status)
			chain->status = -ECANCELED;
		/* it runs in its counter's turn, as any fired chain does */
		th_eng_chain_order_fire_locked(ctx, chain);
	}
}

/*
 * A host action on @vp: a doorbell, a counter update, CT_WAIT or CANCEL
 * (th_cmd.c).  Every re-arming chain of the vport's user may run
 * rearm_rounds rounds again, not only this vport's: a plan's rounds are
 * started by its host on one vport and carried to the user's others by
 * deliveries (a round trip between two vports, a tree of them), which
 * are no host action of theirs.  The rounds parked on @vp run in @ctx,
 * the caller's; those parked on the user's other vports, at the next
 * host action on each.
 */
void th_eng_host_touch(struct th_eng_vport *vp, struct th_eng_ctx *ctx)
{
	th_atomic_inc_return(&vp->user->touches);
	th_lock(&vp->lock);
	th_eng_rearm_release_locked(vp, ctx);
	th_unlock(&vp->lock);
}

/*
 * Count a fired round of re-arming @chain against its allowance; true
 * when it is spent and the round was parked instead.  A round the
 * provider's network already sent (offloaded) is counted, never parked.
 */
static bool th_eng_rearm_park_locked(struct th_eng_chain *chain)
	__must_hold(&chain->vp->lock)
{
	struct th_eng_vport *vp = chain->vp;
	u32 touches = (u32)th_atomic_read(&vp->user->touches);

	if (chain->touch_seen != touches) {
		chain->touch_seen = touches;
		chain->rounds = 0;
	}
	if (chain->rounds < vp->eng->lim.rearm_rounds || chain->offloaded) {
		chain->rounds++;
		return false;
	}
	vp->stats.rounds_parked++;
	th_trace_park(vp->node, vp->index, chain->seq, chain->cookie,
		      chain->rounds);
	th_list_add_tail(&vp->rearm_parked, &chain->node);
	return true;
}

/* A provider's worker re-queues a deferred chain into its own context. */
void th_eng_ctx_add(struct th_eng_ctx *ctx, struct th_eng_chain *chain)
{
	th_list_add_tail(&ctx->ready, &chain->node);
}

struct th_eng_chain *th_eng_chain_from_node(struct th_list *node)
{
	return th_container_of(node, struct th_eng_chain, node);
}

struct th_list *th_eng_chain_node(struct th_eng_chain *chain)
{
	return &chain->node;
}

/* The vport a chain was posted on: the queue a provider defers it to. */
struct th_eng_vport *th_eng_chain_vport(struct th_eng_chain *chain)
{
	return chain->vp;
}

/* True once @ctx ran its share of chains or bytes. */
bool th_eng_ctx_out_of_budget(const struct th_eng_ctx *ctx)
{
	return ctx->ran >= ctx->eng->budget_chains ||
	       ctx->bytes >= ctx->eng->budget_bytes;
}

static void th_eng_ctx_defer(struct th_eng_ctx *ctx, struct th_eng_chain *chain)
{
	struct th_eng_vport *vp = chain->vp;

	th_lock(&vp->lock);
	vp->stats.chains_deferred++;
	th_unlock(&vp->lock);
	ctx->eng->ops->defer(ctx->eng->fabric, chain);
}

static void th_eng_ctx_drain(struct th_eng_ctx *ctx, bool may_defer)
{
	struct th_eng_chain *chain;
	u64 ns;

	may_defer = may_defer && ctx->eng->ops->defer;
	while (!th_list_empty(&ctx->ready)) {
		chain = th_eng_chain_from_node(ctx->ready.next);
		th_list_del(&chain->node);
		if (may_defer && th_eng_ctx_out_of_budget(ctx)) {
			th_eng_ctx_defer(ctx, chain);
			continue;
		}
		ctx->ran++;
		while (!th_eng_exec_chain(ctx, chain)) {
			/*
			 * a delivery to a remote node: the provider's from now
			 * until th_eng_remote_done(), which may come at once
			 * on another thread, so nothing here touches it after
			 */
			if (chain->remote == TH_REMOTE_READY) {
				chain->remote = TH_REMOTE_POSTED;
				ctx->eng->ops->remote_post(ctx->eng->fabric,
							   chain, &chain->rop);
				break;
			}
			/* fault injection holds it back: the provider's timer */
			if (chain->park_ns) {
				ns = chain->park_ns;
				chain->park_ns = 0;
				ctx->eng->ops->park(ctx->eng->fabric, chain, ns);
				break;
			}
			/* stopped between two slices of a long operation */
			if (may_defer) {
				th_eng_ctx_defer(ctx, chain);
				break;
			}
			ctx->bytes = 0;
			th_cond_resched();
		}
	}
}

/*
 * Run fired chains in order until none is left.  Chains they fire join the
 * tail of the same list, so a cascade through the fabric is a loop, not a
 * recursion.  Past the budget (chains and bytes), chains, and a long
 * operation between two slices, go to the provider's deferral hook, so one
 * caller never runs unbounded work.
 */
void th_eng_ctx_run(struct th_eng_ctx *ctx)
{
	th_eng_ctx_drain(ctx, true);
}

/* The same, ignoring the budget: for a provider that cannot defer. */
void th_eng_ctx_run_all(struct th_eng_ctx *ctx)
{
	th_eng_ctx_drain(ctx, false);
}

/* Take @chain off its pending list's books and queue it on @ctx. */
void th_eng_ctx_fire_locked(struct th_eng_ctx *ctx, struct th_eng_chain *chain,
			    int status)
	__must_hold(&chain->vp->lock)
{
	chain->status = status;
	chain->vp->running++;
	chain->vp->stats.chains_fired++;
	th_trace_fire(chain->vp->node, chain->vp->index, chain->seq, chain->cookie,
		      status);
	if (ctx->eng->timing)
		th_eng_timing_fire(ctx, chain);
	if (!status && chain->stride && th_eng_rearm_park_locked(chain))
		return;
	/* an offloaded delivery that went: the provider's until it ends */
	if (chain->offloaded && th_eng_offload_disarm_locked(chain, status))
		return;
	/* to @ctx now, or behind the running chain of its counter */
	th_eng_chain_order_fire_locked(ctx, chain);
}

/* CQ entries userspace has not consumed yet, as far as it says. */
u32 th_eng_cq_used_locked(struct th_eng_vport *vp)
	__must_hold(&vp->lock)
{
	u32 used = vp->cq.next - th_load_acquire(vp->cq.head);

	/* A head moved past the tail or too far back: trust only the bound. */
	return used > vp->cq.entries ? vp->cq.entries : used;
}

void th_eng_cq_write_locked(struct th_eng_vport *vp, const struct th_nic_cqe *cqe)
	__must_hold(&vp->lock)
{
	struct th_nic_cqe *slot = vp->cq.slots;

	memcpy(&slot[vp->cq.next & vp->cq.mask], cqe, sizeof(*cqe));
	vp->cq.next++;
	th_store_release(vp->cq.tail, vp->cq.next);
	vp->stats.cqes++;
}

/* poll(2) readiness: the CQ holds an entry userspace has not consumed. */
bool th_eng_cq_ready(struct th_eng_vport *vp)
{
	return th_load_acquire(vp->cq.tail) != th_load_acquire(vp->cq.head);
}

void th_eng_stats_read(struct th_eng_vport *vp, struct th_eng_stats *st)
{
	th_lock(&vp->lock);
	*st = vp->stats;
	th_unlock(&vp->lock);
}

void th_eng_vport_info(struct th_eng_vport *vp, struct th_eng_vport_info *info)
{
	u32 i;

	memset(info, 0, sizeof(*info));
	th_lock(&vp->lock);
	info->state = vp->dead ? 2 : vp->error ? 1 : 0;
	info->pending = vp->accepted;
	info->mrs = vp->mr_count;
	for (i = 0; i < vp->eng->lim.max_mrs; i++)
		if (vp->mrs[i].lkey)
			info->pinned += vp->mrs[i].len;
	info->sq_entries = vp->sq.entries;
	info->cq_entries = vp->cq.entries;
	th_unlock(&vp->lock);
}

/* @sum += @st, field by field (every field is a u64 count). */
void th_eng_stats_add(struct th_eng_stats *sum, const struct th_eng_stats *st)
{
	u64 *d = (u64 *)sum;
	const u64 *v = (const u64 *)st;
	size_t i;

	for (i = 0; i < sizeof(*st) / sizeof(u64); i++)
		d[i] += v[i];
}
