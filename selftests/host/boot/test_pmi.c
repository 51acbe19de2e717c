// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_pmi.c - the bootstrap under MPICH's mpiexec (lib/libthverbs/boot/
 * pmi.c): th_boot_init() against a fake PMI-1 server on a socketpair,
 * checking every line the client sends (init, maxes, kvsname, the puts of
 * an allgather in pieces of hex, barriers, gets, finalize) and what it
 * makes of the answers: other ranks' bytes, a refused put, a server that
 * goes away, malformed environment.  Real mpiexec runs are in test_ofi.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include <thverbs/boot.h>

#define VALLEN		64	/* the server's vallen_max: 32 bytes a piece */
#define MAX_LINES	32

/* The fake server: answers each command as Hydra does, and keeps it. */
struct pmi_server {
	int fd;
	char lines[MAX_LINES][512];
	int n;
	int put_rc;		/* what a put answers */
	int hang_up_after;	/* close after this many commands (0: never) */
	const unsigned char *peer;	/* rank 0's bytes, for gets */
	size_t peer_len;
};

static int read_line(int fd, char *buf, size_t cap)
{
	size_t n = 0;
	char c;

	while (n + 1 < cap && read(fd, &c, 1) == 1) {
		if (c == '\n') {
			buf[n] = '\0';
			return 0;
		}
		buf[n++] = c;
	}
	return -1;
}

static void say(int fd, const char *s)
{
	if (write(fd, s, strlen(s)) < 0)
		return;
}

static void *serve(void *arg)
{
	struct pmi_server *s = arg;
	char line[512], out[512], *key;
	unsigned int piece, i, off;

	while (s->n < MAX_LINES && !read_line(s->fd, line, sizeof(line))) {
		strcpy(s->lines[s->n++], line);
		if (s->hang_up_after && s->n >= s->hang_up_after)
			break;
		if (!strncmp(line, "cmd=init ", 9)) {
			say(s->fd, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n");
		} else if (!strcmp(line, "cmd=get_maxes")) {
			snprintf(out, sizeof(out),
				 "cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=%d\n",
				 VALLEN);
			say(s->fd, out);
		} else if (!strcmp(line, "cmd=get_my_kvsname")) {
			say(s->fd, "cmd=my_kvsname kvsname=kvs_42_0\n");
		} else if (!strncmp(line, "cmd=put ", 8)) {
			snprintf(out, sizeof(out), "cmd=put_result rc=%d msg=x\n",
				 s->put_rc);
			say(s->fd, out);
		} else if (!strcmp(line, "cmd=barrier_in")) {
			say(s->fd, "cmd=barrier_out\n");
		} else if (!strncmp(line, "cmd=get ", 8)) {
			/* key=th<seq>.0.<piece>: rank 0's bytes, that piece */
			key = strstr(line, "key=th");
			piece = key ? atoi(strrchr(key, '.') + 1) : 0;
			off = snprintf(out, sizeof(out),
				       "cmd=get_result rc=0 msg=success value=");
			for (i = piece * (VALLEN / 2);
			     i < s->peer_len && i < (piece + 1) * (VALLEN / 2); i++)
				off += snprintf(out + off, sizeof(out) - off,
						"%02x", s->peer[i]);
			snprintf(out + off, sizeof(out) - off, "\n");
			say(s->fd, out);
		} else if (!strcmp(line, "cmd=finalize")) {
			say(s->fd, "cmd=finalize_ack\n");
		}
	}
	close(s->fd);
	return NULL;
}

FIXTURE(pmi) {
	struct pmi_server s;
	pthread_t t;
	int client;
};

FIXTURE_SETUP(pmi)
{
	int sv[2];
	char fd[16];

	memset(&self->s, 0, sizeof(self->s));
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	self->s.fd = sv[0];
	self->client = sv[1];
	snprintf(fd, sizeof(fd), "%d", sv[1]);
	unsetenv("TH_BOOT");
	unsetenv("TH_SINGLE");
	unsetenv("TH_THREADS");
	unsetenv("TH_PROVIDER");
	setenv("PMI_FD", fd, 1);
	setenv("PMI_RANK", "1", 1);
	setenv("PMI_SIZE", "2", 1);
	setenv("TH_BOOT_TIMEOUT", "5", 1);
}

FIXTURE_TEARDOWN(pmi)
{
}

static void start(struct __test_metadata *_metadata, FIXTURE_DATA(pmi) *self)
{
	ASSERT_EQ(0, pthread_create(&self->t, NULL, serve, &self->s));
}

/* Rank 1 of 2: the whole conversation, line by line, and rank 0's bytes. */
TEST_F(pmi, an_allgather_speaks_pmi_1_and_gathers_in_pieces)
{
	static const unsigned char zero_s[40] = "rank zero's forty bytes, in two pieces";
	unsigned char mine[40], all[80];
	struct th_boot *b;
	int i;

	for (i = 0; i < 40; i++)
		mine[i] = 0xa0 + i;
	self->s.peer = zero_s;
	self->s.peer_len = 40;
	start(_metadata, self);
	b = th_boot_init();
	ASSERT_NE(NULL, b);
	EXPECT_EQ(1, th_boot_rank(b));
	EXPECT_EQ(2, th_boot_size(b));
	ASSERT_EQ(0, th_boot_allgather(b, mine, all, 40));
	EXPECT_EQ(0, memcmp(all, zero_s, 40));
	EXPECT_EQ(0, memcmp(all + 40, mine, 40));
	ASSERT_EQ(0, th_boot_barrier(b));
	th_boot_fini(b);
	pthread_join(self->t, NULL);

	ASSERT_EQ(10, self->s.n);
	EXPECT_STREQ("cmd=init pmi_version=1 pmi_subversion=1", self->s.lines[0]);
	EXPECT_STREQ("cmd=get_maxes", self->s.lines[1]);
	EXPECT_STREQ("cmd=get_my_kvsname", self->s.lines[2]);
	/* 40 bytes in pieces of 32 and 8, in hex */
	EXPECT_STREQ("cmd=put kvsname=kvs_42_0 key=th0.1.0 value="
		     "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf",
		     self->s.lines[3]);
	EXPECT_STREQ("cmd=put kvsname=kvs_42_0 key=th0.1.1 value=c0c1c2c3c4c5c6c7",
		     self->s.lines[4]);
	EXPECT_STREQ("cmd=barrier_in", self->s.lines[5]);
	EXPECT_STREQ("cmd=get kvsname=kvs_42_0 key=th0.0.0", self->s.lines[6]);
	EXPECT_STREQ("cmd=get kvsname=kvs_42_0 key=th0.0.1", self->s.lines[7]);
	/* a barrier is a PMI barrier, the next allgather's keys are new */
	EXPECT_STREQ("cmd=barrier_in", self->s.lines[8]);
	EXPECT_STREQ("cmd=finalize", self->s.lines[9]);
}

/* A put the server refuses fails the allgather, and every call after it. */
TEST_F(pmi, a_refused_put_fails_the_allgather)
{
	unsigned char mine[4] = { 1, 2, 3, 4 }, all[8];
	struct th_boot *b;

	self->s.put_rc = -1;
	start(_metadata, self);
	b = th_boot_init();
	ASSERT_NE(NULL, b);
	EXPECT_EQ(-EIO, th_boot_allgather(b, mine, all, 4));
	EXPECT_EQ(-EIO, th_boot_barrier(b));
	th_boot_fini(b);
	pthread_join(self->t, NULL);
}

/* mpiexec going away mid-call ends it at once, not at the timeout. */
TEST_F(pmi, the_server_going_away_ends_the_call)
{
	unsigned char mine[4] = { 0 }, all[8];
	struct th_boot *b;

	self->s.hang_up_after = 4;	/* init, maxes, kvsname, then the put */
	start(_metadata, self);
	b = th_boot_init();
	ASSERT_NE(NULL, b);
	EXPECT_EQ(-ECONNRESET, th_boot_allgather(b, mine, all, 4));
	th_boot_fini(b);
	pthread_join(self->t, NULL);
}

/* A rank outside the job, or no answer to init: no handle, and why. */
TEST_F(pmi, a_malformed_environment_or_silent_server_is_refused)
{
	struct th_boot *b;

	setenv("PMI_RANK", "2", 1);
	errno = 0;
	b = th_boot_init();
	EXPECT_EQ(NULL, b);
	EXPECT_EQ(EINVAL, errno);
	setenv("PMI_RANK", "0", 1);
	self->s.hang_up_after = 1;	/* hears init, answers nothing */
	start(_metadata, self);
	errno = 0;
	b = th_boot_init();
	EXPECT_EQ(NULL, b);
	EXPECT_EQ(ECONNRESET, errno);
	pthread_join(self->t, NULL);
}

TEST_HARNESS_MAIN
