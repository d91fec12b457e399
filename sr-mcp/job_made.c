/* job_made.c - the files a run created or changed in its workspace.
 *
 * A run under the workspace's quota writes through sr-jail's overlay,
 * whose upper layer holds what it changed and nothing else; the jail's
 * init lists what it applied of it to the workspace in STATE/made/ID.changes
 * (sr-jail --quota-changes, named to the runner in SR_WORKSPACE_CHANGES by
 * job_env: the runner must see it, so it is named by the job's id alone).
 * When the run's result is first asked for after it ended, the list is
 * made from that file: in time proportional to what the run changed,
 * whatever the workspace holds. The file comes from the init, which the
 * run's code cannot reach.
 *
 * Where there is no overlay (a session's call, --workspace-quota off), the
 * workspace is walked instead. Before a run is queued, its workspace is
 * walked and each regular file's inode, size, modification and change
 * times are written to a snapshot in STATE/made (SNAP_TAG, then one record
 * per file), which job_submit names after the job's id (STATE/made/ID)
 * before the job is stored: it is sr-mcp's bookkeeping, not the job's (the
 * job's environment does not name it). When the run's result is first
 * asked for after it ended, the workspace is walked again and compared: a
 * path that is new, or whose inode, size, mtime or ctime differ (ctime: a
 * time set back by the code still shows), was made by the run.
 *
 * Either way the list replaces the file it was made from (MADE_TAG, then
 * JSON), so that a later job_status gives the same list even after other
 * runs changed the workspace; the retention removes both kinds once the
 * job is gone. No file's content is read, only stat(2);
 * node_modules, .sr, .git and the caches of Python and npm are not
 * entered. The walk follows no link (lib/tree.c) and holds SNAP_MAX
 * files at most. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "fs.h"
#include "job.h"
#include "mcp.h"
#include "text.h"
#include "ws.h"
#include "sr.h"

#define SNAP_TAG "sr-mcp snapshot 1\n"
#define MADE_TAG "sr-mcp made 1\n"
#define SNAP_MAX 100000          /* files in a snapshot, at most */
#define CHANGES_TAG "sr-jail quota changes 1\n"
#define WS_DST "/workspace"     /* where the runners bind the workspace */

struct rec {
	uint64_t ino, size;
	int64_t mtime, ctime;
	uint32_t len;            /* of the path that follows */
};

struct ent {
	struct rec r;
	char *path;
};

struct snap {
	struct ent *v;
	size_t n, cap;
	int cut;                 /* not every file is in it */
};

static void snap_free(struct snap *s)
{
	while (s->n > 0)
		free(s->v[--s->n].path);
	free(s->v);
}

/* A directory not entered: packages, sr-mcp's own, version control and
 * caches. */
static int skipped_dir(const char *name)
{
	static const char *const names[] = { "node_modules", ".sr", ".git", "__pycache__",
					     ".cache", ".npm", ".pytest_cache", ".mypy_cache",
					     ".ipynb_checkpoints" };
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (!strcmp(name, names[i]))
			return 1;
	return 0;
}

static int64_t ns(struct timespec t)
{
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* The regular files beneath the workspace wfd (not taken), in s. */
static void snap_walk(int wfd, struct snap *s)
{
	struct sr_tree t = { .sorted = 0, .names_max = SNAP_MAX, .path_max = FS_REL_MAX };
	int fd = fcntl(wfd, F_DUPFD_CLOEXEC, 0), k;
	if (fd < 0 || sr_tree_open(&t, fd) < 0) {
		s->cut = 1;
		return;
	}
	while ((k = sr_tree_next(&t)) > 0) {
		struct stat st;
		if (k == SR_TREE_LEAVE || fstatat(t.dirfd, t.name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (t.path_cut) {
			s->cut = 1;
		} else if (S_ISDIR(st.st_mode)) {
			if (!skipped_dir(t.name))
				(void)sr_tree_enter(&t);
		} else if (S_ISREG(st.st_mode)) {
			if (s->n >= SNAP_MAX) {
				s->cut = 1;
				break;
			}
			s->v = sr_grow(s->v, s->n, &s->cap, sizeof *s->v);
			s->v[s->n].r = (struct rec){ .ino = st.st_ino, .size = (uint64_t)st.st_size,
				.mtime = ns(st.st_mtim), .ctime = ns(st.st_ctim),
				.len = (uint32_t)strlen(t.path) };
			s->v[s->n++].path = xstrdup(t.path);
		}
	}
	if (k < 0 || t.cut)
		s->cut = 1;
	sr_tree_close(&t);
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct ent *)a)->path, ((const struct ent *)b)->path);
}

/* path's whole content written to it anew (a new file renamed over it). */
static int replace_file(const char *path, const char *buf, size_t len)
{
	char tmp[4400], hex[17];
	mcp_random_hex(hex, 8);
	snprintf(tmp, sizeof tmp, "%s/%s.tmp", job_made_dir(), hex);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	int bad = sr_write_all(fd, buf, len) < 0;
	bad = close(fd) < 0 || bad || rename(tmp, path) < 0;
	if (bad)
		unlink(tmp);
	return bad ? -1 : 0;
}

int job_made_snapshot(const char *ws, int session, char *path, size_t len)
{
	char err[300], hex[33];
	path[0] = '\0';
	if (!session && __atomic_load_n(&cfg.ws_quota, __ATOMIC_RELAXED))
		return 1;       /* the jail lists them: STATE/made/ID.changes (job_env) */
	int wfd = job_made_dir() ? ws_open(ws, 0, err, sizeof err) : -1;
	if (wfd < 0)
		return -1;
	struct snap s = { 0 };
	snap_walk(wfd, &s);
	close(wfd);
	struct text_buf b = { 0 };
	text_put(&b, SNAP_TAG, strlen(SNAP_TAG));
	text_put(&b, s.cut ? "1" : "0", 1);
	for (size_t i = 0; i < s.n; i++) {
		struct rec r;
		memset(&r, 0, sizeof r);    /* no stray bytes in its padding */
		r = s.v[i].r;
		text_put(&b, (const char *)&r, sizeof r);
		text_put(&b, s.v[i].path, s.v[i].r.len);
	}
	snap_free(&s);
	mcp_random_hex(hex, 16);
	snprintf(path, len, "%s/%s.snap", job_made_dir(), hex);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	int bad = fd < 0 || sr_write_all(fd, b.p, b.len) < 0;
	if (fd >= 0)
		bad = close(fd) < 0 || bad;
	free(b.p);
	if (bad) {
		mcp_log("unable to write the snapshot of workspace %s (%s): its run's result "
			"will not list the files it made", ws, strerror(errno));
		unlink(path);
		path[0] = '\0';
		return -1;
	}
	return 0;
}

/* What lists the files job id made: STATE/made/ID (the snapshot, or the
 * list made from it), else STATE/made/ID.changes (the jail's list, or the
 * list made from it); "" without the state. */
static void snap_path(const char *id, char *path, size_t len)
{
	path[0] = '\0';
	if (!job_made_dir() || !job_id_ok(id))
		return;
	struct stat st;
	snprintf(path, len, "%s/%s", job_made_dir(), id);
	if (lstat(path, &st) < 0 && errno == ENOENT)
		snprintf(path, len, "%s/%s.changes", job_made_dir(), id);
}

/* The snapshot's records from buf (after its tag) into s. */
static void snap_parse(const char *p, size_t len, struct snap *s)
{
	const char *end = p + len;
	s->cut = len > 0 && *p == '1';
	p += len > 0;
	while ((size_t)(end - p) >= sizeof(struct rec)) {
		struct rec r;
		memcpy(&r, p, sizeof r);
		p += sizeof r;
		if (r.len > (size_t)(end - p))
			break;
		s->v = sr_grow(s->v, s->n, &s->cap, sizeof *s->v);
		s->v[s->n].r = r;
		char *path = xmalloc(r.len + 1);
		memcpy(path, p, r.len);
		path[r.len] = '\0';
		s->v[s->n++].path = path;
		p += r.len;
	}
}

struct made {
	const char *path;
	uint64_t size;
	int created;
};

static size_t depth(const char *p)
{
	size_t d = 0;
	for (; *p; p++)
		d += *p == '/';
	return d;
}

/* Shallow first (outputs/ and the top level before data/a/b/...). */
static int by_depth(const void *a, const void *b)
{
	const struct made *x = a, *y = b;
	size_t dx = depth(x->path), dy = depth(y->path);
	return dx != dy ? (dx < dy ? -1 : 1) : strcmp(x->path, y->path);
}

static int same(const struct rec *x, const struct rec *y)
{
	return x->ino == y->ino && x->size == y->size && x->mtime == y->mtime &&
	       x->ctime == y->ctime;
}

/* What job_made adds: the first JOB_MADE_SHOWN of m (n of them, in
 * order), of total made, gone deleted, cut when not all were seen. */
static cJSON *made_json(const struct made *m, size_t n, size_t total, uint64_t gone, int cut)
{
	cJSON *o = cJSON_CreateObject(), *list = cJSON_AddArrayToObject(o, "files");
	for (size_t k = 0; k < n && k < JOB_MADE_SHOWN; k++) {
		int bad = 0;
		char *p = text_clean(m[k].path, strlen(m[k].path), &bad);
		cJSON *f = cJSON_CreateObject();
		cJSON_AddStringToObject(f, "path", p);
		cJSON_AddNumberToObject(f, "size", (double)m[k].size);
		cJSON_AddStringToObject(f, "change", m[k].created ? "created" : "modified");
		cJSON_AddItemToArray(list, f);
		free(p);
	}
	cJSON_AddNumberToObject(o, "files_not_listed",
				total > JOB_MADE_SHOWN ? (double)(total - JOB_MADE_SHOWN) : 0);
	cJSON_AddNumberToObject(o, "files_deleted", (double)gone);
	cJSON_AddBoolToObject(o, "files_cut", cut);
	return o;
}

/* The files of after that before did not have as they are now, listed. */
static cJSON *made_list(struct snap *before, struct snap *after)
{
	qsort(before->v, before->n, sizeof *before->v, by_path);
	qsort(after->v, after->n, sizeof *after->v, by_path);
	struct made *m = xmalloc((after->n + 1) * sizeof *m);
	size_t i = 0, j = 0, n = 0, gone = 0;
	while (j < after->n) {
		const struct ent *a = &after->v[j];
		int c = i < before->n ? strcmp(before->v[i].path, a->path) : 1;
		if (c < 0) {
			gone++;
			i++;
			continue;
		}
		if (c > 0 || !same(&before->v[i].r, &a->r))
			m[n++] = (struct made){ a->path, a->r.size, c > 0 };
		i += c == 0;
		j++;
	}
	gone += before->n - i;
	qsort(m, n, sizeof *m, by_depth);
	cJSON *o = made_json(m, n, n, gone, before->cut || after->cut);
	free(m);
	return o;
}

/* ---- the init's list (sr-jail(1), --quota-changes) ---------------------- */

/* What a list says, the shallowest JOB_MADE_SHOWN files kept in order. */
struct shown {
	struct made v[JOB_MADE_SHOWN];
	size_t n;
	uint64_t made, gone;
	int ended, cut;
};

/* Is rel (beneath the workspace) where the list does not look: in a
 * directory not entered, or (whole) one itself? */
static int left_out(const char *rel, int whole)
{
	char name[256];
	for (const char *p = rel; *p;) {
		size_t k = strcspn(p, "/");
		if (!p[k] && !whole)
			break;          /* a file's own name */
		if (k < sizeof name) {
			memcpy(name, p, k);
			name[k] = '\0';
			if (skipped_dir(name))
				return 1;
		}
		p += k + (p[k] == '/');
	}
	return 0;
}

static void shown_add(struct shown *s, const char *rel, uint64_t size, int created)
{
	struct made m = { rel, size, created };
	s->made++;
	if (s->n == JOB_MADE_SHOWN && by_depth(&m, &s->v[s->n - 1]) >= 0)
		return;
	if (s->n == JOB_MADE_SHOWN)
		free((char *)s->v[--s->n].path);
	size_t i = s->n++;
	for (; i > 0 && by_depth(&m, &s->v[i - 1]) < 0; i--)
		s->v[i] = s->v[i - 1];
	m.path = xstrdup(rel);
	s->v[i] = m;
}

/* One record, "KIND N PATH": a file written (c, m), removed (r, x: N
 * files), the end (. N: N 1 when a change failed). A run's changes are
 * applied once, at its end: each path comes once. */
static void shown_record(struct shown *s, const char *rec)
{
	char kind = rec[0], *end;
	if (!kind || rec[1] != ' ' || rec[2] < '0' || rec[2] > '9') {
		s->cut = 1;
		return;
	}
	unsigned long long n = strtoull(rec + 2, &end, 10);
	const char *path = end + (*end == ' '), *rel = path + strlen(WS_DST);
	if (*end != ' ' || strncmp(path, WS_DST, strlen(WS_DST)) || (*rel && *rel != '/'))
		return;                 /* another quota's */
	rel += *rel == '/';
	if (kind == '.' && !*rel)
		s->ended = 1, s->cut |= n != 0;
	else if ((kind == 'c' || kind == 'm') && *rel && !left_out(rel, 0))
		shown_add(s, rel, n, kind == 'c');
	else if ((kind == 'r' || kind == 'x') && *rel && !left_out(rel, 1))
		s->gone += n;
}

/* The list in f (its first line read), as job_made adds it. */
static cJSON *shown_list(FILE *f)
{
	struct shown s = { 0 };
	char *rec = NULL;
	size_t cap = 0;
	int any = 0;
	while (getdelim(&rec, &cap, '\0', f) > 0) {
		any = 1;
		shown_record(&s, rec);
	}
	free(rec);
	/* records without the end: the init was killed while it applied */
	cJSON *o = made_json(s.v, s.n, s.made, s.gone, s.cut || (any && !s.ended));
	while (s.n > 0)
		free((char *)s.v[--s.n].path);
	return o;
}

/* The list made from the init's (fd, taken, past its first line). */
static cJSON *from_changes(int fd)
{
	FILE *f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return NULL;
	}
	cJSON *o = shown_list(f);
	fclose(f);
	return o;
}

/* The list kept in path in place of what it was made from. */
static void keep_list(const char *path, const cJSON *o)
{
	char *json = cJSON_PrintUnformatted(o);
	struct text_buf b = { 0 };
	text_put(&b, MADE_TAG, strlen(MADE_TAG));
	text_put(&b, json, strlen(json));
	if (replace_file(path, b.p, b.len) < 0)
		mcp_log("unable to keep the files a job made in %s: %s", path, strerror(errno));
	free(json);
	free(b.p);
}

/* The list from the file (fd taken): made now from the init's list or
 * from the snapshot and the workspace, and stored in its place, or as
 * stored; NULL. */
static cJSON *made_from(int fd, const char *path, const char *ws)
{
	struct stat st;
	size_t got = 0, cn = strlen(CHANGES_TAG);
	char head[64];
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return NULL;
	}
	if (pread(fd, head, cn, 0) == (ssize_t)cn && !memcmp(head, CHANGES_TAG, cn) &&
	    lseek(fd, (off_t)cn, SEEK_SET) == (off_t)cn) {
		cJSON *o = from_changes(fd);
		if (o)
			keep_list(path, o);
		return o;
	}
	char *buf = fs_read_fd(fd, (size_t)st.st_size, &got);
	close(fd);
	cJSON *o = NULL;
	size_t mt = strlen(MADE_TAG), sn = strlen(SNAP_TAG);
	char err[300];
	int wfd;
	if (buf && got >= mt && !memcmp(buf, MADE_TAG, mt)) {
		o = cJSON_ParseWithLength(buf + mt, got - mt);
	} else if (buf && got >= sn && !memcmp(buf, SNAP_TAG, sn) &&
		   (wfd = ws_open(ws, 0, err, sizeof err)) >= 0) {
		struct snap before = { 0 }, after = { 0 };
		snap_parse(buf + sn, got - sn, &before);
		snap_walk(wfd, &after);
		close(wfd);
		o = made_list(&before, &after);
		snap_free(&before);
		snap_free(&after);
		keep_list(path, o);
	}
	free(buf);
	return o;
}

void job_made(cJSON *res, const char *id)
{
	const cJSON *ws = cJSON_GetObjectItem(res, "workspace_id");
	char path[4200];
	snap_path(id, path, sizeof path);
	int fd = path[0] && cJSON_IsString(ws) ?
		open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : -1;
	cJSON *o = fd >= 0 ? made_from(fd, path, ws->valuestring) : NULL, *it;
	if (!cJSON_IsArray(cJSON_GetObjectItem(o, "files"))) {
		cJSON_Delete(o);
		return;
	}
	while ((it = o->child) != NULL) {
		cJSON_DetachItemViaPointer(o, it);
		cJSON_AddItemToObject(res, it->string, it);
	}
	cJSON_Delete(o);
}
