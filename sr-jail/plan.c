/* plan.c - the mount plan: the steps the new root is built from, planned
 * while the host is in view and carried out after pivot_root (mounts.c).
 * What the plan knows: a detached clone of a host path (a system path, a
 * --bind source followed through no link), a symlink copied, a tmpfs, and
 * the mount points' parent directories made inside the new root. etc.c,
 * prog.c and quota.c add to it; nothing here calls up into them. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>

#include "plan.h"
#include "sr.h"

struct step *plan_add(struct plan *p, enum skind kind, const char *dst)
{
	p->v = sr_grow(p->v, p->n, &p->cap, sizeof *p->v);
	struct step *s = &p->v[p->n++];
	memset(s, 0, sizeof *s);
	s->kind = kind;
	s->dst = dst;
	s->fd = -1;
	return s;
}

int jail_clone_tree(int dfd, const char *path, int flags, uint64_t attr,
		    const char *what)
{
	int fd = open_tree(dfd, path, (unsigned)flags | OPEN_TREE_CLONE |
			   OPEN_TREE_CLOEXEC | AT_RECURSIVE);
	if (fd < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to bind %s", what);
	struct mount_attr ma = {.attr_set = attr};
	if (mount_setattr(fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &ma, sizeof ma) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to set %s%s on %s",
			     attr & MOUNT_ATTR_RDONLY ? "ro," : "",
			     attr & MOUNT_ATTR_NODEV ? "nosuid,nodev" : "nosuid", what);
	return fd;
}

/* A step that attaches the detached tree fd at dst. isdir < 0: not known
 * yet. */
static void plan_clone(struct plan *p, int fd, const char *src, const char *dst,
		       int isdir)
{
	struct stat st;
	if (isdir < 0) {
		if (fstat(fd, &st) < 0)
			sr_fatal_sys(SR_EXIT_SYS, "unable to stat %s", src);
		isdir = S_ISDIR(st.st_mode);
	}
	struct step *s = plan_add(p, S_TREE, dst);
	s->fd = fd;
	s->isdir = isdir;
	s->text = src;
}

/* A recursive bind of a system path (a symlink is followed), detached for
 * now. */
void plan_tree(struct plan *p, const char *src, const char *dst,
		uint64_t attr, int isdir)
{
	plan_clone(p, jail_clone_tree(AT_FDCWD, src, 0, attr, src), src, dst, isdir);
}

/* A --bind or --ro-bind source is the caller's, but a path under a
 * workspace may have been changed by an earlier job: a link planted there
 * (job/out -> ~/.ssh) must not make the next run bind the user's keys. So
 * no symbolic link is followed anywhere in the path. */
/* path opened (flags | O_PATH) following no link, or fatal: "unable to
 * WHAT path", saying why. */
static int open_nofollow(const char *path, int flags, const char *what)
{
	int fd = sr_open_nofollow(path, O_PATH | flags);
	if (fd < 0 && errno == ELOOP)
		sr_fatal(SR_EXIT_SYS, "unable to %s %s: it is or passes through a symbolic "
			 "link, which sr-jail does not follow (give the resolved path)", what, path);
	if (fd < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to %s %s", what, path);
	return fd;
}

int jail_open_user(const char *src)
{
	return open_nofollow(src, 0, "bind");
}

void plan_user_tree(struct plan *p, const char *src, const char *dst,
		    uint64_t attr)
{
	int at = jail_open_user(src);
	int fd = jail_clone_tree(at, "", AT_EMPTY_PATH, attr, src);
	close(at);
	plan_clone(p, fd, src, dst, -1);
}

/* The target of the link name in dfd, st_size long by lstat. */
static char *read_link(int dfd, const char *name, off_t size, const char *what)
{
	char *target = malloc((size_t)size + PATH_MAX + 1);
	ssize_t n = target ? readlinkat(dfd, name, target, (size_t)size + PATH_MAX) : -1;
	if (n < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to read the symlink %s", what);
	target[n] = '\0';
	return target;
}

/* --rootfs DIR is the administrator's, but may be an image from anywhere:
 * no link is followed to reach it (as for --bind), and what is in it is
 * looked up as its own root would look it up (plan_rootfs). */
int jail_open_rootfs(const char *dir)
{
	return open_nofollow(dir, O_DIRECTORY, "use --rootfs");
}

int jail_open_rootfs_layer(const char *dir)
{
	return open_nofollow(dir, O_DIRECTORY, "use --rootfs-layer");
}

/* The directory holding src (absolute) inside the rootfs, resolved with
 * RESOLVE_IN_ROOT: an absolute link or a .. on the way stays inside it,
 * so a link in an image (etc/ssl -> /home/user/.ssh) leads to the image's
 * path of that name, never to the host's. -1 with errno. */
static int rootfs_parent(const struct plan *p, const char *src, const char **base)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(src, '/');
	size_t n = (size_t)(slash - src);
	if (n >= sizeof dir) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(dir, src, n);
	dir[n] = '\0';
	*base = slash + 1;
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	return (int)syscall(SYS_openat2, p->sysfd, n ? dir : "/", &how, sizeof how);
}

/* plan_host's work for a path of the rootfs. */
static void plan_rootfs(struct plan *p, const char *src, const char *dst, uint64_t attr,
			int optional)
{
	const char *base;
	char *what;
	struct stat st;
	if (asprintf(&what, "%s%s", p->sysroot, src) < 0)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	int dfd = rootfs_parent(p, src, &base);
	if (dfd < 0 || fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (optional && (errno == ENOENT || errno == ENOTDIR || errno == EACCES ||
				 errno == ELOOP)) {
			if (dfd >= 0)
				close(dfd);
			free(what);
			return;
		}
		sr_fatal_sys(SR_EXIT_SYS, "unable to find %s in the --rootfs", what);
	}
	if (S_ISLNK(st.st_mode))
		plan_add(p, S_LINK, dst)->text = read_link(dfd, base, st.st_size, what);
	else
		plan_clone(p, jail_clone_tree(dfd, base, AT_SYMLINK_NOFOLLOW, attr, what), what,
			   dst, S_ISDIR(st.st_mode));
	close(dfd);
}

void plan_host(struct plan *p, const char *src, const char *dst, uint64_t attr,
	       int optional)
{
	struct stat st;
	if (p->sysfd >= 0) {
		plan_rootfs(p, src, dst, attr, optional);
		return;
	}
	if (lstat(src, &st) < 0) {
		if (optional && (errno == ENOENT || errno == ENOTDIR || errno == EACCES))
			return;
		sr_fatal_sys(SR_EXIT_SYS, "unable to find %s", src);
	}
	if (!S_ISLNK(st.st_mode)) {
		plan_tree(p, src, dst, attr, S_ISDIR(st.st_mode));
		return;
	}
	plan_add(p, S_LINK, dst)->text = read_link(AT_FDCWD, src, st.st_size, src);
}

/* What src points to, bound at dst: for a host file kept elsewhere behind
 * a link whose target the jail does not have (/etc/resolv.conf ->
 * ../run/systemd/resolve/stub-resolv.conf). Nothing if it leads nowhere. */
void plan_host_target(struct plan *p, const char *src, const char *dst, uint64_t attr)
{
	struct stat st;
	if (stat(src, &st) == 0)
		plan_tree(p, src, dst, attr, S_ISDIR(st.st_mode));
	else if (errno != ENOENT && errno != ENOTDIR && errno != EACCES && errno != ELOOP)
		sr_fatal_sys(SR_EXIT_SYS, "unable to find %s", src);
}

void plan_tmpfs(struct plan *p, const char *dst, uint64_t size,
		unsigned mode, unsigned long flags)
{
	struct step *s = plan_add(p, S_TMPFS, dst);
	s->size = size;
	s->mode = mode;
	s->flags = MS_NOSUID | MS_NODEV | flags;
}

/* mkdir -p of dst's parent. Steps come in tree order, so the parent made
 * last time is remembered and not made again, until something is mounted
 * over it or over one of its parents. */
static char made[PATH_MAX];

void jail_mounted_on(const char *dst)
{
	size_t n = strlen(dst);
	if (strncmp(made, dst, n) == 0 && (made[n] == '/' || made[n] == '\0'))
		made[0] = '\0';
}

void jail_mkparents(const char *dst)
{
	char buf[PATH_MAX];
	const char *slash = strrchr(dst, '/');
	size_t n = (size_t)(slash - dst);
	if (n >= sizeof buf)
		sr_fatal(SR_EXIT_SYS, "unable to create %s: path too long", dst);
	memcpy(buf, dst, n);
	buf[n] = '\0';
	if (n == 0 || strcmp(buf, made) == 0)
		return;
	for (char *s = strchr(buf + 1, '/');; s = strchr(s + 1, '/')) {
		if (s)
			*s = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			sr_fatal_sys(SR_EXIT_SYS, "unable to create directory %s", buf);
		if (!s)
			break;
		*s = '/';
	}
	memcpy(made, buf, n + 1);
}
