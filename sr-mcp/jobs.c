/* jobs.c - the job service: every run is an sr-queue job, so it has an
 * id, survives a restart of sr-mcp and shows in `sr-queue list`. Submit,
 * wait, status, cancel and list all go through sr-queue's spool core,
 * linked in (no exec of sr-queue on a call's path); the spools, the state
 * directory and the workers are job_state.c's.
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
 *                  says what it saw (job_result.c reads it)
 *   SR_WORKSPACE_CHANGES  where the jail lists what the run changed in the
 *                  workspace (sr-jail --quota-changes), STATE/made/ID.changes,
 *                  for a run under the quota (job_made.c reads it)
 *   SR_NET_ARGS    under --network allow, sr-net's options: its socket
 *                  STATE/made/ID.sock, its records STATE/made/ID.net
 *                  (job_net.c reads them), the rules */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "fs.h"
#include "job.h"
#include "mcp.h"
#include "runner.h"
#include "ws.h"
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

/* "K=V" onto env; the string is kept in bufs, freed by the caller. */
static void add_env(char **env, size_t *n, const char *k, const char *v)
{
	if (asprintf(&env[*n], "%s=%s", k, v) < 0)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	(*n)++;
}

/* In an environment (SR_ROOTFS), the workspace's layer over its root:
 * "--rootfs-layer DIR " in buf, or ""; and an image's Env and
 * directories (SR_IMAGE_JAIL, oci.c). Neither for apt's install, which
 * writes the layer (SR_APT_LAYER). */
static void job_layer(const struct run_spec *s, char *buf, size_t len)
{
	char dir[4200];
	buf[0] = '\0';
	for (size_t i = 0; s->env_extra && s->env_extra[i] && i < 8; i++)
		if (!strncmp(s->env_extra[i], "SR_APT_LAYER=", 13))
			return;
	for (size_t i = 0; s->env_extra && s->env_extra[i] && i < 8; i++)
		if (!strncmp(s->env_extra[i], "SR_ROOTFS=", 10) && s->env_extra[i][10] &&
		    ws_layer_path(s->workspace, s->env_extra[i] + 10, dir, sizeof dir) == 0)
			snprintf(buf + strlen(buf), len - strlen(buf), "--rootfs-layer %s ", dir);
		else if (!strncmp(s->env_extra[i], "SR_IMAGE_JAIL=", 14))
			snprintf(buf + strlen(buf), len - strlen(buf), "%s ", s->env_extra[i] + 14);
}

static void layer_add(struct fs_walk *w, int dirfd, const char *name, const char *rel,
		      const struct stat *st)
{
	(void)dirfd, (void)name, (void)rel;
	*(uint64_t *)w->ctx += (uint64_t)st->st_blocks * 512;
}

/* The layer at dir measured, as du counts it (the blocks of what the walk
 * reaches; no link followed): its size, or -1 when the walk was cut or
 * failed (it would under-count). */
static int64_t layer_walk(int fd)
{
	uint64_t used = 0;
	struct fs_walk w = { .fn = layer_add, .recursive = 1, .no_rel = 1, .ctx = &used };
	int fd0 = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (fd0 < 0)
		return -1;
	fs_walk(&w, fd0);
	return w.cut ? -1 : (int64_t)used;
}

/* The size of the layer at dir (STATE/ws-layer/WS) from its record,
 * DIR.size (the installer writes it under the layer's lock as an install
 * ends). Without one (a layer of an older sr-mcp; a record that does not
 * read), measured once and recorded (temp file and rename) under the
 * layer's lock, shared (an install holding it: measured, not recorded).
 * 0 when there is no layer; -1 when it could not be measured whole. */
static int64_t layer_size(const char *dir)
{
	char rec[4300], tmp[4400], num[32];
	snprintf(rec, sizeof rec, "%s.size", dir);
	int fd = open(rec, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, num, sizeof num - 1) : -1;
	if (fd >= 0)
		close(fd);
	num[n > 0 ? n : 0] = '\0';
	size_t digits = strspn(num, "0123456789");
	if (digits && digits < 19 && (!num[digits] || !strcmp(num + digits, "\n")))
		return (int64_t)strtoull(num, NULL, 10);    /* a record reads: digits, a newline */
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return errno == ENOENT ? 0 : -1;
	int locked = flock(fd, LOCK_SH | LOCK_NB) == 0;
	int64_t used = layer_walk(fd);
	snprintf(tmp, sizeof tmp, "%s.%ld", rec, (long)getpid());
	int out = used >= 0 && locked ? open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
					     O_CLOEXEC, 0600) : -1;
	if (out >= 0) {
		snprintf(num, sizeof num, "%lld\n", (long long)used);
		if (sr_write_all(out, num, strlen(num)) < 0 || rename(tmp, rec) < 0)
			(void)unlink(tmp);
		close(out);
	}
	close(fd);
	return used;
}

/* The workspace quota a run has: the quota less what the workspace's
 * layer (--rootfs-layer DIR in layer, read-only in the run) holds (its
 * recorded size, layer_size), 1 byte at least, and 1 byte when its size
 * is not known whole (fail closed: the run gets no room it may not
 * have); 0: no quota. */
static uint64_t job_quota(const char *layer)
{
	const char *dir = strstr(layer, "--rootfs-layer ");   /* wherever an image's arguments put it */
	dir = dir ? dir + 15 : NULL;
	char path[4200];
	if (!cfg.ws_quota || !dir)
		return cfg.ws_quota;
	snprintf(path, sizeof path, "%.*s", (int)strcspn(dir, " "), dir);
	int64_t used = layer_size(path);
	if (used < 0)
		mcp_log("the size of the layer %s could not be measured whole: its run gets no room "
			"under the workspace quota", path);
	return used >= 0 && (uint64_t)used < cfg.ws_quota ? cfg.ws_quota - (uint64_t)used : 1;
}

/* The environment of s's runner (env, 21 at most): the code's file,
 * the workspace ws, its quota, the env file envf ("" for none), the
 * arguments of sr-limit, sr-jail and sr-exec, job id's verdict file and,
 * for a run under the quota, where the jail lists its changes. Its
 * length. */
static size_t job_env(const struct run_spec *s, const char *id, const char *code,
		      const char *ws, const char *envf, char **env)
{
	char limit[256], jail[17000], exec[64], path[4200], quota[32] = "", inodes[32] = "", sizes[4400] = "";
	char mem[64] = "";
	if (s->memory)
		snprintf(mem, sizeof mem, "--%s %llu ", strcmp(job_memory_via(), "cgroup") == 0 ?
			 "mem" : "data", (unsigned long long)s->memory);
	snprintf(limit, sizeof limit, "%s--pids %u --timeout %llums --kill-after 2s", mem,
		 cfg.pids, (unsigned long long)s->timeout_ms);
	char proxy[4400] = "", sec[4400] = "";
	if (s->net == JOB_NET_ALLOW) {  /* sr-net's socket, STATE/made/ID.sock */
		job_secret_jail_args(id, sec, sizeof sec);
		snprintf(proxy, sizeof proxy, "--net-proxy %s/%s.sock %s", job_made_dir(), id, sec);
		job_secret_net_args(id, sec, sizeof sec);
	}
	char layer[8600];
	job_layer(s, layer, sizeof layer);
	snprintf(jail, sizeof jail, "%s%s%s%s%s", s->net == JOB_NET_FULL ? "--share-net " : "",
		 proxy, layer, envf[0] ? "--env-file " : "", envf);
	snprintf(exec, sizeof exec, "%s", s->net ? "--net" : "");
	snprintf(path, sizeof path, "%s:/usr/local/bin:/usr/bin:/bin", cfg.tools_dir);

	size_t nenv = 0;
	add_env(env, &nenv, "PATH", path);
	add_env(env, &nenv, "LANG", "C.UTF-8");
	add_env(env, &nenv, "SR_CODE", code);
	add_env(env, &nenv, "SR_WORKSPACE", ws);
	if (cfg.ws_quota)
		snprintf(quota, sizeof quota, "%llu", (unsigned long long)job_quota(layer));
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
	if (s->changes && !s->session) {    /* STATE/made/ID.changes: job_made.c reads it */
		snprintf(path, sizeof path, "%s/%s.changes", job_made_dir(), id);
		add_env(env, &nenv, "SR_WORKSPACE_CHANGES", path);
	}
	if (s->net == JOB_NET_ALLOW) {  /* sr-net's socket, its records, the rules */
		const char *d = job_made_dir();
		const char *rules = cfg.net_rules ? cfg.net_rules : "";
		if (asprintf(&env[nenv++], "SR_NET_ARGS=--socket %s/%s.sock --log %s/%s.net%s%s%s", d,
			     id, d, id, s->net_rules ? s->net_rules : cfg.net_allow ? "" :
			     JOB_NET_INDEXES, s->net_rules ? "" : rules, sec) < 0)
			sr_fatal(SR_EXIT_SYS, "out of memory");
	}
	for (size_t i = 0; s->env_extra && s->env_extra[i] && i < 8; i++)
		env[nenv++] = xstrdup(s->env_extra[i]);
	return nenv;
}

/* sr-mcp's bookkeeping of a job lives in its state directory under the
 * job's id, not in the job's environment: the made-files snapshot at
 * path becomes STATE/made/ID (job_made.c reads it there). */
static void made_keep(const char *path, const char *id)
{
	char to[4200];
	snprintf(to, sizeof to, "%s/%s", job_made_dir(), id);
	if (rename(path, to) < 0) {
		mcp_log("unable to keep the snapshot %s for job %s (%s): its result will not "
			"list the files it made", path, id, strerror(errno));
		unlink(path);
	}
}

/* The runner and s's arguments, NULL-ended (the strings are s's). */
static char **job_argv(const struct run_spec *s)
{
	int nargs = s->args ? cJSON_GetArraySize(s->args) : 0, n = 0;
	char **argv = xmalloc((size_t)(nargs + 2) * sizeof *argv);
	argv[n++] = s->runner->path;
	const cJSON *a;
	if (s->args)
		cJSON_ArrayForEach(a, s->args)
			argv[n++] = a->valuestring;
	argv[n] = NULL;
	return argv;
}

/* A job's files: its code, its workspace, its env file ("" for none),
 * and those to fsync before it is queued (sq_new_job's deps). */
struct job_files {
	char code[4096], envf[4096], ws[4096];
	int deps[2], ndeps;
};

/* The job stored in its spool through the spool core, as `sr-queue
 * submit` would store it; what sr-mcp keeps of it (the made-files
 * snapshot) under its id first, so that it is there when the job runs. */
static int store(const struct run_spec *s, const char *id, const struct job_files *f,
		 char *err, size_t errlen)
{
	char *env[21], qt[SQ_TENANT_MAX + 1];    /* qt: the tenant queued under */
	size_t nenv = job_env(s, id, f->code, f->ws, f->envf, env);
	char **argv = job_argv(s);
	struct sq_new_job nj = {
		.tenant = job_queue_tenant(s->tenant, qt), .argv = argv, .env = env, .nenv = nenv,
		.cwd = f->ws, .stdin_fd = -1, .stdin_data = s->stdin_data, .stdin_len = s->stdin_len,
		.max_output = SQ_DEFAULT_MAX_OUTPUT, .kill_after_ms = SQ_DEFAULT_KILL_AFTER_MS,
		/* sr-queue's own clock, a backstop behind sr-limit's */
		.timeout_ms = s->timeout_ms + 30000, .umask = cfg.umask,
		.deps = f->deps, .ndeps = (size_t)f->ndeps,
	};
	if (s->made && s->made[0] && !s->session)   /* not a session's interpreter: its call's */
		made_keep(s->made, id);
	const char *what = "the job record";
	cJSON *job = sq_job_record(id, &nj);
	int r = job ? sq_job_store(job_state_spool(s->session), id, job, &nj, &what) : -1;
	int e = errno;
	cJSON_Delete(job);
	free(argv);
	while (nenv > 0)
		free(env[--nenv]);
	if (r < 0)
		snprintf(err, errlen, "unable to store the job in %s: %s: %s",
			 s->session ? "the sessions' spool" : cfg.spool, what, strerror(e));
	return r;
}

static int submit(const struct run_spec *s, char job_id[33], char *err, size_t errlen)
{
	struct job_files f = { .envf = "" };
	char id[SQ_ID_LEN + 1];
	int r = -1;
	if ((f.deps[f.ndeps] = write_private("code", s->code, s->code_len, f.code, err,
					     errlen)) < 0)
		return -1;
	f.ndeps++;
	if (s->env && cJSON_GetArraySize(s->env) > 0 &&
	    (f.deps[f.ndeps++] = env_file(s->env, f.envf, err, errlen)) < 0)
		f.ndeps--;
	else if (sq_id_new(id) < 0)
		snprintf(err, errlen, "unable to make a job id: %s", strerror(errno));
	else if (snprintf(f.ws, sizeof f.ws, "%s/%s", cfg.workspaces, s->workspace),
		 (r = store(s, id, &f, err, errlen)) == 0)
		memcpy(job_id, id, 33);
	while (f.ndeps > 0)
		close(f.deps[--f.ndeps]);
	if (r < 0) {
		unlink(f.code);
		if (f.envf[0])
			unlink(f.envf);
		return -1;
	}
	if (s->session)
		job_session_worker();
	else
		job_worker_ensure();
	return 0;
}

/* What runs must still be what was checked at start (runners.c). */
int job_submit(const struct run_spec *s, char job_id[33], char *err, size_t errlen)
{
	return runner_trusted(s->runner->path, s->env_extra, err, errlen) < 0 ? -1 :
	       submit(s, job_id, err, errlen);
}

/* The spool at path: the runs' or the sessions' (open since
 * job_state_ready), else opened now into tmp (a session call's process);
 * NULL with err. */
static struct sq_spool *spool_at(const char *path, struct sq_spool *tmp, char *err,
				 size_t errlen)
{
	for (int session = 0; session < 2; session++) {
		struct sq_spool *sp = job_state_spool(session);
		if (sp->path && path && !strcmp(sp->path, path) && sp->root >= 0)
			return sp;
	}
	char why[1200];
	if (path && sq_spool_try_open(tmp, path, 0, why, sizeof why) == 0)
		return tmp;
	snprintf(err, errlen, "%s", path ? why : "no spool yet");
	return NULL;
}

static void spool_done(struct sq_spool *sp, struct sq_spool *tmp)
{
	if (sp == tmp)
		sq_spool_close(tmp);
}

/* After a failed resolve, wait or cancel of id in sp (errno theirs): what
 * to say, in err: for the runs' spool, job_not_found's words. */
static void job_missing(struct sq_spool *sp, const char *id, char *err, size_t errlen)
{
	char msg[SQ_JOB_REFUSAL_MAX + 4400];
	int none = sq_job_missing(sp, id, msg, sizeof msg);
	if (none && sp == job_state_spool(0))
		job_not_found(id, err, errlen);
	else if (none)
		snprintf(err, errlen, "no job %s", id);
	else
		snprintf(err, errlen, "%s", msg);
}

/* js as `sr-queue status --json` gives it, or NULL with err. */
static cJSON *status_json(const char *id, struct sq_jstat *js, char *err, size_t errlen)
{
	cJSON *st = sq_status_json(id, js, 1);
	sq_jstat_free(js);
	if (!st)
		snprintf(err, errlen, "out of memory");
	return st;
}

/* A job's status in spool sp, as `sr-queue status --json` gives it. */
cJSON *job_status_in(const char *sp, const char *id, char *err, size_t errlen)
{
	struct sq_spool tmp, *s = spool_at(sp, &tmp, err, errlen);
	struct sq_jstat js;
	cJSON *st = NULL;
	if (s && sq_job_resolve(s, id, &js) < 0)
		job_missing(s, id, err, errlen);
	else if (s)
		st = status_json(id, &js, err, errlen);
	if (s)
		spool_done(s, &tmp);
	return st;
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

/* A wait of the protocol's: its cancel, its progress, and a worker
 * started for a job still queued (one that was exiting may have held the
 * lock when the job came: looked at soon, then less often). */
struct wait_ctx {
	const struct job_waiter *w;
	const char *id;
	uint64_t start, told, every;
};

static int wait_look(void *ctx, const struct sq_jstat *js, uint64_t *next_ms)
{
	struct wait_ctx *c = ctx;
	const struct job_waiter *w = c->w;
	if (w && w->cancelled && *w->cancelled)
		return 1;
	if (!strcmp(js->state, "queued")) {
		job_worker_ensure();
		*next_ms = c->every;
		c->every = c->every * 2 < 1000 ? c->every * 2 : 1000;
	}
	uint64_t waited = sr_now_ns() / 1000000 - c->start;
	if (w && w->progress && waited - c->told >= MCP_PROGRESS_S * 1000) {
		char msg[400], note[300];
		job_progress_note(c->id, note, sizeof note);
		snprintf(msg, sizeof msg, "job %s %s for %.0f s: %s", c->id, js->state,
			 (double)waited / 1000, note);
		w->progress(w->ctx, (double)waited / 1000, msg);
		c->told = waited;
	}
	return 0;
}

/* Wait until the job ends, ms pass (0: just look) or the call is
 * cancelled: the spool core's wait, woken when a job ends. */
cJSON *job_wait(const struct job_waiter *w, const char *id, uint64_t ms, char *err,
		size_t errlen)
{
	struct sq_spool *sp = job_state_spool(0);
	struct wait_ctx c = { .w = w, .id = id, .start = sr_now_ns() / 1000000, .every = 20 };
	struct sq_waiter sw = { .timeout_ns = ms ? ms * 1000000ULL : 1, .look = wait_look,
			      .ctx = &c };
	struct sq_jstat js;
	if (sp->root < 0) {
		snprintf(err, errlen, "no spool yet");
		return NULL;
	}
	if (sq_job_wait_with(sp, id, &sw, &js) < 0) {
		job_missing(sp, id, err, errlen);
		return NULL;
	}
	return status_json(id, &js, err, errlen);
}

int job_cancel(const char *id, char *err, size_t errlen)
{
	return job_cancel_in(cfg.spool, id, err, errlen);
}

/* sr-queue cancel's, in-process: it waits up to 30 s for a running job's
 * end. 0 cancelled, 1 it had ended already (err says how), -1 err. */
int job_cancel_in(const char *sp, const char *id, char *err, size_t errlen)
{
	struct sq_spool tmp, *s = spool_at(sp, &tmp, err, errlen);
	struct sq_jstat js;
	char msg[SQ_JOB_REFUSAL_MAX + 4400];
	if (!s)
		return -1;
	int r = sq_job_cancel(s, id, 30ULL * 1000000000ULL, &js, msg, sizeof msg);
	if (r < 0 && errno == ENOENT && !sq_removed_before(s->root, id))
		snprintf(err, errlen, "no job %s", id);    /* the caller says where they are */
	else if (r < 0 && errno == ENOENT)
		job_missing(s, id, err, errlen);
	else if (r < 0)
		snprintf(err, errlen, "%s", msg);
	else if (r == SQ_CANCEL_PENDING)
		snprintf(err, errlen, "cancel requested, the job is still %s", js.state);
	else if (r == SQ_CANCEL_ENDED)
		snprintf(err, errlen, "%s", js.state);
	if (r >= 0)
		sq_jstat_free(&js);
	spool_done(s, &tmp);
	return r == SQ_CANCEL_DONE ? 0 : r == SQ_CANCEL_ENDED ? 1 : -1;
}

static void list_add(const char *id, const struct sq_jstat *js, void *ctx)
{
	cJSON *j = js ? sq_status_json(id, js, 0) : NULL;
	if (!js)
		mcp_log("refusing job %s", sq_job_refusal);
	if (j)
		cJSON_AddItemToArray(ctx, j);
}

/* Every job of the runs' spool, as `sr-queue list --json` gives them. */
cJSON *job_list(char *err, size_t errlen)
{
	struct sq_spool *sp = job_state_spool(0);
	if (sp->root < 0) {
		snprintf(err, errlen, "no spool yet");
		return NULL;
	}
	cJSON *arr = cJSON_CreateArray();
	sq_job_list(sp, "all", list_add, arr);
	return arr;
}

struct busy_ctx {
	char want[4200];
	char *job;
	int found;
};

static void busy_one(const char *id, const struct sq_jstat *js, void *ctx)
{
	struct busy_ctx *b = ctx;
	cJSON *job = NULL;
	if (b->found || !js || js->fd < 0)
		return;
	(void)sq_job_read_at(js->fd, SQ_JOB_FILE, &job, NULL);
	const char *cwd = cJSON_GetStringValue(cJSON_GetObjectItem(job, "cwd"));
	if (cwd && !strcmp(cwd, b->want)) {
		snprintf(b->job, 33, "%s", id);
		b->found = 1;
	}
	cJSON_Delete(job);
}

int job_ws_busy(const char *ws, char job[33])
{
	struct sq_spool *sp = job_state_spool(0);
	if (sp->root < 0) {
		snprintf(job, 33, "(unknown)");
		return -1;      /* cannot tell: as if in use */
	}
	struct busy_ctx b = { .job = job };
	snprintf(b.want, sizeof b.want, "%s/%s", cfg.workspaces, ws);
	sq_job_list(sp, "queued", busy_one, &b);
	sq_job_list(sp, "running", busy_one, &b);
	return b.found;
}
