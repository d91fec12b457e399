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
 * now (O_PATH: it is only bound, never read or run through the fd), while
 * the host is visible; its own arguments are the program's business
 * inside. */
void jail_resolve_prog(struct jail *j)
{
	const char *name = j->argv[0];
	char *path = sr_find_program(name);
	if (!path)
		sr_fatal_sys(sr_exec_exit(errno), "unable to run %s", name);
	int fd = open(path, O_PATH | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0)
		sr_fatal_sys(SR_EXIT_NOEXEC, "unable to open %s", path);
	if (!S_ISREG(st.st_mode)) {
		errno = EACCES;   /* what execve says of anything else */
		sr_fatal_sys(SR_EXIT_NOEXEC, "unable to run %s", path);
	}
	j->prog_path = path;
	j->prog_fd = fd;
	jail_note(j, "program %s", path);
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

/* Before the pivot: a detached read-only bind of the program. A program
 * the new root does not show is exec'd from this bind, never from the
 * host's mount through its fd: the payload could reopen /proc/self/exe
 * for writing and replace the caller's binary (CVE-2019-5736's pattern).
 * Through a read-only mount that reopening fails with EROFS. A #! script
 * needs such a path anyway, for its interpreter to open. */
int jail_prog_tree(const struct jail *j)
{
	return jail_clone_tree(j->prog_fd, "", AT_EMPTY_PATH, JAIL_RO, j->prog_path);
}

static int visible(const struct jail *j)
{
	struct stat in, out;
	return fstat(j->prog_fd, &out) == 0 && stat(j->prog_path, &in) == 0 &&
	       in.st_dev == out.st_dev && in.st_ino == out.st_ino;
}

static char *placed_path(const struct jail *j)
{
	char *s;
	if (asprintf(&s, JAIL_PROG_DIR "/%s", strrchr(j->prog_path, '/') + 1) < 0)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	return s;
}

/* Building the root: a program not visible at its own path inside is
 * bound read-only under JAIL_PROG_DIR. */
void jail_place_prog(const struct jail *j)
{
	if (!visible(j)) {
		char *path = placed_path(j);
		jail_mkparents(path);
		if (mknod(path, S_IFREG | 0644, 0) < 0 ||
		    move_mount(j->prog_tree, "", AT_FDCWD, path, MOVE_MOUNT_F_EMPTY_PATH) < 0)
			sr_fatal_sys(SR_EXIT_SYS, "unable to mount %s on %s", j->prog_path, path);
		free(path);
	}
	close(j->prog_tree);
}

/* The root built: exec by path when the new root shows the same file at
 * the same path, else from where jail_place_prog put it. */
static const char *prog_inside(const struct jail *j)
{
	return visible(j) ? j->prog_path : placed_path(j);
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
		sr_fatal_sys(sr_exec_exit(errno), "unable to run %s", j->prog_path);
	}
	return pid;
}
