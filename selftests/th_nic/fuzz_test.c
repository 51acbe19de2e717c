// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_test.c - a hostile SQ: mutated descriptors posted by the thousand
 * (each refused with -EINVAL naming its slot, or accepted and completed
 * exactly once), and SQ slots rewritten by another thread while the
 * doorbell reads them (the kernel must act on the copy it validated).
 * Memory next to the registered regions must never change.  A mutated
 * remote key puts the vport into the error state: the fuzzer then takes
 * a new one, as an attacker would have to.
 */
#include <pthread.h>
#include <stdlib.h>

#include "kselftest_harness.h"
#include "th_nic_util.h"

#define NODE	6
#define PEER	7
#define PAGE	4096
#define GUARD	0xee

/* Three pages: guard, the registered page, guard. */
struct area {
	__u8 *base;
	__u8 *mr;		/* base + PAGE */
	struct thn_key key;
};

static int area_init(struct thn_vport *v, struct area *a, __u32 access,
		     __u8 fill)
{
	a->base = thn_alloc(3 * PAGE);
	if (!a->base)
		return -ENOMEM;
	memset(a->base, GUARD, 3 * PAGE);
	a->mr = a->base + PAGE;
	memset(a->mr, fill, PAGE);
	return thn_mr_reg(v, a->mr, PAGE, access, &a->key);
}

/* The same area registered again on @v (a new vport): new keys. */
static int area_rereg(struct thn_vport *v, struct area *a, __u32 access)
{
	return thn_mr_reg(v, a->mr, PAGE, access, &a->key);
}

static bool guards_intact(const struct area *a)
{
	unsigned int i;

	for (i = 0; i < PAGE; i++)
		if (a->base[i] != GUARD || a->base[2 * PAGE + i] != GUARD)
			return false;
	return true;
}

FIXTURE(fz) {
	int fd, peer_fd;
	struct thn_vport v, peer;
	struct area rw, ro, prw;
};

FIXTURE_SETUP(fz)
{
	self->fd = thn_open(NODE);
	ASSERT_LE(0, self->fd);
	self->peer_fd = thn_open(PEER);
	ASSERT_LE(0, self->peer_fd);
	ASSERT_EQ(0, thn_vport_open(self->fd, 0, 0, &self->v));
	ASSERT_EQ(0, thn_vport_open(self->peer_fd, 0, 0, &self->peer));
	ASSERT_EQ(0, area_init(&self->v, &self->rw, TH_NIC_ACCESS_ALL, 0x11));
	ASSERT_EQ(0, area_init(&self->v, &self->ro, 0, 0x22));
	ASSERT_EQ(0, area_init(&self->peer, &self->prw, TH_NIC_ACCESS_ALL,
			       0x33));
}

FIXTURE_TEARDOWN(fz)
{
	close(self->fd);
	close(self->peer_fd);
}

static __u64 rnd(__u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A valid descriptor of a random kind, touching the three areas. */
static struct th_nic_desc template(FIXTURE_DATA(fz) *self, __u64 *s)
{
	__u32 k[3] = { self->ro.key.l, self->rw.key.l, self->rw.key.l };
	__u64 o[3] = { 0, 1024, 2048 };
	__u32 peer = self->peer.id;
	__u64 r = rnd(s);

	switch (r % 9) {
	case 0:
		return thn_put_ct(self->rw.key.l, r % 2048, PEER, peer,
				  self->prw.key.r, (r >> 12) % 2048, 64, 1);
	case 1:
		return thn_get(self->rw.key.l, r % 2048, PEER, peer,
			       self->prw.key.r, (r >> 12) % 2048, 64);
	case 2:
		return thn_copy(self->ro.key.l, r % 2048, self->rw.key.l,
				(r >> 12) % 2048, 512);
	case 3:
		return thn_inline(self->rw.key.l, r % 4000, "fuzzing", 7);
	case 4:
		return thn_inline_remote(PEER, peer, self->prw.key.r, r % 4000,
					 "remote", 6);
	case 5:
		return thn_reduce(r & 1 ? TH_NIC_ALU_SUM : TH_NIC_ALU_BXOR,
				  TH_NIC_DT_UINT32, 64, self->rw.key.l, 3072, 3,
				  k, o);
	case 6:
		return thn_ct_op(TH_NIC_OP_CT_INC, r % 8, 1);
	case 7:
		return thn_nop();
	default:
		return thn_notify(r);
	}
}

/* Values found at the edges of every range check. */
static const __u64 edges[] = {
	0, 1, 7, 8, 63, 64, 4095, 4096, 4097, 0xffff, 0x10000, 1ULL << 30,
	(1ULL << 30) + 1, 1ULL << 32, 1ULL << 63, ~0ULL, ~0ULL - 4095,
};

/* Damage @d: a random byte, or an aligned field set to an edge value. */
static void mutate(struct th_nic_desc *d, __u64 *s)
{
	__u8 *b = (__u8 *)d;
	__u64 r = rnd(s), v;
	unsigned int off;

	switch (r % 4) {
	case 0:		/* opcode, rsvd0, flags */
		b[(r >> 8) % 4] = (__u8)(r >> 16);
		break;
	case 1:		/* any operand byte */
		b[24 + (r >> 8) % 104] = (__u8)(r >> 16);
		break;
	default:	/* an operand field at an edge */
		off = 24 + ((r >> 8) % 13) * 8;
		v = edges[(r >> 20) % ARRAY_SIZE(edges)];
		if ((r >> 40) & 1)
			memcpy(b + off + ((r >> 41) & 1) * 4, &v, 4);
		else
			memcpy(b + off, &v, 8);
		break;
	}
}

/*
 * Thousands of mutated chains, each ending in NOTIFY: every doorbell
 * returns 0, -EINVAL (naming the slot the head stopped on), -EAGAIN or
 * -ENOSPC; every accepted chain completes exactly once; nothing outside
 * the registered pages changes.
 */
TEST_F_TIMEOUT(fz, mutated_chains, 120)
{
	enum { ROUNDS = 3000 };
	static __u8 seen[ROUNDS];
	struct th_nic_desc d[THN_DEF_CHAIN];
	struct th_nic_doorbell db;
	struct th_nic_cqe cqe[64];
	__u64 s = 0x1234567, accepted = 0, refused = 0, finals = 0, failed = 0;
	__u64 renewed = 0;
	__u32 round, i, n, got, head, cancelled;
	int ret;

	memset(seen, 0, sizeof(seen));
	for (round = 0; round < ROUNDS; round++) {
		n = 1 + rnd(&s) % 4;
		for (i = 0; i + 1 < n; i++) {
			d[i] = template(self, &s);
			if (rnd(&s) % 2)
				mutate(&d[i], &s);
		}
		d[n - 1] = thn_notify(round);
		if (rnd(&s) % 4 == 0) {
			/* still a NOTIFY, so a success writes its one entry */
			mutate(&d[n - 1], &s);
			d[n - 1].opcode = TH_NIC_OP_NOTIFY;
		}
		/* keep the chain's shape: LINK and trigger fields are ours */
		for (i = 0; i < n; i++) {
			d[i].flags &= ~TH_NIC_DF_LINK;
			if (i + 1 < n)
				d[i].flags |= TH_NIC_DF_LINK;
			d[i].trig_ct = 0;
			d[i].threshold = 0;
			d[i].cookie = 0;
		}
		/* most fire at once, so their operations really run */
		thn_trigger(&d[0], rnd(&s) % 8,
			    rnd(&s) % 4 ? 0 : rnd(&s) % 4, round);

		head = thn_sq_head(&self->v);
		ret = thn_post(&self->v, d, n, &db);
		if (ret == -ENOTCONN) {
			/* in the error state: its chains all completed, failed */
			ASSERT_EQ(TH_NIC_REFUSE_VPORT_ERROR, db.reason);
			thn_sq_rewind(&self->v);
			while ((got = thn_cq_drain(&self->v, cqe, 64)))
				for (i = 0; i < got; i++) {
					if (!(cqe[i].flags & TH_NIC_CQE_F_FINAL))
						continue;
					ASSERT_EQ(0, seen[cqe[i].cookie]++);
					finals++;
					failed++;
				}
			ASSERT_EQ(0, thn_vport_close(&self->v));
			ASSERT_EQ(0, thn_vport_open(self->fd, 0, 0, &self->v));
			ASSERT_EQ(0, area_rereg(&self->v, &self->rw,
						TH_NIC_ACCESS_ALL));
			ASSERT_EQ(0, area_rereg(&self->v, &self->ro, 0));
			renewed++;
			head = thn_sq_head(&self->v);
			ret = thn_post(&self->v, d, n, &db);
		}
		if (!ret) {
			ASSERT_EQ(1, db.chains);
			ASSERT_EQ(n, db.descs);
			accepted++;
		} else {
			ASSERT_TRUE(ret == -EINVAL || ret == -EAGAIN ||
				    ret == -ENOSPC || ret == -ENOTCONN)
				TH_LOG("doorbell: %d", ret);
			ASSERT_EQ(0, db.chains);
			ASSERT_EQ(head, thn_sq_head(&self->v));
			if (ret == -EINVAL) {
				ASSERT_EQ(head, db.bad_index);
				ASSERT_GT(n, db.bad_desc);
			}
			seen[round] = 2;	/* never to be completed */
			refused++;
			thn_sq_rewind(&self->v);
		}
		if (ret == -EAGAIN || rnd(&s) % 16 == 0)
			ASSERT_EQ(0, thn_cancel(&self->v, false, 0, &cancelled));
		if (rnd(&s) % 3 == 0)
			ASSERT_EQ(0, thn_ct_inc(&self->v, rnd(&s) % 8, 1));
		got = thn_cq_drain(&self->v, cqe, 64);
		for (i = 0; i < got; i++) {
			if (!(cqe[i].flags & TH_NIC_CQE_F_FINAL))
				continue;
			ASSERT_GT(ROUNDS, cqe[i].cookie);
			ASSERT_EQ(0, seen[cqe[i].cookie]++)
				TH_LOG("cookie %llu twice",
				       (unsigned long long)cqe[i].cookie);
			finals++;
			if (cqe[i].status)
				failed++;
		}
		thn_cq_drain(&self->peer, NULL, 64);
	}
	ASSERT_EQ(0, thn_cancel(&self->v, false, 0, &cancelled));
	while ((got = thn_cq_wait(&self->v, cqe, 64, 200))) {
		for (i = 0; i < got; i++) {
			if (!(cqe[i].flags & TH_NIC_CQE_F_FINAL))
				continue;
			ASSERT_EQ(0, seen[cqe[i].cookie]++);
			finals++;
			if (cqe[i].status)
				failed++;
		}
	}
	EXPECT_EQ(accepted, finals);
	EXPECT_TRUE(guards_intact(&self->rw));
	EXPECT_TRUE(guards_intact(&self->ro));
	EXPECT_TRUE(guards_intact(&self->prw));
	for (i = 0; i < PAGE; i++)
		ASSERT_EQ(0x22, self->ro.mr[i]) TH_LOG("read-only MR written");
	TH_LOG("%llu chains accepted (%llu completed with an error), %llu refused, %llu vports worn out",
	       (unsigned long long)accepted, (unsigned long long)failed,
	       (unsigned long long)refused, (unsigned long long)renewed);
	EXPECT_LT(ROUNDS / 10, accepted);
	EXPECT_LT(ROUNDS / 10, refused);
}

struct scribbler {
	volatile struct th_nic_desc *volatile slot;	/* NULL: idle */
	volatile bool stop;
	__u32 good_len, bad_len;
	__u64 writes;
};

/* Flip the length of whatever slot is being posted, as fast as possible. */
static void *scribble(void *arg)
{
	struct scribbler *sc = arg;

	while (!sc->stop) {
		volatile struct th_nic_desc *d = sc->slot;

		if (!d)
			continue;
		d->xfer.len = sc->bad_len;
		d->xfer.len = sc->good_len;
		d->xfer.len = (sc->writes & 1) ? sc->bad_len : sc->good_len;
		sc->writes++;
	}
	return NULL;
}

/*
 * Another thread rewrites the slot's length between a valid 64 and a
 * length past the region while the doorbell reads it: whatever the kernel
 * validated is what it runs, so an accepted PUT moves exactly 64 bytes
 * and succeeds, and nothing beyond the regions is touched.
 */
TEST_F_TIMEOUT(fz, slot_rewritten_during_doorbell, 120)
{
	enum { ROUNDS = 3000 };
	struct scribbler sc = { NULL, false, 64, PAGE + 64, 0 };
	struct th_nic_doorbell db;
	struct th_nic_cqe cqe;
	struct th_nic_desc d;
	__u32 round, accepted = 0, refused = 0, tail;
	pthread_t th;
	int ret;

	ASSERT_EQ(0, pthread_create(&th, NULL, scribble, &sc));
	for (round = 0; round < ROUNDS; round++) {
		d = thn_put(self->rw.key.l, PAGE - 64 - (round % 64), PEER,
			    self->peer.id, self->prw.key.r, round % 64, 64);
		d.flags |= TH_NIC_DF_SIGNAL;
		thn_trigger(&d, 0, 0, round);
		tail = *self->v.sq_tail;
		memcpy(&self->v.sq_slots[tail & self->v.sq_mask], &d, sizeof(d));
		sc.slot = &self->v.sq_slots[tail & self->v.sq_mask];
		__atomic_store_n(self->v.sq_tail, tail + 1, __ATOMIC_RELEASE);
		ret = thn_doorbell(&self->v, &db);
		sc.slot = NULL;
		if (ret) {
			ASSERT_EQ(-EINVAL, ret);
			refused++;
			thn_sq_rewind(&self->v);
			continue;
		}
		accepted++;
		ASSERT_EQ(1, thn_cq_wait(&self->v, &cqe, 1, THN_WAIT_MS));
		ASSERT_EQ(round, cqe.cookie);
		ASSERT_EQ(0, cqe.status)
			TH_LOG("round %u: an accepted 64-byte PUT failed: the kernel re-read the slot after validating it",
			       round);
	}
	sc.stop = true;
	pthread_join(th, NULL);
	EXPECT_TRUE(guards_intact(&self->rw));
	EXPECT_TRUE(guards_intact(&self->prw));
	TH_LOG("%u accepted, %u refused, %llu rewrites", accepted, refused,
	       (unsigned long long)sc.writes);
	EXPECT_LT(0, accepted);
}

TEST_HARNESS_MAIN
