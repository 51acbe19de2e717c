// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * thrun.c - start a th_nic job: N processes, one per node, joined by the
 * bootstrap rendezvous (lib/libthverbs/boot) that this launcher serves
 * over a UNIX socket; or across hosts (--hosts), each rank started through
 * a launcher command such as ssh and joined over TCP with the job's random
 * key; or one process driving all N nodes (--single).  On the kernel
 * provider the job gets a domain of its own, whose descriptor every rank
 * receives with its WELCOME (SCM_RIGHTS).  A rank that fails, or the
 * job's timeout, ends the whole job.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <thverbs/boot.h>
#include <thverbs/verbs.h>
#include "boot_proto.h"

#define THRUN_DEFAULT_GRACE_S	2.0
/* A rank that drops its connection without BYE must exit within this. */
#define THRUN_DROP_GRACE_MS	1000
/* After SIGKILL, how long to wait for the kernel before giving up. */
#define THRUN_REAP_MIN_MS	1000
/* Output queue per connection: WELCOME or RESULT, then ABORT. */
#define THRUN_OUTQ		4
#define THRUN_EXTRA_CONNS	16
/*
 * A TCP connection must say HELLO within this, or its slot is freed:
 * anyone on the network can connect, and a rank sends its HELLO at once.
 */
#define THRUN_HELLO_S		10
#define THRUN_STR_(x)		#x
#define THRUN_STR(x)		THRUN_STR_(x)
/* Refused TCP connections said on stderr; the rest only counted. */
#define THRUN_REFUSALS_SAID	4
#define THRUN_DEFAULT_LAUNCHER	"ssh"

enum { EXIT_OK, EXIT_FAILED, EXIT_USAGE };

enum job_state {
	JOB_RUNNING,
	JOB_ABORTING,		/* ABORT sent, SIGTERM sent, SIGKILL at kill_at */
	JOB_KILLING,		/* SIGKILL sent; give up at giveup_at */
};

/* A result shared by every rank's output queue, freed by the last one. */
struct rbuf {
	unsigned int refs;
	size_t len;
	unsigned char data[];
};

struct out_item {
	struct th_boot_msg hdr;
	struct rbuf *data;	/* NULL for header-only messages */
	size_t off;		/* bytes of header + data already sent */
};

struct conn {
	int fd;			/* -1: free slot */
	int rank;		/* -1 until HELLO */
	bool closing;		/* close once the output queue drained */
	/* input: a header, then for GATHER its payload into the round */
	struct th_boot_msg in;
	size_t in_got;
	bool in_payload;
	size_t pay_got;
	/* a HELLO's key (TCP) */
	bool in_key;
	size_t key_got;
	unsigned char key[TH_BOOT_KEY_LEN];
	int64_t hello_by;	/* TCP, until HELLO: its deadline, ms; else 0 */
	/* output */
	struct out_item q[THRUN_OUTQ];
	unsigned int qhead, qlen;
};

struct rank {
	pid_t pid;
	bool exited;
	int conn;		/* index into job.conns, or -1 */
	bool contributed;	/* to the open round */
	int64_t dropped_at;	/* EOF without BYE, ms; 0: not dropped */
};

struct round {
	bool open;
	uint32_t seq;
	uint64_t len;		/* per rank */
	unsigned int count;	/* ranks whose payload arrived */
	struct rbuf *buf;
};

static struct job {
	int nodes;		/* -n: TH_SIZE */
	int nranks;		/* processes: nodes, or 1 under --single */
	bool single;
	bool threads;	/* --threads: one process, a thread per rank */
	const char *provider;
	double timeout_s;	/* 0: none */
	double grace_s;
	char **argv;

	/* --hosts: rank r runs `launcher hosts[r % nhosts] env ... prog` */
	char **hosts;
	int nhosts;
	char **launcher;	/* --launcher split on spaces, NULL-terminated */
	int nlauncher;
	bool quote;		/* the launcher is ssh: quote for a POSIX shell */
	const char *listen;	/* --listen, as given */
	struct sockaddr_storage laddr;
	socklen_t laddr_len;
	unsigned char key[TH_BOOT_KEY_LEN];
	char key_hex[2 * TH_BOOT_KEY_LEN + 1];
	char boot[80];		/* TH_BOOT: the socket's path or tcp:ADDR:PORT */
	unsigned int refused;

	enum job_state state;
	int err;		/* positive errno sent in ABORT */
	int exit_code;		/* thrun's: the first failing rank's, or 1 */
	int64_t deadline;	/* job timeout, ms; 0: none */
	int64_t kill_at, giveup_at;
	int live;		/* ranks not yet reaped */

	char dir[80];		/* $TMPDIR (at most 64 bytes) /thrun.XXXXXX */
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int lfd;
	int domain_fd;		/* the job's domain (kernel provider), or -1 */
	int sigr, sigw;		/* self-pipe: signal numbers as bytes */

	struct rank *ranks;
	struct conn *conns;
	int nconns;
	struct pollfd *pfd;	/* sized for the self-pipe, listener, conns */
	int *pidx;		/* pfd[i] serves conns[pidx[i]]; -1: listener */
	struct round round;
} job = { .lfd = -1, .domain_fd = -1, .sigr = -1, .sigw = -1 };

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: thrun -n N [--provider kernel|inproc|ofi|auto] [--timeout SECONDS]\n"
"             [--grace SECONDS] [--single] [--] prog [args...]\n"
"       thrun -n N --hosts H1[,H2...] --listen ADDR [--launcher CMD]\n"
"             [options] [--] prog [args...]\n"
"       thrun --threads N [options] [--] prog [args...]\n"
"       thrun --version\n"
"\n"
"Start N processes of prog, one per th_nic node, with TH_RANK (0..N-1),\n"
"TH_SIZE (N), TH_BOOT (the rendezvous socket) and TH_PROVIDER (when given)\n"
"in their environment.  They meet through th_boot_init(),\n"
"th_boot_allgather() and th_boot_barrier() (thverbs/boot.h) to exchange\n"
"addresses and keys.  Output passes through; only rank 0 reads stdin.\n"
"\n"
"  -n, -np, --np N       number of ranks (nodes), 1..%d\n"
"  -p, --provider P      kernel, inproc, ofi or auto: exported as TH_PROVIDER\n"
"  -t, --timeout S       end the job after S seconds (default: none)\n"
"  -g, --grace S         SIGTERM to SIGKILL delay when ending a job (%g)\n"
"  -s, --single          run prog once, as rank 0 with TH_SIZE=N and\n"
"                        TH_SINGLE=1: one process drives all N nodes\n"
"  -T, --threads N       run prog once with TH_THREADS=N: th_boot_run()\n"
"                        runs its rank function in N threads, one per\n"
"                        rank, that meet in memory (ranks as threads)\n"
"      --hosts H1,H2,... run rank r on host H[r %% count], through the\n"
"                        launcher: CMD HOST env TH_RANK=r ... prog args;\n"
"                        the rendezvous is then TCP, with a random key\n"
"      --listen ADDR     with --hosts: the numeric IPv4 or IPv6 address of\n"
"                        this host on which the ranks reach thrun (port:\n"
"                        the kernel's choice)\n"
"      --launcher CMD    with --hosts: the command, split on spaces, that\n"
"                        runs a rank on HOST (default ssh; 'ip netns exec'\n"
"                        for network namespaces).  For ssh every word after\n"
"                        HOST is quoted for the remote POSIX shell; any other\n"
"                        launcher gets the words as they are.  thrun's TH_*\n"
"                        variables are passed on in the env command\n"
"  -h, --help            this text\n"
"  -V, --version         thrun's version\n"
"\n"
"When a rank exits non-zero or is killed, or the timeout passes, thrun\n"
"says so in one line, fails every rendezvous call in progress, sends\n"
"SIGTERM to the other ranks, SIGKILL after the grace period, and exits\n"
"with the status of the rank that failed first, as mpirun does.\n"
"Exit status: 0 every rank exited 0; the first failing rank's status, or\n"
"128+S if a signal S killed it; 1 timeout or a failure of thrun's own\n"
"(128+S if thrun itself was interrupted by signal S); 2 usage.\n"
"\n"
"Providers: with \"kernel\" each process opens its node's /dev/th_nic*\n"
"and the nodes share the module's fabric; the job gets a domain of its own,\n"
"which each rank takes up with th_boot_domain_fd() and th_domain_import():\n"
"its vports reach each other and no other job's.  An \"inproc\" fabric is private\n"
"to each process, so an inproc job of several processes has N separate\n"
"fabrics: useful to test the bootstrap, not to run collectives across\n"
"ranks.  Use --threads (or --single) for the inproc provider: the ranks\n"
"then share the one fabric of the process.  With \"ofi\" each process\n"
"hosts its rank's node and the processes reach each other over libfabric\n"
"(TH_OFI_PROVIDER; by default shm when every rank is on one host, else\n"
"tcp;ofi_rxm, with shm between the ranks that share a host): no module,\n"
"no root; not with --threads or --single.\n"
"Without th_nic.ko (/dev/th_nic0 missing), \"auto\" is inproc.  With\n"
"--hosts use ofi: a kernel job's domain cannot cross hosts, and thrun\n"
"refuses \"kernel\" there.\n",
		TH_BOOT_MAX_RANKS, THRUN_DEFAULT_GRACE_S);
}

static void th_msg(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static void th_msg(const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* one write: the line does not interleave with the ranks' output */
	dprintf(STDERR_FILENO, "thrun: %s\n", line);
}

/* ---- the rendezvous connections ------------------------------------- */

static void rbuf_put(struct rbuf *rb)
{
	if (rb && !--rb->refs)
		free(rb);
}

static void conn_close(int ci)
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

static void conn_queue(struct conn *c, uint32_t type, int err,
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
static bool conn_flush(struct conn *c)
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

/*
 * End the job: one line saying why, ABORT to every connection (after
 * what it is already receiving), SIGTERM to every live rank.  Only the
 * first failure speaks; what follows from it is silent.
 */
static void job_fail(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void job_fail(int err, const char *fmt, ...)
{
	char line[448];
	va_list ap;
	int i;

	if (job.state != JOB_RUNNING)
		return;
	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(line, sizeof(line), fmt, ap);
		va_end(ap);
		th_msg("%s", line);
	}
	job.state = JOB_ABORTING;
	job.err = err;
	for (i = 0; i < job.nconns; i++) {
		struct conn *c = &job.conns[i];

		if (c->fd < 0)
			continue;
		conn_queue(c, TH_BOOT_ABORT, err, NULL);
		c->closing = true;
	}
	for (i = 0; i < job.nranks; i++)
		if (!job.ranks[i].exited && job.ranks[i].pid > 0)
			kill(job.ranks[i].pid, SIGTERM);
	job.kill_at = now_ms() + (int64_t)(job.grace_s * 1000);
}

/* A rank that can no longer join: fail if others wait for it. */
static void round_check_gone(void)
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
static void conn_refuse(struct conn *c, int err, const char *why)
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
static bool conn_read(struct conn *c)
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

static void conn_drop(int ci)
{
	struct conn *c = &job.conns[ci];

	if (c->rank >= 0 && !job.ranks[c->rank].exited)
		job.ranks[c->rank].dropped_at = now_ms();
	conn_close(ci);
}

static void conn_accept(void)
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

/* ---- the ranks -------------------------------------------------------- */

static void on_signal(int sig)
{
	int saved = errno;
	unsigned char b = sig;

	/* a full pipe already holds a wakeup: the result does not matter */
	(void)!write(job.sigw, &b, 1);
	errno = saved;
}

static void rank_exited(int i, int status)
{
	struct rank *r = &job.ranks[i];

	r->exited = true;
	job.live--;
	/*
	 * The first failure is the job's status, as Open MPI's mpirun and
	 * srun report it: what the ranks killed after it return says nothing
	 * (MPICH's hydra ORs every rank's status, which mixes codes: 1|2 = 3).
	 */
	if (job.state == JOB_RUNNING && WIFSIGNALED(status))
		job.exit_code = 128 + WTERMSIG(status);
	else if (job.state == JOB_RUNNING && WEXITSTATUS(status))
		job.exit_code = WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		job_fail(ECONNRESET, "rank %d (pid %d) killed by signal %d",
			 i, (int)r->pid, WTERMSIG(status));
	else if (WEXITSTATUS(status))
		job_fail(ECONNRESET, "rank %d (pid %d) exited with status %d",
			 i, (int)r->pid, WEXITSTATUS(status));
	else
		round_check_gone();
}

static void reap(void)
{
	int status, i;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		for (i = 0; i < job.nranks; i++)
			if (job.ranks[i].pid == pid && !job.ranks[i].exited)
				break;
		if (i < job.nranks)
			rank_exited(i, status);
	}
}

static void set_env_int(const char *name, long v)
{
	char s[32];

	snprintf(s, sizeof(s), "%ld", v);
	setenv(name, s, 1);
}

/*
 * One word of the remote command, for ssh, which joins its arguments with
 * spaces into one line for the remote user's shell: single-quoted, each '
 * as '\'' , so that spaces, quotes, $ and globs reach the rank unchanged.
 */
static char *shell_quote(const char *w)
{
	size_t n = 3, i;
	char *q, *p;

	for (i = 0; w[i]; i++)
		n += w[i] == '\'' ? 4 : 1;
	q = malloc(n);
	if (!q)
		return NULL;
	p = q;
	*p++ = '\'';
	for (i = 0; w[i]; i++) {
		if (w[i] == '\'') {
			memcpy(p, "'\\''", 4);
			p += 4;
		} else {
			*p++ = w[i];
		}
	}
	*p++ = '\'';
	*p = '\0';
	return q;
}

static char *str_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *str_printf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

/* Set by thrun for each rank: not forwarded from thrun's environment. */
static bool env_is_thruns(const char *kv)
{
	static const char *const own[] = {
		"TH_RANK=", "TH_SIZE=", "TH_BOOT=", "TH_BOOT_KEY=",
		"TH_PROVIDER=", "TH_SINGLE=", "TH_THREADS=",
	};
	unsigned int i;

	for (i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (!strncmp(kv, own[i], strlen(own[i])))
			return true;
	return false;
}

/*
 * The rank's first words on its host: the job's key comes as the first
 * line of its stdin, never in a command line (ps shows those to every
 * user of both hosts); the rest of stdin is then the rank's (rank 0:
 * thrun's, relayed; the others: EOF).  read takes one byte at a time from
 * a pipe, so it consumes nothing past the key's line.
 */
#define THRUN_KEY_SCRIPT \
	"IFS= read -r TH_BOOT_KEY || " \
	"{ echo 'thrun: no job key on stdin' >&2; exit 127; }; " \
	"export TH_BOOT_KEY; exec \"$@\""

/*
 * In the child, the argument list of a rank on another host:
 * LAUNCHER... HOST env [TH_*=... of thrun's environment] TH_RANK=r
 * TH_SIZE=N TH_BOOT=tcp:... [TH_PROVIDER=p] sh -c THRUN_KEY_SCRIPT
 * thrun-rank prog args..., everything after HOST quoted when the launcher
 * is ssh.  NULL: no memory.
 */
static char **remote_argv(int rank)
{
	int nenv = 0, nargs = 0, n = 0, i;
	char **v, **e;

	for (e = environ; *e; e++)
		nenv++;
	while (job.argv[nargs])
		nargs++;
	v = calloc(job.nlauncher + 2 + nenv + 4 + 4 + nargs + 1, sizeof(*v));
	if (!v)
		return NULL;
	for (i = 0; i < job.nlauncher; i++)
		v[n++] = job.launcher[i];
	v[n++] = job.hosts[rank % job.nhosts];
	v[n++] = "env";
	/* what the ranks read (TH_OFI_*, TH_BOOT_TIMEOUT...) follows them */
	for (e = environ; *e; e++)
		if (!strncmp(*e, "TH_", 3) && !env_is_thruns(*e))
			v[n++] = *e;
	v[n++] = str_printf("TH_RANK=%d", rank);
	v[n++] = str_printf("TH_SIZE=%d", job.nodes);
	v[n++] = str_printf("TH_BOOT=%s", job.boot);
	if (job.provider)
		v[n++] = str_printf("TH_PROVIDER=%s", job.provider);
	v[n++] = "sh";
	v[n++] = "-c";
	v[n++] = THRUN_KEY_SCRIPT;
	v[n++] = "thrun-rank";	/* the script's $0 */
	for (i = 0; i < nargs; i++)
		v[n++] = job.argv[i];
	for (i = job.nlauncher + 1; i < n; i++) {
		if (!v[i])
			return NULL;
		if (job.quote) {
			v[i] = shell_quote(v[i]);
			if (!v[i])
				return NULL;
		}
	}
	return v;
}

/* Copy stdin to stdout until either ends; never returns. */
static void __attribute__((noreturn)) relay_stdin(void)
{
	char buf[4096];
	ssize_t n, w, off;

	for (;;) {
		n = read(STDIN_FILENO, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(0);
		for (off = 0; off < n; off += w) {
			w = write(STDOUT_FILENO, buf + off, n - off);
			if (w < 0 && errno == EINTR)
				w = 0;
			else if (w < 0)
				_exit(0);	/* the launcher stopped reading */
		}
	}
}

/*
 * In the child of a rank on another host: its stdin becomes a pipe that
 * starts with the job's key and a newline; rank 0's then goes on with
 * thrun's stdin, copied by a process of its own that ends with the
 * launcher (PR_SET_PDEATHSIG), at EOF, or when the launcher stops reading.
 * 0, or a positive errno.
 */
static int key_stdin(int rank)
{
	char line[sizeof(job.key_hex) + 1];
	pid_t launcher = getpid(), pid;
	int kp[2];

	if (pipe(kp))
		return errno;
	snprintf(line, sizeof(line), "%s\n", job.key_hex);
	/* far below PIPE_BUF: one write that never blocks */
	if (write(kp[1], line, strlen(line)) != (ssize_t)strlen(line))
		return errno ? errno : EIO;
	if (rank == 0) {
		pid = fork();
		if (pid < 0)
			return errno;
		if (pid == 0) {
			prctl(PR_SET_PDEATHSIG, SIGTERM);
			if (getppid() != launcher)
				_exit(0);
			/* nothing of thrun's stays open here (its output
			 * pipe neither): only 0 and 1 */
			if (dup2(kp[1], STDOUT_FILENO) < 0)
				_exit(1);
			close_range(2, ~0U, 0);
			relay_stdin();
		}
	}
	close(kp[1]);
	if (dup2(kp[0], STDIN_FILENO) < 0)
		return errno;
	close(kp[0]);
	return 0;
}

/* In the child, between fork and exec: never returns. */
static void rank_exec(int rank, pid_t parent, int errw)
{
	char **argv = job.argv;
	sigset_t none;
	int err, sig, fd;

	for (sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);	/* fails harmlessly for KILL, STOP */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* if thrun dies, so does the job */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(EXIT_FAILED);

	/* the launcher's own environment: a local one passes it on */
	unsetenv("TH_THREADS");
	unsetenv("TH_BOOT_KEY");	/* of an enclosing job, if any */
	if (job.hosts) {
		unsetenv("TH_SINGLE");
		argv = remote_argv(rank);
		err = argv ? key_stdin(rank) : ENOMEM;
		if (err) {
			(void)!write(errw, &err, sizeof(err));
			_exit(127);
		}
		goto exec_remote;
	}
	set_env_int("TH_RANK", rank);
	set_env_int("TH_SIZE", job.nodes);
	if (job.threads) {
		set_env_int("TH_THREADS", job.nodes);
		unsetenv("TH_SINGLE");
		unsetenv("TH_BOOT");
	} else if (job.single) {
		setenv("TH_SINGLE", "1", 1);
		unsetenv("TH_BOOT");
	} else {
		unsetenv("TH_SINGLE");
		setenv("TH_BOOT", job.path, 1);
	}
	if (job.provider)
		setenv("TH_PROVIDER", job.provider, 1);
	if (rank > 0) {
		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			dup2(fd, STDIN_FILENO);
	}
exec_remote:
	execvp(argv[0], argv);
	err = errno;
	/* if even this fails, the parent sees a plain exit 127 */
	(void)!write(errw, &err, sizeof(err));
	_exit(127);
}

/* Ranks from @first on never ran: nothing to wait for or signal. */
static void ranks_not_started(int first)
{
	for (; first < job.nranks; first++)
		job.ranks[first].exited = true;
}

/* Start every rank; false (after a message) when prog cannot run. */
static bool ranks_start(void)
{
	pid_t parent = getpid();
	sigset_t all, old;
	int i, p[2], err;
	ssize_t n;

	sigfillset(&all);
	for (i = 0; i < job.nranks; i++) {
		if (pipe2(p, O_CLOEXEC)) {
			ranks_not_started(i);
			job_fail(errno, "pipe: %s", strerror(errno));
			return false;
		}
		sigprocmask(SIG_BLOCK, &all, &old);
		job.ranks[i].pid = fork();
		if (job.ranks[i].pid == 0) {
			close(p[0]);
			rank_exec(i, parent, p[1]);
		}
		err = errno;
		sigprocmask(SIG_SETMASK, &old, NULL);
		close(p[1]);
		if (job.ranks[i].pid < 0) {
			close(p[0]);
			ranks_not_started(i);
			job_fail(err, "fork: %s", strerror(err));
			return false;
		}
		job.live++;
		/* EOF on exec; errno when exec failed */
		do {
			n = read(p[0], &err, sizeof(err));
		} while (n < 0 && errno == EINTR);
		close(p[0]);
		if (n == sizeof(err)) {
			ranks_not_started(i + 1);
			job_fail(err, "cannot run '%s': %s",
				 job.hosts ? job.launcher[0] : job.argv[0],
				 strerror(err));
			return false;
		}
	}
	return true;
}

/* ---- setup and the event loop ----------------------------------------- */

/* The provider the ranks will pick: the library's rule for "auto". */
static bool job_uses_kernel(void)
{
	const char *name = job.provider;

	if (!name || !*name || !strcmp(name, "auto")) {
		name = getenv("TH_PROVIDER");
		if (!name || !*name || !strcmp(name, "auto"))
			return !access("/dev/th_nic0", F_OK);
	}
	return !strcmp(name, "kernel");
}

/*
 * A domain of the job's own, so that its ranks reach each other and
 * nothing else, and nothing else reaches them; created on node 0 (a
 * domain spans the fabric).
 */
static int domain_open(void)
{
	struct th_context *ctx = NULL;
	struct th_domain *d = NULL;
	struct th_device **devs;
	int n = 0, ret = 0;

	/* the node thrun names when it says why not */
	if (access("/dev/th_nic0", F_OK))
		return -errno;
	devs = th_device_list_get("kernel", &n);
	if (!devs)
		return -errno;
	ctx = n ? th_device_open(devs[0]) : NULL;
	if (!ctx)
		ret = n ? -errno : -ENODEV;
	d = ctx ? th_domain_alloc(ctx) : NULL;
	if (ctx && !d)
		ret = -errno;
	/* thrun's own descriptor: the domain lives while one is open */
	if (d) {
		job.domain_fd = fcntl(th_domain_fd(d), F_DUPFD_CLOEXEC, 0);
		if (job.domain_fd < 0)
			ret = -errno;
		th_domain_dealloc(d);
	}
	if (ctx)
		th_device_close(ctx);
	th_device_list_free(devs);
	return ret;
}

static int socket_open(void)
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
static int tcp_open(void)
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

static void cleanup(void)
{
	int i;

	for (i = 0; job.conns && i < job.nconns; i++)
		if (job.conns[i].fd >= 0)
			conn_close(i);
	rbuf_put(job.round.buf);
	if (job.lfd >= 0)
		close(job.lfd);
	if (job.domain_fd >= 0)
		close(job.domain_fd);
	if (job.path[0])
		unlink(job.path);
	if (job.dir[0])
		rmdir(job.dir);
	free(job.conns);
	free(job.ranks);
	free(job.pfd);
	free(job.pidx);
	free(job.hosts);
	free(job.launcher);
}

static int loop_timeout(void)
{
	int64_t now = now_ms(), next = -1, t;
	int i;

	if (job.state == JOB_RUNNING && job.deadline)
		next = job.deadline;
	if (job.state == JOB_ABORTING)
		next = job.kill_at;
	if (job.state == JOB_KILLING)
		next = job.giveup_at;
	for (i = 0; job.state == JOB_RUNNING && i < job.nranks; i++) {
		t = job.ranks[i].dropped_at;
		if (t && !job.ranks[i].exited &&
		    (next < 0 || t + THRUN_DROP_GRACE_MS < next))
			next = t + THRUN_DROP_GRACE_MS;
	}
	for (i = 0; i < job.nconns; i++) {
		t = job.conns[i].hello_by;
		if (t && job.conns[i].fd >= 0 && (next < 0 || t < next))
			next = t;
	}
	if (next < 0)
		return -1;
	return next <= now ? 0 : (int)(next - now > INT_MAX ? INT_MAX :
				       next - now);
}

static void loop_timers(void)
{
	int64_t now = now_ms();
	int i;

	if (job.state == JOB_RUNNING && job.deadline && now >= job.deadline)
		job_fail(ETIMEDOUT, "timed out after %g s", job.timeout_s);
	for (i = 0; job.state == JOB_RUNNING && i < job.nranks; i++) {
		struct rank *r = &job.ranks[i];

		if (r->dropped_at && !r->exited &&
		    now >= r->dropped_at + THRUN_DROP_GRACE_MS)
			job_fail(ECONNRESET,
				 "rank %d (pid %d) closed its rendezvous connection and kept running",
				 i, (int)r->pid);
	}
	for (i = 0; i < job.nconns; i++) {
		struct conn *c = &job.conns[i];

		if (c->fd >= 0 && c->hello_by && now >= c->hello_by) {
			conn_refuse(c, 0, "no HELLO within "
				    THRUN_STR(THRUN_HELLO_S) " s");
			conn_close(i);
		}
	}
	if (job.state == JOB_ABORTING && now >= job.kill_at) {
		for (i = 0; i < job.nranks; i++)
			if (!job.ranks[i].exited && job.ranks[i].pid > 0)
				kill(job.ranks[i].pid, SIGKILL);
		job.state = JOB_KILLING;
		job.giveup_at = now + fmax(job.grace_s * 1000,
					   THRUN_REAP_MIN_MS);
	}
}

static void loop_signals(void)
{
	unsigned char sigs[64];
	ssize_t n, i;

	while ((n = read(job.sigr, sigs, sizeof(sigs))) > 0) {
		for (i = 0; i < n; i++) {
			if (sigs[i] == SIGCHLD)
				continue;
			if (job.state == JOB_RUNNING) {
				/* as a shell reports a command it interrupted */
				job.exit_code = 128 + sigs[i];
				job_fail(EINTR, "interrupted by signal %d (%s)",
					 sigs[i], strsignal(sigs[i]));
			}
			else if (job.state == JOB_ABORTING)
				job.kill_at = 0;	/* asked twice: kill now */
		}
	}
	reap();
}

static void loop_event(int ci, short rev)
{
	struct conn *c;
	bool ok = true;

	if (ci < 0) {
		conn_accept();
		return;
	}
	c = &job.conns[ci];
	if (c->fd < 0)
		return;
	if (rev & POLLIN)
		ok = conn_read(c);
	if (ok && (rev & POLLERR))
		ok = false;
	if (ok && c->qlen)
		ok = conn_flush(c);
	if (!ok)
		conn_drop(ci);
	else if (c->closing && !c->qlen)
		conn_close(ci);
	else if ((rev & POLLHUP) && !(rev & POLLIN))
		conn_drop(ci);	/* hung up with nothing left to read */
}

static bool loop_gave_up(void)
{
	int i;

	if (job.state != JOB_KILLING || now_ms() < job.giveup_at)
		return false;
	for (i = 0; i < job.nranks; i++)
		if (!job.ranks[i].exited)
			th_msg("rank %d (pid %d) did not exit after SIGKILL",
			       i, (int)job.ranks[i].pid);
	return true;
}

static void loop(void)
{
	struct pollfd *pfd = job.pfd;
	int *idx = job.pidx;
	int n, i, np;

	while (job.live > 0 && !loop_gave_up()) {
		np = 0;
		pfd[np].fd = job.sigr;
		pfd[np++].events = POLLIN;
		if (job.lfd >= 0) {
			idx[np] = -1;
			pfd[np].fd = job.lfd;
			pfd[np++].events = POLLIN;
		}
		for (i = 0; i < job.nconns; i++) {
			struct conn *c = &job.conns[i];

			if (c->fd < 0)
				continue;
			idx[np] = i;
			pfd[np].fd = c->fd;
			/* once aborting, only deliver the ABORT */
			pfd[np].events = job.state == JOB_RUNNING &&
					 !c->closing ? POLLIN : 0;
			if (c->qlen)
				pfd[np].events |= POLLOUT;
			np++;
		}
		n = poll(pfd, np, loop_timeout());
		if (n < 0 && errno != EINTR) {
			th_msg("poll: %s", strerror(errno));
			break;
		}
		loop_signals();
		for (i = 1; n > 0 && i < np; i++)
			if (pfd[i].revents)
				loop_event(idx[i], pfd[i].revents);
		loop_timers();
	}
}

static bool parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < 0 || v > 1e7)
		return false;
	*out = v;
	return true;
}

/*
 * mpiexec's "-np N": getopt would read it as -n with the argument "p".
 * Rewritten to "--np" among thrun's options, which end at "--" or at the
 * program (an argument that is neither an option nor an option's value).
 */
static void args_np(int argc, char **argv)
{
	static char np[] = "--np";
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--") || a[0] != '-')
			return;
		if (!strcmp(a, "-np")) {
			argv[i] = np;
			i++;	/* its value */
		} else if (!strncmp(a, "-np=", 4)) {
			/* lives as long as argv; NULL leaves getopt to refuse it */
			char *l = malloc(strlen(a) + 2);

			if (l) {
				sprintf(l, "-%s", a);
				argv[i] = l;
			}
		} else if (!strcmp(a, "-n") || !strcmp(a, "-p") ||
			   !strcmp(a, "-t") || !strcmp(a, "-g") ||
			   !strcmp(a, "-T") || (a[1] == '-' && !strchr(a, '=') &&
			   strcmp(a, "--single") && strcmp(a, "--help") &&
			   strcmp(a, "--version"))) {
			i++;	/* an option that takes the next argument */
		}
	}
}

/*
 * Split @s at @sep into a NULL-terminated array of pointers into @s
 * (which it modifies); empty pieces are refused.  NULL on either.
 */
static char **split(char *s, char sep, int *count)
{
	char **v;
	int n = 1, i;
	char *p;

	for (p = s; *p; p++)
		n += *p == sep;
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		return NULL;
	for (i = 0; i < n; i++) {
		v[i] = s;
		p = strchr(s, sep);
		if (p)
			*p = '\0';
		if (!*s) {
			free(v);
			return NULL;
		}
		s = p ? p + 1 : s + strlen(s);
	}
	*count = n;
	return v;
}

/* --launcher: words split on runs of spaces, as documented. */
static char **split_words(char *s, int *count)
{
	char **v = calloc(strlen(s) / 2 + 2, sizeof(*v));
	const char *base;
	int n = 0;

	if (!v)
		return NULL;
	for (s = strtok(s, " "); s; s = strtok(NULL, " "))
		v[n++] = s;
	if (!n) {
		free(v);
		return NULL;
	}
	base = strrchr(v[0], '/');
	job.quote = !strcmp(base ? base + 1 : v[0], "ssh");
	*count = n;
	return v;
}

/* --hosts: HOST, user@HOST or an address; nothing a launcher reads as an option. */
static bool host_ok(const char *h)
{
	return h[0] != '-' && !strpbrk(h, " \t\n'\"\\$`;&|<>()*?[]{}~");
}

/* --listen: a numeric IPv4 or IPv6 address, the latter with or without []. */
static bool parse_listen(const char *a)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&job.laddr;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&job.laddr;
	char host[INET6_ADDRSTRLEN];
	size_t len = strlen(a);

	if (len >= 2 && a[0] == '[' && a[len - 1] == ']') {
		a++;
		len -= 2;
	}
	if (!len || len >= sizeof(host))
		return false;
	memcpy(host, a, len);
	host[len] = '\0';
	memset(&job.laddr, 0, sizeof(job.laddr));
	if (inet_pton(AF_INET, host, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		job.laddr_len = sizeof(*s4);
		return true;
	}
	if (inet_pton(AF_INET6, host, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		job.laddr_len = sizeof(*s6);
		return true;
	}
	return false;
}

static bool provider_known(const char *name)
{
	return !strcmp(name, "kernel") || !strcmp(name, "inproc") ||
	       !strcmp(name, "ofi") || !strcmp(name, "auto");
}

static int parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "np", required_argument, NULL, 'n' },
		{ "version", no_argument, NULL, 'V' },
		{ "provider", required_argument, NULL, 'p' },
		{ "timeout", required_argument, NULL, 't' },
		{ "grace", required_argument, NULL, 'g' },
		{ "single", no_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 'T' },
		{ "hosts", required_argument, NULL, 'H' },
		{ "launcher", required_argument, NULL, 'L' },
		{ "listen", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	static char default_launcher[] = THRUN_DEFAULT_LAUNCHER;
	char *launcher = NULL, *end;
	long v;
	int o, i;

	job.grace_s = THRUN_DEFAULT_GRACE_S;
	args_np(argc, argv);
	while ((o = getopt_long(argc, argv, "+n:p:t:g:sT:hV", opts, NULL)) != -1) {
		switch (o) {
		case 'n':
		case 'T':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || v < 1 ||
			    v > TH_BOOT_MAX_RANKS) {
				fprintf(stderr, "thrun: %s wants 1..%d, not '%s'\n",
					o == 'n' ? "-n" : "--threads",
					TH_BOOT_MAX_RANKS, optarg);
				return -1;
			}
			if (job.nodes && job.nodes != v) {
				fprintf(stderr, "thrun: -n and --threads disagree\n");
				return -1;
			}
			job.nodes = v;
			if (o == 'T')
				job.threads = true;
			break;
		case 'p':
			if (!provider_known(optarg)) {
				fprintf(stderr, "thrun: unknown provider '%s'\n",
					optarg);
				return -1;
			}
			job.provider = optarg;
			break;
		case 't':
		case 'g':
			if (!parse_seconds(optarg, o == 't' ? &job.timeout_s :
							       &job.grace_s)) {
				fprintf(stderr, "thrun: bad number of seconds '%s'\n",
					optarg);
				return -1;
			}
			break;
		case 's':
			job.single = true;
			break;
		case 'H':
			free(job.hosts);
			job.hosts = split(optarg, ',', &job.nhosts);
			for (i = 0; job.hosts && i < job.nhosts; i++)
				if (!host_ok(job.hosts[i]))
					break;
			if (!job.hosts) {
				fprintf(stderr, "thrun: --hosts wants HOST[,HOST...], without empty names\n");
				return -1;
			}
			if (i < job.nhosts) {
				fprintf(stderr, "thrun: --hosts: '%s' is not a host name\n",
					job.hosts[i]);
				return -1;
			}
			break;
		case 'L':
			launcher = optarg;
			break;
		case 'l':
			if (!parse_listen(optarg)) {
				fprintf(stderr, "thrun: --listen wants a numeric IPv4 or IPv6 address, not '%s'\n",
					optarg);
				return -1;
			}
			job.listen = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(EXIT_OK);
		case 'V':
			printf("thrun (th_nic) %s\n", TH_VERSION);
			exit(EXIT_OK);
		default:
			return -1;
		}
	}
	if (job.threads && job.single) {
		fprintf(stderr, "thrun: --single and --threads exclude each other\n");
		return -1;
	}
	/*
	 * Checked here, once, rather than by every rank's library: N ranks
	 * would each say it.
	 */
	if (!job.provider) {
		const char *env = getenv("TH_PROVIDER");

		if (env && *env && !provider_known(env)) {
			fprintf(stderr, "thrun: TH_PROVIDER='%s' is not valid: expected kernel, inproc, ofi or auto\n",
				env);
			return -1;
		}
		job.provider = env && *env ? env : NULL;
	}
	/* ofi ranks are processes joined by libfabric: not threads of one */
	if (job.provider && !strcmp(job.provider, "ofi") &&
	    (job.threads || job.single)) {
		fprintf(stderr, "thrun: --provider ofi runs one process per rank: not with --%s\n",
			job.threads ? "threads" : "single");
		return -1;
	}
	if (job.hosts) {
		if (job.threads || job.single) {
			fprintf(stderr, "thrun: --hosts starts one process per rank: not with --%s\n",
				job.threads ? "threads" : "single");
			return -1;
		}
		/* SCM_RIGHTS does not cross TCP, nor a domain another host */
		if (job.provider && !strcmp(job.provider, "kernel")) {
			fprintf(stderr, "thrun: --hosts: the kernel provider's job domain cannot reach other hosts; use --provider ofi\n");
			return -1;
		}
		if (!job.listen) {
			fprintf(stderr, "thrun: --hosts needs --listen ADDR, this host's address that the ranks reach\n");
			return -1;
		}
		job.launcher = split_words(launcher ? launcher :
					   default_launcher, &job.nlauncher);
		if (!job.launcher) {
			fprintf(stderr, "thrun: --launcher wants a command, not '%s'\n",
				launcher ? launcher : "");
			return -1;
		}
	} else if (launcher || job.listen) {
		fprintf(stderr, "thrun: --%s only goes with --hosts\n",
			launcher ? "launcher" : "listen");
		return -1;
	}
	job.single |= job.threads;	/* one process, no rendezvous socket */
	if (!job.nodes || optind == argc) {
		fprintf(stderr, "thrun: %s\n", !job.nodes ? "-n N is required" :
			"no program to run");
		return -1;
	}
	job.argv = argv + optind;
	return 0;
}

/* 0; a negative errno for main() to report; 1 when it said why itself. */
static int setup(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	int fds[2], i, ret;
	char s[32];

	job.nranks = job.single ? 1 : job.nodes;
	job.ranks = calloc(job.nranks, sizeof(*job.ranks));
	job.nconns = job.single ? 0 : job.nranks + THRUN_EXTRA_CONNS;
	job.conns = calloc(job.nconns + 1, sizeof(*job.conns));
	job.pfd = calloc(job.nconns + 2, sizeof(*job.pfd));
	job.pidx = calloc(job.nconns + 2, sizeof(*job.pidx));
	if (!job.ranks || !job.conns || !job.pfd || !job.pidx)
		return -ENOMEM;
	for (i = 0; i < job.nranks; i++)
		job.ranks[i].conn = -1;
	for (i = 0; i < job.nconns; i++) {
		job.conns[i].fd = -1;
		job.conns[i].rank = -1;
	}

	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK))
		return -errno;
	job.sigr = fds[0];
	job.sigw = fds[1];
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (job.hosts) {
		ret = tcp_open();
		if (ret)
			return ret;
	} else if (!job.single) {
		ret = socket_open();
		if (ret)
			return ret;
		if (job_uses_kernel()) {
			ret = domain_open();
			if (ret) {
				th_msg("cannot create the job's domain on /dev/th_nic0: %s",
				       strerror(-ret));
				return 1;	/* said why already */
			}
		}
	}
	/* the ranks' own bound on a rendezvous outlasts the job's */
	if (job.timeout_s > 0 && !getenv("TH_BOOT_TIMEOUT")) {
		snprintf(s, sizeof(s), "%g",
			 ceil(job.timeout_s + 2 * job.grace_s + 1));
		setenv("TH_BOOT_TIMEOUT", s, 1);
	}
	if (job.timeout_s > 0)
		job.deadline = now_ms() + (int64_t)ceil(job.timeout_s * 1000);
	return 0;
}

int main(int argc, char **argv)
{
	int ret;

	if (parse_args(argc, argv)) {
		usage(stderr);
		return EXIT_USAGE;
	}
	ret = setup();
	if (ret) {
		if (ret < 0)
			th_msg("cannot set up the job: %s", strerror(-ret));
		cleanup();
		return EXIT_FAILED;
	}
	ranks_start();
	loop();
	ret = job.state == JOB_RUNNING ? EXIT_OK :
	      job.exit_code ? job.exit_code : EXIT_FAILED;
	cleanup();
	return ret;
}
