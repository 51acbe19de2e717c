// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * verify.c - th_verify(): the limits first (fit.c), then the fixed point
 * of the counters (reach.c) from the host's declared updates, and from
 * it the findings: chains whose counter never gets to their threshold,
 * told apart into those nothing could ever raise enough (UNREACHABLE)
 * and those that wait on each other (CYCLE); re-arming chains that keep
 * firing once triggered with no host action (SELF-REARM); and the
 * warnings.  Documentation/verify.rst says what is proven and where the
 * abstraction is conservative.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verify_priv.h"

static const char *const tv_class_names[TH_VERIFY_CLASS_MAX] = {
	[TH_VERIFY_UNREACHABLE]		= "unreachable",
	[TH_VERIFY_CYCLE]		= "cycle",
	[TH_VERIFY_FIT]			= "fit",
	[TH_VERIFY_SELF_REARM]		= "self-rearm",
	[TH_VERIFY_WARN_IMMEDIATE]	= "immediate",
	[TH_VERIFY_WARN_WRITERS]	= "writers",
	[TH_VERIFY_MEMORY]		= "memory",
	[TH_VERIFY_WAIT]		= "wait",
	[TH_VERIFY_AHEAD]		= "ahead",
};

const char *th_verify_class_name(enum th_verify_class cls)
{
	return (unsigned int)cls < TH_VERIFY_CLASS_MAX ? tv_class_names[cls] : NULL;
}

bool th_verify_class_is_warning(enum th_verify_class cls)
{
	return cls == TH_VERIFY_WARN_IMMEDIATE || cls == TH_VERIFY_WARN_WRITERS;
}

/* A new finding, counted; NULL when @out is full (it is still counted). */
struct th_verify_finding *tv_finding(struct tv_model *m,
				     enum th_verify_class cls, uint32_t chain,
				     uint32_t desc, const uint32_t *ctr)
{
	struct th_verify_finding *f;

	if (m->nfound++ >= m->max)
		return NULL;
	f = &m->out[m->nfound - 1];
	memset(f, 0, sizeof(*f));
	f->cls = cls;
	f->chain = chain;
	f->desc = desc;
	if (ctr) {
		f->has_counter = true;
		f->counter = m->ctrs[*ctr];
	}
	return f;
}

static void tv_path_add(const struct tv_model *m, struct th_verify_finding *f,
			uint32_t chain, uint32_t ctr)
{
	if (f->npath == TH_VERIFY_PATH_MAX)
		return;
	f->path[f->npath].chain = chain;
	f->path[f->npath].counter = m->ctrs[ctr];
	f->npath++;
}

/*
 * A cycle through chain @x among the chains @member marks: x raises the
 * counter of b1, b1 that of b2, ..., bk that of x.  Its chains in order,
 * from x, into @cyc (at most nchains); returns their number, 0 for none.
 */
static uint32_t tv_find_cycle(const struct tv_model *m, uint32_t x,
			      const bool *member, uint32_t *cyc)
{
	uint32_t n = m->set->nchains, head = 0, tail = 0, a, b, k, e, len;
	uint32_t *parent = malloc(n * sizeof(*parent));
	uint32_t *queue = malloc(n * sizeof(*queue));

	if (!parent || !queue) {
		free(parent);
		free(queue);
		return 0;
	}
	for (b = 0; b < n; b++)
		parent[b] = TV_NONE;
	queue[tail++] = x;
	parent[x] = x;
	len = 0;
	while (head < tail && !len) {
		a = queue[head++];
		for (e = m->succ_first[a]; e < m->succ_first[a + 1]; e++) {
			b = m->succ[e];
			if (b == x) {
				/* x ... a, then back to x: walk the parents */
				for (k = a, len = 1; k != x; k = parent[k])
					len++;
				for (k = a, b = len; b > 0; k = parent[k])
					cyc[--b] = k;
				break;
			}
			if (!member[b] || parent[b] != TV_NONE)
				continue;
			parent[b] = a;
			queue[tail++] = b;
		}
	}
	free(parent);
	free(queue);
	return len;
}

/* The path of a cycle @cyc of @len chains, each to the next's counter. */
static void tv_path_cycle(const struct tv_model *m, struct th_verify_finding *f,
			  const uint32_t *cyc, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		tv_path_add(m, f, cyc[i], m->chains[cyc[(i + 1) % len]].trig);
}

static void tv_why_counter(const struct tv_model *m, uint32_t ctr, char *buf,
			   unsigned int len)
{
	tv_counter_str(&m->ctrs[ctr], buf, len);
}

/* The chains (posted) that raise @ctr, named into @names; how many. */
static uint32_t tv_raisers(const struct tv_model *m, uint32_t ctr,
			   char *names, size_t size)
{
	uint32_t j, raisers = 0;
	size_t at = 0;
	char nm[24];

	names[0] = '\0';
	for (j = 0; j < m->set->nchains; j++) {
		if (m->chains[j].refused || !tv_chain_raises(m, j, ctr))
			continue;
		if (at < size)
			at += snprintf(names + at, size - at, "%s%s",
				       raisers ? ", " : ": ",
				       tv_chain_name(m, j, nm, sizeof(nm)));
		raisers++;
	}
	return raisers;
}

/*
 * @f: @ci's counter reaches at most @max (from the host's @h and @raisers
 * chains, named in @names): below its threshold.
 */
static void tv_why_short(const struct tv_model *m, struct th_verify_finding *f,
			 uint32_t ci, uint64_t max, const char *cs)
{
	const struct tv_chain *c = &m->chains[ci];
	const struct tv_host *h = &m->host[c->trig];
	char names[96];
	uint32_t raisers = tv_raisers(m, c->trig, names, sizeof(names));

	snprintf(f->why, sizeof(f->why),
		 "waits for %s >= %llu, which can reach at most %llu: the host adds %llu%s and %u chain(s) raise it%s",
		 cs, (unsigned long long)c->threshold, (unsigned long long)max,
		 (unsigned long long)h->inc, h->set ? " (after setting it)" : "",
		 raisers, names);
}

/*
 * Chain @ci never fires: nothing can raise its counter enough
 * (UNREACHABLE), or it waits on chains that wait on it (CYCLE), or on
 * chains that never fire for one of these reasons (UNREACHABLE, with the
 * path back to them).
 */
static void tv_never_fires(struct tv_model *m, uint32_t ci,
			   const uint64_t *reach, const uint64_t *opt,
			   const bool *idle, bool *in_cycle, uint32_t *cyc)
{
	const struct tv_chain *c = &m->chains[ci];
	struct th_verify_finding *f;
	char cs[48], nm[24];
	uint32_t j, len, at;

	tv_why_counter(m, c->trig, cs, sizeof(cs));
	if (opt[c->trig] < c->threshold) {
		f = tv_finding(m, TH_VERIFY_UNREACHABLE, ci, TV_NONE, &c->trig);
		/* no path: what raises it is named, none of it is enough */
		if (f)
			tv_why_short(m, f, ci, opt[c->trig], cs);
		return;
	}
	/* reported with the cycle's first chain */
	if (in_cycle[ci])
		return;
	len = tv_find_cycle(m, ci, idle, cyc);
	/* a cycle through a reported one: @ci waits on that one */
	for (j = 0; j < len; j++)
		if (in_cycle[cyc[j]])
			len = 0;
	if (len) {
		for (j = 0; j < len; j++)
			in_cycle[cyc[j]] = true;
		f = tv_finding(m, TH_VERIFY_CYCLE, ci, TV_NONE, &c->trig);
		if (!f)
			return;
		tv_path_cycle(m, f, cyc, len);
		if (len == 1)
			snprintf(f->why, sizeof(f->why),
				 "waits for %s >= %llu, which gets there only once it has fired itself; the host and the other chains bring it to %llu",
				 cs, (unsigned long long)c->threshold,
				 (unsigned long long)reach[c->trig]);
		else
			snprintf(f->why, sizeof(f->why),
				 "waits for %s >= %llu, which gets there only if %u chain(s) that wait on this one fire first; the host and the other chains bring it to %llu",
				 cs, (unsigned long long)c->threshold, len - 1,
				 (unsigned long long)reach[c->trig]);
		return;
	}
	/* blocked upstream: walk back through chains that never fire */
	f = tv_finding(m, TH_VERIFY_UNREACHABLE, ci, TV_NONE, &c->trig);
	if (!f)
		return;
	at = ci;
	for (len = 0; len < TH_VERIFY_PATH_MAX; len++) {
		uint32_t from = TV_NONE;

		for (j = 0; j < m->set->nchains && from == TV_NONE; j++)
			if (idle[j] && j != ci && tv_chain_raises(m, j, m->chains[at].trig)) {
				uint32_t k;
				bool seen = false;

				for (k = 0; k < len; k++)
					seen |= cyc[k] == j;
				if (!seen)
					from = j;
			}
		if (from == TV_NONE)
			break;
		cyc[len] = from;
		at = from;
	}
	/*
	 * None: the chains that raise it fire, but only as many rounds as
	 * their own counters allow
	 */
	if (!len) {
		tv_why_short(m, f, ci, reach[c->trig], cs);
		return;
	}
	/* the path runs from the first blocked chain down to @ci */
	for (j = len; j > 0; j--)
		tv_path_add(m, f, cyc[j - 1],
			    m->chains[j > 1 ? cyc[j - 2] : ci].trig);
	snprintf(f->why, sizeof(f->why),
		 "waits for %s >= %llu, which can reach at most %llu: the chains that would raise it further never fire (%s first)",
		 cs, (unsigned long long)c->threshold,
		 (unsigned long long)reach[c->trig],
		 tv_chain_name(m, cyc[len - 1], nm, sizeof(nm)));
}

/*
 * A re-arming chain @ci that fires: triggered once with no host action,
 * do its own effects (directly or through the chains they trigger) bring
 * its next round?  The fixed point says how many rounds they bring: more
 * than the one triggered is a finding, without bound the worst of them.
 */
static int tv_self_rearm(struct tv_model *m, uint32_t ci, bool *member,
			 uint32_t *cyc)
{
	const struct tv_chain *c = &m->chains[ci];
	const uint64_t *rounds = tv_rounds_alone(m, ci);
	struct th_verify_finding *f;
	char cs[48], many[48];
	uint64_t mine = rounds[ci];
	uint32_t j, len;

	if (mine < 2) {
		tv_rounds_alone_done(m);
		return 0;
	}
	for (j = 0; j < m->set->nchains; j++)
		member[j] = rounds[j] > 0;
	tv_rounds_alone_done(m);
	len = tv_find_cycle(m, ci, member, cyc);
	f = tv_finding(m, TH_VERIFY_SELF_REARM, ci, m->set->chains[ci].ndesc - 1,
		       &c->trig);
	if (!f)
		return 0;
	tv_path_cycle(m, f, cyc, len);
	tv_why_counter(m, c->trig, cs, sizeof(cs));
	if (mine == TV_UNBOUNDED)
		snprintf(many, sizeof(many), "every next round");
	else
		snprintf(many, sizeof(many), "%llu more round(s)",
			 (unsigned long long)(mine - 1));
	snprintf(f->why, sizeof(f->why),
		 "re-arms by %llu on %s, and once triggered its own effects%s bring %s with no host action%s",
		 (unsigned long long)c->stride, cs,
		 len > 1 ? " (through the chains they trigger)" : "", many,
		 mine == TV_UNBOUNDED ? ": it fires without end" : "");
	return 0;
}

/*
 * A re-arming chain that fires with no host action at all, in a set the
 * host drives: its rounds run ahead of the host's.
 */
static void tv_ahead(struct tv_model *m, uint32_t ci, uint64_t rounds)
{
	const struct tv_chain *c = &m->chains[ci];
	struct th_verify_finding *f;
	char cs[48], many[32];

	f = tv_finding(m, TH_VERIFY_AHEAD, ci, TV_NONE, &c->trig);
	if (!f)
		return;
	tv_why_counter(m, c->trig, cs, sizeof(cs));
	if (rounds == TV_UNBOUNDED)
		snprintf(many, sizeof(many), "without bound");
	else
		snprintf(many, sizeof(many), "%llu", (unsigned long long)rounds);
	if (m->set->rounds && rounds > m->set->rounds) {
		snprintf(f->why, sizeof(f->why),
			 "re-arms by %llu on %s, which other chains can raise to fire it %s round(s) for the host's %u: it runs ahead of the host",
			 (unsigned long long)c->stride, cs, many, m->set->rounds);
		return;
	}
	snprintf(f->why, sizeof(f->why),
		 "re-arms by %llu on %s but fires with no host action at all (%s): it runs a round ahead of the host's",
		 (unsigned long long)c->stride, cs,
		 c->threshold ? "chains that need none raise it to its threshold" :
		 "threshold 0, met when it is posted");
}

/* The host's wait @wi: can its counter get there? */
static void tv_wait(struct tv_model *m, uint32_t wi, const uint64_t *reach)
{
	const struct th_verify_wait *w = &m->set->waits[wi];
	struct th_verify_finding *f;
	char cs[48], names[96];
	uint32_t id, raisers;

	/* the model knows every counter the set names, waits included */
	if (tv_counter_id(m, w->counter.node, w->counter.vport, w->counter.ct,
			  &id) || reach[id] >= w->value)
		return;
	f = tv_finding(m, TH_VERIFY_WAIT, TV_NONE, TV_NONE, &id);
	if (!f)
		return;
	tv_why_counter(m, id, cs, sizeof(cs));
	raisers = tv_raisers(m, id, names, sizeof(names));
	snprintf(f->why, sizeof(f->why),
		 "the host waits for %s >= %llu, which can reach at most %llu: the host adds %llu and %u chain(s) raise it%s",
		 cs, (unsigned long long)w->value, (unsigned long long)reach[id],
		 (unsigned long long)m->host[id].inc, raisers, names);
}

/*
 * A counter that is set, and written by anything else too: the writers
 * of every counter counted in one pass over the chains' effects.
 */
static int tv_writers(struct tv_model *m)
{
	uint32_t *writers = calloc(m->nctrs + 1, sizeof(*writers));
	uint32_t *setters = calloc(m->nctrs + 1, sizeof(*setters));
	uint32_t *first_setter = malloc((m->nctrs + 1) * sizeof(*first_setter));
	uint32_t i, ci, e;
	char cs[48];

	if (!writers || !setters || !first_setter) {
		free(writers);
		free(setters);
		free(first_setter);
		return -ENOMEM;
	}
	for (i = 0; i < m->nctrs; i++) {
		writers[i] = m->host[i].writers;
		setters[i] = m->host[i].setters;
		first_setter[i] = TV_NONE;
	}
	for (ci = 0; ci < m->set->nchains; ci++) {
		const struct tv_chain *c = &m->chains[ci];

		if (c->refused)
			continue;
		for (e = c->first_eff; e < c->first_eff + c->neff; e++) {
			i = m->effs[e].ctr;
			writers[i]++;
			if (!m->effs[e].set)
				continue;
			setters[i]++;
			if (first_setter[i] == TV_NONE)
				first_setter[i] = ci;
		}
	}
	for (i = 0; i < m->nctrs; i++) {
		struct th_verify_finding *f;

		if (!setters[i] || writers[i] < 2)
			continue;
		f = tv_finding(m, TH_VERIFY_WARN_WRITERS, first_setter[i], TV_NONE, &i);
		if (!f)
			continue;
		tv_why_counter(m, i, cs, sizeof(cs));
		snprintf(f->why, sizeof(f->why),
			 "%s is set by %u update(s) and written by %u in all: its value depends on their order",
			 cs, setters[i], writers[i]);
	}
	free(writers);
	free(setters);
	free(first_setter);
	return 0;
}

/*
 * Which chains lie on a cycle of the dependency graph (a strongly
 * connected component of more than one chain, or a chain that raises its
 * own counter): Tarjan's algorithm, iterative, in time linear in the
 * graph's edges.  Only those can feed themselves.
 */
static int tv_on_cycle(const struct tv_model *m, bool *on)
{
	uint32_t n = m->set->nchains, next = 0, sp = 0, cs = 0, v, w, e;
	uint32_t *index = malloc((n + 1) * sizeof(*index));
	uint32_t *low = malloc((n + 1) * sizeof(*low));
	uint32_t *stack = malloc((n + 1) * sizeof(*stack));
	uint32_t *call = malloc((n + 1) * sizeof(*call));
	uint32_t *edge = malloc((n + 1) * sizeof(*edge));
	bool *onstack = calloc(n + 1, sizeof(*onstack));
	int ret = -ENOMEM;

	if (!index || !low || !stack || !call || !edge || !onstack)
		goto out;
	for (v = 0; v < n; v++) {
		index[v] = TV_NONE;
		on[v] = false;
	}
	for (uint32_t root = 0; root < n; root++) {
		if (index[root] != TV_NONE)
			continue;
		call[cs++] = root;
		index[root] = low[root] = next++;
		edge[root] = m->succ_first[root];
		stack[sp++] = root;
		onstack[root] = true;
		while (cs) {
			v = call[cs - 1];
			if (edge[v] < m->succ_first[v + 1]) {
				w = m->succ[edge[v]++];
				if (w == v) {
					on[v] = true;	/* raises its own counter */
				} else if (index[w] == TV_NONE) {
					index[w] = low[w] = next++;
					edge[w] = m->succ_first[w];
					stack[sp++] = w;
					onstack[w] = true;
					call[cs++] = w;
				} else if (onstack[w] && index[w] < low[v]) {
					low[v] = index[w];
				}
				continue;
			}
			cs--;
			if (cs && low[v] < low[call[cs - 1]])
				low[call[cs - 1]] = low[v];
			if (low[v] != index[v])
				continue;
			/* v roots a component: more than one chain is a cycle */
			e = sp;
			do {
				w = stack[--sp];
				onstack[w] = false;
			} while (w != v);
			if (e - sp > 1)
				for (w = sp; w < e; w++)
					on[stack[w]] = true;
		}
	}
	ret = 0;
out:
	free(index);
	free(low);
	free(stack);
	free(call);
	free(edge);
	free(onstack);
	return ret;
}

/*
 * The re-arming chains worth a fixed point of their own: with nothing
 * firing without the host, a chain's one triggered round brings another
 * only through a cycle back to its counter; otherwise (chains that fire
 * on nothing, threshold 0) every re-arming chain is looked at.
 */
static int tv_rearm_suspects(struct tv_model *m, bool *suspect,
			     bool *unaided)
{
	const uint64_t *rounds = tv_rounds_alone(m, TV_NONE);
	uint32_t n = m->set->nchains, ci;
	bool any = false;

	for (ci = 0; ci < n; ci++) {
		unaided[ci] = rounds[ci] > 0;
		any |= unaided[ci];
	}
	tv_rounds_alone_done(m);
	if (any) {
		for (ci = 0; ci < n; ci++)
			suspect[ci] = true;
		return 0;
	}
	return tv_on_cycle(m, suspect);
}

static int tv_verify(struct tv_model *m)
{
	uint32_t n = m->set->nchains, ci;
	uint64_t *reach = calloc(m->nctrs + 1, sizeof(*reach));
	uint64_t *opt = calloc(m->nctrs + 1, sizeof(*opt));
	uint64_t *rounds = calloc(n + 1, sizeof(*rounds));
	uint64_t *tmp_rounds = calloc(n + 1, sizeof(*tmp_rounds));
	bool *idle = calloc(n + 1, sizeof(*idle));
	bool *in_cycle = calloc(n + 1, sizeof(*in_cycle));
	bool *member = calloc(n + 1, sizeof(*member));
	bool *suspect = calloc(n + 1, sizeof(*suspect));
	bool *unaided = calloc(n + 1, sizeof(*unaided));
	uint32_t *cyc = calloc(n + TH_VERIFY_PATH_MAX, sizeof(*cyc));
	struct tv_start real = { .host = true };
	struct tv_start all = { .host = true, .optimistic = true };
	int ret = -ENOMEM;

	if (!reach || !opt || !rounds || !tmp_rounds || !idle ||
	    !in_cycle || !member || !suspect || !unaided || !cyc)
		goto out;
	ret = tv_reach(m, &real, reach, rounds);
	if (!ret)
		ret = tv_reach(m, &all, opt, tmp_rounds);
	if (!ret)
		ret = tv_rearm_suspects(m, suspect, unaided);
	if (ret)
		goto out;
	for (ci = 0; ci < n; ci++)
		idle[ci] = !m->chains[ci].refused && !rounds[ci];
	for (ci = 0; ci < n && !ret; ci++) {
		const struct tv_chain *c = &m->chains[ci];
		struct th_verify_finding *f;

		if (c->refused)
			continue;
		if (!rounds[ci]) {
			tv_never_fires(m, ci, reach, opt, idle, in_cycle, cyc);
			continue;
		}
		if (!c->threshold) {
			f = tv_finding(m, TH_VERIFY_WARN_IMMEDIATE, ci, TV_NONE, &c->trig);
			if (f)
				snprintf(f->why, sizeof(f->why),
					 "threshold 0: it fires as soon as it is posted");
		}
		if (c->rearm && ((unaided[ci] && m->set->nactions) ||
				 (m->set->rounds && rounds[ci] > m->set->rounds))) {
			tv_ahead(m, ci, rounds[ci]);
			continue;
		}
		if (c->rearm && suspect[ci])
			ret = tv_self_rearm(m, ci, member, cyc);
	}
	for (ci = 0; !ret && ci < m->set->nwaits; ci++)
		tv_wait(m, ci, reach);
	if (!ret)
		ret = tv_writers(m);
out:
	free(reach);
	free(opt);
	free(rounds);
	free(tmp_rounds);
	free(idle);
	free(in_cycle);
	free(member);
	free(suspect);
	free(unaided);
	free(cyc);
	return ret;
}

int th_verify(const struct th_verify_set *set, struct th_verify_finding *out,
	      unsigned int max)
{
	struct tv_model m = { 0 };
	int ret;

	if (!set || (max && !out))
		return -EINVAL;
	m.out = out;
	m.max = max;
	ret = tv_model_build(&m, set);
	if (!ret)
		ret = tv_fit(&m);
	if (!ret)
		ret = tv_memory(&m);
	if (!ret)
		ret = tv_model_graph(&m);
	if (!ret)
		ret = tv_verify(&m);
	tv_model_free(&m);
	return ret ? ret : (int)m.nfound;
}
