/* rlimits.c - the limits every kernel has, set in the child before exec,
 * and whom they bind: RLIMIT_NPROC does not bind root, and a holder of
 * CAP_SYS_RESOURCE may raise any hard limit. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/nsfs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sr.h"
#include "sr-limit.h"

/* The initial user namespace's inode (PROC_USER_INIT_INO, Linux 3.8 on). */
#define INITIAL_USERNS_INO 0xEFFFFFFDU

/* Is /proc/PID's user namespace ours, or one below it? NS_GET_PARENT
 * walks up, and fails past ours. */
static int in_our_userns(int procfd, const char *pid, const struct stat *ours)
{
	char path[300];
	snprintf(path, sizeof path, "%s/ns/user", pid);
	int fd = openat(procfd, path, O_RDONLY | O_CLOEXEC), r = 0;
	for (int depth = 0; fd >= 0 && depth < 64; depth++) {
		struct stat st;
		if (fstat(fd, &st) < 0)
			break;
		if (st.st_dev == ours->st_dev && st.st_ino == ours->st_ino) {
			r = 1;
			break;
		}
		int up = ioctl(fd, NS_GET_PARENT);
		close(fd);
		fd = up;
	}
	if (fd >= 0)
		close(fd);
	return r;
}

/* RLIMIT_NPROC counts every task (process or thread) of the real uid in
 * our user namespace and those below it (the user's jails), not only the
 * child's. To give the child N more, count what the user already runs.
 * Tasks of other users, and (in a user namespace) tasks outside it that
 * map to our uid, are not counted; a task that cannot be looked at is
 * not either, which leaves the run fewer, never more. */
static uint64_t user_tasks(void)
{
	DIR *d = opendir("/proc");
	uid_t uid = getuid();
	uint64_t total = 0;
	struct dirent *de;
	struct stat ours;
	if (!d)
		return 0;
	if (stat("/proc/self/ns/user", &ours) < 0) {
		closedir(d);
		return 0;
	}
	int all = ours.st_ino == INITIAL_USERNS_INO; /* every namespace is below it */
	while ((de = readdir(d)) != NULL) {
		struct stat st;
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, 0) < 0 || st.st_uid != uid ||
		    (!all && !in_our_userns(dirfd(d), de->d_name, &ours)))
			continue;
		long long threads;  /* proc(5) field 20, num_threads */
		if (sr_proc_stat_num(dirfd(d), de->d_name, 20, &threads) == 0)
			total += (uint64_t)threads;
	}
	closedir(d);
	return total;
}

/* Is CAP in our permitted or ambient set, so that prog could hold it? */
static int cap_held(int cap)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	if (syscall(SYS_capget, &h, d) < 0)
		return 1;
	if (d[cap / 32].permitted & (1U << (cap % 32)))
		return 1;
	return prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, cap, 0, 0) == 1;
}

static int uid0(void)
{
	uid_t r, e, s;
	return getresuid(&r, &e, &s) < 0 || r == 0 || e == 0 || s == 0;
}

/* Does RLIMIT_NPROC bind us? The kernel skips it for the host's uid 0
 * (whatever user namespace maps it) and for CAP_SYS_ADMIN or
 * CAP_SYS_RESOURCE in the initial namespace, which no uid_map shows from
 * inside: so it is tried. A child without CAP_SYS_RESOURCE (prog will
 * have none) sets it to 0 and forks: EAGAIN means it binds. */
static int nproc_binds(void)
{
	int st;
	pid_t pid = fork();
	if (pid == 0) {
		struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
		struct __user_cap_data_struct d[2];
		struct rlimit zero = { 0, 0 };
		if (syscall(SYS_capget, &h, d) == 0) {
			d[CAP_SYS_RESOURCE / 32].effective &= ~(1U << (CAP_SYS_RESOURCE % 32));
			(void)syscall(SYS_capset, &h, d);
		}
		if (setrlimit(RLIMIT_NPROC, &zero) < 0)
			_exit(2);
		pid_t g = fork();
		if (g == 0)
			_exit(0);
		if (g > 0)
			(void)waitpid(g, NULL, 0);
		_exit(g < 0 && errno == EAGAIN ? 0 : 1);
	}
	while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* Whom RLIMIT_NPROC would not bind, or NULL. An ordinary user of the
 * initial namespace, with neither capability, needs no trial. */
static const char *nproc_exempt(void)
{
	struct stat ns;
	int plain = stat("/proc/self/ns/user", &ns) == 0 && ns.st_ino == INITIAL_USERNS_INO &&
		    !uid0() && !cap_held(CAP_SYS_ADMIN) && !cap_held(CAP_SYS_RESOURCE);
	if (plain || nproc_binds())
		return NULL;
	return uid0() ? "root" : "this caller (it holds CAP_SYS_ADMIN or CAP_SYS_RESOURCE)";
}

/* --pids without a cgroup, where RLIMIT_NPROC does not bind: refused, or
 * under --best-effort run and reported as not enforced. */
static void pids_unheld(const struct opts *o, struct enforced *e, const char *who)
{
	if (!o->best_effort)
		sr_fatal(SR_EXIT_SYS, "--pids cannot be held: RLIMIT_NPROC does not bind %s, "
			 "and there is no cgroup (%s): run sr-limit in a delegated cgroup v2, "
			 "whose pids.max binds root too, or as an ordinary user, or add "
			 "--best-effort to run with --pids not enforced", who, e->cgroup_why);
	e->unheld |= UNHELD_PIDS;
	e->nproc_exempt = who;
	sr_warn("--pids is not enforced (--best-effort): RLIMIT_NPROC does not bind %s, "
		"and there is no cgroup (%s)", who, e->cgroup_why);
}

int rl_prepare(const struct opts *o, struct enforced *e)
{
	/* Root's programs would be free to raise any hard limit: they run
	 * without CAP_SYS_RESOURCE (and so cannot get it back at exec). In
	 * a user namespace it raises no limit, but is dropped all the same. */
	e->drop_resource = cap_held(CAP_SYS_RESOURCE) ||
			   (uid0() && prctl(PR_CAPBSET_READ, CAP_SYS_RESOURCE, 0, 0, 0) == 1);
	if (o->pids.set && !e->cgroup) {
		const char *who = nproc_exempt();
		if (who) {
			pids_unheld(o, e, who);
		} else {
			e->nproc_uid = getuid();
			e->nproc_base = user_tasks();
			e->nproc_rlimit = (rlim_t)(e->nproc_base + o->pids.value);
			if (o->verbose)
				sr_note("--pids: RLIMIT_NPROC %llu, uid %u's %llu tasks and %llu more",
					(unsigned long long)e->nproc_rlimit, (unsigned)e->nproc_uid,
					(unsigned long long)e->nproc_base,
					(unsigned long long)o->pids.value);
		}
	}
	if (o->verbose && e->drop_resource)
		sr_note("%s runs without CAP_SYS_RESOURCE: it cannot raise a hard limit", o->argv[0]);
	/* cgroup v2 has no CPU-time total (cpu.max is a rate): always an
	 * rlimit, rounded up to whole seconds as RLIMIT_CPU counts them. */
	if (o->cpu_ns.set)
		e->cpu_rlimit = (rlim_t)((o->cpu_ns.value + 999999999ULL) / 1000000000ULL);
	return 0;
}

static int set1(int res, const char *name, rlim_t soft, rlim_t hard)
{
	struct rlimit r = { soft, hard };
	if (setrlimit(res, &r) == 0)
		return 0;
	sr_warn_sys("unable to set %s limit to %llu", name, (unsigned long long)soft);
	return -1;
}

/* Runs in the child. Returns -1 when a limit could not be set. */
int rl_apply(const struct opts *o, const struct enforced *e)
{
	int r = 0;
	if (o->data.set)
		r |= set1(RLIMIT_DATA, "data", o->data.value, o->data.value);
	if (o->as.set)
		r |= set1(RLIMIT_AS, "address space", o->as.value, o->as.value);
	if (o->cpu_ns.set)
		r |= set1(RLIMIT_CPU, "cpu", e->cpu_rlimit, e->cpu_rlimit + 1);
	if (o->pids.set && !e->cgroup && !(e->unheld & UNHELD_PIDS))
		r |= set1(RLIMIT_NPROC, "process", e->nproc_rlimit, e->nproc_rlimit);
	if (o->nofile.set)
		r |= set1(RLIMIT_NOFILE, "open file", o->nofile.value, o->nofile.value);
	if (o->fsize.set)
		r |= set1(RLIMIT_FSIZE, "file size", o->fsize.value, o->fsize.value);
	if (o->stack.set)
		r |= set1(RLIMIT_STACK, "stack", o->stack.value, o->stack.value);
	if (o->core.set)
		r |= set1(RLIMIT_CORE, "core", o->core.value, o->core.value);
	return r ? -1 : 0;
}

/* Runs in the child, after rl_apply (which may have used it to raise a
 * hard limit): CAP_SYS_RESOURCE out of the bounding, ambient, permitted,
 * effective and inheritable sets, so that neither prog nor anything it
 * execs can raise a limit again. -1 when it stays. */
int rl_drop_resource(const struct enforced *e)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	const int c = CAP_SYS_RESOURCE;
	if (!e->drop_resource)
		return 0;
	if (prctl(PR_CAPBSET_READ, c, 0, 0, 0) == 1 && prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0) {
		sr_warn_sys("unable to drop CAP_SYS_RESOURCE from the bounding set");
		return -1;
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, c, 0, 0) < 0 && errno != EINVAL) {
		sr_warn_sys("unable to drop CAP_SYS_RESOURCE from the ambient set");
		return -1;
	}
	if (syscall(SYS_capget, &h, d) == 0) {
		d[c / 32].effective &= ~(1U << (c % 32));
		d[c / 32].permitted &= ~(1U << (c % 32));
		d[c / 32].inheritable &= ~(1U << (c % 32));
		if (syscall(SYS_capset, &h, d) == 0 && !cap_held(c))
			return 0;
	}
	sr_warn_sys("unable to drop CAP_SYS_RESOURCE");
	return -1;
}
