/* mitm.h - a connection whose TLS sr-net ends, for a secret's host:
 * mitm.c (the TLS of both sides, the loop of requests) above
 * mitm_body.c (the bodies) above mitm_http.c (the heads, the swap and
 * the redaction) above mitm_io.c (reading and writing either side). */
#ifndef SR_NET_MITM_H
#define SR_NET_MITM_H

#include <stdint.h>

#include <openssl/ssl.h>

#include "conn.h"
#include "secret.h"

#define MITM_OUT 16384

struct mside {
	SSL *ssl;
	struct mconn *mc;
	char buf[HEAD_MAX + 1];
	size_t len;             /* read, not yet used */
	char out[MITM_OUT];     /* to send: sent as one TLS record, before */
	size_t olen;            /* any read that could wait (Nagle's delay) */
};

struct mbuf {
	char p[2 * HEAD_MAX + 1024];
	size_t len;
	int over;
};

/* One message's framing. */
struct mmsg {
	int64_t cl;             /* Content-Length, -1 none */
	int chunked, close, status;
	int head_req, http10;   /* the request was HEAD, HTTP/1.0 */
};

struct mconn {
	struct conn *c;
	const struct net_secret *s;
	struct mside cl, up;    /* the program's side, the host's */
	int swapped;            /* requests the value went into */
	int requests;           /* answered */
	int capped;
};

int mitm_put(struct mconn *mc, SSL *to, const void *p, size_t n);
/* What both sides hold to send, sent: 0, or -1. */
int mitm_flush(struct mconn *mc);
long mitm_head(struct mside *m, char **h);
void mitm_consume(struct mside *m, size_t n);
int mitm_fill(struct mside *m);
int mitm_request_line(const char *l, size_t ll, struct mmsg *m);
int mitm_request_head(struct mconn *mc, const char *h, size_t hl, struct mmsg *m, struct mbuf *out);
int mitm_response_head(struct mconn *mc, const char *h, size_t hl, struct mmsg *m, struct mbuf *out);
void mitm_swap(struct mconn *mc, const char *l, size_t ll, struct mbuf *out);
int mitm_has_body(const struct mmsg *m);
/* Every secret's value in p replaced by its placeholder, into out; all:
 * to the end (else a tail that may start a value is left: its length). */
size_t mitm_redact(struct mconn *mc, const char *p, size_t n, int all, struct mbuf *out);
/* The request's body to the host as it came (0, or -1); the response's
 * to the program redacted and re-framed (0, or -1). */
int mitm_request_body(struct mconn *mc, const struct mmsg *m);
int mitm_response_body(struct mconn *mc, const struct mmsg *m);

#endif
