// SPDX-License-Identifier: GPL-2.0
/*
 * th_fabric.c - the in-kernel fabric: the table that turns a fabric address
 * (node, vport) into a vport, the engine's provider hooks, and the worker
 * that runs chains an execution context handed over.
 *
 * Where things run: a chain runs in the context that fired it (the
 * doorbell or counter ioctl of the process that posted or advanced it,
 * including deliveries from other nodes it cascades into), up to the
 * engine's budget; past it, on this fabric's workqueue.  Nothing here
 * sleeps with a spinlock held; see Documentation/locking.rst.
 */
#include <linux/random.h>
#include <linux/slab.h>

#include "th_loc.h"

struct th_vport __rcu **th_fabric_slot(struct th_fabric *fab, u32 node,
				       u32 index)
{
	return &fab->vports[(size_t)node * fab->eng.lim.max_vports + index];
}

/* Any context: RCU lookup, then a reference unless the vport is going. */
static struct th_eng_vport *th_fabric_vport_get(void *fabric, u32 node,
						u32 index)
{
	struct th_fabric *fab = fabric;
	struct th_vport *vp;

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
	struct th_vport *vp = th_vport_from_ev(ev);

	wake_up_all(&vp->wq);
	wake_up_all(&vp->owner->poll_wq);
}

static void th_fabric_defer(void *fabric, struct th_eng_chain *chain)
{
	struct th_fabric *fab = fabric;

	spin_lock(&fab->defer_lock);
	th_list_add_tail(&fab->deferred, th_eng_chain_node(chain));
	spin_unlock(&fab->defer_lock);
	queue_work(fab->wq, &fab->defer_work);
}

static void th_fabric_defer_work(struct work_struct *work)
{
	struct th_fabric *fab = container_of(work, struct th_fabric, defer_work);
	struct th_eng_ctx ctx;

	th_eng_ctx_init(&ctx, &fab->eng);
	spin_lock(&fab->defer_lock);
	th_list_splice_tail(&ctx.ready, &fab->deferred);
	spin_unlock(&fab->defer_lock);
	/* past its budget, this context defers again and the work requeues */
	th_eng_ctx_run(&ctx);
}

static u32 th_fabric_random_u32(void *fabric)
{
	return get_random_u32();
}

static const struct th_eng_ops th_fabric_ops = {
	.vport_get	= th_fabric_vport_get,
	.vport_put	= th_fabric_vport_put,
	.wake		= th_fabric_wake,
	.defer		= th_fabric_defer,
	.random_u32	= th_fabric_random_u32,
};

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
		goto err_free_fab;
	fab->vports = kvcalloc((size_t)lim->nodes * lim->max_vports,
			       sizeof(*fab->vports), GFP_KERNEL);
	if (!fab->vports)
		goto err_free_nodes;
	fab->wq = alloc_workqueue("th_nic", WQ_UNBOUND, 0);
	if (!fab->wq)
		goto err_free_vports;
	for (i = 0; i < lim->nodes; i++) {
		fab->nodes[i].fab = fab;
		fab->nodes[i].id = i;
		mutex_init(&fab->nodes[i].lock);
	}
	spin_lock_init(&fab->defer_lock);
	th_list_init(&fab->deferred);
	INIT_WORK(&fab->defer_work, th_fabric_defer_work);
	return fab;

err_free_vports:
	kvfree(fab->vports);
err_free_nodes:
	kvfree(fab->nodes);
err_free_fab:
	kfree(fab);
	return ERR_PTR(ret);
}

/* Only once no node is open: every vport, and so every chain, is gone. */
void th_fabric_destroy(struct th_fabric *fab)
{
	destroy_workqueue(fab->wq);
	WARN_ON(!th_list_empty(&fab->deferred));
	kvfree(fab->vports);
	kvfree(fab->nodes);
	kfree(fab);
}
