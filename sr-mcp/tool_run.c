/* tool_run.c - run_code and the tools of its jobs: job_status, job_logs,
 * cancel_job, list_jobs; what their schemas take from the settings, the
 * checks on their arguments and a run's result as the model reads it
 * (tool_run_result). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "images.h"
#include "job.h"
#include "mcp.h"
#include "proto.h"
#include "runner.h"
#include "session.h"
#include "tool.h"
#include "ws.h"
#include "sr.h"

/* What run_code's schema takes from the settings: its languages, whether
 * it reaches the world, MCP tasks and the result size a client keeps. */
int tool_run_code_settings(cJSON *t)
{
	cJSON *lang = cJSON_GetObjectItem(cJSON_GetObjectItem(
		cJSON_GetObjectItem(t, "inputSchema"), "properties"), "language");
	cJSON *e = cJSON_AddArrayToObject(lang, "enum");
	for (size_t r = 0; r < runner_count; r++)
		cJSON_AddItemToArray(e, cJSON_CreateString(runner_all[r].name));
	tool_env_schema(cJSON_GetObjectItem(cJSON_GetObjectItem(t, "inputSchema"), "properties"));
	cJSON_GetObjectItem(cJSON_GetObjectItem(t, "annotations"), "openWorldHint")
		->type = cfg.net_full || cfg.net_allow ? cJSON_True : cJSON_False;
	/* 2025-11-25 tasks; dropped in 2026-07-28 lists */
	cJSON_AddStringToObject(cJSON_AddObjectToObject(t, "execution"), "taskSupport", "optional");
	return tool_job_status_settings(t);
}

/* A tool answering with a run's output: Claude Code keeps results up to
 * this size in the conversation. */
int tool_job_logs_settings(cJSON *t)
{
	cJSON *meta = cJSON_AddObjectToObject(t, "_meta");
	cJSON_AddNumberToObject(meta, "anthropic/maxResultSizeChars", (double)cfg.max_chars + 10000);
	return 1;
}

/* A tool whose result the MCP App shows (tool_app.c). */
int tool_job_status_settings(cJSON *t)
{
	return tool_job_logs_settings(t) && tool_app_link(t);
}

/* A stream's text in res cut to half, with a note, when it is long. */
static int halve_stream(cJSON *res, const char *k)
{
	cJSON *v = cJSON_GetObjectItem(res, k);
	size_t n = cJSON_IsString(v) ? strlen(v->valuestring) : 0;
	if (n < 2000)
		return 0;
	size_t keep = n / 2;
	while (keep > 0 && ((unsigned char)v->valuestring[keep] & 0xc0) == 0x80)
		keep--;
	char *t = NULL, key[32];
	snprintf(key, sizeof key, "%s_lost_bytes", k);
	const cJSON *lost = cJSON_GetObjectItem(res, key);
	if (asprintf(&t, "%.*s\n[... the rest of this %s did not fit the result cap of %u bytes: "
		     "job_logs with this job_id and stream %s reads all of it%s ...]\n", (int)keep,
		     v->valuestring, k, MCP_RESULT_MAX, k, cJSON_IsNumber(lost) &&
		     lost->valuedouble > 0 ? " that was kept (see lost)" : "") < 0)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	cJSON_ReplaceItemInObject(res, k, cJSON_CreateString(t));
	free(t);
	return 1;
}

/* A file's path on this machine in a resource_link's _meta
 * (dev.sr/host_path), for a client on the same machine (stdio). */
static void host_path(cJSON *b, const char *ws, const char *path)
{
	char *p = NULL;
	if (asprintf(&p, "%s/%s/%s", cfg.workspaces, ws, path) < 0)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	cJSON_AddStringToObject(cJSON_AddObjectToObject(b, "_meta"), "dev.sr/host_path", p);
	free(p);
}

/* The files the run made, as resource_link blocks (resources/read
 * reads them), their uri added to res's list; NULL when none. */
static cJSON *made_links(cJSON *res)
{
	const cJSON *ws = cJSON_GetObjectItem(res, "workspace_id");
	cJSON *files = cJSON_GetObjectItem(res, "files"), *f;
	if (!cJSON_IsString(ws) || !cJSON_GetArraySize(files))
		return NULL;
	cJSON *blocks = cJSON_CreateArray();
	cJSON_ArrayForEach(f, files) {
		const char *path = cJSON_GetObjectItem(f, "path")->valuestring;
		const char *mime = tool_res_mime(path);
		char *uri = tool_res_uri(ws->valuestring, path);
		cJSON_AddStringToObject(f, "uri", uri);
		cJSON *b = cJSON_CreateObject();
		cJSON_AddStringToObject(b, "type", "resource_link");
		cJSON_AddStringToObject(b, "uri", uri);
		cJSON_AddStringToObject(b, "name", path);
		if (mime)
			cJSON_AddStringToObject(b, "mimeType", mime);
		cJSON_AddItemToObject(b, "size", cJSON_Duplicate(cJSON_GetObjectItem(f, "size"), 1));
		if (!cfg.tenant_fixed)   /* over stdio the client runs here: where it is */
			host_path(b, ws->valuestring, path);
		cJSON_AddItemToArray(blocks, b);
		free(uri);
	}
	return blocks;
}

/* A run's result; drop (keep_workspace false): its workspace removed once
 * the images are read, no link to a file that is gone. */
static cJSON *run_result(const char *id, const char *ws, const cJSON *st, uint64_t out_off,
			 uint64_t err_off, int drop)
{
	cJSON *res = job_result_object(id, ws, st, out_off, err_off);
	cJSON *info = job_info(id);
	session_result(res, info);      /* a session call: its session's facts */
	cJSON_Delete(info);
	const char *status = cJSON_GetObjectItem(res, "status")->valuestring;
	int going = !strcmp(status, "running") || !strcmp(status, "queued");
	int is_error = strcmp(status, "succeeded") && !going;
	if (!going) {
		job_made(res, id);
		job_net(res, id);
	}
	cJSON *links = drop ? NULL : made_links(res);
	/* Output cleaned for the model can be three times its bytes, and the
	 * text block repeats it: cut until both fit, before the images take
	 * what room is left. */
	for (;;) {
		char *text = job_result_text(res);
		size_t n = tool_json_size(res) + tool_json_str_size(text);
		free(text);
		if (n <= TOOL_RESULT_BUDGET - 4096 ||
		    !(halve_stream(res, "stdout") | halve_stream(res, "stderr")))
			break;
	}
	cJSON *images = images_collect(res, st);
	char *text = job_result_text(res);
	text = drop && !going ? tool_ws_dropped(res, text) : tool_ws_scratch(res, st, text);
	cJSON *out = tool_result(res, text, is_error);
	images_attach(out, images);
	images_attach(out, links);
	free(text);
	return tool_bounded(out);
}

cJSON *tool_run_result(const char *id, const char *ws, const cJSON *st, uint64_t out_off,
		       uint64_t err_off)
{
	return run_result(id, ws, st, out_off, err_off, 0);
}

static int job_arg(struct proto_req *r, const char *tool, const cJSON *args, const char **id)
{
	int g = tool_arg_str(r, tool, args, "job_id", id);
	if (g == 0)
		tool_bad_args(r, tool, "job_id is required (the job_id a run_code result gave)");
	else if (g > 0 && !job_id_ok(*id))
		tool_bad_args(r, tool, "job_id must be the 32 hexadecimal digits a run_code result gave");
	return g > 0 && job_id_ok(*id) ? 0 : -1;
}

static int env_names_ok(const cJSON *env, char *why, size_t len)
{
	const cJSON *e;
	int n = 0;
	cJSON_ArrayForEach(e, env) {
		const char *k = e->string;
		int good = k && *k && !(*k >= '0' && *k <= '9');
		for (const char *c = k; good && *c; c++)
			good = *c == '_' || (*c >= '0' && *c <= '9') || ((*c | 32) >= 'a' && (*c | 32) <= 'z');
		if (!good || !cJSON_IsString(e)) {
			snprintf(why, len, "env: '%.64s' must be a name of letters, digits and _ "
				 "with a string value", k ? k : "");
			return -1;
		}
		if (++n > 256) {
			snprintf(why, len, "env: at most 256 variables");
			return -1;
		}
	}
	return 0;
}

static int state_going(const cJSON *st)
{
	const char *state = cJSON_GetObjectItem(st, "state")->valuestring;
	return !strcmp(state, "queued") || !strcmp(state, "running");
}

/* keep_workspace false and the run not ended in its bound: cancelled, its
 * status then (NULL with err). */
static cJSON *drop_cancel(const char *id, cJSON *st, char *err, size_t len)
{
	if (!state_going(st))
		return st;
	cJSON_Delete(st);
	if (job_cancel(id, err, len) < 0)
		return NULL;
	return job_wait(NULL, id, 0, err, len);
}

/* off: where stdout and stderr are read from */
static void finish_run(struct proto_req *r, const char *id, const char *ws, uint64_t wait_ms,
		       const uint64_t off[2], int drop)
{
	char err[512];
	cJSON *st = proto_job_wait(r, id, wait_ms, err, sizeof err);
	if (r->cancelled) {
		cJSON_Delete(st);
		return;
	}
	if (st && drop)
		st = drop_cancel(id, st, err, sizeof err);
	if (!st) {
		tool_error(r, "job %s: %s", id, err);
		return;
	}
	/* Still going, and the client takes tasks (2026-07-28): a task
	 * instead of "running"; tasks/get brings the result. */
	if (r->task_modern && state_going(st)) {
		proto_result(r, proto_task_created(r, id, st));
		cJSON_Delete(st);
		return;
	}
	proto_result(r, run_result(id, ws, st, off[0], off[1], drop));
	cJSON_Delete(st);
}

static uint64_t ms_of(double s)
{
	return (uint64_t)(s * 1000.0 + 0.5);
}

/* run_code's arguments. */
struct run_args {
	const char *lang, *code, *ws, *in;
	double timeout, mem, wait;
	int session, keep;
	const cJSON *a, *env;
	const struct runner *run;
};

/* The language named, or a bad argument that lists those there are. */
static const struct runner *run_language(struct proto_req *r, const char *lang)
{
	const char *T = "run_code";
	char why[300];
	const struct runner *run = runner_find(lang);
	if (!run) {
		char list[400] = "";
		for (size_t i = 0; i < runner_count; i++)
			snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
				 i ? ", " : "", runner_all[i].name);
		snprintf(why, sizeof why, "language must be one of: %s", runner_count ? list :
			 "(none: no runner is installed)");
		tool_bad_args(r, T, why);
	}
	return run;
}

/* The arguments read and checked: 0, or -1 (answered). */
static int run_args_read(struct proto_req *r, const cJSON *args, struct run_args *v)
{
	const char *T = "run_code";
	const cJSON *x;
	char why[300];
	if (tool_arg_str(r, T, args, "language", &v->lang) < 0 ||
	    tool_arg_str(r, T, args, "code", &v->code) < 0 ||
	    tool_arg_str(r, T, args, "workspace_id", &v->ws) < 0 ||
	    tool_arg_str(r, T, args, "stdin", &v->in) < 0 ||
	    tool_arg_num(r, T, args, "timeout_s", 0.001, &v->timeout) < 0 ||
	    tool_arg_num(r, T, args, "memory_mb", 1, &v->mem) < 0 ||
	    tool_arg_num(r, T, args, "wait_s", 0, &v->wait) < 0 ||
	    tool_arg_bool(r, T, args, "session", &v->session) < 0 ||
	    tool_arg_bool(r, T, args, "keep_workspace", &v->keep) < 0)
		return -1;
	if (!v->lang || !v->code) {
		tool_bad_args(r, T, "language and code are required");
		return -1;
	}
	if (!(v->run = run_language(r, v->lang)))
		return -1;
	if (v->ws && !ws_id_ok(v->ws)) {
		tool_bad_args(r, T, "workspace_id must be 1 to 64 letters, digits, _ or - (not "
			 "starting with -)");
		return -1;
	}
	if (v->a) {
		int good = cJSON_IsArray(v->a);
		cJSON_ArrayForEach(x, v->a)
			good = good && cJSON_IsString(x);
		if (!good) {
			tool_bad_args(r, T, "args must be an array of strings");
			return -1;
		}
	}
	if (v->session && (strcmp(v->lang, "python") && strcmp(v->lang, "javascript"))) {
		tool_bad_args(r, T, "session: true runs python or javascript; other languages run "
			      "stateless (the files in /workspace are kept between runs)");
		return -1;
	}
	if (v->session && (v->a || v->env || v->in)) {
		tool_bad_args(r, T, "session: true takes no stdin, args or env: set them in the "
			      "code (os.environ, sys.argv; process.env), or run without session");
		return -1;
	}
	if (!v->keep && (v->ws || v->session)) {
		tool_bad_args(r, T, v->ws ? "keep_workspace false removes the scratch workspace of "
			      "a run without workspace_id; a named workspace is never removed by it "
			      "(delete_workspace removes one)" : "keep_workspace false runs without "
			      "a session (a session keeps its workspace)");
		return -1;
	}
	if (!v->keep && r->task_legacy) {
		tool_bad_args(r, T, "keep_workspace false answers within the call (its workspace "
			      "goes with the result): call run_code without a task");
		return -1;
	}
	if (v->env && (!cJSON_IsObject(v->env) || env_names_ok(v->env, why, sizeof why) < 0)) {
		tool_bad_args(r, T, cJSON_IsObject(v->env) ? why : "env must be an object of strings");
		return -1;
	}
	return 0;
}

/* Over the administrator's caps: -1 (answered); the wait cut to its cap. */
static int run_caps(struct proto_req *r, struct run_args *v)
{
	if (ms_of(v->timeout) > cfg.timeout_max_ms) {
		tool_error(r, "timeout_s %g is over this server's cap of %g s: ask for at most "
			    "that (the administrator sets it with --timeout-max or "
			    "SR_MCP_TIMEOUT_MAX)", v->timeout, (double)cfg.timeout_max_ms / 1000);
		return -1;
	}
	/* mem << 20 must not wrap: 2^44 MiB would have become 0, no limit */
	if (v->mem > (double)(UINT64_MAX >> 20) || (uint64_t)v->mem << 20 > cfg.memory_max) {
		tool_error(r, "memory_mb %g is over this server's cap of %llu MiB: ask for at "
			    "most that (the administrator sets it with --memory-max or "
			    "SR_MCP_MEMORY_MAX)", v->mem, (unsigned long long)(cfg.memory_max >> 20));
		return -1;
	}
	if (ms_of(v->wait) > cfg.wait_max_ms)
		v->wait = (double)cfg.wait_max_ms / 1000;
	return 0;
}

/* The run queued in its workspace (s->workspace, made if need be): 0 with
 * its id, or -1 (answered). */
static int run_submit(struct proto_req *r, struct run_spec *s, char *id, int session)
{
	char err[512];
	struct session_ref ref;
	cJSON *sargs = NULL;
	/* the workspace held against an idle sweep until its job is queued */
	int hold = ws_hold(0), bad = ws_make(s->workspace, sizeof s->workspace, 0, err,
						    sizeof err) < 0;
	char snap[4400];
	if (!bad) {
		ws_touch(s->workspace);
		images_outdir(s->workspace);   /* /workspace/outputs, for the images */
		/* what is there before, for the files the run made */
		int made = job_made_snapshot(s->workspace, session, snap, sizeof snap);
		s->made = made == 0 ? snap : NULL;
		s->changes = made == 1;     /* the jail lists them (SR_WORKSPACE_CHANGES) */
	}
	if (!bad && session && !(bad = session_open(s, &ref, err, sizeof err) < 0))
		session_call_spec(s, &ref, &sargs);
	bad = bad || job_submit(s, id, err, sizeof err) < 0;
	cJSON_Delete(sargs);
	ws_release(hold);
	if (bad) {
		tool_error(r, "The run could not be started: %s. Nothing ran. Tell the user; "
			    "sr-mcp's log (its stderr) has details.", err);
		return -1;
	}
	return 0;
}

void tool_run_code(struct proto_req *r, const cJSON *args)
{
	struct run_args v = {
		.timeout = (double)cfg.timeout_ms / 1000, .mem = (double)(cfg.memory >> 20),
		.wait = (double)cfg.wait_ms / 1000,
		.a = tool_arg(args, "args"), .env = tool_arg(args, "env"), .keep = 1,
	};
	if (run_args_read(r, args, &v) < 0 || run_caps(r, &v) < 0)
		return;
	struct run_spec s = {
		.runner = v.run, .code = v.code, .code_len = strlen(v.code),
		.stdin_data = v.in, .stdin_len = v.in ? strlen(v.in) : 0,
		.args = (cJSON *)v.a, .env = (cJSON *)v.env,
		.timeout_ms = ms_of(v.timeout), .memory = (uint64_t)v.mem << 20, .tenant = r->tenant,
		.net = tool_run_net(),
	};
	snprintf(s.workspace, sizeof s.workspace, "%s", v.ws ? v.ws : "");
	char id[33];
	if (tool_env_pick(r, args, &s) < 0 || run_submit(r, &s, id, v.session) < 0)
		return;
	proto_req_set_job(r, id);
	if (r->task_legacy) {    /* a task asked for (2025-11-25): answer at once */
		char e2[300];
		cJSON *st = job_wait(NULL, id, 0, e2, sizeof e2);
		proto_req_set_job(r, "");      /* a cancel of this call no longer stops the job */
		proto_result(r, proto_task_created(r, id, st));
		cJSON_Delete(st);
		return;
	}
	/* keep_workspace false: the result in this call, the workspace gone
	 * with it; a run not ended in its own time and the longest wait after
	 * it (queued meanwhile) is cancelled */
	uint64_t wait = v.keep ? ms_of(v.wait) : s.timeout_ms + cfg.wait_max_ms;
	finish_run(r, id, s.workspace, wait, (const uint64_t[2]){ 0, 0 }, !v.keep);
}

void tool_job_status(struct proto_req *r, const cJSON *args)
{
	const char *T = "job_status", *id;
	double wait = 0, so = 0, se = 0;
	if (job_arg(r, T, args, &id) < 0 || tool_arg_num(r, T, args, "wait_s", 0, &wait) < 0 ||
	    tool_arg_num(r, T, args, "stdout_offset", 0, &so) < 0 ||
	    tool_arg_num(r, T, args, "stderr_offset", 0, &se) < 0)
		return;
	if (ms_of(wait) > cfg.wait_max_ms)
		wait = (double)cfg.wait_max_ms / 1000;
	proto_req_set_job(r, id);
	finish_run(r, id, NULL, ms_of(wait), (const uint64_t[2]){ (uint64_t)so, (uint64_t)se }, 0);
}

void tool_job_logs(struct proto_req *r, const cJSON *args)
{
	const char *T = "job_logs", *id, *stream = "stdout";
	double off = 0, lim = 20000;
	char err[300];
	if (job_arg(r, T, args, &id) < 0 || tool_arg_str(r, T, args, "stream", &stream) < 0 ||
	    tool_arg_num(r, T, args, "offset", 0, &off) < 0 ||
	    tool_arg_num(r, T, args, "limit_bytes", 1, &lim) < 0)
		return;
	if (strcmp(stream, "stdout") && strcmp(stream, "stderr")) {
		tool_bad_args(r, T, "stream must be stdout or stderr");
		return;
	}
	cJSON *res = job_result_logs(id, stream, (uint64_t)off, (uint64_t)lim, err, sizeof err);
	/* cleaned, a page can be three times its bytes, and both blocks hold
	 * it: a smaller page until it fits (next_offset says where to go on) */
	while (res && lim > 1 && 2 * tool_json_size(res) > TOOL_RESULT_BUDGET - 4096) {
		cJSON_Delete(res);
		lim = (double)((uint64_t)lim / 2);
		res = job_result_logs(id, stream, (uint64_t)off, (uint64_t)lim, err, sizeof err);
	}
	if (!res) {
		tool_error(r, "%s", err);
		return;
	}
	/* At the end of what was kept, the text block says what was not:
	 * nothing can read it, so a model must not page on for it. */
	const char *t = cJSON_GetObjectItem(res, "text")->valuestring;
	const cJSON *lost = cJSON_GetObjectItem(res, "lost");
	char *tl = NULL;
	if (cJSON_IsString(lost) && cJSON_IsTrue(cJSON_GetObjectItem(res, "eof")) &&
	    asprintf(&tl, "%s%s[... %s: nothing can read %s, this tool neither ...]\n", t,
		     *t && t[strlen(t) - 1] != '\n' ? "\n" : "", lost->valuestring,
		     cJSON_GetObjectItem(res, "lost_bytes")->valuedouble > 0 ? "those bytes" :
		     "what is missing") < 0)
		tl = NULL;
	tool_reply(r, res, tl ? tl : t, 0);
	free(tl);
}

void tool_cancel_job(struct proto_req *r, const cJSON *args)
{
	const char *id;
	char err[300];
	if (job_arg(r, "cancel_job", args, &id) < 0)
		return;
	int ended = job_cancel(id, err, sizeof err);   /* 1: it had ended already */
	if (ended < 0) {
		tool_error(r, "job %s: %s (list_jobs shows the jobs there are)", id, err);
		return;
	}
	cJSON *st = job_wait(NULL, id, 0, err, sizeof err);
	const cJSON *state = cJSON_GetObjectItem(st, "state");
	const char *sv = cJSON_IsString(state) ? state->valuestring : "unknown";
	cJSON *res = cJSON_CreateObject();
	cJSON_AddStringToObject(res, "job_id", id);
	cJSON_AddStringToObject(res, "status", sv);
	char text[200];
	snprintf(text, sizeof text, ended ? "job %s had already finished (%s): nothing to cancel" :
		 "job %s: %s", id, sv);
	cJSON_Delete(st);
	tool_reply(r, res, text, 0);
}

static int newest_first(const void *a, const void *b)
{
	const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
	return strcmp(cJSON_GetObjectItem(y, "id")->valuestring,
		      cJSON_GetObjectItem(x, "id")->valuestring);
}

/* What sr-queue list says the job lost (its "lost": [{text}]), in one
 * sentence, or NULL. */
static char *job_entry_lost(const cJSON *j)
{
	const cJSON *l;
	char *s = NULL;
	cJSON_ArrayForEach(l, cJSON_GetObjectItem(j, "lost")) {
		const cJSON *t = cJSON_GetObjectItem(l, "text");
		char *n = NULL;
		if (cJSON_IsString(t) && asprintf(&n, "%s%s%s", s ? s : "", s ? "; " : "",
						   t->valuestring) >= 0) {
			free(s);
			s = n;
		}
	}
	return s;
}

/* A job of the list, as list_jobs shows it: j the spool's entry (its
 * id and state strings), its language and workspace from its record. */
static cJSON *job_entry(const cJSON *j, const cJSON *id, const cJSON *state)
{
	cJSON *info = job_info(id->valuestring);
	const cJSON *argv = cJSON_GetObjectItem(info, "argv");
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "job_id", id->valuestring);
	cJSON_AddStringToObject(o, "state", state->valuestring);
	const cJSON *reason = cJSON_GetObjectItem(j, "reason");
	if (cJSON_IsString(reason))
		cJSON_AddStringToObject(o, "reason", reason->valuestring);
	const cJSON *prog = cJSON_GetArrayItem(argv, 0);
	if (session_call_language(argv))     /* a session call: its session's language */
		cJSON_AddStringToObject(o, "language", session_call_language(argv));
	else if (cJSON_IsString(prog) && strrchr(prog->valuestring, '/'))
		cJSON_AddStringToObject(o, "language", strrchr(prog->valuestring, '/') + 1);
	const cJSON *cwd = cJSON_GetObjectItem(info, "cwd");
	size_t wl = strlen(cfg.workspaces);
	if (cJSON_IsString(cwd) && !strncmp(cwd->valuestring, cfg.workspaces, wl) &&
	    cwd->valuestring[wl] == '/')
		cJSON_AddStringToObject(o, "workspace_id", cwd->valuestring + wl + 1);
	const cJSON *sub = cJSON_GetObjectItem(j, "submitted_ms");
	if (cJSON_IsNumber(sub))
		cJSON_AddNumberToObject(o, "submitted_ms", sub->valuedouble);
	char *lost = job_entry_lost(j);
	if (lost)
		cJSON_AddStringToObject(o, "lost", lost);
	free(lost);
	cJSON_Delete(info);
	return o;
}

void tool_list_jobs(struct proto_req *r, const cJSON *args)
{
	double limit = 50, from = 0;
	char err[300];
	if (tool_arg_num(r, "list_jobs", args, "limit", 1, &limit) < 0 ||
	    tool_arg_num(r, "list_jobs", args, "offset", 0, &from) < 0)
		return;
	if (limit > 500)
		limit = 500;    /* a page: its lines are short, 500 fit the result cap */
	cJSON *all = job_list(err, sizeof err);
	if (!all) {
		tool_error(r, "%s", err);
		return;
	}
	int n = cJSON_GetArraySize(all), k = 0;
	const cJSON **v = xmalloc((size_t)(n + 1) * sizeof *v), *it;
	cJSON_ArrayForEach(it, all)
		if (cJSON_IsString(cJSON_GetObjectItem(it, "id")))
			v[k++] = it;
	qsort(v, (size_t)k, sizeof *v, newest_first);   /* ids sort by submission */
	cJSON *res = cJSON_CreateObject(), *jobs = cJSON_AddArrayToObject(res, "jobs");
	char *text = xstrdup(""), line[300];
	size_t tlen = 0;
	int i = from < k ? (int)from : k, end = i + (int)limit;
	for (; i < k && i < end; i++) {
		const cJSON *j = v[i];
		const cJSON *id = cJSON_GetObjectItem(j, "id"), *state = cJSON_GetObjectItem(j, "state");
		if (!cJSON_IsString(state))
			continue;
		cJSON_AddItemToArray(jobs, job_entry(j, id, state));
		const cJSON *reason = cJSON_GetObjectItem(j, "reason");
		int m = snprintf(line, sizeof line, "%s %s%s%s%s\n", id->valuestring,
				 state->valuestring, cJSON_IsString(reason) ? " " : "",
				 cJSON_IsString(reason) ? reason->valuestring : "",
				 cJSON_GetObjectItem(j, "lost") ? " (output not all kept: "
				 "job_status says what)" : "");
		text = realloc(text, tlen + (size_t)m + 1);
		memcpy(text + tlen, line, (size_t)m + 1);
		tlen += (size_t)m;
	}
	cJSON_AddNumberToObject(res, "total", k);
	if (i < k) {
		cJSON_AddNumberToObject(res, "next_offset", i);
		snprintf(line, sizeof line, "[... %d older jobs: list_jobs with offset %d lists "
			 "them ...]\n", k - i, i);
		text = realloc(text, tlen + strlen(line) + 1);
		memcpy(text + tlen, line, strlen(line) + 1);
		tlen += strlen(line);
	}
	free(v);
	cJSON_Delete(all);
	tool_reply(r, res, tlen ? text : "no jobs yet", 0);
	free(text);
}
