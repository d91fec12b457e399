/* musl-compat.c - linked into the musl build of sr-exec only (see the
 * Makefile): what Debian's libseccomp.a, compiled against glibc's headers
 * with _FORTIFY_SOURCE, calls that musl does not have. Every other
 * symbol it needs musl has, with glibc's ABI (nm -u libseccomp.a). */
#ifndef __GLIBC__
#include <stdarg.h>
#include <stdio.h>

int __fprintf_chk(FILE *f, int flag, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* glibc's fortified fprintf: flag > 0 refuses %n in a writable format,
 * a check of no use to libseccomp's constant formats. */
int __fprintf_chk(FILE *f, int flag, const char *fmt, ...)
{
	va_list ap;
	(void)flag;
	va_start(ap, fmt);
	int n = vfprintf(f, fmt, ap);
	va_end(ap);
	return n;
}
#endif
