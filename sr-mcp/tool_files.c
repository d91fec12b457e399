/* tool_files.c - the workspace file tools that read: list_files,
 * read_file (list_workspaces, delete_workspace: tool_ws.c; write_file,
 * edit_file, delete_path: tool_write.c). What all of them keep to:
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

#include "fs.h"
#include "images.h"
#include "mcp.h"
#include "proto.h"
#include "text.h"
#include "tool.h"
#include "ws.h"
#include "sr.h"

/* Paths are relative to /workspace; no symbolic link is followed.
 * read_file has no outputSchema and returns no structuredContent, so
 * that clients pass its image blocks on. */

#define IMAGE_MAX IMAGES_MAX
#define LIST_MAX 1000                  /* list_files: entries in a page */
#define HIDDEN_MAX 50                  /* list_files: hidden directories named */
#define LINE_MAX_CHARS 2000            /* read_file: a longer line is cut */

/* ---- list_files ---------------------------------------------------------- */

struct listing {
	cJSON *entries;
	cJSON *hidden;        /* the hidden directories left out (include_hidden false) */
	size_t hidden_more;   /* and those past HIDDEN_MAX */
	const char *base;     /* the listed path, "" for the root */
	const char *glob;
	size_t skip;          /* matching entries before this page */
	size_t matched;       /* matching entries met */
	size_t bytes;         /* the page's size, both blocks */
	int n, truncated;
	char *text;
	size_t tlen, tcap;
};

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
	tool_iso_time(st->st_mtime, when, sizeof when);
	int rep = 0;
	char *p = text_clean(path, strlen(path), &rep);   /* a name need not be UTF-8 */
	free(path);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "path", p);
	if (rep)
		cJSON_AddBoolToObject(o, "invalid_utf8", 1);
	if (w->rel_cut)
		cJSON_AddBoolToObject(o, "path_cut", 1);
	cJSON_AddStringToObject(o, "type", tool_type_of(st->st_mode));
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
	    asprintf(line, "%-7s %10lld  %s  %s%s%s%s\n", tool_type_of(st->st_mode),
		     S_ISDIR(st->st_mode) ? 0LL : (long long)st->st_size, when, p,
		     S_ISDIR(st->st_mode) && !w->rel_cut ? "/" : "", target,
		     w->rel_cut ? " (path cut: too long to list; run_code reaches it)" : "") < 0)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	free(p);
	free(t);
	free(target);
	return o;
}

/* A package or internal directory (fs_hidden) when they are left out:
 * not entered, named in l->hidden with the entries it holds; 1. Else 0. */
static int left_out(struct fs_walk *w, int dirfd, const char *name, const char *rel,
		    const struct stat *st)
{
	struct listing *l = w->ctx;
	if (!l->hidden || w->rel_cut || !fs_hidden(name, st))
		return 0;
	w->prune = 1;
	if (cJSON_GetArraySize(l->hidden) >= HIDDEN_MAX) {
		l->hidden_more++;
		return 1;
	}
	char *path = NULL;
	if (asprintf(&path, "%s%s%s", l->base, *l->base && *rel ? "/" : "", rel) < 0)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	cJSON *o = tool_hidden_dir(dirfd, name, path);
	cJSON_AddItemToArray(l->hidden, o);
	l->bytes += 2 * tool_json_size(o);
	free(path);
	return 1;
}

cJSON *tool_hidden_dir(int dirfd, const char *name, const char *path)
{
	int cut = 0, rep = 0;
	size_t n = fs_count(dirfd, name, &cut);
	char *p = text_clean(path, strlen(path), &rep);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "path", p);
	cJSON_AddNumberToObject(o, "entries", (double)n);
	if (cut)
		cJSON_AddBoolToObject(o, "counted_in_part", 1);
	free(p);
	return o;
}

static void list_one(struct fs_walk *w, int dirfd, const char *name, const char *rel,
		     const struct stat *st)
{
	struct listing *l = w->ctx;
	if (left_out(w, dirfd, name, rel, st))
		return;
	if (l->glob && (w->rel_cut || fnmatch(l->glob, strchr(l->glob, '/') ? rel : name, 0)))
		return;
	if (++l->matched <= l->skip)
		return;
	char *line;
	cJSON *o = l->n < LIST_MAX ? entry(w, dirfd, name, rel, st, &line) : NULL;
	size_t cost = o ? tool_json_size(o) + 1 + tool_json_str_size(line) : 0;
	if (!o || l->bytes + cost > TOOL_LIST_BUDGET) {
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
	tool_text_add(&l->text, &l->tlen, &l->tcap, line);
	free(line);
}

/* The notes of a page: more entries (next_offset), a walk cut (cut). */
static void list_notes(cJSON *res, const struct listing *l, int cut, char *note, size_t len)
{
	if (l->truncated) {
		cJSON_AddNumberToObject(res, "next_offset", (double)(l->skip + (size_t)l->n));
		snprintf(note, len, "[... more entries: this page holds %d (at most %d, and "
			 "under the result cap); list_files with offset %zu gives the next page, "
			 "or narrow with path or glob ...]\n", l->n, LIST_MAX, l->skip + (size_t)l->n);
	}
	if (cut)
		snprintf(note + strlen(note), len - strlen(note), "[... not every entry "
			 "is listed: a walk looks at %d entries at most, and a path longer than %d "
			 "bytes is cut (path_cut); list a deeper directory with path, or use "
			 "run_code ...]\n", FS_WALK_MAX, FS_REL_MAX);
	if (*note)
		cJSON_AddStringToObject(res, "note", note);
}

/* The hidden directories left out, in res (hidden_dirs) and the text:
 * that they are there, the entries each holds, how to list them. */
static void hidden_note(cJSON *res, struct listing *l)
{
	int n = cJSON_GetArraySize(l->hidden);
	if (!n) {
		cJSON_Delete(l->hidden);
		return;
	}
	cJSON_AddItemToObject(res, "hidden_dirs", l->hidden);
	if (l->hidden_more)
		cJSON_AddNumberToObject(res, "hidden_dirs_not_listed", (double)l->hidden_more);
	tool_text_add(&l->text, &l->tlen, &l->tcap, "[left out: ");
	const cJSON *h;
	char line[4400];
	int i = 0;
	cJSON_ArrayForEach(h, l->hidden) {
		snprintf(line, sizeof line, "%s%s/ (%s%.0f entries)", i++ ? ", " : "",
			 cJSON_GetStringValue(cJSON_GetObjectItem(h, "path")),
			 cJSON_IsTrue(cJSON_GetObjectItem(h, "counted_in_part")) ? "at least " : "",
			 cJSON_GetNumberValue(cJSON_GetObjectItem(h, "entries")));
		tool_text_add(&l->text, &l->tlen, &l->tcap, line);
	}
	snprintf(line, sizeof line, "%s: package and internal directories (" FS_HIDDEN_NAMES
		 "); list_files with include_hidden true lists them, or with path set to one "
		 "lists what it holds]\n", l->hidden_more ? " and more" : "");
	tool_text_add(&l->text, &l->tlen, &l->tcap, line);
}

/* The directory rel of workspace ws, open; -1 when it cannot be (answered). */
static int open_dir(struct proto_req *r, const char *ws, const char *rel)
{
	char err[1200];
	int wfd = ws_open(ws, 0, err, sizeof err);
	if (wfd < 0) {
		tool_error(r, "%s", err);
		return -1;
	}
	int dfd = fs_openat2(wfd, rel, O_RDONLY | O_DIRECTORY, 0);
	if (dfd < 0) {
		fs_path_why(err, sizeof err, rel, errno);
		close(wfd);
		tool_error(r, "%s", err);
		return -1;
	}
	close(wfd);
	return dfd;
}

void tool_list_files(struct proto_req *r, const cJSON *args)
{
	const char *T = "list_files", *ws, *path = ".", *glob = NULL;
	int recursive = 0, all = 0;
	double from = 0;
	char err[1200];
	if (tool_arg_ws(r, T, args, &ws) < 0 || tool_arg_str(r, T, args, "path", &path) < 0 ||
	    tool_arg_str(r, T, args, "glob", &glob) < 0 ||
	    tool_arg_bool(r, T, args, "recursive", &recursive) < 0 ||
	    tool_arg_bool(r, T, args, "include_hidden", &all) < 0 ||
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
	int dfd = open_dir(r, ws, rel);
	if (dfd < 0)
		return;
	char base[4096];
	snprintf(base, sizeof base, "%s", strcmp(rel, ".") ? rel : "");
	for (size_t n = strlen(base); n > 0 && base[n - 1] == '/'; n--)
		base[n - 1] = '\0';
	struct listing l = { .base = base, .glob = glob, .text = xstrdup(""), .tcap = 1,
			     .skip = (size_t)from, .bytes = 2 * strlen(base) + 1000,
			     .hidden = all ? NULL : cJSON_CreateArray() };
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
	list_notes(res, &l, w.cut, note, sizeof note);
	if (!l.n && !l.skip)
		tool_text_add(&l.text, &l.tlen, &l.tcap, "(no entries)\n");
	else if (!l.n)
		tool_text_add(&l.text, &l.tlen, &l.tcap, "(no entries from this offset)\n");
	tool_text_add(&l.text, &l.tlen, &l.tcap, note);
	hidden_note(res, &l);
	tool_reply(r, res, l.text, 0);
	free(l.text);
}

/* ---- read_file ----------------------------------------------------------- */

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

/* An image read: a result with its image block (p freed by the caller). */
static void read_image(struct proto_req *r, const char *rel, const unsigned char *p, size_t n,
		       const char *mime)
{
	char note[1400];
	if (n > IMAGE_MAX) {
		tool_error(r, "%s: %s of %zu bytes, over read_file's image cap of %u KB (a result "
		     "must stay under 1 MiB as base64): make it smaller with run_code "
		     "(a lower resolution or JPEG), then read it", rel, mime, n,
		     IMAGE_MAX >> 10);
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
	proto_result(r, out);
}

/* A page of a text's numbered lines, from line first, limit at most. */
struct page {
	size_t first, last, len, cap;
	int replaced, cut, budget_hit;
	char *out;
};

/* The line of ll bytes at q, numbered, into pg: 0, or -1 when it does not
 * fit the budget. */
static int page_line(struct page *pg, const unsigned char *q, size_t ll, size_t line,
		     size_t budget)
{
	size_t show = ll > LINE_MAX_CHARS ? LINE_MAX_CHARS : ll;
	while (show < ll && show > 0 && (q[show] & 0xc0) == 0x80)
		show--;    /* cut on a character boundary */
	char *t = text_clean((const char *)q, show, &pg->replaced);
	char num[32];
	int m = snprintf(num, sizeof num, "%6zu\t", line);
	size_t need = (size_t)m + strlen(t) + 40;
	if (pg->len + need > budget) {
		free(t);
		pg->budget_hit = 1;
		return -1;
	}
	tool_append(&pg->out, &pg->len, &pg->cap, num, (size_t)m);
	tool_append(&pg->out, &pg->len, &pg->cap, t, strlen(t));
	if (show < ll) {
		char more[64];
		int k = snprintf(more, sizeof more, " [... %zu more bytes on this line]", ll - show);
		tool_append(&pg->out, &pg->len, &pg->cap, more, (size_t)k);
		pg->cut = 1;
	}
	tool_append(&pg->out, &pg->len, &pg->cap, "\n", 1);
	free(t);
	pg->last = line;
	return 0;
}

static void page_fill(struct page *pg, const unsigned char *p, size_t n, size_t limit)
{
	size_t budget = cfg.max_chars > 400 ? cfg.max_chars - 300 : 100;
	tool_append(&pg->out, &pg->len, &pg->cap, "", 0);
	for (size_t i = 0, line = 1; i < n && line < pg->first + limit; line++) {
		const unsigned char *nl = memchr(p + i, '\n', n - i);
		size_t ll = nl ? (size_t)(nl - (p + i)) : n - i;
		if (line >= pg->first && page_line(pg, p + i, ll, line, budget) < 0)
			break;
		i += ll + 1;
	}
}

/* A text read: numbered lines from offset_line, as many as fit. */
static void read_text(struct proto_req *r, const char *rel, const unsigned char *p, size_t n,
		      double from, double limit)
{
	char note[1400];
	size_t total = 0;
	for (size_t i = 0; i < n; i++)
		if (p[i] == '\n')
			total++;
	if (n && p[n - 1] != '\n')
		total++;
	if (total == 0) {
		snprintf(note, sizeof note, "%s: empty file (0 lines)", rel);
		proto_result(r, blocks_result(note));
		return;
	}
	if (from > (double)total) {
		tool_error(r, "%s has %zu lines: offset_line %.0f is past its end", rel, total, from);
		return;
	}
	struct page pg = { .first = (size_t)from, .last = (size_t)from - 1 };
	page_fill(&pg, p, n, (size_t)limit);
	if (pg.last < pg.first) {
		free(pg.out);
		tool_error(r, "%s: line %zu alone is longer than this server's result cap (%zu "
		     "characters): read it with run_code", rel, pg.first, cfg.max_chars);
		return;
	}
	char foot[600], more[64] = "";
	if (pg.last < total)
		snprintf(more, sizeof more, "; more with offset_line %zu", pg.last + 1);
	snprintf(foot, sizeof foot, "(%s: lines %zu-%zu of %zu%s%s%s%s)", rel, pg.first, pg.last,
		 total, more, pg.budget_hit ? " (the rest did not fit this result)" : "",
		 pg.cut ? "; long lines were cut" : "",
		 pg.replaced ? "; bytes that are not UTF-8 are shown as U+FFFD" : "");
	tool_append(&pg.out, &pg.len, &pg.cap, foot, strlen(foot));
	proto_result(r, blocks_result(pg.out));
	free(pg.out);
}

void tool_read_file(struct proto_req *r, const cJSON *args)
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
	int fd = tool_open_file(r, ws, path, O_RDONLY, &st, &rel);
	if (fd < 0)
		return;
	if ((uint64_t)st.st_size > TOOL_FILE_MAX) {
		close(fd);
		tool_error(r, "%s: %lld bytes, over read_file's cap of 10 MiB (%u bytes): read a part "
		     "with run_code (head, sed -n, or Python)", rel, (long long)st.st_size, TOOL_FILE_MAX);
		return;
	}
	size_t n;
	unsigned char *p = (unsigned char *)fs_read_fd(fd, (size_t)st.st_size, &n);
	close(fd);
	const char *mime = images_type(p, n);
	char note[1400];
	if (mime) {
		read_image(r, rel, p, n, mime);
	} else if (memchr(p, '\0', n < 8192 ? n : 8192)) {
		snprintf(note, sizeof note, "%s: %s, %zu bytes; not shown as text. Use run_code "
			 "to look into it (e.g. python, xxd or file).", rel, binary_type(p, n), n);
		proto_result(r, blocks_result(note));
	} else {
		read_text(r, rel, p, n, from, limit);
	}
	free(p);
}
