/* job_state.c - the state service under the job service (jobs.c): the
 * state directory, made private and resolved, and its parts (workspaces/,
 * code/, made/, the spool (watched for jobs that end) and the sessions'
 * spool, each opened once through sr-queue's spool core), the start-up
 * probes (one jail tried; does sr-limit --mem work), and which worker
 * each spool has (`sr-queue run`, the one program of sr-queue sr-mcp runs
 * besides gc: job_worker.c starts it, and renews the runs' worker once
 * the state is ready if its options are not this start's).
 *
 * Readied once, on first use (job_state_ready): sr-mcp makes nothing before
 * a tool needs it (a client that only lists the tools leaves no trace),
 * and later calls read what that one readying found. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "job.h"
#include "mcp.h"
#include "spawn.h"
#include "ws.h"
#include "spool.h"      /* sr-queue's spool core */
#include "sr.h"

static struct sq_spool spool = { .root = -1 };       /* the runs' */
static struct sq_spool sess_spool = { .root = -1 };  /* STATE/sessions/spool */
static char *made_dir;          /* STATE/made: what sr-mcp keeps of each job */

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

struct sq_spool *job_state_spool(int session)
{
	return session ? &sess_spool : &spool;
}

const char *job_session_spool(void)
{
	return sess_spool.path;
}

const char *job_made_dir(void)
{
	return made_dir;
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

/* STATE/name, made if need be and ours alone: its path, or NULL with err. */
static char *sub_dir(const char *name, char *err, size_t errlen)
{
	char *p;
	if (asprintf(&p, "%s/%s", cfg.state_dir, name) < 0)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	char why[900];
	if (mkdir(p, 0700) < 0 && errno != EEXIST) {
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

static void say_log(const char *msg)
{
	mcp_log("%s", msg);
}

/* A spool at path opened (made if need be) into sp, and watched. */
static int spool_open(struct sq_spool *sp, const char *path, char *why, size_t len)
{
	if (sq_spool_try_open(sp, path, 1, why, len) < 0)
		return -1;
	if (sq_spool_watch(sp, say_log) == 0)
		return 0;
	snprintf(why, len, "unable to watch the spool %s: %s", path, strerror(errno));
	return -1;
}

/* STATE/sessions and its spool, for the sessions' interpreters. */
static int session_spool_open(char *why, size_t len)
{
	char *d = sub_dir("sessions", why, len), *p;
	if (!d)
		return -1;
	if (asprintf(&p, "%s/spool", d) < 0)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	free(d);
	return sq_spool_try_open(&sess_spool, p, 1, why, len);   /* keeps p */
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

/* The state directory made, private and resolved (sr-jail binds nothing
 * through a symbolic link), in cfg.state_dir: 0, or -1 with why. */
static int state_dir_make(char *why, size_t len)
{
	char *real = NULL, refused[900];
	if (geteuid() == 0) {
		snprintf(why, len, "sr-mcp is running as root, and the sandbox drops "
			 "root to nobody (65534), which cannot reach root's private state "
			 "directory: run sr-mcp as an ordinary user (the client's command as "
			 "that user, e.g. runuser -u USER -- sr-mcp). Nothing was run.");
		return -1;
	}
	if (mkdir_p(cfg.state_dir, 0700) < 0 || !(real = realpath(cfg.state_dir, NULL))) {
		snprintf(why, len, "the state directory %s cannot be made (%s): "
			 "set another with --state-dir or SR_MCP_STATE_DIR", cfg.state_dir,
			 strerror(errno));
		return -1;
	}
	if (sr_dir_private(real, 0, refused, sizeof refused) < 0) {
		snprintf(why, len, "refusing state directory %s: %s", real, refused);
		free(real);
		return -1;
	}
	free(cfg.state_dir);
	cfg.state_dir = real;
	return 0;
}

/* Everything of job_state_ready, in order: 0, or -1 with why. */
static int state_make(char *why, size_t len)
{
	if (state_dir_make(why, len) < 0 ||
	    !(cfg.workspaces = sub_dir("workspaces", why, len)) ||
	    !(cfg.code_dir = sub_dir("code", why, len)) ||
	    !(made_dir = sub_dir("made", why, len)) ||
	    (!cfg.spool && !(cfg.spool = sub_dir("spool", why, len))) ||
	    spool_open(&spool, cfg.spool, why, len) < 0 ||
	    session_spool_open(why, len) < 0 || jail_probe(why, len) < 0)
		return -1;
	ws_quota_probe();
	job_worker_renew();     /* the options of this start in force */
	return 0;
}

/* Once, at the first call that needs it: the state directory and its
 * parts, and one jail tried, so that a machine without user namespaces is
 * said once, plainly, and runs nothing. */
int job_state_ready(char *err, size_t errlen)
{
	static pthread_mutex_t once = PTHREAD_MUTEX_INITIALIZER;
	static int state;       /* 0 not yet, 1 ready, -1 failed */
	static char why[1200];
	pthread_mutex_lock(&once);
	if (state == 0) {
		state = state_make(why, sizeof why) == 0 ? 1 : -1;
		if (state < 0)
			mcp_log("%s", why);
	}
	int r = state;
	pthread_mutex_unlock(&once);
	if (r < 0)
		snprintf(err, errlen, "%s", why);
	return r > 0 ? 0 : -1;
}
