/* status.c - `status` of a job and `list` of every job: the spool core's
 * views (sq_job_resolve, sq_job_list; a query settles a job whose worker
 * is found dead, as recover would), printed. */
#include <cJSON.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "spool.h"
#include "sr.h"

static const struct option status_lo[] = {
	{ "json", no_argument, NULL, SQ_Q_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int sq_cmd_status(int argc, char **argv)
{
	struct sq_qopts o = { 0 };
	char *ops[2];
	struct sq_spool sp;
	struct sq_jstat js;
	sq_query_args(argc, argv, status_lo, &o, 1, ops, &sp);
	sq_resolve_or_exit(&sp, ops[1], &js);
	int r = sq_print_state(ops[1], &js, o.json);
	sq_jstat_free(&js);
	sq_spool_close(&sp);
	return r;
}

static const struct option list_lo[] = {
	{ "state", required_argument, NULL, SQ_Q_STATE },
	{ "json", no_argument, NULL, SQ_Q_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void list_one(const char *id, const struct sq_jstat *js, void *ctx)
{
	const struct sq_qopts *o = ctx;
	if (!js)
		sr_warn("refusing job %s", sq_job_refusal);
	else if (o->json)
		(void)sq_print_status_json(id, js, 0);
	else
		sq_print_status_line(id, js);
}

int sq_cmd_list(int argc, char **argv)
{
	struct sq_qopts o = { 0 };
	char *ops[1];
	struct sq_spool sp;
	sq_query_args(argc, argv, list_lo, &o, 0, ops, &sp);
	if (!sq_list_state_known(o.state))
		sr_usage("--state: unknown state '%s'", o.state);
	sq_job_list(&sp, o.state, list_one, &o);
	sq_spool_close(&sp);
	return fflush(stdout) == 0 ? 0 : SR_EXIT_SYS;
}
