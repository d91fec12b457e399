/* spool_submit.c - storing a job durably, then making it visible in one
 * rename.
 *
 * tmp/ID is built under the submitter's flock: job.jsonl and the stdin copy
 * are written and fsynced, and the files outside the spool the job reads,
 * then the directory itself, then it is unlocked and renamed
 * into queue/ and queue/ is fsynced. Only then is the job submitted. Both
 * `sr-queue submit` and sr-mcp store their jobs through here; nothing here
 * exits. */
#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spool.h"
#include "sr.h"

static int add_str(cJSON *arr, const char *s)
{
	cJSON *v = cJSON_CreateString(s);
	return v && cJSON_AddItemToArray(arr, v) ? 0 : -1;
}

cJSON *sq_job_record(const char *id, const struct sq_new_job *n)
{
	cJSON *j = cJSON_CreateObject();
	cJSON *argv = cJSON_CreateArray(), *env = cJSON_CreateArray();
	int bad = !j || !argv || !env;
	for (char *const *a = n->argv; !bad && *a; a++)
		bad = add_str(argv, *a) < 0;
	for (size_t i = 0; !bad && i < n->nenv; i++)
		bad = add_str(env, n->env[i]) < 0;
	if (bad) {
		cJSON_Delete(j);
		cJSON_Delete(argv);
		cJSON_Delete(env);
		return NULL;
	}
	cJSON_AddNumberToObject(j, "v", 1);
	cJSON_AddStringToObject(j, "id", id);
	cJSON_AddItemToObject(j, "argv", argv);
	cJSON_AddItemToObject(j, "env", env);
	cJSON_AddStringToObject(j, "cwd", n->cwd);
	cJSON_AddStringToObject(j, "tenant", n->tenant);
	cJSON_AddNumberToObject(j, "max_output", (double)n->max_output);
	cJSON_AddNumberToObject(j, "retry", (double)n->retry);
	cJSON_AddNumberToObject(j, "timeout_ms", (double)n->timeout_ms);
	cJSON_AddNumberToObject(j, "kill_after_ms", (double)n->kill_after_ms);
	cJSON_AddBoolToObject(j, "stdin", n->stdin_fd >= 0 || n->stdin_data != NULL);
	cJSON_AddNumberToObject(j, "umask", (double)n->umask);
	if (!cJSON_AddNumberToObject(j, "submitted_ms", (double)sq_now_ms())) {
		cJSON_Delete(j);
		return NULL;
	}
	return j;
}

/* The job's stdin file, from an fd (read to its end) or from memory. */
static int write_stdin(int jobfd, const struct sq_new_job *n)
{
	int out = openat(jobfd, "stdin", O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
			 0600);
	if (out < 0)
		return -1;
	int r = 0;
	if (n->stdin_fd < 0) {
		r = sr_write_all(out, n->stdin_data, n->stdin_len);
	} else {
		char buf[65536];
		for (;;) {
			ssize_t got = read(n->stdin_fd, buf, sizeof buf);
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0) {
				r = got < 0 ? -1 : 0;
				break;
			}
			if ((r = sr_write_all(out, buf, (size_t)got)) < 0)
				break;
		}
	}
	if (r == 0)
		r = fsync(out);
	int e = errno;
	close(out);
	errno = e;
	return r;
}

/* Build tmp/ID, then rename it into queue/. 0, or -1 with errno and the
 * step that failed in *what; nothing is left behind in tmp/ then. */
int sq_job_store(struct sq_spool *sp, const char *id, const cJSON *job,
		 const struct sq_new_job *n, const char **what)
{
	*what = "mkdir";
	if (mkdirat(sp->tmp, id, 0700) < 0)
		return -1;
	int fd = openat(sp->tmp, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	*what = "open";
	if (fd < 0 || flock(fd, LOCK_EX) < 0)
		goto fail;
	sq_crash_point("submit:after-mkdir");
	*what = SQ_JOB_FILE;
	if (sq_job_write_at(fd, job) < 0)
		goto fail;
	*what = "stdin";
	if ((n->stdin_fd >= 0 || n->stdin_data) && write_stdin(fd, n) < 0)
		goto fail;
	*what = "fsync of a file the job reads";
	for (size_t i = 0; i < n->ndeps; i++)
		if (fsync(n->deps[i]) < 0)
			goto fail;
	sq_crash_point("submit:after-write");
	*what = "fsync";
	(void)futimens(fd, NULL);
	if (sq_fsync_dir(fd) < 0)
		goto fail;
	/* Unlocked before the rename: a worker woken by it claims the job at
	 * once, where it would find it still locked and come back 20 ms
	 * later. Meanwhile the fresh mtime keeps tmp/'s cleanup, which takes
	 * only unlocked entries SQ_TMP_MIN_AGE_S old, away from it. */
	(void)flock(fd, LOCK_UN);
	*what = "rename into queue/";
	if (renameat(sp->tmp, id, sp->queue, id) < 0)
		goto fail;
	close(fd);
	sq_crash_point("submit:after-rename");
	*what = "fsync of queue/ (the job is queued)";
	return sq_fsync_dir(sp->queue) < 0 ? -1 : 0;
fail:;
	int e = errno;
	if (fd >= 0)
		close(fd);
	(void)sq_remove_tree_at(sp->tmp, id);
	errno = e;
	return -1;
}
