/* test_queue_fair.c - unit tests of sr-queue's scheduler (sr-queue/fair.c):
 * oldest first within a tenant, round-robin across tenants, CPU budgets
 * that hold a tenant back only while another's jobs wait (a lone tenant
 * never waits for its own), a free slot to the tenant with fewer running,
 * why a job waited, and the --cpu-budget parser. Prints TAP. */
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
	struct sq_pick p;
	size_t k = 0;
	while (k + 2 < max && sq_fair_pick(f, 0, 0, &p) == 0) {
		order[k++] = f->t[p.ti].name[0];
		order[k++] = p.id[15];
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

static const uint64_t ms = 1000000ULL;

/* Pick one job at monotonic time now: its tenant's first letter, or 0. */
static char pick(struct sq_fair *f, uint64_t now, struct sq_pick *p)
{
	return sq_fair_pick(f, now, 1000 * ms + now, p) == 0 ? f->t[p->ti].name[0] : 0;
}

static void add(struct sq_fair *f, const char *tenant, unsigned t)
{
	char id[SQ_ID_LEN + 1];
	id_of(id, t);
	sq_fair_add(f, tenant, id);
}

/* A lone tenant past its budget is never held back by it. */
static void test_lone(void)
{
	struct sq_fair f;
	struct sq_pick p;
	sq_fair_init(&f, 100 * ms, 1000 * ms); /* 100ms of CPU per second */
	for (unsigned i = 1; i <= 5; i++)
		add(&f, "a", i);
	int all = 1, none_held = 1;
	for (unsigned i = 1; i <= 5; i++) {
		all &= pick(&f, i * ms, &p) == 'a';
		none_held &= p.why != SQ_WAIT_BUDGET;
		sq_fair_running(&f, p.ti, 1);
		sq_fair_round(&f, 1000 * ms + i * ms);      /* one slot: the rest wait */
		sq_fair_charge(&f, p.ti, 300 * ms, i * ms); /* far past its budget */
		sq_fair_running(&f, p.ti, -1);
	}
	check(all, "a lone tenant far past its budget still gets every free slot");
	check(none_held, "and none of its jobs is said to have waited for its budget");
	check(f.t[0].tokens == -100 * (int64_t)ms, "its debt is bounded by one budget");
	check(sq_fair_count(&f) == 0, "nothing is left queued");
	sq_fair_free(&f);
}

/* Two tenants: the one over its budget goes after the other's queued jobs. */
static void test_two(void)
{
	struct sq_fair f;
	struct sq_pick p;
	sq_fair_init(&f, 100 * ms, 1000 * ms);
	for (unsigned i = 1; i <= 3; i++)
		add(&f, "heavy", i);
	check(pick(&f, 1 * ms, &p) == 'h', "heavy, alone, starts a job");
	sq_fair_running(&f, p.ti, 1);
	sq_fair_round(&f, 1001 * ms);
	sq_fair_charge(&f, p.ti, 150 * ms, 2 * ms);    /* 50ms in debt */
	sq_fair_running(&f, p.ti, -1);
	add(&f, "light", 10);   /* submitted at wall 10 ns: before the marks */
	add(&f, "light", 11);
	check(pick(&f, 3 * ms, &p) == 'l', "light, within its budget, goes first");
	check(p.why == SQ_WAIT_NONE, "light never waited for a slot or a budget");
	sq_fair_running(&f, p.ti, 1);
	sq_fair_round(&f, 1003 * ms);
	sq_fair_running(&f, p.ti, -1);
	check(pick(&f, 4 * ms, &p) == 'l', "and again while it has jobs queued");
	check(p.why == SQ_WAIT_SLOTS, "its second job waited for the slot, not for a budget");
	sq_fair_running(&f, p.ti, 1);
	sq_fair_round(&f, 1004 * ms);
	sq_fair_running(&f, p.ti, -1);
	check(pick(&f, 5 * ms, &p) == 'h', "then heavy runs, still in debt: no slot left free");
	check(p.why == SQ_WAIT_BUDGET, "and its job says it waited for its budget");
	check(pick(&f, 6 * ms, &p) == 'h' && p.why == SQ_WAIT_BUDGET, "so does its next");
	check(pick(&f, 7 * ms, &p) == 0, "nothing is left");
	/* a job heavy submits after the last mark did not wait for anything */
	char id[SQ_ID_LEN + 1];
	id_of(id, 2000 * 1000000u);
	sq_fair_add(&f, "heavy", id);
	check(pick(&f, 8 * ms, &p) == 'h' && p.why == SQ_WAIT_NONE,
	      "a job queued after the marks waited for nothing");
	sq_fair_free(&f);
}

/* Slots: heavy fills them; light's job, arriving, gets the next free one. */
static void test_slots(void)
{
	struct sq_fair f;
	struct sq_pick p;
	sq_fair_init(&f, 0, 0);                 /* no budget at all */
	for (unsigned i = 1; i <= 6; i++)
		add(&f, "heavy", i);
	size_t h = 0;
	for (int k = 0; k < 2; k++) {           /* -j 2: both slots heavy's */
		(void)pick(&f, 1 * ms, &p);
		h = p.ti;
		sq_fair_running(&f, h, 1);
	}
	sq_fair_round(&f, 1001 * ms);
	add(&f, "light", 7);
	sq_fair_running(&f, h, -1);             /* one of heavy's ends */
	check(pick(&f, 2 * ms, &p) == 'l', "without a budget too, the free slot goes to the "
	      "tenant with fewer jobs running");
	sq_fair_running(&f, p.ti, 1);
	sq_fair_free(&f);

	sq_fair_init(&f, 100 * ms, 1000 * ms);  /* both over budget: less debt first */
	add(&f, "a", 1);
	add(&f, "b", 2);
	(void)pick(&f, 1 * ms, &p);
	sq_fair_charge(&f, p.ti, 180 * ms, 1 * ms);
	(void)pick(&f, 1 * ms, &p);
	sq_fair_charge(&f, p.ti, 120 * ms, 1 * ms);
	add(&f, "a", 3);
	add(&f, "b", 4);
	check(pick(&f, 2 * ms, &p) == 'b' && p.why == SQ_WAIT_NONE,
	      "both over budget: the one less in debt goes first");
	sq_fair_round(&f, 1002 * ms);
	check(pick(&f, 2 * ms, &p) == 'a' && p.why == SQ_WAIT_BUDGET,
	      "the other waited for its budget");
	sq_fair_free(&f);
}

/* The bucket: refills at budget/window, at most one budget. */
static void test_bucket(void)
{
	struct sq_fair f;
	struct sq_pick p;
	sq_fair_init(&f, 100 * ms, 1000 * ms);
	add(&f, "a", 1);
	(void)pick(&f, 1 * ms, &p);
	sq_fair_charge(&f, p.ti, 150 * ms, 1 * ms);
	check(f.t[0].tokens == -50 * (int64_t)ms, "a job's CPU is taken from the bucket");
	add(&f, "a", 2);
	(void)pick(&f, 501 * ms, &p);
	check(f.t[0].tokens == 0, "which refills at budget/window");
	sq_fair_charge(&f, p.ti, 0, 100000 * ms);
	check(f.t[0].tokens == 100 * (int64_t)ms, "idle time builds up one budget, no more");
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
			      "10s /1m", "", "1000000000000s/1m" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char what[64];
		snprintf(what, sizeof what, "'%s' is refused", bad[i]);
		check(sq_parse_budget(bad[i], &b, &w) < 0, what);
	}
}

int main(void)
{
	test_order();
	test_lone();
	test_two();
	test_slots();
	test_bucket();
	test_parse();
	printf("1..%d\n", n);
	return failed != 0;
}
