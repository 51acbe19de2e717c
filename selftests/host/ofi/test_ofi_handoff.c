// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_ofi_handoff.c - how a rank's doorbell region reaches its peers
 * (providers/ofi/handoff.c), without a job: ranks are threads of this
 * process, each with its own struct th_ofi, its region a sealed memfd.
 * Ranks of one job hand each other their regions (the same file, its
 * bytes shared); and a listener takes nothing from a connection that
 * does not prove the job's key for it (another key, a proof for another
 * rank or another listener, another user's), nor a second region for a
 * rank, nor a region of another size or whose size is not sealed, and
 * silent connections do not keep a rank out.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "ofi.h"

#define RANKS	3
#define BYTES	8192

/* what handoff.c takes from net.c */
u64 th_ofi_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* A region as bell.c makes one: @bytes, its size sealed when @sealed. */
static int region(size_t bytes, bool sealed)
{
	int fd = memfd_create("thnic-bell", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0 || ftruncate(fd, bytes) ||
	    (sealed && fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* One rank: its provider's state, its region, what it took. */
struct rank {
	struct th_ofi o;
	int region;
	u64 *nonces;
	int fds[RANKS];
	u64 timeout_ns;
};

static void *rank_run(void *arg)
{
	struct rank *r = arg;

	th_ofi_handoff_run(&r->o, r->region, BYTES, r->nonces, r->fds,
			   r->timeout_ns);
	return NULL;
}

FIXTURE(handoff) {
	struct rank rk[RANKS];
	u64 nonces[RANKS];
	int nranks;
};

FIXTURE_SETUP(handoff)
{
	int r, i;

	memset(self->rk, 0, sizeof(self->rk));
	self->nranks = RANKS;
	for (r = 0; r < RANKS; r++) {
		struct rank *rk = &self->rk[r];

		rk->o.rank = r;
		rk->o.size = RANKS;
		rk->o.handoff_sock = -1;
		for (i = 0; i < TH_OFI_KEY_LEN; i++)
			rk->o.mac_key[i] = 0xa5 ^ i;
		rk->region = region(BYTES, true);
		ASSERT_LE(0, rk->region);
		ASSERT_EQ(0, th_ofi_handoff_listen(&rk->o, &self->nonces[r]));
		ASSERT_NE(0, self->nonces[r]);
		rk->nonces = self->nonces;
		rk->timeout_ns = 5000000000ULL;
	}
}

FIXTURE_TEARDOWN(handoff)
{
	int r, i;

	for (r = 0; r < RANKS; r++) {
		th_ofi_handoff_close(&self->rk[r].o);
		close(self->rk[r].region);
		for (i = 0; i < RANKS; i++)
			if (self->rk[r].fds[i] >= 0 && i != r)
				close(self->rk[r].fds[i]);
	}
}

/* Run ranks [0, @n) at once, each in a thread; wait for all. */
static void run_ranks(FIXTURE_DATA(handoff) *self, int n)
{
	pthread_t t[RANKS];
	int r;

	for (r = 0; r < n; r++)
		pthread_create(&t[r], NULL, rank_run, &self->rk[r]);
	for (r = 0; r < n; r++)
		pthread_join(t[r], NULL);
}

/* Does @fd name the same file as @want? */
static bool same_file(int fd, int want)
{
	struct stat a, b;

	return fd >= 0 && !fstat(fd, &a) && !fstat(want, &b) &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/*
 * Send a request as rank @from to rank @to's socket, with @fd, for the
 * listener named @nonce, and its proof made under @prover's key for
 * (@from, @proof_to, @nonce) (none without @prover); the connection, left
 * open (-1 if it could not be made).  With @fd -1, connect only.
 */
static int impostor(FIXTURE_DATA(handoff) *self, const struct th_ofi *prover,
		    u32 from, u32 to, u32 proof_to, u64 nonce, int fd)
{
	struct th_ofi_handoff_req r = {
		.magic = TH_OFI_HANDOFF_MAGIC, .from = from, .to = to,
		.nonce = nonce,
	};
	struct sockaddr_un sa;
	int sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (prover)
		r.proof = th_ofi_handoff_proof(prover, from, proof_to, nonce);
	if (sock < 0 || connect(sock, (struct sockaddr *)&sa,
				th_ofi_handoff_addr(&sa, self->nonces[to]))) {
		if (sock >= 0)
			close(sock);
		return -1;
	}
	/* with fd -1: a silent connection */
	if (fd >= 0 && !th_ofi_handoff_send_req(sock, &r, fd)) {
		close(sock);
		return -1;
	}
	return sock;
}

/* Every rank holds every peer's region: the same file, the same bytes. */
TEST_F(handoff, the_ranks_of_a_job_hand_each_other_their_regions)
{
	volatile u8 *mine, *theirs;
	int r, i;

	run_ranks(self, RANKS);
	for (r = 0; r < RANKS; r++) {
		EXPECT_EQ(-1, self->rk[r].fds[r]);
		for (i = 0; i < RANKS; i++)
			if (i != r)
				EXPECT_TRUE(same_file(self->rk[r].fds[i],
						      self->rk[i].region));
		/* the socket is closed: nobody reaches the region by it */
		EXPECT_EQ(-1, self->rk[r].o.handoff_sock);
	}
	/* a byte rank 2 writes into rank 0's region, as rank 0 maps it */
	mine = mmap(NULL, BYTES, PROT_READ | PROT_WRITE, MAP_SHARED,
		    self->rk[0].region, 0);
	theirs = mmap(NULL, BYTES, PROT_READ | PROT_WRITE, MAP_SHARED,
		      self->rk[2].fds[0], 0);
	ASSERT_NE(MAP_FAILED, mine);
	ASSERT_NE(MAP_FAILED, theirs);
	theirs[4100] = 0x3d;
	EXPECT_EQ(0x3d, mine[4100]);
	munmap((void *)mine, BYTES);
	munmap((void *)theirs, BYTES);
}

/*
 * Rank 0 waits for rank 1 only; what comes instead, each as rank 1 with a
 * region of the right size: a proof under another key, a proof of rank 1
 * for rank 2, a request (and its proof) for rank 0 of another listener.
 * Rank 0 takes none, keeps none of their descriptors, and ends at its
 * deadline.
 */
TEST_F(handoff, a_connection_that_does_not_prove_the_key_gets_no_region_in)
{
	struct th_ofi other = self->rk[1].o;
	int socks[3], fds_before, fds_after, i;
	struct stat st;
	char path[64];

	for (i = 0; i < TH_OFI_KEY_LEN; i++)
		other.mac_key[i] ^= 0x01;
	self->nonces[2] = 0;	/* rank 0 waits for rank 1 alone */
	self->rk[0].timeout_ns = 300000000ULL;
	socks[0] = impostor(self, &other, 1, 0, 0, self->nonces[0],
			    self->rk[1].region);
	socks[1] = impostor(self, &self->rk[1].o, 1, 0, 2, self->nonces[0],
			    self->rk[1].region);
	socks[2] = impostor(self, &self->rk[1].o, 1, 0, 0, self->nonces[1],
			    self->rk[1].region);
	for (i = 0; i < 3; i++)
		ASSERT_LE(0, socks[i]);
	for (fds_before = 0, i = 0; i < 1024; i++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", i);
		fds_before += !stat(path, &st);
	}
	run_ranks(self, 1);
	for (fds_after = 0, i = 0; i < 1024; i++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", i);
		fds_after += !stat(path, &st);
	}
	EXPECT_EQ(-1, self->rk[0].fds[1]);
	EXPECT_EQ(-1, self->rk[0].fds[2]);
	/* the three connections closed and their descriptors with them */
	EXPECT_EQ(fds_before - 1, fds_after);	/* its own socket, closed */
	for (i = 0; i < 3; i++)
		close(socks[i]);
}

/*
 * With the right proof, a region of another size, and one whose size is
 * not sealed (its holder could shrink it under the others): not taken.
 */
TEST_F(handoff, a_region_of_another_size_or_unsealed_is_not_taken)
{
	int small = region(BYTES / 2, true), loose = region(BYTES, false);
	int socks[2], i;

	ASSERT_LE(0, small);
	ASSERT_LE(0, loose);
	self->nonces[2] = 0;
	self->rk[0].timeout_ns = 300000000ULL;
	socks[0] = impostor(self, &self->rk[1].o, 1, 0, 0, self->nonces[0],
			    small);
	socks[1] = impostor(self, &self->rk[1].o, 1, 0, 0, self->nonces[0],
			    loose);
	for (i = 0; i < 2; i++)
		ASSERT_LE(0, socks[i]);
	run_ranks(self, 1);
	EXPECT_EQ(-1, self->rk[0].fds[1]);
	/* the same request with the region as made: taken */
	close(self->rk[0].region);
	self->rk[0].region = region(BYTES, true);
	ASSERT_EQ(0, th_ofi_handoff_listen(&self->rk[0].o, &self->nonces[0]));
	i = impostor(self, &self->rk[1].o, 1, 0, 0, self->nonces[0],
		     self->rk[1].region);
	ASSERT_LE(0, i);
	run_ranks(self, 1);
	EXPECT_TRUE(same_file(self->rk[0].fds[1], self->rk[1].region));
	close(i);
	close(socks[0]);
	close(socks[1]);
	close(small);
	close(loose);
}

/*
 * Connections that send nothing, more than a listener keeps waiting at
 * once, do not keep the rank out: each is dropped after a while.
 */
TEST_F(handoff, silent_connections_do_not_keep_a_rank_out)
{
	int socks[70], r, i;

	self->nonces[2] = 0;
	for (i = 0; i < 70; i++) {
		socks[i] = impostor(self, NULL, 1, 0, 0, 0, -1);
		ASSERT_LE(0, socks[i]);
	}
	run_ranks(self, 2);
	for (r = 0; r < 2; r++)
		EXPECT_TRUE(same_file(self->rk[r].fds[1 - r],
				      self->rk[1 - r].region));
	for (i = 0; i < 70; i++)
		close(socks[i]);
}

/* Two requests as rank 1, both proved: the first region is kept, not both. */
TEST_F(handoff, a_rank_is_taken_once)
{
	int other = region(BYTES, true), socks[2];

	ASSERT_LE(0, other);
	self->nonces[2] = 0;
	self->rk[0].timeout_ns = 300000000ULL;
	socks[0] = impostor(self, &self->rk[1].o, 1, 0, 0, self->nonces[0],
			    self->rk[1].region);
	socks[1] = impostor(self, &self->rk[1].o, 1, 0, 0, self->nonces[0],
			    other);
	ASSERT_LE(0, socks[0]);
	ASSERT_LE(0, socks[1]);
	run_ranks(self, 1);
	EXPECT_TRUE(same_file(self->rk[0].fds[1], self->rk[1].region));
	EXPECT_EQ(-1, self->rk[0].fds[2]);
	close(socks[0]);
	close(socks[1]);
	close(other);
}

/*
 * A process of another user that knows everything (the key, the name, a
 * region of this user's): refused on its credentials alone.  Root only:
 * the child becomes uid 65534.
 */
TEST_F(handoff, a_connection_of_another_user_gets_no_region_in)
{
	int st, sock;
	pid_t pid;

	if (geteuid())
		SKIP(return, "needs root, to connect as another user");
	self->nonces[2] = 0;
	self->rk[0].timeout_ns = 300000000ULL;
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(2);
		sock = impostor(self, &self->rk[1].o, 1, 0, 0, self->nonces[0],
				self->rk[1].region);
		if (sock < 0)
			_exit(3);
		sleep(1);	/* the connection stays while rank 0 looks */
		_exit(0);
	}
	run_ranks(self, 1);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFEXITED(st));
	ASSERT_EQ(0, WEXITSTATUS(st));
	EXPECT_EQ(-1, self->rk[0].fds[1]);
}

TEST_HARNESS_MAIN
