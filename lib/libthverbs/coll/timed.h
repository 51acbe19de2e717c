/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * timed.h - what the library's host-driven code tells the timed mode
 * (coll/timed.c): the work it does on the CPU.
 */
#ifndef TH_COLL_TIMED_H
#define TH_COLL_TIMED_H

#include <stdint.h>

/* The calling thread reduced @bytes of operands on its CPU (timed mode). */
void th_timed_cpu(uint64_t bytes);

#endif
