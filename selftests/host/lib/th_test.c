// SPDX-License-Identifier: GPL-2.0 OR MIT
/* th_test.c - helpers shared by the host tests (see th_test.h). */
#include <string.h>
#include <unistd.h>

#include "th_test.h"

struct th_eng_limits th_t_limits(u32 nodes)
{
	struct th_eng_limits lim;

	th_eng_limits_default(&lim);
	lim.nodes = nodes;
	return lim;
}

static struct th_ipf_vport *th_t_vport_make(struct th_ipf *f, u32 node,
					    struct th_ipf_domain *d,
					    u32 sq_entries, u32 cq_entries,
					    int *err)
{
	struct th_nic_vport_create req = {
		.size = sizeof(req), .sq_entries = sq_entries,
		.cq_entries = cq_entries,
	};
	struct th_ipf_vport *vp;

	*err = th_ipf_vport_create(f, node, d, &req, &vp);
	return *err ? NULL : vp;
}

struct th_ipf_vport *th_t_vport(struct th_ipf *f, u32 node, u32 sq_entries,
				u32 cq_entries, int *err)
{
	return th_t_vport_make(f, node, NULL, sq_entries, cq_entries, err);
}

struct th_ipf_vport *th_t_vport_in(struct th_ipf *f, u32 node,
				   struct th_ipf_domain *d, int *err)
{
	return th_t_vport_make(f, node, d, 0, 0, err);
}

int th_t_mr_reg(struct th_ipf_vport *vp, void *addr, u64 len, u32 access,
		u32 *lkey, u64 *rkey)
{
	struct th_nic_mr_reg req = {
		.size = sizeof(req), .vport = vp->ev.index, .access = access,
		.addr = (u64)(uintptr_t)addr, .length = len,
	};
	int ret = th_ipf_mr_reg(vp, &req);

	if (!ret) {
		*lkey = req.lkey;
		if (rkey)
			*rkey = req.rkey;
	}
	return ret;
}

int th_t_mr_dereg(struct th_ipf_vport *vp, u32 lkey)
{
	struct th_nic_mr_dereg req = {
		.size = sizeof(req), .vport = vp->ev.index, .lkey = lkey,
	};

	return th_eng_cmd_mr_dereg(&vp->ev, &req);
}

int th_t_ct_update(struct th_ipf_vport *vp, u32 idx, enum th_eng_ct_op op,
		   u64 value, u64 failure)
{
	struct th_nic_ct_update req = {
		.size = sizeof(req), .vport = vp->ev.index, .ct = idx,
		.value = value, .failure = failure,
	};

	if (op == TH_ENG_CT_FAIL)
		req.flags = TH_NIC_CT_F_FAILURE;
	return th_eng_cmd_ct_update(&vp->ev, op == TH_ENG_CT_SET, &req);
}

int th_t_ct_wait(struct th_ipf_vport *vp, u32 idx, u64 threshold,
		 u64 timeout_ns, u64 *success, u64 *failure)
{
	struct th_nic_ct_wait req = {
		.size = sizeof(req), .vport = vp->ev.index, .ct = idx,
		.threshold = threshold, .timeout_ns = timeout_ns,
	};
	int ret = th_ipf_ct_wait(vp, &req);

	*success = req.success;
	*failure = req.failure;
	return ret;
}

int th_t_cancel(struct th_ipf_vport *vp, bool by_cookie, u64 cookie,
		u32 *cancelled)
{
	struct th_nic_cancel req = {
		.size = sizeof(req), .vport = vp->ev.index, .cookie = cookie,
		.flags = by_cookie ? TH_NIC_CANCEL_F_COOKIE : 0,
	};
	int ret = th_eng_cmd_cancel(&vp->ev, &req);

	*cancelled = req.cancelled;
	return ret;
}

int th_t_doorbell(struct th_ipf_vport *vp, struct th_nic_doorbell *db)
{
	memset(db, 0, sizeof(*db));
	db->size = sizeof(*db);
	db->vport = vp->ev.index;
	return th_eng_cmd_doorbell(&vp->ev, db);
}

static u32 *th_t_u32(void *mem, u32 off)
{
	return (u32 *)((char *)mem + off);
}

int th_t_post(struct th_ipf_vport *vp, const struct th_nic_desc *d, u32 n,
	      struct th_nic_doorbell *db)
{
	u32 *tailp = th_t_u32(vp->sq_mem, vp->cfg.sq_off.tail);
	u32 mask = *th_t_u32(vp->sq_mem, vp->cfg.sq_off.ring_mask);
	struct th_nic_desc *slots = (void *)((char *)vp->sq_mem +
					     vp->cfg.sq_off.slots);
	u32 tail = *tailp, i;
	struct th_nic_doorbell scratch;

	for (i = 0; i < n; i++)
		slots[(tail + i) & mask] = d[i];
	__atomic_store_n(tailp, tail + n, __ATOMIC_RELEASE);
	return th_t_doorbell(vp, db ? db : &scratch);
}

u32 th_t_cq_drain(struct th_ipf_vport *vp, struct th_nic_cqe *out, u32 max)
{
	u32 *headp = th_t_u32(vp->cq_mem, vp->cfg.cq_off.head);
	u32 *tailp = th_t_u32(vp->cq_mem, vp->cfg.cq_off.tail);
	u32 mask = *th_t_u32(vp->cq_mem, vp->cfg.cq_off.ring_mask);
	struct th_nic_cqe *slots = (void *)((char *)vp->cq_mem +
					    vp->cfg.cq_off.slots);
	u32 head = *headp, tail = __atomic_load_n(tailp, __ATOMIC_ACQUIRE), n = 0;

	while (head != tail && n < max)
		out[n++] = slots[head++ & mask];
	__atomic_store_n(headp, head, __ATOMIC_RELEASE);
	return n;
}

u32 th_t_sq_head(struct th_ipf_vport *vp)
{
	return __atomic_load_n(th_t_u32(vp->sq_mem, vp->cfg.sq_off.head),
			       __ATOMIC_ACQUIRE);
}

u64 th_t_ct(struct th_ipf_vport *vp, u32 idx)
{
	return __atomic_load_n(&vp->cts[idx].success, __ATOMIC_ACQUIRE);
}

u64 th_t_ct_fail(struct th_ipf_vport *vp, u32 idx)
{
	return __atomic_load_n(&vp->cts[idx].failure, __ATOMIC_ACQUIRE);
}

void th_t_stats_when_done(struct th_ipf_vport *vp, u64 chains, unsigned int ms,
			  struct th_eng_stats *st)
{
	unsigned int i;

	for (i = 0; i <= ms; i++) {
		th_eng_stats_read(&vp->ev, st);
		if (st->chains_done >= chains)
			return;
		usleep(1000);
	}
}
