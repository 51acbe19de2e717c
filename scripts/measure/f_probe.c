// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * f_probe.c - what one unprivileged user can do to the NIC, measured, for
 * the before/after report of issue F (scripts/measure/f-before-after.sh).
 * It builds against ABI 1 (the tree before F) and ABI 2, through the
 * public libthverbs API plus a few raw ioctls, and prints "F key value"
 * lines; it judges nothing (the tests do).
 *
 * Usage: f_probe MODE [ARGS]
 *   guess SECONDS     remote-key guesses per second (zero-length PUTs)
 *   memory            vports and pending chains until refused; kernel
 *                     memory held (/proc/meminfo), the process's own RSS
 *   doorbell          the longest doorbell posting a 256 MiB COPY chain
 *   vports            vports one user can create on the whole fabric
 *   private           MAP_PRIVATE of a ring mapping
 *   bigsize           an 8 KiB QUERY struct with a zero tail
 *   crossuser UID     as UID, PUT with the right key into another user's
 *                     vport, and the errors for a missing vport and key
 *   poison UID        as UID, cancel 1000 chains naming another user's
 *                     counters with guessed keys; counters poisoned
 *   memlock           pinned-page charge after a child registered, exited
 *   selftarget        a remote inline write to one's own vport, then exit:
 *                     does the process end?
 *   fpmode            a float REDUCE posted under rounding-up with
 *                     flush-to-zero: the same bits as under the default?
 *   badmemory         registering unmapped and PROT_NONE memory
 */
#include <errno.h>
#include <fcntl.h>
#include <fenv.h>
#include <grp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <xmmintrin.h>

#include <linux/th_nic.h>
#include <thverbs/verbs.h>

/*
 * ABI 2: 64-bit remote keys, and a wrong guess ends the guesser's vport,
 * so the best attack posts one guess per vport.  ABI 1: 32-bit keys, and
 * a doorbell of 256 guesses at a time.
 */
#if TH_NIC_ABI_VERSION >= 2
typedef uint64_t rkey_t;
#define RKEY(mr)		th_mr_rkey(mr)
#define REMOTE(n, v, k, o)	{ .node = n, .vport = v, .rkey = k, .off = o }
#define KEY_BITS		64
#define GUESS_BATCH		1
#else
typedef uint32_t rkey_t;
#define RKEY(mr)		th_mr_key(mr)
#define REMOTE(n, v, k, o)	{ .node = n, .vport = v, .key = k, .off = o }
#define KEY_BITS		32
#define GUESS_BATCH		256
#endif

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void become(uid_t uid)
{
	if (getuid() || !uid)
		return;
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid)) {
		perror("f_probe: become");
		exit(2);
	}
}

static struct th_device **devs;
static int ndev;

static struct th_context *node(int n)
{
	static struct th_context *ctx[1024];

	if (!devs)
		devs = th_device_list_get(NULL, &ndev);
	if (!devs || n >= ndev)
		return NULL;
	if (!ctx[n])
		ctx[n] = th_device_open(devs[n]);
	return ctx[n];
}

static unsigned int slot_bits(void)
{
	struct th_nic_query q;
	unsigned int bits = 0;

	th_device_query(node(0), &q);
	while ((1U << bits) < q.max_mrs)
		bits++;
	return bits;
}

/* ---- guess ----------------------------------------------------------- */

static int mode_guess(double seconds)
{
	static char tbuf[64], abuf[64];
	struct th_vport *tv = th_vport_create(node(1), NULL), *av;
	struct th_mr *tmr = th_mr_reg(tv, tbuf, sizeof(tbuf),
				      TH_NIC_ACCESS_REMOTE_WRITE), *amr;
	struct th_chain *c = th_chain_create();
	struct th_nic_cqe cqe[256];
	rkey_t key = RKEY(tmr);
	unsigned long long guesses = 0, vports = 1, posted, done;
	unsigned int bits = KEY_BITS - slot_bits(), i;
	double t0 = now_s(), t;
	int n, ret;

	av = th_vport_create(node(0), NULL);
	amr = th_mr_reg(av, abuf, sizeof(abuf), 0);
	if (!av || !amr || !c)
		return 1;
	srandom(1);
	while ((t = now_s() - t0) < seconds) {
		for (posted = 0; posted < GUESS_BATCH; posted++) {
			rkey_t g = key ^ (((rkey_t)random() << 1 | 1) << slot_bits());
			struct th_remote r = REMOTE(th_vport_node(tv),
						    th_vport_index(tv), g, 0);

			th_chain_reset(c);
			th_chain_put(c, amr, 0, &r, 0, TH_NO_CT, TH_CHAIN_SIGNAL);
			th_chain_trigger(c, 0, 0, posted);
			ret = th_stage_chain(av, c);
			if (ret)
				break;
		}
		ret = th_ring_doorbell(av);
		/* refused: the vport was in the error state, nothing went in */
		for (done = 0; !ret && done < posted;) {
			n = th_poll_cq(av, cqe, 256);
			for (i = 0; i < (unsigned int)n; i++)
				if (cqe[i].status == -EACCES)
					guesses++;
			done += n;
		}
		if (ret || GUESS_BATCH == 1) {
			/* the error state: a guess costs a new vport */
			th_mr_dereg(amr);
			th_vport_destroy(av);
			av = th_vport_create(node(0), NULL);
			amr = av ? th_mr_reg(av, abuf, sizeof(abuf), 0) : NULL;
			if (!amr)
				return 2;
			vports++;
		}
	}
	printf("F guess_provider %s\n", th_device_provider(devs[0]));
	printf("F guess_seconds %.2f\n", t);
	printf("F guess_count %llu\n", guesses);
	printf("F guess_vports %llu\n", vports);
	printf("F guess_rate_per_s %.0f\n", guesses / t);
	printf("F guess_key_random_bits %u\n", bits);
	/* half the key space on average */
	printf("F guess_expected_seconds %.3g\n",
	       guesses ? (double)(1ULL << (bits - 1)) / (guesses / t) : 0);
	return 0;
}

/* ---- memory ------------------------------------------------------------ */

static long long meminfo(const char *what)
{
	char line[128];
	long long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, what, strlen(what)) &&
		    line[strlen(what)] == ':')
			v = atoll(line + strlen(what) + 1);
	if (f)
		fclose(f);
	return v;	/* kB */
}

static long long self_rss_kb(void)
{
	char line[128];
	long long v = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6))
			v = atoll(line + 6);
	if (f)
		fclose(f);
	return v;
}

static int mode_memory(void)
{
	long long avail0 = meminfo("MemAvailable"), slab0 = meminfo("Slab");
	long long vm0 = meminfo("VmallocUsed"), avail = avail0;
	unsigned long long vports = 0, chains = 0;
	struct th_chain *c = th_chain_create();
	struct th_nic_query q;
	struct th_vport *vp;
	int n, i, full = 0;

	th_device_query(node(0), &q);
	for (i = 0; i < (int)q.max_chain; i++)
		th_chain_nop(c, 0);
	th_chain_trigger(c, 1, 1, 0);	/* never fires */
	for (n = 0; n < ndev && !full; n++) {
		while ((vp = th_vport_create(node(n), NULL))) {
			vports++;
			while (!th_post_chain(vp, c))
				chains++;
			avail = meminfo("MemAvailable");
			if (avail < 96 * 1024) {
				full = 1;	/* stop before the OOM killer */
				break;
			}
		}
		if (errno != ENOSPC)
			break;		/* the user's limit, or memory */
	}
	printf("F memory_vports %llu\n", vports);
	printf("F memory_chains %llu\n", chains);
	printf("F memory_descs_per_chain %u\n", q.max_chain);
	printf("F memory_held_kib %lld\n", avail0 - avail);
	printf("F memory_slab_kib %lld\n", meminfo("Slab") - slab0);
	printf("F memory_vmalloc_kib %lld\n", meminfo("VmallocUsed") - vm0);
	printf("F memory_process_rss_kib %lld\n", self_rss_kb());
	printf("F memory_stopped_at_vm_limit %d\n", full);
	return 0;
}

/* ---- doorbell ---------------------------------------------------------- */

#define BIG	(64UL << 20)

static int mode_doorbell(void)
{
	struct th_vport *vp = th_vport_create(node(2), NULL);
	char *s = mmap(NULL, BIG, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	char *d = mmap(NULL, BIG, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	struct th_mr *sm, *dm;
	struct th_chain *c = th_chain_create();
	double t0, t, longest = 0, start = now_s();
	int i, k;

	memset(s, 7, BIG);
	sm = th_mr_reg(vp, s, BIG, 0);
	dm = th_mr_reg(vp, d, BIG, TH_NIC_ACCESS_LOCAL_WRITE);
	if (!sm || !dm)
		return 1;
	for (i = 0; i < 3; i++) {
		th_chain_reset(c);
		for (k = 0; k < 4; k++)
			th_chain_copy(c, sm, 0, dm, 0, BIG, 0);
		th_chain_comp_ct(c, 1);
		t0 = now_s();
		if (th_post_chain(vp, c))
			return 2;
		t = now_s() - t0;
		if (t > longest)
			longest = t;
	}
	if (th_ct_wait(vp, 1, 3, 600000000000ULL))
		return 3;
	printf("F doorbell_chain_mib 256\n");
	printf("F doorbell_longest_ms %.1f\n", longest * 1e3);
	printf("F doorbell_all_done_ms %.1f\n", (now_s() - start) * 1e3);
	printf("F doorbell_data_ok %d\n", !memcmp(s, d, BIG));
	return 0;
}

/* ---- vports ------------------------------------------------------------ */

static int mode_vports(void)
{
	struct th_vport_attr small = { .sq_entries = 16, .cq_entries = 16 };
	unsigned long long n = 0;
	int i;

	for (i = 0; i < ndev || (!devs && node(0)); i++)
		while (th_vport_create(node(i), &small))
			n++;
	printf("F vports_one_user %llu\n", n);
	return 0;
}

/* ---- raw ioctls -------------------------------------------------------- */

static int mode_private(void)
{
	struct th_nic_vport_create c = { .size = sizeof(c), .sq_entries = 16,
					 .cq_entries = 16 };
	int fd = open("/dev/th_nic3", O_RDWR);
	void *p;

	if (fd < 0 || ioctl(fd, TH_NIC_IOCTL_VPORT_CREATE, &c))
		return 1;
	p = mmap(NULL, c.sq_mmap_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd,
		 c.sq_mmap_offset);
	printf("F private_mapping %s\n", p == MAP_FAILED ? strerror(errno) :
	       "accepted");
	return 0;
}

static int mode_bigsize(void)
{
	static __u64 buf[1024];
	int fd = open("/dev/th_nic3", O_RDWR), ret;

	buf[0] = sizeof(buf);
	ret = ioctl(fd, TH_NIC_IOCTL_QUERY, buf) ? -errno : 0;
	printf("F bigsize_8k_query %s\n", ret ? strerror(-ret) : "accepted");
	return 0;
}

/* ---- two users ---------------------------------------------------------- */

struct shared {
	uint32_t node, vport, ready, done;
	rkey_t key;
	uint64_t poisoned, written;
};

/* The victim, as the caller: a vport on node 5, an MR, counters. */
static pid_t victim(struct shared *sh, uid_t uid)
{
	pid_t pid = fork();

	if (!pid) {
		static char buf[4096];
		struct th_vport *vp;
		struct th_mr *mr;
		uint64_t f, s;
		int i;

		become(uid);
		vp = th_vport_create(node(5), NULL);
		mr = vp ? th_mr_reg(vp, buf, sizeof(buf), TH_NIC_ACCESS_ALL) : NULL;
		if (!mr)
			_exit(1);
		sh->node = 5;
		sh->vport = th_vport_index(vp);
		sh->key = RKEY(mr);
		__atomic_store_n(&sh->ready, 1, __ATOMIC_RELEASE);
		while (!__atomic_load_n(&sh->done, __ATOMIC_ACQUIRE))
			usleep(1000);
		for (i = 0; i < 256; i++) {
			th_ct_read(vp, i, &s, &f);
			if (f)
				sh->poisoned++;
		}
		sh->written = buf[0] == 0x5a;
		_exit(0);
	}
	while (!__atomic_load_n(&sh->ready, __ATOMIC_ACQUIRE))
		usleep(1000);
	return pid;
}

static int put_status(struct th_vport *vp, struct th_mr *mr, uint32_t n,
		      uint32_t v, rkey_t key)
{
	struct th_remote r = REMOTE(n, v, key, 0);
	struct th_chain *c = th_chain_create();
	struct th_nic_cqe cqe;

	th_chain_put(c, mr, 0, &r, 8, TH_NO_CT, TH_CHAIN_SIGNAL);
	if (th_post_chain(vp, c) || th_poll_cq(vp, &cqe, 1) != 1)
		return 1;
	th_chain_destroy(c);
	return cqe.status;
}

static int mode_crossuser(uid_t uid)
{
	struct shared *sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	static char buf[64];
	struct th_vport *vp;
	struct th_mr *mr;
	pid_t pid = victim(sh, 65533);
	int right, wrong, missing;

	become(uid);
	memset(buf, 0x5a, sizeof(buf));
	vp = th_vport_create(node(6), NULL);
	mr = th_mr_reg(vp, buf, sizeof(buf), 0);
	right = put_status(vp, mr, sh->node, sh->vport, sh->key);
	wrong = put_status(vp, mr, sh->node, sh->vport, sh->key ^ 0x40000);
	missing = put_status(vp, mr, sh->node, sh->vport + 7, sh->key);
	sh->done = 1;
	waitpid(pid, NULL, 0);
	printf("F crossuser_put_right_key %s\n", right ? strerror(-right) : "succeeded");
	printf("F crossuser_memory_written %llu\n", (unsigned long long)sh->written);
	printf("F crossuser_put_wrong_key %s\n", wrong ? strerror(-wrong) : "succeeded");
	printf("F crossuser_put_missing_vport %s\n",
	       missing ? strerror(-missing) : "succeeded");
	return 0;
}

static int mode_poison(uid_t uid)
{
	struct shared *sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	static char buf[64];
	struct th_chain *c;
	struct th_vport *vp;
	struct th_mr *mr;
	pid_t pid = victim(sh, 65533);
	int i, cancelled;

	become(uid);
	vp = th_vport_create(node(6), NULL);
	mr = th_mr_reg(vp, buf, sizeof(buf), 0);
	c = th_chain_create();
	for (i = 0; i < 1000; i++) {
		struct th_remote r = REMOTE(sh->node, sh->vport,
					    sh->key ^ ((rkey_t)(i + 1) << 8), 0);

		th_chain_reset(c);
		th_chain_put(c, mr, 0, &r, 8, i % 256, 0);
		th_chain_trigger(c, 1, 1, i);
		th_stage_chain(vp, c);
	}
	th_ring_doorbell(vp);
	cancelled = th_cancel_all(vp);
	sh->done = 1;
	waitpid(pid, NULL, 0);
	printf("F poison_cancelled %d\n", cancelled);
	printf("F poison_counters_poisoned %llu\n",
	       (unsigned long long)sh->poisoned);
	return 0;
}

/* ---- memlock ----------------------------------------------------------- */

#define PIN	(256UL * 1024)

static int mode_memlock(void)
{
	struct rlimit rl = { PIN + 4096, PIN + 4096 };
	char *mem = mmap(NULL, 2 * PIN, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	struct th_vport *vp;
	pid_t pid;
	int st;

	setrlimit(RLIMIT_MEMLOCK, &rl);
	become(65534);
	vp = th_vport_create(node(7), NULL);
	if (!vp)
		return 1;
	pid = fork();
	if (!pid)
		_exit(th_mr_reg(vp, mem, PIN, TH_NIC_ACCESS_ALL) ? 0 : 1);
	waitpid(pid, &st, 0);
	printf("F memlock_child_registered %d\n", WEXITSTATUS(st) == 0);
	printf("F memlock_parent_second_region %s\n",
	       th_mr_reg(vp, mem + PIN, PIN, TH_NIC_ACCESS_ALL) ? "accepted" :
	       strerror(errno));
	return 0;
}

/* ---- selftarget -------------------------------------------------------- */

static int mode_selftarget(void)
{
	pid_t pid = fork();
	int st = 0, i;

	if (!pid) {
		static char buf[64];
		struct th_vport *vp = th_vport_create(node(8), NULL);
		struct th_mr *mr = th_mr_reg(vp, buf, sizeof(buf),
					     TH_NIC_ACCESS_ALL);
		struct th_remote r = REMOTE(8, th_vport_index(vp), RKEY(mr), 0);
		struct th_chain *c = th_chain_create();
		struct th_nic_cqe cqe;

		th_chain_write_inline_remote(c, &r, "self", 4, TH_NO_CT,
					     TH_CHAIN_SIGNAL);
		th_post_chain(vp, c);
		th_poll_cq(vp, &cqe, 1);
		_exit(0);	/* closes the node */
	}
	for (i = 0; i < 100; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			break;
		usleep(100000);
	}
	printf("F selftarget_process %s\n", i < 100 ? "exited" :
	       "stuck after 10 s (SIGKILL does not end it)");
	if (i == 100)
		kill(pid, SIGKILL);
	return 0;
}

/* ---- in-process parity --------------------------------------------------- */

static int mode_fpmode(void)
{
	static float buf[64];
	struct th_vport *vp = th_vport_create(node(0), NULL);
	struct th_mr *mr = th_mr_reg(vp, buf, sizeof(buf), TH_NIC_ACCESS_ALL);
	const struct th_mr *src[2] = { mr, mr };
	uint64_t soff[2] = { 0, 16 };
	struct th_chain *c = th_chain_create();
	float want[4];
	volatile float a;
	int i;

	buf[0] = 1.0f;
	buf[4] = 1e-8f;
	buf[1] = 1e-40f;
	buf[5] = 1e-40f;
	buf[2] = 3.0f;
	buf[6] = 1.0f / 3.0f;
	buf[3] = -1.0f;
	buf[7] = 1e-8f;
	for (i = 0; i < 4; i++) {
		a = buf[i];
		a = a + buf[4 + i];
		want[i] = a;
	}
	fesetround(FE_UPWARD);
	_mm_setcsr(_mm_getcsr() | 0x8040);	/* FTZ, DAZ */
	th_chain_reduce(c, TH_NIC_ALU_SUM, TH_NIC_DT_FLOAT32, 4, mr, 64, 2, src,
			soff, false, 0);
	th_post_chain(vp, c);
	_mm_setcsr(_mm_getcsr() & ~0x8040u);
	fesetround(FE_TONEAREST);
	printf("F %s_fp_mode_changes_result %s\n", th_device_provider(devs[0]),
	       memcmp(want, &buf[16], sizeof(want)) ? "yes" : "no");
	return 0;
}

static int mode_badmemory(void)
{
	long page = sysconf(_SC_PAGESIZE);
	struct th_vport *vp = th_vport_create(node(0), NULL);
	char *p = mmap(NULL, 2 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	struct th_mr *none, *gone;

	none = th_mr_reg(vp, p, page, TH_NIC_ACCESS_ALL);
	printf("F %s_register_prot_none %s\n", th_device_provider(devs[0]),
	       none ? "accepted" : strerror(errno));
	munmap(p, 2 * page);
	gone = th_mr_reg(vp, p + page, page, 0);
	printf("F %s_register_unmapped %s\n", th_device_provider(devs[0]),
	       gone ? "accepted" : strerror(errno));
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!node(0)) {
		fprintf(stderr, "f_probe: no device\n");
		return 2;
	}
	if (!strcmp(mode, "guess"))
		return mode_guess(argc > 2 ? atof(argv[2]) : 5);
	if (!strcmp(mode, "memory"))
		return mode_memory();
	if (!strcmp(mode, "doorbell"))
		return mode_doorbell();
	if (!strcmp(mode, "vports"))
		return mode_vports();
	if (!strcmp(mode, "private"))
		return mode_private();
	if (!strcmp(mode, "bigsize"))
		return mode_bigsize();
	if (!strcmp(mode, "crossuser"))
		return mode_crossuser(argc > 2 ? atoi(argv[2]) : 65534);
	if (!strcmp(mode, "poison"))
		return mode_poison(argc > 2 ? atoi(argv[2]) : 65534);
	if (!strcmp(mode, "memlock"))
		return mode_memlock();
	if (!strcmp(mode, "selftarget"))
		return mode_selftarget();
	if (!strcmp(mode, "fpmode"))
		return mode_fpmode();
	if (!strcmp(mode, "badmemory"))
		return mode_badmemory();
	fprintf(stderr, "usage: f_probe guess|memory|doorbell|vports|private|"
		"bigsize|crossuser|poison|memlock|selftarget|fpmode|badmemory\n");
	return 2;
}
