// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * stats.c - the in-process fabric's statistics and fault injection, for
 * the library calls: the engine's counts in the library's struct, a
 * node's totals (its destroyed vports' and its live ones'), and the
 * engine's fault injection on a node.
 */
#include <errno.h>
#include <string.h>

#include "thverbs_priv.h"
#include "inproc.h"

static void th_ip_stats_from(struct th_stats *st, const struct th_eng_stats *e)
{
	*st = (struct th_stats){
		.doorbells = e->doorbells,
		.chains_posted = e->chains_posted,
		.chains_refused = e->chains_refused,
		.chains_fired = e->chains_fired,
		.chains_done = e->chains_done,
		.chains_failed = e->chains_failed,
		.chains_cancelled = e->chains_cancelled,
		.chains_deferred = e->chains_deferred,
		.descs_run = e->descs_run,
		.cqes = e->cqes,
		.bytes_put = e->bytes_put,
		.bytes_got = e->bytes_got,
		.bytes_copied = e->bytes_copied,
		.bytes_reduced = e->alu_bytes,
		.violations = e->violations,
		.faults_dropped = e->faults_dropped,
		.faults_delayed = e->faults_delayed,
		.retries = e->retries,
		.timeouts = e->timeouts,
	};
}

int th_ip_vport_stats(struct th_vport *vp, struct th_stats *st)
{
	struct th_ipf_vport *iv = vp->priv;
	struct th_eng_stats e;

	th_eng_stats_read(&iv->ev, &e);
	th_ip_stats_from(st, &e);
	return 0;
}

int th_ip_node_stats(struct th_context *ctx, struct th_stats *st)
{
	struct th_ipf *f = ctx->priv;
	struct th_eng *eng = th_ipf_engine(f);
	struct th_eng_stats sum, e;
	struct th_eng_vport *ev;
	u32 v;

	th_eng_node_stats(eng, ctx->dev.node, &sum);
	for (v = 0; v < eng->lim.max_vports; v++) {
		ev = eng->ops->vport_get(f, ctx->dev.node, v);
		if (!ev)
			continue;
		th_eng_stats_read(ev, &e);
		eng->ops->vport_put(f, ev);
		th_eng_stats_add(&sum, &e);
	}
	th_ip_stats_from(st, &sum);
	return 0;
}

int th_ip_fault_set(struct th_context *ctx, const struct th_fault *f)
{
	struct th_eng_fault ef = {
		.drop_ppm = f->drop_ppm, .delay_ppm = f->delay_ppm,
		.delay_ns = f->delay_ns, .retry_ns = f->retry_ns,
		.retries = f->retries, .vport = f->vport, .seed = f->seed,
	};
	struct th_eng *eng = th_ipf_engine(ctx->priv);
	struct th_eng_vport *ev;
	u32 i;
	int ret;

	ret = th_eng_fault_set(eng, ctx->dev.node, &ef);
	if (ret || (!f->drop_ppm && !f->delay_ppm))
		return ret;
	/* deliveries already waiting in a network would leave unfaulted */
	for (i = 0; i < eng->lim.max_vports; i++) {
		ev = eng->ops->vport_get(ctx->priv, ctx->dev.node, i);
		if (ev) {
			th_eng_offload_withdraw(ev);
			eng->ops->vport_put(ctx->priv, ev);
		}
	}
	return ret;
}

int th_ip_fault_get(struct th_context *ctx, struct th_fault *f)
{
	struct th_eng_fault ef;
	int ret;

	ret = th_eng_fault_get(th_ipf_engine(ctx->priv), ctx->dev.node, &ef);
	if (ret)
		return ret;
	*f = (struct th_fault){
		.drop_ppm = ef.drop_ppm, .delay_ppm = ef.delay_ppm,
		.delay_ns = ef.delay_ns, .retry_ns = ef.retry_ns,
		.retries = ef.retries, .vport = ef.vport, .seed = ef.seed,
	};
	return 0;
}
