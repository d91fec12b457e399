/* trust.c - is a directory the calling user's alone, or at least out of
 * every other user's reach?
 *
 * A directory that another local user owns, or can write, or can swap
 * (because they can write in a directory above it), is theirs as much as
 * ours: whatever we keep there (a spool's jobs, sr-mcp's workspaces and
 * the code of every run) they can read, replace or plant. The rule, as
 * ssh's StrictModes has it for the files it trusts:
 *
 *   - the directory itself is owned by the effective uid and writable by
 *     neither group nor others;
 *   - each directory above it is owned by root or the effective uid (or,
 *     in a user namespace, by an owner with no id there, as root's
 *     directories show), and writable by group or others only with the
 *     sticky bit (/tmp), where nobody else can rename what we made.
 *
 * A directory whose code runs (a root file system sr-mcp's runs execute,
 * the runners) need not be ours, only out of others' reach: the same
 * rule, but the directory may be root's too (sr_dir_trusted), and every
 * entry in it, at any depth, is owned by root or us and, a directory or
 * a regular file, writable by neither group nor others, sticky or not
 * (sr_tree_trusted): a world-writable sticky usr/lib/python3 would take
 * anyone's module. Nobody else can then change, add, rename or swap
 * anything in it or above it; root and we still can.
 *
 * The path is walked from / one component at a time with O_PATH and
 * O_NOFOLLOW, so a symbolic link anywhere is refused, not followed: give
 * a resolved path (realpath). A tree is walked without recursion, with a
 * bounded number of descriptors (lib/walk.c), following no link. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sr.h"

static void who(uid_t uid, char *buf, size_t len)
{
	struct passwd *pw = getpwuid(uid);
	if (pw && pw->pw_name)
		snprintf(buf, len, "uid %lu (%s)", (unsigned long)uid, pw->pw_name);
	else
		snprintf(buf, len, "uid %lu", (unsigned long)uid);
}

/* In a user namespace, a file whose owner has no id inside shows the
 * overflow uid (65534): most often root's (the system's directories), and
 * no user of the namespace can have made it. Outside one, 65534 is an
 * account (nobody) like any other. */
static int unmapped(uid_t uid)
{
	char *map = sr_read_file("/proc/self/uid_map", 65536, NULL), *line, *save = NULL;
	char *ov = sr_read_file("/proc/sys/kernel/overflowuid", 64, NULL);
	int r = map && ov && (unsigned long)uid == strtoul(ov, NULL, 10);
	for (line = map ? strtok_r(map, "\n", &save) : NULL; r && line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long in, out, n;
		if (sscanf(line, "%lu %lu %lu", &in, &out, &n) == 3 && uid >= in && uid - in < n)
			r = 0;      /* it has an id inside: a user like any other */
	}
	free(map);
	free(ov);
	return r;
}

/* The places of a path: a directory above, the directory itself when it
 * must be ours (private) or ours or root's (code, whose content runs). */
enum place { ABOVE, PRIVATE, CODE };

static int root_or_me(uid_t uid)
{
	return uid == geteuid() || uid == 0 || unmapped(uid);
}

/* NULL when st may stand at that place of the path; otherwise why not. */
static const char *judge(const struct stat *st, enum place at, char *why, size_t len)
{
	uid_t me = geteuid();
	char owner[96], mine[96];
	if (!S_ISDIR(st->st_mode)) {
		snprintf(why, len, "is not a directory");
		return why;
	}
	if (at == PRIVATE ? st->st_uid != me : !root_or_me(st->st_uid)) {
		who(st->st_uid, owner, sizeof owner);
		who(me, mine, sizeof mine);
		snprintf(why, len, "is owned by %s, not by %s%s", owner, mine,
			 at == PRIVATE ? "" : " or root");
		return why;
	}
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) && (at != ABOVE || !(st->st_mode & S_ISVTX))) {
		who(st->st_uid, owner, sizeof owner);
		snprintf(why, len, "is writable by %s (mode 0%o, owner %s)",
			 st->st_mode & S_IWOTH ? "others" : "its group",
			 (unsigned)(st->st_mode & 07777), owner);
		return why;
	}
	return NULL;
}

/* The directory in hand (fd, shown as part) fit for its place? 0, or -1
 * with why (errno 0: refused). */
static int check_here(int fd, const char *part, enum place at, char *why, size_t len)
{
	struct stat st;
	char r[400];
	if (fstat(fd, &st) < 0) {
		snprintf(why, len, "unable to stat %s: %s", part, strerror(errno));
		return -1;
	}
	if (judge(&st, at, r, sizeof r)) {
		snprintf(why, len, "%s %s", part, r);
		errno = 0;
		return -1;
	}
	return 0;
}

/* name in fd (consumed), part its path: its descriptor; -2 missing where
 * that may be; -1 with why (a link is refused, not followed). */
static int descend(int fd, const char *part, const char *name, int may_be_missing, char *why,
		   size_t len)
{
	int sub = openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), err = errno;
	struct stat lst;
	close(fd);
	if (sub >= 0)
		return sub;
	if (err == ENOENT && may_be_missing)
		return -2;
	if (fstatat(AT_FDCWD, part, &lst, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(lst.st_mode))
		snprintf(why, len, "%s is a symbolic link", part);
	else
		snprintf(why, len, "unable to open %s: %s", part, strerror(err));
	errno = err == ENOENT ? ENOENT : 0;
	return -1;
}

/* path from /, its last directory judged at place last: 1 with its O_PATH
 * descriptor in *out (closed without out); 0: with may_be_missing, a
 * part is missing; -1 refused (errno 0) or failed (errno). */
static int walk_path(const char *path, enum place last, int may_be_missing, int *out,
		     char *why, size_t len)
{
	char part[PATH_MAX] = "/", name[NAME_MAX + 1];
	size_t at = 0;           /* part holds path[0 .. at) */
	if (path[0] != '/' || strlen(path) >= sizeof part) {
		snprintf(why, len, "%s: an absolute path is expected", path);
		return -1;
	}
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, len, "unable to open /: %s", strerror(errno));
		return -1;
	}
	for (;;) {
		size_t s = at, e;
		while (path[s] == '/')
			s++;
		for (e = s; path[e] && path[e] != '/'; e++)
			;
		/* the component in hand: the last is the directory itself */
		if (check_here(fd, part, e == s ? last : ABOVE, why, len) < 0) {
			int k = errno;
			close(fd);
			errno = k;
			return -1;
		}
		if (e == s)
			break;
		if (e - s > NAME_MAX) {
			snprintf(why, len, "%s: a name too long", path);
			close(fd);
			return -1;
		}
		memcpy(name, path + s, e - s);
		name[e - s] = '\0';
		memcpy(part, path, e);
		part[at = e] = '\0';
		fd = descend(fd, part, name, may_be_missing, why, len);
		if (fd < 0)
			return fd == -2 ? 0 : -1;
	}
	if (out)
		*out = fd;
	else
		close(fd);
	return 1;
}

/* 1: path is a private directory; 0: with may_be_missing, a part of it
 * is missing and what exists may hold it (the rest is to be made, then
 * checked again); -1: refused (errno 0) or a failure (errno), why saying
 * which path and why, naming its owner. */
int sr_dir_private(const char *path, int may_be_missing, char *why, size_t len)
{
	return walk_path(path, PRIVATE, may_be_missing, NULL, why, len);
}

int sr_dir_trusted(const char *path, int *fd, char *why, size_t len)
{
	return walk_path(path, CODE, 0, fd, why, len);
}

/* NULL when an entry of a tree whose code runs may be as st says: owned
 * by root or us, and (a directory or a regular file) writable by neither
 * group nor others; otherwise why not, with the fix. A symbolic link's
 * own mode means nothing, and only its directory's writers can change it;
 * a device, fifo or socket changes no file (sr-jail binds nodev). */
const char *sr_stat_trusted(const struct stat *st, int flags, const char *shown, char *why,
			    size_t len)
{
	char owner[96], mine[96];
	if (S_ISLNK(st->st_mode) && (flags & SR_TRUST_NO_LINKS)) {
		snprintf(why, len, "%s is a symbolic link, which would lead out of what was "
			 "checked; put the file itself there", shown);
		return why;
	}
	if (!root_or_me(st->st_uid)) {
		who(st->st_uid, owner, sizeof owner);
		who(geteuid(), mine, sizeof mine);
		snprintf(why, len, "%s is owned by %s, not by %s or root: they can change it; "
			 "chown it to root or to you", shown, owner, mine);
		return why;
	}
	if ((S_ISDIR(st->st_mode) || S_ISREG(st->st_mode)) && (st->st_mode & (S_IWGRP | S_IWOTH))) {
		who(st->st_uid, owner, sizeof owner);
		snprintf(why, len, "%s is writable by %s (mode 0%o, owner %s); chmod go-w %s", shown,
			 st->st_mode & S_IWOTH ? "others" : "its group",
			 (unsigned)(st->st_mode & 07777), owner, shown);
		return why;
	}
	return NULL;
}

/* A directory of the tree that cannot be opened: refused when group or
 * others may search it (they reach what is in it by name, unchecked);
 * else only its owner (root or us) reaches inside, and it may stay. */
static int unopened(const struct stat *st, const char *shown, int err, char *why, size_t len)
{
	if (err == EACCES && !(st->st_mode & (S_IXGRP | S_IXOTH)))
		return 0;
	snprintf(why, len, "%s: unable to open it to check it: %s%s", shown, strerror(err),
		 err == EACCES ? " (chmod u+rx, or go-x)" : "");
	errno = err == EACCES ? 0 : err;
	return -1;
}

#define TREE_NAMES_MAX (1u << 20)   /* names held at once, along the walk's path */

/* The tree below fd (consumed), shown as top, each entry judged. */
static int tree_walk(int fd, int flags, const char *top, char *why, size_t len)
{
	struct sr_tree t = { .names_max = TREE_NAMES_MAX, .path_max = PATH_MAX };
	char shown[2 * PATH_MAX + 2];
	int k, r = 1;
	if (sr_tree_open(&t, fd) < 0) {
		snprintf(why, len, "unable to read %s: %s", top, strerror(errno));
		return -1;
	}
	while (r > 0 && (k = sr_tree_next(&t)) > 0) {
		struct stat st;
		if (k == SR_TREE_LEAVE)
			continue;
		snprintf(shown, sizeof shown, "%s/%s%s", top, t.path, t.path_cut ? "/..." : "");
		if (fstatat(t.dirfd, t.name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			snprintf(why, len, "unable to stat %s: %s", shown, strerror(errno));
			r = -1;
		} else if (sr_stat_trusted(&st, flags, shown, why, len)) {
			errno = 0;
			r = -1;
		} else if (S_ISDIR(st.st_mode) && sr_tree_enter(&t) < 0) {
			r = unopened(&st, shown, errno, why, len) < 0 ? -1 : 1;
		}
	}
	if (r > 0 && (k < 0 || t.cut)) {
		snprintf(why, len, "%s: %s", top, k < 0 ? strerror(errno) :
			 "too many names in one directory to check");
		r = -1;
	}
	int e = errno;
	sr_tree_close(&t);
	errno = e;
	return r;
}

int sr_tree_trusted(int dirfd, const char *name, int flags, const char *shown, char *why,
		    size_t len)
{
	struct stat st;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(why, len, "unable to stat %s: %s", shown, strerror(errno));
		return -1;
	}
	if (sr_stat_trusted(&st, flags, shown, why, len)) {
		errno = 0;
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return 1;
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return unopened(&st, shown, errno, why, len) < 0 ? -1 : 1;
	return tree_walk(fd, flags, shown, why, len);
}
