// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * auth.c - who may speak to an ofi job, and what cannot be guessed.
 *
 * A job's endpoints listen where others reach them: on one host, the
 * loopback interface, which every local user can connect to; across
 * hosts, the network.  libfabric authenticates nobody (tcp;ofi_rxm takes
 * messages, and RMA at a valid key, from any connection), and a sender's
 * rank in the header is only what the sender claims.  So:
 *
 *  - Every message libfabric carries has a MAC in its header: SipHash-2-4
 *    under the job's 128-bit key, which rank 0 draws from getrandom() and
 *    the bootstrap allgather hands to the ranks (thrun's private socket,
 *    Hydra's PMI socketpair, or the caller's MPI).  It covers the whole
 *    header: type, sender and receiver rank, operation id, status, key,
 *    offset, length, domain token, RMA address and key.  A message whose
 *    MAC does not verify, or that is addressed to another rank, is
 *    dropped and counted before anything in it is read.
 *  - A message through a shm ring (ring.c) has none: the ring's region
 *    was never named, and its owner handed it only to peers that proved
 *    they hold the job's key (handoff.c), so whoever can write a ring is a
 *    rank of the job, which could seal anything it liked anyway (the key
 *    is the job's, not a rank's).  Its shape is checked all the same.
 *  - The payload of an eager message is not covered: a sender that
 *    cannot forge a header cannot attach bytes to one, and no local user
 *    can read another's loopback traffic to splice it; an attacker on the
 *    network path between hosts could, as it could alter RMA data, which
 *    no MAC covers either (Documentation/security.rst: across hosts the
 *    network must be trusted, as for any RDMA fabric).  A triggered send's
 *    payload is read by libfabric when it fires, after its header was
 *    sealed, which a payload MAC could not follow.
 *  - Operation ids start at a random generation per slot, and the keys
 *    this process asks libfabric to give its regions are a keyed PRF of a
 *    counter under a secret of this process: neither can be guessed, so
 *    RMA straight at a region (which bypasses every message) needs a key
 *    only the job's RESOLVED answers carry.
 *
 * SipHash-2-4 is Aumasson and Bernstein's keyed PRF for short inputs
 * ("SipHash: a fast short-input PRF", 2012); as a MAC its 64-bit tag
 * leaves an attacker who must send each guess one chance in 2^64 a try.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "ofi.h"

static inline u64 th_rotl64(u64 x, unsigned int b)
{
	return x << b | x >> (64 - b);
}

static inline u64 th_le64(const u8 *p)
{
	return (u64)p[0] | (u64)p[1] << 8 | (u64)p[2] << 16 |
	       (u64)p[3] << 24 | (u64)p[4] << 32 | (u64)p[5] << 40 |
	       (u64)p[6] << 48 | (u64)p[7] << 56;
}

#define TH_SIPROUND(v0, v1, v2, v3) do {				\
	v0 += v1; v1 = th_rotl64(v1, 13); v1 ^= v0;			\
	v0 = th_rotl64(v0, 32);						\
	v2 += v3; v3 = th_rotl64(v3, 16); v3 ^= v2;			\
	v0 += v3; v3 = th_rotl64(v3, 21); v3 ^= v0;			\
	v2 += v1; v1 = th_rotl64(v1, 17); v1 ^= v2;			\
	v2 = th_rotl64(v2, 32);						\
} while (0)

/* SipHash-2-4 of @len bytes at @data under @key. */
u64 th_ofi_siphash(const u8 key[TH_OFI_KEY_LEN], const void *data, size_t len)
{
	const u8 *p = data, *end = p + (len & ~(size_t)7);
	u64 k0 = th_le64(key), k1 = th_le64(key + 8), m;
	u64 v0 = k0 ^ 0x736f6d6570736575ULL;
	u64 v1 = k1 ^ 0x646f72616e646f6dULL;
	u64 v2 = k0 ^ 0x6c7967656e657261ULL;
	u64 v3 = k1 ^ 0x7465646279746573ULL;
	unsigned int i;

	for (; p < end; p += 8) {
		m = th_le64(p);
		v3 ^= m;
		TH_SIPROUND(v0, v1, v2, v3);
		TH_SIPROUND(v0, v1, v2, v3);
		v0 ^= m;
	}
	m = (u64)len << 56;
	for (i = 0; i < (len & 7); i++)
		m |= (u64)p[i] << (8 * i);
	v3 ^= m;
	TH_SIPROUND(v0, v1, v2, v3);
	TH_SIPROUND(v0, v1, v2, v3);
	v0 ^= m;
	v2 ^= 0xff;
	for (i = 0; i < 4; i++)
		TH_SIPROUND(v0, v1, v2, v3);
	return v0 ^ v1 ^ v2 ^ v3;
}

/*
 * The MAC of header @h: of every byte before its @mac, the last field, so
 * that neither end copies the header to take the MAC out of it.
 */
_Static_assert(offsetof(struct th_ofi_hdr, mac) ==
	       sizeof(struct th_ofi_hdr) - sizeof(u64),
	       "the MAC is the header's last field");
static u64 th_ofi_hdr_mac(const struct th_ofi *o, const struct th_ofi_hdr *h)
{
	return th_ofi_siphash(o->mac_key, h, offsetof(struct th_ofi_hdr, mac));
}

/* Address @h to @peer: what a message to a ring needs (ring.c). */
void th_ofi_address(const struct th_ofi *o, struct th_ofi_hdr *h, u32 peer)
{
	h->src = o->rank;
	h->dst = peer;
}

/*
 * Address @h to @peer and seal it: the last change before it is sent
 * through libfabric.
 */
void th_ofi_seal(const struct th_ofi *o, struct th_ofi_hdr *h, u32 peer)
{
	th_ofi_address(o, h, peer);
	h->mac = th_ofi_hdr_mac(o, h);
}

/* From a rank of the job, to this one, and as long as its header says. */
static bool th_ofi_shaped(const struct th_ofi *o, const struct th_ofi_hdr *h,
			  size_t len)
{
	if (len < sizeof(*h) || h->dst != o->rank || h->src >= o->size)
		return false;
	/* bytes follow a PUT, GET_DATA or PING (a dropped triggered PUT's) */
	if (h->type == TH_OFI_MSG_PUT || h->type == TH_OFI_MSG_GET_DATA ||
	    h->type == TH_OFI_MSG_PING)
		return h->len == len - sizeof(*h);
	return len == sizeof(*h);
}

/*
 * May this process read message @h of @len bytes (header and payload),
 * which libfabric delivered?  Shaped as above and sealed under the job's
 * key.  Anything else is counted and dropped.
 */
bool th_ofi_authentic(struct th_ofi *o, const struct th_ofi_hdr *h, size_t len)
{
	bool ok = th_ofi_shaped(o, h, len) && h->mac == th_ofi_hdr_mac(o, h);

	if (!ok)
		__atomic_add_fetch(&o->forged, 1, __ATOMIC_RELAXED);
	return ok;
}

/*
 * The same for a message read out of a shm ring: no seal to check, since
 * only the job's ranks hold the region it was in (handoff.c).  A message
 * shaped otherwise is counted and dropped all the same.
 */
bool th_ofi_well_formed(struct th_ofi *o, const struct th_ofi_hdr *h,
			size_t len)
{
	bool ok = th_ofi_shaped(o, h, len);

	if (!ok)
		__atomic_add_fetch(&o->forged, 1, __ATOMIC_RELAXED);
	return ok;
}

/* The job's key (rank 0 draws it) and this process's own secret. */
int th_ofi_auth_init(struct th_ofi *o, u8 key[TH_OFI_KEY_LEN])
{
	if (getrandom(key, TH_OFI_KEY_LEN, 0) != TH_OFI_KEY_LEN ||
	    getrandom(o->secret, sizeof(o->secret), 0) != sizeof(o->secret))
		return -EAGAIN;
	return 0;
}

/* An unguessable 32 or 64 bits: @what's @n-th, under this process's secret. */
u64 th_ofi_unguessable(const struct th_ofi *o, u32 what, u64 n)
{
	u64 in[2] = { what, n };

	return th_ofi_siphash(o->secret, in, sizeof(in));
}

/*
 * At exit: messages dropped unread are said always (someone sent them),
 * the rest with TH_OFI_VERBOSE=1.
 */
void th_ofi_auth_report(struct th_ofi *o)
{
	u64 forged = __atomic_load_n(&o->forged, __ATOMIC_RELAXED);
	u64 misfit, violations;

	pthread_mutex_lock(&o->lock);
	misfit = o->misfit;
	violations = o->violations;
	pthread_mutex_unlock(&o->lock);
	if (forged)
		fprintf(stderr, "libthverbs: ofi rank %u: %llu unauthenticated messages dropped (not sealed with the job's key: another process reached this job's endpoint)\n",
			o->rank, (unsigned long long)forged);
	if (o->verbose && (misfit || violations))
		fprintf(stderr, "libthverbs: ofi rank %u: %llu answers fit no operation, %llu requests broke a key or range\n",
			o->rank, (unsigned long long)misfit,
			(unsigned long long)violations);
}
