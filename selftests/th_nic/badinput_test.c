// SPDX-License-Identifier: GPL-2.0
/*
 * badinput_test.c - bad input refused by the module: one row per descriptor
 * rule of Documentation/uapi.rst (doorbell -EINVAL naming the slot and the
 * descriptor, the SQ head left on it, nothing installed or written), valid
 * edge cases accepted, every range rule at its edge (exact fit, one past,
 * wrapping); VPORT_CREATE's ring sizes at their limits; malformed ioctl
 * structs; bad MR registrations.
 */
#include <stddef.h>

#include "kselftest_harness.h"
#include "th_nic_util.h"
#include "badinput_rows.h"

#define NODE	6
#define PEER	7
#define BUF	BAD_BUF

FIXTURE(bad) {
	int fd, peer_fd;
	struct thn_vport v, peer;
	struct vctx c;
	__u8 *rw, *ro, *peer_rw;
};

FIXTURE_VARIANT(bad) {
	build_fn build;
	int err;		/* expected doorbell result */
	__u32 bad_desc;		/* expected offending position on -EINVAL */
	__u32 reason;		/* expected enum th_nic_refusal */
};

FIXTURE_SETUP(bad)
{
	struct thn_key k;

	self->fd = thn_open(NODE);
	ASSERT_LE(0, self->fd);
	self->peer_fd = thn_open(PEER);
	ASSERT_LE(0, self->peer_fd);
	ASSERT_EQ(0, thn_vport_open(self->fd, 0, 0, &self->v));
	ASSERT_EQ(0, thn_vport_open(self->peer_fd, 0, 0, &self->peer));
	self->rw = thn_alloc(BUF);
	self->ro = thn_alloc(BUF);
	self->peer_rw = thn_alloc(BUF);
	ASSERT_NE(NULL, self->rw);
	ASSERT_NE(NULL, self->ro);
	ASSERT_NE(NULL, self->peer_rw);
	memset(self->rw, 0xa5, BUF);
	memset(self->ro, 0x5a, BUF);
	memset(self->peer_rw, 0x3c, BUF);
	ASSERT_EQ(0, thn_mr_reg(&self->v, self->rw, BUF, TH_NIC_ACCESS_ALL,
				&k));
	self->c.rw = k.l;
	ASSERT_EQ(0, thn_mr_reg(&self->v, self->ro, BUF, 0, &k));
	self->c.ro = k.l;
	ASSERT_EQ(0, thn_mr_reg(&self->peer, self->peer_rw, BUF,
				TH_NIC_ACCESS_ALL, &k));
	self->c.peer_lkey = k.l;
	self->c.peer_rw = k.r;
	self->c.peer_vport = self->peer.id;
	self->c.peer_node = PEER;
	self->c.nodes = THN_NODES;
}

FIXTURE_TEARDOWN(bad)
{
	close(self->fd);
	close(self->peer_fd);
}

#define REFUSE(name, fn, at, why) \
	FIXTURE_VARIANT_ADD(bad, name) { \
		.build = fn, .err = -EINVAL, .bad_desc = at, .reason = why }
#define ACCEPT(name, fn) \
	FIXTURE_VARIANT_ADD(bad, name) { .build = fn, .err = 0 }

#include "badinput_table.h"

/* A good chain, then a bad one: the good one's effects must not count. */
static __u32 bad_second_chain_first_ok(const struct vctx *c,
				       struct th_nic_desc *d)
{
	(void)c;
	d[0] = thn_nop();
	thn_trigger(&d[0], 0, 1, 0);		/* stays pending */
	d[1] = thn_notify(1);
	d[1].rsvd0 = 1;
	return 2;
}

REFUSE(good_chain_then_bad_chain, bad_second_chain_first_ok, 0,
       TH_NIC_REFUSE_RESERVED);

/* Every counter of @v, success and failure, is zero. */
static bool counters_zero(struct thn_vport *v)
{
	__u32 i;

	for (i = 0; i < THN_DEF_COUNTERS; i++)
		if (thn_ct(v, i) || thn_ct_fail(v, i))
			return false;
	return true;
}

static bool all_bytes(const __u8 *p, __u8 val, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != val)
			return false;
	return true;
}

TEST_F(bad, doorbell)
{
	struct th_nic_desc d[THN_DEF_CHAIN + 1];
	struct th_nic_doorbell db;
	struct th_nic_cqe cqe[4];
	__u32 n, head, cancelled;
	int ret;

	memset(d, 0, sizeof(d));
	n = variant->build(&self->c, d);
	/* bad_second_chain_first_ok: its good chain is accepted first */
	if (variant->build == bad_second_chain_first_ok) {
		head = thn_sq_head(&self->v);
		ASSERT_EQ(-EINVAL, thn_post(&self->v, d, 2, &db));
		EXPECT_EQ(1, db.chains);
		EXPECT_EQ(1, db.descs);
		EXPECT_EQ(head + 1, db.bad_index);
		EXPECT_EQ(0, db.bad_desc);
		EXPECT_EQ(variant->reason, db.reason);
		EXPECT_EQ(head + 1, thn_sq_head(&self->v));
		ASSERT_EQ(0, thn_cancel(&self->v, false, 0, &cancelled));
		EXPECT_EQ(1, cancelled);
		return;
	}

	head = thn_sq_head(&self->v);
	ret = thn_post(&self->v, d, n, &db);
	ASSERT_EQ(variant->err, ret);

	if (variant->err) {
		/* the SQ head stays on the refused chain, which names its slot */
		EXPECT_EQ(head, thn_sq_head(&self->v));
		EXPECT_EQ(0, db.chains);
		EXPECT_EQ(0, db.descs);
		EXPECT_EQ(head, db.bad_index);
		EXPECT_EQ(variant->bad_desc, db.bad_desc);
		EXPECT_EQ(variant->reason, db.reason);
		/* ringing again refuses the same chain, consuming nothing */
		EXPECT_EQ(-EINVAL, thn_doorbell(&self->v, &db));
		EXPECT_EQ(head, db.bad_index);
		EXPECT_EQ(head, thn_sq_head(&self->v));
		thn_sq_rewind(&self->v);
		/* nothing installed, nothing ran, nothing written */
		ASSERT_EQ(0, thn_cancel(&self->v, false, 0, &cancelled));
		EXPECT_EQ(0, cancelled);
		thn_sleep_us(20000);
		EXPECT_EQ(0, thn_cq_drain(&self->v, cqe, 4));
		EXPECT_TRUE(all_bytes(self->rw, 0xa5, BUF));
		EXPECT_TRUE(all_bytes(self->ro, 0x5a, BUF));
		EXPECT_TRUE(all_bytes(self->peer_rw, 0x3c, BUF));
		EXPECT_TRUE(counters_zero(&self->v));
		EXPECT_TRUE(counters_zero(&self->peer));
		EXPECT_EQ(0, thn_cq_pending(&self->peer));
		/* and the vport still works */
		ASSERT_EQ(0, thn_post_notify(&self->v, 0, 0, 0x600d));
		ASSERT_EQ(1, thn_cq_wait(&self->v, cqe, 1, THN_WAIT_MS));
		EXPECT_EQ(0x600d, cqe[0].cookie);
	} else {
		EXPECT_EQ(head + n, thn_sq_head(&self->v));
		EXPECT_EQ(TH_NIC_REFUSE_NONE, db.reason);
		EXPECT_EQ(1, db.chains);
		EXPECT_EQ(n, db.descs);
	}
}

/* ---- VPORT_CREATE ring sizes (selftests/common/badinput_rings.h) ------ */

FIXTURE(ring) {
	int fd;
};

FIXTURE_VARIANT(ring) {
	__u32 sq, cq;
	int err;
};

FIXTURE_SETUP(ring)
{
	self->fd = thn_open(NODE);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(ring)
{
	close(self->fd);
}

#define RING(name, sq_, cq_, err_) \
	FIXTURE_VARIANT_ADD(ring, name) { .sq = sq_, .cq = cq_, .err = err_ }
#include "badinput_rings.h"

TEST_F(ring, vport_create)
{
	struct thn_vport v;
	int nfds = thn_count_fds();
	int ret;

	ret = thn_vport_open(self->fd, variant->sq, variant->cq, &v);
	EXPECT_EQ(variant->err, ret);
	if (variant->err) {
		EXPECT_EQ(nfds, thn_count_fds());	/* nothing half-made */
		return;
	}
	ASSERT_EQ(0, ret);
	EXPECT_EQ(variant->sq ? variant->sq : THN_DEF_SQ, v.info.sq_entries);
	EXPECT_EQ(variant->cq ? variant->cq : THN_DEF_CQ, v.info.cq_entries);
	EXPECT_EQ(0, thn_vport_close(&v));
}

/* ---- ioctl structs ----------------------------------------------------- */

struct ictx {
	__u32 vport;		/* a vport of the fd */
	__u32 lkey;		/* an MR on it */
	int fd;			/* the node's descriptor */
	void *mem;		/* a page to register */
};

/* One row: a valid struct, then one change that must be refused. */
struct iorow {
	const char *name;
	unsigned long cmd;
	__u32 size;		/* sizeof the struct */
	void (*fill)(const struct ictx *c, void *buf);
	int off;		/* byte offset to overwrite, -1: none */
	int width;		/* 4 or 8 */
	__u64 value;
	__s32 size_delta;	/* added to the size field */
	bool extra;		/* a non-zero byte past the struct */
	int err;
};

static void fill_query(const struct ictx *c, void *b)
{
	(void)c;
	((struct th_nic_query *)b)->size = sizeof(struct th_nic_query);
}

static void fill_create(const struct ictx *c, void *b)
{
	struct th_nic_vport_create *s = b;

	(void)c;
	s->size = sizeof(*s);
	s->sq_entries = 16;
	s->cq_entries = 16;
}

/* VPORT_CREATE in the domain of a descriptor the row names. */
static void fill_create_in_domain(const struct ictx *c, void *b)
{
	struct th_nic_vport_create *s = b;

	fill_create(c, b);
	s->flags = TH_NIC_VPORT_F_DOMAIN;
	s->domain_fd = c->fd;
}

static void fill_domain(const struct ictx *c, void *b)
{
	(void)c;
	((struct th_nic_domain_create *)b)->size =
		sizeof(struct th_nic_domain_create);
}

static void fill_destroy(const struct ictx *c, void *b)
{
	struct th_nic_vport_destroy *s = b;

	s->size = sizeof(*s);
	s->vport = c->vport;
}

static void fill_reg(const struct ictx *c, void *b)
{
	struct th_nic_mr_reg *s = b;

	s->size = sizeof(*s);
	s->vport = c->vport;
	s->addr = (__u64)(uintptr_t)c->mem;
	s->length = 4096;
	s->access = TH_NIC_ACCESS_ALL;
}

static void fill_dereg(const struct ictx *c, void *b)
{
	struct th_nic_mr_dereg *s = b;

	s->size = sizeof(*s);
	s->vport = c->vport;
	s->lkey = c->lkey;
}

static void fill_doorbell(const struct ictx *c, void *b)
{
	struct th_nic_doorbell *s = b;

	s->size = sizeof(*s);
	s->vport = c->vport;
}

static void fill_wait(const struct ictx *c, void *b)
{
	struct th_nic_ct_wait *s = b;

	s->size = sizeof(*s);
	s->vport = c->vport;
	s->ct = 100;
}

static void fill_update(const struct ictx *c, void *b)
{
	struct th_nic_ct_update *s = b;

	s->size = sizeof(*s);
	s->vport = c->vport;
	s->ct = 100;
	s->value = 1000;	/* a refused update must not show up */
}

static void fill_cancel(const struct ictx *c, void *b)
{
	struct th_nic_cancel *s = b;

	s->size = sizeof(*s);
	s->vport = c->vport;
}

#define ROW(nm, ioc, type, fn, field, w, val, err_) \
	{ nm, ioc, sizeof(struct type), fn, offsetof(struct type, field), w, \
	  val, 0, false, err_ }
#define SIZE_ROW(nm, ioc, type, fn, delta, extra_, err_) \
	{ nm, ioc, sizeof(struct type), fn, -1, 0, 0, delta, extra_, err_ }
#define HEADER_ROWS(pfx, ioc, type, fn) \
	SIZE_ROW(pfx " size 0", ioc, type, fn, -(int)sizeof(struct type), \
		 false, -EINVAL), \
	SIZE_ROW(pfx " size short", ioc, type, fn, -4, false, -EINVAL), \
	SIZE_ROW(pfx " larger, non-zero tail", ioc, type, fn, 8, true, -E2BIG), \
	SIZE_ROW(pfx " larger than a page", ioc, type, fn, \
		 TH_NIC_IOCTL_MAX_SIZE + 1 - (int)sizeof(struct type), false, \
		 -E2BIG), \
	SIZE_ROW(pfx " size 4 GiB - 1", ioc, type, fn, \
		 -1 - (int)sizeof(struct type), false, -E2BIG), \
	ROW(pfx " flag 31", ioc, type, fn, flags, 4, 1U << 31, -EINVAL)

static const struct iorow iorows[] = {
	HEADER_ROWS("QUERY", TH_NIC_IOCTL_QUERY, th_nic_query, fill_query),
	HEADER_ROWS("VPORT_CREATE", TH_NIC_IOCTL_VPORT_CREATE,
		    th_nic_vport_create, fill_create),
	ROW("VPORT_CREATE rsvd0", TH_NIC_IOCTL_VPORT_CREATE,
	    th_nic_vport_create, fill_create, rsvd0, 4, 1, -EINVAL),
	ROW("VPORT_CREATE rsvd[0]", TH_NIC_IOCTL_VPORT_CREATE,
	    th_nic_vport_create, fill_create, rsvd[0], 8, 1ULL << 63, -EINVAL),
	ROW("VPORT_CREATE flag 1", TH_NIC_IOCTL_VPORT_CREATE,
	    th_nic_vport_create, fill_create, flags, 4, 2, -EINVAL),
	ROW("VPORT_CREATE domain_fd without its flag", TH_NIC_IOCTL_VPORT_CREATE,
	    th_nic_vport_create, fill_create, domain_fd, 4, 1, -EINVAL),
	ROW("VPORT_CREATE domain flag, fd not open", TH_NIC_IOCTL_VPORT_CREATE,
	    th_nic_vport_create, fill_create_in_domain, domain_fd, 4, 1000,
	    -EBADF),
	/* the node's own descriptor: open, but no domain */
	ROW("VPORT_CREATE domain flag, fd not a domain",
	    TH_NIC_IOCTL_VPORT_CREATE, th_nic_vport_create,
	    fill_create_in_domain, rsvd0, 4, 0, -EINVAL),
	ROW("VPORT_CREATE domain flag, negative fd", TH_NIC_IOCTL_VPORT_CREATE,
	    th_nic_vport_create, fill_create_in_domain, domain_fd, 4, -1,
	    -EBADF),
	HEADER_ROWS("DOMAIN_CREATE", TH_NIC_IOCTL_DOMAIN_CREATE,
		    th_nic_domain_create, fill_domain),
	ROW("DOMAIN_CREATE rsvd", TH_NIC_IOCTL_DOMAIN_CREATE,
	    th_nic_domain_create, fill_domain, rsvd, 4, 1, -EINVAL),
	HEADER_ROWS("VPORT_DESTROY", TH_NIC_IOCTL_VPORT_DESTROY,
		    th_nic_vport_destroy, fill_destroy),
	ROW("VPORT_DESTROY rsvd", TH_NIC_IOCTL_VPORT_DESTROY,
	    th_nic_vport_destroy, fill_destroy, rsvd, 4, 1, -EINVAL),
	ROW("VPORT_DESTROY unknown vport", TH_NIC_IOCTL_VPORT_DESTROY,
	    th_nic_vport_destroy, fill_destroy, vport, 4, 0xffff, -EINVAL),
	HEADER_ROWS("MR_REG", TH_NIC_IOCTL_MR_REG, th_nic_mr_reg, fill_reg),
	ROW("MR_REG rsvd0", TH_NIC_IOCTL_MR_REG, th_nic_mr_reg, fill_reg,
	    rsvd0, 4, 1, -EINVAL),
	ROW("MR_REG rsvd[0]", TH_NIC_IOCTL_MR_REG, th_nic_mr_reg, fill_reg,
	    rsvd[0], 8, 1, -EINVAL),
	ROW("MR_REG unknown access", TH_NIC_IOCTL_MR_REG, th_nic_mr_reg,
	    fill_reg, access, 4, 1 << 3, -EINVAL),
	ROW("MR_REG access bit 31", TH_NIC_IOCTL_MR_REG, th_nic_mr_reg,
	    fill_reg, access, 4, 1U << 31, -EINVAL),
	ROW("MR_REG length 0", TH_NIC_IOCTL_MR_REG, th_nic_mr_reg, fill_reg,
	    length, 8, 0, -EINVAL),
	ROW("MR_REG length > max", TH_NIC_IOCTL_MR_REG, th_nic_mr_reg,
	    fill_reg, length, 8, THN_DEF_MR_SIZE + 4096, -EINVAL),
	ROW("MR_REG unknown vport", TH_NIC_IOCTL_MR_REG, th_nic_mr_reg,
	    fill_reg, vport, 4, THN_DEF_VPORTS - 1, -EINVAL),
	HEADER_ROWS("MR_DEREG", TH_NIC_IOCTL_MR_DEREG, th_nic_mr_dereg,
		    fill_dereg),
	ROW("MR_DEREG unknown key", TH_NIC_IOCTL_MR_DEREG, th_nic_mr_dereg,
	    fill_dereg, lkey, 4, 0x12345, -EINVAL),
	ROW("MR_DEREG key 0", TH_NIC_IOCTL_MR_DEREG, th_nic_mr_dereg,
	    fill_dereg, lkey, 4, 0, -EINVAL),
	HEADER_ROWS("DOORBELL", TH_NIC_IOCTL_DOORBELL, th_nic_doorbell,
		    fill_doorbell),
	ROW("DOORBELL unknown vport", TH_NIC_IOCTL_DOORBELL, th_nic_doorbell,
	    fill_doorbell, vport, 4, THN_DEF_VPORTS - 1, -EINVAL),
	HEADER_ROWS("CT_WAIT", TH_NIC_IOCTL_CT_WAIT, th_nic_ct_wait, fill_wait),
	ROW("CT_WAIT counter out of range", TH_NIC_IOCTL_CT_WAIT,
	    th_nic_ct_wait, fill_wait, ct, 4, THN_DEF_COUNTERS, -EINVAL),
	ROW("CT_WAIT unknown vport", TH_NIC_IOCTL_CT_WAIT, th_nic_ct_wait,
	    fill_wait, vport, 4, THN_DEF_VPORTS - 1, -EINVAL),
	HEADER_ROWS("CT_SET", TH_NIC_IOCTL_CT_SET, th_nic_ct_update,
		    fill_update),
	ROW("CT_SET with FAILURE flag", TH_NIC_IOCTL_CT_SET, th_nic_ct_update,
	    fill_update, flags, 4, TH_NIC_CT_F_FAILURE, -EINVAL),
	ROW("CT_SET counter out of range", TH_NIC_IOCTL_CT_SET,
	    th_nic_ct_update, fill_update, ct, 4, THN_DEF_COUNTERS, -EINVAL),
	ROW("CT_SET unknown vport", TH_NIC_IOCTL_CT_SET, th_nic_ct_update,
	    fill_update, vport, 4, THN_DEF_VPORTS - 1, -EINVAL),
	HEADER_ROWS("CT_INC", TH_NIC_IOCTL_CT_INC, th_nic_ct_update,
		    fill_update),
	ROW("CT_INC flag 1", TH_NIC_IOCTL_CT_INC, th_nic_ct_update,
	    fill_update, flags, 4, 2, -EINVAL),
	ROW("CT_INC failure field", TH_NIC_IOCTL_CT_INC, th_nic_ct_update,
	    fill_update, failure, 8, 1, -EINVAL),
	ROW("CT_INC counter out of range", TH_NIC_IOCTL_CT_INC,
	    th_nic_ct_update, fill_update, ct, 4, 0xffffffff, -EINVAL),
	ROW("CT_INC unknown vport", TH_NIC_IOCTL_CT_INC, th_nic_ct_update,
	    fill_update, vport, 4, 0xffffffff, -EINVAL),
	HEADER_ROWS("CANCEL", TH_NIC_IOCTL_CANCEL, th_nic_cancel, fill_cancel),
	ROW("CANCEL flag 1", TH_NIC_IOCTL_CANCEL, th_nic_cancel, fill_cancel,
	    flags, 4, 2, -EINVAL),
	ROW("CANCEL unknown vport", TH_NIC_IOCTL_CANCEL, th_nic_cancel,
	    fill_cancel, vport, 4, THN_DEF_VPORTS - 1, -EINVAL),
};

TEST(malformed_ioctl_structs_are_refused)
{
	__u64 buf[TH_NIC_IOCTL_MAX_SIZE / 8 + 8];
	struct thn_key key;
	int nfds;
	struct thn_vport v;
	struct ictx c;
	unsigned int i;
	__u32 cancelled;
	int fd = thn_open(NODE), ret;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, thn_vport_open(fd, 16, 16, &v));
	c.vport = v.id;
	c.fd = fd;
	c.mem = thn_alloc(4096);
	ASSERT_NE(NULL, c.mem);
	ASSERT_EQ(0, thn_mr_reg(&v, c.mem, 4096, 0, &key));
	c.lkey = key.l;
	ASSERT_EQ(0, thn_post_notify(&v, 100, 1000, 5));	/* stays pending */
	nfds = thn_count_fds();

	for (i = 0; i < ARRAY_SIZE(iorows); i++) {
		const struct iorow *r = &iorows[i];

		memset(buf, 0, sizeof(buf));
		r->fill(&c, buf);
		if (r->off >= 0)
			memcpy((__u8 *)buf + r->off, &r->value, r->width);
		buf[0] = (buf[0] & ~0xffffffffULL) |
			 (__u32)(r->size + r->size_delta);
		if (r->extra)
			((__u8 *)buf)[r->size + 3] = 0x80;
		ret = thn_ioctl(fd, r->cmd, buf);
		EXPECT_EQ(r->err, ret) TH_LOG("%s", r->name);
	}
	/* nothing of the refused calls happened: no descriptor either */
	EXPECT_EQ(nfds, thn_count_fds());
	EXPECT_EQ(0, thn_ct(&v, 100));
	EXPECT_EQ(0, thn_ct_fail(&v, 100));
	ASSERT_EQ(0, thn_cancel(&v, false, 0, &cancelled));
	EXPECT_EQ(1, cancelled);
	EXPECT_EQ(0, thn_mr_dereg(&v, c.lkey));
	/* the larger struct with a zero tail is fine for every call */
	memset(buf, 0, sizeof(buf));
	fill_update(&c, buf);
	buf[0] = sizeof(struct th_nic_ct_update) + 16;
	EXPECT_EQ(0, thn_ioctl(fd, TH_NIC_IOCTL_CT_INC, buf));
	EXPECT_EQ(1000, thn_ct(&v, 100));
	memset(buf, 0, sizeof(buf));
	fill_doorbell(&c, buf);
	buf[0] = sizeof(struct th_nic_doorbell) + 8;
	EXPECT_EQ(0, thn_ioctl(fd, TH_NIC_IOCTL_DOORBELL, buf));
	memset(buf, 0, sizeof(buf));
	fill_create(&c, buf);
	buf[0] = sizeof(struct th_nic_vport_create) + 64;
	EXPECT_EQ(0, thn_ioctl(fd, TH_NIC_IOCTL_VPORT_CREATE, buf));
	close(fd);
}

TEST(mr_reg_bad_memory)
{
	struct thn_vport v;
	__u8 *p;
	struct thn_key key;
	int fd = thn_open(NODE), ret;
	long page = sysconf(_SC_PAGESIZE);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, thn_vport_open(fd, 16, 16, &v));
	/* NULL, unmapped, PROT_NONE, half-mapped, kernel addresses */
	EXPECT_EQ(-EFAULT, thn_mr_reg(&v, NULL, page, TH_NIC_ACCESS_ALL, &key));
	p = thn_alloc(2 * page);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, munmap(p, 2 * page));
	EXPECT_EQ(-EFAULT, thn_mr_reg(&v, p, page, 0, &key));
	p = mmap(NULL, 2 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(-EFAULT, thn_mr_reg(&v, p, page, 0, &key));
	ASSERT_EQ(0, mprotect(p, page, PROT_READ | PROT_WRITE));
	EXPECT_EQ(-EFAULT, thn_mr_reg(&v, p, 2 * page, TH_NIC_ACCESS_ALL,
				      &key));
	EXPECT_EQ(0, thn_mr_reg(&v, p, page, TH_NIC_ACCESS_ALL, &key));
	EXPECT_EQ(-EFAULT, thn_mr_reg(&v, (void *)0xffff888000000000ULL, page,
				      0, &key));
	EXPECT_EQ(-EFAULT, thn_mr_reg(&v, (void *)0xffffffffff600000ULL, page,
				      0, &key));
	/* an address range that wraps: refused either way */
	ret = thn_mr_reg(&v, (void *)(~0UL - 100), page, 0, &key);
	EXPECT_TRUE(ret == -EINVAL || ret == -EFAULT) TH_LOG("got %d", ret);
	close(fd);
}

TEST(mr_limit_and_dereg)
{
	struct thn_vport v;
	struct thn_key keys[THN_DEF_MRS], key;
	__u32 i;
	__u8 *p = thn_alloc(4096);
	int fd = thn_open(NODE);

	ASSERT_LE(0, fd);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, thn_vport_open(fd, 16, 16, &v));
	for (i = 0; i < THN_DEF_MRS; i++)
		ASSERT_EQ(0, thn_mr_reg(&v, p, 4096, 0, &keys[i]));
	EXPECT_EQ(-ENOSPC, thn_mr_reg(&v, p, 4096, 0, &key));
	ASSERT_EQ(0, thn_mr_dereg(&v, keys[7].l));
	EXPECT_EQ(-EINVAL, thn_mr_dereg(&v, keys[7].l));
	ASSERT_EQ(0, thn_mr_reg(&v, p, 4096, 0, &key));
	EXPECT_NE(keys[7].l, key.l);
	EXPECT_NE(keys[7].r, key.r);
	EXPECT_EQ(-ENOSPC, thn_mr_reg(&v, p, 4096, 0, &key));
	for (i = 0; i < THN_DEF_MRS; i++)
		if (i != 7)
			ASSERT_EQ(0, thn_mr_dereg(&v, keys[i].l));
	EXPECT_EQ(0, thn_mr_dereg(&v, key.l));
	close(fd);
}

TEST_HARNESS_MAIN
