/* spawn.c - sr-mcp's children: sr-queue commands whose output it reads,
 * and the worker it starts and leaves behind. The server is threaded, so
 * a child does nothing but async-signal-safe calls between fork and
 * exec, and the program is resolved before the fork. */
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mcp.h"
#include "spawn.h"
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

/* A sink that keeps at most cap bytes (past it, the rest is dropped). */
struct capture {
	char *buf;
	size_t len, cap, max;
};

static int keep(void *ctx, const char *p, size_t n)
{
	struct capture *c = ctx;
	if (c->len + n > c->max)
		n = c->max - c->len;
	if (c->len + n > c->cap) {
		size_t cap = c->cap * 2 > c->len + n ? c->cap * 2 : c->len + n;
		char *nb = realloc(c->buf, (cap < c->max ? cap : c->max) + 1);
		if (!nb)
			return 0;       /* kept what fits */
		c->buf = nb;
		c->cap = cap < c->max ? cap : c->max;
	}
	memcpy(c->buf + c->len, p, n);
	c->len += n;
	return 0;
}

int spawn_capture(char *const argv[], char **out, size_t max, int quiet)
{
	struct capture c = { .buf = xmalloc(4096 + 1), .cap = 4096, .max = max };
	struct spawn_io io = { .in_fd = -1, .out = keep, .out_ctx = &c, .quiet = quiet };
	int rc = spawn_io(argv, &io);
	if (rc < 0 && c.len == 0) {
		free(c.buf);
		*out = NULL;
		return -1;
	}
	c.buf[c.len] = '\0';
	*out = c.buf;
	return rc;
}

/* Read what the pipe has into sink; 1 more may come, 0 closed, -1 stop. */
static int drain(int fd, int (*sink)(void *, const char *, size_t), void *ctx)
{
	char buf[65536];
	ssize_t n = read(fd, buf, sizeof buf);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 1;
	if (n <= 0)
		return 0;
	return sink && sink(ctx, buf, (size_t)n) < 0 ? -1 : 1;
}

/* In the child: stdin from io->in_fd (or /dev/null), stdout to out,
 * stderr to err (or /dev/null when quiet), then argv run. */
static _Noreturn void spawn_child(const char *path, char *const argv[], const struct spawn_io *io,
				  int out, int err, pid_t ppid)
{
	int null = open("/dev/null", O_RDWR);
	if (null < 0 || dup2(io->in_fd >= 0 ? io->in_fd : null, 0) < 0 ||
	    dup2(out, 1) < 0 || (io->err && dup2(err, 2) < 0) ||
	    (!io->err && io->quiet && dup2(null, 2) < 0))
		_exit(SR_EXIT_SYS);
	/* Dies with the thread that waits for it; and if sr-mcp went
	 * away before the prctl took hold, goes too. */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != ppid)
		_exit(SR_EXIT_SYS);
	execve(path, argv, environ);
	_exit(sr_exec_exit(errno));
}

/* The child's stdout (out) and stderr (err, or -1) to io's sinks until
 * both end (closed then); a sink's -1, or *io->stop, kills the child. */
static void spawn_pump(pid_t pid, const struct spawn_io *io, int out, int err)
{
	struct pollfd fds[2] = { { .fd = out, .events = POLLIN }, { .fd = err, .events = POLLIN } };
	int killed = 0;
	while (fds[0].fd >= 0 || fds[1].fd >= 0) {
		if (!killed && io->stop && *io->stop) {
			kill(pid, SIGKILL);
			killed = 1;
		}
		if (poll(fds, 2, io->stop ? 200 : -1) < 0 && errno != EINTR)
			break;
		for (int i = 0; i < 2; i++) {
			if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			int d = drain(fds[i].fd, killed ? NULL : i ? io->err : io->out,
				      i ? io->err_ctx : io->out_ctx);
			if (d < 0 && !killed) {
				kill(pid, SIGKILL);
				killed = 1;
			}
			if (d == 0) {
				close(fds[i].fd);
				fds[i].fd = -1;
			}
		}
	}
	for (int i = 0; i < 2; i++)
		if (fds[i].fd >= 0)
			close(fds[i].fd);
}

int spawn_io(char *const argv[], const struct spawn_io *io)
{
	char *path = resolve(argv[0]);
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 };
	if (!path)
		return -1;
	if (pipe2(po, O_CLOEXEC) < 0 || (io->err && pipe2(pe, O_CLOEXEC) < 0)) {
		free(path);
		if (po[0] >= 0) {
			close(po[0]);
			close(po[1]);
		}
		return -1;
	}
	pid_t ppid = getpid();
	pid_t pid = fork();
	if (pid == 0)
		spawn_child(path, argv, io, po[1], pe[1], ppid);
	free(path);
	close(po[1]);
	if (pe[1] >= 0)
		close(pe[1]);
	if (pid < 0) {
		close(po[0]);
		if (pe[0] >= 0)
			close(pe[0]);
		return -1;
	}
	kid_set(0, pid);
	spawn_pump(pid, io, po[0], pe[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	kid_set(pid, 0);
	return sr_status_to_exit(st);
}

/* The grandchild of spawn_detached: its stderr to a log of its own (ours
 * may be a pipe that closes when we exit), keep_fd kept. */
static void detached_exec(const char *path, char *const argv[], int keep_fd, const char *log)
{
	int null = open("/dev/null", O_RDWR);
	int lfd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0600);
	if (null < 0 || lfd < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(lfd, 2) < 0)
		_exit(SR_EXIT_SYS);
	if (keep_fd >= 0 && fcntl(keep_fd, F_SETFD, 0) < 0)
		_exit(SR_EXIT_SYS);
	execve(path, argv, environ);
	_exit(sr_exec_exit(errno));
}

/* Twice forked and in a session of its own: not our child, not in our
 * process group, and no parent-death signal, so it outlives us. keep_fd
 * (a lock it holds) stays open in it; its stderr goes to log; its pid in
 * *pidp (unless NULL), told by the child that forked it. */
int spawn_detached(char *const argv[], int keep_fd, const char *log, pid_t *pidp)
{
	char *path = resolve(argv[0]);
	int tell[2];
	if (!path)
		return -1;
	if (pipe2(tell, O_CLOEXEC) < 0) {
		free(path);
		return -1;
	}
	pid_t pid = fork();
	if (pid == 0) {
		close(tell[0]);
		if (setsid() < 0)
			_exit(SR_EXIT_SYS);
		pid_t g = fork();
		if (g == 0)
			detached_exec(path, argv, keep_fd, log);
		_exit(g > 0 && write(tell[1], &g, sizeof g) == (ssize_t)sizeof g ? 0 : SR_EXIT_SYS);
	}
	free(path);
	close(tell[1]);
	pid_t g = 0;
	if (pid > 0 && read(tell[0], &g, sizeof g) != (ssize_t)sizeof g)
		g = 0;
	close(tell[0]);
	if (pid < 0)
		return -1;
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (pidp)
		*pidp = g;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}
