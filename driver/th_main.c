// SPDX-License-Identifier: GPL-2.0
/*
 * th_main.c - th_nic.ko module entry: the parameters (the ABI's limits),
 * and bringing the fabric and its character devices up and down.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/build_bug.h>

#include "th_loc.h"
#include "th_abi_check.h"

static unsigned int nodes = TH_ENG_DEF_NODES;
module_param(nodes, uint, 0444);
MODULE_PARM_DESC(nodes, "number of emulated NIC nodes (/dev/th_nic<N>)");

static unsigned int max_vports = TH_ENG_DEF_VPORTS;
module_param(max_vports, uint, 0444);
MODULE_PARM_DESC(max_vports, "vports per node");

static unsigned int max_counters = TH_ENG_DEF_COUNTERS;
module_param(max_counters, uint, 0444);
MODULE_PARM_DESC(max_counters, "CP counters per vport");

static unsigned int max_sq_entries = TH_ENG_DEF_SQ;
module_param(max_sq_entries, uint, 0444);
MODULE_PARM_DESC(max_sq_entries, "largest SQ, a power of two");

static unsigned int max_cq_entries = TH_ENG_DEF_CQ;
module_param(max_cq_entries, uint, 0444);
MODULE_PARM_DESC(max_cq_entries, "largest CQ, a power of two");

static unsigned int max_chain = TH_ENG_DEF_CHAIN;
module_param(max_chain, uint, 0444);
MODULE_PARM_DESC(max_chain, "descriptors per chain");

static unsigned int max_mrs = TH_ENG_DEF_MRS;
module_param(max_mrs, uint, 0444);
MODULE_PARM_DESC(max_mrs, "memory regions per vport");

static unsigned long long max_mr_size = TH_ENG_DEF_MR_SIZE;
module_param(max_mr_size, ullong, 0444);
MODULE_PARM_DESC(max_mr_size, "bytes per memory region");

static unsigned int max_user_vports = TH_ENG_DEF_USER_VPORTS;
module_param(max_user_vports, uint, 0444);
MODULE_PARM_DESC(max_user_vports, "vports one user may hold on the fabric");

static unsigned int max_user_chains = TH_ENG_DEF_USER_CHAINS;
module_param(max_user_chains, uint, 0444);
MODULE_PARM_DESC(max_user_chains,
		 "accepted, uncompleted chains one user may have");

static unsigned int rearm_rounds = TH_ENG_DEF_REARM_ROUNDS;
module_param(rearm_rounds, uint, 0444);
MODULE_PARM_DESC(rearm_rounds,
		 "rounds a re-arming chain runs per host action on its vport");

static struct th_fabric *th_fabric;

static int __init th_nic_init(void)
{
	struct th_eng_limits lim = {
		.nodes		= nodes,
		.max_vports	= max_vports,
		.max_counters	= max_counters,
		.max_sq_entries	= max_sq_entries,
		.max_cq_entries	= max_cq_entries,
		.max_chain	= max_chain,
		.max_mrs	= max_mrs,
		.max_mr_size	= max_mr_size,
		.max_user_vports = max_user_vports,
		.max_user_chains = max_user_chains,
		.rearm_rounds	= rearm_rounds,
	};
	struct th_fabric *fab;
	int ret;

#define TH_ABI_CHECK(cond) BUILD_BUG_ON(!(cond))
	TH_NIC_ABI_CHECKS();
#undef TH_ABI_CHECK

	fab = th_fabric_create(&lim);
	if (IS_ERR(fab))
		return PTR_ERR(fab);
	ret = th_dev_register(fab);
	if (ret) {
		th_fabric_destroy(fab);
		return ret;
	}
	ret = th_netlink_register(fab);
	if (ret) {
		th_dev_unregister(fab);
		th_fabric_destroy(fab);
		return ret;
	}
	th_fabric = fab;
	return 0;
}

/* Only reachable when no node is open: each open file pins the module. */
static void __exit th_nic_exit(void)
{
	th_netlink_unregister();
	th_dev_unregister(th_fabric);
	th_fabric_destroy(th_fabric);
}

module_init(th_nic_init);
module_exit(th_nic_exit);
MODULE_DESCRIPTION("th_nic: a software triggered-operation NIC");
MODULE_LICENSE("GPL");
MODULE_VERSION(TH_VERSION);
