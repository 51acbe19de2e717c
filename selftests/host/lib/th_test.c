// SPDX-License-Identifier: GPL-2.0 OR MIT
/* th_test.c - helpers shared by the host tests (see th_test.h). */
#include <string.h>

#include "th_test.h"

struct th_eng_limits th_t_limits(u32 nodes)
{
	struct th_eng_limits lim = {
		.nodes		= nodes,
		.max_vports	= TH_ENG_DEF_VPORTS,
		.max_counters	= TH_ENG_DEF_COUNTERS,
		.max_sq_entries	= TH_ENG_DEF_SQ,
		.max_cq_entries	= TH_ENG_DEF_CQ,
		.max_chain	= TH_ENG_DEF_CHAIN,
		.max_mrs	= TH_ENG_DEF_MRS,
		.max_mr_size	= TH_ENG_DEF_MR_SIZE,
	};
	return lim;
}

static u32 *th_t_u32(void *mem, u32 off)
{
	return (u32 *)((char *)mem + off);
}

int th_t_post(struct th_ipf_vport *vp, const struct th_nic_desc *d, u32 n,
	      struct th_eng_db_result *res)
{
	u32 *tailp = th_t_u32(vp->sq_mem, vp->sq_off.tail);
	u32 mask = *th_t_u32(vp->sq_mem, vp->sq_off.ring_mask);
	struct th_nic_desc *slots = (void *)((char *)vp->sq_mem + vp->sq_off.entries);
	u32 tail = *tailp, i;
	struct th_eng_db_result scratch;

	for (i = 0; i < n; i++)
		slots[(tail + i) & mask] = d[i];
	__atomic_store_n(tailp, tail + n, __ATOMIC_RELEASE);
	return th_ipf_doorbell(vp, res ? res : &scratch);
}

u32 th_t_cq_drain(struct th_ipf_vport *vp, struct th_nic_cqe *out, u32 max)
{
	u32 *headp = th_t_u32(vp->cq_mem, vp->cq_off.head);
	u32 *tailp = th_t_u32(vp->cq_mem, vp->cq_off.tail);
	u32 mask = *th_t_u32(vp->cq_mem, vp->cq_off.ring_mask);
	struct th_nic_cqe *slots = (void *)((char *)vp->cq_mem + vp->cq_off.entries);
	u32 head = *headp, tail = __atomic_load_n(tailp, __ATOMIC_ACQUIRE), n = 0;

	while (head != tail && n < max)
		out[n++] = slots[head++ & mask];
	__atomic_store_n(headp, head, __ATOMIC_RELEASE);
	return n;
}

u32 th_t_sq_head(struct th_ipf_vport *vp)
{
	return __atomic_load_n(th_t_u32(vp->sq_mem, vp->sq_off.head),
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
