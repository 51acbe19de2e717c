// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * share.c - th_boot_init_allgather(..., "kernel"): the ranks of a job that
 * no thrun started (an MPI job's processes, for one) take up one th_nic
 * domain, so that their vports reach each other and no other job's, as
 * thrun's do.  Rank 0 allocates it and hands its descriptor to every
 * other rank over a UNIX socket in a directory only its user can enter;
 * the caller's allgather carries the socket's path and a one-job token.
 *
 * Every rank takes every round with its error so far (th_boot_agree()),
 * so a rank that fails ends the join on all of them instead of leaving
 * them waiting; and a rank connects before the round that says whether
 * all could, so rank 0 accepts only connections already made and no
 * wait on the socket outlives rank 0 or the boot timeout.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <thverbs/verbs.h>
#include "boot_priv.h"

/*
 * How long rank 0 waits for one connection's ask.  Every rank's ask was
 * queued before the round that lets rank 0 serve, so only a connection
 * that is not one of the job's (the same user's, the directory is 0700)
 * waits this long, and it holds up nobody: all are polled at once.
 */
#define TH_SHARE_ASK_MS		2000
/* Connections read at once; more wait in the backlog. */
#define TH_SHARE_POLL_MAX	64

/* Rank 0's half of the first round: where and how to ask for the domain. */
struct th_share_offer {
	int32_t err;
	uint32_t have_kernel;	/* every rank's: th_nic.ko is loaded here */
	struct th_boot_where where;
	uint8_t token[TH_SHARE_TOKEN_LEN];
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
};

struct th_share {
	struct th_boot *b;
	int64_t deadline;
	int lfd;		/* rank 0: the listening socket */
	int cfd;		/* other ranks: the connection to rank 0 */
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];	/* rank 0's */
	char sock[sizeof(((struct sockaddr_un *)0)->sun_path)];	/* in dir */
	struct th_share_offer offer;
};

/* A new domain on the first kernel node: its descriptor, or -errno. */
static int th_share_domain_alloc(void)
{
	struct th_device **devs;
	struct th_context *ctx = NULL;
	struct th_domain *d = NULL;
	int n = 0, fd = -ENODEV;

	devs = th_device_list_get("kernel", &n);
	if (!devs)
		return -errno;
	if (n)
		ctx = th_device_open(devs[0]);
	if (n && !ctx)
		fd = -errno;
	if (ctx)
		d = th_domain_alloc(ctx);
	if (ctx && !d)
		fd = -errno;
	/* our own descriptor: the domain lives while one is open */
	if (d) {
		fd = fcntl(th_domain_fd(d), F_DUPFD_CLOEXEC, 0);
		if (fd < 0)
			fd = -errno;
		th_domain_dealloc(d);
	}
	if (ctx)
		th_device_close(ctx);
	th_device_list_free(devs);
	return fd;
}

/* Is the module here?  Every rank asks, so each can say why not. */
static int th_share_have_kernel(void)
{
	struct th_device **devs;
	int n = 0;

	devs = th_device_list_get("kernel", &n);
	if (!devs)
		return -errno;
	th_device_list_free(devs);
	return n ? 0 : -ENODEV;
}

/* Rank 0: a listening socket in a fresh directory of mode 0700. */
static int th_share_listen(struct th_share *s)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *tmp = getenv("TMPDIR");
	int n;

	if (!tmp || !*tmp || strlen(tmp) > 64)
		tmp = "/tmp";
	snprintf(s->dir, sizeof(s->dir), "%s/th_boot.XXXXXX", tmp);
	if (!mkdtemp(s->dir)) {
		s->dir[0] = '\0';
		return -errno;
	}
	n = snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/domain.sock",
		     s->dir);
	if (n < 0 || (size_t)n >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	s->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s->lfd < 0)
		return -errno;
	/* every other rank's connection waits in the backlog until round 2 */
	if (bind(s->lfd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(s->lfd, s->b->size))
		return -errno;
	memcpy(s->sock, sa.sun_path, sizeof(sa.sun_path));
	memcpy(s->offer.path, sa.sun_path, sizeof(sa.sun_path));
	if (getrandom(s->offer.token, sizeof(s->offer.token), 0) !=
	    sizeof(s->offer.token))
		return -EAGAIN;
	return 0;
}

/*
 * Rank 0, at the end: the socket and its directory go.  Closing the
 * listener also resets any connection still in its backlog.
 */
static void th_share_unlisten(struct th_share *s)
{
	if (s->lfd >= 0)
		close(s->lfd);
	s->lfd = -1;
	if (!s->dir[0])
		return;		/* not rank 0, or nothing made */
	unlink(s->sock);
	rmdir(s->dir);
	s->dir[0] = '\0';
}

/* Another rank: connect to rank 0's socket and ask, before round 2. */
static int th_share_ask(struct th_share *s)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct th_share_ask ask = { .rank = s->b->rank };

	memcpy(sa.sun_path, s->offer.path, sizeof(sa.sun_path) - 1);
	memcpy(ask.token, s->offer.token, sizeof(ask.token));
	s->cfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s->cfd < 0)
		return -errno;
	/*
	 * A UNIX connect completes into the backlog without rank 0 taking
	 * part; EAGAIN would mean the backlog of size entries is full, which
	 * only connections of someone else can do: a failure, not a wait.
	 */
	if (connect(s->cfd, (struct sockaddr *)&sa, sizeof(sa)))
		return -errno;
	return th_boot_send_all(s->cfd, &ask, sizeof(ask), s->deadline);
}

/* Rank 0: the descriptor, with one byte, over @fd. */
static int th_share_send_fd(int fd, int domain_fd)
{
	char ctl[CMSG_SPACE(sizeof(int))] = { 0 };
	char byte = 'D';
	struct iovec iov = { &byte, 1 };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &domain_fd, sizeof(int));
	/* one byte into an empty socket buffer: it never blocks */
	if (sendmsg(fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) != 1)
		return -errno;
	return 0;
}

/* One accepted connection, until its ask is read or its time is up. */
struct th_share_conn {
	int fd;
	size_t got;
	int64_t by;		/* its deadline, ms */
	struct th_share_ask ask;
};

/*
 * Read what @c has sent.  0: not all of it yet; 1: the ask is complete;
 * -1: it closed or failed (close it).
 */
static int th_share_conn_read(struct th_share_conn *c)
{
	ssize_t n;

	n = recv(c->fd, (char *)&c->ask + c->got, sizeof(c->ask) - c->got,
		 MSG_DONTWAIT);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	if (n == 0)
		return -1;
	c->got += n;
	return c->got == sizeof(c->ask);
}

/*
 * Rank 0, once every rank said it asked: serve each rank once.  Every
 * connection is polled at once, each with TH_SHARE_ASK_MS to say its ask:
 * anything else in the backlog (a connection of the same user that is not
 * one of the job's, silent or wrong) is closed unserved, and holds up the
 * job's own for no more than that.  A rank that asked and is gone when
 * served fails the join at once, not at the deadline.
 */
int th_boot_share_serve(int lfd, const uint8_t *token, int size,
			int domain_fd, int64_t deadline)
{
	struct th_share_conn conns[TH_SHARE_POLL_MAX];
	struct pollfd pfd[TH_SHARE_POLL_MAX + 1];
	int left = size - 1, nconn = 0, ret = 0, i, n, off, fd, r;
	int64_t now, next;
	bool *served = calloc(size, sizeof(*served));

	if (!served)
		return -ENOMEM;
	while (left && !ret) {
		now = th_boot_now_ms();
		/* a connection whose time is up goes */
		for (i = 0; i < nconn; i++) {
			if (conns[i].by > now)
				continue;
			close(conns[i].fd);
			conns[i--] = conns[--nconn];
		}
		if (deadline >= 0 && now >= deadline) {
			ret = -ETIMEDOUT;
			break;
		}
		next = deadline;
		for (i = 0; i < nconn; i++)
			if (next < 0 || conns[i].by < next)
				next = conns[i].by;
		n = 0;
		if (nconn < TH_SHARE_POLL_MAX)
			pfd[n++] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		for (i = 0; i < nconn; i++)
			pfd[n++] = (struct pollfd){ .fd = conns[i].fd,
						    .events = POLLIN };
		r = poll(pfd, n, next < 0 ? -1 : (int)(next - now));
		if (r < 0 && errno != EINTR) {
			ret = -errno;
			break;
		}
		if (r <= 0)
			continue;
		/* from the last: removing one moves the last into its place */
		off = n - nconn;
		for (i = nconn - 1; i >= 0 && !ret; i--) {
			if (!pfd[off + i].revents)
				continue;
			r = th_share_conn_read(&conns[i]);
			if (!r)
				continue;
			if (r > 0 && !memcmp(conns[i].ask.token, token,
					     TH_SHARE_TOKEN_LEN) &&
			    conns[i].ask.rank &&
			    conns[i].ask.rank < (uint32_t)size &&
			    !served[conns[i].ask.rank]) {
				ret = th_share_send_fd(conns[i].fd, domain_fd);
				served[conns[i].ask.rank] = !ret;
				left -= !ret;
			}
			close(conns[i].fd);
			conns[i] = conns[--nconn];
		}
		while (!ret && nconn < TH_SHARE_POLL_MAX) {
			fd = accept4(lfd, NULL, NULL,
				     SOCK_CLOEXEC | SOCK_NONBLOCK);
			if (fd < 0) {
				if (errno != EAGAIN && errno != EINTR &&
				    errno != ECONNABORTED)
					ret = -errno;
				break;
			}
			conns[nconn++] = (struct th_share_conn){
				.fd = fd, .by = th_boot_now_ms() + TH_SHARE_ASK_MS,
			};
		}
	}
	for (i = 0; i < nconn; i++)
		close(conns[i].fd);
	free(served);
	return ret;
}

/* Another rank: the descriptor rank 0 sends. */
static int th_share_receive(struct th_share *s, int *domain_fd)
{
	char byte;
	int ret;

	ret = th_boot_recv_all(s->cfd, &byte, 1, s->deadline, domain_fd);
	if (!ret && (byte != 'D' || *domain_fd < 0))
		ret = -EPROTO;
	return ret;
}

/*
 * The rounds: (1) every rank's where and error, rank 0's offer; (2) did
 * every rank connect and ask; (3) did every rank get the descriptor.
 * With @only_if_here (provider "auto"), 1 when round 1 shows the ranks
 * are not all on one host with the module loaded: every rank sees the
 * same round, so all decide alike, and the caller joins another network.
 */
int th_boot_share_kernel_domain(struct th_boot *b, bool only_if_here,
				int err0)
{
	struct th_share s = { .b = b, .lfd = -1, .cfd = -1 };
	struct th_share_offer *all = NULL;
	int domain_fd = -1, err, ret, i;
	bool here;

	s.deadline = th_boot_deadline(b);
	th_boot_where(&s.offer.where);
	err = th_share_have_kernel();
	s.offer.have_kernel = !err;
	if (only_if_here && err == -ENODEV)
		err = 0;	/* not an error: round 1 decides */
	if (err0)
		err = err0;
	if (!err && s.offer.have_kernel && !b->rank) {
		domain_fd = th_share_domain_alloc();
		err = domain_fd < 0 ? domain_fd :
		      b->size > 1 ? th_share_listen(&s) : 0;
	}
	s.offer.err = err;
	all = calloc(b->size, sizeof(*all));
	if (!all) {
		/* without the round the others would wait: the job is over */
		ret = th_boot_fail(b, -ENOMEM);
		goto out;
	}
	ret = th_boot_allgather(b, &s.offer, all, sizeof(*all));
	if (ret)
		goto out;
	here = true;
	for (i = 0; i < b->size; i++)
		here = here && all[i].have_kernel && all[i].where.boot_id[0] &&
		       !strcmp(all[i].where.boot_id, all[0].where.boot_id);
	if (only_if_here && !here) {
		ret = 1;
		goto out;
	}
	for (i = 0; !err && i < b->size; i++)
		err = all[i].err ? all[i].err :
		      !all[i].have_kernel ? -ENODEV :
		      !here ? -EXDEV : 0;	/* the fabric is one kernel's */
	if (b->size == 1) {
		ret = err;
		goto out;
	}
	s.offer = all[0];
	if (!err && b->rank)
		err = th_share_ask(&s);
	ret = err = th_boot_agree(b, err);
	if (!err && !b->rank)
		err = th_boot_share_serve(s.lfd, s.offer.token, b->size,
					  domain_fd, s.deadline);
	th_share_unlisten(&s);
	if (!err && b->rank)
		err = th_share_receive(&s, &domain_fd);
	if (!ret)
		ret = th_boot_agree(b, err);
out:
	th_share_unlisten(&s);
	if (s.cfd >= 0)
		close(s.cfd);
	free(all);
	if (!ret)
		b->domain_fd = domain_fd;
	else if (domain_fd >= 0)
		close(domain_fd);
	return ret;
}
