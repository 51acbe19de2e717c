/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note OR MIT */
/*
 * th_nic_netlink.h - th_nic's generic netlink family: management and
 * observability of the emulated NIC nodes (thctl stat, vports, counters,
 * fault, monitor).  Resolve the family by TH_NL_FAMILY_NAME; its version
 * is TH_NL_VERSION, also sent as TH_NL_A_VERSION in every reply.
 * Validation is strict: a request carrying an attribute no request takes
 * (a reply's), an unknown one, or one of the wrong size is refused with
 * -EINVAL, as are reserved header bits.  New attributes and statistics
 * are only ever appended.
 */
#ifndef _UAPI_LINUX_TH_NIC_NETLINK_H
#define _UAPI_LINUX_TH_NIC_NETLINK_H

#define TH_NL_FAMILY_NAME	"th_nic"
#define TH_NL_VERSION		1
#define TH_NL_MCGRP_EVENTS	"events"

/**
 * enum th_nl_cmd - commands
 * @TH_NL_CMD_UNSPEC: unused
 * @TH_NL_CMD_NODE_GET: a node (TH_NL_A_NODE), or dump every node: its
 *	id, live vports, node count and statistics (TH_NL_A_STATS: its
 *	destroyed vports' and its live ones')
 * @TH_NL_CMD_VPORT_GET: a vport (TH_NL_A_NODE, TH_NL_A_VPORT), or dump
 *	every vport (of TH_NL_A_NODE if given).  Anyone sees node, vport,
 *	owner pid and uid and state; the owner (same effective uid) or a
 *	holder of CAP_NET_ADMIN also sees domain, ring sizes, pending chains,
 *	MRs, pinned bytes and statistics
 * @TH_NL_CMD_COUNTERS_GET: a vport's counters (TH_NL_A_NODE,
 *	TH_NL_A_VPORT, optional TH_NL_A_CT_FIRST and TH_NL_A_CT_COUNT,
 *	default all): the owner's or CAP_NET_ADMIN's only (-EPERM)
 * @TH_NL_CMD_FAULT_GET: a node's fault injection (TH_NL_A_NODE), or dump
 *	every node's
 * @TH_NL_CMD_FAULT_SET: set a node's fault injection (TH_NL_A_NODE and
 *	TH_NL_A_FAULT); needs CAP_NET_ADMIN
 * @TH_NL_CMD_EVENT: a notification on the TH_NL_MCGRP_EVENTS group
 *	(TH_NL_A_EVENT and what it names)
 * @__TH_NL_CMD_MAX: one past the last
 */
enum th_nl_cmd {
	TH_NL_CMD_UNSPEC,
	TH_NL_CMD_NODE_GET,
	TH_NL_CMD_VPORT_GET,
	TH_NL_CMD_COUNTERS_GET,
	TH_NL_CMD_FAULT_GET,
	TH_NL_CMD_FAULT_SET,
	TH_NL_CMD_EVENT,
	__TH_NL_CMD_MAX,
};

#define TH_NL_CMD_MAX (__TH_NL_CMD_MAX - 1)

/**
 * enum th_nl_attr - top-level attributes
 * @TH_NL_A_UNSPEC: unused
 * @TH_NL_A_VERSION: u32, TH_NL_VERSION, in every reply
 * @TH_NL_A_NODE: u32, a node
 * @TH_NL_A_NODES: u32, the fabric's node count
 * @TH_NL_A_VPORT: u32, a vport index on its node
 * @TH_NL_A_VPORTS: u32, live vports on a node
 * @TH_NL_A_PID: u32, the process that created the vport, in the reader's
 *	pid namespace (0 if it is not visible there)
 * @TH_NL_A_UID: u32, the user the vport is charged to, in the reader's
 *	user namespace
 * @TH_NL_A_STATE: u8, enum th_nl_vport_state
 * @TH_NL_A_DOMAIN: u64, a label of the vport's domain, the same for
 *	vports of one domain while it exists; not a capability
 * @TH_NL_A_SQ_ENTRIES: u32, SQ slots
 * @TH_NL_A_CQ_ENTRIES: u32, CQ entries
 * @TH_NL_A_PENDING: u32, chains accepted and not completed
 * @TH_NL_A_MRS: u32, registered memory regions
 * @TH_NL_A_PINNED: u64, bytes of those regions
 * @TH_NL_A_STATS: nested, enum th_nl_stat
 * @TH_NL_A_CT_FIRST: u32, the first counter to read
 * @TH_NL_A_CT_COUNT: u32, how many counters to read
 * @TH_NL_A_COUNTERS: nested, one TH_NL_A_COUNTER per counter
 * @TH_NL_A_COUNTER: nested, enum th_nl_ct
 * @TH_NL_A_FAULT: nested, enum th_nl_fault
 * @TH_NL_A_EVENT: u8, enum th_nl_event
 * @TH_NL_A_ERROR: s32, an event's error (a negative errno)
 * @TH_NL_A_PAD: padding of 64-bit attributes
 * @__TH_NL_A_MAX: one past the last
 */
enum th_nl_attr {
	TH_NL_A_UNSPEC,
	TH_NL_A_VERSION,
	TH_NL_A_NODE,
	TH_NL_A_NODES,
	TH_NL_A_VPORT,
	TH_NL_A_VPORTS,
	TH_NL_A_PID,
	TH_NL_A_UID,
	TH_NL_A_STATE,
	TH_NL_A_DOMAIN,
	TH_NL_A_SQ_ENTRIES,
	TH_NL_A_CQ_ENTRIES,
	TH_NL_A_PENDING,
	TH_NL_A_MRS,
	TH_NL_A_PINNED,
	TH_NL_A_STATS,
	TH_NL_A_CT_FIRST,
	TH_NL_A_CT_COUNT,
	TH_NL_A_COUNTERS,
	TH_NL_A_COUNTER,
	TH_NL_A_FAULT,
	TH_NL_A_EVENT,
	TH_NL_A_ERROR,
	TH_NL_A_PAD,
	__TH_NL_A_MAX,
};

#define TH_NL_A_MAX (__TH_NL_A_MAX - 1)

/**
 * enum th_nl_vport_state - a vport's state
 * @TH_NL_VPORT_OK: running
 * @TH_NL_VPORT_ERROR: in the error state after a remote access violation:
 *	its chains failed, its doorbell refuses; only destroying it ends it
 * @TH_NL_VPORT_DEAD: being destroyed
 */
enum th_nl_vport_state {
	TH_NL_VPORT_OK,
	TH_NL_VPORT_ERROR,
	TH_NL_VPORT_DEAD,
};

/**
 * enum th_nl_stat - statistics (nested in TH_NL_A_STATS), each a u64
 * @TH_NL_STAT_UNSPEC: unused
 * @TH_NL_STAT_DOORBELLS: doorbells rung
 * @TH_NL_STAT_CHAINS_POSTED: chains accepted
 * @TH_NL_STAT_CHAINS_REFUSED: chains refused at the doorbell
 * @TH_NL_STAT_CHAINS_FIRED: chains fired (each round of a re-arming one)
 * @TH_NL_STAT_CHAINS_DONE: chains (rounds) completed successfully
 * @TH_NL_STAT_CHAINS_FAILED: chains completed with an error
 * @TH_NL_STAT_CHAINS_CANCELLED: chains cancelled
 * @TH_NL_STAT_CHAINS_DEFERRED: times a chain was handed to the NIC's own
 *	context past a caller's budget
 * @TH_NL_STAT_DESCS_RUN: descriptors executed
 * @TH_NL_STAT_CQES: completion entries written
 * @TH_NL_STAT_BYTES_PUT: bytes PUT or written inline to another vport
 * @TH_NL_STAT_BYTES_GOT: bytes read by GET
 * @TH_NL_STAT_BYTES_COPIED: bytes written by COPY and local inline writes
 * @TH_NL_STAT_BYTES_REDUCED: operand bytes the ALU read
 * @TH_NL_STAT_VIOLATIONS: remote access violations
 * @TH_NL_STAT_FAULTS_DROPPED: deliveries fault injection lost
 * @TH_NL_STAT_FAULTS_DELAYED: deliveries fault injection held back
 * @TH_NL_STAT_RETRIES: lost deliveries sent again
 * @TH_NL_STAT_TIMEOUTS: descriptors failed with -ETIMEDOUT, their last
 *	retry lost
 * @TH_NL_STAT_PAD: padding
 * @TH_NL_STAT_ROUNDS_PARKED: rounds of re-arming chains held back until
 *	the host's next action on the vport (its rearm_rounds were spent)
 * @__TH_NL_STAT_MAX: one past the last
 */
enum th_nl_stat {
	TH_NL_STAT_UNSPEC,
	TH_NL_STAT_DOORBELLS,
	TH_NL_STAT_CHAINS_POSTED,
	TH_NL_STAT_CHAINS_REFUSED,
	TH_NL_STAT_CHAINS_FIRED,
	TH_NL_STAT_CHAINS_DONE,
	TH_NL_STAT_CHAINS_FAILED,
	TH_NL_STAT_CHAINS_CANCELLED,
	TH_NL_STAT_CHAINS_DEFERRED,
	TH_NL_STAT_DESCS_RUN,
	TH_NL_STAT_CQES,
	TH_NL_STAT_BYTES_PUT,
	TH_NL_STAT_BYTES_GOT,
	TH_NL_STAT_BYTES_COPIED,
	TH_NL_STAT_BYTES_REDUCED,
	TH_NL_STAT_VIOLATIONS,
	TH_NL_STAT_FAULTS_DROPPED,
	TH_NL_STAT_FAULTS_DELAYED,
	TH_NL_STAT_RETRIES,
	TH_NL_STAT_TIMEOUTS,
	TH_NL_STAT_PAD,
	TH_NL_STAT_ROUNDS_PARKED,
	__TH_NL_STAT_MAX,
};

#define TH_NL_STAT_MAX (__TH_NL_STAT_MAX - 1)

/**
 * enum th_nl_ct - one counter (nested in TH_NL_A_COUNTER)
 * @TH_NL_CT_UNSPEC: unused
 * @TH_NL_CT_INDEX: u32, its index
 * @TH_NL_CT_SUCCESS: u64, its success value
 * @TH_NL_CT_FAILURE: u64, its failure value
 * @TH_NL_CT_PAD: padding
 * @__TH_NL_CT_MAX: one past the last
 */
enum th_nl_ct {
	TH_NL_CT_UNSPEC,
	TH_NL_CT_INDEX,
	TH_NL_CT_SUCCESS,
	TH_NL_CT_FAILURE,
	TH_NL_CT_PAD,
	__TH_NL_CT_MAX,
};

#define TH_NL_CT_MAX (__TH_NL_CT_MAX - 1)

/**
 * enum th_nl_fault - fault injection on what a node sends (nested in
 *	TH_NL_A_FAULT); absent attributes of FAULT_SET are 0, except
 *	TH_NL_FAULT_VPORT, which is then every vport
 * @TH_NL_FAULT_UNSPEC: unused
 * @TH_NL_FAULT_DROP_PPM: u32, deliveries lost, per million
 * @TH_NL_FAULT_DELAY_PPM: u32, deliveries held back, per million; with
 *	TH_NL_FAULT_DROP_PPM at most 10^6
 * @TH_NL_FAULT_DELAY_NS: u64, how long, at most 10^8
 * @TH_NL_FAULT_RETRY_NS: u64, the sender's timeout before it sends a lost
 *	delivery again, at most 10^8
 * @TH_NL_FAULT_RETRIES: u32, sent again at most this many times (at most
 *	16); then the descriptor fails with -ETIMEDOUT
 * @TH_NL_FAULT_VPORT: u32, only what this vport sends
 * @TH_NL_FAULT_SEED: u64, the generator's seed
 * @TH_NL_FAULT_PAD: padding
 * @__TH_NL_FAULT_MAX: one past the last
 */
enum th_nl_fault {
	TH_NL_FAULT_UNSPEC,
	TH_NL_FAULT_DROP_PPM,
	TH_NL_FAULT_DELAY_PPM,
	TH_NL_FAULT_DELAY_NS,
	TH_NL_FAULT_RETRY_NS,
	TH_NL_FAULT_RETRIES,
	TH_NL_FAULT_VPORT,
	TH_NL_FAULT_SEED,
	TH_NL_FAULT_PAD,
	__TH_NL_FAULT_MAX,
};

#define TH_NL_FAULT_MAX (__TH_NL_FAULT_MAX - 1)

/**
 * enum th_nl_event - what a TH_NL_CMD_EVENT notification says
 * @TH_NL_EVENT_UNSPEC: unused
 * @TH_NL_EVENT_VPORT_NEW: a vport was created (node, vport, pid, uid)
 * @TH_NL_EVENT_VPORT_DEL: a vport was destroyed (node, vport)
 * @TH_NL_EVENT_VPORT_ERROR: a vport entered the error state (node, vport)
 * @TH_NL_EVENT_FAULT: a descriptor failed after its last retry was lost
 *	(node, vport, TH_NL_A_ERROR)
 */
enum th_nl_event {
	TH_NL_EVENT_UNSPEC,
	TH_NL_EVENT_VPORT_NEW,
	TH_NL_EVENT_VPORT_DEL,
	TH_NL_EVENT_VPORT_ERROR,
	TH_NL_EVENT_FAULT,
};

#endif /* _UAPI_LINUX_TH_NIC_NETLINK_H */
