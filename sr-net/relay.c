/* relay.c - the bytes of one allowed connection, both ways (lib's
 * sr_relay), counted: the connection's own count for its record and the
 * run's, in memory the proxy's children share, which ends every
 * connection past --max-bytes. */
#include "sr-net.h"
#include "sr.h"

struct count {
	const struct net *n;
	uint64_t *way[2];
	uint64_t *bytes;
	int capped;
};

static int seen(int way, size_t len, void *arg)
{
	struct count *c = arg;
	*c->way[way] += len;
	uint64_t total = __atomic_add_fetch(&c->bytes[way], (uint64_t)len, __ATOMIC_RELAXED);
	if (c->n->max_bytes && total > c->n->max_bytes) {
		c->capped = 1;
		return -1;
	}
	return 0;
}

void relay(const struct net *n, int a, int b, uint64_t *sent, uint64_t *received,
	   uint64_t *bytes, int *capped)
{
	struct count c = { n, { sent, received }, bytes, 0 };
	(void)sr_relay(a, b, seen, &c);
	*capped = c.capped;
}
