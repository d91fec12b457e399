/* mitm.c - a tunnel to a secret's host, its TLS ended here: first the
 * host's TLS, verified (the host's trust store, or --ca-file) for the
 * host's name, offering http/1.1 alone; if the host cannot be trusted
 * the program gets a 502 that says why. Then the tunnel's 200 and the
 * program's TLS, with the per-run CA's leaf for the host; then the
 * requests (mitm_http.c, mitm_body.c) until either side ends. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <openssl/err.h>
#include <openssl/x509v3.h>

#include "ca.h"
#include "conn.h"
#include "mitm.h"
#include "secret.h"
#include "sr.h"

#define IDLE_S 300              /* a connection with nothing to read */

static void timeout(int fd, long s)
{
	struct timeval tv = { .tv_sec = s };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

/* The host's TLS on s: the connection, or NULL with why recorded. */
static SSL *upstream(struct conn *c, int s, const char *host)
{
	const char *ca = c->n->secrets->ca_file;
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
	SSL *ssl = NULL;
	if (!ctx || !SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) ||
	    (ca ? SSL_CTX_load_verify_locations(ctx, ca, NULL) : SSL_CTX_set_default_verify_paths(ctx)) != 1 ||
	    SSL_CTX_set_alpn_protos(ctx, (const unsigned char *)"\x08http/1.1", 9) != 0 ||
	    !(ssl = SSL_new(ctx))) {
		conn_refuse(c, "no TLS for %s: %s", host, ERR_reason_error_string(ERR_get_error()));
		SSL_CTX_free(ctx);
		return NULL;
	}
	SSL_CTX_free(ctx);              /* held by ssl */
	SSL_set_verify(ssl, SSL_VERIFY_PEER, NULL);
	SSL_set_tlsext_host_name(ssl, host);
	SSL_set1_host(ssl, host);
	SSL_set_fd(ssl, s);
	timeout(s, (long)(c->n->connect_timeout_ms / 1000) + 1);
	if (SSL_connect(ssl) != 1) {
		long v = SSL_get_verify_result(ssl);
		if (v != X509_V_OK)
			conn_refuse(c, "the server %s:443 is not trusted: %s", host,
				    X509_verify_cert_error_string(v));
		else
			conn_refuse(c, "no TLS with the server %s:443: %s", host,
				    ERR_reason_error_string(ERR_get_error()) ?: "it ended the handshake");
		SSL_free(ssl);
		return NULL;
	}
	return ssl;
}

/* The program's TLS on c->fd, with the host's leaf: the connection, or
 * NULL with why recorded. */
static SSL *downstream(struct conn *c, const char *host)
{
	SSL_CTX *ctx = ca_server_ctx(c->n->secrets->ca, host);
	SSL *ssl = ctx ? SSL_new(ctx) : NULL;
	SSL_CTX_free(ctx);
	if (!ssl) {
		conn_refuse(c, "no certificate for %s", host);
		return NULL;
	}
	SSL_set_fd(ssl, c->fd);
	timeout(c->fd, 30);
	const char *sni;
	if (SSL_accept(ssl) != 1) {
		conn_refuse(c, "the program's TLS handshake for %s failed (does it trust "
			    "the run's CA? see --ca-bundle)", host);
	} else if ((sni = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name)) &&
		   strcasecmp(sni, host)) {
		conn_refuse(c, "the TLS server name '%.100s' is not the host asked for, %s", sni, host);
	} else {
		return ssl;
	}
	SSL_free(ssl);
	return NULL;
}

/* One request and its response: 1 to go on, 0 at the end, -1 broken. */
static int exchange(struct mconn *mc, struct mbuf *out)
{
	struct mmsg rq = { .cl = -1 }, rs = { .cl = -1 };
	char *h;
	long hl = mitm_head(&mc->cl, &h);
	out->len = 0;
	out->over = 0;
	if (hl <= 0 || mitm_request_head(mc, h, (size_t)hl, &rq, out) < 0)
		return hl == 0 ? 0 : -1;
	mitm_consume(&mc->cl, (size_t)hl);
	if (mitm_put(mc, mc->up.ssl, out->p, out->len) < 0 || mitm_request_body(mc, &rq) < 0)
		return -1;
	do {
		rs = (struct mmsg){ .cl = -1, .head_req = rq.head_req, .http10 = rq.http10 };
		out->len = 0;
		out->over = 0;
		if ((hl = mitm_head(&mc->up, &h)) <= 0 || mitm_response_head(mc, h, (size_t)hl, &rs, out) < 0)
			return -1;
		mitm_consume(&mc->up, (size_t)hl);
		if (rs.status == 101 || mitm_put(mc, mc->cl.ssl, out->p, out->len) < 0)
			return -1;
	} while (rs.status / 100 == 1);
	if (mitm_has_body(&rs) && rs.cl != 0 && mitm_response_body(mc, &rs) < 0)
		return -1;
	mc->requests++;
	return rq.close || rs.close || rq.http10 || (mitm_has_body(&rs) && rs.cl < 0 && !rs.chunked) ? 0 : 1;
}

int mitm_serve(struct conn *c, int s)
{
	static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
	static struct mconn mc;
	static struct mbuf out;
	memset(&mc, 0, sizeof mc);
	mc.c = c;
	mc.s = secret_for(c->n, c->rec.host, c->rec.port);
	if (!(mc.up.ssl = upstream(c, s, mc.s->host)))
		return -1;
	if (c->len > c->head)
		conn_refuse(c, "bytes came before the tunnel was answered");
	if (c->len > c->head || sr_write_all(c->fd, ok, sizeof ok - 1) < 0 ||
	    !(mc.cl.ssl = downstream(c, mc.s->host))) {
		SSL_free(mc.up.ssl);
		return 0;
	}
	timeout(c->fd, IDLE_S);
	timeout(s, IDLE_S);
	setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof(int));
	int r;
	mc.cl.mc = mc.up.mc = &mc;
	while ((r = exchange(&mc, &out)) > 0)
		;
	if (mitm_flush(&mc) < 0)
		r = -1;
	size_t wl = strlen(c->rec.why);
	snprintf(c->rec.why + wl, sizeof c->rec.why - wl, "; TLS ended here: secret %s swapped "
		 "into %d of %d requests%s%s", mc.s->name, mc.swapped, mc.requests,
		 r < 0 ? "; a malformed or cut message ended the connection" : "",
		 mc.capped ? "; cut at the run's --max-bytes" : "");
	SSL_shutdown(mc.cl.ssl);
	SSL_free(mc.cl.ssl);
	SSL_free(mc.up.ssl);
	return 0;
}
