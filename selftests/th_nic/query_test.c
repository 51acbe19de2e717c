// SPDX-License-Identifier: GPL-2.0
/*
 * query_test.c - QUERY on every node: ABI version, identity, node count,
 * the default limits and features; malformed and extended structs.
 */
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "kselftest_harness.h"
#include "th_nic_util.h"

/* Every node answers with its own id and the fabric's limits. */
TEST(every_node_reports_itself_and_the_defaults)
{
	struct th_nic_query q;
	struct stat st;
	unsigned int node;
	int fd;

	for (node = 0; node < THN_NODES; node++) {
		fd = thn_open(node);
		ASSERT_LE(0, fd) TH_LOG("open /dev/th_nic%u: %s", node,
					strerror(-fd));
		ASSERT_EQ(0, fstat(fd, &st));
		ASSERT_TRUE(S_ISCHR(st.st_mode));
		ASSERT_EQ(0, thn_query(fd, &q));
		EXPECT_EQ(sizeof(q), q.size);
		EXPECT_EQ(0, q.flags);
		EXPECT_EQ(TH_NIC_ABI_VERSION, q.abi_version);
		EXPECT_EQ(2, q.abi_version);
		EXPECT_EQ(node, q.node_id);
		EXPECT_EQ(minor(st.st_rdev), q.node_id);
		EXPECT_EQ(THN_NODES, q.node_count);
		EXPECT_EQ(THN_DEF_VPORTS, q.max_vports);
		EXPECT_EQ(THN_DEF_COUNTERS, q.max_counters);
		EXPECT_EQ(THN_DEF_SQ, q.max_sq_entries);
		EXPECT_EQ(THN_DEF_CQ, q.max_cq_entries);
		EXPECT_EQ(THN_DEF_CHAIN, q.max_chain);
		EXPECT_EQ(THN_DEF_MRS, q.max_mrs);
		EXPECT_EQ(THN_DEF_MR_SIZE, q.max_mr_size);
		EXPECT_EQ(7, q.max_operands);
		EXPECT_EQ(32, q.max_inline);
		EXPECT_EQ(128, q.desc_size);
		EXPECT_EQ(32, q.cqe_size);
		EXPECT_EQ(0, q.rsvd0);
		EXPECT_EQ(0, q.rsvd[0] | q.rsvd[1] | q.rsvd[2]);
		EXPECT_EQ(THN_DEF_USER_VPORTS, q.max_user_vports);
		EXPECT_EQ(THN_DEF_USER_CHAINS, q.max_user_chains);
		/*
		 * the kernel module's ALU has both, domains are descriptors,
		 * and it is not in-process
		 */
		EXPECT_EQ(TH_NIC_FEAT_REDUCE_STRIDED | TH_NIC_FEAT_FLOAT_ALU |
			  TH_NIC_FEAT_DOMAIN_FD,
			  q.features & (TH_NIC_FEAT_REDUCE_STRIDED |
					TH_NIC_FEAT_FLOAT_ALU |
					TH_NIC_FEAT_INPROC |
					TH_NIC_FEAT_DOMAIN_FD));
		close(fd);
	}
	/* nodes=16: there is no 17th */
	EXPECT_EQ(-ENOENT, thn_open(THN_NODES));
}

/* The limits are the module parameters, which sysfs shows too. */
TEST(limits_match_module_parameters)
{
	static const struct {
		const char *name;
		unsigned long long want;
	} params[] = {
		{ "nodes", THN_NODES },
		{ "max_vports", THN_DEF_VPORTS },
		{ "max_counters", THN_DEF_COUNTERS },
		{ "max_sq_entries", THN_DEF_SQ },
		{ "max_cq_entries", THN_DEF_CQ },
		{ "max_chain", THN_DEF_CHAIN },
		{ "max_mrs", THN_DEF_MRS },
		{ "max_mr_size", THN_DEF_MR_SIZE },
		{ "max_user_vports", THN_DEF_USER_VPORTS },
		{ "max_user_chains", THN_DEF_USER_CHAINS },
	};
	unsigned long long v;
	char path[96];
	unsigned int i;
	FILE *f;

	for (i = 0; i < ARRAY_SIZE(params); i++) {
		snprintf(path, sizeof(path), "/sys/module/th_nic/parameters/%s",
			 params[i].name);
		f = fopen(path, "r");
		ASSERT_NE(NULL, f) TH_LOG("%s: %s", path, strerror(errno));
		ASSERT_EQ(1, fscanf(f, "%llu", &v));
		fclose(f);
		EXPECT_EQ(params[i].want, v) TH_LOG("%s", params[i].name);
	}
}

FIXTURE(q) {
	int fd;
};

FIXTURE_SETUP(q)
{
	self->fd = thn_open(0);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(q)
{
	close(self->fd);
}

/* One row per malformed header: refused, and nothing written back. */
FIXTURE_VARIANT(q) {
	__u32 size;
	__u32 flags;
};

#define QSZ ((__u32)sizeof(struct th_nic_query))
FIXTURE_VARIANT_ADD(q, size_zero) { .size = 0 };
FIXTURE_VARIANT_ADD(q, size_four) { .size = 4 };
FIXTURE_VARIANT_ADD(q, size_short_by_8) { .size = QSZ - 8 };
FIXTURE_VARIANT_ADD(q, size_short_by_1) { .size = QSZ - 1 };
FIXTURE_VARIANT_ADD(q, flag_bit0) { .size = QSZ, .flags = 1 };
FIXTURE_VARIANT_ADD(q, flag_bit31) { .size = QSZ, .flags = 1U << 31 };

TEST_F(q, malformed_header_is_refused)
{
	struct th_nic_query q;

	memset(&q, 0, sizeof(q));
	q.size = variant->size;
	q.flags = variant->flags;
	EXPECT_EQ(-EINVAL, thn_ioctl(self->fd, TH_NIC_IOCTL_QUERY, &q));
	EXPECT_EQ(0, q.abi_version);
	EXPECT_EQ(0, q.node_count);
}

/* A newer library's larger struct: fine if the tail is zero, else -E2BIG. */
TEST(larger_struct_with_zero_tail_accepted_else_e2big)
{
	struct {
		struct th_nic_query q;
		__u64 extra[4];
	} big;
	int fd = thn_open(3);

	ASSERT_LE(0, fd);
	memset(&big, 0, sizeof(big));
	big.q.size = sizeof(big);
	ASSERT_EQ(0, thn_ioctl(fd, TH_NIC_IOCTL_QUERY, &big));
	EXPECT_EQ(TH_NIC_ABI_VERSION, big.q.abi_version);
	EXPECT_EQ(3, big.q.node_id);
	EXPECT_EQ(THN_NODES, big.q.node_count);
	/* the kernel never writes past the struct it knows */
	EXPECT_EQ(0, big.extra[0] | big.extra[1] | big.extra[2] | big.extra[3]);

	memset(&big, 0, sizeof(big));
	big.q.size = sizeof(big);
	big.extra[3] = 1;
	EXPECT_EQ(-E2BIG, thn_ioctl(fd, TH_NIC_IOCTL_QUERY, &big));
	memset(&big, 0, sizeof(big));
	big.q.size = sizeof(big);
	big.extra[0] = 0x100;
	EXPECT_EQ(-E2BIG, thn_ioctl(fd, TH_NIC_IOCTL_QUERY, &big));
	close(fd);
}

/* A size far beyond any page: refused, not read. */
TEST(huge_size_is_refused)
{
	struct th_nic_query q;
	int fd = thn_open(0), ret;

	ASSERT_LE(0, fd);
	memset(&q, 0, sizeof(q));
	q.size = 1U << 30;
	ret = thn_ioctl(fd, TH_NIC_IOCTL_QUERY, &q);
	/* the extra bytes are unreadable: -EFAULT, or refused outright */
	EXPECT_TRUE(ret == -E2BIG || ret == -EFAULT || ret == -EINVAL)
		TH_LOG("got %d", ret);
	close(fd);
}

TEST(unknown_ioctl_is_enotty)
{
	int fd = thn_open(0);
	__u64 buf[32] = { 0 };

	ASSERT_LE(0, fd);
	EXPECT_EQ(-ENOTTY, thn_ioctl(fd, _IOWR(TH_NIC_IOCTL_MAGIC, 0x3f,
					       struct th_nic_query), buf));
	EXPECT_EQ(-ENOTTY, thn_ioctl(fd, _IO('T', 1), buf));
	close(fd);
}

/* A bad user pointer is -EFAULT, not a crash. */
TEST(bad_pointer_is_efault)
{
	int fd = thn_open(0);

	ASSERT_LE(0, fd);
	EXPECT_EQ(-EFAULT, thn_ioctl(fd, TH_NIC_IOCTL_QUERY, NULL));
	EXPECT_EQ(-EFAULT, thn_ioctl(fd, TH_NIC_IOCTL_QUERY, (void *)8));
	close(fd);
}

TEST_HARNESS_MAIN
