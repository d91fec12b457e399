/* tool_tar.c - what export_workspace (tool_export.c) and import_files
 * (tool_import.c) share: tar in the sandbox, its output read a line at a
 * time, the members it lists, the host directories. Both tools: a workspace's files out
 * to, and in from, the host directories the administrator allowed
 * (--host-dir, SR_MCP_HOST_DIRS). With none, both tools say how to allow
 * one and touch nothing.
 *
 * sr-mcp runs with all the user's rights and the workspace is the
 * sandboxed code's to fill, so neither tool reads or writes through
 * anything that code planted:
 *
 *  - export: tar runs in the sandbox (sr-limit, sr-jail, sr-exec), the
 *    workspace bound read-only at /workspace. It archives a symbolic link
 *    as a link, and it can read only what the sandboxed code could. Its
 *    stdout is copied into a file sr-mcp made O_EXCL | O_NOFOLLOW in the
 *    first host directory, and cut at EXPORT_MAX bytes (sr-limit --fsize
 *    does not apply to a pipe: the copy counts). Beside it, a recipe:
 *    a shell script that unpacks it, compares the languages and installs
 *    the packages the workspace had.
 *
 *  - import: host_path is looked up by the kernel beneath an allowed
 *    directory's descriptor (openat2 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS
 *    | RESOLVE_NO_MAGICLINKS): "..", an absolute path elsewhere and a
 *    link anywhere on the way fail there, whatever the string. A tar
 *    archive is first listed by tar in the sandbox (no workspace bound)
 *    and refused over IMPORT_ENTRIES_MAX entries or IMPORT_BYTES_MAX
 *    bytes, or with an absolute or ".." name; then extracted by tar in
 *    the sandbox, the workspace bound read-write under its quota
 *    (sr-jail --quota and --quota-cache, as a run: the listing's sizes,
 *    in pages, are checked against the room left first, and the kernel
 *    caps what tar writes whatever they said), the archive as its stdin,
 *    under sr-limit --fsize and a wall clock. A link in the
 *    archive can only point within the sandbox's view, which holds
 *    nothing of the host's that is writable but the workspace. A plain
 *    file or directory is copied with tool_files.c's confined lookups, links
 *    and special files skipped, its bytes counted against the quota
 *    before the copy and during it.
 *
 *  - both ways: no set-user-ID, set-group-ID or sticky bit is carried
 *    (tar --mode out, --no-same-permissions in, fchmod & 0755 for a
 *    copy) and no fifo, device or socket (tar -X with their names, from
 *    a listing first); the result names them. The recipe refuses root. */
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
#include "job.h"
#include "mcp.h"
#include "proto.h"
#include "text.h"
#include "tool.h"
#include "tool_tar.h"
#include "ws.h"
#include "sr.h"

static const char how_to_allow[] =
	"no host directory is allowed for export and import: the administrator starts "
	"sr-mcp with --host-dir DIR (repeatable) or SR_MCP_HOST_DIRS=DIR1:DIR2 in the "
	"client's \"env\" for this server. Until then, read_file and list_files show a "
	"workspace's files, and write_file puts files in";

/* ---- the sandbox around tar ------------------------------------------- */

/* A workspace bound read-write gets the quota a run gets (sr-jail --quota
 * and its size cache): the kernel caps what tar writes there, and sr-jail
 * adds what it wrote to the cache. (An inode cap of the quota goes here
 * too.) */
static void chain_quota(struct tar_chain *c, const char *bind, const char *ws_id)
{
	if (!cfg.ws_quota || strcmp(bind, "--bind"))
		return;
	snprintf(c->quota, sizeof c->quota, "%llu", (unsigned long long)cfg.ws_quota);
	c->v[c->n++] = "--quota";
	c->v[c->n++] = c->quota;
	if (cfg.ws_inodes) {
		snprintf(c->inodes, sizeof c->inodes, "%llu", (unsigned long long)cfg.ws_inodes);
		c->v[c->n++] = "--quota-inodes";
		c->v[c->n++] = c->inodes;
	}
	if (ws_size_path(ws_id, c->cache, sizeof c->cache) < 0)
		return;     /* then sr-jail measures */
	c->v[c->n++] = "--quota-cache";
	c->v[c->n++] = c->cache;
}

void tool_tar_chain_start(struct tar_chain *c, const char *bind, const char *ws_id, uint64_t fsize,
			const char *excl)
{
	c->n = 0;
	c->v[c->n++] = "sr-limit";
	if (cfg.memory) {   /* --memory off (and ASan builds): none */
		snprintf(c->mem, sizeof c->mem, "%llu", (unsigned long long)cfg.memory);
		c->v[c->n++] = strcmp(job_memory_via(), "cgroup") ? "--data" : "--mem";
		c->v[c->n++] = c->mem;
	}
	if (fsize) {
		snprintf(c->fsize, sizeof c->fsize, "%llu", (unsigned long long)fsize);
		c->v[c->n++] = "--fsize";
		c->v[c->n++] = c->fsize;
	}
	c->v[c->n++] = "--pids";
	c->v[c->n++] = "64";
	c->v[c->n++] = "--timeout";
	c->v[c->n++] = TAR_TIMEOUT;
	c->v[c->n++] = "sr-jail";
	if (bind) {
		snprintf(c->ws, sizeof c->ws, "%s/%s", cfg.workspaces, ws_id);
		c->v[c->n++] = (char *)bind;
		c->v[c->n++] = c->ws;
		c->v[c->n++] = "/workspace";
		chain_quota(c, bind, ws_id);
		c->v[c->n++] = "--chdir";
		c->v[c->n++] = "/workspace";
	}
	if (excl) {         /* the names tar leaves out (-X TAR_EXCLUDE_AT) */
		c->v[c->n++] = "--ro-bind";
		c->v[c->n++] = (char *)excl;
		c->v[c->n++] = TAR_EXCLUDE_AT;
	}
	c->v[c->n++] = "sr-exec";
	c->v[c->n++] = "tar";
}

void tool_tar_chain_add(struct tar_chain *c, const char *arg)
{
	if (c->n < (int)(sizeof c->v / sizeof *c->v) - 1)
		c->v[c->n++] = (char *)arg;
	c->v[c->n] = NULL;
}

/* ---- tar's output, a line at a time ----------------------------------- */

int tool_tar_lines_sink(void *ctx, const char *p, size_t n)
{
	struct tar_lines *l = ctx;
	if (!l->buf)
		l->buf = xmalloc(TAR_LINE_CAP + 1);
	for (size_t i = 0; i < n; i++) {
		if (p[i] != '\n') {
			if (l->len < TAR_LINE_CAP)
				l->buf[l->len++] = p[i];
			else
				l->too_long = 1;
			continue;
		}
		l->buf[l->len] = '\0';
		size_t len = l->len;
		l->len = 0;
		if (l->fn(l, l->buf, len) < 0)
			return -1;
	}
	return 0;
}

int tool_tar_lines_end(struct tar_lines *l)
{
	int r = 0;
	if (l->len) {
		l->buf[l->len] = '\0';
		r = l->fn(l, l->buf, l->len);
	}
	free(l->buf);
	l->buf = NULL;
	return r;
}

void tool_tar_note_add(struct tar_note *n, const char *line)
{
	int rep = 0;
	char *c = text_clean(line, strlen(line), &rep);
	size_t k = strlen(c);
	if (n->len + k + 2 < sizeof n->text) {
		memcpy(n->text + n->len, c, k);
		n->len += k;
		n->text[n->len++] = '\n';
		n->text[n->len] = '\0';
	} else if (n->len + 5 < sizeof n->text && !strstr(n->text, "...\n")) {
		memcpy(n->text + n->len, "...\n", 5);
		n->len += 4;
	}
	free(c);
}

/* ---- the members tar lists: no special file, no set-ID bit --------------- */

/* A name as tar --quoting-style=c shows it, from its opening quote: its
 * end (the closing quote), or NULL. */
char *tool_tar_quoted_end(char *p)
{
	if (*p != '"')
		return NULL;
	for (p++; *p && *p != '"'; p++)
		if (*p == '\\' && p[1])
			p++;
	return *p == '"' ? p : NULL;
}

/* The bytes of the quoted name from q to e (its quotes) into out (room
 * for e - q bytes): their count. */
static size_t unquote(const char *q, const char *e, char *out)
{
	static const char esc[] = "a\ab\bf\fn\nr\rt\tv\v";
	size_t n = 0;
	for (const char *p = q + 1; p < e; p++) {
		if (*p != '\\' || p + 1 >= e) {
			out[n++] = *p;
			continue;
		}
		p++;
		if (*p >= '0' && *p <= '7') {
			int v = 0;
			for (int k = 0; k < 3 && p < e && *p >= '0' && *p <= '7'; k++, p++)
				v = v * 8 + (*p - '0');
			p--;
			out[n++] = (char)v;
			continue;
		}
		const char *x = NULL;
		for (size_t k = 0; k + 1 < sizeof esc && !x; k += 2)
			if (esc[k] == *p)
				x = esc + k + 1;
		out[n++] = x ? *x : *p;
	}
	return n;
}

/* 0, or -1 when the line is not one of those. */
int tool_tar_member_parse(char *line, struct tar_member *m)
{
	char *p = line, *field[5];
	for (int k = 0; k < 5; k++) {
		while (*p == ' ')
			p++;
		field[k] = p;
		while (*p && *p != ' ')
			p++;
	}
	while (*p == ' ')
		p++;
	memset(m, 0, sizeof *m);
	m->type = line[0];
	m->setid = strcspn(line, " ") >= 10 && (line[3] == 's' || line[3] == 'S' || line[6] == 's' ||
						 line[6] == 'S' || line[9] == 't' || line[9] == 'T');
	m->size = strtoull(field[2], NULL, 10);
	m->name = p;
	m->name_end = tool_tar_quoted_end(p);
	if (m->name_end && m->type == 'h') {
		char *to = strstr(m->name_end, " link to ");
		m->to = to ? to + 9 : NULL;
		m->to_end = to ? tool_tar_quoted_end(to + 9) : NULL;
		if (!m->to_end)
			return -1;
	}
	return m->name_end ? 0 : -1;
}

void tool_tar_names_add(char *list, const char *q, const char *e)
{
	size_t n = strlen(list), k = (size_t)(e - q - 1);
	if (n + k + 8 < TAR_NAMES_CAP)
		snprintf(list + n, TAR_NAMES_CAP - n, "%s%.*s", n ? ", " : "", (int)k, q + 1);
	else if (n + 6 < TAR_NAMES_CAP && !strstr(list, ", ..."))
		snprintf(list + n, TAR_NAMES_CAP - n, ", ...");
}

static int members_has(const struct tar_members *s, const char *raw, size_t n)
{
	for (const char *p = s->excl, *end = s->excl + s->excl_len; p && p < end; ) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if ((size_t)(nl - p) == n && !memcmp(p, raw, n))
			return 1;
		p = nl + 1;
	}
	return 0;
}

/* A member seen: 1 when it is left out, 0 when kept, -1 when there are
 * more to leave out than TAR_EXCLUDE_MAX. */
int tool_tar_members_see(struct tar_members *s, const struct tar_member *m)
{
	size_t room = (size_t)(m->name_end - m->name) + (m->to ? (size_t)(m->to_end - m->to) : 0);
	char *raw = xmalloc(room + 1);
	int out = !strchr("-dlhC", m->type);
	if (m->type == 'h' && s->nexcl)
		out = members_has(s, raw, unquote(m->to, m->to_end, raw));
	if (!out) {
		if (m->setid) {
			s->nchanged++;
			tool_tar_names_add(s->changed, m->name, m->name_end);
		}
		free(raw);
		return 0;
	}
	size_t n = unquote(m->name, m->name_end, raw);
	s->unnameable |= memchr(raw, '\n', n) != NULL;
	tool_tar_names_add(s->left_out, m->name, m->name_end);
	if (++s->nexcl > TAR_EXCLUDE_MAX) {
		free(raw);
		return -1;
	}
	s->excl = realloc(s->excl, s->excl_len + n + 1);
	if (!s->excl)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	memcpy(s->excl + s->excl_len, raw, n);
	s->excl_len += n;
	s->excl[s->excl_len++] = '\n';
	free(raw);
	return 1;
}

/* The names to leave out written for tar -X (bound at TAR_EXCLUDE_AT): its
 * path, NULL when there is none, or NULL with *failed set (errno). */
const char *tool_tar_members_file(struct tar_members *s, int *failed)
{
	*failed = 0;
	if (!s->nexcl)
		return NULL;
	snprintf(s->path, sizeof s->path, "%s/exclude.XXXXXX", cfg.code_dir);
	int fd = mkostemp(s->path, O_CLOEXEC);
	if (fd < 0 || sr_write_all(fd, s->excl, s->excl_len) < 0) {
		int e = errno;
		if (fd >= 0) {
			close(fd);
			unlink(s->path);
		}
		s->path[0] = '\0';
		*failed = 1;
		errno = e;
		return NULL;
	}
	close(fd);
	return s->path;
}

void tool_tar_members_free(struct tar_members *s)
{
	if (s->path[0])
		unlink(s->path);
	free(s->excl);
}

/* tar's arguments that leave those out: anchored, literal names. */
void tool_tar_members_args(struct tar_chain *c, const struct tar_members *s)
{
	if (!s->nexcl)
		return;
	tool_tar_chain_add(c, "--anchored");
	tool_tar_chain_add(c, "--no-wildcards");
	tool_tar_chain_add(c, "--no-ignore-case");
	tool_tar_chain_add(c, "-X");
	tool_tar_chain_add(c, TAR_EXCLUDE_AT);
}

/* What was left out and changed: counted in res, named in buf. */
void tool_tar_members_report(const struct tar_members *s, cJSON *res, char *buf, size_t len)
{
	size_t n = s->nexcl + s->nskip;
	buf[0] = '\0';
	cJSON_AddNumberToObject(res, "left_out", (double)n);
	cJSON_AddNumberToObject(res, "mode_changed", (double)s->nchanged);
	if (n)
		snprintf(buf, len, " Left out, as fifos, devices and sockets are not carried (nor "
			 "hard links to them): %zu: %s.", n, s->left_out);
	if (s->nchanged)
		snprintf(buf + strlen(buf), len - strlen(buf), " Set-user-ID, set-group-ID and sticky "
			 "bits dropped from %zu: %s.", s->nchanged, s->changed);
}

/* ---- the host directories ---------------------------------------------- */

int tool_tar_no_host_dirs(struct proto_req *r, const char *tool)
{
	if (cfg.host_dirs && cfg.host_dirs[0])
		return 0;
	tool_error(r, "%s: %s.", tool, how_to_allow);
	return 1;
}

/* p beneath dir (a string prefix that only picks which directory; the
 * kernel judges the rest): the remainder, or NULL. */
const char *tool_tar_host_under(const char *p, const char *dir)
{
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (strncmp(p, dir, n) || (p[n] && p[n] != '/'))
		return NULL;
	for (p += n; *p == '/'; p++)
		;
	return *p ? p : ".";
}

/* ---- import_files: the host side (tool_import.c) ---------------------------------------- */

static void allowed_list(char *buf, size_t len)
{
	buf[0] = '\0';
	for (char **d = cfg.host_dirs; *d; d++)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", d == cfg.host_dirs ? "" : ", ",
			 *d);
}

static void host_why(char *err, size_t len, const char *hp, const char *dir, int e)
{
	char all[1000];
	allowed_list(all, sizeof all);
	switch (e) {
	case EXDEV:
		snprintf(err, len, "%s: escapes the allowed directory %s (a '..' may not leave "
			 "it): import_files reads only from %s", hp, dir, all);
		break;
	case ELOOP:
		snprintf(err, len, "%s: is a symbolic link, or has one on its way: import_files "
			 "follows none (copy the file itself into %s)", hp, dir);
		break;
	case ENOENT:
		snprintf(err, len, "%s: no such file or directory in the allowed directories (%s); "
			 "give a path inside one of them, or relative to one", hp, all);
		break;
	case ENXIO:
		snprintf(err, len, "%s: not a regular file or a directory (a fifo, socket or "
			 "device): not imported", hp);
		break;
	default:
		snprintf(err, len, "%s: %s", hp, strerror(e));
	}
}

/* Where host_path hp is looked for: rel beneath the allowed directory dfd
 * (d as configured). */
struct host_look {
	int dfd;
	const char *rel, *hp, *d;
};

/* host_path looked at with O_PATH first: nothing is opened before its type
 * is known. 0 with its stat in st when it is a regular file of one link or
 * a directory; 1 when it is not there and hp is relative (the next
 * directory may hold it); -1 with why in err. */
static int host_probe(const struct host_look *l, struct stat *st, char *err, size_t len)
{
	const char *hp = l->hp, *d = l->d;
	int p = fs_openat2(l->dfd, l->rel, O_PATH, 0);
	if (p < 0 || fstat(p, st) < 0) {
		int e = errno;
		if (p >= 0)
			close(p);
		if (e == ENOENT && *hp != '/')
			return 1;
		host_why(err, len, hp, d, e);
		return -1;
	}
	close(p);
	if (!S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode)) {
		host_why(err, len, hp, d, S_ISLNK(st->st_mode) ? ELOOP : ENXIO);
		return -1;
	}
	if (S_ISREG(st->st_mode) && st->st_nlink > 1) {
		snprintf(err, len, "%s: has %lu hard links: import_files reads no file with "
			 "more than one (a link could be to a file outside %s); copy the file "
			 "there instead", hp, (unsigned long)st->st_nlink, d);
		return -1;
	}
	return 0;
}

/* host_path, found by the kernel beneath an allowed directory with no link
 * followed, opened for reading: 0, or -1 with err set. An absolute path
 * picks the directory it starts with; a relative one is looked for in
 * each directory in turn. */
int tool_tar_host_open(const char *hp, struct tar_host *h, char *err, size_t len)
{
	char all[1000];
	int e = ENOENT;
	h->dfd = h->fd = -1;
	for (char **d = cfg.host_dirs; *d; d++) {
		char real[PATH_MAX];
		const char *rel = hp;
		if (*hp == '/' && !(rel = tool_tar_host_under(hp, *d)) && realpath(*d, real))
			rel = tool_tar_host_under(hp, real);
		if (!rel)
			continue;
		int dfd = open(*d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd < 0) {
			snprintf(err, len, "the allowed directory %s cannot be opened: %s", *d,
				 strerror(errno));
			return -1;
		}
		struct stat st;
		int k = host_probe(&(struct host_look){ dfd, rel, hp, *d }, &st, err, len);
		if (k)
			close(dfd);
		if (k > 0)
			continue;
		if (k < 0)
			return -1;
		int fd = fs_openat2(dfd, rel, O_RDONLY | O_NONBLOCK | O_NOCTTY |
				      (S_ISDIR(st.st_mode) ? O_DIRECTORY : 0), 0);
		if (fd < 0 || fstat(fd, &h->st) < 0 || h->st.st_ino != st.st_ino ||
		    h->st.st_dev != st.st_dev) {
			e = fd < 0 ? errno : EAGAIN;   /* changed between the two looks */
			if (fd >= 0)
				close(fd);
			close(dfd);
			host_why(err, len, hp, *d, e);
			return -1;
		}
		h->dfd = dfd;
		h->fd = fd;
		h->rel = rel;
		snprintf(h->dir, sizeof h->dir, "%s", *d);
		return 0;
	}
	allowed_list(all, sizeof all);
	if (*hp == '/')
		snprintf(err, len, "%s: not inside a directory the administrator allowed (%s): "
			 "import_files reads from those only", hp, all);
	else
		host_why(err, len, hp, "", ENOENT);
	return -1;
}

void tool_tar_host_close(struct tar_host *h)
{
	if (h->fd >= 0)
		close(h->fd);
	if (h->dfd >= 0)
		close(h->dfd);
}

/* The last name of host_path (for dest's default). */
void tool_tar_host_base_name(const struct tar_host *h, char *buf, size_t len)
{
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof tmp, "%s", strcmp(h->rel, ".") ? h->rel : h->dir);
	size_t n = strlen(tmp);
	while (n > 1 && tmp[n - 1] == '/')
		tmp[--n] = '\0';
	const char *b = strrchr(tmp, '/');
	snprintf(buf, len, "%s", b && b[1] ? b + 1 : tmp);
}
