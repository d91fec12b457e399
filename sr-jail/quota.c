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
 * (a 0/0 character device) for each name removed.
 *
 * With --quota-changes FILE, each apply lists what it did to the host
 * directory in FILE (the format is in sr-jail(1)): what changed is found
 * from the upper layer, which holds it and nothing else, so a caller
 * learns what a run made without a walk of the whole directory. */
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
#include "plan.h"
#include "quota.h"
#include "seen.h"
#include "sr.h"

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

/* What the directory holds now: from --quota-cache when it holds it,
 * else measured (and kept there). A measure that could not read all of
 * it is no size to cap by: fatal. */
static void used_now(const struct jail *j, struct quota *q)
{
	int measured = 1, r;
	q->cache_fd = -1;
	if (!j->quota_cache) {
		r = sr_tree_usage(q->host_fd, &q->used);
	} else {
		if (in_writable_bind(j, j->quota_cache))
			sr_usage("--quota-cache: %s is inside a --bind, where the program could "
				 "change it: keep it outside", j->quota_cache);
		q->cache_fd = sr_qcache_open(j->quota_cache);
		if (q->cache_fd < 0)
			sr_fatal_sys(SR_EXIT_SYS, "unable to open the --quota-cache %s",
				     j->quota_cache);
		if (sr_qcache_lock(q->cache_fd) < 0)
			sr_fatal_sys(SR_EXIT_SYS, "unable to lock the --quota-cache %s",
				     j->quota_cache);
		r = sr_qcache_used(q->cache_fd, q->host_fd, &q->used, &measured);
		sr_qcache_unlock(q->cache_fd);
	}
	if (r < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to measure %s for --quota", q->dst);
	jail_note(j, "%s: %llu bytes used, %s; %llu inodes", q->dst,
		  (unsigned long long)q->used.bytes, measured ? "measured" : "from the cache",
		  (unsigned long long)q->used.inodes);
}

/* --quota-changes: records out of PID 1, buffered; fd -1: not asked for. */
static struct {
	int fd;
	int bad;                        /* a write failed: no more are made */
	size_t len;
	char buf[65536];
} changes = { .fd = -1 };

/* --quota-changes FILE: made or emptied by PID 1 before pivot_root, its
 * first line written; never where the program could write it (a --bind),
 * and O_CLOEXEC: the program does not get it. */
static void changes_open(struct jail *j)
{
	static const char head[] = "sr-jail quota changes 1\n";
	struct stat st;
	if (!j->quota_changes || j->changes_fd >= 0)
		return;
	if (in_writable_bind(j, j->quota_changes))
		sr_usage("--quota-changes: %s is inside a --bind, where the program could "
			 "change it: keep it outside", j->quota_changes);
	int fd = open(j->quota_changes, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK |
		      O_CLOEXEC, 0600);
	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)))
		errno = EINVAL;
	else if (fd >= 0 && sr_write_all(fd, head, sizeof head - 1) == 0)
		j->changes_fd = changes.fd = fd;
	if (j->changes_fd < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to open the --quota-changes %s (a regular "
			     "file)", j->quota_changes);
}

void plan_quota(struct plan *p, struct jail *j, const struct mreq *m)
{
	int at = jail_open_user(m->src);
	struct quota *q = &j->quotas[j->nquotas++];
	q->dst = m->dst;
	q->cap = m->size;
	q->inodes = m->inodes;
	q->upper_fd = q->view_fd = -1;
	q->seen = j->control ? calloc(1, sizeof *q->seen) : NULL;
	if (j->control && !q->seen)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	q->host_fd = openat(at, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (q->host_fd < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to open %s (--quota needs a directory)",
			     m->src);
	used_now(j, q);
	changes_open(j);
	struct step *s = plan_add(p, S_OVERLAY, m->dst);
	s->fd = jail_clone_tree(at, "", AT_EMPTY_PATH, JAIL_RO, m->src);
	s->text = m->src;
	s->size = q->used.bytes < m->size ? m->size - q->used.bytes : 0;
	s->quota = q;
	close(at);
}

/* The upper tmpfs's inodes. With --quota-inodes: the room left, and as
 * many again as the directory holds and a quarter more, for overlayfs's
 * own (a directory copied up to change what is in it, a whiteout for each
 * name removed, two for a rename): a directory at its cap can still be
 * emptied and rewritten. The apply holds the count to the cap exactly. */
static uint64_t upper_inodes(const struct quota *q)
{
	if (!q->inodes)
		return q->cap / 4096 < 4096 ? 4096 : q->cap / 4096;
	uint64_t room = q->used.inodes < q->inodes ? q->inodes - q->used.inodes : 0;
	return room + q->used.inodes + q->used.inodes / 4 + 64;
}

/* overlayfs keeps what it must in user xattrs of the upper layer (the
 * opaque directories; userxattr, in a user namespace): tmpfs has them
 * since Linux 6.6. Without them the overlay still mounts, but a directory
 * of the host directory cannot be removed, nor one made where one was
 * (EIO): a layer that cannot be set up as asked is refused (sr-jail(1)). */
static void upper_xattrs(const char *dst)
{
	if (setxattr(UPPER "/w", "user.sr-jail", "1", 1, 0) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to set up --quota of %s: tmpfs has no user "
			     "xattrs here (Linux 6.6 has them), which overlayfs needs for the "
			     "quota's upper layer; run without --quota", dst);
	(void)removexattr(UPPER "/w", "user.sr-jail");
}

/* After pivot_root, before the old root goes: the tmpfs and the lower
 * tree are attached at two names in the new root for as long as the
 * overlay mount needs paths, then detached (the overlay keeps private
 * clones of them) and the names removed. The program never sees them. */
void jail_mount_overlay(const struct step *s)
{
	char opts[256];
	uint64_t size = s->size ? s->size : 1;   /* rounded up to a page */
	uint64_t inodes = upper_inodes(s->quota);
	snprintf(opts, sizeof opts, "mode=0700,size=%llu,nr_inodes=%llu",
		 (unsigned long long)size, (unsigned long long)inodes);
	if (mkdir(UPPER, 0700) < 0 || mount("tmpfs", UPPER, "tmpfs", MS_NOSUID | MS_NODEV,
					     opts) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to mount the tmpfs for --quota of %s", s->dst);
	if (mkdir(UPPER "/u", 0755) < 0 || mkdir(UPPER "/w", 0700) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to create the overlay's directories");
	upper_xattrs(s->dst);
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
	/* --control's view: the overlay as the program sees it, for the
	 * caller to write through (a clone needs the capability PID 1 is
	 * about to drop) */
	if (s->quota->seen &&
	    (s->quota->view_fd = open_tree(AT_FDCWD, s->dst, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC)) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to clone the overlay of %s for --control", s->dst);
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

/* Applying the upper layer: what it changed in the host directory's usage,
 * held to the caps as it goes; failed when a change was not (wholly)
 * made, so the usage is unknown. Both trees are walked with a bounded
 * number of descriptors, to any depth (lib/tree.c). */
struct apply {
	const struct quota *q;
	struct sr_usage start;          /* the host directory's before */
	struct sr_delta delta;
	int failed;
	unsigned long long skipped;     /* entries not applied: past a cap */
	char first[256];                /* the first of them */
	int removals;                   /* the first pass: removals only */
	struct sr_dirs up, host;
	char *path;                     /* of the directory being applied */
	size_t plen, pcap;
	struct seen *seen;              /* --control: what earlier applies carried */
	size_t base;                    /* the length of q->dst in path */
	int root;                       /* the host directory, for the sweep */
};

static void warn_at(struct apply *a, const char *name, const char *what)
{
	sr_warn_sys("%.200s%s%.200s: %s", a->path, name ? "/" : "", name ? name : "", what);
	a->failed = 1;
}

static void out_flush(void)
{
	if (changes.fd >= 0 && !changes.bad && changes.len > 0 &&
	    sr_write_all(changes.fd, changes.buf, changes.len) < 0) {
		sr_warn_sys("unable to write the --quota-changes");
		changes.bad = 1;
	}
	changes.len = 0;
}

static void out_put(const char *p, size_t n)
{
	while (n > 0 && !changes.bad) {
		if (changes.len == sizeof changes.buf)
			out_flush();
		size_t room = sizeof changes.buf - changes.len, k = room < n ? room : n;
		memcpy(changes.buf + changes.len, p, k);
		changes.len += k, p += k, n -= k;
	}
}

/* One record: "KIND N DIR[/NAME]\0" (sr-jail(1), --quota-changes). */
static void record(char kind, uint64_t n, const char *dir, size_t len, const char *name)
{
	char head[32];
	if (changes.fd < 0)
		return;
	out_put(head, (size_t)snprintf(head, sizeof head, "%c %llu ", kind, (unsigned long long)n));
	out_put(dir, len);
	if (name) {
		out_put("/", 1);
		out_put(name, strlen(name));
	}
	out_put("", 1);
}

/* What the apply did at name in the directory being applied (NULL: to
 * that directory itself). */
static void change(const struct apply *a, char kind, uint64_t n, const char *name)
{
	record(kind, n, a->path, a->plen, name);
}

static int exists_at(int dir, const char *name)
{
	struct stat st;
	return fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

static void path_push(struct apply *a, const char *name)
{
	size_t n = strlen(name);
	if (a->plen + n + 2 > a->pcap) {
		size_t cap = (a->plen + n + 2) * 2;
		char *p = realloc(a->path, cap);
		if (!p)
			sr_fatal(SR_EXIT_SYS, "out of memory");
		a->path = p, a->pcap = cap;
	}
	a->path[a->plen++] = '/';
	memcpy(a->path + a->plen, name, n + 1);
	a->plen += n;
}

static void path_pop(struct apply *a)
{
	char *slash = strrchr(a->path, '/');
	if (slash && a->plen > a->base) {      /* never past q->dst, the root */
		*slash = '\0';
		a->plen = (size_t)(slash - a->path);
	}
}

/* What the earlier applies of a live quota noted at name, in the
 * directory being applied; NULL without --control (or out of memory:
 * then applied as new). */
static struct seen_ent *entry_of(struct apply *a, const char *name)
{
	if (!a->seen)
		return NULL;
	char *key = malloc(a->plen + strlen(name) + 2);
	if (!key)
		return NULL;
	sprintf(key, "%s/%s", a->path, name);
	struct seen_ent *e = seen_put(a->seen, key);
	free(key);
	return e;
}

static void gone(struct apply *a, const struct sr_usage *u)
{
	a->delta.bytes -= (int64_t)u->bytes;
	a->delta.inodes -= (int64_t)u->inodes;
}

/* Would inodes more (and bytes, for a file the program gave several names:
 * the tmpfs held its data once, each copy here takes it again) take the
 * directory past a cap? Then the entry is not applied, and counted. */
static int past_cap(struct apply *a, const char *name, int64_t inodes, int64_t bytes)
{
	const struct quota *q = a->q;
	int64_t in = (int64_t)a->start.inodes + a->delta.inodes + inodes;
	int64_t by = (int64_t)a->start.bytes + a->delta.bytes + bytes;
	if (!(q->inodes && inodes > 0 && in > (int64_t)q->inodes) &&
	    !(bytes > 0 && by > (int64_t)q->cap))
		return 0;
	if (!a->skipped++)
		snprintf(a->first, sizeof a->first, "%.120s/%.120s", a->path, name);
	return 1;
}

static int apply_file(struct apply *a, int up, int host, const char *name,
		      const struct stat *st)
{
	struct sr_usage old;
	int was = exists_at(host, name);
	(void)sr_entry_usage(host, name, &old);
	if (past_cap(a, name, 1 - (int64_t)old.inodes,
		     st->st_nlink > 1 ? (int64_t)st->st_size - (int64_t)old.bytes : 0))
		return 0;
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
			if (r == 0) {
				gone(a, &old);
				a->delta.bytes += (int64_t)st->st_size;
				a->delta.inodes++;
				change(a, was ? 'm' : 'c', (uint64_t)st->st_size, name);
			}
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
	struct sr_usage old;
	(void)sr_entry_usage(host, name, &old);
	if (past_cap(a, name, 1 - (int64_t)old.inodes, 0))
		return 0;
	char target[PATH_MAX], tmp[32];
	ssize_t n = readlinkat(up, name, target, sizeof target - 1);
	if (n < 0)
		return -1;
	target[n] = '\0';
	if (temp_at(host, tmp, make_link, target) < 0 || replace(host, tmp, name) < 0)
		return -1;
	gone(a, &old);
	a->delta.inodes++;
	change(a, 'l', 0, name);
	return 0;
}

/* Everything in the directory fd, removed (an opaque directory). */
static int remove_each(int fd, const char *name, void *arg)
{
	(void)arg;
	return sr_remove_tree(fd, name) < 0 && errno != ENOENT ? -1 : 0;
}

/* The host's directory at name emptied (the upper one is opaque: the
 * program removed what was in it). Not again for the same directory of a
 * live quota; what earlier applies put in it is applied anew. */
static void empty_host(struct apply *a, int sh, const struct stat *st, struct seen_ent *e)
{
	struct sr_usage old;
	uint64_t files;
	if (e && e->ino == st->st_ino && e->opaque)
		return;
	(void)sr_tree_count(sh, &old, &files);
	if (sr_dir_each(sh, remove_each, NULL) < 0) {
		warn_at(a, NULL, "unable to empty the directory before applying it");
		return;
	}
	gone(a, &old);
	change(a, 'x', files, NULL);
	if (e) {
		seen_forget_under(a->seen, e->path);
		e->ino = st->st_ino, e->opaque = 1;
	}
}

/* A directory a live apply made on the host where the overlay saw none:
 * marked opaque in the upper layer, so that the kernel, looking it up
 * again, does not merge the copy made here below it (which would show a
 * name the program has removed since, without a whiteout). */
static void made_here(struct apply *a, int su, const struct stat *st, struct seen_ent *e)
{
	if (!e)
		return;
	int r = fsetxattr(su, "user.overlay.opaque", "y", 1, 0);
	if (r < 0 && errno == EACCES && fchmod(su, (st->st_mode & 07777) | 0700) == 0) {
		r = fsetxattr(su, "user.overlay.opaque", "y", 1, 0);
		(void)fchmod(su, st->st_mode & 07777);
	}
	if (r == 0)
		e->ino = st->st_ino, e->opaque = 1;
	else
		warn_at(a, NULL, "unable to mark the directory opaque");
}

/* The host's directory at name, for entering: opened, or (not in the
 * removals) made, what is at its name that is not a directory replaced.
 * Its fd, *made set when made; -2 not there (or past a cap), -1. */
static int host_dir(struct apply *a, int host, const char *name, int *made)
{
	int sh = open_dir_at(host, name);
	*made = 0;
	if (sh >= 0)
		return sh;
	if (a->removals)
		return errno == ENOENT || errno == ENOTDIR || errno == ELOOP ? -2 : -1;
	if (errno == ELOOP || errno == ENOTDIR) {
		struct sr_usage old;
		(void)sr_entry_usage(host, name, &old);
		if (unlinkat(host, name, 0) == 0)
			gone(a, &old);
	}
	if (past_cap(a, name, 1, 0))
		return -2;
	if (mkdirat(host, name, 0700) < 0 || (sh = open_dir_at(host, name)) < 0)
		return -1;
	a->delta.inodes++;
	change(a, 'd', 0, name);
	*made = 1;
	return sh;
}

/* A directory of the upper layer, entered. Removals: the host's one, if
 * there, emptied when the upper one is opaque. Then: the host's one made
 * (what is at its name, not a directory or a link to one, replaced).
 * Both pushed. 1 entered, 0 not (nothing there to remove from, or past a
 * cap), -1. */
static int enter_dir(struct apply *a, const char *name)
{
	char xa[2];
	struct stat st;
	int made, up = sr_dirs_fd(&a->up), host = sr_dirs_fd(&a->host);
	if (fstatat(up, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	int sh = host_dir(a, host, name, &made);
	if (sh < 0)
		return sh == -2 ? 0 : -1;
	int su = open_upper(up, name, O_RDONLY | O_DIRECTORY, st.st_mode);
	if (su < 0) {
		close(sh);
		return -1;
	}
	struct seen_ent *e = entry_of(a, name);
	int opaque = fgetxattr(su, "user.overlay.opaque", xa, sizeof xa) == 1 && xa[0] == 'y';
	/* made here, or not the directory earlier applies found at name:
	 * the overlay holds it for its own alone; made here, it has nothing
	 * to empty */
	int fresh = made || (e && e->ino && e->ino != st.st_ino);
	if (made && e)
		e->ino = st.st_ino, e->opaque = 1;
	if (!opaque && fresh)
		made_here(a, su, &st, e);
	if (sr_dirs_push(&a->up, su) < 0 || sr_dirs_push(&a->host, sh) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to apply %s", a->path);
	path_push(a, name);
	if (opaque && a->removals)
		empty_host(a, sh, &st, e);
	return 1;
}

/* A whiteout: what is at name in the host directory goes (unless a live
 * apply did it already). */
static int apply_removal(int up, const char *name, void *arg)
{
	struct apply *a = arg;
	struct stat st;
	struct sr_usage old;
	int host = sr_dirs_fd(&a->host);
	if (fstatat(up, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISCHR(st.st_mode) || st.st_rdev != makedev(0, 0))
		return 0;
	struct seen_ent *e = entry_of(a, name);
	if (e && seen_same(e, &st))
		return 0;
	uint64_t files;
	int was = exists_at(host, name);
	(void)sr_entry_count(host, name, &old, &files);
	if (sr_remove_tree(host, name) == 0 || errno == ENOENT) {
		gone(a, &old);
		if (was)
			change(a, 'r', files, name);
		if (e)
			seen_set(e, &st);
	} else {
		warn_at(a, name, "unable to apply the removal");
	}
	return 0;
}

/* Any other entry of the upper directory: applied (unless a live apply
 * applied it as it is), or noted to enter; found, for the sweep. */
static int apply_entry(int up, const char *name, void *arg)
{
	struct apply *a = arg;
	struct stat st;
	int r = 0, host = sr_dirs_fd(&a->host);
	unsigned long long skipped = a->skipped;
	if (fstatat(up, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		warn_at(a, name, "unable to apply the change");
		return 0;
	}
	struct seen_ent *e = entry_of(a, name);
	if (e)
		e->round = a->seen->round;
	if (e && !S_ISDIR(st.st_mode) && seen_same(e, &st))
		return 0;
	if (S_ISDIR(st.st_mode))
		r = sr_dirs_add(&a->up, name);
	else if (S_ISREG(st.st_mode))
		r = apply_file(a, up, host, name, &st);
	else if (S_ISLNK(st.st_mode))
		r = apply_link(a, up, host, name);
	/* whiteouts went first; fifos, sockets and device nodes are not
	 * carried over */
	if (r < 0)
		warn_at(a, name, "unable to apply the change");
	else if (e && !S_ISDIR(st.st_mode) && !S_ISCHR(st.st_mode) && a->skipped == skipped)
		seen_set(e, &st);
	else if (e && S_ISDIR(st.st_mode) && !e->ino)
		e->ino = st.st_ino;
	return 0;
}

/* Noted to enter, in the pass of removals. */
static int note_dir(int up, const char *name, void *arg)
{
	struct apply *a = arg;
	struct stat st;
	if (fstatat(up, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
		return sr_dirs_add(&a->up, name);
	return 0;
}

/* The directory on top of both stacks: its removals, or the rest. */
static void apply_here(struct apply *a)
{
	int up = sr_dirs_fd(&a->up);
	if ((a->removals && (sr_dir_each(up, apply_removal, a) < 0 ||
			     sr_dir_each(up, note_dir, a) < 0)) ||
	    (!a->removals && sr_dir_each(up, apply_entry, a) < 0))
		warn_at(a, NULL, "unable to read the changes");
}

/* Leaving a directory: its mode, then both popped. */
static int leave_dir(struct apply *a)
{
	struct stat st;
	if (!a->removals && (fstat(sr_dirs_fd(&a->up), &st) < 0 ||
	    (a->host.n > 1 && fchmod(sr_dirs_fd(&a->host), st.st_mode & 0777) < 0)))
		warn_at(a, NULL, "unable to set the directory's mode");
	int r = sr_dirs_pop(&a->up) < 0 || sr_dirs_pop(&a->host) < 0 ? -1 : 0;
	path_pop(a);
	return r;
}

static void apply_pass(struct apply *a, int up, int host)
{
	up = dup(up), host = dup(host);
	if (up < 0 || host < 0 || sr_dirs_push(&a->up, up) < 0 || sr_dirs_push(&a->host, host) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to apply %s", a->path);
	apply_here(a);
	while (a->up.n) {
		const char *name = sr_dirs_next(&a->up);
		if (!name) {
			if (leave_dir(a) < 0) {
				warn_at(a, NULL, "unable to go back up (the tree moved)");
				break;
			}
			continue;
		}
		int r = enter_dir(a, name);
		if (r < 0)
			warn_at(a, name, "unable to apply the directory");
		else if (r > 0)
			apply_here(a);
	}
	sr_dirs_free(&a->up);
	sr_dirs_free(&a->host);
}

/* A path an earlier live apply carried to the host, no longer in the
 * upper layer and no whiteout for it: the program removed it where the
 * overlay saw nothing below (a directory it had made), so it goes from
 * the host too. Looked up from the host directory's root, no link
 * followed. */
static void gone_path(const char *path, void *arg)
{
	struct apply *a = arg;
	char *rel = strdup(path + a->base + 1), *name = rel, *slash;
	int dir = dup(a->root), next;
	while (rel && dir >= 0 && (slash = strchr(name, '/'))) {
		*slash = '\0';
		next = open_dir_at(dir, name);
		close(dir);
		dir = next;
		name = slash + 1;
	}
	if (rel && dir >= 0) {
		struct sr_usage old;
		uint64_t files;
		(void)sr_entry_count(dir, name, &old, &files);
		if (sr_remove_tree(dir, name) == 0) {
			gone(a, &old);
			record('r', files, path, strlen(path), NULL);
		}
		else if (errno != ENOENT && errno != ENOTDIR)
			warn_at(a, name, "unable to apply the removal");
	}
	if (dir >= 0)
		close(dir);
	free(rel);
}

/* The removals first, all of them (room for what comes at the cap), then
 * the rest; then, live, what the program removed without a whiteout. */
static void apply_tree(struct apply *a, int up, int host)
{
	a->removals = 1;
	apply_pass(a, up, host);
	a->removals = 0;
	apply_pass(a, up, host);
	a->root = host;
	if (a->seen)
		seen_sweep(a->seen, gone_path, a);
	close(up);
	close(host);
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

/* The line the caller looks for (sr-jail(1), --quota): which cap was
 * reached, in the run (the tmpfs full) or in the apply; with --report-fd,
 * "DST: quota of CAP reached" there too, where the program cannot write
 * (no name the program chose in it). */
static void say_reached(const struct quota *q, const struct apply *a, int bytes_full,
			int inodes_full, int report_fd)
{
	char cap[48];
	int64_t now = (int64_t)a->start.inodes + a->delta.inodes;
	if (!a->skipped && !bytes_full && !inodes_full)
		return;
	if (q->inodes && (a->skipped ? now >= (int64_t)q->inodes : inodes_full && !bytes_full))
		snprintf(cap, sizeof cap, "%llu inodes", (unsigned long long)q->inodes);
	else
		human(q->cap, cap, sizeof cap);
	if (a->skipped)
		sr_warn("%s: quota of %s reached: %llu entries not applied (the first: %s)",
			q->dst, cap, a->skipped, a->first);
	else
		sr_warn("%s: quota of %s reached (ENOSPC): writes past it failed", q->dst, cap);
	if (report_fd >= 0)
		(void)dprintf(report_fd, "%s: quota of %s reached\n", q->dst, cap);
}

/* One quota's upper layer onto the host directory, a->start its usage
 * now; the cache (the caller holds its lock) brought up to date. */
static void apply_quota(struct quota *q, struct apply *a)
{
	a->q = q;
	a->seen = q->seen;
	a->path = strdup(q->dst);
	if (!a->path)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	a->plen = a->pcap = a->base = strlen(a->path);
	if (a->seen)
		a->seen->round++;
	int up = open_dir_at(q->upper_fd, "u"), host = dup(q->host_fd);
	if (up < 0 || host < 0) {
		warn_at(a, NULL, "unable to read the changes");
		if (up >= 0)
			close(up);
		if (host >= 0)
			close(host);
	} else {
		apply_tree(a, up, host);
	}
	if (q->cache_fd >= 0) {
		if (a->failed)
			sr_qcache_drop(q->cache_fd);    /* measured again next time */
		else
			(void)sr_qcache_add(q->cache_fd, q->host_fd, &a->delta);
	}
	free(a->path);
}

/* Is the upper tmpfs full, of bytes or of inodes? */
static void upper_full(const struct quota *q, int *bytes_full, int *inodes_full)
{
	struct statfs sf;
	*bytes_full = *inodes_full = 0;
	if (fstatfs(q->upper_fd, &sf) == 0) {
		*bytes_full = sf.f_bavail == 0;
		*inodes_full = sf.f_ffree == 0;
	}
}

void jail_quota_finish(struct jail *j)
{
	for (size_t i = 0; i < j->nquotas; i++) {
		struct quota *q = &j->quotas[i];
		int bytes_full, inodes_full, measured;
		upper_full(q, &bytes_full, &inodes_full);
		/* Under the cache's lock, so that the size it keeps adds up when
		 * runs in the same directory end together; the usage to hold
		 * to the caps is the directory's now (other runs may have
		 * ended): the cache's, or measured again under a lock of the
		 * directory itself. */
		struct apply a = { .start = q->used };
		if (q->cache_fd >= 0 && (sr_qcache_lock(q->cache_fd) < 0 ||
					 sr_qcache_used(q->cache_fd, q->host_fd, &a.start,
							&measured) < 0))
			a.failed = 1;
		else if (q->cache_fd < 0 && (sr_qcache_lock(q->host_fd) < 0 ||
					     sr_tree_usage(q->host_fd, &a.start) < 0))
			a.start = q->used;      /* the measure at the start, then */
		apply_quota(q, &a);
		record('.', a.failed != 0, q->dst, strlen(q->dst), NULL);
		out_flush();
		say_reached(q, &a, bytes_full, inodes_full, j->report_fd);
		if (q->cache_fd >= 0)
			sr_qcache_unlock(q->cache_fd);
		sr_qcache_unlock(q->host_fd);   /* without a cache, the directory's */
	}
}

/* While the program runs (--control), its processes stopped: what changed
 * since the last apply. The usage to hold to the caps: the cache's, else
 * what the last apply left (the host directory changes only through the
 * applies while the overlay lives), measured again after a failed one.
 * 0, or -1 with what failed; *full when the upper tmpfs is full. */
int jail_quota_apply_live(struct jail *j, char *why, size_t len, int *full)
{
	int r = 0;
	*full = 0;
	for (size_t i = 0; i < j->nquotas; i++) {
		struct quota *q = &j->quotas[i];
		int bytes_full, inodes_full, measured;
		upper_full(q, &bytes_full, &inodes_full);
		*full |= bytes_full || inodes_full;
		struct apply a = { .start = q->used };
		if (sr_qcache_lock(q->cache_fd >= 0 ? q->cache_fd : q->host_fd) < 0 ||
		    (q->cache_fd >= 0 && sr_qcache_used(q->cache_fd, q->host_fd, &a.start,
							&measured) < 0))
			a.failed = 1;
		apply_quota(q, &a);
		out_flush();
		int64_t bytes = (int64_t)a.start.bytes + a.delta.bytes;
		int64_t inodes = (int64_t)a.start.inodes + a.delta.inodes;
		q->used.bytes = bytes > 0 ? (uint64_t)bytes : 0;
		q->used.inodes = inodes > 0 ? (uint64_t)inodes : 0;
		if (a.failed && sr_tree_usage(q->host_fd, &q->used) < 0)
			q->used = a.start;
		sr_qcache_unlock(q->cache_fd >= 0 ? q->cache_fd : q->host_fd);
		if (a.failed && !r) {
			snprintf(why, len, "%s: not every change could be applied", q->dst);
			r = -1;
		}
		if (a.skipped && !r) {
			snprintf(why, len, "%s: %llu entries past the quota not applied (the first: %s)",
				 q->dst, a.skipped, a.first);
			r = -1;
		}
	}
	return r;
}

/* --view-from: the view's jail said its tmpfs is full: the line a caller
 * looks for, as say_reached says it, with the cap of the --bind's --quota. */
void jail_quota_view_full(const struct jail *j)
{
	char cap[48];
	for (size_t i = 0; i < j->nmounts; i++) {
		const struct mreq *m = &j->mounts[i];
		if (m->kind != MK_BIND || !m->size)
			continue;
		human(m->size, cap, sizeof cap);
		sr_warn("%s: quota of %s reached (ENOSPC): writes past it failed", m->dst, cap);
		if (j->report_fd >= 0)
			(void)dprintf(j->report_fd, "%s: quota of %s reached\n", m->dst, cap);
		return;
	}
}

/* --view-from: the first --quota applied into dir (the other jail's view
 * of the same directory) rather than the host directory; its size cache,
 * the host directory's, left alone (that jail's applies keep it). */
void jail_quota_retarget(struct jail *j, int dir)
{
	if (dir < 0 || !j->nquotas)
		return;
	struct quota *q = &j->quotas[0];
	close(q->host_fd);
	q->host_fd = dir;
	if (q->cache_fd >= 0)
		close(q->cache_fd);
	q->cache_fd = -1;
}
