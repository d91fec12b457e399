/* job_oom.c - a run that failed for memory, and what to say of it.
 *
 * With a cgroup, the kernel counts the OOM kills and sr-limit says
 * "memory". Under an rlimit (RLIMIT_DATA) nothing is killed: an
 * allocation is refused, and the language turns that into its own error,
 * often long before the peak nears the limit (one large array asked for
 * at once). sr-limit's own test (a peak within 10% of the limit) misses
 * those, so the failure is recognised here from what the runtime does when
 * it gives up, never from text alone:
 *
 *   Python   the runner's start-up module (runners/python-lib) ends an
 *            uncaught MemoryError with a last stderr line naming the
 *            job's id (which the program is not told: it cannot print it
 *            by chance), and Python exits 1;
 *   Node.js  the runner sets V8's heap limit below the memory limit, so a
 *            full heap ends in V8's fatal "JavaScript heap out of memory"
 *            (or "Allocation failed") and abort(): SIGABRT;
 *   C++      an uncaught std::bad_alloc ends in std::terminate's line and
 *            abort(): SIGABRT (134 when a shell ran it).
 *
 * Each needs that status, the runtime's line near the end of stderr, and
 * a memory limit in force (sr-limit's report lists it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "job.h"
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

/* A line of tail that is a runner's mark for job id: "JOB_OOM_MARK
 * CAUSE) [job ID]". Its cause, made printable, in buf; 1, or 0. */
static int runner_mark(const char *tail, const char *id, char *buf, size_t len)
{
	char end[64];
	size_t m = strlen(JOB_OOM_MARK), e = (size_t)snprintf(end, sizeof end, ") [job %s]", id);
	for (const char *p = tail; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		size_t n = strcspn(p, "\n");
		if (n <= m + e || strncmp(p, JOB_OOM_MARK, m) || memcmp(p + n - e, end, e))
			continue;
		size_t k = n - m - e < len ? n - m - e : len - 1;
		for (size_t i = 0; i < k; i++) {
			unsigned char c = (unsigned char)p[m + i];
			buf[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
		}
		buf[k] = '\0';
		return 1;
	}
	return 0;
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
	char *tail = job_tail(id, "stderr", TAIL, &got);
	const char *known = NULL;
	if (!tail)
		return 0;
	if (abrt && (has_line(tail, "FATAL ERROR: ", "JavaScript heap out of memory") ||
		     has_line(tail, "FATAL ERROR: ", "Allocation failed") ||
		     has_line(tail, "# Fatal process out of memory", NULL)))
		known = "Node.js: JavaScript heap out of memory";
	else if (abrt && has_line(tail, "terminate called after throwing an instance of "
				  "'std::bad_alloc'", NULL))
		known = "C++: std::bad_alloc";
	int found = known || (code == 1 && runner_mark(tail, id, cause, len));
	if (known)
		snprintf(cause, len, "%s", known);
	free(tail);
	return found;
}

void job_oom_hint(char *h, size_t len, const cJSON *st, const char *cause)
{
	const cJSON *lim = cJSON_GetObjectItem(st, "limit");
	const cJSON *peak = cJSON_GetObjectItem(lim, "peak_memory_bytes");
	double mib = job_oom_limit(lim) / 1048576, cap = (double)(cfg.memory_max >> 20);
	char what[200] = "", more[300];
	if (mib > 0)
		snprintf(what, sizeof what, " under its limit of %.0f MiB", mib);
	if (mib > 0 && cJSON_IsNumber(peak))
		snprintf(what + strlen(what), sizeof what - strlen(what), " (peak measured: %.0f MiB)",
			 peak->valuedouble / 1048576);
	if (mib > 0 && mib >= cap)
		snprintf(more, sizeof more, "memory_mb is already at this server's cap (%.0f MiB): ",
			 cap);
	else
		snprintf(more, sizeof more, "ask for a larger memory_mb (up to %.0f MiB, this "
			 "server's cap), or ", cap);
	snprintf(h, len, "The run ran out of memory%s%s%s%s: %sprocess the data in chunks "
		 "(read files in pieces, stream, use smaller types) to use less.",
		 cause ? " (" : "", cause ? cause : "", cause ? ")" : "", what, more);
}
