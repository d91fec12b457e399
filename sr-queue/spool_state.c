/* spool_state.c - where a job is (settling it when its worker is found
 * dead), and waiting for it to settle. */
#include <cJSON.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "spool.h"
#include "sr.h"

char sq_job_refusal[SQ_ID_LEN + 2 * SQ_WHY_MAX + 16];

/* Look in queue/, run/, done/ in the order a job moves through them. A
 * job directory that is not ours alone is refused (-1, errno EPERM). */
static int job_open(struct sq_spool *sp, const char *id, int *fd)
{
	static const char *const names[] = { "queue", "run", "done" };
	const int dirs[] = { sp->queue, sp->run, sp->done };
	char why[SQ_WHY_MAX];
	for (int i = 0; i < 3; i++) {
		*fd = sq_open_private_dir(dirs[i], id, why, sizeof why);
		if (*fd >= 0)
			return SQ_W_QUEUE + i;
		if (*fd == SQ_REFUSED) {
			snprintf(sq_job_refusal, sizeof sq_job_refusal, "%s/%s/%s: %s", sp->path,
				 names[i], id, why);
			*fd = -1;
			errno = EPERM;
			return -1;
		}
		if (errno != ENOENT)
			return -1;
	}
	return SQ_W_NONE;
}

static void unrecorded_lost(struct sq_jstat *js)
{
	js->state = "lost";
	js->result = sq_result_new("lost", "lost");
	cJSON_AddBoolToObject(js->result, "unrecorded", 1);
}

/* Find a job and settle it if its worker died. 0 and *js filled, or -1
 * (errno ENOENT: no such job). */
int sq_job_resolve(struct sq_spool *sp, const char *id, struct sq_jstat *js)
{
	memset(js, 0, sizeof *js);
	js->fd = -1;
	sq_job_refusal[0] = '\0';
	int misses = 0;
	for (int tries = 0; tries < 100; tries++) {
		int fd;
		int w = job_open(sp, id, &fd);
		if (w < 0)
			return -1;
		if (w == SQ_W_NONE) {
			if (++misses >= 3) { /* a requeue can move a job backwards */
				errno = ENOENT;
				return -1;
			}
			continue;
		}
		js->where = (enum sq_where)w;
		js->fd = fd;
		if (w == SQ_W_QUEUE) {
			js->state = "queued";
			return 0;
		}
		(void)sq_job_read_at(fd, SQ_JOB_FILE, NULL, &js->result);
		if (js->result) {
			js->state = sq_json_str(js->result, "state");
			return 0;
		}
		if (w == SQ_W_DONE) {
			unrecorded_lost(js);
			return 0;
		}
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			js->state = "running";
			return 0;
		}
		if (sq_same_file(fd, sp->run, id) &&
		    sq_job_settle_orphan(sp, id, fd, "worker died while the job ran") < 0) {
			sr_warn_sys("unable to settle job %s", id);
			(void)flock(fd, LOCK_UN);
			unrecorded_lost(js);
			return 0;
		}
		close(fd);
		js->fd = -1;
	}
	errno = EAGAIN;
	return -1;
}

void sq_jstat_free(struct sq_jstat *js)
{
	if (js->fd >= 0)
		close(js->fd);
	cJSON_Delete(js->result);
	js->fd = -1;
	js->result = NULL;
}

static int is_final(const char *state)
{
	return strcmp(state, "queued") != 0 && strcmp(state, "running") != 0;
}

/* Sleep until done/ID appears (inotify), or a second passed (then a dead
 * worker is noticed by sq_job_resolve), or the deadline (0: none) came.
 * Without inotify (ino -1: the user's instances are all taken), a tenth
 * of a second, after which the caller looks again. */
static void sleep_for_news(int ino, const char *id, uint64_t deadline)
{
	int ms = ino < 0 ? 100 : 1000;
	if (deadline) {
		uint64_t now = sr_now_ns();
		uint64_t left = deadline > now ? (deadline - now + 999999) / 1000000 : 0;
		ms = left < 1000 ? (int)left : 1000;
	}
	struct pollfd pf = { ino, POLLIN, 0 };
	if (ino < 0) {
		(void)poll(NULL, 0, ms);
		return;
	}
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

/* Block until the job settles (see spool.h); no polling for the result.
 * A job that has settled already is answered without an inotify watch:
 * closing one costs some 15 ms (the kernel waits out an RCU grace period). */
int sq_job_wait(struct sq_spool *sp, const char *id, uint64_t timeout_ns,
		struct sq_jstat *js)
{
	if (sq_job_resolve(sp, id, js) < 0)
		return -1;
	if (is_final(js->state))
		return 0;
	sq_jstat_free(js);
	char *done = sq_spool_subpath(sp, "done");
	int ino = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (ino >= 0 && inotify_add_watch(ino, done, IN_MOVED_TO | IN_ONLYDIR) < 0) {
		close(ino);     /* watches all taken: poll instead, as without one */
		ino = -1;
	}
	free(done);
	uint64_t deadline = timeout_ns ? sr_now_ns() + timeout_ns : 0;
	int r;
	for (;;) {
		if (sq_job_resolve(sp, id, js) < 0) {
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
		sq_jstat_free(js);
		sleep_for_news(ino, id, deadline);
	}
	int e = errno;
	if (ino >= 0)
		close(ino);
	errno = e;
	return r;
}

