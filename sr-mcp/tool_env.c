/* tool_env.c - the environments a run may choose: "default", the host's
 * system, and those the administrator named with --environment NAME=DIR,
 * each a root file system that the runners hand to sr-jail --rootfs
 * (SR_ROOTFS). What each has (its OS, Python and the scientific modules
 * Python finds, Node.js, Bash) is probed once, in the sandbox, on first
 * use, for sandbox_info. Each root is checked at start as the runners
 * directory is, and again before each run (runners.c: runner_trust). */
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "job.h"
#include "mcp.h"
#include "oci.h"
#include "proto.h"
#include "runner.h"
#include "spawn.h"
#include "tool.h"
#include "sr.h"

#define ENV_MAX 16

struct environment {
	char name[33];
	char *dir;               /* resolved; NULL for the default */
	const char *extra[3];    /* "SR_ROOTFS=DIR" for the runner (an image's: */
	cJSON *facts;            /* "SR_IMAGE_JAIL=ARGS", oci.h); probed, or NULL */
	char *oci;               /* oci:SPEC, unpacked by tool_env_ready */
	cJSON *image;            /* its config, for sandbox_info */
};
static struct environment envs[ENV_MAX + 1] = { { .name = "default" } };
static size_t nenvs = 1;

/* The modules sandbox_info reports, found by importlib (nothing imported). */
#define ENV_MODULES "numpy pandas scipy matplotlib sklearn statsmodels seaborn openpyxl PIL " \
	"tabulate sympy"
static const char probe[] =
	". /etc/os-release 2>/dev/null && echo \"os $PRETTY_NAME\"\n"
	"command -v python3 >/dev/null && python3 -c 'import sys, importlib.util as u\n"
	"print(\"python\", sys.version.split()[0])\n"
	"print(\"python_modules\", *[m for m in sys.argv[1:] if u.find_spec(m)])' " ENV_MODULES "\n"
	"command -v node >/dev/null && echo \"node $(node --version)\"\n"
	"command -v bash >/dev/null && bash -c 'echo \"bash $BASH_VERSION\"'\n"
	"exit 0\n";

/* The root file system dir of environment e: resolved now (sr-jail
 * follows no link to it) and checked. */
static void env_root(struct environment *e, const char *opt, const char *dir)
{
	struct stat st;
	char *real = realpath(dir, NULL), usr[PATH_MAX + 8];
	snprintf(usr, sizeof usr, "%s/usr", real ? real : "");
	if (!real || stat(real, &st) < 0 || !S_ISDIR(st.st_mode) || stat(usr, &st) < 0)
		sr_usage("%s: '%s' is not a root file system (a directory with usr/ in it)",
			 opt, dir);
	/* What runs in it reads and writes the workspace: its path and the
	 * parts runs use must be out of every other user's reach (runners.c) */
	char what[PATH_MAX + 64];
	snprintf(what, sizeof what, "%s %s=%s", opt, e->name, real);
	runner_trust(what, real, 1, 0);
	e->dir = real;
	if (asprintf((char **)&e->extra[0], "SR_ROOTFS=%s", real) < 0)
		sr_fatal(SR_EXIT_SYS, "out of memory");
}

/* --environment NAME=DIR or NAME=oci:PATH[:REF]: a name of [a-z0-9_-]
 * (not "default") and a directory holding a root file system, or an
 * image unpacked at start (tool_env_ready). Fatal usage errors, at start. */
void tool_env_add(const char *opt, const char *arg)
{
	const char *eq = strchr(arg, '=');
	size_t n = eq ? (size_t)(eq - arg) : 0;
	int good = n > 0 && n < sizeof envs[0].name;
	for (size_t i = 0; good && i < n; i++)
		good = (arg[i] >= 'a' && arg[i] <= 'z') || (arg[i] >= '0' && arg[i] <= '9') ||
		       arg[i] == '_' || arg[i] == '-';
	if (!good || !strncmp(arg, "default=", 8))
		sr_usage("%s: expected NAME=DIR, NAME of a-z, 0-9, _ and - (not default): '%s'",
			 opt, arg);
	if (opt[0] != '-' && !strcmp(eq + 1, "oci"))
		sr_usage("%s: oci:PATH is split at its ':' in the variable: give it with "
			 "--environment %s", opt, arg);
	for (size_t i = 0; i < nenvs; i++)
		if (strlen(envs[i].name) == n && !strncmp(envs[i].name, arg, n))
			sr_usage("%s: the environment %.*s is named twice", opt, (int)n, arg);
	if (nenvs > ENV_MAX)
		sr_usage("%s: at most %d environments", opt, ENV_MAX);
	struct environment *e = &envs[nenvs++];
	memcpy(e->name, arg, n);
	if (!strncmp(eq + 1, "oci:", 4))
		e->oci = xstrdup(eq + 5);
	else
		env_root(e, opt, eq + 1);
}

/* The images of --environment NAME=oci:..., unpacked (or found unpacked)
 * in the state directory: at start, once it is known. */
void tool_env_ready(void)
{
	for (size_t i = 1; i < nenvs; i++) {
		struct environment *e = &envs[i];
		char what[300];
		struct oci_image im;
		if (!e->oci)
			continue;
		snprintf(what, sizeof what, "--environment %s=oci:%.200s", e->name, e->oci);
		oci_prepare(what, e->oci, &im);
		env_root(e, what, im.root);
		e->extra[1] = im.jail;
		e->image = im.facts;
		free(im.root);
	}
}

size_t tool_env_count(void)
{
	return nenvs;
}

static int env_has(struct environment *e, const char *lang);

/* run_code's environment argument: listed when there is a choice; else
 * taken (default) but not listed (TOOL_UNLISTED). */
void tool_env_schema(cJSON *props)
{
	cJSON *p = cJSON_AddObjectToObject(props, "environment");
	cJSON_AddStringToObject(p, "type", "string");
	cJSON *e = cJSON_AddArrayToObject(p, "enum");
	for (size_t i = 0; i < nenvs; i++)
		cJSON_AddItemToArray(e, cJSON_CreateString(envs[i].name));
	if (nenvs < 2)
		cJSON_AddTrueToObject(p, TOOL_UNLISTED);
	else
		cJSON_AddStringToObject(p, "description", "The system the code runs on (default: "
		"default, the host's, with Python's scientific stack); sandbox_info lists what "
		"each has. Workspaces are shared between them.");
}

const char *tool_env_root(const char *name, int *known)
{
	*known = 1;
	for (size_t i = 0; name && i < nenvs; i++)
		if (!strcmp(envs[i].name, name))
			return envs[i].dir;
	*known = !name;
	return NULL;
}

/* The environment argument of run_code: s->env_extra set for the runner;
 * 0, or -1 answered. */
int tool_env_pick(struct proto_req *r, const cJSON *args, struct run_spec *s)
{
	const char *name = NULL;
	if (tool_arg_str(r, "run_code", args, "environment", &name) < 0)
		return -1;
	for (size_t i = 0; name && i < nenvs; i++)
		if (!strcmp(envs[i].name, name)) {
			s->env_extra = envs[i].dir ? envs[i].extra : NULL;
			if (!envs[i].dir || env_has(&envs[i], s->runner->name))
				return 0;
			tool_error(r, "The environment %s has no interpreter for %s: run it in "
				   "another environment (sandbox_info lists what each has), or ask "
				   "the administrator to add it to %s.", name, s->runner->name,
				   envs[i].dir);
			return -1;
		}
	if (!name)
		return 0;
	char why[64 * (ENV_MAX + 1) + 100] = "environment must be one of:";
	for (size_t i = 0; i < nenvs; i++)
		snprintf(why + strlen(why), sizeof why - strlen(why), "%s %.32s", i ? "," : "",
			 envs[i].name);
	snprintf(why + strlen(why), sizeof why - strlen(why), " (sandbox_info says what each has)");
	tool_bad_args(r, "run_code", why);
	return -1;
}

/* One probe's output, "KEY value" lines, as an object. */
static cJSON *facts_of(const struct environment *e, const char *out)
{
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "name", e->name);
	cJSON_AddBoolToObject(f, "default", e->dir == NULL);
	for (const char *l = out; l && *l;) {
		size_t n = strcspn(l, "\n"), k = strcspn(l, " \n");
		char *line = xmalloc(n + 1);
		memcpy(line, l, n);
		line[n] = '\0';
		line[k] = '\0';
		const char *v = k < n ? line + k + 1 : "";
		if (!strcmp(line, "python_modules")) {
			cJSON *m = cJSON_AddArrayToObject(f, "python_modules");
			for (char *save = NULL, *w = strtok_r((char *)v, " ", &save); w;
			     w = strtok_r(NULL, " ", &save))
				cJSON_AddItemToArray(m, cJSON_CreateString(w));
		} else if (k < n && !cJSON_GetObjectItem(f, line)) {
			cJSON_AddStringToObject(f, line, v);
		}
		free(line);
		l += n + (l[n] == '\n');
	}
	return f;
}

/* e's facts, probed on first use (in the sandbox: the jail and the
 * filter, with the environment's rootfs); under lock. */
static const cJSON *env_probe(struct environment *e)
{
	char err[2 * PATH_MAX + 400];
	if (e->facts)
		return e->facts;
	if (e->dir && runner_trusted("", e->extra, err, sizeof err) < 0) {
		e->facts = facts_of(e, NULL);
		cJSON_AddStringToObject(e->facts, "error", err);
		return e->facts;
	}
	char *out = NULL, *argv[64], *image = e->extra[1] ? xstrdup(e->extra[1] + 14) : NULL;
	int k = 0;
	argv[k++] = "sr-jail";
	if (e->dir) {
		argv[k++] = "--rootfs";
		argv[k++] = e->dir;
	}
	for (char *save = NULL, *w = image ? strtok_r(image, " ", &save) : NULL; w && k < 56;
	     w = strtok_r(NULL, " ", &save))
		argv[k++] = w;     /* an image's: its Env, its other directories (oci.c) */
	argv[k++] = "sr-exec";
	argv[k++] = "sh";
	argv[k++] = "-c";
	argv[k++] = (char *)probe;
	argv[k] = NULL;
	int rc = spawn_capture(argv, &out, 8192, 1);
	e->facts = facts_of(e, rc == 0 ? out : NULL);
	if (rc != 0)
		cJSON_AddStringToObject(e->facts, "error", "the probe of this environment failed: "
					"runs in it may fail too");
	int apt = tool_env_apt(e->dir);
	cJSON_AddBoolToObject(e->facts, "apt", apt);
	if (e->dir)
		cJSON_AddStringToObject(e->facts, "note", apt ? "install_packages installs pip and "
					"npm packages for the default environment's Python and "
					"Node.js, and with manager apt Debian packages into a "
					"workspace's own layer over this environment" :
					"install_packages installs for the default environment's "
					"Python and Node.js");
	if (e->image)
		cJSON_AddItemToObject(e->facts, "image", cJSON_Duplicate(e->image, 1));
	free(out);
	free(image);
	return e->facts;
}

/* Does root have /usr/bin/apt-get (a file, reached through no link)? */
int tool_env_apt(const char *root)
{
	struct stat st;
	int fd = root ? open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
	int ok = fd >= 0 && fstatat(fd, "usr/bin/apt-get", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		 S_ISREG(st.st_mode);
	if (fd >= 0)
		close(fd);
	return ok;
}

static pthread_mutex_t probe_lock = PTHREAD_MUTEX_INITIALIZER;

/* Each environment's facts, for sandbox_info. */
cJSON *tool_env_facts(void)
{
	cJSON *all = cJSON_CreateArray();
	pthread_mutex_lock(&probe_lock);
	for (size_t i = 0; i < nenvs; i++)
		cJSON_AddItemToArray(all, cJSON_Duplicate(env_probe(&envs[i]), 1));
	pthread_mutex_unlock(&probe_lock);
	return all;
}

/* Does environment e have the interpreter of runner lang (python, node,
 * bash; typescript's compiler comes from the host, its Node is the
 * environment's; another runner is not known here: yes)? */
static int env_has(struct environment *e, const char *lang)
{
	static const char *const interp[][2] = {
		{"python", "python"}, {"javascript", "node"}, {"bash", "bash"},
		{"typescript", "node"},
	};
	for (size_t i = 0; i < sizeof interp / sizeof *interp; i++) {
		if (strcmp(lang, interp[i][0]))
			continue;
		pthread_mutex_lock(&probe_lock);
		const cJSON *f = env_probe(e);
		int has = cJSON_GetObjectItem(f, "error") || cJSON_GetObjectItem(f, interp[i][1]);
		pthread_mutex_unlock(&probe_lock);
		return has;
	}
	return 1;
}
