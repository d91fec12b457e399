/* job_made.c - the files a run created or changed in its workspace.
 *
 * Before a run is queued, its workspace is walked and each regular file's
 * inode, size, modification and change times are written to a snapshot
 * in STATE/made (SNAP_TAG, then one record per file), which job_submit
 * names after the job's id (STATE/made/ID) before the job is stored: it
 * is sr-mcp's bookkeeping, not the job's (the job's environment does not
 * name it), and the retention removes it once the job is gone. When
 * the run's result is first asked for after it ended, the workspace is
 * walked again and compared: a path that is new, or whose inode, size,
 * mtime or ctime differ (ctime: a time set back by the code still shows),
 * was made by the run. The list replaces the snapshot (MADE_TAG, then
 * JSON), so that a later job_status gives the same list even after other
 * runs changed the workspace. No file's content is read, only stat(2);
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

#include "job.h"
#include "sr.h"

#define SNAP_TAG "sr-mcp snapshot 1\n"
#define MADE_TAG "sr-mcp made 1\n"
#define SNAP_MAX 100000          /* files in a snapshot, at most */

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

int job_made_snapshot(const char *ws, char *path, size_t len)
{
	char err[300], hex[33];
	path[0] = '\0';
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

/* The snapshot of job id: STATE/made/ID. */
static void snap_path(const char *id, char *path, size_t len)
{
	path[0] = '\0';
	if (job_made_dir() && job_id_ok(id))
		snprintf(path, len, "%s/%s", job_made_dir(), id);
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
	const struct ent *e;
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
	size_t dx = depth(x->e->path), dy = depth(y->e->path);
	return dx != dy ? (dx < dy ? -1 : 1) : strcmp(x->e->path, y->e->path);
}

static int same(const struct rec *x, const struct rec *y)
{
	return x->ino == y->ino && x->size == y->size && x->mtime == y->mtime &&
	       x->ctime == y->ctime;
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
			m[n++] = (struct made){ a, c > 0 };
		i += c == 0;
		j++;
	}
	gone += before->n - i;
	qsort(m, n, sizeof *m, by_depth);
	cJSON *o = cJSON_CreateObject(), *list = cJSON_AddArrayToObject(o, "files");
	for (size_t k = 0; k < n && k < JOB_MADE_SHOWN; k++) {
		int bad = 0;
		char *p = text_clean(m[k].e->path, strlen(m[k].e->path), &bad);
		cJSON *f = cJSON_CreateObject();
		cJSON_AddStringToObject(f, "path", p);
		cJSON_AddNumberToObject(f, "size", (double)m[k].e->r.size);
		cJSON_AddStringToObject(f, "change", m[k].created ? "created" : "modified");
		cJSON_AddItemToArray(list, f);
		free(p);
	}
	cJSON_AddNumberToObject(o, "files_not_listed", n > JOB_MADE_SHOWN ? (double)(n - JOB_MADE_SHOWN) : 0);
	cJSON_AddNumberToObject(o, "files_deleted", (double)gone);
	cJSON_AddBoolToObject(o, "files_cut", before->cut || after->cut);
	free(m);
	return o;
}

/* The list from the snapshot file (read whole, fd taken): made now from
 * the workspace and stored in its place, or as stored; NULL. */
static cJSON *made_from(int fd, const char *path, const char *ws)
{
	struct stat st;
	size_t got = 0;
	char *buf = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ?
		fs_read_fd(fd, (size_t)st.st_size, &got) : NULL;
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
		char *json = cJSON_PrintUnformatted(o);
		struct text_buf b = { 0 };
		text_put(&b, MADE_TAG, mt);
		text_put(&b, json, strlen(json));
		if (replace_file(path, b.p, b.len) < 0)
			mcp_log("unable to keep the files job made in %s: %s", path, strerror(errno));
		free(json);
		free(b.p);
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
