/* mitm_io.c - either side of a connection whose TLS sr-net ends: what
 * came read into the side's buffer (a head whole), what goes written
 * and counted (the connection's record, the run's --max-bytes). */
#include <string.h>

#include <openssl/ssl.h>

#include "conn.h"
#include "mitm.h"

static int send_out(struct mside *m)
{
	const char *p = m->out;
	while (m->olen) {
		int w = SSL_write(m->ssl, p, (int)m->olen);
		if (w <= 0)
			return -1;
		p += w;
		m->olen -= (size_t)w;
	}
	return 0;
}

int mitm_flush(struct mconn *mc)
{
	return send_out(&mc->cl) < 0 || send_out(&mc->up) < 0 ? -1 : 0;
}

/* More bytes from m's peer (what is to send sent first, unless they are
 * there already): how many, 0 at the end or on error. */
static int fill(struct mside *m)
{
	if (m->len >= HEAD_MAX || (!SSL_pending(m->ssl) && mitm_flush(m->mc) < 0))
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
	struct mside *m = way ? &mc->cl : &mc->up;
	while (n) {
		size_t take = n < MITM_OUT - m->olen ? n : MITM_OUT - m->olen;
		memcpy(m->out + m->olen, p, take);
		m->olen += take;
		p = (const char *)p + take;
		n -= take;
		if (m->olen == MITM_OUT && send_out(m) < 0)
			return -1;
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
