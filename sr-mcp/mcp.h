/* mcp.h - sr-mcp: a stdio MCP server whose tools run code as sr-queue
 * jobs, each through a runner that composes sr-limit, sr-jail and
 * sr-exec. sr-mcp isolates nothing itself.
 *
 *   main.c     options and environment, the read loop, shutdown
 *   proto.c    JSON-RPC framing and the protocol: both eras, errors
 *   tools.c    the tool table: schemas, argument checks, dispatch
 *   jobs.c     sr-queue: submit (the spool core), wait, status, cancel,
 *              list; the worker
 *   result.c   a job's result for the model: status, output, limits
 *   runners.c  the runners directory: languages and versions
 *   spawn.c    running sr-queue and runners, capturing their output
 *   util.c     the defaults, the log line, allocation
 *   files.c    the workspace file tools, following no link
 *   packages.c install_packages: pip and npm into a workspace, in a jail
 *   retention.c  idle workspaces removed (--workspace-ttl); finished jobs
 *              and their code removed (--job-ttl, --job-space)
 *   images.c   the images a run leaves in /workspace/outputs, returned
 *   transfer.c export_workspace, import_files: host directories
 *   resources.c MCP resources: workspace files and job outputs
 *   utf8.c     every line out made UTF-8
 */
#ifndef SR_MCP_H
#define SR_MCP_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct cJSON;

#define MCP_NAME "sr-mcp"
#define MCP_LINE_MAX (4U << 20)        /* a request line, at most */
#define MCP_RESULT_MAX (1U << 20)      /* a whole result, at most (Claude Desktop) */
#define MCP_MAX_INFLIGHT 64            /* requests served at once */
#define MCP_PROGRESS_S 5               /* seconds between progress notifications */

/* The administrator's settings: options, SR_MCP_* variables, defaults. */
struct config {
	char *state_dir;        /* resolved, no symbolic link */
	char *spool;            /* STATE/spool unless --spool */
	char *workspaces;       /* STATE/workspaces */
	char *code_dir;         /* STATE/code: the code of each run */
	char *runners_dir;
	char *tools_dir;        /* where sr-queue, sr-limit ... are (PATH head) */
	int external_worker;    /* 1: someone else runs `sr-queue run` */
	unsigned jobs;          /* the worker's -j */
	char *cpu_budget;       /* the worker's --cpu-budget, "" for none */
	char *via;              /* the worker's --via launcher, NULL: runs here */
	uint64_t timeout_ms, timeout_max_ms;
	uint64_t memory, memory_max;
	unsigned pids;
	uint64_t wait_ms, wait_max_ms;
	size_t max_chars;       /* text returned per result, at most */
	int net_full;           /* --network full: runs reach the network */
	int net_install;        /* --network install or full: install_packages does */
	char *pip_find_links;   /* --pip-find-links: a directory of wheels, or NULL */
	uint64_t ws_quota;      /* --workspace-quota, bytes; 0: off */
	int ws_quota_set;       /* given, not the default: required then */
	uint64_t ws_inodes;     /* --workspace-inodes, with the quota; 0: off */
	uint64_t ws_ttl_ms;     /* --workspace-ttl; 0: off */
	uint64_t job_ttl_ms;    /* --job-ttl: finished jobs kept that long; 0: off */
	uint64_t job_space;     /* --job-space: finished jobs' room, bytes; 0: off */
	int compat_sandrun;
	mode_t umask;           /* the user's, recorded with each job */
	char **host_dirs;       /* --host-dir: export and import, NULL-terminated */
};
extern struct config cfg;

/* One language: a runner file. */
struct runner {
	char name[65];          /* sanitised: [a-z0-9_-] */
	char *path;
	char *version;          /* first line of `RUNNER --version`, or NULL */
};
extern struct runner *runner_all;
extern size_t runner_count;

/* proto.c */
enum proto_era { PROTO_LEGACY, PROTO_MODERN };
struct proto_batch;
struct proto_req {
	struct cJSON *id;       /* a copy; NULL for a notification */
	char *method;
	struct cJSON *params;   /* a copy, or NULL */
	enum proto_era era;
	char version[16];       /* the protocol version in force */
	struct cJSON *progress; /* params._meta.progressToken, a copy, or NULL */
	char tenant[65];
	volatile int cancelled; /* notifications/cancelled came for it */
	char job_id[33];        /* the job it waits for, once submitted */
	int task_legacy;        /* tools/call with params.task (2025-11-25) */
	int task_modern;        /* the client takes io.modelcontextprotocol/tasks */
	struct proto_batch *batch; /* the batch it came in (its answer goes there), or NULL */
};
void proto_line(char *line, size_t len);     /* one line from stdin */
void proto_line_too_long(void);
void proto_result(struct proto_req *r, struct cJSON *result);   /* takes result */
void proto_error(struct proto_req *r, int code, const char *msg, struct cJSON *data);
void proto_progress(struct proto_req *r, double progress, const char *message);
void proto_req_free(struct proto_req *r);
/* The job a call waits for ("" none): a cancel of the call kills it. */
void proto_req_set_job(struct proto_req *r, const char *job_id);
/* Requests that wait (tools/call): registered so that a cancel finds them. */
void proto_inflight_add(struct proto_req *r);
void proto_inflight_del(struct proto_req *r);
int proto_inflight_count(void);
/* At the end: calls and cancels not done yet; the answers of batches
 * still going written out (what is there). */
int proto_pending(void);
void proto_flush(void);

/* tools.c */
void tool_init(void);
struct cJSON *tool_list(enum proto_era era);
void tool_call(struct proto_req *r);              /* on its own thread */
const char *tool_instructions(void);
struct cJSON *tool_result(struct cJSON *res, const char *text, int is_error);
/* Answers of a tool: a result (takes res), an isError result with text
 * only, a bad argument (-32602). Argument readers: 1 found and good, 0
 * absent, -1 wrong (answered already). */
void tool_reply(struct proto_req *r, struct cJSON *res, const char *text, int is_error);
void tool_error(struct proto_req *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tool_bad_args(struct proto_req *r, const char *tool, const char *what);
int tool_arg_str(struct proto_req *r, const char *tool, const struct cJSON *args, const char *k,
		 const char **out);
int tool_arg_num(struct proto_req *r, const char *tool, const struct cJSON *args, const char *k,
		 double min, double *out);
/* The result cap less room for the envelope (id, _meta); a result's
 * size as sent (tool_json_size), and a string's as a JSON string. */
#define TOOL_RESULT_BUDGET (MCP_RESULT_MAX - 16384)
size_t tool_json_size(const struct cJSON *v);
size_t tool_json_str_size(const char *s);
struct cJSON *tool_run_result(const char *id, const char *ws, const struct cJSON *st,
			 uint64_t out_off, uint64_t err_off);

/* tasks.c: a task is an sr-queue job; both flavours of MCP tasks. */
struct cJSON *proto_task_created(const struct proto_req *r, const char *id, const struct cJSON *st);
void proto_tasks_call(struct proto_req *r);              /* tasks/get, result, list, cancel, update */

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
	int net;                 /* the run reaches the network */
	const char *const *env_extra;  /* KEY=VALUE for the runner, NULL-ended, or NULL */
};
/* Submit; the id in job_id. 0, or -1 with a message in err. */
int job_submit(const struct run_spec *s, char job_id[33], char *err, size_t errlen);
/* Wait until the job ends or ms pass (0: do not wait); the status object
 * from `sr-queue status --json`, or NULL with err set. */
struct cJSON *job_wait(struct proto_req *r, const char *id, uint64_t ms, char *err, size_t errlen);
int job_cancel(const char *id, char *err, size_t errlen);
struct cJSON *job_list(char *err, size_t errlen);
void job_worker_ensure(void);
/* The state directory made (on first use) and the sandbox found to work:
 * 0, or -1 with what is wrong and how to fix it in err. */
int job_state_ready(char *err, size_t errlen);
const char *job_memory_via(void);                /* "cgroup" or "rlimit data" */
int job_id_ok(const char *s);                    /* a job id: 32 hex digits */
int ws_id_ok(const char *s);
int ws_make(char *id, size_t idlen, int create, char *err, size_t errlen);
/* What to say of a job not found: removed by the retention, or no such. */
void job_not_found(const char *id, char *err, size_t errlen);

/* result.c */
struct cJSON *job_result_object(const char *job_id, const char *workspace,
			    const struct cJSON *status, uint64_t out_off, uint64_t err_off);
struct cJSON *job_result_logs(const char *job_id, const char *stream, uint64_t offset,
			  uint64_t limit, char *err, size_t errlen);
char *job_result_text(const struct cJSON *res);
void job_progress_note(const char *id, char *buf, size_t len);
/* The job's own record (argv, cwd, tenant ...), or NULL. */
struct cJSON *job_info(const char *id);
/* Make bytes safe to hand a model: invalid UTF-8 and NUL become U+FFFD,
 * terminal control characters a visible escape. Sets *replaced. */
char *text_clean(const char *s, size_t len, int *replaced);

/* files.c: the workspace file tools; each answers its call. Every path is
 * looked up beneath the workspace by openat2 (RESOLVE_BENEATH,
 * RESOLVE_NO_SYMLINKS, RESOLVE_NO_MAGICLINKS); no link is followed. */
void files_list_workspaces(struct proto_req *r, const struct cJSON *args);
void files_delete_workspace(struct proto_req *r, const struct cJSON *args);
void files_list(struct proto_req *r, const struct cJSON *args);
void files_read(struct proto_req *r, const struct cJSON *args);
void files_write(struct proto_req *r, const struct cJSON *args);
void files_edit(struct proto_req *r, const struct cJSON *args);
void files_delete_path(struct proto_req *r, const struct cJSON *args);
/* Its confined lookups, for images.c too: fs_openat2 adds O_NOFOLLOW,
 * O_CLOEXEC and RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
 * RESOLVE_NO_MAGICLINKS; ws_open opens a workspace's directory (err set
 * on failure); fs_file_open opens a regular file of one link, O_NONBLOCK
 * (err set on failure); fs_read_fd reads at most size bytes; fs_walk walks
 * a directory (its descriptor consumed) in name order, following no
 * link, without recursion and with a bounded number of descriptors. */
#define IMAGES_MAX (700U << 10)  /* an image block, at most (base64 grows it 4/3) */
struct stat;
struct fs_walk {
	/* called for each entry; rel is the path from the walk's start */
	void (*fn)(struct fs_walk *w, int dirfd, const char *name, const char *rel,
		   const struct stat *st);
	int recursive;
	size_t rel_max;       /* a longer rel is cut (0: 4095 bytes) */
	int skip_cut;         /* an entry whose rel is cut is not given */
	int no_rel;           /* rel is always "": no path is kept */
	size_t seen;
	int cut;              /* WALK_MAX reached, a rel cut, the walk failed */
	int rel_cut;          /* this call's rel is cut: its deepest ancestor's */
	int stop;             /* the callback has enough */
	void *ctx;
};
int tool_arg_ws(struct proto_req *r, const char *tool, const struct cJSON *args, const char **ws);
int tool_arg_bool(struct proto_req *r, const char *tool, const struct cJSON *args, const char *k, int *out);
int fs_openat2(int dirfd, const char *path, int flags, mode_t mode);
void fs_path_why(char *buf, size_t len, const char *path, int e);
int ws_open(const char *id, int create, char *err, size_t len);
const char *fs_rel_path(const char *p, char *err, size_t len);
const char *fs_split(const char *path, char *dir, size_t len);
int fs_dir_open(int ws, const char *dir, int create);
int fs_file_open(int ws, const char *path, const char *shown, int flags, struct stat *st,
	      char *err, size_t len);
char *fs_read_fd(int fd, size_t size, size_t *got);
int fs_write_at(int fd, const void *buf, size_t n, off_t off);
void fs_walk(struct fs_walk *w, int fd0);  /* takes fd0; no recursion, any depth */
char *text_base64(const unsigned char *p, size_t n);
const char *images_type(const unsigned char *p, size_t n);


/* images.c: the images a run wrote to /workspace/outputs, as image blocks
 * after the result's text (sr-mcp(1), IMAGES). images_outdir makes the
 * directory before a run; images_collect lists a finished run's images
 * in res (its structuredContent) and returns their blocks, or NULL;
 * images_note is their lines for the text block (malloc'd, or NULL);
 * images_attach appends the blocks to a result's content (takes them). */
void images_outdir(const char *workspace);
struct cJSON *images_collect(struct cJSON *res, const struct cJSON *status);
char *images_note(const struct cJSON *res);
void images_attach(struct cJSON *result, struct cJSON *blocks);

/* packages.c */
extern const char install_packages_def[];   /* its schema, for tools/list */
void install_packages(struct proto_req *r, const struct cJSON *args);
const char *tool_network_policy(void);            /* none, install or full */
/* Is SPEC a package spec MANAGER ("pip", "npm") takes? 1, or 0 with why. */
int tool_package_spec_ok(const char *manager, const char *spec, char *why, size_t len);
/* A queued or running job of workspace ws: its id in job, 1; 0 none;
 * -1 when the jobs could not be listed (treat it as in use). */
int job_ws_busy(const char *ws, char job[33]);

/* retention.c */
/* STATE/workspaces.lock held (shared by a use, exclusive by a sweep):
 * an fd for ws_release, or -1 (then nothing is held). */
int ws_hold(int exclusive);
void ws_release(int fd);
void ws_touch(const char *id);          /* a run or a write: used now */
time_t ws_last_used(const char *id);
/* A workspace's size for its quota, from its size cache (retention.c):
 * the cache's path (for sr-jail --quota-cache, its directory made; -1 and
 * "" when it cannot be), the size, bytes and inodes (measured when the
 * cache has none; -1 when a part could not be read),
 * what a change of a file tool added or removed, a change of unknown
 * size (the next use measures), and a workspace removed. */
int ws_size_path(const char *id, char *buf, size_t len);
struct sr_usage;
struct sr_delta;
int ws_size(const char *id, int wfd, struct sr_usage *u);
void ws_size_add(const char *id, int wfd, const struct sr_delta *d);
void ws_size_forget(const char *id);
void ws_size_remove(const char *id);   /* the workspace is gone */
void job_retention_sweep(void);
/* "kept 7d and at most 1G of them": the jobs' retention, for messages. */
void job_retention_terms(char *buf, size_t len);
void ws_quota_probe(void);                 /* in job_state_ready: the default quota works? */
void job_retention_start(void);             /* the sweeper thread, with a retention */

/* transfer.c */
void transfer_export(struct proto_req *r, const struct cJSON *args);
void transfer_import(struct proto_req *r, const struct cJSON *args);

/* resources.c: resources/list, resources/templates/list, resources/read */
void resources_call(struct proto_req *r);             /* on its own thread */

/* runners.c */
void runner_load(void);
const struct runner *runner_find(const char *name);
void runner_versions(void);

/* spawn.c */
/* Run argv (PATH searched), stdin from /dev/null, and capture at most
 * max bytes of its stdout (NUL-terminated, malloc'd, *out). Its stderr
 * goes to ours, or with quiet to /dev/null. The child dies with this
 * thread (PR_SET_PDEATHSIG). Returns the exit status as
 * sr_status_to_exit gives it, or -1. */
int spawn_capture(char *const argv[], char **out, size_t max, int quiet);
/* The same, in the background, detached from us for good (a worker). */
int spawn_detached(char *const argv[], int keep_fd, const char *log);
/* The same with its streams wired: stdin from in_fd (-1: /dev/null);
 * stdout, and stderr unless err is NULL (then ours, or /dev/null with
 * quiet), handed to the sinks as they come. A sink returns 0 to go on,
 * -1 to stop: the child is killed (SIGKILL; the chain's PR_SET_PDEATHSIG
 * takes the rest), as it is when *stop becomes non-zero. */
struct spawn_io {
	int in_fd;
	int (*out)(void *ctx, const char *buf, size_t n);   /* NULL: /dev/null */
	int (*err)(void *ctx, const char *buf, size_t n);
	void *out_ctx, *err_ctx;
	int quiet;
	volatile int *stop;
};
int spawn_io(char *const argv[], const struct spawn_io *io);
void spawn_kill_all(void);

/* utf8.c: s (n bytes, NUL-terminated) with each ill-formed UTF-8 sequence
 * and each raw control character (a JSON string holds none) made U+FFFD:
 * s itself when there is none, else a new string (s freed), or NULL; *n
 * its length. */
char *text_utf8(char *s, size_t *n);

/* util.c */
void cfg_defaults(void);
void mcp_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xstrdup(const char *s);
void *xmalloc(size_t n);

#endif
