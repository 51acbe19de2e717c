/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * th_nic.h - user/kernel ABI of the th_nic triggered-operation NIC model:
 * ioctls, descriptors, ring layout, completion entries and the counter page.
 *
 * Every struct and field says who writes it: (in) userspace, (out) the NIC.
 * Sizes and offsets are pinned by BUILD_BUG_ON in the module and by
 * _Static_assert in libthverbs (driver/trigger/th_abi_check.h).
 *
 * Conventions, io_uring and iommufd style:
 *  - every ioctl struct starts with @size (sizeof the struct the caller was
 *    built against) and has @flags; unknown flags and non-zero reserved
 *    fields give -EINVAL, a smaller @size too; a larger struct is accepted
 *    only if the extra bytes are zero (else -E2BIG), and never one larger
 *    than TH_NIC_IOCTL_MAX_SIZE (-E2BIG);
 *  - user addresses travel as __aligned_u64, never as pointers;
 *  - ring indices are free-running __u32 values, masked on access; each index
 *    has exactly one writer, named in struct th_nic_ring_offsets.
 */
#ifndef _UAPI_LINUX_TH_NIC_H
#define _UAPI_LINUX_TH_NIC_H

#include <linux/types.h>
#include <linux/ioctl.h>

/*
 * 2: memory regions have a 32-bit local key and a 64-bit remote key;
 * fabric domains; the error state; refusal reasons; per-user limits.
 */
#define TH_NIC_ABI_VERSION	2

/* ---------------------------------------------------------------------- */
/* Fixed architectural limits (not tunable: they shape the descriptor).    */
/* ---------------------------------------------------------------------- */

/* The ALU combines at most this many operands in one pass. */
#define TH_NIC_MAX_OPERANDS	7
/* WRITE_INLINE carries at most this many bytes of immediate data. */
#define TH_NIC_INLINE_MAX	32
/* Size of one SQ slot (struct th_nic_desc). */
#define TH_NIC_DESC_SIZE	128
/* Size of one CQ entry (struct th_nic_cqe). */
#define TH_NIC_CQE_SIZE		32

/* ---------------------------------------------------------------------- */
/* Descriptors                                                             */
/* ---------------------------------------------------------------------- */

/**
 * enum th_nic_opcode - what a descriptor asks the NIC to do
 * @TH_NIC_OP_NOP: nothing (still honours completion counter and SIGNAL)
 * @TH_NIC_OP_PUT: send bytes from a local MR to remote (node, vport, key, off)
 * @TH_NIC_OP_GET: read bytes from remote (node, vport, key, off) into a
 *	local MR
 * @TH_NIC_OP_COPY: copy between two local MRs
 * @TH_NIC_OP_WRITE_INLINE: write immediate bytes to local or remote memory
 * @TH_NIC_OP_REDUCE: ALU reduction of 1..7 operands into a local MR
 * @TH_NIC_OP_CT_INC: add a signed value to a local counter's success value
 * @TH_NIC_OP_CT_SET: set a local counter's success value, clear its failure
 * @TH_NIC_OP_NOTIFY: post a completion entry carrying the chain's cookie
 * @TH_NIC_OP_REARM: last descriptor of a re-arming chain: once the round
 *	got here, the chain waits on its trigger counter again, with its
 *	threshold raised by @rearm.stride (struct th_nic_desc_rearm)
 * @TH_NIC_OP_MAX: first invalid opcode
 */
enum th_nic_opcode {
	TH_NIC_OP_NOP		= 0,
	TH_NIC_OP_PUT		= 1,
	TH_NIC_OP_GET		= 2,
	TH_NIC_OP_COPY		= 3,
	TH_NIC_OP_WRITE_INLINE	= 4,
	TH_NIC_OP_REDUCE	= 5,
	TH_NIC_OP_CT_INC	= 6,
	TH_NIC_OP_CT_SET	= 7,
	TH_NIC_OP_NOTIFY	= 8,
	TH_NIC_OP_REARM		= 9,
	TH_NIC_OP_MAX
};

/**
 * enum th_nic_desc_flags - per-descriptor flags (struct th_nic_desc.flags)
 * @TH_NIC_DF_LINK: the next SQ slot belongs to the same chain; a chain ends
 *	at the first descriptor without it
 * @TH_NIC_DF_SIGNAL: write a completion entry when this descriptor completes
 * @TH_NIC_DF_COMP_CT: add 1 to local counter @comp_ct when this descriptor
 *	completes (its failure value if the descriptor failed or was skipped)
 * @TH_NIC_DF_REMOTE_CT: PUT and remote WRITE_INLINE only: add 1 to counter
 *	@remote_ct at the target after the data is in place (the control
 *	packet); its failure value if the descriptor failed or was skipped
 * @TH_NIC_DF_REMOTE: WRITE_INLINE only: the target is remote
 *	(node, vport, rkey, off) and needs remote-write access; without it
 *	the target is a local MR (lkey) that needs local-write access
 * @TH_NIC_DF_ALL: every defined flag
 */
enum th_nic_desc_flags {
	TH_NIC_DF_LINK		= 1 << 0,
	TH_NIC_DF_SIGNAL	= 1 << 1,
	TH_NIC_DF_COMP_CT	= 1 << 2,
	TH_NIC_DF_REMOTE_CT	= 1 << 3,
	TH_NIC_DF_REMOTE	= 1 << 4,
	TH_NIC_DF_ALL		= (1 << 5) - 1
};

/**
 * enum th_nic_alu_op - reduction operator of a REDUCE descriptor
 * @TH_NIC_ALU_SUM: sum (integers wrap, two's complement)
 * @TH_NIC_ALU_PROD: product (integers wrap)
 * @TH_NIC_ALU_MAX: maximum; floats: a NaN operand makes the result NaN
 *	(the first NaN met, left to right), and between -0.0 and +0.0, which
 *	compare equal, the earlier operand is kept
 * @TH_NIC_ALU_MIN: minimum, with the same rules as @TH_NIC_ALU_MAX
 * @TH_NIC_ALU_BAND: bitwise and (integer types only)
 * @TH_NIC_ALU_BOR: bitwise or (integer types only)
 * @TH_NIC_ALU_BXOR: bitwise exclusive or (integer types only)
 * @TH_NIC_ALU_OP_MAX: first invalid operator
 */
enum th_nic_alu_op {
	TH_NIC_ALU_SUM	= 0,
	TH_NIC_ALU_PROD	= 1,
	TH_NIC_ALU_MAX	= 2,
	TH_NIC_ALU_MIN	= 3,
	TH_NIC_ALU_BAND	= 4,
	TH_NIC_ALU_BOR	= 5,
	TH_NIC_ALU_BXOR	= 6,
	TH_NIC_ALU_OP_MAX
};

/**
 * enum th_nic_dtype - element type of a REDUCE descriptor
 * @TH_NIC_DT_INT8: signed 8-bit
 * @TH_NIC_DT_INT16: signed 16-bit
 * @TH_NIC_DT_INT32: signed 32-bit
 * @TH_NIC_DT_INT64: signed 64-bit
 * @TH_NIC_DT_UINT8: unsigned 8-bit
 * @TH_NIC_DT_UINT16: unsigned 16-bit
 * @TH_NIC_DT_UINT32: unsigned 32-bit
 * @TH_NIC_DT_UINT64: unsigned 64-bit
 * @TH_NIC_DT_FLOAT32: IEEE 754 binary32
 * @TH_NIC_DT_FLOAT64: IEEE 754 binary64
 * @TH_NIC_DT_MAX: first invalid type
 */
enum th_nic_dtype {
	TH_NIC_DT_INT8		= 0,
	TH_NIC_DT_INT16		= 1,
	TH_NIC_DT_INT32		= 2,
	TH_NIC_DT_INT64		= 3,
	TH_NIC_DT_UINT8		= 4,
	TH_NIC_DT_UINT16	= 5,
	TH_NIC_DT_UINT32	= 6,
	TH_NIC_DT_UINT64	= 7,
	TH_NIC_DT_FLOAT32	= 8,
	TH_NIC_DT_FLOAT64	= 9,
	TH_NIC_DT_MAX
};

/**
 * enum th_nic_reduce_flags - struct th_nic_desc_reduce.rflags
 * @TH_NIC_RF_ACCUMULATE: @dst is the first operand: dst = dst op s0 op ...;
 *	it counts against the 7 operands, so nsrc <= 6
 * @TH_NIC_RF_STRIDED: source i is at src_off[0] + i * src_off[1] in MR
 *	src_key[0] (the slots children's puts land in); all other src_key[]
 *	and src_off[] entries must be zero
 * @TH_NIC_RF_ALL: every defined flag
 */
enum th_nic_reduce_flags {
	TH_NIC_RF_ACCUMULATE	= 1 << 0,
	TH_NIC_RF_STRIDED	= 1 << 1,
	TH_NIC_RF_ALL		= (1 << 2) - 1
};

/**
 * struct th_nic_desc_xfer - PUT and GET operands
 * @lkey: (in) local key of the local MR (source of a PUT, destination of a
 *	GET)
 * @node: (in) target node (fabric address)
 * @rkey: (in) remote key of the target MR, registered with remote read
 *	(GET) or remote write (PUT) access, on a vport of the same domain
 * @loff: (in) byte offset inside the local MR
 * @roff: (in) byte offset inside the remote MR
 * @len: (in) bytes to move; 0 is allowed and moves nothing
 * @vport: (in) target vport on @node
 * @remote_ct: (in) PUT with TH_NIC_DF_REMOTE_CT: counter at the target to
 *	increment on delivery; must be 0 otherwise
 * @rsvd0: must be zero
 * @rsvd: must be zero
 */
struct th_nic_desc_xfer {
	__u32	lkey;
	__u32	node;
	__aligned_u64 rkey;
	__aligned_u64 loff;
	__aligned_u64 roff;
	__aligned_u64 len;
	__u16	vport;
	__u16	remote_ct;
	__u32	rsvd0;
	__u64	rsvd[7];
};

/**
 * struct th_nic_desc_copy - COPY operands (both MRs local)
 * @src_key: (in) local key of the source MR
 * @dst_key: (in) local key of the destination MR (local write access)
 * @src_off: (in) byte offset inside the source MR
 * @dst_off: (in) byte offset inside the destination MR
 * @len: (in) bytes to copy; the ranges may overlap (memmove semantics)
 * @rsvd: must be zero
 */
struct th_nic_desc_copy {
	__u32	src_key;
	__u32	dst_key;
	__aligned_u64 src_off;
	__aligned_u64 dst_off;
	__aligned_u64 len;
	__u64	rsvd[9];
};

/**
 * struct th_nic_desc_inline - WRITE_INLINE operands
 * @lkey: (in) without TH_NIC_DF_REMOTE: local key of the target MR; with
 *	it, must be 0
 * @node: (in) target node with TH_NIC_DF_REMOTE, else must be 0
 * @rkey: (in) with TH_NIC_DF_REMOTE: remote key of the target MR; else
 *	must be 0
 * @vport: (in) target vport with TH_NIC_DF_REMOTE, else must be 0
 * @remote_ct: (in) with TH_NIC_DF_REMOTE_CT: counter at the target to
 *	increment after the write; must be 0 otherwise
 * @len: (in) bytes of @data to write, 1 ... TH_NIC_INLINE_MAX
 * @rsvd0: must be zero
 * @off: (in) byte offset inside the target MR
 * @data: (in) the immediate bytes; bytes past @len must be zero
 * @rsvd: must be zero
 */
struct th_nic_desc_inline {
	__u32	lkey;
	__u32	node;
	__aligned_u64 rkey;
	__u16	vport;
	__u16	remote_ct;
	__u8	len;
	__u8	rsvd0[3];
	__aligned_u64 off;
	__u8	data[TH_NIC_INLINE_MAX];
	__u64	rsvd[5];
};

/**
 * struct th_nic_desc_reduce - REDUCE operands: dst = op(s0, ..., s(n-1))
 * @alu_op: (in) enum th_nic_alu_op
 * @dtype: (in) enum th_nic_dtype
 * @nsrc: (in) number of source operands, 1 ... 7 (1 ... 6 with ACCUMULATE)
 * @rflags: (in) enum th_nic_reduce_flags
 * @count: (in) number of elements; 0 is allowed
 * @dst_key: (in) local key of the destination MR (local write access)
 * @src_key: (in) local keys of the source MRs, entries >= @nsrc zero
 * @dst_off: (in) byte offset of the destination, aligned to the element
 *	size in memory
 * @src_off: (in) byte offsets of the sources (aligned like @dst_off); with
 *	TH_NIC_RF_STRIDED, base and stride instead
 *
 * Operands are combined strictly left to right: ((dst) op s0) op s1 ...
 * element by element, so float results are reproducible bit for bit.
 * The destination may coincide with a source; other partial overlaps
 * between the destination and a source are refused.
 */
struct th_nic_desc_reduce {
	__u8	alu_op;
	__u8	dtype;
	__u8	nsrc;
	__u8	rflags;
	__u32	count;
	__u32	dst_key;
	__u32	src_key[TH_NIC_MAX_OPERANDS];
	__aligned_u64 dst_off;
	__aligned_u64 src_off[TH_NIC_MAX_OPERANDS];
};

/**
 * struct th_nic_desc_ct - CT_INC and CT_SET operands (a local counter)
 * @ct: (in) counter index on the posting vport
 * @rsvd0: must be zero
 * @rsvd1: must be zero
 * @value: (in) CT_INC: signed delta added to the success value;
 *	CT_SET: the new success value (the failure value is cleared)
 * @rsvd: must be zero
 */
struct th_nic_desc_ct {
	__u16	ct;
	__u16	rsvd0;
	__u32	rsvd1;
	__aligned_u64 value;
	__u64	rsvd[11];
};

/**
 * struct th_nic_desc_notify - NOTIFY operands
 * @imm: (in) 64 bits copied into the completion entry's @imm
 * @rsvd: must be zero
 */
struct th_nic_desc_notify {
	__aligned_u64 imm;
	__u64	rsvd[12];
};

/**
 * struct th_nic_desc_rearm - REARM operands: the chain runs again
 * @stride: (in) added to the chain's threshold for its next round, >= 1
 * @rsvd: must be zero
 *
 * A chain ending in REARM is posted once and runs once per round: each
 * time its trigger counter reaches the threshold, it runs its descriptors,
 * and at REARM it waits again for threshold + @stride, with no doorbell
 * and no new validation (re-arming counts as posting it again for the
 * order among chains of equal threshold).  Each round writes its own
 * entries (none of them TH_NIC_CQE_F_FINAL) and needs their room in the
 * CQ when it re-arms: if the consumer fell behind, the chain ends with
 * -EOVERFLOW instead.  A re-arming chain counts as one pending chain for
 * the user's limit.  It ends, with one final entry, when a round fails,
 * when it is cancelled (a running round finishes first), or when its
 * vport is destroyed.
 */
struct th_nic_desc_rearm {
	__aligned_u64 stride;
	__u64	rsvd[12];
};

/**
 * struct th_nic_desc - one SQ slot; a chain is 1 ... max_chain of them
 * @opcode: (in) enum th_nic_opcode
 * @rsvd0: must be zero
 * @flags: (in) enum th_nic_desc_flags
 * @trig_ct: (in) first descriptor of a chain: the counter that triggers it;
 *	must be 0 in later descriptors
 * @comp_ct: (in) with TH_NIC_DF_COMP_CT: local completion counter index;
 *	must be 0 otherwise
 * @threshold: (in) first descriptor: the chain fires once the success value
 *	of @trig_ct is >= @threshold (0 fires at once); must be 0 in later
 *	descriptors
 * @cookie: (in) first descriptor: the chain's cookie, reported in every
 *	completion entry of the chain and matched by CANCEL; must be 0 in
 *	later descriptors
 * @xfer: PUT, GET
 * @copy: COPY
 * @wr_inline: WRITE_INLINE
 * @reduce: REDUCE
 * @ct: CT_INC, CT_SET
 * @notify: NOTIFY
 * @rearm: REARM
 * @raw: the operand area as bytes; NOP requires it all zero
 */
struct th_nic_desc {
	__u8	opcode;
	__u8	rsvd0;
	__u16	flags;
	__u16	trig_ct;
	__u16	comp_ct;
	__aligned_u64 threshold;
	__aligned_u64 cookie;
	union {
		struct th_nic_desc_xfer		xfer;
		struct th_nic_desc_copy		copy;
		struct th_nic_desc_inline	wr_inline;
		struct th_nic_desc_reduce	reduce;
		struct th_nic_desc_ct		ct;
		struct th_nic_desc_notify	notify;
		struct th_nic_desc_rearm	rearm;
		__u8				raw[104];
	};
};

/* ---------------------------------------------------------------------- */
/* Completion entries                                                      */
/* ---------------------------------------------------------------------- */

/**
 * enum th_nic_cqe_flags - struct th_nic_cqe.flags
 * @TH_NIC_CQE_F_FINAL: the chain has completed; no further entries of it
 *	will follow.  Set on error and cancel entries, and on the entry of a
 *	successful chain's last descriptor when that one writes an entry
 *	(end a chain with NOTIFY to be told of its completion).
 */
enum th_nic_cqe_flags {
	TH_NIC_CQE_F_FINAL	= 1 << 0,
};

/**
 * struct th_nic_cqe - one CQ entry, written by the NIC only
 *
 * A chain writes one entry per descriptor marked TH_NIC_DF_SIGNAL or of
 * opcode NOTIFY when it succeeds.  A chain that fails or is cancelled
 * writes exactly one entry with a negative @status, whatever its flags.
 * A chain that succeeds with neither writes none: its completion is seen
 * through counters.  Space for every entry a chain can write is reserved
 * when it is posted, so the CQ never overflows.
 *
 * @cookie: (out) the chain's cookie (its first descriptor's @cookie)
 * @imm: (out) NOTIFY: its @imm; otherwise 0
 * @status: (out) 0, or a negative errno: -ECONNREFUSED (no such target
 *	vport in this vport's domain: gone, never there, or in another
 *	domain, which look alike), -EACCES (remote key unknown or without
 *	the access; local key deregistered meanwhile), -ERANGE (outside the
 *	target MR), -EIO (the trigger counter's failure value rose),
 *	-ECANCELED (cancelled, or its vport was destroyed), -ENOTCONN (the
 *	vport entered the error state before the chain ran), -EOVERFLOW (a
 *	re-arming chain found no room in the CQ for its next round)
 * @desc_index: (out) index in the chain of the descriptor that produced
 *	the entry, or that failed
 * @opcode: (out) opcode of that descriptor
 * @flags: (out) enum th_nic_cqe_flags
 * @vport: (out) the vport the chain was posted on
 * @rsvd: zero
 */
struct th_nic_cqe {
	__aligned_u64 cookie;
	__aligned_u64 imm;
	__s32	status;
	__u16	desc_index;
	__u8	opcode;
	__u8	flags;
	__u16	vport;
	__u16	rsvd[3];
};

/* ---------------------------------------------------------------------- */
/* Rings and the counter page                                              */
/* ---------------------------------------------------------------------- */

/**
 * struct th_nic_ring_offsets - where each field lives inside a ring mapping
 * @head: byte offset of the __u32 consumer index; written by the consumer
 *	only (SQ: the NIC; CQ: userspace), with release semantics
 * @tail: byte offset of the __u32 producer index; written by the producer
 *	only (SQ: userspace; CQ: the NIC), with release semantics
 * @ring_mask: byte offset of the __u32 ring_entries - 1 (read-only)
 * @ring_entries: byte offset of the __u32 slot count, a power of two
 *	(read-only)
 * @slots: byte offset of slot 0; slot i is at slots + (i & mask) * size
 * @rsvd: zero
 *
 * Indices are free-running; the consumer reads the producer's index with
 * acquire semantics.  The NIC never trusts the SQ tail: it clamps
 * tail - head to ring_entries.
 */
struct th_nic_ring_offsets {
	__u32	head;
	__u32	tail;
	__u32	ring_mask;
	__u32	ring_entries;
	__u32	slots;
	__u32	rsvd[3];
};

/**
 * struct th_nic_ct - one CP counter in the read-only counter page
 * @success: (out) success value
 * @failure: (out) failure value; non-zero fails chains waiting on it
 *
 * The NIC stores each value with release semantics; read with acquire.
 * Counter i of a vport is entry i of its counter mapping.
 */
struct th_nic_ct {
	__aligned_u64 success;
	__aligned_u64 failure;
};

/* ---------------------------------------------------------------------- */
/* ioctls                                                                  */
/* ---------------------------------------------------------------------- */

/**
 * enum th_nic_features - struct th_nic_query.features
 * @TH_NIC_FEAT_REDUCE_STRIDED: REDUCE accepts TH_NIC_RF_STRIDED
 * @TH_NIC_FEAT_FLOAT_ALU: the ALU handles float32 and float64
 * @TH_NIC_FEAT_INPROC: the node is emulated inside the calling process (the
 *	in-process provider), not by the kernel module
 * @TH_NIC_FEAT_REARM: chains may end in TH_NIC_OP_REARM
 * @TH_NIC_FEAT_DOMAIN_FD: domains are file descriptors
 *	(TH_NIC_IOCTL_DOMAIN_CREATE), passed to other processes by
 *	inheritance or SCM_RIGHTS; without it, domains exist only inside
 *	the process
 */
enum th_nic_features {
	TH_NIC_FEAT_REDUCE_STRIDED	= 1 << 0,
	TH_NIC_FEAT_FLOAT_ALU		= 1 << 1,
	TH_NIC_FEAT_INPROC		= 1 << 2,
	TH_NIC_FEAT_DOMAIN_FD		= 1 << 3,
	TH_NIC_FEAT_REARM		= 1 << 4,
};

/**
 * struct th_nic_query - TH_NIC_IOCTL_QUERY: ABI version, identity, limits
 * @size: (in) sizeof(struct th_nic_query)
 * @flags: (in) must be 0
 * @abi_version: (out) TH_NIC_ABI_VERSION
 * @node_id: (out) this node's fabric address
 * @node_count: (out) number of nodes on the fabric
 * @max_vports: (out) vports per node
 * @max_counters: (out) counters per vport
 * @max_sq_entries: (out) largest SQ (and the default)
 * @max_cq_entries: (out) largest CQ (and the default)
 * @max_chain: (out) descriptors per chain
 * @max_mrs: (out) memory regions per vport
 * @max_operands: (out) TH_NIC_MAX_OPERANDS
 * @max_inline: (out) TH_NIC_INLINE_MAX
 * @desc_size: (out) TH_NIC_DESC_SIZE
 * @cqe_size: (out) TH_NIC_CQE_SIZE
 * @rsvd0: zero
 * @max_mr_size: (out) bytes per memory region
 * @features: (out) enum th_nic_features
 * @max_user_vports: (out) vports one user may hold on the whole fabric
 * @max_user_chains: (out) chains one user may have accepted and not yet
 *	completed, on all its vports
 * @rsvd: zero
 */
struct th_nic_query {
	__u32	size;
	__u32	flags;
	__u32	abi_version;
	__u32	node_id;
	__u32	node_count;
	__u32	max_vports;
	__u32	max_counters;
	__u32	max_sq_entries;
	__u32	max_cq_entries;
	__u32	max_chain;
	__u32	max_mrs;
	__u32	max_operands;
	__u32	max_inline;
	__u32	desc_size;
	__u32	cqe_size;
	__u32	rsvd0;
	__aligned_u64 max_mr_size;
	__aligned_u64 features;
	__u32	max_user_vports;
	__u32	max_user_chains;
	__aligned_u64 rsvd[3];
};

/**
 * enum th_nic_vport_flags - struct th_nic_vport_create.flags
 * @TH_NIC_VPORT_F_DOMAIN: join the domain of @domain_fd instead of the
 *	creating user's own domain
 */
enum th_nic_vport_flags {
	TH_NIC_VPORT_F_DOMAIN	= 1 << 0,
};

/**
 * struct th_nic_vport_create - TH_NIC_IOCTL_VPORT_CREATE
 * @size: (in) sizeof(struct th_nic_vport_create)
 * @flags: (in) enum th_nic_vport_flags
 * @sq_entries: (in) SQ slots, a power of two <= max_sq_entries; 0 = max
 * @cq_entries: (in) CQ entries, a power of two <= max_cq_entries; 0 = max
 * @vport: (out) the new vport's index on this node
 * @ct_count: (out) counters in the counter mapping (max_counters)
 * @sq_off: (out) layout of the SQ mapping
 * @cq_off: (out) layout of the CQ mapping
 * @sq_mmap_offset: (out) mmap offset of the SQ mapping (read/write,
 *	MAP_SHARED only, like every mapping of a vport)
 * @cq_mmap_offset: (out) mmap offset of the CQ mapping (read/write)
 * @ct_mmap_offset: (out) mmap offset of the counter page (read-only)
 * @sq_mmap_size: (out) bytes to map for the SQ
 * @cq_mmap_size: (out) bytes to map for the CQ
 * @ct_mmap_size: (out) bytes to map for the counters
 * @domain_fd: (in) with TH_NIC_VPORT_F_DOMAIN: a domain file descriptor
 *	(TH_NIC_IOCTL_DOMAIN_CREATE); must be 0 otherwise.  Without it the
 *	vport joins the domain of the creating process's effective user, so
 *	that one user's processes reach each other and no other user's.
 * @rsvd0: (in) must be zero
 * @rsvd: (in) must be zero
 *
 * Every vport belongs to exactly one domain for its whole life.  PUT,
 * GET, remote WRITE_INLINE, remote counter increments and failure values
 * reach only vports of the same domain; from outside it, a vport looks
 * exactly like one that does not exist.
 */
struct th_nic_vport_create {
	__u32	size;
	__u32	flags;
	__u32	sq_entries;
	__u32	cq_entries;
	__u32	vport;
	__u32	ct_count;
	struct th_nic_ring_offsets sq_off;
	struct th_nic_ring_offsets cq_off;
	__aligned_u64 sq_mmap_offset;
	__aligned_u64 cq_mmap_offset;
	__aligned_u64 ct_mmap_offset;
	__aligned_u64 sq_mmap_size;
	__aligned_u64 cq_mmap_size;
	__aligned_u64 ct_mmap_size;
	__s32	domain_fd;
	__u32	rsvd0;
	__aligned_u64 rsvd[1];
};

/**
 * struct th_nic_vport_destroy - TH_NIC_IOCTL_VPORT_DESTROY
 * @size: (in) sizeof(struct th_nic_vport_destroy)
 * @flags: (in) must be 0
 * @vport: (in) vport index, created on this fd
 * @rsvd: (in) must be zero
 *
 * Pending chains complete with -ECANCELED, running ones are waited for,
 * MRs are released, and CT_WAIT callers on the vport return
 * -ECONNREFUSED.  Existing mappings of its rings stay valid (their memory
 * lives until unmapped) but are no longer used by the NIC.
 */
struct th_nic_vport_destroy {
	__u32	size;
	__u32	flags;
	__u32	vport;
	__u32	rsvd;
};

/**
 * enum th_nic_access - memory region access flags
 * @TH_NIC_ACCESS_LOCAL_WRITE: local descriptors may write the MR
 * @TH_NIC_ACCESS_REMOTE_READ: remote GETs may read it
 * @TH_NIC_ACCESS_REMOTE_WRITE: remote PUTs and WRITE_INLINEs may write it
 * @TH_NIC_ACCESS_ALL: every defined flag
 *
 * Local reads are always allowed.
 */
enum th_nic_access {
	TH_NIC_ACCESS_LOCAL_WRITE	= 1 << 0,
	TH_NIC_ACCESS_REMOTE_READ	= 1 << 1,
	TH_NIC_ACCESS_REMOTE_WRITE	= 1 << 2,
	TH_NIC_ACCESS_ALL		= (1 << 3) - 1
};

/**
 * struct th_nic_mr_reg - TH_NIC_IOCTL_MR_REG
 * @size: (in) sizeof(struct th_nic_mr_reg)
 * @flags: (in) must be 0
 * @vport: (in) vport to register on
 * @access: (in) enum th_nic_access
 * @addr: (in) user address of the region
 * @length: (in) bytes, 1 ... max_mr_size
 * @lkey: (out) local key: names the region in this vport's own
 *	descriptors, and nowhere else
 * @rsvd0: (in) must be zero
 * @rkey: (out) remote key: names the region to peers of the same domain
 *	(PUT, GET, remote WRITE_INLINE); at least 52 of its bits are random,
 *	so it cannot be guessed, nor derived from other keys
 * @rsvd: (in) must be zero
 *
 * The pages are pinned and charged to the registering process's user
 * against RLIMIT_MEMLOCK (unless it has CAP_IPC_LOCK) until the region is
 * deregistered or its vport destroyed, whichever process closes it.
 */
struct th_nic_mr_reg {
	__u32	size;
	__u32	flags;
	__u32	vport;
	__u32	access;
	__aligned_u64 addr;
	__aligned_u64 length;
	__u32	lkey;
	__u32	rsvd0;
	__aligned_u64 rkey;
	__aligned_u64 rsvd[1];
};

/**
 * struct th_nic_mr_dereg - TH_NIC_IOCTL_MR_DEREG
 * @size: (in) sizeof(struct th_nic_mr_dereg)
 * @flags: (in) must be 0
 * @vport: (in) vport the MR was registered on
 * @lkey: (in) its local key
 *
 * Waits for operations using the MR to finish; later ones fail with
 * -EACCES.
 */
struct th_nic_mr_dereg {
	__u32	size;
	__u32	flags;
	__u32	vport;
	__u32	lkey;
};

/**
 * enum th_nic_refusal - why the doorbell refused a chain
 * @TH_NIC_REFUSE_NONE: nothing was refused
 * @TH_NIC_REFUSE_OPCODE: unknown opcode (-EINVAL, as every reason up to
 *	@TH_NIC_REFUSE_OVERLAP)
 * @TH_NIC_REFUSE_RESERVED: a reserved field, or an operand the descriptor
 *	does not use, is not zero
 * @TH_NIC_REFUSE_FLAGS: an unknown descriptor flag, or one its opcode
 *	does not take
 * @TH_NIC_REFUSE_CHAIN: no chain end before the SQ tail, or a chain
 *	longer than max_chain
 * @TH_NIC_REFUSE_TRIGGER: trigger counter out of range, or a trigger,
 *	threshold or cookie on a later descriptor
 * @TH_NIC_REFUSE_COUNTER: a completion, remote or CT_INC/CT_SET counter
 *	out of range, or given without its flag
 * @TH_NIC_REFUSE_LKEY: a local key this vport does not have, or whose
 *	region lacks the local access the operation needs
 * @TH_NIC_REFUSE_RANGE: an offset and length outside a local region, or
 *	wrapping
 * @TH_NIC_REFUSE_ADDRESS: a remote node or vport beyond the fabric's
 *	limits, a remote range that wraps or exceeds max_mr_size, or a key
 *	field the descriptor's form does not use
 * @TH_NIC_REFUSE_INLINE: WRITE_INLINE length 0 or above
 *	TH_NIC_INLINE_MAX, or data bytes past the length
 * @TH_NIC_REFUSE_ALU: unknown ALU operator or type, a bitwise operator
 *	on floats, an operand count outside 1 ... 7, or unknown reduce flags
 * @TH_NIC_REFUSE_ALIGN: a REDUCE operand not aligned to its element size
 * @TH_NIC_REFUSE_OVERLAP: a REDUCE destination partially overlapping a
 *	source
 * @TH_NIC_REFUSE_CQ_FULL: (-EAGAIN) the CQ has no room for the chain's
 *	completions until userspace consumes entries
 * @TH_NIC_REFUSE_CQ_SIZE: (-ENOSPC) the chain writes more entries than
 *	the CQ has
 * @TH_NIC_REFUSE_USER_CHAINS: (-ENOSPC) the user's accepted, uncompleted
 *	chains reached max_user_chains
 * @TH_NIC_REFUSE_NOMEM: (-ENOMEM) no memory for the chain
 * @TH_NIC_REFUSE_VPORT_ERROR: (-ENOTCONN) the vport is in the error state
 *	after a remote access violation; destroy it
 * @TH_NIC_REFUSE_VPORT_GONE: (-ECONNREFUSED) the vport is being destroyed
 *	(a doorbell racing its VPORT_DESTROY or close)
 * @TH_NIC_REFUSE_REARM: (-EINVAL) REARM on a descriptor other than the
 *	chain's last, or a stride of 0
 * @TH_NIC_REFUSE_MAX: first invalid reason
 */
enum th_nic_refusal {
	TH_NIC_REFUSE_NONE		= 0,
	TH_NIC_REFUSE_OPCODE		= 1,
	TH_NIC_REFUSE_RESERVED		= 2,
	TH_NIC_REFUSE_FLAGS		= 3,
	TH_NIC_REFUSE_CHAIN		= 4,
	TH_NIC_REFUSE_TRIGGER		= 5,
	TH_NIC_REFUSE_COUNTER		= 6,
	TH_NIC_REFUSE_LKEY		= 7,
	TH_NIC_REFUSE_RANGE		= 8,
	TH_NIC_REFUSE_ADDRESS		= 9,
	TH_NIC_REFUSE_INLINE		= 10,
	TH_NIC_REFUSE_ALU		= 11,
	TH_NIC_REFUSE_ALIGN		= 12,
	TH_NIC_REFUSE_OVERLAP		= 13,
	TH_NIC_REFUSE_CQ_FULL		= 14,
	TH_NIC_REFUSE_CQ_SIZE		= 15,
	TH_NIC_REFUSE_USER_CHAINS	= 16,
	TH_NIC_REFUSE_NOMEM		= 17,
	TH_NIC_REFUSE_VPORT_ERROR	= 18,
	TH_NIC_REFUSE_VPORT_GONE	= 19,
	TH_NIC_REFUSE_REARM		= 20,
	TH_NIC_REFUSE_MAX
};

/**
 * struct th_nic_doorbell - TH_NIC_IOCTL_DOORBELL: consume the SQ
 * @size: (in) sizeof(struct th_nic_doorbell)
 * @flags: (in) must be 0
 * @vport: (in) vport whose SQ to consume
 * @chains: (out) chains accepted by this call
 * @descs: (out) SQ slots consumed by this call
 * @bad_index: (out) on -EINVAL, the SQ index (free-running) of the first
 *	descriptor of the refused chain; the SQ head stops there
 * @bad_desc: (out) on -EINVAL, the position in that chain of the offending
 *	descriptor
 * @reason: (out) enum th_nic_refusal: why the chain at @bad_index was
 *	refused, TH_NIC_REFUSE_NONE when none was
 *
 * Chains are accepted in order until the SQ is empty or one is refused:
 * -EINVAL for a malformed chain, -EAGAIN when the CQ cannot reserve its
 * completions yet, -ENOSPC when it never could (more entries than the CQ
 * has) or the user's chain limit is reached, -ENOMEM, -ENOTCONN when the
 * vport is in the error state.  A refused chain installs nothing.  The
 * (out) fields are written on success and on every refusal.
 *
 * A vport enters the error state when one of its operations is refused by
 * its target for a key, access or range violation (the chain completes
 * with -EACCES or -ERANGE): its pending chains complete with -ENOTCONN and
 * the doorbell refuses every later chain, as an InfiniBand RC queue pair
 * does on a remote access error.  Only destroying it ends the state.
 *
 * The doorbell runs what it fires up to a budget of chains and bytes; the
 * rest, and long operations past their first slice, continue in the NIC's
 * own context (one queue per vport, served in turn), so one call never
 * runs unbounded work.
 */
struct th_nic_doorbell {
	__u32	size;
	__u32	flags;
	__u32	vport;
	__u32	chains;
	__u32	descs;
	__u32	bad_index;
	__u32	bad_desc;
	__u32	reason;
};

/**
 * enum th_nic_ct_flags - flags of counter ioctls
 * @TH_NIC_CT_F_FAILURE: CT_INC adds to the failure value instead of the
 *	success value
 */
enum th_nic_ct_flags {
	TH_NIC_CT_F_FAILURE	= 1 << 0,
};

/**
 * struct th_nic_ct_wait - TH_NIC_IOCTL_CT_WAIT
 * @size: (in) sizeof(struct th_nic_ct_wait)
 * @flags: (in) must be 0
 * @vport: (in) vport
 * @ct: (in) counter index
 * @threshold: (in) wait until success >= threshold
 * @timeout_ns: (in) relative timeout; 0 tests without sleeping
 * @success: (out) success value seen last
 * @failure: (out) failure value seen last
 *
 * Returns 0 when reached, -EIO when the failure value is non-zero,
 * -ETIMEDOUT, -EINTR when a signal arrived, or -ECONNREFUSED when the
 * vport was destroyed meanwhile.
 */
struct th_nic_ct_wait {
	__u32	size;
	__u32	flags;
	__u32	vport;
	__u32	ct;
	__aligned_u64 threshold;
	__aligned_u64 timeout_ns;
	__aligned_u64 success;
	__aligned_u64 failure;
};

/**
 * struct th_nic_ct_update - TH_NIC_IOCTL_CT_SET and TH_NIC_IOCTL_CT_INC
 * @size: (in) sizeof(struct th_nic_ct_update)
 * @flags: (in) enum th_nic_ct_flags (CT_INC only)
 * @vport: (in) vport
 * @ct: (in) counter index
 * @value: (in) CT_SET: new success value; CT_INC: signed delta
 * @failure: (in) CT_SET: new failure value; CT_INC: must be 0
 *
 * Chains whose threshold the new value reaches fire before the call
 * returns; a non-zero failure value fails the chains waiting on it.
 */
struct th_nic_ct_update {
	__u32	size;
	__u32	flags;
	__u32	vport;
	__u32	ct;
	__aligned_u64 value;
	__aligned_u64 failure;
};

/**
 * enum th_nic_cancel_flags - struct th_nic_cancel.flags
 * @TH_NIC_CANCEL_F_COOKIE: cancel only the pending chains whose cookie is
 *	@cookie; without it, every pending chain of the vport
 */
enum th_nic_cancel_flags {
	TH_NIC_CANCEL_F_COOKIE	= 1 << 0,
};

/**
 * struct th_nic_cancel - TH_NIC_IOCTL_CANCEL
 * @size: (in) sizeof(struct th_nic_cancel)
 * @flags: (in) enum th_nic_cancel_flags
 * @vport: (in) vport
 * @cancelled: (out) number of chains cancelled
 * @cookie: (in) with TH_NIC_CANCEL_F_COOKIE
 *
 * Each cancelled chain completes with -ECANCELED (one CQ entry) and fails
 * the counters its descriptors name, so that peers waiting on it do not
 * hang: its own, and a peer's only where the descriptor's remote key
 * grants that access (an unauthorised descriptor touches nothing).
 * Chains already running are not affected.
 */
struct th_nic_cancel {
	__u32	size;
	__u32	flags;
	__u32	vport;
	__u32	cancelled;
	__aligned_u64 cookie;
};

/**
 * struct th_nic_domain_create - TH_NIC_IOCTL_DOMAIN_CREATE: a new domain
 * @size: (in) sizeof(struct th_nic_domain_create)
 * @flags: (in) must be 0
 * @fd: (out) a new file descriptor (close-on-exec) that holds the domain;
 *	it spans every node of the fabric
 * @rsvd: (in) must be zero
 *
 * Whoever holds the descriptor may create vports in the domain
 * (TH_NIC_VPORT_F_DOMAIN): pass it to a job's processes by inheritance or
 * over a UNIX socket (SCM_RIGHTS).  The domain lives while the descriptor
 * or any of its vports does.
 */
struct th_nic_domain_create {
	__u32	size;
	__u32	flags;
	__s32	fd;
	__u32	rsvd;
};

#define TH_NIC_IOCTL_MAGIC	0xB7

#define TH_NIC_IOCTL_QUERY	_IOWR(TH_NIC_IOCTL_MAGIC, 0x00, struct th_nic_query)
#define TH_NIC_IOCTL_VPORT_CREATE \
	_IOWR(TH_NIC_IOCTL_MAGIC, 0x01, struct th_nic_vport_create)
#define TH_NIC_IOCTL_VPORT_DESTROY \
	_IOW(TH_NIC_IOCTL_MAGIC, 0x02, struct th_nic_vport_destroy)
#define TH_NIC_IOCTL_MR_REG	_IOWR(TH_NIC_IOCTL_MAGIC, 0x03, struct th_nic_mr_reg)
#define TH_NIC_IOCTL_MR_DEREG	_IOW(TH_NIC_IOCTL_MAGIC, 0x04, struct th_nic_mr_dereg)
#define TH_NIC_IOCTL_DOORBELL	_IOWR(TH_NIC_IOCTL_MAGIC, 0x05, struct th_nic_doorbell)
#define TH_NIC_IOCTL_CT_WAIT	_IOWR(TH_NIC_IOCTL_MAGIC, 0x06, struct th_nic_ct_wait)
#define TH_NIC_IOCTL_CT_SET	_IOW(TH_NIC_IOCTL_MAGIC, 0x07, struct th_nic_ct_update)
#define TH_NIC_IOCTL_CT_INC	_IOW(TH_NIC_IOCTL_MAGIC, 0x08, struct th_nic_ct_update)
#define TH_NIC_IOCTL_CANCEL	_IOWR(TH_NIC_IOCTL_MAGIC, 0x09, struct th_nic_cancel)
#define TH_NIC_IOCTL_DOMAIN_CREATE \
	_IOWR(TH_NIC_IOCTL_MAGIC, 0x0a, struct th_nic_domain_create)

/* ioctl structs larger than this are refused with -E2BIG */
#define TH_NIC_IOCTL_MAX_SIZE	4096

#endif /* _UAPI_LINUX_TH_NIC_H */
