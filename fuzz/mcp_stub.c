/* mcp_stub.c - what fuzz_mcp links instead of sr-mcp's main.c and
 * spawn.c: a spawn that never starts a process (the settings, cfg,
 * are util.c's).
 *
 * The rest of sr-mcp is the real code: proto.c, tools.c and the tool_*.c
 * files, proto_tasks.c, jobs.c, job_result.c, runners.c ... So a
 * tools/call is served as far as it can be without a process: its
 * arguments are checked and the errors answered; job_state_ready makes
 * the state directory (a temporary one) and believes the sandbox works
 * (the probe "sr-jail true" succeeds here);
 * every sr-queue command (submit, status, cancel, list) fails as if
 * sr-queue could not run, so a valid run_code ends in "The run could not
 * be started", and nothing is ever run. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp.h"
#include "spawn.h"
#include "sr.h"

/* A run sr-mcp submits never asks for more than the administrator's caps:
 * sr-limit gets --mem or --data of at most memory_max bytes, and a
 * --timeout of at most timeout_max_ms. */
static void check_submit(char *const argv[])
{
	const char *lim = NULL;
	for (size_t i = 0; argv[i]; i++)
		if (!strncmp(argv[i], "SR_LIMIT_ARGS=", 14))
			lim = argv[i] + 14;
	const char *m = lim ? strstr(lim, "--mem ") : NULL;
	if (!m && lim)
		m = strstr(lim, "--data ");
	const char *t = lim ? strstr(lim, "--timeout ") : NULL;
	if (!m || !t) {
		fprintf(stderr, "fuzz_mcp: a run without a memory limit or a timeout: %s\n",
			lim ? lim : "(no SR_LIMIT_ARGS)");
		abort();
	}
	unsigned long long mem = strtoull(strchr(m, ' ') + 1, NULL, 10);
	unsigned long long ms = strtoull(strchr(t, ' ') + 1, NULL, 10);
	if (mem == 0 || mem > cfg.memory_max || ms == 0 || ms > cfg.timeout_max_ms) {
		fprintf(stderr, "fuzz_mcp: a run over the caps: %s\n", lim);
		abort();
	}
}

/* sr-jail's and sr-limit's probes succeed, a runner says its version,
 * sr-queue fails (exit 111, no output) after its submit is checked. */
int spawn_capture(char *const argv[], char **out, size_t max, int quiet)
{
	(void)max;
	(void)quiet;
	*out = NULL;
	if (argv[1] && !strcmp(argv[0], "sr-queue") && !strcmp(argv[1], "submit"))
		check_submit(argv);
	if (!strcmp(argv[0], "sr-jail") || !strcmp(argv[0], "sr-limit"))
		return 0;
	if (argv[1] && !strcmp(argv[1], "--version")) {
		*out = xstrdup("Fuzz 1.0\nsecond line\n");
		return 0;
	}
	return SR_EXIT_SYS;
}

int spawn_detached(char *const argv[], int keep_fd, const char *log, pid_t *pid)
{
	(void)argv;
	(void)keep_fd;
	(void)log;
	(void)pid;
	return -1;
}

void spawn_kill_all(void)
{
}

int spawn_io(char *const argv[], const struct spawn_io *io)
{
	(void)argv;
	(void)io;
	return SR_EXIT_SYS;
}
