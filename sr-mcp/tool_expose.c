/* tool_expose.c - expose_port: a session's server opened to the user.
 * The session's jail publishes port SESSION_PUBLISH_PORT of its loopback
 * at DIR/pub (sr-jail --publish: a Unix socket on the host, mode 0600,
 * removed as the jail ends). Over stdio, a forwarder of sr-mcp's listens
 * on 127.0.0.1 (a port the kernel picks) and carries each connection to
 * that socket, in a child of its own; it ends when the session does (its
 * job ended, or DIR/pub gone or another one). DIR/exposed names it (port,
 * pid, start time, the socket's inode): a second call answers the same
 * URL. Nothing else of the jail is reached: the socket leads to that one
 * port; another port of the sandbox has no way in.
 * Under sr-mcp-http (--tenant), the forwarder listens instead on a Unix
 * socket STATE/expose/ID.sock (ID 32 random hex digits, in a directory of
 * mode 0700, removed as the forwarder ends), and the answer's url is /p/TENANT/ID/, which the
 * front serves from that socket on its own address (sr-mcp-http(1)). */
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

struct fwd {
	int lfd, dir;                   /* the listening socket, the session's directory */
	unsigned long long ino;         /* DIR/pub's inode */
	const char *job;                /* the session's interpreter */
	char id[33];                    /* under the front: STATE/expose/ID.sock, else "" */
};

/* The forwarder's Unix socket gone with it (under the front). */
static void fwd_end(const struct fwd *f)
{
	char p[4300];
	if (*f->id && snprintf(p, sizeof p, "%s/expose/%s.sock", cfg.state_dir, f->id) < (int)sizeof p)
		unlink(p);
	_exit(0);
}

/* The forwarder: each connection to lfd carried to DIR/pub in a child,
 * until the session ends. */
static void forward(const struct fwd *f)
{
	int lfd = f->lfd, dir = f->dir;
	signal(SIGCHLD, SIG_IGN);       /* the children reap themselves */
	for (;;) {
		struct pollfd p = { .fd = lfd, .events = POLLIN };
		unsigned long long now;
		int n = poll(&p, 1, 1000);
		if (pub_ino(dir, &now) < 0 || now != f->ino || !session_job_alive(f->job))
			fwd_end(f);
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

/* Under the front: a socket listening at STATE/expose/ID.sock (ID new,
 * random), bound through the directory's descriptor: the socket or -1. */
static int listen_unix(char id[33])
{
	char d[4300];
	snprintf(d, sizeof d, "%s/expose", cfg.state_dir);
	if (mkdir(d, 0700) < 0 && errno != EEXIST)
		return -1;
	int dfd = open(d, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), s = -1;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	mcp_random_hex(id, 16);
	snprintf(sa.sun_path, sizeof sa.sun_path, "/proc/self/fd/%d/%s.sock", dfd, id);
	if (dfd >= 0 && (s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) >= 0 &&
	    (fchmod(s, 0600) < 0 || bind(s, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(s, 64) < 0)) {
		close(s);
		s = -1;
	}
	if (dfd >= 0)
		close(dfd);
	return s;
}

/* The forwarder started, detached (a grandchild: it outlives no one's
 * wait), with nothing of sr-mcp's open but lfd and dir: its pid, or -1. */
static pid_t forwarder(const struct fwd *f)
{
	int lfd = f->lfd, dir = f->dir;
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
			forward(f);
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
 * ino: 1, its port (0 under the front) and id ("" over stdio), else 0. */
static int exposed(int dir, unsigned long long ino, unsigned *portp, char id[33])
{
	char buf[200], idb[40] = "-";
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
	if (sscanf(buf, "%u %d %llu %llu %39s", &port, &pid, &st, &in, idb) != 5 || in != ino ||
	    pid <= 0 || !st || start_time(pid) != st)
		return 0;
	*portp = port;
	snprintf(id, 33, "%s", strcmp(idb, "-") ? idb : "");
	return 1;
}

/* The forwarder for the session in path (job its interpreter's), started
 * if none serves it: 0, its port (over stdio) or id (under the front); or
 * -1 with why in err. */
static int expose(const char *path, const char *job, unsigned *port, char id[33], char *err,
		  size_t len)
{
	struct fwd f = { .lfd = -1, .job = job };
	f.dir = open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (f.dir < 0 || pub_ino(f.dir, &f.ino) < 0) {
		snprintf(err, len, "the session publishes no port (it has the host's network, "
			 "where its ports are the host's already, or it was started before sr-mcp "
			 "could publish one: restart_session)");
	} else if (!exposed(f.dir, f.ino, port, id)) {
		f.lfd = cfg.tenant_fixed ? listen_unix(f.id) : listen_local(port);
		pid_t pid = f.lfd < 0 ? -1 : forwarder(&f);
		char rec[200];
		int fd = pid < 0 ? -1 : openat(f.dir, "exposed", O_WRONLY | O_CREAT | O_TRUNC |
					       O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0) {
			int n = snprintf(rec, sizeof rec, "%u %d %llu %llu %s\n", *port, (int)pid,
					 start_time(pid), f.ino, *f.id ? f.id : "-");
			(void)!write(fd, rec, (size_t)n);
			close(fd);
		}
		snprintf(id, 33, "%s", f.id);
		if (pid < 0)
			snprintf(err, len, "unable to forward a port of 127.0.0.1: %s",
				 strerror(errno));
	}
	if (f.lfd >= 0)
		close(f.lfd);
	if (f.dir >= 0)
		close(f.dir);
	return *err ? -1 : 0;
}

void tool_expose_port(struct proto_req *r, const cJSON *args)
{
	const char *ws, *lang;
	double port;
	char dir[4200], job[33], err[400] = "", url[200], id[33] = "";
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
	if (!session_live_dir(r->tenant, ws, lang, dir, sizeof dir, job)) {
		tool_error(r, "you have no live %s session in workspace %s: start one (run_code with "
			   "session: true) and serve from it", lang, ws);
		return;
	}
	if (expose(dir, job, &local, id, err, sizeof err) < 0) {
		tool_error(r, "%s", err);
		return;
	}
	if (*id)        /* the front makes it whole: its address before it */
		snprintf(url, sizeof url, "/p/%s/%s/", r->tenant, id);
	else
		snprintf(url, sizeof url, "http://127.0.0.1:%u/", local);
	cJSON *res = cJSON_CreateObject();
	cJSON_AddStringToObject(res, "workspace_id", ws);
	cJSON_AddStringToObject(res, "language", lang);
	cJSON_AddNumberToObject(res, "port", port);
	cJSON_AddStringToObject(res, "url", url);
	if (*id)
		cJSON_AddStringToObject(res, "expose_id", id);
	char text[400];
	snprintf(text, sizeof text, "port %u of the session is at %s until the session ends: give "
		 "the user that link (it reaches this one port while the server runs, for whoever "
		 "holds the link)", SESSION_PUBLISH_PORT, url);
	tool_reply(r, res, text, 0);
}
