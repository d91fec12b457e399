/* jr.c - a strict JSON reader (RFC 8259) that needs no library, for
 * sr-exec, which is linked statically against musl (see the Makefile),
 * where there is no cJSON. jw.c is its writing half.
 *
 * The whole text becomes a tree of struct sr_jr in one arena, freed at
 * once. Strict: one value and nothing after it but white space; no
 * control character, bad escape, lone surrogate (\ud800 alone) or byte
 * that is not UTF-8 in a string; no \u0000 (strings are C strings); no
 * member name twice in an object (engines disagree on which one counts);
 * no leading zero, '+', bare '.' or NaN in a number; at most SR_JR_DEPTH
 * nested arrays and objects. A refusal names the byte where it found the
 * fault. Numbers are kept as written, so an integer is read exactly
 * (sr_jr_uint), whatever its size. */
#include <errno.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include "sr.h"

/* The arena: chunks on a list, the first one holding the root first. */
struct chunk {
	struct chunk *next;
	size_t used, size;
	max_align_t mem[];
};

struct jp {
	const unsigned char *text, *p, *end;
	struct chunk *first, *last;
	struct sr_jr_error *err;
};

#define STR_(x) #x
#define STR(x) STR_(x)

static int fail(struct jp *j, const unsigned char *at, const char *what)
{
	if (j->err && !j->err->what) {
		j->err->pos = (size_t)(at - j->text);
		j->err->what = at >= j->end ? "unexpected end" : what;
	}
	errno = EINVAL;
	return -1;
}

static void *alloc(struct jp *j, size_t n)
{
	n = (n + alignof(struct sr_jr) - 1) & ~(alignof(struct sr_jr) - 1);
	struct chunk *c = j->last;
	if (!c || c->size - c->used < n) {
		size_t size = c ? c->size * 2 : 4096;
		if (size > (1u << 20))
			size = 1u << 20;
		if (size < n)
			size = n;
		c = malloc(sizeof *c + size);
		if (!c) {
			if (j->err && !j->err->what) {
				j->err->pos = (size_t)(j->p - j->text);
				j->err->what = "out of memory";
			}
			errno = ENOMEM;
			return NULL;
		}
		c->next = NULL;
		c->used = 0;
		c->size = size;
		if (j->last)
			j->last->next = c;
		else
			j->first = c;
		j->last = c;
	}
	void *m = (char *)c->mem + c->used;
	c->used += n;
	return m;
}

static struct sr_jr *node(struct jp *j, enum sr_jr_type type)
{
	struct sr_jr *v = alloc(j, sizeof *v);
	if (v) {
		memset(v, 0, sizeof *v);
		v->type = type;
		v->pos = (size_t)(j->p - j->text);
	}
	return v;
}

static void skip_ws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

/* The length of the UTF-8 sequence at p (before end), 0 if it is not one:
 * no overlong form, no surrogate, nothing past U+10FFFF. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;
	if (*p >= 0xc2 && *p <= 0xdf)
		n = 2;
	else if (*p >= 0xe0 && *p <= 0xef)
		n = 3;
	else if (*p >= 0xf0 && *p <= 0xf4)
		n = 4;
	else
		return 0;
	if (*p == 0xe0)
		lo = 0xa0;
	else if (*p == 0xed)
		hi = 0x9f;
	else if (*p == 0xf0)
		lo = 0x90;
	else if (*p == 0xf4)
		hi = 0x8f;
	if ((size_t)(end - p) < n || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

static long hex4(const unsigned char *p, const unsigned char *end)
{
	long v = 0;
	if (end - p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		unsigned c = p[i];
		if (c >= '0' && c <= '9')
			v = v * 16 + (c - '0');
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			v = v * 16 + ((c | 0x20) - 'a' + 10);
		else
			return -1;
	}
	return v;
}

static char *put_utf8(char *o, unsigned long cp)
{
	if (cp < 0x80) {
		*o++ = (char)cp;
	} else if (cp < 0x800) {
		*o++ = (char)(0xc0 | cp >> 6);
		*o++ = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		*o++ = (char)(0xe0 | cp >> 12);
		*o++ = (char)(0x80 | ((cp >> 6) & 0x3f));
		*o++ = (char)(0x80 | (cp & 0x3f));
	} else {
		*o++ = (char)(0xf0 | cp >> 18);
		*o++ = (char)(0x80 | ((cp >> 12) & 0x3f));
		*o++ = (char)(0x80 | ((cp >> 6) & 0x3f));
		*o++ = (char)(0x80 | (cp & 0x3f));
	}
	return o;
}

/* \uXXXX at p (p[0] is the backslash), a surrogate pair taken whole;
 * the code point, or -1 after fail(). *p is moved past it. */
static long unicode_escape(struct jp *j, const unsigned char **pp, const unsigned char *q)
{
	const unsigned char *p = *pp;
	long cp = hex4(p + 2, q);
	if (cp < 0)
		return fail(j, p, "bad \\u escape (four hex digits wanted)");
	if (cp >= 0xdc00 && cp <= 0xdfff)
		return fail(j, p, "lone surrogate in a \\u escape");
	if (cp >= 0xd800 && cp <= 0xdbff) {
		long lo = q - p >= 12 && p[6] == '\\' && p[7] == 'u' ? hex4(p + 8, q) : -1;
		if (lo < 0xdc00 || lo > 0xdfff)
			return fail(j, p, "lone surrogate in a \\u escape");
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		p += 6;
	}
	if (cp == 0)
		return fail(j, p, "\\u0000 in a string");
	*pp = p + 6;
	return cp;
}

/* A string at j->p (its opening quote): decoded into the arena. */
static int string(struct jp *j, const char **out, size_t *len)
{
	const unsigned char *p = j->p + 1, *q = p;
	while (q < j->end && *q != '"')
		q += *q == '\\' && j->end - q > 1 ? 2 : 1;
	if (q >= j->end)
		return fail(j, j->end, NULL);
	char *s = alloc(j, (size_t)(q - p) + 1), *o = s;
	if (!s)
		return -1;
	while (p < q) {
		if (*p < 0x20)
			return fail(j, p, "control character in a string");
		if (*p >= 0x80) {
			size_t n = utf8_len(p, q);
			if (n == 0)
				return fail(j, p, "invalid UTF-8 in a string");
			memcpy(o, p, n);
			o += n;
			p += n;
			continue;
		}
		if (*p != '\\') {
			*o++ = (char)*p++;
			continue;
		}
		static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
		const char *e = p[1] ? strchr(from, p[1]) : NULL;
		if (e) {
			*o++ = to[e - from];
			p += 2;
		} else if (p[1] == 'u') {
			long cp = unicode_escape(j, &p, q);
			if (cp < 0)
				return -1;
			o = put_utf8(o, (unsigned long)cp);
		} else {
			return fail(j, p, "bad escape in a string");
		}
	}
	*o = '\0';
	*out = s;
	*len = (size_t)(o - s);
	j->p = q + 1;
	return 0;
}

static int is_digit(const unsigned char *p, const unsigned char *end)
{
	return p < end && *p >= '0' && *p <= '9';
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, kept as written. */
static int number(struct jp *j, struct sr_jr *v)
{
	const unsigned char *p = j->p, *end = j->end;
	if (p < end && *p == '-')
		p++;
	if (!is_digit(p, end))
		return fail(j, p, "bad number");
	if (*p++ == '0' && is_digit(p, end))
		return fail(j, p, "leading zero in a number");
	while (is_digit(p, end))
		p++;
	if (p < end && *p == '.') {
		if (!is_digit(++p, end))
			return fail(j, p, "bad number");
		while (is_digit(p, end))
			p++;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		if (!is_digit(p, end))
			return fail(j, p, "bad number");
		while (is_digit(p, end))
			p++;
	}
	char *s = alloc(j, (size_t)(p - j->p) + 1);
	if (!s)
		return -1;
	v->len = (size_t)(p - j->p);
	memcpy(s, j->p, v->len);
	s[v->len] = '\0';
	v->str = s;
	j->p = p;
	return 0;
}

static int literal(struct jp *j, struct sr_jr *v)
{
	static const struct {
		const char *word;
		enum sr_jr_type type;
	} words[] = {{"true", SR_JR_TRUE}, {"false", SR_JR_FALSE}, {"null", SR_JR_NULL}};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
		const char *w = words[i].word;
		if (*j->p != (unsigned char)*w)
			continue;
		const unsigned char *p = j->p;
		while (*w && p < j->end && *p == (unsigned char)*w)
			p++, w++;
		if (*w)
			return fail(j, p, "unexpected character");
		v->type = words[i].type;
		j->p = p;
		return 0;
	}
	return fail(j, j->p, "expected a value");
}

static int by_name(const void *a, const void *b)
{
	const struct sr_jr *x = *(const struct sr_jr *const *)a, *y = *(const struct sr_jr *const *)b;
	int c = strcmp(x->key, y->key);
	return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

/* Names once each: sorted by name, then by place; the error is at the
 * first repetition in the text. */
static int unique(struct jp *j, const struct sr_jr *obj, size_t n)
{
	if (n < 2)
		return 0;
	const struct sr_jr **v = alloc(j, n * sizeof *v);
	if (!v)
		return -1;
	size_t i = 0, dup = (size_t)-1;
	for (const struct sr_jr *m = obj->child; m; m = m->next)
		v[i++] = m;
	qsort(v, n, sizeof *v, by_name);
	for (i = 1; i < n; i++)
		if (strcmp(v[i]->key, v[i - 1]->key) == 0 && v[i]->pos < dup)
			dup = v[i]->pos;
	if (dup != (size_t)-1)
		return fail(j, j->text + dup, "a member name repeated in an object");
	return 0;
}

static struct sr_jr *value(struct jp *j, int depth);

/* An array or an object at j->p, its members linked in order. */
static int container(struct jp *j, struct sr_jr *v, int depth)
{
	int obj = *j->p == '{';
	char close = obj ? '}' : ']';
	const char *sep = obj ? "expected ',' or '}'" : "expected ',' or ']'";
	struct sr_jr **tail = &v->child;
	size_t n = 0;
	if (depth >= SR_JR_DEPTH)
		return fail(j, j->p, "nested more than " STR(SR_JR_DEPTH) " deep");
	v->type = obj ? SR_JR_OBJECT : SR_JR_ARRAY;
	j->p++;
	skip_ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		return 0;
	}
	for (;;) {
		const char *key = NULL;
		size_t klen, kpos = (size_t)(j->p - j->text);
		if (obj) {
			if (j->p >= j->end || *j->p != '"')
				return fail(j, j->p, "expected a member name");
			if (string(j, &key, &klen) < 0)
				return -1;
			skip_ws(j);
			if (j->p >= j->end || *j->p != ':')
				return fail(j, j->p, "expected ':'");
			j->p++;
			skip_ws(j);
		}
		struct sr_jr *e = value(j, depth + 1);
		if (!e)
			return -1;
		if (obj) {
			e->key = key;
			e->pos = kpos;
		}
		*tail = e;
		tail = &e->next;
		n++;
		skip_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			skip_ws(j);
			continue;
		}
		if (j->p >= j->end || *j->p != close)
			return fail(j, j->p, sep);
		j->p++;
		return obj ? unique(j, v, n) : 0;
	}
}

static struct sr_jr *value(struct jp *j, int depth)
{
	if (j->p >= j->end) {
		fail(j, j->p, NULL);
		return NULL;
	}
	struct sr_jr *v = node(j, SR_JR_NULL);
	if (!v)
		return NULL;
	int rc;
	unsigned char c = *j->p;
	if (c == '{' || c == '[') {
		rc = container(j, v, depth);
	} else if (c == '"') {
		v->type = SR_JR_STRING;
		rc = string(j, &v->str, &v->len);
	} else if (c == '-' || (c >= '0' && c <= '9')) {
		v->type = SR_JR_NUMBER;
		rc = number(j, v);
	} else {
		rc = literal(j, v);
	}
	return rc < 0 ? NULL : v;
}

static void free_chunks(struct chunk *c)
{
	while (c) {
		struct chunk *next = c->next;
		free(c);
		c = next;
	}
}

struct sr_jr *sr_jr_parse(const char *text, size_t len, struct sr_jr_error *err)
{
	struct jp j = {(const unsigned char *)text, (const unsigned char *)text,
		       (const unsigned char *)text + len, NULL, NULL, err};
	if (err) {
		err->pos = 0;
		err->what = NULL;
	}
	skip_ws(&j);
	struct sr_jr *root = value(&j, 0);
	if (root) {
		skip_ws(&j);
		if (j.p < j.end) {
			fail(&j, j.p, "more text after the JSON value");
			root = NULL;
		}
	}
	if (!root) {
		int e = errno;
		free_chunks(j.first);
		errno = e;
	}
	return root;
}

void sr_jr_free(struct sr_jr *root)
{
	if (root)
		free_chunks((struct chunk *)((char *)root - offsetof(struct chunk, mem)));
}

int sr_jr_is(const struct sr_jr *v, enum sr_jr_type type)
{
	return v && v->type == type;
}

const struct sr_jr *sr_jr_first(const struct sr_jr *v)
{
	return v && (v->type == SR_JR_ARRAY || v->type == SR_JR_OBJECT) ? v->child : NULL;
}

const struct sr_jr *sr_jr_get(const struct sr_jr *obj, const char *key)
{
	if (!sr_jr_is(obj, SR_JR_OBJECT))
		return NULL;
	for (const struct sr_jr *m = obj->child; m; m = m->next)
		if (strcmp(m->key, key) == 0)
			return m;
	return NULL;
}

/* The literal's digits d (integer and fraction parts run together) and
 * its exponent: the value is d * 10^(exponent - fraction digits). */
int sr_jr_uint(const struct sr_jr *v, uint64_t *out)
{
	if (!sr_jr_is(v, SR_JR_NUMBER))
		return -1;
	const char *s = v->str;
	int neg = *s == '-';
	s += neg;
	char d[64];             /* the significant digits, at most 20 kept */
	size_t nd = 0, zeros = 0;   /* zeros: pending, not yet known to matter */
	long long scale = 0;
	int frac = 0;
	for (; (*s >= '0' && *s <= '9') || *s == '.'; s++) {
		if (*s == '.') {
			frac = 1;
			continue;
		}
		if (frac)
			scale--;
		if (*s == '0') {
			if (nd)
				zeros++;
			continue;
		}
		if (nd + zeros + 1 > 20)
			return -1;          /* more than 20 significant digits */
		memset(d + nd, '0', zeros);
		nd += zeros;
		zeros = 0;
		d[nd++] = *s;
	}
	scale += (long long)zeros;    /* trailing zeros: a power of ten */
	if (*s == 'e' || *s == 'E') {
		int eneg = *++s == '-';
		long long e = 0;
		if (*s == '+' || *s == '-')
			s++;
		for (; *s >= '0' && *s <= '9'; s++)
			if (e < 1000000000000000LL)     /* more than any text's length */
				e = e * 10 + (*s - '0');
		scale += eneg ? -e : e;
	}
	if (nd == 0) {                    /* zero, -0 included */
		*out = 0;
		return 0;
	}
	if (neg || scale < 0 || (long long)nd + scale > 20)
		return -1;
	uint64_t u = 0;
	for (size_t i = 0; i < nd + (size_t)scale; i++) {
		unsigned digit = i < nd ? (unsigned)(d[i] - '0') : 0;
		if (u > (UINT64_MAX - digit) / 10)
			return -1;
		u = u * 10 + digit;
	}
	*out = u;
	return 0;
}
