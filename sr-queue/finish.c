/* finish.c - a worker claims a job, starts it, and records how it ended.
 *
 * Claim: open queue/ID (never through a symbolic link, and only if it
 * and its job file are ours alone: else the job is refused, see refuse()),
 * take its flock (never blocking), rename it to
 * run/ID (the rename decides: only one claimer can make it), fsync run/
 * (once for all the jobs claimed together), then fork the keeper. Finish:
 * write the result line (into the room submit reserved), rename run/ID to
 * done/ID, and, once per loop, fsync run/ and done/ (and the job
 * directories that got output files) before letting go of the flocks. */
#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "queue.h"
#include "sr.h"
#include "worker.h"

static struct slot *free_slot(struct worker *w)
{
	for (unsigned i = 0; i < w->nslots; i++)
		if (!w->slots[i].used)
			return &w->slots[i];
	return NULL;
}

static void release(struct worker *w, struct slot *s)
{
	if (s->fd >= 0)
		close(s->fd);
	free(s->stats);
	memset(s, 0, sizeof *s);
	s->fd = s->repfd = -1;
	w->running--;
}

/* Has this worker refused the job already? */
int refused(const struct worker *w, const char *id)
{
	for (size_t i = 0; i < w->nrefused; i++)
		if (strcmp(w->refused[i], id) == 0)
			return 1;
	return 0;
}

/* A job we will not run: a symbolic link, or not ours alone (someone else
 * could have written it). It is left where it is, untouched (it is not
 * ours to move or to write a result into), said once, and never claimed
 * by this worker again. */
void refuse(struct worker *w, const char *id, const char *why)
{
	if (refused(w, id))
		return;
	sr_warn("refusing job %s/queue/%s: %s; not run, left in queue/", w->sp.path, id,
		why);
	if (w->nrefused == w->caprefused) {
		size_t cap = w->caprefused ? w->caprefused * 2 : 8;
		char (*r)[ID_LEN + 1] = realloc(w->refused, cap * sizeof *r);
		if (!r)
			sr_fatal_sys(SR_EXIT_SYS, "unable to allocate");
		w->refused = r;
		w->caprefused = cap;
	}
	memcpy(w->refused[w->nrefused++], id, ID_LEN + 1);
}

enum claim_result claim(struct worker *w, const char *id, size_t tenant)
{
	struct spool *sp = &w->sp;
	char why[WHY_MAX];
	int fd = open_private_dir(sp->queue, id, why, sizeof why);
	if (fd == REFUSED) {
		refuse(w, id, why);
		return CLAIM_GONE;
	}
	if (fd < 0)
		return errno == ENOENT ? CLAIM_GONE : CLAIM_FAIL;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		close(fd);
		return CLAIM_BUSY;
	}
	int ok = job_file_check(fd, why, sizeof why);
	if (ok < 0) {
		int e = errno;
		close(fd);
		if (ok == REFUSED) {
			refuse(w, id, why);
			return CLAIM_GONE;
		}
		errno = e;
		return CLAIM_FAIL;
	}
	crash_point("claim:after-lock");
	if (renameat(sp->queue, id, sp->run, id) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return e == ENOENT ? CLAIM_GONE : CLAIM_FAIL;
	}
	crash_point("claim:after-rename");
	/* Cancelled (cancel asks first, so this also covers a cancel that
	 * died before it could move the job to done/). */
	if (exists_at(sp->cancel, id)) {
		if (job_finish_cancelled(sp, id, fd, sp->run) < 0)
			sr_warn_sys("unable to cancel job %s", id);
		close(fd);
		return CLAIM_GONE;
	}
	struct slot *s = free_slot(w);
	s->used = 1;
	memcpy(s->id, id, ID_LEN + 1);
	s->tenant = tenant;
	s->fd = fd;
	w->running++;
	return CLAIM_OK;
}

/* Start the keepers of the jobs claimed in this round. */
void spawn_claimed(struct worker *w)
{
	int any = 0;
	for (unsigned i = 0; i < w->nslots; i++)
		any |= w->slots[i].used && !w->slots[i].keeper;
	if (!any)
		return;
	if (fsync_dir(w->sp.run) < 0)
		sr_warn_sys("unable to fsync %s/run", w->sp.path);
	crash_point("claim:after-sync");
	for (unsigned i = 0; i < w->nslots; i++) {
		struct slot *s = &w->slots[i];
		if (!s->used || s->keeper)
			continue;
		s->keeper = keeper_start(s->fd, s->id, &s->repfd);
		if (s->keeper < 0) { /* nothing ran: put it back */
			sr_warn_sys("unable to start job %s; requeued", s->id);
			(void)renameat(w->sp.run, s->id, w->sp.queue, s->id);
			defer(w, s->id, w->fair.t[s->tenant].name, 1000000000ULL);
			release(w, s);
			continue;
		}
		struct epoll_event ev = { .events = EPOLLIN, .data.u64 = 2 + i };
		if (epoll_ctl(w->ep, EPOLL_CTL_ADD, s->repfd, &ev) < 0) {
			/* It may have started: stop it, it ends as lost. */
			sr_warn_sys("unable to follow job %s; stopping it", s->id);
			(void)kill(s->keeper, SIGTERM);
			close(s->repfd);
			s->repfd = -1;
			s->rep_eof = 1;
		}
		w->started++;
		crash_point("run:after-fork");
	}
}

void defer(struct worker *w, const char *id, const char *tenant, uint64_t delay_ns)
{
	if (w->ndef == w->capdef) {
		size_t cap = w->capdef ? w->capdef * 2 : 16;
		struct deferred *d = realloc(w->def, cap * sizeof *d);
		if (!d)
			sr_fatal_sys(SR_EXIT_SYS, "unable to allocate");
		w->def = d;
		w->capdef = cap;
	}
	struct deferred *d = &w->def[w->ndef++];
	memcpy(d->id, id, ID_LEN + 1);
	snprintf(d->tenant, sizeof d->tenant, "%s", tenant);
	d->at = sr_now_ns() + delay_ns;
}

static const char *const stage_names[] = {
	[FS_NONE] = "exit", [FS_JOB] = "job", [FS_STDIN] = "stdin", [FS_FILES] = "files",
	[FS_CWD] = "cwd", [FS_EXEC] = "exec", [FS_SETUP] = "setup",
};

static void add_ms(cJSON *r, const char *key, uint64_t ns)
{
	cJSON_AddNumberToObject(r, key, (double)(ns / 1000000ULL));
}

static void add_stream(cJSON *r, const char *name, uint64_t stored, uint64_t total, int err)
{
	char key[32];
	snprintf(key, sizeof key, "%s_bytes", name);
	cJSON_AddNumberToObject(r, key, (double)stored);
	snprintf(key, sizeof key, "%s_total", name);
	cJSON_AddNumberToObject(r, key, (double)total);
	if (err) {
		snprintf(key, sizeof key, "%s_error", name);
		cJSON_AddStringToObject(r, key, strerror(err));
	}
}

static cJSON *how_it_ended(const struct slot *s)
{
	const struct report *p = &s->rep;
	cJSON *r;
	if (p->stage != FS_NONE) {
		int st = p->stage >= 0 && p->stage <= FS_SETUP ? p->stage : FS_SETUP;
		r = result_new("failed", stage_names[st]);
		cJSON_AddStringToObject(r, "error", strerror(p->err));
		cJSON_AddNumberToObject(r, "exit_code",
					p->stage == FS_EXEC && p->err == ENOENT ? 127 : 126);
		return r;
	}
	if (s->cancel && p->killed == 1) {
		r = result_new("cancelled", "cancelled");
	} else if (p->killed == 2) {
		r = result_new("completed", "timeout");
	} else if (WIFSIGNALED(p->status)) {
		r = result_new("completed", "signal");
	} else {
		r = result_new("completed", "exit");
		cJSON_AddNumberToObject(r, "exit_code", WEXITSTATUS(p->status));
	}
	if (WIFSIGNALED(p->status))
		cJSON_AddNumberToObject(r, "signal", WTERMSIG(p->status));
	return r;
}

static cJSON *build_result(const struct slot *s, int with_limit)
{
	const struct report *p = &s->rep;
	cJSON *r = how_it_ended(s);
	cJSON_AddNumberToObject(r, "started_ms", (double)p->started_ms);
	cJSON_AddNumberToObject(r, "finished_ms", (double)p->finished_ms);
	add_ms(r, "wall_ms", p->wall_ns);
	add_ms(r, "user_ms", p->user_ns);
	add_ms(r, "sys_ms", p->sys_ns);
	add_stream(r, "stdout", p->out_stored, p->out_total, p->out_err);
	add_stream(r, "stderr", p->err_stored, p->err_total, p->err_err);
	cJSON_AddNumberToObject(r, "attempts", read_attempts(s->fd) + 1);
	cJSON *limit = with_limit && s->statslen ? cJSON_ParseWithLength(s->stats, s->statslen)
						 : NULL;
	if (cJSON_IsObject(limit))
		cJSON_AddItemToObject(r, "limit", limit);
	else
		cJSON_Delete(limit);
	return r;
}

static int record(struct slot *s)
{
	if (s->result_written)
		return 0;
	cJSON *r = build_result(s, 1);
	int rc = result_write(s->fd, r);
	cJSON_Delete(r);
	if (rc < 0 && errno == ENOSPC) { /* sr-limit's stats did not fit */
		r = build_result(s, 0);
		rc = result_write(s->fd, r);
		cJSON_Delete(r);
	}
	if (rc == 0)
		s->result_written = 1;
	return rc;
}

/* Could not record a result: keep the job (and its lock) and try again
 * later; a worker that must exit leaves it in run/ for `recover`. */
static void finish_later(struct worker *w, struct slot *s, const char *what)
{
	s->tries++;
	if (w->drain || w->once || w->stopping) {
		if (s->tries >= 3) {
			sr_warn_sys("unable to %s of job %s; it stays in run/ for "
				    "`sr-queue recover`", what, s->id);
			w->exit_code = SR_EXIT_SYS;
			release(w, s);
			return;
		}
	}
	sr_warn_sys("unable to %s of job %s; will retry", what, s->id);
	s->retry_at = sr_now_ns() + 1000000000ULL;
}

/* Our only children are keepers: anything else below us is what a keeper
 * that died left of its job (reparented to us, a subreaper). Kill it. */
void kill_strays(struct worker *w)
{
	pid_t keepers[w->nslots + 1];
	size_t n = 0;
	for (unsigned i = 0; i < w->nslots; i++)
		if (w->slots[i].used && w->slots[i].keeper > 0 && !w->slots[i].keeper_gone)
			keepers[n++] = w->slots[i].keeper;
	sr_kill_descendants(keepers, n);
}

/* The keeper died without reporting, or the worker is stopping. */
static void finish_orphan(struct worker *w, struct slot *s, const char *why)
{
	kill_strays(w);
	if (job_settle_orphan(&w->sp, s->id, s->fd, why) < 0) {
		finish_later(w, s, "settle the state");
		return;
	}
	release(w, s);
}

void finish(struct worker *w, struct slot *s)
{
	s->retry_at = 0;
	if (s->replen != sizeof s->rep ||
	    s->statslen != (s->rep.stats_len < STATS_MAX ? s->rep.stats_len : STATS_MAX))
		return finish_orphan(w, s, "job supervisor died");
	if (s->stop && !s->cancel && s->rep.killed == 1)
		return finish_orphan(w, s, "worker stopped while the job ran");
	crash_point("finish:before-result");
	if ((s->rep.out_total || s->rep.err_total) && fsync_dir(s->fd) < 0)
		sr_warn_sys("unable to fsync the directory of job %s", s->id);
	if (record(s) < 0)
		return finish_later(w, s, "record the result");
	crash_point("finish:after-result");
	if (renameat(w->sp.run, s->id, w->sp.done, s->id) < 0)
		return finish_later(w, s, "move to done/ the result");
	crash_point("finish:after-move");
	fair_charge(&w->fair, s->tenant, s->rep.user_ns + s->rep.sys_ns, sr_now_ns());
	if (s->cancel)
		(void)unlinkat(w->sp.cancel, s->id, 0);
	w->syncq[w->nsync++] = s->fd; /* its flock goes with it after fsync */
	s->fd = -1;
	release(w, s);
}

/* Make this round's results durable, then let go of their flocks. */
void flush_sync(struct worker *w)
{
	if (!w->nsync)
		return;
	if (fsync_dir(w->sp.done) < 0 || fsync_dir(w->sp.run) < 0)
		sr_warn_sys("unable to fsync %s", w->sp.path);
	for (size_t i = 0; i < w->nsync; i++)
		close(w->syncq[i]);
	w->nsync = 0;
}
