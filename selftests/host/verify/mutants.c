// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * mutants.c - the mutation check (mutants.h): each mutant is a small
 * collective (2 ... 8 ranks, radix 2 ... 4, one segment or three) whose
 * plan th_coll_create_local_edit() hands over before posting; one random
 * small change is made to its descriptors, th_plan_verify() judges the
 * result, and the plan is posted and run for two rounds on the
 * in-process provider.  Each mutant lives in a child process of its own, so a hung
 * one is torn down by SIGKILL at its deadline, whatever state its fabric
 * is in; the results come back through shared memory.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <thverbs/coll.h>
#include <thverbs/verbs.h>
#include <thverbs/verify.h>
#include "mutants.h"
#include "plan.h"
#include "thverbs_priv.h"

#define MUT_MAX_RANKS	8
#define MUT_SEG_COUNT	8	/* elements per segment of a 3-segment mutant */
/* the child's own start-up and teardown, beyond the round's deadline */
#define MUT_GRACE_MS	10000
#define MUT_ROUNDS	2	/* rounds each mutant runs */
#define MUT_SETTLE_US	20000	/* after the rounds, for stragglers */

static const char *const mut_run_names[MUT_RUN_MAX] = {
	"ran fine", "wrong data", "failed", "hung",
};
static const char *const mut_kind_names[MUT_KIND_MAX] = {
	"threshold", "counter", "target", "length", "drop",
};

const char *mut_run_name(enum mut_run r)
{
	return r < MUT_RUN_MAX ? mut_run_names[r] : "?";
}

const char *mut_kind_name(enum mut_kind k)
{
	return k < MUT_KIND_MAX ? mut_kind_names[k] : "?";
}

static uint64_t mut_rand(uint64_t *s)
{
	/* splitmix64: every mutant's choices follow from its seed alone */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned int mut_pick(uint64_t *s, unsigned int n)
{
	return n ? (unsigned int)(mut_rand(s) % n) : 0;
}

struct mut_edit {
	uint64_t rng;
	uint32_t steps;		/* the plan's chains, once broken */
	unsigned int nnodes;
	unsigned int nseg;
	struct mut_result *r;
};

/* A descriptor of @pl that @ok accepts, picked at random: its index. */
static int mut_find_desc(struct th_plan *pl, uint64_t *rng,
			 bool (*ok)(const struct th_nic_desc *), uint32_t *step,
			 uint32_t *desc)
{
	unsigned int tries;

	for (tries = 0; tries < 64; tries++) {
		uint32_t s = mut_pick(rng, pl->nsteps);
		uint32_t i = mut_pick(rng, pl->step[s].ndesc);

		if (ok(&pl->desc[pl->step[s].first + i])) {
			*step = s;
			*desc = pl->step[s].first + i;
			return 0;
		}
	}
	return -ENOENT;
}

static bool mut_is_put(const struct th_nic_desc *d)
{
	return d->opcode == TH_NIC_OP_PUT;
}

static bool mut_has_counter(const struct th_nic_desc *d)
{
	return d->opcode == TH_NIC_OP_CT_INC || (d->flags & TH_NIC_DF_COMP_CT) ||
	       (d->opcode == TH_NIC_OP_PUT && (d->flags & TH_NIC_DF_REMOTE_CT));
}

/* A counter number the collectives use, other than @old. */
static uint16_t mut_other_counter(struct mut_edit *e, uint16_t old)
{
	uint16_t v;

	do {
		unsigned int k = mut_pick(&e->rng, 4 + 2 * e->nseg);

		v = k < 4 ? (uint16_t)k : (uint16_t)(8 + k - 4);
	} while (v == old);
	return v;
}

static int mut_threshold(struct th_plan *pl, struct mut_edit *e)
{
	uint32_t s = mut_pick(&e->rng, pl->nsteps);
	struct th_nic_desc *d = &pl->desc[pl->step[s].first];
	uint64_t old = d->threshold;

	d->threshold = mut_pick(&e->rng, 2) || !old ? old + 1 : old - 1;
	snprintf(e->r->what, sizeof(e->r->what),
		 "step %u (%s): threshold %llu -> %llu", s, pl->step[s].what,
		 (unsigned long long)old, (unsigned long long)d->threshold);
	return 0;
}

static int mut_counter(struct th_plan *pl, struct mut_edit *e)
{
	uint32_t s = mut_pick(&e->rng, pl->nsteps), i;
	struct th_nic_desc *d;
	uint16_t *field = NULL, old;
	const char *which;

	/* the trigger counter half the time, else a counter it raises */
	if (mut_pick(&e->rng, 2)) {
		d = &pl->desc[pl->step[s].first];
		field = &d->trig_ct;
		which = "trigger counter";
	} else {
		if (mut_find_desc(pl, &e->rng, mut_has_counter, &s, &i))
			return -ENOENT;
		d = &pl->desc[i];
		if (d->opcode == TH_NIC_OP_CT_INC) {
			field = &d->ct.ct;
			which = "ct_inc's counter";
		} else if (d->flags & TH_NIC_DF_COMP_CT) {
			field = &d->comp_ct;
			which = "completion counter";
		} else {
			field = &d->xfer.remote_ct;
			which = "put's remote counter";
		}
	}
	old = *field;
	*field = mut_other_counter(e, old);
	snprintf(e->r->what, sizeof(e->r->what), "step %u (%s): %s %u -> %u",
		 s, pl->step[s].what, which, old, *field);
	return 0;
}

static int mut_target(struct th_plan *pl, struct mut_edit *e)
{
	uint32_t s, i, old;
	struct th_nic_desc *d;

	if (mut_find_desc(pl, &e->rng, mut_is_put, &s, &i))
		return -ENOENT;
	d = &pl->desc[i];
	old = d->xfer.node;
	do {
		d->xfer.node = mut_pick(&e->rng, e->nnodes);
	} while (d->xfer.node == old);
	snprintf(e->r->what, sizeof(e->r->what), "step %u (%s): put's node %u -> %u",
		 s, pl->step[s].what, old, d->xfer.node);
	return 0;
}

static int mut_length(struct th_plan *pl, struct mut_edit *e)
{
	uint32_t s, i;
	struct th_nic_desc *d;
	uint64_t old;

	if (mut_find_desc(pl, &e->rng, mut_is_put, &s, &i))
		return -ENOENT;
	d = &pl->desc[i];
	old = d->xfer.len;
	switch (mut_pick(&e->rng, 3)) {
	case 0:
		d->xfer.len = old + 8;
		break;
	case 1:
		d->xfer.len = old >= 8 ? old - 8 : old + 16;
		break;
	default:
		d->xfer.len = old ? 2 * old : 64;
		break;
	}
	snprintf(e->r->what, sizeof(e->r->what), "step %u (%s): put's length %llu -> %llu",
		 s, pl->step[s].what, (unsigned long long)old,
		 (unsigned long long)d->xfer.len);
	return 0;
}

static int mut_drop(struct th_plan *pl, struct mut_edit *e)
{
	uint32_t s = mut_pick(&e->rng, pl->nsteps);

	if (pl->nsteps < 2)
		return -ENOENT;
	snprintf(e->r->what, sizeof(e->r->what), "step %u (%s): dropped", s,
		 pl->step[s].what);
	memmove(&pl->step[s], &pl->step[s + 1],
		(pl->nsteps - s - 1) * sizeof(pl->step[0]));
	pl->nsteps--;
	return 0;
}

/* th_coll_create_local_edit()'s hook: break the plan, then verify it. */
static int mut_edit_plan(struct th_plan *pl, const struct th_group *g, void *arg)
{
	static int (*const mutate[MUT_KIND_MAX])(struct th_plan *, struct mut_edit *) = {
		mut_threshold, mut_counter, mut_target, mut_length, mut_drop,
	};
	struct mut_edit *e = arg;
	const struct th_vport *vp = g->local[0].vp;
	struct th_verify_finding f[16];
	int n, i, ret = -ENOENT, tries;

	for (tries = 0; ret && tries < 16; tries++) {
		e->r->kind = (enum mut_kind)mut_pick(&e->rng, MUT_KIND_MAX);
		ret = mutate[e->r->kind](pl, e);
	}
	if (ret)
		return ret;
	e->steps = pl->nsteps;
	n = th_plan_verify(pl, g, &vp->ctx->attr, vp->sq_entries,
			   vp->cq_entries, f, 16);
	if (n < 0)
		return n;
	e->r->verified = true;
	for (i = 0; i < n && i < 16; i++)
		if (!th_verify_class_is_warning(f[i].cls)) {
			e->r->flagged = true;
			e->r->vclass = f[i].cls;
			break;
		}
	return 0;
}

/*
 * After the rounds, what the host cannot see in its buffers: every chain
 * of the plan ran each round, none more (a chain a round ahead of the
 * host, or one that never fires, waiting behind a data path that still
 * delivered), no chain failed, and no completion entry is left over (a
 * NOTIFY more than the rounds started).  A chain that never ran its rounds
 * is a hang, one that ran ahead or failed a failure.
 */
static void mut_settle(struct th_vport *const *vps, unsigned int n,
		       uint64_t want_done, struct mut_result *r)
{
	struct th_stats st, sum = { 0 };
	struct th_nic_cqe cqe;
	unsigned int rk;

	usleep(MUT_SETTLE_US);
	for (rk = 0; rk < n; rk++) {
		if (th_vport_stats(vps[rk], &st))
			continue;
		sum.chains_done += st.chains_done;
		sum.chains_failed += st.chains_failed;
		if (th_poll_cq(vps[rk], &cqe, 1) > 0)
			sum.cqes++;	/* an entry nobody waited for */
	}
	if (sum.chains_done < want_done)
		r->run = MUT_RAN_HUNG;
	else if (sum.chains_failed || sum.chains_done > want_done || sum.cqes)
		r->run = MUT_RAN_FAILED;
}

/* Rank @rank's element @i in round @round. */
static int64_t mut_value(unsigned int rank, uint32_t i, unsigned int round)
{
	return (int64_t)rank * 1000 + i + 1 + 100000 * (int64_t)round;
}

/* The child: one mutant, built, verified and run; its result in @r. */
static void mut_child(const struct mut_config *cfg, unsigned int idx,
		      struct mut_result *r)
{
	struct mut_edit e = { .rng = cfg->seed * 0x2545f4914f6cdd1dULL + idx, .r = r };
	struct th_coll_attr a = { .op = TH_NIC_ALU_SUM, .dtype = TH_NIC_DT_INT64 };
	struct th_vport *vps[MUT_MAX_RANKS];
	struct th_context *ctx[MUT_MAX_RANKS] = { 0 };
	int64_t *send[MUT_MAX_RANKS], *recv[MUT_MAX_RANKS], want;
	struct th_device **devs;
	unsigned int n, rk, i, round;
	struct th_coll *cl;
	int ndev = 0, ret;

	setenv("TH_VERIFY_PLANS", "0", 1);	/* the hook verifies; the run goes on */
	a.kind = (enum th_coll_kind)mut_pick(&e.rng, 3);
	n = 2 + mut_pick(&e.rng, MUT_MAX_RANKS - 1);
	a.radix = 2 + mut_pick(&e.rng, 3);
	a.count = mut_pick(&e.rng, 2) ? 3 * MUT_SEG_COUNT : 1;
	a.segment = MUT_SEG_COUNT;
	e.nseg = a.count > 1 ? 3 : 1;
	devs = th_device_list_get("inproc", &ndev);
	if (!devs || ndev <= 0)
		_exit(3);
	e.nnodes = n < (unsigned int)ndev ? n : (unsigned int)ndev;
	for (rk = 0; rk < n; rk++) {
		unsigned int node = rk % ndev;

		if (!ctx[node])
			ctx[node] = th_device_open(devs[node]);
		vps[rk] = ctx[node] ? th_vport_create(ctx[node], NULL) : NULL;
		send[rk] = calloc(a.count, sizeof(int64_t));
		recv[rk] = calloc(a.count, sizeof(int64_t));
		if (!vps[rk] || !send[rk] || !recv[rk])
			_exit(3);
	}
	r->run = MUT_RAN_HUNG;	/* until it is seen to end */
	cl = th_coll_create_local_edit(vps, n, &a, (void *const *)send,
				       (void *const *)recv, mut_edit_plan, &e);
	if (!cl) {
		/* refused at the doorbell (or the hook found nothing to break) */
		r->run = r->verified ? MUT_RAN_FAILED : MUT_RUN_MAX;
		_exit(0);
	}
	/*
	 * Two rounds, new data each: a plan is persistent, and a chain one
	 * round ahead of the host (one that fires at posting, say) shows
	 * only in the next
	 */
	r->run = MUT_RAN_OK;
	for (round = 0; round < MUT_ROUNDS; round++) {
		for (rk = 0; rk < n; rk++)
			for (i = 0; i < a.count; i++) {
				send[rk][i] = mut_value(rk, i, round);
				recv[rk][i] = 0;
			}
		ret = th_coll_start(cl);
		if (!ret)
			ret = th_coll_wait(cl, (uint64_t)cfg->timeout_ms * 1000000ULL);
		if (ret == -ETIMEDOUT) {
			r->run = MUT_RAN_HUNG;
			_exit(0);
		}
		if (ret) {
			r->run = MUT_RAN_FAILED;
			_exit(0);
		}
		for (rk = 0; rk < n; rk++) {
			if (a.kind == TH_COLL_REDUCE && rk)
				continue;
			for (i = 0; i < a.count; i++) {
				unsigned int s;

				want = a.kind == TH_COLL_BCAST ? mut_value(0, i, round) : 0;
				for (s = 0; a.kind != TH_COLL_BCAST && s < n; s++)
					want += mut_value(s, i, round);
				if (recv[rk][i] != want)
					r->run = MUT_RAN_WRONG;
			}
		}
	}
	mut_settle(vps, n, e.steps * MUT_ROUNDS, r);
	/* no teardown: the process's end is the fabric's */
	_exit(0);
}

struct mut_slot {
	pid_t pid;
	unsigned int idx;
	struct timespec start;
};

static long mut_ms_since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t->tv_sec) * 1000 + (now.tv_nsec - t->tv_nsec) / 1000000;
}

/* Reap child @sl (it ended with @status); its result checked. */
static void mut_reaped(struct mut_result *r, int status, bool killed)
{
	if (killed) {
		r->run = MUT_RAN_HUNG;
		return;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		/* crashed or could not set up: no run to speak of */
		r->run = MUT_RUN_MAX;
	}
}

int mut_run_all(const struct mut_config *cfg, struct mut_result *res,
		struct mut_matrix *mx, FILE *log)
{
	size_t bytes = (size_t)(cfg->mutants + 1) * sizeof(*res);
	struct mut_result *shared = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
					 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	unsigned int jobs = cfg->jobs ? cfg->jobs : 1, next = 0, running = 0, j;
	struct mut_slot *slot = calloc(jobs, sizeof(*slot));
	int status;

	if (shared == MAP_FAILED || !slot) {
		free(slot);
		return -ENOMEM;
	}
	memset(mx, 0, sizeof(*mx));
	for (j = 0; j < cfg->mutants; j++)
		shared[j] = (struct mut_result){ .run = MUT_RUN_MAX, .vclass = -1 };
	fflush(NULL);
	while (next < cfg->mutants || running) {
		for (j = 0; j < jobs && next < cfg->mutants; j++) {
			if (slot[j].pid)
				continue;
			slot[j].idx = next++;
			clock_gettime(CLOCK_MONOTONIC, &slot[j].start);
			slot[j].pid = fork();
			if (slot[j].pid == 0)
				mut_child(cfg, slot[j].idx, &shared[slot[j].idx]);
			if (slot[j].pid < 0) {
				slot[j].pid = 0;
				shared[slot[j].idx].run = MUT_RUN_MAX;
				continue;
			}
			running++;
		}
		for (j = 0; j < jobs; j++) {
			bool killed = false;
			pid_t p;

			if (!slot[j].pid)
				continue;
			p = waitpid(slot[j].pid, &status, WNOHANG);
			if (p == 0 && mut_ms_since(&slot[j].start) >
			    (long)cfg->timeout_ms + MUT_GRACE_MS) {
				kill(slot[j].pid, SIGKILL);
				p = waitpid(slot[j].pid, &status, 0);
				killed = true;
			}
			if (p != slot[j].pid)
				continue;
			mut_reaped(&shared[slot[j].idx], status, killed);
			slot[j].pid = 0;
			running--;
		}
		usleep(1000);
	}
	for (j = 0; j < cfg->mutants; j++) {
		const struct mut_result *r = &shared[j];

		res[j] = *r;
		if (log && cfg->verbose)
			fprintf(log, "mutant %u: %s: %s: %s, %s%s\n", j,
				mut_kind_name(r->kind), r->what,
				r->run < MUT_RUN_MAX ? mut_run_name(r->run) : "not run",
				r->flagged ? "flagged " : "not flagged",
				r->flagged ? th_verify_class_name(r->vclass) : "");
		if (r->run >= MUT_RUN_MAX || !r->verified)
			continue;
		mx->cell[r->run][r->flagged]++;
		mx->kind[r->kind][r->run][r->flagged]++;
		mx->mutants++;
	}
	munmap(shared, bytes);
	free(slot);
	return 0;
}

void mut_print(const struct mut_matrix *mx, FILE *f)
{
	unsigned int run, k, flagged = 0, flagged_fine = 0, missed = 0;

	fprintf(f, "%-12s %8s %12s\n", "run \\ verifier", "flagged", "not flagged");
	for (run = 0; run < MUT_RUN_MAX; run++)
		fprintf(f, "%-14s %8u %12u\n", mut_run_name(run),
			mx->cell[run][1], mx->cell[run][0]);
	for (run = 0; run < MUT_RUN_MAX; run++)
		flagged += mx->cell[run][1];
	flagged_fine = mx->cell[MUT_RAN_OK][1];
	missed = mx->cell[MUT_RAN_HUNG][0] + mx->cell[MUT_RAN_FAILED][0];
	fprintf(f, "by kind (hung/failed/wrong/fine, flagged:not):\n");
	for (k = 0; k < MUT_KIND_MAX; k++)
		fprintf(f, "  %-10s %u:%u %u:%u %u:%u %u:%u\n", mut_kind_name(k),
			mx->kind[k][MUT_RAN_HUNG][1], mx->kind[k][MUT_RAN_HUNG][0],
			mx->kind[k][MUT_RAN_FAILED][1], mx->kind[k][MUT_RAN_FAILED][0],
			mx->kind[k][MUT_RAN_WRONG][1], mx->kind[k][MUT_RAN_WRONG][0],
			mx->kind[k][MUT_RAN_OK][1], mx->kind[k][MUT_RAN_OK][0]);
	fprintf(f, "mutants %u; hung or failed and not flagged: %u; flagged that ran fine: %u of %u (%.1f %%)\n",
		mx->mutants, missed, flagged_fine, flagged,
		flagged ? 100.0 * flagged_fine / flagged : 0.0);
}
