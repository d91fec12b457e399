/* sock.c - a listening Unix socket at a path the caller chose, made by
 * the outer sr-jail before the namespaces (--publish, --control; mode
 * 0600: the user's alone), and removed by it when the jail has ended. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "sock.h"
#include "sr.h"

/* A socket at sa that nothing serves (left by a jail killed before it
 * could remove it): a connection refused. */
static int stale(int dfd, const char *name, const struct sockaddr_un *sa)
{
	struct stat st;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISSOCK(st.st_mode))
		return 0;       /* not a socket: not ours to replace */
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), r;
	if (s < 0)
		return 0;
	r = connect(s, (const struct sockaddr *)sa, sizeof *sa) < 0 && errno == ECONNREFUSED;
	close(s);
	return r;
}

/* bind at sa (name base in dfd), replacing a socket nothing serves, under
 * a lock of the directory against another sr-jail at the same path. */
static int bind_once(int fd, int dfd, const char *base, const struct sockaddr_un *sa)
{
	(void)flock(dfd, LOCK_EX);
	int r = bind(fd, (const struct sockaddr *)sa, sizeof *sa);
	if (r < 0 && errno == EADDRINUSE && stale(dfd, base, sa)) {
		(void)unlinkat(dfd, base, 0);
		r = bind(fd, (const struct sockaddr *)sa, sizeof *sa);
	}
	int e = errno;
	(void)flock(dfd, LOCK_UN);
	errno = e;
	return r;
}

int jail_unix_listen(const char *opt, const char *path, int wait_ms, int *dirfd,
		     const char **name)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	char *dir = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
	if (!dir)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	/* bound through the directory's fd (sun_path is short); read, for flock */
	int dfd = open(*dir ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	if (dfd < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to open the directory of %s %s", opt, path);
	if (!*base || snprintf(sa.sun_path, sizeof sa.sun_path, "/proc/self/fd/%d/%s", dfd,
			       base) >= (int)sizeof sa.sun_path)
		sr_usage("%s: %s: the name in its directory is too long", opt, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	mode_t old = umask(0177);
	int r = fd < 0 ? -1 : bind_once(fd, dfd, base, &sa);
	for (int ms = 0; r < 0 && errno == EADDRINUSE && ms < wait_ms; ms += 100) {
		nanosleep(&(struct timespec){ 0, 100000000 }, NULL);
		r = bind_once(fd, dfd, base, &sa);
	}
	umask(old);
	if (r < 0 || listen(fd, 64) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to listen on %s %s", opt, path);
	free(dir);
	*dirfd = dfd;
	*name = base;
	return fd;
}

void jail_unix_remove(int dirfd, const char *name)
{
	if (dirfd >= 0)
		(void)unlinkat(dirfd, name, 0);
}
