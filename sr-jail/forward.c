/* forward.c - the jail's doors, carried by one process, a child of PID 1
 * started before the program, or, for the way out alone, when its first
 * connection comes (no capability, not dumpable: PID 1's doing; the
 * program may kill it, which only shuts its own doors).
 *
 * --publish PORT:PATH, the way in: the outer sr-jail made a Unix socket
 * at PATH on the host (the user's alone); each connection to it is
 * carried to 127.0.0.1:PORT in the jail's network namespace, where the
 * program's server listens (refused, and closed, while none does).
 *
 * --net-proxy SOCKET, the way out: the jail keeps its own network
 * namespace, with loopback alone, and SOCKET (a proxy's Unix socket on
 * the host, sr-net's) is bound into it; PID 1 listens on the jail's
 * loopback before the program starts, and this process, started when
 * the first connection comes (or with --publish's), accepts at port
 * JAIL_NET_PORT and carries each connection, in a child of its own, to
 * the socket. It decides nothing: the proxy does, for everything that
 * reaches it, and nothing else leaves the jail (no route, no DNS). It
 * holds no capability and is not dumpable (PID 1's doing); the program
 * may kill it, which only ends its own way out. */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
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

/* A connection out: to the proxy's socket. */
static void out(int fd)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	strcpy(sa.sun_path, JAIL_NET_SOCKET);
	int u = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (u >= 0 && connect(u, (struct sockaddr *)&sa, sizeof sa) == 0)
		(void)sr_relay(fd, u, NULL, NULL);
	_exit(0);
}

/* A connection in: to the program's port on the jail's loopback. */
static void in(int fd, unsigned port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s >= 0 && connect(s, (struct sockaddr *)&sa, sizeof sa) == 0) {
		(void)setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof(int));
		(void)sr_relay(fd, s, NULL, NULL);
	}
	_exit(0);
}

/* Accept on each door (lfd[i] -1: not open) and carry each connection
 * in a child of its own: lfd[0] and [1] lead out, lfd[2] in. */
static void serve(const int lfd[3], unsigned port)
{
	signal(SIGCHLD, SIG_IGN);       /* the children reap themselves */
	for (;;) {
		struct pollfd p[3];
		for (int i = 0; i < 3; i++)
			p[i] = (struct pollfd){ lfd[i], lfd[i] >= 0 ? POLLIN : 0, 0 };
		if (poll(p, 3, -1) < 0)
			continue;
		for (int i = 0; i < 3; i++) {
			if (!(p[i].revents & POLLIN))
				continue;
			int fd = accept4(lfd[i], NULL, NULL, SOCK_CLOEXEC);
			if (fd < 0)
				continue;
			/* each write passed on as it comes (no Nagle wait on the
			 * small records of a TLS handshake); the publish door's
			 * socket is a Unix one, where this does nothing */
			(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof(int));
			if (fork() == 0) {
				for (int k = 0; k < 3; k++)
					if (lfd[k] >= 0)
						close(lfd[k]);
				if (i == 2)
					in(fd, port);
				out(fd);
			}
			close(fd);
		}
	}
}

/* The forwarder: a child of PID 1 serving the doors lfd (-1: not open),
 * the way out through O_ASYNC no more (its SIGIO was PID 1's call); its
 * doors closed in PID 1. 0, or -1 when the fork failed (nothing closed). */
static int fork_forwarder(int lfd[3], unsigned port)
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		for (int i = 0; i < 2; i++)
			if (lfd[i] >= 0)
				(void)fcntl(lfd[i], F_SETFL, 0);
		serve(lfd, port);
	}
	for (int i = 0; i < 3; i++)
		if (lfd[i] >= 0)
			close(lfd[i]);
	return 0;
}

void jail_forward_start(struct jail *j)
{
	int lfd[3] = { -1, -1, j->publish_fd };
	if (!j->net_proxy && j->publish_fd < 0)
		return;
	if (j->net_proxy) {
		lfd[0] = listen_on(AF_INET);
		lfd[1] = listen_on(AF_INET6);
		if (lfd[0] < 0)
			sr_fatal_sys(SR_EXIT_SYS, "--net-proxy: unable to listen on 127.0.0.1:%d",
				     JAIL_NET_PORT);
		jail_note(j, "--net-proxy: 127.0.0.1:%d leads to %s", JAIL_NET_PORT, j->net_proxy);
	}
	if (j->publish)
		jail_note(j, "--publish: %s leads to 127.0.0.1:%u", j->publish, j->publish_port);
	/* The way out alone: a run that never connects costs no process.
	 * The doors are watched before the program starts, so that its
	 * first connection raises SIGIO in PID 1. */
	if (j->publish_fd < 0) {
		for (int i = 0; i < 2; i++) {
			if (lfd[i] >= 0 && (fcntl(lfd[i], F_SETOWN, getpid()) < 0 ||
					    fcntl(lfd[i], F_SETFL, O_ASYNC) < 0))
				sr_fatal_sys(SR_EXIT_SYS, "--net-proxy: unable to watch 127.0.0.1:%d",
					     JAIL_NET_PORT);
			j->net_fd[i] = lfd[i];
		}
		return;
	}
	/* the publish socket was made nonblocking: accept4 waits on poll */
	if (fork_forwarder(lfd, j->publish_port) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to fork the jail's forwarder");
}

void jail_forward_due(struct jail *j)
{
	struct pollfd p[2] = { { j->net_fd[0], POLLIN, 0 }, { j->net_fd[1], POLLIN, 0 } };
	if (j->net_fd[0] < 0 || poll(p, 2, 0) <= 0)
		return;
	/* A fork that fails (the program has taken every process --pids
	 * allows, say) ends no run: the doors stay PID 1's, and the next
	 * connection's SIGIO tries again; meanwhile the connections wait. */
	int lfd[3] = { j->net_fd[0], j->net_fd[1], -1 };
	if (fork_forwarder(lfd, 0) < 0) {
		sr_warn_sys("--net-proxy: unable to fork the forwarder for a connection out");
		return;
	}
	j->net_fd[0] = j->net_fd[1] = -1;
}
