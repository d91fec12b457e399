/* test_jw.c - unit tests for lib/jw.c, the JSON writer of the static
 * tools: for each object, the line it writes must equal what cJSON
 * writes for the same object, and must read back through cJSON. */
#include <cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sr.h"

static int n, failed;

static void check(int pass, const char *what)
{
	n++;
	printf("%sok %d - %s\n", pass ? "" : "not ", n, what);
	failed += !pass;
}

/* Write {"k": v} both ways, with v a number, and compare. */
static void same_number(double v, const char *what)
{
	struct sr_jw w = {0};
	size_t len;
	sr_jw_open(&w, NULL);
	sr_jw_num(&w, "k", v);
	sr_jw_close(&w);
	char *ours = sr_jw_line(&w, &len);

	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "k", v);
	char *theirs = cJSON_PrintUnformatted(o);
	int pass = ours && theirs && len == strlen(theirs) + 1 &&
		   strncmp(ours, theirs, len - 1) == 0 && ours[len - 1] == '\n';
	check(pass, what);
	if (!pass)
		printf("# ours %s# cJSON %s\n", ours ? ours : "(null)\n", theirs);
	free(ours);
	free(theirs);
	cJSON_Delete(o);
}

/* Strings round-trip through cJSON's parser unchanged. */
static void string_round_trip(const char *s, const char *what)
{
	struct sr_jw w = {0};
	size_t len;
	sr_jw_open(&w, NULL);
	sr_jw_str(&w, s, s); /* as a key and as a value */
	sr_jw_close(&w);
	char *ours = sr_jw_line(&w, &len);
	cJSON *o = ours ? cJSON_Parse(ours) : NULL;
	cJSON *v = o ? o->child : NULL;
	int pass = v && cJSON_IsString(v) && strcmp(v->valuestring, s) == 0 &&
		   strcmp(v->string, s) == 0 && !v->next;
	check(pass, what);
	if (!pass)
		printf("# wrote %s", ours ? ours : "(null)\n");
	cJSON_Delete(o);
	free(ours);
}

static void numbers(void)
{
	same_number(0, "number 0");
	same_number(3, "small integer");
	same_number(-7, "negative integer");
	same_number(268435456, "256M");
	same_number(5000000000.0, "beyond 32 bits");
	same_number(1.089, "milliseconds with a fraction");
	same_number(0.1, "0.1 (15 digits suffice)");
	same_number(1.0 / 3.0, "1/3 (needs 17 digits)");
	same_number(1e300, "1e300");
	same_number(NAN, "NaN is null");
	same_number(INFINITY, "infinity is null");
}

static void strings(void)
{
	string_round_trip("plain", "plain string");
	string_round_trip("quote \" and backslash \\", "quote and backslash escaped");
	string_round_trip("tab\tnewline\ncr\rbs\bff\f", "named control characters");
	string_round_trip("\x01\x1f bell \a", "other control characters as \\u00XX");
	string_round_trip("/sys/fs/cgroup/user.slice/caf\xc3\xa9", "UTF-8 passes through");
	string_round_trip("", "empty string");
}

/* Nesting and member order, as sr-limit writes its report. */
static void nesting(void)
{
	struct sr_jw w = {0};
	size_t len;
	sr_jw_open(&w, NULL);
	sr_jw_str(&w, "reason", "exit");
	sr_jw_null(&w, "signal");
	sr_jw_open(&w, "limits");
	sr_jw_open(&w, "memory");
	sr_jw_num(&w, "bytes", 1024);
	sr_jw_close(&w);
	sr_jw_open(&w, "core");
	sr_jw_close(&w);
	sr_jw_close(&w);
	sr_jw_num(&w, "after", 1);
	sr_jw_close(&w);
	char *line = sr_jw_line(&w, &len);
	const char *want = "{\"reason\":\"exit\",\"signal\":null,\"limits\":"
			   "{\"memory\":{\"bytes\":1024},\"core\":{}},\"after\":1}\n";
	check(line && strcmp(line, want) == 0, "nested objects, members in order");
	if (line && strcmp(line, want) != 0)
		printf("# got %s", line);
	free(line);
}

/* An object left open, or closed once too often, or too deep, is an error. */
static void errors(void)
{
	struct sr_jw w = {0};
	size_t len;
	char *line;
	sr_jw_open(&w, NULL);
	errno = 0;
	line = sr_jw_line(&w, &len);
	check(!line && errno == ENOMEM, "unclosed object fails");
	sr_jw_open(&w, NULL);
	sr_jw_close(&w);
	sr_jw_close(&w);
	line = sr_jw_line(&w, &len);
	check(!line, "closing more than was opened fails");
	/* Too deep. */
	for (int i = 0; i <= SR_JW_DEPTH; i++)
		sr_jw_open(&w, i ? "k" : NULL);
	for (int i = 0; i <= SR_JW_DEPTH; i++)
		sr_jw_close(&w);
	line = sr_jw_line(&w, &len);
	check(!line, "nesting deeper than SR_JW_DEPTH fails");
}

int main(void)
{
	numbers();
	strings();
	nesting();
	errors();
	printf("1..%d\n", n);
	return failed != 0;
}
