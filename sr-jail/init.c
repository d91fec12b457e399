/* init.c - PID 1 of the jail, and the signal forwarding it shares with the
 * outer sr-jail. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jail.h"
#include "caps.h"
#include "control.h"
#include "exec.h"
#include "filter.h"
#include "forward.h"
#include "init.h"
#include "mounts.h"
#include "ns.h"
#include "quota.h"
#include "sr.h"

static void wait_set(sigset_t *set)
{
	sr_supervisor_sigset(set);
	sigaddset(set, SIGQUIT);   /* a jail passes SIGQUIT on too */
	sigaddset(set, SIGIO);     /* PID 1: a connection on --control */
}

/* Signals are taken synchronously (sigwaitinfo), so none is lost between
 * the fork and the wait. SIGCHLD must not be ignored for that. */
void jail_block_signals(struct jail *j)
{
	sigset_t set;
	wait_set(&set);
	signal(SIGCHLD, SIG_DFL);
	if (sigprocmask(SIG_BLOCK, &set, &j->oldmask) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to block signals");
}

/* A signal sr-jail's caller ignored (nohup's SIGHUP) is not passed on:
 * the program starts with its default action (exec.c), and the caller's
 * choice holds for the signals sent to the jail from outside. */
static int caller_ignored(int sig)
{
	struct sigaction sa;
	return sigaction(sig, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN;
}

/* Reap children until child exits, passing SIGTERM, SIGINT, SIGHUP and
 * SIGQUIT on to it (unless the caller ignored it). In PID 1 (outside_only), a signal some process in
 * the jail sent is dropped: a sender outside the PID namespace shows as
 * pid 0; ctl (PID 1) serves --control's connections on SIGIO, and starts
 * the forwarder when the first connection out comes.
 * Returns child's wait status. */
int jail_wait(pid_t child, int outside_only, int term_ends, struct jail *ctl)
{
	sigset_t set;
	siginfo_t si;
	wait_set(&set);
	for (;;) {
		int sig = sigwaitinfo(&set, &si);
		if (sig < 0) {
			if (errno == EINTR)
				continue;
			sr_fatal_sys(SR_EXIT_SYS, "unable to wait for signals");
		}
		if (sig == SIGIO) {
			if (ctl) {
				jail_control_serve(ctl);
				jail_forward_due(ctl);
			}
			continue;
		}
		if (sig != SIGCHLD) {
			int outside = !outside_only || si.si_code > 0 || si.si_pid == 0;
			if (outside && term_ends && sig == SIGTERM)
				return SIGTERM;    /* as if the program died of it */
			if (outside && !caller_ignored(sig))
				(void)kill(child, sig);
			continue;
		}
		int st;
		pid_t p;
		while ((p = waitpid(-1, &st, WNOHANG)) > 0)
			if (p == child)
				return st;
	}
}

/* The outer sr-jail brings lo up while PID 1 builds the root, then
 * writes one byte. EOF instead: the outer failed (it said why) or died,
 * maybe before PR_SET_PDEATHSIG took hold here. */
static void wait_for_outer(const struct jail *j)
{
	char c;
	ssize_t n;
	while ((n = read(j->sync_fd, &c, 1)) < 0 && errno == EINTR)
		;
	if (n != 1)
		_exit(SR_EXIT_SYS);
}

void jail_save_tty(struct jail *j)
{
	j->tty_fd = -1;
	for (int fd = 0; fd < 3 && j->tty_fd < 0; fd++)
		if (tcgetattr(fd, &j->tty) == 0)
			j->tty_fd = fd;
}

/* Blocked SIGTTOU: sr-jail may be in a background process group (under
 * sr-limit it is), where tcsetattr would otherwise stop it. */
void jail_restore_tty(const struct jail *j)
{
	struct termios now;
	if (j->tty_fd < 0 || (tcgetattr(j->tty_fd, &now) == 0 &&
	    memcmp(&now, &j->tty, sizeof now) == 0))
		return;
	sigset_t ttou, old;
	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	sigprocmask(SIG_BLOCK, &ttou, &old);
	if (tcsetattr(j->tty_fd, TCSANOW, &j->tty) < 0)
		sr_warn_sys("unable to restore the terminal's settings");
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/* In PID 1, the program gone: kill and reap whatever is left in the jail.
 * The kernel would kill it too when PID 1 exits, but what it reaps then is
 * not counted in PID 1's children's CPU time; reaped here it is, and so it
 * reaches the outer sr-jail's and sr-limit's rusage (and the report). */
static void reap_all(void)
{
	(void)kill(-1, SIGKILL);   /* every process of the namespace but PID 1 */
	while (waitpid(-1, NULL, __WALL) > 0 || errno == EINTR)
		;
}

/* PID 1: build the root, drop everything, run the program, reap orphans
 * and exit with the program's status. Exiting kills whatever else is
 * left in the PID namespace. */
void jail_init(struct jail *j)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to set the parent-death signal");
	jail_close_fds(j);
	if (setsid() < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to start a new session");
	jail_new_keyring();
	jail_drop_bounding();
	jail_build_root(j);
	wait_for_outer(j);
	jail_drop_caps();
	jail_filter(j);
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to make init non-dumpable");
	umask(j->umask);
	const char *dir = j->chdir ? j->chdir : JAIL_HOME;
	if (chdir(dir) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to change directory to %s", dir);
	/* With --quota, SIGTERM (sr-limit's timeout) ends the run here: the
	 * jail is killed and the changes applied in the grace period. */
	jail_control_arm(j);
	jail_forward_start(j);
	pid_t child = jail_spawn(j);
	jail_control_pending(j);
	int status = jail_wait(child, 1, j->nquotas > 0, j);
	(void)sr_write_all(j->sync_fd, &status, sizeof status);
	reap_all();
	if (j->view_dir >= 0)
		jail_quota_retarget(j, jail_view_target(j));
	if (j->nquotas)
		jail_quota_finish(j);
	if (j->view_dir >= 0 && jail_view_apply(j) == 1)
		jail_quota_view_full(j);
	_exit(sr_status_to_exit(status));
}
