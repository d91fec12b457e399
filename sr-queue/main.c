/* sr-queue - a durable spool-directory job queue.
 *
 *   sr-queue submit SPOOL [options] -- prog [args...]
 *   sr-queue run SPOOL [-j N] [--cpu-budget 10s/1m] [--drain|--idle D|--once]
 *                      [--via 'srun --quiet ... --']
 *   sr-queue status|wait|logs|cancel SPOOL ID ...
 *   sr-queue list|gc|recover SPOOL ...
 *
 * Layers, each with its header, each including only the ones below it:
 * the commands (cli.h: this file, cli.c and one file per command), what
 * they share from the top (usage.h: the usage text, the caller's umask),
 * the worker (worker.h), and the spool core (spool.h: the on-disk format).
 * scripts/layers.conf lists them; make check holds the files to them. */
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "usage.h"
#include "sr.h"

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
