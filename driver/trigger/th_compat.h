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
#include <linux/mutex.h>
#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/overflow.h>
#include <linux/build_bug.h>
#include <asm/barrier.h>

/* Taken from execution contexts: never sleeps. */
#define th_lock_t		spinlock_t
#define th_lock_init(l)		spin_lock_init(l)
#define th_lock_destroy(l)	do { } while (0)
#define th_lock(l)		spin_lock(l)
#define th_unlock(l)		spin_unlock(l)
#define th_lockdep_assert_held(l) lockdep_assert_held(l)

/* Serialises doorbells, which allocate: may sleep. */
#define th_mutex_t		struct mutex
#define th_mutex_init(m)	mutex_init(m)
#define th_mutex_destroy(m)	mutex_destroy(m)
#define th_mutex_lock(m)	mutex_lock(m)
#define th_mutex_unlock(m)	mutex_unlock(m)

/* Per-user tallies, updated from any context. */
#define th_atomic_t		atomic_t
#define th_atomic_set(a, v)	atomic_set(a, v)
#define th_atomic_read(a)	atomic_read(a)
#define th_atomic_inc_return(a)	atomic_inc_return(a)
#define th_atomic_add_return(v, a) atomic_add_return(v, a)
#define th_atomic_sub(v, a)	atomic_sub(v, a)
#define th_atomic_dec(a)	atomic_dec(a)

/*
 * Everything the engine allocates is allocated on behalf of the calling
 * process (vport creation, the doorbell), in process context: charge it to
 * that process's memory cgroup, and when the cgroup (or the machine) has
 * no room, fail the call with -ENOMEM instead of invoking the OOM killer
 * or warning in the log (TH_GFP_USER, also used by the module).
 */
#define TH_GFP_USER	(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)
#define th_zalloc(sz)		kzalloc(sz, TH_GFP_USER)
#define th_free(p)		kfree(p)
/* The fabric's own tables, sized by its node count, at module load. */
#define th_vzalloc(sz)		kvzalloc(sz, GFP_KERNEL)
#define th_vfree(p)		kvfree(p)

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
 * long reduction never holds preemption off for long.  kernel_fpu_begin()
 * also loads the default MXCSR (round to nearest, no flush-to-zero), so
 * results never depend on the interrupted task's floating-point mode.
 */
#include <asm/fpu/api.h>
#include <linux/sched.h>
#define th_fpu_state_t		int
#define th_fpu_begin(st)	((void)(st), kernel_fpu_begin())
#define th_fpu_end(st)		((void)(st), kernel_fpu_end())
/*
 * Chains run in process context (a system call or the NIC's worker) with
 * no spinlock held: long operations yield between slices.
 */
#define th_cond_resched()	cond_resched()

/*
 * Trace events (driver/th_trace.h): the module's tracepoints, cheap when
 * no one traces.  Userspace builds have none.
 */
void th_trace_post(u32 node, u32 vport, u64 id, u64 cookie, u32 ndesc, u32 ct,
		   u64 threshold);
void th_trace_fire(u32 node, u32 vport, u64 id, u64 cookie, int status);
void th_trace_complete(u32 node, u32 vport, u64 id, u64 cookie, int status,
		       u32 at);
void th_trace_deliver(u32 node, u32 vport, u32 to_node, u32 to_vport, u8 op,
		      u64 len);
void th_trace_fault(u32 node, u32 vport, u64 id, u8 kind, u32 tries);
void th_trace_park(u32 node, u32 vport, u64 id, u64 cookie, u32 rounds);
#else /* userspace */

#include <assert.h>
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

#define U64_MAX			((u64)~0ULL)

/*
 * The engine's lock in userspace.  The kernel's is a spinlock, held for a
 * few stores, and so is this one; but a thread of a provider may lose its
 * CPU while it holds it, so a thread that finds it taken spins only a
 * while, then sleeps (th_lock_user.c).  A word: 0 free, 1 held, 2 held
 * and a thread may sleep on it (the third mutex of Drepper's "Futexes Are
 * Tricky").  Taking and letting go a free lock is one atomic instruction
 * each, inline.  glibc's default mutex costs two calls that check its kind
 * (240 pairs make a sixth of the instructions of an 8-byte Allreduce of
 * 16 ranks in one process), and a thread that finds it taken sleeps at
 * once: two system calls for a hold far shorter than either, which ranks
 * as threads, taking each other's vport locks, paid on every contention.
 */
struct th_lock_word {
	u32 word;
};

#define th_lock_t		struct th_lock_word

/* A spinning thread's pause between two looks: the CPU's, not the kernel's. */
static inline void th_cpu_relax(void)
{
#if defined(__x86_64__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
#endif
}

void th_lock_slow(th_lock_t *l);
void th_lock_wake(th_lock_t *l);

static inline void th_lock_init(th_lock_t *l)
{
	__atomic_store_n(&l->word, 0, __ATOMIC_RELAXED);
}

#define th_lock_destroy(l)	((void)(l))

static inline void th_lock(th_lock_t *l)
{
	u32 free = 0;

	if (!__atomic_compare_exchange_n(&l->word, &free, 1, false,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		th_lock_slow(l);
}

static inline void th_unlock(th_lock_t *l)
{
	if (__atomic_exchange_n(&l->word, 0, __ATOMIC_RELEASE) == 2)
		th_lock_wake(l);
}

#define th_lockdep_assert_held(l) do { } while (0)

#define th_mutex_t		pthread_mutex_t
#define th_mutex_init(m)	pthread_mutex_init(m, NULL)
#define th_mutex_destroy(m)	pthread_mutex_destroy(m)
#define th_mutex_lock(m)	pthread_mutex_lock(m)
#define th_mutex_unlock(m)	pthread_mutex_unlock(m)

struct th_atomic_u {
	int v;
};

#define th_atomic_t		struct th_atomic_u
#define th_atomic_set(a, n)	__atomic_store_n(&(a)->v, n, __ATOMIC_RELAXED)
#define th_atomic_read(a)	__atomic_load_n(&(a)->v, __ATOMIC_RELAXED)
#define th_atomic_inc_return(a)	__atomic_add_fetch(&(a)->v, 1, __ATOMIC_SEQ_CST)
#define th_atomic_add_return(n, a) __atomic_add_fetch(&(a)->v, n, __ATOMIC_SEQ_CST)
#define th_atomic_sub(n, a)	((void)__atomic_sub_fetch(&(a)->v, n, __ATOMIC_SEQ_CST))
#define th_atomic_dec(a)	th_atomic_sub(1, a)

#define th_zalloc(sz)		calloc(1, sz)
#define th_free(p)		free(p)
#define th_vzalloc(sz)		calloc(1, sz)
#define th_vfree(p)		free(p)

#define th_load_acquire(p)	__atomic_load_n(p, __ATOMIC_ACQUIRE)
#define th_store_release(p, v)	__atomic_store_n(p, v, __ATOMIC_RELEASE)
#define th_read_once(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define th_write_once(x, v)	__atomic_store_n(&(x), v, __ATOMIC_RELAXED)

#define th_unlikely(x)		__builtin_expect(!!(x), 0)

/*
 * The ALU computes under the default floating-point environment whatever
 * the calling thread set (rounding mode, flush-to-zero, denormals-are-
 * zero), as the kernel's does, and leaves the caller's untouched: float
 * results are then the same bits on both providers.  On x86-64 the SSE
 * unit does all float arithmetic, so MXCSR is the whole environment.
 */
#if defined(__x86_64__)
#include <xmmintrin.h>
#define TH_MXCSR_DEFAULT	0x1f80
#define th_fpu_state_t		unsigned int
#define th_fpu_begin(st)	do {					\
		*(st) = _mm_getcsr();					\
		_mm_setcsr(TH_MXCSR_DEFAULT);				\
	} while (0)
#define th_fpu_end(st)		_mm_setcsr(*(st))
#else
#include <fenv.h>
#define th_fpu_state_t		fenv_t
#define th_fpu_begin(st)	do {					\
		fegetenv(st);						\
		fesetenv(FE_DFL_ENV);					\
	} while (0)
#define th_fpu_end(st)		fesetenv(st)
#endif
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

/* a parameter a table's signature needs and this function does not */
#ifndef __always_unused
#define __always_unused	__attribute__((__unused__))
#endif

/* No trace events in userspace (the module's are in driver/th_trace.h). */
#define th_trace_post(n, v, id, c, nd, ct, t) \
	do { (void)(n); (void)(v); (void)(id); (void)(c); (void)(nd); \
	     (void)(ct); (void)(t); } while (0)
#define th_trace_fire(n, v, id, c, s) \
	do { (void)(n); (void)(v); (void)(id); (void)(c); (void)(s); } while (0)
#define th_trace_complete(n, v, id, c, s, at) \
	do { (void)(n); (void)(v); (void)(id); (void)(c); (void)(s); (void)(at); } while (0)
#define th_trace_deliver(n, v, tn, tv, op, len) \
	do { (void)(n); (void)(v); (void)(tn); (void)(tv); (void)(op); (void)(len); } while (0)
#define th_trace_fault(n, v, c, k, t) \
	do { (void)(n); (void)(v); (void)(c); (void)(k); (void)(t); } while (0)
#define th_trace_park(n, v, id, c, r) \
	do { (void)(n); (void)(v); (void)(id); (void)(c); (void)(r); } while (0)

#endif /* __KERNEL__ */

#endif /* TH_COMPAT_H */
