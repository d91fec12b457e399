/* workspace.c - the workspaces: names, making and opening one, their
 * use stamps, scratch or kept, the lock that orders a use against a
 * sweep, their sizes for the quota. The workspaces layer: it calls fs, runners' spawn, text
 * and util below it, never a job or a tool. A workspace with a live
 * session is opened through the session's view, and a change of a file
 * tool (ws_size_add, ws_size_forget) applied by its jail (below). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "fs.h"
#include "mcp.h"
#include "spawn.h"
#include "ws.h"
#include "sr.h"

#define STAMPS "ws-used"

static int state_fd(void)
{
	return open(cfg.state_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

int ws_hold(int exclusive)
{
	int st = state_fd();
	if (st < 0)
		return -1;
	int fd = openat(st, "workspaces.lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	close(st);
	if (fd >= 0 && flock(fd, exclusive ? LOCK_EX : LOCK_SH) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

void ws_release(int fd)
{
	if (fd >= 0)
		close(fd);
}

/* STATE/NAME, a directory made on first use: a descriptor or -1. */
static int state_sub(const char *name)
{
	int st = state_fd();
	if (st < 0)
		return -1;
	if (mkdirat(st, name, 0700) < 0 && errno != EEXIST) {
		close(st);
		return -1;
	}
	int fd = openat(st, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(st);
	return fd;
}

static int stamps_fd(void)
{
	return state_sub(STAMPS);
}

void ws_touch(const char *id)
{
	int d = stamps_fd();
	if (d < 0 || !ws_id_ok(id))
		goto out;
	int fd = openat(d, id, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	if (fd < 0 || futimens(fd, NULL) < 0)
		mcp_log("unable to stamp the use of workspace %s: %s", id, strerror(errno));
	if (fd >= 0)
		close(fd);
out:
	if (d >= 0)
		close(d);
}

time_t ws_last_used(const char *id)
{
	int d = stamps_fd();
	struct stat st;
	int r = d >= 0 ? fstatat(d, id, &st, AT_SYMLINK_NOFOLLOW) : -1;
	if (d >= 0)
		close(d);
	if (r == 0 && S_ISREG(st.st_mode))
		return st.st_mtime;
	ws_touch(id);     /* first seen now (made before stamps existed) */
	return time(NULL);
}

/* The stamp of a use at t (a job's end), when later than the last one:
 * the idle time counts from it. Never past now. */
void ws_used_at(const char *id, time_t t)
{
	int d = stamps_fd();
	struct stat st;
	time_t now = time(NULL);
	if (t > now)
		t = now;
	if (d >= 0 && ws_id_ok(id) && fstatat(d, id, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISREG(st.st_mode) && st.st_mtime < t) {
		struct timespec ts[2] = { { t, 0 }, { t, 0 } };
		if (utimensat(d, id, ts, AT_SYMLINK_NOFOLLOW) < 0)
			mcp_log("unable to stamp the use of workspace %s: %s", id, strerror(errno));
	}
	if (d >= 0)
		close(d);
}

/* ---- scratch workspaces ----------------------------------------------------
 * A workspace whose name sr-mcp made up (a call without a workspace_id)
 * is scratch: STATE/ws-scratch/ID marks it, outside the workspace (the
 * sandboxed code cannot touch it), and the sweep removes it once unused
 * for --scratch-ttl (job_retention.c). A later call that names it
 * (ws_make with its name, tool_arg_ws) takes the mark away: it is kept
 * then, as a named workspace is, until unused for --workspace-ttl. The
 * mark is made before the directory, so that a crash between the two
 * leaves no unnamed workspace kept for the long TTL. */
#define SCRATCH "ws-scratch"

/* Marked scratch, whether or not --scratch-ttl is on now. */
static int scratch_marked(const char *id)
{
	struct stat st;
	if (!ws_id_ok(id))
		return 0;
	int d = state_sub(SCRATCH);
	int r = d >= 0 && fstatat(d, id, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
	if (d >= 0)
		close(d);
	return r;
}

int ws_scratch(const char *id)
{
	return cfg.scratch_ttl_ms && scratch_marked(id);
}

/* Mark (on: a new mark) or unmark workspace id as scratch: 0, or -1 (errno). */
static int scratch_set(const char *id, int on)
{
	int d = state_sub(SCRATCH), r = -1;
	if (d >= 0 && ws_id_ok(id)) {
		int fd = on ? openat(d, id, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				     0600) : -1;
		r = on ? (fd >= 0 ? close(fd) : -1) : unlinkat(d, id, 0);
	}
	int e = errno;
	if (d >= 0)
		close(d);
	errno = e;
	return r;
}

/* Held shared against a sweep, which looks at the mark and removes the
 * workspace under its exclusive hold: kept before, or named after it went. */
void ws_keep(const char *id)
{
	if (!scratch_marked(id))
		return;
	int hold = ws_hold(0);
	if (scratch_set(id, 0) == 0)
		mcp_log("workspace %s kept: a call named it (no longer scratch)", id);
	ws_release(hold);
}

time_t ws_expires(const char *id, int *scratch)
{
	*scratch = ws_scratch(id);
	uint64_t ttl = *scratch ? cfg.scratch_ttl_ms : cfg.ws_ttl_ms;
	return ttl ? ws_last_used(id) + (time_t)((ttl + 999) / 1000) : 0;
}

void ws_ttl_text(uint64_t ms, char *buf, size_t len)
{
	static const struct { uint64_t ms; const char *unit; } u[] = {
		{ 86400000, "d" }, { 3600000, "h" }, { 60000, "min" }, { 1000, "s" }, { 1, "ms" },
	};
	size_t i = 0;
	while (i + 1 < sizeof u / sizeof *u && (ms < u[i].ms || ms % u[i].ms))
		i++;
	snprintf(buf, len, "%llu%s", (unsigned long long)(ms / u[i].ms), u[i].unit);
}

#define LAYERS "ws-layer"

/* The workspace is gone: its stamp, its scratch mark and its layer (and
 * the layer's records) too. */
void ws_stamp_remove(const char *id)
{
	int d = stamps_fd();
	if (d >= 0) {
		(void)unlinkat(d, id, 0);
		close(d);
	}
	(void)scratch_set(id, 0);
	if ((d = state_sub(LAYERS)) >= 0 && ws_id_ok(id)) {
		char rec[80];
		snprintf(rec, sizeof rec, "%s.root", id);
		(void)unlinkat(d, rec, 0);
		snprintf(rec, sizeof rec, "%s.size", id);      /* its size, jobs.c's record */
		(void)unlinkat(d, rec, 0);
		if (sr_remove_tree(d, id) < 0 && errno != ENOENT)
			mcp_log("unable to remove the layer of workspace %s: %s", id,
				strerror(errno));
	}
	if (d >= 0)
		close(d);
}

/* The root the layer of id was made for (STATE/ws-layer/ID.root, written
 * by ws_layer_make) in buf: 1, or 0 when there is no record. */
static int layer_root(int d, const char *id, char *buf, size_t len)
{
	char rec[80];
	snprintf(rec, sizeof rec, "%s.root", id);
	int fd = openat(d, rec, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, len - 1) : -1;
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n > 0;
}

int ws_layer_make(const char *id, const char *root, char *buf, size_t len, char *err,
		  size_t errlen)
{
	char was[4200], rec[80];
	struct stat st;
	int d = state_sub(LAYERS), fd = -1, rc = -1;
	if (d < 0 || !ws_id_ok(id)) {
		snprintf(err, errlen, "no layer directory (%s)", strerror(errno));
		goto out;
	}
	if (layer_root(d, id, was, sizeof was) && strcmp(was, root)) {
		snprintf(err, errlen, "%s", was);
		rc = -2;
		goto out;
	}
	if ((mkdirat(d, id, 0700) < 0 && errno != EEXIST) ||
	    fstatat(d, id, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "unable to make the layer %s/" LAYERS "/%s", cfg.state_dir, id);
		goto out;
	}
	snprintf(rec, sizeof rec, "%s.root", id);
	fd = openat(d, rec, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || sr_write_all(fd, root, strlen(root)) < 0) {
		snprintf(err, errlen, "unable to write %s: %s", rec, strerror(errno));
		goto out;
	}
	snprintf(buf, len, "%s/" LAYERS "/%s", cfg.state_dir, id);
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	if (d >= 0)
		close(d);
	return rc;
}

int ws_layer_path(const char *id, const char *root, char *buf, size_t len)
{
	struct stat st;
	char was[4200];
	int d = state_sub(LAYERS);
	int ok = d >= 0 && ws_id_ok(id) && fstatat(d, id, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		 S_ISDIR(st.st_mode) && (!layer_root(d, id, was, sizeof was) || !strcmp(was, root));
	if (d >= 0)
		close(d);
	if (ok)
		snprintf(buf, len, "%s/" LAYERS "/%s", cfg.state_dir, id);
	else
		buf[0] = '\0';
	return ok ? 0 : -1;
}

#define SIZES "ws-size"

int ws_size_path(const char *id, char *buf, size_t len)
{
	int st = state_fd();
	if (st < 0 || !ws_id_ok(id))
		goto fail;
	if (mkdirat(st, SIZES, 0700) < 0 && errno != EEXIST)
		goto fail;
	close(st);
	snprintf(buf, len, "%s/" SIZES "/%s", cfg.state_dir, id);
	return 0;
fail:
	if (st >= 0)
		close(st);
	buf[0] = '\0';
	return -1;
}

/* The workspace's size cache, locked, or -1. */
static int size_open(const char *id)
{
	char path[4400];
	if (ws_size_path(id, path, sizeof path) < 0)
		return -1;
	int fd = sr_qcache_open(path);
	if (fd >= 0 && sr_qcache_lock(fd) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

int ws_size(const char *id, int wfd, struct sr_usage *u)
{
	/* a session's view: the directory's size, which its jail's applies
	 * keep in the cache (what it wrote since the last one its tmpfs caps) */
	int host = -1, root = ws_is_view(wfd) ? open(cfg.workspaces, O_RDONLY | O_DIRECTORY |
						       O_NOFOLLOW | O_CLOEXEC) : -1;
	if (root >= 0) {
		host = fs_openat2(root, id, O_RDONLY | O_DIRECTORY, 0);
		close(root);
		if (host < 0)
			return -1;
	}
	int fd = size_open(id), measured;
	int r = sr_qcache_used(fd, host >= 0 ? host : wfd, u, &measured);
	if (host >= 0)
		close(host);
	if (fd >= 0)
		close(fd);      /* and its lock */
	return r;
}

/* A write through a session's view: its jail applies it (and counts it
 * in the cache); a failure is in the log, and the next apply retries. */
static void sync_after(const char *id)
{
	char why[600];
	(void)ws_sync(id, why, sizeof why);
}

void ws_size_add(const char *id, int wfd, const struct sr_delta *d)
{
	if (!cfg.ws_quota)
		return;
	if (ws_is_view(wfd)) {
		sync_after(id);
		return;
	}
	int fd = size_open(id);
	if (fd < 0)
		return;
	(void)sr_qcache_add(fd, wfd, d);
	close(fd);
}

void ws_size_forget(const char *id)
{
	if (!cfg.ws_quota)
		return;
	sync_after(id);         /* first: the apply adds to the cache */
	int fd = size_open(id);
	if (fd < 0)
		return;
	sr_qcache_drop(fd);
	close(fd);
}

void ws_size_remove(const char *id)
{
	char path[4400];
	if (ws_size_path(id, path, sizeof path) == 0)
		(void)unlink(path);
}

/* The default quota needs unprivileged overlayfs: where sr-jail --quota
 * fails, runs go without one, and the log says so. A quota the
 * administrator asked for is never dropped: runs fail instead, saying why. */
static char quota_off[1024];   /* why the default quota is off: sr-jail's line */

const char *ws_quota_note(void)
{
	return quota_off[0] ? quota_off : NULL;
}

void ws_quota_probe(void)
{
	char dir[4200];
	if (!cfg.ws_quota || cfg.ws_quota_set)
		return;
	snprintf(dir, sizeof dir, "%s/probe.XXXXXX", cfg.state_dir);
	if (!mkdtemp(dir))
		return;
	char *argv[] = { "sr-jail", "--bind", dir, "/w", "--quota", "1M", "true", NULL };
	struct spawn_text e = { .len = 0 };
	struct spawn_io io = { .in_fd = -1, .err = spawn_keep, .err_ctx = &e };
	if (spawn_io(argv, &io) != 0) {
		const char *line = spawn_fatal_line(&e, "sr-jail: fatal: ");
		snprintf(quota_off, sizeof quota_off, "off: %.900s", line ? line : "sr-jail --quota failed");
		mcp_log("%s; workspaces have no size quota (--workspace-quota SIZE makes runs "
			"fail instead)", quota_off);
		cfg.ws_quota = 0;
	}
	rmdir(dir);
}

int ws_id_ok(const char *s)
{
	size_t n = 0;
	for (; s[n]; n++)
		if (!strchr("_-", s[n]) && !(s[n] >= '0' && s[n] <= '9') &&
		    !((s[n] | 32) >= 'a' && (s[n] | 32) <= 'z'))
			return 0;
	return n >= 1 && n <= 64 && s[0] != '-';
}

/* The directory of workspace id made, marked scratch first if asked (a
 * crash between the two leaves no unnamed workspace kept): 0, or -1 with
 * errno (EEXIST: it is there already, when it must be new) and err. */
static int ws_mkdir(const char *id, int must_be_new, int scratch, char *err, size_t errlen)
{
	char path[4096];
	if (scratch && scratch_set(id, 1) < 0) {
		snprintf(err, errlen, "unable to mark workspace %s as scratch in %s/" SCRATCH
			 ": %s", id, cfg.state_dir, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof path, "%s/%s", cfg.workspaces, id);
	if (mkdir(path, 0700) == 0 || (errno == EEXIST && !must_be_new))
		return 0;
	int e = errno;
	snprintf(err, errlen, "unable to create workspace %s: %s", path, strerror(e));
	if (scratch)
		(void)scratch_set(id, 0);
	errno = e;
	return -1;
}

/* The workspace ID (made up when id is empty: a new one, scratch; a name
 * given keeps it, scratch or not): a private directory. */
int ws_make(char *id, size_t idlen, int create, char *err, size_t errlen)
{
	if (*id) {
		ws_keep(id);
		return ws_mkdir(id, create, 0, err, errlen);
	}
	for (int i = 0; i < 8; i++) {
		char hex[13];
		mcp_random_hex(hex, 6);
		snprintf(id, idlen, "ws-%s", hex);
		int r = ws_mkdir(id, 1, cfg.scratch_ttl_ms != 0, err, errlen);
		if (r == 0 || errno != EEXIST)
			return r;       /* EEXIST: the name is taken, another */
	}
	return -1;
}

/* The workspace's directory, open: a descriptor, or -1 with err set. With
 * create, a missing workspace is made (as run_code does). */
int ws_open(const char *id, int create, char *err, size_t len)
{
	int root = open(cfg.workspaces, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (root < 0) {
		snprintf(err, len, "unable to open %s: %s", cfg.workspaces, strerror(errno));
		return -1;
	}
	int fd = fs_openat2(root, id, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0 && errno == ENOENT && create) {
		if (mkdirat(root, id, 0700) < 0 && errno != EEXIST) {
			snprintf(err, len, "unable to create workspace %s: %s", id, strerror(errno));
			close(root);
			return -1;
		}
		fd = fs_openat2(root, id, O_RDONLY | O_DIRECTORY, 0);
	}
	if (fd >= 0) {
		close(root);
		return ws_view_open(id, fd, err, len);  /* a live session's view (below) */
	}
	if (fd < 0) {
		if (errno == ENOENT)
			snprintf(err, len, "no workspace %s (list_workspaces shows them)", id);
		else
			snprintf(err, len, "workspace %s: %s", id, errno == ELOOP ?
				 "is a symbolic link: sr-mcp follows none" : strerror(errno));
	}
	close(root);
	return fd;
}

/* ---- a workspace with a live session: its view ---------------------------
 * The session's interpreter runs under sr-jail --quota --control
 * STATE/SIZES/ID.ctl (beside the workspace's size cache; runners find it
 * there as "$SR_WORKSPACE_QUOTA_CACHE.ctl"): what it writes goes to the
 * quota's tmpfs, which the kernel caps, and reaches the workspace's
 * directory when that jail applies it. Meanwhile the directory must change
 * only through the jail: overlayfs caches a name it did not find, so a
 * file written into the directory itself may stay invisible to the
 * session. So, while a session serves that socket, ws_open hands the
 * host's tools the jail's view of the workspace (a descriptor the socket
 * sends): what they read is what the session sees, what they write the
 * session sees at once and counts against the same tmpfs; after a write,
 * the jail is asked to apply (ws_size_add, ws_size_forget), so that the
 * directory has it when the tool answers. Runs (sr-jail --view-from that
 * socket) and installs do the same from their own jails. */

#define VIEW_WAIT_MS 60000      /* the jail may be applying: it stops its processes */

int ws_ctl_path(const char *id, char *buf, size_t len)
{
	if (!cfg.ws_quota || !cfg.state_dir || ws_size_path(id, buf, len) < 0 ||
	    strlen(buf) + 5 > len) {
		if (len)
			*buf = '\0';
		return -1;
	}
	strcat(buf, ".ctl");    /* beside the size cache; an ID has no dot */
	return 0;
}

/* The socket at path, connected through descriptors that follow no link
 * (sun_path is short; /proc/self/fd/N of the socket itself): a socket, or
 * -1 with errno (ENOENT, ECONNREFUSED: nothing serves it). */
static int ctl_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	const char *slash = strrchr(path, '/');
	char dir[4200];
	int s = -1, e;
	if (!slash || (size_t)(slash - path) >= sizeof dir) {
		errno = EINVAL;
		return -1;
	}
	snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
	int dfd = open(*dir ? dir : "/", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int at = dfd < 0 ? -1 : openat(dfd, slash + 1, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (at >= 0 && fstat(at, &st) == 0 && !S_ISSOCK(st.st_mode)) {
		errno = ENOTSOCK;
	} else if (at >= 0) {
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

int ws_ctl_served(const char *path)
{
	int s = ctl_connect(path);
	if (s >= 0)
		close(s);       /* the jail reads no request: nothing done */
	return s >= 0;
}

int ws_ctl_ask(const char *path, const char *req, unsigned timeout_ms, char *line,
	       size_t len, int *fd)
{
	struct timeval tv = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 };
	ssize_t n = -1;
	*line = '\0';
	if (fd)
		*fd = -1;
	int s = ctl_connect(path);
	if (s < 0) {
		if (errno == ENOENT || errno == ECONNREFUSED)
			return 1;
		snprintf(line, len, "the session's control socket: %s", strerror(errno));
		return -1;
	}
	(void)setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	(void)setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	n = sr_ask(s, req, line, len, fd);
	int e = n < 0 ? errno : 0;
	close(s);
	if (n > 0)
		return 0;
	if (n == 0 || e == ECONNRESET || e == EPIPE)
		return 1;       /* the jail ended meanwhile: it applied all as it ended */
	snprintf(line, len, "no answer from the session's jail within %u s", timeout_ms / 1000);
	return -1;
}

/* The view of workspace id's live session, a directory descriptor: >= 0;
 * -2 when no session serves it; -1 with err when one does but its view
 * could not be had (then nothing may write the directory itself). */
static int view_of(const char *id, char *err, size_t len)
{
	char path[4300], line[600];
	int fd;
	if (ws_ctl_path(id, path, sizeof path) < 0)
		return -2;
	int r = ws_ctl_ask(path, "view\n", VIEW_WAIT_MS, line, sizeof line, &fd);
	if (r == 1)
		return -2;
	if (r == 0 && fd >= 0) {
		int dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		int e = errno;
		close(fd);
		if (dfd >= 0)
			return dfd;
		snprintf(line, sizeof line, "its view: %s", strerror(e));
	} else if (r == 0) {
		snprintf(line, sizeof line, "%.500s", *line ? line : "no view sent");
	}
	snprintf(err, len, "workspace %s has a live session whose files could not be reached "
		 "(%s): try again, or close_session", id, line);
	return -1;
}

int ws_view_open(const char *id, int host_fd, char *err, size_t len)
{
	int v = view_of(id, err, len);
	if (v == -2)
		return host_fd;
	close(host_fd);
	return v;
}

int ws_is_view(int wfd)
{
	struct stat a, b;
	return fstat(wfd, &a) == 0 && stat(cfg.workspaces, &b) == 0 && a.st_dev != b.st_dev;
}

int ws_sync(const char *id, char *why, size_t len)
{
	char path[4300], line[600];
	if (ws_ctl_path(id, path, sizeof path) < 0)
		return 1;
	int r = ws_ctl_ask(path, "apply\n", VIEW_WAIT_MS, line, sizeof line, NULL);
	if (r == 1 || (r == 0 && strcmp(line, "ok") == 0))
		return r == 1 ? 1 : 0;
	if (r == 0 && strcmp(line, "ok full") == 0) {
		snprintf(why, len, "the workspace reached its quota: writes past it failed (ENOSPC)");
		return 2;
	}
	snprintf(why, len, "%.500s", line);
	mcp_log("workspace %s: its session's jail did not apply: %s", id, line);
	return -1;
}
