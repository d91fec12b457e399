/* tool_recipe.c - what export_workspace writes beside its archive: a shell
 * recipe that unpacks it elsewhere, compares the languages and can install
 * the packages again, and a Dockerfile that rebuilds it as an image FROM
 * the environment's (NAME.Dockerfile). Both name only packages whose
 * names and versions are plain: what the sandboxed code wrote is data. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "fs.h"
#include "mcp.h"
#include "runner.h"
#include "tool.h"
#include "ws.h"
#include "sr.h"

/* A name safe inside '...' in a shell and on a comment line. */
static int shell_safe(const char *s, const char *extra)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      strchr(extra, *s)))
			return 0;
	return 1;
}

void tool_put(char **b, size_t *len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	*b = realloc(*b, *len + (size_t)n + 1);
	if (!*b)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	va_start(ap, fmt);
	vsnprintf(*b + *len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	*len += (size_t)n;
}

/* The pip packages of .sr/python (NAME-VERSION.dist-info), as
 * 'NAME==VERSION' words; names that are not plain are left out and
 * counted in *odd. */
static char *pip_packages(int wfd, size_t *count, size_t *odd)
{
	char *out = xstrdup("");
	size_t len = 0;
	*count = *odd = 0;
	int d = fs_openat2(wfd, ".sr/python", O_RDONLY | O_DIRECTORY, 0);
	DIR *dir = d >= 0 ? fdopendir(d) : NULL;
	if (!dir) {
		if (d >= 0)
			close(d);
		return out;
	}
	struct dirent *e;
	while ((e = readdir(dir)) && *count < 2000) {
		size_t n = strlen(e->d_name);
		if (n <= 10 || strcmp(e->d_name + n - 10, ".dist-info"))
			continue;
		char name[256];
		snprintf(name, sizeof name, "%.*s", (int)(n - 10), e->d_name);
		char *dash = strchr(name, '-');
		if (!dash || !shell_safe(dash + 1, ".+!_") || (*dash = '\0', !shell_safe(name, "._"))) {
			(*odd)++;
			continue;
		}
		tool_put(&out, &len, " '%s==%s'", name, dash + 1);
		(*count)++;
	}
	closedir(dir);
	return out;
}

/* package.json's dependencies, for the comment: "name@spec" words. */
static char *npm_packages(int wfd, int *has)
{
	char *out = xstrdup("");
	size_t len = 0;
	cJSON *deps = tool_npm_deps(wfd, has, NULL, NULL);
	const cJSON *d;
	/* a registry name and version only, as install_packages takes: no
	 * git, URL or path that npm would act on outside the sandbox */
	cJSON_ArrayForEach(d, deps)
		if (shell_safe(d->valuestring, "@/._~-^<>=*|+") && len < 4000)
			tool_put(&out, &len, " '%s'", d->valuestring);
	cJSON_Delete(deps);
	return out;
}

/* A version line for a comment: printable ASCII, no quote. */
static void plain(char *dst, size_t n, const char *s)
{
	size_t i = 0;
	for (; s && *s && i + 1 < n; s++)
		dst[i++] = *s >= ' ' && *s < 127 && *s != '\'' && *s != '\\' ? *s : '?';
	dst[i] = '\0';
}

/* The recipe's languages: sr-mcp's runners then, this machine now. */
static void recipe_languages(char **bp, size_t *lp)
{
	static const struct { const char *runner, *cmd; } probe[] = {
		{ "python", "python3 --version" }, { "javascript", "node --version" },
		{ "bash", "bash --version" }, { "typescript", "tsc --version" },
	};
	runner_versions();
	for (size_t i = 0; i < runner_count; i++) {
		char v[200];
		plain(v, sizeof v, runner_all[i].version ? runner_all[i].version : "(unknown)");
		const char *cmd = NULL;
		for (size_t k = 0; k < sizeof probe / sizeof *probe; k++)
			if (!strcmp(probe[k].runner, runner_all[i].name))
				cmd = probe[k].cmd;
		if (cmd)
			tool_put(bp, lp, "printf '%%s\\n' \"%s: was '%s', here: $(%s 2>&1 | head -n 1 "
			    "|| true)\"\n", runner_all[i].name, v, cmd);
		else
			tool_put(bp, lp, "# %s: %s\n", runner_all[i].name, v);
	}
}

/* The workspace's packages, for the recipe: pip's (their specs, how many,
 * how many left out) and npm's (has_npm: a package.json). */
struct recipe_pkgs {
	char *pip, *npm;
	size_t npip, odd;
	int has_npm;
};

/* The recipe's packages: pip's (--target .sr/python) and npm's, listed,
 * installed again with SR_INSTALL=1. */
static void recipe_packages(char **bp, size_t *lp, const struct recipe_pkgs *k)
{
	const char *pip = k->pip, *npm = k->npm;
	size_t npip = k->npip, odd = k->odd;
	int has_npm = k->has_npm;
	tool_put(bp, lp, "\n# The packages%s.\n", !npip && !has_npm ? ": none were installed" : "");
	if (npip)
		tool_put(bp, lp, "# pip's in .sr/python (pip install --target), with their versions%s.\n",
		    odd ? " (some with unusual names left out)" : "");
	if (has_npm)
		tool_put(bp, lp, "# npm's in package.json:%s\n", npm);
	if (npip || has_npm) {
		tool_put(bp, lp, "if [ \"${SR_INSTALL-}\" = 1 ]; then\n\tcd -- \"$dir\"\n");
		if (npip)
			tool_put(bp, lp, "\tpython3 -I -m pip install --upgrade --target .sr/python%s\n",
			    pip);
		/* npm in a directory of its own, then its tree moved in: npm reads
		 * no .npmrc or package.json the sandboxed code wrote */
		if (has_npm && *npm)
			tool_put(bp, lp, "\tt=$(mktemp -d)\n"
			    "\techo '{}' > \"$t/package.json\"\n"
			    "\t(cd \"$t\" && npm install --ignore-scripts --no-audit --no-fund%s)\n"
			    "\trm -rf node_modules && mv \"$t/node_modules\" node_modules && rm -rf \"$t\"\n",
			    npm);
		tool_put(bp, lp, "else\n\techo \"packages: not installed (SR_INSTALL=1 installs "
		    "them; the archive has them)\"\nfi\n");
	}
}

char *tool_recipe(int wfd, const char *ws, const char *archive, const char *when)
{
	char *b = NULL;
	size_t len = 0;
	struct recipe_pkgs k;
	k.pip = pip_packages(wfd, &k.npip, &k.odd);
	k.npm = npm_packages(wfd, &k.has_npm);
	tool_put(&b, &len,
	    "#!/bin/sh\n"
	    "# Rebuilds workspace %s of sr-mcp, exported %s by sr-mcp %s:\n"
	    "#   sh THIS-SCRIPT [DIR]\n"
	    "# unpacks %s (beside this script) into DIR (default ./%s)\n"
	    "# and compares the languages with those sr-mcp ran; with SR_INSTALL=1 it\n"
	    "# also installs again, from the registries, the packages the workspace had\n"
	    "# (the archive holds them already). In sr-mcp the files were under\n"
	    "# /workspace, the working directory of every run.\n"
	    "# The files were written by code run in the sandbox: links in them may\n"
	    "# point anywhere, and package.json or .npmrc may ask npm for anything.\n"
	    "# SR_INSTALL=1 reads none of them: pip runs as python3 -I (the directory\n"
	    "# off Python's path), npm with --ignore-scripts in a new directory of its\n"
	    "# own (no .npmrc or package.json of the archive's), only for the registry\n"
	    "# names and versions listed here.\n"
	    "# It refuses to run as root: what sandboxed code wrote is not root's to\n"
	    "# unpack (set-ID bits and owners are dropped, but do not rely on that).\n"
	    "set -eu\n"
	    "if [ \"$(id -u)\" = 0 ]; then\n"
	    "\techo \"$0: refusing to run as root: the files were written by sandboxed code; "
	    "run it as an ordinary user\" >&2\n"
	    "\texit 1\n"
	    "fi\n"
	    "here=$(CDPATH= cd -- \"$(dirname -- \"$0\")\" && pwd)\n"
	    "dir=${1:-%s}\n"
	    "mkdir -p -- \"$dir\"\n"
	    "tar -xzf \"$here/%s\" -C \"$dir\" --no-same-owner --no-same-permissions\n"
	    "echo \"unpacked %s into $dir\"\n\n"
	    "# The languages: sr-mcp's runners then, this machine now.\n",
	    ws, when, SR_VERSION, archive, ws, ws, archive, archive);
	recipe_languages(&b, &len);
	recipe_packages(&b, &len, &k);
	free(k.pip);
	free(k.npm);
	return b;
}

/* ---- the Dockerfile ------------------------------------------------------ */

/* The image a Dockerfile starts FROM: the "ref" of ROOT.sr-image.json (an
 * environment made from an OCI image) when it is plain, else debian:12
 * (the host's system, or a root built by hand); 1 when it is a ref. */
static int docker_base(const char *root, char *ref, size_t len)
{
	snprintf(ref, len, "debian:12");
	char path[4200];
	if (!root || snprintf(path, sizeof path, "%s.sr-image.json", root) >= (int)sizeof path)
		return 0;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), image = 0;
	if (fd < 0)
		return 0;
	size_t got = 0;
	char *text = fs_read_fd(fd, 65536, &got);
	close(fd);
	cJSON *j = text ? cJSON_ParseWithLength(text, got) : NULL;
	const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(j, "ref"));
	if (v && strlen(v) < len && shell_safe(v, "._-/:@")) {
		snprintf(ref, len, "%s", v);
		image = 1;
	}
	cJSON_Delete(j);
	free(text);
	return image;
}

/* debian:12 has no interpreter: those of sr-mcp's runners, from apt. */
static void docker_languages(char **bp, size_t *lp, const struct recipe_pkgs *k)
{
	char pkgs[200] = "";
	for (size_t i = 0; i < runner_count; i++) {
		const char *n = runner_all[i].name;
		const char *p = !strcmp(n, "python") ? (k->npip ? " python3 python3-pip" : " python3") :
				!strcmp(n, "javascript") ? (*k->npm ? " nodejs npm" : " nodejs") :
				!strcmp(n, "typescript") ? " node-typescript" : "";
		if (strlen(pkgs) + strlen(p) < sizeof pkgs && !strstr(pkgs, p))
			strcat(pkgs, p);
	}
	if (*pkgs)
		tool_put(bp, lp, "# The languages sr-mcp ran, from Debian.\n"
		    "RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y "
		    "--no-install-recommends%s && rm -rf /var/lib/apt/lists/*\n", pkgs);
}

/* The Debian packages install_packages' apt unpacked into the workspace's
 * layer for this root (its list, LAYER/var/lib/sr/apt-packages: "NAME
 * VERSION PROGRAMS" a line), installed again by name: the image's apt picks
 * the versions. Names other than Debian's are left out. */
static void docker_apt(char **bp, size_t *lp, const char *ws, const char *root)
{
	char layer[4200], path[4300], names[4000] = "";
	if (!root || ws_layer_path(ws, root, layer, sizeof layer) < 0 ||
	    snprintf(path, sizeof path, "%s/var/lib/sr/apt-packages", layer) >= (int)sizeof path)
		return;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	size_t got = 0;
	char *text = fd >= 0 ? fs_read_fd(fd, 1 << 20, &got) : NULL, *save = NULL;
	if (fd >= 0)
		close(fd);
	for (char *line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		line[strcspn(line, " ")] = '\0';
		size_t n = strlen(line), have = strlen(names);
		if (n > 1 && line[0] != '-' && line[0] != '.' && line[0] != '+' &&
		    line[n - 1] != '-' && line[n - 1] != '+' && shell_safe(line, "+.-") &&
		    !strpbrk(line, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") && have + n + 2 < sizeof names)
			snprintf(names + have, sizeof names - have, " %s", line);
	}
	free(text);
	if (*names)
		tool_put(bp, lp, "# The Debian packages install_packages put in the workspace's layer.\n"
		    "RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y "
		    "--no-install-recommends%s && rm -rf /var/lib/apt/lists/*\n", names);
}

/* The packages, installed again for the image's interpreters: pip's into
 * .sr/python (on PYTHONPATH, as in sr-mcp), npm's in a directory of their
 * own (no .npmrc or package.json of the archive's read), then moved in. */
static void docker_packages(char **bp, size_t *lp, const struct recipe_pkgs *k)
{
	if (k->npip)
		tool_put(bp, lp, "# pip's, as they were in .sr/python%s.\n"
		    "ENV PYTHONPATH=/workspace/.sr/python\n"
		    "RUN PIP_BREAK_SYSTEM_PACKAGES=1 python3 -I -m pip install --no-cache-dir "
		    "--upgrade --target /workspace/.sr/python%s\n",
		    k->odd ? " (some with unusual names left out)" : "", k->pip);
	if (k->has_npm && *k->npm)
		tool_put(bp, lp, "# npm's, from package.json (registry names and versions only).\n"
		    "RUN t=$(mktemp -d) && echo '{}' > \"$t/package.json\" && (cd \"$t\" && npm "
		    "install --ignore-scripts --no-audit --no-fund%s) && rm -rf node_modules && "
		    "mv \"$t/node_modules\" node_modules && rm -rf \"$t\"\n", k->npm);
}

char *tool_dockerfile(int wfd, const char *ws, const char *stem, const char *root,
		      const char *when)
{
	char *b = NULL, ref[256];
	size_t len = 0;
	struct recipe_pkgs k;
	k.pip = pip_packages(wfd, &k.npip, &k.odd);
	k.npm = npm_packages(wfd, &k.has_npm);
	int image = docker_base(root, ref, sizeof ref);
	tool_put(&b, &len,
	    "# Rebuilds workspace %s of sr-mcp, exported %s by sr-mcp %s, as an image:\n"
	    "#   docker build -f %s.Dockerfile -t sr-workspace .\n"
	    "#   docker run --rm -it sr-workspace\n"
	    "# in the directory that holds %s.tar.gz (the build context). FROM %s.\n"
	    "# The files were written by code run in the sandbox: the image holds them\n"
	    "# as data (links as links, set-ID bits dropped); nothing of them runs\n"
	    "# while it is built.\n"
	    "FROM %s\n", ws, when, SR_VERSION, stem, stem, image ? "the environment's image" :
	    root ? "debian:12 (the environment was built by hand)" : "debian:12 (the host's "
	    "system was the environment)", ref);
	if (!image)
		docker_languages(&b, &len, &k);
	docker_apt(&b, &len, ws, root);
	tool_put(&b, &len, "WORKDIR /workspace\n# The workspace's files (ADD unpacks the archive).\n"
	    "ADD %s.tar.gz /workspace/\n", stem);
	docker_packages(&b, &len, &k);
	free(k.pip);
	free(k.npm);
	return b;
}
