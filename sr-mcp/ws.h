/* ws.h - the workspaces layer (prefix ws_): a workspace's name, making
 * and opening it, its use stamp, scratch or kept, the lock that orders a
 * use against a sweep, its size for the quota.
 *
 *   workspace.c  all of it (and a workspace with a live session: its
 *                jail's view, its applies)
 */
#ifndef SR_MCP_WS_H
#define SR_MCP_WS_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

int ws_id_ok(const char *s);
/* The workspace ID (made up when id is empty: then scratch; a name given
 * keeps it): a private directory. */
int ws_make(char *id, size_t idlen, int create, char *err, size_t errlen);
/* A workspace's directory, open (made with create); err set on failure.
 * While a session of it lives, its view instead: read and
 * write through it, then ws_size_add or ws_size_forget, which apply. */
int ws_open(const char *id, int create, char *err, size_t len);
/* The socket of workspace id's live session (served by its jail, sr-jail
 * --control): its size cache's path and ".ctl" (STATE/SIZES/ID.ctl) in
 * buf; -1 ("") when there is no quota (no session is jailed so then) or
 * when it cannot be made. */
int ws_ctl_path(const char *id, char *buf, size_t len);
/* Does a jail serve the socket at path (a connection accepted)? */
int ws_ctl_served(const char *path);
/* One request (req: "apply\n", "view\n") to the socket at path, its
 * answer line in line (a descriptor sent with it in *fd, if fd): 0; 1 when
 * nothing serves it (or the jail ended before it answered); -1 with why in
 * line (no answer within timeout_ms, another error). */
int ws_ctl_ask(const char *path, const char *req, unsigned timeout_ms, char *line,
	       size_t len, int *fd);
/* host_fd (the directory of workspace id), or, when a session of it
 * lives, its view in its place (host_fd closed); -1 with err when a
 * session lives and its view could not be had (fail closed). */
int ws_view_open(const char *id, int host_fd, char *err, size_t len);
/* wfd is a session's view, not the workspaces' file system. */
int ws_is_view(int wfd);
/* Workspace id's live session asked to apply: 0, 1 (no session), 2 (it
 * did; its quota is reached: why), -1 (not applied: why; logged). */
int ws_sync(const char *id, char *why, size_t len);
/* STATE/workspaces.lock held (shared by a use, exclusive by a sweep):
 * an fd for ws_release, or -1 (then nothing is held). */
int ws_hold(int exclusive);
void ws_release(int fd);
void ws_touch(const char *id);          /* a run or a write: used now */
time_t ws_last_used(const char *id);
void ws_used_at(const char *id, time_t t);  /* used at t (its job's end), if later */
void ws_stamp_remove(const char *id);  /* the workspace is gone */
/* The workspace's layer, STATE/ws-layer/ID (what install_packages' apt
 * unpacked; runs in an environment get it as sr-jail --rootfs-layer): its
 * path, 0, or -1 and "" when it has none, or when it was made for another
 * root than the environment's root (ws_layer_make's record). */
int ws_layer_path(const char *id, const char *root, char *buf, size_t len);
/* The layer of id made (if it is not there) for the environment's root,
 * recorded (STATE/ws-layer/ID.root): 0 and its path in buf; -2 when it
 * was made for another root, named in err; -1 with err. */
int ws_layer_make(const char *id, const char *root, char *buf, size_t len, char *err,
		  size_t errlen);
/* Scratch: a workspace sr-mcp named (made without a workspace_id), removed
 * once unused for --scratch-ttl; ws_keep (a call named it) makes it kept,
 * removed once unused for --workspace-ttl. When it goes if unused until
 * then (0: never), *scratch set; a TTL as text ("1h", "7d"). */
int ws_scratch(const char *id);
void ws_keep(const char *id);
time_t ws_expires(const char *id, int *scratch);
void ws_ttl_text(uint64_t ms, char *buf, size_t len);
/* A workspace's size for its quota, from its size cache:
 * the cache's path (for sr-jail --quota-cache, its directory made; -1 and
 * "" when it cannot be), the size, bytes and inodes (measured when the
 * cache has none; -1 when a part could not be read),
 * what a change of a file tool added or removed, a change of unknown
 * size (the next use measures), and a workspace removed. */
int ws_size_path(const char *id, char *buf, size_t len);
struct sr_usage;
struct sr_delta;
int ws_size(const char *id, int wfd, struct sr_usage *u);
void ws_size_add(const char *id, int wfd, const struct sr_delta *d);
void ws_size_forget(const char *id);
void ws_size_remove(const char *id);   /* the workspace is gone */
void ws_quota_probe(void);
const char *ws_quota_note(void);      /* why the probe turned it off ("off: LINE"), or NULL */             /* in job_state_ready: the default quota works? */

#endif
