/* spool_settle.c - moving a job between the spool's directories under its
 * flock: cancelled, finished, requeued or lost when its worker died, and
 * the recovery of what dead workers and submitters left. */
#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "spool.h"
#include "sr.h"

/* Move a job directory (whose flock the caller holds) and make it durable. */
int sq_job_move(const char *id, int from, int to)
{
	if (renameat(from, id, to, id) < 0)
		return -1;
	if (sq_fsync_dir(to) < 0 || sq_fsync_dir(from) < 0)
		return -1;
	return 0;
}

int sq_read_attempts(int jobfd)
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
	if (sq_write_file_at(fd, "attempts.tmp", buf, (size_t)len) < 0 ||
	    renameat(fd, "attempts.tmp", fd, "attempts") < 0)
		return -1;
	return sq_fsync_dir(fd);
}

static int finish_with(struct sq_spool *sp, const char *id, int fd, int from, cJSON *res,
		       int attempts)
{
	if (!res)
		return -1;      /* out of memory: errno ENOMEM */
	cJSON_AddNumberToObject(res, "attempts", attempts);
	cJSON_AddNumberToObject(res, "finished_ms", (double)sq_now_ms());
	int r = sq_result_write(fd, res);
	cJSON_Delete(res);
	if (r < 0 || sq_fsync_dir(fd) < 0 || sq_job_move(id, from, sp->done) < 0)
		return -1;
	(void)unlinkat(sp->cancel, id, 0);
	return 0;
}

/* A cancelled job that never started, or one whose worker died. */
int sq_job_finish_cancelled(struct sq_spool *sp, const char *id, int fd, int from)
{
	if (sq_job_has_result(fd)) {
		if (sq_job_move(id, from, sp->done) < 0)
			return -1;
		(void)unlinkat(sp->cancel, id, 0);
		return 0;
	}
	return finish_with(sp, id, fd, from, sq_result_new("cancelled", "cancelled"),
			   sq_read_attempts(fd));
}

/* The job is in run/ and the caller holds its flock, so whoever ran it is
 * gone (the supervisor kills the job's processes before letting go). The
 * job is finished if its result was written, cancelled if that was asked,
 * requeued while --retry allows, lost otherwise. */
int sq_job_settle_orphan(struct sq_spool *sp, const char *id, int fd, const char *why)
{
	if (sq_job_has_result(fd))
		return sq_job_move(id, sp->run, sp->done) < 0 ? -1 : SQ_S_FINISHED;
	if (sq_exists_at(sp->cancel, id))
		return sq_job_finish_cancelled(sp, id, fd, sp->run) < 0 ? -1 : SQ_S_CANCELLED;
	cJSON *job;
	(void)sq_job_read_at(fd, SQ_JOB_FILE, &job, NULL);
	long long retry = sq_json_num(job, "retry", 0);
	cJSON_Delete(job);
	int lost = sq_read_attempts(fd) + 1;
	if (lost <= retry) {
		if (write_attempts(fd, lost) < 0)
			return -1;
		(void)unlinkat(fd, "stdout", 0); /* the next attempt starts afresh */
		(void)unlinkat(fd, "stderr", 0);
		return sq_job_move(id, sp->run, sp->queue) < 0 ? -1 : SQ_S_REQUEUED;
	}
	cJSON *res = sq_result_new("lost", "lost");
	cJSON_AddStringToObject(res, "error", why);
	return finish_with(sp, id, fd, sp->run, res, lost) < 0 ? -1 : SQ_S_LOST;
}

/* Ask for the cancel of a job: cancel/ID, which its worker watches and a
 * claim looks for. 0, or -1 (errno). */
int sq_cancel_ask(struct sq_spool *sp, const char *id)
{
	int fd = openat(sp->cancel, id, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
			0600);
	if (fd < 0)
		return -1;
	return close(fd);
}

struct recovery {
	struct sq_spool *sp;
	struct sq_recover_counts *rc;
};

static void recover_run(int dfd, const char *id, void *ctx)
{
	struct sq_spool *sp = ((struct recovery *)ctx)->sp;
	struct sq_recover_counts *rc = ((struct recovery *)ctx)->rc;
	char why[SQ_WHY_MAX];
	if (!sq_id_valid(id))
		return;
	int fd = sq_open_private_dir(dfd, id, why, sizeof why);
	if (fd == SQ_REFUSED)
		sr_warn("refusing job %s/run/%s: %s; left as it is", sp->path, id, why);
	if (fd < 0)
		return;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		rc->busy++;
	} else if (sq_same_file(fd, dfd, id)) {
		switch (sq_job_settle_orphan(sp, id, fd, "worker died while the job ran")) {
		case SQ_S_FINISHED: rc->finished++; break;
		case SQ_S_CANCELLED: rc->cancelled++; break;
		case SQ_S_LOST: rc->lost++; break;
		case SQ_S_REQUEUED: rc->requeued++; break;
		default: sr_warn_sys("unable to settle job %s", id); break;
		}
	}
	close(fd);
}

/* A cancel request outlives its job only by a crash; drop it then. */
static void recover_cancel(int dfd, const char *id, void *ctx)
{
	const struct sq_spool *sp = ctx;
	if (sq_exists_at(sp->run, id) || sq_exists_at(sp->queue, id))
		return;
	(void)unlinkat(dfd, id, 0);
}

void sq_recover_all(struct sq_spool *sp, struct sq_recover_counts *rc)
{
	struct recovery r = { sp, rc };
	memset(rc, 0, sizeof *rc);
	sq_each_entry(sp->run, recover_run, &r);
	sq_each_entry(sp->cancel, recover_cancel, sp);
	rc->tmp = sq_tmp_cleanup(sp);
}

/* tmp/ holds submissions in progress (locked by their submitter) and jobs
 * being deleted by gc ("gc.ID"). Remove what nobody owns any more. */
static void clean_tmp(int dfd, const char *name, void *ctx)
{
	unsigned *count = ctx;
	char gone[SQ_ID_LEN + 8];
	if (strncmp(name, "gc.", 3) == 0 || strncmp(name, "rm.", 3) == 0) {
		if (sq_remove_tree_at(dfd, name) == 0)
			(*count)++;
		return;
	}
	struct stat st;
	if (!sq_id_valid(name) || fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    time(NULL) - st.st_mtime < SQ_TMP_MIN_AGE_S)
		return;
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	snprintf(gone, sizeof gone, "rm.%s", name);
	if (flock(fd, LOCK_EX | LOCK_NB) == 0 && renameat(dfd, name, dfd, gone) == 0 &&
	    sq_remove_tree_at(dfd, gone) == 0)
		(*count)++;
	close(fd);
}

unsigned sq_tmp_cleanup(struct sq_spool *sp)
{
	unsigned count = 0;
	sq_each_entry(sp->tmp, clean_tmp, &count);
	return count;
}
