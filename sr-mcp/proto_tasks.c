/* tasks.c - MCP tasks, both flavours, on top of sr-queue: a task is a job,
 * its id the job's id, so a task outlives sr-mcp and is found again after
 * a restart.
 *
 * 2025-11-25 (experimental, in the core protocol): the client asks for a
 * task with params.task on tools/call and gets the task at once;
 * tasks/get gives its state, tasks/result waits for the run's result,
 * tasks/list lists them, tasks/cancel cancels. A result with isError is a
 * "failed" task.
 *
 * 2026-07-28 (the io.modelcontextprotocol/tasks extension): the server
 * decides; a run still going after wait_s is answered with resultType
 * "task"; tasks/get carries the result inline once done ("completed",
 * isError or not); tasks/cancel and tasks/update are acknowledged. A
 * request that does not declare the extension gets -32021 for every
 * tasks/ method.
 *
 * A job that became a task (either way) is marked STATE/tasks/ID: tasks/list
 * lists those jobs, not the runs that answered in time. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "job.h"
#include "mcp.h"
#include "proto.h"
#include "sr.h"

#define POLL_MS 1000

static void iso8601(char *buf, size_t len, double ms)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	gmtime_r(&t, &tm);
	size_t n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%03dZ", (int)((long long)ms % 1000));
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static int running(const cJSON *st)
{
	const char *s = cJSON_GetObjectItem(st, "state")->valuestring;
	return !strcmp(s, "queued") || !strcmp(s, "running");
}

/* The task's fields, in the terms of r's generation; for a finished job
 * the run's result is built too (*result, for the caller to use or free). */
static cJSON *task_fields(const struct proto_req *r, const char *id, const cJSON *st,
			  cJSON **result)
{
	cJSON *t = cJSON_CreateObject(), *res = NULL;
	const char *state = cJSON_GetObjectItem(st, "state")->valuestring, *status = "working";
	char msg[200];
	if (running(st)) {
		snprintf(msg, sizeof msg, "the job is %s; tasks/get again in a second", state);
	} else if (!strcmp(state, "cancelled")) {
		status = "cancelled";
		snprintf(msg, sizeof msg, "the job was cancelled");
	} else {
		res = proto_server()->on_task_result(id, NULL, st, 0, 0);
		const cJSON *sc = cJSON_GetObjectItem(res, "structuredContent");
		status = r->era == PROTO_LEGACY && cJSON_IsTrue(cJSON_GetObjectItem(res, "isError")) ?
			 "failed" : "completed";
		snprintf(msg, sizeof msg, "the run ended: %s (%s)",
			 cJSON_GetObjectItem(sc, "status")->valuestring,
			 cJSON_GetObjectItem(sc, "reason")->valuestring);
	}
	char created[40], updated[40];
	double sub = num(st, "submitted_ms");
	double last = num(st, "finished_ms") ? num(st, "finished_ms") :
		      num(st, "started_ms") ? num(st, "started_ms") : sub;
	iso8601(created, sizeof created, sub);
	iso8601(updated, sizeof updated, last);
	cJSON_AddStringToObject(t, "taskId", id);
	cJSON_AddStringToObject(t, "status", status);
	cJSON_AddStringToObject(t, "statusMessage", msg);
	cJSON_AddStringToObject(t, "createdAt", created);
	cJSON_AddStringToObject(t, "lastUpdatedAt", updated);
	int modern = r->era == PROTO_MODERN;
	cJSON_AddNullToObject(t, modern ? "ttlMs" : "ttl");   /* kept until gc */
	cJSON_AddNumberToObject(t, modern ? "pollIntervalMs" : "pollInterval", POLL_MS);
	if (result)
		*result = res;
	else
		cJSON_Delete(res);
	return t;
}

/* STATE/tasks, open (made first when make), or -1. */
static int tasks_dir(int make)
{
	char p[4200];
	snprintf(p, sizeof p, "%s/tasks", cfg.state_dir);
	if (make && mkdir(p, 0700) < 0 && errno != EEXIST)
		return -1;
	return open(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

static void task_mark(const char *id)
{
	int d = tasks_dir(1), fd = d < 0 ? -1 :
		openat(d, id, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		mcp_log("unable to mark job %s as a task in %s/tasks (tasks/list will not show "
			"it): %s", id, cfg.state_dir, strerror(errno));
	else
		close(fd);
	if (d >= 0)
		close(d);
}

static int task_marked(int d, const char *id)
{
	struct stat sb;
	return d >= 0 && fstatat(d, id, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(sb.st_mode);
}

static int listed(const cJSON *all, const char *id)
{
	const cJSON *j;
	cJSON_ArrayForEach(j, all) {
		const cJSON *v = cJSON_GetObjectItem(j, "id");
		if (cJSON_IsString(v) && !strcmp(v->valuestring, id))
			return 1;
	}
	return 0;
}

/* The marks of jobs gone (the retention removed them), but not one made
 * while the jobs were being listed (before: when that began). */
static void task_marks_prune(int d, const cJSON *all, time_t before)
{
	int fd = dup(d);
	DIR *dir = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *e;
	struct stat sb;
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(dir)))
		if (job_id_ok(e->d_name) && !listed(all, e->d_name) &&
		    fstatat(d, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
		    sb.st_mtime < before - 60)
			unlinkat(d, e->d_name, 0);
	closedir(dir);
}

cJSON *proto_task_created(const struct proto_req *r, const char *id, const cJSON *st)
{
	task_mark(id);
	if (!st) {      /* the job was just submitted: it is queued */
		cJSON *q = cJSON_CreateObject();
		cJSON_AddStringToObject(q, "state", "queued");
		cJSON *t = proto_task_created(r, id, q);
		cJSON_Delete(q);
		return t;
	}
	cJSON *t = task_fields(r, id, st, NULL);
	if (r->era == PROTO_MODERN) {
		cJSON_AddStringToObject(t, "resultType", "task");
		return t;
	}
	cJSON *res = cJSON_CreateObject();
	cJSON_AddItemToObject(res, "task", t);
	return res;
}

static const char *task_id(struct proto_req *r)
{
	const cJSON *id = cJSON_GetObjectItem(r->params, "taskId");
	if (cJSON_IsString(id) && job_id_ok(id->valuestring))
		return id->valuestring;
	proto_error(r, -32602, "Invalid params: taskId must be a task id that tools/call gave",
		   NULL);
	return NULL;
}

/* The job behind a task, or NULL (answered: no such task). */
static cJSON *task_job(struct proto_req *r, const char *id, uint64_t wait_ms)
{
	char err[300], msg[400];
	int d = tasks_dir(0), marked = task_marked(d, id);
	if (d >= 0)
		close(d);
	if (!marked) {    /* a job that was never made a task, or none */
		snprintf(msg, sizeof msg, "Unknown task %s: no run was made a task with this id "
			 "(a run answered in time is a job: job_status gives its state and result)",
			 id);
		proto_error(r, -32602, msg, NULL);
		return NULL;
	}
	cJSON *st = proto_job_wait(r, id, wait_ms, err, sizeof err);
	if (!st && !r->cancelled) {
		snprintf(msg, sizeof msg, "Unknown task %s: %s", id, err);
		proto_error(r, -32602, msg, NULL);
	}
	return st;
}

static void task_get(struct proto_req *r, const char *id)
{
	cJSON *st = task_job(r, id, 0), *res = NULL;
	if (!st)
		return;
	cJSON *t = task_fields(r, id, st, r->era == PROTO_MODERN ? &res : NULL);
	if (res)       /* 2026-07-28: the result inline */
		cJSON_AddItemToObject(t, "result", res);
	cJSON_Delete(st);
	proto_result(r, t);
}

/* 2025-11-25 tasks/result: wait for the end, then what tools/call would
 * have answered. */
static void task_result(struct proto_req *r, const char *id)
{
	cJSON *st = task_job(r, id, cfg.timeout_max_ms + 120000);
	if (!st)
		return;
	if (running(st)) {
		proto_error(r, -32603, "the task has not ended in the longest time a run may take; "
			   "tasks/get shows its state", NULL);
		cJSON_Delete(st);
		return;
	}
	cJSON *res = proto_server()->on_task_result(id, NULL, st, 0, 0);
	cJSON_Delete(st);
	cJSON *meta = cJSON_AddObjectToObject(res, "_meta");
	cJSON_AddStringToObject(cJSON_AddObjectToObject(meta, "io.modelcontextprotocol/related-task"),
				"taskId", id);
	proto_result(r, res);
}

static void task_cancel(struct proto_req *r, const char *id)
{
	char err[300];
	cJSON *st = task_job(r, id, 0);
	if (!st)
		return;
	int live = running(st);
	cJSON_Delete(st);
	if (r->era == PROTO_LEGACY && !live) {
		proto_error(r, -32602, "Invalid params: the task has ended already; it cannot be "
			   "cancelled", NULL);
		return;
	}
	if (live && job_cancel(id, err, sizeof err) < 0) {
		proto_error(r, -32603, err, NULL);
		return;
	}
	if (r->era == PROTO_MODERN) {     /* an acknowledgement */
		proto_result(r, cJSON_CreateObject());
		return;
	}
	st = task_job(r, id, 0);
	if (st)
		proto_result(r, task_fields(r, id, st, NULL));
	cJSON_Delete(st);
}

static void task_list(struct proto_req *r)
{
	char err[300];
	time_t t0 = time(NULL);
	cJSON *all = job_list(err, sizeof err);
	if (!all) {
		proto_error(r, -32603, err, NULL);
		return;
	}
	int d = tasks_dir(0);    /* none yet: no task */
	cJSON *res = cJSON_CreateObject(), *tasks = cJSON_AddArrayToObject(res, "tasks");
	int n = cJSON_GetArraySize(all);
	for (int i = n - 1, k = 0; i >= 0 && k < 100; i--) {
		const cJSON *j = cJSON_GetArrayItem(all, i), *id = cJSON_GetObjectItem(j, "id");
		if (!cJSON_IsString(id) || !cJSON_IsString(cJSON_GetObjectItem(j, "state")) ||
		    !job_id_ok(id->valuestring) || !task_marked(d, id->valuestring))
			continue;
		cJSON_AddItemToArray(tasks, task_fields(r, id->valuestring, j, NULL));
		k++;
	}
	if (d >= 0) {
		task_marks_prune(d, all, t0);
		close(d);
	}
	cJSON_Delete(all);
	proto_result(r, res);
}

/* 2026-07-28, a request without the extension in its capabilities. */
static void missing_extension(struct proto_req *r)
{
	char msg[300];
	snprintf(msg, sizeof msg, "Missing required client capability: %.40s needs the "
		 "io.modelcontextprotocol/tasks extension, declared in the request's _meta "
		 "(io.modelcontextprotocol/clientCapabilities.extensions)", r->method);
	cJSON *data = cJSON_CreateObject();
	cJSON_AddObjectToObject(cJSON_AddObjectToObject(cJSON_AddObjectToObject(data,
		"requiredCapabilities"), "extensions"), "io.modelcontextprotocol/tasks");
	proto_error(r, -32021, msg, data);
}

void proto_tasks_call(struct proto_req *r)
{
	const char *m = r->method, *id;
	char msg[200];
	int modern = r->era == PROTO_MODERN;
	if (modern && !r->task_modern) {
		missing_extension(r);
		return;
	}
	if (!strcmp(m, "tasks/list") && !modern) {
		task_list(r);
		return;
	}
	if (!strcmp(m, "tasks/update") && modern) {
		if (task_id(r))
			proto_result(r, cJSON_CreateObject());   /* no task of ours asks for input */
		return;
	}
	if (strcmp(m, "tasks/get") && strcmp(m, "tasks/cancel") &&
	    (strcmp(m, "tasks/result") || modern)) {
		snprintf(msg, sizeof msg, "Method not found: %.100s (not in protocol version %s)",
			 m, r->version);
		proto_error(r, -32601, msg, NULL);
		return;
	}
	char err[600];
	if (job_state_ready(err, sizeof err) < 0) {
		proto_error(r, -32603, err, NULL);
		return;
	}
	if (!(id = task_id(r)))
		return;
	if (!strcmp(m, "tasks/get"))
		task_get(r, id);
	else if (!strcmp(m, "tasks/result"))
		task_result(r, id);
	else
		task_cancel(r, id);
}
