/* qcache.c - a directory's size, measured once and then kept up to date.
 *
 * A quota (sr-jail --quota, sr-mcp's workspaces) needs the size of the
 * directory it caps: the bytes of its regular files, links not followed.
 * Measuring walks the whole tree, and a workspace with a node_modules in
 * it has tens of thousands of files: some 40 ms at every run. So the size
 * is kept in a small cache file, outside the directory, that whoever
 * changes the directory adjusts by what its change added or removed,
 * under the file's lock:
 *
 *   sr-quota-cache 1 DEV INO BYTES MEASURED BOOT_ID
 *
 * An entry is used only for the same directory (DEV, INO), from this boot
 * (a crash may have lost writes to the directory or to the cache), and
 * within an hour of its measure (which also bounds the drift from changes
 * made by other means); else the tree is measured again.
 * The cache is not fsynced: after a crash it is from another boot. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sr.h"

#define DEPTH_MAX 256
#define MAX_AGE 3600    /* seconds */

static uint64_t tree_bytes(int dirfd, int depth)
{
	int fd = dup(dirfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	rewinddir(d);   /* the dup shares its offset with dirfd: read from the start */
	uint64_t sum = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		struct stat st;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISREG(st.st_mode))
			sum += (uint64_t)st.st_size;
		if (!S_ISDIR(st.st_mode) || depth >= DEPTH_MAX)
			continue;
		int sub = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0) {
			sum += tree_bytes(sub, depth + 1);
			close(sub);
		}
	}
	closedir(d);
	return sum;
}

uint64_t sr_tree_bytes(int dirfd)
{
	return tree_bytes(dirfd, 0);
}

uint64_t sr_entry_bytes(int dirfd, const char *name)
{
	struct stat st;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	if (S_ISREG(st.st_mode))
		return (uint64_t)st.st_size;
	if (!S_ISDIR(st.st_mode))
		return 0;
	int sub = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub < 0)
		return 0;
	uint64_t n = tree_bytes(sub, 1);
	close(sub);
	return n;
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
	unsigned long long dev, ino, bytes, measured;
	char boot[40];
};

/* The entry in fd, if it is one for the directory st. */
static int entry_read(int fd, const struct stat *st, struct entry *e)
{
	char buf[256];
	ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	int v = 0;
	if (sscanf(buf, "sr-quota-cache %d %llu %llu %llu %llu %39s", &v, &e->dev, &e->ino,
		   &e->bytes, &e->measured, e->boot) != 6 || v != 1 ||
	    e->dev != (unsigned long long)st->st_dev || e->ino != (unsigned long long)st->st_ino)
		return -1;
	char boot[40];
	boot_id(boot);
	return strcmp(boot, e->boot) ? -1 : 0;
}

static int entry_write(int fd, const struct entry *e)
{
	char buf[256];
	int n = snprintf(buf, sizeof buf, "sr-quota-cache 1 %llu %llu %llu %llu %s\n", e->dev,
			 e->ino, e->bytes, e->measured, e->boot);
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

uint64_t sr_qcache_used(int fd, int dirfd, int *measured)
{
	struct stat st;
	struct entry e;
	time_t now = time(NULL);
	*measured = 0;
	if (fstat(dirfd, &st) < 0)
		return sr_tree_bytes(dirfd);
	if (fd >= 0 && entry_read(fd, &st, &e) == 0 && (unsigned long long)now >= e.measured &&
	    (unsigned long long)now - e.measured < MAX_AGE)
		return e.bytes;
	*measured = 1;
	uint64_t bytes = sr_tree_bytes(dirfd);
	if (fd >= 0) {
		e.dev = (unsigned long long)st.st_dev;
		e.ino = (unsigned long long)st.st_ino;
		e.bytes = bytes;
		e.measured = (unsigned long long)now;
		boot_id(e.boot);
		(void)entry_write(fd, &e);
	}
	return bytes;
}

int sr_qcache_add(int fd, int dirfd, int64_t delta)
{
	struct stat st;
	struct entry e;
	if (fstat(dirfd, &st) < 0 || entry_read(fd, &st, &e) < 0) {
		/* nothing trusted to adjust: whatever is there must not be
		 * taken for the size after this change */
		sr_qcache_drop(fd);
		return -1;
	}
	if (delta < 0 && (uint64_t)-delta > e.bytes)
		e.bytes = 0;
	else
		e.bytes = (unsigned long long)((int64_t)e.bytes + delta);
	return entry_write(fd, &e);
}

void sr_qcache_drop(int fd)
{
	if (ftruncate(fd, 0) < 0)      /* then the entry is wrong: say so */
		sr_warn_sys("unable to empty a size cache");
}
