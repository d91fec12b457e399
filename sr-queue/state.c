/* state.c - where a job is, and settling jobs whose worker died. */
#include <cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "queue.h"
#include "sr.h"

char job_refusal[ID_LEN + 2 * WHY_MAX + 16];

/* Look in queue/, run/, done/ in the order a job moves through them. A
 * job directory that is not ours alone is refused (-1, errno EPERM). */
static int job_open(struct spool *sp, const char *id, int *fd)
{
	static const char *const names[] = { "queue", "run", "done" };
	const int dirs[] = { sp->queue, sp->run, sp->done };
	char why[WHY_MAX];
	for (int i = 0; i < 3; i++) {
		*fd = open_private_dir(dirs[i], id, why, sizeof why);
		if (*fd >= 0)
			return W_QUEUE + i;
		if (*fd == REFUSED) {
			snprintf(job_refusal, sizeof job_refusal, "%s/%s/%s: %s", sp->path,
				 names[i], id, why);
			*fd = -1;
			errno = EPERM;
			return -1;
		}
		if (errno != ENOENT)
			return -1;
	}
	return W_NONE;
}

/* Move a job directory (whose flock the caller holds) and make it durable. */
int job_move(struct spool *sp, const char *id, int from, int to)
{
	(void)sp;
	if (renameat(from, id, to, id) < 0)
		return -1;
	if (fsync_dir(to) < 0 || fsync_dir(from) < 0)
		return -1;
	return 0;
}

int read_attempts(int jobfd)
{
	char buf[32];
	int fd = openat(jobfd, "attempts", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n;
	do
		n = read(fd, buf, sizeof buf - 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return atoi(buf);
}

static int write_attempts(int fd, int n)
{
	char buf[32];
	int len = snprintf(buf, sizeof buf, "%d\n", n);
	if (write_file_at(fd, "attempts.tmp", buf, (size_t)len) < 0 ||
	    renameat(fd, "attempts.tmp", fd, "attempts") < 0)
		return -1;
	return fsync_dir(fd);
}

static int finish_with(struct spool *sp, const char *id, int fd, int from, cJSON *res,
		       int attempts)
{
	cJSON_AddNumberToObject(res, "attempts", attempts);
	cJSON_AddNumberToObject(res, "finished_ms", (double)now_ms());
	int r = result_write(fd, res);
	cJSON_Delete(res);
	if (r < 0 || fsync_dir(fd) < 0 || job_move(sp, id, from, sp->done) < 0)
		return -1;
	(void)unlinkat(sp->cancel, id, 0);
	return 0;
}

/* A cancelled job that never started, or one whose worker died. */
int job_finish_cancelled(struct spool *sp, const char *id, int fd, int from)
{
	if (job_has_result(fd)) {
		if (job_move(sp, id, from, sp->done) < 0)
			return -1;
		(void)unlinkat(sp->cancel, id, 0);
		return 0;
	}
	return finish_with(sp, id, fd, from, result_new("cancelled", "cancelled"),
			   read_attempts(fd));
}

/* The job is in run/ and the caller holds its flock, so whoever ran it is
 * gone (the supervisor kills the job's processes before letting go). The
 * job is finished if its result was written, cancelled if that was asked,
 * requeued while --retry allows, lost otherwise. */
int job_settle_orphan(struct spool *sp, const char *id, int fd, const char *why)
{
	if (job_has_result(fd))
		return job_move(sp, id, sp->run, sp->done) < 0 ? -1 : S_FINISHED;
	if (exists_at(sp->cancel, id))
		return job_finish_cancelled(sp, id, fd, sp->run) < 0 ? -1 : S_CANCELLED;
	cJSON *job;
	(void)job_read_at(fd, JOB_FILE, &job, NULL);
	long long retry = json_num(job, "retry", 0);
	cJSON_Delete(job);
	int lost = read_attempts(fd) + 1;
	if (lost <= retry) {
		if (write_attempts(fd, lost) < 0)
			return -1;
		(void)unlinkat(fd, "stdout", 0); /* the next attempt starts afresh */
		(void)unlinkat(fd, "stderr", 0);
		return job_move(sp, id, sp->run, sp->queue) < 0 ? -1 : S_REQUEUED;
	}
	cJSON *res = result_new("lost", "lost");
	cJSON_AddStringToObject(res, "error", why);
	return finish_with(sp, id, fd, sp->run, res, lost) < 0 ? -1 : S_LOST;
}

static void unrecorded_lost(struct jstat *js)
{
	js->state = "lost";
	js->result = result_new("lost", "lost");
	cJSON_AddBoolToObject(js->result, "unrecorded", 1);
}

/* Find a job and settle it if its worker died. 0 and *js filled, or -1
 * (errno ENOENT: no such job). */
int job_resolve(struct spool *sp, const char *id, struct jstat *js)
{
	memset(js, 0, sizeof *js);
	js->fd = -1;
	job_refusal[0] = '\0';
	int misses = 0;
	for (int tries = 0; tries < 100; tries++) {
		int fd;
		int w = job_open(sp, id, &fd);
		if (w < 0)
			return -1;
		if (w == W_NONE) {
			if (++misses >= 3) { /* a requeue can move a job backwards */
				errno = ENOENT;
				return -1;
			}
			continue;
		}
		js->where = (enum where)w;
		js->fd = fd;
		if (w == W_QUEUE) {
			js->state = "queued";
			return 0;
		}
		(void)job_read_at(fd, JOB_FILE, NULL, &js->result);
		if (js->result) {
			js->state = json_str(js->result, "state");
			return 0;
		}
		if (w == W_DONE) {
			unrecorded_lost(js);
			return 0;
		}
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			js->state = "running";
			return 0;
		}
		if (same_file(fd, sp->run, id) &&
		    job_settle_orphan(sp, id, fd, "worker died while the job ran") < 0) {
			sr_warn_sys("unable to settle job %s", id);
			(void)flock(fd, LOCK_UN);
			unrecorded_lost(js);
			return 0;
		}
		close(fd);
		js->fd = -1;
	}
	errno = EAGAIN;
	return -1;
}

void jstat_free(struct jstat *js)
{
	if (js->fd >= 0)
		close(js->fd);
	cJSON_Delete(js->result);
	js->fd = -1;
	js->result = NULL;
}

void each_entry(struct spool *sp, int dfd, entry_fn fn, void *ctx)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		sr_warn_sys("unable to read a spool directory");
		return;
	}
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			fn(sp, dfd, e->d_name, ctx);
	closedir(d);
}

static void recover_run(struct spool *sp, int dfd, const char *id, void *ctx)
{
	struct recover_counts *rc = ctx;
	char why[WHY_MAX];
	if (!id_valid(id))
		return;
	int fd = open_private_dir(dfd, id, why, sizeof why);
	if (fd == REFUSED)
		sr_warn("refusing job %s/run/%s: %s; left as it is", sp->path, id, why);
	if (fd < 0)
		return;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		rc->busy++;
	} else if (same_file(fd, dfd, id)) {
		switch (job_settle_orphan(sp, id, fd, "worker died while the job ran")) {
		case S_FINISHED: rc->finished++; break;
		case S_CANCELLED: rc->cancelled++; break;
		case S_LOST: rc->lost++; break;
		case S_REQUEUED: rc->requeued++; break;
		default: sr_warn_sys("unable to settle job %s", id); break;
		}
	}
	close(fd);
}

/* A cancel request outlives its job only by a crash; drop it then. */
static void recover_cancel(struct spool *sp, int dfd, const char *id, void *ctx)
{
	(void)ctx;
	if (exists_at(sp->run, id) || exists_at(sp->queue, id))
		return;
	(void)unlinkat(dfd, id, 0);
}

void recover_all(struct spool *sp, struct recover_counts *rc)
{
	memset(rc, 0, sizeof *rc);
	each_entry(sp, sp->run, recover_run, rc);
	each_entry(sp, sp->cancel, recover_cancel, NULL);
	rc->tmp = tmp_cleanup(sp);
}

/* tmp/ holds submissions in progress (locked by their submitter) and jobs
 * being deleted by gc ("gc.ID"). Remove what nobody owns any more. */
static void clean_tmp(struct spool *sp, int dfd, const char *name, void *ctx)
{
	unsigned *count = ctx;
	char gone[ID_LEN + 8];
	(void)sp;
	if (strncmp(name, "gc.", 3) == 0 || strncmp(name, "rm.", 3) == 0) {
		if (remove_tree_at(dfd, name) == 0)
			(*count)++;
		return;
	}
	struct stat st;
	if (!id_valid(name) || fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    time(NULL) - st.st_mtime < TMP_MIN_AGE_S)
		return;
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	snprintf(gone, sizeof gone, "rm.%s", name);
	if (flock(fd, LOCK_EX | LOCK_NB) == 0 && renameat(dfd, name, dfd, gone) == 0 &&
	    remove_tree_at(dfd, gone) == 0)
		(*count)++;
	close(fd);
}

unsigned tmp_cleanup(struct spool *sp)
{
	unsigned count = 0;
	each_entry(sp, sp->tmp, clean_tmp, &count);
	return count;
}
