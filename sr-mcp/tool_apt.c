/* tool_apt.c - install_packages' apt: Debian packages into a workspace's
 * layer (STATE/ws-layer/WS), which sr-jail lays over the environment's
 * root for that workspace's later runs in that environment. Here: the
 * environment (one whose root has /usr/bin/apt-get), the mirror hosts of
 * its apt sources (the install's only network, through sr-net), the
 * layer made and recorded for that root; and what the result says of
 * apt's packages. The installer, RUNNERS/install/apt, does the rest in
 * the sandbox (see it). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "mcp.h"
#include "proto.h"
#include "tool.h"
#include "ws.h"
#include "sr.h"

#define APT_HOSTS_MAX 16
#define APT_SOURCES_MAX (256 << 10)     /* bytes read of one sources file */

/* " --allow HOST[:PORT]" onto rules for the http(s) URL at u (after
 * "://"), unless it is there or the host is not a plain name. */
static void add_host(const char *u, int https, char *rules, size_t len, int *n)
{
	size_t h = strspn(u, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-");
	size_t p = u[h] == ':' ? strspn(u + h + 1, "0123456789") : 0;
	if (h == 0 || h > 253 || (u[h] == ':' && (p == 0 || p > 5)) || *n >= APT_HOSTS_MAX)
		return;
	char rule[300];
	if (p)
		snprintf(rule, sizeof rule, " --allow %.*s:%.*s", (int)h, u, (int)p, u + h + 1);
	else
		snprintf(rule, sizeof rule, " --allow %.*s:%s", (int)h, u, https ? "443" : "80");
	char *at = strstr(rules, rule);
	if (at && (at[strlen(rule)] == ' ' || !at[strlen(rule)]))
		return;
	if (strlen(rules) + strlen(rule) < len) {
		strcat(rules, rule);
		(*n)++;
	}
}

/* The mirrors of one sources file's text (one-line "deb URI ..." or
 * deb822 "URIs: URI ..."; comments skipped). */
static void hosts_of(const char *text, char *rules, size_t len, int *n)
{
	for (const char *l = text; *l; l += strcspn(l, "\n"), l += *l == '\n') {
		l += strspn(l, " \t");
		size_t end = strcspn(l, "\n");
		if (*l == '#' || (strncmp(l, "deb", 3) && strncmp(l, "URIs:", 5)))
			continue;
		for (const char *u = l; (u = strstr(u, "://")) && u < l + end; u += 3) {
			int https = u - l >= 5 && !strncmp(u - 5, "https", 5);
			if (https || (u - l >= 4 && !strncmp(u - 4, "http", 4)))
				add_host(u + 3, https, rules, len, n);
		}
	}
}

/* One sources file, dir/name beneath root fd d, into the rules. */
static void sources_file(int d, const char *path, char *rules, size_t len, int *n)
{
	int fd = openat(d, path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return;
	char *buf = xmalloc(APT_SOURCES_MAX + 1);
	size_t got = 0;
	ssize_t k;
	while (got < APT_SOURCES_MAX && (k = read(fd, buf + got, APT_SOURCES_MAX - got)) > 0)
		got += (size_t)k;
	buf[got] = '\0';
	close(fd);
	hosts_of(buf, rules, len, n);
	free(buf);
}

/* sr-net's rules for the mirrors of root's apt sources (sources.list and
 * sources.list.d's *.list and *.sources): how many hosts. */
static int mirror_rules(const char *root, char *rules, size_t len)
{
	int n = 0, d = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	rules[0] = '\0';
	if (d < 0)
		return 0;
	sources_file(d, "etc/apt/sources.list", rules, len, &n);
	int sd = openat(d, "etc/apt/sources.list.d", O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			O_CLOEXEC);
	DIR *dir = sd >= 0 ? fdopendir(sd) : NULL;
	struct dirent *e;
	while (dir && (e = readdir(dir))) {
		size_t k = strlen(e->d_name);
		char path[300];
		if ((k > 5 && !strcmp(e->d_name + k - 5, ".list")) ||
		    (k > 8 && !strcmp(e->d_name + k - 8, ".sources"))) {
			snprintf(path, sizeof path, "etc/apt/sources.list.d/%.250s", e->d_name);
			sources_file(d, path, rules, len, &n);
		}
	}
	if (dir)
		closedir(dir);
	else if (sd >= 0)
		close(sd);
	close(d);
	return n;
}

/* No environment with apt chosen: the error, naming those that have it. */
static void no_apt(struct proto_req *r, const char *name)
{
	char have[600] = "";
	cJSON *facts = tool_env_facts();
	const cJSON *f;
	int known;
	cJSON_ArrayForEach(f, facts) {
		const cJSON *nm = cJSON_GetObjectItem(f, "name");
		if (cJSON_IsString(nm) && tool_env_apt(tool_env_root(nm->valuestring, &known)))
			snprintf(have + strlen(have), sizeof have - strlen(have), "%s%s",
				 have[0] ? ", " : "", nm->valuestring);
	}
	cJSON_Delete(facts);
	if (have[0])
		tool_error(r, "Nothing was installed: apt installs into an environment that has it, "
			   "and %s %s. Call install_packages again with environment set to one of: "
			   "%s; then run_code with the same workspace_id and environment finds the "
			   "packages.", name ? name : "the default environment (the host's system)",
			   name ? "has no /usr/bin/apt-get" : "is not one", have);
	else
		tool_error(r, "Nothing was installed: apt installs into an environment that has it "
			   "(a Debian root given with --environment), and this server has none. Tell "
			   "the user; meanwhile use pip or npm, or the programs sandbox_info lists.");
}

int tool_apt_prepare(struct proto_req *r, const cJSON *args, const char *ws, struct tool_apt *a)
{
	const char *T = "install_packages", *name = NULL;
	int known;
	char err[4400];
	if (tool_arg_str(r, T, args, "environment", &name) < 0)
		return -1;
	const char *root = tool_env_root(name, &known);
	if (!known) {
		tool_bad_args(r, T, "environment must be one of those sandbox_info lists");
		return -1;
	}
	if (!root || !tool_env_apt(root)) {
		no_apt(r, name);
		return -1;
	}
	snprintf(a->env, sizeof a->env, "%s", name);
	if (mirror_rules(root, a->rules, sizeof a->rules) == 0) {
		tool_error(r, "Nothing was installed: the apt sources of environment %s name no "
			   "http or https mirror (its /etc/apt/sources.list). Tell the user.", name);
		return -1;
	}
	char layer[4200];
	int rc = ws_layer_make(ws, root, layer, sizeof layer, err, sizeof err);
	if (rc == -2) {
		tool_error(r, "Nothing was installed: the system packages of workspace %s were "
			   "installed for another environment (root %s), and a workspace's packages "
			   "belong to one. Install into a new workspace_id for environment %s.", ws,
			   err, name);
		return -1;
	}
	if (rc < 0) {
		tool_error(r, "The install could not be started: %s. Nothing was installed.", err);
		return -1;
	}
	snprintf(a->rootfs, sizeof a->rootfs, "SR_ROOTFS=%s", root);
	snprintf(a->layer, sizeof a->layer, "SR_APT_LAYER=%s", layer);
	a->extra[0] = a->rootfs;
	a->extra[1] = a->layer;
	a->extra[2] = NULL;
	return 0;
}

/* The executables of the installer's report ([name, version, [exe...]]),
 * as res's "executables" and a sentence in hint. */
void tool_apt_reply(cJSON *res, const char *out, const char *ws, const char *env, char *hint,
		    size_t len)
{
	cJSON *rep = cJSON_Parse(out ? out : ""), *exes = cJSON_AddArrayToObject(res, "executables");
	const cJSON *p, *e;
	char list[1000] = "";
	cJSON_ArrayForEach(p, rep)
		cJSON_ArrayForEach(e, cJSON_GetArrayItem(p, 2)) {
			if (!cJSON_IsString(e) || strspn(e->valuestring, "abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-") != strlen(e->valuestring) ||
			    cJSON_GetArraySize(exes) >= 200)
				continue;
			cJSON_AddItemToArray(exes, cJSON_CreateString(e->valuestring));
			if (strlen(list) + strlen(e->valuestring) + 3 < sizeof list)
				snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
					 list[0] ? ", " : "", e->valuestring);
		}
	cJSON_Delete(rep);
	cJSON_AddStringToObject(res, "environment", env);
	snprintf(hint, len, "run_code with workspace_id %s and environment %s finds them (other "
		 "workspaces and environments do not)%s%s. They were unpacked only: no maintainer "
		 "script ran (no postinst: no users, services or triggers; only simple "
		 "update-alternatives links were made).", ws, env, list[0] ? "; their programs: " :
		 "", list);
}

/* One sentence for failure f (tool_packages.c's causes) of an apt install;
 * what: " NAME" of the package the log names, or "". */
void tool_apt_failure(const char *f, const char *what, char *buf, size_t len)
{
	if (!strcmp(f, "index_unreachable"))
		snprintf(buf, len, "The sandbox could not reach the environment's Debian mirrors: "
			 "tell the user (the host cannot connect to them, or they are down).");
	else if (!strcmp(f, "no_such_package"))
		snprintf(buf, len, "The environment's Debian archive has no package%s it can "
			 "install: check the name (Debian's, e.g. python3-numpy, not numpy).", what);
	else if (!strcmp(f, "no_matching_version"))
		snprintf(buf, len, "The archive has no such version of%s: ask for none (the "
			 "archive's) or one it has.", what);
	else if (!strcmp(f, "busy"))
		snprintf(buf, len, "Refused: another install into this workspace's packages was "
			 "still running when this call's time was up (they are busy: one install at "
			 "a time); nothing was installed. Try again when it is done.");
	else if (!strcmp(f, "quota"))
		snprintf(buf, len, "Refused: unpacked, the packages would take the workspace over "
			 "its quota (the log says by how much). Delete files it no longer needs, or "
			 "install fewer packages.");
	else
		snprintf(buf, len, "The install failed: the end of its log, below, says why (apt's "
			 "E: lines).");
}
