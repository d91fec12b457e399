/* seen.h - sr-jail: what the last applies of a live --quota carried to the
 * host directory, by path (seen.c). */
#ifndef SEEN_H
#define SEEN_H

#include <sys/stat.h>
#include <time.h>

/* One entry of the upper layer as it was when last applied: its inode and
 * change time (which only the kernel sets: a write, a chmod, a rename, a
 * link all move it), whether it was an opaque directory, and the round of
 * the apply that last found it in the upper layer. ino 0: not applied
 * (past a cap, or failed), so applied again next time. */
struct seen_ent {
	char *path;
	ino_t ino;
	struct timespec ctime;
	int opaque;
	unsigned round;
	struct seen_ent *next;
};
struct seen {
	struct seen_ent **v;
	size_t n, cap;
	unsigned round;
};

/* The entry of path, made (ino 0) if there is none; NULL out of memory. */
struct seen_ent *seen_put(struct seen *s, const char *path);
/* Is st what was last applied at that entry? */
int seen_same(const struct seen_ent *e, const struct stat *st);
void seen_set(struct seen_ent *e, const struct stat *st);
/* Every entry below dir, applied anew next time (the host's copy of dir
 * was emptied). */
void seen_forget_under(struct seen *s, const char *dir);
/* Each entry not found in this round (a name the program removed where no
 * whiteout says so): gone(path, arg), then forgotten. */
void seen_sweep(struct seen *s, void (*gone)(const char *path, void *arg), void *arg);

#endif
