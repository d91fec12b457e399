/* sock.c - a listening Unix socket at a path the caller chose, made by
 * the outer sr-jail before the namespaces (--publish; mode 0600: the
 * user's alone), and removed by it when the jail has ended. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <fcntl.h>
#include <unistd.h>

#include "sock.h"
#include "sr.h"

int jail_unix_listen(const char *opt, const char *path, int *dirfd, const char **name)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	char *dir = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
	if (!dir)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	int dfd = open(*dir ? dir : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	if (dfd < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to open the directory of %s %s", opt, path);
	if (!*base || snprintf(sa.sun_path, sizeof sa.sun_path, "/proc/self/fd/%d/%s", dfd,
			       base) >= (int)sizeof sa.sun_path)
		sr_usage("%s: %s: the name in its directory is too long", opt, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	mode_t old = umask(0177);
	int r = fd < 0 ? -1 : bind(fd, (struct sockaddr *)&sa, sizeof sa);
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
