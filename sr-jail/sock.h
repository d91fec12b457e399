/* sock.h - a listening Unix socket made by the outer sr-jail, before the
 * namespaces, for PID 1 or its children to serve (sock.c). */
#ifndef SOCK_H
#define SOCK_H

/* Listen on a new Unix socket at path (mode 0600; bound through its
 * directory's descriptor, so a long path is no matter), replacing a socket
 * there that nothing serves; one another jail serves: waited for to go,
 * wait_ms at most. The socket (O_CLOEXEC, nonblocking), with its directory
 * in *dirfd and its name there in *name, for jail_unix_remove. Fatal (opt
 * names the option) on failure. */
int jail_unix_listen(const char *opt, const char *path, int wait_ms, int *dirfd,
		     const char **name);
void jail_unix_remove(int dirfd, const char *name);

#endif
