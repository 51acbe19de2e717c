// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * verify_fuzz.c - libFuzzer target for the chain verifier (th_verify()):
 * the input's bytes become a set of chains (any opcode, flags, counters,
 * targets, thresholds and strides, invalid ones too), host actions and
 * limits; every set must be either refused with -EINVAL or verified
 * within bounded time into findings that name real chains, counters and
 * classes, as many when counted as when stored.  ASan and UBSan watch.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <thverbs/verify.h>

#define VF_CHAINS	8
#define VF_DESCS	20
#define VF_ACTIONS	6

struct vf_in {
	const uint8_t *p;
	size_t n;
};

static uint8_t vf_byte(struct vf_in *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct th_nic_desc descs[VF_CHAINS][VF_DESCS];
	static struct th_verify_finding f[64];
	struct th_verify_chain chains[VF_CHAINS];
	struct th_verify_action acts[VF_ACTIONS];
	struct th_nic_query q = { .node_count = 4, .max_counters = 8,
				  .max_chain = 16, .max_sq_entries = 32,
				  .max_cq_entries = 16 };
	struct th_verify_set set = { .chains = chains, .actions = acts,
				     .limits = &q };
	struct vf_in in = { data, size };
	uint32_t c, i;
	int n, m;

	set.nchains = vf_byte(&in) % VF_CHAINS + 1;
	for (c = 0; c < set.nchains; c++) {
		struct th_nic_desc *d = descs[c];
		uint32_t nd = vf_byte(&in) % VF_DESCS + 1;

		memset(d, 0, sizeof(descs[c]));
		for (i = 0; i < nd; i++) {
			d[i].opcode = vf_byte(&in) % (TH_NIC_OP_MAX + 1);
			d[i].flags = vf_byte(&in) & TH_NIC_DF_ALL;
			d[i].comp_ct = vf_byte(&in) % 10;
			/* the union's counters and targets, whichever it holds */
			d[i].ct.ct = vf_byte(&in) % 10;
			d[i].ct.value = (uint64_t)(int64_t)(int8_t)vf_byte(&in);
			if (vf_byte(&in) & 1) {
				d[i].xfer.node = vf_byte(&in) % 5;
				d[i].xfer.remote_ct = vf_byte(&in) % 10;
			}
			if (d[i].opcode == TH_NIC_OP_REARM)
				d[i].rearm.stride = vf_byte(&in) % 3;
		}
		d[0].trig_ct = vf_byte(&in) % 10;
		d[0].threshold = vf_byte(&in) % 6;
		chains[c] = (struct th_verify_chain){
			.node = vf_byte(&in) % 5, .vport = vf_byte(&in) % 2,
			.descs = d, .ndesc = nd };
	}
	set.nactions = vf_byte(&in) % (VF_ACTIONS + 1);
	for (i = 0; i < set.nactions; i++)
		acts[i] = (struct th_verify_action){
			.counter = { .node = vf_byte(&in) % 4, .ct = vf_byte(&in) % 10 },
			.set = vf_byte(&in) & 1,
			.value = vf_byte(&in) % 5 };
	set.cq_entries = vf_byte(&in) % 20;

	n = th_verify(&set, NULL, 0);
	if (n == -EINVAL)
		return 0;
	if (n < 0)
		abort();
	m = th_verify(&set, f, 64);
	if (m != n)
		abort();
	for (i = 0; i < (uint32_t)n && i < 64; i++) {
		if (!th_verify_class_name(f[i].cls) || !f[i].why[0])
			abort();
		if (f[i].chain >= set.nchains && f[i].chain != UINT32_MAX)
			abort();
		if (f[i].npath > TH_VERIFY_PATH_MAX)
			abort();
		for (c = 0; c < f[i].npath; c++)
			if (f[i].path[c].chain >= set.nchains)
				abort();
	}
	return 0;
}
