/* jw.c - a JSON writer that needs no library, for sr-limit, which is
 * linked statically against musl (see the Makefile), where there is no
 * cJSON. It writes what cJSON_PrintUnformatted writes for the
 * same object: one line, keys in the order given. jr.c reads JSON for
 * sr-exec, static too; sr-queue and sr-mcp, which read and write JSON
 * at length, use cJSON. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sr.h"

static void put(struct sr_jw *w, const char *s, size_t n)
{
	if (w->failed)
		return;
	if (w->len + n + 2 > w->cap) { /* room for "\n" and NUL at the end */
		size_t cap = w->cap ? w->cap : 256;
		while (w->len + n + 2 > cap)
			cap *= 2;
		char *b = realloc(w->buf, cap);
		if (!b) {
			w->failed = 1;
			return;
		}
		w->buf = b;
		w->cap = cap;
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
}

static void puts_(struct sr_jw *w, const char *s)
{
	put(w, s, strlen(s));
}

static void quoted(struct sr_jw *w, const char *s)
{
	put(w, "\"", 1);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		char esc[8];
		switch (*p) {
		case '"': puts_(w, "\\\""); break;
		case '\\': puts_(w, "\\\\"); break;
		case '\b': puts_(w, "\\b"); break;
		case '\f': puts_(w, "\\f"); break;
		case '\n': puts_(w, "\\n"); break;
		case '\r': puts_(w, "\\r"); break;
		case '\t': puts_(w, "\\t"); break;
		default:
			if (*p < 0x20) {
				snprintf(esc, sizeof esc, "\\u%04x", *p);
				puts_(w, esc);
			} else {
				put(w, (const char *)p, 1);
			}
		}
	}
	put(w, "\"", 1);
}

/* The separator and the key of the next member. */
static void member(struct sr_jw *w, const char *key)
{
	if (w->depth > 0 && w->count[w->depth - 1]++ > 0)
		put(w, ",", 1);
	if (key) {
		quoted(w, key);
		put(w, ":", 1);
	}
}

void sr_jw_open(struct sr_jw *w, const char *key)
{
	if (w->depth >= SR_JW_DEPTH) {
		w->failed = 1;
		return;
	}
	member(w, key);
	put(w, "{", 1);
	w->count[w->depth++] = 0;
}

void sr_jw_close(struct sr_jw *w)
{
	if (w->depth == 0) {
		w->failed = 1;
		return;
	}
	w->depth--;
	put(w, "}", 1);
}

void sr_jw_str(struct sr_jw *w, const char *key, const char *v)
{
	member(w, key);
	quoted(w, v);
}

void sr_jw_null(struct sr_jw *w, const char *key)
{
	member(w, key);
	puts_(w, "null");
}

/* As cJSON: whole numbers plainly, others in the fewest digits (15, or
 * 17) that read back the same, and null for what JSON cannot hold. */
void sr_jw_num(struct sr_jw *w, const char *key, double v)
{
	char b[32];
	member(w, key);
	if (isnan(v) || isinf(v))
		snprintf(b, sizeof b, "null");
	else if (fabs(v) < 9007199254740992.0 && v == (double)(long long)v)
		snprintf(b, sizeof b, "%lld", (long long)v);
	else if (snprintf(b, sizeof b, "%.15g", v), strtod(b, NULL) != v)
		snprintf(b, sizeof b, "%.17g", v);
	puts_(w, b);
}

char *sr_jw_line(struct sr_jw *w, size_t *len)
{
	if (w->depth != 0)
		w->failed = 1;
	put(w, "", 0);
	if (w->failed) {
		free(w->buf);
		memset(w, 0, sizeof *w);
		errno = ENOMEM;
		return NULL;
	}
	char *line = w->buf;
	line[w->len] = '\n';
	line[w->len + 1] = '\0';
	*len = w->len + 1;
	memset(w, 0, sizeof *w);
	return line;
}
