// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * ring.c - the shm rings of a job on one host: each rank's doorbell
 * region (bell.c) holds a ring per peer, which that peer fills with its
 * small messages to the rank and the rank reads, beside libfabric's shm.
 *
 * Why: on one host a triggered hop crossed libfabric's shm provider both
 * ways, and libfabric's part of a hop (fi_inject(), its queue, fi_cq_read()
 * and the receive buffer posted again) was about 0.6 us of the 1.7 us
 * (measured with the time-stamp counter around each part: ofi.rst,
 * "Progress").  A message in a ring of the receiver's own memory is a
 * copy of its bytes and a flag: about 0.1 us from one CPU to the other
 * on the machine it was measured on, 0.2 us with the seal on both ends.
 *
 * A ring has one writer, the peer (under its @lock), and one reader, the
 * rank (under its @cq_lock): a slot is the sender's while its @full is 0
 * and the reader's while it is 1.  The sender copies the message in, then
 * sets @full (a release); the reader sees @full (an acquire), copies the
 * message out, and clears @full (a release), after which the sender may
 * write the slot again.  A message that finds its slot full goes by
 * libfabric, as does every message larger than a slot (a transfer of more
 * than TH_OFI_INJECT_MAX bytes), one with messages on the backlog before
 * it, and every message of a rank whose peer reads no rings: the wire
 * promises no order between messages, so both paths may carry a pair's.
 * The sender then rings the peer's doorbell as after any send on shm
 * (th_ofi_bell_ring()), which moves the bell's sequence: the reader
 * reads its rings only when that moved since it last read them all to
 * their end, so an idle pass looks at one word however many peers the
 * job has.
 *
 * Who can write a ring: the region is a memfd that was never named, and
 * its rank handed it only to peers that proved they hold the job's key
 * (handoff.c), so only the job's ranks.  A message in a ring therefore
 * carries no seal (auth.c; the seal and its check were a quarter of a
 * one-host hop), but a rank's bugs are not trusted further than
 * libfabric's: the reader copies a message out of its slot before it
 * looks at it, takes no length past a slot, and checks its shape as any
 * other (th_ofi_well_formed(): addressed to this rank, as long as its
 * header says), and that it comes from the ring's own sender.  A sender
 * that dies mid-message leaves its ring alone stuck, not the others.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ofi.h"

/* A message read out of a slot, aligned for its header. */
union th_ofi_ring_msg {
	struct th_ofi_hdr h;
	u8 b[TH_OFI_RING_MSG];
};

/*
 * The rings' bytes in the region of a job of @size ranks (one ring per
 * rank, its own unused, so that a sender finds its ring at its rank);
 * 0 past TH_OFI_RING_MAX_RANKS: such a job sends through libfabric.
 */
size_t th_ofi_ring_region_bytes(u32 size)
{
	if (size > TH_OFI_RING_MAX_RANKS)
		return 0;
	return (size_t)size * sizeof(struct th_ofi_ring);
}

static struct th_ofi_ring *th_ofi_ring_at(struct th_ofi_bell *b, u32 sender)
{
	return (struct th_ofi_ring *)th_ofi_bell_rings(b) + sender;
}

/*
 * Before this rank's region says it reads rings (bell.c, th_ofi_bell_open()):
 * what the rank keeps of them.  False, with @o->rings cleared, when it
 * cannot: the region then says none, and the peers send through
 * libfabric.
 */
bool th_ofi_ring_open(struct th_ofi *o)
{
	if (!o->rings || !th_ofi_ring_region_bytes(o->size))
		return (o->rings = false);
	o->ring_to = calloc(o->size, sizeof(*o->ring_to));
	o->ring_tail = calloc(o->size, sizeof(*o->ring_tail));
	o->ring_head = calloc(o->size, sizeof(*o->ring_head));
	if (!o->ring_to || !o->ring_tail || !o->ring_head) {
		th_ofi_ring_close(o);
		return (o->rings = false);
	}
	return true;
}

/*
 * After the peers' doorbells are mapped (th_ofi_bell_join()): this rank
 * sends through the ring of each peer whose region says it reads them.
 * A rank with TH_OFI_RING=0 neither reads rings nor fills any.
 */
void th_ofi_ring_join(struct th_ofi *o)
{
	u32 i;

	if (!o->rings || !o->bells)
		return;
	for (i = 0; i < o->size; i++)
		if (i != o->rank && o->bells[i] &&
		    th_ofi_bell_has_rings(o->bells[i]))
			o->ring_to[i] = th_ofi_ring_at(o->bells[i], o->rank);
	o->ring_seen = th_ofi_bell_seq(o->bell);
	o->ring_more = true;	/* a first look at every ring */
}

/*
 * Put message @msg of @len bytes (addressed) into @peer's ring for this rank,
 * under @lock: 0, or -FI_EAGAIN when there is no ring to @peer, the
 * message is larger than a slot, or the slot is full (the caller sends
 * through libfabric).  The caller rings @peer's doorbell after.
 */
ssize_t th_ofi_ring_push_locked(struct th_ofi *o, u32 peer, const void *msg,
				size_t len)
{
	struct th_ofi_ring_slot *s;
	struct th_ofi_ring *r;

	r = o->ring_to ? o->ring_to[peer] : NULL;
	if (!r || len > TH_OFI_RING_MSG)
		return -FI_EAGAIN;
	s = &r->slot[o->ring_tail[peer] % TH_OFI_RING_SLOTS];
	/* the reader's copy out of it is done before its 0 is seen */
	if (__atomic_load_n(&s->full, __ATOMIC_ACQUIRE)) {
		o->ring_full++;
		return -FI_EAGAIN;
	}
	memcpy(s->msg, msg, len);
	__atomic_store_n(&s->len, (u32)len, __ATOMIC_RELAXED);
	__atomic_store_n(&s->full, 1, __ATOMIC_RELEASE);
	o->ring_tail[peer]++;
	o->ring_sends++;
	return 0;
}

/*
 * Read sender @from's ring, at most *@budget messages, handling each
 * (under @cq_lock): the messages taken.  *@budget is 0 after when the
 * ring may hold more.
 */
static ssize_t th_ofi_ring_drain_locked(struct th_ofi *o, u32 from,
					u32 *budget)
{
	struct th_ofi_ring *r = th_ofi_ring_at(o->bell, from);
	union th_ofi_ring_msg m;
	struct th_ofi_ring_slot *s;
	ssize_t got = 0;
	u32 len;

	while (*budget) {
		s = &r->slot[o->ring_head[from] % TH_OFI_RING_SLOTS];
		if (!__atomic_load_n(&s->full, __ATOMIC_ACQUIRE))
			break;
		/* out of the slot first: the region is writable by others */
		len = __atomic_load_n(&s->len, __ATOMIC_RELAXED);
		if (len <= sizeof(m))
			memcpy(m.b, s->msg, len);
		__atomic_store_n(&s->full, 0, __ATOMIC_RELEASE);
		o->ring_head[from]++;
		(*budget)--;
		got++;
		if (len > sizeof(m) || len < sizeof(m.h) || m.h.src != from) {
			__atomic_add_fetch(&o->forged, 1, __ATOMIC_RELAXED);
			continue;
		}
		if (th_ofi_well_formed(o, &m.h, len))
			th_ofi_recv(o, &m.h, m.b + sizeof(m.h), len - sizeof(m.h));
	}
	return got;
}

/*
 * Read this rank's rings, each in turn, at most TH_OFI_RING_BUDGET
 * messages in all, under @cq_lock: the messages read (added to @reads),
 * or -FI_EAGAIN when none came.  Only when the doorbell's sequence moved
 * since the last look that read every ring to its end: each send rings
 * after it filled its slot (a sequentially consistent move), so a look
 * that saw the old sequence is followed by one that sees the new.
 */
ssize_t th_ofi_ring_read_locked(struct th_ofi *o, u64 *reads)
{
	u32 seq, budget = TH_OFI_RING_BUDGET, n, i;
	ssize_t got = 0;

	if (!o->rings)
		return -FI_EAGAIN;
	seq = th_ofi_bell_seq(o->bell);
	if (seq == o->ring_seen && !o->ring_more)
		return -FI_EAGAIN;
	/*
	 * From a sender further on each look, and after the one a look cut
	 * short: none waits behind a busy one
	 */
	i = o->ring_next;
	for (n = 0; n < o->size && budget; n++) {
		i = (o->ring_next + n) % o->size;
		if (i != o->rank)
			got += th_ofi_ring_drain_locked(o, i, &budget);
	}
	o->ring_next = (budget ? o->ring_next + 1 : i + 1) % o->size;
	/* a look cut short reads again next pass, whatever the bell says */
	o->ring_more = !budget;
	o->ring_seen = seq;
	*reads += got;
	return got ? got : -FI_EAGAIN;
}

/* TH_OFI_VERBOSE=1, at exit: what went through the rings. */
void th_ofi_ring_report(const struct th_ofi *o)
{
	if (!o->verbose || !o->bell)
		return;
	fprintf(stderr, "libthverbs: ofi rank %u: shm rings: %llu messages sent through them, %llu found a ring full and went by libfabric; this rank reads its own: %s\n",
		o->rank, (unsigned long long)o->ring_sends,
		(unsigned long long)o->ring_full, o->rings ? "yes" : "no");
}

void th_ofi_ring_close(struct th_ofi *o)
{
	free(o->ring_to);
	free(o->ring_tail);
	free(o->ring_head);
	o->ring_to = NULL;
	o->ring_tail = NULL;
	o->ring_head = NULL;
}
