/* session_call.c - the program of a session call's job: sr-mcp
 * --session-call DIR JOB SPOOL TIMEOUT_MS NOTE, run by the sr-queue worker
 * on the host (its stdout and stderr are the call's, kept by sr-queue).
 * It waits its turn (DIR/call.lock), hands the code (SR_CODE) to the
 * interpreter over DIR/in with a new random call id, and copies the
 * frames of that id from DIR/out to its stdout and stderr until the done
 * frame. Frames are length-prefixed (session.h, srsession.py): what the
 * code prints cannot end the call or pass for another call's answer; a
 * frame of another id (a call before it that was given up) is skipped; a
 * malformed header ends the session. Exit: 0 ok, 1 an exception, 124
 * interrupted at the timeout, 125 the session was lost (it ended, or it
 * did not stop SESSION_GRACE_MS after the timeout and was killed). A
 * SIGTERM (cancel_job) ends the session: its code cannot be stopped
 * otherwise. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "job.h"
#include "session.h"
#include "sr.h"

struct call {
	int dir, in, out;
	const char *job, *spool;
	char id[33];
	char buf[1 << 16];
	size_t have;
};

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t ms_now(void)
{
	return sr_now_ns() / 1000000;
}

/* Kill the interpreter, say why (in DIR/ended and on stderr), exit 125. */
static void lose(struct call *c, const char *why)
{
	int fd = openat(c->dir, "ended", O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0) {
		(void)sr_write_all(fd, why, strlen(why));
		close(fd);
	}
	char *out, *argv[] = { "sr-queue", "cancel", (char *)c->spool, (char *)c->job, NULL };
	if (spawn_capture(argv, &out, 4096, 1) != 0)
		fprintf(stderr, "sr-mcp: unable to stop the session's interpreter %s\n", c->job);
	free(out);
	fprintf(stderr, "sr-mcp: the session was lost: %s\n", why);
	exit(125);
}

static int interp_done(const struct call *c)
{
	char p[4300];
	struct stat st;
	snprintf(p, sizeof p, "%s/done/%s", c->spool, c->job);
	return lstat(p, &st) == 0;
}

/* The FIFOs opened once the interpreter is up (it opens `out`, then `in`). */
static void connect_fifos(struct call *c)
{
	uint64_t until = ms_now() + 120000;
	while ((c->in = openat(c->dir, "in", O_WRONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		if (errno != ENXIO || interp_done(c) || ms_now() > until || stop) {
			fprintf(stderr, "sr-mcp: the session's interpreter is not running: its state is lost\n");
			exit(125);
		}
		usleep(2000);
	}
	fcntl(c->in, F_SETFL, 0);
	c->out = openat(c->dir, "out", O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (c->out < 0 || fstat(c->out, &st) < 0 || !S_ISFIFO(st.st_mode))
		sr_fatal_sys(SR_EXIT_SYS, "unable to open the session's channel");
}

static void send_code(struct call *c, const char *code, size_t len, const char *timeout)
{
	char head[128];
	int n = snprintf(head, sizeof head, "SRQ1 %s %s %zu\n", c->id, timeout, len);
	signal(SIGPIPE, SIG_IGN);
	if (sr_write_all(c->in, head, (size_t)n) < 0 || sr_write_all(c->in, code, len) < 0)
		lose(c, "its channel broke while the code was sent");
}

/* More bytes from `out` until the deadline: 1, 0 at its end (the
 * interpreter is gone), -1 at the deadline or a SIGTERM. */
static int fill(struct call *c, uint64_t deadline)
{
	for (;;) {
		if (stop)
			return -1;
		uint64_t t = ms_now();
		if (t >= deadline)
			return -1;
		struct pollfd p = { .fd = c->out, .events = POLLIN };
		int r = poll(&p, 1, (int)(deadline - t < 1000 ? deadline - t : 1000));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			continue;
		ssize_t n = read(c->out, c->buf + c->have, sizeof c->buf - c->have);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0)
			return 0;
		c->have += (size_t)n;
		return 1;
	}
}

/* One frame's header parsed from the front of the buffer: its id, kind
 * and length; its size in *hl; 0 (need more), 1, -1 (malformed). */
static int header(struct call *c, char id[33], char *kind, size_t *len, size_t *hl)
{
	char *nl = memchr(c->buf, '\n', c->have < 200 ? c->have : 200);
	if (!nl)
		return c->have >= 200 ? -1 : 0;
	*nl = '\0';
	char k[4];
	unsigned long long n;
	int ok = sscanf(c->buf, "SRR1 %32[0-9a-f] %1[oed] %llu", id, k, &n) == 3 &&
		 strlen(id) == 32 && n <= (1ULL << 30);
	*kind = k[0];
	*len = (size_t)n;
	*hl = (size_t)(nl - c->buf) + 1;
	return ok ? 1 : -1;
}

static void consume(struct call *c, size_t n)
{
	memmove(c->buf, c->buf + n, c->have - n);
	c->have -= n;
}

static void need(struct call *c, uint64_t deadline)
{
	int r = fill(c, deadline);
	if (r > 0)
		return;
	if (r == 0) {
		fprintf(stderr, "sr-mcp: the session's interpreter ended during this call\n");
		exit(125);
	}
	lose(c, stop ? "the call was cancelled (cancelling a session call ends its session)" :
	     "the code did not stop at its timeout_s (KeyboardInterrupt did not end it), so "
	     "the session was killed");
}

/* Frames until this call's done frame: its status (ok, error, interrupted).
 * "interrupted" counts as the timeout only once timeout_ms have passed
 * since the code was sent (at sent), by the host's clock: the interpreter
 * that says it is the code's process, and the code can send the frame. */
static int answer(struct call *c, uint64_t sent, uint64_t timeout_ms, uint64_t deadline)
{
	char id[33], kind, status[16];
	size_t len, hl;
	for (;;) {
		int h = header(c, id, &kind, &len, &hl);
		if (h < 0)
			lose(c, "its channel carried a malformed frame");
		if (h == 0) {
			need(c, deadline);
			continue;
		}
		consume(c, hl);
		int mine = strcmp(id, c->id) == 0;
		size_t left = len, got = 0;
		while (left) {
			if (!c->have)
				need(c, deadline);
			size_t k = c->have < left ? c->have : left;
			if (mine && kind != 'd')
				(void)sr_write_all(kind == 'o' ? 1 : 2, c->buf, k);
			else if (mine && got + k < sizeof status)
				memcpy(status + got, c->buf, k);
			got += k;
			left -= k;
			consume(c, k);
		}
		if (mine && kind == 'd') {
			status[got < sizeof status ? got : sizeof status - 1] = '\0';
			if (!strcmp(status, "interrupted") && ms_now() - sent >= timeout_ms)
				return 124;
			return !strcmp(status, "ok") ? 0 : 1;
		}
	}
}

static char *read_code(size_t *len)
{
	const char *path = getenv("SR_CODE");
	int fd = path ? open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) : -1;
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to read the call's code");
	char *code = xmalloc((size_t)st.st_size + 1);
	size_t got = 0;
	for (ssize_t n; got < (size_t)st.st_size &&
	     (n = read(fd, code + got, (size_t)st.st_size - got)) > 0;)
		got += (size_t)n;
	close(fd);
	*len = got;
	return code;
}

int session_call_main(int argc, char **argv)
{
	if (argc != 7)
		sr_fatal(SR_EXIT_USAGE, "usage: sr-mcp " SESSION_CALL_ARG
			 " DIR JOB SPOOL TIMEOUT_MS NOTE (sr-mcp runs it as a job)");
	struct call *c = xmalloc(sizeof *c);
	memset(c, 0, sizeof *c);
	c->job = argv[3];
	c->spool = argv[4];
	struct sigaction sa = { .sa_handler = on_term };
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	size_t len;
	char *code = read_code(&len);
	c->dir = open(argv[2], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int lk = c->dir >= 0 ? openat(c->dir, "call.lock", O_RDWR | O_CREAT | O_NOFOLLOW |
				      O_CLOEXEC, 0600) : -1;
	if (lk < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to open the session's directory %s", argv[2]);
	while (flock(lk, LOCK_EX) < 0)    /* one call at a time: wait for those before */
		if (errno != EINTR || stop)
			sr_fatal(SR_EXIT_SYS, "cancelled while waiting for the session");
	connect_fifos(c);
	mcp_random_hex(c->id, 16);
	uint64_t sent = ms_now(), timeout_ms = strtoull(argv[5], NULL, 10);
	send_code(c, code, len, argv[5]);
	free(code);
	return answer(c, sent, timeout_ms, ms_now() + timeout_ms + SESSION_GRACE_MS);
}
