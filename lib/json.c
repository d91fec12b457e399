/* json.c - one-line JSON output through cJSON. */
#include <cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
	size_t len;
	char *line = render_line(obj, &len);
	if (!line) {
		errno = ENOMEM;
		return -1;
	}
	int r = sr_write_file_atomic(path, line, len);
	int e = errno;
	free(line);
	errno = e;
	return r;
}
