/* query.c - status, list and logs: read-only views of the spool (a
 * query settles a job whose worker is found dead, as recover would). */
#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "queue.h"
#include "sr.h"

void query_opt(void *ctx, int c, const char *arg)
{
	struct qopts *o = ctx;
	switch (c) {
	case Q_JSON: o->json = 1; break;
	case Q_TIMEOUT:
		o->timeout_ns = sr_opt_duration_ns("--timeout", arg);
		o->has_timeout = 1;
		break;
	case Q_STREAM:
		if (strcmp(arg, "stdout") != 0 && strcmp(arg, "stderr") != 0)
			sr_usage("--stream: want stdout or stderr, got '%s'", arg);
		o->stream = arg;
		break;
	case Q_OFFSET: o->offset = sr_opt_count("--offset", arg, UINT64_MAX / 2); break;
	case Q_MAXB:
		o->max_bytes = sr_opt_size("--max-bytes", arg);
		o->has_max = 1;
		break;
	case Q_STATE: o->state = arg; break;
	case Q_OLDER:
		o->older_ns = sr_opt_duration_ns("--older-than", arg);
		o->has_older = 1;
		break;
	case Q_KEEP: o->keep = sr_opt_count("--keep", arg, UINT64_MAX / 2); break;
	case 'h': print_usage(); exit(0);
	}
}

void query_args(int argc, char **argv, const struct option *lo, struct qopts *o,
		int want_id, char **ops, struct spool *sp)
{
	int want = want_id ? 2 : 1;
	if (parse_args(argc, argv, "h", lo, query_opt, o, ops, want, 0, NULL) != want)
		sr_usage("%s: want SPOOL%s", argv[0], want_id ? " ID" : "");
	if (want_id)
		need_id(ops[1]);
	spool_open(sp, ops[0], 0);
}

int print_json(const cJSON *obj)
{
	char *s = cJSON_PrintUnformatted(obj);
	if (!s)
		sr_fatal(SR_EXIT_SYS, "unable to allocate");
	int r = puts(s) < 0 || fflush(stdout) != 0 ? SR_EXIT_SYS : 0;
	free(s);
	return r;
}

static void copy_item(cJSON *to, const cJSON *from, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(from, key);
	if (v)
		cJSON_AddItemToObject(to, key, cJSON_Duplicate(v, 1));
}

/* {"id", "state", job facts when jobinfo, then every result field}. */
cJSON *status_json(const char *id, const struct jstat *js, int jobinfo)
{
	static const char *const jobkeys[] = {
		"tenant", "argv", "cwd", "submitted_ms", "max_output", "retry", "timeout_ms",
	};
	cJSON *o = cJSON_CreateObject();
	if (!o)
		sr_fatal(SR_EXIT_SYS, "unable to allocate");
	cJSON_AddStringToObject(o, "id", id);
	cJSON_AddStringToObject(o, "state", js->state);
	if (jobinfo && js->fd >= 0) {
		cJSON *job;
		(void)job_read_at(js->fd, JOB_FILE, &job, NULL);
		for (size_t i = 0; job && i < sizeof jobkeys / sizeof *jobkeys; i++)
			copy_item(o, job, jobkeys[i]);
		cJSON_Delete(job);
	}
	const cJSON *e;
	cJSON_ArrayForEach(e, js->result)
		if (strcmp(e->string, "state") != 0)
			cJSON_AddItemToObject(o, e->string, cJSON_Duplicate(e, 1));
	return o;
}

/* "ID STATE [exit N|signal N|timeout|REASON: ERROR]" */
void print_status_line(const char *id, const struct jstat *js)
{
	const cJSON *r = js->result;
	const char *reason = json_str(r, "reason"), *error = json_str(r, "error");
	char detail[256] = "";
	if (r && strcmp(js->state, "completed") == 0) {
		if (reason && strcmp(reason, "exit") == 0)
			snprintf(detail, sizeof detail, " exit %lld", json_num(r, "exit_code", -1));
		else if (reason && strcmp(reason, "signal") == 0)
			snprintf(detail, sizeof detail, " signal %lld", json_num(r, "signal", 0));
		else if (reason)
			snprintf(detail, sizeof detail, " %s", reason);
	} else if (r && strcmp(js->state, "failed") == 0) {
		snprintf(detail, sizeof detail, " %s: %s", reason ? reason : "?",
			 error ? error : "?");
	}
	printf("%s %s%s\n", id, js->state, detail);
}

static const struct option status_lo[] = {
	{ "json", no_argument, NULL, Q_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Resolve or exit: 1 when there is no such job, 111 on a system error. */
void resolve_or_exit(struct spool *sp, const char *id, struct jstat *js)
{
	if (job_resolve(sp, id, js) < 0)
		no_such_job(sp, id);
}

/* After job_resolve failed: exit 1 when there is no such job, else 111
 * (also when the job is refused: not ours alone, or a symbolic link). */
void no_such_job(const struct spool *sp, const char *id)
{
	if (errno == ENOENT)
		sr_fatal(SR_EXIT_SOFT, "no job %s in %s", id, sp->path);
	if (errno == EPERM && job_refusal[0])
		sr_fatal(SR_EXIT_SYS, "refusing job %s", job_refusal);
	sr_fatal_sys(SR_EXIT_SYS, "unable to find job %s", id);
}

int cmd_status(int argc, char **argv)
{
	struct qopts o = { 0 };
	char *ops[2];
	struct spool sp;
	struct jstat js;
	query_args(argc, argv, status_lo, &o, 1, ops, &sp);
	resolve_or_exit(&sp, ops[1], &js);
	int r = 0;
	if (o.json) {
		cJSON *j = status_json(ops[1], &js, 1);
		r = print_json(j);
		cJSON_Delete(j);
	} else {
		print_status_line(ops[1], &js);
	}
	jstat_free(&js);
	spool_close(&sp);
	return r;
}

static const struct option list_lo[] = {
	{ "state", required_argument, NULL, Q_STATE },
	{ "json", no_argument, NULL, Q_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct list_ctx {
	const struct qopts *o;
};

static int state_matches(const char *want, const char *state)
{
	if (!want || strcmp(want, "all") == 0)
		return 1;
	if (strcmp(want, "finished") == 0)
		return strcmp(state, "queued") != 0 && strcmp(state, "running") != 0;
	return strcmp(want, state) == 0;
}

static void list_one(struct spool *sp, int dfd, const char *id, void *ctx)
{
	struct list_ctx *lc = ctx;
	struct jstat js;
	(void)dfd;
	if (!id_valid(id))
		return;
	if (job_resolve(sp, id, &js) < 0) {
		if (errno == EPERM && job_refusal[0])
			sr_warn("refusing job %s", job_refusal);
		return;
	}
	if (state_matches(lc->o->state, js.state)) {
		if (lc->o->json) {
			cJSON *j = status_json(id, &js, 0);
			(void)print_json(j);
			cJSON_Delete(j);
		} else {
			print_status_line(id, &js);
		}
	}
	jstat_free(&js);
}

int cmd_list(int argc, char **argv)
{
	static const char *const states[] = { "all", "queued", "running", "finished",
		"completed", "failed", "cancelled", "lost" };
	struct qopts o = { 0 };
	char *ops[1];
	struct spool sp;
	query_args(argc, argv, list_lo, &o, 0, ops, &sp);
	int known = !o.state;
	for (size_t i = 0; !known && i < sizeof states / sizeof *states; i++)
		known = strcmp(o.state, states[i]) == 0;
	if (!known)
		sr_usage("--state: unknown state '%s'", o.state);
	struct list_ctx lc = { &o };
	const char *s = o.state ? o.state : "all";
	int all = strcmp(s, "all") == 0;
	if (all || strcmp(s, "queued") == 0)
		each_entry(&sp, sp.queue, list_one, &lc);
	if (all || strcmp(s, "queued") != 0)
		each_entry(&sp, sp.run, list_one, &lc);
	if (all || (strcmp(s, "queued") != 0 && strcmp(s, "running") != 0))
		each_entry(&sp, sp.done, list_one, &lc);
	spool_close(&sp);
	return fflush(stdout) == 0 ? 0 : SR_EXIT_SYS;
}
