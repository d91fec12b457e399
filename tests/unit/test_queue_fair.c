/* test_queue_fair.c - unit tests of sr-queue's scheduler (sr-queue/fair.c):
 * oldest first within a tenant, round-robin across tenants, CPU budgets,
 * and the --cpu-budget parser. Prints TAP. */
#include <stdio.h>
#include <string.h>

#include "../../sr-queue/fair.c"

static int n, failed;

static void check(int pass, const char *what)
{
	n++;
	printf("%sok %d - %s\n", pass ? "" : "not ", n, what);
	failed += !pass;
}

static void id_of(char id[SQ_ID_LEN + 1], unsigned t)
{
	snprintf(id, SQ_ID_LEN + 1, "%016x%016x", t, 0xabcdu);
}

/* Pop everything: the tenants' first letters and the ids' low digits. */
static void drain(struct sq_fair *f, char *order, size_t max)
{
	char id[SQ_ID_LEN + 1];
	size_t ti, k = 0;
	uint64_t wait;
	while (k + 2 < max && sq_fair_pick(f, 0, id, &ti, &wait) == 0) {
		order[k++] = f->t[ti].name[0];
		order[k++] = id[15];
	}
	order[k] = '\0';
}

static void test_order(void)
{
	struct sq_fair f;
	char id[SQ_ID_LEN + 1], order[64];
	sq_fair_init(&f, 0, 0);
	unsigned a[] = { 5, 1, 9, 3 }, b[] = { 4, 2 };
	for (size_t i = 0; i < 4; i++) {
		id_of(id, a[i]);
		sq_fair_add(&f, "a", id);
	}
	for (size_t i = 0; i < 2; i++) {
		id_of(id, b[i]);
		sq_fair_add(&f, "b", id);
	}
	check(sq_fair_count(&f) == 6, "six jobs indexed");
	drain(&f, order, sizeof order);
	check(strcmp(order, "a1b2a3b4a5a9") == 0, "round-robin, oldest first in each tenant");
	printf("# order %s\n", order);
	check(sq_fair_count(&f) == 0, "all popped");
	id_of(id, 7);
	sq_fair_add(&f, "c", id);
	sq_fair_clear(&f);
	check(sq_fair_count(&f) == 0, "fair_clear empties the index");
	sq_fair_free(&f);
}

static void test_budget(void)
{
	struct sq_fair f;
	char id[SQ_ID_LEN + 1];
	size_t ti;
	uint64_t wait;
	const uint64_t ms = 1000000ULL;
	sq_fair_init(&f, 100 * ms, 1000 * ms); /* 100ms of CPU per second */
	for (unsigned i = 1; i <= 3; i++) {
		id_of(id, i);
		sq_fair_add(&f, "a", id);
	}
	id_of(id, 10);
	sq_fair_add(&f, "b", id);
	check(sq_fair_pick(&f, 1 * ms, id, &ti, &wait) == 0 && strcmp(f.t[ti].name, "a") == 0,
	      "a tenant with budget left starts a job");
	sq_fair_charge(&f, ti, 150 * ms, 2 * ms); /* 50ms in debt */
	check(sq_fair_pick(&f, 2 * ms, id, &ti, &wait) == 0 && strcmp(f.t[ti].name, "b") == 0,
	      "the other tenant runs meanwhile");
	sq_fair_charge(&f, ti, 1 * ms, 3 * ms);
	int r = sq_fair_pick(&f, 3 * ms, id, &ti, &wait);
	check(r == 1, "the tenant in debt waits");
	printf("# wait %llu ns\n", (unsigned long long)wait);
	check(wait > 490 * ms && wait < 510 * ms, "until its bucket refills (~500ms)");
	check(sq_fair_count(&f) == 2, "its jobs stay queued (they wait, not fail)");
	check(sq_fair_pick(&f, 400 * ms, id, &ti, &wait) == 1, "still waiting at 400ms");
	check(sq_fair_pick(&f, 600 * ms, id, &ti, &wait) == 0, "runs again once refilled");
	/* The bucket never holds more than one budget. */
	sq_fair_charge(&f, ti, 0, 600 * ms);
	sq_fair_charge(&f, ti, 250 * ms, 100000 * ms);
	check(sq_fair_pick(&f, 100000 * ms, id, &ti, &wait) == 1,
	      "idle time does not build up more than one budget");
	sq_fair_free(&f);
}

static void test_parse(void)
{
	uint64_t b = 0, w = 0;
	check(sq_parse_budget("10s/1m", &b, &w) == 0 && b == 10000000000ULL &&
	      w == 60000000000ULL, "10s/1m parses");
	check(sq_parse_budget("250ms/2.5s", &b, &w) == 0 && b == 250000000ULL &&
	      w == 2500000000ULL, "250ms/2.5s parses");
	const char *bad[] = { "10s", "/1m", "10s/", "0s/1m", "10s/0", "x/1m", "10s/1m/2",
			      "10s /1m", "" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char what[64];
		snprintf(what, sizeof what, "'%s' is refused", bad[i]);
		check(sq_parse_budget(bad[i], &b, &w) < 0, what);
	}
}

int main(void)
{
	test_order();
	test_budget();
	test_parse();
	printf("1..%d\n", n);
	return failed != 0;
}
