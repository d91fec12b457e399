/* proxy.c - the proxy: one process for the life of the program, which
 * accepts each connection on the socket and serves it in a child of its
 * own (so that one connection's slow server, or resolver, holds up no
 * other). At most --max-connections are served at once; a connection
 * past that gets a refusal that says so (as many again may be told; past
 * twice the bound a connection is closed at once and recorded). The
 * proxy ends when the program does (PR_SET_PDEATHSIG), removing the
 * socket, and its children with it. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conn.h"
#include "sr-net.h"
#include "sr.h"

/* One connection, in a child of the proxy; over: past --max-connections,
 * refused saying so. Its request says which protocol: SOCKS5 starts with
 * byte 5, HTTP with a method's letter. */
static void connection(const struct net *n, int fd, int over, uint64_t *bytes)
{
	static struct conn c;
	memset(&c, 0, sizeof c);
	c.n = n;
	c.fd = fd;
	c.over = over;
	c.bytes = bytes;
	c.rec.start_ns = sr_now_ns();
	c.deadline_ns = c.rec.start_ns + HEAD_TIME_NS;
	c.rec.via = "http";
	if (conn_read(&c) <= 0)
		conn_refuse(&c, "no request came within the time");
	else if ((unsigned char)c.buf[0] == 5)
		socks_serve(&c);
	else
		http_serve(&c);
	if (c.rec.host[0] || c.rec.why[0])
		record_write(n, &c.rec);
}

static unsigned reap(void)
{
	unsigned n = 0;
	while (waitpid(-1, NULL, WNOHANG) > 0)
		n++;
	return n;
}

/* A connection past twice the bound: closed, and recorded. */
static void drop(const struct net *n, int fd)
{
	struct net_record r = { .via = "proxy", .start_ns = sr_now_ns() };
	snprintf(r.why, sizeof r.why, "more than twice --max-connections (%u) at once: "
		 "closed unanswered", n->max_conns);
	record_write(n, &r);
	close(fd);
}

static int serve(const struct net *n, int lfd, int sfd, int fd, int over, uint64_t *bytes)
{
	/* The children keep the pidfd: closing it is not needed, they end
	 * with the proxy (PR_SET_PDEATHSIG, same identity). */
	pid_t proxy = getpid();
	pid_t pid = fork();
	if (pid == 0) {
		close(lfd);
		close(sfd);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != proxy)
			_exit(0);
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		connection(n, fd, over, bytes);
		_exit(0);
	}
	if (pid < 0) {
		drop(n, fd);
		return 0;
	}
	close(fd);
	return 1;
}

void proxy_run(const struct net *n, int lfd, int pidfd)
{
	uint64_t *bytes = mmap(NULL, 2 * sizeof *bytes, PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	sigset_t set;
	sr_supervisor_sigset(&set);
	sigprocmask(SIG_BLOCK, &set, NULL);
	int sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (bytes == MAP_FAILED || sfd < 0)
		_exit(SR_EXIT_SYS);
	unsigned live = 0;
	for (;;) {
		struct pollfd p[3] = { { lfd, POLLIN, 0 }, { sfd, POLLIN, 0 }, { pidfd, POLLIN, 0 } };
		if (poll(p, 3, -1) < 0 && errno != EINTR)
			_exit(SR_EXIT_SYS);
		if (p[2].revents) {
			unlink(n->socket_path);
			_exit(0);
		}
		if (p[1].revents) {
			struct signalfd_siginfo si;
			while (read(sfd, &si, sizeof si) == sizeof si)
				if (si.ssi_signo != SIGCHLD) {
					unlink(n->socket_path);
					_exit(0);
				}
			unsigned gone = reap();
			live = gone > live ? 0 : live - gone;
		}
		if (!(p[0].revents & POLLIN))
			continue;
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		if (live >= 2 * n->max_conns) {
			drop(n, fd);
			continue;
		}
		live += (unsigned)serve(n, lfd, sfd, fd, live >= n->max_conns, bytes);
	}
}
