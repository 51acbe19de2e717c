// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * clock.c - the in-process provider's timed mode: the engine's virtual
 * clock (struct th_eng_timing) installed on the fabric, and one host clock
 * per thread, so that ranks as threads each keep their own time.  A
 * host's command happens at its clock after the software overhead of
 * posting; a wait for a counter updated later than the host's clock
 * brings it there, plus a wake-up; a CPU reduction costs its bytes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "thverbs_priv.h"
#include "inproc.h"

/*
 * Every installation of a clock starts every thread's host clock at 0:
 * a thread whose @th_ip_host_gen is not the current one has not run on it.
 */
static u64 th_ip_timing_gen;
static __thread u64 th_ip_host_fs;
static __thread u64 th_ip_host_gen;

static u64 *th_ip_host_clock(void)
{
	u64 gen = __atomic_load_n(&th_ip_timing_gen, __ATOMIC_ACQUIRE);

	if (th_ip_host_gen != gen) {
		th_ip_host_gen = gen;
		th_ip_host_fs = 0;
	}
	return &th_ip_host_fs;
}

/* struct th_eng_timing.host_now: a host command happens at its thread's */
static u64 th_ip_host_now(void)
{
	return *th_ip_host_clock();
}

static void th_ip_timing_free(struct th_eng_timing *tm)
{
	if (!tm)
		return;
	th_lock_destroy(&tm->lock);
	free(tm->alu_byte_fs);
	free(tm->node_busy);
	free(tm);
}

static struct th_eng_timing *th_ip_timing_alloc(const struct th_timing *t,
						unsigned int nodes)
{
	struct th_eng_timing *tm = calloc(1, sizeof(*tm));

	if (!tm)
		return NULL;
	tm->alu_byte_fs = calloc(nodes, sizeof(u64));
	tm->node_busy = calloc(nodes, sizeof(u64));
	if (!tm->alu_byte_fs || !tm->node_busy) {
		free(tm->alu_byte_fs);
		free(tm->node_busy);
		free(tm);
		return NULL;
	}
	th_lock_init(&tm->lock);
	tm->desc_fs = t->desc_fs;
	tm->latency_fs = t->latency_fs;
	tm->byte_fs = t->byte_fs;
	tm->host_now = th_ip_host_now;
	memcpy(tm->alu_byte_fs, t->alu_fs, nodes * sizeof(u64));
	return tm;
}

/*
 * Put the fabric on a virtual clock with these costs (NULL: real time
 * again), before any vport exists (-EBUSY).  Every thread's host clock
 * starts again at 0.
 */
int th_ip_timing_set(const struct th_timing *t)
{
	struct th_eng_timing *tm = NULL, *old;
	struct th_ipf *f;
	size_t k, slots;
	int err;

	f = th_inproc_get(&err);
	if (!f)
		return err ? err : -ENODEV;
	if (t && (!t->alu_fs || t->nodes < f->eng.lim.nodes))
		return -EINVAL;	/* every node needs its ALU rate */
	if (t) {
		tm = th_ip_timing_alloc(t, f->eng.lim.nodes);
		if (!tm)
			return -ENOMEM;
	}
	slots = (size_t)f->eng.lim.nodes * f->eng.lim.max_vports;
	pthread_mutex_lock(&f->lock);
	for (k = 0; k < slots && !f->vports[k]; k++)
		;
	if (k < slots) {
		pthread_mutex_unlock(&f->lock);
		th_ip_timing_free(tm);	/* not installed */
		return -EBUSY;
	}
	old = f->eng.timing;
	f->eng.timing = tm;
	f->host.wake_fs = t ? t->wake_fs : 0;
	f->host.post_fs = t ? t->post_fs : 0;
	f->host.cpu_byte_fs = t ? t->cpu_byte_fs : 0;
	__atomic_add_fetch(&th_ip_timing_gen, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&f->lock);
	th_ip_timing_free(old);
	return 0;
}

/* The fabric, if it runs on a virtual clock. */
static struct th_ipf *th_ip_timed_fabric(void)
{
	struct th_ipf *f;
	int err;

	f = th_inproc_get(&err);
	return f && f->eng.timing ? f : NULL;
}

/* The calling thread's host clock in femtoseconds; -ENOENT in real time. */
int th_ip_timing_now(uint64_t *host)
{
	if (!th_ip_timed_fabric())
		return -ENOENT;
	*host = *th_ip_host_clock();
	return 0;
}

/* Move the calling thread's host clock to @to, if it is earlier. */
int th_ip_timing_advance(uint64_t to)
{
	u64 *clock;

	if (!th_ip_timed_fabric())
		return -ENOENT;
	clock = th_ip_host_clock();
	if (to > *clock)
		*clock = to;
	return 0;
}

/* When counter @ct of @vp was last updated (what a wait would see). */
int th_ip_timing_seen(const struct th_vport *vp, uint16_t ct, uint64_t *fs)
{
	struct th_ipf_vport *v = vp->priv;

	if (!v->fabric->eng.timing)
		return -ENOENT;
	*fs = th_eng_timing_seen(&v->ev, ct);
	return 0;
}

/* The calling thread reduced @bytes of operands on its CPU. */
void th_ip_timing_cpu(uint64_t bytes)
{
	struct th_ipf *f = th_ip_timed_fabric();

	if (f)
		*th_ip_host_clock() += bytes * f->host.cpu_byte_fs;
}

/* Before a host command to the NIC: the software overhead of posting. */
void th_ip_timing_command(struct th_ipf *f)
{
	if (f->eng.timing)
		*th_ip_host_clock() += f->host.post_fs;
}

/*
 * A wait for counter @ct of @vp returned: a host that got there before the
 * counter's update slept, and runs a wake-up after it.
 */
void th_ip_timing_saw(struct th_ipf_vport *vp, u32 ct)
{
	struct th_ipf *f = vp->fabric;
	u64 t, *clock;

	if (!f->eng.timing)
		return;
	t = th_eng_timing_seen(&vp->ev, ct);
	clock = th_ip_host_clock();
	if (t > *clock)
		*clock = t + f->host.wake_fs;
}
