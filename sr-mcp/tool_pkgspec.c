/* tool_pkgspec.c - which package specs install_packages and the export
 * recipe take: a registry name and a version, never a URL, a path or an
 * option. In the tools layer (under the tool files, which share it). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "fs.h"
#include "tool.h"
#include "sr.h"


static int alnum(char c)
{
	return (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'z');
}

/* How many characters of s from the set (alphanumerics and extra). */
static size_t span(const char *s, const char *extra)
{
	size_t n = 0;
	while (s[n] && (alnum(s[n]) || strchr(extra, s[n])))
		n++;
	return n;
}

static int ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);
	return a >= b && strcmp(s + a - b, tail) == 0;
}

/* pip: NAME, NAME[e1,e2], then clauses OP VERSION joined by commas. */
static int pip_spec_ok(const char *s)
{
	static const char *const ops[] = { "===", "==", "!=", "~=", "<=", ">=", "<", ">" };
	size_t n = span(s, "._-");
	if (n == 0 || !alnum(s[0]) || !alnum(s[n - 1]))
		return 0;
	s += n;
	if (*s == '[') {
		do {
			n = span(++s, "._-");
			if (n == 0)
				return 0;
			s += n;
		} while (*s == ',');
		if (*s++ != ']')
			return 0;
	}
	if (!*s)
		return 1;
	for (;;) {
		size_t i = 0;
		while (i < sizeof ops / sizeof *ops && strncmp(s, ops[i], strlen(ops[i])))
			i++;
		if (i == sizeof ops / sizeof *ops)
			return 0;
		s += strlen(ops[i]);
		if ((n = span(s, ".*+!_-")) == 0)
			return 0;
		s += n;
		if (!*s)
			return 1;
		if (*s++ != ',')
			return 0;
	}
}

/* npm: [@SCOPE/]NAME[@RANGE]; names lower case; ranges of versions,
 * tags and the operators ^ ~ < > = * | (no URL, path, alias or tarball). */
static int npm_spec_ok(const char *s)
{
	const char *p = s;
	size_t n;
	if (*p == '@') {
		if ((n = span(++p, "._-")) == 0 || !alnum(*p) || p[n] != '/')
			return 0;
		p += n + 1;
	}
	if ((n = span(p, "._-")) == 0 || !alnum(*p))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (p[i] >= 'A' && p[i] <= 'Z')
			return 0;
	p += n;
	if (*p == '@')
		return span(p + 1, ".^~<>=*|+_-") > 0 && !p[1 + span(p + 1, ".^~<>=*|+_-")];
	return !*p;
}

/* apt: a Debian package name (lower case letters, digits, + - . and at
 * least two, first a letter or digit; not ending in + or -, which apt-get
 * takes for "install" or "remove") with an optional =VERSION (letters,
 * digits, . + ~ : -). No option, path, release, architecture or pattern. */
static int apt_spec_ok(const char *s)
{
	size_t n = span(s, "+.-");
	if (n < 2 || !alnum(s[0]) || s[n - 1] == '+' || s[n - 1] == '-')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] >= 'A' && s[i] <= 'Z')
			return 0;
	if (s[n] == '=')
		return span(s + n + 1, ".+~:-") > 0 && alnum(s[n + 1]) &&
		       !s[n + 1 + span(s + n + 1, ".+~:-")];
	return !s[n];
}

int tool_package_spec_ok(const char *manager, const char *spec, char *why, size_t len)
{
	int pip = strcmp(manager, "pip") == 0, apt = strcmp(manager, "apt") == 0;
	int good = strlen(spec) <= TOOL_SPEC_MAX && spec[0] != '-' &&
		   (pip ? pip_spec_ok(spec) : apt ? apt_spec_ok(spec) : npm_spec_ok(spec));
	/* a name that ends like an archive is taken for a file by both */
	static const char *const files[] = { ".whl", ".zip", ".tar", ".tgz", ".gz", ".bz2", ".xz",
					     ".deb" };
	for (size_t i = 0; good && i < sizeof files / sizeof *files; i++)
		good = !ends_with(spec, files[i]);
	if (!good)
		snprintf(why, len, "'%.80s' is not a package spec %s takes here: give a registry name "
			 "with an optional version, %s (no options, URLs, paths or files)", spec,
			 manager, pip ? "NAME, NAME[extra], NAME==1.2 or NAME>=1,<2" : apt ?
			 "a Debian package name (figlet, libc6) or NAME=VERSION" :
			 "NAME, @SCOPE/NAME, NAME@1.2.3 or NAME@^1.2");
	return good;
}

cJSON *tool_npm_deps(int wfd, int *found, void (*left_out)(const char *name, void *ctx),
		     void *ctx)
{
	cJSON *all = cJSON_CreateArray(), *pj = NULL;
	char err[300], why[400], spec[TOOL_SPEC_MAX + 2];
	struct stat st;
	size_t got = 0;
	int fd = fs_file_open(&(struct fs_at){ wfd, "package.json", "package.json" }, O_RDONLY,
			      &st, err, sizeof err);
	*found = fd >= 0;
	if (fd >= 0 && st.st_size <= (1 << 20)) {
		char *text = fs_read_fd(fd, (size_t)st.st_size, &got);
		pj = text ? cJSON_ParseWithLength(text, got) : NULL;
		free(text);
	}
	if (fd >= 0)
		close(fd);
	const cJSON *dep, *deps = cJSON_GetObjectItem(pj, "dependencies");
	if (!cJSON_IsObject(deps))      /* an array's items have no name */
		deps = NULL;
	cJSON_ArrayForEach(dep, deps) {
		if (cJSON_IsString(dep) && (size_t)snprintf(spec, sizeof spec, "%s@%s", dep->string,
			dep->valuestring) < sizeof spec &&
		    tool_package_spec_ok("npm", spec, why, sizeof why))
			cJSON_AddItemToArray(all, cJSON_CreateString(spec));
		else if (left_out)
			left_out(dep->string, ctx);
	}
	cJSON_Delete(pj);
	return all;
}
