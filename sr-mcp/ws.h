/* ws.h - the workspaces layer (prefix ws_): a workspace's name, making
 * and opening it, its use stamp and the lock that orders a use against a
 * sweep, its size for the quota. Below it: fs, runners, spawn, text, util
 * (it calls fs, spawn and util).
 *
 *   workspace.c  all of it
 */
#ifndef SR_MCP_WS_H
#define SR_MCP_WS_H

#include <time.h>

#include "fs.h"

int ws_id_ok(const char *s);
/* The workspace ID (made up when id is empty): a private directory. */
int ws_make(char *id, size_t idlen, int create, char *err, size_t errlen);
/* A workspace's directory, open (made with create); err set on failure. */
int ws_open(const char *id, int create, char *err, size_t len);
/* STATE/workspaces.lock held (shared by a use, exclusive by a sweep):
 * an fd for ws_release, or -1 (then nothing is held). */
int ws_hold(int exclusive);
void ws_release(int fd);
void ws_touch(const char *id);          /* a run or a write: used now */
time_t ws_last_used(const char *id);
void ws_stamp_remove(const char *id);  /* the workspace is gone */
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
void ws_quota_probe(void);             /* in job_state_ready: the default quota works? */

#endif
