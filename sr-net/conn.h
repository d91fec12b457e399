/* conn.h - one connection's state, shared by conn.c (reading, judging,
 * connecting, relaying), http.c (the HTTP proxy's requests) and socks.c
 * (SOCKS5's). */
#ifndef SR_NET_CONN_H
#define SR_NET_CONN_H

#include <stdarg.h>

#include "sr-net.h"

#define HEAD_MAX 16384
#define HEAD_TIME_NS (10ULL * 1000000000ULL)   /* to send a request head */

struct conn {
	const struct net *n;
	int fd;                 /* the program's side */
	int over;               /* past --max-connections: refuse */
	int unreachable;        /* allowed, but no address could be reached */
	uint64_t *bytes;        /* the run's total, shared (relay.c) */
	uint64_t deadline_ns;
	char buf[HEAD_MAX + 1];
	size_t len, head;       /* bytes read; of them, the request's head */
	struct net_record rec;
};

int conn_read(struct conn *c);
void conn_refuse(struct conn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int conn_open(struct conn *c);
int conn_check_sni(struct conn *c);
void conn_relay(struct conn *c, int s);

void http_serve(struct conn *c);
void socks_serve(struct conn *c);

#endif
