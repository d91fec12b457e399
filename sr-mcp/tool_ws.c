/* tool_ws.c - the workspaces as a whole: list_workspaces and
 * delete_workspace. How a workspace is read safely: see tool_files.c. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/openat2.h>

#include <cjson/cJSON.h>

#include "fs.h"
#include "job.h"
#include "mcp.h"
#include "proto.h"
#include "session.h"
#include "tool.h"
#include "ws.h"
#include "sr.h"

#define WS_PAGE 200                    /* list_workspaces: workspaces in a page */

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ---- list_workspaces, delete_workspace ------------------------------------ */

struct usage {
	uint64_t bytes, files;
	time_t newest;
};

static void count(struct fs_walk *w, int dirfd, const char *name, const char *rel,
		  const struct stat *st)
{
	(void)dirfd, (void)name, (void)rel;
	struct usage *u = w->ctx;
	if (S_ISREG(st->st_mode)) {
		u->bytes += (uint64_t)st->st_size;
		u->files++;
	}
	if (st->st_mtime > u->newest)
		u->newest = st->st_mtime;
}

/* The names of the workspaces, sorted (at most 10000), their directory
 * open in *dp; NULL with *dp NULL when it cannot be read (answered). */
static char **ws_names(struct proto_req *r, DIR **dp, size_t *count)
{
	*dp = NULL;
	int root = open(cfg.workspaces, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (root < 0) {
		tool_error(r, "unable to open %s: %s", cfg.workspaces, strerror(errno));
		return NULL;
	}
	DIR *d = fdopendir(root);
	if (!d) {
		close(root);
		tool_error(r, "unable to read %s: %s", cfg.workspaces, strerror(errno));
		return NULL;
	}
	char **names = NULL;
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d)) && n < 10000)
		if (ws_id_ok(e->d_name)) {
			names = realloc(names, (n + 1) * sizeof *names);
			if (!names)
				sr_fatal(SR_EXIT_SYS, "out of memory");
			names[n++] = xstrdup(e->d_name);
		}
	if (n)
		qsort(names, n, sizeof *names, by_name);
	*dp = d;
	*count = n;
	return names;
}

/* A workspace's quota, last use and expiry, as its line of text says them. */
struct ws_times {
	char quota[48], used[32], expires[32];
};

/* Its quota, its last use and when an idle sweep takes it, in o and in t
 * for its line. */
static void ws_entry_times(cJSON *o, const char *name, struct ws_times *t)
{
	if (cfg.ws_quota) {
		cJSON_AddNumberToObject(o, "quota", (double)cfg.ws_quota);
		snprintf(t->quota, sizeof t->quota, " of %llu", (unsigned long long)cfg.ws_quota);
	} else {
		cJSON_AddNullToObject(o, "quota");
	}
	if (cfg.ws_quota && cfg.ws_inodes)
		cJSON_AddNumberToObject(o, "inode_quota", (double)cfg.ws_inodes);
	else
		cJSON_AddNullToObject(o, "inode_quota");
	int scratch;
	time_t gone = ws_expires(name, &scratch);
	tool_iso_time(ws_last_used(name), t->used, sizeof t->used);
	cJSON_AddStringToObject(o, "last_used", t->used);
	cJSON_AddBoolToObject(o, "scratch", scratch);
	if (gone) {
		tool_iso_time(gone, t->expires, sizeof t->expires);
		cJSON_AddStringToObject(o, "expires_at", t->expires);
	} else {
		cJSON_AddNullToObject(o, "expires_at");
	}
}

/* The workspace name of the directory dfd: its object, and its line of
 * text in line; NULL when it is not a directory (a link: no workspace). */
static cJSON *ws_entry(int dfd, const char *name, char *line, size_t len)
{
	struct stat st;
	int fd = fs_openat2(dfd, name, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	/* created: the directory's birth time, where the file system keeps one */
	struct statx sx;
	char born[32] = "";
	if (statx(fd, "", AT_EMPTY_PATH, STATX_BTIME, &sx) == 0 && (sx.stx_mask & STATX_BTIME))
		tool_iso_time((time_t)sx.stx_btime.tv_sec, born, sizeof born);
	struct usage u = { 0, 0, st.st_mtime };
	struct fs_walk w = { .fn = count, .recursive = 1, .no_rel = 1, .ctx = &u };
	fs_walk(&w, fd);
	char when[32];
	tool_iso_time(u.newest, when, sizeof when);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "workspace_id", name);
	if (born[0])
		cJSON_AddStringToObject(o, "created", born);
	else
		cJSON_AddNullToObject(o, "created");
	cJSON_AddNumberToObject(o, "bytes", (double)u.bytes);
	cJSON_AddNumberToObject(o, "files", (double)u.files);
	cJSON_AddStringToObject(o, "modified", when);
	if (w.cut)
		cJSON_AddBoolToObject(o, "partial", 1);
	struct ws_times t = { .quota = "", .expires = "never" };
	ws_entry_times(o, name, &t);
	snprintf(line, len, "%s  %s, created %s, %llu files, %llu%s bytes, "
		 "modified %s%s, last used %s, expires %s\n", name,
		 cJSON_IsTrue(cJSON_GetObjectItem(o, "scratch")) ? "scratch" : "kept",
		 born[0] ? born : "?", (unsigned long long)u.files, (unsigned long long)u.bytes,
		 t.quota, when, w.cut ? " (counted in part)" : "", t.used, t.expires);
	return o;
}

/* The caller's live sessions of workspace ws in o, and named in its line. */
static void ws_sessions(cJSON *o, const char *tenant, const char *ws, char *line, size_t len)
{
	cJSON *all = session_list(tenant, ws), *e;
	cJSON_AddItemToObject(o, "sessions", all);
	size_t n = strlen(line);
	if (!cJSON_GetArraySize(all) || n < 1)
		return;
	n--;   /* before the newline */
	n += (size_t)snprintf(line + n, len - n, ", sessions:");
	cJSON_ArrayForEach(e, all)
		if (n < len)
			n += (size_t)snprintf(line + n, len - n, " %s",
					      cJSON_GetStringValue(cJSON_GetObjectItem(e, "language")));
	if (n < len)
		snprintf(line + n, len - n, "\n");
}

void tool_list_workspaces(struct proto_req *r, const cJSON *args)
{
	double from = 0;
	if (tool_arg_num(r, "list_workspaces", args, "offset", 0, &from) < 0)
		return;
	DIR *d;
	size_t n = 0;
	char **names = ws_names(r, &d, &n);
	if (!d)
		return;
	cJSON *res = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(res, "workspaces");
	size_t tlen = 0, tcap = 256, bytes = 1000, i = 0, shown = 0;
	char *text = xmalloc(tcap);
	text[0] = '\0';
	for (; i < n && i < (size_t)from; i++)
		free(names[i]);
	for (; i < n; i++) {
		if (shown >= WS_PAGE || bytes > TOOL_LIST_BUDGET)
			break;
		char line[300];
		cJSON *o = ws_entry(dirfd(d), names[i], line, sizeof line);
		if (o)
			ws_sessions(o, r->tenant, names[i], line, sizeof line);
		free(names[i]);
		if (!o)
			continue;   /* not a directory, or a link: not a workspace */
		cJSON_AddItemToArray(arr, o);
		bytes += 2 * tool_json_size(o);
		shown++;
		tool_text_add(&text, &tlen, &tcap, line);
	}
	if (i < n) {
		char more[200];
		cJSON_AddNumberToObject(res, "next_offset", (double)i);
		snprintf(more, sizeof more, "[... %zu more workspaces: list_workspaces with offset %zu "
			 "lists them ...]\n", n - i, i);
		tool_text_add(&text, &tlen, &tcap, more);
	}
	for (; i < n; i++)
		free(names[i]);
	free(names);
	closedir(d);
	tool_reply(r, res, tlen ? text : from ? "no workspaces from this offset" :
		   "no workspaces yet (run_code or write_file makes one)", 0);
	free(text);
}

int tool_ws_remove(const char *ws, const char *why)
{
	/* its interpreters first: none writes into it while it goes */
	session_close_ws(ws, why);
	int root = open(cfg.workspaces, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (root < 0 || sr_remove_tree(root, ws) < 0) {
		int e = errno;
		if (root >= 0)
			close(root);
		errno = e;
		return -1;
	}
	close(root);
	ws_size_remove(ws);
	ws_stamp_remove(ws);
	return 0;
}

void tool_delete_workspace(struct proto_req *r, const cJSON *args)
{
	const char *T = "delete_workspace", *ws;
	char err[600], job[33];
	if (tool_arg_ws(r, T, args, &ws) < 0)
		return;
	int fd = ws_open(ws, 0, err, sizeof err);
	if (fd < 0) {
		tool_error(r, "%s", err);
		return;
	}
	close(fd);
	int busy = job_ws_busy(ws, job);
	if (busy < 0) {
		tool_error(r, "workspace %s: unable to tell whether a job uses it (the spool "
			   "could not be read; see sr-mcp's log): not deleted, try again", ws);
		return;
	}
	if (busy) {
		tool_error(r, "workspace %s is in use by job %s (queued or running): cancel_job it or "
		     "wait for it to end, then delete the workspace", ws, job);
		return;
	}
	if (tool_ws_remove(ws, "its workspace was deleted (delete_workspace)") < 0) {
		tool_error(r, "workspace %s could not be removed entirely: %s", ws, strerror(errno));
		return;
	}
	cJSON *res = cJSON_CreateObject();
	cJSON_AddStringToObject(res, "workspace_id", ws);
	cJSON_AddBoolToObject(res, "deleted", 1);
	snprintf(err, sizeof err, "workspace %s deleted", ws);
	tool_reply(r, res, err, 0);
}

/* ---- a scratch workspace, told -------------------------------------------- */

/* The note of a scratch workspace: when it goes (when: 0 while its run
 * goes on) and how to keep it. */
static void scratch_note(const char *id, time_t when, char *note, size_t len)
{
	char ttl[32], keep[80] = "never removed", at[32], gone[120];
	ws_ttl_text(cfg.scratch_ttl_ms, ttl, sizeof ttl);
	if (cfg.ws_ttl_ms) {
		char t[32];
		ws_ttl_text(cfg.ws_ttl_ms, t, sizeof t);
		snprintf(keep, sizeof keep, "removed only once unused for %s", t);
	}
	if (when) {
		tool_iso_time(when, at, sizeof at);
		snprintf(gone, sizeof gone, "at %s (%s after its last use)", at, ttl);
	} else {
		snprintf(gone, sizeof gone, "%s after this run ends", ttl);
	}
	snprintf(note, len, "Workspace %s is scratch: it is removed %s unless a later call "
		 "names it. To keep its files, pass workspace_id %s to any later call (run_code, "
		 "write_file, list_files ...): it is kept then, %s.", id, gone, id, keep);
}

/* text (taken) with note on a line after it. */
static char *note_after(char *text, const char *note)
{
	size_t n = strlen(text);
	char *t = xmalloc(n + strlen(note) + 3);
	snprintf(t, n + strlen(note) + 3, "%s%s%s\n", text, n && text[n - 1] != '\n' ? "\n" : "",
		 note);
	free(text);
	return t;
}

char *tool_ws_scratch(cJSON *res, const cJSON *st, char *text)
{
	const char *id = cJSON_GetStringValue(cJSON_GetObjectItem(res, "workspace_id"));
	if (!id || !ws_scratch(id))
		return text;
	const char *state = cJSON_GetStringValue(cJSON_GetObjectItem(st, "state"));
	int going = state && (!strcmp(state, "queued") || !strcmp(state, "running"));
	double fin = cJSON_GetNumberValue(cJSON_GetObjectItem(st, "finished_ms"));
	if (st && !going)       /* its idle time counts from the run's end */
		ws_used_at(id, fin == fin ? (time_t)(fin / 1000) : time(NULL));
	int scratch;
	time_t when = going ? 0 : ws_expires(id, &scratch);
	char note[1000], at[32];
	scratch_note(id, when, note, sizeof note);
	cJSON_AddBoolToObject(res, "workspace_scratch", 1);
	if (when) {
		tool_iso_time(when, at, sizeof at);
		cJSON_AddStringToObject(res, "workspace_expires_at", at);
	}
	cJSON_AddStringToObject(res, "workspace_note", note);
	return note_after(text, note);
}

char *tool_ws_dropped(cJSON *res, char *text)
{
	const char *id = cJSON_GetStringValue(cJSON_GetObjectItem(res, "workspace_id"));
	if (!id)
		return text;
	char note[600];
	int gone = tool_ws_remove(id, "its run asked keep_workspace false") == 0;
	int files = cJSON_GetArraySize(cJSON_GetObjectItem(res, "files")) > 0;
	if (gone)
		snprintf(note, sizeof note, "Workspace %s was removed with all its files when this "
			 "result was made (keep_workspace false)%s", id, files ? ": the files "
			 "listed are gone. To read a file later, print it in the code, or run "
			 "without keep_workspace false." : ".");
	else
		snprintf(note, sizeof note, "Workspace %s could not be removed (%s): it is "
			 "scratch and goes with the next sweep.", id, strerror(errno));
	cJSON_AddBoolToObject(res, "workspace_removed", gone);
	cJSON_AddStringToObject(res, "workspace_note", note);
	return note_after(text, note);
}

void tool_ws_reply(struct proto_req *r, cJSON *res, const char *text)
{
	char *t = tool_ws_scratch(res, NULL, xstrdup(text));
	tool_reply(r, res, t, 0);
	free(t);
}
