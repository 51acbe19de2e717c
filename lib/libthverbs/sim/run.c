// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * run.c - the simulator's discrete-event core: operations run in virtual
 * time as their requires/irequires allow, each rank's CPUs and NICs charged
 * as LogGOPSim charges them under LogGP(S), receives matched to messages by
 * (peer, tag) with wildcards in posting order.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sim_priv.h"

enum sim_what {
	EV_OP,		/* an op whose dependencies are met tries to run */
	EV_MSG,		/* the message of a send reaches its peer */
};

#define OPF_STARTED	1u
#define OPF_DONE	2u
#define NIL		UINT32_MAX

struct sim_run {
	const struct th_sim_goal *g;
	const struct th_sim_params *p;
	struct sim_heap heap;
	uint64_t *o_free;		/* [rank * ncpus + cpu]: CPU busy until */
	uint64_t *gs_free, *gr_free;	/* [rank * nnics + nic]: NIC gaps */
	uint32_t *left;			/* [op]: dependencies not yet met */
	uint8_t *flags;			/* [op]: OPF_* */
	uint32_t *link;			/* [op]: next in its rank's queue */
	/* per rank: posted receives (RQ), arrived messages (UQ) by send op */
	uint32_t *rq_head, *rq_tail, *uq_head, *uq_tail;
	uint32_t *ready;		/* ops freed by the current event */
	uint32_t nready;
	uint64_t retries;		/* events pushed again: a unit was busy */
	bool overflow;
};

/* an event that found its unit busy runs again when the unit is free */
static int sim_retry(struct sim_run *s, uint64_t time, uint32_t op,
		     uint32_t what)
{
	s->retries++;
	return sim_heap_push(&s->heap, time, op, what);
}

static uint64_t sim_tadd(struct sim_run *s, uint64_t a, uint64_t b)
{
	uint64_t r;

	if (__builtin_add_overflow(a, b, &r)) {
		s->overflow = true;
		return UINT64_MAX;
	}
	return r;
}

/* (bytes - 1) * per_byte: LogGP charges the first byte in L, o or g */
static uint64_t sim_tbytes(struct sim_run *s, uint64_t bytes, uint64_t per_byte)
{
	uint64_t r;

	if (__builtin_mul_overflow(bytes ? bytes - 1 : 0, per_byte, &r)) {
		s->overflow = true;
		return UINT64_MAX;
	}
	return r;
}

static uint64_t sim_max(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static uint64_t *sim_cpu(struct sim_run *s, uint32_t rank, uint8_t cpu)
{
	return &s->o_free[(size_t)rank * s->g->ncpus + cpu];
}

static size_t sim_nic(struct sim_run *s, uint32_t rank, uint8_t nic)
{
	return (size_t)rank * s->g->nnics + nic;
}

/* @op's edges of one kind (irequires: @istart) are met */
static void sim_release(struct sim_run *s, uint32_t op, uint32_t istart)
{
	const struct th_sim_goal *g = s->g;
	uint32_t e;

	for (e = g->out_first[op]; e < g->out_first[op + 1]; e++) {
		uint32_t w = g->out[e] >> 1;

		if ((g->out[e] & 1) != istart)
			continue;
		if (!--s->left[w])
			s->ready[s->nready++] = w;
	}
}

static void sim_started(struct sim_run *s, uint32_t op)
{
	s->flags[op] |= OPF_STARTED;
	sim_release(s, op, 1);
}

static void sim_done(struct sim_run *s, uint32_t op)
{
	s->flags[op] |= OPF_DONE;
	sim_release(s, op, 0);
}

static void sim_queue_append(uint32_t *head, uint32_t *tail, uint32_t *link,
		     uint32_t rank, uint32_t op)
{
	link[op] = NIL;
	if (tail[rank] == NIL)
		head[rank] = op;
	else
		link[tail[rank]] = op;
	tail[rank] = op;
}

/*
 * The first entry of @rank's queue that pairs with (@src, @tag), taken out
 * of it; NIL when none.  @recvs: the queue holds receives (their peer and
 * tag may be wildcards) and (@src, @tag) is a message's; else the queue
 * holds messages (by send op) and (@src, @tag) is a receive's.
 */
static uint32_t sim_queue_take(struct sim_run *s, uint32_t *head, uint32_t *tail,
			uint32_t rank, uint32_t src, uint32_t tag, bool recvs)
{
	const struct sim_op *ops = s->g->ops;
	uint32_t prev = NIL, cur;

	for (cur = head[rank]; cur != NIL; prev = cur, cur = s->link[cur]) {
		uint32_t want_src, want_tag, got_src, got_tag;

		if (recvs) {
			want_src = ops[cur].peer;
			want_tag = ops[cur].tag;
			got_src = src;
			got_tag = tag;
		} else {
			want_src = src;
			want_tag = tag;
			got_src = ops[cur].rank;
			got_tag = ops[cur].tag;
		}
		if ((want_src == SIM_ANY || want_src == got_src) &&
		    (want_tag == SIM_ANY || want_tag == got_tag))
			break;
	}
	if (cur == NIL)
		return NIL;
	if (prev == NIL)
		head[rank] = s->link[cur];
	else
		s->link[prev] = s->link[cur];
	if (tail[rank] == cur)
		tail[rank] = prev;
	return cur;
}

/*
 * A rendezvous send (more than S bytes) completes when its receive matches,
 * at @now: the sender's CPU and NIC were held until then (LogGOPSim moves
 * them on to the match time, adding no handshake latency).
 */
static void sim_rendezvous_done(struct sim_run *s, uint32_t send, uint64_t now)
{
	const struct sim_op *op = &s->g->ops[send];
	uint64_t *cpu = sim_cpu(s, op->rank, op->cpu);
	size_t nic = sim_nic(s, op->rank, op->nic);

	*cpu = sim_max(*cpu, now);
	s->gs_free[nic] = sim_max(s->gs_free[nic], now);
	sim_done(s, send);
}

/* returns 0, or a negative errno when an event cannot be queued */
static int sim_event(struct sim_run *s, const struct sim_event *ev)
{
	const struct th_sim_params *p = s->p;
	const struct sim_op *op = &s->g->ops[ev->op];
	uint64_t t = ev->time, *cpu, avail;
	size_t nic;
	uint32_t m;

	if (ev->what == EV_MSG) {
		/*
		 * The message reaches op->peer: its CPU pays o plus the
		 * larger of (n-1)O and (n-1)G, its NIC the gap g and (n-1)G.
		 * The units are the send's numbers, as in LogGOPSim.
		 */
		uint32_t dst = op->peer;

		cpu = sim_cpu(s, dst, op->cpu);
		nic = sim_nic(s, dst, op->nic);
		avail = sim_max(*cpu, s->gr_free[nic]);
		if (avail > t)
			return sim_retry(s, avail, ev->op, EV_MSG);
		*cpu = sim_tadd(s, sim_tadd(s, t, p->o),
			    sim_max(sim_tbytes(s, op->arg, p->O), sim_tbytes(s, op->arg, p->G)));
		s->gr_free[nic] = sim_tadd(s, sim_tadd(s, t, p->g), sim_tbytes(s, op->arg, p->G));
		m = sim_queue_take(s, s->rq_head, s->rq_tail, dst, op->rank, op->tag, true);
		if (m == NIL) {
			sim_queue_append(s->uq_head, s->uq_tail, s->link, dst, ev->op);
			return 0;
		}
		if (op->arg > p->S)
			sim_rendezvous_done(s, ev->op, t);
		sim_done(s, m);
		return 0;
	}

	cpu = sim_cpu(s, op->rank, op->cpu);
	nic = sim_nic(s, op->rank, op->nic);
	switch (op->kind) {
	case SIM_CALC:
		if (*cpu > t)
			return sim_retry(s, *cpu, ev->op, EV_OP);
		*cpu = sim_tadd(s, t, op->arg);
		sim_started(s, ev->op);
		sim_done(s, ev->op);
		return 0;
	case SIM_SEND:
		avail = sim_max(*cpu, s->gs_free[nic]);
		if (avail > t)
			return sim_retry(s, avail, ev->op, EV_OP);
		/* o (and (n-1)O) on the CPU, g and (n-1)G on the NIC */
		*cpu = sim_tadd(s, sim_tadd(s, t, p->o), sim_tbytes(s, op->arg, p->O));
		s->gs_free[nic] = sim_tadd(s, sim_tadd(s, t, p->g), sim_tbytes(s, op->arg, p->G));
		sim_started(s, ev->op);
		/* the first byte arrives after o and L; G is paid at the receiver */
		if (sim_heap_push(&s->heap, sim_tadd(s, sim_tadd(s, t, p->o), p->L),
				  ev->op, EV_MSG))
			return -ENOMEM;
		if (op->arg <= p->S)
			sim_done(s, ev->op);	/* eager: done once injected */
		return 0;
	default:
		/* posting a receive costs nothing: o is paid when data lands */
		sim_started(s, ev->op);
		m = sim_queue_take(s, s->uq_head, s->uq_tail, op->rank, op->peer, op->tag,
			    false);
		if (m == NIL) {
			sim_queue_append(s->rq_head, s->rq_tail, s->link, op->rank, ev->op);
			return 0;
		}
		if (s->g->ops[m].arg > p->S)
			sim_rendezvous_done(s, m, t);
		sim_done(s, ev->op);
		return 0;
	}
}

/* the ready ops in LogGOPSim's order: by rank, sends, receives, calcs */
static int sim_ready_cmp(const void *a, const void *b, void *arg)
{
	const struct sim_op *ops = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (ops[x].rank != ops[y].rank)
		return ops[x].rank < ops[y].rank ? -1 : 1;
	if (ops[x].kind != ops[y].kind)
		return ops[x].kind < ops[y].kind ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * Queue the ops the last event freed, each at the time its unit is free
 * (not before @now: a CPU idle since earlier starts the op now).
 */
static int sim_queue_ready(struct sim_run *s, uint64_t now)
{
	uint32_t i;

	if (s->nready > 1)
		qsort_r(s->ready, s->nready, sizeof(*s->ready), sim_ready_cmp,
			s->g->ops);
	for (i = 0; i < s->nready; i++) {
		const struct sim_op *op = &s->g->ops[s->ready[i]];
		uint64_t t = *sim_cpu(s, op->rank, op->cpu);

		if (op->kind == SIM_SEND)
			t = sim_max(t, s->gs_free[sim_nic(s, op->rank, op->nic)]);
		if (sim_heap_push(&s->heap, sim_max(t, now), s->ready[i], EV_OP))
			return -ENOMEM;
	}
	s->nready = 0;
	return 0;
}

/* "name:line" or "operation #i" of an op, for messages */
static void sim_op_where(const struct th_sim_goal *g, uint32_t i, char *buf,
		     size_t len)
{
	if (g->ops[i].line)
		snprintf(buf, len, "the operation at line %" PRIu32, g->ops[i].line);
	else
		snprintf(buf, len, "operation #%" PRIu32,
			 i - g->rank_first[g->ops[i].rank] + 1);
}

/* after the run: say why an op never completed */
static int sim_explain(struct sim_run *s, char *err, size_t errlen)
{
	const struct th_sim_goal *g = s->g;
	char where[64];
	uint32_t i, r;

	for (r = 0; r < g->nranks; r++)
		if (s->uq_head[r] != NIL) {
			const struct sim_op *op = &g->ops[s->uq_head[r]];

			sim_op_where(g, s->uq_head[r], where, sizeof(where));
			sim_err(err, errlen,
				"rank %" PRIu32 ": a message of rank %" PRIu32 " (%s, tag %" PRIu32 ") arrived and no receive took it",
				r, op->rank, where, op->tag);
			return -EDEADLK;
		}
	for (i = 0; i < g->nops; i++) {
		const struct sim_op *op = &g->ops[i];

		if (s->flags[i] & OPF_DONE)
			continue;
		sim_op_where(g, i, where, sizeof(where));
		/* (a send left undone is a rendezvous whose message no
		 * receive took: the unexpected queue above names it) */
		if (s->flags[i] & OPF_STARTED)
			sim_err(err, errlen,
				"rank %" PRIu32 ": %s, a receive, was never matched by a send",
				op->rank, where);
		else
			sim_err(err, errlen,
				"rank %" PRIu32 ": %s never started: what it requires never completed",
				op->rank, where);
		return -EDEADLK;
	}
	return 0;
}

static bool sim_params_ok(const struct th_sim_params *p, char *err, size_t errlen)
{
	if (p->L >= SIM_MAX_PARAM || p->o >= SIM_MAX_PARAM ||
	    p->g >= SIM_MAX_PARAM || p->S >= SIM_MAX_SIZE ||
	    p->G >= SIM_MAX_PER_BYTE || p->O >= SIM_MAX_PER_BYTE) {
		sim_err(err, errlen,
			"LogGP parameters out of range: L, o, g below 2^32 ns, G and O below 2^20 ns a byte, S below 2^40");
		return false;
	}
	return true;
}

int th_sim_run(const struct th_sim_goal *g, const struct th_sim_params *params,
	       struct th_sim_result *res, char *err, size_t errlen)
{
	struct sim_run s = { .g = g, .p = params };
	size_t ncpu, nnic, nr;
	struct sim_event ev;
	uint32_t i, r, c;
	int ret = -ENOMEM;

	if (!g || !params || !res || !g->finalized)
		return -EINVAL;
	memset(res, 0, sizeof(*res));
	if (!sim_params_ok(params, err, errlen))
		return -EINVAL;
	nr = g->nranks;
	ncpu = nr * g->ncpus;
	nnic = nr * g->nnics;
	s.o_free = calloc(ncpu, sizeof(*s.o_free));
	s.gs_free = calloc(nnic, sizeof(*s.gs_free));
	s.gr_free = calloc(nnic, sizeof(*s.gr_free));
	s.left = malloc(((size_t)g->nops + 1) * sizeof(*s.left));
	s.flags = calloc((size_t)g->nops + 1, 1);
	s.link = malloc(((size_t)g->nops + 1) * sizeof(*s.link));
	s.ready = malloc(((size_t)g->nops + 1) * sizeof(*s.ready));
	s.rq_head = malloc(nr * sizeof(uint32_t));
	s.rq_tail = malloc(nr * sizeof(uint32_t));
	s.uq_head = malloc(nr * sizeof(uint32_t));
	s.uq_tail = malloc(nr * sizeof(uint32_t));
	res->finish_ns = calloc(nr, sizeof(*res->finish_ns));
	if (!s.o_free || !s.gs_free || !s.gr_free || !s.left || !s.flags ||
	    !s.link || !s.ready || !s.rq_head || !s.rq_tail || !s.uq_head ||
	    !s.uq_tail || !res->finish_ns) {
		sim_err(err, errlen, "out of memory for the simulation's state");
		goto out;
	}
	memset(s.rq_head, 0xff, nr * sizeof(uint32_t));
	memset(s.rq_tail, 0xff, nr * sizeof(uint32_t));
	memset(s.uq_head, 0xff, nr * sizeof(uint32_t));
	memset(s.uq_tail, 0xff, nr * sizeof(uint32_t));
	memcpy(s.left, g->nin, (size_t)g->nops * sizeof(*s.left));

	/* the ops free at time 0, rank by rank, in the ready order */
	for (r = 0; r < g->nranks; r++) {
		for (i = g->rank_first[r]; i < g->rank_first[r + 1]; i++)
			if (!s.left[i])
				s.ready[s.nready++] = i;
		if (sim_queue_ready(&s, 0))
			goto nomem;
	}
	while (sim_heap_pop(&s.heap, &ev)) {
		res->events++;
		if (sim_event(&s, &ev) || sim_queue_ready(&s, ev.time))
			goto nomem;
		if (s.overflow) {
			sim_err(err, errlen,
				"virtual time passed 2^64 ns: the schedule or parameters are too large");
			ret = -EOVERFLOW;
			goto out;
		}
	}
	ret = sim_explain(&s, err, errlen);
	if (ret)
		goto out;
	/* each operation and message once, however often it waited */
	res->events -= s.retries;
	res->ranks = g->nranks;
	/* a rank is finished when its last CPU is (LogGOPSim's report) */
	for (r = 0; r < g->nranks; r++) {
		uint64_t f = 0;

		for (c = 0; c < g->ncpus; c++)
			f = sim_max(f, *sim_cpu(&s, r, (uint8_t)c));
		res->finish_ns[r] = f;
		res->max_ns = sim_max(res->max_ns, f);
	}
	goto out;
nomem:
	sim_err(err, errlen, "out of memory for the event queue");
	ret = -ENOMEM;
out:
	sim_heap_fini(&s.heap);
	free(s.o_free);
	free(s.gs_free);
	free(s.gr_free);
	free(s.left);
	free(s.flags);
	free(s.link);
	free(s.ready);
	free(s.rq_head);
	free(s.rq_tail);
	free(s.uq_head);
	free(s.uq_tail);
	if (ret)
		th_sim_result_fini(res);
	return ret;
}

void th_sim_result_fini(struct th_sim_result *res)
{
	if (!res)
		return;
	free(res->finish_ns);
	memset(res, 0, sizeof(*res));
}
