/* json.c - one-line JSON output through cJSON. */
#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sr.h"

static char *render_line(const cJSON *obj, size_t *len)
{
	char *s = cJSON_PrintUnformatted(obj);
	if (!s)
		return NULL;
	size_t n = strlen(s);
	char *line = realloc(s, n + 2);
	if (!line) {
		free(s);
		return NULL;
	}
	line[n] = '\n';
	line[n + 1] = '\0';
	*len = n + 1;
	return line;
}

int sr_json_write_line(int fd, const cJSON *obj)
{
	size_t len;
	char *line = render_line(obj, &len);
	if (!line) {
		errno = ENOMEM;
		return -1;
	}
	int r = sr_write_all(fd, line, len);
	int e = errno;
	free(line);
	errno = e;
	return r;
}

int sr_json_write_file(const char *path, const cJSON *obj)
{
	char tmp[PATH_MAX];
	int n = snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
	if (n < 0 || (size_t)n >= sizeof tmp) {
		errno = ENAMETOOLONG;
		return -1;
	}
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	if (sr_json_write_line(fd, obj) < 0 || fsync(fd) < 0) {
		int e = errno;
		close(fd);
		unlink(tmp);
		errno = e;
		return -1;
	}
	if (close(fd) < 0 || rename(tmp, path) < 0) {
		int e = errno;
		unlink(tmp);
		errno = e;
		return -1;
	}
	return 0;
}
