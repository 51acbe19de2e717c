// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * rendezvous.c - the bootstrap rendezvous thrun serves to its ranks: the
 * listening socket (UNIX, or TCP with the job's key under --hosts), the
 * connections with their output queues, HELLO and WELCOME, and the
 * allgather rounds (lib/libthverbs/boot/boot_proto.h is the protocol).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "thrun.h"

void rbuf_put(struct rbuf *rb)
{
	if (rb && !--rb->refs)
		free(rb);
}

void conn_close(int ci)
{
	struct conn *c = &job.conns[ci];

	while (c->qlen) {
		rbuf_put(c->q[c->qhead].data);
		c->qhead = (c->qhead + 1) % THRUN_OUTQ;
		c->qlen--;
	}
	if (c->rank >= 0 && job.ranks[c->rank].conn == ci)
		job.ranks[c->rank].conn = -1;
	close(c->fd);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->rank = -1;
}

void conn_queue(struct conn *c, uint32_t type, int err,
		struct rbuf *data)
{
	struct out_item *o;

	if (c->qlen == THRUN_OUTQ) {	/* cannot happen: one request at a time */
		c->closing = true;
		return;
	}
	o = &c->q[(c->qhead + c->qlen++) % THRUN_OUTQ];
	memset(o, 0, sizeof(*o));
	o->hdr.magic = TH_BOOT_MAGIC;
	o->hdr.type = type;
	o->hdr.rank = c->rank < 0 ? 0 : c->rank;
	o->hdr.seq = job.round.seq;
	o->hdr.err = err;
	if (data) {
		o->hdr.len = data->len;
		o->data = data;
		data->refs++;
	}
}

/*
 * Send the first bytes of a WELCOME with the job's domain descriptor
 * attached (SCM_RIGHTS travels with the byte it was sent with).
 */
static ssize_t conn_send_domain(struct conn *c, const void *p, size_t n)
{
	char ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { (void *)p, n };
	struct msghdr m = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);

	memset(ctl, 0, sizeof(ctl));
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &job.domain_fd, sizeof(int));
	return sendmsg(c->fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
}

/* Send what the socket takes; false when the connection is dead. */
bool conn_flush(struct conn *c)
{
	while (c->qlen) {
		struct out_item *o = &c->q[c->qhead];
		size_t hl = sizeof(o->hdr);
		size_t total = hl + (o->data ? o->data->len : 0);
		const void *p;
		size_t n;
		ssize_t w;

		if (o->off < hl) {
			p = (const char *)&o->hdr + o->off;
			n = hl - o->off;
		} else {
			p = o->data->data + (o->off - hl);
			n = total - o->off;
		}
		if (!o->off && o->hdr.type == TH_BOOT_WELCOME &&
		    (o->hdr.err & TH_BOOT_WELCOME_DOMAIN))
			w = conn_send_domain(c, p, n);
		else
			w = send(c->fd, p, n, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (w < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK ||
			    errno == EINTR)
				return true;
			return false;
		}
		o->off += w;
		if (o->off == total) {
			rbuf_put(o->data);
			c->qhead = (c->qhead + 1) % THRUN_OUTQ;
			c->qlen--;
		}
	}
	return true;
}

/* A rank that can no longer join: fail if others wait for it. */
void round_check_gone(void)
{
	int i;

	if (!job.round.open)
		return;
	for (i = 0; i < job.nranks; i++) {
		struct rank *r = &job.ranks[i];

		if (r->exited && !r->contributed)
			job_fail(ECONNRESET,
				 "rank %d (pid %d) exited without joining rendezvous round %u",
				 i, (int)r->pid, job.round.seq);
	}
}

static void round_complete(void)
{
	struct round *rd = &job.round;
	int i;

	for (i = 0; i < job.nranks; i++) {
		struct rank *r = &job.ranks[i];

		r->contributed = false;
		if (r->conn >= 0)
			conn_queue(&job.conns[r->conn], TH_BOOT_RESULT, 0,
				   rd->buf);
	}
	rbuf_put(rd->buf);
	rd->buf = NULL;
	rd->open = false;
	rd->count = 0;
	rd->seq++;
}

/* A GATHER header arrived: join or open the round.  false: drop conn. */
static bool round_join(struct conn *c)
{
	struct round *rd = &job.round;
	struct rank *r = &job.ranks[c->rank];
	uint64_t len = c->in.len;

	if (r->contributed) {
		job_fail(EPROTO, "rank %d: two contributions to rendezvous round %u",
			 c->rank, rd->seq);
		return false;
	}
	if (!rd->open) {
		if (len > TH_BOOT_MAX_GATHER / job.nranks) {
			job_fail(EMSGSIZE,
				 "rank %d: rendezvous round %u of %llu bytes per rank is too large",
				 c->rank, rd->seq, (unsigned long long)len);
			return false;
		}
		rd->buf = malloc(sizeof(*rd->buf) + len * job.nranks);
		if (!rd->buf) {
			job_fail(ENOMEM, "out of memory for rendezvous round %u",
				 rd->seq);
			return false;
		}
		rd->buf->refs = 1;
		rd->buf->len = len * job.nranks;
		rd->len = len;
		rd->open = true;
		round_check_gone();
		if (job.state != JOB_RUNNING)
			return false;
	} else if (len != rd->len) {
		job_fail(EPROTO,
			 "rendezvous round %u: rank %d gave %llu bytes where others gave %llu",
			 rd->seq, c->rank, (unsigned long long)len,
			 (unsigned long long)rd->len);
		return false;
	}
	c->in_payload = true;
	c->pay_got = 0;
	return true;
}

static void round_contributed(struct conn *c)
{
	job.ranks[c->rank].contributed = true;
	c->in_payload = false;
	c->in_got = 0;
	if (++job.round.count == (unsigned int)job.nranks)
		round_complete();
}

/*
 * A TCP connection that is not one of the job's ranks: ABORT with @err
 * and close, said on stderr (up to THRUN_REFUSALS_SAID times, so that a
 * stranger cannot fill it); the job goes on.
 */
void conn_refuse(struct conn *c, int err, const char *why)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned int port = 0;

	if (err) {
		conn_queue(c, TH_BOOT_ABORT, err, NULL);
		c->closing = true;
	}
	if (job.refused++ >= THRUN_REFUSALS_SAID)
		return;
	if (!getpeername(c->fd, (struct sockaddr *)&ss, &sl)) {
		if (ss.ss_family == AF_INET) {
			struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

			inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
			port = ntohs(s4->sin_port);
		} else if (ss.ss_family == AF_INET6) {
			struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

			inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
			port = ntohs(s6->sin6_port);
		}
	}
	th_msg("refused a rendezvous connection from %s port %u: %s%s", host,
	       port, why, job.refused == THRUN_REFUSALS_SAID ?
	       " (further refusals are not reported)" : "");
}

/* The job's key, compared in constant time: no byte-by-byte oracle. */
static bool key_matches(const unsigned char *key)
{
	unsigned char diff = 0;
	int i;

	for (i = 0; i < TH_BOOT_KEY_LEN; i++)
		diff |= key[i] ^ job.key[i];
	return !diff;
}

static void conn_hello(struct conn *c)
{
	uint32_t rank = c->in.rank;

	/* on TCP, only who holds the key is a rank: the rest is the network */
	if (job.hosts && c->rank < 0 &&
	    (c->in.len != TH_BOOT_KEY_LEN || !key_matches(c->key))) {
		conn_refuse(c, EACCES, c->in.len ? "wrong key" : "no key");
		return;
	}
	c->hello_by = 0;
	if (c->rank >= 0 || c->in.size != (uint32_t)job.nranks ||
	    rank >= (uint32_t)job.nranks) {
		conn_queue(c, TH_BOOT_ABORT, EINVAL, NULL);
		c->closing = true;
		return;
	}
	if (job.ranks[rank].conn >= 0) {
		conn_queue(c, TH_BOOT_ABORT, EBUSY, NULL);
		c->closing = true;
		return;
	}
	c->rank = rank;
	job.ranks[rank].conn = c - job.conns;
	job.ranks[rank].dropped_at = 0;
	conn_queue(c, TH_BOOT_WELCOME,
		   job.domain_fd >= 0 ? TH_BOOT_WELCOME_DOMAIN : 0, NULL);
}

/* A complete header: false to drop the connection. */
static bool conn_header(struct conn *c)
{
	struct th_boot_msg *m = &c->in;

	c->in_got = 0;
	if (m->magic != TH_BOOT_MAGIC)
		goto bad;
	switch (m->type) {
	case TH_BOOT_HELLO:
		/* the key, if any, first; a UNIX rendezvous reads and ignores it */
		if (m->len == TH_BOOT_KEY_LEN && c->rank < 0) {
			c->in_key = true;
			c->key_got = 0;
			return true;
		}
		if (m->len && job.hosts && c->rank < 0) {
			conn_refuse(c, EACCES, "malformed key");
			return true;
		}
		if (m->len)
			goto bad;
		conn_hello(c);
		return true;
	case TH_BOOT_GATHER:
		if (c->rank < 0 || m->rank != (uint32_t)c->rank)
			goto bad;
		if (!round_join(c))
			return job.state != JOB_RUNNING; /* ABORT is queued */
		if (!m->len)
			round_contributed(c);
		return true;
	case TH_BOOT_BYE:
		if (c->rank < 0)
			goto bad;
		job.ranks[c->rank].conn = -1;
		c->rank = -1;
		c->closing = true;
		return true;
	}
bad:
	if (c->rank < 0 && job.hosts && !c->closing)
		conn_refuse(c, 0, "not the rendezvous protocol");
	if (c->rank < 0)
		return false;
	job_fail(EPROTO, "rank %d: rendezvous protocol error", c->rank);
	return true;	/* to deliver the ABORT */
}

/* Readable: false to drop the connection (EOF, error or protocol). */
bool conn_read(struct conn *c)
{
	for (;;) {
		void *p;
		size_t n;
		ssize_t got;

		if (c->in_payload) {
			p = job.round.buf->data + c->rank * job.round.len +
			    c->pay_got;
			n = job.round.len - c->pay_got;
		} else if (c->in_key) {
			p = c->key + c->key_got;
			n = TH_BOOT_KEY_LEN - c->key_got;
		} else {
			p = (char *)&c->in + c->in_got;
			n = sizeof(c->in) - c->in_got;
		}
		got = recv(c->fd, p, n, MSG_DONTWAIT);
		if (got == 0)
			return false;
		if (got < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ||
			       errno == EINTR;
		if (c->in_payload) {
			c->pay_got += got;
			if (c->pay_got == job.round.len)
				round_contributed(c);
		} else if (c->in_key) {
			c->key_got += got;
			if (c->key_got == TH_BOOT_KEY_LEN) {
				c->in_key = false;
				conn_hello(c);
			}
		} else {
			c->in_got += got;
			if (c->in_got == sizeof(c->in) && !conn_header(c))
				return false;
		}
		if (job.state != JOB_RUNNING || c->closing)
			return true;
	}
}

void conn_drop(int ci)
{
	struct conn *c = &job.conns[ci];

	if (c->rank >= 0 && !job.ranks[c->rank].exited)
		job.ranks[c->rank].dropped_at = now_ms();
	conn_close(ci);
}

void conn_accept(void)
{
	int fd, i;

	for (;;) {
		fd = accept4(job.lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0)
			return;
		for (i = 0; i < job.nconns && job.conns[i].fd >= 0; i++)
			;
		if (i == job.nconns) {
			close(fd);	/* more than the job can hold */
			continue;
		}
		job.conns[i].fd = fd;
		if (job.hosts) {
			int one = 1;

			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			job.conns[i].hello_by = now_ms() + THRUN_HELLO_S * 1000;
		}
		if (job.state != JOB_RUNNING) {
			/* a late joiner learns why the job ended */
			conn_queue(&job.conns[i], TH_BOOT_ABORT, job.err, NULL);
			job.conns[i].closing = true;
		}
	}
}

int socket_open(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *tmp = getenv("TMPDIR");
	int backlog = job.nranks + THRUN_EXTRA_CONNS;

	if (!tmp || !*tmp || strlen(tmp) > 64)
		tmp = "/tmp";
	snprintf(job.dir, sizeof(job.dir), "%s/thrun.XXXXXX", tmp);
	if (!mkdtemp(job.dir)) {
		job.dir[0] = '\0';
		return -errno;
	}
	snprintf(job.path, sizeof(job.path), "%s/boot.sock", job.dir);
	strcpy(sa.sun_path, job.path);

	job.lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (job.lfd < 0)
		return -errno;
	if (bind(job.lfd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(job.lfd, backlog))
		return -errno;
	return 0;
}

/*
 * --hosts: listen on the --listen address, on a port the kernel picks, and
 * draw the job's key.  1 after saying why.
 */
int tcp_open(void)
{
	int backlog = job.nranks + THRUN_EXTRA_CONNS, i;
	struct sockaddr_storage ss = job.laddr;
	socklen_t sl = job.laddr_len;
	char host[INET6_ADDRSTRLEN];
	unsigned int port;
	ssize_t n;

	/* the key travels on the ranks' stdin (key_stdin()), never in argv */
	do {
		n = getrandom(job.key, sizeof(job.key), 0);
	} while (n < 0 && errno == EINTR);
	if (n != sizeof(job.key))
		return n < 0 ? -errno : -EIO;
	for (i = 0; i < TH_BOOT_KEY_LEN; i++)
		sprintf(job.key_hex + 2 * i, "%02x", job.key[i]);

	job.lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (job.lfd < 0 || bind(job.lfd, (struct sockaddr *)&ss, sl) ||
	    listen(job.lfd, backlog) ||
	    getsockname(job.lfd, (struct sockaddr *)&ss, &sl)) {
		th_msg("cannot listen on %s: %s", job.listen, strerror(errno));
		return 1;
	}
	if (ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
		port = ntohs(s6->sin6_port);
		snprintf(job.boot, sizeof(job.boot), "tcp:[%s]:%u", host, port);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
		port = ntohs(s4->sin_port);
		snprintf(job.boot, sizeof(job.boot), "tcp:%s:%u", host, port);
	}
	return 0;
}
