/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * thverbs/sched.h - DAG list scheduling: the task-graph model, its inputs (STG
 * files, the th_dag text format, generators) and the HEFT, PETS, HCPFD,
 * HAGD and PEFT schedulers and a portfolio of them, with a validator and
 * metrics, as the project's design defines them; Documentation/scheduler.rst
 * describes them.
 *
 * Conventions: functions return 0 or a negative errno; constructors return
 * NULL and set errno.  Task and processor numbers are indices from 0.
 * Objects are single-threaded: use one per thread.
 */
#ifndef TH_SCHED_H
#define TH_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <thverbs/api.h>

TH_API_BEGIN

struct th_dag;
struct th_sched;

/* ------------------------------------------------------------------ */
/* The DAG model                                                       */

/*
 * Building a graph: create it with its task count, add edges, give every
 * task its per-processor costs (th_dag_set_procs() then th_dag_set_cost(),
 * or th_dag_set_base() and th_dag_assign_costs()), then th_dag_finalize().
 * Finalizing checks acyclicity and adds a virtual start and/or exit task
 * (zero cost, zero-cost edges) when the graph has several entries or exits;
 * virtual tasks are numbered after the real ones.  The structure is frozen
 * once finalized; costs may still change.
 */
struct th_dag *th_dag_create(unsigned int ntasks);
void th_dag_destroy(struct th_dag *dag);
int th_dag_set_name(struct th_dag *dag, unsigned int task, const char *name);
int th_dag_add_edge(struct th_dag *dag, unsigned int from, unsigned int to,
		    double cost);
int th_dag_set_procs(struct th_dag *dag, unsigned int nprocs);
/*
 * w(task, proc) >= 0; INFINITY means the task cannot run on that processor
 * (it is pinned to the others: a job's contribution lives on its member's
 * node).  w̄ is the mean over the processors it can run on; a graph with a
 * task that can run nowhere is refused by th_sched_run() (-EINVAL).
 */
int th_dag_set_cost(struct th_dag *dag, unsigned int task, unsigned int proc,
		    double w);
int th_dag_set_base(struct th_dag *dag, unsigned int task, double wbar);
int th_dag_set_edge_cost(struct th_dag *dag, unsigned int edge, double cost);
int th_dag_finalize(struct th_dag *dag);

unsigned int th_dag_ntasks(const struct th_dag *dag);	/* incl. virtual */
unsigned int th_dag_nreal(const struct th_dag *dag);	/* user's tasks */
unsigned int th_dag_nprocs(const struct th_dag *dag);
unsigned int th_dag_nedges(const struct th_dag *dag);
bool th_dag_is_virtual(const struct th_dag *dag, unsigned int task);
const char *th_dag_name(const struct th_dag *dag, unsigned int task);
double th_dag_cost(const struct th_dag *dag, unsigned int task,
		   unsigned int proc);
double th_dag_base(const struct th_dag *dag, unsigned int task);
int th_dag_edge(const struct th_dag *dag, unsigned int edge,
		unsigned int *from, unsigned int *to, double *cost);
/* The entry and exit task of a finalized graph (virtual ones if added). */
unsigned int th_dag_entry(const struct th_dag *dag);
unsigned int th_dag_exit(const struct th_dag *dag);

/* w̄(v): the mean of w(v, s) over the processors. */
double th_dag_mean_cost(const struct th_dag *dag, unsigned int task);
/* CCR = sum of edge costs / sum of w̄. */
double th_dag_ccr(const struct th_dag *dag);
/* hf(v) = 2 max_s |w(v,s) - w̄(v)| / w̄(v), 0 when w̄(v) = 0. */
double th_dag_hf(const struct th_dag *dag, unsigned int task);

/*
 * Costs from a structure: w(v, s) uniform in [w̄(1 - beta/2), w̄(1 + beta/2)]
 * around the task's base weight, then edge costs drawn uniform in
 * [0.5, 1.5] and scaled so that sum c / sum w̄ = ccr.  Edges that touch a
 * zero-weight task (STG dummies, virtual tasks) cost 0.  Deterministic in
 * seed.
 */
int th_dag_assign_costs(struct th_dag *dag, unsigned int nprocs, double ccr,
			double beta, uint64_t seed);

/* ------------------------------------------------------------------ */
/* Inputs                                                              */

/**
 * struct th_dag_diag - where a parse failed, and the first warning
 * @line: 1-based line of the error (0: no position, e.g. out of memory)
 * @col: 1-based column of the error
 * @msg: the error, "expected ..." where a token was wrong
 * @warn_line: line of the first warning, 0 when none
 * @warn: the first warning (e.g. an STG header that disagrees)
 */
struct th_dag_diag {
	unsigned int line;
	unsigned int col;
	char msg[192];
	unsigned int warn_line;
	char warn[192];
};

/* STG text: structure and base weights only (no processors yet). */
struct th_dag *th_dag_parse_stg(const char *text, size_t len,
				struct th_dag_diag *diag);
/* The th_dag text format (Documentation/scheduler.rst), with costs. */
struct th_dag *th_dag_parse_text(const char *text, size_t len,
				 struct th_dag_diag *diag);
/* Reads a file and picks the parser: "thdag" first word, else STG. */
struct th_dag *th_dag_load(const char *path, struct th_dag_diag *diag);
/* Writes the th_dag text format; virtual tasks are left out. */
int th_dag_write_text(const struct th_dag *dag, FILE *f);

/**
 * struct th_dag_gen_params - the random layered generator
 * @ntasks: number of tasks v
 * @alpha: shape; height sqrt(v)/alpha, mean width alpha*sqrt(v)
 * @outdeg: maximum out-degree of a task
 * @seed: PRNG seed
 * The generated graph has base weights only: call th_dag_assign_costs().
 */
struct th_dag_gen_params {
	unsigned int ntasks;
	double alpha;
	unsigned int outdeg;
	uint64_t seed;
};

struct th_dag *th_dag_gen_random(const struct th_dag_gen_params *p);
/* Gaussian elimination of an m x m matrix: (m^2 + m - 2)/2 tasks. */
struct th_dag *th_dag_gen_gauss(unsigned int m, uint64_t seed);
/* FFT of m = 2^k points: 2m - 1 recursive plus m log2 m butterfly tasks. */
struct th_dag *th_dag_gen_fft(unsigned int m, uint64_t seed);

/* ------------------------------------------------------------------ */
/* Schedules                                                           */

enum th_sched_alg {
	TH_SCHED_HEFT,
	TH_SCHED_PETS,
	TH_SCHED_HCPFD,
	TH_SCHED_HAGD,
	TH_SCHED_HAGD_PLUS,
	TH_SCHED_PEFT,		/* Arabnejad & Barbosa 2014: optimistic cost table */
	TH_SCHED_PORTFOLIO,	/* every algorithm above, the least makespan kept */
	TH_SCHED_NR_ALGS,
};

const char *th_sched_alg_name(enum th_sched_alg alg);
/*
 * Returns the algorithm for "heft", "pets", "hcpfd", "hagd", "hagd+",
 * "peft", "portfolio", or -EINVAL.
 */
int th_sched_alg_from_name(const char *name);

#define TH_SCHED_SLOT_DUP	(1u << 0)	/* a duplicate copy */
#define TH_SCHED_SLOT_INSERTED	(1u << 1)	/* placed into an idle gap */

/**
 * struct th_sched_slot - one copy of a task on a processor
 * @task: the task
 * @proc: the processor
 * @start: start time
 * @finish: finish time, start + w(task, proc)
 * @flags: TH_SCHED_SLOT_*
 */
struct th_sched_slot {
	unsigned int task;
	unsigned int proc;
	double start;
	double finish;
	unsigned int flags;
};

/* An empty schedule of a finalized graph with processors. */
struct th_sched *th_sched_create(const struct th_dag *dag);
void th_sched_destroy(struct th_sched *s);
/* Schedules the graph; NULL with errno set on failure. */
struct th_sched *th_sched_run(const struct th_dag *dag, enum th_sched_alg alg);

/*
 * Places a copy by hand (tests, walk-throughs): the copy is the task's
 * primary unless flags holds TH_SCHED_SLOT_DUP.  Checks only ranges and
 * overlap on the processor (-EBUSY); th_sched_validate() checks the rest.
 */
int th_sched_place(struct th_sched *s, unsigned int task, unsigned int proc,
		   double start, unsigned int flags);

/*
 * Places the task's primary copy where it finishes earliest, starting no
 * earlier than @not_before nor before its inputs arrive, in the first idle
 * gap long enough (HEFT's insertion step); its parents must be placed.
 * Returns the processor, or -EEXIST when the task is placed already.
 */
int th_sched_place_eft(struct th_sched *s, unsigned int task,
		       double not_before);

unsigned int th_sched_nslots(const struct th_sched *s);
const struct th_sched_slot *th_sched_slot(const struct th_sched *s,
					  unsigned int i);
/*
 * The algorithm whose schedule this is: the one th_sched_run() ran, except
 * that a portfolio gives the algorithm that won (the least makespan; ties:
 * the earlier in enum th_sched_alg) and HAGD or hagd+ give TH_SCHED_HEFT
 * when their own schedule came out longer than HEFT's and HEFT's was kept.
 * -ENOENT for a schedule placed by hand.
 */
int th_sched_alg_of(const struct th_sched *s);
/* The slot index of the task's primary copy, or -ENOENT. */
int th_sched_primary(const struct th_sched *s, unsigned int task);
const struct th_dag *th_sched_dag(const struct th_sched *s);

/* ------------------------------------------------------------------ */
/* Pieces of the algorithms, exposed for tests and tools               */

/* HEFT's rank_u and HAGD's BL (the same recursion): out[ntasks]. */
int th_sched_bottom_levels(const struct th_dag *dag, double *out);
/*
 * The priority list of an algorithm (all tasks, virtual ones included), as
 * the placement phase consumes it after the tie rule: out[ntasks].
 */
int th_sched_list(const struct th_dag *dag, enum th_sched_alg alg,
		  unsigned int *out);
/* HAGD's criterion for a task: CCR > 1 + hf(cparent)/2. */
bool th_sched_hagd_criterion(const struct th_dag *dag, unsigned int cparent);
/* cparent(v) under the current schedule: the parent whose data arrives last. */
int th_sched_cparent(const struct th_sched *s, unsigned int task);

/**
 * struct th_sched_group_eval - HAGD's group duplication for one task
 * @cparent: the critical parent
 * @eft1: minimum EFT of the task alone, without insertion
 * @eft1_proc: where
 * @eft2: minimum EFT of the group cparent + task
 * @eft2_proc: where
 * @group_start: where the copy of cparent starts on @eft2_proc
 * @task_start: where the task starts on @eft2_proc
 */
struct th_sched_group_eval {
	unsigned int cparent;
	double eft1;
	unsigned int eft1_proc;
	double eft2;
	unsigned int eft2_proc;
	double group_start;
	double task_start;
};

/*
 * Evaluates group duplication for task on the current schedule.  eft_g, if
 * not NULL, receives EFT_g(s) for every processor, also those that already
 * hold a copy of cparent, which the choice of eft2 skips.  early selects
 * hagd+ (the copy starts as soon as its own inputs allow).
 */
int th_sched_group_eval(const struct th_sched *s, unsigned int task,
			bool early, struct th_sched_group_eval *ev,
			double *eft_g);

/* ------------------------------------------------------------------ */
/* Checking and measuring                                              */

/*
 * Independent check of a schedule against the model: every task placed
 * once plus duplicates, durations equal to w, no overlap on a processor,
 * every start at or after the arrival of every input.  On failure returns
 * -EINVAL and writes one line into why (if not NULL).
 */
int th_sched_validate(const struct th_sched *s, char *why, size_t len);

/**
 * struct th_sched_metrics - figures of a schedule
 * @makespan: latest finish time of an exit task
 * @cp_min: sum of minimum costs along CP_MIN
 * @slr: makespan / cp_min
 * @speedup: min_s sum_v w(v, s) / makespan
 * @efficiency: speedup / p
 * @ninserted: real tasks placed into an idle gap
 * @nduplicated: duplicate copies of real tasks
 */
struct th_sched_metrics {
	double makespan;
	double cp_min;
	double slr;
	double speedup;
	double efficiency;
	unsigned int ninserted;
	unsigned int nduplicated;
};

int th_sched_metrics(const struct th_sched *s, struct th_sched_metrics *m);

/* An SVG Gantt chart: one row per processor, duplicates hatched. */
int th_sched_write_svg(const struct th_sched *s, FILE *f, const char *title);
/*
 * The same, coloured by group: @group[task] < @ngroups (virtual tasks are
 * not drawn), with a legend of @names; duplicates lighter and hatched.
 */
int th_sched_write_svg_groups(const struct th_sched *s, FILE *f,
			      const char *title, const unsigned int *group,
			      unsigned int ngroups, const char *const *names);

TH_API_END

#endif /* TH_SCHED_H */
