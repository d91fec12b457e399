/* http.c - the HTTP proxy's two requests: CONNECT host:port (a tunnel,
 * answered 200 once the server is reached) and a plain request in
 * absolute form (GET http://host/path), passed on in origin form with
 * the proxy's headers dropped, Host set to the host judged (a Host
 * naming another site is never passed on) and "Connection: close", so
 * that the connection carries this one request to this one host. A
 * refusal is an HTTP status whose body says why in one line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "conn.h"
#include "ca.h"
#include "secret.h"
#include "sr-net.h"
#include "sr.h"

static void answer(struct conn *c, int status, const char *reason)
{
	char body[512], head[768];
	int bl = snprintf(body, sizeof body, "sr-net: refused %s%s%u: %s\n",
			  c->rec.host[0] ? c->rec.host : "the request",
			  c->rec.host[0] ? ":" : "", c->rec.host[0] ? (unsigned)c->rec.port : 0,
			  c->rec.why);
	if (!c->rec.host[0])
		bl = snprintf(body, sizeof body, "sr-net: refused the request: %s\n", c->rec.why);
	if (bl >= (int)sizeof body)
		bl = (int)sizeof body - 1;
	int hl = snprintf(head, sizeof head,
			  "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\n"
			  "Connection: close\r\nX-Sr-Net: refused\r\nContent-Length: %d\r\n\r\n",
			  status, reason, bl);
	if (sr_write_all(c->fd, head, (size_t)hl) == 0)
		sr_write_all(c->fd, body, (size_t)bl);
}

/* host[:port] (brackets around an IPv6 literal) into the record. */
static int authority(struct conn *c, const char *s, size_t len, unsigned dflt)
{
	const char *colon = NULL, *hend = s + len;
	if (len && s[0] == '[') {
		const char *rb = memchr(s, ']', len);
		if (!rb || (rb + 1 < s + len && rb[1] != ':'))
			return -1;
		colon = rb + 1 < s + len ? rb + 1 : NULL;
		hend = rb + 1;
	} else if ((colon = memchr(s, ':', len))) {
		hend = colon;
	}
	if (hend == s || (size_t)(hend - s) > NET_HOST_MAX || memchr(s, '@', len))
		return -1;
	memcpy(c->rec.host, s, (size_t)(hend - s));
	c->rec.host[hend - s] = 0;
	uint64_t port = dflt;
	if (colon) {
		char p[8];
		size_t pl = (size_t)(s + len - colon - 1);
		if (pl == 0 || pl >= sizeof p)
			return -1;
		memcpy(p, colon + 1, pl);
		p[pl] = 0;
		if (sr_parse_count(p, 65535, &port) < 0 || port == 0)
			return -1;
	}
	if (!port)
		return -1;
	c->rec.port = (uint16_t)port;
	return 0;
}

/* Is the header line (no CRLF) one the proxy keeps? 1 keep, 0 drop, -1
 * malformed; counts what could smuggle a second request. */
static int header_kept(const char *l, size_t len, int *cl, int *te)
{
	const char *colon = memchr(l, ':', len);
	if (!colon || colon == l || l[0] == ' ' || l[0] == '\t' || memchr(l, '\n', len) ||
	    memchr(l, '\r', len) || memchr(l, 0, len))
		return -1;
	size_t nl = (size_t)(colon - l);
	static const char *const drop[] = { "proxy-connection", "proxy-authorization",
		"connection", "keep-alive", "host", "te", "upgrade" };
	if (nl == 14 && !strncasecmp(l, "content-length", 14))
		(*cl)++;
	if (nl == 17 && !strncasecmp(l, "transfer-encoding", 17))
		(*te)++;
	for (size_t i = 0; i < sizeof drop / sizeof drop[0]; i++)
		if (strlen(drop[i]) == nl && !strncasecmp(l, drop[i], nl))
			return 0;
	return 1;
}

/* The request's head passed on: the request line in origin form, the
 * kept headers, Host and Connection: close (malloc'd), or NULL when
 * the head is malformed. */
static char *rewrite(struct conn *c, const char *method, const char *path, const char *version,
		     const char *hdrs, const char *end, size_t *outlen)
{
	size_t cap = 2 * HEAD_MAX + 512, len = 0;
	char *out = malloc(cap);
	int cl = 0, te = 0;
	if (!out)
		return NULL;
	len += (size_t)snprintf(out, cap, "%s %s %s\r\n", method, path, version);
	for (const char *l = hdrs; l < end;) {
		const char *e = strstr(l, "\r\n");
		int k = header_kept(l, (size_t)(e - l), &cl, &te);
		if (k < 0)
			goto out;
		if (k && len + (size_t)(e - l) + 2 < cap) {
			memcpy(out + len, l, (size_t)(e - l) + 2);
			len += (size_t)(e - l) + 2;
		}
		l = e + 2;
	}
	if (cl > 1 || (cl && te) || te > 1)
		goto out;
	char port[8] = "";
	if (c->rec.port != 80)
		snprintf(port, sizeof port, ":%u", (unsigned)c->rec.port);
	int v6 = strchr(c->rec.host, ':') != NULL;
	len += (size_t)snprintf(out + len, cap - len, "Host: %s%s%s%s\r\nConnection: close\r\n\r\n",
				v6 ? "[" : "", c->rec.host, v6 ? "]" : "", port);
	if (len >= cap)
		goto out;
	*outlen = len;
	return out;
out:
	free(out);
	return NULL;
}

/* The server reached: the request passed on (fwd), or the tunnel
 * opened, then the bytes relayed. */
static void serve_open(struct conn *c, int s, const char *fwd, size_t fwdlen)
{
	static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
	if (fwd) {
		if (sr_write_all(s, fwd, fwdlen) == 0) {
			c->rec.sent += fwdlen;
			conn_relay(c, s);
		}
	} else if (secret_for(c->n, c->rec.host, c->rec.port)) {
		if (mitm_serve(c, s) < 0)
			answer(c, 502, "Bad Gateway");
	} else if (sr_write_all(c->fd, ok, sizeof ok - 1) == 0 &&
		   (c->rec.port != 443 || conn_check_sni(c) == 0)) {
		conn_relay(c, s);
	}
	close(s);
}

/* The request line "METHOD TARGET HTTP/1.x": its three parts, NUL-ended
 * in line (modified); 0, or -1. */
static int request_line(char *line, char **method, char **target, char **version)
{
	*method = line;
	char *sp = strchr(line, ' ');
	if (!sp)
		return -1;
	*sp = 0;
	*target = sp + 1;
	if (!(sp = strchr(*target, ' ')))
		return -1;
	*sp = 0;
	*version = sp + 1;
	if (strcmp(*version, "HTTP/1.1") && strcmp(*version, "HTTP/1.0"))
		return -1;
	for (char *p = *method; *p; p++)
		if (*p < 'A' || *p > 'Z')
			return -1;
	return **method && **target ? 0 : -1;
}

/* The target of a request: CONNECT's authority, or an absolute http://
 * URL's (its path in *path). 0, or -1 with the status to answer. */
static int target(struct conn *c, const char *method, char *t, char **path)
{
	if (!strcmp(method, "CONNECT")) {
		c->rec.via = "connect";
		return authority(c, t, strlen(t), 0);
	}
	c->rec.via = "http";
	if (strncasecmp(t, "http://", 7) != 0)
		return -1;
	char *a = t + 7;
	size_t al = strcspn(a, "/?#");
	static char slash[] = "/";
	if (authority(c, a, al, 80) < 0)
		return -1;
	if (a[al] == '/') {
		*path = a + al;
	} else if (a[al] == '?') {      /* http://host?q: the path is "/?q" */
		static char q[HEAD_MAX + 2];
		snprintf(q, sizeof q, "/%s", a + al);
		*path = q;
	} else {
		*path = slash;
	}
	return 0;
}

void http_serve(struct conn *c)
{
	char *end;
	while (!(end = memmem(c->buf, c->len, "\r\n\r\n", 4))) {
		if (c->len >= HEAD_MAX) {
			conn_refuse(c, "the request head is longer than %d bytes", HEAD_MAX);
			answer(c, 431, "Request Header Fields Too Large");
			return;
		}
		if (conn_read(c) <= 0) {
			conn_refuse(c, "no whole request head came within the time");
			answer(c, 408, "Request Timeout");
			return;
		}
	}
	c->head = (size_t)(end - c->buf) + 4;
	int nul = memchr(c->buf, 0, c->head) != NULL;
	char *eol = strstr(c->buf, "\r\n");
	*eol = 0;
	char *method, *t, *version, *path = NULL;
	if (nul || request_line(c->buf, &method, &t, &version) < 0 ||
	    target(c, method, t, &path) < 0) {
		c->rec.host[0] = 0;
		conn_refuse(c, "a malformed proxy request (want CONNECT host:port or "
			    "METHOD http://host/path, HTTP/1.x)");
		answer(c, 400, "Bad Request");
		return;
	}
	char *fwd = NULL;
	size_t fwdlen = 0;
	if (path && !(fwd = rewrite(c, method, path, version, eol + 2, end + 2, &fwdlen))) {
		conn_refuse(c, "a malformed request head (a header without a name, line "
			    "folding, or a length given twice or both ways)");
		answer(c, 400, "Bad Request");
		return;
	}
	if (c->over) {
		conn_refuse(c, "more connections at once than --max-connections allows");
		answer(c, 503, "Service Unavailable");
	} else {
		int s = conn_open(c);
		if (s < 0)
			answer(c, c->unreachable ? 502 : 403,
			       c->unreachable ? "Bad Gateway" : "Forbidden");
		else
			serve_open(c, s, fwd, fwdlen);
	}
	free(fwd);
}
