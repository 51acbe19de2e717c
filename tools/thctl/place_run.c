// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * place_run.c - 'thctl place --verify' and '--run' (place_run.h): each
 * chosen placement's chains, described by the library exactly as it
 * would post them (th_place_exec_describe()), are verified first
 * (th_verify(), the provider's limits); with a finding nothing runs.
 * Then each placement is compiled onto one vport per node of the
 * provider and run (place_measure()), on the model's virtual clock with
 * --timed, and each job's predicted and measured finish is printed.
 * --sim runs the same chains in the simulator's event-ordered virtual
 * time instead (th_sim_chains(), the model as LogGP) and prints each
 * job's predicted and simulated finish.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "finding.h"
#include "json.h"
#include "place_measure.h"
#include "place_run.h"
#include "thctl.h"
#include <thverbs/sim.h>
#include <thverbs/verbs.h>
#include <thverbs/verify.h>
#include "th_engine.h"

#define PR_TIMEOUT_NS	20000000000ULL	/* a round, at most */
#define PR_WARMUP	1
#define PR_MAX_FINDINGS	64		/* printed per placement */

/* One placement: what it is, its verdict and its measurement. */
struct pr_row {
	const char *label;
	struct th_place_result *r;
	/* --verify */
	unsigned int chains, findings, warnings;
	double describe_s, verify_s;	/* compiling the chains; th_verify() */
	struct th_verify_finding *f;	/* the first PR_MAX_FINDINGS */
	unsigned int nf;
	char **names;			/* the chains' names the findings use */
	/* --run */
	bool ran;
	double makespan;
	double *finish;
	/* --sim */
	bool simulated;
	double sim_makespan;
	double *sim_finish;
	uint64_t sim_events;
};

/* The provider's nodes, one context and one vport each. */
struct pr_fabric {
	struct th_device **devs;
	int ndev;
	struct th_context **ctx;
	struct th_vport **vps;
	unsigned int nodes;
};

static double pr_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void pr_fabric_close(struct pr_fabric *f)
{
	int i;

	for (i = 0; f->vps && i < (int)f->nodes; i++)
		if (f->vps[i])
			th_vport_destroy(f->vps[i]);
	for (i = 0; f->ctx && i < f->ndev; i++)
		if (f->ctx[i])
			th_device_close(f->ctx[i]);
	free(f->vps);
	free(f->ctx);
	th_device_list_free(f->devs);
	memset(f, 0, sizeof(*f));
}

/* The provider's first @nodes nodes, with vports when @vports. */
static int pr_fabric_open(struct pr_fabric *f, const char *provider,
			  unsigned int nodes, bool vports)
{
	int i;

	memset(f, 0, sizeof(*f));
	f->nodes = nodes;
	f->devs = th_device_list_get(provider, &f->ndev);
	if (!f->devs || f->ndev < 1) {
		if (!strcmp(provider, "kernel"))
			fprintf(stderr, "thctl place: provider kernel: no th_nic device (/dev/th_nic*): is th_nic.ko loaded?\n");
		else
			fprintf(stderr, "thctl place: provider %s: no devices\n",
				provider);
		return -ENODEV;
	}
	if (f->ndev < (int)nodes) {
		fprintf(stderr, "thctl place: provider %s has %d nodes, the model %u\n",
			provider, f->ndev, nodes);
		return -ENODEV;
	}
	f->ctx = calloc(f->ndev, sizeof(*f->ctx));
	f->vps = calloc(nodes, sizeof(*f->vps));
	if (!f->ctx || !f->vps)
		return -ENOMEM;
	for (i = 0; i < (int)(vports ? nodes : 1); i++) {
		f->ctx[i] = th_device_open(f->devs[i]);
		if (!f->ctx[i] ||
		    (vports && !(f->vps[i] = th_vport_create(f->ctx[i], NULL)))) {
			fprintf(stderr, "thctl place: provider %s, node %d: %s\n",
				provider, i, th_strerror(errno));
			return -errno;
		}
	}
	return 0;
}

/* Verify @row's chains with limits @q; its counts, findings and time. */
static int pr_verify(const struct th_place_jobs *j, struct pr_row *row,
		     const struct th_nic_query *q)
{
	struct th_verify_set *set;
	double t0 = pr_now();
	unsigned int i;
	int n;

	set = th_place_exec_describe(j, row->r, q);
	if (!set)
		return -errno;
	row->describe_s = pr_now() - t0;
	t0 = pr_now();
	row->f = calloc(PR_MAX_FINDINGS, sizeof(*row->f));
	n = row->f ? th_verify(set, row->f, PR_MAX_FINDINGS) : -ENOMEM;
	row->verify_s = pr_now() - t0;
	row->chains = set->nchains;
	if (n > 0) {
		row->nf = n < PR_MAX_FINDINGS ? n : PR_MAX_FINDINGS;
		for (i = 0; i < row->nf; i++)
			row->warnings += th_verify_class_is_warning(row->f[i].cls);
		/* past the kept ones: counted as findings, not warnings */
		row->findings = n - row->warnings;
		/* the names outlive the set */
		row->names = calloc(set->nchains + 1, sizeof(*row->names));
		for (i = 0; row->names && i < set->nchains; i++)
			row->names[i] = strdup(set->chains[i].name);
	}
	th_place_exec_describe_free(set);
	return n < 0 ? n : 0;
}

/*
 * The model as the simulator's parameters, in picoseconds so that its
 * whole-unit G can hold 0.1 ns a byte: L its latency, G and the copy rate
 * its bandwidth, the descriptor its descriptor time, no o or g (the
 * model has none: every node's engine and NIC are its own); the ALU one
 * rate, the simulator's NIC costs being the same on every node.
 */
bool thctl_place_one_alu_rate(const struct th_place_model *m)
{
	unsigned int i;

	for (i = 1; i < m->nodes; i++)
		if (m->alu[i] != m->alu[0])
			return false;
	return true;
}

static int pr_sim_params(const struct th_place_model *m,
			 struct th_sim_params *p, struct th_sim_nic *nic)
{
	if (!thctl_place_one_alu_rate(m))
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	p->L = (uint64_t)llround(m->latency * 1e12);
	p->G = (uint64_t)llround(1e12 / m->bandwidth);
	p->S = UINT32_MAX;
	nic->desc_ns = (uint64_t)llround(m->descriptor * 1e12);
	nic->copy_ps = (uint64_t)llround(1e15 / m->bandwidth);
	nic->alu_ps = (uint64_t)llround(1e15 / m->alu[0]);
	return 0;
}

/* The job chain @name (JOB.TASK@nNODE) belongs to, or -1. */
static int pr_sim_job(const struct th_place_jobs *j, const char *name)
{
	const char *at = strchr(name, '@'), *dot;
	unsigned int k;

	if (!at)
		return -1;
	for (dot = at; dot > name; dot--) {
		if (*dot != '.')
			continue;
		for (k = 0; k < th_place_njobs(j); k++) {
			const char *jn = th_place_job_name(j, k);

			if (strlen(jn) == (size_t)(dot - name) &&
			    !strncmp(jn, name, dot - name))
				return (int)k;
		}
	}
	return -1;
}

/* Simulate @row's chains: each job's finish, the makespan. */
static int pr_sim(const struct th_place_jobs *j, const struct th_place_model *m,
		  struct pr_row *row, const struct th_nic_query *q, char *err,
		  size_t errlen)
{
	struct th_sim_result res = { 0 };
	struct th_verify_set *set;
	struct th_sim_params p;
	struct th_sim_nic nic;
	uint64_t *done = NULL;
	unsigned int i;
	int ret;

	if (pr_sim_params(m, &p, &nic)) {
		snprintf(err, errlen, "the model's nodes have different ALU rates: the simulator's NIC costs are one for every node");
		return -EINVAL;
	}
	set = th_place_exec_describe(j, row->r, q);
	if (!set) {
		snprintf(err, errlen, "cannot describe its chains: %s",
			 th_strerror(-errno));
		return -errno;
	}
	done = calloc(set->nchains + 1, sizeof(*done));
	row->sim_finish = calloc(th_place_njobs(j) + 1, sizeof(double));
	ret = done && row->sim_finish ?
	      th_sim_chains(set, &p, &nic, &res, done, err, errlen) : -ENOMEM;
	for (i = 0; !ret && i < set->nchains; i++) {
		int k = pr_sim_job(j, set->chains[i].name);

		if (k >= 0)
			row->sim_finish[k] = fmax(row->sim_finish[k],
						  done[i] * 1e-12);
	}
	if (!ret) {
		row->sim_makespan = res.max_ns * 1e-12;
		row->sim_events = res.events;
		row->simulated = true;
	}
	th_sim_result_fini(&res);
	th_place_exec_describe_free(set);
	free(done);
	return ret;
}

int thctl_place_export_goal(const struct th_place_jobs *j,
			    const struct th_place_model *m,
			    const struct th_place_result *r,
			    const char *label, const char *path)
{
	/* the engine's defaults: what shapes the chains (max_chain, counters) */
	struct th_nic_query q = {
		.size = sizeof(q), .node_count = m->nodes,
		.max_counters = TH_ENG_DEF_COUNTERS,
		.max_sq_entries = TH_ENG_DEF_SQ, .max_cq_entries = TH_ENG_DEF_CQ,
		.max_chain = TH_ENG_DEF_CHAIN,
	};
	struct th_verify_set *set;
	struct th_sim_goal *g = NULL;
	struct th_sim_params p;
	struct th_sim_nic nic;
	char err[512] = "";
	FILE *f;
	int ret;

	if (pr_sim_params(m, &p, &nic)) {
		fprintf(stderr, "thctl place: --export-goal: the model's nodes have different ALU rates: a GOAL calc has one\n");
		return THCTL_EXIT_FAIL;
	}
	set = th_place_exec_describe(j, r, &q);
	if (!set) {
		fprintf(stderr, "thctl place: --export-goal: cannot describe the %s placement's chains: %s\n",
			label, th_strerror(errno));
		return THCTL_EXIT_FAIL;
	}
	ret = th_sim_chains_goal(set, &nic, &g, err, sizeof(err));
	th_place_exec_describe_free(set);
	if (ret) {
		fprintf(stderr, "thctl place: --export-goal: %s\n",
			err[0] ? err : th_strerror(-ret));
		return THCTL_EXIT_FAIL;
	}
	f = fopen(path, "w");
	ret = f ? th_sim_goal_write(g, f) : -errno;
	if (f && fclose(f) && !ret)
		ret = -EIO;
	th_sim_goal_destroy(g);
	if (ret) {
		fprintf(stderr, "thctl place: --export-goal %s: %s\n", path,
			th_strerror(-ret));
		return THCTL_EXIT_FAIL;
	}
	fprintf(stderr, "thctl place: %s: the %s placement's first round as GOAL, times in ps: thctl sim --loggp %llu,0,0,%llu,0,%llu %s\n",
		path, label, (unsigned long long)p.L, (unsigned long long)p.G,
		(unsigned long long)p.S, path);
	return THCTL_EXIT_OK;
}

static const char *pr_chain(const struct pr_row *row, uint32_t c)
{
	return row->names && c < row->chains && row->names[c] ? row->names[c] :
	       "-";
}

/* A described chain by its name, JOB.TASK@nNODE (thctl_finding_json()). */
static bool pr_chain_name(const void *arg, uint32_t c, char *buf, size_t len)
{
	snprintf(buf, len, "%s", pr_chain(arg, c));
	return true;
}

static void pr_verify_text(const struct pr_row *row)
{
	unsigned int i, k;
	char cs[48];

	printf("verify %s: %u chain(s), %u finding(s), %u warning(s), verified in %.3g s (described in %.3g s)\n",
	       row->label, row->chains, row->findings, row->warnings,
	       row->verify_s, row->describe_s);
	for (i = 0; i < row->nf; i++) {
		const struct th_verify_finding *f = &row->f[i];

		strcpy(cs, "-");
		if (f->has_counter)
			thctl_counter_str(&f->counter, cs, sizeof(cs));
		printf("  %s: chain %s counter %s: %s\n",
		       th_verify_class_name(f->cls), pr_chain(row, f->chain), cs,
		       f->why);
		if (!f->npath)
			continue;
		printf("    path:");
		for (k = 0; k < f->npath; k++) {
			thctl_counter_str(&f->path[k].counter, cs, sizeof(cs));
			printf(" %s -> %s ->", pr_chain(row, f->path[k].chain), cs);
		}
		printf(" %s\n", pr_chain(row, f->chain));
	}
}

/* 100 (measured - predicted) / predicted; rounding noise (< 0.005 %) is 0 */
static double pr_error_pct(double measured, double predicted)
{
	double e = predicted > 0 ? 100 * (measured - predicted) / predicted : 0;

	return fabs(e) < 0.005 ? 0 : e;
}

/* Each job's predicted finish against @finish, then the makespans. */
static void pr_text_against(const struct th_place_jobs *j,
			    const struct pr_row *row, double makespan,
			    const double *finish)
{
	unsigned int k;

	for (k = 0; k < row->r->njobs; k++)
		printf("%-12s %-12s %14.3f %14.3f %9.2f\n", row->label,
		       th_place_job_name(j, k), row->r->job[k].finish * 1e6,
		       finish[k] * 1e6,
		       pr_error_pct(finish[k], row->r->job[k].finish));
	printf("%-12s %-12s %14.3f %14.3f %9.2f\n", row->label, "(makespan)",
	       row->r->makespan * 1e6, makespan * 1e6,
	       pr_error_pct(makespan, row->r->makespan));
}

/*
 * @key: {"predicted_makespan_us", "@what_makespan_us", "error_pct",
 * ["events",] "jobs": [...]}: the prediction against a run or a
 * simulation of it.
 */
static void pr_json_against(struct tj *t, const struct th_place_jobs *j,
			    const struct pr_row *row, const char *key,
			    const char *what, double makespan,
			    const double *finish, uint64_t events)
{
	char name[32];
	unsigned int k;

	tj_key(t, key);
	tj_obj_begin(t);
	tj_key(t, "predicted_makespan_us");
	tj_double(t, row->r->makespan * 1e6);
	snprintf(name, sizeof(name), "%s_makespan_us", what);
	tj_key(t, name);
	tj_double(t, makespan * 1e6);
	tj_key(t, "error_pct");
	tj_double(t, pr_error_pct(makespan, row->r->makespan));
	if (events)
		tj_kv_u64(t, "events", events);
	tj_key(t, "jobs");
	tj_arr_begin(t);
	snprintf(name, sizeof(name), "%s_us", what);
	for (k = 0; k < row->r->njobs; k++) {
		tj_obj_begin(t);
		tj_kv_str(t, "job", th_place_job_name(j, k));
		tj_key(t, "predicted_us");
		tj_double(t, row->r->job[k].finish * 1e6);
		tj_key(t, name);
		tj_double(t, finish[k] * 1e6);
		tj_key(t, "error_pct");
		tj_double(t, pr_error_pct(finish[k], row->r->job[k].finish));
		tj_obj_end(t);
	}
	tj_arr_end(t);
	tj_obj_end(t);
}

static void pr_json_row(struct tj *t, const struct th_place_jobs *j,
			const struct pr_row *row, const struct thctl_place_run_opts *o)
{
	unsigned int i;

	tj_obj_begin(t);
	tj_kv_str(t, "placement", row->label);
	if (o->verify) {
		tj_key(t, "verify");
		tj_obj_begin(t);
		tj_kv_u64(t, "chains", row->chains);
		tj_kv_u64(t, "findings", row->findings);
		tj_kv_u64(t, "warnings", row->warnings);
		tj_key(t, "ok");
		tj_bool(t, !row->findings);
		tj_key(t, "verify_s");
		tj_double(t, row->verify_s);
		tj_key(t, "describe_s");
		tj_double(t, row->describe_s);
		tj_key(t, "list");
		tj_arr_begin(t);
		for (i = 0; i < row->nf; i++)
			thctl_finding_json(t, &row->f[i], pr_chain_name, NULL, row);
		tj_arr_end(t);
		tj_obj_end(t);
	}
	if (row->simulated)
		pr_json_against(t, j, row, "sim", "simulated", row->sim_makespan,
				row->sim_finish, row->sim_events);
	if (row->ran)
		pr_json_against(t, j, row, "run", "measured", row->makespan,
				row->finish, 0);
	tj_obj_end(t);
}

/*
 * --sim: the placement of least simulated makespan and the one of least
 * predicted makespan (the first of equals, in the rows' order: the
 * algorithms', then the trees'); -1 unless every placement was simulated.
 */
static void pr_sim_best(const struct pr_row *rows, unsigned int nrows,
			int *by_sim, int *by_pred)
{
	unsigned int i;

	*by_sim = -1;
	*by_pred = -1;
	for (i = 0; i < nrows; i++)
		if (!rows[i].simulated)
			return;
	for (i = 0; i < nrows; i++) {
		if (*by_sim < 0 || rows[i].sim_makespan < rows[*by_sim].sim_makespan)
			*by_sim = (int)i;
		if (*by_pred < 0 || rows[i].r->makespan < rows[*by_pred].r->makespan)
			*by_pred = (int)i;
	}
}

static void pr_row_free(struct pr_row *row)
{
	unsigned int i;

	for (i = 0; row->names && i < row->chains; i++)
		free(row->names[i]);
	free(row->names);
	free(row->f);
	free(row->sim_finish);
	free(row->finish);
	th_place_result_destroy(row->r);
}

int thctl_place_run(const struct thctl_place_run_opts *o,
		    const struct th_place_jobs *j,
		    const struct th_place_model *m)
{
	const char *provider = o->provider ? o->provider : "inproc";
	struct pr_row rows[TH_SCHED_NR_ALGS + 1];
	struct pr_fabric fab = { 0 };
	struct th_nic_query q;
	unsigned int nrows = 0, i;
	char n[16];
	int a, ret, status = THCTL_EXIT_OK;
	bool timed = false;
	int by_sim, by_pred;
	struct tj t;

	if (strcmp(provider, "inproc") && strcmp(provider, "kernel")) {
		fprintf(stderr, "thctl place: --provider wants inproc or kernel, not '%s'\n",
			provider);
		return THCTL_EXIT_USAGE;
	}
	if (o->timed && strcmp(provider, "inproc")) {
		fprintf(stderr, "thctl place: --timed: the virtual clock is the in-process provider's (--provider inproc)\n");
		return THCTL_EXIT_USAGE;
	}
	/*
	 * The executor starts every job at once: a job's release time is in
	 * the prediction only, so measured and predicted would differ by it.
	 */
	for (i = 0; o->run && i < th_place_njobs(j); i++)
		if (th_place_job_release(j, i) > 0) {
			fprintf(stderr, "thctl place: --run: job %s has a release time, which the executor does not keep: it starts every job at once\n",
				th_place_job_name(j, i));
			return THCTL_EXIT_USAGE;
		}
	/*
	 * The in-process fabric is made of exactly the model's nodes, before
	 * it exists, so that the virtual clock has a rate for each.
	 */
	if (!strcmp(provider, "inproc")) {
		snprintf(n, sizeof(n), "%u", m->nodes);
		setenv("TH_INPROC_NODES", n, 1);
	}
	memset(rows, 0, sizeof(rows));
	for (a = 0; a < TH_SCHED_NR_ALGS; a++)
		if (o->alg < 0 || a == o->alg) {
			rows[nrows].label = th_sched_alg_name(a);
			rows[nrows++].r = th_place_run_opts(j, m,
							    TH_PLACE_SCHEDULED,
							    a, o->place);
		}
	if (o->alg < 0) {	/* the baseline that runs: each job on its tree */
		rows[nrows].label = "trees";
		rows[nrows++].r = th_place_run(j, m, TH_PLACE_TREES, TH_SCHED_HEFT);
	}
	for (i = 0; i < nrows; i++)
		if (!rows[i].r) {
			fprintf(stderr, "thctl place: %s: placement failed: %s\n",
				rows[i].label, th_strerror(errno));
			status = THCTL_EXIT_FAIL;
		}
	/* the clock goes in before any vport exists */
	if (!status && o->run && o->timed) {
		ret = th_place_timed(m);
		if (ret) {
			fprintf(stderr, "thctl place: --timed: %s\n", th_strerror(ret));
			status = THCTL_EXIT_FAIL;
		}
		timed = !ret;
	}
	ret = status ? 0 : pr_fabric_open(&fab, provider, m->nodes, o->run);
	if (ret)
		status = THCTL_EXIT_FAIL;
	if (!status && th_device_query(fab.ctx[0], &q)) {
		fprintf(stderr, "thctl place: provider %s: cannot query its limits\n",
			provider);
		status = THCTL_EXIT_FAIL;
	}
	/* every placement verified before any runs */
	for (i = 0; !status && o->verify && i < nrows; i++) {
		ret = pr_verify(j, &rows[i], &q);
		if (ret) {
			fprintf(stderr, "thctl place: %s: cannot describe its chains: %s\n",
				rows[i].label, th_strerror(ret));
			status = THCTL_EXIT_FAIL;
		} else if (rows[i].findings) {
			status = THCTL_EXIT_FAIL;
		}
	}
	if (status && o->verify && o->run)
		fprintf(stderr, "thctl place: a placement does not verify: nothing run\n");
	for (i = 0; !status && o->sim && i < nrows; i++) {
		char err[256] = "";

		ret = pr_sim(j, m, &rows[i], &q, err, sizeof(err));
		if (ret) {
			fprintf(stderr, "thctl place: --sim: %s: %s\n", rows[i].label,
				err[0] ? err : th_strerror(ret));
			status = ret == -EINVAL ? THCTL_EXIT_USAGE : THCTL_EXIT_FAIL;
		}
	}
	for (i = 0; !status && o->run && i < nrows; i++) {
		rows[i].finish = calloc(rows[i].r->njobs + 1, sizeof(double));
		ret = rows[i].finish ?
		      place_measure(j, rows[i].r, fab.vps, m->nodes, PR_WARMUP,
				    o->reps, PR_TIMEOUT_NS, &rows[i].makespan,
				    rows[i].finish) : -ENOMEM;
		if (ret) {
			fprintf(stderr, "thctl place: %s: run on %s: %s\n",
				rows[i].label, provider, th_strerror(ret));
			status = THCTL_EXIT_FAIL;
		}
		rows[i].ran = !ret;
	}
	pr_sim_best(rows, nrows, &by_sim, &by_pred);
	if (o->json) {
		tj_init(&t, stdout, o->pretty);
		tj_obj_begin(&t);
		tj_kv_u64(&t, "nodes", m->nodes);
		tj_kv_str(&t, "provider", provider);
		if (o->run) {
			tj_kv_str(&t, "clock", timed ? "virtual" : "real");
			tj_kv_u64(&t, "reps", o->reps);
		}
		tj_key(&t, "placements");
		tj_arr_begin(&t);
		for (i = 0; i < nrows; i++)
			if (rows[i].r)
				pr_json_row(&t, j, &rows[i], o);
		tj_arr_end(&t);
		if (by_sim >= 0) {
			tj_key(&t, "sim_best");
			tj_obj_begin(&t);
			tj_kv_str(&t, "placement", rows[by_sim].label);
			tj_key(&t, "simulated_makespan_us");
			tj_double(&t, rows[by_sim].sim_makespan * 1e6);
			tj_kv_str(&t, "predicted_best", rows[by_pred].label);
			tj_key(&t, "predicted_best_simulated_us");
			tj_double(&t, rows[by_pred].sim_makespan * 1e6);
			tj_obj_end(&t);
		}
		tj_obj_end(&t);
		tj_finish(&t);
	} else {
		for (i = 0; o->verify && i < nrows; i++)
			if (rows[i].r && rows[i].f)
				pr_verify_text(&rows[i]);
		for (i = 0; o->sim && i < nrows; i++) {
			if (!rows[i].simulated)
				continue;
			if (i == 0 || !rows[i - 1].simulated) {
				printf("# simulated: the placement's chains in event-ordered virtual time (th_sim_chains), the model as LogGP\n");
				printf("%-12s %-12s %14s %14s %9s\n", "placement", "job",
				       "predicted_us", "simulated_us", "error_%");
			}
			pr_text_against(j, &rows[i], rows[i].sim_makespan,
					rows[i].sim_finish);
		}
		/* the simulator's choice beside the list schedules' */
		if (by_sim >= 0)
			printf("# least simulated makespan: %s, %.3f us; least predicted: %s, %.3f us simulated\n",
			       rows[by_sim].label, rows[by_sim].sim_makespan * 1e6,
			       rows[by_pred].label,
			       rows[by_pred].sim_makespan * 1e6);
		for (i = 0; o->run && i < nrows; i++) {
			if (!rows[i].ran)
				continue;
			if (i == 0 || !rows[i - 1].ran) {
				printf("# run on %s, %s, median of %u round(s) after %u warm-up\n",
				       provider, timed ? "the model's virtual clock" :
				       "real time (finishes stamped by a watcher thread)",
				       o->reps, PR_WARMUP);
				printf("%-12s %-12s %14s %14s %9s\n", "placement", "job",
				       "predicted_us", "measured_us", "error_%");
			}
			pr_text_against(j, &rows[i], rows[i].makespan,
					rows[i].finish);
		}
	}
	pr_fabric_close(&fab);
	if (timed)
		th_place_timed(NULL);
	for (i = 0; i < nrows; i++)
		pr_row_free(&rows[i]);
	return status;
}
