/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * finding.h - a verifier's finding as thctl prints it (finding.c): a
 * counter's name, and the JSON object of 'thctl verify -j' and 'thctl
 * place --verify -j', with the chains named by the caller.
 */
#ifndef THCTL_FINDING_H
#define THCTL_FINDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <thverbs/verify.h>

struct tj;

/* "nN.vV.ctC" */
void thctl_counter_str(const struct th_verify_counter *c, char *buf,
		       size_t len);

/* Chain @chain's name into @buf; false: it has none (null in JSON). */
typedef bool (*thctl_chain_name_fn)(const void *arg, uint32_t chain,
				    char *buf, size_t len);
/* Keys of the caller's after "chain" (a file's line, a plan's rank). */
typedef void (*thctl_finding_keys_fn)(struct tj *t, const void *arg,
				      const struct th_verify_finding *f);

/*
 * {"class", "warning", "chain", [@keys'], "counter", "why", "path":
 * [{"chain", "counter"}]}: a path's chains by @name too.
 */
void thctl_finding_json(struct tj *t, const struct th_verify_finding *f,
			thctl_chain_name_fn name, thctl_finding_keys_fn keys,
			const void *arg);

#endif /* THCTL_FINDING_H */
