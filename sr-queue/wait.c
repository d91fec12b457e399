/* wait.c - `wait` until a job settles (the spool core's sq_job_wait), and
 * exit with its code. */
#include "cli.h"
#include "spool.h"
#include "sr.h"

static const struct option wait_lo[] = {
	{ "timeout", required_argument, NULL, SQ_Q_TIMEOUT },
	{ "json", no_argument, NULL, SQ_Q_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int sq_cmd_wait(int argc, char **argv)
{
	struct sq_qopts o = { 0 };
	char *ops[2];
	struct sq_spool sp;
	struct sq_jstat js;
	sq_query_args(argc, argv, wait_lo, &o, 1, ops, &sp);
	if (o.has_timeout && o.timeout_ns == 0)
		o.timeout_ns = 1; /* --timeout 0: just look */
	int r = sq_job_wait(&sp, ops[1], o.timeout_ns, &js);
	if (r < 0)
		sq_no_such_job_exit(&sp, ops[1], SQ_EXIT_NO_JOB);
	int code = r == 1 ? SQ_EXIT_WAIT_TIMEOUT : sq_result_exit_code(js.result);
	if (o.json && sq_print_state(ops[1], &js, 1) != 0)
		code = SR_EXIT_SYS;
	/* Its code is the job's: what it lost is said on stderr. */
	struct sq_loss lv[SQ_LOSS_MAX];
	size_t n = r == 0 ? sq_job_losses(&js, lv) : 0;
	for (size_t i = 0; i < n; i++)
		sr_warn("job %s: %s: %s", ops[1], sq_loss_label(&lv[i]), lv[i].text);
	sq_jstat_free(&js);
	sq_spool_close(&sp);
	return code;
}
