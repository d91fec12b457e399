/* err.c - one-line diagnostics on stderr. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sr.h"

const char *sr_prog = "sr";

void sr_set_prog(const char *name)
{
	const char *slash = strrchr(name, '/');
	sr_prog = slash ? slash + 1 : name;
}

/* Compose the whole line first so that it reaches stderr in one write.
 * The format attribute (va_list form: 0) lets clang's -Wformat-nonliteral
 * accept fmt, which the callers' own attributes have already checked. */
__attribute__((format(printf, 3, 0)))
static void emit(const char *kind, int err, const char *fmt, va_list ap)
{
	char buf[1024];
	int n = snprintf(buf, sizeof buf, "%s: %s: ", sr_prog, kind);
	if (n < 0 || (size_t)n >= sizeof buf)
		n = 0;
	int m = vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
	if (m > 0)
		n = (size_t)(n + m) >= sizeof buf ? (int)sizeof buf - 1 : n + m;
	if (err && (size_t)n < sizeof buf - 1) {
		m = snprintf(buf + n, sizeof buf - (size_t)n, ": %s", strerror(err));
		if (m > 0)
			n = (size_t)(n + m) >= sizeof buf ? (int)sizeof buf - 1 : n + m;
	}
	if ((size_t)n >= sizeof buf - 1)
		n = (int)sizeof buf - 2;
	buf[n++] = '\n';
	(void)sr_write_all(2, buf, (size_t)n);
}

void sr_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emit("warning", 0, fmt, ap);
	va_end(ap);
}

void sr_warn_sys(const char *fmt, ...)
{
	int e = errno;
	va_list ap;
	va_start(ap, fmt);
	emit("warning", e, fmt, ap);
	va_end(ap);
	errno = e;
}

void sr_fatal(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emit("fatal", 0, fmt, ap);
	va_end(ap);
	_exit(code);
}

void sr_fatal_sys(int code, const char *fmt, ...)
{
	int e = errno;
	va_list ap;
	va_start(ap, fmt);
	emit("fatal", e, fmt, ap);
	va_end(ap);
	_exit(code);
}

void sr_note(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emit("note", 0, fmt, ap);
	va_end(ap);
}

void sr_usage_option(int argc, char *const argv[], int c)
{
	/* musl leaves optind past argc when a last option lacks its value */
	const char *arg = argv[optind - 1 < argc ? optind - 1 : argc - 1];
	int len = (int)strcspn(arg, "=");
	char shortopt[3] = { '-', (char)optopt, '\0' };
	int is_long = strncmp(arg, "--", 2) == 0;
	if (!is_long) {         /* "-Z", or "-mZ" whose unknown letter is Z */
		arg = shortopt;
		len = 2;
	}
	if (c == ':')
		sr_usage("option '%.*s' needs a value (see %s --help)", len, arg, sr_prog);
	if (is_long && optopt && arg[len] == '=')
		sr_usage("option '%.*s' takes no value (see %s --help)", len, arg, sr_prog);
	sr_usage("unknown option '%.*s' (see %s --help)", len, arg, sr_prog);
}

void sr_version(void)
{
	printf("%s %s\n", sr_prog, SR_VERSION);
	exit(fflush(stdout) == 0 ? SR_EXIT_OK : SR_EXIT_SYS);
}

void sr_usage_noprog(void)
{
	sr_usage("no program given (see %s --help)", sr_prog);
}

void sr_usage_value(const char *opt, const char *what, const char *value, const char *want)
{
	if (want)
		sr_usage("%s: invalid %s: '%s' (want %s)", opt, what, value ? value : "", want);
	sr_usage("%s: invalid %s: '%s'", opt, what, value ? value : "");
}

int sr_run_failure(char *buf, size_t size, const char *prog, int err)
{
	return snprintf(buf, size, "unable to run %s: %s", prog, strerror(err));
}

void sr_fatal_run(const char *prog)
{
	int e = errno;
	char msg[512];
	(void)sr_run_failure(msg, sizeof msg, prog, e);
	sr_fatal(sr_exec_exit(e), "%s", msg);
}

void sr_usage(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emit("usage", 0, fmt, ap);
	va_end(ap);
	_exit(SR_EXIT_USAGE);
}
