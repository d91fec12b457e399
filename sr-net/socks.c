/* socks.c - SOCKS5 (RFC 1928), CONNECT only and without authentication:
 * a name is sent as a name and resolved by the proxy (what socks5h://
 * asks for); an address is judged as an address. A refusal is the reply
 * code that fits (2: not allowed by the rules, 4: unreachable, 5: the
 * server refused, 7: a command other than CONNECT), and the record says
 * why; SOCKS has no room for words. */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "conn.h"
#include "sr.h"

/* Wait until c->buf holds n bytes: 0, or -1. */
static int need(struct conn *c, size_t n)
{
	while (c->len < n)
		if (n > HEAD_MAX || conn_read(c) <= 0)
			return -1;
	return 0;
}

static void reply(struct conn *c, unsigned char code)
{
	unsigned char r[10] = { 5, code, 0, 1, 0, 0, 0, 0, 0, 0 };
	sr_write_all(c->fd, r, sizeof r);
}

/* The greeting: 0 when "no authentication" is offered (and chosen). */
static int greet(struct conn *c)
{
	if (need(c, 2) < 0 || need(c, 2 + (unsigned char)c->buf[1]) < 0)
		return -1;
	size_t nm = (unsigned char)c->buf[1];
	int ok = memchr(c->buf + 2, 0, nm) != NULL;
	unsigned char r[2] = { 5, ok ? 0 : 0xff };
	sr_write_all(c->fd, r, sizeof r);
	memmove(c->buf, c->buf + 2 + nm, c->len - 2 - nm);
	c->len -= 2 + nm;
	return ok ? 0 : -1;
}

/* The request's address into the record: its length, or -1. */
static int request(struct conn *c)
{
	if (need(c, 5) < 0)
		return -1;
	const unsigned char *b = (const unsigned char *)c->buf;
	size_t alen = b[3] == 1 ? 4 : b[3] == 4 ? 16 : b[3] == 3 ? (size_t)b[4] + 1 : 0;
	if (b[0] != 5 || !alen || need(c, 4 + alen + 2) < 0)
		return -1;
	b = (const unsigned char *)c->buf;
	if (b[3] == 3) {
		if (b[4] == 0 || memchr(b + 5, 0, b[4]))
			return -1;
		memcpy(c->rec.host, b + 5, b[4]);
		c->rec.host[b[4]] = 0;
	} else if (!inet_ntop(b[3] == 1 ? AF_INET : AF_INET6, b + 4, c->rec.host,
			      sizeof c->rec.host)) {
		return -1;
	}
	c->rec.port = (uint16_t)(b[4 + alen] << 8 | b[4 + alen + 1]);
	return (int)(4 + alen + 2);
}

void socks_serve(struct conn *c)
{
	c->rec.via = "socks";
	int len;
	if (greet(c) < 0) {
		conn_refuse(c, "a SOCKS5 client that offered no method without a password");
		return;
	}
	if ((len = request(c)) < 0) {
		c->rec.host[0] = 0;
		conn_refuse(c, "a malformed SOCKS5 request");
		reply(c, 1);
		return;
	}
	c->head = (size_t)len;
	if (c->buf[1] != 1) {
		conn_refuse(c, "SOCKS5 command %d is not offered (only CONNECT)", c->buf[1]);
		reply(c, 7);
		return;
	}
	if (c->over) {
		conn_refuse(c, "more connections at once than --max-connections allows");
		reply(c, 1);
		return;
	}
	int s = conn_open(c);
	if (s < 0) {
		reply(c, c->unreachable ? 4 : 2);
		return;
	}
	reply(c, 0);
	if (c->rec.port != 443 || conn_check_sni(c) == 0)
		conn_relay(c, s);
	close(s);
}
