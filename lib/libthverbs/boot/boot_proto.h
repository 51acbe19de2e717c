/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * boot_proto.h - the wire format between thrun and th_boot clients over
 * the job's UNIX stream socket, or its TCP socket under thrun --hosts:
 * fixed headers, optionally followed by a payload.  Both ends run one
 * build, on one host or on hosts of one byte order (a rank of the other
 * order fails the magic), so fields are in host byte order.
 * Documentation/thrun.rst describes the exchange.
 */
#ifndef TH_BOOT_PROTO_H
#define TH_BOOT_PROTO_H

#include <stdbool.h>
#include <stdint.h>

#define TH_BOOT_MAGIC		0x74686230u	/* "thb0" */

/*
 * thrun --bind auto, for rank processes (thrun's spawn.c) and for rank
 * threads (TH_BIND=auto, which thrun passes to a --threads job: team.c):
 * one rule, so that a job binds alike either way.  Ranks are bound, one
 * per CPU, only when there are ranks to meet (two or more) and each has
 * a CPU of its own; with more ranks than CPUs only the kernel's balancing
 * helps.
 */
static inline bool th_boot_bind_auto(unsigned int ranks, unsigned int cpus)
{
	return ranks >= 2 && ranks <= cpus;
}

enum th_boot_msg_type {
	TH_BOOT_HELLO = 1,	/* rank -> thrun: rank, size; len: key or 0 */
	TH_BOOT_WELCOME,	/* thrun -> rank: joined */
	TH_BOOT_GATHER,		/* rank -> thrun: len bytes follow */
	TH_BOOT_RESULT,		/* thrun -> rank: seq, len = size * per-rank len */
	TH_BOOT_BYE,		/* rank -> thrun: leaving cleanly */
	TH_BOOT_ABORT,		/* thrun -> rank: err; the job is over */
};

/**
 * struct th_boot_msg - every message's header
 * @magic: TH_BOOT_MAGIC
 * @type: enum th_boot_msg_type
 * @rank: the sender's rank (rank -> thrun), the addressee's (thrun -> rank)
 * @size: HELLO: the job size the rank was started with
 * @seq: RESULT: the launcher's round number, from 0
 * @err: ABORT: a positive errno, what the rank's call returns negated;
 *	WELCOME: TH_BOOT_WELCOME_DOMAIN when the message carries the job's
 *	domain descriptor (SCM_RIGHTS, with its first byte)
 * @len: bytes of payload that follow the header; HELLO: 0, or
 *	TH_BOOT_KEY_LEN when it carries the job's key (TH_BOOT_KEY), which
 *	a TCP rendezvous requires and a UNIX one ignores
 */
struct th_boot_msg {
	uint32_t magic;
	uint32_t type;
	uint32_t rank;
	uint32_t size;
	uint32_t seq;
	int32_t err;
	uint64_t len;
};

#define TH_BOOT_WELCOME_DOMAIN	1

/*
 * The job's key under thrun --hosts: 128 random bits, passed to the ranks
 * as TH_BOOT_KEY in 32 hex digits.  A HELLO without it is a HELLO of the
 * UNIX rendezvous as it always was, so neither end's magic changed.
 */
#define TH_BOOT_KEY_LEN		16

_Static_assert(sizeof(struct th_boot_msg) == 32, "wire header is 32 bytes");

#endif /* TH_BOOT_PROTO_H */
