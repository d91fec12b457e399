/* conn.c - one connection from the program, served by a child of the
 * proxy: its request read (an HTTP CONNECT, a plain HTTP request in
 * absolute form, or SOCKS5's CONNECT), the host judged by the rules,
 * resolved here and its address judged, the connection made, the answer
 * given (an HTTP status or a SOCKS reply that says why when refused),
 * then, for a tunnel to port 443, the TLS ClientHello's server name
 * checked against the host asked for, and the bytes relayed. Every
 * connection ends in one record (record.c). The request head is read
 * whole before anything is decided, at most HEAD_MAX bytes, strictly
 * (CRLF line ends, no line folding, not both Content-Length and
 * Transfer-Encoding), so that what the proxy judged is what the server
 * gets. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include "conn.h"
#include "sr-net.h"
#include "sr.h"

/* Read more of the request into c->buf within the head's time: bytes
 * read, 0 at EOF, -1 on error or timeout. */
int conn_read(struct conn *c)
{
	if (c->len >= HEAD_MAX)
		return -1;
	int left = (int)((c->deadline_ns - sr_now_ns()) / 1000000);
	struct pollfd p = { c->fd, POLLIN, 0 };
	if (left <= 0 || poll(&p, 1, left) <= 0)
		return -1;
	ssize_t r = read(c->fd, c->buf + c->len, HEAD_MAX - c->len);
	if (r < 0)
		return -1;
	c->len += (size_t)r;
	c->buf[c->len] = 0;
	return (int)r;
}

void conn_refuse(struct conn *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->rec.why, sizeof c->rec.why, fmt, ap);
	va_end(ap);
	c->rec.allowed = 0;
}

/* Connect to ss:port within --connect-timeout: the socket, or -1 with
 * why in the record. */
static int dial(struct conn *c, struct sockaddr_storage *ss, uint16_t port)
{
	socklen_t sl;
	if (ss->ss_family == AF_INET) {
		((struct sockaddr_in *)ss)->sin_port = htons(port);
		sl = sizeof(struct sockaddr_in);
	} else {
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
		sl = sizeof(struct sockaddr_in6);
	}
	int s = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s < 0) {
		conn_refuse(c, "no socket: %s", strerror(errno));
		return -1;
	}
	int err = 0;
	if (connect(s, (struct sockaddr *)ss, sl) < 0) {
		err = errno;
		if (err == EINPROGRESS) {
			struct pollfd p = { s, POLLOUT, 0 };
			socklen_t el = sizeof err;
			int r = poll(&p, 1, (int)c->n->connect_timeout_ms);
			err = r == 0 ? ETIMEDOUT : r < 0 ? errno : 0;
			if (!err && getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &el) < 0)
				err = errno;
		}
	}
	if (err) {
		conn_refuse(c, "%s port %u could not be reached: %s", c->rec.address,
			    (unsigned)port, strerror(err));
		close(s);
		return -1;
	}
	fcntl(s, F_SETFL, fcntl(s, F_GETFL) & ~O_NONBLOCK);
	/* the relay passes on each write as it comes: no waiting for an
	 * ACK (Nagle) on a TLS handshake's small records */
	setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof(int));
	return s;
}

/* Judge c->rec.host:port, then resolve and connect: the server's socket,
 * or -1 with the reason in the record (c->unreachable: the rules allowed
 * it, the network did not). */
int conn_open(struct conn *c)
{
	struct net_record *r = &c->rec;
	struct sockaddr_storage ss;
	char text[64];
	if (addr_parse(r->host, &ss, text, sizeof text) == 1) {
		snprintf(r->host, sizeof r->host, "%s", text);
	} else if (host_canon(r->host) < 0) {
		conn_refuse(c, "'%s' is not a host name", r->host);
		return -1;
	}
	if (!rule_decide(c->n, r->host, r->port, r->why, sizeof r->why))
		return -1;
	if (addr_parse(r->host, &ss, text, sizeof text) == 1) {
		const char *bad = addr_refused(c->n, &ss);
		if (bad) {
			conn_refuse(c, "%s is %s", text, bad);
			return -1;
		}
	} else if (addr_resolve(c->n, r->host, &ss, r->why, sizeof r->why) < 0) {
		c->unreachable = 1;
		r->allowed = 0;
		return -1;
	}
	addr_text(&ss, r->address, sizeof r->address);
	int s = dial(c, &ss, r->port);
	if (s < 0)
		c->unreachable = 1;
	else
		r->allowed = 1;
	return s;
}

/* For a tunnel to port 443: read the client's first bytes until its
 * ClientHello is whole and check its server name: 0 (fine, or not TLS),
 * -1 refused with why. */
int conn_check_sni(struct conn *c)
{
	char name[NET_HOST_MAX + 1];
	for (;;) {
		int r = tls_server_name((unsigned char *)c->buf + c->head, c->len - c->head,
					name, sizeof name);
		if (r == 0)
			return 0;
		if (r == 1) {
			size_t nl = strlen(name);
			if (nl && name[nl - 1] == '.')
				name[nl - 1] = 0;
			if (strcmp(name, c->rec.host) == 0)
				return 0;
			conn_refuse(c, "the TLS server name '%s' is not the host asked for, %s",
				    name, c->rec.host);
			return -1;
		}
		if (r == -2) {
			conn_refuse(c, "the TLS ClientHello could not be read");
			return -1;
		}
		if (conn_read(c) <= 0) {
			conn_refuse(c, "no whole TLS ClientHello came within the time");
			return -1;
		}
	}
}

/* After the answer: what is left of the request, then both ways. */
void conn_relay(struct conn *c, int s)
{
	if (c->len > c->head && sr_write_all(s, c->buf + c->head, c->len - c->head) < 0)
		return;
	c->rec.sent += c->len - c->head;
	int capped;
	relay(c->n, c->fd, s, &c->rec.sent, &c->rec.received, c->bytes, &capped);
	if (capped) {
		snprintf(c->rec.why + strlen(c->rec.why), sizeof c->rec.why - strlen(c->rec.why),
			 "; cut at the run's --max-bytes");
	}
}
