/* sr-net.h - sr-net's parts: main.c (the command line, the socket, the
 * fork of the proxy, the exec of the program) above proxy.c (the accept
 * loop: one child a connection, the bounds) above conn.c (one connection:
 * http.c and socks.c, its requests, over conn.c and relay.c: the
 * request read, the decision, the connect, the relay) above the rules
 * (rules.c: the allowed and denied names and ports) above addr.c (what an
 * address is and whether it may be reached), tls.c (the server name of a
 * TLS ClientHello) and record.c (one JSON line a connection). A tunnel to
 * a secret's host (--secret, secret.h) has its TLS ended by mitm.h's. */
#ifndef SR_NET_H
#define SR_NET_H

#include <netinet/in.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

struct net_secrets;             /* secret.h */

#define NET_PORTS_MAX 16
#define NET_HOST_MAX 255

/* --allow or --deny HOST[:PORT[,PORT...]]: host lower-case, "*.x" (any
 * name below x, not x itself), "*" (any name), or an address literal as
 * addr_parse canonicalizes it; nports 0 means the default ports (80, 443)
 * for an allow and every port for a deny. */
struct net_rule {
	char *host;
	uint16_t ports[NET_PORTS_MAX];
	int nports;
	int deny;
	const char *text;       /* as given, for the record's why */
};

/* An address or network the administrator allowed (--allow-address). */
struct net_cidr {
	int family;             /* AF_INET or AF_INET6 */
	unsigned char addr[16];
	int bits;
};

/* --resolve NAME=ADDR: NAME resolved to ADDR by the proxy, not by DNS. */
struct net_pin {
	char *host;
	struct sockaddr_storage addr;
};

struct net {
	struct net_rule *rules;
	size_t nrules, rcap;
	struct net_cidr *cidrs;
	size_t ncidrs, ccap;
	struct net_pin *pins;
	size_t npins, pcap;
	unsigned max_conns;
	uint64_t max_bytes;             /* each way, all connections together */
	uint64_t connect_timeout_ms;
	int log_fd;                     /* -1: no records */
	const char *socket_path;
	dev_t socket_dev;               /* the socket file made, to remove only it */
	ino_t socket_ino;
	int verbose;
	/* The host's own addresses (getifaddrs), refused as the private are. */
	struct sockaddr_storage *own;
	size_t nown;
	struct net_secrets *secrets;    /* --secret (secret.h); NULL: none */
};

/* rules.c */
/* Parse a rule (usage error, exit 100, when malformed). */
void rule_add(struct net *n, const char *arg, int deny);
/* Read rules from a file, one a line, '#' comments ("-" prefix: deny). */
void rule_file(struct net *n, const char *path);
/* May host (canonical: lower-case, no trailing dot; or an address
 * literal's canonical text) be reached on port? 1 yes, 0 no with why. */
int rule_decide(const struct net *n, const char *host, uint16_t port, char *why, size_t len);

/* addr.c */
/* Lower-case host, drop one trailing dot, and check its characters (a
 * name: letters, digits, '-', '_', '.'; labels of 1-63): 0, or -1. */
int host_canon(char *host);
/* host as an address in any form inet_aton takes (decimal, octal, hex,
 * fewer than four parts) or IPv6 (with or without brackets): 1 with the
 * address in *ss and its canonical text in text, 0 not an address. */
int addr_parse(const char *host, struct sockaddr_storage *ss, char *text, size_t len);
void addr_text(const struct sockaddr_storage *ss, char *text, size_t len);
/* Why the address may not be reached (loopback, private, link-local,
 * multicast, unspecified, reserved, the host's own), NULL when it may:
 * an IPv4-mapped, -compatible, NAT64 or 6to4 IPv6 address is judged by
 * the IPv4 address inside it. An address inside an --allow-address
 * network may always be reached. */
const char *addr_refused(const struct net *n, const struct sockaddr_storage *ss);
void cidr_add(struct net *n, const char *arg);
void pin_add(struct net *n, const char *arg);
void own_addresses(struct net *n);
/* Resolve host (a pin first, then getaddrinfo) and keep the first
 * address that may be reached in *ss: 0; -1 with why (none resolved, or
 * each was refused: the first refusal named). */
int addr_resolve(const struct net *n, const char *host, struct sockaddr_storage *ss,
		 char *why, size_t len);

/* tls.c: the server name of the TLS ClientHello that starts buf: 1 with
 * it (lower-case) in name, 0 when the hello holds none or buf is not TLS,
 * -1 when buf holds only part of a hello (read more), -2 malformed. */
int tls_server_name(const unsigned char *buf, size_t len, char *name, size_t namelen);

/* record.c: one connection's record, written as one JSON line. */
struct net_record {
	char host[NET_HOST_MAX + 1];
	uint16_t port;
	const char *via;        /* "connect", "http", "socks" */
	int allowed;
	char why[256];
	char address[64];
	uint64_t sent, received;
	uint64_t start_ns;
};
void record_write(const struct net *n, const struct net_record *r);

/* relay.c: copy both ways between a (the program's side) and b (the
 * host's) until both have ended, counting into sent and received and the
 * run's shared total (bytes[0] out, bytes[1] in), which ends the copy
 * past the cap (*capped set). */
void relay(const struct net *n, int a, int b, uint64_t *sent, uint64_t *received,
	   uint64_t *bytes, int *capped);

/* proxy.c: the socket file removed, if it is still the one made. */
void proxy_unlink(const struct net *n);
/* proxy.c: the signals the proxy takes (blocked before the program is
 * started, so that none is lost): SIGCHLD, and those passed on to it. */
void proxy_sigset(sigset_t *set);
/* proxy.c: accept on lfd until prog, the proxy's child, ends; then end
 * as it did (its exit code, or its signal): never returns. The host's
 * addresses (n->own) are gathered when the first connection comes. */
void proxy_run(struct net *n, int lfd, pid_t prog) __attribute__((noreturn));

#endif
