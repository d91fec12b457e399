/* spool_state.c - where a job is, settling it when its worker is found
 * dead. */
#include <cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "spool.h"
#include "sr.h"

_Thread_local char sq_job_refusal[SQ_JOB_REFUSAL_MAX];

/* Look in queue/, run/, done/ in the order a job moves through them. A
 * job directory that is not ours alone is refused (-1, errno EPERM). */
static int job_open(struct sq_spool *sp, const char *id, int *fd)
{
	static const char *const names[] = { "queue", "run", "done" };
	const int dirs[] = { sp->queue, sp->run, sp->done };
	char why[SQ_WHY_MAX];
	for (int i = 0; i < 3; i++) {
		*fd = sq_open_private_dir(dirs[i], id, why, sizeof why);
		if (*fd >= 0)
			return SQ_W_QUEUE + i;
		if (*fd == SQ_REFUSED) {
			snprintf(sq_job_refusal, sizeof sq_job_refusal, "%s/%s/%s: %s", sp->path,
				 names[i], id, why);
			*fd = -1;
			errno = EPERM;
			return -1;
		}
		if (errno != ENOENT)
			return -1;
	}
	return SQ_W_NONE;
}

static void unrecorded_lost(struct sq_jstat *js)
{
	js->state = "lost";
	js->result = sq_result_new("lost", "lost");
	cJSON_AddBoolToObject(js->result, "unrecorded", 1);
}

/* Find a job and settle it if its worker died. 0 and *js filled, or -1
 * (errno ENOENT: no such job). */
int sq_job_resolve(struct sq_spool *sp, const char *id, struct sq_jstat *js)
{
	memset(js, 0, sizeof *js);
	js->fd = -1;
	sq_job_refusal[0] = '\0';
	int misses = 0;
	for (int tries = 0; tries < 100; tries++) {
		int fd;
		int w = job_open(sp, id, &fd);
		if (w < 0)
			return -1;
		if (w == SQ_W_NONE) {
			if (++misses >= 3) { /* a requeue can move a job backwards */
				errno = ENOENT;
				return -1;
			}
			continue;
		}
		js->where = (enum sq_where)w;
		js->fd = fd;
		if (w == SQ_W_QUEUE) {
			js->state = "queued";
			return 0;
		}
		(void)sq_job_read_at(fd, SQ_JOB_FILE, NULL, &js->result);
		if (js->result) {
			js->state = sq_json_str(js->result, "state");
			return 0;
		}
		if (w == SQ_W_DONE) {
			unrecorded_lost(js);
			return 0;
		}
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			js->state = "running";
			return 0;
		}
		if (sq_same_file(fd, sp->run, id) &&
		    sq_job_settle_orphan(sp, id, fd, "worker died while the job ran") < 0) {
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

void sq_jstat_free(struct sq_jstat *js)
{
	if (js->fd >= 0)
		close(js->fd);
	cJSON_Delete(js->result);
	js->fd = -1;
	js->result = NULL;
}
