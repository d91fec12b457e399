/* fuzz_json.c - lib/jr.c, the strict JSON reader of sr-exec, with cJSON
 * as a second opinion.
 *
 * Beyond "no crash, no undefined behaviour", every input is checked
 * against what the reader promises (lib/sr.h):
 *   - a refusal says EINVAL, a reason, and a place within the text;
 *   - a tree's strings hold no NUL and have the length they say, its
 *     objects name each member once, it nests at most SR_JR_DEPTH deep;
 *   - cJSON takes every text the reader takes (it is the more lenient:
 *     bad UTF-8, lone surrogates, repeated names, any control character
 *     as white space), but for a number longer than its 63-byte buffer,
 *     and builds the same tree: the same kinds, names and strings byte
 *     for byte, in the same order, and the numbers it reads as doubles
 *     are strtod of the literal the reader kept;
 *   - sr_jr_uint takes a plain run of digits exactly when strtoull does,
 *     with the same value, and any integer it takes below 2^53 is the
 *     double the literal stands for. */
#include <cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "sr.h"

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_json: %s\n", what);
	abort();
}

static void check_uint(const struct sr_jr *v)
{
	uint64_t u;
	int r = sr_jr_uint(v, &u);
	if (v->str[strspn(v->str, "0123456789")] == '\0') {
		errno = 0;
		unsigned long long want = strtoull(v->str, NULL, 10);
		if (errno == ERANGE ? r == 0 : r != 0 || u != want)
			fail("sr_jr_uint and strtoull disagree on a run of digits");
	}
	if (r == 0 && u < (1ULL << 53) && strtod(v->str, NULL) != (double)u)
		fail("sr_jr_uint's integer is not the literal's value");
}

/* 1 when v (depth levels down) holds a number cJSON cannot read whole. */
static int check_tree(const struct sr_jr *v, int depth)
{
	int long_number = 0;
	if (!v->str != (v->type != SR_JR_STRING && v->type != SR_JR_NUMBER))
		fail("a string or number without its text, or another value with one");
	if (v->str && (strlen(v->str) != v->len || (v->type == SR_JR_NUMBER && v->len == 0)))
		fail("a text whose length is not len");
	if (v->type == SR_JR_NUMBER) {
		check_uint(v);
		long_number = v->len > 63;
	}
	if (v->type != SR_JR_ARRAY && v->type != SR_JR_OBJECT) {
		if (v->child)
			fail("a scalar with elements");
		return long_number;
	}
	if (depth >= SR_JR_DEPTH)
		fail("nested deeper than SR_JR_DEPTH");
	for (const struct sr_jr *e = v->child; e; e = e->next) {
		if (!e->key != (v->type == SR_JR_ARRAY))
			fail("an element with a name, or a member without one");
		if (e->key)
			for (const struct sr_jr *f = e->next; f; f = f->next)
				if (strcmp(e->key, f->key) == 0)
					fail("a member name twice in an object");
		if (e->key && sr_jr_get(v, e->key) != e)
			fail("sr_jr_get does not find a member by its name");
		long_number |= check_tree(e, depth + 1);
	}
	return long_number;
}

static void same(const struct sr_jr *v, const cJSON *c)
{
	static const int kinds[] = {
		[SR_JR_NULL] = cJSON_NULL, [SR_JR_FALSE] = cJSON_False, [SR_JR_TRUE] = cJSON_True,
		[SR_JR_NUMBER] = cJSON_Number, [SR_JR_STRING] = cJSON_String,
		[SR_JR_ARRAY] = cJSON_Array, [SR_JR_OBJECT] = cJSON_Object,
	};
	if ((c->type & 0xff) != kinds[v->type])
		fail("cJSON reads another kind of value");
	if ((v->key || c->string) && (!v->key || !c->string || strcmp(v->key, c->string) != 0))
		fail("cJSON reads another member name");
	if (v->type == SR_JR_STRING && strcmp(v->str, c->valuestring) != 0)
		fail("cJSON reads another string");
	if (v->type == SR_JR_NUMBER && strtod(v->str, NULL) != c->valuedouble)
		fail("cJSON reads another number");
	const struct sr_jr *e = sr_jr_first(v);
	const cJSON *d = c->child;
	for (; e && d; e = e->next, d = d->next)
		same(e, d);
	if (e || d)
		fail("cJSON reads another number of elements or members");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sr_jr_error err = {0, NULL};
	errno = 0;
	struct sr_jr *root = sr_jr_parse((const char *)data, size, &err);
	if (!root) {
		if (errno != EINVAL || !err.what || !*err.what || err.pos > size)
			fail("a refusal without EINVAL, a reason or a place in the text");
		if ((err.pos == size) != (strcmp(err.what, "unexpected end") == 0))
			fail("\"unexpected end\" not at the end, or the end called otherwise");
		return 0;
	}
	int long_number = check_tree(root, 0);
	char *text = fz_strndup(data, size);
	cJSON *c = cJSON_ParseWithLengthOpts(text, size + 1, NULL, 1);
	if (!c && !long_number)
		fail("cJSON refuses a text the reader takes");
	if (c)
		same(root, c);
	cJSON_Delete(c);
	free(text);
	sr_jr_free(root);
	return 0;
}
