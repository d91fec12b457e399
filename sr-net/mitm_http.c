/* mitm_http.c - HTTP/1.1 between the program and a secret's host, over
 * the two TLS connections mitm.c made: each request's head read whole
 * and strictly (as http.c reads a proxy request), the placeholder
 * replaced by the value in the secret's header and nowhere else, Host
 * set to the host, Accept-Encoding dropped (so that responses come
 * uncompressed, where the value can be found), the body passed on; each
 * response's head and body with every secret's value replaced by its
 * placeholder, the body re-framed chunked (the value and the placeholder
 * differ in length). Several requests a connection (keep-alive). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/ssl.h>

#include "mitm.h"
#include "secret.h"
#include "sr.h"

/* One header line l (no CRLF) of length ll: its name's length, or -1. */
static long header_name(const char *l, size_t ll)
{
	const char *colon = memchr(l, ':', ll);
	if (!colon || colon == l || l[0] == ' ' || l[0] == '\t' || memchr(l, '\r', ll) ||
	    memchr(l, '\n', ll))
		return -1;
	for (const char *p = l; p < colon; p++)
		if (*p == ' ' || *p == '\t')
			return -1;
	return colon - l;
}

static int is(const char *l, long nl, const char *name)
{
	return (size_t)nl == strlen(name) && !strncasecmp(l, name, (size_t)nl);
}

/* A header's value, spaces trimmed. */
static void value(const char *l, size_t ll, long nl, const char **v, size_t *vl)
{
	*v = l + nl + 1;
	*vl = ll - (size_t)nl - 1;
	while (*vl && (**v == ' ' || **v == '\t'))
		(*v)++, (*vl)--;
	while (*vl && ((*v)[*vl - 1] == ' ' || (*v)[*vl - 1] == '\t'))
		(*vl)--;
}

/* What framing a head's headers give its body, and whether the
 * connection ends after it: 0, or -1 when contradictory. */
static int framing(const char *l, size_t ll, long nl, struct mmsg *m)
{
	const char *v;
	size_t vl;
	value(l, ll, nl, &v, &vl);
	if (is(l, nl, "content-length")) {
		char num[24];
		uint64_t n;
		if (m->cl >= 0 || vl == 0 || vl >= sizeof num)
			return -1;
		memcpy(num, v, vl);
		num[vl] = 0;
		if (sr_parse_count(num, UINT64_MAX >> 2, &n) < 0)
			return -1;
		m->cl = (int64_t)n;
	} else if (is(l, nl, "transfer-encoding")) {
		if (m->chunked || vl != 7 || strncasecmp(v, "chunked", 7))
			return -1;
		m->chunked = 1;
	} else if (is(l, nl, "connection") && memmem(v, vl, "close", 5)) {
		m->close = 1;
	}
	return 0;
}

/* Append to a growing buffer (cap HEAD_MAX * 2 + 1024). */
static void add(struct mbuf *b, const void *p, size_t n)
{
	if (b->len + n <= sizeof b->p) {
		memcpy(b->p + b->len, p, n);
		b->len += n;
	} else {
		b->over = 1;
	}
}

/* The request head h (hl bytes) as it goes to the host, into out. */
int mitm_request_head(struct mconn *mc, const char *h, size_t hl, struct mmsg *m, struct mbuf *out)
{
	const char *eol = memmem(h, hl, "\r\n", 2), *end = h + hl - 2;
	static const char *const drop[] = { "host", "accept-encoding", "expect", "te", "upgrade",
		"proxy-connection", "proxy-authorization", "keep-alive" };
	if (memchr(h, 0, hl) || mitm_request_line(h, (size_t)(eol - h), m) < 0)
		return -1;
	add(out, h, (size_t)(eol - h) + 2);
	for (const char *l = eol + 2; l < end;) {
		const char *e = memmem(l, (size_t)(end + 2 - l), "\r\n", 2);
		size_t ll = (size_t)(e - l);
		long nl = header_name(l, ll);
		int keep = 1;
		if (nl < 0 || framing(l, ll, nl, m) < 0)
			return -1;
		for (size_t i = 0; i < sizeof drop / sizeof drop[0]; i++)
			keep &= !is(l, nl, drop[i]);
		if (keep && is(l, nl, mc->s->header))
			mitm_swap(mc, l, ll, out);
		else if (keep)
			add(out, l, ll + 2);
		l = e + 2;
	}
	if (m->cl >= 0 && m->chunked)
		return -1;
	add(out, "Host: ", 6);
	add(out, mc->s->host, strlen(mc->s->host));
	add(out, "\r\n\r\n", 4);
	return out->over ? -1 : 0;
}

/* The header line l with the secret's placeholder replaced by its value
 * (the one place the value is ever written), with its CRLF, into out. */
void mitm_swap(struct mconn *mc, const char *l, size_t ll, struct mbuf *out)
{
	const char *p = l, *e = l + ll, *f;
	int n = 0;
	while ((f = memmem(p, (size_t)(e - p), mc->s->ph, SECRET_PH_LEN))) {
		add(out, p, (size_t)(f - p));
		add(out, mc->s->value, mc->s->vlen);
		p = f + SECRET_PH_LEN;
		n++;
	}
	add(out, p, (size_t)(e - p));
	add(out, "\r\n", 2);
	mc->swapped += n > 0;
}

/* The response head h: status, framing; into out with every value
 * replaced by its placeholder, the body's framing made chunked. */
int mitm_response_head(struct mconn *mc, const char *h, size_t hl, struct mmsg *m, struct mbuf *out)
{
	const char *eol = memmem(h, hl, "\r\n", 2), *end = h + hl - 2;
	if (memchr(h, 0, hl) || eol - h < 12 || strncmp(h, "HTTP/1.", 7) || h[8] != ' ')
		return -1;
	m->status = atoi(h + 9);
	struct mbuf *raw = malloc(sizeof *raw);
	if (!raw)
		return -1;
	raw->len = 0;
	raw->over = 0;
	add(raw, h, (size_t)(eol - h) + 2);
	for (const char *l = eol + 2; l < end;) {
		const char *e = memmem(l, (size_t)(end + 2 - l), "\r\n", 2);
		size_t ll = (size_t)(e - l);
		long nl = header_name(l, ll);
		if (nl < 0 || framing(l, ll, nl, m) < 0) {
			free(raw);
			return -1;
		}
		if (!is(l, nl, "content-length") && !is(l, nl, "transfer-encoding"))
			add(raw, l, ll + 2);
		else if (!mitm_has_body(m))
			add(raw, l, ll + 2);
		l = e + 2;
	}
	if (mitm_has_body(m) && m->cl != 0)
		add(raw, m->http10 ? "Connection: close\r\n" : "Transfer-Encoding: chunked\r\n",
		    m->http10 ? 19 : 28);
	else if (mitm_has_body(m))
		add(raw, "Content-Length: 0\r\n", 19);
	add(raw, "\r\n", 2);
	mitm_redact(mc, raw->p, raw->len, 1, out);
	int over = raw->over;
	free(raw);
	return over || out->over ? -1 : 0;
}

int mitm_request_line(const char *l, size_t ll, struct mmsg *m)
{
	const char *sp = memchr(l, ' ', ll), *sp2 = sp ? memchr(sp + 1, ' ', (size_t)(l + ll - sp - 1)) : NULL;
	if (!sp || sp == l || !sp2 || sp2 == sp + 1 || l + ll - sp2 - 1 != 8)
		return -1;
	for (const char *p = l; p < sp; p++)
		if (*p < 'A' || *p > 'Z')
			return -1;
	if (!memcmp(sp2 + 1, "HTTP/1.0", 8))
		m->http10 = 1;
	else if (memcmp(sp2 + 1, "HTTP/1.1", 8))
		return -1;
	m->head_req = sp - l == 4 && !memcmp(l, "HEAD", 4);
	return 0;
}

int mitm_has_body(const struct mmsg *m)
{
	return !(m->head_req || m->status / 100 == 1 || m->status == 204 || m->status == 304);
}

size_t mitm_redact(struct mconn *mc, const char *p, size_t n, int all, struct mbuf *out)
{
	const struct net_secrets *ss = mc->c->n->secrets;
	size_t longest = 0, i = 0;
	for (size_t k = 0; k < ss->n; k++)
		if (ss->s[k].vlen > longest)
			longest = ss->s[k].vlen;
	while (i < n && (all || n - i >= longest)) {
		size_t k;
		for (k = 0; k < ss->n; k++)
			if (ss->s[k].vlen <= n - i && !memcmp(p + i, ss->s[k].value, ss->s[k].vlen))
				break;
		const char *w = k < ss->n ? ss->s[k].ph : p + i;
		size_t wl = k < ss->n ? SECRET_PH_LEN : 1;
		if (out->len + wl > sizeof out->p) {
			out->over = 1;
			return n - i;
		}
		memcpy(out->p + out->len, w, wl);
		out->len += wl;
		i += k < ss->n ? ss->s[k].vlen : 1;
	}
	return n - i;
}
