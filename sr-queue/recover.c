/* recover.c - `recover`: settle the jobs of dead workers, clean tmp/. */
#include "cli.h"
#include "spool.h"
#include "sr.h"

static const struct option recover_lo[] = {
	{ "json", no_argument, NULL, SQ_Q_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int sq_cmd_recover(int argc, char **argv)
{
	struct sq_qopts o = { 0 };
	char *ops[1];
	struct sq_spool sp;
	struct sq_recover_counts rc;
	sq_query_args(argc, argv, recover_lo, &o, 0, ops, &sp);
	sq_recover_all(&sp, &rc);
	sq_spool_close(&sp);
	static const char *const names[] = { "lost", "requeued", "finished", "cancelled",
					     "running", "tmp_removed" };
	const unsigned long long vals[] = { rc.lost, rc.requeued, rc.finished, rc.cancelled, rc.busy,
				  rc.tmp };
	return sq_print_counts(o.json, names, vals, 6);
}
