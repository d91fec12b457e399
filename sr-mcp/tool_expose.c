/* tool_expose.c - expose_port: a session's server opened to the user.
 * The session's jail publishes port SESSION_PUBLISH_PORT of its loopback
 * at DIR/pub (sr-jail --publish: a Unix socket on the host, mode 0600,
 * removed as the jail ends). Over stdio, a forwarder of sr-mcp's listens
 * on 127.0.0.1 (a port the kernel picks) and carries each connection to
 * that socket, in a child of its own; it ends when the session does (its
 * job ended, or DIR/pub gone or another one). DIR/exposed names it (port,
 * pid, start time, the socket's inode): a second call answers the same
 * URL. Nothing else of the jail is reached: the socket leads to that one
 * port; another port of the sandbox has no way in. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "mcp.h"
#include "proto.h"
#include "session.h"
#include "tool.h"
#include "sr.h"

#define T "expose_port"

/* The inode of the socket DIR/pub (dir open): 0, or -1 (none). */
static int pub_ino(int dir, unsigned long long *ino)
{
	struct stat st;
	if (fstatat(dir, "pub", &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISSOCK(st.st_mode))
		return -1;
	*ino = (unsigned long long)st.st_ino;
	return 0;
}

/* A connection to DIR/pub, through the directory's descriptor (sun_path
 * is short, and no link is followed: the directory is sr-mcp's). */
static int pub_connect(int dir)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	snprintf(sa.sun_path, sizeof sa.sun_path, "/proc/self/fd/%d/pub", dir);
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s >= 0 && connect(s, (struct sockaddr *)&sa, sizeof sa) < 0) {
		close(s);
		s = -1;
	}
	return s;
}

/* The forwarder: each connection to lfd carried to DIR/pub in a child,
 * until the session ends. */
static void forward(int lfd, int dir, unsigned long long ino, const char *job)
{
	signal(SIGCHLD, SIG_IGN);       /* the children reap themselves */
	for (;;) {
		struct pollfd p = { .fd = lfd, .events = POLLIN };
		unsigned long long now;
		int n = poll(&p, 1, 1000);
		if (pub_ino(dir, &now) < 0 || now != ino || !session_job_alive(job))
			_exit(0);
		int c = n > 0 ? accept4(lfd, NULL, NULL, SOCK_CLOEXEC) : -1;
		if (c < 0)
			continue;
		if (fork() == 0) {
			close(lfd);
			int u = pub_connect(dir);
			if (u >= 0)
				(void)sr_relay(c, u, NULL, NULL);
			_exit(0);
		}
		close(c);
	}
}

/* A socket listening on 127.0.0.1, its port in *port: the socket or -1. */
static int listen_local(unsigned *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof sa;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(s, 64) < 0 ||
	    getsockname(s, (struct sockaddr *)&sa, &len) < 0) {
		if (s >= 0)
			close(s);
		return -1;
	}
	*port = ntohs(sa.sin_port);
	return s;
}

/* The forwarder started, detached (a grandchild: it outlives no one's
 * wait), with nothing of sr-mcp's open but lfd and dir: its pid, or -1. */
static pid_t forwarder(int lfd, int dir, unsigned long long ino, const char *job)
{
	int pp[2];
	pid_t pid = -1, c;
	if (pipe2(pp, O_CLOEXEC) < 0)
		return -1;
	if ((c = fork()) == 0) {
		pid_t g = fork();
		if (g == 0) {
			int null = open("/dev/null", O_RDWR | O_CLOEXEC);
			setsid();
			dup2(null, 0);
			dup2(null, 1);
			for (int fd = 3; fd < 1024; fd++)
				if (fd != lfd && fd != dir)
					close(fd);
			forward(lfd, dir, ino, job);
		}
		(void)!write(pp[1], &g, sizeof g);
		_exit(0);
	}
	close(pp[1]);
	if (c > 0) {
		(void)waitpid(c, NULL, 0);
		if (read(pp[0], &pid, sizeof pid) != sizeof pid)
			pid = -1;
	}
	close(pp[0]);
	return pid;
}

static unsigned long long start_time(pid_t pid)
{
	char p[32];
	long long v;
	snprintf(p, sizeof p, "/proc/%d", (int)pid);
	return sr_proc_stat_num(AT_FDCWD, p, 22, &v) < 0 ? 0 : (unsigned long long)v;
}

/* The forwarder of DIR/exposed, if it still serves the socket of inode
 * ino: its port, else 0. */
static unsigned exposed(int dir, unsigned long long ino)
{
	char buf[200];
	unsigned port = 0;
	int pid = 0;
	unsigned long long st = 0, in = 0;
	int fd = openat(dir, "exposed", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if (sscanf(buf, "%u %d %llu %llu", &port, &pid, &st, &in) != 4 || in != ino ||
	    pid <= 0 || !st || start_time(pid) != st)
		return 0;
	return port;
}

/* The URL's port for the session in dir (job its interpreter's): 0, or
 * -1 with why in err. */
static int expose(const char *path, const char *job, unsigned *port, char *err, size_t len)
{
	unsigned long long ino;
	int dir = open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), lfd = -1;
	if (dir < 0 || pub_ino(dir, &ino) < 0) {
		snprintf(err, len, "the session publishes no port (it has the host's network, "
			 "where its ports are the host's already, or it was started before sr-mcp "
			 "could publish one: restart_session)");
	} else if ((*port = exposed(dir, ino)) == 0) {
		pid_t pid = (lfd = listen_local(port)) < 0 ? -1 : forwarder(lfd, dir, ino, job);
		char rec[200];
		int fd = pid < 0 ? -1 : openat(dir, "exposed", O_WRONLY | O_CREAT | O_TRUNC |
					       O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0) {
			int n = snprintf(rec, sizeof rec, "%u %d %llu %llu\n", *port, (int)pid,
					 start_time(pid), ino);
			(void)!write(fd, rec, (size_t)n);
			close(fd);
		}
		if (pid < 0)
			snprintf(err, len, "unable to forward a port of 127.0.0.1: %s",
				 strerror(errno));
	}
	if (lfd >= 0)
		close(lfd);
	if (dir >= 0)
		close(dir);
	return *err ? -1 : 0;
}

void tool_expose_port(struct proto_req *r, const cJSON *args)
{
	const char *ws, *lang;
	double port;
	char dir[4200], job[33], err[400] = "", url[64];
	unsigned local = 0;
	if (tool_arg_ws(r, T, args, &ws) < 0 || tool_arg_str(r, T, args, "language", &lang) < 0 ||
	    tool_arg_num(r, T, args, "port", 1, &port) < 0)
		return;
	if ((unsigned)port != SESSION_PUBLISH_PORT) {
		tool_error(r, "a session publishes port %u of its sandbox alone: serve on %u "
			   "from the session's interpreter and expose that", SESSION_PUBLISH_PORT,
			   SESSION_PUBLISH_PORT);
		return;
	}
	if (cfg.one_request) {
		tool_error(r, "expose_port is offered over stdio alone: this server answers each "
			   "request with a process of its own, which cannot keep a forwarder");
		return;
	}
	if (!session_live_dir(r->tenant, ws, lang, dir, sizeof dir, job)) {
		tool_error(r, "you have no live %s session in workspace %s: start one (run_code with "
			   "session: true) and serve from it", lang, ws);
		return;
	}
	if (expose(dir, job, &local, err, sizeof err) < 0) {
		tool_error(r, "%s", err);
		return;
	}
	snprintf(url, sizeof url, "http://127.0.0.1:%u/", local);
	cJSON *res = cJSON_CreateObject();
	cJSON_AddStringToObject(res, "workspace_id", ws);
	cJSON_AddStringToObject(res, "language", lang);
	cJSON_AddNumberToObject(res, "port", port);
	cJSON_AddStringToObject(res, "url", url);
	char text[200];
	snprintf(text, sizeof text, "port %u of the session is at %s until the session ends",
		 SESSION_PUBLISH_PORT, url);
	tool_reply(r, res, text, 0);
}
