/* pp.c: the probe of tests/escape/20-procs.t (also run through run_code by
   tests/escape/90-run-code.t). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

static int say(long r)
{
	if (r < 0) { printf("%s\n", strerrorname_np(errno)); return 1; }
	printf("ok\n");
	return 0;
}
/* ptrace: PTRACE_SEIZE PID, then detach */
static int mode_ptrace(char **argv, long a, long b)
{
	long r = ptrace(PTRACE_SEIZE, (pid_t)a, 0, 0);
	int e = errno;
	if (r == 0)
		ptrace(PTRACE_DETACH, (pid_t)a, 0, 0);
	errno = e;
	return say(r);
}

/* pidfd: pidfd_open PID, then signal SIG through it */
static int mode_pidfd(char **argv, long a, long b)
{
	long fd = syscall(SYS_pidfd_open, (pid_t)a, 0);
	if (fd < 0)
		return say(fd);
	return say(syscall(SYS_pidfd_send_signal, (int)fd, (int)b, NULL, 0));
}

/* prlimit: read RLIMIT_NOFILE of PID */
static int mode_prlimit(char **argv, long a, long b)
{
	struct rlimit rl;
	return say(prlimit((pid_t)a, RLIMIT_NOFILE, NULL, &rl));
}

/* clone: clone with FLAGS, the child exits at once */
static int mode_clone(char **argv, long a, long b)
{
	long r = syscall(SYS_clone, a | SIGCHLD, 0L, 0L, 0L, 0L);
	if (r == 0)
		_exit(0);
	if (r > 0)
		waitpid((pid_t)r, NULL, 0);
	return say(r);
}

/* tiocsti: push a byte into the terminal on fd 0 */
static int mode_tiocsti(char **argv, long a, long b)
{
	char c = '#';
	return say(ioctl(0, TIOCSTI, &c));
}

/* daemon: double fork, setsid, exec sleep named NAME */
static int mode_daemon(char **argv, long a, long b)
{
	int p[2];
	if (pipe(p) < 0)
		return say(-1);
	pid_t c = fork();
	if (c == 0) {
		setsid();
		if (fork() == 0) {
			close(p[0]);    /* p[1] closes at the exec: EOF tells the parent */
			fcntl(p[1], F_SETFD, FD_CLOEXEC);
			execl("/bin/sleep", argv[2], "60", (char *)NULL);
			_exit(127);
		}
		_exit(0);
	}
	close(p[1]);
	waitpid(c, NULL, 0);
	char x;
	(void)!read(p[0], &x, 1);
	printf("started\n");
	return 0;
}

int main(int argc, char **argv)
{
	const char *m = argv[1];
	long a = argc > 2 ? strtol(argv[2], NULL, 0) : 0, b = argc > 3 ? strtol(argv[3], NULL, 0) : 0;
	setvbuf(stdout, NULL, _IONBF, 0);
	if (!strcmp(m, "kill"))          /* kill PID SIG */
		return say(kill((pid_t)a, (int)b));
	if (!strcmp(m, "ptrace"))
		return mode_ptrace(argv, a, b);
	if (!strcmp(m, "pidfd"))
		return mode_pidfd(argv, a, b);
	if (!strcmp(m, "prio_user"))     /* setpriority(PRIO_USER, me, NICE) */
		return say(setpriority(PRIO_USER, 0, (int)a));
	if (!strcmp(m, "prio"))          /* setpriority(PRIO_PROCESS, PID, NICE) */
		return say(setpriority(PRIO_PROCESS, (id_t)a, (int)b));
	if (!strcmp(m, "prlimit"))
		return mode_prlimit(argv, a, b);
	if (!strcmp(m, "unshare"))
		return say(unshare((int)a));
	if (!strcmp(m, "clone"))
		return mode_clone(argv, a, b);
	if (!strcmp(m, "tiocsti"))
		return mode_tiocsti(argv, a, b);
	if (!strcmp(m, "daemon"))
		return mode_daemon(argv, a, b);
	fprintf(stderr, "pp: unknown mode %s\n", m);
	return 2;
}
