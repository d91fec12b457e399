/* secret.c - --secret NAME=HOST:HEADER and where its value comes from
 * (--secret-file NAME=PATH, a file only its owner may read, or sr-net's
 * own environment, SR_SECRET_NAME, which the program does not inherit).
 * The program sees NAME set to a placeholder, an opaque token made for
 * the run, and the CA variables naming a bundle that trusts the per-run
 * CA; the value stays in the proxy's memory. A secret's host is allowed
 * on port 443 (the rules' denies still win). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ca.h"
#include "secret.h"
#include "sr-net.h"
#include "sr.h"

static struct net_secrets *secrets(struct net *n)
{
	if (!n->secrets && !(n->secrets = calloc(1, sizeof *n->secrets)))
		sr_fatal_sys(SR_EXIT_SYS, "calloc");
	return n->secrets;
}

static int is_name(const char *s, size_t len)
{
	if (!len || isdigit((unsigned char)s[0]))
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return 0;
	return 1;
}

static struct net_secret *find(struct net_secrets *ss, const char *name, size_t len)
{
	for (size_t i = 0; i < ss->n; i++)
		if (strlen(ss->s[i].name) == len && !strncmp(ss->s[i].name, name, len))
			return &ss->s[i];
	return NULL;
}

void secret_add(struct net *n, const char *arg)
{
	static const char want[] = "NAME=HOST:HEADER, NAME a variable name, HOST a DNS name";
	struct net_secrets *ss = secrets(n);
	const char *eq = strchr(arg, '='), *colon = eq ? strchr(eq, ':') : NULL;
	if (!eq || !colon || !is_name(arg, (size_t)(eq - arg)) || find(ss, arg, (size_t)(eq - arg)))
		sr_usage_value("--secret", "secret", arg, want);
	char *host = strndup(eq + 1, (size_t)(colon - eq - 1));
	const char *h = colon + 1;
	struct sockaddr_storage a;
	char text[64];
	if (!host || host_canon(host) < 0 || !*host || addr_parse(host, &a, text, sizeof text) == 1 ||
	    !*h || strspn(h, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") != strlen(h))
		sr_usage_value("--secret", "secret", arg, want);
	ss->s = sr_grow(ss->s, ss->n, &ss->cap, sizeof *ss->s);
	struct net_secret *s = &ss->s[ss->n++];
	memset(s, 0, sizeof *s);
	s->name = strndup(arg, (size_t)(eq - arg));
	s->host = host;
	s->header = strdup(h);
	char *rule = NULL;
	if (asprintf(&rule, "%s:443", host) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "asprintf");
	rule_add(n, rule, 0);           /* kept: the record's why names it */
}

/* The value of a file only its owner may read or write: its first line. */
static char *read_value(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "--secret-file: cannot open %s", path);
	if (!S_ISREG(st.st_mode) || (st.st_mode & 077) || st.st_uid != geteuid())
		sr_fatal(SR_EXIT_SYS, "--secret-file: %s is not a regular file of mode 600 "
			 "(or 400) owned by this user", path);
	char *v = calloc(1, 65537);
	ssize_t r = v ? read(fd, v, 65536) : -1;
	close(fd);
	if (r < 0)
		sr_fatal_sys(SR_EXIT_SYS, "--secret-file: cannot read %s", path);
	*len = strcspn(v, "\r\n");
	return v;
}

void secret_file(struct net *n, const char *arg)
{
	const char *eq = strchr(arg, '=');
	struct net_secret *s = eq ? find(secrets(n), arg, (size_t)(eq - arg)) : NULL;
	if (!s)
		sr_usage_value("--secret-file", "secret file", arg,
			       "NAME=PATH, after the --secret NAME=... it is for");
	free(s->value);
	s->value = read_value(eq + 1, &s->vlen);
	s->value[s->vlen] = 0;
}

/* The value from SR_SECRET_NAME when no file gave one: taken, and its
 * bytes in the environment wiped. */
static void env_value(struct net_secret *s)
{
	char key[300];
	snprintf(key, sizeof key, "SR_SECRET_%s", s->name);
	char *v = getenv(key);
	if (v && !s->value) {
		s->vlen = strlen(v);
		s->value = strdup(v);
	}
	if (v)
		memset(v, 0, strlen(v));
	unsetenv(key);
	if (!s->value)
		sr_usage("secret %s has no value (give --secret-file %s=PATH, or set %s in "
			 "sr-net's environment)", s->name, s->name, key);
	if (s->vlen < SECRET_VALUE_MIN || s->vlen > SECRET_VALUE_MAX || memchr(s->value, 0, s->vlen))
		sr_fatal(SR_EXIT_USAGE, "secret %s: the value must be %d to %d bytes on one line",
			 s->name, SECRET_VALUE_MIN, SECRET_VALUE_MAX);
}

static void placeholder(struct net_secret *s)
{
	unsigned char r[16];
	if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r)
		sr_fatal_sys(SR_EXIT_SYS, "getrandom");
	memcpy(s->ph, "srph_", 5);
	for (size_t i = 0; i < sizeof r; i++)
		snprintf(s->ph + 5 + 2 * i, 3, "%02x", r[i]);
}

void secret_setup(struct net *n)
{
	struct net_secrets *ss = n->secrets;
	if (!ss)
		return;
	for (size_t i = 0; i < ss->n; i++) {
		env_value(&ss->s[i]);
		placeholder(&ss->s[i]);
	}
	ss->ca = ca_make(ss);
	if (ss->bundle)
		ca_bundle(ss->ca, ss->bundle);
}

/* sr-net --check: each secret has a value that would do. */
void secret_check(struct net *n)
{
	for (size_t i = 0; n->secrets && i < n->secrets->n; i++)
		env_value(&n->secrets->s[i]);
}

/* The program's environment alone: the proxy keeps the host's
 * SSL_CERT_FILE, which its own verification of the hosts reads. */
/* What secret_env set, and what each held before (NULL: unset), for
 * secret_env_undo. */
struct env_was {
	const char *name;
	char *value;
};
static struct env_was *was;
static size_t nwas, wcap;

static void env_set(const char *name, const char *value)
{
	const char *old = getenv(name);
	was = sr_grow(was, nwas, &wcap, sizeof *was);
	was[nwas].name = name;
	was[nwas].value = old ? strdup(old) : NULL;
	if (old && !was[nwas].value)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	nwas++;
	setenv(name, value, 1);
}

void secret_env(const struct net *n)
{
	const struct net_secrets *ss = n->secrets;
	if (!ss)
		return;
	for (size_t i = 0; i < ss->n; i++)
		env_set(ss->s[i].name, ss->s[i].ph);
	if (!ss->bundle)
		return;
	static const char *const vars[] = { "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE",
		"NODE_EXTRA_CA_CERTS", "PIP_CERT", "CURL_CA_BUNDLE" };
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
		env_set(vars[i], ss->bundle_as ? ss->bundle_as : ss->bundle);
}

void secret_env_undo(void)
{
	while (nwas > 0) {      /* last first: a name set twice gets its first value */
		struct env_was *w = &was[--nwas];
		if (w->value)
			setenv(w->name, w->value, 1);
		else
			unsetenv(w->name);
		free(w->value);
	}
}

const struct net_secret *secret_for(const struct net *n, const char *host, unsigned port)
{
	if (!n->secrets || port != 443)
		return NULL;
	for (size_t i = 0; i < n->secrets->n; i++)
		if (!strcmp(n->secrets->s[i].host, host))
			return &n->secrets->s[i];
	return NULL;
}
