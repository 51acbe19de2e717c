// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * engine_fuzz.c - libFuzzer target: the trigger engine on a small
 * in-process fabric (three vports on two nodes, two MRs each), driven by
 * the input as a program: chains built from its bytes (every opcode, keys
 * valid or not, ranges in or out, counters, links, re-arming), raw
 * descriptors, doorbells, host counter updates, waits, cancels, MR
 * deregistration and registration, vport destruction and re-creation, in
 * any order.  After each input: every vport is cancelled, drained and
 * destroyed, and the invariants hold - every accepted chain completed
 * (nothing accepted is left, no CQ credit is left reserved, nothing
 * runs), the user's tallies are back to zero, teardown finished, and
 * LeakSanitizer sees no leak.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "th_test.h"

#define NVP	3
#define NMR	2
#define MRLEN	4096

/* What inline writes carry: more than any inline length. */
static const uint8_t fz_bytes[64] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.";

struct fz {
	const uint8_t *p;
	size_t left;
	struct th_ipf *f;
	struct th_ipf_vport *vp[NVP];
	uint8_t *mem[NVP][NMR];
	uint32_t lkey[NVP][NMR];
	uint64_t rkey[NVP][NMR];
	uint64_t cookie;
};

static uint8_t fz_u8(struct fz *z)
{
	if (!z->left)
		return 0;
	z->left--;
	return *z->p++;
}

static uint64_t fz_u64(struct fz *z, unsigned int bytes)
{
	uint64_t v = 0;

	while (bytes--)
		v = (v << 8) | fz_u8(z);
	return v;
}

/* A small number, sometimes a huge one: ranges at and past the edges. */
static uint64_t fz_len(struct fz *z)
{
	uint8_t k = fz_u8(z);

	if (k < 200)
		return (uint64_t)k * 24;
	if (k < 250)
		return MRLEN - (k - 200);
	return fz_u64(z, 8);
}

static uint32_t fz_key(struct fz *z, unsigned int v)
{
	uint8_t k = fz_u8(z);

	if (k < 240)
		return z->lkey[v][k % NMR];
	return (uint32_t)fz_u64(z, 4);	/* any key */
}

static uint64_t fz_rkey(struct fz *z, unsigned int *to)
{
	uint8_t k = fz_u8(z);

	*to = k % NVP;
	if (k < 240)
		return z->rkey[*to][(k / NVP) % NMR];
	return fz_u64(z, 8);
}

static void fz_vport(struct fz *z, unsigned int v)
{
	unsigned int m;
	int err;

	z->vp[v] = th_t_vport(z->f, v ? 1 : 0, 64, 64, &err);
	for (m = 0; z->vp[v] && m < NMR; m++)
		if (th_t_mr_reg(z->vp[v], z->mem[v][m], MRLEN,
				TH_NIC_ACCESS_ALL, &z->lkey[v][m], &z->rkey[v][m]))
			z->lkey[v][m] = 0;
}

/* One descriptor of a chain on vport @v, built from the input. */
static struct th_nic_desc fz_desc(struct fz *z, unsigned int v)
{
	struct th_nic_desc d;
	uint32_t skeys[TH_NIC_MAX_OPERANDS];
	uint64_t soffs[TH_NIC_MAX_OPERANDS];
	unsigned int to, i, n;
	uint8_t op = fz_u8(z) % 12;
	uint64_t rkey;

	switch (op) {
	case 0:
	case 1:
		rkey = fz_rkey(z, &to);
		d = thn_put(fz_key(z, v), fz_len(z), to ? 1 : 0,
			    z->vp[to] ? z->vp[to]->ev.index : 0, rkey, fz_len(z),
			    fz_len(z));
		if (op)
			d.opcode = TH_NIC_OP_GET;
		if (fz_u8(z) & 1) {
			d.flags |= TH_NIC_DF_REMOTE_CT;
			d.xfer.remote_ct = fz_u8(z) % 20;
		}
		break;
	case 2:
		d = thn_copy(fz_key(z, v), fz_len(z), fz_key(z, v), fz_len(z),
			     fz_len(z));
		break;
	case 3:
		d = thn_inline(fz_key(z, v), fz_len(z), fz_bytes, fz_u8(z) % 40);
		break;
	case 4:
		n = fz_u8(z) % 9;
		for (i = 0; i < TH_NIC_MAX_OPERANDS; i++) {
			skeys[i] = fz_key(z, v);
			soffs[i] = fz_len(z);
		}
		d = thn_reduce(fz_u8(z) % 9, fz_u8(z) % 12, fz_u8(z) * 3,
			       fz_key(z, v), fz_len(z), n, skeys, soffs);
		if (fz_u8(z) & 1)
			d.reduce.rflags = fz_u8(z) % 4;
		break;
	case 5:
	case 6:
		d = thn_ct_op(op == 5 ? TH_NIC_OP_CT_INC : TH_NIC_OP_CT_SET,
			      fz_u8(z) % 20, (int8_t)fz_u8(z));
		break;
	case 7:
		d = thn_notify(fz_u64(z, 2));
		break;
	case 8:
		d = thn_rearm(fz_u8(z) % 4);
		break;
	case 9:
		d = thn_nop();
		break;
	case 10:
		rkey = fz_rkey(z, &to);
		d = thn_inline_remote(to ? 1 : 0,
				      z->vp[to] ? z->vp[to]->ev.index : 0,
				      rkey, fz_len(z), fz_bytes, fz_u8(z) % 40);
		break;
	default:		/* raw bytes */
		memset(&d, 0, sizeof(d));
		for (i = 0; i < sizeof(d) && z->left; i++)
			((uint8_t *)&d)[i] = fz_u8(z);
		return d;
	}
	if (fz_u8(z) & 1)
		thn_comp_ct(&d, fz_u8(z) % 20);
	if (fz_u8(z) & 1)
		d.flags |= TH_NIC_DF_SIGNAL;
	return d;
}

static void fz_chain(struct fz *z, unsigned int v)
{
	struct th_nic_desc d[12];
	struct th_nic_doorbell db;
	unsigned int n = 1 + fz_u8(z) % 12, i;

	for (i = 0; i < n; i++)
		d[i] = fz_desc(z, v);
	thn_link(d, n);
	thn_trigger(&d[0], fz_u8(z) % 20, fz_u8(z) % 6, ++z->cookie);
	th_t_post(z->vp[v], d, n, &db);
	/* a refused chain stays in the SQ: rewind to what the NIC took */
	*z->vp[v]->ev.sq.tail = z->vp[v]->ev.sq.next;
}

static void fz_step(struct fz *z)
{
	uint8_t op = fz_u8(z);
	unsigned int v = (op >> 4) % NVP, m;
	struct th_nic_cqe cqe[16];
	struct th_nic_doorbell db;
	u64 ok, fail;
	u32 cancelled;

	if (!z->vp[v]) {
		fz_vport(z, v);
		return;
	}
	switch (op % 9) {
	case 0:
	case 1:
	case 2:
		fz_chain(z, v);
		break;
	case 3:
		th_t_ct_update(z->vp[v], fz_u8(z) % 24, fz_u8(z) % 3,
			       fz_u8(z) % 5, fz_u8(z) % 2);
		break;
	case 4:
		th_t_cancel(z->vp[v], fz_u8(z) & 1, fz_u8(z) % 8, &cancelled);
		break;
	case 5:
		m = fz_u8(z) % NMR;
		if (z->lkey[v][m] && !th_t_mr_dereg(z->vp[v], z->lkey[v][m]))
			z->lkey[v][m] = 0;
		else if (!z->lkey[v][m] &&
			 th_t_mr_reg(z->vp[v], z->mem[v][m], MRLEN,
				     TH_NIC_ACCESS_ALL, &z->lkey[v][m],
				     &z->rkey[v][m]))
			z->lkey[v][m] = 0;
		break;
	case 6:
		th_ipf_vport_destroy(z->vp[v]);
		z->vp[v] = NULL;
		break;
	case 7:
		th_t_cq_drain(z->vp[v], cqe, 16);
		th_t_ct_wait(z->vp[v], fz_u8(z) % 20, fz_u8(z) % 4, 0, &ok,
			     &fail);
		break;
	default:
		th_t_doorbell(z->vp[v], &db);
		break;
	}
}

static bool fz_quiet(struct th_ipf_vport *vp)
{
	return th_eng_vport_idle(&vp->ev) && !vp->ev.accepted &&
	       !vp->ev.cq_reserved;
}

/*
 * Everything accepted is done: nothing pending, reserved or running.
 * Cancelling ends the pending chains at once; chains handed to the
 * progress thread finish there, so give them time (5 s) before calling
 * it a chain that never completes.
 */
static void fz_check_quiet(struct th_ipf_vport *vp)
{
	const struct timespec tick = { 0, 100000 };
	struct th_nic_cqe cqe[64];
	u32 cancelled;
	int i;

	for (i = 0; i < 50000; i++) {
		th_t_cancel(vp, false, 0, &cancelled);
		while (th_t_cq_drain(vp, cqe, 64))
			;
		if (fz_quiet(vp))
			return;
		nanosleep(&tick, NULL);
	}
	abort();	/* an accepted chain did not complete */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct th_eng_limits lim = th_t_limits(2);
	struct fz z = { .p = data, .left = size };
	unsigned int v, m, steps = 0;
	int err;

	lim.max_counters = 24;
	lim.max_sq_entries = 64;
	lim.max_cq_entries = 64;
	lim.max_chain = 12;
	lim.max_mrs = 4;
	lim.max_user_vports = 8;
	lim.max_user_chains = 256;
	z.f = th_ipf_create(&lim, NULL, &err);
	if (!z.f)
		abort();
	for (v = 0; v < NVP; v++)
		for (m = 0; m < NMR; m++)
			z.mem[v][m] = calloc(1, MRLEN);
	for (v = 0; v < NVP; v++)
		fz_vport(&z, v);
	while (z.left && steps++ < 256)
		fz_step(&z);
	for (v = 0; v < NVP; v++) {
		if (!z.vp[v])
			continue;
		fz_check_quiet(z.vp[v]);
		th_ipf_vport_destroy(z.vp[v]);
	}
	/* the user's books balance once every vport is gone */
	if (th_atomic_read(&z.f->user.vports) || th_atomic_read(&z.f->user.chains))
		abort();
	th_ipf_destroy(z.f);
	for (v = 0; v < NVP; v++)
		for (m = 0; m < NMR; m++)
			free(z.mem[v][m]);
	return 0;
}
