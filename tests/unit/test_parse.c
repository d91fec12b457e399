/* test_parse.c - unit tests for lib/parse.c, printing TAP. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sr.h"

static int n, failed;

static void check(int pass, const char *what, const char *s)
{
	n++;
	printf("%sok %d - %s '%s'\n", pass ? "" : "not ", n, what, s);
	failed += !pass;
}

typedef int (*parser)(const char *, uint64_t *);

/* sr_parse_count takes a maximum, a parser here does not: count_ok and
 * count_bad set it in count_limit before they call count_upto. */
static uint64_t count_limit;
static int count_upto(const char *s, uint64_t *v) { return sr_parse_count(s, count_limit, v); }

static void good(parser p, const char *what, const char *s, uint64_t want)
{
	uint64_t v = 0;
	int r = p(s, &v);
	check(r == 0 && v == want, what, s);
	if (r != 0 || v != want)
		printf("# got r=%d v=%llu want %llu\n", r, (unsigned long long)v,
		       (unsigned long long)want);
}

/* A rejected value sets errno and leaves *out untouched. */
static void bad(parser p, const char *what, const char *s, int err)
{
	uint64_t v = 12345;
	errno = 0;
	int r = p(s, &v);
	check(r == -1 && errno == err && v == 12345, what, s ? s : "(null)");
}

#define size_ok(s, w) good(sr_parse_size, "size parses", s, w)
#define size_bad(s, e) bad(sr_parse_size, "size rejected", s, e)
#define dur_ok(s, w) good(sr_parse_duration_ns, "duration parses", s, w)
#define dur_bad(s, e) bad(sr_parse_duration_ns, "duration rejected", s, e)

/* count_ok S MAX WANT / count_bad S MAX ERR: sr_parse_count(S, MAX, ...) */
static void count_ok(const char *s, uint64_t max, uint64_t want)
{
	char what[64];
	snprintf(what, sizeof what, "count (max %llu) parses", (unsigned long long)max);
	count_limit = max;
	good(count_upto, what, s, want);
}
static void count_bad(const char *s, uint64_t max, int err)
{
	char what[64];
	snprintf(what, sizeof what, "count (max %llu) rejected", (unsigned long long)max);
	count_limit = max;
	bad(count_upto, what, s, err);
}

/* Sizes: a number with an optional K, M, G or T (B, iB). */
static void sizes(void)
{
	size_ok("0", 0);
	size_ok("4096", 4096);
	size_ok("512K", 512ULL << 10);
	size_ok("512k", 512ULL << 10);
	size_ok("64M", 64ULL << 20);
	size_ok("1G", 1ULL << 30);
	size_ok("1.5G", 3ULL << 29);
	size_ok("2T", 2ULL << 40);
	size_ok("256MB", 256ULL << 20);
	size_ok("256MiB", 256ULL << 20);
	size_ok("100B", 100);
	size_ok("18446744073709551615", UINT64_MAX);
	size_bad("12X", EINVAL);
	size_bad("-1", EINVAL);
	size_bad("1e99", EINVAL);
	size_bad("", EINVAL);
	size_bad(NULL, EINVAL);
	size_bad(" 1M", EINVAL);
	size_bad("1M ", EINVAL);
	size_bad("1..5M", EINVAL);
	size_bad(".5M", EINVAL);
	size_bad("5.M", EINVAL);
	size_bad("1.5", EINVAL);
	size_bad("0x10", EINVAL);
	size_bad("+5", EINVAL);
	size_bad("1MM", EINVAL);
	size_bad("18446744073709551616", ERANGE);
	size_bad("99999999999999999999999", ERANGE);
	size_bad("20000000T", ERANGE);
}

/* Durations: a number with an optional unit. */
static void durations(void)
{
	dur_ok("0", 0);
	dur_ok("2", 2000000000ULL);
	dur_ok("2s", 2000000000ULL);
	dur_ok("2.5s", 2500000000ULL);
	dur_ok("250ms", 250000000ULL);
	dur_ok("300us", 300000ULL);
	dur_ok("7ns", 7ULL);
	dur_ok("1.5m", 90000000000ULL);
	dur_ok("5m", 300000000000ULL);
	dur_ok("1h", 3600000000000ULL);
	dur_ok("7d", 604800000000000ULL);
	dur_ok("0.5d", 43200000000000ULL);
	dur_ok("0.001s", 1000000ULL);
	dur_bad("12X", EINVAL);
	dur_bad("-1", EINVAL);
	dur_bad("1e99", EINVAL);
	dur_bad("", EINVAL);
	dur_bad("s", EINVAL);
	dur_bad("2 s", EINVAL);
	dur_bad("2sec", EINVAL);
	dur_bad("1.s", EINVAL);
	dur_bad("99999999999999999999", ERANGE);
	dur_bad("9999999999h", ERANGE);
	dur_bad("999999d", ERANGE);
	dur_bad("1dd", EINVAL);
}

/* Counts: an integer up to a maximum. */
static void counts(void)
{
	count_ok("0", 10, 0);
	count_ok("10", 10, 10);
	count_bad("11", 10, ERANGE);
	count_bad("64", 10, ERANGE);
	count_ok("0", 0, 0);
	count_bad("1", 0, ERANGE);
	count_ok("64", 1000, 64);
	count_ok("1000", 1000, 1000);
	count_bad("1001", 1000, ERANGE);
	count_ok("18446744073709551615", UINT64_MAX, UINT64_MAX);
	count_bad("-1", 1000, EINVAL);
	count_bad("1.5", 1000, EINVAL);
	count_bad("1e3", 1000, EINVAL);
	count_bad("", 1000, EINVAL);
	count_bad("12X", 1000, EINVAL);
	count_bad("99999999999999999999999", UINT64_MAX, ERANGE);
}

int main(void)
{
	sizes();
	durations();
	counts();
	printf("1..%d\n", n);
	return failed != 0;
}
