/* tree.c - walking a directory tree of any depth the kernel allows: no
 * recursion, and a bounded number of descriptors. The directories on the
 * way down are a stack; only the deepest few keep their descriptor, a
 * shallower one is opened again through ".." from its child when the walk
 * comes back to it, and must then be the same directory (device and
 * inode) or the walk fails: the tree was moved under it. Each directory's
 * subdirectories still to visit are kept by name, read once, so that no
 * directory stream has to stay open while the walk is below it. No link
 * is followed anywhere. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sr.h"

#define OPEN_FDS 16     /* descriptors kept open on the way down */

struct sr_dir {
	int fd;                 /* -1: closed, opened again through ".." */
	dev_t dev;
	ino_t ino;
	char *names;            /* subdirectories to visit, NUL-terminated each */
	size_t len, cap, at, last;
};

int sr_dirs_push(struct sr_dirs *s, int fd)
{
	struct stat st;
	int bad = fstat(fd, &st) < 0 ? errno : !S_ISDIR(st.st_mode) ? ENOTDIR : 0;
	if (bad) {
		close(fd);
		errno = bad;
		return -1;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 32;
		struct sr_dir *v = realloc(s->v, cap * sizeof *v);
		if (!v) {
			close(fd);
			errno = ENOMEM;
			return -1;
		}
		s->v = v, s->cap = cap;
	}
	if (s->n >= OPEN_FDS && s->v[s->n - OPEN_FDS].fd >= 0) {
		close(s->v[s->n - OPEN_FDS].fd);
		s->v[s->n - OPEN_FDS].fd = -1;
	}
	s->v[s->n++] = (struct sr_dir){ .fd = fd, .dev = st.st_dev, .ino = st.st_ino };
	return 0;
}

int sr_dirs_fd(const struct sr_dirs *s)
{
	return s->v[s->n - 1].fd;
}

int sr_dirs_add(struct sr_dirs *s, const char *name)
{
	struct sr_dir *d = &s->v[s->n - 1];
	size_t n = strlen(name) + 1;
	if (d->len + n > d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 256;
		while (cap < d->len + n)
			cap *= 2;
		char *p = realloc(d->names, cap);
		if (!p) {
			errno = ENOMEM;
			return -1;
		}
		d->names = p, d->cap = cap;
	}
	memcpy(d->names + d->len, name, n);
	d->len += n;
	return 0;
}

const char *sr_dirs_next(struct sr_dirs *s)
{
	struct sr_dir *d = &s->v[s->n - 1];
	if (d->at >= d->len)
		return NULL;
	const char *name = d->names + d->at;
	d->last = d->at;
	d->at += strlen(name) + 1;
	return name;
}

const char *sr_dirs_current(const struct sr_dirs *s)
{
	const struct sr_dir *d = &s->v[s->n - 1];
	return d->at ? d->names + d->last : NULL;
}

int sr_dirs_pop(struct sr_dirs *s)
{
	struct sr_dir *d = &s->v[--s->n], *up = s->n ? &s->v[s->n - 1] : NULL;
	int r = 0;
	if (up && up->fd < 0) {
		struct stat st;
		up->fd = openat(d->fd, "..", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (up->fd >= 0 && (fstat(up->fd, &st) < 0 || st.st_dev != up->dev ||
				    st.st_ino != up->ino)) {
			close(up->fd);
			up->fd = -1;
			errno = ESTALE;         /* moved while it was walked */
		}
		r = up->fd < 0 ? -1 : 0;
	}
	int e = errno;
	close(d->fd);
	free(d->names);
	errno = e;
	return r;
}

void sr_dirs_free(struct sr_dirs *s)
{
	while (s->n) {
		struct sr_dir *d = &s->v[--s->n];
		if (d->fd >= 0)
			close(d->fd);
		free(d->names);
	}
	free(s->v);
	s->v = NULL;
	s->cap = 0;
}

int sr_dir_each(int fd, int (*fn)(int fd, const char *name, void *arg), void *arg)
{
	int dfd = dup(fd), r = 0;
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return -1;
	}
	rewinddir(d);   /* the offset dfd shares with fd may be anywhere */
	struct dirent *e;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && fn(fd, e->d_name, arg) < 0)
			r = -1;
	closedir(d);
	return r;
}

int sr_open_subdir(int parent, const char *name)
{
	struct stat st;
	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && fstat(fd, &st) == 0 && (st.st_mode & 0500) != 0500 &&
	    st.st_uid == geteuid())
		(void)fchmod(fd, (st.st_mode & 07777) | 0700);  /* readable, not searchable */
	if (fd >= 0 || errno != EACCES)
		return fd;
	/* a directory the sandboxed code made unreadable: its owner is the
	 * user; give it back its owner's rights through an O_PATH descriptor
	 * (no link followed) and try again */
	int p = openat(parent, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	char proc[64];
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", p);
	if (p >= 0 && fstat(p, &st) == 0 && chmod(proc, (st.st_mode & 07777) | 0700) == 0)
		fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	else
		errno = EACCES;
	if (p >= 0)
		close(p);
	return fd;
}
