/* secret.h - the secrets sr-net swaps in (secret.c: the options, the
 * values, the placeholders), the per-run CA that lets it end TLS for
 * their hosts (ca.h). */
#ifndef SR_NET_SECRET_H
#define SR_NET_SECRET_H

#include <stddef.h>

#include "sr-net.h"

#define SECRET_PH_LEN 37        /* "srph_" and 32 hex digits */
#define SECRET_VALUE_MAX 4096
#define SECRET_VALUE_MIN 8

struct net_secret {
	char *name;             /* the variable the program sees */
	char *host;             /* canonical name */
	char *header;           /* the one header the value goes into */
	char *value;            /* never in argv, a record or the program's env */
	size_t vlen;
	char ph[SECRET_PH_LEN + 1];
};

struct net_secrets {
	struct net_secret *s;
	size_t n, cap;
	const char *ca_file;            /* the upstream's trust; NULL: the host's */
	const char *bundle;             /* where the CA bundle is written */
	const char *bundle_as;          /* the path the program's env names */
	struct ca *ca;                  /* the per-run CA (ca.c) */
};

/* secret.c */
void secret_add(struct net *n, const char *arg);
void secret_file(struct net *n, const char *arg);
/* Values read, placeholders made, the CA and the bundle made. */
void secret_setup(struct net *n);
void secret_check(struct net *n);
/* The program's environment set before it starts: NAME=placeholder,
 * the CA variables naming the bundle (its path where the program sees
 * it). secret_env_undo puts back what they held, once the program has
 * started: the proxy's own TLS trusts the host's store, and the bundle's
 * path may name a file the jail alone has. */
void secret_env(const struct net *n);
void secret_env_undo(void);
/* The secrets of host (port 443 only): the first, or NULL. */
const struct net_secret *secret_for(const struct net *n, const char *host, unsigned port);

#endif
