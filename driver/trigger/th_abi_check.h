/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * th_abi_check.h - the sizes and offsets of include/uapi/linux/th_nic.h that
 * the ABI promises, as one list; the module checks them with BUILD_BUG_ON,
 * libthverbs with _Static_assert.  Define TH_ABI_CHECK(cond) around the use.
 */
#ifndef TH_ABI_CHECK_H
#define TH_ABI_CHECK_H

#include <linux/th_nic.h>

#define TH_NIC_ABI_CHECKS() do {					\
	TH_ABI_CHECK(sizeof(struct th_nic_desc) == TH_NIC_DESC_SIZE);	\
	TH_ABI_CHECK(sizeof(struct th_nic_cqe) == TH_NIC_CQE_SIZE);	\
	TH_ABI_CHECK(sizeof(struct th_nic_ct) == 16);			\
	TH_ABI_CHECK(sizeof(struct th_nic_desc_xfer) == 104);		\
	TH_ABI_CHECK(sizeof(struct th_nic_desc_copy) == 104);		\
	TH_ABI_CHECK(sizeof(struct th_nic_desc_inline) == 104);		\
	TH_ABI_CHECK(sizeof(struct th_nic_desc_reduce) == 104);		\
	TH_ABI_CHECK(sizeof(struct th_nic_desc_ct) == 104);		\
	TH_ABI_CHECK(sizeof(struct th_nic_desc_notify) == 104);		\
	TH_ABI_CHECK(sizeof(struct th_nic_desc_rearm) == 104);		\
	TH_ABI_CHECK(__builtin_offsetof(struct th_nic_desc, threshold) == 8); \
	TH_ABI_CHECK(__builtin_offsetof(struct th_nic_desc, cookie) == 16); \
	TH_ABI_CHECK(__builtin_offsetof(struct th_nic_desc, xfer) == 24); \
	TH_ABI_CHECK(__builtin_offsetof(struct th_nic_desc_reduce, dst_off) == 40); \
	TH_ABI_CHECK(__builtin_offsetof(struct th_nic_desc_inline, data) == 32); \
	TH_ABI_CHECK(__builtin_offsetof(struct th_nic_desc_xfer, rkey) == 8); \
	TH_ABI_CHECK(__builtin_offsetof(struct th_nic_desc_inline, rkey) == 8); \
	TH_ABI_CHECK(__builtin_offsetof(struct th_nic_mr_reg, rkey) == 40); \
	TH_ABI_CHECK(__builtin_offsetof(struct th_nic_cqe, status) == 16); \
	TH_ABI_CHECK(sizeof(struct th_nic_ring_offsets) == 32);		\
	TH_ABI_CHECK(sizeof(struct th_nic_query) == 112);		\
	TH_ABI_CHECK(sizeof(struct th_nic_vport_create) == 152);	\
	TH_ABI_CHECK(sizeof(struct th_nic_vport_destroy) == 16);	\
	TH_ABI_CHECK(sizeof(struct th_nic_mr_reg) == 56);		\
	TH_ABI_CHECK(sizeof(struct th_nic_mr_dereg) == 16);		\
	TH_ABI_CHECK(sizeof(struct th_nic_doorbell) == 32);		\
	TH_ABI_CHECK(sizeof(struct th_nic_ct_wait) == 48);		\
	TH_ABI_CHECK(sizeof(struct th_nic_ct_update) == 32);		\
	TH_ABI_CHECK(sizeof(struct th_nic_cancel) == 24);		\
	TH_ABI_CHECK(sizeof(struct th_nic_domain_create) == 16);	\
} while (0)

#endif /* TH_ABI_CHECK_H */
