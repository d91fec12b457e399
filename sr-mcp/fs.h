/* fs.h - the fs layer (prefix fs_): safe file access beneath a directory.
 * Every path is looked up by openat2 (RESOLVE_BENEATH,
 * RESOLVE_NO_SYMLINKS, RESOLVE_NO_MAGICLINKS); no link is followed.
 * Walks are lib/tree.c's.
 *
 *   fs.c   fs_openat2, fs_path_why, fs_rel_path, fs_split, fs_dir_open,
 *          fs_file_open, fs_read_fd, fs_write_at, fs_walk, fs_hidden, fs_count
 */
#ifndef SR_MCP_FS_H
#define SR_MCP_FS_H

#include <stddef.h>
#include <sys/types.h>

#define FS_WALK_MAX 200000     /* entries looked at in one walk */
#define FS_REL_MAX 4095        /* a path from a walk start, at most */

struct stat;
/* A walk of a directory (fs_walk): in name order, following no link,
 * without recursion and with a bounded number of descriptors. */
struct fs_walk {
	/* called for each entry; rel is the path from the walk's start */
	void (*fn)(struct fs_walk *w, int dirfd, const char *name, const char *rel,
		   const struct stat *st);
	int recursive;
	size_t rel_max;       /* a longer rel is cut (0: FS_REL_MAX bytes) */
	int skip_cut;         /* an entry whose rel is cut is not given */
	int no_rel;           /* rel is always "": no path is kept */
	size_t seen;
	int cut;              /* FS_WALK_MAX reached, a rel cut, the walk failed */
	int rel_cut;          /* this call's rel is cut: its deepest ancestor's */
	int stop;             /* the callback has enough */
	int prune;            /* set by fn: the directory just given is not entered */
	void *ctx;
};
/* openat2 with O_NOFOLLOW, O_CLOEXEC and RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS. */
int fs_openat2(int dirfd, const char *path, int flags, mode_t mode);
/* Why a lookup of path failed (errno e), for the model. */
void fs_path_why(char *buf, size_t len, const char *path, int e);
/* The model's path made relative to /workspace, or NULL with err. */
const char *fs_rel_path(const char *p, char *err, size_t len);
/* PATH's directory in dir, its last component returned (NULL: not a name). */
const char *fs_split(const char *path, char *dir, size_t len);
/* A directory beneath ws (made with create), or -1 with errno. */
int fs_dir_open(int ws, const char *dir, int create);
/* A file to open: path beneath the directory dir, named shown in
 * messages. */
struct fs_at {
	int dir;
	const char *path, *shown;
};
/* A regular file of one link, O_NONBLOCK (err set on failure). */
int fs_file_open(const struct fs_at *at, int flags, struct stat *st, char *err, size_t len);
char *fs_read_fd(int fd, size_t size, size_t *got);   /* at most size bytes */
int fs_write_at(int fd, const void *buf, size_t n, off_t off);
void fs_walk(struct fs_walk *w, int fd0);  /* takes fd0; no recursion, any depth */

/* The package and internal directories that listings leave out unless
 * asked (list_files' include_hidden, resources/list's): npm's packages,
 * sr-mcp's own (.sr: pip's packages, the installers' scratch), Python's
 * byte code, virtual environments and caches. */
#define FS_HIDDEN_NAMES "node_modules, .sr, __pycache__, .venv, .pytest_cache, .mypy_cache"
int fs_hidden(const char *name, const struct stat *st);  /* one of them, a directory */
/* The entries beneath directory name of dirfd, counted up to FS_WALK_MAX
 * (*cut set when not all could be). */
size_t fs_count(int dirfd, const char *name, int *cut);

#endif
