/* status.c - `status` of a job and `list` of every job: views of the
 * spool (a query settles a job whose worker is found dead, as recover
 * would). */
#include <cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
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
	int r = 0;
	if (o.json) {
		cJSON *j = sq_status_json(ops[1], &js, 1);
		r = sq_print_json(j);
		cJSON_Delete(j);
	} else {
		sq_print_status_line(ops[1], &js);
	}
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

struct list_ctx {
	struct sq_spool *sp;
	const struct sq_qopts *o;
};

static int state_matches(const char *want, const char *state)
{
	if (!want || strcmp(want, "all") == 0)
		return 1;
	if (strcmp(want, "finished") == 0)
		return strcmp(state, "queued") != 0 && strcmp(state, "running") != 0;
	return strcmp(want, state) == 0;
}

static void list_one(int dfd, const char *id, void *ctx)
{
	struct list_ctx *lc = ctx;
	struct sq_jstat js;
	(void)dfd;
	if (!sq_id_valid(id))
		return;
	if (sq_job_resolve(lc->sp, id, &js) < 0) {
		if (errno == EPERM && sq_job_refusal[0])
			sr_warn("refusing job %s", sq_job_refusal);
		return;
	}
	if (state_matches(lc->o->state, js.state)) {
		if (lc->o->json) {
			cJSON *j = sq_status_json(id, &js, 0);
			(void)sq_print_json(j);
			cJSON_Delete(j);
		} else {
			sq_print_status_line(id, &js);
		}
	}
	sq_jstat_free(&js);
}

int sq_cmd_list(int argc, char **argv)
{
	static const char *const states[] = { "all", "queued", "running", "finished",
		"completed", "failed", "cancelled", "lost" };
	struct sq_qopts o = { 0 };
	char *ops[1];
	struct sq_spool sp;
	sq_query_args(argc, argv, list_lo, &o, 0, ops, &sp);
	int known = !o.state;
	for (size_t i = 0; !known && i < sizeof states / sizeof *states; i++)
		known = strcmp(o.state, states[i]) == 0;
	if (!known)
		sr_usage("--state: unknown state '%s'", o.state);
	struct list_ctx lc = { &sp, &o };
	const char *s = o.state ? o.state : "all";
	int all = strcmp(s, "all") == 0;
	if (all || strcmp(s, "queued") == 0)
		sq_each_entry(sp.queue, list_one, &lc);
	if (all || strcmp(s, "queued") != 0)
		sq_each_entry(sp.run, list_one, &lc);
	if (all || (strcmp(s, "queued") != 0 && strcmp(s, "running") != 0))
		sq_each_entry(sp.done, list_one, &lc);
	sq_spool_close(&sp);
	return fflush(stdout) == 0 ? 0 : SR_EXIT_SYS;
}
