/* tool_export.c - export_workspace: a workspace's files out to the first
 * host directory the administrator allowed, archived by tar in the
 * sandbox, with a recipe beside it. Why and how: see tool_tar.c. */
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

#include "mcp.h"
#include "proto.h"
#include "spawn.h"
#include "tool.h"
#include "tool_tar.h"
#include "ws.h"
#include "sr.h"

#define EXPORT_MAX (1ULL << 30)         /* an archive, compressed, at most */

/* file:// and the path, percent-encoded where RFC 3986 wants it. */
static char *file_uri(const char *path)
{
	char *u = xmalloc(strlen(path) * 3 + 8), *q = u;
	q += sprintf(q, "file://");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("/-._~", *p))
			*q++ = (char)*p;
		else
			q += sprintf(q, "%%%02X", *p);
	}
	*q = '\0';
	return u;
}

static cJSON *link_block(const char *path, const char *name, const char *mime, uint64_t size,
			 const char *desc)
{
	cJSON *b = cJSON_CreateObject();
	char *uri = file_uri(path);
	cJSON_AddStringToObject(b, "type", "resource_link");
	cJSON_AddStringToObject(b, "uri", uri);
	cJSON_AddStringToObject(b, "name", name);
	cJSON_AddStringToObject(b, "description", desc);
	cJSON_AddStringToObject(b, "mimeType", mime);
	cJSON_AddNumberToObject(b, "size", (double)size);
	free(uri);
	return b;
}

/* ---- export_workspace --------------------------------------------------- */

/* One export_workspace call, as it goes: its argument; the plan (the
 * workspace and the export directory open, the archive's and the recipe's
 * files made, unnamed where the file system can); tar's two passes (what
 * it saw, what went wrong); refused or failed (the files removed), or the
 * files named; the reply. */
struct export {
	struct proto_req *r;
	const char *ws;                /* the argument */
	int wfd, hfd;                  /* the workspace; the export directory */
	char dir[PATH_MAX];            /* the export directory's real path */
	int afd, rfd;                  /* the archive, the recipe */
	int unnamed;                   /* afd and rfd are O_TMPFILE: named at the end */
	char stem[300], a[700], s[700];   /* their names */
	char when[32];
	char path[PATH_MAX + 700], rpath[PATH_MAX + 700];
	char *text;                    /* the recipe's */
	const char *root;              /* the environment's root (NULL: the host's) */
	char dpath[PATH_MAX + 700];    /* the Dockerfile, made ("": not) */
	int derr;                      /* why not (errno) */
	int rc, refused;               /* tar's exit status; what tar saw refuses it */
	/* what tar saw and wrote */
	uint64_t bytes;
	int over, io_error, raced, too_many, archiving;
	size_t files;
	struct tar_note note;
	struct tar_members m;
};

static int export_out(void *ctx, const char *p, size_t n)
{
	struct export *e = ctx;
	if (e->bytes + n > EXPORT_MAX) {
		e->over = 1;
		return -1;
	}
	if (sr_write_all(e->afd, p, n) < 0) {
		e->io_error = errno;
		return -1;
	}
	e->bytes += n;
	return 0;
}

/* A message of tar's: kept; a socket it ignored counted as left out. */
static void export_note(struct export *e, char *line)
{
	size_t k = strlen(line);
	char *q = line + 5, *end = tool_tar_quoted_end(q);
	if (end && k > 18 && !strcmp(line + k - 17, ": socket ignored")) {
		if (e->archiving)   /* counted at the first look */
			return;
		e->m.nskip++;
		tool_tar_names_add(e->m.left_out, q, end);
		return;
	}
	tool_tar_note_add(&e->note, line);
}

/* The first look (tar -cvv to /dev/null: names, types and modes, no
 * file read): what to leave out, what will change. */
static int export_list_line(struct tar_lines *l, char *line, size_t len)
{
	struct export *e = l->ctx;
	struct tar_member m;
	(void)len;
	if (!strncmp(line, "tar: ", 5))
		export_note(e, line);
	else if (tool_tar_member_parse(line, &m) == 0 && tool_tar_members_see(&e->m, &m) < 0)
		e->too_many = 1;
	return e->too_many ? -1 : 0;
}

/* The archive made (tar -czvv, its names on stderr): files counted, and
 * a special file there (made since the first look) stops it. */
static int export_err_line(struct tar_lines *l, char *line, size_t len)
{
	struct export *e = l->ctx;
	struct tar_member m;
	(void)len;
	if (!strncmp(line, "tar: ", 5)) {
		export_note(e, line);
		return 0;
	}
	if (tool_tar_member_parse(line, &m) < 0)
		return 0;
	if (!strchr("-dlhC", m.type) || !m.type) {
		e->raced = 1;
		return -1;
	}
	e->files += m.type != 'd';
	return 0;
}

/* tar in the sandbox over the workspace, read-only: the first look, or
 * (archive) the archive to e->afd. Its exit status. */
static int export_tar(struct export *e, int archive, const char *excl)
{
	struct tar_lines l = { .fn = archive ? export_err_line : export_list_line, .ctx = e },
		     nl = { .fn = export_err_line, .ctx = e };
	struct tar_chain c;
	e->archiving = archive;
	tool_tar_chain_start(&c, "--ro-bind", e->ws, 0, excl);
	tool_tar_chain_add(&c, archive ? "-czvvf" : "-cvvf");
	tool_tar_chain_add(&c, archive ? "-" : "/dev/null");
	tool_tar_chain_add(&c, "--numeric-owner");
	tool_tar_chain_add(&c, "--quoting-style=c");
	if (archive)        /* no set-ID or sticky bit leaves */
		tool_tar_chain_add(&c, "--mode=ug-s,a-t");
	tool_tar_members_args(&c, &e->m);
	tool_tar_chain_add(&c, "-C");
	tool_tar_chain_add(&c, "/workspace");
	tool_tar_chain_add(&c, ".");
	struct spawn_io io = { .in_fd = -1, .stop = &e->r->cancelled };
	if (archive) {
		io.out = export_out;
		io.out_ctx = e;
		io.err = tool_tar_lines_sink;
		io.err_ctx = &l;
	} else {            /* (tar -v to /dev/null lists on stdout) */
		nl.fn = export_list_line;
		io.out = tool_tar_lines_sink;
		io.out_ctx = &l;
		io.err = tool_tar_lines_sink;
		io.err_ctx = &nl;
	}
	int rc = spawn_io(c.v, &io);
	if (tool_tar_lines_end(&l) < 0 && !archive)
		e->too_many = 1;
	if (!archive)
		tool_tar_lines_end(&nl);
	return rc;
}

/* The names of the archive and the recipe, the i-th try: op->stem, op->a,
 * op->s. */
static void export_stem(struct export *op, int i)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%S", &tm);
	if (i == 1)
		snprintf(op->stem, sizeof op->stem, "sr-workspace-%s-%s", op->ws, stamp);
	else
		snprintf(op->stem, sizeof op->stem, "sr-workspace-%s-%s-%d", op->ws, stamp, i);
	snprintf(op->a, sizeof op->a, "%s.tar.gz", op->stem);
	snprintf(op->s, sizeof op->s, "%s.sh", op->stem);
}

/* The archive and the recipe, unnamed (O_TMPFILE) in the export
 * directory: they get their names only when complete (export_publish), so
 * a crash or a failure leaves nothing behind. 0, or -1 (errno). */
static int export_unnamed(struct export *op)
{
	op->afd = openat(op->hfd, ".", O_WRONLY | O_TMPFILE | O_CLOEXEC, 0600);
	if (op->afd < 0)
		return -1;
	op->rfd = openat(op->hfd, ".", O_WRONLY | O_TMPFILE | O_CLOEXEC, 0700);
	if (op->rfd >= 0)
		return 0;
	int e = errno;
	close(op->afd);
	op->afd = -1;
	errno = e;
	return -1;
}

/* Name an unnamed file: linkat never replaces an existing name, a symbolic
 * link included. */
static int link_fd(int fd, int hfd, const char *name)
{
	char self[64];
	snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
	return linkat(AT_FDCWD, self, hfd, name, AT_SYMLINK_FOLLOW);
}

/* The recipe for the archive op->a written into op->rfd, from its start:
 * its text (op->text), or NULL (errno). */
static char *write_recipe(struct export *op)
{
	char *text = tool_recipe(op->wfd, op->ws, op->a, op->when);
	if (ftruncate(op->rfd, 0) < 0 ||
	    pwrite(op->rfd, text, strlen(text), 0) != (ssize_t)strlen(text)) {
		int e = errno;
		free(text);
		errno = e ? e : EIO;
		return NULL;
	}
	return text;
}

/* Give the unnamed archive and recipe their names: the archive first, then
 * the recipe that names it, both made durable before they appear. The
 * recipe's text, or NULL (errno; nothing was left named). */
static char *export_publish(struct export *op)
{
	if (fsync(op->afd) < 0)
		return NULL;
	for (int i = 1; i < 100; i++) {
		export_stem(op, i);
		if (link_fd(op->afd, op->hfd, op->a) < 0) {
			if (errno == EEXIST)
				continue;
			return NULL;
		}
		char *text = write_recipe(op);
		if (text && fsync(op->rfd) == 0 && link_fd(op->rfd, op->hfd, op->s) == 0) {
			(void)fsync(op->hfd);
			return text;
		}
		int e = errno;
		free(text);
		unlinkat(op->hfd, op->a, 0);
		if (e != EEXIST) {
			errno = e;
			return NULL;
		}
	}
	errno = EEXIST;
	return NULL;
}

/* Where the file system has no O_TMPFILE: NAME.tar.gz and NAME.sh, both
 * new, made under their names at once in the export directory. */
static int export_files(struct export *op)
{
	for (int i = 1; i < 100; i++) {
		export_stem(op, i);
		op->afd = openat(op->hfd, op->a, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				 O_CLOEXEC, 0600);
		if (op->afd < 0 && errno == EEXIST)
			continue;
		if (op->afd < 0)
			return -1;
		op->rfd = openat(op->hfd, op->s, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				 O_CLOEXEC, 0700);
		if (op->rfd >= 0)
			return 0;
		int e = errno;
		close(op->afd);
		op->afd = -1;
		unlinkat(op->hfd, op->a, 0);
		if (e != EEXIST) {
			errno = e;
			return -1;
		}
	}
	errno = EEXIST;
	return -1;
}

/* tar's two passes: a listing (what to leave out), then the archive; tar's
 * exit status (0 or 1 when it ran), op's flags say what went wrong. */
static int export_run(struct export *op)
{
	int rc = export_tar(op, 0, NULL), failed = 0;
	const char *excl = NULL;
	if (rc == 0 || rc == 1) {
		excl = op->too_many || op->m.unnameable ? NULL :
		       tool_tar_members_file(&op->m, &failed);
		if (failed)
			op->io_error = errno ? errno : EIO;
		else if (!op->too_many && !op->m.unnameable && !op->r->cancelled)
			rc = export_tar(op, 1, excl);
	}
	return rc;
}

/* Why nothing was exported (the files removed already). */
static void export_fail(const struct export *op)
{
	struct proto_req *r = op->r;
	const char *ws = op->ws;
	if (op->refused)
		tool_error(r, "workspace %s: not exported, nothing was kept: %s", ws,
			   op->too_many ? "it holds more than " TAR_EXCLUDE_MAX_S " fifos, devices "
			   "and sockets, which export_workspace leaves out; delete them (run_code, "
			   "e.g. find . -type p -delete)" : op->m.unnameable ? "a fifo, device or "
			   "socket in it has a newline in its name, which export_workspace cannot "
			   "leave out; delete or rename it (run_code)" : "a fifo, device or socket "
			   "appeared in it while it was archived (a run still going?); try again");
	else if (op->over)     /* (a cancelled call's answer is dropped by proto_result) */
		tool_error(r, "workspace %s: the archive passed export_workspace's cap of "
			   "%llu MiB (compressed) and was removed. Delete what is not needed "
			   "(delete_path), or leave out big files with run_code (move them "
			   "away, export, move them back)", ws, EXPORT_MAX >> 20);
	else if (op->io_error)
		tool_error(r, "unable to write %s: %s (nothing was kept)", op->path,
			   strerror(op->io_error));
	else
		tool_error(r, "workspace %s: tar in the sandbox failed (exit %d%s); nothing "
			   "was kept. %s", ws, op->rc, op->rc == 124 ? ": its wall clock of "
			   TAR_TIMEOUT " ran out" : "", op->note.text);
}

/* STEM.Dockerfile beside the archive, new (never over a file or through a
 * link): its path in op->dpath, or why not in op->derr. */
static void export_dockerfile(struct export *op)
{
	char name[sizeof op->stem + 16];
	snprintf(name, sizeof name, "%s.Dockerfile", op->stem);
	char *text = tool_dockerfile(op->wfd, op->ws, op->stem, op->root, op->when);
	int fd = openat(op->hfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0 && sr_write_all(fd, text, strlen(text)) == 0 && fsync(fd) == 0)
		snprintf(op->dpath, sizeof op->dpath, "%s/%s", op->dir, name);
	else
		op->derr = errno ? errno : EIO;
	if (fd >= 0 && !*op->dpath)
		unlinkat(op->hfd, name, 0);
	if (fd >= 0)
		close(fd);
	free(text);
}

/* The archive at op->path and the recipe at op->rpath made: the answer. */
static void export_reply(struct export *op)
{
	struct stat st;
	if (fstat(op->afd, &st) == 0)
		op->bytes = (uint64_t)st.st_size;
	cJSON *res = cJSON_CreateObject();
	char *uri = file_uri(op->path);
	cJSON_AddStringToObject(res, "workspace_id", op->ws);
	cJSON_AddStringToObject(res, "path", op->path);
	cJSON_AddStringToObject(res, "uri", uri);
	cJSON_AddNumberToObject(res, "bytes", (double)op->bytes);
	cJSON_AddNumberToObject(res, "files", (double)op->files);
	cJSON_AddStringToObject(res, "recipe", op->rpath);
	if (*op->dpath) {
		cJSON_AddStringToObject(res, "dockerfile", op->dpath);
	} else {
		char w[200];
		snprintf(w, sizeof w, "the Dockerfile could not be written beside the archive: %s",
			 strerror(op->derr));
		tool_tar_note_add(&op->note, w);
	}
	if (op->note.len)
		cJSON_AddStringToObject(res, "warnings", op->note.text);
	free(uri);
	char *msg = NULL, changes[2 * TAR_NAMES_CAP + 300];
	size_t mlen = 0;
	tool_tar_members_report(&op->m, res, changes, sizeof changes);
	tool_put(&msg, &mlen, "exported workspace %s: %zu files, %llu bytes (tar.gz) to %s. Beside it, "
	    "%s rebuilds it elsewhere (sh %s DIR, as an ordinary user, not root: unpack, compare "
	    "the languages; with SR_INSTALL=1 install the packages again)%s%s%s. Symbolic links "
	    "were archived as links.%s import_files with host_path %s brings it back into a "
	    "workspace.%s%s", op->ws, op->files, (unsigned long long)op->bytes, op->path,
	    op->rpath, op->s, *op->dpath ? "; and " : "", op->dpath, *op->dpath ? " rebuilds it "
	    "as an image (docker build -f IT -t NAME . in that directory)" : "", changes, op->a,
	    op->note.len ? "\ntar said:\n" : "", op->note.text);
	cJSON *out = tool_result(res, msg, 0), *content = cJSON_GetObjectItem(out, "content");
	cJSON_AddItemToArray(content, link_block(op->path, op->a, "application/gzip", op->bytes,
						 "The workspace's files, a gzip-compressed tar archive"));
	cJSON_AddItemToArray(content, link_block(op->rpath, op->s, "text/x-shellscript",
						 strlen(op->text), "A shell script that "
						 "rebuilds the workspace from the archive"));
	if (*op->dpath && stat(op->dpath, &st) == 0)
		cJSON_AddItemToArray(content, link_block(op->dpath, strrchr(op->dpath, '/') + 1,
			"text/plain", (uint64_t)st.st_size, "A Dockerfile that rebuilds the "
			"workspace as an image (the archive is its build context)"));
	free(msg);
	proto_result(op->r, out);
}

/* The plan: the export directory (the first --host-dir) open, its real
 * path in op->dir, and the archive's and the recipe's files made in it
 * (unnamed where the file system can); -1 when it cannot be (answered). */
static int export_plan(struct export *op)
{
	const char *host = cfg.host_dirs[0];
	op->hfd = open(host, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (op->hfd < 0 || !realpath(host, op->dir)) {
		tool_error(op->r, "the export directory %s cannot be opened (%s): the "
			   "administrator must make it (the first --host-dir)", host, strerror(errno));
		return -1;
	}
	op->unnamed = export_unnamed(op) == 0;
	if (!op->unnamed && export_files(op) < 0) {
		tool_error(op->r, "unable to create a file in %s: %s", op->dir, strerror(errno));
		return -1;
	}
	tool_iso_time(time(NULL), op->when, sizeof op->when);
	return 0;
}

/* Carried out: tar's passes; refused or failed (the files removed), or the
 * files named and the reply. */
static void export_act(struct export *op)
{
	op->rc = export_run(op);
	op->refused = op->too_many || op->m.unnameable || op->raced;
	if (!(op->refused || op->over || op->io_error || (op->rc != 0 && op->rc != 1) ||
	      op->r->cancelled)) {
		op->text = op->unnamed ? export_publish(op) : write_recipe(op);
		if (!op->text)
			op->io_error = errno ? errno : EIO;
	}
	snprintf(op->path, sizeof op->path, "%s/%s", op->dir, op->unnamed && !op->text ? "" : op->a);
	snprintf(op->rpath, sizeof op->rpath, "%s/%s", op->dir, op->s);
	if (!op->text || op->io_error) {
		if (!op->unnamed) {
			unlinkat(op->hfd, op->a, 0);
			unlinkat(op->hfd, op->s, 0);
		}
		export_fail(op);
		return;
	}
	export_dockerfile(op);
	export_reply(op);
}

/* Its environment argument (the Dockerfile's FROM), as run_code's. */
int tool_export_workspace_settings(cJSON *t)
{
	tool_env_schema(cJSON_GetObjectItem(cJSON_GetObjectItem(t, "inputSchema"), "properties"));
	return 1;
}

/* export_workspace: argument -> plan (the workspace, the export directory,
 * the files) -> tar's passes -> refused or failed, or published -> the
 * reply. */
void tool_export_workspace(struct proto_req *r, const cJSON *args)
{
	const char *T = "export_workspace";
	char err[1200];
	struct export op = { .r = r, .wfd = -1, .hfd = -1, .afd = -1, .rfd = -1 };
	const char *env = NULL;
	int known;
	if (tool_tar_no_host_dirs(r, T) || tool_arg_ws(r, T, args, &op.ws) < 0 ||
	    tool_arg_str(r, T, args, "environment", &env) < 0)
		return;
	op.root = tool_env_root(env, &known);
	if (!known) {
		tool_bad_args(r, T, "environment must be one that sandbox_info lists");
		return;
	}
	op.wfd = ws_open(op.ws, 0, err, sizeof err);
	if (op.wfd < 0) {
		tool_error(r, "%s", err);
		return;
	}
	if (export_plan(&op) == 0)
		export_act(&op);
	free(op.text);
	tool_tar_members_free(&op.m);
	if (op.afd >= 0)
		close(op.afd);
	if (op.rfd >= 0)
		close(op.rfd);
	if (op.hfd >= 0)
		close(op.hfd);
	close(op.wfd);
}
