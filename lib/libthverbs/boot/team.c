// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * team.c - ranks as threads: th_boot_run() and th_boot_run_threads() run a
 * rank's program in N threads of one process, each with a th_boot handle
 * whose allgather and barrier meet the other threads, under the same
 * rules as one process per rank (sticky failures, TH_BOOT_TIMEOUT, a rank
 * that left ends the job's rendezvous).
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "thverbs_priv.h"
#include <thverbs/boot.h>
#include "boot_priv.h"

/*
 * Gathers are numbered; gather g uses buffer g % 2.  A thread may enter
 * gather g + 1 (and write buffer (g + 1) % 2) while a slow one still
 * copies out of buffer g % 2, but gather g + 2 cannot complete, and so
 * cannot be entered past its first writer, until every thread arrived at
 * g + 1, that is, finished copying g out.  Writers of g + 2 therefore
 * wait until that gather's buffer is no longer read: see th_team_enter().
 */
struct th_boot_team {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int size;
	uint64_t gen;		/* the gather being filled */
	int arrived;		/* in gen */
	int copied[2];		/* threads done reading each buffer's result */
	size_t len[2];
	unsigned char *buf[2];
	int err;		/* sticky for the whole team */
	int left;		/* ranks whose program returned */
	int64_t timeout_ms;
};

struct th_team_rank {
	struct th_boot b;
	pthread_t thread;
	th_boot_rank_fn fn;
	void *arg;
	int ret;
};

static void th_team_fail_locked(struct th_boot_team *t, int err)
{
	if (!t->err)
		t->err = err;
	pthread_cond_broadcast(&t->cond);
}

/* Wait on the team's condition until the absolute @deadline_ms (-1: none). */
static int th_team_wait_locked(struct th_boot_team *t, int64_t deadline_ms)
{
	struct timespec ts;
	int64_t left;

	if (deadline_ms < 0) {
		pthread_cond_wait(&t->cond, &t->lock);
		return 0;
	}
	left = deadline_ms - th_boot_now_ms();
	if (left <= 0)
		return -ETIMEDOUT;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += left / 1000;
	ts.tv_nsec += (left % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	pthread_cond_timedwait(&t->cond, &t->lock, &ts);
	return 0;
}

int th_boot_team_allgather(struct th_boot *b, const void *mine, void *all,
			   size_t len)
{
	struct th_boot_team *t = b->team;
	int64_t deadline = t->timeout_ms < 0 ? -1 :
			   th_boot_now_ms() + t->timeout_ms;
	uint64_t gen;
	int ret = 0, i;

	pthread_mutex_lock(&t->lock);
	gen = t->gen;
	i = gen % 2;
	/* the first writer of this buffer waits until its last reader is done */
	while (!t->err && t->arrived == 0 && t->copied[i] < t->size && !ret)
		ret = th_team_wait_locked(t, deadline);
	if (!ret && !t->err && t->left)
		th_team_fail_locked(t, -ECONNRESET);	/* a rank is gone */
	if (!ret && !t->err && t->arrived == 0) {
		free(t->buf[i]);
		t->buf[i] = len ? malloc(len * t->size) : NULL;
		t->len[i] = len;
		t->copied[i] = 0;
		if (len && !t->buf[i])
			th_team_fail_locked(t, -ENOMEM);
	}
	if (!ret && !t->err && t->len[i] != len)
		th_team_fail_locked(t, -EPROTO);
	if (ret || t->err)
		goto out;
	if (len)
		memcpy(t->buf[i] + (size_t)b->rank * len, mine, len);
	if (++t->arrived == t->size) {
		t->arrived = 0;
		t->gen++;
		pthread_cond_broadcast(&t->cond);
	}
	while (!t->err && t->gen == gen && !ret)
		ret = th_team_wait_locked(t, deadline);
	if (!ret && !t->err) {
		if (len)
			memcpy(all, t->buf[i], len * t->size);
		if (++t->copied[i] == t->size)
			pthread_cond_broadcast(&t->cond);
	}
out:
	if (ret)
		th_team_fail_locked(t, ret);
	ret = t->err;
	pthread_mutex_unlock(&t->lock);
	return ret;
}

static void *th_team_thread(void *arg)
{
	struct th_team_rank *r = arg;
	struct th_boot_team *t = r->b.team;

	r->ret = r->fn(&r->b, r->arg);
	pthread_mutex_lock(&t->lock);
	/* a rendezvous still waiting for this rank will never complete */
	t->left++;
	if (t->arrived)
		th_team_fail_locked(t, -ECONNRESET);
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

int th_boot_run_threads(unsigned int n, th_boot_rank_fn fn,
				  void *arg)
{
	struct th_boot_team t = { .size = n };
	struct th_team_rank *r;
	unsigned int i, started = 0;
	int ret;

	if (!n || n > TH_BOOT_MAX_RANKS || !fn)
		return -EINVAL;
	ret = th_boot_env_timeout(&t.timeout_ms);
	if (ret)
		return ret;
	r = calloc(n, sizeof(*r));
	if (!r)
		return -ENOMEM;
	pthread_mutex_init(&t.lock, NULL);
	pthread_cond_init(&t.cond, NULL);
	t.copied[0] = t.copied[1] = n;
	for (i = 0; i < n; i++) {
		r[i].b = (struct th_boot){
			.fd = -1, .domain_fd = -1, .rank = i, .size = n,
			.timeout_ms = t.timeout_ms, .team = &t,
		};
		r[i].fn = fn;
		r[i].arg = arg;
	}
	for (i = 0; i < n; i++) {
		ret = -pthread_create(&r[i].thread, NULL, th_team_thread, &r[i]);
		if (ret)
			break;
		started++;
	}
	if (ret) {
		/* the ranks that started cannot meet the missing ones */
		pthread_mutex_lock(&t.lock);
		th_team_fail_locked(&t, ret);
		pthread_mutex_unlock(&t.lock);
	}
	for (i = 0; i < started; i++) {
		pthread_join(r[i].thread, NULL);
		if (!ret)
			ret = r[i].ret;
	}
	free(t.buf[0]);
	free(t.buf[1]);
	pthread_cond_destroy(&t.cond);
	pthread_mutex_destroy(&t.lock);
	free(r);
	return ret;
}

int th_boot_run(th_boot_rank_fn fn, void *arg)
{
	struct th_boot *b;
	int n, ret;

	if (!fn)
		return -EINVAL;
	if (getenv("TH_THREADS")) {
		ret = th_boot_env_int("TH_THREADS", 1, TH_BOOT_MAX_RANKS, &n);
		return ret ? -EINVAL : th_boot_run_threads(n, fn, arg);
	}
	b = th_boot_init();
	if (!b)
		return -errno;
	ret = fn(b, arg);
	th_boot_fini(b);
	return ret;
}
