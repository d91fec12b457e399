/* sr-queue - a durable spool-directory job queue.
 *
 *   sr-queue submit SPOOL [options] -- prog [args...]
 *   sr-queue run SPOOL [-j N] [--cpu-budget 10s/1m] [--drain|--idle D|--once]
 *                      [--via 'srun --quiet ... --']
 *   sr-queue status|wait|logs|cancel SPOOL ID ...
 *   sr-queue list|gc|recover SPOOL ...
 *
 * Three layers, each with its header, each including only the ones below
 * it: the commands (cli.h: this file, cli.c and one file per command), the
 * worker (worker.h), and the spool core (spool.h: the on-disk format). */
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "sr.h"

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

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
};

static const struct command commands[] = {
	{ "submit", sq_cmd_submit }, { "run", sq_cmd_run },   { "status", sq_cmd_status },
	{ "wait", sq_cmd_wait },     { "logs", sq_cmd_logs }, { "cancel", sq_cmd_cancel },
	{ "list", sq_cmd_list },     { "gc", sq_cmd_gc },     { "recover", sq_cmd_recover },
	{ "land", sq_cmd_land },
};

mode_t sq_user_umask;

/* -h inside a command, too. */
void sq_print_usage(void)
{
	fputs(usage_text, stdout);
}

/* sr-queue's own options, before the command: the index of the command. */
static int main_options(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:hV", lo, NULL)) != -1) {
		if (c == 'h') {
			sq_print_usage();
			exit(fflush(stdout) == 0 ? SR_EXIT_OK : SR_EXIT_SYS);
		}
		if (c == 'V')
			sr_version();
		sr_usage_option(argc, argv, c);
	}
	if (optind >= argc)
		sr_usage("missing command (see %s --help)", sr_prog);
	return optind;
}

int main(int argc, char **argv)
{
	sr_set_prog(argv[0]);
	sq_user_umask = umask(077); /* the spool and everything in it are private */
	for (int fd = 0; fd < 3; fd++) /* so that no file we open becomes 0-2 */
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
			sr_fatal_sys(SR_EXIT_SYS, "unable to open /dev/null");
	int i = main_options(argc, argv);
	if (strcmp(argv[i], "help") == 0) {
		sq_print_usage();
		return fflush(stdout) == 0 ? SR_EXIT_OK : SR_EXIT_SYS;
	}
	for (size_t k = 0; k < sizeof commands / sizeof *commands; k++)
		if (strcmp(argv[i], commands[k].name) == 0)
			return commands[k].fn(argc - i, argv + i);
	sr_usage("unknown command '%s' (see %s --help)", argv[i], sr_prog);
}
