// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * boot.c - the client side of thrun's bootstrap rendezvous: join the job
 * over the launcher's UNIX socket, or its TCP socket (TH_BOOT=tcp:ADDR:PORT,
 * thrun --hosts) with the job's key, then allgather and barrier rounds.
 * Without TH_BOOT, a process that MPICH's mpiexec started joins through
 * PMI instead (pmi.c).
 * Every wait is a poll() against a deadline, so no call outlives the
 * launcher, an abort or TH_BOOT_TIMEOUT.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "thverbs_priv.h"
#include <thverbs/boot.h>
#include "boot_proto.h"
#include "boot_priv.h"

#define TH_BOOT_DEFAULT_TIMEOUT_S	300.0
/* How long fini waits to hand its BYE to the socket. */
#define TH_BOOT_BYE_MS			100
#define TH_BOOT_CONNECT_RETRY_MS	10

int64_t th_boot_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t th_boot_deadline(const struct th_boot *b)
{
	return b->timeout_ms < 0 ? -1 : th_boot_now_ms() + b->timeout_ms;
}

/* Milliseconds left for poll(), -1 for none, -ETIMEDOUT once it passed. */
static int th_boot_left(int64_t deadline)
{
	int64_t left;

	if (deadline < 0)
		return -1;
	left = deadline - th_boot_now_ms();
	if (left <= 0)
		return -ETIMEDOUT;
	return left > INT_MAX ? INT_MAX : (int)left;
}

int th_boot_wait(int fd, short events, int64_t deadline, short *revents)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	int left, n;

	for (;;) {
		left = th_boot_left(deadline);
		if (left == -ETIMEDOUT)
			return -ETIMEDOUT;
		n = poll(&pfd, 1, left);
		if (n > 0) {
			*revents = pfd.revents;
			return 0;
		}
		if (n < 0 && errno != EINTR)
			return -errno;
	}
}

/*
 * Receive @len bytes.  With @passed_fd, also take a descriptor sent along
 * with them (SCM_RIGHTS, made close-on-exec) into *@passed_fd: it rides on
 * the first byte it was sent with, so it is asked for on every read.
 */
int th_boot_recv_all(int fd, void *buf, size_t len, int64_t deadline,
			    int *passed_fd)
{
	char ctl[CMSG_SPACE(sizeof(int))];
	struct cmsghdr *c;
	struct msghdr mh;
	struct iovec iov;
	char *p = buf;
	short rev;
	ssize_t n;
	int ret;

	while (len) {
		iov = (struct iovec){ p, len };
		mh = (struct msghdr){ .msg_iov = &iov, .msg_iovlen = 1 };
		if (passed_fd) {
			mh.msg_control = ctl;
			mh.msg_controllen = sizeof(ctl);
		}
		n = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (n > 0) {
			for (c = passed_fd ? CMSG_FIRSTHDR(&mh) : NULL; c;
			     c = CMSG_NXTHDR(&mh, c))
				if (c->cmsg_level == SOL_SOCKET &&
				    c->cmsg_type == SCM_RIGHTS && *passed_fd < 0)
					memcpy(passed_fd, CMSG_DATA(c), sizeof(int));
			p += n;
			len -= n;
			continue;
		}
		if (n == 0)
			return -ECONNRESET;	/* the launcher is gone */
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return errno == EPIPE ? -ECONNRESET : -errno;
		ret = th_boot_wait(fd, POLLIN, deadline, &rev);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Read one header (and a descriptor sent with it, see above); an ABORT
 * turns into its error.  The launcher sends nothing unasked except ABORT,
 * so this is also how a blocked send learns why the launcher stopped
 * reading.
 */
static int th_boot_recv_msg(int fd, struct th_boot_msg *m, int64_t deadline,
			    int *passed_fd)
{
	int ret = th_boot_recv_all(fd, m, sizeof(*m), deadline, passed_fd);

	if (ret)
		return ret;
	if (m->magic != TH_BOOT_MAGIC)
		return -EPROTO;
	if (m->type == TH_BOOT_ABORT)
		return m->err > 0 ? -m->err : -ECONNRESET;
	return 0;
}

int th_boot_send_all(int fd, const void *buf, size_t len,
			    int64_t deadline)
{
	const char *p = buf;
	struct th_boot_msg m;
	short rev;
	ssize_t n;
	int ret;

	while (len) {
		n = send(fd, p, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n > 0) {
			p += n;
			len -= n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EPIPE || errno == ECONNRESET)) {
			/* the launcher closed after saying why: read it */
			if (!th_boot_recv_all(fd, &m, sizeof(m),
					      th_boot_now_ms(), NULL) &&
			    m.magic == TH_BOOT_MAGIC &&
			    m.type == TH_BOOT_ABORT && m.err > 0)
				return -m.err;
			return -ECONNRESET;
		}
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			return -errno;
		ret = th_boot_wait(fd, POLLOUT | POLLIN, deadline, &rev);
		if (ret)
			return ret;
		if (rev & (POLLIN | POLLHUP | POLLERR)) {
			/* the launcher talks while we send: only to abort */
			ret = th_boot_recv_msg(fd, &m, deadline, NULL);
			return ret ? ret : -EPROTO;
		}
	}
	return 0;
}

int th_boot_fail(struct th_boot *b, int err)
{
	if (!b->err)
		b->err = err;
	return b->err;
}

void th_boot_where(struct th_boot_where *w)
{
	struct stat st;
	FILE *f;

	memset(w, 0, sizeof(*w));
	f = fopen("/proc/sys/kernel/random/boot_id", "re");
	if (f) {
		if (!fgets(w->boot_id, sizeof(w->boot_id), f))
			w->boot_id[0] = '\0';
		fclose(f);
	}
	if (!stat("/proc/self/ns/net", &st))
		w->netns = st.st_ino;
	if (!stat("/proc/self/ns/mnt", &st))
		w->mntns = st.st_ino;
	if (!stat("/proc/self/ns/pid", &st))
		w->pidns = st.st_ino;
	w->pid = getpid();
	w->uid = geteuid();
}

int th_boot_agree(struct th_boot *b, int err)
{
	/* on the stack: a round a rank could not take would hang the rest */
	int32_t mine = err, all[TH_BOOT_MAX_RANKS];
	int i, ret;

	ret = th_boot_allgather(b, &mine, all, sizeof(mine));
	for (i = 0; !ret && !err && i < b->size; i++)
		err = all[i] < 0 ? all[i] : 0;
	return err ? err : ret;
}

int th_boot_env_int(const char *name, long min, long max, int *out)
{
	/* one complaint per variable; the last slot takes any other name */
	static const char *const names[] = { "TH_SIZE", "TH_RANK", "TH_THREADS" };
	static bool said[sizeof(names) / sizeof(names[0]) + 1];
	const char *s = getenv(name);
	char accepted[80];
	unsigned int i;
	char *end;
	long v;

	if (!s || !*s)
		return -ENOENT;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max) {
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcmp(name, names[i]))
				break;
		snprintf(accepted, sizeof(accepted),
			 "a whole number from %ld to %ld", min, max);
		th_env_complain(&said[i], name, s, accepted);
		return -EINVAL;
	}
	*out = (int)v;
	return 0;
}

int th_boot_env_timeout(int64_t *ms)
{
	static bool said;
	const char *s = getenv("TH_BOOT_TIMEOUT");
	double v = TH_BOOT_DEFAULT_TIMEOUT_S;
	char *end;

	if (s && *s) {
		v = strtod(s, &end);
		if (*end || !isfinite(v) || v < 0 || v > 1e9) {
			th_env_complain(&said, "TH_BOOT_TIMEOUT", s,
					"seconds, from 0 (no limit) to 1e9");
			return -EINVAL;
		}
	}
	*ms = v == 0 ? -1 : (int64_t)ceil(v * 1000);
	return 0;
}

/*
 * TH_BOOT=tcp:ADDR:PORT, ADDR numeric (IPv4, or IPv6 in brackets): thrun
 * writes it from its --listen address, and a name would need a resolver
 * that no deadline bounds.
 */
static int th_boot_parse_tcp(const char *spec, struct sockaddr_storage *ss,
			     socklen_t *sslen)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	const char *addr = spec + 4, *colon;
	char host[INET6_ADDRSTRLEN + 1];
	unsigned long port;
	size_t hl;
	char *end;

	if (*addr == '[') {
		colon = strchr(addr, ']');
		if (!colon || colon[1] != ':')
			return -EINVAL;
		addr++;
		hl = colon - addr;
		colon++;
	} else {
		colon = strrchr(addr, ':');
		if (!colon)
			return -EINVAL;
		hl = colon - addr;
	}
	if (!hl || hl >= sizeof(host) || !isdigit((unsigned char)colon[1]))
		return -EINVAL;
	memcpy(host, addr, hl);
	host[hl] = '\0';
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (errno || *end || !port || port > 65535)
		return -EINVAL;
	memset(ss, 0, sizeof(*ss));
	if (addr[-1] == '[') {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		*sslen = sizeof(*s6);
		return inet_pton(AF_INET6, host, &s6->sin6_addr) == 1 ? 0 : -EINVAL;
	}
	s4->sin_family = AF_INET;
	s4->sin_port = htons(port);
	*sslen = sizeof(*s4);
	return inet_pton(AF_INET, host, &s4->sin_addr) == 1 ? 0 : -EINVAL;
}

/* TH_BOOT_KEY: 32 hex digits into @key; 0 and *@have false when unset. */
static int th_boot_env_key(uint8_t key[TH_BOOT_KEY_LEN], bool *have)
{
	static bool said;
	const char *s = getenv("TH_BOOT_KEY");
	unsigned int i, hi, lo;

	*have = false;
	if (!s || !*s)
		return 0;
	for (i = 0; i < TH_BOOT_KEY_LEN; i++) {
		if (!isxdigit((unsigned char)s[2 * i]) ||
		    !isxdigit((unsigned char)s[2 * i + 1]))
			break;
		hi = isdigit((unsigned char)s[2 * i]) ? s[2 * i] - '0' :
		     (tolower((unsigned char)s[2 * i]) - 'a' + 10);
		lo = isdigit((unsigned char)s[2 * i + 1]) ? s[2 * i + 1] - '0' :
		     (tolower((unsigned char)s[2 * i + 1]) - 'a' + 10);
		key[i] = hi << 4 | lo;
	}
	if (i < TH_BOOT_KEY_LEN || s[2 * TH_BOOT_KEY_LEN]) {
		/* not even a malformed key goes to stderr */
		th_env_complain(&said, "TH_BOOT_KEY", "(not shown)",
				"32 hex digits, the job's key from thrun");
		return -EINVAL;
	}
	*have = true;
	return 0;
}

/* Connect to thrun's socket, a path or TH_BOOT=tcp:...; -errno. */
static int th_boot_socket(struct th_boot *b, const char *path,
			  int64_t deadline)
{
	static bool said;
	struct sockaddr_storage ss;
	struct sockaddr_un *un;
	socklen_t sslen, elen;
	bool tcp = !strncmp(path, "tcp:", 4);
	int one = 1, err, ret;
	short rev;

	if (tcp) {
		ret = th_boot_parse_tcp(path, &ss, &sslen);
		if (ret) {
			th_env_complain(&said, "TH_BOOT", path,
					"a socket path, tcp:IPV4:PORT or tcp:[IPV6]:PORT");
			return ret;
		}
	} else {
		memset(&ss, 0, sizeof(ss));
		un = (struct sockaddr_un *)&ss;
		un->sun_family = AF_UNIX;
		if (strlen(path) >= sizeof(un->sun_path))
			return -ENAMETOOLONG;
		strcpy(un->sun_path, path);
		sslen = sizeof(*un);
	}

	b->fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (b->fd < 0)
		return -errno;
	if (tcp) {
		/* a rendezvous is small messages waiting for each other */
		setsockopt(b->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (!connect(b->fd, (struct sockaddr *)&ss, sslen))
			return 0;
		if (errno != EINPROGRESS && errno != EINTR)
			return -errno;
		/* the handshake, bounded as every other wait */
		ret = th_boot_wait(b->fd, POLLOUT, deadline, &rev);
		if (ret)
			return ret;
		elen = sizeof(err);
		if (getsockopt(b->fd, SOL_SOCKET, SO_ERROR, &err, &elen))
			return -errno;
		return -err;
	}
	/* a non-blocking UNIX connect fails with EAGAIN while the backlog is full */
	while (connect(b->fd, (struct sockaddr *)&ss, sslen)) {
		if (errno != EAGAIN && errno != EINTR)
			return -errno;
		if (th_boot_left(deadline) == -ETIMEDOUT)
			return -ETIMEDOUT;
		poll(NULL, 0, TH_BOOT_CONNECT_RETRY_MS);
	}
	return 0;
}

static int th_boot_connect(struct th_boot *b, const char *path,
			   const uint8_t *key)
{
	int64_t deadline = th_boot_deadline(b);
	struct {
		struct th_boot_msg m;
		uint8_t key[TH_BOOT_KEY_LEN];
	} hello = {
		.m = {
			.magic = TH_BOOT_MAGIC,
			.type = TH_BOOT_HELLO,
			.rank = b->rank,
			.size = b->size,
			.len = key ? TH_BOOT_KEY_LEN : 0,
		},
	};
	struct th_boot_msg m;
	int ret;

	_Static_assert(sizeof(hello) == sizeof(hello.m) + TH_BOOT_KEY_LEN,
		       "the key follows the header without padding");
	ret = th_boot_socket(b, path, deadline);
	if (ret)
		return ret;
	if (key)
		memcpy(hello.key, key, TH_BOOT_KEY_LEN);
	/* header and key in one send: one segment on TCP */
	ret = th_boot_send_all(b->fd, &hello,
			       sizeof(hello.m) + hello.m.len, deadline);
	if (ret)
		return ret;
	ret = th_boot_recv_msg(b->fd, &m, deadline, &b->domain_fd);
	if (ret)
		return ret;
	if (m.type != TH_BOOT_WELCOME || m.len ||
	    !!(m.err & TH_BOOT_WELCOME_DOMAIN) != (b->domain_fd >= 0))
		return -EPROTO;
	return 0;
}

/*
 * A job whose ranks are processes on a network provider joins it here:
 * every rank calls th_boot_init() once, so the provider's own bootstrap
 * round (addresses) is collective and comes before any of the program's.
 */
static int th_boot_provider_join(struct th_boot *b, const char *prov)
{
	const struct th_provider_reg *reg = th_provider_find(prov);

	if (!reg || (reg->ops && !reg->ops->join))
		return 0;	/* "auto", or a provider with no network */
	if (!reg->ops)
		return -EPROTONOSUPPORT;	/* not in this build */
	return reg->ops->join(b);
}

/*
 * A provider th_boot_init_allgather() may join: one with a network to
 * join (ofi), or one this build lacks (its call then fails with
 * EPROTONOSUPPORT, as th_boot_init()'s does).
 */
static bool th_boot_provider_joinable(const char *prov)
{
	const struct th_provider_reg *reg = th_provider_find(prov);

	return reg && (!reg->ops || reg->ops->join);
}

/* "auto" off one host: the first registered provider with a network. */
static int th_boot_network_join(struct th_boot *b)
{
	unsigned int i;

	for (i = 0; i < th_nproviders; i++)
		if (th_providers[i].ops && th_providers[i].ops->join)
			return th_providers[i].ops->join(b);
	return -EPROTONOSUPPORT;	/* built without one (libfabric) */
}

/*
 * th_boot_init_allgather()'s join: the job's network (ofi), or a domain
 * of the job's own on this host's th_nic.ko (kernel; share.c), which
 * thrun would otherwise have handed over; auto takes the second when
 * every rank is on one host with the module, else the first.
 */
static int th_boot_allgather_join(struct th_boot *b, const char *prov)
{
	int ret;

	if (!prov || (strcmp(prov, "kernel") && strcmp(prov, "auto")))
		return th_boot_provider_join(b, prov);
	/*
	 * TH_BOOT_TIMEOUT bounds the kernel join's own socket waits, not
	 * @allgather's.  A malformed one is this rank's error in the join's
	 * rounds, which it still takes: the others must not wait for it.
	 */
	ret = th_boot_env_timeout(&b->timeout_ms);
	if (ret)
		b->timeout_ms = TH_BOOT_DEFAULT_TIMEOUT_S * 1000;
	ret = th_boot_share_kernel_domain(b, !strcmp(prov, "auto"), ret);
	if (ret != 1)
		return ret;
	/* auto, and not all on one host with the module */
	return th_boot_network_join(b);
}

struct th_boot *th_boot_init(void)
{
	const char *path = getenv("TH_BOOT");
	const char *single = getenv("TH_SINGLE");
	uint8_t key[TH_BOOT_KEY_LEN];
	struct th_boot *b;
	bool have_key;
	int ret;

	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->fd = -1;
	b->domain_fd = -1;

	if (getenv("TH_THREADS")) {
		/* the ranks are threads: their handles come from th_boot_run() */
		ret = -EOPNOTSUPP;
		goto err_free;
	}
	if (single && !strcmp(single, "1")) {
		b->size = 1;
		return b;
	}
	if (!path || !*path) {
		/* mpiexec's job, or none */
		ret = th_boot_pmi_init(b);
		if (!ret)
			ret = th_boot_provider_join(b, getenv("TH_PROVIDER"));
		if (ret)
			goto err_close;
		return b;
	}
	ret = th_boot_env_int("TH_SIZE", 1, TH_BOOT_MAX_RANKS, &b->size);
	if (!ret)
		ret = th_boot_env_int("TH_RANK", 0, b->size - 1, &b->rank);
	if (!ret)
		ret = th_boot_env_timeout(&b->timeout_ms);
	if (!ret)
		ret = th_boot_env_key(key, &have_key);
	if (ret) {
		ret = -EINVAL;	/* TH_BOOT without a rank is malformed too */
		goto err_free;
	}
	ret = th_boot_connect(b, path, have_key ? key : NULL);
	if (ret)
		goto err_close;
	ret = th_boot_provider_join(b, getenv("TH_PROVIDER"));
	if (ret)
		goto err_close;
	return b;

err_close:
	th_boot_pmi_fini(b);
	if (b->fd >= 0)
		close(b->fd);
	if (b->domain_fd >= 0)
		close(b->domain_fd);
err_free:
	free(b);
	errno = -ret;
	return NULL;
}

struct th_boot *th_boot_init_allgather(int rank, int size,
				       th_boot_allgather_fn allgather,
				       void *arg, const char *provider)
{
	struct th_boot *b;
	int ret;

	if (size < 1 || size > TH_BOOT_MAX_RANKS || rank < 0 || rank >= size ||
	    !allgather || (provider && *provider &&
			   strcmp(provider, "kernel") &&
			   strcmp(provider, "auto") &&
			   !th_boot_provider_joinable(provider))) {
		errno = EINVAL;
		return NULL;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->fd = -1;
	b->domain_fd = -1;
	b->rank = rank;
	b->size = size;
	b->gather = allgather;
	b->gather_arg = arg;
	ret = th_boot_allgather_join(b, provider);
	if (ret) {
		if (b->domain_fd >= 0)
			close(b->domain_fd);
		free(b);
		errno = -ret;
		return NULL;
	}
	return b;
}

int th_boot_rank(const struct th_boot *b)
{
	return b->rank;
}

int th_boot_size(const struct th_boot *b)
{
	return b->size;
}

int th_boot_domain_fd(const struct th_boot *b)
{
	return b->domain_fd >= 0 ? b->domain_fd : -ENOENT;
}

int th_boot_allgather(struct th_boot *b, const void *mine,
				void *all, size_t len)
{
	struct th_boot_msg m = {
		.magic = TH_BOOT_MAGIC,
		.type = TH_BOOT_GATHER,
		.rank = b->rank,
		.len = len,
	};
	size_t total;
	int64_t deadline;
	int ret;

	if (b->err)
		return b->err;
	if (len && (!mine || !all))
		return -EINVAL;
	if (len > TH_BOOT_MAX_GATHER / b->size)
		return -EMSGSIZE;
	total = len * b->size;
	if (b->team)
		return th_boot_fail(b, th_boot_team_allgather(b, mine, all, len));
	if (b->pmi)
		return th_boot_fail(b, th_boot_pmi_allgather(b, mine, all, len));
	if (b->gather) {
		ret = b->gather(b->gather_arg, mine, all, len);
		return th_boot_fail(b, ret > 0 ? -EIO : ret);
	}
	if (b->fd < 0) {
		if (len)
			memmove(all, mine, len);
		return 0;
	}

	deadline = th_boot_deadline(b);
	ret = th_boot_send_all(b->fd, &m, sizeof(m), deadline);
	if (!ret && len)
		ret = th_boot_send_all(b->fd, mine, len, deadline);
	if (!ret)
		ret = th_boot_recv_msg(b->fd, &m, deadline, NULL);
	if (!ret && (m.type != TH_BOOT_RESULT || m.len != total))
		ret = -EPROTO;
	if (!ret && total)
		ret = th_boot_recv_all(b->fd, all, total, deadline, NULL);
	if (ret)
		return th_boot_fail(b, ret);
	return 0;
}

int th_boot_barrier(struct th_boot *b)
{
	return th_boot_allgather(b, NULL, NULL, 0);
}

void th_boot_fini(struct th_boot *b)
{
	struct th_boot_msg m = {
		.magic = TH_BOOT_MAGIC,
		.type = TH_BOOT_BYE,
	};

	if (!b)
		return;
	th_boot_pmi_fini(b);
	if (b->fd >= 0) {
		m.rank = b->rank;
		/* best effort: the launcher also learns from our exit */
		if (!b->err)
			th_boot_send_all(b->fd, &m, sizeof(m),
					 th_boot_now_ms() + TH_BOOT_BYE_MS);
		close(b->fd);
	}
	if (b->domain_fd >= 0)
		close(b->domain_fd);
	free(b);
}
