/* cgroup.c - a child cgroup v2 per run, where the user has one delegated.
 *
 * Delegated means: /sys/fs/cgroup is cgroup2, the cgroup this process is
 * in (from /proc/self/cgroup) is writable by us, and its
 * cgroup.subtree_control enables the controllers we need (or we may enable
 * them). systemd gives each user such a cgroup (user@UID.service); run sr-limit
 * from a scope with Delegate=yes, e.g. `systemd-run --user --scope -p
 * Delegate=yes sr-limit ...`.
 *
 * The layout below the base cgroup B (the one we are in):
 *   B/sr-limit.leaf   the processes that were in B (a terminal's shell, other
 *                     sr-limits), moved there once so that B may enable
 *                     controllers: the kernel lets a cgroup with members
 *                     enable none ("no internal processes")
 *   B/sr-limit.PID    one run's cgroup, owned by the sr-limit of that pid,
 *                     which holds a lock on its cgroup.procs while it lives
 * An sr-limit started in B/sr-limit.leaf uses B. Runs whose owner is gone
 * (sr-limit was SIGKILLed) are killed and removed by the next sr-limit. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "sr.h"
#include "sr-limit.h"

#define CGROUP2_MAGIC 0x63677270
#define CG_ROOT "/sys/fs/cgroup"

/* The cgroup runs are made in: our own, or the parent of the leaf an
 * earlier sr-limit moved us into. -1 with a reason. */
static int base_cgroup(char *buf, size_t len, const char **why)
{
	struct statfs sf;
	if (statfs(CG_ROOT, &sf) < 0 || sf.f_type != CGROUP2_MAGIC) {
		*why = CG_ROOT " is not a cgroup v2 hierarchy";
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
	int n = snprintf(buf, len, CG_ROOT "%s", strcmp(line, "/") ? line : "");
	free(self);
	if (n < 0 || (size_t)n >= len) {
		*why = "the cgroup path is too long";
		return -1;
	}
	char *slash = strrchr(buf, '/');
	if (strcmp(slash + 1, CG_LEAF) == 0 && slash > buf + strlen(CG_ROOT))
		*slash = '\0';
	return 0;
}

/* Move every process of DIR into DIR/sr-limit.leaf, as container runtimes
 * do, until none is left: one forked meanwhile is caught by the next round. */
static int move_to_leaf(const char *dir, const char **why)
{
	char leaf[CG_PATH_MAX + 32];
	snprintf(leaf, sizeof leaf, "%s/" CG_LEAF, dir);
	if (mkdir(leaf, 0755) < 0 && errno != EEXIST) {
		*why = "cannot create a leaf cgroup for the current cgroup's processes";
		return -1;
	}
	for (int round = 0; round < 100; round++) {
		char *procs = cg_read(dir, "cgroup.procs");
		if (!procs) {
			*why = "the current cgroup's cgroup.procs is not readable";
			return -1;
		}
		int moved = 0, err = 0;
		for (char *p = strtok(procs, "\n"); p; p = strtok(NULL, "\n")) {
			if (cg_write(leaf, "cgroup.procs", p) == 0)
				moved++;
			else if (errno != ESRCH)
				err = errno;
		}
		free(procs);
		if (err) {
			*why = "cannot move the current cgroup's processes into a leaf cgroup";
			return -1;
		}
		if (!moved)
			return 0;
	}
	*why = "processes kept appearing in the current cgroup";
	return -1;
}

/* Enable what BASE's children lack; 1 when its members are in the way. */
static int enable_missing(const char *base, const struct opts *o, const char **why)
{
	char *have = cg_read(base, "cgroup.subtree_control");
	if (!have) {
		*why = "the current cgroup is not readable";
		return -1;
	}
	const char *need[] = { "memory", "pids", o->cpus_milli.set ? "cpu" : NULL };
	int r = 0;
	for (size_t i = 0; i < 3 && r == 0; i++) {
		char req[32];
		if (!need[i] || strstr(have, need[i]))
			continue;
		snprintf(req, sizeof req, "+%s", need[i]);
		if (cg_write(base, "cgroup.subtree_control", req) == 0)
			continue;
		r = errno == EBUSY ? 1 : -1;
		*why = errno == ENOENT ? "a controller it needs (memory, pids, cpu for --cpus) "
		       "is not delegated to the current cgroup" :
		       "the current cgroup is not delegated (cannot enable its controllers)";
	}
	free(have);
	return r;
}

static int enable_controllers(const char *base, const struct opts *o, const char **why)
{
	for (int tries = 0; tries < 20; tries++) {
		int r = enable_missing(base, o, why);
		if (r <= 0)
			return r;
		if (move_to_leaf(base, why) < 0)
			return -1;
	}
	return -1;
}

/* Is NAME a run's cgroup, sr-limit.DIGITS? */
static int run_name(const char *name)
{
	const char *p = name + strlen(CG_RUN_PREFIX);
	if (strncmp(name, CG_RUN_PREFIX, strlen(CG_RUN_PREFIX)) != 0 || !*p)
		return 0;
	return strspn(p, "0123456789") == strlen(p);
}

/* Kill and remove the runs below BASE whose sr-limit is gone: nobody holds
 * the lock on their cgroup.procs. Called with BASE locked. */
static void sweep(int bfd, const char *base)
{
	DIR *d = fdopendir(dup(bfd));
	struct dirent *de;
	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		char dir[CG_PATH_MAX + 300];
		if (!run_name(de->d_name))
			continue;
		snprintf(dir, sizeof dir, "%s/%s", base, de->d_name);
		int fd = cg_open_procs(dir);
		if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		cg_destroy(dir);
		close(fd);
	}
	closedir(d);
}

/* Make BASE/sr-limit.PID and take its owner's lock; with BASE locked, so
 * that no sweep takes a run between its mkdir and its lock. */
static int make_run(const struct opts *o, const char *base, struct enforced *e,
		    const char **why)
{
	int bfd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (bfd < 0 || flock(bfd, LOCK_EX) < 0) {
		if (bfd >= 0)
			close(bfd);
		*why = "cannot open (or lock) the current cgroup";
		return -1;
	}
	sweep(bfd, base);
	snprintf(e->cgroup_path, sizeof e->cgroup_path, "%s/" CG_RUN_PREFIX "%ld", base,
		 (long)getpid());
	int r = -1, made = 0;
	if (mkdir(e->cgroup_path, 0755) < 0)
		*why = "cannot create a child cgroup";
	else if ((made = 1, e->cgroup_lock = cg_open_procs(e->cgroup_path)) < 0 ||
		 flock(e->cgroup_lock, LOCK_EX) < 0)
		*why = "cannot lock the child cgroup";
	else if (cg_configure(o, e) < 0)
		*why = "cannot write the child cgroup's limits";
	else
		r = 0;
	if (r < 0)
		sr_warn_sys("unable to set up cgroup %s", e->cgroup_path);
	if (r < 0 && made) {
		if (e->cgroup_lock >= 0)
			close(e->cgroup_lock);
		e->cgroup_lock = -1;
		rmdir(e->cgroup_path);
	}
	close(bfd);
	return r;
}

static int try_cgroup(const struct opts *o, struct enforced *e, const char **why)
{
	char base[CG_PATH_MAX];
	e->cgroup_lock = -1;
	if (base_cgroup(base, sizeof base, why) < 0 ||
	    enable_controllers(base, o, why) < 0 || make_run(o, base, e, why) < 0)
		return -1;
	e->cgroup = 1;
	return 0;
}

int cg_setup(const struct opts *o, struct enforced *e)
{
	const char *why = NULL;

	if (o->cgroup == CG_OFF) {
		e->cgroup_why = "--cgroup=off";
		if (o->cpus_milli.set || o->mem.set)
			sr_usage("%s needs a cgroup; it cannot be used with --cgroup=off%s",
				 o->mem.set ? "--mem" : "--cpus",
				 o->mem.set ? " (--data bounds each process's private memory)" : "");
		return 0;
	}
	if (try_cgroup(o, e, &why) == 0)
		return 0;
	e->cgroup_why = why;
	/* Fail closed: without a cgroup nothing bounds the run's memory as a
	 * whole (RLIMIT_DATA is per process and does not count shared
	 * memory: MAP_SHARED, memfd, SysV shm), so --mem is not pretended;
	 * under --best-effort the report says it was not enforced. */
	if (o->mem.set && !o->best_effort)
		sr_fatal(SR_EXIT_SYS, "--mem needs a delegated cgroup v2 (%s): run sr-limit under "
			 "'systemd-run --user --scope -p Delegate=yes', or use --data SIZE, "
			 "which bounds each process's private memory only", why);
	if (o->cgroup == CG_REQUIRE || (o->cpus_milli.set && !o->best_effort))
		sr_fatal(SR_EXIT_SYS, "unable to use a cgroup (%s): %s",
			 o->cpus_milli.set && !o->best_effort ? "--cpus needs one" :
			 "--cgroup=require", why);
	e->unheld |= (o->mem.set ? UNHELD_MEM : 0) | (o->cpus_milli.set ? UNHELD_CPUS : 0);
	if (e->unheld)
		sr_warn("%s not enforced (--best-effort): there is no cgroup (%s)",
			o->mem.set && o->cpus_milli.set ? "--mem and --cpus are" :
			o->mem.set ? "--mem is" : "--cpus is", why);
	if (o->verbose)
		sr_note("no cgroup (%s): enforcing with rlimits alone", why);
	return 0;
}
