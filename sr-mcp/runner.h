/* runner.h - the runners layer (prefix runner_): the runners directory,
 * one executable file per language, and their versions.
 *
 *   runners.c  runner_load, runner_find, runner_versions, runner_trust,
 *              runner_trusted
 */
#ifndef SR_MCP_RUNNER_H
#define SR_MCP_RUNNER_H

#include <stddef.h>

/* One language: a runner file. */
struct runner {
	char name[65];          /* sanitised: [a-z0-9_-] */
	char *path;
	char *version;          /* first line of `RUNNER --version`, or NULL */
};
extern struct runner *runner_all;   /* sorted by name */
extern size_t runner_count;
void runner_load(void);
const struct runner *runner_find(const char *name);
void runner_versions(void);
/* The directories whose code runs (runners.c's head): checked at start
 * (fatal), and again before each run (-1 with err). */
void runner_trust(const char *what, const char *dir, int rootfs, int flags);
int runner_trusted(const char *runner, const char *const *extra, char *err, size_t len);

#endif
