/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * thverbs/place.h - placing several offload jobs onto the NIC nodes of one
 * fabric (Documentation/placement.rst): the jobs (collectives over member
 * sets, DAGs of offloadable steps), the fabric cost model, and the placer,
 * which turns every job into one DAG, schedules it with a th_sched
 * algorithm and predicts each job's finish, beside two baselines.
 *
 * Conventions as in thverbs/sched.h: calls return 0 or a negative errno;
 * constructors return NULL and set errno; parse errors fill a
 * struct th_dag_diag with the line, the column and what was expected.
 * Times are seconds, sizes bytes, rates bytes per second.
 */
#ifndef TH_PLACE_H
#define TH_PLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <thverbs/sched.h>
#include <thverbs/api.h>

TH_API_BEGIN

/*
 * Limits (Documentation/placement.rst, "Scale"): nodes of a model, jobs of
 * a job file, and tasks of one placement DAG (th_place_run() fails with
 * E2BIG above it).
 */
#define TH_PLACE_MAX_NODES	4096
#define TH_PLACE_MAX_JOBS	16384
#define TH_PLACE_MAX_TASKS	(1u << 24)

/* ---- the fabric cost model ------------------------------------------- */

/**
 * struct th_place_model - what an offloaded step costs on this fabric
 * @nodes: NIC nodes
 * @alu: per node, operand bytes the ALU reads per second when it reduces
 *	(th_place_reduce_cost()); nodes may differ
 * @descriptor: seconds of NIC work per descriptor (posting aside: the
 *	chains of a plan are posted once)
 * @latency: seconds from a PUT's issue to its arrival, between nodes
 * @bandwidth: bytes per second of a PUT or a COPY
 * @passes: operands per ALU pass (the NIC's 7); a reduction of k operands
 *	takes 1 + ceil((k - passes) / (passes - 1)) passes, each one
 *	descriptor, each after the first also reading the partial result
 * @wake: the host, for the timed mode (th_place_timed()); the placer
 *	places NIC work and never reads these three.  Seconds from a
 *	counter's update to a host that waited for it running again
 * @post: seconds of host software per command to the NIC (a posted
 *	chain, a counter update)
 * @cpu: operand bytes per second of a host's reduction on its CPU
 *	(th_hostcoll); 0: not charged.  All three are 0 by default: a free host
 */
struct th_place_model {
	unsigned int nodes;
	double *alu;
	double descriptor;
	double latency;
	double bandwidth;
	unsigned int passes;
	double wake;
	double post;
	double cpu;
};

/* A model of @nodes identical nodes with the documented defaults. */
struct th_place_model *th_place_model_create(unsigned int nodes);
/*
 * 0 when @m can drive the placer or the timed mode: rates positive and
 * finite, times non-negative and finite, at least 2 operands a pass;
 * -EINVAL otherwise (a model filled in by hand may be anything).
 */
int th_place_model_check(const struct th_place_model *m);
void th_place_model_destroy(struct th_place_model *m);
/*
 * The model file format:
 *	thmodel 1
 *	nodes N
 *	alu RATE            every node, bytes/s
 *	alu NODE RATE       one node
 *	descriptor SECONDS
 *	latency SECONDS
 *	bandwidth RATE
 *	wake SECONDS        the host, for the timed mode (0 if absent)
 *	post SECONDS
 *	cpu RATE            0: not charged
 * Later lines override earlier ones; '#' starts a comment line.
 */
struct th_place_model *th_place_model_parse(const char *text, size_t len,
					    struct th_dag_diag *diag);
struct th_place_model *th_place_model_load(const char *path,
					   struct th_dag_diag *diag);
int th_place_model_write(const struct th_place_model *m, FILE *f);

struct th_vport;
/*
 * Measure the model's descriptor cost, latency, bandwidth and ALU rate
 * (every node's: the provider's nodes are alike) with chains on @a and @b,
 * vports of two nodes driven by this process; @m keeps its node count.
 */
int th_place_calibrate(struct th_vport *a, struct th_vport *b,
		       struct th_place_model *m);

/*
 * Seconds a REDUCE of @operands operands of @bytes takes on @node: its
 * passes, each a descriptor, and every operand byte read, the partial
 * result again in each pass after the first.
 */
double th_place_reduce_cost(const struct th_place_model *m, unsigned int node,
			    unsigned int operands, uint64_t bytes);
/* Seconds a COPY of @bytes takes (a contribution's, a delivery's). */
double th_place_copy_cost(const struct th_place_model *m, uint64_t bytes);
/* Seconds a PUT of @bytes takes between two nodes. */
double th_place_put_cost(const struct th_place_model *m, uint64_t bytes);

/* ---- jobs ---------------------------------------------------------------- */

enum th_place_job_kind {
	TH_PLACE_ALLREDUCE,
	TH_PLACE_REDUCE,
	TH_PLACE_BCAST,
	TH_PLACE_DAG,
};

enum th_place_step {
	TH_PLACE_STEP_REDUCE,	/* combine @operands inputs of @bytes */
	TH_PLACE_STEP_COPY,	/* move @bytes */
};

struct th_place_jobs;

struct th_place_jobs *th_place_jobs_create(void);
void th_place_jobs_destroy(struct th_place_jobs *j);

/*
 * A collective job over @nmembers distinct nodes (@members), rooted at
 * member node @root, of @bytes per member, on a @radix-nomial tree
 * (0: 4).  Returns the job's index.
 */
int th_place_add_collective(struct th_place_jobs *j, const char *name,
			    enum th_place_job_kind kind,
			    const unsigned int *members, unsigned int nmembers,
			    unsigned int root, uint64_t bytes,
			    unsigned int radix);
/* A DAG job, empty; steps and edges are added to it.  Returns its index. */
int th_place_add_dag(struct th_place_jobs *j, const char *name);
/*
 * A step of DAG job @job: REDUCE of @operands inputs of @bytes, or COPY of
 * @bytes; pinned to node @on, or free with TH_PLACE_ANY.  Returns its
 * index within the job.
 */
#define TH_PLACE_ANY	0xffffffffu
int th_place_add_step(struct th_place_jobs *j, unsigned int job,
		      const char *name, enum th_place_step kind,
		      unsigned int operands, uint64_t bytes, unsigned int on);
/* @from's result (@bytes) is an input of @to (PUT when on other nodes). */
int th_place_add_edge(struct th_place_jobs *j, unsigned int job,
		      unsigned int from, unsigned int to, uint64_t bytes);

unsigned int th_place_njobs(const struct th_place_jobs *j);
const char *th_place_job_name(const struct th_place_jobs *j, unsigned int job);
enum th_place_job_kind th_place_job_kind(const struct th_place_jobs *j,
					 unsigned int job);
/*
 * A job's release time (seconds from the common start; its tasks start no
 * earlier, and its slowdown is measured from it) and its priority (a
 * weight > 0, default 1: the compositions take higher priorities first,
 * the FAIR one weighs slowdowns by it, and the fairness policy starts
 * from it).  -EINVAL out of range.
 */
int th_place_set_release(struct th_place_jobs *j, unsigned int job,
			 double seconds);
int th_place_set_priority(struct th_place_jobs *j, unsigned int job,
			  double priority);
double th_place_job_release(const struct th_place_jobs *j, unsigned int job);
double th_place_job_priority(const struct th_place_jobs *j, unsigned int job);
/* The highest node any job names, plus one. */
unsigned int th_place_nodes_named(const struct th_place_jobs *j);

/*
 * The job file format (Documentation/placement.rst):
 *	thjobs 1
 *	allreduce NAME members LIST root NODE bytes B [radix K] [JOBOPTS]
 *	reduce NAME members LIST root NODE bytes B [radix K] [JOBOPTS]
 *	bcast NAME members LIST root NODE bytes B [radix K] [JOBOPTS]
 *	dag NAME [JOBOPTS]
 *	  step NAME reduce OPERANDS BYTES [on NODE]
 *	  step NAME copy BYTES [on NODE]
 *	  edge FROM TO BYTES
 *	end
 * LIST is comma-separated nodes and ranges: 0-7,12,14.  Sizes take K, M
 * and G suffixes.  JOBOPTS: 'priority W' (a weight from 0.001 to 1000)
 * and 'release TIME' (seconds, or a number with s, ms, us or ns).  Anything else is an error at its line and column, and
 * nothing is returned.
 */
struct th_place_jobs *th_place_jobs_parse(const char *text, size_t len,
					  struct th_dag_diag *diag);
struct th_place_jobs *th_place_jobs_load(const char *path,
					 struct th_dag_diag *diag);

/* ---- the placer ------------------------------------------------------------ */

enum th_place_mode {
	TH_PLACE_SCHEDULED,	/* all jobs, one DAG, the chosen algorithm */
	TH_PLACE_TREES,		/* each job on its own tree over its members */
	TH_PLACE_SEQUENTIAL,	/* the jobs one after another, each on its tree */
};

/*
 * How the jobs' DAGs are composed into one schedule (Zhao and Sakellariou,
 * "Scheduling multiple DAGs onto heterogeneous systems", IPDPS 2006); every
 * one places each task where it finishes earliest, with insertion:
 *	MERGED       one DAG with a common entry and exit, the algorithm's own
 *	             schedule (its list order when jobs have release times)
 *	SEQUENTIAL   job after job (higher priority, then earlier release,
 *	             then file order), each in the algorithm's list order;
 *	             later jobs fill the earlier ones' idle gaps
 *	LEVEL        the tasks of all jobs by level (hops from the job's
 *	             entry), level after level, the list order within a level
 *	ALTERNATING  round robin: the next ready task of each job in turn
 *	FAIR         Zhao and Sakellariou's fairness policy: the next task is
 *	             the job's whose slowdown so far (its placed tasks' latest
 *	             finish against the same tasks' finish placed alone),
 *	             times its priority, is the highest
 *	WEIGHTED     the ready task of highest priority x bottom level (HEFT's
 *	             rank weighted by its job's priority); the fairness policy
 *	             raises the weights of the most slowed jobs
 *	LAXITY       least laxity first: each job's deadline is its release
 *	             plus its time alone over its priority, and the ready task
 *	             of earliest deadline less bottom level goes; the fairness
 *	             policy sets the deadlines from its bound
 *	BEST         every one above, and the one of least makespan is kept
 */
enum th_place_compose {
	TH_PLACE_COMPOSE_MERGED,
	TH_PLACE_COMPOSE_SEQUENTIAL,
	TH_PLACE_COMPOSE_LEVEL,
	TH_PLACE_COMPOSE_ALTERNATING,
	TH_PLACE_COMPOSE_FAIR,
	TH_PLACE_COMPOSE_WEIGHTED,
	TH_PLACE_COMPOSE_LAXITY,
	TH_PLACE_COMPOSE_BEST,
	TH_PLACE_COMPOSE_NR,
};

const char *th_place_compose_name(enum th_place_compose c);
/* The composition named "merged", "sequential", ..., or -EINVAL. */
int th_place_compose_from_name(const char *name);

/**
 * struct th_place_opts - how th_place_run_opts() places
 * @compose: the composition of the scheduled placement (MERGED: as
 *	th_place_run())
 * @fairness: 0, or a bound >= 1: no job's slowdown above it.  The placer tries every composition and then raises the
 *	priority of the most slowed job, schedule after schedule, and keeps
 *	the placement of least makespan that meets the bound; when none does,
 *	the one of least such slowdown, with @bound_met false
 * @floor: the scheduled placement is never longer than the 'trees'
 *	baseline: when that one is shorter, its schedule is returned
 *	(@from_trees)
 */
struct th_place_opts {
	enum th_place_compose compose;
	double fairness;
	bool floor;
};

/**
 * struct th_place_job_result - one job in a placement
 * @finish: when its last task finishes (seconds from the common start)
 * @alone: its makespan placed alone with the same mode and algorithm
 * @slowdown: (finish - its release) / alone
 */
struct th_place_job_result {
	double finish;
	double alone;
	double slowdown;
};

/**
 * struct th_place_task - what a task of the placement DAG is
 * @job: its job, TH_PLACE_ANY for the virtual start and exit
 * @role: 'C' a member's contribution, 'R' a combining task, 'D' the result
 *	delivered at a member, 'S' a DAG job's step, 0 virtual
 * @rank: the member (C, R, D: the tree node's rank) or the step's index
 */
struct th_place_task {
	unsigned int job;
	char role;
	unsigned int rank;
};

/**
 * struct th_place_result - a placement's prediction
 * @makespan: the last job's finish
 * @unfairness: mean absolute deviation of the jobs' slowdowns
 * @job: per job
 * @sched: the schedule (TH_PLACE_SCHEDULED and TREES; NULL for SEQUENTIAL),
 *	over the DAG of th_place_dag(); tasks are named JOB.TASK
 * @dag: that DAG
 * @task: per task of @dag, what it is
 * @max_slowdown: the largest slowdown
 * @jain: Jain's fairness index of the jobs' 1 / slowdown (th_place_jain())
 * @compose: the composition the schedule came from
 * @bound_met: th_place_run_opts()'s fairness bound is met (true without one)
 * @from_trees: the schedule is the trees baseline's (struct th_place_opts)
 */
struct th_place_result {
	double makespan;
	double unfairness;
	unsigned int njobs;
	struct th_place_job_result *job;
	struct th_sched *sched;
	struct th_dag *dag;
	struct th_place_task *task;
	double max_slowdown;
	double jain;
	enum th_place_compose compose;
	bool bound_met;
	bool from_trees;
};

/*
 * The jobs as one DAG on the model's nodes: a collective's contributions
 * (C.m) and deliveries (D.m) pinned to its members' nodes, its combining
 * tasks (R.v, one per inner node of its tree) free in TH_PLACE_SCHEDULED
 * and on the tree node's member in TREES; a DAG job's steps as given.
 * @tasks, if not NULL, receives a malloc'd array: what each task is.
 */
struct th_dag *th_place_dag(const struct th_place_jobs *j,
			    const struct th_place_model *m,
			    enum th_place_mode mode, struct th_place_task **tasks);

/* Place and predict; NULL with errno (EINVAL: a node beyond the model). */
struct th_place_result *th_place_run(const struct th_place_jobs *j,
				     const struct th_place_model *m,
				     enum th_place_mode mode,
				     enum th_sched_alg alg);
void th_place_result_destroy(struct th_place_result *r);
/*
 * The same, placed as @o says (NULL: as th_place_run()).  A fairness bound
 * that no placement meets still returns the best one found, with
 * @bound_met false.
 */
struct th_place_result *th_place_run_opts(const struct th_place_jobs *j,
					  const struct th_place_model *m,
					  enum th_place_mode mode,
					  enum th_sched_alg alg,
					  const struct th_place_opts *o);
/*
 * Jain's fairness index of @x[0..n): (sum x)^2 / (n sum x^2), 1 when all
 * are equal, 1/n when one has everything; 1 for n = 0 or all zero.
 */
double th_place_jain(const double *x, unsigned int n);


/* ---- the timed mode ------------------------------------------------------ */

/*
 * Run this process's in-process fabric on a virtual clock driven by @m
 * (NULL: real time again), before any vport of it exists (-EBUSY).  Each
 * REDUCE pass and COPY then holds its node's NIC for its modelled time,
 * in the order they run; a PUT arrives after descriptor + latency +
 * bytes / bandwidth without holding the NIC; counter operations take no
 * time; a chain starts when its counter's latest update has happened.
 * Data still moves for real.  Times are kept in femtoseconds.  -EINVAL when
 * @m has fewer nodes than the fabric.
 */
int th_place_timed(const struct th_place_model *m);
/*
 * The calling thread's host clock, in seconds; -1 in real time.  Each
 * thread keeps its own, from 0 when the clock was installed (ranks as
 * threads each have theirs).  The host's commands to the NIC happen at
 * it, each after @m->post of software; a wait (th_ct_wait()) for a
 * counter last updated later brings it to that update plus @m->wake; a
 * host-driven reduction (th_hostcoll) adds its operand bytes / @m->cpu.
 */
double th_place_timed_now(void);
/*
 * Move the calling thread's host clock forward to @seconds, if it is
 * earlier: the host computed until then, or met other threads at a
 * barrier (each advances to the latest of their clocks).  -ENOENT in
 * real time, -EINVAL for a negative or infinite time.
 */
int th_place_timed_advance(double seconds);

/* ---- running a placement ---------------------------------------------- */

struct th_place_exec;

/*
 * Compile placement @r of @j into chains on @vps[node], one vport per node
 * of the model (@nodes of them, all driven by this process), posted once:
 * each copy of a task in the schedule is a chain on its node that waits
 * for its inputs, runs its step and sends its output on.  Whole doubles,
 * summed; a DAG job's reduce steps sum their inputs in edge order, a copy
 * step takes one input, sources and sinks are pinned ('on') and read and
 * write host buffers there (EOPNOTSUPP otherwise); ENOSPC when a node
 * hosts more copies than its vport has counters.  Counters of the vports
 * are reset; the vports serve this placement only.  With
 * TH_VERIFY_PLANS=1 in the environment (as for the collectives' plans)
 * the chains are verified first (th_verify(), the limits of vps[0]'s
 * node): EDEADLK on a finding, nothing posted.
 */
struct th_place_exec *th_place_exec_create(const struct th_place_jobs *j,
					   const struct th_place_result *r,
					   struct th_vport *const *vps,
					   unsigned int nodes);
/* A member's contribution and result buffers (bytes / 8 doubles), or NULL. */
double *th_place_exec_send(struct th_place_exec *x, unsigned int job,
			   unsigned int node);
double *th_place_exec_recv(struct th_place_exec *x, unsigned int job,
			   unsigned int node);
/* A DAG job's source input and sink output buffers (step's bytes / 8). */
double *th_place_exec_step_in(struct th_place_exec *x, unsigned int job,
			      unsigned int step);
double *th_place_exec_step_out(struct th_place_exec *x, unsigned int job,
			       unsigned int step);
/* A round: every contribution's (and DAG source's) counter, once. */
int th_place_exec_start(struct th_place_exec *x);
/* Until every copy on every node has finished the round. */
int th_place_exec_wait(struct th_place_exec *x, uint64_t timeout_ns);
void th_place_exec_destroy(struct th_place_exec *x);

/*
 * Each job's measured finish in the last round th_place_exec_wait()
 * completed, in seconds from th_place_exec_start(), into @finish_s
 * (@njobs, the placement's job count): when the last of its final tasks
 * (deliveries, a DAG job's sinks) finished, taking each task's earliest
 * copy, as the placer predicts it.  Every such copy raises a counter of
 * its own when its operation is done; on a virtual clock (th_place_timed())
 * the finish is when that counter was raised, exactly; in real time it is
 * when a watcher thread saw it raised (th_place_exec_watch()).  -ENODATA
 * when there is no such round (or, in real time, no watcher), -EINVAL
 * for a wrong @njobs.
 */
int th_place_exec_finishes(struct th_place_exec *x, double *finish_s,
			   unsigned int njobs);
/*
 * In real time, have a thread watch the jobs' final counters during the
 * rounds that follow (@on; false stops it).  It polls them from the
 * start of each round until all are raised, stamping each with
 * CLOCK_MONOTONIC: a stamp is late by at most one sweep over the unseen
 * counters (a memory load each), plus any time the watcher is off a CPU.
 * It never sleeps while it is on (it yields between rounds), so it costs
 * a core.  Not needed on a virtual clock.
 */
int th_place_exec_watch(struct th_place_exec *x, bool on);

struct th_verify_set;
struct th_nic_query;
/*
 * The chains th_place_exec_create() would post for placement @r of @j,
 * compiled by the same code but posted nowhere, as th_verify()'s input
 * (thverbs/verify.h): node i's chains on vport 0 of node i, named
 * JOB.TASK@nNODE (/2, /3 for a copy's further chains), the host's
 * increments of a round as its actions, @limits (th_device_query()'s:
 * max_chain and max_counters shape the chains) as the NIC's.  Keys and
 * offsets are 0: the verifier does not read them.  Free with
 * th_place_exec_describe_free(); NULL with errno as th_place_exec_create(),
 * except that counters beyond @limits are left for th_verify() to find.
 */
struct th_verify_set *th_place_exec_describe(const struct th_place_jobs *j,
					     const struct th_place_result *r,
					     const struct th_nic_query *limits);
void th_place_exec_describe_free(struct th_verify_set *set);

TH_API_END

#endif /* TH_PLACE_H */
