/* tool_write.c - the workspace file tools that change it: write_file,
 * edit_file, delete_path. How a workspace is written safely: see
 * tool_files.c. */
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
#include "mcp.h"
#include "proto.h"
#include "tool.h"
#include "ws.h"
#include "sr.h"

/* Paths are relative to /workspace; no symbolic link is followed. */

/* ---- write_file, edit_file, delete_path -------------------------------- */

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

/* One call of write_file, edit_file or delete_path, as it goes: its
 * arguments; the plan (the path judged, the file read, what the change
 * makes and takes: before bytes now, n after, made inodes more); refused
 * (over the quota), or carried out; the reply. */
struct wop {
	struct proto_req *r;
	const char *ws, *path;         /* the arguments all three take */
	const char *content;           /* write_file's */
	int app;
	unsigned char *data;           /* content decoded (base64), or NULL */
	const char *old, *new;         /* edit_file's */
	int all;
	const char *rel, *name;        /* the path in the workspace; its last name */
	char dir[4096];                /* its parent directory */
	int wfd, dfd, fd;              /* the workspace, the directory, the file */
	struct stat st;                /* the file */
	char *text;                    /* edit_file: the file's text, then the edited one */
	size_t n, hits;                /* bytes written (edit_file: read); replacements */
	size_t outlen;                 /* edit_file: the edited text's bytes */
	uint64_t before, made;         /* the file's bytes before; inodes made */
	char err[1200];
};

static void wop_close(struct wop *op)
{
	if (op->fd >= 0)
		close(op->fd);
	if (op->dfd >= 0)
		close(op->dfd);
	if (op->wfd >= 0)
		close(op->wfd);
	free(op->data);
	free(op->text);
}

/* Would a file of old bytes becoming n bytes, and made inodes more (the
 * file and directories on the way), take the workspace (op->wfd) past its
 * quota? Then 1, answered. */
static int over_quota(struct wop *op, uint64_t old, uint64_t n, uint64_t made)
{
	struct sr_usage u;
	const char *ws = op->ws, *rel = op->rel;
	if (!cfg.ws_quota)
		return 0;
	ws_size(ws, op->wfd, &u);
	uint64_t after = u.bytes - (old < u.bytes ? old : u.bytes) + n;
	if (made && cfg.ws_inodes && u.inodes + made > cfg.ws_inodes) {
		tool_error(op->r, "%s: not written: workspace %s holds %llu files, directories and "
			   "links, and its inode quota is %llu; this write would make %llu more. "
			   "Delete what you no longer need (delete_path) or use a new workspace.",
			   rel, ws, (unsigned long long)u.inodes,
			   (unsigned long long)cfg.ws_inodes, (unsigned long long)made);
		return 1;
	}
	if (after <= cfg.ws_quota || n <= old)
		return 0;
	tool_error(op->r, "%s: not written: workspace %s would hold %llu bytes, over its quota of "
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

/* write_file's arguments read and checked, base64 content decoded into
 * op->data (op->n bytes, or content's): 0, or -1 (answered). */
static int write_args(struct wop *op, const cJSON *args)
{
	const char *T = "write_file", *enc = "utf8";
	struct proto_req *r = op->r;
	if (tool_arg_ws(r, T, args, &op->ws) < 0 || tool_arg_str(r, T, args, "path", &op->path) < 0 ||
	    tool_arg_str(r, T, args, "content", &op->content) < 0 ||
	    tool_arg_str(r, T, args, "encoding", &enc) < 0 ||
	    tool_arg_bool(r, T, args, "append", &op->app) < 0)
		return -1;
	if (!op->path || !op->content) {
		tool_bad_args(r, T, "path and content are required");
		return -1;
	}
	if (strcmp(enc, "utf8") && strcmp(enc, "base64")) {
		tool_bad_args(r, T, "encoding must be utf8 or base64");
		return -1;
	}
	op->n = strlen(op->content);
	if (!strcmp(enc, "base64") && !(op->data = unbase64(op->content, &op->n))) {
		tool_bad_args(r, T, "content is not valid base64");
		return -1;
	}
	return 0;
}

/* The path judged (op->rel, its op->name in op->dir; not_name says why a
 * path without a last name is refused) and the workspace open (made, with
 * create): 0, or -1 with why in op->err. */
static int wop_open(struct wop *op, const char *not_name, int create)
{
	op->rel = fs_rel_path(op->path, op->err, sizeof op->err);
	if (op->rel && !(op->name = fs_split(op->rel, op->dir, sizeof op->dir)))
		snprintf(op->err, sizeof op->err, "%s: %s", op->rel, not_name);
	op->wfd = op->name ? ws_open(op->ws, create, op->err, sizeof op->err) : -1;
	return op->wfd < 0 ? -1 : 0;
}

/* The plan: the path judged, the workspace open (made if it is not
 * there), what the write makes (op->made) and the file's bytes now
 * (op->before). 0, or -1 with why in op->err. */
static int write_plan(struct wop *op)
{
	if (wop_open(op, "not a file name (give the file's path, e.g. data/out.csv)", 1) < 0)
		return -1;
	op->made = to_make(op->wfd, op->dir, op->name, &op->before);
	return 0;
}

/* Carried out: the directories on the way made, the file opened (one
 * link, regular: only then is it cut) and written, the workspace's size
 * told. 0, or -1 (answered). */
static int write_act(struct wop *op)
{
	op->dfd = fs_dir_open(op->wfd, op->dir, 1);
	if (op->dfd < 0)
		fs_path_why(op->err, sizeof op->err, op->dir, errno);
	ws_touch(op->ws);
	op->fd = op->dfd >= 0 ? fs_file_open(&(struct fs_at){ op->dfd, op->name, op->rel },
					     O_WRONLY | O_CREAT | (op->app ? O_APPEND : 0), &op->st,
					     op->err, sizeof op->err) : -1;
	if (op->fd < 0) {
		tool_error(op->r, "%s", op->err);
		return -1;
	}
	off_t at = op->app ? op->st.st_size : 0;
	if ((!op->app && ftruncate(op->fd, 0) < 0) ||
	    fs_write_at(op->fd, op->data ? (void *)op->data : op->content, op->n, at) < 0) {
		tool_error(op->r, "%s: unable to write: %s", op->rel, strerror(errno));
		ws_size_forget(op->ws);     /* partly written: measured again */
		return -1;
	}
	fstat(op->fd, &op->st);
	ws_size_add(op->ws, op->wfd, &(struct sr_delta){ (int64_t)op->st.st_size -
							 (int64_t)op->before, (int64_t)op->made });
	return 0;
}

/* write_file: arguments -> plan -> refused (the quota), or written -> the
 * reply. */
void tool_write_file(struct proto_req *r, const cJSON *args)
{
	struct wop op = { .r = r, .wfd = -1, .dfd = -1, .fd = -1 };
	if (write_args(&op, args) < 0) {
		wop_close(&op);
		return;
	}
	int hold = ws_hold(0);   /* no idle sweep removes the workspace meanwhile */
	if (write_plan(&op) < 0)
		tool_error(r, "%s", op.err);
	else if (!over_quota(&op, op.before, op.app ? op.before + op.n : op.n, op.made) &&
		 write_act(&op) == 0) {
		cJSON *res = cJSON_CreateObject();
		cJSON_AddStringToObject(res, "workspace_id", op.ws);
		cJSON_AddStringToObject(res, "path", op.rel);
		cJSON_AddNumberToObject(res, "bytes", (double)op.n);
		cJSON_AddNumberToObject(res, "size", (double)op.st.st_size);
		snprintf(op.err, sizeof op.err, "%s %zu bytes to %s in workspace %s (now %lld "
			 "bytes; /workspace/%s in run_code)", op.app ? "appended" : "wrote", op.n,
			 op.rel, op.ws, (long long)op.st.st_size, op.rel);
		tool_reply(r, res, op.err, 0);
	}
	ws_release(hold);
	wop_close(&op);
}

/* How often op->old occurs in the op->n bytes of op->text: 1, or more with
 * all; 0 when none, or more than one without all (answered). */
static size_t edit_hits(struct wop *op)
{
	const char *p = op->text, *rel = op->rel;
	size_t n = op->n, ol = strlen(op->old), hits = 0;
	for (const char *q = p; (q = memmem(q, n - (size_t)(q - p), op->old, ol)); q += ol)
		hits++;
	if (hits == 0 || (hits > 1 && !op->all)) {
		if (hits == 0)
			tool_error(op->r, "%s: old_string was not found (it must match exactly, "
				   "whitespace and indentation included; read_file shows the text)",
				   rel);
		else
			tool_error(op->r, "%s: old_string occurs %zu times: give more of the "
				   "surrounding text so that it occurs once, or set replace_all to "
				   "replace every one", rel, hits);
		return 0;
	}
	return hits;
}

/* The n bytes at p with every old replaced by new: outlen bytes. */
static char *edit_replace(const char *p, size_t n, const char *old, const char *new,
			  size_t outlen)
{
	size_t ol = strlen(old), nl = strlen(new);
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
	return o;
}

/* edit_file's arguments read and checked: 0, or -1 (answered). */
static int edit_args(struct wop *op, const cJSON *args)
{
	const char *T = "edit_file";
	struct proto_req *r = op->r;
	if (tool_arg_ws(r, T, args, &op->ws) < 0 || tool_arg_str(r, T, args, "path", &op->path) < 0 ||
	    tool_arg_str(r, T, args, "old_string", &op->old) < 0 ||
	    tool_arg_str(r, T, args, "new_string", &op->new) < 0 ||
	    tool_arg_bool(r, T, args, "replace_all", &op->all) < 0)
		return -1;
	if (!op->path || !op->old || !op->new) {
		tool_bad_args(r, T, "path, old_string and new_string are required");
		return -1;
	}
	if (!*op->old) {
		tool_bad_args(r, T, "old_string must not be empty (write_file makes a new file)");
		return -1;
	}
	return 0;
}

/* The plan: the file opened and read (op->text, op->n bytes), the
 * replacements counted (op->hits) and the edited size (op->outlen)
 * checked, the workspace open (or op->wfd -1). 0, or -1 (answered). */
static int edit_plan(struct wop *op)
{
	op->fd = tool_open_file(op->r, op->ws, op->path, O_RDWR, &op->st, &op->rel);
	if (op->fd < 0)
		return -1;
	if ((uint64_t)op->st.st_size > TOOL_FILE_MAX) {
		tool_error(op->r, "%s: %lld bytes, over edit_file's cap of 10 MiB: edit it with "
			   "run_code", op->rel, (long long)op->st.st_size);
		return -1;
	}
	op->text = fs_read_fd(op->fd, (size_t)op->st.st_size, &op->n);
	if (!(op->hits = edit_hits(op)))
		return -1;
	op->outlen = op->n - op->hits * strlen(op->old) + op->hits * strlen(op->new);
	if (op->outlen > TOOL_FILE_MAX) {
		tool_error(op->r, "%s: the edited file would be over the cap of 10 MiB", op->rel);
		return -1;
	}
	op->wfd = ws_open(op->ws, 0, op->err, sizeof op->err);
	return 0;
}

/* Carried out: the edited text written over the file, the workspace's
 * size told (when it is open). 0, or -1 (answered). */
static int edit_act(struct wop *op)
{
	char *o = edit_replace(op->text, op->n, op->old, op->new, op->outlen);
	free(op->text);
	op->text = o;
	int bad_io = fs_write_at(op->fd, o, op->outlen, 0) < 0 ||
		     ftruncate(op->fd, (off_t)op->outlen) < 0;
	int e = errno;
	if (bad_io)
		ws_size_forget(op->ws);
	else if (op->wfd >= 0)
		ws_size_add(op->ws, op->wfd, &(struct sr_delta){ (int64_t)op->outlen -
								 (int64_t)op->n, 0 });
	if (bad_io) {
		tool_error(op->r, "%s: unable to write: %s", op->rel, strerror(e));
		return -1;
	}
	return 0;
}

/* edit_file: arguments -> plan -> refused (the quota), or edited -> the
 * reply. */
void tool_edit_file(struct proto_req *r, const cJSON *args)
{
	struct wop op = { .r = r, .wfd = -1, .dfd = -1, .fd = -1 };
	if (edit_args(&op, args) == 0 && edit_plan(&op) == 0 &&
	    !(op.wfd >= 0 && over_quota(&op, op.n, op.outlen, 0)) && edit_act(&op) == 0) {
		cJSON *res = cJSON_CreateObject();
		cJSON_AddStringToObject(res, "workspace_id", op.ws);
		cJSON_AddStringToObject(res, "path", op.rel);
		cJSON_AddNumberToObject(res, "replacements", (double)op.hits);
		cJSON_AddNumberToObject(res, "bytes", (double)op.outlen);
		snprintf(op.err, sizeof op.err, "%s: %zu replacement%s (now %zu bytes)", op.rel,
			 op.hits, op.hits == 1 ? "" : "s", op.outlen);
		tool_reply(r, res, op.err, 0);
	}
	wop_close(&op);
}

/* delete_path's plan: the path judged, the workspace and the directory
 * holding it open, what it is (op->st). 0, or -1 with why in op->err. */
static int delete_plan(struct wop *op)
{
	if (wop_open(op, "not a file or directory name (delete_workspace removes a whole "
		     "workspace)", 0) < 0)
		return -1;
	op->dfd = fs_dir_open(op->wfd, op->dir, 0);
	if (op->dfd < 0)
		fs_path_why(op->err, sizeof op->err, op->rel, errno);
	if (op->dfd >= 0 && fstatat(op->dfd, op->name, &op->st, AT_SYMLINK_NOFOLLOW) < 0) {
		fs_path_why(op->err, sizeof op->err, op->rel, errno);
		return -1;
	}
	return op->dfd >= 0 ? 0 : -1;
}

/* Carried out: removed, the workspace's size told. 0, or -1 (answered). */
static int delete_act(struct wop *op)
{
	struct sr_usage gone = { 0, 0 };
	if (cfg.ws_quota)
		(void)sr_entry_usage(op->dfd, op->name, &gone);
	int rc = sr_remove_tree(op->dfd, op->name);
	int e = errno;
	if (rc < 0)
		ws_size_forget(op->ws);
	else if (cfg.ws_quota)
		ws_size_add(op->ws, op->wfd, &(struct sr_delta){ -(int64_t)gone.bytes,
								 -(int64_t)gone.inodes });
	if (rc < 0) {
		tool_error(op->r, "%s: could not be removed entirely: %s", op->rel, strerror(e));
		return -1;
	}
	return 0;
}

/* delete_path: arguments -> plan -> removed -> the reply. */
void tool_delete_path(struct proto_req *r, const cJSON *args)
{
	const char *T = "delete_path";
	struct wop op = { .r = r, .wfd = -1, .dfd = -1, .fd = -1 };
	if (tool_arg_ws(r, T, args, &op.ws) < 0 || tool_arg_str(r, T, args, "path", &op.path) < 0)
		return;
	if (!op.path) {
		tool_bad_args(r, T, "path is required (relative to /workspace)");
		return;
	}
	if (delete_plan(&op) < 0) {
		tool_error(r, "%s", op.err);
	} else if (delete_act(&op) == 0) {
		mode_t m = op.st.st_mode;
		cJSON *res = cJSON_CreateObject();
		cJSON_AddStringToObject(res, "workspace_id", op.ws);
		cJSON_AddStringToObject(res, "path", op.rel);
		cJSON_AddStringToObject(res, "type", tool_type_of(m));
		snprintf(op.err, sizeof op.err, "deleted %s %s%s", tool_type_of(m), op.rel,
			 S_ISLNK(m) ? " (the link only, not what it points to)" :
			 S_ISDIR(m) ? " and everything in it" : "");
		tool_reply(r, res, op.err, 0);
	}
	wop_close(&op);
}
