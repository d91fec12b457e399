/* run.c - `run`: the worker's command line; the worker is in worker.c. */
#include <stdlib.h>

#include "cli.h"
#include "usage.h"
#include "worker.h"
#include "sr.h"

enum { O_BUDGET = 256, O_DRAIN, O_ONCE, O_IDLE, O_VIA };

static const struct option run_lo[] = {
	{ "jobs", required_argument, NULL, 'j' },
	{ "cpu-budget", required_argument, NULL, O_BUDGET },
	{ "drain", no_argument, NULL, O_DRAIN },
	{ "once", no_argument, NULL, O_ONCE },
	{ "idle", required_argument, NULL, O_IDLE },
	{ "via", required_argument, NULL, O_VIA },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void run_opt(void *ctx, int c, const char *arg)
{
	struct sq_run_opts *o = ctx;
	switch (c) {
	case 'j':
		o->jobs = (unsigned)sr_opt_count("-j", arg, 4096);
		if (!o->jobs)
			sr_usage_value("-j", "count", arg, "at least 1");
		break;
	case O_BUDGET:
		if (sq_parse_budget(arg, &o->budget_ns, &o->window_ns) < 0)
			sr_usage_value("--cpu-budget", "budget", arg, "CPU/WINDOW like 10s/1m");
		break;
	case O_DRAIN: o->drain = 1; break;
	case O_ONCE: o->once = 1; break;
	case O_IDLE:
		o->idle_ns = sr_opt_duration_ns("--idle", arg);
		if (!o->idle_ns)
			o->drain = 1;   /* --idle 0 is --drain */
		break;
	case O_VIA: o->via = arg; break;
	case 'h': sq_print_usage(); exit(0);
	}
}

int sq_cmd_run(int argc, char **argv)
{
	struct sq_run_opts o = { .jobs = 1 };
	char *ops[1];
	if (sq_parse_args(argc, argv, "j:h", run_lo, run_opt, &o, ops, 1, 0, NULL) != 1)
		sr_usage("run: want exactly one SPOOL");
	return sq_worker_run(ops[0], &o);
}
