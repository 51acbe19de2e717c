// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * th_lock_user.c - the engine's lock in userspace, once it is taken: spin
 * a while, then sleep on its word (th_compat.h has the free path, inline).
 * The kernel's engine lock is a spinlock: Kbuild does not build this file.
 */
#ifndef __KERNEL__
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "th_compat.h"

/* a hold is a few stores: 128 looks, about 2 us here, outlast a holder that runs */
#define TH_LOCK_SPINS		128

/*
 * Spin while the holder is running (the word says 1: nobody sleeps), at
 * most TH_LOCK_SPINS looks; then say a sleeper is coming (2), so that the
 * holder's th_unlock() wakes one, and sleep until the word is taken from 0.
 * A thread woken takes it as 2: it cannot know whether others still sleep,
 * and a spurious wake-up costs less than a lost one.
 */
void th_lock_slow(th_lock_t *l)
{
	u32 seen;
	int i;

	for (i = 0; i < TH_LOCK_SPINS; i++) {
		seen = __atomic_load_n(&l->word, __ATOMIC_RELAXED);
		if (seen == 2)
			break;
		if (!seen &&
		    __atomic_compare_exchange_n(&l->word, &seen, 1, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return;
		th_cpu_relax();
	}
	while (__atomic_exchange_n(&l->word, 2, __ATOMIC_ACQUIRE))
		syscall(SYS_futex, &l->word, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
}

/* th_unlock() found a sleeper's mark: wake one. */
void th_lock_wake(th_lock_t *l)
{
	syscall(SYS_futex, &l->word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}
#endif /* __KERNEL__ */
