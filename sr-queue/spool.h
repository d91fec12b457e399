/* spool.h - sr-queue's spool core: the on-disk format of a spool.
 *
 * Spool layout (every directory 0700, every file 0600):
 *   SPOOL/tmp/ID      a job being submitted (flock held by the submitter)
 *   SPOOL/queue/ID    queued: job.jsonl [stdin]
 *   SPOOL/run/ID      claimed: flock held by its worker and supervisor
 *   SPOOL/done/ID     finished: job.jsonl (with the result line) [stdout]
 *                     [stderr]
 *   SPOOL/cancel/ID   a cancel request for a running job
 *   SPOOL/removed     the id of the latest-submitted job gc removed (one
 *                     line): an id not found and not newer was removed
 * Every rename of a job directory is made by the holder of its flock.
 * The spool, its subdirectories and every job must belong to the user and
 * be writable by nobody else, and nothing in them is opened through a
 * symbolic link: another user who could write there could plant a job
 * that we would run as us (see sq_open_private_dir).
 *
 * This layer knows neither the command line nor the worker: the commands
 * and the worker are built on it (and sr-mcp will be). It includes only
 * lib/'s sr.h. */
#ifndef SQ_SPOOL_H
#define SQ_SPOOL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct cJSON;
struct stat;

#define SQ_ID_LEN 32               /* 16 hex digits of time, 16 random */
#define SQ_TENANT_MAX 64
#define SQ_RESULT_RESERVE 2048     /* bytes kept free for the result line */
#define SQ_JOB_FILE "job.jsonl"    /* line 1 the job, line 2 its result */
#define SQ_STATS_MAX 16384         /* sr-limit stats kept, at most */
#define SQ_DEFAULT_MAX_OUTPUT (16ULL << 20)
#define SQ_DEFAULT_KILL_AFTER_MS 2000  /* --timeout's grace, as sr-limit's */
#define SQ_TMP_MIN_AGE_S 2         /* tmp/ leftovers younger than this stay */
#define SQ_WHY_MAX 96              /* room for the reason something is refused */
#define SQ_REFUSED (-2)            /* sq_open_private_dir: not ours alone */

/* wait(1)-style exit codes of `wait` besides the job's own code: 96-99,
 * which no sr tool exits with itself (a job that is a chain of them exits
 * 100, 111, 124, 126, 127 or 128+N on its own). */
enum {
	SQ_EXIT_NO_JOB = 96,
	SQ_EXIT_LOST = 97,
	SQ_EXIT_CANCELLED = 98,
	SQ_EXIT_WAIT_TIMEOUT = 99,
};
/* `logs`: it wrote what was kept, but some of what the job wrote to the
 * stream was lost (not stored, or gone since); a line says what and why. */
#define SQ_EXIT_OUTPUT_LOST 95

struct sq_news;
struct sq_spool {
	const char *path;
	int root, tmp, queue, run, done, cancel;
	struct sq_news *news;   /* sq_spool_watch's, or NULL (spool_wait.c) */
};

/* spool.c: the spool's directories, ids, and durable file helpers. */
int sq_spool_try_open(struct sq_spool *sp, const char *path, int create, char *why,
		      size_t len);
void sq_spool_close(struct sq_spool *sp);
char *sq_spool_subpath(const struct sq_spool *sp, const char *sub);   /* NULL: ENOMEM */
const char *sq_not_private(const struct stat *st, char *why, size_t len);
int sq_open_private_dir(int at, const char *name, char *why, size_t len);
int sq_exists_at(int dfd, const char *name);
int sq_fsync_dir(int dfd);
int sq_write_file_at(int dfd, const char *name, const void *buf, size_t len);
int sq_remove_tree_at(int dfd, const char *name);
int sq_same_file(int fd, int dfd, const char *name);
/* fn(dfd, name, ctx) for every entry of dfd not starting with '.'. */
typedef void (*sq_entry_fn)(int dfd, const char *name, void *ctx);
void sq_each_entry(int dfd, sq_entry_fn fn, void *ctx);
int sq_id_new(char id[SQ_ID_LEN + 1]);   /* 0, or -1 (errno) */
int sq_id_valid(const char *s);
int sq_tenant_valid(const char *s);
uint64_t sq_now_ms(void);       /* CLOCK_REALTIME, for the records */
void sq_crash_point(const char *name);
/* SPOOL/removed, under the spool's fd: raise the mark to id (0, or -1
 * errno); is id, not found, one that gc removed (1: not newer than the
 * mark, so most likely; 0: no)? */
int sq_removed_note(int root, const char *id);
int sq_removed_before(int root, const char *id);

/* spool_job.c: the job file (line 1 the job, line 2 its result). */
int sq_job_read_at(int dfd, const char *name, struct cJSON **job, struct cJSON **res);
int sq_job_file_check(int jobfd, char *why, size_t len);
int sq_job_write_at(int dfd, const struct cJSON *job);
int sq_job_has_result(int jobfd);
int sq_result_write(int jobfd, const struct cJSON *res);
struct cJSON *sq_result_new(const char *state, const char *reason);   /* NULL: ENOMEM */
int sq_result_exit_code(const struct cJSON *res);
const char *sq_json_str(const struct cJSON *obj, const char *key);
long long sq_json_num(const struct cJSON *obj, const char *key, long long dflt);
/* What was not kept of a finished job (res its result): per stream, bytes
 * it wrote that cannot be read (not stored: an error, or past
 * --max-output; stored but gone since), and sr-limit's report not kept.
 * size: stdout's and stderr's sizes now (sq_stream_sizes; -1 not there;
 * NULL, or SQ_SIZE_UNKNOWN: not looked at). The count of v used. */
enum sq_loss_kind { SQ_LOSS_CAP = 1, SQ_LOSS_ERROR, SQ_LOSS_GONE };
struct sq_loss {
	const char *what;       /* "stdout", "stderr", "limit" (sr-limit's report) */
	int kind;               /* the worst: cap (as asked), error, gone */
	long long bytes;        /* the job's bytes that cannot be read; -1 unknown */
	char why[200];          /* "No space left on device" ... */
	char text[400];         /* "34464 bytes of stdout not stored (No space ...)" */
};
#define SQ_LOSS_MAX 3
#define SQ_SIZE_UNKNOWN (-2LL)
void sq_stream_sizes(int jobfd, long long size[2]);
size_t sq_result_losses(const struct cJSON *res, const long long size[2],
			struct sq_loss v[SQ_LOSS_MAX]);
const char *sq_loss_kind_name(int kind);
struct cJSON *sq_losses_json(const struct sq_loss *v, size_t n);

/* spool_submit.c: storing a new job (sr-queue submit, sr-mcp). */
struct sq_new_job {
	const char *tenant;
	char *const *argv;       /* the program and its arguments, NULL-terminated */
	char *const *env;        /* NAME=VALUE, each name once */
	size_t nenv;
	const char *cwd;         /* absolute, resolved without following links */
	int stdin_fd;            /* read to its end; -1: stdin_data, if any */
	const void *stdin_data;
	size_t stdin_len;
	uint64_t max_output, retry, timeout_ms, kill_after_ms;
	mode_t umask;            /* the submitter's, applied to the job */
	/* Files outside the spool the job will read (sr-mcp's code), open
	 * for writing: fsynced before the job is queued, so that a job that
	 * survives a crash finds them whole. Their writeback is best started
	 * early (sync_file_range): then the job file's fsync carries them. */
	const int *deps;
	size_t ndeps;
};
struct cJSON *sq_job_record(const char *id, const struct sq_new_job *n);   /* NULL: ENOMEM */
int sq_job_store(struct sq_spool *sp, const char *id, const struct cJSON *job,
		 const struct sq_new_job *n, const char **what);

/* spool_state.c: where a job is. */
enum sq_where { SQ_W_NONE, SQ_W_QUEUE, SQ_W_RUN, SQ_W_DONE };
struct sq_jstat {
	enum sq_where where;
	int fd;                 /* the job directory, -1 when not found */
	const char *state;      /* queued running completed failed cancelled lost */
	struct cJSON *result;   /* the result line when finished */
};
/* Find a job, settling it if its worker died: 0, or -1 (errno ENOENT:
 * no such job; EPERM: refused, sq_job_refusal says which and why, for
 * the calling thread). */
int sq_job_resolve(struct sq_spool *sp, const char *id, struct sq_jstat *js);
#define SQ_JOB_REFUSAL_MAX (SQ_ID_LEN + 2 * SQ_WHY_MAX + 16)
extern _Thread_local char sq_job_refusal[SQ_JOB_REFUSAL_MAX];
void sq_jstat_free(struct sq_jstat *js);

/* spool_wait.c: waiting for a job to settle, the one wait of sr-queue and
 * sr-mcp. 0: settled; 1: still queued or running at the deadline
 * (timeout_ns 0: wait forever); 2: w->look ended the wait; -1: not found
 * (ENOENT; sq_job_missing says why) or error. *js is filled unless -1.
 * look, when set, is called after each look that finds the job queued or
 * running: non-zero ends the wait; it may lower *next_ms, the time to the
 * next look (at most a second: a worker that died is noticed so). */
struct sq_waiter {
	uint64_t timeout_ns;
	int (*look)(void *ctx, const struct sq_jstat *js, uint64_t *next_ms);
	void *ctx;
};
int sq_job_wait_with(struct sq_spool *sp, const char *id, const struct sq_waiter *w,
		     struct sq_jstat *js);
int sq_job_wait(struct sq_spool *sp, const char *id, uint64_t timeout_ns,
		struct sq_jstat *js);
/* For a process that waits for many jobs at once, from many threads: one
 * inotify watch on the spool's done/ for the process's life, read by a
 * thread of its own that wakes every wait (without it each wait takes a
 * watch of its own). When no watch can be had, waits look every 50 ms,
 * say is told once (its message names the spool), and the watch is tried
 * again every 10 s. 0, or -1 (ENOMEM). */
int sq_spool_watch(struct sq_spool *sp, void (*say)(const char *msg));

/* spool_query.c: status, cancel and list, for the commands and sr-mcp.
 * A job's status: {"id", "state", its record's facts when jobinfo, its
 * result's fields, "lost"}; NULL (ENOMEM). */
struct cJSON *sq_status_json(const char *id, const struct sq_jstat *js, int jobinfo);
/* What a finished job lost (sq_result_losses, its files looked at now). */
size_t sq_job_losses(const struct sq_jstat *js, struct sq_loss v[SQ_LOSS_MAX]);
/* After a failed resolve, wait or cancel (errno theirs): 1 no such job,
 * 0 refused or an error; what, in msg. */
int sq_job_missing(const struct sq_spool *sp, const char *id, char *msg, size_t len);
/* Cancel a job: a queued one never starts; a running one is killed by its
 * worker, its end waited for timeout_ns at most. *js is filled unless -1.
 * SQ_CANCEL_DONE: the job is cancelled (now or before); SQ_CANCEL_ENDED:
 * it had ended otherwise (js->state says how); SQ_CANCEL_PENDING: asked,
 * but still queued or running at the deadline; -1: msg says what failed
 * (errno ENOENT: no such job). */
enum { SQ_CANCEL_DONE = 0, SQ_CANCEL_ENDED = 1, SQ_CANCEL_PENDING = 2 };
int sq_job_cancel(struct sq_spool *sp, const char *id, uint64_t timeout_ns,
		  struct sq_jstat *js, char *msg, size_t len);
/* Every job whose state is want (NULL or "all", "queued", "running",
 * "finished" or a final state): fn(id, js, ctx) for each, in the order
 * queue/, run/, done/; a job refused (not ours alone) is fn(id, NULL, ctx),
 * sq_job_refusal saying why. */
typedef void (*sq_list_fn)(const char *id, const struct sq_jstat *js, void *ctx);
int sq_list_state_known(const char *want);
void sq_job_list(struct sq_spool *sp, const char *want, sq_list_fn fn, void *ctx);

/* spool_settle.c: moving and settling jobs; recovery after a crash. */
enum sq_settle { SQ_S_FINISHED = 1, SQ_S_CANCELLED, SQ_S_LOST, SQ_S_REQUEUED };
int sq_job_move(const char *id, int from, int to);
int sq_read_attempts(int jobfd);
int sq_cancel_ask(struct sq_spool *sp, const char *id);
int sq_job_finish_cancelled(struct sq_spool *sp, const char *id, int fd, int from);
int sq_job_settle_orphan(struct sq_spool *sp, const char *id, int fd, const char *why);
struct sq_recover_counts { unsigned lost, requeued, finished, cancelled, tmp, busy; };
void sq_recover_all(struct sq_spool *sp, struct sq_recover_counts *rc);
unsigned sq_tmp_cleanup(struct sq_spool *sp);

#endif
