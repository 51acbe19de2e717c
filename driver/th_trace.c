// SPDX-License-Identifier: GPL-2.0
/*
 * th_trace.c - the module's trace events (th_trace.h), and the functions
 * through which the shared engine emits them (th_compat.h).
 */
#include <linux/th_nic.h>

#include "th_compat.h"

#define CREATE_TRACE_POINTS
#include "th_trace.h"

void th_trace_post(u32 node, u32 vport, u64 id, u64 cookie, u32 ndesc, u32 ct,
		   u64 threshold)
{
	trace_th_nic_chain_post(node, vport, id, cookie, ndesc, ct, threshold);
}

void th_trace_fire(u32 node, u32 vport, u64 id, u64 cookie, int status)
{
	trace_th_nic_chain_fire(node, vport, id, cookie, status);
}

void th_trace_complete(u32 node, u32 vport, u64 id, u64 cookie, int status,
		       u32 at)
{
	trace_th_nic_chain_complete(node, vport, id, cookie, status, at);
}

void th_trace_deliver(u32 node, u32 vport, u32 to_node, u32 to_vport, u8 op,
		      u64 len)
{
	trace_th_nic_deliver(node, vport, to_node, to_vport, op, len);
}

void th_trace_fault(u32 node, u32 vport, u64 id, u8 kind, u32 tries)
{
	trace_th_nic_fault(node, vport, id, kind, tries);
}

void th_trace_park(u32 node, u32 vport, u64 id, u64 cookie, u32 rounds)
{
	trace_th_nic_chain_park(node, vport, id, cookie, rounds);
}
