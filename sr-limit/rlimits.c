/* rlimits.c - the limits every kernel has, set in the child before exec. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sr.h"
#include "sr-limit.h"

/* RLIMIT_NPROC counts every task (process or thread) of the real uid on
 * the host, not only the child's. To give the child N more, count what the
 * user already runs. Tasks of other users' processes are not counted. */
static uint64_t user_tasks(void)
{
	DIR *d = opendir("/proc");
	uid_t uid = getuid();
	uint64_t total = 0;
	struct dirent *de;
	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL) {
		struct stat st;
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, 0) < 0 || st.st_uid != uid)
			continue;
		long long threads;  /* proc(5) field 20, num_threads */
		if (sr_proc_stat_num(dirfd(d), de->d_name, 20, &threads) == 0)
			total += (uint64_t)threads;
	}
	closedir(d);
	return total;
}

int rl_prepare(const struct opts *o, struct enforced *e)
{
	if (o->pids.set && !e->cgroup) {
		e->nproc_base = user_tasks();
		e->nproc_rlimit = (rlim_t)(e->nproc_base + o->pids.value);
	}
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
	if (o->pids.set && !e->cgroup)
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
