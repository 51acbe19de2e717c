// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * pmi.c - joining a job that MPICH's mpiexec (Hydra) launched, instead of
 * thrun: the PMI-1 wire protocol ("simple PMI") over the socket Hydra
 * passes each process in PMI_FD, with its rank and the job's size in
 * PMI_RANK and PMI_SIZE.  An allgather puts each rank's bytes into the
 * job's key-value space (hex, in pieces of at most vallen_max), meets the
 * others in a PMI barrier and gets theirs; a barrier is a PMI barrier.
 * Every wait is a poll() against the call's deadline (TH_BOOT_TIMEOUT).
 *
 * The protocol, one line per command and per answer, "key=value" words:
 *   cmd=init pmi_version=1 pmi_subversion=1  -> cmd=response_to_init ... rc=0
 *   cmd=get_maxes              -> cmd=maxes kvsname_max= keylen_max= vallen_max=
 *   cmd=get_my_kvsname         -> cmd=my_kvsname kvsname=
 *   cmd=put kvsname= key= value=   -> cmd=put_result rc=0
 *   cmd=barrier_in             -> cmd=barrier_out
 *   cmd=get kvsname= key=      -> cmd=get_result rc=0 value=
 *   cmd=finalize               -> cmd=finalize_ack
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "thverbs_priv.h"
#include <thverbs/boot.h>
#include "boot_priv.h"

/* the longest line either side sends: a put of vallen_max hex digits */
#define TH_PMI_LINE_MAX		2048
#define TH_PMI_NAME_MAX		256

struct th_boot_pmi {
	int fd;
	char kvs[TH_PMI_NAME_MAX];
	size_t vallen;		/* bytes a value may hold (hex: half) */
	unsigned int seq;	/* allgathers so far: each one's keys are new */
	char in[TH_PMI_LINE_MAX];
	size_t have;		/* bytes of @in read but not yet a line */
};

static int64_t th_pmi_deadline(const struct th_boot *b)
{
	return b->timeout_ms < 0 ? -1 : th_boot_now_ms() + b->timeout_ms;
}

/* Wait for @events on @fd until @deadline (-1: for ever); -ETIMEDOUT. */
static int th_pmi_wait(int fd, short events, int64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = events };
	int64_t left;
	int n;

	for (;;) {
		left = deadline < 0 ? -1 : deadline - th_boot_now_ms();
		if (deadline >= 0 && left <= 0)
			return -ETIMEDOUT;
		n = poll(&p, 1, left > 1000 || left < 0 ? 1000 : (int)left);
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
	}
}

static int th_pmi_send(struct th_boot_pmi *p, const char *line, int64_t deadline)
{
	size_t len = strlen(line), off = 0;
	ssize_t n;
	int ret;

	while (off < len) {
		ret = th_pmi_wait(p->fd, POLLOUT, deadline);
		if (ret)
			return ret;
		n = write(p->fd, line + off, len - off);
		if (n < 0 && errno != EINTR && errno != EAGAIN)
			return -errno;
		if (n > 0)
			off += n;
	}
	return 0;
}

/* The next line from the server, without its newline, into @line. */
static int th_pmi_recv(struct th_boot_pmi *p, char *line, size_t cap,
		       int64_t deadline)
{
	char *nl;
	ssize_t n;
	size_t len;
	int ret;

	for (;;) {
		nl = memchr(p->in, '\n', p->have);
		if (nl) {
			len = nl - p->in;
			if (len >= cap)
				return -EPROTO;
			memcpy(line, p->in, len);
			line[len] = '\0';
			p->have -= len + 1;
			memmove(p->in, nl + 1, p->have);
			return 0;
		}
		if (p->have == sizeof(p->in))
			return -EPROTO;		/* a line longer than any answer */
		ret = th_pmi_wait(p->fd, POLLIN, deadline);
		if (ret)
			return ret;
		n = read(p->fd, p->in + p->have, sizeof(p->in) - p->have);
		if (n == 0)
			return -ECONNRESET;	/* mpiexec went away */
		if (n < 0 && errno != EINTR && errno != EAGAIN)
			return -errno;
		if (n > 0)
			p->have += n;
	}
}

/*
 * The value of word @key in @line ("key=value" words separated by
 * spaces), into @out; -EPROTO if it has none.
 */
static int th_pmi_field(const char *line, const char *key, char *out,
			size_t cap)
{
	size_t klen = strlen(key), len;
	const char *w = line, *end;

	while (w && *w) {
		while (*w == ' ')
			w++;
		end = strchr(w, ' ');
		len = end ? (size_t)(end - w) : strlen(w);
		if (len > klen && !strncmp(w, key, klen) && w[klen] == '=') {
			len -= klen + 1;
			if (len >= cap)
				return -EPROTO;
			memcpy(out, w + klen + 1, len);
			out[len] = '\0';
			return 0;
		}
		w = end;
	}
	return -EPROTO;
}

/*
 * Send @cmd and read the answer into @line: it must be command @want,
 * and its rc (if it has one) 0.
 */
static int th_pmi_call(struct th_boot_pmi *p, const char *cmd, const char *want,
		       char *line, size_t cap, int64_t deadline)
{
	char got[64], rc[16];
	int ret;

	ret = th_pmi_send(p, cmd, deadline);
	if (!ret)
		ret = th_pmi_recv(p, line, cap, deadline);
	if (ret)
		return ret;
	if (th_pmi_field(line, "cmd", got, sizeof(got)) || strcmp(got, want))
		return -EPROTO;
	if (!th_pmi_field(line, "rc", rc, sizeof(rc)) && strcmp(rc, "0"))
		return -EIO;
	return 0;
}

/* PMI_FD, PMI_RANK, PMI_SIZE: Hydra launched this process.  Else -ENOENT. */
int th_boot_pmi_init(struct th_boot *b)
{
	char line[TH_PMI_LINE_MAX], val[TH_PMI_NAME_MAX];
	struct th_boot_pmi *p;
	int64_t deadline;
	int fd, ret;

	if (!getenv("PMI_FD"))
		return -ENOENT;
	ret = th_boot_env_int("PMI_FD", 0, 65535, &fd);
	if (!ret)
		ret = th_boot_env_int("PMI_SIZE", 1, TH_BOOT_MAX_RANKS, &b->size);
	if (!ret)
		ret = th_boot_env_int("PMI_RANK", 0, b->size - 1, &b->rank);
	if (!ret)
		ret = th_boot_env_timeout(&b->timeout_ms);
	if (ret)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->fd = fd;
	b->pmi = p;
	deadline = th_pmi_deadline(b);
	ret = th_pmi_call(p, "cmd=init pmi_version=1 pmi_subversion=1\n",
			  "response_to_init", line, sizeof(line), deadline);
	if (!ret)
		ret = th_pmi_call(p, "cmd=get_maxes\n", "maxes", line,
				  sizeof(line), deadline);
	if (!ret)
		ret = th_pmi_field(line, "vallen_max", val, sizeof(val));
	if (!ret) {
		p->vallen = strtoul(val, NULL, 10);
		if (p->vallen < 64)
			ret = -EPROTO;
		/* the hex of a piece, its key and the command fit one line */
		if (p->vallen > TH_PMI_LINE_MAX - 512)
			p->vallen = TH_PMI_LINE_MAX - 512;
	}
	if (!ret)
		ret = th_pmi_call(p, "cmd=get_my_kvsname\n", "my_kvsname", line,
				  sizeof(line), deadline);
	if (!ret)
		ret = th_pmi_field(line, "kvsname", p->kvs, sizeof(p->kvs));
	if (ret) {
		free(p);
		b->pmi = NULL;
	}
	return ret;
}

static const char th_pmi_hex[] = "0123456789abcdef";

/* Put piece @piece of rank @b->rank's @len bytes at @mine. */
static int th_pmi_put(struct th_boot *b, unsigned int piece, const uint8_t *mine,
		      size_t len, int64_t deadline)
{
	struct th_boot_pmi *p = b->pmi;
	char line[TH_PMI_LINE_MAX];
	char *v;
	size_t i;
	int n;

	n = snprintf(line, sizeof(line), "cmd=put kvsname=%s key=th%u.%d.%u value=",
		     p->kvs, p->seq, b->rank, piece);
	if (n < 0 || (size_t)n + 2 * len + 2 > sizeof(line))
		return -EMSGSIZE;
	v = line + n;
	for (i = 0; i < len; i++) {
		*v++ = th_pmi_hex[mine[i] >> 4];
		*v++ = th_pmi_hex[mine[i] & 15];
	}
	*v++ = '\n';
	*v = '\0';
	return th_pmi_call(p, line, "put_result", line, sizeof(line), deadline);
}

static int th_pmi_unhex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Get piece @piece of rank @rank's @len bytes into @out. */
static int th_pmi_get(struct th_boot *b, int rank, unsigned int piece, uint8_t *out,
		      size_t len, int64_t deadline)
{
	struct th_boot_pmi *p = b->pmi;
	char line[TH_PMI_LINE_MAX], cmd[TH_PMI_NAME_MAX + 64];
	const char *v;
	size_t i;
	int hi, lo, ret;

	snprintf(cmd, sizeof(cmd), "cmd=get kvsname=%s key=th%u.%d.%u\n", p->kvs,
		 p->seq, rank, piece);
	ret = th_pmi_call(p, cmd, "get_result", line, sizeof(line), deadline);
	if (ret)
		return ret;
	v = strstr(line, " value=");
	if (!v)
		return -EPROTO;
	v += 7;
	for (i = 0; i < len; i++) {
		hi = th_pmi_unhex(v[2 * i]);
		lo = hi < 0 ? -1 : th_pmi_unhex(v[2 * i + 1]);
		if (lo < 0)
			return -EPROTO;
		out[i] = hi << 4 | lo;
	}
	return v[2 * len] == '\0' || v[2 * len] == ' ' ? 0 : -EPROTO;
}

/* th_boot_allgather() through the job's PMI key-value space. */
int th_boot_pmi_allgather(struct th_boot *b, const void *mine, void *all,
			  size_t len)
{
	struct th_boot_pmi *p = b->pmi;
	size_t per = p->vallen / 2, off, n;
	int64_t deadline = th_pmi_deadline(b);
	char line[TH_PMI_LINE_MAX];
	unsigned int piece;
	int r, ret = 0;

	for (off = 0, piece = 0; !ret && off < len; off += n, piece++) {
		n = len - off < per ? len - off : per;
		ret = th_pmi_put(b, piece, (const uint8_t *)mine + off, n, deadline);
	}
	if (!ret)
		ret = th_pmi_call(p, "cmd=barrier_in\n", "barrier_out", line,
				  sizeof(line), deadline);
	for (r = 0; !ret && len && r < b->size; r++) {
		if (r == b->rank) {
			memmove((uint8_t *)all + r * len, mine, len);
			continue;
		}
		for (off = 0, piece = 0; !ret && off < len; off += n, piece++) {
			n = len - off < per ? len - off : per;
			ret = th_pmi_get(b, r, piece, (uint8_t *)all + r * len + off,
					 n, deadline);
		}
	}
	p->seq++;
	return ret;
}

/* Tell mpiexec this process is done with PMI (best effort), and let go. */
void th_boot_pmi_fini(struct th_boot *b)
{
	char line[TH_PMI_LINE_MAX];

	if (!b->pmi)
		return;
	if (!b->err)
		th_pmi_call(b->pmi, "cmd=finalize\n", "finalize_ack", line,
			    sizeof(line), th_boot_now_ms() + 1000);
	close(b->pmi->fd);
	free(b->pmi);
	b->pmi = NULL;
}
