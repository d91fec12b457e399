/* wait.c - `wait` for a job to settle, and `cancel` one. */
#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include "queue.h"
#include "sr.h"

#define DEFAULT_CANCEL_TIMEOUT_NS (30ULL * 1000000000ULL)

static int is_final(const char *state)
{
	return strcmp(state, "queued") != 0 && strcmp(state, "running") != 0;
}

/* Sleep until done/ID appears (inotify), or a second passed (then a dead
 * worker is noticed by job_resolve), or the deadline (0: none) came. */
static void sleep_for_news(int ino, const char *id, uint64_t deadline)
{
	int ms = 1000;
	if (deadline) {
		uint64_t now = sr_now_ns();
		uint64_t left = deadline > now ? (deadline - now + 999999) / 1000000 : 0;
		ms = left < 1000 ? (int)left : 1000;
	}
	struct pollfd pf = { ino, POLLIN, 0 };
	while (poll(&pf, 1, ms) > 0) {
		char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
		ssize_t n = read(ino, buf, sizeof buf);
		for (char *p = buf; n > 0 && p < buf + n;) {
			struct inotify_event *e = (struct inotify_event *)p;
			p += sizeof *e + e->len;
			if ((e->mask & IN_Q_OVERFLOW) || (e->len && strcmp(e->name, id) == 0))
				return;
		}
		ms = 0; /* only drain what else is there */
	}
}

/* 0: settled; 1: still queued or running at the deadline (timeout_ns 0:
 * wait forever); -1: not found (ENOENT) or error. *js is filled unless -1. */
int wait_final(struct spool *sp, const char *id, uint64_t timeout_ns, struct jstat *js)
{
	char *done = spool_subpath(sp, "done");
	int ino = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (ino < 0 || inotify_add_watch(ino, done, IN_MOVED_TO | IN_ONLYDIR) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to watch %s", done);
	free(done);
	uint64_t deadline = timeout_ns ? sr_now_ns() + timeout_ns : 0;
	int r;
	for (;;) {
		if (job_resolve(sp, id, js) < 0) {
			r = -1;
			break;
		}
		if (is_final(js->state)) {
			r = 0;
			break;
		}
		if (deadline && sr_now_ns() >= deadline) {
			r = 1;
			break;
		}
		jstat_free(js);
		sleep_for_news(ino, id, deadline);
	}
	int e = errno;
	close(ino);
	errno = e;
	return r;
}

static const struct option wait_lo[] = {
	{ "timeout", required_argument, NULL, Q_TIMEOUT },
	{ "json", no_argument, NULL, Q_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int report_state(const char *id, const struct jstat *js, int json)
{
	if (!json) {
		print_status_line(id, js);
		return fflush(stdout) == 0 ? 0 : SR_EXIT_SYS;
	}
	cJSON *j = status_json(id, js, 1);
	int r = print_json(j);
	cJSON_Delete(j);
	return r;
}

int cmd_wait(int argc, char **argv)
{
	struct qopts o = { 0 };
	char *ops[2];
	struct spool sp;
	struct jstat js;
	query_args(argc, argv, wait_lo, &o, 1, ops, &sp);
	if (o.has_timeout && o.timeout_ns == 0)
		o.timeout_ns = 1; /* --timeout 0: just look */
	int r = wait_final(&sp, ops[1], o.timeout_ns, &js);
	if (r < 0)
		no_such_job(&sp, ops[1]);
	int code = r == 1 ? EXIT_WAIT_TIMEOUT : result_exit_code(js.result);
	if (o.json && report_state(ops[1], &js, 1) != 0)
		code = SR_EXIT_SYS;
	jstat_free(&js);
	spool_close(&sp);
	return code;
}

static void ask_cancel(struct spool *sp, const char *id)
{
	int fd = openat(sp->cancel, id, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
			0600);
	if (fd < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to ask for the cancel of job %s", id);
	close(fd);
}

/* A queued job: ask first (so that a worker claiming it, or a cancel that
 * dies half-way, still ends in cancelled), take its flock (a worker holding
 * it is claiming it: look again), write the result, move it to done/. */
static int cancel_queued(struct spool *sp, const char *id, struct jstat *js)
{
	ask_cancel(sp, id);
	if (flock(js->fd, LOCK_EX | LOCK_NB) < 0 || !same_file(js->fd, sp->queue, id)) {
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
		return -1;
	}
	if (job_finish_cancelled(sp, id, js->fd, sp->queue) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to cancel job %s", id);
	return 0;
}

/* A running job: ask its worker (cancel/ID), then wait for the result. */
static int cancel_running(struct spool *sp, const char *id, uint64_t timeout,
			  struct jstat *js)
{
	ask_cancel(sp, id);
	jstat_free(js);
	int r = wait_final(sp, id, timeout, js);
	if (r < 0)
		no_such_job(sp, id);
	return r;
}

int cmd_cancel(int argc, char **argv)
{
	struct qopts o = { .timeout_ns = DEFAULT_CANCEL_TIMEOUT_NS };
	char *ops[2];
	struct spool sp;
	struct jstat js;
	query_args(argc, argv, wait_lo, &o, 1, ops, &sp); /* same options */
	const char *id = ops[1];
	uint64_t deadline = sr_now_ns() + o.timeout_ns;
	int code = -1;
	while (code < 0) {
		resolve_or_exit(&sp, id, &js);
		if (strcmp(js.state, "queued") == 0) {
			if (cancel_queued(&sp, id, &js) < 0) {
				if (sr_now_ns() < deadline) {
					jstat_free(&js);
					continue;
				}
				sr_warn("job %s: cancel requested, still queued", id);
				code = EXIT_WAIT_TIMEOUT;
				break;
			}
			jstat_free(&js);
			resolve_or_exit(&sp, id, &js);
		} else if (strcmp(js.state, "running") == 0 &&
			   cancel_running(&sp, id, o.timeout_ns, &js) == 1) {
			sr_warn("job %s: cancel requested, still running", id);
			code = EXIT_WAIT_TIMEOUT;
			break;
		}
		code = strcmp(js.state, "cancelled") == 0 ? 0 : SR_EXIT_SOFT;
		if (code)
			sr_warn("job %s is %s: not cancelled", id, js.state);
	}
	int r = report_state(id, &js, o.json);
	jstat_free(&js);
	spool_close(&sp);
	return r ? r : code;
}
