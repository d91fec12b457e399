/* addr.c - what an address is, and whether the program may reach it. The
 * proxy resolves every name itself and connects to the address it
 * checked (never resolving again), so a name that resolves now to a
 * public address and then to a private one (DNS rebinding) is caught by
 * construction. Refused unless inside an --allow-address network:
 * loopback, the private and shared ranges, link-local (the clouds'
 * metadata address 169.254.169.254 among them), multicast, unspecified,
 * reserved and broadcast, and the host's own addresses. An IPv6 address
 * that carries an IPv4 one (mapped ::ffff:0:0/96, compatible ::/96,
 * NAT64 64:ff9b::/96, 6to4 2002::/16) is judged by that IPv4 address. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sr-net.h"
#include "sr.h"

/* A name's labels: letters, digits, '-' and '_', 1 to 63 each. */
int host_canon(char *host)
{
	size_t len = strlen(host);
	if (len && host[len - 1] == '.')
		host[--len] = 0;
	if (len == 0 || len > NET_HOST_MAX)
		return -1;
	size_t label = 0;
	for (char *p = host; *p; p++) {
		unsigned char c = (unsigned char)tolower((unsigned char)*p);
		*p = (char)c;
		if (c == '.') {
			if (label == 0)
				return -1;
			label = 0;
			continue;
		}
		if (!isalnum(c) && c != '-' && c != '_')
			return -1;
		if (++label > 63)
			return -1;
	}
	return label ? 0 : -1;
}

void addr_text(const struct sockaddr_storage *ss, char *text, size_t len)
{
	const void *a = ss->ss_family == AF_INET
		? (const void *)&((const struct sockaddr_in *)ss)->sin_addr
		: (const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr;
	if (!inet_ntop(ss->ss_family, a, text, (socklen_t)len))
		snprintf(text, len, "?");
}

int addr_parse(const char *host, struct sockaddr_storage *ss, char *text, size_t len)
{
	char buf[NET_HOST_MAX + 1];
	size_t hl = strlen(host);
	if (hl >= sizeof buf)
		return 0;
	memcpy(buf, host, hl + 1);
	if (buf[0] == '[' && hl > 2 && buf[hl - 1] == ']') {
		memmove(buf, buf + 1, hl - 2);
		buf[hl - 2] = 0;
	}
	memset(ss, 0, sizeof *ss);
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	if (strchr(buf, ':')) {
		if (inet_pton(AF_INET6, buf, &s6->sin6_addr) != 1)
			return 0;
		s6->sin6_family = AF_INET6;
	} else {
		/* inet_aton takes 127.1, 0x7f.1, 017700000001 and 2130706433:
		 * each is an address, judged as one, never taken for a name. */
		if (inet_aton(buf, &s4->sin_addr) == 0)
			return 0;
		s4->sin_family = AF_INET;
	}
	addr_text(ss, text, len);
	return 1;
}

/* The IPv4 address inside an IPv6 one, in host order: 1, else 0. */
static int v4_inside(const unsigned char *a, uint32_t *v4)
{
	static const unsigned char mapped[12] = { 0,0,0,0, 0,0,0,0, 0,0,0xff,0xff };
	static const unsigned char nat64[12] = { 0,0x64,0xff,0x9b, 0,0,0,0, 0,0,0,0 };
	static const unsigned char zero[12];
	const unsigned char *p = NULL;
	if (!memcmp(a, mapped, 12) || !memcmp(a, nat64, 12) || !memcmp(a, zero, 12))
		p = a + 12;
	else if (a[0] == 0x20 && a[1] == 0x02)
		p = a + 2;
	if (!p)
		return 0;
	*v4 = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	return 1;
}

static const char *v4_refused(uint32_t a)
{
	static const struct { uint32_t net; int bits; const char *what; } bad[] = {
		{ 0x00000000, 8, "an unspecified address (0.0.0.0/8)" },
		{ 0x7f000000, 8, "loopback (127.0.0.0/8)" },
		{ 0x0a000000, 8, "private (10.0.0.0/8)" },
		{ 0xac100000, 12, "private (172.16.0.0/12)" },
		{ 0xc0a80000, 16, "private (192.168.0.0/16)" },
		{ 0x64400000, 10, "shared address space (100.64.0.0/10)" },
		{ 0xa9fe0000, 16, "link-local (169.254.0.0/16, the cloud metadata address among them)" },
		{ 0xc0000000, 24, "IETF protocol assignments (192.0.0.0/24)" },
		{ 0xc6120000, 15, "benchmarking (198.18.0.0/15)" },
		{ 0xe0000000, 4, "multicast (224.0.0.0/4)" },
		{ 0xf0000000, 4, "reserved (240.0.0.0/4, broadcast among them)" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		if ((a >> (32 - bad[i].bits)) == (bad[i].net >> (32 - bad[i].bits)))
			return bad[i].what;
	return NULL;
}

static const char *v6_refused(const unsigned char *a)
{
	static const unsigned char any[16], one[16] = { [15] = 1 };
	if (!memcmp(a, any, 16))
		return "an unspecified address (::)";
	if (!memcmp(a, one, 16))
		return "loopback (::1)";
	if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
		return "link-local (fe80::/10)";
	if (a[0] == 0xfe && (a[1] & 0xc0) == 0xc0)
		return "site-local (fec0::/10)";
	if ((a[0] & 0xfe) == 0xfc)
		return "private (unique local, fc00::/7)";
	if (a[0] == 0xff)
		return "multicast (ff00::/8)";
	if (a[0] == 0x01 && a[1] == 0 && !memcmp(a + 2, any, 6))
		return "discard-only (100::/64)";
	return NULL;
}

static int cidr_holds(const struct net_cidr *c, int family, const unsigned char *a)
{
	if (c->family != family)
		return 0;
	int full = c->bits / 8, rest = c->bits % 8;
	if (memcmp(c->addr, a, (size_t)full) != 0)
		return 0;
	if (!rest)
		return 1;
	unsigned char mask = (unsigned char)(0xff << (8 - rest));
	return (c->addr[full] & mask) == (a[full] & mask);
}

static int same_address(const struct sockaddr_storage *x, const struct sockaddr_storage *y)
{
	if (x->ss_family != y->ss_family)
		return 0;
	if (x->ss_family == AF_INET)
		return ((const struct sockaddr_in *)x)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)y)->sin_addr.s_addr;
	return !memcmp(&((const struct sockaddr_in6 *)x)->sin6_addr,
		       &((const struct sockaddr_in6 *)y)->sin6_addr, 16);
}

const char *addr_refused(const struct net *n, const struct sockaddr_storage *ss)
{
	const unsigned char *a;
	int family = ss->ss_family;
	if (family == AF_INET)
		a = (const unsigned char *)&((const struct sockaddr_in *)ss)->sin_addr;
	else
		a = (const unsigned char *)&((const struct sockaddr_in6 *)ss)->sin6_addr;
	for (size_t i = 0; i < n->ncidrs; i++)
		if (cidr_holds(&n->cidrs[i], family, a))
			return NULL;
	uint32_t v4;
	const char *why;
	if (family == AF_INET)
		why = v4_refused(ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr));
	else if (v4_inside(a, &v4))
		why = v4_refused(v4);
	else
		why = v6_refused(a);
	if (why)
		return why;
	for (size_t i = 0; i < n->nown; i++)
		if (same_address(&n->own[i], ss))
			return "an address of this host";
	return NULL;
}

void cidr_add(struct net *n, const char *arg)
{
	char host[128];
	const char *slash = strchr(arg, '/');
	size_t hl = slash ? (size_t)(slash - arg) : strlen(arg);
	struct sockaddr_storage ss;
	char text[64];
	struct net_cidr c = { 0 };
	uint64_t bits = 0;
	if (hl >= sizeof host)
		goto bad;
	memcpy(host, arg, hl);
	host[hl] = 0;
	if (addr_parse(host, &ss, text, sizeof text) != 1)
		goto bad;
	c.family = ss.ss_family;
	int max = c.family == AF_INET ? 32 : 128;
	if (slash && (sr_parse_count(slash + 1, (uint64_t)max, &bits) < 0))
		goto bad;
	c.bits = slash ? (int)bits : max;
	memcpy(c.addr, c.family == AF_INET ? (void *)&((struct sockaddr_in *)&ss)->sin_addr
					   : (void *)&((struct sockaddr_in6 *)&ss)->sin6_addr,
	       c.family == AF_INET ? 4 : 16);
	n->cidrs = sr_grow(n->cidrs, n->ncidrs, &n->ccap, sizeof *n->cidrs);
	n->cidrs[n->ncidrs++] = c;
	return;
bad:
	sr_usage_value("--allow-address", "address", arg, "ADDRESS or ADDRESS/BITS");
}

void pin_add(struct net *n, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char text[64];
	struct net_pin p = { 0 };
	if (!eq || !(p.host = strndup(arg, (size_t)(eq - arg))) || host_canon(p.host) < 0 ||
	    addr_parse(eq + 1, &p.addr, text, sizeof text) != 1)
		sr_usage_value("--resolve", "mapping", arg, "NAME=ADDRESS");
	n->pins = sr_grow(n->pins, n->npins, &n->pcap, sizeof *n->pins);
	n->pins[n->npins++] = p;
}

void own_addresses(struct net *n)
{
	struct ifaddrs *ifs, *i;
	size_t cap = 0;
	if (getifaddrs(&ifs) < 0)
		return;
	for (i = ifs; i; i = i->ifa_next) {
		if (!i->ifa_addr || (i->ifa_addr->sa_family != AF_INET &&
				     i->ifa_addr->sa_family != AF_INET6))
			continue;
		n->own = sr_grow(n->own, n->nown, &cap, sizeof *n->own);
		memset(&n->own[n->nown], 0, sizeof *n->own);
		memcpy(&n->own[n->nown++], i->ifa_addr, i->ifa_addr->sa_family == AF_INET
		       ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6));
	}
	freeifaddrs(ifs);
}

int addr_resolve(const struct net *n, const char *host, struct sockaddr_storage *ss,
		 char *why, size_t len)
{
	char text[64];
	for (size_t i = 0; i < n->npins; i++)
		if (strcmp(n->pins[i].host, host) == 0) {
			*ss = n->pins[i].addr;
			const char *bad = addr_refused(n, ss);
			addr_text(ss, text, sizeof text);
			if (!bad)
				return 0;
			snprintf(why, len, "%s resolves to %s, %s", host, text, bad);
			return -1;
		}
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res, *r;
	int e = getaddrinfo(host, NULL, &hints, &res);
	if (e != 0) {
		snprintf(why, len, "%s could not be resolved: %s", host, gai_strerror(e));
		return -1;
	}
	int rc = -1;
	char first[256] = "";
	for (r = res; r; r = r->ai_next) {
		struct sockaddr_storage cand = { 0 };
		memcpy(&cand, r->ai_addr, r->ai_addrlen);
		const char *bad = addr_refused(n, &cand);
		if (!bad) {
			*ss = cand;
			rc = 0;
			break;
		}
		if (!first[0]) {
			addr_text(&cand, text, sizeof text);
			snprintf(first, sizeof first, "%s resolves to %s, %s", host, text, bad);
		}
	}
	freeaddrinfo(res);
	if (rc < 0)
		snprintf(why, len, "%s", first);
	return rc;
}
