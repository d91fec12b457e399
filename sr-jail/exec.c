/* exec.c - the fds the program gets, and its start inside the jail. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jail.h"
#include "exec.h"
#include "prog.h"
#include "sr.h"

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* In PID 1: only 0, 1, 2 and --keep-fd survive; the program's fd, the
 * pipe from the outer sr-jail, --control's and --publish's sockets and --report-fd stay
 * open (O_CLOEXEC), the first two until used, the last two for PID 1
 * alone. Nothing else the caller left open stays in the jail. */
void jail_close_fds(const struct jail *j)
{
	size_t n = 0;
	int *keep = malloc((j->nkeep + 6) * sizeof *keep);
	if (!keep)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	for (size_t i = 0; i < j->nkeep; i++)
		keep[n++] = j->keep[i];
	keep[n++] = j->prog_fd;
	keep[n++] = j->sync_fd;
	keep[n++] = j->control_fd;              /* -1 without --control */
	keep[n++] = j->publish_fd;              /* -1 without --publish */
	keep[n++] = j->report_fd;
	keep[n++] = j->view_dir;                /* -1 without --view-from */

	qsort(keep, n, sizeof *keep, cmp_int);
	unsigned lo = 3;
	for (size_t i = 0; i < n; i++) {
		if (keep[i] < (int)lo)
			continue;
		if ((unsigned)keep[i] > lo && close_range(lo, (unsigned)keep[i] - 1, 0) < 0)
			sr_fatal_sys(SR_EXIT_SYS, "unable to close inherited fds");
		lo = (unsigned)keep[i] + 1;
	}
	if (close_range(lo, ~0U, 0) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to close inherited fds");
	if (j->report_fd >= 0 && fcntl(j->report_fd, F_SETFD, FD_CLOEXEC) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to keep fd %d", j->report_fd);
	for (size_t i = 0; i < j->nkeep; i++)
		if (fcntl(j->keep[i], F_SETFD, 0) < 0)
			sr_fatal_sys(SR_EXIT_SYS, "unable to keep fd %d", j->keep[i]);
	free(keep);
}

/* The signals sr's tools rely on: those the jail passes on, the ones
 * sr-limit's --cpu and --fsize end a program with, and SIGPIPE. */
static const int default_sigs[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGXCPU, SIGXFSZ,
};

/* In the child: those signals at their default action and unblocked, even
 * if the caller ignored or blocked them (nohup, a shell's background job):
 * otherwise a trap on one cannot be set and its default action never comes.
 * The caller's mask holds for every other signal. */
static void default_signals(const sigset_t *callers)
{
	sigset_t mask = *callers;
	for (size_t i = 0; i < sizeof default_sigs / sizeof *default_sigs; i++) {
		(void)signal(default_sigs[i], SIG_DFL);
		sigdelset(&mask, default_sigs[i]);
	}
	sigprocmask(SIG_SETMASK, &mask, NULL);
}

/* Start the program. vfork is safe here: PID 1 has no signal handlers,
 * the child's dispositions are its own, and it only execs or exits. */
pid_t jail_spawn(const struct jail *j)
{
	const char *path = jail_prog_inside(j);
	pid_t pid = vfork();
	if (pid < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to start %s", j->prog_path);
	if (pid == 0) {
		default_signals(&j->oldmask);
		execve(path, j->argv, j->envp);
		sr_fatal_run(j->prog_path);
	}
	return pid;
}
