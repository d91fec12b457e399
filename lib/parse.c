/* parse.c - strict parsing of sizes, durations and counts. */
#include <errno.h>
#include <string.h>

#include "sr.h"

/* Parse "DIGITS[.DIGITS]" at *sp. On success store the integer part and
 * the fraction as num/den (den a power of ten), advance *sp, return 0. */
static int parse_decimal(const char **sp, uint64_t *ip, uint64_t *fnum, uint64_t *fden)
{
	const char *s = *sp;
	uint64_t v = 0, num = 0, den = 1;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (uint64_t)(*s - '0'), &v)) {
			errno = ERANGE;
			return -1;
		}
	}
	if (*s == '.') {
		s++;
		if (*s < '0' || *s > '9')
			return -1;
		for (; *s >= '0' && *s <= '9'; s++) {
			if (den >= 1000000000000000000ULL)
				continue; /* ignore digits past 1e-18 */
			num = num * 10 + (uint64_t)(*s - '0');
			den *= 10;
		}
	}
	*ip = v;
	*fnum = num;
	*fden = den;
	*sp = s;
	return 0;
}

/* value = (ip + fnum/fden) * mult, exactly where possible, rounded down. */
static int scale(uint64_t ip, uint64_t fnum, uint64_t fden, uint64_t mult, uint64_t *out)
{
	uint64_t whole, frac;
	if (__builtin_mul_overflow(ip, mult, &whole))
		return -1;
	/* fnum < fden <= 1e18; split mult to avoid overflow of fnum*mult. */
	unsigned __int128 f = (unsigned __int128)fnum * mult / fden;
	frac = (uint64_t)f;
	if (__builtin_add_overflow(whole, frac, out))
		return -1;
	return 0;
}

static int fail(int e)
{
	errno = e;
	return -1;
}

int sr_parse_size(const char *s, uint64_t *out)
{
	uint64_t ip, fn, fd, mult = 1, v;

	if (!s || parse_decimal(&s, &ip, &fn, &fd) < 0)
		return fail(errno == ERANGE ? ERANGE : EINVAL);
	switch (*s) {
	case 'k': case 'K': mult = 1ULL << 10; s++; break;
	case 'm': case 'M': mult = 1ULL << 20; s++; break;
	case 'g': case 'G': mult = 1ULL << 30; s++; break;
	case 't': case 'T': mult = 1ULL << 40; s++; break;
	default: break;
	}
	if (mult > 1 && s[0] == 'i' && s[1] == 'B')
		s += 2;
	else if (*s == 'B' || *s == 'b')
		s++;
	if (*s != '\0')
		return fail(EINVAL);
	if (mult == 1 && fn != 0)
		return fail(EINVAL); /* fractional bytes */
	if (scale(ip, fn, fd, mult, &v) < 0)
		return fail(ERANGE);
	*out = v;
	return 0;
}

int sr_parse_duration_ns(const char *s, uint64_t *out)
{
	static const struct { const char *name; uint64_t ns; } units[] = {
		{ "ns", 1ULL }, { "us", 1000ULL }, { "ms", 1000000ULL },
		{ "s", 1000000000ULL }, { "m", 60000000000ULL },
		{ "h", 3600000000000ULL }, { "d", 86400000000000ULL },
		{ "", 1000000000ULL },
	};
	uint64_t ip, fn, fd, v;

	if (!s || parse_decimal(&s, &ip, &fn, &fd) < 0)
		return fail(errno == ERANGE ? ERANGE : EINVAL);
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		if (strcmp(s, units[i].name) != 0)
			continue;
		if (scale(ip, fn, fd, units[i].ns, &v) < 0)
			return fail(ERANGE);
		*out = v;
		return 0;
	}
	return fail(EINVAL);
}

int sr_parse_count(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t ip, fn, fd;

	if (!s || parse_decimal(&s, &ip, &fn, &fd) < 0)
		return fail(errno == ERANGE ? ERANGE : EINVAL);
	if (*s != '\0' || fd != 1)
		return fail(EINVAL);
	if (ip > max)
		return fail(ERANGE);
	*out = ip;
	return 0;
}

static void bad(const char *opt, const char *what, const char *s)
{
	if (errno == ERANGE)
		sr_usage("%s: %s out of range: '%s'", opt, what, s ? s : "");
	sr_usage("%s: invalid %s: '%s'", opt, what, s ? s : "");
}

uint64_t sr_opt_size(const char *opt, const char *s)
{
	uint64_t v;
	if (sr_parse_size(s, &v) < 0)
		bad(opt, "size", s);
	return v;
}

uint64_t sr_opt_duration_ns(const char *opt, const char *s)
{
	uint64_t v;
	if (sr_parse_duration_ns(s, &v) < 0)
		bad(opt, "duration", s);
	return v;
}

uint64_t sr_opt_count(const char *opt, const char *s, uint64_t max)
{
	uint64_t v;
	if (sr_parse_count(s, max, &v) < 0)
		bad(opt, "count", s);
	return v;
}
