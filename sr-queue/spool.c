/* spool.c - the spool directory, job ids, and durable file helpers. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "spool.h"
#include "sr.h"

static const char *const subdirs[] = { "tmp", "queue", "run", "done", "cancel" };

static int open_dir_at(int at, const char *name)
{
	return openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* NULL when st is owned by the effective uid and writable by nobody else;
 * otherwise why not, in why. Whoever else can write in a spool directory
 * or a job can make us run a job of theirs as us. */
const char *sq_not_private(const struct stat *st, char *why, size_t len)
{
	uid_t me = geteuid();
	if (st->st_uid != me)
		snprintf(why, len, "owned by uid %lu, not %lu", (unsigned long)st->st_uid,
			 (unsigned long)me);
	else if (st->st_mode & (S_IWGRP | S_IWOTH))
		snprintf(why, len, "writable by group or others (mode 0%o)",
			 (unsigned)(st->st_mode & 07777));
	else
		return NULL;
	return why;
}

/* Open the directory NAME under at, never through a symbolic link, and
 * only if it is private (see sq_not_private): the fd, or -1 (errno), or
 * SQ_REFUSED with the reason in why. One fstat, no path walk. */
int sq_open_private_dir(int at, const char *name, char *why, size_t len)
{
	struct stat st;
	int fd = open_dir_at(at, name);
	if (fd < 0) {
		int e = errno;
		if ((e == ENOTDIR || e == ELOOP) &&
		    fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			snprintf(why, len, "%s",
				 S_ISLNK(st.st_mode) ? "a symbolic link" : "not a directory");
			return SQ_REFUSED;
		}
		errno = e;
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	if (sq_not_private(&st, why, len)) {
		close(fd);
		return SQ_REFUSED;
	}
	return fd;
}

/* Does NAME exist under dfd (a symbolic link counts, and is not followed)? */
int sq_exists_at(int dfd, const char *name)
{
	struct stat st;
	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* mkdir -p for the spool itself: every missing component private.
 * 0, or -1 (errno). */
static int make_spool(const char *path)
{
	if (mkdir(path, 0700) == 0 || errno == EEXIST)
		return 0;
	if (errno != ENOENT)
		return -1;
	char *parent = strdup(path);
	if (!parent)
		return -1;
	char *slash = strrchr(parent, '/');
	while (slash && slash > parent && slash[1] == '\0') {
		*slash = '\0';
		slash = strrchr(parent, '/');
	}
	int r = 0;
	if (slash && slash > parent) {
		*slash = '\0';
		r = make_spool(parent);
	}
	free(parent);
	if (r == 0 && mkdir(path, 0700) < 0 && errno != EEXIST)
		r = -1;
	return r;
}

static void spool_fds_reset(struct sq_spool *sp)
{
	sp->root = sp->tmp = sp->queue = sp->run = sp->done = sp->cancel = -1;
}

/* The spool's own directory, made when create, and no one else's to
 * swap: 0, or -1 with why. */
static int open_root(struct sq_spool *sp, const char *path, int create, char *why,
		     size_t len)
{
	char r[SQ_WHY_MAX];
	if (create && make_spool(path) < 0) {
		snprintf(why, len, "unable to create spool %s: %s", path, strerror(errno));
		return -1;
	}
	/* "link/" would follow the link whatever O_NOFOLLOW says. */
	char *top = strdup(path);
	if (!top) {
		snprintf(why, len, "unable to allocate");
		return -1;
	}
	for (size_t n = strlen(top); n > 1 && top[n - 1] == '/'; n--)
		top[n - 1] = '\0';
	sp->root = sq_open_private_dir(AT_FDCWD, top, r, sizeof r);
	free(top);
	if (sp->root == SQ_REFUSED) {
		sp->root = -1;
		snprintf(why, len, "refusing spool %s: %s", path, r);
		errno = 0;
		return -1;
	}
	if (sp->root < 0) {
		snprintf(why, len, "unable to open spool %s: %s", path, strerror(errno));
		return -1;
	}
	/* and nobody else can swap it: every directory above is root's or
	 * ours, and writable by others only when sticky */
	char *real = realpath(path, NULL), up[PATH_MAX + 300];
	int resolved = real != NULL;
	int bad = !resolved ? -1 : sr_dir_private(real, 0, up, sizeof up);
	free(real);
	if (bad < 0) {
		int e = errno;
		if (!resolved)
			snprintf(why, len, "unable to resolve spool %s: %s", path, strerror(e));
		else
			snprintf(why, len, "refusing spool %s: %s", path, up);
		close(sp->root);
		sp->root = -1;
		errno = e;
		return -1;
	}
	return 0;
}

/* The five subdirectories, made when create (and missing): 0, or -1 with
 * why. */
static int open_subdirs(struct sq_spool *sp, const char *path, int create, char *why,
			size_t len)
{
	int *fds[] = { &sp->tmp, &sp->queue, &sp->run, &sp->done, &sp->cancel };
	int made = 0;
	char r[SQ_WHY_MAX];
	for (size_t i = 0; i < sizeof subdirs / sizeof *subdirs; i++) {
		*fds[i] = sq_open_private_dir(sp->root, subdirs[i], r, sizeof r);
		if (*fds[i] == -1 && errno == ENOENT && create) {
			if (mkdirat(sp->root, subdirs[i], 0700) < 0 && errno != EEXIST) {
				snprintf(why, len, "unable to create %s/%s: %s", path,
					 subdirs[i], strerror(errno));
				return -1;
			}
			made = 1;
			*fds[i] = sq_open_private_dir(sp->root, subdirs[i], r, sizeof r);
		}
		if (*fds[i] == SQ_REFUSED) {
			*fds[i] = -1;
			snprintf(why, len, "refusing spool %s/%s: %s", path, subdirs[i], r);
			errno = 0;
			return -1;
		}
		if (*fds[i] < 0) {
			snprintf(why, len, "unable to open %s/%s%s: %s", path, subdirs[i],
				 create ? "" : " (not a spool?)", strerror(errno));
			return -1;
		}
	}
	if (made)
		(void)sq_fsync_dir(sp->root);
	return 0;
}

/* The spool and its subdirectories must all be ours alone: a spool made
 * by someone else (say in /tmp, before us) is refused, and so is one that
 * is a symbolic link. 0, or -1 with what failed in why (errno set when a
 * system call failed, 0 when refused). Never exits: sr-mcp opens its spool
 * with it. */
int sq_spool_try_open(struct sq_spool *sp, const char *path, int create, char *why,
		      size_t len)
{
	sp->path = path;
	sp->news = NULL;
	spool_fds_reset(sp);
	if (open_root(sp, path, create, why, len) < 0)
		return -1;
	if (open_subdirs(sp, path, create, why, len) == 0)
		return 0;
	int e = errno;
	sq_spool_close(sp);
	spool_fds_reset(sp);
	errno = e;
	return -1;
}

void sq_spool_close(struct sq_spool *sp)
{
	int fds[] = { sp->root, sp->tmp, sp->queue, sp->run, sp->done, sp->cancel };
	for (size_t i = 0; i < sizeof fds / sizeof *fds; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* SPOOL/sub, allocated; NULL when memory ran out. */
char *sq_spool_subpath(const struct sq_spool *sp, const char *sub)
{
	size_t n = strlen(sp->path) + strlen(sub) + 2;
	char *p = malloc(n);
	if (p)
		snprintf(p, n, "%s/%s", sp->path, sub);
	return p;
}

/* Time-ordered (16 hex digits of wall-clock ns) and unguessable (64 bits
 * from getrandom). Lexical order is submission order. 0, or -1 (errno)
 * when no random bytes could be had. */
int sq_id_new(char id[SQ_ID_LEN + 1])
{
	struct timespec ts;
	uint64_t rnd;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t t = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	if (getrandom(&rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
		return -1;
	snprintf(id, SQ_ID_LEN + 1, "%016llx%016llx", (unsigned long long)t,
		 (unsigned long long)rnd);
	return 0;
}

int sq_id_valid(const char *s)
{
	size_t i;
	for (i = 0; s[i]; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return i == SQ_ID_LEN;
}

int sq_tenant_valid(const char *s)
{
	size_t i;
	for (i = 0; s[i]; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
			return 0;
	}
	return i > 0 && i <= SQ_TENANT_MAX;
}

uint64_t sq_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000ULL + (uint64_t)ts.tv_nsec / 1000000ULL;
}

/* Test-only: SR_QUEUE_CRASH=NAME makes the process SIGKILL itself there. */
void sq_crash_point(const char *name)
{
	static const char *want;
	static int init;
	if (!init) {
		want = getenv("SR_QUEUE_CRASH");
		init = 1;
	}
	if (want && strcmp(want, name) == 0)
		raise(SIGKILL);
}

int sq_fsync_dir(int dfd)
{
	if (fsync(dfd) < 0 && errno != EINVAL && errno != EROFS)
		return -1;
	return 0;
}

/* Create NAME in dfd (replacing it) with the bytes given, fsynced. Not
 * atomic: used in directories that nobody else reads yet. */
int sq_write_file_at(int dfd, const char *name, const void *buf, size_t len)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		      0600);
	if (fd < 0)
		return -1;
	if (sr_write_all(fd, buf, len) < 0 || fsync(fd) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return close(fd);
}

/* Remove NAME under dfd: a file, or a directory of files (one level of
 * subdirectories is enough for a job). ENOENT counts as done. */
int sq_remove_tree_at(int dfd, const char *name)
{
	if (unlinkat(dfd, name, 0) == 0 || errno == ENOENT)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return -1;
	int fd = open_dir_at(dfd, name);
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -1;
	}
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0) < 0 && errno != ENOENT)
			(void)sq_remove_tree_at(dirfd(d), e->d_name);
	}
	closedir(d);
	if (unlinkat(dfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		return -1;
	return 0;
}

/* Is the file open on fd the one named NAME in dfd? */
int sq_same_file(int fd, int dfd, const char *name)
{
	struct stat a, b;
	if (fstat(fd, &a) < 0 || fstatat(dfd, name, &b, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

void sq_each_entry(int dfd, sq_entry_fn fn, void *ctx)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		sr_warn_sys("unable to read a spool directory");
		return;
	}
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			fn(dfd, e->d_name, ctx);
	closedir(d);
}

#define REMOVED "removed"

/* The mark: the first SQ_ID_LEN bytes of SPOOL/removed, a valid id. */
static int removed_read(int fd, char mark[SQ_ID_LEN + 1])
{
	ssize_t n = pread(fd, mark, SQ_ID_LEN, 0);
	mark[n == SQ_ID_LEN ? SQ_ID_LEN : 0] = '\0';
	return sq_id_valid(mark) ? 0 : -1;
}

/* Under the file's flock, so that two gc's never lower it; written in
 * place, one short line (a torn one reads as no mark: a hint only). */
int sq_removed_note(int root, const char *id)
{
	char mark[SQ_ID_LEN + 2], why[SQ_WHY_MAX];
	struct stat st;
	int fd = openat(root, REMOVED, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	int r = -1;
	if (fstat(fd, &st) < 0 || flock(fd, LOCK_EX) < 0)
		goto out;
	if (!S_ISREG(st.st_mode) || sq_not_private(&st, why, sizeof why)) {
		errno = EPERM;
		goto out;
	}
	if (removed_read(fd, mark) == 0 && strcmp(mark, id) >= 0) {
		r = 0;
		goto out;
	}
	snprintf(mark, sizeof mark, "%s\n", id);
	if (pwrite(fd, mark, SQ_ID_LEN + 1, 0) == SQ_ID_LEN + 1 && fsync(fd) == 0)
		r = 0;
out:;
	int e = errno;
	close(fd);
	errno = e;
	return r;
}

int sq_removed_before(int root, const char *id)
{
	char mark[SQ_ID_LEN + 1];
	struct stat st;
	int fd = openat(root, REMOVED, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	int r = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && removed_read(fd, mark) == 0 &&
		sq_id_valid(id) && strcmp(id, mark) <= 0;
	close(fd);
	return r;
}
