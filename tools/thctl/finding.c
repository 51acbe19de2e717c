// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * finding.c - a verifier's finding as thctl prints it: a counter's name
 * and the JSON object 'thctl verify -j' (a chain file's, a plan's) and
 * 'thctl place --verify -j' give for each, the chains named by the caller.
 */
#include <stdio.h>

#include "finding.h"
#include "json.h"

void thctl_counter_str(const struct th_verify_counter *c, char *buf,
		       size_t len)
{
	snprintf(buf, len, "n%u.v%u.ct%u", c->node, c->vport, c->ct);
}

void thctl_finding_json(struct tj *t, const struct th_verify_finding *f,
			thctl_chain_name_fn name, thctl_finding_keys_fn keys,
			const void *arg)
{
	char cs[48], nm[64];
	unsigned int i;

	tj_obj_begin(t);
	tj_kv_str(t, "class", th_verify_class_name(f->cls));
	tj_key(t, "warning");
	tj_bool(t, th_verify_class_is_warning(f->cls));
	tj_key(t, "chain");
	if (name(arg, f->chain, nm, sizeof(nm)))
		tj_str(t, nm);
	else
		tj_null(t);
	if (keys)
		keys(t, arg, f);
	tj_key(t, "counter");
	if (f->has_counter) {
		thctl_counter_str(&f->counter, cs, sizeof(cs));
		tj_str(t, cs);
	} else {
		tj_null(t);
	}
	tj_kv_str(t, "why", f->why);
	tj_key(t, "path");
	tj_arr_begin(t);
	for (i = 0; i < f->npath; i++) {
		tj_obj_begin(t);
		tj_key(t, "chain");
		if (name(arg, f->path[i].chain, nm, sizeof(nm)))
			tj_str(t, nm);
		else
			tj_null(t);
		thctl_counter_str(&f->path[i].counter, cs, sizeof(cs));
		tj_kv_str(t, "counter", cs);
		tj_obj_end(t);
	}
	tj_arr_end(t);
	tj_obj_end(t);
}
