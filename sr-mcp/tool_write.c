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

#include "tool.h"
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

/* write_file's arguments read and checked, base64 content decoded into
 * *data (n bytes, or content's): 0, or -1 (answered). */
static int write_args(struct proto_req *r, const cJSON *args, const char **ws, const char **path,
		      const char **content, int *app, unsigned char **data, size_t *n)
{
	const char *T = "write_file", *enc = "utf8";
	if (tool_arg_ws(r, T, args, ws) < 0 || tool_arg_str(r, T, args, "path", path) < 0 ||
	    tool_arg_str(r, T, args, "content", content) < 0 ||
	    tool_arg_str(r, T, args, "encoding", &enc) < 0 || tool_arg_bool(r, T, args, "append", app) < 0)
		return -1;
	if (!*path || !*content) {
		tool_bad_args(r, T, "path and content are required");
		return -1;
	}
	if (strcmp(enc, "utf8") && strcmp(enc, "base64")) {
		tool_bad_args(r, T, "encoding must be utf8 or base64");
		return -1;
	}
	*n = strlen(*content);
	if (!strcmp(enc, "base64") && !(*data = unbase64(*content, n))) {
		tool_bad_args(r, T, "content is not valid base64");
		return -1;
	}
	return 0;
}

void tool_write_file(struct proto_req *r, const cJSON *args)
{
	const char *ws, *path = NULL, *content = NULL;
	int app = 0;
	char err[1200], dir[4096];
	size_t n;
	unsigned char *data = NULL;
	if (write_args(r, args, &ws, &path, &content, &app, &data, &n) < 0)
		return;
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

/* How often old occurs in the n bytes at p: 1, or more with all; 0 when
 * none, or more than one without all (answered). */
static size_t edit_hits(struct proto_req *r, const char *rel, const char *p, size_t n,
			const char *old, int all)
{
	size_t ol = strlen(old), hits = 0;
	for (const char *q = p; (q = memmem(q, n - (size_t)(q - p), old, ol)); q += ol)
		hits++;
	if (hits == 0 || (hits > 1 && !all)) {
		if (hits == 0)
			tool_error(r, "%s: old_string was not found (it must match exactly, whitespace "
			     "and indentation included; read_file shows the text)", rel);
		else
			tool_error(r, "%s: old_string occurs %zu times: give more of the surrounding text "
			     "so that it occurs once, or set replace_all to replace every one", rel,
			     hits);
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

/* The edited text o (outlen bytes, n before) written over the file fd,
 * the workspace's size told (wfd, or -1); fd, wfd and o closed and freed.
 * 0, or -1 (answered). */
static int edit_write(struct proto_req *r, const char *ws, int wfd, int fd, const char *rel,
		      char *o, size_t outlen, size_t n)
{
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
		return -1;
	}
	return 0;
}

void tool_edit_file(struct proto_req *r, const cJSON *args)
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
	int fd = tool_open_file(r, ws, path, O_RDWR, &st, &rel);
	if (fd < 0)
		return;
	if ((uint64_t)st.st_size > TOOL_FILE_MAX) {
		close(fd);
		tool_error(r, "%s: %lld bytes, over edit_file's cap of 10 MiB: edit it with run_code",
		     rel, (long long)st.st_size);
		return;
	}
	size_t n, ol = strlen(old), nl = strlen(new), hits;
	char *p = fs_read_fd(fd, (size_t)st.st_size, &n);
	if (!(hits = edit_hits(r, rel, p, n, old, all))) {
		close(fd);
		free(p);
		return;
	}
	size_t outlen = n - hits * ol + hits * nl;
	if (outlen > TOOL_FILE_MAX) {
		close(fd);
		free(p);
		tool_error(r, "%s: the edited file would be over the cap of 10 MiB", rel);
		return;
	}
	int wfd = ws_open(ws, 0, err, sizeof err);
	if (wfd >= 0 && over_quota(r, ws, wfd, rel, n, outlen, 0)) {
		close(wfd);
		close(fd);
		free(p);
		return;
	}
	char *o = edit_replace(p, n, old, new, outlen);
	free(p);
	if (edit_write(r, ws, wfd, fd, rel, o, outlen, n) < 0)
		return;
	cJSON *res = cJSON_CreateObject();
	cJSON_AddStringToObject(res, "workspace_id", ws);
	cJSON_AddStringToObject(res, "path", rel);
	cJSON_AddNumberToObject(res, "replacements", (double)hits);
	cJSON_AddNumberToObject(res, "bytes", (double)outlen);
	snprintf(err, sizeof err, "%s: %zu replacement%s (now %zu bytes)", rel, hits,
		 hits == 1 ? "" : "s", outlen);
	tool_reply(r, res, err, 0);
}

void tool_delete_path(struct proto_req *r, const cJSON *args)
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
	cJSON_AddStringToObject(res, "type", tool_type_of(st.st_mode));
	snprintf(err, sizeof err, "deleted %s %s%s", tool_type_of(st.st_mode), rel,
		 S_ISLNK(st.st_mode) ? " (the link only, not what it points to)" :
		 S_ISDIR(st.st_mode) ? " and everything in it" : "");
	tool_reply(r, res, err, 0);
}
