/* mitm_body.c - the bodies of a connection sr-net ends TLS for: a
 * request's passed on as it came (a chunked one re-chunked, trailers
 * dropped), a response's read by its framing (Content-Length, chunked,
 * or to the end) and passed on chunked (to an HTTP/1.0 client: to the
 * end) with every secret's value replaced by its placeholder, a value
 * split across reads found all the same (the tail that may start one is
 * held back until the next read). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mitm.h"
#include "secret.h"
#include "sr.h"

#define PIECE 2048

struct sink {
	SSL *to;
	int chunked, redact;
	char carry[SECRET_VALUE_MAX];
	size_t clen;
};

static int emit(struct mconn *mc, struct sink *k, const char *p, size_t n)
{
	char size[24];
	int sl = snprintf(size, sizeof size, "%zx\r\n", n);
	if (!n)
		return 0;
	if (!k->chunked)
		return mitm_put(mc, k->to, p, n);
	return mitm_put(mc, k->to, size, (size_t)sl) || mitm_put(mc, k->to, p, n) ||
	       mitm_put(mc, k->to, "\r\n", 2) ? -1 : 0;
}

/* n bytes of body (p NULL: the end) to the sink. */
static int sink(struct mconn *mc, struct sink *k, const char *p, size_t n)
{
	static struct mbuf out;
	static char work[SECRET_VALUE_MAX + PIECE];
	if (!k->redact)
		return p ? emit(mc, k, p, n) : k->chunked ? mitm_put(mc, k->to, "0\r\n\r\n", 5) : 0;
	do {
		size_t take = n > PIECE ? PIECE : n;
		memcpy(work, k->carry, k->clen);
		if (p)
			memcpy(work + k->clen, p, take);
		out.len = 0;
		size_t keep = mitm_redact(mc, work, k->clen + take, !p, &out);
		memcpy(k->carry, work + k->clen + take - keep, keep);
		k->clen = keep;
		if (out.over || emit(mc, k, out.p, out.len) < 0)
			return -1;
		if (p)
			p += take;
		n -= take;
	} while (n);
	return p || !k->chunked ? 0 : mitm_put(mc, k->to, "0\r\n\r\n", 5);
}

/* up to n bytes (n < 0: to the end) from m to the sink. */
static int pass(struct mconn *mc, struct mside *m, struct sink *k, int64_t n)
{
	while (n) {
		if (!m->len && !mitm_fill(m))
			return n < 0 ? 0 : -1;
		size_t take = n < 0 || (uint64_t)n > m->len ? m->len : (size_t)n;
		if (sink(mc, k, m->buf, take) < 0)
			return -1;
		mitm_consume(m, take);
		n -= n < 0 ? 0 : (int64_t)take;
	}
	return 0;
}

/* A line of m (the chunk's size, a trailer): its length with CRLF. */
static long line(struct mside *m)
{
	char *e;
	while (!(e = memmem(m->buf, m->len, "\r\n", 2)))
		if (m->len >= 4096 || !mitm_fill(m))
			return -1;
	return e - m->buf + 2;
}

static int chunks(struct mconn *mc, struct mside *m, struct sink *k)
{
	for (;;) {
		long l = line(m);
		char *end;
		if (l < 0)
			return -1;
		unsigned long long size = strtoull(m->buf, &end, 16);
		if (end == m->buf || (*end != ';' && *end != '\r') || size > (1ULL << 40))
			return -1;
		mitm_consume(m, (size_t)l);
		if (!size)
			break;
		if (pass(mc, m, k, (int64_t)size) < 0 || line(m) != 2)
			return -1;
		mitm_consume(m, 2);
	}
	long l;
	while ((l = line(m)) > 2)       /* trailers: dropped */
		mitm_consume(m, (size_t)l);
	if (l != 2)
		return -1;
	mitm_consume(m, 2);
	return 0;
}

static int body(struct mconn *mc, struct mside *from, const struct mmsg *m, struct sink *k,
		int to_end)
{
	int r = m->chunked ? chunks(mc, from, k) :
		m->cl >= 0 ? pass(mc, from, k, m->cl) : to_end ? pass(mc, from, k, -1) : 0;
	return r < 0 ? -1 : sink(mc, k, NULL, 0);
}

int mitm_request_body(struct mconn *mc, const struct mmsg *m)
{
	static struct sink k;
	memset(&k, 0, sizeof k);
	k.to = mc->up.ssl;
	k.chunked = m->chunked;
	return body(mc, &mc->cl, m, &k, 0);
}

int mitm_response_body(struct mconn *mc, const struct mmsg *m)
{
	static struct sink k;
	memset(&k, 0, sizeof k);
	k.to = mc->cl.ssl;
	k.chunked = !m->http10;
	k.redact = 1;
	return body(mc, &mc->up, m, &k, 1);
}
