/* cgroup.c - a child cgroup v2 per run, where the user has one delegated.
 *
 * Delegated means: /sys/fs/cgroup is cgroup2, the cgroup this process is
 * in (from /proc/self/cgroup) is writable by us, and its
 * cgroup.subtree_control enables the controllers we need (or we may enable
 * them). systemd gives each user such a cgroup (user@UID.service); run sr-limit
 * from a scope with Delegate=yes, e.g. `systemd-run --user --scope -p
 * Delegate=yes sr-limit ...`. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "sr.h"
#include "sr-limit.h"

#define CGROUP2_MAGIC 0x63677270

static int write_str(const char *dir, const char *file, const char *val)
{
	char path[700];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	return sr_write_str(path, val);
}

/* Our own cgroup directory, or -1 with a reason. */
static int own_cgroup(char *buf, size_t len, const char **why)
{
	struct statfs sf;
	if (statfs("/sys/fs/cgroup", &sf) < 0 || sf.f_type != CGROUP2_MAGIC) {
		*why = "/sys/fs/cgroup is not a cgroup v2 hierarchy";
		return -1;
	}
	char *self = sr_read_file("/proc/self/cgroup", 1 << 16, NULL);
	char *line = self ? strstr(self, "0::") : NULL;
	if (!line) {
		free(self);
		*why = "no cgroup v2 entry in /proc/self/cgroup";
		return -1;
	}
	line += 3;
	line[strcspn(line, "\n")] = '\0';
	snprintf(buf, len, "/sys/fs/cgroup%s", strcmp(line, "/") ? line : "");
	free(self);
	return 0;
}

/* Make sure PARENT's children get the controllers we need. */
static int enable_controllers(const char *parent, const struct opts *o, const char **why)
{
	char path[600];
	snprintf(path, sizeof path, "%s/cgroup.subtree_control", parent);
	char *have = sr_read_file(path, 4096, NULL);
	if (!have) {
		*why = "the current cgroup is not readable";
		return -1;
	}
	const char *need[] = { "memory", "pids", o->cpus_milli.set ? "cpu" : NULL };
	for (size_t i = 0; i < 3; i++) {
		if (!need[i] || strstr(have, need[i]))
			continue;
		char req[32];
		snprintf(req, sizeof req, "+%s", need[i]);
		if (write_str(parent, "cgroup.subtree_control", req) < 0) {
			free(have);
			*why = "the current cgroup is not delegated (cannot enable its controllers)";
			return -1;
		}
	}
	free(have);
	return 0;
}

static int configure(const struct opts *o, const char *dir)
{
	char v[64];
	if (o->mem.set) {
		snprintf(v, sizeof v, "%llu", (unsigned long long)o->mem.value);
		if (write_str(dir, "memory.max", v) < 0)
			return -1;
		if (write_str(dir, "memory.swap.max", "0") < 0 && errno != ENOENT)
			return -1;
	}
	if (o->pids.set) {
		snprintf(v, sizeof v, "%llu", (unsigned long long)o->pids.value);
		if (write_str(dir, "pids.max", v) < 0)
			return -1;
	}
	if (o->cpus_milli.set) {
		snprintf(v, sizeof v, "%llu 100000",
			 (unsigned long long)(o->cpus_milli.value * 100));
		if (write_str(dir, "cpu.max", v) < 0)
			return -1;
	}
	return 0;
}

int cg_setup(const struct opts *o, struct enforced *e)
{
	char parent[512];
	const char *why = NULL;

	if (o->cgroup == CG_OFF) {
		e->cgroup_why = "--cgroup=off";
		if (o->cpus_milli.set || o->mem.set)
			sr_usage("%s needs a cgroup; it cannot be used with --cgroup=off%s",
				 o->mem.set ? "--mem" : "--cpus",
				 o->mem.set ? " (--data bounds each process's private memory)" : "");
		return 0;
	}
	if (own_cgroup(parent, sizeof parent, &why) == 0 &&
	    enable_controllers(parent, o, &why) == 0) {
		int n = snprintf(e->cgroup_path, sizeof e->cgroup_path, "%.400s/sr-limit.%ld",
				 parent, (long)getpid());
		if (n < 0 || (size_t)n >= sizeof e->cgroup_path) {
			why = "the cgroup path is too long";
		} else if (mkdir(e->cgroup_path, 0755) < 0) {
			why = "cannot create a child cgroup";
		} else if (configure(o, e->cgroup_path) < 0) {
			sr_warn_sys("unable to configure cgroup %s", e->cgroup_path);
			rmdir(e->cgroup_path);
			why = "cannot write the child cgroup's limits";
		} else {
			e->cgroup = 1;
			return 0;
		}
	}
	e->cgroup_why = why;
	/* Fail closed: without a cgroup nothing bounds the run's memory as a
	 * whole (RLIMIT_DATA is per process and does not count shared
	 * memory: MAP_SHARED, memfd, SysV shm), so --mem is not pretended. */
	if (o->mem.set)
		sr_fatal(SR_EXIT_SYS, "--mem needs a delegated cgroup v2 (%s): run sr-limit under "
			 "'systemd-run --user --scope -p Delegate=yes', or use --data SIZE, "
			 "which bounds each process's private memory only", why);
	if (o->cgroup == CG_REQUIRE || o->cpus_milli.set)
		sr_fatal(SR_EXIT_SYS, "unable to use a cgroup (%s): %s", o->cpus_milli.set ?
			 "--cpus needs one" : "--cgroup=require", why);
	if (o->verbose)
		sr_note("no cgroup (%s): enforcing with rlimits alone", why);
	return 0;
}

int cg_enter(const struct enforced *e)
{
	if (!e->cgroup)
		return 0;
	return write_str(e->cgroup_path, "cgroup.procs", "0");
}

void cg_kill(const struct enforced *e)
{
	if (e->cgroup)
		(void)write_str(e->cgroup_path, "cgroup.kill", "1");
}

/* Value of KEY in a "key value" flat-keyed file. */
static int read_key(const char *dir, const char *file, const char *key, uint64_t *v)
{
	char path[700];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	char *s = sr_read_file(path, 1 << 16, NULL);
	if (!s)
		return -1;
	size_t kl = strlen(key);
	int r = -1;
	for (char *l = s; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (key[0] == '\0' || (strncmp(l, key, kl) == 0 && l[kl] == ' ')) {
			*v = strtoull(key[0] ? l + kl + 1 : l, NULL, 10);
			r = 0;
			break;
		}
	}
	free(s);
	return r;
}

void cg_collect(const struct enforced *e, struct outcome *out)
{
	if (!e->cgroup)
		return;
	out->cg_peak_ok = read_key(e->cgroup_path, "memory.peak", "", &out->cg_peak) == 0;
	(void)read_key(e->cgroup_path, "cpu.stat", "user_usec", &out->cg_user_us);
	(void)read_key(e->cgroup_path, "cpu.stat", "system_usec", &out->cg_sys_us);
	(void)read_key(e->cgroup_path, "memory.events", "oom_kill", &out->cg_oom_kills);
	(void)read_key(e->cgroup_path, "pids.events", "max", &out->cg_pids_max_hits);
}

void cg_remove(const struct enforced *e)
{
	if (!e->cgroup)
		return;
	for (int i = 0; i < 100 && rmdir(e->cgroup_path) < 0 && errno == EBUSY; i++) {
		cg_kill(e);
		usleep(1000);
	}
}
