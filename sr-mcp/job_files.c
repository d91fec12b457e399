/* job_files.c - a job's own files in the spool, read without following a
 * link: its output so far (for progress), its record. The bottom of the
 * jobs layer: jobs.c and job_result.c call it. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "job.h"
#include "mcp.h"
#include "text.h"
#include "sr.h"

/* The job's file NAME, open, wherever the job is now. */
int job_file(const char *id, const char *name)
{
	static const char *const dirs[] = { "done", "run", "queue" };
	char path[4400];
	for (size_t i = 0; i < 3; i++) {
		snprintf(path, sizeof path, "%s/%s/%s/%s", cfg.spool, dirs[i], id, name);
		int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd >= 0 || errno != ENOENT)
			return fd;
	}
	return -1;
}

char *job_read_at(int fd, uint64_t off, size_t n, size_t *got)
{
	char *p = xmalloc(n + 1);
	size_t len = 0;
	while (len < n) {
		ssize_t r = pread(fd, p + len, n - len, (off_t)(off + len));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	*got = len;
	return p;
}

char *job_tail(const char *id, const char *stream, size_t n, size_t *got)
{
	int fd = job_file(id, stream);
	struct stat sb;
	*got = 0;
	if (fd < 0 || fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) || sb.st_size == 0) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if ((uint64_t)sb.st_size < n)
		n = (size_t)sb.st_size;
	char *tail = job_read_at(fd, (uint64_t)sb.st_size - n, n, got);
	close(fd);
	tail[*got] = '\0';
	return tail;
}

/* For progress: "N bytes of output so far; last line: ..." */
void job_progress_note(const char *id, char *buf, size_t len)
{
	int fd = job_file(id, "stdout");
	struct stat sb;
	uint64_t out = 0;
	char last[121] = "";
	if (fd >= 0 && fstat(fd, &sb) == 0 && sb.st_size > 0) {
		out = (uint64_t)sb.st_size;
		size_t got, n = out < 512 ? (size_t)out : 512;
		char *tail = job_read_at(fd, out - n, n, &got);
		tail[got] = '\0';
		while (got && (tail[got - 1] == '\n' || tail[got - 1] == '\r'))
			tail[--got] = '\0';
		char *nl = strrchr(tail, '\n');
		int r = 0;
		char *clean = text_clean(nl ? nl + 1 : tail, strlen(nl ? nl + 1 : tail), &r);
		snprintf(last, sizeof last, "%s", clean);
		free(clean);
		free(tail);
	}
	if (fd >= 0)
		close(fd);
	int e = job_file(id, "stderr");
	uint64_t err = e >= 0 && fstat(e, &sb) == 0 ? (uint64_t)sb.st_size : 0;
	if (e >= 0)
		close(e);
	snprintf(buf, len, "%llu bytes of stdout, %llu of stderr so far%s%s",
		 (unsigned long long)out, (unsigned long long)err, last[0] ? "; last line: " : "",
		 last);
}

cJSON *job_info(const char *id)
{
	int fd = job_file(id, "job.jsonl");
	if (fd < 0)
		return NULL;
	size_t got;
	char *s = job_read_at(fd, 0, 1 << 16, &got);
	close(fd);
	s[got] = '\0';
	s[strcspn(s, "\n")] = '\0';
	cJSON *j = cJSON_Parse(s);
	free(s);
	return j;
}

static void units(char *buf, size_t len, uint64_t v, const uint64_t *mult,
		  const char *const *name, size_t n)
{
	size_t i = 0;
	while (i + 1 < n && v % mult[i] != 0)
		i++;
	snprintf(buf, len, "%llu%s", (unsigned long long)(v / mult[i]), name[i]);
}

void job_terms(char *buf, size_t len)
{
	static const uint64_t ms[] = { 86400000, 3600000, 60000, 1000, 1 };
	static const char *const msn[] = { "d", "h", "m", "s", "ms" };
	static const uint64_t by[] = { 1ULL << 30, 1ULL << 20, 1ULL << 10, 1 };
	static const char *const byn[] = { "G", "M", "K", " bytes" };
	char t[32], s[32];
	units(t, sizeof t, cfg.job_ttl_ms, ms, msn, 5);
	units(s, sizeof s, cfg.job_space, by, byn, 4);
	if (cfg.job_ttl_ms && cfg.job_space)
		snprintf(buf, len, "sr-mcp keeps finished jobs for %s and at most %s of them, the "
			 "oldest removed first", t, s);
	else if (cfg.job_ttl_ms)
		snprintf(buf, len, "sr-mcp keeps finished jobs for %s", t);
	else if (cfg.job_space)
		snprintf(buf, len, "sr-mcp keeps at most %s of finished jobs, the oldest removed "
			 "first", s);
	else
		snprintf(buf, len, "finished jobs are removed by sr-queue gc");
}
