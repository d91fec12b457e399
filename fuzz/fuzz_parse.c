/* fuzz_parse.c - the strict number parsers of lib/parse.c.
 *
 * Beyond "no crash, no undefined behaviour", every input is checked
 * against what the parsers promise (lib/sr.h):
 *   - a refusal says EINVAL or ERANGE and leaves *out alone;
 *   - the same input gives the same answer twice;
 *   - an accepted value, printed back plainly (bytes; ns; a count), is
 *     accepted again with the same value;
 *   - an accepted count is the same size and, with "ns", the same duration;
 *   - a number with a unit is the same number in the next smaller unit,
 *     divided by their ratio (both round down: floor(floor(x*R*u)/R) is
 *     floor(x*u)), and is accepted in that unit whenever it is in the
 *     larger one. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "sr.h"

#define SENTINEL 0x5a5a5a5a5a5a5a5aULL

typedef int (*parser)(const char *, uint64_t *);

static int count_any(const char *s, uint64_t *out)
{
	return sr_parse_count(s, UINT64_MAX, out);
}

static void fail(const char *what, const char *s)
{
	fprintf(stderr, "fuzz_parse: %s: input '%s'\n", what, s);
	abort();
}

/* Parse s; check the refusal contract; 0 and *v, or -1 and errno. */
static int parse(parser p, const char *s, uint64_t *v)
{
	uint64_t a = SENTINEL, b = SENTINEL;
	errno = 0;
	int r = p(s, &a);
	int e = errno;
	if (r != 0 && r != -1)
		fail("a parser returned neither 0 nor -1", s);
	if (r < 0 && e != EINVAL && e != ERANGE)
		fail("refused without EINVAL or ERANGE", s);
	if (r < 0 && a != SENTINEL)
		fail("refused, but wrote *out", s);
	if ((p(s, &b) == 0) != (r == 0) || (r == 0 && a != b))
		fail("two answers to one input", s);
	errno = e;
	*v = a;
	return r;
}

static void same(parser p, const char *s, const char *again, uint64_t v)
{
	uint64_t w;
	if (parse(p, again, &w) < 0 || w != v) {
		fprintf(stderr, "fuzz_parse: '%s' gave %" PRIu64 ", but '%s' %s %" PRIu64 "\n",
			s, v, again, errno ? "is refused" : "gave", w);
		abort();
	}
}

/* s is NUMBER then UNIT (unit at s + at): the NUMBER in the unit one
 * smaller, `smaller` + rest, divided by ratio, must give the same. */
static void smaller_unit(parser p, const char *s, size_t at, size_t unit_len,
			 const char *smaller, uint64_t ratio, uint64_t v)
{
	char buf[600];
	if (at > 500)
		return;
	snprintf(buf, sizeof buf, "%.*s%s%s", (int)at, s, smaller, s + at + unit_len);
	uint64_t w;
	if (parse(p, buf, &w) < 0)
		fail("accepted in a unit, refused in a smaller one", s);
	if (v / ratio != w) {
		fprintf(stderr, "fuzz_parse: '%s' is %" PRIu64 " but '%s' is %" PRIu64
			" (ratio %" PRIu64 ")\n", s, v, buf, w, ratio);
		abort();
	}
}

static void check_size(const char *s, size_t at)
{
	uint64_t v;
	char buf[32];
	if (parse(sr_parse_size, s, &v) < 0)
		return;
	snprintf(buf, sizeof buf, "%" PRIu64, v);
	same(sr_parse_size, s, buf, v);
	snprintf(buf, sizeof buf, "%" PRIu64 "B", v);
	same(sr_parse_size, s, buf, v);
	if (v % 1024 == 0) {
		snprintf(buf, sizeof buf, "%" PRIu64 "K", v / 1024);
		same(sr_parse_size, s, buf, v);
	}
	static const char units[] = "kmgt";
	const char *u = s[at] ? strchr(units, s[at] | 32) : NULL;
	if (u && u > units) {
		char lower[2] = { u[-1], 0 };
		smaller_unit(sr_parse_size, s, at, 1, lower, 1024, v);
	}
}

static void check_duration(const char *s, size_t at)
{
	static const struct { const char *unit, *smaller; uint64_t ratio; } u[] = {
		{ "h", "m", 60 }, { "m", "s", 60 }, { "s", "ms", 1000 },
		{ "", "ms", 1000 }, { "ms", "us", 1000 }, { "us", "ns", 1000 },
	};
	uint64_t v;
	char buf[32];
	if (parse(sr_parse_duration_ns, s, &v) < 0)
		return;
	snprintf(buf, sizeof buf, "%" PRIu64 "ns", v);
	same(sr_parse_duration_ns, s, buf, v);
	if (v % 1000000000 == 0) {
		snprintf(buf, sizeof buf, "%" PRIu64, v / 1000000000);
		same(sr_parse_duration_ns, s, buf, v);
	}
	for (size_t i = 0; i < sizeof u / sizeof *u; i++)
		if (strcmp(s + at, u[i].unit) == 0)
			smaller_unit(sr_parse_duration_ns, s, at, strlen(u[i].unit), u[i].smaller,
				     u[i].ratio, v);
}

/* A count under a maximum: accepted when at most the maximum, else ERANGE. */
static void count_under(const char *s, uint64_t w, uint64_t max)
{
	uint64_t v = SENTINEL;
	errno = 0;
	int r = sr_parse_count(s, max, &v);
	if (w <= max ? r != 0 || v != w : r != -1 || errno != ERANGE || v != SENTINEL)
		fail("a count and its maximum disagree", s);
}

static void check_count(const char *s)
{
	uint64_t w;
	char buf[40];
	if (parse(count_any, s, &w) < 0) {
		uint64_t v = SENTINEL;
		if (sr_parse_count(s, 0, &v) == 0 || v != SENTINEL)
			fail("count refused without a maximum, accepted under one", s);
		return;
	}
	count_under(s, w, w);
	count_under(s, w, 0);
	if (w > 0)
		count_under(s, w, w - 1);
	snprintf(buf, sizeof buf, "%" PRIu64, w);
	same(count_any, s, buf, w);
	same(sr_parse_size, buf, s, w);     /* a count is a size in bytes */
	if (strlen(s) < 500) {
		char d[520];
		snprintf(d, sizeof d, "%sns", s);
		snprintf(buf, sizeof buf, "%" PRIu64 "ns", w);
		same(sr_parse_duration_ns, buf, d, w);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fz_strndup(data, size);
	size_t at = strspn(s, "0123456789.");
	check_size(s, at);
	check_duration(s, at);
	check_count(s);
	free(s);
	return 0;
}
