// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * handoff.c - how a rank's doorbell region (bell.c, with its shm rings)
 * reaches its peers on one host, and no one else: the region is a memfd,
 * never named, and the rank hands its descriptor over a UNIX socket to
 * each peer, which must prove with it that it holds the job's key.
 *
 * Why: a region in /dev/shm, even mode 0600 and unlinked once the job had
 * joined, could be opened by any process of the same user while its name
 * existed, which then read what the job sent through it and could write
 * into its rings; so every ring message carried the job's MAC and every
 * reader checked it, about a quarter of a one-host hop (ofi.rst,
 * "Progress").  A descriptor passed only to the ranks of the job leaves
 * the region to them (and to whoever may ptrace them, who has their
 * memory anyway), so a message in a ring is one a rank of the job wrote,
 * and needs no seal (auth.c).
 *
 * The exchange, after the boot's allgather of the socket names: every
 * rank listens on an abstract UNIX socket named at random (no file; the
 * name dies with the socket), connects to each peer's, and sends one
 * request carrying its region's descriptor (SCM_RIGHTS) and a proof,
 * SipHash-2-4 under the job's key of (who, to whom, the listener's
 * random name).  The listener takes a descriptor only from a connection
 * of its own user whose proof verifies, for a rank it has none of yet,
 * and only a region of the expected size whose size is sealed; anything
 * else is closed unread.  Abstract sockets have no permissions, so any
 * local process may connect: it gets nothing back (the listener only
 * receives), and its connection costs a look.  Each rank stops when it
 * has handed its region to every peer and holds each peer's, or at the
 * job's delivery deadline (TH_OFI_TIMEOUT): a peer whose region did not
 * come is sent to through libfabric and not rung, as a peer without
 * rings always was.  Then the socket is closed: nothing reaches the
 * region any more.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "ofi.h"

/* connections a listener keeps open at once, waiting for their request */
#define TH_OFI_HANDOFF_PENDING	64

/* What rank @from sends the listener of rank @to named @nonce: the key's. */
u64 th_ofi_handoff_proof(const struct th_ofi *o, u32 from, u32 to, u64 nonce)
{
	struct th_ofi_handoff_req r = {
		.magic = TH_OFI_HANDOFF_MAGIC, .from = from, .to = to,
		.nonce = nonce,
	};

	return th_ofi_siphash(o->mac_key, &r,
			      offsetof(struct th_ofi_handoff_req, proof));
}

/* The abstract address of the socket named @nonce, and its length. */
socklen_t th_ofi_handoff_addr(struct sockaddr_un *sa, u64 nonce)
{
	int n;

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	/* sun_path[0] stays 0: the abstract namespace, no file */
	n = snprintf(sa->sun_path + 1, sizeof(sa->sun_path) - 1,
		     "thnic-bell-%016llx", (unsigned long long)nonce);
	return offsetof(struct sockaddr_un, sun_path) + 1 + n;
}

/*
 * Listen for this rank's peers: @o->handoff_sock, and in *@nonce the name
 * the boot round hands them.  -errno when there is no socket (the job then
 * runs without doorbells).
 */
int th_ofi_handoff_listen(struct th_ofi *o, u64 *nonce)
{
	struct sockaddr_un sa;
	socklen_t len;
	int fd;

	if (getrandom(nonce, sizeof(*nonce), 0) != sizeof(*nonce))
		return -EAGAIN;
	*nonce |= !*nonce;	/* 0 says "none" in the boot round */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	len = th_ofi_handoff_addr(&sa, *nonce);
	if (bind(fd, (struct sockaddr *)&sa, len) ||
	    listen(fd, o->size < 128 ? 128 : (int)o->size)) {
		int err = -errno;

		close(fd);
		return err;
	}
	o->handoff_sock = fd;
	o->handoff_nonce = *nonce;
	return 0;
}

/* Nothing reaches the region by this rank any more. */
void th_ofi_handoff_close(struct th_ofi *o)
{
	if (o->handoff_sock >= 0)
		close(o->handoff_sock);
	o->handoff_sock = -1;
}

/*
 * Send request @r with descriptor @fd on connected @sock, without waiting:
 * true when it went (the peer reads it when it accepts; the bytes and the
 * descriptor wait in its socket till then).
 */
bool th_ofi_handoff_send_req(int sock, const struct th_ofi_handoff_req *r,
			     int fd)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int))];
	} c;
	struct iovec iov = { .iov_base = (void *)r, .iov_len = sizeof(*r) };
	struct msghdr m = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = c.b, .msg_controllen = sizeof(c.b),
	};
	struct cmsghdr *ch = CMSG_FIRSTHDR(&m);

	memset(&c, 0, sizeof(c));
	ch->cmsg_level = SOL_SOCKET;
	ch->cmsg_type = SCM_RIGHTS;
	ch->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(ch), &fd, sizeof(int));
	return sendmsg(sock, &m, MSG_NOSIGNAL | MSG_DONTWAIT) ==
	       (ssize_t)sizeof(*r);
}

/* This rank's request and @region to the peer listening at @nonce. */
static bool th_ofi_handoff_send(const struct th_ofi *o, int sock, u32 peer,
				u64 nonce, int region)
{
	struct th_ofi_handoff_req r = {
		.magic = TH_OFI_HANDOFF_MAGIC, .from = o->rank, .to = peer,
		.nonce = nonce,
		.proof = th_ofi_handoff_proof(o, o->rank, peer, nonce),
	};

	return th_ofi_handoff_send_req(sock, &r, region);
}

/* Is @fd a region as this rank made its own: @bytes long, its size sealed? */
static bool th_ofi_handoff_fits(int fd, size_t bytes)
{
	struct stat st;
	int seals = fcntl(fd, F_GET_SEALS);

	return seals >= 0 && (seals & (F_SEAL_SHRINK | F_SEAL_GROW)) ==
			     (F_SEAL_SHRINK | F_SEAL_GROW) &&
	       !fstat(fd, &st) && S_ISREG(st.st_mode) &&
	       st.st_uid == geteuid() && (size_t)st.st_size == bytes;
}

/*
 * Read the request on accepted connection @sock: its descriptor when it is
 * a rank's of this job that this rank holds nothing of yet (@fds), with a
 * region of @bytes; else -1; -EAGAIN when nothing came yet.  Every other
 * descriptor it carried is closed.
 */
static int th_ofi_handoff_take(const struct th_ofi *o, int sock, size_t bytes,
			       const int *fds, u32 *from)
{
	struct th_ofi_handoff_req r;
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(4 * sizeof(int))];
	} c;
	struct iovec iov = { .iov_base = &r, .iov_len = sizeof(r) };
	struct msghdr m = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = c.b, .msg_controllen = sizeof(c.b),
	};
	struct cmsghdr *ch;
	int got = -1, fd, i, n;
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	ssize_t len;

	len = recvmsg(sock, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (len < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return -EAGAIN;
	for (ch = len < 0 ? NULL : CMSG_FIRSTHDR(&m); ch;
	     ch = CMSG_NXTHDR(&m, ch)) {
		if (ch->cmsg_level != SOL_SOCKET || ch->cmsg_type != SCM_RIGHTS)
			continue;
		n = (ch->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < n; i++) {
			memcpy(&fd, CMSG_DATA(ch) + i * sizeof(int), sizeof(int));
			if (got < 0)
				got = fd;
			else
				close(fd);
		}
	}
	if (got < 0)
		return -1;
	if (len != sizeof(r) || (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ||
	    getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cred, &clen) ||
	    cred.uid != geteuid() || r.magic != TH_OFI_HANDOFF_MAGIC ||
	    r.to != o->rank || r.from >= o->size || r.from == o->rank ||
	    fds[r.from] >= 0 || r.nonce != o->handoff_nonce ||
	    r.proof != th_ofi_handoff_proof(o, r.from, o->rank, r.nonce) ||
	    !th_ofi_handoff_fits(got, bytes)) {
		close(got);
		return -1;
	}
	*from = r.from;
	return got;
}

/* A connection the listener accepted, waiting for its request. */
struct th_ofi_handoff_conn {
	int sock;
	u64 since;
};

/*
 * The exchange (above): hand @region to each peer whose socket @nonces
 * names (0: none), and take each peer's, a region of @bytes, into @fds
 * (-1 where none came), until both are done or @timeout_ns passed.
 * @o->mac_key is the job's.
 */
void th_ofi_handoff_run(struct th_ofi *o, int region, size_t bytes,
			const u64 *nonces, int *fds, u64 timeout_ns)
{
	struct th_ofi_handoff_conn pend[TH_OFI_HANDOFF_PENDING];
	struct pollfd pfd[1 + TH_OFI_HANDOFF_PENDING];
	u64 deadline = th_ofi_now_ns() + timeout_ns;
	u32 i, npend = 0, want = 0, have = 0, from;
	struct sockaddr_un sa;
	bool *sent;
	int sock, fd, left, ret;

	for (i = 0; i < o->size; i++) {
		fds[i] = -1;
		want += i != o->rank && nonces[i];
	}
	sent = calloc(o->size, sizeof(*sent));
	if (!sent || o->handoff_sock < 0)
		goto out;
	for (i = 0; i < o->size; i++)
		sent[i] = i == o->rank || !nonces[i];
	for (;;) {
		/* hand over: connect, send, close (the peer reads it later) */
		left = 0;
		for (i = 0; i < o->size; i++) {
			if (sent[i])
				continue;
			sock = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK |
				      SOCK_CLOEXEC, 0);
			if (sock < 0) {
				left++;	/* out of descriptors: later */
				break;
			}
			ret = connect(sock, (struct sockaddr *)&sa,
				      th_ofi_handoff_addr(&sa, nonces[i]));
			if (ret && errno == EAGAIN) {
				/* its backlog is full: again on the next pass */
				close(sock);
				left++;
				continue;
			}
			/* refused: the peer's socket is gone, it gets no region */
			if (!ret)
				th_ofi_handoff_send(o, sock, i, nonces[i], region);
			sent[i] = true;
			close(sock);
		}
		/* take: accept what came, read what arrived */
		while (npend < TH_OFI_HANDOFF_PENDING &&
		       (sock = accept4(o->handoff_sock, NULL, NULL,
				       SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0)
			pend[npend++] = (struct th_ofi_handoff_conn){
				.sock = sock, .since = th_ofi_now_ns(),
			};
		for (i = 0; i < npend;) {
			fd = th_ofi_handoff_take(o, pend[i].sock, bytes, fds,
						 &from);
			/* a silent connection keeps its place 100 ms at most */
			if (fd == -EAGAIN &&
			    th_ofi_now_ns() - pend[i].since < 100000000ULL) {
				i++;
				continue;
			}
			if (fd >= 0) {
				fds[from] = fd;
				have++;
			}
			close(pend[i].sock);
			pend[i] = pend[--npend];
		}
		if ((!left && have == want) || th_ofi_now_ns() >= deadline)
			break;
		pfd[0] = (struct pollfd){
			.fd = o->handoff_sock, .events = POLLIN,
		};
		for (i = 0; i < npend; i++)
			pfd[1 + i] = (struct pollfd){
				.fd = pend[i].sock, .events = POLLIN,
			};
		/* a connect that found the backlog full tries again soon */
		poll(pfd, 1 + npend, left ? 1 : 10);
	}
out:
	for (i = 0; i < npend; i++)
		close(pend[i].sock);
	free(sent);
	th_ofi_handoff_close(o);
}
