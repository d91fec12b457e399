/* cli.c - what the commands share: option parsing, and printing a job's
 * state as a line or as JSON.
 *
 * getopt_long with a leading "+" stops at the first operand; we note the
 * operand and resume after it, so options may come before or after SPOOL
 * and ID whatever POSIXLY_CORRECT says, and a job's own argv (after "--"
 * or after the operands `submit` wants) is never parsed. */
#include <cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "spool.h"
#include "usage.h"
#include "sr.h"

int sq_parse_args(int argc, char **argv, const char *shortopts,
		  const struct option *lo, sq_opt_fn fn, void *ctx,
		  char **ops, int maxops, int stop_after, int *rest)
{
	char spec[64];
	int nops = 0;
	snprintf(spec, sizeof spec, "+:%s", shortopts);
	optind = 0; /* reinitialise getopt */
	opterr = 0;
	if (rest)
		*rest = argc;
	while (optind < argc) {
		int before = optind ? optind : 1;
		int c = getopt_long(argc, argv, spec, lo, NULL);
		if (c == '?' || c == ':')
			sr_usage_option(argc, argv, c);
		if (c != -1) {
			fn(ctx, c, optarg);
			continue;
		}
		int dashdash = optind == before + 1 && strcmp(argv[before], "--") == 0;
		for (; optind < argc; optind++) {
			if (stop_after > 0 && nops >= stop_after) {
				*rest = optind;
				return nops;
			}
			if (nops >= maxops)
				sr_usage("%s: unexpected argument '%s'", argv[0], argv[optind]);
			ops[nops++] = argv[optind];
			if (!dashdash) {
				optind++;
				break;
			}
		}
	}
	return nops;
}

void sq_query_opt(void *ctx, int c, const char *arg)
{
	struct sq_qopts *o = ctx;
	switch (c) {
	case SQ_Q_JSON: o->json = 1; break;
	case SQ_Q_TIMEOUT:
		o->timeout_ns = sr_opt_duration_ns("--timeout", arg);
		o->has_timeout = 1;
		break;
	case SQ_Q_STREAM:
		if (strcmp(arg, "stdout") != 0 && strcmp(arg, "stderr") != 0)
			sr_usage_value("--stream", "stream", arg, "stdout or stderr");
		o->stream = arg;
		break;
	case SQ_Q_OFFSET: o->offset = sr_opt_count("--offset", arg, UINT64_MAX / 2); break;
	case SQ_Q_MAXB:
		o->max_bytes = sr_opt_size("--max-bytes", arg);
		o->has_max = 1;
		break;
	case SQ_Q_STATE: o->state = arg; break;
	case SQ_Q_OLDER:
		o->older_ns = sr_opt_duration_ns("--older-than", arg);
		o->has_older = 1;
		break;
	case SQ_Q_KEEP: o->keep = sr_opt_count("--keep", arg, UINT64_MAX / 2); break;
	case 'h': sq_print_usage(); exit(0);
	}
}

void sq_query_args(int argc, char **argv, const struct option *lo, struct sq_qopts *o,
		   int want_id, char **ops, struct sq_spool *sp)
{
	int want = want_id ? 2 : 1;
	if (sq_parse_args(argc, argv, "h", lo, sq_query_opt, o, ops, want, 0, NULL) != want)
		sr_usage("%s: want SPOOL%s", argv[0], want_id ? " ID" : "");
	if (want_id)
		sq_need_id(ops[1]);
	sq_spool_open(sp, ops[0], 0);
}

/* The spool, or the program ends (111) naming why. */
void sq_spool_open(struct sq_spool *sp, const char *path, int create)
{
	char why[PATH_MAX + 200];
	if (sq_spool_try_open(sp, path, create, why, sizeof why) < 0)
		sr_fatal(SR_EXIT_SYS, "%s", why);
}

void sq_need_id(const char *s)
{
	char want[64];
	snprintf(want, sizeof want, "%d lowercase hex digits", SQ_ID_LEN);
	if (!sq_id_valid(s))
		sr_usage_value("ID", "job id", s, want);
}

int sq_print_json(const cJSON *obj)
{
	char *s = cJSON_PrintUnformatted(obj);
	if (!s)
		sr_fatal(SR_EXIT_SYS, "unable to allocate");
	int r = puts(s) < 0 || fflush(stdout) != 0 ? SR_EXIT_SYS : 0;
	free(s);
	return r;
}

/* "output lost", "output cut" (--max-output's cap, as asked) or "report
 * lost": what the views print before a loss's text. */
const char *sq_loss_label(const struct sq_loss *l)
{
	return !strcmp(l->what, "limit") ? "report lost" :
	       l->kind == SQ_LOSS_CAP ? "output cut" : "output lost";
}

/* ", output lost: 34464 bytes of stdout not stored (...)", one clause
 * per loss. */
static void print_losses(const struct sq_jstat *js)
{
	struct sq_loss lv[SQ_LOSS_MAX];
	size_t n = sq_job_losses(js, lv);
	for (size_t i = 0; i < n; i++)
		printf(", %s: %s", sq_loss_label(&lv[i]), lv[i].text);
}

/* "ID STATE [exit N|signal N|timeout|REASON: ERROR][, output lost: ...]",
 * "ID lost (WHY)" */
void sq_print_status_line(const char *id, const struct sq_jstat *js)
{
	const cJSON *r = js->result;
	const char *reason = sq_json_str(r, "reason"), *error = sq_json_str(r, "error");
	char detail[1024] = "";     /* an error is at most 800 bytes (--via's) */
	if (r && strcmp(js->state, "completed") == 0) {
		if (reason && strcmp(reason, "exit") == 0)
			snprintf(detail, sizeof detail, " exit %lld",
				 sq_json_num(r, "exit_code", -1));
		else if (reason && strcmp(reason, "signal") == 0)
			snprintf(detail, sizeof detail, " signal %lld",
				 sq_json_num(r, "signal", 0));
		else if (reason)
			snprintf(detail, sizeof detail, " %s", reason);
	} else if (r && strcmp(js->state, "failed") == 0) {
		snprintf(detail, sizeof detail, " %s: %s", reason ? reason : "?",
			 error ? error : "?");
	} else if (r && strcmp(js->state, "lost") == 0 && error) {
		snprintf(detail, sizeof detail, " (%s)", error);   /* why it is lost */
	}
	printf("%s %s%s", id, js->state, detail);
	print_losses(js);
	printf("\n");
}

/* Resolve or exit: 1 when there is no such job, 111 on a system error. */
void sq_resolve_or_exit(struct sq_spool *sp, const char *id, struct sq_jstat *js)
{
	if (sq_job_resolve(sp, id, js) < 0)
		sq_no_such_job(sp, id);
}

/* After sq_job_resolve failed: exit 1 when there is no such job, else 111
 * (also when the job is refused: not ours alone, or a symbolic link). */
void sq_no_such_job(const struct sq_spool *sp, const char *id)
{
	sq_no_such_job_exit(sp, id, SR_EXIT_SOFT);
}

/* The same, exiting code when there is no such job (wait: 96, for 1 may
 * be the job's own); sq_job_missing says why. */
void sq_no_such_job_exit(const struct sq_spool *sp, const char *id, int code)
{
	char msg[SQ_JOB_REFUSAL_MAX + PATH_MAX + 300];
	int none = sq_job_missing(sp, id, msg, sizeof msg);
	sr_fatal(none ? code : SR_EXIT_SYS, "%s", msg);
}

/* What wait --json and cancel print. */
int sq_print_state(const char *id, const struct sq_jstat *js, int json)
{
	if (!json) {
		sq_print_status_line(id, js);
		return fflush(stdout) == 0 ? 0 : SR_EXIT_SYS;
	}
	return sq_print_status_json(id, js, 1);
}

/* sq_status_json printed: 0, or 111. */
int sq_print_status_json(const char *id, const struct sq_jstat *js, int jobinfo)
{
	cJSON *j = sq_status_json(id, js, jobinfo);
	if (!j)
		sr_fatal(SR_EXIT_SYS, "unable to allocate");
	int r = sq_print_json(j);
	cJSON_Delete(j);
	return r;
}

/* "NAME N, NAME N" or a JSON object: what gc and recover print. */
int sq_print_counts(int json, const char *const *names, const unsigned long long *vals,
		    size_t n)
{
	if (!json) {
		for (size_t i = 0; i < n; i++)
			printf("%s%s %llu", i ? ", " : "", names[i], vals[i]);
		printf("\n");
		return fflush(stdout) == 0 ? 0 : SR_EXIT_SYS;
	}
	cJSON *o = cJSON_CreateObject();
	for (size_t i = 0; i < n; i++)
		cJSON_AddNumberToObject(o, names[i], (double)vals[i]);
	int r = sq_print_json(o);
	cJSON_Delete(o);
	return r;
}
