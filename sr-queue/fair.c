/* fair.c - which queued job runs next.
 *
 * A worker keeps every queued id it knows of in a min-heap per tenant
 * (ids sort by submission time: their first 16 hex digits are it, in
 * ns). Each tenant's oldest job comes first; across tenants, a free slot
 * goes to the tenant with the best claim: with a CPU budget, one within
 * its budget before one over it (the one less in debt first among those
 * over it); then the one with fewer jobs running; then round-robin.
 *
 * The budget is work-conserving, as a fair scheduler is: a slot is never
 * left free while a job is queued. Each tenant has a bucket of CPU time
 * that refills at budget/window and holds at most one budget and at
 * least one budget of debt; a finished job's CPU time is charged to it.
 * A tenant over its budget only goes after the others' queued jobs: a
 * lone tenant runs at once whatever it used, and what it used while alone
 * counts against it for at most one window.
 *
 * Why a picked job waited is told from two marks per tenant (wall-clock
 * ns, the clock of the ids): when last its queued jobs were left waiting
 * because every slot was busy, and when last a slot went to another
 * tenant because of this one's budget. A job submitted before a mark
 * waited for that. The index is only a hint: claiming a job (flock +
 * rename) is what decides who runs it. */
#include <stdlib.h>
#include <string.h>

#include "sr.h"
#include "spool.h"
#include "worker.h"

void sq_fair_init(struct sq_fair *f, uint64_t budget_ns, uint64_t window_ns)
{
	memset(f, 0, sizeof *f);
	f->budget_ns = budget_ns;
	f->window_ns = window_ns;
	f->rr = (size_t)-1;
}

void sq_fair_free(struct sq_fair *f)
{
	for (size_t i = 0; i < f->nt; i++)
		free(f->t[i].heap);
	free(f->t);
	memset(f, 0, sizeof *f);
}

static void *grow(void *p, size_t *cap, size_t size)
{
	size_t n = *cap ? *cap * 2 : 16;
	void *q = realloc(p, n * size);
	if (!q)
		sr_fatal_sys(SR_EXIT_SYS, "unable to allocate");
	*cap = n;
	return q;
}

static struct sq_tenant *tenant_get(struct sq_fair *f, const char *name)
{
	for (size_t i = 0; i < f->nt; i++)
		if (strcmp(f->t[i].name, name) == 0)
			return &f->t[i];
	if (f->nt == f->cap)
		f->t = grow(f->t, &f->cap, sizeof *f->t);
	struct sq_tenant *t = &f->t[f->nt++];
	memset(t, 0, sizeof *t);
	strncpy(t->name, name, SQ_TENANT_MAX);
	t->tokens = (int64_t)f->budget_ns;
	return t;
}

static void swap_ids(char (*a)[SQ_ID_LEN + 1], char (*b)[SQ_ID_LEN + 1])
{
	char tmp[SQ_ID_LEN + 1];
	memcpy(tmp, a, sizeof tmp);
	memcpy(a, b, sizeof tmp);
	memcpy(b, tmp, sizeof tmp);
}

void sq_fair_add(struct sq_fair *f, const char *tenant, const char *id)
{
	struct sq_tenant *t = tenant_get(f, tenant);
	if (t->n == t->cap)
		t->heap = grow(t->heap, &t->cap, sizeof *t->heap);
	size_t i = t->n++;
	memcpy(t->heap[i], id, SQ_ID_LEN + 1);
	while (i > 0 && strcmp(t->heap[(i - 1) / 2], t->heap[i]) > 0) {
		swap_ids(&t->heap[(i - 1) / 2], &t->heap[i]);
		i = (i - 1) / 2;
	}
}

static void heap_pop(struct sq_tenant *t, char id[SQ_ID_LEN + 1])
{
	memcpy(id, t->heap[0], SQ_ID_LEN + 1);
	t->n--;
	memcpy(t->heap[0], t->heap[t->n], SQ_ID_LEN + 1);
	for (size_t i = 0;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < t->n && strcmp(t->heap[l], t->heap[m]) < 0)
			m = l;
		if (r < t->n && strcmp(t->heap[r], t->heap[m]) < 0)
			m = r;
		if (m == i)
			break;
		swap_ids(&t->heap[i], &t->heap[m]);
		i = m;
	}
}

void sq_fair_clear(struct sq_fair *f)
{
	for (size_t i = 0; i < f->nt; i++)
		f->t[i].n = 0;
}

size_t sq_fair_count(const struct sq_fair *f)
{
	size_t n = 0;
	for (size_t i = 0; i < f->nt; i++)
		n += f->t[i].n;
	return n;
}

static void refill(const struct sq_fair *f, struct sq_tenant *t, uint64_t now)
{
	if (!f->budget_ns)
		return;
	if (t->refill_ns && now > t->refill_ns) {
		unsigned __int128 add = (unsigned __int128)(now - t->refill_ns) *
					f->budget_ns / f->window_ns;
		int64_t cap = (int64_t)f->budget_ns;
		t->tokens = add >= (unsigned __int128)(cap - t->tokens) ? cap
			    : t->tokens + (int64_t)add;
	}
	t->refill_ns = now;
}

static int over(const struct sq_fair *f, const struct sq_tenant *t)
{
	return f->budget_ns && t->tokens <= 0;
}

/* Does tenant a (at distance da after the last served) go before b? */
static int before(const struct sq_fair *f, const struct sq_tenant *a, size_t da,
		  const struct sq_tenant *b, size_t db)
{
	if (over(f, a) != over(f, b))
		return !over(f, a);
	if (over(f, a) && a->tokens != b->tokens)
		return a->tokens > b->tokens;
	if (a->running != b->running)
		return a->running < b->running;
	return da < db;
}

/* Why a job submitted at sub (wall ns) of tenant t waited, if it did. */
static enum sq_wait why_waited(const struct sq_tenant *t, uint64_t sub)
{
	if (t->held_ns && sub <= t->held_ns)
		return SQ_WAIT_BUDGET;
	if (t->busy_ns && sub <= t->busy_ns)
		return SQ_WAIT_SLOTS;
	return SQ_WAIT_NONE;
}

uint64_t sq_id_time(const char *id)
{
	uint64_t t = 0;
	for (size_t i = 0; i < 16 && id[i]; i++) {
		char c = id[i];
		t = t << 4 | (uint64_t)(c >= 'a' ? c - 'a' + 10 : c >= 'A' ? c - 'A' + 10 : c - '0');
	}
	return t;
}

/* The next job to try: 0 with p filled; 1 when nothing is queued. now is
 * the monotonic clock (the buckets), wall the real one (the marks). A
 * tenant over its budget that the slot did not go to because of it is
 * marked held, if its jobs still wait when the round ends (sq_fair_round). */
int sq_fair_pick(struct sq_fair *f, uint64_t now, uint64_t wall, struct sq_pick *p)
{
	size_t best = (size_t)-1, bd = 0;
	for (size_t k = 1; k <= f->nt; k++) {
		size_t i = (f->rr + k) % f->nt;
		if (f->t[i].n == 0)
			continue;
		refill(f, &f->t[i], now);
		if (best == (size_t)-1 || before(f, &f->t[i], k, &f->t[best], bd))
			best = i, bd = k;
	}
	if (best == (size_t)-1)
		return 1;
	struct sq_tenant *t = &f->t[best];
	for (size_t i = 0; i < f->nt; i++)
		if (i != best && f->t[i].n && over(f, &f->t[i]) &&
		    (!over(f, t) || t->tokens > f->t[i].tokens))
			f->t[i].held_pending = wall;
	heap_pop(t, p->id);
	p->ti = best;
	p->why = why_waited(t, sq_id_time(p->id));
	f->rr = best;
	return 0;
}

/* The end of a round of picks: the tenants whose jobs are still queued
 * waited for a slot, and those passed over for their budget, for it. */
void sq_fair_round(struct sq_fair *f, uint64_t wall)
{
	for (size_t i = 0; i < f->nt; i++) {
		struct sq_tenant *t = &f->t[i];
		if (t->n) {
			t->busy_ns = wall;
			if (t->held_pending)
				t->held_ns = t->held_pending;
		}
		t->held_pending = 0;
	}
}

void sq_fair_running(struct sq_fair *f, size_t ti, int delta)
{
	if (ti >= f->nt)
		return;
	if (delta > 0)
		f->t[ti].running++;
	else if (f->t[ti].running)
		f->t[ti].running--;
}

void sq_fair_charge(struct sq_fair *f, size_t ti, uint64_t cpu_ns, uint64_t now)
{
	if (!f->budget_ns || ti >= f->nt)
		return;
	struct sq_tenant *t = &f->t[ti];
	refill(f, t, now);
	int64_t floor = -(int64_t)f->budget_ns;
	uint64_t room = (uint64_t)(t->tokens - floor);
	t->tokens = cpu_ns >= room ? floor : t->tokens - (int64_t)cpu_ns;
}

/* "CPU/WINDOW", e.g. 10s/1m: CPU time per tenant per window. */
int sq_parse_budget(const char *s, uint64_t *budget, uint64_t *window)
{
	const char *slash = strchr(s, '/');
	if (!slash || slash == s)
		return -1;
	char cpu[64];
	size_t n = (size_t)(slash - s);
	if (n >= sizeof cpu)
		return -1;
	memcpy(cpu, s, n);
	cpu[n] = '\0';
	if (sr_parse_duration_ns(cpu, budget) < 0 ||
	    sr_parse_duration_ns(slash + 1, window) < 0 || *budget == 0 || *window == 0 ||
	    *budget > (uint64_t)INT64_MAX / 4)
		return -1;
	return 0;
}
