/* SPDX-License-Identifier: GPL-2.0 */
/*
 * th_trace.h - th_nic.ko's trace events (tracefs: events/th_nic/): a
 * chain posted, fired and completed with its status (chain=N: the vport's
 * N-th chain, which names it across events), a delivery from one
 * vport to another, and a fault injection held or failed.  The engine
 * calls them through th_compat.h's th_trace_*(); Documentation/tracing.rst
 * traces a collective with them.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM th_nic

#if !defined(TH_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define TH_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(th_nic_chain_post,
	    TP_PROTO(u32 node, u32 vport, u64 id, u64 cookie, u32 ndesc, u32 ct,
		     u64 threshold),
	    TP_ARGS(node, vport, id, cookie, ndesc, ct, threshold),
	    TP_STRUCT__entry(__field(u32, node)
			     __field(u32, vport)
			     __field(u64, id)
			     __field(u64, cookie)
			     __field(u32, ndesc)
			     __field(u32, ct)
			     __field(u64, threshold)),
	    TP_fast_assign(__entry->node = node;
			   __entry->vport = vport;
			   __entry->id = id;
			   __entry->cookie = cookie;
			   __entry->ndesc = ndesc;
			   __entry->ct = ct;
			   __entry->threshold = threshold;),
	    TP_printk("node=%u vport=%u chain=%llu cookie=%llu descs=%u ct=%u threshold=%llu",
		      __entry->node, __entry->vport, __entry->id,
		      __entry->cookie, __entry->ndesc, __entry->ct,
		      __entry->threshold)
);

TRACE_EVENT(th_nic_chain_fire,
	    TP_PROTO(u32 node, u32 vport, u64 id, u64 cookie, int status),
	    TP_ARGS(node, vport, id, cookie, status),
	    TP_STRUCT__entry(__field(u32, node)
			     __field(u32, vport)
			     __field(u64, id)
			     __field(u64, cookie)
			     __field(int, status)),
	    TP_fast_assign(__entry->node = node;
			   __entry->vport = vport;
			   __entry->id = id;
			   __entry->cookie = cookie;
			   __entry->status = status;),
	    TP_printk("node=%u vport=%u chain=%llu cookie=%llu status=%d",
		      __entry->node, __entry->vport, __entry->id,
		      __entry->cookie, __entry->status)
);

/* a round of a re-arming chain waits for the host's next action */
TRACE_EVENT(th_nic_chain_park,
	    TP_PROTO(u32 node, u32 vport, u64 id, u64 cookie, u32 rounds),
	    TP_ARGS(node, vport, id, cookie, rounds),
	    TP_STRUCT__entry(__field(u32, node)
			     __field(u32, vport)
			     __field(u64, id)
			     __field(u64, cookie)
			     __field(u32, rounds)),
	    TP_fast_assign(__entry->node = node;
			   __entry->vport = vport;
			   __entry->id = id;
			   __entry->cookie = cookie;
			   __entry->rounds = rounds;),
	    TP_printk("node=%u vport=%u chain=%llu cookie=%llu rounds=%u",
		      __entry->node, __entry->vport, __entry->id,
		      __entry->cookie, __entry->rounds)
);

TRACE_EVENT(th_nic_chain_complete,
	    TP_PROTO(u32 node, u32 vport, u64 id, u64 cookie, int status,
		     u32 at),
	    TP_ARGS(node, vport, id, cookie, status, at),
	    TP_STRUCT__entry(__field(u32, node)
			     __field(u32, vport)
			     __field(u64, id)
			     __field(u64, cookie)
			     __field(int, status)
			     __field(u32, at)),
	    TP_fast_assign(__entry->node = node;
			   __entry->vport = vport;
			   __entry->id = id;
			   __entry->cookie = cookie;
			   __entry->status = status;
			   __entry->at = at;),
	    TP_printk("node=%u vport=%u chain=%llu cookie=%llu status=%d desc=%u",
		      __entry->node, __entry->vport, __entry->id,
		      __entry->cookie, __entry->status, __entry->at)
);

TRACE_EVENT(th_nic_deliver,
	    TP_PROTO(u32 node, u32 vport, u32 to_node, u32 to_vport, u8 op,
		     u64 len),
	    TP_ARGS(node, vport, to_node, to_vport, op, len),
	    TP_STRUCT__entry(__field(u32, node)
			     __field(u32, vport)
			     __field(u32, to_node)
			     __field(u32, to_vport)
			     __field(u8, op)
			     __field(u64, len)),
	    TP_fast_assign(__entry->node = node;
			   __entry->vport = vport;
			   __entry->to_node = to_node;
			   __entry->to_vport = to_vport;
			   __entry->op = op;
			   __entry->len = len;),
	    TP_printk("%u.%u -> %u.%u %s len=%llu",
		      __entry->node, __entry->vport, __entry->to_node,
		      __entry->to_vport,
		      __print_symbolic(__entry->op,
				       { TH_NIC_OP_PUT, "put" },
				       { TH_NIC_OP_GET, "get" },
				       { TH_NIC_OP_WRITE_INLINE, "inline" }),
		      __entry->len)
);

TRACE_EVENT(th_nic_fault,
	    TP_PROTO(u32 node, u32 vport, u64 id, u8 kind, u32 tries),
	    TP_ARGS(node, vport, id, kind, tries),
	    TP_STRUCT__entry(__field(u32, node)
			     __field(u32, vport)
			     __field(u64, id)
			     __field(u8, kind)
			     __field(u32, tries)),
	    TP_fast_assign(__entry->node = node;
			   __entry->vport = vport;
			   __entry->id = id;
			   __entry->kind = kind;
			   __entry->tries = tries;),
	    TP_printk("node=%u vport=%u chain=%llu %s tries=%u",
		      __entry->node, __entry->vport, __entry->id,
		      __print_symbolic(__entry->kind, { 0, "dropped" },
				       { 1, "delayed" }, { 2, "timed-out" }),
		      __entry->tries)
);

#endif /* TH_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE th_trace
#include <trace/define_trace.h>
