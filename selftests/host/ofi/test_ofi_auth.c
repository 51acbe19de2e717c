// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_ofi_auth.c - the ofi provider's message seal (providers/ofi/auth.c)
 * without a job: SipHash-2-4 against the reference vectors of its paper,
 * and th_ofi_authentic() accepting exactly what th_ofi_seal() sealed for
 * this rank, under this job's key, at the length its header says; every
 * other header is dropped and counted.
 */
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "ofi.h"

/* Aumasson and Bernstein's vectors: key 00..0f, message 00..(n-1). */
static u64 ref_siphash(size_t n)
{
	u8 key[TH_OFI_KEY_LEN], msg[64];
	size_t i;

	for (i = 0; i < sizeof(key); i++)
		key[i] = i;
	for (i = 0; i < n; i++)
		msg[i] = i;
	return th_ofi_siphash(key, msg, n);
}

TEST(siphash_matches_the_reference_vectors)
{
	EXPECT_EQ(0x726fdb47dd0e0e31ULL, ref_siphash(0));
	EXPECT_EQ(0x74f839c593dc67fdULL, ref_siphash(1));
	EXPECT_EQ(0xa129ca6149be45e5ULL, ref_siphash(15));
}

FIXTURE(seal) {
	struct th_ofi *o;	/* rank 1 of 4: the receiver */
	struct th_ofi *peer;	/* rank 2: the sender, same job */
	u8 msg[sizeof(struct th_ofi_hdr) + 64];
};

FIXTURE_SETUP(seal)
{
	size_t i;

	self->o = calloc(1, sizeof(*self->o));
	self->peer = calloc(1, sizeof(*self->peer));
	ASSERT_NE(NULL, self->o);
	ASSERT_NE(NULL, self->peer);
	self->o->rank = 1;
	self->o->size = 4;
	self->peer->rank = 2;
	self->peer->size = 4;
	for (i = 0; i < TH_OFI_KEY_LEN; i++)
		self->o->mac_key[i] = self->peer->mac_key[i] = 0x5a ^ i;
}

FIXTURE_TEARDOWN(seal)
{
	free(self->o);
	free(self->peer);
}

/* A PUT of 64 bytes from rank 2 to rank 1, sealed. */
static struct th_ofi_hdr *sealed_put(FIXTURE_DATA(seal) *self)
{
	struct th_ofi_hdr *h = (struct th_ofi_hdr *)self->msg;

	memset(self->msg, 0x11, sizeof(self->msg));
	memset(h, 0, sizeof(*h));
	h->type = TH_OFI_MSG_PUT;
	h->id = 0x1234500000007ULL;
	h->rkey = 99;
	h->len = 64;
	th_ofi_seal(self->peer, h, 1);
	return h;
}

TEST_F(seal, a_sealed_message_is_authentic)
{
	struct th_ofi_hdr *h = sealed_put(self);

	EXPECT_EQ(2, h->src);
	EXPECT_EQ(1, h->dst);
	EXPECT_TRUE(th_ofi_authentic(self->o, h, sizeof(self->msg)));
	EXPECT_EQ(0, self->o->forged);
}

/* Every bit of the header is covered: flipping any one drops the message. */
TEST_F(seal, any_bit_changed_in_the_header_drops_it)
{
	struct th_ofi_hdr *h;
	size_t byte;
	int bit, dropped = 0;

	for (byte = 0; byte < sizeof(*h); byte++)
		for (bit = 0; bit < 8; bit++) {
			h = sealed_put(self);
			self->msg[byte] ^= 1 << bit;
			dropped += !th_ofi_authentic(self->o, h,
						     sizeof(self->msg));
		}
	EXPECT_EQ(8 * (int)sizeof(*h), dropped);
	EXPECT_EQ((u64)dropped, self->o->forged);
}

TEST_F(seal, another_jobs_key_is_dropped)
{
	struct th_ofi_hdr *h;

	self->peer->mac_key[7] ^= 1;
	h = sealed_put(self);
	EXPECT_FALSE(th_ofi_authentic(self->o, h, sizeof(self->msg)));
	EXPECT_EQ(1, self->o->forged);
}

/* Sealed for rank 3 and delivered here: not this rank's to read. */
TEST_F(seal, a_message_for_another_rank_is_dropped)
{
	struct th_ofi_hdr *h = sealed_put(self);

	th_ofi_seal(self->peer, h, 3);
	EXPECT_FALSE(th_ofi_authentic(self->o, h, sizeof(self->msg)));
	EXPECT_EQ(1, self->o->forged);
}

/* Bytes after the header are exactly the length it names. */
TEST_F(seal, a_length_other_than_the_header_says_is_dropped)
{
	struct th_ofi_hdr *h = sealed_put(self);

	EXPECT_FALSE(th_ofi_authentic(self->o, h, sizeof(self->msg) - 1));
	EXPECT_FALSE(th_ofi_authentic(self->o, h, sizeof(*h) - 1));
	EXPECT_FALSE(th_ofi_authentic(self->o, h, 0));
	h->type = TH_OFI_MSG_DONE;
	h->len = 0;
	th_ofi_seal(self->peer, h, 1);
	EXPECT_TRUE(th_ofi_authentic(self->o, h, sizeof(*h)));
	EXPECT_FALSE(th_ofi_authentic(self->o, h, sizeof(*h) + 1));
	EXPECT_EQ(4, self->o->forged);
}

/* A rank outside the job, sealed with the job's key, is still dropped. */
TEST_F(seal, a_sender_outside_the_job_is_dropped)
{
	struct th_ofi_hdr *h;

	self->peer->rank = 4;
	h = sealed_put(self);
	EXPECT_FALSE(th_ofi_authentic(self->o, h, sizeof(self->msg)));
}

/* Keys and ids: distinct per use and per process secret. */
TEST(unguessable_values_differ_per_secret_and_use)
{
	struct th_ofi *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));

	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	ASSERT_EQ(0, th_ofi_auth_init(a, a->mac_key));
	ASSERT_EQ(0, th_ofi_auth_init(b, b->mac_key));
	EXPECT_NE(0, memcmp(a->secret, b->secret, sizeof(a->secret)));
	EXPECT_NE(th_ofi_unguessable(a, TH_OFI_PRF_MR_KEY, 1),
		  th_ofi_unguessable(b, TH_OFI_PRF_MR_KEY, 1));
	EXPECT_NE(th_ofi_unguessable(a, TH_OFI_PRF_MR_KEY, 1),
		  th_ofi_unguessable(a, TH_OFI_PRF_MR_KEY, 2));
	EXPECT_NE(th_ofi_unguessable(a, TH_OFI_PRF_MR_KEY, 1),
		  th_ofi_unguessable(a, TH_OFI_PRF_OP_GEN, 1));
	EXPECT_EQ(th_ofi_unguessable(a, TH_OFI_PRF_OP_GEN, 5),
		  th_ofi_unguessable(a, TH_OFI_PRF_OP_GEN, 5));
	free(a);
	free(b);
}

TEST_HARNESS_MAIN
