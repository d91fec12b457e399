/* ca.h - the per-run CA (ca.c): made at start, its certificate in the
 * bundle the program trusts, a leaf for each secret's host. */
#ifndef SR_NET_CA_H
#define SR_NET_CA_H

#include "secret.h"

struct ca *ca_make(const struct net_secrets *ss);
/* The bundle: the host's CA certificates and the per-run CA's. */
void ca_bundle(const struct ca *ca, const char *path);
/* A server context for host (a leaf the per-run CA signed, http/1.1
 * alone in ALPN), or NULL. */
void *ca_server_ctx(const struct ca *ca, const char *host);

#endif
