/* tool_import.c - import_files: a file, a directory or a tar archive from
 * a host directory the administrator allowed into a workspace. Why and
 * how: see tool_tar.c. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "fs.h"
#include "mcp.h"
#include "proto.h"
#include "spawn.h"
#include "text.h"
#include "tool.h"
#include "tool_tar.h"
#include "ws.h"
#include "sr.h"

#define IMPORT_ENTRIES_MAX 100000       /* entries of an import, at most */
#define IMPORT_BYTES_MAX (1ULL << 30)   /* bytes of an import, at most */
#define PAGE 4096ULL                    /* a tmpfs page: the quota's unit while tar writes */

/* ---- import_files: copies ------------------------------------------------ */

struct copy {
	int dst;                  /* the destination directory */
	int dry;                  /* count only: the bytes a copy would add */
	uint64_t bytes, room;     /* copied; at most (the quota's room) */
	int64_t delta;            /* the workspace's size: what the copy changed */
	size_t files, dirs, skipped, changed;
	int over, failed, quota;
	char err[1200];
	char skipped_names[400], changed_names[400];
};

/* 0, -1 (errno), 1 when import_files' cap was passed, 2 the quota's room. */
static int copy_fd(int in, int out, struct copy *c)
{
	char buf[65536];
	off_t at = 0;
	for (;;) {
		ssize_t n = read(in, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			return 0;
		if (c->bytes + (uint64_t)n > IMPORT_BYTES_MAX)
			return 1;
		if (c->bytes + (uint64_t)n > c->room)
			return 2;
		if (fs_write_at(out, buf, (size_t)n, at) < 0)
			return -1;
		at += n;
		c->bytes += (uint64_t)n;
	}
}

static void name_list_add(char *list, size_t len, const char *name)
{
	size_t n = strlen(list);
	if (n + strlen(name) + 3 < len)
		snprintf(list + n, len - n, "%s%s", n ? ", " : "", name);
}

/* The regular file in (already open) to path rel beneath c->dst, its
 * mode without set-ID or sticky bits. A copy stopped by a cap is removed. */
static int copy_file(struct copy *c, int in, const struct stat *ist, const char *rel)
{
	char dir[4096];
	struct stat st;
	const char *name = fs_split(rel, dir, sizeof dir);
	if (!name) {
		snprintf(c->err, sizeof c->err, "%s: not a file name", rel);
		return -1;
	}
	int dfd = fs_dir_open(c->dst, dir, 1);
	if (dfd < 0) {
		fs_path_why(c->err, sizeof c->err, dir, errno);
		return -1;
	}
	int out = fs_file_open(&(struct fs_at){ dfd, name, rel }, O_WRONLY | O_CREAT, &st, c->err,
			       sizeof c->err);
	if (out < 0) {
		close(dfd);
		return -1;
	}
	uint64_t before = c->bytes;
	int r = ftruncate(out, 0) < 0 ? -1 : copy_fd(in, out, c);
	int e = errno;
	c->delta -= (int64_t)st.st_size;
	if (r == 0) {
		(void)fchmod(out, (ist->st_mode & 0755) | 0600);
		c->delta += (int64_t)(c->bytes - before);
		if (ist->st_mode & 07000) {
			c->changed++;
			name_list_add(c->changed_names, sizeof c->changed_names, rel);
		}
	} else {
		(void)unlinkat(dfd, name, 0);   /* cut short: not left half made */
	}
	close(out);
	close(dfd);
	if (r == 1) {
		c->over = 1;
		snprintf(c->err, sizeof c->err, "the import passed import_files' cap of %llu MiB "
			 "at %s", IMPORT_BYTES_MAX >> 20, rel);
	} else if (r == 2) {
		c->quota = c->over = 1;
		snprintf(c->err, sizeof c->err, "the workspace's quota of %llu bytes was reached "
			 "at %s (the files grew since they were counted?); delete what is not needed "
			 "(delete_path) or ask the administrator for a larger --workspace-quota",
			 (unsigned long long)cfg.ws_quota, rel);
	} else if (r < 0) {
		snprintf(c->err, sizeof c->err, "%s: unable to copy: %s", rel, strerror(e));
	}
	c->files += r == 0;
	return r ? -1 : 0;
}

static void copy_one(struct fs_walk *w, int dirfd, const char *name, const char *rel,
		     const struct stat *st)
{
	struct copy *c = w->ctx;
	if (w->seen > IMPORT_ENTRIES_MAX) {
		c->over = 1;
		snprintf(c->err, sizeof c->err, "the directory has more than import_files' cap "
			 "of %d entries", IMPORT_ENTRIES_MAX);
	} else if (c->dry) {
		if (S_ISREG(st->st_mode) && st->st_nlink == 1)
			c->bytes += (uint64_t)st->st_size, c->files++;
		c->dirs += S_ISDIR(st->st_mode);
	} else if (S_ISDIR(st->st_mode)) {
		int fd = fs_dir_open(c->dst, rel, 1);
		if (fd < 0)
			fs_path_why(c->err, sizeof c->err, rel, errno);
		else
			close(fd);
		c->dirs += fd >= 0;
		c->failed = fd < 0;
	} else if (S_ISREG(st->st_mode) && st->st_nlink == 1) {
		struct stat ist;
		int in = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
				O_CLOEXEC);
		if (in >= 0 && fstat(in, &ist) == 0 && ist.st_ino == st->st_ino && S_ISREG(ist.st_mode))
			c->failed = copy_file(c, in, &ist, rel) < 0;
		else {
			snprintf(c->err, sizeof c->err, "%s: %s", rel, in < 0 ? strerror(errno) :
				 "changed while it was copied");
			c->failed = 1;
		}
		if (in >= 0)
			close(in);
	} else {
		/* a link, a file of several links, a fifo, socket or device */
		c->skipped++;
		name_list_add(c->skipped_names, sizeof c->skipped_names, rel);
	}
	if (c->over || c->failed)
		w->stop = 1;
}

/* The directory fd (taken) walked: copied, or (c->dry) counted. */
static void copy_tree(struct copy *c, int fd)
{
	struct fs_walk w = { .fn = copy_one, .recursive = 1, .skip_cut = 1, .ctx = c };
	fs_walk(&w, fd);
	if (w.cut && !c->failed && !c->over) {
		c->over = 1;
		snprintf(c->err, sizeof c->err, "the directory is too big or too deep to copy "
			 "whole");
	}
}

/* ---- import_files: archives ---------------------------------------------- */

struct listing {
	size_t entries;
	uint64_t bytes;
	uint64_t pages;        /* what tar may take under the quota while it writes */
	int bad;
	char why[2000];
	struct tar_members m;
};

/* Absolute, or a ".." component: the quoted name from q to e. */
static int unsafe_name(const char *q, const char *e)
{
	if (q[1] == '/')
		return 1;
	for (const char *c = q + 1; c < e; ) {
		const char *s = memchr(c, '/', (size_t)(e - c));
		size_t n = (size_t)((s ? s : e) - c);
		if (n == 2 && c[0] == '.' && c[1] == '.')
			return 1;
		c += n + 1;
	}
	return 0;
}

/* One line of tar -tv (tool_tar_member_parse): checked, counted. */
static int list_line(struct tar_lines *l, char *line, size_t len)
{
	struct listing *t = l->ctx;
	struct tar_member m;
	(void)len;
	int rep = 0, bad = tool_tar_member_parse(line, &m) < 0;
	char *shown = text_clean(line, strlen(line) > 300 ? 300 : strlen(line), &rep);
	if (bad || l->too_long) {
		snprintf(t->why, sizeof t->why, "tar listed a line sr-mcp cannot read: %s", shown);
	} else if (unsafe_name(m.name, m.name_end)) {
		snprintf(t->why, sizeof t->why, "a member's name is absolute or has a '..' in it "
			 "(%s): sr-mcp extracts no such archive", shown);
	} else if (m.to && unsafe_name(m.to, m.to_end)) {
		snprintf(t->why, sizeof t->why, "a hard link in it points to an absolute path "
			 "or through '..' (%s): sr-mcp extracts no such archive", shown);
	} else if (++t->entries > IMPORT_ENTRIES_MAX) {
		snprintf(t->why, sizeof t->why, "it has more than import_files' cap of %d entries",
			 IMPORT_ENTRIES_MAX);
	} else if ((bad = tool_tar_members_see(&t->m, &m)) < 0) {
		snprintf(t->why, sizeof t->why, "it has more than %d fifos, devices and sockets, "
			 "which import_files leaves out", TAR_EXCLUDE_MAX);
	} else if (!bad) {
		/* a file's bytes, in whole pages as the tmpfs under the quota
		 * holds them; a link's target may take one too */
		t->bytes += m.size;
		t->pages += (m.size + PAGE - 1) / PAGE * PAGE + (m.type == 'l' ? PAGE : 0);
		if (m.size > IMPORT_BYTES_MAX || t->bytes > IMPORT_BYTES_MAX)
			snprintf(t->why, sizeof t->why, "its files add up to more than import_files' "
				 "cap of %llu MiB (a sparse or compressed file counts at its full "
				 "size)", IMPORT_BYTES_MAX >> 20);
	}
	free(shown);
	t->bad = t->why[0] != '\0';
	return t->bad ? -1 : 0;
}

static int note_line(struct tar_lines *l, char *line, size_t len)
{
	(void)len;
	tool_tar_note_add(l->ctx, line);
	return 0;
}

/* "z" for gzip, "" for tar, NULL for neither. */
static const char *tar_kind(int fd)
{
	unsigned char h[512];
	ssize_t n = pread(fd, h, sizeof h, 0);
	if (n >= 2 && h[0] == 0x1f && h[1] == 0x8b)
		return "z";
	if (n >= 263 && !memcmp(h + 257, "ustar", 5))
		return "";
	return NULL;
}

static int is_archive_name(const char *n)
{
	size_t k = strlen(n);
	return (k > 4 && !strcasecmp(n + k - 4, ".tar")) || (k > 4 && !strcasecmp(n + k - 4, ".tgz")) ||
	       (k > 7 && !strcasecmp(n + k - 7, ".tar.gz"));
}

/* ---- import_files: the operation ------------------------------------------ */

/* One import_files call, as it goes: its arguments; the plan (the source
 * opened and judged: an archive listed, a file or a directory measured;
 * what it would add to the workspace); refused, or carried out; the
 * reply. */
struct import {
	struct proto_req *r;
	/* the arguments */
	const char *hp, *wsa, *dest;
	int extract;
	/* the plan */
	struct tar_host h;
	int archive;                   /* 1: extract it (its listing in t) */
	char flags[8];                 /* tar's: -f, or -zf */
	struct listing t;
	char ws[65];
	int wfd;
	const char *rel;               /* the destination, in the workspace */
	const char *name;              /* a file's: its name in dir; else NULL */
	char dir[4096], base[256];
	int existed;                   /* a file's destination was there */
	uint64_t need, inodes;         /* what it would add */
	struct copy c;
	cJSON *res;                    /* the reply, as it is made */
};

/* The archive listed by tar in the sandbox (nothing bound) and checked:
 * 0, or -1 with why in t->why. */
static int archive_list(struct import *op)
{
	struct proto_req *r = op->r;
	struct tar_host *h = &op->h;
	struct listing *t = &op->t;
	struct tar_note msgs = { .len = 0 };
	struct tar_lines l = { .fn = list_line, .ctx = t }, ml = { .fn = note_line, .ctx = &msgs };
	struct tar_chain c;
	tool_tar_chain_start(&c, NULL, NULL, 0, NULL);
	/* --absolute-names: names and link targets as they are in the archive
	 * (tar -t strips a leading / or ../ of a hard link's target otherwise,
	 * and the check below would see the stripped one) */
	const char *args[] = { "-tv", "--absolute-names", "--numeric-owner", "--quoting-style=c",
			       op->flags, "-" };
	for (size_t i = 0; i < sizeof args / sizeof *args; i++)
		tool_tar_chain_add(&c, args[i]);
	struct spawn_io io = { .in_fd = h->fd, .out = tool_tar_lines_sink, .out_ctx = &l,
			       .err = tool_tar_lines_sink, .err_ctx = &ml, .stop = &r->cancelled };
	int rc = lseek(h->fd, 0, SEEK_SET) < 0 ? -1 : spawn_io(c.v, &io);
	if (tool_tar_lines_end(&l) < 0)
		t->bad = 1;
	tool_tar_lines_end(&ml);
	if (!t->bad && rc != 0)
		snprintf(t->why, sizeof t->why, "tar could not list it (exit %d%s): %s", rc,
			 rc == 124 ? ": its wall clock ran out" : "", msgs.text);
	return t->bad || rc != 0 ? -1 : 0;
}

/* Would op->need bytes and op->inodes more pass the workspace's quota?
 * Then 1, answered: the quota, what the import would add, what to do. */
static int import_over(struct import *op, const char *how)
{
	struct proto_req *r = op->r;
	const char *ws = op->ws, *hp = op->hp;
	uint64_t need = op->need, inodes = op->inodes;
	if (!cfg.ws_quota)
		return 0;
	struct sr_usage u = { 0, 0 };
	(void)ws_size(ws, op->wfd, &u);    /* a part unread: what was read */
	uint64_t left = u.bytes < cfg.ws_quota ? cfg.ws_quota - u.bytes : 0;
	uint64_t ileft = u.inodes < cfg.ws_inodes ? cfg.ws_inodes - u.inodes : 0;
	if (need > left)
		tool_error(r, "%s: not imported, nothing was written: it would add %llu bytes%s to "
			   "workspace %s, which holds %llu bytes of its quota of %llu bytes (%llu MiB): "
			   "%llu bytes are left. Delete what is not needed there (delete_path), import "
			   "less, or ask the administrator for a larger --workspace-quota", hp,
			   (unsigned long long)need, how, ws, (unsigned long long)u.bytes,
			   (unsigned long long)cfg.ws_quota, (unsigned long long)(cfg.ws_quota >> 20),
			   (unsigned long long)left);
	else if (cfg.ws_inodes && inodes > ileft)
		tool_error(r, "%s: not imported, nothing was written: it would add up to %llu files, "
			   "directories and links to workspace %s, which holds %llu of its quota of "
			   "%llu inodes: %llu are left. Delete what is not needed there (delete_path), "
			   "import less, or ask the administrator for a larger --workspace-inodes", hp,
			   (unsigned long long)inodes, ws, (unsigned long long)u.inodes,
			   (unsigned long long)cfg.ws_inodes, (unsigned long long)ileft);
	else
		return 0;
	return 1;
}

/* Extracted by tar in the sandbox into dest, the workspace bound
 * read-write under its quota (sr-jail --quota: the kernel caps what tar
 * writes, whatever the listing said), special files left out; the
 * result answered. */
static void archive_extract(struct import *op)
{
	struct proto_req *r = op->r;
	const char *ws = op->ws, *dest = op->rel;
	struct tar_host *h = &op->h;
	struct listing *t = &op->t;
	cJSON *res = op->res;
	char into[4200], text[3000 + 2 * TAR_NAMES_CAP], changes[2 * TAR_NAMES_CAP + 300];
	snprintf(into, sizeof into, "/workspace/%s", dest);
	struct tar_note msgs = { .len = 0 };
	struct tar_lines ml = { .fn = note_line, .ctx = &msgs };
	struct tar_chain c;
	int failed;
	const char *excl = tool_tar_members_file(&t->m, &failed);
	if (failed) {
		cJSON_Delete(res);
		tool_error(r, "unable to write the list of what %s leaves out: %s", h->rel,
			   strerror(errno));
		return;
	}
	tool_tar_chain_start(&c, "--bind", ws, IMPORT_BYTES_MAX, excl);
	const char *args[] = { "-x", op->flags, "-", "--no-same-owner", "--no-same-permissions",
			       "--no-overwrite-dir" };
	for (size_t i = 0; i < sizeof args / sizeof *args; i++)
		tool_tar_chain_add(&c, args[i]);
	tool_tar_members_args(&c, &t->m);
	tool_tar_chain_add(&c, "-C");
	tool_tar_chain_add(&c, into);
	struct spawn_io io = { .in_fd = h->fd, .err = tool_tar_lines_sink, .err_ctx = &ml,
			       .stop = &r->cancelled };
	int rc = lseek(h->fd, 0, SEEK_SET) < 0 ? -1 : spawn_io(c.v, &io);
	tool_tar_lines_end(&ml);
	if (rc != 0) {
		int quota = strstr(msgs.text, "sr-jail: warning: /workspace: quota of") != NULL;
		cJSON_Delete(res);
		tool_error(r, "%s: extracting it into workspace %s failed (exit %d%s); what was "
			   "extracted before stays (list_files shows it)%s. tar said: %s", h->rel, ws,
			   rc, rc == 124 ? ": the wall clock of " TAR_TIMEOUT " ran out" :
			   rc == 128 + SIGXFSZ ? ": a file passed the size cap" : "",
			   quota ? ": the workspace reached its quota, which the archive's "
			   "listing said it would not (was the archive changed meanwhile?); delete "
			   "what is not needed (delete_path) or ask the administrator for a larger "
			   "--workspace-quota" : "", msgs.text);
		return;
	}
	tool_tar_members_report(&t->m, res, changes, sizeof changes);
	cJSON_AddStringToObject(res, "kind", "archive");
	cJSON_AddNumberToObject(res, "files", (double)(t->entries - t->m.nexcl));
	cJSON_AddNumberToObject(res, "bytes", (double)t->bytes);
	snprintf(text, sizeof text, "extracted %s (%zu entries, %llu bytes) into workspace %s at "
		 "/workspace%s%s; list_files shows them.%s%s%s", h->rel, t->entries - t->m.nexcl,
		 (unsigned long long)t->bytes, ws, strcmp(dest, ".") ? "/" : "",
		 strcmp(dest, ".") ? dest : "", changes, msgs.len ? "\ntar said:\n" : "", msgs.text);
	tool_ws_reply(r, res, text);   /* a scratch workspace: said */
}

/* The size of the regular file name in dir beneath the workspace, or 0. */
static uint64_t dest_size(int wfd, const char *dir, const char *name, int *exists)
{
	struct stat st;
	int d = fs_dir_open(wfd, dir, 0);
	int r = d >= 0 ? fstatat(d, name, &st, AT_SYMLINK_NOFOLLOW) : -1;
	if (d >= 0)
		close(d);
	*exists = r == 0;
	return r == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
}

/* ---- import_files ---------------------------------------------------------- */

/* import_files' arguments read and checked: 0, or -1 (answered). */
static int import_args(struct import *op, const cJSON *args)
{
	const char *T = "import_files";
	struct proto_req *r = op->r;
	if (tool_tar_no_host_dirs(r, T) || tool_arg_str(r, T, args, "host_path", &op->hp) < 0 ||
	    tool_arg_str(r, T, args, "workspace_id", &op->wsa) < 0 ||
	    tool_arg_str(r, T, args, "dest", &op->dest) < 0 ||
	    tool_arg_bool(r, T, args, "extract", &op->extract) < 0)
		return -1;
	if (!op->hp || !*op->hp) {
		tool_bad_args(r, T, "host_path is required: a file or directory in an allowed host "
			      "directory (absolute, or relative to one)");
		return -1;
	}
	if (op->wsa && !ws_id_ok(op->wsa)) {
		tool_bad_args(r, T, "workspace_id must be 1 to 64 letters, digits, _ or - (not "
			      "starting with -)");
		return -1;
	}
	return 0;
}

/* Is host_path (open in op->h) an archive to extract: 1, its listing in
 * op->t and tar's flags in op->flags; 0, a file or directory to copy; -1
 * when it cannot be imported (answered). */
static int import_source(struct import *op)
{
	struct tar_host *h = &op->h;
	int archive = S_ISREG(h->st.st_mode) && op->extract && is_archive_name(h->rel);
	const char *kind = archive ? tar_kind(h->fd) : NULL;
	snprintf(op->flags, sizeof op->flags, "-%sf", kind ? kind : "");
	if (archive && !kind) {
		tool_error(op->r, "%s: named like a tar archive but it is not one (neither tar nor "
			   "gzip): pass extract false to copy it as it is", op->hp);
		return -1;
	}
	if (archive && archive_list(op) < 0) {
		if (!op->r->cancelled)
			tool_error(op->r, "%s: not extracted: %s. Nothing was written.", op->hp,
				   op->t.why);
		return -1;
	}
	return archive;
}

/* Where it goes: op->rel in the workspace (made), op->name in op->dir for
 * a file. 0, or -1 (answered). */
static int import_dest(struct import *op)
{
	char err[1500];
	int file = S_ISREG(op->h.st.st_mode) && !op->archive;
	tool_tar_host_base_name(&op->h, op->base, sizeof op->base);
	op->rel = fs_rel_path(op->dest ? op->dest : op->archive ? "." : op->base, err, sizeof err);
	if (!op->rel || ws_make(op->ws, sizeof op->ws, 0, err, sizeof err) < 0 ||
	    (op->wfd = ws_open(op->ws, 1, err, sizeof err)) < 0) {
		tool_error(op->r, "%s", err);
		return -1;
	}
	op->name = file ? fs_split(op->rel, op->dir, sizeof op->dir) : NULL;
	if (file && !op->name) {
		tool_error(op->r, "%s: not a file name (give the file's path in the workspace, "
			   "e.g. data/in.csv)", op->rel);
		return -1;
	}
	return 0;
}

/* What the import would add to the workspace, measured before a byte is
 * written (op->need bytes, op->inodes; a directory by a dry copy), and
 * op->c made ready for the copy with the room the quota leaves; -1 when
 * the host side failed (answered). */
static int import_plan(struct import *op)
{
	struct copy *c = &op->c;
	*c = (struct copy){ .dst = -1, .room = UINT64_MAX };
	op->need = op->archive ? op->t.pages : op->name ? (uint64_t)op->h.st.st_size : 0;
	op->inodes = op->archive ? (uint64_t)op->t.entries : 0;
	if (!op->archive && !op->name) {
		c->dry = 1;
		copy_tree(c, openat(op->h.fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
		op->need = c->bytes;
		op->inodes = (uint64_t)(c->files + c->dirs + 1);
		if (c->over || c->failed) {
			tool_error(op->r, "%s: %s. Nothing was written.", op->hp, c->err);
			return -1;
		}
		*c = (struct copy){ .dst = -1, .room = cfg.ws_quota ? op->need : UINT64_MAX };
	} else if (op->name) {
		uint64_t old = dest_size(op->wfd, op->dir, op->name, &op->existed);
		op->inodes = !op->existed;
		c->room = cfg.ws_quota ? op->need : UINT64_MAX;
		op->need = op->need > old ? op->need - old : 0;
	}
	return 0;
}

/* Over the workspace's quota, or an archive holding what import_files
 * cannot leave out: 1 (answered), else 0. */
static int import_refused(struct import *op)
{
	if (import_over(op, op->archive ? " while it is extracted (its files' sizes, each "
			"rounded up to whole pages of 4 KiB as the quota counts them then)" : ""))
		return 1;
	if (op->archive && op->t.m.unnameable) {
		tool_error(op->r, "%s: not extracted: a fifo, device or socket in it has a newline "
			   "in its name, which import_files cannot leave out. Nothing was written.",
			   op->hp);
		return 1;
	}
	return 0;
}

/* A file (op->name) or a directory copied into c->dst (closed then), the
 * workspace's size told, and the answer (op->res, taken). */
static void import_copy(struct import *op)
{
	struct copy *c = &op->c;
	cJSON *res = op->res;
	const char *ws = op->ws;
	char err[1500];
	if (op->name)
		c->failed = copy_file(c, op->h.fd, &op->h.st, op->name) < 0;
	else
		copy_tree(c, openat(op->h.fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	close(c->dst);
	if (c->failed || c->over) {
		ws_size_forget(ws);     /* partly copied: measured again */
		cJSON_Delete(res);
		tool_error(op->r, "%s: %s; what was copied before stays in workspace %s (list_files "
			   "shows it)", op->hp, c->err, ws);
		return;
	}
	if (op->name) {     /* one file: its bytes, and an inode when it is new */
		struct sr_delta d = { c->delta, op->existed ? 0 : 1 };
		ws_size_add(ws, op->wfd, &d);
	} else {
		struct sr_usage u;      /* the files and directories it made: measured again */
		ws_size_forget(ws);
		(void)ws_size(ws, op->wfd, &u);
	}
	cJSON_AddStringToObject(res, "kind", op->name ? "file" : "dir");
	cJSON_AddNumberToObject(res, "files", (double)c->files);
	cJSON_AddNumberToObject(res, "bytes", (double)c->bytes);
	cJSON_AddNumberToObject(res, "skipped", (double)c->skipped);
	cJSON_AddNumberToObject(res, "left_out", (double)c->skipped);
	cJSON_AddNumberToObject(res, "mode_changed", (double)c->changed);
	snprintf(err, sizeof err, "copied %s into workspace %s at /workspace/%s: %zu file%s, "
		 "%llu bytes%s%s%s%s", op->hp, ws, op->rel, c->files, c->files == 1 ? "" : "s",
		 (unsigned long long)c->bytes, c->skipped ? "; skipped (links, files of several "
		 "links, fifos, devices and sockets): " : "", c->skipped_names,
		 c->changed ? "; set-user-ID, set-group-ID and sticky bits dropped from: " : "",
		 c->changed_names);
	tool_ws_reply(op->r, res, err);
}

/* Carried out: the destination directory (the file's parent for a file)
 * made, then the archive extracted or the file or directory copied; the
 * reply. */
static void import_act(struct import *op)
{
	char err[1500];
	const char *at = op->name ? op->dir : op->rel;
	op->c.dst = fs_dir_open(op->wfd, at, 1);
	if (op->c.dst < 0) {
		fs_path_why(err, sizeof err, at, errno);
		tool_error(op->r, "%s", err);
		return;
	}
	op->res = cJSON_CreateObject();
	cJSON_AddStringToObject(op->res, "workspace_id", op->ws);
	cJSON_AddStringToObject(op->res, "dest", op->rel);
	if (op->archive) {
		close(op->c.dst);
		archive_extract(op);    /* (sr-jail --quota-cache added what it wrote) */
		return;
	}
	import_copy(op);
}

/* import_files: arguments -> plan (the source judged, the destination, what
 * it would add) -> refused, or carried out -> the reply. */
void tool_import_files(struct proto_req *r, const cJSON *args)
{
	struct import op = { .r = r, .extract = 1, .wfd = -1 };
	char err[1500];
	if (import_args(&op, args) < 0)
		return;
	if (tool_tar_host_open(op.hp, &op.h, err, sizeof err) < 0) {
		tool_error(r, "%s", err);
		return;
	}
	snprintf(op.ws, sizeof op.ws, "%s", op.wsa ? op.wsa : "");
	op.archive = import_source(&op);
	if (op.archive >= 0 && import_dest(&op) == 0 && import_plan(&op) == 0 &&
	    !import_refused(&op))
		import_act(&op);
	if (op.wfd >= 0)
		close(op.wfd);
	tool_tar_members_free(&op.t.m);
	tool_tar_host_close(&op.h);
}
