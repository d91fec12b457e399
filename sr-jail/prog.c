/* prog.c - the program after sr-jail: found on the host with the
 * caller's PATH, bound read-only into the new root when the root does not
 * show it, and where it is inside. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jail.h"
#include "plan.h"
#include "prog.h"
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
		sr_fatal_run(name);
	int fd = open(path, O_PATH | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0)
		sr_fatal_sys(SR_EXIT_NOEXEC, "unable to open %s", path);
	if (!S_ISREG(st.st_mode)) {
		errno = EACCES;   /* what execve says of anything else */
		sr_fatal_run(path);
	}
	j->prog_path = path;
	j->prog_fd = fd;
	jail_note(j, "program %s", path);
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

/* Building the root, before the old one is detached: a program the new
 * root does not show is bound there read-only, under JAIL_PROG_DIR, and
 * run from that bind, never from the host's mount through its fd: the
 * payload could reopen /proc/self/exe for writing and replace the
 * caller's binary (CVE-2019-5736's pattern); through a read-only mount
 * that reopening fails with EROFS. A #! script needs such a path anyway,
 * for its interpreter to open. The fd, opened on the host, still names
 * the host's mount, which is in this mount namespace until the detach. */
void jail_place_prog(const struct jail *j)
{
	if (visible(j))
		return;
	int tree = jail_clone_tree(j->prog_fd, "", AT_EMPTY_PATH, JAIL_RO, j->prog_path);
	char *path = placed_path(j);
	jail_mkparents(path);
	if (mknod(path, S_IFREG | 0644, 0) < 0 ||
	    move_mount(tree, "", AT_FDCWD, path, MOVE_MOUNT_F_EMPTY_PATH) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to mount %s on %s", j->prog_path, path);
	free(path);
	close(tree);
}

/* The root built: exec by path when the new root shows the same file at
 * the same path, else from where jail_place_prog put it. */
const char *jail_prog_inside(const struct jail *j)
{
	return visible(j) ? j->prog_path : placed_path(j);
}
