/* gc.c - `gc`: remove finished jobs, by age and count, and tmp/ leftovers. */
#include <cJSON.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "sr.h"

struct done_job {
	char id[SQ_ID_LEN + 1];
	uint64_t finished_ms;
};

struct gc_list {
	struct done_job *v;
	size_t n, cap;
};

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

static const struct option gc_lo[] = {
	{ "older-than", required_argument, NULL, SQ_Q_OLDER },
	{ "keep", required_argument, NULL, SQ_Q_KEEP },
	{ "json", no_argument, NULL, SQ_Q_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int sq_cmd_gc(int argc, char **argv)
{
	struct sq_qopts o = { 0 };
	char *ops[1];
	struct sq_spool sp;
	struct gc_list l = { 0 };
	sq_query_args(argc, argv, gc_lo, &o, 0, ops, &sp);
	sq_each_entry(sp.done, collect, &l);
	qsort(l.v, l.n, sizeof *l.v, newest_first);
	uint64_t now = sq_now_ms(), age = o.older_ns / 1000000ULL;
	unsigned removed = 0, kept = 0;
	for (size_t i = 0; i < l.n; i++) {
		int young = o.has_older && l.v[i].finished_ms + age > now;
		if (i < o.keep || young || remove_job(&sp, l.v[i].id) < 0)
			kept++;
		else
			removed++;
	}
	free(l.v);
	if (removed && sq_fsync_dir(sp.done) < 0)
		sr_warn_sys("unable to fsync %s/done", sp.path);
	unsigned tmp = sq_tmp_cleanup(&sp);
	sq_spool_close(&sp);
	static const char *const names[] = { "removed", "kept", "tmp_removed" };
	const unsigned vals[] = { removed, kept, tmp };
	return sq_print_counts(o.json, names, vals, 3);
}
