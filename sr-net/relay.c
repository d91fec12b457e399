/* relay.c - the bytes of one allowed connection, both ways, until both
 * sides have ended. Each direction's end (EOF) is passed on as a
 * shutdown of the other side's writing, so half-closed protocols work.
 * The run's bytes are counted in memory the proxy's children share, and
 * past --max-bytes every connection stops. */
#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sr-net.h"
#include "sr.h"

#define CHUNK 65536

/* Move what from can give to to: bytes moved, 0 at EOF, -1 on error. */
static ssize_t pump(int from, int to)
{
	static char buf[CHUNK];
	ssize_t r = read(from, buf, sizeof buf);
	if (r < 0)
		return errno == EINTR || errno == EAGAIN ? -2 : -1;
	if (r > 0 && sr_write_all(to, buf, (size_t)r) < 0)
		return -1;
	return r;
}

void relay(const struct net *n, int a, int b, uint64_t *sent, uint64_t *received,
	   uint64_t *bytes, int *capped)
{
	int open_a = 1, open_b = 1;
	*capped = 0;
	while (open_a || open_b) {
		struct pollfd p[2] = { { a, open_a ? POLLIN : 0, 0 }, { b, open_b ? POLLIN : 0, 0 } };
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		for (int i = 0; i < 2; i++) {
			if (!p[i].revents)
				continue;
			int from = i ? b : a, to = i ? a : b;
			ssize_t r = pump(from, to);
			if (r == -2)
				continue;
			if (r <= 0) {
				if (r < 0)
					return;
				shutdown(to, SHUT_WR);
				if (i)
					open_b = 0;
				else
					open_a = 0;
				continue;
			}
			*(i ? received : sent) += (uint64_t)r;
			uint64_t total = __atomic_add_fetch(&bytes[i], (uint64_t)r, __ATOMIC_RELAXED);
			if (n->max_bytes && total > n->max_bytes) {
				*capped = 1;
				return;
			}
		}
	}
}
