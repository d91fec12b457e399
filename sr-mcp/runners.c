/* runners.c - the languages: one executable file per language in the
 * runners directory. Its name, made safe ([a-z0-9_-], at most 64), is a
 * value of run_code's language. Hidden files and what is not an
 * executable regular file are skipped; a directory with none ends sr-mcp
 * at start.
 *
 * And the directories whose code runs, trusted as the state directory
 * is (lib/trust.c): the runners directory (the runners run on the host,
 * with the user's rights), the TypeScript compiler and Node.js's types
 * (@types/node) the typescript runner binds, and the environments' root
 * file systems (tool_env.c). At start each directory's path and its whole tree (or the parts named) must be
 * out of every other user's reach, or sr-mcp ends naming the first entry
 * that is not and the fix; before each run the path is checked again and
 * must still lead to the directory checked at start (device and inode),
 * so that one renamed away and replaced after start is refused. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mcp.h"
#include "runner.h"
#include "spawn.h"
#include "sr.h"

struct runner *runner_all;
size_t runner_count;

#define TRUSTED_MAX 24

static struct trusted {
	char *path;             /* resolved */
	dev_t dev;
	ino_t ino;
} trusted[TRUSTED_MAX];
static size_t ntrusted;
static char *ts_dir;            /* the TypeScript compiler's, when checked */
static char *types_dir;         /* Node.js's types (@types/node), when checked */

/* The entries of a root file system its runs use (sr-jail --rootfs binds
 * these, and files of etc/); the rest (var/, tmp/, home/) is not bound. */
static const char *const root_parts[] = {
	"usr", "etc", "bin", "sbin", "lib", "lib64", "lib32", "libx32", NULL
};

/* rel, a path in the root rfd, resolved as sr-jail --rootfs resolves the
 * way to what it binds (RESOLVE_IN_ROOT): an O_PATH descriptor, or -1. */
static int in_root(int rfd, const char *rel)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC,
				.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
	return (int)syscall(SYS_openat2, rfd, rel, &how, sizeof how);
}

/* Where the descriptor fd is on the host, for messages. */
static void fd_path(int fd, char *buf, size_t len)
{
	char proc[64];
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(proc, buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
}

/* Is the directory fd inside one of the root's parts walked (top, their
 * device and inode)? 1 yes; 0 no, and each directory from it up to the
 * root rfd (itself judged already) is out of others' reach; -1 with why. */
static int within(int rfd, int fd, const struct stat *top, size_t ntop, char *why, size_t len)
{
	char at[PATH_MAX];
	struct stat st, root;
	int cur = fstat(rfd, &root) == 0 ? dup(fd) : -1, r = -1;
	while (cur >= 0 && fstat(cur, &st) == 0) {
		r = 0;
		if (st.st_dev == root.st_dev && st.st_ino == root.st_ino)
			break;
		for (size_t i = 0; i < ntop && r == 0; i++)
			r = st.st_dev == top[i].st_dev && st.st_ino == top[i].st_ino;
		fd_path(cur, at, sizeof at);
		if (r || (sr_stat_trusted(&st, 0, at, why, len) && (r = -1) < 0))
			break;
		int up = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		close(cur);
		cur = up;
		r = -1;
	}
	if (r == -1 && !why[0])
		snprintf(why, len, "unable to look above it: %s", strerror(errno));
	if (cur >= 0)
		close(cur);
	return r;
}

/* A symbolic link rel of the root rfd that leads, in the root, to a
 * directory (sr-jail follows such links on its way to the files of etc/
 * it binds): that directory must be in a part walked, or out of others'
 * reach with everything in it and above it. 1, or -1 with why. */
/* The root's parts that are directories (root_parts). */
struct root_tops {
	struct stat v[8];
	size_t n;
};

static int link_ok(int rfd, const char *dir, const char *rel, const struct root_tops *top,
		   char *why, size_t len)
{
	char at[PATH_MAX], r2[PATH_MAX + 400];
	struct stat st;
	int fd = in_root(rfd, rel), r = 1;
	if (fd < 0)
		return 1;       /* leads nowhere: nothing is bound through it */
	why[0] = '\0';
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) &&
	    (r = within(rfd, fd, top->v, top->n, r2, sizeof r2)) == 0) {
		fd_path(fd, at, sizeof at);
		r = sr_tree_trusted(fd, ".", 0, at, r2, sizeof r2) < 0 ? -1 : 1;
	}
	if (r < 0)
		snprintf(why, len, "%s/%s is a link that sr-jail follows, to a part not judged "
			 "otherwise: %s", dir, rel, r2);
	close(fd);
	return r;
}

/* The links among the root's parts and in its etc/, each by link_ok. */
static int root_links(int rfd, const char *dir, char *why, size_t len)
{
	struct root_tops top = { .n = 0 };
	struct stat st;
	int r = 1, k;
	for (size_t i = 0; root_parts[i]; i++)
		if (fstatat(rfd, root_parts[i], &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
			top.v[top.n++] = st;
	for (size_t i = 0; r > 0 && root_parts[i]; i++)
		if (fstatat(rfd, root_parts[i], &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
			r = link_ok(rfd, dir, root_parts[i], &top, why, len);
	struct sr_tree t = { .path_max = PATH_MAX };
	int efd = openat(rfd, "etc", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (r < 0 || efd < 0 || sr_tree_open(&t, efd) < 0)
		return r;
	while (r > 0 && (k = sr_tree_next(&t)) > 0) {
		char rel[PATH_MAX + 8];
		if (k == SR_TREE_LEAVE || fstatat(t.dirfd, t.name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		snprintf(rel, sizeof rel, "etc/%s", t.path);
		if (S_ISLNK(st.st_mode) && !t.path_cut)
			r = link_ok(rfd, dir, rel, &top, why, len);
		else if (S_ISDIR(st.st_mode))
			(void)sr_tree_enter(&t);
	}
	sr_tree_close(&t);
	return r;
}

/* At start: dir (resolved), judged with every entry below it (flags:
 * SR_TRUST_NO_LINKS), or with the root file system's parts (rootfs);
 * recorded for runner_trusted. Fatal, naming what (an option and its
 * value) and the fix. */
void runner_trust(const char *what, const char *dir, int rootfs, int flags)
{
	char why[2 * PATH_MAX + 400], shown[PATH_MAX + 16];
	int fd = -1, r = sr_dir_trusted(dir, &fd, why, sizeof why);
	struct stat st;
	if (r < 0)
		sr_fatal(SR_EXIT_SYS, "refusing %s: %s%s", what, why, errno ? "" :
			 ": another user could change the code that runs from it; make each "
			 "directory on its path owned by you or root and writable by its owner "
			 "only (chmod go-w), or use another directory");
	for (size_t i = 0; r > 0 && (rootfs ? root_parts[i] != NULL : i < 1); i++) {
		snprintf(shown, sizeof shown, "%s%s%s", dir, rootfs ? "/" : "",
			 rootfs ? root_parts[i] : "");
		r = sr_tree_trusted(fd, rootfs ? root_parts[i] : ".", flags, shown, why, sizeof why);
		r = r < 0 ? r : 1;
	}
	if (r > 0 && rootfs)
		r = root_links(fd, dir, why, sizeof why);
	if (r < 0)
		sr_fatal(SR_EXIT_SYS, "refusing %s: %s", what, why);
	if (fstat(fd, &st) < 0 || ntrusted >= TRUSTED_MAX)
		sr_fatal(SR_EXIT_SYS, "unable to keep %s: %s", what,
			 ntrusted >= TRUSTED_MAX ? "too many directories" : strerror(errno));
	trusted[ntrusted++] = (struct trusted){ xstrdup(dir), st.st_dev, st.st_ino };
	close(fd);
}

static void sanitise(char *dst, const char *name)
{
	size_t i = 0;
	for (; name[i] && i < 64; i++) {
		char c = name[i];
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		dst[i] = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ? c : '_';
	}
	dst[i] = '\0';
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct runner *)a)->name, ((const struct runner *)b)->name);
}

/* What a start without runners tells the user to do. */
#define RUNNERS_FIX "name the runners directory with --runners or SR_MCP_RUNNERS " \
	"(make install puts one runner per language in PREFIX/share/sr/sr-mcp/runners)"

/* The directory runner_trust checked that holds path (is it, with
 * whole): its index, or -1. */
static int trusted_of(const char *path, int whole)
{
	for (size_t i = 0; i < ntrusted; i++) {
		size_t n = strlen(trusted[i].path);
		if (!strncmp(trusted[i].path, path, n) && (path[n] == '\0' || (!whole && path[n] == '/')))
			return (int)i;
	}
	return -1;
}

/* Directory k still the one runner_trust checked, its path still out of
 * others' reach? 0, or -1 with err; fd: its O_PATH descriptor. */
static int still(int k, int *fd, char *err, size_t len)
{
	char why[PATH_MAX + 400];
	const char *dir = trusted[k].path;
	struct stat st;
	if (sr_dir_trusted(dir, fd, why, sizeof why) < 0) {
		snprintf(err, len, "refusing to run code from %s: %s", dir, why);
		return -1;
	}
	if (fstat(*fd, &st) == 0 && st.st_dev == trusted[k].dev && st.st_ino == trusted[k].ino)
		return 0;
	close(*fd);
	snprintf(err, len, "refusing to run code from %s: it is not the directory sr-mcp checked "
		 "at start (it was moved away and another put in its place); tell the "
		 "administrator: restarting sr-mcp checks the new one", dir);
	return -1;
}

/* Before each run (job_submit): the runner's directory and file (sr-mcp
 * itself, a session call's program, is not in one), the TypeScript
 * compiler and types for that runner, and the root file system extra names
 * (SR_ROOTFS=), still those checked at start and out of others' reach.
 * 0, or -1 with err. */
int runner_trusted(const char *runner, const char *const *extra, char *err, size_t len)
{
	char why[PATH_MAX + 400];
	int fd, k = trusted_of(runner, 0), r;
	if (k >= 0) {
		if (still(k, &fd, err, len) < 0)
			return -1;
		r = sr_tree_trusted(fd, runner + strlen(trusted[k].path) + 1, SR_TRUST_NO_LINKS,
				    runner, why, sizeof why);
		close(fd);
		if (r <= 0) {
			snprintf(err, len, "refusing to run %s: %s", runner, r ? why : "it is gone");
			return -1;
		}
	}
	const char *base = strrchr(runner, '/');
	for (int t = 0; base && !strcmp(base, "/typescript") && t < 2; t++) {
		const char *d = t ? types_dir : ts_dir;
		if (d && still(trusted_of(d, 1), &fd, err, len) < 0)
			return -1;
		if (d)
			close(fd);
	}
	for (size_t i = 0; extra && extra[i]; i++) {
		if (strncmp(extra[i], "SR_ROOTFS=", 10))
			continue;
		if ((k = trusted_of(extra[i] + 10, 1)) < 0) {
			snprintf(err, len, "refusing to run code from %s: sr-mcp did not check it at "
				 "start", extra[i] + 10);
			return -1;
		}
		if (still(k, &fd, err, len) < 0)
			return -1;
		close(fd);
	}
	return 0;
}

/* The first of dirs (n) that holds the regular file file, resolved and
 * trusted as "the WHAT PATH (the typescript runner binds it)": its path,
 * or NULL. */
static char *trust_first(const char *const *dirs, size_t n, const char *file, const char *what)
{
	char f[PATH_MAX], shown[PATH_MAX + 160], *real;
	struct stat st;
	for (size_t i = 0; i < n; i++) {
		snprintf(f, sizeof f, "%s/%s", dirs[i], file);
		if (stat(f, &st) < 0 || !S_ISREG(st.st_mode) || !(real = realpath(dirs[i], NULL)))
			continue;
		snprintf(shown, sizeof shown, "the %s %s (the typescript runner binds it)", what, real);
		runner_trust(shown, real, 0, 0);
		return real;
	}
	return NULL;
}

/* What the typescript runner binds: the TypeScript compiler and Node.js's
 * types (@types/node), the first of each list (runners/typescript) that
 * the host has. */
static void trust_typescript(void)
{
	static const char *const dirs[] = { "/usr/share/nodejs/typescript",
		"/usr/lib/node_modules/typescript", "/usr/local/lib/node_modules/typescript" };
	static const char *const types[] = { "/usr/lib/node_modules/@types/node",
		"/usr/local/lib/node_modules/@types/node" };
	if (!runner_find("typescript"))
		return;
	ts_dir = trust_first(dirs, sizeof dirs / sizeof *dirs, "lib/typescript.js",
			     "TypeScript compiler");
	types_dir = trust_first(types, sizeof types / sizeof *types, "index.d.ts",
				"types of Node.js");
}

/* At start: a server with no language could run nothing, so sr-mcp ends
 * (exit 111, one line naming the directory and the fix) before it reads a
 * request. */
void runner_load(void)
{
	char *real, what[PATH_MAX + 32];
	DIR *d = opendir(cfg.runners_dir);
	struct dirent *de;
	if (d && faccessat(dirfd(d), ".", X_OK, AT_EACCESS) < 0) {   /* listed, not searched */
		int e = errno;
		closedir(d);
		d = NULL;
		errno = e;
	}
	if (!d)
		sr_fatal(SR_EXIT_SYS, "unable to read the runners directory %s: %s; " RUNNERS_FIX,
			 cfg.runners_dir, strerror(errno));
	if (!(real = realpath(cfg.runners_dir, NULL)))
		sr_fatal_sys(SR_EXIT_SYS, "unable to resolve the runners directory %s",
			     cfg.runners_dir);
	free(cfg.runners_dir);
	cfg.runners_dir = real;
	snprintf(what, sizeof what, "the runners directory %s", real);
	runner_trust(what, real, 0, SR_TRUST_NO_LINKS);
	while ((de = readdir(d)) != NULL) {
		struct stat st;
		if (de->d_name[0] == '.' || fstatat(dirfd(d), de->d_name, &st, 0) < 0 ||
		    !S_ISREG(st.st_mode) || faccessat(dirfd(d), de->d_name, X_OK, 0) < 0)
			continue;
		struct runner r = {0};
		sanitise(r.name, de->d_name);
		if (runner_find(r.name))
			continue;  /* two names made the same: the first wins */
		if (asprintf(&r.path, "%s/%s", cfg.runners_dir, de->d_name) < 0)
			sr_fatal(SR_EXIT_SYS, "out of memory");
		struct runner *nr = realloc(runner_all, (runner_count + 1) * sizeof *nr);
		if (!nr)
			sr_fatal(SR_EXIT_SYS, "out of memory");
		runner_all = nr;
		runner_all[runner_count++] = r;
	}
	closedir(d);
	if (!runner_count)
		sr_fatal(SR_EXIT_SYS, "no runner in the runners directory %s: it holds no "
			 "executable file (hidden files are skipped); " RUNNERS_FIX, cfg.runners_dir);
	qsort(runner_all, runner_count, sizeof *runner_all, by_name);
	trust_typescript();
}

const struct runner *runner_find(const char *name)
{
	for (size_t i = 0; i < runner_count; i++)
		if (strcmp(runner_all[i].name, name) == 0)
			return &runner_all[i];
	return NULL;
}

/* `RUNNER --version`: the language's version, for sandbox_info. Asked
 * once, on first use. */
void runner_versions(void)
{
	static pthread_mutex_t once = PTHREAD_MUTEX_INITIALIZER;
	static int done;
	pthread_mutex_lock(&once);
	for (size_t i = 0; !done && i < runner_count; i++) {
		char *out, *argv[] = { runner_all[i].path, "--version", NULL };
		if (spawn_capture(argv, &out, 4096, 1) == 0 && out) {
			out[strcspn(out, "\n")] = '\0';
			runner_all[i].version = out;
		} else {
			free(out);
		}
	}
	done = 1;
	pthread_mutex_unlock(&once);
}
