/* control.c - sr-jail --control PATH: a Unix socket the outer sr-jail
 * makes before the namespaces, served by PID 1. Each connection sends one
 * request line and gets one line back:
 *
 *   apply   PID 1 stops every process of the jail (SIGSTOP to all of
 *           them, which the init of a PID namespace can send, then a look
 *           at each thread until all are stopped), applies the changes of
 *           each --quota made since the last apply to the host directory
 *           (quota.c), lets them go on (SIGCONT), and answers
 *             ok            applied
 *             ok full       applied; the quota's tmpfs is full: writes
 *                           past it fail
 *             failed: WHY   not (all) applied
 *   view    "ok", with a descriptor (SCM_RIGHTS): a detached clone of the
 *           (first) --quota's overlay, the program's view of the
 *           directory, for the caller to read and write through, since
 *           overlayfs does not support changes to its lower layer (the
 *           host directory) while it is mounted
 *
 * The socket's directory is the caller's; the connecting process must be
 * of the jail's own user. Nothing in the jail sees the socket.
 *
 * --view-from SOCKET is the other end, for a jail over the same directory
 * while the jail serving SOCKET lives: before it starts, that jail is
 * asked to apply (the directory then has what its program wrote); when
 * its program has ended, its --quota's changes are applied through that
 * jail's view instead of into the directory below it (which that jail's
 * overlay may not see: overlayfs caches a name it did not find), and that
 * jail is asked to apply again. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "jail.h"
#include "control.h"
#include "quota.h"
#include "sock.h"
#include "sr.h"

#define STOP_WAIT_MS 10000      /* for every process of the jail to stop */
#define VIEW_WAIT_S 60          /* for another jail's answer (it may be applying) */
#define CONTROL_WAIT_MS 30000   /* for a jail ending at --control's path to go */

/* a jail that served it and is ending (applying its last changes)
 * removes it soon: waited for, CONTROL_WAIT_MS at most */
void jail_control_listen(struct jail *j)
{
	j->control_fd = jail_unix_listen("--control", j->control, CONTROL_WAIT_MS,
					 &j->control_dir, &j->control_name);
}

/* The root PID 1 pivots to is the outer's too (one mount namespace): the
 * socket's directory is reached through the fd opened before. */
void jail_control_remove(const struct jail *j)
{
	jail_unix_remove(j->control_dir, j->control_name);
}

void jail_control_arm(const struct jail *j)
{
	if (j->control_fd < 0)
		return;
	if (fcntl(j->control_fd, F_SETOWN, getpid()) < 0 ||
	    fcntl(j->control_fd, F_SETFL, O_NONBLOCK | O_ASYNC) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to watch --control");
}

/* A connection made before it was watched raised no SIGIO. */
void jail_control_pending(struct jail *j)
{
	jail_control_serve(j);
}

/* Has the thread whose stat file is at dir/name stopped (or ended)? */
static int stopped_at(int dir, const char *name)
{
	char buf[512], *p;
	int fd = openat(dir, name, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 1;               /* gone */
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return !p || p[1] != ' ' || strchr("TtZXx", p[2]) != NULL;
}

/* Is every thread of every process of the jail but this one stopped?
 * Those that are not are sent SIGSTOP again (forked meanwhile). */
static int all_stopped(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	char path[300];
	int all = 1;
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		long pid = strtol(e->d_name, NULL, 10);
		if (pid <= 1)
			continue;
		snprintf(path, sizeof path, "/proc/%ld/task", pid);
		DIR *t = opendir(path);
		struct dirent *te;
		while (t && (te = readdir(t))) {
			if (te->d_name[0] == '.')
				continue;
			snprintf(path, sizeof path, "/proc/%ld/task/%.32s/stat", pid, te->d_name);
			if (!stopped_at(AT_FDCWD, path)) {
				all = 0;
				(void)kill((pid_t)pid, SIGSTOP);
			}
		}
		if (t)
			closedir(t);
	}
	closedir(d);
	return all;
}

/* Every process of the jail stopped: 0, or -1 after STOP_WAIT_MS. */
static int stop_all(void)
{
	(void)kill(-1, SIGSTOP);
	for (int ms = 0; ms < STOP_WAIT_MS; ms++) {
		if (all_stopped())
			return 0;
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
	return -1;
}

/* "ok\n" with the view's descriptor. */
static void send_view(const struct jail *j, int c)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec io = { "ok\n", 3 };
	struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1,
			    .msg_control = cbuf, .msg_controllen = sizeof cbuf };
	struct cmsghdr *h = CMSG_FIRSTHDR(&m);
	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(h), &j->quotas[0].view_fd, sizeof(int));
	(void)sendmsg(c, &m, MSG_NOSIGNAL);
}

/* The request line, read within the socket's timeout: 0, or -1. */
static int request(int c, char *req, size_t len)
{
	size_t n = 0;
	while (n < len - 1) {
		ssize_t got = read(c, req + n, 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return -1;
		if (req[n] == '\n')
			break;
		n++;
	}
	req[n] = '\0';
	return 0;
}

/* An apply on request; with --view-from, through that jail's view, which
 * is then asked to apply in turn (its answer is this one's). */
static int apply_live(struct jail *j, char *why, size_t len, int *full)
{
	int to = j->view_dir >= 0 ? jail_view_target(j) : -1, r;
	if (to < 0) {
		r = jail_quota_apply_live(j, why, len, full);
	} else {
		int host = j->quotas[0].host_fd;
		j->quotas[0].host_fd = to;
		r = jail_quota_apply_live(j, why, len, full);
		j->quotas[0].host_fd = host;
		close(to);
	}
	if (r == 0 && to >= 0 && (r = jail_view_apply(j)) != 0) {
		*full |= r == 1;
		if (r < 0)
			snprintf(why, len, "the jail of --view-from %s did not apply", j->view_from);
		r = r < 0 ? -1 : 0;
	}
	return r;
}

static void serve_one(struct jail *j, int c)
{
	char line[600], why[512], req[16];
	struct ucred cr;
	socklen_t len = sizeof cr;
	int full = 0;
	struct timeval tv = { 5, 0 };
	(void)setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	(void)setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0 || cr.uid != geteuid() ||
	    request(c, req, sizeof req) < 0)
		return;
	if (strcmp(req, "view") == 0 && j->nquotas && j->quotas[0].view_fd >= 0) {
		send_view(j, c);
		return;
	}
	if (strcmp(req, "apply") != 0)
		snprintf(line, sizeof line, "failed: unknown request\n");
	else if (stop_all() < 0)
		snprintf(line, sizeof line, "failed: the jail's processes did not stop\n");
	else if (apply_live(j, why, sizeof why, &full) < 0)
		snprintf(line, sizeof line, "failed: %s\n", why);
	else
		snprintf(line, sizeof line, "ok%s\n", full ? " full" : "");
	if (strcmp(req, "apply") == 0)
		(void)kill(-1, SIGCONT);
	(void)sr_write_all(c, line, strlen(line));
}

void jail_control_serve(struct jail *j)
{
	int c;
	if (j->control_fd < 0)
		return;
	while ((c = accept4(j->control_fd, NULL, NULL, SOCK_CLOEXEC)) >= 0 || errno == EINTR) {
		if (c < 0)
			continue;
		serve_one(j, c);
		close(c);
	}
}


/* ---- --view-from: a client of another jail's --control ---------------- */

/* A connection to the socket at path, its timeouts set: a socket, or -1
 * (errno). */
static int view_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { VIEW_WAIT_S, 0 };
	if (snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path) >= (int)sizeof sa.sun_path) {
		errno = ENAMETOOLONG;
		return -1;
	}
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	(void)setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	(void)setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	if (connect(s, (struct sockaddr *)&sa, sizeof sa) < 0) {
		int e = errno;
		close(s);
		errno = e;
		return -1;
	}
	return s;
}

/* SOCKET's path through the descriptor of its directory: short (sun_path
 * is), and reached from PID 1 too, after pivot_root. */
static void view_path(const struct jail *j, char *buf, size_t len)
{
	snprintf(buf, len, "/proc/self/fd/%d/%s", j->view_dir, j->view_name);
}

/* One request to SOCKET: its answer line in line (and a descriptor sent
 * with it in *fd if fd). 0, or -1 when nothing serves SOCKET. */
static int view_ask(const struct jail *j, const char *req, char *line, size_t len, int *fd)
{
	char path[4200];
	view_path(j, path, sizeof path);
	int s = view_connect(path);
	if (s < 0)
		return -1;
	ssize_t n = sr_ask(s, req, line, len, fd);
	close(s);
	if (n <= 0)
		snprintf(line, len, "no answer");
	return 0;
}

void jail_view_open(struct jail *j)
{
	char *dir = strdup(j->view_from), *slash = dir ? strrchr(dir, '/') : NULL;
	char line[600];
	if (!dir)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	if (slash)
		*slash = '\0';
	j->view_name = slash ? j->view_from + (slash - dir) + 1 : j->view_from;
	if (!*j->view_name || strlen(j->view_name) > 64)
		sr_usage("--view-from: %s: no socket name, or a name too long", j->view_from);
	j->view_dir = open(slash ? (*dir ? dir : "/") : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (j->view_dir < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to open the directory of --view-from %s",
			     j->view_from);
	free(dir);
	if (view_ask(j, "apply\n", line, sizeof line, NULL) == 0 && strncmp(line, "ok", 2))
		sr_fatal(SR_EXIT_SYS, "--view-from %s: its jail did not apply: %s",
			 j->view_from, line);
}

int jail_view_target(const struct jail *j)
{
	char line[600];
	int fd = -1;
	if (view_ask(j, "view\n", line, sizeof line, &fd) < 0 || fd < 0)
		return -1;
	int dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(fd);
	return dfd;
}

int jail_view_apply(const struct jail *j)
{
	char line[600];
	if (view_ask(j, "apply\n", line, sizeof line, NULL) < 0)
		return 0;       /* it ended meanwhile: it applied all as it ended */
	if (strcmp(line, "ok") == 0)
		return 0;
	if (strcmp(line, "ok full") == 0)
		return 1;
	sr_warn("--view-from %s: not applied: %s", j->view_from, line);
	return -1;
}
