/* spool_query.c - what is asked of jobs, for sr-queue's commands and for
 * sr-mcp alike: a job's status as JSON, what of it was lost, why a job
 * was not found, cancel, and the list of every job. Nothing here prints
 * or exits: the commands print what these return (cli.c), sr-mcp turns
 * it into its answers. */
#include <cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>

#include "spool.h"
#include "sr.h"

static int copy_item(cJSON *to, const cJSON *from, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(from, key);
	return !v || cJSON_AddItemToObject(to, key, cJSON_Duplicate(v, 1));
}

/* The job's own facts (tenant, argv, cwd ...) from its record into o. */
static int add_job_facts(cJSON *o, int fd)
{
	static const char *const jobkeys[] = {
		"tenant", "argv", "cwd", "submitted_ms", "max_output", "retry", "timeout_ms",
		"kill_after_ms",
	};
	cJSON *job = NULL;
	int ok = 1;
	(void)sq_job_read_at(fd, SQ_JOB_FILE, &job, NULL);
	for (size_t i = 0; job && ok && i < sizeof jobkeys / sizeof *jobkeys; i++)
		ok = copy_item(o, job, jobkeys[i]);
	cJSON_Delete(job);
	return ok;
}

/* {"id", "state", job facts when jobinfo, then every result field, and
 * "lost" when some of it was not kept}; NULL (ENOMEM) when memory ran out. */
cJSON *sq_status_json(const char *id, const struct sq_jstat *js, int jobinfo)
{
	cJSON *o = cJSON_CreateObject();
	int ok = o && cJSON_AddStringToObject(o, "id", id) &&
		 cJSON_AddStringToObject(o, "state", js->state);
	if (ok && jobinfo && js->fd >= 0)
		ok = add_job_facts(o, js->fd);
	const cJSON *e;
	cJSON_ArrayForEach(e, js->result)
		if (ok && strcmp(e->string, "state") != 0)
			ok = cJSON_AddItemToObject(o, e->string, cJSON_Duplicate(e, 1));
	struct sq_loss lv[SQ_LOSS_MAX];
	size_t n = ok ? sq_job_losses(js, lv) : 0;
	cJSON *lost = n ? sq_losses_json(lv, n) : NULL;
	if (n && !(lost && cJSON_AddItemToObject(o, "lost", lost)))
		ok = 0;
	if (ok)
		return o;
	cJSON_Delete(o);
	errno = ENOMEM;
	return NULL;
}

/* What was not kept of a finished job, its files looked at now. */
size_t sq_job_losses(const struct sq_jstat *js, struct sq_loss v[SQ_LOSS_MAX])
{
	long long size[2];
	if (!js->result)
		return 0;
	sq_stream_sizes(js->fd, size);
	return sq_result_losses(js->result, size, v);
}

/* After sq_job_resolve (or a wait, or a cancel) failed, errno its: 1 when
 * there is no such job, 0 when it was refused or a system call failed;
 * msg says which. A job not found that is not newer than the last one gc
 * removed was most likely removed by gc (or the id is wrong): msg says so. */
int sq_job_missing(const struct sq_spool *sp, const char *id, char *msg, size_t len)
{
	int e = errno;
	if (e == ENOENT && sq_removed_before(sp->root, id))
		snprintf(msg, len, "no job %s in %s: removed by gc, most likely (it is not "
			 "newer than the last job gc removed; or the id is wrong)", id, sp->path);
	else if (e == ENOENT)
		snprintf(msg, len, "no job %s in %s", id, sp->path);
	else if (e == EPERM && sq_job_refusal[0])
		snprintf(msg, len, "refusing job %s", sq_job_refusal);
	else
		snprintf(msg, len, "unable to find job %s: %s", id, strerror(e));
	errno = e;
	return e == ENOENT;
}

/* A queued job: ask first (so that a worker claiming it, or a cancel that
 * dies half-way, still ends in cancelled), take its flock (a worker holding
 * it is claiming it: 1, look again), write the result, move it to done/.
 * 0, 1, or -1 with msg. */
static int cancel_queued(struct sq_spool *sp, const char *id, struct sq_jstat *js,
			 char *msg, size_t len)
{
	if (flock(js->fd, LOCK_EX | LOCK_NB) < 0 || !sq_same_file(js->fd, sp->queue, id)) {
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
		return 1;
	}
	if (sq_job_finish_cancelled(sp, id, js->fd, sp->queue) == 0)
		return 0;
	int e = errno;
	snprintf(msg, len, "unable to cancel job %s: %s", id, strerror(e));
	errno = e;
	return -1;
}

/* One try (see sq_job_cancel); 3: try again (a worker was claiming the
 * queued job, and the deadline has not come). */
static int cancel_once(struct sq_spool *sp, const char *id, uint64_t timeout_ns,
		       uint64_t deadline, struct sq_jstat *js, char *msg, size_t len)
{
	if (sq_job_resolve(sp, id, js) < 0)
		return sq_job_missing(sp, id, msg, len), -1;
	int queued = !strcmp(js->state, "queued"), running = !strcmp(js->state, "running");
	if ((queued || running) && sq_cancel_ask(sp, id) < 0) {
		int e = errno;
		snprintf(msg, len, "unable to ask for the cancel of job %s: %s", id, strerror(e));
		sq_jstat_free(js);
		return errno = e, -1;
	}
	if (queued) {
		int r = cancel_queued(sp, id, js, msg, len);
		if (r == 1 && sr_now_ns() >= deadline)
			return SQ_CANCEL_PENDING;       /* js: still queued */
		sq_jstat_free(js);
		if (r != 0)
			return r < 0 ? -1 : 3;
		if (sq_job_resolve(sp, id, js) < 0)
			return sq_job_missing(sp, id, msg, len), -1;
	} else if (running) {
		sq_jstat_free(js);
		int r = sq_job_wait(sp, id, timeout_ns, js);
		if (r < 0)
			return sq_job_missing(sp, id, msg, len), -1;
		if (r == 1)
			return SQ_CANCEL_PENDING;       /* js: still running */
	}
	return strcmp(js->state, "cancelled") == 0 ? SQ_CANCEL_DONE : SQ_CANCEL_ENDED;
}

/* Cancel a job (see spool.h). */
int sq_job_cancel(struct sq_spool *sp, const char *id, uint64_t timeout_ns,
		  struct sq_jstat *js, char *msg, size_t len)
{
	uint64_t deadline = sr_now_ns() + timeout_ns;
	int r;
	while ((r = cancel_once(sp, id, timeout_ns, deadline, js, msg, len)) == 3)
		;
	return r;
}

/* Is want a state sq_job_list knows ("all" and "finished" too)? */
int sq_list_state_known(const char *want)
{
	static const char *const states[] = { "all", "queued", "running", "finished",
		"completed", "failed", "cancelled", "lost" };
	for (size_t i = 0; want && i < sizeof states / sizeof *states; i++)
		if (strcmp(want, states[i]) == 0)
			return 1;
	return !want;
}

static int state_matches(const char *want, const char *state)
{
	if (!want || strcmp(want, "all") == 0)
		return 1;
	if (strcmp(want, "finished") == 0)
		return strcmp(state, "queued") != 0 && strcmp(state, "running") != 0;
	return strcmp(want, state) == 0;
}

struct list_ctx {
	struct sq_spool *sp;
	const char *want;
	sq_list_fn fn;
	void *ctx;
};

static void list_one(int dfd, const char *id, void *ctx)
{
	struct list_ctx *lc = ctx;
	struct sq_jstat js;
	(void)dfd;
	if (!sq_id_valid(id))
		return;
	if (sq_job_resolve(lc->sp, id, &js) < 0) {
		if (errno == EPERM && sq_job_refusal[0])
			lc->fn(id, NULL, lc->ctx);
		return;
	}
	if (state_matches(lc->want, js.state))
		lc->fn(id, &js, lc->ctx);
	sq_jstat_free(&js);
}

/* Every job whose state is want (see spool.h), queue/ then run/ then done/. */
void sq_job_list(struct sq_spool *sp, const char *want, sq_list_fn fn, void *ctx)
{
	struct list_ctx lc = { sp, want, fn, ctx };
	const char *s = want ? want : "all";
	int all = strcmp(s, "all") == 0;
	if (all || strcmp(s, "queued") == 0)
		sq_each_entry(sp->queue, list_one, &lc);
	if (all || strcmp(s, "queued") != 0)
		sq_each_entry(sp->run, list_one, &lc);
	if (all || (strcmp(s, "queued") != 0 && strcmp(s, "running") != 0))
		sq_each_entry(sp->done, list_one, &lc);
}
