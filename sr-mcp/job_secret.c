/* job_secret.c - sr-mcp --secret NAME=HOST:HEADER: a run under --network
 * allow gets NAME set to a placeholder and sr-net swaps the value in,
 * in HEADER of its HTTPS requests to HOST alone (sr-net(1), SECRETS).
 * The value is read by sr-net from a file at each run: --secret-file's
 * (mode 600, checked at start), or, for a value in sr-mcp's environment
 * (SR_SECRET_NAME), STATE/secrets/NAME, written mode 600 at start and
 * the variable wiped: never in a job's environment (which sr-queue
 * keeps), argv, a result or a log. sandbox_info lists names and hosts. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "job.h"
#include "mcp.h"
#include "sr.h"

#define SECRETS_MAX 16

static struct secret {
	char *name, *host, *header, *file;
} secrets[SECRETS_MAX];
static size_t nsecrets;

static const char name_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_";

static struct secret *find(const char *name, size_t len)
{
	for (size_t i = 0; i < nsecrets; i++)
		if (strlen(secrets[i].name) == len && !strncmp(secrets[i].name, name, len))
			return &secrets[i];
	return NULL;
}

void job_secret_add(const char *opt, const char *a)
{
	const char *eq = strchr(a, '='), *colon = eq ? strchr(eq, ':') : NULL;
	size_t nl = eq ? (size_t)(eq - a) : 0, hl = colon ? (size_t)(colon - eq - 1) : 0;
	if (!colon || !nl || nl > 64 || strspn(a, name_chars) < nl || find(a, nl) || !hl ||
	    strspn(eq + 1, "abcdefghijklmnopqrstuvwxyz0123456789.-") < hl || !colon[1] ||
	    strspn(colon + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") !=
	    strlen(colon + 1) || nsecrets == SECRETS_MAX)
		sr_usage("%s: invalid secret: '%s' (want NAME=HOST:HEADER, HOST a lower-case DNS "
			 "name; at most %d)", opt, a, SECRETS_MAX);
	struct secret *s = &secrets[nsecrets++];
	s->name = strndup(a, nl);
	s->host = strndup(eq + 1, hl);
	s->header = xstrdup(colon + 1);
}

void job_secret_file(const char *opt, const char *a)
{
	const char *eq = strchr(a, '=');
	struct secret *s = eq ? find(a, (size_t)(eq - a)) : NULL;
	if (!s || !eq[1] || strpbrk(eq + 1, " \t\n"))
		sr_usage("%s: invalid secret file: '%s' (want NAME=PATH, no blanks, after "
			 "--secret NAME=...)", opt, a);
	s->file = xstrdup(eq + 1);
}

/* The value of s from SR_SECRET_NAME into STATE/secrets/NAME. */
static void from_env(struct secret *s)
{
	char key[128], path[4200];
	snprintf(key, sizeof key, "SR_SECRET_%s", s->name);
	char *v = getenv(key);
	if (!v)
		sr_usage("--secret %s has no value: give --secret-file %s=PATH or set %s", s->name,
			 s->name, key);
	snprintf(path, sizeof path, "%s/secrets", cfg.state_dir);
	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		sr_fatal_sys(SR_EXIT_SYS, "cannot make %s", path);
	snprintf(path, sizeof path, "%s/secrets/%s", cfg.state_dir, s->name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || fchmod(fd, 0600) < 0 || sr_write_all(fd, v, strlen(v)) < 0 ||
	    sr_write_all(fd, "\n", 1) < 0 || close(fd) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "cannot write %s", path);
	memset(v, 0, strlen(v));
	unsetenv(key);
	s->file = xstrdup(path);
}

void job_secret_setup(void)
{
	if (nsecrets && !cfg.net_allow)
		sr_usage("--secret needs --network allow (the value goes out through sr-net)");
	for (size_t i = 0; i < nsecrets; i++) {
		struct stat st;
		if (!secrets[i].file) {
			from_env(&secrets[i]);
			continue;
		}
		if (lstat(secrets[i].file, &st) < 0 || !S_ISREG(st.st_mode) || (st.st_mode & 077) ||
		    st.st_uid != geteuid())
			sr_fatal(SR_EXIT_SYS, "--secret-file %s=%s: not a regular file of mode 600 "
				 "(or 400) owned by this user", secrets[i].name, secrets[i].file);
	}
}

/* Appended to SR_NET_ARGS for run id: the secrets and the CA bundle,
 * STATE/made/ID.ca, which the jail sees as /run/sr-net-ca.pem. */
void job_secret_net_args(const char *id, char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = 0;
	for (size_t i = 0; i < nsecrets && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, " --secret %s=%s:%s --secret-file %s=%s",
				       secrets[i].name, secrets[i].host, secrets[i].header,
				       secrets[i].name, secrets[i].file);
	if (nsecrets && at < len)
		snprintf(buf + at, len - at, " --ca-bundle %s/%s.ca --ca-bundle-as " JOB_SECRET_CA,
			 job_made_dir(), id);
}

/* For SR_JAIL_ARGS: the bundle bound, the placeholders and the CA
 * variables passed through. */
void job_secret_jail_args(const char *id, char *buf, size_t len)
{
	static const char *const vars[] = { "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE",
		"NODE_EXTRA_CA_CERTS", "PIP_CERT", "CURL_CA_BUNDLE" };
	size_t at = 0;
	buf[0] = 0;
	if (!nsecrets)
		return;
	at += (size_t)snprintf(buf, len, "--ro-bind %s/%s.ca " JOB_SECRET_CA " ", job_made_dir(), id);
	for (size_t i = 0; i < nsecrets && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "--keep-env %s ", secrets[i].name);
	for (size_t i = 0; i < sizeof vars / sizeof vars[0] && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "--keep-env %s ", vars[i]);
}

void job_secret_info(cJSON *res)
{
	if (!nsecrets)
		return;
	cJSON *a = cJSON_AddArrayToObject(res, "secrets");
	for (size_t i = 0; i < nsecrets; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", secrets[i].name);
		cJSON_AddStringToObject(o, "host", secrets[i].host);
		cJSON_AddStringToObject(o, "header", secrets[i].header);
		cJSON_AddItemToArray(a, o);
	}
	cJSON_AddStringToObject(res, "secrets_note", "each name is set in a run's environment to a "
		"placeholder; put it where the header wants it (e.g. Authorization: Bearer $NAME) in "
		"HTTPS requests to its host, and the proxy puts the real value in. The value is "
		"never in the sandbox: printing the variable shows the placeholder.");
}

/* At start, under --network allow or with rules: `sr-net --check` with the
 * rules and secrets each run would give it, so that a rule or secret sr-net
 * refuses (api.test:99999) ends sr-mcp now, in sr-net's words, rather than
 * failing every run. */
void job_net_check(void)
{
	if (!cfg.net_rules && !nsecrets)
		return;
	char sec[4400], *args = NULL, *argv[256], *save = NULL;
	size_t n = 0;
	job_secret_net_args("check", sec, sizeof sec);
	if (asprintf(&args, "%s%s%s", cfg.net_allow ? "" : JOB_NET_INDEXES,
		     cfg.net_rules ? cfg.net_rules : "", sec) < 0)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	argv[n++] = "sr-net";
	argv[n++] = "--check";
	for (char *w = strtok_r(args, " ", &save); w && n < 255; w = strtok_r(NULL, " ", &save))
		argv[n++] = w;
	argv[n] = NULL;
	int st = 0;
	pid_t pid = fork();
	if (pid < 0)
		sr_fatal_sys(SR_EXIT_SYS, "fork");
	if (pid == 0) {
		execvp(argv[0], argv);
		_exit(sr_exec_exit(errno));
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	free(args);
	if (WIFEXITED(st) && WEXITSTATUS(st) == SR_EXIT_USAGE)
		sr_usage("the network rules or secrets do not hold (sr-net --check, above)");
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		sr_fatal(SR_EXIT_SYS, "sr-net --check failed (status %d): the network rules "
			 "cannot be judged", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
}
