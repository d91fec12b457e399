/* seen.c - sr-jail: a set of the paths a live --quota applied (seen.h):
 * chained buckets, doubled past a load of one. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "seen.h"

static size_t hash(const char *p)
{
	uint64_t h = 1469598103934665603ULL;     /* FNV-1a */
	while (*p)
		h = (h ^ (unsigned char)*p++) * 1099511628211ULL;
	return (size_t)h;
}

static int grow(struct seen *s)
{
	size_t cap = s->cap ? s->cap * 2 : 256;
	struct seen_ent **v = calloc(cap, sizeof *v);
	if (!v)
		return -1;
	for (size_t i = 0; i < s->cap; i++)
		for (struct seen_ent *e = s->v[i], *next; e; e = next) {
			next = e->next;
			size_t b = hash(e->path) & (cap - 1);
			e->next = v[b];
			v[b] = e;
		}
	free(s->v);
	s->v = v;
	s->cap = cap;
	return 0;
}

struct seen_ent *seen_put(struct seen *s, const char *path)
{
	if (s->n >= s->cap && grow(s) < 0)
		return NULL;
	size_t b = hash(path) & (s->cap - 1);
	for (struct seen_ent *e = s->v[b]; e; e = e->next)
		if (strcmp(e->path, path) == 0)
			return e;
	struct seen_ent *e = calloc(1, sizeof *e);
	if (!e || !(e->path = strdup(path))) {
		free(e);
		return NULL;
	}
	e->next = s->v[b];
	s->v[b] = e;
	s->n++;
	return e;
}

int seen_same(const struct seen_ent *e, const struct stat *st)
{
	return e->ino && e->ino == st->st_ino && e->ctime.tv_sec == st->st_ctim.tv_sec &&
	       e->ctime.tv_nsec == st->st_ctim.tv_nsec;
}

void seen_set(struct seen_ent *e, const struct stat *st)
{
	e->ino = st->st_ino;
	e->ctime = st->st_ctim;
}

void seen_sweep(struct seen *s, void (*gone)(const char *path, void *arg), void *arg)
{
	for (size_t i = 0; i < s->cap; i++)
		for (struct seen_ent **at = &s->v[i], *e; (e = *at);) {
			if (e->round == s->round) {
				at = &e->next;
				continue;
			}
			if (e->ino)
				gone(e->path, arg);
			*at = e->next;
			free(e->path);
			free(e);
			s->n--;
		}
}

void seen_forget_under(struct seen *s, const char *dir)
{
	size_t n = strlen(dir);
	for (size_t i = 0; i < s->cap; i++)
		for (struct seen_ent *e = s->v[i]; e; e = e->next)
			if (strncmp(e->path, dir, n) == 0 && e->path[n] == '/')
				e->ino = 0;
}
