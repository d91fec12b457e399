/* mitm_io.c - either side of a connection whose TLS sr-net ends: what
 * came read into the side's buffer (a head whole), what goes written
 * and counted (the connection's record, the run's --max-bytes). */
#include <string.h>

#include <openssl/ssl.h>

#include "conn.h"
#include "mitm.h"

/* More bytes from m's peer: how many, 0 at the end or on error. */
static int fill(struct mside *m)
{
	if (m->len >= HEAD_MAX)
		return 0;
	int r = SSL_read(m->ssl, m->buf + m->len, (int)(HEAD_MAX - m->len));
	if (r <= 0)
		return 0;
	m->len += (size_t)r;
	return r;
}

static void consume(struct mside *m, size_t n)
{
	memmove(m->buf, m->buf + n, m->len - n);
	m->len -= n;
}

/* A whole head at the start of m->buf: its length; 0 when the peer
 * ended before a byte of it; -1 on error, -2 too long. */
static long read_head(struct mside *m)
{
	char *e;
	while (!(e = memmem(m->buf, m->len, "\r\n\r\n", 4))) {
		if (m->len >= HEAD_MAX)
			return -2;
		size_t had = m->len;
		if (!fill(m))
			return had ? -1 : 0;
	}
	return (long)(e - m->buf) + 4;
}

int mitm_put(struct mconn *mc, SSL *to, const void *p, size_t n)
{
	int way = to == mc->up.ssl ? 0 : 1;
	uint64_t *mine = way ? &mc->c->rec.received : &mc->c->rec.sent;
	*mine += n;
	uint64_t total = __atomic_add_fetch(&mc->c->bytes[way], (uint64_t)n, __ATOMIC_RELAXED);
	if (mc->c->n->max_bytes && total > mc->c->n->max_bytes) {
		mc->capped = 1;
		return -1;
	}
	while (n) {
		int w = SSL_write(to, p, n > 1 << 30 ? 1 << 30 : (int)n);
		if (w <= 0)
			return -1;
		p = (const char *)p + w;
		n -= (size_t)w;
	}
	return 0;
}

long mitm_head(struct mside *m, char **h)
{
	long hl = read_head(m);
	*h = hl > 0 ? m->buf : NULL;
	return hl;
}

void mitm_consume(struct mside *m, size_t n)
{
	consume(m, n);
}

int mitm_fill(struct mside *m)
{
	return fill(m);
}
