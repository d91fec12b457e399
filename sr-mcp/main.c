/* sr-mcp - a Model Context Protocol server over stdio whose tools run code
 * in the sr sandbox. It isolates nothing itself: each run is an sr-queue
 * job whose program is a runner, a short script composing sr-limit,
 * sr-jail and sr-exec. Nothing is created before the first tool call
 * (clients start a server only to probe it). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "job.h"
#include "mcp.h"
#include "proto.h"
#include "runner.h"
#include "session.h"
#include "spawn.h"
#include "tool.h"
#include "sr.h"

#ifndef SR_DATADIR
#define SR_DATADIR "/usr/local/share/sr"
#endif

static const char usage_text[] =
"usage: sr-mcp [options]   (an MCP server on stdin/stdout; see sr-mcp(1))\n"
"      --state-dir DIR      jobs, workspaces (default $XDG_STATE_HOME/sr)\n"
"      --spool DIR          the sr-queue spool (default STATE/spool)\n"
"      --external-worker    do not start a worker: `sr-queue run` is run elsewhere\n"
"      --via 'LAUNCHER'     the worker runs each job through it (srun ...)\n"
"      --runners DIR        the runners, one per language\n"
"  -j, --jobs N             the worker's jobs at once (default: the CPUs)\n"
"      --cpu-budget C/W     CPU time per client per window (default 10s/1m; off)\n"
"      --timeout DURATION   a run's default wall clock (default 5m)\n"
"      --timeout-max DURATION  the most a call may ask (default 30m)\n"
"      --memory SIZE|off    a run's default memory (default 512M)\n"
"      --memory-max SIZE    the most a call may ask (default 4G)\n"
"      --pids N             processes a run may start (default 128)\n"
"      --wait DURATION      how long a call waits for its run (default 45s)\n"
"      --wait-max DURATION  the most a call may wait (default 55s)\n"
"      --max-result-chars N text in a result, at most (default 50000)\n"
"      --network none|install|allow|full  network for installs and runs (default\n"
"                          none; allow: the --net-allow hosts alone, through sr-net)\n"
"      --net-allow HOST[:PORTS]  with --network allow, a host runs and installs\n"
"                          may reach (NAME, *.NAME, an address; ports 80,443)\n"
"      --net-deny HOST[:PORTS]   a host refused whatever allows it\n"
"      --secret NAME=HOST:HEADER  with --network allow, runs get NAME, a\n"
"                          placeholder the proxy swaps for the value in HEADER\n"
"                          of HTTPS requests to HOST (sr-net(1), SECRETS)\n"
"      --secret-file NAME=FILE  the value of NAME (mode 600); else sr-mcp's\n"
"                          $SR_SECRET_NAME\n"
"      --pip-find-links DIR a directory of wheels install_packages uses offline\n"
"      --workspace-quota SIZE|off  a workspace's size cap (default 1G)\n"
"      --workspace-inodes N|off  and its files, directories and links (default 200000)\n"
"      --workspace-ttl DURATION|off  remove workspaces idle that long (default 7d)\n"
"      --scratch-ttl DURATION|off  remove unnamed workspaces idle that long (default 1h)\n"
"      --job-ttl DURATION|off  remove finished jobs' output that old (default 7d)\n"
"      --session-idle DURATION|off  close a session idle that long (default 30m)\n"
"      --job-space SIZE|off  finished jobs' output kept, at most (default 1G)\n"
"      --compat sandrun     also offer Sandrun's tool names\n"
"      --host-dir DIR       a host directory for export_workspace and import_files\n"
"                           (repeatable; the first gets the exports)\n"
"      --environment NAME=DIR  a root file system runs may choose (repeatable);\n"
"                           NAME=oci:PATH[:REF], an OCI image unpacked once\n"
"      --tenant NAME        the tenant of every call (default: the client's name)\n"
"  -h, --help               show this help\n"
"  -V, --version            show the version\n";

enum { O_STATE = 256, O_SPOOL, O_EXTERNAL, O_RUNNERS, O_BUDGET, O_TIMEOUT, O_TIMEOUT_MAX,
       O_MEMORY, O_MEMORY_MAX, O_PIDS, O_WAIT, O_WAIT_MAX, O_CHARS, O_NETWORK, O_NET_ALLOW, O_NET_DENY, O_SECRET, O_SECRET_FILE, O_COMPAT,
       O_FIND_LINKS, O_WS_QUOTA, O_WS_TTL, O_HOST_DIR, O_VIA, O_JOB_TTL, O_JOB_SPACE,
       O_WS_INODES, O_SCRATCH_TTL, O_ENVIRONMENT, O_TENANT, O_SESSION_IDLE };

static const struct option longopts[] = {
	{ "state-dir", required_argument, 0, O_STATE },
	{ "spool", required_argument, 0, O_SPOOL },
	{ "external-worker", no_argument, 0, O_EXTERNAL },
	{ "runners", required_argument, 0, O_RUNNERS },
	{ "jobs", required_argument, 0, 'j' },
	{ "cpu-budget", required_argument, 0, O_BUDGET },
	{ "timeout", required_argument, 0, O_TIMEOUT },
	{ "timeout-max", required_argument, 0, O_TIMEOUT_MAX },
	{ "memory", required_argument, 0, O_MEMORY },
	{ "memory-max", required_argument, 0, O_MEMORY_MAX },
	{ "pids", required_argument, 0, O_PIDS },
	{ "wait", required_argument, 0, O_WAIT },
	{ "wait-max", required_argument, 0, O_WAIT_MAX },
	{ "max-result-chars", required_argument, 0, O_CHARS },
	{ "network", required_argument, 0, O_NETWORK },
	{ "net-allow", required_argument, 0, O_NET_ALLOW },
	{ "net-deny", required_argument, 0, O_NET_DENY },
	{ "secret", required_argument, 0, O_SECRET },
	{ "secret-file", required_argument, 0, O_SECRET_FILE },
	{ "pip-find-links", required_argument, 0, O_FIND_LINKS },
	{ "compat", required_argument, 0, O_COMPAT },
	{ "workspace-quota", required_argument, 0, O_WS_QUOTA },
	{ "workspace-inodes", required_argument, 0, O_WS_INODES },
	{ "workspace-ttl", required_argument, 0, O_WS_TTL },
	{ "scratch-ttl", required_argument, 0, O_SCRATCH_TTL },
	{ "session-idle", required_argument, 0, O_SESSION_IDLE },
	{ "job-ttl", required_argument, 0, O_JOB_TTL },
	{ "job-space", required_argument, 0, O_JOB_SPACE },
	{ "host-dir", required_argument, 0, O_HOST_DIR },
	{ "environment", required_argument, 0, O_ENVIRONMENT },
	{ "tenant", required_argument, 0, O_TENANT },
	{ "via", required_argument, 0, O_VIA },
	{ "help", no_argument, 0, 'h' },
	{ "version", no_argument, 0, 'V' },
	{ 0, 0, 0, 0 },
};

/* Each option's SR_MCP_* variable: what a client config's "env" sets. */
static const struct { int opt; const char *var; } vars[] = {
	{ O_STATE, "SR_MCP_STATE_DIR" }, { O_SPOOL, "SR_MCP_SPOOL" },
	{ O_RUNNERS, "SR_MCP_RUNNERS" }, { 'j', "SR_MCP_JOBS" },
	{ O_BUDGET, "SR_MCP_CPU_BUDGET" }, { O_TIMEOUT, "SR_MCP_TIMEOUT" },
	{ O_TIMEOUT_MAX, "SR_MCP_TIMEOUT_MAX" }, { O_MEMORY, "SR_MCP_MEMORY" },
	{ O_MEMORY_MAX, "SR_MCP_MEMORY_MAX" }, { O_PIDS, "SR_MCP_PIDS" },
	{ O_WAIT, "SR_MCP_WAIT" }, { O_WAIT_MAX, "SR_MCP_WAIT_MAX" },
	{ O_CHARS, "SR_MCP_MAX_RESULT_CHARS" }, { O_NETWORK, "SR_MCP_NETWORK" },
	{ O_COMPAT, "SR_MCP_COMPAT" }, { O_FIND_LINKS, "SR_MCP_PIP_FIND_LINKS" },
	{ O_WS_QUOTA, "SR_MCP_WORKSPACE_QUOTA" }, { O_WS_TTL, "SR_MCP_WORKSPACE_TTL" },
	{ O_HOST_DIR, "SR_MCP_HOST_DIRS" },
	{ O_VIA, "SR_MCP_VIA" }, { O_WS_INODES, "SR_MCP_WORKSPACE_INODES" },
	{ O_JOB_TTL, "SR_MCP_JOB_TTL" }, { O_JOB_SPACE, "SR_MCP_JOB_SPACE" },
	{ O_SCRATCH_TTL, "SR_MCP_SCRATCH_TTL" }, { O_SESSION_IDLE, "SR_MCP_SESSION_IDLE" },
	{ O_ENVIRONMENT, "SR_MCP_ENVIRONMENTS" }, { O_TENANT, "SR_MCP_TENANT" },
};

/* A tenant fixed by the command line (sr-mcp-http: the token's name). */
static const char *tenant(const char *name, const char *a)
{
	size_t n = strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-");
	if (!*a || a[n] || n > 64)
		sr_usage("%s: expected 1 to 64 of A-Z a-z 0-9 . _ -: '%s'", name, a);
	return a;
}

/* A directory of wheels, resolved (sr-jail binds no symbolic link). */
static char *find_links(const char *name, const char *a)
{
	struct stat st;
	char *real = realpath(a, NULL);
	if (!real || stat(real, &st) < 0 || !S_ISDIR(st.st_mode))
		sr_usage("%s: not a directory: '%s'", name, a);
	return real;
}

/* A duration, or whole days ("7d"); "off" is 0. */
static uint64_t ttl_ms(const char *name, const char *a)
{
	size_t n = strlen(a);
	char days[32];
	if (!strcmp(a, "off"))
		return 0;
	if (n > 1 && n < sizeof days && a[n - 1] == 'd') {
		memcpy(days, a, n - 1);
		days[n - 1] = '\0';
		return sr_opt_count(name, days, 36500) * 86400000ULL;
	}
	return sr_opt_duration_ns(name, a) / 1000000;
}

/* --host-dir, repeatable; SR_MCP_HOST_DIRS is a list split at ':', and
 * the options, when there are any, replace it. */
static void host_dir_add(const char *name, const char *dir)
{
	static size_t n;
	static int from_options;
	if (name[0] == '-' && !from_options) {
		from_options = 1;
		n = 0;
	}
	if (dir[0] != '/')
		sr_usage("%s: an absolute path is expected: '%s'", name, dir);
	cfg.host_dirs = realloc(cfg.host_dirs, (n + 2) * sizeof *cfg.host_dirs);
	if (!cfg.host_dirs)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	cfg.host_dirs[n++] = xstrdup(dir);
	cfg.host_dirs[n] = NULL;
}

/* A count from min to max: below min, a bad value of this option alone. */
static uint64_t count_min(const char *name, const char *a, uint64_t min, uint64_t max)
{
	uint64_t v = sr_opt_count(name, a, max);
	char want[32];
	snprintf(want, sizeof want, "at least %llu", (unsigned long long)min);
	if (v < min)
		sr_usage_value(name, "count", a, want);
	return v;
}

/* A value that must not be 0: a bad value of this option alone. */
static uint64_t nonzero(const char *name, const char *what, const char *a, uint64_t v,
			const char *want)
{
	if (!v)
		sr_usage_value(name, what, a, want);
	return v;
}

/* --cpu-budget CPU/WINDOW (as sr-queue run takes it), checked now: the
 * worker that would refuse it starts only with the first run. */
static const char *budget(const char *name, const char *a)
{
	uint64_t cpu, window;
	if (!strcmp(a, "off"))
		return "";
	char *c = xstrdup(a), *slash = strchr(c, '/');
	if (slash)
		*slash = '\0';
	if (!slash || sr_parse_duration_ns(c, &cpu) < 0 || sr_parse_duration_ns(slash + 1, &window) < 0 ||
	    !cpu || !window)
		sr_usage_value(name, "budget", a, "CPU/WINDOW like 10s/1m, or off");
	free(c);
	return a;
}

/* A run's defaults, each before its cap, with the built-in values; what
 * was given (option or variable, and its value), so that a default over
 * its cap blames the one given (the default when both were). */
static const struct { int opt; const char *name, *what, *value; } caps[] = {
	{ O_TIMEOUT, "--timeout", "duration", "5m" },
	{ O_TIMEOUT_MAX, "--timeout-max", "duration", "30m" },
	{ O_MEMORY, "--memory", "size", "512M" },
	{ O_MEMORY_MAX, "--memory-max", "size", "4G" },
	{ O_WAIT, "--wait", "duration", "45s" },
	{ O_WAIT_MAX, "--wait-max", "duration", "55s" },
};
static struct { char name[64], value[64]; } given[sizeof caps / sizeof *caps];

static void given_note(int c, const char *name, const char *a)
{
	for (size_t i = 0; i < sizeof given / sizeof *given; i++)
		if (c == caps[i].opt) {
			snprintf(given[i].name, sizeof given[i].name, "%s", name);
			snprintf(given[i].value, sizeof given[i].value, "%s", a);
		}
}

static void caps_check(void)
{
	const uint64_t v[][2] = { { cfg.timeout_ms, cfg.timeout_max_ms },
				  { cfg.memory, cfg.memory_max }, { cfg.wait_ms, cfg.wait_max_ms } };
	char want[200];
	for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
		if (v[i][0] <= v[i][1])
			continue;
		size_t k = given[2 * i].name[0] ? 2 * i : 2 * i + 1, o = k ^ 1;  /* blamed, other */
		snprintf(want, sizeof want, "%s %s, %s", k % 2 ? "at least" : "at most",
			 given[o].name[0] ? given[o].name : caps[o].name,
			 given[o].name[0] ? given[o].value : caps[o].value);
		sr_usage_value(given[k].name, caps[k].what, given[k].value, want);
	}
	if (cfg.net_rules && !cfg.net_allow && (cfg.net_full || !cfg.net_install))
		sr_usage("--net-allow and --net-deny are the rules of --network allow or "
			 "install, which is not given");
}

/* A repeatable option (--host-dir, --environment) given once, or its
 * variable's list split at ':', each piece to add. */
static void list_add(const char *name, const char *a, void (*add)(const char *, const char *))
{
	if (name[0] == '-') {
		add(name, a);
		return;
	}
	for (char *list = xstrdup(a), *save = NULL, *d = strtok_r(list, ":", &save); d;
	     d = strtok_r(NULL, ":", &save))
		add(name, d);   /* the copy stays: the pieces are kept */
}

/* --net-allow, --net-deny: one rule for sr-net, in sr-net's words (it
 * judges the form at each run; here, what would break the runner's
 * word splitting is refused). */
static void net_rule(const char *name, const char *a, int deny)
{
	size_t n = strlen(a);
	if (!n || n > 300 || strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				"0123456789.-_*:,[]") != n)
		sr_usage_value(name, "host", a, "NAME, *.NAME or an address, then :PORT[,PORT...]");
	char *r;
	if (asprintf(&r, "%s --%s %s", cfg.net_rules ? cfg.net_rules : "", deny ? "deny" : "allow",
		     a) < 0)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	free(cfg.net_rules);
	cfg.net_rules = r;
}

/* --net-allow, --net-deny, --secret, --secret-file. */
static void net_opt(int c, const char *name, const char *a)
{
	if (c == O_SECRET)
		job_secret_add(name, a);
	else if (c == O_SECRET_FILE)
		job_secret_file(name, a);
	else
		net_rule(name, a, c == O_NET_DENY);
}

static void set_opt(int c, const char *a, const char *name)
{
	given_note(c, name, a);
	switch (c) {
	case O_STATE: cfg.state_dir = xstrdup(a); break;
	case O_SPOOL: cfg.spool = xstrdup(a); break;
	case O_EXTERNAL: cfg.external_worker = 1; break;
	case O_VIA: cfg.via = xstrdup(a); break;
	case O_RUNNERS: cfg.runners_dir = xstrdup(a); break;
	case 'j': cfg.jobs = (unsigned)count_min(name, a, 1, 4096); break;
	case O_BUDGET: cfg.cpu_budget = xstrdup(budget(name, a)); break;
	case O_TIMEOUT:
		cfg.timeout_ms = nonzero(name, "duration", a, sr_opt_duration_ns(name, a) / 1000000,
					 "at least 1ms");
		break;
	case O_TIMEOUT_MAX: cfg.timeout_max_ms = sr_opt_duration_ns(name, a) / 1000000; break;
	case O_MEMORY:
		cfg.memory = strcmp(a, "off") ? nonzero(name, "size", a, sr_opt_size(name, a),
							"a size, or off for none") : 0;
		break;
	case O_MEMORY_MAX: cfg.memory_max = sr_opt_size(name, a); break;
	case O_PIDS: cfg.pids = (unsigned)count_min(name, a, 1, 1 << 20); break;
	case O_WAIT: cfg.wait_ms = sr_opt_duration_ns(name, a) / 1000000; break;
	case O_WAIT_MAX: cfg.wait_max_ms = sr_opt_duration_ns(name, a) / 1000000; break;
	case O_CHARS: cfg.max_chars = (size_t)count_min(name, a, 1000, MCP_RESULT_MAX / 2); break;
	case O_NETWORK:
		if (strcmp(a, "none") && strcmp(a, "install") && strcmp(a, "allow") &&
		    strcmp(a, "full"))
			sr_usage("%s: expected none, install, allow or full: '%s'", name, a);
		cfg.net_full = strcmp(a, "full") == 0;
		cfg.net_allow = strcmp(a, "allow") == 0;
		cfg.net_install = strcmp(a, "none") != 0;
		break;
	case O_NET_ALLOW: case O_NET_DENY:
	case O_SECRET: case O_SECRET_FILE: net_opt(c, name, a); break;
	case O_FIND_LINKS: cfg.pip_find_links = find_links(name, a); break;
	case O_WS_QUOTA:
		cfg.ws_quota = strcmp(a, "off") ? sr_opt_size(name, a) : 0;
		if (!cfg.ws_quota && strcmp(a, "off"))
			sr_usage_value(name, "size", a, "a size, or off for none");
		cfg.ws_quota_set = 1;
		break;
	case O_WS_INODES:       /* 0 or off: none */
		cfg.ws_inodes = strcmp(a, "off") ? sr_opt_count(name, a, 1ULL << 40) : 0;
		break;
	case O_WS_TTL: cfg.ws_ttl_ms = ttl_ms(name, a); break;
	case O_SCRATCH_TTL: cfg.scratch_ttl_ms = ttl_ms(name, a); break;
	case O_SESSION_IDLE: cfg.session_idle_ms = ttl_ms(name, a); break;
	case O_JOB_TTL: cfg.job_ttl_ms = ttl_ms(name, a); break;
	case O_JOB_SPACE: cfg.job_space = strcmp(a, "off") ? sr_opt_size(name, a) : 0; break;
	case O_COMPAT:
		if (strcmp(a, "sandrun") && strcmp(a, "none"))
			sr_usage("%s: expected sandrun or none: '%s'", name, a);
		cfg.compat_sandrun = strcmp(a, "sandrun") == 0;
		break;
	case O_ENVIRONMENT: list_add(name, a, tool_env_add); break;
	case O_TENANT:
		proto_tenant = tenant(name, a);
		cfg.tenant_fixed = 1;
		break;
	case O_HOST_DIR: list_add(name, a, host_dir_add); break;
	}
}

static void defaults(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	cfg_defaults();
	cfg.jobs = n > 0 ? (unsigned)n : 1;
	for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
		const char *v = getenv(vars[i].var);
		if (v && *v)
			set_opt(vars[i].opt, v, vars[i].var);
	}
	const char *w = getenv("SR_MCP_WORKER");
	if (w && !strcmp(w, "external"))
		cfg.external_worker = 1;
	else if (w && *w && strcmp(w, "own"))
		sr_usage("SR_MCP_WORKER: expected own or external: '%s'", w);
}

static void parse_args(int argc, char **argv)
{
	int c, idx = -1;
	char name[64];
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:j:hV", longopts, &idx)) != -1) {
		/* the option's name for messages (argv[optind - 1] is its value
		 * when given apart: --memory 5X) */
		if (idx >= 0)
			snprintf(name, sizeof name, "--%s", longopts[idx].name);
		else
			snprintf(name, sizeof name, "-%c", c);
		idx = -1;
		switch (c) {
		case 'h': fputs(usage_text, stdout); exit(0);
		case 'V': sr_version();
		case '?': case ':': sr_usage_option(argc, argv, c);
		default: set_opt(c, optarg, name);
		}
	}
	if (optind < argc)
		sr_usage("unexpected argument '%s' (see sr-mcp --help)", argv[optind]);
	caps_check();
}

/* Where the other tools are: beside this program when installed, in
 * their own directories in a build tree. A PATH fragment. */
static void find_tools(void)
{
	char exe[PATH_MAX], buf[5 * PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to find this program (/proc/self/exe)");
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	snprintf(buf, sizeof buf, "%s/sr-queue", exe);
	if (access(buf, X_OK) == 0) {
		cfg.tools_dir = xstrdup(exe);
	} else {
		snprintf(buf, sizeof buf, "%s/../sr-queue:%s/../sr-limit:%s/../sr-jail:%s/../sr-exec:"
			 "%s/../sr-net", exe, exe, exe, exe, exe);
		cfg.tools_dir = xstrdup(buf);
	}
	/* The runners: installed beside this program (PREFIX/bin/sr-mcp and
	 * PREFIX/share/sr/sr-mcp/runners, wherever PREFIX is), else in the
	 * build tree, else where the build said DATADIR would be. */
	char dir[PATH_MAX];
	struct stat st;
	snprintf(buf, sizeof buf, "%s/../share/sr/sr-mcp/runners", exe);
	if (!cfg.runners_dir && realpath(buf, dir) && stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
		cfg.runners_dir = xstrdup(dir);
	snprintf(buf, sizeof buf, "%s/runners", exe);
	if (!cfg.runners_dir)
		cfg.runners_dir = xstrdup(stat(buf, &st) == 0 && S_ISDIR(st.st_mode) ? buf :
					  SR_DATADIR "/sr-mcp/runners");
	const char *path = getenv("PATH");
	snprintf(buf, sizeof buf, "%s:%s", cfg.tools_dir, path && *path ? path : "/usr/bin:/bin");
	setenv("PATH", buf, 1);
}

static void state_default(void)
{
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	char buf[PATH_MAX];
	if (cfg.state_dir)
		return;
	if (xdg && *xdg == '/')
		snprintf(buf, sizeof buf, "%s/sr", xdg);
	else if (home && *home == '/')
		snprintf(buf, sizeof buf, "%s/.local/state/sr", home);
	else
		sr_usage("no state directory: set HOME, XDG_STATE_HOME or --state-dir");
	cfg.state_dir = xstrdup(buf);
}

/* A directory sr-mcp keeps or exchanges files in must be the user's alone
 * (sr_dir_private): another local user who owns it, can write it, or can
 * swap a directory above it would own every workspace and the code of
 * every run. A path that is not all there yet is judged by what exists
 * (the rest is made private); a refusal ends sr-mcp at start, naming the
 * path and its owner. With fix (a directory sr-mcp writes), what exists
 * must also let it: the directory itself, or the deepest part of the path
 * there is, where the rest is to be made; else it ends too, saying fix. */
static void dir_trusted(const char *what, const char *path, const char *fix)
{
	char why[PATH_MAX + 400], real[PATH_MAX], head[PATH_MAX];
	size_t n = strlen(path), cut = n;
	if (n >= sizeof head)
		sr_fatal(SR_EXIT_SYS, "refusing %s %s: the path is too long", what, path);
	/* resolve the longest part that exists; the rest is appended as given */
	memcpy(head, path, n + 1);
	while (!realpath(head, real)) {
		if (errno != ENOENT)
			sr_fatal(SR_EXIT_SYS, "unable to resolve %s %s: %s", what, path,
				 strerror(errno));
		char *slash = strrchr(head, '/');
		if (!slash) {                    /* a relative name: under . */
			cut = 0;
			snprintf(head, sizeof head, ".");
			continue;
		}
		cut = (size_t)(slash - head);
		slash[slash == head] = '\0';     /* "/x" leaves "/" */
	}
	size_t m = strlen(real);
	if (m + 1 + (n - cut) >= sizeof real)
		sr_fatal(SR_EXIT_SYS, "refusing %s %s: the path is too long", what, path);
	memcpy(head, real, m + 1);               /* what exists, resolved */
	if (cut < n)
		snprintf(real + m, sizeof real - m, "/%s", path + cut);
	if (sr_dir_private(real, 1, why, sizeof why) < 0)
		sr_fatal(SR_EXIT_SYS, "refusing %s %s: %s%s", what, path, why,
			 errno ? "" : "; use a directory of your own that only you can write");
	if (!fix)
		return;
	if (cut >= n && faccessat(AT_FDCWD, head, R_OK | W_OK | X_OK, AT_EACCESS) < 0)
		sr_fatal(SR_EXIT_SYS, "unable to use %s %s: %s; make it yours to read and write "
			 "(chmod u+rwx), or set another with %s", what, path, strerror(errno), fix);
	if (cut < n && faccessat(AT_FDCWD, head, W_OK | X_OK, AT_EACCESS) < 0)
		sr_fatal(SR_EXIT_SYS, "unable to make %s %s: %s: %s; set another with %s", what,
			 path, head, strerror(errno), fix);
}

#define STATE_FIX "--state-dir or SR_MCP_STATE_DIR"

/* At start, before a request is read: the state directory, the parts of
 * it sr-mcp makes on first use (where they exist already), the spool and
 * the host directories. */
static void dirs_trusted(void)
{
	static const char *const parts[] = { "workspaces", "code", "spool" };
	char sub[PATH_MAX + 16], what[32];
	dir_trusted("state directory", cfg.state_dir, STATE_FIX);
	for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
		if (!strcmp(parts[i], "spool") && cfg.spool)
			break;
		snprintf(sub, sizeof sub, "%s/%s", cfg.state_dir, parts[i]);
		snprintf(what, sizeof what, "%s%s", parts[i], i < 2 ? " directory" : "");
		dir_trusted(what, sub, STATE_FIX);
	}
	if (cfg.spool)
		dir_trusted("spool", cfg.spool, "--spool or SR_MCP_SPOOL");
	for (char **d = cfg.host_dirs; d && *d; d++)
		dir_trusted("host directory", *d, NULL);
}

/* Root is refused at start: the sandbox drops root to nobody (65534), who
 * cannot reach root's private state directory, so no run could work. */
static void refuse_root(void)
{
	if (geteuid() == 0)
		sr_fatal(SR_EXIT_SYS, "refusing to run as root: the sandbox drops root to nobody "
			 "(65534), who cannot reach root's private state directory; start sr-mcp "
			 "as an ordinary user (in the client's command, e.g. runuser -u USER -- sr-mcp)");
}

/* Closing stdin ends the read loop: the way out for SIGTERM and SIGINT. */
static volatile sig_atomic_t signalled;
static void on_signal(int sig)
{
	(void)sig;
	signalled = 1;
	close(0);
}

/* SR_MCP_ONE_REQUEST=1: sr-mcp-http's sr-mcp for one stateless request,
 * whose stdin ends once the request is answered or cancelled. Nothing
 * runs beside the request (no retention thread): at the end of input it
 * waits for what runs (a cancelled job's kill), then sweeps (once a
 * minute at most per state directory), so that nothing of it is killed
 * half-way when it ends. */

static void sweep_once(void)
{
	char stamp[PATH_MAX];
	struct stat st;
	if (stat(cfg.state_dir, &st) < 0)       /* nothing made yet: nothing to remove */
		return;
	snprintf(stamp, sizeof stamp, "%s/.swept", cfg.state_dir);
	if (lstat(stamp, &st) == 0 && time(NULL) - st.st_mtime < 60)
		return;
	int fd = open(stamp, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0) {
		futimens(fd, NULL);
		close(fd);
	}
	job_retention_sweep();
}

/* Past this point what ends is ended by sr-mcp itself (its helpers,
 * killed as it goes): not a failure to report. Under sr-mcp-http alone
 * (SR_MCP_ONE_REQUEST), whose log is every request's: a stdio sr-mcp's
 * stderr is its user's, who is told what its end did. */
static void quiet(void)
{
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd >= 0 && fd != 2) {
		dup2(fd, 2);
		close(fd);
	}
}

static void serve(void)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = xmalloc(cap);
	int skipping = 0;
	for (;;) {
		if (len == cap) {
			if (cap >= MCP_LINE_MAX) {       /* a line too long: drop it */
				proto_line_too_long();
				skipping = 1;
				len = 0;
			} else {
				cap *= 2;
				buf = realloc(buf, cap);
				if (!buf)
					sr_fatal(SR_EXIT_SYS, "out of memory");
			}
		}
		ssize_t n = read(0, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		size_t start = 0, end = len + (size_t)n;
		for (size_t i = len; i < end; i++) {
			if (buf[i] != '\n')
				continue;
			if (!skipping)
				proto_line(buf + start, i - start);
			skipping = 0;
			start = i + 1;
		}
		memmove(buf, buf + start, end - start);
		len = end - start;
		if (skipping)
			len = 0;
	}
	free(buf);
}

int main(int argc, char **argv)
{
	sr_set_prog("sr-mcp");
	if (argc > 1 && !strcmp(argv[1], SESSION_CALL_ARG))   /* a session call's job */
		return session_call_main(argc, argv);
	if (argc > 1 && !strcmp(argv[1], SESSION_KEEP_ARG))   /* a session interpreter's job */
		return session_keep_main(argc, argv);
	defaults();
	parse_args(argc, argv);
	refuse_root();
	state_default();
	dirs_trusted();
	job_secret_setup();
	find_tools();
	job_net_check();
	runner_load();
	tool_env_ready();
	tool_init();
	const char *one = getenv("SR_MCP_ONE_REQUEST");
	cfg.one_request = one && !strcmp(one, "1");
	if (!cfg.one_request)
		job_retention_start();

	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	serve();
	/* End of input: calls in flight get 2 seconds to answer (so that
	 * `printf REQUEST | sr-mcp` works; one request's, until it is done),
	 * a batch's answers given by then go out; a signal: out at once.
	 * Runs go on either way: they are sr-queue jobs, found again by id. */
	for (int i = 0; i < 200 && !signalled && proto_pending() > 0; i += !cfg.one_request)
		usleep(10000);
	proto_flush();
	if (cfg.one_request && !signalled)
		sweep_once();
	if (cfg.one_request)
		quiet();
	spawn_kill_all();
	session_close_owned();     /* their state goes with this process */
	_exit(0);
}
