/* session.h - the sessions layer (prefix session_): a live interpreter
 * per workspace, language and tenant (sr-mcp(1), SESSIONS; HACKING.md,
 * Sessions). Below the protocol, above the jobs: the interpreter is a job
 * of the sessions' spool, each call a job of the runs' spool whose program
 * is sr-mcp itself in its --session-call mode.
 *
 *   session.c       find, start, close, list the sessions; a call's job
 *   session_call.c  the call's program: the code handed to the interpreter
 *                   over the session's FIFOs, its framed answer read back
 *   session_quota.c the workspace quota of a live session: its jail's socket,
 *                   the apply at the end of a call
 *   session_keep.c  the interpreter's job: its keeper on the host (the idle
 *                   bound, the CPU time), and its process tree read
 */
#ifndef SR_MCP_SESSION_H
#define SR_MCP_SESSION_H

#include <stddef.h>
#include <stdint.h>

struct cJSON;
struct runner;
struct run_spec;

#define SESSION_LIFE_MS (24ULL * 3600 * 1000)   /* an interpreter lives at most */
#define SESSION_GRACE_MS 3000   /* after a call's timeout, the code has this to stop */
#define SESSION_CALL_ARG "--session-call"
#define SESSION_KEEP_ARG "--session-keep"

/* What a call found: its session's directory and interpreter job; new:
 * started for it; lost: why the state of the one before was lost ("" if
 * none was, or if it was said already). */
struct session_ref {
	char dir[4200], job[33], lost[700];
	int fresh;
};

/* The live session of (tenant, ws, run's language), or a new one started
 * with the limits of s (its memory, network, environment): 0, or -1 with
 * why in err. */
int session_open(const struct run_spec *s, struct session_ref *ref, char *err, size_t errlen);
/* The call's job made of s: its program sr-mcp --session-call, the session's
 * facts in its arguments (kept in its record). s->args is set; *argv is
 * freed by session_call_free. */
void session_call_spec(struct run_spec *s, const struct session_ref *ref, struct cJSON **args);
/* The live session of (tenant, ws, lang): 1, its directory in dir and its
 * interpreter's job in job; else 0. Its jail publishes its loopback's port
 * SESSION_PUBLISH_PORT at DIR/pub (sr-jail --publish; not with the host's
 * network), removed as it ends (tool_expose.c). */
#define SESSION_PUBLISH_PORT 8000
/* The interpreter job still running: 1, else 0. */
int session_job_alive(const char *job);
int session_live_dir(const char *tenant, const char *ws, const char *lang, char *dir,
		     size_t len, char job[33]);
/* Close a session (why: said to the next call): 1 closed, 0 none live. */
int session_close(const char *tenant, const char *ws, const char *lang, const char *why);
/* Close the sessions of workspace ws, every tenant's (it was deleted). */
void session_close_ws(const char *ws, const char *why);
/* The session of (s->tenant, s->workspace, s->runner) closed if live, and
 * a new one started at once with the limits of s: 1 (one was live), 0
 * (none was), or -1 with err. */
int session_restart(const struct run_spec *s, struct session_ref *ref, char *err, size_t errlen);
/* The sessions of tenant (ws: that workspace's only, or NULL), each
 * {workspace_id, language, interpreter_job_id, state, started_at, age_s,
 * idle_s, calls, memory_bytes}; those idle past --session-idle closed. */
struct cJSON *session_list(const char *tenant, const char *ws);
/* A run's result res of job info (its record): when it is a session
 * call, its session's facts, and what its exit code says (interrupted,
 * state lost). */
void session_result(struct cJSON *res, const struct cJSON *info);
/* A job's argv (its record's): the language of its session when it is a
 * session call (the last part of its session's directory), else NULL. */
const char *session_call_language(const struct cJSON *argv);
/* session_quota.c: the socket the jail of the session in dir (of
 * workspace ws) is to serve (sr-jail --control), in path, and in
 * DIR/serves: the workspace's (ws_ctl_path) when no session of ws serves
 * it yet (1), else DIR/ctl, and its jail applies through the view of the one
 * that does (2); 0 ("") without a quota (the session binds the workspace
 * itself); -1 when it cannot be made. */
int session_serves(const char *dir, const char *ws, char *path, size_t len);
/* session_quota.c: the jail of the session whose directory is open at
 * dir applies what its code wrote to the workspace, its processes stopped
 * meanwhile, and session_sync waits for that (at most timeout_ms):
 * SESSION_SYNC_OK, SESSION_SYNC_FULL (applied; its writes reached the
 * quota, why says so), SESSION_SYNC_NONE (no socket served: the session
 * is gone, and its jail applied everything as it ended; or it has no
 * quota), SESSION_SYNC_FAILED (answered "failed: ...": why), or -1 with
 * why (no answer within timeout_ms). Called as a call ends, before its
 * job does: the workspace then has the call's files. */
#define SESSION_SYNC_OK 0
#define SESSION_SYNC_FULL 1
#define SESSION_SYNC_NONE 2
#define SESSION_SYNC_FAILED 3
int session_sync(int dir, unsigned timeout_ms, char *why, size_t len);
/* At exit: close the sessions this process started. */
void session_close_owned(void);

/* session_call.c: sr-mcp --session-call DIR JOB SPOOL TIMEOUT_MS NOTE */
int session_call_main(int argc, char **argv);

/* session_keep.c: sr-mcp --session-keep DIR IDLE_MS -- RUNNER... */
int session_keep_main(int argc, char **argv);
/* A process of an interpreter's tree, from /proc/PID/stat: CPU time its
 * own and its reaped children's. */
struct session_proc {
	int pid, ppid, threads, zombie;
	unsigned long long start;
	uint64_t user_ns, sys_ns;
};
/* The processes below root (root first, each after its parent). */
struct session_tree {
	int root;
	unsigned long long root_start;
	struct session_proc *p;
	size_t n, cap;
};
/* t->p filled from /proc: 0, or -1 when root is gone. */
int session_tree_read(struct session_tree *t);
/* The tree's CPU time, ns (its system part in *sys_ns if not NULL). */
uint64_t session_tree_cpu(const struct session_tree *t, uint64_t *sys_ns);
/* The tree of interpreter job's keeper, named in DIR/tree-JOB (dir open):
 * 0, or -1 (no keeper, or it is gone). */
int session_tree_load(int dir, const char *job, struct session_tree *t);
/* The threads of process pid (their ids in pid, their start times), at
 * most max: how many, or -1. */
int session_threads(int pid, struct session_proc *th, int max);
/* The interpreter in t: the topmost process holding DIR/in open; its
 * index, or -1. */
int session_interp(const struct session_tree *t, int dir);
/* Is t->p[i] one of the chain's own processes, not the code's: the
 * first of its ancestors that known(ctx, p) says was there before any
 * code ran is neither interp (nor below it) nor the jail's init (which
 * takes the code's orphans)? sr-net's workers, which its proxy forks as
 * connections come, are, and the children of the jail's forwarder; the
 * code's processes descend from the interpreter, or from the init. */
int session_chain_own(const struct session_tree *t, size_t i, const struct session_proc *interp,
		       int (*known)(const void *ctx, const struct session_proc *p), const void *ctx);
/* The signals process pid catches (SigCgt), a mask: bit N-1 for signal N. */
uint64_t session_sigcgt(int pid);
/* What a session call's report (its result's limit object) says, added to
 * its result res: the CPU charged, processes killed, the session ended. */
void session_call_report(struct cJSON *res);
/* The interpreter job ended with V8's "JavaScript heap out of memory"
 * near the end of its stderr (its heap limit, or the data rlimit under it). */
int session_heap_oom(const char *job);
/* The interpreter of job (its directory open) ended by its keeper, which
 * then counts its CPU to the end: 0, or -1 (no keeper seen: cancel it). */
int session_keep_stop(int dir, const char *job);
/* A memory figure of process pid's status (VmRSS, VmHWM), bytes; 0. */
uint64_t session_mem(int pid, const char *field);

#endif
