/* test_jr.c - unit tests for lib/jr.c, the JSON reader of sr-exec,
 * printing TAP: what it accepts and builds, where and why it refuses,
 * and the integers it reads exactly. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sr.h"

static int n, failed;

static void check(int pass, const char *what)
{
	n++;
	printf("%sok %d - %s\n", pass ? "" : "not ", n, what);
	failed += !pass;
}

/* A text with its length, so that it may hold a NUL byte. */
#define T(s) s, sizeof s - 1

static void good(const char *text, size_t len, enum sr_jr_type type, const char *what)
{
	struct sr_jr_error e;
	struct sr_jr *v = sr_jr_parse(text, len, &e);
	check(v && v->type == type, what);
	if (!v)
		printf("# refused at %zu: %s\n", e.pos, e.what);
	sr_jr_free(v);
}

static void bad(const char *text, size_t len, size_t pos, const char *why, const char *what)
{
	struct sr_jr_error e = {99, "unset"};
	errno = 0;
	struct sr_jr *v = sr_jr_parse(text, len, &e);
	int pass = !v && errno == EINVAL && e.pos == pos && e.what && strstr(e.what, why);
	check(pass, what);
	if (!pass)
		printf("# got %s at %zu: %s (errno %d); want at %zu: %s\n", v ? "a tree" : "a refusal",
		       e.pos, e.what ? e.what : "(null)", errno, pos, why);
	sr_jr_free(v);
}

/* The number text's value through sr_jr_uint: want -1 for a refusal. */
static void uint_is(const char *num, int ok, uint64_t want)
{
	char what[160];
	uint64_t v = 12345;
	struct sr_jr *j = sr_jr_parse(num, strlen(num), NULL);
	int r = sr_jr_uint(j, &v);
	snprintf(what, sizeof what, "sr_jr_uint %s: %s", num, ok ? "exact" : "refused");
	check(j && (ok ? r == 0 && v == want : r == -1), what);
	if (ok && (r != 0 || v != want))
		printf("# got %d, %llu\n", r, (unsigned long long)v);
	sr_jr_free(j);
}

static void tree(void)
{
	const char text[] = " {\"a\" : [1, -2.5e-3, \"x\\u00e9\\ud83d\\ude00\\n\\\"\\\\\\/\\t\"],"
			    " \"b\": {\"c\": null, \"d\": true, \"e\": false}, \"\": \"\\u20AC\"} \r\n";
	struct sr_jr_error e;
	struct sr_jr *root = sr_jr_parse(text, sizeof text - 1, &e);
	check(sr_jr_is(root, SR_JR_OBJECT), "a document with every kind of value");
	if (!root)
		return;
	const struct sr_jr *a = sr_jr_get(root, "a"), *b = sr_jr_get(root, "b"), *x;
	check(sr_jr_is(a, SR_JR_ARRAY) && a->pos == 2, "member a: an array, its name at byte 2");
	int i = 0, order = 1;
	static const enum sr_jr_type want[] = {SR_JR_NUMBER, SR_JR_NUMBER, SR_JR_STRING};
	SR_JR_EACH(x, a)
		order &= i < 3 && x->type == want[i++] && !x->key;
	check(order && i == 3, "the elements in order, without names");
	x = sr_jr_first(a)->next;
	check(strcmp(x->str, "-2.5e-3") == 0 && x->len == 7, "a number is kept as written");
	x = x->next;
	check(strcmp(x->str, "x\xc3\xa9\xf0\x9f\x98\x80\n\"\\/\t") == 0 && x->len == 12,
	      "escapes decoded, a surrogate pair as one UTF-8 character");
	check(sr_jr_is(sr_jr_get(b, "c"), SR_JR_NULL) && sr_jr_is(sr_jr_get(b, "d"), SR_JR_TRUE) &&
	      sr_jr_is(sr_jr_get(b, "e"), SR_JR_FALSE), "null, true, false");
	x = sr_jr_get(root, "");
	check(x && strcmp(x->str, "\xe2\x82\xac") == 0, "an empty member name; \\u20AC in capitals");
	check(!sr_jr_get(root, "A") && !sr_jr_get(a, "a") && !sr_jr_get(NULL, "a"),
	      "names compare exactly; only an object has members");
	check(!sr_jr_first(NULL) && !sr_jr_first(sr_jr_get(b, "c")) && !sr_jr_is(NULL, SR_JR_NULL),
	      "NULL and scalars have no elements and no type");
	sr_jr_free(root);
}

static void depth(void)
{
	char deep[2 * SR_JR_DEPTH + 2];
	for (int d = SR_JR_DEPTH; d <= SR_JR_DEPTH + 1; d++) {
		memset(deep, '[', (size_t)d);
		memset(deep + d, ']', (size_t)d);
		if (d == SR_JR_DEPTH)
			good(deep, 2 * (size_t)d, SR_JR_ARRAY, "arrays nested SR_JR_DEPTH deep");
		else
			bad(deep, 2 * (size_t)d, SR_JR_DEPTH, "nested more than",
			    "one level more: refused at the bracket too many");
	}
}

/* Texts read, and the type of their top value. */
static void good_texts(void)
{
	good(T("{}"), SR_JR_OBJECT, "{}");
	good(T("[]"), SR_JR_ARRAY, "[]");
	good(T("\"\""), SR_JR_STRING, "a string alone");
	good(T(" 0 "), SR_JR_NUMBER, "a number alone, with white space");
	good(T("-0.0E+00"), SR_JR_NUMBER, "-0.0E+00");
	good(T("null"), SR_JR_NULL, "null alone");
	good(T("\"\x7f\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf\xef\xbf\xbf\""), SR_JR_STRING,
	     "DEL and well-formed UTF-8 up to U+10FFFF");
	good(T("\"\\ud800\\udc00\\udbff\\udfff\""), SR_JR_STRING, "the first and last surrogate pairs");
	good(T("{\"a\":{\"a\":1},\"b\":[{\"a\":2}]}"), SR_JR_OBJECT,
	     "one name in different objects");
}

/* Structure refused: where, and why. */
static void bad_structure(void)
{
	bad(T(""), 0, "unexpected end", "an empty text");
	bad(T(" \n\t\r"), 4, "unexpected end", "white space only");
	bad(T("{"), 1, "unexpected end", "an object left open");
	bad(T("{\"a\":1,}"), 7, "expected a member name", "a comma before }");
	bad(T("[1,]"), 3, "expected a value", "a comma before ]");
	bad(T("[1 2]"), 3, "expected ',' or ']'", "no comma in an array");
	bad(T("{\"a\":1 \"b\":2}"), 7, "expected ',' or '}'", "no comma in an object");
	bad(T("{\"a\" 1}"), 5, "expected ':'", "no colon");
	bad(T("{a:1}"), 1, "expected a member name", "an unquoted name");
	bad(T("{1:1}"), 1, "expected a member name", "a number as a name");
	bad(T("['a']"), 1, "expected a value", "single quotes");
	bad(T("{\"a\":1} x"), 8, "more text", "text after the value");
	bad(T("{}{}"), 2, "more text", "two values");
	bad(T("{}\0"), 2, "more text", "a NUL byte after the value");
	bad(T("\xef\xbb\xbf{}"), 0, "expected a value", "a byte order mark");
	bad(T("{\"a\":1,\"b\":2,\"a\":3}"), 13, "repeated", "a member name twice: at the second");
	bad(T("{\"b\":1,\"a\":2,\"a\":3,\"b\":4}"), 13, "repeated",
	    "two names twice: at the first repetition in the text");
	bad(T("{\"a\\u0062\":1,\"ab\":2}"), 13, "repeated", "names compare decoded");
	bad(T("/* */ {}"), 0, "expected a value", "a comment");
}

/* Numbers refused. */
static void bad_numbers(void)
{
	bad(T("01"), 1, "leading zero", "a leading zero");
	bad(T("-01"), 2, "leading zero", "a leading zero after a minus");
	bad(T("+1"), 0, "expected a value", "a plus sign");
	bad(T(".5"), 0, "expected a value", "no digit before the point");
	bad(T("1."), 2, "unexpected end", "no digit after the point, at the end");
	bad(T("1.e5"), 2, "bad number", "no digit after the point");
	bad(T("1e"), 2, "unexpected end", "an exponent without digits, at the end");
	bad(T("1e+"), 3, "unexpected end", "an exponent sign without digits");
	bad(T("[1ex]"), 3, "bad number", "an exponent without digits");
	bad(T("-"), 1, "unexpected end", "a lone minus");
	bad(T("-a"), 1, "bad number", "a minus before a letter");
	bad(T("NaN"), 0, "expected a value", "NaN");
	bad(T("-Infinity"), 1, "bad number", "-Infinity");
	bad(T("0x10"), 1, "more text", "hexadecimal");
}

/* Words refused. */
static void bad_words(void)
{
	bad(T("tru"), 3, "unexpected end", "a word cut short");
	bad(T("trUe"), 2, "unexpected character", "a word misspelt");
	bad(T("True"), 0, "expected a value", "a capital");
	bad(T("[nul]"), 4, "unexpected character", "null cut short inside an array");
}

/* Strings refused: escapes, surrogates, UTF-8. */
static void bad_strings(void)
{
	bad(T("\"abc"), 4, "unexpected end", "a string left open");
	bad(T("\"abc\\"), 5, "unexpected end", "a string ending in a backslash");
	bad(T("\"abc\\\""), 6, "unexpected end", "an escaped quote does not close");
	bad(T("\"a\x01\""), 2, "control character", "a raw control character");
	bad(T("\"a\nb\""), 2, "control character", "a raw newline");
	bad(T("\"a\0b\""), 2, "control character", "a raw NUL byte");
	bad(T("\"\\x\""), 1, "bad escape", "\\x");
	bad(T("\"\\'\""), 1, "bad escape", "\\'");
	bad(T("\"\\U0041\""), 1, "bad escape", "\\U");
	bad(T("\"ab\\u12\""), 3, "four hex digits", "\\u with two digits");
	bad(T("\"\\u00g0\""), 1, "four hex digits", "\\u with a letter past f");
	bad(T("\"\\u0000\""), 1, "\\u0000", "\\u0000: strings are C strings");
	bad(T("\"x\\ud800\""), 2, "lone surrogate", "a high surrogate alone");
	bad(T("\"\\ud800x\""), 1, "lone surrogate", "a high surrogate before a letter");
	bad(T("\"\\udc00\\ud800\""), 1, "lone surrogate", "a low surrogate first");
	bad(T("\"\\ud800\\u0041\""), 1, "lone surrogate", "a high surrogate before a non-surrogate");
	bad(T("\"\\ud800\\ud800\""), 1, "lone surrogate", "two high surrogates");
	bad(T("\"a\x80\""), 2, "UTF-8", "a lone continuation byte");
	bad(T("\"\xc0\x80\""), 1, "UTF-8", "an overlong NUL");
	bad(T("\"\xc1\xbf\""), 1, "UTF-8", "an overlong two-byte form");
	bad(T("\"\xe0\x9f\xbf\""), 1, "UTF-8", "an overlong three-byte form");
	bad(T("\"\xf0\x8f\xbf\xbf\""), 1, "UTF-8", "an overlong four-byte form");
	bad(T("\"\xed\xa0\x80\""), 1, "UTF-8", "a surrogate in UTF-8");
	bad(T("\"\xf4\x90\x80\x80\""), 1, "UTF-8", "past U+10FFFF");
	bad(T("\"\xf5\x80\x80\x80\""), 1, "UTF-8", "a lead byte past f4");
	bad(T("\"\xe2\x82\""), 1, "UTF-8", "a sequence cut by the closing quote");
	bad(T("\"\xe2\x82"), 3, "unexpected end", "a sequence cut by the end");
	bad(T("{\"\xff\":1}"), 2, "UTF-8", "bad UTF-8 in a member name");
}

/* Numbers read as unsigned 64-bit integers. */
static void uint_values(void)
{
	uint_is("0", 1, 0);
	uint_is("-0", 1, 0);
	uint_is("-0.0e5", 1, 0);
	uint_is("4095", 1, 4095);
	uint_is("9007199254740993", 1, 9007199254740993ULL);
	uint_is("18446744073709551615", 1, UINT64_MAX);
	uint_is("18446744073709551616", 0, 0);
	uint_is("99999999999999999999", 0, 0);
	uint_is("1844674407370955161.5e1", 1, UINT64_MAX);
	uint_is("1e3", 1, 1000);
	uint_is("1E+2", 1, 100);
	uint_is("4.0", 1, 4);
	uint_is("10e-1", 1, 1);
	uint_is("0.05e2", 1, 5);
	uint_is("100000000000000000000e-2", 1, 1000000000000000000ULL);
	uint_is("0.000000000000000000000000001e27", 1, 1);
	uint_is("1e19", 1, 10000000000000000000ULL);
	uint_is("1e20", 0, 0);
	uint_is("0e99999999999999999999", 1, 0);
	uint_is("1e99999999999999999999", 0, 0);
	uint_is("1e-99999999999999999999", 0, 0);
	uint_is("1.5", 0, 0);
	uint_is("1e-1", 0, 0);
	uint_is("-1", 0, 0);
	uint_is("1.0000000000000000000000001", 0, 0);
	uint_is("\"1\"", 0, 0);
	uint_is("true", 0, 0);
}

int main(void)
{
	good_texts();
	tree();
	depth();
	bad_structure();
	bad_numbers();
	bad_words();
	bad_strings();
	uint_values();
	printf("1..%d\n", n);
	return failed != 0;
}
