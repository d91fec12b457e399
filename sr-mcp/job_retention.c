/* retention.c - the workspaces' quota, tried once, and their retention.
 *
 * Workspaces idle longer than --workspace-ttl are removed, and scratch
 * workspaces (made without a workspace_id: workspace.c) idle longer than
 * --scratch-ttl after their last job ended: at start-up (when the state
 * directory exists already) and then every hour, or every TTL (a quarter
 * of the scratch TTL) when that is shorter, by a small thread.
 *
 * A workspace's last use is the mtime of a stamp file, STATE/ws-used/ID,
 * outside the workspace so that the sandboxed code cannot forge it. A run
 * (when it is submitted) and a file tool's write touch it; a sweep that
 * finds a job of the workspace queued or running touches it too and
 * keeps the workspace. STATE/workspaces.lock orders the two: a use holds
 * it shared from the touch until its job is queued, a sweep exclusive
 * from reading a stamp to removing the workspace, so that no sr-mcp
 * sharing the state directory removes a workspace a run is starting in.
 *
 * Finished jobs go by sr-queue gc at the same sweeps: those finished
 * longer than --job-ttl ago, then the oldest until the finished jobs take
 * at most --job-space on disk. The code of each run (STATE/code/HEX.code,
 * HEX.env) goes once no job left in the spool names it (see code_sweep).
 *
 * A workspace's size (bytes and inodes), for its quota, is kept in STATE/ws-size/ID (lib's
 * size cache, sr-jail --quota-cache): measured once, then adjusted by
 * every run (sr-jail) and every write of a file tool (here), so that
 * neither walks a workspace of many files at every use. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "job.h"
#include "mcp.h"
#include "spawn.h"
#include "ws.h"
#include "spool.h"      /* sr-queue's spool core: the job records */
#include "sr.h"

/* The jobs of workspace id: 1 when one is queued or running (its id in
 * job), 0 when none is, -1 when they cannot be listed (as if in use);
 * *ended the end of its last finished job (0: none). */
static int ws_jobs(const char *id, char job[33], time_t *ended)
{
	char err[300], want[4200];
	cJSON *all = job_list(err, sizeof err), *j;
	*ended = 0;
	if (!all)
		return job_ws_busy(id, job);    /* says whether that means "in use" */
	int busy = 0;
	snprintf(want, sizeof want, "%s/%s", cfg.workspaces, id);
	cJSON_ArrayForEach(j, all) {
		const cJSON *jid = cJSON_GetObjectItem(j, "id"), *state = cJSON_GetObjectItem(j, "state");
		if (busy || !cJSON_IsString(jid) || !cJSON_IsString(state))
			continue;
		int going = !strcmp(state->valuestring, "queued") || !strcmp(state->valuestring, "running");
		double fin = cJSON_GetNumberValue(cJSON_GetObjectItem(j, "finished_ms"));
		if (!going && (fin != fin || (time_t)(fin / 1000) <= *ended))
			continue;       /* no later end than one seen */
		cJSON *info = job_info(jid->valuestring);
		const cJSON *cwd = cJSON_GetObjectItem(info, "cwd");
		if (cJSON_IsString(cwd) && !strcmp(cwd->valuestring, want)) {
			if (going)
				snprintf(job, 33, "%s", jid->valuestring);
			busy = going;
			*ended = going ? *ended : (time_t)(fin / 1000);
		}
		cJSON_Delete(info);
	}
	cJSON_Delete(all);
	return busy;
}

/* Does a session's interpreter live in workspace id (its job queued or
 * running in the sessions' spool, working in the workspace)? 1, its id in
 * job; 0. A workspace with a live session is in use, even between calls. */
static int ws_session(const char *id, char job[33])
{
	static const char *const dirs[] = { "run", "queue" };
	const char *sp = job_session_spool();
	char want[4200], p[4300], f[4400];
	int found = 0;
	snprintf(want, sizeof want, "%s/%s", cfg.workspaces, id);
	for (size_t i = 0; sp && i < 2 && !found; i++) {
		snprintf(p, sizeof p, "%s/%s", sp, dirs[i]);
		DIR *d = opendir(p);
		struct dirent *de;
		while (d && !found && (de = readdir(d))) {
			char *line = NULL;
			size_t got = 0;
			int fd = job_id_ok(de->d_name) && snprintf(f, sizeof f, "%s/%s/job.jsonl", p,
								 de->d_name) > 0 ?
				 open(f, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : -1;
			if (fd >= 0) {
				line = job_read_at(fd, 0, 1 << 16, &got);
				close(fd);
				line[got] = '\0';
				line[strcspn(line, "\n")] = '\0';
			}
			cJSON *rec = line ? cJSON_Parse(line) : NULL;
			const char *cwd = cJSON_GetStringValue(cJSON_GetObjectItem(rec, "cwd"));
			if (cwd && !strcmp(cwd, want)) {
				snprintf(job, 33, "%.32s", de->d_name);
				found = 1;
			}
			cJSON_Delete(rec);
			free(line);
		}
		if (d)
			closedir(d);
	}
	return found;
}

/* One workspace: removed when idle past its TTL (--scratch-ttl for a
 * scratch one, --workspace-ttl for the others) and no job uses it. A
 * scratch workspace's idle time counts from its last job's end. */
static void sweep_one(int root, const char *id, time_t now)
{
	char job[33];
	time_t ended;
	int scratch = ws_scratch(id);
	uint64_t ttl = scratch ? cfg.scratch_ttl_ms : cfg.ws_ttl_ms;
	time_t last = ws_last_used(id);
	if (!ttl || last >= now || (uint64_t)(now - last) * 1000 < ttl)
		return;
	int busy = ws_jobs(id, job, &ended);
	if (busy == 0 && ws_session(id, job))
		busy = 1;
	if (busy > 0)
		ws_touch(id);   /* in use now */
	if (busy != 0)          /* in use, or cannot tell: not now */
		return;
	if (ended > last) {
		ws_used_at(id, ended);
		if (ended >= now || (uint64_t)(now - ended) * 1000 < ttl)
			return;
	}
	if (sr_remove_tree(root, id) < 0 && errno != ENOENT) {
		mcp_log("unable to remove idle workspace %s: %s", id, strerror(errno));
		return;
	}
	ws_stamp_remove(id);
	ws_size_remove(id);
	mcp_log("%s workspace %s removed: unused for longer than %s", scratch ? "scratch" : "idle",
		id, scratch ? "--scratch-ttl" : "--workspace-ttl");
}

/* ---- finished jobs and their code ---------------------------------------- */

#define CODE_GRACE_S 600   /* code younger than this may be a job being stored */

struct names {
	char **v;
	size_t n, cap;
};

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The code files a job's record names: every "CODE_DIR/NAME" in its
 * environment (SR_CODE, SR_JAIL_ARGS' --env-file), NAME up to a blank. */
static void job_names_code(int dfd, const char *id, struct names *in_use)
{
	cJSON *job = NULL, *e;
	char pre[4200];
	int n = snprintf(pre, sizeof pre, "%s/", cfg.code_dir);
	int fd = openat(dfd, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	(void)sq_job_read_at(fd, SQ_JOB_FILE, &job, NULL);
	close(fd);
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(job, "env")) {
		const char *s = cJSON_IsString(e) ? e->valuestring : "";
		for (const char *p = strstr(s, pre); p; p = strstr(p + n, pre)) {
			size_t len = strcspn(p + n, " \t\n");
			in_use->v = sr_grow(in_use->v, in_use->n, &in_use->cap, sizeof *in_use->v);
			in_use->v[in_use->n++] = strndup(p + n, len);
		}
	}
	cJSON_Delete(job);
}

/* Every job in the spool's directories (tmp/ too: jobs being stored);
 * -1 when one cannot be read: then nothing is known to be unused. */
static int code_in_use(struct names *in_use)
{
	static const char *const dirs[] = { "tmp", "queue", "run", "done" };
	char path[4200];
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
		snprintf(path, sizeof path, "%s/%s", cfg.spool, dirs[i]);
		int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
		if (!d) {
			if (fd >= 0)
				close(fd);
			return -1;
		}
		struct dirent *e;
		while ((e = readdir(d)))
			if (e->d_name[0] != '.')
				job_names_code(dirfd(d), e->d_name, in_use);
		closedir(d);
	}
	qsort(in_use->v, in_use->n, sizeof *in_use->v, by_name);
	return 0;
}

/* STATE/code holds the code of every run: a file that no job of the spool
 * names any more, and older than CODE_GRACE_S (a run writes its code just
 * before it stores its job), is the code of a job that is gone. */
static void code_sweep(void)
{
	struct names in_use = { 0 };
	int cd = open(cfg.code_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = cd >= 0 && code_in_use(&in_use) == 0 ? fdopendir(cd) : NULL;
	if (!d) {
		if (cd >= 0)
			close(cd);
		goto out;
	}
	time_t now = time(NULL);
	unsigned removed = 0;
	struct dirent *e;
	struct stat st;
	while ((e = readdir(d))) {
		const char *name = e->d_name;
		if (name[0] == '.' || fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !(S_ISREG(st.st_mode) || S_ISSOCK(st.st_mode)) ||
		    now - st.st_mtime < CODE_GRACE_S ||
		    bsearch(&name, in_use.v, in_use.n, sizeof *in_use.v, by_name))
			continue;
		if (unlinkat(dirfd(d), name, 0) == 0)
			removed++;
	}
	closedir(d);
	if (removed)
		mcp_log("the code of %u runs whose jobs are gone removed", removed);
out:
	while (in_use.n > 0)
		free(in_use.v[--in_use.n]);
	free(in_use.v);
}

/* Is job id in one of sp's directories (tmp/ too: being stored)? */
static int job_there(const struct sq_spool *sp, const char *id)
{
	return sq_exists_at(sp->tmp, id) || sq_exists_at(sp->queue, id) ||
	       sq_exists_at(sp->run, id) || sq_exists_at(sp->done, id);
}

/* The job STATE/made's entry name is kept for: ID or ID.changes; 0 for
 * none (a snapshot never named after its job). */
static int made_job(const char *name, char id[33])
{
	size_t n = strlen(name);
	if (n != 32 && strcmp(name + (n > 32 ? 32 : n), ".changes") &&
	    strcmp(name + (n > 32 ? 32 : n), ".net") && strcmp(name + (n > 32 ? 32 : n), ".sock") &&
	    strcmp(name + (n > 32 ? 32 : n), ".ca"))
		return 0;
	memcpy(id, name, 32);
	id[32] = '\0';
	return job_id_ok(id);
}

/* STATE/made holds what sr-mcp keeps of each job (under the job's id:
 * the snapshot ID, the jail's list ID.changes, job_made.c's; sr-net's
 * records ID.net, its socket ID.sock, left if the proxy was killed
 * with its run, job_net.c's, and its CA bundle ID.ca, job_secret.c's): an entry whose
 * job is gone, or a snapshot never named after one, older than
 * CODE_GRACE_S (a snapshot is made just before its job is stored), is
 * removed. */
static void made_sweep(void)
{
	const struct sq_spool *sp = job_state_spool(0);
	int md = job_made_dir() ? open(job_made_dir(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				       O_CLOEXEC) : -1;
	DIR *d = md >= 0 && sp->root >= 0 ? fdopendir(md) : NULL;
	if (!d) {
		if (md >= 0)
			close(md);
		return;
	}
	time_t now = time(NULL);
	unsigned removed = 0;
	struct dirent *e;
	struct stat st;
	char id[33];
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode) || now - st.st_mtime < CODE_GRACE_S ||
		    (made_job(e->d_name, id) && job_there(sp, id)))
			continue;
		removed += unlinkat(dirfd(d), e->d_name, 0) == 0;
	}
	closedir(d);
	if (removed)
		mcp_log("what sr-mcp kept of %u jobs that are gone removed", removed);
}

/* sr-queue gc with the jobs' retention; what it removed goes to the log.
 * gc stays a program of its own: it is no call's path (the sweeper runs
 * it, at most every few minutes), and what it chooses to remove (age,
 * room, the newest kept) is sr-queue's command, not the spool core's. */
static void jobs_sweep(void)
{
	char age[32], room[32], *out = NULL;
	char *argv[10] = { "sr-queue", "gc", cfg.spool, "--json" };
	int n = 4;
	if (cfg.job_ttl_ms) {
		snprintf(age, sizeof age, "%llums", (unsigned long long)cfg.job_ttl_ms);
		argv[n++] = "--older-than";
		argv[n++] = age;
	}
	if (cfg.job_space) {
		snprintf(room, sizeof room, "%llu", (unsigned long long)cfg.job_space);
		argv[n++] = "--max-bytes";
		argv[n++] = room;
	}
	argv[n] = NULL;
	int rc = spawn_capture(argv, &out, 4096, 0);
	cJSON *j = rc == 0 && out ? cJSON_Parse(out) : NULL;
	double removed = cJSON_GetNumberValue(cJSON_GetObjectItem(j, "removed"));
	if (rc != 0)
		mcp_log("the jobs' retention failed: sr-queue gc exited %d", rc);
	else if (removed > 0)
		mcp_log("%.0f finished jobs removed by retention (%.0f bytes)", removed,
			cJSON_GetNumberValue(cJSON_GetObjectItem(j, "removed_bytes")));
	cJSON_Delete(j);
	free(out);
	code_sweep();
	made_sweep();
}

void job_retention_sweep(void)
{
	char err[600];
	if ((!cfg.ws_ttl_ms && !cfg.scratch_ttl_ms && !cfg.job_ttl_ms && !cfg.job_space) ||
	    job_state_ready(err, sizeof err) < 0)
		return;
	if (cfg.job_ttl_ms || cfg.job_space)
		jobs_sweep();
	if (!cfg.ws_ttl_ms && !cfg.scratch_ttl_ms)
		return;
	int lock = ws_hold(1);
	int root = open(cfg.workspaces, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = root >= 0 ? fdopendir(root) : NULL;
	if (!d) {
		if (root >= 0)
			close(root);
		ws_release(lock);
		return;
	}
	time_t now = time(NULL);
	struct dirent *e;
	while ((e = readdir(d)))
		if (ws_id_ok(e->d_name) &&
		    (e->d_type == DT_DIR || e->d_type == DT_UNKNOWN))
			sweep_one(dirfd(d), e->d_name, now);
	closedir(d);
	ws_release(lock);
}

static char *state_dir;     /* as given: cfg's is replaced by job_state_ready */

static void *sweeper(void *arg)
{
	struct stat st;
	(void)arg;
	for (;;) {
		/* nothing is made before the first tool call: a state
		 * directory that is not there yet holds nothing to remove */
		if (stat(state_dir, &st) == 0)
			job_retention_sweep();
		uint64_t ms = cfg.ws_ttl_ms;
		if (cfg.job_ttl_ms && (!ms || cfg.job_ttl_ms < ms))
			ms = cfg.job_ttl_ms;
		/* a scratch workspace goes within a quarter of its TTL late */
		uint64_t q = cfg.scratch_ttl_ms / 4 ? cfg.scratch_ttl_ms / 4 : 1;
		if (cfg.scratch_ttl_ms && (!ms || q < ms))
			ms = q;
		uint64_t s = ms ? ms / 1000 : 3600;     /* --job-space alone: hourly */
		sleep(s < 1 ? 1 : s > 3600 ? 3600 : (unsigned)s);
	}
	return NULL;
}

void job_retention_start(void)
{
	pthread_t t;
	if (!cfg.ws_ttl_ms && !cfg.scratch_ttl_ms && !cfg.job_ttl_ms && !cfg.job_space)
		return;
	state_dir = xstrdup(cfg.state_dir);
	if (pthread_create(&t, NULL, sweeper, NULL) != 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to start the retention sweeper");
	pthread_detach(t);
}
