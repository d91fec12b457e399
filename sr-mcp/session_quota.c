/* session_quota.c - the workspace quota of a live session (and, for a
 * session jailed under --quota --control, session_sync, below). A session's
 * interpreter sees /workspace itself, not through sr-jail --quota's
 * overlay (whose writes reach the host only when the jail ends, and which
 * may hide what installs and runs write meanwhile), so the kernel bounds
 * each file it writes (RLIMIT_FSIZE at the quota) but not their sum. This
 * thread of sr-mcp measures the workspace of each session it started once
 * a second, and ends the session whose workspace has passed its quota of
 * bytes or entries; the next call says why. What it wrote in that second
 * stays: runs see the workspace full and fail their writes, as with any
 * full workspace, until files are deleted. It also drops the workspace's
 * size cache, which the session's writes made stale, so that the next run
 * measures the workspace anew. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "mcp.h"
#include "session.h"
#include "sr.h"
#include "ws.h"

#define WATCH_EVERY_US 1000000

/* Is workspace ws past its quota: 1 with why, else 0. */
static int over_quota(const char *ws, char *why, size_t len)
{
	char err[300];
	struct sr_usage u;
	/* cfg.ws_quota is read anew each time: the default quota may have
	 * been turned off since the thread started (ws_quota_probe: a kernel
	 * whose tmpfs has no user xattrs). */
	uint64_t quota = __atomic_load_n(&cfg.ws_quota, __ATOMIC_RELAXED);
	if (!quota)
		return 0;
	int fd = ws_open(ws, 0, err, sizeof err);
	if (fd < 0)
		return 0;
	int r = sr_tree_usage(fd, &u);
	close(fd);
	ws_size_forget(ws);
	if (r < 0)
		return 0;
	if (u.bytes > quota)
		snprintf(why, len, "its workspace %s passed its quota of %llu MiB (%llu MiB in it)",
			 ws, (unsigned long long)(quota >> 20),
			 (unsigned long long)(u.bytes >> 20));
	else if (cfg.ws_inodes && u.inodes > cfg.ws_inodes)
		snprintf(why, len, "its workspace %s passed its quota of %llu files and "
			 "directories (%llu in it)", ws, (unsigned long long)cfg.ws_inodes,
			 (unsigned long long)u.inodes);
	else
		return 0;
	return 1;
}

static void *watch(void *arg)
{
	(void)arg;
	for (;;) {
		usleep(WATCH_EVERY_US);
		session_end_owned_if(over_quota);
	}
	return NULL;
}

void session_quota_watch(void)
{
	pthread_t t;
	if (!cfg.ws_quota || pthread_create(&t, NULL, watch, NULL) != 0)
		return;
	pthread_detach(t);
}

/* ---- a session under sr-jail --quota --control ------------------------
 * With its interpreter jailed by `sr-jail --bind WS /workspace --quota N
 * --control DIR/ctl` (DIR: the session's directory, the host's alone), its
 * writes go to the quota's tmpfs, which the kernel caps, and reach the
 * host directory when the jail's init applies them: session_sync asks it
 * to, and waits for its answer (sr-jail(1), --control). */

/* The socket DIR/ctl, opened following no link (O_PATH), and connected
 * through its descriptor: a socket, or -1 with errno. */
static int ctl_connect(const char *dir)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int dfd = open(dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int at = dfd < 0 ? -1 : openat(dfd, "ctl", O_PATH | O_NOFOLLOW | O_CLOEXEC);
	int s = -1, e;
	if (at >= 0 && fstat(at, &st) == 0 && !S_ISSOCK(st.st_mode))
		errno = ENOTSOCK;
	else if (at >= 0 && fstat(at, &st) == 0) {
		snprintf(sa.sun_path, sizeof sa.sun_path, "/proc/self/fd/%d", at);
		s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (s >= 0 && connect(s, (struct sockaddr *)&sa, sizeof sa) < 0) {
			e = errno;
			close(s);
			s = -1;
			errno = e;
		}
	}
	e = errno;
	if (at >= 0)
		close(at);
	if (dfd >= 0)
		close(dfd);
	errno = e;
	return s;
}

int session_sync(const char *dir, unsigned timeout_ms, char *why, size_t len)
{
	char line[600];
	size_t n = 0;
	int s = ctl_connect(dir);
	if (s < 0) {
		if (errno == ENOENT || errno == ECONNREFUSED)
			return SESSION_SYNC_NONE;
		snprintf(why, len, "the session's control socket: %s", strerror(errno));
		return -1;
	}
	struct timeval tv = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 };
	(void)setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	if (write(s, "apply\n", 6) != 6) {
		close(s);
		return SESSION_SYNC_NONE;       /* it ended meanwhile */
	}
	int e = 0;
	while (n < sizeof line - 1) {
		ssize_t got = read(s, line + n, sizeof line - 1 - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			e = got < 0 ? errno : 0;
			break;
		}
		n += (size_t)got;
		if (memchr(line, '\n', n))
			break;
	}
	close(s);
	line[n] = '\0';
	line[strcspn(line, "\n")] = '\0';
	if (strcmp(line, "ok") == 0)
		return SESSION_SYNC_OK;
	if (strcmp(line, "ok full") == 0) {
		snprintf(why, len, "the workspace reached its quota: writes past it failed (ENOSPC)");
		return SESSION_SYNC_FULL;
	}
	if (!n && (e == 0 || e == ECONNRESET))
		return SESSION_SYNC_NONE;       /* the jail ended: it applied all at its end */
	snprintf(why, len, "%s", n ? line : "no answer from the session's jail in time");
	return -1;
}
