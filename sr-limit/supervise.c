/* supervise.c - start prog, enforce the wall clock, forward signals, and
 * make sure nothing it started outlives it. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sr.h"
#include "sr-limit.h"

/* The child shares our memory until it execs (CLONE_VM | CLONE_VFORK, as
 * posix_spawn does: no page tables copied, and the parent sleeps until the
 * exec), so it reports a failure by writing here. */
struct spawn {
	const struct opts *o;
	const struct enforced *e;
	const sigset_t *oldmask;
	char **sh_argv; /* for a script without #! (see sr_execvp) */
	int stage;  /* 0 ok, 1 setting up limits failed, 2 exec failed */
	int err;
};

static int child(void *arg)
{
	struct spawn *sp = arg;

	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	(void)setpgid(0, 0);
	sigprocmask(SIG_SETMASK, sp->oldmask, NULL);
	if (cg_enter(sp->e) < 0) {
		sp->stage = 1;
		sp->err = errno;
		sr_warn_sys("unable to join cgroup %s", sp->e->cgroup_path);
	} else if (rl_apply(sp->o, sp->e) < 0 || rl_drop_resource(sp->e) < 0) {
		sp->stage = 1;
		sp->err = errno ? errno : EPERM;
	} else {
		sr_execvp(sp->o->argv, sp->sh_argv);
		sp->stage = 2;
		sp->err = errno;
		sr_fatal_run(sp->o->argv[0]);
	}
	_exit(SR_EXIT_SYS);
}

static pid_t spawn(struct spawn *sp, struct outcome *out)
{
	size_t size = 64 * 1024;
	char *stack = mmap(NULL, size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		sr_fatal_sys(SR_EXIT_SYS, "unable to allocate a stack for the child");
	pid_t pid = clone(child, stack + size, CLONE_VM | CLONE_VFORK | SIGCHLD, sp);
	if (pid < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to start a child process");
	munmap(stack, size);
	(void)setpgid(pid, pid);
	if (sp->stage == 1)
		out->setup_errno = sp->err ? sp->err : EPERM;
	else if (sp->stage == 2)
		out->exec_errno = sp->err ? sp->err : ENOEXEC;
	return pid;
}

static void signal_group(pid_t pid, int sig)
{
	if (kill(-pid, sig) < 0)
		(void)kill(pid, sig);
}

/* Wait for signals until DEADLINE (0: none). Returns the signal, 0 on
 * timeout. */
static int wait_signal(const sigset_t *set, uint64_t deadline)
{
	siginfo_t si;
	struct timespec ts, *tsp = NULL;
	if (deadline) {
		uint64_t now = sr_now_ns();
		uint64_t left = deadline > now ? deadline - now : 0;
		ts.tv_sec = (time_t)(left / 1000000000ULL);
		ts.tv_nsec = (long)(left % 1000000000ULL);
		tsp = &ts;
	}
	int s = sigtimedwait(set, &si, tsp);
	return s < 0 ? 0 : s;
}

/* Reap what has exited; returns 1 once prog itself has been reaped. */
static int reap(pid_t pid, struct outcome *out, int *done)
{
	int st;
	pid_t r;
	while ((r = waitpid(-1, &st, WNOHANG)) > 0) {
		if (r == pid) {
			out->status = st;
			*done = 1;
		}
	}
	return r < 0 && errno == ECHILD ? -1 : 0;
}

/* Everything prog left behind dies with it. */
static void clean_up(const struct enforced *e, pid_t pid, const sigset_t *set,
		     struct outcome *out, int *done)
{
	cg_kill(e);
	(void)kill(-pid, SIGKILL);
	while (reap(pid, out, done) == 0) {
		sr_kill_descendants(NULL, 0);
		(void)wait_signal(set, sr_now_ns() + 10000000ULL);
	}
}

void supervise(const struct opts *o, struct enforced *e, struct outcome *out)
{
	sigset_t set, old;
	int done = 0;

	sr_supervisor_sigset(&set);
	sigprocmask(SIG_BLOCK, &set, &old);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to become a child subreaper");

	struct spawn sp = { o, e, &old, sr_sh_argv(o->argv), 0, 0 };
	if (!sp.sh_argv)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	uint64_t t0 = sr_now_ns();
	pid_t pid = spawn(&sp, out);
	free(sp.sh_argv); /* the child has exec'd or given up: CLONE_VFORK */

	uint64_t deadline = o->timeout_ns ? t0 + o->timeout_ns : 0;
	int phase = 0;  /* 0 running, 1 SIGTERM sent, 2 SIGKILL sent */
	while (!done) {
		if (reap(pid, out, &done) < 0 || done)
			break;
		int sig = wait_signal(&set, phase < 2 ? deadline : 0);
		if (sig == SIGTERM || sig == SIGINT || sig == SIGHUP) {
			signal_group(pid, sig);
		} else if (sig == 0 && deadline && sr_now_ns() >= deadline) {
			out->timed_out = 1;
			if (phase++ == 0) {
				signal_group(pid, SIGTERM);
				deadline = sr_now_ns() + o->kill_after_ns;
			} else {
				signal_group(pid, SIGKILL);
				cg_kill(e);
				sr_kill_descendants(NULL, 0);
			}
		}
	}
	out->wall_ns = sr_now_ns() - t0;
	clean_up(e, pid, &set, out, &done);
	/* Signals stay blocked: a late SIGTERM must not cost the report. */
	getrusage(RUSAGE_CHILDREN, &out->ru);
}
