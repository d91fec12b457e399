/* etc.c - the jail's /etc: only what programs need to run, read-only
 * from the host, plus a generated passwd and group. Never shadow,
 * sudoers, ssh keys or anything else of the host's. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "jail.h"
#include "etc.h"
#include "plan.h"
#include "sr.h"

/* Each costs a bind mount (10 us or so): the list is kept to what the
 * dynamic loader, name and address lookup, TLS and time zones read. A
 * link among them is made again as a link (/etc/localtime's target names
 * the zone), except /etc/resolv.conf, bound as the file it leads to: its
 * target is most often under /run (systemd-resolved, NetworkManager),
 * which the jail does not have, and --share-net needs it to resolve. */
static const char *const etc_entries[] = {
	"/etc/ld.so.cache", "/etc/alternatives",
	"/etc/ssl/certs", "/etc/ssl/openssl.cnf", "/etc/pki/tls/certs",
	"/etc/localtime", "/etc/nsswitch.conf", "/etc/hosts",
	"/etc/protocols", "/etc/services", "/etc/os-release",
};

const char *jail_user_name(const struct jail *j)
{
	return j->uid == 0 ? "root" : "sandbox";
}

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
	char *s;
	va_list ap;
	va_start(ap, f);
	int n = vasprintf(&s, f, ap);
	va_end(ap);
	if (n < 0)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	return s;
}

/* The sandbox user, and root and nobody so that ls -l has names. */
static char *passwd(const struct jail *j)
{
	const char *name = jail_user_name(j);
	return fmt("%s%s:x:%u:%u:%s:" JAIL_HOME ":/bin/sh\n%s",
		   j->uid ? "root:x:0:0:root:/root:/usr/sbin/nologin\n" : "",
		   name, (unsigned)j->uid, (unsigned)j->gid, name,
		   j->uid != JAIL_NOBODY ?
		   "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n" : "");
}

static char *group(const struct jail *j)
{
	return fmt("%s%s:x:%u:\n%s", j->gid ? "root:x:0:\n" : "",
		   j->gid ? "sandbox" : "root", (unsigned)j->gid,
		   j->gid != JAIL_NOBODY ? "nogroup:x:65534:\n" : "");
}

void jail_plan_etc(struct plan *p, const struct jail *j)
{
	for (size_t i = 0; i < sizeof etc_entries / sizeof *etc_entries; i++)
		plan_host(p, etc_entries[i], etc_entries[i], JAIL_RO, 1);
	plan_host_target(p, "/etc/resolv.conf", "/etc/resolv.conf", JAIL_RO);
	plan_add(p, S_FILE, "/etc/passwd")->text = passwd(j);
	plan_add(p, S_FILE, "/etc/group")->text = group(j);
}
