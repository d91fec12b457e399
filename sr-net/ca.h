/* ca.h - the per-run CA (ca.c): made at start, its certificate in the
 * bundle the program trusts, a leaf for each secret's host. */
#ifndef SR_NET_CA_H
#define SR_NET_CA_H

#include "secret.h"

/* ca_make, ca_bundle and mitm_serve, the TLS half's entries,
 * are weak: sr-net is linked without that half (no OpenSSL loaded), where
 * they are NULL and a --secret execs sr-net-tls, the program linked with
 * it (main.c); the half is reached only through a secret, so never NULL
 * where it is called. */
#define SR_NET_TLS_ENTRY __attribute__((weak))

SR_NET_TLS_ENTRY struct ca *ca_make(const struct net_secrets *ss);
/* The bundle: the host's CA certificates and the per-run CA's. */
SR_NET_TLS_ENTRY void ca_bundle(const struct ca *ca, const char *path);
/* A server context for host (a leaf the per-run CA signed, http/1.1
 * alone in ALPN), or NULL. */
void *ca_server_ctx(const struct ca *ca, const char *host);

/* mitm.c: serve the tunnel c asked for (server socket s) with TLS ended
 * here: 0 when served, -1 when refused before the answer (why in the
 * record: the caller answers 502). This header names no OpenSSL type:
 * sr-net, linked without the half (and against musl), includes it. */
struct conn;
SR_NET_TLS_ENTRY int mitm_serve(struct conn *c, int s);

#endif
