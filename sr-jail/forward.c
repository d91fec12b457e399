/* forward.c - sr-jail --net-proxy SOCKET: the jail keeps its own network
 * namespace, with loopback alone, and SOCKET (a proxy's Unix socket on
 * the host, sr-net's) is bound into it; this process, a child of PID 1
 * started before the program, listens on the jail's loopback at port
 * JAIL_NET_PORT and carries each connection, in a child of its own, to
 * the socket. It decides nothing: the proxy does, for everything that
 * reaches it, and nothing else leaves the jail (no route, no DNS). It
 * holds no capability and is not dumpable (PID 1's doing); the program
 * may kill it, which only ends its own way out. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "forward.h"
#include "jail.h"
#include "sr.h"

static int listen_on(int family)
{
	struct sockaddr_storage ss = { 0 };
	socklen_t len;
	if (family == AF_INET) {
		struct sockaddr_in *s = (struct sockaddr_in *)&ss;
		s->sin_family = AF_INET;
		s->sin_port = htons(JAIL_NET_PORT);
		s->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		len = sizeof *s;
	} else {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)&ss;
		s->sin6_family = AF_INET6;
		s->sin6_port = htons(JAIL_NET_PORT);
		s->sin6_addr = in6addr_loopback;
		len = sizeof *s;
	}
	int one = 1, fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (family == AF_INET6)
		(void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
	if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 128) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void one(int fd)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	strcpy(sa.sun_path, JAIL_NET_SOCKET);
	int u = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (u >= 0 && connect(u, (struct sockaddr *)&sa, sizeof sa) == 0)
		(void)sr_relay(fd, u, NULL, NULL);
	_exit(0);
}

static void serve(int l4, int l6)
{
	signal(SIGCHLD, SIG_IGN);       /* the children reap themselves */
	for (;;) {
		struct pollfd p[2] = { { l4, POLLIN, 0 }, { l6, l6 >= 0 ? POLLIN : 0, 0 } };
		if (poll(p, 2, -1) < 0)
			continue;
		for (int i = 0; i < 2; i++) {
			if (!(p[i].revents & POLLIN))
				continue;
			int fd = accept4(i ? l6 : l4, NULL, NULL, SOCK_CLOEXEC);
			if (fd < 0)
				continue;
			pid_t pid = fork();
			if (pid == 0) {
				close(l4);
				if (l6 >= 0)
					close(l6);
				one(fd);
			}
			close(fd);
		}
	}
}

void jail_forward_start(const struct jail *j)
{
	if (!j->net_proxy)
		return;
	int l4 = listen_on(AF_INET), l6 = listen_on(AF_INET6);
	if (l4 < 0)
		sr_fatal_sys(SR_EXIT_SYS, "--net-proxy: unable to listen on 127.0.0.1:%d",
			     JAIL_NET_PORT);
	pid_t pid = fork();
	if (pid < 0)
		sr_fatal_sys(SR_EXIT_SYS, "--net-proxy: unable to fork");
	if (pid == 0) {
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		serve(l4, l6);
	}
	close(l4);
	if (l6 >= 0)
		close(l6);
	jail_note(j, "--net-proxy: 127.0.0.1:%d leads to %s", JAIL_NET_PORT, j->net_proxy);
}
