/* submit.c - the submit command: its options, the job's environment and
 * working directory; the job is stored by the spool core
 * (spool_submit.c), and only then is its id printed. */
#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "spool.h"
#include "usage.h"
#include "sr.h"

extern char **environ;

struct submit_opts {
	const char *tenant, *stdin_path, *cwd;
	char **env;
	size_t nenv;
	int keep_env, json;
	uint64_t max_output, retry, timeout_ns, kill_after_ns;
};

enum { O_TENANT = 256, O_STDIN, O_CWD, O_ENV, O_KEEPENV, O_MAXOUT, O_RETRY,
       O_TIMEOUT, O_KILLAFTER, O_JSON };

static const struct option submit_lo[] = {
	{ "tenant", required_argument, NULL, O_TENANT },
	{ "stdin", required_argument, NULL, O_STDIN },
	{ "cwd", required_argument, NULL, O_CWD },
	{ "env", required_argument, NULL, O_ENV },
	{ "keep-env", no_argument, NULL, O_KEEPENV },
	{ "max-output", required_argument, NULL, O_MAXOUT },
	{ "retry", required_argument, NULL, O_RETRY },
	{ "timeout", required_argument, NULL, O_TIMEOUT },
	{ "kill-after", required_argument, NULL, O_KILLAFTER },
	{ "json", no_argument, NULL, O_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void submit_opt(void *ctx, int c, const char *arg)
{
	struct submit_opts *o = ctx;
	switch (c) {
	case O_TENANT:
		if (!sq_tenant_valid(arg)) {
			char want[64];
			snprintf(want, sizeof want, "1-%d of A-Z a-z 0-9 . _ -", SQ_TENANT_MAX);
			sr_usage_value("--tenant", "name", arg, want);
		}
		o->tenant = arg;
		break;
	case O_STDIN: o->stdin_path = arg; break;
	case O_CWD: o->cwd = arg; break;
	case O_ENV:
		if (!strchr(arg, '=') || arg[0] == '=')
			sr_usage_value("--env", "variable", arg, "NAME=VALUE");
		o->env[o->nenv++] = (char *)arg;
		break;
	case O_KEEPENV: o->keep_env = 1; break;
	case O_MAXOUT: o->max_output = sr_opt_size("--max-output", arg); break;
	case O_RETRY: o->retry = sr_opt_count("--retry", arg, 1000000); break;
	case O_TIMEOUT: o->timeout_ns = sr_opt_duration_ns("--timeout", arg); break;
	case O_KILLAFTER: o->kill_after_ns = sr_opt_duration_ns("--kill-after", arg); break;
	case O_JSON: o->json = 1; break;
	case 'h': sq_print_usage(); exit(0);
	}
}

/* Append DIR to the PATH being built in p (of size len) unless it is
 * relative or there already. */
static void path_add(char *p, size_t len, const char *dir, size_t dlen)
{
	if (dlen == 0 || dir[0] != '/')
		return;
	for (const char *e = p + 5; *e;) { /* past "PATH=" */
		size_t k = strcspn(e, ":");
		if (k == dlen && strncmp(e, dir, k) == 0)
			return;
		e += k + (e[k] == ':');
	}
	size_t used = strlen(p);
	if (used + 1 + dlen + 1 > len)
		return;
	snprintf(p + used, len - used, "%s%.*s", p[5] ? ":" : "", (int)dlen, dir);
}

/* path_add each entry of the colon-separated list (none if NULL). */
static void path_add_list(char *p, size_t len, const char *list)
{
	for (const char *e = list; e && *e;) {
		size_t k = strcspn(e, ":");
		path_add(p, len, e, k);
		e += k + (e[k] == ':');
	}
}

/* The PATH of a job given none (no --keep-env, no --env PATH=): the
 * submitter's absolute entries (a relative one, such as "." or an empty
 * one, would be looked up in the job's working directory, which an earlier
 * job may have written), or /usr/local/bin:/usr/bin:/bin if it has none;
 * then the directory sr-queue runs from, so that the sr-limit, sr-jail and
 * sr-exec installed with it are found. */
static char *job_path(void)
{
	static char p[8192];
	strcpy(p, "PATH=");
	path_add_list(p, sizeof p, getenv("PATH"));
	if (!p[5])
		path_add_list(p, sizeof p, "/usr/local/bin:/usr/bin:/bin");
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0) {
		self[n] = '\0';
		char *slash = strrchr(self, '/');
		if (slash)
			path_add(p, sizeof p, self, slash == self ? 1 : (size_t)(slash - self));
	}
	return p;
}

/* The job's environment: the submitter's with --keep-env, then each
 * --env NAME=VALUE replacing a variable of the same name; without
 * --keep-env, a PATH (job_path) unless --env gave one. *n set to the
 * count; the strings are the caller's or static. */
static char **job_env(const struct submit_opts *o, size_t *n)
{
	size_t cap = o->nenv + 2;
	for (char **e = environ; o->keep_env && e && *e; e++)
		cap++;
	char **env = calloc(cap, sizeof *env);
	if (!env)
		sr_fatal_sys(SR_EXIT_SYS, "unable to allocate");
	*n = 0;
	for (char **e = environ; o->keep_env && e && *e; e++) {
		size_t k = strcspn(*e, "=");
		int replaced = 0;
		for (size_t i = 0; i < o->nenv && !replaced; i++)
			replaced = strncmp(o->env[i], *e, k + 1) == 0;
		if (!replaced)
			env[(*n)++] = *e;
	}
	for (size_t i = 0; i < o->nenv; i++) {
		size_t k = strcspn(o->env[i], "=");
		int dup = 0;
		for (size_t j = i + 1; j < o->nenv && !dup; j++)
			dup = strncmp(o->env[j], o->env[i], k + 1) == 0;
		if (!dup)
			env[(*n)++] = o->env[i];
	}
	int has_path = 0;
	for (size_t i = 0; i < *n && !has_path; i++)
		has_path = strncmp(env[i], "PATH=", 5) == 0;
	if (!o->keep_env && !has_path)
		env[(*n)++] = job_path();
	return env;
}

/* The job's working directory, absolute. --cwd follows no symbolic link
 * (a job could have planted job/out -> ~/.ssh): the directory is opened
 * without following any, and its path is the one the kernel gives it. */
static void resolve_cwd(const char *dir, char *cwd, size_t len)
{
	if (!dir) {
		if (!getcwd(cwd, len))
			sr_fatal_sys(SR_EXIT_SYS, "unable to find the working directory");
		return;
	}
	int fd = sr_open_nofollow(dir, O_PATH | O_DIRECTORY);
	if (fd < 0 && errno == ELOOP)
		sr_fatal(SR_EXIT_SYS, "--cwd %s: it is or passes through a symbolic link, "
			 "which sr-queue does not follow (give the resolved path)", dir);
	if (fd < 0)
		sr_fatal_sys(SR_EXIT_SYS, "--cwd %s", dir);
	char self[64];
	snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(self, cwd, len - 1);
	if (n < 0 || (size_t)n >= len - 1)
		sr_fatal_sys(SR_EXIT_SYS, "unable to resolve --cwd %s", dir);
	cwd[n] = '\0';
	close(fd);
}

int sq_cmd_submit(int argc, char **argv)
{
	struct submit_opts o = { .tenant = "default", .max_output = SQ_DEFAULT_MAX_OUTPUT,
				 .kill_after_ns = SQ_DEFAULT_KILL_AFTER_MS * 1000000ULL };
	char *ops[1];
	int rest;
	o.env = calloc((size_t)argc + 1, sizeof *o.env);
	if (!o.env)
		sr_fatal_sys(SR_EXIT_SYS, "unable to allocate");
	if (sq_parse_args(argc, argv, "h", submit_lo, submit_opt, &o, ops, 1, 1, &rest) < 1)
		sr_usage("submit: missing SPOOL");
	if (rest >= argc)
		sr_usage_noprog();
	char cwd[PATH_MAX];
	resolve_cwd(o.cwd, cwd, sizeof cwd);

	struct sq_new_job n = {
		.tenant = o.tenant, .argv = argv + rest, .cwd = cwd, .stdin_fd = -1,
		.max_output = o.max_output, .retry = o.retry,
		.timeout_ms = o.timeout_ns / 1000000ULL,
		.kill_after_ms = o.kill_after_ns / 1000000ULL, .umask = sq_user_umask,
	};
	/* no link followed: a job could have planted one where the next
	 * submit reads its input (job/in -> ~/.ssh/id_rsa) */
	if (o.stdin_path && (n.stdin_fd = strcmp(o.stdin_path, "-") == 0 ? 0 :
			     sr_open_nofollow(o.stdin_path, O_RDONLY)) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to open --stdin %s", o.stdin_path);
	char **env = job_env(&o, &n.nenv);
	n.env = env;
	struct sq_spool sp;
	sq_spool_open(&sp, ops[0], 1);
	char id[SQ_ID_LEN + 1];
	if (sq_id_new(id) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to get random bytes");
	cJSON *job = sq_job_record(id, &n);
	const char *what;
	if (!job)
		sr_fatal(SR_EXIT_SYS, "unable to allocate");
	if (sq_job_store(&sp, id, job, &n, &what) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to store job in %s: %s", sp.path, what);
	cJSON_Delete(job);
	free(env);
	free(o.env);
	if (n.stdin_fd > 0)
		close(n.stdin_fd);
	sq_spool_close(&sp);

	if (o.json) {
		cJSON *out = cJSON_CreateObject();
		cJSON_AddStringToObject(out, "id", id);
		int r = sq_print_json(out);
		cJSON_Delete(out);
		return r;
	}
	printf("%s\n", id);
	return fflush(stdout) == 0 ? 0 : SR_EXIT_SYS;
}
