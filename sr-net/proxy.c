/* proxy.c - the proxy: one process for the life of the program, whose
 * children serve the connections, one each (so that one connection's
 * slow server, or resolver, holds up no other). A child is forked ahead
 * of each connection and waits in accept(2) (the spare), so that the fork
 * costs no connection its time. At most --max-connections are served at
 * once; a connection past that gets a refusal that says so (as many again
 * may be told; past twice the bound a connection is closed at once and
 * recorded). The proxy ends when the program does (PR_SET_PDEATHSIG),
 * removing the socket, and its children with it. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
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

/* A connection past twice the bound: closed, and recorded. */
static void drop(const struct net *n, int fd)
{
	struct net_record r = { .via = "proxy", .start_ns = sr_now_ns() };
	snprintf(r.why, sizeof r.why, "more than twice --max-connections (%u) at once: "
		 "closed unanswered", n->max_conns);
	record_write(n, &r);
	close(fd);
}

/* The spare: a child forked ahead of the next connection, waiting in
 * accept(2), so that no fork stands between a connection and its
 * answer. Once it has one it tells the proxy its pid on say (which forks
 * the next spare) and serves it, counted in shared[2], the connections
 * being served (the children count themselves: the proxy never has to
 * know which of them has taken one). */
static pid_t spare(const struct net *n, int lfd, int sfd, int say, uint64_t *shared)
{
	pid_t proxy = getpid();
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	close(sfd);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != proxy)
		_exit(0);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	int fd;
	while ((fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) < 0)
		if (errno != EINTR && errno != ECONNABORTED)
			_exit(0);
	close(lfd);
	pid = getpid();
	(void)!write(say, &pid, sizeof pid);
	uint64_t live = __atomic_add_fetch(&shared[2], 1, __ATOMIC_RELAXED);
	if (live > 2 * n->max_conns)
		drop(n, fd);
	else
		connection(n, fd, live > n->max_conns, shared);
	__atomic_sub_fetch(&shared[2], 1, __ATOMIC_RELAXED);
	_exit(0);
}

void proxy_unlink(const struct net *n)
{
	struct stat st;
	if (lstat(n->socket_path, &st) == 0 && st.st_dev == n->socket_dev &&
	    st.st_ino == n->socket_ino)
		unlink(n->socket_path);
}

/* The proxy's signals: 0 (SIGCHLD: reaped; *sp -1 if it was the
 * spare), or -1 for one that ends it. */
static int signals(int sfd, pid_t *sp)
{
	struct signalfd_siginfo si;
	pid_t pid;
	while (read(sfd, &si, sizeof si) == sizeof si)
		if (si.ssi_signo != SIGCHLD)
			return -1;
	while ((pid = waitpid(-1, NULL, WNOHANG)) > 0)
		if (pid == *sp)
			*sp = -1;
	return 0;
}

/* The program has ended: the connections still being served (their
 * client gone, or going) get a moment to end and write their records,
 * at most END_WAIT_MS, before the proxy's end takes them. */
#define END_WAIT_MS 500

static void end(const struct net *n, int sfd, const uint64_t *shared)
{
	uint64_t until = sr_now_ns() + END_WAIT_MS * 1000000ULL;
	while (__atomic_load_n(&shared[2], __ATOMIC_RELAXED) && sr_now_ns() < until) {
		struct pollfd p = { sfd, POLLIN, 0 };
		struct signalfd_siginfo si;
		(void)poll(&p, 1, 10);
		while (read(sfd, &si, sizeof si) == sizeof si)
			;
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
	proxy_unlink(n);
	_exit(0);
}

void proxy_run(const struct net *n, int lfd, int pidfd)
{
	/* bytes each way (relay.c), then the connections being served */
	uint64_t *shared = mmap(NULL, 3 * sizeof *shared, PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	sigset_t set;
	int say[2];
	sr_supervisor_sigset(&set);
	sigprocmask(SIG_BLOCK, &set, NULL);
	int sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (shared == MAP_FAILED || sfd < 0 || pipe2(say, O_CLOEXEC | O_NONBLOCK) < 0)
		_exit(SR_EXIT_SYS);
	pid_t sp = -1, took;
	for (;;) {
		if (sp < 0)
			sp = spare(n, lfd, sfd, say[1], shared);
		/* a fork that failed is tried again in a while; meanwhile the
		 * connections wait in the socket's backlog */
		struct pollfd p[3] = { { say[0], POLLIN, 0 }, { sfd, POLLIN, 0 }, { pidfd, POLLIN, 0 } };
		if (poll(p, 3, sp < 0 ? 100 : -1) < 0 && errno != EINTR)
			_exit(SR_EXIT_SYS);
		if (p[2].revents)
			end(n, sfd, shared);
		if (p[1].revents && signals(sfd, &sp) < 0) {
			proxy_unlink(n);
			_exit(0);
		}
		while (read(say[0], &took, sizeof took) == (ssize_t)sizeof took)
			if (took == sp)
				sp = -1;
	}
}
