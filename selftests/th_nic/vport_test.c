// SPDX-License-Identifier: GPL-2.0
/*
 * vport_test.c - vport lifetime and its mappings: create and destroy, the
 * three regions at the offsets the kernel returns, ring headers, the
 * read-only counter page, limits, bad sizes, and mappings that outlive
 * their vport or their file descriptor.
 */
#include <signal.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "th_nic_util.h"

/* vport_test owns node 12: other test binaries leave it alone */
#define NODE 12

FIXTURE(vp) {
	int fd;
	long page;
};

FIXTURE_SETUP(vp)
{
	self->fd = thn_open(NODE);
	ASSERT_LE(0, self->fd) TH_LOG("open: %s", strerror(-self->fd));
	self->page = sysconf(_SC_PAGESIZE);
}

FIXTURE_TEARDOWN(vp)
{
	close(self->fd);
}

/* Ring sizes: 0 asks for the maximum. */
FIXTURE_VARIANT(vp) {
	__u32 sq, cq;		/* requested */
	__u32 want_sq, want_cq;	/* granted */
};

FIXTURE_VARIANT_ADD(vp, defaults) { 0, 0, THN_DEF_SQ, THN_DEF_CQ };
FIXTURE_VARIANT_ADD(vp, smallest) { THN_DEF_CHAIN, 1, THN_DEF_CHAIN, 1 };
FIXTURE_VARIANT_ADD(vp, small_cq) { 64, 8, 64, 8 };
FIXTURE_VARIANT_ADD(vp, big_sq_small_cq) { THN_DEF_SQ, 16, THN_DEF_SQ, 16 };
FIXTURE_VARIANT_ADD(vp, small_sq_big_cq) { 32, THN_DEF_CQ, 32, THN_DEF_CQ };

/* A ring's layout: every field inside the mapping, slots at the end. */
static void check_ring(struct __test_metadata *_metadata,
		       const struct th_nic_ring_offsets *off, __u64 size,
		       __u32 slot_size, __u32 entries, void *map)
{
	ASSERT_LE(off->head + 4, size);
	ASSERT_LE(off->tail + 4, size);
	ASSERT_LE(off->ring_mask + 4, size);
	ASSERT_LE(off->ring_entries + 4, size);
	ASSERT_LE(off->slots + (__u64)entries * slot_size, size);
	EXPECT_EQ(0, off->head % 4);
	EXPECT_EQ(0, off->tail % 4);
	EXPECT_NE(off->head, off->tail);
	EXPECT_EQ(0, off->rsvd[0] | off->rsvd[1] | off->rsvd[2]);
	EXPECT_EQ(entries - 1, *thn_u32_at(map, off->ring_mask));
	EXPECT_EQ(entries, *thn_u32_at(map, off->ring_entries));
	EXPECT_EQ(0, *thn_u32_at(map, off->head));
	EXPECT_EQ(0, *thn_u32_at(map, off->tail));
}

TEST_F(vp, create_map_and_destroy)
{
	struct thn_vport v;
	const struct th_nic_vport_create *c = &v.info;
	__u32 i;

	ASSERT_EQ(0, thn_vport_open(self->fd, variant->sq, variant->cq, &v));
	EXPECT_LT(v.id, THN_DEF_VPORTS);
	EXPECT_EQ(THN_DEF_COUNTERS, c->ct_count);
	EXPECT_EQ(0, c->rsvd[0] | c->rsvd[1]);
	/* three distinct page-aligned regions, none overlapping */
	EXPECT_EQ(0, c->sq_mmap_offset % self->page);
	EXPECT_EQ(0, c->cq_mmap_offset % self->page);
	EXPECT_EQ(0, c->ct_mmap_offset % self->page);
	EXPECT_TRUE(c->sq_mmap_offset + c->sq_mmap_size <= c->cq_mmap_offset ||
		    c->cq_mmap_offset + c->cq_mmap_size <= c->sq_mmap_offset);
	EXPECT_TRUE(c->ct_mmap_offset + c->ct_mmap_size <= c->cq_mmap_offset ||
		    c->cq_mmap_offset + c->cq_mmap_size <= c->ct_mmap_offset);
	EXPECT_TRUE(c->ct_mmap_offset + c->ct_mmap_size <= c->sq_mmap_offset ||
		    c->sq_mmap_offset + c->sq_mmap_size <= c->ct_mmap_offset);
	EXPECT_LE((__u64)THN_DEF_COUNTERS * sizeof(struct th_nic_ct),
		  c->ct_mmap_size);

	check_ring(_metadata, &c->sq_off, c->sq_mmap_size, TH_NIC_DESC_SIZE,
		   variant->want_sq, v.sq);
	check_ring(_metadata, &c->cq_off, c->cq_mmap_size, TH_NIC_CQE_SIZE,
		   variant->want_cq, v.cq);
	for (i = 0; i < THN_DEF_COUNTERS; i++) {
		ASSERT_EQ(0, thn_ct(&v, i));
		ASSERT_EQ(0, thn_ct_fail(&v, i));
	}
	/* the whole SQ is writable, the whole CQ readable */
	memset(v.sq_slots, 0, (size_t)variant->want_sq * TH_NIC_DESC_SIZE);
	for (i = 0; i < variant->want_cq; i++)
		ASSERT_EQ(0, v.cq_slots[i].status);

	/* the counter page shows what CT_SET wrote */
	ASSERT_EQ(0, thn_ct_set(&v, THN_DEF_COUNTERS - 1, 0x1234, 0));
	EXPECT_EQ(0x1234, thn_ct(&v, THN_DEF_COUNTERS - 1));

	ASSERT_EQ(0, thn_vport_close(&v));
	EXPECT_EQ(-EINVAL, thn_vport_destroy_id(self->fd, v.id));
}

/* Each vport has its own index and regions. */
TEST_F(vp, two_vports_are_distinct)
{
	struct thn_vport a, b;

	ASSERT_EQ(0, thn_vport_open(self->fd, variant->sq, variant->cq, &a));
	ASSERT_EQ(0, thn_vport_open(self->fd, variant->sq, variant->cq, &b));
	EXPECT_NE(a.id, b.id);
	EXPECT_NE(a.info.sq_mmap_offset, b.info.sq_mmap_offset);
	EXPECT_NE(a.info.cq_mmap_offset, b.info.cq_mmap_offset);
	EXPECT_NE(a.info.ct_mmap_offset, b.info.ct_mmap_offset);
	ASSERT_EQ(0, thn_ct_set(&a, 5, 11, 0));
	ASSERT_EQ(0, thn_ct_set(&b, 5, 22, 0));
	EXPECT_EQ(11, thn_ct(&a, 5));
	EXPECT_EQ(22, thn_ct(&b, 5));
	ASSERT_EQ(0, thn_vport_close(&a));
	ASSERT_EQ(0, thn_vport_close(&b));
}

FIXTURE(ro) {
	int fd;
	struct thn_vport v;
};

FIXTURE_SETUP(ro)
{
	self->fd = thn_open(NODE);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, thn_vport_open(self->fd, 64, 64, &self->v));
	ASSERT_EQ(0, thn_ct_set(&self->v, 0, 77, 0));
}

FIXTURE_TEARDOWN(ro)
{
	close(self->fd);
}

TEST_F(ro, counter_page_cannot_be_mapped_writable)
{
	const struct th_nic_vport_create *c = &self->v.info;
	void *p;

	p = mmap(NULL, c->ct_mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->fd, (off_t)c->ct_mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_TRUE(errno == EPERM || errno == EACCES)
		TH_LOG("errno %d (%s)", errno, strerror(errno));
	/* nor privately: a private writable copy is no read-only page */
	p = mmap(NULL, c->ct_mmap_size, PROT_READ | PROT_WRITE, MAP_PRIVATE,
		 self->fd, (off_t)c->ct_mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	if (p != MAP_FAILED)
		munmap(p, c->ct_mmap_size);
	/* and a read-only mapping cannot be made writable later */
	EXPECT_NE(0, mprotect((void *)self->v.cts, c->ct_mmap_size,
			      PROT_READ | PROT_WRITE));
	EXPECT_EQ(77, thn_ct(&self->v, 0));
}

/* Writing through the read-only mapping kills the writer with SIGSEGV. */
TEST_F(ro, write_through_counter_page_faults)
{
	volatile __u64 *p = (volatile __u64 *)&self->v.cts[0].success;
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		*p = 12345;
		_exit(0);	/* the write went through: a failure */
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status))
		TH_LOG("child exited %d", WEXITSTATUS(status));
	if (WIFSIGNALED(status))
		EXPECT_EQ(SIGSEGV, WTERMSIG(status));
	EXPECT_EQ(77, thn_ct(&self->v, 0));
}

/* Only the regions the kernel handed out can be mapped. */
TEST_F(ro, mapping_beyond_a_region_is_refused)
{
	const struct th_nic_vport_create *c = &self->v.info;
	long page = sysconf(_SC_PAGESIZE);
	const struct {
		const char *what;
		__u64 off, len;
		int prot;
	} rows[] = {
		{ "SQ plus a page", c->sq_mmap_offset, c->sq_mmap_size + page,
		  PROT_READ | PROT_WRITE },
		{ "CQ plus a page", c->cq_mmap_offset, c->cq_mmap_size + page,
		  PROT_READ | PROT_WRITE },
		{ "counters plus a page", c->ct_mmap_offset,
		  c->ct_mmap_size + page, PROT_READ },
		{ "SQ from its end", c->sq_mmap_offset +
		  ((c->sq_mmap_size + page - 1) / page) * page, page,
		  PROT_READ },
		{ "an offset nobody handed out", 1ULL << 40, page, PROT_READ },
		{ "the last page offset", (~0ULL >> 1) & ~(__u64)(page - 1),
		  page, PROT_READ },
	};
	unsigned int i;
	void *p;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		/* the page after the SQ may legitimately start another region */
		if (rows[i].off == c->cq_mmap_offset ||
		    rows[i].off == c->ct_mmap_offset)
			continue;
		p = mmap(NULL, rows[i].len, rows[i].prot, MAP_SHARED, self->fd,
			 (off_t)rows[i].off);
		EXPECT_EQ(MAP_FAILED, p) TH_LOG("%s mapped", rows[i].what);
		if (p != MAP_FAILED)
			munmap(p, rows[i].len);
	}
}

/* Another vport's regions are not reachable through a different fd. */
TEST_F(ro, regions_belong_to_their_fd)
{
	const struct th_nic_vport_create *c = &self->v.info;
	int other = thn_open(NODE);
	void *p;

	ASSERT_LE(0, other);
	p = mmap(NULL, c->ct_mmap_size, PROT_READ, MAP_SHARED, other,
		 (off_t)c->ct_mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	if (p != MAP_FAILED)
		munmap(p, c->ct_mmap_size);
	p = mmap(NULL, c->sq_mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 other, (off_t)c->sq_mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	if (p != MAP_FAILED)
		munmap(p, c->sq_mmap_size);
	/* nor destroyed through it */
	EXPECT_EQ(-EINVAL, thn_vport_destroy_id(other, self->v.id));
	EXPECT_EQ(77, thn_ct(&self->v, 0));
	close(other);
}

/* Reading a mapping after VPORT_DESTROY, in a child: it must not die. */
static int read_in_child(const volatile void *p, size_t len)
{
	const volatile __u8 *b = p;
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		size_t i;

		for (i = 0; i < len; i += 64)
			(void)b[i];
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

TEST_F(ro, mapping_outliving_destroy_is_safe_to_read)
{
	struct thn_vport *v = &self->v;
	int status;

	ASSERT_EQ(0, thn_vport_destroy_id(self->fd, v->id));
	status = read_in_child(v->cts, v->ct_len);
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("reading the counter page after destroy: %s %d",
		       WIFSIGNALED(status) ? "killed by signal" : "exit",
		       WIFSIGNALED(status) ? WTERMSIG(status) :
					     WEXITSTATUS(status));
	status = read_in_child(v->cq, v->cq_len);
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("reading the CQ after destroy: %s %d",
		       WIFSIGNALED(status) ? "killed by signal" : "exit",
		       WIFSIGNALED(status) ? WTERMSIG(status) :
					     WEXITSTATUS(status));
	status = read_in_child(v->sq, v->sq_len);
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	/* the index is free again, and the old mappings stay harmless */
	thn_vport_unmap(v);
	ASSERT_EQ(0, thn_vport_open(self->fd, 64, 64, v));
	EXPECT_EQ(0, thn_ct(v, 0));
}

/* close() with the mappings alive: the vport lives until the last munmap. */
TEST(mapping_outlives_close)
{
	struct thn_vport v;
	struct th_nic_query q;
	int fd = thn_open(NODE);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, thn_vport_open(fd, 64, 64, &v));
	ASSERT_EQ(0, thn_ct_set(&v, 3, 99, 0));
	ASSERT_EQ(0, close(fd));
	EXPECT_EQ(99, thn_ct(&v, 3));
	EXPECT_EQ(63, *thn_u32_at(v.sq, v.info.sq_off.ring_mask));
	thn_vport_unmap(&v);
	/* the node is usable afterwards */
	fd = thn_open(NODE);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, thn_query(fd, &q));
	ASSERT_EQ(0, thn_vport_open(fd, 64, 64, &v));
	EXPECT_EQ(0, thn_ct(&v, 3));
	close(fd);
}

TEST(vports_limit_is_enospc)
{
	static __u32 ids[THN_DEF_VPORTS + 1];
	struct th_nic_vport_create c;
	struct th_nic_query q;
	__u32 n = 0, i;
	int fd = thn_open(NODE), ret;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, thn_query(fd, &q));
	ASSERT_EQ(THN_DEF_VPORTS, q.max_vports);
	for (;;) {
		ret = thn_vport_create_raw(fd, THN_DEF_CHAIN, 8, &c);
		if (ret)
			break;
		ASSERT_LT(n, THN_DEF_VPORTS) TH_LOG("more vports than the limit");
		ids[n++] = c.vport;
	}
	EXPECT_EQ(-ENOSPC, ret);
	EXPECT_EQ(q.max_vports, n);
	for (i = 0; i < n; i++)
		ASSERT_LT(ids[i], q.max_vports);
	/* a second fd on the node shares the node's limit */
	{
		int fd2 = thn_open(NODE);

		ASSERT_LE(0, fd2);
		EXPECT_EQ(-ENOSPC, thn_vport_create_raw(fd2, THN_DEF_CHAIN, 8, &c));
		close(fd2);
	}
	/* freeing one makes room for exactly one */
	ASSERT_EQ(0, thn_vport_destroy_id(fd, ids[n / 2]));
	ASSERT_EQ(0, thn_vport_create_raw(fd, THN_DEF_CHAIN, 8, &c));
	EXPECT_EQ(ids[n / 2], c.vport);
	EXPECT_EQ(-ENOSPC, thn_vport_create_raw(fd, THN_DEF_CHAIN, 8, &c));
	/* another node is not affected */
	{
		int fd3 = thn_open(NODE + 1);
		struct thn_vport v;

		ASSERT_LE(0, fd3);
		ASSERT_EQ(0, thn_vport_open(fd3, 0, 0, &v));
		close(fd3);
	}
	/* closing the fd frees them all */
	close(fd);
	fd = thn_open(NODE);
	ASSERT_LE(0, fd);
	for (i = 0; i < q.max_vports; i++)
		ASSERT_EQ(0, thn_vport_create_raw(fd, THN_DEF_CHAIN, 8, &c))
			TH_LOG("vport %u after close", i);
	close(fd);
}

TEST(bad_ring_sizes_are_einval)
{
	static const struct {
		__u32 sq, cq;
	} rows[] = {
		{ 24, 0 },			/* not a power of two */
		{ 0, 24 },
		{ 0, 3 },
		{ 2 * THN_DEF_SQ, 0 },		/* above the maximum */
		{ 0, 2 * THN_DEF_CQ },
		{ 1U << 31, 0 },
		{ 0, 1U << 31 },
		{ 0xffffffff, 0 },
		{ THN_DEF_CHAIN / 2, 0 },	/* cannot hold one chain */
	};
	struct th_nic_vport_create c;
	unsigned int i;
	int fd = thn_open(NODE);

	ASSERT_LE(0, fd);
	for (i = 0; i < ARRAY_SIZE(rows); i++)
		EXPECT_EQ(-EINVAL, thn_vport_create_raw(fd, rows[i].sq,
							rows[i].cq, &c))
			TH_LOG("sq %u cq %u", rows[i].sq, rows[i].cq);
	/* nothing was created: all vports still available */
	for (i = 0; i < THN_DEF_VPORTS; i++)
		ASSERT_EQ(0, thn_vport_create_raw(fd, THN_DEF_CHAIN, 8, &c));
	close(fd);
}

TEST(destroy_unknown_vport_is_einval)
{
	struct th_nic_vport_create c;
	int fd = thn_open(NODE);

	ASSERT_LE(0, fd);
	EXPECT_EQ(-EINVAL, thn_vport_destroy_id(fd, 0));
	EXPECT_EQ(-EINVAL, thn_vport_destroy_id(fd, THN_DEF_VPORTS - 1));
	EXPECT_EQ(-EINVAL, thn_vport_destroy_id(fd, THN_DEF_VPORTS));
	EXPECT_EQ(-EINVAL, thn_vport_destroy_id(fd, 0xffffffff));
	ASSERT_EQ(0, thn_vport_create_raw(fd, 0, 0, &c));
	ASSERT_EQ(0, thn_vport_destroy_id(fd, c.vport));
	EXPECT_EQ(-EINVAL, thn_vport_destroy_id(fd, c.vport));
	close(fd);
}

/* A mapping of part of a region shows exactly that part, or is refused. */
TEST_F(ro, partial_mappings_are_exact_or_refused)
{
	const struct th_nic_vport_create *c = &self->v.info;
	long page = sysconf(_SC_PAGESIZE);
	volatile __u8 *full = self->v.sq;
	__u8 *p;

	ASSERT_LE(2 * page, (long)c->sq_mmap_size);
	full[0] = 0;
	full[page] = 0;
	full[page + 5] = 0xab;		/* inside SQ slots */
	/* the first page alone */
	p = mmap(NULL, page, PROT_READ, MAP_SHARED, self->fd,
		 (off_t)c->sq_mmap_offset);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(63, *thn_u32_at(p, c->sq_off.ring_mask));
	munmap(p, page);
	/* the second page alone: its own bytes, or no mapping at all */
	p = mmap(NULL, page, PROT_READ, MAP_SHARED, self->fd,
		 (off_t)(c->sq_mmap_offset + page));
	if (p != MAP_FAILED) {
		EXPECT_EQ(0xab, p[5]) TH_LOG("page 1 of the SQ maps other bytes");
		munmap(p, page);
	}
}

/* Ring mappings cannot be grown with mremap (VM_DONTEXPAND). */
TEST_F(ro, mremap_cannot_grow_a_mapping)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = (self->v.cq_len + page - 1) / page * page;
	void *p;

	p = mremap(self->v.cq, len, len + 4 * page, MREMAP_MAYMOVE);
	EXPECT_EQ(MAP_FAILED, p);
	if (p != MAP_FAILED)
		self->v.cq = p;
	len = (self->v.ct_len + page - 1) / page * page;
	p = mremap((void *)self->v.cts, len, len + page, MREMAP_MAYMOVE);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(77, thn_ct(&self->v, 0));
}

/* What the kernel hands out names regions, not kernel addresses. */
TEST_F(ro, offsets_are_not_kernel_addresses)
{
	const struct th_nic_vport_create *c = &self->v.info;

	EXPECT_GT(1ULL << 47, c->sq_mmap_offset);
	EXPECT_GT(1ULL << 47, c->cq_mmap_offset);
	EXPECT_GT(1ULL << 47, c->ct_mmap_offset);
	EXPECT_GT(1ULL << 32, c->sq_mmap_size);
}

/* Two fds on one node: their vports are independent, and so are closes. */
TEST(two_fds_on_one_node_are_independent)
{
	struct thn_vport a, b;
	int fa = thn_open(NODE), fb = thn_open(NODE);

	ASSERT_LE(0, fa);
	ASSERT_LE(0, fb);
	ASSERT_EQ(0, thn_vport_open(fa, 16, 16, &a));
	ASSERT_EQ(0, thn_vport_open(fb, 16, 16, &b));
	EXPECT_NE(a.id, b.id);
	ASSERT_EQ(0, thn_ct_set(&b, 1, 5, 0));
	thn_vport_unmap(&a);
	ASSERT_EQ(0, close(fa));
	EXPECT_EQ(5, thn_ct(&b, 1));
	ASSERT_EQ(0, thn_post_notify(&b, 1, 5, 9));
	EXPECT_EQ(1, thn_cq_wait(&b, NULL, 1, THN_WAIT_MS));
	/* b's fd cannot reach a's old vport index */
	EXPECT_EQ(-EINVAL, thn_vport_destroy_id(fb, a.id));
	close(fb);
}

TEST_HARNESS_MAIN
