/* via.c - what passes between a keeper and its job's node under --via.
 *
 * The launcher (srun ...) carries the job's output and nothing else we can
 * trust: its exit status is its own, and a signal the job died of arrives
 * as a number, if at all. So the node's side (`sr-queue land`, land.c)
 * says how the job ended in a file of the job's directory, which every
 * node sees: "landed", one JSON line, written (atomically) once when it
 * has found the job's directory, {"host"}, and again when the job has
 * ended, with its wait status, how it was stopped and its times, or the
 * stage at which it could not start. The job's stats fd (SR_STATS_FD=3)
 * is the file "stats" there. The keeper reads both once the launcher has
 * ended:
 *   no "landed"            the job never reached a node: failed, "via"
 *   "landed" with a stage  it could not start there: failed, as here
 *   "landed" with a status it ran: completed, as here
 *   "landed" with a host   the node (or land) died with it: lost, or
 *                          requeued under --retry; unless the launcher
 *                          said the cluster cancelled it (scancel of a
 *                          step kills land too): cancelled */
#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sr.h"
#include "spool.h"
#include "worker.h"

/* A small file of the job's directory, never through a link: its length,
 * or -1. */
static ssize_t read_job_file(int jobfd, const char *name, char *buf, size_t size)
{
	int fd = openat(jobfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t n = 0;
	while (n < size) {
		ssize_t r = read(fd, buf + n, size - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	return (ssize_t)n;
}

/* A later attempt (--retry) starts from nothing. A first one looks up
 * nothing: a name looked up before the node makes it could stay cached
 * as missing on an NFS client. */
void sq_via_forget(int jobfd)
{
	if (sq_read_attempts(jobfd) == 0)
		return;
	(void)unlinkat(jobfd, SQ_LANDED_FILE, 0);
	(void)unlinkat(jobfd, SQ_STATS_FILE, 0);
}

/* "exit 1", "signal 9": how the launcher ended. */
static void status_text(int status, char *buf, size_t len)
{
	if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %d", WTERMSIG(status));
	else
		snprintf(buf, len, "exit %d", WEXITSTATUS(status));
}

/* What the launcher (or land, on the node) wrote on stderr: land's own
 * line when there is one (the launcher may have said something first, say
 * that the job waited for resources), else the first line; most often why
 * it could not start the job. Cut to fit, never inside a UTF-8 character. */
static void first_error_line(int jobfd, char *buf, size_t len)
{
	char all[4096];
	ssize_t n = read_job_file(jobfd, "stderr", all, sizeof all - 1);
	all[n > 0 ? n : 0] = '\0';
	const char *line = all;
	for (const char *p = all; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p))
		if (!strncmp(p, "sr-queue:", 9)) {
			line = p;
			break;
		}
	size_t m = strcspn(line, "\n");
	if (m > len - 1) {      /* cut: drop a last character left incomplete */
		size_t i = len - 1;
		while (i > 0 && ((unsigned char)line[i] & 0xc0) == 0x80)
			i--;
		m = i;
	}
	memcpy(buf, line, m);
	buf[m] = '\0';
}

static void never_landed(int jobfd, int status, struct sq_report *rep)
{
	char how[40], line[320];
	status_text(status, how, sizeof how);
	first_error_line(jobfd, line, sizeof line);
	rep->stage = SQ_FS_VIA;
	snprintf(rep->why, sizeof rep->why,
		 "the job did not start on a node: the --via launcher ended (%s) before "
		 "sr-queue land reported from the node%s%s%s. A node that cannot see the "
		 "job's directory fails this way: the spool and the job's working directory "
		 "must be on storage every node sees, at the same path",
		 how, line[0] ? " (it said: " : "", line, line[0] ? ")" : "");
}

static cJSON *read_record(int jobfd)
{
	char buf[1024];
	ssize_t n = read_job_file(jobfd, SQ_LANDED_FILE, buf, sizeof buf - 1);
	buf[n > 0 ? n : 0] = '\0';
	return n > 0 ? cJSON_Parse(buf) : NULL;
}

static int has(const cJSON *rec, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(rec, key) != NULL;
}

/* Did the launcher say, at the end of the job's stderr, that the cluster
 * cancelled the job? scancel of a step kills every process of it at once
 * (land too, so it cannot say so itself), and srun then passes on
 * slurmstepd's "*** STEP 12.0 ON node CANCELLED AT <time> ***" (not
 * one "DUE TO NODE FAILURE": that job is lost). */
static int cancelled_by_cluster(int jobfd)
{
	char buf[4097];
	int fd = openat(jobfd, "stderr", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	off_t end = lseek(fd, 0, SEEK_END);
	ssize_t n = pread(fd, buf, sizeof buf - 1, end > 4096 ? end - 4096 : 0);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	for (char *line = buf, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (strncmp(line, "slurmstepd", 10) == 0 && strstr(line, "*** STEP ") &&
		    strstr(line, " CANCELLED AT ") && !strstr(line, "NODE FAIL"))
			return 1;
	}
	return 0;
}

static uint64_t rec_u64(const cJSON *rec, const char *key)
{
	long long v = sq_json_num(rec, key, 0);
	return v > 0 ? (uint64_t)v : 0;
}

/* Once the launcher has ended (status): rep as if the job had run here,
 * and its stats, from what the node left in the job's directory. */
void sq_via_collect(int jobfd, int status, struct sq_report *rep, char *stats,
		    size_t *statslen)
{
	int asked = rep->killed == SQ_KILLED_ASKED; /* cancel or stop, here */
	*statslen = 0;
	if (rep->stage == SQ_FS_EXEC) {
		rep->stage = SQ_FS_VIA;
		snprintf(rep->why, sizeof rep->why, "the --via launcher could not be run: %s",
			 strerror(rep->err));
	}
	if (rep->stage != SQ_FS_NONE)
		return;
	cJSON *rec = read_record(jobfd);
	const char *host = sq_json_str(rec, "host");
	if (!host) {
		if (!asked)
			never_landed(jobfd, status, rep);
	} else if (has(rec, "stage")) {
		rep->stage = (int32_t)sq_json_num(rec, "stage", SQ_FS_SETUP);
		rep->err = (int32_t)sq_json_num(rec, "errno", 0);
	} else if (!has(rec, "status") && !asked && cancelled_by_cluster(jobfd)) {
		rep->killed = SQ_KILLED_ASKED;
		rep->node_cancel = 1;
	} else if (!has(rec, "status")) {
		if (!asked) {
			char how[40];
			status_text(status, how, sizeof how);
			rep->node_lost = 1;
			snprintf(rep->why, sizeof rep->why, "node %.200s ended without saying how "
				 "the job ended: the node, or sr-queue land on it, died, or land could "
				 "not write its record (the launcher ended: %s)", host, how);
		}
	} else {
		rep->status = (int32_t)sq_json_num(rec, "status", 0);
		int killed = (int)sq_json_num(rec, "killed", SQ_KILLED_NO);
		if (!asked) {
			rep->killed = killed;
			rep->node_cancel = killed == SQ_KILLED_ASKED;
		}
		rep->wall_ns = rec_u64(rec, "wall_ns");
		rep->user_ns = rec_u64(rec, "user_ns");
		rep->sys_ns = rec_u64(rec, "sys_ns");
		ssize_t n = read_job_file(jobfd, SQ_STATS_FILE, stats, SQ_STATS_MAX);
		struct stat st;
		*statslen = n > 0 ? (size_t)n : 0;
		rep->stats_total = fstatat(jobfd, SQ_STATS_FILE, &st, AT_SYMLINK_NOFOLLOW) == 0 ?
			(uint64_t)st.st_size : *statslen;
	}
	cJSON_Delete(rec);
}

/* On the node: dir/landed, with how the job ended once it has (final). */
int sq_land_record(const char *dir, const struct sq_report *rep, const char *host, int final)
{
	char path[PATH_MAX];
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return -1;
	cJSON_AddStringToObject(o, "host", host);
	if (final && rep->stage != SQ_FS_NONE) {
		cJSON_AddNumberToObject(o, "stage", rep->stage);
		cJSON_AddNumberToObject(o, "errno", rep->err);
	} else if (final) {
		cJSON_AddNumberToObject(o, "status", rep->status);
		cJSON_AddNumberToObject(o, "killed", rep->killed);
		cJSON_AddNumberToObject(o, "wall_ns", (double)rep->wall_ns);
		cJSON_AddNumberToObject(o, "user_ns", (double)rep->user_ns);
		cJSON_AddNumberToObject(o, "sys_ns", (double)rep->sys_ns);
	}
	char *line = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (!line)
		return -1;
	snprintf(path, sizeof path, "%s/%s", dir, SQ_LANDED_FILE);
	int r = sr_write_file_atomic(path, line, strlen(line));
	free(line);
	return r;
}
