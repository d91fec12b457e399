/* transfer.c - export_workspace and import_files: a workspace's files out
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

#include "tool.h"
#include "sr.h"

/* export_workspace and import_files (transfer.c): the host directories
 * the administrator allowed, --host-dir. */
const char export_workspace_def[] =
"{\"name\":\"export_workspace\",\"title\":\"Export a workspace to the host\","
"\"description\":\"Pack every file of a workspace into a .tar.gz archive in the host directory the "
"administrator allowed (the first --host-dir), with a shell script beside it (a recipe) that "
"unpacks it elsewhere, compares the language versions and can install the workspace's packages again. Returns both as resource links "
"and their paths, for the user. Symbolic links are archived as links, never followed. At most 1 GiB "
"compressed. Set-ID and sticky bits are dropped and fifos, devices and sockets left out (the result "
"names them); the recipe refuses to run as root. If no host directory is allowed, the result says how "
"to allow one.\","
"\"inputSchema\":{\"type\":\"object\",\"properties\":{" WS_ARG "},"
"\"required\":[\"workspace_id\"],\"additionalProperties\":false},"
"\"outputSchema\":{\"type\":\"object\",\"properties\":{\"workspace_id\":{\"type\":\"string\"},"
"\"path\":{\"type\":\"string\",\"description\":\"The archive, on the host.\"},\"uri\":{\"type\":\"string\"},"
"\"bytes\":{\"type\":\"integer\"},\"files\":{\"type\":\"integer\",\"description\":\"Files archived (directories not counted).\"},"
"\"left_out\":{\"type\":\"integer\",\"description\":\"Fifos, devices and sockets (and hard links to them) left out.\"},"
"\"mode_changed\":{\"type\":\"integer\",\"description\":\"Entries whose set-user-ID, set-group-ID or sticky bits were dropped.\"},"
"\"recipe\":{\"type\":\"string\",\"description\":\"The shell script beside it.\"},\"warnings\":{\"type\":\"string\"}},"
"\"required\":[\"workspace_id\",\"path\",\"bytes\",\"files\",\"recipe\"]},"
"\"annotations\":{\"title\":\"Export workspace\",\"readOnlyHint\":false,\"destructiveHint\":false,"
"\"idempotentHint\":false,\"openWorldHint\":false}}";

const char import_files_def[] =
"{\"name\":\"import_files\",\"title\":\"Import files from the host\","
"\"description\":\"Copy a file or a directory from a host directory the administrator allowed "
"(--host-dir) into a workspace. A .tar, .tar.gz or .tgz archive is extracted (extract false copies "
"it as a file) into dest, by default the workspace's root; a file or directory goes to dest, by "
"default its own name. No symbolic link is followed on the host; links and special files in a "
"directory are skipped. Archives with absolute or '..' names are refused; an import is capped at "
"100000 entries and 1 GiB, and what it adds must fit the workspace quota (counted before anything is "
"written). Set-ID and sticky bits are dropped, fifos and devices left out. If no host directory is "
"allowed, the result says how to allow one.\","
"\"inputSchema\":{\"type\":\"object\",\"properties\":{"
"\"host_path\":{\"type\":\"string\",\"description\":\"A file or directory in an allowed host directory: absolute, or relative to one (an export_workspace result's path works).\"},"
"\"workspace_id\":{\"type\":\"string\",\"description\":\"The workspace to copy into, made if it does not exist; omit it for a new one.\"},"
"\"dest\":{\"type\":\"string\",\"description\":\"Where in the workspace, relative to /workspace.\"},"
"\"extract\":{\"type\":\"boolean\",\"description\":\"Extract a .tar, .tar.gz or .tgz archive (default true).\"}},"
"\"required\":[\"host_path\"],\"additionalProperties\":false},"
"\"outputSchema\":{\"type\":\"object\",\"properties\":{\"workspace_id\":{\"type\":\"string\"},"
"\"dest\":{\"type\":\"string\"},\"kind\":{\"type\":\"string\",\"enum\":[\"archive\",\"file\",\"dir\"]},"
"\"files\":{\"type\":\"integer\",\"description\":\"Files copied, or entries extracted.\"},"
"\"left_out\":{\"type\":\"integer\",\"description\":\"Fifos, devices and sockets (and hard links to them) left out.\"},"
"\"mode_changed\":{\"type\":\"integer\",\"description\":\"Entries whose set-user-ID, set-group-ID or sticky bits were dropped.\"},"
"\"bytes\":{\"type\":\"integer\"},\"skipped\":{\"type\":\"integer\",\"description\":\"Links and special files not copied.\"}},"
"\"required\":[\"workspace_id\",\"dest\",\"kind\",\"files\",\"bytes\"]},"
"\"annotations\":{\"title\":\"Import files\",\"readOnlyHint\":false,\"destructiveHint\":true,"
"\"idempotentHint\":false,\"openWorldHint\":false}}";

#define EXPORT_MAX (1ULL << 30)         /* an archive, compressed, at most */
#define IMPORT_ENTRIES_MAX 100000       /* entries of an import, at most */
#define IMPORT_BYTES_MAX (1ULL << 30)   /* bytes of an import, at most */
#define TAR_TIMEOUT "10m"               /* each tar in the sandbox */
#define LINE_CAP 65536                  /* a line of tar's listing, at most */
#define NOTE_CAP 1500                   /* tar's messages kept for the model */
#define NAMES_CAP 600                   /* names listed for the model, at most */
#define EXCLUDE_MAX 1000                /* special files left out, at most */
#define EXCLUDE_MAX_S "1000"
#define EXCLUDE_AT "/run/sr/exclude"    /* the list of them, in the sandbox */
#define PAGE 4096ULL                    /* a tmpfs page: the quota's unit while tar writes */

static const char how_to_allow[] =
	"no host directory is allowed for export and import: the administrator starts "
	"sr-mcp with --host-dir DIR (repeatable) or SR_MCP_HOST_DIRS=DIR1:DIR2 in the "
	"client's \"env\" for this server. Until then, read_file and list_files show a "
	"workspace's files, and write_file puts files in";

/* ---- the sandbox around tar ------------------------------------------- */

/* argv for `sr-limit LIMITS sr-jail BIND sr-exec tar ARGS...` in v: the
 * memory of a run, --fsize when given, 64 processes, a wall clock; the
 * workspace bound at /workspace as bind says ("--bind", "--ro-bind", or
 * NULL for none). chain_add appends tar's arguments. */
struct chain {
	char *v[48];
	int n;
	char mem[32], fsize[32], ws[4200], quota[32], inodes[32], cache[4400];
};

/* A workspace bound read-write gets the quota a run gets (sr-jail --quota
 * and its size cache): the kernel caps what tar writes there, and sr-jail
 * adds what it wrote to the cache. (An inode cap of the quota goes here
 * too.) */
static void chain_quota(struct chain *c, const char *bind, const char *ws_id)
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

static void chain_start(struct chain *c, const char *bind, const char *ws_id, uint64_t fsize,
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
	if (excl) {         /* the names tar leaves out (-X EXCLUDE_AT) */
		c->v[c->n++] = "--ro-bind";
		c->v[c->n++] = (char *)excl;
		c->v[c->n++] = EXCLUDE_AT;
	}
	c->v[c->n++] = "sr-exec";
	c->v[c->n++] = "tar";
}

static void chain_add(struct chain *c, const char *arg)
{
	if (c->n < (int)(sizeof c->v / sizeof *c->v) - 1)
		c->v[c->n++] = (char *)arg;
	c->v[c->n] = NULL;
}

/* ---- tar's output, a line at a time ----------------------------------- */

struct lines {
	char *buf;
	size_t len;
	int too_long;          /* a line over LINE_CAP was cut */
	/* a line, NUL-terminated; -1 stops the child */
	int (*fn)(struct lines *l, char *line, size_t len);
	void *ctx;
};

static int lines_sink(void *ctx, const char *p, size_t n)
{
	struct lines *l = ctx;
	if (!l->buf)
		l->buf = xmalloc(LINE_CAP + 1);
	for (size_t i = 0; i < n; i++) {
		if (p[i] != '\n') {
			if (l->len < LINE_CAP)
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

static int lines_end(struct lines *l)
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

/* tar's messages ("tar: ..."), the first NOTE_CAP bytes of them. */
struct note {
	char text[NOTE_CAP + 1];
	size_t len;
};

static void note_add(struct note *n, const char *line)
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
static char *quoted_end(char *p)
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

/* One line of `tar -tv` (or -cvv) --numeric-owner --quoting-style=c:
 *   -rw-r--r-- 0/0   6 2024-01-01 00:00 "name"
 *   lrwxrwxrwx 0/0   0 2024-01-01 00:00 "name" -> "target"
 *   hrw-r--r-- 0/0   0 2024-01-01 00:00 "name" link to "target"  */
struct member {
	char type;                 /* the mode's first letter: - d l h p c b ... */
	int setid;                 /* a set-user-ID, set-group-ID or sticky bit */
	unsigned long long size;   /* "1,3" of a device: 1 */
	char *name, *name_end;     /* the quotes around the name */
	char *to, *to_end;         /* around a hard link's target, or NULL */
};

/* 0, or -1 when the line is not one of those. */
static int member_parse(char *line, struct member *m)
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
	m->name_end = quoted_end(p);
	if (m->name_end && m->type == 'h') {
		char *to = strstr(m->name_end, " link to ");
		m->to = to ? to + 9 : NULL;
		m->to_end = to ? quoted_end(to + 9) : NULL;
		if (!m->to_end)
			return -1;
	}
	return m->name_end ? 0 : -1;
}

/* What export and import leave out (fifos, devices, sockets, and hard
 * links to them: tar -X takes their names) and what they change (set-ID
 * and sticky bits, dropped): the names, for the model. */
struct members {
	char *excl;                /* names to leave out, one a line */
	size_t excl_len, nexcl, nchanged;
	size_t nskip;              /* left out by tar itself (sockets) */
	int unnameable;            /* one of them has a newline in its name */
	char left_out[NAMES_CAP], changed[NAMES_CAP];
	char path[4200];           /* the list, written for tar (members_file) */
};

static void names_add(char *list, const char *q, const char *e)
{
	size_t n = strlen(list), k = (size_t)(e - q - 1);
	if (n + k + 8 < NAMES_CAP)
		snprintf(list + n, NAMES_CAP - n, "%s%.*s", n ? ", " : "", (int)k, q + 1);
	else if (n + 6 < NAMES_CAP && !strstr(list, ", ..."))
		snprintf(list + n, NAMES_CAP - n, ", ...");
}

static int members_has(const struct members *s, const char *raw, size_t n)
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
 * more to leave out than EXCLUDE_MAX. */
static int members_see(struct members *s, const struct member *m)
{
	size_t room = (size_t)(m->name_end - m->name) + (m->to ? (size_t)(m->to_end - m->to) : 0);
	char *raw = xmalloc(room + 1);
	int out = !strchr("-dlhC", m->type);
	if (m->type == 'h' && s->nexcl)
		out = members_has(s, raw, unquote(m->to, m->to_end, raw));
	if (!out) {
		if (m->setid) {
			s->nchanged++;
			names_add(s->changed, m->name, m->name_end);
		}
		free(raw);
		return 0;
	}
	size_t n = unquote(m->name, m->name_end, raw);
	s->unnameable |= memchr(raw, '\n', n) != NULL;
	names_add(s->left_out, m->name, m->name_end);
	if (++s->nexcl > EXCLUDE_MAX) {
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

/* The names to leave out written for tar -X (bound at EXCLUDE_AT): its
 * path, NULL when there is none, or NULL with *failed set (errno). */
static const char *members_file(struct members *s, int *failed)
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

static void members_free(struct members *s)
{
	if (s->path[0])
		unlink(s->path);
	free(s->excl);
}

/* tar's arguments that leave those out: anchored, literal names. */
static void members_args(struct chain *c, const struct members *s)
{
	if (!s->nexcl)
		return;
	chain_add(c, "--anchored");
	chain_add(c, "--no-wildcards");
	chain_add(c, "--no-ignore-case");
	chain_add(c, "-X");
	chain_add(c, EXCLUDE_AT);
}

/* What was left out and changed: counted in res, named in buf. */
static void members_report(const struct members *s, cJSON *res, char *buf, size_t len)
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

static int no_host_dirs(struct proto_req *r, const char *tool)
{
	if (cfg.host_dirs && cfg.host_dirs[0])
		return 0;
	tool_error(r, "%s: %s.", tool, how_to_allow);
	return 1;
}

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
	struct note note;
	struct members m;
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
	char *q = line + 5, *end = quoted_end(q);
	if (end && k > 18 && !strcmp(line + k - 17, ": socket ignored")) {
		if (e->archiving)   /* counted at the first look */
			return;
		e->m.nskip++;
		names_add(e->m.left_out, q, end);
		return;
	}
	note_add(&e->note, line);
}

/* The first look (tar -cvv to /dev/null: names, types and modes, no
 * file read): what to leave out, what will change. */
static int export_list_line(struct lines *l, char *line, size_t len)
{
	struct export *e = l->ctx;
	struct member m;
	(void)len;
	if (!strncmp(line, "tar: ", 5))
		export_note(e, line);
	else if (member_parse(line, &m) == 0 && members_see(&e->m, &m) < 0)
		e->too_many = 1;
	return e->too_many ? -1 : 0;
}

/* The archive made (tar -czvv, its names on stderr): files counted, and
 * a special file there (made since the first look) stops it. */
static int export_err_line(struct lines *l, char *line, size_t len)
{
	struct export *e = l->ctx;
	struct member m;
	(void)len;
	if (!strncmp(line, "tar: ", 5)) {
		export_note(e, line);
		return 0;
	}
	if (member_parse(line, &m) < 0)
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
	struct lines l = { .fn = archive ? export_err_line : export_list_line, .ctx = e },
		     nl = { .fn = export_err_line, .ctx = e };
	struct chain c;
	e->archiving = archive;
	chain_start(&c, "--ro-bind", ws, 0, excl);
	chain_add(&c, archive ? "-czvvf" : "-cvvf");
	chain_add(&c, archive ? "-" : "/dev/null");
	chain_add(&c, "--numeric-owner");
	chain_add(&c, "--quoting-style=c");
	if (archive)        /* no set-ID or sticky bit leaves */
		chain_add(&c, "--mode=ug-s,a-t");
	members_args(&c, &e->m);
	chain_add(&c, "-C");
	chain_add(&c, "/workspace");
	chain_add(&c, ".");
	struct spawn_io io = { .in_fd = -1, .stop = &r->cancelled };
	if (archive) {
		io.out = export_out;
		io.out_ctx = e;
		io.err = lines_sink;
		io.err_ctx = &l;
	} else {            /* (tar -v to /dev/null lists on stdout) */
		nl.fn = export_list_line;
		io.out = lines_sink;
		io.out_ctx = &l;
		io.err = lines_sink;
		io.err_ctx = &nl;
	}
	int rc = spawn_io(c.v, &io);
	if (lines_end(&l) < 0 && !archive)
		e->too_many = 1;
	if (!archive)
		lines_end(&nl);
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
	char err[600], *out = xstrdup("");
	size_t len = 0;
	struct stat st;
	*has = 0;
	int fd = fs_file_open(wfd, "package.json", "package.json", O_RDONLY, &st, err, sizeof err);
	if (fd < 0)
		return out;
	*has = 1;
	size_t got = 0;
	char *p = st.st_size < (1 << 20) ? fs_read_fd(fd, (size_t)st.st_size, &got) : NULL;
	close(fd);
	cJSON *j = p ? cJSON_ParseWithLength(p, got) : NULL, *dep;
	free(p);
	cJSON_ArrayForEach(dep, cJSON_GetObjectItem(j, "dependencies")) {
		/* a registry name and version only, as install_packages takes:
		 * no git, URL or path that npm would act on outside the sandbox */
		char spec[300], why[400];
		if (dep->string && cJSON_IsString(dep) && len < 4000 &&
		    (size_t)snprintf(spec, sizeof spec, "%s@%s", dep->string, dep->valuestring) <
		    sizeof spec && tool_package_spec_ok("npm", spec, why, sizeof why) &&
		    shell_safe(spec, "@/._~-^<>=*|+"))
			put(&out, &len, " '%s'", spec);
	}
	cJSON_Delete(j);
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

static char *recipe(int wfd, const char *ws, const char *archive, const char *when)
{
	static const struct { const char *runner, *cmd; } probe[] = {
		{ "python", "python3 --version" }, { "javascript", "node --version" },
		{ "bash", "bash --version" },
	};
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
	runner_versions();
	for (size_t i = 0; i < runner_count; i++) {
		char v[200];
		plain(v, sizeof v, runner_all[i].version ? runner_all[i].version : "(unknown)");
		const char *cmd = NULL;
		for (size_t k = 0; k < sizeof probe / sizeof *probe; k++)
			if (!strcmp(probe[k].runner, runner_all[i].name))
				cmd = probe[k].cmd;
		if (cmd)
			put(&b, &len, "printf '%%s\\n' \"%s: was '%s', here: $(%s 2>&1 | head -n 1 "
			    "|| true)\"\n", runner_all[i].name, v, cmd);
		else
			put(&b, &len, "# %s: %s\n", runner_all[i].name, v);
	}
	put(&b, &len, "\n# The packages%s.\n", !npip && !has_npm ? ": none were installed" : "");
	if (npip)
		put(&b, &len, "# pip's in .sr/python (pip install --target), with their versions%s.\n",
		    odd ? " (some with unusual names left out)" : "");
	if (has_npm)
		put(&b, &len, "# npm's in package.json:%s\n", npm);
	if (npip || has_npm) {
		put(&b, &len, "if [ \"${SR_INSTALL-}\" = 1 ]; then\n\tcd -- \"$dir\"\n");
		if (npip)
			put(&b, &len, "\tpython3 -I -m pip install --upgrade --target .sr/python%s\n",
			    pip);
		/* npm in a directory of its own, then its tree moved in: npm reads
		 * no .npmrc or package.json the sandboxed code wrote */
		if (has_npm && *npm)
			put(&b, &len, "\tt=$(mktemp -d)\n"
			    "\techo '{}' > \"$t/package.json\"\n"
			    "\t(cd \"$t\" && npm install --ignore-scripts --no-audit --no-fund%s)\n"
			    "\trm -rf node_modules && mv \"$t/node_modules\" node_modules && rm -rf \"$t\"\n",
			    npm);
		put(&b, &len, "else\n\techo \"packages: not installed (SR_INSTALL=1 installs "
		    "them; the archive has them)\"\nfi\n");
	}
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

void transfer_export(struct proto_req *r, const cJSON *args)
{
	const char *T = "export_workspace", *ws;
	char err[1200], stem[300], dir[PATH_MAX], when[32], a[700] = "", s[700] = "";
	if (no_host_dirs(r, T) || tool_arg_ws(r, T, args, &ws) < 0)
		return;
	int wfd = ws_open(ws, 0, err, sizeof err), hfd = -1, afd = -1, rfd = -1;
	if (wfd < 0) {
		tool_error(r, "%s", err);
		return;
	}
	struct export e = { .fd = -1 };
	const char *host = cfg.host_dirs[0];
	hfd = open(host, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (hfd < 0 || !realpath(host, dir)) {
		tool_error(r, "the export directory %s cannot be opened (%s): the administrator "
			   "must make it (the first --host-dir)", host, strerror(errno));
		goto out;
	}
	int unnamed = export_unnamed(hfd, &afd, &rfd) == 0;
	if (!unnamed && export_files(hfd, ws, stem, sizeof stem, &afd, &rfd) < 0) {
		tool_error(r, "unable to create a file in %s: %s", dir, strerror(errno));
		goto out;
	}
	if (!unnamed) {
		snprintf(a, sizeof a, "%s.tar.gz", stem);
		snprintf(s, sizeof s, "%s.sh", stem);
	}
	time_t now = time(NULL);
	struct tm tm;
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));

	e.fd = afd;
	int rc = export_tar(r, ws, &e, 0, NULL), failed = 0;
	const char *excl = NULL;
	if (rc == 0 || rc == 1) {
		excl = e.too_many || e.m.unnameable ? NULL : members_file(&e.m, &failed);
		if (failed)
			e.io_error = errno ? errno : EIO;
		else if (!e.too_many && !e.m.unnameable && !r->cancelled)
			rc = export_tar(r, ws, &e, 1, excl);
	}
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
		if (refused)
			tool_error(r, "workspace %s: not exported, nothing was kept: %s", ws,
				   e.too_many ? "it holds more than " EXCLUDE_MAX_S " fifos, devices "
				   "and sockets, which export_workspace leaves out; delete them (run_code, "
				   "e.g. find . -type p -delete)" : e.m.unnameable ? "a fifo, device or "
				   "socket in it has a newline in its name, which export_workspace cannot "
				   "leave out; delete or rename it (run_code)" : "a fifo, device or socket "
				   "appeared in it while it was archived (a run still going?); try again");
		else if (e.over)     /* (a cancelled call's answer is dropped by proto_result) */
			tool_error(r, "workspace %s: the archive passed export_workspace's cap of "
				   "%llu MiB (compressed) and was removed. Delete what is not needed "
				   "(delete_path), or leave out big files with run_code (move them "
				   "away, export, move them back)", ws, EXPORT_MAX >> 20);
		else if (e.io_error)
			tool_error(r, "unable to write %s: %s (nothing was kept)", path,
				   strerror(e.io_error));
		else
			tool_error(r, "workspace %s: tar in the sandbox failed (exit %d%s); nothing "
				   "was kept. %s", ws, rc, rc == 124 ? ": its wall clock of "
				   TAR_TIMEOUT " ran out" : "", e.note.text);
		free(text);
		goto out;
	}
	struct stat st;
	if (fstat(afd, &st) == 0)
		e.bytes = (uint64_t)st.st_size;
	cJSON *res = cJSON_CreateObject();
	char *uri = file_uri(path);
	cJSON_AddStringToObject(res, "workspace_id", ws);
	cJSON_AddStringToObject(res, "path", path);
	cJSON_AddStringToObject(res, "uri", uri);
	cJSON_AddNumberToObject(res, "bytes", (double)e.bytes);
	cJSON_AddNumberToObject(res, "files", (double)e.files);
	cJSON_AddStringToObject(res, "recipe", rpath);
	if (e.note.len)
		cJSON_AddStringToObject(res, "warnings", e.note.text);
	free(uri);
	char *msg = NULL, changes[2 * NAMES_CAP + 300];
	size_t mlen = 0;
	members_report(&e.m, res, changes, sizeof changes);
	put(&msg, &mlen, "exported workspace %s: %zu files, %llu bytes (tar.gz) to %s. Beside it, "
	    "%s rebuilds it elsewhere (sh %s DIR, as an ordinary user, not root: unpack, compare "
	    "the languages; with SR_INSTALL=1 install the packages again). Symbolic links were "
	    "archived as links.%s import_files with host_path %s brings it back into a "
	    "workspace.%s%s", ws, e.files, (unsigned long long)e.bytes, path, rpath, s, changes, a,
	    e.note.len ? "\ntar said:\n" : "", e.note.text);
	cJSON *out = tool_result(res, msg, 0), *content = cJSON_GetObjectItem(out, "content");
	cJSON_AddItemToArray(content, link_block(path, a, "application/gzip", e.bytes,
						 "The workspace's files, a gzip-compressed tar archive"));
	cJSON_AddItemToArray(content, link_block(rpath, s, "text/x-shellscript", strlen(text),
						 "A shell script that rebuilds the workspace from the archive"));
	free(text);
	free(msg);
	proto_result(r, out);
out:
	members_free(&e.m);
	if (afd >= 0)
		close(afd);
	if (rfd >= 0)
		close(rfd);
	if (hfd >= 0)
		close(hfd);
	close(wfd);
}

/* ---- import_files: the host side ---------------------------------------- */

struct host {
	int dfd;               /* the allowed directory */
	int fd;                /* host_path, open for reading */
	struct stat st;
	const char *rel;       /* host_path beneath it */
	char dir[PATH_MAX];    /* the allowed directory as configured */
};

/* p beneath dir (a string prefix that only picks which directory; the
 * kernel judges the rest): the remainder, or NULL. */
static const char *under(const char *p, const char *dir)
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

/* host_path, found by the kernel beneath an allowed directory with no link
 * followed, opened for reading: 0, or -1 with err set. An absolute path
 * picks the directory it starts with; a relative one is looked for in
 * each directory in turn. */
static int host_open(const char *hp, struct host *h, char *err, size_t len)
{
	char all[1000];
	int e = ENOENT;
	h->dfd = h->fd = -1;
	for (char **d = cfg.host_dirs; *d; d++) {
		char real[PATH_MAX];
		const char *rel = hp;
		if (*hp == '/' && !(rel = under(hp, *d)) && realpath(*d, real))
			rel = under(hp, real);
		if (!rel)
			continue;
		int dfd = open(*d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd < 0) {
			snprintf(err, len, "the allowed directory %s cannot be opened: %s", *d,
				 strerror(errno));
			return -1;
		}
		/* O_PATH first: nothing is opened before its type is known */
		int p = fs_openat2(dfd, rel, O_PATH, 0);
		struct stat st;
		if (p < 0 || fstat(p, &st) < 0) {
			e = errno;
			if (p >= 0)
				close(p);
			close(dfd);
			if (e == ENOENT && *hp != '/')
				continue;
			host_why(err, len, hp, *d, e);
			return -1;
		}
		close(p);
		if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
			close(dfd);
			host_why(err, len, hp, *d, S_ISLNK(st.st_mode) ? ELOOP : ENXIO);
			return -1;
		}
		if (S_ISREG(st.st_mode) && st.st_nlink > 1) {
			close(dfd);
			snprintf(err, len, "%s: has %lu hard links: import_files reads no file with "
				 "more than one (a link could be to a file outside %s); copy the file "
				 "there instead", hp, (unsigned long)st.st_nlink, *d);
			return -1;
		}
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

static void host_close(struct host *h)
{
	if (h->fd >= 0)
		close(h->fd);
	if (h->dfd >= 0)
		close(h->dfd);
}

/* The last name of host_path (for dest's default). */
static void base_name(const struct host *h, char *buf, size_t len)
{
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof tmp, "%s", strcmp(h->rel, ".") ? h->rel : h->dir);
	size_t n = strlen(tmp);
	while (n > 1 && tmp[n - 1] == '/')
		tmp[--n] = '\0';
	const char *b = strrchr(tmp, '/');
	snprintf(buf, len, "%s", b && b[1] ? b + 1 : tmp);
}

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
	int out = fs_file_open(dfd, name, rel, O_WRONLY | O_CREAT, &st, c->err, sizeof c->err);
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
	struct members m;
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

/* One line of tar -tv (member_parse): checked, counted. */
static int list_line(struct lines *l, char *line, size_t len)
{
	struct listing *t = l->ctx;
	struct member m;
	(void)len;
	int rep = 0, bad = member_parse(line, &m) < 0;
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
	} else if ((bad = members_see(&t->m, &m)) < 0) {
		snprintf(t->why, sizeof t->why, "it has more than %d fifos, devices and sockets, "
			 "which import_files leaves out", EXCLUDE_MAX);
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

static int note_line(struct lines *l, char *line, size_t len)
{
	(void)len;
	note_add(l->ctx, line);
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

/* The archive listed by tar in the sandbox (nothing bound) and checked:
 * 0, or -1 with why in t->why. */
static int archive_list(struct proto_req *r, struct host *h, const char *flags, struct listing *t)
{
	struct note msgs = { .len = 0 };
	struct lines l = { .fn = list_line, .ctx = t }, ml = { .fn = note_line, .ctx = &msgs };
	struct chain c;
	chain_start(&c, NULL, NULL, 0, NULL);
	/* --absolute-names: names and link targets as they are in the archive
	 * (tar -t strips a leading / or ../ of a hard link's target otherwise,
	 * and the check below would see the stripped one) */
	const char *args[] = { "-tv", "--absolute-names", "--numeric-owner", "--quoting-style=c",
			       flags, "-" };
	for (size_t i = 0; i < sizeof args / sizeof *args; i++)
		chain_add(&c, args[i]);
	struct spawn_io io = { .in_fd = h->fd, .out = lines_sink, .out_ctx = &l, .err = lines_sink,
			       .err_ctx = &ml, .stop = &r->cancelled };
	int rc = lseek(h->fd, 0, SEEK_SET) < 0 ? -1 : spawn_io(c.v, &io);
	if (lines_end(&l) < 0)
		t->bad = 1;
	lines_end(&ml);
	if (!t->bad && rc != 0)
		snprintf(t->why, sizeof t->why, "tar could not list it (exit %d%s): %s", rc,
			 rc == 124 ? ": its wall clock ran out" : "", msgs.text);
	return t->bad || rc != 0 ? -1 : 0;
}

/* Would need bytes and inodes more pass the workspace's quota? Then 1,
 * answered: the quota, what the import would add, what to do. */
static int import_over(struct proto_req *r, const char *ws, int wfd, const char *hp, uint64_t need,
		       uint64_t inodes, const char *how)
{
	if (!cfg.ws_quota)
		return 0;
	struct sr_usage u = { 0, 0 };
	(void)ws_size(ws, wfd, &u);    /* a part unread: what was read */
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
static void archive_extract(struct proto_req *r, const char *ws, struct host *h, const char *flags,
			    const char *dest, struct listing *t, cJSON *res)
{
	char into[4200], text[3000 + 2 * NAMES_CAP], changes[2 * NAMES_CAP + 300];
	snprintf(into, sizeof into, "/workspace/%s", dest);
	struct note msgs = { .len = 0 };
	struct lines ml = { .fn = note_line, .ctx = &msgs };
	struct chain c;
	int failed;
	const char *excl = members_file(&t->m, &failed);
	if (failed) {
		cJSON_Delete(res);
		tool_error(r, "unable to write the list of what %s leaves out: %s", h->rel,
			   strerror(errno));
		return;
	}
	chain_start(&c, "--bind", ws, IMPORT_BYTES_MAX, excl);
	const char *args[] = { "-x", flags, "-", "--no-same-owner", "--no-same-permissions",
			       "--no-overwrite-dir" };
	for (size_t i = 0; i < sizeof args / sizeof *args; i++)
		chain_add(&c, args[i]);
	members_args(&c, &t->m);
	chain_add(&c, "-C");
	chain_add(&c, into);
	struct spawn_io io = { .in_fd = h->fd, .err = lines_sink, .err_ctx = &ml,
			       .stop = &r->cancelled };
	int rc = lseek(h->fd, 0, SEEK_SET) < 0 ? -1 : spawn_io(c.v, &io);
	lines_end(&ml);
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
	members_report(&t->m, res, changes, sizeof changes);
	cJSON_AddStringToObject(res, "kind", "archive");
	cJSON_AddNumberToObject(res, "files", (double)(t->entries - t->m.nexcl));
	cJSON_AddNumberToObject(res, "bytes", (double)t->bytes);
	snprintf(text, sizeof text, "extracted %s (%zu entries, %llu bytes) into workspace %s at "
		 "/workspace%s%s; list_files shows them.%s%s%s", h->rel, t->entries - t->m.nexcl,
		 (unsigned long long)t->bytes, ws, strcmp(dest, ".") ? "/" : "",
		 strcmp(dest, ".") ? dest : "", changes, msgs.len ? "\ntar said:\n" : "", msgs.text);
	tool_reply(r, res, text, 0);
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

void transfer_import(struct proto_req *r, const cJSON *args)
{
	const char *T = "import_files", *hp = NULL, *wsa = NULL, *dest = NULL;
	int extract = 1;
	char err[1500], ws[65] = "", base[256], flags[8];
	if (no_host_dirs(r, T) || tool_arg_str(r, T, args, "host_path", &hp) < 0 ||
	    tool_arg_str(r, T, args, "workspace_id", &wsa) < 0 ||
	    tool_arg_str(r, T, args, "dest", &dest) < 0 || tool_arg_bool(r, T, args, "extract", &extract) < 0)
		return;
	if (!hp || !*hp) {
		tool_bad_args(r, T, "host_path is required: a file or directory in an allowed host "
			      "directory (absolute, or relative to one)");
		return;
	}
	if (wsa && !ws_id_ok(wsa)) {
		tool_bad_args(r, T, "workspace_id must be 1 to 64 letters, digits, _ or - (not "
			      "starting with -)");
		return;
	}
	struct host h;
	if (host_open(hp, &h, err, sizeof err) < 0) {
		tool_error(r, "%s", err);
		return;
	}
	int wfd = -1;
	snprintf(ws, sizeof ws, "%s", wsa ? wsa : "");
	int archive = S_ISREG(h.st.st_mode) && extract && is_archive_name(h.rel);
	const char *kind = archive ? tar_kind(h.fd) : NULL;
	struct listing t = { 0 };
	snprintf(flags, sizeof flags, "-%sf", kind ? kind : "");
	if (archive && !kind) {
		tool_error(r, "%s: named like a tar archive but it is not one (neither tar nor "
			   "gzip): pass extract false to copy it as it is", hp);
		goto out;
	}
	if (archive && archive_list(r, &h, flags, &t) < 0) {
		if (!r->cancelled)
			tool_error(r, "%s: not extracted: %s. Nothing was written.", hp, t.why);
		goto out;
	}
	base_name(&h, base, sizeof base);
	const char *rel = fs_rel_path(dest ? dest : archive ? "." : base, err, sizeof err);
	if (!rel || ws_make(ws, sizeof ws, 0, err, sizeof err) < 0) {
		tool_error(r, "%s", err);
		goto out;
	}
	wfd = ws_open(ws, 1, err, sizeof err);
	if (wfd < 0) {
		tool_error(r, "%s", err);
		goto out;
	}
	char dir[4096];
	const char *name = S_ISREG(h.st.st_mode) && !archive ? fs_split(rel, dir, sizeof dir) : NULL;
	if (S_ISREG(h.st.st_mode) && !archive && !name) {
		tool_error(r, "%s: not a file name (give the file's path in the workspace, e.g. "
			   "data/in.csv)", rel);
		goto out;
	}
	/* what it would add, against the quota's room, before a byte is written */
	struct copy c = { .dst = -1, .room = UINT64_MAX };
	uint64_t need = archive ? t.pages : name ? (uint64_t)h.st.st_size : 0, old;
	uint64_t inodes = archive ? (uint64_t)t.entries : 0;
	int existed = 0;
	if (!archive && !name) {
		c.dry = 1;
		copy_tree(&c, openat(h.fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
		need = c.bytes;
		inodes = (uint64_t)(c.files + c.dirs + 1);
		if (c.over || c.failed) {
			tool_error(r, "%s: %s. Nothing was written.", hp, c.err);
			goto out;
		}
		c = (struct copy){ .dst = -1, .room = cfg.ws_quota ? need : UINT64_MAX };
	} else if (name) {
		old = dest_size(wfd, dir, name, &existed);
		inodes = !existed;
		c.room = cfg.ws_quota ? need : UINT64_MAX;
		need = need > old ? need - old : 0;
	}
	if (import_over(r, ws, wfd, hp, need, inodes, archive ? " while it is extracted (its files' "
			"sizes, each rounded up to whole pages of 4 KiB as the quota counts them "
			"then)" : ""))
		goto out;
	if (archive && t.m.unnameable) {
		tool_error(r, "%s: not extracted: a fifo, device or socket in it has a newline in its "
			   "name, which import_files cannot leave out. Nothing was written.", hp);
		goto out;
	}
	/* the destination directory (the file's parent for a file), made */
	c.dst = fs_dir_open(wfd, name ? dir : rel, 1);
	if (c.dst < 0) {
		fs_path_why(err, sizeof err, name ? dir : rel, errno);
		tool_error(r, "%s", err);
		goto out;
	}
	cJSON *res = cJSON_CreateObject();
	cJSON_AddStringToObject(res, "workspace_id", ws);
	cJSON_AddStringToObject(res, "dest", rel);
	if (archive) {
		close(c.dst);
		archive_extract(r, ws, &h, flags, rel, &t, res);
		goto out;       /* (sr-jail --quota-cache added what it wrote) */
	}
	if (name)
		c.failed = copy_file(&c, h.fd, &h.st, name) < 0;
	else
		copy_tree(&c, openat(h.fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	close(c.dst);
	if (c.failed || c.over) {
		ws_size_forget(ws);     /* partly copied: measured again */
		cJSON_Delete(res);
		tool_error(r, "%s: %s; what was copied before stays in workspace %s (list_files "
			   "shows it)", hp, c.err, ws);
		goto out;
	}
	if (name) {     /* one file: its bytes, and an inode when it is new */
		struct sr_delta d = { c.delta, existed ? 0 : 1 };
		ws_size_add(ws, wfd, &d);
	} else {
		struct sr_usage u;      /* the files and directories it made: measured again */
		ws_size_forget(ws);
		(void)ws_size(ws, wfd, &u);
	}
	cJSON_AddStringToObject(res, "kind", name ? "file" : "dir");
	cJSON_AddNumberToObject(res, "files", (double)c.files);
	cJSON_AddNumberToObject(res, "bytes", (double)c.bytes);
	cJSON_AddNumberToObject(res, "skipped", (double)c.skipped);
	cJSON_AddNumberToObject(res, "left_out", (double)c.skipped);
	cJSON_AddNumberToObject(res, "mode_changed", (double)c.changed);
	snprintf(err, sizeof err, "copied %s into workspace %s at /workspace/%s: %zu file%s, "
		 "%llu bytes%s%s%s%s", hp, ws, rel, c.files, c.files == 1 ? "" : "s",
		 (unsigned long long)c.bytes, c.skipped ? "; skipped (links, files of several "
		 "links, fifos, devices and sockets): " : "", c.skipped_names,
		 c.changed ? "; set-user-ID, set-group-ID and sticky bits dropped from: " : "",
		 c.changed_names);
	tool_reply(r, res, err, 0);
out:
	if (wfd >= 0)
		close(wfd);
	members_free(&t.m);
	host_close(&h);
}
