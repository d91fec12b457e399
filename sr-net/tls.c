/* tls.c - the server name a TLS client asks for, read from the first
 * bytes it sends (RFC 8446 4.1.2, RFC 6066 3): the records' handshake
 * fragments joined until the ClientHello is whole, then its extensions
 * searched for server_name. Nothing is decrypted and nothing changed:
 * the bytes go on to the server as they came. */
#include <ctype.h>
#include <string.h>

#include "sr-net.h"

#define HELLO_MAX 65536

struct rd {
	const unsigned char *p;
	size_t len, at;
};

static int take(struct rd *r, size_t n, const unsigned char **out)
{
	if (r->len - r->at < n)
		return -1;
	*out = r->p + r->at;
	r->at += n;
	return 0;
}

static int num(struct rd *r, size_t n, size_t *v)
{
	const unsigned char *b;
	if (take(r, n, &b) < 0)
		return -1;
	*v = 0;
	for (size_t i = 0; i < n; i++)
		*v = *v << 8 | b[i];
	return 0;
}

/* Skip a vector whose length takes n bytes. */
static int skip_vec(struct rd *r, size_t n)
{
	size_t l;
	const unsigned char *b;
	return num(r, n, &l) < 0 || take(r, l, &b) < 0 ? -1 : 0;
}

/* The server_name extension's body: 1 with the host name. */
static int sni_ext(struct rd *r, char *name, size_t namelen)
{
	size_t list, type, l;
	const unsigned char *b;
	if (num(r, 2, &list) < 0 || list > r->len - r->at)
		return -2;
	size_t end = r->at + list;
	while (r->at < end) {
		if (num(r, 1, &type) < 0 || num(r, 2, &l) < 0 || take(r, l, &b) < 0)
			return -2;
		if (type != 0)
			continue;
		if (l == 0 || l >= namelen)
			return -2;
		for (size_t i = 0; i < l; i++) {
			if (b[i] == 0 || b[i] > 0x7e)
				return -2;
			name[i] = (char)tolower(b[i]);
		}
		name[l] = 0;
		return 1;
	}
	return 0;
}

/* A whole ClientHello (after its 4-byte header). */
static int hello(const unsigned char *p, size_t len, char *name, size_t namelen)
{
	struct rd r = { p, len, 0 };
	const unsigned char *b;
	size_t exts, type, l;
	if (take(&r, 2 + 32, &b) < 0 || skip_vec(&r, 1) < 0 || skip_vec(&r, 2) < 0 ||
	    skip_vec(&r, 1) < 0)
		return -2;
	if (r.at == r.len)
		return 0;                       /* no extensions at all */
	if (num(&r, 2, &exts) < 0 || exts > r.len - r.at)
		return -2;
	size_t end = r.at + exts;
	while (r.at < end) {
		if (num(&r, 2, &type) < 0 || num(&r, 2, &l) < 0 || l > end - r.at)
			return -2;
		if (type == 0) {
			struct rd e = { r.p + r.at, l, 0 };
			return sni_ext(&e, name, namelen);
		}
		r.at += l;
	}
	return 0;
}

int tls_server_name(const unsigned char *buf, size_t len, char *name, size_t namelen)
{
	static unsigned char hs[HELLO_MAX];
	size_t have = 0, at = 0;
	if (len < 1)
		return -1;
	if (buf[0] != 0x16)
		return 0;                       /* not a TLS handshake */
	while (at < len) {
		if (len - at < 5)
			return -1;
		if (buf[at] != 0x16 || buf[at + 1] != 3)
			return -2;
		size_t rl = (size_t)buf[at + 3] << 8 | buf[at + 4];
		if (rl == 0 || rl > 16384 + 256)
			return -2;
		if (len - at - 5 < rl)
			return -1;
		if (have + rl > sizeof hs)
			return -2;
		memcpy(hs + have, buf + at + 5, rl);
		have += rl;
		at += 5 + rl;
		if (have >= 4) {
			if (hs[0] != 1)
				return -2;      /* the first message is not a ClientHello */
			size_t hl = (size_t)hs[1] << 16 | (size_t)hs[2] << 8 | hs[3];
			if (hl + 4 > sizeof hs)
				return -2;
			if (have >= hl + 4)
				return hello(hs + 4, hl, name, namelen);
		}
	}
	return -1;
}
