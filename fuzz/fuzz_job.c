/* fuzz_job.c - sr-queue's job file read back from a spool
 * (sr-queue/spool_job.c: sq_job_read_at, sq_job_has_result and the
 * readers of the fields the commands and the worker use).
 *
 * The input is written as job.jsonl into a private temporary directory
 * and read back with the spool's own reader, so the file checks (regular,
 * ours, not group- or world-writable) run as well. Checked: line 1 is an
 * object or NULL; a result is an object with a string "state", only when
 * a second line ends in a newline; sq_job_has_result agrees; the exit
 * code of `sr-queue wait` is one a process can exit with. */
#include <cJSON.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "spool.h"
#include "sr.h"

static int dfd = -1;
static char dir[4096];

static void cleanup(void)
{
	if (dfd >= 0)
		unlinkat(dfd, SQ_JOB_FILE, 0);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (fz_tmpdir(dir, sizeof dir, "sr-fuzz-job") < 0 || (dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		perror(dir);
		abort();
	}
	atexit(cleanup);
	return 0;
}

/* The fields sr-queue reads from a job and a result (keeper.c, cli.c,
 * gc.c, spool_settle.c, worker.c, logs.c). */
static void fields(const cJSON *j)
{
	static const char *const str[] = { "state", "reason", "error", "cwd", "tenant",
		"id", "signal_name" };
	static const char *const num[] = { "exit_code", "signal", "finished_ms",
		"max_output", "timeout_ms", "kill_after_ms", "umask", "retry",
		"stdout_bytes", "stderr_bytes", "submitted_ms", "attempts" };
	for (size_t i = 0; i < sizeof str / sizeof *str; i++) {
		const char *s = sq_json_str(j, str[i]);
		if (s)
			(void)strlen(s);
	}
	for (size_t i = 0; i < sizeof num / sizeof *num; i++)
		(void)sq_json_num(j, num[i], -1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = openat(dfd, SQ_JOB_FILE, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
			0600);
	if (fd < 0 || sr_write_all(fd, data, size) < 0 || close(fd) < 0) {
		perror(SQ_JOB_FILE);
		abort();
	}
	cJSON *job = NULL, *res = NULL;
	const char *nl = size ? memchr(data, '\n', size) : NULL;
	int r = sq_job_read_at(dfd, SQ_JOB_FILE, &job, &res);
	if ((r == 0) != (nl != NULL))
		abort();      /* a job line is exactly a line that ends */
	if (job && !cJSON_IsObject(job))
		abort();
	if (res && (!cJSON_IsObject(res) || !sq_json_str(res, "state") ||
		    !memchr(nl + 1, '\n', size - (size_t)(nl + 1 - (const char *)data))))
		abort();
	if (sq_job_has_result(dfd) != (res != NULL))
		abort();
	if (job)
		fields(job);
	if (res) {
		fields(res);
		int code = sq_result_exit_code(res);
		if (code < 0 || code > 255)
			abort();
	}
	cJSON_Delete(job);
	cJSON_Delete(res);
	return 0;
}
