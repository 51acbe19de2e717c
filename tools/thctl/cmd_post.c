// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * cmd_post.c - 'thctl post FILE': set up the buffers, MRs and chains a
 * chain file describes, post every chain, run the host actions (start,
 * expect, print) in file order, and tear everything down.  A file is
 * refused whole before the NIC is touched; a chain the NIC refuses cancels
 * every chain this run posted before it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <thverbs/verbs.h>
#include "json.h"
#include "thctl.h"
#include "chainfile.h"
#include "th_opcode.h"

struct post_run {
	const char *path;
	const struct chainfile *cf;
	bool verbose;
	struct th_device **devs;
	int ndevs;
	/* per node, opened only for the nodes the file names */
	struct th_context **ctx;
	struct th_vport **vp;
	void **mem;			/* per buffer */
	struct th_mr **mr;		/* per MR */
	struct th_chain *chain;
	unsigned int posted;		/* chains accepted so far */
	bool *used;			/* per node: a vport was made there */
};

static void post_usage(FILE *f)
{
	fprintf(f,
		"usage: thctl post [--provider kernel|inproc|auto] [-q] [--print-digest]\n"
		"                  [--no-precheck] [--verify] [-v] [--stats] [-j [-p]]\n"
		"                  FILE\n\n"
		"Set up what FILE describes (buffers, MRs, chains on several nodes, one\n"
		"vport per node), post every chain, then run the host actions in file\n"
		"order: start (increment or set a counter), expect (wait for a counter),\n"
		"print (a buffer, counters, completions).  Then cancel what is still\n"
		"pending and tear everything down.  The format is in thctl(1) and\n"
		"Documentation/tutorial.rst; examples are in tools/thctl/examples/.\n\n"
		"The whole file is checked first against the fabric's limits (nodes,\n"
		"counters, chain length, offsets and lengths inside MRs); a bad file is\n"
		"refused as FILE:LINE:COL: what was expected, with nothing set up.\n"
		"If the NIC refuses a chain, every chain this run posted is cancelled\n"
		"and the vports destroyed before thctl exits.\n\n"
		"  --provider P     kernel (/dev/th_nic*), inproc (a fabric inside\n"
		"                   this process) or auto (default: $TH_PROVIDER, else\n"
		"                   kernel if /dev/th_nic0 exists, else inproc)\n"
		"  -q, --quiet      do not run print actions\n"
		"  --print-digest   at the end, print 'digest NAME fnv1a64 HEX' for every\n"
		"                   buffer: equal digests on both providers mean\n"
		"                   bit-identical buffers\n"
		"  --no-precheck    leave offsets and lengths to the NIC (shows its\n"
		"                   refusal at the doorbell)\n"
		"  --verify         first prove that every chain will fire, finish and\n"
		"                   fit (thctl verify): with a finding nothing is set\n"
		"                   up and thctl post exits 1\n"
		"  -v, --verbose    say what is set up, posted and torn down (stderr)\n"
		"  --stats          at the end, the in-process fabric's statistics of\n"
		"                   the nodes used (th_nic.ko's: thctl stat)\n"
		"  -j, --json       one JSON document instead: {\"file\", \"ok\", \"output\":\n"
		"                   [lines], \"stats\": [{\"node\", ...}] or null}; -p\n"
		"                   indents it\n\n"
		"Exit status: 0 every chain was accepted and every expect met; 1 the NIC\n"
		"refused a chain, an expect timed out or failed, or a chain completed\n"
		"with an error; 2 usage error or a malformed FILE.\n");
}

/* ---- output --------------------------------------------------------- */

static void post_print_elem(const void *p, unsigned int dtype)
{
	union { int8_t i8; int16_t i16; int32_t i32; int64_t i64;
		uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64;
		float f32; double f64; } v;

	memcpy(&v, p, cf_dtype_size(dtype));
	switch (dtype) {
	case TH_NIC_DT_INT8:
		printf(" %d", v.i8);
		break;
	case TH_NIC_DT_INT16:
		printf(" %d", v.i16);
		break;
	case TH_NIC_DT_INT32:
		printf(" %d", v.i32);
		break;
	case TH_NIC_DT_INT64:
		printf(" %lld", (long long)v.i64);
		break;
	case TH_NIC_DT_UINT8:
		printf(" %u", v.u8);
		break;
	case TH_NIC_DT_UINT16:
		printf(" %u", v.u16);
		break;
	case TH_NIC_DT_UINT32:
		printf(" %u", v.u32);
		break;
	case TH_NIC_DT_UINT64:
		printf(" %llu", (unsigned long long)v.u64);
		break;
	/* %.9g and %.17g round-trip: the text is as exact as the bits */
	case TH_NIC_DT_FLOAT32:
		printf(" %.9g", v.f32);
		break;
	default:
		printf(" %.17g", v.f64);
		break;
	}
}

static void post_print_buffer(const struct post_run *r,
			      const struct cf_action *a)
{
	const struct cf_buffer *b = &r->cf->buffers[a->buffer];
	const unsigned char *m = r->mem[a->buffer];
	unsigned int esize = a->as == CF_PRINT_HEX ? 1 : cf_dtype_size(a->as);
	unsigned int per_line = a->as == CF_PRINT_HEX ? 16 : 8;
	uint64_t i, n = b->size / esize;

	printf("buffer %s (node %u, %llu bytes) as %s:", b->name, b->node,
	       (unsigned long long)b->size,
	       a->as == CF_PRINT_HEX ? "hex" : cf_dtype_name(a->as));
	for (i = 0; i < n; i++) {
		if (i % per_line == 0)
			printf("\n  [%llu]", (unsigned long long)i);
		if (a->as == CF_PRINT_HEX)
			printf(" %02x", m[i]);
		else
			post_print_elem(m + i * esize, a->as);
	}
	printf("\n");
}

static void post_print_counters(const struct post_run *r,
				const struct cf_action *a)
{
	unsigned int ct;

	printf("counters of node %u:\n", a->node);
	for (ct = a->ct; ct <= a->ct_last; ct++) {
		uint64_t s = 0, f = 0;

		th_ct_read(r->vp[a->node], ct, &s, &f);
		printf("  ct%u success %llu failure %llu\n", ct,
		       (unsigned long long)s, (unsigned long long)f);
	}
}

static const char *post_opname(unsigned int op)
{
	const char *name = th_eng_opcode_name(op);

	return name ? name : "?";
}

/* The chain of @node with @cookie, for messages; NULL if not unique. */
static const struct cf_chain *post_chain_of(const struct post_run *r,
					    uint32_t node, uint64_t cookie)
{
	const struct cf_chain *found = NULL;
	unsigned int i;

	for (i = 0; i < r->cf->nchains; i++) {
		const struct cf_chain *c = &r->cf->chains[i];

		if (c->node != node || c->cookie != cookie)
			continue;
		if (found)
			return NULL;
		found = c;
	}
	return found;
}

/*
 * Take the CQ entries of @node; print them (@print), and report each
 * error entry as FILE:LINE.  Returns the number of error entries.
 */
static unsigned int post_drain_cq(const struct post_run *r, uint32_t node,
				  bool print)
{
	struct th_nic_cqe e[32];
	unsigned int bad = 0;
	int i, n;

	if (print)
		printf("completions of node %u:\n", node);
	while ((n = th_poll_cq(r->vp[node], e, 32)) > 0) {
		for (i = 0; i < n; i++) {
			const struct cf_chain *c = post_chain_of(r, node,
								 e[i].cookie);
			const char *name = c ? c->name : "?";

			if (print)
				printf("  chain %s cookie %llu desc %u %s status %d imm %llu%s\n",
				       name, (unsigned long long)e[i].cookie,
				       e[i].desc_index, post_opname(e[i].opcode),
				       e[i].status, (unsigned long long)e[i].imm,
				       e[i].flags & TH_NIC_CQE_F_FINAL ? " final" : "");
			if (e[i].status >= 0 || e[i].status == -ECANCELED)
				continue;
			bad++;
			if (c && e[i].desc_index < c->ndesc)
				fprintf(stderr,
					"%s:%u: chain %s failed: %s, descriptor %u (line %u)\n",
					r->path, c->line, name,
					th_strerror(e[i].status), e[i].desc_index,
					c->desc[e[i].desc_index].line);
			else
				fprintf(stderr,
					"%s: a chain of node %u (cookie %llu) failed: %s\n",
					r->path, node,
					(unsigned long long)e[i].cookie,
					th_strerror(e[i].status));
		}
	}
	return bad;
}

/* ---- setup and teardown ------------------------------------------------ */

static int post_fail(const struct post_run *r, const char *what, int err)
{
	fprintf(stderr, "thctl post: %s: %s: %s\n", r->path, what,
		th_strerror(err));
	return THCTL_EXIT_FAIL;
}

static int post_node(struct post_run *r, uint32_t node)
{
	char what[64];

	if (r->vp[node])
		return 0;
	r->ctx[node] = th_device_open(r->devs[node]);
	if (!r->ctx[node]) {
		snprintf(what, sizeof(what), "open node %u", node);
		return post_fail(r, what, -errno);
	}
	r->vp[node] = th_vport_create(r->ctx[node], NULL);
	if (!r->vp[node]) {
		snprintf(what, sizeof(what), "create a vport on node %u", node);
		return post_fail(r, what, -errno);
	}
	if (r->used)
		r->used[node] = true;
	if (r->verbose)
		fprintf(stderr, "thctl post: node %u: vport %u\n", node,
			th_vport_index(r->vp[node]));
	return 0;
}

static int post_setup(struct post_run *r)
{
	const struct chainfile *cf = r->cf;
	unsigned int i;
	int ret;

	for (i = 0; i < cf->nbuffers; i++) {
		const struct cf_buffer *b = &cf->buffers[i];
		size_t size = (b->size + 63) & ~(size_t)63;

		ret = post_node(r, b->node);
		if (ret)
			return ret;
		r->mem[i] = aligned_alloc(64, size);
		if (!r->mem[i])
			return post_fail(r, "allocate a buffer", -ENOMEM);
		memset(r->mem[i], 0, size);
		cf_fill(b, r->mem[i]);
	}
	for (i = 0; i < cf->nmrs; i++) {
		const struct cf_mr *m = &cf->mrs[i];
		char what[64];

		r->mr[i] = th_mr_reg(r->vp[m->node],
				     (char *)r->mem[m->buffer] + m->off, m->len,
				     m->access);
		if (!r->mr[i]) {
			snprintf(what, sizeof(what), "register mr %.32s", m->name);
			return post_fail(r, what, -errno);
		}
	}
	for (i = 0; i < cf->nchains; i++) {
		ret = post_node(r, cf->chains[i].node);
		if (ret)
			return ret;
	}
	for (i = 0; i < cf->nactions; i++) {
		const struct cf_action *a = &cf->actions[i];

		if (a->kind != CF_ACT_PRINT_BUFFER) {
			ret = post_node(r, a->node);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* Cancel what is pending, deregister, destroy: nothing stays on the NIC. */
static void post_teardown(struct post_run *r)
{
	const struct chainfile *cf = r->cf;
	unsigned int i, vports = 0;
	int cancelled = 0, n;

	for (i = 0; i < (unsigned int)r->ndevs; i++) {
		if (!r->vp[i])
			continue;
		n = th_cancel_all(r->vp[i]);
		if (n > 0)
			cancelled += n;
	}
	for (i = 0; i < cf->nmrs; i++)
		if (r->mr[i])
			th_mr_dereg(r->mr[i]);
	for (i = 0; i < (unsigned int)r->ndevs; i++) {
		if (r->vp[i]) {
			th_vport_destroy(r->vp[i]);
			vports++;
		}
		if (r->ctx[i])
			th_device_close(r->ctx[i]);
	}
	for (i = 0; i < cf->nbuffers; i++)
		free(r->mem[i]);
	if (r->verbose)
		fprintf(stderr,
			"thctl post: teardown: %u chain(s) posted, %d still pending cancelled, %u vport(s) destroyed\n",
			r->posted, cancelled, vports);
}

/* ---- chains -------------------------------------------------------------- */

static struct th_remote post_remote(const struct post_run *r, unsigned int mr,
				    uint64_t off)
{
	const struct cf_mr *m = &r->cf->mrs[mr];

	return (struct th_remote){
		.node = m->node,
		.vport = th_vport_index(r->vp[m->node]),
		.rkey = th_mr_rkey(r->mr[mr]),
		.off = off,
	};
}

static int post_build_desc(struct post_run *r, const struct cf_desc *d)
{
	unsigned int fl = d->signal ? TH_CHAIN_SIGNAL : 0;
	struct th_chain *c = r->chain;
	const struct th_mr *src[TH_NIC_MAX_OPERANDS];
	struct th_remote rem;
	unsigned int i;
	int ret;

	switch (d->opcode) {
	case TH_NIC_OP_PUT:
		rem = post_remote(r, d->dst_mr, d->dst_off);
		ret = th_chain_put(c, r->mr[d->src_mr[0]], d->src_off[0], &rem,
				   d->len, d->remote_ct, fl);
		break;
	case TH_NIC_OP_GET:
		rem = post_remote(r, d->dst_mr, d->dst_off);
		ret = th_chain_get(c, r->mr[d->src_mr[0]], d->src_off[0], &rem,
				   d->len, fl);
		break;
	case TH_NIC_OP_COPY:
		ret = th_chain_copy(c, r->mr[d->src_mr[0]], d->src_off[0],
				    r->mr[d->dst_mr], d->dst_off, d->len, fl);
		break;
	case TH_NIC_OP_WRITE_INLINE:
		if (d->remote) {
			rem = post_remote(r, d->dst_mr, d->dst_off);
			ret = th_chain_write_inline_remote(c, &rem, d->data,
							   d->len, d->remote_ct,
							   fl);
		} else {
			ret = th_chain_write_inline(c, r->mr[d->dst_mr],
						    d->dst_off, d->data,
						    d->len, fl);
		}
		break;
	case TH_NIC_OP_REDUCE:
		if (d->strided) {
			ret = th_chain_reduce_strided(c, d->alu_op, d->dtype,
						      d->count, r->mr[d->dst_mr],
						      d->dst_off,
						      r->mr[d->src_mr[0]],
						      d->src_off[0], d->stride,
						      d->nsrc, d->accumulate, fl);
			break;
		}
		for (i = 0; i < d->nsrc; i++)
			src[i] = r->mr[d->src_mr[i]];
		ret = th_chain_reduce(c, d->alu_op, d->dtype, d->count,
				      r->mr[d->dst_mr], d->dst_off, d->nsrc,
				      src, d->src_off, d->accumulate, fl);
		break;
	case TH_NIC_OP_CT_INC:
		ret = th_chain_ct_inc(c, d->ct, (int64_t)d->value, fl);
		break;
	case TH_NIC_OP_CT_SET:
		ret = th_chain_ct_set(c, d->ct, d->value, fl);
		break;
	case TH_NIC_OP_NOTIFY:
		ret = th_chain_notify(c, d->value, fl);
		break;
	case TH_NIC_OP_REARM:
		ret = th_chain_rearm(c, d->value, fl);
		break;
	default:
		ret = th_chain_nop(c, fl);
		break;
	}
	if (!ret && d->comp_ct >= 0)
		ret = th_chain_comp_ct(c, d->comp_ct);
	return ret;
}

static int post_chains(struct post_run *r)
{
	const struct chainfile *cf = r->cf;
	unsigned int i, j, bad, reason;
	int ret;

	for (i = 0; i < cf->nchains; i++) {
		const struct cf_chain *c = &cf->chains[i];

		th_chain_reset(r->chain);
		ret = 0;
		for (j = 0; j < c->ndesc && !ret; j++)
			ret = post_build_desc(r, &c->desc[j]);
		if (!ret)
			ret = th_chain_trigger(r->chain, c->trig_ct,
					       c->threshold, c->cookie);
		if (ret) {
			fprintf(stderr,
				"%s:%u: chain %s: the builder refused descriptor %u (line %u): %s\n",
				r->path, c->line, c->name, j - 1,
				c->desc[j - 1].line, th_strerror(ret));
			return THCTL_EXIT_FAIL;
		}
		ret = th_post_chain(r->vp[c->node], r->chain);
		if (ret) {
			bad = 0;
			reason = TH_NIC_REFUSE_NONE;
			th_post_error(r->vp[c->node], &bad, &reason);
			if (ret == -EINVAL && bad < c->ndesc)
				fprintf(stderr,
					"%s:%u: chain %s refused: %s, descriptor %u (line %u)\n",
					r->path, c->line, c->name,
					th_refusal_str(reason), bad,
					c->desc[bad].line);
			else
				fprintf(stderr, "%s:%u: chain %s refused: %s\n",
					r->path, c->line, c->name,
					reason ? th_refusal_str(reason) :
					th_strerror(ret));
			return THCTL_EXIT_FAIL;
		}
		r->posted++;
		if (r->verbose)
			fprintf(stderr,
				"thctl post: node %u: posted chain %s (%u descriptors, ct%u >= %llu)\n",
				c->node, c->name, c->ndesc, c->trig_ct,
				(unsigned long long)c->threshold);
	}
	return 0;
}

/* ---- host actions ------------------------------------------------------- */

static int post_actions(struct post_run *r, bool quiet, unsigned int *errors)
{
	const struct chainfile *cf = r->cf;
	unsigned int i;
	int ret;

	for (i = 0; i < cf->nactions; i++) {
		const struct cf_action *a = &cf->actions[i];
		struct th_vport *vp = r->vp[a->node];
		uint64_t s = 0, f = 0;

		switch (a->kind) {
		case CF_ACT_CT_INC:
		case CF_ACT_CT_SET:
			ret = a->kind == CF_ACT_CT_INC ?
			      th_ct_inc(vp, a->ct, (int64_t)a->value) :
			      th_ct_set(vp, a->ct, a->value, 0);
			if (ret) {
				fprintf(stderr, "%s:%u: start node %u ct%u: %s\n",
					r->path, a->line, a->node, a->ct,
					th_strerror(ret));
				return THCTL_EXIT_FAIL;
			}
			break;
		case CF_ACT_EXPECT:
			ret = th_ct_wait(vp, a->ct, a->value, a->timeout_ns);
			if (ret) {
				th_ct_read(vp, a->ct, &s, &f);
				fprintf(stderr,
					"%s:%u: expect node %u ct%u >= %llu: %s (success %llu, failure %llu)\n",
					r->path, a->line, a->node, a->ct,
					(unsigned long long)a->value,
					th_strerror(ret), (unsigned long long)s,
					(unsigned long long)f);
				return THCTL_EXIT_FAIL;
			}
			break;
		case CF_ACT_PRINT_BUFFER:
			if (!quiet)
				post_print_buffer(r, a);
			break;
		case CF_ACT_PRINT_COUNTERS:
			if (!quiet)
				post_print_counters(r, a);
			break;
		case CF_ACT_PRINT_CQ:
			*errors += post_drain_cq(r, a->node, !quiet);
			break;
		}
	}
	return 0;
}

static int post_run_file(struct post_run *r, bool quiet, bool digest)
{
	const struct chainfile *cf = r->cf;
	unsigned int i, errors = 0;
	int ret;

	r->ctx = calloc(r->ndevs, sizeof(*r->ctx));
	r->vp = calloc(r->ndevs, sizeof(*r->vp));
	r->mem = calloc(cf->nbuffers + 1, sizeof(*r->mem));
	r->mr = calloc(cf->nmrs + 1, sizeof(*r->mr));
	r->chain = th_chain_create();
	if (!r->ctx || !r->vp || !r->mem || !r->mr || !r->chain) {
		ret = post_fail(r, "set up", -ENOMEM);
		goto out_free;
	}
	ret = post_setup(r);
	if (!ret)
		ret = post_chains(r);
	if (!ret)
		ret = post_actions(r, quiet, &errors);
	if (!ret) {
		for (i = 0; i < (unsigned int)r->ndevs; i++)
			if (r->vp[i])
				errors += post_drain_cq(r, i, false);
		if (digest)
			for (i = 0; i < cf->nbuffers; i++)
				printf("digest %s fnv1a64 %016llx\n",
				       cf->buffers[i].name,
				       (unsigned long long)cf_fnv1a64(r->mem[i],
								      cf->buffers[i].size));
		if (errors)
			ret = THCTL_EXIT_FAIL;
	}
	post_teardown(r);
out_free:
	th_chain_destroy(r->chain);
	free(r->mr);
	free(r->mem);
	free(r->vp);
	free(r->ctx);
	return ret;
}

int thctl_post_main(int argc, char **argv)
{
	const char *provider = NULL, *path = NULL;
	bool quiet = false, digest = false, stats = false, json = false;
	bool pretty = false, verify = false;
	struct thctl_capture cap;
	struct tj j;
	unsigned int flags = 0;
	struct post_run run = { 0 };
	struct th_nic_query q = { .size = sizeof(q) };
	struct th_context *ctx;
	struct cf_limits lim;
	struct cf_diag diag;
	struct chainfile *cf;
	int i, ret;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			post_usage(stdout);
			return THCTL_EXIT_OK;
		} else if (!strcmp(argv[i], "--provider") && i + 1 < argc) {
			provider = argv[++i];
		} else if (!strncmp(argv[i], "--provider=", 11)) {
			provider = argv[i] + 11;
		} else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet")) {
			quiet = true;
		} else if (!strcmp(argv[i], "--print-digest")) {
			digest = true;
		} else if (!strcmp(argv[i], "--no-precheck")) {
			flags |= CF_NO_RANGE_CHECK;
		} else if (!strcmp(argv[i], "--verify")) {
			verify = true;
		} else if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) {
			run.verbose = true;
		} else if (!strcmp(argv[i], "--stats")) {
			stats = true;
		} else if (!strcmp(argv[i], "-j") || !strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "-p") || !strcmp(argv[i], "--pretty")) {
			pretty = true;
		} else if (argv[i][0] == '-' || path) {
			fprintf(stderr, "thctl post: unexpected argument '%s'\n",
				argv[i]);
			post_usage(stderr);
			return THCTL_EXIT_USAGE;
		} else {
			path = argv[i];
		}
	}
	if (!path) {
		post_usage(stderr);
		return THCTL_EXIT_USAGE;
	}
	if (provider && strcmp(provider, "kernel") && strcmp(provider, "inproc") &&
	    strcmp(provider, "auto")) {
		fprintf(stderr,
			"thctl post: unknown provider '%s': expected kernel, inproc or auto\n",
			provider);
		return THCTL_EXIT_USAGE;
	}

	run.path = path;
	run.devs = th_device_list_get(provider, &run.ndevs);
	if (!run.devs || !run.ndevs) {
		fprintf(stderr, "thctl post: no th_nic nodes (provider %s): %s\n",
			provider ? provider : "auto",
			run.devs ? "none found" : strerror(errno));	/* see cmd_devices.c */
		th_device_list_free(run.devs);
		return THCTL_EXIT_FAIL;
	}
	/* the limits the file is checked against: node 0's answer */
	ctx = th_device_open(run.devs[0]);
	if (!ctx || th_device_query(ctx, &q)) {
		fprintf(stderr, "thctl post: cannot query node 0: %s\n",
			th_strerror(-errno));
		if (ctx)
			th_device_close(ctx);
		th_device_list_free(run.devs);
		return THCTL_EXIT_FAIL;
	}
	th_device_close(ctx);
	lim.nodes = q.node_count < (uint32_t)run.ndevs ? q.node_count :
							  (uint32_t)run.ndevs;
	lim.max_counters = q.max_counters;
	lim.max_chain = q.max_chain;

	cf = cf_load(path, &lim, flags, &diag);
	if (!cf) {
		cf_report("post", path, &diag);
		th_device_list_free(run.devs);
		return THCTL_EXIT_USAGE;
	}
	q.node_count = lim.nodes;
	if (verify && thctl_verify_loaded(path, cf, &q) != THCTL_EXIT_OK) {
		fprintf(stderr, "thctl post: %s does not verify: nothing posted\n",
			path);
		cf_free(cf);
		th_device_list_free(run.devs);
		return THCTL_EXIT_FAIL;
	}
	run.cf = cf;
	run.used = calloc(run.ndevs, sizeof(*run.used));
	if (json && thctl_capture_begin(&cap))
		json = false;
	ret = post_run_file(&run, quiet, digest);
	fflush(stdout);
	if (stats && !json && run.used)
		thctl_stats_print(run.devs, run.used, run.ndevs);
	if (json) {
		tj_init(&j, cap.saved, pretty);
		tj_obj_begin(&j);
		tj_kv_str(&j, "file", path);
		tj_key(&j, "ok");
		tj_bool(&j, ret == THCTL_EXIT_OK);
		thctl_capture_end(&cap, &j);
		if (run.used)
			thctl_stats_json(&j, run.devs, run.used, run.ndevs);
		tj_obj_end(&j);
		tj_finish(&j);
	}
	free(run.used);
	cf_free(cf);
	th_device_list_free(run.devs);
	return ret;
}
