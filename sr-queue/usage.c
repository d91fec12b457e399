/* usage.c - what every command shares from the top: the usage text (for
 * main.c and -h inside a command) and the caller's umask, kept below them
 * all, so that no command calls up into main.c. Moved from main.c,
 * unchanged. */
#include <stdio.h>
#include <sys/stat.h>

#include "usage.h"

mode_t sq_user_umask;

static const char usage_text[] =
	"usage: sr-queue COMMAND SPOOL [options] ...\n"
	"  submit SPOOL [options] [--] prog [args...]   queue a job, print its id\n"
	"      --tenant NAME  --stdin FILE|-  --cwd DIR  --env K=V  --keep-env\n"
	"      --max-output SIZE  --retry N  --timeout DURATION\n"
	"      --kill-after DURATION  --json\n"
	"  run SPOOL [-j N] [--cpu-budget CPU/WINDOW] [--drain|--idle DURATION|--once]\n"
	"      [--via 'LAUNCHER ARGS']     run jobs (a worker), here or through a launcher\n"
	"  status SPOOL ID [--json]        state of a job\n"
	"  wait SPOOL ID [--timeout D] [--json]  wait; exit with the job's code\n"
	"  logs SPOOL ID [--stream stdout|stderr] [--offset N] [--max-bytes N] [--json]\n"
	"  cancel SPOOL ID [--timeout D] [--json]  cancel a queued or running job\n"
	"  list SPOOL [--state STATE] [--json]    every job, one per line\n"
	"  gc SPOOL [--older-than D] [--max-bytes SIZE] [--keep N] [--json]\n"
	"                                  remove finished jobs (by age, by room)\n"
	"  recover SPOOL [--json]          settle jobs of dead workers, clean tmp/\n"
	"  land SPOOL ID                   (run --via, on the node) run a claimed job\n"
	"  -h, --help  -V, --version\n"
	"Exit codes: 0 ok, 1 not found/not possible, 100 usage, 111 system error;\n"
	"wait: the job's code, 128+N signal, 124 timeout, 126/127 failed,\n"
	"97 lost, 98 cancelled, 99 --timeout expired. See sr-queue(1).\n";

/* -h inside a command, too. */
void sq_print_usage(void)
{
	fputs(usage_text, stdout);
}
