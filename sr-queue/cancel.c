/* cancel.c - `cancel` a queued job (it never starts) or a running one (its
 * worker kills it with all its processes), then report the state: the
 * spool core's sq_job_cancel, printed. */
#include <errno.h>
#include <limits.h>

#include "cli.h"
#include "spool.h"
#include "sr.h"

#define DEFAULT_CANCEL_TIMEOUT_NS (30ULL * 1000000000ULL)

static const struct option cancel_lo[] = {
	{ "timeout", required_argument, NULL, SQ_Q_TIMEOUT },
	{ "json", no_argument, NULL, SQ_Q_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int sq_cmd_cancel(int argc, char **argv)
{
	struct sq_qopts o = { .timeout_ns = DEFAULT_CANCEL_TIMEOUT_NS };
	char *ops[2], msg[SQ_JOB_REFUSAL_MAX + PATH_MAX + 300];
	struct sq_spool sp;
	struct sq_jstat js;
	sq_query_args(argc, argv, cancel_lo, &o, 1, ops, &sp);
	int r = sq_job_cancel(&sp, ops[1], o.timeout_ns, &js, msg, sizeof msg), code = 0;
	if (r < 0)
		sr_fatal(errno == ENOENT ? SR_EXIT_SOFT : SR_EXIT_SYS, "%s", msg);
	if (r == SQ_CANCEL_PENDING) {
		sr_warn("job %s: cancel requested, still %s", ops[1], js.state);
		code = SQ_EXIT_WAIT_TIMEOUT;
	} else if (r == SQ_CANCEL_ENDED) {
		sr_warn("job %s is %s: not cancelled", ops[1], js.state);
		code = SR_EXIT_SOFT;
	}
	int p = sq_print_state(ops[1], &js, o.json);
	sq_jstat_free(&js);
	sq_spool_close(&sp);
	return p ? p : code;
}
