/* spawn.c - sr-mcp's children: sr-queue commands whose output it reads,
 * and the worker it starts and leaves behind. The server is threaded, so
 * a child does nothing but async-signal-safe calls between fork and
 * exec, and the program is resolved before the fork. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mcp.h"
#include "sr.h"

extern char **environ;

/* Children that must not outlive sr-mcp, killed on the way out. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t kids[MCP_MAX_INFLIGHT * 2];

static void kid_set(pid_t old, pid_t new)
{
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < sizeof kids / sizeof *kids; i++)
		if (kids[i] == old) {
			kids[i] = new;
			break;
		}
	pthread_mutex_unlock(&lock);
}

void spawn_kill_all(void)
{
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < sizeof kids / sizeof *kids; i++)
		if (kids[i] > 0)
			kill(kids[i], SIGTERM);
	pthread_mutex_unlock(&lock);
}

static char *resolve(const char *prog)
{
	char *path = sr_find_program(prog);
	if (!path)
		mcp_log("unable to find %s: %s", prog, strerror(errno));
	return path;
}

int spawn_capture(char *const argv[], char **out, size_t max, int quiet)
{
	char *path = resolve(argv[0]);
	int p[2];
	*out = NULL;
	if (!path)
		return -1;
	if (pipe2(p, O_CLOEXEC) < 0) {
		free(path);
		return -1;
	}
	pid_t ppid = getpid();
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);
		if (null < 0 || dup2(null, 0) < 0 || dup2(p[1], 1) < 0 ||
		    (quiet && dup2(null, 2) < 0))
			_exit(SR_EXIT_SYS);
		/* Dies with the thread that waits for it; and if sr-mcp went
		 * away before the prctl took hold, goes too. */
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != ppid)
			_exit(SR_EXIT_SYS);
		execve(path, argv, environ);
		_exit(sr_exec_exit(errno));
	}
	free(path);
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return -1;
	}
	kid_set(0, pid);
	size_t len = 0, cap = 4096;
	char *buf = xmalloc(cap + 1);
	for (;;) {
		if (len == cap && cap < max) {
			cap = cap * 2 < max ? cap * 2 : max;
			char *nb = realloc(buf, cap + 1);
			if (!nb)
				break;
			buf = nb;
		}
		char sink[4096];
		ssize_t n = len < cap ? read(p[0], buf + len, cap - len)
				      : read(p[0], sink, sizeof sink);   /* past max: dropped */
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (len < cap)
			len += (size_t)n;
	}
	buf[len] = '\0';
	close(p[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	kid_set(pid, 0);
	*out = buf;
	return sr_status_to_exit(st);
}

/* Twice forked and in a session of its own: not our child, not in our
 * process group, and no parent-death signal, so it outlives us. keep_fd
 * (a lock it holds) stays open in it; its stderr goes to log. */
int spawn_detached(char *const argv[], int keep_fd, const char *log)
{
	char *path = resolve(argv[0]);
	if (!path)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		if (setsid() < 0)
			_exit(SR_EXIT_SYS);
		if (fork() != 0)
			_exit(0);
		/* Its stderr to a log of its own: ours may be a pipe that
		 * closes when we exit. */
		int null = open("/dev/null", O_RDWR);
		int lfd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0600);
		if (null < 0 || lfd < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 ||
		    dup2(lfd, 2) < 0)
			_exit(SR_EXIT_SYS);
		if (keep_fd >= 0 && fcntl(keep_fd, F_SETFD, 0) < 0)
			_exit(SR_EXIT_SYS);
		execve(path, argv, environ);
		_exit(sr_exec_exit(errno));
	}
	free(path);
	if (pid < 0)
		return -1;
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}
