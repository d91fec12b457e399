/* tree.c - walking a directory tree of any depth the kernel allows: no
 * recursion, and a bounded number of descriptors. The one place of the
 * mechanism both walkers share (this file's stack and walk.c's sr_tree):
 * a directory on the way down is known by device and inode
 * (struct sr_dir_at), its descriptor may be closed while the walk is
 * deeper, and it is opened again through ".." from its child when the walk
 * comes back to it, and must then be the same directory or the walk fails
 * (ESTALE): the tree was moved under it. And a directory whose owner's
 * rights the sandboxed code took is given them back (sr_open_dir_owned).
 *
 * The stack here: only the deepest few directories keep their
 * descriptor, and each directory's subdirectories still to visit are kept
 * by name, read once, so that no directory stream has to stay open while
 * the walk is below it. No link is followed anywhere. */
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
#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

int sr_dir_at_set(struct sr_dir_at *d, int fd)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	*d = (struct sr_dir_at){ .fd = fd, .dev = st.st_dev, .ino = st.st_ino };
	return 0;
}

int sr_dir_at_reopen(struct sr_dir_at *d, int child)
{
	struct stat st;
	int fd = openat(child, "..", DIR_FLAGS);
	if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == d->dev && st.st_ino == d->ino) {
		d->fd = fd;
		return 0;
	}
	if (fd >= 0) {
		close(fd);
		errno = ESTALE;   /* the tree moved while it was walked */
	}
	return -1;
}

struct sr_dir {
	struct sr_dir_at id;    /* fd -1: closed, opened again through ".." */
	char *names;            /* subdirectories to visit, NUL-terminated each */
	size_t len, cap, at, last;
};

int sr_dirs_push(struct sr_dirs *s, int fd)
{
	struct sr_dir_at at;
	if (sr_dir_at_set(&at, fd) < 0) {
		int e = errno;
		close(fd);
		errno = e;
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
	if (s->n >= OPEN_FDS && s->v[s->n - OPEN_FDS].id.fd >= 0) {
		close(s->v[s->n - OPEN_FDS].id.fd);
		s->v[s->n - OPEN_FDS].id.fd = -1;
	}
	s->v[s->n++] = (struct sr_dir){ .id = at };
	return 0;
}

int sr_dirs_fd(const struct sr_dirs *s)
{
	return s->v[s->n - 1].id.fd;
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
	if (up && up->id.fd < 0)
		r = sr_dir_at_reopen(&up->id, d->id.fd);
	int e = errno;
	close(d->id.fd);
	free(d->names);
	errno = e;
	return r;
}

void sr_dirs_free(struct sr_dirs *s)
{
	while (s->n) {
		struct sr_dir *d = &s->v[--s->n];
		if (d->id.fd >= 0)
			close(d->id.fd);
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

void sr_dir_give_rights(int fd, unsigned want, int mine)
{
	struct stat st;
	if (fstat(fd, &st) == 0 && (st.st_mode & want) != want &&
	    (!mine || st.st_uid == geteuid()))
		(void)fchmod(fd, (st.st_mode & 07777) | 0700);
}

/* A directory the sandboxed code made unreadable: its owner is the user;
 * its owner's rights back through an O_PATH descriptor (no link
 * followed), then opened again. */
static int open_taken(int parent, const char *name)
{
	struct stat st;
	int fd = -1, p = openat(parent, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	char proc[64];
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", p);
	if (p >= 0 && fstat(p, &st) == 0 && chmod(proc, (st.st_mode & 07777) | 0700) == 0)
		fd = openat(parent, name, DIR_FLAGS);
	if (p >= 0)
		close(p);
	if (p < 0 || fd < 0)
		errno = EACCES;
	return fd;
}

int sr_open_dir_owned(int parent, const char *name, unsigned want, int mine)
{
	int fd = openat(parent, name, DIR_FLAGS);
	if (fd < 0 && errno == EACCES)
		fd = open_taken(parent, name);
	if (fd >= 0)
		sr_dir_give_rights(fd, want, mine);
	return fd;
}

int sr_open_subdir(int parent, const char *name)
{
	return sr_open_dir_owned(parent, name, 0500, 1);
}
