/* quota.c - a --bind with --quota: the host directory becomes the lower,
 * read-only layer of an overlay whose upper layer lives on a tmpfs of the
 * room left under the cap. What the program writes goes to that tmpfs (a
 * write past it fails with ENOSPC, the kernel's doing) and the host's
 * disk is untouched while it runs. When the program has ended and every
 * process of the jail is dead, PID 1 applies the upper layer to the host
 * directory through a descriptor opened before pivot_root, following no
 * link: nothing in the jail is left to race it.
 *
 * The upper layer, as overlayfs keeps it (userxattr: no redirects, no
 * metacopy): a file or symlink written, a directory created or changed
 * (user.overlay.opaque "y" when it replaced one below), and a whiteout
 * (a 0/0 character device) for each name removed. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "jail.h"
#include "sr.h"

#define DEPTH_MAX 256
#define UPPER "/.sr-jail-upper"   /* transient, in the new root: see mount */
#define LOWER "/.sr-jail-lower"

static int open_dir_at(int dfd, const char *name)
{
	return openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* Is path inside a directory the program may write (a --bind)? Then a
 * cache there could be forged by it. */
static int in_writable_bind(const struct jail *j, const char *path)
{
	char *real = realpath(path, NULL);
	if (!real && errno == ENOENT) {         /* not made yet: where it would be */
		char *dir = strdup(path), *slash = dir ? strrchr(dir, '/') : NULL;
		if (slash)
			*slash = '\0';
		real = dir ? realpath(slash ? (*dir ? dir : "/") : ".", NULL) : NULL;
		free(dir);
	}
	int inside = 0;
	for (size_t i = 0; real && !inside && i < j->nmounts; i++) {
		if (j->mounts[i].kind != MK_BIND)
			continue;
		char *src = realpath(j->mounts[i].src, NULL);
		size_t n = src ? strlen(src) : 0;
		inside = src && strncmp(real, src, n) == 0 &&
			 (real[n] == '/' || real[n] == '\0' || n == 1);
		free(src);
	}
	free(real);
	return inside;
}

/* The directory's size now: from --quota-cache when it holds it, else
 * measured (and kept there). */
static uint64_t used_now(const struct jail *j, struct quota *q)
{
	q->cache_fd = -1;
	if (!j->quota_cache)
		return sr_tree_bytes(q->host_fd);
	if (in_writable_bind(j, j->quota_cache))
		sr_usage("--quota-cache: %s is inside a --bind, where the program could "
			 "change it: keep it outside", j->quota_cache);
	q->cache_fd = sr_qcache_open(j->quota_cache);
	if (q->cache_fd < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to open the --quota-cache %s", j->quota_cache);
	if (sr_qcache_lock(q->cache_fd) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to lock the --quota-cache %s", j->quota_cache);
	int measured;
	uint64_t used = sr_qcache_used(q->cache_fd, q->host_fd, &measured);
	sr_qcache_unlock(q->cache_fd);
	jail_note(j, "%s: %llu bytes used, %s", q->dst, (unsigned long long)used,
		  measured ? "measured" : "from the cache");
	return used;
}

void plan_quota(struct plan *p, struct jail *j, const struct mreq *m)
{
	int at = jail_open_user(m->src);
	struct quota *q = &j->quotas[j->nquotas++];
	q->dst = m->dst;
	q->cap = m->size;
	q->upper_fd = -1;
	q->host_fd = openat(at, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (q->host_fd < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to open %s (--quota needs a directory)",
			     m->src);
	uint64_t used = used_now(j, q);
	struct step *s = plan_add(p, S_OVERLAY, m->dst);
	s->fd = jail_clone_tree(at, "", AT_EMPTY_PATH, JAIL_RO, m->src);
	s->text = m->src;
	s->size = used < m->size ? m->size - used : 0;
	s->quota = q;
	close(at);
}

/* After pivot_root, before the old root goes: the tmpfs and the lower
 * tree are attached at two names in the new root for as long as the
 * overlay mount needs paths, then detached (the overlay keeps private
 * clones of them) and the names removed. The program never sees them. */
void jail_mount_overlay(const struct step *s)
{
	char opts[256];
	uint64_t size = s->size ? s->size : 1;   /* rounded up to a page */
	uint64_t inodes = s->quota->cap / 4096 < 4096 ? 4096 : s->quota->cap / 4096;
	snprintf(opts, sizeof opts, "mode=0700,size=%llu,nr_inodes=%llu",
		 (unsigned long long)size, (unsigned long long)inodes);
	if (mkdir(UPPER, 0700) < 0 || mount("tmpfs", UPPER, "tmpfs", MS_NOSUID | MS_NODEV,
					     opts) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to mount the tmpfs for --quota of %s", s->dst);
	if (mkdir(UPPER "/u", 0755) < 0 || mkdir(UPPER "/w", 0700) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to create the overlay's directories");
	if (mkdir(LOWER, 0700) < 0 ||
	    move_mount(s->fd, "", AT_FDCWD, LOWER, MOVE_MOUNT_F_EMPTY_PATH) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to mount %s for --quota", s->text);
	close(s->fd);
	if (mkdir(s->dst, 0755) < 0 && errno != EEXIST)
		sr_fatal_sys(SR_EXIT_SYS, "unable to create the mount point %s", s->dst);
	if (mount("overlay", s->dst, "overlay", MS_NOSUID | MS_NODEV,
		  "lowerdir=" LOWER ",upperdir=" UPPER "/u,workdir=" UPPER "/w,"
		  "userxattr,index=off,metacopy=off") < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to mount an overlay of %s on %s (--quota)",
			     s->text, s->dst);
	s->quota->upper_fd = open(UPPER, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->quota->upper_fd < 0 || umount2(UPPER, MNT_DETACH) < 0 ||
	    umount2(LOWER, MNT_DETACH) < 0 || rmdir(UPPER) < 0 || rmdir(LOWER) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to hide the layers of %s", s->dst);
}

/* ---- after the run: the upper layer onto the host directory ------------ */

/* A new entry with a random name in dir, made by make(dir, name); its
 * name in name. The fd make returns, or -1. */
static int temp_at(int dir, char name[32], int (*make)(int, const char *, const void *),
		   const void *arg)
{
	for (int tries = 0; tries < 16; tries++) {
		unsigned long long r;
		if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
			return -1;
		snprintf(name, 32, ".sr-jail.%016llx", r);
		int fd = make(dir, name, arg);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

static int make_file(int dir, const char *name, const void *arg)
{
	(void)arg;
	return openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
}

static int make_link(int dir, const char *name, const void *target)
{
	return symlinkat(target, dir, name);
}

/* tmp over name in dir; a directory at name is removed first. */
static int replace(int dir, const char *tmp, const char *name)
{
	if (renameat(dir, tmp, dir, name) == 0)
		return 0;
	if ((errno == EISDIR || errno == ENOTEMPTY || errno == EEXIST) &&
	    sr_remove_tree(dir, name) == 0 && renameat(dir, tmp, dir, name) == 0)
		return 0;
	int e = errno;
	(void)unlinkat(dir, tmp, 0);
	errno = e;
	return -1;
}

/* Open name in the upper layer; an entry the program made unreadable is
 * given its owner's read right (the layer is PID 1's alone now, and name
 * is known not to be a link). */
static int open_upper(int up, const char *name, int flags, mode_t mode)
{
	int fd = openat(up, name, flags | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == EACCES &&
	    fchmodat(up, name, (mode & 07777) | (S_ISDIR(mode) ? 0700 : 0400), 0) == 0)
		fd = openat(up, name, flags | O_NOFOLLOW | O_CLOEXEC);
	return fd;
}

/* The data of in, holes kept as holes: a sparse file the program made
 * (truncate -s 100G) takes no room in the tmpfs, and must take none on the
 * host either, or the copy would fill the host's disk past the quota. */
static int copy_fd(int in, int out, off_t size)
{
	off_t data = 0;
	while (data < size) {
		data = lseek(in, data, SEEK_DATA);
		if (data < 0)
			return errno == ENXIO ? ftruncate(out, size) : -1;  /* a hole to the end */
		off_t hole = lseek(in, data, SEEK_HOLE);
		if (hole < 0)
			return -1;
		off_t at = data;
		while (at < hole) {
			ssize_t n = copy_file_range(in, &at, out, &(off_t){ at }, (size_t)(hole - at), 0);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && (errno == EXDEV || errno == EOPNOTSUPP || errno == EINVAL)) {
				/* across file systems, older kernels: plain reads and writes */
				char buf[65536];
				ssize_t got = pread(in, buf, sizeof buf < (size_t)(hole - at) ?
						    sizeof buf : (size_t)(hole - at), at);
				if (got <= 0 || pwrite(out, buf, (size_t)got, at) != got)
					return -1;
				at += got;
				continue;
			}
			if (n <= 0)
				return n < 0 ? -1 : ftruncate(out, size);
			at += n;
		}
		data = hole;
	}
	return ftruncate(out, size);
}

/* What applying the upper layer changed in the host directory's size;
 * failed when a change was not (wholly) made, so the size is unknown. */
struct apply {
	int64_t delta;
	int failed;
};

static int apply_file(struct apply *a, int up, int host, const char *name,
		      const struct stat *st)
{
	uint64_t old = sr_entry_bytes(host, name);
	char tmp[32];
	int in = open_upper(up, name, O_RDONLY, st->st_mode);
	if (in < 0)
		return -1;
	int out = temp_at(host, tmp, make_file, NULL);
	int r = -1;
	if (out >= 0) {
		struct timespec t[2] = { st->st_atim, st->st_mtim };
		r = copy_fd(in, out, st->st_size) < 0 || fchmod(out, st->st_mode & 0777) < 0 ||
		    futimens(out, t) < 0 ? -1 : 0;
		int e = errno;
		if (close(out) < 0 && r == 0)
			e = errno, r = -1;
		if (r == 0) {
			r = replace(host, tmp, name);       /* which removes tmp if it fails */
			if (r == 0)
				a->delta += (int64_t)st->st_size - (int64_t)old;
		} else {
			(void)unlinkat(host, tmp, 0);
		}
		errno = e;
	}
	int e = errno;
	close(in);
	errno = e;
	return r;
}

static int apply_link(struct apply *a, int up, int host, const char *name)
{
	uint64_t old = sr_entry_bytes(host, name);
	char target[PATH_MAX], tmp[32];
	ssize_t n = readlinkat(up, name, target, sizeof target - 1);
	if (n < 0)
		return -1;
	target[n] = '\0';
	if (temp_at(host, tmp, make_link, target) < 0 || replace(host, tmp, name) < 0)
		return -1;
	a->delta -= (int64_t)old;
	return 0;
}

static void apply_dir(struct apply *a, int up, int host, const char *dst, int depth);

/* Everything in the directory fd, removed (an opaque directory). */
static int empty_dir(int fd)
{
	int dfd = dup(fd), r = 0;
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!d)
		return -1;
	rewinddir(d);   /* the offset dfd shares with fd may be anywhere */
	struct dirent *e;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    sr_remove_tree(fd, e->d_name) < 0 && errno != ENOENT)
			r = -1;
	closedir(d);
	return r;
}

/* A directory of the upper layer: the host's one made (what is at its
 * name, not a directory or a link to one, replaced), emptied first when
 * it is opaque, then filled. */
static int apply_subdir(struct apply *a, int up, int host, const char *name,
			const struct stat *st, const char *dst, int depth)
{
	char path[PATH_MAX], xa[2];
	int su = open_upper(up, name, O_RDONLY | O_DIRECTORY, st->st_mode);
	if (su < 0)
		return -1;
	int opaque = fgetxattr(su, "user.overlay.opaque", xa, sizeof xa) == 1 && xa[0] == 'y';
	int sh = open_dir_at(host, name);
	if (sh < 0 && (errno == ELOOP || errno == ENOTDIR)) {
		uint64_t old = sr_entry_bytes(host, name);
		if (unlinkat(host, name, 0) == 0)
			a->delta -= (int64_t)old;
	}
	if (sh < 0 && (mkdirat(host, name, 0700) < 0 || (sh = open_dir_at(host, name)) < 0)) {
		close(su);
		return -1;
	}
	snprintf(path, sizeof path, "%s/%s", dst, name);
	if (opaque) {
		uint64_t old = sr_tree_bytes(sh);
		if (empty_dir(sh) < 0) {
			sr_warn_sys("%s: unable to empty the directory before applying it", path);
			a->failed = 1;
		} else {
			a->delta -= (int64_t)old;
		}
	}
	if (depth < DEPTH_MAX)
		apply_dir(a, su, sh, path, depth + 1);
	else
		a->failed = 1;
	int r = fchmod(sh, st->st_mode & 0777);
	close(sh);
	close(su);
	return r;
}

/* A whiteout: what is at name in host goes. */
static int remove_entry(struct apply *a, int host, const char *name)
{
	uint64_t old = sr_entry_bytes(host, name);
	if (sr_remove_tree(host, name) < 0)
		return errno == ENOENT ? 0 : -1;
	a->delta -= (int64_t)old;
	return 0;
}

/* Each entry of the upper directory up onto the host directory host. */
static void apply_dir(struct apply *a, int up, int host, const char *dst, int depth)
{
	int fd = dup(up);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		sr_warn_sys("%s: unable to read the changes", dst);
		if (fd >= 0)
			close(fd);
		a->failed = 1;
		return;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		const char *name = e->d_name;
		struct stat st;
		int r = 0;
		if (!strcmp(name, ".") || !strcmp(name, ".."))
			continue;
		if (fstatat(up, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			r = -1;
		else if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(0, 0))
			r = remove_entry(a, host, name);
		else if (S_ISDIR(st.st_mode))
			r = apply_subdir(a, up, host, name, &st, dst, depth);
		else if (S_ISREG(st.st_mode))
			r = apply_file(a, up, host, name, &st);
		else if (S_ISLNK(st.st_mode))
			r = apply_link(a, up, host, name);
		/* fifos, sockets and device nodes are not carried over */
		if (r < 0) {
			sr_warn_sys("%s/%s: unable to apply the change", dst, name);
			a->failed = 1;
		}
	}
	closedir(d);
}

/* "64 MiB", "1 GiB", "1536 KiB", "1000 bytes". */
static void human(uint64_t n, char *buf, size_t len)
{
	static const char *const unit[] = { "bytes", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;
	while (u < 4 && n >= 1024 && n % 1024 == 0)
		n /= 1024, u++;
	snprintf(buf, len, "%llu %s", (unsigned long long)n, unit[u]);
}

void jail_quota_finish(const struct jail *j)
{
	for (size_t i = 0; i < j->nquotas; i++) {
		const struct quota *q = &j->quotas[i];
		struct statfs sf;
		char cap[32];
		if (fstatfs(q->upper_fd, &sf) == 0 && (sf.f_bavail == 0 || sf.f_ffree == 0)) {
			human(q->cap, cap, sizeof cap);
			sr_warn("%s: quota of %s reached (ENOSPC): writes past it failed",
				q->dst, cap);
		}
		/* Under the cache's lock, so that the size it keeps adds up when
		 * runs in the same directory end together. */
		struct apply a = { 0, 0 };
		if (q->cache_fd >= 0 && sr_qcache_lock(q->cache_fd) < 0)
			a.failed = 1;
		int up = open_dir_at(q->upper_fd, "u");
		if (up < 0) {
			sr_warn_sys("%s: unable to read the changes", q->dst);
			a.failed = 1;
		} else {
			apply_dir(&a, up, q->host_fd, q->dst, 0);
			close(up);
		}
		if (q->cache_fd >= 0) {
			if (a.failed)
				sr_qcache_drop(q->cache_fd);    /* measured again next time */
			else
				(void)sr_qcache_add(q->cache_fd, q->host_fd, a.delta);
			sr_qcache_unlock(q->cache_fd);
		}
	}
}
