/* mounts.c - the new root: a tmpfs with read-only binds of what programs
 * need, a fresh /proc, a tty-free /dev, size-capped /tmp and HOME.
 *
 * Host paths are opened as detached mount trees (open_tree) while the host
 * is still visible; they are attached (move_mount) after pivot_root, with
 * every destination resolved inside the new root, so that no destination
 * path, and no symlink met on the way to one (say, planted in a bound
 * workspace by an earlier job), can lead back to the host.
 *
 * The layers: this file decides what the root holds and carries the plan
 * out; etc.c, prog.c and quota.c add their parts to the plan; plan.c, the
 * lowest, is the plan itself and calls none of them. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>


#include "etc.h"
#include "jail.h"
#include "layer.h"
#include "mounts.h"
#include "plan.h"
#include "prog.h"
#include "quota.h"
#include "sr.h"

/* /usr, and /bin /sbin /lib* as the host has them (symlinks stay), or
 * as the --rootfs has them. */
static void plan_system(struct plan *p)
{
	static const char *const dirs[] = {
		"/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32",
	};
	plan_host(p, "/usr", "/usr", JAIL_RO, 0);
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++)
		plan_host(p, dirs[i], dirs[i], JAIL_RO, 1);
	/* a --rootfs's package database, read-only (its layer's packages with
	 * it): what dpkg -s and dpkg -L answer in it */
	if (p->sysfd >= 0)
		plan_host(p, "/var/lib/dpkg", "/var/lib/dpkg", JAIL_RO, 1);
}

/* Five device nodes (binds of the host's: the only mounts without nodev),
 * /dev/fd links, and a /dev/shm tmpfs. No tty, no pts, no console. */
static void plan_dev(struct plan *p, const struct jail *j)
{
	static const char *const nodes[] = {
		"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
	};
	static const char *const links[][2] = {
		{"/dev/fd", "/proc/self/fd"}, {"/dev/stdin", "/proc/self/fd/0"},
		{"/dev/stdout", "/proc/self/fd/1"}, {"/dev/stderr", "/proc/self/fd/2"},
	};
	for (size_t i = 0; i < sizeof nodes / sizeof *nodes; i++)
		plan_tree(p, nodes[i], nodes[i], MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC, 0);
	for (size_t i = 0; i < sizeof links / sizeof *links; i++)
		plan_add(p, S_LINK, links[i][0])->text = links[i][1];
	plan_tmpfs(p, "/dev/shm", j->shm_size, 01777, MS_NOEXEC);
}

static void plan_user(struct plan *p, struct jail *j)
{
	for (size_t i = 0; i < j->nmounts; i++) {
		const struct mreq *m = &j->mounts[i];
		if (m->kind == MK_TMPFS)
			plan_tmpfs(p, m->dst, m->size, 0755, 0);
		else if (m->kind == MK_BIND && m->size)
			plan_quota(p, j, m);
		else
			plan_user_tree(p, m->src, m->dst, m->kind == MK_BIND ? JAIL_RW : JAIL_RO);
	}
}

static void mount_tmpfs(const struct step *s)
{
	char opts[128];
	uint64_t inodes = s->size / 4096 < 4096 ? 4096 : s->size / 4096;
	snprintf(opts, sizeof opts, "mode=%o,size=%llu,nr_inodes=%llu", s->mode,
		 (unsigned long long)s->size, (unsigned long long)inodes);
	if (mkdir(s->dst, 0755) < 0 && errno != EEXIST)
		sr_fatal_sys(SR_EXIT_SYS, "unable to create directory %s", s->dst);
	if (mount("tmpfs", s->dst, "tmpfs", s->flags, opts) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to mount a tmpfs on %s", s->dst);
}

static void attach_tree(const struct step *s)
{
	int r = s->isdir ? mkdir(s->dst, 0755) : mknod(s->dst, S_IFREG | 0644, 0);
	if (r < 0 && errno != EEXIST)
		sr_fatal_sys(SR_EXIT_SYS, "unable to create the mount point %s", s->dst);
	if (move_mount(s->fd, "", AT_FDCWD, s->dst, MOVE_MOUNT_F_EMPTY_PATH) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to mount %s on %s", s->text, s->dst);
	close(s->fd);
}

static void write_file(const struct step *s)
{
	int fd = open(s->dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 || sr_write_all(fd, s->text, strlen(s->text)) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to write %s", s->dst);
	close(fd);
}

static void run_step(const struct jail *j, const struct step *s)
{
	static const char *const what[] = {"bind", "symlink", "tmpfs", "file", "overlay"};
	const char *from = s->kind == S_TREE || s->kind == S_LINK ||
			   s->kind == S_OVERLAY ? s->text : NULL;
	jail_note(j, "%s %s%s%s", what[s->kind], s->dst, from ? " from " : "",
		  from ? from : "");
	jail_mkparents(s->dst);
	switch (s->kind) {
	case S_TREE:
		attach_tree(s);
		jail_mounted_on(s->dst);
		break;
	case S_LINK:
		if (symlink(s->text, s->dst) < 0)
			sr_fatal_sys(SR_EXIT_SYS, "unable to create the symlink %s", s->dst);
		break;
	case S_TMPFS:
		mount_tmpfs(s);
		jail_mounted_on(s->dst);
		break;
	case S_FILE:
		write_file(s);
		break;
	case S_OVERLAY:
		jail_mount_overlay(s);
		jail_mounted_on(s->dst);
		break;
	}
}

static struct plan *plan_root(struct jail *j)
{
	struct plan *p = calloc(1, sizeof *p);
	if (!p)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	/* the system, the host's or the rootfs's: /usr, /bin ..., /etc's basics */
	p->sysfd = j->rootfs ? jail_open_system(j->rootfs, j->rootfs_layer) : -1;
	p->sysroot = j->rootfs;
	plan_system(p);
	jail_plan_etc(p, j);
	if (p->sysfd >= 0)
		close(p->sysfd);
	p->sysfd = -1;     /* what follows is the host's */
	plan_dev(p, j);
	plan_tmpfs(p, "/tmp", j->tmp_size, 01777, 0);
	plan_tmpfs(p, JAIL_HOME, j->home_size, 0700, 0);
	plan_user(p, j);
	return p;
}

/* The new root is a tmpfs mounted over /tmp in this private mount
 * namespace. Its /proc is mounted while the host's /proc is still in the
 * namespace (the kernel allows a new proc mount only then). Then
 * pivot_root(".", ".") stacks the old root on top of the new one, where
 * no path reaches it: lookups start at the process root, the new root,
 * and do not climb onto what is stacked over it. */
static void pivot(const struct jail *j)
{
	if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV,
		  "mode=0755,size=1M,nr_inodes=4096") < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to mount the new root (tmpfs on /tmp)");
	if (chdir("/tmp") < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to enter the new root");
	if (mkdir("proc", 0555) < 0 ||
	    mount("proc", "proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to mount /proc");
	/* The kernel's lists of keys are not namespaced: they would show
	 * the caller's keys by name. Not with --allow-userns: the kernel
	 * mounts a nested jail's /proc only over a fully visible one. */
	static const char *const masked[] = { "proc/keys", "proc/key-users" };
	for (size_t i = 0; !j->allow_userns && i < sizeof masked / sizeof *masked; i++)
		if (mount("/dev/null", masked[i], NULL, MS_BIND, NULL) < 0)
			sr_fatal_sys(SR_EXIT_SYS, "unable to hide /%s", masked[i]);
	if (syscall(SYS_pivot_root, ".", ".") < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to pivot_root to the new root");
}

/* In PID 1. Host paths are opened first (plan_root), the tree is built
 * inside the new root, and only then is the old root detached. */
void jail_build_root(struct jail *j)
{
	struct plan *p = plan_root(j);
	pivot(j);
	for (size_t i = 0; i < p->n; i++)
		run_step(j, &p->v[i]);
	jail_place_prog(j);
	if (umount2(".", MNT_DETACH) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to detach the old root");
	struct mount_attr ma = {.attr_set = MOUNT_ATTR_RDONLY};
	if (mount_setattr(AT_FDCWD, "/", 0, &ma, sizeof ma) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to make the new root read-only");
}
