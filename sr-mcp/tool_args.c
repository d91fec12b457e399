/* tool_args.c - a call's arguments checked against its tool's
 * inputSchema, in one place (tools.c calls it before any handler), so a
 * tool cannot forget: an argument the schema does not name (with the
 * nearest name it does, and the names it takes), a wrong type, a value
 * outside an enum or a bound, a required argument missing. The keywords
 * read: type (one or a list), enum, minimum, maximum, exclusiveMinimum,
 * exclusiveMaximum, minItems, maxItems, items, properties, required,
 * additionalProperties (false, or a schema). A null argument is taken as
 * absent, as the handlers take it. The handlers' own checks stay. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "tool.h"

#define UNKNOWN_TOLD 8      /* unknown arguments named; more are counted */

struct chk {
	char *msg;
	size_t len;
	size_t used;
	int n;          /* problems told */
	int unknown;    /* of them, unknown arguments */
};

static void say(struct chk *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct chk *c, const char *fmt, ...)
{
	if (c->used + 1 >= c->len)
		return;
	if (c->n++)
		c->used += (size_t)snprintf(c->msg + c->used, c->len - c->used, "; ");
	if (c->used + 1 >= c->len)
		return;
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(c->msg + c->used, c->len - c->used, fmt, ap);
	va_end(ap);
	c->used += k < 0 ? 0 : (size_t)k;
	if (c->used >= c->len)
		c->used = c->len - 1;
}

/* Levenshtein distance, names of at most 64 bytes (else 99). */
static int distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64 || lb > 64)
		return 99;
	int row[65];
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int diag = row[0];
		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int up = row[j];
			int sub = diag + (a[i - 1] != b[j - 1]);
			int best = up + 1 < row[j - 1] + 1 ? up + 1 : row[j - 1] + 1;
			row[j] = sub < best ? sub : best;
			diag = up;
		}
	}
	return row[lb];
}

/* Do a and b share a word (between _) of 4 letters or more? */
static int share_word(const char *a, const char *b)
{
	char w[65];
	for (const char *p = a; *p;) {
		size_t n = strcspn(p, "_");
		if (n >= 4 && n < sizeof w) {
			snprintf(w, sizeof w, "%.*s", (int)n, p);
			for (const char *q = b; *q;) {
				size_t m = strcspn(q, "_");
				if (m == n && !strncmp(q, w, n))
					return 1;
				q += m + (q[m] == '_');
			}
		}
		p += n + (p[n] == '_');
	}
	return 0;
}

/* The known name nearest an unknown one, or NULL if none is near: one a
 * prefix or suffix of the other (3 letters at least), a word in common,
 * or a few letters apart (a third of the shorter, at least 1). */
static const char *nearest(const cJSON *props, const char *name)
{
	const char *best = NULL;
	int bd = 1000;
	const cJSON *p;
	cJSON_ArrayForEach(p, props) {
		const char *k = p->string;
		size_t lk = strlen(k), ln = strlen(name), lo = lk < ln ? lk : ln;
		const char *lng = lk < ln ? name : k, *sht = lk < ln ? k : name;
		size_t ll = strlen(lng);
		int d = distance(name, k);
		int near = (lo >= 3 && (!strncmp(lng, sht, lo) || !strcmp(lng + ll - lo, sht))) ||
			   share_word(name, k) || d <= (lo / 3 > 1 ? (int)(lo / 3) : 1);
		if (near && d < bd) {
			best = k;
			bd = d;
		}
	}
	return best;
}

static const char *kind_of(const cJSON *v)
{
	if (cJSON_IsNull(v))
		return "null";
	if (cJSON_IsBool(v))
		return "boolean";
	if (cJSON_IsString(v))
		return "string";
	if (cJSON_IsArray(v))
		return "array";
	if (cJSON_IsObject(v))
		return "object";
	double d = v->valuedouble;
	return isfinite(d) && d == floor(d) ? "integer" : "number";
}

static int type_is(const char *t, const cJSON *v)
{
	const char *k = kind_of(v);
	return !strcmp(t, k) || (!strcmp(t, "number") && !strcmp(k, "integer"));
}

/* Is v of the type (a name or a list of names; none: any)? */
static int type_ok(const cJSON *type, const cJSON *v)
{
	if (cJSON_IsString(type))
		return type_is(type->valuestring, v);
	if (!cJSON_IsArray(type))
		return 1;
	const cJSON *t;
	cJSON_ArrayForEach(t, type)
		if (cJSON_IsString(t) && type_is(t->valuestring, v))
			return 1;
	return 0;
}

/* The type wanted, in words: "an integer", "a string or null". */
static void type_words(const cJSON *type, char *buf, size_t len)
{
	const cJSON *one = cJSON_IsArray(type) ? type->child : type;
	size_t used = 0;
	for (int i = 0; one && used + 1 < len; one = cJSON_IsArray(type) ? one->next : NULL, i++) {
		const char *t = cJSON_IsString(one) ? one->valuestring : "?";
		int k = snprintf(buf + used, len - used, "%s%s %s", i ? " or" : "",
				 strchr("aeiou", t[0]) ? "an" : "a", t);
		used += k < 0 ? 0 : (size_t)k;
	}
	if (!used)
		snprintf(buf, len, "of another type");
}

/* What was given, in words: a string ("5"), the number 1.5, an object. */
static void given(const cJSON *v, char *buf, size_t len)
{
	const char *k = kind_of(v);
	if (cJSON_IsString(v))
		snprintf(buf, len, "a string (\"%.40s%s\")", v->valuestring,
			 strlen(v->valuestring) > 40 ? "..." : "");
	else if (cJSON_IsNumber(v))
		snprintf(buf, len, "the %s %.17g", k, v->valuedouble);
	else if (cJSON_IsBool(v) || cJSON_IsNull(v))
		snprintf(buf, len, "%s", cJSON_IsTrue(v) ? "true" : cJSON_IsFalse(v) ? "false" : "null");
	else
		snprintf(buf, len, "an %s", k);
}

/* An enum's values, "a, b, c"; does it hold v? */
static int enum_has(const cJSON *e, const cJSON *v, char *buf, size_t len)
{
	const cJSON *x;
	int has = 0;
	size_t used = 0;
	buf[0] = '\0';
	cJSON_ArrayForEach(x, e) {
		has |= cJSON_Compare(x, v, 1);
		char *s = cJSON_IsString(x) ? NULL : cJSON_PrintUnformatted(x);
		int k = used + 1 < len ? snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
						   s ? s : x->valuestring) : 0;
		cJSON_free(s);
		used += k < 0 ? 0 : (size_t)k;
		if (used >= len)
			used = len - 1;
	}
	return has;
}

static void check_value(struct chk *c, const cJSON *s, const cJSON *v, const char *path);

/* A number within its bounds; an array's length and items. */
static void check_bounds(struct chk *c, const cJSON *s, const cJSON *v, const char *path)
{
	static const struct { const char *kw, *words; int below, strict; } b[] = {
		{ "minimum", "at least", 1, 0 }, { "exclusiveMinimum", "more than", 1, 1 },
		{ "maximum", "at most", 0, 0 }, { "exclusiveMaximum", "less than", 0, 1 },
	};
	if (cJSON_IsNumber(v))
		for (size_t i = 0; i < sizeof b / sizeof *b; i++) {
			const cJSON *l = cJSON_GetObjectItem(s, b[i].kw);
			double x = v->valuedouble, m = cJSON_IsNumber(l) ? l->valuedouble : 0;
			if (cJSON_IsNumber(l) && (b[i].below ? (x < m || (b[i].strict && x == m))
							  : (x > m || (b[i].strict && x == m)))) {
				say(c, "%s must be %s %.17g, not %.17g", path, b[i].words, m, x);
				return;
			}
		}
	if (!cJSON_IsArray(v))
		return;
	const cJSON *lo = cJSON_GetObjectItem(s, "minItems"), *hi = cJSON_GetObjectItem(s, "maxItems");
	int n = cJSON_GetArraySize(v);
	if (cJSON_IsNumber(lo) && n < lo->valuedouble)
		say(c, "%s must hold at least %.17g item(s), not %d", path, lo->valuedouble, n);
	else if (cJSON_IsNumber(hi) && n > hi->valuedouble)
		say(c, "%s must hold at most %.17g item(s), not %d", path, hi->valuedouble, n);
	const cJSON *items = cJSON_GetObjectItem(s, "items"), *x;
	char sub[200];
	int i = 0;
	if (cJSON_IsObject(items))
		cJSON_ArrayForEach(x, v) {
			snprintf(sub, sizeof sub, "%.150s[%d]", path, i++);
			check_value(c, items, x, sub);
		}
}

/* An object's members: unknown ones (additionalProperties false, or each
 * checked against its schema), each known one, the required ones. */
static void check_object(struct chk *c, const cJSON *s, const cJSON *obj, const char *path)
{
	const cJSON *props = cJSON_GetObjectItem(s, "properties");
	const cJSON *extra = cJSON_GetObjectItem(s, "additionalProperties"), *v, *rq;
	char sub[200];
	cJSON_ArrayForEach(v, obj) {
		const cJSON *ps = cJSON_GetObjectItem(props, v->string);
		snprintf(sub, sizeof sub, "%s%s%.120s", path, *path ? "." : "", v->string);
		if (ps && cJSON_IsNull(v))
			continue;       /* absent, as the handlers take it */
		if (ps)
			check_value(c, ps, v, sub);
		else if (cJSON_IsFalse(extra) && c->unknown++ >= UNKNOWN_TOLD)
			c->n++;     /* counted, not told (nor compared: a long list costs) */
		else if (cJSON_IsFalse(extra)) {
			const char *near = nearest(props, v->string);
			say(c, "unknown argument \"%s\"%s%s%s", sub, near ? " (did you mean \"" : "",
			    near ? near : " (no known name is close)", near ? "\"?)" : "");
		} else if (cJSON_IsObject(extra))
			check_value(c, extra, v, sub);
	}
	cJSON_ArrayForEach(rq, cJSON_GetObjectItem(s, "required")) {
		const cJSON *x = cJSON_IsString(rq) ? cJSON_GetObjectItem(obj, rq->valuestring) : NULL;
		if (cJSON_IsString(rq) && (!x || cJSON_IsNull(x)))
			say(c, "%s%s%s is required", path, *path ? "." : "", rq->valuestring);
	}
}

static void check_value(struct chk *c, const cJSON *s, const cJSON *v, const char *path)
{
	const cJSON *type = cJSON_GetObjectItem(s, "type"), *e = cJSON_GetObjectItem(s, "enum");
	const cJSON *d = cJSON_GetObjectItem(s, "description");
	char want[100], got[100], vals[400];
	if (type && !type_ok(type, v)) {
		type_words(type, want, sizeof want);
		given(v, got, sizeof got);
		say(c, "%s must be %s, not %s", path, want, got);
		return;
	}
	if (cJSON_IsArray(e) && !enum_has(e, v, vals, sizeof vals)) {
		given(v, got, sizeof got);
		say(c, "%s must be one of: %s, not %s%s%.200s%s", path, vals, got,
		    cJSON_IsString(d) ? " (" : "", cJSON_IsString(d) ? d->valuestring : "",
		    cJSON_IsString(d) ? ")" : "");
		return;
	}
	check_bounds(c, s, v, path);
	if (cJSON_IsObject(v))
		check_object(c, s, v, path);
}

/* After unknown arguments: the names the tool takes. */
static void tell_names(struct chk *c, const char *tool, const cJSON *schema)
{
	const cJSON *p, *rq = cJSON_GetObjectItem(schema, "required");
	size_t before = c->n;
	say(c, "%s takes ", tool);
	c->n = (int)before + 1;
	int i = 0;
	cJSON_ArrayForEach(p, cJSON_GetObjectItem(schema, "properties")) {
		if (cJSON_IsTrue(cJSON_GetObjectItem(p, TOOL_UNLISTED)))
			continue;
		int req = 0;
		const cJSON *x;
		cJSON_ArrayForEach(x, rq)
			req |= cJSON_IsString(x) && !strcmp(x->valuestring, p->string);
		if (c->used + 1 < c->len)
			c->used += (size_t)snprintf(c->msg + c->used, c->len - c->used, "%s%s%s",
						    i++ ? ", " : "", p->string, req ? " (required)" : "");
		if (c->used >= c->len)
			c->used = c->len - 1;
	}
	if (!i && c->used + 1 < c->len)
		snprintf(c->msg + c->used, c->len - c->used, "no arguments");
}

int tool_args_check(const char *tool, const cJSON *schema, const cJSON *args, char *msg, size_t len)
{
	struct chk c = { msg, len, 0, 0, 0 };
	cJSON *none = args ? NULL : cJSON_CreateObject();
	msg[0] = '\0';
	if (schema)
		check_object(&c, schema, args ? args : none, "");
	cJSON_Delete(none);
	if (c.unknown > UNKNOWN_TOLD)
		say(&c, "%d more unknown arguments", c.unknown - UNKNOWN_TOLD);
	if (c.unknown)
		tell_names(&c, tool, schema);
	return c.n ? -1 : 0;
}
