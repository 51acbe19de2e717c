// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * jobs.c - the offload jobs the placer places (thverbs/place.h): collectives
 * over member sets and DAGs of offloadable steps, built through the API or
 * parsed from the job file format, every error at its line and column.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "place_priv.h"

struct th_place_jobs *th_place_jobs_create(void)
{
	return calloc(1, sizeof(struct th_place_jobs));
}

static void th_job_free(struct th_place_job *job)
{
	unsigned int i;

	free(job->name);
	free(job->members);
	for (i = 0; i < job->nsteps; i++)
		free(job->steps[i].name);
	free(job->steps);
	free(job->edges);
}

void th_place_jobs_destroy(struct th_place_jobs *j)
{
	unsigned int i;

	if (!j)
		return;
	for (i = 0; i < j->njobs; i++)
		th_job_free(&j->jobs[i]);
	free(j->jobs);
	free(j);
}

static int th_jobs_grow(void **p, unsigned int *cap, unsigned int n,
			size_t size)
{
	unsigned int ncap;
	void *np;

	if (n < *cap)
		return 0;
	ncap = *cap ? 2 * *cap : 8;
	np = realloc(*p, ncap * size);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = ncap;
	return 0;
}

static bool th_jobs_name_ok(const char *s)
{
	size_t i, n = s ? strlen(s) : 0;

	for (i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+:", s[i]))
			return false;
	return n > 0 && n < 64;
}

static int th_jobs_new(struct th_place_jobs *j, const char *name,
		       enum th_place_job_kind kind)
{
	struct th_place_job *job;
	unsigned int i;

	if (!th_jobs_name_ok(name))
		return -EINVAL;
	for (i = 0; i < j->njobs; i++)
		if (!strcmp(j->jobs[i].name, name))
			return -EEXIST;
	if (j->njobs >= TH_PLACE_MAX_JOBS)
		return -E2BIG;
	if (th_jobs_grow((void **)&j->jobs, &j->cap, j->njobs, sizeof(*j->jobs)))
		return -ENOMEM;
	job = &j->jobs[j->njobs];
	memset(job, 0, sizeof(*job));
	job->name = strdup(name);
	if (!job->name)
		return -ENOMEM;
	job->kind = kind;
	job->priority = 1;
	return j->njobs++;
}

int th_place_add_collective(struct th_place_jobs *j, const char *name,
			    enum th_place_job_kind kind,
			    const unsigned int *members, unsigned int nmembers,
			    unsigned int root, uint64_t bytes,
			    unsigned int radix)
{
	uint64_t seen[TH_PLACE_MAX_NODES / 64];	/* nodes met so far */
	struct th_place_job *job;
	unsigned int i, k, r = TH_PLACE_ANY;
	int idx;

	if (!j || kind > TH_PLACE_BCAST || !members || !nmembers ||
	    radix == 1 || radix > 64 || !bytes)
		return -EINVAL;
	memset(seen, 0, sizeof(seen));
	for (i = 0; i < nmembers; i++) {
		if (members[i] >= TH_PLACE_MAX_NODES)
			return -EINVAL;
		k = members[i];
		if (seen[k / 64] >> (k % 64) & 1)
			return -EINVAL;	/* a node is a member once */
		seen[k / 64] |= 1ull << (k % 64);
		if (members[i] == root)
			r = i;
	}
	if (r == TH_PLACE_ANY)
		return -EINVAL;		/* the root is a member */
	idx = th_jobs_new(j, name, kind);
	if (idx < 0)
		return idx;
	job = &j->jobs[idx];
	job->members = malloc(nmembers * sizeof(*job->members));
	if (!job->members) {
		th_job_free(job);
		j->njobs--;
		return -ENOMEM;
	}
	memcpy(job->members, members, nmembers * sizeof(*members));
	job->nmembers = nmembers;
	job->root = r;
	job->bytes = bytes;
	job->radix = radix ? radix : 4;
	return idx;
}

int th_place_add_dag(struct th_place_jobs *j, const char *name)
{
	return j ? th_jobs_new(j, name, TH_PLACE_DAG) : -EINVAL;
}

int th_place_add_step(struct th_place_jobs *j, unsigned int job,
		      const char *name, enum th_place_step kind,
		      unsigned int operands, uint64_t bytes, unsigned int on)
{
	struct th_place_job *jb;
	struct th_place_dstep *st;
	unsigned int i;

	if (!j || job >= j->njobs || j->jobs[job].kind != TH_PLACE_DAG ||
	    !th_jobs_name_ok(name) || kind > TH_PLACE_STEP_COPY || !bytes ||
	    (kind == TH_PLACE_STEP_REDUCE && (operands < 2 || operands > 1024)) ||
	    (on != TH_PLACE_ANY && on >= TH_PLACE_MAX_NODES))
		return -EINVAL;
	jb = &j->jobs[job];
	for (i = 0; i < jb->nsteps; i++)
		if (!strcmp(jb->steps[i].name, name))
			return -EEXIST;
	if (th_jobs_grow((void **)&jb->steps, &jb->cap_steps, jb->nsteps,
			 sizeof(*jb->steps)))
		return -ENOMEM;
	st = &jb->steps[jb->nsteps];
	st->name = strdup(name);
	if (!st->name)
		return -ENOMEM;
	st->kind = kind;
	st->operands = kind == TH_PLACE_STEP_REDUCE ? operands : 1;
	st->bytes = bytes;
	st->on = on;
	return jb->nsteps++;
}

int th_place_add_edge(struct th_place_jobs *j, unsigned int job,
		      unsigned int from, unsigned int to, uint64_t bytes)
{
	struct th_place_job *jb;
	struct th_place_dedge *e;
	unsigned int i;

	if (!j || job >= j->njobs || j->jobs[job].kind != TH_PLACE_DAG)
		return -EINVAL;
	jb = &j->jobs[job];
	if (from >= jb->nsteps || to >= jb->nsteps || from == to)
		return -EINVAL;
	for (i = 0; i < jb->nedges; i++)
		if (jb->edges[i].from == from && jb->edges[i].to == to)
			return -EEXIST;
	if (th_jobs_grow((void **)&jb->edges, &jb->cap_edges, jb->nedges,
			 sizeof(*jb->edges)))
		return -ENOMEM;
	e = &jb->edges[jb->nedges++];
	e->from = from;
	e->to = to;
	e->bytes = bytes;
	return 0;
}

unsigned int th_place_njobs(const struct th_place_jobs *j)
{
	return j ? j->njobs : 0;
}

const char *th_place_job_name(const struct th_place_jobs *j, unsigned int job)
{
	return j && job < j->njobs ? j->jobs[job].name : NULL;
}

enum th_place_job_kind th_place_job_kind(const struct th_place_jobs *j,
					 unsigned int job)
{
	return j->jobs[job].kind;
}

int th_place_set_release(struct th_place_jobs *j, unsigned int job,
			 double seconds)
{
	if (!j || job >= j->njobs || !(seconds >= 0) ||
	    seconds > TH_PLACE_MAX_RELEASE)
		return -EINVAL;
	j->jobs[job].release = seconds;
	return 0;
}

int th_place_set_priority(struct th_place_jobs *j, unsigned int job,
			  double priority)
{
	if (!j || job >= j->njobs || !(priority >= TH_PLACE_MIN_PRIORITY) ||
	    priority > TH_PLACE_MAX_PRIORITY)
		return -EINVAL;
	j->jobs[job].priority = priority;
	return 0;
}

double th_place_job_release(const struct th_place_jobs *j, unsigned int job)
{
	return j && job < j->njobs ? j->jobs[job].release : 0;
}

double th_place_job_priority(const struct th_place_jobs *j, unsigned int job)
{
	return j && job < j->njobs ? j->jobs[job].priority : 1;
}

unsigned int th_place_nodes_named(const struct th_place_jobs *j)
{
	unsigned int i, k, n = 0;

	for (i = 0; i < j->njobs; i++) {
		const struct th_place_job *jb = &j->jobs[i];

		for (k = 0; k < jb->nmembers; k++)
			n = jb->members[k] + 1 > n ? jb->members[k] + 1 : n;
		for (k = 0; k < jb->nsteps; k++)
			if (jb->steps[k].on != TH_PLACE_ANY &&
			    jb->steps[k].on + 1 > n)
				n = jb->steps[k].on + 1;
	}
	return n;
}

/* ---- the job file -------------------------------------------------------- */

struct th_jobs_parse {
	struct th_place_jobs *j;
	struct th_dag_lex *lx;
	struct th_dag_diag *d;
	int dag;		/* the open 'dag' block's job, or -1 */
	unsigned int dag_line;
};

static bool th_jobs_is(const struct th_dag_lex *lx, unsigned int i,
		       const char *w)
{
	return i < lx->ntok && lx->tok_len[i] == strlen(w) &&
	       !memcmp(lx->tok[i], w, lx->tok_len[i]);
}

static int th_jobs_err(struct th_jobs_parse *p, unsigned int i,
		       const char *expected)
{
	struct th_dag_lex *lx = p->lx;

	if (i >= lx->ntok)
		return th_dag_diag_set(p->d, lx->line, th_dag_lex_eol_col(lx) + 1,
				       "expected %s", expected);
	return th_dag_diag_set(p->d, lx->line, lx->tok_col[i],
			       "expected %s, got '%.*s'", expected,
			       (int)lx->tok_len[i], lx->tok[i]);
}

/* The job beyond TH_PLACE_MAX_JOBS, at its line. */
static int th_jobs_too_many(struct th_jobs_parse *p)
{
	return th_dag_diag_set(p->d, p->lx->line, p->lx->tok_col[0],
			       "too many jobs: the placer takes at most %u",
			       TH_PLACE_MAX_JOBS);
}

/* A size with an optional K, M, G or T suffix, from 1 to 1T. */
static int th_jobs_size(struct th_jobs_parse *p, unsigned int i, uint64_t *out)
{
	const struct th_dag_lex *lx = p->lx;
	unsigned int len;
	uint64_t mul = 1;
	long v;

	if (i >= lx->ntok)
		return th_jobs_err(p, i, "a size in bytes");
	len = lx->tok_len[i];
	switch (len ? lx->tok[i][len - 1] : 0) {
	case 'K': case 'k':
		mul = 1ull << 10;
		break;
	case 'M': case 'm':
		mul = 1ull << 20;
		break;
	case 'G': case 'g':
		mul = 1ull << 30;
		break;
	case 'T': case 't':
		mul = 1ull << 40;
		break;
	}
	if (mul > 1)
		len--;
	if (!th_dag_tok_long(lx->tok[i], len, &v) || v < 1 ||
	    (uint64_t)v > (1ull << 40) / mul)
		return th_jobs_err(p, i, "a size in bytes (1 to 1T, K/M/G/T suffixes)");
	*out = (uint64_t)v * mul;
	return 0;
}

static int th_jobs_node(struct th_jobs_parse *p, unsigned int i,
			unsigned int *out)
{
	const struct th_dag_lex *lx = p->lx;
	long v;

	if (i >= lx->ntok || !th_dag_tok_long(lx->tok[i], lx->tok_len[i], &v) ||
	    v < 0 || v >= TH_PLACE_MAX_NODES)
		return th_jobs_err(p, i, "a node number from 0 to 4095");
	*out = v;
	return 0;
}

/* A time: seconds, or a number with s, ms, us or ns; 0 to an hour. */
static int th_jobs_time(struct th_jobs_parse *p, unsigned int i, double *out)
{
	/* divisors, not factors: 100us is 1e-4 exactly rounded */
	static const struct { const char *unit; double per_s; } units[] = {
		{ "ns", 1e9 }, { "us", 1e6 }, { "ms", 1e3 }, { "s", 1 },
	};
	const struct th_dag_lex *lx = p->lx;
	unsigned int len, k, ulen;
	double v, per_s = 1;

	if (i >= lx->ntok)
		return th_jobs_err(p, i, "a release time such as 100us");
	len = lx->tok_len[i];
	for (k = 0; k < sizeof(units) / sizeof(units[0]); k++) {
		ulen = strlen(units[k].unit);
		if (len > ulen &&
		    !memcmp(lx->tok[i] + len - ulen, units[k].unit, ulen)) {
			per_s = units[k].per_s;
			len -= ulen;
			break;
		}
	}
	if (!th_dag_tok_double(lx->tok[i], len, &v) || !(v >= 0) ||
	    v / per_s > TH_PLACE_MAX_RELEASE)
		return th_jobs_err(p, i, "a release time from 0 to 3600s (s, ms, us or ns)");
	*out = v / per_s;
	return 0;
}

/*
 * 'priority W' or 'release TIME' at token @i, into @o; 1 when token @i is
 * neither, 0 when taken, a parse error otherwise.
 */
struct th_jobs_opts {
	double priority, release;
	bool have_priority, have_release;
};

static int th_jobs_opt(struct th_jobs_parse *p, unsigned int i,
		       struct th_jobs_opts *o)
{
	const struct th_dag_lex *lx = p->lx;
	double v;

	if (th_jobs_is(lx, i, "priority") && !o->have_priority) {
		o->have_priority = true;
		if (i + 1 >= lx->ntok ||
		    !th_dag_tok_double(lx->tok[i + 1], lx->tok_len[i + 1], &v) ||
		    !(v >= TH_PLACE_MIN_PRIORITY) || v > TH_PLACE_MAX_PRIORITY)
			return th_jobs_err(p, i + 1, "a priority from 0.001 to 1000");
		o->priority = v;
		return 0;
	}
	if (th_jobs_is(lx, i, "release") && !o->have_release) {
		o->have_release = true;
		return th_jobs_time(p, i + 1, &o->release);
	}
	return 1;
}

static void th_jobs_opts_apply(struct th_jobs_parse *p, unsigned int job,
			       const struct th_jobs_opts *o)
{
	if (o->have_priority)
		th_place_set_priority(p->j, job, o->priority);
	if (o->have_release)
		th_place_set_release(p->j, job, o->release);
}

/* "0-7,12,14": sorted into @out, each node once. */
static int th_jobs_list(struct th_jobs_parse *p, unsigned int i,
			unsigned int **out, unsigned int *n)
{
	const struct th_dag_lex *lx = p->lx;
	const char *s, *end;
	bool *seen = NULL;
	unsigned int k;
	long a, b;
	char *e;

	if (i >= lx->ntok)
		return th_jobs_err(p, i, "a member list such as 0-7,12");
	seen = calloc(TH_PLACE_MAX_NODES, sizeof(*seen));
	*out = malloc(TH_PLACE_MAX_NODES * sizeof(**out));
	if (!seen || !*out) {
		free(seen);
		return th_dag_diag_set(p->d, 0, 0, "out of memory");
	}
	*n = 0;
	s = lx->tok[i];
	end = s + lx->tok_len[i];
	while (s < end) {
		a = strtol(s, &e, 10);
		if (e == s || e > end || a < 0 || a >= TH_PLACE_MAX_NODES)
			goto bad;
		b = a;
		if (e < end && *e == '-') {
			s = e + 1;
			b = strtol(s, &e, 10);
			if (e == s || e > end || b < a || b >= TH_PLACE_MAX_NODES)
				goto bad;
		}
		for (; a <= b; a++) {
			if (seen[a]) {
				free(seen);
				return th_dag_diag_set(p->d, lx->line, lx->tok_col[i],
						       "expected each member once, node %ld repeats",
						       a);
			}
			seen[a] = true;
		}
		if (e < end && *e != ',')
			goto bad;
		s = e + (e < end);
		if (e < end && s == end)
			goto bad;	/* a trailing comma */
	}
	for (k = 0; k < TH_PLACE_MAX_NODES; k++)
		if (seen[k])
			(*out)[(*n)++] = k;
	free(seen);
	return 0;
bad:
	free(seen);
	return th_jobs_err(p, i, "a member list such as 0-7,12 (nodes 0 to 4095)");
}

static int th_jobs_collective(struct th_jobs_parse *p,
			      enum th_place_job_kind kind)
{
	const struct th_dag_lex *lx = p->lx;
	unsigned int *members = NULL, n = 0, root = 0, radix = 4, i;
	bool have_root = false, have_bytes = false;
	struct th_jobs_opts opts = { 0 };
	uint64_t bytes = 0;
	char name[64];
	long v;
	int ret = 0, opt;

	if (lx->ntok < 2 || lx->tok_len[1] >= sizeof(name))
		return th_jobs_err(p, 1, "a job name");
	memcpy(name, lx->tok[1], lx->tok_len[1]);
	name[lx->tok_len[1]] = 0;
	if (!th_jobs_name_ok(name))
		return th_jobs_err(p, 1, "a job name ([A-Za-z0-9_+:-])");
	for (i = 2; !ret && i < lx->ntok; i += 2) {
		if (th_jobs_is(lx, i, "members") && !members)
			ret = th_jobs_list(p, i + 1, &members, &n);
		else if (th_jobs_is(lx, i, "root") && !have_root)
			ret = th_jobs_node(p, i + 1, &root), have_root = true;
		else if (th_jobs_is(lx, i, "bytes") && !have_bytes)
			ret = th_jobs_size(p, i + 1, &bytes), have_bytes = true;
		else if (th_jobs_is(lx, i, "radix")) {
			if (i + 1 >= lx->ntok ||
			    !th_dag_tok_long(lx->tok[i + 1], lx->tok_len[i + 1], &v) ||
			    v < 2 || v > 64)
				ret = th_jobs_err(p, i + 1, "a radix from 2 to 64");
			else
				radix = v;
		} else if ((opt = th_jobs_opt(p, i, &opts)) <= 0) {
			ret = opt;
		} else {
			ret = th_jobs_err(p, i, "'members', 'root', 'bytes', 'radix', 'priority' or 'release' (each once)");
		}
	}
	if (!ret && (!members || !have_root || !have_bytes))
		ret = th_dag_diag_set(p->d, lx->line, th_dag_lex_eol_col(lx) + 1,
				      "expected %s", !members ? "'members LIST'" :
				      !have_root ? "'root NODE'" : "'bytes B'");
	if (!ret) {
		for (i = 0; i < n && members[i] != root; i++)
			;
		if (i == n)
			ret = th_dag_diag_set(p->d, lx->line, lx->tok_col[0],
					      "expected the root (%u) among the members",
					      root);
	}
	if (!ret) {
		ret = th_place_add_collective(p->j, name, kind, members, n, root,
					      bytes, radix);
		if (ret == -EEXIST) {
			ret = th_jobs_err(p, 1, "a new job name");
		} else if (ret == -E2BIG) {
			ret = th_jobs_too_many(p);
		} else if (ret < 0) {
			ret = th_dag_diag_set(p->d, lx->line, lx->tok_col[0],
					      "cannot add the job: %s", strerror(-ret));
		} else {
			th_jobs_opts_apply(p, ret, &opts);
			ret = 0;
		}
	}
	free(members);
	return ret;
}

static int th_jobs_step_index(struct th_jobs_parse *p, unsigned int i,
			      unsigned int *out)
{
	const struct th_place_job *jb = &p->j->jobs[p->dag];
	const struct th_dag_lex *lx = p->lx;
	unsigned int k;

	if (i >= lx->ntok)
		return th_jobs_err(p, i, "a step name");
	for (k = 0; k < jb->nsteps; k++)
		if (strlen(jb->steps[k].name) == lx->tok_len[i] &&
		    !memcmp(jb->steps[k].name, lx->tok[i], lx->tok_len[i])) {
			*out = k;
			return 0;
		}
	return th_jobs_err(p, i, "a step declared above in this dag");
}

static int th_jobs_step(struct th_jobs_parse *p)
{
	const struct th_dag_lex *lx = p->lx;
	enum th_place_step kind;
	unsigned int i = 3, operands = 1, on = TH_PLACE_ANY;
	uint64_t bytes;
	char name[64];
	long v;
	int ret;

	if (lx->ntok < 2 || lx->tok_len[1] >= sizeof(name))
		return th_jobs_err(p, 1, "a step name");
	memcpy(name, lx->tok[1], lx->tok_len[1]);
	name[lx->tok_len[1]] = 0;
	if (th_jobs_is(lx, 2, "reduce")) {
		kind = TH_PLACE_STEP_REDUCE;
		if (i >= lx->ntok ||
		    !th_dag_tok_long(lx->tok[i], lx->tok_len[i], &v) || v < 2 ||
		    v > 1024)
			return th_jobs_err(p, i, "an operand count from 2 to 1024");
		operands = v;
		i++;
	} else if (th_jobs_is(lx, 2, "copy")) {
		kind = TH_PLACE_STEP_COPY;
	} else {
		return th_jobs_err(p, 2, "'reduce' or 'copy'");
	}
	ret = th_jobs_size(p, i++, &bytes);
	if (ret)
		return ret;
	if (i < lx->ntok) {
		if (!th_jobs_is(lx, i, "on"))
			return th_jobs_err(p, i, "'on NODE' or end of line");
		ret = th_jobs_node(p, i + 1, &on);
		if (ret)
			return ret;
		if (i + 2 < lx->ntok)
			return th_jobs_err(p, i + 2, "end of line");
	}
	ret = th_place_add_step(p->j, p->dag, name, kind, operands, bytes, on);
	if (ret == -EEXIST || ret == -EINVAL)
		return th_jobs_err(p, 1, ret == -EEXIST ? "a new step name" :
				   "a step name ([A-Za-z0-9_+:-])");
	return ret < 0 ? th_dag_diag_set(p->d, 0, 0, "out of memory") : 0;
}

static int th_jobs_edge(struct th_jobs_parse *p)
{
	const struct th_dag_lex *lx = p->lx;
	unsigned int from, to;
	uint64_t bytes;
	int ret;

	ret = th_jobs_step_index(p, 1, &from);
	if (!ret)
		ret = th_jobs_step_index(p, 2, &to);
	if (!ret)
		ret = th_jobs_size(p, 3, &bytes);
	if (!ret && lx->ntok > 4)
		ret = th_jobs_err(p, 4, "end of line");
	if (!ret && from == to)
		ret = th_jobs_err(p, 2, "another step (no edge to itself)");
	if (!ret) {
		ret = th_place_add_edge(p->j, p->dag, from, to, bytes);
		if (ret == -EEXIST)
			ret = th_jobs_err(p, 2, "an edge not given before");
		else if (ret)
			ret = th_dag_diag_set(p->d, 0, 0, "out of memory");
	}
	return ret;
}

static int th_jobs_line(struct th_jobs_parse *p, bool first)
{
	const struct th_dag_lex *lx = p->lx;
	char name[64];
	int ret;

	if (first) {
		if (th_jobs_is(lx, 0, "thjobs") && lx->ntok == 2 &&
		    !th_jobs_is(lx, 1, "1"))
			return th_dag_diag_set(p->d, lx->line, lx->tok_col[1],
					       "unsupported job file version '%.*s': this reader knows 'thjobs 1'",
					       (int)lx->tok_len[1], lx->tok[1]);
		if (!th_jobs_is(lx, 0, "thjobs") || !th_jobs_is(lx, 1, "1") ||
		    lx->ntok != 2)
			return th_jobs_err(p, lx->ntok > 2 &&
					   th_jobs_is(lx, 0, "thjobs") ? 2 : 0,
					   "'thjobs 1'");
		return 0;
	}
	if (p->dag >= 0) {
		if (th_jobs_is(lx, 0, "step"))
			return th_jobs_step(p);
		if (th_jobs_is(lx, 0, "edge"))
			return th_jobs_edge(p);
		if (th_jobs_is(lx, 0, "end")) {
			if (lx->ntok > 1)
				return th_jobs_err(p, 1, "end of line");
			if (!p->j->jobs[p->dag].nsteps)
				return th_jobs_err(p, 0, "a step before 'end'");
			p->dag = -1;
			return 0;
		}
		return th_jobs_err(p, 0, "'step', 'edge' or 'end'");
	}
	if (th_jobs_is(lx, 0, "allreduce"))
		return th_jobs_collective(p, TH_PLACE_ALLREDUCE);
	if (th_jobs_is(lx, 0, "reduce"))
		return th_jobs_collective(p, TH_PLACE_REDUCE);
	if (th_jobs_is(lx, 0, "bcast"))
		return th_jobs_collective(p, TH_PLACE_BCAST);
	if (th_jobs_is(lx, 0, "dag")) {
		struct th_jobs_opts opts = { 0 };
		unsigned int i;

		if (lx->ntok < 2 || lx->tok_len[1] >= sizeof(name))
			return th_jobs_err(p, 1, "a job name");
		for (i = 2; i < lx->ntok; i += 2) {
			ret = th_jobs_opt(p, i, &opts);
			if (ret > 0)
				return th_jobs_err(p, i, "'priority', 'release' (each once) or end of line");
			if (ret)
				return ret;
		}
		memcpy(name, lx->tok[1], lx->tok_len[1]);
		name[lx->tok_len[1]] = 0;
		ret = th_place_add_dag(p->j, name);
		if (ret == -E2BIG)
			return th_jobs_too_many(p);
		if (ret < 0)
			return th_jobs_err(p, 1, ret == -EEXIST ? "a new job name" :
					   "a job name ([A-Za-z0-9_+:-])");
		th_jobs_opts_apply(p, ret, &opts);
		p->dag = ret;
		p->dag_line = lx->line;
		return 0;
	}
	return th_jobs_err(p, 0, "'allreduce', 'reduce', 'bcast' or 'dag'");
}

/* A cycle in a DAG job is reported at the job's 'dag' line. */
static int th_jobs_check_acyclic(struct th_jobs_parse *p,
				 const unsigned int *dag_line)
{
	unsigned int i;

	for (i = 0; i < p->j->njobs; i++) {
		const struct th_place_job *jb = &p->j->jobs[i];
		unsigned int *indeg, *queue, head = 0, tail = 0, k, e;

		if (jb->kind != TH_PLACE_DAG)
			continue;
		indeg = calloc(jb->nsteps, sizeof(*indeg));
		queue = malloc(jb->nsteps * sizeof(*queue));
		if (!indeg || !queue) {
			free(indeg);
			free(queue);
			return th_dag_diag_set(p->d, 0, 0, "out of memory");
		}
		for (e = 0; e < jb->nedges; e++)
			indeg[jb->edges[e].to]++;
		for (k = 0; k < jb->nsteps; k++)
			if (!indeg[k])
				queue[tail++] = k;
		while (head < tail) {
			k = queue[head++];
			for (e = 0; e < jb->nedges; e++)
				if (jb->edges[e].from == k && !--indeg[jb->edges[e].to])
					queue[tail++] = jb->edges[e].to;
		}
		free(indeg);
		free(queue);
		if (tail != jb->nsteps)
			return th_dag_diag_set(p->d, dag_line[i], 1,
					       "expected an acyclic dag: '%s' has a cycle",
					       jb->name);
	}
	return 0;
}

struct th_place_jobs *th_place_jobs_parse(const char *text, size_t len,
					  struct th_dag_diag *diag)
{
	struct th_jobs_parse p = { .dag = -1 };
	struct th_dag_diag scratch;
	unsigned int *dag_line = NULL, cap = 0;
	bool first = true;
	int ret = 0;

	p.d = diag ? diag : &scratch;
	memset(p.d, 0, sizeof(*p.d));
	p.j = th_place_jobs_create();
	p.lx = th_dag_lex_create(text, len);
	if (!p.j || !p.lx) {
		th_dag_lex_destroy(p.lx);
		th_place_jobs_destroy(p.j);
		errno = ENOMEM;
		return NULL;
	}
	while (!ret && th_dag_lex_next(p.lx)) {
		unsigned int before = p.j->njobs;

		ret = th_dag_lex_refuse(p.lx, p.d);
		if (!ret)
			ret = th_jobs_line(&p, first);
		first = false;
		if (!ret && p.j->njobs > before) {
			if (th_jobs_grow((void **)&dag_line, &cap, before,
					 sizeof(*dag_line)))
				ret = th_dag_diag_set(p.d, 0, 0, "out of memory");
			else
				dag_line[before] = p.lx->line;
		}
	}
	if (!ret && first)
		ret = th_dag_diag_set(p.d, 1, 1, "expected 'thjobs 1'");
	if (!ret && p.dag >= 0)
		ret = th_dag_diag_set(p.d, p.lx->line + 1, 1,
				      "expected 'end' for the dag of line %u",
				      p.dag_line);
	if (!ret && !p.j->njobs)
		ret = th_dag_diag_set(p.d, p.lx->line + 1, 1, "expected a job");
	if (!ret)
		ret = th_jobs_check_acyclic(&p, dag_line);
	free(dag_line);
	th_dag_lex_destroy(p.lx);
	if (ret) {
		th_place_jobs_destroy(p.j);
		errno = EINVAL;
		return NULL;
	}
	return p.j;
}

struct th_place_jobs *th_place_jobs_load(const char *path,
					 struct th_dag_diag *diag)
{
	struct th_place_jobs *j;
	size_t len;
	char *buf = th_dag_read_file(path, &len, diag);
	int err;

	if (!buf)
		return NULL;
	j = th_place_jobs_parse(buf, len, diag);
	err = errno;
	free(buf);
	errno = err;
	return j;
}
