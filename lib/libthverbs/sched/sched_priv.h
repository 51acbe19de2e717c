/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* sched_priv.h - the scheduler's private structs and cross-file helpers. */
#ifndef TH_SCHED_PRIV_H
#define TH_SCHED_PRIV_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include <thverbs/sched.h>

#define TH_NONE		0xffffffffu


/* Relative tolerance for comparing times built from sums of costs. */
#define TH_SCHED_EPS	1e-9

struct th_dag_edge {
	unsigned int from;
	unsigned int to;
	double cost;
};

struct th_dag {
	unsigned int ntasks;		/* real + virtual */
	unsigned int nreal;
	unsigned int cap_tasks;
	unsigned int nprocs;		/* 0 until costs exist */
	char **names;			/* NULL entries: default names */
	double *base;			/* structural weight, w̄ source */
	double *w;			/* dense: ntasks x nprocs; classes: nrows x nclasses */
	double *wmean;			/* w̄, up to date unless wstale */
	bool *wstale;			/* set_cost changed the row since */
	bool *virt;

	/*
	 * The class layout (th_dag_set_classes()), NULL/0 in the dense one:
	 * processors of one class cost every task the same, so a task keeps
	 * a row per class, or one processor it is pinned to, or nothing
	 * (cost 0).  Memory: tasks + free tasks x classes, not tasks x procs.
	 */
	unsigned int nclasses;
	unsigned int *proc_class;	/* per processor */
	unsigned int *class_off;	/* nclasses + 1, into class_procs */
	unsigned int *class_procs;	/* processors grouped by class, ascending */
	unsigned int *pin;		/* per task: its processor, TH_NONE: free */
	double *pin_w;			/* per task: its cost there */
	unsigned int *row;		/* per task: its row of w, TH_NONE: all 0,
					   TH_DAG_AFFINE: aff_a + aff_b / class_div */
	unsigned int nrows, cap_rows;
	double *class_div;		/* per class, for affine costs */
	double *aff_a, *aff_b;		/* per task */
	bool class_sorted;		/* finalize: every row non-decreasing */

	unsigned int nedges;
	unsigned int cap_edges;
	struct th_dag_edge *edges;

	/* built by th_dag_finalize(): edge indices grouped per task */
	bool finalized;
	unsigned int *pred_off;		/* ntasks + 1 */
	unsigned int *pred;		/* edge indices, by from */
	unsigned int *succ_off;
	unsigned int *succ;
	unsigned int *topo;		/* a topological order */
	unsigned int entry;
	unsigned int exit;
};

/* The most processors a graph's costs may span (TH_PLACE_MAX_NODES too). */
#define TH_DAG_MAX_PROCS	4096

/* Processors above which the class layout's scale mode applies (sched.c). */
#define TH_DAG_EXACT_PROCS	256

#define TH_DAG_AFFINE	0xfffffffeu

/* Task v's cost on processor class c (class layout). */
static inline double th_dag_class_w(const struct th_dag *dag, unsigned int v,
				    unsigned int c)
{
	unsigned int r = dag->row[v];

	if (r == TH_NONE)
		return 0;
	if (r == TH_DAG_AFFINE)
		return dag->aff_a[v] + dag->aff_b[v] / dag->class_div[c];
	return dag->w[(size_t)r * dag->nclasses + c];
}

/* The w(v, s) table, whichever layout holds it. */
static inline double th_dag_w(const struct th_dag *dag, unsigned int v,
			      unsigned int s)
{
	if (!dag->proc_class)
		return dag->w[(size_t)v * dag->nprocs + s];
	if (dag->pin[v] != TH_NONE)
		return s == dag->pin[v] ? dag->pin_w[v] : INFINITY;
	return th_dag_class_w(dag, v, dag->proc_class[s]);
}

/*
 * A processor's timeline, and the index of its idle gaps (gaps.c): two
 * max-trees over the timeline's positions, @tcap leaves each (a power of
 * two >= @cap), leaf i for position i:
 *   room    how long a copy may last to fit just before the busy slot at
 *           i, judged from the previous busy slot's finish (rounded up:
 *           never less than the exact test accepts); -inf when empty
 *   finish  the busy slot's finish; -inf when empty
 */
struct th_sched_proc {
	unsigned int n;
	unsigned int cap;
	unsigned int *slots;		/* slot indices, ordered by start */
	unsigned int tcap;
	double *room;			/* 2 * tcap */
	double *finish;			/* 2 * tcap */
};

struct th_sched {
	const struct th_dag *dag;
	unsigned int nslots;
	unsigned int cap_slots;
	struct th_sched_slot *slots;
	unsigned int *next_copy;	/* per slot: next copy of the task */
	unsigned int *first_copy;	/* per task */
	unsigned int *primary;		/* per task */
	double *aft_min;		/* per task: earliest finish of a copy */
	struct th_sched_proc *procs;
	/*
	 * per task, a bit per processor holding a copy: skips copy scans;
	 * NULL in the scale mode (tasks x processors bits), where the
	 * copies are walked instead.  Code that takes a copy off a
	 * timeline clears its bit (when not NULL) and calls
	 * th_sched_proc_changed(): th_sched_place() does both for a new one.
	 */
	uint64_t *copy_mask;
	unsigned int mask_words;
	/* whose schedule this is (th_sched_alg_of()); NR_ALGS: by hand */
	enum th_sched_alg alg;
	/*
	 * The scale mode (th_sched_candidates()): a class layout over more
	 * than TH_DAG_EXACT_PROCS processors.  Per class, a min-tree of its
	 * processors' idle-after times (iat), leaf class_pos[p] of class
	 * proc_class[p]'s tree at iat_tree + tree_off[c], tree_cap[c] leaves.
	 */
	bool scaled;
	unsigned int *cand;		/* nprocs: the candidate list */
	unsigned int *cand_seen;	/* per processor: stamp of its last list */
	unsigned int *cand_host;	/* per processor: stamp, when a host */
	unsigned int stamp;
	double cand_r0;			/* the list's data-ready time off hosts */
	unsigned int *class_pos;
	unsigned int *tree_off;
	unsigned int *tree_cap;
	double *iat_tree;
};

/* The latest finish of an exit task; INFINITY while one is unplaced. */
static inline double th_sched_makespan_of(const struct th_sched *s)
{
	const struct th_dag *dag = s->dag;
	double ms = 0;
	unsigned int i;

	for (i = 0; i < dag->ntasks; i++)
		if (dag->succ_off[i + 1] == dag->succ_off[i])
			ms = fmax(ms, s->aft_min[i]);
	return ms;
}

/* gaps.c */
int th_gaps_reserve(struct th_sched_proc *pr, unsigned int cap);
void th_gaps_update(const struct th_sched *s, struct th_sched_proc *pr,
		    unsigned int from);
double th_gaps_first_fit(const struct th_sched *s,
			 const struct th_sched_proc *pr, unsigned int i,
			 double t, double dur);
void th_gaps_free(struct th_sched_proc *pr);
double th_sched_gap_start_linear(const struct th_sched *s, unsigned int proc,
				 double ready, double dur);

static inline bool th_sched_mask_test(const struct th_sched *s,
				      unsigned int task, unsigned int proc)
{
	unsigned int x;

	if (!s->copy_mask) {
		for (x = s->first_copy[task]; x != TH_NONE; x = s->next_copy[x])
			if (s->slots[x].proc == proc)
				return true;
		return false;
	}
	return s->copy_mask[(size_t)task * s->mask_words + proc / 64] >>
	       (proc % 64) & 1;
}

/*
 * Cross-file helpers are hidden: libthverbs.so's version script exports
 * th_*, and only thverbs/sched.h is the API.
 */
#pragma GCC visibility push(hidden)

/*
 * dag.c: the class layout, for the placer (place.c): @nprocs processors,
 * processor s in class @class_of[s] < @nclasses, every class used.  Costs
 * are then set per class (th_dag_set_class_cost()) or by pinning a task to
 * one processor (th_dag_pin(), infinite elsewhere); th_dag_set_cost() is
 * refused.  th_dag_set_procs() returns to the dense layout.
 */
int th_dag_set_classes(struct th_dag *dag, unsigned int nprocs,
		       const unsigned int *class_of, unsigned int nclasses);
int th_dag_set_class_cost(struct th_dag *dag, unsigned int task,
			  unsigned int cls, double w);
int th_dag_pin(struct th_dag *dag, unsigned int task, unsigned int proc,
	       double w);
/*
 * Affine class costs, two numbers a task however many classes: task
 * @task costs @a + @b / div[c] on class c, div[] set once per graph by
 * th_dag_set_class_divisors() (positive, finite; the placer's ALU rates).
 */
int th_dag_set_class_divisors(struct th_dag *dag, const double *div);
int th_dag_set_affine(struct th_dag *dag, unsigned int task, double a,
		      double b);

/* sched.c: the placement machinery shared by the algorithms */
double th_sched_arrival(const struct th_sched *s, unsigned int edge,
			unsigned int proc);
double th_sched_data_ready(const struct th_sched *s, unsigned int v,
			   unsigned int proc, unsigned int skip_parent);
double th_sched_proc_iat(const struct th_sched *s, unsigned int proc);
double th_sched_gap_start(const struct th_sched *s, unsigned int proc,
			  double ready, double dur);
bool th_sched_has_copy_on(const struct th_sched *s, unsigned int task,
			  unsigned int proc);
int th_sched_place_best(struct th_sched *s, unsigned int v, bool insertion);
void th_sched_proc_changed(struct th_sched *s, unsigned int proc);
#define TH_SCHED_CAND_CPARENT	0xfffffffeu
unsigned int th_sched_candidates(struct th_sched *s, unsigned int v,
				 unsigned int also, bool prune,
				 const unsigned int **out);
int th_sched_ready_order(const struct th_dag *dag, const unsigned int *list,
			 unsigned int *out);
/*
 * The list of HEFT and PEFT: the tasks by decreasing @rank, ties by task
 * number, then in ready order (th_sched_ready_order()).  -ENOMEM.
 */
int th_sched_list_by_rank(const struct th_dag *dag, const double *rank,
			  unsigned int *out);

/* The algorithms, each in its file; the schedule s starts empty. */
int th_sched_heft(struct th_sched *s);
int th_sched_pets(struct th_sched *s);
int th_sched_hcpfd(struct th_sched *s);
int th_sched_hagd(struct th_sched *s, bool early);
int th_sched_peft(struct th_sched *s);
int th_sched_portfolio(struct th_sched *s);
int th_sched_heft_list(const struct th_dag *dag, unsigned int *out);
int th_sched_pets_list(const struct th_dag *dag, unsigned int *out);
int th_sched_hcpfd_list(const struct th_dag *dag, unsigned int *out);
int th_sched_hagd_list(const struct th_dag *dag, unsigned int *out);
int th_sched_peft_list(const struct th_dag *dag, unsigned int *out);
/* portfolio.c: exchanges two schedules of the same graph */
void th_sched_swap(struct th_sched *a, struct th_sched *b);

#pragma GCC visibility pop

/* A small seeded PRNG: splitmix64 seeding xoshiro256**. */
struct th_rng {
	uint64_t s[4];
};

static inline uint64_t th_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline void th_rng_seed(struct th_rng *r, uint64_t seed)
{
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = th_splitmix64(&seed);
}

static inline uint64_t th_rng_next(struct th_rng *r)
{
	uint64_t *s = r->s;
	uint64_t x = s[1] * 5;
	uint64_t res = ((x << 7) | (x >> 57)) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = (s[3] << 45) | (s[3] >> 19);
	return res;
}

/* Uniform in [0, 1). */
static inline double th_rng_unit(struct th_rng *r)
{
	return (double)(th_rng_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform in [lo, hi] for integers, lo <= hi. */
static inline unsigned int th_rng_range(struct th_rng *r, unsigned int lo,
					unsigned int hi)
{
	return lo + (unsigned int)(th_rng_next(r) % ((uint64_t)hi - lo + 1));
}

static inline bool th_time_le(double a, double b)
{
	return a <= b + TH_SCHED_EPS * (1.0 + fabs(b));
}

#endif /* TH_SCHED_PRIV_H */
