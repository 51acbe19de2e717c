// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * model.c - the fabric cost model of the placer (thverbs/place.h): per-node ALU
 * rates, the per-descriptor cost, link latency and bandwidth, and the
 * host's costs for the timed mode; defaults, the model file format and
 * the costs of a REDUCE and a PUT.
 *
 * Defaults are the in-process provider's orders of magnitude on a current
 * x86 core (thbench alu, thbench post): calibrate with
 * 'thctl place --calibrate' for the provider at hand.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "place_priv.h"
#include <thverbs/place.h>

#define TH_MODEL_DEF_ALU	2e9	/* operand bytes/s */
#define TH_MODEL_DEF_DESC	2e-7	/* s per descriptor */
#define TH_MODEL_DEF_LATENCY	2e-7	/* s per PUT */
#define TH_MODEL_DEF_BANDWIDTH	1e10	/* bytes/s */
#define TH_MODEL_DEF_PASSES	7	/* TH_NIC_MAX_OPERANDS */

/*
 * What a model may hold: a rate below a byte a second or a time above a
 * million seconds makes costs that overflow to infinity on big inputs
 * (1e-300 B/s did), so they are refused where the model is read.
 */
#define TH_MODEL_MIN_RATE	1.0
#define TH_MODEL_MAX_RATE	1e18
#define TH_MODEL_MAX_TIME	1e6

struct th_place_model *th_place_model_create(unsigned int nodes)
{
	struct th_place_model *m;
	unsigned int i;

	if (!nodes || nodes > TH_PLACE_MAX_NODES) {
		errno = EINVAL;
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (m)
		m->alu = malloc(nodes * sizeof(*m->alu));
	if (!m || !m->alu) {
		free(m);
		errno = ENOMEM;
		return NULL;
	}
	m->nodes = nodes;
	for (i = 0; i < nodes; i++)
		m->alu[i] = TH_MODEL_DEF_ALU;
	m->descriptor = TH_MODEL_DEF_DESC;
	m->latency = TH_MODEL_DEF_LATENCY;
	m->bandwidth = TH_MODEL_DEF_BANDWIDTH;
	m->passes = TH_MODEL_DEF_PASSES;
	return m;
}

void th_place_model_destroy(struct th_place_model *m)
{
	if (!m)
		return;
	free(m->alu);
	free(m);
}

static bool th_model_rate_ok(double r)
{
	return r >= TH_MODEL_MIN_RATE && r <= TH_MODEL_MAX_RATE;
}

static bool th_model_time_ok(double t)
{
	return t >= 0 && t <= TH_MODEL_MAX_TIME;
}

int th_place_model_check(const struct th_place_model *m)
{
	unsigned int i;

	if (!m || !m->nodes || m->nodes > TH_PLACE_MAX_NODES || !m->alu ||
	    m->passes < 2 || !th_model_time_ok(m->descriptor) ||
	    !th_model_time_ok(m->latency) || !th_model_rate_ok(m->bandwidth) ||
	    !th_model_time_ok(m->wake) || !th_model_time_ok(m->post) ||
	    !(m->cpu == 0 || th_model_rate_ok(m->cpu)))
		return -EINVAL;
	for (i = 0; i < m->nodes; i++)
		if (!th_model_rate_ok(m->alu[i]))
			return -EINVAL;
	return 0;
}

void th_place_reduce_terms(const struct th_place_model *m,
			   unsigned int operands, uint64_t bytes,
			   double *fixed, double *read)
{
	unsigned int passes = 1, p = m->passes > 1 ? m->passes : 2;

	if (operands > p)
		passes += (operands - p + p - 2) / (p - 1);
	/* every pass after the first reads the partial result again */
	*fixed = passes * m->descriptor;
	*read = (double)(operands + passes - 1) * bytes;
}

double th_place_reduce_cost(const struct th_place_model *m, unsigned int node,
			    unsigned int operands, uint64_t bytes)
{
	double fixed, read;

	if (node >= m->nodes)
		return INFINITY;
	th_place_reduce_terms(m, operands, bytes, &fixed, &read);
	return fixed + read / m->alu[node];
}

double th_place_copy_cost(const struct th_place_model *m, uint64_t bytes)
{
	return m->descriptor + bytes / m->bandwidth;
}

double th_place_put_cost(const struct th_place_model *m, uint64_t bytes)
{
	return m->descriptor + m->latency + bytes / m->bandwidth;
}

static bool th_model_is(const struct th_dag_lex *lx, unsigned int i,
			const char *w)
{
	return i < lx->ntok && lx->tok_len[i] == strlen(w) &&
	       !memcmp(lx->tok[i], w, lx->tok_len[i]);
}

/*
 * A rate (@rate: TH_MODEL_MIN_RATE to TH_MODEL_MAX_RATE bytes/s, or 0 with
 * @zero_ok) or a time (0 to TH_MODEL_MAX_TIME s, 0 only with @zero_ok) in
 * token @i.
 */
static int th_model_real(const struct th_dag_lex *lx, unsigned int i,
			 struct th_dag_diag *d, const char *what, bool zero_ok,
			 double *out)
{
	bool rate = strstr(what, "bytes/s") != NULL, ok;

	if (i >= lx->ntok)
		return th_dag_diag_set(d, lx->line, th_dag_lex_eol_col(lx) + 1,
				       "expected %s", what);
	ok = th_dag_tok_double(lx->tok[i], lx->tok_len[i], out);
	if (ok && rate)
		ok = th_model_rate_ok(*out) || (zero_ok && *out == 0);
	else if (ok)
		ok = th_model_time_ok(*out) && (*out > 0 || zero_ok);
	if (!ok && rate)
		return th_dag_diag_set(d, lx->line, lx->tok_col[i],
				       "expected %s from %g to %g, got '%.*s'",
				       what, TH_MODEL_MIN_RATE, TH_MODEL_MAX_RATE,
				       (int)lx->tok_len[i], lx->tok[i]);
	if (!ok)
		return th_dag_diag_set(d, lx->line, lx->tok_col[i],
				       "expected %s up to %g, got '%.*s'", what,
				       TH_MODEL_MAX_TIME, (int)lx->tok_len[i],
				       lx->tok[i]);
	return 0;
}

static int th_model_end(const struct th_dag_lex *lx, unsigned int n,
			struct th_dag_diag *d)
{
	if (lx->ntok > n)
		return th_dag_diag_set(d, lx->line, lx->tok_col[n],
				       "expected end of line");
	return 0;
}

static int th_model_line(struct th_place_model **mp, struct th_dag_lex *lx,
			 bool first, struct th_dag_diag *d)
{
	struct th_place_model *m = *mp;
	double v;
	long l;
	int ret;

	if (first) {
		if (th_model_is(lx, 0, "thmodel") && lx->ntok == 2 &&
		    !th_model_is(lx, 1, "1"))
			return th_dag_diag_set(d, lx->line, lx->tok_col[1],
					       "unsupported model file version '%.*s': this reader knows 'thmodel 1'",
					       (int)lx->tok_len[1], lx->tok[1]);
		if (!th_model_is(lx, 0, "thmodel") || !th_model_is(lx, 1, "1") ||
		    lx->ntok != 2)
			return th_dag_diag_set(d, lx->line, lx->tok_col[0],
					       "expected 'thmodel 1'");
		return 0;
	}
	if (th_model_is(lx, 0, "nodes")) {
		if (m)
			return th_dag_diag_set(d, lx->line, lx->tok_col[0],
					       "expected one 'nodes' line, before the others");
		if (lx->ntok < 2 || !th_dag_tok_long(lx->tok[1], lx->tok_len[1], &l) ||
		    l < 1 || l > TH_PLACE_MAX_NODES)
			return th_dag_diag_set(d, lx->line, lx->ntok > 1 ?
					       lx->tok_col[1] : th_dag_lex_eol_col(lx) + 1,
					       "expected a node count from 1 to %u",
					       TH_PLACE_MAX_NODES);
		ret = th_model_end(lx, 2, d);
		if (ret)
			return ret;
		*mp = th_place_model_create(l);
		return *mp ? 0 : th_dag_diag_set(d, 0, 0, "out of memory");
	}
	if (!m)
		return th_dag_diag_set(d, lx->line, lx->tok_col[0],
				       "expected 'nodes N' first");
	if (th_model_is(lx, 0, "alu")) {
		unsigned int i;

		if (lx->ntok == 3) {
			if (!th_dag_tok_long(lx->tok[1], lx->tok_len[1], &l) ||
			    l < 0 || (unsigned long)l >= m->nodes)
				return th_dag_diag_set(d, lx->line, lx->tok_col[1],
						       "expected a node below %u",
						       m->nodes);
			ret = th_model_real(lx, 2, d, "an ALU rate in bytes/s",
					    false, &v);
			if (!ret)
				m->alu[l] = v;
			return ret;
		}
		ret = th_model_real(lx, 1, d, "an ALU rate in bytes/s", false, &v);
		if (!ret)
			ret = th_model_end(lx, 2, d);
		for (i = 0; !ret && i < m->nodes; i++)
			m->alu[i] = v;
		return ret;
	}
	if (th_model_is(lx, 0, "descriptor") || th_model_is(lx, 0, "latency") ||
	    th_model_is(lx, 0, "bandwidth") || th_model_is(lx, 0, "wake") ||
	    th_model_is(lx, 0, "post") || th_model_is(lx, 0, "cpu")) {
		bool bw = th_model_is(lx, 0, "bandwidth");
		bool cpu = th_model_is(lx, 0, "cpu");

		ret = th_model_real(lx, 1, d, bw || cpu ? "a rate in bytes/s" :
				    "a time in seconds", !bw, &v);
		if (!ret)
			ret = th_model_end(lx, 2, d);
		if (ret)
			return ret;
		if (bw)
			m->bandwidth = v;
		else if (cpu)
			m->cpu = v;
		else if (th_model_is(lx, 0, "latency"))
			m->latency = v;
		else if (th_model_is(lx, 0, "wake"))
			m->wake = v;
		else if (th_model_is(lx, 0, "post"))
			m->post = v;
		else
			m->descriptor = v;
		return 0;
	}
	return th_dag_diag_set(d, lx->line, lx->tok_col[0],
			       "expected 'alu', 'descriptor', 'latency', 'bandwidth', 'wake', 'post' or 'cpu', got '%.*s'",
			       (int)lx->tok_len[0], lx->tok[0]);
}

struct th_place_model *th_place_model_parse(const char *text, size_t len,
					    struct th_dag_diag *diag)
{
	struct th_place_model *m = NULL;
	struct th_dag_diag scratch;
	struct th_dag_lex *lx;
	bool first = true;
	int ret = 0;

	if (!diag)
		diag = &scratch;
	memset(diag, 0, sizeof(*diag));
	lx = th_dag_lex_create(text, len);
	if (!lx) {
		errno = ENOMEM;
		return NULL;
	}
	while (!ret && th_dag_lex_next(lx)) {
		ret = th_dag_lex_refuse(lx, diag);
		if (!ret)
			ret = th_model_line(&m, lx, first, diag);
		first = false;
	}
	if (!ret && !m)
		ret = th_dag_diag_set(diag, lx->line + 1, 1,
				      first ? "expected 'thmodel 1'" :
				      "expected 'nodes N'");
	th_dag_lex_destroy(lx);
	if (ret) {
		th_place_model_destroy(m);
		errno = EINVAL;
		return NULL;
	}
	return m;
}

struct th_place_model *th_place_model_load(const char *path,
					   struct th_dag_diag *diag)
{
	struct th_place_model *m;
	size_t len;
	char *buf = th_dag_read_file(path, &len, diag);
	int err;

	if (!buf)
		return NULL;
	m = th_place_model_parse(buf, len, diag);
	err = errno;
	free(buf);
	errno = err;
	return m;
}

int th_place_model_write(const struct th_place_model *m, FILE *f)
{
	unsigned int i;
	bool same = true;

	fprintf(f, "thmodel 1\n# seconds, bytes, bytes per second\nnodes %u\n",
		m->nodes);
	for (i = 1; i < m->nodes; i++)
		same &= m->alu[i] == m->alu[0];
	if (same) {
		fprintf(f, "alu %.6g\n", m->alu[0]);
	} else {
		for (i = 0; i < m->nodes; i++)
			fprintf(f, "alu %u %.6g\n", i, m->alu[i]);
	}
	fprintf(f, "descriptor %.6g\nlatency %.6g\nbandwidth %.6g\n",
		m->descriptor, m->latency, m->bandwidth);
	/* the host's costs, for the timed mode: left out while free */
	if (m->wake || m->post || m->cpu)
		fprintf(f, "wake %.6g\npost %.6g\ncpu %.6g\n", m->wake, m->post,
			m->cpu);
	return ferror(f) ? -EIO : 0;
}
