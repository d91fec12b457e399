/* exec.c - the program: found on the host, exec'd inside the jail. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jail.h"
#include "sr.h"

/* The program after sr-jail is found with the caller's PATH and opened
 * now, while the host is visible; its own arguments are the program's
 * business inside. */
void jail_resolve_prog(struct jail *j)
{
	const char *name = j->argv[0];
	char *path = sr_find_program(name);
	if (!path) {
		if (errno == EACCES)
			sr_fatal_sys(SR_EXIT_NOEXEC, "unable to run %s", name);
		sr_fatal_sys(SR_EXIT_NOTFOUND, "unable to find %s", name);
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno == EACCES) /* execute-only: can't be a script */
		fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		sr_fatal_sys(SR_EXIT_NOEXEC, "unable to open %s", path);
	char magic[2];
	j->prog_script = pread(fd, magic, 2, 0) == 2 && magic[0] == '#' && magic[1] == '!';
	j->prog_path = path;
	j->prog_fd = fd;
	jail_note(j, "program %s%s", path, j->prog_script ? " (script)" : "");
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* In PID 1: only 0, 1, 2 and --keep-fd survive; the program's fd and the
 * pipe from the outer sr-jail stay open (O_CLOEXEC) until used. Nothing
 * else the caller left open stays in the jail. */
void jail_close_fds(const struct jail *j)
{
	size_t n = 0;
	int *keep = malloc((j->nkeep + 2) * sizeof *keep);
	if (!keep)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	for (size_t i = 0; i < j->nkeep; i++)
		keep[n++] = j->keep[i];
	keep[n++] = j->prog_fd;
	keep[n++] = j->sync_fd;

	qsort(keep, n, sizeof *keep, cmp_int);
	unsigned lo = 3;
	for (size_t i = 0; i < n; i++) {
		if (keep[i] < (int)lo)
			continue;
		if ((unsigned)keep[i] > lo && close_range(lo, (unsigned)keep[i] - 1, 0) < 0)
			sr_fatal_sys(SR_EXIT_SYS, "unable to close inherited fds");
		lo = (unsigned)keep[i] + 1;
	}
	if (close_range(lo, ~0U, 0) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to close inherited fds");
	for (size_t i = 0; i < j->nkeep; i++)
		if (fcntl(j->keep[i], F_SETFD, 0) < 0)
			sr_fatal_sys(SR_EXIT_SYS, "unable to keep fd %d", j->keep[i]);
	free(keep);
}

static char *fd_path(int fd)
{
	char *s;
	if (asprintf(&s, "/proc/self/fd/%d", fd) < 0)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	return s;
}

int jail_prog_tree(const struct jail *j)
{
	if (!j->prog_script)
		return -1;
	return jail_clone_tree(j->prog_fd, "", AT_EMPTY_PATH, JAIL_RO, j->prog_path);
}

static int visible(const struct jail *j)
{
	struct stat in, out;
	return fstat(j->prog_fd, &out) == 0 && stat(j->prog_path, &in) == 0 &&
	       in.st_dev == out.st_dev && in.st_ino == out.st_ino;
}

static char *script_path(const struct jail *j)
{
	char *s;
	if (asprintf(&s, JAIL_SCRIPT_DIR "/%s", strrchr(j->prog_path, '/') + 1) < 0)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	return s;
}

/* Building the root: a #! script not visible at its own path inside is
 * bound read-only under JAIL_SCRIPT_DIR, since its interpreter needs a
 * path that stays valid. */
void jail_place_script(const struct jail *j)
{
	if (j->prog_tree < 0)
		return;
	if (!visible(j)) {
		char *path = script_path(j);
		jail_mkparents(path);
		if (mknod(path, S_IFREG | 0644, 0) < 0 ||
		    move_mount(j->prog_tree, "", AT_FDCWD, path, MOVE_MOUNT_F_EMPTY_PATH) < 0)
			sr_fatal_sys(SR_EXIT_SYS, "unable to mount %s on %s", j->prog_path, path);
		free(path);
	}
	close(j->prog_tree);
}

/* The root built: exec by path when the new root shows the same
 * file at the same path; else a script from where jail_place_script put
 * it, an ELF program through its fd. */
static const char *prog_inside(const struct jail *j)
{
	if (visible(j))
		return j->prog_path;
	return j->prog_script ? script_path(j) : fd_path(j->prog_fd);
}

/* Start the program with the caller's signal mask. vfork is safe here:
 * PID 1 has no signal handlers, and the child only execs or exits. */
pid_t jail_spawn(const struct jail *j)
{
	const char *path = prog_inside(j);
	pid_t pid = vfork();
	if (pid < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to start %s", j->prog_path);
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, &j->oldmask, NULL);
		execve(path, j->argv, j->envp);
		sr_fatal_sys(errno == ENOENT || errno == ENOTDIR ? SR_EXIT_NOTFOUND :
			     SR_EXIT_NOEXEC, "unable to run %s", j->prog_path);
	}
	return pid;
}
