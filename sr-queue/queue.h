/* queue.h - sr-queue internals: the spool, jobs, and the subcommands.
 *
 * Spool layout (every directory 0700, every file 0600):
 *   SPOOL/tmp/ID      a job being submitted (flock held by the submitter)
 *   SPOOL/queue/ID    queued: job.jsonl [stdin]
 *   SPOOL/run/ID      claimed: flock held by its worker and supervisor
 *   SPOOL/done/ID     finished: job.jsonl (with the result line) [stdout]
 *                     [stderr]
 *   SPOOL/cancel/ID   a cancel request for a running job
 * Every rename of a job directory is made by the holder of its flock.
 * The spool, its subdirectories and every job must belong to the user and
 * be writable by nobody else, and nothing in them is opened through a
 * symbolic link: another user who could write there could plant a job
 * that we would run as us (see open_private_dir). */
#ifndef SR_QUEUE_H
#define SR_QUEUE_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct cJSON;

#define ID_LEN 32               /* 16 hex digits of time, 16 random */
#define TENANT_MAX 64
#define RESULT_RESERVE 2048     /* bytes kept free for the result line */
#define JOB_FILE "job.jsonl"     /* line 1 the job, line 2 its result */
#define STATS_MAX 16384         /* sr-limit stats kept, at most */
#define DEFAULT_MAX_OUTPUT (16ULL << 20)
#define TMP_MIN_AGE_S 2         /* tmp/ leftovers younger than this stay */
#define WHY_MAX 96              /* room for the reason something is refused */
#define REFUSED (-2)            /* open_private_dir: not ours alone */

/* wait(1)-style exit codes of `wait` besides the job's own code. */
enum {
	EXIT_LOST = 97,
	EXIT_CANCELLED = 98,
	EXIT_WAIT_TIMEOUT = 99,
};

struct spool {
	const char *path;
	int root, tmp, queue, run, done, cancel;
};

/* main.c */
extern mode_t user_umask;       /* the caller's umask; sr-queue uses 077 */
void print_usage(void);

/* spool.c */
void spool_open(struct spool *sp, const char *path, int create);
void spool_close(struct spool *sp);
struct stat;
const char *not_private(const struct stat *st, char *why, size_t len);
int open_private_dir(int at, const char *name, char *why, size_t len);
int exists_at(int dfd, const char *name);
char *spool_subpath(const struct spool *sp, const char *sub);
void id_new(char id[ID_LEN + 1]);
int id_valid(const char *s);
void need_id(const char *s);
int tenant_valid(const char *s);
uint64_t now_ms(void);
void crash_point(const char *name);
int fsync_dir(int dfd);
int write_file_at(int dfd, const char *name, const void *buf, size_t len);
int remove_tree_at(int dfd, const char *name);
int same_file(int fd, int dfd, const char *name);
typedef void (*entry_fn)(struct spool *sp, int dfd, const char *name, void *ctx);
void each_entry(struct spool *sp, int dfd, entry_fn fn, void *ctx);

/* result.c: the job file. */
int job_read_at(int dfd, const char *name, struct cJSON **job, struct cJSON **res);
int job_file_check(int jobfd, char *why, size_t len);
int job_write_at(int dfd, const struct cJSON *job);
int job_has_result(int jobfd);
int result_write(int jobfd, const struct cJSON *res);
struct cJSON *result_new(const char *state, const char *reason);
int result_exit_code(const struct cJSON *res);
const char *json_str(const struct cJSON *obj, const char *key);
long long json_num(const struct cJSON *obj, const char *key, long long dflt);

/* state.c: finding a job, settling a dead worker's job. */
enum where { W_NONE, W_QUEUE, W_RUN, W_DONE };
struct jstat {
	enum where where;
	int fd;                 /* the job directory, -1 when not found */
	const char *state;      /* queued running completed failed cancelled lost */
	struct cJSON *result;   /* the result line when finished */
};
/* -1 with errno EPERM: the job is refused, job_refusal says which and why. */
int job_resolve(struct spool *sp, const char *id, struct jstat *js);
extern char job_refusal[];
void jstat_free(struct jstat *js);
enum settle { S_FINISHED = 1, S_CANCELLED, S_LOST, S_REQUEUED };
int job_settle_orphan(struct spool *sp, const char *id, int fd, const char *why);
int job_move(struct spool *sp, const char *id, int from, int to);
int read_attempts(int jobfd);
int job_finish_cancelled(struct spool *sp, const char *id, int fd, int from);
struct recover_counts { unsigned lost, requeued, finished, cancelled, tmp, busy; };
void recover_all(struct spool *sp, struct recover_counts *rc);
unsigned tmp_cleanup(struct spool *sp);

/* opts.c: getopt_long over a subcommand's arguments, collecting operands.
 * stop_after > 0: once that many operands were seen, the next operand (or
 * whatever follows "--") ends parsing; its index goes to *rest. */
typedef void (*opt_fn)(void *ctx, int c, const char *arg);
int parse_args(int argc, char **argv, const char *shortopts,
	       const struct option *lo, opt_fn fn, void *ctx,
	       char **ops, int maxops, int stop_after, int *rest);
struct qopts {
	int json, has_timeout, has_max, has_older;
	uint64_t timeout_ns, offset, max_bytes, older_ns, keep;
	const char *stream, *state;
};
enum { Q_JSON = 256, Q_TIMEOUT, Q_STREAM, Q_OFFSET, Q_MAXB, Q_STATE, Q_OLDER, Q_KEEP };
void query_opt(void *ctx, int c, const char *arg);
/* Parse SPOOL and, with want_id, ID (exit 100 when they are wrong), then
 * open the spool (exit 111 when it is not there). */
void query_args(int argc, char **argv, const struct option *lo, struct qopts *o,
		int want_id, char **ops, struct spool *sp);
void no_such_job(const struct spool *sp, const char *id) __attribute__((noreturn));
void resolve_or_exit(struct spool *sp, const char *id, struct jstat *js);
struct cJSON *status_json(const char *id, const struct jstat *js, int jobinfo);
void print_status_line(const char *id, const struct jstat *js);
int print_json(const struct cJSON *obj);

/* fair.c: the in-memory index of queued jobs, by tenant. */
struct tenant {
	char name[TENANT_MAX + 1];
	char (*heap)[ID_LEN + 1];
	size_t n, cap;
	int64_t tokens;         /* CPU ns left in the budget; may go negative */
	uint64_t refill_ns;     /* monotonic time of the last refill */
};
struct fair {
	struct tenant *t;
	size_t nt, cap, rr;
	uint64_t budget_ns, window_ns;  /* budget_ns 0: no budget */
};
void fair_init(struct fair *f, uint64_t budget_ns, uint64_t window_ns);
void fair_free(struct fair *f);
void fair_add(struct fair *f, const char *tenant, const char *id);
void fair_clear(struct fair *f);
size_t fair_count(const struct fair *f);
int fair_pick(struct fair *f, uint64_t now, char id[ID_LEN + 1], size_t *ti,
	      uint64_t *wait_ns);
void fair_charge(struct fair *f, size_t ti, uint64_t cpu_ns, uint64_t now);
int parse_budget(const char *s, uint64_t *budget, uint64_t *window);

/* keeper.c: the per-job supervisor, forked by the worker. */
enum fail_stage { FS_NONE, FS_JOB, FS_STDIN, FS_FILES, FS_CWD, FS_EXEC, FS_SETUP };
struct report {
	int32_t stage;          /* FS_NONE: the job ran */
	int32_t err;            /* errno of a failed stage */
	int32_t status;         /* wait status of the job's main process */
	int32_t killed;         /* 1 by request (cancel, stop), 2 timeout */
	int32_t out_err, err_err;
	uint64_t started_ms, finished_ms, wall_ns, user_ns, sys_ns;
	uint64_t out_stored, out_total, err_stored, err_total;
	uint32_t stats_len;     /* that many bytes of sr-limit stats follow */
	uint32_t pad;
};
pid_t keeper_start(int jobfd, const char *id, int *repfd);

/* the subcommands */
int cmd_submit(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_wait(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_logs(int argc, char **argv);
int cmd_cancel(int argc, char **argv);
int cmd_gc(int argc, char **argv);
int cmd_recover(int argc, char **argv);

/* wait.c: block until a job settles (also used by cancel). */
int wait_final(struct spool *sp, const char *id, uint64_t timeout_ns,
	       struct jstat *js);

#endif
