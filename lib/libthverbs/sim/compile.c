// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * compile.c - a GOAL schedule compiled into triggered chains, as an
 * offloading NIC would run it (Documentation/sim.rst, "GOAL as chains"):
 * rank r is node r; every operation is a chain waiting on a counter of
 * its own (its gate) for as many updates as it has dependencies, a
 * receive for one more, the message; a send is a PUT that raises its
 * matched receive's gate; a calc is NIC work of its length; an operation
 * frees the operations that require it by raising their gates at the end
 * of its chain (once its delivery is done), those that irequire it at the
 * start.  Matching is done here, once: a triggered PUT names its target
 * counter when it is posted, so wildcard receives cannot be compiled.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_priv.h"

/* a rank's operations each take one of its vport's counters */
#define SIM_CHAIN_MAX_OPS	65536u
#define SIM_CHAIN_NAME		24

struct th_sim_chainset {
	struct th_verify_set set;
	struct th_verify_chain *chains;
	struct th_nic_desc *descs;
	char *names;
};

const struct th_verify_set *th_sim_chainset_set(const struct th_sim_chainset *cs)
{
	return &cs->set;
}

void th_sim_chainset_destroy(struct th_sim_chainset *cs)
{
	if (!cs)
		return;
	free(cs->chains);
	free(cs->descs);
	free(cs->names);
	free(cs);
}

/* sort keys of sends and receives: the pair they travel, then order */
struct cm_key {
	uint32_t dst, src, tag, op;
};

static int cm_key_cmp(const void *a, const void *b)
{
	const struct cm_key *x = a, *y = b;

	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->tag != y->tag)
		return x->tag < y->tag ? -1 : 1;
	return x->op < y->op ? -1 : x->op > y->op;
}

static void cm_where(const struct th_sim_goal *g, uint32_t op, char *buf,
		     size_t len)
{
	if (g->ops[op].line)
		snprintf(buf, len, "rank %u: the operation at line %u",
			 g->ops[op].rank, g->ops[op].line);
	else
		snprintf(buf, len, "rank %u: operation %u", g->ops[op].rank,
			 op - g->rank_first[g->ops[op].rank]);
}

/*
 * match[s] for each send s: the receive it lands in, the k-th send from
 * r to p with tag t pairing with p's k-th receive from r with tag t, each
 * in its rank's order.
 */
static int cm_match(const struct th_sim_goal *g, uint32_t *match, char *err,
		    size_t errlen)
{
	struct cm_key *s = NULL, *r = NULL;
	uint32_t ns = 0, nr = 0, i, j, op;
	char where[96];
	int ret = 0;

	s = calloc(g->nops + 1, sizeof(*s));
	r = calloc(g->nops + 1, sizeof(*r));
	if (!s || !r) {
		ret = -ENOMEM;
		goto out;
	}
	for (op = 0; op < g->nops; op++) {
		const struct sim_op *o = &g->ops[op];

		match[op] = UINT32_MAX;
		if (o->kind == SIM_SEND) {
			s[ns++] = (struct cm_key){ .dst = o->peer, .src = o->rank,
						   .tag = o->tag, .op = op };
		} else if (o->kind == SIM_RECV) {
			if (o->peer == SIM_ANY || o->tag == SIM_ANY) {
				cm_where(g, op, where, sizeof(where));
				sim_err(err, errlen,
					"%s, a receive from any %s, cannot be compiled into chains: a triggered put names its target counter when it is posted",
					where, o->peer == SIM_ANY ? "peer" : "tag");
				ret = -EINVAL;
				goto out;
			}
			r[nr++] = (struct cm_key){ .dst = o->rank, .src = o->peer,
						   .tag = o->tag, .op = op };
		}
	}
	qsort(s, ns, sizeof(*s), cm_key_cmp);
	qsort(r, nr, sizeof(*r), cm_key_cmp);
	for (i = 0, j = 0; i < ns || j < nr;) {
		int c = i == ns ? 1 : j == nr ? -1 : 0;

		if (!c) {
			struct cm_key a = s[i], b = r[j];

			a.op = 0;
			b.op = 0;
			c = cm_key_cmp(&a, &b);
		}
		if (!c) {
			match[s[i++].op] = r[j++].op;
			continue;
		}
		op = c < 0 ? s[i].op : r[j].op;
		cm_where(g, op, where, sizeof(where));
		sim_err(err, errlen, "%s, a %s, has no matching %s", where,
			c < 0 ? "send" : "receive", c < 0 ? "receive" : "send");
		ret = -EDEADLK;
		goto out;
	}
out:
	free(s);
	free(r);
	return ret;
}

static struct th_nic_desc cm_ct_inc(uint16_t ct)
{
	struct th_nic_desc d;

	memset(&d, 0, sizeof(d));
	d.opcode = TH_NIC_OP_CT_INC;
	d.ct.ct = ct;
	d.ct.value = 1;
	return d;
}

/* The CT_INCs that free @op's dependants of one kind (irequires: @istart). */
static uint32_t cm_frees(const struct th_sim_goal *g, uint32_t op,
			 uint32_t istart, struct th_nic_desc *out)
{
	uint32_t e, n = 0;

	for (e = g->out_first[op]; e < g->out_first[op + 1]; e++) {
		uint32_t w = g->out[e] >> 1;

		if ((g->out[e] & 1) != istart)
			continue;
		if (out)
			out[n] = cm_ct_inc((uint16_t)(w - g->rank_first[g->ops[w].rank]));
		n++;
	}
	return n;
}

/* The main descriptor of @op, if it has one: a PUT, or a calc's work. */
static bool cm_main(const struct th_sim_goal *g, const struct th_sim_nic *nic,
		    uint32_t op, const uint32_t *match, struct th_nic_desc *d)
{
	const struct sim_op *o = &g->ops[op];

	memset(d, 0, sizeof(*d));
	if (o->kind == SIM_SEND) {
		uint32_t r = match[op];

		d->opcode = TH_NIC_OP_PUT;
		d->flags = TH_NIC_DF_REMOTE_CT;
		d->xfer.node = o->peer;
		d->xfer.len = o->arg;
		d->xfer.remote_ct = (uint16_t)(r - g->rank_first[o->peer]);
		return true;
	}
	if (o->kind == SIM_CALC && o->arg) {
		/* o->arg ns of the node's engine: a copy that long */
		d->opcode = TH_NIC_OP_COPY;
		d->copy.len = o->arg * 1000 / nic->copy_ps;
		return true;
	}
	return false;
}

/*
 * Operation @op's chain, into @d (room for cm_len()): the CT_INCs that
 * free its irequiring operations, its PUT or its work, the CT_INCs that
 * free its requiring ones; a NOP when it has none of them.  The first
 * waits on its gate for its dependencies, and a receive for its message.
 */
static uint32_t cm_emit(const struct th_sim_goal *g, const struct th_sim_nic *nic,
			uint32_t op, const uint32_t *match, struct th_nic_desc *d)
{
	const struct sim_op *o = &g->ops[op];
	uint32_t n = 0;

	n += cm_frees(g, op, 1, d + n);
	n += cm_main(g, nic, op, match, d + n);
	n += cm_frees(g, op, 0, d + n);
	if (!n) {
		memset(d, 0, sizeof(*d));
		d[n++].opcode = TH_NIC_OP_NOP;
	}
	d[0].trig_ct = (uint16_t)(op - g->rank_first[o->rank]);
	d[0].threshold = g->nin[op] + (o->kind == SIM_RECV);
	return n;
}

/* descriptors operation @op's chain takes */
static uint32_t cm_len(const struct th_sim_goal *g, uint32_t op)
{
	return 2 + g->out_first[op + 1] - g->out_first[op];
}

/* A NOP for a rank with no operation, so that every rank is a node. */
static struct th_nic_desc cm_idle(void)
{
	struct th_nic_desc d;

	memset(&d, 0, sizeof(d));
	d.opcode = TH_NIC_OP_NOP;
	return d;
}

/*
 * What every compile checks first: a finalized schedule, a copy rate for
 * its calcs, ranks and calcs within the limits; then the matching.
 */
static int cm_prepare(const struct th_sim_goal *g, const struct th_sim_nic *nic,
		      uint32_t **match, char *err, size_t errlen)
{
	uint32_t op, rank;
	char where[96];
	int ret;

	*match = NULL;
	if (!g || !g->finalized) {
		sim_err(err, errlen, "no schedule");
		return -EINVAL;
	}
	if (!nic->copy_ps) {
		sim_err(err, errlen, "a calc is compiled into NIC work: it needs a copy rate above 0 ps a byte");
		return -EINVAL;
	}
	for (rank = 0; rank < g->nranks; rank++)
		if (g->rank_first[rank + 1] - g->rank_first[rank] > SIM_CHAIN_MAX_OPS) {
			sim_err(err, errlen,
				"rank %u has %u operations; compiled into chains, each takes one of its node's %u counters",
				rank, g->rank_first[rank + 1] - g->rank_first[rank],
				SIM_CHAIN_MAX_OPS);
			return -E2BIG;
		}
	for (op = 0; op < g->nops; op++)
		if (g->ops[op].kind == SIM_CALC &&
		    g->ops[op].arg > UINT64_MAX / 1000) {
			cm_where(g, op, where, sizeof(where));
			sim_err(err, errlen, "%s: a calc of %" PRIu64 " ns is too long to compile",
				where, g->ops[op].arg);
			return -E2BIG;
		}
	*match = calloc(g->nops + 1, sizeof(**match));
	if (!*match) {
		sim_err(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ret = cm_match(g, *match, err, errlen);
	if (ret == -ENOMEM)
		sim_err(err, errlen, "out of memory");
	return ret;
}

int th_sim_goal_chains(const struct th_sim_goal *g, const struct th_sim_nic *nic,
		       struct th_sim_chainset **out, char *err, size_t errlen)
{
	struct th_sim_chainset *cs = NULL;
	struct th_sim_nic defaults;
	uint32_t *match = NULL;
	uint64_t ndesc = 0, at = 0;
	uint32_t op, rank, idle = 0;
	int ret;

	if (err && errlen)
		err[0] = '\0';
	*out = NULL;
	if (!nic) {
		th_sim_nic_default(&defaults);
		nic = &defaults;
	}
	ret = cm_prepare(g, nic, &match, err, errlen);
	if (ret)
		goto fail;
	for (op = 0; op < g->nops; op++)
		ndesc += cm_len(g, op);
	for (rank = 0; rank < g->nranks; rank++)
		idle += g->rank_first[rank + 1] == g->rank_first[rank];
	ndesc += idle;
	cs = calloc(1, sizeof(*cs));
	if (cs) {
		cs->chains = calloc((size_t)g->nops + idle + 1, sizeof(*cs->chains));
		cs->descs = calloc(ndesc + 1, sizeof(*cs->descs));
		cs->names = calloc((size_t)g->nops + idle + 1, SIM_CHAIN_NAME);
	}
	if (!cs || !cs->chains || !cs->descs || !cs->names) {
		sim_err(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto fail;
	}
	for (op = 0; op < g->nops; op++) {
		const struct sim_op *o = &g->ops[op];
		struct th_nic_desc *d = &cs->descs[at];
		char *name = &cs->names[(size_t)op * SIM_CHAIN_NAME];
		uint32_t n = cm_emit(g, nic, op, match, d);

		snprintf(name, SIM_CHAIN_NAME, "r%u.op%u", o->rank,
			 op - g->rank_first[o->rank]);
		cs->chains[op] = (struct th_verify_chain){
			.name = name, .node = o->rank, .descs = d, .ndesc = n };
		at += n;
	}
	for (rank = 0, op = g->nops; rank < g->nranks; rank++) {
		char *name = &cs->names[(size_t)op * SIM_CHAIN_NAME];

		if (g->rank_first[rank + 1] != g->rank_first[rank])
			continue;
		cs->descs[at] = cm_idle();
		snprintf(name, SIM_CHAIN_NAME, "r%u.idle", rank);
		cs->chains[op++] = (struct th_verify_chain){
			.name = name, .node = rank, .descs = &cs->descs[at],
			.ndesc = 1 };
		at++;
	}
	cs->set.chains = cs->chains;
	cs->set.nchains = g->nops + idle;
	free(match);
	*out = cs;
	return 0;
fail:
	free(match);
	th_sim_chainset_destroy(cs);
	return ret;
}

/*
 * The same compile straight into the simulator's own form, one chain at a
 * time through a scratch buffer: the NIC's 128-byte descriptors of the
 * whole schedule are never held at once.
 */
int th_sim_goal_offload(const struct th_sim_goal *g,
			const struct th_sim_params *params,
			const struct th_sim_nic *nic, struct th_sim_result *res,
			char *err, size_t errlen)
{
	struct th_nic_desc *scratch = NULL, idle = cm_idle();
	struct th_sim_nic defaults;
	uint32_t *match = NULL, op, rank, room = 0;
	struct sim_cset cs;
	int ret;

	memset(res, 0, sizeof(*res));
	if (err && errlen)
		err[0] = '\0';
	if (!params) {
		sim_err(err, errlen, "no parameters");
		return -EINVAL;
	}
	if (!nic) {
		th_sim_nic_default(&defaults);
		nic = &defaults;
	}
	sim_cset_init(&cs, nic);
	ret = cm_prepare(g, nic, &match, err, errlen);
	for (op = 0; !ret && op < g->nops; op++)
		if (cm_len(g, op) > room)
			room = cm_len(g, op);
	if (!ret) {
		scratch = calloc(room + 1, sizeof(*scratch));
		if (!scratch)
			ret = -ENOMEM;
	}
	for (op = 0; !ret && op < g->nops; op++)
		ret = sim_cset_add_chain(&cs, g->ops[op].rank, 0, scratch,
					 cm_emit(g, nic, op, match, scratch));
	for (rank = 0; !ret && rank < g->nranks; rank++)
		if (g->rank_first[rank + 1] == g->rank_first[rank])
			ret = sim_cset_add_chain(&cs, rank, 0, &idle, 1);
	if (ret == -ENOMEM)
		sim_err(err, errlen, "out of memory");
	else if (ret == -E2BIG && err && !err[0])
		sim_err(err, errlen, "the compiled chains pass 2^30 descriptors or counters");
	free(scratch);
	free(match);
	if (!ret)
		ret = sim_cset_run(&cs, params, NULL, res, NULL, err, errlen);
	sim_cset_fini(&cs);
	return ret;
}
