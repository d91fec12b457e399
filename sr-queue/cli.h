/* cli.h - sr-queue's commands: one file per command over the spool core
 * (and, for `run`, the worker), with the helpers they share in cli.c. */
#ifndef SQ_CLI_H
#define SQ_CLI_H

#include <getopt.h>
#include <stdint.h>
#include <sys/types.h>

#include "spool.h"

/* main.c */

/* cli.c: getopt_long over a command's arguments, collecting operands.
 * stop_after > 0: once that many operands were seen, the next operand (or
 * whatever follows "--") ends parsing; its index goes to *rest. A bad
 * option or a missing value is a usage error (sr_usage_option). */
typedef void (*sq_opt_fn)(void *ctx, int c, const char *arg);
int sq_parse_args(int argc, char **argv, const char *shortopts,
		  const struct option *lo, sq_opt_fn fn, void *ctx,
		  char **ops, int maxops, int stop_after, int *rest);

/* The options of the commands that look at jobs. */
struct sq_qopts {
	int json, has_timeout, has_max, has_older;
	uint64_t timeout_ns;    /* wait: give up; cancel: stop waiting */
	uint64_t offset, max_bytes, older_ns, keep;
	const char *stream, *state;
};
enum { SQ_Q_JSON = 256, SQ_Q_TIMEOUT, SQ_Q_STREAM, SQ_Q_OFFSET, SQ_Q_MAXB, SQ_Q_STATE,
       SQ_Q_OLDER, SQ_Q_KEEP };
void sq_query_opt(void *ctx, int c, const char *arg);
/* Parse SPOOL and, with want_id, ID (exit 100 when they are wrong), then
 * open the spool (exit 111 when it is not there). */
void sq_query_args(int argc, char **argv, const struct option *lo, struct sq_qopts *o,
		   int want_id, char **ops, struct sq_spool *sp);
void sq_spool_open(struct sq_spool *sp, const char *path, int create);   /* or exit 111 */
void sq_need_id(const char *s);
void sq_no_such_job(const struct sq_spool *sp, const char *id) __attribute__((noreturn));
void sq_no_such_job_exit(const struct sq_spool *sp, const char *id, int code)
	__attribute__((noreturn));
void sq_resolve_or_exit(struct sq_spool *sp, const char *id, struct sq_jstat *js);
void sq_print_status_line(const char *id, const struct sq_jstat *js);
/* The words the views put before each loss of a job (sq_job_losses). */
const char *sq_loss_label(const struct sq_loss *l);
int sq_print_json(const struct cJSON *obj);
int sq_print_state(const char *id, const struct sq_jstat *js, int json);
int sq_print_status_json(const char *id, const struct sq_jstat *js, int jobinfo);
int sq_print_counts(int json, const char *const *names, const unsigned long long *vals,
		    size_t n);

/* The commands: each returns the exit code. */
int sq_cmd_submit(int argc, char **argv);     /* submit.c */
int sq_cmd_run(int argc, char **argv);        /* run.c */
int sq_cmd_status(int argc, char **argv);     /* status.c */
int sq_cmd_list(int argc, char **argv);       /* status.c */
int sq_cmd_wait(int argc, char **argv);       /* wait.c */
int sq_cmd_logs(int argc, char **argv);       /* logs.c */
int sq_cmd_cancel(int argc, char **argv);     /* cancel.c */
int sq_cmd_gc(int argc, char **argv);         /* gc.c */
int sq_cmd_recover(int argc, char **argv);    /* recover.c */
int sq_cmd_land(int argc, char **argv);       /* land.c: --via, on the node */

#endif
