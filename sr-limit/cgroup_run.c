/* cgroup_run.c - one run's cgroup: its limits, joining it, reading it
 * back, and killing everything in it before it is removed. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sr.h"
#include "sr-limit.h"

int cg_write(const char *dir, const char *file, const char *val)
{
	char path[CG_PATH_MAX + 300];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	return sr_write_str(path, val);
}

char *cg_read(const char *dir, const char *file)
{
	char path[CG_PATH_MAX + 300];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	return sr_read_file(path, 1 << 20, NULL);
}

/* The run's owner holds a lock on this while it lives. */
int cg_open_procs(const char *dir)
{
	char path[CG_PATH_MAX + 300];
	snprintf(path, sizeof path, "%s/cgroup.procs", dir);
	return open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
}

static int set_num(const char *dir, const char *file, uint64_t v)
{
	char s[32];
	snprintf(s, sizeof s, "%llu", (unsigned long long)v);
	return cg_write(dir, file, s);
}

/* The limits; swap is off for every run (memory.swap.max is missing where
 * the kernel does not account swap: then there is none to turn off). The
 * OOM killer takes the whole run, not one process of it. */
int cg_configure(const struct opts *o, struct enforced *e)
{
	const char *dir = e->cgroup_path;
	if (o->mem.set && set_num(dir, "memory.max", o->mem.value) < 0)
		return -1;
	if (cg_write(dir, "memory.swap.max", "0") == 0)
		e->swap_off = 1;
	else if (errno != ENOENT)
		return -1;
	if (cg_write(dir, "memory.oom.group", "1") < 0 && errno != ENOENT)
		return -1;
	if (o->pids.set && set_num(dir, "pids.max", o->pids.value) < 0)
		return -1;
	if (o->cpus_milli.set) {
		char v[64];
		snprintf(v, sizeof v, "%llu 100000",
			 (unsigned long long)(o->cpus_milli.value * 100));
		if (cg_write(dir, "cpu.max", v) < 0)
			return -1;
	}
	return 0;
}

int cg_enter(const struct enforced *e)
{
	if (!e->cgroup)
		return 0;
	return cg_write(e->cgroup_path, "cgroup.procs", "0");
}

/* FN on each cgroup directly below DIR (at most 16 deep). */
static void each_child(const char *dir, int depth, void (*fn)(const char *, int))
{
	DIR *d = depth < 16 ? opendir(dir) : NULL;
	struct dirent *de;
	while (d && (de = readdir(d)) != NULL) {
		char sub[CG_PATH_MAX + 300];
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		if (snprintf(sub, sizeof sub, "%s/%s", dir, de->d_name) < (int)sizeof sub)
			fn(sub, depth + 1);
	}
	if (d)
		closedir(d);
}

/* SIGKILL to every process of DIR and the cgroups below it, where the
 * kernel has no cgroup.kill (before Linux 5.14). */
static void kill_procs(const char *dir, int depth)
{
	char *procs = cg_read(dir, "cgroup.procs");
	for (char *p = procs ? strtok(procs, "\n") : NULL; p; p = strtok(NULL, "\n"))
		(void)kill((pid_t)atol(p), SIGKILL);
	free(procs);
	each_child(dir, depth, kill_procs);
}

static void kill_all(const char *dir)
{
	if (cg_write(dir, "cgroup.kill", "1") < 0)
		kill_procs(dir, 0);
}

void cg_kill(const struct enforced *e)
{
	if (e->cgroup)
		kill_all(e->cgroup_path);
}

/* Remove DIR and the cgroups below it (a nested sr-limit's leaf, say),
 * deepest first. */
static void rm_below(const char *dir, int depth)
{
	each_child(dir, depth, rm_below);
	(void)rmdir(dir);
}

static int rm_tree(const char *dir)
{
	each_child(dir, 0, rm_below);
	return rmdir(dir);
}

/* Kill everything in DIR, wait for it to die (up to 5 s), remove DIR. */
void cg_destroy(const char *dir)
{
	for (int i = 0; i < 5000; i++) {
		kill_all(dir);
		if (rm_tree(dir) == 0 || errno == ENOENT)
			return;
		if (errno != EBUSY)
			break;
		usleep(1000);
	}
	sr_warn_sys("unable to remove cgroup %s", dir);
}

/* Value of KEY in a "key value" flat-keyed file. */
static int read_key(const char *dir, const char *file, const char *key, uint64_t *v)
{
	char *s = cg_read(dir, file);
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
	const char *dir = e->cgroup_path;
	out->cg_peak_ok = read_key(dir, "memory.peak", "", &out->cg_peak) == 0;
	(void)read_key(dir, "cpu.stat", "user_usec", &out->cg_user_us);
	(void)read_key(dir, "cpu.stat", "system_usec", &out->cg_sys_us);
	(void)read_key(dir, "memory.events", "oom", &out->cg_ooms);
	(void)read_key(dir, "memory.events", "oom_kill", &out->cg_oom_kills);
	(void)read_key(dir, "pids.events", "max", &out->cg_pids_max_hits);
}

void cg_remove(struct enforced *e)
{
	if (!e->cgroup)
		return;
	cg_destroy(e->cgroup_path);
	if (e->cgroup_lock >= 0)
		close(e->cgroup_lock);
	e->cgroup_lock = -1;
}
