/* runner.h - the runners layer (prefix runner_): the runners directory,
 * one executable file per language, and their versions. Below it: spawn,
 * text, util.
 *
 *   runners.c  runner_load, runner_find, runner_versions
 */
#ifndef SR_MCP_RUNNER_H
#define SR_MCP_RUNNER_H

#include "spawn.h"

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

#endif
