/* tool_util.c - what every tool shares: its argument readers, its
 * answers (a result kept under the client's cap, an error that says what
 * to do next), the size of a result as sent. The bottom of the tools
 * layer: the tool files call it, it calls the protocol's proto_result
 * and proto_error. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "fs.h"
#include "job.h"
#include "mcp.h"
#include "proto.h"
#include "tool.h"
#include "ws.h"
#include "sr.h"

int tool_arg_bool(struct proto_req *r, const char *tool, const cJSON *args, const char *k, int *out)
{
	const cJSON *v = cJSON_GetObjectItem(args, k);
	char msg[200];
	if (!v || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsBool(v)) {
		snprintf(msg, sizeof msg, "%s must be true or false", k);
		tool_bad_args(r, tool, msg);
		return -1;
	}
	*out = cJSON_IsTrue(v);
	return 1;
}

/* workspace_id, required and well formed: 0, or -1 (answered). */
int tool_arg_ws(struct proto_req *r, const char *tool, const cJSON *args, const char **ws)
{
	int g = tool_arg_str(r, tool, args, "workspace_id", ws);
	if (g == 0)
		tool_bad_args(r, tool, "workspace_id is required (a run_code result or list_workspaces "
		    "gives one)");
	else if (g > 0 && !ws_id_ok(*ws))
		tool_bad_args(r, tool, "workspace_id must be 1 to 64 letters, digits, _ or - (not "
		    "starting with -)");
	else if (g > 0)
		ws_keep(*ws);   /* a call named it: no longer scratch */
	return g > 0 && ws_id_ok(*ws) ? 0 : -1;
}

/* A tool result: a text block for a person, structuredContent for the
 * model. Takes res. */
cJSON *tool_result(cJSON *res, const char *text, int is_error)
{
	cJSON *out = cJSON_CreateObject();
	cJSON *content = cJSON_AddArrayToObject(out, "content");
	cJSON *t = cJSON_CreateObject();
	cJSON_AddStringToObject(t, "type", "text");
	cJSON_AddStringToObject(t, "text", text);
	cJSON_AddItemToArray(content, t);
	if (res)
		cJSON_AddItemToObject(out, "structuredContent", res);
	cJSON_AddBoolToObject(out, "isError", is_error);
	return out;
}

size_t tool_json_size(const cJSON *v)
{
	char *p = cJSON_PrintUnformatted(v);
	if (!p)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	size_t n = strlen(p);
	free(p);
	return n;
}

size_t tool_json_str_size(const char *s)
{
	size_t n = 2;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		n += *p == '"' || *p == '\\' || *p == '\b' || *p == '\f' || *p == '\n' ||
		     *p == '\r' || *p == '\t' ? 2 : *p < 0x20 ? 6 : 1;
	return n;
}

/* The last guard of the result cap: a result that would pass it is not
 * sent; a note that says how to ask for less is, instead. */
cJSON *tool_bounded(cJSON *out)
{
	size_t n = tool_json_size(out);
	if (n <= TOOL_RESULT_BUDGET)
		return out;
	cJSON_Delete(out);
	char msg[600];
	snprintf(msg, sizeof msg, "the result of this call would be %zu bytes, over the cap of a "
		 "result (%u bytes): nothing of it is shown. Ask for a part: list_files and "
		 "list_workspaces take an offset (and list_files a path or glob), read_file "
		 "offset_line and limit_lines, job_logs offset and limit_bytes; or have run_code "
		 "write less.", n, MCP_RESULT_MAX);
	return tool_result(NULL, msg, 1);
}

void tool_reply(struct proto_req *r, cJSON *res, const char *text, int is_error)
{
	proto_result(r, tool_bounded(tool_result(res, text, is_error)));
}

/* isError with text only: for a tool with an outputSchema a client would
 * reject structuredContent that does not fit it, and an error need not. */
void tool_error(struct proto_req *r, const char *fmt, ...)
{
	char msg[1500];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	tool_reply(r, NULL, msg, 1);
}

/* A bad argument: an isError result the model reads and corrects its call
 * by (input validation errors, spec 2025-11-25 and 2026-07-28); a call that
 * asked for a task (2025-11-25) awaits a task, not a result: -32602. */
void tool_bad_args(struct proto_req *r, const char *tool, const char *what)
{
	char msg[2200];
	snprintf(msg, sizeof msg, "Invalid arguments for tool %s: %s", tool, what);
	if (r->task_legacy)
		proto_error(r, -32602, msg, NULL);
	else
		tool_reply(r, NULL, msg, 1);
}

/* Argument readers: 1 found and good, 0 absent, -1 wrong (answered). */
const cJSON *tool_arg(const cJSON *args, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(args, k);
	return cJSON_IsNull(v) ? NULL : v;
}

int tool_arg_num(struct proto_req *r, const char *tool, const cJSON *args, const char *k,
		   double min, double *out)
{
	const cJSON *v = tool_arg(args, k);
	char msg[200];
	if (!v)
		return 0;
	/* at most 2^53 (what JSON carries exactly): beyond, the conversions to
	 * integers below would be undefined (1e300, found by fuzz/fuzz_mcp.c) */
	if (!cJSON_IsNumber(v) || !(v->valuedouble >= min) ||
	    v->valuedouble > 9007199254740992.0) {
		snprintf(msg, sizeof msg, "%s must be a number, at least %g and at most 2^53", k,
			 min);
		tool_bad_args(r, tool, msg);
		return -1;
	}
	*out = v->valuedouble;
	return 1;
}

int tool_arg_str(struct proto_req *r, const char *tool, const cJSON *args, const char *k,
		   const char **out)
{
	const cJSON *v = tool_arg(args, k);
	char msg[200];
	if (!v)
		return 0;
	if (!cJSON_IsString(v)) {
		snprintf(msg, sizeof msg, "%s must be a string", k);
		tool_bad_args(r, tool, msg);
		return -1;
	}
	*out = v->valuestring;
	return 1;
}

const char *tool_network_policy(void)
{
	return cfg.net_full ? "full" : cfg.net_allow ? "allow" : cfg.net_install ? "install" : "none";
}

int tool_run_net(void)
{
	return cfg.net_full ? JOB_NET_FULL : cfg.net_allow ? JOB_NET_ALLOW : JOB_NET_NONE;
}

/* ---- shared by the file tools (moved, unchanged, from files.c) ---------- */

void tool_iso_time(time_t t, char *buf, size_t len)
{
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void tool_append(char **b, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (*len + n + 1 > *cap) {
		*cap = (*len + n + 1) * 2;
		*b = realloc(*b, *cap);
		if (!*b)
			sr_fatal(SR_EXIT_SYS, "out of memory");
	}
	memcpy(*b + *len, s, n);
	*len += n;
	(*b)[*len] = '\0';
}

void tool_text_add(char **b, size_t *len, size_t *cap, const char *s)
{
	tool_append(b, len, cap, s, strlen(s));
}

/* The file PATH of workspace WS, opened with flags and fstat'ed into st,
 * its path in the workspace in *rel; -1 when it cannot be (answered). */
int tool_open_file(struct proto_req *r, const char *ws, const char *path, int flags,
		   struct stat *st, const char **rel)
{
	char err[1200];
	*rel = fs_rel_path(path, err, sizeof err);
	int wfd = *rel ? ws_open(ws, 0, err, sizeof err) : -1;
	int fd = wfd >= 0 ? fs_file_open(&(struct fs_at){ wfd, *rel, *rel }, flags, st, err,
					    sizeof err) : -1;
	if (wfd >= 0)
		close(wfd);
	if (fd < 0)
		tool_error(r, "%s", err);
	return fd;
}

const char *tool_type_of(mode_t m)
{
	return S_ISREG(m) ? "file" : S_ISDIR(m) ? "dir" : S_ISLNK(m) ? "symlink" : "other";
}
