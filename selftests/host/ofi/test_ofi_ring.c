// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_ofi_ring.c - the ofi provider's shm rings (providers/ofi/ring.c)
 * without a job: three ranks of one job in one process, each region an
 * ordinary buffer.  A message put into a peer's ring is read and handled
 * there once, in order, with its bytes, and with no seal (only the job's
 * ranks hold a region: providers/ofi/handoff.c); a full ring refuses the
 * next (the sender goes by libfabric) until its reader frees a slot; the
 * reader looks only when the doorbell's sequence moved, and a look cut
 * short at its budget looks again; and what a slot holds that its sender
 * could not have sent (a length past the slot or short of a header, one
 * its header does not match, another rank's message, one addressed to
 * another rank) is dropped and counted, its slot freed, and the ring
 * goes on.
 */
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "ofi.h"

#define RANKS	3

/* A rank's region here: a doorbell's sequence, then its rings. */
struct region {
	u32 seq;
	u32 rings;
	u8 pad[4096 - 8];
	struct th_ofi_ring ring[RANKS];
};

/* ---- what ring.c takes from bell.c and wire.c, for this test -------- */

void *th_ofi_bell_rings(struct th_ofi_bell *b)
{
	return ((struct region *)b)->ring;
}

bool th_ofi_bell_has_rings(const struct th_ofi_bell *b)
{
	return ((const struct region *)b)->rings == TH_OFI_RING_SLOTS;
}

u32 th_ofi_bell_seq(const struct th_ofi_bell *b)
{
	return __atomic_load_n(&((const struct region *)b)->seq,
			       __ATOMIC_ACQUIRE);
}

/* Every message handled, in order: its sender, id and first payload byte. */
static struct {
	int n;
	u32 src[64];
	u64 id[64];
	u8 first[64];
} handled;

void th_ofi_recv(struct th_ofi *o, const struct th_ofi_hdr *h,
		 const void *payload, size_t len)
{
	(void)o;
	if (handled.n < 64) {
		handled.src[handled.n] = h->src;
		handled.id[handled.n] = h->id;
		handled.first[handled.n] = len ? *(const u8 *)payload : 0;
	}
	handled.n++;
}

/* ---------------------------------------------------------------------- */

FIXTURE(ring) {
	struct region *region[RANKS];
	struct th_ofi *o[RANKS];
	struct th_ofi_bell *bells[RANKS][RANKS];
};

FIXTURE_SETUP(ring)
{
	int r, p, i;

	memset(&handled, 0, sizeof(handled));
	for (r = 0; r < RANKS; r++) {
		self->region[r] = calloc(1, sizeof(struct region));
		self->o[r] = calloc(1, sizeof(struct th_ofi));
		ASSERT_NE(NULL, self->region[r]);
		ASSERT_NE(NULL, self->o[r]);
		self->region[r]->rings = TH_OFI_RING_SLOTS;
		self->o[r]->rank = r;
		self->o[r]->size = RANKS;
		self->o[r]->rings = true;
		for (i = 0; i < TH_OFI_KEY_LEN; i++)
			self->o[r]->mac_key[i] = 0x3c ^ i;
	}
	for (r = 0; r < RANKS; r++) {
		ASSERT_TRUE(th_ofi_ring_open(self->o[r]));
		self->o[r]->bell = (struct th_ofi_bell *)self->region[r];
		for (p = 0; p < RANKS; p++)
			self->bells[r][p] = p == r ? NULL :
				(struct th_ofi_bell *)self->region[p];
		self->o[r]->bells = self->bells[r];
		th_ofi_ring_join(self->o[r]);
	}
}

FIXTURE_TEARDOWN(ring)
{
	int r;

	for (r = 0; r < RANKS; r++) {
		th_ofi_ring_close(self->o[r]);
		free(self->o[r]);
		free(self->region[r]);
	}
}

/*
 * A PUT of 8 bytes (the first @first) from @from to @to, id @id, addressed
 * as th_ofi_send() addresses a ring's message: not sealed, its MAC field
 * whatever it holds.
 */
static size_t put_msg(FIXTURE_DATA(ring) *self, u8 *msg, int from, int to,
		      u64 id, u8 first)
{
	struct th_ofi_hdr *h = (struct th_ofi_hdr *)msg;

	memset(msg, first, sizeof(*h) + 8);
	memset(h, 0, sizeof(*h));
	h->type = TH_OFI_MSG_PUT;
	h->id = id;
	h->len = 8;
	h->mac = 0x5eed ^ id;
	th_ofi_address(self->o[from], h, to);
	return sizeof(*h) + 8;
}

/* @from sends to @to through the ring, then rings: as th_ofi_inject(). */
static ssize_t send_msg(FIXTURE_DATA(ring) *self, int from, int to, u64 id,
			u8 first)
{
	u8 msg[TH_OFI_RING_MSG];
	size_t len = put_msg(self, msg, from, to, id, first);
	ssize_t ret = th_ofi_ring_push_locked(self->o[from], to, msg, len);

	if (!ret)
		__atomic_add_fetch(&self->region[to]->seq, 1, __ATOMIC_SEQ_CST);
	return ret;
}

/* The slot @to's ring from @from fills next. */
static struct th_ofi_ring_slot *next_slot(FIXTURE_DATA(ring) *self, int from,
					  int to)
{
	return &self->region[to]->ring[from].slot[
		self->o[from]->ring_tail[to] % TH_OFI_RING_SLOTS];
}

static ssize_t read_rings(struct th_ofi *o)
{
	u64 reads = 0;
	ssize_t n = th_ofi_ring_read_locked(o, &reads);

	if (n > 0 && (u64)n != reads)
		return -1000;	/* counted otherwise than returned */
	return n;
}

TEST_F(ring, a_message_is_read_and_handled_once_with_no_seal)
{
	ASSERT_EQ(0, send_msg(self, 2, 1, 77, 0xab));
	EXPECT_EQ(1, self->o[2]->ring_sends);
	EXPECT_EQ(1, read_rings(self->o[1]));
	ASSERT_EQ(1, handled.n);
	EXPECT_EQ(2, handled.src[0]);
	EXPECT_EQ(77, handled.id[0]);
	EXPECT_EQ(0xab, handled.first[0]);
	/* read once: the slot is free and the next look finds nothing */
	EXPECT_EQ(0, self->region[1]->ring[2].slot[0].full);
	EXPECT_EQ(-FI_EAGAIN, read_rings(self->o[1]));
	EXPECT_EQ(1, handled.n);
	EXPECT_EQ(0, self->o[1]->forged);
	/* nothing landed in another rank's ring */
	EXPECT_EQ(-FI_EAGAIN, read_rings(self->o[0]));
}

/* A rank's messages to one peer are read in the order it sent them. */
TEST_F(ring, a_senders_messages_are_read_in_order_across_the_wrap)
{
	int i, round;

	for (round = 0; round < 3; round++) {
		for (i = 0; i < 10; i++)
			ASSERT_EQ(0, send_msg(self, 0, 2, round * 10 + i, i));
		EXPECT_EQ(10, read_rings(self->o[2]));
	}
	ASSERT_EQ(30, handled.n);
	for (i = 0; i < 30; i++)
		EXPECT_EQ((u64)i, handled.id[i]);
}

/* Full: the next send is refused (-FI_EAGAIN: libfabric's turn), counted. */
TEST_F(ring, a_full_ring_refuses_until_its_reader_frees_a_slot)
{
	int i;

	for (i = 0; i < TH_OFI_RING_SLOTS; i++)
		ASSERT_EQ(0, send_msg(self, 1, 0, i, 1));
	EXPECT_EQ(-FI_EAGAIN, send_msg(self, 1, 0, 999, 1));
	EXPECT_EQ(1, self->o[1]->ring_full);
	EXPECT_EQ(TH_OFI_RING_SLOTS, self->o[1]->ring_sends);
	/* a larger message than a slot is refused whatever the ring holds */
	EXPECT_EQ(-FI_EAGAIN, th_ofi_ring_push_locked(self->o[2], 0,
						      self->region[0],
						      TH_OFI_RING_MSG + 1));
	EXPECT_EQ(TH_OFI_RING_BUDGET, read_rings(self->o[0]));
	EXPECT_EQ(0, send_msg(self, 1, 0, 32, 1));
	while (read_rings(self->o[0]) > 0)
		;
	ASSERT_EQ(TH_OFI_RING_SLOTS + 1, handled.n);
	for (i = 0; i <= TH_OFI_RING_SLOTS; i++)
		EXPECT_EQ((u64)i, handled.id[i]);
}

/*
 * The reader looks only when the doorbell's sequence moved since it last
 * read every ring to its end; a look cut short at its budget looks again
 * without a ring, and a sender further on is not left behind a busy one.
 */
TEST_F(ring, the_reader_looks_when_rung_or_cut_short)
{
	u8 msg[TH_OFI_RING_MSG];
	size_t len = put_msg(self, msg, 0, 2, 5, 0);
	int i;

	/* the look after the join reads every ring once, rung or not */
	EXPECT_EQ(-FI_EAGAIN, read_rings(self->o[2]));
	/* filled but not rung: not looked at */
	ASSERT_EQ(0, th_ofi_ring_push_locked(self->o[0], 2, msg, len));
	EXPECT_EQ(-FI_EAGAIN, read_rings(self->o[2]));
	__atomic_add_fetch(&self->region[2]->seq, 1, __ATOMIC_SEQ_CST);
	EXPECT_EQ(1, read_rings(self->o[2]));
	/* 20 from each sender: budget-sized looks, the second without a ring */
	for (i = 0; i < 20; i++) {
		ASSERT_EQ(0, send_msg(self, 0, 2, 100 + i, 0));
		ASSERT_EQ(0, send_msg(self, 1, 2, 200 + i, 0));
	}
	EXPECT_EQ(TH_OFI_RING_BUDGET, read_rings(self->o[2]));
	EXPECT_EQ(TH_OFI_RING_BUDGET, read_rings(self->o[2]));
	EXPECT_EQ(40 - 2 * TH_OFI_RING_BUDGET, read_rings(self->o[2]));
	EXPECT_EQ(-FI_EAGAIN, read_rings(self->o[2]));
	EXPECT_EQ(41, handled.n);
	/* the second look began with the other sender */
	EXPECT_NE(handled.src[1], handled.src[1 + TH_OFI_RING_BUDGET]);
}

/*
 * What its sender could not have sent: dropped unread and counted, the
 * slot freed, and the message behind it still handled.
 */
TEST_F(ring, what_a_slot_holds_that_its_sender_could_not_have_sent_is_dropped)
{
	u8 msg[TH_OFI_RING_MSG];
	struct th_ofi_ring_slot *s;
	size_t len;

	/* a length past the slot, and one short of a header */
	ASSERT_EQ(0, send_msg(self, 2, 0, 1, 0));
	self->region[0]->ring[2].slot[0].len = TH_OFI_RING_MSG + 1;
	ASSERT_EQ(0, send_msg(self, 2, 0, 2, 0));
	self->region[0]->ring[2].slot[1].len = sizeof(struct th_ofi_hdr) - 1;
	/* rank 1's message, in rank 2's ring */
	len = put_msg(self, msg, 1, 0, 3, 0);
	s = next_slot(self, 2, 0);
	memcpy(s->msg, msg, len);
	s->len = len;
	s->full = 1;
	self->o[2]->ring_tail[0]++;
	/* one addressed to rank 1, in rank 0's ring from 2 */
	len = put_msg(self, msg, 2, 1, 4, 0);
	ASSERT_EQ(0, th_ofi_ring_push_locked(self->o[2], 0, msg, len));
	/* a PUT whose header says more bytes than came */
	len = put_msg(self, msg, 2, 0, 5, 0);
	((struct th_ofi_hdr *)msg)->len = 9;
	ASSERT_EQ(0, th_ofi_ring_push_locked(self->o[2], 0, msg, len));
	/* and one as th_ofi_send() makes them */
	ASSERT_EQ(0, send_msg(self, 2, 0, 6, 0x5e));
	EXPECT_EQ(6, read_rings(self->o[0]));
	EXPECT_EQ(5, self->o[0]->forged);
	ASSERT_EQ(1, handled.n);
	EXPECT_EQ(6, handled.id[0]);
	EXPECT_EQ(0x5e, handled.first[0]);
	for (len = 0; len < 6; len++)
		EXPECT_EQ(0, self->region[0]->ring[2].slot[len].full);
}

/* A rank whose region reads no rings is sent nothing through them. */
TEST_F(ring, a_peer_without_rings_is_not_sent_through_them)
{
	int r;

	self->region[1]->rings = 0;
	for (r = 0; r < RANKS; r++) {
		th_ofi_ring_close(self->o[r]);
		ASSERT_TRUE(th_ofi_ring_open(self->o[r]));
		th_ofi_ring_join(self->o[r]);
	}
	EXPECT_EQ(-FI_EAGAIN, send_msg(self, 0, 1, 1, 0));
	EXPECT_EQ(0, send_msg(self, 0, 2, 2, 0));
	/* and a rank that reads none (TH_OFI_RING=0) sends through none */
	th_ofi_ring_close(self->o[2]);
	self->o[2]->rings = false;
	EXPECT_FALSE(th_ofi_ring_open(self->o[2]));
	th_ofi_ring_join(self->o[2]);
	EXPECT_EQ(-FI_EAGAIN, send_msg(self, 2, 0, 3, 0));
	EXPECT_EQ(-FI_EAGAIN, read_rings(self->o[2]));
}

TEST_HARNESS_MAIN
