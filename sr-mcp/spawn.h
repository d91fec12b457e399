/* spawn.h - the spawn layer (prefix spawn_): running sr-queue, runners
 * and tar, capturing their output.
 *
 *   spawn.c  spawn_capture, spawn_detached, spawn_io, spawn_kill_all
 */
#ifndef SR_MCP_SPAWN_H
#define SR_MCP_SPAWN_H

#include <stddef.h>
#include <string.h>
#include <sys/types.h>

/* Run argv (PATH searched), stdin from /dev/null, and capture at most
 * max bytes of its stdout (NUL-terminated, malloc'd, *out). Its stderr
 * goes to ours, or with quiet to /dev/null. The child dies with this
 * thread (PR_SET_PDEATHSIG). Returns the exit status as
 * sr_status_to_exit gives it, or -1. */
int spawn_capture(char *const argv[], char **out, size_t max, int quiet);
/* The same, in the background, detached from us for good (a worker);
 * its pid in *pid (unless NULL). */
int spawn_detached(char *const argv[], int keep_fd, const char *log, pid_t *pid);
/* The same with its streams wired: stdin from in_fd (-1: /dev/null);
 * stdout, and stderr unless err is NULL (then ours, or /dev/null with
 * quiet), handed to the sinks as they come. A sink returns 0 to go on,
 * -1 to stop: the child is killed (SIGKILL; the chain's PR_SET_PDEATHSIG
 * takes the rest), as it is when *stop becomes non-zero. */
struct spawn_io {
	int in_fd;
	int (*out)(void *ctx, const char *buf, size_t n);   /* NULL: /dev/null */
	int (*err)(void *ctx, const char *buf, size_t n);
	void *out_ctx, *err_ctx;
	int quiet;
	volatile int *stop;
};
int spawn_io(char *const argv[], const struct spawn_io *io);
/* A sink keeping what comes (a child's stderr) up to buf's size,
 * NUL-terminated; the rest is dropped. */
struct spawn_text {
	char buf[1024];
	size_t len;
};
static inline int spawn_keep(void *ctx, const char *p, size_t n)
{
	struct spawn_text *t = ctx;
	if (n > sizeof t->buf - 1 - t->len)
		n = sizeof t->buf - 1 - t->len;
	memcpy(t->buf + t->len, p, n);
	t->len += n;
	t->buf[t->len] = '\0';
	return 0;
}
/* The first "PROG: fatal: " line of t (prefix "sr-jail: fatal: ", say),
 * cut at its end, or NULL. */
static inline char *spawn_fatal_line(struct spawn_text *t, const char *prefix)
{
	char *line = t->len ? strstr(t->buf, prefix) : NULL, *nl;
	if (line && (nl = strchr(line, '\n')))
		*nl = '\0';
	return line;
}
void spawn_kill_all(void);

#endif
