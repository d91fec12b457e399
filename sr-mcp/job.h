/* job.h - the jobs layer (prefix job_): runs as sr-queue jobs, the spool
 * core used in-process: submit, wait, status, cancel, list, the worker;
 * a job's result for the model; the retention of jobs and workspaces.
 * It knows no request: job_wait reports progress and learns of a cancel
 * through the struct job_waiter its caller (the protocol) fills.
 *
 *   job_retention.c  the sweeper: idle workspaces (--workspace-ttl),
 *                    finished jobs and their code (--job-ttl, --job-space)
 *   job_result.c     a job's result for the model: status, output, limits
 *   job_made.c       the files a run created or changed in its workspace
 *   job_oom.c        a run that failed for memory, and the hint
 *   jobs.c           the job service: submit, wait, status, cancel, list,
 *                    all through sr-queue's spool core
 *   job_state.c      the state service: the state directory and its parts,
 *                    the spools, the start-up probes
 *   job_worker.c     the workers started on the spools, renewed when the
 *                    options change; the tenant a job is queued under
 *   job_files.c      a job's own files: output so far, its record
 * (each calls only the files listed below it)
 */
#ifndef SR_MCP_JOB_H
#define SR_MCP_JOB_H

#include <stddef.h>
#include <stdint.h>

struct cJSON;
struct runner;
struct sq_spool;

/* jobs.c */
struct run_spec {
	const struct runner *runner;
	const char *code;
	size_t code_len;
	const char *stdin_data;  /* NULL: none */
	size_t stdin_len;
	struct cJSON *args;      /* array of strings, or NULL */
	struct cJSON *env;       /* object of strings, or NULL */
	char workspace[65];
	uint64_t timeout_ms, memory;
	const char *tenant;
	int net;                 /* the network the run reaches: JOB_NET_* */
	const char *const *env_extra;  /* KEY=VALUE for the runner, NULL-ended, or NULL */
	int session;             /* a session's interpreter: in the sessions' spool */
	const char *made;        /* job_made_snapshot's file, kept under the job's id
				  * (a run's or a session call's, not an interpreter's) */
	int changes;             /* the jail lists what the run changed (job_env) */
	const char *net_rules;   /* under JOB_NET_ALLOW, sr-net's rules instead of the
				  * indexes' and --net-allow's (apt: its mirrors) */
};
/* run_spec.net: none, the host's network (--network full; an install
 * under install), or the --net-allow hosts through sr-net (allow). */
enum { JOB_NET_NONE, JOB_NET_FULL, JOB_NET_ALLOW };
/* What an install reaches under --network install (through sr-net, as
 * under allow): the package indexes pip and npm use, and --net-allow's. */
#define JOB_NET_INDEXES " --allow pypi.org --allow files.pythonhosted.org --allow registry.npmjs.org"
/* Who waits: a cancel (*cancelled non-zero) ends the wait; progress, when
 * set, is told every MCP_PROGRESS_S seconds. */
struct job_waiter {
	volatile int *cancelled;
	void (*progress)(void *ctx, double seconds, const char *message);
	void *ctx;
};
/* Submit; the id in job_id. 0, or -1 with a message in err. */
int job_submit(const struct run_spec *s, char job_id[33], char *err, size_t errlen);
/* Wait until the job ends or ms pass (0: do not wait); the status object
 * of `sr-queue status --json`, or NULL with err set. w may be NULL. */
struct cJSON *job_wait(const struct job_waiter *w, const char *id, uint64_t ms, char *err,
		       size_t errlen);
/* Cancel: 0 cancelled (waiting up to 30 s for a running job's end); 1 it
 * had ended already, its state in err; -1 with a message in err. */
int job_cancel(const char *id, char *err, size_t errlen);
/* The same in another spool sp (the sessions'): status, or NULL with err. */
struct cJSON *job_status_in(const char *sp, const char *id, char *err, size_t errlen);
int job_cancel_in(const char *sp, const char *id, char *err, size_t errlen);
struct cJSON *job_list(char *err, size_t errlen);
int job_id_ok(const char *s);                /* a job id: 32 hex digits */
/* What to say of a job not found: removed by the retention, or no such. */
void job_not_found(const char *id, char *err, size_t errlen);
/* A queued or running job of workspace ws: its id in job, 1; 0 none;
 * -1 when the jobs could not be listed (treat it as in use). */
int job_ws_busy(const char *ws, char job[33]);

/* job_state.c: readied once (0, or -1 with what is wrong and how to fix
 * it in err): the state directory, its parts and the spools made, and the
 * sandbox found to work. */
int job_state_ready(char *err, size_t errlen);
struct sq_spool *job_state_spool(int session);   /* 0 the runs', 1 the sessions' */
/* The sessions' spool (STATE/sessions/spool, once job_state_ready), and
 * its worker, one slot per session: at most JOB_SESSIONS_MAX at once. */
#define JOB_SESSIONS_MAX 16
const char *job_session_spool(void);
void job_session_worker(void);
void job_worker_ensure(void);
const char *job_made_dir(void);              /* STATE/made */
const char *job_memory_via(void);            /* "cgroup" or "rlimit data" */

/* job_worker.c: a worker on spool sp unless one holds STATE/NAME.lock;
 * once the state is ready (job_state_ready), the runs' worker replaced if
 * its options are not ours (it finishes its jobs first); the tenant a job is queued under, its fair
 * share and CPU budget: the client's (tenant) and, unless --tenant fixed
 * it, this connection's (the process), so that clients of one name are
 * told apart. buf: SQ_TENANT_MAX + 1 bytes. */
void job_worker_start(const char *sp, const char *name, unsigned slots);
void job_worker_renew(void);
const char *job_queue_tenant(const char *tenant, char *buf);
/* How long a run waited in the queue and why (st: its status), in res:
 * queued_ms, queued_reason, queued_note. */
void job_queued(struct cJSON *res, const struct cJSON *st);

/* job_net.c: under --network allow, after the run, sr-net's records in
 * res: network {connections, refused, denied [{host, port, why}]} and,
 * when any was refused, network_note, what to do. */
void job_net(struct cJSON *res, const char *id);
/* The same for the records between bytes from and to of job id's (a
 * session's call, in its interpreter's records). */
void job_net_range(struct cJSON *res, const char *id, uint64_t from, uint64_t to);

/* job_secret.c: --secret, --secret-file (main.c's options), checked and
 * the environment's values kept in files at start (job_secret_setup);
 * what a run's SR_NET_ARGS and SR_JAIL_ARGS add; sandbox_info's list. */
#define JOB_SECRET_CA "/run/sr-net-ca.pem"     /* the CA bundle in the jail */
void job_secret_add(const char *opt, const char *a);
void job_secret_file(const char *opt, const char *a);
void job_secret_setup(void);
void job_net_check(void);
void job_secret_net_args(const char *id, char *buf, size_t len);
void job_secret_jail_args(const char *id, char *buf, size_t len);
void job_secret_info(struct cJSON *res);

/* job_files.c */
int job_file(const char *id, const char *name);   /* its file, open, or -1 */
char *job_read_at(int fd, uint64_t off, size_t n, size_t *got);
void job_progress_note(const char *id, char *buf, size_t len);
/* The last n bytes (at most) of a job's stream, NUL-ended, their count in
 * got; NULL when it is empty or not there. */
char *job_tail(const char *id, const char *stream, size_t n, size_t *got);
/* The job's own record (argv, cwd, tenant ...), or NULL. */
struct cJSON *job_info(const char *id);
/* "kept 7d and at most 1G of them": the jobs' retention, for messages. */
void job_terms(char *buf, size_t len);

/* job_result.c */
struct cJSON *job_result_object(const char *job_id, const char *workspace,
				const struct cJSON *status, uint64_t out_off, uint64_t err_off);
struct cJSON *job_result_logs(const char *job_id, const char *stream, uint64_t offset,
			      uint64_t limit, char *err, size_t errlen);
char *job_result_text(const struct cJSON *res);

/* job_made.c: before a run, what lists the files it made: for a run
 * under the quota's overlay, the jail's list of what it changed
 * (SR_WORKSPACE_CHANGES, STATE/made/ID.changes, named by job_env): 1 and
 * path ""; for a session's call or without the overlay, a snapshot of its
 * workspace's files (stat only), a file of STATE/made whose path goes in
 * path, which job_submit keeps under the job's id (STATE/made/ID, before
 * the job is stored): 0; -1 and path "" when it could not be made. After,
 * the files created or changed added to res (its workspace_id's): files
 * (JOB_MADE_SHOWN at most: path, size, change), files_not_listed,
 * files_deleted, files_cut. */
#define JOB_MADE_SHOWN 20
int job_made_snapshot(const char *ws, int session, char *path, size_t len);
void job_made(struct cJSON *res, const char *id);

/* The verdict file: SPOOL/run/ID/JOB_VERDICT_FILE, named to the runner in
 * SR_VERDICT_FILE. The runner opens it before the chain starts and passes
 * it to sr-exec (--report-fd), which writes "exec" before it executes the
 * program ("exec failed" after) and closes it for the program, and to
 * sr-jail's PID 1 (--report-fd), which adds "DST: quota of CAP reached"
 * lines after the program and all it started are dead; the typescript
 * runner's driver also writes JOB_VERDICT_TYPECHECK to it and closes it
 * before any of the code runs. The code never holds it open, so what the
 * file says the run's code cannot have written (job_result.c). */
#define JOB_VERDICT_FILE "verdict"
#define JOB_VERDICT_TYPECHECK "typecheck failed"

/* job_oom.c: a run that failed or was killed, under a memory limit, whose
 * stderr ends as a runtime's report of an allocation refused (Python's
 * MemoryError, Node.js's, V8's heap abort, C++'s std::bad_alloc): the
 * cause ("Python: MemoryError") in cause, 1; else 0. The program could
 * print the same, so this is the program's word, never a verdict: only
 * sr-limit's report makes a run "oom". The memory limit of sr-limit's
 * report lim (bytes, 0 for none). What to do, in h: for a run sr-limit
 * stopped for memory (oom), or one whose program reported cause. */
int job_oom_cause(const char *id, const struct cJSON *st, char *cause, size_t len);
double job_oom_limit(const struct cJSON *lim);
void job_oom_hint(char *h, size_t len, const struct cJSON *st, int oom, const char *cause);

/* job_retention.c */
void job_retention_sweep(void);
void job_retention_start(void);        /* the sweeper thread, with a retention */

#endif
