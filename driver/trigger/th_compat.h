/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * th_compat.h - the only place where the trigger engine touches its host:
 * types, memory, locks and atomics, for the kernel module and userspace.
 *
 * The engine's .c files include this header and nothing else from their
 * environment, so the same code runs in th_nic.ko and in libthverbs.
 */
#ifndef TH_COMPAT_H
#define TH_COMPAT_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/compiler.h>
#include <linux/overflow.h>
#include <asm/barrier.h>

#define th_lock_t		spinlock_t
#define th_lock_init(l)		spin_lock_init(l)
#define th_lock_destroy(l)	do { } while (0)
#define th_lock(l)		spin_lock(l)
#define th_unlock(l)		spin_unlock(l)
#define th_lockdep_assert_held(l) lockdep_assert_held(l)

/* Chains are allocated at the doorbell, in process context only. */
#define th_zalloc(sz)		kzalloc(sz, GFP_KERNEL)
#define th_free(p)		kfree(p)

/*
 * Ring indices and counters are shared with userspace mappings: the
 * producer publishes with release, the consumer reads with acquire.
 */
#define th_load_acquire(p)	smp_load_acquire(p)	/* pairs with release */
#define th_store_release(p, v)	smp_store_release(p, v)	/* pairs with acquire */
#define th_read_once(x)		READ_ONCE(x)
#define th_write_once(x, v)	WRITE_ONCE(x, v)

#define th_unlikely(x)		unlikely(x)

/*
 * The ALU uses SSE registers: the kernel must save the user's FPU state
 * around it.  th_alu.c brackets bounded slices of work with these, so a
 * long reduction never holds preemption off for long.
 */
#include <asm/fpu/api.h>
#include <linux/sched.h>
#define th_fpu_begin()		kernel_fpu_begin()
#define th_fpu_end()		kernel_fpu_end()
#define th_cond_resched()	cond_resched()

#else /* userspace */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <linux/types.h>

typedef __u8  u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s8  s8;
typedef __s16 s16;
typedef __s32 s32;
typedef __s64 s64;

/* The in-process provider's engine may sleep in userspace: a mutex. */
#define th_lock_t		pthread_mutex_t
#define th_lock_init(l)		pthread_mutex_init(l, NULL)
#define th_lock_destroy(l)	pthread_mutex_destroy(l)
#define th_lock(l)		pthread_mutex_lock(l)
#define th_unlock(l)		pthread_mutex_unlock(l)
#define th_lockdep_assert_held(l) do { } while (0)

#define th_zalloc(sz)		calloc(1, sz)
#define th_free(p)		free(p)

#define th_load_acquire(p)	__atomic_load_n(p, __ATOMIC_ACQUIRE)
#define th_store_release(p, v)	__atomic_store_n(p, v, __ATOMIC_RELEASE)
#define th_read_once(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define th_write_once(x, v)	__atomic_store_n(&(x), v, __ATOMIC_RELAXED)

#define th_unlikely(x)		__builtin_expect(!!(x), 0)

#define th_fpu_begin()		do { } while (0)
#define th_fpu_end()		do { } while (0)
#define th_cond_resched()	do { } while (0)

#ifndef check_add_overflow
#define check_add_overflow(a, b, d)	__builtin_add_overflow(a, b, d)
#define check_mul_overflow(a, b, d)	__builtin_mul_overflow(a, b, d)
#endif

/* sparse annotations used by the engine; meaningless outside the kernel */
#ifndef __must_hold
#define __must_hold(x)
#define __acquires(x)
#define __releases(x)
#endif

#endif /* __KERNEL__ */

#endif /* TH_COMPAT_H */
