/* job_oom.c - a run that failed for memory, and what to say of it.
 *
 * Only sr-limit's report makes a run "oom" (job_result.c): with a
 * delegated cgroup the kernel counts the OOM kills; under an rlimit
 * sr-limit takes a run that ended abnormally with its peak within 10% of
 * the limit to have reached it. Both are seen from outside the run.
 *
 * Under an rlimit (RLIMIT_DATA) an allocation is often refused far below
 * the limit (one large array asked for at once), and the only one to see
 * it is the program: its runtime reports it and gives up. That report is
 * the program's word (code can raise MemoryError itself, or print V8's
 * fatal lines and abort()), so sr-mcp repeats it as the program's, never
 * as its own verdict. What is recognised, with a memory limit in force
 * and the run's status as the runtime leaves it:
 *
 *   Python   exit 1, the last line of stderr MemoryError (the traceback's
 *            end; NumPy's and pandas' _ArrayMemoryError too, whose "Unable
 *            to allocate 1.49 GiB" says what was asked for) or OSError
 *            [Errno 12] (an mmap refused);
 *   Node.js  exit 1, "RangeError: Array buffer allocation failed" or an
 *            ENOMEM error; SIGABRT with V8's fatal "JavaScript heap out of
 *            memory" (the runner sets V8's heap limit below the memory
 *            limit, so a full heap ends there);
 *   C++      SIGABRT (134 from a shell) after std::terminate's line for
 *            an uncaught std::bad_alloc.
 *
 * The peak sr-limit measured is what the run held (the cgroup's
 * memory.peak, or the largest process's resident size under an rlimit),
 * never what a refused allocation asked for: the hint says which it is,
 * and what was asked for when the report says. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "job.h"
#include "mcp.h"
#include "sr.h"

#define TAIL 4096                /* bytes of stderr looked at */

static double limit_of(const cJSON *lim, const char *name)
{
	const cJSON *l = cJSON_GetObjectItem(cJSON_GetObjectItem(lim, "limits"), name);
	const cJSON *b = cJSON_GetObjectItem(l, "bytes");
	return cJSON_IsNumber(b) ? b->valuedouble : 0;
}

double job_oom_limit(const cJSON *lim)
{
	static const char *const names[] = { "memory", "data", "address_space" };
	for (size_t i = 0; i < 3; i++)
		if (limit_of(lim, names[i]) > 0)
			return limit_of(lim, names[i]);
	return 0;
}

/* A line of tail (from its start) that begins with pre and holds has. */
static int has_line(const char *tail, const char *pre, const char *has)
{
	for (const char *p = tail; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		size_t len = strcspn(p, "\n");
		if (!strncmp(p, pre, strlen(pre)) && (!has || memmem(p, len, has, strlen(has))))
			return 1;
	}
	return 0;
}

/* The last line of tail that is not empty, in buf (at most len - 1). */
static void last_line(const char *tail, char *buf, size_t len)
{
	size_t n = strlen(tail);
	while (n && tail[n - 1] == '\n')
		n--;
	size_t at = n;
	while (at && tail[at - 1] != '\n')
		at--;
	snprintf(buf, len, "%.*s", (int)(n - at), tail + at);
}

/* The runtime's report in tail of an allocation refused: "Python:
 * MemoryError" ..., or NULL. */
static const char *reported(const char *tail, int code, int abrt)
{
	char last[256];
	last_line(tail, last, sizeof last);
	if (abrt && (has_line(tail, "FATAL ERROR: ", "JavaScript heap out of memory") ||
		     has_line(tail, "FATAL ERROR: ", "Allocation failed") ||
		     has_line(tail, "# Fatal process out of memory", NULL)))
		return "Node.js: JavaScript heap out of memory";
	if (abrt && has_line(tail, "terminate called after throwing an instance of "
			     "'std::bad_alloc'", NULL))
		return "C++: std::bad_alloc";
	if (code != 1)
		return NULL;
	size_t name = strcspn(last, ": ");
	if (name >= 11 && !strncmp(last + name - 11, "MemoryError", 11) &&
	    (!last[name] || last[name] == ':'))
		return "Python: MemoryError";
	if (!strncmp(last, "OSError: [Errno 12] ", 20))
		return "Python: OSError ENOMEM";
	if (has_line(tail, "RangeError: Array buffer allocation failed", NULL))
		return "Node.js: RangeError: Array buffer allocation failed";
	if (has_line(tail, "Error: ENOMEM", NULL) || has_line(tail, "  code: 'ENOMEM'", NULL))
		return "Node.js: ENOMEM";
	return NULL;
}

/* What a refused allocation asked for, as NumPy words it ("Unable to
 * allocate 1.49 GiB for an array ..."), in buf; else "". */
static void asked(const char *tail, char *buf, size_t len)
{
	const char *p = strstr(tail, "Unable to allocate ");
	*buf = '\0';
	if (!p)
		return;
	p += 19;
	size_t n = strcspn(p, "\n");
	const char *f = memmem(p, n, " for ", 5);
	if (f && f - p < 24)
		snprintf(buf, len, "%.*s", (int)(f - p), p);
}

int job_oom_cause(const char *id, const cJSON *st, char *cause, size_t len)
{
	const cJSON *lim = cJSON_GetObjectItem(st, "limit");
	const cJSON *ec = cJSON_GetObjectItem(lim, "exit_code");
	const cJSON *sig = cJSON_GetObjectItem(lim, "signal_name");
	if (!job_oom_limit(lim))
		return 0;
	int code = cJSON_IsNumber(ec) ? ec->valueint : -1;
	int abrt = (cJSON_IsString(sig) && !strcmp(sig->valuestring, "ABRT")) || code == 134;
	if (code != 1 && !abrt)
		return 0;
	size_t got;
	char *tail = job_tail(id, "stderr", TAIL, &got), size[32] = "";
	const char *known = tail ? reported(tail, code, abrt) : NULL;
	if (known)
		asked(tail, size, sizeof size);
	if (known)
		snprintf(cause, len, "%s%s%s", known, size[0] ? ", asking for " : "", size);
	free(tail);
	return known != NULL;
}

/* The peak measured, " (peak measured: 12 MiB, cgroup memory.peak)". */
static void peak_words(char *buf, size_t len, const cJSON *lim)
{
	const cJSON *peak = cJSON_GetObjectItem(lim, "peak_memory_bytes");
	const cJSON *src = cJSON_GetObjectItem(lim, "peak_memory_source");
	*buf = '\0';
	if (cJSON_IsNumber(peak))
		snprintf(buf, len, "%.0f MiB%s%s", peak->valuedouble / 1048576,
			 cJSON_IsString(src) ? ", " : "", cJSON_IsString(src) ? src->valuestring : "");
}

void job_oom_hint(char *h, size_t len, const cJSON *st, int oom, const char *cause)
{
	const cJSON *lim = cJSON_GetObjectItem(st, "limit");
	double mib = job_oom_limit(lim) / 1048576, cap = (double)(cfg.memory_max >> 20);
	char peak[120], more[300], said[200] = "", held[300] = "";
	peak_words(peak, sizeof peak, lim);
	if (mib > 0 && mib >= cap)
		snprintf(more, sizeof more, "memory_mb is already at this server's cap (%.0f MiB): ",
			 cap);
	else
		snprintf(more, sizeof more, "ask for a larger memory_mb (up to %.0f MiB, this "
			 "server's cap), or ", cap);
	if (oom && cause)
		snprintf(said, sizeof said, "; the program's stderr reports %s", cause);
	if (peak[0])
		snprintf(held, sizeof held, ", so the peak measured (%s) is what the run held "
			 "before it, not what it asked for", peak);
	if (oom)
		snprintf(h, len, "The run ran out of memory: the sandbox saw it reach its limit of "
			 "%.0f MiB%s%s%s%s: %sprocess the data in chunks (read files in pieces, "
			 "stream, use smaller types) to use less.", mib, peak[0] ? " (peak measured: " :
			 "", peak, peak[0] ? ")" : "", said, more);
	else
		snprintf(h, len, "The program reported an allocation failure (%s) under a memory "
			 "limit of %.0f MiB: an allocation refused at the limit is never held%s. The "
			 "sandbox did not see the run reach the limit: the runtime gave up first (one "
			 "large allocation is refused far below it; V8's heap limit is three quarters "
			 "of it), or the program printed this itself. If it needs more memory: %s"
			 "process the data in chunks (read files in pieces, stream, use smaller "
			 "types) to use less.", cause ? cause : "?", mib, held, more);
}
