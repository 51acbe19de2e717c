// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * memory.c - the ranges of every descriptor against the regions the set
 * declares (th_verify_set.regions), read as the doorbell reads them: its
 * local ranges from th_eng_desc_local_ranges() (a transfer's lkey,
 * offset and length; a copy's source and destination; a reduction's
 * destination and operands; an inline write that stays here), the same
 * function th_validate.c checks, and the range at its target
 * (th_eng_desc_target(), th_eng_desc_remote_access()), each inside a
 * region of that node and vport with the access it needs.  A chain
 * with a range outside fails when it runs: it is taken as never firing,
 * so the chains that wait on it are reported too.  No regions declared:
 * nothing is checked.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "th_engine_int.h"
#include "verify_priv.h"

/* the regions sorted by node, vport and key: local keys, then remote */
struct tv_regions {
	const struct th_verify_region **by_lkey;
	const struct th_verify_region **by_rkey;
	uint32_t n;
};

static int tv_region_cmp(const struct th_verify_region *a,
			 const struct th_verify_region *b, uint64_t ka,
			 uint64_t kb)
{
	if (a->node != b->node)
		return a->node < b->node ? -1 : 1;
	if (a->vport != b->vport)
		return a->vport < b->vport ? -1 : 1;
	return ka < kb ? -1 : ka > kb;
}

static int tv_by_lkey(const void *x, const void *y)
{
	const struct th_verify_region *a = *(const struct th_verify_region *const *)x;
	const struct th_verify_region *b = *(const struct th_verify_region *const *)y;

	return tv_region_cmp(a, b, a->lkey, b->lkey);
}

static int tv_by_rkey(const void *x, const void *y)
{
	const struct th_verify_region *a = *(const struct th_verify_region *const *)x;
	const struct th_verify_region *b = *(const struct th_verify_region *const *)y;

	return tv_region_cmp(a, b, a->rkey, b->rkey);
}

/* The region of (@node, @vport) with local (@remote false) or remote key @key. */
static const struct th_verify_region *tv_region_find(const struct tv_regions *r,
						     bool remote, uint32_t node,
						     uint32_t vport, uint64_t key)
{
	const struct th_verify_region *const *v = remote ? r->by_rkey : r->by_lkey;
	struct th_verify_region want = { .node = node, .vport = vport };
	uint32_t lo = 0, hi = r->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = tv_region_cmp(v[mid], &want,
				      remote ? v[mid]->rkey : v[mid]->lkey, key);

		if (!c)
			return v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * Does [@off, @off + @len) of the region of (@node, @vport, @key) exist
 * with @access?  NULL when it does, else why not, in @why.
 */
static const char *tv_range_bad(const struct tv_regions *r, bool remote,
				uint32_t node, uint32_t vport, uint64_t key,
				uint64_t off, uint64_t len, uint32_t access,
				char *why, size_t size)
{
	const struct th_verify_region *g = tv_region_find(r, remote, node, vport, key);
	const char *side = remote ? "remote" : "local";

	if (!g)
		snprintf(why, size, "its %s key %#llx names no region of n%u.v%u",
			 side, (unsigned long long)key, node, vport);
	else if (off > g->len || len > g->len - off)
		snprintf(why, size,
			 "its %s range [%llu, +%llu) runs past the %llu bytes of the region of n%u.v%u key %#llx",
			 side, (unsigned long long)off, (unsigned long long)len,
			 (unsigned long long)g->len, node, vport,
			 (unsigned long long)key);
	else if ((g->access & access) != access)
		snprintf(why, size,
			 "the region of n%u.v%u key %#llx lacks the %s access it needs (%#x of %#x)",
			 node, vport, (unsigned long long)key, side, access,
			 g->access);
	else
		return NULL;
	return why;
}

/*
 * @d's ranges on its own vport and at its target, as the doorbell and the
 * target read them: each local range (th_eng_desc_local_ranges(), the
 * doorbell's own reading) inside a region of the chain's vport with the
 * access it needs, and the target's range inside a region there that
 * allows the remote access.  NULL when all are.
 */
static const char *tv_desc_bad(const struct tv_regions *r,
			       const struct th_verify_chain *vc,
			       const struct th_nic_desc *d, char *why, size_t size)
{
	struct th_eng_local_range lr[TH_ENG_LOCAL_RANGES];
	struct th_eng_remote_op op;
	u32 i, n = th_eng_desc_local_ranges(d, lr), need;

	for (i = 0; i < n; i++)
		if (tv_range_bad(r, false, vc->node, vc->vport, lr[i].key,
				 lr[i].off, lr[i].len, lr[i].access, why, size))
			return why;
	need = th_eng_desc_remote_access(d);
	if (need && th_eng_desc_target(d, &op) &&
	    tv_range_bad(r, true, op.node, op.vport, op.rkey, op.roff, op.len,
			 need, why, size))
		return why;
	return NULL;
}

int tv_memory(struct tv_model *m)
{
	const struct th_verify_set *set = m->set;
	struct tv_regions r = { .n = set->nregions };
	char why[200];
	uint32_t ci, i;

	if (!set->nregions)
		return 0;
	r.by_lkey = malloc(r.n * sizeof(*r.by_lkey));
	r.by_rkey = malloc(r.n * sizeof(*r.by_rkey));
	if (!r.by_lkey || !r.by_rkey) {
		free(r.by_lkey);
		free(r.by_rkey);
		return -ENOMEM;
	}
	for (i = 0; i < r.n; i++)
		r.by_lkey[i] = r.by_rkey[i] = &set->regions[i];
	qsort(r.by_lkey, r.n, sizeof(*r.by_lkey), tv_by_lkey);
	qsort(r.by_rkey, r.n, sizeof(*r.by_rkey), tv_by_rkey);
	for (ci = 0; ci < set->nchains; ci++) {
		const struct th_verify_chain *vc = &set->chains[ci];
		struct th_verify_finding *f;

		if (m->chains[ci].refused)
			continue;
		for (i = 0; i < vc->ndesc; i++) {
			if (!tv_desc_bad(&r, vc, &vc->descs[i], why, sizeof(why)))
				continue;
			m->chains[ci].refused = true;
			f = tv_finding(m, TH_VERIFY_MEMORY, ci, i, NULL);
			if (f)
				snprintf(f->why, sizeof(f->why), "descriptor %u: %s",
					 i, why);
			break;
		}
	}
	free(r.by_lkey);
	free(r.by_rkey);
	return 0;
}
