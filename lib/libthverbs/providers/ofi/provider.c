// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * provider.c - the ofi provider: one node per process of a thrun job (node
 * r is rank r's), reached by the others over libfabric.  The job's ranks
 * join it in th_boot_init(), which calls the provider's join op
 * (th_ofi_boot()): one bootstrap round exchanges the endpoints' names and
 * rank 0's token for the job's domain, the one every rank's vports share
 * by default.  Ranks that share
 * a host talk over shm, the others over tcp;ofi_rxm: a rank with peers of
 * both kinds has both endpoints, its two rails (net.c).  The node itself
 * is an in-process fabric node, so everything but deliveries to other
 * ranks is the in-process provider's code.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include "fabric_dl.h"	/* before any <rdma/...> */
#include <rdma/fi_domain.h>

#include "thverbs_priv.h"
#include "boot_priv.h"
#include "ofi.h"

/* the default libfabric provider: reliable datagrams over TCP */
#define TH_OFI_DEFAULT_PROV	"tcp;ofi_rxm"
/* the default when every rank is on one host: shared memory */
#define TH_OFI_LOCAL_PROV	"shm"
/* bumped when the wire changes: ranks of different builds refuse a job */
#define TH_OFI_WIRE_VERSION	9

static struct th_ofi *th_ofi_state;

struct th_ofi *th_ofi_get(void)
{
	return __atomic_load_n(&th_ofi_state, __ATOMIC_ACQUIRE);
}

/**
 * struct th_ofi_boot_rec - what each rank tells the others at boot
 * @version: TH_OFI_WIRE_VERSION
 * @err: 0, or why this rank cannot join (then the rest is empty)
 * @nrails: its endpoints, one or two
 * @name_len: bytes of each @name
 * @prov: each endpoint's libfabric provider
 * @token: rank 0's is the job's domain
 * @mac_key: rank 0's seals every message of the job (auth.c)
 * @name: each endpoint's name
 * @bell: the name of the socket that hands its doorbell to the peers
 *	(handoff.c), or 0 for none
 */
struct th_ofi_boot_rec {
	u32 version;
	s32 err;
	u32 nrails;
	u32 name_len[TH_OFI_RAILS];
	char prov[TH_OFI_RAILS][32];
	u8 token[16];
	u8 mac_key[TH_OFI_KEY_LEN];
	u8 name[TH_OFI_RAILS][TH_OFI_NAME_MAX];
	u64 bell;
};

static bool th_ofi_node_remote(void *arg, u32 node)
{
	return node != ((struct th_ofi *)arg)->rank;
}

static void th_ofi_mr_free(void *arg, void *priv)
{
	(void)arg;
	th_ofi_net_mr_free(priv);
}

/* TH_OFI_TIMEOUT: seconds a delivery waits for its answer. */
static int th_ofi_timeout(u64 *ns)
{
	const char *env = getenv("TH_OFI_TIMEOUT");
	static bool said;
	unsigned long s;
	char *end;

	*ns = TH_OFI_TIMEOUT_S * 1000000000ULL;
	if (!env || !*env)
		return 0;
	s = strtoul(env, &end, 10);
	if (*end || !s || s > 3600 || *env == '-') {
		th_env_complain(&said, "TH_OFI_TIMEOUT", env,
				"whole seconds from 1 to 3600 (default 10)");
		return -EINVAL;
	}
	*ns = s * 1000000000ULL;
	return 0;
}

/*
 * TH_OFI_TRIGGER: "auto" (the default) lets chains wait in libfabric when
 * the provider offers triggered operations, "1" requires it (the job fails
 * without), "0" keeps every chain in the engine.
 */
static int th_ofi_trigger_mode(enum th_ofi_trigger_mode *mode)
{
	const char *env = getenv("TH_OFI_TRIGGER");
	static bool said;

	*mode = TH_OFI_TRIGGER_AUTO;
	if (!env || !*env || !strcmp(env, "auto"))
		return 0;
	if (!strcmp(env, "0")) {
		*mode = TH_OFI_TRIGGER_OFF;
		return 0;
	}
	if (!strcmp(env, "1")) {
		*mode = TH_OFI_TRIGGER_ON;
		return 0;
	}
	th_env_complain(&said, "TH_OFI_TRIGGER", env, "0, 1 or auto (default auto)");
	return -EINVAL;
}

/*
 * TH_OFI_RING: "1" (the default) sends small messages to the ranks of
 * this host through shm rings in their doorbell regions (ring.c), "0"
 * through libfabric's shm alone.  A rank with 0 neither reads rings nor
 * fills any; the others still do between themselves.
 */
static int th_ofi_ring_mode(bool *on)
{
	const char *env = getenv("TH_OFI_RING");
	static bool said;

	*on = true;
	if (!env || !*env || !strcmp(env, "1"))
		return 0;
	if (!strcmp(env, "0")) {
		*on = false;
		return 0;
	}
	th_env_complain(&said, "TH_OFI_RING", env, "0 or 1 (default 1)");
	return -EINVAL;
}

static void th_ofi_free(struct th_ofi *o)
{
	if (o->host_shared)
		th_wait_host_share(0, 0);	/* the job is gone */
	th_ofi_net_close(o);
	th_ofi_trig_close(o);
	if (o->ipf)
		th_ipf_destroy(o->ipf);
	pthread_mutex_destroy(&o->trig_lock);
	pthread_mutex_destroy(&o->cq_lock);
	pthread_mutex_destroy(&o->nap_lock);
	pthread_cond_destroy(&o->nap_cv);
	pthread_mutex_destroy(&o->lock);
	free(o->ops);
	free(o->owed);
	free(o->holds);
	free(o);
}

/* At exit: let the last answers leave (th_ofi_net_quiesce()). */
static void th_ofi_atexit(void)
{
	struct th_ofi *o = th_ofi_get();

	if (o) {
		th_ofi_net_quiesce(o);
		th_ofi_trig_report(o);
		th_ofi_auth_report(o);
		th_ofi_net_report(o);
	}
}

/**
 * struct th_ofi_where - where the job's ranks are, from one bootstrap round
 * @netns: all share this machine and network namespace
 * @one_host: every rank is @here
 * @some_here: some other rank is @here, and some is not
 * @here: each rank shares this one's machine, network, mount and PID
 *	namespaces and user: shm can join the two, and each can watch the
 *	other's process (@pids)
 * @pids: each rank's pid, for those @here (0 for the others)
 * @cpu_ranks: the ranks on this machine, in any namespace, whose CPUs
 *	overlap this one's, this one included (0: this machine unknown)
 * @cpus: the CPUs those ranks may run on together
 */
struct th_ofi_where {
	bool netns;
	bool one_host;
	bool some_here;
	bool *here;
	u64 *pids;
	unsigned int cpu_ranks;
	unsigned int cpus;
};

/* One rank's part of the where round: where it is, the CPUs it may use. */
struct th_ofi_where_rec {
	struct th_boot_where at;
	cpu_set_t cpus;		/* empty: not known */
};

/*
 * Of the ranks on this machine (the same boot, whatever their
 * namespaces: they share its CPUs), those whose CPUs overlap @mine's,
 * and the CPUs they span together: the wait policy's count of who
 * competes for this rank's cores (th_wait_host_share()).  Ranks bound a
 * core each compete with none; unbound ranks, with all.
 */
static void th_ofi_cpu_share(const struct th_ofi_where_rec *mine,
			     const struct th_ofi_where_rec *all, u32 size,
			     struct th_ofi_where *w)
{
	cpu_set_t span, both;
	u32 i;

	w->cpu_ranks = 0;
	w->cpus = 0;
	if (!mine->at.boot_id[0] || !CPU_COUNT(&mine->cpus))
		return;
	CPU_ZERO(&span);
	for (i = 0; i < size; i++) {
		if (strncmp(all[i].at.boot_id, mine->at.boot_id,
			    sizeof(mine->at.boot_id)))
			continue;
		CPU_AND(&both, &all[i].cpus, &mine->cpus);
		if (!CPU_COUNT(&both))
			continue;
		CPU_OR(&span, &span, &all[i].cpus);
		w->cpu_ranks++;
	}
	w->cpus = CPU_COUNT(&span);
}

/*
 * Where the ranks are: one bootstrap round, before libfabric's first
 * call.  A job whose ranks share the machine and network namespace keeps
 * its TCP traffic on the loopback interface: the tcp and sockets
 * providers otherwise listen on the first interface with an address,
 * reachable from the network, for a job that never leaves the host.  An
 * interface the user names (FI_TCP_IFACE, FI_SOCKETS_IFACE) wins; they
 * are read when libfabric initialises, so both are set here whatever
 * provider the job ends up with (shm falls back to tcp).
 */
static int th_ofi_where(struct th_ofi *o, struct th_boot *b,
			struct th_ofi_where *w)
{
	struct th_ofi_where_rec rec, *recs;
	struct th_boot_where mine;
	u32 i;
	int ret;

	memset(&rec, 0, sizeof(rec));
	th_boot_where(&rec.at);
	if (sched_getaffinity(0, sizeof(rec.cpus), &rec.cpus))
		CPU_ZERO(&rec.cpus);
	mine = rec.at;
	recs = calloc(o->size, sizeof(*recs));
	w->pids = calloc(o->size, sizeof(*w->pids));
	w->here = calloc(o->size, sizeof(*w->here));
	if (!recs || !w->pids || !w->here) {
		free(recs);
		return -ENOMEM;
	}
	ret = th_boot_allgather(b, &rec, recs, sizeof(rec));
	w->netns = !ret && mine.boot_id[0] && mine.netns;
	for (i = 0; w->netns && i < o->size; i++)
		w->netns = !strncmp(recs[i].at.boot_id, mine.boot_id,
				    sizeof(mine.boot_id)) &&
			   recs[i].at.netns == mine.netns;
	/* the one-host test, rank by rank: the same on both ends of a pair */
	w->one_host = !ret;
	for (i = 0; !ret && i < o->size; i++) {
		const struct th_boot_where *at = &recs[i].at;

		w->here[i] = mine.boot_id[0] && mine.netns && mine.mntns &&
			     mine.pidns &&
			     !strncmp(at->boot_id, mine.boot_id,
				      sizeof(mine.boot_id)) &&
			     at->netns == mine.netns &&
			     at->mntns == mine.mntns &&
			     at->pidns == mine.pidns &&
			     at->uid == mine.uid && at->pid;
		w->pids[i] = w->here[i] ? at->pid : 0;
		w->one_host = w->one_host && w->here[i];
		if (i != o->rank && w->here[i])
			w->some_here = true;
	}
	w->some_here = w->some_here && !w->one_host;
	if (!ret)
		th_ofi_cpu_share(&rec, recs, o->size, w);
	free(recs);
	if (ret)
		return ret;
	if (w->netns) {
		setenv("FI_TCP_IFACE", "lo", 0);
		setenv("FI_SOCKETS_IFACE", "lo", 0);
	}
	return 0;
}

/* TH_OFI_VERBOSE=1 on a job with two rails: which ranks each reaches. */
static void th_ofi_say_rails(struct th_ofi *o)
{
	char list[256];
	size_t at;
	u32 r, i;

	for (r = 0; r < o->nrails; r++) {
		list[0] = '\0';
		for (i = 0, at = 0; i < o->size; i++)
			if (i != o->rank && o->rail_of[i] == r &&
			    at < sizeof(list))
				at += snprintf(list + at, sizeof(list) - at,
					       "%s%u", at ? "," : "", i);
		fprintf(stderr, "libthverbs: ofi rank %u: libfabric provider %s to ranks %s (%s)\n",
			o->rank, o->rail[r].prov, list,
			o->rail[r].cq_poll ? "on this host" : "on other hosts");
	}
}

/*
 * The name of @rec's endpoint that runs provider @prov, or NULL: a peer
 * reached over @prov must have one.
 */
static const void *th_ofi_rec_name(const struct th_ofi_boot_rec *rec,
				   const char *prov)
{
	u32 k;

	for (k = 0; k < rec->nrails && k < TH_OFI_RAILS; k++)
		if (!strncmp(rec->prov[k], prov, sizeof(rec->prov[k])) &&
		    rec->name_len[k] <= sizeof(rec->name[k]))
			return rec->name[k];
	return NULL;
}

/* One rank's endpoints, and the bootstrap round that joins them. */
static int th_ofi_join(struct th_ofi *o, struct th_boot *b,
		       enum th_ofi_trigger_mode trigger, int err)
{
	struct th_ofi_boot_rec mine = { .version = TH_OFI_WIRE_VERSION };
	struct th_ofi_boot_rec *all;
	const char *prov = getenv("TH_OFI_PROVIDER");
	bool chosen = prov && *prov, mixed, crowded;
	struct th_ofi_where where = { 0 };
	const void **names;
	u64 *bells;
	size_t len;
	char univ[16];
	u32 i, r;
	int ret;
	/*
	 * ofi_rxm sizes its queues for FI_UNIVERSE_SIZE peers (256 unless
	 * set); over verbs on soft-RoCE that passes the device's completion
	 * queue limit and the endpoint cannot be opened.  The job knows its
	 * size.  Read when libfabric initialises, at its first call.
	 */
	snprintf(univ, sizeof(univ), "%u", o->size);
	setenv("FI_UNIVERSE_SIZE", univ, 0);
	ret = th_ofi_where(o, b, &where);
	if (ret) {
		free(where.pids);
		free(where.here);
		return ret;	/* the rounds themselves failed */
	}
	/* who else waits on these CPUs: the wait policy counts them too */
	crowded = th_wait_host_share(where.cpu_ranks, where.cpus);
	o->host_shared = true;
	o->crowded = crowded;
	if (o->verbose && where.cpu_ranks)
		fprintf(stderr, "libthverbs: ofi rank %u: ranks on its CPUs: %u (itself included), %u CPU%s between them: auto waits %s\n",
			o->rank, where.cpu_ranks, where.cpus,
			where.cpus == 1 ? "" : "s",
			crowded ? "sleep at once; peers ring its waiters, not its progress thread" :
				  "may watch");
	/*
	 * Unless TH_OFI_PROVIDER names one (for every peer): shared memory
	 * when every rank is on this host, else TCP, and, when some other
	 * ranks are on this host too, shm to those on a second rail.  Where
	 * a rank is is the same test on both ends of a pair, from the same
	 * round, so both ends pick the same rail.
	 */
	mixed = !chosen && where.some_here;
	if (!chosen)
		prov = where.one_host ? TH_OFI_LOCAL_PROV : TH_OFI_DEFAULT_PROV;
	if (!err)
		err = th_ofi_net_open(o, prov, trigger);
	/* a libfabric built without shm: the same on every rank of the host */
	if (err == -ENODEV && !chosen && where.one_host && !o->nrails) {
		prov = TH_OFI_DEFAULT_PROV;
		err = th_ofi_net_open(o, prov, trigger);
	}
	/*
	 * The second rail, shm, to the ranks here.  Triggered sends stay on
	 * the first (trigger.c).  Without shm in libfabric, as on every rank
	 * of this host, its peers here are on TCP too.
	 */
	if (!err && mixed) {
		ret = th_ofi_net_open(o, TH_OFI_LOCAL_PROV, TH_OFI_TRIGGER_OFF);
		if (ret && ret != -ENODEV)
			err = ret;
		for (i = 0; !ret && i < o->size; i++)
			o->rail_of[i] = where.here[i];
	}
	/* on shm, a peer's death is seen on its process (net.c) */
	if (!err && ((o->cq_poll && where.one_host) || o->nrails > 1))
		err = th_ofi_net_watch_pids(o, where.pids);
	free(where.pids);
	free(where.here);
	if (!err && o->verbose && o->nrails > 1)
		th_ofi_say_rails(o);
	else if (!err && o->verbose)
		fprintf(stderr, "libthverbs: ofi rank %u: libfabric provider %s (%s)\n",
			o->rank, o->prov, chosen ? "TH_OFI_PROVIDER" :
			where.one_host ? "every rank on this host" :
			mixed ? "ranks on more than one host, no shm here" :
			"ranks on more than one host");
	for (r = 0; r < o->nrails && !err; r++) {
		len = sizeof(mine.name[r]);
		err = th_ofi_net_name(o, r, mine.name[r], &len);
		mine.name_len[r] = len;
		snprintf(mine.prov[r], sizeof(mine.prov[r]), "%s",
			 o->rail[r].prov);
	}
	mine.nrails = o->nrails;
	if (!err)
		th_ofi_bell_open(o, &mine.bell);
	if (!err && getrandom(mine.token, sizeof(mine.token), 0) !=
		    sizeof(mine.token))
		err = -EAGAIN;
	if (!err)
		err = th_ofi_auth_init(o, mine.mac_key);
	all = calloc(o->size, sizeof(*all));
	names = calloc(o->size, sizeof(*names));
	if (!all || !names)
		err = err ? err : -ENOMEM;
	if (err) {
		/* a failed rank's part: the round still needs its record */
		memset(&mine, 0, sizeof(mine));
		mine.version = TH_OFI_WIRE_VERSION;
		mine.err = err;
		if (!all) {
			free(names);
			return err;
		}
	}
	ret = th_boot_allgather(b, &mine, all, sizeof(mine));
	if (ret) {
		free(all);
		free(names);
		return ret;
	}
	/* each peer has an endpoint of the provider this rank reaches it by */
	for (i = 0; i < o->size && !err; i++)
		if (all[i].err < 0)
			err = all[i].err;
		else if (all[i].version != TH_OFI_WIRE_VERSION ||
			 !(names[i] = th_ofi_rec_name(&all[i],
					o->rail[o->rail_of[i]].prov)))
			err = -EPROTO;
	if (!err)
		err = th_ofi_net_peers(o, names);
	memcpy(o->job_token, all[0].token, sizeof(o->job_token));
	memcpy(o->mac_key, all[0].mac_key, sizeof(o->mac_key));
	/* the peers' doorbells: proving the job's key to take them */
	bells = err ? NULL : calloc(o->size, sizeof(*bells));
	for (i = 0; bells && i < o->size; i++)
		bells[i] = all[i].bell;
	if (!err)
		th_ofi_bell_join(o, bells);
	free(bells);
	/* nothing of the keys stays in memory the job no longer needs */
	explicit_bzero(all, o->size * sizeof(*all));
	explicit_bzero(&mine, sizeof(mine));
	free(all);
	free(names);
	return err;
}

/*
 * struct th_ipf_net's sleep: how a host thread sleeps in th_ct_wait().
 * Where the waiters may not watch (TH_WAIT_POLICY=passive, or auto with
 * more waiters than CPUs: th_wait_may_watch()), on the doorbell, reading
 * the queue itself when a peer rings (bell.c): the progress thread then
 * sleeps too, and a message would take its wake-up and then the
 * waiter's.  Otherwise, and where there is no doorbell, it first handles
 * what the queue holds already (th_ofi_net_look()), then no longer reads
 * it and sleeps on its own word: the progress thread takes the queue
 * back (net.c), and with CPUs to spare reads it without sleeping, where
 * a ring per message for the waiter would cost a system call each
 * (the one-host hop: 1.7 to 3.3 us).
 */
static int th_ofi_host_sleep(void *arg, u32 *woken,
			     const struct timespec *deadline)
{
	struct th_ofi *o = arg;
	int ret = -EOPNOTSUPP;

	if (!th_wait_may_watch())
		ret = th_ofi_bell_wait(o, woken, deadline);
	if (ret != -EOPNOTSUPP)
		return ret;
	th_ofi_net_look(o, &o->sleeper_reads);
	th_ofi_net_waiter_sleeps(o);
	return th_ipf_word_wait(woken, 0, deadline);
}

/*
 * Called by th_boot_init() when TH_PROVIDER is "ofi": every rank calls it
 * once, so its bootstrap round is collective.  0, or a negative errno:
 * -ENODEV when libfabric has no such provider here, -EPROTO when the
 * ranks disagree on the provider or the wire.
 */
static int th_ofi_boot(struct th_boot *b)
{
	enum th_ofi_trigger_mode trigger;
	pthread_condattr_t ca;
	struct th_eng_limits lim;
	struct th_ofi *o;
	u64 all;
	int ret;

	if (th_ofi_get())
		return -EALREADY;	/* one job per process */
	o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	o->bell_fd = -1;
	o->handoff_sock = -1;
	pthread_mutex_init(&o->lock, NULL);
	pthread_mutex_init(&o->trig_lock, NULL);
	pthread_mutex_init(&o->cq_lock, NULL);
	pthread_mutex_init(&o->nap_lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&o->nap_cv, &ca);
	pthread_condattr_destroy(&ca);
	th_list_init(&o->backlog);
	th_list_init(&o->orphans);
	o->rank = th_boot_rank(b);
	o->size = th_boot_size(b);
	o->net = (struct th_ipf_net) {
		.node_remote = th_ofi_node_remote,
		.remote_post = th_ofi_remote_post,
		.remote_fail_ct = th_ofi_remote_fail_ct,
		.mr_free = th_ofi_mr_free,
		.chain_posted = th_ofi_chain_posted,
		.offload_arm = th_ofi_offload_arm,
		.offload_counter = th_ofi_offload_counter,
		.offload_disarm = th_ofi_offload_disarm,
		.sleep = th_ofi_host_sleep,
		.arg = o,
	};
	o->verbose = getenv("TH_OFI_VERBOSE") &&
		     !strcmp(getenv("TH_OFI_VERBOSE"), "1");
	ret = th_ofi_timeout(&o->timeout_ns);
	if (!ret)
		ret = th_ofi_trigger_mode(&trigger);
	if (!ret)
		ret = th_ofi_ring_mode(&o->rings);
	/* libfabric itself, loaded now (fabric_dl.c): a rank without it fails the join */
	if (!ret) {
		const char *why;

		ret = th_fi_load(&why);
		if (ret)
			fprintf(stderr, "libthverbs: ofi rank %u: %s\n", o->rank,
				why);
	}
	/* every peer on the first rail until the join says otherwise */
	o->rail_of = calloc(o->size, sizeof(*o->rail_of));
	if (!ret && !o->rail_of)
		ret = -ENOMEM;
	/*
	 * From here every round is taken by every rank, with its error so
	 * far (th_boot_agree()).  When the bootstrap itself broke, its
	 * failure is sticky: the later rounds fail at once on every rank.
	 */
	ret = th_ofi_join(o, b, trigger, ret);

	/* the module's limits; the process is its node's one user */
	if (!ret) {
		th_eng_limits_default(&lim);
		lim.nodes = o->size;
		all = (u64)lim.max_vports;
		lim.max_user_vports = all;
		all *= lim.max_cq_entries;
		lim.max_user_chains = all > TH_ENG_MAX_USER ? TH_ENG_MAX_USER :
				      all;
		o->ipf = th_ipf_create(&lim, &o->net, &ret);
	}
	if (!ret) {
		o->owed = calloc(lim.max_vports, sizeof(*o->owed));
		o->nowed = o->owed ? lim.max_vports : 0;
		if (!o->owed)
			ret = -ENOMEM;
	}
	if (!ret)
		memcpy(th_ipf_default_domain(o->ipf)->token, o->job_token,
		       sizeof(o->job_token));
	/*
	 * Every rank has every address in its address vector and its receives
	 * posted before any connects, and every connection exists before any
	 * delivery.  Without the first round, 16 loaded processes failed 2
	 * runs in 3: a rank's connection to one still between the allgather
	 * and its fi_av_insert() never came up, its sends answered "try
	 * again" until the deadline.
	 */
	if (!ret)
		ret = th_ofi_net_start(o);
	ret = th_boot_agree(b, ret);
	if (!ret)
		ret = th_ofi_net_connect(o);
	ret = th_boot_agree(b, ret);
	if (ret)
		goto err;
	th_ofi_net_unlink(o);
	__atomic_store_n(&th_ofi_state, o, __ATOMIC_RELEASE);
	atexit(th_ofi_atexit);
	return 0;

err:
	th_ofi_free(o);
	return ret;
}

static int th_ofi_count_nodes(void)
{
	struct th_ofi *o = th_ofi_get();

	return o ? (int)o->size : -ENOTCONN;
}

/* A process opens its own node; the others are its peers'. */
static int th_ofi_open(struct th_context *ctx)
{
	struct th_ofi *o = th_ofi_get();

	if (!o)
		return -ENOTCONN;
	if (ctx->dev.node != o->rank)
		return -ENODEV;
	ctx->priv = o->ipf;
	return 0;
}

static int th_ofi_domain_import(struct th_context *ctx, int fd,
				struct th_domain *d)
{
	(void)ctx;
	(void)fd;
	(void)d;
	return -EOPNOTSUPP;	/* the job's domain is every vport's default */
}

/*
 * MR_REG: the in-process provider's checks and key, and a libfabric
 * registration of the same range for peers' RMA, released with the MR's
 * last use (th_ofi_mr_free()).
 */
static int th_ofi_vport_mr_reg(struct th_vport *vp, struct th_nic_mr_reg *req)
{
	struct th_ipf_vport *iv = vp->priv;
	struct th_ofi *o = th_ofi_get();
	struct th_ofi_mr *fmr;
	u32 lkey;
	u64 rkey;
	int ret;

	ret = th_eng_cmd_mr_check(iv->ev.eng, req);
	if (!ret)
		ret = th_ipf_mem_check(req->addr, req->length, req->access);
	if (!ret)
		ret = th_ofi_net_mr_reg(o, (void *)(uintptr_t)req->addr, req->length,
				    req->access, &fmr);
	if (ret)
		return ret;
	ret = th_eng_mr_add(&iv->ev, req->addr, req->length, req->access,
			    (void *)(uintptr_t)req->addr, fmr, &lkey, &rkey);
	if (ret) {
		th_ofi_net_mr_free(fmr);
		return ret;
	}
	req->lkey = lkey;
	req->rkey = rkey;
	return 0;
}

/* A spinning waiter reads the completion queue itself (net.c). */
static void th_ofi_ctx_progress(struct th_context *ctx)
{
	struct th_ofi *o = th_ofi_get();

	(void)ctx;
	if (o)
		th_ofi_net_progress(o);
}

/* @vp's large deliveries whose bytes this host still moves (wire.c). */
static bool th_ofi_vport_owes(const struct th_vport *vp)
{
	struct th_ofi *o = th_ofi_get();

	return o && vp->index < o->nowed &&
	       __atomic_load_n(&o->owed[vp->index], __ATOMIC_ACQUIRE);
}

/* The in-process teardown, then the vport's watches (wire.c). */
static int th_ofi_vport_destroy(struct th_vport *vp)
{
	u32 index = vp->index;
	int ret = th_ip_vport_destroy(vp);

	th_ofi_watch_forget(th_ofi_get(), index);
	return ret;
}

const struct th_provider_ops th_ofi_provider = {
	.name		= "ofi",
	.count_nodes	= th_ofi_count_nodes,
	.open		= th_ofi_open,
	.close		= th_ip_close,
	.query		= th_ip_query,
	.domain_alloc	= th_ip_domain_alloc,
	.domain_import	= th_ofi_domain_import,
	.domain_free	= th_ip_domain_free,
	.vport_create	= th_ip_vport_create,
	.vport_destroy	= th_ofi_vport_destroy,
	.mr_reg		= th_ofi_vport_mr_reg,
	.mr_dereg	= th_ip_mr_dereg,
	.doorbell	= th_ip_doorbell,
	.ct_update	= th_ip_ct_update,
	.ct_wait	= th_ip_ct_wait,
	.progress	= th_ofi_ctx_progress,
	.host_owes	= th_ofi_vport_owes,
	.node_remote	= th_ip_node_remote,
	.cancel		= th_ip_cancel,
	.vport_fd	= th_ip_vport_fd,
	.vport_stats	= th_ip_vport_stats,
	.node_stats	= th_ip_node_stats,
	.fault_set	= th_ip_fault_set,
	.fault_get	= th_ip_fault_get,
	.join		= th_ofi_boot,
};
