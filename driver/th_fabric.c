// SPDX-License-Identifier: GPL-2.0
/*
 * th_fabric.c - the in-kernel fabric: the table that turns a fabric address
 * (node, vport) into a vport, the users the per-user limits count, and the
 * engine's provider hooks.
 *
 * Where things run: a chain runs in the context that fired it (the
 * doorbell or counter ioctl of the process that posted or advanced it,
 * including deliveries from other nodes it cascades into), up to the
 * engine's budget of chains and bytes; past it, on the fabric's workqueue,
 * from a work item of the chain's own vport that runs one budget per turn.
 * Turns are per user, not per vport (Documentation/security.rst "NIC
 * time"): at most user_turns work items of one user are queued at once,
 * its other vports with work wait on the user's own list, and a vport
 * whose turn ends hands it to the next of the same user, queued at the
 * workqueue's tail.  So users with work take turns, whatever the number
 * of vports each holds.  Nothing here sleeps with a spinlock held; see
 * Documentation/locking.rst.
 */
#include <linux/random.h>
#include <linux/slab.h>

#include "th_loc.h"

struct th_nic_vport __rcu **th_fabric_slot(struct th_fabric *fab, u32 node,
					   u32 index)
{
	return &fab->vports[(size_t)node * fab->eng.lim.max_vports + index];
}

/* Any context: RCU lookup, then a reference unless the vport is going. */
static struct th_eng_vport *th_fabric_vport_get(void *fabric, u32 node,
						u32 index)
{
	struct th_fabric *fab = fabric;
	struct th_nic_vport *vp;

	if (node >= fab->eng.lim.nodes || index >= fab->eng.lim.max_vports)
		return NULL;
	rcu_read_lock();
	vp = rcu_dereference(*th_fabric_slot(fab, node, index));
	if (vp && !refcount_inc_not_zero(&vp->refs))
		vp = NULL;
	rcu_read_unlock();
	return vp ? &vp->ev : NULL;
}

static void th_fabric_vport_put(void *fabric, struct th_eng_vport *ev)
{
	th_vport_put(th_vport_from_ev(ev));
}

/* Called under the vport's engine lock: wake_up() only takes the queue's. */
static void th_fabric_wake(struct th_eng_vport *ev)
{
	struct th_nic_vport *vp = th_vport_from_ev(ev);

	wake_up_all(&vp->wq);
	wake_up_all(&vp->owner->poll_wq);
}

/* Killable: a task told to die does not wait on a peer's transfer. */
static int th_fabric_wait(struct th_eng_vport *ev,
			  bool (*done)(struct th_eng_vport *ev, void *arg),
			  void *arg)
{
	return wait_event_killable(th_vport_from_ev(ev)->wq, done(ev, arg)) ?
	       -EINTR : 0;
}

static bool th_fabric_vport_quiet(struct th_nic_vport *vp)
{
	return !refcount_read(&vp->refs) && th_eng_vport_idle(&vp->ev);
}

/*
 * @vp has deferred work: give it a turn, or a place in its user's queue
 * when the user holds all its turns.  A vport whose turn is under way
 * sees the new work when the turn ends (th_sched_turn_end()); one that
 * has none (its teardown's kick) stays idle.
 */
static void th_sched_kick(struct th_fabric *fab, struct th_nic_vport *vp)
{
	struct th_user *user = vp->user;
	bool work;

	spin_lock(&user->sched_lock);
	/* never wait on the user's list with nothing to run: teardown */
	spin_lock(&vp->defer_lock);
	work = !th_list_empty(&vp->deferred);
	spin_unlock(&vp->defer_lock);
	if (work && vp->sched_state == TH_SCHED_IDLE) {
		if (user->turns < fab->user_turns) {
			user->turns++;
			vp->sched_state = TH_SCHED_QUEUED;
			queue_work(fab->wq, &vp->run_work);
		} else {
			vp->sched_state = TH_SCHED_WAITING;
			list_add_tail(&vp->sched_link, &user->waiting);
		}
	}
	spin_unlock(&user->sched_lock);
}

/*
 * @vp's turn is over: back to the tail of its user's queue if it has work
 * left, and the user's next waiting vport (maybe @vp) takes the turn, its
 * work item queued behind other users' turns.
 */
static void th_sched_turn_end(struct th_fabric *fab, struct th_nic_vport *vp)
{
	struct th_user *user = vp->user;
	struct th_nic_vport *next;
	bool more;

	spin_lock(&user->sched_lock);
	spin_lock(&vp->defer_lock);
	more = !th_list_empty(&vp->deferred);
	spin_unlock(&vp->defer_lock);
	user->turns--;
	vp->sched_state = TH_SCHED_IDLE;
	if (more) {
		vp->sched_state = TH_SCHED_WAITING;
		list_add_tail(&vp->sched_link, &user->waiting);
	}
	next = list_first_entry_or_null(&user->waiting, struct th_nic_vport,
					sched_link);
	if (next) {
		list_del(&next->sched_link);
		next->sched_state = TH_SCHED_QUEUED;
		user->turns++;
		queue_work(fab->wq, &next->run_work);
	}
	spin_unlock(&user->sched_lock);
}

/*
 * Drop the fabric table's reference, then wait until no peer operation or
 * ioctl holds the vport and none of its chains runs (deferred ones run
 * and see it dead), and its work item is done.
 */
static void th_fabric_quiesce(struct th_eng_vport *ev)
{
	struct th_nic_vport *vp = th_vport_from_ev(ev);
	struct th_fabric *fab = ev->eng->fabric;

	/* parked chains run now and see the vport dead; none parks again */
	spin_lock(&vp->defer_lock);
	vp->unparking = true;
	th_list_splice_tail(&vp->deferred, &vp->parked);
	spin_unlock(&vp->defer_lock);
	th_sched_kick(fab, vp);
	th_vport_put(vp);
	wait_event(vp->wq, th_fabric_vport_quiet(vp));
	cancel_delayed_work_sync(&vp->park_work);
	flush_work(&vp->run_work);
}

/* Queue @chain on its vport and make sure the vport has a turn coming. */
static void th_fabric_defer(void *fabric, struct th_eng_chain *chain)
{
	struct th_fabric *fab = fabric;
	struct th_nic_vport *vp = th_vport_from_ev(th_eng_chain_vport(chain));

	spin_lock(&vp->defer_lock);
	th_list_add_tail(&vp->deferred, th_eng_chain_node(chain));
	spin_unlock(&vp->defer_lock);
	th_sched_kick(fab, vp);
}

/*
 * One turn of a vport: run what it had deferred for one context's budget.
 * Chains that do not fit are deferred again, to the vport's next turn;
 * chains of other vports they fire, to those vports' (of their users).
 */
void th_fabric_run_work(struct work_struct *work)
{
	struct th_nic_vport *vp = container_of(work, struct th_nic_vport, run_work);
	struct th_fabric *fab = vp->ev.eng->fabric;
	struct th_eng_ctx ctx;

	th_eng_ctx_init(&ctx, vp->ev.eng);
	spin_lock(&vp->defer_lock);
	th_list_splice_tail(&ctx.ready, &vp->deferred);
	spin_unlock(&vp->defer_lock);
	th_eng_ctx_run(&ctx);
	th_sched_turn_end(fab, vp);
}

/*
 * Under @vp's defer_lock: parked chains due by @now go to @deferred;
 * returns whether any did, and sets @park_work for the next one.
 */
static bool th_fabric_unpark_due_locked(struct th_fabric *fab,
					struct th_nic_vport *vp, u64 now)
	__must_hold(&vp->defer_lock)
{
	struct th_list *pos, *next;
	struct th_eng_chain *chain;
	u64 soonest = 0, due;
	bool moved = false;

	for (pos = vp->parked.next; pos != &vp->parked; pos = next) {
		next = pos->next;
		chain = th_eng_chain_from_node(pos);
		due = th_eng_chain_due(chain);
		if (due <= now) {
			th_list_del(pos);
			th_list_add_tail(&vp->deferred, pos);
			moved = true;
		} else if (!soonest || due < soonest) {
			soonest = due;
		}
	}
	vp->park_next = soonest;
	if (soonest)
		mod_delayed_work(fab->wq, &vp->park_work,
				 nsecs_to_jiffies(soonest - now) + 1);
	return moved;
}

/* The time of a parked chain came: it joins the vport's deferred work. */
void th_fabric_park_work(struct work_struct *work)
{
	struct th_nic_vport *vp = container_of(to_delayed_work(work),
					   struct th_nic_vport, park_work);
	struct th_fabric *fab = vp->ev.eng->fabric;
	bool moved;

	spin_lock(&vp->defer_lock);
	moved = th_fabric_unpark_due_locked(fab, vp, ktime_get_ns());
	spin_unlock(&vp->defer_lock);
	if (moved)
		th_sched_kick(fab, vp);
}

/*
 * Fault injection holds @chain back for @ns: park it on its vport, and
 * have the vport's delayed work run it then (at once while the vport is
 * being destroyed).
 */
static void th_fabric_park(void *fabric, struct th_eng_chain *chain, u64 ns)
{
	struct th_fabric *fab = fabric;
	struct th_nic_vport *vp = th_vport_from_ev(th_eng_chain_vport(chain));
	u64 now = ktime_get_ns(), due = now + ns;
	bool now_run = false;

	spin_lock(&vp->defer_lock);
	if (vp->unparking) {
		th_list_add_tail(&vp->deferred, th_eng_chain_node(chain));
		now_run = true;
	} else {
		th_eng_chain_set_due(chain, due);
		th_list_add_tail(&vp->parked, th_eng_chain_node(chain));
		if (!vp->park_next || due < vp->park_next) {
			vp->park_next = due;
			mod_delayed_work(fab->wq, &vp->park_work,
					 nsecs_to_jiffies(ns) + 1);
		}
	}
	spin_unlock(&vp->defer_lock);
	if (now_run)
		th_sched_kick(fab, vp);
}

/* The engine's events, on the netlink events group. */
static void th_fabric_notify(struct th_eng_vport *ev, u32 event, int err)
{
	th_netlink_vport_event(th_vport_from_ev(ev),
			       event == TH_ENG_EVENT_ERROR ?
			       TH_NL_EVENT_VPORT_ERROR : TH_NL_EVENT_FAULT, err);
}

static void th_fabric_mr_free(void *fabric, void *priv)
{
	th_pinned_mr_free(priv);
}

static u64 th_fabric_random_u64(void *fabric)
{
	return get_random_u64();
}

static const struct th_eng_ops th_fabric_ops = {
	.vport_get	= th_fabric_vport_get,
	.vport_put	= th_fabric_vport_put,
	.wake		= th_fabric_wake,
	.wait		= th_fabric_wait,
	.quiesce	= th_fabric_quiesce,
	.defer		= th_fabric_defer,
	.mr_free	= th_fabric_mr_free,
	.random_u64	= th_fabric_random_u64,
	.park		= th_fabric_park,
	.notify		= th_fabric_notify,
};

/*
 * The caller's user (effective uid: the identity its permissions are
 * checked as), created on first use; one reference per vport it creates.
 */
struct th_user *th_fabric_user_get(struct th_fabric *fab)
{
	kuid_t uid = current_euid();
	struct th_user *user;

	mutex_lock(&fab->users_lock);
	hash_for_each_possible(fab->users, user, link, __kuid_val(uid)) {
		if (uid_eq(user->uid, uid)) {
			user->refs++;
			goto out;
		}
	}
	user = kzalloc(sizeof(*user), TH_GFP_USER);
	if (user) {
		user->uid = uid;
		user->refs = 1;
		th_eng_user_init(&user->acct);
		spin_lock_init(&user->sched_lock);
		INIT_LIST_HEAD(&user->waiting);
		kref_init(&user->domain.ref);
		user->domain.id = th_domain_next_id();
		hash_add(fab->users, &user->link, __kuid_val(uid));
	}
out:
	mutex_unlock(&fab->users_lock);
	return user;
}

void th_fabric_user_put(struct th_fabric *fab, struct th_user *user)
{
	mutex_lock(&fab->users_lock);
	if (!--user->refs) {
		hash_del(&user->link);
		kfree(user);
	}
	mutex_unlock(&fab->users_lock);
}

struct th_fabric *th_fabric_create(const struct th_eng_limits *lim)
{
	struct th_fabric *fab;
	u32 i;
	int ret;

	fab = kzalloc(sizeof(*fab), GFP_KERNEL);
	if (!fab)
		return ERR_PTR(-ENOMEM);
	ret = th_eng_init(&fab->eng, &th_fabric_ops, fab, lim);
	if (ret)
		goto err_free_fab;
	ret = -ENOMEM;
	fab->nodes = kvcalloc(lim->nodes, sizeof(*fab->nodes), GFP_KERNEL);
	if (!fab->nodes)
		goto err_fini_eng;
	fab->vports = kvcalloc((size_t)lim->nodes * lim->max_vports,
			       sizeof(*fab->vports), GFP_KERNEL);
	if (!fab->vports)
		goto err_free_nodes;
	/* as many vports run at once as there are CPUs, no more */
	fab->user_turns = num_possible_cpus();
	fab->wq = alloc_workqueue("th_nic", WQ_UNBOUND, fab->user_turns);
	if (!fab->wq)
		goto err_free_vports;
	for (i = 0; i < lim->nodes; i++) {
		fab->nodes[i].fab = fab;
		fab->nodes[i].id = i;
		mutex_init(&fab->nodes[i].lock);
	}
	mutex_init(&fab->users_lock);
	hash_init(fab->users);
	return fab;

err_free_vports:
	kvfree(fab->vports);
err_free_nodes:
	kvfree(fab->nodes);
err_fini_eng:
	th_eng_fini(&fab->eng);
err_free_fab:
	kfree(fab);
	return ERR_PTR(ret);
}

/* Only once no node is open: every vport, and so every chain, is gone. */
void th_fabric_destroy(struct th_fabric *fab)
{
	destroy_workqueue(fab->wq);
	WARN_ON(!hash_empty(fab->users));
	mutex_destroy(&fab->users_lock);
	kvfree(fab->vports);
	kvfree(fab->nodes);
	th_eng_fini(&fab->eng);
	kfree(fab);
}
