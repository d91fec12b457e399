/* runners.c - the languages: one executable file per language in the
 * runners directory. Its name, made safe ([a-z0-9_-], at most 64), is a
 * value of run_code's language. Hidden files and what is not an
 * executable regular file are skipped; a directory with none ends sr-mcp
 * at start. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner.h"
#include "sr.h"

struct runner *runner_all;
size_t runner_count;

static void sanitise(char *dst, const char *name)
{
	size_t i = 0;
	for (; name[i] && i < 64; i++) {
		char c = name[i];
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		dst[i] = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ? c : '_';
	}
	dst[i] = '\0';
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct runner *)a)->name, ((const struct runner *)b)->name);
}

/* What a start without runners tells the user to do. */
#define RUNNERS_FIX "name the runners directory with --runners or SR_MCP_RUNNERS " \
	"(make install puts one runner per language in PREFIX/share/sr/sr-mcp/runners)"

/* At start: a server with no language could run nothing, so sr-mcp ends
 * (exit 111, one line naming the directory and the fix) before it reads a
 * request. */
void runner_load(void)
{
	DIR *d = opendir(cfg.runners_dir);
	struct dirent *de;
	if (d && faccessat(dirfd(d), ".", X_OK, AT_EACCESS) < 0) {   /* listed, not searched */
		int e = errno;
		closedir(d);
		d = NULL;
		errno = e;
	}
	if (!d)
		sr_fatal(SR_EXIT_SYS, "unable to read the runners directory %s: %s; " RUNNERS_FIX,
			 cfg.runners_dir, strerror(errno));
	while ((de = readdir(d)) != NULL) {
		struct stat st;
		if (de->d_name[0] == '.' || fstatat(dirfd(d), de->d_name, &st, 0) < 0 ||
		    !S_ISREG(st.st_mode) || faccessat(dirfd(d), de->d_name, X_OK, 0) < 0)
			continue;
		struct runner r = {0};
		sanitise(r.name, de->d_name);
		if (runner_find(r.name))
			continue;  /* two names made the same: the first wins */
		if (asprintf(&r.path, "%s/%s", cfg.runners_dir, de->d_name) < 0)
			sr_fatal(SR_EXIT_SYS, "out of memory");
		struct runner *nr = realloc(runner_all, (runner_count + 1) * sizeof *nr);
		if (!nr)
			sr_fatal(SR_EXIT_SYS, "out of memory");
		runner_all = nr;
		runner_all[runner_count++] = r;
	}
	closedir(d);
	if (!runner_count)
		sr_fatal(SR_EXIT_SYS, "no runner in the runners directory %s: it holds no "
			 "executable file (hidden files are skipped); " RUNNERS_FIX, cfg.runners_dir);
	qsort(runner_all, runner_count, sizeof *runner_all, by_name);
}

const struct runner *runner_find(const char *name)
{
	for (size_t i = 0; i < runner_count; i++)
		if (strcmp(runner_all[i].name, name) == 0)
			return &runner_all[i];
	return NULL;
}

/* `RUNNER --version`: the language's version, for sandbox_info. Asked
 * once, on first use. */
void runner_versions(void)
{
	static pthread_mutex_t once = PTHREAD_MUTEX_INITIALIZER;
	static int done;
	pthread_mutex_lock(&once);
	for (size_t i = 0; !done && i < runner_count; i++) {
		char *out, *argv[] = { runner_all[i].path, "--version", NULL };
		if (spawn_capture(argv, &out, 4096, 1) == 0 && out) {
			out[strcspn(out, "\n")] = '\0';
			runner_all[i].version = out;
		} else {
			free(out);
		}
	}
	done = 1;
	pthread_mutex_unlock(&once);
}
