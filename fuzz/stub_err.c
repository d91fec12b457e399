/* stub_err.c - lib/err.c for the fuzz targets: a fatal error the target
 * expects (a bad profile is exit 100) returns to the target instead of
 * ending the process; any other one is a crash. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "sr.h"

const char *sr_prog = "sr-fuzz";
jmp_buf *fz_jump;
int fz_expect_code = -1;

void sr_set_prog(const char *name)
{
	sr_prog = name;
}

static void say(const char *kind, int err, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
static void say(const char *kind, int err, const char *fmt, va_list ap)
{
	static int verbose = -1;
	if (verbose < 0)
		verbose = getenv("SR_FUZZ_VERBOSE") != NULL;
	if (!verbose && strcmp(kind, "fatal") != 0)
		return;
	fprintf(stderr, "%s: %s: ", sr_prog, kind);
	vfprintf(stderr, fmt, ap);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
}

static void __attribute__((noreturn)) leave(int code)
{
	if (fz_jump && code == fz_expect_code)
		longjmp(*fz_jump, 1);
	fprintf(stderr, "%s: fatal error with exit code %d: a bug, or the harness "
		"does not expect it\n", sr_prog, code);
	abort();
}

void sr_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say("warning", 0, fmt, ap);
	va_end(ap);
}

void sr_warn_sys(const char *fmt, ...)
{
	int e = errno;
	va_list ap;
	va_start(ap, fmt);
	say("warning", e, fmt, ap);
	va_end(ap);
	errno = e;
}

/* The message is only printed when it is not expected. */
void sr_fatal(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say(fz_jump && code == fz_expect_code ? "refused" : "fatal", 0, fmt, ap);
	va_end(ap);
	leave(code);
}

void sr_fatal_sys(int code, const char *fmt, ...)
{
	int e = errno;
	va_list ap;
	va_start(ap, fmt);
	say(fz_jump && code == fz_expect_code ? "refused" : "fatal", e, fmt, ap);
	va_end(ap);
	leave(code);
}

void sr_fatal_run(const char *prog)
{
	sr_fatal_sys(sr_exec_exit(errno), "unable to run %s", prog);
}

void sr_usage(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say(fz_jump && fz_expect_code == SR_EXIT_USAGE ? "refused" : "fatal", 0, fmt, ap);
	va_end(ap);
	leave(SR_EXIT_USAGE);
}

void sr_usage_option(int argc, char *const argv[], int c)
{
	(void)argc;
	(void)argv;
	(void)c;
	sr_usage("an option");
}

void sr_version(void)
{
	abort();
}

char *fz_strndup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

int fz_tmpdir(char *buf, size_t len, const char *name)
{
	const char *t = getenv("TMPDIR");
	if (!t || !*t)
		t = access("/dev/shm", W_OK | X_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(buf, len, "%s/%s.XXXXXX", t, name);
	return mkdtemp(buf) ? 0 : -1;
}
