/* opts.c - option parsing for the subcommands.
 *
 * getopt_long with a leading "+" stops at the first operand; we note the
 * operand and resume after it, so options may come before or after SPOOL
 * and ID whatever POSIXLY_CORRECT says, and a job's own argv (after "--"
 * or after the operands `submit` wants) is never parsed. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "queue.h"
#include "sr.h"

int parse_args(int argc, char **argv, const char *shortopts,
	       const struct option *lo, opt_fn fn, void *ctx,
	       char **ops, int maxops, int stop_after, int *rest)
{
	char spec[64];
	int nops = 0;
	snprintf(spec, sizeof spec, "+:%s", shortopts);
	optind = 0; /* reinitialise getopt */
	opterr = 0;
	if (rest)
		*rest = argc;
	while (optind < argc) {
		int before = optind ? optind : 1;
		int c = getopt_long(argc, argv, spec, lo, NULL);
		if (c == '?')
			sr_usage("%s: unknown option '%s'", argv[0], argv[optind - 1]);
		if (c == ':')
			sr_usage("%s: option '%s' needs an argument", argv[0], argv[optind - 1]);
		if (c != -1) {
			fn(ctx, c, optarg);
			continue;
		}
		int dashdash = optind == before + 1 && strcmp(argv[before], "--") == 0;
		for (; optind < argc; optind++) {
			if (stop_after > 0 && nops >= stop_after) {
				*rest = optind;
				return nops;
			}
			if (nops >= maxops)
				sr_usage("%s: unexpected argument '%s'", argv[0], argv[optind]);
			ops[nops++] = argv[optind];
			if (!dashdash) {
				optind++;
				break;
			}
		}
	}
	return nops;
}
