/* session_quota.c - the workspace quota of a live session, held by the
 * kernel. A session's interpreter runs under sr-jail --bind WS /workspace
 * --quota N --control SOCKET (its runner, session mode): what it writes
 * goes to the quota's tmpfs, sized to the room the workspace had left when
 * it started, so that a write past the quota fails with ENOSPC, space
 * reserved with fallocate and files written after their unlink included;
 * the jail applies it to the workspace's directory when asked. The first
 * session of a workspace serves its socket, beside its size cache
 * (ws_ctl_path); another one on the same workspace (another language, or
 * tenant) serves DIR/ctl and applies through the first one's view
 * (sr-jail --view-from). The session's directory names its socket in
 * DIR/serves. session_sync asks for an apply at the end of each call, so
 * that the workspace has the call's files when the call returns. Nothing
 * here walks the workspace. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mcp.h"
#include "session.h"
#include "sr.h"
#include "ws.h"

int session_serves(const char *dir, const char *ws, char *path, size_t len)
{
	char wsctl[4300];
	*path = '\0';
	if (!cfg.ws_quota)
		return 0;               /* no quota: the session binds the workspace */
	if (ws_ctl_path(ws, wsctl, sizeof wsctl) < 0)
		return -1;
	int served = ws_ctl_served(wsctl);
	if ((size_t)snprintf(path, len, "%s%s", served ? dir : wsctl, served ? "/ctl" : "") >= len)
		return -1;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int out = fd < 0 ? -1 : openat(fd, "serves", O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
				      O_CLOEXEC, 0600);
	int r = out >= 0 && sr_write_all(out, path, strlen(path)) == 0 ? 0 : -1;
	if (out >= 0)
		close(out);
	if (fd >= 0)
		close(fd);
	return r < 0 ? -1 : served ? 2 : 1;
}

int session_sync(int dir, unsigned timeout_ms, char *why, size_t len)
{
	char path[4300], line[600];
	ssize_t n = sr_read_small_at(dir, "serves", path, sizeof path);
	if (n <= 0)
		return SESSION_SYNC_NONE;       /* a session without a quota */
	path[strcspn(path, "\n")] = '\0';
	int r = ws_ctl_ask(path, "apply\n", timeout_ms, line, sizeof line, NULL);
	if (r == 1)
		return SESSION_SYNC_NONE;
	if (r == 0 && strcmp(line, "ok") == 0)
		return SESSION_SYNC_OK;
	if (r == 0 && strcmp(line, "ok full") == 0) {
		snprintf(why, len, "the workspace reached its quota: writes past it failed (ENOSPC)");
		return SESSION_SYNC_FULL;
	}
	snprintf(why, len, "%s", line);
	return r == 0 ? SESSION_SYNC_FAILED : -1;
}
