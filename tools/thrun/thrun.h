/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * thrun.h - what thrun's stages share (thrun.c says what each file holds):
 * its limits, the job with its ranks, connections and allgather round,
 * and the functions one stage calls in another.
 */
#ifndef THRUN_H
#define THRUN_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

#include <thverbs/boot.h>
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

/* --bind: where each local rank process may run */
enum job_bind {
	BIND_AUTO,	/* BIND_CPU when every rank has a CPU, else BIND_NONE */
	BIND_CPU,	/* rank r on the r-th CPU of thrun's set, round robin */
	BIND_NONE,	/* on thrun's whole set */
};

struct job {
	int nodes;		/* -n: TH_SIZE */
	int nranks;		/* processes: nodes, or 1 under --single */
	bool single;
	bool threads;	/* --threads: one process, a thread per rank */
	const char *provider;
	double timeout_s;	/* 0: none */
	double grace_s;
	enum job_bind bind;
	int *cpus;		/* rank r's CPU is cpus[r % ncpus]; NULL: unbound */
	int ncpus;
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
};

/* the job, the one thrun runs (thrun.c) */
extern struct job job;

/* msg.c */
int64_t now_ms(void);
void th_msg(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* args.c */
void usage(FILE *f);
int parse_args(int argc, char **argv);
const char *bind_name(enum job_bind b);

/* rendezvous.c */
void rbuf_put(struct rbuf *rb);
void conn_close(int ci);
void conn_queue(struct conn *c, uint32_t type, int err,
		struct rbuf *data);
bool conn_flush(struct conn *c);
void round_check_gone(void);
void conn_refuse(struct conn *c, int err, const char *why);
bool conn_read(struct conn *c);
void conn_drop(int ci);
void conn_accept(void);
int socket_open(void);
int tcp_open(void);

/* spawn.c */
bool ranks_start(void);

/* supervise.c */
void on_signal(int sig);
void job_fail(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void loop(void);

/* domain.c */
bool job_uses_kernel(void);
int domain_open(void);

#endif /* THRUN_H */
