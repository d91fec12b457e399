/* files.c - the workspace file tools: list_workspaces, delete_workspace,
 * list_files, read_file, write_file, edit_file, delete_path.
 *
 * sr-mcp runs outside the sandbox with all the user's rights, and the
 * code in the sandbox can leave anything in a workspace: symbolic links
 * to the user's files, hard links, fifos, sockets, a link swapped in
 * between two calls. So no path is ever looked up by the C library's
 * rules here. The workspace is opened from the workspaces directory with
 * openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS),
 * and every path inside it is looked up by the kernel, beneath that
 * descriptor, with the same rules: a "..", an absolute path or a
 * symbolic link anywhere on the way (the last component too) fails in
 * the kernel, whatever the string looks like and whenever it changed.
 * Files are opened O_NOFOLLOW | O_NONBLOCK (a fifo never blocks), checked
 * with fstat (a regular file with one link only) before a byte is read
 * or written, and never truncated before that check. Trees are walked
 * and removed with openat(O_NOFOLLOW | O_DIRECTORY), fstatat
 * (AT_SYMLINK_NOFOLLOW) and unlinkat: a link is removed, never followed.
 * The string checks below only give a clearer message earlier. */
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

#include "tool.h"
#include "sr.h"

/* The workspace file tools (files.c). Paths are relative to /workspace;
 * no symbolic link is followed. read_file has no outputSchema and returns
 * no structuredContent, so that clients pass its image blocks on. */

const char list_workspaces_def[] =
"{\"name\":\"list_workspaces\",\"title\":\"List workspaces\","
"\"description\":\"The workspaces there are, with the bytes and number of files in each, when "
"it was created, when a file in it last changed, its size quota, when it was last used and when it expires (a workspace "
"unused for the server's retention time is removed). A page holds at most 200; next_offset, when "
"there are more, is the offset that lists them.\","
"\"inputSchema\":{\"type\":\"object\",\"properties\":{\"offset\":{\"type\":\"integer\",\"minimum\":0,"
"\"description\":\"Workspaces to pass over: a previous page's next_offset (default 0).\"}},\"additionalProperties\":false},"
"\"outputSchema\":{\"type\":\"object\",\"properties\":{\"workspaces\":{\"type\":\"array\",\"items\":"
"{\"type\":\"object\",\"properties\":{\"workspace_id\":{\"type\":\"string\"},"
"\"created\":{\"type\":[\"string\",\"null\"],\"description\":\"ISO 8601, UTC (null: the file system does not keep it).\"},"
"\"bytes\":{\"type\":\"integer\"},"
"\"files\":{\"type\":\"integer\"},\"modified\":{\"type\":\"string\",\"description\":\"ISO 8601, UTC.\"},"
"\"partial\":{\"type\":\"boolean\"},\"quota\":{\"type\":[\"integer\",\"null\"],\"description\":\"Its size cap in bytes (null: none).\"},"
"\"inode_quota\":{\"type\":[\"integer\",\"null\"],\"description\":\"The most files, directories and links it may hold (null: no cap).\"},"
"\"last_used\":{\"type\":\"string\",\"description\":\"The last run or file write, ISO 8601, UTC.\"},"
"\"expires_at\":{\"type\":[\"string\",\"null\"],\"description\":\"When it is removed if unused until then (null: never).\"}},\"required\":[\"workspace_id\",\"bytes\",\"files\",\"modified\"]}},"
"\"next_offset\":{\"type\":\"integer\",\"description\":\"Pass it as offset for the next page.\"}},"
"\"required\":[\"workspaces\"]},"
"\"annotations\":{\"title\":\"List workspaces\",\"readOnlyHint\":true,\"idempotentHint\":true,\"openWorldHint\":false}}";

const char delete_workspace_def[] =
"{\"name\":\"delete_workspace\",\"title\":\"Delete a workspace\","
"\"description\":\"Remove a workspace and every file in it (links are removed, never followed). "
"Refused while a job of the workspace is queued or running.\","
"\"inputSchema\":{\"type\":\"object\",\"properties\":{" WS_ARG "},"
"\"required\":[\"workspace_id\"],\"additionalProperties\":false},"
"\"outputSchema\":{\"type\":\"object\",\"properties\":{\"workspace_id\":{\"type\":\"string\"},"
"\"deleted\":{\"type\":\"boolean\"}},\"required\":[\"workspace_id\",\"deleted\"]},"
"\"annotations\":{\"title\":\"Delete workspace\",\"readOnlyHint\":false,\"destructiveHint\":true,"
"\"idempotentHint\":false,\"openWorldHint\":false}}";

const char list_files_def[] =
"{\"name\":\"list_files\",\"title\":\"List files in a workspace\","
"\"description\":\"The entries of a directory of a workspace (path, default the root), or of its "
"whole tree with recursive: type (file, dir, symlink with its target, or other), bytes and mtime. "
"glob filters by name (*.csv), or by path from the directory when it has a / (src/*.py). A page "
"holds at most 1000 entries and stays under the result cap: when truncated, next_offset is the "
"offset that gives the next page (the order is by name, depth first). A path over 4095 bytes is "
"cut (path_cut).\","
"\"inputSchema\":{\"type\":\"object\",\"properties\":{" WS_ARG "," PATH_ARG ","
"\"recursive\":{\"type\":\"boolean\",\"description\":\"List the whole tree (default false).\"},"
"\"offset\":{\"type\":\"integer\",\"minimum\":0,\"description\":\"Entries to pass over: a previous page's next_offset (default 0).\"},"
"\"glob\":{\"type\":\"string\",\"description\":\"Only entries that match, e.g. *.png.\"}},"
"\"required\":[\"workspace_id\"],\"additionalProperties\":false},"
"\"outputSchema\":{\"type\":\"object\",\"properties\":{\"workspace_id\":{\"type\":\"string\"},"
"\"path\":{\"type\":\"string\"},\"entries\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
"\"path\":{\"type\":\"string\"},\"type\":{\"type\":\"string\",\"enum\":[\"file\",\"dir\",\"symlink\",\"other\"]},"
"\"bytes\":{\"type\":\"integer\"},\"mtime\":{\"type\":\"string\"},\"target\":{\"type\":\"string\"},"
"\"kind\":{\"type\":\"string\"},\"links\":{\"type\":\"integer\"},\"invalid_utf8\":{\"type\":\"boolean\"},"
"\"path_cut\":{\"type\":\"boolean\",\"description\":\"The path was too long: path is its deepest ancestor's, then /....\"}},"
"\"required\":[\"path\",\"type\",\"bytes\",\"mtime\"]}},\"truncated\":{\"type\":\"boolean\"},"
"\"offset\":{\"type\":\"integer\"},\"next_offset\":{\"type\":\"integer\",\"description\":\"Pass it as offset for the next page.\"},"
"\"note\":{\"type\":\"string\"}},"
"\"required\":[\"workspace_id\",\"entries\",\"truncated\"]},"
"\"annotations\":{\"title\":\"List files\",\"readOnlyHint\":true,\"idempotentHint\":true,\"openWorldHint\":false}}";

const char read_file_def[] =
"{\"name\":\"read_file\",\"title\":\"Read a file of a workspace\","
"\"description\":\"Read a file of a workspace. Text comes with line numbers and a note \\\"lines a-b "
"of N\\\"; offset_line (1-based) and limit_lines (default 2000) read a part. A PNG, JPEG, GIF or "
"WebP image (up to 700 KB) comes back as an image you can see. Other binary files are described, "
"not shown. Files over 10 MiB are refused: use run_code for those.\","
"\"inputSchema\":{\"type\":\"object\",\"properties\":{" WS_ARG "," PATH_ARG ","
"\"offset_line\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"The first line to show (default 1).\"},"
"\"limit_lines\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"How many lines at most (default 2000).\"}},"
"\"required\":[\"workspace_id\",\"path\"],\"additionalProperties\":false},"
"\"annotations\":{\"title\":\"Read file\",\"readOnlyHint\":true,\"idempotentHint\":true,\"openWorldHint\":false}}";

const char write_file_def[] =
"{\"name\":\"write_file\",\"title\":\"Write a file into a workspace\","
"\"description\":\"Write content to a file of a workspace (replacing it, or at its end with append), "
"making the missing directories on its path. The workspace is made if it does not exist; run_code "
"with the same workspace_id sees the file under /workspace. encoding base64 writes binary data.\","
"\"inputSchema\":{\"type\":\"object\",\"properties\":{" WS_ARG "," PATH_ARG ","
"\"content\":{\"type\":\"string\",\"description\":\"The file's content.\"},"
"\"encoding\":{\"type\":\"string\",\"enum\":[\"utf8\",\"base64\"],\"description\":\"How content is encoded (default utf8).\"},"
"\"append\":{\"type\":\"boolean\",\"description\":\"Add to the end instead of replacing (default false).\"}},"
"\"required\":[\"workspace_id\",\"path\",\"content\"],\"additionalProperties\":false},"
"\"outputSchema\":{\"type\":\"object\",\"properties\":{\"workspace_id\":{\"type\":\"string\"},"
"\"path\":{\"type\":\"string\"},\"bytes\":{\"type\":\"integer\",\"description\":\"Bytes written.\"},"
"\"size\":{\"type\":\"integer\",\"description\":\"The file's size now.\"}},"
"\"required\":[\"workspace_id\",\"path\",\"bytes\"]},"
"\"annotations\":{\"title\":\"Write file\",\"readOnlyHint\":false,\"destructiveHint\":true,"
"\"idempotentHint\":false,\"openWorldHint\":false}}";

const char edit_file_def[] =
"{\"name\":\"edit_file\",\"title\":\"Edit a file of a workspace\","
"\"description\":\"Replace old_string by new_string in a file of a workspace. old_string must occur "
"exactly once (give enough surrounding text), unless replace_all replaces every occurrence.\","
"\"inputSchema\":{\"type\":\"object\",\"properties\":{" WS_ARG "," PATH_ARG ","
"\"old_string\":{\"type\":\"string\",\"description\":\"The text to replace, exactly as it is in the file.\"},"
"\"new_string\":{\"type\":\"string\",\"description\":\"The text to put instead.\"},"
"\"replace_all\":{\"type\":\"boolean\",\"description\":\"Replace every occurrence (default false).\"}},"
"\"required\":[\"workspace_id\",\"path\",\"old_string\",\"new_string\"],\"additionalProperties\":false},"
"\"outputSchema\":{\"type\":\"object\",\"properties\":{\"workspace_id\":{\"type\":\"string\"},"
"\"path\":{\"type\":\"string\"},\"replacements\":{\"type\":\"integer\"},\"bytes\":{\"type\":\"integer\"}},"
"\"required\":[\"workspace_id\",\"path\",\"replacements\"]},"
"\"annotations\":{\"title\":\"Edit file\",\"readOnlyHint\":false,\"destructiveHint\":false,"
"\"idempotentHint\":false,\"openWorldHint\":false}}";

const char delete_path_def[] =
"{\"name\":\"delete_path\",\"title\":\"Delete a file or directory of a workspace\","
"\"description\":\"Remove a file, or a directory and everything in it, from a workspace. A symbolic "
"link is removed itself; what it points to is never touched.\","
"\"inputSchema\":{\"type\":\"object\",\"properties\":{" WS_ARG "," PATH_ARG "},"
"\"required\":[\"workspace_id\",\"path\"],\"additionalProperties\":false},"
"\"outputSchema\":{\"type\":\"object\",\"properties\":{\"workspace_id\":{\"type\":\"string\"},"
"\"path\":{\"type\":\"string\"},\"type\":{\"type\":\"string\"}},"
"\"required\":[\"workspace_id\",\"path\",\"type\"]},"
"\"annotations\":{\"title\":\"Delete path\",\"readOnlyHint\":false,\"destructiveHint\":true,"
"\"idempotentHint\":false,\"openWorldHint\":false}}";

#define FILE_MAX (10U << 20)           /* read_file, edit_file: at most */
#define IMAGE_MAX IMAGES_MAX
#define LIST_MAX 1000                  /* list_files: entries in a page */
#define WS_PAGE 200                    /* list_workspaces: workspaces in a page */
#define LIST_BUDGET (TOOL_RESULT_BUDGET - 16384)   /* list_files, list_workspaces: a page's bytes */
#define LINE_MAX_CHARS 2000            /* read_file: a longer line is cut */

/* ---- answers ---------------------------------------------------------- */




/* Arguments: 1 found and good, 0 absent, -1 wrong (answered). */


static void iso_time(time_t t, char *buf, size_t len)
{
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void text_add(char **b, size_t *len, size_t *cap, const char *s)
{
	size_t n = strlen(s);
	if (*len + n + 1 > *cap) {
		*cap = (*len + n + 1) * 2;
		*b = realloc(*b, *cap);
		if (!*b)
			sr_fatal(SR_EXIT_SYS, "out of memory");
	}
	memcpy(*b + *len, s, n + 1);
	*len += n;
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

void files_list_workspaces(struct proto_req *r, const cJSON *args)
{
	double from = 0;
	if (tool_arg_num(r, "list_workspaces", args, "offset", 0, &from) < 0)
		return;
	int root = open(cfg.workspaces, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (root < 0) {
		tool_error(r, "unable to open %s: %s", cfg.workspaces, strerror(errno));
		return;
	}
	DIR *d = fdopendir(root);
	if (!d) {
		close(root);
		tool_error(r, "unable to read %s: %s", cfg.workspaces, strerror(errno));
		return;
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
	cJSON *res = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(res, "workspaces");
	size_t tlen = 0, tcap = 256, bytes = 1000, i = 0, shown = 0;
	char *text = xmalloc(tcap);
	text[0] = '\0';
	for (; i < n && i < (size_t)from; i++)
		free(names[i]);
	for (; i < n; i++) {
		struct stat st;
		if (shown >= WS_PAGE || bytes > LIST_BUDGET)
			break;
		int fd = fs_openat2(dirfd(d), names[i], O_RDONLY | O_DIRECTORY, 0);
		if (fd < 0 || fstat(fd, &st) < 0) {
			if (fd >= 0)
				close(fd);
			free(names[i]);
			continue;   /* not a directory, or a link: not a workspace */
		}
		/* created: the directory's birth time, where the file system keeps one */
		struct statx sx;
		char born[32] = "";
		if (statx(fd, "", AT_EMPTY_PATH, STATX_BTIME, &sx) == 0 && (sx.stx_mask & STATX_BTIME))
			iso_time((time_t)sx.stx_btime.tv_sec, born, sizeof born);
		struct usage u = { 0, 0, st.st_mtime };
		struct fs_walk w = { .fn = count, .recursive = 1, .no_rel = 1, .ctx = &u };
		fs_walk(&w, fd);
		char when[32];
		iso_time(u.newest, when, sizeof when);
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "workspace_id", names[i]);
		if (born[0])
			cJSON_AddStringToObject(o, "created", born);
		else
			cJSON_AddNullToObject(o, "created");
		cJSON_AddNumberToObject(o, "bytes", (double)u.bytes);
		cJSON_AddNumberToObject(o, "files", (double)u.files);
		cJSON_AddStringToObject(o, "modified", when);
		if (w.cut)
			cJSON_AddBoolToObject(o, "partial", 1);
		char quota[48] = "", used[32], expires[32] = "never";
		if (cfg.ws_quota) {
			cJSON_AddNumberToObject(o, "quota", (double)cfg.ws_quota);
			snprintf(quota, sizeof quota, " of %llu", (unsigned long long)cfg.ws_quota);
		} else {
			cJSON_AddNullToObject(o, "quota");
		}
		if (cfg.ws_quota && cfg.ws_inodes)
			cJSON_AddNumberToObject(o, "inode_quota", (double)cfg.ws_inodes);
		else
			cJSON_AddNullToObject(o, "inode_quota");
		time_t last = ws_last_used(names[i]);
		iso_time(last, used, sizeof used);
		cJSON_AddStringToObject(o, "last_used", used);
		if (cfg.ws_ttl_ms) {
			iso_time(last + (time_t)(cfg.ws_ttl_ms / 1000), expires, sizeof expires);
			cJSON_AddStringToObject(o, "expires_at", expires);
		} else {
			cJSON_AddNullToObject(o, "expires_at");
		}
		cJSON_AddItemToArray(arr, o);
		bytes += 2 * tool_json_size(o);
		shown++;
		char line[300];
		int m = snprintf(line, sizeof line, "%s  created %s, %llu files, %llu%s bytes, "
				 "modified %s%s, last used %s, expires %s\n", names[i], born[0] ? born : "?",
				 (unsigned long long)u.files, (unsigned long long)u.bytes, quota,
				 when, w.cut ? " (counted in part)" : "", used, expires);
		if (tlen + (size_t)m + 1 > tcap) {
			tcap = (tlen + (size_t)m + 1) * 2;
			text = realloc(text, tcap);
			if (!text)
				sr_fatal(SR_EXIT_SYS, "out of memory");
		}
		memcpy(text + tlen, line, (size_t)m + 1);
		tlen += (size_t)m;
		free(names[i]);
	}
	if (i < n) {
		char more[200];
		cJSON_AddNumberToObject(res, "next_offset", (double)i);
		snprintf(more, sizeof more, "[... %zu more workspaces: list_workspaces with offset %zu "
			 "lists them ...]\n", n - i, i);
		text_add(&text, &tlen, &tcap, more);
	}
	for (; i < n; i++)
		free(names[i]);
	free(names);
	closedir(d);
	tool_reply(r, res, tlen ? text : from ? "no workspaces from this offset" :
		   "no workspaces yet (run_code or write_file makes one)", 0);
	free(text);
}

void files_delete_workspace(struct proto_req *r, const cJSON *args)
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
		tool_error(r, "workspace %s: unable to tell whether a job uses it (sr-queue list "
			   "failed; see sr-mcp's log): not deleted, try again", ws);
		return;
	}
	if (busy) {
		tool_error(r, "workspace %s is in use by job %s (queued or running): cancel_job it or "
		     "wait for it to end, then delete the workspace", ws, job);
		return;
	}
	int root = open(cfg.workspaces, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (root < 0 || sr_remove_tree(root, ws) < 0) {
		int e = errno;
		if (root >= 0)
			close(root);
		tool_error(r, "workspace %s could not be removed entirely: %s", ws, strerror(e));
		return;
	}
	close(root);
	cJSON *res = cJSON_CreateObject();
	cJSON_AddStringToObject(res, "workspace_id", ws);
	cJSON_AddBoolToObject(res, "deleted", 1);
	ws_size_remove(ws);
	snprintf(err, sizeof err, "workspace %s deleted", ws);
	tool_reply(r, res, err, 0);
}

/* ---- list_files ---------------------------------------------------------- */

struct listing {
	cJSON *entries;
	const char *base;     /* the listed path, "" for the root */
	const char *glob;
	size_t skip;          /* matching entries before this page */
	size_t matched;       /* matching entries met */
	size_t bytes;         /* the page's size, both blocks */
	int n, truncated;
	char *text;
	size_t tlen, tcap;
};

static const char *type_of(mode_t m)
{
	return S_ISREG(m) ? "file" : S_ISDIR(m) ? "dir" : S_ISLNK(m) ? "symlink" : "other";
}

static const char *kind_of(mode_t m)
{
	return S_ISFIFO(m) ? "fifo" : S_ISSOCK(m) ? "socket" : "device";
}

/* An entry's object and its line of text; a path cut (w->rel_cut) is
 * its deepest ancestor's, followed by "/...", and marked path_cut. */
static cJSON *entry(struct fs_walk *w, int dirfd, const char *name, const char *rel,
		    const struct stat *st, char **line)
{
	struct listing *l = w->ctx;
	char when[32], *path = NULL, *target = NULL, *t = NULL;
	if (asprintf(&path, "%s%s%s%s", l->base, *l->base && *rel ? "/" : "", rel,
		     !w->rel_cut ? "" : *l->base || *rel ? "/..." : "...") < 0)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	iso_time(st->st_mtime, when, sizeof when);
	int rep = 0;
	char *p = text_clean(path, strlen(path), &rep);   /* a name need not be UTF-8 */
	free(path);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "path", p);
	if (rep)
		cJSON_AddBoolToObject(o, "invalid_utf8", 1);
	if (w->rel_cut)
		cJSON_AddBoolToObject(o, "path_cut", 1);
	cJSON_AddStringToObject(o, "type", type_of(st->st_mode));
	cJSON_AddNumberToObject(o, "bytes", S_ISDIR(st->st_mode) ? 0 : (double)st->st_size);
	cJSON_AddStringToObject(o, "mtime", when);
	if (S_ISLNK(st->st_mode) && !w->rel_cut) {
		char buf[4097];
		ssize_t k = readlinkat(dirfd, name, buf, sizeof buf - 1);
		buf[k > 0 ? k : 0] = '\0';
		t = text_clean(buf, strlen(buf), &rep);
		cJSON_AddStringToObject(o, "target", t);
	}
	if (!S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode) && !S_ISLNK(st->st_mode))
		cJSON_AddStringToObject(o, "kind", kind_of(st->st_mode));
	if (S_ISREG(st->st_mode) && st->st_nlink > 1)
		cJSON_AddNumberToObject(o, "links", (double)st->st_nlink);
	if (asprintf(&target, "%s%s%s%s%s", t ? " -> " : "", t ? t : "",
		     t ? " (not followed)" : "",
		     !t && !S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode) && !S_ISLNK(st->st_mode) ?
		     " " : "", !t && !S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode) &&
		     !S_ISLNK(st->st_mode) ? kind_of(st->st_mode) : "") < 0 ||
	    asprintf(line, "%-7s %10lld  %s  %s%s%s%s\n", type_of(st->st_mode),
		     S_ISDIR(st->st_mode) ? 0LL : (long long)st->st_size, when, p,
		     S_ISDIR(st->st_mode) && !w->rel_cut ? "/" : "", target,
		     w->rel_cut ? " (path cut: too long to list; run_code reaches it)" : "") < 0)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	free(p);
	free(t);
	free(target);
	return o;
}

static void list_one(struct fs_walk *w, int dirfd, const char *name, const char *rel,
		     const struct stat *st)
{
	struct listing *l = w->ctx;
	if (l->glob && (w->rel_cut || fnmatch(l->glob, strchr(l->glob, '/') ? rel : name, 0)))
		return;
	if (++l->matched <= l->skip)
		return;
	char *line;
	cJSON *o = l->n < LIST_MAX ? entry(w, dirfd, name, rel, st, &line) : NULL;
	size_t cost = o ? tool_json_size(o) + 1 + tool_json_str_size(line) : 0;
	if (!o || l->bytes + cost > LIST_BUDGET) {
		if (o) {
			cJSON_Delete(o);
			free(line);
		}
		l->truncated = 1;
		w->stop = 1;
		return;
	}
	l->bytes += cost;
	cJSON_AddItemToArray(l->entries, o);
	l->n++;
	text_add(&l->text, &l->tlen, &l->tcap, line);
	free(line);
}

void files_list(struct proto_req *r, const cJSON *args)
{
	const char *T = "list_files", *ws, *path = ".", *glob = NULL;
	int recursive = 0;
	double from = 0;
	char err[1200];
	if (tool_arg_ws(r, T, args, &ws) < 0 || tool_arg_str(r, T, args, "path", &path) < 0 ||
	    tool_arg_str(r, T, args, "glob", &glob) < 0 ||
	    tool_arg_bool(r, T, args, "recursive", &recursive) < 0 ||
	    tool_arg_num(r, T, args, "offset", 0, &from) < 0)
		return;
	if (glob && !*glob)
		glob = NULL;
	if (glob && strlen(glob) > 4000) {
		tool_bad_args(r, T, "glob is too long (at most 4000 bytes)");
		return;
	}
	const char *rel = fs_rel_path(path, err, sizeof err);
	if (!rel) {
		tool_error(r, "%s", err);
		return;
	}
	int wfd = ws_open(ws, 0, err, sizeof err);
	if (wfd < 0) {
		tool_error(r, "%s", err);
		return;
	}
	int dfd = fs_openat2(wfd, rel, O_RDONLY | O_DIRECTORY, 0);
	if (dfd < 0) {
		fs_path_why(err, sizeof err, rel, errno);
		close(wfd);
		tool_error(r, "%s", err);
		return;
	}
	close(wfd);
	char base[4096];
	snprintf(base, sizeof base, "%s", strcmp(rel, ".") ? rel : "");
	for (size_t n = strlen(base); n > 0 && base[n - 1] == '/'; n--)
		base[n - 1] = '\0';
	struct listing l = { .base = base, .glob = glob, .text = xstrdup(""), .tcap = 1,
			     .skip = (size_t)from, .bytes = 2 * strlen(base) + 1000 };
	cJSON *res = cJSON_CreateObject();
	cJSON_AddStringToObject(res, "workspace_id", ws);
	cJSON_AddStringToObject(res, "path", *base ? base : ".");
	cJSON_AddNumberToObject(res, "offset", (double)l.skip);
	l.entries = cJSON_AddArrayToObject(res, "entries");
	struct fs_walk w = { .fn = list_one, .recursive = recursive || (glob && strchr(glob, '/')),
			  .rel_max = FS_REL_MAX - strlen(base) - 1, .ctx = &l };
	fs_walk(&w, dfd);
	cJSON_AddBoolToObject(res, "truncated", l.truncated || w.cut);
	char note[700] = "";
	if (l.truncated) {
		cJSON_AddNumberToObject(res, "next_offset", (double)(l.skip + (size_t)l.n));
		snprintf(note, sizeof note, "[... more entries: this page holds %d (at most %d, and "
			 "under the result cap); list_files with offset %zu gives the next page, "
			 "or narrow with path or glob ...]\n", l.n, LIST_MAX, l.skip + (size_t)l.n);
	}
	if (w.cut)
		snprintf(note + strlen(note), sizeof note - strlen(note), "[... not every entry "
			 "is listed: a walk looks at %d entries at most, and a path longer than %d "
			 "bytes is cut (path_cut); list a deeper directory with path, or use "
			 "run_code ...]\n", FS_WALK_MAX, FS_REL_MAX);
	if (*note)
		cJSON_AddStringToObject(res, "note", note);
	if (!l.n && !l.skip)
		text_add(&l.text, &l.tlen, &l.tcap, "(no entries)\n");
	else if (!l.n)
		text_add(&l.text, &l.tlen, &l.tcap, "(no entries from this offset)\n");
	text_add(&l.text, &l.tlen, &l.tcap, note);
	tool_reply(r, res, l.text, 0);
	free(l.text);
}

/* ---- read_file ----------------------------------------------------------- */

/* Decoded into a new buffer (length in *len), or NULL if not base64. */
static unsigned char *unbase64(const char *s, size_t *len)
{
	size_t n = strlen(s);
	unsigned char *o = xmalloc(n / 4 * 3 + 3);
	unsigned v = 0;
	int bits = 0, pad = 0;
	size_t k = 0;
	for (const char *c = s; *c; c++) {
		int d;
		if (*c >= 'A' && *c <= 'Z') d = *c - 'A';
		else if (*c >= 'a' && *c <= 'z') d = *c - 'a' + 26;
		else if (*c >= '0' && *c <= '9') d = *c - '0' + 52;
		else if (*c == '+' || *c == '-') d = 62;
		else if (*c == '/' || *c == '_') d = 63;
		else if (*c == '=') { pad++; continue; }
		else if (*c == '\n' || *c == '\r' || *c == ' ' || *c == '\t') continue;
		else { free(o); return NULL; }
		if (pad) {       /* data after padding */
			free(o);
			return NULL;
		}
		v = v << 6 | (unsigned)d;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			o[k++] = (unsigned char)(v >> bits);
		}
	}
	*len = k;
	return o;
}

static const char *binary_type(const unsigned char *p, size_t n)
{
	static const struct { const char *magic; size_t len; const char *what; } m[] = {
		{ "%PDF", 4, "a PDF document" }, { "PK\3\4", 4, "a ZIP archive (or docx/xlsx/jar)" },
		{ "\x1f\x8b", 2, "gzip data" }, { "\x7f" "ELF", 4, "an ELF executable" },
		{ "BZh", 3, "bzip2 data" }, { "\xfd" "7zXZ", 5, "xz data" },
		{ "SQLite format 3", 15, "an SQLite database" }, { "\x93NUMPY", 6, "a NumPy array" },
		{ "\x80", 1, "a Python pickle (perhaps)" }, { "BM", 2, "a BMP image (not shown)" },
		{ "II*\0", 4, "a TIFF image (not shown)" }, { "MM\0*", 4, "a TIFF image (not shown)" },
	};
	for (size_t i = 0; i < sizeof m / sizeof *m; i++)
		if (n >= m[i].len && !memcmp(p, m[i].magic, m[i].len))
			return m[i].what;
	return "binary data of an unknown type";
}

static void append(char **b, size_t *len, size_t *cap, const char *s, size_t n)
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

/* A result with content blocks only: no structuredContent, so that a
 * client passes an image block on to the model as it is. */
static cJSON *blocks_result(const char *text)
{
	cJSON *out = cJSON_CreateObject(), *content = cJSON_AddArrayToObject(out, "content");
	cJSON *t = cJSON_CreateObject();
	cJSON_AddStringToObject(t, "type", "text");
	cJSON_AddStringToObject(t, "text", text);
	cJSON_AddItemToArray(content, t);
	cJSON_AddBoolToObject(out, "isError", 0);
	return out;
}

/* The file PATH of workspace WS, opened with flags and fstat'ed into st,
 * its path in the workspace in *rel; -1 when it cannot be (answered). */
static int open_arg_file(struct proto_req *r, const char *ws, const char *path, int flags,
			 struct stat *st, const char **rel)
{
	char err[1200];
	*rel = fs_rel_path(path, err, sizeof err);
	int wfd = *rel ? ws_open(ws, 0, err, sizeof err) : -1;
	int fd = wfd >= 0 ? fs_file_open(wfd, *rel, *rel, flags, st, err, sizeof err) : -1;
	if (wfd >= 0)
		close(wfd);
	if (fd < 0)
		tool_error(r, "%s", err);
	return fd;
}

void files_read(struct proto_req *r, const cJSON *args)
{
	const char *T = "read_file", *ws, *path = NULL;
	double from = 1, limit = 2000;
	struct stat st;
	if (tool_arg_ws(r, T, args, &ws) < 0 || tool_arg_str(r, T, args, "path", &path) < 0 ||
	    tool_arg_num(r, T, args, "offset_line", 1, &from) < 0 ||
	    tool_arg_num(r, T, args, "limit_lines", 1, &limit) < 0)
		return;
	if (!path) {
		tool_bad_args(r, T, "path is required (relative to /workspace)");
		return;
	}
	const char *rel;
	int fd = open_arg_file(r, ws, path, O_RDONLY, &st, &rel);
	if (fd < 0)
		return;
	if ((uint64_t)st.st_size > FILE_MAX) {
		close(fd);
		tool_error(r, "%s: %lld bytes, over read_file's cap of 10 MiB (%u bytes): read a part "
		     "with run_code (head, sed -n, or Python)", rel, (long long)st.st_size, FILE_MAX);
		return;
	}
	size_t n;
	unsigned char *p = (unsigned char *)fs_read_fd(fd, (size_t)st.st_size, &n);
	close(fd);
	const char *mime = images_type(p, n);
	char note[1400];
	if (mime) {
		if (n > IMAGE_MAX) {
			tool_error(r, "%s: %s of %zu bytes, over read_file's image cap of %u KB (a result "
			     "must stay under 1 MiB as base64): make it smaller with run_code "
			     "(a lower resolution or JPEG), then read it", rel, mime, n,
			     IMAGE_MAX >> 10);
			free(p);
			return;
		}
		snprintf(note, sizeof note, "%s: %s, %zu bytes", rel, mime, n);
		cJSON *out = blocks_result(note), *img = cJSON_CreateObject();
		char *b64 = text_base64(p, n);
		cJSON_AddStringToObject(img, "type", "image");
		cJSON_AddStringToObject(img, "data", b64);
		cJSON_AddStringToObject(img, "mimeType", mime);
		cJSON_AddItemToArray(cJSON_GetObjectItem(out, "content"), img);
		free(b64);
		free(p);
		proto_result(r, out);
		return;
	}
	if (memchr(p, '\0', n < 8192 ? n : 8192)) {
		snprintf(note, sizeof note, "%s: %s, %zu bytes; not shown as text. Use run_code "
			 "to look into it (e.g. python, xxd or file).", rel, binary_type(p, n), n);
		free(p);
		proto_result(r, blocks_result(note));
		return;
	}
	/* Text: numbered lines from offset_line, as many as fit. */
	size_t total = 0;
	for (size_t i = 0; i < n; i++)
		if (p[i] == '\n')
			total++;
	if (n && p[n - 1] != '\n')
		total++;
	if (total == 0) {
		snprintf(note, sizeof note, "%s: empty file (0 lines)", rel);
		free(p);
		proto_result(r, blocks_result(note));
		return;
	}
	if (from > (double)total) {
		free(p);
		tool_error(r, "%s has %zu lines: offset_line %.0f is past its end", rel, total, from);
		return;
	}
	size_t budget = cfg.max_chars > 400 ? cfg.max_chars - 300 : 100;
	size_t first = (size_t)from, last = first - 1, line = 1, len = 0, cap = 0;
	int replaced = 0, cut = 0, budget_hit = 0;
	char *out = NULL;
	append(&out, &len, &cap, "", 0);
	for (size_t i = 0; i < n && line < first + (size_t)limit; line++) {
		unsigned char *nl = memchr(p + i, '\n', n - i);
		size_t ll = nl ? (size_t)(nl - (p + i)) : n - i;
		if (line >= first) {
			size_t show = ll > LINE_MAX_CHARS ? LINE_MAX_CHARS : ll;
			while (show < ll && show > 0 && (p[i + show] & 0xc0) == 0x80)
				show--;    /* cut on a character boundary */
			char *t = text_clean((char *)p + i, show, &replaced);
			char num[32];
			int m = snprintf(num, sizeof num, "%6zu\t", line);
			size_t need = (size_t)m + strlen(t) + 40;
			if (len + need > budget) {
				free(t);
				budget_hit = 1;
				break;
			}
			append(&out, &len, &cap, num, (size_t)m);
			append(&out, &len, &cap, t, strlen(t));
			if (show < ll) {
				char more[64];
				int k = snprintf(more, sizeof more, " [... %zu more bytes on this line]",
						 ll - show);
				append(&out, &len, &cap, more, (size_t)k);
				cut = 1;
			}
			append(&out, &len, &cap, "\n", 1);
			free(t);
			last = line;
		}
		i += ll + 1;
	}
	free(p);
	if (last < first) {
		free(out);
		tool_error(r, "%s: line %zu alone is longer than this server's result cap (%zu "
		     "characters): read it with run_code", rel, first, cfg.max_chars);
		return;
	}
	char foot[600], more[64] = "";
	if (last < total)
		snprintf(more, sizeof more, "; more with offset_line %zu", last + 1);
	snprintf(foot, sizeof foot, "(%s: lines %zu-%zu of %zu%s%s%s%s)", rel, first, last, total,
		 more, budget_hit ? " (the rest did not fit this result)" : "",
		 cut ? "; long lines were cut" : "",
		 replaced ? "; bytes that are not UTF-8 are shown as U+FFFD" : "");
	append(&out, &len, &cap, foot, strlen(foot));
	proto_result(r, blocks_result(out));
	free(out);
}

/* ---- write_file, edit_file, delete_path -------------------------------- */

/* Would a file of old bytes becoming n bytes, and made inodes more (the
 * file and directories on the way), take the workspace (wfd) past its
 * quota? Then 1, answered. */
static int over_quota(struct proto_req *r, const char *ws, int wfd, const char *rel, uint64_t old,
		      uint64_t n, uint64_t made)
{
	struct sr_usage u;
	if (!cfg.ws_quota)
		return 0;
	ws_size(ws, wfd, &u);
	uint64_t after = u.bytes - (old < u.bytes ? old : u.bytes) + n;
	if (made && cfg.ws_inodes && u.inodes + made > cfg.ws_inodes) {
		tool_error(r, "%s: not written: workspace %s holds %llu files, directories and "
			   "links, and its inode quota is %llu; this write would make %llu more. "
			   "Delete what you no longer need (delete_path) or use a new workspace.",
			   rel, ws, (unsigned long long)u.inodes,
			   (unsigned long long)cfg.ws_inodes, (unsigned long long)made);
		return 1;
	}
	if (after <= cfg.ws_quota || n <= old)
		return 0;
	tool_error(r, "%s: not written: workspace %s would hold %llu bytes, over its quota of "
		   "%llu bytes (%llu MiB). Delete files (delete_path) or write less.", rel, ws,
		   (unsigned long long)after, (unsigned long long)cfg.ws_quota,
		   (unsigned long long)(cfg.ws_quota >> 20));
	return 1;
}

/* What writing name in dir of the workspace wfd makes: the directories
 * missing on the way and the file when it is not there (its size now in
 * *before). */
static uint64_t to_make(int wfd, const char *dir, const char *name, uint64_t *before)
{
	struct stat st;
	char part[4096];
	uint64_t made = 0;
	*before = 0;
	int dfd = fs_dir_open(wfd, dir, 0);
	if (dfd >= 0) {
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			made = 1;
		else if (S_ISREG(st.st_mode))
			*before = (uint64_t)st.st_size;
		close(dfd);
		return made;
	}
	/* each leading part of dir that is not there is a directory to make */
	for (size_t i = 0, n = strlen(dir); i <= n && i < sizeof part; i++) {
		if (dir[i] != '/' && dir[i] != '\0')
			continue;
		snprintf(part, sizeof part, "%.*s", (int)i, dir);
		int fd = i ? fs_dir_open(wfd, part, 0) : -1;
		if (fd >= 0)
			close(fd);
		else if (i && errno == ENOENT)
			made++;
	}
	return made + 1;
}

void files_write(struct proto_req *r, const cJSON *args)
{
	const char *T = "write_file", *ws, *path = NULL, *content = NULL, *enc = "utf8";
	int app = 0;
	char err[1200], dir[4096];
	if (tool_arg_ws(r, T, args, &ws) < 0 || tool_arg_str(r, T, args, "path", &path) < 0 ||
	    tool_arg_str(r, T, args, "content", &content) < 0 ||
	    tool_arg_str(r, T, args, "encoding", &enc) < 0 || tool_arg_bool(r, T, args, "append", &app) < 0)
		return;
	if (!path || !content) {
		tool_bad_args(r, T, "path and content are required");
		return;
	}
	if (strcmp(enc, "utf8") && strcmp(enc, "base64")) {
		tool_bad_args(r, T, "encoding must be utf8 or base64");
		return;
	}
	size_t n = strlen(content);
	unsigned char *data = NULL;
	if (!strcmp(enc, "base64") && !(data = unbase64(content, &n))) {
		tool_bad_args(r, T, "content is not valid base64");
		return;
	}
	int hold = ws_hold(0);   /* no idle sweep removes the workspace meanwhile */
	const char *rel = fs_rel_path(path, err, sizeof err), *name = NULL;
	if (rel && !(name = fs_split(rel, dir, sizeof dir)))
		snprintf(err, sizeof err, "%s: not a file name (give the file's path, e.g. "
			 "data/out.csv)", rel);
	int wfd = name ? ws_open(ws, 1, err, sizeof err) : -1, dfd = -1;
	uint64_t before = 0, made = wfd >= 0 ? to_make(wfd, dir, name, &before) : 0;
	if (wfd >= 0 && over_quota(r, ws, wfd, rel, before, app ? before + n : n, made))
		goto out;
	dfd = wfd >= 0 ? fs_dir_open(wfd, dir, 1) : -1;
	if (wfd >= 0 && dfd < 0)
		fs_path_why(err, sizeof err, dir, errno);
	if (wfd >= 0)
		ws_touch(ws);
	struct stat st;
	int fd = dfd >= 0 ? fs_file_open(dfd, name, rel, O_WRONLY | O_CREAT | (app ? O_APPEND : 0), &st,
				      err, sizeof err) : -1;
	if (fd < 0) {
		tool_error(r, "%s", err);
		goto out;
	}
	/* one link, regular: only now is it cut */
	off_t at = app ? st.st_size : 0;
	if ((!app && ftruncate(fd, 0) < 0) || fs_write_at(fd, data ? (void *)data : content, n, at) < 0) {
		tool_error(r, "%s: unable to write: %s", rel, strerror(errno));
		close(fd);
		ws_size_forget(ws);     /* partly written: measured again */
		goto out;
	}
	fstat(fd, &st);
	close(fd);
	ws_size_add(ws, wfd, &(struct sr_delta){ (int64_t)st.st_size - (int64_t)before,
						 (int64_t)made });
	cJSON *res = cJSON_CreateObject();
	cJSON_AddStringToObject(res, "workspace_id", ws);
	cJSON_AddStringToObject(res, "path", rel);
	cJSON_AddNumberToObject(res, "bytes", (double)n);
	cJSON_AddNumberToObject(res, "size", (double)st.st_size);
	snprintf(err, sizeof err, "%s %zu bytes to %s in workspace %s (now %lld bytes; "
		 "/workspace/%s in run_code)", app ? "appended" : "wrote", n, rel, ws,
		 (long long)st.st_size, rel);
	tool_reply(r, res, err, 0);
out:
	ws_release(hold);
	if (dfd >= 0)
		close(dfd);
	if (wfd >= 0)
		close(wfd);
	free(data);
}

void files_edit(struct proto_req *r, const cJSON *args)
{
	const char *T = "edit_file", *ws, *path = NULL, *old = NULL, *new = NULL;
	int all = 0;
	char err[1200];
	struct stat st;
	if (tool_arg_ws(r, T, args, &ws) < 0 || tool_arg_str(r, T, args, "path", &path) < 0 ||
	    tool_arg_str(r, T, args, "old_string", &old) < 0 ||
	    tool_arg_str(r, T, args, "new_string", &new) < 0 ||
	    tool_arg_bool(r, T, args, "replace_all", &all) < 0)
		return;
	if (!path || !old || !new) {
		tool_bad_args(r, T, "path, old_string and new_string are required");
		return;
	}
	if (!*old) {
		tool_bad_args(r, T, "old_string must not be empty (write_file makes a new file)");
		return;
	}
	const char *rel;
	int fd = open_arg_file(r, ws, path, O_RDWR, &st, &rel);
	if (fd < 0)
		return;
	if ((uint64_t)st.st_size > FILE_MAX) {
		close(fd);
		tool_error(r, "%s: %lld bytes, over edit_file's cap of 10 MiB: edit it with run_code",
		     rel, (long long)st.st_size);
		return;
	}
	size_t n, ol = strlen(old), nl = strlen(new), hits = 0;
	char *p = fs_read_fd(fd, (size_t)st.st_size, &n);
	for (const char *q = p; (q = memmem(q, n - (size_t)(q - p), old, ol)); q += ol)
		hits++;
	if (hits == 0 || (hits > 1 && !all)) {
		close(fd);
		free(p);
		if (hits == 0)
			tool_error(r, "%s: old_string was not found (it must match exactly, whitespace "
			     "and indentation included; read_file shows the text)", rel);
		else
			tool_error(r, "%s: old_string occurs %zu times: give more of the surrounding text "
			     "so that it occurs once, or set replace_all to replace every one", rel,
			     hits);
		return;
	}
	size_t outlen = n - hits * ol + hits * nl;
	if (outlen > FILE_MAX) {
		close(fd);
		free(p);
		tool_error(r, "%s: the edited file would be over the cap of 10 MiB", rel);
		return;
	}
	int wfd = ws_open(ws, 0, err, sizeof err);
	int over = wfd >= 0 && over_quota(r, ws, wfd, rel, n, outlen, 0);
	if (over) {
		close(wfd);
		close(fd);
		free(p);
		return;
	}
	char *o = xmalloc(outlen + 1), *w = o;
	const char *q = p, *hit;
	while ((hit = memmem(q, n - (size_t)(q - p), old, ol))) {
		memcpy(w, q, (size_t)(hit - q));
		w += hit - q;
		memcpy(w, new, nl);
		w += nl;
		q = hit + ol;
	}
	memcpy(w, q, n - (size_t)(q - p));
	free(p);
	int bad_io = fs_write_at(fd, o, outlen, 0) < 0 || ftruncate(fd, (off_t)outlen) < 0;
	int e = errno;
	close(fd);
	free(o);
	if (bad_io)
		ws_size_forget(ws);
	else if (wfd >= 0)
		ws_size_add(ws, wfd, &(struct sr_delta){ (int64_t)outlen - (int64_t)n, 0 });
	if (wfd >= 0)
		close(wfd);
	if (bad_io) {
		tool_error(r, "%s: unable to write: %s", rel, strerror(e));
		return;
	}
	cJSON *res = cJSON_CreateObject();
	cJSON_AddStringToObject(res, "workspace_id", ws);
	cJSON_AddStringToObject(res, "path", rel);
	cJSON_AddNumberToObject(res, "replacements", (double)hits);
	cJSON_AddNumberToObject(res, "bytes", (double)outlen);
	snprintf(err, sizeof err, "%s: %zu replacement%s (now %zu bytes)", rel, hits,
		 hits == 1 ? "" : "s", outlen);
	tool_reply(r, res, err, 0);
}

void files_delete_path(struct proto_req *r, const cJSON *args)
{
	const char *T = "delete_path", *ws, *path = NULL, *name = NULL;
	char err[1200], dir[4096];
	struct stat st;
	if (tool_arg_ws(r, T, args, &ws) < 0 || tool_arg_str(r, T, args, "path", &path) < 0)
		return;
	if (!path) {
		tool_bad_args(r, T, "path is required (relative to /workspace)");
		return;
	}
	const char *rel = fs_rel_path(path, err, sizeof err);
	if (rel && !(name = fs_split(rel, dir, sizeof dir)))
		snprintf(err, sizeof err, "%s: not a file or directory name (delete_workspace "
			 "removes a whole workspace)", rel);
	int wfd = name ? ws_open(ws, 0, err, sizeof err) : -1;
	int dfd = wfd >= 0 ? fs_dir_open(wfd, dir, 0) : -1;
	if (wfd >= 0 && dfd < 0)
		fs_path_why(err, sizeof err, rel, errno);
	if (dfd >= 0 && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		fs_path_why(err, sizeof err, rel, errno);
		close(dfd);
		dfd = -1;
	}
	if (dfd < 0) {
		if (wfd >= 0)
			close(wfd);
		tool_error(r, "%s", err);
		return;
	}
	struct sr_usage gone = { 0, 0 };
	if (cfg.ws_quota)
		(void)sr_entry_usage(dfd, name, &gone);
	int rc = sr_remove_tree(dfd, name);
	int e = errno;
	close(dfd);
	if (rc < 0)
		ws_size_forget(ws);
	else if (cfg.ws_quota)
		ws_size_add(ws, wfd, &(struct sr_delta){ -(int64_t)gone.bytes,
							 -(int64_t)gone.inodes });
	close(wfd);
	if (rc < 0) {
		tool_error(r, "%s: could not be removed entirely: %s", rel, strerror(e));
		return;
	}
	cJSON *res = cJSON_CreateObject();
	cJSON_AddStringToObject(res, "workspace_id", ws);
	cJSON_AddStringToObject(res, "path", rel);
	cJSON_AddStringToObject(res, "type", type_of(st.st_mode));
	snprintf(err, sizeof err, "deleted %s %s%s", type_of(st.st_mode), rel,
		 S_ISLNK(st.st_mode) ? " (the link only, not what it points to)" :
		 S_ISDIR(st.st_mode) ? " and everything in it" : "");
	tool_reply(r, res, err, 0);
}
