/* text.c - text for a model and buffers: bytes made safe to read
 * (text_clean), a growing buffer (struct text_buf), base64. The text layer:
 * it calls nothing of sr-mcp's but util.c (mcp.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "mcp.h"
#include "text.h"
#include "sr.h"

void text_put(struct text_buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			sr_fatal(SR_EXIT_SYS, "out of memory");
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void put_cp(struct text_buf *b, unsigned cp)
{
	char u[4];
	size_t n;
	if (cp < 0x80) {
		u[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | cp >> 6);
		u[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else {
		u[0] = (char)(0xe0 | cp >> 12);
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	}
	text_put(b, u, n);
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n, unsigned *cp)
{
	unsigned c = s[0];
	size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
	if (!len || len > n)
		return 0;
	unsigned v = len == 1 ? c : len == 2 ? c & 0x1f : len == 3 ? c & 0x0f : c & 0x07;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3f);
	}
	static const unsigned min[] = { 0, 0, 0x80, 0x800, 0x10000 };
	if (v < min[len] || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return len;
}

char *text_clean(const char *s, size_t len, int *replaced)
{
	struct text_buf b = {0};
	const unsigned char *u = (const unsigned char *)s;
	text_put(&b, "", 0);
	for (size_t i = 0; i < len;) {
		unsigned cp;
		size_t n = utf8_len(u + i, len - i, &cp);
		if (!n || cp == 0) {
			put_cp(&b, 0xfffd);       /* not UTF-8, or NUL */
			*replaced = 1;
			i += n ? n : 1;
			continue;
		}
		if ((cp < 0x20 && cp != '\n' && cp != '\t' && cp != '\r') || cp == 0x7f)
			put_cp(&b, cp == 0x7f ? 0x2421 : 0x2400 + cp); /* ESC shows as ␛ */
		else if (cp >= 0x80 && cp < 0xa0)
			put_cp(&b, 0xfffd);       /* C1 controls (CSI ...) */
		else
			text_put(&b, s + i, n);
		i += n;
	}
	return b.p;
}

char *text_base64(const unsigned char *p, size_t n)
{
	static const char A[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *o = xmalloc((n + 2) / 3 * 4 + 1), *q = o;
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) |
			     (i + 2 < n ? p[i + 2] : 0);
		*q++ = A[v >> 18 & 63];
		*q++ = A[v >> 12 & 63];
		*q++ = i + 1 < n ? A[v >> 6 & 63] : '=';
		*q++ = i + 2 < n ? A[v & 63] : '=';
	}
	*q = '\0';
	return o;
}
