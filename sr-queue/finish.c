/* finish.c - a worker records how a job ended.
 *
 * Write the result line (into the room submit reserved), rename run/ID to
 * done/ID, and, once per loop, fsync run/ and done/ (and the job
 * directories that got output files) before letting go of the flocks. */
#include <cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sr.h"
#include "spool.h"
#include "worker.h"

/* The slot is free again; the job's directory (and flock) let go unless
 * its fd was taken for flush_sync. */
void sq_slot_release(struct sq_worker *w, struct sq_slot *s)
{
	if (s->fd >= 0)
		close(s->fd);
	free(s->stats);
	sq_fair_running(&w->fair, s->tenant, -1);
	memset(s, 0, sizeof *s);
	s->fd = s->repfd = -1;
	w->running--;
}

static const char *const stage_names[] = {
	[SQ_FS_NONE] = "exit", [SQ_FS_JOB] = "job", [SQ_FS_STDIN] = "stdin",
	[SQ_FS_FILES] = "files", [SQ_FS_CWD] = "cwd", [SQ_FS_EXEC] = "exec",
	[SQ_FS_SETUP] = "setup", [SQ_FS_VIA] = "via",
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

/* A program that could not be run is named, in every tool's words:
 * "unable to run PROG: REASON" (PROG from the job file). */
static void add_exec_error(cJSON *r, const struct sq_slot *s)
{
	cJSON *job = NULL;
	const char *prog = "the job's program";
	char msg[600];
	if (s->fd >= 0 && sq_job_read_at(s->fd, SQ_JOB_FILE, &job, NULL) == 0) {
		const cJSON *a0 = cJSON_GetArrayItem(
			cJSON_GetObjectItemCaseSensitive(job, "argv"), 0);
		if (cJSON_IsString(a0))
			prog = a0->valuestring;
	}
	(void)sr_run_failure(msg, sizeof msg, prog, s->rep.err);
	cJSON_AddStringToObject(r, "error", msg);
	cJSON_Delete(job);
}

static cJSON *how_it_ended(const struct sq_slot *s)
{
	const struct sq_report *p = &s->rep;
	cJSON *r;
	if (p->stage != SQ_FS_NONE) {
		int st = p->stage >= 0 && p->stage <= SQ_FS_VIA ? p->stage : SQ_FS_SETUP;
		r = sq_result_new("failed", stage_names[st]);
		if (st == SQ_FS_EXEC)
			add_exec_error(r, s);
		else
			cJSON_AddStringToObject(r, "error", st == SQ_FS_VIA ? p->why : strerror(p->err));
		cJSON_AddNumberToObject(r, "exit_code", p->stage == SQ_FS_EXEC ?
					sr_exec_exit(p->err) : SR_EXIT_NOEXEC);
		return r;
	}
	int cancelled = (s->cancel || p->node_cancel) && p->killed == SQ_KILLED_ASKED;
	if (cancelled)
		r = sq_result_new("cancelled", "cancelled");
	else if (p->killed == SQ_KILLED_TIMEOUT)
		r = sq_result_new("completed", "timeout");
	else if (WIFSIGNALED(p->status))
		r = sq_result_new("completed", "signal");
	else
		r = sq_result_new("completed", "exit");
	/* A job that ended by itself within --kill-after's grace has its code. */
	if (WIFEXITED(p->status) && !cancelled)
		cJSON_AddNumberToObject(r, "exit_code", WEXITSTATUS(p->status));
	if (WIFSIGNALED(p->status))
		cJSON_AddNumberToObject(r, "signal", WTERMSIG(p->status));
	return r;
}

/* sr-limit's report (the job's fd 3), whole (how 0), only its fields
 * that are not objects or arrays (1), or none (2): how much of it the
 * disk had room for (err, the failure that asked for less). What was not
 * kept, and why, goes into limit_error. */
static void add_limit(cJSON *r, const struct sq_slot *s, int how, int err)
{
	char why[200] = "";
	uint64_t total = s->rep.stats_total > s->statslen ? s->rep.stats_total : s->statslen;
	if (!total)
		return; /* the job wrote no report */
	cJSON *limit = s->statslen ? cJSON_ParseWithLength(s->stats, s->statslen) : NULL;
	if (total > s->statslen)
		snprintf(why, sizeof why, "not stored (%llu bytes, over the %d kept)",
			 (unsigned long long)total, SQ_STATS_MAX);
	else if (!cJSON_IsObject(limit))
		snprintf(why, sizeof why, "not stored (%llu bytes that are not a JSON object)",
			 (unsigned long long)total);
	else if (how == 1)
		snprintf(why, sizeof why, "stored in part, its objects and arrays left out "
			 "(%s)", strerror(err));
	else if (how == 2)
		snprintf(why, sizeof why, "not stored (%s)", strerror(err));
	for (cJSON *e = cJSON_IsObject(limit) && how == 1 ? limit->child : NULL, *next; e;
	     e = next) {
		next = e->next;
		if (cJSON_IsObject(e) || cJSON_IsArray(e))
			cJSON_Delete(cJSON_DetachItemViaPointer(limit, e));
	}
	if (cJSON_IsObject(limit) && total == s->statslen && how < 2)
		cJSON_AddItemToObject(r, "limit", limit);
	else
		cJSON_Delete(limit);
	if (why[0])
		cJSON_AddStringToObject(r, "limit_error", why);
}

/* How long the job waited in the queue, and why when it was for others:
 * queued_reason "slots" (every slot was busy) or "budget" (its tenant was
 * over its CPU budget while another tenant's jobs waited). */
static void add_queued(cJSON *r, const struct sq_slot *s)
{
	uint64_t sub = sq_id_time(s->id) / 1000000ULL;
	if (s->rep.started_ms >= sub)
		cJSON_AddNumberToObject(r, "queued_ms", (double)(s->rep.started_ms - sub));
	if (s->why != SQ_WAIT_NONE)
		cJSON_AddStringToObject(r, "queued_reason",
					s->why == SQ_WAIT_BUDGET ? "budget" : "slots");
}

static cJSON *build_result(const struct sq_slot *s, int how, int err)
{
	const struct sq_report *p = &s->rep;
	cJSON *r = how_it_ended(s);
	if (!r)
		sr_fatal(SR_EXIT_SYS, "unable to allocate");
	cJSON_AddNumberToObject(r, "started_ms", (double)p->started_ms);
	add_queued(r, s);
	cJSON_AddNumberToObject(r, "finished_ms", (double)p->finished_ms);
	add_ms(r, "wall_ms", p->wall_ns);
	add_ms(r, "user_ms", p->user_ns);
	add_ms(r, "sys_ms", p->sys_ns);
	add_stream(r, "stdout", p->out_stored, p->out_total, p->out_err);
	add_stream(r, "stderr", p->err_stored, p->err_total, p->err_err);
	cJSON_AddNumberToObject(r, "attempts", sq_read_attempts(s->fd) + 1);
	add_limit(r, s, how, err);
	return r;
}

/* The result, with as much of sr-limit's report as the disk has room
 * for: the room kept at submit holds the rest. */
static int record(struct sq_slot *s)
{
	if (s->result_written)
		return 0;
	int rc = -1, err = 0;
	for (int how = 0; how < 3 && rc < 0; how++) {
		cJSON *r = build_result(s, how, err);
		rc = sq_result_write(s->fd, r);
		err = errno;
		cJSON_Delete(r);
		if (rc < 0 && err != ENOSPC && err != EDQUOT)
			break;
	}
	errno = err;
	if (rc == 0)
		s->result_written = 1;
	return rc;
}

/* Could not record a result: keep the job (and its lock) and try again
 * later; a worker that must exit leaves it in run/ for `recover`. */
static void finish_later(struct sq_worker *w, struct sq_slot *s, const char *what)
{
	s->tries++;
	if (w->drain || w->once || w->stopping) {
		if (s->tries >= 3) {
			sr_warn_sys("unable to %s of job %s; it stays in run/ for "
				    "`sr-queue recover`", what, s->id);
			w->exit_code = SR_EXIT_SYS;
			sq_slot_release(w, s);
			return;
		}
	}
	sr_warn_sys("unable to %s of job %s; will retry", what, s->id);
	s->retry_at = sr_now_ns() + 1000000000ULL;
}

/* Our only children are keepers: anything else below us is what a keeper
 * that died left of its job (reparented to us, a subreaper). Kill it. */
void sq_kill_strays(struct sq_worker *w)
{
	pid_t keepers[w->nslots + 1];
	size_t n = 0;
	for (unsigned i = 0; i < w->nslots; i++)
		if (w->slots[i].used && w->slots[i].keeper > 0 && !w->slots[i].keeper_gone)
			keepers[n++] = w->slots[i].keeper;
	sr_kill_descendants(keepers, n);
}

/* CPU spent for the job outside its own processes, which its stats
 * (the report on SR_STATS_FD) name as charge_cpu_ms: a session call's
 * share of its interpreter's time (sr-mcp). Only ever added. ns. */
static uint64_t stats_charge(const struct sq_slot *s)
{
	cJSON *st = s->statslen ? cJSON_ParseWithLength(s->stats, s->statslen) : NULL;
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(st, "charge_cpu_ms");
	double ms = cJSON_IsNumber(v) ? v->valuedouble : 0;
	cJSON_Delete(st);
	return ms > 0 && ms < 1e12 ? (uint64_t)ms * 1000000ULL : 0;
}

/* The keeper died without reporting, or the worker is stopping. */
static void finish_orphan(struct sq_worker *w, struct sq_slot *s, const char *why)
{
	sq_kill_strays(w);
	if (sq_job_settle_orphan(&w->sp, s->id, s->fd, why) < 0) {
		finish_later(w, s, "settle the state");
		return;
	}
	sq_slot_release(w, s);
}

void sq_finish(struct sq_worker *w, struct sq_slot *s)
{
	s->retry_at = 0;
	if (s->replen != sizeof s->rep ||
	    s->statslen != (s->rep.stats_len < SQ_STATS_MAX ? s->rep.stats_len : SQ_STATS_MAX))
		return finish_orphan(w, s, "job supervisor died");
	if (s->stop && !s->cancel && s->rep.killed == SQ_KILLED_ASKED)
		return finish_orphan(w, s, "worker stopped while the job ran");
	if (s->rep.node_lost) {
		s->rep.why[sizeof s->rep.why - 1] = '\0';
		return finish_orphan(w, s, s->rep.why);
	}
	sq_crash_point("finish:before-result");
	if ((s->rep.out_total || s->rep.err_total) && sq_fsync_dir(s->fd) < 0)
		sr_warn_sys("unable to fsync the directory of job %s", s->id);
	if (record(s) < 0)
		return finish_later(w, s, "record the result");
	sq_crash_point("finish:after-result");
	if (renameat(w->sp.run, s->id, w->sp.done, s->id) < 0)
		return finish_later(w, s, "move to done/ the result");
	sq_crash_point("finish:after-move");
	sq_fair_charge(&w->fair, s->tenant, s->rep.user_ns + s->rep.sys_ns + stats_charge(s),
		       sr_now_ns());
	if (s->cancel)
		(void)unlinkat(w->sp.cancel, s->id, 0);
	w->syncq[w->nsync++] = s->fd; /* its flock goes with it after fsync */
	s->fd = -1;
	sq_slot_release(w, s);
}

/* Make this round's results durable, then let go of their flocks. */
void sq_flush_sync(struct sq_worker *w)
{
	if (!w->nsync)
		return;
	if (sq_fsync_dir(w->sp.done) < 0 || sq_fsync_dir(w->sp.run) < 0)
		sr_warn_sys("unable to fsync %s", w->sp.path);
	for (size_t i = 0; i < w->nsync; i++)
		close(w->syncq[i]);
	w->nsync = 0;
}
