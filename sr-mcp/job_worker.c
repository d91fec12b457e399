/* job_worker.c - the workers sr-mcp starts on its spools, and the tenant
 * a job is queued under.
 *
 * Whoever takes STATE/NAME.lock starts the worker, detached, and hands it
 * the lock; it stays while there is work and for a minute after, so that
 * back-to-back calls find it there. A job queued just as a worker decides
 * to exit is picked up by the next look of a call that finds it still
 * queued (job_wait looks soon, then each second).
 *
 * The lock file says which worker holds it: its pid, then its command
 * line. An sr-mcp that starts with other options (-j, --cpu-budget,
 * --via) than the runs' worker has asks that worker to finish the jobs it
 * runs and exit (SIGTERM: it claims no new job), and moves its lock
 * aside, so that the next job starts a worker with the new options at
 * once: a changed setting takes effect at the next start. (The sessions'
 * worker is left as it is: its slots are live interpreters, and its
 * options are sr-mcp's own.)
 *
 * A job is queued under its client's tenant and, unless --tenant fixed
 * one for every connection, this connection (the process): the worker
 * shares its slots and CPU budget among those; what the worker recorded
 * of a job's wait (queued_ms, queued_reason) is said in words here. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "job.h"
#include "mcp.h"
#include "spawn.h"
#include "spool.h"
#include "sr.h"

/* The worker's command line, and the same as one line in line. */
static void worker_argv(const char *sp, unsigned slots, char *argv[12], char jobs[16],
			char *line, size_t len)
{
	snprintf(jobs, 16, "%u", slots);
	char *base[] = { "sr-queue", "run", (char *)sp, "-j", jobs, "--idle", "60s" };
	int n = 0;
	for (; n < 7; n++)
		argv[n] = base[n];
	if (cfg.via) {
		argv[n++] = "--via";
		argv[n++] = cfg.via;
	}
	if (cfg.cpu_budget[0]) {
		argv[n++] = "--cpu-budget";
		argv[n++] = cfg.cpu_budget;
	}
	argv[n] = NULL;
	size_t k = 0;
	line[0] = '\0';
	for (int i = 0; i < n && k < len; i++)
		k += (size_t)snprintf(line + k, len - k, "%s%s", i ? " " : "", argv[i]);
}

/* fd is still the file named path (not moved aside since it was opened). */
static int still_named(int fd, const char *path)
{
	struct stat a, b;
	return fstat(fd, &a) == 0 && lstat(path, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

void job_worker_start(const char *sp, const char *name, unsigned slots)
{
	char lock[4200], log[4200], jobs[16], line[8300], *argv[12];
	snprintf(lock, sizeof lock, "%s/%s.lock", cfg.state_dir, name);
	snprintf(log, sizeof log, "%s/%s.log", cfg.state_dir, name);
	worker_argv(sp, slots, argv, jobs, line, sizeof line);
	int fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		mcp_log("unable to open %s: %s", lock, strerror(errno));
		return;
	}
	pid_t pid = 0;
	if (flock(fd, LOCK_EX | LOCK_NB) == 0 && still_named(fd, lock)) {
		if (spawn_detached(argv, fd, log, &pid) < 0) {
			mcp_log("unable to start a worker on %s", sp);
		} else {
			char rec[8400];
			int n = snprintf(rec, sizeof rec, "%ld\n%s\n", (long)pid, line);
			if (ftruncate(fd, 0) < 0 || pwrite(fd, rec, (size_t)n, 0) != n)
				mcp_log("unable to record the worker in %s: %s", lock, strerror(errno));
		}
	}
	close(fd);
}

/* The worker's command line as /proc has it, its words joined by spaces. */
static int proc_line(pid_t pid, char *buf, size_t len)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%ld/cmdline", (long)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	buf[n] = '\0';
	return 0;
}

/* The lock held: the worker it names (pid, its command line in had), if
 * /proc shows it running so; else 0. */
static pid_t holder(int fd, char *had, size_t len)
{
	char rec[8400], now[8400];
	ssize_t n = pread(fd, rec, sizeof rec - 1, 0);
	if (n <= 0)
		return 0;
	rec[n] = '\0';
	char *nl = strchr(rec, '\n'), *end;
	long pid = strtol(rec, &end, 10);
	if (!nl || end != nl || pid <= 1)
		return 0;
	nl[strcspn(nl + 1, "\n") + 1] = '\0';
	snprintf(had, len, "%s", nl + 1);
	if (proc_line((pid_t)pid, now, sizeof now) < 0 || strcmp(now, had))
		return 0;
	return (pid_t)pid;
}

/* Once the state directory is ready (the first call that needs it): the
 * runs' worker, if it runs with other options than ours, asked to drain
 * and exit, and its lock moved aside for the next. */
void job_worker_renew(void)
{
	char lock[4200], gate[4200], jobs[16], line[8300], had[8300], *argv[12];
	if (cfg.external_worker || !cfg.state_dir || !cfg.spool)
		return;
	snprintf(lock, sizeof lock, "%s/worker.lock", cfg.state_dir);
	snprintf(gate, sizeof gate, "%s/worker.renew", cfg.state_dir);
	int g = open(gate, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (g < 0)
		return;
	(void)flock(g, LOCK_EX);        /* one renewal at a time */
	int fd = open(lock, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	worker_argv(cfg.spool, cfg.jobs, argv, jobs, line, sizeof line);
	pid_t pid = 0;
	if (fd >= 0 && flock(fd, LOCK_SH | LOCK_NB) == 0)
		(void)flock(fd, LOCK_UN);       /* no worker holds it */
	else if (fd >= 0)
		pid = holder(fd, had, sizeof had);
	if (pid > 0 && strcmp(had, line) && still_named(fd, lock) && unlink(lock) == 0) {
		if (kill(pid, SIGTERM) == 0)
			mcp_log("the worker on %s runs with other options (%s): it finishes the "
				"jobs it runs and exits; the next runs get a worker with these (%s)",
				cfg.spool, had, line);
	}
	if (fd >= 0)
		close(fd);
	close(g);
}

/* How long the run waited in the queue and, when it waited for others,
 * why (sr-queue's queued_reason: every slot busy, or its client over its
 * CPU budget while another's runs waited), in words. */
void job_queued(cJSON *o, const cJSON *st)
{
	const cJSON *q = cJSON_GetObjectItem(st, "queued_ms");
	const cJSON *r = cJSON_GetObjectItem(st, "queued_reason");
	const char *why = cJSON_IsString(r) ? r->valuestring : NULL;
	char note[500], took[32], slots[40] = "";
	if (!cJSON_IsNumber(q))
		return;
	cJSON_AddNumberToObject(o, "queued_ms", q->valuedouble);
	if (!why || (strcmp(why, "budget") && strcmp(why, "slots")))
		return;
	if (q->valuedouble < 1000)
		snprintf(took, sizeof took, "%.0f ms", q->valuedouble);
	else
		snprintf(took, sizeof took, "%.1f s", q->valuedouble / 1000);
	if (!cfg.external_worker)
		snprintf(slots, sizeof slots, " (%u, sr-mcp -j)", cfg.jobs);
	const char *b = cfg.cpu_budget, *w = strchr(b, '/');
	if (!strcmp(why, "budget"))
		snprintf(note, sizeof note, "This run waited %s in the queue: other clients' runs "
			 "went first, as this client had used more than its CPU budget (%.*s of CPU "
			 "time per %s) while theirs waited. The budget holds a client back only "
			 "while another client's runs wait.", took, w ? (int)(w - b) : (int)strlen(b),
			 b, w ? w + 1 : "window");
	else
		snprintf(note, sizeof note, "This run waited %s in the queue for a free slot: "
			 "every slot of the worker%s was busy.", took, slots);
	cJSON_AddStringToObject(o, "queued_reason", why);
	cJSON_AddStringToObject(o, "queued_note", note);
}

const char *job_queue_tenant(const char *tenant, char *buf)
{
	if (cfg.tenant_fixed)
		return tenant;
	char sfx[24];
	int n = snprintf(sfx, sizeof sfx, ".%ld", (long)getpid());
	snprintf(buf, SQ_TENANT_MAX + 1, "%.*s%s", SQ_TENANT_MAX - n, tenant, sfx);
	return buf;
}
