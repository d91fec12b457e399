/* musl-compat.h - forced into every file of the musl builds (see the
 * Makefile): the system calls glibc 2.36 wraps and musl 1.2 does not yet,
 * with the same names and arguments, so the sources need no #ifdef. */
#ifndef SR_MUSL_COMPAT_H
#define SR_MUSL_COMPAT_H
#ifndef __GLIBC__

#include <fcntl.h>
#include <linux/mount.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline int open_tree(int dfd, const char *path, unsigned flags)
{
	return (int)syscall(SYS_open_tree, dfd, path, flags);
}

static inline int move_mount(int from_dfd, const char *from, int to_dfd,
			     const char *to, unsigned flags)
{
	return (int)syscall(SYS_move_mount, from_dfd, from, to_dfd, to, flags);
}

static inline int mount_setattr(int dfd, const char *path, unsigned flags,
				struct mount_attr *attr, size_t size)
{
	return (int)syscall(SYS_mount_setattr, dfd, path, flags, attr, size);
}

static inline int close_range(unsigned first, unsigned last, int flags)
{
	return (int)syscall(SYS_close_range, first, last, flags);
}

#endif
#endif
