/* fs.c - safe file access beneath a directory: every path is looked up
 * by openat2 (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)
 * beneath a descriptor, files are opened O_NOFOLLOW and checked with
 * fstat (a regular file of one link), trees are walked without following
 * a link (lib/tree.c). Why this matters: see tool_files.c. The fs layer: it
 * calls the text layer and lib/ only. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include <sys/syscall.h>
#include <linux/openat2.h>

#include "fs.h"
#include "mcp.h"
#include "sr.h"

#define RESOLVE_SAFE (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)

int fs_openat2(int dirfd, const char *path, int flags, mode_t mode)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC | O_NOFOLLOW),
		.mode = (flags & O_CREAT) ? mode : 0,
		.resolve = RESOLVE_SAFE,
	};
	long fd;
	for (int tries = 0;; tries++) {
		fd = syscall(SYS_openat2, dirfd, path, &how, sizeof how);
		/* EAGAIN: a rename elsewhere raced the lookup; look again */
		if (fd >= 0 || (errno != EAGAIN && errno != EINTR) || tries >= 20)
			break;
	}
	/* O_DIRECTORY | O_NOFOLLOW on a link says ENOTDIR: say it is a link */
	if (fd < 0 && errno == ENOTDIR && (flags & O_DIRECTORY)) {
		struct open_how p = { .flags = O_PATH | O_NOFOLLOW | O_CLOEXEC, .resolve = RESOLVE_SAFE };
		struct stat st;
		long l = syscall(SYS_openat2, dirfd, path, &p, sizeof p);
		int link = l >= 0 && fstat((int)l, &st) == 0 && S_ISLNK(st.st_mode);
		if (l >= 0)
			close((int)l);
		errno = link ? ELOOP : ENOTDIR;
	}
	return (int)fd;
}

/* Why a lookup of path failed, for the model. */
void fs_path_why(char *buf, size_t len, const char *path, int e)
{
	switch (e) {
	case EXDEV:
		snprintf(buf, len, "%s: path escapes the workspace (paths are relative to "
			 "/workspace, and '..' may not leave it)", path);
		break;
	case ELOOP:
		snprintf(buf, len, "%s: is a symbolic link, or has one on its way: sr-mcp "
			 "follows none (list_files shows links and their targets; run_code "
			 "can read through them inside the sandbox)", path);
		break;
	case ENOENT:
		snprintf(buf, len, "%s: no such file or directory (list_files shows what "
			 "is there)", path);
		break;
	case ENOTDIR:
		snprintf(buf, len, "%s: a component of the path is not a directory", path);
		break;
	case EISDIR:
		snprintf(buf, len, "%s: is a directory (list_files lists it)", path);
		break;
	case ENXIO:
	case ENODEV:
		snprintf(buf, len, "%s: not a regular file (a fifo/socket/device): sr-mcp "
			 "reads and writes regular files only", path);
		break;
	case ENOSYS:
		snprintf(buf, len, "this kernel has no openat2 (Linux 5.6 or later is "
			 "needed): the file tools are off; use run_code");
		break;
	case ENAMETOOLONG:
		snprintf(buf, len, "the path is too long");
		break;
	default:
		snprintf(buf, len, "%s: %s", path, strerror(e));
	}
}

/* The path as the model gave it, made relative to the workspace root:
 * "/workspace/x" is "x", "/workspace" and "" are ".". NULL (err set) for
 * an absolute path elsewhere: the kernel would refuse it anyway. */
const char *fs_rel_path(const char *p, char *err, size_t len)
{
	if (!strncmp(p, "/workspace", 10) && (p[10] == '/' || !p[10])) {
		p += 10;
		while (*p == '/')
			p++;
	}
	if (*p == '/') {
		snprintf(err, len, "%s: path escapes the workspace (give a path relative to "
			 "/workspace)", p);
		return NULL;
	}
	if (strlen(p) >= 4000) {
		snprintf(err, len, "the path is too long");
		return NULL;
	}
	return *p ? p : ".";
}

/* Split PATH into its directory (in dir) and last component (returned);
 * NULL when the last component is not a name ("", ".", ".."). */
const char *fs_split(const char *path, char *dir, size_t len)
{
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s", path);
	size_t n = strlen(tmp);
	while (n > 1 && tmp[n - 1] == '/')
		tmp[--n] = '\0';
	char *slash = strrchr(tmp, '/');
	const char *base = slash ? slash + 1 : tmp;
	if (slash) {
		*slash = '\0';
		snprintf(dir, len, "%s", *tmp ? tmp : ".");
	} else {
		snprintf(dir, len, ".");
	}
	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return NULL;
	return path + (base - tmp);
}

/* The directory dir beneath ws, open; with create, missing directories
 * are made one component at a time (mkdirat, then the same confined
 * open). -1 with errno. */
int fs_dir_open(int ws, const char *dir, int create)
{
	int fd = fs_openat2(ws, dir, O_RDONLY | O_DIRECTORY, 0);
	if (fd >= 0 || errno != ENOENT || !create)
		return fd;
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s", dir);
	int cur = dup(ws);
	char *save = NULL;
	for (char *c = strtok_r(tmp, "/", &save); c && cur >= 0; c = strtok_r(NULL, "/", &save)) {
		if (!strcmp(c, "."))
			continue;
		if (!strcmp(c, "..")) {   /* the walk opens one level at a time */
			close(cur);
			errno = EXDEV;
			return -1;
		}
		int next = fs_openat2(cur, c, O_RDONLY | O_DIRECTORY, 0);
		if (next < 0 && errno == ENOENT) {
			if (mkdirat(cur, c, 0700) < 0 && errno != EEXIST) {
				int e = errno;
				close(cur);
				errno = e;
				return -1;
			}
			next = fs_openat2(cur, c, O_RDONLY | O_DIRECTORY, 0);
		}
		int e = errno;
		close(cur);
		cur = next;
		errno = e;
	}
	return cur;
}

/* A regular file of one link, open: its descriptor and stat, or -1 with
 * the reason in err. */
int fs_file_open(const struct fs_at *at, int flags, struct stat *st, char *err, size_t len)
{
	const char *shown = at->shown;
	int fd = fs_openat2(at->dir, at->path, flags | O_NONBLOCK | O_NOCTTY, 0600);
	if (fd < 0) {
		fs_path_why(err, len, shown, errno);
		return -1;
	}
	if (fstat(fd, st) < 0) {
		fs_path_why(err, len, shown, errno);
		close(fd);
		return -1;
	}
	if (S_ISDIR(st->st_mode)) {
		fs_path_why(err, len, shown, EISDIR);
	} else if (!S_ISREG(st->st_mode)) {
		fs_path_why(err, len, shown, ENXIO);
	} else if (st->st_nlink > 1) {
		snprintf(err, len, "%s: has %lu hard links: sr-mcp reads and writes no file "
			 "with more than one (a link could be to a file outside the workspace); "
			 "use run_code to copy it", shown, (unsigned long)st->st_nlink);
	} else {
		return fd;
	}
	close(fd);
	return -1;
}

char *fs_read_fd(int fd, size_t size, size_t *got)
{
	char *p = xmalloc(size + 1);
	size_t n = 0;
	while (n < size) {
		ssize_t k = pread(fd, p + n, size - n, (off_t)n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	p[n] = '\0';
	*got = n;
	return p;
}

/* Without recursion, at any depth (lib/walk.c): each directory in name
 * order, FS_WALK_MAX entries at most; a path longer than rel_max is given
 * cut (rel_cut), or not at all with skip_cut. fd0 is consumed. */
void fs_walk(struct fs_walk *w, int fd0)
{
	struct sr_tree t = { .sorted = 1, .names_max = FS_WALK_MAX,
			     .path_max = w->no_rel ? 0 : w->rel_max ? w->rel_max : FS_REL_MAX };
	if (sr_tree_open(&t, fd0) < 0) {
		w->cut = 1;
		return;
	}
	int k = 0;
	while (!w->stop && (k = sr_tree_next(&t)) > 0) {
		struct stat st;
		if (k == SR_TREE_LEAVE || fstatat(t.dirfd, t.name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (++w->seen >= FS_WALK_MAX) {
			w->cut = 1;
			break;
		}
		w->rel_cut = t.path_cut;
		w->cut |= t.path_cut;
		if (t.path_cut && w->skip_cut)
			continue;
		w->prune = 0;
		w->fn(w, t.dirfd, t.name, t.path ? t.path : "", &st);
		if (w->recursive && S_ISDIR(st.st_mode) && !w->stop && !w->prune)
			(void)sr_tree_enter(&t);   /* unreadable: its entries are not seen */
	}
	if (k < 0 || t.cut)
		w->cut = 1;
	sr_tree_close(&t);
}

int fs_write_at(int fd, const void *buf, size_t n, off_t off)
{
	const char *p = buf;
	while (n) {
		ssize_t k = pwrite(fd, p, n, off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
		off += k;
	}
	return 0;
}

int fs_hidden(const char *name, const struct stat *st)
{
	static const char *const names[] = {
		"node_modules", ".sr", "__pycache__", ".venv", ".pytest_cache", ".mypy_cache",
	};
	if (!S_ISDIR(st->st_mode))
		return 0;
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (!strcmp(name, names[i]))
			return 1;
	return 0;
}

static void count_one(struct fs_walk *w, int dirfd, const char *name, const char *rel,
		      const struct stat *st)
{
	(void)dirfd, (void)name, (void)rel, (void)st;
	(*(size_t *)w->ctx)++;
}

size_t fs_count(int dirfd, const char *name, int *cut)
{
	size_t n = 0;
	struct fs_walk w = { .fn = count_one, .recursive = 1, .no_rel = 1, .ctx = &n };
	int fd = fs_openat2(dirfd, name, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0) {
		*cut = 1;
		return 0;
	}
	fs_walk(&w, fd);
	*cut = w.cut;
	return n;
}
