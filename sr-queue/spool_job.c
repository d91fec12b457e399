/* result.c - the job file: line 1 the job, line 2 its result.
 *
 * submit writes the job line and reserves room after it (fallocate), so
 * that the result can be recorded even when the disk has filled up since.
 * The result line is written in place after the job line, fsynced, and
 * only then is the directory moved to done/; a line without its newline
 * (a writer that died) does not count. */
#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spool.h"
#include "sr.h"

#define JOB_FILE_MAX (64U << 20)

/* The job file open on fd (*st gets its fstat): a regular file, ours
 * alone? 0, or -1 and why. */
static int job_file_ok(int fd, struct stat *st, char *why, size_t len)
{
	char w[SQ_WHY_MAX];
	if (fstat(fd, st) < 0) {
		snprintf(why, len, SQ_JOB_FILE ": %s", strerror(errno));
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		snprintf(why, len, SQ_JOB_FILE " is not a regular file");
		return -1;
	}
	if (sq_not_private(st, w, sizeof w)) {
		snprintf(why, len, SQ_JOB_FILE " is %s", w);
		return -1;
	}
	return 0;
}

/* Never through a symbolic link, never blocking on a FIFO, and only a
 * job file that is ours alone (else NULL, errno EPERM). */
static char *read_all_at(int dfd, const char *name, size_t *lenp)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	char why[SQ_WHY_MAX];
	char *buf = NULL;
	size_t len = 0;
	if (job_file_ok(fd, &st, why, sizeof why) < 0) {
		close(fd);
		errno = EPERM;
		return NULL;
	}
	if ((uint64_t)st.st_size < JOB_FILE_MAX &&
	    (buf = malloc((size_t)st.st_size + 1)) != NULL) {
		while (len < (size_t)st.st_size) {
			ssize_t n = read(fd, buf + len, (size_t)st.st_size - len);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			len += (size_t)n;
		}
		buf[len] = '\0';
	}
	close(fd);
	*lenp = len;
	return buf;
}

/* Before a worker runs a job: is its job file there, a regular file (not
 * a symbolic link) and ours alone? 0; SQ_REFUSED and why; -1 (errno) when
 * it could not be looked at. */
int sq_job_file_check(int jobfd, char *why, size_t len)
{
	int fd = openat(jobfd, SQ_JOB_FILE, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ELOOP)
			snprintf(why, len, SQ_JOB_FILE " is a symbolic link");
		else if (errno == ENOENT)
			snprintf(why, len, "no " SQ_JOB_FILE);
		else
			return -1;
		return SQ_REFUSED;
	}
	struct stat st;
	int r = job_file_ok(fd, &st, why, len) < 0 ? SQ_REFUSED : 0;
	close(fd);
	return r;
}

static cJSON *parse_object(const char *s, size_t n)
{
	cJSON *j = cJSON_ParseWithLength(s, n);
	if (j && !cJSON_IsObject(j)) {
		cJSON_Delete(j);
		j = NULL;
	}
	return j;
}

/* Parse NAME (under dfd): *job gets line 1, *res line 2 if complete (or
 * NULL). Either pointer may be NULL. -1 (errno) if there is no job line. */
int sq_job_read_at(int dfd, const char *name, cJSON **job, cJSON **res)
{
	size_t len;
	char *buf = read_all_at(dfd, name, &len);
	if (job)
		*job = NULL;
	if (res)
		*res = NULL;
	if (!buf)
		return -1;
	char *nl = memchr(buf, '\n', len);
	if (!nl) {
		free(buf);
		errno = EINVAL;
		return -1;
	}
	size_t len1 = (size_t)(nl - buf) + 1;
	if (job)
		*job = parse_object(buf, len1 - 1);
	char *nl2 = memchr(buf + len1, '\n', len - len1);
	if (res && nl2) {
		*res = parse_object(buf + len1, (size_t)(nl2 - buf) - len1);
		if (*res && !sq_json_str(*res, "state")) {
			cJSON_Delete(*res);
			*res = NULL;
		}
	}
	free(buf);
	return 0;
}

/* Length of line 1 (with its newline). */
static off_t job_line_len(int fd)
{
	char buf[4096];
	off_t off = 0;
	for (;;) {
		ssize_t n = pread(fd, buf, sizeof buf, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			errno = n < 0 ? errno : EINVAL;
			return -1;
		}
		char *nl = memchr(buf, '\n', (size_t)n);
		if (nl)
			return off + (nl - buf) + 1;
		off += n;
	}
}

/* obj as one line; *len counts its newline (there is no NUL after it). */
static char *json_line(const cJSON *obj, size_t *len)
{
	char *s = cJSON_PrintUnformatted(obj);
	if (!s) {
		errno = ENOMEM;
		return NULL;
	}
	*len = strlen(s);
	s[(*len)++] = '\n';
	return s;
}

/* A new job file: the job line, then room kept for the result. */
static int put_job(int fd, const char *s, size_t len)
{
	if (sr_write_all(fd, s, len) < 0)
		return -1;
	if (fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, (off_t)(len + SQ_RESULT_RESERVE)) < 0 &&
	    errno != EOPNOTSUPP && errno != ENOSYS)
		return -1;
	return fsync(fd);
}

/* The result line, in place after the job line (replacing any partial one). */
static int put_result(int fd, const char *s, size_t len)
{
	off_t at = job_line_len(fd);
	if (at < 0)
		return -1;
	ssize_t n = pwrite(fd, s, len, at);
	if (n >= 0 && n < (ssize_t)len)
		errno = ENOSPC;
	if (n != (ssize_t)len || ftruncate(fd, at + (off_t)len) < 0)
		return -1;
	return fsync(fd);
}

static int put_line(int dfd, const cJSON *obj, int result)
{
	size_t len;
	char *s = json_line(obj, &len);
	if (!s)
		return -1;
	int fd = result ? openat(dfd, SQ_JOB_FILE, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
			: openat(dfd, SQ_JOB_FILE, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
				 O_CLOEXEC, 0600);
	int r = fd < 0 ? -1 : result ? put_result(fd, s, len) : put_job(fd, s, len);
	int e = errno;
	if (fd >= 0)
		close(fd);
	free(s);
	errno = e;
	return r;
}

int sq_job_write_at(int dfd, const cJSON *job)
{
	return put_line(dfd, job, 0);
}

/* Record res as the job's result line and fsync it. */
int sq_result_write(int jobfd, const cJSON *res)
{
	return put_line(jobfd, res, 1);
}

int sq_job_has_result(int jobfd)
{
	cJSON *res;
	if (sq_job_read_at(jobfd, SQ_JOB_FILE, NULL, &res) < 0 || !res)
		return 0;
	cJSON_Delete(res);
	return 1;
}

/* {"state", "reason"}; NULL (errno ENOMEM) when memory ran out. */
cJSON *sq_result_new(const char *state, const char *reason)
{
	cJSON *r = cJSON_CreateObject();
	if (r && cJSON_AddStringToObject(r, "state", state) &&
	    cJSON_AddStringToObject(r, "reason", reason))
		return r;
	cJSON_Delete(r);
	errno = ENOMEM;
	return NULL;
}

const char *sq_json_str(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A number that long long cannot hold (1e300, an infinity) counts as
 * absent: converting it would be undefined behaviour. */
long long sq_json_num(const cJSON *obj, const char *key, long long dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (!cJSON_IsNumber(v) || !(v->valuedouble >= -9223372036854775808.0 &&
				    v->valuedouble < 9223372036854775808.0))
		return dflt;
	return (long long)v->valuedouble;
}

/* The code `wait` exits with for a finished job (see EXIT STATUS). */
int sq_result_exit_code(const cJSON *res)
{
	const char *state = sq_json_str(res, "state");
	const char *reason = sq_json_str(res, "reason");
	if (!state)
		return SQ_EXIT_LOST;
	if (strcmp(state, "cancelled") == 0)
		return SQ_EXIT_CANCELLED;
	if (strcmp(state, "lost") == 0)
		return SQ_EXIT_LOST;
	if (reason && strcmp(reason, "timeout") == 0)
		return SR_EXIT_TIMEOUT;
	long long sig = sq_json_num(res, "signal", 0);
	if (sig > 0 && sig < 128)
		return 128 + (int)sig;
	long long code = sq_json_num(res, "exit_code", -1);
	if (code >= 0 && code <= 255)
		return (int)code;
	return strcmp(state, "failed") == 0 ? SR_EXIT_NOEXEC : SQ_EXIT_LOST;
}

/* What a finished job's record, and its files as they are now, say was
 * not kept. The worker records what it could not store (stdout_error,
 * stderr_error, limit_error; a total over the bytes stored); a file
 * shorter than what was stored, or gone, was cut or removed since (gc
 * removes a job while a view may read it). */

/* The sizes of the job's stdout and stderr now: -1 when not there. */
void sq_stream_sizes(int jobfd, long long size[2])
{
	static const char *const names[] = { "stdout", "stderr" };
	for (int i = 0; i < 2; i++) {
		struct stat st;
		size[i] = SQ_SIZE_UNKNOWN;
		if (jobfd < 0)
			continue;
		if (fstatat(jobfd, names[i], &st, AT_SYMLINK_NOFOLLOW) == 0)
			size[i] = S_ISREG(st.st_mode) ? (long long)st.st_size : -1;
		else if (errno == ENOENT)
			size[i] = -1;
	}
}

static void loss_part(struct sq_loss *l, const char *text, const char *why)
{
	size_t t = strlen(l->text), w = strlen(l->why);
	snprintf(l->text + t, sizeof l->text - t, "%s%s", t ? "; " : "", text);
	snprintf(l->why + w, sizeof l->why - w, "%s%s", w ? "; " : "", why);
}

/* One stream's loss in l: 1, or 0 when all it wrote can be read. */
static int stream_loss(const cJSON *res, int i, long long have, struct sq_loss *l)
{
	static const char *const names[] = { "stdout", "stderr" };
	const char *s = names[i];
	char key[32], text[300], why[160];
	snprintf(key, sizeof key, "%s_bytes", s);
	long long stored = sq_json_num(res, key, -1);
	snprintf(key, sizeof key, "%s_total", s);
	long long total = sq_json_num(res, key, stored);
	snprintf(key, sizeof key, "%s_error", s);
	const char *err = sq_json_str(res, key);
	if (stored < 0)
		return 0;
	memset(l, 0, sizeof *l);
	l->what = s;
	long long unstored = total > stored ? total - stored : 0;
	long long gone = have != SQ_SIZE_UNKNOWN && stored > (have < 0 ? 0 : have) ?
		stored - (have < 0 ? 0 : have) : 0;
	if (unstored && err) {
		snprintf(text, sizeof text, "%lld bytes of %s not stored (%s)", unstored, s, err);
		loss_part(l, text, err);
	} else if (unstored) {
		snprintf(text, sizeof text, "%lld bytes of %s not stored (past its --max-output "
			 "of %lld bytes)", unstored, s, stored);
		snprintf(why, sizeof why, "past --max-output (%lld bytes)", stored);
		loss_part(l, text, why);
	} else if (err) {
		snprintf(text, sizeof text, "%s may not all be on disk (%s)", s, err);
		loss_part(l, text, err);
	}
	if (gone && have < 0)
		snprintf(text, sizeof text, "the %lld stored bytes of %s are gone (its file was "
			 "removed since: by gc, most likely)", stored, s);
	else if (gone)
		snprintf(text, sizeof text, "%lld of the %lld stored bytes of %s are gone (its "
			 "file was cut short since)", gone, stored, s);
	if (gone)
		loss_part(l, text, have < 0 ? "its file was removed" : "its file was cut short");
	l->bytes = unstored + gone;
	l->kind = gone ? SQ_LOSS_GONE : err ? SQ_LOSS_ERROR : unstored ? SQ_LOSS_CAP : 0;
	return l->kind != 0;
}

size_t sq_result_losses(const cJSON *res, const long long size[2], struct sq_loss v[SQ_LOSS_MAX])
{
	size_t n = 0;
	for (int i = 0; i < 2; i++)
		n += (size_t)stream_loss(res, i, size ? size[i] : SQ_SIZE_UNKNOWN, &v[n]);
	const char *lerr = sq_json_str(res, "limit_error");
	if (lerr) {
		struct sq_loss *l = &v[n++];
		memset(l, 0, sizeof *l);
		l->what = "limit";
		l->kind = SQ_LOSS_ERROR;
		l->bytes = -1;
		snprintf(l->why, sizeof l->why, "%s", lerr);
		snprintf(l->text, sizeof l->text, "sr-limit's report %s", lerr);
	}
	return n;
}

const char *sq_loss_kind_name(int kind)
{
	return kind == SQ_LOSS_CAP ? "cap" : kind == SQ_LOSS_GONE ? "gone" : "error";
}

/* [{"what", "kind", "bytes" (when known), "why", "text"}], or NULL when
 * nothing was lost. */
cJSON *sq_losses_json(const struct sq_loss *v, size_t n)
{
	if (!n)
		return NULL;
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; a && i < n; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "what", v[i].what);
		cJSON_AddStringToObject(o, "kind", sq_loss_kind_name(v[i].kind));
		if (v[i].bytes >= 0)
			cJSON_AddNumberToObject(o, "bytes", (double)v[i].bytes);
		cJSON_AddStringToObject(o, "why", v[i].why);
		cJSON_AddStringToObject(o, "text", v[i].text);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}
