/* proxy.c - the proxy: one process for the life of the program, whose
 * children, the workers, serve the connections, one at a time each (so
 * that one connection's slow server, or resolver, holds up no other).
 * One worker waits in accept(2) ahead of the next connection (the
 * spare), so that no fork costs a connection its time; a worker done
 * with its connection is the spare again if none is (see worker()). At
 * most --max-connections are served at
 * once; a connection past that gets a refusal that says so (as many again
 * may be told; past twice the bound a connection is closed at once and
 * recorded). The proxy is the program's parent (main.c): it ends when
 * the program does, removing the socket and its children, and exits as
 * the program did. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
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

/* Memory the proxy and its children share: bytes each way (relay.c),
 * the connections being served, and the spare's role. */
enum { SH_OUT, SH_IN, SH_LIVE, SH_SPARE, SH_N };
#define SPARE_NONE 0
#define SPARE_FORKING ((uint64_t)-1)
/* A worker serves at most this many connections, one after another. */
#define WORKER_CONNS 64

/* The spare's role, shared[SH_SPARE]: its pid, SPARE_FORKING while the
 * proxy forks one, or SPARE_NONE. The spare gives the role up when it
 * takes a connection; it or another worker takes it back when done with
 * its connection, if nobody holds it; the proxy forks a spare when
 * nobody does, and frees the role of a spare that died. */
static int role_take(uint64_t *shared, uint64_t from, uint64_t to)
{
	return __atomic_compare_exchange_n(&shared[SH_SPARE], &from, to, 0, __ATOMIC_SEQ_CST,
					   __ATOMIC_SEQ_CST);
}

/* A worker: a child of the proxy that waits in accept(2) as the spare.
 * Once it has a connection it gives up the role and wakes the proxy on
 * say (which watches the socket meanwhile, and forks a spare for a
 * connection that comes while nobody waits), and serves it, counted in
 * shared[SH_LIVE] (the workers count themselves: the proxy never has to
 * know which of them has taken one); then it is the spare again if none
 * is, or ends. Connections one after another cost no fork, and a run
 * that never connects none at all. */
static void worker(const struct net *n, int lfd, int say, uint64_t *shared)
{
	uint64_t self = (uint64_t)getpid();
	for (int served = 0;; served++) {
		int fd;
		while ((fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) < 0)
			if (errno != EINTR && errno != ECONNABORTED)
				_exit(0);
		__atomic_store_n(&shared[SH_SPARE], SPARE_NONE, __ATOMIC_SEQ_CST);
		(void)!write(say, &self, sizeof self);
		uint64_t live = __atomic_add_fetch(&shared[SH_LIVE], 1, __ATOMIC_RELAXED);
		if (live > 2 * n->max_conns)
			drop(n, fd);
		else
			connection(n, fd, live > n->max_conns, shared);
		close(fd);
		__atomic_sub_fetch(&shared[SH_LIVE], 1, __ATOMIC_RELAXED);
		if (served + 1 >= WORKER_CONNS || !role_take(shared, SPARE_NONE, self))
			_exit(0);
	}
}

/* Fork the spare, unless one is there: 0, or -1 when the fork failed. */
static int spare(const struct net *n, int lfd, int sfd, int say, uint64_t *shared)
{
	if (!role_take(shared, SPARE_NONE, SPARE_FORKING))
		return 0;
	pid_t proxy = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		__atomic_store_n(&shared[SH_SPARE], SPARE_NONE, __ATOMIC_SEQ_CST);
		return -1;
	}
	if (pid > 0) {  /* unless it has taken a connection already */
		(void)role_take(shared, SPARE_FORKING, (uint64_t)pid);
		return 0;
	}
	close(sfd);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != proxy)
		_exit(0);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	worker(n, lfd, say, shared);
	_exit(0);
}

void proxy_unlink(const struct net *n)
{
	struct stat st;
	if (lstat(n->socket_path, &st) == 0 && st.st_dev == n->socket_dev &&
	    st.st_ino == n->socket_ino)
		unlink(n->socket_path);
}

/* A signal for the program (SIGTERM, SIGINT, SIGHUP, SIGQUIT) is passed
 * on to it, unless sr-net's caller ignored it (nohup's SIGHUP: blocked,
 * it is queued all the same). Children reaped (a spare among them frees
 * its role): 1 once the program is, its wait status in *status. */
static int signals(int sfd, pid_t prog, uint64_t *shared, int *status)
{
	struct signalfd_siginfo si;
	struct sigaction sa;
	pid_t pid;
	int st, ended = 0;
	while (read(sfd, &si, sizeof si) == sizeof si)
		if (si.ssi_signo != SIGCHLD && sigaction((int)si.ssi_signo, NULL, &sa) == 0 &&
		    sa.sa_handler != SIG_IGN)
			(void)kill(prog, (int)si.ssi_signo);
	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		(void)role_take(shared, (uint64_t)pid, SPARE_NONE);
		if (pid == prog) {
			*status = st;
			ended = 1;
		}
	}
	return ended;
}

/* Every child of the proxy left (a connection still served past the
 * wait) killed and reaped, so that nothing of sr-net outlives it: its
 * caller (sr-limit) then has nothing to hunt for. The children are read
 * from /proc/self/task/TID/children; where the kernel has no such file,
 * they die of PR_SET_PDEATHSIG when the proxy exits. */
static void kill_children(void)
{
	char path[64], buf[4096];
	snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)getpid());
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t k = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (k <= 0)
		return;
	buf[k] = '\0';
	for (char *p = buf, *e; *p; p = e) {
		long pid = strtol(p, &e, 10);
		if (e == p)
			break;
		if (pid > 0)
			(void)kill((pid_t)pid, SIGKILL);
	}
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
}

/* The program has ended: the connections still being served (their
 * client gone, or going) get a moment to end and write their records,
 * at most END_WAIT_MS; then the spare and what is left are killed, the
 * socket removed, and sr-net ends as the program did. */
#define END_WAIT_MS 500

static void end(const struct net *n, int sfd, const uint64_t *shared, int status)
{
	uint64_t until = sr_now_ns() + END_WAIT_MS * 1000000ULL;
	while (__atomic_load_n(&shared[SH_LIVE], __ATOMIC_RELAXED) && sr_now_ns() < until) {
		struct pollfd p = { sfd, POLLIN, 0 };
		struct signalfd_siginfo si;
		(void)poll(&p, 1, 10);
		while (read(sfd, &si, sizeof si) == sizeof si)
			;
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
	pid_t left;
	while ((left = waitpid(-1, NULL, WNOHANG)) > 0)
		;
	if (left == 0)          /* workers still there: the spare, or served past the wait */
		kill_children();
	proxy_unlink(n);
	sr_die_like(status);
}

void proxy_sigset(sigset_t *set)
{
	sr_supervisor_sigset(set);
	sigaddset(set, SIGQUIT);
}

void proxy_run(struct net *n, int lfd, pid_t prog)
{
	uint64_t *shared = mmap(NULL, SH_N * sizeof *shared, PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	sigset_t set;
	int say[2], status = 0;
	proxy_sigset(&set);
	int sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (shared == MAP_FAILED || sfd < 0 || pipe2(say, O_CLOEXEC | O_NONBLOCK) < 0) {
		sr_warn_sys("unable to start the proxy");
		(void)kill(prog, SIGKILL);
		(void)waitpid(prog, NULL, 0);
		proxy_unlink(n);
		_exit(SR_EXIT_SYS);
	}
	/* the proxy's standard fds let go (but stderr with --verbose) */
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		if (!n->verbose)
			dup2(null, 2);
		close(null);
	}
	uint64_t took;
	int armed = 0, failed = 0;      /* the first connection has come; a fork failed */
	for (;;) {
		/* the socket is watched while nobody waits in accept(2): a
		 * connection there then gets a spare forked for it */
		int watch = !armed || __atomic_load_n(&shared[SH_SPARE], __ATOMIC_SEQ_CST) == SPARE_NONE;
		struct pollfd p[3] = { { say[0], POLLIN, 0 }, { sfd, POLLIN, 0 },
				       { watch ? lfd : -1, POLLIN, 0 } };
		/* a fork that failed is tried again in a while; meanwhile the
		 * connections wait in the socket's backlog */
		if (poll(p, 3, failed ? 100 : -1) < 0 && errno != EINTR)
			continue;
		if (p[1].revents && signals(sfd, prog, shared, &status))
			end(n, sfd, shared, status);
		if (p[2].revents) {
			if (!armed)     /* the first: what it needs */
				own_addresses(n);
			armed = 1;
			failed = spare(n, lfd, sfd, say[1], shared) < 0;
		}
		while (read(say[0], &took, sizeof took) == (ssize_t)sizeof took)
			;
	}
}
