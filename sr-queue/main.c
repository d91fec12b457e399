/* sr-queue - a durable spool-directory job queue.
 *
 *   sr-queue submit SPOOL [options] -- prog [args...]
 *   sr-queue run SPOOL [-j N] [--cpu-budget 10s/1m] [--drain|--once]
 *   sr-queue status|wait|logs|cancel SPOOL ID ...
 *   sr-queue list|gc|recover SPOOL ...
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "queue.h"
#include "sr.h"

static const char usage_text[] =
	"usage: sr-queue COMMAND SPOOL [options] ...\n"
	"  submit SPOOL [options] [--] prog [args...]   queue a job, print its id\n"
	"      --tenant NAME  --stdin FILE|-  --cwd DIR  --env K=V  --keep-env\n"
	"      --max-output SIZE  --retry N  --timeout DURATION  --json\n"
	"  run SPOOL [-j N] [--cpu-budget CPU/WINDOW] [--drain|--once]\n"
	"                                  run jobs (a worker)\n"
	"  status SPOOL ID [--json]        state of a job\n"
	"  wait SPOOL ID [--timeout D] [--json]  wait; exit with the job's code\n"
	"  logs SPOOL ID [--stream stdout|stderr] [--offset N] [--max-bytes N] [--json]\n"
	"  cancel SPOOL ID [--timeout D] [--json]  cancel a queued or running job\n"
	"  list SPOOL [--state STATE] [--json]    every job, one per line\n"
	"  gc SPOOL [--older-than D] [--keep N] [--json]  remove finished jobs\n"
	"  recover SPOOL [--json]          settle jobs of dead workers, clean tmp/\n"
	"Exit codes: 0 ok, 1 not found/not possible, 100 usage, 111 system error;\n"
	"wait: the job's code, 128+N signal, 124 timeout, 126/127 failed,\n"
	"97 lost, 98 cancelled, 99 --timeout expired. See sr-queue(1).\n";

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
};

static const struct command commands[] = {
	{ "submit", cmd_submit }, { "run", cmd_run },       { "status", cmd_status },
	{ "wait", cmd_wait },     { "logs", cmd_logs },     { "cancel", cmd_cancel },
	{ "list", cmd_list },     { "gc", cmd_gc },         { "recover", cmd_recover },
};

mode_t user_umask;

int main(int argc, char **argv)
{
	sr_set_prog(argv[0]);
	user_umask = umask(077); /* the spool and everything in it are private */
	for (int fd = 0; fd < 3; fd++) /* so that no file we open becomes 0-2 */
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
			sr_fatal_sys(SR_EXIT_SYS, "unable to open /dev/null");
	if (argc < 2)
		sr_usage("missing command (try --help)");
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (strcmp(argv[1], "-V") == 0 || strcmp(argv[1], "--version") == 0) {
		puts("sr-queue 1");
		return 0;
	}
	for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].fn(argc - 1, argv + 1);
	sr_usage("unknown command '%s' (try --help)", argv[1]);
}

/* -h inside a subcommand. */
void print_usage(void)
{
	fputs(usage_text, stdout);
}
