/* walk.c - a tree walked without recursion: any depth the kernel allows
 * costs heap, not stack, and at most SR_TREE_OPEN descriptors are open
 * at once, however deep or wide the tree. The directories below the
 * deepest few are closed as the walk goes down, and opened again on the
 * way up through ".." of the one just left; the device and inode number
 * recorded when a directory was first opened must match then, or the
 * walk stops (ESTALE): a tree moved under it is never mistaken for the
 * one it was walking. Every open is O_NOFOLLOW | O_DIRECTORY: no link
 * is followed. That mechanism, and the owner's rights given back, are
 * lib/tree.c's (struct sr_dir_at, sr_open_dir_owned); this file is the
 * walk built on them.
 *
 * Two ways to read a directory: a list (the names read whole when it is
 * entered, sorted if asked, at most names_max held in all), or a drain,
 * for removal: a stream of entries that go away as they come, so that
 * nothing grows with a directory's width. A directory drained is given
 * back its owner's rights first (u+rwx: the sandboxed code may have taken
 * them), through an O_PATH descriptor and /proc/self/fd when it cannot
 * even be opened. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sr.h"

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

struct sr_tree_dir {
	struct sr_dir_at at;    /* fd -1: closed for now */
	DIR *d;                 /* drain: the stream, while fd is open */
	char **names;           /* list: the entries, read when entered */
	size_t n, i;
	char *cur;              /* drain: the entry last returned (owned) */
	char **kept;            /* drain: entries that stay, skipped when read again */
	size_t nkept;
	size_t plen;            /* the directory's path: its length in the buffer */
	int pcut;               /* ... which is an ancestor's: the path was cut */
};

static int open_owned(int parent, const char *name)
{
	return sr_open_dir_owned(parent, name, 0700, 0);
}

static void dir_free(struct sr_tree_dir *d)
{
	if (d->d)
		closedir(d->d);
	else if (d->at.fd >= 0)
		close(d->at.fd);
	for (size_t i = 0; i < d->n; i++)
		free(d->names[i]);
	free(d->names);
	for (size_t i = 0; i < d->nkept; i++)
		free(d->kept[i]);
	free(d->kept);
	free(d->cur);
	memset(d, 0, sizeof *d);
	d->at.fd = -1;
}

static void dir_close(struct sr_tree_dir *d)
{
	if (d->d)
		closedir(d->d);
	else if (d->at.fd >= 0)
		close(d->at.fd);
	d->d = NULL;
	d->at.fd = -1;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* list: the names of d, at most what names_max leaves. */
static int read_names(struct sr_tree *t, struct sr_tree_dir *d)
{
	int fd = dup(d->at.fd);
	DIR *s = fd >= 0 ? fdopendir(fd) : NULL;
	if (!s) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	size_t cap = 0;
	struct dirent *e;
	while ((e = readdir(s))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (t->names_max && t->held >= t->names_max) {
			t->cut = 1;
			break;
		}
		d->names = sr_grow(d->names, d->n, &cap, sizeof *d->names);
		if (!(d->names[d->n] = strdup(e->d_name)))
			sr_fatal(SR_EXIT_SYS, "out of memory");
		d->n++;
		t->held++;
	}
	closedir(s);
	if (t->sorted && d->n)
		qsort(d->names, d->n, sizeof *d->names, by_name);
	return 0;
}

static int is_kept(const struct sr_tree_dir *d, const char *name)
{
	for (size_t i = 0; i < d->nkept; i++)
		if (!strcmp(d->kept[i], name))
			return 1;
	return 0;
}

/* The next entry of d, or NULL at its end. */
static const char *next_name(struct sr_tree *t, struct sr_tree_dir *d)
{
	if (!t->drain)
		return d->i < d->n ? d->names[d->i++] : NULL;
	if (!d->d && !(d->d = fdopendir(d->at.fd)))
		return NULL;
	struct dirent *e;
	while ((e = readdir(d->d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && !is_kept(d, e->d_name))
			break;
	free(d->cur);
	d->cur = NULL;
	if (!e)
		return NULL;
	if (!(d->cur = strdup(e->d_name)))
		sr_fatal(SR_EXIT_SYS, "out of memory");
	return d->cur;
}

/* The path of name in d, in the buffer: its length, or d's own with
 * *cut set when it would pass path_max. */
static size_t path_of(struct sr_tree *t, const struct sr_tree_dir *d, const char *name, int *cut)
{
	size_t n = strlen(name), len = d->plen + (d->plen ? 1 : 0) + n;
	*cut = d->pcut || len > t->path_max;
	if (*cut) {
		t->pbuf[d->plen] = '\0';
		return d->plen;
	}
	while (len + 1 >= t->pcap)
		t->pbuf = sr_grow(t->pbuf, t->pcap, &t->pcap, 1);
	if (d->plen)
		t->pbuf[d->plen] = '/';
	memcpy(t->pbuf + d->plen + (d->plen ? 1 : 0), name, n + 1);
	return len;
}

static struct sr_tree_dir *push(struct sr_tree *t, int fd)
{
	struct sr_dir_at at;
	if (sr_dir_at_set(&at, fd) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return NULL;
	}
	t->dirs = sr_grow(t->dirs, t->ndirs, &t->cap, sizeof *t->dirs);
	struct sr_tree_dir *d = &t->dirs[t->ndirs++];
	memset(d, 0, sizeof *d);
	d->at = at;
	/* the root and the deepest few stay open; the rest come back by ".." */
	if (t->ndirs > SR_TREE_OPEN && t->low < t->ndirs - 1 &&
	    1 + t->ndirs - t->low > SR_TREE_OPEN)
		dir_close(&t->dirs[t->low++]);
	return d;
}

int sr_tree_open(struct sr_tree *t, int fd)
{
	t->dirs = NULL;
	t->ndirs = t->cap = t->held = 0;
	t->low = 1;
	t->pbuf = NULL;
	t->pcap = 0;
	t->cut = 0;
	if (t->path_max) {
		t->pbuf = sr_grow(NULL, 0, &t->pcap, 1);
		t->pbuf[0] = '\0';
	}
	if (t->drain)
		sr_dir_give_rights(fd, 0700, 0);
	struct sr_tree_dir *d = push(t, fd);
	if (!d || (!t->drain && read_names(t, d) < 0)) {
		int e = errno;
		sr_tree_close(t);
		errno = e;
		return -1;
	}
	return 0;
}

/* Frame k, closed, opened again through ".." of frame k + 1. */
static int reopen(struct sr_tree *t, size_t k)
{
	if (sr_dir_at_reopen(&t->dirs[k].at, t->dirs[k + 1].at.fd) < 0)
		return -1;
	t->low = k;
	return 0;
}

int sr_tree_next(struct sr_tree *t)
{
	if (!t->ndirs)
		return 0;
	struct sr_tree_dir *d = &t->dirs[t->ndirs - 1];
	const char *name = next_name(t, d);
	if (name) {
		t->dirfd = d->at.fd;
		t->name = name;
		t->depth = t->ndirs - 1;
		t->path_cut = 0;
		if (t->path_max)
			path_of(t, d, name, &t->path_cut);
		t->path = t->pbuf;
		return SR_TREE_ENTRY;
	}
	if (t->ndirs == 1) {
		dir_free(d);
		t->ndirs = 0;
		return 0;
	}
	size_t k = t->ndirs - 2;
	if (k >= 1 && t->dirs[k].at.fd < 0 && reopen(t, k) < 0)
		return -1;
	size_t plen = d->plen;
	int pcut = d->pcut;
	dir_free(d);
	t->ndirs--;
	struct sr_tree_dir *p = &t->dirs[k];
	t->dirfd = p->at.fd;
	t->name = t->drain ? p->cur : p->names[p->i - 1];
	t->depth = k;
	if (t->path_max)
		t->pbuf[plen] = '\0';
	t->path = t->pbuf;
	t->path_cut = pcut;
	return SR_TREE_LEAVE;
}

int sr_tree_enter(struct sr_tree *t)
{
	struct sr_tree_dir *p = &t->dirs[t->ndirs - 1];
	int fd = t->drain ? open_owned(p->at.fd, t->name) : openat(p->at.fd, t->name, DIR_FLAGS);
	if (fd < 0)
		return -1;
	int cut = 0;
	size_t plen = t->path_max ? path_of(t, p, t->name, &cut) : 0;
	struct sr_tree_dir *d = push(t, fd);
	if (!d)
		return -1;
	d->plen = plen;
	d->pcut = cut;
	if (!t->drain && read_names(t, d) < 0) {
		int e = errno;
		dir_free(d);
		t->ndirs--;
		errno = e;
		return -1;
	}
	t->depth = t->ndirs - 1;
	return 0;
}

void sr_tree_keep(struct sr_tree *t)
{
	struct sr_tree_dir *d = &t->dirs[t->ndirs - 1];
	if (!t->drain || !d->cur)
		return;
	size_t cap = d->nkept;
	d->kept = sr_grow(d->kept, d->nkept, &cap, sizeof *d->kept);
	if (!(d->kept[d->nkept++] = strdup(d->cur)))
		sr_fatal(SR_EXIT_SYS, "out of memory");
}

void sr_tree_close(struct sr_tree *t)
{
	while (t->ndirs)
		dir_free(&t->dirs[--t->ndirs]);
	free(t->dirs);
	free(t->pbuf);
	t->dirs = NULL;
	t->pbuf = NULL;
}

/* ---- removal ------------------------------------------------------------ */

/* The tree below the directory fd (taken), emptied: 0, or -1 with the
 * first error in errno (what could be removed is). */
static int drain(int fd)
{
	struct sr_tree t = { .drain = 1 };
	if (sr_tree_open(&t, fd) < 0)
		return -1;
	int err = 0, k;
	while ((k = sr_tree_next(&t)) > 0) {
		int e = 0;
		if (k == SR_TREE_LEAVE) {
			if (unlinkat(t.dirfd, t.name, AT_REMOVEDIR) < 0 && errno != ENOENT)
				e = errno;
		} else if (unlinkat(t.dirfd, t.name, 0) < 0 && errno != ENOENT) {
			e = errno;
			if ((e == EISDIR || e == EPERM) && sr_tree_enter(&t) == 0)
				continue;
			if (e == EISDIR || e == EPERM)
				e = errno == ENOENT ? 0 : errno;
		}
		if (e) {
			sr_tree_keep(&t);
			err = err ? err : e;
		}
	}
	if (k < 0)
		err = errno;
	sr_tree_close(&t);
	errno = err;
	return err ? -1 : 0;
}

int sr_remove_tree(int parent, const char *name)
{
	if (unlinkat(parent, name, 0) == 0)
		return 0;
	if (errno == EACCES) {
		sr_dir_give_rights(parent, 0700, 0);   /* a directory the sandboxed code closed */
		if (unlinkat(parent, name, 0) == 0)
			return 0;
	}
	if (errno != EISDIR && errno != EPERM)
		return -1;
	int fd = open_owned(parent, name);
	if (fd < 0 || drain(fd) < 0)
		return -1;
	if (unlinkat(parent, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		return -1;
	return 0;
}
