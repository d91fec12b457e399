/* session.c - sessions: a live interpreter per (tenant, workspace,
 * language), kept in STATE/sessions/t-TENANT/WORKSPACE/LANGUAGE/:
 *   record.json  the interpreter's job, owner, times, calls (host only)
 *   in, out      the FIFOs of its channel, bound one by one into its jail
 *   start.lock   held while it is found, started or closed
 *   call.lock    held by a call's job for the length of the call: calls
 *                of a session wait for each other, in order of arrival
 *   ended        why it was closed, when sr-mcp or a call closed it
 *   serves       the path of the control socket its jail serves (with a
 *                workspace quota; session_quota.c), and ctl, that socket
 *                when it is not the workspace's (ws_ctl_path)
 *   used         touched when a call is made, begins and ends: the
 *                keeper's idle clock (session_keep.c)
 *   tree-JOB     the keeper's runner (pid, start time), while it lives
 *   cpu-JOB      the CPU time of its tree, by the keeper; charged-JOB, how
 *                much of it the calls charged; base-JOB, what ran in the
 *                interpreter before any code (session_call.c)
 * The directory is sr-mcp's: sandboxed code sees only the two FIFOs of
 * its own session, so it can neither reach another session's channel nor
 * plant a file or link here. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "job.h"
#include "mcp.h"
#include "runner.h"
#include "session.h"
#include "sr.h"

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* This process, as its record names it: pid and start time (a pid reused
 * by another process has another start time). */
static unsigned long long proc_start(pid_t pid)
{
	char dir[32];
	long long start;
	snprintf(dir, sizeof dir, "/proc/%d", (int)pid);
	return sr_proc_stat_num(AT_FDCWD, dir, 22, &start) < 0 ? 0 : (unsigned long long)start;
}

/* The session's directory (made with its parents when make): 0 or -1. */
static int session_dir(const char *tenant, const char *ws, const char *lang, int make,
		       char *dir, size_t len)
{
	const char *parts[3] = { tenant, ws, lang };
	int n = snprintf(dir, len, "%s/sessions", cfg.state_dir);
	for (int i = 0; i < 3; i++) {
		n += snprintf(dir + n, len - (size_t)n, "/%s%s", i ? "" : "t-", parts[i]);
		if ((size_t)n >= len)
			return -1;
		if (make && mkdir(dir, 0700) < 0 && errno != EEXIST)
			return -1;
	}
	struct stat st;
	return lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
}

static int dir_lock(const char *dir, const char *name)
{
	char p[4300];
	if (snprintf(p, sizeof p, "%s/%s", dir, name) < 0)
		return -1;
	int fd = open(p, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0)
		flock(fd, LOCK_EX);
	return fd;
}

static cJSON *read_json(const char *dir, const char *name)
{
	char p[4300];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	int fd = open(p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	char buf[8192];
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return cJSON_Parse(buf);
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char p[4300], tmp[4300];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	snprintf(tmp, sizeof tmp, "%s/.%s.tmp", dir, name);
	unlink(tmp);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || sr_write_all(fd, text, strlen(text)) < 0 || rename(tmp, p) < 0)
		mcp_log("unable to write %s: %s", p, strerror(errno));
	if (fd >= 0)
		close(fd);
}

static void write_json(const char *dir, const char *name, const cJSON *j)
{
	char *t = cJSON_PrintUnformatted(j);
	write_file(dir, name, t);
	free(t);
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);
	return cJSON_IsString(v) ? v->valuestring : "";
}

/* Is the interpreter's job still queued or running? */
static int job_alive(const char *job)
{
	char p[4300];
	struct stat st;
	snprintf(p, sizeof p, "%s/done/%s", job_session_spool(), job);
	return job_id_ok(job) && lstat(p, &st) < 0 && errno == ENOENT;
}

/* Why the interpreter of record rec ended, from its job's status (and
 * the file `ended` when sr-mcp or a call closed it), in why. */
static void why_ended(const char *dir, const cJSON *rec, char *why, size_t len)
{
	char p[4300], err[300], said[600] = "";
	snprintf(p, sizeof p, "%s/ended", dir);
	int fd = open(p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, said, sizeof said - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n > 0) {
		said[n] = '\0';
		snprintf(why, len, "%s", said);
		return;
	}
	cJSON *st = job_status_in(job_session_spool(), str(rec, "job"), err, sizeof err);
	const cJSON *lim = cJSON_GetObjectItem(st, "limit");
	const char *state = str(st, "state"), *lr = str(lim, "reason");
	double mem = num(rec, "memory");
	if (!strcmp(lr, "memory") || (!strcmp(state, "failed") && strstr(str(st, "error"), "memory")))
		snprintf(why, len, "the interpreter ran out of memory (the session's limit is "
			 "%.0f MiB; memory_mb on the call that starts a session sets it)", mem / 1048576);
	else if (!strcmp(str(lim, "signal_name"), "ABRT") && session_heap_oom(str(rec, "job")))
		/* V8's line is the process's own word, which its code could
		 * print before abort(): said as the interpreter's, not as what
		 * the sandbox saw. */
		snprintf(why, len, "the interpreter aborted, its last words V8's \"JavaScript heap "
			 "out of memory\" (the sandbox saw no limit reached; the session's memory "
			 "limit is %.0f MiB, and memory_mb on the call that starts a session sets it)",
			 mem / 1048576);
	else if (!strcmp(lr, "timeout"))
		snprintf(why, len, "the interpreter reached a session's longest life (%llu h)",
			 SESSION_LIFE_MS / 3600000);
	else if (!strcmp(state, "cancelled"))
		snprintf(why, len, "its interpreter's job was cancelled (sr-queue cancel)");
	else if (num(lim ? lim : st, "exit_code") == 0 && !strcmp(state, "succeeded"))
		snprintf(why, len, "its interpreter exited with code 0: it was idle longer than the "
			 "server's --session-idle (%llu s), or the code ended it (os._exit)",
			 (unsigned long long)(cfg.session_idle_ms / 1000));
	else
		snprintf(why, len, "the interpreter ended (%s, exit code %.0f%s%s)", state,
			 num(lim ? lim : st, "exit_code"), *str(lim, "signal_name") ? ", signal " : "",
			 str(lim, "signal_name"));
	cJSON_Delete(st);
}

/* The record's owner (the sr-mcp process that started it) is gone; a
 * session of no process (owner 0, the tenant's) is never. */
static int owner_gone(const cJSON *rec)
{
	pid_t pid = (pid_t)num(rec, "owner_pid");
	return pid != 0 && pid != getpid() && (kill(pid, 0) < 0 && errno == ESRCH ?
				   1 : proc_start(pid) != (unsigned long long)num(rec, "owner_start"));
}

static void end_session(const char *dir, const cJSON *rec, const char *why)
{
	char err[300];
	write_file(dir, "ended", why);
	int d = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	/* by its keeper, which counts its CPU to the end; else cancelled */
	for (int i = 0; d >= 0 && i < 20 && job_alive(str(rec, "job")) &&
	     (i || session_keep_stop(d, str(rec, "job")) == 0); i++)
		usleep(50000);
	if (d >= 0)
		close(d);
	if (job_alive(str(rec, "job")) &&
	    job_cancel_in(job_session_spool(), str(rec, "job"), err, sizeof err) < 0)
		mcp_log("session %s: %s", dir, err);
}

/* The session of record rec ended by sr-mcp (why: what the next call is
 * told), and its record marked: whoever closed it knows. */
static void close_told(const char *dir, cJSON *rec, void *why)
{
	if (!job_alive(str(rec, "job")))
		return;
	end_session(dir, rec, why);
	cJSON_AddTrueToObject(rec, "lost_told");   /* the closer knows */
	write_json(dir, "record.json", rec);
}

/* The value of the runner variable NAME= of the environment s runs in
 * ("" when not set): SR_ROOTFS= its root file system ("" for the host's),
 * SR_IMAGE_JAIL= an image's jail arguments (oci.h). */
static const char *spec_var(const struct run_spec *s, const char *name)
{
	for (size_t n = 0; s->env_extra && s->env_extra[n]; n++)
		if (!strncmp(s->env_extra[n], name, strlen(name)))
			return s->env_extra[n] + strlen(name);
	return "";
}

static const char *spec_rootfs(const struct run_spec *s)
{
	return spec_var(s, "SR_ROOTFS=");
}

/* sr-mcp itself as a job's program (a call's, an interpreter's keeper). */
static const struct runner *self_runner(void)
{
	static char self[4096];
	static struct runner me;
	if (!me.path) {
		ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
		self[n > 0 ? n : 0] = '\0';
		snprintf(me.name, sizeof me.name, "%s", MCP_NAME);
		me.path = self;
	}
	return &me;
}

/* DIR/used touched: a call comes (the keeper's idle clock starts again). */
static void touch_used(const char *dir)
{
	char p[4300];
	snprintf(p, sizeof p, "%s/used", dir);
	int fd = open(p, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0) {
		(void)futimens(fd, NULL);
		close(fd);
	}
}

/* The interpreter's job: the runner of s under its keeper on the host,
 * sr-mcp --session-keep DIR IDLE_MS -- RUNNER (session_keep.c). */
static void start_keeper(struct run_spec *is, const struct session_ref *ref, cJSON **args)
{
	char idle[32];
	snprintf(idle, sizeof idle, "%llu", (unsigned long long)cfg.session_idle_ms);
	const char *v[] = { SESSION_KEEP_ARG, ref->dir, idle, "--", is->runner->path };
	*args = cJSON_CreateStringArray(v, 5);
	is->args = *args;
	is->runner = self_runner();
}

/* The runner's SR_SESSION_PUBLISH: its jail's port SESSION_PUBLISH_PORT
 * reached from DIR/pub (sr-jail --publish), expose_port's way in; none
 * with the host's network, where its ports are the host's already. */
static const char *publish_env(const struct run_spec *s, const char *dir, char *buf, size_t len)
{
	snprintf(buf, len, "SR_SESSION_PUBLISH=%u:%s/pub", SESSION_PUBLISH_PORT, dir);
	return s->net == JOB_NET_FULL ? "SR_SESSION_PUBLISH=" : buf;
}

/* The FIFOs made new, and the interpreter started: its job id in ref. */
static int start(const struct run_spec *s, struct session_ref *ref, char *err, size_t errlen)
{
	char p[4300], d[4300], idle[64], ctl[4400], pub[4400];
	for (int i = 0; i < 3; i++) {   /* the FIFOs new; pub, the last jail's if it was killed */
		snprintf(p, sizeof p, "%s/%s", ref->dir, i == 2 ? "pub" : i ? "out" : "in");
		if ((unlink(p) < 0 && errno != ENOENT) || (i < 2 && mkfifo(p, 0600) < 0)) {
			snprintf(err, errlen, "unable to make %s: %s", p, strerror(errno));
			return -1;
		}
	}
	snprintf(p, sizeof p, "%s/ended", ref->dir);
	unlink(p);
	snprintf(d, sizeof d, "SR_SESSION_DIR=%s", ref->dir);
	snprintf(idle, sizeof idle, "SR_SESSION_IDLE=%.3f", (double)cfg.session_idle_ms / 1000);
	/* the socket its jail serves (session_quota.c) */
	int sv = session_serves(ref->dir, s->workspace, p, sizeof p);
	if (sv < 0) {
		snprintf(err, errlen, "unable to make the session's control socket's place under "
			 "%s/sessions: %s", cfg.state_dir, strerror(errno));
		return -1;
	}
	snprintf(ctl, sizeof ctl, "SR_SESSION_CTL=%s", p);
	const char *extra[8] = { d, idle, ctl, publish_env(s, ref->dir, pub, sizeof pub) };
	for (size_t n = 0; s->env_extra && s->env_extra[n] && n < 2; n++)
		extra[4 + n] = s->env_extra[n];
	struct run_spec is = *s;
	is.code = "";
	is.code_len = 0;
	is.stdin_data = NULL;
	is.stdin_len = 0;
	is.env = NULL;
	is.timeout_ms = SESSION_LIFE_MS;
	is.env_extra = extra;
	is.session = 1;
	cJSON *args;
	start_keeper(&is, ref, &args);
	touch_used(ref->dir);
	int r = job_submit(&is, ref->job, err, errlen);
	cJSON_Delete(args);
	if (r < 0)
		return -1;
	cJSON *rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "job", ref->job);
	cJSON_AddStringToObject(rec, "language", s->runner->name);
	cJSON_AddStringToObject(rec, "workspace", s->workspace);
	cJSON_AddStringToObject(rec, "tenant", s->tenant);
	/* An sr-mcp for one stateless request (sr-mcp-http, 2026-07-28) ends
	 * with its answer: the session is the tenant's, found by its next
	 * requests, ended by its keeper at --session-idle (owner 0). */
	pid_t owner = cfg.one_request ? 0 : getpid();
	cJSON_AddNumberToObject(rec, "owner_pid", owner);
	cJSON_AddNumberToObject(rec, "owner_start", owner ? (double)proc_start(owner) : 0);
	cJSON_AddNumberToObject(rec, "started_ms", (double)now_ms());
	cJSON_AddNumberToObject(rec, "last_used_ms", (double)now_ms());
	cJSON_AddNumberToObject(rec, "memory", (double)s->memory);
	cJSON_AddNumberToObject(rec, "calls", 0);
	cJSON_AddStringToObject(rec, "rootfs", spec_rootfs(s));
	cJSON_AddStringToObject(rec, "image_jail", spec_var(s, "SR_IMAGE_JAIL="));
	write_json(ref->dir, "record.json", rec);
	cJSON_Delete(rec);
	ref->fresh = 1;
	return 0;
}

/* The record's session still usable: 1; else 0 and why it was lost in
 * ref->lost (closed if need be). */
static int still_live(cJSON *rec, struct session_ref *ref)
{
	char why[600] = "";
	if (!rec || !job_id_ok(str(rec, "job")))
		return 0;
	if (!job_alive(str(rec, "job")))
		why_ended(ref->dir, rec, why, sizeof why);
	else if (owner_gone(rec))
		end_session(ref->dir, rec, strcpy(why, "sr-mcp restarted (the process that "
						       "started the session ended)"));
	else if (cfg.session_idle_ms && now_ms() - (uint64_t)num(rec, "last_used_ms") >
		 cfg.session_idle_ms + 60000)
		end_session(ref->dir, rec, strcpy(why, "it was idle longer than the server's "
						       "--session-idle"));
	if (!*why)
		return 1;
	if (!cJSON_IsTrue(cJSON_GetObjectItem(rec, "lost_told")))
		snprintf(ref->lost, sizeof ref->lost, "%s", why);
	return 0;
}

/* ref emptied, its dir that of the session of s, made if need be: 0 or -1. */
static int ref_dir(const struct run_spec *s, struct session_ref *ref, char *err, size_t errlen)
{
	memset(ref, 0, sizeof *ref);
	if (session_dir(s->tenant, s->workspace, s->runner->name, 1, ref->dir,
			sizeof ref->dir) < 0) {
		snprintf(err, errlen, "unable to make the session's directory under %s/sessions: %s",
			 cfg.state_dir, strerror(errno));
		return -1;
	}
	return 0;
}

int session_open(const struct run_spec *s, struct session_ref *ref, char *err, size_t errlen)
{
	if (ref_dir(s, ref, err, errlen) < 0)
		return -1;
	int lk = dir_lock(ref->dir, "start.lock"), r = 0;
	cJSON *rec = read_json(ref->dir, "record.json");
	int live = still_live(rec, ref);
	if (live && strcmp(str(rec, "rootfs"), spec_rootfs(s))) {   /* another environment */
		snprintf(ref->lost, sizeof ref->lost, "the call asked for another environment than "
			 "the session's");
		end_session(ref->dir, rec, ref->lost);
		live = 0;
	}
	if (live) {
		snprintf(ref->job, sizeof ref->job, "%s", str(rec, "job"));
	} else {
		r = start(s, ref, err, errlen);
		cJSON_Delete(rec);
		rec = read_json(ref->dir, "record.json");
	}
	if (r == 0 && rec) {
		touch_used(ref->dir);
		cJSON_ReplaceItemInObject(rec, "last_used_ms", cJSON_CreateNumber((double)now_ms()));
		cJSON_ReplaceItemInObject(rec, "calls", cJSON_CreateNumber(num(rec, "calls") + 1));
		write_json(ref->dir, "record.json", rec);
	}
	cJSON_Delete(rec);
	if (lk >= 0)
		close(lk);
	return r;
}

void session_call_spec(struct run_spec *s, const struct session_ref *ref, cJSON **args)
{
	char t[32], note[760];
	snprintf(t, sizeof t, "%llu", (unsigned long long)s->timeout_ms);
	snprintf(note, sizeof note, "%s%s", *ref->lost ? "lost:" : ref->fresh ? "new" : "",
		 ref->lost);
	const char *v[] = { SESSION_CALL_ARG, ref->dir, ref->job, job_session_spool(), t, note };
	*args = cJSON_CreateStringArray(v, 6);
	s->args = *args;
	s->runner = self_runner();
	s->env = NULL;
	s->stdin_data = NULL;
	s->stdin_len = 0;
	/* the helper's own bound: the call's timeout, the grace, and a wait
	 * for the calls ahead of it */
	s->timeout_ms = s->timeout_ms + SESSION_GRACE_MS + cfg.timeout_max_ms;
}

int session_close(const char *tenant, const char *ws, const char *lang, const char *why)
{
	char dir[4200];
	if (session_dir(tenant, ws, lang, 0, dir, sizeof dir) < 0)
		return 0;
	int lk = dir_lock(dir, "start.lock"), r = 0;
	cJSON *rec = read_json(dir, "record.json");
	if (rec && job_alive(str(rec, "job"))) {
		close_told(dir, rec, (void *)why);
		r = 1;
	}
	cJSON_Delete(rec);
	if (lk >= 0)
		close(lk);
	return r;
}

int session_job_alive(const char *job)
{
	return job_alive(job);
}

int session_live_dir(const char *tenant, const char *ws, const char *lang, char *dir,
		     size_t len, char job[33])
{
	if (session_dir(tenant, ws, lang, 0, dir, len) < 0)
		return 0;
	cJSON *rec = read_json(dir, "record.json");
	int r = rec && job_id_ok(str(rec, "job")) && job_alive(str(rec, "job"));
	if (r)
		snprintf(job, 33, "%s", str(rec, "job"));
	cJSON_Delete(rec);
	return r;
}

/* The resident memory of the interpreter (the process of its keeper's
 * tree that holds its FIFO `in` open), bytes; 0 if not found. */
static double session_rss(const char *dir, const char *job)
{
	int d = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct session_tree t = { .p = NULL };
	double rss = 0;
	if (d >= 0 && session_tree_load(d, job, &t) == 0) {
		int me = session_interp(&t, d);
		rss = me < 0 ? 0 : (double)session_mem(t.p[me].pid, "VmRSS");
	}
	free(t.p);
	if (d >= 0)
		close(d);
	return rss;
}

static cJSON *entry(const char *dir, cJSON *rec)
{
	cJSON *o = cJSON_CreateObject();
	uint64_t t = now_ms();
	cJSON_AddStringToObject(o, "workspace_id", str(rec, "workspace"));
	cJSON_AddStringToObject(o, "language", str(rec, "language"));
	cJSON_AddStringToObject(o, "interpreter_job_id", str(rec, "job"));
	cJSON_AddStringToObject(o, "state", job_alive(str(rec, "job")) ? "live" : "ended");
	cJSON_AddNumberToObject(o, "age_s", (double)(t - (uint64_t)num(rec, "started_ms")) / 1000);
	cJSON_AddNumberToObject(o, "idle_s", (double)(t - (uint64_t)num(rec, "last_used_ms")) / 1000);
	cJSON_AddNumberToObject(o, "calls", num(rec, "calls"));
	cJSON_AddNumberToObject(o, "memory_limit_bytes", num(rec, "memory"));
	char started[32];
	time_t st = (time_t)(num(rec, "started_ms") / 1000);
	strftime(started, sizeof started, "%Y-%m-%dT%H:%M:%SZ", gmtime(&st));
	cJSON_AddStringToObject(o, "started_at", started);
	double rss = session_rss(dir, str(rec, "job"));
	if (rss > 0)
		cJSON_AddNumberToObject(o, "memory_bytes", rss);
	return o;
}

const char *session_call_language(const cJSON *argv)
{
	const char *a1 = cJSON_GetStringValue(cJSON_GetArrayItem(argv, 1));
	const char *dir = cJSON_GetStringValue(cJSON_GetArrayItem(argv, 2));
	if (!a1 || strcmp(a1, SESSION_CALL_ARG) || !dir || !strrchr(dir, '/'))
		return NULL;
	return strrchr(dir, '/') + 1;
}

/* A session call's exit code: 0 ok, 1 an exception, 124 interrupted at
 * its timeout (the session lives), 125 the session was lost. */
static void result_state(cJSON *res, const cJSON *info)
{
	const cJSON *argv = cJSON_GetObjectItem(info, "argv");
	const char *a1 = cJSON_GetStringValue(cJSON_GetArrayItem(argv, 1));
	if (!a1 || strcmp(a1, SESSION_CALL_ARG) || cJSON_GetArraySize(argv) < 7)
		return;
	const char *note = cJSON_GetStringValue(cJSON_GetArrayItem(argv, 6));
	const char *dir = cJSON_GetStringValue(cJSON_GetArrayItem(argv, 2));
	cJSON *s = cJSON_AddObjectToObject(res, "session");
	cJSON_AddStringToObject(s, "interpreter_job_id",
				cJSON_GetStringValue(cJSON_GetArrayItem(argv, 3)));
	cJSON_AddBoolToObject(s, "new", note && *note);
	if (note && !strncmp(note, "lost:", 5))
		cJSON_AddStringToObject(s, "previous_state_lost", note + 5);
	const cJSON *ec = cJSON_GetObjectItem(res, "exit_code");
	char h[1200], why[700] = "";
	if (cJSON_IsNumber(ec) && ec->valueint == 124) {
		cJSON_ReplaceItemInObject(res, "status", cJSON_CreateString("timed_out"));
		cJSON_ReplaceItemInObject(res, "reason", cJSON_CreateString("timeout"));
		cJSON_ReplaceItemInObject(res, "limit_hit", cJSON_CreateString("timeout"));
		snprintf(h, sizeof h, "The code was interrupted at timeout_s (KeyboardInterrupt "
			 "in Python, SIGINT in JavaScript): the session and its variables are kept. Make the code "
			 "faster, work in smaller steps, or give a larger timeout_s.");
	} else if (cJSON_IsNumber(ec) && ec->valueint == 125) {
		cJSON *rec = dir ? read_json(dir, "record.json") : NULL;
		const char *job = cJSON_GetStringValue(cJSON_GetArrayItem(argv, 3));
		/* the interpreter is gone: its job's status, once it is settled */
		for (int i = 0; rec && i < 60 && job_alive(job); i++)
			usleep(50000);
		if (rec && !strcmp(str(rec, "job"), job))
			why_ended(dir, rec, why, sizeof why);
		cJSON_Delete(rec);
		if (!*why)
			snprintf(why, sizeof why, "its interpreter ended");
		cJSON_AddStringToObject(s, "state_lost", why);
		cJSON_ReplaceItemInObject(res, "status", cJSON_CreateString(
			strstr(why, "memory") ? "oom" : "killed"));
		cJSON_ReplaceItemInObject(res, "reason", cJSON_CreateString(
			strstr(why, "memory") ? "memory" : "session_lost"));
		if (strstr(why, "memory"))
			cJSON_ReplaceItemInObject(res, "limit_hit", cJSON_CreateString("memory"));
		snprintf(h, sizeof h, "The session was lost during this call: %s. Its variables, "
			 "imports and loaded data are gone; files in /workspace are kept. The next "
			 "run_code with session: true starts a new session: run the setup again "
			 "(imports, loading data).", why);
	} else if (note && !strncmp(note, "lost:", 5)) {
		snprintf(h, sizeof h, "A new session was started for this call: the state of the "
			 "previous one was lost (%s). Variables from before are gone; files in "
			 "/workspace are kept.", note + 5);
	} else {
		return;
	}
	cJSON_DeleteItemFromObject(res, "hint");
	cJSON_AddStringToObject(res, "hint", h);
}

void session_result(cJSON *res, const cJSON *info)
{
	result_state(res, info);
	session_call_report(res);
}

/* fn(dir, rec, ctx) for each session directory under STATE/sessions that
 * has a record (of tenant's and workspace ws's only, unless NULL), its
 * start.lock held. */
static void each_session(const char *tenant, const char *ws,
			 void (*fn)(const char *, cJSON *, void *), void *ctx)
{
	char top[4300], p1[4400], p2[4700];
	snprintf(top, sizeof top, "%s/sessions", cfg.state_dir);
	DIR *t = opendir(top);
	struct dirent *a, *b;
	while (t && (a = readdir(t))) {
		if (strncmp(a->d_name, "t-", 2) || (tenant && strcmp(a->d_name + 2, tenant)) ||
		    snprintf(p1, sizeof p1, "%s/%s", top, a->d_name) < 0)
			continue;
		DIR *w = opendir(p1);
		while (w && (b = readdir(w))) {
			if (b->d_name[0] == '.' || (ws && strcmp(ws, b->d_name)))
				continue;
			snprintf(p2, sizeof p2, "%s/%s", p1, b->d_name);
			DIR *l = opendir(p2);
			struct dirent *c;
			while (l && (c = readdir(l))) {
				char p3[5000];
				if (c->d_name[0] == '.' || snprintf(p3, sizeof p3, "%s/%s", p2, c->d_name) < 0)
					continue;
				int lk = dir_lock(p3, "start.lock");
				cJSON *rec = read_json(p3, "record.json");
				if (rec)
					fn(p3, rec, ctx);
				cJSON_Delete(rec);
				if (lk >= 0)
					close(lk);
			}
			if (l)
				closedir(l);
		}
		if (w)
			closedir(w);
	}
	if (t)
		closedir(t);
}

/* A live session's entry added to the list ctx (one idle too long is
 * closed by still_live instead). */
static void list_one(const char *dir, cJSON *rec, void *out)
{
	struct session_ref ref = { .fresh = 0 };
	if (snprintf(ref.dir, sizeof ref.dir, "%s", dir) >= 0 && still_live(rec, &ref))
		cJSON_AddItemToArray(out, entry(dir, rec));
}

cJSON *session_list(const char *tenant, const char *ws)
{
	cJSON *out = cJSON_CreateArray();
	if (cfg.state_dir && job_session_spool())
		each_session(tenant, ws, list_one, out);
	return out;
}

static void close_if_owned(const char *dir, cJSON *rec, void *ctx)
{
	(void)ctx;
	if ((pid_t)num(rec, "owner_pid") == getpid() && job_alive(str(rec, "job")))
		end_session(dir, rec, "sr-mcp restarted (the process that started the session "
			    "ended)");
}

void session_close_owned(void)
{
	if (cfg.state_dir && job_session_spool())
		each_session(NULL, NULL, close_if_owned, NULL);
}

/* Ended, and said to its next call (whose caller did not close it). */
static void close_untold(const char *dir, cJSON *rec, void *why)
{
	if (job_alive(str(rec, "job")))
		end_session(dir, rec, why);
}

void session_close_ws(const char *ws, const char *why)
{
	if (cfg.state_dir && job_session_spool())
		each_session(NULL, ws, close_untold, (void *)why);
}

int session_restart(const struct run_spec *s, struct session_ref *ref, char *err, size_t errlen)
{
	if (ref_dir(s, ref, err, errlen) < 0)
		return -1;
	int lk = dir_lock(ref->dir, "start.lock");
	cJSON *rec = read_json(ref->dir, "record.json");
	int had = rec && job_alive(str(rec, "job"));
	if (had)
		close_told(ref->dir, rec, "it was restarted (restart_session)");
	/* in the environment of the session it replaces (an image's Env and
	 * directories too) */
	char env[4200], img[8600];
	const char *extra[3] = { env, NULL, NULL };
	struct run_spec again = *s;
	if (rec && *str(rec, "rootfs") && !s->env_extra &&
	    (size_t)snprintf(env, sizeof env, "SR_ROOTFS=%s", str(rec, "rootfs")) < sizeof env) {
		again.env_extra = extra;
		if (*str(rec, "image_jail") && (size_t)snprintf(img, sizeof img, "SR_IMAGE_JAIL=%s",
		    str(rec, "image_jail")) < sizeof img)
			extra[1] = img;
	}
	cJSON_Delete(rec);
	int r = start(&again, ref, err, errlen);
	if (lk >= 0)
		close(lk);
	return r < 0 ? -1 : had;
}
