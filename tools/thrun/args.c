// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * args.c - thrun's command line: the options, the checks that refuse
 * what cannot run, and the usage text.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "thrun.h"

void usage(FILE *f)
{
	fprintf(f,
"usage: thrun -n N [--provider kernel|inproc|ofi|auto] [--timeout SECONDS]\n"
"             [--grace SECONDS] [--bind auto|cpu|none] [--single]\n"
"             [--] prog [args...]\n"
"       thrun -n N --hosts H1[,H2...] --listen ADDR [--launcher CMD]\n"
"             [options] [--] prog [args...]\n"
"       thrun --threads N [options] [--] prog [args...]\n"
"       thrun --version\n"
"\n"
"Start N processes of prog, one per th_nic node, with TH_RANK (0..N-1),\n"
"TH_SIZE (N), TH_BOOT (the rendezvous socket) and TH_PROVIDER (when given)\n"
"in their environment.  They meet through th_boot_init(),\n"
"th_boot_allgather() and th_boot_barrier() (thverbs/boot.h) to exchange\n"
"addresses and keys.  Output passes through; only rank 0 reads stdin.\n"
"\n"
"  -n, -np, --np N       number of ranks (nodes), 1..%d\n"
"  -p, --provider P      kernel, inproc, ofi or auto: exported as TH_PROVIDER\n"
"  -t, --timeout S       end the job after S seconds (default: none)\n"
"  -g, --grace S         SIGTERM to SIGKILL delay when ending a job (%g)\n"
"  -b, --bind B          cpu: rank r runs on the r-th CPU thrun may use\n"
"                        (round robin past the last); none: on all of\n"
"                        them; auto (default): cpu when there are two\n"
"                        ranks or more and each has a CPU of its own,\n"
"                        else none.  A waiting rank then\n"
"                        keeps its CPU and its cache; with more ranks\n"
"                        than CPUs, binding would only stop the kernel\n"
"                        from balancing them.  Ranks on this host only\n"
"                        (not --hosts or --single); --threads passes it\n"
"                        to the rank threads as TH_BIND\n"
"  -s, --single          run prog once, as rank 0 with TH_SIZE=N and\n"
"                        TH_SINGLE=1: one process drives all N nodes\n"
"  -T, --threads N       run prog once with TH_THREADS=N: th_boot_run()\n"
"                        runs its rank function in N threads, one per\n"
"                        rank, that meet in memory (ranks as threads)\n"
"      --hosts H1,H2,... run rank r on host H[r %% count], through the\n"
"                        launcher: CMD HOST env TH_RANK=r ... prog args;\n"
"                        the rendezvous is then TCP, with a random key\n"
"      --listen ADDR     with --hosts: the numeric IPv4 or IPv6 address of\n"
"                        this host on which the ranks reach thrun (port:\n"
"                        the kernel's choice)\n"
"      --launcher CMD    with --hosts: the command, split on spaces, that\n"
"                        runs a rank on HOST (default ssh; 'ip netns exec'\n"
"                        for network namespaces).  For ssh every word after\n"
"                        HOST is quoted for the remote POSIX shell; any other\n"
"                        launcher gets the words as they are.  thrun's TH_*\n"
"                        variables are passed on in the env command\n"
"  -h, --help            this text\n"
"  -V, --version         thrun's version\n"
"\n"
"When a rank exits non-zero or is killed, or the timeout passes, thrun\n"
"says so in one line, fails every rendezvous call in progress, sends\n"
"SIGTERM to the other ranks, SIGKILL after the grace period, and exits\n"
"with the status of the rank that failed first, as mpirun does.\n"
"Exit status: 0 every rank exited 0; the first failing rank's status, or\n"
"128+S if a signal S killed it; 1 timeout or a failure of thrun's own\n"
"(128+S if thrun itself was interrupted by signal S); 2 usage.\n"
"\n"
"Providers: with \"kernel\" each process opens its node's /dev/th_nic*\n"
"and the nodes share the module's fabric; the job gets a domain of its own,\n"
"which each rank takes up with th_boot_domain_fd() and th_domain_import():\n"
"its vports reach each other and no other job's.  An \"inproc\" fabric is private\n"
"to each process, so an inproc job of several processes has N separate\n"
"fabrics: useful to test the bootstrap, not to run collectives across\n"
"ranks.  Use --threads (or --single) for the inproc provider: the ranks\n"
"then share the one fabric of the process.  With \"ofi\" each process\n"
"hosts its rank's node and the processes reach each other over libfabric\n"
"(TH_OFI_PROVIDER; by default shm when every rank is on one host, else\n"
"tcp;ofi_rxm, with shm between the ranks that share a host): no module,\n"
"no root; not with --threads or --single.\n"
"Without th_nic.ko (/dev/th_nic0 missing), \"auto\" is inproc.  With\n"
"--hosts use ofi: a kernel job's domain cannot cross hosts, and thrun\n"
"refuses \"kernel\" there.\n",
		TH_BOOT_MAX_RANKS, THRUN_DEFAULT_GRACE_S);
}

static bool parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < 0 || v > 1e7)
		return false;
	*out = v;
	return true;
}

/*
 * mpiexec's "-np N": getopt would read it as -n with the argument "p".
 * Rewritten to "--np" among thrun's options, which end at "--" or at the
 * program (an argument that is neither an option nor an option's value).
 */
static void args_np(int argc, char **argv)
{
	static char np[] = "--np";
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--") || a[0] != '-')
			return;
		if (!strcmp(a, "-np")) {
			argv[i] = np;
			i++;	/* its value */
		} else if (!strncmp(a, "-np=", 4)) {
			/* lives as long as argv; NULL leaves getopt to refuse it */
			char *l = malloc(strlen(a) + 2);

			if (l) {
				sprintf(l, "-%s", a);
				argv[i] = l;
			}
		} else if (!strcmp(a, "-n") || !strcmp(a, "-p") ||
			   !strcmp(a, "-t") || !strcmp(a, "-g") ||
			   !strcmp(a, "-b") ||
			   !strcmp(a, "-T") || (a[1] == '-' && !strchr(a, '=') &&
			   strcmp(a, "--single") && strcmp(a, "--help") &&
			   strcmp(a, "--version"))) {
			i++;	/* an option that takes the next argument */
		}
	}
}

/*
 * Split @s at @sep into a NULL-terminated array of pointers into @s
 * (which it modifies); empty pieces are refused.  NULL on either.
 */
static char **split(char *s, char sep, int *count)
{
	char **v;
	int n = 1, i;
	char *p;

	for (p = s; *p; p++)
		n += *p == sep;
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		return NULL;
	for (i = 0; i < n; i++) {
		v[i] = s;
		p = strchr(s, sep);
		if (p)
			*p = '\0';
		if (!*s) {
			free(v);
			return NULL;
		}
		s = p ? p + 1 : s + strlen(s);
	}
	*count = n;
	return v;
}

/* --launcher: words split on runs of spaces, as documented. */
static char **split_words(char *s, int *count)
{
	char **v = calloc(strlen(s) / 2 + 2, sizeof(*v));
	const char *base;
	int n = 0;

	if (!v)
		return NULL;
	for (s = strtok(s, " "); s; s = strtok(NULL, " "))
		v[n++] = s;
	if (!n) {
		free(v);
		return NULL;
	}
	base = strrchr(v[0], '/');
	job.quote = !strcmp(base ? base + 1 : v[0], "ssh");
	*count = n;
	return v;
}

/* --hosts: HOST, user@HOST or an address; nothing a launcher reads as an option. */
static bool host_ok(const char *h)
{
	return h[0] != '-' && !strpbrk(h, " \t\n'\"\\$`;&|<>()*?[]{}~");
}

/* --listen: a numeric IPv4 or IPv6 address, the latter with or without []. */
static bool parse_listen(const char *a)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&job.laddr;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&job.laddr;
	char host[INET6_ADDRSTRLEN];
	size_t len = strlen(a);

	if (len >= 2 && a[0] == '[' && a[len - 1] == ']') {
		a++;
		len -= 2;
	}
	if (!len || len >= sizeof(host))
		return false;
	memcpy(host, a, len);
	host[len] = '\0';
	memset(&job.laddr, 0, sizeof(job.laddr));
	if (inet_pton(AF_INET, host, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		job.laddr_len = sizeof(*s4);
		return true;
	}
	if (inet_pton(AF_INET6, host, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		job.laddr_len = sizeof(*s6);
		return true;
	}
	return false;
}

static bool provider_known(const char *name)
{
	return !strcmp(name, "kernel") || !strcmp(name, "inproc") ||
	       !strcmp(name, "ofi") || !strcmp(name, "auto");
}

static const char *const bind_names[] = {
	[BIND_AUTO] = "auto", [BIND_CPU] = "cpu", [BIND_NONE] = "none",
};

/* --bind's value as the option spells it (and TH_BIND, for --threads). */
const char *bind_name(enum job_bind b)
{
	return bind_names[b];
}

/* --bind's value: false when it names no binding. */
static bool parse_bind(const char *s, enum job_bind *out)
{
	unsigned int i;

	for (i = 0; i < sizeof(bind_names) / sizeof(bind_names[0]); i++) {
		if (!strcmp(s, bind_names[i])) {
			*out = i;
			return true;
		}
	}
	return false;
}

int parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "np", required_argument, NULL, 'n' },
		{ "version", no_argument, NULL, 'V' },
		{ "provider", required_argument, NULL, 'p' },
		{ "timeout", required_argument, NULL, 't' },
		{ "grace", required_argument, NULL, 'g' },
		{ "single", no_argument, NULL, 's' },
		{ "bind", required_argument, NULL, 'b' },
		{ "threads", required_argument, NULL, 'T' },
		{ "hosts", required_argument, NULL, 'H' },
		{ "launcher", required_argument, NULL, 'L' },
		{ "listen", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	static char default_launcher[] = THRUN_DEFAULT_LAUNCHER;
	char *launcher = NULL, *end;
	long v;
	int o, i;

	job.grace_s = THRUN_DEFAULT_GRACE_S;
	args_np(argc, argv);
	while ((o = getopt_long(argc, argv, "+n:p:t:g:b:sT:hV", opts, NULL)) != -1) {
		switch (o) {
		case 'n':
		case 'T':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || v < 1 ||
			    v > TH_BOOT_MAX_RANKS) {
				fprintf(stderr, "thrun: %s wants 1..%d, not '%s'\n",
					o == 'n' ? "-n" : "--threads",
					TH_BOOT_MAX_RANKS, optarg);
				return -1;
			}
			if (job.nodes && job.nodes != v) {
				fprintf(stderr, "thrun: -n and --threads disagree\n");
				return -1;
			}
			job.nodes = v;
			if (o == 'T')
				job.threads = true;
			break;
		case 'p':
			if (!provider_known(optarg)) {
				fprintf(stderr, "thrun: unknown provider '%s'\n",
					optarg);
				return -1;
			}
			job.provider = optarg;
			break;
		case 't':
		case 'g':
			if (!parse_seconds(optarg, o == 't' ? &job.timeout_s :
							       &job.grace_s)) {
				fprintf(stderr, "thrun: bad number of seconds '%s'\n",
					optarg);
				return -1;
			}
			break;
		case 's':
			job.single = true;
			break;
		case 'b':
			if (!parse_bind(optarg, &job.bind)) {
				fprintf(stderr, "thrun: --bind wants auto, cpu or none, not '%s'\n",
					optarg);
				return -1;
			}
			break;
		case 'H':
			free(job.hosts);
			job.hosts = split(optarg, ',', &job.nhosts);
			for (i = 0; job.hosts && i < job.nhosts; i++)
				if (!host_ok(job.hosts[i]))
					break;
			if (!job.hosts) {
				fprintf(stderr, "thrun: --hosts wants HOST[,HOST...], without empty names\n");
				return -1;
			}
			if (i < job.nhosts) {
				fprintf(stderr, "thrun: --hosts: '%s' is not a host name\n",
					job.hosts[i]);
				return -1;
			}
			break;
		case 'L':
			launcher = optarg;
			break;
		case 'l':
			if (!parse_listen(optarg)) {
				fprintf(stderr, "thrun: --listen wants a numeric IPv4 or IPv6 address, not '%s'\n",
					optarg);
				return -1;
			}
			job.listen = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(EXIT_OK);
		case 'V':
			printf("thrun (th_nic) %s\n", TH_VERSION);
			exit(EXIT_OK);
		default:
			return -1;
		}
	}
	if (job.threads && job.single) {
		fprintf(stderr, "thrun: --single and --threads exclude each other\n");
		return -1;
	}
	/*
	 * Checked here, once, rather than by every rank's library: N ranks
	 * would each say it.
	 */
	if (!job.provider) {
		const char *env = getenv("TH_PROVIDER");

		if (env && *env && !provider_known(env)) {
			fprintf(stderr, "thrun: TH_PROVIDER='%s' is not valid: expected kernel, inproc, ofi or auto\n",
				env);
			return -1;
		}
		job.provider = env && *env ? env : NULL;
	}
	/* ofi ranks are processes joined by libfabric: not threads of one */
	if (job.provider && !strcmp(job.provider, "ofi") &&
	    (job.threads || job.single)) {
		fprintf(stderr, "thrun: --provider ofi runs one process per rank: not with --%s\n",
			job.threads ? "threads" : "single");
		return -1;
	}
	if (job.hosts) {
		if (job.threads || job.single) {
			fprintf(stderr, "thrun: --hosts starts one process per rank: not with --%s\n",
				job.threads ? "threads" : "single");
			return -1;
		}
		/* SCM_RIGHTS does not cross TCP, nor a domain another host */
		if (job.provider && !strcmp(job.provider, "kernel")) {
			fprintf(stderr, "thrun: --hosts: the kernel provider's job domain cannot reach other hosts; use --provider ofi\n");
			return -1;
		}
		if (!job.listen) {
			fprintf(stderr, "thrun: --hosts needs --listen ADDR, this host's address that the ranks reach\n");
			return -1;
		}
		job.launcher = split_words(launcher ? launcher :
					   default_launcher, &job.nlauncher);
		if (!job.launcher) {
			fprintf(stderr, "thrun: --launcher wants a command, not '%s'\n",
				launcher ? launcher : "");
			return -1;
		}
	} else if (launcher || job.listen) {
		fprintf(stderr, "thrun: --%s only goes with --hosts\n",
			launcher ? "launcher" : "listen");
		return -1;
	}
	if (job.bind == BIND_CPU && (job.hosts || job.single)) {
		fprintf(stderr, "thrun: --bind cpu binds ranks on this host: not with --%s\n",
			job.hosts ? "hosts" : "single");
		return -1;
	}
	job.single |= job.threads;	/* one process, no rendezvous socket */
	if (!job.nodes || optind == argc) {
		fprintf(stderr, "thrun: %s\n", !job.nodes ? "-n N is required" :
			"no program to run");
		return -1;
	}
	job.argv = argv + optind;
	return 0;
}
