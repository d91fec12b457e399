/* utf8.c - what goes out is UTF-8: each ill-formed sequence (a stray or
 * cut byte, an overlong form, a surrogate, a code point past U+10FFFF)
 * becomes one U+FFFD, as Unicode recommends (its maximal subpart). */
#include <stdlib.h>
#include <string.h>

#include "text.h"

/* The length of the well-formed UTF-8 character at s (n bytes there), or
 * 0 with *bad the length of its ill-formed start (its maximal subpart, to
 * be replaced by one U+FFFD). A control character is ill-formed here: a
 * JSON string holds none raw. */
static size_t utf8_char(const unsigned char *s, size_t n, size_t *bad)
{
	unsigned c = s[0], lo = 0x80, hi = 0xbf;
	size_t len, i;
	if (c >= 0x20 && c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)      /* not overlong, no surrogate */
		len = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
	else if (c >= 0xf0 && c <= 0xf4)      /* not overlong, at most U+10FFFF */
		len = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
	else
		len = 0;
	for (i = 1; len && i < len && i < n; i++, lo = 0x80, hi = 0xbf)
		if (s[i] < lo || s[i] > hi)
			break;
	if (len && i == len)
		return len;
	*bad = len ? i : 1;
	return 0;
}

/* s with each ill-formed part replaced by U+FFFD, into o (NULL: only
 * counted); the length. */
static size_t utf8_fix(const unsigned char *s, size_t len, char *o)
{
	size_t w = 0, k, bad;
	for (size_t i = 0; i < len; i += k) {
		size_t good = utf8_char(s + i, len - i, &bad);
		k = good ? good : bad;
		if (o)
			memcpy(o + w, good ? (const char *)s + i : "\xef\xbf\xbd", good ? good : 3);
		w += good ? good : 3;
	}
	return w;
}

/* A message as it goes out: what is not UTF-8 (bytes a request carried
 * into a string, an error's text cut inside a character) becomes U+FFFD,
 * so that every line is valid JSON text. s itself when it is good, else a
 * new string (s freed), or NULL; *n its length. */
char *text_utf8(char *s, size_t *n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, bad, k;
	while (i < *n && (k = utf8_char(u + i, *n - i, &bad)))
		i += k;
	if (i == *n)
		return s;
	size_t m = i + utf8_fix(u + i, *n - i, NULL);
	char *o = malloc(m + 1);
	if (o) {
		memcpy(o, s, i);
		utf8_fix(u + i, *n - i, o + i);
		o[m] = '\0';
		*n = m;
	}
	free(s);
	return o;
}
