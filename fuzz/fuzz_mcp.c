/* fuzz_mcp.c - sr-mcp's message handling: lines in, replies out, with
 * the server's state (the negotiated version, the client's name, calls in
 * flight) kept from one line and one input to the next, as in a session.
 *
 * The input is split at newlines like sr-mcp's read loop does, and each
 * line goes to proto_line (as an exact-size copy, so that a read past its
 * end is seen). tools/call and the tasks/ methods are fuzzed too: sr-mcp's own code
 * serves them on their threads, but mcp_stub.c stands in for spawn.c, so
 * no sandbox and no process is ever started (see mcp_stub.c). After each
 * input the target waits for the calls in flight to finish.
 *
 * fd 1, sr-mcp's protocol stream, is a memfd here: after each input every
 * line written must be a JSON-RPC 2.0 message (an object with "jsonrpc":
 * "2.0" and a result, an error or a method) or a batch of them, and the
 * memfd is emptied. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "mcp.h"
#include "proto.h"
#include "runner.h"
#include "text.h"
#include "tool.h"
#include "sr.h"

static char state[4096];

static void rm_tree(const char *path)
{
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
	if (system(cmd) != 0)
		fprintf(stderr, "fuzz_mcp: unable to remove %s\n", path);
}

static void cleanup(void)
{
	rm_tree(state);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (fz_tmpdir(state, sizeof state, "sr-fuzz-mcp") < 0)
		abort();
	atexit(cleanup);
	cfg.state_dir = xstrdup(state);
	cfg.runners_dir = "/nonexistent";
	cfg.tools_dir = "/nonexistent";
	cfg_defaults();
	cfg.compat_sandrun = 1;
	static struct runner r[2] = { { .name = "bash" }, { .name = "python" } };
	r[0].path = "/nonexistent/bash";
	r[1].path = "/nonexistent/python";
	runner_all = r;
	runner_count = 2;
	tool_init();
	/* the protocol stream */
	int fd = memfd_create("sr-mcp-stdout", MFD_CLOEXEC);
	if (fd < 0 || dup2(fd, 1) < 0)
		abort();
	close(fd);
	return 0;
}

static int one_message(const cJSON *m)
{
	const cJSON *v = cJSON_GetObjectItem(m, "jsonrpc");
	if (!cJSON_IsObject(m) || !cJSON_IsString(v) || strcmp(v->valuestring, "2.0"))
		return 0;
	int kinds = (cJSON_GetObjectItem(m, "result") != NULL) +
		    (cJSON_GetObjectItem(m, "error") != NULL) +
		    cJSON_IsString(cJSON_GetObjectItem(m, "method"));
	return kinds == 1;
}

/* Every line written to fd 1 since the last look; then empty it. */
static void check_output(void)
{
	static int verbose = -1;
	if (verbose < 0)
		verbose = getenv("SR_FUZZ_VERBOSE") != NULL;
	struct stat st;
	if (fstat(1, &st) < 0)
		abort();
	size_t len = (size_t)st.st_size;
	char *buf = malloc(len + 1);
	if (!buf || pread(1, buf, len, 0) != (ssize_t)len)
		abort();
	buf[len] = '\0';
	if (len && buf[len - 1] != '\n') {
		fprintf(stderr, "fuzz_mcp: output does not end in a newline\n");
		abort();
	}
	for (char *line = buf, *nl; line < buf + len; line = nl + 1) {
		nl = strchr(line, '\n');
		*nl = '\0';
		if (verbose)
			fprintf(stderr, "< %s\n", line);
		size_t n = strlen(line);
		if (text_utf8(line, &n) != line) {    /* it had to change it */
			fprintf(stderr, "fuzz_mcp: a line out is not UTF-8: %s\n", line);
			abort();
		}
		cJSON *j = cJSON_Parse(line);
		int good = one_message(j);
		if (cJSON_IsArray(j)) {
			const cJSON *e;
			good = cJSON_GetArraySize(j) > 0;
			cJSON_ArrayForEach(e, j)
				good = good && one_message(e);
		}
		if (!good) {
			fprintf(stderr, "fuzz_mcp: not a JSON-RPC message: %s\n", line);
			abort();
		}
		cJSON_Delete(j);
	}
	free(buf);
	if (ftruncate(1, 0) < 0 || lseek(1, 0, SEEK_SET) < 0)
		abort();
}

/* What a run_code left behind: the workspaces it made, empty (the stub
 * submits nothing), removed without a process. */
static void clean_workspaces(void)
{
	DIR *d = cfg.workspaces ? opendir(cfg.workspaces) : NULL;
	struct dirent *e;
	if (!d)
		return;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.' || (e->d_name[1] && strcmp(e->d_name, "..")))
			unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);
	closedir(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;
	while (p < end) {
		const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		char *line = malloc(n ? n : 1);
		if (!line)
			abort();
		memcpy(line, p, n);
		proto_line(line, n);
		free(line);
		p += n + 1;
	}
	while (proto_inflight_count() > 0)
		sched_yield();
	check_output();
	struct stat st;
	if (cfg.workspaces && stat(cfg.workspaces, &st) == 0 && st.st_nlink > 2)
		clean_workspaces();
	return 0;
}
