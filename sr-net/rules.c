/* rules.c - which names and ports the program may reach: --allow and
 * --deny rules, a deny winning over any allow. A name matches a rule of
 * the same name, a "*.x" rule when it ends in ".x" (x itself is not
 * matched: "*.x" and "x" are two rules), and "*". An address literal
 * matches only a rule of the same address (canonical text): allowing a
 * name never allows the address it resolves to, asked for directly. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sr-net.h"
#include "sr.h"

/* The ports after ':' (comma-separated, 1-65535): 0, or -1. An empty
 * one ("443,", ",443", "80,,443") is refused, not skipped: a list cut
 * short by a typo says so rather than allowing less than was meant. */
static int parse_ports(struct net_rule *r, const char *s)
{
	char buf[256], *rest = buf, *t;
	if (snprintf(buf, sizeof buf, "%s", s) >= (int)sizeof buf)
		return -1;
	while ((t = strsep(&rest, ","))) {
		uint64_t v;
		if (!*t || r->nports >= NET_PORTS_MAX || sr_parse_count(t, 65535, &v) < 0 || v == 0)
			return -1;
		r->ports[r->nports++] = (uint16_t)v;
	}
	return r->nports ? 0 : -1;
}

/* HOST[:PORTS] into r; an IPv6 literal's colons need brackets. */
static int parse_rule(struct net_rule *r, const char *arg)
{
	char host[NET_HOST_MAX + 3];
	const char *colon;
	if (arg[0] == '[') {
		const char *end = strchr(arg, ']');
		if (!end || (end[1] && end[1] != ':'))
			return -1;
		colon = end[1] ? end + 1 : NULL;
		if (snprintf(host, sizeof host, "%.*s", (int)(end - arg - 1), arg + 1) >= (int)sizeof host)
			return -1;
	} else {
		colon = strchr(arg, ':');
		size_t hl = colon ? (size_t)(colon - arg) : strlen(arg);
		if (hl >= sizeof host)
			return -1;
		memcpy(host, arg, hl);
		host[hl] = 0;
	}
	if (colon && parse_ports(r, colon + 1) < 0)
		return -1;
	struct sockaddr_storage ss;
	char text[64];
	if (addr_parse(host, &ss, text, sizeof text) == 1) {
		r->host = strdup(text);
	} else {
		int wild = strncmp(host, "*.", 2) == 0;
		if (strcmp(host, "*") != 0 && host_canon(host + (wild ? 2 : 0)) < 0)
			return -1;
		r->host = strdup(host);
	}
	if (!r->host)
		sr_fatal_sys(SR_EXIT_SYS, "out of memory");
	return 0;
}

void rule_add(struct net *n, const char *arg, int deny)
{
	struct net_rule r = { .deny = deny, .text = arg };
	if (parse_rule(&r, arg) < 0)
		sr_usage_value(deny ? "--deny" : "--allow", "host", arg,
			       "NAME, *.NAME, * or an address, then :PORT[,PORT...] if not 80,443");
	n->rules = sr_grow(n->rules, n->nrules, &n->rcap, sizeof *n->rules);
	n->rules[n->nrules++] = r;
}

void rule_file(struct net *n, const char *path)
{
	FILE *f = fopen(path, "re");
	if (!f)
		sr_fatal_sys(SR_EXIT_SYS, "cannot open %s", path);
	char line[512];
	while (fgets(line, sizeof line, f)) {
		char *p = line + strspn(line, " \t");
		p[strcspn(p, "#\r\n")] = 0;
		size_t len = strlen(p);
		while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			p[--len] = 0;
		if (!*p)
			continue;
		int deny = *p == '-';
		char *copy = strdup(deny ? p + 1 : p);
		if (!copy)
			sr_fatal_sys(SR_EXIT_SYS, "out of memory");
		rule_add(n, copy, deny);
	}
	int bad = ferror(f);
	fclose(f);
	if (bad)
		sr_fatal_sys(SR_EXIT_SYS, "cannot read %s", path);
}

static int host_matches(const char *pattern, const char *host)
{
	if (strcmp(pattern, "*") == 0)
		return 1;
	if (strncmp(pattern, "*.", 2) == 0) {
		size_t pl = strlen(pattern + 1), hl = strlen(host);
		return hl > pl && strcmp(host + hl - pl, pattern + 1) == 0;
	}
	return strcmp(pattern, host) == 0;
}

static int port_matches(const struct net_rule *r, uint16_t port)
{
	if (r->nports == 0)
		return r->deny || port == 80 || port == 443;
	for (int i = 0; i < r->nports; i++)
		if (r->ports[i] == port)
			return 1;
	return 0;
}

int rule_decide(const struct net *n, const char *host, uint16_t port, char *why, size_t len)
{
	const struct net_rule *allow = NULL;
	for (size_t i = 0; i < n->nrules; i++) {
		const struct net_rule *r = &n->rules[i];
		if (!host_matches(r->host, host) || !port_matches(r, port))
			continue;
		if (r->deny) {
			snprintf(why, len, "denied by --deny %s", r->text);
			return 0;
		}
		if (!allow)
			allow = r;
	}
	if (allow) {
		snprintf(why, len, "allowed by --allow %s", allow->text);
		return 1;
	}
	snprintf(why, len, "%s port %u is not in the allow list", host, (unsigned)port);
	return 0;
}
