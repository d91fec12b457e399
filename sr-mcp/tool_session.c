/* tool_session.c - session_info, restart_session, close_session: the
 * caller's sessions (run_code session: true; sr-mcp(1), SESSIONS). A
 * session is the caller's own: another client's are neither listed nor
 * reached (the sessions layer keys them by tenant). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "job.h"
#include "mcp.h"
#include "proto.h"
#include "runner.h"
#include "session.h"
#include "tool.h"
#include "ws.h"
#include "sr.h"

/* A session's line of text. */
static void session_line(const cJSON *o, char *line, size_t len)
{
	const cJSON *mem = cJSON_GetObjectItem(o, "memory_bytes");
	snprintf(line, len, "%s  %s, %.0f calls, age %.0f s, idle %.0f s, memory %.1f MiB\n",
		 cJSON_GetStringValue(cJSON_GetObjectItem(o, "workspace_id")),
		 cJSON_GetStringValue(cJSON_GetObjectItem(o, "language")),
		 cJSON_GetNumberValue(cJSON_GetObjectItem(o, "calls")),
		 cJSON_GetNumberValue(cJSON_GetObjectItem(o, "age_s")),
		 cJSON_GetNumberValue(cJSON_GetObjectItem(o, "idle_s")),
		 cJSON_IsNumber(mem) ? mem->valuedouble / 1048576 : 0.0);
}

void tool_session_info(struct proto_req *r, const cJSON *args)
{
	const char *ws = NULL;
	char err[300];
	if (tool_arg_str(r, "session_info", args, "workspace_id", &ws) < 0)
		return;
	if (job_state_ready(err, sizeof err) < 0) {
		tool_error(r, "%s", err);
		return;
	}
	cJSON *res = cJSON_CreateObject(), *all = session_list(r->tenant, ws);
	cJSON_AddItemToObject(res, "sessions", all);
	if (cfg.session_idle_ms)
		cJSON_AddNumberToObject(res, "session_idle_s", (double)(cfg.session_idle_ms / 1000));
	else
		cJSON_AddNullToObject(res, "session_idle_s");
	size_t tlen = 0, tcap = 256;
	char *text = xmalloc(tcap), line[400];
	text[0] = '\0';
	const cJSON *o;
	cJSON_ArrayForEach(o, all) {
		session_line(o, line, sizeof line);
		tool_text_add(&text, &tlen, &tcap, line);
	}
	tool_reply(r, res, tlen ? text : "no live sessions (run_code with session: true starts one)", 0);
	free(text);
}

/* workspace_id and language of a session tool's call: 0, or -1 (answered). */
static int session_args(struct proto_req *r, const char *T, const cJSON *args, const char **ws,
			const char **lang)
{
	if (tool_arg_ws(r, T, args, ws) < 0 || tool_arg_str(r, T, args, "language", lang) < 0)
		return -1;
	if (!*lang || (strcmp(*lang, "python") && strcmp(*lang, "javascript"))) {
		tool_bad_args(r, T, "language must be python or javascript (the languages with sessions)");
		return -1;
	}
	return 0;
}

static cJSON *session_answer(const char *ws, const char *lang, const char *k, int v)
{
	cJSON *res = cJSON_CreateObject();
	cJSON_AddStringToObject(res, "workspace_id", ws);
	cJSON_AddStringToObject(res, "language", lang);
	cJSON_AddBoolToObject(res, k, v);
	return res;
}

void tool_close_session(struct proto_req *r, const cJSON *args)
{
	const char *ws, *lang;
	char text[300];
	if (session_args(r, "close_session", args, &ws, &lang) < 0)
		return;
	int closed = session_close(r->tenant, ws, lang, "it was closed (close_session)");
	snprintf(text, sizeof text, closed ? "the %s session of workspace %s is closed" :
		 "you had no live %s session in workspace %s: nothing to close", lang, ws);
	tool_reply(r, session_answer(ws, lang, "closed", closed), text, 0);
}

/* The memory limit of the caller's live session (ws, lang), or the default. */
static uint64_t session_memory(const char *tenant, const char *ws, const char *lang)
{
	cJSON *all = session_list(tenant, ws), *o;
	uint64_t mem = cfg.memory;
	cJSON_ArrayForEach(o, all)
		if (!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(o, "language")), lang))
			mem = (uint64_t)cJSON_GetNumberValue(cJSON_GetObjectItem(o, "memory_limit_bytes"));
	cJSON_Delete(all);
	return mem;
}

void tool_restart_session(struct proto_req *r, const cJSON *args)
{
	const char *ws, *lang;
	char err[600], text[400];
	if (session_args(r, "restart_session", args, &ws, &lang) < 0)
		return;
	const struct runner *run = runner_find(lang);
	int fd = run ? ws_open(ws, 0, err, sizeof err) : -1;
	if (!run || fd < 0) {
		tool_error(r, run ? "%s" : "this server has no %s runner (sandbox_info lists the "
			   "languages)", run ? err : lang);
		return;
	}
	close(fd);
	struct run_spec s = { .runner = run, .code = "", .memory = session_memory(r->tenant, ws, lang),
			      .tenant = r->tenant, .net = tool_run_net() };
	snprintf(s.workspace, sizeof s.workspace, "%s", ws);
	struct session_ref ref;
	int had = job_state_ready(err, sizeof err) < 0 ? -1 : session_restart(&s, &ref, err, sizeof err);
	if (had < 0) {
		tool_error(r, "The session could not be started: %s. Try run_code with session: "
			   "true; sr-mcp's log (its stderr) has details.", err);
		return;
	}
	cJSON *res = session_answer(ws, lang, "restarted", had);
	cJSON_AddStringToObject(res, "interpreter_job_id", ref.job);
	snprintf(text, sizeof text, "a fresh %s session runs in workspace %s (interpreter job %s)%s: "
		 "run the setup again", lang, ws, ref.job, had ? "; the old one's state is gone" : "");
	tool_reply(r, res, text, 0);
}
