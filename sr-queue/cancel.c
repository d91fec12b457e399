/* cancel.c - `cancel` a queued job (it never starts) or a running one (its
 * worker kills it with all its processes), then report the state. */
#include <string.h>
#include <sys/file.h>
#include <time.h>

#include "cli.h"
#include "sr.h"

#define DEFAULT_CANCEL_TIMEOUT_NS (30ULL * 1000000000ULL)

static const struct option cancel_lo[] = {
	{ "timeout", required_argument, NULL, SQ_Q_TIMEOUT },
	{ "json", no_argument, NULL, SQ_Q_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void ask(struct sq_spool *sp, const char *id)
{
	if (sq_cancel_ask(sp, id) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to ask for the cancel of job %s", id);
}

/* A queued job: ask first (so that a worker claiming it, or a cancel that
 * dies half-way, still ends in cancelled), take its flock (a worker holding
 * it is claiming it: look again), write the result, move it to done/. */
static int cancel_queued(struct sq_spool *sp, const char *id, struct sq_jstat *js)
{
	ask(sp, id);
	if (flock(js->fd, LOCK_EX | LOCK_NB) < 0 || !sq_same_file(js->fd, sp->queue, id)) {
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
		return -1;
	}
	if (sq_job_finish_cancelled(sp, id, js->fd, sp->queue) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to cancel job %s", id);
	return 0;
}

/* A running job: ask its worker (cancel/ID), then wait for the result. */
static int cancel_running(struct sq_spool *sp, const char *id, uint64_t timeout,
			  struct sq_jstat *js)
{
	ask(sp, id);
	sq_jstat_free(js);
	int r = sq_job_wait(sp, id, timeout, js);
	if (r < 0)
		sq_no_such_job(sp, id);
	return r;
}

/* One try: the exit code with *js filled, or -1 to try again (a worker
 * was claiming the queued job, and the deadline has not come). */
static int cancel_once(struct sq_spool *sp, const char *id, const struct sq_qopts *o,
		       uint64_t deadline, struct sq_jstat *js)
{
	sq_resolve_or_exit(sp, id, js);
	if (strcmp(js->state, "queued") == 0) {
		if (cancel_queued(sp, id, js) < 0) {
			if (sr_now_ns() < deadline) {
				sq_jstat_free(js);
				return -1;
			}
			sr_warn("job %s: cancel requested, still queued", id);
			return SQ_EXIT_WAIT_TIMEOUT;
		}
		sq_jstat_free(js);
		sq_resolve_or_exit(sp, id, js);
	} else if (strcmp(js->state, "running") == 0 &&
		   cancel_running(sp, id, o->timeout_ns, js) == 1) {
		sr_warn("job %s: cancel requested, still running", id);
		return SQ_EXIT_WAIT_TIMEOUT;
	}
	if (strcmp(js->state, "cancelled") == 0)
		return 0;
	sr_warn("job %s is %s: not cancelled", id, js->state);
	return SR_EXIT_SOFT;
}

int sq_cmd_cancel(int argc, char **argv)
{
	struct sq_qopts o = { .timeout_ns = DEFAULT_CANCEL_TIMEOUT_NS };
	char *ops[2];
	struct sq_spool sp;
	struct sq_jstat js;
	sq_query_args(argc, argv, cancel_lo, &o, 1, ops, &sp);
	uint64_t deadline = sr_now_ns() + o.timeout_ns;
	int code;
	while ((code = cancel_once(&sp, ops[1], &o, deadline, &js)) < 0)
		;
	int r = sq_print_state(ops[1], &js, o.json);
	sq_jstat_free(&js);
	sq_spool_close(&sp);
	return r ? r : code;
}
