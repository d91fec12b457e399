/* fair.c - which queued job runs next.
 *
 * A worker keeps every queued id it knows of in a min-heap per tenant
 * (ids sort by submission time). It serves the tenants round-robin, the
 * oldest job of each first. With a CPU budget, each tenant has a bucket
 * of CPU time that refills at budget/window and holds at most one budget;
 * a finished job's CPU time is charged to it, and a tenant whose bucket
 * is empty waits until it refills. The index is only a hint: claiming a
 * job (flock + rename) is what decides who runs it. */
#include <stdlib.h>
#include <string.h>

#include "sr.h"
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

/* ns until tenant t's bucket holds more than nothing again. */
static uint64_t refill_wait(const struct sq_fair *f, const struct sq_tenant *t)
{
	unsigned __int128 need = (unsigned __int128)(uint64_t)(1 - t->tokens);
	return (uint64_t)(need * f->window_ns / f->budget_ns) + 1;
}

/* Pop the next job to try: 0 with id and ti set; 1 when nothing can start now
 * (*wait_ns: how long until a budget allows one, 0 if nothing is queued). */
int sq_fair_pick(struct sq_fair *f, uint64_t now, char id[SQ_ID_LEN + 1], size_t *ti,
	      uint64_t *wait_ns)
{
	*wait_ns = 0;
	for (size_t k = 1; k <= f->nt; k++) {
		size_t i = (f->rr + k) % f->nt;
		struct sq_tenant *t = &f->t[i];
		if (t->n == 0)
			continue;
		refill(f, t, now);
		if (f->budget_ns && t->tokens <= 0) {
			uint64_t w = refill_wait(f, t);
			if (!*wait_ns || w < *wait_ns)
				*wait_ns = w;
			continue;
		}
		heap_pop(t, id);
		*ti = i;
		f->rr = i;
		return 0;
	}
	return 1;
}

void sq_fair_charge(struct sq_fair *f, size_t ti, uint64_t cpu_ns, uint64_t now)
{
	if (!f->budget_ns || ti >= f->nt)
		return;
	struct sq_tenant *t = &f->t[ti];
	refill(f, t, now);
	t->tokens -= cpu_ns > (uint64_t)INT64_MAX / 2 ? INT64_MAX / 2 : (int64_t)cpu_ns;
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
	    sr_parse_duration_ns(slash + 1, window) < 0 || *budget == 0 || *window == 0)
		return -1;
	return 0;
}
