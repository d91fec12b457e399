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

#include "tool.h"
#include "sr.h"
#include "tool_tar.h"

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

struct export {
	int fd;
	uint64_t bytes;
	int over, io_error, raced, too_many, archiving;
	volatile int *cancel;
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
	if (sr_write_all(e->fd, p, n) < 0) {
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
 * (archive) the archive to e->fd. Its exit status. */
static int export_tar(struct proto_req *r, const char *ws, struct export *e, int archive,
		      const char *excl)
{
	struct tar_lines l = { .fn = archive ? export_err_line : export_list_line, .ctx = e },
		     nl = { .fn = export_err_line, .ctx = e };
	struct tar_chain c;
	e->archiving = archive;
	tool_tar_chain_start(&c, "--ro-bind", ws, 0, excl);
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
	struct spawn_io io = { .in_fd = -1, .stop = &r->cancelled };
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

/* A name safe inside '...' in a shell and on a comment line. */
static int shell_safe(const char *s, const char *extra)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      strchr(extra, *s)))
			return 0;
	return 1;
}

static void put(char **b, size_t *len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void put(char **b, size_t *len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	*b = realloc(*b, *len + (size_t)n + 1);
	if (!*b)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	va_start(ap, fmt);
	vsnprintf(*b + *len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	*len += (size_t)n;
}

/* The pip packages of .sr/python (NAME-VERSION.dist-info), as
 * 'NAME==VERSION' words; names that are not plain are left out and
 * counted in *odd. */
static char *pip_packages(int wfd, size_t *count, size_t *odd)
{
	char *out = xstrdup("");
	size_t len = 0;
	*count = *odd = 0;
	int d = fs_openat2(wfd, ".sr/python", O_RDONLY | O_DIRECTORY, 0);
	DIR *dir = d >= 0 ? fdopendir(d) : NULL;
	if (!dir) {
		if (d >= 0)
			close(d);
		return out;
	}
	struct dirent *e;
	while ((e = readdir(dir)) && *count < 2000) {
		size_t n = strlen(e->d_name);
		if (n <= 10 || strcmp(e->d_name + n - 10, ".dist-info"))
			continue;
		char name[256];
		snprintf(name, sizeof name, "%.*s", (int)(n - 10), e->d_name);
		char *dash = strchr(name, '-');
		if (!dash || !shell_safe(dash + 1, ".+!_") || (*dash = '\0', !shell_safe(name, "._"))) {
			(*odd)++;
			continue;
		}
		put(&out, &len, " '%s==%s'", name, dash + 1);
		(*count)++;
	}
	closedir(dir);
	return out;
}

/* package.json's dependencies, for the comment: "name@spec" words. */
static char *npm_packages(int wfd, int *has)
{
	char *out = xstrdup("");
	size_t len = 0;
	cJSON *deps = tool_npm_deps(wfd, has, NULL, NULL);
	const cJSON *d;
	/* a registry name and version only, as install_packages takes: no
	 * git, URL or path that npm would act on outside the sandbox */
	cJSON_ArrayForEach(d, deps)
		if (shell_safe(d->valuestring, "@/._~-^<>=*|+") && len < 4000)
			put(&out, &len, " '%s'", d->valuestring);
	cJSON_Delete(deps);
	return out;
}

/* A version line for a comment: printable ASCII, no quote. */
static void plain(char *dst, size_t n, const char *s)
{
	size_t i = 0;
	for (; s && *s && i + 1 < n; s++)
		dst[i++] = *s >= ' ' && *s < 127 && *s != '\'' && *s != '\\' ? *s : '?';
	dst[i] = '\0';
}

/* The recipe's languages: sr-mcp's runners then, this machine now. */
static void recipe_languages(char **bp, size_t *lp)
{
	static const struct { const char *runner, *cmd; } probe[] = {
		{ "python", "python3 --version" }, { "javascript", "node --version" },
		{ "bash", "bash --version" }, { "typescript", "tsc --version" },
	};
	runner_versions();
	for (size_t i = 0; i < runner_count; i++) {
		char v[200];
		plain(v, sizeof v, runner_all[i].version ? runner_all[i].version : "(unknown)");
		const char *cmd = NULL;
		for (size_t k = 0; k < sizeof probe / sizeof *probe; k++)
			if (!strcmp(probe[k].runner, runner_all[i].name))
				cmd = probe[k].cmd;
		if (cmd)
			put(bp, lp, "printf '%%s\\n' \"%s: was '%s', here: $(%s 2>&1 | head -n 1 "
			    "|| true)\"\n", runner_all[i].name, v, cmd);
		else
			put(bp, lp, "# %s: %s\n", runner_all[i].name, v);
	}
}

/* The recipe's packages: pip's (--target .sr/python) and npm's, listed,
 * installed again with SR_INSTALL=1. */
static void recipe_packages(char **bp, size_t *lp, const char *pip, size_t npip, size_t odd,
			    const char *npm, int has_npm)
{
	put(bp, lp, "\n# The packages%s.\n", !npip && !has_npm ? ": none were installed" : "");
	if (npip)
		put(bp, lp, "# pip's in .sr/python (pip install --target), with their versions%s.\n",
		    odd ? " (some with unusual names left out)" : "");
	if (has_npm)
		put(bp, lp, "# npm's in package.json:%s\n", npm);
	if (npip || has_npm) {
		put(bp, lp, "if [ \"${SR_INSTALL-}\" = 1 ]; then\n\tcd -- \"$dir\"\n");
		if (npip)
			put(bp, lp, "\tpython3 -I -m pip install --upgrade --target .sr/python%s\n",
			    pip);
		/* npm in a directory of its own, then its tree moved in: npm reads
		 * no .npmrc or package.json the sandboxed code wrote */
		if (has_npm && *npm)
			put(bp, lp, "\tt=$(mktemp -d)\n"
			    "\techo '{}' > \"$t/package.json\"\n"
			    "\t(cd \"$t\" && npm install --ignore-scripts --no-audit --no-fund%s)\n"
			    "\trm -rf node_modules && mv \"$t/node_modules\" node_modules && rm -rf \"$t\"\n",
			    npm);
		put(bp, lp, "else\n\techo \"packages: not installed (SR_INSTALL=1 installs "
		    "them; the archive has them)\"\nfi\n");
	}
}

static char *recipe(int wfd, const char *ws, const char *archive, const char *when)
{
	char *b = NULL;
	size_t len = 0, npip, odd;
	int has_npm;
	char *pip = pip_packages(wfd, &npip, &odd), *npm = npm_packages(wfd, &has_npm);
	put(&b, &len,
	    "#!/bin/sh\n"
	    "# Rebuilds workspace %s of sr-mcp, exported %s by sr-mcp %s:\n"
	    "#   sh THIS-SCRIPT [DIR]\n"
	    "# unpacks %s (beside this script) into DIR (default ./%s)\n"
	    "# and compares the languages with those sr-mcp ran; with SR_INSTALL=1 it\n"
	    "# also installs again, from the registries, the packages the workspace had\n"
	    "# (the archive holds them already). In sr-mcp the files were under\n"
	    "# /workspace, the working directory of every run.\n"
	    "# The files were written by code run in the sandbox: links in them may\n"
	    "# point anywhere, and package.json or .npmrc may ask npm for anything.\n"
	    "# SR_INSTALL=1 reads none of them: pip runs as python3 -I (the directory\n"
	    "# off Python's path), npm with --ignore-scripts in a new directory of its\n"
	    "# own (no .npmrc or package.json of the archive's), only for the registry\n"
	    "# names and versions listed here.\n"
	    "# It refuses to run as root: what sandboxed code wrote is not root's to\n"
	    "# unpack (set-ID bits and owners are dropped, but do not rely on that).\n"
	    "set -eu\n"
	    "if [ \"$(id -u)\" = 0 ]; then\n"
	    "\techo \"$0: refusing to run as root: the files were written by sandboxed code; "
	    "run it as an ordinary user\" >&2\n"
	    "\texit 1\n"
	    "fi\n"
	    "here=$(CDPATH= cd -- \"$(dirname -- \"$0\")\" && pwd)\n"
	    "dir=${1:-%s}\n"
	    "mkdir -p -- \"$dir\"\n"
	    "tar -xzf \"$here/%s\" -C \"$dir\" --no-same-owner --no-same-permissions\n"
	    "echo \"unpacked %s into $dir\"\n\n"
	    "# The languages: sr-mcp's runners then, this machine now.\n",
	    ws, when, SR_VERSION, archive, ws, ws, archive, archive);
	recipe_languages(&b, &len);
	recipe_packages(&b, &len, pip, npip, odd, npm, has_npm);
	free(pip);
	free(npm);
	return b;
}

static void export_stem(const char *ws, int i, char *stem, size_t slen, char *a, char *s,
			size_t len)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%S", &tm);
	if (i == 1)
		snprintf(stem, slen, "sr-workspace-%s-%s", ws, stamp);
	else
		snprintf(stem, slen, "sr-workspace-%s-%s-%d", ws, stamp, i);
	snprintf(a, len, "%s.tar.gz", stem);
	snprintf(s, len, "%s.sh", stem);
}

/* The archive and the recipe, unnamed (O_TMPFILE) in the host directory
 * hfd: they get their names only when complete (export_publish), so a
 * crash or a failure leaves nothing behind. 0, or -1 (errno). */
static int export_unnamed(int hfd, int *afd, int *rfd)
{
	*afd = openat(hfd, ".", O_WRONLY | O_TMPFILE | O_CLOEXEC, 0600);
	if (*afd < 0)
		return -1;
	*rfd = openat(hfd, ".", O_WRONLY | O_TMPFILE | O_CLOEXEC, 0700);
	if (*rfd >= 0)
		return 0;
	int e = errno;
	close(*afd);
	*afd = -1;
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

/* Write the recipe for the archive named a into rfd, from its start. */
static char *write_recipe(int rfd, int wfd, const char *ws, const char *a, const char *when)
{
	char *text = recipe(wfd, ws, a, when);
	if (ftruncate(rfd, 0) < 0 || pwrite(rfd, text, strlen(text), 0) != (ssize_t)strlen(text)) {
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
static char *export_publish(int hfd, int wfd, const char *ws, const char *when, int afd,
			    int rfd, char *a, char *s, size_t len)
{
	char stem[300];
	if (fsync(afd) < 0)
		return NULL;
	for (int i = 1; i < 100; i++) {
		export_stem(ws, i, stem, sizeof stem, a, s, len);
		if (link_fd(afd, hfd, a) < 0) {
			if (errno == EEXIST)
				continue;
			return NULL;
		}
		char *text = write_recipe(rfd, wfd, ws, a, when);
		if (text && fsync(rfd) == 0 && link_fd(rfd, hfd, s) == 0) {
			(void)fsync(hfd);
			return text;
		}
		int e = errno;
		free(text);
		unlinkat(hfd, a, 0);
		if (e != EEXIST) {
			errno = e;
			return NULL;
		}
	}
	errno = EEXIST;
	return NULL;
}

/* Where the file system has no O_TMPFILE: NAME.tar.gz and NAME.sh, both
 * new, made under their names at once in hfd. */
static int export_files(int hfd, const char *ws, char *stem, size_t slen, int *afd, int *rfd)
{
	char a[600], s[600];
	for (int i = 1; i < 100; i++) {
		export_stem(ws, i, stem, slen, a, s, sizeof a);
		*afd = openat(hfd, a, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (*afd < 0 && errno == EEXIST)
			continue;
		if (*afd < 0)
			return -1;
		*rfd = openat(hfd, s, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0700);
		if (*rfd >= 0)
			return 0;
		int e = errno;
		close(*afd);
		unlinkat(hfd, a, 0);
		if (e != EEXIST) {
			errno = e;
			return -1;
		}
	}
	errno = EEXIST;
	return -1;
}

/* tar's two passes: a listing (what to leave out), then the archive; tar's
 * exit status (0 or 1 when it ran), e's flags say what went wrong. */
static int export_run(struct proto_req *r, const char *ws, struct export *e)
{
	int rc = export_tar(r, ws, e, 0, NULL), failed = 0;
	const char *excl = NULL;
	if (rc == 0 || rc == 1) {
		excl = e->too_many || e->m.unnameable ? NULL : tool_tar_members_file(&e->m, &failed);
		if (failed)
			e->io_error = errno ? errno : EIO;
		else if (!e->too_many && !e->m.unnameable && !r->cancelled)
			rc = export_tar(r, ws, e, 1, excl);
	}
	return rc;
}

/* Why nothing was exported (the files removed already). */
static void export_fail(struct proto_req *r, const char *ws, const struct export *e, int rc,
			int refused, const char *path)
{
	if (refused)
		tool_error(r, "workspace %s: not exported, nothing was kept: %s", ws,
			   e->too_many ? "it holds more than " TAR_EXCLUDE_MAX_S " fifos, devices "
			   "and sockets, which export_workspace leaves out; delete them (run_code, "
			   "e.g. find . -type p -delete)" : e->m.unnameable ? "a fifo, device or "
			   "socket in it has a newline in its name, which export_workspace cannot "
			   "leave out; delete or rename it (run_code)" : "a fifo, device or socket "
			   "appeared in it while it was archived (a run still going?); try again");
	else if (e->over)     /* (a cancelled call's answer is dropped by proto_result) */
		tool_error(r, "workspace %s: the archive passed export_workspace's cap of "
			   "%llu MiB (compressed) and was removed. Delete what is not needed "
			   "(delete_path), or leave out big files with run_code (move them "
			   "away, export, move them back)", ws, EXPORT_MAX >> 20);
	else if (e->io_error)
		tool_error(r, "unable to write %s: %s (nothing was kept)", path,
			   strerror(e->io_error));
	else
		tool_error(r, "workspace %s: tar in the sandbox failed (exit %d%s); nothing "
			   "was kept. %s", ws, rc, rc == 124 ? ": its wall clock of "
			   TAR_TIMEOUT " ran out" : "", e->note.text);
}

/* The archive at path and the recipe at rpath (text) made: the answer. */
static void export_reply(struct proto_req *r, const char *ws, struct export *e, int afd,
			 const char *path, const char *rpath, const char *a, const char *s,
			 const char *text)
{
	struct stat st;
	if (fstat(afd, &st) == 0)
		e->bytes = (uint64_t)st.st_size;
	cJSON *res = cJSON_CreateObject();
	char *uri = file_uri(path);
	cJSON_AddStringToObject(res, "workspace_id", ws);
	cJSON_AddStringToObject(res, "path", path);
	cJSON_AddStringToObject(res, "uri", uri);
	cJSON_AddNumberToObject(res, "bytes", (double)e->bytes);
	cJSON_AddNumberToObject(res, "files", (double)e->files);
	cJSON_AddStringToObject(res, "recipe", rpath);
	if (e->note.len)
		cJSON_AddStringToObject(res, "warnings", e->note.text);
	free(uri);
	char *msg = NULL, changes[2 * TAR_NAMES_CAP + 300];
	size_t mlen = 0;
	tool_tar_members_report(&e->m, res, changes, sizeof changes);
	put(&msg, &mlen, "exported workspace %s: %zu files, %llu bytes (tar.gz) to %s. Beside it, "
	    "%s rebuilds it elsewhere (sh %s DIR, as an ordinary user, not root: unpack, compare "
	    "the languages; with SR_INSTALL=1 install the packages again). Symbolic links were "
	    "archived as links.%s import_files with host_path %s brings it back into a "
	    "workspace.%s%s", ws, e->files, (unsigned long long)e->bytes, path, rpath, s, changes, a,
	    e->note.len ? "\ntar said:\n" : "", e->note.text);
	cJSON *out = tool_result(res, msg, 0), *content = cJSON_GetObjectItem(out, "content");
	cJSON_AddItemToArray(content, link_block(path, a, "application/gzip", e->bytes,
						 "The workspace's files, a gzip-compressed tar archive"));
	cJSON_AddItemToArray(content, link_block(rpath, s, "text/x-shellscript", strlen(text),
						 "A shell script that rebuilds the workspace from the archive"));
	free(msg);
	proto_result(r, out);
}

/* The export directory (the first --host-dir) open, its real path in dir
 * (PATH_MAX); -1 when it cannot be (answered). */
static int export_dir(struct proto_req *r, char *dir)
{
	const char *host = cfg.host_dirs[0];
	int hfd = open(host, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (hfd < 0 || !realpath(host, dir)) {
		tool_error(r, "the export directory %s cannot be opened (%s): the administrator "
			   "must make it (the first --host-dir)", host, strerror(errno));
		if (hfd >= 0)
			close(hfd);
		return -1;
	}
	return hfd;
}

void tool_export_workspace(struct proto_req *r, const cJSON *args)
{
	const char *T = "export_workspace", *ws;
	char err[1200], stem[300], dir[PATH_MAX], when[32], a[700] = "", s[700] = "";
	if (tool_tar_no_host_dirs(r, T) || tool_arg_ws(r, T, args, &ws) < 0)
		return;
	int wfd = ws_open(ws, 0, err, sizeof err), hfd = -1, afd = -1, rfd = -1;
	if (wfd < 0) {
		tool_error(r, "%s", err);
		return;
	}
	struct export e = { .fd = -1 };
	if ((hfd = export_dir(r, dir)) < 0)
		goto out;
	int unnamed = export_unnamed(hfd, &afd, &rfd) == 0;
	if (!unnamed && export_files(hfd, ws, stem, sizeof stem, &afd, &rfd) < 0) {
		tool_error(r, "unable to create a file in %s: %s", dir, strerror(errno));
		goto out;
	}
	if (!unnamed) {
		snprintf(a, sizeof a, "%s.tar.gz", stem);
		snprintf(s, sizeof s, "%s.sh", stem);
	}
	tool_iso_time(time(NULL), when, sizeof when);

	e.fd = afd;
	int rc = export_run(r, ws, &e);
	char path[PATH_MAX + 700], rpath[PATH_MAX + 700];
	char *text = NULL;
	int refused = e.too_many || e.m.unnameable || e.raced;
	if (!(refused || e.over || e.io_error || (rc != 0 && rc != 1) || r->cancelled)) {
		text = unnamed ? export_publish(hfd, wfd, ws, when, afd, rfd, a, s, sizeof a) :
			         write_recipe(rfd, wfd, ws, a, when);
		if (!text)
			e.io_error = errno ? errno : EIO;
	}
	snprintf(path, sizeof path, "%s/%s", dir, unnamed && !text ? "" : a);
	snprintf(rpath, sizeof rpath, "%s/%s", dir, s);
	if (!text || e.io_error) {
		if (!unnamed) {
			unlinkat(hfd, a, 0);
			unlinkat(hfd, s, 0);
		}
		export_fail(r, ws, &e, rc, refused, path);
		free(text);
		goto out;
	}
	export_reply(r, ws, &e, afd, path, rpath, a, s, text);
	free(text);
out:
	tool_tar_members_free(&e.m);
	if (afd >= 0)
		close(afd);
	if (rfd >= 0)
		close(rfd);
	if (hfd >= 0)
		close(hfd);
	close(wfd);
}

