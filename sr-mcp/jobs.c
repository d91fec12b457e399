/* jobs.c - every run is an sr-queue job, so it has an id, survives a
 * restart of sr-mcp and shows in `sr-queue list`. sr-mcp stores its jobs
 * and reads finished ones through sr-queue's spool core (linked in), runs
 * sr-queue's commands for the rest (status of a running job, cancel,
 * list), and starts a worker on the spool when none is running, unless
 * told that someone else does.
 *
 * The job's program is the runner; what it needs reaches it in SR_*
 * variables (see sr-mcp(1), RUNNERS):
 *   SR_CODE        the code, a file of its own (no symbolic link on its path)
 *   SR_WORKSPACE   the workspace directory, bound at /workspace
 *   SR_WORKSPACE_QUOTA  its size cap in bytes for sr-jail --quota, or empty
 *   SR_WORKSPACE_QUOTA_CACHE  its size cache, for sr-jail --quota-cache
 *   SR_WORKSPACE_INODES its inode cap for sr-jail --quota-inodes, or empty
 *   SR_LIMIT_ARGS, SR_JAIL_ARGS, SR_EXEC_ARGS   options for the chain
 *   SR_VERDICT_FILE  the file in the job's spool directory where the chain
 *                  says what it saw (job_result.c reads it) */
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <time.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "job.h"
#include "spool.h"      /* sr-queue's spool core */
#include "sr.h"

int job_id_ok(const char *s)
{
	size_t n = 0;
	for (; s[n]; n++)
		if (!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f')))
			return 0;
	return n == 32;
}

/* A new private file under the code directory, its path in path (4096
 * bytes): the file, still open (its writeback started: the job's store
 * fsyncs it, see sq_new_job's deps), or -1 with err. */
static int write_private(const char *what, const void *buf, size_t len, char path[4096],
			 char *err, size_t errlen)
{
	char hex[33];
	mcp_random_hex(hex, 16);
	snprintf(path, 4096, "%s/%s.%s", cfg.code_dir, hex, what);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || sr_write_all(fd, buf, len) < 0) {
		snprintf(err, errlen, "unable to write %s: %s", path, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(path);
		}
		return -1;
	}
	(void)sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
	return fd;
}

/* The caller's variables, NUL-separated KEY=VALUE, for sr-jail --env-file. */
static int env_file(const cJSON *env, char path[4096], char *err, size_t errlen)
{
	size_t len = 0;
	const cJSON *e;
	cJSON_ArrayForEach(e, env)
		len += strlen(e->string) + strlen(e->valuestring) + 2;
	char *buf = xmalloc(len + 1), *p = buf;
	cJSON_ArrayForEach(e, env)
		p += sprintf(p, "%s=%s", e->string, e->valuestring) + 1;
	int fd = write_private("env", buf, len, path, err, errlen);
	free(buf);
	return fd;
}

static int memory_cgroup = -1;
static pthread_mutex_t probe_lock = PTHREAD_MUTEX_INITIALIZER;

/* Does sr-limit --mem work here (a delegated cgroup)? Asked once. */
const char *job_memory_via(void)
{
	pthread_mutex_lock(&probe_lock);
	if (memory_cgroup < 0) {
		char *out, *argv[] = { "sr-limit", "--mem", "64M", "true", NULL };
		memory_cgroup = spawn_capture(argv, &out, 64, 1) == 0;
		free(out);
	}
	pthread_mutex_unlock(&probe_lock);
	return memory_cgroup ? "cgroup" : "rlimit data";
}

static struct sq_spool spool;   /* opened once, by job_state_ready */
static struct sq_spool sess_spool;  /* the sessions' interpreters: STATE/sessions/spool */

/* "K=V" onto env; the string is kept in bufs, freed by the caller. */
static void add_env(char **env, size_t *n, const char *k, const char *v)
{
	if (asprintf(&env[*n], "%s=%s", k, v) < 0)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	(*n)++;
}

/* The job is stored in the spool here, through sr-queue's spool core, as
 * `sr-queue submit` would store it (no exec on the way). */
/* The environment of s's runner (env, 19 at most): the code's file,
 * the workspace ws, its quota, the env file envf ("" for none), the
 * arguments of sr-limit, sr-jail and sr-exec, job id's verdict file. Its
 * length. */
static size_t job_env(const struct run_spec *s, const char *id, const char *code,
		      const char *ws, const char *envf, char **env)
{
	char limit[256], jail[4400], exec[64], path[4200], quota[32] = "", inodes[32] = "", sizes[4400] = "";
	char mem[64] = "";
	if (s->memory)
		snprintf(mem, sizeof mem, "--%s %llu ", strcmp(job_memory_via(), "cgroup") == 0 ?
			 "mem" : "data", (unsigned long long)s->memory);
	snprintf(limit, sizeof limit, "%s--pids %u --timeout %llums --kill-after 2s", mem,
		 cfg.pids, (unsigned long long)s->timeout_ms);
	snprintf(jail, sizeof jail, "%s%s%s", s->net ? "--share-net " : "",
		 envf[0] ? "--env-file " : "", envf);
	snprintf(exec, sizeof exec, "%s", s->net ? "--net" : "");
	snprintf(path, sizeof path, "%s:/usr/local/bin:/usr/bin:/bin", cfg.tools_dir);

	size_t nenv = 0;
	add_env(env, &nenv, "PATH", path);
	add_env(env, &nenv, "LANG", "C.UTF-8");
	add_env(env, &nenv, "SR_CODE", code);
	add_env(env, &nenv, "SR_WORKSPACE", ws);
	if (cfg.ws_quota)
		snprintf(quota, sizeof quota, "%llu", (unsigned long long)cfg.ws_quota);
	add_env(env, &nenv, "SR_WORKSPACE_QUOTA", quota);
	if (cfg.ws_quota && ws_size_path(s->workspace, sizes, sizeof sizes) < 0)
		mcp_log("unable to make the size cache of workspace %s (%s): its runs measure it",
			s->workspace, strerror(errno));
	add_env(env, &nenv, "SR_WORKSPACE_QUOTA_CACHE", sizes);
	if (cfg.ws_quota && cfg.ws_inodes)
		snprintf(inodes, sizeof inodes, "%llu", (unsigned long long)cfg.ws_inodes);
	add_env(env, &nenv, "SR_WORKSPACE_INODES", inodes);
	add_env(env, &nenv, "SR_LIMIT_ARGS", limit);
	add_env(env, &nenv, "SR_JAIL_ARGS", jail);
	add_env(env, &nenv, "SR_EXEC_ARGS", exec);
	snprintf(path, sizeof path, "%s/run/%s/" JOB_VERDICT_FILE,
		 s->session ? job_session_spool() : cfg.spool, id);
	add_env(env, &nenv, "SR_VERDICT_FILE", path);
	for (size_t i = 0; s->env_extra && s->env_extra[i] && i < 8; i++)
		env[nenv++] = xstrdup(s->env_extra[i]);
	return nenv;
}

static int submit(const struct run_spec *s, char job_id[33], char *err, size_t errlen)
{
	char code[4096], envf[4096] = "", ws[4096];
	int deps[2], ndeps = 0;
	if ((deps[ndeps] = write_private("code", s->code, s->code_len, code, err, errlen)) < 0)
		return -1;
	ndeps++;
	if (s->env && cJSON_GetArraySize(s->env) > 0) {
		if ((deps[ndeps] = env_file(s->env, envf, err, errlen)) < 0)
			goto fail;
		ndeps++;
	}
	snprintf(ws, sizeof ws, "%s/%s", cfg.workspaces, s->workspace);
	char id[SQ_ID_LEN + 1], qt[SQ_TENANT_MAX + 1];    /* qt: the tenant queued under */
	sq_id_new(id);
	char *env[19];
	size_t nenv = job_env(s, id, code, ws, envf, env);
	int nargs = s->args ? cJSON_GetArraySize(s->args) : 0, n = 0;
	char **argv = xmalloc((size_t)(nargs + 2) * sizeof *argv);
	argv[n++] = s->runner->path;
	const cJSON *a;
	if (s->args)
		cJSON_ArrayForEach(a, s->args)
			argv[n++] = a->valuestring;
	argv[n] = NULL;
	struct sq_new_job nj = {
		.tenant = job_queue_tenant(s->tenant, qt), .argv = argv, .env = env, .nenv = nenv,
		.cwd = ws, .stdin_fd = -1, .stdin_data = s->stdin_data, .stdin_len = s->stdin_len,
		.max_output = SQ_DEFAULT_MAX_OUTPUT, .kill_after_ms = SQ_DEFAULT_KILL_AFTER_MS,
		/* sr-queue's own clock, a backstop behind sr-limit's */
		.timeout_ms = s->timeout_ms + 30000, .umask = cfg.umask,
		.deps = deps, .ndeps = (size_t)ndeps,
	};
	const char *what = "the job record";
	cJSON *job = sq_job_record(id, &nj);
	int r = job ? sq_job_store(s->session ? &sess_spool : &spool, id, job, &nj, &what) : -1;
	int e = errno;
	cJSON_Delete(job);
	free(argv);
	while (nenv > 0)
		free(env[--nenv]);
	if (r < 0) {
		snprintf(err, errlen, "unable to store the job in %s: %s: %s",
			 s->session ? "the sessions' spool" : cfg.spool, what, strerror(e));
		goto fail;
	}
	memcpy(job_id, id, 33);
	while (ndeps > 0)
		close(deps[--ndeps]);
	if (s->session)
		job_session_worker();
	else
		job_worker_ensure();
	return 0;
fail:
	while (ndeps > 0)
		close(deps[--ndeps]);
	unlink(code);
	if (envf[0])
		unlink(envf);
	return -1;
}

/* What runs must still be what was checked at start (runners.c). */
int job_submit(const struct run_spec *s, char job_id[33], char *err, size_t errlen)
{
	return runner_trusted(s->runner->path, s->env_extra, err, errlen) < 0 ? -1 :
	       submit(s, job_id, err, errlen);
}

/* A job that has ended is read straight from its file in done/, through
 * sr-queue's spool core: its record and its result line, as `sr-queue
 * status --json` would print them, without the exec. NULL: not there. */
static cJSON *done_status_in(const char *sp, const char *id)
{
	char path[4200];
	cJSON *job = NULL, *res = NULL, *it;
	snprintf(path, sizeof path, "%s/done/%s", sp, id);
	int dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return NULL;
	int r = sq_job_read_at(dfd, SQ_JOB_FILE, &job, &res);
	close(dfd);
	if (r < 0 || !job || !res || !cJSON_IsString(cJSON_GetObjectItem(res, "state"))) {
		cJSON_Delete(job);
		cJSON_Delete(res);
		return NULL;
	}
	while ((it = res->child) != NULL) {    /* the result's fields over the job's */
		cJSON_DetachItemViaPointer(res, it);
		cJSON_DeleteItemFromObject(job, it->string);
		cJSON_AddItemToObject(job, it->string, it);
	}
	cJSON_Delete(res);
	return job;
}

static cJSON *done_status(const char *id)
{
	return done_status_in(cfg.spool, id);
}

/* A job's status in spool sp, as `sr-queue status --json` gives it. */
cJSON *job_status_in(const char *sp, const char *id, char *err, size_t errlen)
{
	cJSON *done = done_status_in(sp, id);
	if (done)
		return done;
	char *out;
	char *argv[] = { "sr-queue", "status", (char *)sp, (char *)id, "--json", NULL };
	int rc = spawn_capture(argv, &out, 1 << 20, 0);
	cJSON *j = out ? cJSON_Parse(out) : NULL;
	free(out);
	if (!cJSON_IsObject(j) || !cJSON_IsString(cJSON_GetObjectItem(j, "state"))) {
		cJSON_Delete(j);
		if ((rc == 1 || rc == 111) && sp == cfg.spool)
			job_not_found(id, err, errlen);
		else if (rc == 1 || rc == 111)
			snprintf(err, errlen, "no job %s", id);
		else
			snprintf(err, errlen, "sr-queue status failed (exit %d)", rc);
		return NULL;
	}
	return j;
}

static cJSON *status_of(const char *id, char *err, size_t errlen)
{
	return job_status_in(cfg.spool, id, err, errlen);
}

/* SPOOL/removed, which gc raises to the latest-submitted job it removes,
 * tells a job the retention removed (or a wrong id older than it) from
 * one that never was. */
void job_not_found(const char *id, char *err, size_t errlen)
{
	char terms[200];
	int root = cfg.spool ? open(cfg.spool, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
			     : -1;
	int removed = root >= 0 && sq_removed_before(root, id);
	if (root >= 0)
		close(root);
	if (!removed) {
		snprintf(err, errlen, "no job %s (list_jobs shows the jobs there are)", id);
		return;
	}
	job_terms(terms, sizeof terms);
	snprintf(err, errlen, "job %s was removed by retention, with its output (%s): it "
		 "cannot be read any more; run the code again if you need it", id, terms);
}

static int finished(const cJSON *st)
{
	const char *s = cJSON_GetObjectItem(st, "state")->valuestring;
	return strcmp(s, "queued") && strcmp(s, "running");
}

/* One inotify watch on SPOOL/done for the life of the process: a job that
 * ends is renamed there, and every waiting call is woken. (`sr-queue
 * wait` would do, but an inotify instance costs some 15 ms to close, and
 * one per call is on every call's path.) When the user's inotify
 * instances or watches are all taken (another tenant's runs may hold
 * them), waits look every 50 ms instead, the log says so once, and the
 * watch is tried again every 10 s. */
static pthread_mutex_t news_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t news = PTHREAD_COND_INITIALIZER;
static unsigned long generation;
static int watching;      /* 0 not yet, 1 watching, -1 cannot (polling) */
static uint64_t watch_retry;      /* polling: when to try again (ms) */

static void *watch_done(void *arg)
{
	int ino = (int)(intptr_t)arg;
	char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
	for (;;) {
		ssize_t n = read(ino, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return NULL;
		pthread_mutex_lock(&news_lock);
		generation++;
		pthread_cond_broadcast(&news);
		pthread_mutex_unlock(&news_lock);
	}
}

static void watch_start(void)
{
	static int told;
	char done[4200];
	pthread_t t;
	uint64_t now = sr_now_ns() / 1000000;
	pthread_mutex_lock(&news_lock);
	if (watching == 0 || (watching < 0 && now >= watch_retry)) {
		snprintf(done, sizeof done, "%s/done", cfg.spool);
		int ino = inotify_init1(IN_CLOEXEC), e = 0;
		if (ino >= 0 && inotify_add_watch(ino, done, IN_MOVED_TO | IN_ONLYDIR) >= 0 &&
		    (e = pthread_create(&t, NULL, watch_done, (void *)(intptr_t)ino)) == 0) {
			pthread_detach(t);
			watching = 1;
		} else if ((e = e ? e : errno) != ENOENT || watching < 0) {  /* ENOENT: no spool yet */
			if (!told++)
				mcp_log("unable to watch %s with inotify (%s: the user's inotify instances "
					"or watches are taken); waits for runs look every 50 ms instead",
					done, strerror(e));
			watching = -1;
			watch_retry = now + 10000;
		}
		if (watching < 1 && ino >= 0)
			close(ino);
	}
	pthread_mutex_unlock(&news_lock);
}

/* The count of jobs ended so far: read before looking whether a job has
 * ended, and given to wait_news, so that one ending in between wakes it. */
static unsigned long news_seen(void)
{
	pthread_mutex_lock(&news_lock);
	unsigned long g = generation;
	pthread_mutex_unlock(&news_lock);
	return g;
}

/* Sleep until a job ends after news_seen gave g, or ms pass. */
static void wait_news(unsigned long g, uint64_t ms)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (time_t)(ms / 1000);
	ts.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&news_lock);
	while (g == generation && pthread_cond_timedwait(&news, &news_lock, &ts) == 0)
		;
	pthread_mutex_unlock(&news_lock);
}

/* Has the job ended (its directory is in done/)? */
static int in_done(const char *id)
{
	char path[4200];
	struct stat st;
	snprintf(path, sizeof path, "%s/done/%s", cfg.spool, id);
	return lstat(path, &st) == 0;
}

/* Wait until the job ends, ms pass or the call is cancelled: woken when a
 * job ends; once a second sr-queue status looks (it settles a job whose
 * worker died), a worker is started if the job is still queued, and every
 * few seconds progress is sent. */
cJSON *job_wait(const struct job_waiter *r, const char *id, uint64_t ms, char *err, size_t errlen)
{
	uint64_t start = sr_now_ns() / 1000000, waited = 0, looked = 0, told = 0, every = 20;
	watch_start();
	/* Ended already: read from done/. Else, when waiting, take it to be
	 * queued (it was most often just submitted) and ask sr-queue only if
	 * it has not ended after the first short look: a quick run costs no
	 * exec of sr-queue status at all. */
	cJSON *st = done_status(id);
	if (!st)
		st = ms ? cJSON_Parse("{\"state\":\"queued\"}") : status_of(id, err, errlen);
	while (st && !finished(st) && waited < ms && !(r && r->cancelled && *r->cancelled)) {
		/* Still queued: a worker that was exiting may have held the lock
		 * when the job came; look again soon, then less often. */
		int queued = strcmp(cJSON_GetObjectItem(st, "state")->valuestring, "queued") == 0;
		if (queued)
			job_worker_ensure();
		uint64_t step = queued ? every : 1000;
		every = every * 2 < 1000 ? every * 2 : 1000;
		uint64_t slice = ms - waited < step ? ms - waited : step;
		for (;;) {
			unsigned long g = news_seen();
			if (in_done(id) || sr_now_ns() / 1000000 - start >= waited + slice ||
			    (r && r->cancelled && *r->cancelled))
				break;
			wait_news(g, watching > 0 ?
				  waited + slice - (sr_now_ns() / 1000000 - start) : 50);
		}
		waited = sr_now_ns() / 1000000 - start;
		if (in_done(id) || queued || waited - looked >= 1000 || waited >= ms) {
			cJSON_Delete(st);
			st = status_of(id, err, errlen);
			looked = waited;
		}
		if (st && r && r->progress && !finished(st) && waited < ms &&
		    waited - told >= MCP_PROGRESS_S * 1000) {
			char msg[400], note[300];
			job_progress_note(id, note, sizeof note);
			snprintf(msg, sizeof msg, "job %s %s for %.0f s: %s", id,
				 cJSON_GetObjectItem(st, "state")->valuestring, (double)waited / 1000, note);
			r->progress(r->ctx, (double)waited / 1000, msg);
			told = waited;
		}
	}
	return st;
}

int job_cancel(const char *id, char *err, size_t errlen)
{
	return job_cancel_in(cfg.spool, id, err, errlen);
}

int job_cancel_in(const char *sp, const char *id, char *err, size_t errlen)
{
	char *out, *argv[] = { "sr-queue", "cancel", (char *)sp, (char *)id, "--json", NULL };
	int rc = spawn_capture(argv, &out, 1 << 16, 0);
	free(out);
	if (rc == 0)
		return 0;
	snprintf(err, errlen, "sr-queue cancel failed (exit %d)", rc);
	return -1;
}

cJSON *job_list(char *err, size_t errlen)
{
	char *out, *argv[] = { "sr-queue", "list", cfg.spool, "--state", "all", "--json", NULL };
	int rc = spawn_capture(argv, &out, 16 << 20, 0);
	if (rc != 0) {
		free(out);
		snprintf(err, errlen, "sr-queue list failed (exit %d)", rc);
		return NULL;
	}
	cJSON *arr = cJSON_CreateArray();
	for (char *line = out, *nl; line && *line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		cJSON *j = cJSON_Parse(line);
		if (j)
			cJSON_AddItemToArray(arr, j);
	}
	free(out);
	return arr;
}

void job_worker_ensure(void)
{
	if (!cfg.external_worker)
		job_worker_start(cfg.spool, "worker", cfg.jobs);
}

/* The sessions' spool has a worker of its own, always sr-mcp's (an
 * interpreter holds its slot for the session's life: in the runs' spool
 * it would starve the runs); one slot per session allowed. */
void job_session_worker(void)
{
	job_worker_start(job_session_spool(), "session-worker", JOB_SESSIONS_MAX);
}

const char *job_session_spool(void)
{
	return sess_spool.path;
}

static int mkdir_p(char *path, mode_t mode)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		int r = mkdir(path, mode);
		*p = '/';
		if (r < 0 && errno != EEXIST)
			return -1;
	}
	return mkdir(path, mode) < 0 && errno != EEXIST ? -1 : 0;
}

static char *sub_dir(const char *name, mode_t mode, char *err, size_t errlen);

/* STATE/sessions and its spool, for the sessions' interpreters. */
static int session_spool_open(char *why, size_t len)
{
	char *d = sub_dir("sessions", 0700, why, len), *p;
	if (!d)
		return -1;
	if (asprintf(&p, "%s/spool", d) < 0)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	free(d);
	return sq_spool_try_open(&sess_spool, p, 1, why, len);   /* keeps p */
}

static char *sub_dir(const char *name, mode_t mode, char *err, size_t errlen)
{
	char *p;
	if (asprintf(&p, "%s/%s", cfg.state_dir, name) < 0)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	char why[900];
	if (mkdir(p, mode) < 0 && errno != EEXIST) {
		snprintf(err, errlen, "unable to create %s: %s", p, strerror(errno));
		free(p);
		return NULL;
	}
	if (sr_dir_private(p, 0, why, sizeof why) < 0) {
		snprintf(err, errlen, "refusing %s: %s", p, why);
		free(p);
		return NULL;
	}
	return p;
}

/* One jail tried: 0, or -1 and why in its own words (sr-jail's fatal
 * line names what is wrong and what fixes it: a sysctl, a file, `make
 * install-apparmor`), for the model to relay. */
static int jail_probe(char *why, size_t len)
{
	char *argv[] = { "sr-jail", "true", NULL };
	struct spawn_text e = { .len = 0 };
	struct spawn_io io = { .in_fd = -1, .err = spawn_keep, .err_ctx = &e };
	if (spawn_io(argv, &io) == 0)
		return 0;
	char *line = spawn_fatal_line(&e, "sr-jail: fatal: ");
	if (line)
		snprintf(why, len, "the sandbox cannot run here (nothing was run; not a fault of "
			 "the code: tell the user): %.480s", line);
	else
		snprintf(why, len, "the sandbox cannot run here: sr-jail failed (%.200s). Most "
			 "often user namespaces are off. Nothing was run.",
			 e.len ? e.buf : "no message");
	return -1;
}

/* Once: the state directory, made private and resolved (sr-jail binds
 * nothing through a symbolic link), and one jail tried, so that a machine
 * without user namespaces is said once, plainly, and runs nothing. */
int job_state_ready(char *err, size_t errlen)
{
	static pthread_mutex_t once = PTHREAD_MUTEX_INITIALIZER;
	static int state;       /* 0 not yet, 1 ready, -1 failed */
	static char why[1200];
	pthread_mutex_lock(&once);
	if (state == 0) {
		char *real = NULL, refused[900];
		if (geteuid() == 0) {
			snprintf(why, sizeof why, "sr-mcp is running as root, and the sandbox drops "
				 "root to nobody (65534), which cannot reach root's private state "
				 "directory: run sr-mcp as an ordinary user (the client's command as "
				 "that user, e.g. runuser -u USER -- sr-mcp). Nothing was run.");
		} else if (mkdir_p(cfg.state_dir, 0700) < 0 || !(real = realpath(cfg.state_dir, NULL))) {
			snprintf(why, sizeof why, "the state directory %s cannot be made (%s): "
				 "set another with --state-dir or SR_MCP_STATE_DIR", cfg.state_dir,
				 strerror(errno));
		} else if (sr_dir_private(real, 0, refused, sizeof refused) < 0) {
			snprintf(why, sizeof why, "refusing state directory %s: %s", real, refused);
			free(real);
		} else if (free(cfg.state_dir), cfg.state_dir = real,
			   !(cfg.workspaces = sub_dir("workspaces", 0700, why, sizeof why)) ||
			   !(cfg.code_dir = sub_dir("code", 0700, why, sizeof why))) {
			;
		} else if (!cfg.spool && !(cfg.spool = sub_dir("spool", 0700, why, sizeof why))) {
			;
		} else if (sq_spool_try_open(&spool, cfg.spool, 1, why, sizeof why) < 0) {
			;
		} else if (session_spool_open(why, sizeof why) < 0) {
			;
		} else if (jail_probe(why, sizeof why) < 0) {
			;
		} else {
			ws_quota_probe();
			job_worker_renew();     /* the options of this start in force */
			state = 1;
		}
		if (state == 0) {
			state = -1;
			mcp_log("%s", why);
		}
	}
	int r = state;
	pthread_mutex_unlock(&once);
	if (r < 0)
		snprintf(err, errlen, "%s", why);
	return r > 0 ? 0 : -1;
}

int job_ws_busy(const char *ws, char job[33])
{
	char err[300], want[4200];
	cJSON *all = job_list(err, sizeof err), *j;
	int found = 0;
	if (!all) {
		struct stat st;
		char tmp[4200];
		snprintf(tmp, sizeof tmp, "%s/tmp", cfg.spool);
		if (lstat(tmp, &st) < 0 && errno == ENOENT)
			return 0;   /* a spool no job was ever submitted to */
		snprintf(job, 33, "(unknown)");
		return -1;      /* cannot tell: as if in use */
	}
	snprintf(want, sizeof want, "%s/%s", cfg.workspaces, ws);
	cJSON_ArrayForEach(j, all) {
		const cJSON *id = cJSON_GetObjectItem(j, "id"), *state = cJSON_GetObjectItem(j, "state");
		if (found || !cJSON_IsString(id) || !cJSON_IsString(state) ||
		    (strcmp(state->valuestring, "queued") && strcmp(state->valuestring, "running")))
			continue;
		cJSON *info = job_info(id->valuestring);
		const cJSON *cwd = cJSON_GetObjectItem(info, "cwd");
		if (cJSON_IsString(cwd) && !strcmp(cwd->valuestring, want)) {
			snprintf(job, 33, "%s", id->valuestring);
			found = 1;
		}
		cJSON_Delete(info);
	}
	cJSON_Delete(all);
	return found;
}
