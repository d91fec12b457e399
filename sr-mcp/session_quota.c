/* session_quota.c - the workspace quota of a live session. A session's
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
#include <pthread.h>
#include <stdio.h>
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
