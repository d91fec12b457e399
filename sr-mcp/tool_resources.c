/* tool_resources.c - MCP resources: the files of the workspaces and the output
 * of jobs, for clients that let a user attach them or a model read them.
 *
 *   sr://workspaces/{workspace_id}/files/{+path}   a file of a workspace
 *   sr://jobs/{job_id}/stdout, sr://jobs/{job_id}/stderr
 *
 * resources/templates/list gives these three. resources/read reads a file
 * as read_file does: looked up beneath the workspace by tool_files.c's
 * openat2 (no "..", no absolute path, no symbolic link anywhere on the
 * way), a regular file of one link, opened O_NONBLOCK. UTF-8 text comes
 * as "text" (terminal control characters made visible, as read_file
 * does), anything else as a base64 "blob"; each under a cap. A job's
 * output is the page job_logs gives from its start, with a note when
 * there is more. resources/list gives the regular files of the
 * workspaces, a page of at most RES_LIST_MAX under the result cap, and a
 * nextCursor for the next (the number of files before it, after "all:"
 * with include_hidden); the package and internal directories (fs_hidden)
 * are left out unless the params' include_hidden is true, and named in
 * the result's _meta. Job outputs are reached through their templates only. A resource that is not there is
 * -32002 (-32602 in 2026-07-28, which retired -32002). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "fs.h"
#include "images.h"
#include "job.h"
#include "mcp.h"
#include "proto.h"
#include "text.h"
#include "tool.h"
#include "ws.h"
#include "sr.h"

#define RES_LIST_MAX 1000             /* resources/list: files, at most */
#define RES_MAX (700U << 10)          /* a resource read, at most (as base64 it
					 * stays under clients' 1 MiB) */
#define URI_MAX 16384                 /* a uri read, at most: 4000 bytes %-encoded */
#define WS_PREFIX "sr://workspaces/"
#define JOB_PREFIX "sr://jobs/"

static const struct { const char *ext, *mime; } mimes[] = {
	{ ".txt", "text/plain" }, { ".csv", "text/csv" }, { ".tsv", "text/tab-separated-values" },
	{ ".json", "application/json" }, { ".md", "text/markdown" }, { ".html", "text/html" },
	{ ".py", "text/x-python" }, { ".js", "text/javascript" }, { ".mjs", "text/javascript" },
	{ ".sh", "text/x-shellscript" }, { ".xml", "application/xml" }, { ".svg", "image/svg+xml" },
	{ ".png", "image/png" }, { ".jpg", "image/jpeg" }, { ".jpeg", "image/jpeg" },
	{ ".gif", "image/gif" }, { ".webp", "image/webp" }, { ".pdf", "application/pdf" },
	{ ".gz", "application/gzip" }, { ".tar", "application/x-tar" }, { ".zip", "application/zip" },
};

static const char *mime_of(const char *path, const char *fallback)
{
	size_t n = strlen(path);
	for (size_t i = 0; i < sizeof mimes / sizeof *mimes; i++) {
		size_t k = strlen(mimes[i].ext);
		if (n > k && !strcasecmp(path + n - k, mimes[i].ext))
			return mimes[i].mime;
	}
	return fallback;
}

/* A path in a URI: everything but the unreserved characters and '/'
 * percent-encoded ({+path} of RFC 6570 takes it back as it is). */
static char *uri_of(const char *ws, const char *path)
{
	char *u = xmalloc(strlen(WS_PREFIX) + strlen(ws) + 8 + strlen(path) * 3 + 1);
	char *q = u + sprintf(u, WS_PREFIX "%s/files/", ws);
	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("/-._~", *p))
			*q++ = (char)*p;
		else
			q += sprintf(q, "%%%02X", *p);
	*q = '\0';
	return u;
}

/* %XX decoded into a new string; NULL for a bad escape or a NUL. */
static char *pct_decode(const char *s)
{
	char *o = xmalloc(strlen(s) + 1), *q = o;
	for (; *s; s++) {
		if (*s != '%') {
			*q++ = *s;
			continue;
		}
		unsigned v;
		if (sscanf(s + 1, "%2x", &v) != 1 || !v || !s[1] || !s[2] ||
		    !strchr("0123456789abcdefABCDEF", s[1]) || !strchr("0123456789abcdefABCDEF", s[2])) {
			free(o);
			return NULL;
		}
		*q++ = (char)v;
		s += 2;
	}
	*q = '\0';
	return o;
}

static void with_cache(struct proto_req *r, cJSON *res)
{
	if (r->era == PROTO_MODERN) {
		cJSON_AddNumberToObject(res, "ttlMs", 0);
		cJSON_AddStringToObject(res, "cacheScope", "private");
	}
}

static void not_found(struct proto_req *r, const char *uri, const char *why)
{
	cJSON *data = cJSON_CreateObject();
	char msg[1400];
	cJSON_AddStringToObject(data, "uri", uri);
	snprintf(msg, sizeof msg, "Resource not found: %s", why);
	proto_error(r, r->era == PROTO_MODERN ? -32602 : -32002, msg, data);
}

/* ---- resources/templates/list ---------------------------------------------- */

static void templates(struct proto_req *r)
{
	static const struct { const char *uri, *name, *title, *desc, *mime; } t[] = {
		{ WS_PREFIX "{workspace_id}/files/{+path}", "workspace-file", "A file of a workspace",
		  "A file of a workspace, by its path relative to /workspace (list_files shows "
		  "them). Text as text, other files as base64; no symbolic link is followed.", NULL },
		{ JOB_PREFIX "{job_id}/stdout", "job-stdout", "A job's standard output",
		  "The standard output of a run_code job, from its start (job_logs reads further).",
		  "text/plain" },
		{ JOB_PREFIX "{job_id}/stderr", "job-stderr", "A job's standard error",
		  "The standard error of a run_code job, from its start (job_logs reads further).",
		  "text/plain" },
	};
	cJSON *res = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(res, "resourceTemplates");
	for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "uriTemplate", t[i].uri);
		cJSON_AddStringToObject(o, "name", t[i].name);
		cJSON_AddStringToObject(o, "title", t[i].title);
		cJSON_AddStringToObject(o, "description", t[i].desc);
		if (t[i].mime)
			cJSON_AddStringToObject(o, "mimeType", t[i].mime);
		cJSON_AddItemToArray(a, o);
	}
	with_cache(r, res);
	proto_result(r, res);
}

/* ---- resources/list ----------------------------------------------------------- */

struct listing {
	cJSON *arr;
	cJSON *hidden;        /* the hidden directories left out, NULL: none is */
	size_t hidden_more;   /* and those past HIDDEN_MAX */
	const char *ws;
	size_t skip, met;     /* resources before this page; met so far */
	size_t bytes;
	int n, more;
};

#define HIDDEN_MAX 50     /* hidden directories named in a page */

/* A package or internal directory (fs_hidden) when they are left out: not
 * entered, named in l->hidden with its workspace and entries; 1. Else 0. */
static int left_out(struct fs_walk *w, int dirfd, const char *name, const char *rel,
		    const struct stat *st)
{
	struct listing *l = w->ctx;
	if (!l->hidden || !fs_hidden(name, st))
		return 0;
	w->prune = 1;
	if (cJSON_GetArraySize(l->hidden) >= HIDDEN_MAX) {
		l->hidden_more++;
		return 1;
	}
	cJSON *o = tool_hidden_dir(dirfd, name, rel);
	cJSON_AddStringToObject(o, "workspace_id", l->ws);
	cJSON_AddItemToArray(l->hidden, o);
	l->bytes += tool_json_size(o) + 1;
	return 1;
}

static void list_one(struct fs_walk *w, int dirfd, const char *name, const char *rel,
		     const struct stat *st)
{
	struct listing *l = w->ctx;
	int rep = 0;
	if (left_out(w, dirfd, name, rel, st) || !S_ISREG(st->st_mode))
		return;
	char *clean = text_clean(rel, strlen(rel), &rep);
	free(clean);
	if (rep || ++l->met <= l->skip)
		return;     /* a name that is not UTF-8 has no URI */
	char *uri = uri_of(l->ws, rel), shown[4400];
	cJSON *o = cJSON_CreateObject();
	snprintf(shown, sizeof shown, "%s/%s", l->ws, rel);
	cJSON_AddStringToObject(o, "uri", uri);
	cJSON_AddStringToObject(o, "name", shown);
	cJSON_AddStringToObject(o, "mimeType", mime_of(rel, "application/octet-stream"));
	cJSON_AddNumberToObject(o, "size", (double)st->st_size);
	free(uri);
	size_t cost = tool_json_size(o) + 1;
	if (l->n >= RES_LIST_MAX || l->bytes + cost > TOOL_RESULT_BUDGET) {
		cJSON_Delete(o);
		l->more = 1;      /* the page is full: nextCursor */
		w->stop = 1;
		return;
	}
	l->bytes += cost;
	cJSON_AddItemToArray(l->arr, o);
	l->n++;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* resources/list's cursor: the resources before the page, in decimal,
 * after "all:" when the hidden directories are listed too (*all). */
static int cursor(struct proto_req *r, size_t *skip, int *all)
{
	const cJSON *c = cJSON_GetObjectItem(r->params, "cursor");
	*skip = 0;
	*all = cJSON_IsTrue(cJSON_GetObjectItem(r->params, "include_hidden"));
	if (!c || cJSON_IsNull(c))
		return 0;
	const char *p = cJSON_IsString(c) ? c->valuestring : "";
	if (!strncmp(p, "all:", 4)) {
		*all = 1;
		p += 4;
	}
	uint64_t v;
	if (sr_parse_count(p, SIZE_MAX, &v) < 0) {
		proto_error(r, -32602, "Invalid params: cursor must be a nextCursor that "
			   "resources/list gave", NULL);
		return -1;
	}
	*skip = (size_t)v;
	return 0;
}

/* The hidden directories left out, in the result's _meta: sr/hidden_dirs
 * (workspace, path, entries) and sr/note, which says how to list them. */
static void hidden_meta(cJSON *res, struct listing *l)
{
	if (!cJSON_GetArraySize(l->hidden)) {
		cJSON_Delete(l->hidden);
		return;
	}
	cJSON *meta = cJSON_AddObjectToObject(res, "_meta");
	cJSON_AddItemToObject(meta, "sr/hidden_dirs", l->hidden);
	if (l->hidden_more)
		cJSON_AddNumberToObject(meta, "sr/hidden_dirs_not_listed", (double)l->hidden_more);
	cJSON_AddStringToObject(meta, "sr/note", "The files of package and internal directories "
				"(" FS_HIDDEN_NAMES ") are left out: sr/hidden_dirs names each with "
				"the entries it holds. resources/list with include_hidden true "
				"lists them; resources/read reads any of them by its URI.");
}

static void list(struct proto_req *r)
{
	size_t skip;
	int all;
	if (cursor(r, &skip, &all) < 0)
		return;
	cJSON *res = cJSON_CreateObject();
	struct listing l = { .arr = cJSON_AddArrayToObject(res, "resources"), .skip = skip,
			     .bytes = 1000, .hidden = all ? NULL : cJSON_CreateArray() };
	if (r->ui && !skip)     /* the MCP App's view, first on the first page */
		cJSON_AddItemToArray(l.arr, tool_app_resource());
	DIR *d = opendir(cfg.workspaces);
	char **names = NULL, err[600];
	size_t n = 0;
	struct dirent *e;
	while (d && (e = readdir(d)) && n < 10000)
		if (ws_id_ok(e->d_name)) {
			names = realloc(names, (n + 1) * sizeof *names);
			if (!names)
				sr_fatal(SR_EXIT_SYS, "out of memory");
			names[n++] = xstrdup(e->d_name);
		}
	if (d)
		closedir(d);
	if (n)
		qsort(names, n, sizeof *names, by_name);
	for (size_t i = 0; i < n; i++) {
		int fd = !l.more ? ws_open(names[i], 0, err, sizeof err) : -1;
		if (fd >= 0) {
			/* a path too long for a URI is not a resource */
			struct fs_walk w = { .fn = list_one, .recursive = 1, .skip_cut = 1, .ctx = &l };
			l.ws = names[i];
			fs_walk(&w, fd);
		}
		free(names[i]);
	}
	free(names);
	if (l.more) {
		char next[32];
		snprintf(next, sizeof next, "%s%zu", all ? "all:" : "", skip + (size_t)l.n);
		cJSON_AddStringToObject(res, "nextCursor", next);
	}
	hidden_meta(res, &l);
	with_cache(r, res);
	proto_result(r, res);
}

/* ---- resources/read ---------------------------------------------------------- */

static void contents(struct proto_req *r, cJSON *item)
{
	cJSON *res = cJSON_CreateObject();
	cJSON_AddItemToArray(cJSON_AddArrayToObject(res, "contents"), item);
	with_cache(r, res);
	proto_result(r, res);
}

/* Text whose JSON (quotes and backslashes escaped, control characters
 * shown as three-byte symbols) would pass the result cap: cut on a line,
 * with a note that says where read_file goes on. */
static void text_fit(char **text, const char *ws, const char *rel, long long size)
{
	size_t room = TOOL_RESULT_BUDGET - 2 * URI_MAX - 1024;
	if (tool_json_str_size(*text) <= room)
		return;
	char *t = *text;
	size_t keep = 0, used = 0, lines = 0, cut = 0;
	for (const char *p = t; *p && used < room; p++) {
		used += *p == '"' || *p == '\\' || *p == '\n' || *p == '\r' || *p == '\t' ? 2 : 1;
		if (*p == '\n' && used < room) {
			keep = (size_t)(p - t) + 1;
			lines++;
		}
	}
	if (!keep) {      /* one line longer than the room: cut inside it */
		keep = room / 2;
		while (keep && ((unsigned char)t[keep] & 0xc0) == 0x80)
			keep--;
		cut = 1;
	}
	char *o = NULL;
	if (asprintf(&o, "%.*s\n[... cut: the file (%lld bytes) does not fit a result of %u "
		     "bytes; read_file with workspace_id %s, path %s and offset_line %zu reads "
		     "the rest%s ...]\n", (int)keep, t, size, MCP_RESULT_MAX, ws, rel, lines + 1,
		     cut ? " (this line was cut too: run_code reads it whole)" : "") < 0)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	free(t);
	*text = o;
}

/* The file rel of workspace ws opened and fstat'ed into st; -1 when it
 * cannot be (answered): what is not there is "not found"; what is
 * refused, says why. */
static int res_file_open(struct proto_req *r, const char *uri, const char *ws, const char *rel,
			 struct stat *st)
{
	char err[1200];
	int wfd = ws_open(ws, 0, err, sizeof err);
	if (wfd < 0) {
		not_found(r, uri, err);
		return -1;
	}
	int probe = fs_openat2(wfd, rel, O_PATH, 0);
	int fd = -1;
	if (probe < 0) {
		fs_path_why(err, sizeof err, rel, errno);
		if (errno == ENOENT || errno == ENOTDIR)
			not_found(r, uri, err);
		else
			proto_error(r, -32602, err, NULL);
	} else {
		close(probe);
		fd = fs_file_open(&(struct fs_at){ wfd, rel, rel }, O_RDONLY, st, err, sizeof err);
		if (fd < 0)
			proto_error(r, -32602, err, NULL);
	}
	close(wfd);
	return fd;
}

static void read_file_res(struct proto_req *r, const char *uri)
{
	char ws[65], err[1200];
	const char *p = uri + strlen(WS_PREFIX), *slash = strchr(p, '/');
	if (!slash || (size_t)(slash - p) >= sizeof ws || strncmp(slash, "/files/", 7)) {
		proto_error(r, -32602, "Invalid params: a workspace file's URI is "
			   WS_PREFIX "{workspace_id}/files/{path}", NULL);
		return;
	}
	snprintf(ws, sizeof ws, "%.*s", (int)(slash - p), p);
	char *path = pct_decode(slash + 7);
	const char *rel = path && ws_id_ok(ws) ? fs_rel_path(path, err, sizeof err) : NULL;
	if (!path || !ws_id_ok(ws))
		snprintf(err, sizeof err, "the URI has a bad workspace id or %%-escape");
	if (!rel || !*path) {
		proto_error(r, -32602, !rel ? err : "Invalid params: the URI names no file", NULL);
		free(path);
		return;
	}
	struct stat st;
	int fd = res_file_open(r, uri, ws, rel, &st);
	if (fd < 0) {
		free(path);
		return;
	}
	size_t n = 0;
	char *data = (uint64_t)st.st_size <= RES_MAX ? fs_read_fd(fd, (size_t)st.st_size, &n) : NULL;
	int rep = 0;
	char *text = data ? text_clean(data, n, &rep) : NULL;
	close(fd);
	if (!data) {
		snprintf(err, sizeof err, "%s: %lld bytes, over the cap of resources/read (%u KiB): "
			 "read_file reads a text file in parts, run_code any file", rel,
			 (long long)st.st_size, RES_MAX >> 10);
		proto_error(r, -32602, err, NULL);
	} else {
		cJSON *item = cJSON_CreateObject();
		cJSON_AddStringToObject(item, "uri", uri);
		if (!rep) {
			cJSON_AddStringToObject(item, "mimeType", mime_of(rel, "text/plain"));
			text_fit(&text, ws, rel, (long long)n);
			cJSON_AddStringToObject(item, "text", text);
		} else {
			const char *img = images_type((unsigned char *)data, n);
			char *b64 = text_base64((unsigned char *)data, n);
			cJSON_AddStringToObject(item, "mimeType", img ? img :
						mime_of(rel, "application/octet-stream"));
			cJSON_AddStringToObject(item, "blob", b64);
			free(b64);
		}
		contents(r, item);
	}
	free(text);
	free(data);
	free(path);
}

static void read_job_res(struct proto_req *r, const char *uri)
{
	char id[33], err[600];
	const char *p = uri + strlen(JOB_PREFIX), *slash = strchr(p, '/');
	if (!slash || slash - p != 32 || (strcmp(slash, "/stdout") && strcmp(slash, "/stderr"))) {
		proto_error(r, -32602, "Invalid params: a job's output is " JOB_PREFIX
			   "{job_id}/stdout or /stderr", NULL);
		return;
	}
	snprintf(id, sizeof id, "%.32s", p);
	if (!job_id_ok(id)) {
		not_found(r, uri, "a job id is 32 hexadecimal digits (list_jobs shows them)");
		return;
	}
	cJSON *page = job_result_logs(id, slash + 1, 0, RES_MAX, err, sizeof err);
	if (!page) {
		not_found(r, uri, err);
		return;
	}
	const char *text = cJSON_GetObjectItem(page, "text")->valuestring;
	double next = cJSON_GetObjectItem(page, "next_offset")->valuedouble;
	double total = cJSON_GetObjectItem(page, "total_bytes")->valuedouble;
	char *all = NULL;
	if (cJSON_IsFalse(cJSON_GetObjectItem(page, "eof"))) {
		if (asprintf(&all, "%s\n[... %.0f more bytes: job_logs with job_id %s, stream %s "
			     "and offset %.0f reads them]", text, total - next, id, slash + 1,
			     next) < 0)
			sr_fatal(SR_EXIT_SYS, "out of memory");
	}
	cJSON *item = cJSON_CreateObject();
	cJSON_AddStringToObject(item, "uri", uri);
	cJSON_AddStringToObject(item, "mimeType", "text/plain");
	cJSON_AddStringToObject(item, "text", all ? all : text);
	free(all);
	cJSON_Delete(page);
	contents(r, item);
}

void tool_res_call(struct proto_req *r)
{
	char err[700];
	if (job_state_ready(err, sizeof err) < 0) {
		proto_error(r, -32603, err, NULL);
		return;
	}
	if (!strcmp(r->method, "resources/templates/list")) {
		templates(r);
	} else if (!strcmp(r->method, "resources/list")) {
		list(r);
	} else if (strcmp(r->method, "resources/read")) {
		proto_error(r, -32601, "Method not found", NULL);
	} else {
		const cJSON *u = cJSON_GetObjectItem(r->params, "uri");
		if (!cJSON_IsString(u))
			proto_error(r, -32602, "Invalid params: resources/read needs a uri", NULL);
		else if (strlen(u->valuestring) > URI_MAX)
			proto_error(r, -32602, "Invalid params: the uri is too long (a path is at "
				   "most 4000 bytes)", NULL);
		else if (!strncmp(u->valuestring, WS_PREFIX, strlen(WS_PREFIX)))
			read_file_res(r, u->valuestring);
		else if (!strncmp(u->valuestring, JOB_PREFIX, strlen(JOB_PREFIX)))
			read_job_res(r, u->valuestring);
		else if (!strncmp(u->valuestring, "ui://", 5))
			tool_app_read(r, u->valuestring);
		else
			not_found(r, u->valuestring, "sr-mcp serves " WS_PREFIX "{workspace_id}/files/"
				  "{path} and " JOB_PREFIX "{job_id}/stdout or /stderr "
				  "(resources/templates/list), and " TOOL_APP_URI " to MCP Apps hosts");
	}
}

/* A workspace file's resource uri (malloc'd) and MIME type (or NULL),
 * for the tools that link to files. */
char *tool_res_uri(const char *ws, const char *path)
{
	return uri_of(ws, path);
}

const char *tool_res_mime(const char *path)
{
	return mime_of(path, NULL);
}
