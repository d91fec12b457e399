/* util.c - sr-mcp's small helpers: its log line, and allocation that
 * cannot fail quietly. */
#include <stdarg.h>
#include <stdio.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#include "mcp.h"
#include "sr.h"

struct config cfg;

void mcp_log(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	sr_warn("%s", buf);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);
	if (!p)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	return p;
}

/* The built-in defaults and caps (man sr-mcp, OPTIONS). */
void cfg_defaults(void)
{
	cfg.jobs = 1;
	cfg.cpu_budget = "10s/1m";
	cfg.timeout_ms = 5 * 60 * 1000;
	cfg.timeout_max_ms = 30 * 60 * 1000;
	cfg.memory = 512ULL << 20;
	cfg.memory_max = 4ULL << 30;
	cfg.pids = 128;
	cfg.wait_ms = 45 * 1000;
	cfg.wait_max_ms = 55 * 1000;
	cfg.max_chars = 50000;
	cfg.umask = umask(077);     /* read it: the jobs get the user's own */
	umask(cfg.umask);
	cfg.ws_quota = 1ULL << 30;
	cfg.ws_inodes = 200000;
	cfg.ws_ttl_ms = 7ULL * 86400000;
	cfg.scratch_ttl_ms = 3600000;    /* an hour */
	cfg.session_idle_ms = 1800000;   /* half an hour */
	cfg.job_ttl_ms = 7ULL * 86400000;
	cfg.job_space = 1ULL << 30;
}

void mcp_random_hex(char *buf, size_t bytes)
{
	unsigned char r[32];
	if (bytes > sizeof r || getrandom(r, bytes, 0) != (ssize_t)bytes)
		sr_fatal_sys(SR_EXIT_SYS, "unable to read random bytes");
	for (size_t i = 0; i < bytes; i++)
		snprintf(buf + 2 * i, 3, "%02x", r[i]);
}
