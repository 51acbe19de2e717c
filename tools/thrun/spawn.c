// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * spawn.c - starting the ranks: each one's environment, its command line
 * (here, or on its host through the launcher, rank r on host r % count,
 * with the job's key on stdin), and the fork and exec.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "thrun.h"

static void set_env_int(const char *name, long v)
{
	char s[32];

	snprintf(s, sizeof(s), "%ld", v);
	setenv(name, s, 1);
}

/*
 * One word of the remote command, for ssh, which joins its arguments with
 * spaces into one line for the remote user's shell: single-quoted, each '
 * as '\'' , so that spaces, quotes, $ and globs reach the rank unchanged.
 */
static char *shell_quote(const char *w)
{
	size_t n = 3, i;
	char *q, *p;

	for (i = 0; w[i]; i++)
		n += w[i] == '\'' ? 4 : 1;
	q = malloc(n);
	if (!q)
		return NULL;
	p = q;
	*p++ = '\'';
	for (i = 0; w[i]; i++) {
		if (w[i] == '\'') {
			memcpy(p, "'\\''", 4);
			p += 4;
		} else {
			*p++ = w[i];
		}
	}
	*p++ = '\'';
	*p = '\0';
	return q;
}

static char *str_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *str_printf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

/* Set by thrun for each rank: not forwarded from thrun's environment. */
static bool env_is_thruns(const char *kv)
{
	static const char *const own[] = {
		"TH_RANK=", "TH_SIZE=", "TH_BOOT=", "TH_BOOT_KEY=",
		"TH_PROVIDER=", "TH_SINGLE=", "TH_THREADS=",
	};
	unsigned int i;

	for (i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (!strncmp(kv, own[i], strlen(own[i])))
			return true;
	return false;
}

/*
 * The rank's first words on its host: the job's key comes as the first
 * line of its stdin, never in a command line (ps shows those to every
 * user of both hosts); the rest of stdin is then the rank's (rank 0:
 * thrun's, relayed; the others: EOF).  read takes one byte at a time from
 * a pipe, so it consumes nothing past the key's line.
 */
#define THRUN_KEY_SCRIPT \
	"IFS= read -r TH_BOOT_KEY || " \
	"{ echo 'thrun: no job key on stdin' >&2; exit 127; }; " \
	"export TH_BOOT_KEY; exec \"$@\""

/*
 * In the child, the argument list of a rank on another host:
 * LAUNCHER... HOST env [TH_*=... of thrun's environment] TH_RANK=r
 * TH_SIZE=N TH_BOOT=tcp:... [TH_PROVIDER=p] sh -c THRUN_KEY_SCRIPT
 * thrun-rank prog args..., everything after HOST quoted when the launcher
 * is ssh.  NULL: no memory.
 */
static char **remote_argv(int rank)
{
	int nenv = 0, nargs = 0, n = 0, i;
	char **v, **e;

	for (e = environ; *e; e++)
		nenv++;
	while (job.argv[nargs])
		nargs++;
	v = calloc(job.nlauncher + 2 + nenv + 4 + 4 + nargs + 1, sizeof(*v));
	if (!v)
		return NULL;
	for (i = 0; i < job.nlauncher; i++)
		v[n++] = job.launcher[i];
	v[n++] = job.hosts[rank % job.nhosts];
	v[n++] = "env";
	/* what the ranks read (TH_OFI_*, TH_BOOT_TIMEOUT...) follows them */
	for (e = environ; *e; e++)
		if (!strncmp(*e, "TH_", 3) && !env_is_thruns(*e))
			v[n++] = *e;
	v[n++] = str_printf("TH_RANK=%d", rank);
	v[n++] = str_printf("TH_SIZE=%d", job.nodes);
	v[n++] = str_printf("TH_BOOT=%s", job.boot);
	if (job.provider)
		v[n++] = str_printf("TH_PROVIDER=%s", job.provider);
	v[n++] = "sh";
	v[n++] = "-c";
	v[n++] = THRUN_KEY_SCRIPT;
	v[n++] = "thrun-rank";	/* the script's $0 */
	for (i = 0; i < nargs; i++)
		v[n++] = job.argv[i];
	for (i = job.nlauncher + 1; i < n; i++) {
		if (!v[i])
			return NULL;
		if (job.quote) {
			v[i] = shell_quote(v[i]);
			if (!v[i])
				return NULL;
		}
	}
	return v;
}

/* Copy stdin to stdout until either ends; never returns. */
static void __attribute__((noreturn)) relay_stdin(void)
{
	char buf[4096];
	ssize_t n, w, off;

	for (;;) {
		n = read(STDIN_FILENO, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(0);
		for (off = 0; off < n; off += w) {
			w = write(STDOUT_FILENO, buf + off, n - off);
			if (w < 0 && errno == EINTR)
				w = 0;
			else if (w < 0)
				_exit(0);	/* the launcher stopped reading */
		}
	}
}

/*
 * In the child of a rank on another host: its stdin becomes a pipe that
 * starts with the job's key and a newline; rank 0's then goes on with
 * thrun's stdin, copied by a process of its own that ends with the
 * launcher (PR_SET_PDEATHSIG), at EOF, or when the launcher stops reading.
 * 0, or a positive errno.
 */
static int key_stdin(int rank)
{
	char line[sizeof(job.key_hex) + 1];
	pid_t launcher = getpid(), pid;
	int kp[2];

	if (pipe(kp))
		return errno;
	snprintf(line, sizeof(line), "%s\n", job.key_hex);
	/* far below PIPE_BUF: one write that never blocks */
	if (write(kp[1], line, strlen(line)) != (ssize_t)strlen(line))
		return errno ? errno : EIO;
	if (rank == 0) {
		pid = fork();
		if (pid < 0)
			return errno;
		if (pid == 0) {
			prctl(PR_SET_PDEATHSIG, SIGTERM);
			if (getppid() != launcher)
				_exit(0);
			/* nothing of thrun's stays open here (its output
			 * pipe neither): only 0 and 1 */
			if (dup2(kp[1], STDOUT_FILENO) < 0)
				_exit(1);
			close_range(2, ~0U, 0);
			relay_stdin();
		}
	}
	close(kp[1]);
	if (dup2(kp[0], STDIN_FILENO) < 0)
		return errno;
	close(kp[0]);
	return 0;
}

/*
 * --bind: the CPUs thrun may use, in order, when the ranks are bound
 * (job.cpus; left NULL when they are not).  Auto binds only when there
 * are ranks to meet (two or more) and every rank has a CPU of its own: a waiting rank then keeps its CPU and its
 * cache, where the kernel may otherwise leave two ranks' waiters on one
 * CPU beside an idle one for a whole run (ranks over ofi, 2 on 2 CPUs:
 * 3 or 4 jobs in 10 took 30 us an Allreduce instead of 4).  With more ranks
 * than CPUs only the kernel's balancing helps: no binding.
 */
static void bind_plan(void)
{
	cpu_set_t set;
	int cpu, n = 0;

	if (job.bind == BIND_NONE || job.hosts || job.single)
		return;
	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	/* one rank has no other to meet on a CPU: its threads keep them all */
	if (job.bind == BIND_AUTO &&
	    !th_boot_bind_auto(job.nranks, CPU_COUNT(&set)))
		return;
	job.cpus = calloc(CPU_COUNT(&set), sizeof(*job.cpus));
	if (!job.cpus)
		return;		/* unbound: slower, never wrong */
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set))
			job.cpus[n++] = cpu;
	job.ncpus = n;
}

/* In the child: onto its CPU, if the job binds; a failure only says so. */
static void rank_bind(int rank)
{
	cpu_set_t set;

	if (!job.cpus || !job.ncpus)
		return;
	CPU_ZERO(&set);
	CPU_SET(job.cpus[rank % job.ncpus], &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		fprintf(stderr, "thrun: rank %d: cannot bind to CPU %d: %s\n",
			rank, job.cpus[rank % job.ncpus], strerror(errno));
}

/* In the child, between fork and exec: never returns. */
static void rank_exec(int rank, pid_t parent, int errw)
{
	char **argv = job.argv;
	sigset_t none;
	int err, sig, fd;

	for (sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);	/* fails harmlessly for KILL, STOP */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* if thrun dies, so does the job */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(EXIT_FAILED);

	/* the launcher's own environment: a local one passes it on */
	unsetenv("TH_THREADS");
	unsetenv("TH_BOOT_KEY");	/* of an enclosing job, if any */
	if (job.hosts) {
		unsetenv("TH_SINGLE");
		argv = remote_argv(rank);
		err = argv ? key_stdin(rank) : ENOMEM;
		if (err) {
			(void)!write(errw, &err, sizeof(err));
			_exit(127);
		}
		goto exec_remote;
	}
	rank_bind(rank);
	set_env_int("TH_RANK", rank);
	set_env_int("TH_SIZE", job.nodes);
	if (job.threads) {
		set_env_int("TH_THREADS", job.nodes);
		/* th_boot_run_threads() binds the rank threads as thrun would */
		setenv("TH_BIND", bind_name(job.bind), 1);
		unsetenv("TH_SINGLE");
		unsetenv("TH_BOOT");
	} else if (job.single) {
		setenv("TH_SINGLE", "1", 1);
		unsetenv("TH_BOOT");
	} else {
		unsetenv("TH_SINGLE");
		setenv("TH_BOOT", job.path, 1);
	}
	if (job.provider)
		setenv("TH_PROVIDER", job.provider, 1);
	if (rank > 0) {
		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			dup2(fd, STDIN_FILENO);
	}
exec_remote:
	execvp(argv[0], argv);
	err = errno;
	/* if even this fails, the parent sees a plain exit 127 */
	(void)!write(errw, &err, sizeof(err));
	_exit(127);
}

/* Ranks from @first on never ran: nothing to wait for or signal. */
static void ranks_not_started(int first)
{
	for (; first < job.nranks; first++)
		job.ranks[first].exited = true;
}

/* Start every rank; false (after a message) when prog cannot run. */
bool ranks_start(void)
{
	pid_t parent = getpid();
	sigset_t all, old;
	int i, p[2], err;
	ssize_t n;

	sigfillset(&all);
	bind_plan();
	for (i = 0; i < job.nranks; i++) {
		if (pipe2(p, O_CLOEXEC)) {
			ranks_not_started(i);
			job_fail(errno, "pipe: %s", strerror(errno));
			return false;
		}
		sigprocmask(SIG_BLOCK, &all, &old);
		job.ranks[i].pid = fork();
		if (job.ranks[i].pid == 0) {
			close(p[0]);
			rank_exec(i, parent, p[1]);
		}
		err = errno;
		sigprocmask(SIG_SETMASK, &old, NULL);
		close(p[1]);
		if (job.ranks[i].pid < 0) {
			close(p[0]);
			ranks_not_started(i);
			job_fail(err, "fork: %s", strerror(err));
			return false;
		}
		job.live++;
		/* EOF on exec; errno when exec failed */
		do {
			n = read(p[0], &err, sizeof(err));
		} while (n < 0 && errno == EINTR);
		close(p[0]);
		if (n == sizeof(err)) {
			ranks_not_started(i + 1);
			job_fail(err, "cannot run '%s': %s",
				 job.hosts ? job.launcher[0] : job.argv[0],
				 strerror(err));
			return false;
		}
	}
	return true;
}
