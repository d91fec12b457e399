/* qcache.c - a directory's size, measured once and then kept up to date.
 *
 * A quota (sr-jail --quota, sr-mcp's workspaces) needs the size of the
 * directory it caps: the bytes of its regular files (each name's), and its
 * inodes (files, directories, links, everything under it counted once, a
 * file of several names once), no link followed, to any depth (tree.c).
 * Measuring walks the whole tree, and a workspace with a node_modules in
 * it has tens of thousands of files: some 40 ms at every run. So the size
 * is kept in a small cache file, outside the directory, that whoever
 * changes the directory adjusts by what its change added or removed,
 * under the file's lock:
 *
 *   sr-quota-cache 2 DEV INO BYTES INODES MEASURED BOOT_ID
 *
 * (version 1 had no INODES: such an entry, like anything that is not
 * exactly this line, is not trusted, and the tree is measured again).
 * An entry is used only for the same directory (DEV, INO), from this boot
 * (a crash may have lost writes to the directory or to the cache), and
 * within an hour of its measure (which also bounds the drift from changes
 * made by other means); else the tree is measured again.
 * The cache is not fsynced: after a crash it is from another boot. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sr.h"

#define MAX_AGE 3600    /* seconds */

/* A file with several names counted once: each name seen is noted, and
 * the inodes counted when the measure ends. */
struct link {
	unsigned long long dev, ino, nlink;
};
struct measure {
	struct sr_usage u;
	struct sr_dirs dirs;
	struct link *links;
	size_t nlinks, cap;
	uint64_t files;         /* names of regular files, each counted */
	int whole;      /* the whole tree: a file with a name outside counts too */
};

static int note_link(struct measure *m, const struct stat *st)
{
	if (m->nlinks == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 64;
		struct link *v = realloc(m->links, cap * sizeof *v);
		if (!v)
			return -1;
		m->links = v, m->cap = cap;
	}
	m->links[m->nlinks++] = (struct link){ st->st_dev, st->st_ino, st->st_nlink };
	return 0;
}

static int link_cmp(const void *a, const void *b)
{
	const struct link *x = a, *y = b;
	return x->dev != y->dev ? (x->dev < y->dev ? -1 : 1) :
	       x->ino != y->ino ? (x->ino < y->ino ? -1 : 1) : 0;
}

/* Each file of several names once: always in a whole tree; in a part of
 * one only when all its names are in the part (removing the part frees
 * it then, and only then). */
static void count_links(struct measure *m)
{
	qsort(m->links, m->nlinks, sizeof *m->links, link_cmp);
	for (size_t i = 0, j; i < m->nlinks; i = j) {
		for (j = i + 1; j < m->nlinks && !link_cmp(&m->links[i], &m->links[j]); j++)
			;
		if (m->whole || j - i >= m->links[i].nlink)
			m->u.inodes++;
	}
	free(m->links);
}

static int count(struct measure *m, const struct stat *st)
{
	if (S_ISREG(st->st_mode)) {
		m->u.bytes += (uint64_t)st->st_size;
		m->files++;
	}
	if (!S_ISDIR(st->st_mode) && st->st_nlink > 1)
		return note_link(m, st);
	m->u.inodes++;
	return 0;
}

static int count_entry(int fd, const char *name, void *arg)
{
	struct measure *m = arg;
	struct stat st;
	if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	if (count(m, &st) < 0)
		return -1;
	return S_ISDIR(st.st_mode) ? sr_dirs_add(&m->dirs, name) : 0;
}

/* Everything under the directory fd (which is taken), to any depth. */
static int walk(struct measure *m, int fd)
{
	int r = 0;
	if (sr_dirs_push(&m->dirs, fd) < 0 || sr_dir_each(fd, count_entry, m) < 0)
		r = -1;
	while (m->dirs.n) {
		const char *name = sr_dirs_next(&m->dirs);
		if (!name) {
			if (sr_dirs_pop(&m->dirs) < 0) {
				r = -1;
				break;
			}
			continue;
		}
		int sub = sr_open_subdir(sr_dirs_fd(&m->dirs), name);
		if (sub < 0) {
			r = errno == ENOENT ? r : -1;
			continue;
		}
		if (sr_dirs_push(&m->dirs, sub) < 0) {
			r = -1;
			break;
		}
		if (sr_dir_each(sub, count_entry, m) < 0)
			r = -1;
	}
	sr_dirs_free(&m->dirs);
	count_links(m);
	return r;
}

int sr_tree_count(int dirfd, struct sr_usage *u, uint64_t *files)
{
	struct measure m = { .whole = 1 };
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r = fd < 0 ? -1 : walk(&m, fd);
	*u = m.u;
	*files = m.files;
	return r;
}

int sr_tree_usage(int dirfd, struct sr_usage *u)
{
	uint64_t files;
	return sr_tree_count(dirfd, u, &files);
}

int sr_entry_count(int dirfd, const char *name, struct sr_usage *u, uint64_t *files)
{
	struct measure m = { .whole = 0 };
	struct stat st;
	*u = m.u;
	*files = 0;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode)) {
		/* one name of several: removing it frees no inode */
		u->inodes = st.st_nlink > 1 ? 0 : 1;
		u->bytes = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
		*files = S_ISREG(st.st_mode);
		return 0;
	}
	int fd = sr_open_subdir(dirfd, name);
	int r = fd < 0 ? -1 : walk(&m, fd);
	m.u.inodes++;   /* the directory itself */
	*u = m.u;
	*files = m.files;
	return r;
}

int sr_entry_usage(int dirfd, const char *name, struct sr_usage *u)
{
	uint64_t files;
	return sr_entry_count(dirfd, name, u, &files);
}

static void boot_id(char out[40])
{
	out[0] = '-';
	out[1] = '\0';
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, out, 39);
	close(fd);
	if (n <= 0) {
		out[0] = '-', out[1] = '\0';
		return;
	}
	out[n] = '\0';
	out[strcspn(out, " \n")] = '\0';
	if (!out[0])
		out[0] = '-', out[1] = '\0';
}

struct entry {
	unsigned long long dev, ino, bytes, inodes, measured;
	char boot[40];
};

/* The next field of line at *p: digits only, no sign, no overflow. */
static int field(const char **p, unsigned long long *v)
{
	const char *s = *p;
	if (*s != ' ' || s[1] < '0' || s[1] > '9')
		return -1;
	*v = 0;
	for (s++; *s >= '0' && *s <= '9'; s++) {
		if (*v > (~0ULL - 9) / 10)
			return -1;
		*v = *v * 10 + (unsigned long long)(*s - '0');
	}
	*p = s;
	return 0;
}

/* The entry in fd, if it is one for the directory st: the whole line as
 * this version writes it, or nothing (an older version's entry counted no
 * inodes: it is measured again). */
static int entry_read(int fd, const struct stat *st, struct entry *e)
{
	static const char tag[] = "sr-quota-cache 2";
	char buf[256];
	ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	const char *p = buf + sizeof tag - 1;
	if (strncmp(buf, tag, sizeof tag - 1) || field(&p, &e->dev) || field(&p, &e->ino) ||
	    field(&p, &e->bytes) || field(&p, &e->inodes) || field(&p, &e->measured) ||
	    *p++ != ' ')
		return -1;
	size_t k = strspn(p, "0123456789abcdef-");
	if (k == 0 || k >= sizeof e->boot || strcmp(p + k, "\n"))
		return -1;
	memcpy(e->boot, p, k);
	e->boot[k] = '\0';
	if (e->dev != (unsigned long long)st->st_dev || e->ino != (unsigned long long)st->st_ino)
		return -1;
	char boot[40];
	boot_id(boot);
	return strcmp(boot, e->boot) ? -1 : 0;
}

static int entry_write(int fd, const struct entry *e)
{
	char buf[256];
	int n = snprintf(buf, sizeof buf, "sr-quota-cache 2 %llu %llu %llu %llu %llu %s\n",
			 e->dev, e->ino, e->bytes, e->inodes, e->measured, e->boot);
	if (pwrite(fd, buf, (size_t)n, 0) != n || ftruncate(fd, n) < 0)
		return -1;
	return 0;
}

int sr_qcache_open(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

int sr_qcache_lock(int fd)
{
	int r;
	while ((r = flock(fd, LOCK_EX)) < 0 && errno == EINTR)
		;
	return r;
}

void sr_qcache_unlock(int fd)
{
	(void)flock(fd, LOCK_UN);
}

int sr_qcache_used(int fd, int dirfd, struct sr_usage *u, int *measured)
{
	struct stat st;
	struct entry e;
	time_t now = time(NULL);
	*measured = 1;
	if (fstat(dirfd, &st) < 0) {
		*u = (struct sr_usage){ 0, 0 };
		return -1;
	}
	if (fd >= 0 && entry_read(fd, &st, &e) == 0 && (unsigned long long)now >= e.measured &&
	    (unsigned long long)now - e.measured < MAX_AGE) {
		*measured = 0;
		*u = (struct sr_usage){ e.bytes, e.inodes };
		return 0;
	}
	int r = sr_tree_usage(dirfd, u);
	if (fd >= 0 && r < 0) {
		sr_qcache_drop(fd);     /* a part not read: not a size to keep */
	} else if (fd >= 0) {
		e.dev = (unsigned long long)st.st_dev;
		e.ino = (unsigned long long)st.st_ino;
		e.bytes = u->bytes;
		e.inodes = u->inodes;
		e.measured = (unsigned long long)now;
		boot_id(e.boot);
		(void)entry_write(fd, &e);
	}
	return r;
}

static unsigned long long adjust(unsigned long long v, int64_t delta)
{
	if (delta < 0 && (uint64_t)-delta > v)
		return 0;
	return (unsigned long long)((int64_t)v + delta);
}

int sr_qcache_add(int fd, int dirfd, const struct sr_delta *d)
{
	struct stat st;
	struct entry e;
	if (fstat(dirfd, &st) < 0 || entry_read(fd, &st, &e) < 0) {
		/* nothing trusted to adjust: whatever is there must not be
		 * taken for the size after this change */
		sr_qcache_drop(fd);
		return -1;
	}
	e.bytes = adjust(e.bytes, d->bytes);
	e.inodes = adjust(e.inodes, d->inodes);
	return entry_write(fd, &e);
}

void sr_qcache_drop(int fd)
{
	if (ftruncate(fd, 0) < 0)      /* then the entry is wrong: say so */
		sr_warn_sys("unable to empty a size cache");
}
