/* gc.c - `gc`: remove finished jobs (by age, by the room they take on
 * disk, beyond a count to keep), cancel requests of finished jobs, and
 * tmp/ leftovers.
 *
 * Only done/ is looked at: a queued or running job is never removed. A
 * job leaves done/ in one rename to tmp/gc.ID, under its flock, and is
 * deleted there (what a crash leaves there, recover and the next gc
 * delete). A reader that opened it before keeps what it opened; one that
 * comes after finds no job, and SPOOL/removed (the latest-submitted job
 * gc removed) lets it say that gc most likely removed it. */
#include <cJSON.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "spool.h"
#include "sr.h"

#define DU_DEPTH 8      /* a job directory is flat; deeper is not counted */

struct done_job {
	char id[SQ_ID_LEN + 1];
	uint64_t finished_ms;
	uint64_t bytes;         /* on disk: st_blocks of everything in it */
	int go;
};

struct gc_list {
	struct done_job *v;
	size_t n, cap;
};

/* What NAME under dfd takes on disk, following no link. */
static uint64_t disk_usage_at(int dfd, const char *name, int depth)
{
	struct stat st;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	uint64_t n = (uint64_t)st.st_blocks * 512;
	if (!S_ISDIR(st.st_mode) || depth >= DU_DEPTH)
		return n;
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return n;
	}
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			n += disk_usage_at(dirfd(d), e->d_name, depth + 1);
	closedir(d);
	return n;
}

static void collect(int dfd, const char *id, void *ctx)
{
	struct gc_list *l = ctx;
	if (!sq_id_valid(id))
		return;
	l->v = sr_grow(l->v, l->n, &l->cap, sizeof *l->v);
	struct done_job *d = &l->v[l->n++];
	memcpy(d->id, id, SQ_ID_LEN + 1);
	cJSON *r = NULL;
	int fd = openat(dfd, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		(void)sq_job_read_at(fd, SQ_JOB_FILE, NULL, &r);
		close(fd);
	}
	long long f = sq_json_num(r, "finished_ms", -1);
	cJSON_Delete(r);
	struct stat st;
	if (f < 0) /* no readable result: use when it was moved to done/ */
		f = fstatat(dfd, id, &st, AT_SYMLINK_NOFOLLOW) == 0 ?
			    (long long)st.st_mtime * 1000 : 0;
	d->finished_ms = (uint64_t)f;
	d->bytes = disk_usage_at(dfd, id, 0);
}

static int newest_first(const void *a, const void *b)
{
	const struct done_job *x = a, *y = b;
	if (x->finished_ms != y->finished_ms)
		return x->finished_ms < y->finished_ms ? 1 : -1;
	return strcmp(y->id, x->id);
}

/* Take the job out of done/ in one rename (under its flock), then delete. */
static int remove_job(struct sq_spool *sp, const char *id)
{
	char gone[SQ_ID_LEN + 8];
	int fd = openat(sp->done, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	snprintf(gone, sizeof gone, "gc.%s", id);
	int r = -1;
	if (flock(fd, LOCK_EX | LOCK_NB) == 0 && renameat(sp->done, id, sp->tmp, gone) == 0)
		r = 0;
	close(fd);
	if (r == 0) {
		(void)unlinkat(sp->cancel, id, 0);
		if (sq_remove_tree_at(sp->tmp, gone) < 0)
			sr_warn_sys("unable to remove %s/tmp/%s", sp->path, gone);
	}
	return r;
}

/* A cancel request of a finished job asks nothing any more (a cancel
 * that lost the race with the job's end leaves one). */
static void drop_cancel(int dfd, const char *id, void *ctx)
{
	const struct sq_spool *sp = ctx;
	if (sq_id_valid(id) && sq_exists_at(sp->done, id))
		(void)unlinkat(dfd, id, 0);
}

static const struct option gc_lo[] = {
	{ "older-than", required_argument, NULL, SQ_Q_OLDER },
	{ "max-bytes", required_argument, NULL, SQ_Q_MAXB },
	{ "keep", required_argument, NULL, SQ_Q_KEEP },
	{ "json", no_argument, NULL, SQ_Q_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Newest first: the --keep newest stay; with neither --older-than nor
 * --max-bytes every other goes; else a job goes when it finished before
 * --older-than, or when it and the newer ones kept would take more than
 * --max-bytes (then every older one goes too: oldest first). */
static int must_go(const struct sq_qopts *o, size_t i, const struct done_job *d,
		   uint64_t now, uint64_t *kept_bytes, int *over)
{
	uint64_t age = o->older_ns / 1000000ULL;
	int go;
	if (i < o->keep)
		go = 0;
	else if (!o->has_older && !o->has_max)
		go = 1;
	else if (o->has_older && d->finished_ms + age <= now)
		go = 1;
	else if (o->has_max && (*over || *kept_bytes + d->bytes > o->max_bytes))
		go = *over = 1;
	else
		go = 0;
	if (!go)
		*kept_bytes += d->bytes;
	return go;
}

/* Decide (newest first), note the latest-submitted job to go in
 * SPOOL/removed before any goes, then remove. */
int sq_cmd_gc(int argc, char **argv)
{
	struct sq_qopts o = { 0 };
	char *ops[1], mark[SQ_ID_LEN + 1] = "";
	struct sq_spool sp;
	struct gc_list l = { 0 };
	sq_query_args(argc, argv, gc_lo, &o, 0, ops, &sp);
	sq_each_entry(sp.done, collect, &l);
	qsort(l.v, l.n, sizeof *l.v, newest_first);
	uint64_t now = sq_now_ms(), kept_bytes = 0, removed_bytes = 0;
	unsigned removed = 0, kept = 0;
	int over = 0;
	for (size_t i = 0; i < l.n; i++) {
		l.v[i].go = must_go(&o, i, &l.v[i], now, &kept_bytes, &over);
		if (l.v[i].go && strcmp(l.v[i].id, mark) > 0)
			memcpy(mark, l.v[i].id, sizeof mark);
	}
	if (mark[0] && sq_removed_note(sp.root, mark) < 0)
		sr_warn_sys("unable to write %s/removed (a removed job reads as never there)",
			    sp.path);
	for (size_t i = 0; i < l.n; i++) {
		if (l.v[i].go && remove_job(&sp, l.v[i].id) == 0) {
			removed++;
			removed_bytes += l.v[i].bytes;
		} else {
			kept++;
			if (l.v[i].go)  /* busy: it stays, and takes its room */
				kept_bytes += l.v[i].bytes;
		}
	}
	free(l.v);
	if (removed && sq_fsync_dir(sp.done) < 0)
		sr_warn_sys("unable to fsync %s/done", sp.path);
	sq_each_entry(sp.cancel, drop_cancel, &sp);
	unsigned tmp = sq_tmp_cleanup(&sp);
	sq_spool_close(&sp);
	static const char *const names[] = { "removed", "kept", "removed_bytes", "kept_bytes",
					     "tmp_removed" };
	const unsigned long long vals[] = { removed, kept, removed_bytes, kept_bytes, tmp };
	return sq_print_counts(o.json, names, vals, 5);
}
